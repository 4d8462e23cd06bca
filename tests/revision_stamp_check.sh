#!/usr/bin/env bash
# tools/gpu/stamp.sh and tools/revision.cmake on a small repository made here: a copy whose
# git names an older commit than its files are (as the GPU machine's copy) is named by the
# stamp's commit; an edit after the stamp, or no stamp, leaves git's answer; a stamp made with
# uncommitted edits says the tree was modified.
#   tests/revision_stamp_check.sh SOURCE_DIR
set -euo pipefail
src=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
repo=$work/repo
mkdir -p "$repo/tools/gpu" "$repo/kernels"
cp "$src/tools/gpu/stamp.sh" "$repo/tools/gpu/"
cd "$repo"
git init -q && git config user.email t@example.org && git config user.name test
echo 'int a = 1;' > kernels/a.hpp && echo 'int b = 1;' > kernels/b.hpp
printf '/.gpu-deps/\n' > .gitignore
git add -A && git commit -qm older && older=$(git rev-parse --short=12 HEAD)
echo 'int b = 2;' > kernels/b.hpp
git commit -qam newer && newer=$(git rev-parse --short=12 HEAD)

status=0
named() {  # the commit and cleanliness the header says, given a stamp (or none)
  cmake -DSOURCE_DIR="$repo" -DSTAMP="$1" -DOUTPUT="$work/revision.hpp" -P "$src/tools/revision.cmake"
  sed -nE 's/.*kCommit = "([^"]*)".*/\1/p; s/.*kTreeClean = (true|false).*/\1/p' "$work/revision.hpp" | paste -sd' '
}
expect() {  # what, wanted, got
  if [ "$2" = "$3" ]; then echo "ok: $1: $3"; else echo "FAIL: $1: wanted '$2', got '$3'"; status=1; fi
}

tools/gpu/stamp.sh > /dev/null
git reset -q --soft HEAD~1  # git now names the older commit; the files are the newer one's
expect "stamp of the files' commit" "$newer true" "$(named .gpu-deps/revision)"
expect "no stamp: git's answer" "$older false" "$(named '')"
echo 'int a = 3;' > kernels/a.hpp
expect "a file edited after the stamp: git's answer" "$older false" "$(named .gpu-deps/revision)"
git reset -q --hard "$newer"
echo 'int a = 4;' > kernels/a.hpp
tools/gpu/stamp.sh > /dev/null
expect "a stamp made with an uncommitted edit" "$newer false" "$(named .gpu-deps/revision)"
exit $status
