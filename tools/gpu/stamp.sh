#!/usr/bin/env bash
# Names the commit this checkout is at, for the builds on the GPU machine: the copy of the
# repository there keeps the git history the session started with, so git there names an
# older commit than the files are. Writes .gpu-deps/revision (carried with .gpu-deps/): the
# commit, whether no tracked file differed from it here, and the SHA-256 of each tracked file
# as it is here. tools/revision.cmake (given it by check.sh) names that commit only where every
# file there has that hash. Run it after the last commit before a device call (prepare.sh does).
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p .gpu-deps
clean=false
[ -z "$(git status --porcelain --untracked-files=no)" ] && clean=true
{
  echo "commit $(git rev-parse --short=12 HEAD)"
  echo "clean $clean"
  git ls-files -z | while IFS= read -r -d '' f; do [ -f "$f" ] && printf '%s\0' "$f"; done | xargs -0 sha256sum
} > .gpu-deps/revision.tmp
mv .gpu-deps/revision.tmp .gpu-deps/revision
echo "stamp.sh: .gpu-deps/revision names $(git rev-parse --short=12 HEAD) (clean: $clean)"
