#!/usr/bin/env bash
# INSTRUCTORS ONLY: the platforms' grader (grading/GRADESCOPE.md, grading/PRAIRIELEARN.md); grading/handout.sh keeps it out of the handout.
# platform-remote.sh: the GPU steps of a platform's submission, graded on the course's GPU host.
#
#   platform-remote.sh send SUBMISSION DEST "STEPS" SECONDS    (on the platform: platform-run.sh)
#       tars SUBMISSION's sources of STEPS (regular files of at most 1 MiB; nothing else), sends them
#       over ssh to CLASS_REMOTE (platform.conf: user@host, CLASS_REMOTE_PORT; the key and known_hosts
#       in grading/class/remote/, inside the lab, which the grade's box hides from student code) and
#       unpacks the answer into DEST: rows.csv, grade.txt, failures/NN.txt (grade-one.sh's files).
#       DEST/status is "ok" or one line saying why not. Within SECONDS, whatever the host does.
#       CLASS_REMOTE_TRANSPORT=local (tests only) runs the host's side here, without ssh.
#   platform-remote.sh serve                                   (on the GPU host: the key's forced command)
#       SSH_ORIGINAL_COMMAND is "grade STEP... within SECONDS"; each STEP must be one of
#       CLASS_REMOTE_ALLOWED (default: the GPU steps of steps.list). Reads a tar of at most 8 MiB on
#       stdin, whose entries are STEPFOLDER/ and STEPFOLDER/nbody.c|cu only, regular files only;
#       grades it as one student with grade-one.sh (CLASS_RUNNER=slurm: as a one-task job array,
#       grading/class/slurm-array.sh) into CLASS_REMOTE_WORK (default ~/platform-grades), within
#       SECONDS (or CLASS_TIMEOUT, the smaller); writes the student's files as a tar on stdout.
#       Anything else is refused with one line on stderr, status 2.
# What the key can do: run this, with those arguments, and nothing else (grading/GRADESCOPE.md,
# "The GPU host").
set -u -o pipefail
me=platform-remote.sh
here=$(cd "$(dirname "$0")" && pwd)
lab=$(cd "$here/../.." && pwd)
max_tar=$((8 << 20))
entry_re='^(\./)?step[0-9]{2}_[a-z0-9_]+(/|/nbody\.(c|cu))?$'

send() {
    local sub=$1 dest=$2 steps=$3 secs=$4 conf_remote conf_port transport s folder lang files=()
    rm -rf "$dest" && mkdir -p "$dest" || return 2
    say() { echo "$*" > "$dest/status"; echo "$me: $*" >&2; }
    conf_remote=$(sed -n 's/^CLASS_REMOTE=\([A-Za-z0-9_.@-]*\)$/\1/p' "$here/platform.conf" 2> /dev/null | tail -n 1)
    conf_port=$(sed -n 's/^CLASS_REMOTE_PORT=\([0-9]*\)$/\1/p' "$here/platform.conf" 2> /dev/null | tail -n 1)
    transport=$(sed -n 's/^CLASS_REMOTE_TRANSPORT=\([a-z]*\)$/\1/p' "$here/platform.conf" 2> /dev/null | tail -n 1)
    while IFS=$'\t' read -r s folder lang _; do
        [[ " $steps " == *" $s "* ]] || continue
        local f=$sub/$folder/nbody.$lang
        if [ -f "$f" ] && [ ! -L "$f" ] && [ ! -L "$sub/$folder" ] && [ "$(stat -c %s -- "$f")" -le $((1 << 20)) ]; then
            files+=("$folder/nbody.$lang")
        fi
    done < <(STEPS_LIST=$lab/steps.list bash "$lab/common/steps.sh" registry_ids id folder lang gpus)
    if [ ${#files[@]} -eq 0 ]; then # nothing to send: those steps are TODO, as grade-one.sh says of them
        { echo 'student,step,verdict,reason'
          while IFS=$'\t' read -r s folder lang _; do
              [[ " $steps " == *" $s "* ]] && echo "submission,$s,TODO,no $folder/nbody.$lang in the submission"
          done < <(STEPS_LIST=$lab/steps.list bash "$lab/common/steps.sh" registry_ids id folder lang gpus); } > "$dest/rows.csv"
        echo ok > "$dest/status"
        return 0
    fi
    local want="grade $steps within $((secs > 20 ? secs - 20 : secs))" rc
    local cmd
    if [ "${CLASS_REMOTE_TRANSPORT:-$transport}" = local ]; then
        # Tests only: the host's side run here, as the forced command would run it.
        cmd=(env SSH_ORIGINAL_COMMAND="$want" bash "${CLASS_REMOTE_LAB:-$lab}/grading/class/platform-remote.sh" serve)
    else
        [ -n "$conf_remote" ] || { say "no CLASS_REMOTE in platform.conf"; return 0; }
        [ -r "$here/remote/key" ] && [ -r "$here/remote/known_hosts" ] ||
            { say "the bundle holds no key or known_hosts for $conf_remote"; return 0; }
        # ssh refuses a key others can read: a copy of it, its owner's alone.
        install -m 600 "$here/remote/key" "$dest/.key" 2> /dev/null || cp "$here/remote/key" "$dest/.key"
        chmod 600 "$dest/.key"
        cmd=(ssh -i "$dest/.key" -p "${conf_port:-22}" -o BatchMode=yes -o IdentitiesOnly=yes -o StrictHostKeyChecking=yes
            -o UserKnownHostsFile="$here/remote/known_hosts" -o ConnectTimeout=20 -o ServerAliveInterval=30 -T
            "$conf_remote" "$want")
    fi
    tar -C "$sub" -cf - --no-recursion "${files[@]}" 2> /dev/null |
        timeout --kill-after=5 "$secs" "${cmd[@]}" > "$dest/reply.tar" 2> "$dest/remote.err"
    rc=$?
    rm -f "$dest/.key"
    if [ $rc -ne 0 ]; then
        if [ $rc = 124 ] || [ $rc = 137 ]; then say "no answer within $secs s"
        else say "status $rc: $(tail -n 1 "$dest/remote.err" | tr -d '\000-\037' | head -c 200)"; fi
        return 0
    fi
    # The answer: grade-one.sh's files of one student, nothing else, no link.
    local bad
    bad=$(tar -tvf "$dest/reply.tar" 2> /dev/null | awk '$1 !~ /^[-d]/ { print }' | head -n 1)
    if [ -n "$bad" ] || ! tar -tf "$dest/reply.tar" > "$dest/list" 2> /dev/null ||
        grep -qvE '^(\./)?(rows\.csv|grade\.txt|failures/?|failures/[0-9]{2}\.txt)$' "$dest/list"; then
        say "the GPU host's answer was not the grader's files"
        return 0
    fi
    tar -xf "$dest/reply.tar" -C "$dest" --no-same-owner --no-same-permissions || { say "its answer could not be unpacked"; return 0; }
    [ -f "$dest/rows.csv" ] || { say "its answer holds no rows.csv"; return 0; }
    echo ok > "$dest/status"
    echo "$me: the GPU host graded steps $steps"
}

serve() {
    refuse() { echo "$me: refused: $*" >&2; exit 2; }
    local req=${SSH_ORIGINAL_COMMAND:-} steps=() secs allowed s
    # work, reqdir and id are global: the EXIT trap removes this request's files after serve returns.
    [[ $req =~ ^grade(( [0-9]{2})+)\ within\ ([1-9][0-9]{0,4})$ ]] || refuse "the command is 'grade STEP... within SECONDS'"
    read -r -a steps <<< "${BASH_REMATCH[1]}"
    secs=${BASH_REMATCH[3]}
    allowed=${CLASS_REMOTE_ALLOWED:-$(STEPS_LIST=$lab/steps.list bash "$lab/common/steps.sh" registry_ids id gpus | awk -F'\t' '$2 > 0 { printf "%s ", $1 }')}
    for s in "${steps[@]}"; do [[ " $allowed " == *" $s "* ]] || refuse "step $s is not graded here (CLASS_REMOTE_ALLOWED: $allowed)"; done
    [ -z "${CLASS_TIMEOUT:-}" ] || [ "$CLASS_TIMEOUT" -ge "$secs" ] 2> /dev/null || secs=$CLASS_TIMEOUT
    work=${CLASS_REMOTE_WORK:-$HOME/platform-grades}
    mkdir -p "$work/out" "$work/requests" || refuse "cannot write $work"
    reqdir=$(mktemp -d "$work/requests/r.XXXXXXXX") || refuse "cannot write in $work/requests"
    id=s${reqdir##*.}
    id=${id,,}
    trap 'rm -rf "$reqdir"; rm -rf "${work:?}/out/students/${id:?}" "$work/out/work/$id"' EXIT
    head -c $((max_tar + 1)) > "$reqdir/in.tar"
    [ "$(stat -c %s "$reqdir/in.tar")" -le $max_tar ] || refuse "over $max_tar bytes"
    [ -s "$reqdir/in.tar" ] || refuse "no step source sent"
    mkdir -p "$reqdir/subs/$id"
    tar -tvf "$reqdir/in.tar" > "$reqdir/list.v" 2> /dev/null || refuse "not a tar"
    awk '$1 !~ /^[-d]/' "$reqdir/list.v" | grep -q . && refuse "only regular files and folders"
    tar -tf "$reqdir/in.tar" | grep -qvE "$entry_re" && refuse "only STEPFOLDER/nbody.c|cu"
    tar -xf "$reqdir/in.tar" -C "$reqdir/subs/$id" --no-same-owner --no-same-permissions || refuse "cannot unpack"
    local rc
    if [ "${CLASS_RUNNER:-}" = slurm ]; then
        CLASS_STEPS="${steps[*]}" CLASS_TIMEOUT=$secs timeout --kill-after=10 "$secs" \
            bash "$here/slurm-array.sh" "$reqdir/subs" "$work/out" >&2
    else
        CLASS_VIEW=0 CLASS_STEPS="${steps[*]}" CLASS_TIMEOUT=$secs bash "$here/grade-one.sh" "$reqdir/subs/$id" "$work/out" >&2
    fi
    rc=$?
    local d=$work/out/students/$id
    [ -f "$d/rows.csv" ] || { echo "$me: the grade wrote nothing (status $rc)" >&2; exit 1; }
    local parts=(rows.csv)
    [ -f "$d/grade.txt" ] && parts+=(grade.txt)
    [ -d "$d/failures" ] && parts+=(failures)
    # The rows name the request's id: the platform's side reads them by step only.
    tar -C "$d" -cf - "${parts[@]}"
}

case ${1:-} in
send) [ $# -eq 5 ] || { echo "$me: usage: send SUBMISSION DEST STEPS SECONDS" >&2; exit 2; }; send "$2" "$3" "$4" "$5" ;;
serve) serve ;;
*) echo "$me: usage: platform-remote.sh send SUBMISSION DEST \"STEPS\" SECONDS | serve" >&2; exit 2 ;;
esac
