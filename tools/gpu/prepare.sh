#!/usr/bin/env bash
# Run on the CPU machine before tools/gpu/check.sh goes to a GPU machine that has no
# package access. It puts into .gpu-deps/ (git-ignored; carried to the GPU machine):
#   root/      the header-only libraries the GPU machine lacks, from Debian's packages
#              (apt-get download + dpkg -x: nothing is installed here)
#   reference/ the CPU (Kokkos) backend's final states of short runs of every deck, which
#              the GPU tests compare with (tests/test_gpu.cpp, Gpu/GpuOnEachBackend.MatchesCpuKokkos)
#   revision   the commit these files are at (tools/gpu/stamp.sh: rerun it after each commit)
set -euo pipefail
cd "$(dirname "$0")/../.."
deps=.gpu-deps
rm -rf "$deps" && mkdir -p "$deps/debs" "$deps/root"

( cd "$deps/debs" && apt-get download libtomlplusplus-dev libcli11-dev nlohmann-json3-dev )
for deb in "$deps"/debs/*.deb; do dpkg -x "$deb" "$deps/root"; done
rm -rf "$deps/debs"

# The CPU reference states come from this machine's default build (Kokkos backend).
make build >/dev/null
HALOCLINE_WRITE_REFERENCE="$deps/reference" build/bin/halocline_tests \
  --gtest_filter=GpuReference.Write --gtest_brief=1
# The states depend on the code: record which code made them (check.sh compares).
tools/gpu/source_hash.sh > "$deps/reference/SOURCE"
# The commit these files are at, for the GPU machine's reports (run it again after a commit).
tools/gpu/stamp.sh
ls "$deps/reference"
du -sh "$deps"
