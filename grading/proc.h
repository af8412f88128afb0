/* proc.h: running programs (floor 1: includes text.h only of grading/). Each one in its own process
 * group, its stdout and stderr copied into a log (capped) and a time limit; a grader stopped by a signal
 * ends them first. Also the few file-system helpers (mkdirs, is_executable, have_command). */
#ifndef GRADING_PROC_H
#define GRADING_PROC_H

#include "child.h"
#include <stddef.h>
#include <sys/types.h>

#define MAX_JOBS 16 /* programs running at once */

/* What the grader keeps of a run's output: a step that prints without end is stopped at this size. */
#define LOG_CAP_MIB 16
#define LOG_CAP_BYTES ((size_t)LOG_CAP_MIB << 20)
/* ... and all the logs of one step together at this size (log_budget_reset starts a step's). */
#define STEP_LOG_CAP_MIB 64
#define STEP_LOG_CAP_BYTES ((size_t)STEP_LOG_CAP_MIB << 20)

typedef struct run_result {
    int exited, code, signal, timed_out;
    int flooded; /* stopped for printing more than LOG_CAP_BYTES (1), or its step's logs STEP_LOG_CAP_BYTES (2) */
    double seconds;
} run_result;

typedef struct job {
    pid_t pid;
    double start;
    int timed_out;
    int out_fd, log_fd; /* its stdout and stderr (a pipe), and the log the grader copies them into */
    size_t kept;        /* bytes copied into the log */
    int flooded;
} job;

int mkdirs(const char *path);
int is_executable(const char *path);
int have_command(const char *name);
/* A new step: its logs together may take STEP_LOG_CAP_BYTES from now on. */
void log_budget_reset(void);
/* Installed by main: Ctrl-C, kill or a hang-up ends every child's group, then the grader. */
void end_children_on_signals(void);
/* Start argv, its output into log_path; NB_EXIT_OK or NB_EXIT_ERROR (with a message). */
int spawn(char *const argv[], const char *log_path, job *j);
/* Wait until one of jobs[0..count) ends (killed past `timeout` or flooding); its index, -1 if none. */
int reap(job *jobs, size_t count, double timeout, run_result *res);
int run_one(char *const argv[], const char *log_path, double timeout, run_result *res);
/* The same with the child's rlimits (a build's file size, CPU time and memory). */
int run_limited(char *const argv[], const char *log_path, double timeout, const nb_child_limits *limits,
                run_result *res);
/* "timed out after 900 s", "log exceeded 16 MiB: output flood", "the step's logs exceeded 64 MiB together:
 * output flood", "killed by signal 11 (...)", "exit status 2" */
void describe_end(const run_result *r, double timeout, char *out, size_t len);

#endif
