#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The cost of one flock split over MPI ranks: for each flock size and rank count, one run of
`mpirun -n K boids-mpi sim --order-only --mpi-stats FILE` and what its ranks measured (time per
step, the share spent waiting in MPI calls, halo bytes and migrated boids per step, the boids
per rank, the share of the step time lost to imbalance), as a CSV table and a Markdown one on
stdout.

Strong scaling: --sizes at every --ranks count. Weak scaling: --weak N0 adds runs of N0 boids
per rank (N = K * N0). The time per step of a row is its slowest rank's (the step ends when
the last rank's does); speedup and efficiency are against the 1-rank row of the same size,
which steps the whole flock as `boids sim` does. --warmup W runs W steps more before the
--steps timed ones (boids-mpi sim --mpi-warmup: the first steps carry the flock from its parts
by id to the cut's tiles), on every rank count alike; their own time is the column
warmup_ms_per_step.

usage: mpi_scaling.py --boids-mpi PATH [--mpirun PATH] [--sizes 100k,1M] [--ranks 1,2,4]
                      [--weak N0] [--steps 30] [--warmup 0] [--dim 2|3] [--overlap both|on|off]
                      [--threads 1] [--out DIR] [-- EXTRA boids sim OPTIONS]
"""
import argparse
import csv
import os
import subprocess
import sys
import tempfile
import time


def count(text):
    """100k, 1M, 2000 -> int."""
    mult = {"k": 1000, "m": 1000000, "g": 1000000000}
    t = text.strip().lower()
    return int(float(t[:-1]) * mult[t[-1]]) if t[-1] in mult else int(t)


def parse():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--boids-mpi", required=True)
    ap.add_argument("--mpirun", default="mpirun")
    ap.add_argument("--sizes", default="100k,1M")
    ap.add_argument("--ranks", default="1,2,4")
    ap.add_argument("--weak", default=None, help="boids per rank of the weak-scaling runs")
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=0, help="steps before the timed ones")
    ap.add_argument("--dim", type=int, default=2, choices=(2, 3))
    ap.add_argument("--overlap", default="both", choices=("both", "on", "off"))
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--out", default=None, help="folder for mpi_scaling.csv")
    ap.add_argument("extra", nargs="*", help="more options of boids sim (after --)")
    a = ap.parse_args()
    try:
        a.sizes = [count(s) for s in a.sizes.split(",")]
        a.ranks = [int(k) for k in a.ranks.split(",")]
        a.weak = count(a.weak) if a.weak else None
    except (ValueError, IndexError, KeyError):
        ap.error("--sizes, --ranks and --weak take counts such as 100k,1M and 1,2,4")
    if any(k < 1 for k in a.ranks) or any(n < 1 for n in a.sizes) or a.steps < 1:
        ap.error("sizes, rank counts and --steps must be positive")
    if a.warmup < 0:
        ap.error("--warmup must be 0 or more")
    return a


def one_run(a, n, k, overlap, tmp):
    """The per-rank rows of --mpi-stats for N = n on k ranks, and the job's wall time."""
    stats = os.path.join(tmp, f"stats-{n}-{k}-{overlap}.csv")
    cmd = [a.mpirun, "--oversubscribe", "-n", str(k)]
    if os.getuid() == 0:
        cmd.append("--allow-run-as-root")
    if a.threads > 1:  # mpirun binds a rank to one core, where its threads would take turns
        cmd += ["--bind-to", "none"]
    cmd += [a.boids_mpi, "sim", "--backend", "cpu", "--threads", str(a.threads), "-n", str(n),
            "--steps", str(a.steps + a.warmup), "--order-only", "--set", f"dim={a.dim}",
            "--mpi-stats", stats, *a.extra]
    if a.warmup:
        cmd += ["--mpi-warmup", str(a.warmup)]
    if not overlap:
        cmd.append("--mpi-no-overlap")
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.monotonic() - t0
    if p.returncode != 0:
        sys.exit(f"mpi_scaling.py: {' '.join(cmd)}: exit {p.returncode}\n{p.stderr[-1500:]}")
    with open(stats) as f:
        return list(csv.DictReader(f)), wall


def row(kind, n, k, overlap, ranks, wall, base):
    ms = max(float(r["ms_per_step"]) for r in ranks)
    mean = sum(float(r["boids_mean"]) for r in ranks) / len(ranks)
    halo = sum(float(r["halo_bytes_per_step"]) for r in ranks)
    out = {
        "scaling": kind, "n": n, "ranks": k, "overlap": int(overlap),
        "ms_per_step": ms,
        "speedup": base / ms if base else float("nan"),
        "efficiency": base / ms / k if base else float("nan"),
        "wait_share_mean": sum(float(r["wait_share"]) for r in ranks) / len(ranks),
        "wait_share_max": max(float(r["wait_share"]) for r in ranks),
        "local_share_mean": sum(float(r["local_share"]) for r in ranks) / len(ranks),
        "halo_bytes_per_step": halo,
        "halo_bytes_per_boid": halo / n,
        "migrated_per_step": sum(float(r["migrated_per_step"]) for r in ranks),
        "imbalance": max(float(r["boids_max"]) for r in ranks) / mean if mean else 0.0,
        # (max - mean) / max of the ranks' work per step, summed over the steps (every rank
        # reports the same reduced number; older builds had no such column)
        "imbalance_lost": max(float(r.get("imbalance_lost") or 0) for r in ranks),
        # the same on the ranks' CPU clocks: what ranks time-sharing cores lose to the cut
        # itself, without the time they wait for a core (nan for older builds)
        "imbalance_lost_cpu": max(float(r.get("imbalance_lost_cpu") or "nan") for r in ranks),
        # the heaviest row's share of the cut's load: above 1 / K, no cut of whole rows
        # balances the flock (nan for older builds)
        "heaviest_row_share": max(float(r.get("heaviest_row_share") or "nan") for r in ranks),
        # the share of the steps whose cut ended tiles within rows (nan for older builds)
        "within_rows_share": max(float(r.get("within_rows_share") or "nan") for r in ranks),
        # and within cells, at a boid (nan for older builds)
        "within_cells_share": max(float(r.get("within_cells_share") or "nan") for r in ranks),
        # the ranks' work in CPU time, summed: what the step costs whatever else runs on the
        # cores (MPI calls left out, which may spin); nan for older builds
        "cpu_ms_per_step": sum(float(r.get("work_cpu_ms_per_step") or "nan") for r in ranks),
        "rebalances": sum(float(r["rebalances"]) for r in ranks) / len(ranks),
        # the warm-up's steps and their slowest rank's ms a step (0 without --warmup)
        "warmup_steps": max(float(r.get("warmup_steps") or 0) for r in ranks),
        "warmup_ms_per_step": max(float(r.get("warmup_ms_per_step") or 0) for r in ranks),
        "job_seconds": wall,
    }
    return out


def main():
    a = parse()
    tmp = tempfile.mkdtemp(prefix="boids-mpi-scaling-")
    overlaps = {"both": (True, False), "on": (True,), "off": (False,)}[a.overlap]
    rows = []
    plan = [("strong", n, k) for n in a.sizes for k in a.ranks]
    if a.weak:
        plan += [("weak", a.weak * k, k) for k in a.ranks]
    base = {}
    for kind, n, k in plan:
        for ov in (overlaps if k > 1 else (True,)):  # one rank has no halo to overlap
            ranks, wall = one_run(a, n, k, ov, tmp)
            key = (kind, n if kind == "strong" else a.weak)
            r = row(kind, n, k, ov, ranks, wall, None)
            if k == 1:
                base[key] = r["ms_per_step"]
            b = base.get(key)
            if kind == "weak" and b:  # weak: the same time per step is perfect scaling
                r["speedup"], r["efficiency"] = float("nan"), b / r["ms_per_step"]
            elif b:
                r["speedup"], r["efficiency"] = b / r["ms_per_step"], b / r["ms_per_step"] / k
            rows.append(r)
            print(f"  {kind} N={n} K={k} overlap={int(ov)}: {r['ms_per_step']:.2f} ms/step",
                  file=sys.stderr)
    cols = list(rows[0])
    if a.out:
        os.makedirs(a.out, exist_ok=True)
        with open(os.path.join(a.out, "mpi_scaling.csv"), "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=cols)
            w.writeheader()
            w.writerows(rows)
    show = ["scaling", "n", "ranks", "overlap", "ms_per_step", "speedup", "efficiency",
            "wait_share_mean", "halo_bytes_per_boid", "migrated_per_step", "imbalance",
            "imbalance_lost", "imbalance_lost_cpu", "heaviest_row_share", "within_rows_share",
            "within_cells_share", "cpu_ms_per_step"]
    print("| " + " | ".join(show) + " |")
    print("|" + "---|" * len(show))
    for r in rows:
        cells = []
        for c in show:
            v = r[c]
            cells.append(f"{v:.3g}" if isinstance(v, float) else str(v))
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
