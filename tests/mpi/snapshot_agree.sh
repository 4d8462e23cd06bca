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
# The report's host plan: the node's four ranks together, and its largest rank (rank 0, which
# gathers the file image besides its share), the figure rank 0's max_rss is read beside.
python3 - "$work/four-false/report.json" <<'EOF'
import json, sys
peak = json.load(open(sys.argv[1]))["host_bytes_peak"]
assert 0 < peak["planned_largest_process"] < peak["planned"], peak
EOF

# 1-D along x on 4 ranks, pieces of 200 bytes: the pattern in which Open MPI's OMPIO before
# 4.1.7 let one aggregator's data sieving write stale bytes over another's pieces (zeros, junk,
# another variable's values) in about half the tries, unless Halocline asks it to lock the
# ranges it writes (app/comm.cpp). Three tries.
sod=$(dirname "$deck")/sod.toml
one_d=(--quiet --set grid.nx=100)
"$bin" run --no-probe "$sod" "${one_d[@]}" --out "$work/sod-one"
for try in 1 2 3; do
  "$mpiexec" --oversubscribe -n 4 "$bin" run --no-probe "$sod" "${one_d[@]}" --set output.collective=true \
    --out "$work/sod-four-$try"
  echo "4 ranks, 1-D, try $try: written by $(mode "$work/sod-four-$try")"
  "$compare" "$work/sod-one/snapshot_0000.h5" "$work/sod-four-$try/snapshot_0000.h5"
done
