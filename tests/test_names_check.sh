#!/usr/bin/env bash
# tools/check_test_names.py on a small tree with a suite named after another file: it must
# fail and name the file, line and suite (the real tree's check is TestNames.SuitesMatchFiles).
#   test_names_check.sh PYTHON SOURCE_DIR
set -uo pipefail
python=$1 src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/tests"
printf 'TEST(ExactRiemann, A) {}\nTEST_P(ExactRiemannStar, B) {}\n' >"$work/tests/test_exact_riemann.cpp"
printf 'TEST(Deck, A) {}\n\nINSTANTIATE_TEST_SUITE_P(Cases, BadInput, x);\n' >"$work/tests/test_cli.cpp"
"$python" "$src/tools/check_test_names.py" "$work" >"$work/out"
code=$?
cat "$work/out"
expected=("tests/test_cli.cpp:1: suite Deck does not start with Cli"
          "tests/test_cli.cpp:3: suite BadInput does not start with Cli")
failures=0
[ "$code" = 1 ] || { echo "expected exit code 1, got $code"; failures=1; }
for line in "${expected[@]}"; do
  grep -qxF "$line" "$work/out" || { echo "missing: $line"; failures=1; }
done
[ "$(wc -l <"$work/out")" = 2 ] || { echo "expected exactly 2 lines"; failures=1; }
exit $failures
