/* verdict.c: the verdict of one run of a step binary. It comes from the run's exit status and the row it
 * wrote to its results CSV, never from its printed text; the log only explains a failure, in one line
 * (the clause that says FAIL, or the last line), its escape codes and control characters removed. */
#include "verdict.h"
#include "proc.h"
#include "rows.h"
#include "text.h"
#include "nbody.h"
#include "util.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- what a log says ------------------------------------------------------------------------ */

/* Why a step disagreed with the reference: the first clause of its report that says FAIL, e.g.
 * "kick-then-drift 8.15e-01 (tol 1e-04) FAIL", else the first line after its verdict line (such as
 * "body 3 of system 0 is not finite after 10 steps"). Shown to people, never parsed for verdicts. */
static void failure_clause(const char *path, char *out, size_t len)
{
    out[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char line[1024], first[1024] = "";
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        printable_text(line); /* before anything reads it: an escape sequence can hide a separator */
        char *p = line;
        while (isspace((unsigned char)*p))
            ++p;
        if (!*p || strstr(p, "validation FAIL"))
            continue;
        if (!first[0])
            textf(first, sizeof first, "%s", p);
        char *fail = strstr(p, " FAIL");
        if (!fail)
            continue;
        fail[5] = '\0';
        char *clause = p; /* "acceleration (31 bodies): rms 3.6e-01 (tol 2.0e-05) FAIL, max ..." */
        for (char *q = p; q < fail; ++q)
            if (*q == ',' || *q == ';')
                clause = q + 1;
        while (isspace((unsigned char)*clause))
            ++clause;
        /* A bare "max 1.2e-01 ..." or "velocities ..." keeps the name of what it measures. */
        int head = (int)strcspn(p, "(:");
        while (head > 0 && p[head - 1] == ' ')
            --head;
        static const char *const bare[] = {"rms ", "max ", "positions ", "velocities "};
        int needs_head = 0;
        for (size_t b = 0; b < sizeof bare / sizeof bare[0]; ++b)
            needs_head |= clause != p && !strncmp(clause, bare[b], strlen(bare[b]));
        if (needs_head)
            textf(out, len, "%.*s: %s", head, p, clause);
        else
            textf(out, len, "%s", clause);
        fclose(f);
        return;
    }
    fclose(f);
    textf(out, len, "%s", first);
}

/* The larger error; NaN wins, "not measured" (-1) loses. */
static double worse(double a, double b)
{
    if (isnan(a) || isnan(b))
        return NAN;
    return a > b ? a : b;
}

/* ---- the verdict --------------------------------------------------------------------------- */

/* The verdict of one run of a step binary, from its exit status and its CSV row. 1 passed, 0 not;
 * `why` says what went wrong; *row gets the row (or NULL), errors are folded into *acc / *state;
 * `timeout`: the limit the run had. */
int verdict_of_run(double timeout, const run_result *r, const char *csv_path,
                     const char *log_path, char **row, double *acc, double *state, char *why, size_t len)
{
    *row = NULL;
    why[0] = '\0';
    nb_csv csv;
    int pass_row = 0; /* the run's one row says PASS */
    if (access(csv_path, R_OK) == 0 && nb_csv_read(csv_path, &csv) == NB_EXIT_OK) {
        if (csv.rows == 1 && header_is_ours(&csv)) {
            *row = join_row(&csv, 0);
            *acc = worse(*acc, cell_num(&csv, 0, "acc_max"));
            *state = worse(*state, worse(cell_num(&csv, 0, "state_pos"), cell_num(&csv, 0, "state_vel")));
            pass_row = !strcmp(nb_csv_get(&csv, 0, "pass"), "PASS");
        }
        nb_csv_free(&csv);
    }
    char end[128], line[600];
    describe_end(r, timeout, end, sizeof end);
    if (r->flooded) { /* whatever its status: its last line is the flood, not a reason */
        textf(why, len, "%s", end);
    } else if (r->exited && r->code == NB_EXIT_OK) {
        if (pass_row)
            return 1;
        textf(why, len, "exit status 0 but no PASS row in %s", csv_path);
    } else if (r->exited && r->code == NB_EXIT_MISMATCH) {
        failure_clause(log_path, line, sizeof line);
        textf(why, len, "%s", line[0] ? line : "disagrees with the reference (see the log)");
    } else {
        log_line(log_path, NULL, line, sizeof line);
        if (r->exited && r->code == NB_EXIT_ERROR)
            textf(why, len, "error: %s", line[0] ? line : end);
        else
            textf(why, len, "%s%s%s", end, line[0] ? ": " : "", line);
    }
    return 0;
}
