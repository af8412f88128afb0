#!/usr/bin/env bash
# INSTRUCTORS ONLY: it holds step10's traverse (the text its variants change); grading/handout.sh keeps it out of the handout.
# step10-walk-ab.sh OUT OBSERVED.cu: why a student's step10, the same warp walk written from the lesson,
# ran 15% faster than the lab's (step10_barnes_hut/INSTRUCTORS.md, "A student's faster walk").
# Builds the lab's step10, OBSERVED (copied into build/ at run time, never into the lab) and variants of
# the lab's traverse that each take one thing from OBSERVED; for each: ptxas's registers, spills, stack
# and shared memory, traverse's SASS counted and hashed, and the loads of one node's visit (the pop to
# the vote) with the waits between them; then every build validated (--validate-only), then timed in
# WALK_AB_ROUNDS (2) interleaved rounds at N = 65536 (10 steps, theta 0.35) and N = 1048576 (5 steps,
# theta 0.35 and 0.5). Rows in OUT/step10-walk-ab.csv (the harness's CSV; build = the variant, tag
# walk-ab-rK), the summary in OUT/step10-walk-ab.txt. WALK_AB_PHASES="static validate timing" (all by
# default; static alone needs no GPU, only nvcc and cuobjdump). WALK_AB_BUILDS: a subset of the labels.
# WALK_AB_LAB=FILE: the lab's source the variants start from (default step10_barnes_hut/nbody.cu; give the
# source before a change of traverse, e.g. from git show, and the checked-out one is built too, as "head").
set -u -o pipefail
[ $# -eq 2 ] && [ "${1#-}" = "$1" ] || { echo "usage: report/explore/step10-walk-ab.sh OUT OBSERVED.cu" >&2; exit 2; }
[ -f "$2" ] && [ -r "$2" ] || { echo "step10-walk-ab.sh: cannot read the observed source '$2'" >&2; exit 2; }
observed=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
lab_src=
if [ -n "${WALK_AB_LAB:-}" ]; then
    [ -f "$WALK_AB_LAB" ] && [ -r "$WALK_AB_LAB" ] || { echo "step10-walk-ab.sh: cannot read WALK_AB_LAB=$WALK_AB_LAB" >&2; exit 2; }
    lab_src=$(cd "$(dirname "$WALK_AB_LAB")" && pwd)/$(basename "$WALK_AB_LAB")
fi
mkdir -p "$1" || { echo "step10-walk-ab.sh: cannot create $1" >&2; exit 2; }
out=$(cd "$1" && pwd)
cd "$(dirname "$0")/../.." || exit 2
root=$PWD
phases=" ${WALK_AB_PHASES:-static validate timing} "
builds=${WALK_AB_BUILDS:-lab observed stack-ptr float3 guards open-guard open-all${WALK_AB_LAB:+ head}}
[ -n "$lab_src" ] || lab_src=$root/step10_barnes_hut/nbody.cu
for p in $phases; do
    case $p in static | validate | timing) ;; *) echo "step10-walk-ab.sh: no phase '$p' (static validate timing)" >&2; exit 2 ;; esac
done
if [ "$phases" != " static " ] && ! nvidia-smi -L > /dev/null 2>&1; then
    echo "step10-walk-ab.sh: no GPU here: run it on a GPU machine, or WALK_AB_PHASES=static for the counts alone" >&2
    exit 2
fi
mk=(make --no-print-directory -j"$(nproc)")
[ -n "${COMMIT:-}" ] && mk+=(COMMIT="$COMMIT")
[ -d .deps/root ] && mk+=(DEPS_ROOT="$root/.deps/root")
work=$root/build/walk-ab
cache=$root/build/ref-cache
csv=$out/step10-walk-ab.csv
mkdir -p "$work" "$cache" || exit 2
exec > >(tee "$out/step10-walk-ab.txt") 2>&1
fails=0

# swap FILE OLD NEW COUNT: OLD (literal text) replaced by NEW in FILE, exactly COUNT times, or fail.
swap() {
    OLD=$2 NEW=$3 COUNT=$4 perl -0777 -i -pe '$c = s/\Q$ENV{OLD}\E/$ENV{NEW}/g; END { exit(($c // 0) == $ENV{COUNT} ? 0 : 1) }' "$1" ||
        { echo "step10-walk-ab.sh: the lab's traverse no longer holds '${2%%$'\n'*}' $4 times: update the variant" >&2; return 1; }
}

# variant LABEL FILE: FILE (the checked-out step10_barnes_hut/nbody.cu of a copy of the tree) replaced by
# the lab's source ($lab_src) turned into the variant LABEL, one difference of the observed source at a time.
variant() {
    local f=$2
    case $1 in head | observed) ;; *) cp "$lab_src" "$f" || return 1 ;; esac
    case $1 in
    lab | head) ;;
    stack-ptr) # a pointer to the warp's stack, taken once, in place of stack[warp][...]
        swap "$f" "__shared__ int stack[WARPS][STACK_DEPTH];" "__shared__ int stacks[WARPS][STACK_DEPTH];" 1 &&
            swap "$f" "const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;" \
                "const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    int *stack = stacks[warp];" 1 &&
            swap "$f" "stack[warp][" "stack[" 4 ;;
    float3) # the body's position in three floats (loaded as the lab loads it)
        swap "$f" "const float4 p = pos[valid ? k : n - 1];" \
            "const float4 p4 = pos[valid ? k : n - 1];
    const float px = p4.x, py = p4.y, pz = p4.z;" 1 &&
            swap "$f" "p.x" "px" 6 && swap "$f" "p.y" "py" 6 && swap "$f" "p.z" "pz" 6 ;;
    guards | open-guard) # the opening test computed in live lanes only (guards: the observed's every guard)
        swap "$f" "        const float dx = c.x - p.x, dy = c.y - p.y, dz = c.z - p.z;
        const bool inside = p.x >= l.x && p.x <= h.x && p.y >= l.y && p.y <= h.y && p.z >= l.z && p.z <= h.z;
        const bool open = valid && (dx * dx + dy * dy + dz * dz < l.w || inside);" \
            "        bool open = false;
        if (valid) {
            const float dx = c.x - p.x, dy = c.y - p.y, dz = c.z - p.z;
            const bool inside = p.x >= l.x && p.x <= h.x && p.y >= l.y && p.y <= h.y && p.z >= l.z && p.z <= h.z;
            open = dx * dx + dy * dy + dz * dz < l.w || inside;
        }" 1 || return 1
        [ "$1" = guards ] || return 0
        swap "$f" "const float4 p = pos[valid ? k : n - 1];" "float4 p = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (valid)
        p = pos[k];" 1 &&
            swap "$f" "
            interact(" "
            if (valid)
                interact(" 2 &&
            swap "$f" "            for (int j = r.x; j <= r.y; ++j)
                interact(" "            if (valid)
                for (int j = r.x; j <= r.y; ++j)
                    interact(" 1 ;;
    open-all) # no guard on the test: lanes past n open what body n - 1 opens (their load is clamped to it)
        swap "$f" "const bool open = valid && (dx * dx + dy * dy + dz * dz < l.w || inside);" \
            "const bool open = dx * dx + dy * dy + dz * dz < l.w || inside;" 1 ;;
    observed) cp "$observed" "$f" ;;
    *) echo "step10-walk-ab.sh: no build '$1' (lab head observed stack-ptr float3 guards open-guard open-all)" >&2; return 2 ;;
    esac
}

exe_of() { echo "$work/$1/bin/step10_barnes_hut"; }
say() { printf '\n=== %s %s\n' "$(date -u +%H:%M:%S)" "$*"; }

say "build: a copy of the lab per build, its traverse changed ($builds)"
pids=()
for label in $builds; do # every build from its own copy of the tree, in parallel
    src=$work/src-$label
    rm -rf "$src" && mkdir -p "$src" &&
        tar --exclude=./build --exclude=./.git --exclude=./.deps -cf - . | tar -xf - -C "$src" &&
        variant "$label" "$src/step10_barnes_hut/nbody.cu" || { echo "$label: no source"; exit 2; }
    rm -f "$work/$label/obj/step10_barnes_hut/nbody.o" # compiled again every time: its log holds ptxas's counts
    (cd "$src" && "${mk[@]}" BUILD="$work/$label" BUILD_LABEL="$label" NVCCFLAGS="-O3 -lineinfo -Xptxas -v" \
        "$work/$label/bin/step10_barnes_hut") > "$work/$label.log" 2>&1 &
    pids+=($!)
done
wait "${pids[@]}" # the builds only: a bare wait would also wait for the tee above
ok=
for label in $builds; do
    if [ -x "$(exe_of "$label")" ]; then ok="$ok $label"; else
        echo "$label: did not build: $(grep -m1 -E 'error|Error' "$work/$label.log")"
        fails=$((fails + 1))
    fi
done
builds=$ok

# node_loads SASS: the loads of one node's visit, from the pop (the first LDS) to the vote, in issue
# order, with '|' where an instruction reads a register that an earlier load of the stretch has not yet
# delivered: each '|' is a wait for memory, so "LDS | LDG LDG LDG |" is two trips and "LDS | LDG | LDG LDG |" three.
node_loads() {
    awk '/LDS/ && !on { on = 1 } !on { next }
        { ins = $0; sub(/^@!?U?P[0-9T] /, "", ins); op = ins; sub(/ .*/, "", op); args = ins; sub(/^[^ ]* ?/, "", args)
          src = args; if (op !~ /^ST/) sub(/^[^,]*,? ?/, "", src) # a store reads every operand, the rest write the first
          gsub(/[^A-Za-z0-9.]/, " ", src); n = split(src, t, " "); wait = 0
          for (i = 1; i <= n; ++i) if (t[i] ~ /^R[0-9]+/) { r = t[i]; w = r ~ /\.64/ ? 2 : r ~ /\.128/ ? 4 : 1
              r = substr(r, 2) + 0; for (j = 0; j < w; ++j) if ((r + j) in pend) wait = 1 }
          if (wait) { s = s " |"; delete pend }
          if (op ~ /^LD[GSL]/) { d = args; sub(/,.*/, "", d); r = substr(d, 2) + 0; w = op ~ /128/ ? 4 : op ~ /64/ ? 2 : 1
              for (j = 0; j < w; ++j) pend[r + j] = 1; k = op; sub(/\..*/, "", k); s = s " " k }
          if (op ~ /^VOTE/) { print substr(s, 2); exit } }' "$1"
}

if [ "${phases/ static /}" != "$phases" ]; then
    say "static: ptxas's resources and traverse's SASS"
    command -v cuobjdump > /dev/null || echo "no cuobjdump here: ptxas's counts only"
    printf '%-11s %-48s %5s %5s %4s %4s %4s %4s %4s %9s  %s\n' build "ptxas (traverse)" instr LDG LDS LDL STS BRA MUFU "hash" "one node's visit: its loads, | = a wait"
    for label in $builds; do
        res=$(grep -A3 "entry function '_Z8traverse" "$work/$label.log" | grep -oE '[0-9]+ bytes stack frame|[0-9]+ bytes spill stores|Used [0-9]+ registers|[0-9]+ bytes smem' |
            sed -E 's/ bytes stack frame/ B stack/; s/ bytes spill stores/ B spilled/; s/Used ([0-9]+) registers/\1 regs/; s/ bytes smem/ B smem/' | paste -sd, -)
        sass=$work/$label.sass
        if command -v cuobjdump > /dev/null; then
            cuobjdump -sass "$work/$label/obj/step10_barnes_hut/nbody.o" |
                awk '/Function : .*traverse/ { f = 1; next } /Function :/ { f = 0 } f' | grep -E '^\s+/\*[0-9a-f]{4}\*/' |
                sed -E 's#^\s+/\*[0-9a-f]+\*/\s+##; s#\s*/\*.*##; s# ?;.*##' > "$sass"
            count() { grep -cE "^(@!?U?P[0-9T] )?$1" "$sass"; }
            printf '%-11s %-48s %5s %5s %4s %4s %4s %4s %4s %9s  %s\n' "$label" "$res" "$(grep -c . "$sass")" "$(count LDG)" \
                "$(count LDS)" "$(count LDL)" "$(count STS)" "$(count 'BRA')" "$(count MUFU)" "$(md5sum < "$sass" | cut -c1-8)" "$(node_loads "$sass")"
        else
            printf '%-11s %-48s\n' "$label" "$res"
        fi
    done
fi

if [ "${phases/ validate /}" != "$phases" ]; then
    say "validate: each build at the grader's awkward sizes (lanes past n at 257 and 1000) and the direct sum"
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
    passed=
    for label in $builds; do
        bad=0
        for v in "257 3 plummer equal 0.35" "1000 2 collision random 0.35" "4099 3 uniform random 0.35" \
            "16384 1 plummer equal 0.35" "4099 1 plummer equal 0"; do
            read -r n s model masses theta <<< "$v"
            if ! line=$("$(exe_of "$label")" --validate-only --ref-cache "$cache" -n "$n" -S "$s" --model "$model" \
                --masses "$masses" --theta "$theta" 2>&1); then
                echo "$label FAIL N=$n S=$s $model theta=$theta: $(echo "$line" | grep -m1 -E 'acceleration|error')"
                bad=1
            fi
        done
        if [ $bad = 0 ]; then echo "$label: PASS at every size"; passed="$passed $label"; else fails=$((fails + 1)); fi
    done
    builds=$passed
fi

if [ "${phases/ timing /}" != "$phases" ]; then
    say "timing: ${WALK_AB_ROUNDS:-2} rounds, every build once per round and size, validated (--ref-cache)"
    rm -f "$csv"
    for r in $(seq 1 "${WALK_AB_ROUNDS:-2}"); do
        for v in "65536 10 0.35" "1048576 5 0.35" "1048576 5 0.5"; do
            read -r n k theta <<< "$v"
            for label in $builds; do
                "$(exe_of "$label")" -q -n "$n" -k "$k" -r 3 --theta "$theta" --ref-cache "$cache" --csv "$csv" \
                    --tag "walk-ab-r$r" || { echo "$label FAIL timed run N=$n theta=$theta"; fails=$((fails + 1)); }
            done
        done
    done
    say "summary: each build's runs at each size (G interactions/s, N^2 equivalent; ms a step), against the lab's median"
    [ -f "$csv" ] && awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) c[$i] = i; next }
        { th = $c["theta"]; key = $c["bodies"] " " th # the judge'"'"'s column (common/results.h)
          k[key] = 1; b[$c["build"]] = 1; g[key, $c["build"]] = g[key, $c["build"]] sprintf(" %.1f", $c["ginteractions_s"])
          ms[key, $c["build"]] = ms[key, $c["build"]] sprintf(" %.2f", 1e3 * $c["kernel_s"] / $c["steps"])
          err[key, $c["build"]] = sprintf("rms %.2e max %.2e", $c["acc_rms"], $c["acc_max"]) }
        function median(s,  v, m, i, j, t) { m = split(s, v, " "); for (i = 1; i <= m; ++i) for (j = i + 1; j <= m; ++j) if (v[j] + 0 < v[i] + 0) { t = v[i]; v[i] = v[j]; v[j] = t }
            return m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2 }
        END { for (key in k) for (l in b) if ((key SUBSEP l) in g) {
                base = (key SUBSEP "lab") in ms ? median(ms[key, "lab"]) : 0; t = median(ms[key, l])
                printf "N=%-8s theta=%-5s %-11s G/s%-16s ms/step%-14s %s  %s\n", substr(key, 1, index(key, " ") - 1), substr(key, index(key, " ") + 1), l,
                    g[key, l], ms[key, l], (base > 0 ? sprintf("%.3fx the lab", base / t) : ""), err[key, l] } }' "$csv" | sort -V
fi
say "step10-walk-ab: $fails failure(s)"
[ $fails = 0 ]
