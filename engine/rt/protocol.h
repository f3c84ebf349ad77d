/* protocol.h - the coordinator <-> worker wire protocol, and its framing.
 *
 * Transport. Local launchers (local, emulate): a Unix stream socket in a
 * private 0700 directory (mkdtemp). Across hosts (mpirun, srun): TCP; the
 * coordinator binds 0.0.0.0 (or the address in MGPU_COORD_HOST when that is
 * a loopback address) and advertises MGPU_COORD_HOST or this host's first
 * non-loopback IPv4 address. MGPU_RT_TRANSPORT=tcp forces TCP for the local
 * launchers too (tests use it). Workers find the coordinator in their
 * environment:
 *
 *   MGPU_COORD   "unix:/tmp/mgpulab-XXXXXX/coord.sock" or "tcp:HOST:PORT"
 *   MGPU_TOKEN   32 hex digits from getrandom(), new for every run
 *   MGPU_RANK, MGPU_SIZE, MGPU_LOCAL_RANK, MGPU_LOCAL_SIZE   local launchers only
 *   NCCL_NVLS_ENABLE=0   always (NVLink multicast stays off: the lab machines do not allow it)
 *   NCCL_HOSTID=mgpulab-emu-<rank>, NCCL_SOCKET_IFNAME=lo    emulate only
 *   MGPU_SIM_HOST        sim machines of several hosts, local launchers
 *
 * Framing. Every message is one JSON object, UTF-8, preceded by its length
 * as a 4-byte big-endian unsigned integer. A length of 0 or above
 * MGPU_PROTO_MAX (16 MiB) is a protocol error and the connection is closed.
 * Every object has a string member "type". Unknown members are ignored, so
 * either side may add some.
 *
 * Worker -> coordinator, runtime messages (members at the top level)
 *   hello      {rank, size, local_rank, pid, host, token}
 *              first message on a connection. A wrong or missing token,
 *              a rank outside [0, size), a size other than the run's, or a
 *              rank already connected closes the connection; it never
 *              counts as a rank.
 *   heartbeat  {}                  every 0.5 s from the worker's I/O thread;
 *              any message counts as a sign of life. Silence for timeout_s
 *              makes the rank "hung".
 *   allgather  {seq, data}         data: base64 of this rank's bytes. seq
 *              counts from 1 per worker; every rank must send the same seq
 *              with the same number of bytes (it is collective).
 *
 * Worker -> coordinator, job messages: {type, rank, body}. The coordinator
 * hands them to mgpu_rt_run's on_msg as (rank, type, body); rank is taken
 * from the connection, not trusted from the message. Jobs may use any type
 * name (mgpu_worker_send); the runtime itself sends:
 *   log        body {text}              a line for the user
 *   flight     body {dump}              JSON text of every communicator's
 *              flight recorder (mgpu_comm_flight_dump_all_json), sent
 *              before "error" and on abort; the coordinator runs
 *              mgpu_flight_analyse over all ranks' dumps
 *   error      body {message, trail, code}   the job failed; exit 1 follows
 *   done       body {}                  the job finished; exit 0 follows
 *   and jobs send e.g. result, span, progress with their own bodies.
 *   span       body {rank, stream, stream_id, name, kind, start_us, end_us}
 *              one timeline span (the spmd job with params "spans": true;
 *              mgpu/spans.h): stream is the stream's name on that rank
 *              ("default", "comm", "s1", "s2@gpu1"), stream_id a small
 *              integer for it (0 = the default stream); kind is "kernel",
 *              "copy", "collective" or "wait"; times in microseconds from
 *              the rank's zero (an event on its default stream when the
 *              script started). Ranks' zeros are not aligned with each
 *              other. Sent in batches while the script runs (every ~100 ms)
 *              and after it, in begin order per batch.
 *
 * Coordinator -> worker
 *   job        {job, params, backend {kind, machine, fault}, timeout_s}
 *              the reply to a good hello. job: the handler's type name
 *              (mgpu_job_find); params: any JSON; kind: "auto", "cuda" or
 *              "sim"; machine and fault: null or strings; timeout_s: the
 *              run's timeout (communicators' watchdogs use it too).
 *   allgather  {seq, data}         the reply once every rank sent seq: data
 *              is base64 of all ranks' bytes concatenated in rank order.
 *   abort      {reason}            another rank failed: dump the flight
 *              recorders (flight messages), abort every communicator, exit 1.
 *
 * Coordinator events: mgpu_rt_run also hands its on_msg callback messages
 * with rank -1 that never travel on the wire: "listening" {address} once
 * the socket is up (before any worker starts), and "refused" {reason} for
 * each connection turned away (bad token, bad hello, duplicate rank).
 *
 * A closed connection means: the worker died (coordinator side) or the
 * coordinator is gone (worker side: the worker exits at once, so no worker
 * outlives a coordinator on another host). */
#ifndef MGPU_RT_PROTOCOL_H
#define MGPU_RT_PROTOCOL_H
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>
#include "mgpu/err.h"

#define MGPU_PROTO_MAX (16u << 20)
#define MGPU_PROTO_TOKEN_HEX 32
/* A reader with a small limit (a peer before its hello) starts with this
 * much buffer and grows only as a frame needs it, up to limit + 4 bytes:
 * a hello (~200 bytes) fits, a held connection costs no more. */
#define MGPU_PROTO_FIRST_BUF 4096

/* Encode one message (an object with "type") as length + JSON text into a
 * newly allocated buffer; *len gets the total bytes. */
mgpu_result mgpu_proto_encode(json_t *msg, char **out, size_t *len);

/* Blocking: send the whole frame (MSG_NOSIGNAL; EINTR retried). */
mgpu_result mgpu_proto_send_all(int fd, const char *buf, size_t len);
/* Blocking: encode and send one message. */
mgpu_result mgpu_proto_send(int fd, json_t *msg);
/* Blocking: read one message; *out is a new JSON object with a string
 * "type". timeout_ms < 0 waits forever. MGPU_ERR_IO on EOF (message says
 * "closed"), MGPU_ERR_TIMEOUT on timeout, MGPU_ERR_PARSE on a bad frame. */
mgpu_result mgpu_proto_recv(int fd, int timeout_ms, json_t **out);

/* Incremental reader for non-blocking sockets (the coordinator). */
typedef struct mgpu_proto_reader {
    unsigned char *buf;
    size_t len, cap;
    size_t limit; /* largest frame body accepted; 0 = MGPU_PROTO_MAX. The
                   * coordinator keeps it small until a peer has said hello
                   * with the run's token, so a stranger cannot make it
                   * buffer 16 MiB per connection. */
} mgpu_proto_reader;

/* Read what the socket has. Returns MGPU_OK (maybe nothing new), or
 * MGPU_ERR_IO with *eof = 1 when the peer closed, or an error. */
mgpu_result mgpu_proto_reader_fill(mgpu_proto_reader *r, int fd, int *eof);
/* Take the next complete message: MGPU_OK with *out set, MGPU_OK with
 * *out = NULL when none is complete yet, MGPU_ERR_PARSE on a bad frame. */
mgpu_result mgpu_proto_reader_next(mgpu_proto_reader *r, json_t **out);
void mgpu_proto_reader_free(mgpu_proto_reader *r);

/* The message's "type", or "" when absent. */
const char *mgpu_proto_type(json_t *msg);

/* Base64 (RFC 4648, with padding). encode returns a malloc'd string;
 * decode writes into a malloc'd buffer, failing on any bad character. */
char *mgpu_base64_encode(const void *data, size_t len);
mgpu_result mgpu_base64_decode(const char *text, unsigned char **out, size_t *len);

/* Constant-time comparison of two NUL-terminated tokens: 1 when equal. */
int mgpu_proto_token_equal(const char *a, const char *b);

#endif
