# mpi-launch.sh: sourced by report/sweeps/mpi.sh and report/sweeps/multigpu.sh. mpirun_np NP prints the mpirun words that
# start NP ranks here, as the grader launches a step (grading/registry.c, launch_argv).
mpirun_np() {
    local np=$1
    printf 'mpirun -np %s' "$np"
    [ "$(id -u)" = 0 ] && printf ' --allow-run-as-root'
    [ "$(nproc)" -lt "$np" ] && printf ' --oversubscribe'
}
