#!/usr/bin/env bash
# On a machine with an NVIDIA GPU and no package access (the H200: nvcc, cmake, ninja,
# g++, HDF5, GoogleTest, but no toml++, CLI11 or nlohmann-json): configure, build, run the
# whole test suite on the GPU backend, then the GPU benchmark and the halo benchmark
# (tools/gpu/halo_bench.sh; with two GPUs also 2-rank weak scaling). Run tools/gpu/prepare.sh on
# the CPU machine first and bring .gpu-deps/ along.
#
#   tools/gpu/check.sh OUTDIR [tests|bench|halo|tests+halo|lab|kokkos|scale|all]
#
# lab: `halocline info` and `halocline probe`, then the strategy lab's full sweep of
# bench.toml at LAB_N^3 (default 256): layout x precision x owner x halo x host-mem, one run per
# configuration with LAB_REPEAT repetitions of LAB_STEPS steps each, and the plots
# (tools/plot.py) where matplotlib is installed;
# everything in OUTDIR/lab.tgz (draw the plots on the CPU machine otherwise).
#
# scale: tools/gpu/scale.sh over the GPUs of this machine (1, 2, 4, 8 ranks, one per GPU):
# weak and strong scaling of sync and overlap, the tables in OUTDIR/scale.md (issue 8).
#
# kokkos: with KOKKOS_ROOT, the test suite on the Kokkos GPU backend (MPI tests left out; the
# GoogleTest binaries whole, then the script tests that run the program; KOKKOS_SKIP_TESTS=1
# skips it) and bench.toml at KOKKOS_SIZES (default "256 512") for both
# backends, KOKKOS_LAYOUTS (default all) and both precisions, the Kokkos runs with each of
# KOKKOS_TILES (default auto; e.g. "kokkos,auto,32x8x1") and KOKKOS_KERNELS (default auto; e.g.
# "split,fused"), in one bench run (OUTDIR/kokkos:
# bench.json has each configuration's phases per step).
#
# Writes configure/build/test logs, the benchmark's JSON reports and summary.md to OUTDIR.
# With KOKKOS_ROOT set to a Kokkos GPU install, the Kokkos backend is built too; without
# it the Kokkos GPU runs are skipped, and this says so.
set -uo pipefail
out=${1:?usage: tools/gpu/check.sh OUTDIR [tests|bench|halo|tests+halo|lab|kokkos|scale|all]}
what=${2:-all}
cd "$(dirname "$0")/../.."
root=$PWD
deps=$root/.gpu-deps
mkdir -p "$out"
status=0

if [ ! -d "$deps/root" ] || [ ! -d "$deps/reference" ]; then
  echo "check.sh: $deps is missing: run tools/gpu/prepare.sh on the CPU machine first" >&2
  exit 2
fi
nvidia-smi > "$out/nvidia-smi.txt" 2>&1 || true
here=$(tools/gpu/source_hash.sh)
made=$(cat "$deps/reference/SOURCE" 2>/dev/null || echo unknown)
if [ "$here" != "$made" ]; then
  echo "check.sh: WARNING: the CPU reference states were made from other sources" \
       "($made, here $here): rerun tools/gpu/prepare.sh" | tee "$out/reference-warning.txt"
fi

# The commit the files are at (this copy's git may be older): tools/gpu/stamp.sh's stamp.
[ -f "$deps/revision" ] ||
  echo "check.sh: WARNING: no $deps/revision: the reports name the commit this copy's git says (run tools/gpu/stamp.sh)" |
  tee "$out/revision-warning.txt"

kokkos_args=(-DHALOCLINE_ENABLE_KOKKOS=OFF)
if [ -n "${KOKKOS_ROOT:-}" ]; then
  kokkos_args=(-DHALOCLINE_ENABLE_KOKKOS=ON -DKokkos_ROOT="$KOKKOS_ROOT")
else
  echo "check.sh: KOKKOS_ROOT not set: Kokkos GPU runs skipped (HIP backend only)" | tee "$out/kokkos.txt"
fi

# CUDA_LINEINFO=ON puts the source lines in the kernels' binaries (no instruction changes), for
# tools/gpu/profile.sh's per-line sums.
# STRICT_FP=OFF builds a variant that lets the compilers fuse multiply-adds (faster;
# results then match the CPU to rounding, not bitwise), in its own build folder.
strict=${STRICT_FP:-ON}
build=$root/build-gpu
[ "$strict" = ON ] || build=$root/build-gpu-fma
# With Kokkos the binary's default backend is Kokkos: its own build folder, so that the
# HIP-only build (and its test results) stays as it was.
[ -z "${KOKKOS_ROOT:-}" ] || build=$build-kokkos
cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DHALOCLINE_STRICT_FP="$strict" \
  -DHALOCLINE_ENABLE_HIP=ON -DHALOCLINE_HIP_PLATFORM=nvidia -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DHALOCLINE_PTXAS_VERBOSE=ON -DHALOCLINE_CUDA_LINEINFO="${CUDA_LINEINFO:-OFF}" -DHALOCLINE_TOMLPP_HEADER_ONLY=ON \
  -DCMAKE_INCLUDE_PATH="$deps/root/usr/include" \
  -DCLI11_DIR="$deps/root/usr/share/cmake/CLI11" \
  -Dnlohmann_json_DIR="$deps/root/usr/share/cmake/nlohmann_json" \
  -DHALOCLINE_REVISION_STAMP="$deps/revision" \
  "${kokkos_args[@]}" > "$out/configure.log" 2>&1 || { echo "configure failed"; tail -30 "$out/configure.log"; exit 1; }
# BUILD_TARGET=halocline builds the program alone (no tests): for benchmark-only runs.
cmake --build "$build" -j "$(nproc)" --target "${BUILD_TARGET:-all}" > "$out/build.log" 2>&1 || { echo "build failed"; grep -E "error" -A5 "$out/build.log" | head -60; exit 1; }
# Registers and spills of every kernel, from ptxas.
grep -E "Compiling entry|registers|spill" "$out/build.log" > "$out/ptxas.txt" || true

if [ "$what" = all ] || [ "$what" = tests ] || [ "$what" = tests+halo ]; then
  HALOCLINE_CPU_REFERENCE="$deps/reference" ctest --test-dir "$build" -j 8 --output-on-failure \
    > "$out/ctest.log" 2>&1 || status=1
  tail -5 "$out/ctest.log"
  grep -E "Skipped|\*\*\*Failed|Failed " "$out/ctest.log" | head -20
  # The fast square roots and reciprocals of fp32 (kernels/fast_roots.hpp) against IEEE's at
  # every float, on an NVIDIA GPU.
  if command -v nvcc > /dev/null; then
    { nvcc -std=c++17 -O3 -arch=sm_90 -I. -x cu tools/gpu/fast_roots_check.cpp -o "$build/fast_roots_check" &&
        "$build/fast_roots_check"; } > "$out/fast_roots.txt" 2>&1 || status=1
    cat "$out/fast_roots.txt"
  fi
fi

if [ "$what" = all ] || [ "$what" = bench ]; then
  tools/gpu/bench.sh "$build/bin/halocline" "$out/bench" "${BENCH_SIZES:-256 512}" > "$out/bench.log" 2>&1 || status=1
  python3 tools/gpu/summarize.py "$out/bench" > "$out/summary.md" 2>&1 || status=1
  cat "$out/summary.md"
fi
if [ "$what" = all ] || [ "$what" = halo ] || [ "$what" = tests+halo ]; then
  tools/gpu/halo_bench.sh "$build/bin/halocline" "$out/halo" "${HALO_SIZES:-256 512}" > "$out/halo.log" 2>&1 || status=1
  python3 tools/gpu/summarize_halo.py "$out/halo" > "$out/halo.md" 2>&1 || status=1
  cat "$out/halo.md"
  # One archive: the device tool brings back a limited number of files.
  tar czf "$out/halo.tgz" -C "$out" halo && rm -rf "$out/halo"
fi
if [ "$what" = scale ]; then
  # Weak and strong scaling over the GPUs of this machine (tools/gpu/scale.sh; SCALE_* as
  # documented there), the tables in scale.md, the reports in scale.tgz.
  tools/gpu/scale.sh "$build/bin/halocline" "$out/scale" > "$out/scale.log" 2>&1 || status=1
  python3 tools/gpu/summarize_scaling.py "$out/scale" > "$out/scale.md" 2>&1 || status=1
  cat "$out/scale.md"
  tar czf "$out/scale.tgz" -C "$out" scale && rm -rf "$out/scale"
fi
if [ "$what" = kokkos ]; then
  # The Kokkos GPU backend beside the native one (needs KOKKOS_ROOT): the GPU tests of both
  # and the rest of the suite on Kokkos (the binary's default backend then), MPI runs left
  # out; then bench.toml at KOKKOS_SIZES side by side: backend x layout x precision.
  if [ -z "${KOKKOS_ROOT:-}" ]; then
    echo "check.sh: kokkos: set KOKKOS_ROOT to a Kokkos install built for this GPU" >&2
    exit 2
  fi
  kdir=$out/kokkos
  mkdir -p "$kdir"
  "$build/bin/halocline" info --backend kokkos > "$kdir/info.txt" 2>&1 || status=1
  if [ "${KOKKOS_SKIP_TESTS:-0}" = 0 ]; then
    # The two GoogleTest binaries whole (one process each: ctest's process per test pays about
    # a second of Kokkos CUDA start each, which ran the suite out of time), then ctest's script
    # tests that run the program (the others run no solver). tests/data/h100/README.md.
    export HALOCLINE_CPU_REFERENCE="$deps/reference" OMP_PROC_BIND=false
    for binary in halocline_tests halocline_cli_tests; do
      timeout "${KOKKOS_TEST_TIMEOUT:-300}" "$build/bin/$binary" --gtest_filter='-*Mpi*:*Reliability*' \
        --gtest_brief=1 > "$kdir/$binary.log" 2>&1 || status=1
      tail -4 "$kdir/$binary.log"
    done
    timeout "${KOKKOS_TEST_TIMEOUT:-300}" ctest --test-dir "$build" -j 8 -E "Mpi|Reliability" \
      -R '^(References|Cli\.KokkosTools|Cli\.Progress|Hostile|H5compare|Snapshot|Revision)' \
      --output-on-failure > "$kdir/ctest.log" 2>&1 || status=1
    tail -5 "$kdir/ctest.log"
    grep -E "\*\*\*Failed|Failed |Skipped" "$kdir/ctest.log" | head -30
  fi
  sizes=$(echo "${KOKKOS_SIZES:-256 512}" | tr ' ' ',')
  GLIBC_TUNABLES=glibc.malloc.hugetlb=1 timeout "${KOKKOS_BENCH_TIMEOUT:-300}" "$build/bin/halocline" bench \
    inputs/bench.toml --sweep grid.n="$sizes" --sweep backend=hip,kokkos \
    --sweep layout="${KOKKOS_LAYOUTS:-soa,aos,aosoa}" --sweep precision=fp64,fp32 \
    --sweep kokkos-tile="${KOKKOS_TILES:-auto}" --sweep kernels="${KOKKOS_KERNELS:-auto}" --repeat 3 --steps 12 \
    --baseline backend=hip --out "$kdir/bench" > "$kdir/bench.txt" 2> "$kdir/bench.log" || status=1
  cat "$kdir/bench.txt"
  # bench.json is rewritten after each configuration: what a stopped sweep measured is kept.
  # Each run's report stays behind (many files, nested too deep to bring back).
  cp "$kdir/bench/bench.json" "$kdir/bench/bench.csv" "$kdir/" 2>/dev/null
  rm -rf "$kdir/bench"
fi
if [ "$what" = all ] || [ "$what" = lab ]; then
  lab=$out/lab
  mkdir -p "$lab"
  bin=$build/bin/halocline
  "$bin" info --backend hip > "$lab/info.txt" 2>&1 || status=1
  "$bin" info --backend hip --json > "$lab/info.json" 2>&1 || status=1
  "$bin" probe --backend hip --out "$lab" > "$lab/probe.txt" 2>&1 || status=1
  cat "$lab/info.txt" "$lab/probe.txt"
  # The plots need the python3 with matplotlib that CMake chose (tools/plot.py).
  python=$(sed -n 's/^HALOCLINE_PLOT_PYTHON:[A-Z]*=//p' "$build/CMakeCache.txt")
  plot=()
  "$python" -c "import matplotlib" 2>/dev/null && plot=(--plot)
  # Huge pages for the host's large buffers (glibc's malloc tunable): each configuration
  # allocates and first touches several state-sized host arrays, which costs seconds of
  # page faults at 256^3. Only the set-up is faster; no step touches that memory.
  GLIBC_TUNABLES=glibc.malloc.hugetlb=1 timeout "${LAB_TIMEOUT:-3600}" "$bin" bench inputs/bench.toml \
    --set grid.n="${LAB_N:-256}" --set run.backend=hip \
    --sweep layout=aos,soa,aosoa --sweep precision=fp64,fp32 --sweep owner=device,host,managed \
    --sweep halo=none,sync,overlap --sweep host-mem=pinned,pageable \
    --repeat "${LAB_REPEAT:-3}" --steps "${LAB_STEPS:-12}" \
    --baseline layout=aos,precision=fp64,owner=device,halo=none,host-mem=pinned \
    --out "$lab" "${plot[@]}" > "$lab/bench.txt" 2> "$lab/bench.log" || status=1
  cat "$lab/bench.txt"
  if [ $status != 0 ] && [ ${#plot[@]} != 0 ] && [ -f "$lab/bench.json" ]; then
    # Stopped early (LAB_TIMEOUT): the configurations measured so far are in bench.json.
    echo "check.sh: the sweep stopped early; plots of what it measured"
    "$python" tools/plot.py --bench "$lab/bench.json" --probe "$lab"/probe-*.json --out "$lab/plots" || true
  fi
  [ ${#plot[@]} = 0 ] && echo "check.sh: no matplotlib here: draw the plots with tools/plot.py from lab.tgz"
  tar czf "$out/lab.tgz" -C "$out" lab && rm -rf "$lab"
fi
exit $status
