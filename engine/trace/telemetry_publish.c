/* telemetry_publish.c - the worker side of sim telemetry: map the table the
 * coordinator named in MGPU_TELEMETRY (once, lazily) and store the modelled
 * rate of the operation in progress with its expiry. */
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "mgpu/clock.h"
#include "mgpu/log.h"
#include "mgpu/telemetry.h"
#include "trace/telemetry_shm.h"

#define TEL_MIN_HOLD_S 0.3

static pthread_once_t once = PTHREAD_ONCE_INIT;
static tel_table *table; /* NULL: nothing to publish to */

static void map_table(void)
{
    const char *name = getenv(TEL_ENV);
    if (!name || !*name) return;
    int fd = shm_open(name, O_RDWR | O_CLOEXEC, 0);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || (size_t)st.st_size < sizeof(tel_table)) {
        /* A worker on another host, or a coordinator already gone: the
         * pane just shows nothing; the work itself must not fail. */
        MGPU_DEBUG("telemetry: cannot map %s=%s; publishing nothing", TEL_ENV, name);
        if (fd >= 0) close(fd);
        return;
    }
    void *p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED) return;
    tel_table *t = p;
    if (t->magic != TEL_MAGIC || t->version != TEL_VERSION || t->ngpus > TEL_MAX_GPUS ||
        tel_size(t->ngpus) > (size_t)st.st_size) {
        MGPU_DEBUG("telemetry: %s is not a telemetry table of this version", name);
        munmap(p, (size_t)st.st_size);
        return;
    }
    table = t;
}

/* A rate still showing and higher than the new one stays until it expires:
 * a tiny call right after a large one (the sweep's check of its result,
 * the next size's warm-up) would otherwise replace the large one's rate
 * for its whole hold, and a 100 ms sample would see only the tiny one. */
static void store(tel_rate *r, double bps, uint64_t until)
{
    if (tel_live_rate(r, mgpu_now_ns()) > bps) return;
    uint64_t bits;
    memcpy(&bits, &bps, sizeof bits);
    atomic_store_explicit(&r->bps_bits, bits, memory_order_relaxed);
    atomic_store_explicit(&r->until_ns, until, memory_order_release);
}

void mgpu_telemetry_publish(int gpu, mgpu_link_kind kind, double tx_bps, double rx_bps, double seconds)
{
    pthread_once(&once, map_table);
    if (!table || gpu < 0 || (uint32_t)gpu >= table->ngpus || (kind != MGPU_LINK_NVLINK && kind != MGPU_LINK_PCIE && kind != MGPU_LINK_NET))
        return;
    if (!(seconds > 0)) return;
    if (seconds > 3600) seconds = 3600;
    /* The pane samples about every 100 ms: a rate that lives only for its
     * operation's modelled time (often under a millisecond) would be seen
     * by luck, and on a loaded machine not at all. It stays up for at
     * least a few sampling periods; a later operation overwrites it. */
    if (seconds < TEL_MIN_HOLD_S) seconds = TEL_MIN_HOLD_S;
    uint64_t until = mgpu_now_ns() + (uint64_t)(seconds * 1e9);
    if (tx_bps > 0) store(&table->gpu[gpu].r[kind][0], tx_bps, until);
    if (rx_bps > 0) store(&table->gpu[gpu].r[kind][1], rx_bps, until);
}
