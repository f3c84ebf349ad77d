/* lua_mgpu_internal.h - what the files of the rank API share: the per-state
 * context, the userdata layouts and argument helpers. Not for other code. */
#ifndef MGPU_LUA_MGPU_INTERNAL_H
#define MGPU_LUA_MGPU_INTERNAL_H
#include <lauxlib.h>
#include <limits.h>
#include "mgpu/lua_mgpu.h"
#include "mgpu/spans.h"
#include "mgpu/tensor.h"

#define LM_TENSOR "mgpu.tensor"
#define LM_STREAM "mgpu.stream"
#define LM_EVENT "mgpu.event"
#define LM_COMM "mgpu.comm"
#define LM_FRAME "mgpu.frame" /* a call's pins (lua_mgpu_pin.c) */
#define LM_CTX_KEY "mgpu.ctx" /* the registry field holding the lm_ctx */

/* Per state: the host's view of this rank, and its default stream (where
 * everything without an explicit stream runs, collectives included, so
 * a script that never names a stream is ordered like one CUDA stream). */
/* The streams one mgpu.group touched, each with its group span. */
#define LM_GROUP_STREAMS 8

typedef struct lm_ctx {
    mgpu_lua_rank_host host;
    mgpu_stream *stream;
    mgpu_buffer *stage;   /* small pinned buffer for :get/:set */
    /* timeline spans, NULL when off (the default: events cost time) */
    mgpu_spans *spans;
    mgpu_span_cb span_cb;
    void *span_cb_ctx;
    uint64_t last_flush_ns;
    int group_depth;      /* inside mgpu.group: one span per stream for the group */
    int group_n;
    struct { mgpu_stream *s; int token; } group[LM_GROUP_STREAMS];
    char group_ops[40];
    /* What the calls of the open group pin until it ends (lua_mgpu_pin.c):
     * the backend runs grouped calls at the group's end, on the pointers
     * they were given. */
    struct lm_pin *group_pins;
    int group_npins, group_cap;
} lm_ctx;

typedef struct lm_tensor {
    mgpu_tensor t;        /* t.buf == NULL once freed */
    mgpu_mem_kind kind;
    /* A view (reshape, slice, flat range) shares its parent's buffer and
     * keeps the parent alive (user value 1); it never frees the buffer, and
     * becomes unusable when the parent is freed explicitly. */
    struct lm_tensor *parent;
    /* On the tensor that owns the buffer (no parent): how many calls and
     * groups hold it now, and the buffer of a free that came while they did
     * (freed when the last one lets go; the script sees it freed at once). */
    int pins;
    mgpu_buffer *held;
} lm_tensor;

/* Every stream value holds a reference to its stream (mgpu_stream_retain):
 * a communicator's stream lives while the script keeps it, after the
 * communicator is gone, and a call holds its own while it runs. */
typedef struct lm_stream {
    mgpu_stream *s;       /* this value's reference; NULL once destroyed */
    int owned;            /* 0 for the default stream and communicator streams */
    const char *label;    /* "default", "comm", "user" */
} lm_stream;

typedef struct lm_event {
    mgpu_event *e;
    int timing;
    int recorded;
} lm_event;

typedef struct lm_comm {
    mgpu_comm *c;         /* NULL once destroyed */
    int owned;            /* split communicators are the script's; the world is the host's */
    int pins;             /* calls and groups using it now */
    mgpu_comm *held;      /* closed or collected while pinned: destroyed at the last unpin */
} lm_comm;

/* Pins (lua_mgpu_pin.c). Lua code runs in the middle of a binding: an
 * options table's __index, a finalizer that any allocation may start, the
 * body of mgpu.group. It may free a tensor, destroy a stream or a
 * communicator the binding has a pointer to. So a binding reads every
 * argument and option first, then takes its pointers through a call frame:
 * lm_frame_open pushes the frame as a to-be-closed value, and what
 * lm_pin_* hands out stays valid until the binding returns or raises. A
 * pinned tensor's free and a communicator's close only mark it; the memory
 * goes with the last pin. Inside mgpu.group, lm_group_hold keeps a call's
 * pins until the group ends, when the backend runs the grouped calls. */
typedef struct lm_pin {
    char kind;            /* 't' a tensor (its owner), 's' a stream, 'c' a communicator */
    void *obj;
} lm_pin;
typedef struct lm_frame lm_frame;
/* The call's frame, pushed at the top of the stack (leave it there). */
lm_frame *lm_frame_open(lua_State *L);
/* The live tensor at idx, pinned: a copy whose buffer and shape stay valid
 * until the frame closes, whatever the script does meanwhile (the op may
 * write through it; the tensor is not changed). */
lm_tensor *lm_pin_tensor(lua_State *L, lm_frame *f, int idx);
/* The stream at idx (0, nil or none: the default stream), referenced. */
mgpu_stream *lm_pin_stream(lua_State *L, lm_frame *f, int idx);
/* The live communicator at idx, pinned. */
lm_comm *lm_pin_comm(lua_State *L, lm_frame *f, int idx);
/* Inside mgpu.group: keep what f pins until the group ends. */
void lm_group_hold(lua_State *L, lm_frame *f);
/* The outermost mgpu.group ended: let its pins go (L NULL: the state is
 * closing). */
void lm_group_release(lua_State *L, lm_ctx *c);
/* Free a tensor's memory now, or at its last unpin (t:free, __gc, __close). */
void lm_tensor_release(lm_tensor *t);
/* Destroy a communicator now, or at its last unpin (__gc, __close). */
void lm_comm_release(lm_comm *c);
void lm_open_frame(lua_State *L);


/* lua_mgpu_aux.c */
lm_ctx *lm_ctx_get(lua_State *L);
/* The context without raising, or NULL (finalizers run while the state
 * closes, perhaps after the context's own). */
lm_ctx *lm_ctx_peek(lua_State *L);
/* A live tensor at idx (error if not a tensor or already freed). */
lm_tensor *lm_check_tensor(lua_State *L, int idx);
/* 0: live; 1: freed; 2: a view whose tensor was freed. */
int lm_tensor_freed(const lm_tensor *t);
int lm_is_tensor(lua_State *L, int idx);
int lm_is_stream(lua_State *L, int idx);
/* Push a stream value that did not create `s` (it takes a reference of its
 * own); `owner_idx` (or 0) is a value kept alive with it (the communicator
 * whose stream it is). */
void lm_push_borrowed_stream(lua_State *L, mgpu_stream *s, const char *label, int owner_idx);
/* Make a class metatable with methods and metamethods; leaves it popped. */
void lm_new_class(lua_State *L, const char *name, const luaL_Reg *methods, const luaL_Reg *meta);

/* Timeline spans (lua_mgpu_aux.c). A span around one operation: token 0 when
 * spans are off or the span was dropped. lm_span_end ends it when r is
 * MGPU_OK (else forgets it) and sends what has completed every ~100 ms. */
int lm_span_begin(lua_State *L, mgpu_stream *s, mgpu_span_kind kind, const char *name);
void lm_span_end(lua_State *L, int token, mgpu_result r);
void lm_span_name_stream(lua_State *L, mgpu_stream *s, const char *name);
/* "4 MiB", "1.5 KiB", "12 B" */
/* Raise "FN: unknown option 'K' (the options: ...)" for a key of the
 * options table at idx that is not in `known` (NULL-terminated). */
void lm_check_options(lua_State *L, int idx, const char *fn, const char *const *known);

/* The number option `key` of the options table at idx (dflt when absent or
 * not a table): "FN: option 'KEY' must be a number, got T"; with `finite`,
 * nan, inf and values past a float's range are refused, naming the option. */
lua_Number lm_opt_num_field(lua_State *L, int idx, const char *key, const char *fn, lua_Number dflt, int finite);

/* The string at idx as a name reports print (a tensor's, stream's or
 * communicator's): "FN: WHAT holds a control character ..." for ESC, BEL,
 * CR, DEL or a C1 control, which would reach the terminal raw. */
const char *lm_check_name(lua_State *L, int idx, const char *fn, const char *what);

const char *lm_size_label(size_t bytes, char *buf, size_t len);

/* Integers narrowed to int (lua_mgpu_aux.c): every binding that passes a
 * script's integer on as an int takes it through these, so a value outside
 * [lo, hi] raises "FN: WHAT V is out of range (LO..HI)" instead of wrapping
 * (2^32 + 1 read as 1). LM_INT_LO/HI: the whole of int, where the engine
 * checks the meaning (a device or rank it does not have) itself. */
#define LM_INT_LO ((lua_Integer)INT_MIN)
#define LM_INT_HI ((lua_Integer)INT_MAX)
int lm_int_in(lua_State *L, lua_Integer v, const char *fn, const char *what, lua_Integer lo, lua_Integer hi);
int lm_check_int(lua_State *L, int idx, const char *fn, const char *what, lua_Integer lo, lua_Integer hi);
int lm_opt_int(lua_State *L, int idx, const char *fn, const char *what, int dflt, lua_Integer lo, lua_Integer hi);
/* The integer field `key` of the options table at idx (dflt when absent). */
int lm_opt_int_field(lua_State *L, int idx, const char *key, const char *fn, int dflt, lua_Integer lo, lua_Integer hi);

/* The race detector's site function (mgpu/race.h): the script line of the
 * innermost Lua frame of ctx (the rank's lua_State), "reducer.lua:41". */
int lm_race_site(void *ctx, const void **key, int *line, char *buf, size_t len);

void lm_open_tensor(lua_State *L);  /* lua_mgpu_tensor.c: mgpu.tensor, class */
void lm_open_ipc(lua_State *L);     /* lua_mgpu_ipc.c: IPC, peer access, pointer info, mgpu.share */
void lm_open_mem(lua_State *L);     /* lua_mgpu_mem.c: memory statistics, phantom tensors */
int lm_phantom_tensor(lua_State *L); /* lua_mgpu_mem.c: mgpu.phantom_tensor */
void lm_open_nn(lua_State *L);      /* lua_mgpu_nn.c: mgpu.nn, the training ops */
void lm_open_lib(lua_State *L);     /* lua_mgpu_lib.c: mgpu.import, the shipped Lua library */
void lm_open_event(lua_State *L);   /* lua_mgpu.c: streams and events */
void lm_open_whatif(lua_State *L);  /* lua_mgpu_whatif.c: mgpu.whatif, the timing-only what-if at scale */

#endif
