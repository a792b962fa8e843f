#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Same seed, same bits: two runs of each build, the -O0 and -O2 builds, and the cpu
backend at 1 and 2 threads all print identical final-state hashes.

usage: determinism_test.py DETERMINISM_O0 DETERMINISM_O2
"""
import re
import sys

from harness import check, finish, run

o0, o2 = sys.argv[1], sys.argv[2]
a = run(o0, check_rc=0).stdout
b = run(o0, check_rc=0).stdout
c = run(o2, check_rc=0).stdout
d = run(o2, check_rc=0).stdout
print(c, end="")
check("two runs of the -O0 build give the same hashes", a == b)
check("two runs of the -O2 build give the same hashes", c == d)
check("-O0 and -O2 builds give the same hashes", a == c, f"\n-O0:\n{a}-O2:\n{c}")
hashes = {}
for line in c.splitlines():
    m = re.match(r"(\S+) cpu threads=(\d+) n=(\d+) steps=(\d+) hash=(\w+)", line)
    if m:
        hashes.setdefault((m.group(1), m.group(3), m.group(4)), set()).add(m.group(5))
check("cpu backend: the same bits at 1 and 2 threads", hashes and all(len(h) == 1 for h in hashes.values()),
      str(hashes))
finish()
