/* test_copybench_sim.c - the copy benchmark on the sim backend: every
 * testcase runs (or is waived, saying why) on dgx-h100, pcie-4gpu and
 * single-gpu; matrices have the right shape, N/A pattern and SUM; the
 * numbers match the sim's link model; verification catches a wrong copy;
 * too large a buffer is a device-OOM error; peer access is left as found. */
#include "dev/sim/sim_model.h"
#include "mgpu/copybench.h"
#include "mgpu/topo.h"
#include "tap.h"
#include <math.h>
#include <string.h>

static mgpu_backend *open_sim(const char *machine)
{
    mgpu_backend_config cfg = {MGPU_BACKEND_SIM, machine, NULL};
    mgpu_backend *be = NULL;
    CHECK_OK(mgpu_backend_open(&cfg, &be));
    return be;
}

static mgpu_copy_options small_options(uint64_t bytes, uint64_t loops, unsigned samples)
{
    mgpu_copy_options o;
    mgpu_copy_options_default(&o);
    o.buffer_bytes = bytes;
    o.loop_count = loops;
    o.samples = samples;
    return o;
}

static double cell_sum(const mgpu_copy_matrix *m)
{
    double s = 0;
    for (int i = 0; i < m->rows * m->cols; i++)
        if (m->have[i]) s += m->value[i];
    return s;
}

/* Every testcase: passed or waived, and a passed one has the matrix its
 * pattern promises, N/A exactly where peer access is missing. */
static void every_case(const char *machine)
{
    mgpu_backend *be = open_sim(machine);
    if (!be) return;
    int ndev = 0, n = 0;
    mgpu_device_count(be, &ndev);
    const mgpu_copy_case *c = mgpu_copy_cases(&n);
    mgpu_copy_options o = small_options(64 << 10, 1, 2);
    for (int i = 0; i < n; i++) {
        mgpu_copy_result r;
        CHECK_OK(mgpu_copy_run(be, &c[i], &o, &r));
        CHECKF(r.status != MGPU_COPY_ERROR, "%s on %s: %s", c[i].name, machine, r.reason);
        if (r.status == MGPU_COPY_WAIVED) {
            CHECKF(c[i].min_gpus > ndev || c[i].needs_peer, "%s waived on %s: %s", c[i].name, machine, r.reason);
            if (c[i].min_gpus > ndev) {
                char want[64];
                snprintf(want, sizeof want, "needs %d GPUs, this machine has %d", c[i].min_gpus, ndev);
                CHECKF(strstr(r.reason, want) != NULL, "%s: reason '%s'", c[i].name, r.reason);
            }
            CHECK(r.nmat == 0);
            mgpu_copy_result_free(&r);
            continue;
        }
        if (r.status != MGPU_COPY_PASSED) {
            mgpu_copy_result_free(&r);
            continue;
        }
        int square = c[i].pattern == MGPU_PAT_D2D || c[i].pattern == MGPU_PAT_D2D_BIDIR ||
                     c[i].pattern == MGPU_PAT_LATENCY_D2D;
        int latency = c[i].pattern == MGPU_PAT_LATENCY_HOST || c[i].pattern == MGPU_PAT_LATENCY_D2D;
        CHECKF(r.nmat == (c[i].pattern == MGPU_PAT_D2D_BIDIR ? 3 : 1), "%s has %d matrices", c[i].name, r.nmat);
        CHECK(strcmp(r.unit, latency ? "ns" : "GB/s") == 0);
        for (int k = 0; k < r.nmat; k++) {
            const mgpu_copy_matrix *m = &r.mat[k];
            CHECKF(m->rows == (square ? ndev : 1) && m->cols == ndev, "%s: %dx%d", m->key, m->rows, m->cols);
            CHECKF(fabs(m->sum - cell_sum(m)) < 1e-9 * (1 + m->sum), "%s: SUM %f != %f", m->key, m->sum, cell_sum(m));
            CHECK(strncmp(m->key, c[i].name, strlen(c[i].name)) == 0);
            for (int row = 0; row < m->rows; row++)
                for (int col = 0; col < m->cols; col++) {
                    int have = m->have[row * m->cols + col];
                    double v = m->value[row * m->cols + col];
                    if (have) CHECKF(v > 0 && isfinite(v), "%s[%d][%d] = %f", m->key, row, col, v);
                    if (square && row == col) {
                        CHECKF(!have, "%s: diagonal cell %d measured", m->key, row);
                        continue;
                    }
                    int want = 1;
                    if (square) {
                        int ab = 0, ba = 0;
                        mgpu_peer_can_access(be, row, col, &ab);
                        mgpu_peer_can_access(be, col, row, &ba);
                        want = ab && ba;
                    } else if (c[i].needs_peer) { /* all_to_one / one_to_all: any peer */
                        want = 0;
                        for (int e = 0; e < ndev; e++) {
                            int ab = 0;
                            if (e != col && mgpu_peer_can_access(be, col, e, &ab) == MGPU_OK && ab) want = 1;
                        }
                    }
                    CHECKF(have == want, "%s on %s: cell [%d][%d] have=%d want=%d", m->key, machine, row, col,
                           have, want);
                }
        }
        if (c[i].pattern == MGPU_PAT_D2D_BIDIR)
            for (int k = 0; k < ndev * ndev; k++)
                if (r.mat[2].have[k])
                    CHECK(fabs(r.mat[2].value[k] - r.mat[0].value[k] - r.mat[1].value[k]) < 1e-9 * r.mat[2].value[k]);
        if (c[i].pattern == MGPU_PAT_LOCAL) CHECK(fabs(r.local_rw_sum - 2 * r.mat[0].sum) < 1e-9 * r.local_rw_sum);
        /* a cell missing for want of peer access is explained */
        int missing = 0;
        for (int k = 0; k < r.mat[0].rows * r.mat[0].cols; k++) missing += !r.mat[0].have[k];
        if (missing > (square ? ndev : 0)) {
            CHECKF(r.nnotes > 0 && strstr(r.notes[0], "no peer access"), "%s: %d N/A cells, no note", c[i].name,
                   missing);
        }
        mgpu_copy_result_free(&r);
    }
    mgpu_backend_close(be);
}

/* The measured figures equal the sim's price of the same copies: the core
 * neither adds nor loses time around them. Bounds from the topology view
 * (the physical link) guard against a model that priced nothing. */
static double model_gbs(mgpu_backend *be, sim_place dst, sim_place src, int direct, int sm, double bytes)
{
    sim_model m;
    if (sim_model_init(&m, mgpu_backend_topo(be), 0) != MGPU_OK) return -1;
    sim_cost c;
    sim_model_copy(&m, dst, src, direct, sm, &c);
    double gbs = bytes / sim_cost_ns(&c, bytes);
    sim_model_free(&m);
    return gbs;
}

static mgpu_copy_result run_named(mgpu_backend *be, const char *name, const mgpu_copy_options *o)
{
    mgpu_copy_result r;
    memset(&r, 0, sizeof r);
    const mgpu_copy_case *tc = mgpu_copy_case_find(name);
    CHECKF(tc != NULL, "%s", name);
    if (tc) CHECK_OK(mgpu_copy_run(be, tc, o, &r));
    CHECKF(r.status == MGPU_COPY_PASSED, "%s: %s", name, r.reason);
    return r;
}

static void matches_model(void)
{
    mgpu_backend *be = open_sim("dgx-h100");
    if (!be) return;
    const mgpu_topo *t = mgpu_backend_topo(be);
    double bytes = 2 << 20;
    mgpu_copy_options o = small_options(2 << 20, 2, 3);
    sim_place host = {-1, MGPU_MEM_PINNED}, d0 = {0, MGPU_MEM_DEVICE}, d1 = {1, MGPU_MEM_DEVICE};

    mgpu_copy_result r = run_named(be, "host_to_device_memcpy_ce", &o);
    double want = model_gbs(be, d0, host, 0, 0, bytes);
    double pcie = mgpu_topo_gpu_at(t, mgpu_topo_gpu_index(t, 0, 0))->pcie_gbs;
    if (r.nmat) {
        double got = r.mat[0].value[0];
        CHECKF(fabs(got - want) <= 0.01 * want, "H2D %.2f GB/s, model %.2f", got, want);
        CHECKF(got <= pcie && got > 0.5 * pcie, "H2D %.2f GB/s vs PCIe %.2f per direction", got, pcie);
    }
    mgpu_copy_result_free(&r);

    /* bidirectional: the measured direction keeps its speed (separate link directions) */
    r = run_named(be, "host_to_device_bidirectional_memcpy_ce", &o);
    if (r.nmat) CHECKF(fabs(r.mat[0].value[0] - want) <= 0.02 * want, "bidir H2D %.2f", r.mat[0].value[0]);
    mgpu_copy_result_free(&r);

    r = run_named(be, "device_to_device_memcpy_write_ce", &o);
    want = model_gbs(be, d1, d0, 1, 0, bytes);
    mgpu_topo_path p = mgpu_topo_gpu_path(t, mgpu_topo_gpu_index(t, 0, 0), mgpu_topo_gpu_index(t, 0, 1));
    if (r.nmat) {
        double got = r.mat[0].value[0 * 8 + 1];
        CHECKF(fabs(got - want) <= 0.01 * want, "D2D write %.2f GB/s, model %.2f", got, want);
        CHECKF(got <= p.bw_gbs && got > 0.5 * p.bw_gbs, "D2D %.2f vs NVLink path %.2f", got, p.bw_gbs);
    }
    mgpu_copy_result_free(&r);

    r = run_named(be, "device_local_copy", &o);
    want = model_gbs(be, d0, d0, 1, 0, bytes);
    double hbm = mgpu_topo_gpu_at(t, mgpu_topo_gpu_index(t, 0, 0))->hbm_gbs;
    if (r.nmat) {
        double got = r.mat[0].value[0];
        CHECKF(fabs(got - want) <= 0.01 * want, "local %.2f GB/s, model %.2f", got, want);
        CHECKF(2 * got <= hbm && 2 * got > 0.5 * hbm, "local r+w %.2f vs HBM %.2f", 2 * got, hbm);
        CHECK(fabs(r.local_rw_sum - 16 * got) < 1e-6 * r.local_rw_sum); /* 8 GPUs, read+write */
    }
    mgpu_copy_result_free(&r);

    /* all_to_one: total of 7 peers into one GPU is at least one link's worth */
    r = run_named(be, "all_to_one_write_ce", &o);
    want = model_gbs(be, d1, d0, 1, 0, bytes);
    if (r.nmat) CHECKF(r.mat[0].value[0] >= 0.99 * want, "all_to_one %.2f < one link %.2f", r.mat[0].value[0], want);
    mgpu_copy_result_free(&r);
    mgpu_backend_close(be);
}

/*--- Verification -------------------------------------------------------*/

typedef struct tamper_ctx {
    int calls;
    int damage;
} tamper_ctx;

static mgpu_result tamper(void *ctx, mgpu_stream *s, mgpu_buffer *dst, size_t bytes)
{
    tamper_ctx *t = ctx;
    t->calls++;
    if (!t->damage) return MGPU_OK;
    /* one element changed is enough to be caught */
    mgpu_fill_spec one = {MGPU_FILL_CONST, 0, 12345.0};
    return mgpu_fill(s, dst, bytes / 2, 1, MGPU_I32, &one);
}

static void verification(void)
{
    mgpu_backend *be = open_sim("single-gpu");
    if (!be) return;
    mgpu_copy_options o = small_options(64 << 10, 2, 2);
    tamper_ctx t = {0, 0};
    o.tamper = tamper;
    o.tamper_ctx = &t;
    const mgpu_copy_case *tc = mgpu_copy_case_find("host_to_device_memcpy_ce");
    mgpu_copy_result r;
    CHECK_OK(mgpu_copy_run(be, tc, &o, &r));
    CHECKF(r.status == MGPU_COPY_PASSED && t.calls == 2, "control: status %d calls %d %s", r.status, t.calls, r.reason);
    mgpu_copy_result_free(&r);

    t = (tamper_ctx){0, 1};
    CHECK_OK(mgpu_copy_run(be, tc, &o, &r));
    CHECK(r.status == MGPU_COPY_ERROR);
    CHECKF(strstr(r.reason, "verification failed") && strstr(r.reason, "no bandwidth"), "%s", r.reason);
    CHECK(t.calls == 1); /* stops at the first wrong sample */
    mgpu_copy_result_free(&r);

    /* skipping verification also skips the check (and the hook) */
    t = (tamper_ctx){0, 1};
    o.skip_verify = 1;
    CHECK_OK(mgpu_copy_run(be, tc, &o, &r));
    CHECK(r.status == MGPU_COPY_PASSED && t.calls == 0);
    mgpu_copy_result_free(&r);
    mgpu_backend_close(be);
}

/*--- Errors and state ---------------------------------------------------*/

static void errors(void)
{
    mgpu_backend *be = open_sim("dgx-h100");
    if (!be) return;
    mgpu_copy_options o = small_options(1ull << 40, 1, 1); /* 1 TiB: no GPU has it */
    mgpu_copy_result r;
    CHECK_OK(mgpu_copy_run(be, mgpu_copy_case_find("device_local_copy"), &o, &r));
    CHECK(r.status == MGPU_COPY_ERROR && r.code == MGPU_ERR_DEVICE_OOM);
    CHECKF(strstr(r.reason, "--bufferSize") && strstr(r.reason, "GPU 0"), "%s", r.reason);
    mgpu_copy_result_free(&r);
    /* latency testcases use their own 2 MiB ring, so they still run */
    CHECK_OK(mgpu_copy_run(be, mgpu_copy_case_find("host_device_latency_sm"), &o, &r));
    CHECKF(r.status == MGPU_COPY_PASSED, "%s", r.reason);
    mgpu_copy_result_free(&r);

    o = small_options(1000, 1, 1); /* not a multiple of 16: an argument error */
    CHECK(mgpu_copy_run(be, mgpu_copy_case_find("device_local_copy"), &o, &r) == MGPU_ERR_INVALID);

    /* peer access is back off after a peer testcase: enabling works again */
    o = small_options(64 << 10, 1, 1);
    CHECK_OK(mgpu_copy_run(be, mgpu_copy_case_find("device_to_device_bidirectional_memcpy_read_sm"), &o, &r));
    CHECK(r.status == MGPU_COPY_PASSED);
    mgpu_copy_result_free(&r);
    CHECK_OK(mgpu_peer_enable(be, 0, 1));
    CHECK_OK(mgpu_peer_enable(be, 1, 0));
    /* a pair someone else enabled is used and left enabled, as nvbandwidth does */
    CHECK_OK(mgpu_copy_run(be, mgpu_copy_case_find("device_to_device_memcpy_read_ce"), &o, &r));
    CHECKF(r.status == MGPU_COPY_PASSED, "%s", r.reason);
    mgpu_copy_result_free(&r);
    CHECK_OK(mgpu_peer_disable(be, 0, 1));
    CHECK_OK(mgpu_peer_disable(be, 1, 0));
    CHECK(mgpu_peer_disable(be, 0, 2) != MGPU_OK); /* and the others were switched off again */
    mgpu_error_clear();
    mgpu_backend_close(be);
}

int main(void)
{
    every_case("single-gpu");
    every_case("dgx-h100");
    every_case("pcie-4gpu");
    matches_model();
    verification();
    errors();
    return tap_done();
}
