/* kepler.c: a two-body orbit to measure a step's integration error against the exact answer.
 *
 *   kepler init --ecc E --steps K -o FILE    write the initial state as a snapshot
 *   kepler compare --ecc E --steps K [--label TEXT] FINAL
 *                                            one CSV row: FINAL's error after one period, and the
 *                                            fp64 reference's after the same K steps
 *   kepler header                            the CSV header
 *
 * Two bodies of mass 1/2 (G = 1, total mass 1) on an orbit of semi-major axis 1 and eccentricity E,
 * so the period is 2 pi; they start at apocentre, and dt = 2 pi / K, so K steps are one period and
 * the exact final state is the initial one. Kick-drift leapfrog keeps velocities at half steps:
 * the file holds v(-dt/2) (one backward half kick from the exact v(0)), and compare synchronises
 * FINAL's velocities by half a kick before comparing. Errors: relative position |r - r0| / a,
 * velocity |v - v0| / sqrt(GM/a) (r, v of body 2 relative to body 1), energy (E - E0) / |E0|.
 * Exit status: 0, or 2 after one line on stderr. */
#define _POSIX_C_SOURCE 200809L
#include "nbody.h"
#include "reference.h"
#include "snapshot.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846
#define MAX_STEPS 100000000ull

static const char *const header = "label,ecc,steps,dt,pos_error,vel_error,energy_error,pos_error_fp64,"
                                  "vel_error_fp64,energy_error_fp64";

/* The exact state at t = 0 (apocentre on the x axis, moving along y), centre of mass at rest. */
static void exact_start(double ecc, double x[2][3], double v[2][3])
{
    const double r = 1.0 + ecc, speed = sqrt((1.0 - ecc) / (1.0 + ecc)); /* vis-viva at apocentre, a = GM = 1 */
    memset(x, 0, 6 * sizeof(double));
    memset(v, 0, 6 * sizeof(double));
    x[0][0] = -0.5 * r;
    x[1][0] = 0.5 * r;
    v[0][1] = -0.5 * speed;
    v[1][1] = 0.5 * speed;
}

static double orbit_energy(const double x[2][3], const double v[2][3])
{
    double r2 = 0.0, k = 0.0;
    for (int d = 0; d < 3; ++d) {
        r2 += (x[1][d] - x[0][d]) * (x[1][d] - x[0][d]);
        k += 0.5 * 0.5 * (v[0][d] * v[0][d] + v[1][d] * v[1][d]);
    }
    return k - 0.25 / sqrt(r2);
}

/* The accelerations of the two bodies (no softening). */
static void accel(const double x[2][3], double a[2][3])
{
    double d[3], r2 = 0.0;
    for (int k = 0; k < 3; ++k) {
        d[k] = x[1][k] - x[0][k];
        r2 += d[k] * d[k];
    }
    const double f = 0.5 / (r2 * sqrt(r2)); /* m_other / r^3 */
    for (int k = 0; k < 3; ++k) {
        a[0][k] = f * d[k];
        a[1][k] = -f * d[k];
    }
}

static void to_state(nb_state64 *s, const double x[2][3], const double v[2][3])
{
    for (int b = 0; b < 2; ++b) {
        s->x[b] = x[b][0], s->y[b] = x[b][1], s->z[b] = x[b][2];
        s->vx[b] = v[b][0], s->vy[b] = v[b][1], s->vz[b] = v[b][2];
        s->m[b] = 0.5;
    }
}

/* Errors of a final state (x at t = P, v at P - dt/2) against the exact start. */
static void errors(const nb_state64 *s, double ecc, double dt, double out[3])
{
    double x[2][3], v[2][3], a[2][3], x0[2][3], v0[2][3];
    for (int b = 0; b < 2; ++b) {
        x[b][0] = s->x[b], x[b][1] = s->y[b], x[b][2] = s->z[b];
        v[b][0] = s->vx[b], v[b][1] = s->vy[b], v[b][2] = s->vz[b];
    }
    accel(x, a);
    for (int b = 0; b < 2; ++b)
        for (int k = 0; k < 3; ++k)
            v[b][k] += 0.5 * dt * a[b][k];
    exact_start(ecc, x0, v0);
    double dr = 0.0, dv = 0.0;
    for (int k = 0; k < 3; ++k) {
        const double er = (x[1][k] - x[0][k]) - (x0[1][k] - x0[0][k]);
        const double ev = (v[1][k] - v[0][k]) - (v0[1][k] - v0[0][k]);
        dr += er * er;
        dv += ev * ev;
    }
    const double e0 = orbit_energy(x0, v0);
    out[0] = sqrt(dr);
    out[1] = sqrt(dv);
    out[2] = (orbit_energy(x, v) - e0) / fabs(e0);
}

static int parse_double(const char *opt, const char *text, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    const double v = strtod(text, &end);
    if (errno || end == text || *end != '\0' || !(v >= lo && v < hi)) {
        nb_error("%s %s: expected a number in [%g, %g)", opt, text, lo, hi);
        return 0;
    }
    *out = v;
    return 1;
}

static int parse_steps(const char *text, unsigned long long *out)
{
    char *end;
    errno = 0;
    const unsigned long long v = strtoull(text, &end, 10);
    if (errno || end == text || *end != '\0' || text[0] == '-' || v < 8 || v > MAX_STEPS) {
        nb_error("--steps %s: expected a whole number of steps per period from 8 to %llu", text, MAX_STEPS);
        return 0;
    }
    *out = v;
    return 1;
}

static int usage_error(const char *why)
{
    nb_error("%s (usage: kepler init|compare|header; try --help)", why);
    return NB_EXIT_ERROR;
}

int main(int argc, char **argv)
{
    nb_set_progname("kepler");
    if (argc >= 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        printf("usage: kepler init --ecc E --steps K -o FILE\n"
               "       kepler compare --ecc E --steps K [--label TEXT] FINAL\n"
               "       kepler header\n"
               "A two-body orbit (a = 1, period 2 pi, dt = 2 pi / K): write its start, or print one CSV\n"
               "row with FINAL's error after one period and the fp64 reference's.\n");
        return NB_EXIT_OK;
    }
    if (argc < 2)
        return usage_error("no command");
    const char *cmd = argv[1];
    if (strcmp(cmd, "header") == 0) {
        if (argc != 2)
            return usage_error("header takes no arguments");
        printf("%s\n", header);
        return NB_EXIT_OK;
    }
    const int init = strcmp(cmd, "init") == 0;
    if (!init && strcmp(cmd, "compare") != 0)
        return usage_error("unknown command");

    double ecc = -1.0;
    unsigned long long steps = 0;
    const char *out = NULL, *label = "", *final_path = NULL;
    for (int k = 2; k < argc; ++k) {
        const char *a = argv[k];
        const int has_value = k + 1 < argc;
        if (strcmp(a, "--ecc") == 0 && has_value) {
            if (!parse_double(a, argv[++k], 0.0, 0.95, &ecc))
                return NB_EXIT_ERROR;
        } else if (strcmp(a, "--steps") == 0 && has_value) {
            if (!parse_steps(argv[++k], &steps))
                return NB_EXIT_ERROR;
        } else if (init && strcmp(a, "-o") == 0 && has_value) {
            out = argv[++k];
        } else if (!init && strcmp(a, "--label") == 0 && has_value) {
            label = argv[++k];
            if (strpbrk(label, ",\"\r\n"))
                return usage_error("--label: no commas, quotes or line breaks");
        } else if (!init && a[0] != '-' && !final_path) {
            final_path = a;
        } else {
            nb_error("%s: unknown, incomplete or repeated argument for kepler %s (try --help)", a, cmd);
            return NB_EXIT_ERROR;
        }
    }
    if (ecc < 0.0 || steps == 0)
        return usage_error("--ecc and --steps are required");
    const double dt = 2.0 * PI / (double)steps;

    double x[2][3], v[2][3], a[2][3];
    exact_start(ecc, x, v);
    accel(x, a);
    for (int b = 0; b < 2; ++b) /* back half a kick: v(-dt/2) to second order */
        for (int k = 0; k < 3; ++k)
            v[b][k] -= 0.5 * dt * a[b][k];
    nb_state64 s;
    if (nb_state64_alloc(&s, 1, 2) != NB_EXIT_OK)
        return NB_EXIT_ERROR;
    to_state(&s, x, v);

    if (init) {
        if (!out)
            return usage_error("init needs -o FILE");
        const int rc = nb_snapshot_write64(out, &s, 0.0, dt);
        nb_state64_free(&s);
        return rc;
    }

    if (!final_path)
        return usage_error("compare needs the FINAL snapshot");
    nb_state64 fin;
    nb_snapshot_info info;
    if (nb_snapshot_read64(final_path, &fin, &info) != NB_EXIT_OK)
        return NB_EXIT_ERROR;
    if (info.systems != 1 || info.bodies != 2) {
        nb_error("%s: %llu systems of %llu bodies, not one system of two", final_path,
                 (unsigned long long)info.systems, (unsigned long long)info.bodies);
        return NB_EXIT_ERROR;
    }
    if (fabs(info.dt - dt) > 1e-12 * dt) {
        nb_error("%s: dt = %.17g, but --steps %llu means dt = %.17g: not the run asked about", final_path, info.dt,
                 steps, dt);
        return NB_EXIT_ERROR;
    }
    double step_err[3], ref_err[3];
    errors(&fin, ecc, dt, step_err);
    if (nb_ref_run(&s, steps, dt, 0.0) != NB_EXIT_OK)
        return NB_EXIT_ERROR;
    errors(&s, ecc, dt, ref_err);
    printf("%s,%.4g,%llu,%.9g,%.6e,%.6e,%.6e,%.6e,%.6e,%.6e\n", label, ecc, steps, dt, step_err[0], step_err[1],
           step_err[2], ref_err[0], ref_err[1], ref_err[2]);
    nb_state64_free(&fin);
    nb_state64_free(&s);
    return NB_EXIT_OK;
}
