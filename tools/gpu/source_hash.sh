#!/usr/bin/env bash
# A fingerprint of the sources that make the CPU reference states (no git needed: the GPU
# machine gets a bare copy), so that check.sh can tell whether prepare.sh's states match the
# code. The states come from the CPU (Kokkos) build, so the native HIP backend's own sources
# (kernels/hip/) are left out: a change there alone cannot change them, and must not make
# check.sh warn that they are stale.
cd "$(dirname "$0")/../.."
find app io kernels layouts base -type f \( -name '*.cpp' -o -name '*.hpp' \) -not -path 'kernels/hip/*' | LC_ALL=C sort |
  xargs sha256sum | sha256sum | cut -c1-16
