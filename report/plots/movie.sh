#!/usr/bin/env bash
# movie.sh: run a two-galaxy collision on the CPU (step01_omp) and draw it as an animated GIF with
# gnuplot (report/plots/movie.gp): report/figures/collision.gif. Called by `make movie`, which builds first.
# Environment: BUILD (build), MOVIE_N bodies (4096), MOVIE_STEPS steps of dt = 0.004 (5000: t = 20),
# MOVIE_EVERY steps between frames (25).
set -u -o pipefail
cd "$(dirname "$0")/../.." || exit 2
build=${BUILD:-build}
n=${MOVIE_N:-4096}
steps=${MOVIE_STEPS:-5000}
every=${MOVIE_EVERY:-25}
out=${MOVIE_OUT:-report/figures/collision.gif}
work=$build/movie
exe=$build/bin/step01_omp
for v in "$n" "$steps" "$every"; do
    case $v in '' | *[!0-9]* | 0) echo "movie: MOVIE_N, MOVIE_STEPS and MOVIE_EVERY must be whole numbers > 0 (got '$v')" >&2; exit 2 ;; esac
done
[ -x "$exe" ] && [ -x "$build/tools/snap2txt" ] || { echo "movie: build first (make movie does)" >&2; exit 2; }
command -v gnuplot >/dev/null 2>&1 || { echo "movie: gnuplot is missing; 'bash common/deps.sh gnuplot' installs it or prints the command" >&2; exit 2; }
gnuplot -e 'set terminal' 2>&1 </dev/null | grep -qw gif || { echo "movie: this gnuplot has no gif terminal (install gnuplot-nox)" >&2; exit 2; }

rm -rf "$work" && mkdir -p "$work/snaps" "$(dirname "$out")" || exit 2
echo "movie: [1/3] simulating $n bodies, $steps steps of dt = 0.004, a frame every $every steps ($((steps / every + 1)) frames)"
"$exe" -q --model collision -n "$n" --dt 0.004 --steps 0 --validate off -o "$work/snaps/snap-0000000000.nbs" &&
    "$exe" -q --model collision -n "$n" --dt 0.004 --steps "$steps" --repeat 1 --validate off \
        --snapshot-every "$every" --snapshot-dir "$work/snaps" --csv "$work/run.csv" --tag movie || exit 1
echo "movie: [2/3] positions to text"
"$build/tools/snap2txt" "$work"/snaps/snap-*.nbs > "$work/frames.txt" || exit 1
echo "movie: [3/3] drawing $out"
gnuplot -e "frames='$work/frames.txt'; out='$out.tmp'; run='$work/run.csv'" report/plots/movie.gp || { rm -f "$out.tmp"; exit 1; }
mv "$out.tmp" "$out"
echo "movie: done: $out ($(du -h "$out" | cut -f1))"
