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
# bench and benchmark run each configuration as a run of their own: on a terminal each shows the
# line too (a benchmark at 256^3 runs minutes on a CPU), into a file none.
bench=("$bin" bench "$deck" --set grid.nx=20000 --repeat 1 --steps 50)
script -qec "${bench[*]} --out $work/b" /dev/null > "$work/bench_tty.txt" 2>&1 || { echo "FAIL: bench on a terminal failed"; exit 1; }
grep -q "ETA" "$work/bench_tty.txt" || { echo "FAIL: no progress line from bench on a terminal"; status=1; }
"${bench[@]}" --out "$work/b2" > "$work/bench_out.txt" 2> "$work/bench_err.txt" || exit 1
grep -q "ETA" "$work/bench_err.txt" && { echo "FAIL: a progress line from bench into a file"; status=1; }
benchmark=("$bin" benchmark --size 32 --non-compliant --repeat 1 --steps 5 --min-time 0.01 --out "$work/m")
script -qec "${benchmark[*]}" /dev/null > "$work/benchmark_tty.txt" 2>&1 || { echo "FAIL: benchmark on a terminal failed"; exit 1; }
grep -q "ETA" "$work/benchmark_tty.txt" || { echo "FAIL: no progress line from benchmark on a terminal"; status=1; }
grep -q "benchmark: soa fp64 run 1: 9 steps at 32^3" "$work/benchmark_tty.txt" ||
  { echo "FAIL: benchmark does not say which run it starts"; status=1; }
[ $status = 0 ] && echo "ok: progress line on a terminal only"
exit $status
