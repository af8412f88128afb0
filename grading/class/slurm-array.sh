#!/usr/bin/env bash
# INSTRUCTORS ONLY: grade-class's Slurm runner (make grade-class CLASS_RUNNER=slurm)
# slurm-array.sh SUBMISSIONS_DIR OUT_DIR: grades every student folder of SUBMISSIONS_DIR as one Slurm
# job array, CLASS_PER_TASK submissions per array task (default 4: a grade of a few minutes is a short
# job, and every task costs the scheduler an allocation), at most CLASS_MAX_RUNNING tasks at once
# (sbatch --array=0-K%M; default 0: no limit), each task running grading/class/grade-one.sh for its
# slice. Shows how many tasks are queued, running and done until the array ends, then runs
# grading/class/collect.sh OUT_DIR. Ctrl-C (or TERM) cancels the array. Partition, account, GPUs per
# task and time limit: lab.conf or the environment (grading/SLURM.md). OUT_DIR must be on a file system
# the nodes share. Status: 0 when every task ran and collect succeeded.
set -u
die() { echo "slurm-array.sh: $*" >&2; exit 2; }
[ $# -eq 2 ] || die "usage: grading/class/slurm-array.sh SUBMISSIONS_DIR OUT_DIR"
lab=$(cd "$(dirname "$0")/../.." && pwd)
[ -d "$1" ] || die "$1 is not a folder"
command -v sbatch >/dev/null 2>&1 && command -v squeue >/dev/null 2>&1 ||
    die "sbatch and squeue are not on PATH: CLASS_RUNNER=slurm needs a Slurm login node"
per=${CLASS_PER_TASK:-4} max=${CLASS_MAX_RUNNING:-0}
[[ $per =~ ^[1-9][0-9]*$ ]] || die "CLASS_PER_TASK='$per' is not a whole number above 0"
[[ $max =~ ^[0-9]+$ ]] || die "CLASS_MAX_RUNNING='$max' is not a whole number"
subs=$(cd "$1" && pwd) && mkdir -p "$2" && out=$(cd "$2" && pwd) || die "cannot use $1 or $2"
. "$lab/grading/slurm-lib.sh"

# The student folders (no links; names grade-one.sh accepts), one absolute path a line.
work=$out/slurm
mkdir -p "$work" || exit 2
list=$work/submissions.txt
: > "$list"
for d in "$subs"/*; do
    [ -d "$d" ] && [ ! -L "$d" ] || continue
    if [[ $(basename "$d") =~ ^[A-Za-z0-9_.-]+$ ]]; then echo "$d" >> "$list"
    else echo "slurm-array.sh: skipped '$(basename "$d")': a student id is letters, digits and _ . -" >&2; fi
done
count=$(wc -l < "$list")
[ "$count" -gt 0 ] || die "no student folders in $subs"
tasks=$(((count + per - 1) / per))
array="0-$((tasks - 1))"
[ "$max" != 0 ] && array="0-$((tasks - 1))%$max"

# The array task: its slice of the list, one grade-one.sh each; one student's failure stops nothing.
job_vars=()
for v in CLASS_STEPS CLASS_TIMEOUT GRADE_N GRADE_S GRADE_STEPS GRADE_CPU_STEPS GRADE_REPEAT GRADE_TIMEOUT GRADE_CHECK_N GRADE_JOBS GRADE_SANDBOX; do
    [ -n "${!v+set}" ] && job_vars+=("$v=${!v}")
done
{
    slurm_sbatch_header nbody-class "$work/task-%A_%a.out" || exit 2
    slurm_job_prologue
    [ ${#job_vars[@]} -gt 0 ] && printf 'export' && printf ' %q' "${job_vars[@]}" && echo
    printf 'first=$((SLURM_ARRAY_TASK_ID * %d + 1)); last=$((first + %d - 1))\n' "$per" "$per"
    printf 'sed -n "${first},${last}p" %q | while IFS= read -r sub; do\n' "$list"
    printf '    echo "grading $(basename "$sub") on $(hostname)"\n'
    printf '    bash %q "$sub" %q || echo "grade-one.sh failed for $sub: status $?"\n' "$lab/grading/class/grade-one.sh" "$out"
    printf 'done\n'
    printf 'echo done > %q/task-$SLURM_ARRAY_TASK_ID.done\n' "$work"
} > "$work/array.sh" || exit 2
rm -f "$work"/task-*.done

job=$(slurm_submit --array="$array" "$work/array.sh") || exit 1
slurm_cancel_on_signal "$job"
echo "slurm-array: job $job: $count submission(s) in $tasks task(s) of up to $per (--array=$array); outputs in $work (Ctrl-C cancels it)"

last=
while :; do
    state=$(slurm_wait_states "$job") || exit 1
    done_tasks=$(find "$work" -maxdepth 1 -name 'task-*.done' | wc -l)
    queued=$(sed -n 's/.*PENDING=\([0-9]*\).*/\1/p' <<< "$state")
    running=$(sed -n 's/.*RUNNING=\([0-9]*\).*/\1/p' <<< "$state")
    now="queued ${queued:-0}, running ${running:-0}, done $done_tasks of $tasks task(s)"
    [ "$now" != "$last" ] && echo "slurm-array: job $job: $now"
    last=$now
    [ -n "$state" ] || break
    sleep "$SLURM_POLL"
done
trap - INT TERM

status=0
if [ "$done_tasks" -lt "$tasks" ]; then
    echo "slurm-array: $((tasks - done_tasks)) task(s) of job $job ended before their slice was graded (time limit? see $work/task-${job}_*.out)" >&2
    status=1
fi
bash "$lab/grading/class/collect.sh" "$out" || status=1
exit $status
