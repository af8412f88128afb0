#!/usr/bin/env bash
# handout-test.sh WORK: checks `make handout` end to end, in the folder WORK (made afresh).
#   1. the stripping tool: good regions come out as their stubs; every kind of marker mistake is an
#      error naming the file and line, and leaves no handout behind;
#   2. the handout of this tree: no solution and no marker left in a stripped step, every other file
#      identical; it builds (GPU steps compile where nvcc exists);
#   3. each stripped step answers with its one-line TODO and exit status 2 (and `make grade` in the
#      handout marks it, without crashing, where the grader exists);
#   4. filled back in with its solution, each step passes validation (and `make grade`);
#   5. a student's walk-through, as the README says: the handout made with `make handout DEST=` from a
#      copy of the lab's files (a fresh clone: no build/), outside it; no file of it outside the stripped
#      steps holds a solution (grading/answers-check.sh); `make test` there green as it is; steps 00 and
#      01 written (the solutions dropped in), `make test` green and `make grade STEP=00`, then STEP=01,
#      PASS with both in the table and results.csv; a syntax error in step02 is a FAIL naming the
#      compiler's error (where nvcc is), and fixed, graded again, its failure is gone; a data race
#      planted in step01 is a FAIL; the rows' commit is the handout's label. make test's last line
#      is its verdict (N passed, N failed, N skipped), a step that does not compile counted in it; make
#      help lists no instructors' target and refuses one; make regs works there (where nvcc is).
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
err=$(bash "$mini/grading/handout.sh" --scratch "$mini/build/handout" 2>&1)
rc=$?
if [ $rc -eq 2 ] && [[ $err == *"stepA/nbody.c:2: BEGIN SOLUTION is never closed"* ]] &&
    [ ! -e "$mini/build/handout" ] && [ -z "$(ls -A "$mini/build" 2> /dev/null)" ]; then
    pass "tool: a broken step -> exit 2 naming stepA/nbody.c:2, no handout, no temporary left"
else
    fail "tool: a broken step: exit $rc, output: $err"
fi
printf 'int a;\n/* BEGIN SOLUTION */\nint b;\n/* END SOLUTION */\n' > "$mini/stepA/nbody.c"
mkdir -p "$mini/build/precious" && touch "$mini/build/precious/file"
err=$(bash "$mini/grading/handout.sh" --scratch "$mini/build/precious" 2>&1)
[ $? -eq 2 ] && [ -f "$mini/build/precious/file" ] &&
    pass "tool: refuses to overwrite a folder that is not a handout (${err#*: })" ||
    fail "tool: overwrote or accepted a folder that is not a handout: $err"
err=$(bash "$mini/grading/handout.sh" "$mini/stepA" 2>&1)
[ $? -eq 2 ] && pass "tool: refuses a folder inside the sources (${err#*: })" ||
    fail "tool: accepted a folder inside the sources: $err"
err=$(bash "$mini/grading/handout.sh" "$mini/build/copy" 2>&1)
[ $? -eq 2 ] && [ ! -e "$mini/build/copy" ] && pass "tool: refuses build/ without --scratch (${err#*: })" ||
    fail "tool: wrote a student's copy under build/, which make clean deletes: $err"
# A student's copy outside the lab is made once, and never written over: it holds their work.
if bash "$mini/grading/handout.sh" "$work/mini-copy" > /dev/null 2>&1 && [ -f "$work/mini-copy/.handout" ] &&
    echo "my work" > "$work/mini-copy/stepA/mine.txt" &&
    ! err=$(bash "$mini/grading/handout.sh" "$work/mini-copy" 2>&1) && [ -f "$work/mini-copy/stepA/mine.txt" ]; then
    pass "tool: a copy outside the lab is written once, then never over (${err#*: })"
else
    fail "tool: a student's copy outside the lab: not written, or written over: $err"
fi
# Instructors' files say so (a marker line among their first 10), and stay out whatever their path.
mkdir -p "$mini/notes" && printf '/* a note */
// INSTRUCTORS ONLY: a worked answer
int answer;
' > "$mini/notes/answer.c" &&
    printf '/* mentions INSTRUCTORS ONLY: in passing, not as a marker */
' > "$mini/notes/plain.c"
rm -rf "$mini/build"
if bash "$mini/grading/handout.sh" --scratch "$mini/build/handout" > /dev/null 2>&1 && [ ! -e "$mini/build/handout/notes/answer.c" ] &&
    [ -f "$mini/build/handout/notes/plain.c" ]; then
    pass "tool: a file marked INSTRUCTORS ONLY stays out, one that only mentions the words goes out"
else
    fail "tool: the INSTRUCTORS ONLY marker: marked file handed out, or the unmarked one kept back"
fi

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
    if ! err=$(bash "$odd/grading/handout.sh" --scratch "$odd/build/handout" 2>&1); then
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

# ---- 2. the handout of this tree, made as the README says -------------------------------------
# A fresh clone: the files git knows (tracked, or untracked and not ignored), no build/. In it, the
# student quick start's command: `make handout DEST=...`, a folder outside that lab.
lab=$work/lab
mkdir -p "$lab"
if git -C "$here" rev-parse --show-toplevel > /dev/null 2>&1 && [ "$(git -C "$here" rev-parse --show-toplevel)" = "$here" ]; then
    (cd "$here" && git ls-files -z --cached --others --exclude-standard)
else
    (cd "$here" && find . \( -path ./build -o -path ./.git -o -path ./.deps \) -prune -o -type f -printf '%P\0')
fi | while IFS= read -r -d '' f; do
    [ -f "$here/$f" ] || continue
    mkdir -p "$lab/$(dirname "$f")" && cp -p "$here/$f" "$lab/$f"
done
# The walk-through's makes are the student's own, not parts of the make that runs this test.
student_make() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory "$@"; }
tree=$work/nbody-lab
if err=$(student_make -C "$lab" handout 2>&1); then
    fail "make handout without DEST: wrote somewhere: $err"
else
    pass "make handout without DEST: refused, with the usage (${err%%$'\n'*})"
fi
if ! student_make -C "$lab" handout DEST="$tree" > "$work/handout.log" 2>&1; then
    fail "make handout DEST=$tree: $(tail -n 3 "$work/handout.log")"
    echo "handout-test: $fails checks failed"
    exit 1
fi
pass "make handout DEST=...: $(grep -v warning "$work/handout.log" | sed 's/^handout.sh: [^:]*: //')"
grep warning "$work/handout.log" | sed 's/^handout.sh: warning: /NOTE /'

compare_tree "$here" "$tree" # stripped: step folders whose source lost a solution
for f in "${different[@]}"; do
    [ "$f" = README.md ] && continue # the student's front door: checked below
    fail "handout: $f differs from the lab's own, and it is not a step source"
done
[ ${#stripped[@]} -gt 0 ] || fail "handout: no step was stripped (no solution markers anywhere?)"
if grep -rnE 'BEGIN SOLUTION|END SOLUTION|/\* STUB' "${stripped[@]/#/$tree/}" > "$work/leak.txt"; then
    fail "handout: markers left in the handout: $(head -n 1 "$work/leak.txt")"
else
    pass "handout: ${#stripped[@]} steps stripped (${stripped[*]}), no marker left, every other file identical"
fi
# Its README.md: the student's front door (grading/handout-README.md), then the lab's reference sections.
if [ -f "$here/grading/handout-README.md" ] && cmp -s <(head -n "$(wc -l < "$here/grading/handout-README.md")" "$tree/README.md") "$here/grading/handout-README.md" &&
    grep -q '^## The ladder' "$tree/README.md" && ! grep -q '^## For instructors' "$tree/README.md"; then
    pass "handout: README.md opens with the student's front door, then the ladder; no instructors' section"
else
    fail "handout: README.md is not grading/handout-README.md followed by the lab's reference sections"
fi
# No answers: by content, every text file outside the stripped steps against every solution region.
if out=$(bash "$here/grading/answers-check.sh" "$here" "$tree" 2>&1); then
    pass "no answers: $out"
else
    fail "no answers in the handout: $out"
fi
# ...and the check can fail: a force bench of the lab's (marked INSTRUCTORS ONLY) dropped into a copy.
bench=$(grep -lE '^(//|/\*) INSTRUCTORS ONLY:' "$here"/report/explore/*.cu "$here"/report/*/*.cu 2> /dev/null | head -n 1)
if [ -n "$bench" ]; then
    planted=$work/planted && rm -rf "$planted" && mkdir -p "$planted" && cp -a "$tree/." "$planted/" &&
        mkdir -p "$planted/report/explore" && cp "$bench" "$planted/report/explore/$(basename "$bench")"
    if out=$(bash "$here/grading/answers-check.sh" "$here" "$planted" 2>&1); then
        fail "no answers: the check misses ${bench#"$here"/} dropped into a handout"
    else
        pass "no answers: the check finds ${bench#"$here"/} dropped into a handout ($(grep -c LEAK <<< "$out") regions)"
    fi
    rm -rf "$planted"
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

# Every file the lab marks INSTRUCTORS ONLY stays out, step13's scheme in fp64 among them
# (report/explore/hole-steps.c once went out: the answer of a stripped step outside it).
marker='^[[:space:]]*(/\*|//|#) INSTRUCTORS ONLY:'
marked=$(cd "$lab" && find . -type f -printf '%P\0' | xargs -0 grep -lE -m 1 "$marker" 2> /dev/null |
    while read -r f; do head -n 10 "$f" | grep -qE "$marker" && echo "$f"; done)
shipped=$(for f in $marked; do [ -e "$tree/$f" ] && echo "$f"; done)
if [ -n "$shipped" ]; then
    fail "handout: files marked INSTRUCTORS ONLY given to students: $(echo $shipped)"
elif ! grep -qx 'report/explore/hole-steps.c' <<< "$marked"; then
    fail "handout: report/explore/hole-steps.c (step13's scheme in fp64) is not marked INSTRUCTORS ONLY"
else
    pass "handout: the $(echo "$marked" | wc -l) files marked INSTRUCTORS ONLY kept out, report/explore/hole-steps.c among them"
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
    # Smaller sizes than a real grading: this checks the verdicts, not the speed. The stripped tree's
    # grade is the student's first: the grader is built from nothing, and says so without compiler lines.
    [ "$expect" = TODO ] && rm -rf "$t/build/obj/grading" "$t/build/grading"
    student_make -C "$t" grade STEPS="${steps[*]}" GRADE_N=4096 GRADE_CHECK_N="1 31 257 1000" > "$t.grade.log" 2>&1
    local rc=$?
    if [ "$expect" = TODO ]; then
        local raw
        raw=$(grep -cE '^(gcc|cc|clang|nvcc|\S*/nvcc) ' "$t.grade.log")
        [ "$raw" -eq 0 ] && pass "make grade's first build prints no compiler command lines" ||
            fail "make grade's first build printed $raw compiler command lines: $(grep -m1 -E '^(gcc|cc|clang|nvcc) ' "$t.grade.log" | cut -c1-80)"
    fi
    if [ $rc -ge 128 ] || grep -qiE 'segmentation|core dumped|abort' "$t.grade.log"; then
        fail "make grade ($expect): crashed (exit $rc): $(tail -n 3 "$t.grade.log")"
        return
    fi
    local nvcc_here=0
    command -v "${NVCC:-nvcc}" > /dev/null && nvcc_here=1
    for folder in "${stripped[@]}"; do
        local lang row
        lang=$(registry_field "$folder" lang)
        row=$(grep -E "^[0-9]+ +$folder +(PASS|FAIL|SKIP|TODO) " "$t.grade.log" | tail -n 1) # its row of the table
        if [ "$expect" = TODO ]; then
            # Not written yet: TODO with the stub's line, GPU steps too (with nvcc: compiled first).
            if [[ $row =~ ^[0-9]+\ +$folder\ +TODO\ .*TODO:\  ]]; then
                pass "make grade, stripped: $folder TODO, with its message"
            else
                fail "make grade, stripped: $folder not TODO with its message (exit $rc): ${row:-no row}"
            fi
        elif [ "$lang" = cu ] && [ $have_gpu -eq 0 ]; then
            # A GPU step without a GPU: compiled where nvcc is, then SKIP.
            local want="SKIP .*no GPU"
            [ $nvcc_here -eq 1 ] && want="SKIP .*compiled, no GPU"
            [ $nvcc_here -eq 0 ] && want="SKIP .*no nvcc"
            if [[ $row =~ $want ]]; then
                pass "make grade, filled in: $folder ${row#*SKIP}" | sed 's/  */ /g'
            else
                fail "make grade, filled in: $folder not '$want' (exit $rc): ${row:-no row}"
            fi
        elif [[ $row =~ ^[0-9]+\ +$folder\ +PASS\  ]]; then
            pass "make grade, filled in: $folder PASS"
        else
            fail "make grade, filled in: $folder not PASS (exit $rc): ${row:-no row}"
        fi
    done
}
grade_check "$tree" TODO

# ---- 4. filled back in with the solutions, the steps pass -------------------------------------
full=$work/filled
cp -a "$tree" "$full" # its build too: only the filled-in steps recompile
rm -rf "$full/build/grade"
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

# ---- 5. a student's walk-through, in the handout made above ----------------------------------
# The solution of a step as a student would write it: the markers and the stubs dropped.
solution_of() {
    awk '/^[ \t]*\/\* BEGIN SOLUTION \*\/[ \t]*$/ { next }
         /^[ \t]*\/\* STUB[ \t]*$/ { stub = 1; next }
         /^[ \t]*(\/\* )?END SOLUTION \*\/[ \t]*$/ { stub = 0; next }
         !stub' "$1"
}
row_of() { grep -E "^[0-9]+ +$1 +(PASS|FAIL|SKIP|TODO) " "$2" | tail -n 1; } # FOLDER LOG: its row of the table
walk=$work/walk
mkdir -p "$walk"
gsize=(GRADE_N=4096 GRADE_CHECK_N="1 31 257 1000") # the verdicts, not the speed
cpu_folders=()
while read -r id folder lang _; do
    [ "$lang" = c ] && [ -d "$tree/$folder" ] && cpu_folders+=("$folder")
done < <(registry_ids id folder lang)
s00=${cpu_folders[0]:-} s01=${cpu_folders[1]:-}
gpu_folder=$(registry_where lang cu folder | head -n 1)

# A fresh copy: make test is green, each step not written yet a TODO.
# make test's verdict is its last line, alone, in one form (CI reads it): N passed, N failed, N skipped.
verdict_re='^[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$'
student_make -C "$tree" -j"$jobs" test > "$walk/test-fresh.log" 2>&1
rc=$?
summary=$(tail -n 1 "$walk/test-fresh.log")
if [ $rc -eq 0 ] && [[ $summary =~ $verdict_re ]] && [[ $summary == *" 0 failed"* ]] &&
    grep -qE "^ +$s00 +TODO " "$walk/test-fresh.log"; then
    pass "walk-through: make test on a fresh copy is green: $summary"
else
    fail "walk-through: make test on a fresh copy: exit $rc: ${summary:-}$(grep -E '^ +[a-z0-9_]+ +FAIL|^FAIL|Error' "$walk/test-fresh.log" | head -n 3)"
fi

if [ -z "$s00" ] || [ -z "$s01" ]; then
    echo "SKIP walk-through: steps.list has fewer than two CPU steps"
else
    # Steps 00 and 01 written (their solutions dropped in): make test green, their suites run and pass.
    for f in "$s00" "$s01"; do solution_of "$here/$f/nbody.c" > "$tree/$f/nbody.c"; done
    student_make -C "$tree" -j"$jobs" test > "$walk/test-0001.log" 2>&1
    rc=$?
    summary=$(tail -n 1 "$walk/test-0001.log")
    if [ $rc -eq 0 ] && [[ $summary =~ $verdict_re ]] && [[ $summary == *" 0 failed"* ]] &&
        grep -qE "^ +$s00 +PASS " "$walk/test-0001.log" && grep -qE "^ +$s01 +PASS " "$walk/test-0001.log" &&
        grep -qE "^ +agreement +PASS " "$walk/test-0001.log"; then
        pass "walk-through: $s00 and $s01 written, make test is green, their suites PASS: $summary"
    else
        fail "walk-through: $s00 and $s01 written, make test: exit $rc: ${summary:-}$(grep -E '^ +[a-z0-9_]+ +FAIL|^FAIL|Error' "$walk/test-0001.log" | head -n 3)"
    fi
    # A step that does not compile: make test's verdict counts the failure, and its exit status says so
    # (one unit suite and that step's, no extra checks: the verdict is what is checked here). The verdict
    # is the last line of standard output: on a failure make itself then adds its "*** [test] Error 1"
    # on standard error.
    cp "$tree/$s00/nbody.c" "$walk/nbody00.c"
    sed -i '0,/^#include/s//this is not C;\n&/' "$tree/$s00/nbody.c"
    student_make -C "$tree" test TEST_UNITS=rng TEST_STEPS="${s00:4:2}" TEST_EXTRA= > "$walk/test-broken.log" 2> "$walk/test-broken.err"
    rc=$?
    summary=$(tail -n 1 "$walk/test-broken.log")
    if [ $rc -ne 0 ] && [[ $summary =~ $verdict_re ]] && [[ $summary =~ \ [1-9][0-9]*\ failed ]] &&
        grep -q 'error' "$walk/test-broken.err"; then
        pass "walk-through: $s00 that does not compile: make test exits $rc, its last line '$summary'"
    else
        fail "walk-through: $s00 that does not compile: make test exit $rc, last line of its output '$summary'; stderr: $(tail -n 2 "$walk/test-broken.err")"
    fi
    cp "$walk/nbody00.c" "$tree/$s00/nbody.c"

    # Climbing: grade 00, then 01 alone; the table and results.csv keep 00; 01's old logs are gone.
    student_make -C "$tree" grade STEP="${s00:4:2}" "${gsize[@]}" > "$walk/grade-00.log" 2>&1
    rc0=$?
    mkdir -p "$tree/build/grade/logs/${s01:4:2}" && echo "a log of an earlier run" > "$tree/build/grade/logs/${s01:4:2}/stale.log"
    student_make -C "$tree" grade STEP="${s01:4:2}" "${gsize[@]}" > "$walk/grade-01.log" 2>&1
    rc1=$?
    r00=$(row_of "$s00" "$walk/grade-01.log") r01=$(row_of "$s01" "$walk/grade-01.log")
    rows=$(cut -d, -f1 "$tree/build/grade/results.csv" 2> /dev/null | tail -n +2 | tr '\n' ' ')
    if [ $rc0 -eq 0 ] && [ $rc1 -eq 0 ] && [[ $r00 == *PASS*"earlier run"* ]] && [[ $r01 =~ PASS.*[0-9.]+x ]] &&
        [ "$rows" = "${s00:4:2} ${s01:4:2} " ] && [ ! -e "$tree/build/grade/logs/${s01:4:2}/stale.log" ]; then
        pass "walk-through: make grade STEP=${s00:4:2}, then STEP=${s01:4:2}: both PASS, the table and results.csv show both (${s00:4:2} from the earlier run), old logs cleared"
    else
        fail "walk-through: grade ${s00:4:2} then ${s01:4:2}: exit $rc0, $rc1; rows: '$r00' '$r01'; results.csv: $rows; stale log $( [ -e "$tree/build/grade/logs/${s01:4:2}/stale.log" ] && echo kept || echo removed)"
    fi
    # The rows' commit (the ladder's title) is the handout's label, from its .handout stamp: the copy
    # has no git, and once read "unknown-dirty".
    label=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) if ($i == "commit") c = i; next } { print $c }' \
        "$tree/build/grade/results.csv" 2> /dev/null | sort -u)
    stamp=$(sed -nE '1s/^handout of the N-body lab, from commit ([0-9A-Za-z-]+),.*/\1/p' "$tree/.handout")
    [ -n "$stamp" ] && [ "$label" = "handout-$stamp" ] && pass "walk-through: the rows' commit is the handout's label, $label" ||
        fail "walk-through: the rows' commit is '$label', not handout-$stamp (the .handout stamp)"
    if command -v gnuplot > /dev/null; then
        [ "$tree/build/grade/ladder.png" -nt "$walk/grade-00.log" ] && pass "walk-through: the ladder drawn (build/grade/ladder.png)" ||
            fail "walk-through: gnuplot is here, but no new build/grade/ladder.png"
    fi

    # A data race planted in step01 (its sums shared by every thread): make grade FAILs it.
    cp "$tree/$s01/nbody.c" "$walk/nbody01.c"
    sed -i -e 's/^        float \(ax[ac] = 0\.0f\)/        \1/' \
        -e 's/^#pragma omp parallel for schedule(dynamic/    float axa, aya, aza, axb, ayb, azb, axc, ayc, azc, axd, ayd, azd;\n&/' "$tree/$s01/nbody.c"
    if cmp -s "$tree/$s01/nbody.c" "$walk/nbody01.c"; then
        fail "walk-through: the race was not planted: the sed matched nothing in $s01 (has the step changed?)"
    else
        student_make -C "$tree" grade STEP="${s01:4:2}" "${gsize[@]}" > "$walk/grade-race.log" 2>&1
        rc=$?
        r=$(row_of "$s01" "$walk/grade-race.log")
        if [ $rc -ne 0 ] && [[ $r == *FAIL*"data race"* ]]; then
            pass "walk-through: a data race planted in $s01 FAILs: ${r#*FAIL}" | sed 's/   */ /g'
        else
            fail "walk-through: a data race planted in $s01: exit $rc, ${r:-no row}"
        fi
    fi
    cp "$walk/nbody01.c" "$tree/$s01/nbody.c"

    # What a step's source can do at compile time (issue #52): read the grader's reference cache into its
    # object (.incbin), or write an object of 1.1 GB (.fill). The build runs sandboxed: the cache is not
    # there, and a file stops at 256 MiB; each is a FAIL saying so.
    cached=$(find "$tree/build/grade/ref-cache" -type f -name '*.nbs' 2> /dev/null | head -n 1)
    if ! command -v bwrap > /dev/null 2>&1; then
        echo "SKIP walk-through: the build's sandbox: no bubblewrap here"
    elif [ -z "$cached" ]; then
        fail "walk-through: no reference in $tree/build/grade/ref-cache after make grade"
    else
        for plant in "incbin|.incbin \\\"$cached\\\"|build failed" "fill|.fill 1100000000,1,0|build output over 256 MiB"; do
            IFS='|' read -r what directive want <<< "$plant"
            cp "$walk/nbody00.c" "$tree/$s00/nbody.c"
            printf '__asm__(".section .rodata\\n%s\\n.text");\n' "$directive" >> "$tree/$s00/nbody.c"
            student_make -C "$tree" grade STEP="${s00:4:2}" "${gsize[@]}" > "$walk/grade-$what.log" 2>&1
            rc=$?
            r=$(row_of "$s00" "$walk/grade-$what.log")
            if [ $rc -ne 0 ] && [[ $r == *FAIL*"$want"* ]]; then
                pass "walk-through: a $s00 whose source does $what at compile time FAILs: ${r#*FAIL}" | sed 's/   */ /g'
            else
                fail "walk-through: a $s00 whose source does $what at compile time: exit $rc, ${r:-no row}"
            fi
        done
        cp "$walk/nbody00.c" "$tree/$s00/nbody.c"
    fi
fi

# The handout's make help lists what works there: no target tagged [instructors] or [lab], and the
# student's tools; such a target, asked for, stops with one line.
help=$(student_make -C "$tree" help 2>&1)
tagged=$(grep -hoE '^[a-zA-Z0-9_-]+:.*## \[(instructors|lab)\]' "$here"/Makefile "$here"/*/*.mk "$here"/*/*/*.mk 2> /dev/null | cut -d: -f1 | sort -u)
listed=$(for t in $tagged; do grep -qE "^  make $t " <<< "$help" && echo "$t"; done)
if [ -z "$tagged" ]; then
    fail "handout: no make target is tagged [instructors] in the lab (the check would prove nothing)"
elif [ -n "$listed" ]; then
    fail "handout: make help lists the instructors' targets: $(echo $listed)"
elif ! grep -qE '^  make regs ' <<< "$help" || ! grep -qE '^  make profile ' <<< "$help"; then
    fail "handout: make help does not list make regs and make profile"
else
    pass "handout: make help lists regs and profile, and none of the $(echo "$tagged" | wc -l) tagged targets ($(echo $tagged))"
fi
# Every tagged target, those of the instructors' own make files too (grading/class/class.mk is not in
# the handout: make grade-class and test-class once gave make's "No rule" there): one line, exit 2.
refused=0 first=
for t in $tagged; do
    err=$(student_make -C "$tree" "$t" 2>&1)
    rc=$?
    if [ $rc -eq 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] && [[ $err == *"not for a handout"* ]]; then
        refused=$((refused + 1)) first=${first:-$err}
    else
        fail "handout: make $t: exit $rc, not 2 with the lab's one line: $err"
    fi
done
[ "$refused" -gt 0 ] && pass "handout: the $refused tagged targets refused with one line, exit 2 (${first#*\*\*\* })"

# make regs in the handout, where nvcc is: the first GPU step's kernels (its stub compiles).
if [ -n "$gpu_folder" ] && command -v "${NVCC:-nvcc}" > /dev/null; then
    out=$(student_make -C "$tree" regs STEP="${gpu_folder:4:2}" 2>&1)
    rc=$?
    rows=$(grep -cE '^  [A-Za-z_][^ ]* +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+' <<< "$out")
    if [ $rc -eq 0 ] && [ "$rows" -gt 0 ]; then
        pass "walk-through: make regs STEP=${gpu_folder:4:2} in the handout: $rows kernels ($(grep -m 1 -E '^  [A-Za-z_][^ ]* +[0-9]+' <<< "$out" | tr -s ' '))"
    else
        fail "walk-through: make regs STEP=${gpu_folder:4:2} in the handout: exit $rc: $(tail -n 2 <<< "$out")"
    fi
else
    echo "SKIP walk-through: make regs in the handout: no nvcc here"
fi

# A syntax error in a GPU step, where nvcc is (a GPU or not): a FAIL with the compiler's error.
if [ -n "$gpu_folder" ] && command -v "${NVCC:-nvcc}" > /dev/null; then
    src=$tree/$gpu_folder/nbody.cu
    cp "$src" "$walk/gpu.cu"
    sed -i '0,/^#include/s//this is not CUDA;\n&/' "$src"
    student_make -C "$tree" grade STEP="${gpu_folder:4:2}" "${gsize[@]}" > "$walk/grade-syntax.log" 2>&1
    rc=$?
    r=$(row_of "$gpu_folder" "$walk/grade-syntax.log")
    if [ $rc -ne 0 ] && [[ $r == *FAIL*"build failed"*error* ]]; then
        pass "walk-through: a syntax error in $gpu_folder FAILs with the compiler's error: ${r#*FAIL}" | sed 's/   */ /g'
    else
        fail "walk-through: a syntax error in $gpu_folder: exit $rc, ${r:-no row}"
    fi
    cp "$walk/gpu.cu" "$src"
    # Fixed, it builds again: graded, its TODO (or SKIP without a GPU) clears the build failure, from the
    # table and from results.csv (a stale "FAIL failed (case N=0 S=0)" once stayed under it).
    student_make -C "$tree" grade STEP="${gpu_folder:4:2}" "${gsize[@]}" > "$walk/grade-fixed.log" 2>&1
    rc=$?
    r=$(row_of "$gpu_folder" "$walk/grade-fixed.log")
    stale=$(grep -cE "^[0-9]+ +$gpu_folder +FAIL " "$walk/grade-fixed.log")
    csv_rows=$(awk -F, -v id="${gpu_folder:4:2}" 'NR > 1 && $1 == id' "$tree/build/grade/results.csv" 2> /dev/null | wc -l)
    if [ $rc -eq 0 ] && [[ $r =~ (TODO|SKIP) ]] && [ "$stale" -eq 0 ] && [ "$csv_rows" -eq 0 ]; then
        pass "walk-through: $gpu_folder fixed and graded again: the build failure cleared (${r#*"$gpu_folder"})" | sed 's/   */ /g'
    else
        fail "walk-through: $gpu_folder fixed: exit $rc, row '${r:-none}', $stale FAIL lines, $csv_rows rows in results.csv"
    fi
else
    echo "SKIP walk-through: a syntax error in a GPU step: no nvcc here"
fi

if [ $fails -gt 0 ]; then
    echo "handout-test: $fails checks FAILED"
    exit 1
fi
echo "handout-test: all checks passed"
