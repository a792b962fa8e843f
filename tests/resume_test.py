#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The step counter is part of the state: a run of 200 steps equals 100 steps, --save, --load
and 100 more, bit for bit (the file's `# step=K` makes the Vicsek noise continue), on cpu-ref,
on cpu (its cells keep their boids in id order, so the result does not depend on the order a
load gives them) and on the gpu (deterministic mode). States saved by the float backends load back under the
same parameters (their speeds are within BOIDS_SPEED_TOLERANCE).

usage: resume_test.py BOIDS_BINARY
"""
import os
import sys

from harness import check, finish, gpu_required, run, tmpdir

BOIDS = sys.argv[1]
d = tmpdir()
gpu = run(BOIDS, "sim", "--backend", "gpu", "-n", "10", "--steps", "1")
backends = ["cpu-ref", "cpu"] + (["gpu"] if gpu.returncode == 0 else [])
if gpu.returncode != 0:
    check(f"gpu: a GL 4.3 context ({gpu.stderr.strip()})", not gpu_required())
    print(f"skip gpu: no GL 4.3 context ({gpu.stderr.strip()})")

# Vicsek with noise (eta 2) on 400 agents, and a topological Reynolds flock for the float clamp.
models = {"vicsek": ["--preset", "vicsek", "--seed", "5"],
          "reynolds": ["--preset", "classic", "--seed", "5", "--set", "noise_seed=3"]}
for backend in backends:
    for model, args in models.items():
        one, half, two = (os.path.join(d, f"{backend}-{model}-{k}.csv") for k in ("one", "half", "two"))
        run(BOIDS, "sim", "--backend", backend, *args, "--steps", "200", "--save", one, check_rc=0)
        run(BOIDS, "sim", "--backend", backend, *args, "--steps", "100", "--save", half, check_rc=0)
        run(BOIDS, "sim", "--backend", backend, *args, "--load", half, "--steps", "100", "--save", two,
            check_rc=0)
        a, b = open(one).read(), open(two).read()
        check(f"{backend} {model}: 200 steps == 100 + save/load + 100, bit for bit", a == b)
        check(f"{backend} {model}: the file says step 200", a.startswith("# step=200\n"), a[:40])

for backend in ["cpu"] + backends[1:]:
    for model, args in models.items():
        saved = os.path.join(d, f"float-{backend}-{model}.csv")
        run(BOIDS, "sim", "--backend", backend, *args, "--steps", "50", "--save", saved, check_rc=0)
        p = run(BOIDS, "sim", "--backend", "cpu-ref", *args, "--load", saved, "--steps", "1")
        check(f"a {model} state saved by {backend} loads under its parameters", p.returncode == 0,
              p.stderr)
finish()
