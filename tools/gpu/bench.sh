#!/usr/bin/env bash
# The GPU benchmark of the HIP backend in one invocation: bench.toml at 256^3 and 512^3,
#   - every layout x precision with the device owner;
#   - every owner model (host pinned and pageable, managed with and without prefetch) with
#     SoA fp64.
# Each run reports median, min and max of its step times (first step excluded).
#   tools/gpu/bench.sh BINARY OUTDIR [SIZES="256 512"]
set -euo pipefail
bin=$1; out=$2; sizes=${3:-256 512}
mkdir -p "$out"
run() {  # name, then run options
  local name=$1; shift
  echo "== $name"
  "$bin" run inputs/bench.toml --backend hip --out "$out/tmp" --report "$out/$name.json" --quiet "$@"
}
layouts=${BENCH_LAYOUTS:-soa aos aosoa}   # BENCH_LAYOUTS=soa BENCH_OWNERS=0: a quick look
for n in $sizes; do
  for prec in fp64 fp32; do
    for layout in $layouts; do
      run "n${n}_${layout}_${prec}_device" --set grid.n="$n" --layout "$layout" --precision "$prec" --steps 40
    done
  done
  [ "${BENCH_OWNERS:-1}" = 1 ] || continue
  run "n${n}_soa_fp64_host-pinned" --set grid.n="$n" --owner host --host-mem pinned --steps 10
  run "n${n}_soa_fp64_host-pageable" --set grid.n="$n" --owner host --host-mem pageable --steps 6
  run "n${n}_soa_fp64_managed-prefetch" --set grid.n="$n" --owner managed --prefetch on --steps 40
  run "n${n}_soa_fp64_managed-noprefetch" --set grid.n="$n" --owner managed --prefetch off --steps 40
done
rm -rf "$out/tmp"
