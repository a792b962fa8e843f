#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""3-D flocks through the program: `boids sim --set dim=3` on cpu-ref and cpu resumes bit for
bit through a 3-D state file (its x,y,z,vx,vy,vz header; its sidecar says dim 3), a 3-D trajectory
is samples x N x 6 and its last frame is the saved state; with the interaction table's points
(with z) and spheres a run resumes bit for bit, its sidecar records them and verify passes; a
planar obstacle (a circle) in 3-D, a sphere in 2-D or a state of the other dim is refused with
exit 2 and a message that says so. `boids params` lists the new keys.

usage: dim3_cli_test.py BOIDS_BINARY
"""
import ast
import json
import os
import struct
import sys

from harness import check, finish, run, tmpdir

BOIDS = sys.argv[1]
d = tmpdir()

models = {"vicsek": ["--preset", "vicsek", "--set", "dim=3", "--set", "noise=1.5", "--seed", "4"],
          "reynolds": ["--preset", "classic", "--set", "dim=3", "-n", "300", "--seed", "4",
                       "--set", "fov=270"]}
for backend in ["cpu-ref", "cpu"]:
    for model, args in models.items():
        one, half, two = (os.path.join(d, f"{backend}-{model}-{k}.csv") for k in ("one", "half", "two"))
        run(BOIDS, "sim", "--backend", backend, *args, "--steps", "40", "--save", one, check_rc=0)
        run(BOIDS, "sim", "--backend", backend, *args, "--steps", "20", "--save", half, check_rc=0)
        run(BOIDS, "sim", "--backend", backend, *args, "--load", half, "--steps", "20", "--save", two,
            check_rc=0)
        a, b = open(one).read(), open(two).read()
        check(f"{backend} {model}: 40 steps == 20 + save/load + 20 in 3-D, bit for bit", a == b)
        meta = json.load(open(one + ".json"))
        check(f"{backend} {model}: a 3-D state file", a.startswith("x,y,z,vx,vy,vz\n") and
              meta["step"] == 40 and meta["dim"] == 3, a[:60])

# The trajectory: shape (samples, N, 6), float64, the last frame the saved state.
traj, final = os.path.join(d, "t.npy"), os.path.join(d, "final.csv")
run(BOIDS, "sim", "--backend", "cpu", *models["reynolds"], "--steps", "10", "--every", "5",
    "--trajectory", traj, "--trajectory-dtype", "f8", "--save", final, check_rc=0)
raw = open(traj, "rb").read()
hlen = struct.unpack("<H", raw[8:10])[0]
header = ast.literal_eval(raw[10:10 + hlen].decode("latin1"))
check("trajectory shape samples x N x 6", header["shape"] == (3, 300, 6), str(header))
data = raw[10 + hlen:]
check("trajectory size", len(data) == 3 * 300 * 6 * 8, str(len(data)))
last = struct.unpack("<" + "d" * 300 * 6, data[2 * 300 * 6 * 8:])
rows = [line.split(",") for line in open(final).read().splitlines()[1:]]
saved = [float(v) for row in rows for v in row]
check("the last frame is the saved state (x, y, z, vx, vy, vz)", list(last) == saved)

# The interaction table in 3-D (points with z, spheres): a run resumes bit for bit with it,
# the sidecar records it, verify checks the config's table on cpu against cpu-ref.
table3 = os.path.join(d, "table3.ini")
with open(table3, "w") as f:
    f.write("predator.0 = 100 100 100 80 2\nattractor.3 = 300 250 60 4\n"
            "obstacle = sphere 200 200 200 40\nobstacle = sphere 0 0 0 30\n")
# classic's 400^3 box kept (--fixed-world), which the points and spheres are placed in.
with_table = ["--preset", "classic", "--set", "dim=3", "-n", "300", "--fixed-world", "--seed", "4",
              "--config", table3]
for backend in ["cpu-ref", "cpu"]:
    one, half, two = (os.path.join(d, f"{backend}-table-{k}.csv") for k in ("one", "half", "two"))
    run(BOIDS, "sim", "--backend", backend, *with_table, "--steps", "40", "--save", one,
        "--series", one + ".series", check_rc=0)
    run(BOIDS, "sim", "--backend", backend, *with_table, "--steps", "20", "--save", half, check_rc=0)
    run(BOIDS, "sim", "--backend", backend, *with_table, "--load", half, "--steps", "20", "--save",
        two, check_rc=0)
    check(f"{backend} with points and spheres: 40 steps == 20 + save/load + 20",
          open(one).read() == open(two).read())
    with open(one + ".series.json") as f:
        inter = json.load(f)["interaction"]
    check(f"{backend} sidecar: the points with z, the spheres",
          inter == {"predators": [{"index": 0, "x": 100, "y": 100, "z": 100, "radius": 80,
                                   "weight": 2}],
                    # four numbers: the middle of classic's depth (its height, 400)
                    "attractors": [{"index": 3, "x": 300, "y": 250, "z": 200, "radius": 60,
                                    "weight": 4}],
                    "obstacles": [{"kind": "sphere", "x": 200, "y": 200, "z": 200, "radius": 40},
                                  {"kind": "sphere", "x": 0, "y": 0, "z": 0, "radius": 30}]},
          str(inter))
p = run(BOIDS, "verify", "--set", "dim=3", "--config", table3, "--backends", "cpu", "-n", "500",
        "--scenarios", "random,walls", "--seeds", "0")
check("verify --set dim=3 with the config's points and spheres passes on cpu",
      p.returncode == 0 and "all checks passed" in p.stdout, p.stdout[-800:] + p.stderr)

# Refusals with exit 2 and a message naming the cause.
p = run(BOIDS, "sim", "--backend", "cpu", "--preset", "classic", "--load", final, "--steps", "1")
check("a 3-D state under dim = 2: exit 2 naming the dim", p.returncode == 2 and "dim" in p.stderr,
      p.stderr)
table = os.path.join(os.path.dirname(final), "points.ini")
with open(table, "w") as f:
    f.write("predator.0 = 10 10 30 1\nobstacle = circle 10 10 5\n")
p = run(BOIDS, "sim", "--backend", "cpu", "--set", "dim=3", "-n", "10", "--steps", "1",
        "--config", table)
check("a circle (planar) in 3-D: exit 2, naming the obstacle and spheres",
      p.returncode == 2 and "obstacle 0 is a circle, which is planar" in p.stderr
      and "sphere X Y Z R" in p.stderr, p.stderr)
p = run(BOIDS, "sim", "--backend", "cpu", "-n", "10", "--steps", "1", "--config", table3)
check("a sphere in 2-D: exit 2, naming the obstacle and the 3-D world it needs",
      p.returncode == 2 and "obstacle 0 is a sphere, which needs a 3-D world" in p.stderr,
      p.stderr)
p = run(BOIDS, "sim", "--set", "dim=4", "--steps", "1")
check("dim = 4: exit 2", p.returncode == 2 and "dim" in p.stderr, p.stderr)
p = run(BOIDS, "sim", "--set", "dim=3", "--set", "depth=5", "--steps", "1")
check("a depth below one step: exit 2 naming depth", p.returncode == 2 and "depth" in p.stderr,
      p.stderr)
p = run(BOIDS, "params")
check("boids params lists dim, depth, predator_z and food_z",
      all(k in p.stdout for k in ("dim", "depth", "predator_z", "food_z")), p.stdout[-400:])
finish()
