#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""boids-mpi sim: one flock split over K ranks gives the bytes of `boids sim` in one process:
the metrics on stdout, --series, --trajectory and the --save state, for the plane and the
box, wrap, walls and open, Reynolds with the interaction table, Vicsek with noise, metric and
topological neighbours, K = 2, 3 and 4 (oversubscribed on this machine's cores).

usage: mpi_sim_test.py cpu|gpu|faults|menu MPIEXEC BOIDS BOIDS_MPI
  cpu:    the cases above on the cpu backend (threads 1 and 2), and a checkpoint restart
  gpu:    the plane and the box on gpu --deterministic (llvmpipe here), K = 2 and 3, the
          tiles resident on the device and (--mpi-window) uploaded every step
  menu:   the Vicsek model's menu on cpu (plane, box) and gpu --deterministic, K = 2 and 3;
          species (the hawks preset, also topological, two Vicsek kinds) on cpu, the hawks
          on gpu
  faults: refusals (the model, the backend, too many ranks, ranks given other parameters)
          and a killed rank, which ends the job within a minute, leaving no final file
"""
import csv
import os
import re
import signal
import subprocess
import sys
import time

from harness import FAILURES, check, finish, run, skip, tmpdir

MODE, MPIEXEC, BOIDS, BOIDS_MPI = sys.argv[1:5]
# CI runs as root, which Open MPI refuses without the first flag; 4 ranks on 2 cores need the
# second.
MPI = [MPIEXEC, "--allow-run-as-root", "--oversubscribe"]
OUTPUTS = ("stdout", "save.csv", "series.csv", "traj.npy")
# Under the sanitizers (BOIDS_TEST_SANITIZED set by tests/CMakeLists.txt) the rank counts of a
# comparison are its smallest and its largest: K = 2 (one rank both neighbours of the other)
# and K = 4 walk every path of the exchange, the cut and the parts that K = 3 walks (each rank
# with two distinct neighbours), and the README's suite still runs every K.
SANITIZED = bool(os.environ.get("BOIDS_TEST_SANITIZED"))


def write(d, name, text):
    path = os.path.join(d, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def outputs(d, tag):
    return ["--every", "10", "--save", os.path.join(d, f"{tag}.save.csv"),
            "--series", os.path.join(d, f"{tag}.series.csv"),
            "--trajectory", os.path.join(d, f"{tag}.traj.npy"), "--trajectory-dtype", "f8"]


def read_bytes(d, tag, what):
    if what == "stdout":
        return open(os.path.join(d, f"{tag}.stdout"), "rb").read()
    return open(os.path.join(d, f"{tag}.{what}"), "rb").read()


def sim(d, tag, args, ranks=None, timeout=300):
    """One run, `boids sim` (ranks None) or mpirun -n ranks boids-mpi sim; its exit status."""
    cmd = [BOIDS, "sim"] if ranks is None else [*MPI, "-n", str(ranks), BOIDS_MPI, "sim"]
    p = run(*cmd, *args, *outputs(d, tag), timeout=timeout)
    with open(os.path.join(d, f"{tag}.stdout"), "w") as f:
        f.write(p.stdout)
    return p


def compare(d, name, args, ranks, extra_mpi=()):
    """The serial run against each rank count: every output byte for byte."""
    ref = sim(d, "one", args)
    check(f"{name}: boids sim exits 0", ref.returncode == 0, ref.stderr[-600:])
    if ref.returncode != 0:
        return
    if SANITIZED and len(ranks) > 2:
        ranks = (min(ranks), max(ranks))
    for k in ranks:
        p = sim(d, f"k{k}", [*args, *extra_mpi], ranks=k)
        check(f"{name}: mpirun -n {k} exits 0", p.returncode == 0, p.stderr[-900:])
        if p.returncode != 0:
            continue
        for what in OUTPUTS:
            a, b = read_bytes(d, "one", what), read_bytes(d, f"k{k}", what)
            check(f"{name}: {k} ranks, {what} byte-identical ({len(a)} bytes)", a == b,
                  f"{len(a)} vs {len(b)} bytes")


def held_by_cut(d, name, state, ways, backend=("--backend", "cpu")):
    """The 600 boids of state on 3 ranks of backend for 10 steps with each --mpi-cut of ways
    (how, what the bound says, the bound on the most boids a rank held): one process's bytes,
    and the most a rank held within the bound."""
    args = [*backend, "--preset", "lab", "-n", "600", "--fixed-world", "--load", state,
            "--steps", "10"]
    for how, says, owned in ways:
        stats = os.path.join(d, f"{name}-{how}.csv".replace(" ", "-"))
        compare(d, f"{name}, --mpi-cut {how}", args, (3,),
                extra_mpi=("--mpi-cut", how, "--mpi-stats", stats))
        table = list(csv.DictReader(open(stats))) if os.path.exists(stats) else []
        most = max((float(r["boids_max"]) for r in table), default=-1)
        check(f"{name}, --mpi-cut {how}: the most boids a rank held, {most:.0f}, {says}",
              len(table) == 3 and owned(most), table)


def one_cell_state(d):
    """A CSV state of 600 boids in one cell of the lab's grid (50.9 units a side: 24 x 16
    units at x 410, y 265), into d; its path."""
    path = os.path.join(d, "one-cell.csv")
    with open(path, "w") as f:
        f.write("x,y,vx,vy\n")
        for i in range(600):
            f.write(f"{410 + (i % 30) * 0.8:.17g},{265 + (i // 30) * 0.8:.17g},"
                    f"{60 + (i * 37) % 50},{(i * 13) % 40 - 20}\n")
    return path


def sparse_facts(path, side, reach):
    """From a CSV state in a wrap world: the boids whose nearest other boid is at least reach
    away, and the pairs closer than reach whose offset along the last axis crosses the
    world's seam (brute force over the pairs, the shortest image)."""
    with open(path) as f:
        rows = list(csv.reader(f))
    dim = len(side)
    pts = [[float(v) for v in r[:dim]] for r in rows[1:]]
    nearest = [float("inf")] * len(pts)
    seam = 0
    for i, a in enumerate(pts):
        for j in range(i + 1, len(pts)):
            d2 = 0.0
            for k in range(dim):
                x = pts[j][k] - a[k]
                x = x - side[k] if x > side[k] / 2 else x + side[k] if x < -side[k] / 2 else x
                d2 += x * x
            nearest[i], nearest[j] = min(nearest[i], d2), min(nearest[j], d2)
            seam += d2 < reach * reach and abs(pts[j][-1] - a[-1]) > side[-1] / 2
    return sum(x >= reach * reach for x in nearest), seam


def cpu():
    d = tmpdir()
    table2 = write(d, "t2.ini", "predator.0 = 300 300 120 2\nattractor.0 = 900 500 150 0.5\n"
                                "obstacle = circle 600 400 40\nobstacle = segment 200 600 500 650\n")
    base = ["--backend", "cpu", "--steps", "40"]
    cases = [
        ("plane wrap reynolds", ["--preset", "lab", "-n", "3000"]),
        # --correlation-range: corr_length in --series, its pairs summed by rows of the
        # correlation's grid over the ranks (10 rows about 60 wide over the flock's extent:
        # each rank sums some, with the row beside them).
        ("plane walls, predator, attractor, obstacles, correlation",
         ["--preset", "lab", "-n", "3000", "--set", "boundary=walls", "--set", "predator=1",
          "--set", "food=1", "--config", table2, "--correlation-range", "60"]),
        ("plane open", ["--preset", "lab", "-n", "2000", "--set", "boundary=open"]),
        ("plane vicsek noise", ["--preset", "vicsek", "-n", "3000", "--set", "noise=2"]),
        ("plane topological k_in_vision",
         ["--preset", "lab", "-n", "3000", "--neighbours", "topological", "--set",
          "k_in_vision=1"]),
        ("plane vicsek topological",
         ["--preset", "vicsek", "-n", "3000", "--set", "noise=1", "--neighbours", "topological",
          "--set", "k_in_vision=1"]),
        ("box wrap reynolds", ["--preset", "lab", "-n", "3000", "--set", "dim=3"]),
        ("box walls vicsek noise, correlation",
         ["--preset", "vicsek", "-n", "3000", "--set", "dim=3", "--set", "boundary=walls",
          "--set", "noise=1", "--correlation-range", "90"]),
        ("box murmuration (topological, roost and falcon)",
         ["--preset", "murmuration", "-n", "3000", "--set", "k_in_vision=1"]),
    ]
    for name, args in cases:
        compare(d, name, [*base, *args], (2, 3, 4))
    # On the window path, waiting for the halo before moving any boid changes no bit either.
    compare(d, "plane walls vicsek, the window path, no overlap",
            [*base, "--preset", "vicsek", "-n", "3000", "--set", "boundary=walls", "--set",
             "noise=1"], (2, 3), extra_mpi=("--mpi-window", "--mpi-no-overlap"))
    # The window path (the gpu's: the tile handed to the backend every step) on cpu.
    compare(d, "plane open vicsek, the window path",
            [*base, "--preset", "vicsek", "-n", "3000", "--set", "boundary=open", "--set",
             "noise=1"], (2, 3), extra_mpi=("--mpi-window",))
    # The correlation's runs by groups of rows (100000 bins: the 27 rows' runs would exceed
    # the core's batch of bins, so they go by groups of 3 rows, the ranks cut between groups).
    compare(d, "plane wrap, correlation rows in groups",
            [*base, "--preset", "lab", "-n", "1000", "--correlation-range", "20",
             "--correlation-bins", "100000"], (2, 3))
    # Threads change no bit, on either side.
    compare(d, "plane wrap, 2 threads per rank",
            [*base, "--preset", "lab", "-n", "3000", "--threads", "2"], (2,))

    # The metrics of --every and --series are reduced from the tiles and the parts (no rank
    # holds the flock): a sparse flock, where nearest neighbours lie beyond the halo (a
    # vision_radius wide) and components cross the periodic seam of the cut axis (y in the
    # plane, z in the box), which is a tile border for every rank count. corr_length too:
    # the correlation's rows (7 of 80 in the plane, 4 of 140 in the box, each over several
    # rows of the step's grid) summed by the ranks, pairs crossing the seam included.
    for name, args, side, reach in (
            ("plane sparse", ["--preset", "lab", "-n", "400", "--set", "vision_radius=20",
                              "--correlation-range", "70"], (900, 560), 20),
            ("box sparse", ["--preset", "lab", "-n", "600", "--set", "dim=3",
                            "--correlation-range", "120"], (900, 560, 560), 50)):
        sparse = ["--backend", "cpu", "--steps", "20", "--set", "separation_radius=8", *args]
        compare(d, f"{name} (metrics reduced)", sparse, (2, 3))
        far, seam = sparse_facts(os.path.join(d, "one.save.csv"), side, reach)
        check(f"{name}: the last sample has nearest neighbours beyond the halo ({far} boids) "
              f"and pairs within reach across the seam ({seam})", far > 0 and seam > 0)
    # The estimators from the reduced observables (--estimates, --fluctuations), and the
    # velocity correlation (--correlation: its default range, half the height, makes one row
    # of the correlation's grid, which one rank sums whole): one process's.
    est = ["--backend", "cpu", "--preset", "lab", "-n", "1000", "--steps", "20", "--every", "5"]
    outs = {}
    for ranks in (None, 2, 3):
        tag = f"est{ranks or 1}"
        files = [os.path.join(d, f"{tag}.{x}.csv") for x in ("est", "fl", "corr", "series")]
        cmd = [BOIDS, "sim"] if ranks is None else [*MPI, "-n", str(ranks), BOIDS_MPI, "sim"]
        p = run(*cmd, *est, "--estimates", files[0], "--fluctuations", files[1])
        q = run(*cmd, *est, "--correlation", files[2], "--series", files[3])
        check(f"estimators: {ranks or 1} rank(s) exit 0", p.returncode == q.returncode == 0,
              (p.stderr + q.stderr)[-600:])
        outs[ranks] = [p.stdout, q.stdout] + [
            open(f, "rb").read() if os.path.exists(f) else b"" for f in files]
    for k, what in enumerate(("stdout", "stdout (correlation)", "--estimates",
                              "--fluctuations", "--correlation", "--series (corr_length)")):
        for ranks in (2, 3):
            check(f"estimators: {ranks} ranks, {what} byte-identical",
                  outs[None][k] == outs[ranks][k])

    # A checkpoint every 20 steps on 3 ranks; the run restarted from it on 2 ranks (and in one
    # process) ends with the bytes of the uninterrupted run. The binary state format (.npy)
    # for both.
    args = ["--backend", "cpu", "--preset", "vicsek", "-n", "3000", "--set", "noise=2"]
    full, ck = os.path.join(d, "full.npy"), os.path.join(d, "ck.npy")
    run(BOIDS, "sim", *args, "--steps", "60", "--save", full, check_rc=0)
    p = run(*MPI, "-n", "3", BOIDS_MPI, "sim", *args, "--steps", "40", "--checkpoint-every",
            "20", "--checkpoint", ck)
    check("checkpoint: 3 ranks write it", p.returncode == 0 and os.path.exists(ck),
          p.stderr[-600:])
    for ranks in (2, None):
        out = os.path.join(d, f"resumed{ranks}.npy")
        cmd = [BOIDS, "sim"] if ranks is None else [*MPI, "-n", str(ranks), BOIDS_MPI, "sim"]
        p = run(*cmd, *args, "--load", ck, "--steps", "20", "--save", out)
        check(f"checkpoint: restarted on {ranks or 1} rank(s), the state is the uninterrupted "
              "run's", p.returncode == 0 and open(out, "rb").read() == open(full, "rb").read(),
              p.stderr[-600:])

    # No rank holds the whole flock: with the order alone on stdout, the initial flock is made
    # in parts, the order summed through the parts and the state, the checkpoint (.npy and
    # CSV, with their sidecars) and the trajectory (.npy f4 and f8, GSD, ParaView) written by
    # every rank at once, and a CSV state read in parts; each file is one process's.
    for name, extra in (("plane wrap", ["--preset", "lab", "-n", "3000"]),
                        ("box walls vicsek noise",
                         ["--preset", "vicsek", "-n", "3000", "--set", "dim=3", "--set",
                          "boundary=walls", "--set", "noise=1"])):
        files = {}
        for ranks in (None, 2, 3, 4):
            tag = f"parts{ranks or 1}"
            outs = [os.path.join(d, f"{tag}.{x}")
                    for x in ("save.npy", "save.csv", "ck.npy", "t4.npy", "t8.npy")]
            cmd = [BOIDS, "sim"] if ranks is None else [*MPI, "-n", str(ranks), BOIDS_MPI, "sim"]
            p = run(*cmd, *base, *extra, "--every", "10", "--order-only", "--save", outs[0],
                    "--checkpoint-every", "15", "--checkpoint", outs[2], "--trajectory", outs[3])
            p3 = run(*cmd, *base, *extra, "--every", "20", "--order-only", "--trajectory",
                     outs[4], "--trajectory-dtype", "f8")
            p2 = run(*cmd, *base[:2], *extra, "--steps", "25", "--save", outs[1])
            check(f"in parts, {name}: {ranks or 1} rank(s) exit 0",
                  p.returncode == p2.returncode == p3.returncode == 0,
                  (p.stderr + p2.stderr + p3.stderr)[-600:])
            files[ranks] = [p.stdout.encode()] + [
                open(f, "rb").read() if os.path.exists(f) else b"" for f in
                (outs[0], outs[0] + ".json", outs[1], outs[1] + ".json", outs[2], outs[2] + ".json",
                 outs[3], outs[4])]
            if ranks == 4:  # the formats below: 2 and 3 ranks, to keep the CI run short
                continue
            # The CSV state of one process read in parts, with a GSD trajectory; a ParaView
            # collection (a folder of its own per run: the index names the frames' folder).
            own = os.path.join(d, tag)
            os.makedirs(own, exist_ok=True)
            gsd, pvd, loaded = (os.path.join(own, x) for x in ("t.gsd", "t.pvd", "loaded.npy"))
            p4 = run(*cmd, *base[:2], *extra, "--steps", "20", "--every", "10", "--order-only",
                     "--load", os.path.join(d, "parts1.save.csv"), "--trajectory", gsd,
                     "--save", loaded)
            p5 = run(*cmd, *base, *extra, "--every", "20", "--order-only", "--trajectory", pvd)
            check(f"in parts, {name}: {ranks or 1} rank(s) exit 0 (CSV load, GSD, ParaView)",
                  p4.returncode == p5.returncode == 0, (p4.stderr + p5.stderr)[-600:])
            frames = sorted(os.listdir(os.path.join(own, "t"))) if p5.returncode == 0 else []
            files[ranks] += [p4.stdout.encode()] + [
                open(f, "rb").read() if os.path.exists(f) else b"" for f in
                (loaded, gsd, pvd, *(os.path.join(own, "t", f) for f in frames))]
            files[ranks].append(repr(frames).encode())
        what = ("stdout", "save.npy", "save.npy.json", "save.csv", "save.csv.json", "checkpoint",
                "checkpoint.json", "trajectory f4", "trajectory f8", "CSV loaded: stdout",
                "CSV loaded: its state", "trajectory .gsd", "trajectory .pvd",
                *(f"ParaView frame {k}" for k in range(len(files[None]) - 14)),
                "ParaView frames' names")
        for ranks in (2, 3, 4):
            for w, a, b in zip(what, files[None], files[ranks]):
                check(f"in parts, {name}: {ranks} ranks, {w} byte-identical ({len(a)} bytes)",
                      a == b and len(a) > 0, f"{len(a)} vs {len(b)} bytes")
        check(f"in parts, {name}: 2 and 3 ranks wrote every file one process wrote",
              len(files[2]) == len(files[3]) == len(files[None]) > 14,
              [len(files[r]) for r in (None, 2, 3)])

    # A large flock's state reaches its parts in rounds (mpi_part_state: a share of every
    # part's ids at a time, at least 2^18 of them): 600,000 boids over 2 ranks take two rounds
    # a sample. Every sample's order and the state are one process's.
    rounds = {}
    for ranks in (None, 2):
        out = os.path.join(d, f"rounds{ranks or 1}.npy")
        cmd = [BOIDS, "sim"] if ranks is None else [*MPI, "-n", str(ranks), BOIDS_MPI, "sim"]
        p = run(*cmd, "--backend", "cpu", "--preset", "lab", "-n", "600000", "--steps", "2",
                "--every", "1", "--order-only", "--save", out)
        check(f"in rounds: {ranks or 1} rank(s) exit 0", p.returncode == 0, p.stderr[-600:])
        rounds[ranks] = (p.stdout, open(out, "rb").read() if os.path.exists(out) else b"")
    check("in rounds: 2 ranks, the order of every sample and the state byte-identical",
          rounds[None] == rounds[2] and len(rounds[None][1]) > 600000 * 32,
          [len(x) for x in rounds[None] + rounds[2]])

    # A state read in parts (.npy: each rank its rows; CSV: each rank keeps its rows) whose
    # sidecar's flock_hash is not its boids' is refused, as one process refuses it, and
    # nothing is run.
    for kind in ("npy", "csv"):
        stale = os.path.join(d, f"parts1.save.{kind}")
        text = open(stale + ".json").read()
        hexhash = text.split('"flock_hash": "')[1][:16]
        with open(stale + ".json", "w") as f:
            f.write(text.replace(hexhash, "0123456789abcdef"))
        for ranks in (None, 3):  # the file of the last case above, the box's
            cmd = [BOIDS, "sim"] if ranks is None else [*MPI, "-n", str(ranks), BOIDS_MPI, "sim"]
            p = run(*cmd, *base, *extra, "--load", stale)
            check(f"a stale sidecar read in parts ({kind}): {ranks or 1} rank(s) refuse it "
                  "(exit 2)", p.returncode == 2 and "flock_hash" in p.stderr and
                  "changed after the save" in p.stderr, (p.returncode, p.stderr[-600:]))
    # A CSV state with a bad row: every rank reads every line, and the job is refused with
    # the line named, as one process refuses it.
    bad = os.path.join(d, "bad.csv")
    lines = open(os.path.join(d, "parts1.save.csv")).read().split("\n")
    lines[1500] = lines[1500].replace(",", ",x", 1)  # boid 1499: the middle one of 3 ranks'
    with open(bad, "w") as f:
        f.write("\n".join(lines))
    for ranks in (None, 3):
        cmd = [BOIDS, "sim"] if ranks is None else [*MPI, "-n", str(ranks), BOIDS_MPI, "sim"]
        p = run(*cmd, *base, *extra, "--load", bad)
        check(f"a CSV state with a bad row: {ranks or 1} rank(s) refuse it naming its line "
              "(exit 2)", p.returncode == 2 and "bad.csv:1501: column y:" in p.stderr and
              "is not a number" in p.stderr, (p.returncode, p.stderr[-600:]))

    # A flock that gathers (all of it drawn to one food point inside walls): the rows are cut
    # again as it does, and the bytes stay one process's.
    gather = [*base[:2], "--steps", "120", "--preset", "lab", "-n", "3000", "--set",
              "boundary=walls", "--set", "food=1", "--set", "food_weight=5", "--set",
              "food_radius=2000"]
    # Its cut weighs the ranks' boids by their wall time, then by their CPU time.
    for clock in ("wall", "cpu"):
        stats = os.path.join(d, f"gather-{clock}.csv")
        compare(d, f"a gathering flock, cut by {clock} time", gather, (3,),
                extra_mpi=("--mpi-stats", stats, "--mpi-balance", clock))
        rows = list(csv.DictReader(open(stats))) if os.path.exists(stats) else []
        check(f"a gathering flock, cut by {clock} time: the tiles were cut again",
              len(rows) == 3 and all(float(r["rebalances"]) > 0 for r in rows), rows)

    # A flock on one row of the grid (every boid at one y, moving along x, in a wrap world:
    # no force has a y component, so it stays there): the heaviest row holds the whole of the
    # cut's load at every step, which no cut of whole rows can share.
    line_state = os.path.join(d, "one-row.csv")
    with open(line_state, "w") as f:
        f.write("x,y,vx,vy\n")
        for i in range(600):
            f.write(f"{1.5 * i:.17g},280.25,{60 + (i * 37) % 50},0\n")
    p = run(*MPI, "-n", "3", BOIDS_MPI, "sim", "--backend", "cpu", "--threads", "1", "--preset",
            "lab", "-n", "600", "--fixed-world", "--load", line_state, "--steps", "10",
            "--order-only")
    line = [l for l in p.stderr.splitlines() if "the heaviest row held" in l]
    check("a flock on one row: 3 ranks exit 0", p.returncode == 0, p.stderr[-600:])
    check("a flock on one row: the heaviest row held 100.0% of the cut's load, above 1/3",
          len(line) == 1 and "the heaviest row held 100.0% of the cut's load" in line[0] and
          "above 1/3" in line[0], line)
    # The cut within rows shares that one row between the 3 ranks (the cpu backend's
    # resident tiles), with one process's bytes; with --mpi-cut rows one rank holds it all.
    held_by_cut(d, "a flock on one row", line_state,
                (("cells", "below the 600", lambda m: 0 < m < 600),
                 ("rows", "is the 600", lambda m: m == 600)))
    # A flock in one cell of the grid (one_cell_state): the default cut, at boids, shares that
    # cell between the 3 ranks by id, with one process's bytes; with --mpi-cut cells one rank
    # holds it all at the start. The bound on the most a rank held over 10 steps, 300, is 1.5 times the even
    # share: the cut follows each rank's measured time, which for ranks sharing cores moves by
    # tens of per cent from step to step (a run here held 244 at most). Whole cells leave the
    # cell on one rank: at its first cut, made after one step, it holds the cell's boids less
    # the few that crossed out (19 here), so above 450 (581 here).
    cell_state = one_cell_state(d)
    # More ranks than the grid has rows (3, between walls): the cut within rows and cells
    # gives each rank a share, with one process's bytes (the ranks keep their parts of the
    # ids until the first step cuts); the correlation's grid has fewer rows than ranks too.
    compare(d, "4 and 6 ranks on 3 rows", ["--backend", "cpu", "--preset", "lab", "-n", "600",
                                           "--fixed-world", "--set", "vision_radius=150", "--set",
                                           "boundary=walls", "--correlation-range", "150",
                                           "--steps", "20"], (4, 6))
    held_by_cut(d, "a flock in one cell", cell_state,
                (("boids", "at most 300 of the 600", lambda m: 0 < m <= 300),
                 ("cells", "above 450 of the 600", lambda m: m > 450)))

    # What the split cost, per rank.
    stats = os.path.join(d, "stats.csv")
    p = run(*MPI, "-n", "3", BOIDS_MPI, "sim", "--backend", "cpu", "--threads", "1", "--preset",
            "lab", "-n", "3000", "--steps", "20", "--order-only", "--mpi-stats", stats)
    rows = open(stats).read().splitlines() if os.path.exists(stats) else []
    check("--mpi-stats: a header and one row per rank", p.returncode == 0 and len(rows) == 4 and
          rows[0].startswith("rank,ranks,steps,boids_mean"), (p.stderr[-400:], rows))
    if len(rows) == 4:
        owned = sum(float(r.split(",")[3]) for r in rows[1:])
        check("--mpi-stats: the ranks own the 3000 boids between them", abs(owned - 3000) < 1e-9,
              owned)
    # The share lost to imbalance, of the step time and of the ranks' CPU time: each one
    # number, reduced on every rank (so the same in every row), a share in [0, 1), and both
    # on the end-of-run line on stderr.
    table = list(csv.DictReader(open(stats))) if os.path.exists(stats) else []
    line = [l for l in p.stderr.splitlines() if "of the step time lost to imbalance" in l]
    # --mpi-balance auto: the CPU clock where the node runs more threads than it has
    # processors (3 ranks of one thread), else the wall clock.
    clock = "CPU" if 3 > (os.cpu_count() or 1) else "wall"
    check(f"--mpi-balance auto, 3 ranks of one thread on {os.cpu_count()} processors: the cut "
          f"follows the {clock} clock", len(line) == 1 and f"new cuts by {clock} time" in line[0],
          line)
    said = re.findall(r"([0-9.]+)%", line[0]) if len(line) == 1 else []
    for col, k, what, digits in (
            ("imbalance_lost", 0, "the share of the step time lost to imbalance", 0.05),
            ("imbalance_lost_cpu", 1, "the share of the CPU time lost to it", 0.05),
            ("within_rows_share", 2, "the share of the steps with tiles ending within rows", 0.5),
            ("within_cells_share", 3, "the share of the steps with tiles ending within cells",
             0.5),
            ("heaviest_row_share", 4, "the heaviest row's share of the load", 0.05)):
        lost = {r.get(col) for r in table}
        check(f"--mpi-stats: one {col} for every rank, in [0, 1]",
              len(table) == 3 and len(lost) == 1 and None not in lost and
              0 <= float(next(iter(lost))) <= 1, lost)
        # The line prints the share in per cent to 0.1 (the steps within rows, cells to 1), the
        # file to 1e-4: they agree within the two roundings (half the line's digit + 0.005).
        check(f"the end of the run names {what}, the file's",
              table and len(said) == 5 and
              abs(float(said[k]) - 100 * float(table[0][col])) <= digits + 0.005 + 1e-9,
              (line, p.stderr[-400:]))
    # The resident tiles: the cut ends tiles within rows from the first step
    # (its plan comes once the backends hold their tiles; the split's first cut, of rows,
    # was made before).
    check("--mpi-stats: the cut ended tiles within rows on every step",
          len(table) == 3 and all(float(r["within_rows_share"]) == 1 for r in table),
          [r.get("within_rows_share") for r in table])
    # and, the default cut being at boids on the cpu backend, within cells on some steps
    # (3000 boids over some 200 cells: an even share falls within a cell nearly always)
    check("--mpi-stats: the cut ended tiles within cells on some steps",
          len(table) == 3 and all(float(r["within_cells_share"]) > 0 for r in table),
          [r.get("within_cells_share") for r in table])
    # --mpi-warmup W: the stats and the line leave out the first W steps and give their own
    # time; it changes no bit of the run. On 3 ranks and on 1 (whose backend steps the run in
    # one call, split at the warm-up's end).
    for ranks in (3, 1):
        warm = os.path.join(d, f"warm{ranks}.csv")
        q = run(*MPI, "-n", str(ranks), BOIDS_MPI, "sim", "--backend", "cpu", "--threads", "1",
                "--preset", "lab", "-n", "3000", "--steps", "20", "--order-only", "--mpi-stats",
                warm, "--mpi-warmup", "5")
        wt = list(csv.DictReader(open(warm))) if os.path.exists(warm) else []
        check(f"--mpi-warmup 5 of 20 steps on {ranks} rank(s): stdout as 3 ranks' without it",
              q.returncode == 0 and p.stdout and q.stdout == p.stdout,
              (q.stderr[-400:], q.stdout[-200:]))
        check(f"--mpi-warmup 5 on {ranks} rank(s): 15 steps timed, 5 of warm-up with their time",
              len(wt) == ranks and all(r["steps"] == "15" and r["warmup_steps"] == "5" and
                                       float(r["warmup_ms_per_step"]) > 0 for r in wt), wt)
        if ranks == 3:
            check("--mpi-warmup: the end-of-run line counts the steps after it",
                  "3 ranks, 15 steps after a warm-up of 5 steps (" in q.stderr, q.stderr[-600:])


def gpu():
    probe = run(BOIDS, "sim", "--backend", "gpu", "-n", "10", "--steps", "1")
    if probe.returncode != 0:
        skip(f"no GL context for the gpu backend: {probe.stderr.strip()[-200:]}")
    d = tmpdir()
    base = ["--backend", "gpu", "--deterministic", "--steps", "20"]
    compare(d, "gpu plane walls, predator",
            [*base, "--preset", "lab", "-n", "2000", "--set", "boundary=walls", "--set",
             "predator=1"], (2, 3))
    compare(d, "gpu plane vicsek noise", [*base, "--preset", "vicsek", "-n", "2000", "--set",
                                          "noise=2"], (2,))
    compare(d, "gpu box wrap", [*base, "--preset", "lab", "-n", "2000", "--set", "dim=3"], (2,))
    # The ranks above keep their tiles resident on the device; the window path (the tile and
    # its halo rows uploaded every step, the interior rows stepped while the halo travels)
    # gives the same bytes.
    compare(d, "gpu plane wrap, the window path", [*base, "--preset", "lab", "-n", "2000"], (2,),
            extra_mpi=("--mpi-window",))
    # The deterministic mode's cells are in id order: its tiles too may share a cell (the
    # bound as for the cpu ranks).
    cell_state = one_cell_state(d)
    held_by_cut(d, "gpu, a flock in one cell", cell_state,
                (("boids", "at most 300 of the 600", lambda m: 0 < m <= 300),),
                backend=("--backend", "gpu", "--deterministic"))
    # --fast: whole cells, so the cell's boids on one rank and another rank with none, which
    # steps an empty tile (its passes dispatch no work).
    stats = os.path.join(d, "fast-one-cell.csv")
    p = run(*MPI, "-n", "3", BOIDS_MPI, "sim", "--backend", "gpu", "--fast", "--preset", "lab",
            "-n", "600", "--fixed-world", "--load", cell_state, "--steps", "10", "--mpi-stats",
            stats, timeout=300)
    table = list(csv.DictReader(open(stats))) if os.path.exists(stats) else []
    check("gpu --fast, a flock in one cell on 3 ranks: exit 0, one rank with no boids, no cut "
          "within a cell", p.returncode == 0 and len(table) == 3 and
          min(float(r["boids_max"]) for r in table) == 0 and
          all(float(r["within_cells_share"]) == 0 for r in table), (p.stderr[-600:], table))


def menu():
    """The Vicsek model's menu (vectorial noise, nematic alignment, chirality, a field) split
    over 2 and 3 ranks: cpu in the plane and the box (nematic on its own too: it takes the
    scalar heading loop), and gpu --deterministic where a GL context opens."""
    d = tmpdir()
    allm = ["--set", "noise_type=vectorial", "--set", "alignment=nematic", "--set",
            "chirality=0.05", "--set", "field=0.3", "--set", "field_y=1", "--set", "field_z=0.5"]
    base = ["--preset", "vicsek", "-n", "3000", "--set", "noise=0.6", "--steps", "30"]
    for name, args in (("plane, all four", [*base, *allm]),
                       ("plane walls, nematic", [*base, "--set", "alignment=nematic", "--set",
                                                 "boundary=walls"]),
                       ("box, all four", [*base, *allm, "--set", "dim=3"])):
        compare(d, f"menu cpu {name}", ["--backend", "cpu", *args], (2, 3))
    # Species (issue 32): a boid's species is its id's, and ids travel with the boids.
    compare(d, "species cpu hawks (chase, flee, avoid)",
            ["--backend", "cpu", "--preset", "hawks", "-n", "3000", "--steps", "20", "--set",
             "rule_radius.1.0=100"], (2, 3))
    # Each species' order (order.0, order.1) and clusters (clusters.0, clusters.1,
    # largest_cluster.0, largest_cluster.1) close the lines on stdout and in the series,
    # compared above through the ranks' sums in id order and the tiles' components joined on
    # rank 0. A component of the whole flock splits into at least one of each species it
    # holds: the species' clusters add up to at least the flock's.
    sp = b",order.0,order.1,clusters.0,clusters.1,largest_cluster.0,largest_cluster.1"
    for what in ("stdout", "series.csv"):
        lines = read_bytes(d, "k2", what).decode().split("\n")
        check(f"species cpu hawks: the {what} columns end with {sp.decode()}",
              lines[0].endswith(sp.decode()), lines[0])
    rows = [dict(zip(lines[0].split(","), r.split(","))) for r in lines[1:] if r]
    check("species cpu hawks: clusters.0 + clusters.1 >= clusters at every sample",
          rows and all(float(r["clusters.0"]) + float(r["clusters.1"]) >= float(r["clusters"])
                       for r in rows), rows[:2])
    # The GSD trajectory's type ids and the ParaView frames' species array are the boids'
    # species, each rank writing its part's.
    for ext in ("gsd", "pvd"):
        got = {}
        for ranks in (None, 2):
            out = os.path.join(d, f"hawks{ranks or 1}.{ext}")
            cmd = [BOIDS, "sim"] if ranks is None else [*MPI, "-n", str(ranks), BOIDS_MPI, "sim"]
            p = run(*cmd, "--backend", "cpu", "--preset", "hawks", "-n", "3000", "--steps", "20",
                    "--every", "10", "--order-only", "--set", "rule_radius.1.0=100",
                    "--trajectory", out)
            check(f"species cpu hawks, .{ext}: {ranks or 1} rank(s) exit 0", p.returncode == 0,
                  p.stderr[-600:])
            files = [out] if ext == "gsd" else [os.path.join(out[:-4], f"frame_{k:06d}.vtp")
                                                for k in range(3)]
            got[ranks] = [open(f, "rb").read() if os.path.exists(f) else b"" for f in files]
        check(f"species cpu hawks: 2 ranks, the .{ext} with the species byte-identical",
              got[None] == got[2] and all(got[None]), [len(x) for x in got[None] + got[2]])
    compare(d, "species cpu vicsek, two kinds uncoupled",
            ["--backend", "cpu", *base, "--set", "species=2", "--set", "species_count.1=1500",
             "--set", "coupling.0.1=0", "--set", "noise.1=0.2", "--set", "speed.1=0.05"], (2,))
    compare(d, "species cpu hawks, topological k = 7 in vision",
            ["--backend", "cpu", "--preset", "hawks", "-n", "3000", "--steps", "20", "--set",
             "rule_radius.1.0=100", "--set", "neighbours=topological", "--set", "k=7", "--set",
             "k_in_vision=1"], (2,))
    probe = run(BOIDS, "sim", "--backend", "gpu", "-n", "10", "--steps", "1")
    if probe.returncode != 0 and FAILURES:
        finish()  # the cpu part failed: that, not the missing context, is the result
    if probe.returncode != 0:
        skip(f"no GL context for the gpu backend: {probe.stderr.strip()[-200:]}")
    compare(d, "menu gpu plane, all four",
            ["--backend", "gpu", "--deterministic", *base, *allm], (2,))
    compare(d, "species gpu hawks (chase, flee, avoid)",
            ["--backend", "gpu", "--deterministic", "--preset", "hawks", "-n", "3000", "--steps",
             "20", "--set", "rule_radius.1.0=100"], (2,))


def refused(name, args, words, ranks=2):
    d = tmpdir()
    save = os.path.join(d, "final.csv")
    p = run(*MPI, "-n", str(ranks), BOIDS_MPI, "sim", *args, "--save", save, timeout=120)
    check(f"{name}: exit 2", p.returncode == 2, (p.returncode, p.stderr[-600:]))
    check(f"{name}: the message says why", all(w in p.stderr for w in words), p.stderr[-900:])
    check(f"{name}: no file", not os.path.exists(save), os.listdir(d))


def faults():
    refused("topological without k_in_vision",
            ["--backend", "cpu", "-n", "2000", "--neighbours", "topological", "--steps", "5"],
            ["k_in_vision=1"])
    refused("the cpu-ref backend", ["--backend", "cpu-ref", "-n", "200", "--steps", "5"],
            ["cpu-ref", "cpu or gpu"])
    refused("a clock to cut by that is not one", ["--backend", "cpu", "-n", "200", "--steps", "5",
                                                   "--mpi-balance", "cycles"],
            ["--mpi-balance", "cycles"])
    refused("a warm-up as long as the run", ["--backend", "cpu", "-n", "200", "--steps", "5",
                                             "--mpi-warmup", "5"],
            ["--mpi-warmup 5", "below --steps (5)"])
    refused("a cut that is not one", ["--backend", "cpu", "-n", "200", "--steps", "5",
                                      "--mpi-cut", "columns"], ["--mpi-cut", "columns"])
    # 3 rows under wrap: no cut of whole rows, nor within rows (each tile with its two halo
    # rows would need the whole grid), admits 4 ranks
    refused("more ranks than the grid's rows admit",
            ["--backend", "cpu", "-n", "300", "--fixed-world", "--set", "vision_radius=150",
             "--steps", "5"], ["rows", "ranks", "within rows does not fit"], ranks=4)
    # between walls a cut within rows would: whole rows are refused when asked for
    refused("more ranks than rows, --mpi-cut rows",
            ["--backend", "cpu", "-n", "600", "--fixed-world", "--set", "vision_radius=150",
             "--set", "boundary=walls", "--mpi-cut", "rows", "--steps", "5"], ["rows", "ranks"],
            ranks=4)
    # Ranks given other parameters (as a config that differs between nodes would): refused,
    # naming the rank and what differs.
    d = tmpdir()
    args = ["--backend", "cpu", "-n", "2000", "--steps", "5"]
    p = run(*MPI, "-n", "2", BOIDS_MPI, "sim", *args, ":", "-n", "1", BOIDS_MPI, "sim", *args,
            "--set", "noise_seed=4", timeout=120)
    check("a rank with other parameters: exit 2", p.returncode == 2, (p.returncode, p.stderr[-600:]))
    check("a rank with other parameters: named, with what differs",
          "rank 2" in p.stderr and "parameter noise_seed = 4" in p.stderr, p.stderr[-900:])

    # A rank given another state file (--load), as a node with a stale copy would be.
    a_csv, b_csv = os.path.join(d, "a.csv"), os.path.join(d, "b.csv")
    for path, steps in ((a_csv, "0"), (b_csv, "1")):  # the same seed and N, another state
        run(BOIDS, "sim", "--backend", "cpu", "-n", "2000", "--steps", steps, "--save", path,
            check_rc=0)
    args = ["--backend", "cpu", "-n", "2000", "--steps", "5"]
    p = run(*MPI, "-n", "2", BOIDS_MPI, "sim", *args, "--load", a_csv, ":", "-n", "1", BOIDS_MPI,
            "sim", *args, "--load", b_csv, timeout=120)
    check("a rank with another state file: exit 2", p.returncode == 2,
          (p.returncode, p.stderr[-600:]))
    check("a rank with another state file: named, with what differs",
          "rank 2" in p.stderr and "initial state" in p.stderr, p.stderr[-900:])

    # A rank killed mid-run: the job ends with an error naming it within a minute, and the
    # final state file is not written, nor any temporary file left (the series, the
    # trajectory and the checkpoint are open, or being written, when it dies).
    d = tmpdir()
    save = os.path.join(d, "final.csv")
    # Its ranks are recorded, so that whatever happens none is left running. Open MPI ends the
    # other ranks with SIGTERM, on which they remove their temporary files, and SIGKILL after
    # odls_base_sigkill_timeout seconds (1 by default): on a loaded machine a rank was once
    # killed before its handler ran (docs/cli.md says so), so the test gives it 3 s (mpirun
    # waits that long after its SIGTERM whether or not the ranks are gone).
    job = subprocess.Popen([*MPI, "-n", "3", BOIDS_MPI, "sim", "--backend", "cpu", "-n", "20000",
                            "--steps", "100000", "--every", "50", "--order-only", "--save", save,
                            "--series", os.path.join(d, "series.csv"), "--trajectory",
                            os.path.join(d, "traj.npy"), "--checkpoint-every", "3",
                            "--checkpoint", os.path.join(d, "ck.npy")],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                           env=dict(os.environ, OMPI_MCA_odls_base_sigkill_timeout="3"))

    ranks = set()

    def end_job():  # mpirun ends its ranks on SIGTERM; any left then are killed one by one
        job.terminate()
        try:
            job.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            job.kill()
            job.communicate()
        for pid in ranks:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
    victim = None
    for _ in range(100):  # the ranks' processes, found by their MPI rank
        time.sleep(0.2)
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                env = open(f"/proc/{pid}/environ", "rb").read().split(b"\0")
                exe = os.readlink(f"/proc/{pid}/exe")
            except OSError:  # gone, or not ours to read
                continue
            try:
                parent = int(open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            if exe.endswith("boids-mpi") and parent == job.pid:  # one of this job's ranks
                ranks.add(int(pid))
                if b"OMPI_COMM_WORLD_RANK=1" in env:
                    victim = int(pid)
        if victim:
            break
    check("the rank to kill is found", victim is not None)
    if victim is None:
        end_job()
        return
    # Well into the steps: the series' and the trajectory's temporary files, open from the
    # start to the end of the run, are there, and a checkpoint has been written. (Before the
    # run, each output's path is probed by making and removing a temporary file of the same
    # kind of name: any ".tmp" seen then may be gone a moment later.)
    def running():
        names = os.listdir(d)
        return (any(f.startswith("series.csv.tmp") for f in names) and
                any(f.startswith("traj.npy.tmp") for f in names) and "ck.npy" in names)
    for _ in range(600):
        if running():
            break
        time.sleep(0.1)
    check("the series', the trajectory's and a checkpoint's files exist before the kill",
          running(), os.listdir(d))
    time.sleep(1.0)
    os.kill(victim, signal.SIGKILL)
    t0 = time.monotonic()
    try:
        _, err = job.communicate(timeout=60)
        waited = time.monotonic() - t0
        check(f"a killed rank ends the job within a minute ({waited:.1f} s)", True)
        check("the job's exit status is an error", job.returncode != 0, job.returncode)
        check("the message names the rank", "rank 1" in err or "rank [[" in err or
              "process rank 1" in err, err[-900:])
    except subprocess.TimeoutExpired:
        end_job()
        check("a killed rank ends the job within a minute", False)
    check("no final state file", not os.path.exists(save), os.listdir(d))
    left = [f for f in os.listdir(d) if ".tmp" in f]
    check("no temporary file left by any rank", not left, left)


{"cpu": cpu, "gpu": gpu, "faults": faults, "menu": menu}[MODE]()
finish()
