# SPDX-License-Identifier: MIT
"""Hostile OSC and TUIO input to a running `boids view` (the OSC part of the hostile-input
table; tests/hostile_test.py holds the command line's). Each case is sent to the viewer's
port as anything on 127.0.0.1 could send it; each must be refused with a `/boids/error`
reply and one line on stderr, and the viewer must go on unchanged: at the end it quits with
exit 0 and its --stats show the state it started with. Also: a flood of varying bad values
takes a bounded number of stderr lines, and two screenshots at one step in one second
write two files.

Usage: osc_hostile_test.py BOIDS. Exit 77 means skipped (no xvfb-run or oscdump: Debian
xvfb and liblo-tools), a failure instead with BOIDS_REQUIRE_GPU set (tests/harness.py)."""
import os
import shutil
import socket
import struct
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.dirname(HERE)]
import harness  # noqa: E402

BOIDS = os.path.abspath(sys.argv[1])


def pad(b):
    return b + b"\0" * (4 - len(b) % 4)


def osc(path, types="", *args):
    """One OSC message, encoded here so that any address or string length can be sent."""
    out = pad(path.encode()) + pad(("," + types).encode())
    for t, a in zip(types, args):
        out += {"i": lambda: struct.pack(">i", a), "f": lambda: struct.pack(">f", a),
                "d": lambda: struct.pack(">d", a), "h": lambda: struct.pack(">q", a),
                "s": lambda: pad(str(a).encode())}[t]()
    return out


# name, message, words the reply and the stderr line both hold
TEN = "0." + "0" * 60 + "1e62"  # 10, but its first 63 characters read 1e-61
LONG = "/boids/predator/" + "0" * 120 + "/weight"  # cut at 127 it reads /boids/predator/0
CASES = [
    ("a circle larger than the periodic world",
     osc("/boids/obstacle/circle", "fff", 100, 100, 1000000), ["/boids/obstacle/circle",
                                                                "radius", "periodic"]),
    ("a TUIO cursor at x = 1e308",
     osc("/tuio/2Dcur", "siddddd", "set", 7, 1e308, 0.5, 0, 0, 0), ["/tuio/2Dcur", "outside"]),
    ("an address of 143 characters", osc(LONG, "ff", 100, 100),
     ["/boids/predator/000", "143 characters", "at most 127"]),
    ("a string argument of 66 characters",
     osc("/boids/param/alignment_weight", "s", TEN),
     ["/boids/param/alignment_weight", "66 characters", "at most 63"]),
    ("a count beyond the viewer's largest", osc("/boids/param/count", "i", 1000000000),
     ["/boids/param/count", "1000000000", "at most"]),
    ("an unknown preset", osc("/boids/preset", "s", "nope"),
     ["/boids/preset", "nope", "murmuration"]),
    ("a predator at 1e308 (finite, but infinity in float)",
     osc("/boids/predator/0", "dd", 1e308, 1e308), ["/boids/predator/0", "beyond"]),
]


def replies(dump):
    with open(dump) as f:
        return [l for l in f.read().splitlines() if " /boids/error " in l]


def main():
    harness.need_osc_tools("xvfb-run", "oscdump")
    tmp = harness.tmpdir()
    errf, shots = os.path.join(tmp, "stderr.txt"), os.path.join(tmp, "shots")
    os.mkdir(shots)
    viewer, listener, port_in, dump = harness.osc_viewer(
        BOIDS, tmp, ["-n", "300", "--size", "640x400", "--frames", "1000000",
                     "--steps-per-frame", "1", "--stats", "--screenshot-dir", shots,
                     "--osc-rate", "10"], stderr=open(errf, "w"))
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)

    def send(msg):
        sock.sendto(msg, ("127.0.0.1", port_in))

    try:
        up = harness.wait_for(dump, "/boids/observables", 120)
        harness.check("the viewer sends observables once it runs", up)
        for k, (name, msg, words) in enumerate(CASES):
            send(msg)
            got = False
            for _ in range(300):
                r = replies(dump)
                if len(r) > k:
                    got = all(w in r[k] for w in words)
                    break
                time.sleep(0.1)
            harness.check(f"{name}: a /boids/error reply naming {words}", got,
                          str(replies(dump)[k:k + 1]))
            with open(errf) as f:
                lines = [l for l in f.read().splitlines() if "(ignored)" in l]
            harness.check(f"{name}: one line on stderr naming {words}",
                          len(lines) == k + 1 and all(w in lines[k] for w in words), str(lines))
            harness.check(f"{name}: the viewer goes on", viewer.poll() is None)
        # A world too small for the obstacle already there: refused, the obstacle cleared.
        send(osc("/boids/obstacle/circle", "fff", 300, 300, 100))
        send(osc("/boids/param/width", "f", 150))
        send(osc("/boids/obstacle/clear"))
        got = False
        for _ in range(300):
            r = replies(dump)
            if len(r) > len(CASES):
                got = "/boids/param/width" in r[-1] and "periodic" in r[-1]
                break
            time.sleep(0.1)
        harness.check("a width the obstacle does not fit: refused with a reply", got,
                      str(replies(dump)[len(CASES):]))
        # Varying bad values, as a fuzzer sends them: refused, and the log stays short.
        t0 = time.time()
        flood = 3000
        for i in range(flood):
            send(osc("/boids/param/fov", "f", 1000 + i))
            if i % 200 == 199:
                time.sleep(0.05)
        send(osc("/boids/pause", "i", 1))
        # Two screenshots at one step in one second: two files.
        time.sleep(0.5)
        send(osc("/boids/screenshot"))
        send(osc("/boids/screenshot"))
        harness.wait_for(errf, "wrote", 60)
        time.sleep(1)
        send(osc("/boids/get/predator/0"))
        harness.wait_for(dump, "/boids/norm/predator/0/z ", 60)
        flood_s = time.time() - t0
        send(osc("/boids/quit"))
        out, _ = viewer.communicate(timeout=120)
    finally:
        if viewer.poll() is None:
            viewer.kill()
        listener.kill()
    with open(errf) as f:
        err = f.read()
    harness.check("/boids/quit ends the viewer with exit 0", viewer.returncode == 0,
                  f"exit {viewer.returncode}\n{err[-2000:]}")
    if viewer.returncode != 0:
        harness.finish()
    fov = [l for l in err.splitlines() if "/boids/param/fov" in l]
    # 10 lines at once, then 1 a second (view_osc.c), plus one for slack in the clock.
    harness.check(f"{flood} varying bad values take at most 10 + 1/s lines",
                  len(fov) <= 10 + flood_s + 1, f"{len(fov)} lines in {flood_s:.1f} s")
    hushed = [l for l in err.splitlines() if "refused without a line" in l]
    told = sum(int(l.split("(")[1].split()[0]) for l in hushed)
    # The loopback may drop datagrams under the flood: most of them must be accounted for.
    harness.check("the refused ones without a line are counted",
                  told + len(fov) >= 0.9 * flood, f"{told} counted, {len(fov)} lines: {hushed}")
    wrote = [l.split("wrote ", 1)[1] for l in err.splitlines() if "boids: wrote " in l]
    harness.check("two screenshots at one step write two files",
                  len(wrote) == 2 and wrote[0] != wrote[1] and all(os.path.getsize(p) > 1000
                                                                   for p in wrote),
                  str(wrote) + str(os.listdir(shots)))
    s = harness.view_stats(out)
    harness.check("N unchanged (300)", s["n"] == 300, str(s))
    # Fewer boids than lab's 1500 keep its area, 900 x 560 (boids_params_fit_world), in the shape of
    # the 340 x 400 pixels beside the panel.
    harness.check("the world unchanged", abs(s["width"] * s["height"] - 900 * 560) < 1
                  and abs(s["width"] / s["height"] - 340 / 400) < 1e-3, str(s))
    harness.check("no obstacle was added", s["obstacles"] == 0, str(s))
    harness.check("no point of the table is on", s["predators_on"] == 0 and s["attractors_on"] == 0,
                  str(s))
    harness.check("the alignment weight and fov are the defaults (1 and 360)",
                  s["alignment_weight"] == 1 and s["fov"] == 360, str(s))
    with open(dump) as f:
        reply = [l.split()[2:] for l in f.read().splitlines() if " /boids/predator/0/on " in l]
    harness.check("predator 0 is off", reply and reply[-1] == ["i", "0"], str(reply))
    shutil.rmtree(tmp, ignore_errors=True)
    harness.finish()


if __name__ == "__main__":
    main()
