/* protocol.h: what the judge and the worker say to each other, and nothing else.
 *
 * The judge (common/judge.c) is the program a user runs: it makes the bodies, holds the fp64 reference,
 * checks, times and records. The worker (common/worker.c, linked with the step's nb_step_run) is started
 * by the judge, sandboxed where it can be, and trusted for nothing: it takes a request (the state and
 * the run's parameters), runs the step, and hands the state back. They speak over two FIFOs in a folder
 * of their own (request: judge -> worker, response: worker -> judge), in frames of this header:
 *
 *   worker -> judge  NB_MSG_HELLO    once, when the worker has opened both FIFOs
 *   judge -> worker  NB_MSG_SETUP    once: GPUs and threads to use (the worker opens the platform)
 *   worker -> judge  NB_MSG_READY    the device's name and GPUs in use; or the worker exits 2 after a line
 *   judge -> worker  NB_MSG_REQUEST  a run: nb_wire_run, then the state (7 arrays of S*N floats)
 *   worker -> judge  NB_MSG_SNAPSHOT a view a step emitted (nb_wire_view, then 6 arrays), zero or more
 *   worker -> judge  NB_MSG_RESULT   nb_wire_result, then the state's 6 arrays (x y z vx vy vz)
 *
 * The judge closes its end when it is done; the worker then exits. Both sides run on one machine and
 * one build, so numbers travel in the machine's own byte order. */
#ifndef NB_PROTOCOL_H
#define NB_PROTOCOL_H

#include <stddef.h>
#include <stdint.h>

#include "nbody.h"

#ifdef __cplusplus
extern "C" {
#endif

#define NB_PROTOCOL_MAGIC 0x4e42574bu /* "NBWK" */
#define NB_PROTOCOL_VERSION 2u

enum { NB_MSG_HELLO = 1, NB_MSG_SETUP, NB_MSG_READY, NB_MSG_REQUEST, NB_MSG_SNAPSHOT, NB_MSG_RESULT };

typedef struct nb_frame {
    uint32_t magic, type;
    uint64_t length; /* bytes of payload after this header */
} nb_frame;

typedef struct nb_wire_setup {
    uint32_t version, gpus, threads, features; /* features: NB_FEATURE_* of the registry (steps.list) */
} nb_wire_setup;

typedef struct nb_wire_ready {
    uint32_t version, gpus;
    char device[256];
} nb_wire_ready;

/* One call of the time loop (nb_run, without its pointers) and the state's shape. */
typedef struct nb_wire_run {
    uint64_t systems, bodies, steps, state_step, snapshot_every;
    double state_time;
    float dt, eps2, theta, eta;
    uint32_t block, gpus, no_overlap, decompose, deterministic, levels;
} nb_wire_run;

typedef struct nb_wire_view {
    uint64_t step;
    double time;
} nb_wire_view;

typedef struct nb_wire_result {
    int32_t status;     /* what nb_step_run returned */
    uint32_t block, gpus;
    double region_s;    /* the step's own nb_region_begin/end: shown, never graded */
    char config[160];
} nb_wire_result;

/* Frames over a file descriptor, blocking or not. `deadline` is a time of nb_now() after which a read
 * or write that cannot go on fails with errno ETIMEDOUT (0: none; the judge's side always has one).
 * nb_send writes a header and `nparts` payload pieces; nb_recv_header reads one header (-1 with errno
 * EPROTO on a bad magic, 0 at end of file gives -1 with errno EPIPE); nb_recv_bytes reads exactly len
 * bytes. Each returns 0 or -1. */
int nb_send(int fd, uint32_t type, const void *const *parts, const size_t *lens, int nparts, double deadline);
int nb_recv_header(int fd, nb_frame *f, double deadline);
int nb_recv_bytes(int fd, void *buf, size_t len, double deadline);

/* A header piece followed by the state's arrays: the 7 fields (a request) or the first 6 (a snapshot,
 * a result). nb_recv_state reads the arrays into `s`, which has the shape already. */
int nb_send_state(int fd, uint32_t type, const void *head, size_t head_len, const nb_state *s, int fields,
                  double deadline);
int nb_recv_state(int fd, nb_state *s, int fields, double deadline);

#ifdef __cplusplus
}
#endif
#endif
