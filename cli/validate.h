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
    char section[16];     /* "topology", "nvml", "copy", "collective", "ranks" */
    char name[96];        /* what was checked: "GPU0-GPU1 path", "all_reduce 1 GiB busbw" */
    char measured[96];    /* as text, with its unit */
    char expected[96];
    vstatus status;
    char cause[480];      /* anomaly: the likely cause; info: a remark */
    char next[480];       /* anomaly: what to check next */
} vcheck;

typedef struct vreport {
    vcheck *v;
    int n, cap;
    char machine[160];    /* the machine as the backend names it */
    char backend_line[256];
    int simulated;
    double tolerance;     /* fraction: 0.15 */
} vreport;

/* Append a check (its name printf-style); never NULL: on out of memory the
 * caller fills a scratch check that is not reported. */
vcheck *vreport_add(vreport *r, const char *section, vstatus st, const char *name_fmt, ...)
    __attribute__((format(printf, 4, 5)));
void vcheck_set(char *field, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
#define VSET(c, field, ...) vcheck_set((c)->field, sizeof (c)->field, __VA_ARGS__)
int vreport_count(const vreport *r, vstatus st);
void vreport_free(vreport *r);

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

/* Measurements against predictions. copy_*: the copy job's "result"
 * testcase objects by name (measured on the backend, predicted on the sim of
 * this topology). coll rows: the bench job's "result" bodies. */
void validate_copies(vreport *r, json_t *measured, json_t *predicted);
void validate_collective(vreport *r, const char *coll, json_t *rows, const mgpu_topo *model, int nranks);
void validate_ranks(vreport *r, json_t *ranks);

#endif
