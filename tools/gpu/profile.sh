#!/usr/bin/env bash
# Nsight Compute on the stage kernels of the HIP backend (docs/performance.md): for each
# precision, the second stage of step PROFILE_STEP (default 10) with the fused kernel, and
# with the split kernels (x, y, z fluxes and the update), at PROFILE_N^3 (default 256), in the
# layout PROFILE_LAYOUT (default soa; another layout's files are named with it), bench.toml.
# Each profile has the speed of light, occupancy, launch, compute, memory, warp state and
# instruction sections, and why warps stalled (per issued instruction).
# Files: ncu_KERNELS_PRECISION[_LAYOUT].txt (the layout named where it is not soa), and so on.
# PROFILE_SOURCE=1 profiles each kernel a second time with the per-instruction counters and stall
# samples (SourceCounters): its SASS with them in OUTDIR/sass_KERNELS_PRECISION.csv, and for the
# fused stage the sums per phase (the stretches between its barriers; tools/gpu/sass_phases.py)
# in OUTDIR/phases_fused_PRECISION.txt and, where BIN was built with HALOCLINE_CUDA_LINEINFO=ON
# (check.sh: CUDA_LINEINFO=ON), per source line (tools/gpu/sass_lines.py) in
# OUTDIR/lines_fused_PRECISION.txt.
#
#   tools/gpu/profile.sh BIN OUTDIR
set -uo pipefail
bin=${1:?usage: tools/gpu/profile.sh BIN OUTDIR}
out=${2:?usage: tools/gpu/profile.sh BIN OUTDIR}
n=${PROFILE_N:-256}
# Not the first step: bench.toml starts as a resting contact (u, v, w = 0 and p = 1 exactly),
# where many slopes are zero and the fused fp64 stage of step 1 spent 9% of its instructions in
# the fp64 division's slow path (a quotient of 0: HLLC's contact speed); after 20 steps u, v, w
# and p - 1 are rounding noise of up to 3e-16 (docs/performance.md).
step=${PROFILE_STEP:-10}
layout=${PROFILE_LAYOUT:-soa}
case $layout in soa | aos | aosoa) ;; *) echo "profile.sh: PROFILE_LAYOUT must be soa, aos or aosoa (got '$layout')" >&2; exit 2 ;; esac
tag=""
[ "$layout" = soa ] || tag=_$layout
mkdir -p "$out"
sections=(--section SpeedOfLight --section Occupancy --section LaunchStats --section ComputeWorkloadAnalysis
  --section WarpStateStats --section InstructionStats --section MemoryWorkloadAnalysis)
stalls='regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio'
status=0
# The fused stage's SASS with its line table, for sass_lines.py (the cubins of BIN that hold it).
if [ "${PROFILE_SOURCE:-0}" = 1 ]; then
  cubins=$(mktemp -d) binary=$(realpath "$bin")
  : > "$out/fused_lines.sass"
  (cd "$cubins" && cuobjdump -xelf all "$binary" > /dev/null 2>&1)
  for cubin in "$cubins"/*.cubin; do
    # The symbols to a file: grep -q on a pipe ends it early, which pipefail counts as a failure.
    cuobjdump -symbols "$cubin" > "$cubins/symbols.txt" 2>/dev/null
    if grep -q fused_stage_kernel "$cubins/symbols.txt"; then
      nvdisasm --print-line-info -c "$cubin" >> "$out/fused_lines.sass" 2>/dev/null || status=1
    fi
  done
  rm -rf "$cubins"
  [ -s "$out/fused_lines.sass" ] || { echo "profile.sh: no fused stage in the cubins of $bin" >&2; status=1; }
  grep -q '//## File' "$out/fused_lines.sass" ||
    echo "profile.sh: $bin has no line table (build it with CUDA_LINEINFO=ON): no lines_*.txt" >&2
fi
for precision in ${PROFILE_PRECISIONS:-fp64 fp32}; do
  for kernels in ${PROFILE_KERNELS:-fused split}; do
    # The split path launches 3 fluxes and an update per stage; the fused one kernel.
    if [ "$kernels" = fused ]; then which=(--kernel-name regex:fused_stage_kernel --launch-skip $((2 * step - 1)) --launch-count 1)
    else which=(--kernel-name 'regex:flux_kernel|update_kernel' --launch-skip $((8 * step - 4)) --launch-count 4); fi
    ncu "${which[@]}" "${sections[@]}" --metrics "$stalls" \
      "$bin" run inputs/bench.toml --backend hip --set grid.n="$n" --set time.max_steps="$step" \
      --set run.kernels="$kernels" --set run.precision="$precision" --set run.layout="$layout" --out "$out/run" \
      > "$out/ncu_${kernels}_${precision}${tag}.txt" 2>&1 || status=1
    if [ "${PROFILE_SOURCE:-0}" = 1 ]; then
      name=${kernels}_${precision}${tag}
      ncu "${which[@]}" --section SourceCounters --section WarpStateStats --force-overwrite --export "$out/$name" \
        "$bin" run inputs/bench.toml --backend hip --set grid.n="$n" --set time.max_steps="$step" \
        --set run.kernels="$kernels" --set run.precision="$precision" --set run.layout="$layout" --out "$out/run" \
        > "$out/ncu_source_$name.log" 2>&1 || status=1
      ncu --import "$out/$name.ncu-rep" --page source --print-source sass --csv > "$out/sass_$name.csv" 2>&1 || status=1
      [ "$kernels" = split ] || python3 tools/gpu/sass_phases.py "$out/sass_$name.csv" > "$out/phases_$name.txt" 2>&1 || status=1
      # The fused stage's instance in this precision (I f: float, I d: double) and layout.
      if [ "$kernels" = fused ] && grep -q '//## File' "$out/fused_lines.sass" 2>/dev/null; then
        case $layout in soa) l=NS_3SoA ;; aos) l=NS_3AoS ;; aosoa) l=NS_6AoSoAW ;; esac
        mangled=fused_stage_kernelI$([ "$precision" = fp32 ] && echo f || echo d)$l
        python3 tools/gpu/sass_lines.py "$out/sass_$name.csv" "$out/fused_lines.sass" "$mangled" \
          > "$out/lines_$name.txt" 2>&1 || status=1
      fi
      rm -f "$out/$name.ncu-rep"
    fi
  done
done
rm -rf "$out/run"
gzip -f "$out/fused_lines.sass" 2>/dev/null
exit $status
