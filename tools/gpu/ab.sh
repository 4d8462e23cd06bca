#!/usr/bin/env bash
# A change measured against its base the way docs/performance.md's trials were: both built in
# the same call on one machine and run in alternating rounds, on bench.toml and on a second flow.
# Machines started apart differ, and bench.toml's state (rounding noise around a resting
# contact) picks branches a real flow does not, so neither a number from another call nor one
# deck is a verdict.
#
#   tools/gpu/ab.sh prepare REV     on the CPU machine: REV's sources into .ab-base/ (git-ignored)
#   tools/gpu/ab.sh trial NAME REV  on the CPU machine: REV's sources into .ab-trial-NAME/, a
#                                   further head measured in the same call (NAME: a-z, 0-9, _)
#   tools/gpu/ab.sh run OUTDIR      on the GPU machine (carry .gpu-deps, .ab-base and the
#                                   .ab-trial-NAME of each trial AB_TRIALS names)
#
# run builds the working tree ("head": tools/gpu/check.sh's build), .ab-base ("base": its own
# check.sh, with the same options) and each trial of AB_TRIALS ("NAME1 NAME2") side by side, then AB_ROUNDS rounds
# (default 2), each running every deck of AB_DECKS with base, then head, then each trial: both
# precisions, split and fused (AB_PRECISIONS, AB_KERNELS), --repeat 3 --steps 12, HIP backend (Kokkos with KOKKOS_ROOT).
# OUTDIR/ab.md has, per configuration, each round's median ms of base and head, head / base,
# and whether their checksums agree, then the same table for each trial against base
# (tools/gpu/ab_table.py). Trials let one device call measure several changes against one
# base: calls are scarce, and each starts a machine afresh.
#   AB_DECKS  default "bench.toml:256,512 sedov.toml:256" (deck in inputs/ : sizes)
#   AB_PRECISIONS, AB_KERNELS  default "fp64,fp32" and "split,fused": fewer for a trial that
#             changes one precision's fused stage alone (a screen in less device time; the
#             split runs are the kernels' A/A beside it)
#   AB_LOCAL=1  the CPU machine's default build instead (Kokkos backend): to try the script here
#   KOKKOS_ROOT  a Kokkos GPU install (as check.sh's): both built with it, the runs on Kokkos
#                (first run on the H200 in the eighteenth session: tests/data/h200/fused/minnum_trial.md)
set -uo pipefail
what=${1:?usage: tools/gpu/ab.sh prepare REV | run OUTDIR}
cd "$(dirname "$0")/../.."
root=$PWD
usage="usage: tools/gpu/ab.sh prepare REV | trial NAME REV | run OUTDIR"
# unpack DIR REV: REV's sources into DIR, named in DIR/AB_REV.
unpack() {
  rm -rf "$1" && mkdir "$1" && git archive "$2" | tar -x -C "$1" || exit 1
  git rev-parse "$2" > "$1/AB_REV"
}
if [ "$what" = prepare ]; then
  rev=${2:?$usage}
  unpack .ab-base "$rev"
  echo "ab.sh: .ab-base holds $(cut -c1-12 .ab-base/AB_REV); carry it with .gpu-deps"
  exit 0
fi
if [ "$what" = trial ]; then
  name=${2:?$usage} rev=${3:?$usage}
  [[ "$name" =~ ^[a-z0-9_]+$ ]] && [ "$name" != base ] && [ "$name" != head ] ||
    { echo "ab.sh: a trial's name is a-z, 0-9 and _, not base or head: '$name'" >&2; exit 2; }
  unpack ".ab-trial-$name" "$rev"
  echo "ab.sh: .ab-trial-$name holds $(cut -c1-12 ".ab-trial-$name/AB_REV"); carry it too"
  exit 0
fi
[ "$what" = run ] || { echo "$usage" >&2; exit 2; }
out=${2:?$usage}
[ -f .ab-base/AB_REV ] || { echo "ab.sh: no .ab-base: run tools/gpu/ab.sh prepare REV first" >&2; exit 2; }
mkdir -p "$out"
# The trials AB_TRIALS names, each carried as .ab-trial-NAME: one not named (left by an earlier
# call on a machine kept warm) is not built.
trials=()
for name in ${AB_TRIALS:-}; do
  [ -f ".ab-trial-$name/AB_REV" ] ||
    { echo "ab.sh: no .ab-trial-$name: run tools/gpu/ab.sh trial $name REV first and carry it" >&2; exit 2; }
  trials+=(".ab-trial-$name")
done

# Each tree's binary, built the same way.
# builds: each build's name and tree; base and head first.
declare -A tree_of=([base]="$root/.ab-base" [head]="$root")
builds=(base head)
for tree in "${trials[@]}"; do
  name=${tree#.ab-trial-}
  tree_of[$name]=$root/$tree
  builds+=("$name")
done
declare -A bin_of
if [ -n "${AB_LOCAL:-}" ]; then
  backend=kokkos
  for build in "${builds[@]}"; do
    tree=${tree_of[$build]}
    cmake -S "$tree" -B "$tree/build-ab" -DCMAKE_BUILD_TYPE=Release > "$out/configure-$build.log" 2>&1 &&
      cmake --build "$tree/build-ab" -j "$(nproc)" --target halocline > "$out/build-$build.log" 2>&1 ||
      { echo "ab.sh: the build of $tree failed (see $out)" >&2; exit 1; }
    bin_of[$build]=$tree/build-ab/bin/halocline
  done
else
  # With KOKKOS_ROOT (a Kokkos GPU install) every tree builds the Kokkos backend too
  # (check.sh's build-gpu-kokkos) and the runs take it; otherwise the HIP backend. The
  # builds run side by side.
  backend=hip dir=build-gpu
  [ -z "${KOKKOS_ROOT:-}" ] || backend=kokkos dir=build-gpu-kokkos
  for build in "${builds[@]}"; do
    tree=${tree_of[$build]}
    [ "$build" = head ] || ln -sfn "$root/.gpu-deps" "$tree/.gpu-deps"
    (cd "$tree" && BUILD_TARGET=halocline tools/gpu/check.sh "$out/$build-build" build) > "$out/$build-build.txt" 2>&1 &
    bin_of[$build]=$tree/$dir/bin/halocline
  done
  built=0
  for job in $(jobs -p); do wait "$job" || built=1; done
  [ $built = 0 ] || { echo "ab.sh: a build failed (see $out/*-build*)" >&2; exit 1; }
fi

status=0
for round in $(seq 1 "${AB_ROUNDS:-2}"); do
  for build in "${builds[@]}"; do
    bin=${bin_of[$build]}
    for spec in ${AB_DECKS:-bench.toml:256,512 sedov.toml:256}; do
      deck=${spec%%:*} sizes=${spec#*:}
      "$bin" bench "inputs/$deck" --set run.backend=$backend --sweep grid.n="$sizes" \
        --sweep precision="${AB_PRECISIONS:-fp64,fp32}" --sweep kernels="${AB_KERNELS:-split,fused}" \
        --repeat "${AB_REPEAT:-3}" --steps "${AB_STEPS:-12}" --quiet \
        --out "$out/$build-${deck%.toml}-r$round" > "$out/$build-${deck%.toml}-r$round.txt" 2>&1 || status=1
    done
  done
done
python3 tools/gpu/ab_table.py "$out" "$(cut -c1-12 .ab-base/AB_REV)" > "$out/ab.md" || status=1
for tree in "${trials[@]}"; do
  echo >> "$out/ab.md"
  python3 tools/gpu/ab_table.py "$out" "$(cut -c1-12 .ab-base/AB_REV)" "${tree#.ab-trial-}" \
    "$(cut -c1-12 "$tree/AB_REV")" >> "$out/ab.md" || status=1
done
cat "$out/ab.md"
exit $status
