#!/usr/bin/env bash
# The progress line: on a terminal (a pseudo-terminal made by script(1)) a run prints its
# step, share done and ETA; into a file, and with --quiet on a terminal, it prints none.
#   tests/progress_tty.sh HALOCLINE DECK
set -uo pipefail
bin=$1 deck=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
run=("$bin" run --no-probe "$deck" --set grid.nx=20000 --steps 400 --out "$work/o")
status=0
script -qec "${run[*]}" /dev/null > "$work/tty.txt" 2>&1 || { echo "FAIL: the run on a terminal failed"; cat "$work/tty.txt"; exit 1; }
grep -q "ETA" "$work/tty.txt" || { echo "FAIL: no progress line on a terminal"; status=1; }
grep -q "step 400 " "$work/tty.txt" || grep -q "100.0%" "$work/tty.txt" || { echo "FAIL: the last line is not the end"; status=1; }
"${run[@]}" > "$work/out.txt" 2> "$work/err.txt" || exit 1
grep -q "ETA" "$work/err.txt" && { echo "FAIL: a progress line into a file"; status=1; }
script -qec "${run[*]} --quiet" /dev/null > "$work/quiet.txt" 2>&1 || exit 1
grep -q "ETA" "$work/quiet.txt" && { echo "FAIL: a progress line with --quiet"; status=1; }
[ $status = 0 ] && echo "ok: progress line on a terminal only"
exit $status
