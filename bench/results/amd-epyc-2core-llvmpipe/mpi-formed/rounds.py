#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The ratios of rounds.sh's runs, round by round, with their medians: strong speedup (1 rank
over 2 ranks), weak efficiency (500k on 1 rank over 1M on 2 ranks, the 1M formed on its own or the
500k state twice) and the ranks' speed
against the threads' (one process of 2 threads over 2 ranks of one), and what the 2 cores give
one process's threads (1 rank over one process of 2 threads). usage: rounds.py OUT (rounds.sh's, or rounds/ here)"""
import csv
import glob
import os
import statistics
import sys


def ms(out, name):
    path = os.path.join(out, name, "mpi_scaling.csv")  # rounds.sh's OUT, or the kept copies
    with open(path if os.path.exists(path) else os.path.join(out, name + ".csv")) as f:
        return float(next(csv.DictReader(f))["ms_per_step"])


def main():
    out = sys.argv[1]
    rounds = sorted(int(os.path.splitext(p)[0].rsplit("-", 1)[1])
                    for p in glob.glob(os.path.join(out, "ranks-*")))
    pairs = {"strong (1 rank / 2 ranks)": ("strong1", "strong2"),
             "weak (500k on 1 / 1M on 2)": ("weak1", "weak2"),
             "weak, the same work a rank (500k on 1 / it twice on 2)": ("weak1", "twice2"),
             "2 ranks against 2 threads": ("threads", "ranks"),
             # what the 2 cores give one process: its runs apart in the round, so less paired
             "2 threads (1 rank / one process of 2 threads)": ("strong1", "threads")}
    for label, (a, b) in pairs.items():
        xs = []
        for r in rounds:
            if not any(os.path.exists(os.path.join(out, f"{b}-{r}{e}")) for e in ("", ".csv")):
                continue  # rounds made before the pair was
            ta, tb = ms(out, f"{a}-{r}"), ms(out, f"{b}-{r}")
            xs.append(ta / tb)
            print(f"round {r} {label}: {ta:.1f} / {tb:.1f} ms = {ta / tb:.3f}")
        if not xs:
            continue
        print(f"{label}: median {statistics.median(xs):.3f}, range {min(xs):.3f}-{max(xs):.3f}"
              f" ({len(xs)} rounds)\n")


if __name__ == "__main__":
    main()
