#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The provenance sidecars (sim --series, --trajectory, --meta; sweep --out, --runs-out, --meta)
give numbers as JSON numbers and lists as JSON arrays: no field holds a number or a list
written as text, and the typed fields agree with the files they describe.

usage: provenance_test.py BOIDS_BINARY
"""
import csv
import json
import os
import sys

from harness import check, finish, run, tmpdir

BOIDS = sys.argv[1]
d = tmpdir()
SEED = 18446744073709551615  # 2^64 - 1: not a double, every digit must survive


def path(name):
    return os.path.join(d, name)


def load(name):
    with open(path(name)) as f:
        return json.load(f)


# Fields that are prose or a command: they may hold commas and digits.
TEXT = {"command_line", "statistics", "layout", "observables", "os", "cpu_model", "host",
        "renderer", "version", "commit", "format", "start", "end"}


def strings(node, where=""):
    """Every string in the document with where it is (argv's items are the user's words)."""
    if isinstance(node, dict):
        for k, v in node.items():
            yield from strings(v, f"{where}.{k}")
    elif isinstance(node, list) and not where.endswith((".argv", ".set")):
        for i, v in enumerate(node):
            yield from strings(v, f"{where}[{i}]")
    elif isinstance(node, str):
        yield where, node


def is_number(text):
    try:
        float(text)
        return True
    except ValueError:
        return False


def check_no_text_numbers(name, doc):
    bad = [(w, v) for w, v in strings(doc) if w.rsplit(".", 1)[-1] not in TEXT and
           (is_number(v) or "," in v)]
    check(f"{name}: no number or list written as text", not bad, bad)


def csv_header(name):
    with open(path(name), newline="") as f:
        return next(csv.reader(f))


run(BOIDS, "sim", "-n", "40", "--steps", "10", "--every", "4", "--backend", "cpu", "--seed", str(SEED),
    "--series", path("s.csv"), "--trajectory", path("t.npy"), "--meta", path("m.json"), check_rc=0)
for name in ("s.csv.json", "t.npy.json", "m.json"):
    doc = load(name)
    check_no_text_numbers(name, doc)
    check(f"{name}: the seed is a number, every digit", doc["parameters"]["seed"] == SEED,
          doc["parameters"]["seed"])
    check(f"{name}: the cpu backend's threads are a number",
          isinstance(doc["backend"]["threads"], int) and doc["backend"]["threads"] >= 1, doc["backend"])
    check(f"{name}: machine and times are numbers", isinstance(doc["machine"]["online_cpus"], int)
          and isinstance(doc["wall_seconds"], (int, float)) and doc["wall_seconds"] >= 0)
    out = doc["output"]
    at = out["sample_steps"]
    check(f"{name}: the sample steps are numbers, 0 to 8 every 4",
          isinstance(at, dict) and list(range(at["first"], at["last"] + 1, at["every"])) == [0, 4, 8]
          and out["samples"] == 3 and out["steps"] == 10 and out["every"] == 4, out)
    if name != "t.npy.json":
        check(f"{name}: the columns are a list", isinstance(out["columns"], list) and
              all(isinstance(c, str) for c in out["columns"]), out["columns"])
check("s.csv.json: its columns are the CSV's header", load("s.csv.json")["output"]["columns"] ==
      csv_header("s.csv"))
with open(path("s.csv"), newline="") as f:
    steps = [int(r["step"]) for r in csv.DictReader(f)]
at = load("s.csv.json")["output"]["sample_steps"]
check("s.csv.json: sample_steps are the series' steps",
      list(range(at["first"], at["last"] + 1, at["every"])) == steps, (at, steps))
check("t.npy.json: the shape is a list of numbers", load("t.npy.json")["output"]["shape"] == [3, 40, 4])

# Without --every: step 0 and the last step.
run(BOIDS, "sim", "-n", "40", "--steps", "7", "--series", path("s2.csv"), check_rc=0)
out = load("s2.csv.json")["output"]
at = out["sample_steps"]
check("no --every: every is null, samples at 0 and 7",
      out["every"] is None and list(range(at["first"], at["last"] + 1, at["every"])) == [0, 7], out)

SWEEP = ["sweep", "--preset", "lab", "--steps", "8", "--burn-in", "4", "--sample-every", "4",
         "--key", "noise", "--values", "0.5,1", "--key", "model", "--values", "reynolds,vicsek",
         "--counts", "20,30", "--seeds", "2", "--seed", str(SEED)]
run(BOIDS, *SWEEP, "--out", path("o.csv"), "--runs-out", path("r.csv"), "--meta", path("sm.json"),
    check_rc=0)
check("--meta FILE with --out writes FILE itself", os.path.exists(path("sm.json")) and
      not os.path.exists(path("sm.json.json")), sorted(os.listdir(d)))
for name, table in (("o.csv.json", "o.csv"), ("r.csv.json", "r.csv"), ("sm.json", "o.csv")):
    if not os.path.exists(path(name)):
        continue
    doc = load(name)
    check_no_text_numbers(name, doc)
    sw = doc["sweep"]
    check(f"{name}: swept values typed as the parameters are",
          sw["keys"] == [{"key": "noise", "values": [0.5, 1]},
                         {"key": "model", "values": ["reynolds", "vicsek"]}], sw["keys"])
    check(f"{name}: counts, seeds and the first seed are numbers",
          sw["counts"] == [20, 30] and sw["seeds"] == 2 and sw["first_seed"] == SEED and
          all(isinstance(sw[k], int) for k in ("steps", "burn_in", "sample_every", "points", "runs",
                                               "resumed_runs")), sw)
    check(f"{name}: no --density is null", sw["density"] is None, sw["density"])
    check(f"{name}: the row order is a list of columns", sw["order"] == ["N", "noise", "model", "seed"],
          sw["order"])
    check(f"{name}: the columns are the CSV's header", doc["output"]["columns"] == csv_header(table),
          doc["output"]["columns"])
run(BOIDS, *SWEEP[:-6], "--counts", "20", "--seeds", "2", "--density", "0.5", "--meta", path("d.json"), check_rc=0)
check("--density D is a number", load("d.json")["sweep"]["density"] == 0.5)

finish()
