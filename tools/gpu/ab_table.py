#!/usr/bin/env python3
"""The table of tools/gpu/ab.sh: for each deck and configuration, each round's median ms per step
of base and head, head / base (the median over rounds), and whether every checksum of the two
builds agrees.

    tools/gpu/ab_table.py OUTDIR BASE_NAME                  (reads OUTDIR/{base,head}-DECK-rN/bench.json)
    tools/gpu/ab_table.py OUTDIR BASE_NAME TRIAL TRIAL_REV  (a trial's runs, TRIAL-DECK-rN, as the head)
"""
import json
import pathlib
import re
import statistics
import sys


def runs(out, head):
    """{(deck, configuration): {build: [(round, median_s, checksum)]}} from the bench.json files
    of base and of the build named `head` (as "head")."""
    table = {}
    for path in sorted(out.glob("*-r*/bench.json")):
        match = re.fullmatch(r"([a-z0-9_]+)-(.+)-r(\d+)", path.parent.name)
        if not match or match.group(1) not in ("base", head):
            continue
        build = "base" if match.group(1) == "base" else "head"
        deck, round_ = match.group(2), int(match.group(3))
        for row in json.loads(path.read_text())["rows"]:
            median = row.get("step_s", {}).get("median")
            if median is None:  # a configuration that failed: bench.json lists it without times
                continue
            key = (deck, row["name"])
            table.setdefault(key, {}).setdefault(build, []).append((round_, median, row.get("checksum")))
    return table


def main():
    if len(sys.argv) not in (3, 5):
        print(__doc__, file=sys.stderr)
        return 2
    out, base_name = pathlib.Path(sys.argv[1]), sys.argv[2]
    head = sys.argv[3] if len(sys.argv) > 3 else "head"
    table = runs(out, head)
    if not table:
        print(f"ab_table: no bench.json under {out}", file=sys.stderr)
        return 1
    what = "head (the working tree)" if head == "head" else f"trial {head} ({sys.argv[4]})"
    print(f"# A/B: base {base_name} against {what}, median ms per step\n")
    print(f"| deck | configuration | base, each round | {head}, each round | {head} / base | checksums |")
    print("| --- | --- | --- | --- | --- | --- |")
    status = 0
    for (deck, name), builds in sorted(table.items()):
        base, head = sorted(builds.get("base", [])), sorted(builds.get("head", []))
        if not base or not head:
            print(f"| {deck} | {name} | {'ran' if base else 'missing'} | {'ran' if head else 'missing'} | - | - |")
            status = 1
            continue
        ratio = statistics.median(h[1] for h in head) / statistics.median(b[1] for b in base)
        sums = {b[2] for b in base} | {h[2] for h in head}
        agree = "equal" if len(sums) == 1 else "differ"
        cells = [", ".join(f"{m * 1e3:.3f}" for _, m, _ in rounds) for rounds in (base, head)]
        print(f"| {deck} | {name} | {cells[0]} | {cells[1]} | {ratio:.3f} | {agree} |")
    return status


if __name__ == "__main__":
    sys.exit(main())
