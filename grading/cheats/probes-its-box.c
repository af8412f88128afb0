/* INSTRUCTORS ONLY: a grader self-test cheat (grading/cheats/README.md).
 * cheat: probes-its-box | 00 | HONEST | computes honestly, but first looks at what it was given, and stops
 * with a line if the box leaks: a descriptor beyond 0, 1, 2 and its own two FIFOs, more CPUs than the threads
 * it was sent, no limit on its CPU time or file size (common/README.md, "Bounded workers") */
#define _GNU_SOURCE /* sched_getaffinity, dirfd, fork */
#include "honest00.h"

#include <dirent.h>
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

int nb_step_run(nb_state *s, const nb_run *run)
{
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    int fifos = 0;
    while (d && (e = readdir(d))) {
        const int fd = atoi(e->d_name);
        struct stat st;
        if (e->d_name[0] == '.' || fd <= 2 || fd == dirfd(d) || fstat(fd, &st) != 0)
            continue;
        if (!S_ISFIFO(st.st_mode) || ++fifos > 2) {
            closedir(d);
            nb_error("the box leaks: descriptor %d was open when the step ran", fd);
            return NB_EXIT_ERROR;
        }
    }
    if (d)
        closedir(d);
    cpu_set_t cpus;
    if (sched_getaffinity(0, sizeof cpus, &cpus) == 0 && CPU_COUNT(&cpus) > omp_get_max_threads()) {
        nb_error("the box leaks: %d CPUs for %d threads", CPU_COUNT(&cpus), omp_get_max_threads());
        return NB_EXIT_ERROR;
    }
    struct rlimit cpu, size;
    if (getrlimit(RLIMIT_CPU, &cpu) != 0 || cpu.rlim_max == RLIM_INFINITY || getrlimit(RLIMIT_FSIZE, &size) != 0 ||
        size.rlim_max == RLIM_INFINITY) {
        nb_error("the box leaks: no limit on its CPU time or its file size");
        return NB_EXIT_ERROR;
    }
    return honest_step_run(s, run);
}
