/* sim_ipc.c - the sim's CUDA IPC: device memory another process can map.
 *
 * A sim device buffer is an anonymous mapping of its own. The first export
 * moves it into a memfd (header page + data), mapped over the same address,
 * so the exporter's pointer stays valid. The handle carries the exporter's
 * pid and the memfd's number; an importer opens /proc/PID/fd/N and maps it.
 * The header page tells the truth about lifetime: the exporter marks it
 * freed before letting go, a random token detects a reused fd number, and
 * the exporter's start time detects a reused pid, so a stale handle is
 * refused and an importer still using freed memory is told so. */
#include "dev/sim/sim_ipc.h"
#include "mgpu/topo.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define HDR_MAGIC 0x4844484d49534d47ull /* an arbitrary tag: "our header" */
enum { STATE_LIVE = 1, STATE_FREED = 2 };

/* One exported range of the mapping. The caching allocator puts many
 * tensors in one segment and keeps it when a tensor is freed, so the
 * segment's own state cannot say that *this* tensor went away: each
 * exported range has a slot of its own, marked freed when its block is. */
typedef struct sim_ipc_range {
    uint64_t offset;
    uint64_t bytes;
    uint32_t state;  /* 0: unused, else STATE_* (__atomic) */
    uint32_t gen;    /* bumped each time the slot is reused: an old handle to a
                      * new tensor at the same offset is still stale */
} sim_ipc_range;

typedef struct sim_ipc_header {
    uint64_t magic;
    uint64_t token;
    uint64_t bytes;
    uint32_t state;  /* STATE_*: read and written with __atomic builtins */
    int32_t pid;
    sim_ipc_range range[]; /* up to the end of the header page */
} sim_ipc_header;

/* The sim part of a handle. */
typedef struct sim_payload {
    int32_t fd;
    int32_t slot;    /* the range's slot in the header; -1: the whole mapping only */
    uint32_t gen;    /* the slot's generation when exported */
    uint32_t pad;
    uint64_t token;
    uint64_t start;  /* exporter's start time, clock ticks after boot */
} sim_payload;
_Static_assert(sizeof(sim_payload) <= sizeof(((mgpu_ipc_wire *)0)->payload), "the sim payload fits a handle");

static size_t page_size(void)
{
    long p = sysconf(_SC_PAGESIZE);
    return p > 0 ? (size_t)p : 4096;
}

/*--- Device memory as mappings -------------------------------------------*/

mgpu_result sim_devmem_alloc(mgpu_buffer *buf)
{
    sim_devmem *m = calloc(1, sizeof *m);
    if (!m) return mgpu_fail(MGPU_ERR_NOMEM, "out of host memory");
    size_t page = page_size();
    /* Big buffers on 2 MiB boundaries with huge pages asked for, as the
     * heap path did: faulting 4 KiB pages cost more than the data movement. */
    size_t align = buf->bytes >= SIM_HUGE_MIN ? SIM_HUGE_ALIGN : page;
    size_t len = (buf->bytes + align - 1) / align * align;
    size_t want = len + (align > page ? align : 0);
    char *p = mmap(NULL, want, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        free(m);
        return mgpu_fail(MGPU_ERR_NOMEM, "out of host memory mapping %zu bytes of simulated device memory",
                         buf->bytes);
    }
    char *a = (char *)(((uintptr_t)p + align - 1) / align * align);
    if (a > p) munmap(p, (size_t)(a - p));
    if (p + want > a + len) munmap(a + len, (size_t)(p + want - (a + len)));
    if (align > page) (void)madvise(a, len, MADV_HUGEPAGE); /* a hint: fine if refused */
    m->map = a;
    m->map_len = len;
    m->memfd = -1;
    m->open_dev = -1;
    buf->ptr = a;
    buf->impl = m;
    return MGPU_OK;
}

void sim_devmem_release(mgpu_buffer *buf)
{
    sim_devmem *m = buf->impl;
    if (!m) return;
    if (m->hdr) {
        if (!m->imported) __atomic_store_n(&m->hdr->state, STATE_FREED, __ATOMIC_RELEASE);
        munmap(m->hdr, page_size());
    }
    if (m->memfd >= 0) close(m->memfd);
    munmap(m->map, m->map_len);
    free(m);
    buf->impl = NULL;
    buf->ptr = NULL;
}

/*--- Processes -------------------------------------------------------------*/

/* State letter and start time of a process from /proc/PID/stat; 0 when it
 * does not exist (any more). */
static int proc_stat(int pid, char *state, uint64_t *start)
{
    char path[64], text[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    if (n <= 0) return 0;
    text[n] = '\0';
    char *p = strrchr(text, ')'); /* the command name may hold spaces */
    if (!p || p[1] != ' ') return 0;
    *state = p[2];
    p += 2;
    /* field 3 is the state; starttime is field 22 */
    for (int field = 3; field < 22 && p; field++) p = strchr(p + 1, ' ');
    *start = p ? strtoull(p + 1, NULL, 10) : 0;
    return 1;
}

/* Gone: no such process, a zombie, or another process under a reused pid. */
static int exporter_gone(int pid, uint64_t start)
{
    char state = 0;
    uint64_t now = 0;
    if (!proc_stat(pid, &state, &now)) return 1;
    return state == 'Z' || state == 'X' || state == 'x' || now != start;
}

static int range_slots(void) { return (int)((page_size() - sizeof(sim_ipc_header)) / sizeof(sim_ipc_range)); }

/* The live slot of [offset, offset+bytes), or a new one (reusing a freed
 * slot); -1 when the page is full: then only the mapping's own state
 * guards the handle. Exporting a range twice gives the same slot, so the
 * same handle, as cudaIpcGetMemHandle does. */
static int range_slot(sim_ipc_header *h, uint64_t offset, uint64_t bytes)
{
    int n = range_slots(), spare = -1;
    for (int i = 0; i < n; i++) {
        uint32_t st = __atomic_load_n(&h->range[i].state, __ATOMIC_ACQUIRE);
        if (st == STATE_LIVE && h->range[i].offset == offset && h->range[i].bytes == bytes) return i;
        if (st != STATE_LIVE && spare < 0) spare = i;
    }
    if (spare < 0) return -1;
    h->range[spare].offset = offset;
    h->range[spare].bytes = bytes;
    h->range[spare].gen++;
    __atomic_store_n(&h->range[spare].state, STATE_LIVE, __ATOMIC_RELEASE);
    return spare;
}

/* Live: the mapping, and the range (same generation) when the handle has a slot. */
static int range_live(const sim_ipc_header *h, int slot, uint32_t gen)
{
    if (__atomic_load_n(&h->state, __ATOMIC_ACQUIRE) != STATE_LIVE) return 0;
    if (slot < 0 || slot >= range_slots()) return 1;
    return __atomic_load_n(&h->range[slot].state, __ATOMIC_ACQUIRE) == STATE_LIVE && h->range[slot].gen == gen;
}

static uint64_t new_token(void)
{
    uint64_t t = 0;
    if (getrandom(&t, sizeof t, GRND_NONBLOCK) == (ssize_t)sizeof t && t) return t;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)ts.tv_sec ^ ((uint64_t)getpid() << 40) ^ (uintptr_t)&t;
}

static void who(char *out, size_t len, int pid, int rank)
{
    if (rank >= 0) snprintf(out, len, "rank %d (pid %d)", rank, pid);
    else snprintf(out, len, "the exporting process (pid %d)", pid);
}

/*--- Export ----------------------------------------------------------------*/

/* Move the buffer into a memfd, same address, same contents. */
static mgpu_result make_shareable(mgpu_buffer *buf)
{
    sim_devmem *m = buf->impl;
    size_t page = page_size();
    int fd = memfd_create("mgpulab-sim-device-memory", MFD_CLOEXEC);
    if (fd < 0) return mgpu_fail(MGPU_ERR_IO, "IPC export: cannot create shared memory (memfd_create: %s)", strerror(errno));
    if (ftruncate(fd, (off_t)(page + m->map_len)) != 0) {
        int e = errno;
        close(fd);
        return mgpu_fail(MGPU_ERR_NOMEM, "IPC export: cannot size %zu bytes of shared memory (%s)", m->map_len, strerror(e));
    }
    sim_ipc_header *h = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    char *tmp = mmap(NULL, m->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)page);
    if (h == MAP_FAILED || tmp == MAP_FAILED) {
        int e = errno;
        if (h != MAP_FAILED) munmap(h, page);
        if (tmp != MAP_FAILED) munmap(tmp, m->map_len);
        close(fd);
        return mgpu_fail(MGPU_ERR_NOMEM, "IPC export: cannot map shared memory (%s)", strerror(e));
    }
    memcpy(tmp, m->map, m->map_len);
    munmap(tmp, m->map_len);
    /* Replace the private pages by the shared ones at the same address. */
    if (mmap(m->map, m->map_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, (off_t)page) == MAP_FAILED) {
        int e = errno;
        munmap(h, page);
        close(fd);
        return mgpu_fail(MGPU_ERR_NOMEM, "IPC export: cannot remap the buffer as shared memory (%s)", strerror(e));
    }
    if (m->map_len >= SIM_HUGE_MIN) (void)madvise(m->map, m->map_len, MADV_HUGEPAGE);
    h->magic = HDR_MAGIC;
    h->token = new_token();
    h->bytes = buf->bytes;
    h->pid = (int32_t)getpid();
    __atomic_store_n(&h->state, STATE_LIVE, __ATOMIC_RELEASE);
    m->hdr = h;
    m->memfd = fd;
    return MGPU_OK;
}

static mgpu_result export_locked(sim_state *st, mgpu_buffer *buf, size_t off, size_t bytes, mgpu_ipc_wire *w)
{
    sim_devmem *m = buf->impl;
    if (!m) return mgpu_fail(MGPU_ERR_INTERNAL, "IPC export: sim device buffer without its mapping");
    if (m->imported)
        return mgpu_fail(MGPU_ERR_INVALID,
                         "IPC export: this buffer was itself opened from an IPC handle; only the "
                         "process that allocated memory can export it (as in CUDA): pass the "
                         "original handle on instead");
    if (m->memfd < 0) MGPU_CHECK(make_shareable(buf));
    char state = 0;
    uint64_t start = 0;
    if (!proc_stat(getpid(), &state, &start))
        return mgpu_fail(MGPU_ERR_IO, "IPC export: cannot read /proc/self/stat (is /proc mounted?)");
    w->offset = (uint64_t)((char *)buf->ptr - (char *)m->map) + off;
    w->bytes = bytes;
    int slot = range_slot(m->hdr, w->offset, w->bytes);
    sim_payload p = {.fd = m->memfd, .slot = slot, .gen = slot >= 0 ? m->hdr->range[slot].gen : 0,
                     .token = m->hdr->token, .start = start};
    memcpy(w->payload, &p, sizeof p);
    w->backend = MGPU_IPC_BACKEND_SIM;
    w->device = buf->device;
    w->host = (uint32_t)st->host;
    return MGPU_OK;
}

/*--- Open ------------------------------------------------------------------*/

static mgpu_result stale_freed(const char *by)
{
    return mgpu_fail(MGPU_ERR_INVALID,
                     "this IPC handle is stale: %s freed the exported buffer. A handle is valid only "
                     "while its exporter keeps the buffer; free it only after every importer has "
                     "closed it (ipc_close)",
                     by);
}

static mgpu_result stale_exited(const char *by)
{
    return mgpu_fail(MGPU_ERR_INVALID,
                     "this IPC handle is stale: %s has exited, and its device memory went with it. "
                     "The exporter must stay alive until every importer has closed the handle",
                     by);
}

static mgpu_result open_locked(sim_state *st, int dev, const mgpu_ipc_wire *w, mgpu_buffer *buf)
{
    sim_payload p;
    memcpy(&p, w->payload, sizeof p);
    char by[64];
    who(by, sizeof by, w->pid, w->rank);
    if ((int)w->host != st->host)
        return mgpu_fail(MGPU_ERR_INVALID,
                         "IPC handle from %s on simulated host %u, but this process is on host %d: "
                         "CUDA IPC works only between processes of one node (use the communicator "
                         "across nodes)",
                         by, w->host, st->host);
    if (w->device < 0 || w->device >= st->ndev)
        return mgpu_fail(MGPU_ERR_INVALID, "IPC handle names device %d, which this machine does not have", w->device);
    if (exporter_gone(w->pid, p.start)) return stale_exited(by);
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)w->pid, (int)p.fd);
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        if (e == ENOENT) return exporter_gone(w->pid, p.start) ? stale_exited(by) : stale_freed(by);
        return mgpu_fail(MGPU_ERR_IO,
                         "IPC open: cannot open %s's shared memory through %s (%s): both processes must "
                         "run as the same user",
                         by, path, strerror(e));
    }
    size_t page = page_size();
    struct stat sb;
    sim_ipc_header *h = MAP_FAILED;
    /* A reused fd number points at another file: it is not ours if it is
     * too small, cannot be mapped, or its header does not carry our token. */
    if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && (uint64_t)sb.st_size >= page + w->offset + w->bytes)
        h = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (h == MAP_FAILED || h->magic != HDR_MAGIC || h->token != p.token || !range_live(h, p.slot, p.gen)) {
        if (h != MAP_FAILED) munmap(h, page);
        close(fd);
        return stale_freed(by);
    }
    size_t len = (size_t)sb.st_size - page;
    char *data = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)page);
    int e = errno;
    close(fd); /* the mappings keep the memory */
    sim_devmem *m = data == MAP_FAILED ? NULL : calloc(1, sizeof *m);
    if (!m) {
        if (data != MAP_FAILED) munmap(data, len);
        munmap(h, page);
        return mgpu_fail(MGPU_ERR_NOMEM, "IPC open: cannot map %zu bytes of %s's memory (%s)", len, by,
                         data == MAP_FAILED ? strerror(e) : "out of host memory");
    }
    m->map = data;
    m->map_len = len;
    m->memfd = -1;
    m->hdr = h;
    m->imported = 1;
    m->open_dev = dev;
    m->exp_pid = w->pid;
    m->exp_rank = w->rank;
    m->exp_start = p.start;
    m->slot = p.slot;
    m->gen = p.gen;
    buf->ptr = data + w->offset;
    buf->impl = m;
    buf->device = w->device;
    mgpu_result r = sim_registry_add_locked(st, buf);
    if (r != MGPU_OK) sim_devmem_release(buf);
    return r;
}

int sim_ipc_reachable(const mgpu_buffer *b, int exec)
{
    const sim_devmem *m = b->kind == MGPU_MEM_DEVICE ? b->impl : NULL;
    return m && m->imported && m->open_dev == exec;
}

mgpu_result sim_ipc_check_live(const mgpu_buffer *b)
{
    const sim_devmem *m = b->kind == MGPU_MEM_DEVICE ? b->impl : NULL;
    if (!m || !m->imported) return MGPU_OK;
    char by[64];
    who(by, sizeof by, m->exp_pid, m->exp_rank);
    if (!range_live(m->hdr, m->slot, m->gen))
        return mgpu_fail(MGPU_ERR_INVALID,
                         "use after free through IPC: %s freed the buffer behind this opened handle "
                         "while this process still uses it. On a GPU nothing stops you: you would "
                         "read stale data or another tensor that reused the memory. Keep the "
                         "exporter's buffer until importers are done (a barrier, then ipc_close, "
                         "then free)",
                         by);
    if (exporter_gone(m->exp_pid, m->exp_start))
        return mgpu_fail(MGPU_ERR_INVALID,
                         "use after exit through IPC: %s has exited while this process still uses "
                         "memory it exported. On a GPU its memory is gone with its context; keep "
                         "the exporter alive until importers are done (a barrier before it ends)",
                         by);
    return MGPU_OK;
}

/*--- The ops ---------------------------------------------------------------*/

mgpu_result sim_ipc_export(mgpu_buffer *buf, size_t off, size_t bytes, mgpu_ipc_wire *w)
{
    sim_state *st = sim_of(buf->be);
    pthread_mutex_lock(&st->lock);
    mgpu_result r = export_locked(st, buf, off, bytes, w);
    pthread_mutex_unlock(&st->lock);
    return r;
}

void sim_ipc_revoke(mgpu_buffer *buf, size_t off, size_t bytes)
{
    sim_state *st = sim_of(buf->be);
    pthread_mutex_lock(&st->lock);
    sim_devmem *m = buf->impl;
    if (m && m->hdr && !m->imported) {
        uint64_t at = (uint64_t)((char *)buf->ptr - (char *)m->map) + off;
        for (int i = 0, n = range_slots(); i < n; i++)
            if (__atomic_load_n(&m->hdr->range[i].state, __ATOMIC_ACQUIRE) == STATE_LIVE &&
                m->hdr->range[i].offset == at && m->hdr->range[i].bytes == bytes)
                __atomic_store_n(&m->hdr->range[i].state, STATE_FREED, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&st->lock);
}

/* cudaIpcMemLazyEnablePeerAccess: opening on another GPU than the memory's
 * maps it there when the pair can peer-access, and fails when it cannot. */
mgpu_result sim_ipc_open(mgpu_backend *be, int dev, const mgpu_ipc_wire *w, mgpu_buffer *buf)
{
    sim_state *st = sim_of(be);
    if (w->device >= 0 && w->device < st->ndev && w->device != dev &&
        mgpu_topo_peer_access(be->topo, st->model.gpu[dev].topo_index, st->model.gpu[w->device].topo_index) != 1)
        return mgpu_fail(MGPU_ERR_PEER,
                         "IPC open on GPU %d of memory on GPU %d: GPU %d cannot peer-access GPU %d on "
                         "this machine, so it cannot map that memory (cudaErrorPeerAccessUnsupported); "
                         "open the handle on GPU %d",
                         dev, w->device, dev, w->device, w->device);
    pthread_mutex_lock(&st->lock);
    mgpu_result r = open_locked(st, dev, w, buf);
    pthread_mutex_unlock(&st->lock);
    return r;
}

mgpu_result sim_ipc_close(mgpu_buffer *buf)
{
    const sim_devmem *m = buf->kind == MGPU_MEM_DEVICE ? buf->impl : NULL;
    if (!m || !m->imported)
        return mgpu_fail(MGPU_ERR_INVALID, "IPC close: this buffer was not opened from an IPC handle; free it instead");
    sim_state *st = sim_of(buf->be);
    pthread_mutex_lock(&st->lock);
    sim_mem_free_locked(st, buf);
    pthread_mutex_unlock(&st->lock);
    return MGPU_OK;
}
