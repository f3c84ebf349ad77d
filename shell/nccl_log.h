/* nccl_log.h - a summary of NCCL_DEBUG=INFO output (version, rings, trees,
 * channels, transport per peer, algorithm/protocol per size): feed lines,
 * read the struct. Pure C, no curses, so the log pane and tests share it. */
#ifndef MGPU_SHELL_NCCL_LOG_H
#define MGPU_SHELL_NCCL_LOG_H

#define NCCL_LOG_MAX_RANKS 64     /* ring orders and trees beyond this are cut (counted) */
#define NCCL_LOG_MAX_CHANNELS 64
#define NCCL_LOG_MAX_LINKS 256
#define NCCL_LOG_MAX_TUNING 64
#define NCCL_LOG_MAX_COLLS 16

typedef struct nccl_ring {
    int channel;
    int nranks;                   /* ranks listed (<= NCCL_LOG_MAX_RANKS) */
    int order[NCCL_LOG_MAX_RANKS];
} nccl_ring;

typedef struct nccl_link {
    int from, to;                 /* global ranks */
    char transport[24];           /* "P2P/CUMEM", "P2P/IPC", "P2P/direct", "SHM", "NET/Socket", "NET/IB", "NVLS", ... */
    char detail[64];              /* what NCCL printed after "via" */
    int gdr;                      /* NET: 1 GDRDMA, 0 not; -1 not a network link */
    unsigned long long channels;  /* bit per channel (< 64) the link was set up on */
} nccl_link;

typedef struct nccl_tuning {
    char coll[20];                /* "AllReduce" ("" when NCCL did not say) */
    long long bytes;
    char algo[16];                /* "RING", "TREE", "NVLS", ... */
    char proto[16];               /* "LL", "LL128", "SIMPLE" */
    int ch_lo, ch_hi;             /* -1 when not printed */
} nccl_tuning;

typedef struct nccl_coll_count {
    char name[20];                /* "AllReduce" */
    long calls;                   /* opCount lines seen */
    long long last_count;         /* elements of the last call */
    int last_datatype;
} nccl_coll_count;

typedef struct nccl_summary {
    long lines;                   /* lines fed */
    long nccl_lines;              /* lines with "NCCL INFO"/"NCCL WARN" */
    char version[48];             /* "2.21.5+cuda12.4" */
    char network[24];             /* "Socket", "IB", "" unknown */
    int nranks, nnodes;           /* from "comm ... nRanks N nNodes M"; 0 unknown */
    int nchannels;                /* from "Channel 00/24 :" (ring channels); 0 unknown */
    int coll_channels, collnet_channels, nvls_channels, p2p_channels; /* -1 unknown */
    int gdr;                      /* any network link: 1 all GDRDMA, 0 some without, -1 no network link */
    int nrings;
    nccl_ring rings[NCCL_LOG_MAX_CHANNELS];
    /* trees: per channel (< 8 kept) and rank, the parent (-1 root) */
    int ntree_channels;
    int tree_up[8][NCCL_LOG_MAX_RANKS];   /* -2 unknown */
    int nlinks;
    int links_dropped;            /* beyond NCCL_LOG_MAX_LINKS */
    nccl_link links[NCCL_LOG_MAX_LINKS];
    int ntuning;
    nccl_tuning tuning[NCCL_LOG_MAX_TUNING];
    int ncolls;
    nccl_coll_count colls[NCCL_LOG_MAX_COLLS];
    int nwarn;                    /* NCCL WARN lines */
    char last_warn[160];
    /* parser state: ring neighbours from "Ring 00 : a -> me -> b" lines */
    int ring_next[NCCL_LOG_MAX_CHANNELS][NCCL_LOG_MAX_RANKS];
    char last_coll[20];           /* for the old "N Bytes -> Algo 1 proto 2" lines */
} nccl_summary;

void nccl_summary_init(nccl_summary *s);
/* Feed one line (any text; lines that are not NCCL's are counted and
 * ignored). Returns 1 when the line changed the summary. */
int nccl_summary_feed(nccl_summary *s, const char *line);

/* Links per transport: fills names[i]/counts[i] (up to max), returns how many. */
int nccl_summary_transports(const nccl_summary *s, const char **names, int *counts, int max);
/* Number of channels a link was set up on. */
int nccl_link_channel_count(const nccl_link *l);

#endif
