/* INSTRUCTORS ONLY: a grader self-test cheat (grading/cheats/README.md).
 * cheat: inherited-fds | 00 | NOGAIN | looks for descriptors it was started with that are open for writing on
 * a regular file (the grader's checks.csv was one, through the judge) and writes a forged PASS row into each */
#include "honest00.h"

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int nb_step_run(nb_state *s, const nb_run *run)
{
    static const char row[] = "\n00,step00_serial,forged-by-a-cheat,PASS\n";
    for (int fd = 3; fd < 1024; ++fd) {
        struct stat st;
        const int flags = fcntl(fd, F_GETFL);
        if (flags >= 0 && (flags & O_ACCMODE) != O_RDONLY && fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
            for (int k = 0; k < 58; ++k)
                if (write(fd, row, sizeof row - 1) < 0)
                    break;
    }
    return honest_step_run(s, run);
}
