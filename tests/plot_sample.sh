#!/usr/bin/env bash
# tools/plot.py on a recorded sample: the H200's bench sweep and probe (tests/data/h200/)
# and the timeline of a short run made here, each picture a real, non-empty PNG.
#   tests/plot_sample.sh HALOCLINE PYTHON SOURCE_DIR
set -euo pipefail
bin=$1 python=$2 src=$3
if ! "$python" -c "import matplotlib" 2>/dev/null; then
  echo "SKIP: $python has no matplotlib (apt-get install python3-matplotlib)"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$bin" run --no-probe "$src/inputs/bench.toml" --set grid.n=16 --steps 4 --halo overlap \
  --out "$work/run" --quiet
"$python" "$src/tools/plot.py" --bench "$src/tests/data/h200/bench.json" \
  --probe "$src/tests/data/h200/probe.json" --report "$work/run/report.json" --out "$work/plots"
status=0
for name in bench_layout bench_precision bench_all transfers timeline_soa_fp64_device_overlap; do
  f=$work/plots/$name.png
  if [ ! -f "$f" ]; then echo "FAIL: $name.png not written"; status=1; continue; fi
  size=$(stat -c %s "$f")
  magic=$(head -c 8 "$f" | od -An -tx1 | tr -d ' \n')
  if [ "$magic" != 89504e470d0a1a0a ] || [ "$size" -lt 10000 ]; then
    echo "FAIL: $name.png is not a PNG of a picture ($size bytes, magic $magic)"; status=1
  else
    echo "ok $name.png $size bytes"
  fi
done
exit $status
