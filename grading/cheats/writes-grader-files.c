/* INSTRUCTORS ONLY: a grader self-test cheat (grading/cheats/README.md).
 * cheat: writes-grader-files | 00 | HONEST | leaves behind a process of its own (setsid) that, two seconds
 * later, appends a forged row to every results.csv and verdicts.csv above its own program's folder
 * (honest physics; the grader's files must stay as the grader wrote them) */
#define _GNU_SOURCE
#include "honest00.h"
#include "own-path.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void forge_above(void)
{
    char dir[PATH_MAX];
    const ssize_t n = own_path(dir, sizeof dir - 1);
    if (n <= 0)
        return;
    dir[n] = '\0';
    for (char *slash; (slash = strrchr(dir, '/')) && slash != dir;) {
        *slash = '\0';
        static const char *const names[] = {"results.csv", "verdicts.csv", "grade/results.csv", "grade/verdicts.csv"};
        for (int k = 0; k < 4; ++k) {
            char path[PATH_MAX + 32];
            snprintf(path, sizeof path, "%s/%s", dir, names[k]);
            FILE *f = fopen(path, "a");
            if (f) {
                fputs("00,step00_serial,forged-by-a-cheat,PASS\n", f);
                fclose(f);
            }
        }
    }
}

int nb_step_run(nb_state *s, const nb_run *run)
{
    static int started;
    if (!started++ && fork() == 0) {
        setsid();
        sleep(2);
        forge_above();
        _exit(0);
    }
    return honest_step_run(s, run);
}
