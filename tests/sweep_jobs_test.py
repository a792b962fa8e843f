#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""boids sweep --jobs J: the table, the runs file and the sidecars of --jobs 2 are those of
--jobs 1 (the serial sweep), byte for byte but for what describes the process (command line,
times, the threads of a run); --resume from a partial journal and --part work with --jobs; a
sweep killed while its workers run, or one of its workers killed, keeps every finished run
in its journal (each row one of the serial runs file's) and its --resume writes the serial
bytes; failed runs are each reported and named; bad --jobs exits 2 with one message and no
file.

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
serial_t = os.path.join(root, "cpu-ref1", "t.csv")
serial_r = os.path.join(root, "cpu-ref1", "r.csv")
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
# Runs of about a second each (one thread, as each worker's), 4 of them.
LONG = ["sweep", "--preset", "vicsek", "--backend", "cpu", "--threads", "1", "--counts", "10000",
        "--steps", "600", "--burn-in", "300", "--sample-every", "100", "--grid", "noise=0.5,3",
        "--seeds", "2"]
d = os.path.join(root, "killed")
os.makedirs(d)
st, sr = os.path.join(d, "serial_t.csv"), os.path.join(d, "serial_r.csv")
run(BOIDS, *LONG, "--jobs", "1", "--out", st, "--runs-out", sr, check_rc=0)
long_rows = read(sr).splitlines(keepends=True)


def workers(pid):
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout
    return [int(w) for w in out.split()]


def alive(pid):
    """Whether process pid exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def kill_after_first_run(name, victim, sig=signal.SIGKILL, on_exit=None):
    """Starts the long sweep with --jobs 2, waits for its first journalled run and sends sig
    to victim(proc), then calls on_exit() once the sweep has exited (before its stderr ends,
    which waits for its workers too: they hold it); returns (the process, its stderr, its
    files) or None when the sweep ended first."""
    t, r = os.path.join(d, name + "_t.csv"), os.path.join(d, name + "_r.csv")
    proc = subprocess.Popen([BOIDS, *LONG, "--jobs", "2", "--out", t, "--runs-out", r],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 120
    while time.time() < deadline and proc.poll() is None:
        if os.path.exists(r + ".partial") and len(read(r + ".partial").splitlines()) >= 2:
            break
        time.sleep(0.02)
    pids = victim(proc) if proc.poll() is None else []
    for pid in pids:
        os.kill(pid, sig)
    if on_exit:
        proc.wait()
        on_exit()
    err = proc.communicate()[1]
    if not pids:
        check(f"{name}: the sweep was still running when its first run ended", False, err[-500:])
        return None
    if proc.returncode == 0 and not os.path.exists(r + ".partial"):
        return "raced"  # the victim had ended its last run when the signal came: nothing lost
    rows = read(r + ".partial").splitlines(keepends=True)
    check(f"{name}: the journal holds finished runs, each a row of the serial runs file",
          len(rows) >= 2 and rows[0] == long_rows[0] and
          all(row in long_rows[1:] for row in rows[1:] if row.endswith("\n")), rows)
    return proc, err, t, r


def resumed(name, t, r):
    p = run(BOIDS, *LONG, "--jobs", "2", "--out", t, "--runs-out", r, "--resume")
    check(f"{name}: --resume --jobs 2 exits 0", p.returncode == 0, p.stderr[-500:])
    check(f"{name} and resumed: table and runs file byte-identical to the serial sweep's",
          read(t) == read(st) and read(r) == read(sr))


# The sweep itself killed: its workers end too (no process left holding the journal).
got = kill_after_first_run("killed", lambda proc: [proc.pid])
if got:
    resumed("killed", got[2], got[3])
# The sweep ended by SIGTERM (as boids.sweep stops it, or SIGINT from a terminal): it ends
# its workers and waits for them before it dies, so none is running once it has exited (the
# Python package's interrupted sweep once found a worker still alive at that moment).
seen, left = [], []


def writer_seeing_workers(proc):
    seen.extend(workers(proc.pid))
    return [proc.pid]


got = kill_after_first_run("terminated", writer_seeing_workers, signal.SIGTERM,
                           lambda: left.extend(w for w in seen if alive(w)))
if got:
    check("terminated: exit by SIGTERM, with its two workers running",
          got[0].returncode == -signal.SIGTERM and len(seen) == 2, (got[0].returncode, seen))
    check("terminated: none of its workers is running once it has exited", not left, left)
    resumed("terminated", got[2], got[3])
# One worker killed: its run is named as lost, the others finish and are journalled. A
# worker found by pgrep may be ending its last run as the signal comes (seen on a loaded
# machine: the sweep then finishes whole); such a race kills nothing that runs, so the case
# is tried again, up to three times.
for attempt in range(3):
    got = kill_after_first_run(f"worker killed {attempt}", lambda proc: workers(proc.pid)[:1])
    if got != "raced":
        break
check("worker killed: a running worker was killed in one of three tries", got != "raced")
if got and got != "raced":
    proc, err, t, r = got
    check("worker killed: exit 1, its run named as lost, no table",
          proc.returncode == 1 and "lost: its worker process ended" in err and
          "missing runs: " in err and not os.path.exists(t), err[-800:])
    resumed("worker killed", t, r)

# Runs that fail (k beyond the GPU's limit, refused before any GL context): each reported,
# the others go on, the sweep names them all and keeps its journal.
fail = os.path.join(root, "fail")
os.makedirs(fail)
p = run(BOIDS, "sweep", "--preset", "vicsek", "--steps", "4", "-n", "20", "--backend", "gpu",
        "--set", "neighbours=topological", "--grid", "k=200,300", "--seeds", "2", "--jobs", "2",
        "--out", os.path.join(fail, "t.csv"), "--runs-out", os.path.join(fail, "r.csv"))
reports = [line for line in p.stderr.splitlines() if " failed: GPU backend: k = " in line]
check("failed runs: exit 1, each reported, all four named",
      p.returncode == 1 and len(reports) == 4 and "4 of 4 runs failed" in p.stderr,
      p.stderr[-1200:])
check("failed runs: no table, no runs file; the journal stays",
      os.listdir(fail) == ["r.csv.partial"], os.listdir(fail))

bad_d = tmpdir()
for value in ("0", "x", "-1", "1025", "2.5", ""):
    p = run(BOIDS, *SWEEP, "--jobs", value, "--out", os.path.join(bad_d, "t.csv"))
    one_message(f"--jobs {value!r}", p, ["--jobs"])
    check(f"--jobs {value!r}: no file written", os.listdir(bad_d) == [], os.listdir(bad_d))
finish()
