/* replace.c: files written through a temporary and a rename, and the signal handler that removes the
 * temporaries of a program interrupted while writing them. */
#define _POSIX_C_SOURCE 200809L
#include "replace.h"
#include "nbody.h"
#include "util.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The temporaries open now, where the handler can read them without allocating or locking: a fixed
 * number of fixed buffers, each marked in use by a lock-free flag. A path longer than a buffer could not
 * be opened anyway (PATH_MAX is 4096); more files at once than slots are written unprotected. */
enum { SLOTS = 8, SLOT_BYTES = 4096 + 32 };
static char slot_path[SLOTS][SLOT_BYTES];
static atomic_int slot_used[SLOTS];

static const int caught[] = {SIGINT, SIGTERM, SIGHUP};
enum { CAUGHT = sizeof caught / sizeof caught[0] };
static struct sigaction previous[CAUGHT]; /* what each signal did before; restored when no file is open */
static int installed[CAUGHT];
static int open_files; /* temporaries with a slot; the handler is installed while this is above 0 */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* Async-signal-safe only: unlink, sigaction, raise. The signal is blocked while this runs, so the one
 * raised here is delivered as it returns, to the action that was there before (the default: the end). */
static void remove_temporaries(int sig)
{
    const int saved = errno;
    for (int i = 0; i < SLOTS; ++i)
        if (atomic_load(&slot_used[i]))
            unlink(slot_path[i]);
    for (int k = 0; k < CAUGHT; ++k)
        if (caught[k] == sig)
            sigaction(sig, &previous[k], NULL);
    raise(sig);
    errno = saved;
}

/* With `lock` held. A signal the program ignores (nohup's SIGHUP, SIGINT of a background job) stays
 * ignored. */
static void install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = remove_temporaries;
    sigemptyset(&sa.sa_mask);
    for (int k = 0; k < CAUGHT; ++k)
        sigaddset(&sa.sa_mask, caught[k]);
    sa.sa_flags = SA_RESTART;
    for (int k = 0; k < CAUGHT; ++k) {
        installed[k] = sigaction(caught[k], NULL, &previous[k]) == 0 && previous[k].sa_handler != SIG_IGN &&
                       sigaction(caught[k], &sa, NULL) == 0;
    }
}

static void uninstall(void)
{
    for (int k = 0; k < CAUGHT; ++k)
        if (installed[k])
            sigaction(caught[k], &previous[k], NULL);
}

/* Forget the temporary (already renamed or removed). */
static void release(nb_replace *r)
{
    if (r->slot >= 0) {
        pthread_mutex_lock(&lock);
        atomic_store(&slot_used[r->slot], 0);
        if (--open_files == 0)
            uninstall();
        pthread_mutex_unlock(&lock);
        r->slot = -1;
    }
    free(r->tmp);
    r->tmp = NULL;
}

int nb_replace_open(nb_replace *r, const char *path)
{
    r->path = path;
    r->slot = -1;
    const size_t len = strlen(path) + 16;
    r->tmp = (char *)nb_malloc(len, "a file name");
    if (!r->tmp)
        return -1;
    snprintf(r->tmp, len, "%s.tmp.XXXXXX", path);

    /* The slot is marked before mkstemp makes the file in it, so no signal falls between the two. */
    pthread_mutex_lock(&lock);
    for (int i = 0; i < SLOTS && r->slot < 0 && len <= SLOT_BYTES; ++i)
        if (!atomic_load(&slot_used[i]))
            r->slot = i;
    if (r->slot >= 0) {
        memcpy(slot_path[r->slot], r->tmp, len);
        if (open_files++ == 0)
            install();
        atomic_store(&slot_used[r->slot], 1);
    }
    pthread_mutex_unlock(&lock);
    const int fd = mkstemp(r->slot >= 0 ? slot_path[r->slot] : r->tmp);
    const int saved = errno;
    if (r->slot >= 0)
        memcpy(r->tmp, slot_path[r->slot], len);
    if (fd < 0) {
        nb_error("cannot write %s: %s", path, strerror(saved));
        release(r); /* no file made: the name left in the template is not ours to remove */
        return -1;
    }

    /* A file replaced keeps its permissions (and, where we may set them, its owner and group); a new one
     * is rw-r--r--. Only the rwx bits: set-id bits do not belong on a data file. */
    struct stat old;
    if (lstat(path, &old) == 0 && S_ISREG(old.st_mode)) {
        if ((old.st_uid != geteuid() || old.st_gid != getegid()) && fchown(fd, old.st_uid, old.st_gid) != 0)
            errno = 0; /* not ours to give away: the new file stays ours, with the old one's mode */
        fchmod(fd, old.st_mode & 0777);
    } else {
        fchmod(fd, 0644);
    }
    return fd;
}

int nb_replace_commit(nb_replace *r, const char *note)
{
    int rc = NB_EXIT_OK;
    if (rename(r->tmp, r->path) != 0) {
        nb_error("cannot write %s: %s%s%s", r->path, strerror(errno), note ? " " : "", note ? note : "");
        unlink(r->tmp);
        rc = NB_EXIT_ERROR;
    }
    release(r);
    return rc;
}

void nb_replace_discard(nb_replace *r)
{
    if (!r->tmp)
        return;
    unlink(r->tmp);
    release(r);
}
