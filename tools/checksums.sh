#!/usr/bin/env bash
# The final-state checksum of every deck in inputs/, in every layout and precision, on each
# backend given (default: the binary's default backend), after STEPS steps (default 20):
# one line "deck layout precision backend checksum" each. A refactor that must change no
# bit records this before and compares after (issue 16):
#   tools/checksums.sh build/bin/halocline > before.txt ... tools/checksums.sh ... | diff before.txt -
#   tools/checksums.sh BIN [STEPS] [BACKEND...]
set -euo pipefail
bin=$(realpath "$1")
steps=${2:-20}
shift $(( $# >= 2 ? 2 : 1 ))
backends=("$@")
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for deck in "$root"/inputs/*.toml; do
  for layout in aos soa aosoa; do
    for precision in fp64 fp32; do
      for backend in "${backends[@]:-default}"; do
        args=(run --no-probe --quiet "$deck" --steps "$steps" --layout "$layout" --precision "$precision"
              --set output.final=false --set output.interval=0 --out "$work/o")
        [ "$backend" = default ] || args+=(--backend "$backend")
        "$bin" "${args[@]}"
        sum=$(sed -n 's/.*"checksum": "\([0-9a-f]*\)".*/\1/p' "$work/o/report.json")
        echo "$(basename "$deck" .toml) $layout $precision $backend $sum"
        rm -rf "$work/o"
      done
    done
  done
done
