#!/usr/bin/env bash
# INSTRUCTORS ONLY: the class grader's test (grading/CLASS.md); grading/handout.sh keeps it out of the handout.
# test-class.sh WORK: make test-class. Five synthetic students of steps 00 and 01, made from the lab's own
# solutions, graded by `make grade-class` into WORK/out (WORK made afresh), and every output checked:
#   correct   both steps the lab's solutions                          00 PASS, 01 PASS
#   wrong     00 with its masses left out; 01 over the 1 MiB limit      00 FAIL (its likely cause named,
#                                                                       its errors the grade table's),
#                                                                       01 ERROR (refused)
#   broken    00 does not compile (its error holds HTML and quotes);  00 FAIL (build failed), 01 TODO
#             01 the handout's stub
#   hang      00 never returns (for (;;)); 01 not submitted            00 FAIL (its case timed out), 01 TODO
#   cheat     00 wrong, and it forges the grader's files wherever its command line points, and
#             beyond; 01 a symlink to the lab's solution               00 not PASS, 01 ERROR (refused)
# plus a stray file and a folder whose name is no id in SUBMISSIONS (left out), then CLASS_TIMEOUT (the
# whole submission stopped: ERROR, no process left). Then index.html is opened in headless chromium
# (installed with apt-get where it can be, else that check is SKIP with the reason).
# Prints one line per check; exit 1 if any failed, 2 on bad usage.
set -u -o pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -eq 1 ] || { echo "test-class.sh: usage: grading/class/test-class.sh WORK" >&2; exit 2; }
work=$1
rm -rf "$work" && mkdir -p "$work" || { echo "test-class.sh: cannot make $work" >&2; exit 2; }
work=$(cd "$work" && pwd)
# The class grader's reports, and this test's own checks, are python3's: installed as Check is, or SKIP.
bash "$here/common/deps.sh" python3 || { echo "SKIP test-class: python3 is not here and could not be installed"; exit 0; }
fails=0
pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
check() { # check WHAT COMMAND...: PASS when the command succeeds
    local what=$1
    shift
    if "$@"; then pass "$what"; else fail "$what"; fi
}
# Small sizes: the test is about the class runner, not the physics (make grade's own tests are).
export GRADE_N=1024 GRADE_CHECK_N="1 31 257" GRADE_TIMEOUT=8
step00=$here/step00_serial/nbody.c
step01=$here/step01_omp/nbody.c

# ---- the students -----------------------------------------------------------------------------
subs=$work/subs
for s in correct wrong broken hang cheat; do mkdir -p "$subs/$s/step00_serial" "$subs/$s/step01_omp"; done
cp "$step00" "$subs/correct/step00_serial/nbody.c"
cp "$step01" "$subs/correct/step01_omp/nbody.c"

flip='s/= x\[j\] - x\[i\]/= x[i] - x[j]/;s/= y\[j\] - y\[i\]/= y[i] - y[j]/;s/= z\[j\] - z\[i\]/= z[i] - z[j]/'
sed 's/= m\[j\] \* inv \* inv \* inv/= inv * inv * inv/' "$step00" > "$subs/wrong/step00_serial/nbody.c"
{ cat "$step01"; head -c 1100000 /dev/zero | tr '\0' '\n'; } > "$subs/wrong/step01_omp/nbody.c"

{ cat "$step00"; echo '#error "</td><script>alert(1)</script> & \"quoted\" \\ back"'; } > "$subs/broken/step00_serial/nbody.c"
bash "$here/grading/handout.sh" --strip "$step01" > "$subs/broken/step01_omp/nbody.c"

sed 's/^    const size_t total = nb_state_count(s);$/    for (;;)\n        ;\n&/' "$step00" > "$subs/hang/step00_serial/nbody.c"
rm -r "$subs/hang/step01_omp"

# The cheat: every directory its command line names, and five levels above each, gets a forged
# verdicts.csv, results.csv and rows.csv saying PASS, and a marker file the test looks for afterwards.
sed "$flip" "$step00" | sed 's/^int nb_step_run(nb_state \*s, const nb_run \*run)$/static void forge(void);\n&/' > "$subs/cheat/step00_serial/nbody.c"
sed -i 's/^    const size_t total = nb_state_count(s);$/    forge();\n&/' "$subs/cheat/step00_serial/nbody.c"
cat >> "$subs/cheat/step00_serial/nbody.c" << 'EOF'
#include <stdio.h>
#include <string.h>
static void plant(const char *dir)
{
    static const char *files[][2] = {
        {"verdicts.csv", "step,name,verdict,reason,failed_case,cases_passed,cases,acc_err,state_err,loop_s,ginteractions_s,speedup_base,speedup_prev,log\n00,step00_serial,PASS,,,1,1,0,0,1,999,,,\n"},
        {"rows.csv", "student,step,verdict,acc_err,state_err,loop_s,ginteractions_s,reason\ncheat,00,PASS,0,0,1,999,\ncorrect,00,FAIL,0,0,1,0,forged\n"},
        {"forged-by-cheat", "the cheat was here\n"}};
    char path[4096];
    for (size_t k = 0; k < sizeof files / sizeof files[0]; ++k) {
        snprintf(path, sizeof path, "%s/%s", dir, files[k][0]);
        FILE *f = fopen(path, "w");
        if (f) {
            fputs(files[k][1], f);
            fclose(f);
        }
    }
}
static void forge(void)
{
    char args[8192] = {0};
    FILE *f = fopen("/proc/self/cmdline", "rb");
    if (!f)
        return;
    const size_t len = fread(args, 1, sizeof args - 1, f);
    fclose(f);
    for (size_t at = 0; at < len; at += strlen(args + at) + 1) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s", args + at);
        char *slash = strrchr(dir, '/');
        for (int up = 0; slash && up < 6; ++up) {
            *slash = '\0';
            plant(dir[0] ? dir : "/");
            slash = strrchr(dir, '/');
        }
    }
}
EOF
ln -s "$step01" "$subs/cheat/step01_omp/nbody.c"
echo "not a student" > "$subs/README.txt"
mkdir -p "$subs/bad name/step00_serial"

check "the planted faults changed their sources (sign, hang, forge)" \
    bash -c "! cmp -s '$step00' '$subs/wrong/step00_serial/nbody.c' && ! cmp -s '$step00' '$subs/cheat/step00_serial/nbody.c' && grep -q 'for (;;)' '$subs/hang/step00_serial/nbody.c' && grep -q '^    forge();' '$subs/cheat/step00_serial/nbody.c'"
check "the stub of step01 still says TODO" bash -c "awk -f '$here/grading/todo.awk' '$subs/broken/step01_omp/nbody.c' > /dev/null"
sums_before=$(cd "$subs" && find . -type f -exec sha256sum {} + | sort; sha256sum "$step00" "$step01")

# ---- make grade-class -------------------------------------------------------------------------
out=$work/out
t0=$(date +%s)
make -C "$here" --no-print-directory grade-class SUBMISSIONS="$subs" OUT="$out" CLASS_STEPS="00 01" CLASS_JOBS=2 \
    CLASS_TIMEOUT=300 PSEUDONYMS=1 > "$work/grade-class.log" 2>&1
status=$?
echo "     (make grade-class: $(($(date +%s) - t0)) s, log $work/grade-class.log)"
check "make grade-class exits 0 (every student graded)" test $status -eq 0
check "a stray file and a folder named by no id are left out, each named" \
    bash -c "grep -q 'README.txt: not a folder' '$work/grade-class.log' && grep -q 'bad name: not a student id' '$work/grade-class.log'"

# The students' lab is the handout: none of the class grader in it, nor in its make help.
base=$out/.lab/base
check "the lab the students are graded in is the handout: no grading/class/, no CLASS.md, no solution" \
    bash -c "[ -f '$base/.handout' ] && [ ! -e '$base/grading/class' ] && [ ! -e '$base/grading/CLASS.md' ] && awk -f '$here/grading/todo.awk' '$base/step00_serial/nbody.c' > /dev/null"
check "the handout's make help does not list grade-class" \
    bash -c "make -C '$base' --no-print-directory help > '$work/help.txt' 2>&1 && grep -q 'make grade ' '$work/help.txt' && ! grep -q 'class' '$work/help.txt'"

# class.csv, read by column name.
verdict() { python3 - "$out/class.csv" "$1" "$2" << 'EOF'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1], newline="")) if r["student"] == sys.argv[2] and r["step"] == sys.argv[3]]
print(rows[0]["verdict"] + "|" + rows[0]["reason"] if len(rows) == 1 else "missing")
EOF
}
check "class.csv: its header" bash -c "head -n 1 '$out/class.csv' | grep -qx 'student,step,verdict,acc_err,state_err,loop_s,ginteractions_s,reason,cause'"
check "class.csv: 10 rows, 5 students x 2 steps" test "$(python3 -c "import csv,sys; print(len(list(csv.DictReader(open(sys.argv[1])))))" "$out/class.csv")" = 10
expect() { # expect STUDENT STEP VERDICT [REASON-REGEX]
    local got
    got=$(verdict "$1" "$2")
    if [ "${got%%|*}" = "$3" ] && { [ -z "${4:-}" ] || grep -qE -- "$4" <<< "${got#*|}"; }; then
        pass "class.csv: $1 step $2 is $3${4:+ ($4)}"
    else
        fail "class.csv: $1 step $2 is $3${4:+ ($4)}; got: $got"
    fi
}
expect correct 00 PASS
expect correct 01 PASS
expect wrong 00 FAIL
expect wrong 01 ERROR 'over the limit'
expect broken 00 FAIL '^build failed'
expect broken 01 TODO 'TODO'
expect hang 00 FAIL 'time|timed'
expect hang 01 TODO 'no step01_omp/nbody.c'
expect cheat 00 FAIL
expect cheat 01 ERROR 'symbolic link'
check "class.csv: the correct student's steps have a G interactions/s" python3 -c "
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r['student'] == 'correct']
sys.exit(not all(float(r['ginteractions_s']) > 0 for r in rows))" "$out/class.csv"

# Every student's folder.
for s in correct wrong broken hang cheat; do
    d=$out/students/$s
    ok=1
    for f in rows.csv grade.txt gradescope/results.json prairielearn/results.json grade.log; do
        [ -f "$d/$f" ] || { ok=0; echo "     $s: no $f"; }
    done
    for f in gradescope/results.json prairielearn/results.json; do
        python3 -m json.tool "$d/$f" > /dev/null 2>&1 || { ok=0; echo "     $s: $f does not parse"; }
    done
    check "$s: rows.csv, grade.txt, both results.json (they parse), grade.log" test $ok = 1
done
score() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$1" "$2"; }
for want in "correct 2.0 1.0 True" "wrong 0.0 0.0 True" "broken 0.0 0.0 False" "hang 0.0 0.0 True" "cheat 0.0 0.0 True"; do
    read -r s gs pl gradable <<< "$want"
    d=$out/students/$s
    got="$(score "$d/gradescope/results.json" 'd["score"]') $(score "$d/prairielearn/results.json" 'd["score"]') $(score "$d/prairielearn/results.json" 'd["gradable"]')"
    check "$s: Gradescope score $gs, PrairieLearn score $pl, gradable $gradable (got $got)" test "$got" = "$gs $pl $gradable"
done
check "correct: Gradescope tests passed with max_score 1, its leaderboard the G interactions/s of step 01" python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
ok = [t['status'] for t in d['tests']] == ['passed', 'passed'] and all(t['max_score'] == 1 for t in d['tests'])
lb = {e['name']: e['value'] for e in d['leaderboard']}
sys.exit(not (ok and lb['G interactions/s'] > 0 and lb['highest step passed'] == '01'))" "$out/students/correct/gradescope/results.json"
check "broken: the compiler's error line, its HTML, quotes and backslashes, survives JSON intact" python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
line = open(sys.argv[2]).read().rstrip('\\n').split('\\n')[-1]
sys.exit(not any(line in t['output'] for t in d['tests']))" "$out/students/broken/gradescope/results.json" "$subs/broken/step00_serial/nbody.c"
for s in wrong broken hang cheat; do
    f=$out/students/$s/failures/00.txt
    check "$s: failures/00.txt names the failing case, with at most 40 lines of its log and no control character" \
        bash -c "grep -q '^failed case: ' '$f' && [ \$(sed -n '/^log /,\$p' '$f' | tail -n +2 | wc -l) -le 40 ] && ! LC_ALL=C grep -qP '[\x00-\x08\x0b-\x1f\x7f]' '$f'"
done
check "correct: no failures folder" test ! -e "$out/students/correct/failures"

# The likely cause (grading/cause.c) of wrong's step 00, the masses left out, reaches every output, as it
# does the student's own make grade; and class.csv's errors are those of the student's own table (once
# the worst over every run, the diagnostic set's N = 4096 too: 4095 against the table's 3.0e+01).
w=$out/students/wrong
cause=$(python3 -c "import csv,sys; print([r['cause'] for r in csv.DictReader(open(sys.argv[1])) if r['student'] == 'wrong' and r['step'] == '00'][0])" "$out/class.csv" 2> /dev/null)
check "class.csv: wrong step 00's likely cause is named (${cause:0:60}...)" test "${cause%%:*}" = constant-factor
names_cause() { grep -qF -- "likely cause: $cause" "$w/grade.txt" && grep -qF -- "likely cause: $cause" "$w/failures/00.txt"; }
check "grade.txt and failures/00.txt name it" names_cause
check "both results.json name it in step 00's output" python3 -c "
import json, sys
for f in sys.argv[1:3]:
    tests = json.load(open(f))['tests']
    if not any(('likely cause: ' + sys.argv[3]) in t['output'] for t in tests):
        sys.exit(1)" "$w/gradescope/results.json" "$w/prairielearn/results.json" "$cause"
CLASS_PSEUDONYMS=0 bash "$here/grading/class/collect.sh" "$out" > /dev/null
check "index.html names it (its reasons list)" grep -qF "likely cause: ${cause%% *}" "$out/index.html"
CLASS_PSEUDONYMS=1 bash "$here/grading/class/collect.sh" "$out" > /dev/null
table=$(grep -E '^00 +step00_serial +FAIL ' "$w/grade.log" | awk '{ print $5 " " $6 }')
csv_err=$(python3 -c "
import csv, sys
r = [r for r in csv.DictReader(open(sys.argv[1])) if r['student'] == 'wrong' and r['step'] == '00'][0]
f = lambda c: '%.1e' % float(c) if c not in ('', 'nan') else ('NaN' if c == 'nan' else '-')
print(f(r['acc_err']), f(r['state_err']))" "$out/class.csv" 2> /dev/null)
check "class.csv: wrong step 00's errors are its grade table's (table '$table', class.csv '$csv_err')" \
    bash -c "[ -n '$table' ] && [ '$table' = '$csv_err' ]"

# Nothing of one submission reached another, the lab, or the submissions.
check "the cheat's forged files are nowhere: not in OUT, the lab or the submissions" \
    bash -c "[ -z \"\$(find '$out' '$subs' '$here' -name forged-by-cheat 2> /dev/null | head -n 1)\" ]"
check "the submissions and the lab's solutions are unchanged" \
    test "$(cd "$subs" && find . -type f -exec sha256sum {} + | sort; sha256sum "$step00" "$step01")" = "$sums_before"
check "the scratch copies are gone (CLASS_KEEP unset)" bash -c "[ -z \"\$(ls -A '$out/work' 2> /dev/null)\" ]"

# index.html: pseudonyms, escaping, stable names.
page=$out/index.html
check "index.html: one page with no external resource (no src=, no href=, no url()" \
    bash -c "[ -s '$page' ] && ! grep -qiE 'src=|href=|url\\(|@import' '$page'"
check "index.html (PSEUDONYMS=1): no student shown by id, and no id in a path" python3 - "$page" << 'EOF'
import re, sys
text = open(sys.argv[1]).read()
names = re.findall(r'<tr class="student"><td>([^<]*)</td>', text)
ids = {"correct", "wrong", "broken", "hang", "cheat"}
sys.exit(not (len(names) == 5 and not ids & set(names) and not any(f"/{i}/" in text for i in ids)))
EOF
check "index.html: the untrusted error text escaped (no <script>, its &lt;script&gt; there)" \
    bash -c "! grep -qi '<script' '$page' && grep -q '&lt;script&gt;' '$page'"
cp "$page" "$work/index.first.html"
CLASS_PSEUDONYMS=1 bash "$here/grading/class/collect.sh" "$out" > /dev/null
check "index.html: the same pseudonyms when collected again" cmp -s "$page" "$work/index.first.html"
CLASS_PSEUDONYMS=0 bash "$here/grading/class/collect.sh" "$out" > /dev/null
check "index.html without pseudonyms: the ids, and the reasons escaped" \
    bash -c "grep -q '>correct<' '$page' && grep -q '&lt;/td&gt;&lt;script&gt;' '$page' && ! grep -qi '<script' '$page'"
# The run to watch: made of the highest CPU step that passed (correct's 01), none where nothing passed.
check "correct: view.html, make view of its step 01 (11 frames, 1024 bodies), named in grade.txt" \
    bash -c "[ \$(grep -c 'type=\"application/octet-stream\" id=\"f[0-9]*\"' '$out/students/correct/view.html') -eq 11 ] &&
        grep -q '\"bodies\": 1024,' '$out/students/correct/view.html' && grep -q 'view.html' '$out/students/correct/grade.txt'"
check "no view.html where no step passed (wrong, broken, hang, cheat)" \
    bash -c "for s in wrong broken hang cheat; do [ ! -e '$out'/students/\$s/view.html ] || exit 1; done"
check "index.html without pseudonyms links correct's run, and links nothing else" \
    bash -c "[ \"\$(grep -oE 'href=\"[^\"]*\"' '$page')\" = 'href=\"students/correct/view.html\"' ] && ! grep -qiE 'src=|url\\(|@import' '$page'"
CLASS_PSEUDONYMS=1 bash "$here/grading/class/collect.sh" "$out" > /dev/null

# ---- CLASS_TIMEOUT: the whole submission stopped, nothing left running ---------------------------
out2=$work/out-timeout
mkdir -p "$work/subs2" && cp -r "$subs/correct" "$work/subs2/slow"
CLASS_STEPS="00 01" CLASS_TIMEOUT=3 bash "$here/grading/class/grade-one.sh" "$work/subs2/slow" "$out2" > "$work/timeout.log" 2>&1
expect_timeout=$(python3 -c "import csv,sys; print(' '.join(r['verdict'] for r in csv.DictReader(open(sys.argv[1]))))" "$out2/students/slow/rows.csv" 2> /dev/null)
check "CLASS_TIMEOUT=3: both steps ERROR (got: $expect_timeout), with the reason" \
    bash -c "[ '$expect_timeout' = 'ERROR ERROR' ] && grep -q CLASS_TIMEOUT '$out2/students/slow/rows.csv'"
sleep 1
check "CLASS_TIMEOUT: no process of that submission is left running" \
    bash -c "! ps -eo args | grep -v grep | grep -qF '$out2'"
# The cheat once more, its copy kept: its forgeries are nowhere, not even in its own copy (its worker ran in
# the judge's sandbox, where the whole file system is read-only and /tmp its own).
CLASS_STEPS="00 01" CLASS_KEEP=1 bash "$here/grading/class/grade-one.sh" "$subs/cheat" "$out2" > "$work/cheat-kept.log" 2>&1
check "the cheat, its copy kept: its forged files are nowhere, not even in its own copy" \
    bash -c "[ -z \"\$(find '$out2' '$subs' '$here' -name forged-by-cheat -print 2> /dev/null | head -n 1)\" ]"
check "the cheat, its copy kept: still FAIL, whatever it forged" \
    bash -c "grep -q '^cheat,00,FAIL,' '$out2/students/cheat/rows.csv'"
check "grade-one.sh: an id that is no id is refused with exit 2" \
    bash -c "bash '$here/grading/class/grade-one.sh' '$subs/bad name' '$out2' 2> /dev/null; [ \$? -eq 2 ]"

# ---- the page in a real browser -----------------------------------------------------------------
bash "$here/common/deps.sh" chromium > "$work/apt.log" 2>&1 # installed as Check is, where it can be
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
    echo "SKIP index.html in a browser: chromium is not installed and could not be (not root, or apt-get failed: $work/apt.log)"
else
    flags=(--headless --no-sandbox --disable-gpu --user-data-dir="$work/chromium-profile")
    timeout 120 "$browser" "${flags[@]}" --dump-dom "file://$page" > "$work/dom.html" 2> "$work/chromium.log"
    check "chromium renders index.html: 5 student rows and 2 step rows in its DOM" \
        bash -c "[ \$(grep -o 'class=\"student\"' '$work/dom.html' | wc -l) -eq 5 ] && [ \$(grep -o 'class=\"step\"' '$work/dom.html' | wc -l) -eq 2 ] && grep -q '<svg' '$work/dom.html'"
    timeout 120 "$browser" "${flags[@]}" --window-size=1000,800 --screenshot="$work/index.png" "file://$page" >> "$work/chromium.log" 2>&1
    check "chromium's screenshot of index.html is a PNG with something drawn on it (not one colour)" python3 - "$work/index.png" << 'EOF'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
if data[:8] != b"\x89PNG\r\n\x1a\n":
    sys.exit(1)
at, idat, width = 8, b"", 0
while at < len(data):
    n, kind = struct.unpack(">I4s", data[at:at + 8])
    if kind == b"IHDR":
        width = struct.unpack(">I", data[at + 8:at + 12])[0]
    if kind == b"IDAT":
        idat += data[at + 8:at + 8 + n]
    at += 12 + n
raw = zlib.decompress(idat)
# Distinct byte values among the pixel rows (filter bytes included): one colour gives very few.
sys.exit(not (width > 0 and len(set(raw)) > 16))
EOF
fi

echo "test-class: $fails failed"
[ $fails -eq 0 ]
