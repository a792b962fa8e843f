#!/bin/bash
# SPDX-License-Identifier: MIT
# The three --baseline runs of this folder, back to back, 2-D then 3-D each time: this
# build's boids-bench (the source tree at /work/main, built there) against 15a4479's, built
# from a worktree at /work/wt/exp (RelWithDebInfo, gcc 12). Each run writes runR-Dd/ and its
# printed report; ratios.py then prints the table.
cd /work/main
for r in 1 2 3; do
  for d in 2 3; do
    echo "== run $r dim $d $(date -u +%H:%M:%S) $(cut -d' ' -f1 /proc/loadavg)"
    build/bench/boids-bench --sizes 100k,1M --backends cpu-1t,cpu-all --set dim=$d \
      --baseline /work/wt/exp/build/bench/boids-bench --no-plot --out /tmp/b31f/r$r-d$d > /tmp/b31f/r$r-d$d.log 2>&1
  done
done
echo "== done $(date -u +%H:%M:%S)"
