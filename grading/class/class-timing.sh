#!/usr/bin/env bash
# INSTRUCTORS ONLY: the class grader's timing (grading/CLASS.md, "How long a class takes"); grading/handout.sh keeps it out of the handout.
# class-timing.sh WORK [STUDENTS] [STEPS]: how long make grade-class takes for a class of STUDENTS (default 4)
# copies of the lab's own solutions of STEPS (default "00 01 02 03 04 05 06"), CLASS_JOBS at a time
# (default 1), at make grade's default sizes. Prints one CSV line (with its header) to record in
# grading/CLASS.md: students, steps, jobs, seconds, seconds per student, device, date, commit.
# Run it on the machine to be measured (an H100 node for the GPU steps), idle; WORK is made afresh.
set -u -o pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
work=${1:?usage: grading/class/class-timing.sh WORK [STUDENTS] [STEPS]}
students=${2:-4}
steps=${3:-00 01 02 03 04 05 06}
jobs=${CLASS_JOBS:-1}
[[ $students =~ ^[1-9][0-9]{0,3}$ ]] || { echo "class-timing.sh: STUDENTS=$students: a whole number, 1 to 9999" >&2; exit 2; }
rm -rf "$work" && mkdir -p "$work/subs" || { echo "class-timing.sh: cannot make $work" >&2; exit 2; }
work=$(cd "$work" && pwd)
. "$here/common/steps.sh"
for k in $(seq 1 "$students"); do
    for s in $steps; do
        folder=$(STEPS_LIST=$here/steps.list registry_field "$s" folder) || { echo "class-timing.sh: no step $s" >&2; exit 2; }
        lang=$(STEPS_LIST=$here/steps.list registry_field "$s" lang)
        mkdir -p "$work/subs/student$k/$folder"
        cp "$here/$folder/nbody.$lang" "$work/subs/student$k/$folder/"
    done
done
start=$(date +%s.%N)
make -C "$here" --no-print-directory grade-class SUBMISSIONS="$work/subs" OUT="$work/out" CLASS_STEPS="$steps" \
    CLASS_JOBS="$jobs" > "$work/grade-class.log" 2>&1
status=$?
end=$(date +%s.%N)
device=$(nvidia-smi --query-gpu=name --format=csv,noheader 2> /dev/null | head -n 1)
[ -n "$device" ] || device="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //') (no GPU)"
passed=$(grep -c ',PASS,' "$work/out/class.csv" 2> /dev/null)
echo "students,steps,jobs,seconds,seconds_per_student,pass_rows,device,date,commit"
awk -v a="$start" -v b="$end" -v n="$students" -v st="$steps" -v j="$jobs" -v p="$passed" -v d="$device" \
    -v c="$(git -C "$here" rev-parse --short=12 HEAD 2> /dev/null)" -v t="$(date -u +%Y-%m-%d)" \
    'BEGIN { printf "%d,%s,%d,%.0f,%.0f,%d,\"%s\",%s,%s\n", n, st, j, b - a, (b - a) / n, p, d, t, c }'
[ $status -eq 0 ] || { echo "class-timing.sh: make grade-class failed (status $status): $work/grade-class.log" >&2; exit 1; }
