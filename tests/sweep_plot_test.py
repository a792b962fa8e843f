#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""boids sweep --plot: the gnuplot script prints key and observable names literally (no
enhanced-text subscripts: separation_radius is not separation with a subscript radius) and
puts the key below the plot, off the curves; --plot-y draws any numeric column of the table
(the Binder cumulant, the susceptibility, tau), each point the table's value. A stand-in gnuplot on PATH keeps the script the
sweep writes; with the real gnuplot the SVG holds the names as written.

usage: sweep_plot_test.py BOIDS_BINARY
"""
import os
import shutil
import stat
import sys

from harness import check, finish, run, tmpdir

BOIDS = sys.argv[1]
d = tmpdir()
SWEEP = ["sweep", "--preset", "lab", "--steps", "8", "--burn-in", "4", "--sample-every", "4",
         "--key", "separation_radius", "--values", "0.5,1", "--counts", "20,30", "--seeds", "2"]

# The stand-in: keeps plot.gp (gnuplot runs in a private folder on plot.gp) and writes the
# output file the script names, so the sweep goes on as with the real one.
fake = os.path.join(d, "bin")
os.mkdir(fake)
kept = os.path.join(d, "kept.gp")
with open(os.path.join(fake, "gnuplot"), "w") as f:
    f.write(f"#!/bin/sh\ncp \"$1\" '{kept}' && echo '<svg/>' > plot.svg\n")
os.chmod(os.path.join(fake, "gnuplot"), stat.S_IRWXU)
env = dict(os.environ, PATH=fake + os.pathsep + os.environ.get("PATH", ""))
p = run(BOIDS, *SWEEP, "--plot", os.path.join(d, "p.svg"), env=env)
check("sweep --plot with the stand-in gnuplot exits 0", p.returncode == 0, p.stderr[-500:])
try:
    with open(kept) as f:
        script = f.read().splitlines()
except OSError as e:
    script = []
    check("the script reached gnuplot", False, str(e))
term = [ln for ln in script if ln.startswith("set terminal")]
check("one terminal, with enhanced text off", len(term) == 1 and term[0].split()[-1] == "noenhanced",
      term)
check("no enhanced text turned on anywhere",
      not any("enhanced" in ln.replace("noenhanced", "") for ln in script), script)
keys = [ln for ln in script if ln.startswith("set key")]
check("the key is placed below the plot, off the curves",
      len(keys) == 1 and ("below" in keys[0].split() or "outside" in keys[0].split()), keys)
check("the x label is the key as written", "set xlabel 'separation_radius'" in script, script[:30])


def data_blocks(lines):
    """The script's data blocks: {name: [(x, y, error), ...]}."""
    blocks, name = {}, None
    for ln in lines:
        if ln.endswith("<< EOD"):
            name = ln.split()[0]
            blocks[name] = []
        elif ln == "EOD":
            name = None
        elif name:
            blocks[name].append(tuple(float(v) for v in ln.split()))
    return blocks


# --plot-y takes any numeric column of the table: each point of the figure is the table's
# value in that column (and its error bar the column's _se, where the column has one), the
# same decimal text parsed, per N in the order of --counts.
for col, err_col in (("order_binder", "order_binder_se"), ("order_chi", "order_chi_se"),
                     ("neighbours", "neighbours_se"), ("order_tau", None),
                     ("clusters_neff", None)):
    table = os.path.join(d, f"{col}.csv")
    p = run(BOIDS, *SWEEP, "--plot", os.path.join(d, f"{col}.svg"), "--plot-y", col, "--out",
            table, env=env)
    check(f"--plot-y {col}: exit 0", p.returncode == 0, p.stderr[-500:])
    with open(kept) as f:
        script = f.read().splitlines()
    with open(table) as f:
        header, *rows = [ln.split(",") for ln in f.read().splitlines()]
    y_col = col if col in header else col + "_mean"
    want = {}
    for r in rows:
        row = dict(zip(header, r))
        e = float(row[err_col]) if err_col else 0.0
        want.setdefault(row["N"], []).append((float(row["separation_radius"]),
                                              float(row[y_col]), 0.0 if e != e else e))
    got = data_blocks(script)
    check(f"--plot-y {col}: the figure's points are the table's column {y_col}",
          [got.get(f"$n{i}") for i in range(2)] == [want["20"], want["30"]], (got, want))
    plot_line = [ln for ln in script if ln.startswith("plot ")]
    check(f"--plot-y {col}: {'error bars' if err_col else 'lines, no error bars'}",
          len(plot_line) == 1 and (("yerrorlines" in plot_line[0]) == bool(err_col)) and
          (("using 1:2:3" in plot_line[0]) == bool(err_col)), plot_line)
    check(f"--plot-y {col}: the y label names the column",
          f"set ylabel '{col}'" in script, [ln for ln in script if "ylabel" in ln])
p = run(BOIDS, *SWEEP, "--plot", os.path.join(d, "bad.svg"), "--plot-y", "order_binder_mean",
        env=env)
check("--plot-y order_binder_mean (no such column): exit 2 naming it",
      p.returncode == 2 and "order_binder_mean" in p.stderr, p.stderr)

real = shutil.which("gnuplot")
if real and os.path.realpath(real) != os.path.realpath(os.path.join(fake, "gnuplot")):
    svg = os.path.join(d, "real.svg")
    p = run(BOIDS, *SWEEP, "--plot", svg)
    check("sweep --plot with gnuplot exits 0", p.returncode == 0, p.stderr[-500:])
    with open(svg) as f:
        text = f.read()
    # Enhanced text would split it into "separation" and a lowered "radius".
    check("the SVG holds 'separation_radius' as one text", ">separation_radius<" in text)
else:
    print("skip the SVG check: gnuplot is not on PATH")

finish()
