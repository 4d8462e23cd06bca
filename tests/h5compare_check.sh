#!/usr/bin/env bash
# tools/h5compare on real snapshots and checkpoints (docs/output.md): the same solution from two
# runs and two layouts (and a restart) is identical, value by value; a run of another length or
# solver, or a file with one attribute changed (tests/hostile/h5attr), differs at that value;
# bad input (a file of neither kind, one of each) exits 2 with one line.
#   h5compare_check.sh HALOCLINE H5COMPARE H5ATTR DECK CASE   (CASE: same, differs, bad_input)
set -uo pipefail
bin=$1 compare=$2 h5attr=$3 deck=$4 case=$5
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# snapshot NAME [options]: a 16-cell Sod run's final snapshot, NAME/snapshot_0000.h5
snapshot() {
  local name=$1
  shift
  "$bin" run "$deck" --no-probe --quiet --set grid.nx=16 --set output.interval=0 --out "$work/$name" "$@" ||
    fail "the run $name failed"
}

# expect CODE STDOUT-START ARGS...: h5compare's exit code and the start of its stdout
expect() {
  local code=$1 start=$2
  shift 2
  "$compare" "$@" >"$work/out" 2>"$work/err"
  local got=$?
  echo "h5compare $*: exit $got: $(cat "$work/out" "$work/err")"
  [ "$got" = "$code" ] || fail "exit $got, expected $code"
  [[ "$(cat "$work/out")" == "$start"* ]] || fail "stdout does not start with '$start'"
}

# expect_refusal ERROR-LINE ARGS...: exit 2, that one line on stderr, nothing on stdout
expect_refusal() {
  local line=$1
  shift
  expect 2 "" "$@"
  [ "$(cat "$work/err")" = "$line" ] || fail "stderr is not the one line '$line'"
  [ -s "$work/out" ] && fail "something on stdout"
}

case $case in
  same)
    snapshot soa --steps 3 --layout soa
    snapshot aos --steps 3 --layout aos
    snapshot again --steps 3 --layout soa
    # 5 x 16 values, 16 + 1 + 1 centres, time, step, 3 x 3 of grid, origin, spacing, gamma,
    # problem and precision: 112
    expect 0 "identical: 112 values" "$work/soa/snapshot_0000.h5" "$work/aos/snapshot_0000.h5"
    expect 0 "identical: 112 values" "$work/soa/snapshot_0000.h5" "$work/again/snapshot_0000.h5"
    # Checkpoints: 5 x 16 values, time, step, 3 x 3 of grid, lo, hi, gamma, and problem,
    # precision, boundaries, checksum: 96; a restart's against a straight run's.
    snapshot straight --steps 4 --set checkpoint.every_steps=2 --set checkpoint.keep=5
    snapshot restarted --steps 4 --set checkpoint.every_steps=2 --restart "$work/straight/checkpoint_00000002.h5" --layout aos
    expect 0 "identical: 96 values" "$work/straight/checkpoint_00000004.h5" "$work/restarted/checkpoint_00000004.h5"
    ;;
  differs)
    snapshot three --steps 3
    snapshot four --steps 4
    expect 1 "rho[" "$work/three/snapshot_0000.h5" "$work/four/snapshot_0000.h5"
    for change in "gamma 2" "time 0.5" "step 7"; do
      read -r name value <<<"$change"
      cp "$work/three/snapshot_0000.h5" "$work/$name.h5"
      "$h5attr" "$work/$name.h5" "$name" "$value" || fail "h5attr could not change $name"
      expect 1 "$name[0]: " "$work/three/snapshot_0000.h5" "$work/$name.h5"
    done
    # Checkpoints of two solvers at the same step differ in their state (until 2026-12-06
    # h5compare looked for a snapshot's variables in them, found none and said "identical").
    snapshot hllc --steps 2 --set checkpoint.every_steps=2
    snapshot rusanov --steps 2 --set checkpoint.every_steps=2 --set physics.riemann=rusanov
    expect 1 "state[" "$work/hllc/checkpoint_00000002.h5" "$work/rusanov/checkpoint_00000002.h5"
    ;;
  bad_input)
    snapshot one --steps 1
    expect_refusal "usage: h5compare A.h5 B.h5 (exit 0: the same values, 1: a difference, 2: bad input)" \
      "$work/one/snapshot_0000.h5"
    # Asked for, the usage and the version are answers: exit 0, on stdout.
    expect 0 "usage: h5compare A.h5 B.h5" --help
    expect 0 "usage: h5compare A.h5 B.h5" -h
    expect 0 "h5compare (halocline) $("$bin" --version | sed -n 's/^halocline //p' | cut -d' ' -f1)" --version
    expect_refusal "h5compare: cannot read '$work/none.h5': no such file" "$work/one/snapshot_0000.h5" "$work/none.h5"
    expect_refusal "h5compare: cannot read '$work/one/snapshot_0000.xmf': not an HDF5 file" \
      "$work/one/snapshot_0000.xmf" "$work/one/snapshot_0000.h5"
    expect_refusal "h5compare: cannot read '$work/one': not a regular file" "$work/one" "$work/one/snapshot_0000.h5"
    snapshot kept --steps 1 --set checkpoint.every_steps=1
    expect_refusal "h5compare: '$work/kept/checkpoint_00000001.h5' is a checkpoint and '$work/one/snapshot_0000.h5' a snapshot: compare two of a kind" \
      "$work/kept/checkpoint_00000001.h5" "$work/one/snapshot_0000.h5"
    cp "$work/one/snapshot_0000.h5" "$work/other.h5"
    "$h5attr" "$work/other.h5" format "someone-else" || fail "h5attr could not change format"
    expect_refusal "h5compare: '$work/other.h5' is neither a Halocline snapshot nor a checkpoint" \
      "$work/one/snapshot_0000.h5" "$work/other.h5"
    # Two files that say they are snapshots but hold no variables compare nothing: refused.
    for f in fake1 fake2; do
      cp "$work/kept/checkpoint_00000001.h5" "$work/$f.h5"
      "$h5attr" "$work/$f.h5" format "halocline-snapshot" || fail "h5attr could not change format"
    done
    expect_refusal "h5compare: '$work/fake1.h5' is a snapshot without its dataset 'rho'" "$work/fake1.h5" "$work/fake2.h5"
    ;;
  *) fail "unknown case '$case'" ;;
esac
[ "$failures" = 0 ] && echo ok
