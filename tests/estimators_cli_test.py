#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The estimators in the commands (boids/estimators.h; docs/research.md, section 3).

boids sweep: a tiny Vicsek sweep (N 100 and 300, noise 0.3 and 4.5, 2 seeds) has the
estimator columns; the table's order_chi, order_binder and their jackknife errors, and each
observable's X_se_blocks, X_tau and X_neff, are what the runs file's per-run numbers give
when pooled here by their definitions; the Binder cumulant sits near 2/3 in the ordered phase
and near 1/3 in the disordered one; a resumed sweep writes the same bytes; a runs file of the
version before the estimators is refused by name. boids sim: --estimates, --correlation and
--fluctuations agree with --series (the same samples after --burn-in) and with their own
definitions recomputed here; bad input exits 2 with one message.

usage: estimators_cli_test.py BOIDS_BINARY
"""
import csv
import math
import os
import sys

from harness import check, finish, one_message, run, tmpdir

BOIDS = sys.argv[1]
OBS = ["order", "milling", "nn_distance", "neighbours", "clusters", "largest_cluster",
       "gnf_alpha"]
# 400 steps: at 200 one N 300 run at noise 0.3 is still ordering (its X_se then dwarfs its
# X_se_blocks, the sign of runs in different states).
SWEEP = ["sweep", "--preset", "vicsek", "--steps", "400", "--burn-in", "200", "--sample-every",
         "5", "--key", "noise", "--values", "0.3,4.5", "--counts", "100,300", "--density", "2",
         "--seeds", "2"]


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def read(path):
    with open(path, "rb") as f:
        return f.read()


def close(a, b, rel=1e-8):
    """Equal up to the table's 10 significant digits (the runs file's are exact)."""
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= rel * max(abs(a), abs(b)) + 1e-300


def transition(runs, n):
    """chi and binder pooled over the runs' moments, and their leave-one-out jackknife."""
    def est(rs):
        m1 = sum(float(r["order_avg"]) for r in rs) / len(rs)
        m2 = sum(float(r["order_m2"]) for r in rs) / len(rs)
        m4 = sum(float(r["order_m4"]) for r in rs) / len(rs)
        return n * (m2 - m1 * m1), 1 - m4 / (3 * m2 * m2)
    chi, binder = est(runs)
    k = len(runs)
    loo = [est(runs[:i] + runs[i + 1:]) for i in range(k)]
    se = []
    for j in range(2):
        bar = sum(v[j] for v in loo) / k
        se.append(math.sqrt((k - 1) / k * sum((v[j] - bar) ** 2 for v in loo)))
    return chi, se[0], binder, se[1]


d = tmpdir()
out, runs = os.path.join(d, "t.csv"), os.path.join(d, "r.csv")
p = run(BOIDS, *SWEEP, "--out", out, "--runs-out", runs)
check("sweep exits 0", p.returncode == 0, p.stderr[-500:])
T, R = rows(out), rows(runs)
want = [f"{o}_{s}" for o in OBS for s in ("mean", "se", "se_blocks", "tau", "neff")] + \
    ["order_chi", "order_chi_se", "order_binder", "order_binder_se"]
check("table: the estimator columns", T and all(c in T[0] for c in want),
      T and [c for c in want if c not in T[0]])
check("runs file: tau, se_blocks and the moments",
      R and all(f"{o}_{s}" in R[0] for o in OBS for s in ("avg", "tau", "se_blocks")) and
      "order_m2" in R[0] and "order_m4" in R[0], R and list(R[0]))
check("4 points of 2 runs", len(T) == 4 and len(R) == 8, (len(T), len(R)))
for i, t in enumerate(T):
    pr = R[2 * i:2 * i + 2]
    n = int(t["N"])
    chi, chi_se, binder, binder_se = transition(pr, n)
    check(f"point {i}: order_chi and order_binder pooled from the runs file's moments",
          close(float(t["order_chi"]), chi) and close(float(t["order_binder"]), binder),
          (t["order_chi"], chi, t["order_binder"], binder))
    check(f"point {i}: their jackknife errors over the runs",
          close(float(t["order_chi_se"]), chi_se) and
          close(float(t["order_binder_se"]), binder_se),
          (t["order_chi_se"], chi_se, t["order_binder_se"], binder_se))
    ok = True
    for o in OBS:
        se = [float(r[f"{o}_se_blocks"]) for r in pr]
        tau = [float(r[f"{o}_tau"]) for r in pr]
        samples = [int(r["samples"]) for r in pr]
        ok &= close(float(t[f"{o}_se_blocks"]), math.sqrt(sum(s * s for s in se)) / len(pr))
        ok &= close(float(t[f"{o}_tau"]), sum(tau) / len(pr))
        ok &= close(float(t[f"{o}_neff"]), sum(s / x for s, x in zip(samples, tau)))
    check(f"point {i}: X_se_blocks, X_tau, X_neff from the runs' numbers", ok)
    # gnf_alpha needs 2 fit levels (16 boxes with >= 4 boids): none at N 100, some at 300.
    check(f"point {i}: gnf_alpha defined exactly when N >= 256",
          math.isnan(float(t["gnf_alpha_mean"])) == (n < 256), t["gnf_alpha_mean"])
# Ordered: phi near 1 with small fluctuations, Binder 2/3 less (2/3) var(phi^2) / <phi^2>^2,
# tiny. Disordered: phi a sum of nearly independent headings, Binder 1/3 + 1/(3N); with 82
# samples its sd is about 2 / (3 sqrt(82)) = 0.074, and 0.25 is more than 3 of them.
for t in T:
    b, noise = float(t["order_binder"]), t["noise"]
    if noise == "0.3":
        check(f"N {t['N']} noise 0.3: Binder near 2/3", abs(b - 2 / 3) < 0.03, b)
    else:
        check(f"N {t['N']} noise 4.5: Binder near 1/3", abs(b - 1 / 3) < 0.25, b)
        check(f"N {t['N']} noise 4.5: tau > 0 and n_eff > 0",
              float(t["order_tau"]) > 0 and float(t["order_neff"]) > 0, t["order_tau"])

# Resume: a journal of the first 3 runs, then --resume: the same bytes.
d2 = tmpdir()
out2, runs2 = os.path.join(d2, "t.csv"), os.path.join(d2, "r.csv")
with open(runs, newline="") as f:
    lines = f.readlines()
with open(runs2 + ".partial", "w", newline="") as f:
    f.writelines(lines[:4])
p = run(BOIDS, *SWEEP, "--out", out2, "--runs-out", runs2, "--resume")
check("resume exits 0 and skips 3 runs", p.returncode == 0 and "3 of 8 runs" in p.stderr,
      p.stderr[-400:])
check("resumed table and runs file are byte-identical",
      os.path.exists(out2) and read(out2) == read(out) and read(runs2) == read(runs))

# A runs file from before the estimators: its header stops after largest_cluster_avg.
d3 = tmpdir()
runs3 = os.path.join(d3, "r.csv")
head = lines[0].rstrip("\n").split(",")
old = head[:head.index("largest_cluster_avg") + 1]
with open(runs3, "w") as f:
    f.write(",".join(old) + "\n")
    f.write(",".join(lines[1].rstrip("\n").split(",")[:len(old)]) + "\n")
p = run(BOIDS, *SWEEP, "--runs-out", runs3, "--resume")
one_message("an old runs file", p, [runs3, "line 1", "older version"])

# A resumed row whose tau is not > 0, whose moment is outside [0, 1], or whose moments no
# series has (order_m2 below order_avg squared, order_m4 below order_m2 squared: a negative
# susceptibility once pooled): refused by column.
for col, value in (("order_tau", "0"), ("order_m4", "1.5"), ("order_m2", "0"),
                   ("order_m4", "0")):
    d4 = tmpdir()
    runs4 = os.path.join(d4, "r.csv")
    i = head.index(col)
    row = lines[1].rstrip("\n").split(",")
    row[i] = value
    with open(runs4 + ".partial", "w") as f:
        f.write(lines[0] + ",".join(row) + "\n")
    p = run(BOIDS, *SWEEP, "--runs-out", runs4, "--resume")
    one_message(f"a journal row with {col} {value}", p, [runs4, "line 2", col])

# boids sim: the estimates of the samples after burn-in, against the series.
SIM = ["sim", "--preset", "vicsek", "-n", "300", "--set", "noise=1", "--steps", "200",
       "--every", "4", "--burn-in", "60"]
files = {k: os.path.join(d, f"{k}.csv") for k in ("s", "e", "c", "f")}
p = run(BOIDS, *SIM, "--series", files["s"], "--estimates", files["e"], "--correlation",
        files["c"], "--fluctuations", files["f"])
check("sim with the estimators exits 0", p.returncode == 0, p.stderr[-500:])
S = rows(files["s"])
E = rows(files["e"])[0]
C = rows(files["c"])
F = rows(files["f"])
kept = [r for r in S if int(r["step"]) >= 60]
check("estimates: samples are the series' rows at steps >= burn-in",
      int(E["samples"]) == len(kept) == 36 and E["N"] == "300", (E["samples"], len(kept)))
series_obs = [c for c in S[0] if c != "step"]
check("series: the six metrics, gnf_alpha, corr_length (the range of --correlation)",
      series_obs == OBS + ["corr_length"], series_obs)
ok = True
for o in series_obs:
    x = [float(r[o]) for r in kept]
    mean = sum(x) / len(x)  # the same sum in the same order: equal to the bit
    ok &= close(float(E[f"{o}_mean"]), mean, 1e-15)
check("estimates: X_mean is the mean of the series after burn-in", ok)


def sokal_tau(x):
    n, m = len(x), sum(x) / len(x)
    c0 = sum((v - m) ** 2 for v in x) / n
    tau = 1.0
    for t in range(1, n):
        tau += 2 * sum((x[i] - m) * (x[i + t] - m) for i in range(n - t)) / n / c0
        if t >= 5 * tau:
            return tau
    return tau


phi = [float(r["order"]) for r in kept]
check("estimates: order_tau is Sokal's windowed tau of the series (rounding only)",
      close(float(E["order_tau"]), sokal_tau(phi), 1e-9), (E["order_tau"], sokal_tau(phi)))
check("estimates: order_neff = samples / order_tau",
      close(float(E["order_neff"]), len(phi) / float(E["order_tau"]), 1e-12))
m1, m2 = sum(phi) / len(phi), sum(v * v for v in phi) / len(phi)
m4 = sum(v ** 4 for v in phi) / len(phi)
check("estimates: order_chi and order_binder of this run's samples",
      close(float(E["order_chi"]), 300 * (m2 - m1 * m1), 1e-9) and
      close(float(E["order_binder"]), 1 - m4 / (3 * m2 * m2), 1e-12),
      (E["order_chi"], E["order_binder"]))
# C(r): 50 bins of [0, half the side); c = sum / pairs, nan exactly where no pair fell.
check("correlation: 50 bins, pairs >= 0, c nan exactly without pairs",
      len(C) == 50 and all(float(r["pairs"]) >= 0 for r in C) and
      all(math.isnan(float(r["c"])) == (float(r["pairs"]) == 0) for r in C), len(C))
first, length = True, float("nan")
prev = None
for r in C:
    if float(r["pairs"]) == 0:
        continue
    c, x = float(r["c"]), float(r["r"])
    if c <= 0:
        length = 0.0 if first else prev[0] + (x - prev[0]) * prev[1] / (prev[1] - c)
        break
    first, prev = False, (x, c)
check("estimates: corr_length_pooled is the first zero of the pooled C(r)",
      close(float(E["corr_length_pooled"]), length, 1e-9), (E["corr_length_pooled"], length))
fit = [(math.log(float(r["mean"])), math.log(float(r["sd"]))) for r in F if r["fitted"] == "1"]
ok = len(fit) >= 2 and all(close(float(r["mean"]), 300 / float(r["boxes"]), 1e-15) for r in F)
if ok:
    k, sx, sy = len(fit), sum(a for a, _ in fit), sum(b for _, b in fit)
    sxx, sxy = sum(a * a for a, _ in fit), sum(a * b for a, b in fit)
    ok = close(float(E["gnf_alpha_pooled"]), (k * sxy - sx * sy) / (k * sxx - sx * sx), 1e-9)
check("fluctuations: mean = N / boxes, gnf_alpha_pooled the slope of the fitted levels", ok,
      E.get("gnf_alpha_pooled"))
check("every output has its sidecar", all(os.path.exists(v + ".json") for v in files.values()))

# Bad input: one message, exit 2, nothing written.
bad = os.path.join(d, "bad.csv")
p = run(BOIDS, "sim", "-n", "50", "--steps", "100", "--estimates", bad)
one_message("estimates without --every", p, ["--estimates", "2 samples"])
p = run(BOIDS, "sim", "-n", "50", "--steps", "100", "--every", "10", "--burn-in", "101",
        "--estimates", bad)
one_message("burn-in beyond the steps", p, ["--burn-in", "101"])
p = run(BOIDS, "sim", "-n", "50", "--steps", "100", "--every", "10", "--burn-in", "50")
one_message("burn-in with no estimator to use it", p, ["--burn-in", "--estimates"])
p = run(BOIDS, "sim", "-n", "50", "--set", "boundary=walls", "--steps", "100", "--every", "10",
        "--correlation", bad)
one_message("correlation in walls without a range", p, ["--correlation-range"])
p = run(BOIDS, "sim", "-n", "50", "--steps", "100", "--every", "10", "--correlation-range",
        "1e6", "--series", bad)
one_message("a range beyond half the side", p, ["--correlation-range", "half"])
p = run(BOIDS, "sweep", "--key", "noise", "--values", "1", "-n", "50", "--steps", "10",
        "--correlation-bins", "20", "--out", bad)
one_message("bins without a correlation range", p, ["--correlation-bins", "range"])
check("nothing written by a refused run", not os.path.exists(bad))
finish()
