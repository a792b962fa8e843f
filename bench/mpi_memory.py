#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Peak memory of one flock split over MPI ranks: each rank of `mpirun -n K boids-mpi sim`
(and one `boids sim` process, K = 1) is run under /usr/bin/time, which reports its peak
resident set size; printed per rank with the time per step and the bytes per boid of the
largest rank, as a Markdown table. The runs print the order parameter only (--order-only;
--metrics: the six metrics) and write nothing else, so no rank ever holds the whole flock.

usage: mpi_memory.py --boids PATH --boids-mpi PATH [--mpirun PATH] --sizes 16M
                     [--ranks 1,2] [--steps 3] [--metrics] [-- EXTRA boids sim OPTIONS]
K = 1 runs `boids sim` (one process); K > 1 runs boids-mpi over K ranks.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time


def count(text):
    """100k, 16M, 2000 -> int."""
    mult = {"k": 1000, "m": 1000000, "g": 1000000000}
    t = text.strip().lower()
    return int(float(t[:-1]) * mult[t[-1]]) if t[-1] in mult else int(t)


def run(args, n, k, extra):
    """One run; its peak RSS per process (bytes, rank order), wall seconds, ms per step."""
    d = tempfile.mkdtemp(prefix="boids-mem-")
    rss = os.path.join(d, "rss.%r")
    sim = ["sim", "--backend", "cpu", "--threads", "1", "--preset", "lab", "-n", str(n),
           "--steps", str(args.steps), *([] if args.metrics else ["--order-only"]), "-v",
           *extra]
    if k == 1:
        cmd = ["/usr/bin/time", "-f", "%M", "-o", rss.replace("%r", "0"), args.boids, *sim]
    else:
        # Each rank under its own time; OMPI_COMM_WORLD_RANK names its file.
        wrap = ("exec /usr/bin/time -f %M -o " + rss.replace("%r", "$OMPI_COMM_WORLD_RANK") +
                ' "$@"')
        cmd = [args.mpirun, "--allow-run-as-root", "--oversubscribe", "-n", str(k), "sh", "-c",
               wrap, "sh", args.boids_mpi, *sim]
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.monotonic() - t0
    if p.returncode != 0:
        sys.exit(f"failed ({p.returncode}): {' '.join(cmd)}\n{p.stderr[-2000:]}")
    per = []
    for r in range(k):
        with open(rss.replace("%r", str(r))) as f:
            per.append(int(f.read().split()[-1]) * 1024)  # kB -> bytes
    m = re.search(r"\(([0-9.]+) ms/step\)", p.stderr)
    return per, wall, float(m.group(1)) if m else float("nan")


def main():
    argv = sys.argv[1:]
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    argv = argv[:argv.index("--")] if "--" in argv else argv
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--boids", required=True)
    ap.add_argument("--boids-mpi", required=True)
    ap.add_argument("--mpirun", default="mpirun")
    ap.add_argument("--sizes", default="16M")
    ap.add_argument("--ranks", default="1,2")
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--metrics", action="store_true",
                    help="the six metrics on stdout at each sample, not --order-only")
    args = ap.parse_args(argv)
    with open("/proc/loadavg") as f:
        load = f.read().split()[0]
    print(f"load average before: {load}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print("| N | ranks | peak RSS per rank (MB) | largest rank, bytes/boid of its share "
          "| largest / one process | ms per step | wall s |")
    print("| ---: | ---: | --- | ---: | ---: | ---: | ---: |")
    for n in map(count, args.sizes.split(",")):
        one = None
        for k in map(int, args.ranks.split(",")):
            per, wall, ms = run(args, n, k, extra)
            big = max(per)
            one = big if k == 1 else one
            ratio = f"{big / one:.2f}" if one else "-"
            mb = ", ".join(f"{x / 1e6:.0f}" for x in per)
            print(f"| {n} | {k} | {mb} | {big / (n / k):.1f} | {ratio} | {ms:.1f} | {wall:.0f} |",
                  flush=True)


if __name__ == "__main__":
    main()
