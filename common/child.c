/* child.c: a started program's descriptors and limits (child.h). */
#define _GNU_SOURCE /* sched_setaffinity, CPU_* */
#include "child.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

void nb_child_close_fds(void)
{
#ifdef SYS_close_range
    if (syscall(SYS_close_range, 3u, ~0u, 0u) == 0)
        return;
#endif
    const long most = sysconf(_SC_OPEN_MAX);
    for (long fd = 3; fd < (most > 0 && most < 1 << 20 ? most : 1 << 16); ++fd)
        close((int)fd);
}

/* The hard limit `grace` above the soft one: at the soft limit the kernel sends a signal the parent can
 * name (SIGXCPU, SIGXFSZ); at soft == hard it would send SIGKILL, which tells nothing. */
static void limit(int resource, uint64_t value, uint64_t grace)
{
    if (!value)
        return;
    const struct rlimit r = {(rlim_t)value, (rlim_t)(value + grace)};
    (void)setrlimit(resource, &r);
}

#if defined(__x86_64__)
#define NATIVE_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define NATIVE_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

/* sched_setaffinity answers EPERM from now on, in this process and every one it starts: the CPUs it was
 * given stay its CPUs (a seccomp filter; without one the child could widen its own mask again). */
static void lock_affinity(void)
{
#ifdef NATIVE_AUDIT_ARCH
    struct sock_filter code[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NATIVE_AUDIT_ARCH, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_sched_setaffinity, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    const struct sock_fprog program = {(unsigned short)(sizeof code / sizeof code[0]), code};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0)
        (void)prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program);
#endif
}

void nb_child_apply_limits(const nb_child_limits *l)
{
    limit(RLIMIT_CPU, l->cpu_s, 2); /* a child that catches SIGXCPU is killed 2 CPU-seconds later */
    limit(RLIMIT_FSIZE, l->file_bytes, 0);
    limit(RLIMIT_AS, l->address_bytes, 0);
    if (l->cpus) {
        cpu_set_t have, keep;
        CPU_ZERO(&keep);
        if (sched_getaffinity(0, sizeof have, &have) == 0) {
            unsigned kept = 0;
            for (int c = 0; c < CPU_SETSIZE && kept < l->cpus; ++c)
                if (CPU_ISSET(c, &have)) {
                    CPU_SET(c, &keep);
                    ++kept;
                }
            (void)sched_setaffinity(0, sizeof keep, &keep);
        }
        if (l->cpus_locked)
            lock_affinity();
    }
}

const char *nb_child_limit_hit(int status, const nb_child_limits *l, char *buf, unsigned long len)
{
    int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    if (!sig && WIFEXITED(status) && WEXITSTATUS(status) > 128 && WEXITSTATUS(status) < 128 + 65)
        sig = WEXITSTATUS(status) - 128;
    if (sig == SIGXCPU && l->cpu_s)
        snprintf(buf, len, "its CPU-time limit of %llu s", (unsigned long long)l->cpu_s);
    else if (sig == SIGXFSZ && l->file_bytes)
        snprintf(buf, len, "its file-size limit of %llu MiB", (unsigned long long)(l->file_bytes >> 20));
    else
        return NULL;
    return buf;
}

/* ---- control groups ------------------------------------------------------------------------- */

/* This process's group in `controller`'s v1 hierarchy ("" for v2's), from /proc/self/cgroup. */
static int own_group(const char *controller, char *out, size_t len)
{
    FILE *f = fopen("/proc/self/cgroup", "re");
    if (!f)
        return -1;
    char line[1024];
    int found = -1;
    while (found < 0 && fgets(line, sizeof line, f)) {
        char *a = strchr(line, ':'), *b = a ? strchr(a + 1, ':') : NULL;
        if (!b)
            continue;
        *b = '\0';
        const char *list = a + 1, *path = b + 1;
        const int match = controller[0] ? strstr(list, controller) != NULL : list[0] == '\0';
        if (match) {
            snprintf(out, len, "%.*s", (int)strcspn(path, "\n"), path);
            found = 0;
        }
    }
    fclose(f);
    return found;
}

static int write_text(const char *dir, const char *file, const char *text)
{
    char path[700];
    const int n = snprintf(path, sizeof path, "%s/%s", dir, file);
    const int fd = n < 0 || (size_t)n >= sizeof path ? -1 : open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    const ssize_t wrote = write(fd, text, strlen(text));
    close(fd);
    return wrote == (ssize_t)strlen(text) ? 0 : -1;
}

static uint64_t read_number(const char *dir, const char *file, const char *key)
{
    char path[700], line[256];
    const int n = snprintf(path, sizeof path, "%s/%s", dir, file);
    FILE *f = n < 0 || (size_t)n >= sizeof path ? NULL : fopen(path, "re");
    uint64_t v = 0;
    while (f && fgets(line, sizeof line, f)) {
        const size_t k = strlen(key);
        if (!k || (!strncmp(line, key, k) && line[k] == ' ')) {
            v = strtoull(line + (k ? k + 1 : 0), NULL, 10);
            break;
        }
    }
    if (f)
        fclose(f);
    return v;
}

/* mkdir base/own/name; "" on failure. */
static void make_group(char *out, size_t len, const char *base, const char *own, const char *name)
{
    const int n = snprintf(out, len, "%s%s/%s", base, strcmp(own, "/") ? own : "", name);
    if (n < 0 || (size_t)n >= len || mkdir(out, 0755) != 0)
        out[0] = '\0';
}

int nb_cgroup_make(nb_cgroup *cg, const char *name, uint64_t tasks, uint64_t memory_bytes)
{
    memset(cg, 0, sizeof *cg);
    char own[512], num[32];
    struct stat st;
    if (stat("/sys/fs/cgroup/cgroup.controllers", &st) == 0) { /* v2 alone */
        if (own_group("", own, sizeof own) != 0)
            return 0;
        make_group(cg->pids, sizeof cg->pids, "/sys/fs/cgroup", own, name);
        if (!cg->pids[0])
            return 0;
        cg->v2 = 1;
        snprintf(cg->memory, sizeof cg->memory, "%s", cg->pids);
        snprintf(num, sizeof num, "%llu", (unsigned long long)tasks);
        if (tasks && write_text(cg->pids, "pids.max", num) == 0)
            cg->tasks = tasks;
        snprintf(num, sizeof num, "%llu", (unsigned long long)memory_bytes);
        if (memory_bytes && write_text(cg->memory, "memory.max", num) == 0) {
            cg->memory_bytes = memory_bytes;
            (void)write_text(cg->memory, "memory.swap.max", "0");
        }
    } else {
        if (tasks && own_group("pids", own, sizeof own) == 0) {
            make_group(cg->pids, sizeof cg->pids, "/sys/fs/cgroup/pids", own, name);
            snprintf(num, sizeof num, "%llu", (unsigned long long)tasks);
            if (cg->pids[0] && write_text(cg->pids, "pids.max", num) == 0)
                cg->tasks = tasks;
        }
        if (memory_bytes && own_group("memory", own, sizeof own) == 0) {
            make_group(cg->memory, sizeof cg->memory, "/sys/fs/cgroup/memory", own, name);
            snprintf(num, sizeof num, "%llu", (unsigned long long)memory_bytes);
            if (cg->memory[0] && write_text(cg->memory, "memory.limit_in_bytes", num) == 0) {
                cg->memory_bytes = memory_bytes;
                (void)write_text(cg->memory, "memory.memsw.limit_in_bytes", num);
            }
        }
    }
    if (!cg->tasks && !cg->memory_bytes) {
        nb_cgroup_remove(cg);
        return 0;
    }
    return 1;
}

void nb_cgroup_join(const nb_cgroup *cg)
{
    if (cg->pids[0])
        (void)write_text(cg->pids, "cgroup.procs", "0");
    if (cg->memory[0] && !cg->v2)
        (void)write_text(cg->memory, "cgroup.procs", "0");
}

const char *nb_cgroup_limit_hit(const nb_cgroup *cg, char *buf, unsigned long len)
{
    /* Only a kill counts: reaching the limit alone (v1's failcnt) is the kernel reclaiming page cache. */
    if (cg->memory_bytes && read_number(cg->memory, cg->v2 ? "memory.events" : "memory.oom_control", "oom_kill") > 0) {
        snprintf(buf, len, "its memory limit of %llu MiB", (unsigned long long)(cg->memory_bytes >> 20));
        return buf;
    }
    if (cg->tasks && read_number(cg->pids, "pids.events", "max") > 0) {
        snprintf(buf, len, "its limit of %llu tasks (processes and threads)", (unsigned long long)cg->tasks);
        return buf;
    }
    return NULL;
}

/* Every task still in the group killed, until it is empty or a second has passed. */
static void empty_group(const char *dir)
{
    char path[700], line[64];
    const int n = snprintf(path, sizeof path, "%s/cgroup.procs", dir);
    if (n < 0 || (size_t)n >= sizeof path)
        return;
    for (int tries = 0; tries < 100; ++tries) {
        FILE *f = fopen(path, "re");
        int any = 0;
        while (f && fgets(line, sizeof line, f)) {
            const long pid = strtol(line, NULL, 10);
            if (pid > 0) {
                kill((pid_t)pid, SIGKILL);
                any = 1;
            }
        }
        if (f)
            fclose(f);
        if (!any)
            return;
        usleep(10000);
    }
}

void nb_cgroup_remove(nb_cgroup *cg)
{
    char *dirs[2] = {cg->pids, cg->memory};
    for (int d = 0; d < 2; ++d)
        if (dirs[d][0] && !(d == 1 && cg->v2)) {
            empty_group(dirs[d]);
            for (int tries = 0; tries < 100 && rmdir(dirs[d]) != 0 && errno == EBUSY; ++tries)
                usleep(10000);
            dirs[d][0] = '\0';
        }
    cg->memory[0] = '\0';
}
