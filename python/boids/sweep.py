# SPDX-License-Identifier: MIT
"""sweep(): a `boids sweep` from Python, serial or spread over the ranks of mpirun.

The sweep is the project's own program, run as a subprocess: the same code, the same table
and the same bytes as the command line, with nothing of its statistics rewritten here."""

import json
import numbers
import os
import re
import shutil
import signal
import subprocess
import tempfile

from . import _find, _lib
from ._lib import BoidsError
from ._version import __version__
from .flock import _integer

# What the program's exit code says, as the C status BoidsError carries (boids_status:
# 1 bad input, 3 the run failed); the program exits 2 for bad input, 1 for a failed run.
_STATUS_OF_EXIT = {2: 1, 1: 3}
_PROGRESS = re.compile(r"^boids sweep: \[(\d+)/(\d+)\]")


def _pandas():
    try:
        import pandas
    except ImportError as e:
        raise ImportError("boids: sweep() returns pandas DataFrames and needs pandas "
                          "(Debian: python3-pandas; pip install pandas)") from e
    return pandas


def program():
    """The `boids` program sweep() runs, the first of: $BOIDS_PROGRAM; the `boids` beside
    the core library this package loaded (a build tree: build/boids next to
    build/libboids_core.so); an installed one, PREFIX/bin/boids for a library in PREFIX/lib
    or PREFIX/lib/<multiarch>; the one `pip install` bundled into the package (boids/bin);
    then `boids` on PATH. BoidsError when none is found, or when the one found is of another
    version series than the package."""
    env = os.environ.get("BOIDS_PROGRAM")
    if env:
        candidates = [env]
    else:
        lib = _lib.library_path()
        here = os.path.dirname(lib) if lib and os.path.sep in lib else None
        candidates = [os.path.join(here, "boids"),
                      os.path.join(here, os.pardir, "bin", "boids"),
                      os.path.join(here, os.pardir, os.pardir, "bin", "boids")] if here else []
        candidates.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin",
                                       "boids"))
        on_path = shutil.which("boids")
        if on_path:
            candidates.append(on_path)
    for path in candidates:
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return _checked(os.path.normpath(path))
    raise BoidsError("boids.sweep: cannot find the boids program (%s); set BOIDS_PROGRAM "
                     "to its path" % ("BOIDS_PROGRAM=%s is not an executable file" % env
                                      if env else "looked beside %s and on PATH"
                                      % _lib.library_path()))


def _checked(path):
    """path, once `path --version` says it is of the package's version series: another
    one could write other columns than this package documents."""
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True,
                             timeout=60).stdout.split()
    except (OSError, subprocess.SubprocessError) as e:
        raise BoidsError("boids.sweep: %s: cannot run it: %s" % (path, e)) from e
    have = out[1] if len(out) == 2 and out[0] == "boids" else None
    if not have or _find.series(have) != _find.series(__version__):
        raise BoidsError("boids.sweep: %s is version %s, the package is %s (set BOIDS_PROGRAM "
                         "to the boids of this build)" % (path, have or "unknown", __version__))
    return path


def _text(value, what):
    """One value as the program's command line takes it: floats as repr (they round-trip),
    booleans as 1/0, the rest as str; refused when it holds a comma (a list separator)."""
    if isinstance(value, bool):
        text = "1" if value else "0"
    elif isinstance(value, numbers.Integral):
        text = str(int(value))
    elif isinstance(value, numbers.Real):
        text = repr(float(value))
    elif isinstance(value, (str, os.PathLike)):
        text = os.fspath(value)
    else:
        raise TypeError("%s: %r is not a number or a str" % (what, value))
    if "," in text or "\0" in text or not text:
        raise BoidsError("%s: %r is not one value (empty, or a comma or NUL byte in it)"
                         % (what, value))
    return text


def _grid_args(grid):
    if not grid:
        raise BoidsError("boids.sweep: grid= needs at least one key, e.g. grid={'noise': "
                         "[0.5, 2]} or grid={'noise': '0:5:0.5'}")
    if not hasattr(grid, "items"):
        raise TypeError("sweep(grid=) must be a dict of key -> values, not %s"
                        % type(grid).__name__)
    args = []
    for key, values in grid.items():
        if isinstance(values, str):  # the command line's own text: V1,V2,... or A:B:STEP
            text = values
        elif hasattr(values, "__iter__"):
            text = ",".join(_text(v, "sweep(grid=) %s" % key) for v in values)
        else:
            raise TypeError("sweep(grid=) %s: give a list of values or 'A:B:STEP', not %r"
                            % (key, values))
        args += ["--grid", "%s=%s" % (_text(key, "sweep(grid=) key"), text)]
    return args


def _arguments(preset, grid, counts, density, seeds, steps, burn_in, sample_every, backend,
               threads, jobs, seed, n, config, fixed_world, correlation_range, correlation_bins,
               params):
    """The `boids sweep` command line (after "sweep") of sweep()'s keyword arguments; the
    ones left at None are not given, so the program's defaults apply."""
    args = []
    for flag, value in (("--preset", preset), ("--config", config)):
        if value is not None:
            args += [flag, _text(value, "sweep(%s=)" % flag[2:])]
    if n is not None:
        args += ["-n", str(_integer(n, "sweep(n=)"))]
    if not isinstance(fixed_world, bool):
        raise TypeError("sweep(fixed_world=) must be a bool, not %s" % type(fixed_world).__name__)
    if fixed_world:
        args.append("--fixed-world")
    for key, value in params.items():
        args += ["--set", "%s=%s" % (key, _text(value, "sweep(%s=)" % key))]
    args += _grid_args(grid)
    if counts is not None:
        counts = [counts] if isinstance(counts, numbers.Integral) else counts
        args += ["--counts", ",".join(str(_integer(c, "sweep(counts=)")) for c in counts)]
    if density is not None:
        args += ["--density", _text(density, "sweep(density=)")]
    for flag, value in (("--seeds", seeds), ("--steps", steps), ("--burn-in", burn_in),
                        ("--sample-every", sample_every), ("--seed", seed),
                        ("--threads", threads), ("--jobs", jobs)):
        if value is not None:
            args += [flag, str(_integer(value, "sweep(%s=)" % flag[2:].replace("-", "_")))]
    if backend is not None:
        args += ["--backend", _text(backend, "sweep(backend=)")]
    if correlation_range is not None:
        args += ["--correlation-range", _text(correlation_range, "sweep(correlation_range=)")]
    if correlation_bins is not None:
        args += ["--correlation-bins", str(_integer(correlation_bins, "sweep(correlation_bins=)"))]
    return args


def _run(argv, progress):
    """Runs the program; its stderr lines kept, progress(done, total) called at each
    finished run; BoidsError with the program's last message when it fails."""
    # A session of its own: the program and the workers of --jobs are one process group,
    # which _stop ends together. Ctrl-C in a terminal reaches this process alone, which
    # raises KeyboardInterrupt here and ends the group (as a notebook's interrupt does).
    p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True, errors="replace",
                         start_new_session=True)
    lines = []
    try:
        for line in p.stderr:
            lines.append(line.rstrip("\n"))
            m = _PROGRESS.match(line)
            if m and progress:
                progress(int(m.group(1)), int(m.group(2)))
        p.wait()
    except BaseException:
        # Ctrl-C (KeyboardInterrupt), or an exception of progress(): the sweep is abandoned,
        # so its program goes too, never left running.
        _stop(p)
        raise
    finally:
        p.stderr.close()
    if p.returncode != 0:
        said = [line for line in lines if line.strip()]
        err = BoidsError(said[-1] if said else "%s: exit %d with no message"
                         % (argv[0], p.returncode), _STATUS_OF_EXIT.get(p.returncode, 3))
        err.exit_code, err.stderr = p.returncode, "\n".join(lines)
        raise err


def _signal_group(p, sig):
    try:
        os.killpg(p.pid, sig)  # the program and its workers (the group is p's own)
    except ProcessLookupError:
        pass


def _stop(p):
    """Ends the program p and the workers of its --jobs, and waits for p: SIGTERM (which
    `boids sweep` answers by removing its temporary files), SIGKILL after 10 s."""
    _signal_group(p, signal.SIGTERM)
    try:
        p.wait(timeout=10)
    except subprocess.TimeoutExpired:
        _signal_group(p, signal.SIGKILL)
        p.wait()
    except BaseException:  # a second Ctrl-C during the wait: kill them at once
        _signal_group(p, signal.SIGKILL)
        p.wait()
        raise


def _frame(path):
    """The CSV as a DataFrame, with its provenance sidecar in .attrs["provenance"]. A runs
    file's run_id stays text: 16 hex digits that can look like an integer or 1e5."""
    frame = _pandas().read_csv(path, dtype={"run_id": str})
    with open(path + ".json") as f:
        frame.attrs["provenance"] = json.load(f)
    return frame


def _mpi_size():
    """The number of ranks the environment says this process is one of (Open MPI's
    mpirun, MPICH's or Slurm's PMI), 1 outside MPI."""
    for var in ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE"):
        try:
            size = int(os.environ.get(var, ""))
        except ValueError:
            continue
        if size > 1:
            return size
    return 1


def _comm():
    try:
        from mpi4py import MPI
    except ImportError as e:
        raise ImportError("boids.sweep: under mpirun (%d ranks) it needs mpi4py (Debian: "
                          "python3-mpi4py; pip install mpi4py)" % _mpi_size()) from e
    return MPI.COMM_WORLD


def _serial(prog, args, runs, progress):
    with tempfile.TemporaryDirectory(prefix="boids-sweep-") as d:
        table, rows = os.path.join(d, "table.csv"), os.path.join(d, "runs.csv")
        _run([prog, "sweep", *args, "--out", table, "--runs-out", rows], progress)
        return (_frame(table), _frame(rows)) if runs else _frame(table)


def _outcome(fn, *a):
    """("ok", fn's result), ("error", (message, status, exit code, stderr)) for a
    BoidsError, or ("raised", (exception, message)) for any other exception,
    KeyboardInterrupt included: what a rank hands the others, so that a failure on one is
    raised on every rank instead of leaving them waiting in a collective call."""
    try:
        return "ok", fn(*a)
    except BoidsError as e:
        return "error", (str(e), e.status, getattr(e, "exit_code", None),
                         getattr(e, "stderr", ""))
    except BaseException as e:  # noqa: B036 -- handed to every rank, raised again below
        return "raised", (e, "%s: %s" % (type(e).__name__, e))


def _raise(kind, what, rank=None, size=None):
    """Raises on this rank what _outcome caught on rank `rank`: the BoidsError again, and
    for any other exception the rank's own object where it raised (its traceback kept),
    elsewhere a BoidsError (status 3) that names the rank and the exception."""
    where = "" if rank is None else "rank %d of %d: " % (rank, size)
    if kind == "error":
        message, status, code, stderr = what
        err = BoidsError(where + message, status)
        err.exit_code, err.stderr = code, stderr
        raise err
    exc, text = what
    if isinstance(exc, BaseException) and exc.__traceback__ is not None:
        raise exc  # this rank's own exception, not a copy that came through pickle
    err = BoidsError("%sboids.sweep raised %s" % (where, text), 3)
    err.exit_code, err.stderr = None, ""
    raise err


def _part(prog, args, rank, size, progress):
    """This rank's part: the rows of its runs file (the header first)."""
    with tempfile.TemporaryDirectory(prefix="boids-sweep-") as d:
        rows = os.path.join(d, "part.csv")
        _run([prog, "sweep", *args, "--part", "%d/%d" % (rank + 1, size), "--runs-out", rows],
             progress)
        with open(rows) as f:
            return f.read().splitlines(keepends=True)


def _merge(prog, args, parts, runs):
    """Rank 0: every part's rows in one journal, which --resume turns into the table and
    runs file of the whole sweep without running anything."""
    with tempfile.TemporaryDirectory(prefix="boids-sweep-") as d:
        table, rows = os.path.join(d, "table.csv"), os.path.join(d, "runs.csv")
        with open(rows + ".partial", "w") as f:
            f.write(parts[0][0])
            for lines in parts:
                f.writelines(lines[1:])
        _run([prog, "sweep", *args, "--out", table, "--runs-out", rows, "--resume"], None)
        return (_frame(table), _frame(rows)) if runs else _frame(table)


def _parallel(prog, args, runs, progress):
    comm = _comm()
    rank, size = comm.Get_rank(), comm.Get_size()
    mine = _outcome(_part, prog, args, rank, size, progress)
    # Every rank reaches the gather and the bcast whatever its part did: an exception that
    # left one rank early would leave the others waiting in them for ever. What is handed
    # over is text (an exception object may not pickle); the rank keeps its own object.
    gathered = comm.gather(mine if mine[0] != "raised" else ("raised", (None, mine[1][1])),
                           root=0)
    if rank == 0:
        failed = [(r, o) for r, o in enumerate(gathered) if o[0] != "ok"]
        if failed:
            r, (kind, value) = failed[0]
            result = r, kind, value
        else:
            merged = _outcome(_merge, prog, args, [o[1] for o in gathered], runs)
            if merged[0] == "raised":
                mine = merged
                merged = "raised", (None, merged[1][1])
            result = 0, merged[0], merged[1]
    else:
        result = None
    r, kind, value = comm.bcast(result, root=0)
    if kind == "ok":
        return value
    if mine[0] == "raised":
        _raise("raised", mine[1])  # this rank's own exception (KeyboardInterrupt stays one)
    _raise(kind, value, r, size)


def sweep(grid, *, preset=None, counts=None, density=None, seeds=None, steps=None,
          burn_in=None, sample_every=None, backend=None, threads=None, jobs=None, seed=None,
          n=None, config=None, fixed_world=False, correlation_range=None,
          correlation_bins=None, runs=False, progress=None, **params):
    """Runs `boids sweep` and returns its table as a pandas DataFrame, or with runs=True
    the tuple (table, runs): the table of --out and the runs file of --runs-out, read with
    pandas.read_csv, each with its provenance sidecar (FILE.json) as a dict in
    .attrs["provenance"].

    The keywords are the command's options (docs/research.md, sections 1 and 3):
    grid={key: values}, in order, each a list of values (--grid KEY=V1,V2,...) or the
    command line's own text ("A:B:STEP" or "V1,V2,..."); counts (an int or a list: --counts),
    density, seeds, steps, burn_in, sample_every, backend, threads, jobs (--jobs J: runs
    at once, each in a process of its own), seed, n, config, fixed_world, correlation_range
    and correlation_bins (--correlation-range R adds the
    observable corr_length), and any parameter key of `boids params` as a keyword (--set KEY=VALUE:
    noise=2, neighbours="topological"). A keyword left at None is not given, so the
    command's default applies (3 seeds, 1000 steps, burn-in half the steps, a sample every
    10 steps, the cpu-ref backend). progress(done, total) is called as each run ends.

    The program is the one program() finds ($BOIDS_PROGRAM, the `boids` beside the loaded
    library, PREFIX/bin, the package's own bin/, PATH); it writes into a temporary folder,
    removed afterwards. An exception while it runs (Ctrl-C, or one raised by progress) ends
    the program and its workers (SIGTERM) before it goes on. Errors: BoidsError with the
    program's own message (status 1 for bad input, the program's exit 2; 3 for a run that
    failed, exit 1), its exit code in .exit_code and its whole stderr in .stderr; TypeError for an argument of the wrong type.

    Under mpirun (OMPI_COMM_WORLD_SIZE or PMI_SIZE above 1; mpi4py is imported only then),
    every rank calls sweep() with the same arguments: rank r runs `boids sweep --part
    r+1/size` (the runs i with i % size == r), rank 0 gathers the rows, merges them with
    --resume into the table, and every rank returns the same DataFrames, the same as the
    serial call's (the table's bytes are those of one serial `boids sweep`). A failure on
    any rank raises on every rank: its BoidsError (the message prefixed "rank R of SIZE: "),
    and for any other exception (KeyboardInterrupt, one of progress()) that exception on the
    rank that raised it and a BoidsError naming it on the others. Give threads=1 with one
    rank per core.
    There each rank runs its part with jobs=1 unless jobs is given: the ranks are the jobs
    (the program's own default, one job per core, would start every core's worth on each).
    """
    if progress is not None and not callable(progress):
        raise TypeError("sweep(progress=) must be callable, not %s" % type(progress).__name__)
    if not isinstance(runs, bool):
        raise TypeError("sweep(runs=) must be a bool, not %s" % type(runs).__name__)
    ranks = _mpi_size()
    if jobs is None and ranks > 1:
        jobs = 1
    args = _arguments(preset, grid, counts, density, seeds, steps, burn_in, sample_every,
                      backend, threads, jobs, seed, n, config, fixed_world, correlation_range,
                      correlation_bins, params)
    _pandas()  # before any run: a missing pandas is not found out after the sweep
    prog = program()
    if ranks > 1:
        return _parallel(prog, args, runs, progress)
    return _serial(prog, args, runs, progress)
