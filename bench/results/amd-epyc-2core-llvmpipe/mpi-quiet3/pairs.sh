#!/bin/bash
# plane 1M, 1 rank then 2 ranks back to back, 8 times; each pair's ratio (the VM's cores change speed from second to second)
B=/work/main/build; O=/tmp/mpi-pairs; rm -rf $O; mkdir -p $O
for rep in 1 2 3 4 5 6 7 8; do
  python3 /work/main/bench/mpi_scaling.py --boids-mpi $B/boids-mpi --overlap on --out $O/p$rep --sizes 1M --ranks 1,2 --steps 40 -- --preset lab > /dev/null 2>&1
  python3 /work/main/bench/mpi_scaling.py --boids-mpi $B/boids-mpi --overlap on --out $O/w$rep --sizes 1k --ranks 1,2 --weak 500k --steps 40 -- --preset lab > /dev/null 2>&1
done
python3 - <<'PY'
import csv, statistics as st
sp=[]; we=[]
for rep in range(1,9):
    r=list(csv.DictReader(open(f'/tmp/mpi-pairs/p{rep}/mpi_scaling.csv')))
    a,b=float(r[0]['ms_per_step']),float(r[1]['ms_per_step']); sp.append(a/b)
    w=[x for x in csv.DictReader(open(f'/tmp/mpi-pairs/w{rep}/mpi_scaling.csv')) if x['scaling']=='weak']
    c,d=float(w[0]['ms_per_step']),float(w[1]['ms_per_step']); we.append(c/d)
    print(f"pair {rep}: strong 1 rank {a:.2f} ms, 2 ranks {b:.2f} ms, {a/b:.3f}x | weak 1 rank {c:.2f}, 2 ranks {d:.2f}, {c/d:.3f}")
print(f"strong: median {st.median(sp):.3f}x, range {min(sp):.3f}-{max(sp):.3f}; weak: median {st.median(we):.3f}, range {min(we):.3f}-{max(we):.3f}")
PY
