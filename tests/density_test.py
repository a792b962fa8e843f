#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""-n means one thing in every command: above the parameters' N the world grows to keep their
density (per area in the plane at their aspect ratio, per volume in 3-D), unless --fixed-world
or a world size given by --set or --config without a count keeps it.

The workload a density fixes is the number of neighbours per boid, so that is what this
checks, on the random initial state (uniform in the world) of `sim` and `sweep`, on the cpu
backend for one step. Tolerances: the mean neighbour count of N uniform boids is 2P / N, P
the number of pairs within the vision radius, about Poisson with mean N m / 2 (m the mean
count): its relative standard deviation is sqrt(2 / (N m)), 0.8% at the lab's 1,500 boids
and m = 23 (2-D), and 0.8% too in the 3-D case below (m = 22 with a vision radius of 100).
5% is six of those and far below the change a fixed world makes (N / 1500 = 67x).

usage: density_test.py BOIDS_BINARY
"""
import csv
import io
import json
import math
import os
import sys

from harness import check, finish, run, tmpdir

BOIDS = sys.argv[1]
d = tmpdir()
TOL = 0.05
BIG = 100000
LAB = (900.0, 560.0, 1500)  # the lab preset's world and N


def sim(*args):
    """neighbours per boid at step 0 and the world (width, height, depth) of `sim ARGS`."""
    meta = os.path.join(d, "m.json")
    p = run(BOIDS, "sim", "--backend", "cpu", "--steps", "1", "--meta", meta, *args, check_rc=0)
    rows = list(csv.DictReader(io.StringIO(p.stdout)))
    v = json.load(open(meta))["parameters"]["values"]
    return float(rows[0]["neighbours"]), (v["width"], v["height"], v["depth"])


def close(a, b, rel):
    return abs(a / b - 1) < rel


nb0, w0 = sim()
nb, w = sim("-n", BIG)
k = math.sqrt(BIG / LAB[2])
check("sim -n 100000: the world grows by sqrt(N / 1500) at the lab's aspect",
      close(w[0], LAB[0] * k, 1e-12) and close(w[1], LAB[1] * k, 1e-12), f"{w}")
check("sim -n 100000: as many neighbours per boid as the preset's 1,500 (within 5%)",
      close(nb, nb0, TOL), f"{nb} against {nb0}")
# A fixed world at 4x the preset's N (not 67x: 1,500 neighbours a boid take the cpu grid
# seconds) has 4x its density.
nbf, wf = sim("-n", 4 * LAB[2], "--fixed-world")
check("sim -n 6000 --fixed-world: the lab's 900 x 560 world", wf[:2] == LAB[:2], f"{wf}")
check("sim -n 6000 --fixed-world: 4x the neighbours per boid (within 5%)",
      close(nbf, 4 * nb0, TOL), f"{nbf} against {nb0}")
_, ws = sim("-n", 4 * LAB[2], "--set", "width=1800")
check("sim -n 6000 --set width=1800: a world size given keeps the world", ws[:2] == (1800, 560),
      f"{ws}")
_, wd = sim("-n", 4 * 3000, "--set", "count=3000", "--set", "width=450", "--set", "height=280")
check("sim -n 12000 --set count=3000 --set width=450 --set height=280: a density stated, kept "
      "(each side 2x)", close(wd[0], 900, 1e-12) and close(wd[1], 560, 1e-12), f"{wd}")
cfg = os.path.join(d, "world.ini")
with open(cfg, "w") as f:
    f.write("height = 700\n")
_, wc = sim("-n", 4 * LAB[2], "--config", cfg)
check("sim -n 6000 --config (height = 700): a world size given keeps the world",
      wc[:2] == (900, 700), f"{wc}")
_, wsmall = sim("-n", "100")
check("sim -n 100: below the preset's N the world keeps the preset's size", wsmall[:2] == LAB[:2],
      f"{wsmall}")
# 3-D: the box grows by volume, each side by the cube root.
nb3a, w3a = sim("--set", "dim=3", "--set", "vision_radius=100")
nb3, w3 = sim("--set", "dim=3", "--set", "vision_radius=100", "-n", BIG)
k3 = (BIG / LAB[2]) ** (1 / 3)
check("sim --set dim=3 -n 100000: each side of the box grows by cbrt(N / 1500)",
      all(close(a, b * k3, 1e-12) for a, b in zip(w3, w3a)), f"{w3} from {w3a}")
check("sim --set dim=3 -n 100000: as many neighbours per boid as 1,500 boids (within 5%)",
      close(nb3, nb3a, TOL), f"{nb3} against {nb3a}")


def sweep(*args):
    p = run(BOIDS, "sweep", "--backend", "cpu", "--key", "noise", "--values", "0", "--steps", "1",
            "--burn-in", "0", "--sample-every", "1", "--seeds", "1", *args, check_rc=0)
    return list(csv.DictReader(io.StringIO(p.stdout)))


rows = sweep("--counts", f"1500,{BIG}")
small, big = rows
check("sweep --counts 1500,100000: the world of each N as -n gives it",
      (float(small["width"]), float(small["height"])) == LAB[:2] and
      close(float(big["width"]), LAB[0] * k, 1e-12) and close(float(big["height"]), LAB[1] * k, 1e-12),
      f"{[(r['width'], r['height']) for r in rows]}")
check("sweep --counts 1500,100000: as many neighbours per boid at both N (within 5%)",
      close(float(big["neighbours_mean"]), float(small["neighbours_mean"]), TOL),
      f"{big['neighbours_mean']} against {small['neighbours_mean']}")
fixed = sweep("-n", 4 * LAB[2], "--fixed-world")[0]
check("sweep -n 6000 --fixed-world: the lab's world",
      (float(fixed["width"]), float(fixed["height"])) == LAB[:2], f"{fixed['width']}")
dens = sweep("--preset", "vicsek", "--counts", "100,800", "--density", "4")
check("sweep --density 4: a square of side sqrt(N / 4) at every N, below the preset's N too",
      [(float(r["width"]), float(r["height"])) for r in dens] == [(5, 5), (math.sqrt(200), math.sqrt(200))],
      f"{[(r['width'], r['height']) for r in dens]}")
p = run(BOIDS, "sweep", "--key", "noise", "--values", "0", "--density", "4", "--fixed-world")
check("sweep --density with --fixed-world: exit 2 naming both",
      p.returncode == 2 and "--density" in p.stderr and "--fixed-world" in p.stderr, p.stderr)

# The rule is said once, in the shared options' help of every command that takes -n.
for cmd in (["sim"], ["sweep"], ["verify"], ["render"], ["view"]):
    p = run(BOIDS, *cmd, "--help")
    check(f"{' '.join(cmd)} --help: -n and --fixed-world state the rule",
          p.returncode == 0 and "--fixed-world" in p.stdout and "world grows" in p.stdout,
          p.stdout[-400:])
finish()
