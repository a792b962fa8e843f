# SPDX-License-Identifier: MIT
"""TUIO calibration and markers: with the config's tuio.flip and tuio.scale and the option
--tuio-offset (which wins over the config's tuio.offset), a cursor lands where
offset + scale * (the point, flipped) says, and --tuio-markers draws a mark there in the
clean view, nowhere else; a bad calibration value is refused (exit 2, naming it).

Usage: tuio_cal_test.py BOIDS; it skips where harness.osc_session does."""
import os
import shutil
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.dirname(HERE), HERE]
import harness  # noqa: E402
import png  # noqa: E402

BOIDS = os.path.abspath(sys.argv[1])
send = harness.osc_send
TMP = harness.tmpdir()
SHOTS = os.path.join(TMP, "shots")
CONFIG = """tuio.flip = x
tuio.scale = 0.5 0.5
tuio.offset = 0.9 0.9
"""
# The cursor at (0.2, 0.4): x flipped to 0.8, both halved, then offset by 0.25.
CURSOR = (0.2, 0.4)
LANDS = (0.25 + 0.5 * (1 - 0.2), 0.25 + 0.5 * 0.4)
W, H = 640, 400


def drive(port, dump):
    send(port, "/tuio/2Dcur", "si", "alive", 7)
    send(port, "/tuio/2Dcur", "sifffff", "set", 7, *CURSOR, 0, 0, 0)
    send(port, "/boids/get/predator/0")
    harness.wait_for(dump, "/boids/norm/predator/0/z", 60)
    send(port, "/boids/pause", "i", 1)
    time.sleep(0.5)
    send(port, "/boids/screenshot")
    for _ in range(300):
        shots = [f for f in os.listdir(SHOTS) if f.endswith(".png")]
        if shots:
            time.sleep(1)  # written through a temporary name and renamed: complete now
            break
        time.sleep(0.2)
    send(port, "/boids/quit")
    with open(dump) as f:
        lines = f.read().splitlines()
    pos = [l.split()[3:] for l in lines if l.split()[1:2] == ["/boids/norm/predator/0"]]
    return pos[-1] if pos else None, shots


def yellow(rows, x0, y0, x1, y1):
    """Pixels of the markers' colour (0xffd24a, within 40 a channel) in the box."""
    n = 0
    for y in range(max(0, y0), min(H, y1)):
        row = rows[y]
        for x in range(max(0, x0), min(W, x1)):
            r, g, b = row[3 * x], row[3 * x + 1], row[3 * x + 2]
            n += abs(r - 255) < 40 and abs(g - 210) < 40 and abs(b - 74) < 40
    return n


def main():
    ini = os.path.join(TMP, "cal.ini")
    with open(ini, "w") as f:
        f.write(CONFIG)
    p = harness.run(BOIDS, "view", "--config", ini, "--tuio-flip", "z", "--frames", "1")
    harness.one_message("--tuio-flip z", p, ["--tuio-flip", "'z'", "none, x, y or xy"])
    os.mkdir(SHOTS)
    got, out, err, rc, _ = harness.osc_session(
        BOIDS, ["-n", "20", "--size", f"{W}x{H}", "--no-panel", "--no-hud", "--clean",
                "--colour", "plain", "--frames", "1000000", "--steps-per-frame", "1", "--stats",
                "--config", ini, "--tuio-offset", "0.25,0.25", "--tuio-markers",
                "--screenshot-dir", SHOTS], drive, "the viewer runs and sends observables")
    if rc != 0 or not got:
        harness.finish()
    pos, shots = got
    # The window shows the whole world, a few pixels of margin aside (view_input.c): the
    # point is where the window's (0.65, 0.45) is, within 2% of the world.
    harness.check(f"the cursor at {CURSOR} lands at the window's {LANDS} of the world",
                  pos and abs(float(pos[0]) - LANDS[0]) < 0.02 and abs(float(pos[1]) - LANDS[1]) < 0.02,
                  str(pos))
    harness.check("a screenshot was written", len(shots) == 1, str(shots))
    if shots:
        w, h, ch, rows = png.read(os.path.join(SHOTS, shots[0]))
        if ch == 4:
            rows = [bytes(b for i, b in enumerate(r) if i % 4 != 3) for r in rows]
        x, y = int(LANDS[0] * W), int(LANDS[1] * H)
        near = yellow(rows, x - 40, y - 40, x + 41, y + 41)
        total = yellow(rows, 0, 0, W, H)
        harness.check("the marker is drawn where the point lands, in the clean view",
                      (w, h) == (W, H) and near > 20, f"{near} pixels near ({x}, {y})")
        harness.check("and nowhere else (not at the tracker's raw point)", total == near,
                      f"{total} in all, {near} near")
    if not harness.FAILURES:
        shutil.rmtree(TMP, ignore_errors=True)
    harness.finish()


if __name__ == "__main__":
    main()
