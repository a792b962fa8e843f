# SPDX-License-Identifier: MIT
"""Tests of `boids view` (under Xvfb) and `boids render` (EGL, no display).

Usage: view_test.py BOIDS TEST (the box's own tests: view_box_test.py; what both share:
view_harness.py). Each TEST asserts one property, named in its function's
name; the sizes are small (a few hundred boids, tens of frames) because these run on
llvmpipe with two cores. Exit 77 means skipped (no xvfb-run), a failure instead with
BOIDS_REQUIRE_GPU set (tests/harness.py)."""
import math
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from view_harness import (BOIDS, check, colour_pixels, green_under_hud, harness,  # noqa: E402
                          need_xvfb, png, run, stats, stats_text)
import view_harness  # noqa: E402


def test_view_starts_draws_boids_and_closes_cleanly(tmp):
    need_xvfb()
    n = 400
    shot = os.path.join(tmp, "view.png")
    r = run(["-n", str(n), "--size", "640x400", "--frames", "20", "--steps-per-frame", "1",
             "--no-hud", "--no-panel", "--screenshot", shot, "--stats", "-v"], xvfb=True)
    check(r.returncode == 0, f"exit code {r.returncode}", r)
    # Without --backend, a software renderer simulates on the cpu grid and only draws.
    software = "llvmpipe" in r.stderr or "softpipe" in r.stderr
    check(("backend cpu" if software else "backend gpu") in r.stderr, "automatic backend", r)
    s = stats(r)
    check(s["frames"] == 20 and s["steps"] == 20 and s["n"] == n, f"stats {s}", r)
    w, h, ch, rows = png.read(shot)
    check((w, h) == (640, 400), f"screenshot size {w}x{h}")
    # A boid is a dart of about 9 x 6 pixels (about 20 pixels and its antialiased edge);
    # overlaps lower the count, so accept 2 to 80 pixels a boid.
    lit = png.count_not_background(w, h, ch, rows)
    check(2 * n <= lit <= 80 * n, f"{lit} non-background pixels for {n} boids")
    # With the HUD and the panel, through the `boids` default command, still clean.
    # -vv makes a debug context and counts KHR_debug errors: following a boid, the help
    # and a panel click exercise every drawing path, from the gpu backend's own buffers.
    r = run(["-n", "200", "--size", "800x600", "--frames", "8", "-vv", "--backend", "gpu",
             "--keys", "2:f,3:?,4:{click:700,120}"], xvfb=True)
    check(r.returncode == 0, f"default command with HUD and panel: exit {r.returncode}", r)
    check("GL debug: 0 errors" in r.stderr, "GL errors in the window", r)
    print(f"ok: {lit} lit pixels for {n} boids; clean exit with HUD and panel")


def test_view_follow_marks_neighbours_cpu_and_gpu(tmp):
    need_xvfb()
    # In the plane and in the box: plain boids, no predator and no pointer; `f` follows the
    # boid nearest the middle of the window (the box: nearest the pointer's ray), `z` locks
    # the camera on it and the wheel zooms in. The followed boid is red, the seven it counts
    # (topological k = 7) blue: drawn from the marks of each backend's own rule
    # (follow_test checks that those are the step's sets).
    keys = "2:{click:320,200}f,3:z,4:{wheel:320,200,12}"
    for dim, preset in ((2, "lab"), (3, "murmuration")):
        base = ["view", "--preset", preset, "--set", f"dim={dim}", "-n", "3000", "--size",
                "640x400", "--frames", "8", "--steps-per-frame", "1", "--no-hud", "--no-panel",
                "--colour", "plain", "--set", "predator=0", "--set", "neighbours=topological",
                "--set", "k=7", "--pointer", "off", "--stats", "-vv"]
        shots = {}
        for backend, follow in (("cpu", True), ("gpu", True), ("cpu", False)):
            what = f"{dim}-D, {backend}"
            shot = os.path.join(tmp, f"{dim}-{backend}-{follow}.png")
            extra = ["--keys", keys if follow else keys.replace("f,", ",")]
            r = run(base + ["--backend", backend, "--screenshot", shot] + extra, xvfb=True)
            check(r.returncode == 0, f"{what}: exit code {r.returncode}", r)
            check(f"backend {backend}," in r.stderr, f"{what}: the viewer ran on {backend}", r)
            check("GL debug: 0 errors" in r.stderr, f"{what}: GL errors in the window", r)
            check(stats_text(r)["following"] == ("1" if follow else "0"), f"{what}: following", r)
            shots[(backend, follow)] = colour_pixels(shot)
            print(f"{what}, follow {follow}: {shots[(backend, follow)]} (blue, red) pixels")
        for backend in ("cpu", "gpu"):
            blue, red = shots[(backend, True)]
            # seven small boids near the eye: some tens of pixels at the least
            check(blue >= 20 and red >= 3,
                  f"{dim}-D, {backend}: neighbours or the followed boid not drawn")
        check(shots[("cpu", False)] == (0, 0), f"{dim}-D: blue or red boids without a followed one")
    print("ok: the followed boid red and its neighbours blue, in 2-D and 3-D, on cpu and gpu")


def mean_distance(pointer, tmp):
    # lab world 900 x 560; the pointer held at its centre for 60 frames of 2 steps.
    r = run(["view", "-n", "600", "--seed", "3", "--size", "640x400", "--frames", "60",
             "--steps-per-frame", "2", "--no-panel", "--no-hud", "--press", "450,280",
             "--pointer", pointer, "--stats"], xvfb=True)
    check(r.returncode == 0, f"--pointer {pointer}: exit {r.returncode}", r)
    return stats(r)["mean_distance"]


def test_predator_pushes_boids_away_food_draws_them_in(tmp):
    need_xvfb()
    off = mean_distance("off", tmp)
    pred = mean_distance("predator", tmp)
    food = mean_distance("food", tmp)
    print(f"mean distance to the pointer: off {off:.1f}, predator {pred:.1f}, food {food:.1f}")
    # Uniform boids in 900 x 560 average about 250 from the centre; the predator empties a
    # disc of radius 160 around it, which raises the mean by tens of units, and food
    # gathers the boids within 160 towards it. 10 units is far above the run-to-run
    # spread of a fixed seed.
    check(pred > off + 10, "predator did not push the boids away")
    check(food < off - 10, "food did not draw the boids in")


def test_view_keys_and_panel_change_the_live_settings(tmp):
    need_xvfb()
    # --keys types through the window's own handlers. In a 640x400 window the panel is
    # 300 pixels wide at x 340 and its "walls" button is centred at (562, 371): the layout
    # of view_panel.c at text scale 2 (update these numbers with the layout).
    r = run(["view", "--size", "640x400", "--frames", "10", "--steps-per-frame", "1",
             "--keys", "1:{f1},2:qq,3:{click:562,371},5:2,6:cm,7:i,8:{space}", "--stats"],
            xvfb=True)
    check(r.returncode == 0, f"exit code {r.returncode}", r)
    s = stats(r)
    want = {"fov": 270,                 # F1: preset flock, applied live
            "separation_weight": 1.7,   # q twice
            "boundary": 1,              # the panel's walls button
            "alignment_weight": 0,      # 2: restart without alignment
            "cohesion_weight": 1,
            "colour": 1,                # c: heading -> speed
            "pointer": 2,               # m: predator -> food
            "n": 3000,                  # i: N x 2, restarted
            "paused": 1}                # Space
    for k, v in want.items():
        check(abs(s[k] - v) < 1e-9, f"{k} = {s[k]}, expected {v}", r)
    # The world grew with N to keep the lab density (900 x 560 holds 1500).
    check(abs(s["width"] * s["height"] / 3000 - 900 * 560 / 1500) < 1, "density kept", r)
    r = run(["view", "--frames", "2", "--keys", "1:{oops}"], xvfb=True)
    check(r.returncode == 2 and "--keys" in r.stderr, "malformed --keys not refused", r)
    print("ok: keys, the panel and presets change the live settings")


def test_view_fills_the_window_and_its_panel_scrolls(tmp):
    need_xvfb()
    # The world takes the window's shape at the lab preset's density (1500 boids in
    # 900 x 560): in a portrait window it is portrait, with the same area.
    r = run(["view", "--size", "400x700", "--frames", "2", "--no-panel", "--stats"], xvfb=True)
    check(r.returncode == 0, f"portrait: exit {r.returncode}", r)
    s = stats(r)
    check(abs(s["width"] / s["height"] - 400 / 700) < 1e-3, f"world {s['width']} x {s['height']}")
    check(abs(s["width"] * s["height"] - 900 * 560) < 1, "the preset's density is kept", r)
    # With the panel (300 pixels wide at text scale 2), the world takes the shape of the
    # 340 x 400 pixels beside it: no bands above and below.
    r = run(["view", "--size", "640x400", "--frames", "2", "--stats"], xvfb=True)
    s = stats(r)
    check(r.returncode == 0 and abs(s["width"] / s["height"] - 340 / 400) < 1e-3,
          f"beside the panel: world {s['width']} x {s['height']}", r)
    # In 800 x 500 the panel is taller than the window: the wheel over it scrolls down to
    # its last rows, where the COLOUR row's third button (plain) is at (745, 402) once the
    # panel's bottom meets the window's (the layout of view_panel.c).
    r = run(["view", "--size", "800x500", "--frames", "8", "--steps-per-frame", "1", "--stats",
             "--keys", "2:{wheel:700,250,-40},5:{click:745,402}"], xvfb=True)
    check(r.returncode == 0, f"800x500: exit {r.returncode}", r)
    check(stats(r)["colour"] == 2, "the scrolled panel's bottom row is not reached", r)
    # --span: one window over the whole (here single-screen) virtual desktop.
    r = run(["view", "--span", "--frames", "2", "--stats"], xvfb=True)
    check(r.returncode == 0, f"--span: exit {r.returncode}", r)
    s = stats(r)
    check((s["fb_w"], s["fb_h"]) == (1024, 768), f"--span window {s['fb_w']} x {s['fb_h']}", r)
    print("ok: portrait world, panel scrolled to its last row, --span covers the screen")


def test_view_speaks_every_model_with_linked_speeds(tmp):
    need_xvfb()
    # 640x480: the panel is 300 pixels wide at x 340; the SPEED section's max speed slider
    # track is at y 426 to 436 and spans x 348 to 632 (log scale), the linked / unlinked
    # buttons are at y 466 to 488 (the layout of view_panel.c).
    base = ["view", "--size", "640x480", "--frames", "8", "--steps-per-frame", "1", "--stats"]
    # Walls, then the school preset: the edges stay walls (school sets none). Then the max
    # speed slider: min speed and max force follow it (seed 002's link).
    r = run(base + ["--keys", "1:b,2:{f2},4:{click:490,431}"], xvfb=True)
    check(r.returncode == 0, f"exit {r.returncode}", r)
    s = stats(r)
    check(s["boundary"] == 1 and s["alignment_weight"] == 2.5, f"preset and edges: {s}", r)
    check(s["max_speed"] != 150, f"the slider did not move max speed: {s}", r)
    # %g prints 6 significant digits: relative tolerance 1e-5.
    check(abs(s["min_speed"] - s["max_speed"] / 3) <= 1e-5 * s["max_speed"] and
          abs(s["max_force"] - s["max_speed"] / 30) <= 1e-5 * s["max_speed"],
          f"min speed and max force do not follow max speed: {s}", r)
    # Unlinked: the slider moves max speed alone.
    r = run(base + ["--keys", "1:{click:561,477},4:{click:490,431}"], xvfb=True)
    s = stats(r)
    check(r.returncode == 0 and s["max_speed"] != 180 and s["min_speed"] == 60 and
          s["max_force"] == 6, f"unlinked: {s}", r)
    # F7: the Vicsek preset.
    r = run(base + ["--keys", "1:{f7}"], xvfb=True)
    s = stats(r)
    check(r.returncode == 0 and s["model"] == 1 and s["noise"] == 2, f"vicsek: {s}", r)
    print("ok: preset keeps the edges, linked and unlinked speeds, the Vicsek preset")


def test_render_world_takes_the_frame_shape(tmp):
    # A portrait frame gets a portrait world at the preset's density, so boids reach every
    # edge: each quarter of the frame's height holds boids.
    r = run(["render", "--size", "180x320", "--frames", "1", "-o",
             os.path.join(tmp, "portrait-%d.png")])
    shot = os.path.join(tmp, "portrait-0.png")
    check(r.returncode == 0, f"exit {r.returncode}", r)
    w, h, ch, rows = png.read(shot)
    check((w, h) == (180, 320), f"frame size {w}x{h}")
    for q in range(4):
        band = rows[q * h // 4:(q + 1) * h // 4]
        lit = png.count_not_background(w, len(band), ch, band)
        check(lit > 100, f"quarter {q} of the portrait frame has only {lit} lit pixels")
    print("ok: the portrait frame is full")


def background(w, h, ch, rows):
    hist = {}
    for r in rows:
        for x in range(w):
            px = bytes(r[x * ch:x * ch + 3])
            hist[px] = hist.get(px, 0) + 1
    return tuple(max(hist, key=hist.get))


def render_png(tmp, name, args):
    r = run(["render", "--size", "200x120", "-o", os.path.join(tmp, name + "-%d.png")] + args)
    check(r.returncode == 0, f"{name}: exit {r.returncode}", r)
    frames = sorted(f for f in os.listdir(tmp) if f.startswith(name + "-"))
    return png.read(os.path.join(tmp, frames[-1]))


def test_render_look_from_config_trails_and_density(tmp):
    cfg = os.path.join(tmp, "look.ini")
    with open(cfg, "w") as f:
        f.write("count = 300\nview.background = #203040\nview.shape = needle\n"
                "view.palette = ember\n")
    img = render_png(tmp, "look", ["--config", cfg, "--frames", "1"])
    check(background(*img) == (0x20, 0x30, 0x40), f"background {background(*img)}")
    with open(cfg, "w") as f:
        f.write("view.background = red\n")
    r = run(["render", "--config", cfg, "--frames", "1", "-o", os.path.join(tmp, "x-%d.png")])
    check(r.returncode == 2 and ":1:" in r.stderr and "view.background" in r.stderr,
          "a bad view. line is not refused naming its line", r)
    # Trails: the same 10 frames light up more pixels with 20-frame trails than without.
    moving = ["-n", "300", "--frames", "10", "--steps-per-frame", "5"]
    plain = png.count_not_background(*render_png(tmp, "plain", moving))
    trail = png.count_not_background(*render_png(tmp, "trail", moving + ["--trail", "20"]))
    check(trail > 2 * plain, f"trails light {trail} pixels, without {plain}")
    # Density: additive light, on by itself from 50,000 boids on hardware (not on software
    # renderers, where it costs too much frame time); off draws opaque boids.
    r = run(["render", "-n", "10", "--frames", "1", "-v", "-o", os.path.join(tmp, "r-%d.png")])
    software = "llvmpipe" in r.stderr or "softpipe" in r.stderr
    auto = render_png(tmp, "auto", ["-n", "60000", "--frames", "1", "--backend", "cpu"])
    off = render_png(tmp, "off", ["-n", "60000", "--frames", "1", "--backend", "cpu",
                                  "--density", "off"])
    on = render_png(tmp, "on", ["-n", "60000", "--frames", "1", "--backend", "cpu",
                                "--density", "on"])
    check(on[3] != off[3], "density on draws as off does")
    check(auto[3] == (off[3] if software else on[3]), "density auto at 60,000 boids")
    print(f"ok: background from the config, trails {trail} vs {plain} lit pixels, density")


def test_render_draws_obstacles_and_points(tmp):
    """The config file's circle, segment and predator drawn where the world has them: a
    400 x 200 world in a 400 x 200 frame is one pixel a length unit, y down."""
    cfg = os.path.join(tmp, "room.ini")
    room = ("width = 400\nheight = 200\nboundary = walls\nview.background = #000000\n"
            "obstacle = circle 100 100 40\nobstacle = segment 220 40 380 160\n"
            "predator.4 = 300 60 20 1\n")
    with open(cfg, "w") as f:
        f.write(room)
    args = ["render", "-n", "1", "--size", "400x200", "--frames", "1", "--config", cfg, "-o"]
    r = run(args + [os.path.join(tmp, "room-%d.png")])
    check(r.returncode == 0, f"exit {r.returncode}", r)
    w, h, ch, rows = png.read(os.path.join(tmp, "room-0.png"))
    px = lambda x, y: tuple(rows[int(y)][int(x) * ch:int(x) * ch + 3])
    # 0xc8ccd8 at alpha 0xe0 over black; within 24 a channel: the 8-bit blend and the
    # multisampled edge of a 3-pixel line sampled at its middle.
    grey = tuple(round(c * 0xe0 / 255) for c in (0xc8, 0xcc, 0xd8))
    near = lambda c: all(abs(a - b) <= 24 for a, b in zip(c, grey))
    ring = [(100 + 40 * math.cos(k * math.pi / 4), 100 + 40 * math.sin(k * math.pi / 4))
            for k in range(8)]
    wall = [(220 + 160 * t / 9, 40 + 120 * t / 9) for t in range(1, 9)]
    # One boid may cover one sample: 7 of 8 in each set.
    for name, pts in (("circle", ring), ("segment", wall)):
        hits = sum(near(px(x, y)) for x, y in pts)
        check(hits >= 7, f"the {name} in the obstacle colour at {hits} of 8 points: "
              f"{[px(x, y) for x, y in pts]}")
    check(px(100, 100) == (0, 0, 0) and px(300, 130) == (0, 0, 0),
          f"inside the circle and beside the segment: background, {px(100, 100)} {px(300, 130)}")
    r, g, b = px(300, 60)
    check(r > 150 and g < 110 and b < 110, f"the predator's red dot at (300, 60): {(r, g, b)}")
    # The same frame without those lines: none of it.
    with open(cfg, "w") as f:
        f.write("width = 400\nheight = 200\nview.background = #000000\n")
    r = run(args + [os.path.join(tmp, "empty-%d.png")])
    check(r.returncode == 0, f"exit {r.returncode}", r)
    w, h, ch, rows = png.read(os.path.join(tmp, "empty-0.png"))
    hits = sum(near(px(x, y)) for x, y in ring + wall)
    check(hits <= 1, f"{hits} obstacle-coloured samples without obstacles")
    print("ok: the circle, the segment and the predator are drawn where they are")


def test_render_colours_each_species(tmp):
    """Species (docs/model.md, "Species"): each boid in its species' colour (palette.glsl),
    whatever the colour mode, from the id of its slot: with two kinds of 150 boids, both
    colours show and the plain colour, which the mode asks for, does not; on cpu (state in
    id order) and gpu (in cell order) alike."""
    cfg = os.path.join(tmp, "kinds.ini")
    with open(cfg, "w") as f:
        f.write("species = 2\nspecies_count.1 = 150\nview.background = #000000\n"
                "view.colour = plain\nview.plain = #ffffff\n")
    # Species 0 (0.55, 0.75, 1) and 1 (1, 0.3, 0.2) in 8 bits; within 40 a channel: a dart's
    # multisampled edges blend it with the background.
    kinds = [(140, 191, 255), (255, 77, 51), (255, 255, 255)]
    counts = {}
    for backend in ("cpu", "gpu"):
        r = run(["render", "-n", "300", "--backend", backend, "--size", "320x200", "--frames",
                 "1", "--config", cfg, "-o", os.path.join(tmp, f"kinds-{backend}-%d.png")])
        check(r.returncode == 0, f"{backend}: exit {r.returncode}", r)
        w, h, ch, rows = png.read(os.path.join(tmp, f"kinds-{backend}-0.png"))
        count = [0, 0, 0]
        for y in range(h):
            row = rows[y]
            for x in range(w):
                c = tuple(row[x * ch:x * ch + 3])
                for k, want in enumerate(kinds):
                    if all(abs(a - b) <= 40 for a, b in zip(c, want)):
                        count[k] += 1
        check(count[0] > 50 and count[1] > 50 and count[2] == 0,
              f"{backend}: pixels of species 0, species 1 and the plain colour: {count}")
        counts[backend] = count
    print(f"ok: each species in its colour, none plain: {counts}")


def test_render_writes_pngs_with_boids(tmp):
    n = 300
    pat = os.path.join(tmp, "f-%03d.png")
    r = run(["render", "-n", str(n), "--size", "320x200", "--frames", "3", "--hud", "-vv",
             "-o", pat])
    check(r.returncode == 0, f"exit code {r.returncode}", r)
    check("GL debug: 0 errors" in r.stderr, "GL errors offscreen", r)
    for i in range(3):
        w, h, ch, rows = png.read(pat % i)
        check((w, h) == (320, 200), f"frame {i}: size {w}x{h}")
        lit = png.count_not_background(w, h, ch, rows)
        check(n <= lit <= 80 * n, f"frame {i}: {lit} non-background pixels for {n} boids")
    check(not [f for f in os.listdir(tmp) if f.endswith(".tmp")], "temporary files left")
    print("ok: 3 frames with boids")


def test_render_same_seed_same_frames_and_raw_rgba(tmp):
    a, b = os.path.join(tmp, "a-%d.png"), os.path.join(tmp, "b-%d.png")
    args = ["render", "-n", "500", "--seed", "11", "--size", "200x120", "--frames", "2",
            "--steps-per-frame", "5"]
    for pat in (a, b):
        r = run(args + ["-o", pat])
        check(r.returncode == 0, f"exit code {r.returncode}", r)
    for i in range(2):
        with open(a % i, "rb") as fa, open(b % i, "rb") as fb:
            check(fa.read() == fb.read(), f"frame {i} differs between two runs of one seed")
    r = subprocess.run([BOIDS] + args + ["-o", "-"], capture_output=True, timeout=240)
    check(r.returncode == 0, f"raw: exit {r.returncode}: {r.stderr[-500:]}")
    check(len(r.stdout) == 2 * 200 * 120 * 4, f"raw: {len(r.stdout)} bytes")
    # The raw frame is the PNG's pixels.
    w, h, ch, rows = png.read(a % 1)
    check(r.stdout[200 * 120 * 4:] == b"".join(rows), "raw frame 1 differs from the PNG")
    r = run(["render", "-o", "frame.png"])
    check(r.returncode == 2 and "%d" in r.stderr, "pattern without %d not refused", r)
    print("ok: identical frames for one seed; raw RGBA matches the PNGs")


def test_no_display_says_so_exit_2(tmp):
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    for args in ([], ["view", "-n", "10"]):
        r = run(args, env=env)
        check(r.returncode == 2, f"boids {' '.join(args)}: exit {r.returncode}", r)
        check("boids render" in r.stderr and "boids sim" in r.stderr,
              "message does not point to boids render and boids sim", r)
    print("ok: exit 2 naming boids render and boids sim")


def overlay_pixels(path, border=8):
    """Pixels of the overlays' colours in a frame of green boids: red (the points' reach
    circles and dots, the pointer's circle: 0xff5a4a blended) and grey (obstacles, edges,
    margins: R, G and B alike and bright); grey is also counted in a band of `border`
    pixels along the frame's sides, where the world's edges are drawn. Green boids and their
    antialiased edges (blends of 0x00ff00 with the dark background) are neither."""
    w, h, ch, rows = png.read(path)
    red = grey = edge = 0
    for y, row in enumerate(rows):
        for x in range(w):
            r, g, b = row[x * ch:x * ch + 3]
            if r > 120 and g < r - 60:
                red += 1
            elif r > 60 and abs(r - g) < 24 and abs(g - b) < 32:
                grey += 1
                edge += x < border or y < border or x >= w - border or y >= h - border
    return red, grey, edge


def test_view_clean_hides_every_overlay(tmp):
    need_xvfb()
    # Walls (their edges and dashed margins), predator 0 (reach circle and dot), a circle
    # obstacle in the middle and the pointer held as a predator (its circle); green boids.
    cfg = os.path.join(tmp, "look.ini")
    with open(cfg, "w") as f:
        f.write("boundary = walls\npredator.0 = 200 150 120 3\nobstacle = circle 450 280 40\n"
                "view.colour = plain\nview.plain = #00ff00\n")
    base = ["view", "--config", cfg, "-n", "300", "--size", "640x400", "--frames", "3",
            "--steps-per-frame", "1", "--no-hud", "--no-panel", "--press", "600,400"]
    counts = {}
    for name, extra in (("shown", []), ("clean", ["--clean"]), ("clean-all", ["--clean-all"])):
        shot = os.path.join(tmp, f"{name}.png")
        r = run(base + extra + ["--screenshot", shot], xvfb=True)
        check(r.returncode == 0, f"{name}: exit {r.returncode}", r)
        counts[name] = overlay_pixels(shot)
    print("red, grey, grey at the edges:", counts)
    red, grey, edge = counts["shown"]
    # A reach circle of radius 120 world units is hundreds of dashed pixels; the walls'
    # edges run around the whole frame.
    check(red > 200 and edge > 500, f"the overlays are not drawn without --clean: {counts}")
    red, grey, edge = counts["clean"]
    check(red == 0 and edge == 0, f"--clean leaves reach circles, pointer or edges: {counts}")
    check(grey > 100, f"--clean hides the obstacle (only --clean-all should): {counts}")
    check(counts["clean-all"][:2] == (0, 0), f"--clean-all leaves overlays: {counts}")
    # The look file's key is the same switch, and the key x turns it off again.
    with open(cfg, "a") as f:
        f.write("view.clean = all\n")
    shot = os.path.join(tmp, "key.png")
    r = run(base + ["--screenshot", shot], xvfb=True)
    check(r.returncode == 0 and overlay_pixels(shot)[:2] == (0, 0), "view.clean = all", r)
    r = run(base + ["--keys", "1:x", "--screenshot", shot], xvfb=True)
    check(r.returncode == 0 and overlay_pixels(shot)[0] > 200, "x does not turn it off", r)
    # `boids render` reads the same look key.
    r = run(["render", "--config", cfg, "-n", "300", "--size", "640x400", "--frames", "1",
             "-o", os.path.join(tmp, "render-%d.png")])
    check(r.returncode == 0 and overlay_pixels(os.path.join(tmp, "render-0.png"))[:2] == (0, 0),
          "render with view.clean = all draws overlays", r)
    with open(cfg, "a") as f:
        f.write("view.clean = most\n")
    r = run(base, xvfb=True)
    check(r.returncode == 2 and "view.clean" in r.stderr and "off, on or all" in r.stderr,
          "a bad view.clean is not refused naming the key", r)
    print("ok: --clean, --clean-all, view.clean and x hide and show the overlays")


def test_view_hud_has_no_box_over_the_flock(tmp):
    need_xvfb()
    # The HUD's lines are text (with a shadow), not a translucent box: the green boids in the
    # region it takes (the top left 300 x 280 pixels at text scale 2) are as bright as the
    # others. The old box (alpha 0xb0) left them at a third of their light.
    ratio, inside, outside, r = green_under_hud(tmp, 1500, 3, (300, 280))
    check(inside > 50 and outside > 50, f"{inside}, {outside} boid pixels")
    # Core pixels as dense under the HUD as elsewhere, within the flock's unevenness (1,500
    # random boids: a few per cent) and the letters and shadows that cover some (about 15%).
    check(ratio > 0.6, f"boids under the HUD are dimmed: {ratio:.2f} of the density elsewhere")
    print(f"ok: bright boid pixels under the HUD at {ratio:.2f} of their density elsewhere")


def ffprobe_frames(path):
    r = subprocess.run(["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0",
                        "-show_entries", "stream=nb_read_frames,width,height", "-of", "csv=p=0",
                        path], capture_output=True, text=True, timeout=120)
    return [int(v) for v in r.stdout.strip().split(",")] if r.returncode == 0 else None


def test_view_records_its_frames_to_a_video(tmp):
    need_xvfb()
    if not shutil.which("ffmpeg") or not shutil.which("ffprobe"):
        harness.skip("ffmpeg or ffprobe not found (Debian package ffmpeg)")
    video = os.path.join(tmp, "flock.mp4")
    r = run(["view", "-n", "400", "--size", "320x200", "--frames", "30", "--steps-per-frame",
             "1", "--no-hud", "--no-panel", "--record-every-frame", "--record", video],
            xvfb=True)
    check(r.returncode == 0, f"--record: exit {r.returncode}", r)
    got = ffprobe_frames(video)
    check(got == [320, 200, 30], f"--record: ffprobe says {got} (width, height, frames)", r)
    # ... and says how many times as fast as life 30 frames at 30 a second (1 s) play: the
    # video's length over the wall time said, both printed to 0.01 (half a unit of the
    # factor, and the wall time's half unit through 1 / wall).
    said = [x for x in r.stderr.splitlines() if "times as fast as life" in x]
    check(len(said) == 1, "--record-every-frame does not say the factor", r)
    words = said[0].split()
    wall, factor = float(words[words.index("drawn") + 2]), float(words[words.index("times") - 1])
    check(wall > 0 and abs(factor - 1 / wall) <= 0.005 + 0.005 / wall**2 + 1e-9,
          f"factor {factor} for 1 s of video drawn in {wall} s", r)
    check(not [f for f in os.listdir(tmp) if ".tmp" in f], "temporary files left", r)
    # Its frames are the viewer's: a frame read back shows boids.
    frame = os.path.join(tmp, "frame.png")
    subprocess.run(["ffmpeg", "-v", "error", "-i", video, "-frames:v", "1", frame], check=True,
                   timeout=120)
    w, h, ch, rows = png.read(frame)
    lit = png.count_not_background(w, h, ch, rows)
    check((w, h) == (320, 200) and lit > 400, f"frame 1: {w}x{h}, {lit} lit pixels")
    # F9 starts and stops a recording into --screenshot-dir; an odd window is cropped even.
    r = run(["view", "-n", "100", "--size", "321x201", "--frames", "30", "--steps-per-frame",
             "1", "--screenshot-dir", tmp, "--record-every-frame", "--keys", "5:{f9},25:{f9}"],
            xvfb=True)
    made = [f for f in os.listdir(tmp) if f.startswith("boids-") and f.endswith(".mp4")]
    check(r.returncode == 0 and len(made) == 1 and "recorded 20 frames" in r.stderr,
          f"F9: {made}", r)
    got = ffprobe_frames(os.path.join(tmp, made[0]))
    check(got == [320, 200, 20], f"F9: ffprobe says {got}", r)
    # A bad target is refused before the window opens.
    r = run(["view", "--frames", "2", "--record", tmp], xvfb=True)
    check(r.returncode == 2 and tmp in r.stderr, "--record onto a folder not refused", r)
    # Without ffmpeg on PATH: exit 2 before any window, nothing written.
    empty = os.path.join(tmp, "empty")
    os.mkdir(empty)
    r = run(["view", "--frames", "2", "--record", os.path.join(tmp, "none.mp4")],
            env={**os.environ, "PATH": empty})
    check(r.returncode == 2 and "ffmpeg" in r.stderr and len(r.stderr.strip().splitlines()) == 1
          and not os.path.exists(os.path.join(tmp, "none.mp4")), "no ffmpeg: not refused", r)
    print("ok: --record writes 30 frames, F9 20, a bad target exit 2")


def test_view_caps_the_steps_each_frame(tmp):
    need_xvfb()
    # At 7680 steps a second a 60 Hz frame owes about 128 steps: a frame takes at most 4
    # (VIEW_MAX_STEPS), the rest is dropped rather than owed.
    # Without vsync (Xvfb) a frame of a small flock can take under half a millisecond and
    # owe fewer than 4 steps even at the highest rate: 2,000 boids make it owe more, and
    # the cap must then be reached, never passed.
    r = run(["view", "-n", "2000", "--size", "320x200", "--frames", "40", "--rate", "7680",
             "--no-hud", "--no-panel", "--stats"], xvfb=True)
    check(r.returncode == 0, f"exit {r.returncode}", r)
    s = stats(r)
    check(s["max_steps_per_frame"] <= 4 and s["steps"] <= 4 * s["frames"], f"stats {s}", r)
    if s["frame_p50_ms"] * 7.68 >= 8:  # the median frame owes at least twice the cap
        check(s["max_steps_per_frame"] == 4, f"the cap was never reached: {s}", r)
    # murmuration at 20,000 boids: frames longer than 25 ms (llvmpipe on 2 cores draws and
    # steps it in 40 to 70 ms) do not earn a second step, so the flock slows down and the
    # frames stay as long as one step's.
    r = run(["view", "--preset", "murmuration", "-n", "20000", "--size", "320x200",
             "--frames", "20", "--rate", "7680", "--no-hud", "--no-panel", "--stats"], xvfb=True)
    check(r.returncode == 0, f"murmuration: exit {r.returncode}", r)
    s = stats(r)
    if s["frame_p50_ms"] > 25:
        # Real time at 7680 steps a second owes p50 * 7.68 steps a frame (over 190 here);
        # the cap runs about one. A frame that happens to take under 25 ms earns the next
        # one a second step, so the check is on the average: at most 2 a frame.
        owed = s["frame_p50_ms"] * 7.68
        check(s["steps"] <= 2 * s["frames"],
              f"slow frames ran {s['steps'] / s['frames']:.1f} steps each ({owed:.0f} owed): {s}",
              r)
    print(f"ok: at most 4 steps a frame; murmuration 20k: p50 {s['frame_p50_ms']} ms, "
          f"max {s['max_steps_per_frame']:.0f} step(s) a frame")


def test_view_murmuration_in_every_preset_list(tmp):
    need_xvfb()
    r = run(["view", "--preset", "nope"])
    check(r.returncode == 2 and "murmuration" in r.stderr, "the unknown-preset message", r)
    r = run(["view", "--help"])
    # The option's text, with the lines --help wraps it onto (they start at the text column).
    lines = r.stdout.splitlines()
    at = next(i for i, l in enumerate(lines) if l.lstrip().startswith("--preset"))
    text = lines[at] + "".join(l for l in lines[at + 1:at + 3] if l.startswith(" " * 21))
    check("murmuration" in text, f"--help: {text}", r)
    r = run(["presets"])
    check("murmuration" in r.stdout, "boids presets", r)
    # F8 applies it (keeping N and the plane): topological, 7 neighbours.
    r = run(["view", "-n", "300", "--size", "640x400", "--frames", "4", "--keys", "1:{f8}",
             "--stats"], xvfb=True)
    check(r.returncode == 0 and "preset murmuration" in r.stderr, "F8", r)
    print("ok: murmuration in the message, --help, presets and F8")


if __name__ == "__main__":
    view_harness.main(globals())
