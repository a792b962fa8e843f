#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The time and memory of one flock split over MPI ranks, predicted from this project's
measurements: a rank of n boids (slabs of whole rows, the `lab` plane) takes per step

    T = n (c + c_tile) + T_lat + T_bytes

with c the step of one process per boid on one core, c_tile what the split adds per boid,
T_lat the latencies of the step's messages and T_bytes their bytes over the link. The
messages of a step (src/mpi/mpi_flock.c, mpi_resident.c): two all-reduces (the ranks'
weighted units, one double; the rows' weights with the ranks' works, rows + 2K integers),
the migration's all-to-all of counts and all-to-allv of records, and the two halo rows sent
to the tiles beside. The all-reduces and the all-to-all of counts take log2(K) latencies
each; the all-to-allv posts a message to every rank (K - 1 of them, each costing the
overhead o), the halo one latency. Memory: the bytes a rank holds per boid it owns, measured
(bench/README.md), plus MPI's own. Prints a Markdown table; every default is a measurement
or a stated assumption (--help says which)."""
import argparse
import math


def geometry(n, density, cell, aspect):
    """Rows of the grid and boids per row of a flock of n at the density, in a world of the
    aspect (width / height) whose cells are `cell` wide."""
    width = math.sqrt(n / density * aspect)
    rows = max(1, math.floor(width / aspect / cell))
    return rows, n / rows


def predict(a, n_rank, k):
    n = n_rank * k
    rows, per_row = geometry(n, a.density, a.cell, a.aspect)
    compute = n_rank * (a.c_ns + a.c_tile_ns) * 1e-9
    lg = math.log2(k) if k > 1 else 0
    lat = (3 * lg * a.latency_us + (k - 1) * a.overhead_us + (a.latency_us if k > 1 else 0)) * 1e-6
    halo = (2 if k > 2 else 1) * per_row * a.rec_bytes if k > 1 else 0
    reduce = 2 * (rows + 2 * k) * 8 if k > 1 else 0  # a reduction moves about twice its bytes
    byt = (halo + reduce) / (a.link_gbs * 1e9)
    return dict(n=n, rows=rows, compute=compute, lat=lat, bytes=byt,
                total=compute + lat + byt,
                mem_step=n_rank * a.bytes_step / 1e9 + a.mpi_mb / 1e3,
                mem_sample=n_rank * a.bytes_sample / 1e9 + a.mpi_mb / 1e3)


def size(s):
    s = s.strip().upper()
    mult = {"K": 1e3, "M": 1e6, "G": 1e9}.get(s[-1], 1)
    return int(float(s[:-1] if s[-1] in "KMG" else s) * mult)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", default="1M:8,1M:1024,10M:128,100M:32,15.625M:64",
                    help="boids per rank:ranks, comma separated")
    ap.add_argument("--c-ns", type=float, default=32.4,
                    help="measured: one process, one thread, 1M boids of the lab plane, "
                         "random start (2-core AMD EPYC VM, 2026-12-06, quiet)")
    ap.add_argument("--c-tile-ns", type=float, default=9.8,
                    help="measured: the CPU time of 2 ranks minus one process's, per boid "
                         "(same runs)")
    ap.add_argument("--rec-bytes", type=float, default=20, help="a record: id, 2 positions, "
                    "2 velocities (28 in the box)")
    ap.add_argument("--density", type=float, default=1500 / (900 * 560),
                    help="boids per unit area (the lab preset)")
    ap.add_argument("--cell", type=float, default=50, help="cell side: the vision radius")
    ap.add_argument("--aspect", type=float, default=900 / 560, help="world width / height")
    ap.add_argument("--latency-us", type=float, default=2.0,
                    help="assumed: one message or collective step (InfiniBand, RoCE)")
    ap.add_argument("--overhead-us", type=float, default=0.5,
                    help="assumed: posting one message of the all-to-allv")
    ap.add_argument("--link-gbs", type=float, default=12.5, help="assumed: 100 Gb/s")
    ap.add_argument("--bytes-step", type=float, default=63,
                    help="measured: heap bytes a rank holds per owned boid between samples")
    ap.add_argument("--bytes-sample", type=float, default=84,
                    help="measured: peak RSS per owned boid at a sample, 16M on 2 ranks")
    ap.add_argument("--mpi-mb", type=float, default=35, help="measured: MPI's own, per rank")
    a = ap.parse_args()
    print("\n".join(table(a)))


def table(a):
    out = ["| boids per rank | ranks | N | rows | compute, ms | latencies, ms | bytes, ms "
           "| messages' share | ms per step | GB a rank (step / sample) |",
           "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for case in a.cases.split(","):
        nr, k = case.split(":")
        p = predict(a, size(nr), int(k))
        msg = p["lat"] + p["bytes"]
        out.append(f"| {size(nr):,} | {k} | {p['n']:,} | {p['rows']:,} "
                   f"| {p['compute'] * 1e3:.1f} | {p['lat'] * 1e3:.3f} | {p['bytes'] * 1e3:.3f} "
                   f"| {msg / p['total']:.2%} | {p['total'] * 1e3:.1f} "
                   f"| {p['mem_step']:.2f} / {p['mem_sample']:.2f} |")
    return out


if __name__ == "__main__":
    main()
