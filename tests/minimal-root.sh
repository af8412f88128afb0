#!/usr/bin/env bash
# minimal-root.sh [WORK]: the lab on a fresh Debian 12 with only git, make and gcc (issue 53, item 12),
# for .ci/run. A minimal root is made with debootstrap (--variant=minbase, plus git, make, gcc and
# libc6-dev) under WORK (default build/minimal-root), the debootstrap tarball cached beside it
# (build/debootstrap-bookworm.tgz) so that a second run downloads nothing of it; the lab's files (git
# ls-files) are copied in, and there, chrooted, `make test-hardening` runs: the lab installs what it
# needs itself (zlib, and python3 for case S13, report/explore/sass-model.py, which once exited 127
# there), and every case must behave. Then the class grader's reports (grading/class/report.py,
# python3's) are written there from a grade of step00, and make grade STEP=02 fetches NVIDIA's compiler
# from PyPI (no CUDA Toolkit there) and compiles step02. Not the whole of make test: that is 15 minutes
# on 2 cores; these are the parts that run python3 or need nvcc. Needs root, the Debian mirror and PyPI;
# else SKIP.
# Prints one line per check; exit 1 if any failed.
set -u -o pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-$here/build/minimal-root}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
tarball=$(dirname "$work")/debootstrap-bookworm.tgz
include=git,make,gcc,libc6-dev,ca-certificates
fails=0
pass() { echo "PASS minimal-root: $*"; }
fail() { echo "FAIL minimal-root: $*"; fails=$((fails + 1)); }
[ "$(id -u)" = 0 ] || { echo "SKIP minimal-root: needs root (debootstrap, chroot, mount)"; exit 0; }
if ! command -v debootstrap > /dev/null 2>&1; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap > /dev/null 2>&1 ||
        { apt-get update -qq > /dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap > /dev/null 2>&1; } ||
        { echo "SKIP minimal-root: debootstrap is not here and could not be installed"; exit 0; }
fi
root=$work/root
umount_all() { for m in dev/pts dev proc; do mountpoint -q "$root/$m" && umount -l "$root/$m"; done; }
trap umount_all EXIT
umount_all
rm -rf "$work" && mkdir -p "$work" || { echo "minimal-root.sh: cannot make $work" >&2; exit 2; }
t0=$(date +%s)
if [ ! -s "$tarball" ]; then
    debootstrap --variant=minbase --include="$include" --make-tarball="$tarball.tmp" bookworm "$work/tarball" "$mirror" \
        > "$work/debootstrap-tarball.log" 2>&1 && mv "$tarball.tmp" "$tarball" ||
        { rm -f "$tarball.tmp"; echo "SKIP minimal-root: debootstrap could not fetch bookworm from $mirror ($work/debootstrap-tarball.log)"; exit 0; }
    rm -rf "$work/tarball"
fi
if ! debootstrap --variant=minbase --include="$include" --unpack-tarball="$tarball" bookworm "$root" "$mirror" \
    > "$work/debootstrap.log" 2>&1; then
    fail "debootstrap from $tarball: $(tail -n 1 "$work/debootstrap.log")"
    exit 1
fi
echo "     (a minimal bookworm root in $(($(date +%s) - t0)) s: $root)"
if chroot "$root" sh -c 'command -v python3 || command -v gnuplot || pkg-config --exists check' > /dev/null 2>&1; then
    fail "the root is not minimal: python3, gnuplot or Check is there already"
else
    pass "the root has git, make and gcc, and no python3, gnuplot or Check"
fi

# The lab's files, as a clone has them; the mounts and the resolver a chroot needs.
mkdir -p "$root/lab"
(cd "$here" && git ls-files -z --cached --others --exclude-standard) | while IFS= read -r -d '' f; do
    [ -f "$here/$f" ] || continue
    mkdir -p "$root/lab/$(dirname "$f")" && cp -p "$here/$f" "$root/lab/$f"
done
cp /etc/resolv.conf "$root/etc/resolv.conf" 2> /dev/null
# The host's own certificate authorities (a proxy that inspects TLS has its CA there): the test machine's
# network, not the lab's, so the root trusts what the host trusts (pip fetches nvcc over https).
if [ -n "$(ls /usr/local/share/ca-certificates 2> /dev/null)" ]; then
    mkdir -p "$root/usr/local/share/ca-certificates" && cp -r /usr/local/share/ca-certificates/. "$root/usr/local/share/ca-certificates/"
    chroot "$root" update-ca-certificates > /dev/null 2>&1 || cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"
fi
mount -t proc proc "$root/proc" && mount --bind /dev "$root/dev" && mount --bind /dev/pts "$root/dev/pts" ||
    { fail "cannot mount /proc and /dev in the root"; exit 1; }
inroot() { chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    LANG=C.UTF-8 COMMIT=minimal-root /bin/bash -c "$1"; }

# make test-hardening there: the lab installs zlib and python3 itself; S13 runs the script (exit 2).
t1=$(date +%s)
inroot 'cd /lab && make -s -j2 test-hardening' > "$work/hardening.log" 2>&1
rc=$?
s13=$(grep -E '^S13 ' "$work/hardening.log")
if [ $rc -eq 0 ] && [[ $s13 == *" ok "* ]] && inroot 'command -v python3' > /dev/null; then
    pass "make test-hardening: every case behaved, python3 installed by the lab, S13 ok ($(($(date +%s) - t1)) s): ${s13#*| }"
else
    fail "make test-hardening: exit $rc; S13: ${s13:-none}; $(grep -E 'FAIL|Error|127' "$work/hardening.log" | head -n 3)"
fi

# The class grader's reports (python3): one student's grade of step00 (its solution) through grade-one.sh.
# Its verdict may be ERROR: grade-one.sh asks for the workers' sandbox (GRADE_SANDBOX=require), which
# bubblewrap cannot make inside a chroot without user namespaces; the reports are what is checked here.
inroot 'mkdir -p /tmp/subs/alice/step00_serial && cp /lab/step00_serial/nbody.c /tmp/subs/alice/step00_serial/ &&
    cd /lab && CLASS_STEPS=00 GRADE_N=1024 GRADE_CHECK_N="1 31" CLASS_ISOLATE=none GRADE_SANDBOX=off \
    bash grading/class/grade-one.sh /tmp/subs/alice /tmp/class && bash grading/class/collect.sh /tmp/class' \
    > "$work/class.log" 2>&1
rc=$?
row=$(grep -m 1 '^alice,00,' "$root/tmp/class/class.csv" 2> /dev/null)
if [ $rc -eq 0 ] && [ -n "$row" ] && [ -s "$root/tmp/class/index.html" ] &&
    inroot 'python3 -m json.tool /tmp/class/students/alice/gradescope/results.json' > /dev/null 2>&1; then
    pass "grade-one.sh and collect.sh there: class.csv, index.html and results.json written by python3 (alice: $(cut -d, -f3 <<< "$row"))"
else
    fail "the class grader there: exit $rc: $(tail -n 3 "$work/class.log")"
fi
# No CUDA Toolkit there: make grade fetches NVIDIA's compiler from PyPI into .deps/cuda (common/deps.sh
# nvcc, pip installed as the rest is) and compiles step02, which is then SKIP (compiled, no GPU).
t2=$(date +%s)
inroot 'cd /lab && make -s grade STEP=02 GRADE_CHECK_N=1' > "$work/grade-02.log" 2>&1
rc=$?
row=$(grep -E '^02 +step02_cuda_naive +' "$work/grade-02.log" | head -n 1)
if [ $rc -eq 0 ] && [[ $row == *SKIP*compiled* ]] && [ -x "$root/lab/.deps/cuda/bin/nvcc" ] && [ -x "$root/lab/build/bin/step02_cuda_naive" ]; then
    pass "make grade STEP=02 without the CUDA Toolkit: nvcc fetched from PyPI into .deps/cuda, step02 compiled, SKIP ($(($(date +%s) - t2)) s)"
else
    fail "make grade STEP=02 without the CUDA Toolkit: exit $rc, row '${row:-none}': $(grep -E 'deps:|error' "$work/grade-02.log" | head -n 3)"
fi
echo "     (minimal-root: $(($(date +%s) - t0)) s in all; logs in $work)"
[ $fails -eq 0 ]
