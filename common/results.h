/* results.h: the one results format of the lab. One CSV row per run, with a header; the grader,
 * the report and the plots read it, never the programs' human output. */
#ifndef NB_RESULTS_H
#define NB_RESULTS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The columns, in order. */
#define NB_RESULTS_HEADER                                                                          \
    "step,name,build,tag,model,masses,systems,bodies,steps,dt,eps,seed,repeat,"                      \
    "e2e_s,e2e_min_s,e2e_max_s,kernel_s,kernel_min_s,kernel_max_s,ginteractions_s,gflops,"          \
    "acc_rms,acc_max,acc_ratio,state_pos,state_vel,timed_change,timed_state,checked,pass,device,gpus,threads,block," \
    "clock_mhz,theta,levels,eta,decompose,config,region_s,worker,timing,date,commit"

typedef struct nb_result {
    const char *step, *name, *build, *tag, *model, *masses;
    uint64_t systems, bodies, steps, seed, repeat;
    double dt, eps;
    double e2e_s, e2e_min_s, e2e_max_s;          /* a whole call, the judge's clock: input handed over to output received */
    double kernel_s, kernel_min_s, kernel_max_s; /* the time loop, the judge's clock (`timing` says how) */
    double ginteractions_s, gflops;              /* from kernel_s */
    double acc_rms, acc_max, state_pos, state_vel; /* negative: not measured (empty field) */
    double acc_ratio;                            /* |a_step| / |a_ref| over the bodies (validate.h); negative: none */
    double timed_change, timed_state;            /* the timed repeats' worst errors against fp64 (validate.h,
                                                    nb_check_timed): velocity change, state; negative: unchecked */
    uint64_t checked;
    const char *pass;                            /* PASS, FAIL or UNCHECKED */
    const char *device;
    unsigned gpus, threads, block;
    double clock_mhz;                            /* 0: not measured */
    /* The run's facts the judge knows, as it formats them; NULL (empty field) where the step takes no such
     * option: --theta (a tree step), --levels and --eta (block steps), --decompose (auto, systems, bodies). */
    const char *theta, *levels, *eta, *decompose;
    const char *config;                          /* the step's own knobs (run->info), nothing the judge knows */
    double region_s;                             /* the step's own nb_region_begin/end: shown, never graded */
    const char *worker;                          /* sandboxed or unsandboxed */
    const char *timing;                          /* k-2k (GPU: a call of 2k steps less one of k) or call */
    const char *date, *commit;
} nb_result;

/* Append a row to `path`, writing the header first if the file is new or empty; refuse a file whose
 * header differs. One write(2) with O_APPEND, so concurrent runs do not interleave. 0 or NB_EXIT_ERROR. */
int nb_results_append(const char *path, const nb_result *r);

/* The row `r` as nb_results_append writes it, without its newline (malloc'd; NULL if it does not fit). */
char *nb_results_row(const nb_result *r);

/* Before a run: refuse now, with the same line, a file nb_results_append would refuse at the end
 * (nb_output_check, or another header). 0 or NB_EXIT_ERROR. */
int nb_results_check(const char *path);

/* A whole CSV in memory, for readers of results. */
typedef struct nb_csv {
    size_t columns, rows;
    char **header;      /* columns names */
    char ***cell;       /* cell[row][column] */
    char *text;         /* the file's text, cells point into it */
} nb_csv;

/* Read a CSV written by nb_results_append (no quoting). 0, or NB_EXIT_ERROR after one line. */
int nb_csv_read(const char *path, nb_csv *csv);
void nb_csv_free(nb_csv *csv);
/* Column index of `name`, or -1. */
int nb_csv_column(const nb_csv *csv, const char *name);
/* Cell of row r, column `name`; "" if the column does not exist. */
const char *nb_csv_get(const nb_csv *csv, size_t r, const char *name);

/* "2026-11-22T03:04:05Z" */
const char *nb_utc_now(char *buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif
