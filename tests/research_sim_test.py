#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""boids sim research outputs: --series is plain CSV (header row first) holding the stdout
rows; --trajectory is a .npy file that numpy.load reads as (samples, N, 2 dim), in 2-D and
3-D, whose frames equal the states `--save` writes at those steps (float64 bit for bit, float32
as numpy rounds them), the last one the state the same run saves; every output has a JSON
sidecar with the version, commit, command line, full parameter set and the config's points
and obstacles (circles and segments in 2-D; points with z and spheres in 3-D); bad flags exit
2 leaving no file behind.

usage: research_sim_test.py BOIDS_BINARY   (run with a Python that has numpy)
"""
import csv
import json
import os
import sys

from harness import check, finish, one_message, run, tmpdir

try:
    import numpy as np
except ImportError:
    print("FAIL: numpy is missing (Debian python3-numpy, installed by .ci/install-deps)")
    sys.exit(1)

BOIDS = sys.argv[1]
d = tmpdir()
BASE = ["--preset", "classic", "--seed", "7", "-n", "50"]
# A 3-D flock: N 300 in classic's box, a field of view with a blind cone behind.
BASE3 = ["--preset", "classic", "--set", "dim=3", "-n", "300", "--seed", "4", "--set", "fov=270"]
path = lambda name: os.path.join(d, name)


def saved(out):
    """A state file --save wrote, as float64 rows (x, y, vx, vy; x, y, z, vx, vy, vz in 3-D)."""
    with open(out) as f:
        rows = [r for r in csv.reader(f) if not r[0].startswith("# step=")]
        return np.array([[float(v) for v in r] for r in rows[1:]])


def state(dim, args, steps):
    """The state --save writes after `steps` steps of the dim ("2-D", "3-D") run with args."""
    out = path(f"state-{dim}-{steps}.csv")
    run(BOIDS, "sim", *args, "--steps", steps, "--save", out, check_rc=0)
    return saved(out)


p = run(BOIDS, "sim", *BASE, "--steps", "100", "--every", "25", "--series", path("s.csv"),
        "--trajectory", path("t8.npy"), "--trajectory-dtype", "f8", "--meta", path("m.json"))
check("sim with every output exits 0", p.returncode == 0, p.stderr[-500:])
with open(path("s.csv")) as f:
    text = f.read()
check("series: header row first, no comment lines",
      text.startswith("step,order,milling,") and "#" not in text, text[:200])
# The series is the stdout rows (the six metrics) with gnf_alpha after them, line by line.
series_lines, stdout_lines = text.splitlines(), p.stdout.splitlines()
check("series rows are the stdout rows, then gnf_alpha",
      len(series_lines) == len(stdout_lines) and
      series_lines[0] == stdout_lines[0] + ",gnf_alpha" and
      all(a.rsplit(",", 1)[0] == b for a, b in zip(series_lines[1:], stdout_lines[1:])),
      (text[-200:], p.stdout[-200:]))
rows = list(csv.DictReader(open(path("s.csv"))))
check("series: one row per sample (steps 0, 25, ..., 100)",
      [r["step"] for r in rows] == ["0", "25", "50", "75", "100"], [r["step"] for r in rows])

# --order-only trims stdout, never the series: it holds every observable.
p2 = run(BOIDS, "sim", *BASE, "--steps", "100", "--every", "25", "--order-only",
         "--series", path("s2.csv"), "--trajectory", path("t4.npy"))
check("order-only with a series exits 0", p2.returncode == 0, p2.stderr[-500:])
check("order-only: the series still holds every observable",
      open(path("s2.csv")).read() == text)

# The trajectory of a 2-D and of a 3-D flock: (samples, N, 2 dim), each frame the state at its
# step, the last one the state the same run saves.
for dim, args in (("2-D", BASE), ("3-D", BASE3)):
    n, cols = int(args[args.index("-n") + 1]), 2 * int(dim[0])
    t8name, final = path(f"t8-{dim}.npy"), path(f"final-{dim}.csv")
    run(BOIDS, "sim", *args, "--steps", "100", "--every", "25", "--trajectory", t8name,
        "--trajectory-dtype", "f8", "--save", final, check_rc=0)
    run(BOIDS, "sim", *args, "--steps", "100", "--every", "25", "--trajectory",
        path(f"t4-{dim}.npy"), check_rc=0)
    t8, t4 = np.load(t8name), np.load(path(f"t4-{dim}.npy"))
    check(f"{dim} trajectory f8: shape (samples, N, {cols}) float64",
          t8.shape == (5, n, cols) and t8.dtype == np.float64, (t8.shape, t8.dtype))
    check(f"{dim} trajectory f4 (default): float32",
          t4.shape == (5, n, cols) and t4.dtype == np.float32, (t4.shape, t4.dtype))
    for k, steps in enumerate(["0", "25", "50", "75", "100"]):
        s = state(dim, args, steps)
        check(f"{dim} frame {k} (step {steps}) f8 equals --save bit for bit",
              np.array_equal(t8[k], s))
        check(f"{dim} frame {k} (step {steps}) f4 equals float32(--save)",
              np.array_equal(t4[k], s.astype(np.float32)))
    check(f"{dim} the last frame is the state the same run saved ({cols} columns)",
          t8[-1].tolist() == saved(final).tolist())
    m = np.load(t8name, mmap_mode="r")
    check(f"{dim} trajectory maps with mmap_mode='r'", np.array_equal(m[-1], t8[-1]))
    with open(t8name, "rb") as f:
        raw = f.read()
    hlen = raw[8] | raw[9] << 8
    check(f"{dim} npy version 1.0, data 64-byte aligned",
          raw[:8] == b"\x93NUMPY\x01\x00" and (10 + hlen) % 64 == 0, raw[:10])
    check(f"{dim} npy data: samples x N x {cols} doubles",
          len(raw) - 10 - hlen == 5 * n * cols * 8, len(raw) - 10 - hlen)

    # Without --every the samples are step 0 and the last step.
    run(BOIDS, "sim", *args, "--steps", "30", "--trajectory", path(f"t2-{dim}.npy"), check_rc=0)
    check(f"{dim} no --every: two frames (step 0, last)",
          np.load(path(f"t2-{dim}.npy")).shape == (2, n, cols))

for name, kind in [("s.csv", "series"), ("t8.npy", "trajectory")]:
    with open(path(name + ".json")) as f:
        meta = json.load(f)
    check(f"{kind} sidecar: version and commit", meta["program"]["version"] and
          meta["program"]["commit"], meta["program"])
    check(f"{kind} sidecar: the exact command line",
          meta["argv"][1:] == ["sim", *BASE, "--steps", "100", "--every", "25", "--series",
                               path("s.csv"), "--trajectory", path("t8.npy"), "--trajectory-dtype",
                               "f8", "--meta", path("m.json")], meta["argv"])
    values = meta["parameters"]["values"]
    check(f"{kind} sidecar: the full parameter set", values["count"] == 50 and
          values["vision_radius"] == 50 and values["model"] == "reynolds" and len(values) > 30,
          values)
    check(f"{kind} sidecar: backend, renderer, machine, times",
          meta["backend"]["name"] == "cpu-ref" and meta["renderer"] == "none" and
          meta["machine"]["host"] and meta["start"] <= meta["end"], meta)
    check(f"{kind} sidecar: output kind", meta["output"]["kind"] == kind)
    check(f"{kind} sidecar: no config, no interaction points or obstacles",
          meta["interaction"] == {"predators": [], "attractors": [], "obstacles": []},
          meta["interaction"])
with open(path("t8.npy.json")) as f:
    check("trajectory sidecar: shape and dtype", json.load(f)["output"]["shape"] == [5, 50, 4])

# The config file's points and obstacles reach the sidecars of sim and sweep, as the
# backends got them: the points that are on and every obstacle, in the file's order; in 2-D
# circles and segments, in 3-D the points with z and spheres.
points = {
    "2-D": (BASE,
            "predator.3 = 10 20 30 4\npredator.5 = 1 2 3 4\npredator.5 = off\n"
            "attractor.0 = 100 150 60 0.5\nobstacle = circle 200 200 25\n"
            "obstacle = segment 0 10 400 10.5\nalignment_weight = 0.5\n"
            # a wall across the room: too long for a periodic world (interact.h)
            "boundary = walls\n",
            {"predators": [{"index": 3, "x": 10, "y": 20, "radius": 30, "weight": 4}],
             "attractors": [{"index": 0, "x": 100, "y": 150, "radius": 60, "weight": 0.5}],
             "obstacles": [{"kind": "circle", "x": 200, "y": 200, "radius": 25},
                           {"kind": "segment", "x0": 0, "y0": 10, "x1": 400, "y1": 10.5}]}),
    # classic's 400^3 box kept (--fixed-world), which the points and spheres are placed in.
    "3-D": (["--preset", "classic", "--set", "dim=3", "-n", "300", "--fixed-world", "--seed", "4"],
            "predator.0 = 100 100 100 80 2\npredator.5 = 1 2 3 4 5\npredator.5 = off\n"
            "attractor.3 = 300 250 60 4\nobstacle = sphere 200 200 200 40\n"
            "obstacle = sphere 0 0 0 30\nalignment_weight = 0.5\n",
            {"predators": [{"index": 0, "x": 100, "y": 100, "z": 100, "radius": 80, "weight": 2}],
             # four numbers: the middle of classic's depth (its height, 400)
             "attractors": [{"index": 3, "x": 300, "y": 250, "z": 200, "radius": 60, "weight": 4}],
             "obstacles": [{"kind": "sphere", "x": 200, "y": 200, "z": 200, "radius": 40},
                           {"kind": "sphere", "x": 0, "y": 0, "z": 0, "radius": 30}]}),
}
for dim, (args, text, want) in points.items():
    ini = path(f"points-{dim}.ini")
    with open(ini, "w") as f:
        f.write(text)
    run(BOIDS, "sim", *args, "--steps", "3", "--config", ini, "--series", path(f"ps-{dim}.csv"),
        check_rc=0)
    run(BOIDS, "sweep", *args, "--key", "noise", "--values", "0", "--steps", "2", "--seeds", "1",
        "--sample-every", "1", "--config", ini, "--out", path(f"pw-{dim}.csv"), check_rc=0)
    for name in (f"ps-{dim}.csv", f"pw-{dim}.csv"):
        with open(path(name + ".json")) as f:
            meta = json.load(f)
        check(f"{name} sidecar: the config's points and obstacles", meta["interaction"] == want,
              meta["interaction"])
        check(f"{name} sidecar: the config's parameters beside them",
              meta["parameters"]["values"]["alignment_weight"] == 0.5)
with open(path("m.json")) as f:
    check("--meta: provenance of stdout", json.load(f)["output"]["kind"] == "stdout")

# Bad flags: exit 2, one message naming the flag, nothing written.
bad = tmpdir()
cases = [
    ("bad dtype", ["--trajectory", os.path.join(bad, "t.npy"), "--trajectory-dtype", "f2"], ["f2"]),
    ("dtype without trajectory", ["--trajectory-dtype", "f8"], ["--trajectory"]),
    ("unwritable series", ["--series", os.path.join(bad, "no", "s.csv")], ["s.csv"]),
    ("unwritable trajectory", ["--trajectory", os.path.join(bad, "no", "t.npy")], ["t.npy"]),
    ("unwritable meta", ["--meta", os.path.join(bad, "no", "m.json")], ["m.json"]),
]
for name, args, words in cases:
    p = run(BOIDS, "sim", *BASE, "--steps", "5", "--series", os.path.join(bad, "ok.csv"), *args)
    one_message(name, p, words)
    check(f"{name}: nothing written", os.listdir(bad) == [], os.listdir(bad))
finish()
