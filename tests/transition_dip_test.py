#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The two-state decomposition of the Binder cumulant that docs/transition_plot.py's `dip`
draws for section 5 of docs/transition.md, checked on synthetic samples whose moments are
known (a second or so):

  - G(0) and G(1) of the mixture are the disordered and the ordered samples' own pooled
    cumulants, and the pooled cumulant of a concatenation with ordered share p is G(p);
  - the closed-form minimum equals a brute-force minimum over a fine grid of p, and, for a
    sharp ordered state and a Gaussian disordered one, the formula derived by hand in the
    docstring of this file's check (with its large-r limit 1 - r/12 at p ~ 1/r);
  - the minimum deepens when the disordered state's phi shrinks;
  - the per-run pooling ("split", "settled", "nearest") gives each state the moments of the
    samples it should, and the valley of a bimodal histogram falls between its modes.

With the program as its argument, also a tiny real sweep read the way `dip` reads one: the
series hold the moments the runs file gives, and the settled states' cumulants are the
sweep's own order_binder.

usage: transition_dip_test.py [BOIDS_BINARY] (a Python with NumPy, pandas and matplotlib)
"""
import csv
import io
import math
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs"))
from harness import check, finish, run  # noqa: E402
import transition_plot as tp  # noqa: E402

# Sums of 10^4 terms of size <= 1 in doubles: relative rounding near 1e-13, so 1e-10 is
# rounding with room and far below any modelling difference tested here.
ROUND = 1e-10


def moments(phi):
    return (phi ** 2).mean(), (phi ** 4).mean()


def cumulant(phi):
    m2, m4 = moments(phi)
    return 1 - m4 / (3 * m2 * m2)


def synthetic(rng, n_o, n_d, sigma):
    """An ordered state (phi near 0.7, spread 0.05) and a disordered one (the length of a
    2-D Gaussian vector with deviation sigma per component, so m4 = 2 m2^2 up to sampling)."""
    ordered = 0.7 + 0.05 * rng.standard_normal(n_o)
    disordered = np.hypot(*(sigma * rng.standard_normal((2, n_d))))
    return ordered, disordered


def ends_and_mixing(rng):
    o, d = synthetic(rng, 5000, 20000, 0.02)
    m2o, m4o = moments(o)
    m2d, m4d = moments(d)
    g0 = tp.mixture_binder(0.0, m2o, m4o, m2d, m4d)
    g1 = tp.mixture_binder(1.0, m2o, m4o, m2d, m4d)
    check("G(0) is the disordered samples' own cumulant", abs(g0 - cumulant(d)) < ROUND,
          f"{g0} against {cumulant(d)}")
    check("G(1) is the ordered samples' own cumulant", abs(g1 - cumulant(o)) < ROUND,
          f"{g1} against {cumulant(o)}")
    # Any ordered share p = k / (k + m) of a concatenation: its pooled cumulant is G(p).
    for k in (20, 200, 5000):
        mix = np.concatenate([o[:k], d])
        p = k / len(mix)
        g = tp.mixture_binder(p, *moments(o[:k]), m2d, m4d)
        check(f"the pooled cumulant of {k} ordered samples among {len(d)} is G({p:.4g})",
              abs(g - cumulant(mix)) < ROUND * max(1, abs(g)), f"{g} against {cumulant(mix)}")


def minimum():
    """For m4o = m2o^2 = a^2 (a sharp ordered state) and m4d = 2 b^2 (2-D Gaussian), with
    x = p a + (1 - p) b the numerator of G's fraction is c0 + c1 x, c1 = (a^2 - 2 b^2) / (a - b),
    c0 = 2 b^2 - c1 b = -a b (a - 2 b) / (a - b); G = 1 - (c0 + c1 x) / (3 x^2) is lowest at
    x = -2 c0 / c1, where G_min = 1 + c1^2 / (12 c0)
                                = 1 - (a^2 - 2 b^2)^2 / (12 a b (a - 2 b) (a - b)),
    about 1 - r / 12 for r = a / b large, at p = (x - b) / (a - b), about 1 / r."""
    prev = None
    for r in (10.0, 100.0, 1000.0, 10000.0):
        a, b = 0.5, 0.5 / r
        g, p = tp.mixture_binder_min(a, a * a, b, 2 * b * b)
        hand = 1 - (a * a - 2 * b * b) ** 2 / (12 * a * b * (a - 2 * b) * (a - b))
        check(f"r = {r:g}: G_min is the hand-derived closed form",
              abs(g - hand) < ROUND * abs(hand), f"{g} against {hand}")
        # A grid of 2e5 points, log-spaced from 1e-7 to 1: next to the minimum G is flat to
        # first order, so the grid's lowest value lies above the true minimum by a relative
        # (dp/p)^2 ~ 1e-8, and never below it.
        grid = np.logspace(-7, 0, 200001)
        brute = tp.mixture_binder(grid, a, a * a, b, 2 * b * b).min()
        check(f"r = {r:g}: no p on a fine grid goes below G_min, the grid's lowest is within "
              "1e-6 of it", g <= brute + ROUND * abs(g) and brute - g < 1e-6 * abs(g),
              f"closed {g}, grid {brute}")
        # The large-r forms: with a = r b the closed form is 1 - (r^2 - 2)^2 / (12 r (r - 1)
        # (r - 2)) = 1 - r/12 - 1/4 - O(1/r), so within 1 of 1 - r/12 for r >= 100; and
        # p_min = (1/r)(1 - 3/r + ...), within 5 % of 1/r for r >= 100 (3 % at r = 100).
        if r >= 100:
            check(f"r = {r:g}: G_min is 1 - r/12 to within 1",
                  abs(g - (1 - r / 12)) < 1, f"{g} against {1 - r / 12}")
            check(f"r = {r:g}: p_min is 1/r to within 5 % (corrections of order 1/r)",
                  abs(p * r - 1) < 0.05, f"p_min {p}, 1/r {1 / r}")
        if prev is not None:
            check(f"r = {r:g}: the minimum deepens as the disordered phi shrinks", g < prev,
                  f"{g} not below {prev}")
        prev = g


def sample_minimum_deepens(rng):
    """The same on samples: halving the disordered phi (m2d / 4) lowers G_min, by about 4."""
    o, d = synthetic(rng, 5000, 20000, 0.02)
    g1, _ = tp.mixture_binder_min(*moments(o), *moments(d))
    g2, _ = tp.mixture_binder_min(*moments(o), *moments(d / 2))
    check("samples: a disordered phi half as large gives a deeper minimum", g2 < g1,
          f"{g2} not below {g1}")
    # r grows by 4 exactly (the same samples, scaled), and G_min - 1 = -(r/12 + 1/4 + ...)
    # for a sharp ordered and a Gaussian disordered state (minimum()); here r is about 600, so
    # the 1/4 moves the ratio by under 1 %, and the samples' own m4 / m2^2 (not exactly 1 and
    # 2: the ordered spread 0.05 on 0.7, 20,000 Gaussian samples) by about as much: 10 % is
    # far outside both.
    check("samples: ... about 4 times deeper", abs((g2 - 1) / (g1 - 1) - 4) < 0.4,
          f"ratio {(g2 - 1) / (g1 - 1)}")


def pooling(rng):
    """Runs: two that stay ordered, two that stay disordered, one that crosses (its samples
    below the cut 0.4 are a ramp between the states)."""
    o, d = synthetic(rng, 4000, 4000, 0.02)
    ramp = np.linspace(0.0, 0.7, 1000)
    runs = [o[:2000], o[2000:], d[:2000], d[2000:], np.concatenate([d[:500], ramp])]
    settled = tp.two_state_dip(runs, 0.4, "settled")
    check("settled: the ordered state is the ordered runs' samples",
          abs(settled["m2o"] - moments(o)[0]) < ROUND and settled["runs_o"] == 2,
          str(settled))
    check("settled: the disordered state is the disordered runs' samples",
          abs(settled["m2d"] - moments(d)[0]) < ROUND and settled["runs_d"] == 2,
          str(settled))
    g, p = tp.mixture_binder_min(*moments(o), *moments(d))
    check("settled: G_min is the closed form's from those moments",
          abs(settled["G_min"] - g) < ROUND * abs(g) and settled["p_min"] == p)
    check("settled: G_min has a jackknife error over the 4 runs",
          settled["G_min_se"] > 0 and math.isfinite(settled["G_min_se"]))
    split = tp.two_state_dip(runs, 0.4, "split")
    below = np.concatenate([d, d[:500], ramp[ramp < 0.4]])
    check("split: the disordered state takes every sample below the cut, the ramp's too",
          abs(split["m2d"] - moments(below)[0]) < ROUND and split["samples_d"] == len(below))
    check("split: the ramp's samples make the disordered state's m2 larger (a shallower "
          "minimum)", split["m2d"] > settled["m2d"] and split["G_min"] > settled["G_min"])
    # nearest: the ordered and disordered settled runs at the closest noises, the same noise
    # where one holds both (0.62 has an ordered run, 0.63 both, 0.64 a disordered one).
    by_noise = {0.62: [o[:2000]], 0.63: [o[2000:], d[:2000], runs[4]], 0.64: [d[2000:]]}
    a, b, near = tp.nearest_states(by_noise, [0.62, 0.63, 0.64], 0.4)
    check("nearest: both states from the noise that holds runs settled in each",
          (a, b) == (0.63, 0.63) and len(near) == 2, f"{a}, {b}, {len(near)} runs")
    del by_noise[0.63]
    a, b, near = tp.nearest_states(by_noise, [0.62, 0.64], 0.4)
    check("nearest: else the closest pair of noises", (a, b) == (0.62, 0.64), f"{a}, {b}")
    both = np.concatenate([o, d])
    cut = tp.valley(both)
    check("the valley of a bimodal sample lies between its modes (0.03 and 0.7)",
          0.1 < cut < 0.6, f"cut {cut}")


def real_runs(boids):
    """A tiny real sweep (`--preset chate`, N = 512, noise 0.4 and 0.9, the limits
    transition_test.py checks: ordered and disordered throughout; 2 seeds of 1,000 steps,
    samples every 5 from step 500, a second or two) read as `dip` reads it: each run's series
    gives the order_m2 and order_m4 that the runs file says for it, the runs settle on the
    two sides of the valley, and the settled states' own cumulants, G(1) and G(0), are the
    sweep's order_binder at 0.4 and 0.9. The series and the runs file print 17 significant
    digits, and the sums are of 101 terms: 1e-10 is rounding."""
    import pandas as pd
    with tempfile.TemporaryDirectory() as tmp:
        series, runs_path = os.path.join(tmp, "series"), os.path.join(tmp, "runs.csv")
        os.mkdir(series)
        table = run(boids, "sweep", "--preset", "chate", "--backend", "cpu", "--threads", "1",
                    "--key", "noise", "--values", "0.4,0.9", "--counts", "512", "--density", "2",
                    "--seeds", "2", "--steps", "1000", "--burn-in", "500", "--sample-every", "5",
                    "--series-dir", series, "--runs-out", runs_path, check_rc=0).stdout
        binder = {float(r["noise"]): float(r["order_binder"])
                  for r in csv.DictReader(io.StringIO(table))}
        listed = pd.read_csv(runs_path, dtype={"run_id": str})
        by_noise = tp.read_runs([(runs_path, series)])[512]
        for _, r in listed.iterrows():
            phi = pd.read_csv(os.path.join(series, r["run_id"] + ".csv"))["order"].to_numpy()
            m2, m4 = moments(phi)
            check(f"real run, noise {r['noise']:g}, seed {r['seed']}: the series' m2 and m4 are "
                  "the runs file's", abs(m2 - r["order_m2"]) < ROUND and
                  abs(m4 - r["order_m4"]) < ROUND, f"{m2}, {m4} against {r['order_m2']}, "
                  f"{r['order_m4']}")
    cut = tp.valley(np.concatenate(by_noise[0.4] + by_noise[0.9]))
    d = tp.two_state_dip(by_noise[0.4] + by_noise[0.9], cut, "settled")
    check(f"real runs: at the valley {cut:.3g}, the runs of 0.4 settle ordered and those of 0.9 "
          "disordered", d["runs_o"] == 2 and d["runs_d"] == 2, str(d))
    g1 = tp.mixture_binder(1.0, d["m2o"], d["m4o"], d["m2d"], d["m4d"])
    g0 = tp.mixture_binder(0.0, d["m2o"], d["m4o"], d["m2d"], d["m4d"])
    check("real runs: G(1) and G(0) are the sweep's order_binder at 0.4 and 0.9",
          abs(g1 - binder[0.4]) < ROUND and abs(g0 - binder[0.9]) < ROUND,
          f"{g1}, {g0} against {binder}")


def main():
    rng = np.random.default_rng(12345)
    ends_and_mixing(rng)
    minimum()
    sample_minimum_deepens(rng)
    pooling(rng)
    if len(sys.argv) > 1:
        real_runs(sys.argv[1])
    return finish()


if __name__ == "__main__":
    sys.exit(main())
