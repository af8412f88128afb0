#!/usr/bin/env bash
# rebound.sh WORK VENV BINDIR: make test-rebound. A code no one here wrote, REBOUND (PyPI rebound, in a
# venv VENV this script makes once and keeps), integrates the lab's own initial conditions with the
# lab's scheme, and each step's final state must agree with it to float32 precision.
#
#   STEPS="00 01"   the steps compared (default: the CPU steps); a GPU step (02-13) needs a GPU: without
#                   one it is SKIP, with its reason. Tree codes (feature theta) run with --theta 0, every
#                   cell opened: the exact sum, the scheme REBOUND's direct summation computes.
#   REBOUND_N=1000 REBOUND_K=20 (steps) REBOUND_DT=0.001 REBOUND_EPS=0.01; REBOUND_PIP=rebound==5.2.2
#
# The bodies: the first step compared writes the Plummer sphere of the default seed with --steps 0
# --output (the lab's own state, float32), N = REBOUND_N, and then two systems of 257 bodies with random
# masses (S > 1, an awkward N); every step runs --input each --steps K --output. REBOUND
# reads the same file (tests/rebound_compare.py reads the format of common/snapshot.h). How the lab's
# kick-drift (velocities at half steps) and REBOUND's drift-kick-drift line up: REBOUND starts half a
# drift back, x - v dt/2, and its final x + v dt/2 is the lab's (the derivation is at the top of
# tests/rebound_compare.py); G = 1, REBOUND's sim.softening = the lab's eps.
#
# The limits (measured on this lab's CI machine kind, 2 cores, no GPU, 2026-12-01; step00 and step01
# give the same figures, N = 1000, 20 steps of 0.001, eps 0.01):
#   positions and velocities, the worst body, over the system's scale (the lab's state error,
#   common/README.md): 1e-5. Measured 7.4e-7 (x) and 6.0e-7 (v); 2 x 257 bodies with random masses
#   6.3e-7 and 1.6e-6. That is float32 itself: each drift rounds x to 2^-24 of |x|, 20 of them a few ulp.
#   The lab's own 4-step state limit is 1e-4; 20 steps against an fp64 code are held to 10 times less.
#   A half step off (the drifts left out) misses the limit by 370x (N = 1000) to 1000x: the test says so
#   on every run, and fails if it ever stops telling the two apart (under 10x). A softening 2 % off
#   (--eps 0.0102 in the lab's run) fails at v 2.8e-3, x 1.4e-5, energy 3.3e-6.
#   the softened energy (the test's own fp64 sum: REBOUND's energy() has no softening, so the sum is
#   first checked against energy() with eps = 0, within 1e-12), relative: 1e-6. Measured 3e-10 to 2e-9
#   (N = 1000) and 4.2e-8 (2 x 257, random masses: close pairs weigh more).
# Prints one line per check (PASS, FAIL, SKIP); exit 1 if any failed, 0 otherwise (SKIP alone: no
# venv could be made, PyPI unreachable, or no step written yet), 2 on bad usage.
set -u -o pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
[ $# -eq 3 ] || { echo "usage: tests/rebound.sh WORK VENV BINDIR" >&2; exit 2; }
work=$1 venv=$2 bindir=$3
n=${REBOUND_N:-1000} k=${REBOUND_K:-20} dt=${REBOUND_DT:-0.001} eps=${REBOUND_EPS:-0.01}
pip_spec=${REBOUND_PIP:-rebound==5.2.2}
tol_state=1e-5 tol_energy=1e-6
# shellcheck source=../common/steps.sh
. "$here/common/steps.sh"
steps=${STEPS:-$(registry_where lang c id | tr '\n' ' ')}
rm -rf "$work" && mkdir -p "$work" || { echo "rebound.sh: cannot make $work" >&2; exit 2; }

# The steps to run: written (a handout's stub is TODO: NB_TEST_TODO names them), built, and on a GPU
# where they need one.
have_gpu=$(nvidia-smi -L 2> /dev/null | grep -c '^GPU')
runs=() fails=0
for id in $steps; do
    folder=$(registry_field "$id" folder) || exit 2
    lang=$(registry_field "$id" lang) features=$(registry_field "$id" features)
    if [[ " ${NB_TEST_TODO:-} " == *" $folder "* ]]; then
        echo "SKIP rebound $folder: not written yet (TODO)"
    elif [ "$lang" = cu ] && [ "$have_gpu" = 0 ]; then
        echo "SKIP rebound $folder: a GPU step and no GPU here (nvidia-smi lists none)"
    elif [ ! -x "$bindir/$folder" ]; then
        echo "FAIL rebound $folder: $bindir/$folder is not built"
        fails=$((fails + 1))
    else
        extra=""
        [[ ",$features," == *,theta,* ]] && extra="--theta 0"
        runs+=("$folder|$extra")
    fi
done
if [ ${#runs[@]} = 0 ]; then
    [ $fails = 0 ] && echo "SKIP rebound: no step to compare here (STEPS=\"$steps\")"
    [ $fails = 0 ]
    exit
fi

# The venv, once (kept under build/: the next run reuses it).
py=$venv/bin/python
if ! "$py" -c 'import rebound' > /dev/null 2>&1; then
    rm -rf "$venv"
    command -v python3 > /dev/null 2>&1 || { echo "SKIP rebound: no python3 here to make the venv"; exit 0; }
    if ! python3 -m venv "$venv" > "$work/venv.log" 2>&1; then
        # Debian's python3 makes venvs only with python3-venv.
        if [ "$(id -u)" = 0 ] && command -v apt-get > /dev/null 2>&1; then
            export DEBIAN_FRONTEND=noninteractive
            apt-get install -y -qq --no-install-recommends python3-venv >> "$work/venv.log" 2>&1 ||
                { apt-get update -qq > /dev/null 2>&1 && apt-get install -y -qq --no-install-recommends python3-venv >> "$work/venv.log" 2>&1; }
        fi
        rm -rf "$venv"
        python3 -m venv "$venv" >> "$work/venv.log" 2>&1 ||
            { rm -rf "$venv"; echo "SKIP rebound: python3 -m venv failed: $(tail -n 1 "$work/venv.log")"; exit 0; }
    fi
    if ! "$venv/bin/pip" install -q --disable-pip-version-check "$pip_spec" > "$work/pip.log" 2>&1; then
        rm -rf "$venv"
        echo "SKIP rebound: pip install $pip_spec failed (PyPI unreachable?): $(grep -v '^ *$' "$work/pip.log" | tail -n 1)"
        exit 0
    fi
    "$py" -c 'import rebound' > /dev/null 2>&1 || { rm -rf "$venv"; echo "SKIP rebound: rebound installed but does not import"; exit 0; }
fi

# The bodies, written by the first step; then every step from them.
first=${runs[0]%%|*}
# Two problems: the brief's sphere, and an awkward one (two systems of 257 bodies, random masses).
problems=("-n $n" "-n 257 -S 2 --masses random")
for p in 0 1; do
    dir=$work/p$p
    mkdir -p "$dir" || exit 2
    # shellcheck disable=SC2086 # the problem's options, split on purpose
    "$bindir/$first" -q ${problems[$p]} --steps 0 --repeat 1 --validate off -o "$dir/init.nbs" > "$dir/init.log" 2>&1 ||
        { echo "FAIL rebound: $first could not write the initial state (${problems[$p]}): $(tail -n 1 "$dir/init.log")"; exit 1; }
    finals=()
    for r in "${runs[@]}"; do
        folder=${r%%|*} extra=${r#*|}
        # shellcheck disable=SC2086 # extra is options, split on purpose
        if "$bindir/$folder" -q -i "$dir/init.nbs" --steps "$k" --dt "$dt" --eps "$eps" --repeat 1 $extra \
            -o "$dir/$folder.nbs" > "$dir/$folder.log" 2>&1; then
            finals+=("$folder=$dir/$folder.nbs")
        else
            echo "FAIL rebound $folder: the run from the initial state (${problems[$p]}) failed: $(tail -n 1 "$dir/$folder.log")"
            fails=$((fails + 1))
        fi
    done
    if [ ${#finals[@]} -gt 0 ]; then
        "$py" "$here/tests/rebound_compare.py" "$dir/init.nbs" "$k" "$dt" "$eps" "$tol_state" "$tol_energy" "${finals[@]}" ||
            fails=$((fails + 1))
    fi
done
[ $fails = 0 ]
