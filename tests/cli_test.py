#!/usr/bin/env python3
"""Bad input of every kind: one message naming what and where, exit code 2, no output file.

usage: cli_test.py BOIDS_BINARY
"""
import os
import sys

from harness import check, finish, run, tmpdir

BOIDS = sys.argv[1]
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
    ("missing config", ["--config", os.path.join(d, "none.ini")], ["none.ini", "cannot open"]),
    ("config unknown key", ["--config", cfg_unknown], ["unknown.ini:3", "bogus_key"]),
    ("config bad value", ["--config", cfg_value], ["value.ini:2", "vision_radius", "fifty"]),
    ("config syntax", ["--config", cfg_syntax], ["syntax.ini:3", "syntax"]),
    ("config section", ["--config", cfg_section], ["section.ini:", "[world]"]),
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
    ("count disagrees with state", ["--load", st_good, "-n", "5"], ["--count", "good.csv"]),
    ("count zero", ["-n", "0"], ["--count", "0"]),
    ("count not a number", ["-n", "many"], ["--count", "many"]),
    ("negative steps", ["--steps", "-1"], ["--steps", "-1"]),
    ("every zero", ["--every", "0"], ["--every"]),
    ("negative seed", ["--seed", "-1"], ["--seed"]),
    ("unknown backend", ["--backend", "tpu"], ["--backend", "tpu"]),
    ("gpu k beyond its limit", ["--backend", "gpu", "--set", "neighbours=topological", "--set", "k=200"],
     ["k = 200", "128"]),
    ("gpu N beyond the device", ["--backend", "gpu", "-n", "9000000"], ["largest N"]),
    ("unknown option", ["--frobnicate"], ["--frobnicate"]),
    ("missing value", ["--steps"], ["--steps"]),
    ("stray argument", ["extra"], ["extra"]),
]
for name, args, words in cases:
    out = os.path.join(d, "out.csv")
    p = run(BOIDS, "sim", "--steps", "3", *args, "--save", out)
    msg = p.stderr.strip()
    check(f"{name}: exit code 2", p.returncode == 2, f"exit {p.returncode}, stderr {msg!r}")
    check(f"{name}: one line naming {words}", len(msg.splitlines()) == 1 and all(w in msg for w in words),
          repr(msg))
    check(f"{name}: no output file", not os.path.exists(out))
    check(f"{name}: no temporary file", not [f for f in os.listdir(d) if ".tmp" in f])
    check(f"{name}: nothing on stdout", p.stdout == "", repr(p.stdout[:200]))

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
                 "max_force separation_weight alignment_weight cohesion_weight fov dt").split():
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
      ("400", "400", "50", "20", "3", "1.5", "0.050000000000000003", "1", "80"), str(vals))

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
finish()
