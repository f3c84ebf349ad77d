/* nccl_log.h - a summary of NCCL_DEBUG=INFO output (version, rings, trees,
 * channels, transport per peer, algorithm/protocol per size): feed lines,
 * read the struct. Pure C in the engine, so the log pane, the labs (lab.bench and lab.spmd return the summary of their run) and the tests share it. */
#ifndef MGPU_NCCL_LOG_H
#define MGPU_NCCL_LOG_H
#include <jansson.h>

#define MGPU_NCCL_LOG_MAX_RANKS 64     /* ring orders and trees beyond this are cut (counted) */
#define MGPU_NCCL_LOG_MAX_CHANNELS 64
#define MGPU_NCCL_LOG_MAX_LINKS 256
#define MGPU_NCCL_LOG_MAX_TUNING 64
#define MGPU_NCCL_LOG_MAX_COLLS 16

typedef struct mgpu_nccl_ring {
    int channel;
    int nranks;                   /* ranks listed (<= MGPU_NCCL_LOG_MAX_RANKS) */
    int order[MGPU_NCCL_LOG_MAX_RANKS];
} mgpu_nccl_ring;

typedef struct mgpu_nccl_link {
    int from, to;                 /* global ranks */
    char transport[24];           /* "P2P/CUMEM", "P2P/IPC", "P2P/direct", "SHM", "NET/Socket", "NET/IB", "NVLS", ... */
    char detail[64];              /* what NCCL printed after "via" */
    int gdr;                      /* NET: 1 GDRDMA, 0 not; -1 not a network link */
    unsigned long long channels;  /* bit per channel (< 64) the link was set up on */
} mgpu_nccl_link;

typedef struct mgpu_nccl_tuning {
    char coll[20];                /* "AllReduce" ("" when NCCL did not say) */
    long long bytes;
    char algo[16];                /* "RING", "TREE", "NVLS", ... */
    char proto[16];               /* "LL", "LL128", "SIMPLE" */
    int ch_lo, ch_hi;             /* -1 when not printed */
} mgpu_nccl_tuning;

typedef struct mgpu_nccl_coll_count {
    char name[20];                /* "AllReduce" */
    long calls;                   /* opCount lines seen */
    long long last_count;         /* elements of the last call */
    int last_datatype;
} mgpu_nccl_coll_count;

typedef struct mgpu_nccl_summary {
    long lines;                   /* lines fed */
    long nccl_lines;              /* lines with "NCCL INFO"/"NCCL WARN" */
    char version[48];             /* "2.21.5+cuda12.4" */
    char network[24];             /* "Socket", "IB", "" unknown */
    int nranks, nnodes;           /* from "comm ... nRanks N nNodes M"; 0 unknown */
    int nchannels;                /* from "Channel 00/24 :" (ring channels); 0 unknown */
    int coll_channels, collnet_channels, nvls_channels, p2p_channels; /* -1 unknown */
    int gdr;                      /* any network link: 1 all GDRDMA, 0 some without, -1 no network link */
    int nrings;
    mgpu_nccl_ring rings[MGPU_NCCL_LOG_MAX_CHANNELS];
    /* trees: per channel (< 8 kept) and rank, the parent (-1 root) */
    int ntree_channels;
    int tree_up[8][MGPU_NCCL_LOG_MAX_RANKS];   /* -2 unknown */
    int nlinks;
    int links_dropped;            /* beyond MGPU_NCCL_LOG_MAX_LINKS */
    mgpu_nccl_link links[MGPU_NCCL_LOG_MAX_LINKS];
    int ntuning;
    mgpu_nccl_tuning tuning[MGPU_NCCL_LOG_MAX_TUNING];
    int ncolls;
    mgpu_nccl_coll_count colls[MGPU_NCCL_LOG_MAX_COLLS];
    int simulated;                /* lines of mgpulab's sim communicator (marked SIMULATED) */
    int nwarn;                    /* NCCL WARN lines */
    char last_warn[160];
    /* parser state: ring neighbours from "Ring 00 : a -> me -> b" lines */
    int ring_next[MGPU_NCCL_LOG_MAX_CHANNELS][MGPU_NCCL_LOG_MAX_RANKS];
    char last_coll[20];           /* for the old "N Bytes -> Algo 1 proto 2" lines */
} mgpu_nccl_summary;

void mgpu_nccl_summary_init(mgpu_nccl_summary *s);
/* Feed one line (any text; lines that are not NCCL's are counted and
 * ignored). Returns 1 when the line changed the summary. */
int mgpu_nccl_summary_feed(mgpu_nccl_summary *s, const char *line);

/* Links per transport: fills names[i]/counts[i] (up to max), returns how many. */
int mgpu_nccl_summary_transports(const mgpu_nccl_summary *s, const char **names, int *counts, int max);
/* Number of channels a link was set up on. */
int mgpu_nccl_link_channel_count(const mgpu_nccl_link *l);

/* The summary as a JSON object for labs (nccl_log_json.c): {lines, version,
 * network, nranks, nnodes, nchannels, gdr (true/false/null), simulated,
 * transports = {NAME = links}, links = [{from, to, transport, detail, gdr,
 * channels}], rings = [{channel, order}], trees = [{channel, parent = {...}}],
 * tuning = [{coll, bytes, algo, proto}], colls, warnings, last_warn}.
 * NULL on out of memory. */

json_t *mgpu_nccl_summary_json(const mgpu_nccl_summary *s);

#endif
