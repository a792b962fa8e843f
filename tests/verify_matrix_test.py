#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`boids verify` passes across models, neighbour rules, k, N, seeds and both dimensions: where
no backend disagrees it never fails (the float band's boids are decided against their
admissible outcomes, not counted against a limit), and the order curves run and name the
run's model and neighbour rule. tests/verify_fault_test.c is the other half: the same checks
fail when a backend is falsified.

usage: verify_matrix_test.py BOIDS_BINARY [--full] [--backends LIST]

Without --full, the subset CI runs (about a minute on 2 cores with llvmpipe): the issue's four
failing commands (their one-step checks; the order curves are each cell's below), then every
cell of model x neighbour rule (metric; topological k 1, 5, 7, 20) x dim with one seed of its
own (2 to 21): the one-step checks at N 7 (N - 1 at or below k: every candidate taken), 300
and 2000 (every scenario for metric; for topological neighbours random, edges and dense, the
scenarios where N matters most) and the cell's order curves. --full runs the whole matrix
(models x metric and k 1, 5, 7, 20 x N 7, 300, 2000 x seeds 1, 2, 3 x dim 2, 3, every
scenario; each cell's curves; the issue's commands with their curves) and prints each run's
time.
"""
import os
import re
import sys
import time

from harness import check, finish, run, skip

args = sys.argv[1:]
BOIDS = args.pop(0)
full = "--full" in args
backends = "cpu,gpu"
if "--backends" in args:
    backends = args[args.index("--backends") + 1]

# No GL context: the gpu column cannot run. A skip (exit 77), or a failure with
# BOIDS_REQUIRE_GPU set; a cpu-only list needs none.
if "gpu" in backends.split(","):
    p = run(BOIDS, "verify", "--backends", "gpu", "--scenarios", "n1", "--seeds", "0")
    if p.returncode != 0 and "context" in (p.stderr + p.stdout).lower():
        skip(f"no GL context for the gpu backend: {p.stderr.strip()[-300:]}")

RULES = [("metric", [])] + [(f"topological k {k}", ["--neighbours", "topological", "-k", str(k)])
                            for k in (1, 5, 7, 20)]
MODELS = ("reynolds", "vicsek")
ROWS = []  # (label, seconds, band %, undecided, result)
DSE = []  # the largest |difference| / standard error of each run's order curves


def verify(label, argv, curves=False):
    """Runs boids verify with argv; checks exit 0 and every row passing; records the time."""
    extra = [] if curves or "--seeds" in argv else ["--seeds", "0"]
    cmd = [BOIDS, "verify", "--backends", backends, *argv, *extra]
    t = time.time()
    p = run(*cmd)
    dt = time.time() - t
    rows = [line.split() for line in p.stdout.splitlines()
            if line.endswith(" pass") or line.endswith(" FAIL")]
    # band %, then the undecided boids (verify/verify_compare.c's row)
    cols = [(float(r[i].rstrip("%")), int(r[i + 1])) for r in rows
            for i in range(len(r) - 1) if r[i].endswith("%")]
    band = max((c[0] for c in cols), default=0.0)
    undec = max((c[1] for c in cols), default=0)
    # The check must still say something: the boids it cannot decide (another decision in
    # the band, a direction that is rounding) stay few, at most 1% of a row's N or the 8
    # hand-placed boids of a scenario.
    few = all(int(c[1]) <= max(8, 0.01 * int(r[1])) for r in rows
              for c in [(None, r[i + 1]) for i in range(len(r) - 1) if r[i].endswith("%")])
    ok = p.returncode == 0 and "all checks passed" in p.stdout and rows and \
        not any(r[-1] == "FAIL" for r in rows)
    detail = "\n".join(line for line in p.stdout.splitlines() if "FAIL" in line or
                       line.startswith("  ")) + p.stderr[-500:]
    check(f"verify {' '.join(argv + extra)} passes ({dt:.1f} s)", ok, detail)
    check(f"verify {' '.join(argv + extra)}: few boids undecided (at most {undec})", few,
          p.stdout[-1500:])
    ROWS.append((label, dt, band, undec, "pass" if ok else "FAIL"))
    return p


def curves(label, argv):
    """The order curves of the run: they pass and their header names the model and the rule."""
    p = verify(label, argv, curves=True)
    head = next((line for line in p.stdout.splitlines() if line.startswith("order curves:")), "")
    model = "vicsek" if "vicsek" in argv else "reynolds"
    rule = "topological" if "topological" in argv else "metric"
    dim = "3-D" if "dim=3" in argv else "2-D"
    check(f"{label}: curves name model {model}, rule {rule}, {dim}",
          f"model {model}" in head and f"neighbours {rule}" in head and dim in head, head)
    dse = [float(x) for line in p.stdout.splitlines() if re.match(r"^\s+\d+\s+[0-9.]+ \(", line)
           for x in [t for t in line.split() if t != "FAIL"][5::3]]
    DSE.append((label, max(dse, default=0.0)))
    if model == "vicsek":
        check(f"{label}: Vicsek curves stay below order 0.95 (they discriminate)",
              all(float(m) < 0.95 for m in re.findall(r"^\s+\d+\s+([0-9.]+)", p.stdout, re.M)),
              p.stdout[-800:])


# The issue's commands, which failed on the edges scenario with "too many boids in the float
# band" although no backend disagreed.
ISSUE = [["--model", "vicsek", "--neighbours", "topological", "-k", "5", "--fast", "-n", "300",
          "--seed", "3"],
         ["--neighbours", "topological", "-k", "20", "-n", "300", "--seed", "4"],
         ["--neighbours", "topological", "-k", "7", "-n", "7", "--seed", "1"],
         ["--set", "dim=3", "--neighbours", "topological"]]


def cell(dim, model, rule, rargs, seeds, scen2000=None):
    """One cell of the matrix: the one-step checks at N 7, 300 and 2000 for each seed (at 2000
    only the scenarios scen2000 when given), then the cell's order curves (the defaults:
    12 seeds, 120 steps, N 100)."""
    base = ["--set", f"dim={dim}", "--model", model, *rargs]
    for n in (7, 300, 2000):
        for seed in seeds:
            extra = ["--scenarios", scen2000] if n == 2000 and scen2000 else []
            verify(f"{dim}-D {model} {rule} N {n} seed {seed}",
                   base + ["-n", str(n), "--seed", str(seed)] + extra)
    curves(f"{dim}-D {model} {rule} curves", base + ["--scenarios", "n1"])


for cmd in ISSUE:
    (curves if full else verify)("issue: " + " ".join(cmd), cmd)
# Species: the hawks preset as the base of scenarios of each kind (the species scenarios keep
# its species; the topological one takes one kind) and its order curves, in both dimensions.
for dim in (2, 3):
    curves(f"{dim}-D hawks scenarios, curves",
           ["--set", f"dim={dim}", "--preset", "hawks", "-n", "300", "--seed", "2", "--scenarios",
            "random,walls,interact,vicsek,species,vicsek-species,topological", "--seeds", "6"])
seed = 1
for dim in (2, 3):
    for model in MODELS:
        for rule, rargs in RULES:
            seed += 1
            if full:
                cell(dim, model, rule, rargs, (1, 2, 3))
            else:
                # One seed per cell (2 to 21); at N 2000 every scenario for metric, the three
                # where N matters most (random, edges, dense) for topological neighbours.
                cell(dim, model, rule, rargs, (seed,),
                     None if rule == "metric" else "random,edges,dense")

print(f"\n{'run':60s} {'s':>6s} {'band':>6s} {'undec':>5s}  result")
for label, dt, band, undec, res in ROWS:
    print(f"{label:60s} {dt:6.1f} {band:5.2f}% {undec:5d}  {res}")
print(f"total {sum(r[1] for r in ROWS):.0f} s over {len(ROWS)} runs")
if DSE:
    worst = max(DSE, key=lambda r: r[1])
    print(f"order curves: largest |diff| / se {worst[1]:.2f} ({worst[0]}) over {len(DSE)} runs")
finish()
