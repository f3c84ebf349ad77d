/* copy_cases.c - the copy benchmark's testcases: one descriptor each, in
 * nvbandwidth's order and with its names and matrix titles, so scripts that
 * parse nvbandwidth output parse ours. The measuring is in copy_bench.c. */
#include "mgpu/copybench.h"
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define CE MGPU_COPY_CE
#define SM MGPU_COPY_SM
#define RD MGPU_ISSUE_READER
#define WR MGPU_ISSUE_WRITER

/* Descriptions are ours; names and titles are nvbandwidth's (they are the
 * interface scripts rely on). For D2D_BIDIR the title is a prefix: the core
 * appends " Read1 / Read2 / Total bandwidth (GB/s)" (or Write1 ...). */
#define HOST_CASES(E, SFX, ENGINE_WORD)                                                          \
    {"host_to_device_memcpy_" SFX, "Host to device copy (" ENGINE_WORD "), one GPU at a time.",      \
     "memcpy " E " CPU(row) -> GPU(column) bandwidth (GB/s)", MGPU_PAT_HOST_DEVICE, ENG, 1, RD, 1, 0}, \
    {"device_to_host_memcpy_" SFX, "Device to host copy (" ENGINE_WORD "), one GPU at a time.",      \
     "memcpy " E " CPU(row) <- GPU(column) bandwidth (GB/s)", MGPU_PAT_HOST_DEVICE, ENG, 0, RD, 1, 0}, \
    {"host_to_device_bidirectional_memcpy_" SFX,                                                 \
     "A host to device copy is measured while a device to host copy runs at the same time;\n"    \
     "only the host to device bandwidth is reported.",                                           \
     "memcpy " E " CPU(row) <-> GPU(column) bandwidth (GB/s)", MGPU_PAT_HOST_DEVICE_BIDIR, ENG, 1, RD, 1, 0}, \
    {"device_to_host_bidirectional_memcpy_" SFX,                                                 \
     "A device to host copy is measured while a host to device copy runs at the same time;\n"    \
     "only the device to host bandwidth is reported.",                                           \
     "memcpy " E " CPU(row) <-> GPU(column) bandwidth (GB/s)", MGPU_PAT_HOST_DEVICE_BIDIR, ENG, 0, RD, 1, 0}

#define PEER_CASES(E, SFX)                                                                        \
    {"device_to_device_memcpy_read_" SFX,                                                        \
     "Each ordered pair of peer GPUs alone; the GPU that receives the data issues the copy\n"    \
     "(it reads the peer's memory).",                                                            \
     "memcpy " E " GPU(row) -> GPU(column) bandwidth (GB/s)", MGPU_PAT_D2D, ENG, 0, RD, 2, 1},    \
    {"device_to_device_memcpy_write_" SFX,                                                       \
     "Each ordered pair of peer GPUs alone; the GPU that sends the data issues the copy\n"       \
     "(it writes the peer's memory).",                                                           \
     "memcpy " E " GPU(row) <- GPU(column) bandwidth (GB/s)", MGPU_PAT_D2D, ENG, 0, WR, 2, 1},    \
    {"device_to_device_bidirectional_memcpy_read_" SFX,                                          \
     "Each pair of peer GPUs copies both ways at once, each copy issued by its reader;\n"        \
     "both directions and their total are reported.",                                            \
     "memcpy " E " GPU(row) <-> GPU(column)", MGPU_PAT_D2D_BIDIR, ENG, 0, RD, 2, 1},              \
    {"device_to_device_bidirectional_memcpy_write_" SFX,                                         \
     "Each pair of peer GPUs copies both ways at once, each copy issued by its writer;\n"        \
     "both directions and their total are reported.",                                           \
     "memcpy " E " GPU(row) <-> GPU(column)", MGPU_PAT_D2D_BIDIR, ENG, 0, WR, 2, 1}

#define ALL_HOST_CASES(E, SFX)                                                                    \
    {"all_to_host_memcpy_" SFX,                                                                  \
     "One GPU's device to host copy is measured while every other GPU copies to the host too.",  \
     "memcpy " E " CPU(row) <- GPU(column) bandwidth (GB/s)", MGPU_PAT_ALL_HOST, ENG, 0, RD, 1, 0}, \
    {"all_to_host_bidirectional_memcpy_" SFX,                                                    \
     "One GPU's device to host copy is measured while it also copies host to device and every\n" \
     "other GPU copies both ways.",                                                              \
     "memcpy " E " CPU(row) <-> GPU(column) bandwidth (GB/s)", MGPU_PAT_ALL_HOST_BIDIR, ENG, 0, RD, 1, 0}, \
    {"host_to_all_memcpy_" SFX,                                                                  \
     "One GPU's host to device copy is measured while the host copies to every other GPU too.",  \
     "memcpy " E " CPU(row) -> GPU(column) bandwidth (GB/s)", MGPU_PAT_ALL_HOST, ENG, 1, RD, 1, 0}, \
    {"host_to_all_bidirectional_memcpy_" SFX,                                                    \
     "One GPU's host to device copy is measured while it also copies device to host and every\n" \
     "other GPU copies both ways.",                                                              \
     "memcpy " E " CPU(row) <-> GPU(column) bandwidth (GB/s)", MGPU_PAT_ALL_HOST_BIDIR, ENG, 1, RD, 1, 0}

#define ONE_CASES(E, SFX)                                                                         \
    {"all_to_one_write_" SFX,                                                                    \
     "All peers write into one GPU at once; the total inbound bandwidth of each GPU.",            \
     "memcpy " E " GPU(row) <- GPU(column) bandwidth (GB/s)", MGPU_PAT_ALL_TO_ONE, ENG, 1, WR, 2, 1}, \
    {"all_to_one_read_" SFX,                                                                     \
     "All peers read from one GPU at once; the total outbound bandwidth of each GPU.",            \
     "memcpy " E " GPU(row) -> GPU(column) bandwidth (GB/s)", MGPU_PAT_ALL_TO_ONE, ENG, 0, RD, 2, 1}, \
    {"one_to_all_write_" SFX,                                                                    \
     "One GPU writes to all its peers at once; the total outbound bandwidth of each GPU.",        \
     "memcpy " E " GPU(row) -> GPU(column) bandwidth (GB/s)", MGPU_PAT_ONE_TO_ALL, ENG, 0, WR, 2, 1}, \
    {"one_to_all_read_" SFX,                                                                     \
     "One GPU reads from all its peers at once; the total inbound bandwidth of each GPU.",        \
     "memcpy " E " GPU(row) <- GPU(column) bandwidth (GB/s)", MGPU_PAT_ONE_TO_ALL, ENG, 1, RD, 2, 1}

static const mgpu_copy_case cases[] = {
#define ENG CE
    HOST_CASES("CE", "ce", "copy engine"),
    PEER_CASES("CE", "ce"),
    ALL_HOST_CASES("CE", "ce"),
    ONE_CASES("CE", "ce"),
#undef ENG
#define ENG SM
    HOST_CASES("SM", "sm", "copy kernel"),
    PEER_CASES("SM", "sm"),
    ALL_HOST_CASES("SM", "sm"),
    ONE_CASES("SM", "sm"),
#undef ENG
    {"host_device_latency_sm",
     "Latency of a GPU's dependent loads from pinned host memory (pointer chase, 2 MiB ring).",
     "memory latency SM CPU(row) <-> GPU(column) (ns)", MGPU_PAT_LATENCY_HOST, SM, 0, RD, 1, 0},
    {"device_to_device_latency_sm",
     "Latency of a GPU's dependent loads from each peer's memory (pointer chase, 2 MiB ring).",
     "Device to Device Latency SM GPU(row) <-> GPU(column) (ns)", MGPU_PAT_LATENCY_D2D, SM, 0, RD, 2, 1},
    {"device_local_copy",
     "Copy between two buffers in one GPU's memory (copy engine); also reported counting\n"
     "read + write bytes, the convention of memory-bandwidth figures.",
     "memcpy local GPU(column) bandwidth (GB/s)", MGPU_PAT_LOCAL, CE, 0, RD, 1, 0},
};

#define NCASES ((int)(sizeof cases / sizeof cases[0]))

const mgpu_copy_case *mgpu_copy_cases(int *count)
{
    if (count) *count = NCASES;
    return cases;
}

static int all_digits(const char *s)
{
    if (!*s) return 0;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s)) return 0;
    return 1;
}

const mgpu_copy_case *mgpu_copy_case_find(const char *name)
{
    if (!name) return NULL;
    if (all_digits(name)) {
        if (strlen(name) > 4) return NULL;
        int i = atoi(name);
        return i < NCASES ? &cases[i] : NULL;
    }
    for (int i = 0; i < NCASES; i++)
        if (strcmp(cases[i].name, name) == 0) return &cases[i];
    return NULL;
}

static mgpu_result add_case(const mgpu_copy_case *c, const mgpu_copy_case **sel, int cap, int *n)
{
    for (int k = 0; k < *n; k++)
        if (sel[k] == c) return MGPU_OK;
    if (*n >= cap) return mgpu_fail(MGPU_ERR_INVALID, "too many testcases selected (at most %d)", cap);
    sel[(*n)++] = c;
    return MGPU_OK;
}

mgpu_result mgpu_copy_case_select(const char *prefix, const mgpu_copy_case **sel, int cap, int *n)
{
    if (!prefix || !*prefix)
        return mgpu_fail(MGPU_ERR_INVALID, "empty testcase name; `mgpulab copy --list` lists them");
    const mgpu_copy_case *exact = mgpu_copy_case_find(prefix);
    if (exact) return add_case(exact, sel, cap, n);
    int found = 0;
    size_t len = strlen(prefix);
    for (int i = 0; i < NCASES; i++)
        if (strncmp(cases[i].name, prefix, len) == 0) {
            MGPU_CHECK(add_case(&cases[i], sel, cap, n));
            found++;
        }
    if (!found) {
        if (all_digits(prefix))
            return mgpu_fail(MGPU_ERR_INVALID, "testcase index %s is out of range (0..%d); `mgpulab copy --list` lists them",
                             prefix, NCASES - 1);
        return mgpu_fail(MGPU_ERR_INVALID,
                         "'%s' is not a testcase name or prefix; `mgpulab copy --list` lists them", prefix);
    }
    return MGPU_OK;
}
