#!/usr/bin/env bash
# `cmake --install` into a temporary prefix, the prefix moved elsewhere, then the installed
# binary on an installed deck and a bench sweep plotted by the installed plot.py; without
# that plot.py, --plot is refused before any work rather than taken from the source tree.
#   tests/install_prefix.sh CMAKE BUILD_DIR PYTHON SOURCE_DIR
set -euo pipefail
cmake=$1 build=$2 python=$3 src=$4
if ! "$python" -c "import matplotlib" 2>/dev/null; then
  echo "SKIP: $python has no matplotlib (apt-get install python3-matplotlib)"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }
is_png() { [ "$(head -c 8 "$1" 2>/dev/null | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; }

"$cmake" --install "$build" --prefix "$work/first" >/dev/null
mv "$work/first" "$work/moved"
prefix=$work/moved

# What is installed: the program and h5compare in bin/, plot.py, every deck, the documentation.
[ "$(ls "$prefix/bin" | tr '\n' ' ')" = "h5compare halocline " ] ||
  fail "bin/ holds $(ls "$prefix/bin" | tr '\n' ' '), not h5compare and halocline alone"
[ -x "$prefix/share/halocline/plot.py" ] || fail "share/halocline/plot.py is not installed as a program"
decks=$(cd "$src/inputs" && ls ./*.toml) installed=$(cd "$prefix/share/halocline/inputs" && ls ./*.toml)
[ "$decks" = "$installed" ] || fail "decks installed: $installed; in inputs/: $decks"
for doc in README.md LICENSE CHANGELOG.md CITATION.cff docs/install.md docs/lab.md docs/release.md; do
  [ -s "$prefix/share/doc/halocline/$doc" ] || fail "share/doc/halocline/$doc is not installed"
done

# The installed binary on an installed deck, and its timeline by the installed plot.py.
"$prefix/bin/halocline" run "$prefix/share/halocline/inputs/sod.toml" --set grid.nx=64 --steps 5 \
  --out "$work/sod" --quiet >/dev/null
[ -s "$work/sod/report.json" ] || fail "the installed binary's run wrote no report.json"
"$python" "$prefix/share/halocline/plot.py" --report "$work/sod/report.json" --out "$work/sod/plots" >/dev/null
is_png "$work/sod/plots/timeline_soa_fp64_device_none.png" || fail "the installed plot.py drew no timeline"

# The installed h5compare: another layout's snapshot holds the same values; another size's does not.
"$prefix/bin/halocline" run "$prefix/share/halocline/inputs/sod.toml" --set grid.nx=64 --steps 5 --layout aos \
  --out "$work/sod-aos" --quiet >/dev/null
same=$("$prefix/bin/h5compare" "$work/sod/snapshot_0000.h5" "$work/sod-aos/snapshot_0000.h5") ||
  fail "the installed h5compare found the aos snapshot different: $same"
[ "$same" = "identical: 400 values" ] || fail "the installed h5compare said '$same', not 'identical: 400 values'"
"$prefix/bin/halocline" run "$prefix/share/halocline/inputs/sod.toml" --set grid.nx=32 --steps 5 \
  --out "$work/sod-32" --quiet >/dev/null
set +e
"$prefix/bin/h5compare" "$work/sod/snapshot_0000.h5" "$work/sod-32/snapshot_0000.h5" >/dev/null
code=$?
set -e
[ "$code" = 1 ] || fail "the installed h5compare exited $code on snapshots of 64 and 32 cells, not 1"

# bench --plot through the plot.py installed beside the binary.
"$prefix/bin/halocline" bench "$prefix/share/halocline/inputs/bench.toml" --set grid.n=8 \
  --sweep layout=aos,soa --repeat 1 --steps 2 --out "$work/bench" --plot --quiet >/dev/null
for name in bench_layout bench_all; do
  is_png "$work/bench/plots/$name.png" || fail "bench --plot drew no $name.png"
done

# Without it, --plot is refused (exit 2, naming the path) before the sweep writes anything.
rm "$prefix/share/halocline/plot.py"
set +e
err=$("$prefix/bin/halocline" bench "$prefix/share/halocline/inputs/bench.toml" --set grid.n=8 \
  --repeat 1 --steps 2 --out "$work/refused" --plot --quiet 2>&1 >/dev/null)
code=$?
set -e
[ "$code" = 2 ] || fail "bench --plot without plot.py exited $code, not 2"
case $err in
  *"--plot: no $prefix/share/halocline/plot.py beside this binary"*) ;;
  *) fail "the refusal does not name $prefix/share/halocline/plot.py: $err" ;;
esac
[ ! -e "$work/refused" ] || fail "the refused bench left $work/refused behind"

[ $status = 0 ] && echo "ok: installed into a prefix, moved, ran a deck and plotted a sweep from it"
exit $status
