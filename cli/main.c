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

static void print_help(FILE *f)
{
    fprintf(f,
            "usage: mgpulab [GLOBAL OPTIONS] COMMAND [ARGS]\n"
            "\n"
            "An interactive lab for multi-GPU programming. With no command it opens\n"
            "the shell (labs, live panes, exercises). Commands:\n");
    for (int i = 0; commands[i]; i++) fprintf(f, "  %-10s %s\n", commands[i]->name, commands[i]->summary);
    fprintf(f,
            "\n"
            "Global options (anywhere on the line):\n"
            "  --backend auto|cuda|sim  device backend (auto: cuda when a GPU is present)\n"
            "  --machine PRESET|FILE    sim machine: dgx-h100, dgx-h200, pcie-4gpu,\n"
            "                           2x-dgx-h100, single-gpu, or an NCCL topology XML\n"
            "  --fault LIST             sim faults (comma-separated; GPU, NIC, RANK: 0 when\n"
            "                           left out; a name the machine lacks is refused):\n"
            "%s"
            "  --launcher NAME          local, emulate, mpirun or srun\n"
            "  --ranks N                number of ranks\n"
            "  --timeout SECONDS        per-operation timeout\n"
            "  --trace FILE             write a Chrome trace (opens in Perfetto)\n"
            "  --json                   machine-readable output\n"
            "  --lang en|ko             the language of labs and messages (default: the class\n"
            "                           configuration's, else LC_ALL, LC_MESSAGES, LANG:\n"
            "                           ko_KR.* gives ko)\n"
            "  --version, --help\n"
            "\n"
            "`mgpulab COMMAND --help` describes a command.\n", mgpu_topo_fault_help());
}

/* Take the global options out of argv (they may stand anywhere), leaving
 * the command and its own arguments in order. Returns 0, or 2 on a bad
 * global option (message printed). */
static int take_globals(int *argc, char **argv, mgpu_cli_globals *g)
{
    int out = 0;
    for (int i = 0; i < *argc; i++) {
        const char *a = argv[i];
        const char *val = NULL;
        static const char *const with_value[] = {"--backend", "--machine", "--fault", "--launcher",
                                                 "--ranks", "--timeout", "--trace", "--lang", NULL};
        int takes = -1;
        for (int k = 0; with_value[k]; k++) {
            size_t n = strlen(with_value[k]);
            if (strncmp(a, with_value[k], n) == 0 && (a[n] == '\0' || a[n] == '=')) {
                takes = k;
                if (a[n] == '=') val = a + n + 1;
                else if (i + 1 < *argc) val = argv[++i];
                else {
                    fprintf(stderr, "mgpulab: %s needs a value\n", with_value[k]);
                    return 2;
                }
                break;
            }
        }
        if (takes < 0) {
            if (strcmp(a, "--json") == 0) g->json = 1;
            else argv[out++] = argv[i];
            continue;
        }
        switch (takes) {
        case 0:
            if (mgpu_backend_kind_parse(val, &g->backend.kind) != MGPU_OK) {
                fprintf(stderr, "mgpulab: %s\n", mgpu_error_message());
                return 2;
            }
            break;
        case 1: g->backend.machine = val; break;
        case 2: g->backend.fault = val; break;
        case 3:
            if (strcmp(val, "local") && strcmp(val, "emulate") && strcmp(val, "mpirun") && strcmp(val, "srun")) {
                fprintf(stderr, "mgpulab: --launcher: '%s' is not a launcher; use local, emulate, mpirun or srun\n", val);
                return 2;
            }
            g->launcher = val;
            break;
        case 4: {
            long long n;
            if (mgpu_parse_count(val, "--ranks", 1, 4096, &n) != MGPU_OK) {
                fprintf(stderr, "mgpulab: %s\n", mgpu_error_message());
                return 2;
            }
            g->ranks = (int)n;
            break;
        }
        case 5:
            if (mgpu_parse_seconds(val, "--timeout", 86400, &g->timeout_s) != MGPU_OK) {
                fprintf(stderr, "mgpulab: %s\n", mgpu_error_message());
                return 2;
            }
            /* ranks beat every 0.5 s (engine/rt/protocol.h): a shorter
             * timeout would call a healthy rank hung */
            if (g->timeout_s > 0 && g->timeout_s < MIN_TIMEOUT_S) {
                fprintf(stderr, "mgpulab: --timeout %s: at least %g s (ranks send a heartbeat every 0.5 s; a "
                                "shorter timeout would report a healthy rank as hung)\n", val, MIN_TIMEOUT_S);
                return 2;
            }
            break;
        case 6: g->trace = val; break;
        case 7: {
            mgpu_lang l;
            if (mgpu_lang_parse(val, &l) != 0 || (strcmp(val, "en") && strcmp(val, "ko"))) {
                fprintf(stderr, "mgpulab: --lang: '%s' is not a language; use en (English) or ko (한국어)\n", val);
                return 2;
            }
            g->lang = val;
            break;
        }
        }
    }
    *argc = out;
    argv[out] = NULL;
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
                         strcmp(args[0], "--version") == 0);
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
