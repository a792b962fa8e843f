#!/bin/sh
# SPDX-License-Identifier: MIT
# Issue 29's three speed targets on formed flocks (what users run), in rounds of runs back to
# back so that each comparison shares the VM's moment: strong (1M: 1 rank, then 2 ranks),
# weak (500k on 1 rank, then 1M on 2 ranks) and threads (1M: one process of 2 threads, then
# 2 ranks of one). The states: 1M and 500k boids of lab in walls after 1500 steps of one
# process (formed.npy as in ab.sh; formed500k.npy made here alike). Each run is
# bench/mpi_scaling.py's (40 steps, the slowest rank's ms per step from --mpi-stats).
# usage: BUILD=build STATES=/tmp/g OUT=DIR ROUNDS=6 sh rounds.sh   (then: python3 rounds.py OUT)
set -eu
: "${BUILD:?}" "${STATES:?}" "${OUT:?}" "${ROUNDS:=6}"
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../../../.." && pwd)
mkdir -p "$STATES" "$OUT"
W="--preset lab --set boundary=walls"
[ -f "$STATES/formed.npy" ] ||
    "$BUILD/boids" sim --backend cpu $W -n 1000000 --steps 1500 --save "$STATES/formed.npy" >/dev/null
[ -f "$STATES/formed500k.npy" ] ||
    "$BUILD/boids" sim --backend cpu $W -n 500000 --steps 1500 --save "$STATES/formed500k.npy" >/dev/null
one() { # name size ranks threads state
    python3 "$SRC/bench/mpi_scaling.py" --boids-mpi "$BUILD/boids-mpi" --overlap on \
        --sizes "$2" --ranks "$3" --threads "$4" --steps 40 --out "$OUT/$1" \
        -- $W --load "$STATES/$5" >/dev/null 2>&1
}
echo "start $(date -u +%H:%M:%S) load $(cut -d' ' -f1 /proc/loadavg)"
for r in $(seq 1 "$ROUNDS"); do
    one "strong1-$r" 1M 1 1 formed.npy
    one "strong2-$r" 1M 2 1 formed.npy
    one "weak1-$r" 500k 1 1 formed500k.npy
    one "weak2-$r" 1M 2 1 formed.npy
    one "threads-$r" 1M 1 2 formed.npy
    one "ranks-$r" 1M 2 1 formed.npy
    echo "round $r $(date -u +%H:%M:%S) load $(cut -d' ' -f1 /proc/loadavg)"
done
