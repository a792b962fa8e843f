# SPDX-License-Identifier: MIT
"""Tests of the viewer and renderer in 3-D (dim = 3): the murmuration preset in the window
from two camera positions, the depth cue on a synthetic two-boid state through `boids render
--load`, and the scripted camera of `boids render --camera` with its bad specs.

Usage: view_box_test.py BOIDS TEST. Sizes are small (a few thousand boids, a handful of frames)
because these run on llvmpipe with two cores. Exit 77 means skipped (no xvfb-run), a failure
instead with BOIDS_REQUIRE_GPU set (tests/harness.py)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from view_harness import (check, colour_pixels, lit_pixels, need_xvfb, png, run,  # noqa: E402
                          stats_text)
import view_harness  # noqa: E402


def test_view_murmuration_two_cameras_show_a_3d_flock(tmp):
    need_xvfb()
    # The preset at 3000 boids (its world shrinks to keep its density) for speed; the
    # second run turns the camera with a left drag and zooms in with the wheel.
    shots = [os.path.join(tmp, "a.png"), os.path.join(tmp, "b.png")]
    base = ["view", "--preset", "murmuration", "-n", "3000", "--size", "640x400", "--frames",
            "6", "--steps-per-frame", "2", "--no-hud", "--no-panel", "--stats", "-vv"]
    keys = [None, "2:{drag:200,200,420,260},3:{wheel:320,200,3}"]
    for shot, k in zip(shots, keys):
        r = run(base + ["--screenshot", shot] + (["--keys", k] if k else []), xvfb=True)
        check(r.returncode == 0, f"exit code {r.returncode}", r)
        check("backend cpu" in r.stderr, "3-D simulates on cpu", r)
        check("GL debug: 0 errors" in r.stderr, "GL errors in the window", r)
        lit = lit_pixels(shot)
        # Boids of at least 3 pixels, overlapping in a dense flock, and the box's edges:
        # a tenth of a pixel a boid at the least, a fifth of the frame at the most.
        check(300 <= lit <= 640 * 400 // 5, f"{shot}: {lit} non-background pixels")
    with open(shots[0], "rb") as a, open(shots[1], "rb") as b:
        check(a.read() != b.read(), "the two camera positions give the same picture")
    # The box drawn in the first view covers its corners: pixels lit in each quadrant.
    for q in ((0, 0, 320, 200), (320, 0, 640, 200), (0, 200, 320, 400), (320, 200, 640, 400)):
        check(lit_pixels(shots[0], q) > 0, f"nothing drawn in quadrant {q}")
    print("ok: two camera positions, two pictures of a 3-D flock")


def test_view_murmuration_predator_dives_every_period(tmp):
    need_xvfb()
    # dive.h: 240 steps of every 900 the predator dives, drawn as a red circle of its reach.
    # Step 1000 is 100 steps into the second dive, step 600 between the first two (the
    # viewer once turned the predator off for good when the first dive ended).
    reds = {}
    for steps in (600, 1000):
        shot = os.path.join(tmp, f"dive-{steps}.png")
        r = run(["view", "--preset", "murmuration", "-n", "2000", "--size", "400x250",
                 "--frames", str(steps // 20), "--steps-per-frame", "20", "--no-hud",
                 "--no-panel", "--colour", "plain", "--screenshot", shot, "--stats"],
                xvfb=True)
        check(r.returncode == 0, f"exit code {r.returncode}", r)
        reds[steps] = colour_pixels(shot)[1]
    print(f"red pixels: {reds[600]} between dives, {reds[1000]} in the second dive")
    check(reds[600] == 0 and reds[1000] >= 50, "the predator does not dive again")
    print("ok: the predator dives again in the second period")


def preset_params(name):
    """`boids params --preset NAME` as a dict of key to value text."""
    r = run(["params", "--preset", name])
    check(r.returncode == 0, f"boids params --preset {name}", r)
    return {f[0]: f[1] for f in (line.split() for line in r.stdout.splitlines()[1:]) if f}


def test_view_panel_offers_murmuration_in_3d(tmp):
    need_xvfb()
    # The lab flock in 3-D; the panel's third preset row holds murmuration: at
    # 640 x 400 the panel is 300 pixels wide at the right, that row's button 84 to 106
    # pixels down (src/app/viewer/view_panel.c, view_ui.c). The preset keeps N and the dimension.
    r = run(["view", "--set", "dim=3", "-n", "3000", "--size", "640x400", "--frames", "4",
             "--no-hud", "--keys", "2:{click:490,95}", "--stats"], xvfb=True)
    check(r.returncode == 0, f"exit code {r.returncode}", r)
    check("preset murmuration" in r.stderr, "the button did not apply the preset", r)
    stats = stats_text(r)
    want = preset_params("murmuration")
    for key in ("separation_weight", "alignment_weight", "cohesion_weight", "separation_radius",
                "fov", "max_speed", "min_speed", "max_force"):
        check(float(stats[key]) == float(want[key]), f"{key}: {stats[key]}, preset {want[key]}")
    check(stats["n"] == "3000" and stats["boundary"] == "1", "N or the walls", r)
    print("ok: the panel's murmuration button applies the preset in 3-D")


def test_view_gpu_backend_draws_3d_from_its_buffers(tmp):
    need_xvfb()
    # --backend gpu: the compute pipeline in 3-D, drawn straight from its state buffers (no
    # host copy of the flock: scene_host is NULL there). The same state on cpu gives the
    # same picture to within the float differences of a few steps' arithmetic.
    shots = {}
    for backend in ("gpu", "cpu"):
        shot = os.path.join(tmp, f"{backend}.png")
        r = run(["view", "--preset", "murmuration", "-n", "3000", "--size", "640x400",
                 "--frames", "4", "--steps-per-frame", "2", "--no-hud", "--no-panel",
                 "--backend", backend, "--screenshot", shot, "--stats", "-vv"], xvfb=True)
        check(r.returncode == 0, f"{backend}: exit code {r.returncode}", r)
        check(f"backend {backend}," in r.stderr, f"the viewer ran on {backend}", r)
        check("GL debug: 0 errors" in r.stderr, "GL errors in the window", r)
        shots[backend] = lit_pixels(shot)
        print(f"{backend}: {shots[backend]} lit pixels")
    check(shots["gpu"] >= 300, "the gpu backend's flock is not drawn")
    # lit pixels of 3000 boids of a few pixels each: a flock moved by float rounding covers
    # about the same number (a tenth is far more than rounding moves)
    check(abs(shots["gpu"] - shots["cpu"]) <= shots["cpu"] // 10,
          "the gpu backend's picture is not the cpu backend's flock")
    print("ok: the gpu backend's 3-D flock drawn from its buffers")


def test_render_murmuration_dark_birds_on_a_pale_sky(tmp):
    # The preset's look (render.h: render_look_for_preset): a pale evening sky and dark
    # plain birds; a config's view. lines change it as they change the default look.
    looks = {}
    for name, extra in (("preset", []), ("config", ["--config", "cfg.ini"])):
        with open(os.path.join(tmp, "cfg.ini"), "w") as f:
            f.write("view.background = #000000\nview.plain = #ffffff\n")
        out = os.path.join(tmp, name + "-%d.png")
        r = run(["render", "--preset", "murmuration", "-n", "3000", "--size", "320x200",
                 "--frames", "1", "--steps-per-frame", "0", "-o", out] + extra, cwd=tmp)
        check(r.returncode == 0, f"exit code {r.returncode}", r)
        w, h, ch, rows = png.read(out % 0)
        sky = tuple(rows[0][:3])
        # darker than the sky in every channel by more than 40 levels
        dark = sum(1 for row in rows for x in range(w)
                   if all(c < s - 40 for c, s in zip(row[x * ch:x * ch + 3], sky)))
        looks[name] = (sky, dark)
    sky, dark = looks["preset"]
    print(f"preset: sky {sky}, {dark} dark pixels; config: sky {looks['config'][0]}")
    check(min(sky) > 150, f"the sky is not pale: {sky}")
    # 3000 birds of at least 3 pixels spread through the box: hundreds of pixels well below
    # the sky (the fog lightens the far ones towards it)
    check(dark >= 300, f"only {dark} dark pixels: no dark birds")
    check(looks["config"][0] == (0, 0, 0), "the config's view.background did not win")
    print("ok: dark birds on a pale sky, and the config's look wins")


def test_render_3d_backend_gpu_on_request_cpu_on_software(tmp):
    # boids render in 3-D: the flock steps on gpu when --backend gpu asks for it (drawn from
    # its buffers), and on cpu by default where the renderer is a software rasteriser; on a
    # hardware renderer the default is gpu. Both draw the same flock after one step: the
    # lit pixel counts of 2000 boids of a few pixels each agree to a tenth (float rounding
    # of one step moves far fewer).
    lit = {}
    for name, extra in (("default", []), ("gpu", ["--backend", "gpu"])):
        out = os.path.join(tmp, name + "-%d.png")
        r = run(["render", "--preset", "murmuration", "-n", "2000", "--size", "320x200",
                 "--frames", "1", "--steps-per-frame", "1", "--colour", "plain", "-o", out,
                 "-vv"] + extra)
        check(r.returncode == 0, f"{name}: exit code {r.returncode}", r)
        software = "llvmpipe" in r.stderr or "softpipe" in r.stderr
        want = "gpu" if extra or not software else "cpu"
        check(f"backend {want}," in r.stderr, f"{name}: expected backend {want}", r)
        check("GL debug: 0 errors" in r.stderr, f"{name}: GL errors offscreen", r)
        lit[name] = lit_pixels(out % 0)
    print(f"lit pixels: default {lit['default']}, gpu {lit['gpu']}")
    check(lit["gpu"] >= 300, "the gpu backend's 3-D flock is not drawn")
    check(abs(lit["gpu"] - lit["default"]) <= lit["default"] // 10,
          "the gpu backend's frame is not the default backend's flock")
    print("ok: render in 3-D steps on the backend asked for")


def write_state(path, boids):
    with open(path, "w") as f:
        f.write("# dim=3\nx,y,z,vx,vy,vz\n")
        for b in boids:
            f.write(",".join(str(v) for v in b) + "\n")


def blob(path, x0, x1):
    """(lit pixels, peak green level above the background) in columns [x0, x1)."""
    w, h, ch, rows = png.read(path)
    bg = rows[0][1]
    n = peak = 0
    for r in rows:
        for x in range(x0, x1):
            g = r[x * ch + 1] - bg
            if g > 24:
                n += 1
                peak = max(peak, g)
    return n, peak


def test_render_depth_cue_far_boid_dimmer_and_smaller(tmp):
    # Two boids of one colour and heading, in a 1000-unit cube seen from above the front
    # (a keyframe file with one key); the left one near the eye, the right one 800 units
    # deeper. The open boundary draws no box to get in the way.
    state, keys = os.path.join(tmp, "two.csv"), os.path.join(tmp, "cam.txt")
    write_state(state, [(380, 500, 150, 2, 0, 0), (620, 500, 950, 2, 0, 0)])
    with open(keys, "w") as f:
        f.write("0  500 -700 -700  500 500 500\n")
    out = os.path.join(tmp, "d-%d.png")
    r = run(["render", "--load", state, "--set", "dim=3", "--set", "width=1000", "--set",
             "height=1000", "--set", "depth=1000", "--set", "boundary=open", "--colour",
             "plain", "--boid-size", "40", "--steps-per-frame", "0", "--frames", "1",
             "--size", "480x360", "--camera", keys, "-o", out, "-vv"])
    check(r.returncode == 0, f"exit code {r.returncode}", r)
    check("GL debug: 0 errors" in r.stderr, "GL errors offscreen", r)
    near, far = blob(out % 0, 0, 240), blob(out % 0, 240, 480)
    print(f"near boid: {near[0]} pixels, peak +{near[1]}; far boid: {far[0]} pixels, "
          f"peak +{far[1]}")
    check(near[0] > 20 and far[0] > 2, "both boids visible")
    # The fog (fog.glsl) keeps about exp(-800 / 1577) ~ 0.6 of the far boid's light and
    # perspective shrinks it to about 60% of the near one's length (its area to ~40%); the
    # margins leave room for the lit faces and the rasterisation of a small shape.
    check(far[1] < 0.85 * near[1], f"far boid not dimmer: +{far[1]} vs +{near[1]}")
    check(far[0] < 0.7 * near[0], f"far boid not smaller: {far[0]} vs {near[0]} pixels")
    print("ok: the far boid is dimmer and smaller")


def test_render_camera_orbit_writes_frames_bad_specs_exit_2(tmp):
    out = os.path.join(tmp, "o-%d.png")
    # 90 degrees a second at 2 frames a second: 45 degrees between frames.
    r = run(["render", "--set", "dim=3", "-n", "600", "--size", "320x200", "--frames", "3",
             "--camera", "orbit:90,elev=30", "--fps", "2", "--steps-per-frame", "0", "-o", out])
    check(r.returncode == 0, f"exit code {r.returncode}", r)
    frames = []
    for i in range(3):
        check(lit_pixels(out % i) > 300, f"frame {i}: no flock drawn")
        with open(out % i, "rb") as f:
            frames.append(f.read())
    check(len(set(frames)) == 3, "the orbiting camera drew the same frame twice")
    bad_keys = os.path.join(tmp, "bad.txt")
    with open(bad_keys, "w") as f:
        f.write("0 0 0 0 1 1 1\n1 0 0\n")
    cases = [(["--camera", "orbit:fast"], "orbit:fast"),
             (["--camera", "orbit:10,elev=120"], "elev=120"),
             (["--camera", os.path.join(tmp, "none.txt")], "none.txt"),
             (["--camera", bad_keys], "bad.txt:2"),
             (["--set", "dim=2", "--camera", "orbit:10"], "3-D only")]
    for extra, named in cases:
        args = ["render", "--set", "dim=3", "-n", "50", "--frames", "1", "-o",
                os.path.join(tmp, "x-%d.png")] + extra
        r = run(args)
        check(r.returncode == 2, f"{extra}: exit {r.returncode}", r)
        lines = r.stderr.strip().splitlines()
        check(len(lines) == 1 and named in lines[0], f"{extra}: message {lines}", r)
    check(not [f for f in os.listdir(tmp) if f.startswith("x-")], "a refused run wrote frames")
    print("ok: orbit frames differ; bad specs exit 2 with one message")


if __name__ == "__main__":
    view_harness.main(globals())
