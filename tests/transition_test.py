#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The shapes of the published results docs/transition.md reproduces, on tiny sweeps of the
Vicsek model (cpu backend, v0 = 0.03, R = 1, periodic square worlds):

  - Vicsek et al. 1995, Fig. 2b: at noise eta = 2 in a world of side 20, the order rises with
    the density N / 400.

Each threshold comes from the physics of the state it tests, with its margin stated where it
is used; none is read off a run of this program.

usage: transition_test.py BOIDS_BINARY
"""
import csv
import io
import math
import sys

from harness import check, finish, run

BOIDS = sys.argv[1]
VICSEK = ["sweep", "--preset", "vicsek", "--backend", "cpu", "--threads", "2"]


def sweep(*args):
    """The table of `boids sweep ARGS` (on stdout), one dict of floats per point."""
    p = run(BOIDS, *VICSEK, *args, check_rc=0)
    rows = list(csv.DictReader(io.StringIO(p.stdout)))
    return [{k: float(v) for k, v in r.items()} for r in rows]


def order_rises_with_density():
    """Vicsek et al. 1995, Fig. 2b. Densities 0.1, 0.5, 2 and 4 (N = 40 .. 1600 in a side of
    20). From a random start a world of side 20 is crossed in 667 steps at v0 = 0.03; the
    burn-in is 1.5 crossings and the samples span another 1.5, enough for the order to be
    past its fast initial rise at every density (the slower merging of domains at the
    largest N only lowers its value, so the rise the test asserts is not one the transient
    makes). Monotone within the error: each step up in density may not lower the mean by
    more than 2 combined standard errors (a 2.3 % chance for one step of a flat curve, with
    Gaussian errors); and the whole rise must be more than 5 of them, far beyond chance."""
    t = sweep("--key", "noise", "--values", "2", "--fixed-world", "--set", "width=20",
              "--set", "height=20", "--counts", "40,200,800,1600", "--seeds", "3",
              "--steps", "2000", "--burn-in", "1000", "--sample-every", "20")
    o = [(r["N"] / 400, r["order_mean"], r["order_se"]) for r in t]
    for (r0, o0, s0), (r1, o1, s1) in zip(o, o[1:]):
        check(f"eta 2, side 20: order at density {r1:g} not below density {r0:g} "
              "(2 combined SE)", o1 > o0 - 2 * math.hypot(s0, s1), f"{o}")
    (r0, o0, s0), (r1, o1, s1) = o[0], o[-1]
    check(f"eta 2, side 20: order rises from density {r0:g} to {r1:g} by more than 5 SE",
          o1 - o0 > 5 * math.hypot(s0, s1), f"{o}")


order_rises_with_density()
finish()
