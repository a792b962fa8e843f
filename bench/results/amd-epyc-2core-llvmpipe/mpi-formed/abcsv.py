#!/usr/bin/env python3
"""Sums up the --mpi-stats files that ab.sh writes (NAME-kK-old|new-REP.csv in each folder
given): per state, rank count and side, every run's share of the CPU time and of the step
time lost to imbalance, the share of the steps whose cut ended tiles within rows and within
cells, and the new cuts. usage: abcsv.py OUT [OUT ...]"""
import collections
import csv
import glob
import os
import re
import sys


def main(dirs):
    runs = collections.defaultdict(list)
    for d in dirs:
        for path in sorted(glob.glob(os.path.join(d, "*.csv"))):
            m = re.fullmatch(r"(\w+)-k(\d+)-(old|new)-(\d+)\.csv", os.path.basename(path))
            rows = list(csv.DictReader(open(path))) if m else []
            if not rows:
                continue
            r = rows[0]  # the shares are reduced: the same on every rank
            runs[(m[1], int(m[2]), m[3])].append(
                (100 * float(r["imbalance_lost_cpu"]), 100 * float(r["imbalance_lost"]),
                 float(r.get("within_rows_share") or 0), float(r["rebalances"]),
                 float(r.get("within_cells_share") or 0)))
    print("| state, ranks, side | CPU lost | step time lost | steps cut within rows | within "
          "cells | new cuts |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for (state, k, side), v in sorted(runs.items()):
        col = lambda i, f: ", ".join(f % x[i] for x in v)
        print(f"| {state}, {k}, {side} | {col(0, '%.1f')}% | {col(1, '%.1f')}% | "
              f"{col(2, '%.2f')} | {col(4, '%.2f')} | {col(3, '%.0f')} |")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
