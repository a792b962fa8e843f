#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""boids-mpi: `mpirun -n 3 boids-mpi sweep` writes the byte-identical table and runs file of
the serial `boids sweep` (and sidecars that differ only in what describes the process), also
when it resumes a journal; runs that fail are reported by rank, run and reason, and the sweep
exits non-zero naming the missing runs, writing no table.

usage: research_mpi_test.py cpu|gpu MPIEXEC BOIDS BOIDS_MPI
  cpu: the comparison with the serial sweep, and failing runs that fail before any GL context
  gpu: a sweep where some runs fail and the others (on llvmpipe) finish and are journalled
"""
import json
import os
import subprocess
import sys

from harness import check, finish, run, skip, tmpdir

MODE, MPIEXEC, BOIDS, BOIDS_MPI = sys.argv[1:5]
# CI runs as root, which Open MPI refuses without the first flag; 3 ranks on 2 cores need the
# second.
MPI = [MPIEXEC, "--allow-run-as-root", "--oversubscribe", "-n", "3", BOIDS_MPI]
SWEEP = ["sweep", "--preset", "vicsek", "--steps", "200", "--burn-in", "100",
         "--sample-every", "20", "--key", "noise", "--values", "0.5,2", "--key", "vision_radius",
         "--values", "1,2", "--counts", "100,200", "--density", "2", "--seeds", "4",
         "--backend", "cpu", "--threads", "1", "--correlation-range", "2"]
# (--correlation-range: corr_length too, so every per-run number crosses the ranks.)
# What a sidecar says about the process rather than the results.
PROCESS = {"argv", "command_line", "machine", "start", "end", "wall_seconds"}


def read(path):
    with open(path) as f:
        return f.read()


def cpu():
    d = tmpdir()
    f = {k: os.path.join(d, k) for k in ("t.csv", "r.csv", "mt.csv", "mr.csv", "rt.csv", "rr.csv")}
    run(BOIDS, *SWEEP, "--out", f["t.csv"], "--runs-out", f["r.csv"], check_rc=0)
    p = run(*MPI, *SWEEP, "--out", f["mt.csv"], "--runs-out", f["mr.csv"])
    check("mpirun -n 3 exits 0", p.returncode == 0, p.stderr[-800:])
    check("MPI table byte-identical to the serial sweep", read(f["mt.csv"]) == read(f["t.csv"]))
    check("MPI runs file byte-identical to the serial sweep", read(f["mr.csv"]) == read(f["r.csv"]))
    check("every run done once", sum(l.startswith("boids sweep: [") for l in
                                     p.stderr.splitlines()) == 32, p.stderr[-800:])
    first = [l for l in p.stderr.splitlines() if l.startswith("boids sweep: [")][:2]
    check("largest N handed out first", all(" N 200," in l for l in first), first)
    progress = [l.split("]")[0] for l in p.stderr.splitlines() if l.startswith("boids sweep: [")]
    check("progress counts the runs finished: [1/32] to [32/32] in order",
          progress == [f"boids sweep: [{k}/32" for k in range(1, 33)], progress[:5])
    for a, b in (("t.csv", "mt.csv"), ("r.csv", "mr.csv")):
        s, m = json.loads(read(f[a] + ".json")), json.loads(read(f[b] + ".json"))
        same = {k: v for k, v in s.items() if k not in PROCESS and k != "output"}
        check(f"{b}.json equals the serial sidecar but for the process's description",
              same == {k: v for k, v in m.items() if k not in PROCESS and k != "output"} and
              s["output"]["columns"] == m["output"]["columns"] and
              m["argv"][-len(SWEEP) - 4:-4] == SWEEP, (same.keys(), m["argv"]))

    # Resume under MPI from a journal of 10 finished runs (the serial runs file's first rows).
    lines = read(f["r.csv"]).splitlines(keepends=True)
    with open(f["rr.csv"] + ".partial", "w") as j:
        j.writelines(lines[:11])
    p = run(*MPI, *SWEEP, "--out", f["rt.csv"], "--runs-out", f["rr.csv"], "--resume")
    check("MPI resume exits 0, 22 runs left", p.returncode == 0 and
          "resuming: 10 of 32 runs already done" in p.stderr, p.stderr[-800:])
    progress = [l.split("]")[0] for l in p.stderr.splitlines() if l.startswith("boids sweep: [")]
    check("MPI resume: progress goes on from the 10 resumed runs, [11/32] to [32/32]",
          progress == [f"boids sweep: [{k}/32" for k in range(11, 33)], progress[:5])
    check("MPI resume: byte-identical table and runs file",
          read(f["rt.csv"]) == read(f["t.csv"]) and read(f["rr.csv"]) == read(f["r.csv"]))

    # Runs that fail on every rank (k beyond the GPU's limit: refused before any GL context).
    fail = tmpdir()
    out, runs = os.path.join(fail, "t.csv"), os.path.join(fail, "r.csv")
    p = run(*MPI, "sweep", "--preset", "vicsek", "--steps", "4", "-n", "20", "--backend", "gpu",
            "--set", "neighbours=topological", "--grid", "k=200,300", "--seeds", "2",
            "--out", out, "--runs-out", runs)
    check("failed runs: exit non-zero", p.returncode != 0, p.returncode)
    reports = [l for l in p.stderr.splitlines() if l.startswith("boids-mpi: rank ")]
    check("each failed run reported with its rank, run and reason",
          len(reports) == 4 and all("failed: GPU backend: k = " in l for l in reports) and
          sorted(l.split(" run ")[1].split(" ")[0] for l in reports) == ["0", "1", "2", "3"],
          p.stderr[-1200:])
    check("the sweep names the missing runs",
          "4 of 4 runs failed" in p.stderr and "missing runs: " in p.stderr, p.stderr[-600:])
    check("no table and no runs file; the journal stays for --resume",
          sorted(os.listdir(fail)) == ["r.csv.partial"], os.listdir(fail))
    mismatched()


def mismatched():
    """Ranks given other command lines: every rank ends, within seconds, exit 2, with the
    message of the rank that differs and rank 0's, and no output written."""
    d = tmpdir()
    out, runs = os.path.join(d, "t.csv"), os.path.join(d, "r.csv")
    quick = ["sweep", "--preset", "vicsek", "-n", "30", "--key", "noise", "--values", "0.5,2",
             "--steps", "20", "--seeds", "2"]
    outputs = ["--out", out, "--runs-out", runs]
    conf = {}
    for name, text in (("a.ini", "noise = 1\n"), ("b.ini", "noise = 1.5\n"),
                       ("c.ini", "noise = 1\nobstacle = circle 5 5 1\n")):
        conf[name] = os.path.join(d, name)
        with open(conf[name], "w") as f:
            f.write(text)
    with_a = [*quick, "--config", conf["a.ini"]]
    cases = [  # rank 0's (and rank 1's) sweep, rank 2's
        ("a rank that rejects its command line", quick, [*quick, "--seeds", "0"],
         ["--seeds", "rank 2 stopped at its command line"]),
        ("a worker with a smaller grid", quick, [a if a != "0.5,2" else "0.5" for a in quick],
         ["rank 2", "'swept key noise: 0.5' here", "'swept key noise: 0.5,2' on rank 0"]),
        ("a worker with other base parameters", quick, [*quick, "--set", "noise_seed=4"],
         ["rank 2", "parameter noise_seed = 4", "parameter noise_seed = 0"]),
        ("a worker with another backend", quick, [*quick, "--backend", "cpu"],
         ["rank 2", "'--backend cpu' here", "'--backend cpu-ref' on rank 0"]),
        ("a worker with another --config content", with_a, [*quick, "--config", conf["b.ini"]],
         ["rank 2", "parameter noise = 1.5", "parameter noise = 1'"]),
        ("a worker with another --config obstacle", with_a, [*quick, "--config", conf["c.ini"]],
         ["rank 2", "--config obstacles: 1", "--config obstacles: 0"]),
    ]
    for name, root, worker, words in cases:
        args = [MPIEXEC, "--allow-run-as-root", "--oversubscribe", "-n", "2", BOIDS_MPI, *root,
                *outputs, ":", "-n", "1", BOIDS_MPI, *worker]
        try:
            p = run(*args, timeout=60)
        except subprocess.TimeoutExpired:
            check(f"{name}: the job ends within 60 s", False)
            continue
        check(f"{name}: exit 2", p.returncode == 2, (p.returncode, p.stderr[-600:]))
        check(f"{name}: the message names the rank and what differs",
              all(w in p.stderr for w in words), p.stderr[-900:])
        check(f"{name}: nothing was run", "boids sweep: [" not in p.stderr, p.stderr[-600:])
        check(f"{name}: no table, no runs file, no journal",
              sorted(os.listdir(d)) == sorted(conf), os.listdir(d))


def gpu():
    probe = run(BOIDS, "sim", "--backend", "gpu", "-n", "10", "--steps", "1")
    if probe.returncode != 0:
        skip(f"no GL context for the gpu backend: {probe.stderr.strip()[-200:]}")
    d = tmpdir()
    out, runs = os.path.join(d, "t.csv"), os.path.join(d, "r.csv")
    p = run(*MPI, "sweep", "--preset", "vicsek", "--steps", "10", "--burn-in", "5",
            "--sample-every", "5", "--set", "neighbours=topological", "--grid", "k=3,200",
            "--counts", "30,60", "--seeds", "2", "--backend", "gpu", "--out", out,
            "--runs-out", runs)
    reports = [l for l in p.stderr.splitlines() if l.startswith("boids-mpi: rank ")]
    check("some runs fail: exit non-zero, each reported", p.returncode != 0 and len(reports) == 4,
          p.stderr[-1200:])
    check("the sweep names the 4 missing runs", "4 of 8 runs failed" in p.stderr, p.stderr[-600:])
    journal = read(runs + ".partial").splitlines()
    check("the other runs finished and are journalled",
          len(journal) == 5 and all(l.split(",")[4] == "3" for l in journal[1:]), journal)
    check("no table written", not os.path.exists(out) and not os.path.exists(runs))
    # The cause fixed (k = 200 dropped), --resume completes the sweep from the journal alone.
    p = run(*MPI, "sweep", "--preset", "vicsek", "--steps", "10", "--burn-in", "5",
            "--sample-every", "5", "--set", "neighbours=topological", "--grid", "k=3",
            "--counts", "30,60", "--seeds", "2", "--backend", "gpu", "--out", out,
            "--runs-out", runs, "--resume")
    check("resume after the fix: nothing left to run", p.returncode == 0 and
          "resuming: 4 of 4 runs already done" in p.stderr and os.path.exists(out),
          p.stderr[-600:])


cpu() if MODE == "cpu" else gpu()
finish()
