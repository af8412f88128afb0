# mpi-launch.sh: sourced by report/sweeps/mpi.sh and report/sweeps/multigpu.sh.
# ranks NP: the words that make an mpi:R step's judge start its worker as NP ranks (it runs mpirun itself:
# common/README.md, "The judge and the worker"); mpirun_np NP: the mpirun words for a program that is no
# step (the exchange's test program), as the judge launches a worker (common/worker_call.c).
ranks() { printf -- '--ranks %s' "$1"; }
mpirun_np() {
    local np=$1
    printf 'mpirun -np %s' "$np"
    [ "$(id -u)" = 0 ] && printf ' --allow-run-as-root'
    [ "$(nproc)" -lt "$np" ] && printf ' --oversubscribe'
}
