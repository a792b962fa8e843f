#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""boids sweep --part K/M: part K does exactly the runs r with r % M == K - 1 and writes only
its runs file (and sidecar); the parts' rows concatenated into ALL.csv.partial, --resume
writes the table and runs file of the serial sweep byte for byte, also when a part is
missing (the merge runs its runs); bad --part input exits 2 with one message and no file.

usage: sweep_part_test.py BOIDS_BINARY
"""
import json
import os
import sys

from harness import check, finish, one_message, run, tmpdir

BOIDS = sys.argv[1]
# 2 N x 2 values x 3 seeds = 12 runs: 5 parts hold 3, 3, 2, 2 and 2 of them (uneven).
SWEEP = ["sweep", "--preset", "vicsek", "--counts", "30,50", "--steps", "40", "--burn-in", "20",
         "--sample-every", "10", "--grid", "noise=0.5,3", "--seeds", "3"]
M = 5


def read(path):
    with open(path) as f:
        return f.read()


def merge(parts, journal):
    """The header once, then every part's rows: what docs/research.md's awk line makes."""
    texts = [read(p).splitlines(keepends=True) for p in parts]
    with open(journal, "w") as f:
        f.write(texts[0][0])
        for t in texts:
            f.writelines(t[1:])


d = tmpdir()
serial_t, serial_r = os.path.join(d, "t.csv"), os.path.join(d, "r.csv")
run(BOIDS, *SWEEP, "--out", serial_t, "--runs-out", serial_r, check_rc=0)
serial_rows = read(serial_r).splitlines(keepends=True)

parts = [os.path.join(d, f"part{k}.csv") for k in range(1, M + 1)]
for k, path in enumerate(parts, 1):
    p = run(BOIDS, *SWEEP, "--part", f"{k}/{M}", "--runs-out", path)
    check(f"part {k}/{M} exits 0, nothing on stdout", p.returncode == 0 and p.stdout == "",
          p.stderr[-500:])
    rows = read(path).splitlines(keepends=True)
    want = [serial_rows[0]] + [row for r, row in enumerate(serial_rows[1:]) if r % M == k - 1]
    check(f"part {k}/{M}: the serial runs file's rows r with r % {M} == {k - 1}, exactly",
          rows == want, (rows, want))
    side = json.loads(read(path + ".json"))
    check(f"part {k}/{M}: its sidecar names the part", side["sweep"]["part"] ==
          {"k": k, "m": M, "runs": len(want) - 1} and side["output"]["kind"] == "runs",
          side["sweep"].get("part"))
written = [os.path.basename(p) + e for p in parts for e in ("", ".json")]
check("the parts wrote their runs files and sidecars, no table",
      sorted(os.listdir(d)) == sorted(["t.csv", "t.csv.json", "r.csv", "r.csv.json"] + written),
      sorted(os.listdir(d)))

# Every part merged: nothing left to run, the serial bytes.
all_t, all_r = os.path.join(d, "all_t.csv"), os.path.join(d, "all.csv")
merge(parts, all_r + ".partial")
p = run(BOIDS, *SWEEP, "--out", all_t, "--runs-out", all_r, "--resume")
check("merge: exit 0, every run resumed", p.returncode == 0 and
      "resuming: 12 of 12 runs already done" in p.stderr, p.stderr[-500:])
check("merge: table byte-identical to the serial sweep's", read(all_t) == read(serial_t))
check("merge: runs file byte-identical to the serial sweep's", read(all_r) == read(serial_r))
check("merge: the journal is gone", not os.path.exists(all_r + ".partial"))

# A part that never ran (an array task lost): the merge runs its runs and still matches.
lost_t, lost_r = os.path.join(d, "lost_t.csv"), os.path.join(d, "lost.csv")
merge(parts[:-1], lost_r + ".partial")
p = run(BOIDS, *SWEEP, "--out", lost_t, "--runs-out", lost_r, "--resume")
check("merge without part 5: exit 0, 10 of 12 resumed", p.returncode == 0 and
      "resuming: 10 of 12 runs already done" in p.stderr, p.stderr[-500:])
check("merge without part 5: table and runs file byte-identical to the serial sweep's",
      read(lost_t) == read(serial_t) and read(lost_r) == read(serial_r))

# A part beyond the runs (M larger than the sweep): the header alone.
empty = os.path.join(d, "empty.csv")
run(BOIDS, *SWEEP, "--part", "13/13", "--runs-out", empty, check_rc=0)
check("part 13/13 of 12 runs: the header row alone", read(empty) == serial_rows[0])

bad_d = tmpdir()
runs = os.path.join(bad_d, "x.csv")
cases = [
    ("K zero", ["--part", "0/2", "--runs-out", runs], ["--part 0/2", "K"]),
    ("K beyond M", ["--part", "3/2", "--runs-out", runs], ["--part 3/2", "part 3 of 2"]),
    ("M zero", ["--part", "1/0", "--runs-out", runs], ["--part 1/0", "M"]),
    ("M negative", ["--part", "1/-2", "--runs-out", runs], ["--part 1/-2", "M"]),
    ("no slash", ["--part", "2", "--runs-out", runs], ["--part 2", "K/M"]),
    ("not numbers", ["--part", "a/b", "--runs-out", runs], ["--part a/b", "K"]),
    ("trailing text", ["--part", "1/2x", "--runs-out", runs], ["--part 1/2x", "M"]),
    ("no --runs-out", ["--part", "1/2"], ["--part 1/2", "--runs-out"]),
    ("with --out", ["--part", "1/2", "--runs-out", runs, "--out", os.path.join(bad_d, "t.csv")],
     ["--part 1/2", "--out"]),
    ("with --plot", ["--part", "1/2", "--runs-out", runs, "--plot",
                     os.path.join(bad_d, "p.png")], ["--part 1/2", "--plot"]),
    ("given twice", ["--part", "1/2", "--part", "2/2", "--runs-out", runs], ["--part"]),
    ("with --meta", ["--part", "1/2", "--runs-out", runs, "--meta",
                     os.path.join(bad_d, "m.json")], ["--part 1/2", "--meta"]),
]
for name, args, words in cases:
    p = run(BOIDS, *SWEEP, *args)
    one_message(f"--part {name}", p, words)
    check(f"--part {name}: no file written", os.listdir(bad_d) == [], os.listdir(bad_d))
finish()
