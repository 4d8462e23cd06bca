#!/usr/bin/env bash
# A fingerprint of the solver's sources (no git needed: the GPU machine gets a bare copy),
# so that check.sh can tell whether prepare.sh's CPU reference states match the code.
cd "$(dirname "$0")/../.."
find app io kernels layouts -type f \( -name '*.cpp' -o -name '*.hpp' \) | LC_ALL=C sort |
  xargs sha256sum | sha256sum | cut -c1-16
