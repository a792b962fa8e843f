#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A saved state is plain CSV plus a JSON sidecar, and resuming from it continues the run: 200
steps equal 100 steps, --save, --load and 100 more, bit for bit, in 2-D and 3-D, Reynolds and
Vicsek, on cpu-ref, on cpu (its cells keep their boids in id order, so the result does not
depend on the order a load gives them) and on the gpu (deterministic mode). The sidecar carries
the step and the noise seed, so the resumed run needs no --seed; an explicit --seed that
differs wins with a note. pandas.read_csv reads a state with no options. A .npy state (numpy.load reads it) resumes to
the same bytes as the CSV state, and CSV -> .npy -> CSV gives the CSV's bytes again. States saved by the
float backends load back under the same parameters (their speeds are within
BOIDS_SPEED_TOLERANCE). A file of boids 0.3 (`# step=K` and `# dim=3` lines) still loads. With
a config's points and obstacles (circles in 2-D; points with z and spheres in 3-D) a run
resumes bit for bit on every backend, and `boids verify` with that config passes on cpu.

usage: resume_test.py BOIDS_BINARY
"""
import json
import os
import sys

from harness import check, finish, run, runnable_backends, tmpdir

BOIDS = sys.argv[1]
d = tmpdir()
backends = runnable_backends(BOIDS)

# Vicsek with noise (eta 2, and 1.5 in 3-D), and a Reynolds flock (classic) for the
# float clamp; the seed 5 draws the initial state and, for Vicsek, the noise stream.
D3 = ["--set", "dim=3"]
models = {"2-D vicsek": ["--preset", "vicsek", "--seed", "5"],
          "2-D reynolds": ["--preset", "classic", "--seed", "5", "--set", "noise_seed=3"],
          "3-D vicsek": ["--preset", "vicsek", *D3, "--set", "noise=1.5", "--seed", "5", "-n", "300"],
          "3-D reynolds": ["--preset", "classic", *D3, "--seed", "5", "-n", "300", "--set", "fov=270"]}
STEPS = {"2-D": 100, "3-D": 40}
headers = {"2-D": ["x", "y", "vx", "vy"], "3-D": ["x", "y", "z", "vx", "vy", "vz"]}


def without_seed(args):
    """The run's options less --seed: the sidecar brings the noise seed back."""
    i = args.index("--seed")
    return args[:i] + args[i + 2:]


for backend in backends:
    for model, args in models.items():
        dim, k = model[:3], STEPS[model[:3]]
        name = lambda part: os.path.join(d, f"{backend}-{model.replace(' ', '-')}-{part}.csv")
        one, half, two = name("one"), name("half"), name("two")
        run(BOIDS, "sim", "--backend", backend, *args, "--steps", str(2 * k), "--save", one, check_rc=0)
        run(BOIDS, "sim", "--backend", backend, *args, "--steps", str(k), "--save", half, check_rc=0)
        p = run(BOIDS, "sim", "--backend", backend, *without_seed(args), "--load", half, "--steps",
                str(k), "--save", two, check_rc=0)
        a, b = open(one).read(), open(two).read()
        check(f"{backend} {model}: {2 * k} steps == {k} + save/load (no --seed) + {k}, bit for bit",
              a == b)
        check(f"{backend} {model}: no note when the seed comes from the sidecar", p.stderr == "",
              p.stderr)
        check(f"{backend} {model}: the CSV is its header and the boids, no comment line",
              a.startswith(",".join(headers[dim]) + "\n") and "#" not in a, a[:60])
        meta = json.load(open(one + ".json"))
        n = a.count("\n") - 1
        seed = 3 if model == "2-D reynolds" else 5
        check(f"{backend} {model}: the sidecar says step {2 * k}, noise seed {seed}, dim, N",
              meta.get("step") == 2 * k and meta.get("noise_seed") == seed and
              meta.get("dim") == int(dim[0]) and meta.get("n") == n and
              len(meta.get("flock_hash", "")) == 16, meta)
        check(f"{backend} {model}: the two sidecars agree", meta == json.load(open(two + ".json")))
        # The same resume through a .npy state: the same final bytes as through the CSV.
        half_npy, two_npy = name("half")[:-4] + ".npy", name("two-npy")
        run(BOIDS, "sim", "--backend", backend, *args, "--steps", str(k), "--save", half_npy,
            check_rc=0)
        run(BOIDS, "sim", "--backend", backend, *without_seed(args), "--load", half_npy, "--steps",
            str(k), "--save", two_npy, check_rc=0)
        check(f"{backend} {model}: resumed from the .npy state == resumed from the CSV state",
              open(two_npy).read() == b and
              json.load(open(two_npy + ".json")) == json.load(open(two + ".json")))
        check(f"{backend} {model}: the .npy state's sidecar is the CSV's",
              json.load(open(half_npy + ".json")) == json.load(open(half + ".json")))

# The interaction table: a run with a config's points and obstacles resumes bit for bit, and
# verify checks the config's table on cpu against cpu-ref. classic's 400-wide world kept
# (--fixed-world), which the points and obstacles are placed in.
tables = {"2-D": "predator.0 = 100 100 80 2\nattractor.3 = 300 250 60 4\n"
                 "obstacle = circle 200 200 40\nobstacle = circle 0 0 30\n",
          "3-D": "predator.0 = 100 100 100 80 2\nattractor.3 = 300 250 60 4\n"
                 "obstacle = sphere 200 200 200 40\nobstacle = sphere 0 0 0 30\n"}
for dim, text in tables.items():
    table = os.path.join(d, f"table-{dim}.ini")
    with open(table, "w") as f:
        f.write(text)
    with_table = ["--preset", "classic", "--set", f"dim={dim[0]}", "-n", "300", "--fixed-world",
                  "--seed", "4", "--config", table]
    for backend in backends:
        one, half, two = (os.path.join(d, f"{backend}-{dim}-table-{k}.csv")
                          for k in ("one", "half", "two"))
        run(BOIDS, "sim", "--backend", backend, *with_table, "--steps", "40", "--save", one, check_rc=0)
        run(BOIDS, "sim", "--backend", backend, *with_table, "--steps", "20", "--save", half,
            check_rc=0)
        run(BOIDS, "sim", "--backend", backend, *with_table, "--load", half, "--steps", "20",
            "--save", two, check_rc=0)
        check(f"{backend} {dim} with points and obstacles: 40 steps == 20 + save/load + 20",
              open(one).read() == open(two).read())
    p = run(BOIDS, "verify", "--set", f"dim={dim[0]}", "--config", table, "--backends", "cpu",
            "-n", "500", "--scenarios", "random,walls", "--seeds", "0")
    check(f"{dim} verify with the config's points and obstacles passes on cpu",
          p.returncode == 0 and "all checks passed" in p.stdout, p.stdout[-800:] + p.stderr)

# A Vicsek run resumed with another explicit --seed: that seed's noise, with a note.
base = models["2-D vicsek"]
half, other, ref = (os.path.join(d, f"seed-{k}.csv") for k in ("half", "other", "ref"))
run(BOIDS, "sim", *base, "--steps", "100", "--save", half, check_rc=0)
p = run(BOIDS, "sim", *without_seed(base), "--seed", "9", "--load", half, "--steps", "100",
        "--save", other, check_rc=0)
check("an explicit --seed that differs from the sidecar's: one note naming both seeds",
      len(p.stderr.splitlines()) == 1 and "noise_seed 5" in p.stderr and "9 from --seed" in p.stderr,
      p.stderr)
run(BOIDS, "sim", *base, "--set", "noise_seed=9", "--load", half, "--steps", "100", "--save", ref,
    check_rc=0)
check("... and it draws that seed's noise (as --set noise_seed=9)", open(other).read() == open(ref).read())
check("... which is not the saved run's continuation",
      open(other).read() != open(os.path.join(d, "cpu-ref-2-D-vicsek-one.csv")).read())
p = run(BOIDS, "sim", *base, "--load", half, "--steps", "1", check_rc=0)
check("--seed equal to the sidecar's: no note", p.stderr == "", p.stderr)

# No sidecar: step 0 (the file alone is the state); a file of boids 0.3 still loads.
bare = os.path.join(d, "bare.csv")
with open(half) as f, open(bare, "w") as g:
    g.write(f.read())
run(BOIDS, "sim", *base, "--load", bare, "--steps", "0", "--save", bare + ".out", check_rc=0)
check("a state without a sidecar is at step 0", json.load(open(bare + ".out.json"))["step"] == 0)
legacy = os.path.join(d, "legacy.csv")
with open(half) as f, open(legacy, "w") as g:
    g.write("# step=100\n" + f.read())
back = os.path.join(d, "legacy-back.csv")
run(BOIDS, "sim", *base, "--load", legacy, "--steps", "100", "--save", back, check_rc=0)
check("a boids 0.3 file (`# step=K` line) resumes at its step",
      open(back).read() == open(os.path.join(d, "cpu-ref-2-D-vicsek-one.csv")).read())
legacy3 = os.path.join(d, "legacy3.csv")
with open(os.path.join(d, "cpu-3-D-reynolds-half.csv")) as f, open(legacy3, "w") as g:
    g.write("# step=40\n# dim=3\n" + f.read())
run(BOIDS, "sim", "--backend", "cpu", *models["3-D reynolds"], "--load", legacy3, "--steps", "40",
    "--save", back, check_rc=0)
check("a boids 0.3 3-D file (`# dim=3` line) resumes",
      open(back).read() == open(os.path.join(d, "cpu-3-D-reynolds-one.csv")).read())

# pandas, no options: N rows, the named columns.
try:
    import pandas
    for dim, path in [("2-D", "cpu-2-D-vicsek-one.csv"), ("3-D", "cpu-3-D-reynolds-one.csv")]:
        frame = pandas.read_csv(os.path.join(d, path))
        n = json.load(open(os.path.join(d, path) + ".json"))["n"]
        check(f"pandas.read_csv of a {dim} state: {n} rows, columns {headers[dim]}",
              frame.shape == (n, len(headers[dim])) and list(frame.columns) == headers[dim],
              f"{frame.shape} {list(frame.columns)}")
        # pandas' default parser (xstrtod) sums the 17 digits in double and is off by up to
        # 7e-13 relative here (pandas 1.5); 1e-11 bounds that, and round_trip is exact.
        exact = [[float(v) for v in line.split(",")]
                 for line in open(os.path.join(d, path)).read().splitlines()[1:]]
        close = all(abs(a - b) <= 1e-11 * abs(b) for r, e in zip(frame.to_numpy().tolist(), exact)
                    for a, b in zip(r, e))
        check(f"pandas.read_csv of a {dim} state: the values within pandas' parser's rounding", close)
        frame = pandas.read_csv(os.path.join(d, path), float_precision="round_trip")
        check(f"pandas.read_csv(float_precision='round_trip') of a {dim} state: the values exactly",
              frame.to_numpy().tolist() == exact)
except ImportError:
    check("pandas is installed (Debian python3-pandas, in .ci/install-deps)", False)

# CSV -> .npy -> CSV (`--steps 0`): the same bytes as the CSV, sidecar included; numpy.load
# reads the .npy state as the CSV's values, exactly.
for dim, path in [("2-D", "cpu-ref-2-D-vicsek-half.csv"), ("3-D", "cpu-ref-3-D-reynolds-half.csv")]:
    args = models["2-D vicsek" if dim == "2-D" else "3-D reynolds"]
    csv, mid, back = os.path.join(d, path), os.path.join(d, f"mid-{dim}.npy"), os.path.join(d, f"back-{dim}.csv")
    run(BOIDS, "sim", *without_seed(args), "--load", csv, "--steps", "0", "--save", mid, check_rc=0)
    run(BOIDS, "sim", *without_seed(args), "--load", mid, "--steps", "0", "--save", back, check_rc=0)
    check(f"{dim}: CSV -> .npy -> CSV gives the CSV's bytes",
          open(back).read() == open(csv).read() and
          open(back + ".json").read() == open(csv + ".json").read())
    try:
        import numpy
        a = numpy.load(mid)
        exact = [[float(v) for v in line.split(",")] for line in open(csv).read().splitlines()[1:]]
        check(f"{dim}: numpy.load of the .npy state: '<f8', shape (N, {len(headers[dim])}), the "
              "CSV's values exactly", a.dtype == numpy.dtype("<f8") and
              a.shape == (len(exact), len(headers[dim])) and a.tolist() == exact, f"{a.dtype} {a.shape}")
    except ImportError:
        check("numpy is installed (Debian python3-numpy, in .ci/install-deps)", False)

for backend in ["cpu"] + backends[2:]:
    for model, args in models.items():
        saved = os.path.join(d, f"float-{backend}-{model.replace(' ', '-')}.csv")
        run(BOIDS, "sim", "--backend", backend, *args, "--steps", "50", "--save", saved, check_rc=0)
        p = run(BOIDS, "sim", "--backend", "cpu-ref", *args, "--load", saved, "--steps", "1")
        check(f"a {model} state saved by {backend} loads under its parameters", p.returncode == 0,
              p.stderr)
finish()
