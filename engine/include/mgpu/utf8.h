/* utf8.h - UTF-8 text from scripts and labs: a message cut in the middle of
 * a character (a Korean verdict trimmed at a byte count) must not turn the
 * whole text into question marks where a JSON encoder refuses it. */
#ifndef MGPU_UTF8_H
#define MGPU_UTF8_H
#include <stddef.h>

/* Length in bytes of the well-formed UTF-8 sequence at s (1-4), or 0 when
 * the bytes there do not start one (a stray continuation byte, a truncated
 * or overlong sequence, a surrogate, past U+10FFFF). len: bytes available. */
size_t mgpu_utf8_seq_len(const unsigned char *s, size_t len);

/* Replace, in place, every byte that is not part of a well-formed sequence
 * with '?': valid characters (Hangul included) are kept. */
void mgpu_utf8_scrub(char *s);

#endif
