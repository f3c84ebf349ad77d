/* test_core_lang.c - the language's choice (flag > pin > LC_ALL > LC_MESSAGES
 * > LANG > en) and the C layers' string tables (mgpu/lang.h). */
#include "mgpu/lang.h"
#include "tap.h"
#include <stdlib.h>
#include <string.h>

static void env(const char *all, const char *msgs, const char *lang)
{
    const char *names[] = {"LC_ALL", "LC_MESSAGES", "LANG"};
    const char *vals[] = {all, msgs, lang};
    for (int i = 0; i < 3; i++) {
        if (vals[i])
            setenv(names[i], vals[i], 1);
        else
            unsetenv(names[i]);
    }
}

int main(void)
{
    mgpu_lang l = MGPU_LANG_EN;
    CHECK(mgpu_lang_get() == MGPU_LANG_EN);
    CHECK(mgpu_lang_parse("ko", &l) == 0 && l == MGPU_LANG_KO);
    CHECK(mgpu_lang_parse("EN", &l) == 0 && l == MGPU_LANG_EN);
    CHECK(mgpu_lang_parse("ko_KR.UTF-8", &l) == 0 && l == MGPU_LANG_KO);
    CHECK(mgpu_lang_parse("fr", &l) == -1);
    CHECK(mgpu_lang_parse("", &l) == -1);
    CHECK(mgpu_lang_parse("kor", &l) == -1);
    CHECK(mgpu_lang_parse(NULL, &l) == -1);

    CHECK(mgpu_lang_of_locale("ko_KR.UTF-8") == MGPU_LANG_KO);
    CHECK(mgpu_lang_of_locale("ko.UTF-8") == MGPU_LANG_KO);
    CHECK(mgpu_lang_of_locale("ko") == MGPU_LANG_KO);
    CHECK(mgpu_lang_of_locale("kok_IN") == MGPU_LANG_EN); /* Konkani is not Korean */
    CHECK(mgpu_lang_of_locale("C") == MGPU_LANG_EN);
    CHECK(mgpu_lang_of_locale("C.UTF-8") == MGPU_LANG_EN);
    CHECK(mgpu_lang_of_locale("en_US.UTF-8") == MGPU_LANG_EN);

    env(NULL, NULL, "ko_KR.UTF-8");
    CHECK(mgpu_lang_from_env() == MGPU_LANG_KO);
    env(NULL, "C", "ko_KR.UTF-8"); /* LC_MESSAGES before LANG */
    CHECK(mgpu_lang_from_env() == MGPU_LANG_EN);
    env("ko_KR.UTF-8", "C", "C"); /* LC_ALL before both */
    CHECK(mgpu_lang_from_env() == MGPU_LANG_KO);
    env("", "", "ko_KR.UTF-8"); /* empty is unset */
    CHECK(mgpu_lang_from_env() == MGPU_LANG_KO);
    env(NULL, NULL, NULL);
    CHECK(mgpu_lang_from_env() == MGPU_LANG_EN);

    env(NULL, NULL, "ko_KR.UTF-8");
    CHECK(mgpu_lang_resolve(NULL, NULL) == 0 && mgpu_lang_get() == MGPU_LANG_KO);
    CHECK(mgpu_lang_resolve(NULL, "en") == 0 && mgpu_lang_get() == MGPU_LANG_EN); /* the pin beats LANG */
    CHECK(mgpu_lang_resolve("ko", "en") == 0 && mgpu_lang_get() == MGPU_LANG_KO);   /* the flag beats the pin */
    CHECK(mgpu_lang_resolve(NULL, "") == 0 && mgpu_lang_get() == MGPU_LANG_KO);
    CHECK(mgpu_lang_resolve("de", NULL) == -1 && mgpu_lang_get() == MGPU_LANG_KO); /* refused: unchanged */
    CHECK(mgpu_lang_resolve(NULL, "xx") == -1);

    static const mgpu_tr_entry tab[] = {
        {"passed", "통과"},
        {"%d of %d steps", "%d/%d 단계"},
        {"not yet", NULL},
    };
    size_t n = sizeof tab / sizeof tab[0];
    mgpu_lang_set(MGPU_LANG_EN);
    CHECK(strcmp(mgpu_tr_in(tab, n, "passed"), "passed") == 0);
    mgpu_lang_set(MGPU_LANG_KO);
    CHECK(strcmp(mgpu_tr_in(tab, n, "passed"), "통과") == 0);
    CHECK(strcmp(mgpu_tr_in(tab, n, "%d of %d steps"), "%d/%d 단계") == 0);
    CHECK(strcmp(mgpu_tr_in(tab, n, "not yet"), "not yet") == 0);
    CHECK(strcmp(mgpu_tr_in(tab, n, "absent"), "absent") == 0);
    CHECK(strcmp(mgpu_tr_in(NULL, 0, "absent"), "absent") == 0);
    CHECK(strcmp(mgpu_tr_lang(tab, n, "passed", MGPU_LANG_EN), "passed") == 0);
    CHECK(strcmp(mgpu_lang_name(MGPU_LANG_KO), "ko") == 0 && strcmp(mgpu_lang_name(MGPU_LANG_EN), "en") == 0);
    return tap_done();
}
