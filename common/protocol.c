/* protocol.c: frames between the judge and the worker (protocol.h). */
#define _POSIX_C_SOURCE 200809L
#include "protocol.h"
#include "timing.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

/* Wait until fd can be read (or written); -1 with ETIMEDOUT once the deadline has passed. */
static int wait_for(int fd, short what, double deadline)
{
    for (;;) {
        int ms = -1;
        if (deadline > 0.0) {
            const double left = deadline - nb_now();
            if (left <= 0.0) {
                errno = ETIMEDOUT;
                return -1;
            }
            ms = left > 1e6 ? 1000000000 : (int)(left * 1e3) + 1;
        }
        struct pollfd p = {fd, what, 0};
        const int n = poll(&p, 1, ms);
        if (n > 0)
            return 0; /* ready, or hung up: the read or write that follows says which */
        if (n < 0 && errno != EINTR)
            return -1;
    }
}

static int write_bytes(int fd, const void *buf, size_t len, double deadline)
{
    const char *p = (const char *)buf;
    while (len > 0) {
        const ssize_t n = write(fd, p, len > (1u << 20) ? (1u << 20) : len);
        if (n > 0) {
            p += n;
            len -= (size_t)n;
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && errno == EAGAIN) {
            if (wait_for(fd, POLLOUT, deadline) != 0)
                return -1;
        } else {
            return -1;
        }
    }
    return 0;
}

int nb_recv_bytes(int fd, void *buf, size_t len, double deadline)
{
    char *p = (char *)buf;
    while (len > 0) {
        const ssize_t n = read(fd, p, len > (1u << 20) ? (1u << 20) : len);
        if (n > 0) {
            p += n;
            len -= (size_t)n;
        } else if (n == 0) {
            errno = EPIPE; /* the other side is gone */
            return -1;
        } else if (errno == EINTR) {
            continue;
        } else if (errno == EAGAIN) {
            if (wait_for(fd, POLLIN, deadline) != 0)
                return -1;
        } else {
            return -1;
        }
    }
    return 0;
}

int nb_send(int fd, uint32_t type, const void *const *parts, const size_t *lens, int nparts, double deadline)
{
    nb_frame f = {NB_PROTOCOL_MAGIC, type, 0};
    for (int k = 0; k < nparts; ++k)
        f.length += lens[k];
    if (write_bytes(fd, &f, sizeof f, deadline) != 0)
        return -1;
    for (int k = 0; k < nparts; ++k)
        if (write_bytes(fd, parts[k], lens[k], deadline) != 0)
            return -1;
    return 0;
}

int nb_recv_header(int fd, nb_frame *f, double deadline)
{
    if (nb_recv_bytes(fd, f, sizeof *f, deadline) != 0)
        return -1;
    if (f->magic != NB_PROTOCOL_MAGIC) {
        errno = EPROTO;
        return -1;
    }
    return 0;
}

int nb_send_state(int fd, uint32_t type, const void *head, size_t head_len, const nb_state *s, int fields,
                  double deadline)
{
    const void *parts[1 + NB_FIELDS];
    size_t lens[1 + NB_FIELDS];
    parts[0] = head;
    lens[0] = head_len;
    for (int k = 0; k < fields; ++k) {
        parts[1 + k] = nb_state_field(s, k);
        lens[1 + k] = nb_state_count(s) * sizeof(float);
    }
    return nb_send(fd, type, parts, lens, 1 + fields, deadline);
}

int nb_recv_state(int fd, nb_state *s, int fields, double deadline)
{
    for (int k = 0; k < fields; ++k)
        if (nb_recv_bytes(fd, nb_state_field(s, k), nb_state_count(s) * sizeof(float), deadline) != 0)
            return -1;
    return 0;
}
