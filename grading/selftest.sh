#!/usr/bin/env bash
# selftest.sh: proves that `make grade` catches real mistakes (run by `make grade-selftest`).
# It plants one fault at a time as a source edit (sed) in a copy of a step, outside the source tree
# (under $BUILD/grade/selftest), builds the copy with the Makefile's rules for that step (make
# grade-copy), grades it, and expects FAIL. The unchanged copy must PASS (so the FAILs come from the
# faults, not from the copying), and on a GPU so must a correct step built with nvcc --use_fast_math.
# CPU faults go into step00_serial, a data race into step01_omp (graded with its -O0 build: the race
# check, grading/race.c); GPU faults into step03_tiling and one into step12_multipole (a tree code's
# cells that drop a moment), where a GPU exists (else SKIP). SELFTEST_STEPS="12" runs only the cases of
# the steps it names; SELFTEST_ONLY=NAME only the faults whose name starts with NAME.
# Exit status 0 only if every case came out as expected. Verdicts are read from the grader's
# verdicts.csv, never from its printed table; a few cases must also fail in a given way (how_it_failed).
set -u -o pipefail
MAKE=${MAKE:-make}
BUILD=${BUILD:-build}
GRADER=${GRADER:-$BUILD/grading/grade}
GPU_PROBE=${GPU_PROBE:-$BUILD/grading/gpu_probe}
NVCC=${NVCC:-nvcc}
GRADE_JOBS=${GRADE_JOBS:-2}
. "$(dirname "$0")/lab-conf.sh" # make passes these; run alone, lab.conf's
GRADE_TIMEOUT=${GRADE_TIMEOUT:-$(lab_conf_file GRADE_TIMEOUT)}
GRADE_CHECK_N=${GRADE_CHECK_N:-$(lab_conf_file GRADE_CHECK_N | tr , ' ')}
root=$BUILD/grade/selftest
cache=$BUILD/grade/ref-cache
mkdir -p "$root" "$cache"

cpu_step=00
omp_step=01
gpu_step=03
tree_step=12
block_step=13
. common/steps.sh
folder_of() { registry_field "$1" folder; }

# name | step | what the fault is | sed program (one or more -e expressions, applied to the copy)
faults=(
    "partial-tile|$cpu_step|the j loop stops at the last multiple of 256 below n|s/j < first + n; ++j/j < first + n \/ 256 * 256; ++j/"
    "wrong-sign|$cpu_step|x_i - x_j instead of x_j - x_i: repulsion|s/= x\[j\] - x\[i\]/= x[i] - x[j]/;s/= y\[j\] - y\[i\]/= y[i] - y[j]/;s/= z\[j\] - z\[i\]/= z[i] - z[j]/"
    "mass-ignored|$cpu_step|every body pulls with unit mass|s/= m\[j\] \* inv \* inv \* inv/= inv * inv * inv/"
    "mass-of-i|$cpu_step|m_i for m_j (only random masses show it)|s/= m\[j\] \* inv/= m[i] * inv/"
    "system-offset|$cpu_step|a system starts at i / n, not i / n * n|s/first = i \/ n \* n;/first = i \/ n;/"
    "drift-before-kick|$cpu_step|positions move with the old velocity|s/s->v\([xyz]\)\[i\] += a\([xyz]\)\[i\] \* run->dt;/KICK_\1/;s/s->\([xyz]\)\[i\] += s->v\([xyz]\)\[i\] \* run->dt;/s->v\1[i] += a\1[i] * run->dt;/;s/KICK_\([xyz]\)/s->\1[i] += s->v\1[i] * run->dt;/"
    "nan|$cpu_step|no softening: the j = i term is 0/0|s/+ eps2; \/\* softening/; \/* softening/"
    "tells-timed-runs|$cpu_step|half the steps in a run that has a clock (timed runs had one, checked runs none)|s/step < run->steps; ++step/step < (run->clock ? run->steps \/ 2 : run->steps); ++step/"
    "clamps-steps|$cpu_step|never more than 4 steps, what the state check asks, whatever --steps says|s/step < run->steps; ++step/step < (run->steps < 4 ? run->steps : 4); ++step/"
    "skips-work-when-long|$cpu_step|at N > 1000, in runs of more than 4 steps (the timed ones), the last 64th of the bodies pulls on nobody|s/^#include <stdlib.h>$/&\nstatic uint64_t steps_asked;/;s/^    const size_t total = nb_state_count(s);$/&\n    steps_asked = run->steps;/;s/for (size_t j = first; j < first + n; ++j)/for (size_t j = first; j < first + (n > 1000 \&\& steps_asked > 4 ? n - n \/ 64 : n); ++j)/"
    "output-flood|$cpu_step|prints without end: the grader must stop it at its log cap, and quickly|s/^#include <stdlib.h>$/&\n#include <stdio.h>/;s/^    const size_t n = s->bodies, total = nb_state_count(s);$/    for (;;)\n        puts(\"flood: a step that prints without end\");\n&/"
    "escape-in-error|$cpu_step|its error message sets the window title, clears the screen, turns red: none of it may reach the table|s/^    const size_t n = s->bodies, total = nb_state_count(s);$/    nb_die(NB_EXIT_ERROR, \"%c]0;owned%c%c[2J%c[31mforces wrong%c[0m, said in colour\", 27, 7, 27, 27, 27);\n&/"
    "escape-in-fail|$cpu_step|its FAIL line clears the screen and turns red: the clause shown must be plain text|s/^    const size_t n = s->bodies, total = nb_state_count(s);$/    nb_die(NB_EXIT_MISMATCH, \"%c[2J%c[31mforces FAIL%c[0m\", 27, 27, 27);\n&/"
    "shared-sums|$omp_step|a data race: the four bodies' sums declared outside the parallel loop, shared by every thread|s/^        float \(ax[ac] = 0\.0f\)/        \1/;s/^#pragma omp parallel for schedule(dynamic/    float axa, aya, aza, axb, ayb, azb, axc, ayc, azc, axd, ayd, azd;\n&/"
    "race-evasion|$omp_step|the same race, run on one thread whenever the race check's environment (OMP_NUM_THREADS, OMP_WAIT_POLICY) can be seen|s/^        float \\(ax[ac] = 0\\.0f\\)/        \\1/;s/^#pragma omp parallel for schedule(dynamic/    float axa, aya, aza, axb, ayb, azb, axc, ayc, azc, axd, ayd, azd;\\n    if (getenv(\"OMP_NUM_THREADS\") || getenv(\"OMP_WAIT_POLICY\"))\\n        omp_set_num_threads(1);\\n&/;s/^#include <stdlib.h>$/&\\n#include <omp.h>/"
    "race-evasion-order|$omp_step|the same race, run on one thread in a worker whose first call is of more than one step (the race check's once was; a check's first is the force evaluation)|s/^        float \\(ax[ac] = 0\\.0f\\)/        \\1/;s/^#pragma omp parallel for schedule(dynamic/    float axa, aya, aza, axb, ayb, azb, axc, ayc, azc, axd, ayd, azd;\\n&/;s/^    const size_t total = nb_state_count(s);$/    static int calls;\\n    if (calls++ == 0 \&\& run->steps > 1)\\n        omp_set_num_threads(1);\\n&/;s/^#include <stdlib.h>$/&\\n#include <omp.h>/"
    "race-evasion-path|$omp_step|the same race, run on one thread where its own program's path says -O0 or race/ (/proc/self/exe, argv[0] in /proc/self/cmdline, AT_EXECFN, /proc/self/mountinfo)|s/^        float \\(ax[ac] = 0\\.0f\\)/        \\1/;s/^#pragma omp parallel for schedule(dynamic/    float axa, aya, aza, axb, ayb, azb, axc, ayc, azc, axd, ayd, azd;\\n&/;s/^#include \"nbody.h\"$/#define _GNU_SOURCE\\n&/;s/^#include <stdlib.h>$/&\\n#include <omp.h>\\n#include <stdio.h>\\n#include <string.h>\\n#include <sys\/auxv.h>\\n#include <unistd.h>/;s/^int nb_step_run(nb_state \\*s, const nb_run \\*run)$/static int told_by_path(void)\\n{\\n    static char seen[4][65536];\\n    if (readlink(\"\/proc\/self\/exe\", seen[0], sizeof seen[0] - 1) < 0)\\n        seen[0][0] = 0;\\n    const char *files[2] = {\"\/proc\/self\/cmdline\", \"\/proc\/self\/mountinfo\"};\\n    for (int f = 0; f < 2; ++f) {\\n        FILE *in = fopen(files[f], \"r\");\\n        const size_t got = in ? fread(seen[1 + f], 1, sizeof seen[1] - 1, in) : 0;\\n        seen[1 + f][got] = 0;\\n        if (in)\\n            fclose(in);\\n    }\\n    const char *execfn = (const char *)getauxval(AT_EXECFN);\\n    snprintf(seen[3], sizeof seen[3], \"%s\", execfn ? execfn : \"\");\\n    for (int k = 0; k < 4; ++k)\\n        if (strstr(seen[k], \"-O0\") || strstr(seen[k], \"\/race\/\"))\\n            return 1;\\n    return 0;\\n}\\n\\n&/;s/^    const size_t total = nb_state_count(s);$/    if (told_by_path())\\n        omp_set_num_threads(1);\\n&/"
    "partial-tile|$gpu_step|the last partial tile of bodies is skipped|s/const int tiles = (n + blockDim.x - 1) \/ blockDim.x;/const int tiles = n \/ blockDim.x;/"
    "wrong-sign|$gpu_step|x_i - x_j instead of x_j - x_i: repulsion|s/= pj\.\([xyz]\) - \([xyz]\)i;/= \2i - pj.\1;/"
    "mass-ignored|$gpu_step|every body pulls with unit mass|s/const float f = pj\.w \* inv/const float f = inv/"
    "system-offset|$gpu_step|every system reads system 0's bodies|s/const nb_body \*b = bodies + (size_t)sys \* n;/const nb_body *b = bodies;/"
    "drift-before-kick|$gpu_step|positions move with the old velocity|s/b->v\([xyz]\) += a\([xyz]\) \* dt;/KICK_\1/;s/b->\([xyz]\) += b->v\([xyz]\) \* dt;/b->v\1 += a\1 * dt;/;s/KICK_\([xyz]\)/b->\1 += b->v\1 * dt;/"
    "nan|$gpu_step|no softening: the j = i term is 0/0|s/dz \* dz + eps2;/dz * dz;/"
    "tells-timed-runs|$gpu_step|half the steps in a run that has a clock (timed runs had one, checked runs none)|s/step < run->steps; ++step/step < (run->clock ? run->steps \/ 2 : run->steps); ++step/"
    "clamps-steps|$gpu_step|never more than 4 steps, what the state check asks, whatever --steps says|s/step < run->steps; ++step/step < (run->steps < 4 ? run->steps : 4); ++step/"
    "skips-work-when-long|$gpu_step|at N > 1000, in runs of more than 4 steps (the timed ones), each slice skips its last tile|s/const int tiles_per_slice = (tiles + slices - 1) \/ slices;/const int tiles_per_slice = (tiles + slices - 1) \/ slices - (n > 1000 \&\& run->steps > 4 ? 1 : 0);/"
    "missed-kick|$block_step|one body in 64 off level 0 misses its kicks after the first substep (step13's PLANT_MISSED_KICK)|s/^#include \"device.h\"$/#define PLANT_MISSED_KICK\n&/"
    "level-off-by-one|$block_step|every body one level too coarse, its step twice what eta allows (step13's PLANT_LEVEL_OFF_BY_ONE)|s/^#include \"device.h\"$/#define PLANT_LEVEL_OFF_BY_ONE\n&/"
    "new-step-only|$block_step|the kick where a body changes level is the new step alone, not half the old plus half the new|s/return 0\.5f \* (ldexpf(dt_max, -old_level) + ldexpf(dt_max, -level));/return ldexpf(dt_max, -level);/"
    "never-finer|$block_step|levels held for the whole dt_max step: no active body goes finer when its force says so|s/^        if (want > was) {$/        if (false \&\& want > was) {/"
    "levels-ignored|$block_step|every body on level 0 whatever --levels says: step12 under step13's name|s/^    return k;$/    return 0;/"
    "drop-quadrupole|$tree_step|every cell forgets its second child's own quadrupole (the parallel-axis shift stays)|s/cq\[2\] = {qa, qb};/cq[2] = {qa, make_float4(0.0f, 0.0f, 0.0f, 0.0f)};/;s/cq2\[2\] = {qa2, qb2};/cq2[2] = {qa2, make_float2(0.0f, 0.0f)};/"
)
# name | step | compiler flags | why it must pass
controls=(
    "unchanged|$cpu_step||the copy machinery itself changes nothing"
    "unchanged|$omp_step||the copy machinery changes nothing, and a step without a race passes the race check"
    "unchanged|$gpu_step||the copy machinery itself changes nothing"
    "fast-math|$gpu_step|--use_fast_math|a correct step under nvcc --use_fast_math is still correct"
    "unchanged|$tree_step||the copy machinery itself changes nothing"
    "unchanged|$block_step||the copy machinery changes nothing, and correct block steps pass the block-step check"
)

# ---- The likely cause (issue #35, grading/cause.c) --------------------------------------------------
# Each signature is justified by a planted fault that produces it: the grader must FAIL it and name the
# cause in verdicts.csv's column cause (its key, before the colon). Faults of the list above that show a
# signature, then faults of their own for the signatures no fault above shows.
# step-name | the cause's key
causes=(
    "$cpu_step-partial-tile|tail"
    "$cpu_step-system-offset|system-offset"
    "$cpu_step-drift-before-kick|kick-drift-or-dt"
    "$cpu_step-mass-ignored|constant-factor"
    "$cpu_step-mass-of-i|masses"
    "$cpu_step-wrong-sign|none"
    "$cpu_step-cause-g-doubled|constant-factor"
    "$cpu_step-cause-drift-without-dt|kick-drift-or-dt"
    "$omp_step-shared-sums|race"
    "$omp_step-race-evasion-order|race"
    "$omp_step-race-evasion-path|race"
    "$gpu_step-partial-tile|tail"
    "$gpu_step-system-offset|system-offset"
    "$gpu_step-drift-before-kick|kick-drift-or-dt"
    "$gpu_step-mass-ignored|constant-factor"
    "$gpu_step-cause-g-doubled|constant-factor"
    "$gpu_step-cause-one-tile|tile-loop"
)
faults+=(
    "cause-g-doubled|$cpu_step|every force twice as strong (G = 2): a constant factor|s/= m\[j\] \* inv \* inv \* inv/= 2.0f * m[j] * inv * inv * inv/"
    "cause-drift-without-dt|$cpu_step|the drift ignores dt (x += v): the state wrong, the accelerations right|s/s->\([xyz]\)\[i\] += s->v\([xyz]\)\[i\] \* run->dt;/s->\1[i] += s->v\2[i];/"
    "cause-g-doubled|$gpu_step|every force twice as strong (G = 2): a constant factor|s/const float f = pj\.w \* inv/const float f = 2.0f * pj.w * inv/"
    "cause-one-tile|$gpu_step|every tile loads the first tile's bodies: right while N fits one block|s/const int j = t \* blockDim\.x + threadIdx\.x;/const int j = threadIdx.x;/"
)
# wrong_cause STEP NAME DIR: what is wrong with the cause a FAIL named (nothing when right or not listed).
wrong_cause() {
    local key=$1-$2 entry want got
    for entry in "${causes[@]}"; do
        [ "${entry%%|*}" = "$key" ] && want=${entry#*|}
    done
    [ -n "${want:-}" ] || return 0
    got=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) if ($i == "cause") c = i } NR == 2 && c { print $c }' \
        "$3/grade/verdicts.csv" 2>/dev/null)
    [[ $got == "$want:"* ]] || echo "the cause should be $want, the grader said: ${got:-nothing}"
}

gpus=$("$GRADER" --out "$root" --probe "$GPU_PROBE" --count-gpus 2>/dev/null) || gpus=0
have_nvcc=0
command -v "$NVCC" >/dev/null 2>&1 && have_nvcc=1

expected=0 unexpected=0 skipped=0
printf 'grade-selftest: faults planted in copies under %s; GPUs here: %s\n\n' "$root" "$gpus"

# skip_reason STEP: why a copy of this step cannot be graded here (empty: it can).
skip_reason() {
    local lang
    lang=$(registry_field "$1" lang)
    [ "$lang" = cu ] || return 0
    [ "$have_nvcc" = 1 ] || { echo "no nvcc"; return 0; }
    [ "$gpus" -gt 0 ] 2>/dev/null || { echo "no GPU"; return 0; }
}

# report GOT WHY: two lines per case, and the tally.
report() {
    local got=$1 why=$2 mark
    if [ "$got" = "$expect" ]; then
        mark=ok; expected=$((expected + 1))
    elif [ "$got" = SKIP ]; then
        mark=skip; skipped=$((skipped + 1))
    else
        mark=BAD; unexpected=$((unexpected + 1))
    fi
    printf '%-4s %s %-17s %s\n     expected %s, got %s: %s\n' "$mark" "$id" "$name" "$what" "$expect" "$got" "$why"
}

# how_it_failed NAME DIR WHY: what is wrong with the way a case failed (nothing when it failed as it must).
# A flood must be stopped as one, leaving no file of its grade over the cap that the grader names; a
# message with escape codes must be shown as plain text, no control character reaching the output.
how_it_failed() {
    local name=$1 dir=$2 why=$3 mib big
    case $name in
    output-flood)
        mib=$(sed -n 's/.*log exceeded \([0-9][0-9]*\) MiB: output flood.*/\1/p' <<< "$why")
        [ -n "$mib" ] || { echo "not stopped as an output flood: $why"; return; }
        big=$(find "$dir/grade" -type f -size +$((mib * 1024))k -print -quit)
        [ -z "$big" ] || echo "$big is over the $mib MiB log cap"
        ;;
    escape-in-*)
        [[ $why == *"forces "* ]] || { echo "the step's message is not shown: $why"; return; }
        if LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]' "$dir/grade.log" "$dir/grade/verdicts.csv"; then
            echo "escape codes or control characters reached the grader's output: $dir/grade.log"
        fi
        ;;
    esac
}

# run_case NAME STEP EXPECT FLAGS SED WHAT: copy, plant, build, grade, compare.
run_case() {
    local name=$1 id=$2 expect=$3 flags=$4 program=$5 what=$6
    local folder src ext dir skip
    folder=$(folder_of "$id")
    src=$(ls "$folder"/nbody.c "$folder"/nbody.cu 2>/dev/null | head -n1)
    skip=$(skip_reason "$id")
    if [ -n "$skip" ]; then
        report "SKIP" "$skip"
        return
    fi
    if [ -z "$src" ]; then
        report "BROKEN" "no source for step $id in steps.list"
        return
    fi
    ext=${src##*.}
    dir=$root/$id-$name
    mkdir -p "$dir"
    # Written through a temporary name and kept if unchanged, so make rebuilds only what changed.
    if ! sed -e "$program" "$src" > "$dir/nbody.$ext.new"; then
        report "BROKEN" "sed failed on $src"
        return
    fi
    if [ -n "$program" ] && cmp -s "$src" "$dir/nbody.$ext.new"; then
        report "BROKEN" "the fault was not planted: the sed matched nothing in $src (has the step changed?)"
        return
    fi
    cmp -s "$dir/nbody.$ext.new" "$dir/nbody.$ext" && rm -f "$dir/nbody.$ext.new" || mv "$dir/nbody.$ext.new" "$dir/nbody.$ext"
    local bin=$dir/$folder
    if ! $MAKE -s --no-print-directory BUILD="$BUILD" grade-copy COPY_ID="$id" COPY_SRC="$dir/nbody.$ext" \
        COPY_BIN="$bin" COPY_FLAGS="$flags" > "$dir/build.log" 2>&1; then
        report "BROKEN" "the copy did not build: see $dir/build.log"
        return
    fi
    # The OpenMP step is graded with its race check too: its -O0 build, as make grade makes it.
    local race=()
    if [ "$id" = "$omp_step" ]; then
        if ! $MAKE -s --no-print-directory BUILD="$BUILD" grade-copy COPY_ID="$id" COPY_SRC="$dir/nbody.$ext" \
            COPY_BIN="$bin-O0" COPY_FLAGS="$flags" COPY_RACE=1 > "$dir/build-O0.log" 2>&1; then
            report "BROKEN" "the -O0 copy did not build: see $dir/build-O0.log"
            return
        fi
        race=(--race-binary "$bin-O0")
    fi
    # A fault in the timing shows only in the timed run: a small one, for that case alone.
    local timing=(--no-timing)
    case $name in
    empty-region) timing=(--bodies 2048 --cpu-steps 2 --gpu-steps 2 --repeat 3) ;;
    tells-timed-runs | clamps-steps | skips-work-when-long) timing=(--bodies 2048 --cpu-steps 6 --gpu-steps 6 --repeat 3) ;;
    esac
    # The flood must be stopped by the cap, not by the time limit: a short limit, and a file-size limit of
    # the test's own far above any cap, so that a broken cap cannot fill the disk.
    local timeout=$GRADE_TIMEOUT file_limit=unlimited
    if [ "$name" = output-flood ]; then
        [ "${timeout%.*}" -le 60 ] 2>/dev/null || timeout=60
        file_limit=$((256 * 1024))
    fi
    (ulimit -f "$file_limit" && exec "$GRADER" --steps "$id" --binary "$bin" "${race[@]}" --label "$name" "${timing[@]}" \
        --out "$dir/grade" --ref-cache "$cache" --probe "$GPU_PROBE" --jobs "$GRADE_JOBS" --timeout "$timeout" \
        --check-n "$GRADE_CHECK_N") > "$dir/grade.log" 2>&1
    local rc=$? got why
    got=$(awk -F, 'NR == 2 { print $3 }' "$dir/grade/verdicts.csv" 2>/dev/null)
    why=$(awk -F, 'NR == 2 { print $4 }' "$dir/grade/verdicts.csv" 2>/dev/null)
    [ -n "$got" ] || { got=BROKEN; why="the grader wrote no verdict (exit status $rc): see $dir/grade.log"; }
    # The exit status must agree with the verdict: 1 for a FAIL, 0 for a PASS.
    if { [ "$got" = FAIL ] && [ $rc -ne 1 ]; } || { [ "$got" = PASS ] && [ $rc -ne 0 ]; }; then
        why="verdict $got but exit status $rc"
        got=BROKEN
    fi
    if [ "$got" = FAIL ]; then
        local wrong
        wrong=$(how_it_failed "$name" "$dir" "$why")
        [ -z "$wrong" ] || { got=BROKEN; why=$wrong; }
        wrong=$(wrong_cause "$id" "$name" "$dir")
        [ -z "$wrong" ] || { got=BROKEN; why=$wrong; }
    fi
    [ "$got" = PASS ] && why=$(awk -F, 'NR == 2 { printf "%s of %s cases passed", $6, $7 }' "$dir/grade/verdicts.csv")
    report "$got" "$why"
}

# only ID: whether SELFTEST_STEPS (if set) names step ID.
only() { [ -z "${SELFTEST_STEPS:-}" ] || [[ " $SELFTEST_STEPS " == *" $1 "* ]]; }
# named NAME: whether SELFTEST_ONLY (if set) starts NAME.
named() { [ -z "${SELFTEST_ONLY:-}" ] || [[ $1 == ${SELFTEST_ONLY}* ]]; }

for f in "${faults[@]}"; do
    named "$f" || continue
    IFS='|' read -r name id what program <<< "$f"
    only "$id" || continue
    run_case "$name" "$id" FAIL "" "$program" "$what"
done
for c in "${controls[@]}"; do
    IFS='|' read -r name id flags what <<< "$c"
    only "$id" || continue
    run_case "$name" "$id" PASS "$flags" "" "$what"
done

# The cheats (grading/cheats/README.md): whole step sources that want a better grade than they earn, one
# per class of attack on the grader. A .c cheat wraps step 00 and is graded with a small CPU timed run, a
# .cu cheat wraps step 03 with a GPU one (SKIP without a GPU), each beside its unchanged step graded the
# same way; it must FAIL, or (HONEST) PASS no faster than CHEAT_ROOM times the honest step, or (NOGAIN)
# either; and what it tried must have left no trace (the lab's files, the grader's output). Every grade
# of this run times one problem of a seed drawn now (the grader keeps its references while the seed
# stays): unknown to the cheats when they were built, as a grade's own is.
CHEAT_ROOM=1.3
cheat_seed=$(( $(od -An -N4 -tu4 /dev/urandom) + 1 ))
cpu_cheat_timing=(--bodies 2048 --cpu-steps 2 --gpu-steps 2 --repeat 3 --seed "$cheat_seed")
gpu_cheat_timing=(--bodies 32768 --gpu-steps 10 --repeat 3 --seed "$cheat_seed")
cheat_check_n="1 31 257 1000"
# grade_cheat ID NAME DIR BIN: grade a built copy of step ID with the cheats' sizes; prints
# "verdict|why|G/s|seconds|gpus", gpus the row's (the judge's, never the step's).
grade_cheat() {
    local id=$1 name=$2 dir=$3 bin=$4 t0 rc timing=("${cpu_cheat_timing[@]}") threads=()
    [ "$(registry_field "$id" lang)" = cu ] && timing=("${gpu_cheat_timing[@]}")
    [ "$name" = widens-its-cpus ] && threads=(OMP_NUM_THREADS=1) # fewer CPUs than the machine has, to widen
    t0=$(date +%s)
    rm -rf "$dir/grade"
    env "${threads[@]}" "$GRADER" --steps "$id" --binary "$bin" --label "$name" "${timing[@]}" --out "$dir/grade" \
        --ref-cache "$cache" --probe "$GPU_PROBE" --jobs "$GRADE_JOBS" --timeout "$GRADE_TIMEOUT" \
        --check-n "$cheat_check_n" > "$dir/grade.log" 2>&1
    rc=$?
    local got why gint row_gpus
    got=$(awk -F, 'NR == 2 { print $3 }' "$dir/grade/verdicts.csv" 2>/dev/null)
    why=$(awk -F, 'NR == 2 { print $4 }' "$dir/grade/verdicts.csv" 2>/dev/null)
    read -r gint row_gpus < <(awk -F, 'NR == 1 { for (k = 1; k <= NF; ++k) c[$k] = k; next }
        { g = $c["ginteractions_s"]; n = $c["gpus"] } END { print g, n }' "$dir/grade/results.csv" 2>/dev/null)
    if { [ "$got" = FAIL ] && [ $rc -ne 1 ]; } || { [ "$got" = PASS ] && [ $rc -ne 0 ]; }; then
        why="verdict $got but exit status $rc"; got=BROKEN
    fi
    [ -n "$got" ] || why="no verdict (exit status $rc): see $dir/grade.log"
    printf '%s|%s|%s|%s|%s\n' "${got:-BROKEN}" "$why" "${gint:-}" "$(($(date +%s) - t0))" "${row_gpus:-}"
}
lab_sum() { cat steps.list common/*.c common/*.h step*/nbody.c* 2>/dev/null | cksum; }
faster() { awk -v a="$1" -v b="$2" -v r="$3" 'BEGIN { exit !(a > r * b) }'; }
cheats() {
    local -A honest_gint
    local id name expect what
    # The honest speed of each step the cheats wrap: its unchanged copy (the controls above build it).
    # (not in a subshell: it keeps the faster of its runs in honest_gint, and leaves hs_got, hs_why, hs_gint)
    honest_speed() {
        local id=$1 folder dir
        folder=$(folder_of "$id")
        dir=$root/$id-cheat-honest
        mkdir -p "$dir"
        IFS='|' read -r hs_got hs_why hs_gint _ <<< "$(grade_cheat "$id" cheat-honest "$dir" "$root/$id-unchanged/$folder")"
        if [ "$hs_got" = PASS ] && [ -n "$hs_gint" ] &&
            { [ -z "${honest_gint[$id]:-}" ] || faster "$hs_gint" "${honest_gint[$id]}" 1; }; then
            honest_gint[$id]=$hs_gint
        fi
    }
    for id in "$cpu_step" "$gpu_step"; do
        only "$id" || continue
        name=cheat-honest expect=PASS what="the unchanged step $id at the cheats' sizes: the honest speed"
        local skip
        skip=$(skip_reason "$id")
        if [ -n "$skip" ]; then report SKIP "$skip"; continue; fi
        if [ ! -x "$root/$id-unchanged/$(folder_of "$id")" ]; then
            report BROKEN "no unchanged copy at $root/$id-unchanged"; continue
        fi
        honest_speed "$id"
        report "$hs_got" "${hs_why:-$hs_gint G interactions/s}"
    done
    for src in grading/cheats/*.c grading/cheats/*.cu; do
        [ -f "$src" ] || continue # a handout has none
        local head
        head=$(grep -m1 '^ \* cheat: ' "$src" | sed 's/^ \* cheat: //')
        IFS='|' read -r name id expect what <<< "$head"
        name=${name// /} id=${id// /} expect=${expect// /}
        what=$(sed -n '/^ \* cheat: /,/\*\//p' "$src" | sed 's/^ \* cheat: [^|]*|[^|]*|[^|]*| *//;s/^ \* *//;s/ *\*\/$//' | tr '\n' ' ')
        named "$name" || continue
        only "$id" || continue
        local skip
        skip=$(skip_reason "$id")
        if [ -n "$skip" ]; then report SKIP "$skip"; continue; fi
        local dir=$root/cheat-$name bin sum_before sum_after got why gint secs row_gpus
        bin=$dir/$(folder_of "$id")
        mkdir -p "$dir"
        rm -rf "$dir/grade"
        # CHEAT_PROGRAM: its program's real path (grading/cheats/own-path.h), as a student knows their lab's
        if ! $MAKE -s --no-print-directory BUILD="$BUILD" grade-copy COPY_ID="$id" COPY_SRC="$src" COPY_BIN="$bin" \
            COPY_FLAGS="-DCHEAT_PROGRAM='\"$(cd "$dir" && pwd)/$(folder_of "$id")-worker\"'" > "$dir/build.log" 2>&1; then
            local e=$expect; expect=FAIL; report BROKEN "the cheat did not build: see $dir/build.log"; expect=$e
            continue
        fi
        sum_before=$(lab_sum)
        IFS='|' read -r got why gint secs row_gpus <<< "$(grade_cheat "$id" "$name" "$dir" "$bin")"
        [ "$name" = writes-grader-files ] && sleep 3 # its process of its own would write two seconds later
        local shown=$expect wrong="" forged=""
        case $expect in
        HONEST | NOGAIN)
            if [ "$got" = PASS ]; then
                # Over the room: both again, the honest step in case the machine was busier then (its faster run
                # counts), the cheat in case it was idler (its slower run counts): a real gain shows in both runs,
                # one lucky 45 ms run on a 2-core machine (1.4 x, on 8186f30's CI) in one only.
                local again again_gint again_note=""
                if [ -n "$gint" ] && [ -n "${honest_gint[$id]:-}" ] && faster "$gint" "${honest_gint[$id]}" "$CHEAT_ROOM"; then
                    honest_speed "$id"
                    grep -rqs 'forged-by-a-cheat' "$dir/grade"/*.csv && forged=1 # the second grade clears them
                    IFS='|' read -r again _ again_gint _ <<< "$(grade_cheat "$id" "$name" "$dir" "$bin")"
                    [ "$name" = writes-grader-files ] && sleep 3
                    if [ "$again" != PASS ]; then
                        wrong="PASS, then ${again:-no verdict} when graded again"
                    elif [ -n "$again_gint" ] && faster "$gint" "$again_gint" 1; then
                        again_note="; its first run $gint"
                        gint=$again_gint
                    fi
                fi
                if [ -z "$gint" ] || [ -z "${honest_gint[$id]:-}" ] || faster "$gint" "${honest_gint[$id]}" "$CHEAT_ROOM"; then
                    wrong="${wrong:+$wrong; }PASS at ${gint:-no} G interactions/s, over $CHEAT_ROOM x the honest step's ${honest_gint[$id]:-?}"
                fi
                why="PASS at $gint G interactions/s (honest: ${honest_gint[$id]:-?}$again_note)"
            elif [ "$expect" = NOGAIN ] && [ "$got" = FAIL ]; then
                got=NOGAIN
            fi
            [ "$expect" = HONEST ] && shown=PASS
            [ "$expect" = NOGAIN ] && [ "$got" = PASS ] && got=NOGAIN
            ;;
        esac
        sum_after=$(lab_sum) # after every grade of it
        [ "$sum_before" = "$sum_after" ] || wrong="the lab's files changed while it was graded${wrong:+; $wrong}"
        if [ -n "$forged" ] || grep -rqs 'forged-by-a-cheat' "$dir/grade"/*.csv "$BUILD/grade"/*.csv 2>/dev/null; then
            wrong="a forged row reached the grader's CSV files${wrong:+; $wrong}"
        fi
        [ "$name" = never-returns ] && [ "${secs:-0}" -gt 180 ] && wrong="it cost ${secs} s, not a few minutes at most"
        [ "$name" = fork-bomb ] && [ "$got" = FAIL ] && [[ $why != *"limit of"* ]] && wrong="its FAIL names no limit: $why"
        [ -n "$row_gpus" ] && [ "$row_gpus" -gt "$gpus" ] 2>/dev/null &&
            wrong="its row says $row_gpus GPUs, $gpus here${wrong:+; $wrong}"
        if [ "$name" = log-flood ]; then
            local kib
            kib=$(du -sk "$dir/grade/logs" 2>/dev/null | cut -f1)
            [ "${kib:-0}" -le $(((64 + 1) * 1024)) ] || wrong="its logs take ${kib} KiB, over the step's cap"
        fi
        if [ -n "$wrong" ]; then
            got=BROKEN why=$wrong
        fi
        expect=$shown
        [ "$got" = NOGAIN ] && expect=NOGAIN
        report "$got" "$why (${secs} s)"
    done
}
if { only "$cpu_step" || only "$gpu_step"; } && [ -z "${SELFTEST_NO_CHEATS:-}" ]; then
    cheats
fi

# The forged reference: a step whose drift ignores dt, and a cache whose every state file at N = 31 is
# that step's own -o output (a float32 snapshot) for the same input, 4 steps of dt = 0.001. The cache
# must refuse what the reference did not write: the broken step FAILs, the unchanged one PASSes.
forged_cache() {
    local id=$cpu_step name=forged-cache expect what="a step whose drift ignores dt, graded against a cache of its own -o snapshots"
    local folder src dir bin fcache honest
    folder=$(folder_of "$id")
    src=$folder/nbody.c
    dir=$root/$id-$name
    bin=$dir/$folder
    fcache=$dir/cache
    honest=$root/$id-unchanged/$folder
    rm -rf "$fcache"
    mkdir -p "$fcache"
    expect=FAIL
    sed -e 's/s->\([xyz]\)\[i\] += s->v\([xyz]\)\[i\] \* run->dt;/s->\1[i] += s->v\2[i];/' "$src" > "$dir/nbody.c.new"
    if cmp -s "$src" "$dir/nbody.c.new"; then
        report "BROKEN" "the fault was not planted: the sed matched nothing in $src (has the step changed?)"
        return
    fi
    cmp -s "$dir/nbody.c.new" "$dir/nbody.c" && rm -f "$dir/nbody.c.new" || mv "$dir/nbody.c.new" "$dir/nbody.c"
    if ! $MAKE -s --no-print-directory BUILD="$BUILD" grade-copy COPY_ID="$id" COPY_SRC="$dir/nbody.c" \
        COPY_BIN="$bin" > "$dir/build.log" 2>&1; then
        report "BROKEN" "the copy did not build: see $dir/build.log"
        return
    fi
    local systems model masses before state forged=0
    for systems in 1 3; do
        for model in plummer uniform; do
            for masses in equal random; do
                before=$(ls "$fcache")
                "$bin" -q -n 31 -S "$systems" --model "$model" --masses "$masses" --validate-only \
                    --ref-cache "$fcache" > /dev/null 2>&1
                state=$(comm -13 <(echo "$before") <(ls "$fcache") | grep '^state-.*\.nbs$' | head -n 1)
                [ -n "$state" ] || continue
                "$bin" -q -n 31 -S "$systems" --model "$model" --masses "$masses" --steps 4 --dt 0.001 --repeat 1 \
                    --validate off -o "$fcache/$state" > /dev/null 2>&1 && forged=$((forged + 1))
            done
        done
    done
    if [ "$forged" -eq 0 ]; then
        report "BROKEN" "no state file was forged in $fcache"
        return
    fi
    local got rc
    "$GRADER" --steps "$id" --binary "$bin" --label "$name" --no-timing --out "$dir/grade" --ref-cache "$fcache" \
        --probe "$GPU_PROBE" --jobs "$GRADE_JOBS" --timeout "$GRADE_TIMEOUT" --check-n 31 > "$dir/grade.log" 2>&1
    rc=$?
    got=$(awk -F, 'NR == 2 { print $3 }' "$dir/grade/verdicts.csv" 2>/dev/null)
    report "${got:-BROKEN}" "$forged state files forged; $(awk -F, 'NR == 2 { print $4 }' "$dir/grade/verdicts.csv" 2>/dev/null) (exit $rc)"
    # The unchanged step against the same forged folder: the reference is recomputed, and it passes.
    name=forged-cache-honest expect=PASS what="the unchanged step graded against the same forged cache"
    if [ ! -x "$honest" ]; then
        report "BROKEN" "no unchanged copy at $honest"
        return
    fi
    "$GRADER" --steps "$id" --binary "$honest" --label "$name" --no-timing --out "$dir/grade-honest" \
        --ref-cache "$fcache" --probe "$GPU_PROBE" --jobs "$GRADE_JOBS" --timeout "$GRADE_TIMEOUT" --check-n 31 \
        > "$dir/grade-honest.log" 2>&1
    rc=$?
    got=$(awk -F, 'NR == 2 { print $3 }' "$dir/grade-honest/verdicts.csv" 2>/dev/null)
    report "${got:-BROKEN}" "$(awk -F, 'NR == 2 { print $4 }' "$dir/grade-honest/verdicts.csv" 2>/dev/null) (exit $rc)"
}
# Both forged-cache cases are step 00's, filtered as the others are. The honest half grades the unchanged
# step-00 copy that the controls above build whenever step 00 is kept (SELFTEST_ONLY leaves controls
# alone), and needs the broken half's cache: a prefix of either name runs both (any prefix of
# forged-cache is one of forged-cache-honest).
if only "$cpu_step" && named forged-cache-honest; then
    forged_cache
fi

printf '\ngrade-selftest: %d as expected, %d unexpected, %d skipped' "$expected" "$unexpected" "$skipped"
[ "$skipped" -gt 0 ] && printf ' (GPU cases need nvcc and a GPU)'
printf '; logs in %s/<step>-<case>/\n' "$root"
[ "$unexpected" -eq 0 ] && [ "$expected" -gt 0 ]
