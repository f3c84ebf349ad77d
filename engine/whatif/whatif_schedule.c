/* whatif_schedule.c - the 1F1B pipeline schedule as each stage's
 * programme, interpreted in one process with the sim's send/recv timing
 * (comm_sim_p2p.c): a send ends at its start + the transfer; a receive at
 * max(its start, the sender's start) + the transfer; the calls of one group
 * start together and the stream goes on when the last ends. A stage waits
 * only for the messages it receives, so the schedule's bubble and its p2p
 * stalls come out of running it, not out of a formula. */
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

typedef struct prog {
    insn *code;
    int n, cap;
    int pc;
    double clock, busy;
    int posted;    /* the current group's send is out */
    double t0;     /* the current group's start */
} prog;

/* Messages between neighbours, FIFO per direction: the senders' start times. */
typedef struct mailbox {
    double *t;
    int head, tail, cap;
} mailbox;

static int emit(prog *p, int kind, int send, int recv)
{
    if (kind == I_XFER && send == DIR_NONE && recv == DIR_NONE) return 0;
    if (p->n == p->cap) {
        int cap = p->cap ? 2 * p->cap : 64;
        insn *c = realloc(p->code, sizeof *c * (size_t)cap);
        if (!c) return -1;
        p->code = c;
        p->cap = cap;
    }
    p->code[p->n++] = (insn){kind, send, recv};
    return 0;
}

/* Megatron's forward_backward_pipelining_without_interleaving for stage s. */
static int build(prog *p, int s, int pp, int m)
{
    int first = s == 0, last = s == pp - 1;
    int warm = pp - s - 1 < m ? pp - s - 1 : m, rest = m - warm, e = 0;
    int up = last ? DIR_NONE : DIR_UP, down = first ? DIR_NONE : DIR_DOWN;
    for (int i = 0; i < warm; i++) {
        e |= emit(p, I_XFER, DIR_NONE, down);    /* recv_forward */
        e |= emit(p, I_F, 0, 0);
        e |= emit(p, I_XFER, up, DIR_NONE);      /* send_forward */
    }
    if (rest > 0) e |= emit(p, I_XFER, DIR_NONE, down);
    for (int i = 0; i < rest; i++) {
        e |= emit(p, I_F, 0, 0);
        e |= emit(p, I_XFER, up, up);            /* send_forward_recv_backward */
        e |= emit(p, I_B, 0, 0);
        if (i == rest - 1) e |= emit(p, I_XFER, down, DIR_NONE);   /* send_backward */
        else e |= emit(p, I_XFER, down, down);   /* send_backward_recv_forward */
    }
    for (int i = 0; i < warm; i++) {
        e |= emit(p, I_XFER, DIR_NONE, up);      /* recv_backward */
        e |= emit(p, I_B, 0, 0);
        e |= emit(p, I_XFER, down, DIR_NONE);    /* send_backward */
    }
    return e;
}

static int post(mailbox *b, double t)
{
    if (b->tail == b->cap) {
        int cap = b->cap ? 2 * b->cap : 64;
        double *n = realloc(b->t, sizeof *n * (size_t)cap);
        if (!n) return -1;
        b->t = n;
        b->cap = cap;
    }
    b->t[b->tail++] = t;
    return 0;
}

/* box[2 * s] carries stage s -> s + 1, box[2 * s + 1] stage s + 1 -> s. */
static mailbox *box_to(mailbox *box, int s, int dir) { return dir == DIR_UP ? &box[2 * s] : &box[2 * (s - 1) + 1]; }
static mailbox *box_from(mailbox *box, int s, int dir) { return dir == DIR_UP ? &box[2 * s + 1] : &box[2 * (s - 1)]; }

/* Run stage s until it blocks on a receive; returns instructions done, -1 on OOM. */
static int step(prog *p, int s, mailbox *box, const double *fwd, const double *bwd, double x)
{
    int done = 0;
    while (p->pc < p->n) {
        const insn *i = &p->code[p->pc];
        if (i->kind != I_XFER) {
            double d = i->kind == I_F ? fwd[s] : bwd[s];
            p->clock += d;
            p->busy += d;
        } else {
            if (!p->posted) {
                p->t0 = p->clock;
                if (i->send != DIR_NONE && post(box_to(box, s, i->send), p->t0) != 0) return -1;
                p->posted = 1;
            }
            double end = p->t0 + (i->send != DIR_NONE ? x : 0);
            if (i->recv != DIR_NONE) {
                mailbox *b = box_from(box, s, i->recv);
                if (b->head == b->tail) return done; /* blocked: the sender has not got there */
                double sent = b->t[b->head++], r = (sent > p->t0 ? sent : p->t0) + x;
                if (r > end) end = r;
            }
            p->clock = end;
            p->posted = 0;
        }
        p->pc++;
        done++;
    }
    return done;
}

mgpu_result whatif_1f1b(int pp, int m, const double *fwd, const double *bwd, double p2p, double *end, double *busy)
{
    if (pp < 1 || m < 1) return mgpu_fail(MGPU_ERR_INVALID, "1F1B: %d stages, %d micro-batches", pp, m);
    prog *p = calloc((size_t)pp, sizeof *p);
    mailbox *box = calloc((size_t)(2 * pp), sizeof *box);
    mgpu_result r = MGPU_OK;
    if (!p || !box) {
        r = mgpu_fail(MGPU_ERR_NOMEM, "out of host memory for the pipeline schedule");
        goto out;
    }
    for (int s = 0; s < pp; s++)
        if (build(&p[s], s, pp, m) != 0) {
            r = mgpu_fail(MGPU_ERR_NOMEM, "out of host memory for the pipeline schedule");
            goto out;
        }
    /* Round robin until every programme ends; a round without progress is
     * a deadlock, which the schedule above never makes. */
    for (;;) {
        int progress = 0, left = 0;
        for (int s = 0; s < pp; s++) {
            int d = step(&p[s], s, box, fwd, bwd, p2p);
            if (d < 0) {
                r = mgpu_fail(MGPU_ERR_NOMEM, "out of host memory for the pipeline schedule");
                goto out;
            }
            progress += d;
            left += p[s].pc < p[s].n;
        }
        if (!left) break;
        if (!progress) {
            r = mgpu_fail(MGPU_ERR_INTERNAL, "the 1F1B schedule of %d stages and %d micro-batches deadlocked", pp, m);
            goto out;
        }
    }
    for (int s = 0; s < pp; s++) {
        end[s] = p[s].clock;
        busy[s] = p[s].busy;
    }
out:
    for (int s = 0; p && s < pp; s++) free(p[s].code);
    for (int i = 0; box && i < 2 * pp; i++) free(box[i].t);
    free(p);
    free(box);
    return r;
}
