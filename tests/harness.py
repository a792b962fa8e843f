"""Tiny helpers shared by the Python test drivers: run the program, check, report."""
import os
import subprocess
import sys
import tempfile

FAILURES = []


def run(*args, check_rc=None, **kw):
    p = subprocess.run([str(a) for a in args], capture_output=True, text=True, **kw)
    if check_rc is not None and p.returncode != check_rc:
        raise AssertionError(f"{' '.join(map(str, args))}: exit {p.returncode}, expected {check_rc}\n"
                             f"stdout: {p.stdout[-2000:]}\nstderr: {p.stderr[-2000:]}")
    return p


def check(name, cond, detail=""):
    print(("ok   " if cond else "FAIL ") + name + (f": {detail}" if detail and not cond else ""))
    if not cond:
        FAILURES.append(name)


def read_state(path):
    """The boids of a state file: the rows after the header, past an optional `# step=K` line."""
    with open(path) as f:
        lines = [line for line in f.read().splitlines() if not line.startswith("#")]
    return [[float(v) for v in line.split(",")[:4]] for line in lines[1:]]


def tmpdir():
    return tempfile.mkdtemp(prefix="boids-test-")


def finish():
    if FAILURES:
        print(f"{len(FAILURES)} check(s) failed: {', '.join(FAILURES)}")
        sys.exit(1)
    print("all checks passed")
    sys.exit(0)
