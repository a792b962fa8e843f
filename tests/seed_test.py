#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Seed 000 reproduced bit for bit by `boids sim --backend cpu-ref`.

The reference is data only: states and orders that seed 000's program computed, stored under
tests/data/ (tests/data/README.md says how each file was made). Every double is compared
through float.hex(), so one differing bit, or a zero of the other sign, fails the test.

usage: seed_test.py BOIDS_BINARY
"""
import os
import sys

from harness import check, finish, run, tmpdir

HERE = os.path.dirname(os.path.abspath(__file__))
BOIDS = sys.argv[1]
DATA = os.path.join(HERE, "data")


def exact_rows(path, header):
    """The rows of a CSV file whose first columns are `header`, as tuples of float.hex() text:
    two files give equal rows iff every double is equal."""
    with open(path) as f:
        lines = f.read().splitlines()
    if lines and lines[0].startswith("# step="):  # a saved state's step counter
        lines = lines[1:]
    assert lines[0].split(",")[:len(header)] == header, f"{path}: header {lines[0]}"
    return [tuple(float(v).hex() for v in line.split(",")[:len(header)]) for line in lines[1:]]


STATE = ["x", "y", "vx", "vy"]
# Seed 000's 400 x 400 world, given: -n keeps the preset's density otherwise, and several
# runs below hold more boids than the preset's 80.
SEED = ["sim", "--preset", "classic", "--set", "width=400", "--set", "height=400"]


def same_state(path, data_name):
    return exact_rows(path, STATE) == exact_rows(os.path.join(DATA, data_name), STATE)


# The order every 60 steps for seed 7 and 80 boids, with and without alignment, as seed
# 000's orden() computed it (the document prints these orders to two decimals).
orders = exact_rows(os.path.join(DATA, "seed000_orders.csv"),
                    ["separation", "alignment", "cohesion", "step", "order"])
for name, extra, weights in [("three rules", [], (1.5, 1.0, 1.0)),
                             ("without alignment", ["--set", "alignment_weight=0"], (1.5, 0.0, 1.0))]:
    wanted = [(r[3], r[4]) for r in orders if r[:3] == tuple(w.hex() for w in weights)]
    p = run(BOIDS, *SEED, "--seed", "7", "--steps", "300", "--every", "60",
            *extra, check_rc=0)
    rows = p.stdout.strip().splitlines()
    assert rows[0].startswith("step,order"), rows[0]
    got = [tuple(float(v).hex() for v in r.split(",")[:2]) for r in rows[1:]]
    check(f"order series, {name}: steps 0..300 by 60",
          [float.fromhex(s) for s, _ in got] == list(range(0, 301, 60)))
    check(f"order series, {name}: every order equals seed 000's orden() to the last bit",
          len(wanted) == 6 and got == wanted, f"got {got}, data {wanted}")

d = tmpdir()
out = os.path.join(d, "final.csv")
run(BOIDS, *SEED, "--seed", "7", "--steps", "300", "--save", out, check_rc=0)
check("seed 7 final state equals the seed program's (tests/data), every double identical",
      same_state(out, "seed000_seed7_final300.csv"))

# The random initial state equals the one Python's random.Random(seed) gives in nueva().
for seed, count, data_name in [(7, 80, "seed000_seed7_initial.csv"), (0, 5, "seed000_init_s0_n5.csv"),
                               (2**40 + 3, 33, f"seed000_init_s{2**40 + 3}_n33.csv"),
                               (2**64 - 1, 4, f"seed000_init_s{2**64 - 1}_n4.csv")]:
    ini = os.path.join(d, f"c{seed}.csv")
    run(BOIDS, *SEED, "--seed", seed, "-n", count, "--steps", 0, "--save", ini,
        check_rc=0)
    check(f"initial state of seed {seed} ({count} boids) equals random.Random({seed}) in nueva()",
          same_state(ini, data_name))

# States the seed program wrote after 25 steps of its own (so the loaded state is one it
# produced mid-flight, not only a fresh random one), loaded and stepped further by cpu-ref.
for seed, count, steps, weights in [(1, 10, 60, (1.5, 1.0, 1.0)), (123456789, 150, 40, (1.5, 1.0, 1.0)),
                                    (3, 2, 100, (1.5, 1.0, 1.0)), (9, 120, 50, (1.5, 0.0, 1.0)),
                                    (11, 60, 80, (0.0, 2.0, 3.0))]:
    fin = os.path.join(d, f"fin-{seed}.csv")
    run(BOIDS, *SEED, "--load",
        os.path.join(DATA, f"seed000_s{seed}_n{count}_step25.csv"), "--steps", steps,
        "--set", f"separation_weight={weights[0]}", "--set", f"alignment_weight={weights[1]}",
        "--set", f"cohesion_weight={weights[2]}", "--save", fin, check_rc=0)
    check(f"seed program state (seed {seed}, {count} boids, weights {weights}) stepped {steps} "
          f"times by cpu-ref equals the seed program to the last bit",
          same_state(fin, f"seed000_s{seed}_n{count}_step{25 + steps}.csv"))
finish()
