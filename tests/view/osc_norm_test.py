# SPDX-License-Identifier: MIT
"""`boids view` for control surfaces: faders on /boids/norm/KEY (0..1 over the control range
`boids osc-map` lists) and on /boids/param/KEY get their value back as a number on their own
address, set or refused; /boids/get/norm answers every key of the map; an XY pad places a
predator in fractions of the world; a config file's relative places keep their place in the
world when a preset switched over OSC changes the world; the viewer says where it listens.

Usage: osc_norm_test.py BOIDS; it skips where harness.osc_session does."""
import csv
import io
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.dirname(HERE)]
import harness  # noqa: E402

BOIDS = os.path.abspath(sys.argv[1])
send = harness.osc_send
SCENE = """places = relative
obstacle = circle 0.5 0.25 0.05
predator.2 = 0.75 0.5 0.1 3
"""


def replies(dump, address):
    """The arguments (types first) of every message oscdump wrote for address."""
    with open(dump) as f:
        return [l.split()[2:] for l in f.read().splitlines() if l.split()[1:2] == [address]]


def wait(dump, address, count):
    """The replies of address once there are count of them (None after 60 s)."""
    for _ in range(300):
        got = replies(dump, address)
        if len(got) >= count:
            return got
        time.sleep(0.2)
    return None


def drive(port, dump):
    got = {}
    send(port, "/boids/get/obstacle/0")
    send(port, "/boids/get/predator/2")
    got["before"] = wait(dump, "/boids/obstacle/0", 1), wait(dump, "/boids/norm/obstacle/0", 1)
    got["pred_before"] = wait(dump, "/boids/norm/predator/2/z", 1) and (
        replies(dump, "/boids/predator/2"), replies(dump, "/boids/norm/predator/2"))
    send(port, "/boids/preset", "s", "classic")  # 80 boids in 400 x 400: 300 need more room
    send(port, "/boids/get/obstacle/0")
    send(port, "/boids/get/predator/2")
    got["after"] = wait(dump, "/boids/obstacle/0", 2), wait(dump, "/boids/norm/obstacle/0", 2)
    got["pred_after"] = wait(dump, "/boids/norm/predator/2/z", 2) and (
        replies(dump, "/boids/predator/2"), replies(dump, "/boids/norm/predator/2"))
    send(port, "/boids/norm/alignment_weight", "f", 0.5)
    send(port, "/boids/norm/vision_radius", "f", 0.75)
    send(port, "/boids/norm/fov", "f", 1.5)  # beyond the fader: refused, the reply says where
    send(port, "/boids/param/separation_weight", "f", 2)
    send(port, "/boids/param/cohesion_weight", "f", -1)  # out of range: refused
    send(port, "/boids/norm/boundary", "f", 0.5)  # wrap|walls|open: the middle one
    send(port, "/boids/norm/predator/3", "ff", 0.25, 0.75)
    got["fov"] = wait(dump, "/boids/norm/fov", 1)
    got["cohesion"] = wait(dump, "/boids/param/cohesion_weight", 1)
    got["xy"] = wait(dump, "/boids/norm/predator/3", 1)
    send(port, "/boids/get/predator/3")
    got["xy_world"] = wait(dump, "/boids/norm/predator/3/z", 1) and replies(
        dump, "/boids/predator/3")
    send(port, "/boids/get/param/boundary")
    got["boundary"] = wait(dump, "/boids/param/boundary", 1)
    # Every key at once, as a layout asks after it connects: the preset sent them once already.
    n = len(replies(dump, "/boids/norm/avoid_weight"))
    send(port, "/boids/get/norm")
    wait(dump, "/boids/norm/avoid_weight", n + 1)
    send(port, "/boids/quit")
    return got


def close(a, b, tol):
    return all(abs(float(x) - y) <= tol * max(1, abs(y)) for x, y in zip(a, b))


def main():
    tmp = harness.tmpdir()
    ini = os.path.join(tmp, "scene.ini")
    with open(ini, "w") as f:
        f.write(SCENE)
    got, out, err, rc, lines = harness.osc_session(
        BOIDS, ["-n", "300", "--size", "640x400", "--frames", "1000000", "--steps-per-frame", "1",
                "--stats", "--config", ini], drive, "the viewer sends observables once it runs")
    if rc != 0 or not got:
        harness.finish()
    listen = [l for l in err.splitlines() if "OSC listens on 127.0.0.1:" in l]
    harness.check("without -v, one line says where OSC listens and how to open it to the network",
                  len(listen) == 1 and "--osc-host 0.0.0.0" in listen[0], err[-2000:])
    s = harness.view_stats(out)
    # OSC's f is a float32: 24 bits, a relative error of 6e-8 at most; 1e-6 leaves room.
    f32 = 1e-6
    (world0, norm0), (world1, norm1) = got["before"], got["after"]
    harness.check("the config's pillar is at (0.5, 0.25) of the world, radius 0.05 of its side",
                  norm0 and norm0[0][:2] == ["iffffff", "0"]
                  and close([norm0[0][2], norm0[0][3], norm0[0][6]], [0.5, 0.25, 0.05], f32),
                  str(norm0))
    harness.check("the preset changed the world (the pillar's world x moved)",
                  world0 and world1 and abs(float(world1[-1][2]) - float(world0[-1][2])) > 1,
                  str((world0, world1)))
    harness.check("after the preset the pillar is at the same place of the world",
                  norm1 and close([norm1[-1][2], norm1[-1][3], norm1[-1][6]], [0.5, 0.25, 0.05],
                                  f32), str(norm1))
    harness.check("the pillar's world x is half the final world's width",
                  world1 and close([world1[-1][2]], [0.5 * s["width"]], f32),
                  str((world1, s["width"])))
    (pw0, pn0), (pw1, pn1) = got["pred_before"], got["pred_after"]
    harness.check("predator 2 stays at (0.75, 0.5) of the world across the preset",
                  close(pn0[-1][1:], [0.75, 0.5], f32) and close(pn1[-1][1:], [0.75, 0.5], f32)
                  and abs(float(pw1[-1][1]) - float(pw0[-1][1])) > 1, str((pw0, pw1, pn0, pn1)))
    harness.check("a fader at 0.5 of alignment's 0 .. 5 sets 2.5", s["alignment_weight"] == 2.5,
                  str(s))
    # log 0.1 .. 1000 at 0.75: 0.1 * (1000 / 0.1) ** 0.75 = 100; --stats prints 6 digits.
    harness.check("a fader at 0.75 of vision_radius's log 0.1 .. 1000 sets 100",
                  abs(s["vision_radius"] - 100) < 1e-3, str(s))
    fov = s["fov"]
    harness.check(f"a fader beyond 1 is refused and told the fov kept, {fov:g} of 10 .. 360",
                  got["fov"] and got["fov"][-1][0] == "f"
                  and close(got["fov"][-1][1:], [(fov - 10) / 350], f32), str(got["fov"]))
    sep = replies_of(lines, "/boids/param/separation_weight")
    harness.check("/boids/param/separation_weight f 2 is answered with f 2", sep == [["f", "2.000000"]],
                  str(sep))
    harness.check("a refused /boids/param value is answered with the value kept",
                  got["cohesion"] and got["cohesion"][-1][0] == "f"
                  and float(got["cohesion"][-1][1]) == s["cohesion_weight"], str(got["cohesion"]))
    harness.check("an enum's fader at 0.5 picks the middle choice, walls (index 1 as i)",
                  got["boundary"] == [["i", "1"]], str(got["boundary"]))
    harness.check("an XY pad at (0.25, 0.75) gets (0.25, 0.75) back",
                  got["xy"] and got["xy"][0][0] == "ff" and close(got["xy"][0][1:], [0.25, 0.75], f32),
                  str(got["xy"]))
    harness.check("and predator 3 is there in world units",
                  got["xy_world"] and close(got["xy_world"][-1][1:],
                                            [0.25 * s["width"], 0.75 * s["height"]], f32),
                  str((got["xy_world"], s["width"], s["height"])))
    keys = [r[0] for r in csv.reader(io.StringIO(harness.run(BOIDS, "osc-map").stdout))
            if r[0].startswith("/boids/norm/") and r[0].count("/") == 3]
    norms = {l.split()[1]: l.split()[2:] for l in lines if l.split()[1:2]
             and l.split()[1].startswith("/boids/norm/")}
    harness.check(f"/boids/get/norm answers all {len(keys)} keys of the map, each f in [0, 1]",
                  all(k in norms and norms[k][0] == "f" and 0 <= float(norms[k][1]) <= 1
                      for k in keys), str([k for k in keys if k not in norms]))
    harness.finish()


def replies_of(lines, address):
    return [l.split()[2:] for l in lines if l.split()[1:2] == [address]]


if __name__ == "__main__":
    main()
