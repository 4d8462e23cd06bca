#!/usr/bin/python3
"""Pictures of Halocline's measurements (matplotlib from Debian: python3-matplotlib).

    tools/plot.py [--bench bench.json] [--probe probe.json] [--report report.json ...] --out DIR

--bench   a `halocline bench` sweep: one bar chart per swept key (its values side by side,
          every other key at the baseline's value: the layout comparison, the owner models,
          ...), and one chart of every configuration that ran, fastest first.
--probe   a `halocline probe`: host <-> device copy bandwidth against size, per memory kind
          and direction (pageable, pinned, managed).
--compare `halocline benchmark` results (benchmark.json, repeatable): the figure of merit of
          each, fp64 and fp32 side by side, the bars' whiskers the repetitions' min-max
          (compare.png); `halocline compare --plot DIR` draws it.
--report  a run's report.json: the timeline of its traced step, one row per stream (compute,
          halo, host), each backend call a bar, so that overlap can be seen. Several reports
          give several timelines (timeline_<name>.png, name from the report's config).

Writes PNG files into DIR and prints their names. A file there under a picture's name that
is not a PNG this script could have drawn (someone's file, a link to one) is never replaced:
the script stops with one line and exit status 2.
"""
import argparse
import json
import math
import os
import stat
import sys
import tempfile

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    sys.exit("plot.py: matplotlib is missing: apt-get install python3-matplotlib")


PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def refuse_foreign(path):
    """Stops (exit 2) where `path` holds what this script must not replace: a link, not a
    plain file, a file with another name (a hard link), or a file that is not a PNG."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    why = None
    if stat.S_ISLNK(st.st_mode):
        why = "a symbolic link"
    elif not stat.S_ISREG(st.st_mode):
        why = "not a regular file"
    elif st.st_nlink != 1:
        why = "a file with another name (a hard link)"
    else:
        with open(path, "rb") as f:
            if f.read(len(PNG_SIGNATURE)) != PNG_SIGNATURE:
                why = "not a PNG image"
    if why:
        print(f"plot.py: '{path}' is {why}: only the pictures it drew are replaced", file=sys.stderr)
        sys.exit(2)


def save(fig, out, name):
    """Draws into a temporary file of `out`, then renames it onto `out/name`: never through a
    link planted there, never over someone's file."""
    path = os.path.join(out, name)
    fig.tight_layout()
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=out)
    umask = os.umask(0)
    os.umask(umask)
    os.fchmod(fd, 0o666 & ~umask)  # as a picture written in place (mkstemp's are the owner's alone)
    try:
        with os.fdopen(fd, "wb") as f:
            fig.savefig(f, format="png", dpi=120, bbox_inches="tight")
        refuse_foreign(path)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
        plt.close(fig)
    print(path)
    return path


def label(values, keys):
    return ", ".join(f"{k}={values[k]}" for k in keys)


def three_digits(x):
    """x with three significant digits and no exponent: 2.41, 0.922, 15.3, 1000."""
    if x <= 0:
        return "0"
    decimals = max(0, 2 - math.floor(math.log10(x)))
    return f"{x:.{decimals}f}"


def rate_labels(rates):
    """Cell-update rates in the unit the largest needs: G on a GPU (2.41 Gcell/s), M on a CPU
    core, whose million or so a second would read 0.00 Gcell/s."""
    scale, unit = (1e9, "Gcell/s") if max(rates) >= 1e9 else (1e6, "Mcell/s")
    return [f"{three_digits(r / scale)} {unit}" for r in rates]


def bench_plots(bench, out):
    for fig, name in bench_figures(bench):
        save(fig, out, name)


def bench_figures(bench):
    """Per swept key, its values with the other keys at the baseline; then every run."""
    rows = [r for r in bench["rows"] if "step_s" in r]  # those that ran (not skipped, not failed)
    if not rows:
        return
    keys = [s["key"] for s in bench["sweeps"]]
    base = next((r for r in bench["rows"] if r["name"] == bench.get("baseline")), rows[0])
    deck = os.path.basename(bench["deck"])
    sets = " ".join(bench.get("sets", []))
    for key in keys:
        others = [k for k in keys if k != key]
        # The key's values with every other key as in the baseline; where fewer than two of
        # those ran (host-mem changes nothing at the device owner without exchange, so it is
        # skipped there), the nearest setting of the other keys where at least two ran.
        groups = {}
        for r in rows:
            groups.setdefault(tuple(r["values"][k] for k in others), []).append(r)
        usable = [g for g in groups.values() if len(g) >= 2]
        if not usable:
            continue
        chosen = min(usable, key=lambda g: sum(g[0]["values"][k] != base["values"][k] for k in others))
        context = chosen[0]["values"]
        fig, ax = plt.subplots(figsize=(6.4, 4.2))
        names = [r["values"][key] for r in chosen]
        med = [r["step_s"]["median"] * 1e3 for r in chosen]
        lo = [m - r["step_s"]["min"] * 1e3 for m, r in zip(med, chosen)]
        hi = [r["step_s"]["max"] * 1e3 - m for m, r in zip(med, chosen)]
        bars = ax.bar(names, med, yerr=[lo, hi], capsize=4, color="tab:blue")
        for b, text in zip(bars, rate_labels([r["fom_cell_updates_per_s"] for r in chosen])):
            ax.annotate(text, (b.get_x() + b.get_width() / 2, b.get_height()), ha="center", va="bottom",
                        fontsize=8, xytext=(0, 3), textcoords="offset points")
        ax.set_xlabel(key)
        ax.set_ylabel("step time, ms (median; bars: min-max)")
        ax.set_title(f"{key}: {deck} {sets}\n" + (label(context, others) or "(only key)"),
                     fontsize=9)
        yield fig, f"bench_{key.replace('.', '_')}.png"
    rows = sorted(rows, key=lambda r: r["step_s"]["median"])
    fig, ax = plt.subplots(figsize=(8, 0.3 * len(rows) + 1.5))
    ax.barh([r["name"] for r in rows], [r["step_s"]["median"] * 1e3 for r in rows], color="tab:green")
    ax.invert_yaxis()
    ax.set_xlabel("step time, ms (median of the repetitions)")
    ax.set_title(f"every configuration that ran: {deck} {sets}", fontsize=9)
    ax.tick_params(axis="y", labelsize=7)
    yield fig, "bench_all.png"


def probe_plot(probe, out):
    points = probe.get("transfers", [])
    if not points:
        print(f"plot.py: the probe has no host <-> device copies ({probe.get('transfers_note', '')})")
        return
    fig, ax = plt.subplots(figsize=(7, 4.5))
    styles = {"pinned": "tab:blue", "pageable": "tab:orange", "managed": "tab:green"}
    for memory, color in styles.items():
        for direction, line in (("h2d", "-"), ("d2h", "--")):
            sel = [p for p in points if p["memory"] == memory and p["direction"] == direction]
            if sel:
                ax.plot([p["bytes"] for p in sel], [p["Bps"] / 1e9 for p in sel], line, marker="o",
                        color=color, label=f"{memory} {direction}")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("bytes per copy")
    ax.set_ylabel("bandwidth, GB/s (best of the repetitions)")
    ax.set_title(f"host <-> device copies: {probe['device']} ({probe['backend']})", fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    save(fig, out, "transfers.png")


# The first part a phase's name contains gives its colour: "unpack" comes before "pack", which
# it contains (unpack was drawn in pack's orange).
PHASE_COLORS = [("interior", "tab:blue"), ("boundary", "tab:cyan"), ("reconstruct_flux", "tab:blue"),
                ("update", "tab:purple"), ("dt_reduction", "tab:gray"), ("unpack", "tab:brown"),
                ("pack", "tab:orange"), ("d2h", "tab:red"), ("h2d", "tab:pink"), ("mpi", "tab:olive"),
                ("ghost_fill", "tab:green"), ("state_", "black")]


def color_of(phase):
    for part, color in PHASE_COLORS:
        if part in phase:
            return color
    return "lightgray"


def timeline_plot(report, out):
    drawn = timeline_figure(report)
    if drawn:
        fig, name = drawn
        save(fig, out, name)


def timeline_figure(report):
    """The traced step, one row per stream; None when the report has no timeline."""
    events = report.get("timeline", {}).get("events", [])
    if not events:
        print("plot.py: the report has no timeline (a run of fewer than 3 steps)")
        return None
    cfg = report["config"]
    name = f"{cfg['layout']}_{cfg['precision']}_{cfg['owner']}_{cfg['halo']}"
    streams = [s for s in ("compute", "halo", "host") if any(e["stream"] == s for e in events)]
    kinds = {e["phase"].split(".")[-1] for e in events}
    # The legend sits right of the axes, clear of every label whatever the number of rows
    # (below them it covered the x label of a one-row timeline); the figure is tall enough
    # for it.
    columns = 1 if len(kinds) <= 8 else 2
    height = max(1.0 + 0.8 * len(streams), 0.8 + 0.17 * math.ceil(len(kinds) / columns))
    fig, ax = plt.subplots(figsize=(10, height))
    seen = set()
    for row, stream in enumerate(streams):
        for e in (e for e in events if e["stream"] == stream):
            kind = e["phase"].split(".")[-1]
            ax.broken_barh([(e["start_s"] * 1e3, max(e["end_s"] - e["start_s"], 1e-7) * 1e3)],
                           (row - 0.35, 0.7), facecolors=color_of(kind), edgecolor="black",
                           linewidth=0.2, label=None if kind in seen else kind)
            seen.add(kind)
    ax.set_yticks(range(len(streams)))
    ax.set_yticklabels(streams)
    ax.invert_yaxis()
    ax.set_xlabel("ms since the step began")
    grid = "x".join(str(n) for n in cfg["grid"])
    ax.set_title(f"one step ({report['timeline']['step']}): {grid} {cfg['layout']} {cfg['precision']}, "
                 f"owner {cfg['owner']}, halo {cfg['halo']}, {report['device']['name']}", fontsize=9)
    ax.legend(fontsize=7, ncol=columns, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)
    return fig, f"timeline_{name}.png"


def compare_figure(results):
    """Each result's FOM (fp64, fp32), whiskers from its slowest and fastest repetition."""
    fig, ax = plt.subplots(figsize=(max(6.4, 1.6 * len(results) + 2), 4.2))
    width = 0.38
    rates = [c["fom_cell_updates_per_s"] for _, r in results for c in r["configurations"]]
    scale, unit = (1e9, "Gcell/s") if max(rates) >= 1e9 else (1e6, "Mcell/s")
    for k, (precision, color) in enumerate((("fp64", "tab:blue"), ("fp32", "tab:orange"))):
        xs, ys, lo, hi = [], [], [], []
        for i, (_, r) in enumerate(results):
            c = next(c for c in r["configurations"] if c["precision"] == precision)
            fom, cells = c["fom_cell_updates_per_s"] / scale, c["cells"] / scale
            xs.append(i + (k - 0.5) * width)
            ys.append(fom)
            # Never below 0: where the repetitions tie, the rounding of fom against
            # cells / step can leave -1e-16, which matplotlib refuses.
            lo.append(max(0.0, fom - cells / c["step_s"]["max"]))
            hi.append(max(0.0, cells / c["step_s"]["min"] - fom))
        ax.bar(xs, ys, width, yerr=[lo, hi], capsize=4, color=color, label=f"SoA {precision}")
    ax.set_xticks(range(len(results)))
    ax.set_xticklabels([name + ("" if r["compliant"] else "\n(NON-COMPLIANT)") for name, r in results], fontsize=8)
    ax.set_ylabel(f"figure of merit, {unit} (cell updates/s)")
    ax.set_title("halocline benchmark: interior cells / median step time", fontsize=9)
    ax.legend(fontsize=8)
    return fig, "compare.png"


def result_names(paths):
    """Each result as far up its path as tells them apart: A/benchmark and B/benchmark (not
    benchmark twice), a.json and b.json of one folder."""
    files = [os.path.abspath(p) for p in paths]
    if len(set(files)) < 2:
        return [os.path.basename(os.path.dirname(f)) or p for f, p in zip(files, paths)]
    common = os.path.commonpath(files)
    names = [os.path.relpath(f, common) for f in files]
    suffix = os.sep + "benchmark.json"
    if all(n.endswith(suffix) for n in names):
        names = [n[: -len(suffix)] for n in names]
    return names


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bench")
    parser.add_argument("--probe")
    parser.add_argument("--report", action="append", default=[])
    parser.add_argument("--compare", action="append", default=[])
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    if not (args.bench or args.probe or args.report or args.compare):
        parser.error("give at least one of --bench, --probe, --report, --compare")
    os.makedirs(args.out, exist_ok=True)

    def load(path):
        try:
            with open(path) as f:
                return json.load(f)
        except (OSError, ValueError) as e:
            sys.exit(f"plot.py: {path}: {e}")

    if args.bench:
        bench_plots(load(args.bench), args.out)
    if args.probe:
        probe_plot(load(args.probe), args.out)
    for path in args.report:
        timeline_plot(load(path), args.out)
    if args.compare:
        results = [(name, load(p)) for name, p in zip(result_names(args.compare), args.compare)]
        fig, name = compare_figure(results)
        save(fig, args.out, name)


if __name__ == "__main__":
    try:
        main()
    except OSError as e:  # one line, not a traceback: a folder that is a file, a full disk
        print(f"plot.py: {e}", file=sys.stderr)
        sys.exit(1)
