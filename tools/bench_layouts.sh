#!/usr/bin/env bash
# Compares the layouts on one machine in one run: bench.toml at N^3, each layout REPEAT
# times (interleaved, so slow drifts of the machine hit every layout alike), one warm-up run
# per layout excluded. Prints the median, min and max FOM (cell updates per second) per
# layout, and keeps every report under OUT.
#
#   tools/bench_layouts.sh [N=128] [REPEAT=5] [STEPS=10] [OUT=out/bench_layouts] [extra run args...]
set -euo pipefail
n=${1:-128}; repeat=${2:-5}; steps=${3:-10}; out=${4:-out/bench_layouts}
shift $(( $# < 4 ? $# : 4 )) || true
extra=("$@")
bin=${HALOCLINE:-build/bin/halocline}
layouts="aos soa aosoa"
mkdir -p "$out"

run() {  # layout tag
  "$bin" run inputs/bench.toml --set grid.n="$n" --steps "$steps" --layout "$1" \
    --out "$out" --report "$out/$1-$2.json" --quiet "${extra[@]}"
}
for l in $layouts; do run "$l" warmup; done
for r in $(seq 1 "$repeat"); do
  for l in $layouts; do run "$l" "$r"; done
done

fom() { grep -o '"cell_updates_per_s": [0-9.e+-]*' "$1" | awk '{print $2}'; }
checksum() { grep -o '"checksum": "[0-9a-f]*"' "$1" | cut -d'"' -f4; }
echo "bench.toml ${n}^3, ${steps} steps, ${repeat} repeats after 1 warm-up, $(date -u +%F), commit $(git rev-parse --short HEAD 2>/dev/null || echo none)"
echo "backend: $(grep -o '"backend_description": "[^"]*"' "$out/soa-1.json" | cut -d'"' -f4)"
printf '%-7s %14s %14s %14s %8s  %s\n' layout "median Mcell/s" "min" "max" "spread" checksum
for l in $layouts; do
  for r in $(seq 1 "$repeat"); do fom "$out/$l-$r.json"; done | sort -g | awk -v l="$l" -v c="$(checksum "$out/$l-1.json")" '
    { v[NR] = $1 / 1e6 }
    END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
          printf "%-7s %14.3f %14.3f %14.3f %7.1f%%  %s\n", l, m, v[1], v[NR], 100 * (v[NR] - v[1]) / m, c }'
done
