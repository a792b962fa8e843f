#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every command's --help reads well on an 80-column terminal: no line wider than 80, no
number or token split across lines, no blank line where none is meant (never two in a row,
none first or last, none made of spaces), and every option it takes is listed.

usage: help_test.py BOIDS BENCH [MPI]   (MPI: boids-mpi, when it is built)
"""
import re
import sys

from harness import check, finish, run

BOIDS, BENCH = sys.argv[1], sys.argv[2]
MPI = sys.argv[3] if len(sys.argv) > 3 else None

commands = {"boids": [BOIDS, "--help"], "boids help": [BOIDS, "help"]}
for sub in ("sim", "view", "render", "sweep", "verify", "params", "presets"):
    commands[f"boids {sub}"] = [BOIDS, sub, "--help"]
commands["boids-bench"] = [BENCH, "--help"]
if MPI:
    commands["boids-mpi"] = [MPI, "--help"]
    commands["boids-mpi sweep"] = [MPI, "sweep", "--help"]
    commands["boids-mpi sim"] = [MPI, "sim", "--help"]

# A number cut by a line break leaves its head at the end of one line ("50," "0." "8192x"
# "1e" "1e-") and its tail at the start of the next ("000", "14", "x8192", "15").
HEAD = re.compile(r"\d[.,x]?$|\d[eE][-+]?$")
TAIL = re.compile(r"(\d|[.,x]\d|[eE][-+]?\d)")

# Tokens of the help texts that a wrapper cutting at punctuation would split.
WHOLE = {"boids render": ["8192x8192", "1280x720", "50,000", "%09d"],
         "boids view": ["50,000", "1280x800", "127.0.0.1", "{f1}..{f12}"],
         "boids-bench": ["1k,10k,100k,1M", "3..100"]}

for name, argv in commands.items():
    p = run(*argv)
    lines = p.stdout.split("\n")
    check(f"{name} --help: exit 0, text on stdout ending in one newline",
          p.returncode == 0 and len(lines) > 3 and lines[-1] == "" and lines[-2] != "",
          f"exit {p.returncode}, {p.stdout[-200:]!r}, {p.stderr[-300:]!r}")
    lines = lines[:-1]
    wide = [ln for ln in lines if len(ln) > 80]
    check(f"{name} --help: every line at most 80 columns", not wide, wide)
    spaces = [i + 1 for i, ln in enumerate(lines) if ln != ln.rstrip()]
    check(f"{name} --help: no trailing spaces, no lines of spaces", not spaces, spaces)
    doubled = [i + 1 for i in range(1, len(lines)) if lines[i] == "" and lines[i - 1] == ""]
    check(f"{name} --help: no two blank lines in a row, none first", not doubled and lines[0] != "",
          doubled)
    split = [(a, b) for a, b in zip(lines, lines[1:])
             if a.split() and b.split() and HEAD.search(a.split()[-1])
             and TAIL.match(b.split()[0])]
    check(f"{name} --help: no number split across lines", not split, split)
    text = " ".join(p.stdout.split())
    missing = [t for t in WHOLE.get(name, []) if t not in text]
    check(f"{name} --help: {WHOLE.get(name)} whole", not missing, missing)
    # From the first option on, a line either starts an entry ("  -x", "  --name") or
    # continues one under its text column (21).
    entries = [i for i, ln in enumerate(lines) if ln.startswith("  -")]
    stray = [ln for ln in lines[entries[0] if entries else len(lines):]
             if ln.startswith("   ") and not ln.startswith(" " * 21)]
    check(f"{name} --help: continuation lines under the text column", not stray, stray)

finish()
