#!/usr/bin/env bash
# A snapshot written by 4 ranks holds the same values as one written by 1 rank, through
# both output paths of this build: collective (one shared file, parallel HDF5) where the
# HDF5 is parallel, and rank-0 gather (output.collective = false; the serial-HDF5 path).
#   snapshot_agree.sh HALOCLINE MPIEXEC H5COMPARE DECK
set -euo pipefail
bin=$1 mpiexec=$2 compare=$3 deck=$4
source "$(dirname "$0")/common.sh"
sets=(--steps 3 --quiet --set grid.n=17 --set output.final=true --set output.interval=0)
mode() { sed -n 's/.*"output_mode": "\([a-z]*\)".*/\1/p' "$1/report.json"; }

"$bin" run --no-probe "$deck" "${sets[@]}" --out "$work/one"
for collective in true false; do
  out="$work/four-$collective"
  "$mpiexec" --oversubscribe -n 4 "$bin" run --no-probe "$deck" "${sets[@]}" --ranks-grid 2,1,2 \
    --set output.collective=$collective --out "$out"
  echo "4 ranks, output.collective=$collective: written by $(mode "$out")"
  "$compare" "$work/one/snapshot_0000.h5" "$out/snapshot_0000.h5"
  cmp "$work/one/snapshot_0000.xmf" "$out/snapshot_0000.xmf"
done
[ "$(mode "$work/four-false")" = gather ]
