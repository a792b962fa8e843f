#!/bin/bash
# SPDX-License-Identifier: MIT
# plane 1M, lab: one process on 2 threads, then 2 ranks of 1 thread, back to back, 5 times
B=/work/main/build; O=/tmp/mpi-pairs3; rm -rf $O; mkdir -p $O
for rep in 1 2 3 4 5; do
  python3 /work/main/bench/mpi_scaling.py --boids-mpi $B/boids-mpi --overlap on --out $O/t$rep --sizes 1M --ranks 1 --threads 2 --steps 40 -- --preset lab > /dev/null 2>&1
  python3 /work/main/bench/mpi_scaling.py --boids-mpi $B/boids-mpi --overlap on --out $O/r$rep --sizes 1M --ranks 2 --threads 1 --steps 40 -- --preset lab > /dev/null 2>&1
done
python3 - <<'PY'
import csv, statistics as st
x=[]
for rep in range(1,6):
    a=float(list(csv.DictReader(open(f'/tmp/mpi-pairs3/t{rep}/mpi_scaling.csv')))[0]['ms_per_step'])
    b=float(list(csv.DictReader(open(f'/tmp/mpi-pairs3/r{rep}/mpi_scaling.csv')))[0]['ms_per_step'])
    x.append(a/b)
    print(f"pair {rep}: 1 process x 2 threads {a:.2f} ms, 2 ranks x 1 thread {b:.2f} ms, ranks {a/b:.3f}x the threads' speed")
print(f"median {st.median(x):.3f}x, range {min(x):.3f}-{max(x):.3f}")
PY
