# SPDX-License-Identifier: MIT
"""Replays of a recorded trajectory (`boids view --replay`, `boids render --replay`).

Usage: replay_test.py BOIDS TEST (what the drivers share: view_harness.py). A small
trajectory (200 boids, 40 steps, a frame every 5 steps: 9 frames) is recorded with `boids
sim`, rendered offline, and played in the window under Xvfb; exit 77 means skipped (no
xvfb-run).

Comparing a window's screenshot with `boids render`'s frame: the same renderer (llvmpipe)
draws the same boids, but the window fits the world 4 pixels inside its edges (view_camera.c)
and does not multisample on a software renderer, while `render` fits it to the frame's
edges with 4 samples a pixel. So the window is 8 pixels wider and taller than the rendered
frame and cut 4 pixels in on each side, which puts the world on the same pixels; the clean
view leaves out the world's edges that only the window draws; boids 20 units long are above
both commands' smallest drawn length. What remains is antialiasing: an edge pixel lit in one
picture and not the other, always next to a pixel lit in both. So a lit pixel (40 levels
from the background) "matches" when the other picture has a lit pixel within one pixel; at
most 1% of the lit pixels may fail that (measured: 9 of about 4,400 on the 2-core Xeon VM),
while the neighbouring frames, whose boids moved 5 steps, fail it for more than 10%."""
import json
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from view_harness import check, harness, lit_pixels, need_xvfb, png, run, stats  # noqa: E402
import view_harness  # noqa: E402

N, STEPS, EVERY = 200, 40, 5
FRAMES = STEPS // EVERY + 1
W, H, M = 320, 200, 4  # the rendered frame, and the window's margin on each side
LOOK = ["--boid-size", "20"]


def record(tmp, name="t.npy", extra=(), n=N):
    path = os.path.join(tmp, name)
    r = run(["sim", "-n", str(n), "--steps", str(STEPS), "--every", str(EVERY), "--trajectory",
             path, *extra])
    check(r.returncode == 0, f"sim --trajectory: exit {r.returncode}", r)
    return path


def lit_set(path, crop=0):
    """The lit pixels of a picture (cut crop pixels in on each side) as a set of (x, y)."""
    w, h, ch, rows = png.read(path)
    bg = rows[h - 1][0:3] if crop == 0 else rows[h - 1 - crop][crop * ch:crop * ch + 3]
    out = set()
    for y in range(crop, h - crop):
        r = rows[y]
        for x in range(crop, w - crop):
            i = x * ch
            if max(abs(r[i + c] - bg[c]) for c in range(3)) > 40:
                out.add((x - crop, y - crop))
    return out


def unmatched(a, b):
    """The fraction of the lit pixels of a and b with no lit pixel within one pixel in the
    other."""
    def miss(p, q):
        return sum(1 for (x, y) in p
                   if not any((x + dx, y + dy) in q for dx in (-1, 0, 1) for dy in (-1, 0, 1)))
    return (miss(a, b) + miss(b, a)) / max(1, len(a) + len(b))


def view(traj, shot, args):
    r = run(["view", "--replay", traj, "--size", f"{W + 2 * M}x{H + 2 * M}", "--no-hud",
             "--no-panel", "--clean", "--steps-per-frame", "1", "--screenshot", shot, "--stats",
             *LOOK, *args], xvfb=True)
    check(r.returncode == 0, f"view --replay {' '.join(args)}: exit {r.returncode}", r)
    return stats(r)


def test_view_replay_window_shows_the_recorded_frames_forwards_and_back(tmp):
    need_xvfb()
    series = os.path.join(tmp, "t.csv")
    traj = record(tmp, extra=["--series", series])
    pattern = os.path.join(tmp, "f%02d.png")
    r = run(["render", "--replay", traj, "-o", pattern, "--size", f"{W}x{H}", *LOOK])
    check(r.returncode == 0, f"render --replay: exit {r.returncode}", r)
    written = sorted(f for f in os.listdir(tmp) if f.startswith("f"))
    check(written == [f"f{k:02d}.png" for k in range(FRAMES)], f"frames written: {written}")
    render = [lit_set(pattern % k) for k in range(FRAMES)]
    # --steps-per-frame 1: each window frame shows the next recorded one, from frame 0.
    cases = [("forwards, the HUD's order from the run's series", ["--series", series], 4, 0),
             # `/` before the first frame plays backwards from --from 6: 5, then 4
             ("backwards", ["--from", "6", "--frames", "2", "--keys", "0:/"], 4, 0),
             # `,` one frame back and paused there
             ("frame back", ["--from", "6", "--frames", "3", "--keys", "0:,"], 5, 1),
             # `l`: stop at the last frame instead of looping to the first
             ("stop at the end", ["--from", "7", "--frames", "3", "--keys", "0:l"], 8, 1)]
    for what, args, k, paused in cases:
        shot = os.path.join(tmp, f"view-{what}.png")
        if "--frames" not in args:
            args = args + ["--frames", str(k)]
        s = view(traj, shot, args)
        check(s["steps"] == k * EVERY and s["paused"] == paused and s["n"] == N,
              f"{what}: the window shows step {s['steps']} (paused {s['paused']}), expected "
              f"frame {k}'s step {k * EVERY} (paused {paused})")
        shown = lit_set(shot, M)
        same = unmatched(shown, render[k])
        check(same <= 0.01, f"{what}: {same:.3f} of the lit pixels differ from frame {k}'s render")
        for j in (k - 1, k + 1):
            if 0 <= j < FRAMES:
                other = unmatched(shown, render[j])
                check(other > 0.10, f"{what}: frame {j}'s render differs only {other:.3f}")
        print(f"ok: {what}: frame {k} ({same:.4f} of the lit pixels unmatched)")


def test_view_replay_box_renders_the_flock_and_moves(tmp):
    traj = record(tmp, "m.npy", ["--preset", "murmuration", "--backend", "cpu"], 300)
    pattern = os.path.join(tmp, "m%02d.png")
    r = run(["render", "--replay", traj, "-o", pattern, "--size", "240x160", "--from", "6"])
    check(r.returncode == 0, f"render --replay in 3-D: exit {r.returncode}", r)
    shots = [pattern % k for k in range(FRAMES - 6)]
    check(all(os.path.exists(p) for p in shots) and not os.path.exists(pattern % len(shots)),
          "render --replay --from 6 wrote the frames 6 to 8, three files")
    lit = [lit_pixels(p) for p in shots]
    # 300 birds some pixels each: far more than nothing, far less than the frame
    check(all(300 <= n <= 240 * 160 // 2 for n in lit), f"lit pixels {lit}")
    moved = unmatched(lit_set(shots[0]), lit_set(shots[2]))
    check(moved > 0.05, f"frames 6 and 8 differ in only {moved:.3f} of their lit pixels")
    if harness.shutil.which("xvfb-run"):
        r = run(["view", "--replay", traj, "--size", "320x200", "--frames", "3", "-vv",
                 "--keys", "1:f,2:/"], xvfb=True)
        check(r.returncode == 0 and "GL debug: 0 errors" in r.stderr,
              f"view --replay in 3-D with the HUD, panel and follow: exit {r.returncode}", r)
    print(f"ok: 3-D replay frames with {lit} lit pixels, moving ({moved:.3f})")


def grey_pixels(path):
    """The obstacles' outline colour (RENDER_OBSTACLE_RGBA, 0xc8ccd8) within 24 levels: no boid
    of the heading palette and not the background."""
    w, h, ch, rows = png.read(path)
    return sum(1 for r in rows for x in range(w)
               if all(abs(r[x * ch + c] - v) <= 24 for c, v in enumerate((0xc8, 0xcc, 0xd8))))


def test_replay_draws_the_recorded_runs_obstacles_and_points(tmp):
    ini = os.path.join(tmp, "o.ini")
    with open(ini, "w") as f:
        f.write("obstacle = circle 450 280 40\nobstacle = segment 100 500 400 500\n"
                "predator.1 = 200 200 120 3\n")
    traj = record(tmp, extra=["--config", ini])
    drawn = {}
    for what in ("recorded", "removed"):
        if what == "removed":
            with open(traj + ".json") as f:
                side = json.load(f)
            side["interaction"] = {"predators": [], "attractors": [], "obstacles": []}
            with open(traj + ".json", "w") as f:
                json.dump(side, f)
        shot = os.path.join(tmp, f"{what}%d.png")
        r = run(["render", "--replay", traj, "-o", shot, "--size", "320x200", "--frames", "1",
                 "--colour", "plain"])
        check(r.returncode == 0, f"render --replay, interaction {what}: exit {r.returncode}", r)
        drawn[what] = (grey_pixels(shot % 0), view_harness.colour_pixels(shot % 0)[1])
    # the circle and the segment: hundreds of outline pixels; the predator's dashed circle red
    grey, red = drawn["recorded"]
    check(grey >= 100 and red >= 50, f"the recorded obstacles and predator: {drawn}")
    check(drawn["removed"] == (0, 0), f"without the sidecar's interaction: {drawn}")
    print(f"ok: the recorded run's obstacles and predator drawn ({drawn})")


def npy(path, shape, descr="<f4", data=b""):
    """A .npy file of the given header and data bytes (no numpy needed)."""
    head = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (
        descr, ", ".join(map(str, shape)))
    head += " " * (63 - (10 + len(head)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(head)) + head.encode() + data)


def test_replay_bad_input_exit_2_naming_what(tmp):
    traj = record(tmp)
    with open(traj + ".json") as f:
        side = json.load(f)
    bad = os.path.join(tmp, "bad.npy")

    def refused(name, args, words, setup=None):
        if setup:
            setup()
        for cmd in (["render", "-o", os.path.join(tmp, "x%d.png")], ["view"]):
            r = run(cmd + args)
            harness.one_message(f"{cmd[0]}: {name}", r, words)
        for left in os.listdir(tmp):
            check(not left.startswith("x"), f"{name}: {left} left behind")

    def sidecar(change):
        def write():
            d = json.loads(json.dumps(side))
            change(d)
            with open(bad + ".json", "w") as f:
                json.dump(d, f)
        return write

    frame = N * 4 * 4
    refused("missing file", ["--replay", os.path.join(tmp, "none.npy")], ["none.npy"])
    with open(os.path.join(tmp, "text.npy"), "w") as f:
        f.write("x,y,vx,vy\n")
    refused("not .npy", ["--replay", os.path.join(tmp, "text.npy")], ["text.npy", "not a .npy"])
    refused("a state's shape", ["--replay", bad], ["bad.npy", "not a trajectory"],
            lambda: npy(bad, (N, 4), data=b"\0" * frame))
    refused("an integer dtype", ["--replay", bad], ["bad.npy", "<i4"],
            lambda: npy(bad, (1, N, 4), "<i4", b"\0" * frame))
    refused("zero frames", ["--replay", bad], ["bad.npy", "no frame"], lambda: npy(bad, (0, N, 4)))
    refused("cut short", ["--replay", bad], ["bad.npy", "bytes of data"],
            lambda: npy(bad, (2, N, 4), data=b"\0" * frame))
    with open(traj, "rb") as f:
        data = f.read()

    def copy():
        with open(bad, "wb") as f:
            f.write(data)
    copy()
    refused("sidecar N", ["--replay", bad], ["bad.npy.json", "boids"],
            sidecar(lambda d: d["parameters"]["values"].update(count=N + 1)))
    refused("sidecar dim", ["--replay", bad], ["bad.npy.json", "3-D"],
            sidecar(lambda d: d["parameters"]["values"].update(dim=3, depth=500)))
    refused("sidecar shape", ["--replay", bad], ["bad.npy.json", "shape"],
            sidecar(lambda d: d["output"].update(shape=[FRAMES + 1, N, 4])))
    refused("sidecar obstacle", ["--replay", bad], ["bad.npy.json", "interaction", "obstacle"],
            sidecar(lambda d: d["interaction"]["obstacles"].append({"kind": "blob"})))
    os.unlink(bad + ".json")
    refused("no sidecar, no parameters", ["--replay", bad], ["bad.npy.json", "--preset"])
    refused("no sidecar, other N", ["--replay", bad, "-n", "100"], ["-n 100", "200 boids"])
    refused("no sidecar, other dim", ["--replay", bad, "--preset", "murmuration"],
            ["bad.npy", "3-D"])
    refused("parameters beside the sidecar", ["--replay", traj, "--set", "noise=1"],
            ["--set", "t.npy.json"])
    refused("--backend", ["--replay", traj, "--backend", "cpu"], ["--backend", "no simulation"])
    refused("--load", ["--replay", traj, "--load", traj], ["--load", "--replay"])
    r = run(["view", "--replay", traj, "--attract", "5"])  # view's option alone
    harness.one_message("view: --attract", r, ["--attract", "no simulation"])
    refused("--from past the end", ["--replay", traj, "--from", str(FRAMES)],
            [f"--from {FRAMES}", "t.npy"])
    refused("--from without --replay", ["--from", "1"], ["--from", "--replay"])
    r = run(["render", "--replay", traj, "--steps-per-frame", "2"])
    harness.one_message("render --steps-per-frame", r, ["--steps-per-frame", "no simulation"])
    r = run(["render", "--replay", traj, "--frames", str(FRAMES + 1)])
    harness.one_message("render --frames past the end", r, [f"--frames {FRAMES + 1}", "t.npy"])
    with open(os.path.join(tmp, "s.csv"), "w") as f:
        f.write("step,order\n0,0.5\n")
    r = run(["view", "--replay", traj, "--series", os.path.join(tmp, "s.csv")])
    harness.one_message("view --series of another run", r, ["s.csv", "rows"])
    with open(os.path.join(tmp, "s.csv"), "w") as f:
        f.write("step,order\n" + "".join(f"{k * EVERY + 1},0.5\n" for k in range(FRAMES)))
    r = run(["view", "--replay", traj, "--series", os.path.join(tmp, "s.csv")])
    harness.one_message("view --series at other steps", r, ["s.csv:2", "step 0"])
    # Without a sidecar the parameters the options give, as the run had them, play it.
    r = run(["render", "--replay", bad, "--preset", "lab", "-o", os.path.join(tmp, "ok%d.png"),
             "--size", "64x40", "--frames", "1"])
    check(r.returncode == 0, f"no sidecar with --preset lab: exit {r.returncode}", r)
    check(not harness.FAILURES, f"failed: {harness.FAILURES}")
    print("ok: every bad replay refused with exit 2 and one message")


view_harness.main(globals())
