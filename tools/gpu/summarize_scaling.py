#!/usr/bin/env python3
"""Tables of a tools/gpu/scale.sh run: weak and strong scaling per halo strategy.

    tools/gpu/summarize_scaling.py OUTDIR

For every run: the median step (report step_time_s), the efficiency, the part of the
exchange hidden behind compute (report halo.hidden_fraction), and the mpi phase per step
over the ranks (min-max of timers_over_ranks: a max far above the min means ranks wait for
each other), and how many distinct devices the ranks ran on (report devices_over_ranks:
one GPU per rank gives as many as ranks). Weak efficiency = T(1 rank) / T(P); strong efficiency = T(P0) P0 / (T(P) P),
P0 the fewest ranks that ran. A run that did not finish is listed with its exit code and
Halocline's own error line (or else the last line it printed; 2: it did not fit, or bad
input).
"""
import glob
import json
import os
import re
import sys


def load(outdir):
    runs = {}
    for rc_file in glob.glob(os.path.join(outdir, "*.rc")):
        name = os.path.basename(rc_file)[:-3]
        m = re.fullmatch(r"(weak|strong)_n(\d+)_p(\d+)_(\w+)", name)
        if not m:
            continue
        kind, n, p, halo = m.group(1), int(m.group(2)), int(m.group(3)), m.group(4)
        with open(rc_file) as f:
            rc = int(f.read().strip() or 1)
        run = {"rc": rc}
        report = os.path.join(outdir, name + ".json")
        if rc == 0 and os.path.exists(report):
            with open(report) as f:
                run["report"] = json.load(f)
        else:
            log = os.path.join(outdir, name + ".log")
            lines = open(log).read().strip().splitlines() if os.path.exists(log) else []
            # mpirun adds its own lines after the program's: halocline's error line says why.
            ours = [line for line in lines if line.startswith("halocline: ")]
            run["why"] = ours[-1] if ours else (lines[-1] if lines else "no output")
        runs.setdefault((kind, n, halo), {})[p] = run
    return runs


def per_step(report, phase):
    steps = report.get("timed_steps", {}).get("count", 0)
    over = report.get("timers_over_ranks", {}).get(phase)
    if not steps or not over:
        return None
    return over["min_s"] / steps, over["max_s"] / steps


def table(kind, n, halo, by_p):
    for r in by_p.values():  # too few steps for a step-time sample
        if "report" in r and "median" not in r["report"]["step_time_s"]:
            r["why"] = "no step-time samples: more steps needed (SCALE_STEPS)"
            del r["report"]
    ran = {p: r["report"] for p, r in by_p.items() if "report" in r}
    p0 = min(ran) if ran else None
    what = f"{n}^3 per rank" if kind == "weak" else f"{n}^3 in all"
    lines = [f"### {kind} scaling, {what}, halo {halo}", "",
             "| ranks | median step ms | min-max ms | efficiency | hidden | mpi per step ms (min-max over ranks) "
             "| devices |",
             "|---|---|---|---|---|---|---|"]
    for p in sorted(by_p):
        r = by_p[p]
        if "report" not in r:
            lines.append(f"| {p} | not measured (exit {r['rc']}): {r['why']} | | | | | |")
            continue
        t = r["report"]["step_time_s"]
        step = t["median"]
        base = ran[p0]["step_time_s"]["median"]
        eff = base / step if kind == "weak" else base * p0 / (step * p)
        hidden = r["report"].get("halo", {}).get("hidden_fraction")
        mpi = per_step(r["report"], "stage1.mpi")
        mpi2 = per_step(r["report"], "stage2.mpi")
        mpi_text = ""
        if mpi and mpi2:
            mpi_text = f"{(mpi[0] + mpi2[0]) * 1e3:.2f}-{(mpi[1] + mpi2[1]) * 1e3:.2f}"
        # Distinct devices the ranks ran on (reports before devices_over_ranks: unknown).
        devices = r["report"].get("devices_over_ranks")
        devices_text = str(len(set(devices))) if devices else "-"
        lines.append(f"| {p} | {step * 1e3:.3f} | {t['min'] * 1e3:.3f}-{t['max'] * 1e3:.3f} | {eff:.3f} | "
                     f"{'' if hidden is None else f'{hidden:.2f}'} | {mpi_text} | {devices_text} |")
    return "\n".join(lines) + "\n"


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    outdir = sys.argv[1]
    runs = load(outdir)
    if not runs:
        sys.exit(f"summarize_scaling.py: no scale.sh runs in {outdir}")
    settings = os.path.join(outdir, "settings.txt")
    if os.path.exists(settings):
        print("settings: " + open(settings).read().strip() + "\n")
    mpi = os.path.join(outdir, "mpi.txt")
    if os.path.exists(mpi):
        print("mpi: " + "; ".join(open(mpi).read().split("\n")).strip("; ") + "\n")
    for key in sorted(runs, key=lambda k: (k[0] != "weak", k[1], k[2])):
        print(table(*key, runs[key]))


if __name__ == "__main__":
    main()
