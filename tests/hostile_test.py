#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Hostile input (issue 11): every case gets one message naming what and where, the exit code
docs/cli.md promises ("Hostile input"), and leaves no output file and no temporary file
behind. The viewer's OSC and TUIO cases, which need a running window, are
tests/view/osc_hostile_test.py.

usage: hostile_test.py BOIDS_BINARY [BOIDS_BENCH_BINARY]
"""
import json
import os
import signal
import struct
import subprocess
import sys
import time

from harness import check, finish, one_message, run, tmpdir, write_file

BOIDS = os.path.abspath(sys.argv[1])
BENCH = os.path.abspath(sys.argv[2]) if len(sys.argv) > 2 else None
d = tmpdir()
OUT = os.path.join(d, "out.csv")  # the output every case names; it must never appear


def write(name, data):
    return write_file(d, name, data)


def leftovers():
    """Temporary files of the atomic writer, anywhere in the test folder."""
    return [os.path.join(r, f) for r, _, fs in os.walk(d) for f in fs if ".tmp" in f]


def expect(name, args, rc, words, stdout=None, outputs=(OUT,), timeout=60):
    """Runs boids with args; checks the exit code, that stderr is one line holding every word,
    and that no output file (nor any temporary) exists afterwards."""
    try:
        p = subprocess.run([BOIDS, *args], capture_output=stdout is None, stdout=stdout,
                           stderr=subprocess.PIPE if stdout is not None else None, text=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        check(f"{name}: finishes within {timeout} s", False)
        return
    one_message(name, p, words, rc)
    for o in outputs:
        check(f"{name}: no {os.path.basename(o)}", not os.path.isfile(o) or o != OUT)
    check(f"{name}: no state sidecar {os.path.basename(OUT)}.json", not os.path.isfile(OUT + ".json"))
    check(f"{name}: no temporary file", not leftovers(), str(leftovers()))
    for o in (OUT, OUT + ".json"):
        if os.path.isfile(o):
            os.unlink(o)


# ---- output paths (item 4) ------------------------------------------------------------------
fifo = os.path.join(d, "fifo")
os.mkfifo(fifo)
link = os.path.join(d, "link.csv")
os.symlink(os.path.join(d, "target.csv"), link)
sim = ["sim", "--steps", "2", "-n", "10"]
for what, path, word in [("device", "/dev/null", "device"), ("folder", d, "folder"),
                         ("folder with a slash", d + "/", "folder"), ("empty path", "", "empty"),
                         ("FIFO", fifo, "FIFO"), ("symlink", link, "symbolic link")]:
    expect(f"--save onto a {what}", [*sim, "--save", path], 2, [path, word] if path else [word])
    expect(f"sweep --out onto a {what}",
           ["sweep", "--key", "noise", "--values", "1", "--steps", "2", "-n", "10", "--preset",
            "vicsek", "--out", path], 2, [path, word] if path else [word])
check("the FIFO and the link are still there", os.path.exists(fifo) and os.path.islink(link))
check("the link's target was not created", not os.path.exists(os.path.join(d, "target.csv")))
for i in range(2):
    os.makedirs(os.path.join(d, f"frame{i}.png"), exist_ok=True)
expect("render -o onto a folder", ["render", "--frames", "1", "-o", os.path.join(d, "frame%d.png")], 2,
       ["frame0.png", "folder"])

with open("/dev/full", "w") as full:
    expect("--save with stdout on a full disk", [*sim, "--save", OUT], 1, ["stdout"], stdout=full)
    expect("params with stdout on a full disk", ["params"], 1, ["stdout"], stdout=full)
    expect("presets with stdout on a full disk", ["presets"], 1, ["stdout"], stdout=full)
    expect("sim with stdout on a full disk", sim, 1, ["stdout"], stdout=full)

# ---- config files (item 2) -----------------------------------------------------------------
ini_cases = [
    ("a line longer than the limit", b"# " + b"a" * 5000 + b" width = 800\n", ["long.ini:1", "longer"]),
    ("an indented line without a key", b"width = 800\n   300\n", ["long.ini:2", "key = value"]),
    ("a NUL byte", b"width = 80\x000\n", ["long.ini:1", "NUL"]),
    ("a section", b"[world]\nwidth = 10\n", ["long.ini:1", "[world]"]),
    ("no key", b"= 5\n", ["long.ini:1", "key"]),
    ("an unknown key after a good one", b"width = 10\nbogus = 1\n", ["long.ini:2", "bogus"]),
    ("a file larger than 1 MiB", b"# comment\n" * 120000, ["long.ini", "larger"]),
]
for name, data, words in ini_cases:
    expect(f"config with {name}", [*sim, "--config", write("long.ini", data), "--save", OUT], 2, words)
expect("config /dev/zero", [*sim, "--config", "/dev/zero", "--save", OUT], 2,
       ["/dev/zero", "not a regular file"], timeout=10)
expect("config is a folder", [*sim, "--config", d, "--save", OUT], 2, [d, "folder"])
deep = os.path.join(d, "x" * 200, "y" * 200)
os.makedirs(deep)
with open(os.path.join(deep, "w.ini"), "w") as f:
    f.write("width = -1\n")
expect("config under a long path keeps the key in the message",
       [*sim, "--config", os.path.join(deep, "w.ini"), "--save", OUT], 2, ["w.ini:1", "width = -1", "range"])

# The rules a config file may rely on: a BOM, indentation, comments after whitespace, CRLF.
good = write("good.ini", b"\xef\xbb\xbf# lab\r\n  width = 800 ; wide\r\n\theight = 300 # low\r\n")
p = run(BOIDS, "params", "--config", good)
vals = {l.split()[0]: l.split()[1] for l in p.stdout.splitlines()[1:]}
check("config: BOM, indentation, comments and CRLF accepted",
      p.returncode == 0 and vals.get("width") == "800" and vals.get("height") == "300", p.stderr)

# ---- state files (item 3) ------------------------------------------------------------------
H = "x,y,vx,vy\n"
state_cases = [
    ("a speed above max_speed", [], H + "1,2,0.5,0\n1,2,500,0\n", ["s.csv:3", "boid 1", "max_speed"]),
    ("velocities of 1e308", [], H + "1,2,1e308,1e308\n", ["s.csv:2", "speed", "max_speed"]),
    ("a Vicsek speed other than speed", ["--preset", "vicsek"], H + "1,2,100,0\n",
     ["s.csv:2", "speed", "Vicsek speed = 0.03 "]),
    ("a Vicsek agent at rest", ["--preset", "vicsek"], H + "1,2,0,0\n", ["s.csv:2", "Vicsek speed"]),
    ("a position outside the world after a step line", [], "# step=5\n" + H + "1,2,0,0\n950,2,0,0\n",
     ["s.csv:4", "boid 1", "outside"]),
    ("a position far out on the open plane", ["--set", "boundary=open"], H + "1e300,2,0,0\n",
     ["s.csv:2", "open plane"]),
    ("a line longer than the limit", [], H + "1" * 100000 + ",2,0,0\n", ["s.csv:2", "longer"]),
    ("a NUL byte", [], H + "1,2\x00,0,0\n", ["s.csv:2", "NUL"]),
    ("a negative step", [], "# step=-1\n" + H + "1,2,0,0\n", ["s.csv:1", "step=K"]),
    ("a step beyond 2^32 - 1", [], "# step=4294967296\n" + H + "1,2,0,0\n", ["s.csv:1", "step=K"]),
    ("a comment instead of the step", [], "# saved by hand\n" + H + "1,2,0,0\n", ["s.csv:1", "step=K"]),
    ("a step line without a header", [], "# step=3\n", ["s.csv:2", "header", "end of the file"]),
    ("a header after a BOM that is wrong", [], "\ufeffa,b,c,d\n1,2,0,0\n", ["s.csv:1", "header"]),
]
for name, pre, text, words in state_cases:
    expect(f"state with {name}", [*sim, *pre, "--load", write("s.csv", text), "--save", OUT], 2, words)
    expect(f"state with {name} (gpu)", [*sim, *pre, "--backend", "gpu", "--load", write("s.csv", text),
                                         "--save", OUT], 2, words)
expect("state /dev/zero", [*sim, "--load", "/dev/zero", "--save", OUT], 2, ["/dev/zero:1", "NUL"],
       timeout=10)
expect("state is a folder", [*sim, "--load", d, "--save", OUT], 2, [d, "folder"])

# What a state file may hold: a BOM, CRLF, any number of extra columns, a step line.
wide = ",".join(["x", "y", "vx", "vy"] + [f"c{i}" for i in range(80)])
row = ",".join(["1", "2", "0.5", "0"] + ["7"] * 80)
for name, text in [("80 extra columns", f"{wide}\n{row}\n{row}\n"),
                   ("a BOM and CRLF", "\ufeffx,y,vx,vy\r\n1,2,0.5,0\r\n"),
                   ("a step line", "# step=4294967295\nx,y,vx,vy\n1,2,0.5,0\n")]:
    p = run(BOIDS, "sim", "--steps", "2", "--load", write("ok.csv", text), "--save", OUT)
    check(f"state with {name} loads", p.returncode == 0, p.stderr)
with open(OUT + ".json") as f:
    saved = json.load(f)
check("the step counter continues across save/load and wraps at 2^32", saved.get("step") == 1, saved)
os.unlink(OUT)
os.unlink(OUT + ".json")

# ---- .npy states: one message naming the file and what is wrong, exit 2 -------------------


def npy(name, rows, descr="<f8", fortran="False", shape=None, magic=b"\x93NUMPY\x01\x00", cut=0):
    """A .npy file of rows as NumPy 1.0 writes it (header padded to 64 bytes), less cut bytes."""
    shape = shape if shape is not None else f"({len(rows)}, {len(rows[0])})"
    head = f"{{'descr': '{descr}', 'fortran_order': {fortran}, 'shape': {shape}, }}"
    head += " " * (-(10 + len(head) + 1) % 64) + "\n"
    code = {"<f4": "f"}.get(descr, "d")
    data = b"".join(struct.pack("<" + code * len(r), *r) for r in rows)
    body = magic + struct.pack("<H", len(head)) + head.encode() + data
    return write(name, body[:len(body) - cut])


rows = [(1, 2, 0.5, 0), (3, 4, 0, 0.5)]
npy_cases = [
    ("another magic", dict(magic=b"\x93NUMPZ\x01\x00"), ["s.npy", "not a .npy file"]),
    ("a big-endian dtype", dict(descr=">f8"), ["s.npy", "dtype '>f8'", "'<f8' or '<f4'"]),
    ("an integer dtype", dict(descr="<i8"), ["s.npy", "dtype '<i8'"]),
    ("Fortran order", dict(fortran="True"), ["s.npy", "fortran_order is True"]),
    ("a 1-D shape", dict(shape="(8,)"), ["s.npy", "shape (8,)", "(N, 4)"]),
    ("a shape (2, 5)", dict(shape="(2, 5)"), ["s.npy", "shape (2, 5)", "(N, 6)"]),
    ("truncated data", dict(cut=8), ["s.npy", "truncated", "64 bytes of data", "holds 56"]),
    ("a billion rows in a small file", dict(shape="(1000000000, 4)"), ["s.npy", "truncated"]),
]
for name, kw, words in npy_cases:
    expect(f".npy state with {name}", [*sim, "--load", npy("s.npy", rows, **kw), "--save", OUT], 2,
           words)
expect(".npy state with a position outside the world",
       [*sim, "--load", npy("s.npy", [(1, 2, 0.5, 0), (950, 2, 0, 0)]), "--save", OUT], 2,
       ["s.npy", "boid 1 (row 1)", "outside"])
expect(".npy state with a NaN", [*sim, "--load", npy("s.npy", [(1, 2, float("nan"), 0)]), "--save", OUT],
       2, ["s.npy", "boid 0", "column vx", "not a finite number"])
expect("a 3-D .npy state for 2-D parameters",
       [*sim, "--load", npy("s.npy", [(1, 2, 3, 0.5, 0, 0)]), "--save", OUT], 2,
       ["s.npy", "3-D", "dim = 2"])
os.mkdir(os.path.join(d, "dir.npy"))
expect(".npy state is a folder", [*sim, "--load", os.path.join(d, "dir.npy"), "--save", OUT], 2,
       ["dir.npy", "folder"])
os.mkfifo(os.path.join(d, "fifo.npy"))
expect(".npy state is a FIFO", [*sim, "--load", os.path.join(d, "fifo.npy"), "--save", OUT], 2,
       ["fifo.npy", "not a regular file"], timeout=10)
p = run(BOIDS, "sim", "--steps", "2", "--load", npy("f4.npy", rows, descr="<f4"), "--save", OUT)
check(".npy state of '<f4' (the trajectory dtype) loads", p.returncode == 0, p.stderr)
os.unlink(OUT)
os.unlink(OUT + ".json")

# ---- state sidecars (issue 19, item 5): one message naming the sidecar and its key ----------
good_state = H + "1,2,0.5,0\n3,4,0,0.5\n"
sidecar_cases = [
    ("malformed JSON", '{"step": 5,', ["s.csv.json:1:12", "expected a key"]),
    ("not an object", '[1, 2]', ["s.csv.json:1:1", "expected '{'"]),
    ("an unknown key", '{"stpe": 5}', ["s.csv.json:1:2", '"stpe"', "unknown key"]),
    ("a key given twice", '{"step": 1, "step": 2}', ["s.csv.json:1:13", '"step"', "twice"]),
    ("a negative step", '{"step": -1}', ['"step"', "-1 is out of range [0, 4294967295]"]),
    ("a step beyond 2^32 - 1", '{"step": 4294967296}', ['"step"', "out of range"]),
    ("a fractional step", '{"step": 2.5}', ['"step"', "integer"]),
    ("a step as a string", '{"step": "5"}', ['"step"', "integer"]),
    ("a noise seed beyond 2^53", '{"noise_seed": 9007199254740993}', ['"noise_seed"', "out of range"]),
    ("the wrong N", '{"step": 5, "n": 3}', ["s.csv.json", '"n"', "3", "holds 2 boids"]),
    ("the wrong dim", '{"dim": 3}', ["s.csv.json", '"dim"', "2-D"]),
    ("a dim of 4", '{"dim": 4}', ["s.csv.json", '"dim"', "out of range"]),
    ("a stale flock hash", '{"step": 5, "flock_hash": "0123456789abcdef"}',
     ["s.csv.json", '"flock_hash"', "changed after the save"]),
    ("a short flock hash", '{"flock_hash": "0x12"}', ['"flock_hash"', "16 hexadecimal digits"]),
    ("text after the object", '{"step": 5} x', ["s.csv.json:1:13", "after the object"]),
    ("a NUL byte", '{"step": 5\x00}', ["s.csv.json:1", "NUL"]),
    ("a sidecar beyond 4096 bytes", '{"step": 5' + " " * 5000 + "}", ["s.csv.json", "4096 bytes"]),
]
for name, text, words in sidecar_cases:
    state = write("s.csv", good_state)
    write("s.csv.json", text)
    expect(f"state sidecar with {name}", [*sim, "--load", state, "--save", OUT], 2, words)
os.unlink(os.path.join(d, "s.csv.json"))
os.mkdir(os.path.join(d, "s.csv.json"))
expect("state sidecar is a folder", [*sim, "--load", write("s.csv", good_state), "--save", OUT], 2,
       ["s.csv.json", "folder"])
os.rmdir(os.path.join(d, "s.csv.json"))
os.mkfifo(os.path.join(d, "s.csv.json"))
expect("state sidecar is a FIFO", [*sim, "--load", write("s.csv", good_state), "--save", OUT], 2,
       ["s.csv.json", "not a regular file"], timeout=10)
os.unlink(os.path.join(d, "s.csv.json"))
write("s.csv.json", '{"step": 5}')
expect("a step line and a sidecar together",
       [*sim, "--load", write("s.csv", "# step=3\n" + good_state), "--save", OUT], 2,
       ["s.csv", "s.csv.json", "step=K"])
os.unlink(os.path.join(d, "s.csv.json"))
os.mkdir(OUT + ".json")
expect("--save whose sidecar path is a folder", [*sim, "--save", OUT], 2, ["out.csv.json", "folder"])
os.rmdir(OUT + ".json")

# ---- plots: no file name is gnuplot code (item 1) -------------------------------------------
sweep = ["sweep", "--preset", "vicsek", "-n", "30", "--key", "noise", "--values", "0.5,2", "--steps", "4",
         "--seeds", "2"]
os.chdir(d)
for name in ["x';system('touch PWNED');set output 'y.png", "it's \"q\".svg", "new\nline.png"]:
    p = run(BOIDS, *sweep, "--plot", os.path.join(d, name))
    check(f"sweep --plot {name!r}: exit 0", p.returncode == 0, p.stderr[-300:])
    check(f"sweep --plot {name!r}: the file has that very name", os.path.isfile(os.path.join(d, name)))
    check(f"sweep --plot {name!r}: no command ran, no stray file",
          not os.path.exists(os.path.join(d, "PWNED")) and not os.path.exists(os.path.join(d, "y.png"))
          and not leftovers(), str(os.listdir(d)))
    os.unlink(os.path.join(d, name))
fakebin = os.path.join(d, "fakebin")
os.mkdir(fakebin)
with open(os.path.join(fakebin, "gnuplot"), "w") as f:
    f.write("#!/bin/sh\nexit 3\n")
os.chmod(os.path.join(fakebin, "gnuplot"), 0o755)
p = run(BOIDS, *sweep, "--out", OUT, "--plot", os.path.join(d, "p.png"),
        env={**os.environ, "PATH": fakebin + ":" + os.environ["PATH"]})
check("sweep with a failing gnuplot: exit 1 naming gnuplot", p.returncode == 1 and "gnuplot" in p.stderr,
      p.stderr[-300:])
check("sweep with a failing gnuplot: neither the CSV nor the plot is left",
      not os.path.exists(OUT) and not os.path.exists(os.path.join(d, "p.png")) and not leftovers())
expect("sweep --plot into a missing folder", [*sweep, "--plot", os.path.join(d, "no", "p.png")], 2,
       ["no/p.png"])

# ---- interrupted runs (item 5) -------------------------------------------------------------
def interrupt(name, args, sig, folder, wait=20):
    """Starts boids, waits until one of its temporary files exists (or wait seconds), sends
    sig; it must end by that signal with no temporary file left."""
    proc = subprocess.Popen([BOIDS, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    seen, t0 = False, time.time()
    while time.time() - t0 < wait and proc.poll() is None:
        if [f for f in os.listdir(folder) if ".tmp" in f]:
            seen = True
            break
        time.sleep(0.0005)
    proc.send_signal(sig)
    rc = proc.wait(timeout=60)
    print(f"     ({name}: signal sent {'while' if seen else 'without seeing'} a temporary file)")
    check(f"{name}: ends by {sig.name}", rc == -sig, f"exit {rc}")
    check(f"{name}: no temporary file left", not leftovers(), str(leftovers()))


frames = os.path.join(d, "frames")
os.mkdir(frames)
big = ["sim", "-n", "400000", "--steps", "0", "--order-only", "--save", OUT]
interrupt("sim --save, SIGINT", big, signal.SIGINT, d)
interrupt("sim --save, SIGTERM", big, signal.SIGTERM, d)
interrupt("render, SIGINT", ["render", "--frames", "100000", "-o", os.path.join(frames, "f%06d.png")],
          signal.SIGINT, frames)
long_sweep = ["sweep", "--preset", "vicsek", "-n", "200", "--key", "noise", "--values", "0.5,2",
              "--steps", "100000", "--seeds", "4"]
interrupt("sweep --plot, SIGTERM", [*long_sweep, "--plot", os.path.join(d, "p.svg")], signal.SIGTERM, d,
          wait=1)
if BENCH:
    bench_out = os.path.join(d, "bench")
    os.mkdir(bench_out)
    # A quick sweep takes about a second and holds its temporary files for microseconds, so a
    # signal aimed at them can arrive after the exit. A stand-in gnuplot that records its pid and
    # sleeps keeps the bench inside its plot step (its private folder and the plots' files exist)
    # until the signal comes: the interruption is certain, not a race.
    slowbin, plot_tmp = os.path.join(d, "slowbin"), os.path.join(d, "plot-tmp")
    os.mkdir(slowbin)
    os.mkdir(plot_tmp)
    pidfile = os.path.join(d, "gnuplot.pid")
    with open(os.path.join(slowbin, "gnuplot"), "w") as f:
        f.write(f"#!/bin/sh\necho $$ > '{pidfile}'\nexec sleep 120\n")
    os.chmod(os.path.join(slowbin, "gnuplot"), 0o755)
    proc = subprocess.Popen([BENCH, "--quick", "--out", bench_out], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL,
                            env={**os.environ, "PATH": slowbin + ":" + os.environ["PATH"],
                                 "TMPDIR": plot_tmp})
    t0 = time.time()
    while time.time() - t0 < 120 and proc.poll() is None and not os.path.exists(pidfile):
        time.sleep(0.01)
    in_plot = proc.poll() is None and os.path.exists(pidfile)
    check("boids-bench, SIGINT: the signal comes while gnuplot runs", in_plot)
    proc.send_signal(signal.SIGINT)
    rc = proc.wait(timeout=60)
    if os.path.exists(pidfile):
        with open(pidfile) as f:
            try:
                os.kill(int(f.read().strip()), signal.SIGKILL)
            except (ValueError, ProcessLookupError):
                pass
    check("boids-bench, SIGINT: ends by SIGINT", rc == -signal.SIGINT, f"exit {rc}")
    check("boids-bench, SIGINT: no temporary file or plot folder left",
          not leftovers() and not os.listdir(plot_tmp), str(leftovers() + os.listdir(plot_tmp)))
    with open("/dev/full", "w") as full:
        p = subprocess.run([BENCH, "--quick", "--no-plot", "--out", bench_out], stdout=full,
                           stderr=subprocess.PIPE, text=True)
    check("boids-bench with stdout on a full disk: exit 1 naming stdout",
          p.returncode == 1 and "stdout" in p.stderr, p.stderr[-300:])
for f in os.listdir(d):
    if f in ("p.svg", "out.csv"):
        os.unlink(os.path.join(d, f))

# ---- parameter values (item 7, the core part) ----------------------------------------------
for name, arg, words in [
    ("noise just above 2 pi", "noise=6.28319", ["noise", "6.283185307179586]"]),
    ("noise_seed above 2^53", "noise_seed=9007199254740993", ["noise_seed", "9007199254740992"]),
    ("noise_seed not an integer", "noise_seed=1e3", ["noise_seed", "integer"]),
    ("width underflowing to 0", "width=1e-400", ["width", "out of range", "small"]),
    ("width overflowing", "width=1e400", ["width", "out of range", "large"]),
]:
    expect(name, [*sim, "--set", arg, "--save", OUT], 2, words)
# The device limit comes before a flock of 30 million boids is allocated and filled (seconds).
t0 = time.time()
gpu_check = run(BOIDS, "sim", "--backend", "gpu", "-n", "10", "--steps", "0")
if gpu_check.returncode == 0:
    expect("gpu N far beyond the device", ["sim", "--backend", "gpu", "-n", "30000000", "--save", OUT], 2,
           ["30000000", "largest N"])
    check("gpu N far beyond the device: refused before the flock is made", time.time() - t0 < 5,
          f"{time.time() - t0:.1f} s")
p = run(BOIDS, "params", "--set", "noise_seed=9007199254740992", "--set", "wall_margin=5e-324")
check("noise_seed = 2^53 and a subnormal value are accepted", p.returncode == 0, p.stderr)

# ---- the sweep journal (issue 19, item 9) ---------------------------------------------------
# A journal holds runs someone waited for: never truncated without --resume, never shared by
# two sweeps, never written through a link or waited on as a FIFO, and every row checked on
# resume (the message names the file, the line and the column).
jd = os.path.join(d, "journal")
os.mkdir(jd)
JR = os.path.join(jd, "r.csv")
JOURNAL = JR + ".partial"
jsweep = ["sweep", "--preset", "vicsek", "-n", "30", "--key", "noise", "--values", "0.5,2", "--steps",
          "20", "--seeds", "2"]
p = run(BOIDS, *jsweep, "--runs-out", JR)
check("journal: the reference sweep runs", p.returncode == 0, p.stderr[-300:])
with open(JR) as f:
    ref_runs, ref_table = f.read(), p.stdout
os.unlink(JR)
os.unlink(JR + ".json")
header, row1, row2 = ref_runs.splitlines()[:3]


def field(row, i, value):
    cols = row.split(",")
    cols[i] = value
    return ",".join(cols)


def journal_case(name, data, args, rc, words, timeout=30):
    """Writes data (text, or None to leave the path as it is) as the journal, runs the sweep,
    and checks exit code, message and that the journal's bytes are as they were."""
    if data is not None:
        with open(JOURNAL, "wb") as f:
            f.write(data.encode() if isinstance(data, str) else data)
    before = open(JOURNAL, "rb").read() if os.path.isfile(JOURNAL) else None
    expect(f"journal: {name}", [*jsweep, "--runs-out", JR, *args], rc, words, timeout=timeout)
    after = open(JOURNAL, "rb").read() if os.path.isfile(JOURNAL) else None
    check(f"journal: {name}: the journal is unchanged", before == after)
    check(f"journal: {name}: no runs file written", not os.path.exists(JR))


done_two = f"{header}\n{row1}\n{row2}\n"
journal_case("a sweep without --resume beside a journal of finished runs", done_two, [], 2,
             ["r.csv.partial", "--resume", "remove it"])
bad_rows = [
    ("an order of 5", field(row1, 7, "5"), ["line 2", "order_avg", "[0, 1]"]),
    ("a milling of nan", field(row1, 8, "nan"), ["line 2", "milling_avg", "nan"]),
    ("a distance of inf", field(row1, 9, "inf"), ["line 2", "nn_distance_avg", "finite"]),
    ("more neighbours than boids", field(row1, 10, "30"), ["line 2", "neighbours_avg", "[0, 29]"]),
    ("999 samples", field(row1, 6, "999"), ["line 2", "samples", "999", "2 samples"]),
    ("a swept value that is not the run's", field(row1, 4, "2"), ["line 2", "noise", "'2'", "'0.5'"]),
    ("a seed that is not the run's", field(row1, 5, "7"), ["line 2", "seed", "'7'", "'0'"]),
    ("a world that is not the run's", field(row1, 2, "11"), ["line 2", "width", "'11'", "'10'"]),
    ("a run twice", row1 + "\n" + row1, ["line 3", row1.split(",")[0], "second time"]),
    ("a NUL byte", row1[:5] + "\0" + row1[5:], ["line 2", "NUL"]),
]
for name, rows, words in bad_rows:
    journal_case(f"resumed with {name}", f"{header}\n{rows}\n", ["--resume"], 2,
                 ["r.csv.partial", *words])
os.unlink(JOURNAL)

# CRLF line ends and a UTF-8 byte order mark are what an editor may leave: both accepted.
for name, data in [("CRLF line ends", done_two.replace("\n", "\r\n")),
                   ("a UTF-8 byte order mark", "\ufeff" + done_two)]:
    with open(JOURNAL, "wb") as f:
        f.write(data.encode())
    p = run(BOIDS, *jsweep, "--runs-out", JR, "--resume")
    check(f"journal with {name}: resumed, 2 runs done", p.returncode == 0 and
          "resuming: 2 of 4 runs already done" in p.stderr, p.stderr[-300:])
    check(f"journal with {name}: the same table and runs file as one sweep",
          p.stdout == ref_table and open(JR).read() == ref_runs)
    for f_ in (JR, JR + ".json"):
        os.unlink(f_)

# Not a regular file: refused at once (a FIFO is not waited on), the thing left as it was.
target = os.path.join(jd, "precious.csv")
with open(target, "w") as f:
    f.write("keep me\n")
os.symlink(target, JOURNAL)
for args in ([], ["--resume"]):
    journal_case(f"a symbolic link {' '.join(args)}", None, args, 2, ["r.csv.partial", "symbolic link"])
check("journal: the link's target is untouched", open(target).read() == "keep me\n")
os.unlink(JOURNAL)
os.mkfifo(JOURNAL)
for args in ([], ["--resume"]):
    journal_case(f"a FIFO {' '.join(args)}", None, args, 2, ["r.csv.partial", "FIFO"], timeout=10)
os.unlink(JOURNAL)

# Two sweeps on one --runs-out: the second is refused while the first holds the lock, and the
# first one's journal stays a clean table.
long_j = ["sweep", "--preset", "vicsek", "-n", "200", "--key", "noise", "--values", "0.5,2", "--steps",
          "100000", "--seeds", "4", "--runs-out", JR]
first = subprocess.Popen([BOIDS, *long_j], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
t0 = time.time()
while time.time() - t0 < 20 and not (os.path.isfile(JOURNAL) and os.path.getsize(JOURNAL) > 0):
    time.sleep(0.01)
for args in ([], ["--resume"]):
    journal_case(f"a second sweep {' '.join(args)} while one runs", None, args, 2,
                 ["r.csv.partial", "another sweep"])
check("journal: the first sweep is still running", first.poll() is None)
first.send_signal(signal.SIGTERM)
first.wait(timeout=60)
with open(JOURNAL, "rb") as f:
    data = f.read()
check("journal: the first sweep's journal is its header, no NUL byte",
      data.startswith(header.encode()) and b"\0" not in data, repr(data[:200]))

finish()
