/* rows.c: rows of the results CSV as the grader reads and writes them (rows.h); the format and its
 * writer are common/results.c's. */
#include "rows.h"
#include "text.h"
#include "results.h"

#include <stdlib.h>
#include <string.h>

char *join_row(const nb_csv *c, size_t r)
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

double cell_num(const nb_csv *c, size_t r, const char *name)
{
    const char *s = nb_csv_get(c, r, name);
    if (!*s)
        return -1.0;
    char *end;
    const double v = strtod(s, &end);
    return end == s ? -1.0 : v;
}

char *synthetic_row(const char *step, const char *name_text, const check_case *c)
{
    char date[32], name[128];
    textf(name, sizeof name, "%s", name_text);
    clean_cell(name);
    nb_result r;
    memset(&r, 0, sizeof r);
    r.step = step;
    r.name = name;
    r.build = "grade";
    r.tag = "grade-error";
    r.model = c ? c->model : "";
    r.masses = c ? c->masses : "";
    r.systems = c ? c->systems : 0;
    r.bodies = c ? c->bodies : 0;
    r.e2e_s = r.e2e_min_s = r.e2e_max_s = r.kernel_s = r.kernel_min_s = r.kernel_max_s = -1.0;
    r.ginteractions_s = r.gflops = r.acc_rms = r.acc_max = r.acc_ratio = r.state_pos = r.state_vel = -1.0;
    r.timed_change = r.timed_state = r.dt = r.eps = r.clock_mhz = r.region_s = -1.0;
    r.pass = "FAIL";
    r.date = nb_utc_now(date, sizeof date);
    r.commit = "";
    return nb_results_row(&r);
}
