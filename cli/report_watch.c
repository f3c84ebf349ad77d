/* report_watch.c - `mgpulab report --class DIR --watch`: the class grid
 * live during a session. The learners' mgpulab writes its export into the
 * class's shared folder after every step (atomically: a rename); this view
 * reloads when a file lands - inotify where the kernel tells (a local
 * folder), and a look at the folder every two seconds besides (NFS and
 * other shares tell no one of a remote client's writes). A learner on one
 * step for longer than the class's stuck_minutes, or failing a step three
 * times, is marked; Enter opens the learner's last verdict; o opens the
 * next lab for the class when the class configuration keeps labs closed
 * (report --class DIR --open LAB does the same from a script). */
#include "report.h"
#include "class_model.h"
#include "mgpu/file.h"
#include <curses.h>
#include <dirent.h>
#include <errno.h>
#include <locale.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define POLL_EVERY_S 2
#define FAILING_ATTEMPTS 3

enum { PAIR_STUCK = 1, PAIR_FAILING, PAIR_PASSED, PAIR_BAD };

/*--- Opening labs ---------------------------------------------------------------*/

int report_open_lab(const char *dir, mgpu_lab_catalog *cat, const char *name, char *msg, size_t len)
{
    int i = mgpu_lab_find(cat, name);
    if (i < 0) {
        snprintf(msg, len, "no lab '%s' in the class", name);
        return 2;
    }
    const char *id = mgpu_lab_get(cat, i)->id;
    if (mgpu_class_lab_opened(dir, id)) {
        snprintf(msg, len, "lab %s was open already", id);
        return 0;
    }
    char path[4096], *old = NULL;
    size_t n = 0;
    snprintf(path, sizeof path, "%s/" MGPU_CLASS_OPEN_FILE, dir);
    if (mgpu_file_read(path, (size_t)1 << 20, &old, &n) != MGPU_OK) mgpu_error_clear();
    size_t cap = n + strlen(id) + 3;
    char *text = malloc(cap);
    if (!text) {
        free(old);
        snprintf(msg, len, "out of memory");
        return 1;
    }
    snprintf(text, cap, "%.*s%s%s\n", (int)n, old ? old : "", n && old[n - 1] != '\n' ? "\n" : "", id);
    free(old);
    mgpu_result r = mgpu_file_write_atomic(path, text, strlen(text)); /* the learners read it whole or not at all */
    free(text);
    if (r != MGPU_OK) {
        snprintf(msg, len, "%s", mgpu_error_message());
        mgpu_error_clear();
        return 1;
    }
    snprintf(msg, len, "opened lab %s for the class", id);
    return 0;
}

/*--- What changed in the folder ---------------------------------------------------*/

/* A fingerprint of DIR's *.json and open-labs.txt: names, sizes, times. */
static uint64_t dir_signature(const char *dir)
{
    uint64_t h = 1469598103934665603ull;
    DIR *d = opendir(dir);
    if (!d) return 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        int json = l > 5 && strcmp(e->d_name + l - 5, ".json") == 0;
        if (!json && strcmp(e->d_name, MGPU_CLASS_OPEN_FILE) != 0) continue;
        char path[4096];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (stat(path, &st) != 0) continue;
        uint64_t x = (uint64_t)st.st_size * 31 + (uint64_t)st.st_mtim.tv_sec * 1000000007ull + (uint64_t)st.st_mtim.tv_nsec;
        for (const char *c = e->d_name; *c; c++) x = x * 131 + (unsigned char)*c;
        h ^= x + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2); /* order-free: readdir's order varies */
    }
    closedir(d);
    return h;
}

/*--- The view --------------------------------------------------------------------*/

typedef struct watch {
    const char *dir;
    mgpu_lab_catalog *cat;
    class_model m;
    int lab;           /* the column group shown: index of its first column */
    int sel;           /* the selected learner */
    int colors;
    int inotify;       /* 1 when inotify watches the folder */
    char status[300];
    time_t loaded;
} watch;

static void reload(watch *w)
{
    int sel = w->sel;
    class_model_free(&w->m);
    w->m.quiet = 1;
    class_model_load(&w->m, w->dir, w->cat);
    w->sel = sel < w->m.nlearners ? sel : w->m.nlearners - 1;
    if (w->sel < 0) w->sel = 0;
    if (w->lab >= w->m.ncols) w->lab = 0;
    w->loaded = time(NULL);
}

/* What marks the learner: stuck on a step, failing one again and again. */
static void learner_flags(const watch *w, const class_learner *l, char *buf, size_t len, int *pair)
{
    buf[0] = '\0';
    *pair = 0;
    double now = (double)time(NULL), limit = (w->m.cfg ? w->m.cfg->stuck_minutes : 10) * 60;
    int cur = -1;
    for (int c = 0; c < w->m.ncols; c++) {
        const class_cell *x = &l->cells[c];
        if (x->state == CLASS_FAILED && x->attempts >= FAILING_ATTEMPTS) {
            snprintf(buf, len, "FAILING %s %s (%d attempts)", w->m.cols[c].lab, w->m.cols[c].step, x->attempts);
            *pair = PAIR_FAILING;
        }
        int open = x->state == CLASS_FAILED || x->state == CLASS_AWAITING || x->state == CLASS_CANCELLED;
        if (open && x->opened > 0 && (cur < 0 || x->last_run > l->cells[cur].last_run)) cur = c;
    }
    if (cur >= 0 && now - l->cells[cur].opened > limit) {
        size_t n = strlen(buf);
        snprintf(buf + n, len - n, "%sSTUCK %.0f min on %s %s", n ? "; " : "", (now - l->cells[cur].opened) / 60,
                 w->m.cols[cur].lab, w->m.cols[cur].step);
        if (!*pair) *pair = PAIR_STUCK;
    }
}

static int lab_end(const watch *w, int first)
{
    int last = first;
    while (last + 1 < w->m.ncols && strcmp(w->m.cols[last + 1].lab, w->m.cols[first].lab) == 0) last++;
    return last;
}

static void put(int y, int x, int width, const char *s)
{
    if (width <= 0 || y >= LINES || x >= COLS) return;
    if (x + width > COLS) width = COLS - x;
    mvaddnstr(y, x, s, width);
}

static int cell_pair(const class_cell *c)
{
    switch (c->state) {
    case CLASS_PASSED:
    case CLASS_READ: return PAIR_PASSED;
    case CLASS_FAILED: return PAIR_FAILING;
    case CLASS_INVALID:
    case CLASS_ELSEWHERE:
    case CLASS_EDITED: return PAIR_BAD;
    default: return 0;
    }
}

static void draw(watch *w)
{
    erase();
    char line[600], when[32];
    struct tm tm;
    localtime_r(&w->loaded, &tm);
    strftime(when, sizeof when, "%H:%M:%S", &tm);
    snprintf(line, sizeof line, " mgpulab class%s%s%s - live: %d learners, %s (updated %s; %s)",
             w->m.cfg && w->m.cfg->name[0] ? " '" : "", w->m.cfg ? w->m.cfg->name : "",
             w->m.cfg && w->m.cfg->name[0] ? "'" : "", w->m.nlearners, w->dir, when,
             w->inotify ? "inotify, and a look every 2 s" : "a look every 2 s");
    attron(A_REVERSE);
    mvhline(0, 0, ' ', COLS);
    put(0, 0, COLS, line);
    attroff(A_REVERSE);
    if (w->m.ncols == 0) {
        put(2, 1, COLS - 2, "no lab yet: the exports land here as the learners run steps");
    } else {
        /* the labs as tabs */
        int x = 1;
        for (int c = 0; c < w->m.ncols; c = lab_end(w, c) + 1) {
            const char *id = w->m.cols[c].lab;
            int open = !w->m.cfg || !w->m.cfg->labs_by_instructor || c == 0 || mgpu_class_lab_opened(w->dir, id);
            snprintf(line, sizeof line, "%s%s%s%s", c == w->lab ? "[" : " ", id, open ? "" : " (closed)",
                     c == w->lab ? "]" : " ");
            put(2, x, COLS - x, line);
            x += (int)strlen(line) + 2;
        }
        int first = w->lab, last = lab_end(w, first);
        int wname = 7;
        for (int k = 0; k < w->m.nlearners; k++)
            if ((int)strlen(w->m.learners[k].label) > wname) wname = (int)strlen(w->m.learners[k].label);
        if (wname > 24) wname = 24;
        int wcell = 10;
        for (int c = first; c <= last; c++)
            for (int k = 0; k < w->m.nlearners; k++) {
                char t[200];
                class_cell_text(&w->m.learners[k].cells[c], t, sizeof t);
                if ((int)strlen(t) > wcell) wcell = (int)strlen(t);
            }
        if (wcell > 14) wcell = 14;
        attron(A_BOLD);
        put(4, 1, wname, "learner");
        x = wname + 3;
        for (int c = first; c <= last; c++, x += wcell + 2) {
            snprintf(line, sizeof line, "%d %s", w->m.cols[c].step_index + 1, w->m.cols[c].step);
            put(4, x, wcell, line);
        }
        put(4, x, COLS - x, "needs attention");
        attroff(A_BOLD);
        for (int k = 0; k < w->m.nlearners && 5 + k < LINES - 2; k++) {
            const class_learner *l = &w->m.learners[k];
            int y = 5 + k, pair;
            char flags[300];
            learner_flags(w, l, flags, sizeof flags, &pair);
            if (k == w->sel) attron(A_REVERSE);
            if (k == w->sel) mvhline(y, 0, ' ', COLS);
            put(y, 0, 1, k == w->sel ? ">" : " ");
            put(y, 1, wname, l->label);
            x = wname + 3;
            for (int c = first; c <= last; c++, x += wcell + 2) {
                char t[200];
                class_cell_text(&l->cells[c], t, sizeof t);
                int cp = w->colors ? cell_pair(&l->cells[c]) : 0;
                if (cp) attron(COLOR_PAIR(cp));
                put(y, x, wcell, t);
                if (cp) attroff(COLOR_PAIR(cp));
            }
            if (pair && w->colors) attron(COLOR_PAIR(pair) | A_BOLD);
            else if (pair) attron(A_BOLD);
            put(y, x, COLS - x, flags);
            if (pair) attroff((w->colors ? COLOR_PAIR(pair) : 0) | A_BOLD);
            if (k == w->sel) attroff(A_REVERSE);
        }
    }
    int problems = (int)json_array_size(w->m.problems) + (int)json_array_size(w->m.skipped);
    snprintf(line, sizeof line, " q quit  Up/Down learner  Tab lab  Enter last verdict  o open the next lab%s%s",
             problems ? "  |  problems with files: " : "", problems ? "see report --class" : "");
    if (w->status[0]) snprintf(line, sizeof line, " %s", w->status);
    attron(A_REVERSE);
    mvhline(LINES - 1, 0, ' ', COLS);
    put(LINES - 1, 0, COLS, line);
    attroff(A_REVERSE);
    refresh();
}

/* The learner's last verdict in a box; any key closes it. */
static void show_verdict(watch *w)
{
    if (w->sel >= w->m.nlearners) return;
    const class_learner *l = &w->m.learners[w->sel];
    int last = -1;
    for (int c = 0; c < w->m.ncols; c++)
        if (l->cells[c].step && l->cells[c].last_run > 0 && (last < 0 || l->cells[c].last_run > l->cells[last].last_run))
            last = c;
    int h = LINES - 4 < 16 ? LINES - 4 : 16, wd = COLS - 6 < 100 ? COLS - 6 : 100;
    if (h < 5 || wd < 20) return;
    WINDOW *box_w = newwin(h, wd, (LINES - h) / 2, (COLS - wd) / 2);
    werase(box_w);
    box(box_w, 0, 0);
    char line[1200];
    snprintf(line, sizeof line, " %s: last verdict ", l->label);
    mvwaddnstr(box_w, 0, 2, line, wd - 4);
    if (last < 0) {
        mvwaddnstr(box_w, 2, 2, l->doc ? "no step run yet" : "no export from this learner yet", wd - 4);
    } else {
        const class_cell *c = &l->cells[last];
        char when[32], cell[200];
        time_t t = (time_t)c->last_run;
        struct tm tm;
        localtime_r(&t, &tm);
        strftime(when, sizeof when, "%H:%M:%S", &tm);
        class_cell_text(c, cell, sizeof cell);
        snprintf(line, sizeof line, "%s step %d %s - %s, at %s on %s", w->m.cols[last].lab, w->m.cols[last].step_index + 1,
                 w->m.cols[last].title, cell, when, c->ran_on[0] ? c->ran_on : "?");
        mvwaddnstr(box_w, 2, 2, line, wd - 4);
        /* the message, wrapped at spaces */
        const char *msg = c->message ? c->message : "(no message)";
        int y = 4, width = wd - 4;
        while (*msg && y < h - 2) {
            int n = (int)strlen(msg);
            if (n > width) {
                n = width;
                while (n > width / 2 && msg[n] != ' ') n--;
            }
            mvwaddnstr(box_w, y++, 2, msg, n);
            msg += n;
            while (*msg == ' ') msg++;
        }
    }
    mvwaddnstr(box_w, h - 1, 2, " any key closes ", wd - 4);
    wrefresh(box_w);
    timeout(-1);
    getch();
    delwin(box_w);
}

static void open_next_lab(watch *w)
{
    if (!w->m.cfg || !w->m.cfg->labs_by_instructor) {
        snprintf(w->status, sizeof w->status, "the class configuration keeps no lab closed (pacing "
                 "\"labs_opened_by_instructor\"): every lab is open");
        return;
    }
    for (int l = 1; l < mgpu_lab_count(w->cat); l++) {
        const char *id = mgpu_lab_get(w->cat, l)->id;
        if (mgpu_class_lab_opened(w->dir, id)) continue;
        report_open_lab(w->dir, w->cat, id, w->status, sizeof w->status);
        return;
    }
    snprintf(w->status, sizeof w->status, "every lab of the class is open");
}

int report_watch(const char *dir, mgpu_lab_catalog *cat)
{
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "mgpulab report: --class %s: not a directory\n", dir);
        return 1;
    }
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
        fprintf(stderr, "mgpulab report: --watch needs a terminal (report --class %s prints the grid once)\n", dir);
        return 1;
    }
    watch w = {.dir = dir, .cat = cat};
    int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (fd >= 0 && inotify_add_watch(fd, dir, IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_CREATE) < 0) {
        close(fd);
        fd = -1;
    }
    w.inotify = fd >= 0;
    setlocale(LC_ALL, "");
    initscr();
    cbreak();
    noecho();
    keypad(stdscr, TRUE);
    curs_set(0);
    w.colors = has_colors() && !getenv("NO_COLOR");
    if (w.colors) {
        start_color();
        use_default_colors();
        init_pair(PAIR_STUCK, COLOR_YELLOW, -1);
        init_pair(PAIR_FAILING, COLOR_RED, -1);
        init_pair(PAIR_PASSED, COLOR_GREEN, -1);
        init_pair(PAIR_BAD, COLOR_MAGENTA, -1);
    }
    reload(&w);
    uint64_t sig = dir_signature(dir);
    time_t looked = time(NULL);
    int quit = 0;
    while (!quit) {
        draw(&w);
        struct pollfd p[2] = {{.fd = STDIN_FILENO, .events = POLLIN}, {.fd = fd, .events = POLLIN}};
        int n = poll(p, fd >= 0 ? 2 : 1, 1000);
        if (n < 0 && errno != EINTR) break;
        int changed = 0;
        if (fd >= 0 && (p[1].revents & POLLIN)) {
            char buf[4096];
            while (read(fd, buf, sizeof buf) > 0) changed = 1; /* drained: one reload for a burst */
        }
        if (time(NULL) - looked >= POLL_EVERY_S) { /* shares that tell no one */
            uint64_t now = dir_signature(dir);
            changed |= now != sig;
            sig = now;
            looked = time(NULL);
        }
        if (changed) {
            sig = dir_signature(dir);
            reload(&w);
        }
        if (!(p[0].revents & POLLIN)) continue;
        timeout(0);
        int ch = getch();
        if (ch != ERR) w.status[0] = '\0';
        switch (ch) {
        case 'q':
        case 'Q': quit = 1; break;
        case KEY_UP:
        case 'k': if (w.sel > 0) w.sel--; break;
        case KEY_DOWN:
        case 'j': if (w.sel + 1 < w.m.nlearners) w.sel++; break;
        case '\t':
        case KEY_RIGHT: w.lab = w.m.ncols ? (lab_end(&w, w.lab) + 1) % w.m.ncols : 0; break;
        case KEY_LEFT: {
            int prev = 0;
            for (int c = 0; c < w.lab; c = lab_end(&w, c) + 1) prev = c;
            w.lab = prev;
            break;
        }
        case '\n':
        case '\r':
        case KEY_ENTER: show_verdict(&w); break;
        case 'o': open_next_lab(&w); break;
        case 'r': reload(&w); break;
        case KEY_RESIZE: break;
        default: break;
        }
    }
    endwin();
    if (fd >= 0) close(fd);
    class_model_free(&w.m);
    return 0;
}
