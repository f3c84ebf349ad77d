/* comm_sim_init.c - creating sim communicators: the segment named through
 * the bootstrap (init) or through the parent's segment (split), unlinked as
 * soon as every member has mapped it, so a crash leaves nothing behind. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "comm/comm_args.h"
#include "mgpu/mem.h"
#include "mgpu/topo.h"
#include "sim_comm.h"

static uint64_t fnv1a(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return h;
}

/* Which host's GPUs this process models (dev_sim.c reads the same variable). */
static int sim_host(void)
{
    const char *e = getenv("MGPU_SIM_HOST");
    return e && *e ? atoi(e) : 0;
}

void sim_comm_free(sim_comm *sc)
{
    if (!sc) return;
    sim_seg_close(&sc->seg);
    mgpu_mem_free_library(sc->nvls_mem);
    free(sc->gpu_of_rank);
    free(sc);
}

/* NVLink SHARP takes device memory at init (nvls.cc's buffers: 256 MiB a
 * GPU on a DGX H100), which NCCL_NVLS_ENABLE=0 gives back. */
static mgpu_result nvls_setup(mgpu_comm *c, sim_comm *sc)
{
    size_t bytes = 0;
    if (!mgpu_coll_nvls_channels(sc->topo, c->size, sc->gpu_of_rank, &sc->tuning, &bytes) || !bytes) return MGPU_OK;
    mgpu_result r = mgpu_mem_alloc_library(c->be, c->device, bytes, &sc->nvls_mem);
    if (r != MGPU_OK)
        return mgpu_fail(r, "communicator '%s': NCCL's NVLink SHARP buffers (%zu MiB on GPU %d) do not fit: %s. Free "
                         "memory before creating the communicator, or set NCCL_NVLS_ENABLE=0",
                         c->name, bytes >> 20, c->device, mgpu_error_message());
    return MGPU_OK;
}

static mgpu_result new_impl(mgpu_comm *c, sim_comm **out)
{
    sim_comm *sc = calloc(1, sizeof *sc);
    if (!sc) return mgpu_fail(MGPU_ERR_NOMEM, "out of host memory creating communicator '%s'", c->name);
    sc->timeout_s = mgpu_comm_resolve_timeout(&c->cfg);
    sc->topo = mgpu_backend_topo(c->be);
    sc->log_info = sim_log_wanted();
    mgpu_result r = mgpu_coll_tuning_from_env(&sc->tuning);
    if (r != MGPU_OK) {
        free(sc);
        MGPU_CHECK(r);
    }
    if (!sc->topo) {
        free(sc);
        return mgpu_fail(MGPU_ERR_INVALID, "the sim communicator needs the sim backend's machine model");
    }
    sc->straggler = mgpu_topo_straggler_factor(sc->topo);
    *out = sc;
    return MGPU_OK;
}

typedef struct member_info {
    int32_t pid, host, dev;
} member_info;

/* Over the new segment: learn every member's pid (dead-rank checks) and GPU
 * (the model's placement). Doubles as the "everyone has mapped it" barrier. */
static mgpu_result meet(mgpu_comm *c, sim_comm *sc)
{
    sim_ctx x;
    sim_comm_ctx(c, sc, "communicator set-up", &x);
    unsigned char mine[SIM_BLOB] = {0};
    member_info me = {(int32_t)getpid(), sim_host(), c->device};
    memcpy(mine, &me, sizeof me);
    sim_seg_set_pid(&sc->seg, c->rank, getpid());
    unsigned char *all = malloc((size_t)c->size * SIM_BLOB);
    sc->gpu_of_rank = malloc(sizeof(int) * (size_t)c->size);
    if (!all || !sc->gpu_of_rank) {
        free(all);
        return mgpu_fail(MGPU_ERR_NOMEM, "out of host memory creating communicator '%s'", c->name);
    }
    mgpu_result r = sim_exchange(&x, mine, all);
    int G = mgpu_topo_gpu_count(sc->topo);
    for (int i = 0; r == MGPU_OK && i < c->size; i++) {
        member_info o;
        memcpy(&o, all + (size_t)i * SIM_BLOB, sizeof o);
        sim_seg_set_pid(&sc->seg, i, o.pid);
        int g = mgpu_topo_gpu_index(sc->topo, o.host, o.dev);
        sc->gpu_of_rank[i] = g >= 0 ? g : (G > 0 ? o.dev % G : 0);
    }
    free(all);
    MGPU_CHECK(r);
    return MGPU_OK;
}

mgpu_result sim_comm_init(mgpu_comm *c, const mgpu_bootstrap *bs)
{
    if (!bs || !bs->allgather || bs->size < 1 || bs->rank < 0 || bs->rank >= bs->size)
        return mgpu_fail(MGPU_ERR_INVALID, "sim communicator: the bootstrap must give a rank in [0, size) and an allgather");
    if (bs->size > SIM_MAX_RANKS)
        return mgpu_fail(MGPU_ERR_INVALID, "the sim communicator supports up to %d ranks, not %d", SIM_MAX_RANKS,
                         bs->size);
    c->rank = bs->rank;
    c->size = bs->size;
    sim_comm *sc;
    MGPU_CHECK(new_impl(c, &sc));
    char name[SIM_NAME_LEN] = {0};
    mgpu_result created = MGPU_OK;
    if (bs->rank == 0) {
        created = sim_seg_create(bs->size, &sc->seg, name);
        if (created != MGPU_OK) name[0] = 0;
    }
    /* Rank 0 posts the name even when creation failed (empty), so nobody
     * waits for a segment that will never exist. */
    char *all = calloc((size_t)bs->size, SIM_NAME_LEN);
    mgpu_result r = all ? bs->allgather(bs->ctx, name, all, SIM_NAME_LEN)
                        : mgpu_fail(MGPU_ERR_NOMEM, "out of host memory creating communicator '%s'", c->name);
    if (r == MGPU_OK && created != MGPU_OK) r = created;
    if (r == MGPU_OK && bs->rank != 0) {
        all[SIM_NAME_LEN - 1] = 0;
        memcpy(name, all, SIM_NAME_LEN); /* everyone keeps the name: the comm's id is its hash */
        if (!all[0])
            r = mgpu_fail(MGPU_ERR_IO, "rank 0 could not create the sim communicator's shared memory (its error says why)");
        else
            r = sim_seg_open(all, bs->size, &sc->seg);
    }
    free(all);
    if (r == MGPU_OK) r = meet(c, sc);
    if (r == MGPU_OK) r = nvls_setup(c, sc);
    if (bs->rank == 0 && created == MGPU_OK) sim_seg_unlink(&sc->seg, name);
    if (r != MGPU_OK) {
        sim_comm_free(sc);
        MGPU_CHECK(r);
    }
    c->id = fnv1a(name);
    c->impl = sc;
    sc->world = 1;
    sim_log_comm(c, sc);
    return MGPU_OK;
}

/*--- Split --------------------------------------------------------------*/

typedef struct split_info {
    int32_t color, key;
} split_info;

/* Members of `color` ordered by (key, parent rank), as ncclCommSplit does. */
static int members_of(const unsigned char *all, int n, int color, int *out)
{
    int m = 0;
    for (int i = 0; i < n; i++) {
        split_info s;
        memcpy(&s, all + (size_t)i * SIM_BLOB, sizeof s);
        if (s.color != color) continue;
        int j = m++;
        while (j > 0) {
            split_info p;
            memcpy(&p, all + (size_t)out[j - 1] * SIM_BLOB, sizeof p);
            if (p.key <= s.key) break; /* ties keep parent order (i grows) */
            out[j] = out[j - 1];
            j--;
        }
        out[j] = i;
    }
    return m;
}

/* Three exchanges over the parent, which every parent rank makes even when
 * it is not a member or something failed locally (so no one is left
 * waiting): (color, key); the segment name from each group's lowest parent
 * rank; "mapped", after which that rank unlinks the name. */
mgpu_result sim_comm_split(mgpu_comm *parent, int color, int key, mgpu_comm *child, int *member)
{
    *member = 0;
    sim_comm *ps;
    MGPU_CHECK(sim_comm_enter(parent, &ps));
    int n = parent->size, me = parent->rank;
    sim_ctx x;
    sim_comm_ctx(parent, ps, "split", &x);
    unsigned char blob[SIM_BLOB] = {0};
    unsigned char *all = malloc((size_t)n * SIM_BLOB);
    int *mem = malloc(sizeof(int) * (size_t)n);
    sim_comm *sc = NULL;
    char name[SIM_NAME_LEN] = {0};
    int leader = 0, m = 0, myrank = -1;
    mgpu_result local = MGPU_OK, r = MGPU_OK;
    if (!all || !mem) {
        r = mgpu_fail(MGPU_ERR_NOMEM, "out of host memory splitting communicator '%s'", parent->name);
        goto out;
    }
    split_info si = {color < 0 ? -1 : color, key};
    memcpy(blob, &si, sizeof si);
    MGPU_CHECKGOTO(sim_exchange(&x, blob, all), r, out);
    if (color >= 0) {
        m = members_of(all, n, color, mem); /* at least this rank */
        leader = m > 0 ? mem[0] : me;
        for (int i = 0; i < m; i++) {
            if (mem[i] < leader) leader = mem[i];
            if (mem[i] == me) myrank = i;
        }
        child->rank = myrank;
        child->size = m;
        local = new_impl(child, &sc);
        if (local == MGPU_OK && me == leader) {
            local = sim_seg_create(m, &sc->seg, name);
            if (local != MGPU_OK) name[0] = 0;
        }
    }
    memset(blob, 0, sizeof blob);
    memcpy(blob, name, SIM_NAME_LEN);
    MGPU_CHECKGOTO(sim_exchange(&x, blob, all), r, out);
    if (color >= 0 && local == MGPU_OK && me != leader) {
        memcpy(name, all + (size_t)leader * SIM_BLOB, SIM_NAME_LEN);
        name[SIM_NAME_LEN - 1] = 0;
        local = name[0] ? sim_seg_open(name, m, &sc->seg)
                        : mgpu_fail(MGPU_ERR_IO, "split of '%s': rank %d could not create the group's shared memory",
                                    parent->name, leader);
    }
    memset(blob, 0, sizeof blob);
    MGPU_CHECKGOTO(sim_exchange(&x, blob, all), r, out);
    if (color >= 0 && me == leader && name[0]) sim_seg_unlink(&sc->seg, name);
    if (color >= 0 && local == MGPU_OK) local = meet(child, sc);
    if (color >= 0 && local == MGPU_OK) local = nvls_setup(child, sc);
    if (local != MGPU_OK) {
        r = local;
        goto out;
    }
    if (color >= 0) {
        child->id = fnv1a(name);
        child->impl = sc;
        sim_log_comm(child, sc);
        sc = NULL;
        *member = 1;
    }
out:
    if (sc) sim_comm_free(sc);
    free(all);
    free(mem);
    sim_comm_leave(ps);
    MGPU_CHECK(r);
    return MGPU_OK;
}
