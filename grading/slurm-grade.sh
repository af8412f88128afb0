#!/usr/bin/env bash
# slurm-grade.sh STEPS -- GRADER ARGS...: make grade's last stage (grading/grading.mk). Runs the grader
# here, except on a machine with no GPU where sbatch is on PATH and lab.conf (or the environment) names
# a partition: then the GPU steps are graded by one Slurm job that runs `make grade STEPS=<them>` on a
# node, in this same folder (a file system shared with the nodes is assumed: grading/SLURM.md). The CPU
# steps are graded here first; the job's grade folder starts from their results, so its table, printed
# at the end, is the whole ladder; its rows are merged into GRADE_DIR's results.csv and verdicts.csv by
# step. Ctrl-C cancels the job. Without a GPU and without Slurm, one hint line follows the grader's SKIPs.
#   STEPS: the ids asked for (empty: every step). GRADER ARGS: the grader's command line without --steps.
#   Environment (set by grading.mk): BUILD GRADE_DIR GPU_PROBE MAKE and the GRADE_* knobs, passed to the job.
#   SLURM_GRADE_STEPS="01": grade exactly these steps through Slurm, GPU or not (make test-slurm does).
#   SLURM_GRADE_LOCAL=1: never use Slurm (set inside the job).
#   SLURM_GRADE_DRY_RUN=1: grade the local steps, then print the job script instead of submitting it.
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
steps=$1
[ "${2:-}" = -- ] || { echo "usage: grading/slurm-grade.sh STEPS -- GRADER ARGS..." >&2; exit 2; }
shift 2
grader=("$@")
grade_dir=${GRADE_DIR:?slurm-grade.sh: GRADE_DIR is not set}
build=${BUILD:-build}

# grade_here STEPS: the grader as make grade always ran it.
grade_here() { "${grader[@]}" --steps "$1"; }

# A GPU here: the probe's count, else nvidia-smi's list; the grader decides the same way (grading/gpus.c).
have_gpu() {
    if [ -n "${GPU_PROBE:-}" ] && [ -x "$GPU_PROBE" ]; then
        [ "$(timeout 60 "$GPU_PROBE" 2>/dev/null | head -n1)" -gt 0 ] 2>/dev/null
    else
        timeout 60 nvidia-smi -L 2>/dev/null | grep -q '^GPU '
    fi
}

# The hint under the grader's "SKIP (compiled, no GPU)" rows, when it wrote some.
hint_if_skipped() {
    grep -qs ',SKIP,compiled' "$grade_dir/verdicts.csv" &&
        echo "hint: no GPU here: a Slurm cluster can grade the GPU steps (set SLURM_PARTITION in lab.conf: grading/SLURM.md)"
    return 0
}

if [ "${SLURM_GRADE_LOCAL:-}" = 1 ]; then
    grade_here "$steps"
    exit
fi
. "$here/grading/slurm-lib.sh"
partition=$(lab_conf SLURM_PARTITION) || exit 2
gpu_here=no
[ -z "${SLURM_GRADE_STEPS:-}" ] && have_gpu && gpu_here=yes
if [ -z "${SLURM_GRADE_STEPS:-}" ] && { [ $gpu_here = yes ] || ! command -v sbatch >/dev/null 2>&1 || [ -z "$partition" ]; }; then
    grade_here "$steps"
    rc=$?
    [ $gpu_here = yes ] || hint_if_skipped
    exit $rc
fi

# Which steps go where: the GPU steps (lang cu) to Slurm, or exactly SLURM_GRADE_STEPS.
. "$here/common/steps.sh"
all_ids=$(registry_ids id) || exit 2
[ -n "$steps" ] || steps=$(echo $all_ids)
remote='' local=''
for s in $steps; do
    if [ -n "${SLURM_GRADE_STEPS:-}" ]; then
        case " $SLURM_GRADE_STEPS " in *" $s "*) remote+=" $s" ;; *) local+=" $s" ;; esac
    elif [ "$(registry_field "$s" lang 2>/dev/null)" = cu ]; then
        remote+=" $s"
    else
        local+=" $s"
    fi
done
remote=${remote# } local=${local# }

rc_local=0
if [ -n "$local" ]; then
    [ -n "$remote" ] && echo "slurm-grade: step(s) $local here; then step(s) $remote through Slurm, partition ${partition:-default}"
    grade_here "$local"
    rc_local=$?
fi
[ -n "$remote" ] || exit $rc_local

# The job's own folders: a build for the node's CPU and GPU, and a grade folder that starts from ours.
abs_build=$(mkdir -p "$build" && cd "$build" && pwd)
abs_grade=$(mkdir -p "$grade_dir" && cd "$grade_dir" && pwd)
job_dir=$abs_grade/slurm/$(date -u +%Y%m%d-%H%M%S)-$$
mkdir -p "$job_dir/grade" || exit 2
[ -f "$abs_grade/results.csv" ] && cp "$abs_grade/results.csv" "$job_dir/grade/results.csv"

job_vars=()
for v in GRADE_N GRADE_S GRADE_STEPS GRADE_CPU_STEPS GRADE_REPEAT GRADE_TIMEOUT GRADE_CHECK_N GRADE_JOBS GRADE_SANDBOX GRADE_HIDE DEPS_ROOT; do
    [ -n "${!v+set}" ] && job_vars+=("$v=${!v}")
done
# An mpi:R step's mpirun -np R needs R slots in the allocation (OpenMPI counts Slurm's tasks): R tasks on one node.
ranks=1
for s in $remote; do
    launch=$(registry_field "$s" launch 2>/dev/null)
    [[ $launch =~ ^mpi:([0-9]+)$ ]] && [ "${BASH_REMATCH[1]}" -gt "$ranks" ] && ranks=${BASH_REMATCH[1]}
done
{
    slurm_sbatch_header nbody-grade "$job_dir/job.out" || exit 2
    [ "$ranks" -gt 1 ] && printf '#SBATCH --nodes=1\n#SBATCH --ntasks=%d\n' "$ranks"
    slurm_job_prologue
    printf 'cd %q || exit 2\n' "$here"
    printf 'make --no-print-directory'
    printf ' %q' "${job_vars[@]}" "BUILD=$abs_build/slurm-node" "GRADE_DIR=$job_dir/grade" SLURM_GRADE_LOCAL=1 grade "STEPS=$remote"
    printf '\necho $? > %q\n' "$job_dir/status"
} > "$job_dir/job.sh" || exit 2

if [ "${SLURM_GRADE_DRY_RUN:-}" = 1 ]; then
    echo "slurm-grade: dry run: the job script that would be submitted, $job_dir/job.sh:"
    cat "$job_dir/job.sh"
    exit 0
fi
job=$(slurm_submit "$job_dir/job.sh") || exit 1
slurm_cancel_on_signal "$job"
echo "slurm-grade: job $job grades step(s) $remote on the cluster; its output: $job_dir/job.out (Ctrl-C cancels it)"

# Where it stands: the state when it changes, and the grader's newest progress line while it runs.
last=
while :; do
    state=$(slurm_wait_states "$job") || exit 1
    [ -n "$state" ] || break
    now="$state"
    if [[ $state == *RUNNING* ]]; then
        line=$(grep -E '^  [0-9]+ ' "$job_dir/job.out" 2>/dev/null | tail -n1)
        now="$state ${line:+| ${line#  }}"
    elif [[ $state == *PENDING* ]]; then
        now="$state ($(timeout 30 squeue -h -j "$job" -o %r 2>/dev/null | head -n1))"
    fi
    [ "$now" != "$last" ] && echo "slurm-grade: job $job: $now"
    last=$now
    sleep "$SLURM_POLL"
done
trap - INT TERM

# The grader's table from the job's output (its own progress lines were shown above).
echo
sed -n '/^step  *name /,$p' "$job_dir/job.out"
status=$(cat "$job_dir/status" 2>/dev/null)
if ! [[ $status =~ ^[0-9]+$ ]]; then
    echo "slurm-grade: job $job ended without finishing make grade ($(timeout 30 scontrol show job "$job" 2>/dev/null |
        grep -o 'JobState=[A-Z_]* Reason=[^ ]*' || echo 'its state is gone')); its output: $job_dir/job.out" >&2
    tail -n 20 "$job_dir/job.out" >&2
    exit 1
fi

# merge_by_step FILE: the job's rows of FILE for its steps replace ours (both with the same header).
merge_by_step() {
    local ours=$abs_grade/$1 theirs=$job_dir/grade/$1
    [ -f "$theirs" ] || return 0
    if [ ! -f "$ours" ] || [ "$(head -n1 "$ours")" != "$(head -n1 "$theirs")" ]; then
        cp "$theirs" "$ours"
        return
    fi
    awk -F, -v steps=" $remote " '
        FNR == 1 { for (k = 1; k <= NF; ++k) if ($k == "step") col = k; if (FILENAME == ARGV[1]) print; next }
        FILENAME == ARGV[1] { if (index(steps, " " $col " ") == 0) print; next }
        index(steps, " " $col " ") > 0' "$ours" "$theirs" > "$ours.tmp" && mv "$ours.tmp" "$ours"
}
merge_by_step results.csv
merge_by_step verdicts.csv
[ "$status" = 0 ] || echo "slurm-grade: the job's make grade ended with status $status: see $job_dir/job.out" >&2
echo "slurm-grade: the job's rows for step(s) $remote are in $grade_dir/results.csv and verdicts.csv (make grade-plot redraws the ladder)"
[ "$status" = 0 ] && exit $rc_local
exit "$status"
