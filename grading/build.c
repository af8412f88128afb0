/* build.c: a step's build (build.h). The lab's own parts of the step (its judge, the worker's shim, the
 * library, the dependencies: make stepNN-lab) are built first, as the lab is; then the student's source
 * is compiled and linked in a sandbox of its own, as a worker runs: the whole file system read-only but
 * the build folder, the grader's folder, its references and every folder it hides covered by empty ones,
 * no network, no capabilities, every process gone with it; each file it writes at most BUILD_FILE_MIB,
 * its time the grader's --timeout. A source can read at compile time whatever the compiler can open
 * (#include, .incbin): nothing there is the grader's. */
#define _GNU_SOURCE /* glob's flags, realpath */
#include "build.h"
#include "types.h"
#include "options.h"
#include "proc.h"
#include "rows.h"
#include "text.h"
#include "nbody.h"
#include "util.h"
#include "worker_call.h"

#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BUILD_FILE_MIB 256
#define BUILD_FILE_BYTES ((uint64_t)BUILD_FILE_MIB << 20)
#define BUILD_TMP_BYTES "4294967296" /* the box's /tmp: nvcc's intermediate files */
#define BUILD_CPU_S 3600             /* CPU seconds, every compiler process together */
#define MAX_BOX_ARGV 96

/* bubblewrap's words for the build of a step, before the command; 0 where no sandbox runs here. */
static size_t box_words(const grader *g, char **argv, char *build_abs, char *cwd, char *cache_abs)
{
    const options *o = &g->o;
    char bwrap[PATH_MAX];
    if (!strcmp(o->sandbox, "off") || !nb_sandbox_available(NULL, 0) || !realpath(o->build, build_abs) ||
        !getcwd(cwd, PATH_MAX))
        return 0;
    static char found[PATH_MAX];
    const char *path = getenv("PATH");
    found[0] = '\0';
    for (const char *p = path ? path : "/usr/bin:/bin"; *p && !found[0];) {
        const size_t n = strcspn(p, ":");
        textf(bwrap, sizeof bwrap, "%.*s/bwrap", (int)n, p);
        if (n && is_executable(bwrap))
            textf(found, sizeof found, "%s", bwrap);
        p += n + (p[n] == ':');
    }
    if (!found[0])
        return 0;
    size_t k = 0;
    nb_argv_add(argv, &k, MAX_BOX_ARGV, found);
    static const char *const head[] = {"--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--size",
                                       BUILD_TMP_BYTES, "--tmpfs", "/tmp"};
    for (size_t h = 0; h < sizeof head / sizeof head[0]; ++h)
        nb_argv_add(argv, &k, MAX_BOX_ARGV, head[h]);
    static glob_t gpus; /* nvidia-smi tells make the GPU's architecture */
    static int globbed;
    if (!globbed++)
        glob("/dev/nvidia*", 0, NULL, &gpus);
    for (size_t d = 0; d < gpus.gl_pathc; ++d) {
        nb_argv_add(argv, &k, MAX_BOX_ARGV, "--dev-bind");
        nb_argv_add(argv, &k, MAX_BOX_ARGV, gpus.gl_pathv[d]);
        nb_argv_add(argv, &k, MAX_BOX_ARGV, gpus.gl_pathv[d]);
    }
    nb_argv_add(argv, &k, MAX_BOX_ARGV, "--ro-bind"); /* the lab again, where it lies under /tmp */
    nb_argv_add(argv, &k, MAX_BOX_ARGV, cwd);
    nb_argv_add(argv, &k, MAX_BOX_ARGV, cwd);
    nb_argv_add(argv, &k, MAX_BOX_ARGV, "--bind");
    nb_argv_add(argv, &k, MAX_BOX_ARGV, build_abs);
    nb_argv_add(argv, &k, MAX_BOX_ARGV, build_abs);
    const char *hide[4] = {o->out_abs, realpath(o->ref_cache, cache_abs) ? cache_abs : NULL, o->hide[0], o->hide[1]};
    int hidden[4] = {0, 0, 0, 0};
    for (int h = 0; h < 4; ++h) { /* each an empty folder; one inside another is hidden with it */
        struct stat st;
        int inside = 0;
        for (int o2 = 0; o2 < 4; ++o2) {
            const size_t m = hide[o2] ? strlen(hide[o2]) : 0;
            inside |= o2 != h && m && !strncmp(hide[h] ? hide[h] : "", hide[o2], m) && hide[h][m] == '/';
        }
        hidden[h] = hide[h] && hide[h][0] == '/' && !inside && stat(hide[h], &st) == 0 && S_ISDIR(st.st_mode);
        if (hidden[h]) {
            nb_argv_add(argv, &k, MAX_BOX_ARGV, "--size");
            nb_argv_add(argv, &k, MAX_BOX_ARGV, "65536");
            nb_argv_add(argv, &k, MAX_BOX_ARGV, "--tmpfs");
            nb_argv_add(argv, &k, MAX_BOX_ARGV, hide[h]);
        }
    }
    for (int h = 0; h < 4; ++h)
        if (hidden[h]) {
            nb_argv_add(argv, &k, MAX_BOX_ARGV, "--remount-ro");
            nb_argv_add(argv, &k, MAX_BOX_ARGV, hide[h]);
        }
    static const char *const tail[] = {"--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL"};
    for (size_t t = 0; t < sizeof tail / sizeof tail[0]; ++t)
        nb_argv_add(argv, &k, MAX_BOX_ARGV, tail[t]);
    nb_argv_add(argv, &k, MAX_BOX_ARGV, "--chdir");
    nb_argv_add(argv, &k, MAX_BOX_ARGV, cwd);
    nb_argv_add(argv, &k, MAX_BOX_ARGV, "--");
    return k;
}

/* The largest file the build wrote for this step: its objects and its worker. */
static uint64_t largest_output(const grader *g, const graded_step *s)
{
    char pattern[4400];
    uint64_t most = 0;
    const char *const where[] = {"%s/obj/%s/*", "%s/bin/%s-worker"};
    for (int w = 0; w < 2; ++w) {
        textf(pattern, sizeof pattern, where[w], g->o.build, s->folder);
        glob_t files;
        if (glob(pattern, 0, NULL, &files) != 0)
            continue;
        for (size_t f = 0; f < files.gl_pathc; ++f) {
            struct stat st;
            if (lstat(files.gl_pathv[f], &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size > most)
                most = (uint64_t)st.st_size;
        }
        globfree(&files);
    }
    return most;
}

/* One make, its output into the log; 1 if it succeeded, else 0 with out's FAIL filled in. */
static int make_in(grader *g, outcome *out, const char *target, int boxed, const char *what)
{
    const graded_step *s = out->s;
    char cmd[1200];
    textf(cmd, sizeof cmd, "%s -s --no-print-directory BUILD='%s' %s", g->o.make, g->o.build, target);
    char *argv[MAX_BOX_ARGV + 4], build_abs[PATH_MAX], cwd[PATH_MAX], cache_abs[PATH_MAX];
    size_t k = boxed ? box_words(g, argv, build_abs, cwd, cache_abs) : 0;
    argv[k++] = "/bin/sh";
    argv[k++] = "-c";
    argv[k++] = cmd;
    argv[k] = NULL;
    const nb_child_limits limits = {.cpu_s = BUILD_CPU_S, .file_bytes = BUILD_FILE_BYTES};
    progress(g->tty, "  %s %s: building %s (%s)", s->id, out->name, what, cmd);
    run_result r;
    if (run_limited(argv, out->log, g->o.timeout, boxed ? &limits : NULL, &r) != NB_EXIT_OK)
        nb_die(NB_EXIT_ERROR, "cannot run the build");
    const uint64_t most = boxed ? largest_output(g, s) : 0;
    char limit_line[400] = "";
    if (boxed && (!r.exited || r.code != 0)) /* a compiler stopped at RLIMIT_FSIZE says so (SIGXFSZ) */
        log_line(out->log, "File size limit exceeded", limit_line, sizeof limit_line);
    if (most >= BUILD_FILE_BYTES || limit_line[0]) {
        textf(out->reason, sizeof out->reason, "build output over %d MiB: a file of the step's build reached the "
              "limit of one file, and the build was stopped", BUILD_FILE_MIB);
    } else if (!r.exited || r.code != 0) {
        char line[400], end[128];
        log_line(out->log, "error", line, sizeof line);
        if (!line[0])
            log_line(out->log, NULL, line, sizeof line);
        describe_end(&r, g->o.timeout, end, sizeof end);
        textf(out->reason, sizeof out->reason, "build failed (%s): %s", end, line);
    } else {
        return 1;
    }
    out->v = V_FAIL;
    out->row = synthetic_row(s->id, out->name, NULL);
    return 0;
}

int build_step(grader *g, outcome *out, const char *logdir, const char *bin)
{
    const graded_step *s = out->s;
    if (!g->o.binary && g->o.make && (strcmp(s->lang, "cu") != 0 || g->have_nvcc)) {
        textf(out->log, sizeof out->log, "%s/build.log", logdir);
        char lab[64], step_target[32];
        textf(lab, sizeof lab, "step%s-lab", s->id);
        textf(step_target, sizeof step_target, "step%s", s->id);
        if (!make_in(g, out, lab, 0, "the lab's parts") || !make_in(g, out, step_target, 1, "the step, sandboxed"))
            return 0;
    }
    if (!is_executable(bin)) {
        out->v = V_FAIL;
        textf(out->reason, sizeof out->reason, "no binary %s%s", bin,
              g->o.make || g->o.binary ? "" : " (build it first, or use make grade)");
        out->row = synthetic_row(s->id, out->name, NULL);
        return 0;
    }
    out->built = 1;
    return 1;
}
