#!/usr/bin/env python3
"""Seed 000 reproduced bit for bit by `boids sim --backend cpu-ref`.

usage: seed_test.py BOIDS_BINARY
"""
import os
import re
import sys

from harness import check, finish, read_state, run, tmpdir

HERE = os.path.dirname(os.path.abspath(__file__))
BOIDS = sys.argv[1]
SEED_PROGRAM = os.path.join(HERE, "seed000.py")
DATA = os.path.join(HERE, "data")
PY = sys.executable


def printed_table():
    """The orders the seed document prints, by section (two decimals)."""
    sections, cur = [], None
    for line in open(os.path.join(DATA, "seed000_table.txt"), encoding="utf-8"):
        m = re.search(r"orden (\d\.\d\d)", line)
        if m:
            cur.append(m.group(1))
        elif line.strip():
            cur = []
            sections.append(cur)
    return sections


def sim_orders(*extra):
    p = run(BOIDS, "sim", "--preset", "classic", "--seed", "7", "--steps", "300", "--every", "60",
            *extra, check_rc=0)
    rows = p.stdout.strip().splitlines()
    assert rows[0].startswith("step,order"), rows[0]
    return [(int(r.split(",")[0]), float(r.split(",")[1])) for r in rows[1:]]


table = printed_table()
for name, extra, expected in [("three rules", [], table[0]),
                              ("without alignment", ["--set", "alignment_weight=0"], table[1])]:
    got = sim_orders(*extra)
    check(f"order series, {name}: steps 0..300 by 60", [s for s, _ in got] == list(range(0, 301, 60)))
    check(f"order series, {name}: rounds to the seed's printed table {' '.join(expected)}",
          [f"{o:.2f}" for _, o in got] == expected, f"got {[f'{o:.2f}' for _, o in got]}")

d = tmpdir()
# The committed reference: the seed program's own final state for seed 7, 80 boids, 300 steps.
out = os.path.join(d, "final.csv")
run(BOIDS, "sim", "--preset", "classic", "--seed", "7", "--steps", "300", "--save", out, check_rc=0)
check("seed 7 final state equals the seed program's (tests/data), every double identical",
      read_state(out) == read_state(os.path.join(DATA, "seed000_seed7_final300.csv")))

# The random initial state equals Python's random.Random(seed) through nueva().
for seed, count in [(7, 80), (0, 5), (2**40 + 3, 33), (2**64 - 1, 4)]:
    ini_py, ini_c = os.path.join(d, f"py{seed}.csv"), os.path.join(d, f"c{seed}.csv")
    run(PY, SEED_PROGRAM, "--seed", seed, "--count", count, "--steps", 0, "--initial", ini_py, check_rc=0)
    run(BOIDS, "sim", "--preset", "classic", "--seed", seed, "-n", count, "--steps", 0, "--save", ini_c,
        check_rc=0)
    check(f"initial state of seed {seed} ({count} boids) equals random.Random({seed}) in nueva()",
          read_state(ini_py) == read_state(ini_c))

# States the seed program produced, for other seeds, sizes and weights, loaded and stepped.
for seed, count, steps, weights in [(1, 10, 60, (1.5, 1.0, 1.0)), (123456789, 150, 40, (1.5, 1.0, 1.0)),
                                    (3, 2, 100, (1.5, 1.0, 1.0)), (9, 120, 50, (1.5, 0.0, 1.0)),
                                    (11, 60, 80, (0.0, 2.0, 3.0))]:
    ini, fin_py, fin_c = (os.path.join(d, f"{k}-{seed}.csv") for k in ("ini", "finpy", "finc"))
    # Step the seed program from a state it wrote after some steps of its own, so the loaded
    # state is one the program produced mid-flight, not only a fresh random one.
    run(PY, SEED_PROGRAM, "--seed", seed, "--count", count, "--steps", 25, "--weights", *weights,
        "--final", ini, check_rc=0)
    run(PY, SEED_PROGRAM, "--load", ini, "--steps", steps, "--weights", *weights, "--final", fin_py,
        check_rc=0)
    run(BOIDS, "sim", "--preset", "classic", "--load", ini, "--steps", steps,
        "--set", f"separation_weight={weights[0]}", "--set", f"alignment_weight={weights[1]}",
        "--set", f"cohesion_weight={weights[2]}", "--save", fin_c, check_rc=0)
    check(f"seed program state (seed {seed}, {count} boids, weights {weights}) stepped {steps} "
          f"times by cpu-ref equals the seed program to the last digit",
          read_state(fin_py) == read_state(fin_c))
finish()
