/* coll_options.c - the values of nccl-tests' flags (mgpu_collbench_set:
 * what `mgpulab bench`'s option table and lab.bench's opts both set), their
 * defaults and the one check of a run's options, the collective table, and
 * nccl-tests' text layout (header, rows, footer) so scripts that parse
 * nccl-tests parse ours. */
#include "mgpu/collbench.h"
#include "mgpu/size.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*--- Collectives ----------------------------------------------------------*/

static const mgpu_collbench_coll *const colls[] = {
    &mgpu_cb_all_reduce, &mgpu_cb_all_gather, &mgpu_cb_broadcast, &mgpu_cb_reduce_scatter,
    &mgpu_cb_reduce,     &mgpu_cb_alltoall,   &mgpu_cb_sendrecv,  NULL,
};

const mgpu_collbench_coll *const *mgpu_collbench_colls(void) { return colls; }

const char *mgpu_collbench_names(char *buf, size_t len)
{
    size_t n = 0;
    int k = 0;
    while (colls[k]) k++;
    buf[0] = '\0';
    for (int i = 0; i < k && n < len; i++)
        n += (size_t)snprintf(buf + n, len - n, "%s%s", i == 0 ? "" : i == k - 1 ? " or " : ", ", colls[i]->name);
    return buf;
}

/* "all_reduce", "all_reduce_perf", "allreduce", "all-reduce" all name it. */
const mgpu_collbench_coll *mgpu_collbench_find(const char *name)
{
    if (!name) return NULL;
    char want[64];
    size_t n = 0;
    for (const char *p = name; *p && n + 1 < sizeof want; p++)
        if (*p != '_' && *p != '-') want[n++] = *p;
    want[n] = '\0';
    if (n > 4 && strcmp(want + n - 4, "perf") == 0) want[n - 4] = '\0';
    for (int i = 0; colls[i]; i++) {
        char have[64];
        size_t m = 0;
        for (const char *p = colls[i]->name; *p; p++)
            if (*p != '_') have[m++] = *p;
        have[m] = '\0';
        if (strcasecmp(have, want) == 0) return colls[i];
    }
    return NULL;
}

mgpu_result mgpu_collbench_lookup(const char *name, const mgpu_collbench_coll **coll)
{
    char names[256];
    *coll = mgpu_collbench_find(name);
    if (!*coll)
        return mgpu_fail(MGPU_ERR_INVALID, "'%s' is not a collective; use %s", name ? name : "",
                         mgpu_collbench_names(names, sizeof names));
    return MGPU_OK;
}

/*--- Options ----------------------------------------------------------------*/

void mgpu_collbench_options_default(mgpu_collbench_options *o)
{
    memset(o, 0, sizeof *o);
    o->min_bytes = 8;
    o->max_bytes = 32ull << 20;
    o->step_bytes = 1ull << 20;
    o->step_factor = 1;
    o->iters = 20;
    o->warmup = 5;
    o->check = 1;
    o->root = 0;
    o->average = 1;
    o->ndtypes = 1;
    o->dtypes[0] = MGPU_F32;
    o->nops = 1;
    o->ops[0] = MGPU_SUM;
    o->tamper_rank = -1;
}

const char *mgpu_collbench_type_name(mgpu_dtype t)
{
    static const char *const names[] = {"float", "half", "bfloat16", "int32"};
    return (unsigned)t < MGPU_DTYPE_COUNT ? names[t] : "?";
}

static mgpu_result parse_op(const char *name, const char *v, mgpu_collbench_options *o)
{
    if (strcmp(v, "all") == 0) {
        o->nops = MGPU_REDOP_COUNT;
        for (int i = 0; i < MGPU_REDOP_COUNT; i++) o->ops[i] = (mgpu_redop)i;
        return MGPU_OK;
    }
    for (int i = 0; i < MGPU_REDOP_COUNT; i++)
        if (strcmp(v, mgpu_redop_name((mgpu_redop)i)) == 0) {
            o->nops = 1;
            o->ops[0] = (mgpu_redop)i;
            return MGPU_OK;
        }
    if (strcmp(v, "mulsum") == 0)
        return mgpu_fail(MGPU_ERR_INVALID, "%s: 'mulsum' (ncclRedOpCreatePreMulSum) is not supported; use sum, "
                                           "prod, max, min, avg or all", name);
    return mgpu_fail(MGPU_ERR_INVALID, "%s: '%s' is not a reduction; use sum, prod, max, min, avg or all", name, v);
}

static mgpu_result parse_type(const char *name, const char *v, mgpu_collbench_options *o)
{
    if (strcmp(v, "all") == 0) {
        o->ndtypes = MGPU_DTYPE_COUNT;
        for (int i = 0; i < MGPU_DTYPE_COUNT; i++) o->dtypes[i] = (mgpu_dtype)i;
        return MGPU_OK;
    }
    int t = mgpu_dtype_parse(v);
    if (t < 0) {
        static const char *const known[] = {"int8", "uint8", "uint32", "int64", "uint64", "double",
                                            "f8e4m3", "f8e5m2", "fp8_e4m3", "fp8_e5m2", NULL};
        for (int i = 0; known[i]; i++)
            if (strcmp(v, known[i]) == 0)
                return mgpu_fail(MGPU_ERR_INVALID, "%s: nccl-tests' type '%s' is not supported by mgpulab; use "
                                                   "float, half, bfloat16, int32 or all", name, v);
        return mgpu_fail(MGPU_ERR_INVALID, "%s: '%s' is not a type; use float, half, bfloat16, int32 or all", name, v);
    }
    o->ndtypes = 1;
    o->dtypes[0] = (mgpu_dtype)t;
    return MGPU_OK;
}

/* Sizes: digits with K/M/G (powers of 1024); a sign, fraction or exponent
 * is refused with the flag's name (nccl-tests would silently misread them). */
static mgpu_result parse_bytes(const char *flag, const char *v, uint64_t *out)
{
    MGPU_CHECK(mgpu_parse_size(v, flag, out));
    if (*out > (64ull << 30))
        return mgpu_fail(MGPU_ERR_INVALID, "%s: '%s' is more than 64G per buffer", flag, v);
    return MGPU_OK;
}

static mgpu_result parse_int(const char *flag, const char *v, long long lo, long long hi, int *out)
{
    long long n = 0;
    MGPU_CHECK(mgpu_parse_count(v, flag, lo, hi, &n));
    *out = (int)n;
    return MGPU_OK;
}

mgpu_result mgpu_collbench_set(mgpu_collbench_options *o, char f, const char *v, const char *as)
{
    char name[48], what[96];
    if (as) snprintf(name, sizeof name, "%s", as);
    else snprintf(name, sizeof name, "-%c", f);
    long long n = 0;
    int x = 0;
    switch (f) {
    case 'b': return parse_bytes(name, v, &o->min_bytes);
    case 'e': return parse_bytes(name, v, &o->max_bytes);
    case 'i': return parse_bytes(name, v, &o->step_bytes);
    case 'f':
        MGPU_CHECK(mgpu_parse_count(v, name, 1, 1 << 20, &n));
        o->step_factor = (uint64_t)n;
        return MGPU_OK;
    case 'n': o->set_iters = 1; return parse_int(name, v, 1, 1000000, &o->iters);
    case 'w': o->set_warmup = 1; return parse_int(name, v, 0, 1000000, &o->warmup);
    case 'c':
        snprintf(what, sizeof what, "%s (check 0 or 1)", name);
        return parse_int(what, v, 0, 1, &o->check);
    case 'z':
        snprintf(what, sizeof what, "%s (blocking 0 or 1)", name);
        return parse_int(what, v, 0, 1, &o->blocking);
    case 'a':
        snprintf(what, sizeof what, "%s (0 rank 0, 1 avg, 2 min, 3 max)", name);
        return parse_int(what, v, 0, 3, &o->average);
    case 'r': return parse_int(name, v, 0, 1 << 20, &o->root);
    case 'o': return parse_op(name, v, o);
    case 'd': return parse_type(name, v, o);
    case 'G':
        MGPU_CHECK(parse_int(name, v, 0, 1000000, &x));
        if (x > 0)
            return mgpu_fail(MGPU_ERR_UNSUPPORTED, "%s %d: CUDA graph launches are not supported by mgpulab "
                                                   "bench; use %s 0", name, x, name);
        return MGPU_OK;
    case 't': case 'g': case 'm':
        MGPU_CHECK(parse_int(name, v, 0, 1 << 20, &x));
        if (x != 1)
            return mgpu_fail(MGPU_ERR_UNSUPPORTED, "%s %d: mgpulab runs one GPU per rank process, one thread and "
                                                   "one collective per iteration; choose ranks with --ranks", name, x);
        return MGPU_OK;
    default: return mgpu_fail(MGPU_ERR_INTERNAL, "flag -%c has no handler", f);
    }
}

uint64_t mgpu_collbench_next_size(const mgpu_collbench_options *o, uint64_t size)
{
    return o->step_factor > 1 ? size * o->step_factor : size + o->step_bytes;
}

#define MAX_SIZES 100000

mgpu_result mgpu_collbench_options_check(const mgpu_collbench_options *o, const mgpu_collbench_coll *coll)
{
    (void)coll;
    if (o->min_bytes > o->max_bytes)
        return mgpu_fail(MGPU_ERR_INVALID, "-b %llu is larger than -e %llu", (unsigned long long)o->min_bytes,
                         (unsigned long long)o->max_bytes);
    if (o->step_factor > 1 && o->min_bytes == 0 && o->max_bytes > 0)
        return mgpu_fail(MGPU_ERR_INVALID, "-f %llu multiplies -b 0 forever; start at -b 1 or more",
                         (unsigned long long)o->step_factor);
    if (o->step_factor <= 1 && o->step_bytes == 0 && o->max_bytes > o->min_bytes)
        return mgpu_fail(MGPU_ERR_INVALID, "-i 0 with -f 1 never reaches -e; give -i > 0 or -f > 1");
    long n = 0;
    for (uint64_t s = o->min_bytes; s <= o->max_bytes; s = mgpu_collbench_next_size(o, s)) {
        if (++n > MAX_SIZES)
            return mgpu_fail(MGPU_ERR_INVALID, "the sweep from -b to -e has more than %d sizes; raise -i or use -f",
                             MAX_SIZES);
        if (mgpu_collbench_next_size(o, s) <= s) break;
    }
    return MGPU_OK;
}

/*--- nccl-tests' text layout -------------------------------------------------*/

void mgpu_collbench_bw(uint64_t bytes, double time_us, double factor, double *algbw, double *busbw)
{
    *algbw = time_us > 0 ? (double)bytes / 1e3 / time_us : 0;
    *busbw = *algbw * factor;
}

/* A non-negative number in `width` columns: as many decimals (2, 1, 0) as
 * fit, as nccl-tests does; never an exponent, so [\d.]+ always matches. */
static void fit(double v, int width, char *out, size_t len)
{
    if (!(v >= 0) || v > 1e15) v = 0; /* NaN/negative/absurd never reach a parser */
    int digits = 1;
    for (double p = 10; v >= p && digits < 17; p *= 10) digits++;
    int dec = digits < width - 2 ? 2 : digits < width - 1 ? 1 : 0;
    snprintf(out, len, "%*.*f", width, dec, v);
}

void mgpu_collbench_format_header(char *buf, size_t len)
{
    snprintf(buf, len,
             "# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place          \n"
             "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s\n"
             "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s\n",
             "", "", "", "", "", "size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong",
             "time", "algbw", "busbw", "#wrong", "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "",
             "(us)", "(GB/s)", "(GB/s)", "");
}

static int half(const mgpu_collbench_half *h, char *buf, size_t len)
{
    char t[32], a[32], b[32], w[32];
    fit(h->time_us, 7, t, sizeof t);
    fit(h->algbw, 6, a, sizeof a);
    fit(h->busbw, 6, b, sizeof b);
    if (h->wrong < 0) snprintf(w, sizeof w, "%6s", "N/A");
    else snprintf(w, sizeof w, "%6lld", (long long)h->wrong);
    return snprintf(buf, len, "  %s  %s  %s  %s", t, a, b, w);
}

void mgpu_collbench_format_row(const mgpu_collbench_row *r, char *buf, size_t len)
{
    int n = snprintf(buf, len, "%12llu  %12llu  %8s  %6s  %6d", (unsigned long long)r->bytes,
                     (unsigned long long)r->count, mgpu_collbench_type_name(r->dtype),
                     r->op >= 0 && r->op < MGPU_REDOP_COUNT ? mgpu_redop_name((mgpu_redop)r->op) : "none", r->root);
    if (n < 0 || (size_t)n >= len) return;
    int m = half(&r->oop, buf + n, len - (size_t)n);
    if (m < 0 || (size_t)(n + m) >= len) return;
    half(&r->ip, buf + n + m, len - (size_t)(n + m));
}

void mgpu_collbench_format_footer(int64_t wrong_checks, double avg_busbw, char *buf, size_t len)
{
    char bw[48];
    if (!(avg_busbw >= 0)) avg_busbw = 0;
    /* %g as nccl-tests prints it, but never in exponent form */
    if (avg_busbw == 0 || (avg_busbw >= 1e-4 && avg_busbw < 1e6)) snprintf(bw, sizeof bw, "%g", avg_busbw);
    else snprintf(bw, sizeof bw, "%.6f", avg_busbw);
    snprintf(buf, len, "# %-20s : %lld %s\n# %-20s : %s \n#\n", "Out of bounds values", (long long)wrong_checks,
             wrong_checks ? "FAILED" : "OK", "Avg bus bandwidth", bw);
}
