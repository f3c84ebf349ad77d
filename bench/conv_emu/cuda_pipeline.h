/* cuda_pipeline.h for bench/conv_emu: cp.async (__pipeline_memcpy_async,
 * _commit, _wait_prior) on the host. A thread's copies wait in its own
 * queue and land only when a __pipeline_wait_prior lets their group land,
 * the latest a GPU copy may land: a kernel that reads a stage before
 * waiting for it reads the stage's old contents here, and fails. */
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
struct emu_cp { void *dst; const void *src; size_t n, zfill; };
struct emu_pipe {
    std::vector<emu_cp> pending; /* not landed, in issue order */
    std::vector<size_t> ends;    /* each committed group's end in pending */
};
inline thread_local emu_pipe emu_pipe_of_thread;
inline void __pipeline_memcpy_async(void *dst, const void *src, size_t n, size_t zfill = 0)
{
    if ((n != 4 && n != 8 && n != 16) || zfill > n || ((uintptr_t)dst | (uintptr_t)src) % n) {
        fprintf(stderr, "cp.async CUDA would refuse: %zu bytes (zfill %zu), dst %p src %p\n", n, zfill, dst, src);
        abort();
    }
    emu_pipe_of_thread.pending.push_back(emu_cp{dst, src, n, zfill});
}
inline void __pipeline_commit() { emu_pipe_of_thread.ends.push_back(emu_pipe_of_thread.pending.size()); }
inline void __pipeline_wait_prior(size_t prior)
{
    emu_pipe &p = emu_pipe_of_thread;
    if (p.ends.size() <= prior) return;
    size_t land = p.ends.size() - prior, upto = p.ends[land - 1];
    for (size_t i = 0; i < upto; i++) {
        emu_cp &c = p.pending[i];
        memcpy(c.dst, c.src, c.n - c.zfill);
        memset((char *)c.dst + (c.n - c.zfill), 0, c.zfill);
    }
    p.pending.erase(p.pending.begin(), p.pending.begin() + upto);
    p.ends.erase(p.ends.begin(), p.ends.begin() + land);
    for (auto &e : p.ends) e -= upto;
}
