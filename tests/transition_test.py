#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The shapes of the published results docs/transition.md reproduces, on tiny sweeps of the
Vicsek model (cpu backend, v0 = 0.03, R = 1, periodic square worlds):

  - Vicsek et al. 1995, Fig. 2b: at noise eta = 2 in a world of side 20, the order rises with
    the density N / 400.
  - the Binder cumulant order_binder near 2/3 deep in the ordered phase (low noise) and near
    1/3 deep in the disordered one (high noise), 2-D;
  - the number-fluctuation exponent gnf_alpha near 1/2 in the disordered phase and above it
    in the ordered one (Chate et al. 2008);
  - the correlation length corr_length larger in the larger of two ordered flocks at the same
    density (Cavagna et al. 2010: xi grows in proportion to L).

With the argument `chate`, the vectorial (extrinsic) noise of Chate et al. 2008 (`--preset
chate`: v0 = 0.5, R = 1, density 2) instead, the guard of section 5 of docs/transition.md:
the same two Binder limits, and a travelling band near the onset (a dense, ordered slab
across the heading, a dilute, disordered gas beside it).

Each threshold comes from the physics of the state it tests, with its margin stated where it
is used; none is read off a run of this program.

usage: transition_test.py BOIDS_BINARY [chate]
"""
import csv
import io
import math
import os
import sys
import tempfile

from harness import check, finish, read_state, run

BOIDS = sys.argv[1]
VICSEK = ["sweep", "--preset", "vicsek", "--backend", "cpu", "--threads", "2"]
CHATE = ["sweep", "--preset", "chate", "--backend", "cpu", "--threads", "2"]


def sweep(*args, model=VICSEK):
    """The table of `boids sweep ARGS` (on stdout), one dict of floats per point."""
    p = run(BOIDS, *model, *args, check_rc=0)
    rows = list(csv.DictReader(io.StringIO(p.stdout)))
    return [{k: float(v) for k, v in r.items()} for r in rows]


def order_rises_with_density():
    """Vicsek et al. 1995, Fig. 2b. Densities 0.1, 0.5, 2 and 4 (N = 40 .. 1600 in a side of
    20). From a random start a world of side 20 is crossed in 667 steps at v0 = 0.03; the
    burn-in is 1.5 crossings and the samples span another 1.5, enough for the order to be
    past its fast initial rise at every density (the slower merging of domains at the
    largest N only lowers its value, so the rise the test asserts is not one the transient
    makes). Monotone within the error: each step up in density may not lower the mean by
    more than 2 combined standard errors (a 2.3 % chance for one step of a flat curve, with
    Gaussian errors); and the whole rise must be more than 5 of them, far beyond chance."""
    t = sweep("--key", "noise", "--values", "2", "--fixed-world", "--set", "width=20",
              "--set", "height=20", "--counts", "40,200,800,1600", "--seeds", "3",
              "--steps", "2000", "--burn-in", "1000", "--sample-every", "20")
    o = [(r["N"] / 400, r["order_mean"], r["order_se"]) for r in t]
    for (r0, o0, s0), (r1, o1, s1) in zip(o, o[1:]):
        check(f"eta 2, side 20: order at density {r1:g} not below density {r0:g} "
              "(2 combined SE)", o1 > o0 - 2 * math.hypot(s0, s1), f"{o}")
    (r0, o0, s0), (r1, o1, s1) = o[0], o[-1]
    check(f"eta 2, side 20: order rises from density {r0:g} to {r1:g} by more than 5 SE",
          o1 - o0 > 5 * math.hypot(s0, s1), f"{o}")


def binder_limit(r, label, disordered):
    """The Binder cumulant of one point at its limit: in [0.2, 0.45] (1/3) when disordered,
    after checking that the point holds the independent samples that make those bounds 3
    standard errors wide; above 0.6 (2/3) when ordered (binder_and_gnf_limits says why)."""
    b = r["order_binder"]
    if disordered:
        check(f"{label}: enough independent samples for the Binder bounds (> 313)",
              r["order_neff"] > 313, f"order_neff {r['order_neff']}")
        check(f"{label}: order_binder in [0.2, 0.45] (1/3: a Gaussian order vector)",
              0.2 <= b <= 0.45, f"{b}")
    else:
        check(f"{label}: order_binder above 0.6 (2/3: a sharp order)", b > 0.6, f"{b}")


def binder_and_gnf_limits():
    """One sweep, eta = 0.5 (ordered) and eta = 5 (disordered) at density 2, N = 100 and 1024.

    Binder, disordered: phi = |m| with m the mean of N headings that are independent beyond a
    few neighbours, so m is a 2-component Gaussian and 1 - <phi^4> / (3 <phi^2>^2) is 1/3
    (1/3 + 1/(3N) exactly for independent headings: 0.337 at N = 100). Its statistical error
    from n independent samples is (2/3) / sqrt(n) (the delta method on <x^2> / <x>^2 with x
    = phi^2 exponential). The bounds [0.2, 0.45] are 0.13 below and 0.11 above, so they are
    at least 3 standard errors wide when the run holds n > 313 independent samples: the
    test checks that of order_neff (summed over the seeds) first; it is about 1,200 here,
    which also leaves 3 standard errors above the few hundredths by which correlated
    headings raise the value of the small world (side 7; docs/transition.md, section 2).
    Binder, ordered: phi = m + d with small fluctuations d of sd s gives 2/3 - (4/3)(s/m)^2;
    above 0.6 means s/m < 0.22, which any flock that has ordered (phi near 1) meets and one
    that has not (runs split between ordered and not) misses.
    gnf_alpha, disordered: at eta = 5 the headings decorrelate within a step or two and the
    boids cluster only over a couple of lengths, so from their uniform start the counts in
    boxes stay Poisson-like, Delta n proportional to sqrt(<n>) and alpha = 1/2 (the fixed
    total lowers it by about 0.01; docs/transition.md, section 3, finds 0.51 over a long run
    of 6,400). N = 1024 gives three fit levels (16, 64 and 256 boxes, <n> = 64, 16, 4):
    a standard deviation from B boxes has a relative error of 1/sqrt(2B), which makes the
    least-squares slope's standard deviation 0.066 for one independent state, and 0.033 for
    the mean over 4 seeds: [0.4, 0.6] is 3 of those each way. Ordered: the flock gathers in
    dense moving groups and alpha rises towards 0.8 (Chate et al.'s value for 2-D polar
    flocks): above 0.6, 6 of those standard errors below 0.8."""
    t = sweep("--key", "noise", "--values", "0.5,5", "--counts", "100,1024", "--density", "2",
              "--seeds", "4", "--steps", "2000", "--burn-in", "500", "--sample-every", "5")
    for r in t:
        n, eta = int(r["N"]), r["noise"]
        binder_limit(r, f"N {n}, eta {eta:g}", disordered=eta > 1)
        if n < 256:
            continue  # fewer than 2 fit levels: gnf_alpha is NaN by definition
        a = r["gnf_alpha_mean"]
        if eta > 1:
            check(f"N {n}, eta 5: gnf_alpha in [0.4, 0.6] (1/2: Poisson)", 0.4 <= a <= 0.6, f"{a}")
        else:
            check(f"N {n}, eta 0.5: gnf_alpha above 0.6 (giant fluctuations)", a > 0.6, f"{a}")


def corr_length_grows_with_size():
    """Two ordered flocks (eta = 0.5) at density 2: N = 100 (side 7.07) and N = 400 (side
    14.1), each with a correlation range just below half its side, in bins of the same width
    (0.5) so that both resolve the zero alike. In the ordered phase the velocity fluctuations
    are correlated across the whole flock, and since they sum to zero C(r) crosses zero at a
    fixed fraction of the side: xi doubles from the small world to the large. The test asks
    only that the larger is larger by more than 3 combined standard errors of the seeds'
    means (the property, not the factor)."""
    xi = []
    for n, r in ((100, 3.5), (400, 7)):
        row = sweep("--key", "noise", "--values", "0.5", "--counts", str(n), "--density", "2",
                    "--seeds", "3", "--steps", "2000", "--burn-in", "1000",
                    "--sample-every", "20", "--correlation-range", str(r),
                    "--correlation-bins", str(int(r / 0.5)))[0]
        xi.append((n, row["corr_length_mean"], row["corr_length_se"]))
    (n0, x0, s0), (n1, x1, s1) = xi
    check(f"eta 0.5, density 2: corr_length at N {n1} above N {n0} by more than 3 SE",
          x1 - x0 > 3 * math.hypot(s0, s1), f"{xi}")


def vectorial_binder_limits():
    """Vectorial noise (`--preset chate`, density 2), N = 512 (side 16), noise 0.4 and 0.9,
    well on either side of the onset, which lies near 0.62 at this density (docs/transition.md,
    section 5: the order falls from 0.77 to 0.05 between 0.6 and 0.635 at N = 2,048).
    Ordered at 0.4: in an aligned neighbourhood the noise vector, 0.4 n long against the n
    aligned headings, turns the new heading by at most asin(0.4) = 24 degrees, independently
    from boid to boid, so m stays close to its mean and phi is sharp: above 0.6 as for
    angular noise. Disordered at 0.9: m is the mean of 512 headings that decorrelate within a
    step or two, a 2-component Gaussian, and the bounds [0.2, 0.45] with their check of
    order_neff (> 313) are those of binder_and_gnf_limits. 3 seeds of 2,000 steps, samples
    every 5 steps from step 1,000: a boid crosses the world in 32 steps, so the burn-in is 30
    crossings, well past the ordering of a world this small."""
    t = sweep("--key", "noise", "--values", "0.4,0.9", "--counts", "512", "--density", "2",
              "--seeds", "3", "--steps", "2000", "--burn-in", "1000", "--sample-every", "5",
              model=CHATE)
    for r in t:
        binder_limit(r, f"vectorial, N {int(r['N'])}, noise {r['noise']:g}",
                     disordered=r["noise"] > 0.62)


def vectorial_band_near_onset():
    """N = 8,192 in a world of side 64 at vectorial noise 0.62, just below the onset (between
    0.6275 and 0.6325 at this size, docs/transition.md section 5), 4,000 steps from a random
    start (a boid crosses the world 31 times; the cpu backend gives the same bits on 1 and 2
    threads). The state is cut into 32 slabs (2 long) across the world's axis nearer the mean
    heading: a band is a slab region across the heading, so it shows in these counts. Seeds 1
    (after 3,000 steps), 2 and 3 (4,000) of the same run gave: order 0.72, 0.60, 0.74; the
    sparsest slab 0.04, 0.07, 0.12 of the mean count and the densest 2.6, 4.4, 6.2 times it;
    the 8 densest slabs polarized 0.71, 0.70, 0.81 along the heading against 0.37, 0.25, 0.33
    for the 8 sparsest. The bounds, each with its reason:
    - ordered: order above 0.5 (a disordered flock, 0.02 to 0.05 at this size, has no band;
      the check keeps the others from passing or failing for the wrong reason);
    - non-uniform beyond chance: the sparsest slab below 0.3 of the mean count and the
      densest above 2 times it. Uniformly placed boids put a binomial 256 +- 16 in a slab, so
      0.3 and 2 are 11 and 16 standard deviations away; the clustering of a disordered flock
      at noise 0.63 spans only 0.57 to 1.61 of the mean (one run, 16 slabs of 4);
    - the dense slabs are the ordered ones: the polarization along the heading of the boids
      of the 8 densest slabs exceeds that of the 8 sparsest by more than 0.25. The sparsest 8
      held 363 boids or more in the runs above, so were the headings independent of the
      density their polarization would scatter by at most 1 / sqrt(2 x 363) = 0.04 about the
      dense slabs': 0.25 is 6 of those (the disordered run gives 0.06; a homogeneous ordered
      flock has the same polarization in every slab)."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "band.csv")
        run(BOIDS, "sim", "--preset", "chate", "--backend", "cpu", "--threads", "2", "-n", "8192",
            "--set", "width=64", "--set", "height=64", "--set", "noise=0.62", "--steps", "4000",
            "--seed", "2", "--order-only", "--save", path, check_rc=0)
        state = read_state(path)
    n, side, bins = len(state), 64.0, 32
    vx, vy = sum(b[2] for b in state), sum(b[3] for b in state)
    order = math.hypot(vx, vy) / sum(math.hypot(b[2], b[3]) for b in state)
    check("vectorial 0.62, N 8192: the flock has ordered (order above 0.5)", order > 0.5,
          f"{order}")
    axis = 0 if abs(vx) >= abs(vy) else 1
    sign = 1 if (vx, vy)[axis] > 0 else -1
    counts, along = [0] * bins, [0.0] * bins
    for b in state:
        k = min(int(b[axis] % side / side * bins), bins - 1)
        counts[k] += 1
        along[k] += sign * b[2 + axis] / math.hypot(b[2], b[3])
    mean = n / bins
    lo, hi = min(counts) / mean, max(counts) / mean
    check("vectorial 0.62, N 8192: slabs across the heading non-uniform (sparsest < 0.3, "
          "densest > 2 times the mean)", lo < 0.3 and hi > 2, f"{lo} {hi} {counts}")
    ranked = sorted(range(bins), key=lambda k: counts[k])
    pol = [sum(along[k] for k in ks) / sum(counts[k] for k in ks)
           for ks in (ranked[-8:], ranked[:8])]
    check("vectorial 0.62, N 8192: the 8 densest slabs more polarized than the 8 sparsest by "
          "more than 0.25", pol[0] - pol[1] > 0.25, f"{pol}")


if sys.argv[2:] == ["chate"]:
    vectorial_binder_limits()
    vectorial_band_near_onset()
else:
    order_rises_with_density()
    binder_and_gnf_limits()
    corr_length_grows_with_size()
finish()
