/* lua_sandbox.h - a sandboxed Lua 5.4 state for code mgpulab did not write:
 * learners' SPMD scripts on rank workers, and (later) labs in the shell.
 *
 * What a sandboxed script can use: the base library without dofile and
 * loadfile, and with load restricted to source text (mode "t"); string,
 * table, math, utf8, coroutine; os.clock, os.time, os.date, os.difftime.
 * Everything that reaches outside the process - io, the rest of os,
 * package/require, debug - is replaced by a stub that raises a clear error
 * naming what was refused, so a learner sees "io.open is not available in
 * the mgpulab sandbox" instead of "attempt to index a nil value".
 *
 * Limits (Redis's script embedding is the model):
 *  - memory: the state runs on a counting allocator that refuses to grow
 *    past a cap, so an allocation bomb ends in Lua's "not enough memory"
 *    (reported with the cap) instead of taking the machine;
 *  - time: an instruction-count hook looks at the wall clock every few
 *    thousand VM instructions and raises an error once the call's budget is
 *    spent (a budget in CPU time, cfg.cpu_time, is looked at when its wall
 *    time has passed: a thread cannot spend more CPU than wall time); from then on it fires on every instruction, so a script cannot
 *    catch the error with pcall and carry on. Time spent blocked inside a C
 *    function (a collective waiting for peers) is not seen by the hook;
 *    the communicator's watchdog covers that.
 *    Work the hook never sees is bounded too: scripts cannot set __gc
 *    finalizers (Lua runs them with hooks off), growth of memory past the
 *    deadline is refused (string.rep in a loop), and a thread outside the
 *    state stops the process with "exceeded its time budget" when a call is
 *    still running well after its budget (a pattern backtracking inside
 *    string.find; engine/lua/lua_runaway.c).
 *  - every call into Lua goes through mgpu_lua_pcall, with a message
 *    handler that appends luaL_traceback.
 *
 * Host code adds its own globals (the rank API, a lab API) with the plain
 * Lua C API on mgpu_lua_state(). */
#ifndef MGPU_LUA_SANDBOX_H
#define MGPU_LUA_SANDBOX_H
#include <stddef.h>
#include <lua.h>
#include "mgpu/err.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MGPU_LUA_DEFAULT_MEM ((size_t)256 << 20)
#define MGPU_LUA_DEFAULT_HOOK_COUNT 1000
/* The wall-clock backstop of a CPU-time budget: that many times the budget
 * (plus the outside watch's grace), at least MGPU_LUA_WALL_BACKSTOP_MIN_S -
 * far beyond any slowdown of a busy machine, so it is about hangs only. */
#define MGPU_LUA_WALL_BACKSTOP_X 20.0
#define MGPU_LUA_WALL_BACKSTOP_MIN_S 120.0

/* Receives one printed line (print's arguments joined by tabs, no newline)
 * or one warning (prefixed "warning: "). */
typedef void (*mgpu_lua_print_fn)(void *ctx, const char *text, size_t len);

typedef struct mgpu_lua_config {
    size_t mem_limit;        /* bytes the state may hold; 0 = MGPU_LUA_DEFAULT_MEM */
    double time_limit_s;     /* budget of each top-level mgpu_lua_pcall; 0 = none */
    /* 1: time_limit_s counts the calling thread's CPU time, not wall time.
     * For budgets that only guard against a runaway script (a lab's load
     * and steps): a busy machine (load 25 on 2 cores, ASan) stretches wall
     * time many times over but not the CPU a script spends, so a wall-clock
     * budget failed healthy labs there. The outside watch then stops a call
     * stuck in C by the same CPU clock, and by a generous wall-clock
     * backstop (MGPU_LUA_WALL_BACKSTOP_X) for one that hangs without
     * spending CPU. 0: wall time (spmd's documented --time-limit). */
    int cpu_time;
    int hook_count;          /* VM instructions between clock checks; 0 = default */
    mgpu_lua_print_fn print; /* where print() goes; NULL = stdout */
    void *print_ctx;
} mgpu_lua_config;

typedef struct mgpu_lua mgpu_lua;

/* A fresh sandboxed state. cfg may be NULL (defaults). */
mgpu_result mgpu_lua_open(const mgpu_lua_config *cfg, mgpu_lua **out);
/* Closes the state (running __gc of every object) and frees the sandbox. */
void mgpu_lua_close(mgpu_lua *sb);
lua_State *mgpu_lua_state(mgpu_lua *sb);
/* The sandbox a state belongs to (from a C function bound into it). */
mgpu_lua *mgpu_lua_from_state(lua_State *L);

/* Compile source text as a function and push it. Binary chunks are refused
 * with a clear message; a syntax error fails with MGPU_ERR_PARSE and Lua's
 * message ("file.lua:3: unexpected symbol near 'x'"). chunkname as in
 * lua_load: "@file.lua" names a file, "=name" a literal name. */
mgpu_result mgpu_lua_load(mgpu_lua *sb, const char *text, size_t len, const char *chunkname);

/* lua_pcall with the traceback handler and, at the outermost level, the
 * time budget. On error the stack is as lua_pcall leaves it minus the
 * error object, and the result is MGPU_ERR_TIMEOUT (budget), MGPU_ERR_NOMEM
 * (memory cap), the engine's code when the error came from
 * mgpu_lua_raise_engine, or MGPU_ERR_INVALID (the script's own error);
 * mgpu_error_message() says "message\nstack traceback:..." (truncated to
 * the engine's message buffer; mgpu_lua_error_* hold the whole text). */
mgpu_result mgpu_lua_pcall(mgpu_lua *sb, int nargs, int nresults);

/* Load and run a chunk; its results stay on the stack (nresults may be
 * LUA_MULTRET). */
mgpu_result mgpu_lua_run(mgpu_lua *sb, const char *text, size_t len, const char *chunkname, int nresults);

/* From now on the chunk `chunkname` (source `text`, for the error's
 * wording) may not read a global that does not exist: a misspelt name
 * reads as nil, and `seed = rnk` in an options table would silently mean
 * the default seed. The read raises "'rnk' is not defined: seed = rnk ...
 * did you mean 'rank'?" naming the option key when the line assigns it.
 * Other chunks (and C code) read globals as before (lua_strict.c). */
mgpu_result mgpu_lua_strict_globals(mgpu_lua *sb, const char *text, size_t len, const char *chunkname);

/* The last error of mgpu_lua_load/pcall: the message alone and the
 * traceback alone ("" when none). Valid until the next call. */
const char *mgpu_lua_error_message(const mgpu_lua *sb);
const char *mgpu_lua_error_traceback(const mgpu_lua *sb);

/* Change the time budget for the next top-level call (0 = none). */
void mgpu_lua_set_time_limit(mgpu_lua *sb, double seconds);
/* Ctrl-C for the calls that follow: once *flag is non-zero the running
 * script stops at its next instruction with "cancelled by the user" (and
 * may not grow its memory meanwhile, which ends string.rep loops). When
 * stop_after_s > 0 and the call is stuck where no instruction runs (a
 * string pattern backtracking inside C), the outside watch stops the whole
 * process that many seconds after the flag was seen, saying why; with 0 it
 * is left to the time budget's watch. NULL flag: none. */
void mgpu_lua_set_interrupt(mgpu_lua *sb, volatile int *flag, double stop_after_s);
/* Start the running call's budget again from now. Host functions that
 * block for long in the engine (a lab's 30 s benchmark on rank workers)
 * call it when they return, so the budget measures the script's own time
 * between such calls. No-op outside a call or without a budget. */
void mgpu_lua_restart_budget(mgpu_lua *sb);
/* Before a host function blocks in the engine for long (rank workers): the
 * outside watch (below) stands down until mgpu_lua_restart_budget. */
void mgpu_lua_hold_budget(mgpu_lua *sb);
size_t mgpu_lua_mem_used(const mgpu_lua *sb);
size_t mgpu_lua_mem_limit(const mgpu_lua *sb);

/* For C functions bound into the state: raise a Lua error carrying the
 * engine's current message (prefixed with `what` and the script position)
 * and remember the engine's result code for mgpu_lua_pcall. Never returns. */
int mgpu_lua_raise_engine(lua_State *L, const char *what);

/* print's way of joining arguments: tostring (and __tostring) of each,
 * tab-separated; pushes the result and returns it. */
const char *mgpu_lua_join_args(lua_State *L, size_t *len);

#ifdef __cplusplus
}
#endif
#endif
