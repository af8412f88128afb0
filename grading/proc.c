/* proc.c: running programs (proc.h). Each one in its own process group with its output in a log and a
 * time limit; a grader stopped by a signal ends them first. Also the few file-system helpers. */
#define _GNU_SOURCE /* strsignal, pipe2 */
#include "proc.h"
#include "child.h"
#include "text.h"
#include "nbody.h"
#include "timing.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

int mkdirs(const char *path)
{
    char buf[4200];
    textf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1;; ++p) {
        const char c = *p;
        if (c == '/' || c == '\0') {
            *p = '\0';
            if (mkdir(buf, 0755) != 0 && errno != EEXIST) {
                nb_error("cannot create %s: %s", buf, strerror(errno));
                return NB_EXIT_ERROR;
            }
            *p = c;
        }
        if (c == '\0')
            return NB_EXIT_OK;
    }
}

int is_executable(const char *path) { return access(path, X_OK) == 0; }

/* Is `name` a program on PATH (or an executable path)? */
int have_command(const char *name)
{
    if (strchr(name, '/'))
        return is_executable(name);
    const char *path = getenv("PATH");
    if (!path)
        return 0;
    char dir[4200];
    for (const char *p = path; *p;) {
        const size_t len = strcspn(p, ":");
        textf(dir, sizeof dir, "%.*s/%s", (int)len, p, name);
        if (len > 0 && is_executable(dir))
            return 1;
        p += len;
        if (*p == ':')
            ++p;
    }
    return 0;
}

/* Children run in their own process groups (a timeout kills a whole build); on Ctrl-C we end them. */
static volatile pid_t active_groups[MAX_JOBS + 1];

static void on_signal(int sig)
{
    for (size_t k = 0; k < MAX_JOBS + 1; ++k)
        if (active_groups[k] > 0)
            kill(-active_groups[k], SIGTERM);
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Installed by main: Ctrl-C, kill or a hang-up ends every child's group, then the grader. */
void end_children_on_signals(void)
{
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    signal(SIGHUP, on_signal);
}

/* Start argv with stdout and stderr into log_path (and stdin from /dev/null). 0 on success.
 * The output comes through a pipe that reap() copies into the log, so that a step printing without end
 * costs at most LOG_CAP_BYTES of disk. Not RLIMIT_FSIZE: that would also cap every file the step writes
 * (its reference cache grows with N, MPI keeps its shared memory in files), and only the log is ours. */
static int spawn_with(char *const argv[], const char *log_path, job *j, const nb_child_limits *limits)
{
    fflush(stdout);
    fflush(stderr);
    const int log_fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (log_fd < 0) {
        nb_error("cannot write %s: %s", log_path, strerror(errno));
        return NB_EXIT_ERROR;
    }
    int out[2];
    if (pipe2(out, O_CLOEXEC) != 0) {
        nb_error("cannot start %s: %s", argv[0], strerror(errno));
        close(log_fd);
        return NB_EXIT_ERROR;
    }
    const pid_t pid = fork();
    if (pid < 0) {
        nb_error("cannot start %s: %s", argv[0], strerror(errno));
        close(log_fd);
        close(out[0]);
        close(out[1]);
        return NB_EXIT_ERROR;
    }
    if (pid == 0) {
        setpgid(0, 0);
        const int in = open("/dev/null", O_RDONLY);
        if (in >= 0)
            dup2(in, 0);
        dup2(out[1], 1); /* dup2 clears close-on-exec on 1 and 2 */
        dup2(out[1], 2);
        nb_child_close_fds(); /* nothing the grader opened (checks.csv, other jobs' logs) reaches a step */
        if (limits)
            nb_child_apply_limits(limits);
        execvp(argv[0], argv);
        dprintf(2, "cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    setpgid(pid, pid); /* also here: whichever of the two runs first */
    close(out[1]);
    fcntl(out[0], F_SETFL, O_NONBLOCK); /* reap() reads what is there and never waits for more */
    j->pid = pid;
    j->start = nb_now();
    j->timed_out = 0;
    j->out_fd = out[0];
    j->log_fd = log_fd;
    j->kept = 0;
    j->flooded = 0;
    for (size_t k = 0; k < MAX_JOBS + 1; ++k)
        if (active_groups[k] == 0) {
            active_groups[k] = pid;
            break;
        }
    return NB_EXIT_OK;
}

static size_t step_budget = STEP_LOG_CAP_BYTES; /* what the current step's logs may still take */

void log_budget_reset(void) { step_budget = STEP_LOG_CAP_BYTES; }

/* Copy what the job has printed so far into its log. Past LOG_CAP_BYTES, or past what its step's logs
 * may still take together, it is a flood: the log ends with a note (and stays within the cap), the job's
 * group is killed and nothing more is read. */
static void take_output(job *j)
{
    static const char note[] = "\ngrade: this log was cut here, at its cap: output flood (the run was stopped)\n";
    const int whole_step = j->kept + step_budget < LOG_CAP_BYTES;
    const size_t cap = whole_step ? j->kept + step_budget : LOG_CAP_BYTES;
    const size_t room = cap > sizeof note - 1 ? cap - (sizeof note - 1) : 0;
    char buf[65536];
    while (j->out_fd >= 0 && !j->flooded) {
        const ssize_t got = read(j->out_fd, buf, sizeof buf);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return; /* nothing more for now (EAGAIN) */
        if (got == 0) { /* the end: every writer has closed it */
            close(j->out_fd);
            j->out_fd = -1;
            return;
        }
        const size_t n = (size_t)got;
        /* A log that cannot be written (a full disk) loses its text, nothing else: no error is taken. */
        if (j->kept + n <= room) {
            (void)nb_write_all(j->log_fd, buf, n);
            j->kept += n;
            step_budget -= n;
            continue;
        }
        if (room > j->kept)
            (void)nb_write_all(j->log_fd, buf, room - j->kept);
        (void)nb_write_all(j->log_fd, note, sizeof note - 1);
        step_budget -= cap - j->kept < step_budget ? cap - j->kept : step_budget;
        j->kept = cap;
        j->flooded = whole_step ? 2 : 1;
        kill(-j->pid, SIGKILL);
    }
}

/* Wait up to 10 ms for any running job to print, copying what they print into their logs. */
static void take_outputs(job *jobs, size_t count)
{
    struct pollfd fds[MAX_JOBS + 1];
    size_t of[MAX_JOBS + 1], n = 0;
    for (size_t k = 0; k < count && n < MAX_JOBS + 1; ++k)
        if (jobs[k].pid > 0 && jobs[k].out_fd >= 0 && !jobs[k].flooded) {
            fds[n] = (struct pollfd){.fd = jobs[k].out_fd, .events = POLLIN};
            of[n++] = k;
        }
    if (poll(fds, n, 10) <= 0)
        return;
    for (size_t p = 0; p < n; ++p)
        if (fds[p].revents)
            take_output(&jobs[of[p]]);
}

/* Wait until one of jobs[0..count) ends, killing any that runs past `timeout` or floods its log.
 * Returns its index. */
int reap(job *jobs, size_t count, double timeout, run_result *res)
{
    for (;;) {
        /* Look before reaping: while the child is a zombie its pid (its group's id) cannot be reused,
         * so whatever it left running in its group can be ended safely. */
        siginfo_t info;
        memset(&info, 0, sizeof info);
        const int seen = waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT);
        const pid_t pid = seen == 0 ? info.si_pid : -1;
        if (pid > 0) {
            int status;
            kill(-pid, SIGKILL);
            while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                ;
            for (size_t k = 0; k < count; ++k)
                if (jobs[k].pid == pid) {
                    take_output(&jobs[k]); /* what it printed last, still in the pipe */
                    if (jobs[k].out_fd >= 0)
                        close(jobs[k].out_fd);
                    close(jobs[k].log_fd);
                    jobs[k].out_fd = jobs[k].log_fd = -1;
                    memset(res, 0, sizeof *res);
                    res->seconds = nb_now() - jobs[k].start;
                    res->timed_out = jobs[k].timed_out;
                    res->flooded = jobs[k].flooded;
                    res->exited = WIFEXITED(status);
                    res->code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
                    res->signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
                    for (size_t a = 0; a < MAX_JOBS + 1; ++a)
                        if (active_groups[a] == pid)
                            active_groups[a] = 0;
                    jobs[k].pid = 0;
                    return (int)k;
                }
            continue;
        }
        if (seen < 0 && errno != EINTR)
            return -1; /* no children at all */
        const double t = nb_now();
        for (size_t k = 0; k < count; ++k)
            if (jobs[k].pid > 0 && !jobs[k].timed_out && t - jobs[k].start > timeout) {
                kill(-jobs[k].pid, SIGKILL);
                jobs[k].timed_out = 1;
            }
        take_outputs(jobs, count);
    }
}

int spawn(char *const argv[], const char *log_path, job *j) { return spawn_with(argv, log_path, j, NULL); }

int run_limited(char *const argv[], const char *log_path, double timeout, const nb_child_limits *limits,
                run_result *res)
{
    job j;
    if (spawn_with(argv, log_path, &j, limits) != NB_EXIT_OK)
        return NB_EXIT_ERROR;
    return reap(&j, 1, timeout, res) == 0 ? NB_EXIT_OK : NB_EXIT_ERROR;
}

int run_one(char *const argv[], const char *log_path, double timeout, run_result *res)
{
    return run_limited(argv, log_path, timeout, NULL, res);
}

/* "timed out after 900 s", "log exceeded 16 MiB: output flood", "killed by signal 11 (Segmentation fault)", "exit status 2" */
void describe_end(const run_result *r, double timeout, char *out, size_t len)
{
    if (r->timed_out)
        textf(out, len, "timed out after %.0f s", timeout);
    else if (r->flooded == 2)
        textf(out, len, "the step's logs exceeded %d MiB together: output flood", STEP_LOG_CAP_MIB);
    else if (r->flooded)
        textf(out, len, "log exceeded %d MiB: output flood", LOG_CAP_MIB);
    else if (r->signal)
        textf(out, len, "killed by signal %d (%s)", r->signal, strsignal(r->signal));
    else
        textf(out, len, "exit status %d", r->code);
}
