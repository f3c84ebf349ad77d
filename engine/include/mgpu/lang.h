/* lang.h - the language mgpulab speaks to the learner: English or Korean
 * (issue 29, the language contract in docs/lab-authoring.md).
 *
 * Chosen once at start (mgpu_lang_resolve): `--lang ko|en` > the class
 * configuration's pin ("lang") > LC_ALL > LC_MESSAGES > LANG (the first of
 * these that is set and not empty decides: ko_KR.* / ko.* / "ko" give ko,
 * anything else en) > en. The shell switches at run time (mgpu_lang_set).
 * The step runner's child takes its parent's language from MGPU_LANG.
 *
 * The current language is one process-wide value, read and written
 * atomically: the shell's UI thread may switch it while a step runs on its
 * work thread (the running step then finishes in either language).
 *
 * Strings of the C layers (cli/, shell/) are translated with a table of
 * {English, Korean} pairs each layer keeps for itself (mgpu_tr_in); ids and
 * JSON fields are never translated. */
#ifndef MGPU_LANG_H
#define MGPU_LANG_H
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum mgpu_lang {
    MGPU_LANG_EN = 0,
    MGPU_LANG_KO = 1,
} mgpu_lang;

/* Prefix of a text shown in English because its Korean is missing (a static
 * field, an L() format, a C string). ASCII on purpose: it lays out the same
 * everywhere. */
#define MGPU_LANG_MISSING_MARK "[en] "

/* The current language (MGPU_LANG_EN until set). */
mgpu_lang mgpu_lang_get(void);
void mgpu_lang_set(mgpu_lang lang);
/* "en" / "ko" */
const char *mgpu_lang_name(mgpu_lang lang);
/* "ko" or "en" (case-insensitive; also "ko_KR", "ko-KR", "en_US" ...: the
 * part before '_', '-' or '.') -> 0 and *out; anything else -1. */
int mgpu_lang_parse(const char *s, mgpu_lang *out);
/* A locale value as LANG holds it ("ko_KR.UTF-8", "ko", "C", "en_US.UTF-8"):
 * ko for ko_KR.* / ko.* / ko / ko@..., en for anything else. */
mgpu_lang mgpu_lang_of_locale(const char *locale);
/* From the environment: the first of LC_ALL, LC_MESSAGES, LANG that is set
 * and not empty, as mgpu_lang_of_locale; en when none is. */
mgpu_lang mgpu_lang_from_env(void);
/* The whole choice, and set it: flag (--lang, may be NULL) > pin (the class
 * configuration's "lang", may be NULL or "") > the environment. A flag or
 * pin that is neither ko nor en is refused: -1 and nothing set. */
int mgpu_lang_resolve(const char *flag, const char *pin);

/* One string of a C layer's table: the English exactly as the code writes
 * it (also the lookup key) and its Korean (NULL: not translated yet). */
typedef struct mgpu_tr_entry {
    const char *en;
    const char *ko;
} mgpu_tr_entry;

/* `en` in the current language: in English `en` itself; in Korean the
 * table's entry for it, or `en` when the table has none (the caller's table
 * is incomplete: no marker here, so a format string stays usable as a
 * format). Linear search: tables are small. tab may be NULL when n is 0. */
const char *mgpu_tr_in(const mgpu_tr_entry *tab, size_t n, const char *en);
/* The same in a given language. */
const char *mgpu_tr_lang(const mgpu_tr_entry *tab, size_t n, const char *en, mgpu_lang lang);

#ifdef __cplusplus
}
#endif
#endif
