/* ladder_plot.c: the speedup ladder, OUT/ladder.png and .svg: one bar per passing, timed step of a results
 * CSV, and each GPU step's issue-bound ceiling where it is known; the numbers go to OUT/ladder.dat and
 * OUT/ladder-vars.gp, which grading/ladder_plot.gp draws with gnuplot. */
#define _GNU_SOURCE /* strcasecmp */
#include "ladder_plot.h"
#include "gpus.h"
#include "options.h"
#include "proc.h"
#include "rows.h"
#include "text.h"
#include "nbody.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* A string for a gnuplot double-quoted literal. */
static void gp_quote(const char *s, char *out, size_t len)
{
    size_t k = 0;
    for (; *s && k + 3 < len; ++s) {
        if (*s == '"' || *s == '\\')
            out[k++] = '\\';
        out[k++] = (*s == '\n') ? ' ' : *s;
    }
    out[k] = '\0';
}

/* Adds `item` to the list "X, Y" unless it is there (count, if not NULL, counts what was added); a list
 * too long for `len` ends in ", ...". The rows' commits and devices. */
static void add_to_list(const char *item, char *list, size_t len, size_t *count)
{
    if (!item[0])
        return;
    for (const char *p = list; *p;) {
        const char *end = strstr(p, ", ");
        const size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n == strlen(item) && !strncmp(p, item, n))
            return;
        p = end ? end + 2 : p + n;
    }
    const size_t used = strlen(list);
    if (used >= 5 && !strcmp(list + used - 5, ", ..."))
        return;
    if (count)
        ++*count;
    if (used + strlen(item) + 2 + 5 >= len) {
        textf(list + used, len - used, ", ...");
        return;
    }
    textf(list + used, len - used, "%s%s", used ? ", " : "", item);
}

typedef struct bar {
    char id[16], label[80], device[160];
    double gint, clock_mhz, ceiling;  /* ceiling: its own issue bound in G int/s, NAN if unknown */
    unsigned gpus;
    int gpu;
} bar;

/* The issue-bound ceiling of each GPU bar: gpus * SMs * 4 schedulers * 32 lanes * clock / instructions
 * per interaction, from the recorded instruction counts; the one formula of the lab (report/query/ceiling.awk
 * computes the same for the report's tables). SMs: the GPU here, else the recorded gpu.csv (--gpu-info).
 * Returns a note for the plot's subtitle. */
static void ceilings(const options *o, const gpu_info *here, const gpu_info *recorded, bar *bars, size_t count,
                     char *note, size_t len)
{
    size_t gpu_bars = 0, known = 0;
    for (size_t k = 0; k < count; ++k) {
        bars[k].ceiling = NAN;
        gpu_bars += bars[k].gpu;
    }
    if (gpu_bars == 0) {
        textf(note, len, "no GPU step timed: no issue-bound ceiling");
        return;
    }
    if (access(o->instructions, R_OK) != 0) {
        textf(note, len, "no issue-bound ceiling drawn: %s not recorded yet", o->instructions);
        return;
    }
    nb_csv ins;
    if (nb_csv_read(o->instructions, &ins) != NB_EXIT_OK || nb_csv_column(&ins, "instructions_per_interaction") < 0) {
        if (ins.text)
            nb_csv_free(&ins);
        textf(note, len, "no issue-bound ceiling drawn: %s is unreadable", o->instructions);
        return;
    }
    int sms_missing = 0;
    for (size_t k = 0; k < count; ++k) {
        bar *b = &bars[k];
        if (!b->gpu || !(b->clock_mhz > 0.0))
            continue;
        const char *device = single_gpu_name(b->device);
        double instr = 0.0;
        for (size_t r = 0; r < ins.rows; ++r) /* the last matching row is the newest */
            if (!strcmp(nb_csv_get(&ins, r, "step"), b->id) && !strcasecmp(nb_csv_get(&ins, r, "device"), device)) {
                const double v = strtod(nb_csv_get(&ins, r, "instructions_per_interaction"), NULL);
                if (v > 0.0)
                    instr = v;
            }
        if (instr <= 0.0)
            continue;
        const int sms = sms_of(here, device) ? sms_of(here, device) : sms_of(recorded, device);
        if (!sms) {
            sms_missing = 1;
            continue;
        }
        b->ceiling = (double)(b->gpus ? b->gpus : 1) * sms * 4.0 * 32.0 * b->clock_mhz * 1e6 / instr * 1e-9;
        ++known;
    }
    nb_csv_free(&ins);
    if (known == 0)
        textf(note, len, "no issue-bound ceiling drawn: %s", sms_missing
                                                                     ? "the SM count is unknown (no GPU here to ask, no --gpu-info)"
                                                                     : "no instruction count recorded for these steps on this GPU");
    else
        textf(note, len, "dashes: each step's issue bound, SMs x 4 x 32 lanes x clock / its instructions per "
                            "interaction (%s)", o->instructions);
}

/* Draw OUT/ladder.png and .svg from a results CSV. 0, or 1 if it could not (with one line saying how). */
int draw_ladder(const options *o, const gpu_info *here, const gpu_info *recorded, const char *csv_path)
{
    char dat[4400], vars[4400], png[4400], svg[4400], log[4400];
    textf(dat, sizeof dat, "%s/ladder.dat", o->out);
    textf(vars, sizeof vars, "%s/ladder-vars.gp", o->out);
    textf(png, sizeof png, "%s/ladder.png", o->out);
    textf(svg, sizeof svg, "%s/ladder.svg", o->out);
    textf(log, sizeof log, "%s/logs/gnuplot.log", o->out);
    unlink(png); /* a figure of an earlier grade must not pass for this one's */
    unlink(svg);
    nb_csv c;
    if (nb_csv_read(csv_path, &c) != NB_EXIT_OK)
        return 1;
    if (!header_is_ours(&c)) {
        nb_error("%s is not a results CSV of this lab", csv_path);
        nb_csv_free(&c);
        return 1;
    }
    bar *bars = (bar *)calloc(c.rows + 1, sizeof(bar));
    size_t count = 0;
    const char *base = NULL;
    char cpu_dev[160] = "", gpu_dev[160] = "", bodies[32] = "", systems[32] = "", commits[160] = "";
    size_t commit_count = 0, grade_rows = 0; /* grade_rows: rows that make grade wrote (tag grade-ladder) */
    double clock = 0.0;
    for (size_t r = 0; bars && r < c.rows; ++r) {
        const double gint = cell_num(&c, r, "ginteractions_s");
        if (strcmp(nb_csv_get(&c, r, "pass"), "PASS") || !(gint > 0.0))
            continue; /* failed or untimed: no bar */
        bar *b = &bars[count++];
        textf(b->id, sizeof b->id, "%s", nb_csv_get(&c, r, "step"));
        const char *name = nb_csv_get(&c, r, "name");
        const char *u = strchr(name, '_');
        textf(b->label, sizeof b->label, "%s %s", b->id, u ? u + 1 : name);
        textf(b->device, sizeof b->device, "%s", nb_csv_get(&c, r, "device"));
        b->gint = gint;
        b->clock_mhz = cell_num(&c, r, "clock_mhz");
        b->gpus = (unsigned)strtoul(nb_csv_get(&c, r, "gpus"), NULL, 10);
        /* A GPU run: GPUs counted, or a measured SM clock or a block size (CPU rows have neither). */
        b->gpu = b->gpus > 0 || b->clock_mhz > 0.0 || strtoul(nb_csv_get(&c, r, "block"), NULL, 10) > 0;
        add_to_list(b->device, b->gpu ? gpu_dev : cpu_dev, sizeof gpu_dev, NULL); /* rows of several machines: each named */
        if (b->gpu && b->clock_mhz > clock)
            clock = b->clock_mhz;
        if (r == 0 || !bodies[0]) {
            textf(bodies, sizeof bodies, "%s", nb_csv_get(&c, r, "bodies"));
            textf(systems, sizeof systems, "%s", nb_csv_get(&c, r, "systems"));
        }
        add_to_list(nb_csv_get(&c, r, "commit"), commits, sizeof commits, &commit_count);
        grade_rows += !strcmp(nb_csv_get(&c, r, "tag"), "grade-ladder");
        if (!strcmp(b->id, "00"))
            base = b->id;
    }
    nb_csv_free(&c);
    if (!bars || count == 0) {
        printf("ladder: no passing, timed step in %s: nothing to draw\n", csv_path);
        free(bars);
        return 1;
    }
    char note[400];
    ceilings(o, here, recorded, bars, count, note, sizeof note);
    double base_gint = 0.0, lo = INFINITY, hi = 0.0, roof = 0.0;
    for (size_t k = 0; k < count; ++k) {
        if (base && !strcmp(bars[k].id, "00"))
            base_gint = bars[k].gint;
        lo = fmin(lo, bars[k].gint);
        hi = fmax(hi, bars[k].gint);
        if (isfinite(bars[k].ceiling)) {
            hi = fmax(hi, bars[k].ceiling);
            roof = fmax(roof, bars[k].ceiling);
        }
    }

    FILE *f = fopen(dat, "w");
    if (!f) {
        nb_error("cannot write %s: %s", dat, strerror(errno));
        free(bars);
        return 1;
    }
    fprintf(f, "# x label G_interactions_s bar_text gpu own_issue_bound value_text (grading/ladder_plot.c, from %s)\n",
            csv_path);
    for (size_t k = 0; k < count; ++k) {
        char text[64];
        text[0] = '\0';
        if (base_gint > 0.0)
            format_speedup(bars[k].gint / base_gint, text, sizeof text);
        char own[32] = "NaN";
        if (isfinite(bars[k].ceiling))
            textf(own, sizeof own, "%.6g", bars[k].ceiling);
        char value[32];
        textf(value, sizeof value, bars[k].gint >= 1000.0 ? "%.0f" : "%.3g", bars[k].gint);
        fprintf(f, "%zu \"%s\" %.6g \"%s\" %d %s \"%s\"\n", k, bars[k].label, bars[k].gint, text, bars[k].gpu, own,
                value);
    }
    fclose(f);

    char title[400], sub[800], q1[800], q2[1600], devices[400];
    /* Where the rows came from, by their tags (timed_run.c tags make grade's, the sweeps tag theirs
     * "ladder") and their commits: a CSV assembled from recordings must not pass for one grade. */
    const char *source = grade_rows == count ? "make grade" : grade_rows ? "make grade and recorded sweeps"
                                                                          : "recorded sweeps";
    textf(title, sizeof title, "The N-body ladder: N = %s, S = %s (%s%s%s)", bodies, systems, source,
          commit_count == 0 ? "" : commit_count == 1 ? ", commit " : ", commits ", commits);
    if (gpu_dev[0] && clock > 0.0)
        textf(devices, sizeof devices, "CPU: %s   GPU: %s at %s%.0f MHz (measured)", cpu_dev[0] ? cpu_dev : "-",
                 gpu_dev, strchr(gpu_dev, ',') ? "up to " : "", clock);
    else
        textf(devices, sizeof devices, "CPU: %s%s%s", cpu_dev[0] ? cpu_dev : "-", gpu_dev[0] ? "   GPU: " : "",
                 gpu_dev);
    textf(sub, sizeof sub, "%s\\ntimed: the time loop alone, median of the repeats; bars: G interactions/s%s\\n%s",
          devices, base_gint > 0.0 ? " and the speedup over step 00" : "", note);
    gp_quote(title, q1, sizeof q1);
    textf(q2, sizeof q2, "%s", sub); /* already escaped: devices and note hold no quotes */
    for (char *p = q2; *p; ++p)
        if (*p == '"')
            *p = '\'';
    f = fopen(vars, "w");
    if (!f) {
        nb_error("cannot write %s: %s", vars, strerror(errno));
        free(bars);
        return 1;
    }
    const double ymin = pow(10.0, floor(log10(lo / 2.0))), ymax = pow(10.0, ceil(log10(hi * 3.0)));
    fprintf(f, "datafile = \"%s\"\npng_out = \"%s.tmp\"\nsvg_out = \"%s.tmp\"\n", dat, png, svg);
    fprintf(f, "title_text = \"%s\"\nsubtitle_text = \"%s\"\n", q1, q2);
    size_t gpu_bars = 0;
    for (size_t k = 0; k < count; ++k)
        gpu_bars += bars[k].gpu;
    fprintf(f, "bars = %zu\ncpu_bars = %zu\ngpu_bars = %zu\nymin = %.6g\nymax = %.6g\nroof = %.6g\n", count,
            count - gpu_bars, gpu_bars, ymin, ymax, roof);
    fclose(f);
    free(bars);

    if (!have_command("gnuplot")) {
        printf("ladder: gnuplot not found, so no ladder.png/.svg; the numbers are in %s.\n"
               "        To draw it: bash common/deps.sh gnuplot (installs it, or prints the command), then make grade-plot\n",
               csv_path);
        return 1;
    }
    char *argv[] = {"gnuplot", vars, (char *)o->gnuplot_script, NULL};
    run_result r;
    if (run_one(argv, log, 120.0, &r) != NB_EXIT_OK || !r.exited || r.code != 0) {
        char line[400];
        log_line(log, NULL, line, sizeof line);
        printf("ladder: gnuplot failed (%s): see %s\n", line, log);
        return 1;
    }
    char tmp[4500];
    textf(tmp, sizeof tmp, "%s.tmp", png);
    int ok = rename(tmp, png) == 0;
    textf(tmp, sizeof tmp, "%s.tmp", svg);
    ok = rename(tmp, svg) == 0 && ok;
    if (!ok) {
        printf("ladder: gnuplot wrote no figure: see %s\n", log);
        return 1;
    }
    printf("ladder: %s and %s\n", png, svg);
    return 0;
}
