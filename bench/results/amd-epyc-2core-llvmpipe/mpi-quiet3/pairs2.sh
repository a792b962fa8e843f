#!/bin/bash
# 1 rank then 2 ranks back to back: the build before (e08df9c) in the plane, and both builds in the box
O=/tmp/mpi-pairs2; rm -rf $O; mkdir -p $O
for rep in 1 2 3 4; do
  for b in new old; do
    B=/work/main/build; [ $b = old ] && B=/tmp/base29/build
    python3 /work/main/bench/mpi_scaling.py --boids-mpi $B/boids-mpi --overlap on --out $O/plane-$b$rep --sizes 1M --ranks 1,2 --steps 40 -- --preset lab > /dev/null 2>&1
    python3 /work/main/bench/mpi_scaling.py --boids-mpi $B/boids-mpi --overlap on --out $O/box-$b$rep --sizes 1M --ranks 1,2 --steps 40 --dim 3 -- --preset lab > /dev/null 2>&1
  done
done
python3 - <<'PY'
import csv, statistics as st
for kind in ("plane", "box"):
    for b in ("new", "old"):
        sp=[]; c=[]
        for rep in range(1,5):
            r=list(csv.DictReader(open(f'/tmp/mpi-pairs2/{kind}-{b}{rep}/mpi_scaling.csv')))
            x,y=float(r[0]['ms_per_step']),float(r[1]['ms_per_step']); sp.append(x/y)
            c.append((float(r[1]['cpu_ms_per_step'])-float(r[0]['cpu_ms_per_step']))/1.0)
            print(f"{kind} {b} {rep}: 1 rank {x:.2f} ms, 2 ranks {y:.2f} ms, {x/y:.3f}x, cpu {r[0]['cpu_ms_per_step'][:6]} / {r[1]['cpu_ms_per_step'][:6]}, wait {float(r[1]['wait_share_mean']):.3f}")
        print(f"== {kind} {b}: median {st.median(sp):.3f}x, range {min(sp):.3f}-{max(sp):.3f}; c_tile (cpu ms difference per 1M boids) median {st.median(c):.2f} ns")
PY
