/* fuzz_topo_xml_driver.c - a deterministic mutation fuzzer for the topology
 * XML importer that needs no clang: seeds are the files in the directories
 * given on the command line plus every preset's export; each round applies
 * 1-4 mutations (bit flips, byte sets, truncation, splices, duplicated tags
 * and attributes, deep nesting, huge values, hostile tokens) and runs the
 * one-input check. Time budget: MGPU_FUZZ_SECONDS (default 20; 0 = seeds
 * only); seed: MGPU_FUZZ_SEED. A failing input is saved before aborting. */
#include "fuzz_topo_xml.h"
#include "mgpu/topo.h"
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define FUZZ_MAX_INPUT (4u << 20)

typedef struct buf {
    unsigned char *p;
    size_t n;
} buf;

static buf seeds[256];
static int nseeds;
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
    uint64_t x = rng_state;
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    return rng_state = x;
}
static size_t below(size_t n) { return n ? (size_t)(rnd() % n) : 0; }

static void add_seed(const void *p, size_t n)
{
    if (nseeds == (int)(sizeof seeds / sizeof seeds[0]) || n > FUZZ_MAX_INPUT) return;
    seeds[nseeds].p = malloc(n + 1);
    if (!seeds[nseeds].p) return;
    memcpy(seeds[nseeds].p, p, n);
    seeds[nseeds++].n = n;
}

static void load_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "fuzz: cannot open seed directory %s\n", dir);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "rb");
        if (!f) continue;
        static unsigned char tmp[FUZZ_MAX_INPUT];
        size_t n = fread(tmp, 1, sizeof tmp, f);
        fclose(f);
        add_seed(tmp, n);
    }
    closedir(d);
}

static void load_presets(void)
{
    for (const char *const *n = mgpu_topo_preset_names(); *n; n++) {
        mgpu_topo *t = NULL;
        if (mgpu_topo_preset(*n, &t) != MGPU_OK) continue;
        char *x = NULL;
        size_t l = 0;
        FILE *f = open_memstream(&x, &l);
        if (f) {
            mgpu_topo_write_xml(t, f);
            fclose(f);
            add_seed(x, l);
        }
        free(x);
        mgpu_topo_free(t);
    }
}

/*--- Mutations --------------------------------------------------------*/

static const char *const tokens[] = {
    "<!DOCTYPE x [<!ENTITY a \"bb\">]>", "&a;", "&amp;", "&#0;", "&#x10FFFF;", "<![CDATA[x]]>", "<?pi x?>",
    "<!-- c -->", "-1", "99999999999999999999", "0x", "0x068000", "ffffffff,", "fffffff:ff:ff.0", "\"", "'",
    "<", ">", "/>", "</pci>", "<pci>", "<gpu dev=\"0\"/>", "<nvlink target=\"0000:05:00.0\" count=\"18\" tclass=\"0x068000\"/>",
    "<nic><net name=\"x\" speed=\"1\"/></nic>", "<system version=\"1\">", "</system>", "<mgpulab-cluster version=\"1\">",
    "\xff\xfe", "\xc3\x28", "\0", " x=\"1\"", "32.0 GT/s PCIe", "NaN", "1e308", "\t\r\n",
};

static int insert(buf *b, size_t at, const void *src, size_t n)
{
    if (b->n + n > FUZZ_MAX_INPUT) return 0;
    unsigned char *p = realloc(b->p, b->n + n + 1);
    if (!p) return 0;
    memmove(p + at + n, p + at, b->n - at);
    memcpy(p + at, src, n);
    b->p = p;
    b->n += n;
    return 1;
}

static void erase(buf *b, size_t at, size_t n)
{
    if (at + n > b->n) n = b->n - at;
    memmove(b->p + at, b->p + at + n, b->n - at - n);
    b->n -= n;
}

static long find_char(const buf *b, size_t from, unsigned char c)
{
    for (size_t i = from; i < b->n; i++)
        if (b->p[i] == c) return (long)i;
    return -1;
}

static void mutate(buf *b)
{
    size_t at = below(b->n + 1);
    switch (below(12)) {
    case 0: /* bit flips */
        for (int k = 0, m = 1 + (int)below(8); k < m && b->n; k++) b->p[below(b->n)] ^= (unsigned char)(1u << below(8));
        break;
    case 1: /* a byte set to something a parser cares about */
        if (b->n) b->p[below(b->n)] = (unsigned char)"<>/\"'= &\n\0\xff" "09x-:,"[below(17)];
        break;
    case 2: /* truncation */
        b->n = at;
        break;
    case 3: { /* splice: my prefix, another seed's suffix */
        const buf *o = &seeds[below((size_t)nseeds)];
        size_t from = below(o->n + 1);
        b->n = at;
        insert(b, b->n, o->p + from, o->n - from);
        break;
    }
    case 4: { /* duplicate a tag */
        long s = find_char(b, at, '<'), e = s >= 0 ? find_char(b, (size_t)s, '>') : -1;
        if (e > s && e - s < 4096) {
            unsigned char tmp[4096];
            memcpy(tmp, b->p + s, (size_t)(e - s + 1));
            insert(b, (size_t)e + 1, tmp, (size_t)(e - s + 1));
        }
        break;
    }
    case 5: { /* duplicate an attribute (key="value") inside its tag */
        long q1 = find_char(b, at, '"'), q2 = q1 >= 0 ? find_char(b, (size_t)q1 + 1, '"') : -1;
        long s = q1;
        while (s > 0 && b->p[s - 1] != ' ' && q1 - s < 64) s--;
        if (q2 > s && s > 0 && q2 - s < 512) {
            unsigned char tmp[520];
            tmp[0] = ' ';
            memcpy(tmp + 1, b->p + s, (size_t)(q2 - s + 1));
            insert(b, (size_t)q2 + 1, tmp, (size_t)(q2 - s + 2));
        }
        break;
    }
    case 6: { /* deep nesting right after the first tag */
        long e = find_char(b, 0, '>');
        int depth = 1 + (int)below(below(2) ? 80 : 2000);
        if (e < 0) break;
        size_t sz = (size_t)depth * 6;
        char *open = malloc(sz + 1), *close = malloc(sz + 2);
        if (open && close) {
            for (int k = 0; k < depth; k++) memcpy(open + 5 * k, "<pci>", 5), memcpy(close + 6 * k, "</pci>", 6);
            if (insert(b, (size_t)e + 1, open, (size_t)depth * 5)) insert(b, (size_t)e + 1 + (size_t)depth * 5, close, (size_t)depth * 6);
        }
        free(open);
        free(close);
        break;
    }
    case 7: { /* a huge value */
        long q = find_char(b, at, '"');
        size_t len = below(2) ? 200 + below(100) : below(1u << 20);
        char *v = malloc(len + 1);
        if (q >= 0 && v) {
            memset(v, below(2) ? '9' : 'A', len);
            insert(b, (size_t)q + 1, v, len);
        }
        free(v);
        break;
    }
    case 8: { /* a hostile or meaningful token */
        const char *tok = tokens[below(sizeof tokens / sizeof tokens[0])];
        insert(b, at, tok, tok[0] ? strlen(tok) : 1);
        break;
    }
    case 9: { /* a number replaced */
        static const char *const nums[] = {"0", "1", "-1", "18", "255", "65536", "2147483648", "0x7fffffff", "08", "1.5", ""};
        long s = -1;
        for (size_t i = at; i < b->n; i++)
            if (b->p[i] >= '0' && b->p[i] <= '9') { s = (long)i; break; }
        if (s < 0) break;
        size_t e = (size_t)s;
        while (e < b->n && ((b->p[e] >= '0' && b->p[e] <= '9') || b->p[e] == 'x')) e++;
        erase(b, (size_t)s, e - (size_t)s);
        const char *n = nums[below(sizeof nums / sizeof nums[0])];
        insert(b, (size_t)s, n, strlen(n));
        break;
    }
    case 10: /* delete a range */
        erase(b, at, below(256));
        break;
    default: { /* duplicate a block of lines */
        long s = find_char(b, at, '\n'), e = s >= 0 ? find_char(b, (size_t)s + 1 + below(400), '\n') : -1;
        if (e > s && e - s < 1 << 16) {
            unsigned char *tmp = malloc((size_t)(e - s));
            if (tmp) {
                memcpy(tmp, b->p + s, (size_t)(e - s));
                insert(b, (size_t)e, tmp, (size_t)(e - s));
                free(tmp);
            }
        }
        break;
    }
    }
}

/*--- Main -------------------------------------------------------------*/

static buf current;

static void on_abort(int sig)
{
    (void)sig;
    FILE *f = fopen("fuzz_topo_xml_crash.xml", "wb");
    if (f) {
        fwrite(current.p, 1, current.n, f);
        fclose(f);
    }
    static const char msg[] = "fuzz: failing input saved as fuzz_topo_xml_crash.xml\n";
    if (write(2, msg, sizeof msg - 1) < 0) {}
    signal(SIGABRT, SIG_DFL);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    const char *s = getenv("MGPU_FUZZ_SECONDS"), *sd = getenv("MGPU_FUZZ_SEED");
    double budget = s ? atof(s) : 20.0;
    if (sd) rng_state = strtoull(sd, NULL, 0) | 1;
    for (int i = 1; i < argc; i++) load_dir(argv[i]);
    load_presets();
    if (nseeds < 2) {
        fprintf(stderr, "fuzz: only %d seeds; give the corpus directories (tests/data/topo tests/fuzz/corpus)\n", nseeds);
        return 1;
    }
    signal(SIGABRT, on_abort);
    long execs = 0, loaded = 0;
    for (int i = 0; i < nseeds; i++) {
        current = seeds[i];
        loaded += mgpu_fuzz_topo_xml_one(current.p, current.n);
        execs++;
    }
    double t0 = now(), t = t0;
    current.p = NULL;
    while (t - t0 < budget) {
        const buf *seed = &seeds[below((size_t)nseeds)];
        free(current.p);
        current.p = malloc(seed->n + 1);
        if (!current.p) return 1;
        memcpy(current.p, seed->p, seed->n);
        current.n = seed->n;
        for (int m = 1 + (int)below(4); m > 0; m--) mutate(&current);
        loaded += mgpu_fuzz_topo_xml_one(current.p, current.n);
        if (++execs % 64 == 0) t = now();
    }
    free(current.p);
    printf("fuzz.topo_xml: %ld inputs in %.1f s from %d seeds: %ld loaded and round-tripped, %ld refused with "
           "a parse error, 0 crashes\n", execs, now() - t0, nseeds, loaded, execs - loaded);
    for (int i = 0; i < nseeds; i++) free(seeds[i].p);
    return 0;
}
