#!/usr/bin/env sh
# The last-level cache of this machine's first CPU, in bytes, as `halocline info` reports it
# (cache_bytes: the highest cache level sysfs lists, kernels/kokkos/kokkos_backend.cpp), else
# getconf's LEVEL3_CACHE_SIZE, else 0. getconf can disagree with sysfs on a virtual machine (it
# said 256 MiB where sysfs, lscpu and `halocline info` said 32 MiB): `make plots` and its test
# size the grid from this one number.
bytes=0
for f in /sys/devices/system/cpu/cpu0/cache/index*/size; do
  [ -r "$f" ] || continue
  bytes=$(($(sed 's/K$/*1024/;s/M$/*1048576/' "$f")))
done
[ "$bytes" -gt 0 ] || bytes=$(getconf LEVEL3_CACHE_SIZE 2>/dev/null || echo 0)
echo "${bytes:-0}"
