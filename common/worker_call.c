/* worker_call.c: the judge's side of a worker (worker_call.h). */
#define _GNU_SOURCE
#include "worker_call.h"
#include "device_query.h"
#include "protocol.h"
#include "timing.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define MAX_ARGV 160

double nb_call_limit(double interactions)
{
    return NB_CALL_BASE_S + interactions * NB_CALL_NS_PER_INTERACTION * 1e-9;
}

/* ---- the program and its environment ------------------------------------------------------ */

/* `name` on PATH (or as given, with a slash), into out: 0, or -1 if there is no such program. */
static int find_program(const char *name, char *out, size_t len)
{
    if (strchr(name, '/')) {
        snprintf(out, len, "%s", name);
        return access(out, X_OK);
    }
    const char *path = getenv("PATH");
    for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
        const size_t n = strcspn(p, ":");
        snprintf(out, len, "%.*s/%s", (int)n, p, name);
        if (n && access(out, X_OK) == 0)
            return 0;
        p += n + (p[n] == ':');
    }
    return -1;
}

/* The GPUs a worker is given (given.found of spec->devices), found once for the judge: their minors pick
 * the sandbox's device files, their UUIDs CUDA's devices; found < 0 where NVML cannot say which. */
typedef struct given_gpus {
    int found;
    unsigned minors[NB_GPU_GIVEN_MAX];
    char visible[32 + NB_GPU_GIVEN_MAX * NB_GPU_UUID_LEN]; /* CUDA_VISIBLE_DEVICES=UUID,UUID... */
} given_gpus;

static const given_gpus *gpus_given(unsigned want)
{
    static given_gpus g;
    static int asked;
    if (asked++)
        return &g;
    g.found = -1;
    if (want == 0)
        return &g;
    static char uuids[NB_GPU_GIVEN_MAX][NB_GPU_UUID_LEN];
    g.found = nb_gpu_given(want, g.minors, uuids);
    if (g.found <= 0) { /* no NVML, or no GPU it can name: every GPU's files and the judge's variables, as before */
        g.found = -1;
        return &g;
    }
    size_t at = (size_t)snprintf(g.visible, sizeof g.visible, "CUDA_VISIBLE_DEVICES=");
    for (int d = 0; d < g.found; ++d)
        at += (size_t)snprintf(g.visible + at, sizeof g.visible - at, "%s%s", d ? "," : "", uuids[d]);
    return &g;
}

/* The workers' environment, the same for every worker of this judge: what finds the libraries, the
 * GPUs and MPI, and nothing that could say which call is which (no OMP_*: threads come in SETUP); where
 * the GPUs it is given are known (`visible`), those alone, as CUDA's devices 0, 1 ... in that order.
 * With --sandbox off (a debugger, a profiler: nothing graded), the judge's own, whole. */
static char **worker_environment(int sandboxed, nb_sandbox_mode mode, const char *visible)
{
    if (mode == NB_SANDBOX_OFF) /* a debugger's or a profiler's run: their variables reach the worker */
        return environ;
    static char *env[256];
    static int made = -1;
    const int kind = sandboxed * 2 + (visible != NULL);
    if (made == kind)
        return env;
    static const char *const keep[] = {"PATH=", "LD_LIBRARY_PATH=", "LANG=", "CUDA_", "NVIDIA_", "NCCL_", "OMPI_",
                                       "PMIX_", "PRTE_", "OPAL_", "HWLOC_"};
    size_t k = 0;
    for (char **e = environ; *e && k + 6 < sizeof env / sizeof env[0]; ++e)
        for (size_t j = 0; j < sizeof keep / sizeof keep[0]; ++j)
            if (!strncmp(*e, keep[j], strlen(keep[j]))) {
                if (!visible || (strncmp(*e, "CUDA_VISIBLE_DEVICES=", 21) && strncmp(*e, "CUDA_DEVICE_ORDER=", 18)))
                    env[k++] = *e;
                break;
            }
    if (visible) { /* UUIDs: the same GPUs whatever order CUDA would number them in */
        env[k++] = (char *)visible;
        env[k++] = "CUDA_DEVICE_ORDER=PCI_BUS_ID";
    }
    /* Every kernel loaded with the context, at the worker's start, which is never timed: not at its first
     * launch inside a timed call (CUDA's lazy loading), unless the user chose otherwise. */
    if (!getenv("CUDA_MODULE_LOADING"))
        env[k++] = "CUDA_MODULE_LOADING=EAGER";
    static char home[4200];
    const char *h = getenv("HOME");
    snprintf(home, sizeof home, "HOME=%s", sandboxed || !h ? "/tmp" : h);
    env[k++] = home;
    env[k++] = sandboxed ? "TMPDIR=/tmp" : "NB_WORKER=1";
    env[k] = NULL;
    made = kind;
    return env;
}

/* ---- the sandbox -------------------------------------------------------------------------- */

size_t nb_sandbox_gpu_files(const char *const *paths, size_t n, const unsigned *minors, size_t count,
                            const char **keep)
{
    size_t kept = 0;
    for (size_t p = 0; p < n; ++p) {
        const char *slash = strrchr(paths[p], '/'), *name = slash ? slash + 1 : paths[p];
        const char *digits = strncmp(name, "nvidia", 6) ? "" : name + 6;
        int numbered = digits[0] != '\0', given = !minors;
        for (const char *c = digits; *c; ++c)
            numbered &= *c >= '0' && *c <= '9';
        const unsigned long minor = numbered ? strtoul(digits, NULL, 10) : 0;
        for (size_t m = 0; numbered && minors && m < count; ++m)
            given |= minor == minors[m];
        if (!numbered || given)
            keep[kept++] = paths[p];
    }
    return kept;
}

/* Whether bwrap can copy the program in: the copy is a write under the worker's file-size limit, its own
 * (limits) or the judge's (a judge run under `ulimit -f`), which a program larger than it would break. */
static int program_copies(const char *program, const nb_child_limits *limits)
{
    struct stat st;
    struct rlimit inherited;
    if (stat(program, &st) != 0)
        return 1; /* the start then says what is wrong with it */
    uint64_t room = limits && limits->file_bytes ? limits->file_bytes : UINT64_MAX;
    if (getrlimit(RLIMIT_FSIZE, &inherited) == 0 && inherited.rlim_cur != RLIM_INFINITY &&
        (uint64_t)inherited.rlim_cur < room)
        room = (uint64_t)inherited.rlim_cur;
    return (uint64_t)st.st_size < room;
}

/* bubblewrap's options for one worker: the whole file system read-only, the hidden folders covered by
 * empty ones, a private /tmp and /dev/shm of tmp_bytes, of /dev only the device files of the GPUs it is
 * given (and the driver's control files), its program at NB_SANDBOX_PROGRAM, a process namespace of its
 * own (every descendant dies with it), no network, no capabilities. */
static void sandbox_argv(char **argv, size_t *k, const nb_worker_spec *spec, const char *call_dir,
                         const given_gpus *given, int copy_program)
{
    static char size[32];
    snprintf(size, sizeof size, "%zu", spec->tmp_bytes ? spec->tmp_bytes : (size_t)256 << 20);
    nb_argv_add(argv, k, MAX_ARGV, "--ro-bind");
    nb_argv_add(argv, k, MAX_ARGV, "/");
    nb_argv_add(argv, k, MAX_ARGV, "/");
    nb_argv_add(argv, k, MAX_ARGV, "--dev");
    nb_argv_add(argv, k, MAX_ARGV, "/dev");
    static glob_t gpus;
    static const char *bound[MAX_ARGV / 3];
    static size_t bind = 0;
    static int globbed;
    if (!globbed++) {
        glob("/dev/nvidia*", 0, NULL, &gpus);
        const size_t n = gpus.gl_pathc < MAX_ARGV / 3 ? gpus.gl_pathc : MAX_ARGV / 3;
        /* A CPU step: no GPU's file; NVML unable to say which GPUs: all of them, as the driver has them. */
        const unsigned *minors = spec->devices && given->found < 0 ? NULL : given->minors;
        bind = nb_sandbox_gpu_files((const char *const *)gpus.gl_pathv, n, minors,
                                    given->found > 0 ? (size_t)given->found : 0, bound);
    }
    for (size_t g = 0; g < bind; ++g) {
        nb_argv_add(argv, k, MAX_ARGV, "--dev-bind");
        nb_argv_add(argv, k, MAX_ARGV, bound[g]);
        nb_argv_add(argv, k, MAX_ARGV, bound[g]);
    }
    nb_argv_add(argv, k, MAX_ARGV, "--proc");
    nb_argv_add(argv, k, MAX_ARGV, "/proc");
    nb_argv_add(argv, k, MAX_ARGV, "--size");
    nb_argv_add(argv, k, MAX_ARGV, size);
    nb_argv_add(argv, k, MAX_ARGV, "--tmpfs");
    nb_argv_add(argv, k, MAX_ARGV, "/tmp");
    nb_argv_add(argv, k, MAX_ARGV, "--size");
    nb_argv_add(argv, k, MAX_ARGV, size);
    nb_argv_add(argv, k, MAX_ARGV, "--tmpfs");
    nb_argv_add(argv, k, MAX_ARGV, "/dev/shm");
    /* Then the hidden folders (empty, small, read-only), a parent before what it holds. A hidden folder
     * inside another is hidden with it. */
    const char *mount[NB_SANDBOX_HIDDEN_MAX];
    int n = 0;
    for (int h = 0; h < NB_SANDBOX_HIDDEN_MAX && spec->hidden[h]; ++h) {
        int inside = 0;
        for (int o = 0; o < NB_SANDBOX_HIDDEN_MAX && spec->hidden[o]; ++o) {
            const size_t m = strlen(spec->hidden[o]);
            inside |= o != h && !strncmp(spec->hidden[h], spec->hidden[o], m) && spec->hidden[h][m] == '/';
        }
        struct stat st;
        if (!inside && stat(spec->hidden[h], &st) == 0 && S_ISDIR(st.st_mode))
            mount[n++] = spec->hidden[h];
    }
    for (int a = 1; a < n; ++a) /* shorter paths first: a parent before what it holds */
        for (int b = a; b > 0 && strlen(mount[b]) < strlen(mount[b - 1]); --b) {
            const char *t = mount[b];
            mount[b] = mount[b - 1];
            mount[b - 1] = t;
        }
    for (int m = 0; m < n; ++m) {
        nb_argv_add(argv, k, MAX_ARGV, "--size");
        nb_argv_add(argv, k, MAX_ARGV, "65536");
        nb_argv_add(argv, k, MAX_ARGV, "--tmpfs");
        nb_argv_add(argv, k, MAX_ARGV, mount[m]);
    }
    for (int m = 0; m < n; ++m) {
        nb_argv_add(argv, k, MAX_ARGV, "--remount-ro");
        nb_argv_add(argv, k, MAX_ARGV, mount[m]);
    }
    /* The program, a copy bwrap reads from descriptor 3 (start_program opens it): not a bind of the file
     * or its folder, whose real path (the race check's ".../race/...-O0-worker") /proc/self/mountinfo
     * would show. Nothing else of its folder is needed: the worker loads nothing from beside itself. */
    if (copy_program) {
        nb_argv_add(argv, k, MAX_ARGV, "--perms");
        nb_argv_add(argv, k, MAX_ARGV, "0555");
        nb_argv_add(argv, k, MAX_ARGV, "--ro-bind-data");
        nb_argv_add(argv, k, MAX_ARGV, "3");
    } else { /* no room to copy it: the file bound there, its real path then seen in mountinfo */
        nb_argv_add(argv, k, MAX_ARGV, "--ro-bind");
        nb_argv_add(argv, k, MAX_ARGV, spec->program);
    }
    nb_argv_add(argv, k, MAX_ARGV, NB_SANDBOX_PROGRAM);
    nb_argv_add(argv, k, MAX_ARGV, "--ro-bind");
    nb_argv_add(argv, k, MAX_ARGV, call_dir);
    nb_argv_add(argv, k, MAX_ARGV, "/tmp/nb-call");
    static const char *const rest[] = {"--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
                                       "--chdir", "/tmp", "--"};
    for (size_t r = 0; r < sizeof rest / sizeof rest[0]; ++r)
        nb_argv_add(argv, k, MAX_ARGV, rest[r]);
}

/* Start argv with env; stdin from /dev/null, descriptors 0-2 alone (and `fd3` opened as descriptor 3, for
 * bwrap to read), its own process group, killed if the judge dies; with its limits and in its control
 * group where given. */
static pid_t start_program(char *const argv[], char *const env[], int quiet, const nb_child_limits *limits,
                           const nb_cgroup *cg, const char *fd3)
{
    fflush(stdout);
    fflush(stderr);
    const pid_t parent = getpid();
    const pid_t pid = fork();
    if (pid != 0)
        return pid;
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(127);
    const int null = open("/dev/null", O_RDWR);
    if (null >= 0) {
        dup2(null, 0);
        if (quiet) {
            dup2(null, 1);
            dup2(null, 2);
        }
    }
    nb_child_close_fds(); /* nothing the judge (or the grader above it) opened reaches the step */
    if (fd3) {
        const int fd = open(fd3, O_RDONLY);
        if (fd < 0 || (fd != 3 && (dup2(fd, 3) != 3 || close(fd) != 0)))
            _exit(127);
    }
    if (cg)
        nb_cgroup_join(cg);
    if (limits)
        nb_child_apply_limits(limits);
    signal(SIGPIPE, SIG_DFL);
    execve(argv[0], argv, env);
    _exit(127);
}

int nb_sandbox_available(char *why, size_t len)
{
    static int known = -1;
    static char reason[256];
    if (known < 0) {
        char bwrap[4200];
        if (find_program("bwrap", bwrap, sizeof bwrap) != 0) {
            snprintf(reason, sizeof reason, "bubblewrap (bwrap) is not installed (apt-get install bubblewrap)");
            known = 0;
        } else {
            char *argv[MAX_ARGV];
            size_t k = 0;
            nb_argv_add(argv, &k, MAX_ARGV, bwrap);
            static const char *const probe[] = {"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
                                                "--tmpfs", "/tmp", "--unshare-all", "--die-with-parent",
                                                "--new-session", "--cap-drop", "ALL", "--", "true"};
            for (size_t p = 0; p < sizeof probe / sizeof probe[0]; ++p)
                nb_argv_add(argv, &k, MAX_ARGV, probe[p]);
            argv[k] = NULL;
            int status = -1;
            char said[160] = "";
            FILE *err = tmpfile(); /* bwrap's own words, for the reason */
            const int saved = dup(2);
            if (err && saved >= 0)
                dup2(fileno(err), 2);
            const pid_t pid = start_program(argv, worker_environment(1, NB_SANDBOX_AUTO, NULL), 0, NULL, NULL, NULL);
            if (err && saved >= 0) {
                dup2(saved, 2);
                close(saved);
            }
            known = pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
            if (err) {
                rewind(err);
                if (fgets(said, sizeof said, err))
                    said[strcspn(said, "\n")] = '\0';
                fclose(err);
            }
            if (!known)
                snprintf(reason, sizeof reason, "bubblewrap cannot make its sandbox here (%s)",
                         said[0] ? said : "no user or mount namespaces for this user?");
        }
    }
    if (why)
        snprintf(why, len, "%s", known ? "" : reason);
    return known;
}

/* ---- a worker's life ---------------------------------------------------------------------- */

/* How the worker ended, said in one line unless it said why itself (exit status 1 or 2: nb_die's). */
static void report_end(nb_worker *w, const char *when)
{
    int status = 0;
    pid_t got = 0;
    for (int tries = 0; tries < 200 && (got = waitpid(w->pid, &status, WNOHANG)) == 0; ++tries)
        usleep(10000);
    if (got == 0) {
        kill(-w->pid, SIGKILL);
        got = waitpid(w->pid, &status, 0);
    }
    if (got == w->pid)
        w->pid = 0;
    if (got != w->pid && got <= 0) {
        nb_error("the step's worker stopped answering %s", when);
        return;
    }
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    if (code > 128 && code < 128 + 65) { /* bwrap and mpirun report a signal so */
        sig = code - 128;
        code = -1;
    }
    char limit[128];
    const char *hit = nb_cgroup_limit_hit(&w->cg, limit, sizeof limit);
    if (!hit)
        hit = nb_child_limit_hit(status, &w->limits, limit, sizeof limit);
    if (hit) {
        nb_error("the step's worker ran into %s %s: stopped (common/README.md, Bounded workers)", hit, when);
        return;
    }
    if (code == NB_EXIT_ERROR || code == NB_EXIT_MISMATCH)
        return; /* the lab's exit statuses: the step's own line (nb_die) is above */
    if (sig)
        nb_error("the step's worker died %s on signal %d (%s)", when, sig, strsignal(sig));
    else
        nb_error("the step's worker exited %s with status %d", when, code);
}

static int protocol_error(nb_worker *w, const char *when, int err)
{
    if (err == ETIMEDOUT) { /* the caller says how long it waited */
        if (w->pid > 0)
            kill(-w->pid, SIGKILL);
        nb_worker_stop(w);
        return NB_EXIT_ERROR;
    }
    if (err == EPIPE) {
        report_end(w, when);
    } else {
        nb_error("the step's worker broke the protocol %s (%s)", when, err == EPROTO ? "a bad frame" : strerror(err));
    }
    nb_worker_stop(w);
    return NB_EXIT_ERROR;
}

int nb_worker_start(nb_worker *w, const nb_worker_spec *spec, double limit_s)
{
    memset(w, 0, sizeof *w);
    w->request = w->response = -1;
    signal(SIGPIPE, SIG_IGN); /* a worker that went away is EPIPE on the write, said in one line */
    char why[256];
    int sandboxed = 0;
    if (spec->sandbox != NB_SANDBOX_OFF) {
        sandboxed = nb_sandbox_available(why, sizeof why);
        if (!sandboxed && spec->sandbox == NB_SANDBOX_REQUIRE) {
            nb_error("no sandbox for the step's worker: %s; grading other people's code needs one", why);
            return NB_EXIT_ERROR;
        }
    }
    w->sandboxed = sandboxed;
    const char *tmp = getenv("TMPDIR");
    snprintf(w->dir, sizeof w->dir, "%s/nb-call.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(w->dir)) {
        nb_error("cannot make a call folder in %s: %s", tmp && *tmp ? tmp : "/tmp", strerror(errno));
        return NB_EXIT_ERROR;
    }
    char request[600], response[600];
    snprintf(request, sizeof request, "%s/request", w->dir);
    snprintf(response, sizeof response, "%s/response", w->dir);
    if (mkfifo(request, 0600) != 0 || mkfifo(response, 0600) != 0) {
        nb_error("cannot make the worker's FIFOs in %s: %s", w->dir, strerror(errno));
        nb_worker_stop(w);
        return NB_EXIT_ERROR;
    }

    char *argv[MAX_ARGV], bwrap[4200], mpirun[4200], ranks[16];
    size_t k = 0;
    const given_gpus *given = gpus_given(spec->devices);
    const int copy_program = sandboxed && program_copies(spec->program, &spec->limits);
    if (sandboxed) {
        find_program("bwrap", bwrap, sizeof bwrap);
        nb_argv_add(argv, &k, MAX_ARGV, bwrap);
        sandbox_argv(argv, &k, spec, w->dir, given, copy_program);
    }
    if (spec->ranks) {
        if (find_program("mpirun", mpirun, sizeof mpirun) != 0) {
            nb_error("mpirun is not installed: this step runs as %u MPI ranks (apt-get install openmpi-bin)", spec->ranks);
            nb_worker_stop(w);
            return NB_EXIT_ERROR;
        }
        snprintf(ranks, sizeof ranks, "%u", spec->ranks);
        nb_argv_add(argv, &k, MAX_ARGV, sandboxed ? "mpirun" : mpirun);
        nb_argv_add(argv, &k, MAX_ARGV, "-np");
        nb_argv_add(argv, &k, MAX_ARGV, ranks);
        nb_argv_add(argv, &k, MAX_ARGV, "--quiet"); /* the ranks' own lines, without mpirun's banners */
        if (geteuid() == 0)
            nb_argv_add(argv, &k, MAX_ARGV, "--allow-run-as-root");
        const long cores = sysconf(_SC_NPROCESSORS_ONLN);
        if (cores > 0 && (unsigned long)cores < spec->ranks)
            nb_argv_add(argv, &k, MAX_ARGV, "--oversubscribe");
    }
    static char wrap[1024];
    if (spec->wrapper) { /* a test's way in: its words, split at spaces, before the worker */
        snprintf(wrap, sizeof wrap, "%s", spec->wrapper);
        for (char *word = strtok(wrap, " "); word; word = strtok(NULL, " "))
            nb_argv_add(argv, &k, MAX_ARGV, word);
    }
    /* unsandboxed: nothing hides its path anyway */
    nb_argv_add(argv, &k, MAX_ARGV, sandboxed ? NB_SANDBOX_PROGRAM : spec->program);
    nb_argv_add(argv, &k, MAX_ARGV, "--call");
    nb_argv_add(argv, &k, MAX_ARGV, sandboxed ? "/tmp/nb-call" : w->dir);
    argv[k] = NULL;
    if (sandboxed && spec->ranks) /* inside, mpirun is found on the worker's PATH */
        for (size_t j = 0; j < k; ++j)
            if (argv[j] == (char *)"mpirun")
                argv[j] = mpirun;

    /* Open the response end first (it never blocks), then start the worker and wait for it to open the
     * request's: only then is the response's end of file the worker's death. */
    w->response = open(response, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    w->limits = spec->limits;
    if (spec->tasks || spec->memory_bytes) {
        static unsigned made;
        char name[64];
        snprintf(name, sizeof name, "nb-worker-%ld-%u", (long)getpid(), made++);
        nb_cgroup_make(&w->cg, name, spec->tasks, spec->memory_bytes);
    }
    if (w->cg.memory_bytes) /* the group bounds its memory: no address-space limit on top */
        w->limits.address_bytes = 0;
    w->pid = w->response < 0 ? -1 : start_program(argv, worker_environment(sandboxed, spec->sandbox, given->found > 0 ? given->visible : NULL), 0,
                                                       &w->limits, &w->cg, copy_program ? spec->program : NULL);
    if (w->pid < 0) {
        nb_error("cannot start the step's worker %s: %s", spec->program, strerror(errno));
        w->pid = 0;
        nb_worker_stop(w);
        return NB_EXIT_ERROR;
    }
    const double deadline = nb_now() + (limit_s > 0.0 ? limit_s : START_LIMIT_S);
    while ((w->request = open(request, O_WRONLY | O_NONBLOCK | O_CLOEXEC)) < 0) {
        int status;
        if (errno != ENXIO || nb_now() > deadline || waitpid(w->pid, &status, WNOHANG) == w->pid) {
            if (nb_now() > deadline)
                nb_error("the step's worker did not start within %.0f s", limit_s > 0.0 ? limit_s : START_LIMIT_S);
            else if (errno != ENXIO)
                nb_error("cannot open %s: %s", request, strerror(errno));
            else {
                w->pid = 0; /* reaped */
                const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
                if (code == 127)
                    nb_error("cannot run the step's worker %s (missing, or not executable%s)", spec->program,
                             sandboxed ? " inside the sandbox" : "");
                else if (code != NB_EXIT_ERROR)
                    nb_error("the step's worker ended before it started (status %d)", code);
            }
            nb_worker_stop(w);
            return NB_EXIT_ERROR;
        }
        usleep(2000);
    }

    nb_frame f;
    nb_wire_setup hello;
    errno = 0;
    if (nb_recv_header(w->response, &f, deadline) != 0 || f.type != NB_MSG_HELLO || f.length != sizeof hello ||
        nb_recv_bytes(w->response, &hello, sizeof hello, deadline) != 0 || hello.version != NB_PROTOCOL_VERSION) {
        if (errno == ETIMEDOUT)
            nb_error("the step's worker did not answer within %.0f s", limit_s > 0.0 ? limit_s : START_LIMIT_S);
        return protocol_error(w, "as it started", errno == 0 ? EPROTO : errno);
    }
    const nb_wire_setup setup = {NB_PROTOCOL_VERSION, spec->gpus, spec->threads, spec->features};
    const void *part = &setup;
    const size_t len = sizeof setup;
    nb_wire_ready ready;
    errno = 0;
    if (nb_send(w->request, NB_MSG_SETUP, &part, &len, 1, deadline) != 0 ||
        nb_recv_header(w->response, &f, deadline) != 0 || f.type != NB_MSG_READY || f.length != sizeof ready ||
        nb_recv_bytes(w->response, &ready, sizeof ready, deadline) != 0) {
        if (errno == ETIMEDOUT)
            nb_error("the step's worker was not ready within %.0f s", limit_s > 0.0 ? limit_s : START_LIMIT_S);
        return protocol_error(w, "as it started", errno == 0 ? EPROTO : errno);
    }
    ready.device[sizeof ready.device - 1] = '\0';
    snprintf(w->device, sizeof w->device, "%s", ready.device);
    w->gpus = ready.gpus;
    return NB_EXIT_OK;
}

int nb_worker_call(nb_worker *w, nb_state *state, const nb_run *run, double limit_s, nb_snapshot_fn on_snapshot,
                   void *ctx, nb_worker_reply *reply)
{
    memset(reply, 0, sizeof *reply);
    if (w->request < 0) {
        nb_error("the step's worker has ended");
        return NB_EXIT_ERROR;
    }
    const nb_wire_run wire = {state->systems, state->bodies, run->steps, state->step, run->extra.snapshot_every,
                              state->time, run->dt, run->eps2, run->extra.theta, run->extra.eta, run->block,
                              run->extra.gpus, (uint32_t)run->extra.no_overlap, (uint32_t)run->extra.decompose,
                              (uint32_t)run->extra.deterministic, run->extra.levels};
    const uint64_t total = nb_state_count(state);
    const uint64_t payload = total * (NB_FIELDS - 1) * sizeof(float);
    nb_state view = {0};
    nb_wire_result result;
    errno = 0;
    const double t0 = nb_now(), deadline = t0 + limit_s;
    int rc = NB_EXIT_OK;
    if (nb_send_state(w->request, NB_MSG_REQUEST, &wire, sizeof wire, state, NB_FIELDS, deadline) != 0)
        rc = -1;
    const double t_sent = nb_now(); /* the worker holds all but a pipe's buffer of the bodies only now */
    for (nb_frame f; rc == NB_EXIT_OK;) {
        if (nb_recv_header(w->response, &f, deadline) != 0) {
            rc = -1;
        } else if (f.type == NB_MSG_SNAPSHOT && f.length == sizeof(nb_wire_view) + payload) {
            nb_wire_view head;
            if (!view.x && nb_state_alloc(&view, state->systems, state->bodies) != NB_EXIT_OK) {
                nb_worker_stop(w);
                return NB_EXIT_ERROR;
            }
            if (nb_recv_bytes(w->response, &head, sizeof head, deadline) != 0 ||
                nb_recv_state(w->response, &view, NB_FIELDS - 1, deadline) != 0) {
                rc = -1;
                break;
            }
            memcpy(view.m, state->m, total * sizeof(float));
            view.step = head.step;
            view.time = head.time;
            if (on_snapshot && on_snapshot(ctx, &view) != NB_EXIT_OK) {
                nb_state_free(&view);
                nb_worker_stop(w);
                return NB_EXIT_ERROR;
            }
        } else if (f.type == NB_MSG_RESULT && f.length == sizeof result + payload) {
            if (nb_recv_bytes(w->response, &result, sizeof result, deadline) != 0 ||
                nb_recv_state(w->response, state, NB_FIELDS - 1, deadline) != 0)
                rc = -1;
            break;
        } else {
            errno = EPROTO;
            rc = -1;
        }
    }
    const double t1 = nb_now();
    nb_state_free(&view);
    if (rc != NB_EXIT_OK) {
        const int err = errno ? errno : EPROTO;
        char limit[128];
        const char *hit = err == ETIMEDOUT ? nb_cgroup_limit_hit(&w->cg, limit, sizeof limit) : NULL;
        if (err == ETIMEDOUT)
            nb_error("the step did not finish its run of %llu step%s within %.0f s (the limit: %.0f s and %.0f ns "
                     "an interaction)%s%s: stopped", (unsigned long long)run->steps, run->steps == 1 ? "" : "s",
                     limit_s, NB_CALL_BASE_S, NB_CALL_NS_PER_INTERACTION, hit ? "; it ran into " : "", hit ? hit : "");
        return protocol_error(w, "in the middle of a run", err);
    }
    char limit[128];
    if (nb_cgroup_limit_hit(&w->cg, limit, sizeof limit)) { /* no honest step comes near its bounds */
        nb_error("the step's worker ran into %s in a run of %llu step%s: stopped (common/README.md, Bounded "
                 "workers)", limit, (unsigned long long)run->steps, run->steps == 1 ? "" : "s");
        nb_worker_stop(w);
        return NB_EXIT_ERROR;
    }
    reply->seconds = t1 - t0;
    reply->request_s = t_sent - t0;
    reply->region_s = result.region_s;
    reply->block = result.block;
    result.config[sizeof result.config - 1] = '\0';
    memcpy(reply->config, result.config, sizeof reply->config);
    if (result.status == NB_EXIT_OK)
        return NB_EXIT_OK;
    if (result.status != NB_EXIT_ERROR)
        nb_error("nb_step_run returned %d (0 or NB_EXIT_ERROR, nbody.h)", result.status);
    nb_worker_stop(w);
    return NB_EXIT_ERROR;
}

void nb_worker_stop(nb_worker *w)
{
    if (w->request >= 0)
        close(w->request);
    w->request = -1;
    if (w->pid > 0) {
        int status;
        pid_t got = 0;
        for (int tries = 0; tries < 300 && (got = waitpid(w->pid, &status, WNOHANG)) == 0; ++tries)
            usleep(10000); /* up to 3 s to end by itself */
        if (got == 0) {
            kill(-w->pid, SIGKILL);
            kill(w->pid, SIGKILL);
            waitpid(w->pid, &status, 0);
        }
    }
    w->pid = 0;
    nb_cgroup_remove(&w->cg);
    if (w->response >= 0)
        close(w->response);
    w->response = -1;
    if (w->dir[0]) {
        char path[600];
        snprintf(path, sizeof path, "%s/request", w->dir);
        unlink(path);
        snprintf(path, sizeof path, "%s/response", w->dir);
        unlink(path);
        rmdir(w->dir);
        w->dir[0] = '\0';
    }
}
