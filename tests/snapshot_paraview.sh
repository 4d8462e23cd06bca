#!/usr/bin/env bash
# ParaView opens the XDMF of a 1-D, a 2-D and a 3-D run (tests/snapshot_paraview.py, run by
# pvbatch). Where pvbatch is not installed the test says so and is skipped (exit 77): Debian's
# paraview package provides it, and `make` does not install it (it is large).
#   snapshot_paraview.sh HALOCLINE SOURCE_DIR
set -euo pipefail
bin=$1 src=$2
if ! pvbatch=$(command -v pvbatch); then
  echo "SKIP: no pvbatch on PATH (apt-get install paraview to run this test; make does not install it)"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# pvbatch starts MPI, which as root (CI containers) wants to be told it may.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Each run: a snapshot at t = 0 and one at its end (an interval past the run's few steps).
snapshots() {
  local name=$1 deck=$2
  shift 2
  "$bin" run "$src/inputs/$deck" --no-probe --quiet --out "$work/$name" "$@"
}
snapshots row sod.toml --set grid.nx=40 --steps 5 --set output.interval=100
snapshots slab kh.toml --set grid.nx=24 --set grid.ny=16 --steps 4 --set output.interval=100
snapshots column sod.toml --set grid.nx=1 --set grid.nz=12 --set riemann.direction=z --steps 3 --set output.interval=100
snapshots cube bench.toml --set grid.n=6 --steps 2 --set output.interval=1e6 --set output.final=true
"$pvbatch" "$src/tests/snapshot_paraview.py" "$work" row slab column cube
