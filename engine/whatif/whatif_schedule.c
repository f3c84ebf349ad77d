/* whatif_schedule.c - the 1F1B pipeline schedule as each stage's
 * programme, interpreted in one process with the sim's send/recv timing
 * (comm_sim_p2p.c): a send ends at its start + the transfer; a receive at
 * max(its start, the sender's start) + the transfer; the calls of one group
 * start together and the stream goes on when the last ends. A stage waits
 * only for the messages it receives, so the schedule's bubble and its p2p
 * stalls come out of running it, not out of a formula.
 *
 * Nothing grows with the micro-batches: each stage's programme is a cursor
 * that makes its next instruction when it is needed (a stored programme of
 * 10^7 micro-batches took 2 GB past a script's memory cap, issue 34), and a
 * stage runs again only when a message it may be waiting for arrives, so
 * the work is the instructions run, not rounds over every stage. */
#include <stdlib.h>
#include <string.h>
#include "whatif/whatif_internal.h"

/* One instruction: compute (F or B of one micro-batch), or a group of up
 * to two transfers (a send and a receive) with the neighbours. */
enum { I_F = 0, I_B, I_XFER };
enum { DIR_NONE = 0, DIR_UP, DIR_DOWN }; /* up: to / from stage + 1, down: stage - 1 */

typedef struct insn {
    int kind;
    int send;      /* DIR_*: where a send goes */
    int recv;      /* DIR_*: where a receive comes from */
} insn;

/* Megatron's forward_backward_pipelining_without_interleaving for one
 * stage, as phases of repeated instruction groups:
 *   warm-up (warm times):  recv_forward, F, send_forward
 *   (once, if rest > 0):   recv_forward
 *   steady (rest times):   F, send_forward_recv_backward, B,
 *                          send_backward_recv_forward (send_backward the last time)
 *   cool-down (warm times): recv_backward, B, send_backward
 * where warm = min(pp - s - 1, m) and rest = m - warm; a transfer with
 * neither a send nor a receive (the first and last stages) is skipped. */
enum { PH_WARM = 0, PH_FIRST_RECV, PH_STEADY, PH_COOL, PH_END };

typedef struct prog {
    int up, down;          /* DIR_UP / DIR_DOWN, or DIR_NONE at the ends */
    int warm, rest;
    int phase, i, k;       /* the cursor: phase, its repetition, the instruction in it */
    insn cur;              /* the instruction under way (made, not yet done) */
    int have, queued;
    double clock, busy;
    int posted;            /* the current group's send is out */
    double t0;             /* the current group's start */
} prog;

static insn X(int send, int recv) { return (insn){I_XFER, send, recv}; }

/* The stage's next instruction; 0 when its programme has ended. */
static int next_insn(prog *p, insn *out)
{
    static const insn F = {I_F, DIR_NONE, DIR_NONE}, B = {I_B, DIR_NONE, DIR_NONE};
    while (p->phase != PH_END) {
        insn c;
        int len, reps = p->phase == PH_WARM || p->phase == PH_COOL ? p->warm
                        : p->phase == PH_STEADY                     ? p->rest
                                                                    : p->rest > 0;
        if (p->i >= reps) {
            p->phase++;
            p->i = p->k = 0;
            continue;
        }
        switch (p->phase) {
        case PH_WARM:
            len = 3;
            c = p->k == 0 ? X(DIR_NONE, p->down) : p->k == 1 ? F : X(p->up, DIR_NONE);
            break;
        case PH_FIRST_RECV:
            len = 1;
            c = X(DIR_NONE, p->down);
            break;
        case PH_STEADY:
            len = 4;
            c = p->k == 0 ? F : p->k == 1 ? X(p->up, p->up) : p->k == 2 ? B
                : X(p->down, p->i == p->rest - 1 ? DIR_NONE : p->down);
            break;
        default: /* PH_COOL */
            len = 3;
            c = p->k == 0 ? X(DIR_NONE, p->up) : p->k == 1 ? B : X(p->down, DIR_NONE);
            break;
        }
        if (++p->k == len) {
            p->k = 0;
            p->i++;
        }
        if (c.kind == I_XFER && c.send == DIR_NONE && c.recv == DIR_NONE) continue;
        *out = c;
        return 1;
    }
    return 0;
}

/* Messages between neighbours, FIFO per direction: the senders' start
 * times. Only those in flight are kept (at most about a stage's warm-up). */
typedef struct mailbox {
    double *t;
    int head, tail, cap;
} mailbox;

/* The schedule's state, and the stages that may go on (a FIFO of stages). */
typedef struct sched {
    int pp;
    prog *p;
    mailbox *box;          /* box[2 * s]: stage s -> s + 1, box[2 * s + 1]: stage s + 1 -> s */
    int *ready, rhead, rcount;
    whatif_mem *mem;
} sched;

static void wake(sched *S, int s)
{
    if (S->p[s].queued) return;
    S->p[s].queued = 1;
    S->ready[(S->rhead + S->rcount++) % S->pp] = s;
}

static int post(sched *S, mailbox *b, double t)
{
    if (b->tail == b->cap) {
        if (b->head > 0) { /* slide what is in flight down over what was read */
            memmove(b->t, b->t + b->head, sizeof *b->t * (size_t)(b->tail - b->head));
            b->tail -= b->head;
            b->head = 0;
        } else {
            int cap = b->cap ? 2 * b->cap : 8;
            double *n = whatif_mem_grow(S->mem, b->t, sizeof *n * (size_t)b->cap, sizeof *n * (size_t)cap);
            if (!n) return -1;
            b->t = n;
            b->cap = cap;
        }
    }
    b->t[b->tail++] = t;
    return 0;
}

static mailbox *box_to(mailbox *box, int s, int dir) { return dir == DIR_UP ? &box[2 * s] : &box[2 * (s - 1) + 1]; }
static mailbox *box_from(mailbox *box, int s, int dir) { return dir == DIR_UP ? &box[2 * s + 1] : &box[2 * (s - 1)]; }

/* Run stage s until it blocks on a receive or ends; -1 on the memory cap. */
static int step(sched *S, int s, const double *fwd, const double *bwd, double x)
{
    prog *p = &S->p[s];
    for (;;) {
        if (!p->have && !(p->have = next_insn(p, &p->cur))) return 0;
        const insn *i = &p->cur;
        if (i->kind != I_XFER) {
            double d = i->kind == I_F ? fwd[s] : bwd[s];
            p->clock += d;
            p->busy += d;
        } else {
            if (!p->posted) {
                p->t0 = p->clock;
                if (i->send != DIR_NONE) {
                    if (post(S, box_to(S->box, s, i->send), p->t0) != 0) return -1;
                    wake(S, i->send == DIR_UP ? s + 1 : s - 1);
                }
                p->posted = 1;
            }
            double end = p->t0 + (i->send != DIR_NONE ? x : 0);
            if (i->recv != DIR_NONE) {
                mailbox *b = box_from(S->box, s, i->recv);
                if (b->head == b->tail) return 0; /* blocked: the sender has not got there */
                double sent = b->t[b->head++], r = (sent > p->t0 ? sent : p->t0) + x;
                if (r > end) end = r;
            }
            p->clock = end;
            p->posted = 0;
        }
        p->have = 0;
    }
}

mgpu_result whatif_1f1b(int pp, int m, const double *fwd, const double *bwd, double p2p, double *end, double *busy,
                        whatif_mem *mem)
{
    if (pp < 1 || m < 1) return mgpu_fail(MGPU_ERR_INVALID, "1F1B: %d stages, %d micro-batches", pp, m);
    sched S = {.pp = pp, .mem = mem};
    size_t np = sizeof *S.p * (size_t)pp, nb = sizeof *S.box * (size_t)(2 * pp), nr = sizeof *S.ready * (size_t)pp;
    mgpu_result r = MGPU_OK;
    S.p = whatif_mem_grow(mem, NULL, 0, np);
    S.box = S.p ? whatif_mem_grow(mem, NULL, 0, nb) : NULL;
    S.ready = S.box ? whatif_mem_grow(mem, NULL, 0, nr) : NULL;
    if (!S.ready) {
        r = mgpu_error_code();
        goto out;
    }
    memset(S.p, 0, np);
    memset(S.box, 0, nb);
    for (int s = 0; s < pp; s++) {
        prog *p = &S.p[s];
        p->up = s == pp - 1 ? DIR_NONE : DIR_UP;
        p->down = s == 0 ? DIR_NONE : DIR_DOWN;
        p->warm = pp - s - 1 < m ? pp - s - 1 : m;
        p->rest = m - p->warm;
        wake(&S, s);
    }
    /* Run the stages that may go on until none may; one still not at its
     * end then waits for a message never sent: a deadlock, which the
     * schedule above never makes. */
    while (S.rcount > 0) {
        int s = S.ready[S.rhead];
        S.rhead = (S.rhead + 1) % pp;
        S.rcount--;
        S.p[s].queued = 0;
        if (step(&S, s, fwd, bwd, p2p) != 0) {
            r = mgpu_error_code();
            goto out;
        }
    }
    for (int s = 0; s < pp; s++)
        if (S.p[s].have || S.p[s].phase != PH_END) {
            r = mgpu_fail(MGPU_ERR_INTERNAL, "the 1F1B schedule of %d stages and %d micro-batches deadlocked", pp, m);
            goto out;
        }
    for (int s = 0; s < pp; s++) {
        end[s] = S.p[s].clock;
        busy[s] = S.p[s].busy;
    }
out:
    for (int i = 0; S.box && i < 2 * pp; i++) whatif_mem_free(mem, S.box[i].t, sizeof *S.box[i].t * (size_t)S.box[i].cap);
    whatif_mem_free(mem, S.ready, nr);
    whatif_mem_free(mem, S.box, nb);
    whatif_mem_free(mem, S.p, np);
    return r;
}
