# SPDX-License-Identifier: MIT
"""The viewer's first impression (src/app/viewer), under Xvfb:

view_warmup_opens_on_a_flock_camera_frames_it
    `--warmup K` takes K steps before the first frame (a replay refuses it); in 3-D
    `--follow-flock` (key Z) orbits the flock's centre and frames the flock, not the box: its
    boids spread over more of the picture, around the picture's centre.
view_panel_fits_1280x800_its_groups_fold
    In a 1280 x 800 window the panel fits (its SPEED group starts folded): the wheel over it
    scrolls nothing, so a preset button is where the layout puts it; a click on a group's
    heading unfolds it and its slider works.
view_pointer_waits_for_a_person_hud_backed_over_dense_flock
    A window opened under the pointer shows no pointer circle (and its hover predator does
    not act) until the pointer moves or a button is pressed; over 100,000 boids the HUD has
    a dark panel behind it, while over a sparse flock it stays bare text (view_test.py's
    view_hud_has_no_box_over_the_flock).

Run as first_test.py BOIDS TEST."""
import os

import view_harness
from view_harness import check, green_under_hud, need_xvfb, run, stats
import png


def dark_spread(path):
    """(count, centroid x, y, rms distance from it) of the pixels darker than the pale sky
    (murmuration's birds; --clean leaves out the box and the points' circles)."""
    w, h, ch, rows = png.read(path)
    pts = [(x, y) for y, r in enumerate(rows) for x in range(w) if r[x * ch + 1] < 120]
    n = len(pts)
    if not n:
        return 0, 0, 0, 0
    cx = sum(p[0] for p in pts) / n
    cy = sum(p[1] for p in pts) / n
    rms = (sum((p[0] - cx) ** 2 + (p[1] - cy) ** 2 for p in pts) / n) ** 0.5
    return n, cx, cy, rms


def test_view_warmup_opens_on_a_flock_camera_frames_it(tmp):
    need_xvfb()
    # --warmup 300, then 5 frames of one step each: step 305 at exit.
    r = run(["view", "-n", "300", "--size", "320x200", "--frames", "5", "--steps-per-frame",
             "1", "--warmup", "300", "--no-hud", "--no-panel", "--stats"], xvfb=True)
    check(r.returncode == 0 and stats(r)["steps"] == 305, "--warmup 300: not 305 steps", r)
    traj = os.path.join(tmp, "t.npy")
    r = run(["sim", "-n", "50", "--steps", "10", "--every", "5", "--trajectory", traj])
    check(r.returncode == 0, "sim --trajectory", r)
    r = run(["view", "--replay", traj, "--warmup", "10", "--frames", "2"], xvfb=True)
    check(r.returncode == 2 and "--warmup" in r.stderr, "a replay takes --warmup", r)
    # The murmuration gathered (600 steps), seen from the start view and by the camera that
    # follows the flock (given 10 frames to settle on it).
    got = {}
    for follow in ([], ["--follow-flock"]):
        shot = os.path.join(tmp, f"m{len(follow)}.png")
        r = run(["view", "--preset", "murmuration", "-n", "2000", "--warmup", "600", "--size",
                 "640x400", "--frames", "10", "--no-hud", "--no-panel", "--clean",
                 "--screenshot", shot] + follow, xvfb=True)
        check(r.returncode == 0, f"murmuration {follow}: exit {r.returncode}", r)
        got[len(follow)] = dark_spread(shot)
    (n0, _, _, s0), (n1, x1, y1, s1) = got[0], got[1]
    check(n0 > 100 and n1 > 100, f"no birds drawn: {got}")
    # Framed, the flock fills the view: its pixels spread at least 1.3 times as far as in
    # the view of the whole box (the box is some 1.5 to 3 times the gathered flock's size).
    check(s1 >= 1.3 * s0, f"the flock is not framed: rms spread {s1:.0f} px against {s0:.0f}")
    # ... about the middle of the picture (the flock is lopsided: a fifth of the width).
    check(abs(x1 - 320) < 128 and abs(y1 - 200) < 80,
          f"the framed flock's centre is at {x1:.0f}, {y1:.0f}")
    print(f"ok: --warmup 300 steps; murmuration framed: spread {s1:.0f} px against {s0:.0f} "
          f"for the box, centred at {x1:.0f}, {y1:.0f}")


def test_view_panel_fits_1280x800_its_groups_fold(tmp):
    need_xvfb()
    # The layout of view_panel.c at text scale 2 (the panel 300 pixels wide at x 980): the
    # presets' second row (lab, classic, vicsek) at y 56 to 78, vicsek from x 1180; SPEED's
    # heading at y 388 to 408, and once unfolded its max speed slider's track at y 426 to
    # 436. The unfolded panel is 878 pixels tall: scrolled by the wheel, the click at y 67
    # would land on the RULES heading instead.
    base = ["view", "--size", "1280x800", "--frames", "6", "--steps-per-frame", "1",
            "--stats", "--keys"]
    r = run(base + ["2:{wheel:1100,400,-40},4:{click:1226,67}"], xvfb=True)
    check(r.returncode == 0 and stats(r)["fb_h"] == 800, f"exit {r.returncode}", r)
    check(stats(r)["model"] == 1, "the panel scrolled: it does not fit 1280 x 800", r)
    # SPEED folded: its slider's place holds FLOCK's heading; unfolded, the slider moves
    # max speed (lab's is 180).
    r = run(base + ["2:{click:1130,431}"], xvfb=True)
    check(r.returncode == 0 and stats(r)["max_speed"] == 180 and stats(r)["n"] == 1500,
          "a click where the folded SPEED's slider would be changed something", r)
    r = run(base + ["2:{click:1100,398},4:{click:1130,431}"], xvfb=True)
    check(r.returncode == 0 and stats(r)["max_speed"] != 180,
          "SPEED's heading did not unfold its slider", r)
    print("ok: the panel fits 1280 x 800 with SPEED folded; its heading unfolds it")


def red_pixels(path):
    w, h, ch, rows = png.read(path)
    return sum(1 for r in rows for x in range(w)
               if r[x * ch] > r[x * ch + 1] + 60 and r[x * ch] > r[x * ch + 2] + 60)


def test_view_pointer_waits_for_a_person_hud_backed_over_dense_flock(tmp):
    need_xvfb()
    # Xvfb's pointer starts at the screen's centre, inside a 640 x 400 window at its top
    # left: the hover predator's circle (red, 0xff5a4a) is drawn only once it moves. Plain
    # boids have no red.
    base = ["view", "-n", "200", "--size", "640x400", "--frames", "5", "--no-hud",
            "--no-panel", "--pointer", "hover", "--colour", "plain", "--screenshot"]
    still = os.path.join(tmp, "still.png")
    r = run(base + [still], xvfb=True)
    check(r.returncode == 0 and red_pixels(still) == 0, "a pointer circle before any move", r)
    moved = os.path.join(tmp, "moved.png")
    r = run(base + [moved, "--keys", "2:{click:320,200}"], xvfb=True)
    check(r.returncode == 0 and red_pixels(moved) > 100, "no pointer circle after a click", r)
    # 100,000 plain green boids in 640 x 400: the HUD's region (top left, 300 x 250 pixels
    # at text scale 2) keeps few bright boid pixels under its panel, against the density
    # elsewhere; the panel's alpha 0xd0 leaves a boid's green at under 60.
    ratio, inside, outside, r = green_under_hud(tmp, 100000, 2, (300, 250))
    # Under the panel only the letters are bright, and they are white, not green.
    check(outside > 1000 and ratio < 0.1, f"the HUD is not backed: {ratio:.2f} of the density")
    print(f"ok: no pointer circle before a move, one after; bright boids under the HUD at "
          f"{ratio:.3f} of their density elsewhere over 100,000 boids")


view_harness.main(globals())
