# SPDX-License-Identifier: MIT
"""The table of this folder's three runs (run.sh: boids-bench --baseline against 15a4479, 2-D
and 3-D, back to back): per point, this build's median ms per step over the runs on 1 and
2 threads, the neighbours, ns per neighbour on 2 threads, and the baseline's time over this
build's on 2 threads in each run (their median and range). A ratio whose point or baseline
point the benchmark did not trust (its `why` column) is left out and named below the table.
Run from the folder of the runs."""
import collections
import csv
import glob
import statistics as st

pts = collections.defaultdict(lambda: collections.defaultdict(list))
untrusted = []
for f in sorted(glob.glob("run*-*d/bench.csv")):
    dim = f.split("-")[1][0]
    rows = {(r["backend"], r["n"], r["flock"]): r for r in csv.DictReader(open(f))}
    for (b, n, fl), r in rows.items():
        if b.endswith("@baseline"):
            continue
        p = pts[(dim, int(n), fl)]
        p[b + " ms"].append(float(r["ms_median"]))
        p["nbrs"].append(float(r["neighbours"]))
        base = rows.get((b + "@baseline", n, fl))
        if base and (r.get("why") or base.get("why")):
            untrusted.append(f"{f}: {b} {n} {fl}: {r.get('why') or base.get('why')}")
        elif base:
            p[b + " x"].append(float(base["ms_median"]) / float(r["ms_median"]))
print("| dim | N | flock | nbrs | 1 thread | 2 threads | ns/nbr | x before (range) |")
print("| ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: |")
for (dim, n, fl), p in sorted(pts.items(), key=lambda kv: (kv[0][0], kv[0][1], kv[0][2] != "random")):
    ms1, ms2 = st.median(p["cpu-1t ms"]), st.median(p["cpu-all ms"])
    nb = st.median(p["nbrs"])
    x = p["cpu-all x"]
    print(f"| {dim} | {n // 1000}k | {fl} | {nb:.1f} | {ms1:.3g} | {ms2:.3g} | "
          f"{ms2 * 1e6 / n / nb:.2f} | {st.median(x):.2f} ({min(x):.2f}-{max(x):.2f}) |")
for u in untrusted:
    print(f"left out (untrusted): {u}")
