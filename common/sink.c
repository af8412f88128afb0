/* sink.c: a bounded queue of state copies and one writer thread. */
#define _POSIX_C_SOURCE 200809L
#include "sink.h"
#include "comm.h"
#include "snapshot.h"
#include "util.h"
#include "variant.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { QUEUE = 3, SPARES = QUEUE + 1 };

struct nb_snapshot_sink {
    char dir[4096];
    double eps, dt;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    nb_state slot[QUEUE];
    size_t head, count;   /* queued copies: slot[head .. head+count) */
    int busy;             /* the writer holds a copy it has not finished */
    int stop, failed;
    nb_state spare[SPARES]; /* written copies kept for the next push: no allocation, no page faults */
    size_t spares;
    nb_variant variant;     /* the run's presentation of the problem: mapped back before writing */
};

static void *writer(void *arg)
{
    nb_snapshot_sink *s = (nb_snapshot_sink *)arg;
    pthread_mutex_lock(&s->lock);
    for (;;) {
        while (s->count == 0 && !s->stop)
            pthread_cond_wait(&s->changed, &s->lock);
        if (s->count == 0)
            break;
        nb_state item = s->slot[s->head];
        s->head = (s->head + 1) % QUEUE;
        s->count -= 1;
        s->busy = 1;
        pthread_mutex_unlock(&s->lock);

        char path[4200];
        snprintf(path, sizeof path, "%s/snap-%010llu.nbs", s->dir, (unsigned long long)item.step);
        const int rc = nb_snapshot_write(path, &item, s->eps, s->dt);

        pthread_mutex_lock(&s->lock);
        if (s->spares < SPARES)
            s->spare[s->spares++] = item;
        else
            nb_state_free(&item);
        s->busy = 0;
        s->failed |= rc != NB_EXIT_OK;
        pthread_cond_broadcast(&s->changed);
    }
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

int nb_sink_check(const char *dir)
{
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        nb_error("--snapshot-dir %s: not a folder", dir);
        return NB_EXIT_ERROR;
    }
    if (strlen(dir) >= sizeof ((nb_snapshot_sink *)0)->dir) {
        nb_error("--snapshot-dir: path too long");
        return NB_EXIT_ERROR;
    }
    if (access(dir, W_OK | X_OK) != 0) {
        nb_error("--snapshot-dir %s: %s", dir, strerror(errno));
        return NB_EXIT_ERROR;
    }
    return NB_EXIT_OK;
}

nb_snapshot_sink *nb_sink_open(const char *dir, double eps, double dt)
{
    if (nb_sink_check(dir) != NB_EXIT_OK)
        return NULL;
    nb_snapshot_sink *s = (nb_snapshot_sink *)calloc(1, sizeof *s);
    if (!s) {
        nb_error("out of host memory for the snapshot writer");
        return NULL;
    }
    snprintf(s->dir, sizeof s->dir, "%s", dir);
    s->eps = eps;
    s->dt = dt;
    nb_variant_pick(&s->variant, 0, 0);
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->changed, NULL);
    if (pthread_create(&s->thread, NULL, writer, s) != 0) {
        nb_error("cannot start the snapshot writer thread");
        free(s);
        return NULL;
    }
    return s;
}

int nb_sink_push(nb_snapshot_sink *s, const nb_state *view)
{
    if (nb_comm_rank() != 0) /* every rank runs the same chunks; rank 0 alone writes the files */
        return NB_EXIT_OK;
    nb_state copy = {0};
    pthread_mutex_lock(&s->lock); /* a copy the writer is done with, if it has the same shape */
    while (s->spares > 0 && !copy.x) {
        nb_state *old = &s->spare[--s->spares];
        if (old->systems == view->systems && old->bodies == view->bodies)
            copy = *old;
        else
            nb_state_free(old);
    }
    pthread_mutex_unlock(&s->lock);
    if (!copy.x && nb_state_alloc(&copy, view->systems, view->bodies) != NB_EXIT_OK)
        return NB_EXIT_ERROR;
    nb_variant_undo(&s->variant, view, &copy);
    pthread_mutex_lock(&s->lock);
    while (s->count == QUEUE && !s->failed)
        pthread_cond_wait(&s->changed, &s->lock);
    const int failed = s->failed;
    if (!failed) {
        s->slot[(s->head + s->count) % QUEUE] = copy;
        s->count += 1;
        pthread_cond_broadcast(&s->changed);
    }
    pthread_mutex_unlock(&s->lock);
    if (failed) {
        nb_state_free(&copy);
        return NB_EXIT_ERROR;
    }
    return NB_EXIT_OK;
}

void nb_sink_present(nb_snapshot_sink *s, const nb_variant *v) { s->variant = *v; }

int nb_sink_flush(nb_snapshot_sink *s)
{
    pthread_mutex_lock(&s->lock);
    while ((s->count > 0 || s->busy) && !s->failed)
        pthread_cond_wait(&s->changed, &s->lock);
    const int failed = s->failed;
    pthread_mutex_unlock(&s->lock);
    return failed ? NB_EXIT_ERROR : NB_EXIT_OK;
}

int nb_sink_close(nb_snapshot_sink *s)
{
    if (!s)
        return NB_EXIT_OK;
    const int rc = nb_sink_flush(s);
    pthread_mutex_lock(&s->lock);
    s->stop = 1;
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->lock);
    pthread_join(s->thread, NULL);
    while (s->count > 0) { /* only after a failure */
        nb_state_free(&s->slot[s->head]);
        s->head = (s->head + 1) % QUEUE;
        s->count -= 1;
    }
    while (s->spares > 0)
        nb_state_free(&s->spare[--s->spares]);
    pthread_mutex_destroy(&s->lock);
    pthread_cond_destroy(&s->changed);
    free(s);
    return rc;
}

int nb_snapshot_emit(const nb_run *run, const nb_state *view)
{
    if (!run->extra.sink) {
        nb_error("nb_snapshot_emit called without --snapshot-dir");
        return NB_EXIT_ERROR;
    }
    return nb_sink_push(run->extra.sink, view);
}
