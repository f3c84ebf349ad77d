/* shell_strings.h - the shell's own strings in the learner's language
 * (issue 29): tr("English") gives the Korean from shell_strings_ko.c when
 * the current language (mgpu/lang.h) is ko, else the English itself. The
 * English is the key, exactly as the code writes it; a format keeps its
 * placeholders in the same order in both (test_shell_strings checks). */
#ifndef MGPU_SHELL_STRINGS_H
#define MGPU_SHELL_STRINGS_H
#include <stddef.h>
#include "mgpu/lang.h"

/* format_arg: the compiler still checks a format's arguments against the
 * English literal */
const char *tr(const char *en) __attribute__((format_arg(1)));

/* The table, for the test of its placeholders. */
extern const mgpu_tr_entry shell_strings_ko[];
extern const size_t shell_strings_ko_count;
/* The key help (?), English; tr(shell_help_text) gives it translated. */
extern const char shell_help_text[];

/* The other language's name as the language key shows it ("English" in
 * Korean, "한국어" in English). */
const char *shell_lang_other_name(void);

#endif
