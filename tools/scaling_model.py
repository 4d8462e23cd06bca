#!/usr/bin/env python3
"""The scaling model of docs/scaling.md: step time and efficiency of the overlap strategy
on 1 to 4,096 GPUs, from rates measured on the H200 (docs/benchmarks.md) and two stated
assumptions for the network.

  python3 tools/scaling_model.py            # the tables of docs/scaling.md
  python3 tools/scaling_model.py --check    # the model against the measured H200 runs

Per GPU a subdomain of n^3 cells (cubic decomposition, every face exchanged: with
periodic boundaries, or deep inside a large grid, every rank has 6 neighbours). Per step:

  t_step = t_dt + t_allreduce(P) + max(t_interior, t_chain) + t_shell
  t_interior = c_int (n - 4)^3            cells that read no ghost, both stages
  t_shell    = c_shell (n^3 - (n - 4)^3)  the six slabs, after the ghosts landed
  t_chain    = B (1/b_d2h + 1/b_h2d + 1/b_mpi + 1/b_pack) + 2 x 3 x 2 x alpha
  B          = 2 stages x 6 faces x 5 variables x 2 layers x (n + 4)^2 x 8 bytes

(The exchange of one stage is a chain: for each direction pack, d2h, MPI, h2d, unpack,
one after the other; each of the 2 stages x 3 directions pays a latency alpha at the MPI
step and one at the copies.)
"""
import math
import sys

# Measured on the H200 (docs/benchmarks.md, commit 122abb2), SoA fp64, per step:
C_INT = 55.33e-3 / 508**3      # interior phase at 512^3: s per cell
C_SHELL = 7.11e-3 / (512**3 - 508**3)   # boundary phase at 512^3: s per cell
C_DT = 1.74e-3 / 512**3        # dt_reduction at 512^3: s per cell
B_D2H = 57e9                   # pinned staging, bytes/s
B_H2D = 56e9
B_PACK = 268e6 / 1.07e-3       # pack + unpack at 512^3: bytes of messages per second
B_MPI_HOST = 9.8e9             # MPI between host buffers in one node (self and shared memory)
# From tools/gpu/scale.sh on 2 GPUs (tests/data/h200/scale/, weak 256^3, overlap): the mpi
# phase per step was 6.07 ms with 1 rank (64.9 MB to itself: 10.7 GB/s) and 9.33 ms with 2
# ranks (x and y faces to itself, 43.3 MB, at 10.7 GB/s; the z faces, 21.6 MB, to the
# other process in the rest: 4.1 GB/s).
B_MPI_SELF = 64.9e6 / 6.07e-3
B_MPI_OTHER = 21.6e6 / (9.33e-3 - 43.3e6 / B_MPI_SELF)
COMPUTE_ONLY = {256: 7.09e-3, 512: 60.34e-3}   # --halo none, measured

# Assumed (not measurable here: one node, no network):
B_NET = 25e9      # one 200 Gb/s NIC per GPU, bytes/s, each way
ALPHA = 10e-6     # per message step: MPI latency between nodes, copy and launch latencies
ALPHA_AR = 5e-6   # per level of an allreduce tree


def halo_bytes_per_direction(nx, ny, nz):
    """Both stages, the 2 faces of each direction, 5 variables, 2 ghost layers, fp64."""
    face_cells = ((ny + 4) * (nz + 4), (nx + 4) * (nz + 4), (nx + 4) * (ny + 4))
    return [2 * 5 * 2 * 8 * 2 * f for f in face_cells]


def halo_bytes(nx, ny, nz):
    return sum(halo_bytes_per_direction(nx, ny, nz))


def step_box(nx, ny, nz, ranks, b_mpi):
    """The model's step for a block of nx x ny x nz cells per rank. b_mpi: one MPI rate, or
    one per direction (x, y, z): a rank's faces to itself and to another rank differ."""
    cells = nx * ny * nz
    interior = (nx - 4) * (ny - 4) * (nz - 4)
    t_int = C_INT * interior
    t_shell = C_SHELL * (cells - interior)
    rates = b_mpi if isinstance(b_mpi, tuple) else (b_mpi,) * 3
    t_chain = sum(b * (1 / B_D2H + 1 / B_H2D + 1 / r + 1 / B_PACK)
                  for b, r in zip(halo_bytes_per_direction(nx, ny, nz), rates)) + 2 * 3 * 2 * ALPHA
    t_ar = ALPHA_AR * math.log2(ranks) if ranks > 1 else 0.0
    total = C_DT * cells + t_ar + max(t_int, t_chain) + t_shell
    hidden = min(1.0, t_int / t_chain) if t_chain > 0 else 1.0
    return total, t_int, t_chain, hidden


def step(n, ranks, b_mpi):
    return step_box(n, n, n, ranks, b_mpi)


def weak():
    print("Weak scaling, n^3 per GPU. 1 GPU: every face to itself through host MPI at "
          f"{B_MPI_HOST / 1e9:.1f} GB/s; 8 GPUs of one node: the same host MPI; more: over "
          f"the network at {B_NET / 1e9:.0f} GB/s per GPU.\n")
    print("| n per GPU | GPUs | MPI through | step ms | interior ms | exchange chain ms | chain hidden | efficiency vs 1 GPU | vs compute-only |")
    print("|---|---|---|---|---|---|---|---|---|")
    for n in (256, 512):
        t1 = step(n, 1, B_MPI_HOST)[0]
        for p, b_mpi, via in ((1, B_MPI_HOST, "host"), (8, B_MPI_HOST, "host"), (64, B_NET, "network"),
                              (512, B_NET, "network"), (4096, B_NET, "network")):
            t, ti, tc, h = step(n, p, b_mpi)
            print(f"| {n}^3 | {p} | {via} | {t*1e3:.2f} | {ti*1e3:.2f} | {tc*1e3:.2f} | {h:.2f} | "
                  f"{t1 / t:.3f} | {COMPUTE_ONLY[n] / t:.3f} |")


def strong():
    print("\nStrong scaling, network at "
          f"{B_NET / 1e9:.0f} GB/s per GPU (efficiency = T(P0) P0 / (T(P) P), P0 the first cubic grid of GPUs)\n")
    print("| grid | GPUs | n per GPU | step ms | interior ms | exchange chain ms | part hidden | efficiency |")
    print("|---|---|---|---|---|---|---|---|")
    for N, ps in ((1024, (8, 64, 512, 4096)), (2048, (64, 512, 4096))):
        base = None
        for p in ps:
            n = round(N / round(p ** (1 / 3)))
            t, ti, tc, h = step(n, p, B_NET)
            base = base or (t, p)
            eff = base[0] * base[1] / (t * p)
            print(f"| {N}^3 | {p} | {n} | {t*1e3:.2f} | {ti*1e3:.2f} | {tc*1e3:.2f} | {h:.2f} | {eff:.3f} |")


def check():
    print("Model against the H200 runs (one node: MPI through host memory)\n")
    print("| run | measured median ms | model ms |")
    print("|---|---|---|")
    rows = [("256^3, 1 GPU, overlap pinned", 256, 1, 13.09e-3),
            ("256^3, 1 GPU, overlap pinned (weak-scaling reference)", 256, 1, 11.48e-3),
            ("512^3, 1 GPU, overlap pinned", 512, 1, 65.55e-3),
            ("256^3 per GPU, 2 GPUs, overlap", 256, 2, 13.10e-3),
            ("512^3 per GPU, 2 GPUs, overlap", 512, 2, 66.81e-3)]
    for name, n, p, measured in rows:
        print(f"| {name} | {measured*1e3:.2f} | {step(n, p, B_MPI_HOST)[0]*1e3:.2f} |")
    # tools/gpu/scale.sh on the 2-GPU machine, commit 6f6a781 (tests/data/h200/scale/):
    # overlap, median step over 29 steps. Each run: block per rank, process grid, measured
    # step, and the 1-rank run it is scaled against (weak: same block; strong: same grid).
    def two_rates(grid):  # a direction split over processes sends to another process
        return tuple(B_MPI_OTHER if g > 1 else B_MPI_SELF for g in grid)

    print("\nscale.sh runs (overlap; tests/data/h200/scale/); two rates: a rank's faces to itself at "
          f"{B_MPI_SELF / 1e9:.1f} GB/s, to another process at {B_MPI_OTHER / 1e9:.1f} GB/s\n")
    print("| run | block per rank | measured ms | model ms (one rate) | model ms (two rates) "
          "| measured efficiency | model efficiency (one rate) | model efficiency (two rates) |")
    print("|---|---|---|---|---|---|---|---|")
    runs = [("weak 256^3 per rank, 1 rank", (256, 256, 256), (1, 1, 1), 11.335e-3, None),
            ("weak 256^3 per rank, 2 ranks", (256, 256, 256), (1, 1, 2), 14.591e-3, 0),
            ("strong 512^3, 1 rank", (512, 512, 512), (1, 1, 1), 64.113e-3, None),
            ("strong 512^3, 2 ranks", (512, 512, 256), (1, 1, 2), 48.714e-3, 2),
            ("strong 1024^3, 2 ranks", (1024, 1024, 512), (1, 1, 2), 251.097e-3, None)]
    models = []
    for name, box, grid, measured, ref in runs:
        p = grid[0] * grid[1] * grid[2]
        one = step_box(*box, p, B_MPI_HOST)[0]
        two = step_box(*box, p, two_rates(grid))[0]
        models.append((one, two))
        effs = ["-"] * 3
        if ref is not None:
            scale = 1 if name.startswith("weak") else p  # strong: T(1) / (P T(P))
            effs = [f"{runs[ref][3] / (measured * scale):.3f}", f"{models[ref][0] / (one * scale):.3f}",
                    f"{models[ref][1] / (two * scale):.3f}"]
        print(f"| {name} | {box[0]}x{box[1]}x{box[2]} | {measured*1e3:.2f} | {one*1e3:.2f} | {two*1e3:.2f} | "
              + " | ".join(effs) + " |")

    print("\nPrediction with the two rates: weak scaling in scale.sh's process grids, one node:\n")
    print("| n per GPU | GPUs | process grid | step ms | exchange chain ms | chain hidden | weak efficiency |")
    print("|---|---|---|---|---|---|---|")
    for n in (256, 512):
        t1 = None
        for grid in ((1, 1, 1), (1, 1, 2), (1, 2, 2), (2, 2, 2)):
            p = grid[0] * grid[1] * grid[2]
            t, ti, tc, h = step_box(n, n, n, p, two_rates(grid))
            t1 = t1 or t
            print(f"| {n}^3 | {p} | {grid[0]},{grid[1]},{grid[2]} | {t*1e3:.2f} | {tc*1e3:.2f} | {h:.2f} | "
                  f"{t1 / t:.3f} |")

if __name__ == "__main__":
    if "--check" in sys.argv:
        check()
    else:
        weak()
        strong()
