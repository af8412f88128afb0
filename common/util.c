/* util.c: error lines, checked allocation, checked size arithmetic. */
#define _POSIX_C_SOURCE 200809L
#include "util.h"
#include "comm.h"
#include "nbody.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *progname = "nbody";

void nb_set_progname(const char *name)
{
    if (name && *name)
        progname = name;
}

const char *nb_progname(void) { return progname; }

/* A message longer than this is shown as its first and last LINE_KEEP bytes around " ... ": a long path
 * in it cannot push out the reason at its end, nor fill a screen. */
enum { LINE_SHOWN = 4096, LINE_KEEP = 2000 };

static void vline(const char *fmt, va_list ap)
{
    char small[1024];
    va_list again;
    va_copy(again, ap);
    const int need = vsnprintf(small, sizeof small, fmt, ap);
    char *buf = small; /* the whole message when it fits; else one allocated to fit (kept cut if none) */
    if (need >= (int)sizeof small) {
        char *big = (char *)malloc((size_t)need + 1);
        if (big && vsnprintf(big, (size_t)need + 1, fmt, again) == need)
            buf = big;
        else
            free(big);
    }
    va_end(again);
    /* One line, whatever the caller passed in. */
    for (char *p = buf; *p; ++p)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    const size_t len = strlen(buf);
    if (len <= LINE_SHOWN) {
        fprintf(stderr, "%s: %s\n", progname, buf);
    } else { /* cut between UTF-8 characters, not inside one */
        size_t head = LINE_KEEP, tail = len - LINE_KEEP;
        while (head > 0 && ((unsigned char)buf[head] & 0xC0) == 0x80)
            --head;
        while (tail < len && ((unsigned char)buf[tail] & 0xC0) == 0x80)
            ++tail;
        fprintf(stderr, "%s: %.*s ... %s\n", progname, (int)head, buf, buf + tail);
    }
    if (buf != small)
        free(buf);
}

void nb_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vline(fmt, ap);
    va_end(ap);
}

void nb_die(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vline(fmt, ap);
    va_end(ap);
    nb_comm_abort(code); /* exit(code); under MPI the whole job */
}

void *nb_malloc(size_t bytes, const char *what)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        char buf[32];
        nb_error("out of host memory: %s needs %s", what, nb_format_bytes(bytes, buf, sizeof buf));
    }
    return p;
}

void *nb_malloc_lines(size_t bytes, const char *what)
{
    /* malloc's own block, one pointer and up to 63 bytes more: aligned_alloc would leave the cut-off
     * head of its block in malloc's caches after free(), where the tests' heap count sees it. */
    char *raw = bytes <= SIZE_MAX - 64 - sizeof(char *) ? (char *)malloc(bytes + 64 + sizeof(char *)) : NULL;
    if (!raw) {
        char buf[32];
        nb_error("out of host memory: %s needs %s", what, nb_format_bytes(bytes, buf, sizeof buf));
        return NULL;
    }
    char *p = raw + sizeof raw;
    p += (64 - (uintptr_t)p % 64) % 64;
    memcpy(p - sizeof raw, &raw, sizeof raw); /* where the block starts, for nb_free_lines */
    return p;
}

void nb_free_lines(void *p)
{
    if (p) {
        char *raw;
        memcpy(&raw, (char *)p - sizeof raw, sizeof raw);
        free(raw);
    }
}

int nb_write_all(int fd, const void *bytes, size_t len)
{
    const char *p = (const char *)bytes;
    while (len > 0) {
        const ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0)
                errno = EIO;
            return -1;
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

int nb_mul_overflows(uint64_t a, uint64_t b, uint64_t *out)
{
    return __builtin_mul_overflow(a, b, out);
}

int nb_output_check(const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        nb_error("cannot write %s: %s", path, strerror(EISDIR));
        return NB_EXIT_ERROR;
    }
    /* What is there is replaced (or appended to) only if it is a plain file we may write: a link, a FIFO
     * or a device would be replaced by a file, or block; a read-only file is the user's to keep. */
    if (lstat(path, &st) == 0) {
        if (S_ISLNK(st.st_mode) || !S_ISREG(st.st_mode)) {
            nb_error("%s is %s, not a regular file: refusing to replace it", path,
                     S_ISLNK(st.st_mode) ? "a symbolic link" : S_ISFIFO(st.st_mode) ? "a FIFO" : "a special file");
            return NB_EXIT_ERROR;
        }
        if (access(path, W_OK) != 0) {
            nb_error("%s is read-only: refusing to replace it", path);
            return NB_EXIT_ERROR;
        }
    }
    /* The file is written beside itself and renamed, or appended to: its folder must take new files. */
    const char *slash = strrchr(path, '/');
    char dir[4096];
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) + 1 : 1, slash ? path : ".");
    if (access(dir, W_OK | X_OK) != 0) {
        nb_error("cannot write %s: %s", path, strerror(errno));
        return NB_EXIT_ERROR;
    }
    /* A name the folder cannot hold would fail only after the run (with room for the temporary's suffix). */
    const long name_max = pathconf(dir, _PC_NAME_MAX);
    if (name_max > 0 && (long)strlen(slash ? slash + 1 : path) + 16 > name_max) {
        nb_error("cannot write %s: %s (a file name there has at most %ld characters, and the lab writes it "
                 "through a temporary of the name plus 16)", path, strerror(ENAMETOOLONG), name_max);
        return NB_EXIT_ERROR;
    }
    return NB_EXIT_OK;
}

uint64_t nb_host_memory_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f)
        return 0;
    char line[256];
    unsigned long long kib = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1)
            break;
    fclose(f);
    return (uint64_t)kib * 1024u;
}

const char *nb_format_bytes(uint64_t bytes, char *buf, size_t len)
{
    static const char *unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double v = (double)bytes;
    int u = 0;
    while (v >= 1024.0 && u < 6) {
        v /= 1024.0;
        ++u;
    }
    snprintf(buf, len, u ? "%.1f %s" : "%.0f %s", v, unit[u]);
    return buf;
}

int nb_input_check(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        nb_error("cannot read %s: %s", path, strerror(errno));
        return NB_EXIT_ERROR;
    }
    if (!S_ISREG(st.st_mode)) { /* a FIFO would block the read forever */
        nb_error("cannot read %s: not a regular file (%s)", path,
                 S_ISDIR(st.st_mode) ? "a folder" : S_ISFIFO(st.st_mode) ? "a FIFO: reading it could block" : "a device");
        return NB_EXIT_ERROR;
    }
    return NB_EXIT_OK;
}

int nb_word_value(const nb_word *words, size_t count, const char *text, const char *option, int *value)
{
    for (size_t k = 0; k < count; ++k)
        if (!strcmp(words[k].name, text)) {
            *value = words[k].value;
            return NB_EXIT_OK;
        }
    char list[512] = "";
    size_t used = 0;
    for (size_t k = 0; k < count && used < sizeof list; ++k)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", k == 0 ? "" : k + 1 == count ? " or " : ", ",
                                 words[k].name);
    nb_error("%s '%s': must be %s", option, text, list);
    return NB_EXIT_ERROR;
}

const char *nb_word_name(const nb_word *words, size_t count, int value)
{
    for (size_t k = 0; k < count; ++k)
        if (words[k].value == value)
            return words[k].name;
    return "?";
}

void nb_argv_add(char **argv, size_t *k, size_t cap, const char *word)
{
    if (*k + 1 >= cap) /* a sandbox's command line cut short would drop one of its rules: never run one */
        nb_die(NB_EXIT_ERROR, "a command line of more than %zu words (raise its bound): '%s' and after left out",
               cap - 1, word);
    argv[(*k)++] = (char *)word;
}
