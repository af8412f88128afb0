/* progress.c: a ticker thread that rewrites one stderr line while a phase runs. */
#define _POSIX_C_SOURCE 200809L
#include "progress.h"
#include "timing.h"
#include "util.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_t ticker;
static int enabled = -1, started, shown;
static char phase[128];
static double phase_start;

static void erase(void)
{
    if (shown)
        fprintf(stderr, "\r\033[K");
    shown = 0;
}

static void *tick(void *arg)
{
    (void)arg;
    for (;;) {
        const struct timespec half = {0, 500000000L};
        nanosleep(&half, NULL);
        pthread_mutex_lock(&lock);
        const double t = nb_now() - phase_start;
        if (phase[0] && t >= 2.0) {
            fprintf(stderr, "\r\033[K%s: %s ... %.0f s", nb_progname(), phase, t);
            fflush(stderr);
            shown = 1;
        }
        pthread_mutex_unlock(&lock);
    }
    return NULL;
}

void nb_progress_enable(int on) { enabled = on && isatty(2); }

void nb_progress(const char *name)
{
    if (enabled < 0)
        enabled = isatty(2);
    if (!enabled)
        return;
    pthread_mutex_lock(&lock);
    erase();
    snprintf(phase, sizeof phase, "%s", name);
    phase_start = nb_now();
    if (!started && pthread_create(&ticker, NULL, tick, NULL) == 0) {
        pthread_detach(ticker);
        started = 1;
    }
    pthread_mutex_unlock(&lock);
}

void nb_progress_done(void)
{
    if (enabled <= 0)
        return;
    pthread_mutex_lock(&lock);
    erase();
    phase[0] = '\0';
    fflush(stderr);
    pthread_mutex_unlock(&lock);
}
