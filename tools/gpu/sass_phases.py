#!/usr/bin/env python3
"""Where a kernel's time goes, phase by phase, from Nsight Compute's per-instruction counters.

Reads the CSV of `ncu --import REPORT --page source --print-source sass --csv` (a profile with
the SourceCounters section: instructions executed and warp-state samples per SASS instruction)
and cuts the kernel at its block barriers (BAR.SYNC), in the order of the SASS addresses: in the
fused stage as compiled on the H200 the stretch after the first barrier is the reconstruction,
the next the faces, the next the update and the fill (docs/performance.md), and the barriers of
block_max_into come last; another compiler may place them otherwise, so read the stretches'
instructions before naming them. A warp waiting at a barrier is sampled at the instruction after
it, so a stretch's barrier stalls are its warps waiting for the phase before to end in every
warp of the block.

Prints, for the whole kernel and for each stretch that has at least 0.5% of the samples: its
share of the warp instructions and of the samples, and the samples' largest stall reasons (as
shares of all samples); then the local-memory (spill) instructions executed per stretch.

    tools/gpu/sass_phases.py SASS.csv
"""
import csv
import sys

SAMPLES = "Warp Stall Sampling (All Samples)"
EXECUTED = "Instructions Executed"


def read(path):
    """(stall column names, rows as dicts) of the CSV; its first line names the kernel."""
    with open(path, newline="") as f:
        lines = list(csv.reader(f))
    header = next((i for i, line in enumerate(lines) if "Source" in line and EXECUTED in line), None)
    if header is None:
        sys.exit(f"sass_phases: {path} has no header with Source and {EXECUTED}: not a source page with SourceCounters")
    names = lines[header]
    rows = [dict(zip(names, line)) for line in lines[header + 1:] if len(line) == len(names)]
    stalls = [n for n in names if n.startswith("stall_") and "Not Issued" not in n]
    return stalls, rows


def number(row, key):
    """The cell's number (thousands separators allowed); an empty cell or "-" is 0."""
    text = row.get(key, "").replace(",", "").strip()
    if text in ("", "-"):
        return 0.0
    try:
        return float(text)
    except ValueError:
        sys.exit(f"sass_phases: {key} = {text!r} is not a number")


def stretches(rows):
    """The rows cut at each BAR.SYNC (the barrier opens the stretch after it)."""
    cut = [[]]
    for row in rows:
        if "BAR.SYNC" in row["Source"]:
            cut.append([])
        cut[-1].append(row)
    return cut


def opcode(row):
    """The opcode of the row's SASS, without its predicate and modifiers ("NOP;" is NOP)."""
    words = row["Source"].split()
    while words and words[0].startswith("@"):
        words = words[1:]
    return words[0].split(".")[0].rstrip(";") if words else ""


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: tools/gpu/sass_phases.py SASS.csv")
    stalls, rows = read(sys.argv[1])
    if not rows:
        sys.exit(f"sass_phases: no instruction rows in {sys.argv[1]}")
    total_samples = sum(number(r, SAMPLES) for r in rows) or 1.0
    total_executed = sum(number(r, EXECUTED) for r in rows) or 1.0
    print(f"{len(rows)} instructions, {total_executed:.4g} warp instructions executed, {total_samples:.0f} samples")

    def describe(label, part):
        executed = sum(number(r, EXECUTED) for r in part) / total_executed
        samples = sum(number(r, SAMPLES) for r in part) / total_samples
        reasons = sorted(((sum(number(r, s) for r in part) / total_samples, s[6:]) for s in stalls), reverse=True)
        top = ", ".join(f"{name} {share:.1%}" for share, name in reasons[:5] if share > 0)
        print(f"{label}: {executed:6.1%} of the instructions, {samples:6.1%} of the samples ({top})")

    describe("kernel", rows)
    for i, part in enumerate(stretches(rows)):
        if sum(number(r, SAMPLES) for r in part) / total_samples >= 0.005:
            describe(f"stretch {i} (after {i} barriers, {len(part)} instructions)", part)
    print("local memory (spills), warp instructions executed per stretch:")
    for i, part in enumerate(stretches(rows)):
        loads = sum(number(r, EXECUTED) for r in part if opcode(r) == "LDL")
        stores = sum(number(r, EXECUTED) for r in part if opcode(r) == "STL")
        if loads or stores:
            print(f"  stretch {i}: {loads:.4g} loads, {stores:.4g} stores")


if __name__ == "__main__":
    main()
