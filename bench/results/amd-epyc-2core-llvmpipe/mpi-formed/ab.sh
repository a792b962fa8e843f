#!/bin/sh
# The cut's cost model against the boids-per-row weights of the build before it, in pairs of
# runs (OLD then NEW, REPS times) from three states of 1M boids in walls made by one process:
#   formed: 1500 steps of the lab preset (105 neighbours a boid),
#   food:   700 steps drawn to a food point (food_weight=5, food_radius=1e6; one cell then
#           holds 4% of the boids and most of the pairs),
#   and the random start.
# usage: OLD=old/boids-mpi NEW=build/boids-mpi STATES=/tmp/states OUT=DIR REPS=3 sh ab.sh
# (CASES="formed:16 food:2" picks states and rank counts; the default is the list below.
# OLD_ARGS and NEW_ARGS add options to each side's runs: OLD=NEW with OLD_ARGS="--mpi-cut
# rows" compares one build's cuts of whole rows with its cuts within rows. abcsv.py sums up
# the --mpi-stats files of OUT.)
set -eu
: "${OLD:?}" "${NEW:?}" "${STATES:?}" "${OUT:?}" "${REPS:=3}" "${OLD_ARGS:=}" "${NEW_ARGS:=}"
: "${CASES:=formed:2 formed:4 formed:8 food:2 food:4 random:2}"
mkdir -p "$STATES" "$OUT"
W="--preset lab -n 1000000 --set boundary=walls"
F="--set food=1 --set food_weight=5 --set food_radius=1e6"
SIM="$(dirname "$NEW")/boids"
[ -f "$STATES/formed.npy" ] || "$SIM" sim --backend cpu $W --steps 1500 --save "$STATES/formed.npy" >/dev/null
[ -f "$STATES/food.npy" ] || "$SIM" sim --backend cpu $W $F --steps 700 --save "$STATES/food.npy" >/dev/null
MPI="mpirun --oversubscribe"
[ "$(id -u)" = 0 ] && MPI="$MPI --allow-run-as-root"
run() { # build name K steps extra...
    b=$1 name=$2 k=$3 steps=$4; shift 4
    line=$($MPI -n "$k" "$b" sim --backend cpu --threads 1 $W --steps "$steps" --order-only \
        --mpi-stats "$OUT/$name-k$k-$tag-$r.csv" $args "$@" 2>&1 | grep "lost to imbalance")
    echo "$name K=$k $tag rep $r: $line" | sed 's/ ((max[^;]*; / (/'
}
uptime
for r in $(seq 1 "$REPS"); do
    for tag in old new; do
        [ $tag = old ] && B=$OLD args=$OLD_ARGS || B=$NEW args=$NEW_ARGS
        for case in $CASES; do
            k=${case#*:}
            case ${case%:*} in
            formed) run "$B" formed "$k" 40 --load "$STATES/formed.npy" ;;
            food) run "$B" food "$k" 20 $F --load "$STATES/food.npy" ;;
            random) run "$B" random "$k" 40 ;;
            esac
        done
    done
done
uptime
