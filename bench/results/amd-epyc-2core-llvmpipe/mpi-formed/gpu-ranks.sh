#!/bin/sh
# SPDX-License-Identifier: MIT
# The balance of gpu ranks against cpu ranks on a gathering flock: 100k boids of lab in walls
# drawn to a food point for 700 steps by one process (food100k.npy, made here), then 1 and 2
# ranks of cpu (one thread) and of gpu --deterministic (Mesa llvmpipe here, one thread each:
# LP_NUM_THREADS=1), STEPS steps after a warm-up of 5, each run's --mpi-stats and its
# end-of-run line. The 1M food state of ab.sh is beyond llvmpipe's reach (its densest cell
# alone holds 40k boids).
# usage: BUILD=build STATES=/tmp/g OUT=DIR [STEPS=10] sh gpu-ranks.sh
set -eu
: "${BUILD:?}" "${STATES:?}" "${OUT:?}" "${STEPS:=10}"
mkdir -p "$STATES" "$OUT"
W="--preset lab -n 100000 --set boundary=walls"
F="--set food=1 --set food_weight=5 --set food_radius=1e6"
[ -f "$STATES/food100k.npy" ] ||
    "$BUILD/boids" sim --backend cpu $W $F --steps 700 --order-only --save "$STATES/food100k.npy" >/dev/null
MPI="mpirun --oversubscribe"
[ "$(id -u)" = 0 ] && MPI="$MPI --allow-run-as-root"
echo "start $(date -u +%H:%M:%S) load $(cut -d' ' -f1 /proc/loadavg)"
for be in cpu gpu; do
    [ $be = gpu ] && how="--backend gpu --deterministic" || how="--backend cpu"
    for k in 1 2; do
        LP_NUM_THREADS=1 $MPI -n "$k" "$BUILD/boids-mpi" sim $how --threads 1 $W $F \
            --load "$STATES/food100k.npy" --steps $((STEPS + 5)) --mpi-warmup 5 --order-only \
            --mpi-stats "$OUT/$be-k$k.csv" 2>"$OUT/$be-k$k.err" >/dev/null
        echo "$be K=$k: $(grep 'lost to imbalance' "$OUT/$be-k$k.err" | sed 's/ ((max[^;]*; / (/')"
        cut -d, -f1,4,7,14,15,16 "$OUT/$be-k$k.csv"
    done
done
echo "end $(date -u +%H:%M:%S) load $(cut -d' ' -f1 /proc/loadavg)"
