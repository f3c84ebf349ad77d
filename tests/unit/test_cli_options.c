/* test_cli_options.c - the commands' option parser (cli/options.c): every
 * value kind, the ways a value is written, and each bad usage refused with
 * exit status 2 and the option named. */
#include "tap.h"
#include "options.h"
#include "mgpu/err.h"
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const formats[] = {"text", "json", "junit", NULL};

enum { O_STEP, O_COUNT, O_RATIO, O_TIME, O_MEM, O_FORMAT, O_ANSWER, O_XML, O_QUIET, O_LOUD, O_MIB, O_N };
static mgpu_result parse_mib(const mgpu_opt *opt, const char *text, mgpu_opt_value *v)
{
    (void)opt;
    if (strcmp(text, "bad") == 0) return mgpu_fail(MGPU_ERR_INVALID, "--mib: '%s' is refused by its own check", text);
    v->i = atoi(text) * 2;
    return MGPU_OK;
}
static const mgpu_opt spec[] = {
    [O_STEP] = {.name = "--step", .short_name = 's', .kind = MGPU_OPT_STRING, .help = "a step"},
    [O_COUNT] = {.name = "--count", .alias = "--n", .kind = MGPU_OPT_INT, .min = 1, .max = 10, .help = "a count"},
    [O_RATIO] = {.name = "--ratio", .kind = MGPU_OPT_DOUBLE, .min = 0, .max = 1, .help = "a ratio"},
    [O_TIME] = {.name = "--time", .kind = MGPU_OPT_SECONDS, .max = 60, .help = "seconds"},
    [O_MEM] = {.name = "--mem", .kind = MGPU_OPT_SIZE, .min = 1 << 20, .max = 1 << 30, .help = "memory"},
    [O_FORMAT] = {.name = "--format", .kind = MGPU_OPT_ENUM, .choices = formats, .help = "the format"},
    [O_ANSWER] = {.name = "--answer", .kind = MGPU_OPT_STRING, .flags = MGPU_OPT_REPEAT, .help = "an answer\n(repeatable)"},
    [O_XML] = {.name = "--xml", .kind = MGPU_OPT_STRING, .value_name = "FILE", .flags = MGPU_OPT_OPTIONAL, .help = "xml"},
    [O_QUIET] = {.name = "--quiet", .short_name = 'q', .conflicts = "--loud", .help = "quiet"},
    [O_LOUD] = {.name = "--loud", .help = "loud"},
    [O_MIB] = {.name = "--mib", .kind = MGPU_OPT_INT, .parse = parse_mib, .help = "custom"},
    MGPU_OPT_END,
};

static char captured[4096];

/* Parse a NULL-terminated word list (the command name first), capturing
 * what the parser prints on stderr. */
static int parse(mgpu_opt_args *a, const char *w0, ...)
{
    char *argv[32];
    int argc = 0;
    va_list ap;
    va_start(ap, w0);
    for (const char *w = w0; w && argc < 31; w = va_arg(ap, const char *)) argv[argc++] = (char *)w;
    va_end(ap);
    argv[argc] = NULL;
    fflush(stderr);
    int saved = dup(2);
    FILE *tmp = tmpfile();
    dup2(fileno(tmp), 2);
    int rc = mgpu_opts_parse("demo", spec, argc, argv, 0, a);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(tmp);
    size_t n = fread(captured, 1, sizeof captured - 1, tmp);
    captured[n] = '\0';
    fclose(tmp);
    return rc;
}

/* A bad usage: exit status 2 and the message holds `want`. */
static void refused(const char *want, int rc)
{
    CHECKF(rc == 2 && strstr(captured, want) && strstr(captured, "mgpulab demo: "),
           "rc=%d, want '%s' in: %s", rc, want, captured);
}

int main(void)
{
    mgpu_opt_args a;
    /* every way of writing a value, operands mixed in */
    CHECK(parse(&a, "demo", "lab1", "-s", "3", "--count=4", "--ratio", "0.25", "--time", "1.5", "--mem", "64M",
                "--format", "json", "--answer", "a=1", "--answer=b=2", "-q", "lab2", NULL) == 0);
    CHECK(a.noperands == 2 && strcmp(a.operands[0], "lab1") == 0 && strcmp(a.operands[1], "lab2") == 0);
    CHECK(a.v[O_STEP].count == 1 && strcmp(a.v[O_STEP].text, "3") == 0);
    CHECK(a.v[O_COUNT].i == 4 && a.v[O_RATIO].d == 0.25 && a.v[O_TIME].d == 1.5);
    CHECK(a.v[O_MEM].size == 64u << 20 && a.v[O_FORMAT].choice == 1);
    CHECK(a.v[O_ANSWER].count == 2 && strcmp(a.v[O_ANSWER].texts[0], "a=1") == 0 &&
          strcmp(a.v[O_ANSWER].texts[1], "b=2") == 0);
    CHECK(a.v[O_QUIET].count == 1 && a.v[O_LOUD].count == 0 && a.v[O_XML].count == 0);
    /* command-line order of values and operands */
    const char *t;
    CHECK(mgpu_opts_at(&a, 0, &t) == -1 && strcmp(t, "lab1") == 0);
    CHECK(mgpu_opts_at(&a, 1, &t) == O_STEP && strcmp(t, "3") == 0);
    CHECK(a.order_len == 11);
    mgpu_opts_free(&a);

    /* an alias, "--" ends the options, "-" is an operand, a value may start with '-' */
    CHECK(parse(&a, "demo", "--n", "2", "-", "--", "--count", "-x", NULL) == 0);
    CHECK(a.v[O_COUNT].i == 2 && a.noperands == 3 && strcmp(a.operands[1], "--count") == 0);
    mgpu_opts_free(&a);
    CHECK(parse(&a, "demo", "--step", "-1", NULL) == 0 && strcmp(a.v[O_STEP].text, "-1") == 0);
    mgpu_opts_free(&a);
    /* getopt's attached short value; a flag takes none */
    CHECK(parse(&a, "demo", "-s7", NULL) == 0 && strcmp(a.v[O_STEP].text, "7") == 0);
    mgpu_opts_free(&a);
    refused("unknown option '-qq'", parse(&a, "demo", "-qq", NULL));

    /* an optional value: taken unless the next word is an option */
    CHECK(parse(&a, "demo", "--xml", "-q", NULL) == 0 && a.v[O_XML].count == 1 && !a.v[O_XML].text);
    mgpu_opts_free(&a);
    CHECK(parse(&a, "demo", "--xml", "out.xml", NULL) == 0 && strcmp(a.v[O_XML].text, "out.xml") == 0);
    mgpu_opts_free(&a);
    /* the command's own check, with its own message */
    CHECK(parse(&a, "demo", "--mib", "3", NULL) == 0 && a.v[O_MIB].i == 6);
    mgpu_opts_free(&a);
    refused("--mib: 'bad' is refused by its own check", parse(&a, "demo", "--mib", "bad", NULL));
    mgpu_opts_free(&a);

    /* bad usage: status 2, the option named */
    refused("unknown option '--frob'", parse(&a, "demo", "--frob", NULL));
    refused("unknown option '-z'", parse(&a, "demo", "-z", NULL));
    refused("--count needs a value", parse(&a, "demo", "--count", NULL));
    refused("--count: 0 is out of range (1..10)", parse(&a, "demo", "--count", "0", NULL));
    refused("--count: 'x' is not a whole number", parse(&a, "demo", "--count", "x", NULL));
    refused("--ratio: 'y' is not a number", parse(&a, "demo", "--ratio", "y", NULL));
    refused("--ratio: 2 is out of range (0..1)", parse(&a, "demo", "--ratio", "2", NULL));
    refused("--time: '99' must be above 0 and at most 60", parse(&a, "demo", "--time", "99", NULL));
    refused("--mem: '1K' must be between 1M and 1G", parse(&a, "demo", "--mem", "1K", NULL));
    refused("--mem: '12Q' is not a size", parse(&a, "demo", "--mem", "12Q", NULL));
    refused("--format 'xml': use text, json or junit", parse(&a, "demo", "--format", "xml", NULL));
    refused("--step: the value is empty", parse(&a, "demo", "--step=", NULL));
    refused("--step given twice", parse(&a, "demo", "-s", "1", "--step", "2", NULL));
    refused("--n given twice", parse(&a, "demo", "--count", "1", "--n", "2", NULL)); /* named as written */
    refused("--n: 11 is out of range (1..10)", parse(&a, "demo", "--n", "11", NULL));
    refused("--quiet takes no value", parse(&a, "demo", "--quiet=1", NULL));
    refused("--quiet and --loud: give one", parse(&a, "demo", "--loud", "-q", NULL));
    CHECK(a.v == NULL && a.noperands == 0); /* emptied on failure */
    mgpu_opts_free(&a);                      /* and freeing it again is harmless */

    /* --help's lines and the completion listing come from the same table */
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    mgpu_opts_print_help(f, spec);
    fclose(f);
    CHECKF(strstr(text, "  -s, --step TEXT") && strstr(text, "      --count N, --n") &&
           strstr(text, "--format text|json|junit") && strstr(text, "--xml [FILE]") &&
           strstr(text, "an answer\n                          (repeatable)"), "%s", text);
    free(text);
    f = open_memstream(&text, &len);
    mgpu_opts_print_list(f, spec);
    fclose(f);
    CHECKF(strstr(text, "--step\t-s\tstring\t-\tonce\n") && strstr(text, "--count\t-\tint\t1..10\tonce\n") &&
           strstr(text, "--n\t-\tint\t1..10\tonce\n") && strstr(text, "--format\t-\tenum\ttext,json,junit\tonce\n") &&
           strstr(text, "--answer\t-\tstring\t-\trepeat\n") && strstr(text, "--quiet\t-q\tflag\t-\tonce\n"), "%s", text);
    free(text);
    return tap_done();
}
