#!/usr/bin/env bash
# test-slurm.sh BUILD: make test-slurm. Brings up a real one-node Slurm from Debian's packages
# (tests/slurm/cluster.sh: munged, slurmctld, slurmd as root, in a temp folder), then checks
#   0. lab.conf, read as data, becomes the job's sbatch options (a dry run of grading/slurm-grade.sh)
#   1. make grade through Slurm: step 01 forced to the cluster (SLURM_GRADE_STEPS), step 00 graded here;
#      the job's rows come back into the grade folder (grading/slurm-grade.sh); make ends within a
#      minute of the job (checks 1 and 3: a runner that misses a job's end waits out MinJobAge)
#   2. Ctrl-C on such a make grade cancels its job (scancel), and make ends non-zero
#   3. make grade-class CLASS_RUNNER=slurm: four synthetic submissions in a job array of two tasks,
#      every student's verdicts in class.csv (grading/class/slurm-array.sh)
#   4. the MPI exchange test (tests/mpi_exchange.c) on 2 ranks under srun --mpi=pmix and salloc mpirun
#   5. with no GPU and no partition, make grade's SKIP of a GPU step comes with the hint to grading/SLURM.md
# and ALWAYS stops every daemon it started (trap EXIT), then checks none is left. One PASS/FAIL line per
# check; the daemons' logs are printed on a failure. No root, or no packages: SKIP, status 0.
set -u
build=${1:?usage: tests/slurm/test-slurm.sh BUILD}
lab=$(cd "$(dirname "$0")/../.." && pwd)
cd "$lab" || exit 2
mk=${MAKE:-make}

if [ -f .handout ]; then
    echo "SKIP test-slurm: this is a student handout, and the checks grade the lab's own solutions"
    exit 0
fi
if [ "$(id -u)" != 0 ]; then
    echo "SKIP test-slurm: slurmctld and slurmd run as root here, and this is $(id -un)"
    exit 0
fi
if ! bash common/deps.sh slurm; then
    echo "SKIP test-slurm: Slurm's packages (slurm-wlm, munge) are not installed and could not be"
    exit 0
fi
export PATH=$PATH:/usr/sbin:/sbin

. tests/slurm/cluster.sh
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test-slurm.XXXXXX") || exit 2
trap 'slurm_down; rm -rf "$tmp"' EXIT
failed=0
say() { echo "$1 slurm: $2"; [ "$1" = PASS ] || { failed=1; [ -n "${3:-}" ] && tail -n 30 "$3"; }; }
# csv_cell FILE STEP COLUMN: a cell of FILE's row for STEP, by the columns' names.
csv_cell() {
    awk -F, -v s="$2" -v want="$3" 'NR == 1 { for (k = 1; k <= NF; ++k) c[$k] = k; next } $c["step"] == s { v = $c[want] } END { print v }' "$1"
}
# since FILE...: seconds since the newest of FILE... was written. A job's last write against make's end:
# a runner that missed its end waits until slurmctld forgets the job (MinJobAge, 300 s: cluster.sh).
since() { local t; t=$(stat -c %Y "$@" 2>/dev/null | sort -n | tail -n 1); echo $(($(date +%s) - ${t:-0})); }
prompt=60

# 0. lab.conf to sbatch options, as data: a dry run prints the job script for step 11 (mpi:2) unsubmitted.
printf '%s\n' '# a lab' 'SLURM_PARTITION=gpu-a' 'SLURM_ACCOUNT=$(touch '"$tmp"'/ran)' 'SLURM_ACCOUNT=class42' \
    'SLURM_GPUS=2' 'SLURM_TIME=01:00:00' > "$tmp/lab.conf"
env -u SLURM_PARTITION -u SLURM_ACCOUNT -u SLURM_GPUS -u SLURM_TIME LAB_CONF="$tmp/lab.conf" SLURM_GRADE_DRY_RUN=1 \
    SLURM_GRADE_STEPS=11 GRADE_DIR="$tmp/dry" BUILD="$build" bash grading/slurm-grade.sh 11 -- false > "$tmp/dry.log" 2>&1
want='--partition=gpu-a --account=class42 --gres=gpu:2 --time=01:00:00 --nodes=1 --ntasks=2'
got=$(sed -n 's/^#SBATCH \(--[a-z]*=\)/\1/p' "$tmp/dry.log" | grep -v -e '^--job-name' -e '^--output' | tr '\n' ' ')
if [ "$got" = "$want " ] && [ ! -e "$tmp/ran" ] && [ "$(grep -c 'SLURM_ACCOUNT=\$(touch' "$tmp/dry.log")" = 1 ] &&
    grep -q "STEPS=11\$" "$tmp/dry.log"; then
    say PASS "lab.conf read as data (a \$(...) line skipped with one warning): sbatch $want"
else
    say FAIL "lab.conf to sbatch: got '$got' (want '$want ')" "$tmp/dry.log"
fi

# Check 4's program built first: its build installs OpenMPI, whose libpmix slurmd loads only as it starts
# (later, srun --mpi=pmix times out: "can not load PMIx library" in slurmd.log).
mpi_built=
"$mk" --no-print-directory -s BUILD="$build" "$build/tests/bin/mpi_exchange" > "$tmp/mpi-build.log" 2>&1 && mpi_built=1

start=$SECONDS
if ! slurm_up "$tmp/cluster"; then
    say FAIL "the one-node Slurm did not come up: $SLURM_WHY"
    exit 1
fi
say PASS "a one-node Slurm came up (partition lab, node localhost idle) in $((SECONDS - start)) s"

# The lab's settings for the cluster, from the environment (lab.conf is the student's, left alone).
export SLURM_PARTITION=lab SLURM_ACCOUNT='' SLURM_GPUS=0 SLURM_TIME=00:20:00 SLURM_POLL=1
knobs=(BUILD="$build" GRADE_CHECK_N="1 31" GRADE_N=1024)

# 1. make grade with step 01 through Slurm.
grade=$tmp/grade
SLURM_GRADE_STEPS=01 timeout 600 "$mk" --no-print-directory "${knobs[@]}" grade STEPS="00 01" GRADE_DIR="$grade" > "$tmp/grade.log" 2>&1
rc=$?
late=$(since "$grade"/slurm/*/status)
job=$(sed -n 's/^slurm-grade: job \([0-9]*\) grades.*/\1/p' "$tmp/grade.log")
if [ "$rc" = 0 ] && [ -n "$job" ] && [ "$late" -lt "$prompt" ] && [ "$(csv_cell "$grade/verdicts.csv" 00 verdict)" = PASS ] &&
    [ "$(csv_cell "$grade/verdicts.csv" 01 verdict)" = PASS ] &&
    [ -n "$(csv_cell "$grade/results.csv" 00 pass)" ] && [ -n "$(csv_cell "$grade/results.csv" 01 pass)" ] &&
    grep -qE '^01 +step01_omp +PASS' "$tmp/grade.log" && grep -q 'slurm-grade: job .*RUNNING' "$tmp/grade.log" &&
    [ -x "$build/slurm-node/bin/step01_omp" ]; then
    say PASS "make grade: step 00 here, step 01 by Slurm job $job (progress shown, its table printed, its rows merged by step; make ended $late s after the job)"
else
    say FAIL "make grade through Slurm: status $rc, job '${job}', make ended $late s after the job (under $prompt wanted) ($tmp/grade.log, last lines:)" "$tmp/grade.log"
    for f in "$grade"/slurm/*/job.out; do [ -f "$f" ] && { echo "---- $f"; tail -n 20 "$f"; }; done
    slurm_logs
fi

# 2. Ctrl-C: SIGINT to make's process group, as a terminal sends it (set -m: its own group). env puts
# SIGINT back to its default: a test started in the background (nohup ... &) inherits it ignored, and then
# neither make nor slurm-grade.sh's trap could see it, as no terminal's make would.
set -m
SLURM_GRADE_STEPS=00 env --default-signal=INT "$mk" --no-print-directory "${knobs[@]}" grade STEPS=00 GRADE_DIR="$tmp/grade-int" > "$tmp/int.log" 2>&1 &
pid=$!
set +m
job=
for _ in $(seq 120); do
    job=$(sed -n 's/^slurm-grade: job \([0-9]*\) grades.*/\1/p' "$tmp/int.log")
    [ -n "$job" ] && break
    sleep 0.5
done
if [ -z "$job" ]; then
    kill -TERM -- -"$pid" 2>/dev/null
    say FAIL "Ctrl-C: the job was never submitted ($tmp/int.log)" "$tmp/int.log"
else
    kill -INT -- -"$pid"
    gone=
    for _ in $(seq 60); do
        [ -z "$(timeout 5 squeue -h -j "$job" -o %i 2>/dev/null)" ] && ! kill -0 "$pid" 2>/dev/null && { gone=1; break; }
        sleep 0.5
    done
    wait "$pid" 2>/dev/null
    rc=$?
    if [ -n "$gone" ] && [ "$rc" != 0 ] && grep -q "cancelling job $job" "$tmp/int.log"; then
        say PASS "Ctrl-C on make grade cancelled Slurm job $job (make's status $rc)"
    else
        kill -TERM -- -"$pid" 2>/dev/null
        say FAIL "Ctrl-C: job $job still queued or make still running (status $rc) ($tmp/int.log)" "$tmp/int.log"
    fi
fi

# 3. grade-class as a job array: correct, wrong sign, not compiling, nothing handed in.
subs=$tmp/submissions
mkdir -p "$subs"/{alice,bob,carol}/step00_serial "$subs"/{alice,carol}/step01_omp "$subs/dave"
cp step00_serial/nbody.c "$subs/alice/step00_serial/" && cp step01_omp/nbody.c "$subs/alice/step01_omp/"
sed 's/axi += dx \* f;/axi -= dx * f;/' step00_serial/nbody.c > "$subs/bob/step00_serial/nbody.c"
echo 'this is not C' > "$subs/carol/step00_serial/nbody.c" && cp step01_omp/nbody.c "$subs/carol/step01_omp/"
if cmp -s step00_serial/nbody.c "$subs/bob/step00_serial/nbody.c"; then
    say FAIL "grade-class: the wrong-sign submission is the same as the solution (step00's source changed?)"
else
    CLASS_PER_TASK=2 CLASS_STEPS="00 01" timeout 900 "$mk" --no-print-directory "${knobs[@]}" grade-class CLASS_RUNNER=slurm \
        SUBMISSIONS="$subs" OUT="$tmp/class" > "$tmp/class.log" 2>&1
    rc=$?
    late=$(since "$tmp"/class/slurm/task-*.done)
    got=$(awk -F, 'NR > 1 { printf "%s/%s=%s ", $1, $2, $3 }' "$tmp/class/class.csv" 2>/dev/null)
    want="alice/00=PASS alice/01=PASS bob/00=FAIL bob/01=TODO carol/00=FAIL carol/01=PASS dave/00=TODO dave/01=TODO "
    if [ "$rc" = 0 ] && [ "$got" = "$want" ] && grep -q 'array=0-1' "$tmp/class.log" &&
        grep -q 'done 2 of 2 task(s)' "$tmp/class.log" && [ "$late" -lt "$prompt" ]; then
        say PASS "grade-class CLASS_RUNNER=slurm: 4 submissions in an array of 2 tasks, every verdict as expected (ended $late s after its last task)"
    else
        say FAIL "grade-class CLASS_RUNNER=slurm: status $rc, verdicts '$got' (want '$want'), ended $late s after its last task (under $prompt wanted) ($tmp/class.log)" "$tmp/class.log"
    fi
fi

# 4. The MPI steps' exchange on 2 ranks, launched by Slurm: srun with PMIx, and mpirun in an allocation.
if [ -z "$mpi_built" ]; then
    echo "SKIP slurm: MPI: the exchange test did not build (OpenMPI missing? common/deps.sh mpi): $(tail -n 1 "$tmp/mpi-build.log")"
else
    prog=$build/tests/bin/mpi_exchange
    for how in "srun --mpi=pmix -n 2" "salloc -n 2 mpirun --allow-run-as-root -np 2"; do
        timeout 120 $how "$prog" check > "$tmp/mpi.log" 2>&1
        rc=$?
        oks=$(grep -c '^ok' "$tmp/mpi.log")
        if [ "$rc" = 0 ] && ! grep -q '^not ok' "$tmp/mpi.log" && [ "$oks" -ge 26 ]; then
            say PASS "MPI: the exchange on 2 ranks under '$how' agrees with one process ($oks checks)"
        else
            say FAIL "MPI under '$how': status $rc, $oks checks" "$tmp/mpi.log"
        fi
    done
fi

# 5. No GPU and no partition: make grade of a GPU step says SKIP, then how Slurm could grade it.
if ! command -v "${NVCC:-nvcc}" >/dev/null 2>&1 || timeout 30 nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
    echo "SKIP slurm: the no-GPU hint: it needs nvcc (to compile step 02) and no GPU here"
else
    SLURM_PARTITION='' timeout 600 "$mk" --no-print-directory "${knobs[@]}" grade STEPS=02 GRADE_DIR="$tmp/grade-hint" > "$tmp/hint.log" 2>&1
    if grep -qE '^02 +step02_cuda_naive +SKIP' "$tmp/hint.log" && grep -q '^hint: no GPU here: .*grading/SLURM.md' "$tmp/hint.log" &&
        ! grep -q '^slurm-grade: job' "$tmp/hint.log"; then
        say PASS "no GPU, no partition: step 02 SKIPs here, with the one-line hint to grading/SLURM.md"
    else
        say FAIL "no GPU, no partition: no SKIP with the hint ($tmp/hint.log)" "$tmp/hint.log"
    fi
fi

# Everything stopped, and nothing of ours left running.
[ "$failed" = 0 ] || slurm_logs
slurm_down
left=$(slurm_pids)
if [ -z "$left" ]; then
    say PASS "every daemon stopped (munged, slurmctld, slurmd: no pid of theirs runs) after $((SECONDS - start)) s"
else
    say FAIL "still running after the test: pids $left"
fi
exit $failed
