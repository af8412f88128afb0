# newton-lib.sh: sourced by report/sweeps/newton.sh and report/explore/newton-ab.sh (step09's measurements).
# steps_for N RATE: steps for about 0.2 s of time loop at RATE G interactions/s (at least 1).
steps_for() { awk -v n="$1" -v r="$2" 'BEGIN { k = int(0.2 * r * 1e9 / (n * n) + 0.5); print k < 1 ? 1 : k }'; }
# pairs_resources LOG: "REGISTERS STORES+LOADS" of the force kernel pairs, from a build log made with -Xptxas -v.
pairs_resources() {
    awk '/entry function .*pairs/ { f = 1 } f && /spill stores/ { spill = $5 "+" $9 }
        f && /Used [0-9]+ registers/ { print $5, (spill == "" ? "?" : spill); exit }' "$1"
}
