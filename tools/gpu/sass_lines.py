#!/usr/bin/env python3
"""Where a kernel's instructions go, source line by source line, from Nsight Compute's
per-instruction counters and the SASS's line table.

Reads the CSV of `ncu --import REPORT --page source --print-source sass --csv` (a profile with
the SourceCounters section; tools/gpu/profile.sh with PROFILE_SOURCE=1) and the disassembly of
the same binary's cubin with its line table (`nvdisasm --print-line-info`; the binary built with
HALOCLINE_CUDA_LINEINFO=ON, which changes no instruction), whose function KERNEL names (a part of
its mangled name, e.g. fused_stage_kernelIfNS_3SoA for fp32 SoA). The CSV's addresses are the
kernel's in memory; the first is the function's first instruction. A line is the innermost
source line the compiler gave the instruction: an inlined function's own line, not its caller's.

Prints the warp instructions executed and the samples, as shares of the kernel's: by opcode
(without modifiers), by file, then the TOP (default 40) lines with their largest opcodes.

    tools/gpu/sass_lines.py SASS.csv DISASSEMBLY KERNEL [TOP]
"""
import collections
import re
import sys

from sass_phases import EXECUTED, SAMPLES, number, opcode, read  # the CSV as sass_phases.py reads it


def line_table(path, kernel):
    """{offset in the function: ('file:line', opcode)} of the one function of nvdisasm's output
    whose name holds KERNEL, or an error message."""
    tables, table, here = [], None, "?"
    with open(path) as f:
        for text in f:
            if text.startswith("//-----"):
                table = {} if kernel in text else None
                if table is not None:
                    tables.append(table)
                here = "?"
                continue
            if table is None:
                continue
            m = re.match(r'\s*//## File "([^"]+)", line (\d+)', text)
            if m:
                here = m.group(1).split("/")[-1] + ":" + m.group(2)
                continue
            m = re.match(r"\s*/\*([0-9a-f]+)\*/\s+(.*)", text)
            if m:
                table[int(m.group(1), 16)] = (here, opcode({"Source": m.group(2)}))
    if len(tables) != 1:
        return f"{len(tables)} functions named like {kernel} in {path} (one wanted)"
    return tables[0]


def ranked(counter, n=None):
    """The counter's items, largest first (ties by name), the first n of them."""
    return sorted(counter.items(), key=lambda item: (-item[1], item[0]))[:n]


def main():
    if len(sys.argv) not in (4, 5):
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    csv_path, disassembly, kernel = sys.argv[1:4]
    top = int(sys.argv[4]) if len(sys.argv) == 5 else 40
    table = line_table(disassembly, kernel)
    if isinstance(table, str):
        print(f"sass_lines.py: {table}", file=sys.stderr)
        return 1
    _, rows = read(csv_path)
    by_op, by_file, by_line = collections.Counter(), collections.Counter(), collections.Counter()
    line_samples, line_ops = collections.Counter(), collections.defaultdict(collections.Counter)
    first, total, total_samples, unmatched = None, 0.0, 0.0, 0
    for row in rows:
        try:
            at = int(row["Address"], 16)
        except (KeyError, ValueError):
            continue
        first = at if first is None else first
        n, s = number(row, EXECUTED), number(row, SAMPLES)
        op = opcode(row)
        # The CSV's first instruction is the function's first: each row's opcode must be the
        # disassembly's at that offset, or the two are not the same code.
        line, listed = table.get(at - first, ("?", None))
        if listed != op:
            unmatched += 1
            line = "?"
        total += n
        total_samples += s
        by_op[op] += n
        by_file[line.split(":")[0]] += n
        by_line[line] += n
        line_samples[line] += s
        line_ops[line][op] += n
    if unmatched:
        print(f"sass_lines.py: {unmatched} instructions of the CSV are not the disassembly's (another build?)",
              file=sys.stderr)
        return 1
    total, total_samples = max(total, 1.0), max(total_samples, 1.0)
    print(f"{total:.4g} warp instructions executed, {total_samples:.0f} samples")
    print("by opcode:")
    for op, n in ranked(by_op, 25):
        print(f"  {op:<10} {100 * n / total:5.1f}%")
    print("by file:")
    for name, n in ranked(by_file):
        print(f"  {name:<24} {100 * n / total:5.1f}%")
    print(f"by line (top {top}): instructions, samples, largest opcodes")
    for line, n in ranked(by_line, top):
        ops = " ".join(f"{op} {100 * m / total:.1f}" for op, m in ranked(line_ops[line], 4))
        print(f"  {line:<24} {100 * n / total:5.1f}% {100 * line_samples[line] / total_samples:5.1f}%  {ops}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
