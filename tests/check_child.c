/* check_child.c: a started program's limits (common/child.h) hold against the program itself, and its
 * sandbox binds the device files of the GPUs it is given alone (common/worker_call.h). */
#define _GNU_SOURCE /* sched_setaffinity, CPU_* */
#include "child.h"
#include "testlib.h"
#include "worker_call.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
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

/* A four-GPU machine's /dev/nvidia*, as glob sorts them (nvidia10: not minor 1's). */
static const char *const four[] = {"/dev/nvidia-caps", "/dev/nvidia-modeset", "/dev/nvidia-uvm",
                                   "/dev/nvidia-uvm-tools", "/dev/nvidia0", "/dev/nvidia1", "/dev/nvidia10",
                                   "/dev/nvidia2", "/dev/nvidiactl"};
#define FOUR (sizeof four / sizeof four[0])

/* The files kept of `four` for minors[0..count), joined by spaces. */
static const char *kept_of(const unsigned *minors, size_t count)
{
    static char joined[512];
    const char *keep[FOUR];
    const size_t n = nb_sandbox_gpu_files(four, FOUR, minors, count, keep);
    joined[0] = '\0';
    for (size_t k = 0; k < n; ++k)
        snprintf(joined + strlen(joined), sizeof joined - strlen(joined), "%s%s", k ? " " : "", keep[k]);
    return joined;
}

#define CONTROL "/dev/nvidia-caps /dev/nvidia-modeset /dev/nvidia-uvm /dev/nvidia-uvm-tools"

START_TEST(one_gpu_machine_binds_all) /* its one GPU given: every file, as before any were picked */
{
    const char *const one[] = {"/dev/nvidia-caps", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools", "/dev/nvidia0",
                               "/dev/nvidiactl"};
    const char *keep[5];
    const unsigned minor = 0;
    ck_assert_uint_eq(nb_sandbox_gpu_files(one, 5, &minor, 1, keep), 5);
    for (int k = 0; k < 5; ++k)
        ck_assert_str_eq(keep[k], one[k]);
}
END_TEST

START_TEST(given_gpu_alone)
{
    const unsigned two = 2, one = 1, ten = 10;
    ck_assert_str_eq(kept_of(&two, 1), CONTROL " /dev/nvidia2 /dev/nvidiactl");
    ck_assert_str_eq(kept_of(&one, 1), CONTROL " /dev/nvidia1 /dev/nvidiactl");
    ck_assert_str_eq(kept_of(&ten, 1), CONTROL " /dev/nvidia10 /dev/nvidiactl");
}
END_TEST

START_TEST(given_gpus_in_the_files_order)
{
    const unsigned some[] = {2, 0};
    ck_assert_str_eq(kept_of(some, 2), CONTROL " /dev/nvidia0 /dev/nvidia2 /dev/nvidiactl");
}
END_TEST

START_TEST(unknown_gpus_bind_all) /* NVML could not say which: every file, as the driver has them */
{
    ck_assert_str_eq(kept_of(NULL, 0), CONTROL " /dev/nvidia0 /dev/nvidia1 /dev/nvidia10 /dev/nvidia2 /dev/nvidiactl");
}
END_TEST

START_TEST(no_gpu_given_binds_none) /* a CPU step: the control files, no GPU's */
{
    const unsigned none = 0;
    ck_assert_str_eq(kept_of(&none, 0), CONTROL " /dev/nvidiactl");
    const unsigned gone = 7; /* a minor with no file: nothing of it, nothing else */
    ck_assert_str_eq(kept_of(&gone, 1), CONTROL " /dev/nvidiactl");
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
    TCase *devices = nbt_tcase(s, "gpu device files", 10);
    tcase_add_test(devices, one_gpu_machine_binds_all);
    tcase_add_test(devices, given_gpu_alone);
    tcase_add_test(devices, given_gpus_in_the_files_order);
    tcase_add_test(devices, unknown_gpus_bind_all);
    tcase_add_test(devices, no_gpu_given_binds_none);
    return nbt_run(s, CK_FORK);
}
