/* cmd_report.c - `mgpulab report`: a learner's progress and measurements
 * (per lab and step: state, attempts, hints, whether the solution was
 * shown, time, the measured numbers) as
 * Markdown, JSON or one self-contained HTML page; --export writes the JSON
 * with the learner's name, host and machine for an instructor to collect;
 * --class DIR aggregates such files (report_class.c). */
#include "mgpu/file.h"
#include "cmd.h"
#include "cmd_lab.h"
#include "report.h"
#include "mgpu/classcfg.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char usage[] =
    "usage: mgpulab report [--format markdown|json|html] [--export FILE] [--name NAME] [--id ID]\n"
    "       mgpulab report --class DIR [--format markdown|text|html|csv|json] [--verify]\n"
    "       mgpulab report --class DIR --watch | --open LAB\n"
    "\n"
    "A learner's progress and key measurements: for every lab and step its state,\n"
    "attempts, hints taken, whether you asked to see the solution, time of the last run\n"
    "and the numbers the step measured.\n"
    "--export FILE writes it as JSON for an instructor to collect: the learner's name and\n"
    "id, the host, the machine each step ran on, when it was opened and passed, the\n"
    "answers and how each was judged, and the exercise files (unless the class\n"
    "configuration says \"export_solutions\": false). docs/classroom.md describes it.\n"
    "--class DIR reads every exported *.json in DIR and prints the class as a grid: a\n"
    "row per learner (the class configuration's roster included), a column per step,\n"
    "each cell the state and attempts; per step how many are done, waiting, failed or\n"
    "not started, the median time on task and who is stuck; per question the right and\n"
    "wrong answers. Exports of one learner id merge (the newest wins); a damaged or\n"
    "foreign file, a claim that cannot be, a step run on a machine other than the\n"
    "class's are named under Problems, not shown as data.\n"
    "--verify (with --class) runs every pass the exports claim again on this machine,\n"
    "from the learner's exercise files and answers, on the machine it passed on (any\n"
    "sim preset): each is verified, failed on re-run or unverifiable (and why).\n"
    "--watch shows the grid live while the learners' exports land in DIR (the class\n"
    "configuration's \"share\"): a learner stuck on a step longer than its\n"
    "\"stuck_minutes\" or failing a step 3 times is marked; Enter shows a learner's\n"
    "last verdict, o opens the next lab. --open LAB opens a lab for the class when its\n"
    "pacing keeps labs closed (\"labs_opened_by_instructor\").\n"
    "\n";

static const char epilog[] =
    "\n"
    "Examples:\n"
    "  mgpulab report\n"
    "  mgpulab report --format html > progress.html\n"
    "  mgpulab report --export ~/ada.json --name 'Ada Lovelace'\n"
    "  mgpulab report --class ./collected --format csv\n"
    "  mgpulab report --class ./collected --verify\n"
    "\n"
    "Exit status: 0 on success, 1 when progress or files cannot be read or written, 2 for\n"
    "bad options.\n";

/*--- Printing one learner ----------------------------------------------------*/

static void measurements_text(json_t *m, char *buf, size_t len)
{
    const char *k;
    json_t *v;
    size_t used = 0;
    buf[0] = '\0';
    json_object_foreach(m, k, v) {
        char val[64];
        if (json_is_number(v)) snprintf(val, sizeof val, "%.4g", json_number_value(v));
        else if (json_is_string(v)) snprintf(val, sizeof val, "%s", json_string_value(v));
        else snprintf(val, sizeof val, "%s", json_is_true(v) ? "true" : json_is_false(v) ? "false" : "?");
        int n = snprintf(buf + used, len - used, "%s%s=%s", used ? ", " : "", k, val);
        if (n < 0 || (size_t)n >= len - used) break;
        used += (size_t)n;
    }
}

/* A step's state as the learner's report shows it: a claim of a progress
 * file changed outside mgpulab is "edited" until the step runs again. */
static const char *step_state(json_t *st)
{
    if (json_is_true(json_object_get(st, "edited"))) return "edited";
    const char *s = json_string_value(json_object_get(st, "state"));
    return s ? s : "?";
}

static void print_markdown(json_t *doc, FILE *f)
{
    json_t *who = json_object_get(doc, "learner");
    fprintf(f, "# mgpulab progress: %s (%s)\n\n", json_string_value(json_object_get(who, "name")),
            json_string_value(json_object_get(who, "id")));
    fprintf(f, "host %s, backend %s, machine %s\n", json_string_value(json_object_get(doc, "host")),
            json_string_value(json_object_get(doc, "backend")), json_string_value(json_object_get(doc, "machine")));
    size_t i;
    json_t *lab;
    json_array_foreach(json_object_get(doc, "labs"), i, lab) {
        fprintf(f, "\n## %s %s\n\n| step | state | attempts | hints | solution shown | last run (s) | measurements |\n"
                   "|---|---|---|---|---|---|---|\n", json_string_value(json_object_get(lab, "id")),
                json_string_value(json_object_get(lab, "title")));
        size_t k;
        json_t *st;
        json_array_foreach(json_object_get(lab, "steps"), k, st) {
            char meas[512];
            measurements_text(json_object_get(st, "measurements"), meas, sizeof meas);
            fprintf(f, "| %zu %s | %s | %d | %d | %s | %.1f | %s |\n", k + 1, json_string_value(json_object_get(st, "title")),
                    step_state(st), (int)json_integer_value(json_object_get(st, "attempts")),
                    (int)json_integer_value(json_object_get(st, "hints_taken")),
                    json_is_true(json_object_get(st, "solution_shown")) ? "yes" : "",
                    json_number_value(json_object_get(st, "seconds")), meas);
        }
    }
}

static void print_html(json_t *doc, FILE *f)
{
    json_t *who = json_object_get(doc, "learner");
    report_html_begin(f, "mgpulab progress");
    fputs("<h1>mgpulab progress: ", f);
    report_html_text(f, json_string_value(json_object_get(who, "name")));
    fputs("</h1>\n<p>host ", f);
    report_html_text(f, json_string_value(json_object_get(doc, "host")));
    fputs(", machine ", f);
    report_html_text(f, json_string_value(json_object_get(doc, "machine")));
    fputs("</p>\n", f);
    size_t i;
    json_t *lab;
    json_array_foreach(json_object_get(doc, "labs"), i, lab) {
        fputs("<h2>", f);
        report_html_text(f, json_string_value(json_object_get(lab, "id")));
        fputs(" ", f);
        report_html_text(f, json_string_value(json_object_get(lab, "title")));
        fputs("</h2>\n<table><tr><th>step</th><th>state</th><th>attempts</th><th>hints</th><th>solution shown</th>"
              "<th>last run (s)</th><th>measurements</th></tr>\n", f);
        size_t k;
        json_t *st;
        json_array_foreach(json_object_get(lab, "steps"), k, st) {
            char meas[512];
            const char *state = step_state(st);
            measurements_text(json_object_get(st, "measurements"), meas, sizeof meas);
            fprintf(f, "<tr><td>%zu ", k + 1);
            report_html_text(f, json_string_value(json_object_get(st, "title")));
            fputs("</td><td class=\"", f);
            report_html_text(f, state);
            fputs("\">", f);
            report_html_text(f, state);
            fprintf(f, "</td><td>%d</td><td>%d</td><td>%s</td><td>%.1f</td><td>",
                    (int)json_integer_value(json_object_get(st, "attempts")),
                    (int)json_integer_value(json_object_get(st, "hints_taken")),
                    json_is_true(json_object_get(st, "solution_shown")) ? "yes" : "",
                    json_number_value(json_object_get(st, "seconds")));
            report_html_text(f, meas);
            fputs("</td></tr>\n", f);
        }
        fputs("</table>\n", f);
    }
    report_html_end(f);
}

/* Write atomically: a temporary file beside FILE, then rename. */
static int export_doc(json_t *doc, const char *path)
{
    if (mgpu_lab_export_write(doc, path) != MGPU_OK) {
        fprintf(stderr, "mgpulab report: --export: %s\n", mgpu_error_message());
        return 1;
    }
    printf("wrote the progress of %s to %s\n",
           json_string_value(json_object_get(json_object_get(doc, "learner"), "name")), path);
    return 0;
}

static const char *const format_names[] = {"markdown", "json", "html", "text", "csv", NULL};

enum { O_FORMAT, O_EXPORT, O_NAME, O_ID, O_CLASS, O_VERIFY, O_WATCH, O_OPEN };
static const mgpu_opt options[] = {
    [O_FORMAT] = {.name = "--format", .kind = MGPU_OPT_ENUM, .choices = format_names,
                  .help = "markdown (default), json, html (one page, no external\nfiles), and with --class also text (aligned for a\nterminal) and csv (one row per learner and step); the\nglobal --json means --format json"},
    [O_EXPORT] = {.name = "--export", .kind = MGPU_OPT_STRING, .value_name = "FILE",
                  .help = "write the exported JSON to FILE (atomic: a temporary file\nrenamed)"},
    [O_NAME] = {.name = "--name", .kind = MGPU_OPT_STRING, .value_name = "NAME",
                .help = "the learner's name in the export (default: the name given\nlast, else the login's full name)"},
    [O_ID] = {.name = "--id", .kind = MGPU_OPT_STRING, .value_name = "ID",
              .help = "the learner's id (default: the id given last, else the\nlogin name)"},
    [O_CLASS] = {.name = "--class", .kind = MGPU_OPT_STRING, .value_name = "DIR",
                 .help = "the class from the exported files in DIR"},
    [O_VERIFY] = {.name = "--verify", .help = "with --class: re-run the claimed passes here"},
    [O_WATCH] = {.name = "--watch", .help = "with --class: the live grid (q quits)"},
    [O_OPEN] = {.name = "--open", .kind = MGPU_OPT_STRING, .value_name = "LAB",
                .help = "with --class: open LAB for the learners (open-labs.txt in DIR)"},
    MGPU_OPT_END,
};

static int run(const mgpu_cli_globals *g, int argc, char **argv)
{
    mgpu_opt_args o;
    int orc = mgpu_opts_parse("report", options, argc, argv, 0, &o);
    if (orc) return orc;
    const char *format = o.v[O_FORMAT].count ? format_names[o.v[O_FORMAT].choice] : g->json ? "json" : NULL;
    const char *export = o.v[O_EXPORT].text, *name = o.v[O_NAME].text, *id = o.v[O_ID].text;
    const char *class_dir = o.v[O_CLASS].text, *open = o.v[O_OPEN].text;
    int verify = o.v[O_VERIFY].count > 0, watch = o.v[O_WATCH].count > 0;
    if (o.noperands) orc = mgpu_cli_usage_error("report", "unexpected argument '%s'", o.operands[0]);
    mgpu_opts_free(&o);
    if (orc) return orc;
    if (!format) format = "markdown";
    int class_fmt = strcmp(format, "csv") == 0 || strcmp(format, "text") == 0;
    if (strcmp(format, "markdown") && strcmp(format, "json") && strcmp(format, "html") && !(class_fmt && class_dir))
        return mgpu_cli_usage_error("report", "--format '%s': use markdown, json or html%s", format,
                                    class_dir ? ", text or csv" : " (text and csv are for --class)");
    if ((verify || watch || open) && !class_dir)
        return mgpu_cli_usage_error("report", "--verify, --watch and --open are for a class: give --class DIR");
    if (watch + (verify || strcmp(format, "markdown") != 0) + (open != NULL) > 1)
        return mgpu_cli_usage_error("report", "--watch, --open and --verify/--format are one at a time");
    if (class_dir) {
        if (export || name || id) return mgpu_cli_usage_error("report", "--class aggregates files; --export, --name "
                                                                        "and --id are for one learner's report");
        mgpu_lab_catalog *cat = lab_cli_open("report"); /* the class's labs: the grid's columns */
        if (!cat) return 1;
        int rc;
        if (watch) rc = report_watch(class_dir, cat);
        else if (open) {
            char msg[600];
            rc = report_open_lab(class_dir, cat, open, msg, sizeof msg);
            fprintf(rc ? stderr : stdout, "%s%s\n", rc ? "mgpulab report: --open: " : "", msg);
        } else rc = report_class(class_dir, format, stdout, cat, verify ? g : NULL);
        mgpu_lab_catalog_close(cat);
        if (fflush(stdout) != 0) rc = 1;
        return rc;
    }
    mgpu_lab_catalog *cat = lab_cli_open("report");
    if (!cat) return 1;
    char nbuf[256], ibuf[128];
    /* a name or id given with --export is kept for the next exports (the
     * class's shared folder writes one after every step) */
    int given = name || id;
    mgpu_lab_learner(cat, &name, &id, nbuf, sizeof nbuf, ibuf, sizeof ibuf);
    if (export && given && mgpu_lab_remember_learner(cat, name, id) != MGPU_OK) {
        fprintf(stderr, "mgpulab report: warning: your name could not be kept for later exports: %s\n",
                mgpu_error_message());
        mgpu_error_clear();
    }
    const mgpu_class_config *cc = NULL;
    if (mgpu_class_config_active(&cc) != MGPU_OK) mgpu_error_clear();
    /* the learner's exercise files go with an export (the instructor's
     * --verify runs them) unless the class configuration says
     * "export_solutions": false */
    json_t *doc = mgpu_lab_export(cat, name, id, export && (!cc || cc->export_solutions));
    mgpu_lab_catalog_close(cat);
    int rc = 0;
    if (!doc) {
        fprintf(stderr, "mgpulab report: out of memory building the report\n");
        return 1;
    }
    if (export) rc = export_doc(doc, export);
    else if (strcmp(format, "json") == 0) {
        json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        fputc('\n', stdout);
    } else if (strcmp(format, "html") == 0) print_html(doc, stdout);
    else print_markdown(doc, stdout);
    json_decref(doc);
    if (fflush(stdout) != 0) rc = 1;
    return rc;
}

const mgpu_cmd mgpu_cmd_report = {
    .name = "report",
    .summary = "a learner's progress and measurements; --class DIR for an instructor",
    .usage = usage,
    .options = options,
    .epilog = epilog,
    .run = run,
};
