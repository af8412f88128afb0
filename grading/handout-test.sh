#!/usr/bin/env bash
# handout-test.sh WORK: checks `make handout` end to end, in the folder WORK (made afresh).
#   1. the stripping tool: good regions come out as their stubs; every kind of marker mistake is an
#      error naming the file and line, and leaves no handout behind;
#   2. the handout of this tree: no solution and no marker left in a stripped step, every other file
#      identical; it builds (GPU steps compile where nvcc exists);
#   3. each stripped step answers with its one-line TODO and exit status 2 (and `make grade` in the
#      handout marks it, without crashing, where the grader exists);
#   4. filled back in with its solution, each step passes validation (and `make grade`).
# Prints one line per check and exits 1 if any failed, 2 on bad usage.
set -u -o pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
work=${1:?usage: grading/handout-test.sh WORK}
[ $# -eq 1 ] || { echo "handout-test.sh: usage: grading/handout-test.sh WORK" >&2; exit 2; }
[ -f "$here/.handout" ] && { echo "SKIP handout: this tree is a handout already"; exit 0; }
tool=$here/grading/handout.sh
. "$here/common/steps.sh"
rm -rf "$work" && mkdir -p "$work" || { echo "handout-test.sh: cannot make $work" >&2; exit 2; }
work=$(cd "$work" && pwd)
fails=0
pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
jobs=$(nproc 2> /dev/null || echo 2)

# ---- 1. the tool on small files ---------------------------------------------------------------
fx=$work/fixtures
mkdir -p "$fx"
cat > "$fx/good.c" << 'EOF'
int keep(void) { return 1; }
int f(void)
{
    /* BEGIN SOLUTION */
    return 42;
    /* STUB
    // yours to write
    return -1;
    END SOLUTION */
}
/* BEGIN SOLUTION */
int helper(void) { return 7; }
/* END SOLUTION */
int last(void) { return 0; }
EOF
cat > "$fx/good.expected" << 'EOF'
int keep(void) { return 1; }
int f(void)
{
    // yours to write
    return -1;
}
int last(void) { return 0; }
EOF
if out=$(bash "$tool" --strip "$fx/good.c" 2>&1) && [ "$out" = "$(cat "$fx/good.expected")" ]; then
    pass "tool: a region with a stub and one without come out as expected"
else
    fail "tool: good.c stripped to something else:"$'\n'"$out"
fi
gcc -std=c11 -fsyntax-only -Wall -Werror "$fx/good.c" 2> /dev/null &&
    bash "$tool" --strip "$fx/good.c" | gcc -std=c11 -fsyntax-only -Wall -Werror -x c - 2> /dev/null &&
    pass "tool: the solution and its stripped version both compile" ||
    fail "tool: good.c or its stripped version does not compile"

# Each mistake: the file, the line the message must name, and the file's text.
bad_case() {
    local name=$1 line=$2 text=$3
    printf '%s\n' "$text" > "$fx/$name.c"
    local err rc
    err=$(bash "$tool" --strip "$fx/$name.c" 2>&1 > /dev/null)
    rc=$?
    if [ $rc -eq 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] && [[ $err == "$fx/$name.c:$line: "* ]]; then
        pass "tool: $name -> exit 2, ${err#"$fx/"}"
    else
        fail "tool: $name: exit $rc, expected 2 and one line naming line $line, got: $err"
    fi
}
bad_case nested 3 $'int a;\n/* BEGIN SOLUTION */\n/* BEGIN SOLUTION */\n/* END SOLUTION */\n/* END SOLUTION */'
bad_case unclosed 2 $'int a;\n/* BEGIN SOLUTION */\nint b;'
bad_case stray-end 2 $'int a;\n/* END SOLUTION */'
bad_case stub-outside 2 $'int a;\n/* STUB\nEND SOLUTION */'
bad_case two-stubs 4 $'/* BEGIN SOLUTION */\n/* STUB\nint b;\n/* STUB\nEND SOLUTION */'
bad_case stub-left-open 3 $'/* BEGIN SOLUTION */\n/* STUB\n/* END SOLUTION */'
bad_case wrong-end 3 $'/* BEGIN SOLUTION */\nint a;\nEND SOLUTION */'
bad_case comment-in-stub 3 $'/* BEGIN SOLUTION */\n/* STUB\nint b; /* no */\nEND SOLUTION */'
bad_case stub-not-comment 2 $'/* BEGIN SOLUTION */\n/* STUB */\nint b;\n/* END SOLUTION */'
bad_case marker-with-code 1 $'int a; /* BEGIN SOLUTION */\n/* END SOLUTION */'
bad_case line-comment-marker 1 $'// BEGIN SOLUTION\nint a;\n// END SOLUTION'

# A marker mistake in a step: `make handout` fails, naming it, and leaves no handout and no temporary.
mini=$work/mini
mkdir -p "$mini/grading" "$mini/stepA"
cp "$tool" "$mini/grading/"
printf '#id folder lang gpus flags from check launch summary\n00  stepA  c  0  none  -  exact  -  the only step\n' > "$mini/steps.list"
mkdir -p "$mini/common" && cp "$here/common/steps.sh" "$mini/common/"
printf 'int a;\n/* BEGIN SOLUTION */\nint b;\n' > "$mini/stepA/nbody.c"
err=$(bash "$mini/grading/handout.sh" "$mini/build/handout" 2>&1)
rc=$?
if [ $rc -eq 2 ] && [[ $err == *"stepA/nbody.c:2: BEGIN SOLUTION is never closed"* ]] &&
    [ ! -e "$mini/build/handout" ] && [ -z "$(ls -A "$mini/build" 2> /dev/null)" ]; then
    pass "tool: a broken step -> exit 2 naming stepA/nbody.c:2, no handout, no temporary left"
else
    fail "tool: a broken step: exit $rc, output: $err"
fi
printf 'int a;\n/* BEGIN SOLUTION */\nint b;\n/* END SOLUTION */\n' > "$mini/stepA/nbody.c"
mkdir -p "$mini/build/precious" && touch "$mini/build/precious/file"
err=$(bash "$mini/grading/handout.sh" "$mini/build/precious" 2>&1)
[ $? -eq 2 ] && [ -f "$mini/build/precious/file" ] &&
    pass "tool: refuses to overwrite a folder that is not a handout (${err#*: })" ||
    fail "tool: overwrote or accepted a folder that is not a handout: $err"
err=$(bash "$mini/grading/handout.sh" "$mini/stepA" 2>&1)
[ $? -eq 2 ] && pass "tool: refuses a folder inside the sources (${err#*: })" ||
    fail "tool: accepted a folder inside the sources: $err"

# Every file of the handout TREE against the lab SRC it came from: the same bytes, or a source of a
# step folder of SRC's steps.list, stripped. Sets stripped (those folders, once each) and different (the
# other files that differ). Names may hold spaces, tabs, quotes: they go NUL-terminated.
compare_tree() { # SRC TREE
    local src=$1 t=$2 f folder
    stripped=() different=()
    while IFS= read -r -d '' f; do
        cmp -s "$src/$f" "$t/$f" && continue
        folder=${f%%/*}
        if [[ $f == */* ]] && STEPS_LIST=$src/steps.list registry_field "$folder" id > /dev/null 2>&1; then
            [[ " ${stripped[*]} " == *" $folder "* ]] || stripped+=("$folder")
        else
            different+=("$f")
        fi
    done < <(cd "$t" && find . -type f ! -name .handout -printf '%P\0' | sort -z)
}

# Names with a space (leading and trailing too), a quote, a tab and a letter git prints quoted: handed
# out like any other file, stripped where they are step sources, through find and through git.
odd=$work/odd
mkdir -p "$odd/grading" "$odd/stepA" "$odd/docs"
cp "$tool" "$odd/grading/"
printf '#id folder lang gpus flags from check launch summary\n00  stepA  c  0  none  -  exact  -  the only step\n' > "$odd/steps.list"
mkdir -p "$odd/common" && cp "$here/common/steps.sh" "$odd/common/"
printf 'int a;\n/* BEGIN SOLUTION */\nint b;\n/* END SOLUTION */\n' > "$odd/stepA/nbody.c"
printf 'int c;\n/* BEGIN SOLUTION */\nint d;\n/* END SOLUTION */\n' > "$odd/stepA/extra part.c"
odd_names=("stepA/my notes.txt" "docs/read me.md" " docs edge .md" 'docs/say "hi".txt' $'docs/tab\tname.txt' "docs/café.txt")
for f in "${odd_names[@]}"; do printf 'text of %s\n' "$f" > "$odd/$f"; done
for how in find git; do
    if [ $how = git ] && ! { command -v git > /dev/null && git -C "$odd" init -q > /dev/null 2>&1; }; then
        echo "SKIP tool: odd names through git: git cannot make a repository here"
        continue
    fi
    rm -rf "$odd/build"
    if ! err=$(bash "$odd/grading/handout.sh" "$odd/build/handout" 2>&1); then
        fail "tool: odd names ($how): $err"
        continue
    fi
    compare_tree "$odd" "$odd/build/handout"
    missing=()
    for f in "${odd_names[@]}" stepA/nbody.c "stepA/extra part.c"; do
        [ -f "$odd/build/handout/$f" ] || missing+=("$f")
    done
    if [ ${#missing[@]} -eq 0 ] && [ ${#different[@]} -eq 0 ] && [ "${stripped[*]}" = stepA ] &&
        ! grep -q SOLUTION "$odd/build/handout/stepA/extra part.c"; then
        pass "tool: names with spaces, a quote, a tab, a non-ASCII letter handed out, 'stepA/extra part.c' stripped ($how)"
    else
        fail "tool: odd names ($how): missing: ${missing[*]:-none}; differing: ${different[*]:-none}; stripped: ${stripped[*]:-none}"
    fi
done

# ---- 2. the handout of this tree --------------------------------------------------------------
tree=$work/tree
if ! bash "$tool" "$tree" > "$work/handout.log" 2>&1; then
    fail "make handout: $(tail -n 3 "$work/handout.log")"
    echo "handout-test: $fails checks failed"
    exit 1
fi
pass "make handout: $(grep -v warning "$work/handout.log" | sed 's/^handout.sh: [^:]*: //')"
grep warning "$work/handout.log" | sed 's/^handout.sh: warning: /NOTE /'

compare_tree "$here" "$tree" # stripped: step folders whose source lost a solution
for f in "${different[@]}"; do
    fail "handout: $f differs from the lab's own, and it is not a step source"
done
[ ${#stripped[@]} -gt 0 ] || fail "handout: no step was stripped (no solution markers anywhere?)"
if grep -rnE 'BEGIN SOLUTION|END SOLUTION|/\* STUB' "${stripped[@]/#/$tree/}" > "$work/leak.txt"; then
    fail "handout: markers left in the handout: $(head -n 1 "$work/leak.txt")"
else
    pass "handout: ${#stripped[@]} steps stripped (${stripped[*]}), no marker left, every other file identical"
fi

# The instructors' worked answers (grading/handout.exclude) must never reach a student.
answers=$(cd "$here" && find . -path ./build -prune -o -name INSTRUCTORS.md -type f -print | sed 's|^\./||' | sort)
leaked=$(cd "$tree" && find . -name INSTRUCTORS.md | sed 's|^\./||' | sort)
if [ -n "$leaked" ]; then
    fail "handout: instructors' answers given to students: $(echo $leaked)"
elif [ -z "$answers" ]; then
    fail "handout: no INSTRUCTORS.md in the lab to keep out (the check would prove nothing)"
else
    pass "handout: $(echo "$answers" | wc -l) INSTRUCTORS.md kept out of the student tree"
fi

# The handout builds: CPU steps always, GPU steps where nvcc can compile them.
build_steps() { # TREE ID...: build those steps in TREE; the log is TREE.log
    local t=$1
    shift
    local targets=() parallel=(-j"$jobs")
    for id in "$@"; do targets+=("step$id"); done
    [[ ${MAKEFLAGS:-} == *jobserver* ]] && parallel=() # under make: its jobs, not more
    make -C "$t" "${parallel[@]}" BUILD=build "${targets[@]}" > "$t.log" 2>&1
}
ids=() gpu_ids=()
while read -r id folder lang _; do
    [ -d "$here/$folder" ] || continue
    if [ "$lang" = c ]; then ids+=("$id"); elif command -v "${NVCC:-nvcc}" > /dev/null; then gpu_ids+=("$id"); fi
done < <(registry_ids id folder lang)
if build_steps "$tree" "${ids[@]}" "${gpu_ids[@]}"; then
    # The compilers' warnings (gcc's "file:line: warning:", nvcc's "warning #177-D"), not make's own.
    warnings=$(grep -E 'warning' "$tree.log" | grep -vcE '^make(\[[0-9]+\])?: ')
    if [ "$warnings" -eq 0 ]; then
        pass "handout builds without a warning: steps ${ids[*]} ${gpu_ids[*]}"
    else
        fail "handout builds, with $warnings warnings a student would see: $(grep -E 'warning' "$tree.log" | grep -m 1 -vE '^make(\[[0-9]+\])?: ')"
    fi
else
    fail "handout does not build: $(grep -m 3 -E 'error|Error' "$tree.log")"
fi

# ---- 3. each stripped step says what is left to do --------------------------------------------
have_gpu=0
nvidia-smi -L > /dev/null 2>&1 && have_gpu=1
for folder in "${stripped[@]}"; do
    bin=$tree/build/bin/$folder
    lang=$(registry_field "$folder" lang)
    if [ "$lang" = cu ] && [ $have_gpu -eq 0 ]; then
        echo "SKIP stripped $folder: no GPU here to run it"
        continue
    fi
    [ -x "$bin" ] || { fail "stripped $folder: not built"; continue; }
    "$bin" -q -n 257 -S 2 --steps 1 --repeat 1 > "$work/out.txt" 2> "$work/err.txt"
    rc=$?
    if [ $rc -eq 2 ] && [ "$(wc -l < "$work/err.txt")" -eq 1 ] && grep -q "^$folder: TODO: " "$work/err.txt" &&
        [ ! -s "$work/out.txt" ]; then
        pass "stripped $folder -> exit 2: $(cat "$work/err.txt")"
    else
        fail "stripped $folder: exit $rc, stderr: $(head -c 300 "$work/err.txt")"
    fi
done

# `make grade` in the handout, where the grader exists: it runs, and marks the stripped steps.
grade_check() { # TREE EXPECT: EXPECT is TODO (stripped) or PASS (filled in)
    local t=$1 expect=$2 steps=()
    for folder in "${stripped[@]}"; do
        steps+=("$(registry_field "$folder" id)")
    done
    if ! grep -qs '^grade:' "$t"/grading/*.mk; then
        echo "SKIP make grade in the handout: no grader in this tree yet"
        return
    fi
    # Smaller sizes than a real grading: this checks the verdicts, not the speed.
    make -C "$t" grade STEPS="${steps[*]}" GRADE_N=4096 GRADE_CHECK_N="1 31 257 1000" > "$t.grade.log" 2>&1
    local rc=$?
    if [ $rc -ge 128 ] || grep -qiE 'segmentation|core dumped|abort' "$t.grade.log"; then
        fail "make grade ($expect): crashed (exit $rc): $(tail -n 3 "$t.grade.log")"
        return
    fi
    for folder in "${stripped[@]}"; do
        local lang
        lang=$(registry_field "$folder" lang)
        [ "$lang" = cu ] && [ $have_gpu -eq 0 ] && continue
        if [ "$expect" = TODO ]; then
            if grep "$folder" "$t.grade.log" | grep -qE "TODO|FAIL" && grep -q "$folder: TODO: " "$t.grade.log"; then
                pass "make grade, stripped: $folder marked $(grep "$folder" "$t.grade.log" | grep -oE 'TODO|FAIL' | head -n 1), with its message"
            else
                fail "make grade, stripped: $folder not marked TODO/FAIL with its message (exit $rc)"
            fi
        elif grep "$folder" "$t.grade.log" | grep -q PASS && ! grep "$folder" "$t.grade.log" | grep -qE 'TODO|FAIL'; then
            pass "make grade, filled in: $folder PASS"
        else
            fail "make grade, filled in: $folder not PASS (exit $rc): $(grep "$folder" "$t.grade.log" | head -n 2)"
        fi
    done
}
grade_check "$tree" TODO

# ---- 4. filled back in with the solutions, the steps pass -------------------------------------
full=$work/filled
cp -a "$tree" "$full"
rm -rf "$full/build"
for folder in "${stripped[@]}"; do
    cp "$here/$folder"/nbody.c* "$full/$folder/"
done
if build_steps "$full" "${ids[@]}" "${gpu_ids[@]}"; then
    for folder in "${stripped[@]}"; do
        lang=$(registry_field "$folder" lang)
        if [ "$lang" = cu ] && [ $have_gpu -eq 0 ]; then
            echo "SKIP filled-in $folder: no GPU here to run it"
            continue
        fi
        if "$full/build/bin/$folder" -q --validate-only -n 257 -S 2 > "$work/err.txt" 2>&1; then
            pass "filled-in $folder: validation PASS (N=257 S=2)"
        else
            fail "filled-in $folder: $(head -c 300 "$work/err.txt")"
        fi
    done
    grade_check "$full" PASS
else
    fail "filled-in tree does not build: $(grep -m 3 -E 'error|Error' "$full.log")"
fi

if [ $fails -gt 0 ]; then
    echo "handout-test: $fails checks FAILED"
    exit 1
fi
echo "handout-test: all checks passed"
