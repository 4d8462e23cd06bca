#!/usr/bin/env python3
"""Snapshots read back with h5py, as a user would (docs/output.md): a 1-D Sod run in fp32 and
a 2-D Kelvin-Helmholtz slab in fp64 (and, where MPI is given, the slab written by 2 ranks into
one file). For each: every attribute against the run's report.json and deck, the coordinates
against origin and spacing, the arrays' shapes (z, y, x) and types, the initial state's values
where they are known exactly, the final mass against the report's exact total, the provenance
group against the report's, and the XDMF's mesh against the file.

  snapshot_h5py.py HALOCLINE SOURCE_DIR MPIEXEC|none

Exits 77 (ctest: skipped) with the reason when h5py cannot be imported.
"""
import json
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree

try:
    import h5py
    import numpy as np
except ImportError as e:
    print(f"SKIP: h5py is not importable by {sys.executable} ({e}); Debian: apt-get install python3-h5py")
    sys.exit(77)

FAILURES = []


def check(condition, what):
    if not condition:
        FAILURES.append(what)
        print("FAIL:", what)


def text(value):
    """A fixed-length string attribute (h5py gives bytes) as str."""
    return value.decode() if isinstance(value, (bytes, np.bytes_)) else str(value)


def run(halocline, args, launcher=()):
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_btl="self,vader", OMPI_MCA_btl_vader_single_copy_mechanism="none")
    subprocess.run([*launcher, halocline, "run", *args, "--no-probe", "--quiet"], check=True, env=env)


def provenance_of(group):
    """The group's attributes as report.json writes them: texts, integers, booleans."""
    fields = {}
    for name, value in group.attrs.items():
        if isinstance(value, (bytes, np.bytes_)):
            fields[name] = value.decode()
        elif isinstance(value, (bool, np.bool_)):
            fields[name] = bool(value)
        else:
            fields[name] = int(value)
    return fields


def check_attributes(f, report, deck_path, where):
    config = report["config"]
    a = f.attrs
    check(text(a["format"]) == "halocline-snapshot", f"{where}: format {a['format']}")
    check(int(a["format_version"]) == 3, f"{where}: format_version {a['format_version']}")
    series = text(a["series"])
    check(len(series) == 16 and all(c in "0123456789abcdef" for c in series), f"{where}: series {series!r}")
    check(text(a["halocline_version"]) == report["halocline_version"], f"{where}: halocline_version")
    check(text(a["problem"]) == config["problem"], f"{where}: problem {a['problem']}")
    check(float(a["gamma"]) == config["gamma"], f"{where}: gamma {a['gamma']}")
    check(text(a["precision"]) == config["precision"], f"{where}: precision {a['precision']}")
    check(text(a["layout"]) == config["layout"], f"{where}: layout {a['layout']}")
    check(text(a["backend"]) == config["backend"], f"{where}: backend {a['backend']}")
    with open(deck_path, encoding="utf-8") as deck:
        check(text(a["deck"]) == deck.read(), f"{where}: deck is not the deck's text")
    check(text(a["units"]).startswith("code units (nondimensional)"), f"{where}: units {a['units']}")
    check(text(a["dimension_order_datasets"]) == "z y x", f"{where}: dimension_order_datasets")
    check(text(a["dimension_order_grid_origin_spacing"]) == "x y z", f"{where}: dimension_order_grid_origin_spacing")
    check(list(a["grid"]) == config["grid"], f"{where}: grid {a['grid']} against {config['grid']}")
    check(provenance_of(f["provenance"]) == report["provenance"],
          f"{where}: provenance {provenance_of(f['provenance'])} against {report['provenance']}")


def check_coordinates_and_shapes(f, where):
    n, origin, spacing = list(f.attrs["grid"]), f.attrs["origin"], f.attrs["spacing"]
    for d, axis in enumerate("xyz"):
        centres = origin[d] + (np.arange(n[d]) + 0.5) * spacing[d]
        check(f[axis].dtype == np.float64, f"{where}: {axis} is {f[axis].dtype}")
        check(np.array_equal(f[axis][:], centres), f"{where}: {axis} = {f[axis][:]}, expected {centres}")
    dtype = np.float32 if text(f.attrs["precision"]) == "fp32" else np.float64
    for var in "rho", "u", "v", "w", "p":
        check(f[var].shape == (n[2], n[1], n[0]), f"{where}: {var} has shape {f[var].shape}")
        check(f[var].dtype == dtype, f"{where}: {var} is {f[var].dtype}")


def check_final(f, report, where):
    check(float(f.attrs["time"]) == report["sim_time"], f"{where}: time {f.attrs['time']} against the report's")
    check(int(f.attrs["step"]) == report["steps"], f"{where}: step {f.attrs['step']} against the report's")
    volume = float(np.prod(f.attrs["spacing"]))
    mass = float(np.sum(f["rho"][:], dtype=np.float64)) * volume
    exact = report["conservation"]["final"]["mass"]
    check(abs(mass - exact) <= 1e-13 * exact, f"{where}: mass {mass!r} against the report's {exact!r}")


def check_xdmf(xmf_path, f, where):
    """The XDMF's mesh and its variables' shapes match the file: one node at the centre of an
    axis of one cell, n + 1 around n cells otherwise (z, y, x)."""
    grid = ElementTree.parse(xmf_path).getroot().find(".//Grid[@GridType='Uniform']")
    n, origin, spacing = list(f.attrs["grid"]), f.attrs["origin"], f.attrs["spacing"]
    nodes = [1 if n[d] == 1 else n[d] + 1 for d in (2, 1, 0)]
    topology = grid.find("Topology")
    check(topology.get("TopologyType") == "3DCoRectMesh", f"{where}: topology {topology.get('TopologyType')}")
    check([int(x) for x in topology.get("Dimensions").split()] == nodes,
          f"{where}: XDMF nodes {topology.get('Dimensions')}, expected {nodes}")
    xdmf_origin, xdmf_spacing = ([float(x) for x in item.text.split()] for item in grid.find("Geometry"))
    for d in range(3):
        expected = origin[d] + 0.5 * spacing[d] if n[d] == 1 else origin[d]
        check(xdmf_origin[2 - d] == expected, f"{where}: XDMF origin {xdmf_origin}")
        check(xdmf_spacing[2 - d] == spacing[d], f"{where}: XDMF spacing {xdmf_spacing}")
    for attribute in grid.findall("Attribute"):
        item = attribute.find("DataItem")
        name = item.text.split(":/")[1]
        dims = tuple(int(x) for x in item.get("Dimensions").split())
        check(dims == f[name].shape, f"{where}: XDMF says {name} is {dims}, the file {f[name].shape}")


def main():
    halocline, source, mpiexec = sys.argv[1:4]
    sod, kh = f"{source}/inputs/sod.toml", f"{source}/inputs/kh.toml"
    with tempfile.TemporaryDirectory() as work:
        # Sod in fp32 along x: snapshots at t = 0 and after 5 steps.
        run(halocline, [sod, "--set", "grid.nx=40", "--precision", "fp32", "--steps", "5",
                        "--set", "output.interval=100", "--out", f"{work}/sod"])
        report = json.load(open(f"{work}/sod/report.json"))
        with h5py.File(f"{work}/sod/snapshot_0000.h5") as f:
            check_attributes(f, report, sod, "sod t=0")
            check_coordinates_and_shapes(f, "sod t=0")
            left = f["x"][:] < 0.5  # the deck's x0: 1 and 1 on the left, 0.125 and 0.1 on the right
            check(np.array_equal(f["rho"][0, 0, :], np.where(left, 1.0, 0.125).astype(np.float32)), "sod t=0: rho")
            check(np.array_equal(f["p"][0, 0, :], np.where(left, 1.0, 0.1).astype(np.float32)), "sod t=0: p")
            check(not np.any(f["u"][:]) and not np.any(f["v"][:]) and not np.any(f["w"][:]), "sod t=0: at rest")
            check(float(f.attrs["time"]) == 0.0 and int(f.attrs["step"]) == 0, "sod t=0: time and step")
            check_xdmf(f"{work}/sod/snapshot_0000.xmf", f, "sod t=0")
        with h5py.File(f"{work}/sod/snapshot_0001.h5") as f:
            check_final(f, report, "sod final")
        print("checked: sod, 40 cells along x, fp32, at t = 0 and after 5 steps")
        # A 2-D slab of Kelvin-Helmholtz in fp64, 24 x 16 cells.
        run(halocline, [kh, "--set", "grid.nx=24", "--set", "grid.ny=16", "--steps", "4", "--set",
                        "output.interval=100", "--out", f"{work}/kh"])
        report = json.load(open(f"{work}/kh/report.json"))
        with h5py.File(f"{work}/kh/snapshot_0001.h5") as f:
            check_attributes(f, report, kh, "kh final")
            check_coordinates_and_shapes(f, "kh final")
            check_final(f, report, "kh final")
            check_xdmf(f"{work}/kh/snapshot_0001.xmf", f, "kh final")
            one_rank = {var: f[var][:] for var in ("rho", "u", "v", "w", "p", "x", "y", "z")}
        print("checked: kh, 24 x 16 cells, fp64, after 4 steps")
        if mpiexec != "none":
            # Two ranks, one file written by both (parallel HDF5) or gathered by rank 0.
            run(halocline, [kh, "--set", "grid.nx=24", "--set", "grid.ny=16", "--steps", "4", "--set",
                            "output.interval=100", "--ranks-grid", "1,2,1", "--out", f"{work}/kh2"],
                launcher=(mpiexec, "--oversubscribe", "-n", "2"))
            report2 = json.load(open(f"{work}/kh2/report.json"))
            with h5py.File(f"{work}/kh2/snapshot_0001.h5") as f:
                where = f"kh on 2 ranks ({report2['config']['output_mode']})"
                check_attributes(f, report2, kh, where)
                for var, values in one_rank.items():
                    check(np.array_equal(f[var][:], values), f"{where}: {var} differs from one rank's")
            print(f"checked: {where}, the same values as one rank's")
    if FAILURES:
        print(f"{len(FAILURES)} failure(s)")
        return 1
    print("ok: h5py", h5py.__version__, "read every attribute, coordinate and value as expected")
    return 0


if __name__ == "__main__":
    sys.exit(main())
