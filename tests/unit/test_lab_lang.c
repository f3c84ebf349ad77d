/* test_lab_lang.c - a lab's two languages in-process (engine/lab/lab_lang.c):
 * the *_local fields follow the current language (mgpu_lab_catalog_set_lang,
 * or mgpu_lang_set alone, seen at the next mgpu_lab_get), a missing Korean
 * text is the English marked, L() formats the Korean entry or the marked
 * English, and the step's verdict is in the language it ran in. */
#include "mgpu/lab.h"
#include "mgpu/lang.h"
#include "tap.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

int main(void)
{
    char root[] = "/tmp/mgpu-lab-lang-XXXXXX";
    if (!mkdtemp(root)) return 1;
    char p[512], labs[300], state[300];
    snprintf(labs, sizeof labs, "%s/labs", root);
    snprintf(state, sizeof state, "%s/state", root);
    mkdir(labs, 0700);
    mkdir(state, 0700);
    snprintf(p, sizeof p, "%s/01-t", labs), mkdir(p, 0700);
    snprintf(p, sizeof p, "%s/01-t/steps", labs), mkdir(p, 0700);
    snprintf(p, sizeof p, "%s/01-t/lang", labs), mkdir(p, 0700);
    snprintf(p, sizeof p, "%s/01-t/lab.lua", labs);
    write_file(p, "return { title = 'Test', summary = 'Untranslated', steps = {\n"
                  "  { id = 'a', title = 'Step A', text = 'steps/01-a.md', hints = { 'Hint one' },\n"
                  "    check = function(lab) return { ok = false, msg = L('saw %d of %s', 3, 'x'),\n"
                  "      saw = L('nothing'), wanted = L('%d%% off', 5), where = '' } end },\n"
                  "  { id = 'b', title = 'Step B', text = 'steps/02-b.md' } } }\n");
    snprintf(p, sizeof p, "%s/01-t/steps/01-a.md", labs), write_file(p, "# A\n");
    snprintf(p, sizeof p, "%s/01-t/steps/01-a.ko.md", labs), write_file(p, "# 가\n");
    snprintf(p, sizeof p, "%s/01-t/steps/02-b.md", labs), write_file(p, "# B\n");
    snprintf(p, sizeof p, "%s/01-t/lang/ko.lua", labs);
    write_file(p, "return { ['Test'] = '시험', ['Step A'] = '단계 가', ['Hint one'] = '첫 hint',\n"
                  "  ['saw %d of %s'] = '%s 중 %d 를 보았다', ['%d%% off'] = '%d%% 어긋남' }\n");

    mgpu_lang_set(MGPU_LANG_EN);
    mgpu_lab_catalog *cat = NULL;
    CHECK_OK(mgpu_lab_catalog_open(labs, NULL, state, &cat));
    if (!cat) return tap_done();
    const mgpu_lab_info *l = mgpu_lab_get(cat, 0);
    CHECKF(l && !l->load_error, "%s", l && l->load_error ? l->load_error : "");
    if (!l || l->load_error) return tap_done();
    CHECK(strcmp(l->title_local, "Test") == 0 && strcmp(l->steps[0].title_local, "Step A") == 0);
    CHECK(strcmp(l->steps[0].text_path_local, l->steps[0].text_path) == 0 && !l->steps[0].text_missing);

    mgpu_lab_catalog_set_lang(cat, MGPU_LANG_KO);
    CHECK(mgpu_lang_get() == MGPU_LANG_KO);
    CHECK(strcmp(l->title, "Test") == 0 && strcmp(l->title_local, "시험") == 0);
    CHECK(strcmp(l->summary_local, MGPU_LANG_MISSING_MARK "Untranslated") == 0);
    CHECK(strcmp(l->steps[0].title_local, "단계 가") == 0 && strcmp(l->steps[0].hints_local[0], "첫 hint") == 0);
    CHECK(strstr(l->steps[0].text_path_local, "/steps/01-a.ko.md") && !l->steps[0].text_missing);
    CHECK(strcmp(l->steps[1].title_local, MGPU_LANG_MISSING_MARK "Step B") == 0);
    CHECK(strcmp(l->steps[1].text_path_local, l->steps[1].text_path) == 0 && l->steps[1].text_missing);
    const char *h = mgpu_lab_hint(cat, 0, 0);
    CHECK(h && strcmp(h, "첫 hint") == 0);

    /* L(): an entry whose placeholders do not take the arguments is the
     * English marked; a missing one too; %% survives both ways */
    mgpu_lab_env env;
    memset(&env, 0, sizeof env);
    mgpu_lab_verdict v;
    CHECK_OK(mgpu_lab_run_step(cat, 0, 0, &env, &v));
    CHECKF(strcmp(v.message, MGPU_LANG_MISSING_MARK "saw 3 of x") == 0, "%s", v.message);
    CHECKF(strcmp(v.saw, MGPU_LANG_MISSING_MARK "nothing") == 0, "%s", v.saw);
    CHECKF(strcmp(v.wanted, "5% 어긋남") == 0, "%s", v.wanted);
    mgpu_lab_verdict_clear(&v);

    /* mgpu_lang_set alone: the next mgpu_lab_get follows */
    mgpu_lang_set(MGPU_LANG_EN);
    l = mgpu_lab_get(cat, 0);
    CHECK(strcmp(l->title_local, "Test") == 0 && strcmp(l->steps[1].title_local, "Step B") == 0);
    CHECK(!l->steps[1].text_missing && strcmp(l->steps[0].hints_local[0], "Hint one") == 0);
    CHECK_OK(mgpu_lab_run_step(cat, 0, 0, &env, &v));
    CHECKF(strcmp(v.message, "saw 3 of x") == 0 && strcmp(v.wanted, "5% off") == 0, "%s / %s", v.message, v.wanted);
    mgpu_lab_verdict_clear(&v);
    mgpu_lab_catalog_close(cat);

    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", root);
    return tap_done();
}
