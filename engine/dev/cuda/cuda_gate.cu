/* cuda_gate.cu - stream gates: a spin kernel holds a stream until the host
 * opens the gate, so work queued behind it starts without launch latency
 * (nvbandwidth's method), with a timeout so a lost gate cannot hang a GPU. */
#include <stdlib.h>
#include <string.h>
#include "dev/cuda/cuda_internal.h"
#include "dev/cuda/cuda_kernels.h"

/* Gate flags live in pinned, mapped pages that are reused rather than freed
 * per gate, and the first page is allocated at open: pinned allocation and
 * cudaFreeHost may serialise with running kernels, and with a spin kernel
 * running that could hold other streams until the timeout. */
enum { GATE_SLOT_BYTES = 64, GATE_SLOTS = 64 };
enum { SLOT_FREE = 0, SLOT_HELD, SLOT_OPENED };

struct cuda_gate_page {
    char *host;                         /* GATE_SLOTS slots of GATE_SLOT_BYTES */
    char *dev;                          /* the same memory, as kernels address it */
    unsigned char state[GATE_SLOTS];
    cudaEvent_t spin_done[GATE_SLOTS];  /* recorded right after the spin kernel */
    struct cuda_gate_page *next;
};

/* A slot: int open (written by the host), int timed_out (by the kernel). */
struct cuda_gate {
    struct cuda_gate_page *page;
    int slot;
    double timeout_ms;
};

static volatile int *slot_host(struct cuda_gate_page *pg, int slot)
{
    return (volatile int *)(pg->host + (size_t)slot * GATE_SLOT_BYTES);
}

void cuda_gate_pages_free(struct cuda_backend *cb)
{
    struct cuda_gate_page *pg = cb->gate_pages;
    while (pg) {
        struct cuda_gate_page *next = pg->next;
        for (int i = 0; i < GATE_SLOTS; i++)
            if (pg->spin_done[i]) (void)cudaEventDestroy(pg->spin_done[i]);
        (void)cudaFreeHost(pg->host);
        free(pg);
        pg = next;
    }
    cb->gate_pages = NULL;
}

/* Add a page (lock held by the caller, or at open). */
static mgpu_result page_add(struct cuda_backend *cb, int dev)
{
    struct cuda_gate_page *pg = (struct cuda_gate_page *)calloc(1, sizeof *pg);
    if (!pg) return mgpu_fail(MGPU_ERR_NOMEM, "out of host memory");
    void *h = NULL, *d = NULL;
    cudaError_t e = cudaHostAlloc(&h, GATE_SLOTS * GATE_SLOT_BYTES, cudaHostAllocPortable | cudaHostAllocMapped);
    if (e == cudaSuccess) e = cudaHostGetDevicePointer(&d, h, 0);
    if (e != cudaSuccess) {
        if (h) (void)cudaFreeHost(h);
        free(pg);
        return cuda_fail(e, dev, "allocating pinned flags for stream gates");
    }
    memset(h, 0, GATE_SLOTS * GATE_SLOT_BYTES);
    pg->host = (char *)h;
    pg->dev = (char *)d;
    pg->next = cb->gate_pages;
    cb->gate_pages = pg;
    return MGPU_OK;
}

mgpu_result cuda_gate_pages_init(struct cuda_backend *cb)
{
    MGPU_CHECK(page_add(cb, -1));
    return MGPU_OK;
}

/* An opened slot is free again once its spin kernel has ended. */
static int slot_reusable(struct cuda_gate_page *pg, int i)
{
    if (pg->state[i] == SLOT_FREE) return 1;
    if (pg->state[i] != SLOT_OPENED) return 0;
    cudaError_t e = cudaEventQuery(pg->spin_done[i]);
    if (e == cudaErrorNotReady) (void)cudaGetLastError();
    if (e != cudaSuccess) return 0; /* running, or the context is broken: keep it */
    (void)cudaEventDestroy(pg->spin_done[i]);
    pg->spin_done[i] = NULL;
    pg->state[i] = SLOT_FREE;
    return 1;
}

/* Take a free slot (lock held by the caller); grows by one page. */
static mgpu_result slot_take(struct cuda_backend *cb, int dev, struct cuda_gate_page **out_pg, int *out_slot)
{
    for (int pass = 0; pass < 2; pass++) {
        for (struct cuda_gate_page *pg = cb->gate_pages; pg; pg = pg->next)
            for (int i = 0; i < GATE_SLOTS; i++)
                if (slot_reusable(pg, i)) {
                    pg->state[i] = SLOT_HELD;
                    *out_pg = pg;
                    *out_slot = i;
                    return MGPU_OK;
                }
        if (pass == 0) MGPU_CHECK(page_add(cb, dev));
    }
    return mgpu_fail(MGPU_ERR_INTERNAL, "no stream gate slot after adding a page");
}

mgpu_result cuda_gate_hold(mgpu_stream *s, double timeout_ms, mgpu_gate *g)
{
    struct cuda_backend *cb = cuda_be(s->be);
    int dev = s->device;
    CUDA_ON_DEVICE(dev);
    struct cuda_gate *cg = (struct cuda_gate *)calloc(1, sizeof *cg);
    if (!cg) return mgpu_fail(MGPU_ERR_NOMEM, "out of host memory");
    cg->timeout_ms = timeout_ms;

    pthread_mutex_lock(&cb->lock);
    mgpu_result r = slot_take(cb, dev, &cg->page, &cg->slot);
    pthread_mutex_unlock(&cb->lock);
    if (r != MGPU_OK) {
        free(cg);
        MGPU_CHECK(r);
    }
    struct cuda_gate_page *pg = cg->page;
    int i = cg->slot;
    volatile int *flag = slot_host(pg, i);
    flag[0] = 0;
    flag[1] = 0;
    char *dflag = pg->dev + (size_t)i * GATE_SLOT_BYTES;

    double ns = timeout_ms * 1e6;
    unsigned long long timeout_ns = ns > 3.6e12 ? 3600000000000ull : (unsigned long long)ns;
    cudaError_t e = cudaEventCreateWithFlags(&pg->spin_done[i], cudaEventDisableTiming);
    if (e == cudaSuccess)
        e = cuda_launch_spin((volatile int *)dflag, (int *)(dflag + sizeof(int)), timeout_ns, cuda_stream_of(s));
    if (e == cudaSuccess) e = cudaEventRecord(pg->spin_done[i], cuda_stream_of(s));
    if (e != cudaSuccess) {
        /* The kernel may be queued already: open its flag so it ends; the
         * slot is reused only once the event says it has. */
        flag[0] = 1;
        pthread_mutex_lock(&cb->lock);
        pg->state[i] = pg->spin_done[i] ? SLOT_OPENED : SLOT_FREE;
        pthread_mutex_unlock(&cb->lock);
        free(cg);
        cuda_fail(e, dev, "holding a stream with the gate kernel");
        mgpu_error_breadcrumb(__FILE__, __LINE__, __func__);
        return mgpu_error_code();
    }
    g->impl = cg;
    return MGPU_OK;
}

/* Opening never waits for the GPU: several streams' gates must open one
 * after another without each waiting for the last. */
mgpu_result cuda_gate_open(mgpu_gate *g)
{
    struct cuda_gate *cg = (struct cuda_gate *)g->impl;
    if (!cg) return MGPU_OK;
    g->impl = NULL;
    struct cuda_backend *cb = cuda_be(g->stream->be);
    volatile int *flag = slot_host(cg->page, cg->slot);
    /* Release: what the host wrote before opening is visible to the work
     * that runs after the spin kernel sees the flag. */
    __atomic_store_n((int *)flag, 1, __ATOMIC_RELEASE);
    int timed_out = __atomic_load_n((int *)flag + 1, __ATOMIC_ACQUIRE);
    pthread_mutex_lock(&cb->lock);
    cg->page->state[cg->slot] = SLOT_OPENED;
    pthread_mutex_unlock(&cb->lock);
    int dev = g->stream->device;
    double timeout_ms = cg->timeout_ms;
    free(cg);
    if (timed_out)
        return mgpu_fail(MGPU_ERR_TIMEOUT,
                         "the stream gate on device %d timed out after %.0f ms before it was opened, "
                         "so the work behind it started early (a measurement would include launch "
                         "latency); queue less work behind the gate or raise its timeout",
                         dev, timeout_ms);
    return MGPU_OK;
}
