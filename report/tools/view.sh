#!/usr/bin/env bash
# view.sh SNAP2HTML: make view. One web page that plays a run's snapshots in 3D (report/tools/snap2html.c).
# Environment (make passes it):
#   SNAPS     a folder of snapshots (a run's --snapshot-dir): the page shows them, nothing is run
#   RUN_BIN   otherwise the step program that makes a run here (make view RUN=NN; default step01_omp):
#             VIEW_N bodies (2048), VIEW_STEPS steps (1000), a frame every VIEW_EVERY (20) and at step 0,
#             VIEW_ARGS its other options (default: --model collision --dt 0.008, two spheres that meet
#             at about t = 7), in VIEW_SNAPS ($BUILD/view/snaps)
#   VIEW_OUT  the page (build/view/index.html); VIEW_POINTS the most bodies drawn per frame (200000)
#   VIEW_LEVELS, VIEW_ETA  colours by the level step13's criterion gives each body too (snap2html
#             --levels --eta); a run made here takes them from VIEW_ARGS's --levels and --eta
set -u -o pipefail
cd "$(dirname "$0")/../.." || exit 2
tool=${1:?usage: view.sh SNAP2HTML}
build=${BUILD:-build}
out=${VIEW_OUT:-$build/view/index.html}
points=${VIEW_POINTS:-200000}
snaps=${SNAPS:-}
mkdir -p "$(dirname "$out")" || exit 2
if [ -n "$snaps" ]; then
    [ -d "$snaps" ] || { echo "make view: SNAPS=$snaps is not a folder (a run's --snapshot-dir)" >&2; exit 2; }
    title="snapshots of $snaps"
else
    bin=${RUN_BIN:-}
    [ -n "$bin" ] || { echo "make view: RUN=${RUN:-} is no step of steps.list (make view RUN=01, or SNAPS=DIR)" >&2; exit 2; }
    n=${VIEW_N:-2048} steps=${VIEW_STEPS:-1000} every=${VIEW_EVERY:-20}
    for v in "$n" "$steps" "$every"; do
        case $v in '' | *[!0-9]* | 0) echo "make view: VIEW_N, VIEW_STEPS and VIEW_EVERY must be whole numbers > 0 (got '$v')" >&2; exit 2 ;; esac
    done
    args=${VIEW_ARGS:---model collision --dt 0.008}
    snaps=${VIEW_SNAPS:-$build/view/snaps}
    rm -rf "$snaps" && mkdir -p "$snaps" || exit 2
    echo "make view: $(basename "$bin") $args -n $n, $steps steps, a snapshot every $every (in $snaps)"
    # shellcheck disable=SC2086 # VIEW_ARGS is options, split on purpose
    "$bin" -q -n "$n" $args --steps 0 --repeat 1 --validate off -o "$snaps/snap-0000000000.nbs" &&
        "$bin" -q -n "$n" $args --steps "$steps" --repeat 1 --validate off \
            --snapshot-every "$every" --snapshot-dir "$snaps" || exit 1
    title="$(basename "$bin") $args -n $n, $steps steps"
    # shellcheck disable=SC2086
    set -- $args
    while [ $# -gt 1 ]; do
        case $1 in --levels) VIEW_LEVELS=${VIEW_LEVELS:-$2} ;; --eta) VIEW_ETA=${VIEW_ETA:-$2} ;; esac
        shift
    done
fi
levels=()
[ -z "${VIEW_LEVELS:-}${VIEW_ETA:-}" ] || levels=(--levels "${VIEW_LEVELS:-}" --eta "${VIEW_ETA:-}")
"$tool" --out "$out" --max-points "$points" --title "$title" "${levels[@]}" "$snaps" || exit $?
echo "make view: open $out in a browser (file://$(cd "$(dirname "$out")" && pwd)/$(basename "$out"))"
