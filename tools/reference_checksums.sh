#!/usr/bin/env bash
# The reference checksums `halocline benchmark` compares its runs with
# (inputs/reference_checksums.txt, built into the binary): inputs/bench.toml in SoA (every
# layout, rank count and backend gives the same bits in the strict-FP build), fp64 and
# fp32, for the length of the benchmark's run (4 untimed steps + 3 repetitions of 12: 40),
# at each size given (default: the ladder the benchmark chooses from). After a deliberate
# change to the physics, regenerate the file and commit it with the change:
#   tools/reference_checksums.sh build/bin/halocline > inputs/reference_checksums.txt
# (The whole file took 31 min 44 s of wall time on a 2-core AMD EPYC VM with other work
# running, 2026-12-02; 256^3 is most of it, 4 GB of memory per run. The GPU build gives the
# same bits: on the H200, sizes 32 to 512 took 9 s, build-gpu/bin/halocline.) The ctest
# References.SmallSizesMatchTheShippedFile makes sizes 32 and 64 again and fails when they
# differ from the file.
#   tools/reference_checksums.sh BIN [SIZE...]
set -euo pipefail
bin=$(realpath "$1")
shift
sizes=("$@")
[ $# -gt 0 ] || sizes=(32 64 128 256)
root=$(cd "$(dirname "$0")/.." && pwd)
steps=40
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
one() {  # size precision: the checksum of that run
  "$bin" run --no-probe --quiet "$root/inputs/bench.toml" --set "grid.n=$1" --layout soa --precision "$2" \
    --steps "$steps" --out "$work/$1-$2"
  sed -n 's/.*"checksum": "\([0-9a-f]*\)".*/\1/p' "$work/$1-$2/report.json"
}
echo "# Reference checksums of halocline benchmark: deck size precision steps checksum."
echo "# Made by tools/reference_checksums.sh (which says when and how to regenerate them)."
for n in "${sizes[@]}"; do
  one "$n" fp64 >"$work/$n.fp64" &  # both precisions at once: one core each
  one "$n" fp32 >"$work/$n.fp32"
  wait $!
  for p in fp64 fp32; do echo "bench.toml $n $p $steps $(cat "$work/$n.$p")"; done
done
