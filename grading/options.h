/* options.h: the grader's command line, `grade --help` (floor 2: includes proc.h and text.h of grading/). */
#ifndef GRADING_OPTIONS_H
#define GRADING_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#define MAX_CHECK_N 32

typedef struct options {
    const char *registry, *build, *out, *ref_cache, *make, *nvcc, *steps, *binary, *label, *race_binary;
    const char *probe, *gnuplot_script, *instructions, *plot_csv, *gpu_info;
    uint64_t check_n[MAX_CHECK_N];
    size_t check_n_count;
    uint64_t bodies, systems, gpu_steps, cpu_steps, repeat, jobs;
    uint64_t seed;           /* --seed: the timed problem's (0: drawn afresh for this grade, the default) */
    double timeout;
    int no_timing, count_gpus;
    const char *sandbox;     /* --sandbox, passed to every step program (common/worker_call.h) */
    const char *hide[2];     /* --sandbox-hide: folders the workers must not see, besides OUT */
    size_t hide_count;
    char out_abs[4200];      /* OUT as an absolute path: hidden from every worker */
} options;

/* The words every step program gets for its worker's sandbox (--sandbox MODE, --sandbox-hide DIR for OUT
 * and each --sandbox-hide), into words[] after the k already there; returns the new count. */
size_t sandbox_words(const options *o, char **words, size_t k);

/* Fills o from the command line. -1 to go on, or an exit status (0 after --help, 2 for bad input). */
int parse_args(int argc, char **argv, options *o);

#endif
