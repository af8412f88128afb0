/* snap2txt.c: the positions in snapshot files as text, for gnuplot.
 *
 *   snap2txt [--every M] SNAP...
 *
 * For each file: a comment line "# step K time T bodies N systems S", then one line per body,
 * "x y z half" (half: 0 for the first half of a system's bodies, 1 for the second, which tells the
 * two spheres of --model collision apart), every M-th body of every system; files are separated by
 * two blank lines, so gnuplot's `index k` picks the k-th file.
 * Exit status: 0, or 2 after one line on stderr. Nothing is printed before every file has been read. */
#define _POSIX_C_SOURCE 200809L
#include "nbody.h"
#include "snapshot.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parse_count(const char *text, unsigned long long *out)
{
    char *end;
    errno = 0;
    const unsigned long long v = strtoull(text, &end, 10);
    if (errno || end == text || *end != '\0' || text[0] == '-' || v == 0)
        return 0;
    *out = v;
    return 1;
}

int main(int argc, char **argv)
{
    nb_set_progname("snap2txt");
    unsigned long long every = 1;
    int first_file = argc;
    for (int k = 1; k < argc; ++k) {
        if (strcmp(argv[k], "--every") == 0 && k + 1 < argc) {
            if (!parse_count(argv[++k], &every)) {
                nb_error("--every %s: expected a whole number >= 1", argv[k]);
                return NB_EXIT_ERROR;
            }
        } else if (strcmp(argv[k], "-h") == 0 || strcmp(argv[k], "--help") == 0) {
            printf("usage: snap2txt [--every M] SNAP...\n"
                   "Positions as text: \"x y z half\" per body (every M-th), one block per file.\n");
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
        nb_error("no snapshot files given (usage: snap2txt [--every M] SNAP...)");
        return NB_EXIT_ERROR;
    }

    /* Check every file first: a bad one must not leave half a table behind. */
    for (int f = first_file; f < argc; ++f) {
        nb_state s;
        nb_snapshot_info info;
        if (nb_snapshot_read(argv[f], &s, &info) != NB_EXIT_OK)
            return NB_EXIT_ERROR;
        nb_state_free(&s);
    }
    for (int f = first_file; f < argc; ++f) {
        nb_state s;
        nb_snapshot_info info;
        if (nb_snapshot_read(argv[f], &s, &info) != NB_EXIT_OK)
            return NB_EXIT_ERROR;
        if (f > first_file)
            printf("\n\n");
        printf("# step %llu time %.6g bodies %llu systems %llu\n", (unsigned long long)info.step, info.time,
               (unsigned long long)info.bodies, (unsigned long long)info.systems);
        const size_t n = s.bodies;
        for (size_t sys = 0; sys < s.systems; ++sys)
            for (size_t i = 0; i < n; i += every) {
                const size_t b = sys * n + i;
                printf("%.5g %.5g %.5g %d\n", s.x[b], s.y[b], s.z[b], 2 * i >= n);
            }
        nb_state_free(&s);
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        nb_error("cannot write the text");
        return NB_EXIT_ERROR;
    }
    return NB_EXIT_OK;
}
