#!/usr/bin/env python3
"""Summarizes the JSON reports of tools/gpu/bench.sh as Markdown tables.

  python3 tools/gpu/summarize.py BENCH_DIR

Per run: median/min/max step time (first step excluded), FOM = cells / median step,
effective bandwidth = the bytes a step must move (report's traffic.bytes_per_step) over the
median step, the sum of the event-timed phases per step against the step time, and the
host-device bytes per step. For the host owner, the step time predicted from the
transfers: device-owner step + H2D bytes / H2D bandwidth + D2H bytes / D2H bandwidth, with
the bandwidth measured by this run's own copies (state_upload / state_download phases).
"""
import json
import pathlib
import sys


def load(folder):
    runs = {}
    for path in sorted(pathlib.Path(folder).glob("*.json")):
        with open(path) as f:
            runs[path.stem] = json.load(f)
    return runs


def phase_mean(r, name):
    t = r["timers"].get(name)
    return t["mean_s"] if t else 0.0


def main(folder):
    runs = load(folder)
    if not runs:
        print("no reports in", folder)
        return 1
    any_run = next(iter(runs.values()))
    dev = any_run["device"]
    memory = "?" if dev["memory_bytes"] is None else f"{dev['memory_bytes'] / 2**30:.0f}"
    print(f"Device: {dev['name']}, {memory} GiB, {dev['compute_units']} SMs, "
          f"{dev['runtime_version']}, {dev['driver_version']}; halocline {any_run['halocline_version']}\n")
    print("| run | steps | median step ms | min | max | FOM Gcell/s | eff. BW TB/s | phases sum ms | step / phases | H2D MB/step | D2H MB/step |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name, r in runs.items():
        st = r["step_time_s"]
        cells = r["config"]["grid"][0] * r["config"]["grid"][1] * r["config"]["grid"][2]
        if "median" not in st:  # no step timed (null rates in the report)
            print(f"| {name} | {r['steps']} | - | - | - | - | - | - | - | - | - |")
            continue
        med = st["median"]
        phases = r["timers_sum_per_step_s"]
        h2d = r["transfers"]["h2d"]["per_step"]["bytes"] / 1e6
        d2h = r["transfers"]["d2h"]["per_step"]["bytes"] / 1e6
        print(f"| {name} | {r['steps']} | {med * 1e3:.3f} | {st['min'] * 1e3:.3f} | {st['max'] * 1e3:.3f} | "
              f"{cells / med / 1e9:.3f} | {r['traffic']['effective_bandwidth_Bps'] / 1e12:.3f} | "
              f"{phases * 1e3:.3f} | {med / phases:.3f} | {h2d:.1f} | {d2h:.1f} |")

    print("\nHost owner: step time explained by its transfers\n")
    print("| run | measured ms | device-owner step ms | H2D GB/s | D2H GB/s | predicted ms | measured / predicted |")
    print("|---|---|---|---|---|---|---|")
    for name, r in runs.items():
        if r["config"]["owner"] != "host":
            continue
        base = name.split("_soa_fp64_")[0] + "_soa_fp64_device"
        if base not in runs:
            continue
        dev_step = runs[base]["step_time_s"]["median"]
        h2d_bytes = r["transfers"]["h2d"]["per_step"]["bytes"]
        d2h_bytes = r["transfers"]["d2h"]["per_step"]["bytes"]
        up, down = phase_mean(r, "state_upload"), phase_mean(r, "state_download")
        bw_up, bw_down = h2d_bytes / up, d2h_bytes / down
        predicted = dev_step + h2d_bytes / bw_up + d2h_bytes / bw_down
        measured = r["step_time_s"]["median"]
        print(f"| {name} | {measured * 1e3:.1f} | {dev_step * 1e3:.3f} | {bw_up / 1e9:.1f} | {bw_down / 1e9:.1f} | "
              f"{predicted * 1e3:.1f} | {measured / predicted:.3f} |")

    print("\nPhase means (ms) of the device-owner SoA fp64 runs\n")
    for name, r in runs.items():
        if name.endswith("_soa_fp64_device"):
            items = ", ".join(f"{k} {v['mean_s'] * 1e3:.3f}" for k, v in r["timers"].items() if k != "output")
            print(f"- {name}: {items}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
