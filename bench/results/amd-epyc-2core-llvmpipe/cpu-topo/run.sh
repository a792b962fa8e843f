#!/bin/bash
# SPDX-License-Identifier: MIT
# The topological cpu step (k = 7), this build's boids-bench against the build before issue
# 31 (15a4479, built RelWithDebInfo with gcc 12 from a worktree), 2-D then 3-D, one --baseline
# run each. Run from the source tree with B=<15a4479>/build/bench/boids-bench; OUT is the
# folder for the results (default /tmp).
B=${B:?the baseline boids-bench}
for d in 2 3; do
  date -u +%H:%M:%S
  build/bench/boids-bench --sizes 100k,1M --backends cpu-1t,cpu-all --neighbours topological -k 7 --set dim=$d --baseline $B --out "${OUT:-/tmp}/btopo-$d" --no-plot > "${OUT:-/tmp}/btopo-$d.log" 2>&1; echo "dim $d rc=$?"
done
date -u +%H:%M:%S
