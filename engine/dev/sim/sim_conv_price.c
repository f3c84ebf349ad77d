/* sim_conv_price.c - conv2d's price in the sim's timing model: the SM time
 * of each implicit-GEMM kernel (cuda_nn_conv_igemm.cu) and halo kernel
 * (cuda_nn_conv_halo.cu) conv2d launches (sim_model.c asks it for
 * MGPU_NN_CLASS_CONV work). Its own file because it is its own model: it
 * follows those kernel files' tiles, cuts and occupancy rather than a
 * rate and an efficiency, it has its own fitted
 * coefficients (CONV_FIT, which scripts/fit-conv-sim.py --write rewrites
 * here) and their knob (MGPU_SIM_CONV_FIT), and it changes whenever those
 * kernels do - apart from the copies and other ops' prices of sim_model.c. */
#include "dev/sim/sim_conv_price.h"
#include "dev/sim/sim_conv_regs.h"
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*--- conv2d's implicit GEMMs (CLASS_CONV) --------------------------------*
 * cuda_nn_conv_igemm.cu runs each of conv2d's three GEMMs as one kernel of
 * tiles (mgpu_nn_conv_tile_m/_n/_k, nn_ops.h: 16, 32 or 64 channels by 256
 * or 128 columns, 16 or 32 deep), or for the wide bf16 3x3 stride-1
 * layers a halo kernel (cuda_nn_conv_halo.cu; mgpu_nn_conv_halo*,
 * nn_ops.h; nn_conv.c marks the work .conv.halo); the price follows those tiles and cuts, so a change
 * there changes it here. Fitted to the kernels' times on an H100 by
 * scripts/fit-conv-sim.py (CONV_FIT below says from which run and how
 * close; docs/sim-model.md has the table). The kernels' loads and index
 * math bind them, not the tensor cores or the FMA units. Per k-step of a
 * block, an SM spends:
 *   - gather: for every element of the B tile (the forward's and data
 *     grad's columns that exist; the weight grad's whole BN: its threads
 *     work out every column's tap, a missing one included - a weight grad
 *     of 27 columns took as long as one of 144), about the same in f32 and
 *     bf16. A tap-major reduction (the forward's C, the data grad's K a
 *     multiple of BK: a chunk is one tap's) works out one bounds check and
 *     one address a chunk, not one an element: `tap` of the cost.
 *   - the data grad's A tile (w transposed: each element its own cache
 *     line), per element (`dgrad`); the others' A is a plain load, lost in
 *     the fit.
 *   - mac: the multiply-adds of the whole tile from shared memory (f32:
 *     about half the FMA peak; bf16: wmma's fragment loads bind it). The
 *     f32 forward's deep tile (mgpu_nn_conv_plan's deep: 64 x 256, 8 x 8
 *     a thread, 37d9d64) has its own, `mac_deep`: a warp's 4 x 8 threads
 *     feed 64 FMAs from 4 one-wavefront shared loads where the 4 x 8 tile
 *     fed 32 from 5 wavefronts, so its multiply-adds cost less an element
 *     than the other f32 tiles' (shared memory bound the 4 x 8 tile).
 * A block's k-step waits `lone` for its loads when nothing else on its SM
 * hides them; the first load waits it whole. Its tile then goes out
 * through shared memory, `epi` an output (instruction bound: a division
 * and a store an element). The blocks an SM holds at once come from the
 * kernel's registers (conv_blocks_per_sm). A reduction cut in parts (the
 * weight grad; the forward of few tiles) has a combine kernel whose
 * threads add their output's parts one after another: `part` a part, or
 * its bytes at HBM's rate when there are many outputs.
 * MGPU_SIM_CONV_FIT="name=value,..." (names: conv_knob_names) replaces
 * them: the fit script's knob, so that it fits this formula itself rather
 * than a copy of it. */
typedef struct conv_coeffs {
    double gather_ns[2];  /* an SM's time per gathered B-tile element, f32 / bf16 */
    double tap;           /* a tap-major chunk's gathers over the element-wise ones */
    double dgrad_a_ns;    /* the data grad's A tile (w transposed), per element */
    double mac_ns[2];     /* an SM's time per multiply-add of a tile, f32 / bf16 */
    double mac_deep_ns;   /* the same for the f32 forward's deep tile (8 x 8 a thread) */
    double lone_ns;       /* a k-step's load latency, unhidden by a lone block */
    double epi_ns;        /* a block's tile out, per output element */
    double part_ns;       /* the combine kernel, per part its threads add */
    double halo_slice_ns; /* k_halo: staging a slice (its TH+2 rows, 9 taps' weights) */
    double halo_mac_ns;   /* k_halo: per multiply-add of its 9 GEMM steps a slice */
    double halo_dgrad;    /* k_halo's data grad over its forward (w transposed, flipped) */
    double halo_wstep_ns; /* k_halo_wgrad: an SM's time for a block's 64-pixel step (9 taps) */
} conv_coeffs;

/* scripts/fit-conv-sim.py --write: /work/notes/gpu18/round/nn-torch-conv.json (NVIDIA H100 80GB HBM3),
 * every case: 60 of 60 within 15 % */
static const conv_coeffs CONV_FIT = {
    .gather_ns = {0.1036, 0.07284},
    .mac_ns = {0.006058, 0.002599},
    .mac_deep_ns = 0.005297,
    .tap = 0.7083,
    .dgrad_a_ns = 0.163,
    .lone_ns = 292.8,
    .epi_ns = 0.2739,
    .part_ns = 27.94,
    .halo_slice_ns = 892.5,
    .halo_mac_ns = 0.001357,
    .halo_dgrad = 1.161,
    .halo_wstep_ns = 1902,
};

static conv_coeffs conv_k;
static pthread_once_t conv_k_once = PTHREAD_ONCE_INIT;

/* The knob's names, in CONV_FIT's order (scripts/fit-conv-sim.py NAMES). */
static const char *const conv_knob_names =
    "gather_f32, gather_bf16, tap, dgrad, mac_f32, mac_bf16, mac_deep, lone, epi, part, halo_slice, halo_mac, "
    "halo_dgrad, halo_wstep";

/* CONV_FIT, or MGPU_SIM_CONV_FIT's values over it (a bad one is reported
 * and the committed fit kept). */
static void conv_k_init(void)
{
    conv_k = CONV_FIT;
    const char *e = getenv("MGPU_SIM_CONV_FIT");
    if (!e || !*e) return;
    conv_coeffs c = CONV_FIT;
    struct { const char *name; double *v; } f[] = {
        {"gather_f32", &c.gather_ns[0]},  {"gather_bf16", &c.gather_ns[1]}, {"tap", &c.tap},
        {"dgrad", &c.dgrad_a_ns},         {"mac_f32", &c.mac_ns[0]},         {"mac_bf16", &c.mac_ns[1]},
        {"mac_deep", &c.mac_deep_ns},     {"lone", &c.lone_ns},              {"epi", &c.epi_ns},
        {"part", &c.part_ns},             {"halo_slice", &c.halo_slice_ns},  {"halo_mac", &c.halo_mac_ns},
        {"halo_dgrad", &c.halo_dgrad},    {"halo_wstep", &c.halo_wstep_ns}};
    const char *p = e;
    while (*p) {
        size_t len = strcspn(p, "=");
        int k = -1;
        for (int i = 0; i < (int)(sizeof f / sizeof f[0]); i++)
            if (strlen(f[i].name) == len && strncmp(p, f[i].name, len) == 0) k = i;
        char *end = NULL;
        double v = k >= 0 && p[len] == '=' ? strtod(p + len + 1, &end) : -1;
        if (k < 0 || !end || end == p + len + 1 || !(v >= 0) || (*end && *end != ',')) {
            fprintf(stderr, "MGPU_SIM_CONV_FIT: cannot read %s (want name=value,... with names %s); the committed fit is used\n",
                    e, conv_knob_names);
            return;
        }
        *f[k].v = v;
        p = *end ? end + 1 : end;
    }
    conv_k = c;
}

/* Blocks of 256 threads a k_igemm instance keeps on an SM at once, from
 * its registers (ptxas's counts: sim_conv_regs.h, which the test suite
 * holds to ptxas) and its shared memory. mode 0 forward, 1 data grad, 2
 * weight grad; tap the tap-major reduction; r3 the 3x3 instance (RT 3) of
 * a general one; narrow the f32 weight grad's narrow tile (bn 16, 32 or
 * 64); deep the f32 forward's deep tile. */
static int conv_blocks_per_sm(int mode, int bf16, int bm, int tap, int r3, int narrow_bn, int deep)
{
    return sim_conv_blocks(sim_conv_table_regs(mode, bf16, bm, tap, r3, narrow_bn, deep), bm, narrow_bn, deep);
}

/* An SM's time for `per_sm` blocks of `steps` k-steps each, `occ` at a
 * time: a group of g blocks takes each k-step at g times a block's work
 * (the SM's issue bound) or one block's work plus the load latency (what
 * g blocks cannot hide), whichever is longer, plus each block's tile out
 * and the first load. */
static double conv_sm_ns(double per_sm, int occ, double steps, double step_ns, double block_ns, double lone_ns)
{
    double full = floor(per_sm / occ), rest = per_sm - full * occ, t = 0;
    for (int last = 0; last < 2; last++) {
        double gsz = last ? rest : occ, n = last ? (rest > 0) : full;
        if (n > 0) t += n * (steps * fmax(gsz * step_ns, lone_ns + step_ns) + gsz * block_ns + lone_ns);
    }
    return t;
}

/* The combine of a reduction cut in `parts` (outputs f32 partials each):
 * one thread an output adds its parts in order - a chain of loads, `part`
 * each, or a chain of batches of `batch` loads issued together (the halo
 * weight grad's combine, 04f7d07) - unless the partials' bytes at HBM's
 * rate take longer. */
static double conv_combine_ns(const conv_coeffs *c, const sim_model_gpu *g, double outputs, double parts, double batch,
                              int bf16, double hbm_eff)
{
    double bytes = outputs * (parts * 4.0 + (bf16 ? 2.0 : 4.0));
    return fmax(ceil(parts / batch) * c->part_ns, bytes / (g->hbm_gbs * hbm_eff));
}

/* k_halo_wgrad_combine's partials loaded at once (HW_CB, cuda_nn_conv_halo.cu) */
#define CONV_HALO_WGRAD_COMBINE_BATCH 16

/* The halo kernels (nn_ops.h's shapes; cuda_nn_conv_halo.cu). k_halo
 * (halo 1): a block of BM channels by 256 pixels stages each 16-channel
 * slice of the reduction (its TH+2 input rows once, the 9 taps' weights)
 * and runs 9 GEMM steps of BM x 256 x 16 from shared memory,
 * SIM_CONV_HALO_BLOCKS (2) an SM. Its data grad loads w transposed and
 * flipped: `halo_dgrad` of the forward's time (0b19516 stashes the weights
 * without bank conflicts, so the data grad costs about what the forward
 * does: 18 % more before). k_halo_wgrad (halo 2): a block of 64 k by 32
 * channels by 9 taps over `chunk` steps of 64 pixels,
 * SIM_CONV_HALO_WGRAD_BLOCKS (2, 62265c9: its loads by cp.async into a
 * ring in shared memory, 128 registers; was 1 at 243) an SM, shared out
 * as k_igemm's blocks are (conv_sm_ns): two blocks an SM take each step at
 * twice a block's work `halo_wstep` (the SM's issue bound), a lone block
 * at its work and the wait `lone` that no other block's warps hide (its
 * loads run ahead in the ring, but its 8 warps still wait at the step's
 * barriers and its tensor-core chains) - the part plan of about two
 * blocks an SM is one wave (256x64x32x32>64: 256 blocks of 32 steps).
 * Then the parts' combine, which loads 16 partials before it adds them
 * (04f7d07). SM time on the H100. */
static double conv_halo_ns(const conv_coeffs *c, const sim_model_gpu *g, const mgpu_nn_work *w, int bf16, double hbm_eff)
{
    double m = (double)w->m, n = (double)w->n, kred = w->flops / (2.0 * m * n);
    if (w->conv.halo == 2) { /* m = K, n = 9 C, kred = N H W */
        double parts = (double)(w->batch ? w->batch : 1);
        double blocks = floor(n / 9.0 / MGPU_NN_HALO_WGRAD_BC) * floor(m / MGPU_NN_HALO_WGRAD_BM) * parts;
        double steps = ceil(kred / MGPU_NN_HALO_WGRAD_PX / parts);
        return conv_sm_ns(ceil(blocks / g->sms), SIM_CONV_HALO_WGRAD_BLOCKS, steps, c->halo_wstep_ns, 0, c->lone_ns) +
               conv_combine_ns(c, g, m * n, parts, CONV_HALO_WGRAD_COMBINE_BATCH, bf16, hbm_eff);
    }
    double bm = mgpu_nn_conv_halo_bm(w->m), blocks = floor(n / MGPU_NN_HALO_BN) * floor(m / bm);
    double slices = ceil(kred / (9.0 * MGPU_NN_HALO_SLICE));
    double slice = (c->halo_slice_ns + 9.0 * c->halo_mac_ns * bm * MGPU_NN_HALO_BN * MGPU_NN_HALO_SLICE) *
                   (w->conv.dgrad ? c->halo_dgrad : 1.0);
    return conv_sm_ns(ceil(blocks / g->sms), SIM_CONV_HALO_BLOCKS, slices, slice, 0, c->lone_ns);
}

/* One GEMM of conv2d: its kernel's blocks shared out over the SMs, as
 * many at once as its registers allow (conv_blocks_per_sm); each k-step of
 * a block costs the gathers of its B tile, the data grad's A tile and the
 * multiply-adds of its whole tile; each block its tile out; a reduction in
 * parts its combine. A stride-s data grad runs s*s phase GEMMs in one
 * launch (blockIdx.z the phase): phase (a, b) computes dx at h = a + s*i,
 * w = b + s*j (M = C, N*ceil((H - a)/s)*ceil((W - b)/s) columns) over only
 * the taps that land there (K*taps_r*taps_s deep): no zeros multiplied.
 * Blocks of different phases run deeper or shallower; the busiest SM gets
 * the average block of the phases. Times on the H100 (1.98 GHz, 132 SMs),
 * scaled to another GPU by its f32 rate an SM. */
double sim_conv_ns(const sim_model_gpu *g, const mgpu_nn_work *w, int bf16, double hbm_eff)
{
    pthread_once(&conv_k_once, conv_k_init);
    const conv_coeffs *c = &conv_k;
    double clock = (67.0 / 132.0) / (g->f32_tflops / g->sms); /* the H100's f32 rate an SM over this GPU's */
    if (w->conv.halo) return conv_halo_ns(c, g, w, bf16, hbm_eff) * clock;
    double m = (double)w->m, n = (double)w->n, parts = (double)(w->batch ? w->batch : 1);
    int mode = w->conv.dgrad ? 1 : w->conv.wgrad ? 2 : 0;
    double kred = w->flops / (2.0 * m * n), taps = (double)w->conv.r * (double)w->conv.r;
    /* the tile cuda runs (nn_ops.h, the function cuda calls): the general
     * one, or the f32 weight grad's narrow one of a small output (7825329:
     * bn = ncol rounded up to 16/32/64, bk 64; its gathers cover bn, not 256
     * columns). The parts come from nn_conv.c (w->batch), from the same plan. */
    mgpu_nn_conv_plan pl = mgpu_nn_conv_plan_of(mode == 1 ? MGPU_NNK_CONV2D_DGRAD : mode == 2 ? MGPU_NNK_CONV2D_WGRAD : MGPU_NNK_CONV2D,
                                                w->m, w->n, (size_t)llround(kred), bf16, w->conv.stride);
    double bm = pl.bm, bn = pl.bn, bk = pl.bk;
    /* tap-major: a tap's channels (the forward's C, the data grad's K) are whole BK-deep chunks */
    int tap = mode != 2 && taps > 0 && fmod(kred / taps, bk) == 0;
    int occ = conv_blocks_per_sm(mode, bf16, pl.bm, tap, w->conv.r == 3, pl.narrow ? pl.bn : 0, pl.deep);
    double gather = c->gather_ns[bf16 != 0] * (tap ? c->tap : 1.0);
    double mac = (pl.deep ? c->mac_deep_ns : c->mac_ns[bf16 != 0]) * bm * bn;
    double blocks = 0, ksteps = 0, work = 0, out = 0, deepest = 0; /* sums over the blocks: k-steps, their SM time, tile outs */
    int s = w->conv.dgrad && w->conv.stride > 1 ? w->conv.stride : 1;
    for (int a = 0; a < s; a++)
        for (int b = 0; b < s; b++) {
            double cols = n, depth = kred / parts;
            if (s > 1) {
                double rows_a = ceil(((double)w->conv.h - a) / s), cols_b = ceil(((double)w->conv.w - b) / s);
                double images = n / ((double)w->conv.h * (double)w->conv.w);
                double kout = kred / (double)(w->conv.r * w->conv.r); /* dy's channels */
                cols = images * fmax(rows_a, 0) * fmax(cols_b, 0);
                depth = kout * mgpu_nn_conv_phase_taps(w->conv.r, w->conv.pad, s, a) *
                        mgpu_nn_conv_phase_taps(w->conv.r, w->conv.pad, s, b);
            }
            if (cols <= 0) continue;
            double tiles = ceil(m / bm) * ceil(cols / bn) * parts, steps = ceil(depth / bk);
            double bcols = mode == 2 ? bn : fmin(cols, bn);
            deepest = fmax(deepest, steps);
            blocks += tiles;
            ksteps += tiles * steps;
            work += tiles * steps * bk * (gather * bcols + (mode == 1 ? c->dgrad_a_ns * bm : 0) + mac);
            out += tiles * bm * fmin(cols, bn);
        }
    if (blocks <= 0) return 0;
    double per_sm = ceil(blocks / g->sms), step = work / ksteps, tile_out = c->epi_ns * out / blocks;
    double t = conv_sm_ns(per_sm, occ, ksteps / blocks, step, tile_out, c->lone_ns);
    /* The phases' blocks go out in phase order, the deepest (most taps)
     * last, and share their SMs with the others: the kernel lasts at
     * least the deepest block's steps at the shared rate (f32
     * 256x32x16x16>64 s2: phases of 4 to 16 steps, 41.3 us measured; the
     * average block priced it 15 % fast). */
    if (s > 1) t = fmax(t, conv_sm_ns(fmin(occ, per_sm), occ, deepest, step, tile_out, c->lone_ns));
    if (parts > 1 || mode == 2) t += conv_combine_ns(c, g, m * n, parts, 1, bf16, hbm_eff);
    return t * clock;
}
