#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""boids sweep --series-dir DIR keeps each run's time series, as BehaviorSpace's table output
does: DIR/RUN_ID.csv for every run of the runs file (RUN_ID its run_id), with a header
(step, then the observables) and one row per sample at steps burn_in, burn_in + every, ...

- Each file's rows are those `boids sim --series` prints for the same run (same preset, N,
  swept value and seed) at the same steps, as text: the sweep's run is that simulation.
- The run average in the runs file is the mean of the file's order column (to 1e-12
  relative: the file holds each sample with 17 significant digits, and the mean's summation
  order is the estimator's own).
- --jobs 2 writes the same files, byte for byte, as --jobs 1.
- A folder that does not exist, or a file in its place: exit 2, one message naming it, before
  any run.

usage: sweep_series_test.py BOIDS_BINARY
"""
import csv
import os
import sys

from harness import check, finish, one_message, run, tmpdir

BOIDS = sys.argv[1]
os.environ["OMP_NUM_THREADS"] = "1"
d = tmpdir()
STEPS, BURN, EVERY, N = 40, 20, 10, 60
SWEEP = ["sweep", "--preset", "vicsek", "--key", "noise", "--values", "1,3", "-n", N,
         "--seeds", "2", "--steps", STEPS, "--burn-in", BURN, "--sample-every", EVERY,
         "--backend", "cpu", "--threads", "1"]


def sweep_into(name, *more):
    folder = os.path.join(d, name)
    os.mkdir(folder)
    runs = os.path.join(d, name + "_runs.csv")
    p = run(BOIDS, *SWEEP, "--series-dir", folder, "--runs-out", runs, *more)
    check(f"{name}: sweep --series-dir exits 0", p.returncode == 0, p.stderr[-500:])
    with open(runs) as f:
        rows = list(csv.DictReader(f))
    return folder, rows


folder, rows = sweep_into("serial", "--jobs", "1")
files = sorted(os.listdir(folder))
check("one file per run, named by its run id",
      files == sorted(r["run_id"] + ".csv" for r in rows) and len(files) == 4, files)
for r in rows:
    with open(os.path.join(folder, r["run_id"] + ".csv")) as f:
        lines = f.read().splitlines()
    header, body = lines[0], lines[1:]
    steps = [int(ln.split(",")[0]) for ln in body]
    check(f"run {r['run_id']}: a row per sample at steps {BURN}, {BURN + EVERY}, ... {STEPS}",
          steps == list(range(BURN, STEPS + 1, EVERY)) and len(body) == int(r["samples"]),
          (steps, r["samples"]))
    order = [float(ln.split(",")[header.split(",").index("order")]) for ln in body]
    mean = sum(order) / len(order)
    check(f"run {r['run_id']}: the runs file's order_avg is the series' mean",
          abs(mean - float(r["order_avg"])) <= 1e-12 * abs(mean), (mean, r["order_avg"]))
    series = os.path.join(d, f"sim_{r['run_id']}.csv")
    run(BOIDS, "sim", "--preset", "vicsek", "-n", N, "--set", f"noise={r['noise']}", "--seed",
        r["seed"], "--steps", STEPS, "--every", EVERY, "--backend", "cpu", "--threads", "1",
        "--series", series, check_rc=0)
    with open(series) as f:
        sim_lines = f.read().splitlines()
    sim_header = sim_lines[0].split(",")
    cols = [c for c in header.split(",") if c in sim_header]
    pick = lambda ln, hdr: [ln.split(",")[hdr.index(c)] for c in cols]
    sim_rows = [pick(ln, sim_header) for ln in sim_lines[1:] if int(ln.split(",")[0]) >= BURN]
    check(f"run {r['run_id']}: rows equal sim --series at the same steps ({len(cols)} columns)",
          len(cols) >= 7 and [pick(ln, header.split(",")) for ln in body] == sim_rows,
          (cols, body[:1], sim_rows[:1]))

folder2, rows2 = sweep_into("jobs2", "--jobs", "2")
same = all(open(os.path.join(folder, f), "rb").read() == open(os.path.join(folder2, f), "rb").read()
           for f in files) and sorted(os.listdir(folder2)) == files
check("--jobs 2 writes the same files, byte for byte", same)

p = run(BOIDS, *SWEEP, "--series-dir", os.path.join(d, "missing"))
one_message("a folder that does not exist", p, ["--series-dir", "missing"])
plain = os.path.join(d, "plain")
open(plain, "w").close()
p = run(BOIDS, *SWEEP, "--series-dir", plain)
one_message("a file in place of the folder", p, ["--series-dir", "plain"])
finish()
