/* conv_regs.c - the sim's conv2d occupancy table (engine/dev/sim/sim_conv_regs.h)
 * against ptxas: reads `nvcc -Xptxas -v` output of cuda_nn_conv_igemm.cu
 * and cuda_nn_conv_halo.cu (conv_regs.sh compiles them), finds each kernel instance's registers and
 * shared memory, and compares the blocks an SM the kernel holds on an H100
 * with the blocks an SM the sim's price gives it. Exit 1 when any differ,
 * or when a table entry the price uses has no kernel (the parse broke, or
 * the instance is gone); 2 on bad input.
 *
 * The kernel's blocks an SM are sm_90's theoretical occupancy: registers in
 * 8-register steps of 65536 an SM (sim_conv_blocks_by_regs, the price's
 * own), shared memory plus 1 KB a block of 228 KB an SM (the driver sizes
 * the carveout so shared memory does not bind first), 2048 threads. Exact
 * register equality is not asked: a count that moves within an occupancy
 * step leaves the price as it was, and is only listed. */
#include "dev/sim/sim_conv_regs.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SM_SMEM (228 * 1024)
#define BLOCK_SMEM_RESERVED 1024
#define SM_THREADS 2048
#define THREADS 256

static const char *const MODE_NAME[3] = {"forward", "data grad", "weight grad"};
static const char *const COL_NAME[3] = {"tap-major", "general 3x3", "general other"};

static int kernel_blocks(int regs, int smem)
{
    int b = sim_conv_blocks_by_regs(regs), by_smem = SM_SMEM / (smem + BLOCK_SMEM_RESERVED);
    if (by_smem < b) b = by_smem;
    if (SM_THREADS / THREADS < b) b = SM_THREADS / THREADS;
    return b;
}

static int bm_index(int bm) { return bm == 16 ? 0 : bm == 32 ? 1 : bm == 64 ? 2 : -1; }

static int failures, moved, igemm_seen, halo_seen, wgrad_seen;
static FILE *fails; /* the failures' sentences, printed after the table */
static char *fails_text;
static size_t fails_len;
static int seen_igemm[2][3][3][3], seen_narrow[3][3], seen_deep[2];

/* One kernel against its entry: table_regs the table's count, or -1 where
 * the sim holds only the blocks (the halo kernels). */
static void report(const char *kernel, const char *entry, int regs, int smem, int table_regs, int want)
{
    int have = kernel_blocks(regs, smem), regs_moved = table_regs >= 0 && regs != table_regs;
    const char *mark = have != want ? "DIFFERS" : regs_moved ? "regs moved, same blocks" : "ok";
    char treg[16] = "   -";
    if (table_regs >= 0) snprintf(treg, sizeof treg, "%4d", table_regs);
    printf("  %-46s %4d %6d %3d | %s %3d  %s\n", kernel, regs, smem, have, treg, want, mark);
    if (regs_moved && have == want) moved++;
    if (have == want) return;
    failures++;
    char says[64] = " says";
    if (table_regs >= 0) snprintf(says, sizeof says, " says %d registers:", table_regs);
    fprintf(fails,
            "FAIL %s: ptxas gives it %d registers (%d bytes of shared memory): %d block%s an SM on an H100; the sim's "
            "table (engine/dev/sim/sim_conv_regs.h, %s)%s %d block%s an SM. The sim prices this kernel at %d where "
            "it runs %d: put ptxas's figure in the table, then refit the conv price (scripts/fit-conv-sim.py).\n",
            kernel, regs, smem, have, have == 1 ? "" : "s", entry, says, want, want == 1 ? "" : "s", want, have);
}

/* k_igemm<T, MODE, RT, BM, BK, TAP, BNN, TM>, mangled: _Z7k_igemmI f|t Li..E ... Lb.E Li..E Li..E E...
 * (TM the thread tile's rows: 4, or 8 for the f32 forward's deep tile) */
static void igemm(const char *mangled, int regs, int smem)
{
    char t;
    int mode, rt, bm, bk, tap, bnn, tm, end = 0;
    /* %n past the closing EE: sscanf does not report a literal that fails
     * after its last conversion, so without it a name with one more
     * template argument passes (the 7-argument pattern read each TM 8
     * instance as its TM 4 entry) */
    if (sscanf(mangled, "_Z7k_igemmI%cLi%dELi%dELi%dELi%dELb%dELi%dELi%dEE%n", &t, &mode, &rt, &bm, &bk, &tap, &bnn, &tm,
               &end) != 8 ||
        !end || (t != 'f' && t != 't') || mode < 0 || mode > 2 || bm_index(bm) < 0 ||
        (bnn && (t != 'f' || mode != 2 || bm_index(bnn) < 0)) || (tm != 4 && tm != 8) ||
        (tm == 8 && (t != 'f' || mode != 0 || bm != 64 || bnn))) {
        fprintf(fails, "FAIL a k_igemm instance this check cannot map to the table: %s\n", mangled);
        failures++;
        return;
    }
    int bf16 = t == 't', bmi = bm_index(bm), col = tap ? 0 : rt == 3 ? 1 : 2, deep = tm == 8;
    char kernel[96], entry[96];
    snprintf(kernel, sizeof kernel, "k_igemm<%s, %d, %d, %d, %d, %s, %d, %d>", bf16 ? "uint16_t" : "float", mode, rt, bm,
             bk, tap ? "true" : "false", bnn, tm);
    if (deep) {
        snprintf(entry, sizeof entry, "sim_conv_regs_deep[%s]", tap ? "tap-major" : "general");
        seen_deep[tap ? 0 : 1] = 1;
    } else if (bnn) {
        snprintf(entry, sizeof entry, "sim_conv_regs_narrow[bm %d][bn %d]", bm, bnn);
        seen_narrow[bmi][bm_index(bnn)] = 1;
    } else {
        snprintf(entry, sizeof entry, "sim_conv_regs_igemm[%s][%s][bm %d][%s]", bf16 ? "bf16" : "f32", MODE_NAME[mode], bm,
                 COL_NAME[col]);
        seen_igemm[bf16][mode][bmi][col] = 1;
    }
    int table = sim_conv_table_regs(mode, bf16, bm, tap, rt == 3, bnn, deep);
    report(kernel, entry, regs, smem, table, sim_conv_blocks(table, bm, bnn, deep));
    igemm_seen++;
}

/* One kernel's ptxas lines: its name, then "Used N registers, ..., M bytes smem". */
static void kernel(const char *mangled, int regs, int smem)
{
    int mode, bm;
    if (strncmp(mangled, "_Z7k_igemmI", 11) == 0) {
        igemm(mangled, regs, smem);
    } else if (sscanf(mangled, "_Z6k_haloILi%dELi%dEE", &mode, &bm) == 2) {
        char name[64];
        snprintf(name, sizeof name, "k_halo<%d, %d>", mode, bm);
        report(name, "SIM_CONV_HALO_BLOCKS", regs, smem, -1, SIM_CONV_HALO_BLOCKS);
        halo_seen++;
    } else if (strncmp(mangled, "_Z12k_halo_wgradI", 17) == 0 || strncmp(mangled, "_Z12k_halo_wgradP", 17) == 0) {
        /* k_halo_wgrad<LGW> (62265c9; before it a plain function); not its combine, k_halo_wgrad_combine */
        int lgw = -1;
        char name[64] = "k_halo_wgrad";
        if (sscanf(mangled, "_Z12k_halo_wgradILi%dEE", &lgw) == 1) snprintf(name, sizeof name, "k_halo_wgrad<%d>", lgw);
        report(name, "SIM_CONV_HALO_WGRAD_BLOCKS", regs, smem, -1, SIM_CONV_HALO_WGRAD_BLOCKS);
        wgrad_seen++;
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: sim_conv_regs PTXAS_OUTPUT (nvcc -Xptxas -v of cuda_nn_conv_igemm.cu and _halo.cu)\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "r");
    if (!f) {
        perror(argv[1]);
        return 2;
    }
    fails = open_memstream(&fails_text, &fails_len);
    if (!fails) {
        perror("open_memstream");
        return 2;
    }
    printf("sim.conv_regs: blocks an SM, the kernel's (ptxas's registers and shared memory, sm_90) | the sim's "
           "(its table's registers, engine/dev/sim/sim_conv_regs.h)\n");
    printf("  %-46s %4s %6s %3s | %4s %3s\n", "kernel", "regs", "smem", "blk", "regs", "blk");
    char line[4096], name[1024] = "";
    int sm90 = 0;
    while (fgets(line, sizeof line, f)) {
        char *p = strstr(line, "Compiling entry function '");
        if (p) { /* ... function '_Z...' for 'sm_90' */
            p += strlen("Compiling entry function '");
            size_t n = strcspn(p, "'");
            sm90 = strstr(p + n, "for 'sm_90'") != NULL;
            snprintf(name, sizeof name, "%.*s", (int)(n < sizeof name ? n : sizeof name - 1), p);
            continue;
        }
        int regs;
        if (*name && sm90 && (p = strstr(line, "Used ")) && sscanf(p, "Used %d registers", &regs) == 1) {
            char *s = strstr(line, " bytes smem");
            int smem = 0;
            if (s) { /* the number before it */
                while (s > line && s[-1] >= '0' && s[-1] <= '9') s--;
                smem = atoi(s);
            }
            kernel(name, regs, smem);
            *name = 0;
        }
    }
    fclose(f);

    /* every entry the price can reach has a kernel: the weight grad is never tap-major, bf16 has no narrow tile */
    for (int b = 0; b < 2; b++)
        for (int m = 0; m < 3; m++)
            for (int i = 0; i < 3; i++)
                for (int c = m == 2 ? 1 : 0; c < 3; c++)
                    if (!seen_igemm[b][m][i][c]) {
                        fprintf(fails, "FAIL no k_igemm instance in ptxas's output for sim_conv_regs_igemm[%s][%s][bm %d][%s]\n",
                                b ? "bf16" : "f32", MODE_NAME[m], 16 << i, COL_NAME[c]);
                        failures++;
                    }
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            if (!seen_narrow[i][j]) {
                fprintf(fails, "FAIL no k_igemm instance in ptxas's output for sim_conv_regs_narrow[bm %d][bn %d]\n",
                        16 << i, 16 << j);
                failures++;
            }
    for (int i = 0; i < 2; i++)
        if (!seen_deep[i]) {
            fprintf(fails, "FAIL no k_igemm instance in ptxas's output for sim_conv_regs_deep[%s]\n",
                    i ? "general" : "tap-major");
            failures++;
        }
    const char *missing[3] = {
        !igemm_seen && !halo_seen && !wgrad_seen ? "sm_90 kernel at all (a build without sm_90 in CMAKE_CUDA_ARCHITECTURES?)" : NULL,
        !halo_seen ? "k_halo" : NULL, !wgrad_seen ? "k_halo_wgrad" : NULL};
    for (int i = 0; i < 3; i++)
        if (missing[i]) {
            fprintf(fails, "FAIL ptxas's output has no %s\n", missing[i]);
            failures++;
        }
    printf("%d k_igemm, %d k_halo, %d k_halo_wgrad instances; %d register count%s moved within an occupancy step\n",
           igemm_seen, halo_seen, wgrad_seen, moved, moved == 1 ? "" : "s");
    fclose(fails);
    if (failures) {
        printf("%ssim.conv_regs: %d failure%s\n", fails_text, failures, failures == 1 ? "" : "s");
        free(fails_text);
        return 1;
    }
    free(fails_text);
    printf("ok: every kernel's blocks an SM are the sim's\n");
    return 0;
}
