/* lua_mgpu.h - the rank API of SPMD scripts: a `mgpu` global table over the
 * device and communicator APIs, installed into a sandbox (lua_sandbox.h).
 *
 * The API does not know about the worker runtime: the host (spmd_job.c on a
 * rank worker, a unit test in-process) hands in the backend, this rank's
 * place in the world and callbacks for the world communicator, log lines
 * and result rows. The learner-facing reference is docs/spmd.md. */
#ifndef MGPU_LUA_MGPU_H
#define MGPU_LUA_MGPU_H
#include <jansson.h>
#include "mgpu/lua_sandbox.h"
#include "mgpu/comm.h"
#include "mgpu/dev.h"
#include "mgpu/spans.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mgpu_lua_rank_host {
    mgpu_backend *be;
    int rank, world, local_rank, device;
    void *ctx;
    /* The world communicator, created on first use and owned by the host;
     * NULL: mgpu.comm() raises "no communicator on this host". */
    mgpu_result (*world_comm)(void *ctx, mgpu_comm **out);
    /* One line from print() or mgpu.log(). NULL: stdout. */
    void (*log)(void *ctx, const char *text, size_t len);
    /* One row from mgpu.result{...} or the script's returned tables
     * (borrowed: take a reference to keep it). NULL: dropped. */
    mgpu_result (*result)(void *ctx, json_t *row);
} mgpu_lua_rank_host;

/* Install `mgpu` (tensors, streams, events, copies, timing, log, results)
 * and mgpu.args (the strings in args[0..nargs)). The host structure is
 * copied. Also routes print() to host->log. Creates this rank's default
 * stream on host->device. */
mgpu_result mgpu_lua_open_rank_api(mgpu_lua *sb, const mgpu_lua_rank_host *host, const char *const *args,
                                   int nargs);

/* Add mgpu.comm() and mgpu.group() (lua_mgpu_comm.c); needs the rank API
 * first. Separate so hosts without communicators link without them. */
mgpu_result mgpu_lua_open_comm_api(mgpu_lua *sb);

/* Turn spans on for a state with the rank API (the spmd job): the zero is
 * recorded on the default stream now; finished spans go to cb. The state
 * owns the recorder (freed with it). */
mgpu_result mgpu_lua_enable_spans(mgpu_lua *sb, mgpu_span_cb cb, void *ctx);
/* Send the finished spans (wait = 1: wait for every ended span first; use
 * 0 after a failure, when waiting might hang); *dropped gets the spans lost
 * so far. A no-op when spans are off. */
mgpu_result mgpu_lua_flush_spans(mgpu_lua *sb, int wait, long *dropped);

/* A Lua value as JSON (tables with keys 1..n become arrays, other tables
 * objects with string keys; numbers, strings, booleans; nil and NaN become
 * null). Fails on functions, userdata other than tensors (their summary),
 * cycles and nesting past 32 levels. Leaves the stack as it was. */
mgpu_result mgpu_lua_to_json(lua_State *L, int idx, json_t **out);

#ifdef __cplusplus
}
#endif
#endif
