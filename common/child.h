/* child.h: what a program the lab starts is given, in the child between fork and exec: descriptors 0, 1
 * and 2 alone, and limits on what it may take. The judge starts workers so (worker_call.c) and the
 * grader starts builds and judges so (grading/proc.c): nothing either opened crosses into a step's code. */
#ifndef NB_CHILD_H
#define NB_CHILD_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Closes every descriptor from 3 up (close_range, else one by one). Call it after the dup2s onto 0-2. */
void nb_child_close_fds(void);

/* Limits for one child; 0 leaves a limit as it is. Each is a hard and soft rlimit, so the child cannot
 * raise it: cpu_s (RLIMIT_CPU: SIGXCPU), file_bytes (RLIMIT_FSIZE: SIGXFSZ, a write past it fails),
 * address_bytes (RLIMIT_AS: an allocation past it fails; not for CUDA programs, which reserve far more
 * address space than they use). No RLIMIT_NPROC: it counts every process of the user, and binds no root
 * (a control group bounds the tasks, below). */
typedef struct nb_child_limits {
    uint64_t cpu_s, file_bytes, address_bytes;
    unsigned cpus;       /* the CPUs it may run on (sched_setaffinity: the first `cpus` it has), 0: all */
    unsigned cpus_locked; /* and it cannot set its affinity again (seccomp: sched_setaffinity fails) */
} nb_child_limits;
void nb_child_apply_limits(const nb_child_limits *limits);

/* The limit a child's status says it ran into, as words for its FAIL line ("its CPU-time limit of 40 s"),
 * or NULL when the status is not such an end. `status` is waitpid's; a signal reported as exit 128 + n
 * (bubblewrap, mpirun, a shell) counts too. */
const char *nb_child_limit_hit(int status, const nb_child_limits *limits, char *buf, unsigned long len);

/* A control group of its own for one child, where the machine lets this process make one (cgroup v2,
 * or v1's pids and memory hierarchies, under this process's own groups): a bound on its tasks (a fork
 * bomb) and on its memory that no rlimit gives a CUDA program or root. Made empty by the parent, joined
 * by the child before exec, read and removed by the parent after the child ended. */
typedef struct nb_cgroup {
    char pids[512], memory[512]; /* the group's folders ("" where none could be made; one folder on v2) */
    uint64_t tasks, memory_bytes;
    int v2;
} nb_cgroup;
/* 1 if any limit was set (the folders made), 0 where no cgroup can be made here (nothing is said). */
int nb_cgroup_make(nb_cgroup *cg, const char *name, uint64_t tasks, uint64_t memory_bytes);
void nb_cgroup_join(const nb_cgroup *cg);
/* Which of its limits the group ran into ("its memory limit of 4 GiB"), or NULL. */
const char *nb_cgroup_limit_hit(const nb_cgroup *cg, char *buf, unsigned long len);
/* Kills what is left in it and removes it. Safe on a group never made. */
void nb_cgroup_remove(nb_cgroup *cg);

#ifdef __cplusplus
}
#endif
#endif
