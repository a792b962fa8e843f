# SPDX-License-Identifier: MIT
"""What the viewer's and renderer's test drivers share (view_test.py, view_box_test.py):
running `boids` (under Xvfb for the window), checking, reading --stats, counting the pixels
of a picture, and running the test a driver is asked for (the OSC sessions' helpers are
tests/harness.py's).

A driver is run as DRIVER BOIDS TEST; it imports this module, whose BOIDS is that program,
and ends with `view_harness.main(globals())`."""
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(HERE)]
import harness  # noqa: E402
import png  # noqa: E402

BOIDS = os.path.abspath(sys.argv[1])
XVFB = ["xvfb-run", "-a", "-s", "-screen 0 1024x768x24"]
# xvfb-run itself sometimes fails to remove its temporary folder on a loaded machine and then
# replaces the program's exit status with its own; that run says nothing about boids, so it
# is run again (the message is xvfb-run's, never the program's).
XVFB_CLEANUP = "xvfb-run: error: problem while cleaning up temporary directory"


def run(args, env=None, xvfb=False, timeout=280, cwd=None):
    cmd = (XVFB if xvfb else []) + [BOIDS] + args
    for _ in range(3):
        r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout,
                           cwd=cwd)
        if not (xvfb and XVFB_CLEANUP in r.stderr):
            break
    return r


def check(cond, what, r=None):
    if not cond:
        print("FAILED:", what)
        if r is not None:
            print("stdout:", r.stdout[-2000:])
            print("stderr:", r.stderr[-2000:])
        sys.exit(1)


def need_xvfb():
    if not shutil.which("xvfb-run"):
        harness.skip("xvfb-run not found (Debian package xvfb)")


def stats_text(r):
    """The --stats line of a run: column name to its text."""
    lines = r.stdout.strip().splitlines()
    return dict(zip(lines[-2].split(","), lines[-1].split(",")))


def stats(r):
    """The --stats line of a run: column name to its number."""
    return harness.view_stats(r.stdout)


def lit_pixels(path, region=None):
    w, h, ch, rows = png.read(path)
    return png.count_not_background(w, h, ch, rows, region)


def green_under_hud(tmp, n, frames, region):
    """`boids view` of N plain green boids in 640 x 400 with the HUD and no panel, FRAMES
    frames: (the density of bright green boid pixels in the top left REGION (w, h), where
    the HUD is, over their density elsewhere; the pixels inside; outside; the run)."""
    cfg = os.path.join(tmp, "green.ini")
    with open(cfg, "w") as f:
        f.write("view.colour = plain\nview.plain = #00ff00\n")
    shot = os.path.join(tmp, f"green-{n}.png")
    r = run(["view", "--config", cfg, "-n", str(n), "--size", "640x400", "--frames",
             str(frames), "--no-panel", "--screenshot", shot], xvfb=True)
    check(r.returncode == 0, f"{n} green boids: exit {r.returncode}", r)
    w, h, ch, rows = png.read(shot)
    rw, rh = region
    inside = outside = 0
    for y, row in enumerate(rows):
        for x in range(w):
            g = row[x * ch + 1]
            if g > 200 and g > row[x * ch] + 120:  # a boid's core pixel, not its rim
                if x < rw and y < rh:
                    inside += 1
                else:
                    outside += 1
    ratio = inside / (rw * rh) / (outside / (w * h - rw * rh)) if outside else 0
    return ratio, inside, outside, r


def colour_pixels(path):
    """(blue, red) pixels: the follow marks' blue (0.3, 0.6, 1.0), and the red of the followed
    boid (1.0, 0.25, 0.2) and of the predator's circle (0xff5a4a), as drawn (in the box lit
    and fogged towards the background), which no plain-coloured boid, the background or
    another line has; the vision circle's and cone's pale blue have red above 100."""
    w, h, ch, rows = png.read(path)
    blue = red = 0
    for r in rows:
        for x in range(w):
            cr, cg, cb = r[x * ch], r[x * ch + 1], r[x * ch + 2]
            if cb > cr + 80 and cb > cg + 30 and cr < 100:
                blue += 1
            if cr > cg + 60 and cr > cb + 60:
                red += 1
    return blue, red


def main(tests):
    """Runs test_NAME of the driver's globals, NAME the driver's second argument, in a
    temporary folder removed after it."""
    name = sys.argv[2]
    tmp = tempfile.mkdtemp(prefix="boids-view-")
    try:
        tests["test_" + name](tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
