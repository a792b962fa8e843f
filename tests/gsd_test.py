#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""boids sim --trajectory FILE.gsd, read back by three readers that share none of our code:
Debian python3-gsd's C file layer (gsd.hoomd.open), its pure-Python reader (gsd.pygsd) and
MDAnalysis (python3-mdanalysis, whose GSD reader the tools of the field use). A 2-D flock on
the wrapping plane, one inside walls, one on the open plane, and a 3-D flock in its box.

Each frame must hold the same boids as the same run's .npy trajectory (float32): positions
float32(x) - float32(side / 2) computed in float32 (the schema's box is centred on 0; src/app/
output/gsd.h), so equal to numpy's float32 arithmetic on the .npy's values, not merely close;
velocities equal; z = 0 in 2-D. Frame 0 holds the box (Lz = 0 in 2-D), the dimension, N, one
type "boid" and type id 0 for every boid; each frame its step (0, every, 2 every, ...).

Refused before any work (exit 2, one message, no file): float64 asked for a .gsd (the schema
holds float32), an unwritable place. SIGTERM mid-run leaves no file.

usage: gsd_test.py BOIDS_BINARY   (run with a Python that has numpy, gsd and MDAnalysis)
"""
import json
import os
import signal
import subprocess
import sys
import time
import warnings

from harness import check, finish, one_message, run, species_of_ids, tmpdir

try:
    import numpy as np
    import gsd.hoomd
    import gsd.pygsd
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # MDAnalysis 2.4 imports the deprecated xdrlib
        import MDAnalysis
except ImportError as e:
    print(f"FAIL: {e} (Debian python3-numpy, python3-gsd and python3-mdanalysis, installed by "
          ".ci/install-deps)")
    sys.exit(1)

BOIDS = sys.argv[1]
os.environ["OMP_NUM_THREADS"] = "1"  # 60 boids need no team of threads
d = tmpdir()
path = lambda *names: os.path.join(d, *names)
N, STEPS, EVERY = 60, 30, 10
FRAMES = STEPS // EVERY + 1
CASES = {"2-D wrap": ["--preset", "classic", "--seed", "7"],
         "2-D walls": ["--preset", "classic", "--seed", "8", "--set", "boundary=walls"],
         "2-D open": ["--preset", "classic", "--seed", "9", "--set", "boundary=open"],
         "3-D box": ["--preset", "murmuration", "--seed", "3"],
         "2-D species (hawks)": ["--preset", "hawks", "--seed", "4"]}
SAMPLING = ["-n", N, "--steps", STEPS, "--every", EVERY]


def sim(args, out, *more, **kw):
    return run(BOIDS, "sim", *args, *SAMPLING, "--trajectory", out, *more, **kw)


def frames_equal(tag, reader, frames, want_pos, want_vel, steps):
    check(f"{tag}: {FRAMES} frames", len(frames) == FRAMES, len(frames))
    for k, fr in enumerate(frames[:FRAMES]):
        check(f"{tag} frame {k}: step {steps[k]}", int(fr.configuration.step) == steps[k],
              fr.configuration.step)
        check(f"{tag} frame {k}: positions equal the .npy's less the half sides, in float32",
              fr.particles.position.dtype == np.float32 and
              np.array_equal(fr.particles.position, want_pos[k]))
        check(f"{tag} frame {k}: velocities equal the .npy's",
              np.array_equal(fr.particles.velocity, want_vel[k]))


for name, args in CASES.items():
    stem = name.replace(" ", "-")
    sim(args, path(stem + ".npy"), check_rc=0)
    p = sim(args, path(stem + ".gsd"))
    check(f"{name}: sim --trajectory X.gsd exits 0", p.returncode == 0, p.stderr[-500:])
    if p.returncode:
        continue
    npy = np.load(path(stem + ".npy"))
    with open(path(stem + ".gsd.json")) as f:
        meta = json.load(f)
    values = meta["parameters"]["values"]
    dim = int(values["dim"])
    side = [values["width"], values["height"], values.get("depth", 0.0)][:dim]
    half = np.array([s / 2 for s in side], np.float64).astype(np.float32)
    want_pos = np.zeros((FRAMES, N, 3), np.float32)
    want_vel = np.zeros((FRAMES, N, 3), np.float32)
    want_pos[:, :, :dim] = npy[:, :, :dim] - half  # float32 minus float32: float32
    want_vel[:, :, :dim] = npy[:, :, dim:]
    steps = list(range(0, STEPS + 1, EVERY))
    check(f"{name}: sidecar names the format", meta["output"]["kind"] == "trajectory" and
          "GSD" in meta["output"]["format"], meta["output"])

    with gsd.hoomd.open(path(stem + ".gsd"), "rb") as t:
        frames = list(t)
    f0 = frames[0]
    box = [float(v) for v in f0.configuration.box]
    want_box = [float(np.float32(s)) for s in side] + [0.0] * (3 - dim) + [0.0, 0.0, 0.0]
    check(f"{name}: box Lx Ly Lz (Lz 0 in 2-D), no tilt", box == want_box, (box, want_box))
    check(f"{name}: dimensions {dim}", int(f0.configuration.dimensions) == dim)
    # The types: one, 'boid', or one a species; a boid's type id is its species, which holds
    # the ids after the lower species' (species_count.s of them) with species 0 the rest.
    kinds = int(values.get("species", 1))
    want_id = np.array(species_of_ids(values, N), np.uint32)
    want_types = ["boid"] if kinds == 1 else [f"species{s}" for s in range(kinds)]
    check(f"{name}: N, types {want_types}, each boid's type id its species", f0.particles.N == N
          and f0.particles.types == want_types and np.array_equal(f0.particles.typeid, want_id),
          (f0.particles.types, f0.particles.typeid))
    if kinds > 1:
        check(f"{name}: both kinds present (the test has something to tell apart)",
              0 < np.count_nonzero(want_id) < N, np.count_nonzero(want_id))
    frames_equal(f"{name} gsd C reader", "c", frames, want_pos, want_vel, steps)
    with open(path(stem + ".gsd"), "rb") as fh:
        py = gsd.hoomd.HOOMDTrajectory(gsd.pygsd.GSDFile(fh))
        frames_equal(f"{name} gsd pure-Python reader", "py", list(py), want_pos, want_vel, steps)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        u = MDAnalysis.Universe(path(stem + ".gsd"))
        check(f"{name} MDAnalysis: N atoms, {FRAMES} frames",
              u.atoms.n_atoms == N and len(u.trajectory) == FRAMES,
              (u.atoms.n_atoms, len(u.trajectory)))
        for k, ts in enumerate(u.trajectory):
            check(f"{name} MDAnalysis frame {k}: positions", np.array_equal(
                ts.positions.astype(np.float32), want_pos[k]))

# Refusals before any work: one message, exit 2, no file.
args = CASES["2-D wrap"]
p = sim(args, path("f8.gsd"), "--trajectory-dtype", "f8")
one_message("float64 in a .gsd", p, ["f8.gsd", "float32"])
check("float64 in a .gsd: no file", not os.path.exists(path("f8.gsd")))
p = sim(args, path("no-such-folder", "x.gsd"))
one_message("an unwritable place", p, ["no-such-folder"])

# SIGTERM mid-run: neither the file nor a temporary one is left.
big = subprocess.Popen([BOIDS, "sim", "--preset", "classic", "-n", "20000", "--steps", "100000",
                        "--every", "1000", "--backend", "cpu-ref", "--trajectory",
                        path("killed.gsd")], stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE)
time.sleep(1.0)
big.send_signal(signal.SIGTERM)
big.wait(timeout=60)
left = [f for f in os.listdir(d) if f.startswith("killed")]
check("SIGTERM mid-run leaves no file", left == [], left)
finish()
