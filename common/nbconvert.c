/* nbconvert.c: a state file of any of the lab's three formats (formats.h: the lab's .nbs snapshot,
 * tipsy, GADGET/SWIFT HDF5), read by its content, written as any of them.
 *
 *   build/tools/nbconvert --to tipsy|hdf5|nbs [--system K] [--eps EPS] [--dt DT] [-q] IN OUT
 *
 * Bad input: one line on stderr, exit status 2. The bodies' values pass unchanged (float32, velocities as
 * the file holds them: common/README.md, "Other file formats"). */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "formats.h"
#include "nbody.h"
#include "util.h"

#include <float.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

/* The lab's default softening (cli.c), written where the input records none and --eps gives none. */
#define DEFAULT_EPS 0.01

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: nbconvert --to FORMAT [OPTION]... IN OUT\n"
            "Writes the state in IN (a lab snapshot, tipsy or GADGET/SWIFT HDF5 file, told apart by its\n"
            "content) to OUT as FORMAT: %s. Positions, velocities and masses pass bit for bit.\n"
            "  --to FORMAT   the format of OUT\n"
            "  --system K    write only system K (0-based) of a file of several; tipsy and hdf5 hold one\n"
            "  --eps EPS     the softening to record (default: IN's, else %g)\n"
            "  --dt DT       the time step to record (default: IN's, else none)\n"
            "  -q, --quiet   print only errors\n"
            "Exit status: 0 written, 2 bad input (one line on stderr).\n",
            NB_FORMAT_NAMES, DEFAULT_EPS);
}

typedef struct convert_args {
    const char *in, *out, *to;
    uint64_t system;
    int system_set, quiet;
    double eps, dt; /* < 0: not given */
} convert_args;

static int parse(int argc, char **argv, convert_args *a)
{
    static const struct option longopts[] = {
        {"to", required_argument, 0, 't'},     {"system", required_argument, 0, 's'},
        {"eps", required_argument, 0, 'e'},    {"dt", required_argument, 0, 'd'},
        {"quiet", no_argument, 0, 'q'},        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":qh", longopts, NULL)) != -1) {
        int rc = NB_EXIT_OK;
        switch (c) {
        case 't': a->to = optarg; break;
        case 's':
            rc = nb_parse_u64(optarg, "--system", 0, NB_MAX_TOTAL_BODIES, &a->system);
            a->system_set = 1;
            break;
        case 'e': rc = nb_parse_double(optarg, "--eps", 0.0, 1e6, 1, &a->eps); break;
        case 'd': rc = nb_parse_double(optarg, "--dt", 0.0, 1e6, 0, &a->dt); break;
        case 'q': a->quiet = 1; break;
        case 'h': usage(stdout); return NB_EXIT_OK;
        case ':': nb_error("option %s needs a value", argv[optind - 1]); return NB_EXIT_ERROR;
        default: nb_error("unknown option '%s' (nbconvert --help lists them)", argv[optind - 1]); return NB_EXIT_ERROR;
        }
        if (rc != NB_EXIT_OK)
            return rc;
    }
    if (!a->to) {
        nb_error("--to FORMAT is missing: %s", NB_FORMAT_NAMES);
        return NB_EXIT_ERROR;
    }
    if (argc - optind != 2) {
        nb_error("want two files, IN and OUT, got %d (nbconvert --help)", argc - optind);
        return NB_EXIT_ERROR;
    }
    a->in = argv[optind];
    a->out = argv[optind + 1];
    return -1;
}

/* System k of s alone, moved into s. */
static int pick_system(nb_state *s, size_t k, const char *path)
{
    if (k >= s->systems) {
        nb_error("--system %zu: %s has %zu systems (0 ... %zu)", k, path, s->systems, s->systems - 1);
        return NB_EXIT_ERROR;
    }
    nb_state one;
    if (nb_state_alloc(&one, 1, s->bodies) != NB_EXIT_OK)
        return NB_EXIT_ERROR;
    for (int f = 0; f < NB_FIELDS; ++f)
        memcpy(nb_state_field(&one, f), nb_state_field(s, f) + k * s->bodies, s->bodies * sizeof(float));
    one.step = s->step;
    one.time = s->time;
    nb_state_free(s);
    *s = one;
    return NB_EXIT_OK;
}

int main(int argc, char **argv)
{
    nb_set_progname("nbconvert");
    convert_args a = {0};
    a.eps = a.dt = -1.0;
    int rc = parse(argc, argv, &a);
    if (rc >= 0)
        return rc;
    nb_format to, from;
    if (nb_format_parse(a.to, "--to", &to) != NB_EXIT_OK || nb_output_check(a.out) != NB_EXIT_OK)
        return NB_EXIT_ERROR;
    nb_state s;
    nb_snapshot_info info;
    if (nb_format_read(a.in, &s, &info, &from) != NB_EXIT_OK)
        return NB_EXIT_ERROR;
    const size_t systems = s.systems;
    if (a.system_set && (rc = pick_system(&s, (size_t)a.system, a.in)) != NB_EXIT_OK) {
        nb_state_free(&s);
        return rc;
    }
    const double eps = a.eps >= 0.0 ? a.eps : info.eps >= 0.0 ? info.eps : DEFAULT_EPS;
    const double dt = a.dt > 0.0 ? a.dt : info.dt;
    rc = nb_format_check(to, s.systems, a.out);
    if (rc == NB_EXIT_OK)
        rc = nb_format_write(to, a.out, &s, eps, dt);
    if (rc == NB_EXIT_OK && !a.quiet)
        printf("%s (%s, %zu system%s of %zu bodies) -> %s (%s%s)\n", a.in, nb_format_name(from), systems,
               systems == 1 ? "" : "s", s.bodies, a.out, nb_format_name(to),
               a.system_set ? ", one system" : "");
    nb_state_free(&s);
    return rc;
}
