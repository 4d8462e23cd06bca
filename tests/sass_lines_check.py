#!/usr/bin/env python3
"""tools/gpu/sass_lines.py on a source-page CSV and a disassembly written here, in the shapes of
Nsight Compute's CSV and nvdisasm's --print-line-info: two kernels in the disassembly (the tool
must take the one named), four instructions from two source lines, the CSV's addresses those of
the kernel in memory. The check asserts the shares by opcode, by file and by line, and that a
CSV whose instructions are not the disassembly's is refused.

    tests/sass_lines_check.py SOURCE_DIR
"""
import csv
import pathlib
import subprocess
import sys
import tempfile

DISASSEMBLY = """\
//--------------------- .text._Z5otherv --------------------------
        .section        .text._Z5otherv
\t//## File "/src/kernels/other.hpp", line 9
        /*0000*/                   NOP ;
//--------------------- .text._Z18fused_stage_kernelIdEvv --------------------------
        .section        .text._Z18fused_stage_kernelIdEvv
\t//## File "/src/kernels/hydro.hpp", line 203
        /*0000*/                   DSETP.GEU.AND P0, PT, |R2|, |R4|, PT ;
        /*0010*/                   FSEL R6, R2, R4, !P0 ;
\t//## File "/src/kernels/fused_tile.hpp", line 148
        /*0020*/                   LDS.64 R8, [R10+0x40] ;
.L_x_1:
        /*0030*/              @!P1 FSEL R7, R3, R5, !P0 ;
"""
# (SASS, samples, executed): the kernel at 0x7f0000001000 in memory.
ROWS = [
    ("DSETP.GEU.AND P0, PT, |R2|, |R4|, PT", 10, 100),
    ("FSEL R6, R2, R4, !P0", 10, 100),
    ("LDS.64 R8, [R10+0x40]", 60, 150),
    ("@!P1 FSEL R7, R3, R5, !P0", 20, 50),
]


def main():
    tool = pathlib.Path(sys.argv[1]) / "tools" / "gpu" / "sass_lines.py"
    with tempfile.TemporaryDirectory() as tmp:
        table = pathlib.Path(tmp) / "kernel.sass"
        table.write_text(DISASSEMBLY)
        path = pathlib.Path(tmp) / "sass.csv"
        with open(path, "w", newline="") as f:
            w = csv.writer(f, quoting=csv.QUOTE_ALL)
            w.writerow(["Kernel Name", "void fused_stage_kernel<double>()"])
            w.writerow(["Address", "Source", "Warp Stall Sampling (All Samples)", "Instructions Executed"])
            for i, (sass, samples, executed) in enumerate(ROWS):
                w.writerow([hex(0x7F0000001000 + 16 * i), "      " + sass, samples, executed])
        out = subprocess.run([sys.executable, str(tool), str(path), str(table), "fused_stage_kernelIdE", "5"],
                             capture_output=True, text=True)
        # A CSV of another build (an instruction that is not the disassembly's) is refused.
        other = pathlib.Path(tmp) / "other.csv"
        other.write_text(path.read_text().replace("LDS.64", "LDG.E.64"))
        refused = subprocess.run([sys.executable, str(tool), str(other), str(table), "fused_stage_kernelIdE"],
                                 capture_output=True, text=True)
    print(out.stdout, out.stderr)
    expected = [
        "400 warp instructions executed, 100 samples",
        "by opcode:",
        "  FSEL        37.5%",
        "  LDS         37.5%",
        "  DSETP       25.0%",
        "by file:",
        "  fused_tile.hpp            50.0%",
        "  hydro.hpp                 50.0%",
        "by line (top 5): instructions, samples, largest opcodes",
        "  fused_tile.hpp:148        50.0%  80.0%  LDS 37.5 FSEL 12.5",
        "  hydro.hpp:203             50.0%  20.0%  DSETP 25.0 FSEL 25.0",
    ]
    if refused.returncode != 1 or "not the disassembly's" not in refused.stderr:
        print("a CSV of another build was not refused:", refused.returncode, refused.stderr)
        return 1
    if out.returncode != 0 or out.stdout.splitlines() != expected or out.stderr:
        print("expected:\n" + "\n".join(expected))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
