/* shell_main.c - `mgpulab` with no command: start-up (first frame before
 * anything slow), the poll(2) loop over the keyboard, the work thread's
 * event pipe and the watch, and an orderly exit. */
#include "shell.h"
#include "app.h"
#include "shell_actions.h"
#include "shell_dialog.h"
#include "shell_draw.h"
#include "shell_keys.h"
#include "shell_panes.h"
#include "shell_topo.h"
#include "shell_work.h"
#include "shell_strings.h"
#include "theme.h"
#include "watch.h"
#include "chart.h"
#include "text.h"
#include <errno.h>
#include <langinfo.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Milliseconds since this process started (from /proc, 10 ms ticks), or
 * since `fallback` when /proc is not there. */
static double ms_since_start(double fallback)
{
    FILE *f = fopen("/proc/self/stat", "r");
    unsigned long long start = 0;
    if (f) {
        char buf[1024];
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[n] = 0;
        char *p = strrchr(buf, ')'); /* the name may hold spaces */
        for (int field = 2; p && field < 22; field++) p = strchr(p + 1, ' ');
        if (p) start = strtoull(p + 1, NULL, 10);
    }
    struct timespec bt;
    long hz = sysconf(_SC_CLK_TCK);
    if (start && hz > 0 && clock_gettime(CLOCK_BOOTTIME, &bt) == 0)
        return ((double)bt.tv_sec + (double)bt.tv_nsec * 1e-9 - (double)start / (double)hz) * 1e3;
    return (shell_now() - fallback) * 1e3;
}

/* The environment's locale asks for UTF-8: the first of LC_ALL, LC_CTYPE,
 * LANG that is set names "UTF-8" (or "utf8"). */
static int env_wants_utf8(void)
{
    const char *names[] = {"LC_ALL", "LC_CTYPE", "LANG"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *v = getenv(names[i]);
        if (v && *v) return strcasestr(v, "UTF-8") || strcasestr(v, "utf8");
    }
    return 0;
}

/* ncursesw draws Hangul (and the frames' line characters) only in a UTF-8
 * locale. LANG=ko_KR.UTF-8 on a machine that never generated that locale
 * (a fresh Debian or container: only C.UTF-8 is there) makes
 * setlocale(LC_ALL, "") fail and leaves the C locale, and the screen came
 * out as bytes and 'qqqk' frames. The terminal still speaks UTF-8 then, so
 * the characters' locale falls back to C.UTF-8, which every glibc has. */
static void shell_locale(void)
{
    if (!setlocale(LC_ALL, "")) setlocale(LC_ALL, "C");
    if (strcmp(nl_langinfo(CODESET), "UTF-8") != 0 && env_wants_utf8() && !setlocale(LC_CTYPE, "C.UTF-8"))
        setlocale(LC_CTYPE, "C.utf8");
    /* block characters draw the sparklines where the terminal is UTF-8 */
    int utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
    chart_use_blocks(utf8);
    md_use_unicode(utf8);
    text_use_unicode(utf8);
}

/* The slow part of start-up, after the first frame. */
static void load_catalog(shell_app *a)
{
    a->loaded = 1;
    a->text_lab = -1;
    if (mgpu_lab_default_dirs(a->labs_dir, sizeof a->labs_dir, a->checks_dir, sizeof a->checks_dir) != MGPU_OK) {
        snprintf(a->load_error, sizeof a->load_error, "No labs found.\n%s", mgpu_error_message());
        return;
    }
    if (mgpu_lab_state_dir(a->state_dir, sizeof a->state_dir) != MGPU_OK) {
        snprintf(a->load_error, sizeof a->load_error, "No place for your progress.\n%s", mgpu_error_message());
        return;
    }
    if (mgpu_lab_catalog_open_class(a->labs_dir, a->checks_dir, a->state_dir, &a->cat) != MGPU_OK) {
        snprintf(a->load_error, sizeof a->load_error, "The labs in %s could not be loaded.\n%s", a->labs_dir,
                 mgpu_error_message());
        a->cat = NULL;
        return;
    }
    /* a step stuck where its budget cannot reach ends its own process, not
     * the shell's */
    if (mgpu_lab_catalog_isolate(a->cat, NULL) != MGPU_OK) mgpu_error_clear();
    if (mgpu_lab_count(a->cat) == 0) {
        snprintf(a->load_error, sizeof a->load_error,
                 "No labs found in %s (a lab is a directory NN-name/ with a lab.lua).\n"
                 "Set MGPULAB_LABS to the labs/ directory of an mgpulab checkout.", a->labs_dir);
        return;
    }
    const char *warn = mgpu_lab_catalog_warning(a->cat);
    if (warn) dialog_message(a, tr("Your progress"), "%s", warn);
    if (snap_take(a->cat, &a->snap) != MGPU_OK)
        snprintf(a->load_error, sizeof a->load_error, "%s", mgpu_error_message());
}

static void start_services(shell_app *a)
{
    if (mgpu_telemetry_open(&a->g->backend, &a->tel) != MGPU_OK) {
        status_set(a, tr("live link counters are off: %s"), mgpu_error_message());
        a->tel = NULL;
    }
    a->watch = watch_open();
    topo_probe_start(a);
}

/* Saved exercise files: run the step they belong to (the selected one
 * when it shares the file). */
static void on_saved(shell_app *a, const int *changed, int n)
{
    const snap_lab *l = app_lab(a, a->lab_open);
    if (!l || n == 0) return;
    int step = changed[0];
    const snap_step *sel = app_step(a, a->lab_open, a->step_sel);
    for (int i = 0; i < n; i++)
        if (sel && sel->exercise && l->steps[changed[i]].exercise &&
            strcmp(sel->exercise, l->steps[changed[i]].exercise) == 0)
            step = a->step_sel;
    if (app_busy(a)) {
        a->rerun_pending = 1;
        a->rerun_lab = a->lab_open;
        a->rerun_step = step;
        status_set(a, tr("saved: the check runs again when this step ends"));
        return;
    }
    status_set(a, tr("saved: running the check"));
    act_run(a, a->lab_open, step);
}

static void poll_once(shell_app *a)
{
    int timeout = -1; /* idle: sleep until a key, an event or a save */
    if (app_sampling(a)) timeout = mgpu_telemetry_interval_ms(a->tel); /* telemetry (10-20 Hz) and the elapsed time */
    int wt = watch_timeout_ms(a->watch);
    if (wt >= 0 && (timeout < 0 || wt < timeout)) timeout = wt;
    struct pollfd fds[3] = {{.fd = STDIN_FILENO, .events = POLLIN}, {.fd = evq_fd(a->q), .events = POLLIN},
                            {.fd = watch_fd(a->watch), .events = POLLIN}};
    int nf = fds[2].fd >= 0 ? 3 : 2;
    struct timespec ts = {timeout / 1000, (long)(timeout % 1000) * 1000000L};
    if (ppoll(fds, (nfds_t)nf, timeout < 0 ? NULL : &ts, &a->poll_mask) < 0 && errno != EINTR) {
        status_set(a, tr("poll: %s"), strerror(errno));
        return;
    }
    if (fds[0].revents & (POLLHUP | POLLERR | POLLNVAL)) {
        /* the terminal went away: stdin would wake poll forever */
        act_quit(a);
        return;
    }
    /* EINTR is usually SIGWINCH: getch then delivers KEY_RESIZE */
    int ch;
    while (!a->quit && (ch = getch()) != ERR) keys_handle(a, ch);
    shell_event *ev = evq_take(a->q);
    while (ev) {
        shell_event *next = ev->next;
        ev->next = NULL;
        work_dispatch(a, ev);
        evq_event_free(ev);
        ev = next;
    }
    if (a->rerun_pending && !app_busy(a)) { /* a save arrived while the step ran, which has ended */
        a->rerun_pending = 0;
        act_run(a, a->rerun_lab, a->rerun_step);
    }
    int changed[64], n = 0, i;
    while ((i = watch_changed(a->watch)) >= 0)
        if (n < 64) changed[n++] = i;
    if (n) on_saved(a, changed, n);
    results_follow_selection(a);
    if (app_sampling(a)) {
        if (shell_now() - a->last_sample >= 0.095) panes_telemetry(a);
        a->dirty = 1;
    }
}

/* Quit with a step running: it was cancelled; wait for it to end so its
 * workers are gone and its progress is saved. */
static void finish_work(shell_app *a)
{
    if (app_busy(a)) {
        a->work.cancel = 1;
        status_set(a, tr("cancelling the running step before quitting..."));
        a->dirty = 1;
        if (!a->too_small) draw_frame(a);
        work_join(a);
    }
    topo_probe_join(a);
    evq_event_free(evq_take(a->q));
}

/* The terminal for the shell: curses on it, SIGWINCH kept for ppoll, the
 * mouse. 0, or the exit status when this terminal cannot be driven (it
 * says why). */
static int terminal_open(SCREEN **out, sigset_t *poll_mask)
{
    SCREEN *scr = newterm(NULL, stdout, stdin);
    if (!scr) {
        fprintf(stderr, "mgpulab: cannot drive this terminal (TERM=%s)\n", getenv("TERM") ? getenv("TERM") : "unset");
        return 2;
    }
    /* a terminal that cannot move the cursor (TERM=dumb, an editor's
     * shell buffer) would get one garbled line: refuse as for a non-tty */
    const char *cup = tigetstr("cup");
    if (!cup || cup == (const char *)-1) {
        endwin();
        delscreen(scr);
        fprintf(stderr, "mgpulab: the interactive shell needs a terminal that can move the cursor, and TERM=%s "
                        "cannot.\nRun it in a full terminal (TERM=xterm-256color, tmux, screen), or use a headless "
                        "command (`mgpulab --help` lists them).\n", getenv("TERM") ? getenv("TERM") : "unset");
        return 2;
    }
    /* before any thread starts, so they all inherit it (see poll_mask) */
    sigset_t winch;
    sigemptyset(&winch);
    sigaddset(&winch, SIGWINCH);
    pthread_sigmask(SIG_BLOCK, &winch, poll_mask);
    sigdelset(poll_mask, SIGWINCH);
    cbreak();
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    nodelay(stdscr, TRUE);
    curs_set(0);
    set_escdelay(25);
    mousemask(BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON4_PRESSED
#ifdef BUTTON5_PRESSED
                  | BUTTON5_PRESSED
#endif
              , NULL);
    mouseinterval(0);
    *out = scr;
    return 0;
}

static void terminal_close(SCREEN *scr, const sigset_t *poll_mask)
{
    endwin();
    delscreen(scr);
    pthread_sigmask(SIG_SETMASK, poll_mask, NULL);
}

/* MGPU_SHELL_PERF=FILE: how long the first frame took (the start-up test
 * holds it under a limit). */
static void report_first_frame(double t0)
{
    const char *perf = getenv("MGPU_SHELL_PERF");
    if (!perf || !*perf) return;
    FILE *f = fopen(perf, "w");
    if (!f) return;
    fprintf(f, "first_frame_ms %.1f\nfirst_frame_ms_in_shell %.1f\n", ms_since_start(t0), (shell_now() - t0) * 1e3);
    fclose(f);
}

int mgpu_shell_run(const mgpu_shell_options *g)
{
    double t0 = shell_now();
    if (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO)) {
        fprintf(stderr, "mgpulab: the interactive shell needs a terminal, and %s is not one.\n"
                        "Run it in a terminal, or use a headless command (`mgpulab --help` lists them).\n",
                isatty(STDOUT_FILENO) ? "standard input" : "standard output");
        return 2;
    }
    shell_locale();
    shell_app *a = NULL;
    if (app_new(g, &a) != MGPU_OK) {
        fprintf(stderr, "mgpulab: %s\n", mgpu_error_message());
        return 1;
    }
    SCREEN *scr = NULL;
    int rc = terminal_open(&scr, &a->poll_mask);
    if (rc != 0) {
        app_free(a);
        return rc;
    }
    theme_init();
    a->pctx = (pane_context){.backend_line = a->backend_line, .simulated = a->simulated, .color = theme_color()};
    panes_create(a);

    draw_frame(a);
    report_first_frame(t0);
    load_catalog(a);
    start_services(a);
    a->dirty = 1;
    while (!a->quit) {
        if (a->dirty || panes_dirty(a)) {
            a->dirty = 0;
            draw_frame(a);
        }
        poll_once(a);
    }
    finish_work(a);

    panes_destroy(a);
    terminal_close(scr, &a->poll_mask);
    app_free(a);
    return 0;
}
