#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Hostile input, the classes of issue 30 (docs/cli.md, "Hostile input"): files of one command
that reach one file, interrupted writes, FIFOs in place of inputs, sidecars read strictly, and the
messages of a full disk and of names that cannot be made. Each case is refused with exit code 2
and one message naming what is wrong (for a collision: both options), and leaves every file that
was there as it was and no new one.

usage: hostile_classes_test.py BOIDS_BINARY [BOIDS_BENCH_BINARY]
"""
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import time

from harness import check, finish, one_message, run, tmpdir, write_file

BOIDS = os.path.abspath(sys.argv[1])
BENCH = os.path.abspath(sys.argv[2]) if len(sys.argv) > 2 and sys.argv[2] else None
d = tmpdir()
os.chdir(d)
NOGUI = {**os.environ, "DISPLAY": "", "WAYLAND_DISPLAY": ""}  # refusals come before a window


def write(name, data):
    return write_file(d, name, data)


def snapshot():
    """Every file and folder under d with its bytes (None for a folder or a FIFO)."""
    out = {}
    for root, dirs, files in os.walk(d):
        for n in dirs + files:
            p = os.path.join(root, n)
            out[p] = open(p, "rb").read() if os.path.isfile(p) and not os.path.islink(p) else None
    return out


def refused(name, cmd, words, timeout=60, env=None, rc=2):
    """cmd (argv after the program) must exit with rc and one line naming each of words,
    leaving the folder as it was: no file changed, none made, no temporary file."""
    before = snapshot()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        check(f"{name}: ends within {timeout} s (no hang)", False)
        return None
    one_message(name, p, words, rc)
    after = snapshot()
    check(f"{name}: every file as it was, none added", before == after,
          str(sorted(set(after) ^ set(before)) or
              [k for k in after if after[k] != before.get(k)]))
    return p


# ---- outputs that collide: every command, up front ------------------------------------------
SIM = [BOIDS, "sim", "-n", "20", "--steps", "2000000000"]  # never reaches its steps when refused
cfg = write("c.ini", "noise = 0.5\n")
os.mkdir("sub")
os.symlink("sub", "lnk")
p = run(BOIDS, "sim", "-n", "20", "--steps", "3", "--save", "s.csv", "--trajectory", "t.npy",
        "--series", "ser.csv", "--every", "1")
check("the inputs of the cases are made", p.returncode == 0, p.stderr[-300:])
write("old.csv", "precious\n")
write("old.csv.json", "{}\n")
for name, args, words in [
    ("sim: --save and --series on one file", ["--save", "o.csv", "--series", "o.csv"],
     ["--save o.csv", "--series o.csv"]),
    ("sim: --series on an existing file and --trajectory on it as ./x",
     ["--series", "old.csv", "--trajectory", "./old.csv"], ["--series old.csv", "--trajectory ./old.csv"]),
    ("sim: --meta on --save's sidecar", ["--save", "o.csv", "--meta", "o.csv.json"],
     ["sidecar o.csv.json of --save", "--meta o.csv.json"]),
    ("sim: --save on --series' sidecar", ["--series", "old.csv", "--save", "old.csv.json"],
     ["sidecar old.csv.json of --series", "--save old.csv.json"]),
    ("sim: --save on a .pvd trajectory's frames' folder", ["--trajectory", "tr.pvd", "--save", "tr"],
     ["frames' folder tr of --trajectory", "--save tr"]),
    ("sim: one file through a linked folder", ["--estimates", "sub/e.csv", "--correlation", "lnk/e.csv"],
     ["--estimates sub/e.csv", "--correlation lnk/e.csv"]),
    ("sim: one file through sub/..", ["--checkpoint-every", "1", "--checkpoint", "k.csv",
                                      "--fluctuations", "sub/../k.csv"],
     ["--checkpoint k.csv", "--fluctuations sub/../k.csv"]),
    ("sim: --save and --checkpoint on one state", ["--checkpoint-every", "1", "--checkpoint", "k.csv",
                                                   "--save", "k.csv"], ["--save k.csv", "--checkpoint k.csv"]),
    ("sim: an output on --config", ["--config", "c.ini", "--series", "c.ini"],
     ["--config c.ini", "--series c.ini", "input"]),
    ("sim: an output on --load's sidecar", ["--load", "s.csv", "--meta", "s.csv.json"],
     ["sidecar s.csv.json of --load", "--meta s.csv.json"]),
]:
    refused(name, [*SIM, *args], words)
os.link("old.csv", "hard.csv")
refused("sim: two names of one file (a hard link)", [*SIM, "--save", "old.csv", "--series", "hard.csv"],
        ["--save old.csv", "--series hard.csv"])
os.unlink("hard.csv")
p = run(BOIDS, "sim", "--steps", "2", "--load", "s.csv", "--save", "s2.csv")
p2 = run(BOIDS, "sim", "--steps", "2", "--load", "s.csv", "--save", "s.csv")
check("sim: a state saved over the state it loaded is allowed (read whole first)",
      p.returncode == 0 and p2.returncode == 0 and open("s.csv").read() == open("s2.csv").read(),
      p2.stderr[-300:])

SWEEP = [BOIDS, "sweep", "--preset", "vicsek", "-n", "20", "--key", "noise", "--values", "1",
         "--steps", "2000000000", "--seeds", "1"]
for name, args, words in [
    ("sweep: --out on --runs-out's journal", ["--out", "r.csv.partial", "--runs-out", "r.csv"],
     ["--out r.csv.partial", "journal r.csv.partial of --runs-out"]),
    ("sweep: --out and --runs-out on one file", ["--out", "r.csv", "--runs-out", "./r.csv"],
     ["--out r.csv", "--runs-out ./r.csv"]),
    ("sweep: --meta on --out's sidecar", ["--out", "old.csv", "--meta", "old.csv.json"],
     ["sidecar old.csv.json of --out", "--meta old.csv.json"]),
    ("sweep: --plot on --config", ["--config", "p.svg", "--plot", "p.svg"], ["--config p.svg", "--plot p.svg"]),
]:
    if "p.svg" in args:
        write("p.svg", "noise = 1\n")
    refused(name, [*SWEEP, *args], words)
os.unlink("p.svg")
# --series-dir writes DIR/RUN_ID.csv: an output named as one of those is refused before any run.
os.mkdir("runs")
SHORT = [*SWEEP[:SWEEP.index("--steps")], "--steps", "5", "--seeds", "1"]
p = run(*SHORT, "--series-dir", "runs")
run_files = sorted(os.listdir("runs"))
check("sweep --series-dir: one file per run, named by its id", p.returncode == 0 and
      len(run_files) == 1 and run_files[0].endswith(".csv"), p.stderr[-300:])
shutil.rmtree("runs")
os.mkdir("runs")
write(f"runs/{run_files[0]}", "noise = 1\n")
for name, args, words in [
    ("sweep: --out on a --series-dir run file", ["--out", f"lnk/../runs/{run_files[0]}"],
     [f"--out lnk/../runs/{run_files[0]}", "--series-dir runs", run_files[0][:-4]]),
    ("sweep: --config read from a --series-dir run file", ["--config", f"runs/{run_files[0]}"],
     [f"--config runs/{run_files[0]}", "--series-dir runs"]),
]:
    refused(name, [*SHORT, "--series-dir", "runs", *args], words)
shutil.rmtree("runs")

for frame in ("f0.ini", "f2.ini"):  # the first and the last of 3 frames
    write(frame, "noise = 1\n")
    refused(f"render: frame {frame} on --config", [BOIDS, "render", "--frames", "3", "--config", frame,
                                                  "-o", "f%d.ini"], [f"--config {frame}", f"--output {frame}"])
    os.unlink(frame)
shutil.copy("t.npy", "t0.npy")
shutil.copy("t.npy.json", "t0.npy.json")
refused("render: a frame on --replay", [BOIDS, "render", "--replay", "t0.npy", "--frames", "1",
                                        "-o", "t%d.npy"], ["--replay t0.npy", "--output t0.npy"])
os.unlink("t0.npy")
os.unlink("t0.npy.json")

VIEW = [BOIDS, "view", "--frames", "1"]
refused("view: --screenshot on --series", [*VIEW, "--replay", "t.npy", "--series", "ser.csv",
                                          "--screenshot", "ser.csv"], ["--series ser.csv", "--screenshot ser.csv"],
        env=NOGUI)
refused("view: --record on --replay's sidecar", [*VIEW, "--replay", "t.npy", "--record", "t.npy.json"],
        ["sidecar t.npy.json of --replay", "--record t.npy.json"], env=NOGUI)
refused("view: --screenshot on --load", [*VIEW, "--load", "s.csv", "--screenshot", "s.csv"],
        ["--load s.csv", "--screenshot s.csv"], env=NOGUI)
if BENCH:
    os.mkdir("b")
    write("b/bench.json", "noise = 1\n")
    refused("boids-bench: --out's bench.json is --config", [BENCH, "--quick", "--config", "b/bench.json",
                                                           "--out", "b"], ["--config b/bench.json", "--out b/bench.json"])

# ---- interrupted writes ----------------------------------------------------------------------
refused("view --screenshot without --frames", [BOIDS, "view", "--screenshot", "shot.png"],
        ["--screenshot shot.png", "--frames"], env=NOGUI)
if BENCH:
    write("b/bench.csv", "older,sweep\n")
    write("b/bench.json", '{"older": "sweep"}\n')
    before = snapshot()
    # One point (2,000 boids) is done in about a second; the second (100,000 boids, 100 reps)
    # takes many more, so the signal comes while the sweep runs, after its first point.
    proc = subprocess.Popen([BENCH, "--no-plot", "--sizes", "2000,100k", "--backends", "cpu-1t",
                             "--reps", "100", "--warmup", "0", "--out", "b"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    t0 = time.time()
    while time.time() - t0 < 120 and proc.poll() is None and not os.path.exists("b/bench.partial.csv"):
        time.sleep(0.01)
    running = proc.poll() is None
    proc.send_signal(signal.SIGINT)
    rc = proc.wait(timeout=60)
    check("boids-bench, SIGINT mid-sweep: the signal came while it ran, after a point", running)
    check("boids-bench, SIGINT mid-sweep: ends by SIGINT", rc == -signal.SIGINT, f"exit {rc}")
    check("boids-bench, SIGINT mid-sweep: the older bench.csv and bench.json as they were",
          all(open(f, "rb").read() == before[os.path.join(d, f)] for f in ("b/bench.csv", "b/bench.json")))
    rows = open("b/bench.partial.csv").read().splitlines() if os.path.exists("b/bench.partial.csv") else []
    check("boids-bench, SIGINT mid-sweep: what it measured is in bench.partial.csv",
          len(rows) >= 2 and rows[1].startswith("cpu-1t,ok,2000,"), str(rows[:3]))
    check("boids-bench, SIGINT mid-sweep: no temporary file",
          not [f for f in os.listdir("b") if ".tmp" in f], str(os.listdir("b")))
    shutil.rmtree("b")

# ---- FIFOs in place of inputs: refused, not waited on ----------------------------------------
os.mkfifo("fifo")
for name, cmd, env in [
    ("--config", [*SIM, "--config", "fifo"], None),
    ("--load (state)", [*SIM, "--load", "fifo"], None),
    ("render --replay", [BOIDS, "render", "--replay", "fifo", "-o", "x%d.png"], None),
    ("view --series", [*VIEW, "--replay", "t.npy", "--series", "fifo"], NOGUI),
]:
    refused(f"a FIFO as {name}", cmd, ["fifo", "FIFO"], timeout=20, env=env)
os.rename("t.npy.json", "t.json.keep")
os.mkfifo("t.npy.json")
refused("a FIFO as --replay's sidecar", [BOIDS, "render", "--replay", "t.npy", "-o", "x%d.png"],
        ["t.npy.json", "FIFO"], timeout=20)
os.unlink("t.npy.json")
os.rename("t.json.keep", "t.npy.json")
os.unlink("fifo")

# ---- the trajectory's sidecar and --series, read strictly ------------------------------------
good = open("t.npy.json").read()
doc = json.loads(good)


def sidecar_case(name, text, words):
    write("t.npy.json", text)
    refused(f"sidecar with {name}", [BOIDS, "render", "--replay", "t.npy", "-o", "x%d.png"],
            ["t.npy.json", *words])


long_doc = json.loads(good)
long_doc["parameters"]["values"]["separation_weight"] = "0" * 130 + "10"  # cut at 127: 0
sidecar_case("a string longer than its limit", json.dumps(long_doc), ["separation_weight", "longer"])
key = '"separation_weight":\t'
at = good.index(key)
sidecar_case("a key given twice", good[:at] + key + "0, " + good[at:], ["separation_weight", "twice"])
for field, value, words in [("every", 2.5, ["sample_steps.every", "2.5"]),
                            ("first", -1, ["sample_steps.first", "-1"])]:
    bad = json.loads(good)
    bad["output"]["sample_steps"][field] = value
    sidecar_case(f"sample_steps.{field} = {value}", json.dumps(bad), words)
sidecar_case("a number beyond a double", good.replace(key, key + "1e999, \"x_\": ", 1),
             ["separation_weight", "finite"])
write("t.npy.json", good)
series = open("ser.csv").read().splitlines()
col = series[0].split(",").index("order")
for value in ["1.5", "inf", "-0.25"]:
    cells = series[2].split(",")
    cells[col] = value
    write("bad_series.csv", "\n".join(series[:2] + [",".join(cells)] + series[3:]) + "\n")
    refused(f"--series with an order of {value}", [*VIEW, "--replay", "t.npy", "--series", "bad_series.csv"],
            ["bad_series.csv:3", value, "[0, 1]"], env=NOGUI)

# ---- messages ----------------------------------------------------------------------------------
def full_disk():
    """Every file this process writes may hold 16 bytes: as on a full disk, the state and its
    sidecar both fail to be written."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (16, 16))


p = subprocess.run([BOIDS, "sim", "-n", "400", "--steps", "0", "--save", "full.csv"], capture_output=True,
                   text=True, preexec_fn=full_disk)
one_message("a full disk", p, ["full.csv:", "writing failed"], 1)
check("a full disk: the message names the state, not its sidecar", "full.csv.json" not in p.stderr,
      p.stderr)
check("a full disk: nothing left", not [f for f in os.listdir(d) if f.startswith("full")])
os.mkdir("x")
refused("--trajectory x/..pvd, before the run", [*SIM, "--trajectory", "x/..pvd"], ["x/..pvd", "'x/.'"])


def four_gib():
    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))  # a billion boids cannot be made


# AddressSanitizer reserves terabytes of address space for its shadow memory: under it (the
# sanitizer build sets ASAN_OPTIONS) the cap cannot be set, and the case is left out.
if "ASAN_OPTIONS" not in os.environ:
    p = subprocess.run([BOIDS, "sweep", "--preset", "vicsek", "--key", "noise", "--values", "1",
                        "--counts", "1000000000", "--steps", "10", "--seeds", "1", "--jobs", "1",
                        "--backend", "cpu-ref"], capture_output=True, text=True, preexec_fn=four_gib,
                       timeout=300)
    check("sweep --counts 1000000000 on cpu-ref: a real estimate, not 'about ?'",
          "about ?" not in p.stderr and " years" in p.stderr, p.stderr[-500:])

if shutil.which("xvfb-run"):
    p = subprocess.run(["xvfb-run", "-a", "-s", "-screen 0 640x480x24", BOIDS, "view", "--replay", "t.npy",
                        "--frames", "4", "--keys", "1:1,2:2"], capture_output=True, text=True, timeout=120)
    check("view --replay, keys 1 and 2: runs", p.returncode == 0, p.stderr[-400:])
    check("view --replay, keys 1 and 2: no 'restarted without' where nothing restarts",
          "restarted" not in p.stderr and "parameters stay" in p.stderr, p.stderr[-400:])

finish()
