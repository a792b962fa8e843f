#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""boids sweep, factorial and resumable: a 2-key x 2-N x 4-seed sweep writes 32 run rows with
stable ids whose averages give the table's means exactly; --grid is the same as --key/--values;
both CSVs are plain (header row first) and their sidecars hold the command line and version;
a sweep killed (SIGTERM) after a few runs, even with a torn last journal line, resumes to
byte-identical CSVs; a resume against a changed sweep and bad flags exit 2.

usage: research_sweep_test.py BOIDS_BINARY
"""
import csv
import json
import os
import signal
import subprocess
import sys
import time

from harness import check, finish, one_message, run, tmpdir

BOIDS = sys.argv[1]
OBS = ["order", "milling", "nn_distance", "neighbours", "clusters", "largest_cluster"]
# About 0.1 s a run on one core: slow enough to be killed part way, 32 runs in seconds.
SWEEP = ["sweep", "--preset", "vicsek", "--steps", "200", "--burn-in", "100",
         "--sample-every", "20", "--key", "noise", "--values", "0.5,2", "--key", "vision_radius",
         "--values", "1,2", "--counts", "100,200", "--density", "2", "--seeds", "4"]


def read(path):
    with open(path) as f:
        return f.read()


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


# The uninterrupted sweep.
d = tmpdir()
out, runs = os.path.join(d, "table.csv"), os.path.join(d, "runs.csv")
p = run(BOIDS, *SWEEP, "--out", out, "--runs-out", runs)
check("factorial sweep exits 0", p.returncode == 0, p.stderr[-500:])
check("progress counts every run", "[32/32]" in p.stderr, p.stderr[-300:])
check("no journal left after a finished sweep", not os.path.exists(runs + ".partial"))
R, T = rows(runs), rows(out)
check("runs file: 32 rows (2 keys x 2 values x 2 N x 4 seeds)", len(R) == 32, len(R))
check("runs file: columns", list(R[0].keys()) ==
      ["run_id", "N", "width", "height", "noise", "vision_radius", "seed", "samples"] +
      [o + "_avg" for o in OBS + ["gnf_alpha"]] +
      [f"{o}_{s}" for o in OBS + ["gnf_alpha"] for s in ("tau", "se_blocks")] +
      ["order_m2", "order_m4"],
      list(R[0].keys()))
check("runs file: order N, keys (last fastest), seeds",
      [(r["N"], r["noise"], r["vision_radius"], r["seed"]) for r in R[:5]] ==
      [("100", "0.5", "1", "0"), ("100", "0.5", "1", "1"), ("100", "0.5", "1", "2"),
       ("100", "0.5", "1", "3"), ("100", "0.5", "2", "0")], R[:5])
check("run ids: 16 hex digits, all different",
      len({r["run_id"] for r in R}) == 32 and all(len(r["run_id"]) == 16 for r in R))
check("samples at steps 100, 120, ..., 200: 6", all(r["samples"] == "6" for r in R))
check("table: 8 points", len(T) == 8 and all(t["seeds"] == "4" for t in T), len(T))
for k, t in enumerate(T):
    group = R[4 * k:4 * k + 4]
    same = all((g["N"], g["noise"], g["vision_radius"]) == (t["N"], t["noise"], t["vision_radius"])
               for g in group)
    # The same additions in the same order as the C code: equal to the last bit, then printed
    # with the table's %.10g.
    means = ["%.10g" % (sum(float(g[o + "_avg"]) for g in group) / 4) for o in OBS]
    check(f"point {k}: the table's means are the runs' means",
          same and means == [t[o + "_mean"] for o in OBS], (means, t))
for path in (out, runs):
    text = read(path)
    check(f"{os.path.basename(path)}: header row first, no comment lines",
          text.split(",")[0] in ("N", "run_id") and "#" not in text)
    meta = json.loads(read(path + ".json"))
    check(f"{os.path.basename(path)}.json: command line and version",
          meta["argv"][1:] == [*SWEEP, "--out", out, "--runs-out", runs] and
          meta["program"]["version"] and meta["command_line"].endswith(runs), meta.get("argv"))
    check(f"{os.path.basename(path)}.json: the sweep and base parameters",
          [k["key"] for k in meta["sweep"]["keys"]] == ["noise", "vision_radius"] and
          meta["sweep"]["runs"] == 32 and meta["parameters"]["values"]["model"] == "vicsek")
try:
    import pandas  # optional here: the acceptance is read_csv with no options
    check("pandas reads both CSVs with no options",
          pandas.read_csv(out).shape == (8, 19 + 2 + 7 * 3 + 4) and
          pandas.read_csv(runs).shape == (32, 14 + 1 + 7 * 2 + 2))
except ImportError:
    print("note: pandas not installed; the csv module read both files above")

# --grid is --key plus --values; ranges too. Runs keep their ids in a smaller sweep.
g = os.path.join(d, "grid.csv")
gr = os.path.join(d, "grid_runs.csv")
grid = [a for a in SWEEP if a not in ("--key", "--values", "noise", "vision_radius", "0.5,2", "1,2")]
p = run(BOIDS, *grid, "--grid", "noise=0.5:2:1.5", "--grid", "vision_radius=1,2", "--out", g,
        "--runs-out", gr)
check("--grid gives the same table", p.returncode == 0 and read(g) == read(out), p.stderr[-300:])
check("--grid gives the same runs", read(gr) == read(runs))
sub = os.path.join(d, "sub_runs.csv")
run(BOIDS, *SWEEP[:SWEEP.index("--counts")], "--counts", "200", "--density", "2", "--seeds", "2",
    "--runs-out", sub, check_rc=0)
ids = {(r["N"], r["noise"], r["vision_radius"], r["seed"]): r["run_id"] for r in R}
check("run ids are stable: the same run in a smaller sweep keeps its id",
      all(ids[(r["N"], r["noise"], r["vision_radius"], r["seed"])] == r["run_id"]
          for r in rows(sub)))

# A swept key named like an observable (neighbours) keeps every column name distinct.
nb = os.path.join(d, "nb_runs.csv")
run(BOIDS, "sweep", "--preset", "vicsek", "--steps", "4", "--grid", "neighbours=metric,topological",
    "-n", "10", "--seeds", "1", "--runs-out", nb, "--out", os.path.join(d, "nb.csv"), check_rc=0)
for f in (nb, os.path.join(d, "nb.csv")):
    header = read(f).splitlines()[0].split(",")
    check(f"{os.path.basename(f)}: column names distinct with a key named neighbours",
          len(header) == len(set(header)) and "neighbours" in header, header)

# Killed after a few runs, then resumed.
k = tmpdir()
kout, kruns = os.path.join(k, "table.csv"), os.path.join(k, "runs.csv")
journal = kruns + ".partial"
proc = subprocess.Popen([BOIDS, *SWEEP, "--out", kout, "--runs-out", kruns],
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
deadline = time.time() + 120
while time.time() < deadline and proc.poll() is None:
    if os.path.exists(journal) and read(journal).count("\n") >= 4:  # header + 3 runs
        break
    time.sleep(0.01)
proc.send_signal(signal.SIGTERM)
proc.wait()
done = read(journal).count("\n") - 1
check("SIGTERM ended the sweep part way", proc.returncode == -signal.SIGTERM and 3 <= done < 32,
      (proc.returncode, done))
check("a killed sweep leaves no table and no runs file",
      not os.path.exists(kout) and not os.path.exists(kruns), os.listdir(k))
with open(journal, "a") as f:  # a kill in the middle of a line
    f.write("0123456789abcdef,100,7.07")
p = run(BOIDS, *SWEEP, "--out", kout, "--runs-out", kruns, "--resume")
check("resume exits 0", p.returncode == 0, p.stderr[-500:])
check("resume skips the finished runs", f"resuming: {done} of 32 runs already done" in p.stderr
      and p.stderr.count("boids sweep: [") == 32 - done, p.stderr[:300])
check("resumed table is byte-identical", read(kout) == read(out))
check("resumed runs file is byte-identical", read(kruns) == read(runs))
check("journal removed once the sweep ends", not os.path.exists(journal))
p = run(BOIDS, *SWEEP, "--out", kout, "--runs-out", kruns, "--resume")
check("resuming a finished sweep runs nothing, same bytes",
      p.returncode == 0 and "32 of 32" in p.stderr and read(kout) == read(out), p.stderr[-300:])

# A resume against another sweep: exit 2, nothing overwritten. Rows 2-9 (noise 0.5) are runs
# of both sweeps; line 10 is the first with noise 2.
before = read(kruns)
changed = [a if a != "0.5,2" else "0.5,3" for a in SWEEP]
p = run(BOIDS, *changed, "--runs-out", kruns, "--resume")
check("resume of a changed sweep: exit 2 naming the file",
      p.returncode == 2 and "runs.csv line 10" in p.stderr and "not a run of this sweep" in p.stderr,
      p.stderr[-300:])
other = [a if a != "vision_radius" else "speed" for a in SWEEP]
p = run(BOIDS, *other, "--runs-out", kruns, "--resume")
check("resume with other keys: exit 2 naming the header", p.returncode == 2 and
      "header" in p.stderr, p.stderr[-300:])
check("the runs file is untouched", read(kruns) == before)

# A journal row with a field too many or too few: exit 2 naming the line.
for name, edit in [("a field too many", lambda l: l.rstrip("\n") + ",1\n"),
                   ("a field too few", lambda l: l.rsplit(",", 1)[0] + "\n")]:
    jd = tmpdir()
    lines = read(runs).splitlines(keepends=True)
    with open(os.path.join(jd, "r.csv.partial"), "w") as f:
        f.writelines(lines[:3] + [edit(lines[3])])
    p = run(BOIDS, *SWEEP, "--runs-out", os.path.join(jd, "r.csv"), "--resume")
    check(f"journal row with {name}: exit 2 naming file and line",
          p.returncode == 2 and "r.csv.partial line 4" in p.stderr and "fields" in p.stderr,
          p.stderr[-300:])

bad = tmpdir()
b = os.path.join(bad, "x.csv")
cases = [
    ("resume without runs-out", ["--key", "noise", "--values", "1", "--resume"], ["--runs-out"]),
    ("grid without =", ["--grid", "noise"], ["--grid", "KEY="]),
    ("grid unknown key", ["--grid", "bogus=1"], ["bogus"]),
    ("key twice", ["--grid", "noise=1", "--key", "noise", "--values", "2"], ["noise", "twice"]),
    ("values twice for one key", ["--key", "noise", "--values", "1", "--values", "2"],
     ["--values", "noise"]),
    ("second key without values", ["--key", "noise", "--values", "1", "--key", "speed"],
     ["speed", "--values"]),
    ("plot with two keys", ["--grid", "noise=1", "--grid", "speed=1", "--plot",
                            os.path.join(bad, "p.png")], ["--plot", "2 keys"]),
    ("a value given twice", ["--key", "noise", "--values", "1,1.0", "--runs-out",
                             os.path.join(bad, "runs.csv")],
     ["same parameters"]),
]
for name, args, words in cases:
    p = run(BOIDS, "sweep", "--preset", "vicsek", "--steps", "2", "--out", b, *args)
    one_message(name, p, words)
    check(f"{name}: nothing written", os.listdir(bad) == [], os.listdir(bad))
finish()
