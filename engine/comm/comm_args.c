/* comm_args.c - names of collectives and reduction ops, and the argument
 * checks every collective passes before it reaches a backend (buffer ranges
 * by op, roots and peers, dtype and op), so both backends may trust them. */
#include "comm/comm_args.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const coll_names[MGPU_COLL_COUNT] = {
    "all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce", "alltoall", "send", "recv", "barrier",
};

const char *mgpu_coll_name(mgpu_coll c) { return (unsigned)c < MGPU_COLL_COUNT ? coll_names[c] : "unknown"; }

/* Accepts our names, nccl-tests' spellings ("allreduce", "all_reduce_perf",
 * "alltoall"), hyphens for underscores and any case. "sendrecv" is a bench,
 * not one communicator operation, so it is not accepted here. */
int mgpu_coll_parse(const char *name)
{
    char canon[40];
    if (!name || strlen(name) >= sizeof canon) return -1;
    size_t n = 0;
    for (const char *p = name; *p && n + 1 < sizeof canon; p++) {
        if (*p == '_' || *p == '-') continue;
        canon[n++] = (char)((*p >= 'A' && *p <= 'Z') ? *p - 'A' + 'a' : *p);
    }
    canon[n] = '\0';
    if (n > 4 && strcmp(canon + n - 4, "perf") == 0) canon[n - 4] = '\0';
    static const struct { const char *alias; mgpu_coll c; } aliases[] = {
        {"allreduce", MGPU_COLL_ALL_REDUCE}, {"allgather", MGPU_COLL_ALL_GATHER},
        {"reducescatter", MGPU_COLL_REDUCE_SCATTER}, {"broadcast", MGPU_COLL_BROADCAST},
        {"bcast", MGPU_COLL_BROADCAST}, {"reduce", MGPU_COLL_REDUCE}, {"alltoall", MGPU_COLL_ALLTOALL},
        {"send", MGPU_COLL_SEND}, {"recv", MGPU_COLL_RECV}, {"barrier", MGPU_COLL_BARRIER},
    };
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (strcmp(canon, aliases[i].alias) == 0) return (int)aliases[i].c;
    return -1;
}

static const char *const redop_names[MGPU_REDOP_COUNT] = {"sum", "prod", "max", "min", "avg"};

const char *mgpu_redop_name(mgpu_redop op) { return (unsigned)op < MGPU_REDOP_COUNT ? redop_names[op] : "unknown"; }

int mgpu_redop_parse(const char *name)
{
    for (int i = 0; name && i < MGPU_REDOP_COUNT; i++)
        if (strcasecmp(name, redop_names[i]) == 0) return i;
    if (name && strcasecmp(name, "product") == 0) return MGPU_PROD;
    if (name && strcasecmp(name, "mean") == 0) return MGPU_AVG;
    return -1;
}

int mgpu_coll_is_p2p(mgpu_coll op) { return op == MGPU_COLL_SEND || op == MGPU_COLL_RECV; }
int mgpu_coll_has_redop(mgpu_coll op)
{
    return op == MGPU_COLL_ALL_REDUCE || op == MGPU_COLL_REDUCE_SCATTER || op == MGPU_COLL_REDUCE;
}
int mgpu_coll_has_root(mgpu_coll op)
{
    return op == MGPU_COLL_BROADCAST || op == MGPU_COLL_REDUCE || mgpu_coll_is_p2p(op);
}

/* Elements each side must hold, as NCCL defines them per op. */
static void needed(const mgpu_comm *c, const mgpu_coll_args *a, size_t *send_el, size_t *recv_el, int *overflow)
{
    size_t n = (size_t)c->size, k = a->count;
    size_t nk = k * n;
    *overflow = (n != 0 && nk / n != k);
    *send_el = *recv_el = k;
    switch (a->op) {
    case MGPU_COLL_ALL_GATHER: *recv_el = nk; break;
    case MGPU_COLL_REDUCE_SCATTER: *send_el = nk; break;
    case MGPU_COLL_ALLTOALL: *send_el = *recv_el = nk; break;
    case MGPU_COLL_SEND: *recv_el = 0; break;
    case MGPU_COLL_RECV: *send_el = 0; break;
    case MGPU_COLL_BROADCAST: if (c->rank != a->root) *send_el = 0; break; /* only the root's is read */
    case MGPU_COLL_REDUCE: if (c->rank != a->root) *recv_el = 0; break;   /* only the root's is written */
    default: break;
    }
}

void mgpu_coll_extent(const mgpu_comm *c, const mgpu_coll_args *a, size_t *send_el, size_t *recv_el)
{
    int overflow;
    needed(c, a, send_el, recv_el, &overflow);
}

static mgpu_result check_buffer(const mgpu_comm *c, const char *api, const char *which, const mgpu_buffer *b,
                                size_t off, size_t elements, size_t esize)
{
    if (elements == 0 && !b) return MGPU_OK;
    if (!b) return mgpu_fail(MGPU_ERR_INVALID, "%s: the %s buffer is NULL", api, which);
    if (b->be != c->be)
        return mgpu_fail(MGPU_ERR_INVALID, "%s: the %s buffer belongs to another backend than communicator %s",
                         api, which, c->name);
    if (b->kind != MGPU_MEM_DEVICE)
        return mgpu_fail(MGPU_ERR_INVALID,
                         "%s: the %s buffer is %s host memory; collectives read and write device memory "
                         "(allocate it with MGPU_MEM_DEVICE on device %d)",
                         api, which, mgpu_mem_kind_name(b->kind), c->device);
    if (b->device != c->device)
        return mgpu_fail(MGPU_ERR_INVALID, "%s: the %s buffer is on device %d but communicator %s is on device %d",
                         api, which, b->device, c->name, c->device);
    size_t bytes = elements * esize;
    if (elements && bytes / elements != esize)
        return mgpu_fail(MGPU_ERR_INVALID, "%s: %zu elements overflow the address space", api, elements);
    if (off > b->bytes || bytes > b->bytes - off)
        return mgpu_fail(MGPU_ERR_INVALID,
                         "%s: the %s buffer needs %zu bytes from offset %zu (%zu elements) but holds %zu bytes", api,
                         which, bytes, off, elements, b->bytes);
    return MGPU_OK;
}

mgpu_result mgpu_coll_args_check(const mgpu_comm *c, const mgpu_coll_args *a)
{
    const char *api = mgpu_coll_name(a->op);
    if ((unsigned)a->op >= MGPU_COLL_COUNT || a->op == MGPU_COLL_BARRIER)
        return mgpu_fail(MGPU_ERR_INVALID, "collective: operation %d is not a collective", (int)a->op);
    if ((unsigned)a->dtype >= MGPU_DTYPE_COUNT)
        return mgpu_fail(MGPU_ERR_INVALID, "%s: dtype %d is not one of f32, f16, bf16, i32", api, (int)a->dtype);
    if (mgpu_coll_has_redop(a->op) && (unsigned)a->redop >= MGPU_REDOP_COUNT)
        return mgpu_fail(MGPU_ERR_INVALID, "%s: reduction op %d is not one of sum, prod, max, min, avg", api,
                         (int)a->redop);
    if (mgpu_coll_has_root(a->op) && (a->root < 0 || a->root >= c->size))
        return mgpu_fail(MGPU_ERR_INVALID, "%s: %s %d is not a rank of communicator %s (ranks 0..%d)", api,
                         mgpu_coll_is_p2p(a->op) ? "peer" : "root", a->root, c->name, c->size - 1);
    size_t send_el, recv_el;
    int overflow;
    needed(c, a, &send_el, &recv_el, &overflow);
    if (overflow) return mgpu_fail(MGPU_ERR_INVALID, "%s: count %zu times %d ranks overflows", api, a->count, c->size);
    size_t es = mgpu_dtype_size(a->dtype);
    MGPU_CHECK(check_buffer(c, api, "send", a->send, a->send_off, send_el, es));
    MGPU_CHECK(check_buffer(c, api, "receive", a->recv, a->recv_off, recv_el, es));
    if (a->send && a->send->phantom && a->recv && !a->recv->phantom)
        return mgpu_fail(MGPU_ERR_INVALID,
                         "%s on %s: the send buffer is phantom (shape-only) but the receive buffer is real: "
                         "there are no values to deliver; make both phantom, or both real",
                         api, c->name);
    return MGPU_OK;
}

int mgpu_coll_phantom(const mgpu_coll_args *a)
{
    return (a->send && a->send->phantom) || (a->recv && a->recv->phantom);
}

/*--- The timeout ---------------------------------------------------------*/

/* MGPU_COMM_TIMEOUT: 0 unset or empty, 1 a positive number (in *v), -1 anything else. */
static int env_timeout(double *v)
{
    const char *env = getenv("MGPU_COMM_TIMEOUT");
    if (!env || !*env) return 0;
    char *end;
    *v = strtod(env, &end);
    return *end == '\0' && *v > 0 ? 1 : -1;
}

double mgpu_comm_resolve_timeout(const mgpu_comm_config *cfg)
{
    double v;
    if (cfg && cfg->timeout_s > 0) return cfg->timeout_s;
    return env_timeout(&v) == 1 ? v : 60.0;
}

mgpu_result mgpu_comm_timeout_env_check(void)
{
    double v;
    if (env_timeout(&v) >= 0) return MGPU_OK;
    return mgpu_fail(MGPU_ERR_INVALID, "MGPU_COMM_TIMEOUT='%s' is not a positive number of seconds (e.g. 30 or 2.5)",
                     getenv("MGPU_COMM_TIMEOUT"));
}
