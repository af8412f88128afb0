#!/usr/bin/env bash
# deps.sh WHAT: make sure a dependency of the lab is here; install it with apt-get when we can
# (root, non-interactive, no recommends), or print the exact command and fail.
#   WHAT: zlib (snapshots' CRC-32), check (make test), gnuplot (figures; optional for make grade),
#         mpi (OpenMPI: mpicc and mpirun, for the steps launched through mpirun and their tests),
#         bwrap (bubblewrap: the sandbox of the steps' workers, common/README.md),
#         slurm (slurmctld, slurmd, munged and the clients: make test-slurm's one-node cluster),
#         nvcc (no CUDA Toolkit here: NVIDIA's compiler, its headers and runtime from PyPI, fetched with
#         pip into the lab's .deps/cuda; it compiles and links the GPU steps, and a GPU still runs them;
#         its host compiler is g++, installed as the rest: gxx),
#         python3 (the scripts the lab runs with it: report/explore/sass-model.py in make test-hardening,
#         the class grader's reports and JSON, grading/class/report.py; the standard library only)
#         chromium (a headless browser: make test-class opens the class page in it, make test-view the
#         viewer's page),
#         hdf5 (the HDF Group's C library: GADGET/SWIFT-style snapshots, common/hdf5io.c; optional:
#         without it the lab builds with HDF5 compiled out)
set -u
# One install at a time: make -j runs several of these at once (zlib and hdf5 on a bare machine), and two
# apt-gets would fight over dpkg's lock; another apt-get of the machine's is waited for too.
apt_turn() {
    exec 9> "${TMPDIR:-/tmp}/nbody-lab-deps.lock" && flock -w 900 9
}
export DEBIAN_FRONTEND=noninteractive
apt_opts="-o DPkg::Lock::Timeout=600"
what=${1:?usage: deps.sh zlib|check|gnuplot|mpi|bwrap|slurm|python3|nvcc|gxx|hdf5|chromium}
lab=$(cd "$(dirname "$0")/.." && pwd)
# The wheels of NVIDIA's compiler on PyPI, pinned (tried together on Debian 12, 2026-12-01: step02
# compiled and linked): nvcc and ptxas, the front end's headers (crt), the runtime's headers and static
# library, cicc and libdevice (nvvm), CCCL's headers.
NVCC_WHEELS="nvidia-cuda-nvcc==13.5.37 nvidia-cuda-crt==13.5.37 nvidia-cuda-runtime==13.5.37 nvidia-nvvm==13.5.37 nvidia-cuda-cccl==13.3.5.0.6"
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
    gxx)
        command -v g++ >/dev/null 2>&1 ;;
    nvcc)
        { command -v nvcc >/dev/null 2>&1 || [ -x "$lab/.deps/cuda/bin/nvcc" ]; } && command -v g++ >/dev/null 2>&1 ;;
    python3)
        command -v python3 >/dev/null 2>&1 && python3 -c 'import argparse, csv, hmac, html, json, secrets, statistics' 2>/dev/null ;;
    hdf5)
        pkg-config --exists hdf5 2>/dev/null ;;
    chromium)
        command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 ;;
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
nvcc) pkgs="python3-pip" ;;
gxx) pkgs="g++" ;;
hdf5) pkgs="libhdf5-dev pkg-config" ;;
chromium) pkgs="chromium" ;;
*) echo "deps.sh: unknown dependency '$what'" >&2; exit 2 ;;
esac

have && exit 0

# nvcc: pip fetches the wheels (python3 and pip installed as the others are, where they are missing);
# they are zip files of one tree, nvidia/cu13/{bin,include,lib,nvvm}, unpacked whole into .deps/cuda.
if [ "$what" = nvcc ]; then
    bash "$0" gxx || exit 1
    have && exit 0
    bash "$0" python3 || exit 1
    if ! python3 -m pip --version >/dev/null 2>&1; then
        if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
            echo "deps: installing python3-pip (for nvcc) with apt-get ..." >&2
            apt_turn
            python3 -m pip --version >/dev/null 2>&1 ||
            apt-get install $apt_opts -y -qq --no-install-recommends python3-pip >/dev/null 2>&1 ||
                { apt-get update $apt_opts -qq >/dev/null 2>&1 &&
                  apt-get install $apt_opts -y -qq --no-install-recommends python3-pip >/dev/null 2>&1; }
        fi
        python3 -m pip --version >/dev/null 2>&1 ||
            { echo "deps: nvcc needs pip to fetch it from PyPI: $([ "$(id -u)" = 0 ] || echo sudo )apt-get install --no-install-recommends python3-pip, or install the CUDA Toolkit" >&2; exit 1; }
    fi
    echo "deps: no CUDA Toolkit here: fetching NVIDIA's compiler from PyPI into .deps/cuda (about 130 MB) ..." >&2
    mkdir -p "$lab/.deps" && tmp=$(mktemp -d "$lab/.deps/cuda.tmp.XXXXXX") || exit 1
    # shellcheck disable=SC2086 # the pinned wheels, one word each
    if python3 -m pip download -q --no-deps --disable-pip-version-check -d "$tmp/wheels" $NVCC_WHEELS >&2 &&
        python3 -c 'import sys, zipfile
for w in sys.argv[2:]:
    zipfile.ZipFile(w).extractall(sys.argv[1])' "$tmp/tree" "$tmp"/wheels/*.whl &&
        [ -f "$tmp/tree/nvidia/cu13/bin/nvcc" ]; then
        chmod +x "$tmp"/tree/nvidia/cu13/bin/* "$tmp"/tree/nvidia/cu13/nvvm/bin/* 2>/dev/null
        rm -rf "$lab/.deps/cuda" && mv "$tmp/tree/nvidia/cu13" "$lab/.deps/cuda"
    fi
    rm -rf "$tmp"
    have && { echo "deps: nvcc: $lab/.deps/cuda/bin/nvcc ($("$lab/.deps/cuda/bin/nvcc" --version | tail -n 1))" >&2; exit 0; }
    echo "deps: nvcc could not be fetched from PyPI; install the CUDA Toolkit (or NVCC=/path/to/nvcc)" >&2
    exit 1
fi

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    apt_turn
    have && exit 0 # installed while this one waited its turn
    echo "deps: installing $pkgs (for $what) with apt-get ..." >&2
    if ! apt-get install $apt_opts -y -qq --no-install-recommends $pkgs >/dev/null 2>&1; then
        apt-get update $apt_opts -qq >/dev/null 2>&1
        apt-get install $apt_opts -y -qq --no-install-recommends $pkgs >/dev/null 2>&1
    fi
    have && exit 0
fi

sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo "
echo "deps: $what is missing; install it with:  ${sudo}apt-get install --no-install-recommends $pkgs" >&2
[ "$what" = gnuplot ] && echo "deps: (or on other systems: dnf install gnuplot / brew install gnuplot)" >&2
exit 1
