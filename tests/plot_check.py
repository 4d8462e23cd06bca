#!/usr/bin/env python3
"""What tools/plot.py draws, checked on the figures themselves (before they become PNGs).

    tests/plot_check.py CHECK HALOCLINE SOURCE_DIR

CHECK is one of:
  BarsScaleTheirUnits         the rate above each bar is in G cell-updates/s where the
                              largest of the chart reaches 1e9 (the H200's recorded sweep),
                              else in M (a sweep run here on the CPU), equal to the sweep's
                              figure to three digits, and never reads zero
  TimelineLegendCoversNoLabel the legend of a timeline with one, two and three rows (a run
                              here; the H200's recorded sync and overlap runs) overlaps no
                              label, title or tick label
  PhasesKeepTheirColours      every phase of the H200's recorded overlap timeline is drawn in
                              the colour of its own part of the name (unpack was drawn in
                              pack's orange), and pack and unpack differ
  CompareNamesTellResultsApart compare.png names each result as far up its path as tells
                              them apart (A/benchmark, B/benchmark: not benchmark twice)
  CompareDrawsTiedRepetitions  compare.png of a result whose repetitions tie (one
                              repetition: min = median = max) draws, with no whisker below 0
                              (rounding made one -9e-16, which matplotlib refused)

Exits 0 when the check holds, 1 naming what broke, 77 (skipped) without matplotlib.
"""
import importlib.util
import json
import os
import subprocess
import sys
import tempfile

from check_verdict import verdict

try:
    import matplotlib

    matplotlib.use("Agg")
except ImportError:
    print(f"SKIP: {sys.executable} has no matplotlib (apt-get install python3-matplotlib)")
    sys.exit(77)


def load_plot(src):
    spec = importlib.util.spec_from_file_location("plot", os.path.join(src, "tools", "plot.py"))
    plot = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(plot)
    return plot


def run(binary, *args):
    subprocess.run([binary, *args, "--quiet"], check=True, stdout=subprocess.DEVNULL)


def bar_labels(plot, bench):
    """(the rate annotated above each bar, that configuration's rate) for every bar chart."""
    found = []
    for fig, _ in plot.bench_figures(bench):
        ax = fig.axes[0]
        texts = [t.get_text() for t in ax.texts]
        if texts:  # bench_all.png has no annotations
            # Each bar is the configuration with its key's value and its median step (ms).
            key = ax.get_xlabel()
            names = [t.get_text() for t in ax.get_xticklabels()]
            heights = [p.get_height() for p in ax.patches]
            rates = [next(r["fom_cell_updates_per_s"] for r in bench["rows"]
                          if "step_s" in r and r["values"][key] == name
                          and abs(r["step_s"]["median"] * 1e3 - height) <= 1e-9 * height)
                     for name, height in zip(names, heights)]
            found.append(list(zip(texts, rates)))
        plot.plt.close(fig)
    return found


def check_units(plot, bench, source):
    failures = []
    charts = bar_labels(plot, bench)
    if not charts:
        failures.append(f"{source}: no bar chart with rates")
    for chart in charts:
        top = max(rate for _, rate in chart)
        scale, unit = (1e9, "Gcell/s") if top >= 1e9 else (1e6, "Mcell/s")
        for text, rate in chart:
            number, _, shown_unit = text.partition(" ")
            if shown_unit != unit or float(number) <= 0 or abs(float(number) - rate / scale) > 0.005 * rate / scale:
                failures.append(f"{source}: '{text}' for {rate:.6g} cell/s (wanted {rate / scale:.3g} {unit})")
    return failures


def bars_scale_their_units(plot, binary, src, work):
    failures = []
    if plot.rate_labels([921837.0, 1.6e6]) != ["0.922 Mcell/s", "1.60 Mcell/s"]:
        failures.append(f"rate_labels of a CPU's rates: {plot.rate_labels([921837.0, 1.6e6])}")
    if plot.rate_labels([2.41e9, 0.5e9]) != ["2.41 Gcell/s", "0.500 Gcell/s"]:
        failures.append(f"rate_labels of a GPU's rates: {plot.rate_labels([2.41e9, 0.5e9])}")
    with open(os.path.join(src, "tests", "data", "h200", "bench.json")) as f:
        failures += check_units(plot, json.load(f), "the H200's bench.json")
    run(binary, "bench", os.path.join(src, "inputs", "bench.toml"), "--set", "grid.n=12", "--sweep",
        "layout=aos,soa", "--repeat", "1", "--steps", "2", "--out", os.path.join(work, "bench"))
    with open(os.path.join(work, "bench", "bench.json")) as f:
        cpu = json.load(f)
    if max(r["fom_cell_updates_per_s"] for r in cpu["rows"] if "step_s" in r) >= 1e9:
        failures.append("this machine's 12^3 sweep ran at 1e9 cell/s or more: no M-scale sample to check")
    failures += check_units(plot, cpu, "a 12^3 sweep on this machine")
    return failures


def timeline_legend_covers_no_label(plot, binary, src, work):
    run(binary, "run", "--no-probe", os.path.join(src, "inputs", "bench.toml"), "--set", "grid.n=12",
        "--steps", "4", "--out", os.path.join(work, "run"))
    reports = [os.path.join(work, "run", "report.json")] + [
        os.path.join(src, "tests", "data", "h200", "lab", f"report_aos_fp64_device_{halo}.json")
        for halo in ("sync", "overlap")]
    failures = []
    rows_seen = set()
    for path in reports:
        with open(path) as f:
            fig, name = plot.timeline_figure(json.load(f))
        fig.tight_layout()
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        ax = fig.axes[0]
        rows_seen.add(len(ax.get_yticks()))
        legend = ax.get_legend().get_window_extent(renderer)
        labels = [ax.xaxis.label, ax.yaxis.label, ax.title] + ax.get_xticklabels() + ax.get_yticklabels()
        for text in labels:
            if text.get_text() and text.get_visible() and legend.overlaps(text.get_window_extent(renderer)):
                failures.append(f"{name} ({len(ax.get_yticks())} rows): the legend covers '{text.get_text()}'")
        plot.plt.close(fig)
    if rows_seen != {1, 2, 3}:
        failures.append(f"timelines of 1, 2 and 3 rows expected, drew {sorted(rows_seen)}")
    return failures


def phases_keep_their_colours(plot, binary, src, work):
    path = os.path.join(src, "tests", "data", "h200", "lab", "report_aos_fp64_device_overlap.json")
    with open(path) as f:
        phases = {e["phase"] for e in json.load(f)["timeline"]["events"]}
    failures = []
    for phase in sorted(phases):
        # The part of the name after its stage ("stage1.unpack": "unpack") names its colour.
        part = phase.split(".")[-1]
        wanted = dict(plot.PHASE_COLORS).get(part)
        if wanted and plot.color_of(phase) != wanted:
            failures.append(f"{phase} drawn in {plot.color_of(phase)}, its part '{part}' is {wanted}")
    if not {"stage1.pack", "stage1.unpack"} <= phases:
        failures.append(f"the overlap timeline has no stage1.pack and stage1.unpack: {sorted(phases)}")
    elif plot.color_of("stage1.pack") == plot.color_of("stage1.unpack"):
        failures.append("pack and unpack share a colour")
    return failures


def compare_names_tell_results_apart(plot, binary, src, work):
    """compare.png's bars were named by each result's folder: benchmark twice for the usual
    A/benchmark/benchmark.json and B/benchmark/benchmark.json."""
    failures = []
    for paths, wanted in [(["A/benchmark/benchmark.json", "B/benchmark/benchmark.json"], ["A/benchmark", "B/benchmark"]),
                          (["runs/a.json", "runs/b.json"], ["a.json", "b.json"]),
                          (["x/one/benchmark.json"], ["one"])]:
        got = plot.result_names(paths)
        if got != wanted:
            failures.append(f"{paths}: named {got}, expected {wanted}")
    return failures


def compare_draws_tied_repetitions(plot, binary, src, work):
    """A result of one repetition: the whiskers' rounding must not fall below 0."""
    cells, step = 4096, 0.00100003  # cells / step / 1e6 - (cells / 1e6) / step = -8.9e-16
    configurations = [{"precision": p, "cells": cells, "fom_cell_updates_per_s": cells / step,
                       "step_s": {"min": step, "median": step, "max": step}} for p in ("fp64", "fp32")]
    try:
        fig, _ = plot.compare_figure([("one", {"configurations": configurations, "compliant": False})])
    except ValueError as e:
        return [f"compare_figure refused tied repetitions: {e}"]
    plot.plt.close(fig)
    return []


CHECKS = {"BarsScaleTheirUnits": bars_scale_their_units,
          "TimelineLegendCoversNoLabel": timeline_legend_covers_no_label,
          "PhasesKeepTheirColours": phases_keep_their_colours,
          "CompareNamesTellResultsApart": compare_names_tell_results_apart,
          "CompareDrawsTiedRepetitions": compare_draws_tied_repetitions}


def main():
    check, binary, src = sys.argv[1:4]
    plot = load_plot(src)
    with tempfile.TemporaryDirectory() as work:
        failures = CHECKS[check](plot, binary, src, work)
    return verdict(check, failures)


if __name__ == "__main__":
    sys.exit(main())
