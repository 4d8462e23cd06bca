#!/usr/bin/env bash
# A change measured against its base the way docs/performance.md's trials were: both built in
# the same call on one machine and run in alternating rounds, on bench.toml and on a second flow.
# Machines started apart differ, and bench.toml's state (rounding noise around a resting
# contact) picks branches a real flow does not, so neither a number from another call nor one
# deck is a verdict.
#
#   tools/gpu/ab.sh prepare REV     on the CPU machine: REV's sources into .ab-base/ (git-ignored)
#   tools/gpu/ab.sh run OUTDIR      on the GPU machine (carry .gpu-deps and .ab-base)
#
# run builds the working tree ("head": tools/gpu/check.sh's build) and .ab-base ("base": its own
# check.sh, with the same options) side by side, then AB_ROUNDS rounds (default 2), each running
# every deck of AB_DECKS with base, then with head: both precisions, split and fused, --repeat 3
# --steps 12, HIP backend (Kokkos with KOKKOS_ROOT). OUTDIR/ab.md has, per configuration, each
# round's median ms of base and head, head / base, and whether their checksums agree
# (tools/gpu/ab_table.py).
#   AB_DECKS  default "bench.toml:256,512 sedov.toml:256" (deck in inputs/ : sizes)
#   AB_LOCAL=1  the CPU machine's default build instead (Kokkos backend): to try the script here
#   KOKKOS_ROOT  a Kokkos GPU install (as check.sh's): both built with it, the runs on Kokkos
#                (first run on the H200 in the eighteenth session: tests/data/h200/fused/minnum_trial.md)
set -uo pipefail
what=${1:?usage: tools/gpu/ab.sh prepare REV | run OUTDIR}
cd "$(dirname "$0")/../.."
root=$PWD
if [ "$what" = prepare ]; then
  rev=${2:?usage: tools/gpu/ab.sh prepare REV}
  rm -rf .ab-base && mkdir .ab-base && git archive "$rev" | tar -x -C .ab-base || exit 1
  git rev-parse "$rev" > .ab-base/AB_REV
  echo "ab.sh: .ab-base holds $(cut -c1-12 .ab-base/AB_REV); carry it with .gpu-deps"
  exit 0
fi
[ "$what" = run ] || { echo "usage: tools/gpu/ab.sh prepare REV | run OUTDIR" >&2; exit 2; }
out=${2:?usage: tools/gpu/ab.sh run OUTDIR}
[ -f .ab-base/AB_REV ] || { echo "ab.sh: no .ab-base: run tools/gpu/ab.sh prepare REV first" >&2; exit 2; }
mkdir -p "$out"

# Each tree's binary, built the same way.
if [ -n "${AB_LOCAL:-}" ]; then
  backend=kokkos
  for tree in "$root" "$root/.ab-base"; do
    cmake -S "$tree" -B "$tree/build-ab" -DCMAKE_BUILD_TYPE=Release > "$out/configure-$(basename "$tree").log" 2>&1 &&
      cmake --build "$tree/build-ab" -j "$(nproc)" --target halocline > "$out/build-$(basename "$tree").log" 2>&1 ||
      { echo "ab.sh: the build of $tree failed (see $out)" >&2; exit 1; }
  done
  head_bin=$root/build-ab/bin/halocline base_bin=$root/.ab-base/build-ab/bin/halocline
else
  # With KOKKOS_ROOT (a Kokkos GPU install) both trees build the Kokkos backend too
  # (check.sh's build-gpu-kokkos) and the runs take it; otherwise the HIP backend. The two
  # builds run side by side.
  backend=hip dir=build-gpu
  [ -z "${KOKKOS_ROOT:-}" ] || backend=kokkos dir=build-gpu-kokkos
  ln -sfn "$root/.gpu-deps" .ab-base/.gpu-deps
  BUILD_TARGET=halocline tools/gpu/check.sh "$out/head-build" build > "$out/head-build.txt" 2>&1 &
  (cd .ab-base && BUILD_TARGET=halocline tools/gpu/check.sh "$out/base-build" build) > "$out/base-build.txt" 2>&1 &
  built=0
  for job in $(jobs -p); do wait "$job" || built=1; done
  [ $built = 0 ] || { echo "ab.sh: a build failed (see $out/*-build*)" >&2; exit 1; }
  head_bin=$root/$dir/bin/halocline base_bin=$root/.ab-base/$dir/bin/halocline
fi

status=0
for round in $(seq 1 "${AB_ROUNDS:-2}"); do
  for build in base head; do
    bin=$base_bin
    [ $build = head ] && bin=$head_bin
    for spec in ${AB_DECKS:-bench.toml:256,512 sedov.toml:256}; do
      deck=${spec%%:*} sizes=${spec#*:}
      "$bin" bench "inputs/$deck" --set run.backend=$backend --sweep grid.n="$sizes" --sweep precision=fp64,fp32 \
        --sweep kernels=split,fused --repeat "${AB_REPEAT:-3}" --steps "${AB_STEPS:-12}" --quiet \
        --out "$out/$build-${deck%.toml}-r$round" > "$out/$build-${deck%.toml}-r$round.txt" 2>&1 || status=1
    done
  done
done
python3 tools/gpu/ab_table.py "$out" "$(cut -c1-12 .ab-base/AB_REV)" > "$out/ab.md" || status=1
cat "$out/ab.md"
exit $status
