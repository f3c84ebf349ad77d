/* lang.c - the current language and its choice (mgpu/lang.h). */
#include "mgpu/lang.h"
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static atomic_int current_lang = MGPU_LANG_EN;

mgpu_lang mgpu_lang_get(void)
{
    return (mgpu_lang)atomic_load(&current_lang);
}

void mgpu_lang_set(mgpu_lang lang)
{
    atomic_store(&current_lang, lang == MGPU_LANG_KO ? MGPU_LANG_KO : MGPU_LANG_EN);
}

const char *mgpu_lang_name(mgpu_lang lang)
{
    return lang == MGPU_LANG_KO ? "ko" : "en";
}

/* Length of the language part of "ko_KR.UTF-8" / "ko-KR" / "ko@euro": up to
 * the first '_', '-', '.' or '@'. */
static size_t lang_part(const char *s)
{
    return strcspn(s, "_-.@");
}

int mgpu_lang_parse(const char *s, mgpu_lang *out)
{
    if (!s)
        return -1;
    size_t n = lang_part(s);
    if (n == 2 && strncasecmp(s, "ko", 2) == 0) {
        *out = MGPU_LANG_KO;
        return 0;
    }
    if (n == 2 && strncasecmp(s, "en", 2) == 0) {
        *out = MGPU_LANG_EN;
        return 0;
    }
    return -1;
}

mgpu_lang mgpu_lang_of_locale(const char *locale)
{
    if (locale && lang_part(locale) == 2 && strncmp(locale, "ko", 2) == 0)
        return MGPU_LANG_KO;
    return MGPU_LANG_EN;
}

mgpu_lang mgpu_lang_from_env(void)
{
    static const char *const vars[] = {"LC_ALL", "LC_MESSAGES", "LANG"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v)
            return mgpu_lang_of_locale(v);
    }
    return MGPU_LANG_EN;
}

int mgpu_lang_resolve(const char *flag, const char *pin)
{
    mgpu_lang lang;
    if (flag) {
        if (mgpu_lang_parse(flag, &lang) != 0)
            return -1;
    } else if (pin && *pin) {
        if (mgpu_lang_parse(pin, &lang) != 0)
            return -1;
    } else {
        lang = mgpu_lang_from_env();
    }
    mgpu_lang_set(lang);
    return 0;
}

const char *mgpu_tr_lang(const mgpu_tr_entry *tab, size_t n, const char *en, mgpu_lang lang)
{
    if (lang != MGPU_LANG_KO || !en)
        return en;
    for (size_t i = 0; i < n; i++)
        if (tab[i].en && strcmp(tab[i].en, en) == 0)
            return tab[i].ko ? tab[i].ko : en;
    return en;
}

const char *mgpu_tr_in(const mgpu_tr_entry *tab, size_t n, const char *en)
{
    return mgpu_tr_lang(tab, n, en, mgpu_lang_get());
}
