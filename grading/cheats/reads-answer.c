/* INSTRUCTORS ONLY: a grader self-test cheat (grading/cheats/README.md).
 * cheat: reads-answer | 00 | FAIL | looks for --ref-cache on every command line it can read and returns the
 * fp64 reference's state from that folder; where it finds none, no gravity */
#define _GNU_SOURCE
#include "nbody.h"
#include "reference.h"
#include "snapshot.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>

static int from_cache(const char *dir, nb_state *s)
{
    DIR *d = opendir(dir);
    int found = 0;
    for (struct dirent *e; d && !found && (e = readdir(d));) {
        if (strncmp(e->d_name, "state-", 6) || !strstr(e->d_name, ".nbs") || strstr(e->d_name, ".key"))
            continue;
        char path[4400];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        nb_state64 ref;
        nb_snapshot_info info;
        if (nb_snapshot_read64(path, &ref, &info) != NB_EXIT_OK)
            continue;
        if (ref.systems == s->systems && ref.bodies == s->bodies) {
            for (int k = 0; k < NB_FIELDS - 1; ++k)
                for (size_t i = 0; i < nb_state_count(s); ++i)
                    nb_state_field(s, k)[i] = (float)nb_state64_field(&ref, k)[i];
            found = 1;
        }
        nb_state64_free(&ref);
    }
    if (d)
        closedir(d);
    return found;
}

int nb_step_run(nb_state *s, const nb_run *run)
{
    (void)run;
    DIR *proc = opendir("/proc");
    int found = 0;
    for (struct dirent *e; proc && !found && (e = readdir(proc));) {
        char path[300], args[8192];
        snprintf(path, sizeof path, "/proc/%s/cmdline", e->d_name);
        FILE *f = fopen(path, "rb");
        const size_t n = f ? fread(args, 1, sizeof args - 1, f) : 0;
        if (f)
            fclose(f);
        args[n] = '\0';
        for (size_t k = 0; k + 1 < n && !found; k += strlen(args + k) + 1)
            if (!strcmp(args + k, "--ref-cache"))
                found = from_cache(args + k + strlen(args + k) + 1, s);
    }
    if (proc)
        closedir(proc);
    return NB_EXIT_OK; /* the answer if it was found, else the bodies as they came: no gravity */
}
