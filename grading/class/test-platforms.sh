#!/usr/bin/env bash
# INSTRUCTORS ONLY: the platforms' grader's test (grading/GRADESCOPE.md, grading/PRAIRIELEARN.md); grading/handout.sh keeps it out of the handout.
# test-platforms.sh WORK: make test-platforms. Each platform's bundle (make gradescope, make prairielearn,
# at small sizes) unpacked, its setup.sh run once, then every submission graded in a fresh copy, inside a
# bubblewrap box that looks like the platform's machine: the bundle bound at /autograder/source (at
# /nbody for PrairieLearn), the submission at /autograder/submission (/grade/student), the results at
# /autograder/results (/grade/results); the rest of / read-only, the lab's checkout not there, /tmp
# its own. Limits: a control group of half a CPU and 768 MB where cgroup v1's cpu and memory are
# writable (else taskset to one CPU and prlimit --as, and said so), and the platform's time limit.
#   correct   a zip of a copy of the handout in a wrapping folder, the solutions in it    PASS
#   wrong     step folders: 00 with its masses left out, 01 a sign flipped                 FAIL, its cause
#   broken    00 does not compile, 01 the stub                                            build failed, TODO
#   cheat     00 grading/cheats/forged-verdict.c, 01 a link to the lab's solution          FAIL, refused
#   and, with what-to-upload answers: empty, a binary, a zip bomb, a 70 MiB zip, wrong folder names
# Every results.json is checked against the platform's documented schema (below: keys, types, ranges).
# Then the GPU path: a bundle whose step 01 goes to a "GPU host" (the lab itself, over ssh to
# localhost, through a one-node Slurm: tests/slurm/cluster.sh), where root can install openssh-server
# and Slurm as the lab installs its dependencies; else the same through the local transport, said so.
# One PASS/FAIL/SKIP line per check; exit 1 if any failed.
set -u -o pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -eq 1 ] || { echo "test-platforms.sh: usage: grading/class/test-platforms.sh WORK" >&2; exit 2; }
if [ -f "$here/.handout" ]; then echo "SKIP test-platforms: a handout has no grader to bundle"; exit 0; fi
work=$1
rm -rf "$work" && mkdir -p "$work" || exit 2
work=$(cd "$work" && pwd)
bash "$here/common/deps.sh" python3 || { echo "SKIP test-platforms: no python3"; exit 0; }
bash "$here/common/deps.sh" bwrap || { echo "SKIP test-platforms: no bubblewrap"; exit 0; }
command -v zip > /dev/null 2>&1 || { [ "$(id -u)" = 0 ] && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends zip unzip > /dev/null 2>&1; }
command -v zip > /dev/null 2>&1 && command -v unzip > /dev/null 2>&1 || { echo "SKIP test-platforms: no zip/unzip (apt-get install zip unzip)"; exit 0; }
t_start=$SECONDS
fails=0
pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
check() { local what=$1; shift; if "$@"; then pass "$what"; else fail "$what"; fi; }
# GRADE_TIMEOUT bounds a build too: nvcc builds step 02 in the box at half a CPU in about 8-11 s
small=(GRADE_N=1024 "GRADE_CHECK_N=1 31 257" GRADE_TIMEOUT=60 PLATFORM_TIME_LIMIT=300)

# ---- the limits -----------------------------------------------------------------------------------
cg=""
limits_said=""
if [ "$(id -u)" = 0 ] && [ -w /sys/fs/cgroup/cpu ] && [ -w /sys/fs/cgroup/memory ] && [ -e /sys/fs/cgroup/cpu/cpu.cfs_quota_us ]; then
    cg=nbody-platform-test-$$
    if mkdir "/sys/fs/cgroup/cpu/$cg" "/sys/fs/cgroup/memory/$cg" 2> /dev/null &&
        echo 100000 > "/sys/fs/cgroup/cpu/$cg/cpu.cfs_period_us" && echo 50000 > "/sys/fs/cgroup/cpu/$cg/cpu.cfs_quota_us" &&
        echo $((768 << 20)) > "/sys/fs/cgroup/memory/$cg/memory.limit_in_bytes"; then
        limits_said="half a CPU (cgroup v1 cpu quota 50 ms per 100 ms) and 768 MB (cgroup v1 memory.limit_in_bytes)"
    else
        rmdir "/sys/fs/cgroup/cpu/$cg" "/sys/fs/cgroup/memory/$cg" 2> /dev/null
        cg=""
    fi
fi
[ -n "$cg" ] || limits_said="NOT half a CPU: one CPU (taskset -c 0); NOT 768 MB of memory: 768 MB of address space (prlimit --as)"
cleanup() {
    [ -n "${sshd_pid:-}" ] && kill "$sshd_pid" 2> /dev/null
    [ -n "${slurm_started:-}" ] && slurm_down
    if [ -n "$cg" ]; then
        for c in cpu memory; do
            while read -r p; do echo "$p" > "/sys/fs/cgroup/$c/cgroup.procs" 2> /dev/null; done < "/sys/fs/cgroup/$c/$cg/cgroup.procs" 2> /dev/null
            rmdir "/sys/fs/cgroup/$c/$cg" 2> /dev/null
        done
    fi
}
trap cleanup EXIT
echo "     limits: $limits_said; the time limit 300 s (PLATFORM_TIME_LIMIT); no GPU"

box_extra=() # the local transport's host: the lab and its work folder, seen in the box
# box MOUNT:PATH... -- COMMAND...: the command in a platform-like box (each MOUNT bound read-write at PATH).
box() {
    local args=(--tmpfs / --dev-bind /dev /dev --bind /proc /proc --tmpfs /tmp --tmpfs /var/tmp --ro-bind /sys /sys --die-with-parent) e n
    for e in /*; do
        n=${e#/}
        case $n in dev | proc | sys | tmp | autograder | grade | nbody | work) continue ;; esac
        if [ -L "$e" ]; then args+=(--symlink "$(readlink "$e")" "$e")
        elif [ -d "$e" ]; then args+=(--ro-bind "$e" "$e"); fi
    done
    args+=("${box_extra[@]}")
    while [ "$1" != -- ]; do args+=(--bind "${1%%:*}" "${1#*:}"); shift; done
    shift
    local run=(bwrap "${args[@]}" -- "$@")
    if [ -n "$cg" ]; then
        bash -c 'echo $$ > /sys/fs/cgroup/cpu/'"$cg"'/cgroup.procs && echo $$ > /sys/fs/cgroup/memory/'"$cg"'/cgroup.procs && exec "$@"' box \
            timeout --kill-after=10 320 "${run[@]}"
    else
        taskset -c 0 prlimit --as=$((768 << 20)) timeout --kill-after=10 320 "${run[@]}"
    fi
}

# ---- the submissions ------------------------------------------------------------------------------
s0=$here/step00_serial/nbody.c s1=$here/step01_omp/nbody.c s2=$here/step02_cuda_naive/nbody.cu
subs=$work/subs
mkdir -p "$subs"
mk() { mkdir -p "$subs/$1/$(dirname "$2")" && cat > "$subs/$1/$2"; }
# correct: a copy of the handout (its Makefile, common/, the steps) in a folder, zipped.
mkdir -p "$work/zipsrc/nbody-lab/common"
cp "$here/Makefile" "$work/zipsrc/nbody-lab/" && cp "$here/common/nbody.h" "$work/zipsrc/nbody-lab/common/"
for f in "$s0" "$s1" "$s2"; do d=$work/zipsrc/nbody-lab/$(basename "$(dirname "$f")"); mkdir -p "$d" && cp "$f" "$d/"; done
mkdir -p "$subs/correct" && (cd "$work/zipsrc" && zip -q -r "$subs/correct/nbody-lab.zip" nbody-lab)
sed 's/= m\[j\] \* inv \* inv \* inv/= inv * inv * inv/' "$s0" | mk wrong step00_serial/nbody.c
sed 's/const float dxa = x\[j\] - x\[a\]/const float dxa = x[a] - x[j]/' "$s1" | mk wrong step01_omp/nbody.c
{ cat "$s0"; echo '#error "</td><script>x</script> & \"quoted\""'; } | mk broken step00_serial/nbody.c
bash "$here/grading/handout.sh" --strip "$s1" | mk broken step01_omp/nbody.c
mk cheat step00_serial/nbody.c < "$here/grading/cheats/forged-verdict.c"
mkdir -p "$subs/cheat/step01_omp" && ln -s "$s1" "$subs/cheat/step01_omp/nbody.c"
mkdir -p "$subs/empty"
mkdir -p "$subs/binary" && cp /bin/true "$subs/binary/a.out"
mkdir -p "$subs/bomb" && python3 - "$subs/bomb/submission.zip" << 'EOF'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
    with z.open("step00_serial/nbody.c", "w", force_zip64=True) as f:
        block = b"\0" * (1 << 20)
        for _ in range(300):   # 300 MiB of zeros in a zip of about 300 KB
            f.write(block)
EOF
mkdir -p "$subs/toobig" && truncate -s $((70 << 20)) "$subs/toobig/submission.zip"
cat "$s0" | mk names Step00/nbody.c
cat "$s1" | mk names step01_omp.c
check "the submissions: a zip of a handout copy, a planted fault, a cheat of grading/cheats/, five bad uploads" \
    bash -c "[ -s '$subs/correct/nbody-lab.zip' ] && ! cmp -s '$s0' '$subs/wrong/step00_serial/nbody.c' && ! cmp -s '$s1' '$subs/wrong/step01_omp/nbody.c' && [ -L '$subs/cheat/step01_omp/nbody.c' ] && [ \$(stat -c %s '$subs/bomb/submission.zip') -lt 2000000 ]"

# ---- the schemas ----------------------------------------------------------------------------------
# Gradescope (https://gradescope-autograders.readthedocs.io/en/latest/specs/, "Output format") and
# PrairieLearn (https://prairielearn.readthedocs.io/en/latest/externalGrading/, "Grading results").
cat > "$work/schema.py" << 'EOF'
import json, sys
platform, path = sys.argv[1], sys.argv[2]
d = json.load(open(path))
err = []
num = (int, float)
def need(obj, key, types, where):
    if key not in obj: err.append(f"{where}: no {key}")
    elif not isinstance(obj[key], types) or isinstance(obj[key], bool) and bool not in (types if isinstance(types, tuple) else (types,)):
        err.append(f"{where}: {key} is {type(obj[key]).__name__}")
if platform == "gradescope":
    known = {"score", "execution_time", "output", "output_format", "test_output_format", "test_name_format", "visibility",
             "stdout_visibility", "extra_data", "tests", "leaderboard"}
    err += [f"unknown key {k}" for k in d if k not in known]
    need(d, "score", num, "top"); need(d, "tests", list, "top"); need(d, "output", str, "top")
    vis = {"hidden", "after_due_date", "after_published", "visible"}
    for k in ("visibility", "stdout_visibility"):
        if k in d and d[k] not in vis: err.append(f"top: {k} {d[k]!r}")
    total = 0.0
    for i, t in enumerate(d.get("tests", [])):
        w = f"tests[{i}]"
        for k in t:
            if k not in {"score", "max_score", "status", "name", "name_format", "number", "output", "output_format", "tags", "visibility", "extra_data"}:
                err.append(f"{w}: unknown key {k}")
        need(t, "name", str, w); need(t, "score", num, w); need(t, "max_score", num, w); need(t, "output", str, w)
        if "status" in t and t["status"] not in ("passed", "failed"): err.append(f"{w}: status {t['status']!r}")
        if isinstance(t.get("score"), num) and isinstance(t.get("max_score"), num):
            if not (0 <= t["score"] <= t["max_score"]): err.append(f"{w}: score {t['score']} of {t['max_score']}")
            total += t["score"]
    if isinstance(d.get("score"), num) and abs(total - d["score"]) > 1e-9: err.append(f"score {d['score']} is not the tests' {total}")
    for i, e in enumerate(d.get("leaderboard", [])):
        need(e, "name", str, f"leaderboard[{i}]")
        if not isinstance(e.get("value"), (int, float, str)) or isinstance(e.get("value"), bool): err.append(f"leaderboard[{i}]: value")
        if "order" in e and e["order"] not in ("asc", "desc"): err.append(f"leaderboard[{i}]: order")
else:
    known = {"gradable", "score", "message", "output", "images", "tests", "succeeded", "format_errors", "partial_scores"}
    err += [f"unknown key {k}" for k in d if k not in known]
    need(d, "gradable", bool, "top"); need(d, "score", num, "top"); need(d, "message", str, "top"); need(d, "output", str, "top")
    if isinstance(d.get("score"), num) and not (0 <= d["score"] <= 1): err.append(f"score {d['score']} not in 0..1")
    need(d, "tests", list, "top")
    for i, t in enumerate(d.get("tests", [])):
        w = f"tests[{i}]"
        for k in t:
            if k not in {"name", "description", "points", "max_points", "message", "output", "images"}: err.append(f"{w}: unknown key {k}")
        need(t, "name", str, w); need(t, "points", num, w); need(t, "max_points", num, w)
        if isinstance(t.get("points"), num) and isinstance(t.get("max_points"), num) and not (0 <= t["points"] <= t["max_points"]):
            err.append(f"{w}: points {t['points']} of {t['max_points']}")
if err:
    print("; ".join(err))
    sys.exit(1)
EOF
# jq-like: a python expression over the results (d), printed.
q() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$1" "$2" 2> /dev/null; }

# ---- the bundles, set up once each ------------------------------------------------------------------
env "${small[@]}" CLASS_STEPS="00 01 02" bash "$here/grading/class/platform-bundle.sh" gradescope "$work/gs-bundle" > "$work/bundle.log" 2>&1
env "${small[@]}" CLASS_STEPS="00 01" bash "$here/grading/class/platform-bundle.sh" prairielearn "$work/pl-bundle" >> "$work/bundle.log" 2>&1
bash "$here/grading/class/platform-bundle.sh" gradescope "$work/default-bundle" >> "$work/bundle.log" 2>&1
zip=$work/gs-bundle/nbody-gradescope.zip
check "make gradescope: a zip with setup.sh and run_autograder at its top, the lab at the commit, no solution, no INSTRUCTORS.md" \
    bash -c "unzip -l '$zip' | grep -qE ' setup.sh\$' && unzip -l '$zip' | grep -qE ' run_autograder\$' &&
        unzip -p '$zip' lab/grading/class/platform.conf | grep -qx 'CLASS_LAB_COMMIT=$(git -C "$here" rev-parse HEAD)' &&
        unzip -p '$zip' lab/step00_serial/nbody.c | awk -f '$here/grading/todo.awk' > /dev/null &&
        ! unzip -l '$zip' | grep -q INSTRUCTORS.md && ! unzip -p '$zip' '*.c' '*.cu' | grep -q 'BEGIN SOLUTION'"
check "make gradescope with no settings: GRADE_N=16384 (step 00 at 65536 was killed at half a CPU), every step" \
    bash -c "unzip -p '$work/default-bundle/nbody-gradescope.zip' lab/grading/class/platform.conf | grep -qx GRADE_N=16384"
check "make prairielearn: grader-image/ (Dockerfile, setup.sh, entrypoint.sh, lab/) and question/info.json (External, its entrypoint)" \
    python3 -c "
import json, os, sys
b = sys.argv[1]
i = json.load(open(b + '/question/info.json'))
o = i['externalGradingOptions']
ok = i['gradingMethod'] == 'External' and o['enabled'] and o['entrypoint'] == '/nbody/entrypoint.sh' and o['timeout'] == 300
ok = ok and all(os.path.isfile(b + '/grader-image/' + f) for f in ('Dockerfile', 'setup.sh', 'entrypoint.sh', 'lab/steps.list'))
sys.exit(not ok)" "$work/pl-bundle"

gs_image=$work/gs-image pl_image=$work/pl-image
mkdir -p "$gs_image/source" "$gs_image/submission" "$gs_image/results" "$pl_image/nbody"
unzip -q "$zip" -d "$gs_image/source" && cp "$gs_image/source/run_autograder" "$gs_image/run_autograder"
cp -a "$work/pl-bundle/grader-image/." "$pl_image/nbody/"
t0=$SECONDS
box "$gs_image:/autograder" -- bash /autograder/source/setup.sh > "$work/gs-setup.log" 2>&1
check "Gradescope: setup.sh in the box prepares the lab ($((SECONDS - t0)) s)" test -f "$gs_image/source/out/.lab/base/.class-ready"
t0=$SECONDS
box "$pl_image/nbody:/nbody" -- bash /nbody/setup.sh > "$work/pl-setup.log" 2>&1
check "PrairieLearn: the Dockerfile's RUN (setup.sh) in the box prepares the lab ($((SECONDS - t0)) s)" test -f "$pl_image/nbody/out/.lab/base/.class-ready"

# grade PLATFORM NAME [TAG]: a fresh copy of the set-up image, the submission put where the platform puts it,
# the entry point run in the box; prints the results.json's path.
grade() {
    local p=$1 name=$2 r=$work/run/${3:-$1}-$2 rc
    rm -rf "$r" && mkdir -p "$r"
    if [ "$p" = gradescope ]; then
        cp -a "$gs_image" "$r/autograder" && rm -rf "$r/autograder/submission" && cp -a "$subs/$name" "$r/autograder/submission"
        box "$r/autograder:/autograder" -- /autograder/run_autograder > "$r/log" 2>&1
        rc=$?
        results=$r/autograder/results/results.json
    else
        cp -a "$pl_image/nbody" "$r/nbody" && mkdir -p "$r/grade/results" && cp -a "$subs/$name" "$r/grade/student"
        box "$r/nbody:/nbody" "$r/grade:/grade" -- /nbody/entrypoint.sh > "$r/log" 2>&1
        rc=$?
        results=$r/grade/results/results.json
    fi
    echo "$rc" > "$r/rc"
    echo "$results"
}
tests_of() { q "$1" "' | '.join(t['name'].split()[1] + ':' + str(t.get('score', t.get('points'))) + '/' + str(t.get('max_score', t.get('max_points'))) for t in d['tests'])"; }

for p in gradescope prairielearn; do
    names=(correct wrong broken cheat empty binary bomb toobig names)
    [ "$p" = prairielearn ] && names=(correct wrong broken cheat empty bomb)
    for n in "${names[@]}"; do
        t0=$SECONDS
        res=$(grade "$p" "$n")
        secs=$((SECONDS - t0))
        rc=$(cat "$(dirname "$(dirname "$(dirname "$res")")")/rc")
        why=$(python3 "$work/schema.py" "$p" "$res" 2>&1)
        check "$p $n: exits 0 ($rc), results.json follows the schema${why:+: $why} ($secs s)" bash -c "[ '$rc' = 0 ] && [ -z '${why//\'/}' ]"
        got=$(tests_of "$res")
        msg=$(q "$res" "d.get('output', '') if '$p' == 'gradescope' else d['message']")
        case $p-$n in
        gradescope-correct)
            check "gradescope correct (a zip of a handout copy): 00, 01 1/1, 02 0/0 'compiled; graded on the course's GPUs'; score 2; leaderboard ($got)" \
                python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
t = {x['name'].split()[1]: x for x in d['tests']}
lb = {e['name']: e['value'] for e in d['leaderboard']}
sys.exit(not (d['score'] == 2 and t['00']['status'] == 'passed' and t['01']['status'] == 'passed' and t['02']['max_score'] == 0
    and 'status' not in t['02'] and t['02']['output'].startswith(\"compiled; graded on the course's GPUs\") and lb['G interactions/s'] > 0
    and lb['highest step passed'] == '01'))" "$res" ;;
        prairielearn-correct)
            check "prairielearn correct: score 1.0, gradable, 2 of 2 ($got)" test "$(q "$res" "(d['score'], d['gradable'])")" = "(1.0, True)" ;;
        *-wrong)
            check "$p wrong: score 0, 00 failed with its likely cause (constant-factor), 01 failed ($got)" python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
t = {x['name'].split()[1]: x for x in d['tests']}
sys.exit(not (d['score'] == 0 and 'likely cause: constant-factor' in t['00']['output'] and t['01']['output'].startswith('FAIL')))" "$res" ;;
        *-broken)
            check "$p broken: 00 'build failed' with the compiler's line, 01 TODO$([ "$p" = prairielearn ] && echo ', not gradable') ($got)" python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
t = {x['name'].split()[1]: x for x in d['tests']}
ok = t['00']['output'].startswith('FAIL: build failed') and '</td><script>x</script>' in t['00']['output'] and t['01']['output'].startswith('TODO')
sys.exit(not (ok and d.get('gradable', False) is False if sys.argv[2] == 'prairielearn' else ok))" "$res" "$p" ;;
        *-cheat)
            check "$p cheat (forged-verdict.c; 01 a link): 00 FAIL whatever it forged, 01 refused, score 0 ($got)" python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
t = {x['name'].split()[1]: x for x in d['tests']}
sys.exit(not (d['score'] == 0 and t['00']['output'].startswith('FAIL') and 'symbolic link' in t['01']['output']))" "$res"
            check "$p cheat: nothing it forged reached the results folder or the bundle" \
                bash -c "[ \$(find '$(dirname "$res")' -type f | wc -l) = 1 ] && ! grep -rqs 'forged' '$(dirname "$res")'" ;;
        *-empty) check "$p empty: says what to upload ('${msg:0:70}...')" bash -c "grep -q 'Nothing to grade' <<< '${msg//\'/}' && grep -q 'it is empty' <<< '${msg//\'/}' && grep -q 'Upload your step folders' <<< '${msg//\'/}'" ;;
        *-binary) check "$p binary: names what it found and what to upload" bash -c "grep -q 'a.out' <<< '${msg//\'/}' && grep -q 'Upload your step folders' <<< '${msg//\'/}'" ;;
        *-bomb) check "$p zip bomb (300 MiB in 300 KB): its step 00 refused by its size, never unpacked ($got)" \
                bash -c "grep -q 'over the limit' <<< \"\$(python3 -c \"import json,sys; print(json.load(open(sys.argv[1]))['tests'][0]['output'])\" '$res')\" && [ \$(du -sk '$work/run/$p-bomb' | cut -f1) -lt 200000 ]" ;;
        *-toobig) check "$p a 70 MiB zip: not opened, and says so" bash -c "grep -q 'over the 64 MiB' <<< '${msg//\'/}'" ;;
        *-names) check "$p wrong folder names: the hints name Step00/nbody.c and step01_omp.c" bash -c "grep -q 'Step00/nbody.c' <<< '${msg//\'/}' && grep -q 'step01_omp.c: a bare file' <<< '${msg//\'/}'" ;;
        esac
    done
done

# ---- the GPU host ----------------------------------------------------------------------------------
# Step 01 stands for a GPU step (there is no GPU here): the bundle sends it to the host, whose forced
# command grades it through Slurm; 00 is graded on the platform.
host_work=$work/gpuhost
transport=ssh
why_local=""
if [ "$(id -u)" != 0 ]; then why_local="not root: no sshd or Slurm of our own"
else
    export PATH=$PATH:/usr/sbin:/sbin
    command -v sshd > /dev/null 2>&1 || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends openssh-server openssh-client > "$work/apt-ssh.log" 2>&1 ||
        { apt-get update -qq > /dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends openssh-server openssh-client >> "$work/apt-ssh.log" 2>&1; }
    command -v sshd > /dev/null 2>&1 || why_local="openssh-server could not be installed ($work/apt-ssh.log)"
    [ -z "$why_local" ] && { bash "$here/common/deps.sh" slurm > "$work/apt-slurm.log" 2>&1 || why_local="Slurm could not be installed"; }
fi
runner_env=()
if [ -z "$why_local" ]; then
    . "$here/tests/slurm/cluster.sh"
    if slurm_up "$work/cluster" > "$work/slurm-up.log" 2>&1; then
        slurm_started=1
        runner_env=(CLASS_RUNNER=slurm SLURM_CONF="$SLURM_CONF" SLURM_PARTITION=lab SLURM_ACCOUNT= SLURM_GPUS=0 SLURM_TIME=00:20:00 SLURM_POLL=1)
        pass "the GPU host's Slurm: a one-node cluster up (tests/slurm/cluster.sh)"
    else
        why_local="the one-node Slurm did not come up: $SLURM_WHY"
    fi
fi
host_env=("${runner_env[@]}" PATH="$PATH" HOME="$host_work" CLASS_REMOTE_ALLOWED=01 CLASS_REMOTE_WORK="$host_work" GRADE_N=1024 "GRADE_CHECK_N=1 31 257" GRADE_TIMEOUT=8)
mkdir -p "$host_work"
if [ -z "$why_local" ]; then
    sshd_dir=$work/sshd
    mkdir -p "$sshd_dir" /run/sshd && chmod 700 "$sshd_dir"
    ssh-keygen -q -t ed25519 -N '' -f "$sshd_dir/host_key" && ssh-keygen -q -t ed25519 -N '' -C nbody-grader -f "$sshd_dir/grader_key"
    port=$(slurm_free_port 22022)
    # The key's one power: the forced command, with the host's own settings; no pty, no forwarding.
    printf 'command="env %s bash %q serve",restrict %s\n' "$(printf '%q ' "${host_env[@]}")" "$here/grading/class/platform-remote.sh" \
        "$(cat "$sshd_dir/grader_key.pub")" > "$sshd_dir/authorized_keys"
    cat > "$sshd_dir/sshd_config" << EOF
Port $port
ListenAddress 127.0.0.1
HostKey $sshd_dir/host_key
PidFile $sshd_dir/sshd.pid
AuthorizedKeysFile $sshd_dir/authorized_keys
PermitRootLogin forced-commands-only
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
UsePAM no
StrictModes no
LogLevel VERBOSE
EOF
    echo "[127.0.0.1]:$port $(cut -d' ' -f1,2 "$sshd_dir/host_key.pub")" > "$sshd_dir/known_hosts"
    if "$(command -v sshd)" -f "$sshd_dir/sshd_config" -E "$sshd_dir/sshd.log" && sleep 1 && sshd_pid=$(cat "$sshd_dir/sshd.pid" 2> /dev/null); then
        pass "the GPU host's sshd: 127.0.0.1:$port, the grader's key restricted to platform-remote.sh serve"
    else
        why_local="sshd did not start ($sshd_dir/sshd.log)"
    fi
fi
sshc() { ssh -i "$sshd_dir/grader_key" -p "$port" -o BatchMode=yes -o IdentitiesOnly=yes -o UserKnownHostsFile="$sshd_dir/known_hosts" -T root@127.0.0.1 "$@"; }
if [ -z "$why_local" ]; then
    sshc 'cat /etc/shadow' > "$work/ssh-shell.out" 2> "$work/ssh-shell.err" < /dev/null
    check "the key cannot run a command of its own: 'cat /etc/shadow' refused, nothing printed" \
        bash -c "[ ! -s '$work/ssh-shell.out' ] && grep -q 'refused' '$work/ssh-shell.err'"
    sshc 'grade 00 within 60' > /dev/null 2> "$work/ssh-step.err" < /dev/null
    check "the key cannot grade a step the host does not allow ('grade 00': refused)" grep -q 'is not graded here' "$work/ssh-step.err"
    mkdir -p "$work/evil/step01_omp" && echo x > "$work/evil/step01_omp/evil.sh"
    tar -C "$work/evil" -cf - step01_omp/evil.sh | sshc 'grade 01 within 60' > /dev/null 2> "$work/ssh-tar.err"
    check "the key cannot send a file other than a step source (refused, nothing unpacked)" \
        bash -c "grep -q 'only STEPFOLDER' '$work/ssh-tar.err' && [ -z \"\$(find '$host_work' -name evil.sh)\" ]"
    ssh -tt -i "$sshd_dir/grader_key" -p "$port" -o BatchMode=yes -o IdentitiesOnly=yes -o UserKnownHostsFile="$sshd_dir/known_hosts" \
        root@127.0.0.1 'bash -i' < /dev/null > "$work/ssh-pty.out" 2>&1
    check "the key gets no pty (restrict: 'PTY allocation request failed')" \
        grep -q 'PTY allocation request failed' "$work/ssh-pty.out"
    remote_bundle=(CLASS_REMOTE=root@127.0.0.1 CLASS_REMOTE_PORT="$port" CLASS_REMOTE_KEY="$sshd_dir/grader_key" CLASS_REMOTE_KNOWN_HOSTS="$sshd_dir/known_hosts")
    label="over ssh to 127.0.0.1, through Slurm"
else
    transport=local
    echo "SKIP the GPU host over ssh: $why_local; the same script through CLASS_REMOTE_TRANSPORT=local (no ssh, no Slurm: the host's side run in the box)"
    remote_bundle=(CLASS_REMOTE=nobody@localhost CLASS_REMOTE_KEY=/dev/null CLASS_REMOTE_KNOWN_HOSTS=/dev/null CLASS_REMOTE_TRANSPORT=local CLASS_REMOTE_LAB="$here")
    label="LOCAL TRANSPORT, not ssh"
    box_extra=(--ro-bind "$here" "$here" --bind "$host_work" "$host_work")
fi
env "${small[@]}" CLASS_STEPS="00 01" CLASS_REMOTE_STEPS=01 "${remote_bundle[@]}" \
    bash "$here/grading/class/platform-bundle.sh" gradescope "$work/gs-remote-bundle" >> "$work/bundle.log" 2>&1
check "make gradescope CLASS_REMOTE=...: the key and known_hosts inside the lab (hidden from student code by the grade's box)" \
    bash -c "unzip -l '$work/gs-remote-bundle/nbody-gradescope.zip' | grep -q 'lab/grading/class/remote/key\$' && unzip -p '$work/gs-remote-bundle/nbody-gradescope.zip' lab/grading/class/platform.conf | grep -qx 'CLASS_REMOTE_STEPS=01'"
gs_image=$work/gs-remote-image
mkdir -p "$gs_image/source" "$gs_image/submission" "$gs_image/results"
unzip -q "$work/gs-remote-bundle/nbody-gradescope.zip" -d "$gs_image/source" && cp "$gs_image/source/run_autograder" "$gs_image/"
box "$gs_image:/autograder" -- bash /autograder/source/setup.sh > "$work/gs-remote-setup.log" 2>&1
[ "$transport" = local ] && export "${host_env[@]}"
for n in correct wrong; do
    t0=$SECONDS
    res=$(grade gradescope "$n" remote)
    secs=$((SECONDS - t0))
    why=$(python3 "$work/schema.py" gradescope "$res" 2>&1)
    got=$(tests_of "$res")
    if [ "$n" = correct ]; then
        check "GPU host ($label): correct's step 01 graded there PASS, 00 here PASS, score 2, schema ok ($got, $secs s)${why:+: $why}" \
            bash -c "[ -z '${why//\'/}' ] && [ '$got' = '00:1.0/1.0 | 01:1.0/1.0' ]"
    else
        check "GPU host ($label): wrong's step 01 FAIL there, its output folded in ($got, $secs s)" \
            bash -c "[ -z '${why//\'/}' ] && [ '$got' = '00:0.0/1.0 | 01:0.0/1.0' ] && grep -q 'FAIL' <<< \"\$(python3 -c \"import json,sys; print(json.load(open(sys.argv[1]))['tests'][1]['output'])\" '$res')\""
    fi
done
if [ "$transport" = ssh ]; then
    check "the GPU host graded through Slurm (its job array's task outputs in CLASS_REMOTE_WORK)" \
        bash -c "ls '$host_work'/out/slurm/task-*.out > /dev/null 2>&1 && grep -q 'grading s' '$host_work'/out/slurm/task-*.out"
    check "the GPU host kept no student's files (its requests and students folders empty)" \
        bash -c "[ -z \"\$(find '$host_work/requests' '$host_work/out/students' -mindepth 1 2> /dev/null)\" ]"
    # The host unreachable: its steps say so, not counted as a failure when they are GPU steps.
    kill "$sshd_pid" 2> /dev/null
    sshd_pid=""
    sleep 1
    res=$(grade gradescope correct remote-down)
    check "GPU host down: step 01 says the host did not answer, 00 still graded, results.json valid" \
        bash -c "python3 '$work/schema.py' gradescope '$res' && grep -q 'did not answer' <<< \"\$(python3 -c \"import json,sys; print(json.load(open(sys.argv[1]))['tests'][1]['output'])\" '$res')\" && [ \"\$(python3 -c \"import json,sys; print(json.load(open(sys.argv[1]))['tests'][0]['score'])\" '$res')\" = 1.0 ]"
fi

echo "test-platforms: $fails failed ($((SECONDS - t_start)) s)"
[ $fails -eq 0 ]
