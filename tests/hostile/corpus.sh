#!/usr/bin/env bash
# The hostile-input corpus (issue 15, docs/reliability.md): what a careless or hostile user
# does to the command line, decks, output paths, checkpoints, the disk and MPI jobs. Each
# case runs in an empty directory and asserts the exit code, the message, and what is left
# on disk: exactly the files named, every file that was there before unchanged.
#
#   corpus.sh HALOCLINE MPIEXEC H5ATTR SOURCE_DIR CASE     (MPIEXEC "none": no MPI cases)
#
# CMake registers one ctest per `case_NAME()` below (tests/CMakeLists.txt). Exit 0 pass,
# 1 fail, 77 skipped (the reason is printed).
set -uo pipefail
bin=$1 mpiexec=$2 h5attr=$3 src=$4 name=$5
source "$src/tests/mpi/common.sh"  # Open MPI's settings for CI, and $work, removed on exit
w=$work/w log=$work/log
mkdir -p "$w" "$log"
inputs=$src/inputs
python=${HALOCLINE_PLOT_PYTHON:-python3}
code=0 ms=0

# ---- Running ---------------------------------------------------------------------------

# run PROGRAM ARGS...: in $w, stdin closed, stdout and stderr to $log; sets $code and $ms.
run() {
  local t0=${EPOCHREALTIME/./}
  (cd "$w" && exec timeout 60 "$@" >"$log/out" 2>"$log/err" </dev/null)
  code=$?
  ms=$(( (${EPOCHREALTIME/./} - t0) / 1000 ))
}
hc() { run "$bin" "$@"; }
# mpi N ARGS...: halocline on N ranks (mpirun's MPMD form when ARGS holds ':').
mpi() {
  [ "$mpiexec" != none ] || skip "this build has no MPI"
  local n=$1
  shift
  run "$mpiexec" --oversubscribe -n "$n" "$@"
}

# ---- Checking ----------------------------------------------------------------------------

fail() {
  echo "FAIL $name: $*"
  echo "--- exit $code after $ms ms; stderr:"
  head -c 4000 "$log/err"
  exit 1
}
skip() {
  echo "SKIP $name: $*"
  exit 77
}
expect_exit() { [ "$code" = "$1" ] || fail "exit $code, expected $1"; }
expect_err() { grep -qF -- "$1" "$log/err" || fail "stderr lacks '$1'"; }
expect_no_err() { ! grep -qF -- "$1" "$log/err" || fail "stderr has '$1'"; }
# Exactly one line of Halocline's on stderr, of at most 700 bytes (MPI's launcher may add
# its own lines around it).
expect_one_line() {
  local lines
  lines=$(grep -c '^halocline: ' "$log/err")
  [ "$lines" = 1 ] || fail "$lines lines from halocline on stderr, expected 1"
  [ "$(grep '^halocline: ' "$log/err" | wc -c)" -le 701 ] || fail "the message is longer than 700 bytes"
  if [ "$mpiexec" = none ] || [ "${1:-}" != mpi ]; then
    [ "$(grep -c '' "$log/err")" = 1 ] || fail "stderr has more than the one line"
  fi
}
expect_fast() { [ "$ms" -lt "${1:-10000}" ] || fail "took $ms ms, more than ${1:-10000}"; }
# Refused: exit 2, one line holding MESSAGE, nothing new on disk.
expect_refused() {
  expect_exit 2
  expect_err "$1"
  expect_one_line "${2:-}"
  expect_left
}

# ready: records $w after a case's set-up; expect_left compares against it.
ready() {
  (cd "$w" && find . -mindepth 1 | sort) >"$log/before"
  (cd "$w" && find . -mindepth 1 -type f -print0 | xargs -0 -r md5sum) >"$log/sums"
}
# expect_left PATH...: the paths new in $w are exactly these (relative, no ./); the files
# that were there are all still there, unchanged.
expect_left() {
  (cd "$w" && find . -mindepth 1 | sort) >"$log/after"
  comm -13 "$log/before" "$log/after" | sed 's|^\./||' >"$log/new"
  printf '%s\n' "$@" | sed '/^$/d' | sort >"$log/want"
  diff -q "$log/want" "$log/new" >/dev/null ||
    fail "left on disk: [$(tr '\n' ' ' <"$log/new")], expected [$*]"
  [ -z "$(comm -23 "$log/before" "$log/after")" ] || fail "removed: $(comm -23 "$log/before" "$log/after" | tr '\n' ' ')"
  [ ! -s "$log/sums" ] || (cd "$w" && md5sum --quiet -c "$log/sums" >/dev/null 2>&1) ||
    fail "a file that was there changed"
}

checksum_of() { sed -n 's/.*"checksum": "\([0-9a-f]*\)".*/\1/p' "$w/$1"; }

# A small periodic problem, quick to run: deck.toml in $w.
small_deck() {
  sed -e 's/^n = 128/n = 12/' "$inputs/bench.toml" >"$w/deck.toml"
}
# A checkpoint of the small problem at step 4: ckpt/checkpoint_00000004.h5.
make_checkpoint() {
  small_deck
  hc run --no-probe deck.toml --quiet --out ckpt --set checkpoint.every_steps=4 --steps 4 "$@"
  [ "$code" = 0 ] || fail "could not make a checkpoint: exit $code"
  rm -f "$w/ckpt/report.json"
}
# Under a file-size limit (ulimit -f) Open MPI's start-up cannot make its shared-memory
# store; PMIX_MCA_gds=hash (in those cases) keeps it in memory.

# in_small_disk SIZE DIR PROGRAM...: runs PROGRAM in a new user and mount namespace where DIR is a
# tmpfs of SIZE (a full disk on demand); skips the case where the kernel does not allow it.
in_small_disk() {
  local size=$1 dir=$2
  shift 2
  unshare -rm true 2>/dev/null || skip "unshare -rm is not allowed here (no user namespaces): no small tmpfs"
  run unshare -rm sh -c 'size=$1 dir=$2; shift 2; mount -t tmpfs -o size="$size" tmpfs "$dir" && exec "$@"' \
    sh "$size" "$w/$dir" "$@"
}

# A command whose standard output cannot be written (a full disk under `> FILE`) says so and
# exits 4: compare's table, its whole result, and info's and verify's were lost with exit 0.
case_StandardOutputOnAFullDisk() {
  [ -w /dev/full ] || skip "no /dev/full"
  for command in info verify --help; do
    run sh -c '"$0" "$1" >/dev/full' "$bin" "$command"
    expect_exit 4
    expect_err "halocline: error: cannot write the standard output"
    expect_one_line
    # The reason where the last flush failed (verify's earlier writes failed, and stdio
    # keeps no reason of theirs).
    [ "$command" = verify ] || expect_err "cannot write the standard output: No space left on device"
  done
  run sh -c '"$0" info >&-' "$bin"  # closed
  expect_exit 4
  expect_err "halocline: error: cannot write the standard output: Bad file descriptor"
}

# ---- Decks and the command line ------------------------------------------------------------

case_MissingDeck() { ready; hc run nope.toml; expect_refused "cannot read deck 'nope.toml'"; }
case_DeckIsADirectory() { mkdir "$w/d"; ready; hc run d; expect_refused "cannot read deck 'd'"; }
case_DeckFromDevZero() { ready; hc run /dev/zero --out o; expect_refused "larger than 16 MiB"; }
case_DeckTooLarge() {
  head -c $((17 << 20)) /dev/zero | tr '\0' '#' >"$w/big.toml"
  ready
  hc run big.toml --out o
  expect_refused "deck 'big.toml' is larger than 16 MiB"
}
case_DeckBinaryGarbage() {
  head -c 4096 /dev/urandom >"$w/garbage.toml"
  ready
  hc run garbage.toml --out o
  expect_refused "garbage.toml"
}
case_ControlCharactersEscaped() {
  printf '[problem]\ntype = "\\u001b[31mred\\u0007"\n[grid]\nn = 4\n[time]\nt_end = 1\n' >"$w/deck.toml"
  ready
  hc run deck.toml --out o
  expect_refused "'problem.type'"
  ! grep -q $'\x1b' "$log/err" || fail "an escape character reached the terminal"
  expect_err '\x1b[31mred\x07'
}
case_NewlineInOverrideEscaped() {
  ready
  hc run "$inputs/sod.toml" --out o --set $'physics.limiter=mc\nhalocline: forged line'
  expect_refused "physics.limiter"
  expect_err '\n'
}
case_LongValueCut() {
  ready
  hc run "$inputs/sod.toml" --out o --set "physics.limiter=$(head -c 20000 /dev/zero | tr '\0' 'x')"
  expect_refused "..."
}
case_StepsZero() { ready; hc run "$inputs/sod.toml" --steps 0 --out o; expect_refused "--steps: must be >= 1 (got 0)"; }
case_StepsNegative() { ready; hc run "$inputs/sod.toml" --steps -3 --out o; expect_refused "--steps: must be >= 1 (got -3)"; }
case_StepsNotANumber() { ready; hc run "$inputs/sod.toml" --steps abc --out o; expect_refused "must be an integer >= 1 (got 'abc')"; }
case_StepsHuge() { ready; hc run "$inputs/sod.toml" --steps 99999999999999999999 --out o; expect_refused "--steps"; expect_no_err "179769"; }
case_RanksGridZero() { ready; hc run "$inputs/sod.toml" --ranks-grid 0,2,1 --out o; expect_refused "--ranks-grid: must be >= 1 (got 0)"; }
case_RestartEmpty() { ready; hc run "$inputs/sod.toml" --restart '' --out o; expect_refused "--restart: must not be empty"; }
case_OutEmpty() { ready; hc run "$inputs/sod.toml" --out ''; expect_refused "--out: must not be empty"; }
case_ReportEmpty() { ready; hc run "$inputs/sod.toml" --report '' --out o; expect_refused "--report: must not be empty"; }
case_OneCellGrid() { ready; hc run "$inputs/bench.toml" --set grid.n=1 --out o; expect_refused "the grid has one cell"; }
case_ZeroCellGrid() { ready; hc run "$inputs/bench.toml" --set grid.n=0 --out o; expect_refused "'grid.n' must be >= 1"; }
case_GammaNan() { ready; hc run "$inputs/sod.toml" --set physics.gamma=nan --out o; expect_refused "must be finite"; }
case_CflTooLarge() { ready; hc run "$inputs/sod.toml" --set physics.cfl=2 --out o; expect_refused "'physics.cfl' must be in (0, 1]"; }
case_EndTimeNegative() { ready; hc run "$inputs/sod.toml" --set time.t_end=-1 --out o; expect_refused "'time.t_end' must be > 0"; }
case_UnknownKey() { ready; hc run "$inputs/sod.toml" --set physics.cfll=0.3 --out o; expect_refused "unknown key 'physics.cfll'"; }
case_DeckWritesElsewhere() { ready; hc run "$inputs/sod.toml" --set output.dir=/tmp/elsewhere; expect_refused "relative path"; }
case_SnapshotIntervalTiny() {
  ready
  hc run "$inputs/sod.toml" --set output.interval=1e-300 --out o
  expect_refused "at most 10000 are allowed (output.interval >= 2e-05)"
}
# A step limit bounds the snapshots too (each after the first ends a step): bench.toml's t_end
# of 1e9 ("never") made any interval under 1e5 a refusal, though its runs take 20 steps.
case_SnapshotIntervalBoundByTheSteps() {
  hc run --no-probe "$inputs/bench.toml" --quiet --set grid.n=8 --set output.interval=1e-6 --steps 3 --out o
  expect_exit 0
  [ "$(ls "$w"/o/snapshot_*.h5 | wc -l)" = 4 ] || fail "snapshots: $(ls "$w"/o | tr '\n' ' ')"
  ready
  hc run --no-probe "$inputs/bench.toml" --set grid.n=8 --set output.interval=1e-6 --set time.max_steps=0 --out p
  expect_refused "at most 10000 are allowed"
  # A restart numbers its snapshots by the output times before its checkpoint: the bound
  # on t_end holds (a restart at t = 0.07 with an interval of 1e-300 counted them for ever,
  # deaf to SIGTERM).
  hc run --no-probe "$inputs/sod.toml" --quiet --set grid.nx=16 --set checkpoint.every_steps=2 --steps 2 --out r
  expect_exit 0
  ready
  hc run --no-probe "$inputs/sod.toml" --set grid.nx=16 --restart r/checkpoint_00000002.h5 \
    --set output.interval=1e-300 --set time.max_steps=4 --out r
  expect_refused "at most 10000 are allowed"
  expect_fast
}
case_CheckpointKeepHuge() { ready; hc run "$inputs/sod.toml" --set checkpoint.keep=100000 --out o; expect_refused "'checkpoint.keep' must be <= 10000"; }

# A choice without effect (host-mem with the managed owner) beside an owner model the backend
# refuses: one line, the refusal (a note that "the run goes on" came first).
case_ChoiceWithoutEffectBesideARefusedOwner() {
  ready
  hc run --no-probe "$inputs/bench.toml" --backend kokkos --owner managed --host-mem pageable --set grid.n=8 --out o
  [ "$code" = 0 ] && skip "the kokkos backend runs on a GPU here: the managed owner applies"
  expect_refused "error: "
  expect_no_err "the run goes on"
}

# An owner model the backend refuses is said before the memory check: the memory's advice
# named a grid that was then refused for the owner model.
case_OwnerRefusedBeforeMemory() {
  hc run --no-probe "$inputs/bench.toml" --backend kokkos --owner host --set grid.n=8 --steps 1 --out small
  [ "$code" = 0 ] && skip "the kokkos backend runs on a GPU here: the host owner applies"
  grep -q "not built into this binary" "$log/err" && skip "this build has no kokkos backend"
  ready
  hc run --no-probe "$inputs/bench.toml" --backend kokkos --owner host --set grid.n=5000 --out o
  expect_refused "the host owner model: the kokkos backend runs on"
  expect_no_err "largest grid"
}

# ---- Sizes and memory ------------------------------------------------------------------------

case_GridOverflowsSize() {
  ready
  hc run "$inputs/bench.toml" --set grid.n=2147483643 --out o
  expect_refused "bytes for the solver's arrays and buffers"
  expect_err "more than a process can address"
}
case_GridBeyondIntRefused() {
  ready
  hc run "$inputs/bench.toml" --set grid.n=2147483647 --out o
  expect_refused "must be <= 2147483643 (got 2147483647)"
}
case_GridOverflowsVector() { ready; hc run "$inputs/bench.toml" --set grid.n=2097148 --out o; expect_refused "more than a process can address"; }
# The host-memory cases ask for a final snapshot: the state then comes to the host on a GPU
# too (a GPU run without files holds no host copy, and its device refuses instead).
case_GridBeyondHostMemory() {
  ready
  hc run "$inputs/bench.toml" --set grid.n=8000 --set output.final=true --out o
  expect_refused "of host memory"
  expect_err "available"
  expect_err "the largest grid of this shape that fits: "
}
case_AddressSpaceLimit() {
  ready
  run sh -c 'ulimit -v 3000000 && exec "$0" run "$1" --set grid.n=500 --set output.final=true --out o' "$bin" "$inputs/bench.toml"
  grep -q AddressSanitizer "$log/err" && skip "a sanitized build cannot run under ulimit -v"
  # A GPU's runtime (Kokkos built for a GPU starts it before any deck is read; the HIP backend
  # when it checks the run's choices, before its memory) cannot start under this limit: refused
  # with exit 2 and the limit named, but with no grid to advise.
  grep -q "could not start" "$log/err" && expect_refused "ulimit -v leaves this process" &&
    skip "a GPU's runtime cannot start under ulimit -v 3000000"
  expect_refused "ulimit -v leaves this process"
  expect_err "the largest grid of this shape that fits: "
}

# A grid that fits a tight ulimit -v: the probe that measures the machine for the report
# sizes its arrays by what the limit leaves, rather than failing to allocate (it took a
# sixteenth of what Linux had available, and a run under the limit ended with exit 1 and
# Kokkos' allocation error).
case_AddressSpaceLimitLeavesRoomForTheRun() {
  ready
  run sh -c 'ulimit -v 300000 && exec "$0" run "$1" --set time.max_steps=2 --out o' "$bin" "$inputs/sod.toml"
  grep -q AddressSanitizer "$log/err" && skip "a sanitized build cannot run under ulimit -v"
  # Open MPI 4.1.6 on the GPU machine cannot start its threads under this limit at all (exit 1,
  # its own messages, before Halocline's code runs).
  grep -q "MPI_INIT failed" "$log/err" && skip "MPI itself cannot start under ulimit -v 300000 here"
  if [ "$code" = 2 ] && grep -q "could not start" "$log/err"; then
    expect_refused "ulimit -v leaves this process"
    skip "a GPU's runtime cannot start under ulimit -v 300000"
  fi
  expect_exit 0
  expect_no_err "failed to allocate"
  ls "$w"/o/probe-*.json >/dev/null 2>&1 || fail "no probe was cached in o/"
}

# ---- Output paths ----------------------------------------------------------------------------

case_ReportIsADirectory() { mkdir "$w/r"; ready; hc run "$inputs/sod.toml" --out o --report r; expect_refused "report 'r' exists and is a directory"; }
case_ReportIsTheOutputDirectory() { ready; hc run "$inputs/sod.toml" --out o --report o; expect_refused "report 'o' exists and is a directory"; }
case_ReportIsAFifo() { mkfifo "$w/f"; ready; hc run "$inputs/sod.toml" --out o --report f; expect_refused "is a FIFO"; }
case_ReportIsASymlink() {
  echo "precious" >"$w/precious.txt"
  ln -s precious.txt "$w/r.json"
  ready
  hc run "$inputs/sod.toml" --out o --report r.json
  expect_refused "is a symbolic link"
}
case_ReportIsADevice() { ready; hc run "$inputs/sod.toml" --out o --report /dev/null; expect_refused "is a character device"; }
# A file where a folder of the output path should be: refused before the work, not after it.
case_ReportUnderAFile() { echo x >"$w/f"; ready; hc run "$inputs/sod.toml" --out o --report f/r.json; expect_refused "'f' exists and is a file, not a directory"; }
case_BenchmarkRunFolderIsAFile() {
  mkdir -p "$w/n/runs" && echo x >"$w/n/runs/fp64"
  ready
  hc benchmark --size 32 --non-compliant --out n
  expect_refused "'n/runs/fp64' exists and is a file, not a directory"
  expect_fast
}
# Another JSON document, anyone's or another command's result, is not a run's report to write over.
case_ReportIsSomeonesJson() {
  echo '{"type": "object", "required": ["fom"]}' >"$w/schema.json"
  ready
  hc run "$inputs/sod.toml" --out o --report schema.json
  expect_refused "report 'schema.json' exists and is not a run's report"
}
case_ReportIsABenchmarkResult() {
  echo '{"compliant": true, "rules": {}, "configurations": []}' >"$w/benchmark.json"
  ready
  hc run "$inputs/sod.toml" --out o --report benchmark.json
  expect_refused "report 'benchmark.json' exists and is not a run's report"
}
case_ReportIsTheDeck() { cp "$inputs/sod.toml" "$w/deck.toml"; ready; hc run deck.toml --out o --report deck.toml; expect_refused "is the run's input"; }
case_ReportIsASnapshot() {
  hc run --no-probe "$inputs/sod.toml" --quiet --out first
  expect_exit 0
  ready
  hc run "$inputs/sod.toml" --out o --report first/snapshot_0000.h5
  expect_refused "is not a run's report"
}
case_OutIsAFile() { echo x >"$w/file"; ready; hc run "$inputs/sod.toml" --out file; expect_refused "'file' exists and is a file, not a directory"; }
case_OutUnderAFile() { echo x >"$w/file"; ready; hc run "$inputs/sod.toml" --out file/sub; expect_refused "'file' exists and is a file, not a directory"; }
case_SnapshotNameIsADirectory() {
  mkdir -p "$w/o/snapshot_0000.h5"
  ready
  hc run "$inputs/sod.toml" --out o
  expect_refused "holds 'snapshot_0000.h5', which is a directory"
}
# A file under one of the run's own names that no Halocline run wrote (someone's HDF5 data,
# notes, junk) is refused before any work: the run wrote over each, and called the junk
# "a checkpoint from an earlier run". An earlier run's own files are replaced (a note says so).
case_SomeonesHdf5UnderASnapshotName() {
  hc run --no-probe "$inputs/sod.toml" --quiet --set grid.nx=16 --out mine
  expect_exit 0
  mkdir "$w/o"
  cp "$w/mine/snapshot_0000.h5" "$w/o/snapshot_0000.h5"
  "$h5attr" "$w/o/snapshot_0000.h5" format someone-elses-data || fail "h5attr failed"
  ready
  hc run "$inputs/sod.toml" --out o
  expect_refused "output directory 'o' holds 'snapshot_0000.h5', which is not a Halocline snapshot: the run would write over it"
}
case_SomeonesNotesUnderTheSeriesName() {
  mkdir "$w/o"
  echo "notes" >"$w/o/snapshot.xmf"
  ready
  hc run "$inputs/sod.toml" --out o
  expect_refused "holds 'snapshot.xmf', which is not an XDMF file"
}
case_JunkUnderACheckpointName() {
  mkdir -p "$w/o/ck"
  echo "junk" >"$w/o/ck/checkpoint_00000010.h5"
  ready
  hc run "$inputs/sod.toml" --set checkpoint.every_steps=10 --set checkpoint.dir=ck --out o
  expect_refused "output directory 'o/ck' holds 'checkpoint_00000010.h5', which is not a Halocline checkpoint"
}
case_AnEarlierRunsFilesAreReplaced() {
  hc run --no-probe "$inputs/sod.toml" --quiet --set grid.nx=16 --set checkpoint.every_steps=5 --out o
  expect_exit 0
  hc run --no-probe "$inputs/sod.toml" --quiet --set grid.nx=16 --set checkpoint.every_steps=5 --out o
  expect_exit 0
}
case_SymlinkPlantedAtTemporaryName() {
  mkdir "$w/o"
  echo "precious" >"$w/precious.txt"
  ln -s ../precious.txt "$w/o/snapshot_0000.h5.tmp"
  ready
  hc run "$inputs/sod.toml" --out o
  expect_refused "holds 'snapshot_0000.h5.tmp', which is a symbolic link"
}
# wait_until PID WHAT TEST...: until TEST succeeds (every 0.05 s); after 10 s kills process
# PID and fails, saying WHAT did not happen.
wait_until() {
  local pid=$1 what=$2 waited=0
  shift 2
  until "$@"; do
    [ $waited -lt 200 ] || { kill -KILL "$pid" 2>/dev/null; fail "$what in 10 s"; }
    sleep 0.05
    waited=$((waited + 1))
  done
}
# wait_for_lock DIR PID: until process PID holds the lock of $w/DIR with its pid written in it.
wait_for_lock() { wait_until "$2" "pid $2 took no lock of $1/" test -s "$w/$1/.halocline.lock"; }
# refused_beside_a_running_run ARGS...: halocline ARGS while a run of the small problem holds
# the lock of o/ (its pid written in it; killed after), refused with exit 2 and one line
# naming the running run's pid.
refused_beside_a_running_run() {
  small_deck
  (cd "$w" && exec "$bin" run --no-probe deck.toml --quiet --out o --set time.max_steps=0 >/dev/null 2>&1) &
  local first=$!
  wait_for_lock o "$first"
  ready
  hc "$@"
  kill -KILL "$first" 2>/dev/null
  wait "$first" 2>/dev/null
  expect_exit 2
  expect_err "in use by pid $first"
  expect_one_line
}
case_SecondRunIntoALockedDirectory() {
  refused_beside_a_running_run run --no-probe deck.toml --out o --steps 2
  expect_err "output directory 'o' is in use by pid"
}
# An output directory inside a running run's: the line names each directory once.
case_RunInsideALockedDirectory() {
  refused_beside_a_running_run run --no-probe deck.toml --out o/inner --steps 2
  expect_err "output directory 'o/inner' lies inside the output directory '"
  expect_err "/o', in use by pid"
  expect_no_err "inside '"
}
case_ProbeIntoALockedDirectory() {
  refused_beside_a_running_run probe --quick --out o
  expect_err "output directory 'o' is in use by pid"
  [ -z "$(ls "$w"/o/probe-*.json 2>/dev/null)" ] || fail "the probe wrote into the running run's directory"
}
case_ProbeJsonIntoALockedDirectory() {
  refused_beside_a_running_run probe --quick --json o/p.json
  expect_err "--json directory 'o' lies in the output directory"
  [ ! -e "$w/o/p.json" ] || fail "the probe wrote into the running run's directory"
}
case_ProbeJsonIsItsOwnLock() {
  ready
  hc probe --quick --out p --json p/.halocline.lock
  expect_refused "'p/.halocline.lock' exists and is not a probe's result"
  [ ! -e "$w/p" ] || fail "the refused probe left its directory"
}
case_ProbeStoppedBySignalLeavesNoLock() {
  ready
  (cd "$w" && exec "$bin" probe --out p >"$log/out" 2>"$log/err") &
  local probe=$!
  wait_for_lock p "$probe"
  sleep 0.2
  kill -TERM "$probe"
  wait "$probe"
  code=$?
  expect_exit 143
  expect_err "probe: interrupted by signal 15; nothing was written"
  expect_one_line
  expect_left
}
# A signal during benchmark's verification (whose runs save nothing) ends it at once: it took
# neither its lock nor the directories it made along (a stale lock, cosmetic since the next
# run takes it over).
case_BenchmarkStoppedBySignalLeavesNoLock() {
  ready
  (cd "$w" && exec "$bin" benchmark --size 32 --non-compliant --out b/deep >"$log/out" 2>"$log/err") &
  local benchmark=$!
  wait_for_lock b/deep "$benchmark"
  wait_until "$benchmark" "its verification did not begin" grep -q "^benchmark: 32^3" "$log/err"
  ! grep -q "^benchmark: verify:" "$log/err" || fail "verification ended before the signal: no case"
  kill -INT "$benchmark"
  wait "$benchmark"
  code=$?
  expect_exit 130
  # Within verification's checks, or (on a GPU, which verifies in a blink) in one of its runs,
  # where the line names the step: "interrupted by signal 2 at step 0; nothing was saved".
  expect_err "halocline: interrupted by signal 2"
  expect_err "; nothing was saved"
  expect_left
}
# Nothing restarts a bench run: a signal ends it with nothing saved, no checkpoint left behind.
case_BenchStoppedBySignalLeavesNoCheckpoint() {
  small_deck
  ready
  (cd "$w" && exec "$bin" bench deck.toml --repeat 3 --steps 100000 --out q >"$log/out" 2>"$log/err") &
  local bench=$!
  wait_until "$bench" "its first configuration did not begin" grep -q "^bench: " "$log/err"
  sleep 0.5  # into the run's steps
  kill -INT "$bench"
  wait "$bench"
  code=$?
  expect_exit 130
  expect_err "halocline: interrupted by signal 2"
  expect_err "; nothing was saved"
  expect_left
}
# A sweep stopped in its second configuration keeps the first in bench.json and bench.csv,
# and its line says so (bench.csv was not written, and the line said "nothing was saved").
case_BenchStoppedBySignalKeepsWhatItFinished() {
  ready
  (cd "$w" && exec "$bin" bench "$inputs/bench.toml" --sweep grid.n=4,128 --repeat 1 --steps 3000 --out q \
    >"$log/out" 2>"$log/err") &
  local bench=$!
  wait_until "$bench" "its second configuration did not begin" grep -q "^bench: grid.n=128" "$log/err"
  sleep 0.5
  kill -INT "$bench"
  wait "$bench"
  code=$?
  [ "$code" = 0 ] && skip "the second configuration finished before the signal"
  expect_exit 130
  expect_err "halocline: interrupted by signal 2; q/bench.json and bench.csv keep the 1 configuration(s) done"
  expect_no_err "nothing was saved"
  grep -q '^4,ran,' "$w/q/bench.csv" || fail "bench.csv lacks grid.n=4's row"
  grep -q '"grid.n=4"' "$w/q/bench.json" || fail "bench.json lacks grid.n=4's row"
}
# A launcher passes a signal on to every rank (mpirun, srun): the bench's line is said once, by
# rank 0 (each rank said it before). The ranks get SIGTERM here straight, as a launcher sends it:
# mpirun's own handling of a SIGINT may kill them before any speaks on a loaded machine.
case_MpiBenchStoppedBySignalSaysOneLine() {
  [ "$mpiexec" != none ] || skip "this build has no MPI"
  ready
  (cd "$w" && exec timeout 60 "$mpiexec" --oversubscribe -n 2 "$bin" bench "$inputs/bench.toml" --sweep grid.n=4,128 \
    --repeat 1 --steps 300 --out q >"$log/out" 2>"$log/err" </dev/null) &
  local bench=$!
  wait_until "$bench" "its second configuration did not begin" grep -q "^bench: grid.n=128" "$log/err"
  sleep 0.2
  pkill -TERM -P "$(pgrep -P "$bench")"  # timeout's child is the launcher, whose children are the ranks
  wait "$bench"
  code=$?
  [ "$code" = 0 ] && skip "the second configuration finished before the signal"
  expect_exit 143
  local lines
  lines=$(grep -c '^halocline: interrupted by signal' "$log/err")
  [ "$lines" = 1 ] || fail "$lines lines saying the signal, expected 1"
  expect_err "halocline: interrupted by signal 15; q/bench.json and bench.csv keep the 1 configuration(s) done"
}
case_StaleLockTakenOver() {
  small_deck
  mkdir "$w/o"
  ready
  echo "pid 999999 on host elsewhere" >"$w/o/.halocline.lock"  # a lock nobody holds
  hc run --no-probe deck.toml --quiet --out o --steps 2
  expect_exit 0
  expect_err "was locked by pid 999999 on host elsewhere, which no longer runs; taking it over"
  [ ! -e "$w/o/.halocline.lock" ] || fail "the lock was not removed at the end"
  expect_left o/report.json
}
case_FourRunsIntoOneDirectory() {
  small_deck
  ready
  local pids=() codes=()
  for i in 1 2 3 4; do
    (cd "$w" && exec "$bin" run --no-probe deck.toml --quiet --out o --steps 200 >"$log/out$i" 2>"$log/err$i") &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p"; codes+=($?); done
  local ok=0 refused=0
  for c in "${codes[@]}"; do [ "$c" = 0 ] && ok=$((ok + 1)); [ "$c" = 2 ] && refused=$((refused + 1)); done
  cat "$log"/err? >"$log/err"
  # Each run either had the directory to itself or was refused before it wrote anything.
  [ $((ok + refused)) = 4 ] && [ "$ok" -ge 1 ] || fail "exit codes ${codes[*]}"
  [ "$refused" = 0 ] || expect_err "is in use by pid"
  expect_left o o/report.json
}
case_RefusedRunLeavesNoDirectory() {
  ready
  hc run "$inputs/bench.toml" --set grid.n=8000 --set output.final=true --out deep/er/out
  expect_refused "host memory"
}
case_ProbeJsonIsADirectory() { mkdir "$w/p"; ready; hc probe --quick --json p; expect_refused "--json 'p' exists and is a directory"; }
# Someone's files under the names of the probe's cache, bench's table and a sweep run's report
# (a hostile-input pass found each overwritten): refused before any work, each left as it was.
# probe_cache_name: the name of this binary's probe cache on its default backend and device
# (probe-BACKEND-DEVICE.json: probe-kokkos-Serial.json on the CPU build, the GPU's name with hip).
probe_cache_name() {
  "$bin" probe --quick --out "$work/learn" >/dev/null 2>&1 || fail "probe --quick failed"
  basename "$(ls "$work"/learn/probe-*.json)"
}
case_ProbeCacheIsNotJson() {
  local cache
  cache=$(probe_cache_name)
  mkdir -p "$w/o" && echo 'precious notes' >"$w/o/$cache"
  ready
  hc run "$inputs/sod.toml" --out o --steps 4
  expect_refused "'o/$cache' exists and is not a probe's result"
}
case_ProbeOutCacheIsNotJson() {
  local cache
  cache=$(probe_cache_name)
  mkdir -p "$w/p" && echo 'precious notes' >"$w/p/$cache"
  ready
  hc probe --quick --out p
  expect_refused "'p/$cache' exists and is not a probe's result"
}
# --plot replaces only the pictures plot.py drew: a link planted under a picture's name, or
# someone's file there, is refused before any work (the sweep ran, then plot.py wrote through
# the link, or over the file); so is a file where the folder goes (a traceback after the
# sweep). A folder with a quote in its name is drawn into (the shell's quoting broke).
plot_sweep() { hc bench "$inputs/bench.toml" --set grid.n=8 --sweep layout=aos,soa --repeat 1 --steps 1 --quiet --plot "$@"; }
case_BenchPlotThroughALink() {
  mkdir -p "$w/b/plots"
  echo precious >"$w/victim.txt"
  ln -s ../../victim.txt "$w/b/plots/bench_all.png"
  ready
  plot_sweep --out b
  expect_refused "--plot: 'b/plots/bench_all.png' is a symbolic link: plot.py replaces only the pictures it drew"
}
case_BenchPlotOverSomeonesFile() {
  mkdir -p "$w/b/plots"
  echo notes >"$w/b/plots/bench_layout.png"
  ready
  plot_sweep --out b
  expect_refused "--plot: 'b/plots/bench_layout.png' is not a PNG image"
}
case_BenchPlotFolderIsAFile() {
  mkdir -p "$w/b"
  echo notes >"$w/b/plots"
  ready
  plot_sweep --out b
  expect_refused "--plot: 'b/plots' exists and is not a directory"
}
case_BenchPlotIntoAFolderWithAQuote() {
  "$python" -c 'import matplotlib' 2>/dev/null || skip "no matplotlib"
  plot_sweep --out "it's"
  expect_exit 0
  [ -s "$w/it's/plots/bench_layout.png" ] || fail "no $w/it's/plots/bench_layout.png"
  plot_sweep --out "it's"  # again, over its own pictures
  expect_exit 0
}
# plot.py itself, run by hand or raced: a link that appears under a picture's name after the
# checks is still never written through (exit 2, one line).
case_PlotScriptNeverWritesThroughALink() {
  "$python" -c 'import matplotlib' 2>/dev/null || skip "no matplotlib"
  plot_sweep --out b
  expect_exit 0
  echo precious >"$w/victim.txt"
  rm "$w/b/plots/bench_layout.png"
  ln -s ../../victim.txt "$w/b/plots/bench_layout.png"
  run "$python" "$src/tools/plot.py" --bench b/bench.json --out b/plots
  expect_exit 2
  expect_err "plot.py: 'b/plots/bench_layout.png' is a symbolic link: only the pictures it drew are replaced"
  [ "$(cat "$w/victim.txt")" = precious ] || fail "the link's target was written"
  ! ls -a "$w/b/plots" | grep -q '\.tmp$' || fail "a temporary is left"
}

# The keys bench sets itself change nothing when given with --set: a note says so (they were
# dropped without a word, though --sweep refuses them).
case_BenchSaysWhichSetsChangeNothing() {
  hc bench "$inputs/bench.toml" --set grid.n=8 --set time.max_steps=3 --set checkpoint.every_steps=1 \
    --set time.max_steps=4 --repeat 1 --steps 1 --quiet --out b
  expect_exit 0
  expect_err "halocline: note: --set time.max_steps, checkpoint.every_steps have no effect on bench: each run takes"
  expect_one_line
}
case_BenchTableIsSomeonesCsv() {
  mkdir -p "$w/b" && echo 'precious,data' >"$w/b/bench.csv"
  bench_refused "bench output 'b/bench.csv' exists and is not a bench table" --sweep layout=aos,soa
}
case_BenchRunsFolderIsADanglingLink() {
  mkdir -p "$w/b" && ln -s nowhere "$w/b/runs"
  bench_refused "'b/runs' exists and is a symbolic link to no directory, not a directory" --sweep layout=aos,soa
}
case_BenchRunReportIsNotJson() {
  mkdir -p "$w/b/runs/1" && echo 'precious' >"$w/b/runs/1/report.json"
  bench_refused "bench run report 'b/runs/1/report.json' exists and is not a run's report" --sweep layout=aos,soa
}
case_BenchOutputIsADirectory() {
  mkdir -p "$w/b/bench.json"
  small_deck
  ready
  hc bench deck.toml --out b --sweep layout=aos,soa --repeat 1 --steps 1
  expect_refused "bench output 'b/bench.json' exists and is a directory"
}

# ---- Checkpoints and restarts --------------------------------------------------------------------

case_RestartMissing() { ready; hc run "$inputs/sod.toml" --restart nope.h5 --out o; expect_refused "checkpoint 'nope.h5' does not exist"; }
case_RestartNotHdf5() { echo "hello" >"$w/c.h5"; ready; hc run "$inputs/sod.toml" --restart c.h5 --out o; expect_refused "is not a readable HDF5 file"; }
case_RestartTruncated() {
  make_checkpoint
  head -c 3000 "$w/ckpt/checkpoint_00000004.h5" >"$w/cut.h5"
  ready
  hc run deck.toml --restart cut.h5 --out o
  expect_refused "checkpoint 'cut.h5'"
}
case_RestartOfAnotherProblem() {
  hc run --no-probe "$inputs/sedov.toml" --quiet --set grid.n=12 --out s --set checkpoint.every_steps=2 --steps 2
  expect_exit 0
  sed -e 's/^n = 128/n = 12/' -e 's/^\(xmin\|ymin\|zmin\).*//' "$inputs/bench.toml" >"$w/deck.toml"
  ready
  hc run deck.toml --restart s/checkpoint_00000002.h5 --out o --set grid.xmin=-0.5 --set grid.xmax=0.5 \
    --set grid.ymin=-0.5 --set grid.ymax=0.5 --set grid.zmin=-0.5 --set grid.zmax=0.5 --set boundary.all=outflow
  expect_refused "problem"
  expect_err "sedov"
}
case_RestartOfAnotherDomain() {
  make_checkpoint
  ready
  hc run deck.toml --restart ckpt/checkpoint_00000004.h5 --out o --set grid.xmax=2
  expect_refused "checkpoint 'ckpt/checkpoint_00000004.h5'"
}
case_RestartOfOtherBoundaries() {
  make_checkpoint
  ready
  hc run deck.toml --restart ckpt/checkpoint_00000004.h5 --out o --set boundary.all=outflow
  expect_refused "checkpoint 'ckpt/checkpoint_00000004.h5'"
  expect_err "outflow"
}
case_RestartOfOtherGamma() {
  make_checkpoint
  ready
  hc run deck.toml --restart ckpt/checkpoint_00000004.h5 --out o --set physics.gamma=1.6
  expect_refused "gamma"
}
case_RestartOfOtherPrecision() {
  make_checkpoint
  ready
  hc run deck.toml --restart ckpt/checkpoint_00000004.h5 --out o --precision fp32
  expect_refused "restart in the same precision"
}
tampered() {  # tampered ATTRIBUTE VALUE: a copy of the checkpoint with one attribute rewritten
  make_checkpoint
  cp "$w/ckpt/checkpoint_00000004.h5" "$w/t.h5"
  "$h5attr" "$w/t.h5" "$1" "$2" || fail "h5attr could not rewrite '$1'"
  ready
  hc run deck.toml --restart t.h5 --out o --quiet
  expect_refused "checkpoint 't.h5'"
}
case_RestartTimeNan() { tampered time nan; }
case_RestartTimeNegative() { tampered time -1; }
case_RestartTimeInfinite() { tampered time inf; }
case_RestartStepHuge() { tampered step 4611686018427387904; }
case_RestartStepNegative() { tampered step -5; }
case_RestartOldFormat() { tampered format_version 1; expect_err "format version 1"; }
case_RestartAtTheEnd() {
  make_checkpoint
  ready
  hc run deck.toml --restart ckpt/checkpoint_00000004.h5 --out o --set time.t_end=1e-12
  expect_refused "checkpoint 'ckpt/checkpoint_00000004.h5'"
  expect_err "t_end"
}
case_RestartIntoADirectoryWithNewerCheckpoints() {
  small_deck
  hc run --no-probe deck.toml --quiet --out ckpt --set checkpoint.every_steps=2 --set checkpoint.keep=3 --steps 6
  expect_exit 0
  ready
  hc run deck.toml --restart ckpt/checkpoint_00000002.h5 --out ckpt --set checkpoint.every_steps=2 --steps 6
  expect_refused "checkpoint_00000006.h5"
}

# ---- Failed writes: a full disk, a file-size limit ------------------------------------------

case_FullDiskDuringSnapshot() {
  mkdir "$w/full"
  ready
  in_small_disk 64k full "$bin" run --no-probe "$inputs/sedov.toml" --set grid.n=24 --set output.interval=0.01 --out full/o
  expect_exit 4
  expect_err "full/o/snapshot_"
  expect_err "No space left on device"
  expect_one_line
  expect_left  # the tmpfs is gone with its namespace: nothing of the run is outside it
}
case_FullDiskDuringCheckpoint() {
  mkdir "$w/full"
  cat >"$w/check.sh" <<'EOF'
set -u
bin=$1 deck=$2
"$bin" run --no-probe "$deck" --quiet --set checkpoint.every_steps=2 --set checkpoint.keep=50 \
  --set time.max_steps=400 --out full/o
echo "exit $?" >&2
# The newest checkpoint left must be whole: it restarts (into a directory off the full disk).
newest=$(ls full/o/checkpoint_*.h5 | sort | tail -1)
[ -n "$newest" ] || echo "no checkpoint is left" >&2
ls full/o/*.tmp 2>/dev/null && echo "a .tmp is left" >&2
step=${newest##*checkpoint_}
step=$((10#${step%.h5}))  # one step past it (--steps counts from the run's start)
"$bin" run --no-probe "$deck" --quiet --restart "$newest" --out o2 \
  --steps $((step + 1)) >/dev/null 2>&1 || echo "the newest checkpoint does not restart" >&2
EOF
  sed -e 's/^n = 128/n = 16/' "$inputs/bench.toml" >"$w/deck.toml"
  ready
  in_small_disk 1200k full sh "$w/check.sh" "$bin" "$w/deck.toml"
  expect_err "halocline: error: cannot write checkpoint 'full/o/checkpoint_"
  expect_err "No space left on device"
  expect_err "exit 4"
  expect_no_err ".tmp is left"
  expect_no_err "no checkpoint is left"
  expect_no_err "does not restart"
}
case_FileSizeLimitDuringSnapshot() {
  ready
  PMIX_MCA_gds=hash run sh -c 'ulimit -f 40 && exec "$0" run --no-probe "$1" --set grid.n=20 --out o' "$bin" "$inputs/sedov.toml"
  expect_exit 4
  expect_err "File too large"
  expect_one_line
  ! ls "$w"/o/*.tmp >/dev/null 2>&1 || fail "a .tmp is left"
  [ ! -e "$w/o/snapshot_0000.h5" ] || fail "a partial snapshot is under its final name"
}
# Three ranks writing one snapshot together (collective HDF5, where the build has it): a full disk
# hung them all, each rank in another collective call of HDF5's (a multi-rank trial, 2026-12-07).
case_MpiFullDiskDuringCollectiveSnapshot() {
  [ "$mpiexec" != none ] || skip "this build has no MPI"
  mkdir "$w/full"
  ready
  in_small_disk 200k full "$mpiexec" --oversubscribe -n 3 "$bin" run --no-probe "$inputs/kh.toml" --set grid.nx=32 \
    --set grid.ny=16 --steps 40 --set output.interval=0.001 --out full/o
  expect_exit 4
  expect_err "full/o/snapshot_"
  expect_err "No space left on device"
  expect_one_line mpi
  expect_left
}
# The limit leaves room for Open MPI's shared-memory segments (which a smaller one stops at
# MPI_Init) and none for the first snapshot of 96^3 cells (34 MiB).
case_MpiFileSizeLimitDuringCollectiveSnapshot() {
  [ "$mpiexec" != none ] || skip "this build has no MPI"
  ready
  PMIX_MCA_gds=hash run sh -c 'ulimit -f 40000 && exec "$0" --oversubscribe -n 3 "$1" run --no-probe "$2" \
    --set grid.n=96 --steps 1 --out o' "$mpiexec" "$bin" "$inputs/sedov.toml"
  expect_exit 4
  expect_err "File too large"
  expect_one_line mpi
  expect_left
}
case_SignalWhoseCheckpointFails() {
  small_deck
  sed -i 's/^n = 12/n = 24/' "$w/deck.toml"
  ready
  (cd "$w" && ulimit -f 64 && PMIX_MCA_gds=hash exec "$bin" run --no-probe deck.toml --quiet --set time.max_steps=0 --out o \
    >"$log/out" 2>"$log/err") &
  local pid=$!
  # Signal it once the run's own handler is in: 'run' installs it before it locks its
  # output directory (a GPU runtime's start can take seconds, and MPI's handler, in before
  # it, ends the process without a word).
  for _ in $(seq 1 600); do
    [ -e "$w/o/.halocline.lock" ] && break
    sleep 0.05
  done
  sleep 0.3
  kill -TERM "$pid"
  wait "$pid"
  code=$?
  expect_exit 143
  expect_err "interrupted by signal 15"
  expect_err "the checkpoint could not be written"
  expect_err "File too large"
  expect_one_line
}
case_FaultWhoseCheckpointFails() {
  ready
  # Two strong rarefactions at CFL 1 drive a pressure negative at step 1; the last good
  # state (step 0) does not fit under the file-size limit.
  PMIX_MCA_gds=hash run sh -c 'ulimit -f 64 && exec "$0" run --no-probe "$1" --set riemann.preset=custom --set riemann.left.u=-20 \
    --set riemann.right.u=20 --set riemann.left.p=0.01 --set riemann.right.p=0.01 --set physics.cfl=1 \
    --set grid.nx=2000 --set output.final=false --out o' "$bin" "$inputs/sod.toml"
  expect_exit 3
  expect_err "numerical failure"
  expect_err "could not be saved"
  expect_one_line
}
# Cells so large that the CFL step reaches 1e300: refused at step 0 as bad input (exit 2,
# it was a numerical failure, exit 3), with the rate and the step at any scale (it said "max
# signal rate 0.000000").
case_DomainTooLargeForItsSpeeds() {
  ready
  hc run --no-probe "$inputs/sod.toml" --set grid.xmax=1e308 --out o
  expect_exit 2
  expect_err "error: the deck's initial state cannot be run: "
  expect_err "step 0, t = 0: no valid time step (max signal rate 1.35462e-306: a step of cfl / rate = 2.95285e+305"
  expect_err "the domain's cells are too large for its speeds"
  expect_one_line
}

# An initial state that cannot make its first step (a speed that swamps the pressure) is
# refused before snapshot 0 is written: exit 2 left a snapshot of NaNs and its series behind.
case_UnrunnableInitialStateWritesNoSnapshot() {
  ready
  hc run --no-probe "$inputs/sod.toml" --set riemann.preset=custom --set riemann.left.u=1e200 \
    --set output.interval=0.05 --out o
  expect_refused "error: the deck's initial state cannot be run: step 0, t = 0"
}

# ---- MPI: decomposition, ranks that disagree, ranks that fail ------------------------------

# A numerical fault names the first bad cell of the whole grid on any decomposition: each
# rank looks through its own slabs (rank 0 gathered the whole state, which a large run per
# rank could not hold), and the earliest of the ranks' is said. Two strong rarefactions drive
# the pressure negative at step 1 in the middle cells: along x on 3 ranks the first is rank
# 1's; along y, split in x on 2 ranks, both ranks have one and rank 0's comes first.
fault_cell() {
  local out=$1 n=$2
  shift 2
  mpi "$n" "$bin" run --no-probe "$inputs/sod.toml" --set riemann.preset=custom --set riemann.left.u=-20 \
    --set riemann.right.u=20 --set riemann.left.p=0.01 --set riemann.right.p=0.01 --set physics.cfl=1 \
    --set output.final=false --out "$out" "$@"
  expect_exit 3
  expect_err "numerical failure: step 1"
  expect_one_line mpi
  grep -o 'first bad cell [^;]*' "$log/err" >"$w/$out.cell"
}
case_MpiFaultNamesTheFirstBadCellOfTheWholeGrid() {
  fault_cell x1 1 --set grid.nx=60
  fault_cell x3 3 --set grid.nx=60
  fault_cell y1 1 --set grid.nx=4 --set grid.ny=60 --set riemann.direction=y
  fault_cell y2 2 --set grid.nx=4 --set grid.ny=60 --set riemann.direction=y --ranks-grid 2,1,1
  cmp -s "$w/x1.cell" "$w/x3.cell" || fail "3 ranks said '$(cat "$w/x3.cell")', 1 rank '$(cat "$w/x1.cell")'"
  cmp -s "$w/y1.cell" "$w/y2.cell" || fail "2 ranks said '$(cat "$w/y2.cell")', 1 rank '$(cat "$w/y1.cell")'"
  grep -qF "first bad cell (i, j, k) = (30, 0, 0) of the whole grid: " "$w/x1.cell" || fail "x: $(cat "$w/x1.cell")"
  grep -qF "first bad cell (i, j, k) = (0, 30, 0) of the whole grid: " "$w/y1.cell" || fail "y: $(cat "$w/y1.cell")"
}
case_MpiThinSubdomainSteered() {
  hc run --no-probe "$inputs/sedov.toml" --quiet --set grid.nx=16 --set grid.ny=16 --set grid.nz=3 --out one
  expect_exit 0
  mpi 2 "$bin" run --no-probe "$inputs/sedov.toml" --quiet --set grid.nx=16 --set grid.ny=16 --set grid.nz=3 --out two
  expect_exit 0
  expect_fast
  [ "$(checksum_of one/report.json)" = "$(checksum_of two/report.json)" ] ||
    fail "2 ranks gave $(checksum_of two/report.json), 1 rank $(checksum_of one/report.json)"
}
case_MpiThinSubdomainRefused() {
  ready
  mpi 2 "$bin" run "$inputs/sedov.toml" --set grid.nz=3 --ranks-grid 1,1,2 --out o
  expect_refused "splits z (3 cells) among 2 ranks, leaving a rank 1 cell(s)" mpi
  expect_fast
}
case_MpiNoGridFits() {
  ready
  mpi 3 "$bin" run "$inputs/bench.toml" --set grid.n=4 --out o
  expect_refused "cannot split the domain of 4,4,4 cells among 3 ranks" mpi
  expect_fast
}
case_MpiRanksWithDifferentDecks() {
  ready
  mpi 1 "$bin" run "$inputs/sedov.toml" --set grid.n=12 --out o : -n 1 "$bin" run "$inputs/sedov.toml" \
    --set grid.n=12 --set physics.gamma=1.6 --out o
  expect_refused "rank 1: error: this rank differs from rank 0 in its settings: physics.gamma" mpi
  expect_fast
}
case_MpiRankWithAnotherGrid() {
  ready
  mpi 2 "$bin" run "$inputs/sedov.toml" --set grid.n=12 --out o : -n 1 "$bin" run "$inputs/sedov.toml" \
    --set grid.n=14 --out o
  expect_refused "rank 2: error: this rank differs from rank 0 in its settings: grid.n" mpi
  expect_fast
}
# benchmark's ranks must agree on its options: another size on one rank corrupted memory in
# the gather (SIGABRT, exit 134) and left the lock behind.
case_MpiBenchmarkRanksWithOtherSizes() {
  ready
  mpi 1 "$bin" benchmark --size 24 --non-compliant --out o : -n 1 "$bin" benchmark --size 16 --non-compliant --out o
  expect_refused "rank 1: error: this rank differs from rank 0 in its benchmark options: size (16 here, 24 on rank 0)" mpi
  expect_fast
}
case_MpiRankCannotReadTheDeck() {
  ready
  mpi 1 "$bin" run "$inputs/sod.toml" --out o : -n 1 "$bin" run nope.toml --out o
  expect_refused "rank 1: error: cannot read deck 'nope.toml'" mpi
  expect_fast
}
case_MpiRankMissingTheRestartFile() {
  # One configuration, but the third rank starts elsewhere (a node that does not see the
  # file): its --restart names nothing.
  make_checkpoint
  mkdir "$w/elsewhere"
  ready
  mpi 2 -wdir "$w" "$bin" run deck.toml --restart ckpt/checkpoint_00000004.h5 --out o : -n 1 -wdir "$w/elsewhere" \
    "$bin" run "$w/deck.toml" --restart ckpt/checkpoint_00000004.h5 --out o
  expect_refused "rank 2: error: " mpi
  expect_err "checkpoint 'ckpt/checkpoint_00000004.h5' does not exist"
  expect_fast
}
case_MpiBadDeckSaidOnce() {
  ready
  mpi 3 "$bin" run "$inputs/sod.toml" --set physics.cfl=7 --out o
  expect_refused "'physics.cfl' must be in (0, 1]" mpi
  expect_no_err "rank "
  expect_fast
}
# A command-line mistake that the parser itself refuses on every rank: each rank said it, two
# of them often on one line (a multi-rank trial, 2026-12-07).
case_MpiCommandLineMistakeSaidOnce() {
  ready
  mpi 4 "$bin" run "$inputs/sod.toml" --steps 0 --out o
  expect_refused "error: --steps: must be >= 1 (got 0)" mpi
  expect_no_err "rank "
  expect_fast
}
# A check that rank 0 makes for the job (the files only it writes) is the job's: its line named
# rank 0 as if one rank had failed (a multi-rank trial, 2026-12-07).
case_MpiOutputRefusedNamesNoRank() {
  echo "notes" > "$w/report.json"
  ready
  mpi 2 "$bin" run "$inputs/sod.toml" --report report.json --out o
  expect_refused "halocline: error: report 'report.json' exists and is not a run's report" mpi
  expect_no_err "rank "
  expect_fast
}
case_MpiMemoryRefused() {
  ready
  mpi 2 "$bin" run "$inputs/bench.toml" --set grid.n=8000 --set output.final=true --out o
  expect_refused "of host memory" mpi
  expect_fast
}
case_MpiRestartOfAnotherProblem() {
  hc run --no-probe "$inputs/sedov.toml" --quiet --set grid.n=12 --out s --set checkpoint.every_steps=2 --steps 2
  expect_exit 0
  ready
  mpi 3 "$bin" run "$inputs/bench.toml" --set grid.n=12 --restart s/checkpoint_00000002.h5 --out o
  expect_refused "checkpoint 's/checkpoint_00000002.h5'" mpi
  expect_fast
}
case_MpiHaloNone() {
  ready
  mpi 2 "$bin" run "$inputs/bench.toml" --set grid.n=12 --halo none --out o
  expect_refused "--halo none needs one rank" mpi
  expect_fast
}

case_MpiRankFailsMidRun() {
  # Rank 0 gathers and writes the snapshots alone (output.collective = false); the disk
  # fills at a later one, while the other rank goes on to the next step's exchange.
  [ "$mpiexec" != none ] || skip "this build has no MPI"
  mkdir "$w/full"
  ready
  in_small_disk 300k full "$mpiexec" --oversubscribe -n 2 "$bin" run --no-probe "$inputs/sedov.toml" --quiet \
    --set grid.n=16 --set output.interval=0.002 --set output.collective=false --out full/o
  expect_exit 4
  expect_err "halocline: rank 0: error: cannot write snapshot 'full/o/snapshot_"
  expect_err "No space left on device"
  expect_one_line mpi
  expect_fast
}

# ---- bench -----------------------------------------------------------------------------------

bench_refused() {  # bench_refused MESSAGE SWEEP-ARGS...
  local want=$1
  shift
  small_deck
  ready
  hc bench deck.toml --out b --repeat 1 --steps 1 "$@"
  expect_refused "$want"
}
case_BenchKeyUnderTwoNames() { bench_refused "--sweep layout is given twice" --sweep layout=aos --sweep run.layout=soa; }
case_BenchHostMemUnderTwoNames() { bench_refused "--sweep host-mem is given twice" --sweep host_mem=pinned --sweep host-mem=pageable; }
case_BenchValueRepeated() { bench_refused "the value 'aos' is given twice" --sweep layout=aos,soa,aos; }
case_BenchValueUnderTwoSpellings() { bench_refused "run the same configuration" --sweep physics.cfl=0.5,0.50; }
# `auto` beside what it picks here (a new-user trial, 2026-12-06: "halo=none 1.08 x halo=auto",
# the same run twice): one rank's halo is none; kernels, fused or split by grid and backend.
case_BenchAutoBesideWhatItPicks() { bench_refused "'auto' beside what it picks here" --sweep halo=auto,none; }
case_BenchKernelsAutoBesideBoth() { bench_refused "run the same configuration" --sweep kernels=split,fused,auto; }
# Keys bench sets itself (its step count, no checkpoints, its own folders): rows that differ
# only there ran the same and were reported as different (a speedup of noise).
case_BenchSweepOfAKeyBenchSets() { bench_refused "a key bench sets itself" --sweep time.max_steps=1,2; }
case_BenchSweepOfCheckpoints() { bench_refused "a key bench sets itself" --sweep checkpoint.every_steps=1,2; }
# One value of such a key named every row by a setting that had no effect (time.max_steps=100
# over runs of 5 steps), with no note: a sweep of it is refused whatever its values.
case_BenchSweepOfOneValueBenchSets() { bench_refused "--sweep time.max_steps: a key bench sets itself" --sweep time.max_steps=100; }
# Spaces around the key are TOML's (the row was labelled 'time.max_steps =100' and ran).
case_BenchSweepOfAKeyWithSpaces() { bench_refused "--sweep time.max_steps: a key bench sets itself" --sweep 'time.max_steps =100'; }
case_BenchSweepOfOneOutputKey() { bench_refused "--sweep output.final: a key bench sets itself" --sweep output.final=true; }
case_BenchSweepOfAnUnknownLayout() { bench_refused "--sweep layout: must be one of aos, soa, aosoa (got 'xyz')" --sweep layout=aos,xyz; }
# An empty pair was accepted in --baseline (a comma too many, or the option given empty), where
# --sweep refuses an empty value.
case_BenchBaselineTrailingComma() { bench_refused "--baseline 'layout=soa,': an empty key=value" --sweep layout=aos,soa --baseline 'layout=soa,'; }
case_BenchBaselineEmpty() { bench_refused "--baseline: must not be empty" --sweep layout=aos,soa --baseline ''; }
case_BenchBaselineKeyTwice() { bench_refused "'layout' is given twice" --sweep layout=aos,soa --baseline layout=aos,run.layout=soa; }
case_BenchRepeatZero() { small_deck; ready; hc bench deck.toml --out b --repeat 0; expect_refused "--repeat: must be >= 1 (got 0)"; }
# Beyond its int, and beyond any 64-bit integer: CLI11 said "Could not convert: --repeat = ...".
case_BenchRepeatBeyondAnInt() {
  small_deck
  ready
  hc bench deck.toml --out b --repeat 99999999999
  expect_refused "--repeat: must be at most 2147483647 (got 99999999999)"
  hc bench deck.toml --out b --repeat 99999999999999999999999
  expect_refused "--repeat: must be at most 2147483647 (got 99999999999999999999999)"
}

# ---- Found by a hostile review (2026-12-01) ----------------------------------------------------

case_DeckIsAFifo() { mkfifo "$w/f"; ready; hc run f --out o; expect_refused "deck 'f' gave no data for 10 s"; }
case_RestartIsAFifo() { mkfifo "$w/f"; ready; hc run "$inputs/sod.toml" --restart f --out o; expect_refused "checkpoint 'f' is not a regular file"; }
case_DomainExtentInfinite() {
  ready
  hc run "$inputs/sod.toml" --set grid.xmin=-1e308 --set grid.xmax=1e308 --out o
  expect_refused "the extent must be finite"
}
case_DomainCellsTooSmall() {
  ready
  hc run "$inputs/sod.toml" --set grid.xmin=1 --set grid.xmax=1.000000000000001 --out o
  expect_refused "each cell at least 1e-12 of the coordinates' size"
}
case_ParseErrorWithANewline() { ready; hc run "$inputs/sod.toml" --steps $'1\n2' --out o; expect_refused "--steps"; }
case_ProbeJsonNamesADirectory() { ready; hc probe --quick --json newdir/; expect_refused "must name a file"; }
case_ProbeDeviceOption() {
  ready
  hc probe --quick --device 0 --json p.json
  expect_exit 0
  expect_left p.json
}
# A device index the backend does not have was measured as another device (or ignored).
case_ProbeDeviceBeyondTheMachine() {
  ready
  hc probe --quick --device 4096 --json p.json
  expect_refused "probe --device 4096: the "
  expect_err " device"
}
# A lock file that no run wrote (a forged one with control characters; a deck saved under its
# name) is not taken over, which would write it: refused, the file as it was.
case_StaleLockWithControlCharacters() {
  small_deck
  mkdir "$w/o"
  printf 'pid 1\x1b[2J\nforged line\n' >"$w/o/.halocline.lock"
  ready
  hc run --no-probe deck.toml --quiet --out o --steps 2
  expect_refused "which is not a lock file of Halocline's"
  ! grep -q $'\x1b' "$log/err" || fail "an escape character reached the terminal"
}
case_DeckSavedAsTheLockFile() {
  small_deck
  mkdir "$w/o"
  cp "$w/deck.toml" "$w/o/.halocline.lock"
  ready
  hc run --no-probe o/.halocline.lock --quiet --out o --steps 2
  expect_refused "remove it or choose another --out"
}
# (An end within reach: at 100^3 bench.toml's t_end is 1e12 steps away, which a run on a GPU,
# past its set-up before the signal comes, refused with exit 2.)
case_SignalDuringSetUp() {
  small_deck
  ready
  (cd "$w" && exec "$bin" run --no-probe deck.toml --quiet --set grid.n=100 --set time.max_steps=0 \
    --set time.t_end=1e6 --out o \
    >"$log/out" 2>"$log/err") &
  local pid=$!
  for _ in $(seq 1 200); do [ -e "$w/o/.halocline.lock" ] && break; sleep 0.01; done
  kill -TERM "$pid"
  wait "$pid"
  code=$?
  expect_exit 143
  expect_err "interrupted by signal 15"
  [ ! -e "$w/o/.halocline.lock" ] || fail "the lock was left"
}
# A signal while MPI starts (it can take a second; a process started alone): one line, as
# later. Before main() itself nothing can speak, so a silent end at the first, shortest delay
# is tried again later; by 0.3 s the process is in MPI's start or past it.
case_SignalWhileMpiStarts() {
  small_deck
  ready
  for delay in 0.1 0.2 0.3; do
    (cd "$w" && exec "$bin" run --no-probe deck.toml --quiet --set time.max_steps=0 --out o \
      >"$log/out" 2>"$log/err") &
    local pid=$!
    sleep "$delay"
    kill -TERM "$pid"
    wait "$pid"
    code=$?
    grep -q '^halocline: ' "$log/err" && break
  done
  expect_exit 143
  expect_err "halocline: interrupted by signal 15"
  expect_one_line mpi  # Open MPI's singleton helper may add a line of its own
}
case_OutputInsideARunningRun() {
  small_deck
  (cd "$w" && exec "$bin" run --no-probe deck.toml --quiet --out A --set time.max_steps=0 >/dev/null 2>&1) &
  local first=$!
  for _ in $(seq 1 100); do [ -e "$w/A/.halocline.lock" ] && break; sleep 0.05; done
  ready
  hc run --no-probe deck.toml --out A/sub --steps 2
  local nested=$code
  hc run --no-probe deck.toml --out B --report A/report.json --steps 2
  local report=$code
  hc run --no-probe deck.toml --out B --set checkpoint.dir=../A --steps 2
  kill -KILL "$first" 2>/dev/null
  wait "$first" 2>/dev/null
  [ "$nested" = 2 ] || fail "--out inside a running run's directory: exit $nested"
  [ "$report" = 2 ] || fail "--report into a running run's directory: exit $report"
  expect_exit 2  # the deck may not name ../A either way
}
case_CheckpointDirOfARunningRun() {
  small_deck
  (cd "$w" && exec "$bin" run --no-probe deck.toml --quiet --out A --set time.max_steps=0 >/dev/null 2>&1) &
  local first=$!
  for _ in $(seq 1 100); do [ -e "$w/A/.halocline.lock" ] && break; sleep 0.05; done
  ready
  hc run --no-probe deck.toml --out . --set checkpoint.dir=A --set checkpoint.every_steps=1 --steps 2
  kill -KILL "$first" 2>/dev/null
  wait "$first" 2>/dev/null
  expect_exit 2
  expect_err "checkpoint directory"
  expect_err "in use by pid $first"
}
case_RestartKeepsEarlierSnapshots() {
  small_deck
  hc run --no-probe deck.toml --quiet --out c --set output.interval=0.05 --set time.t_end=0.2 --set time.max_steps=0 \
    --set checkpoint.every_steps=2 --set checkpoint.keep=1
  expect_exit 0
  local newest early
  newest=$(ls "$w"/c/checkpoint_*.h5 | sort | tail -1)
  early=$(md5sum "$w/c/snapshot_0000.h5" "$w/c/snapshot_0001.h5")
  hc run --no-probe deck.toml --quiet --out c --set output.interval=0.05 --set time.t_end=0.4 --set time.max_steps=0 \
    --restart "$newest"
  expect_exit 0
  # The snapshots before the checkpoint's time are the first run's, untouched; the new ones
  # go on with the numbering (t = 0.4 is snapshot 8); the series lists every one.
  [ "$(md5sum "$w/c/snapshot_0000.h5" "$w/c/snapshot_0001.h5")" = "$early" ] || fail "an earlier snapshot was overwritten"
  [ -e "$w/c/snapshot_0008.h5" ] || fail "the numbering did not go on: $(ls "$w/c" | tr '\n' ' ')"
  [ "$(grep -c '<Grid Name="snapshot_' "$w/c/snapshot.xmf")" = "$(ls "$w"/c/snapshot_????.h5 | wc -l)" ] ||
    fail "snapshot.xmf does not list every snapshot"
}
case_RestartFileNamedAsASnapshot() {
  make_checkpoint
  mkdir "$w/o"
  cp "$w/ckpt/checkpoint_00000004.h5" "$w/o/snapshot_0001.h5"
  ready
  hc run deck.toml --restart o/snapshot_0001.h5 --out o --set output.interval=0.01 --set time.t_end=0.1
  expect_refused "would overwrite its input"
}
case_RenamedRestartFileIsProtected() {
  # A checkpoint of step 4 renamed to step 99's name: a run going on from it would reach
  # step 99 and write that name.
  make_checkpoint
  mkdir "$w/c"
  cp "$w/ckpt/checkpoint_00000004.h5" "$w/c/checkpoint_00000099.h5"
  ready
  hc run deck.toml --out c --restart c/checkpoint_00000099.h5 --set checkpoint.every_steps=2 --steps 8
  expect_refused "would overwrite its input 'c/checkpoint_00000099.h5'"
}
case_MpiBenchRanksWithDifferentDecks() {
  small_deck
  ready
  mpi 1 "$bin" bench deck.toml --out b --repeat 1 --steps 1 --sweep layout=aos,soa : -n 1 "$bin" bench deck.toml \
    --out b --repeat 1 --steps 1 --sweep layout=aos,soa --set physics.gamma=1.6
  expect_refused "rank 1: error: this rank differs from rank 0 in its bench options: physics.gamma" mpi
  expect_fast
}
case_MpiBenchRanksWithDifferentSweeps() {
  small_deck
  ready
  mpi 1 "$bin" bench deck.toml --out b --repeat 1 --steps 1 --sweep layout=aos,soa : -n 1 "$bin" bench deck.toml \
    --out b --repeat 1 --steps 1 --sweep layout=aos,soa,aosoa
  expect_refused "differs from rank 0 in its bench options: sweep layout" mpi
  expect_fast
}
case_MpiRankWithAnotherCommand() {
  ready
  mpi 2 "$bin" run "$inputs/sod.toml" --out o : -n 1 "$bin" info
  expect_refused "rank 2: error: this rank differs from rank 0 in its command line: command (info here, run on rank 0)" mpi
  expect_fast
}
case_MpiRankAsksForTheVersion() {
  ready
  mpi 2 "$bin" run "$inputs/sod.toml" --out o : -n 1 "$bin" --version
  expect_exit 2
  expect_err "(version here, run on rank 0)"
  expect_fast
}
case_MpiRankWithAParseError() {
  ready
  mpi 2 "$bin" run "$inputs/sod.toml" --out o : -n 1 "$bin" run "$inputs/sod.toml" --out o --bogus
  expect_refused "rank 2: error: " mpi
  expect_err "--bogus"
  expect_fast
}
case_BenchRowBeyondMemoryIsSkipped() {
  # The memory plan is part of every run's set-up, so a bench row that cannot fit is listed
  # as skipped with the bytes, never allocated.
  small_deck
  hc bench deck.toml --out b --repeat 1 --steps 1 --sweep grid.n=8,2097148 --quiet
  expect_exit 0
  grep -q '"skipped": "this grid needs .* more than a process can address' "$w/b/bench.json" ||
    fail "the row of 2097148^3 cells was not listed as skipped for memory"
}
case_BenchMatrixTooLarge() {
  small_deck
  ready
  hc bench deck.toml --out b --sweep "physics.cfl=$(seq -s, 0.001 0.001 0.101)" --sweep "physics.gamma=$(seq -s, 1.01 0.01 2.00)"
  expect_refused "at most 10000 are allowed"
}

# ---- Dispatch --------------------------------------------------------------------------------------
declare -F "case_$name" >/dev/null || { echo "no case '$name' in $0"; exit 1; }
"case_$name"
echo "ok   $name (exit $code, ${ms} ms)"
