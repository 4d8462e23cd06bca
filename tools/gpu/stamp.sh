#!/usr/bin/env bash
# Names the commit this checkout is at, for the builds on the GPU machine: the copy of the
# repository there keeps the git history the session started with, so git there names an
# older commit than the files are. Writes .gpu-deps/revision (carried with .gpu-deps/): the
# commit, whether no tracked file differed from it here, how many files follow, and the
# SHA-256 of each tracked file as it is here (a file deleted here is left out, and counts as
# an edit). tools/revision.cmake (given it by check.sh) names that commit only where every
# file there has that hash. Run it after the last commit before a device call (prepare.sh does).
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p .gpu-deps
tmp=.gpu-deps/revision.tmp
trap 'rm -f "$tmp"' EXIT
clean=false
[ -z "$(git status --porcelain --untracked-files=no)" ] && clean=true
hashes=$(git ls-files -z | while IFS= read -r -d '' f; do
  if [ -f "$f" ]; then printf '%s\0' "$f"; fi
done | xargs -0 -r sha256sum --)
{
  echo "commit $(git rev-parse --short=12 HEAD)"
  echo "clean $clean"
  echo "files $(grep -c . <<<"$hashes" || true)"
  [ -z "$hashes" ] || echo "$hashes"
} > "$tmp"
mv "$tmp" .gpu-deps/revision
echo "stamp.sh: .gpu-deps/revision names $(git rev-parse --short=12 HEAD) (clean: $clean)"
