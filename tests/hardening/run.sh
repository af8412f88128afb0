#!/usr/bin/env bash
# tests/hardening/run.sh: every bad input and physical edge case the lab is hardened against, run
# against the built programs, with what actually happened written down as a table.
#
#   tests/hardening/run.sh [--bin DIR] [--craft PROG] [--timeout S] [--steps-only] OUT
#
# DIR holds the step binaries (default build/bin), PROG the snapshot crafter (tests/hardening/craft.c,
# default DIR/../tools/hardening-craft). Each case runs in a fresh folder OUT/run/ID. A bad input must
# give exit status 2, exactly one line on stderr starting with the program's name, nothing on stdout,
# and leave every file as it was (no partial output, no temporary); a physical edge case must exit 0
# with a valid, finite output snapshot; a signal case (a program stopped in the middle of writing
# --output, then sent a signal) must die of that signal, leaving no temporary and every file as it was.
# Writes OUT/table.md (the table of tests/hardening/README.md) and
# OUT/cases.tsv; prints one line per case; exits 1 if any case did something else, 2 on bad usage.
# GPU cases SKIP where no GPU is; --steps-only SKIPs the scripts' and the grader's cases (make
# sanitize: the steps are what it built with the sanitizers).
set -u -o pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
me=hardening/run.sh
usage() { echo "$me: usage: tests/hardening/run.sh [--bin DIR] [--craft PROG] [--timeout S] [--steps-only] OUT" >&2; exit 2; }
bin=$here/build/bin craft='' limit=300 steps_only=0
while [ $# -gt 0 ]; do
    case $1 in
    --bin) [ $# -ge 2 ] || usage; bin=$2; shift 2 ;;
    --craft) [ $# -ge 2 ] || usage; craft=$2; shift 2 ;;
    --timeout) [ $# -ge 2 ] && [[ $2 =~ ^[1-9][0-9]*$ ]] || usage; limit=$2; shift 2 ;;
    --steps-only) steps_only=1; shift ;;
    -*) echo "$me: unknown option $1 (see the top of tests/hardening/run.sh)" >&2; exit 2 ;;
    *) break ;;
    esac
done
[ $# -eq 1 ] || usage
[ -d "$bin" ] || { echo "$me: $bin: no such folder (build the steps first: make cpu)" >&2; exit 2; }
bin=$(cd "$bin" && pwd)
craft=${craft:-$bin/../tools/hardening-craft}
[ -x "$craft" ] || { echo "$me: $craft: not built (make hardening-tools)" >&2; exit 2; }
craft=$(cd "$(dirname "$craft")" && pwd)/$(basename "$craft")
out=$1
mkdir -p "$out" || { echo "$me: cannot make $out" >&2; exit 2; }
out=$(cd "$out" && pwd)
rm -rf "$out/run" "$out/table.md" "$out/cases.tsv"

# The programs: every step of steps.list that is built here.
cpu=() gpu=()
while read -r id folder lang _; do
    [ -x "$bin/$folder" ] || continue
    if [ "$lang" = cu ]; then gpu+=("$folder"); else cpu+=("$folder"); fi
done < <(. "$here/common/steps.sh" && registry_ids id folder lang)
[ ${#cpu[@]} -gt 0 ] || { echo "$me: no step binary in $bin (make cpu)" >&2; exit 2; }
# Steps not written yet (a handout's stubs: grading/todo.awk) stop with their TODO line when they compute:
# they take the bad-input and signal cases (no force computed), and the edge cases SKIP without one.
declare -A todo=()
while read -r id folder lang _; do
    awk -f "$here/grading/todo.awk" "$here/$folder/nbody.$lang" > /dev/null 2>&1 && todo[$folder]=1
done < <(. "$here/common/steps.sh" && registry_ids id folder lang)
have_gpu=0
nvidia-smi -L 2> /dev/null | grep -q '^GPU' && have_gpu=1

fails=0 count=0
printf 'id\twhat\tcommand\texpected\toutcome\texit\tmessage\tsteps\n' > "$out/cases.tsv"

# Put the inputs a case names into its folder: @KIND.nbs (crafted), @foreign.csv, @folder, @plain.
prepare() {
    local a
    for a in "$@"; do
        case $a in
        @long-missing.nbs) ;; # a path, no file (arg_of)
        @out.nbs) { "$craft" good out.nbs > /dev/null && chmod 640 out.nbs; } || return 1 ;; # an earlier output
        @*.nbs) "$craft" "$(basename "$a" .nbs | tr -d @)" "${a#@}" > /dev/null || return 1 ;;
        @*.tipsy) "$craft" "tipsy-$(basename "$a" .tipsy | tr -d @)" "${a#@}" > /dev/null || return 1 ;;
        @*.h5) "$craft" "hdf5-$(basename "$a" .h5 | tr -d @)" "${a#@}" > /dev/null || return 1 ;;
        @full.csv) "$craft" --results full.csv 8192 > /dev/null || return 1 ;; # 8 KiB: ulimit -f 8 is reached
        @foreign.csv) printf 'not,the,lab,header\n1,2,3,4\n' > foreign.csv ;;
        @folder) mkdir -p folder ;;
        @plain) echo "a plain file" > plain ;;
        @fifo) mkfifo fifo ;;
        esac
    done
}

# What an argument of a case becomes: @NAME is NAME, but for @long-missing.nbs, a path of 3000 characters
# whose first folder does not exist (it would fill the table).
long_missing=$(printf 'no-such-folder/%.0s' {1..200})missing.nbs
arg_of() {
    case $1 in
    @long-missing.nbs) printf '%s' "$long_missing" ;;
    *) printf '%s' "${1#@}" ;;
    esac
}

# The checks some cases add after the run (post=NAME before case_): they set why if it failed.
mode_kept() { # an output written over out.nbs (made with mode 640 by @out.nbs) keeps its mode
    local mode
    mode=$(stat -c %a out.nbs 2> /dev/null)
    [ "$mode" = 640 ] || why="out.nbs has mode ${mode:-?} after the run, not the 640 it had"
}
reason_kept() { # a line about a very long path still ends with its reason
    [[ $line == *": No such file or directory" ]] || why="the line lost its reason: ...${line: -60}"
}

# A signal case: start the program, stop it the moment the temporary of out.nbs appears (it is then in
# the middle of writing it), send it SIG, let it go on. Sets rc; sets why if the write was not caught.
interrupt_write() { # PROG ARGS...
    # --default-signal: a signal ignored where the tests started (nohup ignores SIGHUP) would stay ignored in the step
    env --default-signal="$sig" "${case_env[@]}" "$@" > stdout.txt 2> stderr.txt &
    local pid=$! caught=0 state=
    local deadline=$((SECONDS + limit))
    while kill -0 "$pid" 2> /dev/null && [ $SECONDS -lt $deadline ]; do
        compgen -G 'out.nbs.tmp.*' > /dev/null || continue
        kill -STOP "$pid"
        while [ "$state" != T ] && [ $SECONDS -lt $deadline ] && read -r _ _ state _ < "/proc/$pid/stat"; do :; done
        compgen -G 'out.nbs.tmp.*' > /dev/null && caught=1
        kill -"$sig" "$pid"
        kill -CONT "$pid"
        break
    done
    while kill -0 "$pid" 2> /dev/null && [ $SECONDS -lt $deadline ]; do sleep 0.1; done
    kill -KILL "$pid" 2> /dev/null
    wait "$pid"
    rc=$?
    [ $caught -eq 1 ] || why="the write of out.nbs was not caught in the middle (exit $rc)"
}

# Every path, and every file's size and time: what a case must leave as it was (its own stdout.txt and
# stderr.txt aside). A folder's time is not compared: a temporary made and removed in it changes it.
fingerprint() {
    find . -mindepth 1 \( -type f -printf '%p %s %T@\n' \) -o -printf '%p\n' 2> /dev/null |
        grep -vE '^\./(stdout|stderr)\.txt ' | sort
}

# One program, one case; sets rc, line (stderr's first line) and why (empty if it behaved).
attempt() { # KIND PROG ARGS...   KIND: bad (exit 2) or edge (exit 0, finite output) or mismatch (exit 1)
    local kind=$1 prog=$2
    shift 2
    local dir=$out/run/$id/$prog
    mkdir -p "$dir" && cd "$dir" || { why="cannot make $dir"; return; }
    prepare "$@" || { why="could not craft its input"; cd "$out" || exit 2; return; }
    local args=() a
    for a in "$@"; do args+=("$(arg_of "$a")"); done
    local before
    before=$(fingerprint)
    local path=$bin/$prog
    case $prog in /*) path=$prog ;; build/tools/*) path=$bin/../tools/${prog#build/tools/} ;; */*) path=$here/$prog ;; esac
    local runner=()
    case $path in *.sh) runner=(bash) ;; esac # as the Makefiles run them
    # wrap: a shell command before the program (a limit: ulimit -f 8), in the shell that then becomes it.
    [ -z "$wrap" ] || runner=(bash -c "$wrap && exec \"\$@\"" "$wrap" "${runner[@]}")
    why=
    if [ "$kind" = signal ]; then
        interrupt_write "$path" "${args[@]}" 2> /dev/null # not bash's own line about the signal
    else
        env "${case_env[@]}" timeout -k 5 "$limit" "${runner[@]}" "$path" "${args[@]}" > stdout.txt 2> stderr.txt
        rc=$?
    fi
    line=$(head -n 1 stderr.txt)
    local lines
    lines=$(wc -l < stderr.txt)
    local named="^${prog##*/}: ." # a step's line starts with its name; a script's with a name of its own
    case $prog in */*) named='^[A-Za-z0-9_./-]+: .' ;; esac
    if [ -n "$why" ]; then
        :
    elif [ "$kind" = signal ]; then
        local after left
        after=$(fingerprint)
        left=$(compgen -G '*.tmp.*' | head -n 1)
        if [ $rc -ne $((128 + $(kill -l "$sig"))) ]; then
            why="exit $rc, not $((128 + $(kill -l "$sig"))) (killed by SIG$sig)"
        elif [ -n "$left" ]; then
            why="the temporary $left was left behind"
        elif [ "$after" != "$before" ]; then
            why="files changed: $(diff <(echo "$before") <(echo "$after") | grep -m 1 '^>' | cut -d' ' -f2)"
        else
            line="stopped while writing out.nbs, sent SIG$sig: exit $rc, no temporary left, out.nbs as it was"
        fi
    elif [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
        why="still running after ${limit}s"
    elif [ $rc -gt 128 ]; then
        why="killed by signal $((rc - 128))"
    elif [ "$kind" = bad ]; then
        local after
        after=$(fingerprint)
        if [ $rc -ne 2 ]; then
            why="exit $rc, not 2"
        elif [ "$lines" -ne 1 ] || [ -n "$(tail -c 1 stderr.txt)" ]; then
            why="$lines lines on stderr, not one"
        elif ! [[ $line =~ $named ]]; then
            why="the line does not start with the program's name"
        elif [ -s stdout.txt ]; then
            why="printed on stdout: $(head -c 80 stdout.txt)"
        elif [ "$after" != "$before" ]; then
            why="files changed: $(diff <(echo "$before") <(echo "$after") | grep -m 1 '^>' | cut -d' ' -f2)"
        fi
    elif [ "$kind" = edge ]; then
        if [ $rc -ne 0 ]; then
            why="exit $rc: $line"
        elif ! "$craft" --check out.nbs > check.txt 2>&1; then
            why="output: $(head -n 1 check.txt)"
        else
            line="validation PASS; $(sed 's/^out.nbs: //' check.txt)"
        fi
    elif [ "$kind" = mismatch ]; then
        if [ $rc -ne 1 ]; then
            why="exit $rc, not 1"
        elif [ -e out.nbs ]; then
            why="wrote out.nbs after a mismatch"
        else
            line="$(grep -m 1 worst stderr.txt | sed 's/^ *//')"
        fi
    fi
    [ -n "$why" ] || [ -z "$post" ] || "$post"
    cd "$out" || exit 2
}

# case ID KIND WHERE "what was tried" ARGS...
#   KIND: bad, edge, mismatch (see attempt), or signal (SIG, a signal's name, set before case_).
#   Optional, set before case_ for that case alone: post=FUNCTION (a check after the run, in its folder);
#   wrap='ulimit -f 8' (a shell command run before the program, shown in the table).
#   WHERE: cpu, gpu, steps (CPU steps, and GPU steps where a GPU is), all (every step built), nogpu (GPU steps with CUDA_VISIBLE_DEVICES empty: no GPU to
#   see, on any machine), or a script's path.
#   Bad-input runs also get -q -o out.nbs --csv out.csv (before ARGS, which may override them), so a
#   partial output would show; edge and signal runs get -q -o out.nbs.
case_() {
    id=$1
    local kind=$2 where=$3 what=$4
    shift 4
    local progs=() skip=
    case_env=()
    case $where in
    cpu) progs=("${cpu[@]}") ;;
    gpu) progs=("${gpu[@]}")
        [ ${#gpu[@]} -gt 0 ] || skip="no GPU step built (nvcc missing)"
        [ -n "$skip" ] || [ $have_gpu -eq 1 ] || skip="no GPU here" ;;
    all) progs=("${cpu[@]}" "${gpu[@]}") ;;
    steps) progs=("${cpu[@]}")
        [ $have_gpu -eq 0 ] || progs+=("${gpu[@]}") ;;
    nogpu) progs=("${gpu[@]}") case_env=(CUDA_VISIBLE_DEVICES=) # no GPU here, or none visible
        [ ${#gpu[@]} -gt 0 ] || skip="no GPU step built (nvcc missing)" ;;
    grader) progs=("$bin/../grading/grade")
        [ -x "${progs[0]}" ] || skip="the grader is not built (make grade builds it)" ;;
    *) progs=("$where")
        # A script of the lab's run by python3: make test-hardening installs it as it does Check
        # (common/deps.sh python3); where it could not, the case says why instead of exit 127.
        if [[ $where == *.py ]] && ! command -v python3 > /dev/null 2>&1; then
            skip="python3 is not here (bash common/deps.sh python3 installs it)"
        fi ;;
    esac
    if [ -z "$skip" ] && [[ $kind == edge || $kind == mismatch ]] && [[ $where != */* && $where != grader ]]; then
        local written=() p unwritten=()
        for p in "${progs[@]}"; do
            if [ -n "${todo[$p]:-}" ]; then unwritten+=("$p"); else written+=("$p"); fi
        done
        progs=("${written[@]}")
        [ ${#progs[@]} -gt 0 ] || skip="not written yet: ${unwritten[*]} (TODO)"
    fi
    if [ $steps_only -eq 1 ] && [[ $where == */* || $where == grader ]]; then
        skip="--steps-only"
    fi
    # A machine that has the memory would run the 2^30-body cases for hours instead of refusing them.
    if [ "$*" = "-n $big" ] && [ "$(awk '/^MemAvailable:/ { print int($2 / 1048576) }' /proc/meminfo 2> /dev/null || echo 0)" -ge 224 ]; then
        skip="224 GiB or more available here: it would run"
    fi
    local args=("$@")
    case $kind in
    bad) [[ $where == */* || $where == grader ]] || args=(-q -o out.nbs --csv out.csv "$@") ;;
    edge | mismatch) args=(-q -o out.nbs "$@") ;;
    signal) args=(-q -o out.nbs "$@") ;;
    esac
    local shown='' a outcome exitcol message ran=()
    for a in "$@"; do
        [ -n "$a" ] || a="''"
        shown="$shown${shown:+ }$a"
    done
    count=$((count + 1))
    if [ -n "$skip" ]; then
        outcome="SKIP ($skip)" exitcol='' message=''
    else
        outcome=ok exitcol='' message=''
        local p
        for p in "${progs[@]}"; do
            attempt "$kind" "$p" "${args[@]}"
            case $p in */*) ;; *) id_=${p#step}; ran+=("${id_%%_*}") ;; esac
            if [ -z "$exitcol" ]; then exitcol=$rc message=$line; fi
            if [ -n "$why" ]; then
                outcome="FAIL ($p: $why)"
                message=$line exitcol=$rc
                fails=$((fails + 1))
                break
            fi
            [ "$rc" = "$exitcol" ] || exitcol="$exitcol/$rc"
        done
    fi
    local expected
    case $kind in
    bad) expected="2, one line" ;;
    edge) expected="0, finite" ;;
    mismatch) expected="1, FAIL" ;;
    signal) expected="SIG$sig, nothing left" ;;
    esac
    local who
    case $where in */*) who=${where} ;; grader) who=grading/grade ;; *) who="<step>" ;; esac
    [ -z "$wrap" ] || who="$wrap; $who"
    # One screen line a case: a message longer than 150 characters (W16's 3000-character path) is shortened
    # on the terminal as in the table; cases.tsv keeps it whole.
    local said=$message
    [ ${#said} -le 150 ] || said="${said:0:100} ... ${said: -45}"
    printf '%-4s %-6s %-42s %s\n' "$id" "${outcome%% *}" "$what" "${outcome#ok}${said:+ | $said}"
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$id" "$what" "$who $shown" "$expected" "$outcome" "$exitcol" \
        "$message" "${ran[*]}" >> "$out/cases.tsv"
}

big=1073741824 # 2^30, the most bodies the lab takes
post='' wrap='' sig=TERM # the defaults of what a case may set before case_
# ---- numbers on the command line --------------------------------------------------------------
case_ N0 bad all "zero bodies" -n 0
case_ N1 bad all "negative bodies" -n -5
case_ N2 bad all "bodies not a number" -n abc
case_ N3 bad all "bodies in exponent form" -n 1e3
case_ N4 bad all "bodies empty" -n ''
case_ N5 bad all "bodies beyond 2^64" -n 99999999999999999999999
case_ N6 bad all "zero systems" -S 0
case_ N7 bad all "S x N beyond the lab's 2^30 bodies" -n $big -S 2
case_ N8 bad cpu "S x N beyond host memory" -n $big
case_ N9 bad all "negative steps" --steps -1
case_ N10 bad all "zero repeats" --repeat 0
case_ N11 bad all "seed beyond 2^64" --seed 18446744073709551616
case_ D0 bad all "dt NaN" --dt nan
case_ D1 bad all "dt infinite" --dt inf
case_ D2 bad all "dt negative" --dt -0.001
case_ D3 bad all "dt zero" --dt 0
case_ D4 bad all "dt overflowing a double" --dt 1e999
case_ D5 bad all "dt that is 0 in float32" --dt 1e-300 -n 16
case_ D6 bad all "dt with trailing text" --dt 0.01s
case_ E0 bad all "eps NaN" --eps nan
case_ E1 bad all "eps negative" --eps -0.1
case_ E2 bad all "eps infinite" --eps inf
case_ E3 bad all "eps whose square is 0 in float32" --eps 1e-30 -n 16
# ---- options --------------------------------------------------------------------------------
case_ O0 bad all "unknown long option" --frobnicate
case_ O1 bad all "unknown short option" -x
case_ O2 bad all "option without its value" -n
case_ O3 bad all "stray argument" foo
case_ O4 bad all "unknown model" --model cube
case_ O5 bad all "unknown validation mode" --validate maybe
case_ O6 bad all "tag that would break the CSV" --tag 'a,b'
case_ O7 bad all "--input with --bodies" -i @good.nbs -n 5
case_ O8 bad all "--snapshot-every without --snapshot-dir" --snapshot-every 2
case_ O9 bad all "collision of 1 body" --model collision -n 1
case_ O10 bad cpu "GPU options on a CPU step" --gpus 2
case_ O11 bad all "block beyond 1024" --block 2000
case_ O12 bad all "--csv with --steps 0" -n 16 --steps 0
case_ O13 bad cpu "--theta on a direct-sum step" -n 16 --theta 0.5
case_ O14 bad cpu "--deterministic on a step without it" -n 16 --deterministic
case_ O16 bad cpu "--levels on a step with one dt" -n 16 --levels 4
case_ O15 bad all "a flag given a value" --diagnostics=1
# ---- snapshot files -------------------------------------------------------------------------
case_ F0 bad steps "input file missing" -i missing.nbs
case_ F1 bad steps "input is a folder" -i @folder
case_ F2 bad steps "input empty" -i @empty.nbs
case_ F3 bad steps "input not a snapshot" -i @plain
case_ F4 bad steps "input truncated in its header" -i @header.nbs
case_ F5 bad steps "input truncated in its data" -i @truncated.nbs
case_ F6 bad steps "input with trailing bytes" -i @trailing.nbs
case_ F7 bad steps "input with a wrong magic" -i @magic.nbs
case_ F8 bad steps "input of another version" -i @version.nbs
case_ F9 bad steps "input of precision 3" -i @precision.nbs
case_ F10 bad steps "input with 0 systems" -i @zero.nbs
case_ F11 bad steps "input claiming 2^40 x 2^40 bodies" -i @huge.nbs
case_ F12 bad steps "input claiming 2^30 bodies in 348 bytes" -i @hugefile.nbs
case_ F13 bad steps "input corrupted (CRC)" -i @crc.nbs
case_ F14 bad steps "input with a NaN position" -i @nan.nbs
case_ F15 bad steps "input with an infinite velocity" -i @inf.nbs
case_ F16 bad steps "input (float64) beyond float32" -i @big64.nbs
case_ F17 bad steps "input with a negative mass" -i @negmass.nbs
case_ F18 bad steps "input with a NaN dt in its header" -i @hdrnan.nbs
case_ F19 bad steps "input is a FIFO" -i @fifo
# ---- tipsy and HDF5 inputs (common/formats.h: told apart by content; craft.c's tipsy-* and hdf5-* kinds)
case_ T0 edge steps "tipsy file" -i @good.tipsy --steps 5
case_ T1 edge steps "tipsy file in the other byte order" -i @swapped.tipsy --steps 5
case_ T2 bad steps "tipsy file truncated" -i @truncated.tipsy
case_ T3 bad steps "tipsy counts that disagree" -i @counts.tipsy
case_ T4 bad steps "tipsy file shorter than its counts" -i @size.tipsy
case_ T5 bad steps "tipsy file with a NaN position" -i @nan.tipsy
case_ T6 bad steps "tipsy file with a gas particle" -i @gas.tipsy
case_ T7 bad steps "tipsy file with a star particle" -i @star.tipsy
case_ H0 edge steps "HDF5 snapshot" -i @good.h5 --steps 5
case_ H1 edge steps "HDF5 snapshot in float64" -i @float64.h5 --steps 5
case_ H2 edge steps "HDF5 snapshot with MassTable, no Masses" -i @masstable.h5 --steps 5
case_ H3 bad steps "HDF5 snapshot truncated" -i @truncated.h5
case_ H4 bad steps "HDF5 counts beyond its datasets" -i @counts.h5
case_ H5 bad steps "HDF5 NumPart_Total not NumPart_ThisFile" -i @total.h5
case_ H6 bad steps "HDF5 snapshot with a NaN coordinate" -i @nan.h5
case_ H7 bad steps "HDF5 snapshot with PartType0 (gas)" -i @gas.h5
case_ H8 bad steps "HDF5 snapshot, one of 2 files" -i @files.h5
case_ H9 bad steps "HDF5 file without /Header" -i @noheader.h5
case_ X0 edge steps "output as tipsy" -n 16 --steps 2 --output-format tipsy
case_ X1 edge steps "output as HDF5" -n 16 --steps 2 --output-format hdf5
case_ X2 bad steps "output format unknown" -n 16 --steps 1 --output-format gadget2
case_ X3 bad steps "output as tipsy of 2 systems" -n 16 -S 2 --steps 1 --output-format tipsy
case_ X4 bad steps "output as HDF5 of 2 systems" -n 16 -S 2 --steps 1 --output-format hdf5
case_ X5 bad build/tools/nbconvert "converter without --to" @good.nbs out.tipsy
case_ X6 bad build/tools/nbconvert "converter to an unknown format" --to gadget @good.nbs out.tipsy
case_ X7 bad build/tools/nbconvert "converter: 2 systems to tipsy" --to tipsy @good.nbs out.tipsy
case_ X8 bad build/tools/nbconvert "converter: --system beyond the file's" --to tipsy --system 2 @good.nbs out.tipsy
case_ X9 bad build/tools/nbconvert "converter from a truncated tipsy file" --to nbs @truncated.tipsy out.nbs
case_ X10 bad build/tools/nbconvert "converter from an HDF5 file with gas" --to nbs @gas.h5 out.nbs
# ---- outputs --------------------------------------------------------------------------------
case_ W0 bad steps "output in a missing folder" -n 16 --steps 1 -o nodir/out.nbs
case_ W1 bad steps "output onto a folder" -n 16 --steps 1 -o @folder
case_ W2 bad steps "CSV in a missing folder" -n 16 --steps 1 --csv nodir/out.csv
case_ W3 bad steps "CSV with another header" -n 16 --steps 1 --csv @foreign.csv
case_ W4 bad steps "snapshot folder missing" -n 16 --steps 2 --snapshot-every 1 --snapshot-dir nodir
case_ W5 bad steps "snapshot folder is a file" -n 16 --steps 2 --snapshot-every 1 --snapshot-dir @plain
case_ W6 bad steps "CSV is a FIFO" -n 16 --steps 1 --csv @fifo
case_ W7 bad steps "output is a FIFO" -n 16 --steps 1 -o @fifo
case_ W8 bad steps "--validate-only with snapshots" -n 16 --validate-only --snapshot-every 1 --snapshot-dir @folder
case_ W9 bad steps "--ref-cache with an empty name" -n 16 --ref-cache ''
case_ W10 bad steps "an output name too long" -n 16 --steps 1 -o $(printf 'o%.0s' {1..250}).nbs
post=mode_kept case_ W11 edge steps "output over a file of mode 640: mode kept" -n 16 --steps 1 -o @out.nbs
# 2^21 bodies: --output takes about 0.1 s to write (longer under the sanitizers), time to stop it in the middle.
sig=TERM case_ W12 signal cpu "SIGTERM while --output is written over a file" -n 2097152 --steps 0 --validate off -o @out.nbs
sig=HUP case_ W13 signal cpu "SIGHUP while --output is written (a new file)" -n 2097152 --steps 0 --validate off
# The CPU steps only: the limit would bind the CUDA and MPI runtimes' own files too (the harness is the same).
wrap='ulimit -f 8' case_ W14 bad cpu "the CSV hits the file-size limit" -n 16 --steps 1 --csv @full.csv
wrap='ulimit -f 8' case_ W15 bad cpu "the same, over an earlier --output" -n 16 --steps 1 --csv @full.csv -o @out.nbs
post=reason_kept case_ W16 bad steps "a missing input path of 3000 characters" -i @long-missing.nbs
# ---- GPUs -----------------------------------------------------------------------------------
case_ G0 bad nogpu "a GPU step, no GPU visible" -n 1000
case_ G1 bad gpu "more GPUs than exist" -n 1000 --gpus 64
case_ G2 bad gpu "S x N beyond device memory" -n $big
# ---- physics at the edges -------------------------------------------------------------------
case_ P0 edge steps "N = 1 (3 systems)" -n 1 -S 3 --steps 5
case_ P1 edge steps "N = 2, one body per sphere" --model collision -n 2 -S 2 --steps 5
case_ P2 edge steps "two coincident bodies, eps 0.01" -i @coincident.nbs --steps 20
case_ P3 edge steps "all bodies at one place, eps 0.01" -i @allcoincident.nbs --steps 20
case_ P4 edge steps "all the mass in one body" -i @onemass.nbs --steps 20
case_ P5 edge steps "eps = 0, no two bodies at one place" --eps 0 -n 64 -S 2 --steps 5
case_ P6 bad steps "eps = 0 with two coincident bodies" -i @coincident.nbs --eps 0
case_ P7 edge steps "eps = 1e6 (forces ~0)" --eps 1e6 -n 64 --steps 5
case_ P8 edge steps "dt = 1e6 (bodies fly apart)" --dt 1e6 -n 64 --steps 20
case_ P9 bad steps "bodies 1e18 apart" -i @far.nbs --steps 1
# float32's range: a correct step is never blamed (exit 1); the input is refused (2), or it passes (0)
case_ R1 bad steps "eps = 0, 16 bodies of mass 1000" -i @heavy.nbs --eps 0
case_ R2 bad steps "eps = 1e-12, 16 bodies of mass 1000" -i @heavy.nbs --eps 1e-12
case_ R3 edge steps "eps = 0, two bodies 1e-30 apart" -i @close.nbs --eps 0 --steps 2
case_ R4 bad steps "masses of 1e-44" -i @tinymass.nbs
case_ R5 bad steps "masses of 3e38" -i @hugemass.nbs
case_ P10 edge gpu "N = 4099, S = 3, on the GPU" -n 4099 -S 3 --steps 2
case_ P11 edge gpu "all the mass in one body, on the GPU" -i @onemass.nbs --steps 20
# ---- scripts --------------------------------------------------------------------------------
case_ S0 bad grading/handout.sh "handout.sh without a folder"
case_ S1 bad grading/handout.sh "handout.sh --strip of a missing file" --strip missing.c
case_ S2 bad tests/compute-sanitizer.sh "compute-sanitizer.sh without a folder"
case_ S3 bad tests/compute-sanitizer.sh "compute-sanitizer.sh, a step that is not one" @folder step99
case_ S4 bad tests/hardening/run.sh "hardening/run.sh with a bad --timeout" --timeout x y
case_ S5 bad grader "the grader, an unknown option" --bogus
case_ S6 bad grader "the grader, zero bodies" --bodies 0
case_ S7 bad grader "the grader, --plot of a missing CSV" --plot missing.csv --out @folder
case_ S16 bad grader "the grader, --gpu-info of a missing file" --gpu-info missing.csv --count-gpus --out @folder
case_ S8 bad report/sweeps/gpu-run.sh "gpu-run.sh without a folder"
case_ S9 bad tests/run.sh "tests/run.sh without a folder"
case_ S10 bad report/sweeps/measure.sh "measure.sh with an unknown option" --bogus
case_ S11 bad report/explore/run-all.sh "explore/run-all.sh without a folder"
case_ S12 bad report/explore/variants.sh "explore/variants.sh with TOP not a number" @folder many
case_ S13 bad report/explore/sass-model.py "explore/sass-model.py of a missing file" missing.sass
case_ S14 bad report/explore/overheads.sh "explore/overheads.sh without a folder"
case_ S15 bad report/explore/pairs.sh "explore/pairs.sh with two folders" a b

# ---- the table ----------------------------------------------------------------------------------
{
    echo "What every program does with bad input and at the physical edges: $count cases, run by"
    echo "\`make hardening-table\` ($(date -u +%Y-%m-%d), commit ${COMMIT:-$(git -C "$here" rev-parse --short=12 HEAD 2> /dev/null || echo unknown)},"
    echo "$( [ $have_gpu -eq 1 ] && nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1 || echo 'no GPU'); \`make test-hardening\` checks it). Expected: bad input exits 2 with one line on"
    echo "stderr, nothing on stdout and no file touched; an edge case exits 0 with a finite output snapshot; a"
    echo "signal case is stopped while it writes \`-o out.nbs\`, sent the signal and let go on: it must end by that"
    echo "signal, leaving no temporary and every file as it was."
    echo "\`<step>\` is each step the row names (\`all\`: every step of steps.list), \`@FILE\` an input the case makes first (tests/hardening/craft.c)."
    echo
    # One table a kind of case, under its expectation: a row's outcome "ok" is that expectation met.
    awk -F'\t' -v every="$(. "$here/common/steps.sh" && registry_ids id | tr '\n' ' ' | sed 's/ $//')" '
    NR > 1 { kinds[$4]++; if (kinds[$4] == 1) order[++n] = $4; row[$4] = row[$4] sprintf("%s\n", line()) }
    function line(cmd, msg) {
        cmd = $3; gsub(/\|/, "\\|", cmd); msg = $7; gsub(/\|/, "\\|", msg)
        if (length(msg) > 150) msg = substr(msg, 1, 100) " ... " substr(msg, length(msg) - 44)
        return sprintf("| %s | %s | `%s` | %s | %s | %s |", $1, $2, cmd, $8 == every ? "all" : $8,
                       $5 ~ /^FAIL/ ? $5 ", exit " $6 : $5, msg)
    }
    END {
        for (i = 1; i <= n; ++i) {
            printf "\n**Expected: %s** (%d case%s)\n\n", order[i], kinds[order[i]], kinds[order[i]] == 1 ? "" : "s"
            print "| | what was tried | command | on steps | outcome | what it said (the first step'"'"'s line) |"
            print "|---|---|---|---|---|---|"
            printf "%s", row[order[i]]
        }
    }' "$out/cases.tsv"
} > "$out/table.md"
if [ $fails -gt 0 ]; then
    echo "hardening: $fails of $count cases FAILED (table: $out/table.md)"
    exit 1
fi
echo "hardening: all $count cases behaved (table: $out/table.md)"
