#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""boids sweep: a tiny sweep gives well-formed CSV (header row first, the expected rows and
columns, order within [0, 1], standard errors that are non-negative; the statistics explained
in the provenance sidecar), --out is written whole, and bad flags
give one message and exit code 2 without creating the output.

usage: sweep_test.py BOIDS_BINARY
"""
import csv
import io
import json
import math
import os
import sys

from harness import check, finish, one_message, run, tmpdir

BOIDS = sys.argv[1]
d = tmpdir()
OBS = ["order", "milling", "nn_distance", "neighbours", "clusters", "largest_cluster"]
TINY = ["--preset", "vicsek", "--steps", "12", "--burn-in", "4", "--sample-every", "4"]


def rows_of(text):
    return list(csv.DictReader(io.StringIO(text)))


# Two N at fixed density, three noise values from a range, three seeds: 6 rows.
meta = os.path.join(tmpdir(), "meta.json")
p = run(BOIDS, "sweep", *TINY, "--key", "noise", "--range", "0:4:2", "--counts", "12,30",
        "--density", "4", "--seeds", "3", "--meta", meta)
check("tiny sweep exits 0", p.returncode == 0, p.stderr[-500:])
check("plain CSV: the header row first, no comment lines",
      p.stdout.startswith("N,width,height,noise,") and "#" not in p.stdout, p.stdout[:200])
with open(meta) as f:
    stats = json.load(f)["sweep"]["statistics"]
check("--meta says what the SE captures", "seed-to-seed" in stats and "autocorrelation" in stats)
rows = rows_of(p.stdout)
# The six metrics' columns where they always were, then gnf_alpha's, then the estimators'.
OBS7 = OBS + ["gnf_alpha"]
header = ["N", "width", "height", "noise", "seeds", "samples"] + \
    [f"{o}_{s}" for o in OBS7 for s in ("mean", "se")] + \
    [f"{o}_{s}" for o in OBS7 for s in ("se_blocks", "tau", "neff")] + \
    ["order_chi", "order_chi_se", "order_binder", "order_binder_se"]
check("columns", rows and list(rows[0].keys()) == header, rows and list(rows[0].keys()))
check("one row per (N, value)", [(r["N"], r["noise"]) for r in rows] ==
      [("12", "0"), ("12", "2"), ("12", "4"), ("30", "0"), ("30", "2"), ("30", "4")],
      [(r["N"], r["noise"]) for r in rows])
# Samples at steps 4, 8, 12: three per run.
check("samples after burn-in", all(r["samples"] == "3" and r["seeds"] == "3" for r in rows))
for r in rows:
    n = int(r["N"])
    # --density 4: the world side is sqrt(N / 4).
    check(f"N {n}: side sqrt(N/D)", math.isclose(float(r["width"]), math.sqrt(n / 4), rel_tol=1e-15)
          and r["width"] == r["height"])
    o = float(r["order_mean"])
    check(f"N {n} noise {r['noise']}: order mean within [0, 1]", 0 <= o <= 1 + 1e-12, o)
    check(f"N {n} noise {r['noise']}: SEs finite and >= 0",
          all(math.isfinite(float(r[f"{k}_se"])) and float(r[f"{k}_se"]) >= 0 for k in OBS))
    check(f"N {n}: clusters within [1, N]", 1 <= float(r["clusters_mean"]) <= n)
# Zero noise from random headings orders a small dense flock (each sees ~12 others): the
# sweep must show order rising as noise falls, the property the whole command exists for.
by = {(r["N"], r["noise"]): float(r["order_mean"]) for r in rows}
check("order falls with noise (N 30)", by[("30", "0")] > by[("30", "4")], by)
check("progress on stderr", "[18/18]" in p.stderr, p.stderr[-300:])

# --out: atomic write, same content as stdout; a values list; one seed gives nan SE.
out = os.path.join(d, "sweep.csv")
p = run(BOIDS, "sweep", *TINY, "--key", "vision_radius", "--values", "0.5,1.5", "-n", "20",
        "--seeds", "1", "--out", out)
check("--out exits 0 and prints nothing on stdout", p.returncode == 0 and p.stdout == "", p.stderr[-300:])
with open(out) as f:
    rows = rows_of(f.read())
check("--out rows", [r["vision_radius"] for r in rows] == ["0.5", "1.5"], rows)
check("one seed: SE is nan", all(r["order_se"] == "nan" for r in rows))
check("no temporary file left, the sidecar beside the CSV",
      sorted(os.listdir(d)) == ["sweep.csv", "sweep.csv.json"], os.listdir(d))

bad = os.path.join(d, "bad.csv")
cases = [
    ("no key", ["--values", "1,2"], ["--key"]),
    ("unknown key", ["--key", "bogus", "--values", "1"], ["bogus"]),
    ("key count", ["--key", "count", "--values", "1"], ["--counts"]),
    ("no values", ["--key", "noise"], ["--values", "--range"]),
    ("both values and range", ["--key", "noise", "--values", "1", "--range", "0:1:1"], ["--range"]),
    ("bad value", ["--key", "noise", "--values", "0,abc"], ["noise", "abc"]),
    ("value out of range", ["--key", "noise", "--values", "0,9"], ["noise", "9"]),
    ("empty value", ["--key", "noise", "--values", "0,,1"], ["empty"]),
    ("bad range", ["--key", "noise", "--range", "0:1"], ["A:B:STEP"]),
    ("zero step", ["--key", "noise", "--range", "0:1:0"], ["STEP > 0"]),
    ("range of a non-numeric key", ["--key", "boundary", "--range", "0:1:1"], ["numeric"]),
    ("bad counts", ["--key", "noise", "--values", "1", "--counts", "10,x"], ["--counts", "x"]),
    ("zero count", ["--key", "noise", "--values", "1", "--counts", "0"], ["--counts", "range"]),
    ("-n and --counts", ["--key", "noise", "--values", "1", "-n", "5", "--counts", "5"], ["--counts"]),
    ("bad density", ["--key", "noise", "--values", "1", "--density", "-1"], ["--density"]),
    ("density and width", ["--key", "width", "--values", "5", "--density", "4"], ["--density"]),
    ("zero seeds", ["--key", "noise", "--values", "1", "--seeds", "0"], ["--seeds"]),
    ("burn-in beyond steps", ["--key", "noise", "--values", "1", "--burn-in", "9"], ["--burn-in"]),
    ("bad plot name", ["--key", "noise", "--values", "1", "--plot", "x.jpg"], [".png", ".svg"]),
    ("bad plot-y", ["--key", "noise", "--values", "1", "--plot-y", "speed"], ["--plot-y", "speed"]),
    ("bad backend", ["--key", "noise", "--values", "1", "--backend", "tpu"], ["tpu"]),
    ("unknown option", ["--key", "noise", "--values", "1", "--bogus"], ["--bogus"]),
    ("missing value", ["--key"], ["--key"]),
    ("unwritable out", ["--key", "noise", "--values", "1", "--out", os.path.join(d, "no", "x.csv")],
     ["x.csv"]),
]
for name, args, words in cases:
    out_args = [] if "--out" in args else ["--out", bad]
    p = run(BOIDS, "sweep", "--preset", "vicsek", "--steps", "2", *out_args, *args)
    one_message(name, p, words)
    check(f"{name}: no output file", not os.path.exists(bad))
finish()
