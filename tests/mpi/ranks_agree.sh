#!/usr/bin/env bash
# Decomposition test: a deck run on 1, 2, 3 and 4 MPI ranks, with the sync and the overlap
# halo strategies, in every layout, with the split and the fused kernels, must give the
# checksum and the conservation totals of the single-rank split run bit for bit. The process grids rotate through splits
# along each axis, uneven sizes and MPI's own choice, so that over a deck's runs every axis is
# cut; the kernels alternate so that each halo strategy and rank count runs both over the
# three layouts.
#
#   ranks_agree.sh HALOCLINE MPIEXEC DECK "GRID OVERRIDES" "2-RANK GRIDS" "3-RANK GRIDS" "4-RANK GRIDS"
# Grids are PX,PY,PZ separated by spaces; "auto" lets MPI_Dims_create choose.
set -euo pipefail
bin=$1 mpiexec=$2 deck=$3 overrides=$4
declare -A grids=([2]=$5 [3]=$6 [4]=$7)
source "$(dirname "$0")/common.sh"

sets=(--steps 6 --quiet --set output.final=false --set output.interval=0)
for o in $overrides; do sets+=(--set "$o"); done


failures=0 runs=0 turn=0
for layout in aos soa aosoa; do
  turn=$((turn + 1))  # each layout starts on the other kernels: 8 runs a layout would not
  "$bin" run --no-probe "$deck" --layout "$layout" --kernels split "${sets[@]}" --out "$work/ref-$layout"
  ref=$(checksum "$work/ref-$layout")
  [ -n "$ref" ] || { echo "no checksum from the 1-rank reference ($layout)"; exit 1; }
  ref_totals=$(totals "$work/ref-$layout")
  index=0
  for halo in sync overlap; do
    for ranks in 1 2 3 4; do
      if [ "$ranks" = 1 ]; then
        grid=auto  # one rank: periodic faces go through the staged self-exchange
      else
        read -r -a choices <<<"${grids[$ranks]}"
        grid=${choices[$((index % ${#choices[@]}))]}
      fi
      index=$((index + 1))
      turn=$((turn + 1))
      kernels=split
      [ $((turn % 2)) = 1 ] || kernels=fused
      out="$work/$layout-$halo-$ranks"
      grid_args=()
      [ "$grid" = auto ] || grid_args=(--ranks-grid "$grid")
      "$mpiexec" --oversubscribe -n "$ranks" "$bin" run --no-probe "$deck" --layout "$layout" --halo "$halo" \
        --kernels "$kernels" "${grid_args[@]}" "${sets[@]}" --out "$out"
      got=$(checksum "$out")
      runs=$((runs + 1))
      got_totals=$(totals "$out")
      if [ "$got" = "$ref" ] && [ "$got_totals" = "$ref_totals" ]; then
        echo "ok   $layout $halo $kernels ranks=$ranks grid=$grid $got"
      else
        echo "FAIL $layout $halo $kernels ranks=$ranks grid=$grid: $got, 1 rank: $ref"
        [ "$got_totals" = "$ref_totals" ] || echo "     totals $got_totals, 1 rank: $ref_totals"
        failures=$((failures + 1))
      fi
    done
  done
done
echo "$runs runs, $failures differ from the single-rank checksum or totals"
[ "$failures" = 0 ]
