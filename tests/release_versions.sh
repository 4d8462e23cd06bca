#!/usr/bin/env bash
# The version is said the same way everywhere (docs/release.md): CMakeLists.txt's project(),
# CITATION.cff, `halocline --version`, and CHANGELOG.md has a section for it.
#   tests/release_versions.sh HALOCLINE SOURCE_DIR
set -euo pipefail
bin=$1 src=$2
cmake_version=$(sed -nE 's/^project\(Halocline VERSION ([0-9]+\.[0-9]+\.[0-9]+).*/\1/p' "$src/CMakeLists.txt")
citation_version=$(sed -nE 's/^version: *"?([^"]*)"?$/\1/p' "$src/CITATION.cff")
binary_version=$("$bin" --version | sed -nE '1s/^halocline ([^ ]+) .*/\1/p')
status=0
[ -n "$cmake_version" ] || { echo "FAIL: no project(Halocline VERSION X.Y.Z) in CMakeLists.txt"; exit 1; }
[ "$citation_version" = "$cmake_version" ] ||
  { echo "FAIL: CITATION.cff says $citation_version, CMakeLists.txt $cmake_version"; status=1; }
[ "$binary_version" = "$cmake_version" ] ||
  { echo "FAIL: halocline --version says $binary_version, CMakeLists.txt $cmake_version"; status=1; }
grep -q "^## $cmake_version (" "$src/CHANGELOG.md" ||
  { echo "FAIL: CHANGELOG.md has no '## $cmake_version (date)' section"; status=1; }
[ $status = 0 ] && echo "ok: version $cmake_version in CMakeLists.txt, CITATION.cff, --version and CHANGELOG.md"
exit $status
