#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Long work shows progress, and output is not held back.

- `sim`, `sweep`, `render` and `boids-bench` draw a progress line with an ETA on stderr when stderr is
  a terminal (a pseudo-terminal here), erased at the end, and write nothing extra when
  stderr is a pipe;
- `sim` writes each metrics line as it is computed: the first line is read through a pipe
  while the process still runs;
- `sim` and `sweep` on cpu-ref with more than 20,000 boids say how long a step will take and
  that `--backend cpu` is the fast path, before the first step.

The line is drawn at most four times a second and not in the first quarter second (sweep and
boids-bench draw it at once after each run and point); the sim and render runs here take
cpu-ref 200 steps or 100 frames of 2,000 boids, 4 million pairs a step: 1.3 s on the 2-core
development machine, several times that quarter second.

usage: progress_test.py BOIDS_BINARY BOIDS_BENCH_BINARY
"""
import os
import pty
import re
import select
import subprocess
import sys
import time

from harness import check, finish, gpu_required, run, tmpdir

BOIDS, BENCH = sys.argv[1], sys.argv[2]
d = tmpdir()
LINE = re.compile(r"\r(boids[ -]\w+): (\d+)/(\d+) (\w+) \(\d+%\), [0-9.e+]+ \w+/s, ETA [^\r]*\x1b\[K")


def on_terminal(*args):
    """stdout (a pipe) and stderr (a pseudo-terminal) of the command, and its exit code."""
    master, slave = pty.openpty()
    p = subprocess.Popen([str(a) for a in args], stdout=subprocess.PIPE, stderr=slave,
                         stdin=subprocess.DEVNULL)
    os.close(slave)
    tty = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the last writer closed the terminal
            break
        if not chunk:
            break
        tty += chunk
    out = p.stdout.read().decode()
    p.wait()
    os.close(master)
    return out, tty.decode(errors="replace"), p.returncode


def progress_checks(name, args, unit):
    out, tty, rc = on_terminal(*args)
    found = list(LINE.finditer(tty))
    check(f"{name}: exit 0 on a terminal", rc == 0, tty[-500:])
    check(f"{name}: a progress line with done/total {unit}, rate and ETA on the terminal",
          len(found) >= 1 and all(m.group(4) == unit for m in found), repr(tty[-500:]))
    check(f"{name}: the line is erased at the end",
          bool(found) and "\r\x1b[K" in tty[found[-1].end():], repr(tty[-200:]))
    p = run(*args)
    check(f"{name}: nothing of it when stderr is a pipe", p.returncode == 0 and "\r" not in p.stderr
          and "ETA" not in p.stderr, repr(p.stderr[-300:]))
    return out, p.stdout


# sim: the same metrics on a terminal as in a pipe (the steps go in chunks there).
SIM = [BOIDS, "sim", "-n", "2000", "--steps", "200", "--every", "50"]
tty_out, pipe_out = progress_checks("sim", SIM, "steps")
check("sim: the same metrics with the progress line as without", tty_out == pipe_out,
      f"{tty_out} / {pipe_out}")
# Without --every the steps are one call of the backend unless the line is on.
tty_out, pipe_out = progress_checks("sim without --every", SIM[:4] + ["--steps", "200"], "steps")
check("sim without --every: the same metrics with the progress line as without",
      tty_out == pipe_out, f"{tty_out} / {pipe_out}")

progress_checks("sweep", [BOIDS, "sweep", "-n", "2000", "--key", "noise", "--values", "0,1",
                          "--seeds", "1", "--steps", "60", "--burn-in", "0",
                          "--sample-every", "20"], "runs")
progress_checks("boids-bench", [BENCH, "--sizes", "1000,2000", "--backends", "cpu-ref,cpu-1t",
                                "--reps", "3", "--warmup", "0", "--rep-ms", "150", "--no-plot",
                                "--out", os.path.join(d, "bench")], "points")

# render draws through EGL: where no GL context can be made it fails before the first frame.
RENDER = [BOIDS, "render", "-n", "2000", "--frames", "100", "--size", "160x100", "--backend",
          "cpu-ref", "-o", os.path.join(d, "f-%d.png")]
if run(*RENDER[:5], "1", *RENDER[6:]).returncode == 0:
    progress_checks("render", RENDER, "frames")
elif gpu_required():
    check("render: a GL context for its frames", False, "boids render failed")
else:
    print("skip render: no GL context here (BOIDS_REQUIRE_GPU=1 makes it a failure)")

# The first metrics line arrives through a pipe while sim is still running: line buffered.
p = subprocess.Popen([BOIDS, "sim", "-n", "2000", "--steps", "100000", "--every", "1"],
                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
ready, _, _ = select.select([p.stdout], [], [], 30)
first = p.stdout.readline().decode() if ready else ""
ready, _, _ = select.select([p.stdout], [], [], 30)
second = p.stdout.readline().decode() if ready else ""
running = p.poll() is None
p.kill()
p.wait()
check("sim: the header and the step-0 line come through a pipe while the run goes on",
      first.startswith("step,order") and second.startswith("0,") and running,
      f"{first!r} {second!r} running={running}")

# cpu-ref beyond 20,000 boids: the estimate first, naming the fast path.
for name, args in [("sim", ["sim", "-n", "20001", "--steps", "1000"]),
                   ("sweep", ["sweep", "--counts", "100,30000", "--key", "noise", "--values", "0",
                              "--steps", "1000", "--seeds", "1"])]:
    start = time.monotonic()
    p = subprocess.Popen([BOIDS, *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         text=True)
    line = p.stderr.readline()
    p.kill()
    p.wait()
    m = re.search(r"a step will take about [0-9.]+ (s|min)", line)
    check(f"{name} on cpu-ref above 20,000 boids: a step's time estimated before the run, "
          f"and --backend cpu named", m is not None and "estimate" in line and
          "--backend cpu" in line and time.monotonic() - start < 30, line)
p = run(BOIDS, "sim", "-n", "20000", "--steps", "0")
check("sim on cpu-ref at 20,000 boids or below: no estimate", "estimate" not in p.stderr, p.stderr)
p = run(BOIDS, "sim", "-n", "30000", "--steps", "1", "--backend", "cpu")
check("sim --backend cpu at 30,000 boids: no estimate", "estimate" not in p.stderr, p.stderr)
finish()
