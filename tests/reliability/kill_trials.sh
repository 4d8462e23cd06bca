#!/usr/bin/env bash
# Crash safety of checkpoints. A checkpointing run is killed with SIGKILL at 20 moments
# drawn from a fixed seed (0-1 s after its first checkpoint); each time the newest
# checkpoint left behind must load, and the run restarted from it must reach the
# uninterrupted run's checksum bit for bit. Then
# SIGTERM, SIGINT and SIGHUP: the run finishes its step, writes a checkpoint and exits with
# 143, 130 or 129, and a restart from that checkpoint again reaches the same checksum. (SIGHUP
# only where this script was not started to ignore it, as under nohup: the run then ignores it
# too, and the trial is skipped, said in a line.)
#   kill_trials.sh HALOCLINE DECK [TRIALS=20]
set -uo pipefail
bin=$1 deck=$2 trials=${3:-20}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
RANDOM=20261130  # fixed seed: the same kill moments every time
# The runs are endless (no step limit, no end time in reach): a kill always lands in the
# loop however fast the machine (a GPU runs this grid's 1,100 steps to t = 1 in ~20 ms). Each restart runs 5 steps past its checkpoint and is compared with an
# uninterrupted run of as many steps.
sets=(--quiet --set grid.nx=96 --set grid.ny=96 --set output.final=false --set time.t_end=1e9)
endless=(--steps 1000000000)
ckpt=(--set checkpoint.every_steps=3 --set checkpoint.keep=2)
checksum() { sed -n 's/.*"checksum": "\([0-9a-f]*\)".*/\1/p' "$1/report.json"; }
newest() { ls "$1"/checkpoint_????????.h5 2>/dev/null | sort | tail -1; }
step_of() { local name=${1##*checkpoint_}; echo $((10#${name%.h5})); }
# Waits (up to 120 s) until run $2 has written its first checkpoint into $1: it is then in
# its step loop, however slowly this machine started it.
first_checkpoint() {
  for _ in $(seq 1 1200); do
    [ -n "$(newest "$1")" ] && return 0
    kill -0 "$2" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}
# Restarts from checkpoint $2 into $1/again for 5 more steps, runs the same number of steps
# without interruption into $1/ref, and says whether the two checksums agree.
restart_agrees() {
  local steps=$(( $(step_of "$2") + 5 ))
  "$bin" run --no-probe "$deck" "${sets[@]}" --steps "$steps" --restart "$2" --out "$1/again" || return 1
  "$bin" run --no-probe "$deck" "${sets[@]}" --steps "$steps" --out "$1/ref" || return 1
  [ "$(checksum "$1/again")" = "$(checksum "$1/ref")" ]
}

failures=0
for trial in $(seq 1 "$trials"); do
  out="$work/trial$trial"
  delay_ms=$((RANDOM % 1000))
  "$bin" run --no-probe "$deck" "${sets[@]}" "${endless[@]}" "${ckpt[@]}" --out "$out" &
  pid=$!
  first_checkpoint "$out" "$pid"
  sleep "$(printf '%d.%03d' $((delay_ms / 1000)) $((delay_ms % 1000)))"
  kill -KILL "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  file=$(newest "$out")
  if [ -z "$file" ]; then echo "FAIL trial $trial: no checkpoint"; failures=$((failures + 1)); continue; fi
  if restart_agrees "$out" "$file"; then
    echo "ok   trial $trial: killed $delay_ms ms after the first checkpoint; ${file##*/} restarts to the uninterrupted checksum"
  else
    echo "FAIL trial $trial: ${file##*/} did not restart to the uninterrupted checksum"; failures=$((failures + 1))
  fi
done
echo "$trials SIGKILL trials, $failures failed"

hup_ignored=$(( (16#$(sed -n 's/^SigIgn:\s*//p' /proc/$$/status) & 1) ))
for sig in TERM INT HUP; do
  if [ "$sig" = HUP ] && [ "$hup_ignored" = 1 ]; then echo "skip SIGHUP: this shell was started to ignore it"; continue; fi
  out="$work/sig$sig"
  "$bin" run --no-probe "$deck" "${sets[@]}" "${endless[@]}" --set checkpoint.every_steps=50 --out "$out" &
  pid=$!
  first_checkpoint "$out" "$pid"  # in the loop, handlers installed
  sleep 0.2
  kill -"$sig" "$pid"
  wait "$pid"
  code=$?
  case $sig in TERM) want=143 ;; INT) want=130 ;; HUP) want=129 ;; esac
  file=$(newest "$out")
  if [ "$code" != "$want" ] || [ -z "$file" ]; then
    echo "FAIL SIG$sig: exit $code (want $want), checkpoint '${file:-none}'"; failures=$((failures + 1)); continue
  fi
  if restart_agrees "$out" "$file"; then echo "ok   SIG$sig: exit $code, ${file##*/} restarts to the uninterrupted checksum"
  else echo "FAIL SIG$sig: ${file##*/} did not restart to the uninterrupted checksum"; failures=$((failures + 1)); fi
done
[ "$failures" = 0 ]
