/* worker_call.h: the judge's side of a worker (protocol.h): start one, sandboxed where it can be, hand
 * it a run, take the state back with the judge's own clock, end it. Nothing the worker says is trusted:
 * a frame of the wrong kind or size, a late answer, a death, all end the call with one line. */
#ifndef NB_WORKER_CALL_H
#define NB_WORKER_CALL_H

#include <stddef.h>
#include <sys/types.h>

#include "child.h"
#include "nbody.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum nb_sandbox_mode {
    NB_SANDBOX_AUTO,    /* bubblewrap where it runs; else one line, and the worker runs unsandboxed */
    NB_SANDBOX_REQUIRE, /* bubblewrap or nothing (grading other people's code) */
    NB_SANDBOX_OFF      /* unsandboxed (debugging a step under gdb or valgrind) */
} nb_sandbox_mode;

#define NB_SANDBOX_HIDDEN_MAX 8

/* What every worker of one judge's run shares: the same program, arguments and environment for all. */
typedef struct nb_worker_spec {
    const char *program;     /* the worker: build/bin/<step>-worker */
    unsigned ranks;          /* 0: run it as it is; R: through mpirun -np R (steps launched mpi:R) */
    unsigned gpus, threads;  /* SETUP: GPUs asked for (0 = the step's default), OpenMP threads */
    unsigned devices;        /* GPUs it is given, the first the judge may use: their device files alone (0: none) */
    unsigned features;       /* NB_FEATURE_* of the registry */
    nb_sandbox_mode sandbox;
    const char *hidden[NB_SANDBOX_HIDDEN_MAX]; /* folders the worker must not see (the reference cache ...) */
    size_t tmp_bytes;        /* the sandbox's private /tmp */
    nb_child_limits limits;  /* every worker's rlimits and CPUs (child.h): the judge sets them from its run */
    uint64_t tasks, memory_bytes; /* its control group's bounds, where one can be made (0: none) */
    const char *wrapper;     /* a test's way in: a program the worker runs under (compute-sanitizer), or NULL */
} nb_worker_spec;

typedef struct nb_worker {
    pid_t pid;               /* bwrap, mpirun or the worker: leader of its own process group */
    int request, response;   /* the FIFOs' ends */
    char dir[512];           /* the call folder */
    int sandboxed;
    char device[256];        /* READY: the device's name (shown, never trusted) */
    unsigned gpus;
    nb_child_limits limits;  /* what it was started with, to say which one it ran into */
    nb_cgroup cg;
} nb_worker;

/* What came back from one call, besides the state. */
typedef struct nb_worker_reply {
    double seconds;          /* the judge's clock: the request handed over, to the state received */
    double request_s;        /* of which handing the request over (the worker has nothing to compute on yet) */
    double region_s;         /* the step's own nb_region_begin/end (shown, never graded) */
    unsigned block;          /* what the step said it used: shown, never trusted */
    char config[160];
} nb_worker_reply;

/* A snapshot a step emitted during a call (steps with NB_FEATURE_SNAPSHOTS), or NULL to drop them. */
typedef int (*nb_snapshot_fn)(void *ctx, const nb_state *view);

/* Where a sandboxed worker finds its program: one path for every build of every step, so that no build
 * (the race check's -O0) can be told from another by its path. */
#define NB_SANDBOX_PROGRAM "/tmp/nb-step/worker"

/* Of the GPU device files `paths` (/dev/nvidia*, as globbed), those a worker given the GPUs of device
 * minors minors[0..count) sees, into keep (room for n): every control file (nvidiactl, nvidia-uvm,
 * nvidia-caps: all but /dev/nvidiaN) and the numbered ones among the minors; all of them where minors
 * is NULL. Returns how many it kept, in the order of paths. */
size_t nb_sandbox_gpu_files(const char *const *paths, size_t n, const unsigned *minors, size_t count,
                            const char **keep);

/* Whether the sandbox runs here: 1, or 0 with the reason in `why` (probed once per process). */
int nb_sandbox_available(char *why, size_t len);

/* Start a worker and wait until it is ready (its GPU context made): 0, or NB_EXIT_ERROR after one line
 * (the worker's own, when it refused to start). `limit_s` bounds the start. */
int nb_worker_start(nb_worker *w, const nb_worker_spec *spec, double limit_s);

/* Hand `run` on `state` to the worker and take the state back into `state` (masses stay the judge's).
 * Returns what the step returned (0, or NB_EXIT_ERROR after its line), or NB_EXIT_ERROR after one line
 * if the worker died, broke the protocol or ran past `limit_s`. `on_snapshot` receives every emitted
 * view (in the worker's own numbering of the state), or they are dropped where it is NULL. */
int nb_worker_call(nb_worker *w, nb_state *state, const nb_run *run, double limit_s, nb_snapshot_fn on_snapshot,
                   void *ctx, nb_worker_reply *reply);

/* End the worker: close its request, wait a moment, then kill its process group. Safe to call twice. */
void nb_worker_stop(nb_worker *w);

/* The time a call of `interactions` pair interactions may take before it is stopped: NB_CALL_BASE_S
 * plus NB_CALL_NS_PER_INTERACTION each (ten times slower than the serial step). */
#define NB_CALL_BASE_S 30.0
#define START_LIMIT_S 120.0 /* a worker's start: a GPU context, or mpirun's ranks */
#define NB_CALL_NS_PER_INTERACTION 50.0
double nb_call_limit(double interactions);

#ifdef __cplusplus
}
#endif
#endif
