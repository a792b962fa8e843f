#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""boids-bench --quick runs and writes well-formed CSV and JSON naming every backend and every
GPU stage, with the trust columns consistent; a point taken while busy processes hold every core
is flagged untrusted; --baseline (this same binary) gives paired rows and ratios; skipped points
are listed; bad flags exit 2. Checks the harness only: no timing is ever compared with a bound,
since the machine running the tests may be loaded or slow.

usage: quick_test.py BOIDS_BENCH
"""
import csv
import json
import math
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
from harness import check, finish, gpu_required  # noqa: E402

BENCH = sys.argv[1]
BACKENDS = ["cpu-ref", "cpu-1t", "cpu-all", "gpu", "gpu-det"]
STAGES = ["clear", "count", "scan", "scatter", "sort", "steer"]


def positive(v):
    return isinstance(v, (int, float)) and math.isfinite(v) and v > 0


def fmt_n(n):
    """The sizes as the report prints them: 1k, 10M, 2500."""
    n = int(n)
    if n >= 1000000 and n % 1000000 == 0:
        return f"{n // 1000000}M"
    if n >= 1000 and n % 1000 == 0:
        return f"{n // 1000}k"
    return str(n)


def half_unit(text):
    """Half a unit of the last digit printed in text ("45" -> 0.5, "1.9" -> 0.05)."""
    return 0.5 * 10.0 ** -(len(text.split(".")[1]) if "." in text else 0)


def check_report(tag, stdout, rows, flock="random"):
    """Every line of the report fits 100 columns; one summary line per N of the sweep and
    flock ("N=1k:" the random start, "N=1k formed:") whose ratios are the CSV's speedups (full
    precision) and the table's medians' ratios (4 significant digits), naming only backends
    measured at that N."""
    wide = [ln for ln in stdout.splitlines() if len(ln) > 100]
    check(f"{tag}: every line of the report at most 100 columns", not wide, wide[:3])
    ok = {(r["backend"], int(r["n"])): r for r in rows
          if r["state"] == "ok" and "@" not in r["backend"] and r["flock"] == flock}
    table = {}  # (backend, N as printed) -> ms/step as printed, from the first table
    lines = stdout.splitlines()
    start = next((i for i, ln in enumerate(lines) if ln.split()[:2] == ["backend", "thr"]), None)
    check(f"{tag}: the table's header", start is not None, stdout[:800])
    for ln in lines[start + 1 if start is not None else len(lines):]:
        f = ln.split()
        if not f:
            break
        if f[3] == flock:  # the row's name: the backend, cpu-all with its threads "(2t)"
            table[(f[0].split("(")[0] + ("@baseline" if "@" in f[0] else ""), f[2])] = float(f[5])
    col = {"cpu-1t": "speedup_vs_cpu_1t", "cpu-all": "speedup_vs_cpu_all", "cpu-ref": "speedup_vs_cpu_ref"}
    head = "" if flock == "random" else " " + flock
    for n in sorted({int(r["n"]) for r in rows if r["flock"] == flock}):
        mine = [ln for ln in lines if ln.startswith(f"N={fmt_n(n)}{head}:")]
        check(f"{tag} N={n}: one summary line", len(mine) == 1, mine)
        if len(mine) != 1:
            continue
        line = mine[0]
        # Clauses "NAME[, T threads]: Rx OTHER[, Rx OTHER]" separated by ";".
        for clause in line.split(":", 1)[1].split(";"):
            if ":" not in clause:
                check(f"{tag} N={n}: nothing compared only when fewer than two backends ran",
                      sum(1 for b, m in ok if m == n) < 2, line)
                continue
            who, ratios = clause.split(":")
            name = who.split(",")[0].strip()
            check(f"{tag} N={n}: {name} was measured", (name, n) in ok, line)
            if (name, n) not in ok:
                continue
            if name == "cpu-all":
                want = f"{ok[(name, n)]['threads']} thread"
                check(f"{tag} N={n}: cpu-all's threads as measured", want in who, (who, want))
            for part in ratios.split(","):
                value, other = part.split()
                x = value.rstrip("x")
                check(f"{tag} N={n}: {other} measured, the other side of {name}'s ratio",
                      (other, n) in ok and other in col, line)
                if (other, n) not in ok or other not in col:
                    continue
                exact = float(ok[(name, n)][col[other]])
                check(f"{tag} N={n}: {name} {value} {other} is the CSV's speedup {exact:.6g}",
                      abs(float(x) - exact) <= half_unit(x) * 1.001 + 1e-9, line)
                t_me, t_other = table.get((name, fmt_n(n))), table.get((other, fmt_n(n)))
                # The table's medians have 4 significant digits: their ratio is within 1e-3.
                check(f"{tag} N={n}: {name} {value} {other} is the table's ms/step ratio",
                      t_me and t_other and
                      abs(float(x) - t_other / t_me) <= half_unit(x) * 1.001 + 1e-3 * t_other / t_me,
                      (x, t_me, t_other))


def check_plot_data(tag, folder, rows):
    """bench.gp's data: one block per series with exactly its measured points in increasing N
    (the CSV's medians), a blank line (a break in the curve) exactly where a point of the
    series between two measured ones was not measured; stage blocks with only the points
    whose stages were timed (no zeros for stages not timed)."""
    try:
        with open(os.path.join(folder, "bench.gp")) as f:
            gp = f.read().split("\n")
    except OSError as e:
        check(f"{tag}: bench.gp readable", False, str(e))
        return
    blocks = {}
    for i, ln in enumerate(gp):
        if ln.startswith("$") and ln.endswith("<< EOD"):
            name = gp[i - 1].lstrip("# ").split(":")[0]
            body = gp[i + 1:gp.index("EOD", i)]
            blocks[(ln[1], name)] = body
    def series_of(r):
        return r["backend"] + (" formed" if r["flock"] == "formed" else "")

    series = sorted({series_of(r) for r in rows if r["state"] == "ok"})
    check(f"{tag}: a data block for every series measured, none for others",
          sorted(n for k, n in blocks if k == "s") == series, (sorted(blocks), series))
    for name in series:
        mine = sorted((r for r in rows if series_of(r) == name), key=lambda r: int(r["n"]))
        want, gap = [], False
        for r in mine:
            if r["state"] != "ok":
                gap = bool(want)
                continue
            if gap:
                want.append("")
            gap = False
            want.append((int(r["n"]), float(r["ms_median"])))
        got = [(int(b.split()[0]), float(b.split()[1])) if b else "" for b in blocks.get(("s", name), [])]
        check(f"{tag} {name}: the plot's points are the measured ones, breaks where one is missing",
              got == want, (got, want))
        timed = [r for r in mine if r["state"] == "ok" and r["gpu_clear_ms"] != ""]
        stage = blocks.get(("g", name), [])
        check(f"{tag} {name}: stage data only for the points whose stages were timed",
              [int(b.split()[0]) for b in stage] == [int(r["n"]) for r in timed] and
              all([float(v) for v in b.split()[1:]] == [float(r[f"gpu_{s}_ms"]) for s in STAGES]
                  for b, r in zip(stage, timed)), (stage, [r["n"] for r in timed]))


out = tempfile.mkdtemp(prefix="boids-bench-test-")
p = subprocess.run([BENCH, "--quick", "--out", out], capture_output=True, text=True)
check("quick run exits 0", p.returncode == 0, f"exit {p.returncode}: {p.stderr[-2000:]}")
check("table on stdout", "ms/step" in p.stdout and "backend" in p.stdout, p.stdout[-500:])

rows = []
try:
    with open(os.path.join(out, "bench.csv"), newline="") as f:
        reader = csv.DictReader(f)
        header = reader.fieldnames or []
        rows = list(reader)
    check("csv has the stage columns",
          all(f"gpu_{s}_ms" in header for s in STAGES), str(header))
    check("csv rows all have every column", all(None not in r for r in rows))
except (OSError, csv.Error) as e:
    check("csv readable", False, str(e))

doc = {}
try:
    with open(os.path.join(out, "bench.json")) as f:
        doc = json.load(f)
except (OSError, ValueError) as e:
    check("json parses", False, str(e))
results = doc.get("results", [])
check("json lists the stages", doc.get("gpu_stages") == STAGES, str(doc.get("gpu_stages")))
check("json has machine info",
      all(k in doc.get("machine", {}) for k in ("cpu_model", "cpu_id", "cpu_kernel", "cpu_threads",
                                               "gl_renderer", "gpu_max_n", "load_start")))
# The processor beyond its model name, where /proc/cpuinfo gives it (x86 Linux does): the
# family, model and stepping the cpuinfo lines give, not those of "model name".
cpuinfo = {}
try:
    with open("/proc/cpuinfo") as f:
        for line in f:
            key, _, value = line.partition(":")
            cpuinfo.setdefault(key.strip(), value.strip())
except OSError:
    pass
if all(k in cpuinfo for k in ("cpu family", "model", "stepping")):
    want = "family %s model %s stepping %s" % (cpuinfo["cpu family"], cpuinfo["model"],
                                                cpuinfo["stepping"])
    check("json names the processor's family, model and stepping",
          doc.get("machine", {}).get("cpu_id") == want,
          "%r, /proc/cpuinfo gives %r" % (doc.get("machine", {}).get("cpu_id"), want))
check("csv and json agree on the points", len(rows) == len(results) > 0,
      f"{len(rows)} csv rows, {len(results)} json results")

for b in BACKENDS:
    mine = [r for r in results if r.get("backend") == b]
    check(f"{b}: present at every size, random start and formed flock", len(mine) == 4 and
          sorted((r.get("n"), r.get("flock")) for r in mine) ==
          [(500, "formed"), (500, "random"), (2000, "formed"), (2000, "random")],
          f"{len(mine)} points")
    csv_mine = [r for r in rows if r["backend"] == b]
    check(f"{b}: present in csv", len(csv_mine) == 4)
    for r in mine:
        if r.get("state") == "ok":
            ms = r.get("ms_per_step", {})
            check(f"{b} N={r['n']}: median, spread and throughput are positive",
                  all(positive(ms.get(k)) for k in ("median", "min", "max", "q1", "q3"))
                  and ms["min"] <= ms["median"] <= ms["max"]
                  and positive(r.get("boid_steps_per_s")), str(r))
            if b.startswith("gpu"):
                st = r.get("gpu_stage_ms", {})
                check(f"{b} N={r['n']}: every stage timed", all(s in st for s in STAGES), str(st))
        else:
            # A point not measured must say why (e.g. no GL context on this machine); with
            # BOIDS_REQUIRE_GPU set, the GPU points must be measured, not skipped.
            check(f"{b} N={r['n']}: {r.get('state')} with a reason", bool(r.get("reason")), str(r))
            if b.startswith("gpu"):
                check(f"{b} N={r['n']}: measured, as BOIDS_REQUIRE_GPU is set", not gpu_required(),
                      str(r.get("reason")))

TRUST = ["load1_end", "load", "others_cpu", "utilisation", "trusted", "why", "contend",
         "baseline_ratio"]


def num(v):
    return float(v) if v not in ("", None) else None


def check_trust_columns(tag, rows, results, cpu_threads, contend):
    """The trust columns exist and agree with each other, in the CSV and the JSON."""
    check(f"{tag}: csv has the trust columns", rows and all(k in rows[0] for k in TRUST),
          str(list(rows[0].keys()) if rows else []))
    check(f"{tag}: csv records --contend", all(r.get("contend") == str(contend) for r in rows))
    for r, j in zip(rows, results):
        name = f"{tag} {r['backend']} N={r['n']}"
        check(f"{name}: csv and json name the same point",
              r["backend"] == j.get("backend") and int(r["n"]) == j.get("n"), str(j)[:200])
        if r["state"] != "ok":
            check(f"{name}: not measured, with a reason", bool(r["reason"]) and
                  bool(j.get("reason")), str(r))
            continue
        trusted = r["trusted"]
        check(f"{name}: trusted is 0 or 1, and a reason exactly when 0",
              trusted in ("0", "1") and (trusted == "0") == bool(r["why"]), str(r))
        check(f"{name}: json agrees on the verdict",
              j.get("trusted") == (trusted == "1") and j.get("why") == r["why"], str(j)[:300])
        l0, l1, load = num(r["load1"]), num(r["load1_end"]), num(r["load"])
        check(f"{name}: load is the larger of start and end",
              None in (l0, l1) or load == max(l0, l1), str((l0, l1, load)))
        others, util, thr = num(r["others_cpu"]), num(r["utilisation"]), int(r["threads"])
        check(f"{name}: others_cpu within [0, cores]",
              others is None or 0 <= others <= (os.cpu_count() or 1), str(others))
        backend = r["backend"].split("@")[0]
        if backend.startswith("cpu"):
            check(f"{name}: threads within [1, {cpu_threads}]", 1 <= thr <= cpu_threads, str(thr))
            # 1e-4: both columns are printed with 6 significant digits.
            check(f"{name}: utilisation = cpu_util / threads",
                  util is not None and abs(util - float(r["cpu_util"]) / thr) <= 1e-4 * util,
                  str((util, r["cpu_util"], thr)))
        if backend == "cpu-1t":
            check(f"{name}: one thread", thr == 1, str(thr))




def quantile7(v, q):
    """Quantile q of sorted v, linear between the closest ranks (R's and NumPy's type 7)."""
    pos = q * (len(v) - 1)
    i = int(pos)
    return v[-1] if i + 1 >= len(v) else v[i] + (pos - i) * (v[i + 1] - v[i])


def close(a, b, rel):
    return a is not None and b is not None and abs(a - b) <= rel * max(abs(a), abs(b), 1e-300)


def check_stats(tag, stdout, rows, doc):
    """Every measured point keeps every repetition's time (JSON times_ms, CSV times_ms) and its
    statistics are those of the times: mean, sample sd, median, quartiles, extremes; ns/nbr is
    ns per boid-step over the neighbours; cpu-all is labelled by the threads it ran; the
    points of one N and flock share their neighbours and age; every comparison is the ratio of
    the means with the sd propagated from both, and the report prints it."""
    results = doc.get("results", [])
    byname = {}
    for r, j in zip(rows, results):
        name = f"{tag} {j.get('backend')} N={j.get('n')} {j.get('flock')}"
        check(f"{name}: csv and json agree on the flock", r["flock"] == j.get("flock"), str(r))
        byname[(j.get("label"), j.get("n"), j.get("flock"))] = j
        if j.get("state") != "ok":
            continue
        t, ms = j.get("times_ms", []), j.get("ms_per_step", {})
        check(f"{name}: one time per timed repetition", len(t) == j.get("reps") and
              all(positive(x) for x in t), str(t))
        if len(t) != j.get("reps") or not t:
            continue
        s = sorted(t)
        # The json keeps this build's doubles (15+ digits; only the summation order differs:
        # 1e-9); a baseline row's come from the baseline's CSV, 6 significant digits each: 1e-5.
        rel = 1e-5 if j.get("baseline") else 1e-9
        mean = sum(t) / len(t)
        sd = math.sqrt(sum((x - mean) ** 2 for x in t) / (len(t) - 1)) if len(t) > 1 else 0.0
        check(f"{name}: mean of times_ms is the mean", close(ms.get("mean"), mean, rel),
              str((ms.get("mean"), mean)))
        check(f"{name}: sample sd of times_ms is the sd",
              abs(ms.get("sd", -1) - sd) <= rel * mean, str((ms.get("sd"), sd)))
        check(f"{name}: median, quartiles and extremes are those of times_ms",
              all(close(ms.get(k), v, rel) for k, v in
                  (("median", quantile7(s, 0.5)), ("q1", quantile7(s, 0.25)),
                   ("q3", quantile7(s, 0.75)), ("min", s[0]), ("max", s[-1]))), str((ms, s)))
        # 1e-5: the CSV prints 6 significant digits.
        ct = [float(x) for x in r["times_ms"].split()]
        check(f"{name}: the csv's times, mean and sd are the json's",
              len(ct) == len(t) and all(close(a, b, 1e-5) for a, b in zip(ct, t)) and
              close(float(r["ms_mean"]), mean, 1e-5) and abs(float(r["ms_sd"]) - sd) <= 1e-5 * mean,
              str((r["times_ms"], r["ms_mean"], r["ms_sd"], t)))
        nb = j.get("neighbours")
        check(f"{name}: ns per neighbour = ns per boid-step / neighbours",
              nb and close(j.get("ns_per_nbr"), j["ns_per_boid_step"] / nb, 1e-9) and
              close(float(r["ns_per_nbr"]), j["ns_per_boid_step"] / nb, 1e-5), str(j)[:300])
        want = f"cpu-all({j['threads']}t)" if j["backend"].startswith("cpu-all") else \
            j["backend"].split("@")[0]
        want += "@baseline" if j.get("baseline") else ""
        check(f"{name}: labelled by the threads it ran", j.get("label") == want == r["label"],
              str((j.get("label"), r["label"], want)))
        twins = [k for k in results if k.get("n") == j.get("n") and k.get("flock") == j.get("flock")]
        check(f"{name}: the points of one N and flock time one flock",
              all(k.get("neighbours") == nb and k.get("age_steps") == j.get("age_steps")
                  for k in twins), str([(k.get("neighbours"), k.get("age_steps")) for k in twins]))
        if j.get("flock") == "formed":
            check(f"{name}: formed by some steps, saying how",
                  j.get("age_steps", 0) > 0 and j.get("formed_by") in ("settled", "age-max", "age"),
                  str(j)[:300])
        else:
            check(f"{name}: the random start is not aged", j.get("age_steps") == 0, str(j)[:300])
    cmps = doc.get("comparisons", [])
    check(f"{tag}: comparisons listed", len(cmps) > 0, str(doc.keys()))
    for c in cmps:
        a = byname.get((c.get("faster"), c.get("n"), c.get("flock")))
        b = byname.get((c.get("slower"), c.get("n"), c.get("flock")))
        name = f"{tag} {c.get('faster')} vs {c.get('slower')} N={c.get('n')} {c.get('flock')}"
        check(f"{name}: both points exist", a and b, str(c))
        if not (a and b):
            continue
        ma, mb = a["ms_per_step"]["mean"], b["ms_per_step"]["mean"]
        sa, sb = a["ms_per_step"]["sd"], b["ms_per_step"]["sd"]
        x = mb / ma
        sx = x * math.sqrt((sa / ma) ** 2 + (sb / mb) ** 2)
        check(f"{name}: ratio of the means, at least 1, with the propagated sd",
              c.get("from") == "means" and close(c.get("ratio"), x, 1e-9) and x >= 1 and
              abs(c.get("sd") - sx) <= 1e-9 * x, str((c, x, sx)))
        line = (f"N={fmt_n(c['n'])} {c['flock']}: {c['faster']} ran {x:.3g} +- {sx:.2g} times "
                f"faster than {c['slower']}")
        check(f"{name}: the report prints it", line in stdout, line)


check_report("quick", p.stdout, rows)
check_report("quick formed", p.stdout, rows, "formed")
check_plot_data("quick", out, rows)
check_stats("quick", p.stdout, rows, doc)

machine_threads = doc.get("machine", {}).get("cpu_threads", 1)
check_trust_columns("quick", rows, results, machine_threads, 0)
check("json records --contend and the trust rule",
      doc.get("config", {}).get("contend") is False and "untrusted" in doc.get("trust", ""))


def run_bench(tag, args):
    """Runs the bench into a fresh folder; returns (process, csv rows, json document, folder)."""
    d = tempfile.mkdtemp(prefix=f"boids-bench-{tag}-")
    q = subprocess.run([BENCH, "--out", d] + args, capture_output=True, text=True)
    check(f"{tag}: exits 0", q.returncode == 0, f"exit {q.returncode}: {q.stderr[-2000:]}")
    try:
        with open(os.path.join(d, "bench.csv"), newline="") as f:
            got = list(csv.DictReader(f))
        with open(os.path.join(d, "bench.json")) as f:
            js = json.load(f)
    except (OSError, ValueError, csv.Error) as e:
        check(f"{tag}: csv and json readable", False, str(e))
        return q, [], {}, d
    return q, got, js, d


# Two busy processes per core (and --contend's) while one point is timed: whatever the
# machine did besides, the point must be flagged. Two per core keep the point's thread under
# half a core, so its utilisation is flagged even on a many-core machine, where the others'
# share may be unknown (its window is 3 x 150 ms, short for /proc/stat's ticks on 16 cores)
# and the load average lags.
busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
        for _ in range(2 * (os.cpu_count() or 1))]
try:
    q, brows, bdoc, _ = run_bench("busy", ["--backends", "cpu-1t", "--sizes", "20k", "--reps", "3",
                                        "--warmup", "0", "--rep-ms", "150", "--contend", "--flocks", "random",
                                        "--no-plot"])
finally:
    for b in busy:
        b.kill()
        b.wait()
ok_rows = [r for r in brows if r["state"] == "ok"]
check("busy: the point was measured", len(ok_rows) == 1, str(brows))
check("busy: flagged untrusted, with the reason",
      all(r["trusted"] == "0" and r["why"] for r in ok_rows), str(ok_rows))
check("busy: the table marks it", "! untrusted" in q.stdout, q.stdout[-1500:])
check_trust_columns("busy", brows, bdoc.get("results", []), 1, 1)
check("busy: json records --contend", bdoc.get("config", {}).get("contend") is True)

# --baseline with this same binary: every point this build ran has a NAME@baseline row for
# the same N, and the ratio is the baseline's median over this one's. cpu-ref at 100k is
# skipped by the budget (its N^2 estimate from 500 boids is minutes), and so is its pair.
q, prows, pdoc, pdir = run_bench("baseline", ["--quick", "--backends", "cpu-1t,cpu-ref", "--sizes",
                                        "500,100k", "--budget", "0.2", "--baseline", BENCH])
presults = pdoc.get("results", [])
check_trust_columns("baseline", prows, presults, machine_threads, 0)
mine = [r for r in prows if "@" not in r["backend"]]
pairs = 0
for r in mine:
    twin = [b for b in prows if b["backend"] == r["backend"] + "@baseline" and b["n"] == r["n"]
            and b["flock"] == r["flock"]]
    check(f"baseline {r['backend']} N={r['n']}: one baseline row", len(twin) == 1, str(prows))
    if len(twin) != 1:
        continue
    b = twin[0]
    if r["state"] == "ok" and b["state"] == "ok":
        pairs += 1
        ratio, want = num(r["baseline_ratio"]), float(b["ms_median"]) / float(r["ms_median"])
        # 1e-4: the medians and the ratio are printed with 6 significant digits.
        check(f"baseline {r['backend']} N={r['n']}: ratio = baseline / this median",
              ratio is not None and abs(ratio - want) <= 1e-4 * want, str((ratio, want)))
    if r["state"] == "skipped":
        check(f"baseline {r['backend']} N={r['n']}: skipped here, skipped there with a reason",
              b["state"] == "skipped" and bool(b["reason"]), str(b))
check("baseline: at least the 500-boid points are paired and measured", pairs >= 2, str(prows))
check("baseline: json marks the baseline's rows",
      all(j.get("baseline") == ("@baseline" in j.get("backend", "")) for j in presults))
skipped = [r for r in prows if r["backend"] == "cpu-ref" and r["n"] == "100000"]
check("skipped point listed in the csv with the reason, for both flocks",
      len(skipped) == 2 and all(r["state"] == "skipped" and "budget" in r["reason"] for r in skipped),
      str(skipped))
check("skipped point listed in the json",
      any(j.get("backend") == "cpu-ref" and j.get("n") == 100000 and j.get("state") == "skipped"
          for j in presults))
check("skipped point listed in the table", "Not measured:" in q.stdout and "--budget" in q.stdout)
try:
    with open(os.path.join(pdir, "bench.gp")) as f:
        gp = f.read()
except OSError as e:
    gp = str(e)
check("bench.gp marks the skipped point and has the speedup plot",
      "not measured" in gp and "bench_speedup" in gp, gp[:500])
check_report("baseline", q.stdout, prows)
check_plot_data("baseline", pdir, prows)
check_stats("baseline", q.stdout, prows, pdoc)
formed_pairs = [(r, b) for r in mine for b in prows
                if r["flock"] == "formed" and b["backend"] == r["backend"] + "@baseline" and
                b["n"] == r["n"] and b["flock"] == "formed" and r["state"] == "ok" == b["state"]]
check("baseline: the formed points are paired, the baseline aged as many steps",
      formed_pairs and all(b["age_steps"] == r["age_steps"] and b["neighbours"] == r["neighbours"]
                           for r, b in formed_pairs), str(formed_pairs)[:600])

# --age K times the flock formed by exactly K steps, and only that one.
q, arows, adoc, _ = run_bench("age", ["--quick", "--no-plot", "--backends", "cpu-1t", "--sizes",
                                      "500", "--age", "7"])
check("--age: only the formed flock, aged exactly K steps",
      [(r["flock"], r["age_steps"], r["settled"]) for r in arows] == [("formed", "7", "-1")] and
      [j.get("formed_by") for j in adoc.get("results", [])] == ["age"], str(arows))
q, arows, _, _ = run_bench("flocks", ["--quick", "--no-plot", "--backends", "cpu-1t", "--sizes",
                                      "500", "--flocks", "random"])
check("--flocks random: only the random start", [r["flock"] for r in arows] == ["random"],
      str(arows))

# The world grows with N at the preset's density: per area in 2-D, per volume in 3-D, so the
# mean neighbour count of the random start stays put (its sampling error at these N, with 2 to
# 25 neighbours a boid, is a few percent; 25% is far above it and far below a side scaled twice).
for dim in ("2", "3"):
    q, rows, _, _ = run_bench(f"dim{dim}-density", ["--quick", "--no-plot", "--set", f"dim={dim}",
                                                     "--backends", "cpu-1t", "--sizes", "2000,16000",
                                                     "--flocks", "random"])
    nb = [num(r.get("neighbours")) for r in rows if r.get("backend") == "cpu-1t"]
    check(f"dim={dim}: the same neighbours per boid at 2,000 and 16,000 boids",
          len(nb) == 2 and nb[0] > 0 and abs(nb[1] / nb[0] - 1) < 0.25, str(nb))

for args, what in [(["--sizes", "ten"], "bad --sizes"), (["--backends", "tpu"], "bad --backends"),
                   (["--reps", "1"], "--reps out of range"), (["--bogus"], "unknown flag"),
                   (["--flocks", "old"], "bad --flocks"),
                   (["--set", "nope=1"], "unknown --set key"),
                   (["--baseline", os.path.join(out, "nothing")], "--baseline not a file"),
                   (["--baseline", sys.executable], "--baseline not a boids-bench")]:
    q = subprocess.run([BENCH, "--quick", "--out", out] + args, capture_output=True, text=True)
    check(f"{what}: exit 2 with one message", q.returncode == 2 and
          q.stderr.count("\n") == 1 and q.stderr.startswith("boids-bench: "), q.stderr)

finish()
