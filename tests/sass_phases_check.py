#!/usr/bin/env python3
"""tools/gpu/sass_phases.py on a source-page CSV written here, in Nsight Compute's shape: a line
naming the kernel, the header, then one row per SASS instruction. Two barriers cut the kernel
into three stretches; the check asserts each stretch's share of the instructions and samples,
its largest stall reason, the barrier stall of the stretch after a barrier, and the spills
counted per stretch.

    tests/sass_phases_check.py SOURCE_DIR
"""
import csv
import pathlib
import subprocess
import sys
import tempfile

HEADER = ["Address", "Source", "Warp Stall Sampling (All Samples)", "Instructions Executed", "stall_barrier",
          "stall_long_sb", "stall_wait", "stall_long_sb (Not Issued)"]
# (SASS, samples, executed, barrier, long scoreboard, wait)
ROWS = [
    ("LDG.E.64 R2, desc[UR4][R4.64]", 10, 100, 0, 0, 10),
    ("DMUL R6, R2, R2", 30, 100, 0, 30, 0),  # stretch 0: 200 executed, 40 samples
    ("BAR.SYNC.DEFER_BLOCKING 0x0", 0, 100, 0, 0, 0),
    ("@!P0 BRA 0x10", 20, 100, 20, 0, 0),  # the barrier's wait, sampled after it
    ("STL.64 [R1+0x8], R6", 5, 50, 0, 0, 5),  # stretch 1: 250 executed, 25 samples
    ("BAR.SYNC.DEFER_BLOCKING 0x0", 0, 100, 0, 0, 0),
    ("@P1 LDL.64 R8, [R1+0x8]", 35, 250, 0, 35, 0),  # stretch 2: 350 executed, 35 samples
]


def main():
    tool = pathlib.Path(sys.argv[1]) / "tools" / "gpu" / "sass_phases.py"
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / "sass.csv"
        with open(path, "w", newline="") as f:
            w = csv.writer(f, quoting=csv.QUOTE_ALL)
            w.writerow(["Kernel Name", "void fused_stage_kernel<double, SoA>(...)"])
            w.writerow(HEADER)
            for i, (sass, samples, executed, barrier, long_sb, wait) in enumerate(ROWS):
                w.writerow([hex(16 * i), "      " + sass, samples, executed, barrier, long_sb, wait, 99])
        out = subprocess.run([sys.executable, str(tool), str(path)], capture_output=True, text=True)
    print(out.stdout, out.stderr)
    lines = out.stdout.splitlines()
    expected = [
        "7 instructions, 800 warp instructions executed, 100 samples",
        "kernel: 100.0% of the instructions, 100.0% of the samples (long_sb 65.0%, barrier 20.0%, wait 15.0%)",
        "stretch 0 (after 0 barriers, 2 instructions):  25.0% of the instructions,  40.0% of the samples"
        " (long_sb 30.0%, wait 10.0%)",
        "stretch 1 (after 1 barriers, 3 instructions):  31.2% of the instructions,  25.0% of the samples"
        " (barrier 20.0%, wait 5.0%)",
        "stretch 2 (after 2 barriers, 2 instructions):  43.8% of the instructions,  35.0% of the samples"
        " (long_sb 35.0%)",
        "local memory (spills), warp instructions executed per stretch:",
        "  stretch 1: 0 loads, 50 stores",
        "  stretch 2: 250 loads, 0 stores",
    ]
    if out.returncode != 0 or lines != expected:
        print("expected:\n" + "\n".join(expected))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
