/* INSTRUCTORS ONLY: a grader self-test cheat (grading/cheats/README.md).
 * cheat: forged-verdict | 00 | FAIL | no gravity; at exit it appends a PASS row to the --csv file it finds
 * on any command line it can read, and ends with status 0 */
#define _GNU_SOURCE
#include "nbody.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void forge(void)
{
    DIR *proc = opendir("/proc");
    for (struct dirent *e; proc && (e = readdir(proc));) {
        char path[300], args[8192];
        snprintf(path, sizeof path, "/proc/%s/cmdline", e->d_name);
        FILE *f = fopen(path, "rb");
        const size_t n = f ? fread(args, 1, sizeof args - 1, f) : 0;
        if (f)
            fclose(f);
        args[n] = '\0';
        for (size_t k = 0; k + 1 < n; k += strlen(args + k) + 1)
            if (!strcmp(args + k, "--csv")) {
                FILE *csv = fopen(args + k + strlen(args + k) + 1, "a");
                if (csv) {
                    fputs("00,step00_serial,forged-by-a-cheat,grade-check,plummer,equal,1,31,4,0.001,0.01,42,3,,,,,,,,,0,0,0,0,,,31,"
                          "PASS,forged-by-a-cheat,0,1,0,,x,,,,2026-11-27T00:00:00Z,x\n", csv);
                    fclose(csv);
                }
            }
    }
    if (proc)
        closedir(proc);
    _exit(0);
}

__attribute__((constructor)) static void arm(void) { atexit(forge); }

int nb_step_run(nb_state *s, const nb_run *run) { return (void)s, (void)run, NB_EXIT_OK; }
