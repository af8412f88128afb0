# shellcheck shell=bash
# out-arg.sh: sourced by the report/explore scripts that take one argument, OUT. Checks it (one line
# and exit 2 otherwise), creates it, sets `final` to its absolute path and moves to the repository root.
if [ $# -ne 1 ] || [ "${1#-}" != "$1" ]; then
    echo "usage: report/explore/$(basename "$0") OUT" >&2
    exit 2
fi
mkdir -p "$1" || exit 2
# shellcheck disable=SC2034 # read by the script that sources this
final=$(cd "$1" && pwd)
cd "$(dirname "$0")/../.." || exit 2
