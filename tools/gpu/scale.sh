#!/usr/bin/env bash
# Weak and strong scaling of the halo strategies, one MPI rank per GPU (issue 8):
# bench.toml, SoA fp64, pinned staging, halos through the host (the MPI there is not
# GPU-aware), --halo sync and overlap, with 1, 2, 4 and 8 ranks (as many as there are GPUs,
# or SCALE_RANKS). Every run's report is kept; tools/gpu/summarize_scaling.py makes the
# tables (efficiencies, hidden fractions, the mpi phase over ranks).
#
#   tools/gpu/scale.sh BINARY OUTDIR
#
#   weak:   SCALE_WEAK_N^3 cells per rank (default 256), the ranks in a fixed process grid
#           (1,1,1  1,1,2  1,2,2  2,2,2), so each rank has the same block and neighbours
#   strong: SCALE_STRONG_N^3 cells in all (default "512 1024"), split over the ranks; a
#           configuration that does not fit in the ranks' GPUs exits 2 and is listed as such
#
# MPIRUN names the launcher (default mpirun). Rehearsal on a CPU machine (the Kokkos backend, many ranks on few cores: the numbers say
# nothing about a GPU, the script and the reports are what is checked):
#   SCALE_BACKEND=kokkos SCALE_RANKS="1 2 4 8" SCALE_WEAK_N=24 SCALE_STRONG_N=48 \
#     tools/gpu/scale.sh build/bin/halocline out/scale
set -uo pipefail
bin=${1:?usage: tools/gpu/scale.sh BINARY OUTDIR}
out=${2:?usage: tools/gpu/scale.sh BINARY OUTDIR}
backend=${SCALE_BACKEND:-hip}
steps=${SCALE_STEPS:-30}
weak_n=${SCALE_WEAK_N:-256}
strong_sizes=${SCALE_STRONG_N:-512 1024}
if [ -z "${SCALE_RANKS:-}" ]; then
  gpus=$(nvidia-smi -L 2>/dev/null | wc -l)
  SCALE_RANKS=""
  for p in 1 2 4 8; do [ "$p" -le "$gpus" ] && SCALE_RANKS="$SCALE_RANKS $p"; done
fi
cd "$(dirname "$0")/../.."
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 HWLOC_COMPONENTS=-pci

# The process grid of P ranks: z first, then y, then x, so that P = 2 splits along z.
grid_of() {
  case $1 in
    1) echo "1 1 1" ;; 2) echo "1 1 2" ;; 4) echo "1 2 2" ;; 8) echo "2 2 2" ;;
    *) echo "scale.sh: $1 ranks: only 1, 2, 4 and 8 have a process grid here" >&2; return 1 ;;
  esac
}

# run NAME PX PY PZ NX NY NZ HALO: one run on a PX x PY x PZ process grid; its report is
# NAME.json, its exit code NAME.rc.
run() {
  local name=$1 px=$2 py=$3 pz=$4 nx=$5 ny=$6 nz=$7 halo=$8
  local p=$((px * py * pz))
  echo "== $name: $p ranks ($px,$py,$pz), ${nx}x${ny}x${nz}, halo $halo"
  "${MPIRUN:-mpirun}" --oversubscribe -n "$p" --bind-to none "$bin" run inputs/bench.toml --backend "$backend" \
    --set grid.nx="$nx" --set grid.ny="$ny" --set grid.nz="$nz" --ranks-grid "$px,$py,$pz" \
    --layout soa --precision fp64 --owner device --host-mem pinned --halo "$halo" \
    --steps "$steps" --no-probe --quiet --out "$out/tmp_$name" --report "$out/$name.json" \
    > "$out/$name.log" 2>&1
  echo $? > "$out/$name.rc"
  [ "$(cat "$out/$name.rc")" = 0 ] || tail -2 "$out/$name.log"
  rm -rf "$out/tmp_$name"
}

for p in $SCALE_RANKS; do
  read -r px py pz <<< "$(grid_of "$p")" || continue
  for halo in overlap sync; do
    run "weak_n${weak_n}_p${p}_${halo}" "$px" "$py" "$pz" $((weak_n * px)) $((weak_n * py)) $((weak_n * pz)) "$halo"
    for n in $strong_sizes; do
      run "strong_n${n}_p${p}_${halo}" "$px" "$py" "$pz" "$n" "$n" "$n" "$halo"
    done
  done
done
echo "backend=$backend steps=$steps weak_n=$weak_n strong=\"$strong_sizes\" ranks=\"$SCALE_RANKS\"" > "$out/settings.txt"
# The MPI that carried the halos, and how Open MPI's shared-memory transport copies between
# processes of a node (its single-copy mechanism: cma, xpmem or none, the last copying in
# and out of a shared segment); the rate between ranks depends on it (docs/scaling.md).
{
  "${MPIRUN:-mpirun}" --version 2>&1 | head -1
  if command -v ompi_info > /dev/null; then
    ompi_info --parsable --level 9 --param btl vader 2>/dev/null |
      sed -n 's/^mca:btl:vader:param:btl_vader_single_copy_mechanism:\(value\|source\):/single_copy_mechanism \1: /p'
  fi
} > "$out/mpi.txt" || true
