/* judge.c: the verdict of one run of a step binary. It comes from the run's exit status and the row it
 * wrote to its results CSV, never from its printed text; the log only explains a failure, in one line
 * (the clause that says FAIL, or the last line), its escape codes and control characters removed. */
#include "grade.h"
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

/* ESC and what follows it, up to the end of the sequence: CSI (ESC [ parameters final), the string
 * sequences (OSC ESC ] ..., DCS, SOS, PM, APC: to BEL or ESC \), or ESC, intermediates, one final. */
static const unsigned char *skip_escape(const unsigned char *p)
{
    ++p;
    if (*p == '[') {
        ++p;
        while (*p >= 0x20 && *p <= 0x3f)
            ++p;
        return *p >= 0x40 && *p <= 0x7e ? p + 1 : p;
    }
    if (*p && strchr("]PX^_", *p)) {
        ++p;
        while (*p && *p != 0x07 && !(p[0] == 0x1b && p[1] == '\\'))
            ++p;
        return *p == 0x07 ? p + 1 : *p ? p + 2 : p;
    }
    while (*p >= 0x20 && *p <= 0x2f)
        ++p;
    return *p >= 0x30 && *p <= 0x7e ? p + 1 : p;
}

/* Bytes of the well-formed UTF-8 character at p; 0 for a malformed one or a C1 control (U+0080-U+009F,
 * which some terminals obey as they do ESC sequences). */
static size_t utf8_length(const unsigned char *p)
{
    static const uint32_t least[5] = {0, 0, 0xa0, 0x800, 0x10000}; /* below: overlong, or C1 */
    size_t n;
    uint32_t code;
    if (p[0] >= 0xc2 && p[0] <= 0xdf)
        n = 2, code = p[0] & 0x1fu;
    else if (p[0] >= 0xe0 && p[0] <= 0xef)
        n = 3, code = p[0] & 0x0fu;
    else if (p[0] >= 0xf0 && p[0] <= 0xf4)
        n = 4, code = p[0] & 0x07u;
    else
        return 0;
    for (size_t k = 1; k < n; ++k) {
        if ((p[k] & 0xc0) != 0x80)
            return 0;
        code = code << 6 | (p[k] & 0x3fu);
    }
    return code < least[n] || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff) ? 0 : n;
}

/* Text from a run made safe to echo into the table and the terminal, in place: escape sequences are
 * removed, tabs and line breaks become spaces, other control characters and bytes that are not UTF-8
 * become '?'. Printable ASCII and UTF-8 text stay as they are. */
void printable_text(char *text)
{
    const unsigned char *in = (const unsigned char *)text;
    char *out = text; /* never ahead of in */
    while (*in) {
        const unsigned char c = *in;
        size_t n;
        if (c == 0x1b) {
            in = skip_escape(in);
        } else if (c == '\t' || c == '\n' || c == '\r') {
            *out++ = ' ';
            ++in;
        } else if (c >= 0x20 && c < 0x7f) {
            *out++ = (char)*in++;
        } else if (c >= 0x80 && (n = utf8_length(in)) > 0) {
            memmove(out, in, n);
            out += n;
            in += n;
        } else {
            *out++ = '?';
            ++in;
        }
    }
    *out = '\0';
}

/* The last non-empty line of a log, or the first one containing `needle` (NULL: the last line). */
void log_line(const char *path, const char *needle, char *out, size_t len)
{
    out[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        printable_text(line); /* before anything reads it: an escape sequence can hide a separator */
        const char *p = line;
        while (isspace((unsigned char)*p))
            ++p;
        if (!*p)
            continue;
        if (needle && !strstr(p, needle))
            continue;
        textf(out, len, "%s", p);
        if (needle)
            break;
    }
    fclose(f);
}

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

/* ---- results CSV rows --------------------------------------------------------------------- */

/* One row of a CSV written by a step, re-joined (cells never hold commas). */
static char *join_row(const nb_csv *c, size_t r)
{
    size_t len = 1;
    for (size_t k = 0; k < c->columns; ++k)
        len += strlen(c->cell[r][k]) + 1;
    char *row = (char *)malloc(len);
    if (!row)
        return NULL;
    row[0] = '\0';
    for (size_t k = 0; k < c->columns; ++k) {
        strcat(row, c->cell[r][k]);
        if (k + 1 < c->columns)
            strcat(row, ",");
    }
    return row;
}

int header_is_ours(const nb_csv *c)
{
    char header[sizeof NB_RESULTS_HEADER];
    size_t k = 0, len = 0;
    for (; k < c->columns; ++k)
        len += strlen(c->header[k]) + 1;
    if (len != sizeof NB_RESULTS_HEADER)
        return 0;
    header[0] = '\0';
    for (k = 0; k < c->columns; ++k) {
        strcat(header, c->header[k]);
        if (k + 1 < c->columns)
            strcat(header, ",");
    }
    return !strcmp(header, NB_RESULTS_HEADER);
}

/* A number from a cell; empty means "not measured" (-1), "nan" stays NaN. */
double cell_num(const nb_csv *c, size_t r, const char *name)
{
    const char *s = nb_csv_get(c, r, name);
    if (!*s)
        return -1.0;
    char *end;
    const double v = strtod(s, &end);
    return end == s ? -1.0 : v;
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
 * `why` says what went wrong; *row gets the row (or NULL), errors are folded into *acc / *state. */
int judge_run(const grader *g, const run_result *r, const char *csv_path,
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
    describe_end(r, g->o.timeout, end, sizeof end);
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
