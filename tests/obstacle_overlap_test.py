#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Overlapping obstacles (issue 19, item 10): a boid expelled from one circle is placed outside
all of them. The issue's case: `obstacle = circle 700 420 30`, `obstacle = circle 730 430 25`,
a boid at (714, 444) moving +x, which is inside both. The first circle in table order expels
it along its radial; that rim point lies inside the second circle, so the boid goes on along
the same ray to the second circle's far rim. After one step it is outside both circles, on
that ray, at its exit from the second circle, on cpu-ref, cpu and gpu, Reynolds and Vicsek,
and the same with spheres in 3-D (z = 280 for the centres and the boid).

Tolerances: the position is the exit plus a margin of 2^-18 of the radius (doubled until the
point tests outside in the backend's precision, so at most a few 2^-18 of 25 in float, and the
float backends round 700-unit coordinates to 6e-5): 1e-3 covers both; "outside" is checked
exactly in double on the saved coordinates (the margin, 1e-4, is far above the 2e-6 by which
a float d^2 test can differ).

usage: obstacle_overlap_test.py BOIDS_BINARY
"""
import math
import os
import sys

from harness import check, finish, run, runnable_backends, tmpdir

BOIDS = sys.argv[1]
d = tmpdir()
backends = runnable_backends(BOIDS)

Z = 280.0
CIRCLES = [(700.0, 420.0, 30.0), (730.0, 430.0, 25.0)]


def expected():
    """The exit of the ray from the first centre through the boid out of the second circle."""
    ux, uy = 714 - 700, 444 - 420
    n = math.hypot(ux, uy)
    ux, uy = ux / n, uy / n
    ex, ey = 700 - 730, 420 - 430  # the ray's origin relative to the second centre
    b = ex * ux + ey * uy
    t = -b + math.sqrt(b * b - (ex * ex + ey * ey - 25.0 ** 2))
    return 700 + ux * t, 420 + uy * t


def write(name, text):
    path = os.path.join(d, name)
    with open(path, "w") as f:
        f.write(text)
    return path


want = expected()
check("the ray's exit from the second circle is outside the first",
      math.hypot(want[0] - 700, want[1] - 420) > 30, str(want))
models = {"reynolds": ([], 60.0), "vicsek": (["--model", "vicsek", "--set", "noise=0"], 120.0)}
for dim in (2, 3):
    if dim == 2:
        table = write("c2.ini", "".join(f"obstacle = circle {x:g} {y:g} {r:g}\n" for x, y, r in CIRCLES))
        extra = []
    else:
        table = write("c3.ini", "".join(f"obstacle = sphere {x:g} {y:g} {Z:g} {r:g}\n"
                                        for x, y, r in CIRCLES))
        extra = ["--set", "dim=3"]
    for model, (args, speed) in models.items():
        state = write(f"b{dim}.csv", f"x,y,vx,vy\n714,444,{speed:g},0\n" if dim == 2 else
                      f"x,y,z,vx,vy,vz\n714,444,{Z:g},{speed:g},0,0\n")
        got = {}
        for backend in backends:
            out = os.path.join(d, f"out-{dim}-{model}-{backend}.csv")
            p = run(BOIDS, "sim", "--backend", backend, *extra, *args, "--config", table, "--load",
                    state, "--steps", "1", "--save", out)
            what = f"{dim}-D {model} {backend}"
            check(f"{what}: runs", p.returncode == 0, p.stderr[-300:])
            if p.returncode != 0:
                continue
            row = [float(v) for v in open(out).read().splitlines()[1].split(",")]
            x, y = row[0], row[1]
            got[backend] = (x, y)
            dist = [math.hypot(x - cx, y - cy) if dim == 2 else
                    math.sqrt((x - cx) ** 2 + (y - cy) ** 2 + (row[2] - Z) ** 2)
                    for cx, cy, _ in CIRCLES]
            check(f"{what}: after one step outside both {'circles' if dim == 2 else 'spheres'}",
                  all(dd >= r for dd, (_, _, r) in zip(dist, CIRCLES)), f"({x}, {y}): {dist}")
            check(f"{what}: on the first centre's ray, at its exit from the second",
                  math.hypot(x - want[0], y - want[1]) < 1e-3 and (dim == 2 or row[2] == Z),
                  f"({x}, {y}) against {want}")
        if len(got) > 1:
            ref = got["cpu-ref"]
            check(f"{dim}-D {model}: every backend puts it at the same point (within 1e-3)",
                  all(math.hypot(a - ref[0], b - ref[1]) < 1e-3 for a, b in got.values()), str(got))
finish()
