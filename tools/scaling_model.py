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
COMPUTE_ONLY = {256: 7.09e-3, 512: 60.34e-3}   # --halo none, measured

# Assumed (not measurable here: one node, no network):
B_NET = 25e9      # one 200 Gb/s NIC per GPU, bytes/s, each way
ALPHA = 10e-6     # per message step: MPI latency between nodes, copy and launch latencies
ALPHA_AR = 5e-6   # per level of an allreduce tree


def halo_bytes(n):
    return 2 * 6 * 5 * 2 * (n + 4) ** 2 * 8


def step(n, ranks, b_mpi):
    t_int = C_INT * (n - 4) ** 3
    t_shell = C_SHELL * (n**3 - (n - 4) ** 3)
    b = halo_bytes(n)
    t_chain = b * (1 / B_D2H + 1 / B_H2D + 1 / b_mpi + 1 / B_PACK) + 2 * 3 * 2 * ALPHA
    t_ar = ALPHA_AR * math.log2(ranks) if ranks > 1 else 0.0
    total = C_DT * n**3 + t_ar + max(t_int, t_chain) + t_shell
    hidden = min(1.0, t_int / t_chain) if t_chain > 0 else 1.0
    return total, t_int, t_chain, hidden


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


if __name__ == "__main__":
    if "--check" in sys.argv:
        check()
    else:
        weak()
        strong()
