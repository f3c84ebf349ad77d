/* nccl_log.c - parse NCCL_DEBUG=INFO lines (2.4 .. 2.2x formats) into an
 * mgpu_nccl_summary: what a learner would otherwise grep for by hand. */
#include "mgpu/nccl_log.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void mgpu_nccl_summary_init(mgpu_nccl_summary *s)
{
    memset(s, 0, sizeof *s);
    s->coll_channels = s->collnet_channels = s->nvls_channels = s->p2p_channels = -1;
    s->gdr = -1;
    for (int c = 0; c < 8; c++)
        for (int r = 0; r < MGPU_NCCL_LOG_MAX_RANKS; r++) s->tree_up[c][r] = -2;
    for (int c = 0; c < MGPU_NCCL_LOG_MAX_CHANNELS; c++)
        for (int r = 0; r < MGPU_NCCL_LOG_MAX_RANKS; r++) s->ring_next[c][r] = -1;
}

static const char *skip_ws(const char *p)
{
    while (*p == ' ' || *p == '\t') p++;
    return p;
}

/* Copy the token at p (up to whitespace or one of `stop`) into out. */
static void copy_token(char *out, size_t len, const char *p, const char *stop)
{
    size_t n = 0;
    while (p[n] && !isspace((unsigned char)p[n]) && !(stop && strchr(stop, p[n])) && n + 1 < len) n++;
    memcpy(out, p, n);
    out[n] = 0;
}

/* An integer at *pp (optional minus), advancing; 0 when none. */
static int read_int(const char **pp, long long *out)
{
    const char *p = skip_ws(*pp);
    char *end;
    if (!(isdigit((unsigned char)*p) || (*p == '-' && isdigit((unsigned char)p[1])))) return 0;
    *out = strtoll(p, &end, 10);
    *pp = end;
    return 1;
}

static mgpu_nccl_ring *ring_for(mgpu_nccl_summary *s, int channel)
{
    for (int i = 0; i < s->nrings; i++)
        if (s->rings[i].channel == channel) return &s->rings[i];
    if (s->nrings >= MGPU_NCCL_LOG_MAX_CHANNELS) return NULL;
    /* keep rings sorted by channel so the pane lists them in order */
    int at = s->nrings;
    while (at > 0 && s->rings[at - 1].channel > channel) at--;
    memmove(&s->rings[at + 1], &s->rings[at], (size_t)(s->nrings - at) * sizeof s->rings[0]);
    s->nrings++;
    memset(&s->rings[at], 0, sizeof s->rings[at]);
    s->rings[at].channel = channel;
    return &s->rings[at];
}

/* "Channel 00/24 :    0   1   2   3" or "Ring 00 : 0 1 2 3": the whole ring. */
static int parse_ring_order(mgpu_nccl_summary *s, int channel, const char *p)
{
    mgpu_nccl_ring *r = ring_for(s, channel);
    if (!r) return 0;
    long long v;
    r->nranks = 0;
    while (read_int(&p, &v))
        if (r->nranks < MGPU_NCCL_LOG_MAX_RANKS) r->order[r->nranks++] = (int)v;
    return 1;
}

/* "Ring 00 : 3 -> 0 -> 1" (each rank prints its neighbours): rebuild the
 * order from the next pointers known so far, starting at the lowest rank. */
static int parse_ring_triple(mgpu_nccl_summary *s, int channel, long long me, long long next)
{
    if (channel < 0 || channel >= MGPU_NCCL_LOG_MAX_CHANNELS || me < 0 || me >= MGPU_NCCL_LOG_MAX_RANKS) return 0;
    s->ring_next[channel][me] = (int)next;
    mgpu_nccl_ring *r = ring_for(s, channel);
    if (!r) return 0;
    int start = -1;
    for (int i = 0; i < MGPU_NCCL_LOG_MAX_RANKS && start < 0; i++)
        if (s->ring_next[channel][i] >= 0) start = i;
    r->nranks = 0;
    int cur = start;
    while (cur >= 0 && cur < MGPU_NCCL_LOG_MAX_RANKS && r->nranks < MGPU_NCCL_LOG_MAX_RANKS) {
        r->order[r->nranks++] = cur;
        cur = s->ring_next[channel][cur];
        if (cur == start) break;
        /* a rank whose line has not arrived yet ends the chain for now */
        if (cur >= 0 && cur < MGPU_NCCL_LOG_MAX_RANKS && s->ring_next[channel][cur] < 0) {
            if (r->nranks < MGPU_NCCL_LOG_MAX_RANKS) r->order[r->nranks++] = cur;
            break;
        }
    }
    return 1;
}

static void canonical_transport(const char *via, char *out, size_t len, int *gdr)
{
    *gdr = -1;
    if (!strncmp(via, "P2P/CUMEM", 9)) snprintf(out, len, "P2P/CUMEM");
    else if (!strncmp(via, "P2P/IPC", 7)) snprintf(out, len, "P2P/IPC");
    else if (!strncmp(via, "P2P/direct", 10)) snprintf(out, len, "P2P/direct");
    else if (!strncmp(via, "P2P", 3)) snprintf(out, len, "P2P");
    else if (!strncmp(via, "SHM", 3)) snprintf(out, len, "SHM");
    else if (!strncmp(via, "NET/", 4)) {
        *gdr = strstr(via, "GDRDMA") != NULL;
        if (!strncmp(via + 4, "IB", 2)) snprintf(out, len, "NET/IB"); /* IB, IBext_v8, ... */
        else {
            char name[16];
            copy_token(name, sizeof name, via + 4, "/");
            snprintf(out, len, "NET/%s", name);
        }
    } else copy_token(out, len, via, "/");
}

/* "... : 0[0] -> 1[1] [send] via P2P/CUMEM/read" after the channel number. */
static int parse_link(mgpu_nccl_summary *s, int channel, const char *p, const char *via)
{
    long long from, to;
    if (!read_int(&p, &from)) return 0;
    if (*p == '[') p = strchr(p, ']') ? strchr(p, ']') + 1 : p;
    p = skip_ws(p);
    if (strncmp(p, "->", 2)) return 0;
    p += 2;
    if (!read_int(&p, &to)) return 0;
    char detail[64], transport[24];
    snprintf(detail, sizeof detail, "%s", skip_ws(via + 4));
    size_t n = strlen(detail);
    while (n && isspace((unsigned char)detail[n - 1])) detail[--n] = 0;
    int gdr;
    canonical_transport(detail, transport, sizeof transport, &gdr);
    mgpu_nccl_link *l = NULL;
    for (int i = 0; i < s->nlinks && !l; i++)
        if (s->links[i].from == from && s->links[i].to == to && !strcmp(s->links[i].transport, transport))
            l = &s->links[i];
    if (!l) {
        if (s->nlinks >= MGPU_NCCL_LOG_MAX_LINKS) {
            s->links_dropped++;
            return 1;
        }
        l = &s->links[s->nlinks++];
        memset(l, 0, sizeof *l);
        l->from = (int)from;
        l->to = (int)to;
        snprintf(l->transport, sizeof l->transport, "%s", transport);
        snprintf(l->detail, sizeof l->detail, "%s", detail);
        l->gdr = gdr;
    }
    if (channel >= 0 && channel < 64) l->channels |= 1ull << channel;
    if (gdr >= 0) s->gdr = (s->gdr == 0 || gdr == 0) ? 0 : 1;
    return 1;
}

/* "Channel 00/24 : 0 1 2 3", "Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM",
 * "Channel 00 : 3[3] -> 4[4] via SHM/direct/direct", "Ring 00 : ..." */
static int parse_channel(mgpu_nccl_summary *s, const char *p, int is_ring_word)
{
    long long ch, total = -1;
    if (!read_int(&p, &ch) || ch < 0 || ch > 4096) return 0; /* NCCL has at most a few dozen */
    if (*p == '/') {
        p++;
        if (!read_int(&p, &total)) return 0;
    }
    p = skip_ws(p);
    if (*p != ':') return 0;
    p++;
    const char *via = strstr(p, "via ");
    if (via) return parse_link(s, (int)ch, p, via);
    if (strstr(p, "->")) {
        if (!is_ring_word) return 0;
        long long a, me, b;
        if (!read_int(&p, &a)) return 0;
        p = skip_ws(p);
        if (strncmp(p, "->", 2)) return 0;
        p += 2;
        if (!read_int(&p, &me)) return 0;
        p = skip_ws(p);
        if (strncmp(p, "->", 2)) return 0;
        p += 2;
        if (!read_int(&p, &b)) return 0;
        return parse_ring_triple(s, (int)ch, me, b);
    }
    /* "Channel 00/0 :" with no list is the start of a connection block */
    if (!is_ring_word && total > 0 && (int)total > s->nchannels) s->nchannels = (int)total;
    const char *q = skip_ws(p);
    if (!isdigit((unsigned char)*q)) return !is_ring_word && total > 0;
    if (is_ring_word && s->nchannels < ch + 1) s->nchannels = (int)ch + 1;
    return parse_ring_order(s, (int)ch, p);
}

/* "Trees [0] 1/-1/-1->0->-1 [1] ..." (2.5+: children->rank->parent) or
 * "Trees [0] 26->25->-1/-1/-1" (2.4: parent->rank->children). */
static int parse_trees(mgpu_nccl_summary *s, const char *p)
{
    int any = 0;
    while ((p = strchr(p, '[')) != NULL) {
        char *end;
        long ch = strtol(p + 1, &end, 10);
        if (*end != ']') break;
        p = skip_ws(end + 1);
        const char *a1 = strstr(p, "->");
        if (!a1) break;
        int new_format = memchr(p, '/', (size_t)(a1 - p)) != NULL;
        const char *q = a1 + 2;
        long long rank, other;
        if (!read_int(&q, &rank) || strncmp(q, "->", 2)) break;
        q += 2;
        long long parent;
        if (new_format) {
            if (!read_int(&q, &parent)) break;
        } else {
            const char *pp = p;
            if (!read_int(&pp, &parent)) break;
            (void)read_int(&q, &other);
        }
        if (ch >= 0 && ch < 8 && rank >= 0 && rank < MGPU_NCCL_LOG_MAX_RANKS) {
            s->tree_up[ch][rank] = (int)parent;
            if (ch + 1 > s->ntree_channels) s->ntree_channels = (int)ch + 1;
            any = 1;
        }
        p = q;
    }
    return any;
}

/* "24 coll channels, 32 collnet channels, 0 nvls channels, 32 p2p channels, ..." */
static int parse_channel_counts(mgpu_nccl_summary *s, const char *p)
{
    int any = 0;
    long long v;
    while (read_int(&p, &v)) {
        char word[24];
        p = skip_ws(p);
        copy_token(word, sizeof word, p, ",");
        p += strlen(word);
        if (strncmp(skip_ws(p), "channels", 8)) break;
        p = skip_ws(p) + 8;
        if (!strncmp(skip_ws(p), "per peer", 8)) p = skip_ws(p) + 8;
        else if (!strcmp(word, "coll")) s->coll_channels = (int)v, any = 1;
        else if (!strcmp(word, "collnet")) s->collnet_channels = (int)v, any = 1;
        else if (!strcmp(word, "nvls")) s->nvls_channels = (int)v, any = 1;
        else if (!strcmp(word, "p2p")) s->p2p_channels = (int)v, any = 1;
        if (*p == ',') p++;
    }
    return any;
}

static void add_tuning(mgpu_nccl_summary *s, const char *coll, long long bytes, const char *algo, const char *proto,
                       int lo, int hi)
{
    mgpu_nccl_tuning *t = NULL;
    for (int i = 0; i < s->ntuning && !t; i++)
        if (s->tuning[i].bytes == bytes && !strcmp(s->tuning[i].coll, coll)) t = &s->tuning[i];
    if (!t) {
        if (s->ntuning == MGPU_NCCL_LOG_MAX_TUNING) { /* keep the newest sizes */
            memmove(&s->tuning[0], &s->tuning[1], (MGPU_NCCL_LOG_MAX_TUNING - 1) * sizeof s->tuning[0]);
            s->ntuning--;
        }
        t = &s->tuning[s->ntuning++];
    }
    snprintf(t->coll, sizeof t->coll, "%s", coll);
    t->bytes = bytes;
    snprintf(t->algo, sizeof t->algo, "%s", algo);
    snprintf(t->proto, sizeof t->proto, "%s", proto);
    t->ch_lo = lo;
    t->ch_hi = hi;
}

/* Before 2.19 NCCL printed the algorithm and protocol as numbers. */
static const char *algo_name(const char *tok)
{
    static const char *const names[] = {"TREE", "RING", "COLLNET_DIRECT", "COLLNET_CHAIN", "NVLS", "NVLS_TREE", "PAT"};
    if (isdigit((unsigned char)tok[0]) && !tok[1] && tok[0] - '0' < 7) return names[tok[0] - '0'];
    return tok;
}
static const char *proto_name(const char *tok)
{
    static const char *const names[] = {"LL", "LL128", "SIMPLE"};
    if (isdigit((unsigned char)tok[0]) && !tok[1] && tok[0] - '0' < 3) return names[tok[0] - '0'];
    return tok;
}

/* "N Bytes -> Algo A proto P [channel{Lo..Hi}={l..h}] [time T]" */
static int parse_bytes_algo(mgpu_nccl_summary *s, const char *coll, const char *p)
{
    long long bytes;
    if (!read_int(&p, &bytes)) return 0;
    p = skip_ws(p);
    if (strncmp(p, "Bytes -> Algo ", 14)) return 0;
    p += 14;
    char algo[16], proto[16];
    copy_token(algo, sizeof algo, p, NULL);
    p = strstr(p, "proto ");
    if (!p) return 0;
    copy_token(proto, sizeof proto, p + 6, NULL);
    int lo = -1, hi = -1;
    const char *c = strstr(p, "={");
    if (c && sscanf(c, "={%d..%d}", &lo, &hi) != 2) lo = hi = -1;
    add_tuning(s, coll, bytes, algo_name(algo), proto_name(proto), lo, hi);
    return 1;
}

/* "AllReduce: opCount 0 sendbuff ... count 1024 datatype 7 op 0 ..." */
static int parse_coll_call(mgpu_nccl_summary *s, const char *name, const char *p)
{
    mgpu_nccl_coll_count *c = NULL;
    for (int i = 0; i < s->ncolls && !c; i++)
        if (!strcmp(s->colls[i].name, name)) c = &s->colls[i];
    if (!c) {
        if (s->ncolls >= MGPU_NCCL_LOG_MAX_COLLS) return 0;
        c = &s->colls[s->ncolls++];
        memset(c, 0, sizeof *c);
        snprintf(c->name, sizeof c->name, "%s", name);
    }
    c->calls++;
    const char *q = strstr(p, " count ");
    long long v;
    if (q && (q += 7, read_int(&q, &v))) c->last_count = v;
    q = strstr(p, " datatype ");
    if (q && (q += 10, read_int(&q, &v))) c->last_datatype = (int)v;
    snprintf(s->last_coll, sizeof s->last_coll, "%s", name);
    return 1;
}

int mgpu_nccl_summary_feed(mgpu_nccl_summary *s, const char *line)
{
    s->lines++;
    const char *p = strstr(line, "NCCL INFO ");
    if (!p) {
        const char *w = strstr(line, "NCCL WARN ");
        if (!w) return 0;
        s->nccl_lines++;
        s->nwarn++;
        snprintf(s->last_warn, sizeof s->last_warn, "%s", w + 10);
        return 1;
    }
    s->nccl_lines++;
    if (strstr(line, "SIMULATED")) s->simulated = 1;
    p = skip_ws(p + 10);
    if (!strncmp(p, "NCCL version ", 13)) {
        copy_token(s->version, sizeof s->version, p + 13, NULL);
        return 1;
    }
    if (!strncmp(p, "Using network ", 14)) {
        copy_token(s->network, sizeof s->network, p + 14, NULL);
        return 1;
    }
    if (!strncmp(p, "NET/", 4) && strstr(p, " : Using ")) {
        if (!s->network[0]) copy_token(s->network, sizeof s->network, p + 4, " ");
        return 1;
    }
    if (!strncmp(p, "Channel ", 8)) return parse_channel(s, p + 8, 0);
    if (!strncmp(p, "Ring ", 5)) return parse_channel(s, p + 5, 1);
    if (!strncmp(p, "Trees ", 6)) return parse_trees(s, p + 6);
    if (!strncmp(p, "comm ", 5)) {
        const char *q = strstr(p, " nRanks ");
        if (!q) q = strstr(p, " nranks ");
        long long v;
        int any = 0;
        if (q && (q += 8, read_int(&q, &v))) s->nranks = (int)v, any = 1;
        q = strstr(p, " nNodes ");
        if (q && (q += 8, read_int(&q, &v))) s->nnodes = (int)v, any = 1;
        return any;
    }
    if (isdigit((unsigned char)*p)) {
        if (strstr(p, " channels")) return parse_channel_counts(s, p);
        if (strstr(p, " Bytes -> Algo ")) return parse_bytes_algo(s, s->last_coll, p);
        return 0;
    }
    /* "<Coll>: opCount ..." or "<Coll>: N Bytes -> Algo ..." */
    char name[20];
    copy_token(name, sizeof name, p, ":");
    size_t n = strlen(name);
    if (n && p[n] == ':' && isupper((unsigned char)name[0])) {
        const char *q = skip_ws(p + n + 1);
        if (!strncmp(q, "opCount ", 8)) return parse_coll_call(s, name, q);
        if (isdigit((unsigned char)*q)) return parse_bytes_algo(s, name, q);
    }
    return 0;
}

int mgpu_nccl_summary_transports(const mgpu_nccl_summary *s, const char **names, int *counts, int max)
{
    int n = 0;
    for (int i = 0; i < s->nlinks; i++) {
        int j = 0;
        while (j < n && strcmp(names[j], s->links[i].transport)) j++;
        if (j == n) {
            if (n == max) continue;
            names[n] = s->links[i].transport;
            counts[n++] = 0;
        }
        counts[j]++;
    }
    return n;
}

int mgpu_nccl_link_channel_count(const mgpu_nccl_link *l)
{
    int n = 0;
    for (unsigned long long b = l->channels; b; b &= b - 1) n++;
    return n;
}
