#!/usr/bin/env bash
# `make plots` (dry run) teaches the memory lesson where a CPU can show it (docs/lab.md, "On
# a CPU"): one MPI rank per core, and a grid whose state, three fp64 arrays of
# (n+4)^3 x 5 values, is larger than the last-level cache this machine reports.
#   tests/make_plots.sh SOURCE_DIR HALOCLINE
set -euo pipefail
src=$1 bin=$2
# Not the settings of a make that runs this test (make test JOBS=1 passes JOBS down).
unset MAKEFLAGS MFLAGS MAKELEVEL
commands=$(make -n -s --no-print-directory -C "$src" plots)
bench=$(grep -A3 "halocline bench" <<<"$commands" | tr -d '\\\n')
status=0
ranks=$(sed -nE 's/.*mpirun -n ([0-9]+) .*/\1/p' <<<"$bench")
n=$(sed -nE 's/.*--set grid\.n=([0-9]+).*/\1/p' <<<"$bench")
cores=$(nproc)
[ "$ranks" = "$cores" ] || { echo "FAIL: make plots runs bench on '${ranks}' ranks, not one per core ($cores)"; status=1; }
if [ -z "$n" ]; then
  echo "FAIL: make plots sets no grid.n: $bench"; exit 1
fi
state=$((3 * (n + 4) * (n + 4) * (n + 4) * 40))
l3=$("$src/tools/llc_bytes.sh")
# The cache the Makefile sizes by is the one `halocline info` reports (getconf said 256 MiB
# where sysfs and info said 32 MiB on a virtual machine).
# Compared only where info's device is this CPU (the Kokkos backend in host memory); a binary
# without that backend (the GPU machine's HIP-only build: `--version` lists its backends) has
# nothing to compare.
info=
if "$bin" --version | grep -q '^backends:.*kokkos'; then
  info=$("$bin" info --backend kokkos | awk '$1 == "cache_bytes" { c = $2 } $1 == "kind" && $2 == "cpu" { cpu = 1 }
    END { if (cpu) print c }')
fi
if [ -n "$info" ] && [ "$info" != "$l3" ]; then
  echo "FAIL: tools/llc_bytes.sh says $l3 bytes, halocline info's cache_bytes $info"; status=1
fi
if [ -n "$l3" ] && [ "$l3" -gt 0 ]; then
  [ "$state" -gt "$l3" ] || { echo "FAIL: grid.n=$n: a state of $state bytes fits in the $l3-byte L3"; status=1; }
else
  [ "$n" -ge 128 ] || { echo "FAIL: grid.n=$n, below the 128 floor (no L3 size reported)"; status=1; }
fi
for part in "--sweep layout=aos,soa,aosoa" "--sweep precision=fp64,fp32" "--plot"; do
  grep -q -- "$part" <<<"$bench" || { echo "FAIL: make plots' bench lacks $part"; status=1; }
done
[ $status = 0 ] && echo "ok: make plots sweeps on $ranks ranks ($cores cores) at grid.n=$n: state $state bytes, L3 ${l3:-unknown}"
exit $status
