/* sim_conv_regs.h - how many blocks of conv2d's kernels (cuda_nn_conv_igemm.cu,
 * cuda_nn_conv_halo.cu) an SM holds at once, from the registers ptxas gives
 * each kernel instance: the sim's conv price (sim_conv_price.c) runs that
 * many side by side. The
 * table is a hand copy of ptxas's counts, so it lives here, where the check
 * that holds it to ptxas reads the same copy: CTest's sim.conv_regs (a
 * cuda build; tests/sim/conv_regs.sh) recompiles the kernels with ptxas -v
 * and fails when an instance's blocks an SM differ from the table's. A
 * kernel change that moves a count across an occupancy step (256-thread
 * blocks: 64, 80, 128 registers) fails it: put ptxas's new count here and
 * refit (scripts/fit-conv-sim.py). Plain C with no include of its own, so
 * the check compiles it alone. */
#ifndef MGPU_SIM_CONV_REGS_H
#define MGPU_SIM_CONV_REGS_H

/* k_igemm<T, MODE, RT, BM, BK, TAP, BNN, TM>'s registers (ptxas -v, sm_90, of
 * faa2e67..0b19516's kernels: the stride-1 data grad's parts moved the
 * f32/bf16 data grad's and f32 forward's counts; a966e49's had f32 forward
 * BM 64 at 80, 3 blocks, now 95, 2): [bf16][mode 0 forward, 1 data grad,
 * 2 weight grad][bm 16, 32, 64][tap-major (TAP), general 3x3 (RT 3),
 * general other (RT 0)]. A tap-major instance of RT 3 and one of RT 0 share
 * an entry; the weight grad is never tap-major (its first column unused). */
static const short sim_conv_regs_igemm[2][3][3][3] = {
    {{{79, 128, 64}, {103, 171, 128}, {101, 127, 95}},   /* f32 forward */
     {{74, 63, 63}, {93, 128, 128}, {103, 79, 79}},      /* f32 data grad */
     {{128, 128, 128}, {145, 145, 145}, {125, 125, 125}}}, /* f32 weight grad */
    {{{64, 124, 64}, {80, 136, 114}, {93, 168, 102}},    /* bf16 forward */
     {{64, 58, 58}, {80, 112, 112}, {99, 106, 106}},     /* bf16 data grad */
     {{123, 123, 123}, {127, 127, 127}, {169, 169, 169}}}, /* bf16 weight grad */
};
/* The f32 weight grad's narrow tile (BNN 16, 32 or 64, 7825329; RT 3 and
 * RT 0 share an entry): [bm 16, 32, 64][bn 16, 32, 64]. */
static const short sim_conv_regs_narrow[3][3] = {{66, 80, 130}, {77, 99, 127}, {80, 111, 128}};
/* The f32 forward's deep tile (TM 8: 64 x 256, 8 x 8 a thread, 37d9d64;
 * __launch_bounds__(256, 2) holds it to 128; RT 3 and RT 0 share an
 * entry): [tap-major, general]. Its 41 KB of shared memory (A and B
 * double-buffered) leave room for 5 blocks an SM: the registers bind. */
static const short sim_conv_regs_deep[2] = {128, 127};

/* The halo kernels' blocks an SM (sim_conv_price.c, conv_halo_ns):
 * k_halo<MODE, BM> 2 (105-128 registers: __launch_bounds__(256, 2) holds
 * it to 128), k_halo_wgrad<LGW> 2 (128 registers since its loads are
 * cp.async, 62265c9; was 1 at 243). ptxas does not see the halo weight
 * grad's dynamic shared memory (cuda_nn_conv_halo.cu's hw_shape<LGW>::SMEM:
 * 71 KB at W 32, 61 KB at W 16; 3 blocks' worth of an SM's 228 KB), so the
 * check counts its blocks by registers and static shared memory: past
 * about 113 KB a block, shared memory would bind it unseen. */
#define SIM_CONV_HALO_BLOCKS 2
#define SIM_CONV_HALO_WGRAD_BLOCKS 2

/* The table's registers of a k_igemm instance: mode 0/1/2 as above, tap
 * the tap-major reduction, r3 RT 3, narrow_bn the narrow tile's BNN or 0,
 * deep the f32 forward's deep tile (TM 8). */
static inline int sim_conv_table_regs(int mode, int bf16, int bm, int tap, int r3, int narrow_bn, int deep)
{
    int bmi = bm == 16 ? 0 : bm == 32 ? 1 : 2;
    if (deep) return sim_conv_regs_deep[tap ? 0 : 1];
    return narrow_bn ? sim_conv_regs_narrow[bmi][narrow_bn == 16 ? 0 : narrow_bn == 32 ? 1 : 2]
                     : sim_conv_regs_igemm[bf16 != 0][mode][bmi][tap ? 0 : r3 ? 1 : 2];
}

/* Blocks of 256 threads an SM holds by their registers: a thread's count
 * in 8-register steps, 65536 registers an SM. */
static inline int sim_conv_blocks_by_regs(int regs) { return 65536 / (((regs + 7) / 8 * 8) * 256); }

/* The blocks an SM the price gives a k_igemm instance of `regs` registers:
 * those, at most 7 for BM 16 (about 17 KB of shared memory a block), 3
 * otherwise (33 KB), 6 for the narrow tile (at most 35 KB), 5 for the deep
 * tile (41 KB), at least one. (The shared-memory caps never bind below
 * the registers' count today; the check works out the kernel's from its
 * real shared memory.) */
static inline int sim_conv_blocks(int regs, int bm, int narrow_bn, int deep)
{
    int by_regs = sim_conv_blocks_by_regs(regs), by_smem = deep ? 5 : narrow_bn ? 6 : bm == 16 ? 7 : 3;
    int b = by_regs < by_smem ? by_regs : by_smem;
    return b < 1 ? 1 : b;
}

#endif
