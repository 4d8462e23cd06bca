#!/usr/bin/env python3
"""Summarizes tools/gpu/halo_bench.sh's reports as Markdown tables.

  python3 tools/gpu/summarize_halo.py HALO_DIR

One rank: per size and strategy, the median (min-max) step time, its ratio to the
compute-only step (--halo none), and the report's halo section: the exchange time per step
(t_halo), the compute phases per step (t_compute) and hidden_fraction.
Two GPUs: weak-scaling efficiency = step(1 rank, n^3) / step(2 ranks, n^2 x 2n), medians.
"""
import json
import pathlib
import sys


def load(folder):
    return {p.stem: json.load(open(p)) for p in sorted(pathlib.Path(folder).glob("*.json"))}


def step(r):
    s = r["step_time_s"]
    return s["median"], s["min"], s["max"]


def ms(seconds):
    """Milliseconds with two decimals, or '-' where the report has none (no step timed)."""
    return "-" if seconds is None else f"{seconds * 1e3:.2f}"


def main(folder):
    runs = load(folder)
    if not runs:
        print("no reports in", folder)
        return 1
    print("| n | halo | staging | median step ms (min-max) | / compute-only | t_halo ms | t_compute ms | hidden_fraction | H2D+D2H MB/step |")
    print("|---|---|---|---|---|---|---|---|---|")
    sizes = sorted({int(k.split("_")[0][1:]) for k in runs if k.startswith("n")})
    for n in sizes:
        base = runs.get(f"n{n}_none")
        base_med = step(base)[0] if base else None
        for name in [f"n{n}_none"] + [f"n{n}_{h}_{m}" for h in ("sync", "overlap") for m in ("pinned", "pageable")]:
            r = runs.get(name)
            if not r:
                continue
            med, lo, hi = step(r)
            h = r["halo"]
            hf = h["hidden_fraction"]
            moved = (r["transfers"]["h2d"]["per_step"]["bytes"] + r["transfers"]["d2h"]["per_step"]["bytes"]) / 1e6
            staging = "-" if r["config"]["halo"] == "none" else r["config"]["host_mem"]
            print(f"| {n}^3 | {r['config']['halo']} | {staging} | {med*1e3:.2f} ({lo*1e3:.2f}-{hi*1e3:.2f}) | "
                  f"{med / base_med:.3f} | {ms(h['t_halo_s'])} | {ms(h['t_compute_s'])} | "
                  f"{'-' if hf is None else f'{hf:.3f}'} | {moved:.1f} |")
    weak_sizes = sorted({int(k.split("_")[1][1:]) for k in runs if k.startswith("weak1_")})
    if weak_sizes:
        print("\n| weak scaling, per GPU | halo | 1 GPU median ms | 2 GPUs median ms (min-max) | efficiency | hidden_fraction 1 GPU / 2 GPUs (rank 0) |")
        print("|---|---|---|---|---|---|")
    for n in weak_sizes:
        for h in ("overlap", "sync"):
            w1, w2 = runs.get(f"weak1_n{n}_{h}"), runs.get(f"weak2_n{n}_{h}")
            if not (w1 and w2):
                continue
            m1, m2 = step(w1)[0], step(w2)
            hf = [w["halo"]["hidden_fraction"] for w in (w1, w2)]
            hf = " / ".join("-" if x is None else f"{x:.3f}" for x in hf)
            print(f"| {n}^3 | {h} | {m1*1e3:.2f} | {m2[0]*1e3:.2f} ({m2[1]*1e3:.2f}-{m2[2]*1e3:.2f}) | "
                  f"{m1 / m2[0]:.3f} | {hf} |")
    dev = next(iter(runs.values()))["device"]
    print(f"\nDevice: {dev['name']}, {dev['runtime_version']}; halocline {next(iter(runs.values()))['halocline_version']}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
