#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""boids sweep --jobs J: the table, the runs file and the sidecars of --jobs 2 are those of
--jobs 1 (the serial sweep), byte for byte but for what describes the process (command line,
times, the threads of a run); --resume from a partial journal and --part work with --jobs; a
sweep killed while its workers run keeps every finished run in its journal (each row one of
the serial runs file's) and its --resume writes the serial bytes; bad --jobs exits 2 with one
message and no file.

usage: sweep_jobs_test.py BOIDS_BINARY
"""
import json
import os
import signal
import subprocess
import sys
import time

from harness import check, finish, one_message, run, tmpdir

BOIDS = sys.argv[1]
# 2 N x 2 values x 3 seeds = 12 runs.
SWEEP = ["sweep", "--preset", "vicsek", "--counts", "30,50", "--steps", "40", "--burn-in", "20",
         "--sample-every", "10", "--grid", "noise=0.5,3", "--seeds", "3"]
# What describes the process, not the sweep.
PROCESS = ("argv", "command_line", "start", "end", "wall_seconds")


def read(path):
    with open(path) as f:
        return f.read()


def sidecar(path):
    doc = json.loads(read(path))
    for k in PROCESS:
        doc.pop(k, None)
    doc["backend"].pop("threads", None)
    doc["output"].pop("file", None)
    return doc


def sweep_into(d, *args, jobs, check_rc=0):
    os.makedirs(d, exist_ok=True)
    t, r = os.path.join(d, "t.csv"), os.path.join(d, "r.csv")
    p = run(BOIDS, *SWEEP, *args, "--jobs", str(jobs), "--out", t, "--runs-out", r)
    if check_rc is not None:
        check(f"--jobs {jobs} {' '.join(args)}: exit {check_rc}", p.returncode == check_rc,
              p.stderr[-500:])
    return p, t, r


root = tmpdir()
for backend in ("cpu-ref", "cpu"):
    _, t1, r1 = sweep_into(os.path.join(root, backend + "1"), "--backend", backend, jobs=1)
    p, t2, r2 = sweep_into(os.path.join(root, backend + "2"), "--backend", backend, jobs=2)
    check(f"{backend}: a progress line per run",
          p.stderr.count("boids sweep: [") == 12, p.stderr[-500:])
    check(f"{backend}: --jobs 2 table byte-identical to --jobs 1", read(t2) == read(t1))
    check(f"{backend}: --jobs 2 runs file byte-identical to --jobs 1", read(r2) == read(r1))
    for a, b in ((t1, t2), (r1, r2)):
        check(f"{backend}: {os.path.basename(a)}.json the same but for the process",
              sidecar(a + ".json") == sidecar(b + ".json"))
        check(f"{backend}: no journal left", not os.path.exists(b + ".partial"))
serial_t, serial_r = os.path.join(root, "cpu-ref1", "t.csv"), os.path.join(root, "cpu-ref1", "r.csv")
serial_rows = read(serial_r).splitlines(keepends=True)

# Resume from a journal of some runs, out of order, its last line torn.
d = os.path.join(root, "resume")
os.makedirs(d)
with open(os.path.join(d, "r.csv.partial"), "w") as f:
    f.writelines([serial_rows[0], serial_rows[7], serial_rows[2], serial_rows[11],
                  serial_rows[5][:20]])
p, t, r = sweep_into(d, "--resume", jobs=2)
check("resume --jobs 2: 3 of 12 runs already done", "resuming: 3 of 12 runs already done"
      in p.stderr, p.stderr[-500:])
check("resume --jobs 2: table and runs file byte-identical to the serial sweep's",
      read(t) == read(serial_t) and read(r) == read(serial_r))

# --part with --jobs: the part's rows of the serial runs file, exactly.
for k in (1, 2):
    path = os.path.join(root, f"part{k}.csv")
    p = run(BOIDS, *SWEEP, "--part", f"{k}/2", "--jobs", "2", "--runs-out", path)
    want = [serial_rows[0]] + [row for i, row in enumerate(serial_rows[1:]) if i % 2 == k - 1]
    check(f"--part {k}/2 --jobs 2: exit 0, the serial rows r % 2 == {k - 1}",
          p.returncode == 0 and read(path).splitlines(keepends=True) == want, p.stderr[-500:])

# Killed while its workers run: the journal keeps every finished run, and --resume ends it.
LONG = ["sweep", "--preset", "vicsek", "--counts", "300", "--steps", "600", "--burn-in", "300",
        "--sample-every", "50", "--grid", "noise=0.5,3", "--seeds", "4"]
d = os.path.join(root, "killed")
os.makedirs(d)
kt, kr = os.path.join(d, "t.csv"), os.path.join(d, "r.csv")
st, sr = os.path.join(d, "serial_t.csv"), os.path.join(d, "serial_r.csv")
proc = subprocess.Popen([BOIDS, *LONG, "--jobs", "2", "--out", kt, "--runs-out", kr],
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
journal = kr + ".partial"
deadline = time.time() + 120
while time.time() < deadline and proc.poll() is None:
    if os.path.exists(journal) and len(read(journal).splitlines()) >= 3:
        break
    time.sleep(0.05)
killed = proc.poll() is None
if killed:
    proc.send_signal(signal.SIGKILL)
proc.wait()
run(BOIDS, *LONG, "--jobs", "1", "--out", st, "--runs-out", sr, check_rc=0)
long_rows = read(sr).splitlines(keepends=True)
if killed:
    rows = read(journal).splitlines(keepends=True)
    check("killed: the journal holds the finished runs, each a row of the serial runs file",
          len(rows) >= 3 and rows[0] == long_rows[0] and
          all(row in long_rows[1:] for row in rows[1:] if row.endswith("\n")), rows)
    p = run(BOIDS, *LONG, "--jobs", "2", "--out", kt, "--runs-out", kr, "--resume")
    check("killed: --resume --jobs 2 exits 0", p.returncode == 0, p.stderr[-500:])
else:
    check("the sweep to kill was still running", False, "it ended before its second run")
check("killed and resumed: table and runs file byte-identical to the serial sweep's",
      read(kt) == read(st) and read(kr) == read(sr))

bad_d = tmpdir()
for value in ("0", "x", "-1", "1025", "2.5", ""):
    p = run(BOIDS, *SWEEP, "--jobs", value, "--out", os.path.join(bad_d, "t.csv"))
    one_message(f"--jobs {value!r}", p, ["--jobs"])
    check(f"--jobs {value!r}: no file written", os.listdir(bad_d) == [], os.listdir(bad_d))
finish()
