/* options.c - the one option parser of every command (see options.h). */
#include "options.h"
#include "mgpu/size.h"
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int mgpu_opts_count(const mgpu_opt *spec)
{
    int n = 0;
    while (spec && spec[n].name) n++;
    return n;
}

static int usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "mgpulab%s%s: ", cmd ? " " : "", cmd ? cmd : "");
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    if (cmd) fprintf(stderr, "\n(see `mgpulab %s --help`)\n", cmd);
    else fprintf(stderr, "\n");
    return 2;
}

/* The entry a word names: "--name", "--name=V", "--alias[=V]" or "-s".
 * *val is set to what follows '=' when there is one, *said to the name
 * messages use (the alias when the alias was written). -1 when none. */
static int find(const mgpu_opt *spec, int n, const char *word, const char **val, const char **said)
{
    *val = NULL;
    if (word[0] == '-' && word[1] && word[1] != '-') {
        for (int k = 0; k < n; k++)
            if (spec[k].short_name && spec[k].short_name == word[1]) {
                *said = spec[k].name;
                if (!word[2]) return k;
                if (spec[k].kind == MGPU_OPT_FLAG) return -1; /* "-jx" is no option */
                *val = word + 2;                              /* getopt's "-b8" */
                return k;
            }
        return -1;
    }
    if (strncmp(word, "--", 2) != 0) return -1;
    const char *eq = strchr(word, '=');
    size_t len = eq ? (size_t)(eq - word) : strlen(word);
    for (int k = 0; k < n; k++) {
        const char *names[2] = {spec[k].name, spec[k].alias};
        for (int a = 0; a < 2; a++)
            if (names[a] && strlen(names[a]) == len && strncmp(word, names[a], len) == 0) {
                if (eq) *val = eq + 1;
                *said = names[a];
                return k;
            }
    }
    return -1;
}

/* "1e3", "0.5", "-2": a finite decimal, nothing after it. */
static int parse_double(const char *text, double *out)
{
    char *end = NULL;
    errno = 0;
    double d = strtod(text, &end);
    if (errno || end == text || *end || !isfinite(d)) return -1;
    *out = d;
    return 0;
}

/* Parse and range-check one value into v. 0, or 2 with the message printed. */
static int take_value(const char *cmd, const mgpu_opt *spec_entry, const char *said, const char *text,
                      mgpu_opt_value *v)
{
    mgpu_opt said_as = *spec_entry; /* messages name the option as it was written */
    said_as.name = said;
    const mgpu_opt *o = &said_as;
    if (o->parse) {
        if (o->parse(spec_entry, text, v) != MGPU_OK) return usage_error(cmd, "%s", mgpu_error_message());
        return 0;
    }
    switch (o->kind) {
    case MGPU_OPT_FLAG: break;
    case MGPU_OPT_INT: {
        long long n = 0;
        if (mgpu_parse_count(text, o->name, (long long)o->min, (long long)o->max, &n) != MGPU_OK)
            return usage_error(cmd, "%s", mgpu_error_message());
        v->i = n;
        break;
    }
    case MGPU_OPT_DOUBLE: {
        double d = 0;
        if (parse_double(text, &d) != 0) return usage_error(cmd, "%s: '%s' is not a number", o->name, text);
        if (d < o->min || d > o->max) return usage_error(cmd, "%s: %s is out of range (%g..%g)", o->name, text, o->min, o->max);
        v->d = d;
        break;
    }
    case MGPU_OPT_SECONDS:
        if (mgpu_parse_seconds(text, o->name, o->max > 0 ? o->max : 86400, &v->d) != MGPU_OK)
            return usage_error(cmd, "%s", mgpu_error_message());
        break;
    case MGPU_OPT_SIZE: {
        uint64_t s = 0;
        if (mgpu_parse_size(text, o->name, &s) != MGPU_OK) return usage_error(cmd, "%s", mgpu_error_message());
        if (o->max > 0 && ((double)s < o->min || (double)s > o->max)) {
            char lo[32], hi[32];
            return usage_error(cmd, "%s: '%s' must be between %s and %s", o->name, text,
                               mgpu_format_size((uint64_t)o->min, lo, sizeof lo),
                               mgpu_format_size((uint64_t)o->max, hi, sizeof hi));
        }
        v->size = s;
        break;
    }
    case MGPU_OPT_STRING:
        if (!*text && !(o->flags & MGPU_OPT_ALLOW_EMPTY)) return usage_error(cmd, "%s: the value is empty", o->name);
        break;
    case MGPU_OPT_ENUM: {
        int c = -1, n = 0;
        for (; o->choices[n]; n++)
            if (strcmp(o->choices[n], text) == 0) c = n;
        if (c < 0) {
            char list[256] = "";
            size_t used = 0;
            for (int k = 0; k < n && used < sizeof list; k++)
                used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", k == 0 ? "" : k == n - 1 ? " or " : ", ",
                                         o->choices[k]);
            return usage_error(cmd, "%s '%s': use %s", o->name, text, list);
        }
        v->choice = c;
        break;
    }
    }
    return 0;
}

int mgpu_opts_parse_from(const char *cmd, const mgpu_opt *spec, int argc, char **argv, int first, unsigned flags,
                         mgpu_opt_args *args)
{
    memset(args, 0, sizeof *args);
    int n = mgpu_opts_count(spec);
    args->spec = spec;
    args->nopts = n;
    args->v = calloc((size_t)n + 1, sizeof *args->v);
    args->operands = calloc((size_t)argc + 1, sizeof *args->operands);
    args->order = calloc((size_t)argc + 1, sizeof *args->order);
    args->order_text = calloc((size_t)argc + 1, sizeof *args->order_text);
    for (int k = 0; k < n && args->v; k++)
        if (spec[k].flags & MGPU_OPT_REPEAT) {
            args->v[k].texts = calloc((size_t)argc + 1, sizeof *args->v[k].texts);
            if (!args->v[k].texts) {
                mgpu_opts_free(args);
                return usage_error(cmd, "out of memory");
            }
        }
    if (!args->v || !args->operands || !args->order || !args->order_text) {
        mgpu_opts_free(args);
        return usage_error(cmd, "out of memory");
    }
    int rest = 0; /* after "--" every word is an operand */
    for (int i = first; i < argc; i++) {
        const char *w = argv[i], *val = NULL, *said = NULL;
        int k = -1;
        if (!rest && strcmp(w, "--") == 0 && !(flags & MGPU_OPTS_PASS_UNKNOWN)) {
            rest = 1;
            continue;
        }
        if (!rest && w[0] == '-' && w[1]) {
            k = find(spec, n, w, &val, &said);
            if (k < 0 && !(flags & MGPU_OPTS_PASS_UNKNOWN)) {
                mgpu_opts_free(args);
                return usage_error(cmd, "unknown option '%s'%s", w,
                                   flags & MGPU_OPTS_DASH_OPERANDS ? " (arguments that start with '-' go after --)" : "");
            }
        }
        if (k < 0) {
            if (flags & MGPU_OPTS_PASS_UNKNOWN && strcmp(w, "--") == 0) rest = 1; /* the rest is the command's */
            args->order[args->order_len] = -1;
            args->order_text[args->order_len++] = w;
            args->operands[args->noperands++] = argv[i];
            continue;
        }
        const mgpu_opt *o = &spec[k];
        mgpu_opt_value *v = &args->v[k];
        int rc = 0;
        /* a repeated option would silently take the last value */
        if (v->count && !(o->flags & MGPU_OPT_REPEAT)) rc = usage_error(cmd, "%s given twice", said);
        else if (o->kind == MGPU_OPT_FLAG && val) rc = usage_error(cmd, "%s takes no value", said);
        else if (o->kind != MGPU_OPT_FLAG && !val) {
            if (o->flags & MGPU_OPT_OPTIONAL) {
                if (i + 1 < argc && argv[i + 1][0] != '-') val = argv[++i];
            } else if (i + 1 < argc) val = argv[++i];
            else rc = usage_error(cmd, "%s needs a value", said);
        }
        if (!rc && val) rc = take_value(cmd, o, said, val, v);
        if (rc) {
            mgpu_opts_free(args);
            return rc;
        }
        if (v->texts) v->texts[v->count] = val;
        v->count++;
        v->text = val;
        args->order[args->order_len] = k;
        args->order_text[args->order_len++] = val;
    }
    for (int k = 0; k < n; k++) {
        if (!args->v[k].count || !spec[k].conflicts) continue;
        const char *dummy, *other_said;
        int other = find(spec, n, spec[k].conflicts, &dummy, &other_said);
        if (other >= 0 && args->v[other].count) {
            int rc = usage_error(cmd, "%s and %s%s %s", spec[k].name, spec[other].name,
                                 spec[k].conflict_why ? "" : ":", spec[k].conflict_why ? spec[k].conflict_why : "give one");
            mgpu_opts_free(args);
            return rc;
        }
    }
    return 0;
}

int mgpu_opts_parse(const char *cmd, const mgpu_opt *spec, int argc, char **argv, unsigned flags, mgpu_opt_args *args)
{
    return mgpu_opts_parse_from(cmd, spec, argc, argv, 1, flags, args);
}

void mgpu_opts_free(mgpu_opt_args *args)
{
    for (int k = 0; args->v && k < args->nopts; k++) free(args->v[k].texts);
    free(args->v);
    free(args->operands);
    free(args->order);
    free(args->order_text);
    memset(args, 0, sizeof *args);
}

int mgpu_opts_at(const mgpu_opt_args *args, int k, const char **text)
{
    *text = args->order_text[k];
    return args->order[k];
}

static const char *value_name(const mgpu_opt *o)
{
    if (o->value_name) return o->value_name;
    switch (o->kind) {
    case MGPU_OPT_FLAG: return NULL;
    case MGPU_OPT_INT: return "N";
    case MGPU_OPT_DOUBLE: return "X";
    case MGPU_OPT_SECONDS: return "SECONDS";
    case MGPU_OPT_SIZE: return "SIZE";
    case MGPU_OPT_STRING: return "TEXT";
    case MGPU_OPT_ENUM: return NULL; /* the choices are shown */
    }
    return NULL;
}

#define HELP_COLUMN 26

void mgpu_opts_print_help(FILE *f, const mgpu_opt *spec)
{
    for (int k = 0; spec && spec[k].name; k++) {
        const mgpu_opt *o = &spec[k];
        char head[160];
        int len = snprintf(head, sizeof head, "  %c%c%s%s", o->short_name ? '-' : ' ', o->short_name ? o->short_name : ' ',
                           o->short_name ? ", " : "  ", o->name);
        const char *vn = value_name(o);
        char choices[128] = "";
        if (!vn && o->kind == MGPU_OPT_ENUM) {
            size_t used = 0;
            for (int c = 0; o->choices[c] && used < sizeof choices; c++)
                used += (size_t)snprintf(choices + used, sizeof choices - used, "%s%s", c ? "|" : "", o->choices[c]);
            vn = choices;
        }
        if (vn && len < (int)sizeof head)
            len += snprintf(head + len, sizeof head - len, o->flags & MGPU_OPT_OPTIONAL ? " [%s]" : " %s", vn);
        if (o->alias && len < (int)sizeof head) len += snprintf(head + len, sizeof head - len, ", %s", o->alias);
        fputs(head, f);
        const char *h = o->help ? o->help : "";
        if (len >= HELP_COLUMN - 1) fprintf(f, "\n%*s", HELP_COLUMN, "");
        else fprintf(f, "%*s", HELP_COLUMN - len, "");
        for (const char *p = h; *p; p++) {
            fputc(*p, f);
            if (*p == '\n' && p[1]) fprintf(f, "%*s", HELP_COLUMN, "");
        }
        fputc('\n', f);
    }
}

static const char *kind_name(mgpu_opt_kind k)
{
    static const char *const names[] = {"flag", "int", "double", "seconds", "size", "string", "enum"};
    return (unsigned)k < sizeof names / sizeof names[0] ? names[k] : "?";
}

static void list_line(FILE *f, const char *name, const mgpu_opt *o)
{
    fprintf(f, "%s\t", name);
    if (o->short_name) fprintf(f, "-%c\t", o->short_name);
    else fprintf(f, "-\t");
    fprintf(f, "%s\t", kind_name(o->kind));
    if (o->kind == MGPU_OPT_ENUM)
        for (int c = 0; o->choices[c]; c++) fprintf(f, "%s%s", c ? "," : "", o->choices[c]);
    else if (o->kind == MGPU_OPT_INT || o->kind == MGPU_OPT_DOUBLE || (o->kind == MGPU_OPT_SIZE && o->max > 0))
        fprintf(f, "%.17g..%.17g", o->min, o->max);
    else if (o->kind == MGPU_OPT_SECONDS) fprintf(f, "0..%g", o->max > 0 ? o->max : 86400);
    else fprintf(f, "-");
    fprintf(f, "\t%s\n", o->flags & MGPU_OPT_REPEAT ? "repeat" : "once");
}

void mgpu_opts_print_list(FILE *f, const mgpu_opt *spec)
{
    for (int k = 0; spec && spec[k].name; k++) {
        list_line(f, spec[k].name, &spec[k]);
        if (spec[k].alias) list_line(f, spec[k].alias, &spec[k]);
    }
}
