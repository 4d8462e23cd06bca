#!/usr/bin/env python3
"""tools/gpu/ab_table.py on bench.json files written here: two rounds of a base and a head build,
one configuration whose checksums agree and one whose head differs, and a deck only base ran.
The table must give each round's median ms, head / base as the ratio of the medians over rounds,
"equal" or "differ", mark the missing run, and exit 1 for it. A trial's table (ab.sh's further
heads) holds the trial's runs against base, and none of head's.

    tests/ab_table_check.py SOURCE_DIR
"""
import json
import pathlib
import subprocess
import sys
import tempfile


def bench_json(folder, rows):
    folder.mkdir(parents=True)
    (folder / "bench.json").write_text(json.dumps({"rows": [
        {"name": name, "checksum": checksum, "step_s": {"median": ms / 1e3}} for name, ms, checksum in rows]}))


def main():
    tool = pathlib.Path(sys.argv[1]) / "tools" / "gpu" / "ab_table.py"
    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(tmp)
        bench_json(out / "base-bench-r1", [("kernels=split", 10.0, "aa"), ("kernels=fused", 8.0, "bb")])
        bench_json(out / "base-bench-r2", [("kernels=split", 12.0, "aa"), ("kernels=fused", 8.0, "bb")])
        bench_json(out / "head-bench-r1", [("kernels=split", 5.0, "aa"), ("kernels=fused", 6.0, "bc")])
        bench_json(out / "head-bench-r2", [("kernels=split", 6.0, "aa"), ("kernels=fused", 6.0, "bc")])
        bench_json(out / "base-sedov-r1", [("kernels=split", 3.0, "cc")])
        bench_json(out / "fast_io-bench-r1", [("kernels=split", 20.0, "aa"), ("kernels=fused", 4.0, "bb")])
        bench_json(out / "fast_io-bench-r2", [("kernels=split", 22.0, "aa"), ("kernels=fused", 4.0, "bb")])
        bench_json(out / "fast_io-sedov-r1", [("kernels=split", 3.3, "cc")])
        run = subprocess.run([sys.executable, str(tool), str(out), "17baa1627350"], capture_output=True, text=True)
        trial = subprocess.run([sys.executable, str(tool), str(out), "17baa1627350", "fast_io", "0cd2e0e00000"],
                               capture_output=True, text=True)
    lines = run.stdout.splitlines()
    want = [
        "| bench | kernels=fused | 8.000, 8.000 | 6.000, 6.000 | 0.750 | differ |",
        "| bench | kernels=split | 10.000, 12.000 | 5.000, 6.000 | 0.500 | equal |",
        "| sedov | kernels=split | ran | missing | - | - |",
    ]
    failures = [w for w in want if w not in lines]
    if run.returncode != 1:
        failures.append(f"exit code {run.returncode}, not 1 (a run is missing)")
    if not any("base 17baa1627350" in line for line in lines):
        failures.append("the heading does not name the base")
    trial_want = [
        "# A/B: base 17baa1627350 against trial fast_io (0cd2e0e00000), median ms per step",
        "| deck | configuration | base, each round | fast_io, each round | fast_io / base | checksums |",
        "| bench | kernels=fused | 8.000, 8.000 | 4.000, 4.000 | 0.500 | equal |",
        "| bench | kernels=split | 10.000, 12.000 | 20.000, 22.000 | 1.909 | equal |",
        "| sedov | kernels=split | 3.000 | 3.300 | 1.100 | equal |",
    ]
    failures += [f"trial: {w}" for w in trial_want if w not in trial.stdout.splitlines()]
    if trial.returncode != 0:
        failures.append(f"trial: exit code {trial.returncode}, not 0 (every run is there)")
    for failure in failures:
        print("FAIL:", failure)
    if failures:
        print(run.stdout, run.stderr, trial.stdout, trial.stderr)
        return 1
    print("ok: rounds, ratios, checksums and the missing run as expected")
    return 0


if __name__ == "__main__":
    sys.exit(main())
