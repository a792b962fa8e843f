# SPDX-License-Identifier: MIT
"""A long run of `boids view` under OSC control, for docs/installation.md: parameter changes
every 3 seconds, resident memory sampled every 10 seconds, frame-time percentiles from the
viewer's --stats at the end. Not a ctest test (it runs for as long as asked).

Usage: osc_soak.py BOIDS SECONDS OUTDIR. Needs xvfb-run, oscsend and oscdump. Writes
OUTDIR/rss.csv (t, rss_kb), OUTDIR/stats.csv (the viewer's --stats), OUTDIR/stderr.txt and
OUTDIR/dump.txt (what the viewer sent), and prints the RSS slope."""
import csv
import os
import random
import signal
import subprocess
import sys
import time

BOIDS, SECONDS, OUT = os.path.abspath(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
PORT_IN, PORT_OUT = 9410, 9411


def viewer_pid(parent):
    """The boids process that xvfb-run started."""
    for _ in range(200):
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                with open(f"/proc/{pid}/stat") as f:
                    stat = f.read()
            except OSError:
                continue
            if "(boids)" in stat and int(stat.rsplit(")", 1)[1].split()[1]) == parent:
                return int(pid)
        time.sleep(0.3)
    raise SystemExit("the viewer did not start")


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS"):
                return int(line.split()[1])
    return 0


def send(*args):
    subprocess.run(["oscsend", "127.0.0.1", str(PORT_IN), *map(str, args)], check=False)


def changes(k, rng):
    """The k-th round of changes: every round weights, radius and a predator; now and then a
    preset, a new N (a restart), obstacles, and a value the viewer must refuse."""
    send("/boids/param/alignment_weight", "f", round(rng.uniform(0, 3), 2))
    send("/boids/param/cohesion_weight", "f", round(rng.uniform(0, 3), 2))
    send("/boids/param/vision_radius", "f", round(rng.uniform(30, 80), 1))
    send("/boids/predator/1", "ff", rng.uniform(0, 900), rng.uniform(0, 560))
    if k % 4 == 0:
        send("/boids/predator/1/off")
    if k % 10 == 0:
        send("/boids/preset", "s", ["flock", "school", "swarm", "chaos", "lab"][(k // 10) % 5])
    if k % 15 == 0:
        send("/boids/param/count", "i", rng.choice([1000, 1500, 2500]))
    if k % 20 == 0:
        send("/boids/obstacle/clear")
    if k % 7 == 0:
        send("/boids/obstacle/circle", "fff", rng.uniform(0, 900), rng.uniform(0, 560), 30)
    if k % 25 == 0:
        send("/boids/param/fov", "f", 999)


def slope_kb_per_hour(rows):
    """The least-squares slope as text; a run too short for two samples has none."""
    n = len(rows)
    mt, mv = sum(t for t, _ in rows) / n, sum(v for _, v in rows) / n
    spread = sum((t - mt) ** 2 for t, _ in rows)
    if spread == 0:
        return "n/a (one sample: run it for more than 10 s)"
    return f"{3600 * sum((t - mt) * (v - mv) for t, v in rows) / spread:.1f} kB/h"


def main():
    os.makedirs(OUT, exist_ok=True)
    dump = subprocess.Popen(["oscdump", str(PORT_OUT)], stdout=open(f"{OUT}/dump.txt", "w"),
                            stderr=subprocess.STDOUT)
    xvfb = subprocess.Popen(
        ["xvfb-run", "-a", "-s", "-screen 0 1280x1024x24", BOIDS, "view", "--size", "1280x800",
         "--osc-port", str(PORT_IN), "--osc-send", f"127.0.0.1:{PORT_OUT}", "--stats",
         "--attract", "20"],
        stdout=open(f"{OUT}/stats.csv", "w"), stderr=open(f"{OUT}/stderr.txt", "w"))
    pid = viewer_pid(xvfb.pid)
    rng, rows, k, t0, last = random.Random(1), [], 0, time.time(), -10.0
    with open(f"{OUT}/rss.csv", "w") as out:
        out.write("t,rss_kb\n")
        while time.time() - t0 < SECONDS:
            t = time.time() - t0
            if t - last >= 10:
                rows.append((t, rss_kb(pid)))
                out.write(f"{t:.1f},{rows[-1][1]}\n")
                out.flush()
                last = t
            k += 1
            changes(k, rng)
            time.sleep(3)
    os.kill(pid, signal.SIGTERM)
    rc = xvfb.wait(timeout=120)
    dump.kill()
    late = [r for r in rows if r[0] >= 300] or rows
    print(f"exit {rc}; RSS {rows[0][1]} kB at start, {rows[-1][1]} kB at {rows[-1][0]:.0f} s; "
          f"slope from 5 min {slope_kb_per_hour(late)}")
    with open(f"{OUT}/stats.csv") as f:
        print(next(csv.DictReader(f)) if rc == 0 else "no stats")


if __name__ == "__main__":
    main()
