#!/usr/bin/env bash
# INSTRUCTORS ONLY: a stand-in for grade-class's collector (the real one also writes index.html)
# collect.sh OUT_DIR: OUT_DIR/class.csv from every OUT_DIR/students/<id>/rows.csv (one header).
set -u
[ $# -eq 1 ] && [ -d "$1/students" ] || { echo "usage: grading/class/collect.sh OUT_DIR (with OUT_DIR/students/)" >&2; exit 2; }
awk 'FNR == 1 && NR != 1 { next } { print }' "$1"/students/*/rows.csv > "$1/class.csv" || exit 1
echo "class: $1/class.csv ($(($(wc -l < "$1/class.csv") - 1)) rows)"
