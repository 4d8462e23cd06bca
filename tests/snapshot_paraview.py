"""ParaView opens a run's XDMF time series (docs/output.md), run by pvbatch from
tests/snapshot_paraview.sh: for each run OUT/NAME given (snapshots at t = 0 and at its end),
OUT/NAME/snapshot.xmf must give both times, an image of the report's grid whose flat axes
(one cell) have no extent, the five variables on the cells, and ParaView's default
representation: a plane or a line it draws coloured ('Slice' or 'Surface') for 1-D and 2-D
runs, where a one-cell-thick volume used to open as an empty 'Outline'; the outline of a 3-D
volume. ParaView's XDMF 3 readers (Xdmf3ReaderS, the one it picks for .xmf, and
Xdmf3ReaderT) must read all of it. Its legacy XDMF 2 reader ('XDMF Reader') is asked for the
mesh and the times only where an axis has one cell: it cannot read cell values on a mesh with
one node along an axis (docs/output.md), and says so.

  pvbatch snapshot_paraview.py OUT NAME ...
"""
import json
import sys

from paraview import simple

FAILURES = []


def check(condition, what):
    if not condition:
        FAILURES.append(what)
        print("FAIL:", what)


READERS = {
    "xdmf3 S": lambda path: simple.Xdmf3ReaderS(FileName=[path]),
    "xdmf3 T": lambda path: simple.Xdmf3ReaderT(FileName=[path]),
    "xdmf2": lambda path: simple.XDMFReader(FileNames=[path]),
}


def check_case(out, name, kind):
    with open(f"{out}/{name}/report.json") as f:
        report = json.load(f)
    n = report["config"]["grid"]
    times = [0.0, report["sim_time"]]
    path = f"{out}/{name}/snapshot.xmf"  # absolute: ParaView's XDMF 2 reader mistakes a bare name
    where = f"{name} ({kind})"
    reader = READERS[kind](path)
    steps = reader.TimestepValues  # a number, not a list, when there is one
    steps = list(steps) if hasattr(steps, "__len__") else [steps]
    check(steps == times, f"{where}: times {steps}, expected {times}")
    reader.UpdatePipeline(times[-1])
    info = reader.GetDataInformation()
    extent = info.GetExtent()
    # An axis of n > 1 cells has n + 1 nodes (extent 0..n); an axis of one cell one node (0..0).
    expected_extent = [e for d in range(3) for e in (0, n[d] if n[d] > 1 else 0)]
    check(list(extent) == expected_extent, f"{where}: extent {list(extent)}, expected {expected_extent}")
    check(info.GetNumberOfCells() == n[0] * n[1] * n[2], f"{where}: {info.GetNumberOfCells()} cells")
    arrays = {reader.CellData[i].GetName(): reader.CellData[i].GetRange() for i in range(len(reader.CellData))}
    dimensions = sum(1 for d in n if d > 1)
    if kind != "xdmf2" or dimensions == 3:
        check(sorted(arrays) == ["p", "rho", "u", "v", "w"], f"{where}: cell arrays {sorted(arrays)}")
        check(arrays.get("rho", (0, 0))[0] > 0 and arrays.get("p", (0, 0))[0] > 0,
              f"{where}: rho {arrays.get('rho')} and p {arrays.get('p')} not positive")
    representation = simple.Show(reader).Representation
    expected = ["Outline"] if dimensions == 3 else ["Slice", "Surface"]
    check(representation in expected, f"{where}: shown as '{representation}', expected one of {expected}")
    print(f"{where}: {info.GetDataSetTypeAsString()}, extent {list(extent)}, {info.GetNumberOfCells()} cells, "
          f"times {steps}, rho in {arrays.get('rho')}, shown as '{representation}'")
    simple.Delete(reader)


def main():
    out = sys.argv[1]
    for name in sys.argv[2:]:
        for kind in READERS:
            check_case(out, name, kind)
    if FAILURES:
        print(f"{len(FAILURES)} failure(s)")
        return 1
    print("ok")
    return 0


sys.exit(main())
