#!/usr/bin/env bash
# `halocline verify` interrupted (SIGINT) in one of its runs: it ends at once with one line,
# "nothing was saved", and exit code 130, and leaves the output folder of the decks' default
# (./out) as it was: verification's runs write no checkpoint there, and prune none of the
# user's (before, a signal wrote one into ./out and deleted the oldest beyond checkpoint.keep).
#   verify_interrupted.sh HALOCLINE
set -uo pipefail
bin=$(realpath "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
mkdir out
for step in 1 2 3 4; do echo "the user's checkpoint $step" >"out/checkpoint_0000000$step.h5"; done
before=$(ls -l --time-style=+%s.%N out | sha256sum)
"$bin" verify >log 2>&1 &
pid=$!
# Into its runs: the first result line is printed once its first problem has run.
for _ in $(seq 1 600); do grep -q PASS log && break; kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
kill -INT "$pid"
wait "$pid"
code=$?
failures=0
[ "$code" = 130 ] || { echo "FAIL: exit $code, want 130"; failures=1; }
grep -q 'interrupted by signal 2; nothing was saved' log || { echo "FAIL: no line 'nothing was saved'"; failures=1; }
[ "$(ls -l --time-style=+%s.%N out | sha256sum)" = "$before" ] || { echo "FAIL: out/ changed:"; ls -l out; failures=1; }
tail -2 log
[ "$failures" = 0 ] && echo "ok: verify interrupted, out/ untouched"
exit $failures
