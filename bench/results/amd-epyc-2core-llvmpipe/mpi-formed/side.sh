#!/bin/sh
# SPDX-License-Identifier: MIT
# What the VM costs two ranks: one plain process of the formed 500k state (rounds.sh's) alone
# on core 0, then on core 1, then two side by side (one pinned to each core), six rounds; the
# ms per step of each (boids sim -v). usage: BOIDS=build/boids STATES=/tmp/g sh side.sh
set -eu
: "${BOIDS:?}" "${STATES:?}"
T=$(mktemp -d)
S="sim --backend cpu --threads 1 -n 500000 --preset lab --set boundary=walls"
S="$S --load $STATES/formed500k.npy --steps 40 --order-only -v"
ms() { sed -n 's/.*(\([0-9.]*\) ms\/step).*/\1/p' "$1"; }
for r in 1 2 3 4 5 6; do
    taskset -c 0 "$BOIDS" $S >/dev/null 2>"$T/alone0"
    taskset -c 1 "$BOIDS" $S >/dev/null 2>"$T/alone1"
    taskset -c 0 "$BOIDS" $S >/dev/null 2>"$T/pair0" &
    taskset -c 1 "$BOIDS" $S >/dev/null 2>"$T/pair1"
    wait
    echo "round $r $(date -u +%T) alone core0 $(ms "$T/alone0") core1 $(ms "$T/alone1")" \
        "side-by-side core0 $(ms "$T/pair0") core1 $(ms "$T/pair1")"
done
rm -r "$T"
