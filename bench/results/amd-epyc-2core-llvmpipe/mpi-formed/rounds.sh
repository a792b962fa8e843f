#!/bin/sh
# SPDX-License-Identifier: MIT
# Issue 29's three speed targets on formed flocks (what users run), in rounds of runs back to
# back so that each comparison shares the VM's moment: strong (1M: 1 rank, then 2 ranks),
# weak (500k on 1 rank, then 1M on 2 ranks) and threads (1M: one process of 2 threads, then
# 2 ranks of one). The states: 1M and 500k boids of lab in walls after 1500 steps of one
# process (formed.npy as in ab.sh; formed500k.npy made here alike). Weak scaling twice: 1M
# formed on its own (105 neighbours a boid against the 500k state's 99.8, so more work per
# rank), and twice500k.npy, the 500k state twice side by side (twice.py) in a world twice as
# wide, the work per rank held. Each run is bench/mpi_scaling.py's (40 steps, the slowest
# rank's ms per step from --mpi-stats; after WARMUP steps left out of the timing, default 0,
# the earlier sets' way).
# usage: BUILD=build STATES=/tmp/g OUT=DIR ROUNDS=6 [WARMUP=5] sh rounds.sh   (then: python3 rounds.py OUT)
set -eu
: "${BUILD:?}" "${STATES:?}" "${OUT:?}" "${ROUNDS:=6}" "${WARMUP:=0}"
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../../../.." && pwd)
mkdir -p "$STATES" "$OUT"
W="--preset lab --set boundary=walls"
[ -f "$STATES/formed.npy" ] ||
    "$BUILD/boids" sim --backend cpu $W -n 1000000 --steps 1500 --save "$STATES/formed.npy" >/dev/null
[ -f "$STATES/formed500k.npy" ] ||
    "$BUILD/boids" sim --backend cpu $W -n 500000 --steps 1500 --save "$STATES/formed500k.npy" >/dev/null
WH=$("$BUILD/boids" params --preset lab -n 500000 |
    awk '$1 == "width" { w = $2 } $1 == "height" { h = $2 } END { print w, h }')
[ -f "$STATES/twice500k.npy" ] ||
    python3 "$HERE/twice.py" "$STATES/formed500k.npy" "${WH% *}" "$STATES/twice500k.npy"
SIZE=$(echo "$WH" | awk '{ printf "--set width=%.17g --set height=%.17g", 2 * $1, $2 }')
one() { # name size ranks threads state [more sim options]
    n=$1 size=$2 k=$3 t=$4 st=$5
    shift 5
    python3 "$SRC/bench/mpi_scaling.py" --boids-mpi "$BUILD/boids-mpi" --overlap on \
        --sizes "$size" --ranks "$k" --threads "$t" --steps 40 --warmup "$WARMUP" --out "$OUT/$n" \
        -- $W --load "$STATES/$st" "$@" >/dev/null 2>&1
}
echo "start $(date -u +%H:%M:%S) load $(cut -d' ' -f1 /proc/loadavg)"
# Each comparison's runs back to back, in one order in odd rounds and the other in even ones
# (A B, then B A), so that a drift of the VM's speed within a round favours neither side.
pair() { # round: the runs of one comparison, in the round's order
    if [ $(($1 % 2)) = 1 ]; then shift; for x in "$@"; do eval "$x"; done
    else shift; for i in $(seq $# -1 1); do eval "eval \"\${$i}\""; done; fi
}
for r in $(seq 1 "$ROUNDS"); do
    pair "$r" 'one "strong1-$r" 1M 1 1 formed.npy' 'one "strong2-$r" 1M 2 1 formed.npy'
    pair "$r" 'one "weak1-$r" 500k 1 1 formed500k.npy' 'one "weak2-$r" 1M 2 1 formed.npy' \
        'one "twice2-$r" 1M 2 1 twice500k.npy $SIZE'
    pair "$r" 'one "threads-$r" 1M 1 2 formed.npy' 'one "ranks-$r" 1M 2 1 formed.npy'
    echo "round $r $(date -u +%H:%M:%S) load $(cut -d' ' -f1 /proc/loadavg)"
done
