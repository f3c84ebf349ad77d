/* main.c - mgpulab's entry point: global options, then one subcommand. */
#include "cmd.h"
#include "mgpu/topo.h"
#include "mgpu/cleanup.h"
#include "shell.h"
#include "mgpu/file.h"
#include "mgpu/classcfg.h"
#include "mgpu/lab.h"
#include "mgpu/lang.h"
#include "mgpu/size.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIN_TIMEOUT_S 2.0

static const mgpu_cmd *const commands[] = {
    &mgpu_cmd_list,
    &mgpu_cmd_run,
    &mgpu_cmd_verify,
    &mgpu_cmd_reset,
    &mgpu_cmd_hint,
    &mgpu_cmd_topo,
    &mgpu_cmd_copy,
    &mgpu_cmd_bench,
    &mgpu_cmd_spmd,
    &mgpu_cmd_validate,
    &mgpu_cmd_report,
    &mgpu_cmd_whatif,
    &mgpu_cmd_worker,
    NULL,
};

/*--- The global options: a table like every command's (options.h) ----------*/

static mgpu_result backend_value(const mgpu_opt *opt, const char *text, mgpu_opt_value *v)
{
    (void)opt;
    mgpu_backend_kind k;
    MGPU_CHECK(mgpu_backend_kind_parse(text, &k));
    v->choice = (int)k;
    return MGPU_OK;
}

static const char *const launchers[] = {"local", "emulate", "mpirun", "srun", NULL};
static mgpu_result launcher_value(const mgpu_opt *opt, const char *text, mgpu_opt_value *v)
{
    (void)opt;
    for (int k = 0; launchers[k]; k++)
        if (strcmp(text, launchers[k]) == 0) {
            v->choice = k;
            return MGPU_OK;
        }
    return mgpu_fail(MGPU_ERR_INVALID, "--launcher: '%s' is not a launcher; use local, emulate, mpirun or srun", text);
}

static const char *const languages[] = {"en", "ko", NULL};
static mgpu_result lang_value(const mgpu_opt *opt, const char *text, mgpu_opt_value *v)
{
    (void)opt;
    mgpu_lang l;
    if (mgpu_lang_parse(text, &l) != 0 || (strcmp(text, "en") && strcmp(text, "ko")))
        return mgpu_fail(MGPU_ERR_INVALID, "--lang: '%s' is not a language; use en (English) or ko (한국어)", text);
    v->choice = strcmp(text, "ko") == 0;
    return MGPU_OK;
}

/* ranks beat every 0.5 s (engine/rt/protocol.h): a shorter timeout would
 * call a healthy rank hung */
static mgpu_result timeout_value(const mgpu_opt *opt, const char *text, mgpu_opt_value *v)
{
    (void)opt;
    MGPU_CHECK(mgpu_parse_seconds(text, "--timeout", 86400, &v->d));
    if (v->d < MIN_TIMEOUT_S)
        return mgpu_fail(MGPU_ERR_INVALID, "--timeout %s: at least %g s (ranks send a heartbeat every 0.5 s; a shorter "
                                           "timeout would report a healthy rank as hung)", text, MIN_TIMEOUT_S);
    return MGPU_OK;
}

static const char *const backends[] = {"auto", "cuda", "sim", NULL};

enum { G_BACKEND, G_MACHINE, G_FAULT, G_LAUNCHER, G_RANKS, G_TIMEOUT, G_TRACE, G_JSON, G_LANG };
static const mgpu_opt globals[] = {
    [G_BACKEND] = {.name = "--backend", .kind = MGPU_OPT_ENUM, .choices = backends, .parse = backend_value,
                   .help = "device backend (auto: cuda when a GPU is present)"},
    [G_MACHINE] = {.name = "--machine", .kind = MGPU_OPT_STRING, .value_name = "PRESET|FILE",
                   .help = "sim machine: dgx-h100, dgx-h200, pcie-4gpu,\n2x-dgx-h100, single-gpu, or an NCCL topology XML"},
    [G_FAULT] = {.name = "--fault", .kind = MGPU_OPT_STRING, .value_name = "LIST",
                 .help = "sim faults (comma-separated; GPU, NIC, RANK: 0 when\nleft out; a name the machine lacks is refused):"},
    [G_LAUNCHER] = {.name = "--launcher", .kind = MGPU_OPT_ENUM, .choices = launchers, .parse = launcher_value,
                    .help = "how ranks start: local, emulate, mpirun or srun"},
    [G_RANKS] = {.name = "--ranks", .kind = MGPU_OPT_INT, .min = 1, .max = 4096, .help = "number of ranks"},
    [G_TIMEOUT] = {.name = "--timeout", .kind = MGPU_OPT_SECONDS, .max = 86400, .parse = timeout_value,
                   .help = "per-operation timeout (at least 2 s)"},
    [G_TRACE] = {.name = "--trace", .kind = MGPU_OPT_STRING, .value_name = "FILE",
                 .help = "write a Chrome trace (opens in Perfetto); spmd only"},
    [G_JSON] = {.name = "--json", .help = "machine-readable output"},
    [G_LANG] = {.name = "--lang", .kind = MGPU_OPT_ENUM, .choices = languages, .parse = lang_value,
                .help = "the language of labs and messages (default: the class\nconfiguration's, else LC_ALL, LC_MESSAGES, LANG:\nko_KR.* gives ko)"},
    MGPU_OPT_END,
};

static void print_help(FILE *f)
{
    fprintf(f,
            "usage: mgpulab [GLOBAL OPTIONS] COMMAND [ARGS]\n"
            "\n"
            "An interactive lab for multi-GPU programming. With no command it opens\n"
            "the shell (labs, live panes, exercises). Commands:\n");
    for (int i = 0; commands[i]; i++) fprintf(f, "  %-10s %s\n", commands[i]->name, commands[i]->summary);
    fprintf(f, "\nGlobal options (anywhere on the line before a command's --):\n");
    /* --fault's kinds follow its line */
    mgpu_opts_print_help(f, (const mgpu_opt[]){globals[G_BACKEND], globals[G_MACHINE], globals[G_FAULT], MGPU_OPT_END});
    fputs(mgpu_topo_fault_help(), f);
    mgpu_opts_print_help(f, globals + G_LAUNCHER);
    fprintf(f,
            "      --version, --help\n"
            "\n"
            "`mgpulab COMMAND --help` describes a command; `mgpulab COMMAND --list-options`\n"
            "lists its options for shell completion (name, short name, kind, values, once or\n"
            "repeat; tab-separated), `mgpulab --list-options` the global ones and\n"
            "`mgpulab --list-commands` the commands.\n");
}

/* Take the global options out of argv (they may stand anywhere before a
 * "--"), leaving the command and its own arguments in order. Returns 0, or
 * 2 on a bad global option (message printed). */
static int take_globals(int *argc, char **argv, mgpu_cli_globals *g)
{
    mgpu_opt_args o;
    int rc = mgpu_opts_parse_from(NULL, globals, *argc, argv, 0, MGPU_OPTS_PASS_UNKNOWN, &o);
    if (rc) return rc;
    if (o.v[G_BACKEND].count) g->backend.kind = (mgpu_backend_kind)o.v[G_BACKEND].choice;
    g->backend.machine = o.v[G_MACHINE].text;
    g->backend.fault = o.v[G_FAULT].text;
    g->launcher = o.v[G_LAUNCHER].text;
    if (o.v[G_RANKS].count) g->ranks = (int)o.v[G_RANKS].i;
    if (o.v[G_TIMEOUT].count) g->timeout_s = o.v[G_TIMEOUT].d;
    g->trace = o.v[G_TRACE].text;
    g->json = o.v[G_JSON].count > 0;
    g->lang = o.v[G_LANG].text;
    for (int i = 0; i < o.noperands; i++) argv[i] = o.operands[i];
    *argc = o.noperands;
    argv[*argc] = NULL;
    mgpu_opts_free(&o);
    return 0;
}

/* A class configuration (mgpu/classcfg.h) fills the global options the
 * command line left unset, and every command says it is in force. Workers
 * get their settings from the coordinator, never from the file. */
static int apply_class(mgpu_cli_globals *g, int shell)
{
    const mgpu_class_config *c;
    if (mgpu_class_config_active(&c) != MGPU_OK) {
        fprintf(stderr, "mgpulab: %s\n", mgpu_error_message());
        return 2;
    }
    if (!c) return 0;
    char over[160] = "";
    if (c->backend[0]) {
        mgpu_backend_kind k = MGPU_BACKEND_AUTO;
        mgpu_backend_kind_parse(c->backend, &k);
        if (g->backend.kind == MGPU_BACKEND_AUTO) g->backend.kind = k;
        else if (g->backend.kind != k) strcat(over, " --backend");
    }
    if (c->machine[0] && !g->backend.machine) g->backend.machine = c->machine;
    else if (c->machine[0] && strcmp(g->backend.machine, c->machine)) strcat(over, " --machine");
    if (c->fault[0] && !g->backend.fault) g->backend.fault = c->fault;
    else if (c->fault[0] && strcmp(g->backend.fault, c->fault)) strcat(over, " --fault");
    if (c->launcher[0] && !g->launcher) g->launcher = c->launcher;
    if (c->ranks && !g->ranks) g->ranks = c->ranks;
    if (c->timeout_s > 0 && g->timeout_s <= 0) g->timeout_s = c->timeout_s;
    if (c->lang[0]) g->lang_pin = c->lang;
    if (shell) return 0; /* the shell shows it in its top bar */
    fprintf(stderr, "# class configuration '%s' in force (%s)", c->name[0] ? c->name : "unnamed", c->path);
    if (c->backend[0] || c->machine[0]) fprintf(stderr, ": %s%s%s", c->backend[0] ? c->backend : "", c->machine[0] ? " " : "", c->machine);
    if (c->nlabs) fprintf(stderr, "; %d lab%s", c->nlabs, c->nlabs == 1 ? "" : "s");
    fprintf(stderr, "\n");
    if (over[0]) fprintf(stderr, "# the command line overrides the class configuration's%s\n", over);
    return 0;
}

/* --trace FILE: only spmd records one, so any other command refuses it
 * rather than ignore it; and FILE must be one a trace may replace (a new
 * name or a regular file, never a device or a link), checked before the
 * run, not after it. */
static int check_trace(const mgpu_cli_globals *g, const char *cmd)
{
    if (strcmp(cmd, "spmd") != 0) {
        fprintf(stderr, "mgpulab %s: --trace is recorded by `mgpulab spmd` only; %s writes no trace\n", cmd, cmd);
        return 2;
    }
    if (mgpu_file_check_output(g->trace) != MGPU_OK) {
        fprintf(stderr, "mgpulab %s: --trace: %s\n", cmd, mgpu_error_message());
        return 2;
    }
    return 0;
}

int main(int argc, char **argv)
{
    mgpu_cli_globals g = {0};
    int n = argc - 1;
    char **args = argv + 1;
    int rc = take_globals(&n, args, &g);
    if (rc) return rc;
    int worker = n > 0 && strcmp(args[0], "worker") == 0;
    /* the child a shell or `run` starts to run lab steps in (engine/lab/runner.c) */
    int runner = n > 0 && strcmp(args[0], "__lab-runner") == 0;
    int help = n > 0 && (strcmp(args[0], "--help") == 0 || strcmp(args[0], "-h") == 0 || strcmp(args[0], "help") == 0 ||
                         strcmp(args[0], "--version") == 0 || strcmp(args[0], "--list-options") == 0 ||
                         strcmp(args[0], "--list-commands") == 0);
    if (!worker && !runner && !help && (rc = apply_class(&g, n == 0))) return rc;
    if (!g.launcher) g.launcher = "local";
    /* --lang > the class's pin > the locale (mgpu/lang.h); both were checked */
    if (!worker && !runner) mgpu_lang_resolve(g.lang, g.lang_pin);
    /* a killed coordinator or shell takes its socket and /dev/shm table with it */
    mgpu_cleanup_install();
    if (runner) return mgpu_lab_runner_main();
    if (n == 0) {
        mgpu_shell_options shell = {.backend = g.backend, .launcher = g.launcher, .ranks = g.ranks,
                                    .timeout_s = g.timeout_s};
        return mgpu_shell_run(&shell);
    }
    if (strcmp(args[0], "--help") == 0 || strcmp(args[0], "-h") == 0 || strcmp(args[0], "help") == 0) {
        print_help(stdout);
        return 0;
    }
    if (strcmp(args[0], "--list-options") == 0) {
        mgpu_opts_print_list(stdout, globals);
        return 0;
    }
    if (strcmp(args[0], "--list-commands") == 0) {
        for (int i = 0; commands[i]; i++)
            if (commands[i] != &mgpu_cmd_worker) printf("%s\t%s\n", commands[i]->name, commands[i]->summary);
        return 0;
    }
    if (strcmp(args[0], "--version") == 0) {
        printf("mgpulab %s (%s backend built in)\n", MGPU_VERSION, mgpu_build_has_cuda() ? "cuda and sim" : "sim only");
        return 0;
    }
    for (int i = 0; commands[i]; i++)
        if (strcmp(args[0], commands[i]->name) == 0) {
            if (mgpu_cli_wants_help(commands[i], n, args)) return 0;
            if (g.trace && (rc = check_trace(&g, commands[i]->name))) return rc;
            return commands[i]->run(&g, n, args);
        }
    fprintf(stderr, "mgpulab: '%s' is not a command; `mgpulab --help` lists them\n", args[0]);
    return 2;
}
