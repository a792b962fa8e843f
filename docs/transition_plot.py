#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The figures of docs/transition.md, drawn from the CSVs `boids sweep` wrote (nothing is
recomputed here: every point and error bar is a column of the table).

usage: transition_plot.py density TABLE PNG
       transition_plot.py noise TABLE PNG
       transition_plot.py corr PNG TABLE...
       transition_plot.py fluct PNG FLUCTUATIONS...
       transition_plot.py corrfn PNG CORRELATION...
       transition_plot.py binder PNG TABLE...
       transition_plot.py hist PNG SERIES BURN_IN
       transition_plot.py profile PNG STATE SIDE
       transition_plot.py travel PNG TRAJECTORY SIDE

  density  order against the density N / (width height) of a table swept over --counts in
           one fixed world, with the null-model scale sqrt(pi / (4 N)) of independent headings
  noise    order_binder, order_chi and gnf_alpha against the noise, one curve per N
  corr     corr_length against the world's side, one curve per noise value, from one table
           per N (each with its own --correlation-range)
  fluct    Delta n against <n> of `sim --fluctuations` files, with Poisson's sqrt(<n>)
  corrfn   C(r) of `sim --correlation` files against r / L (L the world's width)
  binder   order_mean and order_binder against the noise, one curve per N, noise type and
           neighbour rule (read from each sidecar TABLE.json; tables that share them join)
  hist     the histogram of the order in a `sim --series` file, over the samples at steps
           >= BURN_IN (a count of the column as written)
  profile  the density of a saved state (`sim --save`, x,y,vx,vy; positions taken into the
           square of side SIDE) in slabs 1 wide across the line of the mean heading and
           across the line at right angles to it, each slab's count over a uniform flock's
           (the share of the square's area it holds), with the polarization of each slab
           along the mean heading (counts and means of the state's columns, nothing else)
  travel   how far the density pattern of a `sim --trajectory` (.npy, the plane) moved from
           frame to frame: the boids counted in cells 1 wide of the periodic square of side
           SIDE, the shift between two frames the peak of their circular cross-correlation
           (the nearest image; less than half the side a frame), summed over the frames;
           drawn along the mean heading with the lines of v0 and of the flock's mean
           velocity, and the pattern's mean velocity printed (a least-squares line through
           the summed shifts)

A sim file's label (N, noise) is read from its sidecar FILE.json.

Needs pandas and matplotlib (Debian python3-pandas python3-matplotlib).
"""
import json
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402


def errorbar(ax, x, table, column, **kw):
    """The column's points with their standard error over the seeds: X_se for X_mean, and
    for a column without the suffix (order_binder, order_chi) the one named column + _se."""
    se = column[:-len("_mean")] + "_se" if column.endswith("_mean") else column + "_se"
    ax.errorbar(x, table[column], yerr=table[se], marker="o", ms=4, capsize=3, **kw)


def density(table_path, png):
    t = pd.read_csv(table_path)
    rho = t["N"] / (t["width"] * t["height"])
    fig, ax = plt.subplots(figsize=(6.5, 4.2))
    eta = ", ".join(str(v) for v in t["noise"].unique())
    errorbar(ax, rho, t, "order_mean", label=f"eta = {eta}, side {t['width'][0]:g}")
    ax.plot(rho, [math.sqrt(math.pi / (4 * n)) for n in t["N"]], "k--", lw=1,
            label="independent headings: sqrt(pi / 4N)")
    ax.set_xlabel("density rho = N / L^2")
    ax.set_ylabel("order (polarization)")
    ax.set_ylim(0, 1)
    ax.legend(loc="center right")
    fig.tight_layout()
    fig.savefig(png, dpi=120)


def noise(table_path, png):
    t = pd.read_csv(table_path)
    panels = [("order_binder", "Binder cumulant"), ("order_chi", "susceptibility chi"),
              ("gnf_alpha_mean", "gnf_alpha")]
    fig, axes = plt.subplots(1, len(panels), figsize=(13, 4.2))
    axes[0].axhline(2 / 3, color="k", ls="--", lw=0.8, label="2/3: a sharp order")
    axes[0].axhline(1 / 3, color="k", ls=":", lw=0.8, label="1/3: a Gaussian order vector")
    axes[2].axhline(0.5, color="k", ls="--", lw=0.8, label="1/2: independent boids")
    colour = {n: f"C{k}" for k, n in enumerate(sorted(t["N"].unique()))}  # one per N throughout
    for ax, (column, label) in zip(axes, panels):
        for n, g in t.groupby("N"):
            if g[column].notna().any():
                errorbar(ax, g["noise"], g, column, color=colour[n], label=f"N = {n}")
        ax.set_xlabel("noise eta (radians)")
        ax.set_ylabel(label)
        ax.legend(fontsize="small")
    axes[0].legend(fontsize="small", loc="center left")
    axes[1].set_yscale("log")
    fig.tight_layout()
    fig.savefig(png, dpi=120)


def corr(png, table_paths):
    t = pd.concat([pd.read_csv(p) for p in table_paths], ignore_index=True)
    fig, ax = plt.subplots(figsize=(6.5, 4.2))
    for eta, g in t.groupby("noise"):
        errorbar(ax, g["width"], g, "corr_length_mean", label=f"eta = {eta:g}")
    ax.set_xlabel("side L of the periodic world")
    ax.set_ylabel("correlation length xi (first zero of C(r))")
    ax.set_xlim(left=0)
    ax.set_ylim(bottom=0)
    ax.legend()
    fig.tight_layout()
    fig.savefig(png, dpi=120)


def sim_values(path):
    """The parameters of the run that wrote a sim output, from its sidecar."""
    with open(path + ".json") as f:
        return json.load(f)["parameters"]["values"]


def fluct(png, paths):
    fig, ax = plt.subplots(figsize=(6.5, 4.2))
    lo, hi = math.inf, 0
    for k, path in enumerate(paths):
        t, v = pd.read_csv(path), sim_values(path)
        fit = t["fitted"] == 1
        label = f"N = {v['count']}, eta = {v['noise']:g}"
        ax.loglog(t["mean"], t["sd"], "-", color=f"C{k}", lw=1)
        ax.loglog(t["mean"][fit], t["sd"][fit], "o", color=f"C{k}", label=label + " (fit levels)")
        ax.loglog(t["mean"][~fit], t["sd"][~fit], "o", color=f"C{k}", mfc="none")
        lo, hi = min(lo, t["mean"].min()), max(hi, t["mean"].max())
    ax.loglog([lo, hi], [math.sqrt(lo), math.sqrt(hi)], "k--", lw=1,
              label="independent boids: sqrt(<n>)")
    ax.set_xlabel("mean count per box <n>")
    ax.set_ylabel("standard deviation Delta n")
    ax.legend()
    fig.tight_layout()
    fig.savefig(png, dpi=120)


def corrfn(png, paths):
    fig, ax = plt.subplots(figsize=(6.5, 4.2))
    for path in paths:
        t, v = pd.read_csv(path), sim_values(path)
        ax.plot(t["r"] / v["width"], t["c"], marker=".",
                label=f"N = {v['count']}, L = {v['width']:.3g}, eta = {v['noise']:g}")
    ax.axhline(0, color="k", lw=0.8)
    ax.set_xlabel("r / L")
    ax.set_ylabel("velocity correlation C(r)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(png, dpi=120)


def model_label(path):
    """Noise type and neighbour rule of a sweep table, from its sidecar."""
    with open(path + ".json") as f:
        v = json.load(f)["parameters"]["values"]
    rule = f"topological k = {v['k']}" if v["neighbours"] == "topological" else "metric"
    return f"{v['noise_type']}, {rule}"


def binder(png, paths):
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.2))
    axes[1].axhline(2 / 3, color="k", ls="--", lw=0.8, label="2/3: a sharp order")
    axes[1].axhline(1 / 3, color="k", ls=":", lw=0.8, label="1/3: a Gaussian order vector")
    curves = {}  # the rows of one N, noise type and rule (a finer grid swept apart) join
    for path in paths:
        for n, g in pd.read_csv(path).groupby("N"):
            curves.setdefault(f"N = {n}, {model_label(path)}", []).append(g)
    for label, tables in curves.items():
        t = pd.concat(tables, ignore_index=True).sort_values("noise", ignore_index=True)
        errorbar(axes[0], t["noise"], t, "order_mean", label=label)
        errorbar(axes[1], t["noise"], t, "order_binder", label=label)
    axes[0].set_ylabel("order (polarization)")
    axes[0].set_ylim(0, 1)
    axes[1].set_ylabel("Binder cumulant")
    for ax in axes:
        ax.set_xlabel("noise eta")
        ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(png, dpi=100)


def hist(png, path, burn_in):
    t, v = pd.read_csv(path), sim_values(path)
    phi = t["order"][t["step"] >= burn_in]
    fig, ax = plt.subplots(figsize=(6.5, 4.2))
    ax.hist(phi, bins=50, range=(0, 1), density=True)
    ax.set_xlabel("order phi")
    ax.set_ylabel("probability density")
    ax.set_title(f"N = {v['count']}, {v['noise_type']} noise {v['noise']:g}: "
                 f"{len(phi)} samples, steps {int(burn_in)} to {int(t['step'].max())}",
                 fontsize="medium")
    fig.tight_layout()
    fig.savefig(png, dpi=100)


def profile(png, path, side):
    s = pd.read_csv(path)
    heading = math.atan2(s["vy"].mean(), s["vx"].mean())
    speed = (s["vx"] ** 2 + s["vy"] ** 2).pow(0.5).mean()
    x, y = s["x"] % side, s["y"] % side
    # A uniform flock's share of each slab: the square's own points on a fine lattice.
    grid = pd.DataFrame([((i + 0.5) * side / 400, (j + 0.5) * side / 400)
                         for i in range(400) for j in range(400)], columns=["x", "y"])
    fig, axes = plt.subplots(2, 1, figsize=(7, 5.2), sharex=True)
    for angle, style, name in ((heading, "-", "along the mean heading"),
                               (heading + math.pi / 2, "--", "across it")):
        ux, uy = math.cos(angle), math.sin(angle)
        lo = min(0, side * ux) + min(0, side * uy)
        slab = ((x * ux + y * uy - lo)).astype(int)  # slabs 1 (the vision radius) wide
        share = ((grid["x"] * ux + grid["y"] * uy - lo)).astype(int).value_counts() / len(grid)
        share = share[share > 0.5 * share.max()].sort_index()  # the corners' thin slabs left out
        counts = slab.value_counts().reindex(share.index, fill_value=0)
        at = share.index - share.index.min() + 0.5  # from the first slab drawn
        axes[0].plot(at, counts / (len(s) * share), style, label=name)
        if angle == heading:
            v = (s["vx"] * ux + s["vy"] * uy).groupby(slab).mean().reindex(share.index) / speed
            axes[1].plot(at, v, "o", ms=3)
    axes[0].axhline(1, color="k", lw=0.8)
    axes[0].set_ylabel("density / mean density")
    axes[0].legend(fontsize="small")
    axes[1].set_ylabel("polarization of the slab")
    axes[1].set_xlabel(f"position along the line (world side {side:g}, slabs 1 wide; "
                       "the heading points right)")
    fig.tight_layout()
    fig.savefig(png, dpi=100)


def travel(png, path, side):
    import numpy as np
    t = np.load(path)  # frames x N x 4: x, y, vx, vy
    with open(path + ".json") as f:
        meta = json.load(f)
    at = meta["output"]["sample_steps"]
    dt = meta["parameters"]["values"]["dt"]  # velocities are lengths per time, not per step
    steps = np.arange(at["first"], at["last"] + 1, at["every"])[:len(t)]
    cells = int(round(side))

    def field(frame):
        h, _, _ = np.histogram2d(frame[:, 0] % side, frame[:, 1] % side, bins=cells,
                                 range=[[0, side], [0, side]])
        return np.fft.rfft2(h - h.mean())

    moved = [np.zeros(2)]
    last = field(t[0])
    for frame in t[1:]:
        now = field(frame)
        corr = np.fft.irfft2(now * np.conj(last), s=(cells, cells))
        i, j = np.unravel_index(np.argmax(corr), corr.shape)
        shift = np.array([i, j], dtype=float)
        shift[shift > cells / 2] -= cells  # the nearest image
        moved.append(moved[-1] + shift * side / cells)
        last = now
    moved = np.array(moved)
    v = t[:, :, 2:4].mean(axis=(0, 1)) * dt  # the flock's mean velocity over the frames
    heading = v / np.linalg.norm(v)
    along = moved @ heading
    fit = np.polyfit(steps - steps[0], moved, 1)[0]  # length per step, x and y
    v0 = np.linalg.norm(t[0, :, 2:4], axis=1).mean() * dt
    print(f"{path}: {len(t)} frames, steps {steps[0]} to {steps[-1]}; the pattern moved "
          f"{np.linalg.norm(fit):.4f} per step at {math.degrees(math.atan2(fit[1], fit[0])):.1f} "
          f"degrees; the flock's mean velocity {np.linalg.norm(v):.4f} at "
          f"{math.degrees(math.atan2(v[1], v[0])):.1f} degrees; v0 {v0:.4f}")
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot(steps, along, "o", ms=3, label="the density pattern, along the mean heading")
    ax.plot(steps, v0 * (steps - steps[0]), "--", label=f"v0 = {v0:.2f} a step")
    ax.plot(steps, np.linalg.norm(v) * (steps - steps[0]), ":",
            label=f"the flock's mean velocity, {np.linalg.norm(v):.2f} a step")
    ax.set_xlabel("step")
    ax.set_ylabel("distance travelled (vision radii)")
    ax.set_title(os.path.basename(path), fontsize="small")
    ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(png, dpi=100)


def main(argv):
    if len(argv) >= 3 and argv[0] in ("density", "noise") and len(argv) == 3:
        (density if argv[0] == "density" else noise)(argv[1], argv[2])
    elif len(argv) >= 3 and argv[0] in ("corr", "fluct", "corrfn", "binder"):
        {"corr": corr, "fluct": fluct, "corrfn": corrfn, "binder": binder}[argv[0]](argv[1],
                                                                                   argv[2:])
    elif len(argv) == 4 and argv[0] in ("hist", "profile", "travel"):
        {"hist": hist, "profile": profile, "travel": travel}[argv[0]](argv[1], argv[2],
                                                                     float(argv[3]))
    else:
        sys.stderr.write(__doc__.split("\n\n")[1] + "\n")
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
