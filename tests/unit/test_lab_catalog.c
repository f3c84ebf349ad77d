/* test_lab_catalog.c - the lab framework in-process over tests/data/labs:
 * loading (broken labs listed with their error, the others usable), lookup,
 * running steps (verdicts, lists of verdicts, lab errors with tracebacks,
 * cancellation, events), answers, hints, measurements, the workspace and
 * reset. Steps that need rank workers are covered by tests/cli/lab_cmds.sh
 * (they start the mgpulab binary). */
#include "mgpu/lab.h"
#include "tap.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define LABS MGPU_SOURCE_DIR "/tests/data/labs"
#define CHECKS MGPU_SOURCE_DIR "/tests/data/labs/checks"

typedef struct seen {
    int logs;
    char last_log[256];
} seen;

static void on_log(void *ctx, int rank, const char *line)
{
    seen *s = ctx;
    s->logs++;
    snprintf(s->last_log, sizeof s->last_log, "%d:%s", rank, line);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void test_load(mgpu_lab_catalog *cat)
{
    CHECK(mgpu_lab_count(cat) == 5);
    const mgpu_lab_info *b = mgpu_lab_get(cat, 0), *broken = mgpu_lab_get(cat, 2), *shape = mgpu_lab_get(cat, 4);
    CHECK(b && strcmp(b->id, "01-basics") == 0 && b->number == 1 && strcmp(b->title, "Basics") == 0);
    CHECK(b->nsteps == 4 && b->load_error == NULL && b->ranks == 1);
    CHECK(strcmp(b->steps[1].id, "question") == 0 && b->steps[1].nhints == 2 && b->steps[1].nquestions == 1);
    CHECK(b->steps[0].has_run == 0 && b->steps[0].has_check == 0 && b->steps[1].has_check == 1);
    CHECK(b->steps[0].text_path && strstr(b->steps[0].text_path, "/01-basics/steps/01-read.md"));
    CHECK(b->steps[2].exercise && b->steps[2].exercise_src && b->steps[2].solution);
    CHECK(access(b->steps[2].exercise, R_OK) == 0); /* copied into the workspace at open */
    CHECK(mgpu_lab_get(cat, 1)->ranks == 2);
    CHECKF(broken->load_error && strstr(broken->load_error, "lab.lua:4: '}' expected near 'title'"), "%s",
           broken->load_error ? broken->load_error : "(none)");
    CHECK(broken->nsteps == 0);
    CHECKF(shape->load_error && strstr(shape->load_error, "step 1 (untitled) has no `title`"), "%s",
           shape->load_error ? shape->load_error : "(none)");
    CHECK(mgpu_lab_find(cat, "1") == 0 && mgpu_lab_find(cat, "01") == 0 && mgpu_lab_find(cat, "basics") == 0 &&
          mgpu_lab_find(cat, "01-basics") == 0 && mgpu_lab_find(cat, "engine") == 1);
    CHECK(mgpu_lab_find(cat, "nosuch") == -1 && mgpu_lab_find(cat, "9") == -1 && mgpu_lab_find(cat, "") == -1);
    CHECK(mgpu_lab_find_step(cat, 0, "2") == 1 && mgpu_lab_find_step(cat, 0, "list") == 3);
    CHECK(mgpu_lab_find_step(cat, 0, "0") == -1 && mgpu_lab_find_step(cat, 0, "5") == -1 &&
          mgpu_lab_find_step(cat, 0, "x") == -1);
    CHECK(strcmp(mgpu_step_state_name(MGPU_STEP_CANCELLED), "cancelled") == 0);
}

static void test_run(mgpu_lab_catalog *cat)
{
    seen s = {0};
    mgpu_lab_env env = {.events = {.ctx = &s, .log = on_log}};
    mgpu_lab_verdict v;
    CHECK_OK(mgpu_lab_run_step(cat, 0, 0, &env, &v));
    CHECK(v.state == MGPU_STEP_READ);
    mgpu_lab_verdict_clear(&v);
    /* unanswered question: failed, with saw/wanted/where; the log arrived */
    CHECK_OK(mgpu_lab_run_step(cat, 0, 1, &env, &v));
    CHECKF(v.state == MGPU_STEP_FAILED && strcmp(v.saw, "nil") == 0 && strcmp(v.wanted, "blue") == 0 &&
           strcmp(v.where, "look up") == 0, "state %d saw %s", v.state, v.saw);
    CHECK(s.logs == 1 && strcmp(s.last_log, "-1:asking") == 0);
    CHECK(v.measurements && strcmp(json_string_value(json_object_get(v.measurements, "answer")), "none") == 0);
    mgpu_lab_verdict_clear(&v);
    CHECK(mgpu_lab_answer(cat, 0, 1, "nosuch", "x") == MGPU_ERR_INVALID);
    CHECK(strstr(mgpu_error_message(), "no question 'nosuch'; its questions: color") != NULL);
    CHECK_OK(mgpu_lab_answer(cat, 0, 1, "color", "blue"));
    CHECK(strcmp(mgpu_lab_get(cat, 0)->steps[1].questions[0].answer, "blue") == 0);
    CHECK_OK(mgpu_lab_run_step(cat, 0, 1, &env, &v));
    CHECK(v.state == MGPU_STEP_PASSED);
    mgpu_lab_verdict_clear(&v);
    const mgpu_lab_step_info *st = &mgpu_lab_get(cat, 0)->steps[1];
    CHECK(st->state == MGPU_STEP_PASSED && st->attempts == 2 && st->last_run > 0 && st->last_message &&
          strcmp(st->last_message, "colour is right") == 0);
    CHECK(mgpu_lab_get(cat, 0)->passed == 1); /* a reading step is read, not passed */
    CHECK(mgpu_lab_next_step(cat, 0) == 2);

    /* the exercise: unsolved fails, solved passes */
    const char *ex = mgpu_lab_get(cat, 0)->steps[2].exercise;
    CHECK_OK(mgpu_lab_run_step(cat, 0, 2, &env, &v));
    CHECK(v.state == MGPU_STEP_FAILED);
    mgpu_lab_verdict_clear(&v);
    write_file(ex, "return function(a, b) return a + b end\n");
    CHECK_OK(mgpu_lab_run_step(cat, 0, 2, &env, &v));
    CHECK(v.state == MGPU_STEP_PASSED);
    mgpu_lab_verdict_clear(&v);
    /* a list of verdicts reading a measurement of step 3, print() in the log */
    CHECK_OK(mgpu_lab_run_step(cat, 0, 3, &env, &v));
    CHECKF(v.state == MGPU_STEP_PASSED && strcmp(v.message, "all 2 checks passed") == 0, "%s", v.message);
    CHECK(strcmp(s.last_log, "-1:printed") == 0);
    mgpu_lab_verdict_clear(&v);
    CHECK(mgpu_lab_next_step(cat, 0) == 4);

    /* an exercise with a syntax error is a lab error naming the learner's file */
    write_file(ex, "return function(a, b) return a + end\n");
    CHECK_OK(mgpu_lab_run_step(cat, 0, 2, &env, &v));
    CHECKF(v.state == MGPU_STEP_ERROR && strstr(v.message, "sum.lua:1:"), "%s", v.message);
    mgpu_lab_verdict_clear(&v);
    /* bytecode is refused */
    write_file(ex, "\x1bLuaT\x00");
    CHECK_OK(mgpu_lab_run_step(cat, 0, 2, &env, &v));
    CHECK(v.state == MGPU_STEP_ERROR);
    mgpu_lab_verdict_clear(&v);

    /* lab errors: message + traceback; escapes refused; bad verdicts */
    int errors = mgpu_lab_find(cat, "errors");
    CHECK_OK(mgpu_lab_run_step(cat, errors, 0, &env, &v));
    CHECK(v.state == MGPU_STEP_ERROR && strstr(v.message, "the run exploded") && strstr(v.traceback, "boom"));
    mgpu_lab_verdict_clear(&v);
    CHECK_OK(mgpu_lab_run_step(cat, errors, 1, &env, &v));
    CHECK(v.state == MGPU_STEP_ERROR && strstr(v.message, "outside the lab directory"));
    mgpu_lab_verdict_clear(&v);
    CHECK_OK(mgpu_lab_run_step(cat, errors, 2, &env, &v));
    CHECK(v.state == MGPU_STEP_ERROR && strstr(v.message, "returned a number"));
    mgpu_lab_verdict_clear(&v);
    CHECK_OK(mgpu_lab_run_step(cat, errors, 4, &env, &v));
    CHECK(v.state == MGPU_STEP_FAILED && strcmp(v.message, "not yet") == 0);
    mgpu_lab_verdict_clear(&v);
    /* a broken lab: a verdict, not a crash; bad arguments fail */
    CHECK_OK(mgpu_lab_run_step(cat, 2, 0, &env, &v));
    CHECK(v.state == MGPU_STEP_ERROR && strstr(v.traceback, "'}' expected"));
    mgpu_lab_verdict_clear(&v);
    CHECK(mgpu_lab_run_step(cat, 0, 9, &env, &v) == MGPU_ERR_INVALID);
    CHECK(mgpu_lab_run_step(cat, 42, 0, &env, &v) == MGPU_ERR_INVALID);
}

static void test_hints_reset(mgpu_lab_catalog *cat)
{
    const char *h1 = mgpu_lab_hint(cat, 0, 1), *h2 = mgpu_lab_hint(cat, 0, 1), *h3 = mgpu_lab_hint(cat, 0, 1);
    CHECK(h1 && h2 && h3 && strcmp(h1, "first hint") == 0 && strcmp(h2, "second hint") == 0 && strcmp(h3, h1) == 0);
    CHECK(mgpu_lab_get(cat, 0)->steps[1].hints_taken == 3);
    CHECK(mgpu_lab_hint(cat, 0, 2) == NULL);
    const char *ex = mgpu_lab_get(cat, 0)->steps[2].exercise;
    write_file(ex, "-- mine\n");
    CHECK_OK(mgpu_lab_reset(cat, 0));
    char bak[1024], *text = NULL;
    snprintf(bak, sizeof bak, "%s.bak", ex);
    FILE *f = fopen(bak, "r");
    char buf[64] = "";
    if (f) {
        if (!fgets(buf, sizeof buf, f)) buf[0] = '\0';
        fclose(f);
    }
    CHECK(strcmp(buf, "-- mine\n") == 0);
    f = fopen(ex, "r");
    if (f) {
        if (!fgets(buf, sizeof buf, f)) buf[0] = '\0';
        fclose(f);
    }
    CHECK(strstr(buf, "sum.lua - return a function") != NULL);
    (void)text;
    const mgpu_lab_info *b = mgpu_lab_get(cat, 0);
    CHECK(b->passed == 0 && b->steps[1].state == MGPU_STEP_NEW && b->steps[1].questions[0].answer == NULL &&
          b->steps[1].hints_taken == 0);
}

/* Cancellation: a step looping in Lua with lab.progress ends as cancelled
 * soon after the flag is set from another thread. */
static volatile int cancel_flag;
static void *set_cancel(void *arg)
{
    (void)arg;
    struct timespec ts = {0, 300 * 1000000L};
    nanosleep(&ts, NULL);
    cancel_flag = 1;
    return NULL;
}

static void test_cancel(const char *base, const char *state)
{
    char dir[700], path[800];
    snprintf(dir, sizeof dir, "%s/labs", base);
    mkdir(dir, 0700);
    snprintf(path, sizeof path, "%s/07-cancel", dir);
    mkdir(path, 0700);
    snprintf(path, sizeof path, "%s/07-cancel/lab.lua", dir);
    write_file(path, "return { title = 'Cancel', steps = { { id = 'spin', title = 'spin', run = function(lab)\n"
                     "  while true do lab.progress(-1, 'spinning') end end } } }\n");
    /* and a lab that reaches outside: an absolute path, a symbolic link */
    snprintf(path, sizeof path, "%s/08-reach", dir);
    mkdir(path, 0700);
    snprintf(path, sizeof path, "%s/08-reach/outside", dir);
    if (symlink("/etc/hostname", path) != 0) perror("symlink");
    snprintf(path, sizeof path, "%s/08-reach/lab.lua", dir);
    write_file(path, "return { title = 'Reach', steps = {\n"
                     "  { id = 'abs', title = 'abs', run = function(lab) return lab.read('/etc/hostname') end },\n"
                     "  { id = 'link', title = 'link', run = function(lab) return lab.load('outside') end },\n"
                     "  { id = 'own', title = 'own', run = function(lab) return lab.read(lab.dir .. '/lab.lua') end } } }\n");
    mgpu_lab_catalog *cat = NULL;
    CHECK_OK(mgpu_lab_catalog_open(dir, NULL, state, &cat));
    if (!cat) return;
    mgpu_lab_env env = {.cancel = &cancel_flag};
    int reach = mgpu_lab_find(cat, "reach");
    mgpu_lab_verdict v;
    for (int s = 0; s < 3; s++) {
        CHECK_OK(mgpu_lab_run_step(cat, reach, s, &env, &v));
        if (s < 2) CHECKF(v.state == MGPU_STEP_ERROR && strstr(v.message, "is outside the lab directory"), "step %d: %s", s, v.message);
        else CHECKF(v.state == MGPU_STEP_READ, "an absolute path inside the lab: %s", v.message);
        mgpu_lab_verdict_clear(&v);
    }
    pthread_t th;
    pthread_create(&th, NULL, set_cancel, NULL);
    CHECK_OK(mgpu_lab_run_step(cat, mgpu_lab_find(cat, "cancel"), 0, &env, &v));
    pthread_join(th, NULL);
    /* the state says it was cancelled; the time only catches a hang */
    CHECKF(v.state == MGPU_STEP_CANCELLED && v.seconds < 60, "state %d after %.1f s: %s", v.state, v.seconds, v.message);
    mgpu_lab_verdict_clear(&v);
    CHECK(mgpu_lab_get(cat, mgpu_lab_find(cat, "cancel"))->steps[0].state == MGPU_STEP_CANCELLED);
    mgpu_lab_catalog_close(cat);
}

int main(void)
{
    char base[] = "/tmp/mgpu-labcat-XXXXXX";
    if (!mkdtemp(base)) return 1;
    char state[600];
    snprintf(state, sizeof state, "%s/state", base);
    mkdir(state, 0700);
    mgpu_lab_catalog *cat = NULL;
    CHECK_OK(mgpu_lab_catalog_open(LABS, CHECKS, state, &cat));
    if (cat) {
        CHECK(mgpu_lab_catalog_warning(cat) == NULL);
        test_load(cat);
        test_run(cat);
        test_hints_reset(cat);
        mgpu_lab_catalog_close(cat);
    }
    /* progress survives closing: a fresh catalog reads what was saved */
    CHECK_OK(mgpu_lab_catalog_open(LABS, CHECKS, state, &cat));
    if (cat) {
        CHECK(mgpu_lab_get(cat, mgpu_lab_find(cat, "errors"))->steps[4].state == MGPU_STEP_FAILED);
        mgpu_lab_catalog_close(cat);
    }
    test_cancel(base, state);
    /* the state directory: created 0700 under $XDG_STATE_HOME */
    char xdg[700], got[1024];
    snprintf(xdg, sizeof xdg, "%s/xdg", base);
    setenv("XDG_STATE_HOME", xdg, 1);
    CHECK_OK(mgpu_lab_state_dir(got, sizeof got));
    struct stat sb;
    CHECK(strstr(got, "/xdg/mgpulab") && stat(got, &sb) == 0 && (sb.st_mode & 0777) == 0700);
    setenv("XDG_STATE_HOME", "relative/path", 1);
    setenv("HOME", xdg, 1);
    CHECK_OK(mgpu_lab_state_dir(got, sizeof got));
    CHECK(strstr(got, "/xdg/.local/state/mgpulab") != NULL);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", base);
    return tap_done();
}
