#!/usr/bin/env bash
# The halo strategies on the GPU, in one invocation: periodic bench.toml, SoA fp64.
#   - one rank at each size: the compute-only step (--halo none: periodic ghosts copied in
#     place, no exchange) against sync and overlap, each with pinned and pageable staging
#     (one rank exchanges with itself through the same staged path as with a neighbour);
#   - with two or more GPUs visible: weak scaling of overlap and sync, 256^3 per GPU, one
#     rank per GPU (the MPI there is not GPU-aware: halos go through the host).
# Every run reports its step times (median, min, max) and the report's halo section.
#   tools/gpu/halo_bench.sh BINARY OUTDIR [SIZES="256 512"]
set -euo pipefail
bin=$1; out=$2; sizes=${3:-256 512}
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
run() {  # name, then run options
  local name=$1; shift
  echo "== $name"
  "$bin" run inputs/bench.toml --backend hip --out "$out/tmp" --report "$out/$name.json" --quiet "$@"
}
steps=${HALO_STEPS:-30}
for n in $sizes; do
  run "n${n}_none" --set grid.n="$n" --halo none --steps "$steps"
  for halo in sync overlap; do
    for mem in pinned pageable; do
      run "n${n}_${halo}_${mem}" --set grid.n="$n" --halo "$halo" --host-mem "$mem" --steps "$steps"
    done
  done
done

gpus=$(nvidia-smi -L 2>/dev/null | wc -l)
if [ "$gpus" -ge 2 ]; then
  for n in ${WEAK_SIZES:-256 512}; do
    for halo in overlap sync; do
      run "weak1_n${n}_${halo}" --set grid.n="$n" --halo "$halo" --steps "$steps"
      # Two ranks along z (MPI_Dims_create gives z the ranks): n x n x 2n in all.
      echo "== weak2_n${n}_${halo}"
      mpirun --oversubscribe -n 2 --bind-to none "$bin" run inputs/bench.toml --backend hip \
        --set grid.nx="$n" --set grid.ny="$n" --set grid.nz=$((2 * n)) --halo "$halo" --steps "$steps" \
        --out "$out/tmp" --report "$out/weak2_n${n}_${halo}.json" --quiet
    done
  done
else
  echo "one GPU visible: the 2-GPU weak-scaling runs are skipped" | tee "$out/weak-skipped.txt"
fi
rm -rf "$out/tmp"
