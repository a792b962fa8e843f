#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A state twice, side by side: the boids of IN (a boids .npy state of N rows x, y, vx, vy in
float64, the plane), then the same boids moved by WIDTH along x, into OUT (2N rows). For weak
scaling with the work per rank held: the two copies in a world of 2 WIDTH x the height, cut
by rows across both, give each of 2 ranks the work of IN on one rank (the cut balances the
load; the copies meet at x = WIDTH, where walls kept the boids a margin apart).
usage: twice.py IN WIDTH OUT"""
import array
import struct
import sys


def main():
    src, width, dst = sys.argv[1], float(sys.argv[2]), sys.argv[3]
    with open(src, "rb") as f:
        raw = f.read()
    if raw[:6] != b"\x93NUMPY":
        sys.exit(f"{src}: not a .npy file")
    hlen = struct.unpack("<H", raw[8:10])[0]
    head = raw[10:10 + hlen].decode("latin1")
    if "'<f8'" not in head or ", 4)" not in head or "True" in head:
        sys.exit(f"{src}: expected float64 rows of 4 in C order (x, y, vx, vy): {head.strip()}")
    a = array.array("d")
    a.frombytes(raw[10 + hlen:])
    n = len(a) // 4
    b = array.array("d", a)
    for i in range(0, len(b), 4):
        b[i] += width
    head = "{'descr': '<f8', 'fortran_order': False, 'shape': (%d, 4), }" % (2 * n)
    head += " " * (63 - (10 + len(head)) % 64) + "\n"
    with open(dst, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(head)) + head.encode("latin1"))
        f.write(a.tobytes() + b.tobytes())


if __name__ == "__main__":
    main()
