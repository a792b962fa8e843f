#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""boids-bench --quick runs and writes well-formed CSV and JSON naming every backend and every
GPU stage; bad flags exit 2. Checks the harness only: no timing is ever compared with a bound,
since the machine running the tests may be loaded or slow.

usage: quick_test.py BOIDS_BENCH
"""
import csv
import json
import math
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
from harness import gpu_required  # noqa: E402

BENCH = sys.argv[1]
BACKENDS = ["cpu-ref", "cpu-1t", "cpu-all", "gpu", "gpu-det"]
STAGES = ["clear", "count", "scan", "scatter", "sort", "steer"]
failures = []


def check(name, cond, detail=""):
    print(("ok   " if cond else "FAIL ") + name + (f": {detail}" if detail and not cond else ""))
    if not cond:
        failures.append(name)


def positive(v):
    return isinstance(v, (int, float)) and math.isfinite(v) and v > 0


out = tempfile.mkdtemp(prefix="boids-bench-test-")
p = subprocess.run([BENCH, "--quick", "--out", out], capture_output=True, text=True)
check("quick run exits 0", p.returncode == 0, f"exit {p.returncode}: {p.stderr[-2000:]}")
check("table on stdout", "ms/step" in p.stdout and "backend" in p.stdout, p.stdout[-500:])

rows = []
try:
    with open(os.path.join(out, "bench.csv"), newline="") as f:
        reader = csv.DictReader(f)
        header = reader.fieldnames or []
        rows = list(reader)
    check("csv has the stage columns",
          all(f"gpu_{s}_ms" in header for s in STAGES), str(header))
    check("csv rows all have every column", all(None not in r for r in rows))
except (OSError, csv.Error) as e:
    check("csv readable", False, str(e))

doc = {}
try:
    with open(os.path.join(out, "bench.json")) as f:
        doc = json.load(f)
except (OSError, ValueError) as e:
    check("json parses", False, str(e))
results = doc.get("results", [])
check("json lists the stages", doc.get("gpu_stages") == STAGES, str(doc.get("gpu_stages")))
check("json has machine info",
      all(k in doc.get("machine", {}) for k in ("cpu_model", "cpu_threads", "gl_renderer",
                                               "gpu_max_n", "load_start")))
check("csv and json agree on the points", len(rows) == len(results) > 0,
      f"{len(rows)} csv rows, {len(results)} json results")

for b in BACKENDS:
    mine = [r for r in results if r.get("backend") == b]
    check(f"{b}: present at every size", len(mine) == 2, f"{len(mine)} points")
    csv_mine = [r for r in rows if r["backend"] == b]
    check(f"{b}: present in csv", len(csv_mine) == 2)
    for r in mine:
        if r.get("state") == "ok":
            ms = r.get("ms_per_step", {})
            check(f"{b} N={r['n']}: median, spread and throughput are positive",
                  all(positive(ms.get(k)) for k in ("median", "min", "max", "q1", "q3"))
                  and ms["min"] <= ms["median"] <= ms["max"]
                  and positive(r.get("boid_steps_per_s")), str(r))
            if b.startswith("gpu"):
                st = r.get("gpu_stage_ms", {})
                check(f"{b} N={r['n']}: every stage timed", all(s in st for s in STAGES), str(st))
        else:
            # A point not measured must say why (e.g. no GL context on this machine); with
            # BOIDS_REQUIRE_GPU set, the GPU points must be measured, not skipped.
            check(f"{b} N={r['n']}: {r.get('state')} with a reason", bool(r.get("reason")), str(r))
            if b.startswith("gpu"):
                check(f"{b} N={r['n']}: measured, as BOIDS_REQUIRE_GPU is set", not gpu_required(),
                      str(r.get("reason")))

for args, what in [(["--sizes", "ten"], "bad --sizes"), (["--backends", "tpu"], "bad --backends"),
                   (["--reps", "1"], "--reps out of range"), (["--bogus"], "unknown flag"),
                   (["--set", "nope=1"], "unknown --set key")]:
    q = subprocess.run([BENCH, "--quick", "--out", out] + args, capture_output=True, text=True)
    check(f"{what}: exit 2 with one message", q.returncode == 2 and
          q.stderr.count("\n") == 1 and q.stderr.startswith("boids-bench: "), q.stderr)

if failures:
    print(f"{len(failures)} check(s) failed: {', '.join(failures)}")
    sys.exit(1)
print("all checks passed")
