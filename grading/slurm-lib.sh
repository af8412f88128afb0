# shellcheck shell=bash
# slurm-lib.sh: what make grade's and grade-class's Slurm runners share, sourced: . grading/slurm-lib.sh
#   slurm_sbatch_header NAME OUTPUT   the #SBATCH lines from the lab's settings (grading/lab-conf.sh)
#   slurm_job_prologue                the job script's first command (after every #SBATCH line)
#   slurm_submit SCRIPT [ARGS...]     sbatch --parsable; prints the job id (status 1 and sbatch's line if refused)
#   slurm_states JOB                  one line: the job's (or its array tasks') states and counts, e.g. "PENDING=3 RUNNING=2"
#   slurm_wait_states JOB             the same, retrying while squeue fails (a minute at most)
#   slurm_cancel_on_signal JOB        Ctrl-C (INT) or TERM: scancel JOB, say so, exit 130
# SLURM_POLL (seconds between squeue calls, default 5) is read here.
. "$(dirname "${BASH_SOURCE[0]}")/lab-conf.sh"
SLURM_POLL=${SLURM_POLL:-5}

slurm_sbatch_header() {
    local name=$1 output=$2 partition account gpus time
    partition=$(lab_conf SLURM_PARTITION) && account=$(lab_conf SLURM_ACCOUNT) &&
        gpus=$(lab_conf SLURM_GPUS) && time=$(lab_conf SLURM_TIME) || return 2
    [ -z "$gpus" ] || [[ $gpus =~ ^[0-9]+$ ]] || { echo "slurm: SLURM_GPUS='$gpus' is not a whole number" >&2; return 2; }
    echo "#!/bin/bash"
    echo "#SBATCH --job-name=$name"
    echo "#SBATCH --output=$output"
    [ -n "$partition" ] && echo "#SBATCH --partition=$partition"
    [ -n "$account" ] && echo "#SBATCH --account=$account"
    [ -n "$gpus" ] && [ "$gpus" != 0 ] && echo "#SBATCH --gres=gpu:$gpus"
    [ -n "$time" ] && echo "#SBATCH --time=$time"
    return 0
}

# The first command of a job script, after every #SBATCH line (sbatch reads none after a command): the
# job's make must not take the submitting make's jobserver (its file descriptors are not there).
slurm_job_prologue() { echo "unset MAKEFLAGS MFLAGS MAKELEVEL"; }

slurm_submit() {
    local out
    if ! out=$(timeout 60 sbatch --parsable "$@" 2>&1) || ! [[ ${out%%;*} =~ ^[0-9]+$ ]]; then
        echo "slurm: sbatch refused the job: ${out:-no answer within 60 s}" >&2
        return 1
    fi
    echo "${out%%;*}"
}

# squeue lists pending array tasks as one line "ID_[0-5%2]": its count is what the brackets hold. Status 1
# when squeue itself failed (the controller unreachable), so that a failure is never read as "ended";
# a job the controller no longer knows ("Invalid job id") has ended: nothing printed, status 0.
slurm_states() {
    local out rc
    out=$(timeout 30 squeue -h -j "$1" -o '%T %i' 2>/dev/null)
    rc=$?
    if [ "$rc" != 0 ]; then
        timeout 30 squeue -h -j "$1" 2>&1 | grep -q 'Invalid job id' && return 0
        return 1
    fi
    # An empty squeue (the job ended) is one empty line through <<<: no line, no job, never "=1".
    awk '
        NF < 2 { next }
        { n = 1
          if (match($2, /\[[^]]*\]/)) {
              r = substr($2, RSTART + 1, RLENGTH - 2); sub(/%.*/, "", r); n = 0
              k = split(r, part, ",")
              for (i = 1; i <= k; ++i) { if (split(part[i], ab, "-") == 2) n += ab[2] - ab[1] + 1; else n += 1 }
          }
          c[$1] += n }
        END { for (s in c) printf "%s=%d ", s, c[s] }' <<< "$out"
}

# slurm_wait_states JOB: like slurm_states, but squeue failing 12 times in a row (a minute at the
# default poll) is one line on stderr and status 1; single failures are retried.
slurm_wait_states() {
    local tries=0
    while ! slurm_states "$1"; do
        tries=$((tries + 1))
        [ "$tries" -ge 12 ] && { echo "slurm: squeue failed $tries times in a row: is slurmctld reachable? (job $1 may still run: squeue -j $1)" >&2; return 1; }
        sleep "$SLURM_POLL"
    done
}

slurm_cancel_on_signal() {
    SLURM_JOB_TO_CANCEL=$1
    trap 'echo; echo "slurm: interrupted: cancelling job $SLURM_JOB_TO_CANCEL (scancel)" >&2
          timeout 30 scancel "$SLURM_JOB_TO_CANCEL"; exit 130' INT TERM
}
