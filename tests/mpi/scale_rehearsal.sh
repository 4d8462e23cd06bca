#!/usr/bin/env bash
# tools/gpu/scale.sh rehearsed on the CPU (the Kokkos backend, 1 and 2 ranks, small grids):
# every run finishes; the weak runs' global grid grows with the process grid and the strong
# runs' does not; a strong run on 2 ranks ends with the 1-rank checksum bit for bit; the
# reports list each rank's device; and tools/gpu/summarize_scaling.py makes every table,
# the 1-rank rows at efficiency 1, every row on one device (the 2 ranks share the CPU).
#   tests/mpi/scale_rehearsal.sh HALOCLINE MPIEXEC SOURCE_DIR
set -euo pipefail
bin=$1 mpiexec=$2 src=$3
source "$(dirname "$0")/common.sh"
MPIRUN=$mpiexec SCALE_BACKEND=kokkos SCALE_RANKS="1 2" SCALE_WEAK_N=12 SCALE_STRONG_N=16 SCALE_STEPS=8 \
  "$src/tools/gpu/scale.sh" "$bin" "$work/scale" > "$work/scale.log"
python3 "$src/tools/gpu/summarize_scaling.py" "$work/scale" > "$work/summary.md"
python3 - "$work/scale" "$work/summary.md" <<'PY'
import glob, json, os, sys
out, summary = sys.argv[1], open(sys.argv[2]).read()
fail = []
rcs = {os.path.basename(f)[:-3]: open(f).read().strip() for f in glob.glob(out + "/*.rc")}
if len(rcs) != 8 or set(rcs.values()) != {"0"}:
    fail.append(f"runs and exit codes: {rcs}")
def report(name):
    return json.load(open(f"{out}/{name}.json"))
for halo in ("overlap", "sync"):
    w1, w2 = report(f"weak_n12_p1_{halo}"), report(f"weak_n12_p2_{halo}")
    if w1["config"]["grid"] != [12, 12, 12] or w2["config"]["grid"] != [12, 12, 24] or w2["config"]["ranks"] != 2:
        fail.append(f"weak {halo}: grids {w1['config']['grid']} {w2['config']['grid']}, ranks {w2['config']['ranks']}")
    s1, s2 = report(f"strong_n16_p1_{halo}"), report(f"strong_n16_p2_{halo}")
    if s2["config"]["grid"] != [16, 16, 16] or s2["config"]["ranks_grid"] != [1, 1, 2]:
        fail.append(f"strong {halo}: grid {s2['config']['grid']}, ranks grid {s2['config']['ranks_grid']}")
    if s1["checksum"] != s2["checksum"]:
        fail.append(f"strong {halo}: 1 rank {s1['checksum']}, 2 ranks {s2['checksum']}")
    # Each rank's device, in rank order: here both ranks share the host's CPU.
    devices = [w1.get("devices_over_ranks"), w2.get("devices_over_ranks")]
    if [len(d or []) for d in devices] != [1, 2] or len(set(devices[1])) != 1 or not devices[1][0].endswith(w2["device"]["name"]):
        fail.append(f"weak {halo}: devices over ranks {devices}")
for title in ("weak scaling, 12^3 per rank, halo overlap", "weak scaling, 12^3 per rank, halo sync",
              "strong scaling, 16^3 in all, halo overlap", "strong scaling, 16^3 in all, halo sync"):
    if title not in summary:
        fail.append("summary lacks: " + title)
if summary.count("| 1 | ") != 4 or summary.count(" | 1.000 | ") < 4 or summary.count("| 1 |\n") != 8:
    fail.append("summary: the 1-rank rows are not at efficiency 1.000:\n" + summary)
print("\n".join(fail) if fail else "ok: 8 runs, grids, checksums and tables as expected")
sys.exit(1 if fail else 0)
PY
