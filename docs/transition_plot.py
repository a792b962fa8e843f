#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The figures of docs/transition.md, drawn from the CSVs `boids sweep` wrote (nothing is
recomputed here: every point and error bar is a column of the table; `dip` alone computes,
from the runs' series).

usage: transition_plot.py density TABLE PNG
       transition_plot.py noise TABLE PNG
       transition_plot.py corr PNG TABLE...
       transition_plot.py fluct PNG FLUCTUATIONS...
       transition_plot.py corrfn PNG CORRELATION...
       transition_plot.py binder PNG TABLE...
       transition_plot.py hist PNG SERIES BURN_IN
       transition_plot.py profile PNG STATE SIDE
       transition_plot.py travel PNG TRAJECTORY SIDE
       transition_plot.py dip PNG TABLE RUNS SERIES_DIR [RUNS SERIES_DIR ...]

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
  dip      the deepest Binder cumulant of a two-state mixture, per N, from the series of
           `sweep --series-dir SERIES_DIR --runs-out RUNS` (RUNS maps each run id to its N and
           noise): the cut between the states at the valley of the order's histogram (all
           samples of that N), the onset's window (the noises whose runs have samples on both
           sides of the cut, and the grid's next noise each way), the states' moments pooled
           over the window's runs, in two ways ("split": every sample to its side of the
           cut; "settled": only the runs that stay on one side), G_min and the ordered share
           p where it falls, with a jackknife error over the runs, and G_min with the cut
           moved by -0.05 and +0.05; printed and written to TABLE (CSV), and drawn: G(p) of
           each N and way against p, with the pooled cumulant of each window noise at its
           measured ordered share (this subcommand computes; see the comments at dip())

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


# ---- dip: the Binder cumulant of a two-state mixture (docs/transition.md, section 5) ----------
#
# Near a discontinuous onset a run sits in one of two states, ordered (o) and disordered (d), and
# jumps between them. If a share p of the samples is ordered, the pooled moments of the order are
# <phi^k> = p mko + (1 - p) mkd, with mko, mkd the moments within each state, so the cumulant is
#   G(p) = 1 - (p m4o + (1 - p) m4d) / (3 (p m2o + (1 - p) m2d)^2).
# Write x = p m2o + (1 - p) m2d (it runs from m2d to m2o as p runs from 0 to 1); the numerator is
# linear in x, c0 + c1 x with c1 = (m4o - m4d) / (m2o - m2d) and c0 = m4d - c1 m2d, so
# G = 1 - (c0 + c1 x) / (3 x^2). Its derivative in x is (2 c0 + c1 x) / (3 x^3): zero at
# x* = -2 c0 / c1, a minimum of G when c0 < 0 < c1 (G falls, then rises), and there
#   G_min = 1 + c1^2 / (12 c0).
# Where x* lies outside [m2d, m2o] the lowest G is at p = 0 or 1 (each state's own cumulant).
# For a sharp ordered state (m4o = m2o^2) and a Gaussian disordered one in 2-D (m4d = 2 m2d^2)
# with r = m2o / m2d large: c1 ~ m2o, c0 ~ -m2o m2d, so G_min ~ 1 - r / 12 at x* ~ 2 m2d, that is
# p* ~ 1 / r: the deepest dip grows with r, which grows as the disordered state's phi shrinks.


def mixture_binder(p, m2o, m4o, m2d, m4d):
    """G(p) of a two-state mixture with ordered share p (a float or a NumPy array)."""
    return 1 - (p * m4o + (1 - p) * m4d) / (3 * (p * m2o + (1 - p) * m2d) ** 2)


def mixture_binder_min(m2o, m4o, m2d, m4d):
    """(G_min, p_min): the lowest G(p) over 0 <= p <= 1, from the closed form above (the ends
    p = 0 and 1 compared with the interior stationary point)."""
    best = min((mixture_binder(p, m2o, m4o, m2d, m4d), p) for p in (0.0, 1.0))
    if m2o != m2d:
        c1 = (m4o - m4d) / (m2o - m2d)
        c0 = m4d - c1 * m2d
        if c0 < 0 < c1:
            p = (-2 * c0 / c1 - m2d) / (m2o - m2d)
            if 0 < p < 1:
                best = min(best, (1 + c1 * c1 / (12 * c0), p))
    return best


STATES = ("split", "settled", "nearest")


def nearest_states(by_noise, window, cut):
    """(noise o, noise d, runs): the runs settled in the ordered state at one window noise and
    those settled in the disordered state at another (or the same), the two noises as close
    as the runs allow (of equally close pairs, the one with the most runs); None if no window
    noise has a run settled in each state."""
    ordered = {nz: [phi for phi in by_noise[nz] if (phi >= cut).all()] for nz in window}
    disordered = {nz: [phi for phi in by_noise[nz] if (phi < cut).all()] for nz in window}
    pairs = [(abs(a - b), -len(ordered[a]) - len(disordered[b]), a, b)
             for a in window if ordered[a] for b in window if disordered[b]]
    if not pairs:
        return None
    _, _, a, b = min(pairs)
    return a, b, ordered[a] + disordered[b]


def window_runs(by_noise, window, cut, states):
    """The runs (arrays of phi) that feed the two states: every run of the window for "split"
    and "settled"; for "nearest", those of nearest_states (the two states measured as near
    each other in noise as the runs allow)."""
    if states != "nearest":
        return [phi for nz in window for phi in by_noise[nz]]
    near = nearest_states(by_noise, window, cut)
    return near[2] if near else []


def state_sums(runs, cut, states):
    """Per run, the sums (n, sum phi^2, sum phi^4) of its ordered (phi >= cut) and disordered
    (phi < cut) samples, as a 6-vector. states "split": every run's samples go to the side of
    the cut they lie on; "settled": a run feeds a state only if all its samples lie on that
    side (a run that crosses the cut feeds neither)."""
    import numpy as np
    sums = []
    for phi in runs:
        o, d = phi[phi >= cut], phi[phi < cut]
        if states == "settled" and len(o) and len(d):
            o = d = phi[:0]
        sums.append(np.array([len(o), (o ** 2).sum(), (o ** 4).sum(),
                              len(d), (d ** 2).sum(), (d ** 4).sum()]))
    return sums


def dip_of_sums(total):
    """(G_min, p_min, m2o, m4o, m2d, m4d) from pooled sums; NaNs where a state has no sample."""
    if total[0] == 0 or total[3] == 0:
        return (math.nan,) * 6
    m2o, m4o, m2d, m4d = (total[1] / total[0], total[2] / total[0], total[4] / total[3],
                          total[5] / total[3])
    return mixture_binder_min(m2o, m4o, m2d, m4d) + (m2o, m4o, m2d, m4d)


def jackknife(values, full):
    """The jackknife standard error of an estimate from its leave-one-out values."""
    v = [x for x in values if not math.isnan(x)]
    n = len(v)
    if n < 2 or len(v) < len(values) or math.isnan(full):
        return math.nan
    mean = sum(v) / n
    return math.sqrt((n - 1) / n * sum((x - mean) ** 2 for x in v))


def two_state_dip(runs, cut, states):
    """The decomposition of runs (arrays of phi) at a cut: a dict of the states' moments,
    G_min, p_min and G_min's jackknife error over the runs (each run left out in turn)."""
    sums = state_sums(runs, cut, states)
    total = sum(sums) if sums else [0] * 6
    g, p, m2o, m4o, m2d, m4d = dip_of_sums(total)
    se = jackknife([dip_of_sums(total - s)[0] for s in sums], g)
    return {"G_min": g, "G_min_se": se, "p_min": p, "m2o": m2o, "m4o": m4o, "m2d": m2d,
            "m4d": m4d, "r": m2o / m2d, "samples_o": int(total[0]), "samples_d": int(total[3]),
            "runs_o": sum(1 for s in sums if s[0]), "runs_d": sum(1 for s in sums if s[3])}


def valley(phi, bins=50, smooth=5):
    """The cut between the two modes of a sample of phi: its histogram on [0, 1] (bins wide
    1 / bins) smoothed by a running mean over `smooth` bins; the modes are the highest smoothed
    bin below the sample's mean and the highest at or above it; the cut is the centre of the
    lowest smoothed bin between them (the first, where several are equal)."""
    import numpy as np
    h, edges = np.histogram(phi, bins=bins, range=(0, 1))
    s = np.convolve(h, np.ones(smooth) / smooth, mode="same")
    centres = (edges[:-1] + edges[1:]) / 2
    split = int(np.searchsorted(centres, phi.mean()))
    if split == 0 or split == bins:
        return math.nan
    lo, hi = int(np.argmax(s[:split])), split + int(np.argmax(s[split:]))
    return float(centres[lo + int(np.argmin(s[lo:hi + 1]))])


def read_runs(pairs):
    """{N: {noise: [phi arrays]}} from (runs file, series folder) pairs: `sweep --runs-out` maps
    each run id to its N and noise, `--series-dir` holds ID.csv with its order column."""
    import numpy as np
    out = {}
    for runs_path, folder in pairs:
        for _, r in pd.read_csv(runs_path, dtype={"run_id": str}).iterrows():
            phi = pd.read_csv(os.path.join(folder, r["run_id"] + ".csv"))["order"].to_numpy()
            out.setdefault(int(r["N"]), {}).setdefault(float(r["noise"]), []).append(
                np.asarray(phi, dtype=float))
    return out


def onset_window(by_noise, cut):
    """The noises of the onset's window: those whose runs, pooled, have samples on both sides
    of the cut, and the grid's next noise on each side of them (where the runs settle in one
    state). Empty when no noise has both."""
    grid = sorted(by_noise)
    both = [i for i, nz in enumerate(grid)
            if any((phi < cut).any() for phi in by_noise[nz])
            and any((phi >= cut).any() for phi in by_noise[nz])]
    if not both:
        return []
    return grid[max(0, both[0] - 1):both[-1] + 2]


def direct_binder(runs, cut):
    """The pooled cumulant of runs at one noise (every sample of every run, as order_binder),
    its jackknife error over the runs, and the share of its samples at or above the cut."""
    import numpy as np
    sums = [np.array([len(phi), (phi ** 2).sum(), (phi ** 4).sum(), (phi >= cut).sum()])
            for phi in runs]
    total = sum(sums)

    def g(t):
        return 1 - (t[2] / t[0]) / (3 * (t[1] / t[0]) ** 2)
    return g(total), jackknife([g(total - s) for s in sums], g(total)), total[3] / total[0]


DIP_SHIFT = 0.05  # the cut moved by this much each way to show what hangs on it


def dip(png, table, pairs):
    import numpy as np
    data = read_runs(pairs)
    rows, points = [], []
    for n in sorted(data):
        by_noise = data[n]
        cut = valley(np.concatenate([phi for runs in by_noise.values() for phi in runs]))
        window = onset_window(by_noise, cut) if not math.isnan(cut) else []
        for states in STATES:
            row = {"N": n, "states": states, "cut": cut,
                   "noises": " ".join(f"{nz:g}" for nz in window)}
            for shift, name in ((0, ""), (-DIP_SHIFT, "_cut_minus"), (DIP_SHIFT, "_cut_plus")):
                runs = window_runs(by_noise, window, cut + shift, states)
                if not name:
                    row["runs"] = len(runs)
                    near = nearest_states(by_noise, window, cut)
                    if states == "nearest" and near:  # the noises its two states come from
                        row["noises"] = f"ordered {near[0]:g}, disordered {near[1]:g}"
                d = two_state_dip(runs, cut + shift, "split" if states == "split" else "settled")
                if name:
                    row["G_min" + name] = d["G_min"]
                else:
                    row.update(d)
            rows.append(row)
        for nz in window:
            g, se, p = direct_binder(by_noise[nz], cut)
            settled = sum(state_sums(by_noise[nz], cut, "settled"))
            points.append({"N": n, "noise": nz, "runs": len(by_noise[nz]), "p": p, "G": g,
                           "G_se": se,  # and m2 of the runs settled in each state at this noise
                           "m2o_settled": settled[1] / settled[0] if settled[0] else math.nan,
                           "m2d_settled": settled[4] / settled[3] if settled[3] else math.nan})
    out = pd.DataFrame(rows)
    with pd.option_context("display.width", 200, "display.max_columns", 30):
        print(out.drop(columns=["m4o", "m4d"]).to_string(index=False, float_format="%.4g"))
        print(pd.DataFrame(points).to_string(index=False, float_format="%.4g"))
    out.to_csv(table + ".tmp", index=False)
    inputs = []
    for runs_path, folder in pairs:  # each runs file's own provenance, where it has one
        side = runs_path + ".json"
        made = json.load(open(side)).get("command_line") if os.path.exists(side) else None
        inputs.append({"runs": runs_path, "series_dir": folder, "runs_command_line": made})
    with open(table + ".json.tmp", "w") as f:
        json.dump({"command_line": " ".join(["python3", "docs/transition_plot.py", "dip", png,
                                             table] + [x for pair in pairs for x in pair]),
                   "inputs": inputs, "cut_shift": DIP_SHIFT,
                   "note": "made by docs/transition_plot.py dip from the series of the sweeps "
                           "named in inputs; the rows per N: split, settled and nearest "
                           "states (the script's docstring and comments say how)"},
                  f, indent=1)
        f.write("\n")
    os.replace(table + ".tmp", table)
    os.replace(table + ".json.tmp", table + ".json")
    fig, ax = plt.subplots(figsize=(8, 5))
    p = np.logspace(-4, 0, 400)
    for i, n in enumerate(sorted(data)):
        colour = f"C{i}"
        for row in rows:
            if row["N"] == n and not math.isnan(row["G_min"]):
                ls = {"split": "--", "settled": "-", "nearest": ":"}[row["states"]]
                ax.plot(p, mixture_binder(p, row["m2o"], row["m4o"], row["m2d"], row["m4d"]),
                        color=colour, ls=ls, lw=1.2,
                        label=f"N = {n}, {row['states']} states: G_min {row['G_min']:.3g}")
        pts = [q for q in points if q["N"] == n and q["p"] > 0]
        if pts:
            ax.errorbar([q["p"] for q in pts], [q["G"] for q in pts],
                        yerr=[q["G_se"] for q in pts], color=colour, marker="o", ms=5, ls="none",
                        capsize=3, label=f"N = {n}: measured, at its ordered share")
    ax.axhline(1 / 3, color="k", ls=":", lw=0.8)
    ax.set_xscale("log")
    ax.set_yscale("symlog", linthresh=1)
    ax.set_xlabel("ordered share p of the samples")
    ax.set_ylabel("Binder cumulant G")
    ax.set_ylim(-400, 60)
    ax.legend(fontsize="x-small", loc="upper left", ncol=2)
    fig.tight_layout()
    fig.savefig(png, dpi=80)


def main(argv):
    if len(argv) >= 3 and argv[0] in ("density", "noise") and len(argv) == 3:
        (density if argv[0] == "density" else noise)(argv[1], argv[2])
    elif len(argv) >= 3 and argv[0] in ("corr", "fluct", "corrfn", "binder"):
        {"corr": corr, "fluct": fluct, "corrfn": corrfn, "binder": binder}[argv[0]](argv[1],
                                                                                   argv[2:])
    elif len(argv) >= 5 and argv[0] == "dip" and len(argv) % 2 == 1:
        dip(argv[1], argv[2], list(zip(argv[3::2], argv[4::2])))
    elif len(argv) == 4 and argv[0] in ("hist", "profile", "travel"):
        {"hist": hist, "profile": profile, "travel": travel}[argv[0]](argv[1], argv[2],
                                                                     float(argv[3]))
    else:
        sys.stderr.write(__doc__.split("\n\n")[1] + "\n")
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
