#!/usr/bin/env bash
# A checkpoint written by 4 ranks restarts on 1 and on 3 ranks (and a 1-rank one on 4),
# reaching the uninterrupted run's checksum bit for bit.
#   restart_ranks.sh HALOCLINE MPIEXEC DECK
set -euo pipefail
bin=$1 mpiexec=$2 deck=$3
source "$(dirname "$0")/common.sh"
sets=(--steps 12 --quiet --set grid.n=18 --set output.final=false --set checkpoint.every_steps=5)

"$bin" run --no-probe "$deck" "${sets[@]}" --out "$work/one"
"$mpiexec" --oversubscribe -n 4 "$bin" run --no-probe "$deck" "${sets[@]}" --ranks-grid 2,1,2 --out "$work/four"
ref=$(checksum "$work/one")
[ "$(checksum "$work/four")" = "$ref" ] || { echo "4 ranks differ from 1"; exit 1; }
status=0
for case in "1 four" "3 four" "4 one"; do
  read -r ranks from <<<"$case"
  out="$work/restart-$ranks-from-$from"
  "$mpiexec" --oversubscribe -n "$ranks" "$bin" run --no-probe "$deck" "${sets[@]}" --halo sync \
    --restart "$work/$from/checkpoint_00000005.h5" --out "$out"
  got=$(checksum "$out")
  if [ "$got" = "$ref" ]; then echo "ok   checkpoint of the $from-rank run, restarted on $ranks: $got"
  else echo "FAIL checkpoint of the $from-rank run, restarted on $ranks: $got, want $ref"; status=1; fi
done
exit $status
