/* test_published.c - the collective model against published measurements:
 * every row of tests/data/published.tsv (source, machine, collective, size,
 * ranks, NVLS on/off, NCCL_ALGO, busbw) within 10 %. The rows cite their
 * sources in the file; a row the model misses names itself here. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mgpu/collmodel.h"
#include "tap.h"

static int coll_of(const char *name, mgpu_coll *out)
{
    static const struct { const char *n; mgpu_coll c; } map[] = {
        {"all_reduce", MGPU_COLL_ALL_REDUCE}, {"all_gather", MGPU_COLL_ALL_GATHER},
        {"reduce_scatter", MGPU_COLL_REDUCE_SCATTER}, {"broadcast", MGPU_COLL_BROADCAST},
        {"reduce", MGPU_COLL_REDUCE}, {"alltoall", MGPU_COLL_ALLTOALL},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (!strcmp(name, map[i].n)) return *out = map[i].c, 1;
    return 0;
}

static int algo_of(const char *name)
{
    for (int a = 0; a < MGPU_ALGO_COUNT; a++)
        if (!strcmp(name, mgpu_coll_algo_name((mgpu_coll_algo)a))) return a;
    return -2;
}

int main(void)
{
    const char *path = MGPU_SOURCE_DIR "/tests/data/published.tsv";
    FILE *f = fopen(path, "r");
    CHECKF(f != NULL, "cannot open %s", path);
    if (!f) return tap_done();
    char line[1024];
    int rows = 0, lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        if (line[0] == '#' || line[0] == '\n' || line[0] == '\0') continue;
        char src[64], machine[64], coll[32], nvls[8], algo[16];
        unsigned long long bytes;
        int ranks;
        double busbw;
        if (sscanf(line, "%63s\t%63s\t%31s\t%llu\t%d\t%7s\t%15s\t%lf", src, machine, coll, &bytes, &ranks, nvls, algo,
                   &busbw) != 8) {
            CHECKF(0, "%s:%d: not 8 tab-separated fields", path, lineno);
            continue;
        }
        mgpu_coll op = MGPU_COLL_ALL_REDUCE;
        int a = strcmp(algo, "-") ? algo_of(algo) : -1;
        CHECKF(coll_of(coll, &op) && a != -2 && (!strcmp(nvls, "on") || !strcmp(nvls, "off")),
               "%s:%d: collective '%s', algo '%s' or nvls '%s' unknown", path, lineno, coll, algo, nvls);
        mgpu_topo *t = NULL;
        CHECK_OK(mgpu_topo_preset(machine, &t));
        if (!t) continue;
        mgpu_coll_tuning tun = {a, -1};
        tun.nvls = strcmp(nvls, "off") ? 0 : -1;
        mgpu_coll_prediction p;
        CHECK_OK(mgpu_coll_predict_call(t, op, (size_t)bytes, ranks, NULL, &tun, 0, &p));
        double err = (p.busbw_gbs - busbw) / busbw;
        printf("# %-15s %-12s %-14s %11llu B %2d ranks NVLS %-3s: model %6.1f (%s/%s), published %5.1f, %+5.1f %%\n", src,
               machine, coll, bytes, ranks, nvls, p.busbw_gbs, p.algo_name, p.proto_name, busbw, 100 * err);
        CHECKF(fabs(err) <= 0.10, "%s:%d (%s, %s %s %llu B on %d ranks, NVLS %s): model %.1f GB/s, published %.1f",
               path, lineno, src, machine, coll, bytes, ranks, nvls, p.busbw_gbs, busbw);
        mgpu_topo_free(t);
        rows++;
    }
    fclose(f);
    CHECKF(rows >= 20, "only %d rows in %s", rows, path);
    return tap_done();
}
