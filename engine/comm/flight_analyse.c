/* flight_analyse.c - read every rank's flight-recorder dump, line the
 * collectives up by sequence number per communicator, and say the first
 * divergence in one sentence: a different op, the same op with a different
 * count/dtype/root/reduction, a rank that never entered a collective, or a
 * rank that sent no record at all (with what the caller saw of it: it was
 * killed, stopped, never connected). */
#include "comm/comm_args.h"
#include "comm/flight.h"
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct an_entry {
    uint64_t seq, count;
    int op, dtype, redop, root, state;
    char where[64];     /* the script line that made the call, or "" */
} an_entry;

typedef struct an_rank {
    int present;        /* this rank's dump has the comm */
    an_entry *e;        /* collectives only, in seq order */
    int n;
} an_rank;

typedef struct an_comm {
    char id[40], name[40];
    int size;
    an_rank *ranks;     /* size of them, indexed by rank in the comm */
} an_comm;

typedef struct an_set {
    an_comm *comms;
    int n;
} an_set;

/*--- Small text helpers ---*/

typedef struct sb { char *p; size_t len, used; } sb;

static void sb_add(sb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_add(sb *b, const char *fmt, ...)
{
    if (b->used >= b->len) return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b->p + b->used, b->len - b->used, fmt, ap);
    va_end(ap);
    if (n > 0) b->used += (size_t)n < b->len - b->used ? (size_t)n : b->len - b->used - 1;
}

/* "rank 3", "ranks 0-2", "ranks 0, 2-3" */
static void sb_ranks(sb *b, const int *in, int n)
{
    sb_add(b, "rank%s ", n > 1 ? "s" : "");
    for (int i = 0; i < n;) {
        int j = i;
        while (j + 1 < n && in[j + 1] == in[j] + 1) j++;
        sb_add(b, "%s%d", i ? ", " : "", in[i]);
        if (j > i) sb_add(b, "-%d", in[j]);
        i = j + 1;
    }
}

/*--- Reading the dumps ---*/

static int entry_cmp(const void *a, const void *b)
{
    const an_entry *x = a, *y = b;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static mgpu_result read_comm(an_set *set, json_t *obj, int dump_rank)
{
    const char *id = json_string_value(json_object_get(obj, "comm_id"));
    const char *name = json_string_value(json_object_get(obj, "comm"));
    json_t *jr = json_object_get(obj, "rank"), *js = json_object_get(obj, "size");
    json_t *entries = json_object_get(obj, "entries");
    if (!id || !json_is_integer(jr) || !json_is_integer(js) || !json_is_array(entries))
        return mgpu_fail(MGPU_ERR_PARSE, "rank %d's flight record lacks comm_id, rank, size or entries", dump_rank);
    int rank = (int)json_integer_value(jr), size = (int)json_integer_value(js);
    if (size < 1 || size > 1 << 20 || rank < 0 || rank >= size)
        return mgpu_fail(MGPU_ERR_PARSE, "rank %d's flight record says rank %d of size %d", dump_rank, rank, size);
    an_comm *c = NULL;
    for (int i = 0; i < set->n; i++)
        if (strcmp(set->comms[i].id, id) == 0) c = &set->comms[i];
    if (!c) {
        an_comm *grown = realloc(set->comms, (size_t)(set->n + 1) * sizeof *grown);
        if (!grown) return mgpu_fail(MGPU_ERR_NOMEM, "out of host memory reading flight records");
        set->comms = grown;
        c = &set->comms[set->n];
        memset(c, 0, sizeof *c);
        snprintf(c->id, sizeof c->id, "%s", id);
        snprintf(c->name, sizeof c->name, "%s", name ? name : "?");
        c->size = size;
        c->ranks = calloc((size_t)size, sizeof *c->ranks);
        if (!c->ranks) return mgpu_fail(MGPU_ERR_NOMEM, "out of host memory reading flight records");
        set->n++;
    }
    if (size != c->size)
        return mgpu_fail(MGPU_ERR_PARSE, "flight records of comm %s disagree on its size (%d and %d)", c->name,
                         c->size, size);
    an_rank *r = &c->ranks[rank];
    if (r->present) return MGPU_OK; /* the same comm twice in one dump: keep the first */
    r->present = 1;
    size_t n = json_array_size(entries);
    r->e = calloc(n ? n : 1, sizeof *r->e);
    if (!r->e) return mgpu_fail(MGPU_ERR_NOMEM, "out of host memory reading flight records");
    for (size_t i = 0; i < n; i++) {
        json_t *e = json_array_get(entries, i);
        int op = mgpu_coll_parse(json_string_value(json_object_get(e, "op")));
        json_t *seq = json_object_get(e, "seq"), *count = json_object_get(e, "count");
        if (op < 0 || !json_is_integer(seq) || !json_is_integer(count))
            return mgpu_fail(MGPU_ERR_PARSE, "rank %d's flight record has an entry without a known op, seq or count",
                             dump_rank);
        if (mgpu_coll_is_p2p((mgpu_coll)op)) continue; /* point-to-point does not involve every rank */
        an_entry *d = &r->e[r->n++];
        d->seq = (uint64_t)json_integer_value(seq);
        d->count = (uint64_t)json_integer_value(count);
        d->op = op;
        d->dtype = mgpu_dtype_parse(json_string_value(json_object_get(e, "dtype")));
        d->redop = mgpu_redop_parse(json_string_value(json_object_get(e, "redop")));
        json_t *root = json_object_get(e, "root");
        d->root = json_is_integer(root) ? (int)json_integer_value(root) : -1;
        d->state = mgpu_flight_state_parse(json_string_value(json_object_get(e, "state")));
        const char *where = json_string_value(json_object_get(e, "where"));
        snprintf(d->where, sizeof d->where, "%s", where ? where : "");
    }
    qsort(r->e, (size_t)r->n, sizeof *r->e, entry_cmp);
    return MGPU_OK;
}

static mgpu_result read_dump(an_set *set, const char *text, int dump_rank)
{
    json_error_t err;
    json_t *j = json_loads(text, 0, &err);
    if (!j)
        return mgpu_fail(MGPU_ERR_PARSE, "rank %d's flight record is not valid JSON (line %d: %s)", dump_rank,
                         err.line, err.text);
    mgpu_result r = MGPU_OK;
    if (json_is_array(j)) {
        for (size_t i = 0; i < json_array_size(j) && r == MGPU_OK; i++)
            r = read_comm(set, json_array_get(j, i), dump_rank);
    } else if (json_is_object(j)) {
        r = read_comm(set, j, dump_rank);
    } else {
        r = mgpu_fail(MGPU_ERR_PARSE, "rank %d's flight record is neither an object nor an array", dump_rank);
    }
    json_decref(j);
    return r;
}

static void set_free(an_set *set)
{
    for (int i = 0; i < set->n; i++) {
        for (int r = 0; r < set->comms[i].size; r++) free(set->comms[i].ranks[r].e);
        free(set->comms[i].ranks);
    }
    free(set->comms);
}

/*--- Finding the divergence ---*/

static const an_entry *at_seq(const an_rank *r, uint64_t seq)
{
    for (int i = 0; i < r->n; i++)
        if (r->e[i].seq == seq) return &r->e[i];
    return NULL;
}

enum { D_OP = 1, D_COUNT = 2, D_DTYPE = 4, D_ROOT = 8, D_REDOP = 16 };

static int differs(const an_entry *a, const an_entry *b)
{
    int d = 0;
    if (a->op != b->op) return D_OP;
    if (a->count != b->count) d |= D_COUNT;
    if (a->dtype != b->dtype) d |= D_DTYPE;
    if (mgpu_coll_has_root((mgpu_coll)a->op) && a->root != b->root) d |= D_ROOT;
    if (mgpu_coll_has_redop((mgpu_coll)a->op) && a->redop != b->redop) d |= D_REDOP;
    return d;
}

/* `where`: the script line all ranks of the class called it from, or NULL */
static void sb_entry(sb *b, const an_entry *e, int diff, const char *where)
{
    sb_add(b, "%s #%llu with %llu %s", mgpu_coll_name((mgpu_coll)e->op), (unsigned long long)e->seq,
           (unsigned long long)e->count, e->dtype >= 0 ? mgpu_dtype_name((mgpu_dtype)e->dtype) : "?");
    if (diff & D_ROOT) sb_add(b, " from root %d", e->root);
    if (diff & D_REDOP) sb_add(b, " (%s)", e->redop >= 0 ? mgpu_redop_name((mgpu_redop)e->redop) : "?");
    if (where && where[0]) sb_add(b, " at %s", where);
}

/* Ranks that entered `seq` with more than one signature. */
static int mismatch_sentence(const an_comm *c, const an_entry **got, sb *b)
{
    int *cls = malloc((size_t)c->size * sizeof *cls), *members = malloc((size_t)c->size * sizeof *members);
    int ncls = 0, all_diff = 0, found = 0;
    const an_entry *rep[64];
    if (!cls || !members) goto out;
    for (int r = 0; r < c->size; r++) {
        cls[r] = -1;
        if (!got[r]) continue;
        for (int k = 0; k < ncls && cls[r] < 0; k++)
            if (!differs(got[r], rep[k])) cls[r] = k;
        if (cls[r] < 0 && ncls < 64) {
            for (int k = 0; k < ncls; k++) all_diff |= differs(got[r], rep[k]);
            rep[ncls] = got[r];
            cls[r] = ncls++;
        }
    }
    if (ncls < 2) goto out;
    found = 1;
    for (int k = 0; k < ncls; k++) {
        int n = 0;
        const char *where = rep[k]->where;
        for (int r = 0; r < c->size; r++)
            if (cls[r] == k) {
                members[n++] = r;
                if (where && strcmp(got[r]->where, where) != 0) where = NULL; /* called from several lines */
            }
        if (k) sb_add(b, "; ");
        sb_ranks(b, members, n);
        sb_add(b, " entered ");
        sb_entry(b, rep[k], all_diff, where);
    }
    if (!(all_diff & D_OP)) {
        const char *names[] = {"count", "dtype", "root", "reduction op"};
        int bits[] = {D_COUNT, D_DTYPE, D_ROOT, D_REDOP}, first = 1;
        sb_add(b, " (");
        for (int i = 0; i < 4; i++)
            if (all_diff & bits[i]) {
                sb_add(b, "%s%s", first ? "" : " and ", names[i]);
                first = 0;
            }
        sb_add(b, " mismatch)");
    }
out:
    free(cls);
    free(members);
    return found;
}

static void sb_last(sb *b, const an_rank *r, const char *comm)
{
    if (!r->present) {
        sb_add(b, "it has no record of comm %s", comm);
    } else if (r->n == 0) {
        sb_add(b, "it entered no collective on comm %s", comm);
    } else {
        const an_entry *e = &r->e[r->n - 1];
        sb_add(b, "#%llu (%s, %s)", (unsigned long long)e->seq, mgpu_coll_name((mgpu_coll)e->op),
               e->state >= 0 ? mgpu_flight_state_name((mgpu_flight_state)e->state) : "?");
    }
}

static int same_last(const an_rank *a, const an_rank *b)
{
    if (a->present != b->present || a->n != b->n) return a->present == b->present && !a->n && !b->n;
    if (!a->n) return 1;
    const an_entry *x = &a->e[a->n - 1], *y = &b->e[b->n - 1];
    return x->seq == y->seq && x->op == y->op && x->state == y->state;
}

static int never_entered_sentence(const an_comm *c, const an_entry *ref, const an_entry **got, sb *b)
{
    int *miss = malloc((size_t)c->size * sizeof *miss), n = 0;
    if (!miss) return 0;
    for (int r = 0; r < c->size; r++)
        if (!got[r]) miss[n++] = r;
    if (n) {
        sb_ranks(b, miss, n);
        sb_add(b, " never entered %s #%llu; ", mgpu_coll_name((mgpu_coll)ref->op), (unsigned long long)ref->seq);
        int uniform = 1;
        for (int i = 1; i < n; i++) uniform &= same_last(&c->ranks[miss[0]], &c->ranks[miss[i]]);
        if (uniform) {
            const an_rank *r = &c->ranks[miss[0]];
            if (r->present && r->n) sb_add(b, "%s last collective was ", n > 1 ? "their" : "its");
            sb_last(b, r, c->name);
        } else {
            for (int i = 0; i < n; i++) {
                const an_rank *r = &c->ranks[miss[i]];
                sb_add(b, "%srank %d's last collective was ", i ? ", " : "", miss[i]);
                if (r->present && r->n) sb_last(b, r, c->name);
                else sb_add(b, "none");
            }
        }
    }
    free(miss);
    return n > 0;
}

static int analyse_comm(const an_comm *c, sb *b)
{
    uint64_t lo = 0, hi = 0;
    int any = 0;
    for (int r = 0; r < c->size; r++) {
        const an_rank *x = &c->ranks[r];
        if (!x->n) continue;
        /* Start where every rank's ring still has history. */
        if (!any || x->e[0].seq > lo) lo = x->e[0].seq;
        if (!any || x->e[x->n - 1].seq > hi) hi = x->e[x->n - 1].seq;
        any = 1;
    }
    if (!any) return 0;
    const an_entry **got = calloc((size_t)c->size, sizeof *got);
    if (!got) return 0;
    int found = 0;
    for (uint64_t s = lo; s <= hi && !found; s++) {
        const an_entry *ref = NULL;
        for (int r = 0; r < c->size; r++) {
            got[r] = at_seq(&c->ranks[r], s);
            if (got[r] && !ref) ref = got[r];
        }
        if (!ref) continue;
        found = mismatch_sentence(c, got, b);
        if (!found) found = never_entered_sentence(c, ref, got, b);
    }
    free(got);
    return found;
}

/* "rank 2 sent no flight record (it was killed by signal 9 (SIGKILL)); ranks
 * 0, 3 sent no flight record (...)": ranks grouped by what was said of them. */
static void absent_sentence(sb *b, const char *const *dumps, const char *const *why, int nranks, int *list)
{
    for (int r = 0; r < nranks; r++) {
        if (dumps[r]) continue;
        const char *w = why && why[r] ? why[r] : NULL;
        int seen = 0; /* grouped with an earlier rank already */
        for (int q = 0; q < r && !seen; q++) {
            const char *v = why && why[q] ? why[q] : NULL;
            seen = !dumps[q] && (v == w || (v && w && strcmp(v, w) == 0));
        }
        if (seen) continue;
        int n = 0;
        for (int q = r; q < nranks; q++) {
            const char *v = why && why[q] ? why[q] : NULL;
            if (!dumps[q] && (v == w || (v && w && strcmp(v, w) == 0))) list[n++] = q;
        }
        if (b->used) sb_add(b, "; ");
        sb_ranks(b, list, n);
        sb_add(b, " sent no flight record (%s)",
               w ? w : n > 1 ? "they sent nothing: died, or stopped answering" : "it sent nothing: died, or stopped answering");
    }
}

mgpu_result mgpu_flight_analyse(const char *const *dumps, int nranks, char *sentence, size_t len)
{
    return mgpu_flight_analyse_why(dumps, NULL, nranks, sentence, len);
}

mgpu_result mgpu_flight_analyse_why(const char *const *dumps, const char *const *absent_why, int nranks,
                                    char *sentence, size_t len)
{
    if (!sentence || len == 0) return mgpu_fail(MGPU_ERR_INVALID, "mgpu_flight_analyse: no room for the sentence");
    sentence[0] = '\0';
    if (!dumps || nranks < 1)
        return mgpu_fail(MGPU_ERR_INVALID, "mgpu_flight_analyse: no dumps (nranks %d)", nranks);
    sb b = {sentence, len, 0};
    int *list = malloc((size_t)nranks * sizeof *list), nabsent = 0;
    if (!list) return mgpu_fail(MGPU_ERR_NOMEM, "out of host memory analysing flight records");
    for (int r = 0; r < nranks; r++) nabsent += !dumps[r];
    if (nabsent) {
        /* A rank without a record is the first thing to know: its peers'
         * records cannot say what it was doing. */
        absent_sentence(&b, dumps, absent_why, nranks, list);
        free(list);
        return MGPU_OK;
    }
    free(list);
    an_set set = {NULL, 0};
    mgpu_result res = MGPU_OK;
    for (int r = 0; r < nranks && res == MGPU_OK; r++) res = read_dump(&set, dumps[r], r);
    for (int i = 0; i < set.n && res == MGPU_OK; i++) {
        char buf[1024];
        sb one = {buf, sizeof buf, 0};
        buf[0] = '\0';
        if (analyse_comm(&set.comms[i], &one)) {
            if (set.n > 1) sb_add(&b, "on comm %s: ", set.comms[i].name);
            sb_add(&b, "%s", buf);
            break;
        }
    }
    set_free(&set);
    if (res != MGPU_OK) sentence[0] = '\0';
    return res;
}
