#!/usr/bin/env bash
# Decomposition choices a run cannot make, and a probe started as several ranks: each exits
# with code 2 and one clear line.
#   bad_input.sh HALOCLINE MPIEXEC DECK
set -uo pipefail
bin=$1 mpiexec=$2 deck=$3
source "$(dirname "$0")/common.sh"
failures=0

# expect RANKS "MESSAGE PART" ARGS...: exit code 2 and the message on stderr, once (rank 0
# speaks for the job). expect_command is the same for any command line.
expect() {
  local ranks=$1 want=$2
  shift 2
  expect_command "$ranks" "$want" run --no-probe "$deck" --steps 1 --out "$work/out" "$@"
}
expect_command() {
  local ranks=$1 want=$2
  shift 2
  "$mpiexec" --oversubscribe -n "$ranks" "$bin" "$@" >"$work/stdout" 2>"$work/stderr"
  local code=$?
  # mpiexec reports the first non-zero exit code of the ranks.
  if [ "$code" = 2 ] && [ "$(grep -c -- "$want" "$work/stderr")" = 1 ]; then
    echo "ok   ranks=$ranks $*: $(grep -m1 'halocline: error' "$work/stderr")"
  else
    echo "FAIL ranks=$ranks $*: exit $code, stderr:"; cat "$work/stderr"
    failures=$((failures + 1))
  fi
}

expect 2 "needs one rank" --halo none
expect 2 "has 3 ranks, but the run has 2" --ranks-grid 3,1,1
expect 1 "has 2 ranks, but the run has 1" --ranks-grid 1,2,1
expect 2 "which has 1 cell$" --ranks-grid 1,1,2 --set grid.nz=1
expect 1 "gpu-aware" --halo gpu-aware
expect 1 "three positive numbers" --ranks-grid 1,1
# Each rank would probe, and the second would meet the first's lock on --out: refused, nothing
# made.
expect_command 2 "this job has 2 ranks: run it without mpirun" probe --quick --out "$work/probe"
[ ! -e "$work/probe" ] || { echo "FAIL probe on 2 ranks made $work/probe"; failures=$((failures + 1)); }
[ "$failures" = 0 ]
