/* table.c: what the grader prints and writes (grading/README.md, "What it writes"): the plan, the table
 * with its speedups, OUT/results.csv and OUT/verdicts.csv. */
#include "table.h"
#include "cases.h"
#include "types.h"
#include "rows.h"
#include "text.h"
#include "nbody.h"
#include "replace.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* ---- the table ------------------------------------------------------------------------------ */

const char *verdict_name(verdict v)
{
    return v == V_PASS ? "PASS" : v == V_FAIL ? "FAIL" : v == V_TODO ? "TODO" : "SKIP";
}

static void format_err(double v, char *out, size_t len)
{
    if (isnan(v))
        textf(out, len, "NaN");
    else if (v < 0.0)
        textf(out, len, "-");
    else
        textf(out, len, "%.1e", v);
}

static void format_time(double s, char *out, size_t len)
{
    if (s >= 1.0)
        textf(out, len, "%.3g s", s);
    else if (s >= 1e-3)
        textf(out, len, "%.3g ms", 1e3 * s);
    else
        textf(out, len, "%.3g us", 1e6 * s);
}

/* "vs prev" compares a step with the one it grows from (steps.list, column from), if that one was timed. */
void compute_speedups(outcome *outs, size_t count, const registry *reg)
{
    const outcome *base = NULL;
    for (size_t k = 0; k < count; ++k)
        if (outs[k].s == &reg->steps[0] && outs[k].v == V_PASS && outs[k].timed)
            base = &outs[k];
    for (size_t k = 0; k < count; ++k) {
        outcome *o = &outs[k];
        if (o->v != V_PASS || !o->timed)
            continue; /* a step that failed gets no speedup figure */
        if (base)
            o->speedup_base = o->gint / base->gint;
        for (size_t j = 0; j < count; ++j)
            if (o->s->from[0] && !strcmp(outs[j].s->id, o->s->from) && outs[j].v == V_PASS && outs[j].timed) {
                o->speedup_prev = o->gint / outs[j].gint;
                o->prev_id = outs[j].s->id;
            }
    }
}

/* A number from a row of ours (NB_RESULTS_HEADER's columns, joined by commas): -1 if empty or absent. */
static double row_num(const char *row, const char *column)
{
    const char *h = NB_RESULTS_HEADER;
    const size_t len = strlen(column);
    size_t index = 0;
    while (!(strncmp(h, column, len) == 0 && (h[len] == ',' || h[len] == '\0'))) {
        h = strchr(h, ',');
        if (!h)
            return -1.0;
        ++h, ++index;
    }
    for (; row && index > 0; --index)
        row = strchr(row, ',') ? strchr(row, ',') + 1 : NULL;
    if (!row || *row == ',' || !*row)
        return -1.0;
    char *end;
    const double v = strtod(row, &end);
    return end == row ? -1.0 : v;
}

/* The errors the table shows: those of the step's row in results.csv (the ladder run's for a PASS, the
 * failing case's for a FAIL), so that a step graded now and the same row shown later as an earlier run
 * read the same; -1 without a row (not timed). */
static void row_errors(const outcome *o, double *acc, double *state)
{
    *acc = row_num(o->row, "acc_max");
    const double pos = row_num(o->row, "state_pos"), vel = row_num(o->row, "state_vel");
    *state = isnan(pos) || isnan(vel) ? NAN : fmax(pos, vel);
}

void print_table(const grader *g, const outcome *outs, size_t count)
{
    const char *base_id = g->reg.steps[0].id;
    char vs_base[16];
    textf(vs_base, sizeof vs_base, "vs %s", base_id);
    printf("\n%-4s %-20s %-6s %-5s %-9s %-9s %-10s %-7s %-10s %-8s %s\n", "step", "name", "result", "check",
           "acc err", "state err", "loop time", "spread", "G int/s", vs_base, "vs prev");
    for (size_t k = 0; k < count; ++k) {
        const outcome *o = &outs[k];
        printf("%-4s %-20.20s %-6s %-5s ", o->s->id, o->name, verdict_name(o->v), o->s->check);
        if (o->v == V_SKIP || o->v == V_TODO) {
            printf("%s\n", o->reason);
            continue;
        }
        char acc[32], st[32];
        double acc_err, state_err;
        row_errors(o, &acc_err, &state_err);
        format_err(acc_err, acc, sizeof acc);
        format_err(state_err, st, sizeof st);
        printf("%-9s %-9s ", acc, st);
        if (o->v == V_FAIL) {
            printf("%s\n", o->reason);
            if (o->cause[0])
                printf("%-4s %-20s %-6s %-5s likely cause: %s\n", "", "", "", "", o->cause);
            if (o->earlier)
                printf("%-4s %-20s %-6s %-5s (an earlier run, %s: grade it again to see why)\n", "", "", "", "", o->date);
            else
                printf("%-4s %-20s %-6s %-5s see %s\n", "", "", "", "", o->log);
            continue;
        }
        if (!o->timed) {
            printf("(not timed)\n");
            continue;
        }
        char t[32], spread[32], sb[32] = "-", sp[32] = "-";
        format_time(o->loop_s, t, sizeof t);
        textf(spread, sizeof spread, "%.1f%%", 100.0 * (o->loop_max - o->loop_min) / o->loop_s);
        if (o->speedup_base > 0.0)
            format_speedup(o->speedup_base, sb, sizeof sb);
        if (o->speedup_prev > 0.0) {
            format_speedup(o->speedup_prev, sp, sizeof sp);
            if (!(o->s > &g->reg.steps[0] && !strcmp(o->s[-1].id, o->prev_id))) { /* not the step before it */
                const size_t len = strlen(sp);
                textf(sp + len, sizeof sp - len, " (vs %s)", o->prev_id);
            }
        }
        printf("%-10s %-7s %-10.4g %-8s %s%s%s\n", t, spread, o->gint, sb, sp, o->earlier ? "   earlier run, " : "",
               o->earlier ? o->date : "");
    }
}

/* The rows of an earlier results.csv (this grader's, in `csv_path`) for the steps without a result now
 * (not graded, or SKIP or TODO: neither is a result, and neither erases one): each step's latest result
 * stays in the table, the ladder and results.csv, marked with its date, so that a student grading one step
 * at a time sees every step so far. Appends them to *outs, sorts all in registry order (a step's line of
 * this run before its earlier one); returns the new count. */
static int by_registry(const void *a, const void *b)
{
    const outcome *x = (const outcome *)a, *y = (const outcome *)b;
    return x->s != y->s ? (x->s > y->s) - (x->s < y->s) : x->earlier - y->earlier;
}

size_t add_earlier(const grader *g, const char *csv_path, outcome **outs, size_t count)
{
    if (access(csv_path, R_OK) != 0)
        return count;
    nb_csv c;
    if (nb_csv_read(csv_path, &c) != NB_EXIT_OK)
        return count;
    if (!header_is_ours(&c)) {
        nb_csv_free(&c);
        return count;
    }
    for (size_t r = 0; r < c.rows; ++r) {
        const graded_step *s = NULL;
        for (size_t k = 0; k < g->reg.count; ++k)
            if (!strcmp(g->reg.steps[k].id, nb_csv_get(&c, r, "step")))
                s = &g->reg.steps[k];
        if (!s)
            continue;
        /* A result of this run (PASS or FAIL: it has a row) replaces it, as does a row already kept; a
         * failure before any case (the build, or no binary: a row without a case) is gone once the step
         * builds, though a SKIP or TODO leaves no row of its own (a step02 fixed on a machine without a
         * GPU once kept its build failure under the SKIP). */
        const int before_cases = !strcmp(nb_csv_get(&c, r, "tag"), "grade-error") &&
                                 !strcmp(nb_csv_get(&c, r, "bodies"), "0");
        int seen = 0;
        for (size_t k = 0; k < count; ++k)
            seen |= (*outs)[k].s == s && ((*outs)[k].row || (before_cases && (*outs)[k].built));
        if (seen)
            continue;
        outcome *more = (outcome *)realloc(*outs, (count + 1) * sizeof(outcome));
        if (!more)
            break;
        *outs = more;
        outcome *o = &more[count++];
        memset(o, 0, sizeof *o);
        o->s = s;
        o->name = s->folder;
        o->earlier = 1;
        textf(o->date, sizeof o->date, "%s", nb_csv_get(&c, r, "date"));
        clean_cell(o->date);
        const int pass = !strcmp(nb_csv_get(&c, r, "pass"), "PASS");
        o->v = pass ? V_PASS : V_FAIL;
        o->worst_acc = cell_num(&c, r, "acc_max");
        o->worst_state = fmax(cell_num(&c, r, "state_pos"), cell_num(&c, r, "state_vel"));
        o->loop_s = cell_num(&c, r, "kernel_s");
        o->loop_min = cell_num(&c, r, "kernel_min_s");
        o->loop_max = cell_num(&c, r, "kernel_max_s");
        o->gint = cell_num(&c, r, "ginteractions_s");
        o->timed = pass && o->loop_s > 0.0 && o->gint > 0.0;
        o->speedup_base = o->speedup_prev = -1.0;
        if (!pass && before_cases)
            textf(o->reason, sizeof o->reason, "failed before its cases (the build, or no binary)");
        else if (!pass)
            textf(o->reason, sizeof o->reason, "failed (case N=%s S=%s %s %s)", nb_csv_get(&c, r, "bodies"),
                  nb_csv_get(&c, r, "systems"), nb_csv_get(&c, r, "model"), nb_csv_get(&c, r, "masses"));
        o->row = join_row(&c, r); /* the row as it was */
    }
    nb_csv_free(&c);
    qsort(*outs, count, sizeof(outcome), by_registry);
    return count;
}

void print_plan(const grader *g, const outcome *outs, size_t count)
{
    const options *o = &g->o;
    printf("make grade: %zu step%s (", count, count == 1 ? "" : "s");
    for (size_t k = 0; k < count; ++k)
        printf("%s%s", k ? " " : "", outs[k].s->id);
    printf("), logs in %s/logs\n", o->out);
    printf("  correctness: %zu cases per step (%zu more with block steps), N =", g->case_count, block_case_count());
    for (size_t k = 0; k < o->check_n_count; ++k)
        printf(" %llu", (unsigned long long)o->check_n[k]);
    printf(", S = 1 and 3, plummer and uniform, equal and random masses\n"
           "               (every model/masses pair while S*N^2 <= 2^26; beyond, plummer/equal at S = 1 and\n"
           "               uniform/random at S = 3);\n"
           "               accelerations on every body and the state after 4 steps against the fp64 reference,\n"
           "               cached in %s; %llu case%s at a time\n",
           o->ref_cache, (unsigned long long)o->jobs, o->jobs == 1 ? "" : "s");
    if (o->no_timing)
        printf("  timing:      none (--no-timing)\n");
    else
        printf("  timing:      N = %llu, S = %llu, plummer of seed %llu (drawn for this grade): validated at that\n"
               "               size, one warm-up step (GPU), then the median of %llu repeats of %llu steps (GPU) or\n"
               "               %llu step%s (CPU), every one checked. Timed by the judge's clock, each call on a fresh\n"
               "               worker: on a GPU a call of 2k steps less one of k (never under half the 2k call\n"
               "               over 1.3), on a CPU the whole call; spread = (max - min) / median;\n"
               "               G int/s = S*N^2*steps / time; speedups compare G int/s\n",
               (unsigned long long)o->bodies, (unsigned long long)o->systems, (unsigned long long)o->seed,
               (unsigned long long)o->repeat, (unsigned long long)o->gpu_steps, (unsigned long long)o->cpu_steps,
               o->cpu_steps == 1 ? "" : "s");
    printf("  GPUs:        %d (%s)", g->gpus.count, g->gpus.count ? g->gpus.how : g->gpus.none);
    for (int d = 0; d < g->gpus.count; ++d)
        if (g->gpus.name[d][0])
            printf("%s%s, %d SMs", d ? "; " : ": ", g->gpus.name[d], g->gpus.sms[d]);
    printf("; nvcc %s\n\n", g->have_nvcc ? "found" : "not found");
    fflush(stdout);
}

/* ---- the CSVs ------------------------------------------------------------------------------- */

/* A file of ours written whole (common/replace.h: a temporary renamed over it, removed on a signal). */
static FILE *open_whole(nb_replace *r, const char *path)
{
    const int fd = nb_replace_open(r, path);
    if (fd < 0)
        return NULL;
    FILE *f = fdopen(fd, "w");
    if (!f) {
        nb_error("cannot write %s: %s", path, strerror(errno));
        close(fd);
        nb_replace_discard(r);
    }
    return f;
}
static int close_whole(nb_replace *r, FILE *f, const char *path)
{
    if (ferror(f) | (fclose(f) != 0)) {
        nb_error("cannot write %s: %s", path, strerror(errno));
        nb_replace_discard(r);
        return NB_EXIT_ERROR;
    }
    return nb_replace_commit(r, NULL);
}

/* OUT/results.csv: each graded step's row under the harness's header. */
int write_csv(const char *path, const outcome *outs, size_t count)
{
    nb_replace r = {0};
    FILE *f = open_whole(&r, path);
    if (!f)
        return NB_EXIT_ERROR;
    fprintf(f, "%s\n", NB_RESULTS_HEADER);
    for (size_t k = 0; k < count; ++k)
        if (outs[k].row)
            fprintf(f, "%s\n", outs[k].row);
    return close_whole(&r, f, path);
}

/* OUT/verdicts.csv: the grader's own verdict per step (the self-test reads it). */
int write_verdicts(const char *path, const outcome *outs, size_t count)
{
    nb_replace r = {0};
    FILE *f = open_whole(&r, path);
    if (!f)
        return NB_EXIT_ERROR;
    fprintf(f, "step,name,verdict,reason,failed_case,cases_passed,cases,acc_err,state_err,loop_s,"
               "ginteractions_s,speedup_base,speedup_prev,log,cause\n");
    for (size_t k = 0; k < count; ++k) {
        const outcome *o = &outs[k];
        if (o->earlier)
            continue; /* this run's verdicts only */
        char name[128], reason[600], fcase[128];
        textf(name, sizeof name, "%s", o->name);
        textf(reason, sizeof reason, "%s", o->reason);
        textf(fcase, sizeof fcase, "%s", o->failed_case);
        clean_cell(name);
        clean_cell(reason);
        clean_cell(fcase);
        fprintf(f, "%s,%s,%s,%s,%s,%zu,%zu,", o->s->id, name, verdict_name(o->v),
                reason, fcase, o->cases_passed, o->cases);
        const double nums[] = {o->worst_acc, o->worst_state, o->timed ? o->loop_s : -1.0, o->timed ? o->gint : -1.0,
                               o->speedup_base, o->speedup_prev};
        for (size_t n = 0; n < sizeof nums / sizeof nums[0]; ++n)
            if (isnan(nums[n]))
                fprintf(f, "nan,");
            else if (nums[n] < 0.0)
                fprintf(f, ",");
            else
                fprintf(f, "%.6g,", nums[n]);
        char cause[600];
        textf(cause, sizeof cause, "%s", o->cause);
        clean_cell(cause);
        fprintf(f, "%s,%s\n", o->v == V_SKIP || o->v == V_TODO ? "" : o->log, cause);
    }
    return close_whole(&r, f, path);
}
