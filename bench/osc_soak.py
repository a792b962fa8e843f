#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""OSC soak: a viewer under Xvfb driven by OSC changes every second for a long time (an hour by
default), with its memory, threads, file descriptors and replies recorded over time as CSV. Not
run by CI (it takes as long as it is told to); run it before and after a change to the viewer's
remote control and compare the CSVs (bench/README.md, "OSC soak").

usage: bench/osc_soak.py BOIDS [--minutes M] [--interval S] [--out FILE] [-- VIEWER_ARGS...]

Each second it sends one parameter change (alignment_weight, cycling through 0.5 .. 1.5), moves
predator 0 along a circle, and asks for the parameter back (/boids/get/param/alignment_weight);
the viewer's replies and observables come to a UDP port of this script. Every --interval seconds
a row: t_s, rss_kib (VmRSS), threads, fds (open descriptors), sent (messages so far), queries,
replies (answers to the queries so far), observables (other messages received so far). The
summary at the end gives the memory after the first minute and at the end, and the ranges of
the threads and descriptors.
Needs xvfb-run (Debian: xvfb). Exit 1 if the viewer ended before the time was up."""
import argparse
import math
import os
import socket
import struct
import subprocess
import sys
import time


def osc_string(s):
    b = s.encode() + b"\0"
    return b + b"\0" * (-len(b) % 4)


def osc_message(address, *floats):
    return (osc_string(address) + osc_string("," + "f" * len(floats)) +
            b"".join(struct.pack(">f", x) for x in floats))


def osc_address(packet):
    end = packet.find(b"\0")
    return packet[:end].decode(errors="replace") if end > 0 else ""


def free_udp_port():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def find_viewer(boids, port, deadline):
    """The pid of the boids process listening on port (a child of xvfb-run's shell)."""
    want = [boids.encode(), b"--osc-port", str(port).encode()]
    while time.time() < deadline:
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                argv = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")
            except OSError:
                continue
            if argv and argv[0] == want[0] and all(w in argv for w in want[1:]):
                return int(pid)
        time.sleep(0.2)
    return None


def sample(pid):
    """(rss_kib, threads, fds) of pid, or None once it is gone."""
    try:
        status = dict(line.split(":", 1) for line in open(f"/proc/{pid}/status") if ":" in line)
        rss = int(status["VmRSS"].split()[0])
        threads = int(status["Threads"])
        fds = len(os.listdir(f"/proc/{pid}/fd"))
        return rss, threads, fds
    except (OSError, KeyError, ValueError):
        return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("boids", help="the boids program (build/boids)")
    ap.add_argument("--minutes", type=float, default=60.0, help="how long (default 60)")
    ap.add_argument("--interval", type=float, default=10.0, help="seconds between rows (default 10)")
    ap.add_argument("--out", default="osc_soak.csv", help="the CSV (default osc_soak.csv)")
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    a = ap.parse_args(argv[:cut])
    a.viewer_args = argv[cut + 1:]  # more options for boids view
    boids = os.path.abspath(a.boids)
    port_in, port_out = free_udp_port(), free_udp_port()
    rx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    rx.bind(("127.0.0.1", port_out))
    rx.setblocking(False)
    tx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    cmd = ["xvfb-run", "-a", "-s", "-screen 0 1280x800x24", boids, "view", "--osc-port", str(port_in),
           "--osc-send", f"127.0.0.1:{port_out}", *a.viewer_args]
    viewer = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    pid = find_viewer(boids, port_in, time.time() + 60)
    if pid is None:
        viewer.kill()
        sys.exit("osc_soak: the viewer did not start within 60 s")
    sent = queries = replies = observables = 0
    rows, ok = [], True
    t0 = time.time()
    next_send = next_row = t0
    with open(a.out, "w") as out:
        out.write("t_s,rss_kib,threads,fds,sent,queries,replies,observables\n")
        while time.time() - t0 < a.minutes * 60:
            now = time.time()
            if now >= next_send:
                k = sent // 3
                msgs = [osc_message("/boids/param/alignment_weight", 1.0 + 0.5 * math.sin(k / 7.0)),
                        osc_message("/boids/predator/0", 0.5 + 0.3 * math.cos(k / 5.0),
                                    0.5 + 0.3 * math.sin(k / 5.0)),
                        osc_message("/boids/get/param/alignment_weight")]
                for m in msgs:
                    tx.sendto(m, ("127.0.0.1", port_in))
                sent += len(msgs)
                queries += 1
                next_send += 1.0
            while True:
                try:
                    packet = rx.recv(65536)
                except BlockingIOError:
                    break
                if osc_address(packet).startswith("/boids/param/alignment_weight"):
                    replies += 1
                else:
                    observables += 1
            if now >= next_row:
                s = sample(pid)
                if s is None:
                    ok = False
                    break
                row = (round(now - t0, 1), *s, sent, queries, replies, observables)
                rows.append(row)
                out.write(",".join(map(str, row)) + "\n")
                out.flush()
                next_row += a.interval
            time.sleep(0.02)
    tx.sendto(osc_message("/boids/quit"), ("127.0.0.1", port_in))
    try:
        viewer.wait(timeout=30)
    except subprocess.TimeoutExpired:
        viewer.kill()
    settled = [r for r in rows if r[0] >= 60] or rows  # after the viewer's start
    if settled:
        last = rows[-1]
        print(f"osc_soak: {last[0]:.0f} s, {last[4]} messages sent, {last[6]} of {last[5]} "
              f"queries answered (those sent while the viewer started are lost: UDP), "
              f"{last[7]} other messages received")
        print(f"  from {settled[0][0]:.0f} s: rss {settled[0][1] / 1024:.1f} MiB, at the end "
              f"{last[1] / 1024:.1f} MiB, max {max(r[1] for r in settled) / 1024:.1f} MiB; "
              f"threads {min(r[2] for r in settled)}..{max(r[2] for r in settled)}, "
              f"fds {min(r[3] for r in settled)}..{max(r[3] for r in settled)}; rows in {a.out}")
    if not ok:
        sys.exit("osc_soak: the viewer ended before the time was up")


if __name__ == "__main__":
    main()
