#!/usr/bin/env bash
# Kokkos Tools see the phases: a run on the Kokkos backend, with a tool library that records
# profiling regions (tests/tools/region_recorder.cpp), opens one region per timed phase
# (dt_reduction once per step, the stages' phases) and closes every region it opens.
#   kokkos_regions.sh HALOCLINE TOOL_LIBRARY DECK
set -euo pipefail
bin=$1 tool=$2 deck=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HALOCLINE_REGIONS_FILE=$work/regions.txt KOKKOS_TOOLS_LIBS=$tool KOKKOS_PROFILE_LIBRARY=$tool
"$bin" run "$deck" --backend kokkos --kernels split --set grid.n=12 --steps 5 --quiet --no-probe --out "$work/out"
[ -s "$HALOCLINE_REGIONS_FILE" ] || { echo "no region recorded: the tool was not loaded or no region opened"; exit 1; }
pushes=$(grep -c '^push ' "$HALOCLINE_REGIONS_FILE")
pops=$(grep -c '^pop$' "$HALOCLINE_REGIONS_FILE")
[ "$pushes" = "$pops" ] || { echo "$pushes regions opened, $pops closed"; exit 1; }
for phase in dt_reduction stage1.reconstruct_flux stage1.update stage2.reconstruct_flux stage2.update; do
  grep -qx "push $phase" "$HALOCLINE_REGIONS_FILE" || { echo "no region $phase"; exit 1; }
done
steps=$(grep -cx 'push dt_reduction' "$HALOCLINE_REGIONS_FILE")
[ "$steps" = 5 ] || { echo "dt_reduction opened $steps times in 5 steps"; exit 1; }
echo "ok: $pushes regions, each closed; dt_reduction once a step"
