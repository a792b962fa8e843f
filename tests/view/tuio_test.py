# SPDX-License-Identifier: MIT
"""TUIO cursors on the viewer's OSC port: a cursor that a `set` names becomes a predator of
the interaction table at the window's point, it goes away when `alive` no longer lists it,
and cursors beyond the 16 points are ignored with one message. liblo's oscsend sends the
/tuio/2Dcur messages a tracker would; /boids/get/predator/I queries answer to oscdump.

Usage: tuio_test.py BOIDS; it skips where harness.osc_session does."""
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.dirname(HERE)]
import harness  # noqa: E402

BOIDS = os.path.abspath(sys.argv[1])
send = harness.osc_send


def cursor(port, sid, x, y):
    send(port, "/tuio/2Dcur", "sifffff", "set", sid, x, y, 0, 0, 0)


def alive(port, *ids):
    send(port, "/tuio/2Dcur", "s" + "i" * len(ids), "alive", *ids)
    send(port, "/tuio/2Dcur", "si", "fseq", 1)


class Dump:
    """The replies oscdump has written, read past the ones already seen."""

    def __init__(self, path):
        self.path, self.seen = path, {}

    def point(self, port, i):
        """Asks for predator i; its replies' values as words (on/off, x, y, radius, weight),
        or None. The query's last reply is /boids/norm/predator/I/z."""
        send(port, f"/boids/get/predator/{i}")
        done = f" /boids/norm/predator/{i}/z "
        for _ in range(300):
            with open(self.path) as f:
                lines = f.read().splitlines()
            if sum(done in l for l in lines) > self.seen.get(i, 0):
                self.seen[i] = sum(done in l for l in lines)
                return words(lines, f"/boids/predator/{i}")
            time.sleep(0.2)
        return None


def words(lines, point):
    """The latest numeric replies of a point's addresses as the words of its config line."""
    def last(address):
        return [l.split()[3:] for l in lines if l.split()[1:2] == [address]][-1]
    x, y = last(point)[:2]
    on = "on" if last(point + "/on") == ["1"] else "off"
    return [on, x, y, last(point + "/radius")[0], last(point + "/weight")[0]]


def drive(port, dump_path):
    """The cursors and what they should do; the viewer is already running at 640 x 400."""
    dump = Dump(dump_path)
    alive(port, 7)
    cursor(port, 7, 0.25, 0.5)
    p0 = dump.point(port, 0)
    cursor(port, 8, 0.75, 0.25)
    p1 = dump.point(port, 1)
    alive(port, 8)  # 7 leaves
    gone = dump.point(port, 0)
    stays = dump.point(port, 1)
    # 8 still holds point 1: 15 more fit, the last two find none.
    ids = list(range(100, 117))
    alive(port, 8, *ids)
    for sid in ids:
        cursor(port, sid, 0.5, 0.5)
    last = dump.point(port, 15)
    alive(port)
    cleared = dump.point(port, 15)
    send(port, "/boids/quit")
    return p0, p1, gone, stays, last, cleared


def main():
    got, out, err, rc, _ = harness.osc_session(
        BOIDS, ["-n", "100", "--size", "640x400", "--no-panel", "--frames", "1000000",
                "--steps-per-frame", "1", "--stats"], drive, "the viewer runs and sends observables")
    if rc != 0 or got is None or None in got:
        harness.check("every query was answered", got is not None and None not in got, str(got))
        harness.finish()
    p0, p1, gone, stays, last, cleared = got
    s = harness.view_stats(out)
    w, h = s["width"], s["height"]
    # The window shows the whole world, 4 pixels of margin aside (view_input.c): a quarter
    # of the window is a quarter of the world within 2% of its side.
    near = lambda p, fx, fy: (p[0] == "on" and abs(float(p[1]) - fx * w) < 0.02 * w and
                              abs(float(p[2]) - fy * h) < 0.02 * h)
    harness.check(f"cursor 7 at (0.25, 0.5) is predator 0 at a quarter of the {w:g} x {h:g} "
                  "world's width and half its height", near(p0, 0.25, 0.5), str(p0))
    harness.check("cursor 8 at (0.75, 0.25) is predator 1", near(p1, 0.75, 0.25), str(p1))
    harness.check("cursor 7 left `alive`: predator 0 is off", gone[0] == "off", str(gone))
    harness.check("cursor 8 stayed: predator 1 is still on", near(stays, 0.75, 0.25), str(stays))
    harness.check("16 cursors fill the 16 points", last[0] == "on", str(last))
    harness.check("an empty `alive` frees every point", cleared[0] == "off", str(cleared))
    harness.check("no predator of the table is on at the end", s["predators_on"] == 0, str(s))
    full = [l for l in err.splitlines() if "no free predator point" in l]
    harness.check("the cursors beyond 16 are said once", len(full) == 1, err[-2000:])
    harness.finish()


if __name__ == "__main__":
    main()
