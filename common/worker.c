/* worker.c: the worker, the one program a step's code is linked into (build/bin/<step>-worker).
 *
 * It is started by the judge (the step's program, common/judge.c), in a sandbox where it can be, and is
 * trusted for nothing: it takes requests over the FIFOs of its call folder (protocol.h), runs the step's
 * nb_step_run on each, and hands the state back. It reads no files, writes none, keeps no time that
 * counts, and checks nothing: the judge does all of that. Under mpirun (steps launched mpi:R) every rank
 * is a worker; rank 0 speaks for them and passes each request on.
 *
 * Compiled once per step with NB_STEP_NAME (the Makefile takes it from steps.list). */
#define _POSIX_C_SOURCE 200809L
#include "comm.h"
#include "nbody.h"
#include "platform.h"
#include "protocol.h"
#include "timing.h"
#include "util.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#ifndef NB_STEP_NAME
#define NB_STEP_NAME "nbody"
#endif

static int response_fd = -1; /* rank 0's: to the judge */

/* Rank 0 reads, every rank gets it. */
static void receive(int fd, void *buf, size_t len)
{
    if (nb_comm_rank() == 0 && nb_recv_bytes(fd, buf, len, 0.0) != 0)
        nb_die(NB_EXIT_ERROR, "the judge went away in the middle of a request");
    if (nb_comm_bcast(buf, len) != 0)
        nb_comm_abort(NB_EXIT_ERROR);
}

static void send_or_die(int rc)
{
    if (rc != 0)
        nb_die(NB_EXIT_ERROR, "cannot answer the judge (it went away)");
}

/* nbody.h: a snapshot a step emits goes to the judge, which writes it. */
int nb_snapshot_emit(const nb_run *run, const nb_state *view)
{
    if (!run->extra.snapshot_every) {
        nb_error("nb_snapshot_emit called in a run that asked for no snapshots");
        return NB_EXIT_ERROR;
    }
    if (nb_comm_rank() != 0)
        return NB_EXIT_OK;
    const nb_wire_view head = {view->step, view->time};
    send_or_die(nb_send_state(response_fd, NB_MSG_SNAPSHOT, &head, sizeof head, view, NB_FIELDS - 1, 0.0));
    return NB_EXIT_OK;
}

static int serve(int request_fd)
{
    /* Set-up: GPUs and threads, then the platform (a GPU's context: start-up the judge never times). */
    nb_wire_setup setup;
    nb_frame f = {0, 0, 0};
    if (nb_comm_rank() == 0 && (nb_recv_header(request_fd, &f, 0.0) != 0 || f.type != NB_MSG_SETUP ||
                                f.length != sizeof setup))
        nb_die(NB_EXIT_ERROR, "the judge did not set the worker up");
    receive(request_fd, &setup, sizeof setup);
    if (setup.version != NB_PROTOCOL_VERSION)
        nb_die(NB_EXIT_ERROR, "the judge speaks protocol %u, this worker %u: rebuild the step", setup.version,
               NB_PROTOCOL_VERSION);
#ifdef _OPENMP
    if (setup.threads > 0)
        omp_set_num_threads((int)setup.threads);
#endif
    /* Rank 0 first: where it finds no GPU it alone says so, and every rank stops quietly with it. */
    const int multi = (setup.features & NB_FEATURE_MULTI_GPU) != 0;
    int rc = nb_comm_rank() == 0 ? nb_platform_open(setup.gpus, multi) : NB_EXIT_OK;
    int first[1] = {rc};
    if (nb_comm_bcast(first, sizeof first) != 0)
        nb_comm_abort(NB_EXIT_ERROR);
    if (first[0] != NB_EXIT_OK)
        return -first[0]; /* negative: every rank agreed to stop */
    if (nb_comm_rank() != 0)
        rc = nb_platform_open(setup.gpus, multi);
    if (nb_comm_max(rc != NB_EXIT_OK ? 1.0 : 0.0) > 0.0)
        return -NB_EXIT_ERROR; /* the ranks that failed said why; all stop together */
    if (nb_comm_rank() == 0) {
        nb_wire_ready ready = {NB_PROTOCOL_VERSION, nb_platform_gpus(), ""};
        snprintf(ready.device, sizeof ready.device, "%s", nb_platform_device());
        const void *part = &ready;
        const size_t len = sizeof ready;
        send_or_die(nb_send(response_fd, NB_MSG_READY, &part, &len, 1, 0.0));
    }

    nb_state state = {0};
    nb_clock clock;
    memset(&clock, 0, sizeof clock);
    for (;;) {
        /* The next request, or the judge's end of file: then the worker is done. */
        uint64_t kind[2] = {0, 0};
        if (nb_comm_rank() == 0) {
            if (nb_recv_header(request_fd, &f, 0.0) == 0 && f.type == NB_MSG_REQUEST &&
                f.length >= sizeof(nb_wire_run))
                kind[0] = 1;
        }
        if (nb_comm_bcast(kind, sizeof kind) != 0)
            nb_comm_abort(NB_EXIT_ERROR);
        if (!kind[0])
            break;
        nb_wire_run w;
        receive(request_fd, &w, sizeof w);
        uint64_t total;
        if (nb_mul_overflows(w.systems, w.bodies, &total) ||
            (nb_comm_rank() == 0 && f.length != sizeof w + total * NB_FIELDS * sizeof(float)))
            nb_die(NB_EXIT_ERROR, "a request whose size does not match its shape");
        if (state.systems != w.systems || state.bodies != w.bodies) {
            nb_state_free(&state);
            if ((rc = nb_state_alloc(&state, (size_t)w.systems, (size_t)w.bodies)) != NB_EXIT_OK)
                return rc;
        }
        for (int k = 0; k < NB_FIELDS; ++k)
            receive(request_fd, nb_state_field(&state, k), (size_t)total * sizeof(float));
        state.step = w.state_step;
        state.time = w.state_time;
        /* The steps' buffers and scratch: the state twice over on one GPU. */
        if (nb_platform_is_gpu() && (rc = nb_platform_check_memory(2 * total * NB_FIELDS * sizeof(float))) != NB_EXIT_OK)
            return rc;

        nb_run_info info;
        memset(&info, 0, sizeof info);
        nb_run run;
        memset(&run, 0, sizeof run);
        run.steps = w.steps;
        run.dt = w.dt;
        run.eps2 = w.eps2;
        run.block = w.block;
        run.clock = &clock;
        run.info = &info;
        run.extra.gpus = w.gpus;
        run.extra.no_overlap = (int)w.no_overlap;
        run.extra.decompose = (int)w.decompose;
        run.extra.deterministic = (int)w.deterministic;
        run.extra.theta = w.theta;
        run.extra.levels = w.levels;
        run.extra.eta = w.eta;
        run.extra.snapshot_every = w.snapshot_every;
        clock.elapsed = 0.0;
        const int status = nb_step_run(&state, &run);

        if (nb_comm_rank() == 0) {
            nb_wire_result result = {status, info.block, info.gpus, clock.elapsed, ""};
            memcpy(result.config, info.config, sizeof result.config);
            result.config[sizeof result.config - 1] = '\0';
            send_or_die(nb_send_state(response_fd, NB_MSG_RESULT, &result, sizeof result, &state, NB_FIELDS - 1, 0.0));
        }
        if (status != NB_EXIT_OK) /* the step said why in its own line */
            return status;
    }
    nb_state_free(&state);
    return NB_EXIT_OK;
}

int main(int argc, char **argv)
{
    nb_set_progname(NB_STEP_NAME);
    signal(SIGPIPE, SIG_IGN); /* a judge that went away is an error on the write, said in one line */
    if (nb_comm_init(&argc, &argv) != NB_EXIT_OK)
        return NB_EXIT_ERROR;
    if (argc != 3 || strcmp(argv[1], "--call") != 0) {
        nb_error("this is the worker of %s, started by its judge: run %s instead (it takes the options)",
                 NB_STEP_NAME, NB_STEP_NAME);
        return nb_comm_finalize(NB_EXIT_ERROR);
    }
    int request_fd = -1;
    if (nb_comm_rank() == 0) {
        char path[4200];
        snprintf(path, sizeof path, "%s/response", argv[2]);
        response_fd = open(path, O_WRONLY | O_CLOEXEC);
        snprintf(path, sizeof path, "%s/request", argv[2]);
        request_fd = response_fd < 0 ? -1 : open(path, O_RDONLY | O_CLOEXEC);
        if (request_fd < 0) {
            nb_error("cannot open the call folder %s (the judge starts the worker)", argv[2]);
            nb_comm_abort(NB_EXIT_ERROR);
        }
        const nb_wire_setup hello = {NB_PROTOCOL_VERSION, 0, 0, 0};
        const void *part = &hello;
        const size_t len = sizeof hello;
        send_or_die(nb_send(response_fd, NB_MSG_HELLO, &part, &len, 1, 0.0));
    }
    const int rc = serve(request_fd);
    return rc < 0 ? nb_comm_finalize_together(-rc) : nb_comm_finalize(rc);
}
