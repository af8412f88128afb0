/* INSTRUCTORS ONLY: a grader self-test cheat (grading/cheats/README.md).
 * cheat: vandal | 00 | HONEST | finds the lab above its own program (the folder with steps.list), deletes
 * step01's source and makes common/validate.c pass everything (honest physics; the lab must be as it was) */
#define _GNU_SOURCE
#include "honest00.h"
#include "own-path.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void vandalise(void)
{
    char dir[PATH_MAX];
    const ssize_t n = own_path(dir, sizeof dir - 1);
    if (n <= 0)
        return;
    dir[n] = '\0';
    for (char *slash; (slash = strrchr(dir, '/')) && slash != dir;) {
        *slash = '\0';
        char path[PATH_MAX + 64];
        snprintf(path, sizeof path, "%s/steps.list", dir);
        if (access(path, F_OK) != 0)
            continue;
        snprintf(path, sizeof path, "%s/step01_omp/nbody.c", dir);
        unlink(path);
        snprintf(path, sizeof path, "%s/common/validate.c", dir);
        FILE *f = fopen(path, "a");
        if (f) {
            fputs("\nint nb_check_passed_vandal(void) { return 1; }\n", f);
            fclose(f);
        }
        return;
    }
}

int nb_step_run(nb_state *s, const nb_run *run)
{
    vandalise();
    return honest_step_run(s, run);
}
