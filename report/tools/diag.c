/* diag.c: energy, momentum and virial ratio of a run, read from its snapshot files, as CSV.
 *
 *   diag [--label TEXT] [--no-header] SNAP...
 *
 * One row per snapshot, in the order given; errors and drifts are relative to the first file.
 * The snapshots hold x at t and v at t - dt/2 (kick-drift leapfrog: see common/README.md), so the
 * energy is taken with velocities synchronised by half a kick, v(t) = v + a(x) dt/2, in fp64;
 * energy_raw is the same sum with the stored half-step velocities, to show why that matters.
 * Built with DIAG_GPU (build/tools/diag-gpu, where nvcc is) the pair sums run on the GPU, with the same bits
 * (report/tools/pairs_gpu.cu): the same table, for a million bodies in seconds instead of minutes.
 * Exit status: 0, or 2 after one line on stderr (unreadable or mismatched snapshots, bad options). */
#define _POSIX_C_SOURCE 200809L
#include "nbody.h"
#include "reference.h"
#include "snapshot.h"
#include "util.h"
#ifdef DIAG_GPU
#include "pairs_gpu.h"
#define ACCEL_POTENTIAL nb_gpu_accel_potential
#define DIAG_NAME "diag-gpu"
#else
#define ACCEL_POTENTIAL nb_ref_accel_potential
#define DIAG_NAME "diag"
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const header =
    "label,step,time,dt,eps,systems,bodies,kinetic,potential,energy,rel_energy_error,virial_ratio,"
    "momentum_drift,angular_momentum_drift,energy_raw,rel_energy_error_raw";

typedef struct sums {
    nb_diag sync, raw;
    double p_scale, l_scale; /* sum m|v| and sum m|x||v|: what a drift is measured against */
} sums;

static double norm3(const double *v) { return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }

static double dist3(const double *a, const double *b)
{
    const double d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
    return norm3(d);
}

static int measure(const char *path, sums *out, nb_snapshot_info *info)
{
    nb_state64 s;
    if (nb_snapshot_read64(path, &s, info) != NB_EXIT_OK)
        return NB_EXIT_ERROR;
    const double eps2 = info->eps * info->eps;
    const size_t total = s.systems * s.bodies;

    /* One pass of pair sums gives both the accelerations, for the half kick, and the potential energy, which
     * the kick leaves as it is (it moves no body). */
    double *acc = (double *)nb_malloc(3 * (total ? total : 1) * sizeof(double), "the fp64 accelerations");
    double potential = 0.0;
    if (!acc || ACCEL_POTENTIAL(&s, eps2, acc, acc + total, acc + 2 * total, &potential) != NB_EXIT_OK) {
        free(acc);
        nb_state64_free(&s);
        return NB_EXIT_ERROR;
    }

    /* Momentum, angular momentum and the raw energy from the stored (half-step) velocities. */
    nb_diagnostics_with_potential(&s, potential, &out->raw);
    out->p_scale = out->l_scale = 0.0;
    for (size_t i = 0; i < total; ++i) {
        const double v = sqrt(s.vx[i] * s.vx[i] + s.vy[i] * s.vy[i] + s.vz[i] * s.vz[i]);
        const double r = sqrt(s.x[i] * s.x[i] + s.y[i] * s.y[i] + s.z[i] * s.z[i]);
        out->p_scale += s.m[i] * v;
        out->l_scale += s.m[i] * r * v;
    }

    /* Half a kick brings the velocities to the positions' time. */
    nb_ref_kick_by(&s, acc, 0.5 * info->dt);
    free(acc);
    nb_diagnostics_with_potential(&s, potential, &out->sync);
    nb_state64_free(&s);
    return NB_EXIT_OK;
}

static int valid_label(const char *s)
{
    for (const char *p = s; *p; ++p)
        if (*p == ',' || *p == '"' || *p == '\n' || *p == '\r')
            return 0;
    return 1;
}

int main(int argc, char **argv)
{
    nb_set_progname(DIAG_NAME);
    const char *label = "";
    int print_header = 1, first_file = argc;
    for (int k = 1; k < argc; ++k) {
        if (strcmp(argv[k], "--label") == 0 && k + 1 < argc) {
            label = argv[++k];
            if (!valid_label(label)) {
                nb_error("--label %s: no commas, quotes or line breaks (it goes into a CSV field)", label);
                return NB_EXIT_ERROR;
            }
        } else if (strcmp(argv[k], "--no-header") == 0) {
            print_header = 0;
        } else if (strcmp(argv[k], "-h") == 0 || strcmp(argv[k], "--help") == 0) {
            printf("usage: " DIAG_NAME " [--label TEXT] [--no-header] SNAP...\n"
                   "Energy (velocities synchronised by half a kick), momentum and virial ratio of each\n"
                   "snapshot as CSV on stdout; errors and drifts relative to the first snapshot.\n");
            return NB_EXIT_OK;
        } else if (argv[k][0] == '-' && argv[k][1] != '\0') {
            nb_error("unknown or incomplete option %s (try --help)", argv[k]);
            return NB_EXIT_ERROR;
        } else {
            first_file = k;
            break;
        }
    }
    if (first_file >= argc) {
        nb_error("no snapshot files given (usage: " DIAG_NAME " [--label TEXT] [--no-header] SNAP...)");
        return NB_EXIT_ERROR;
    }

    /* Every row is computed before any is printed: a bad file leaves no partial table. */
    const int files = argc - first_file;
    sums *all = (sums *)nb_malloc((size_t)files * sizeof(sums), "the diagnostics");
    nb_snapshot_info *info = (nb_snapshot_info *)nb_malloc((size_t)files * sizeof *info, "the diagnostics");
    if (!all || !info)
        return NB_EXIT_ERROR;
    for (int f = 0; f < files; ++f) {
        const char *path = argv[first_file + f];
        if (measure(path, &all[f], &info[f]) != NB_EXIT_OK)
            return NB_EXIT_ERROR;
        if (info[f].systems != info[0].systems || info[f].bodies != info[0].bodies) {
            nb_error("%s: %llu systems of %llu bodies, but %s has %llu of %llu: not one run", path,
                     (unsigned long long)info[f].systems, (unsigned long long)info[f].bodies, argv[first_file],
                     (unsigned long long)info[0].systems, (unsigned long long)info[0].bodies);
            return NB_EXIT_ERROR;
        }
    }

    if (print_header)
        printf("%s\n", header);
    const nb_diag *e0 = &all[0].sync, *r0 = &all[0].raw;
    for (int f = 0; f < files; ++f) {
        const nb_diag *d = &all[f].sync, *r = &all[f].raw;
        const double rel = e0->energy != 0.0 ? (d->energy - e0->energy) / fabs(e0->energy) : 0.0;
        const double rel_raw = r0->energy != 0.0 ? (r->energy - r0->energy) / fabs(r0->energy) : 0.0;
        const double dp = all[0].p_scale > 0.0 ? dist3(r->momentum, r0->momentum) / all[0].p_scale : 0.0;
        const double dl = all[0].l_scale > 0.0 ? dist3(r->angular, r0->angular) / all[0].l_scale : 0.0;
        printf("%s,%llu,%.9g,%.9g,%.9g,%llu,%llu,%.12g,%.12g,%.12g,%.6e,%.9g,%.6e,%.6e,%.12g,%.6e\n", label,
               (unsigned long long)info[f].step, info[f].time, info[f].dt, info[f].eps,
               (unsigned long long)info[f].systems, (unsigned long long)info[f].bodies, d->kinetic, d->potential,
               d->energy, rel, d->virial_ratio, dp, dl, r->energy, rel_raw);
    }
    free(all);
    free(info);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        nb_error("cannot write the table");
        return NB_EXIT_ERROR;
    }
    return NB_EXIT_OK;
}
