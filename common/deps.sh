#!/usr/bin/env bash
# deps.sh WHAT: make sure a dependency of the lab is here; install it with apt-get when we can
# (root, non-interactive, no recommends), or print the exact command and fail.
#   WHAT: zlib (snapshots' CRC-32), check (make test), gnuplot (figures; optional for make grade),
#         mpi (OpenMPI: mpicc and mpirun, for the steps launched through mpirun and their tests),
#         bwrap (bubblewrap: the sandbox of the steps' workers, common/README.md),
#         slurm (slurmctld, slurmd, munged and the clients: make test-slurm's one-node cluster),
#         python3 (the scripts the lab runs with it: report/explore/sass-model.py in make test-hardening,
#         the class grader's reports and JSON, grading/class/report.py; the standard library only)
set -u
what=${1:?usage: deps.sh zlib|check|gnuplot|mpi|bwrap|slurm|python3}
cc=${CC:-gcc}
root=${DEPS_ROOT:-}

have() {
    case $what in
    zlib)
        printf '#include <zlib.h>\nint main(void){return (int)crc32(0,0,0);}\n' |
            $cc -x c - -o /dev/null ${root:+-isystem "$root/usr/include" -L"$root/usr/lib/x86_64-linux-gnu"} -lz 2>/dev/null ;;
    check)
        if [ -n "$root" ] && [ -f "$root/usr/include/check.h" ]; then return 0; fi
        pkg-config --exists check 2>/dev/null ;;
    gnuplot)
        command -v gnuplot >/dev/null 2>&1 ;;
    mpi)
        command -v mpicc >/dev/null 2>&1 && command -v mpirun >/dev/null 2>&1 ;;
    bwrap)
        command -v bwrap >/dev/null 2>&1 || { [ -n "$root" ] && [ -x "$root/usr/bin/bwrap" ]; } ;;
    python3)
        command -v python3 >/dev/null 2>&1 && python3 -c 'import argparse, csv, hmac, html, json, secrets, statistics' 2>/dev/null ;;
    slurm)
        for t in slurmctld slurmd munged sinfo sbatch squeue scancel srun; do
            PATH=$PATH:/usr/sbin:/sbin command -v $t >/dev/null 2>&1 || return 1
        done ;;
    esac
}

case $what in
zlib) pkgs="zlib1g-dev" ;;
check) pkgs="check libsubunit-dev pkg-config" ;;
gnuplot) pkgs="gnuplot-nox" ;;
mpi) pkgs="openmpi-bin libopenmpi-dev" ;;
bwrap) pkgs="bubblewrap" ;;
slurm) pkgs="slurm-wlm munge" ;;
python3) pkgs="python3" ;;
*) echo "deps.sh: unknown dependency '$what'" >&2; exit 2 ;;
esac

have && exit 0

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "deps: installing $pkgs (for $what) with apt-get ..." >&2
    export DEBIAN_FRONTEND=noninteractive
    if ! apt-get install -y -qq --no-install-recommends $pkgs >/dev/null 2>&1; then
        apt-get update -qq >/dev/null 2>&1
        apt-get install -y -qq --no-install-recommends $pkgs >/dev/null 2>&1
    fi
    have && exit 0
fi

sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo "
echo "deps: $what is missing; install it with:  ${sudo}apt-get install --no-install-recommends $pkgs" >&2
[ "$what" = gnuplot ] && echo "deps: (or on other systems: dnf install gnuplot / brew install gnuplot)" >&2
exit 1
