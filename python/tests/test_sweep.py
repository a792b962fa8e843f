# SPDX-License-Identifier: MIT
"""boids.sweep(): the table (and runs file) of `boids sweep` with the same options, read with
pandas, value for value; the program's own message in a BoidsError; under mpirun -n 2 every
rank returns the serial call's DataFrames."""

import os
import pickle
import shutil
import subprocess
import sys

import pytest

import boids
from boids.sweep import program

pd = pytest.importorskip("pandas")

# N = 50, 40 steps, 2 values, 2 seeds: 4 runs of a few milliseconds each.
KW = dict(preset="vicsek", counts=[50], steps=40, burn_in=20, sample_every=10, seeds=2)
GRID = {"noise": [0.5, 3]}
CLI = ["--preset", "vicsek", "--counts", "50", "--steps", "40", "--burn-in", "20",
       "--sample-every", "10", "--seeds", "2", "--grid", "noise=0.5,3"]


def cli_frames(boids_exe, tmp_path, *extra):
    table, runs = tmp_path / "t.csv", tmp_path / "r.csv"
    subprocess.run([boids_exe, "sweep", *CLI, *extra, "--out", table, "--runs-out", runs],
                   check=True, capture_output=True)
    return pd.read_csv(table), pd.read_csv(runs, dtype={"run_id": str})


def test_program_is_the_boids_beside_the_loaded_library(boids_exe, monkeypatch):
    monkeypatch.delenv("BOIDS_PROGRAM", raising=False)
    assert os.path.samefile(program(), boids_exe)
    monkeypatch.setenv("BOIDS_PROGRAM", boids_exe)
    assert program() == os.path.normpath(boids_exe)


def test_sweep_table_and_runs_equal_the_cli_files_read_with_pandas(boids_exe, tmp_path):
    want_table, want_runs = cli_frames(boids_exe, tmp_path)
    table, runs = boids.sweep(GRID, runs=True, **KW)
    # The same files parsed by the same reader: equal to the last bit, no tolerance.
    pd.testing.assert_frame_equal(table, want_table, check_exact=True)
    pd.testing.assert_frame_equal(runs, want_runs, check_exact=True)
    assert list(table["noise"]) == [0.5, 3] and len(runs) == 4
    assert table.attrs["provenance"]["sweep"]["runs"] == 4
    assert runs.attrs["provenance"]["output"]["kind"] == "runs"
    # runs=False (the default): the table alone; a range as the command line's text.
    alone = boids.sweep({"noise": "0.5:3:2.5"}, **KW)
    pd.testing.assert_frame_equal(alone, want_table, check_exact=True)


def test_sweep_keywords_become_the_cli_options(boids_exe, tmp_path):
    want, _ = cli_frames(boids_exe, tmp_path, "--set", "vision_radius=1.5", "--seed", "4",
                         "--backend", "cpu", "--threads", "1", "--density", "0.25",
                         "--correlation-range", "3", "--correlation-bins", "6")
    got = boids.sweep(GRID, vision_radius=1.5, seed=4, backend="cpu", threads=1, density=0.25,
                      correlation_range=3, correlation_bins=6, **KW)
    pd.testing.assert_frame_equal(got, want, check_exact=True)
    # The estimators come with the table: the correlation range adds corr_length.
    for column in ("order_binder", "order_chi", "order_tau", "order_se_blocks",
                   "gnf_alpha_mean", "corr_length_mean", "corr_length_tau"):
        assert column in got.columns, column


def test_jobs_runs_at_once_and_gives_the_serial_table():
    # jobs=2 becomes --jobs 2 (the program's argv in the sidecar), and the table is the one
    # of jobs=1 to the last digit: runs at once change when each run ends, not its numbers.
    serial = boids.sweep(GRID, jobs=1, **KW)
    together = boids.sweep(GRID, jobs=2, **KW)
    argv = together.attrs["provenance"]["argv"]
    assert argv[argv.index("--jobs") + 1] == "2"
    pd.testing.assert_frame_equal(together, serial, check_exact=True)
    with pytest.raises(boids.BoidsError, match="--jobs"):
        boids.sweep(GRID, jobs=0, **KW)


def test_progress_is_called_once_per_run():
    seen = []
    boids.sweep(GRID, progress=lambda done, total: seen.append((done, total)), **KW)
    assert seen == [(1, 4), (2, 4), (3, 4), (4, 4)]


def test_the_programs_message_in_a_boids_error():
    with pytest.raises(boids.BoidsError, match="noise = 9 is out of range") as e:
        boids.sweep({"noise": [0.5, 9]}, **KW)
    assert e.value.status == 1 and e.value.exit_code == 2
    with pytest.raises(boids.BoidsError, match="unknown key 'bogus'"):
        boids.sweep(GRID, bogus=1, **KW)
    with pytest.raises(boids.BoidsError, match="not one value"):
        boids.sweep({"noise": ["0.5,3"]}, **KW)
    with pytest.raises(boids.BoidsError, match="at least one key"):
        boids.sweep({}, **KW)
    with pytest.raises(TypeError, match="seeds"):
        boids.sweep(GRID, **dict(KW, seeds=2.5))
    with pytest.raises(TypeError, match="grid"):
        boids.sweep({"noise": 0.5}, **KW)


def test_a_missing_program_is_named(monkeypatch, tmp_path):
    monkeypatch.setenv("BOIDS_PROGRAM", str(tmp_path / "nowhere"))
    with pytest.raises(boids.BoidsError, match="nowhere"):
        boids.sweep(GRID, **KW)


RANK_SCRIPT = """
import os, pickle, sys
import boids
rank = int(os.environ.get("OMPI_COMM_WORLD_RANK", os.environ.get("PMI_RANK", "-1")))
kw = pickle.loads(bytes.fromhex(sys.argv[2]))
out = {"good": boids.sweep(kw["grid"], runs=True, **kw["kw"])}
try:
    boids.sweep({"noise": [0.5, 9]}, **kw["kw"])
except boids.BoidsError as e:
    out["bad"] = (str(e), e.status, e.exit_code)
with open("%s.%d" % (sys.argv[1], rank), "wb") as f:
    pickle.dump(out, f)
"""


def mpirun_two_ranks(tmp_path, script_text):
    """Runs script_text under mpirun -n 2 (argv: the output stem, GRID and KW pickled) and
    returns what each rank pickled into STEM.RANK, {rank: object}. A hang fails at 120 s."""
    mpirun = os.environ.get("BOIDS_MPIEXEC") or shutil.which("mpirun")
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        mpi4py = None
    if not mpirun or mpi4py is None:
        # CMake names its mpirun when it built boids-mpi: then mpi4py (.ci/install-deps)
        # is part of the set-up and its absence a failure.
        assert not os.environ.get("BOIDS_MPIEXEC"), "mpi4py missing (Debian: python3-mpi4py)"
        pytest.skip("mpirun or mpi4py missing (Debian: openmpi-bin, python3-mpi4py)")
    script, out = tmp_path / "ranks.py", tmp_path / "outcome"
    script.write_text(script_text)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMPI_", "PMI"))}
    p = subprocess.run([mpirun, "--allow-run-as-root", "--oversubscribe", "-n", "2",
                        sys.executable, script, out,
                        pickle.dumps({"grid": GRID, "kw": KW}).hex()],
                       capture_output=True, text=True, timeout=120, env=env)
    assert p.returncode == 0, p.stderr[-2000:]
    got = {}
    for rank in (0, 1):
        with open("%s.%d" % (out, rank), "rb") as f:
            got[rank] = pickle.load(f)
    return got


def test_mpirun_two_ranks_return_the_serial_frames(tmp_path):
    outcomes = mpirun_two_ranks(tmp_path, RANK_SCRIPT)
    serial_table, serial_runs = boids.sweep(GRID, runs=True, **KW)
    for rank in (0, 1):
        got = outcomes[rank]
        table, runs = got["good"]
        pd.testing.assert_frame_equal(table, serial_table, check_exact=True)
        pd.testing.assert_frame_equal(runs, serial_runs, check_exact=True)
        # The parts ran the runs; the table came from the merge, which resumed all four.
        assert table.attrs["provenance"]["sweep"]["resumed_runs"] == 4
        # Under mpirun the ranks are the jobs: each ran its part with --jobs 1.
        argv = table.attrs["provenance"]["argv"]
        assert argv[argv.index("--jobs") + 1] == "1"
        message, status, code = got["bad"]
        assert message.startswith("rank 0 of 2: ") and "noise = 9" in message
        assert (status, code) == (1, 2)


def _group_members(pgid):
    """The pids of the live processes (zombies aside) in process group pgid, from /proc."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry) as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()  # state, ppid, pgrp, ...
        if int(fields[2]) == pgid and fields[0] != "Z":
            found.append(int(entry))
    return found


@pytest.mark.parametrize("jobs", [1, 2])
def test_an_interrupted_sweep_leaves_no_program_running(monkeypatch, jobs):
    # Ctrl-C arrives as KeyboardInterrupt in the Python code that waits for the program;
    # raised from progress() it comes at that same place, after the first run has ended.
    # 40 runs of 4000 steps: the sweep has most of its work ahead when it is interrupted.
    started = []
    real = subprocess.Popen

    def popen(*a, **kw):
        p = real(*a, **kw)
        started.append(p)
        return p

    monkeypatch.setattr(subprocess, "Popen", popen)

    def interrupt(done, total):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        boids.sweep({"noise": "0.5:3:0.125"}, preset="vicsek", counts=[50], steps=4000,
                    seeds=2, jobs=jobs, progress=interrupt)
    (p,) = [q for q in started if "sweep" in q.args]  # not the `boids --version` check
    assert p.returncode is not None  # waited for: the program is gone
    # Its workers (--jobs) were in its process group: none is left either.
    assert _group_members(p.pid) == []


MPI_RAISE_SCRIPT = """
import os, pickle, sys
import boids
rank = int(os.environ.get("OMPI_COMM_WORLD_RANK", os.environ.get("PMI_RANK", "-1")))
kw = pickle.loads(bytes.fromhex(sys.argv[2]))

def progress(done, total):
    if rank == 1:
        raise RuntimeError("progress failed on rank 1")

try:
    boids.sweep(kw["grid"], progress=progress, **kw["kw"])
    out = ("returned",)
except Exception as e:
    out = (type(e).__name__, str(e))
with open("%s.%d" % (sys.argv[1], rank), "wb") as f:
    pickle.dump(out, f)
"""


def test_mpirun_an_exception_on_one_rank_is_raised_on_every_rank(tmp_path):
    # Not a BoidsError: an exception of the caller's own code on rank 1 alone. Without the
    # hand-over, rank 0 waited in the gather for ever (mpirun_two_ranks's timeout: that hang).
    outcomes = mpirun_two_ranks(tmp_path, MPI_RAISE_SCRIPT)
    # Rank 1 gets its own exception back; rank 0 a BoidsError that names rank 1 and it.
    assert outcomes[1] == ("RuntimeError", "progress failed on rank 1")
    assert outcomes[0] == ("BoidsError", "rank 1 of 2: boids.sweep raised RuntimeError: "
                           "progress failed on rank 1")
