/* testlib.c: helpers shared by the Check programs (see testlib.h). */
#define _GNU_SOURCE
#include "testlib.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

TCase *nbt_tcase(Suite *suite, const char *name, double timeout_s)
{
    TCase *tc = tcase_create(name);
    tcase_set_timeout(tc, timeout_s);
    suite_add_tcase(suite, tc);
    return tc;
}

int nbt_run(Suite *suite, enum fork_status fork)
{
    setvbuf(stdout, NULL, _IOLBF, 0); /* a failing test's child exits without flushing: keep its lines */
    SRunner *sr = srunner_create(suite);
    srunner_set_fork_status(sr, fork);
    srunner_run_all(sr, CK_NORMAL);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}

int nbt_skip(const char *suite, const char *const *names, size_t count, const char *reason)
{
    const char *tap = getenv("CK_TAP_LOG_FILE_NAME");
    FILE *f = tap && *tap ? fopen(tap, "w") : NULL;
    for (size_t i = 0; f && i < count; ++i)
        fprintf(f, "ok %zu - %s:%s # SKIP %s\n", i + 1, suite, names[i], reason);
    if (f) {
        fprintf(f, "1..%zu\n", count);
        fclose(f);
    }
    printf("%s: %zu tests skipped: %s\n", suite, count, reason);
    return NBT_EXIT_SKIP;
}

void nbt_add_skips(const char *suite, const char *const *names, size_t count, const char *reason)
{
    if (count == 0)
        return;
    printf("%s: %zu tests skipped: %s\n", suite, count, reason);
    const char *tap = getenv("CK_TAP_LOG_FILE_NAME");
    if (!tap || !*tap)
        return;
    size_t len = 0;
    char *text = (char *)nbt_read_file(tap, &len);
    FILE *f = fopen(tap, "w");
    if (!f) {
        free(text);
        return;
    }
    size_t tests = 0;
    for (char *line = text, *next; line && line < text + len; line = next) { /* every line but the plan */
        next = memchr(line, '\n', (size_t)(text + len - line));
        const size_t n = next ? (size_t)(next - line) : (size_t)(text + len - line);
        if (next)
            ++next;
        if (!strncmp(line, "1..", 3))
            continue;
        tests += !strncmp(line, "ok ", 3) || !strncmp(line, "not ok ", 7);
        fprintf(f, "%.*s\n", (int)n, line);
    }
    for (size_t i = 0; i < count; ++i)
        fprintf(f, "ok %zu - %s:%s # SKIP %s\n", tests + i + 1, suite, names[i], reason);
    fprintf(f, "1..%zu\n", tests + count);
    fclose(f);
    free(text);
}

void nbt_capture_begin(nbt_capture *c)
{
    memset(c, 0, sizeof *c);
    fflush(stderr);
    c->file = tmpfile();
    if (!c->file) {
        perror("tmpfile");
        abort();
    }
    c->saved_fd = dup(STDERR_FILENO);
    dup2(fileno(c->file), STDERR_FILENO);
}

void nbt_capture_end(nbt_capture *c)
{
    fflush(stderr);
    dup2(c->saved_fd, STDERR_FILENO);
    close(c->saved_fd);
    rewind(c->file);
    const size_t got = fread(c->text, 1, sizeof c->text - 1, c->file);
    c->text[got] = '\0';
    fclose(c->file);
    c->file = NULL;
    for (const char *p = c->text; *p; ++p)
        c->lines += *p == '\n';
}

char *nbt_one_line(char *text)
{
    char *out = text;
    for (const char *in = text; *in;) {
        if (*in != '\n') {
            *out++ = *in++;
            continue;
        }
        while (*in == '\n' || *in == ' ')
            ++in;
        if (*in && out != text) {
            memcpy(out, " | ", 3);
            out += 3;
        }
    }
    *out = '\0';
    return text;
}

static char tmpdir[4096];

const char *nbt_tmpdir(void)
{
    if (tmpdir[0])
        return tmpdir;
    const char *root = getenv("NB_TEST_TMP");
    if (!root || !*root)
        root = "/tmp";
    mkdir(root, 0755); /* tests.mk makes it; a program run by hand may not have it */
    snprintf(tmpdir, sizeof tmpdir, "%s/nbt.XXXXXX", root);
    if (!mkdtemp(tmpdir)) {
        fprintf(stderr, "cannot make a scratch folder under %s: %s\n", root, strerror(errno));
        abort();
    }
    return tmpdir;
}

const char *nbt_path(int slot, const char *name)
{
    static char buf[8][4400];
    snprintf(buf[slot & 7], sizeof buf[0], "%s/%s", nbt_tmpdir(), name);
    return buf[slot & 7];
}

void nbt_tmpdir_remove(void)
{
    if (!tmpdir[0])
        return;
    DIR *d = opendir(tmpdir);
    struct dirent *e;
    char path[8200];
    while (d && (e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        snprintf(path, sizeof path, "%s/%s", tmpdir, e->d_name);
        if (unlink(path) != 0)
            rmdir(path);
    }
    if (d)
        closedir(d);
    rmdir(tmpdir);
    tmpdir[0] = '\0';
}

size_t nbt_count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    size_t n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    if (d)
        closedir(d);
    return n;
}

int nbt_write_file(const char *path, const void *bytes, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    const int ok = fwrite(bytes, 1, len, f) == len;
    return fclose(f) == 0 && ok ? 0 : -1;
}

unsigned char *nbt_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, used = 0, got;
    unsigned char *buf = malloc(cap);
    while (buf && (got = fread(buf + used, 1, cap - used, f)) > 0) {
        used += got;
        if (used == cap) {
            unsigned char *bigger = realloc(buf, cap *= 2);
            if (!bigger)
                free(buf);
            buf = bigger;
        }
    }
    fclose(f);
    *len = used;
    return buf;
}

int nbt_run_program(char *const argv[], nbt_capture *err)
{
    memset(err, 0, sizeof *err);
    FILE *file = tmpfile();
    if (!file)
        return -1;
    fflush(NULL);
    const pid_t pid = fork();
    if (pid == 0) {
        const int null = open("/dev/null", O_WRONLY);
        dup2(null, STDOUT_FILENO);
        dup2(fileno(file), STDERR_FILENO);
        execv(argv[0], argv);
        fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    int status = 0;
    while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    rewind(file);
    const size_t got = fread(err->text, 1, sizeof err->text - 1, file);
    err->text[got] = '\0';
    fclose(file);
    for (const char *p = err->text; *p; ++p)
        err->lines += *p == '\n';
    if (pid < 0)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

size_t nbt_heap_in_use(void)
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
    return mallinfo2().uordblks;
#else
    return (size_t)(unsigned)mallinfo().uordblks;
#endif
}

uint32_t nbt_get_u32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

uint64_t nbt_get_u64(const unsigned char *p) { return nbt_get_u32(p) | (uint64_t)nbt_get_u32(p + 4) << 32; }

void nbt_put_u32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; ++i)
        p[i] = (unsigned char)(v >> (8 * i));
}

void nbt_put_u64(unsigned char *p, uint64_t v)
{
    nbt_put_u32(p, (uint32_t)v);
    nbt_put_u32(p + 4, (uint32_t)(v >> 32));
}

const char *nbt_env(const char *name)
{
    const char *v = getenv(name);
    ck_assert_msg(v && *v, "%s is not set (run the tests with make test)", name);
    return v;
}
