/* INSTRUCTORS ONLY: the grader's self-test cheats (grading/cheats/README.md).
 * own-path.h: where a cheat's program was built, as a student knows where their own lab is: the self-test
 * says so at build time (CHEAT_PROGRAM); /proc/self/exe shows the sandbox's one path for every build. */
#include <stdio.h>
#include <sys/types.h>
#include <unistd.h>

static inline ssize_t own_path(char *dir, size_t len)
{
#ifdef CHEAT_PROGRAM
    const int n = snprintf(dir, len, "%s", CHEAT_PROGRAM);
    return n > 0 && (size_t)n < len ? n : -1;
#else
    return readlink("/proc/self/exe", dir, len);
#endif
}
