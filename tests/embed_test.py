# SPDX-License-Identifier: MIT
"""examples/embed_glfw under Xvfb: a host window with its own GL loader steps the flock on
the GPU and draws it from the library's state buffer. The screenshot must show boids: boid
pixels (the example's amber) over a good part of the window, spread as a flock of 1500 is,
not one blob and not an empty frame.

Usage: embed_test.py EMBED_GLFW. Exit 77 (skip) without xvfb-run or a GL 4.3 window, a
failure instead with BOIDS_REQUIRE_GPU=1 (tests/harness.py)."""
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402

XVFB = ["xvfb-run", "-a", "-s", "-screen 0 1024x768x24"]


def read_ppm(path):
    with open(path, "rb") as f:
        data = f.read()
    magic, size, maxval, pixels = data.split(b"\n", 3)
    w, h = map(int, size.split())
    if magic != b"P6" or maxval != b"255" or len(pixels) != 3 * w * h:
        raise ValueError(f"{path}: not an 8-bit binary PPM of {w} x {h}")
    return w, h, pixels


def main():
    exe = sys.argv[1]
    if not shutil.which("xvfb-run"):
        harness.skip("xvfb-run not found (Debian package xvfb)")
    shot = os.path.join(harness.tmpdir(), "embed.ppm")
    p = subprocess.run(XVFB + [exe, "--frames", "60", "--screenshot", shot], capture_output=True,
                       text=True, timeout=240)
    if p.returncode == 77:
        harness.skip(f"no OpenGL 4.3 window: {p.stderr.strip()}")
    harness.check("embed_glfw exits 0", p.returncode == 0, f"exit {p.returncode}: {p.stderr}")
    harness.check("says what it drew", "1500 boids, 60 frames" in p.stdout, p.stdout)
    if p.returncode != 0:
        harness.finish()
    w, h, px = read_ppm(shot)
    # Boid pixels: the fragment shader's (1.0, 0.85, 0.3); the background is (0.05, 0.07, 0.15).
    boid = [px[i] > 200 and px[i + 1] > 150 and px[i + 2] < 150 for i in range(0, len(px), 3)]
    share = sum(boid) / (w * h)
    # 1500 triangles of ~30 px each cover about 1500 * 30 / (900 * 560) = 9% where none
    # overlap; clumping lowers it. Between 1% and 40% rules out an empty and a filled frame.
    harness.check("boid pixels cover 1% to 40% of the window", 0.01 < share < 0.4, f"{share:.3f}")
    tiles = set()
    for y in range(h):
        for x in range(w):
            if boid[y * w + x]:
                tiles.add((8 * x // w, 8 * y // h))
    # A random start in the whole world, 60 steps later: boids in most of an 8 x 8 grid.
    harness.check("boids spread over at least 32 of 64 tiles", len(tiles) >= 32, f"{len(tiles)}")
    harness.finish()


if __name__ == "__main__":
    main()
