#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Bad input of every kind: one message naming what and where, exit code 2, no output file.

usage: cli_test.py BOIDS_BINARY BENCH_BINARY
"""
import os
import sys

from harness import check, finish, one_message, run, tmpdir

BOIDS = sys.argv[1]
BENCH = sys.argv[2]
d = tmpdir()


def write(name, text):
    path = os.path.join(d, name)
    with open(path, "w") as f:
        f.write(text)
    return path


GOOD_STATE = "x,y,vx,vy\n1,2,0.5,0\n3,4,0,0.5\n"
cfg_unknown = write("unknown.ini", "# comment\nvision_radius = 40\nbogus_key = 3\n")
cfg_value = write("value.ini", "; comment\nvision_radius = fifty\n")
cfg_syntax = write("syntax.ini", "vision_radius = 40\n\nnot a pair\n")
cfg_section = write("section.ini", "[world]\nwidth = 10\n")
# The look's lines: only `boids view` and `boids render` read them (the points and
# obstacles every command reads: below).
cfg_viewer = write("viewer.ini", "vision_radius = 40\nview.background = #000000\n")
cfg_range = write("range.ini", "width = 400\nheight = 400\nfov = 400\n")
st_malformed = write("malformed.csv", "x,y,vx,vy\n1,2,0.5,0\n3,four,0,0.5\n")
st_columns = write("columns.csv", "x,y,vx,vy\n1,2,0.5,0\n3,4,0\n")
st_empty = write("empty.csv", "")
st_header = write("header.csv", "a,b,c,d\n1,2,3,4\n")
st_nan = write("nan.csv", "x,y,vx,vy\n1,2,nan,0\n")
st_inf = write("inf.csv", "x,y,vx,vy\n1,2,0,0\n1,2,0,-inf\n")
st_outside = write("outside.csv", "x,y,vx,vy\n1,2,0,0\n950,2,0,0\n")
st_noboids = write("noboids.csv", "x,y,vx,vy\n")
st_good = write("good.csv", GOOD_STATE)
missing = os.path.join(d, "missing.csv")
# A state of the other dimension: a 3-D one as `boids sim` saves it (its sidecar says dim 3).
st_3d = os.path.join(d, "state3.csv")
run(BOIDS, "sim", "--set", "dim=3", "-n", "10", "--steps", "0", "--save", st_3d, check_rc=0)

cases = [
    # (name, args, words the message must contain)
    ("unknown key", ["--set", "bogus=1"], ["bogus", "--set"]),
    ("unknown preset", ["--preset", "nope"], ["nope", "preset"]),
    ("malformed number", ["--set", "vision_radius=abc"], ["vision_radius", "abc"]),
    ("trailing junk", ["--set", "vision_radius=50px"], ["vision_radius", "50px"]),
    ("NaN value", ["--set", "max_speed=nan"], ["max_speed", "finite"]),
    ("Inf value", ["--set", "max_force=inf"], ["max_force", "finite"]),
    ("negative radius", ["--set", "separation_radius=-5"], ["separation_radius", "-5", "range"]),
    ("zero vision radius", ["--set", "vision_radius=0"], ["vision_radius", "range"]),
    ("fov above 360", ["--set", "fov=361"], ["fov", "361"]),
    ("min speed above max", ["--preset", "classic", "--set", "min_speed=5"], ["min_speed", "max_speed"]),
    ("bad boundary", ["--set", "boundary=torus"], ["boundary", "torus", "wrap"]),
    ("bad --model", ["--model", "boids3d"], ["--model", "boids3d", "reynolds"]),
    ("bad --neighbours", ["--neighbours", "voronoi"], ["--neighbours", "voronoi", "topological"]),
    ("k out of range", ["-k", "0"], ["-k", "k = 0"]),
    ("bad boolean", ["--set", "predator=maybe"], ["predator", "maybe"]),
    ("--set without =", ["--set", "vision_radius"], ["--set", "KEY=VALUE"]),
    ("step longer than half the world", ["--preset", "classic", "--set", "max_speed=250"],
     ["max_speed * dt"]),
    ("step longer than half the depth", ["--set", "dim=3", "--set", "depth=5"],
     ["max_speed * dt", "depth"]),
    ("dim = 4", ["--set", "dim=4"], ["--set", "dim = 4", "[2, 3]"]),
    ("missing config", ["--config", os.path.join(d, "none.ini")], ["none.ini", "cannot open"]),
    ("config unknown key", ["--config", cfg_unknown], ["unknown.ini:3", "bogus_key"]),
    ("config bad value", ["--config", cfg_value], ["value.ini:2", "vision_radius", "fifty"]),
    ("config syntax", ["--config", cfg_syntax], ["syntax.ini:3", "syntax"]),
    ("config section", ["--config", cfg_section], ["section.ini:", "[world]"]),
    ("config viewer-only line", ["--config", cfg_viewer], ["viewer.ini:2", "view.background"]),
    ("config out of range", ["--config", cfg_range], ["range.ini:3", "fov", "400"]),
    ("state malformed line", ["--load", st_malformed], ["malformed.csv:3", "y", "four"]),
    ("state column count", ["--load", st_columns], ["columns.csv:3", "columns"]),
    ("state empty file", ["--load", st_empty], ["empty.csv", "empty"]),
    ("state bad header", ["--load", st_header], ["header.csv:1", "header"]),
    ("state NaN", ["--load", st_nan], ["nan.csv:2", "vx", "finite"]),
    ("state Inf", ["--load", st_inf], ["inf.csv:3", "vy", "finite"]),
    ("state outside world", ["--load", st_outside], ["outside.csv:3", "outside"]),
    ("state without boids", ["--load", st_noboids], ["noboids.csv", "no boids"]),
    ("state missing", ["--load", missing], ["missing.csv", "cannot open"]),
    ("a 3-D state under dim = 2", ["--load", st_3d], ["state3.csv", "3-D", "dim = 2"]),
    ("a 2-D state under dim = 3", ["--set", "dim=3", "--load", st_good],
     ["good.csv", "2-D", "dim = 3"]),
    ("count disagrees with state", ["--load", st_good, "-n", "5"], ["--count", "good.csv"]),
    ("count zero", ["-n", "0"], ["--count", "0"]),
    ("count not a number", ["-n", "many"], ["--count", "many"]),
    ("negative steps", ["--steps", "-1"], ["--steps", "-1"]),
    ("every zero", ["--every", "0"], ["--every"]),
    ("negative seed", ["--seed", "-1"], ["--seed"]),
    ("unknown backend", ["--backend", "tpu"], ["--backend", "tpu"]),
    ("gpu k beyond its limit", ["--backend", "gpu", "--set", "neighbours=topological", "--set", "k=200"],
     ["k = 200", "128"]),
    # Beyond llvmpipe's 16,777,216 (128 MiB storage blocks, 8 bytes a boid in one block).
    ("gpu N beyond the device", ["--backend", "gpu", "-n", "20000000"], ["largest N"]),
    ("unknown option", ["--frobnicate"], ["--frobnicate"]),
    ("missing value", ["--steps"], ["--steps"]),
    ("stray argument", ["extra"], ["extra"]),
]
for name, args, words in cases:
    out = os.path.join(d, "out.csv")
    p = run(BOIDS, "sim", "--steps", "3", *args, "--save", out)
    one_message(name, p, words)
    check(f"{name}: no output file", not os.path.exists(out))
    check(f"{name}: no temporary file", not [f for f in os.listdir(d) if ".tmp" in f])
    check(f"{name}: nothing on stdout", p.stdout == "", repr(p.stdout[:200]))

# Hostile command lines, every command: exit 2 before any work, one line naming the flag
# (or operand) and the value, nothing on stdout, and nothing left in the folder it ran in,
# where every output of these commands would go (render's frames, boids-bench's files,
# temporary files).
no_display = dict(os.environ, DISPLAY="", WAYLAND_DISPLAY="")
long_name = "a" * 5000 + "%d.png"
hostile = [
    # (command line after the program, words the message must contain)
    (["verify", "--seeds", "-1"], ["--seeds", "-1"]),
    (["verify", "--backends", "cpu,", "--seeds", "0"], ["--backends", "cpu,", "empty item"]),
    (["verify", "--backends", ",cpu", "--seeds", "0"], ["--backends", ",cpu", "empty item"]),
    (["verify", "--backends", "cpu,cpu", "--seeds", "0"], ["--backends", "'cpu'", "twice"]),
    (["verify", "--scenarios", "n1,,n2", "--seeds", "0"], ["--scenarios", "n1,,n2", "empty item"]),
    (["verify", "--scenarios", "n1,n1", "--seeds", "0"], ["--scenarios", "'n1'", "twice"]),
    (["verify", "--curve-count", "0"], ["--curve-count", "0"]),
    (["verify", "--every", "6e"], ["--every", "6e"]),
    (["render", "--size", "16384x16384", "--frames", "1"], ["--size", "16384x16384", "8192x8192"]),
    (["render", "--size", "99999999999999999999x16"], ["--size", "99999999999999999999x16"]),
    (["render", "--size", "32x32x"], ["--size", "32x32x"]),
    (["render", "--size", " 32x32"], ["--size", " 32x32"]),
    (["render", "-o", "%99999d.png"], ["--output", "%99999d", "%09d"]),
    (["render", "-o", "%10d.png"], ["--output", "%10d", "%09d"]),
    (["render", "-o", "%-5d.png"], ["--output", "%-5d.png", "%d-style"]),
    (["render", "-o", "%s.png"], ["--output", "%s.png", "%d-style"]),
    (["render", "-o", "%d-%d.png"], ["--output", "%d-%d.png", "exactly one"]),
    (["render", "-o", "100%%.png"], ["--output", "100%%.png", "exactly one"]),
    (["render", "-o", ""], ["--output", "''", "empty"]),
    (["render", "-o", long_name], ["--output", "longer than"]),
    (["render", "--frames", "0"], ["--frames", "0"]),
    (["render", "--frames", "1.5"], ["--frames", "1.5"]),
    (["render", "--boid-size", "1q"], ["--boid-size", "1q"]),
    (["render", "--size", "32x32", "--size", "64x64"], ["--size", "32x32", "64x64", "twice"]),
    (["sim", "-n", "-5"], ["--count", "-5"]),
    (["sim", "-n", "10x"], ["--count", "10x"]),
    (["sim", "-n", " 5"], ["--count", " 5"]),
    (["sim", "-n", "99999999999999999999"], ["--count", "99999999999999999999"]),
    (["sim", "--steps", "99999999999999999999"], ["--steps", "99999999999999999999"]),
    (["sim", "--steps", "3x"], ["--steps", "3x"]),
    (["sim", "--seed", " -1"], ["--seed", " -1"]),
    (["sim", "--seed", "18446744073709551616"], ["--seed", "18446744073709551616"]),
    (["sim", "--seed", "5x"], ["--seed", "5x"]),
    (["sim", "--threads", "0"], ["--threads", "0"]),
    (["sim", "--threads", "2x"], ["--threads", "2x"]),
    (["sim", "--steps", "3", "--steps", "4"], ["--steps", "'3'", "'4'", "twice"]),
    (["sim", "-n", "5", "--count", "6"], ["--count", "'5'", "'6'", "twice"]),
    (["sim", "--preset", "classic", "--preset", "lab"], ["--preset", "classic", "lab", "twice"]),
    (["sim", "--neighbours", "metric", "--neighbors", "topological"],
     ["--neighbours", "metric", "topological", "twice"]),
    (["sim", "--fast", "--deterministic"], ["--deterministic", "conflicts", "--fast"]),
    (["sim", "--save", "a.csv", "--save", "b.csv"], ["--save", "a.csv", "b.csv", "twice"]),
    (["sim", "--order-only", "--order-only"], ["--order-only", "twice"]),
    (["sweep", "--key", "", "--values", "1"], ["--key", "''", "empty"]),  # --values needs a key
    (["sweep", "--key", "noise", "--values", "1", "--seeds", "-3"], ["--seeds", "-3"]),
    (["sweep", "--key", "noise", "--values", "1", "--out", "a.csv", "--out", "b.csv"],
     ["--out", "a.csv", "b.csv", "twice"]),
    (["sweep", "--key", "noise", "--values", "1", "--density", "1e999"], ["--density", "1e999"]),
    (["view", "--msaa", "2", "--msaa", "4"], ["--msaa", "'2'", "'4'", "twice"]),
]
bench_hostile = [
    (["--sizes", "1k,,2k"], ["--sizes", "1k,,2k", "empty item"]),
    (["--sizes", "1e999"], ["--sizes", "1e999"]),
    (["--backends", "cpu-1t,"], ["--backends", "cpu-1t,", "empty item"]),
    (["--backends", "cpu-1t,cpu-1t"], ["--backends", "'cpu-1t'", "twice"]),
    (["--reps", "0"], ["--reps", "0"]),
    (["--reps", "5", "--reps", "7"], ["--reps", "'5'", "'7'", "twice"]),
]
# Two rules every command keeps, for each command (with what it needs to get that far) and
# each of its text options: a stray operand is refused naming it, and so is an empty value.
stray = [["params"], ["presets"], ["help"], ["--version"], ["sim", "--steps", "1"],
         ["sweep", "--key", "noise", "--values", "1"], ["verify", "--seeds", "0"],
         ["render", "--frames", "1"], ["view"]]
hostile += [([*cmd, "foo"], ["unexpected argument", "foo"]) for cmd in stray]
bench_hostile.append((["--quick", "foo"], ["unexpected argument", "foo"]))
empty = [(["verify", "--seeds", "0"], ["--backends", "--scenarios"]),
         (["sim"], ["--save", "--load", "--config", "--preset", "--set", "--backend"]),
         (["sweep", "--key", "noise"], ["--values"]),
         (["sweep", "--key", "noise", "--values", "1"], ["--counts", "--out", "--plot"]),
         (["view"], ["--screenshot"])]
hostile += [([*cmd, flag, ""], [flag, "''", "empty"]) for cmd, flags in empty for flag in flags]
bench_hostile += [([flag, ""], [flag, "''", "empty"]) for flag in ("--out", "--sizes", "--backends")]
cases_run = [([BOIDS, *args], args, words) for args, words in hostile]
cases_run += [([BENCH, *args], ["boids-bench", *args], words) for args, words in bench_hostile]
for argv, args, words in cases_run:
    name = " ".join(repr(a) if a == "" or " " in a else a for a in args)[:100]
    cwd = tmpdir()
    p = run(*argv, cwd=cwd, env=no_display, timeout=120)
    one_message(name, p, words)
    check(f"{name}: nothing on stdout", p.stdout == "", repr(p.stdout[:200]))
    check(f"{name}: no output or temporary file left", os.listdir(cwd) == [], os.listdir(cwd))
    if not os.listdir(cwd):
        os.rmdir(cwd)

# Unwritable output: refused before the run, nothing created.
bad_out = os.path.join(d, "no-such-folder", "out.csv")
p = run(BOIDS, "sim", "--steps", "3", "--save", bad_out)
check("unwritable --save: exit code 2", p.returncode == 2, p.stderr)
check("unwritable --save: message names the file", "no-such-folder/out.csv" in p.stderr, p.stderr)
check("unwritable --save: no file and no temporary left",
      not os.path.exists(os.path.dirname(bad_out)))
ro = os.path.join(d, "readonly")
os.mkdir(ro)
os.chmod(ro, 0o500)
if os.access(ro, os.W_OK):
    print("skip read-only folder check: running as a user who can write anywhere (root)")
else:
    p = run(BOIDS, "sim", "--steps", "3", "--save", os.path.join(ro, "o.csv"))
    check("read-only folder: exit code 2", p.returncode == 2, p.stderr)
    check("read-only folder: folder left empty", os.listdir(ro) == [])

# The same keys everywhere: every key `boids params` lists is accepted by --set and INI.
p = run(BOIDS, "params", check_rc=0)
rows = [line.split() for line in p.stdout.splitlines()[1:]]
keys = [r[0] for r in rows]
for required in ("width height boundary vision_radius separation_radius max_speed min_speed "
                 "max_force separation_weight alignment_weight cohesion_weight fov dt "
                 "dim depth predator_z food_z").split():
    check(f"`boids params` lists {required}", required in keys)
ini = write("all.ini", "".join(f"{r[0]} = {r[1]}\n" for r in rows))
sets = [a for r in rows for a in ("--set", f"{r[0]}={r[1]}")]
p2 = run(BOIDS, "params", "--config", ini, *sets)
check("every listed key and default value round-trips through INI and --set",
      p2.returncode == 0 and p2.stdout == p.stdout, p2.stderr)
p = run(BOIDS, "params", "--preset", "classic", check_rc=0)
vals = {line.split()[0]: line.split()[1] for line in p.stdout.splitlines()[1:]}
check("classic preset: 400 x 400, radii 50/20, speeds 3/1.5, force 0.05, dt 1",
      (vals["width"], vals["height"], vals["vision_radius"], vals["separation_radius"],
       vals["max_speed"], vals["min_speed"], vals["max_force"], vals["dt"], vals["count"]) ==
      ("400", "400", "50", "20", "3", "1.5", "0.05", "1", "80"), str(vals))
# Floats as the shortest text that reads back (0.05, not 0.050000000000000003), and the
# model's own keys first: vicsek's speed, noise and noise_seed right after model.
p = run(BOIDS, "params", "--preset", "vicsek", check_rc=0)
lines = p.stdout.splitlines()
keys = [line.split()[0] for line in lines[1:]]
check("params --preset vicsek: model, then the model's own keys, the others after",
      keys[:4] == ["model", "speed", "noise", "noise_seed"] and
      sorted(keys) == sorted(vals), keys[:6])
vvals = {line.split()[0]: line.split()[1] for line in lines[1:]}
check("params: 0.03 prints as 0.03 and reads back as the preset's speed",
      vvals["speed"] == "0.03" and vvals["initial_speed"] == "0.03" and
      float(vvals["speed"]) == 0.03, vvals["speed"])
# The columns align: each header word starts at the same character on every row (a cell
# never runs into the next column).
starts = [lines[0].index(w) for w in ("value", "unit", "range", "meaning")]
check("params: every row's cells start under their header",
      all(line[s - 1] == " " and line[s] != " " for line in lines[1:] for s in starts),
      [line for line in lines[1:] if any(line[s - 1] != " " or line[s] == " " for s in starts)][:2])
p = run(BOIDS, "presets", check_rc=0)
pl = p.stdout.splitlines()
col = len(pl[0]) - len(pl[0].split(None, 1)[1])
check("presets: the summaries start in one column (murmuration included)",
      all(len(line) - len(line.split(None, 1)[1]) == col for line in pl), pl)

# The shorthands set the same keys as --set.
a = run(BOIDS, "params", "--model", "vicsek", "--neighbours", "topological", "-k", "5", check_rc=0)
b = run(BOIDS, "params", "--set", "model=vicsek", "--set", "neighbours=topological", "--set", "k=5",
        check_rc=0)
check("--model, --neighbours and -k equal the --set pairs", a.stdout == b.stdout)

# Help and exit codes of the program itself.
check("boids --help exits 0", run(BOIDS, "--help").returncode == 0)
check("boids sim --help exits 0", run(BOIDS, "sim", "--help").returncode == 0)
p = run(BOIDS, "frobnicate")
check("unknown command exits 2 naming it", p.returncode == 2 and "frobnicate" in p.stderr)

# A good run: metrics CSV, and the saved state loads back on the same backend.
out = os.path.join(d, "state.csv")
p = run(BOIDS, "sim", "--load", st_good, "--steps", "5", "--every", "2", "--save", out, check_rc=0)
rows = p.stdout.splitlines()
check("metrics header and steps 0,2,4",
      rows[0] == "step,order,milling,nn_distance,neighbours,clusters,largest_cluster" and [r.split(",")[0] for r in rows[1:]] == ["0", "2", "4"], p.stdout)
p = run(BOIDS, "sim", "--load", out, "--steps", "2", "--every", "1", "--order-only", check_rc=0)
check("--order-only: the step and order columns alone",
      p.stdout.splitlines()[0] == "step,order" and len(p.stdout.splitlines()) == 4, p.stdout)
check("a saved state loads back", p.returncode == 0)

# The shared options: every command that takes model parameters accepts each of them (one
# option table, one handler), and its --help lists them (one help block).
# The points' and obstacles' lines are every command's, beside the parameters.
shared_cfg = write("shared.ini", "noise = 0.5\npredator.2 = 10 12 30 1\nattractor.0 = 5 5 40 0.5\n"
                                 "obstacle = circle 20 20 5\nobstacle = segment 0 0 15 5\n")
shared = ["--preset", "lab", "--config", shared_cfg, "--set", "speed=40", "-n", "60", "--seed", "3",
          "--model", "vicsek", "-k", "5", "--neighbours", "topological"]
frames = os.path.join(d, "frames")
os.mkdir(frames)
tiny = {
    "sim": [BOIDS, "sim", "--steps", "2"],
    "sweep": [BOIDS, "sweep", "--key", "noise", "--values", "0.5,1", "--steps", "4", "--seeds", "2",
              "--sample-every", "2"],
    "verify": [BOIDS, "verify", "--backends", "cpu", "--scenarios", "random", "--seeds", "0"],
    "render": [BOIDS, "render", "--frames", "1", "--size", "32x32", "-o",
               os.path.join(frames, "f-%d.png")],
    "view": [BOIDS, "view"],
    "boids-bench": [BENCH, "--quick", "--backends", "cpu-1t", "--reps", "3", "--out",
                    os.path.join(d, "bench"), "--no-plot"],
}
for name, cmd in tiny.items():
    for mode in ("--fast", "--deterministic"):
        p = run(*cmd, *shared, mode, env=no_display)
        if name == "view":
            # No display here: the options were taken when the refusal is the missing window.
            ok = p.returncode == 2 and "no display" in p.stderr and "option" not in p.stderr
        elif name == "render" and p.returncode == 1 and "GL" in p.stderr:
            print(f"skip {name} {mode}: no GL context ({p.stderr.strip()[:120]})")
            continue
        else:
            ok = p.returncode == 0
        check(f"{name} takes every shared option with {mode}", ok,
              f"exit {p.returncode}, stderr {p.stderr[-300:]!r}")
    h = run(*tiny[name][:2 if name != "boids-bench" else 1], "--help")
    listed = ["--preset NAME", "--config FILE", "--set KEY=VALUE", "-n, --count N", "--seed S",
              "--model M", "--neighbours R", "-k K", "--deterministic", "--fast",
              "GPU mode (default here: "]
    check(f"{name} --help lists every shared option", h.returncode == 0 and
          all(w in h.stdout for w in listed), [w for w in listed if w not in h.stdout])

# One place states each command's GPU mode, and --help says it.
for name, mode in (("sim", "--deterministic"), ("sweep", "--deterministic"), ("render", "--deterministic"),
                   ("view", "--fast"), ("verify", "--fast")):
    h = run(BOIDS, name, "--help")
    check(f"{name} --help: the GPU mode by default is {mode}", f"GPU mode (default here: {mode})" in h.stdout
          and h.stdout.count("(default here:") == 1, h.stdout[-600:])
h = run(BENCH, "--help")
check("boids-bench --help: both GPU modes by default", "GPU mode (default here: both" in h.stdout)

# Where a shared option conflicts with a command's own: one message naming both, exit 2.
for args, words in ((["--fast", "--backends", "gpu-det"], ["--fast", "gpu-det"]),
                    (["-n", "100", "--sizes", "1k"], ["-n", "--sizes"])):
    p = run(BENCH, "--quick", "--no-plot", "--out", os.path.join(d, "bench"), *args)
    one_message(f"boids-bench {' '.join(args)}", p, words)
# A bad point or obstacle line: every command refuses it before any work, exit 2, one line
# naming the file, line and key.
bad_lines = {"obstacle": "obstacle = circle 10 10 -5\n", "segment": "obstacle = segment 0 0 1\n",
             "predator.16": "predator.16 = 1 2 3 4\n", "attractor.1": "attractor.1 = 1 2 3 nan\n"}
for key, line in bad_lines.items():
    cfg = write("bad_points.ini", "noise = 0.5\n" + line)
    for name, cmd in tiny.items():
        p = run(*cmd, "--config", cfg, env=no_display)
        one_message(f"{name} refuses a bad {key} line", p, ["bad_points.ini:2", key.split(".")[0]])
# An obstacle of the other dimension: every command refuses it before any work, exit 2, one
# line naming the file and the obstacle and what the world takes instead.
other_dim = [("a circle in 3-D", ["--set", "dim=3"],
              "predator.0 = 10 10 30 1\nobstacle = circle 10 10 5\n",
              ["obstacle 0 is a circle, which is planar", "sphere X Y Z R"]),
             ("a segment in 3-D", ["--set", "dim=3"],
              "obstacle = sphere 10 10 10 5\nobstacle = segment 0 0 15 5\n",
              ["obstacle 1 is a segment, which is planar", "sphere X Y Z R"]),
             ("a sphere in 2-D", [], "predator.0 = 100 100 100 80 2\nobstacle = sphere 200 200 200 40\n",
              ["obstacle 0 is a sphere, which needs a 3-D world", "circle X Y R"])]
for what, dim, text, words in other_dim:
    cfg = write("other_dim.ini", text)
    for name, cmd in tiny.items():
        p = run(*cmd, *dim, "--config", cfg, env=no_display)
        one_message(f"{name} refuses {what}", p, ["other_dim.ini", *words])
for name in ("verify", "render", "view", "sweep"):
    p = run(BOIDS, name, "--count", "zero", env=no_display)
    check(f"{name} --count zero: exit 2 naming the flag and value",
          p.returncode == 2 and "--count" in p.stderr and "zero" in p.stderr, p.stderr)
p = run(BENCH, "--model", "boids3d", "--out", os.path.join(d, "bench"))
check("boids-bench --model boids3d: exit 2 naming it",
      p.returncode == 2 and "--model" in p.stderr and "boids3d" in p.stderr, p.stderr)
finish()
