#!/usr/bin/env bash
# INSTRUCTORS ONLY: it states the worked answers; grading/handout.sh keeps it out of the handout.
# answers.sh [BUILD]: check the instructors' worked answers (stepNN_*/INSTRUCTORS.md) whose answer is
# code or a build the CPU can make. Each check states the answer the INSTRUCTORS.md gives and fails
# if the lab no longer behaves so. GPU answers are marked there "to check on the device".
set -u -o pipefail
cd "$(dirname "$0")/.." || exit 2
out=${1:-build/answers}
mkdir -p "$out" || exit 2
fails=0
pass() { echo "PASS answers: $*"; }
fail() { echo "FAIL answers: $*"; fails=$((fails + 1)); }

# step00, exercise 1: -O3 -march=native alone does not vectorise the j loop (the sum's order is fixed
# by the C standard); -ffast-math allows the reordering, and the j loop vectorises and still validates.
jline=$(grep -n 'for (size_t j = first' step00_serial/nbody.c | cut -d: -f1)
if [ -z "$jline" ]; then
    fail "step00 exercise 1: the j loop of step00_serial/nbody.c is not where INSTRUCTORS.md says"
else
    for v in o3 fastmath; do
        flags="-O3 -march=native -fopt-info-vec-optimized"
        [ $v = fastmath ] && flags="$flags -ffast-math"
        rm -f "$out/$v/obj/step00_serial/nbody.o"
        make --no-print-directory -s BUILD="$out/$v" BUILD_LABEL=$v STEP_FLAGS="$flags" step00 > "$out/$v.log" 2>&1 ||
            { fail "step00 exercise 1: the $v build failed: $(tail -n 1 "$out/$v.log")"; continue; }
    done
    if grep -q "nbody.c:$jline:.*loop vectorized" "$out/o3.log"; then
        fail "step00 exercise 1: -O3 -march=native vectorised the j loop without -ffast-math (INSTRUCTORS.md says it cannot)"
    elif ! grep -q "nbody.c:$jline:.*loop vectorized" "$out/fastmath.log"; then
        fail "step00 exercise 1: -ffast-math did not vectorise the j loop (line $jline): $(grep -m 1 nbody.c "$out/fastmath.log")"
    elif ! "$out/fastmath/bin/step00_serial" --bodies 1000 --systems 3 --masses random --validate-only > "$out/fastmath.run" 2>&1; then
        fail "step00 exercise 1: the -ffast-math build does not validate: $(tail -n 1 "$out/fastmath.run")"
    else
        pass "step00 exercise 1: the j loop vectorises with -ffast-math only, and that build validates"
    fi
fi

# step01, exercise 2: without -ffast-math the j loop stays scalar (sqrtf must set errno: vsqrtss and a
# call of sqrtf, no packed square root); -fno-math-errno alone vectorises it with the exact vsqrtps and
# vdivps; -ffast-math with vrsqrtps and a Newton step, no vsqrtps and no vdivps. Compiled only (gcc -S).
s01asm() { # FLAGS...: step01's assembly for a 256-bit AVX2 machine
    gcc -std=c11 -fopenmp -Icommon -O3 -march=x86-64-v3 -mprefer-vector-width=256 "$@" -S -o - step01_omp/nbody.c 2> /dev/null
}
count() { grep -cE "^[[:space:]]+$1[[:space:]]" || true; }
if ! a0=$(s01asm) || ! a1=$(s01asm -fno-math-errno) || ! a2=$(s01asm -ffast-math); then
    fail "step01 exercise 2: gcc -S of step01_omp/nbody.c failed"
else
    n0="$(count vsqrtps <<< "$a0") $(count vrsqrtps <<< "$a0") $(grep -c 'call[[:space:]]*sqrtf' <<< "$a0")"
    n1="$(count vsqrtps <<< "$a1") $(count vdivps <<< "$a1")"
    n2="$(count vrsqrtps <<< "$a2") $(count vsqrtps <<< "$a2") $(count vdivps <<< "$a2")"
    read -r p0 r0 c0 <<< "$n0"
    read -r q1 d1 <<< "$n1"
    read -r r2 q2 d2 <<< "$n2"
    if [ "$p0" != 0 ] || [ "$r0" != 0 ] || [ "$c0" = 0 ]; then
        fail "step01 exercise 2: without -ffast-math: $p0 vsqrtps, $r0 vrsqrtps, $c0 calls of sqrtf (INSTRUCTORS.md: 0, 0, at least 1)"
    elif [ "$q1" = 0 ] || [ "$d1" = 0 ]; then
        fail "step01 exercise 2: -fno-math-errno: $q1 vsqrtps, $d1 vdivps (INSTRUCTORS.md: both present)"
    elif [ "$r2" = 0 ] || [ "$q2" != 0 ] || [ "$d2" != 0 ]; then
        fail "step01 exercise 2: -ffast-math: $r2 vrsqrtps, $q2 vsqrtps, $d2 vdivps (INSTRUCTORS.md: some, 0, 0)"
    else
        pass "step01 exercise 2: scalar sqrtf without -ffast-math; vsqrtps and vdivps with -fno-math-errno; vrsqrtps only with -ffast-math"
    fi
fi

# step01, exercise 3 and the vector width: report/explore/omp-intrinsics.c (the worked answer) validates
# on the harness in each of its paths (AVX-512, AVX2, plain C); and gcc's own 512-bit step01 divides
# (vrcp14ps) where its 256-bit one with steps.list's -mrecip does not: why steps.list keeps
# -mprefer-vector-width=256.
ex=report/explore/omp-intrinsics.c
if [ ! -f "$ex" ]; then
    echo "SKIP answers: step01 exercise 3: no $ex (the handout leaves it out)"
elif ! make --no-print-directory -s BUILD="$out/s01" "$out/s01/bin/step01_omp" > "$out/s01.log" 2>&1; then
    fail "step01 exercise 3: building step01 failed: $(tail -n 1 "$out/s01.log")"
else
    w512=$(gcc -std=c11 -fopenmp -Icommon -O3 -march=x86-64-v4 -mprefer-vector-width=512 -ffast-math -S -o - step01_omp/nbody.c 2> /dev/null | count vrcp14ps)
    w256=$(gcc -std=c11 -fopenmp -Icommon -O3 -march=x86-64-v4 -mprefer-vector-width=256 -ffast-math '-mrecip=!vec-div,!vec-sqrt' -S -o - step01_omp/nbody.c 2> /dev/null | count 'vrcp(14)?ps')
    bad=""
    for march in native x86-64-v3 x86-64; do
        exe=$out/s01/intrinsics-$march
        if ! gcc -std=c11 -Wall -Wextra -fopenmp -Icommon -O3 -march=$march -ffast-math -c "$ex" -o "$exe.o" 2>> "$out/s01.log" ||
            ! gcc -fopenmp -o "$exe-worker" "$exe.o" "$out/s01/obj/step01_omp/worker.o" "$out/s01/obj/common/host.o" "$out/s01/lib/libnbody.a" -lz -lm -lpthread 2>> "$out/s01.log" ||
            ! cp "$out/s01/bin/step01_omp" "$exe"; then # step01's judge, which runs the worker beside it
            bad="$bad build($march)"
            continue
        fi
        for v in "-n 1 -S 3" "-n 31 -S 3 --masses random" "-n 4099 -S 3 --masses random"; do
            # shellcheck disable=SC2086
            "$exe" -q --validate-only $v > /dev/null 2>&1 || bad="$bad $march($v)"
        done
    done
    if [ -n "$bad" ]; then
        fail "step01 exercise 3: the intrinsics answer failed:$bad"
    elif [ "${w512:-0}" = 0 ] || [ "${w256:-1}" != 0 ]; then
        fail "step01 exercise 3: vrcp14ps in step01's 512-bit build: ${w512:-none}, rcp in the 256-bit build: ${w256:-none} (INSTRUCTORS.md: some, 0)"
    else
        pass "step01 exercise 3: the intrinsics answer validates (AVX-512, AVX2 and plain paths); gcc's 512-bit step01 divides ($w512 vrcp14ps), its 256-bit one does not"
    fi
fi

# step04, exercise 2: without the `#pragma unroll` over u, nvcc still unrolls the constant-trip loops
# and the arrays stay in registers (0 bytes of stack, 56 registers); with `#pragma unroll 1` the six
# arrays of 4 floats go to the stack: 96 bytes, local memory. Compiled only (ptxas -v), no GPU needed.
if ! command -v "${NVCC:-nvcc}" > /dev/null 2>&1; then
    echo "SKIP answers: step04 exercise 2: no nvcc here"
else
    frame() { # SOURCE: "<stack bytes> <registers>" of the forces kernel
        "${NVCC:-nvcc}" -std=c++17 -arch=sm_${CUDA_ARCH:-90} -Icommon -O3 -Xptxas -v -c "$1" -o "$out/x.o" 2>&1 |
            grep -A2 'Function properties for _Z6forces' |
            awk '/stack frame/ { s = $1 } /Used [0-9]+ registers/ { for (k = 1; k <= NF; ++k) if ($k == "Used") r = $(k + 1) } END { print s + 0, r + 0 }'
    }
    edit() { # PRAGMA: step04 with the pragma above each loop over u replaced by PRAGMA (empty: removed)
        awk -v p="$1" '/^#pragma unroll$/ { getline nxt; if (nxt ~ /for \(int u = 0/) { if (p != "") print p; print nxt; next } print; print nxt; next } { print }' step04_unroll/nbody.cu
    }
    edit "" > "$out/nopragma.cu" && edit "#pragma unroll 1" > "$out/unroll1.cu"
    read -r s0 r0 <<< "$(frame step04_unroll/nbody.cu)"
    read -r s1 r1 <<< "$(frame "$out/nopragma.cu")"
    read -r s2 r2 <<< "$(frame "$out/unroll1.cu")"
    if cmp -s step04_unroll/nbody.cu "$out/nopragma.cu" || cmp -s "$out/nopragma.cu" "$out/unroll1.cu"; then
        fail "step04 exercise 2: no '#pragma unroll' line above a loop over u in step04_unroll/nbody.cu to edit"
    elif [ "$r0" = 0 ] || [ "$s0" != 0 ] || [ "$s1" != 0 ] || [ "$s2" = 0 ]; then
        fail "step04 exercise 2: stack/registers as shipped $s0/$r0, pragmas removed $s1/$r1, unroll 1 $s2/$r2 (INSTRUCTORS.md says 0, 0 and > 0 bytes of stack)"
    else
        pass "step04 exercise 2: pragmas removed: $s1 bytes of stack, $r1 registers (as shipped: $s0, $r0); '#pragma unroll 1': $s2 bytes of stack, $r2 registers"
    fi
fi

[ $fails = 0 ] || exit 1
