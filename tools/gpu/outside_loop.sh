#!/usr/bin/env bash
# What a run costs outside its step loop on a GPU (docs/benchmarks.md, "Outside the loop"):
# bench.toml with the HIP backend, device owner, no probe.
#   loop (the default): no files, for
#     512^3 fp64, 30 steps, split and fused;  768^3 fp64, 6 steps, fused;
#     1024^3 fp32, 4 steps, split and fused;  1024^3 fp64, 4 steps, fused;
#     then a grid one size too big for the device (1100^3 fp64, fused), which must be refused
#     with exit code 2 and one line.
#   files: the same runs writing what a person asks for, fused:
#     512^3 fp64 and fp32 with a final snapshot; 512^3 fp64 with a checkpoint at step 30,
#     then restarted from it for 10 steps, and the same 40 steps in one run; 1024^3 fp32
#     and fp64 with a final snapshot.
# Each run's report (outside_loop_s, host_bytes_peak, bytes_allocated, wall_s) goes to
# OUTDIR/NAME.json, its stdout and stderr to NAME.log, and the table to
# OUTDIR/outside_loop.md (files: OUTDIR/files.md).
#   tools/gpu/outside_loop.sh BINARY OUTDIR [loop|files]
set -uo pipefail
bin=$1; out=$2; set_name=${3:-loop}
mkdir -p "$out"
timer=()
[ -x /usr/bin/time ] && timer=(/usr/bin/time -v)  # the kernel's own peak RSS, beside the report's
run() {  # name, then run options
  local name=$1; shift
  echo "== $name"
  "${timer[@]}" "$bin" run inputs/bench.toml --backend "${BACKEND:-hip}" --no-probe --out "$out/tmp" \
    --report "$out/$name.json" --quiet "$@" > "$out/$name.log" 2>&1
  echo "exit code $?" >> "$out/$name.log"
  tail -3 "$out/$name.log"
  du -sb "$out/tmp" 2>/dev/null | sed 's/^/bytes written: /' >> "$out/$name.log"
}
if [ "$set_name" = loop ]; then
  run n512_fp64_split --set grid.n=512 --precision fp64 --kernels split --steps 30
  run n512_fp64_fused --set grid.n=512 --precision fp64 --kernels fused --steps 30
  run n768_fp64_fused --set grid.n=768 --precision fp64 --kernels fused --steps 6
  run n1024_fp32_split --set grid.n=1024 --precision fp32 --kernels split --steps 4
  run n1024_fp32_fused --set grid.n=1024 --precision fp32 --kernels fused --steps 4
  run n1024_fp64_fused --set grid.n=1024 --precision fp64 --kernels fused --steps 4
  run n1100_fp64_fused --set grid.n=1100 --precision fp64 --kernels fused --steps 4
else
  n=${FILES_N:-512}; big=${FILES_BIG_N:-1024}
  final=(--kernels fused --set output.final=true)
  run "f${n}_fp64_final" --set grid.n=$n --precision fp64 "${final[@]}" --steps 30; rm -rf "$out/tmp"
  run "f${n}_fp32_final" --set grid.n=$n --precision fp32 "${final[@]}" --steps 30; rm -rf "$out/tmp"
  run "f${n}_fp64_checkpoint" --set grid.n=$n --precision fp64 --kernels fused --steps 30 \
    --set checkpoint.every_steps=30
  run "f${n}_fp64_restart" --set grid.n=$n --precision fp64 --kernels fused --steps 40 \
    --restart "$out/tmp/checkpoint_00000030.h5"
  rm -rf "$out/tmp"
  run "f${n}_fp64_straight" --set grid.n=$n --precision fp64 --kernels fused --steps 40  # = the restart's end
  run "f${big}_fp32_final" --set grid.n=$big --precision fp32 "${final[@]}" --steps 4; rm -rf "$out/tmp"
  run "f${big}_fp64_final" --set grid.n=$big --precision fp64 "${final[@]}" --steps 4
fi
rm -rf "$out/tmp"
python3 - "$out" "$set_name" <<'EOF'
import json, pathlib, re, sys
out = pathlib.Path(sys.argv[1])
prefix, table = ("n", "outside_loop.md") if sys.argv[2] == "loop" else ("f", "files.md")
rows = ["| run | exit | steps | loop s | wall s | outside the loop s (parts) | files in the loop s | device B/cell | host peak RSS GB | cell-updates/s |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
for log in sorted(out.glob(prefix + "[0-9]*.log")):  # the runs, not a log of this script
    name = log.stem
    code = re.findall(r"exit code (\d+)", log.read_text())
    report = out / (name + ".json")
    if not report.exists():
        rows.append(f"| {name} | {code[-1] if code else '?'} | - | - | - | refused: "
                    + log.read_text().strip().splitlines()[0].replace("|", "/") + " | - | - | - | - |")
        continue
    j = json.loads(report.read_text())
    parts = j.get("outside_loop_s", {})
    total = sum(parts.values())
    cells = 1
    for n in j["config"]["grid"]:
        cells *= n
    rows.append(f"| {name} | {code[-1] if code else '?'} | {j['steps']} | {j['loop_s']:.3f} | {j['wall_s']:.2f} | "
                f"{total:.3f} (" + ", ".join(f"{k} {v:.3f}" for k, v in parts.items()) + ") | "
                f"{sum(j['timers'].get(k, {}).get('total_s', 0) for k in ('output', 'checkpoint')):.3f} | "
                f"{j['bytes_allocated'] / cells:.1f} | {j['host_bytes_peak']['max_rss'] / 1e9:.2f} | "
                ("-" if j['fom']['cell_updates_per_s'] is None else f"{j['fom']['cell_updates_per_s']:.3e}") + " |")
(out / table).write_text("\n".join(rows) + "\n")
print("\n".join(rows))
EOF
# One archive of the reports and logs: the device tool brings back a limited number of files.
prefix=n; [ "$set_name" = loop ] || prefix=f
( cd "$out" && tar czf "runs-$set_name.tgz" $prefix[0-9]*.json $prefix[0-9]*.log && rm -f $prefix[0-9]*.json $prefix[0-9]*.log )
