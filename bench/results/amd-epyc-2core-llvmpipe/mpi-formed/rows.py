#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""How well whole rows of the grid can balance a saved plane state in walls, by the cut's cost
model (src/mpi/mpi_flock.h): a row's load is B per boid plus its boids' candidates (each
cell's boids times the boids of its 3 x 3 block). Reads a .npy state of `boids sim --save`
(float64, N x 4: x y vx vy); the grid is floor(W / R) x floor(H / R) cells over the W x H
world. Prints the heaviest rows' shares, the
rows that hold 90% of the load, the densest cells and, for K = 2 .. 16, the load of the
slowest tile of the cut at the even shares of the load (boids_tile_cut's before 2026-12-07)
against the mean, and the share of the time that would lose; then the same for the cut that
shares the boids evenly, as the cut did before the model; then, for K
up to 128, the cut of whole rows against a cut of whole cells in row order (a tile of whole
rows and parts of the rows at its ends: what a second axis of the cut could reach) and the
bound no cut of cells can pass (the heaviest cell's load against the mean).

usage: rows.py STATE.npy W H R [B]      (the plane only; B defaults to 200)
"""
import array
import collections
import struct
import sys


def main():
    path, W, H, R = sys.argv[1], *map(float, sys.argv[2:5])
    B = float(sys.argv[5]) if len(sys.argv) > 5 else 200.0
    raw = open(path, "rb").read()
    head = struct.unpack("<H", raw[8:10])[0]
    a = array.array("d")
    a.frombytes(raw[10 + head:])
    nx, ny = int(W // R), int(H // R)
    cells = collections.Counter()
    for x, y in zip(a[0::4], a[1::4]):
        cells[(min(max(int(x / W * nx), 0), nx - 1), min(max(int(y / H * ny), 0), ny - 1))] += 1
    boids, cand = [0] * ny, [0] * ny
    for (cx, cy), c in cells.items():  # walls: no wrap
        boids[cy] += c
        cand[cy] += c * sum(cells.get((cx + i, cy + j), 0) for i in (-1, 0, 1) for j in (-1, 0, 1))
    load = [B * b + k for b, k in zip(boids, cand)]
    total = sum(load)
    print(f"{path}: {sum(boids)} boids, grid {nx} x {ny}, B = {B:g}")
    top = sorted(load, reverse=True)
    print("heaviest rows' shares:", [round(v / total, 4) for v in top[:5]])
    acc = 0
    for i, v in enumerate(top):
        acc += v
        if acc >= 0.9 * total:
            print(f"rows holding 90% of the load: {i + 1} of {ny}")
            break
    print("densest cells (column, row): boids", cells.most_common(3))
    def even_cut(weight, k):
        cut, acc, j, whole = [0], 0, 1, sum(weight)
        for r, v in enumerate(weight):
            if j < k and acc + v / 2 >= whole * j / k:
                cut.append(r)
                j += 1
            acc += v
        return cut + [ny] * (k + 1 - len(cut))

    def lost(cut, k):
        most = max(sum(load[cut[i]:cut[i + 1]]) for i in range(k))
        return most / (total / k), (most - total / k) / most

    for k in (2, 4, 8, 16):
        r, s = lost(even_cut(load, k), k)
        rb, sb = lost(even_cut(boids, k), k)
        print(f"K={k:2d}: even shares of the model: slowest tile / mean {r:.3f}, share lost "
              f"{s:.3f}; even shares of the boids: {rb:.3f}, {sb:.3f}")
    # The load of each cell in row order (row, then column), for the cut of whole cells.
    cload = []
    for cy in range(ny):
        for cx in range(nx):
            c = cells.get((cx, cy), 0)
            block = sum(cells.get((cx + i, cy + j), 0) for i in (-1, 0, 1) for j in (-1, 0, 1))
            cload.append(B * c + c * block)
    heaviest = max(cload)

    def best_cut(weight, k):
        """The smallest largest tile of a cut of weight (in order) into k runs: the least
        bound that a greedy cut meets, by bisection over the bound."""
        def fits(bound):
            n, acc = 1, 0
            for v in weight:
                if acc + v > bound:
                    n, acc = n + 1, v
                else:
                    acc += v
            return n <= k
        lo, hi = max(max(weight), sum(weight) / k), sum(weight)
        for _ in range(60):
            mid = (lo + hi) / 2
            lo, hi = (lo, mid) if fits(mid) else (mid, hi)
        return hi

    for k in (2, 4, 8, 16, 32, 64, 128):
        mean = total / k
        rows_most, cells_most = best_cut(load, k), best_cut(cload, k)
        bound = max(heaviest, mean)
        print(f"K={k:3d}: share lost by the best cut of whole rows (boids_tile_cut's since "
              f"2026-12-07) {1 - mean / rows_most:.3f}, "
              f"of whole cells in row order {1 - mean / cells_most:.3f}, "
              f"at least (the heaviest cell) {1 - mean / bound:.3f}")


if __name__ == "__main__":
    main()
