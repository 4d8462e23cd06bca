#!/usr/bin/env bash
# tools/gpu/stamp.sh and tools/revision.cmake on a small repository made here: a copy whose
# git names an older commit than its files are (as the GPU machine's copy) is named by the
# stamp's commit; an edit after the stamp, or no stamp, leaves git's answer; a stamp made with
# uncommitted edits says the tree was modified; a stamp cut short, or with a line it cannot
# read, leaves git's answer; a tracked file deleted does not stop stamp.sh; a tarball unpacked
# inside another repository is "unknown", not that repository's commit.
#   tests/revision_stamp_check.sh SOURCE_DIR [CMAKE]
set -euo pipefail
src=$1 cmake=${2:-cmake}
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1  # none of the user's settings (signing, hooks)
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
  "$cmake" -DSOURCE_DIR="$repo" -DSTAMP="$1" -DOUTPUT="$work/revision.hpp" -P "$src/tools/revision.cmake"
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
git checkout -q -- kernels/a.hpp
tools/gpu/stamp.sh > /dev/null
git reset -q --soft HEAD~1  # git names the older commit again
head -n -1 .gpu-deps/revision > "$work/short"
expect "a stamp cut short: git's answer" "$older false" "$(named "$work/short")"
{ cat .gpu-deps/revision; echo 'not a line of a stamp'; } > "$work/odd"
expect "a stamp with a line it cannot read: git's answer" "$older false" "$(named "$work/odd")"
expect "the whole stamp again" "$newer true" "$(named .gpu-deps/revision)"
git reset -q --soft "$newer"
rm kernels/b.hpp
if tools/gpu/stamp.sh > /dev/null; then
  expect "a stamp with a tracked file deleted" "$newer false" "$(named .gpu-deps/revision)"
else
  echo "FAIL: stamp.sh failed with a tracked file deleted"
  status=1
fi
# A tarball of the files unpacked inside that repository: git there names the outer
# repository's commit, which is not the files'.
mkdir "$repo/unpacked"
git -C "$repo" archive HEAD kernels | tar -x -C "$repo/unpacked"
"$cmake" -DSOURCE_DIR="$repo/unpacked" -DOUTPUT="$work/inner.hpp" -P "$src/tools/revision.cmake"
expect "a tarball unpacked inside another repository" "unknown false" \
  "$(sed -nE 's/.*kCommit = "([^"]*)".*/\1/p; s/.*kTreeClean = (true|false).*/\1/p' "$work/inner.hpp" | paste -sd' ')"
exit $status
