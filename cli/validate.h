/* validate.h - `mgpulab validate`'s pieces (private to the CLI): a report of
 * checks, each with what was measured, what the model of this machine
 * expects, and - for an anomaly - its likely cause and what to check next.
 *
 * cmd_validate.c runs the jobs (topology and facts, copies, collectives,
 * per-rank times) and the sim's prediction for the discovered topology;
 * validate_topo.c judges the topology and NVML facts, validate_perf.c the
 * measurements against the predictions; validate_report.c prints the report
 * as a terminal table, Markdown, JSON or JUnit XML. */
#ifndef MGPU_CLI_VALIDATE_H
#define MGPU_CLI_VALIDATE_H
#include <jansson.h>
#include <stdio.h>
#include "mgpu/topo.h"

typedef enum vstatus { V_OK = 0, V_ANOMALY, V_INFO, V_ERROR } vstatus;

typedef struct vcheck {
    char section[16];     /* "topology", "nvml", "copy", "collective", "ranks", "network", "sweep", "load" */
    char kind[16];        /* what it judges, for grouping into findings: "nvlinks", "path", "pcie",
                           * "peer", "gdr", "h2d", "d2h", "local", "d2d", "coll", "latency", "wrong",
                           * "rank", "net", "health", "xid", "count", "sweep", "load", "backend", "" */
    char name[96];        /* what was checked: "GPU0-GPU1 path", "all_reduce 1 GiB busbw" */
    char measured[96];    /* as text, with its unit */
    char expected[96];
    vstatus status;
    int gpu_a, gpu_b;     /* the GPUs (or the rank for "rank") it concerns; -1 none */
    double tol;           /* the tolerance it was judged with (fraction); 0 = not a bandwidth check */
    double time_s;        /* its share of the wall time of the step that measured it (JUnit time) */
    int finding;          /* index in vreport.findings of the cause it follows from; -1 none */
    char cause[480];      /* anomaly: the likely cause; info: a remark */
    char next[480];       /* anomaly: what to check next */
} vcheck;

/* A root cause: anomalies that follow from one likely cause, the check that
 * names it first (its title and next command), ordered by how many anomalies
 * it explains. */
typedef struct vfinding {
    char key[128];        /* "nvlink:3", "p2p", "gdr", "straggler:5", "pcie:2", or "KIND:CHECK" */
    char title[400];
    char next[480];
    int explains;         /* anomalies (and errors) it accounts for */
    int first_check;      /* index of its first check (orders ties) */
} vfinding;

typedef struct vreport {
    vcheck *v;
    int n, cap;
    char machine[160];    /* the machine as the backend names it */
    char backend[8];      /* "cuda" or "sim" */
    char backend_line[256];
    char hosts[160];      /* the hosts measured ("node1, node2" or the sim's modelled hosts) */
    int simulated;
    int refused;          /* no usable GPU under auto/cuda: nothing measured */
    int nranks;           /* ranks of the collective steps */
    double tolerance;     /* --tolerance as a fraction, or 0: each check's own (the model's uncertainty) */
    double wall_s;        /* the whole run */
    vfinding *findings;
    int nfindings;
    json_t *sweep;        /* --sweep: rows {coll, size, count, type, redop, root, half, time_us, algbw, busbw,
                           * wrong, model_us, model_busbw}; NULL without */
    json_t *load;         /* --sustained: {duration_s, windows: [...], per rank drift and errors}; NULL without */
} vreport;

/* Append a check (its name printf-style); never NULL: on out of memory the
 * caller fills a scratch check that is not reported. */
vcheck *vreport_add(vreport *r, const char *section, vstatus st, const char *name_fmt, ...)
    __attribute__((format(printf, 4, 5)));
void vcheck_set(char *field, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
#define VSET(c, field, ...) vcheck_set((c)->field, sizeof (c)->field, __VA_ARGS__)
int vreport_count(const vreport *r, vstatus st);
void vreport_free(vreport *r);
/* Set what a check concerns (kind, GPUs or rank); returns c. */
vcheck *vcheck_about(vcheck *c, const char *kind, int gpu_a, int gpu_b);
/* The tolerance a bandwidth check is judged with: --tolerance when given,
 * else the model's uncertainty for what bounds it ("HBM", "PCIe", "NVLink",
 * "network", "SHM"; validate_perf.c says where each comes from). */
double vreport_tolerance(const vreport *r, const char *bound);
const char *vreport_tolerance_source(const char *bound);

/* Group the anomalies into findings, one likely cause each (validate_findings.c). */
void vreport_find_causes(vreport *r);

/* Outputs. */
void vreport_print_text(const vreport *r, FILE *f, int color);
void vreport_print_markdown(const vreport *r, FILE *f);
json_t *vreport_json(const vreport *r);
void vreport_print_junit(const vreport *r, FILE *f);

/* Topology and facts: the "topo" job's document (with "facts") against the
 * expected machine (--expect, or the topology this machine's own dump
 * describes). */
void validate_topology(vreport *r, json_t *doc, const mgpu_topo *expected, int expect_given);
void validate_facts(vreport *r, json_t *doc);
/* The XID events mgpu_xid_watch_end reported (NULL: not watched, why_not
 * says why): an anomaly per GPU and XID, GPUs named as the facts in doc. */
void validate_xid(vreport *r, json_t *doc, json_t *xid, const char *why_not);

/* Measurements against predictions. copy_*: the copy job's "result"
 * testcase objects by name (measured on the backend, predicted on the sim of
 * this topology). coll rows: the bench job's "result" bodies. */
void validate_copies(vreport *r, json_t *measured, json_t *predicted);
void validate_collective(vreport *r, const char *coll, json_t *rows, const mgpu_topo *model, int nranks);
void validate_ranks(vreport *r, json_t *ranks);
/* Inter-node bandwidth per NIC pair from the ranks' "net_gbs" (rank r to the
 * rank of the next host with its local index), against the model. */
void validate_network(vreport *r, json_t *ranks, const mgpu_topo *model, int per_host);
/* --sweep: one bench job's rows for `coll` into r->sweep and a check per
 * collective (#wrong, and every bandwidth-bound size against the model). */
void validate_sweep(vreport *r, const char *coll, json_t *rows, const mgpu_topo *model, int nranks, double cap_note);
/* --sustained: the load job's per-rank windows into r->load and checks on
 * drift and errors over time. */
void validate_load(vreport *r, json_t *ranks, double duration_s);

#endif
