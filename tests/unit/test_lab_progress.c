/* test_lab_progress.c - the progress file survives SIGKILL at any moment
 * (always parses, always one complete state) and a damaged file is kept
 * aside and reported, never dropped. */
#include "lab/progress.h"
#include "mgpu/lab.h"
#include "tap.h"
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define FILLERS 40

/* The child: save ever-newer complete states as fast as it can. Every
 * filler step holds the same generation number, so a torn write or a mix
 * of two generations would show. After its first complete save it writes
 * one byte to `saved` (the parent's event; no timing assumed). */
static void writer(const char *dir, int saved)
{
    signal(SIGPIPE, SIG_IGN);
    lab_progress p;
    if (lab_progress_load(&p, dir) != MGPU_OK) _exit(3);
    for (long gen = 1;; gen++) {
        for (int i = 0; i < FILLERS; i++) {
            char step[32];
            snprintf(step, sizeof step, "step%02d", i);
            json_t *s = lab_progress_step(&p, "02-allreduce", step, 1);
            json_object_set_new(s, "attempts", json_integer(gen));
            json_object_set_new(s, "message", json_string("a message long enough to need more than one write call"));
        }
        if (lab_progress_save(&p) != MGPU_OK) _exit(4);
        if (gen == 1 && write(saved, "s", 1) != 1) { /* the parent did not wait for it (SIGPIPE ignored) */ }
    }
}

static int count_prefix(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (strncmp(e->d_name, prefix, strlen(prefix)) == 0) n++;
    if (d) closedir(d);
    return n;
}

static void test_sigkill(const char *dir)
{
    srand((unsigned)time(NULL));
    int rounds = 60, torn = 0, damaged = 0, empty = 0;
    long last = 0;
    for (int r = 0; r < rounds; r++) {
        int ev[2];
        CHECK(pipe(ev) == 0);
        pid_t pid = fork();
        if (pid == 0) {
            close(ev[0]);
            writer(dir, ev[1]);
        }
        close(ev[1]);
        /* Most rounds kill at any moment, a first save or not; every fourth
         * waits for the writer's first complete save first, so completed
         * saves are read back however slow the machine is. */
        char c;
        if (r % 4 == 3) CHECKF(read(ev[0], &c, 1) == 1, "round %d: the writer ended before its first save", r);
        close(ev[0]);
        struct timespec ts = {0, (long)(rand() % 15000) * 1000L + 200000L};
        nanosleep(&ts, NULL);
        kill(pid, SIGKILL);
        int st = 0;
        waitpid(pid, &st, 0);
        CHECKF(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "round %d: the writer ended otherwise (status %d)", r, st);
        lab_progress p;
        CHECK_OK(lab_progress_load(&p, dir));
        if (p.warning[0]) damaged++;
        json_t *steps = json_object_get(json_object_get(json_object_get(p.doc, "labs"), "02-allreduce"), "steps");
        if (!steps) {
            empty++;
        } else {
            long gen = -1;
            int n = 0;
            const char *k;
            json_t *v;
            json_object_foreach(steps, k, v) {
                long g = (long)json_integer_value(json_object_get(v, "attempts"));
                if (gen < 0) gen = g;
                if (g != gen) torn++;
                n++;
            }
            if (n != FILLERS) torn++;
            last = gen;
        }
        lab_progress_free(&p);
    }
    CHECKF(damaged == 0, "%d of %d loads found a damaged file", damaged, rounds);
    CHECKF(torn == 0, "%d loads found a mix of generations or missing steps", torn);
    CHECKF(empty < rounds, "the writer never completed one save (%d empty)", empty);
    CHECKF(last > 0, "a saved generation was read back (last %ld)", last);
    /* a load removes the temporary files the killed writers left */
    CHECKF(count_prefix(dir, "progress.json.tmp-") == 0, "%d stale temporary files", count_prefix(dir, "progress.json.tmp-"));
}

static void test_damaged(const char *dir)
{
    char path[700];
    snprintf(path, sizeof path, "%s/progress.json", dir);
    FILE *f = fopen(path, "w");
    fputs("{\"version\": 1, \"labs\": {\"02-allreduce\": {\"steps\": ", f);
    fclose(f);
    lab_progress p;
    CHECK_OK(lab_progress_load(&p, dir));
    CHECKF(strstr(p.warning, "was damaged") && strstr(p.warning, "progress.json.damaged-"), "warning: %s", p.warning);
    CHECK(json_object_size(json_object_get(p.doc, "labs")) == 0);
    CHECK(access(path, F_OK) != 0); /* moved, not left to be overwritten */
    CHECK(count_prefix(dir, "progress.json.damaged-") == 1);
    /* the damaged file holds exactly what was there */
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (strncmp(e->d_name, "progress.json.damaged-", 22) == 0) {
            char kept[1200], buf[256] = "";
            snprintf(kept, sizeof kept, "%s/%s", dir, e->d_name);
            FILE *k = fopen(kept, "r");
            size_t n = k ? fread(buf, 1, sizeof buf - 1, k) : 0;
            buf[n] = '\0';
            if (k) fclose(k);
            CHECKF(strstr(buf, "\"02-allreduce\": {\"steps\": ") != NULL, "kept: %s", buf);
        }
    if (d) closedir(d);
    /* a saved file after that is sound again */
    json_object_set_new(lab_progress_step(&p, "01-topology", "links", 1), "state", json_string("passed"));
    CHECK_OK(lab_progress_save(&p));
    lab_progress_free(&p);
    CHECK_OK(lab_progress_load(&p, dir));
    CHECK(p.warning[0] == '\0');
    CHECK(strcmp(json_string_value(json_object_get(lab_progress_step(&p, "01-topology", "links", 0), "state")),
                 "passed") == 0);
    lab_progress_free(&p);

    /* valid JSON of the wrong shape is damaged too; the catalog reports it */
    f = fopen(path, "w");
    fputs("[1, 2, 3]\n", f);
    fclose(f);
    mgpu_lab_catalog *cat = NULL;
    CHECK_OK(mgpu_lab_catalog_open(MGPU_SOURCE_DIR "/tests/data/labs", MGPU_SOURCE_DIR "/tests/data/labs/checks", dir,
                                   &cat));
    const char *w = mgpu_lab_catalog_warning(cat);
    CHECKF(w && strstr(w, "not the progress shape"), "catalog warning: %s", w ? w : "(none)");
    CHECK(count_prefix(dir, "progress.json.damaged-") == 2);
    mgpu_lab_catalog_close(cat);
}

int main(void)
{
    char base[] = "/tmp/mgpu-progress-XXXXXX";
    if (!mkdtemp(base)) return 1;
    char kill_dir[600], dmg_dir[600];
    snprintf(kill_dir, sizeof kill_dir, "%s/kill", base);
    snprintf(dmg_dir, sizeof dmg_dir, "%s/damaged", base);
    mkdir(kill_dir, 0700);
    mkdir(dmg_dir, 0700);
    test_sigkill(kill_dir);
    test_damaged(dmg_dir);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", base);
    return tap_done();
}
