# SPDX-License-Identifier: MIT
"""`boids view` under remote control: OSC messages sent with liblo's oscsend change the
running viewer (parameters, a preset, a predator, an obstacle, pause), a bad message is
refused and the viewer goes on, and the observables arrive at an oscdump listener.

Usage: osc_test.py BOIDS; it skips where harness.osc_session does."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.dirname(HERE)]
import harness  # noqa: E402

BOIDS = os.path.abspath(sys.argv[1])
send = harness.osc_send


def drive(port_in, dump):
    """The messages and what they should do; the viewer is already running."""
    send(port_in, "/boids/preset", "s", "school")          # vision_radius 40, fov 300
    send(port_in, "/boids/param/alignment_weight", "f", 2.25)
    send(port_in, "/boids/param/fov", "f", 999)             # out of range: refused
    send(port_in, "/boids/param/fov", "f", 999)             # the same again: not logged again
    send(port_in, "/boids/param/count", "i", 250)
    send(port_in, "/boids/predator/5", "fff", 90, 110, 77)  # with z (a 3-D world's)
    send(port_in, "/boids/predator/5", "ff", 100, 120)      # without: z kept
    send(port_in, "/boids/obstacle/circle", "fff", 300, 200, 40)
    send(port_in, "/boids/obstacle/sphere", "ffff", 300, 200, 50, 40)  # 3-D only: refused
    send(port_in, "/boids/get/param/vision_radius")
    if not harness.wait_for(dump, "/boids/param/vision_radius", 60):
        return False
    send(port_in, "/boids/get/predator/5")
    if not harness.wait_for(dump, "/boids/predator/5/z", 60):
        return False
    # Observables after the restart with 250 boids, then pause and quit.
    ok = harness.wait_for(dump, "/boids/n i 250", 60)
    send(port_in, "/boids/pause", "i", 1)
    send(port_in, "/boids/quit")
    return ok


def main():
    replied, out, err, rc, lines = harness.osc_session(
        BOIDS, ["-n", "300", "--size", "640x400", "--frames", "1000000", "--steps-per-frame",
                "1", "--stats", "--osc-rate", "10"], drive,
        "the viewer sends observables once it runs")
    harness.check("a /boids/get/param query is answered, and N reaches the observables", replied)
    if rc != 0:
        harness.finish()
    s = harness.view_stats(out)
    harness.check("the preset applied (vision radius 40, fov 300 of school)",
                  s["vision_radius"] == 40 and s["fov"] == 300, str(s))
    harness.check("a parameter set after the preset wins", s["alignment_weight"] == 2.25, str(s))
    harness.check("the out-of-range fov was refused, the viewer went on", s["fov"] == 300, str(s))
    harness.check("the count restarted the flock with 250 boids", s["n"] == 250, str(s))
    harness.check("one point of the table is on (predator 5), none of the parameters'",
                  s["predators_on"] == 1 and s["predator"] == 0, str(s))
    harness.check("the obstacle was added", s["obstacles"] == 1, str(s))
    sphere = [l for l in err.splitlines() if "/boids/obstacle/sphere" in l]
    harness.check("a sphere in the planar world is refused, naming what it takes",
                  len(sphere) == 1 and "planar" in sphere[0] and "circle" in sphere[0], err[-2000:])
    harness.check("pause paused", s["paused"] == 1, str(s))
    complaints = [l for l in err.splitlines() if "/boids/param/fov" in l]
    harness.check("the bad message is logged once", len(complaints) == 1, err[-2000:])
    obs = [l.split()[2:] for l in lines if " /boids/observables " in l]
    harness.check("observables have the five values (ffiii: int32 steps, which every client "
                  "decodes)", obs and all(o[0] == "ffiii" and len(o) == 6 for o in obs),
                  str(obs[:3]))
    harness.check("order and milling are in [0, 1]",
                  all(0 <= float(o[1]) <= 1 and 0 <= float(o[2]) <= 1 for o in obs), str(obs[:3]))
    reply = [l.split()[2:] for l in lines if " /boids/param/vision_radius " in l]
    harness.check("the reply is the number 40 (f) on the parameter's own address",
                  reply and reply[-1][0] == "f" and float(reply[-1][1]) == 40, str(reply))
    def last(address):
        got = [l.split()[2:] for l in lines if l.split()[1:2] == [address]]
        return got[-1] if got else None
    harness.check("predator 5 is at (100, 120), two numbers (ff) in a planar world",
                  last("/boids/predator/5") == ["ff", "100.000000", "120.000000"],
                  str(last("/boids/predator/5")))
    harness.check("predator 5 is on, with the lab's radius 160",
                  last("/boids/predator/5/on") == ["i", "1"]
                  and last("/boids/predator/5/radius") == ["f", "160.000000"],
                  str([last("/boids/predator/5/on"), last("/boids/predator/5/radius")]))
    harness.check("predator 5 kept the z of the three-number message (77)",
                  last("/boids/predator/5/z") == ["f", "77.000000"],
                  str(last("/boids/predator/5/z")))
    harness.finish()


if __name__ == "__main__":
    main()
