#!/bin/bash
# SPDX-License-Identifier: MIT
# Three boids-bench --baseline runs back to back, 2-D then 3-D each time: this build's
# boids-bench against the build before issue 31's kernels (15a4479, RelWithDebInfo, gcc 12,
# from a worktree). Run from the source tree with B=<15a4479>/build/bench/boids-bench; each
# run writes $OUT/runR-Dd/ and its printed report. The table: cd $OUT && python3
# <this source tree>/bench/results/amd-epyc-2core-llvmpipe/cpu-split/ratios.py. RUNS="4 5 6"
# numbers further runs.
B=${B:?the baseline boids-bench}
OUT=${OUT:-/tmp/bench-cpu}
mkdir -p "$OUT"
for r in ${RUNS:-1 2 3}; do
  for d in 2 3; do
    echo "== run $r dim $d $(date -u +%H:%M:%S) load $(cut -d' ' -f1 /proc/loadavg)"
    build/bench/boids-bench --sizes 100k,1M --backends cpu-1t,cpu-all --set dim=$d \
      --baseline "$B" --no-plot --out "$OUT/run$r-${d}d" > "$OUT/run$r-${d}d.log" 2>&1
    echo "   rc=$?"
  done
done
echo "== done $(date -u +%H:%M:%S) load $(cut -d' ' -f1 /proc/loadavg)"
