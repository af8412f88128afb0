/* check_child.c: a started program's limits (common/child.h) hold against the program itself. */
#define _GNU_SOURCE /* sched_setaffinity, CPU_* */
#include "child.h"
#include "testlib.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

/* In a child with `limits` applied: 0 if sched_setaffinity to the first CPU it had succeeds, else errno. */
static int widen_in_child(const nb_child_limits *limits)
{
    cpu_set_t had;
    ck_assert_int_eq(sched_getaffinity(0, sizeof had, &had), 0);
    const pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        nb_child_apply_limits(limits);
        _exit(sched_setaffinity(0, sizeof had, &had) == 0 ? 0 : errno);
    }
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert(WIFEXITED(status));
    return WEXITSTATUS(status);
}

START_TEST(locked_cpus_stay)
{
    const nb_child_limits locked = {.cpus = 1, .cpus_locked = 1};
    ck_assert_int_eq(widen_in_child(&locked), EPERM);
}
END_TEST

START_TEST(unlocked_cpus_may_change) /* the control: the refusal above is the lock's */
{
    const nb_child_limits open = {.cpus = 1};
    ck_assert_int_eq(widen_in_child(&open), 0);
}
END_TEST

START_TEST(cpu_limit_is_named) /* at soft == hard the kernel sends SIGKILL, which names nothing */
{
    const nb_child_limits limits = {.cpu_s = 1};
    const pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        nb_child_apply_limits(&limits);
        for (volatile unsigned long spin = 0;; ++spin)
            ;
    }
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGXCPU, "ended by signal %d, not SIGXCPU",
                  WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    char why[64];
    ck_assert_ptr_nonnull(nb_child_limit_hit(status, &limits, why, sizeof why));
    ck_assert_str_eq(why, "its CPU-time limit of 1 s");
}
END_TEST

START_TEST(only_three_descriptors_cross)
{
    const int fd = open("/dev/null", O_RDONLY); /* not close-on-exec: what a careless parent leaks */
    ck_assert_int_ge(fd, 3);
    const pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        nb_child_close_fds();
        _exit(fcntl(fd, F_GETFD) == -1 && errno == EBADF ? 0 : 1);
    }
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    close(fd);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "descriptor %d reached the child", fd);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("child");
    TCase *limits = nbt_tcase(s, "limits", 30);
    tcase_add_test(limits, locked_cpus_stay);
    tcase_add_test(limits, unlocked_cpus_may_change);
    tcase_add_test(limits, cpu_limit_is_named);
    tcase_add_test(limits, only_three_descriptors_cross);
    return nbt_run(s, CK_FORK);
}
