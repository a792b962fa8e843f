# SPDX-License-Identifier: MIT
"""`boids osc-map`: the OSC address map lists every parameter key of `boids params`, under
/boids/norm with the control range `boids params` prints and under /boids/param, and every
predator and attractor; --out writes the same map; a path it cannot write is refused.

Usage: osc_map_test.py BOIDS"""
import csv
import io
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE]
import harness  # noqa: E402

BOIDS = os.path.abspath(sys.argv[1])


def params():
    """key -> control range, from `boids params` (fixed-width columns under the header)."""
    lines = harness.run(BOIDS, "params", check_rc=0).stdout.splitlines()
    start, end = lines[0].index("control"), lines[0].index("meaning")
    return {l.split()[0]: l[start:end].strip() for l in lines[1:]}


def main():
    text = harness.run(BOIDS, "osc-map", check_rc=0).stdout
    rows = list(csv.reader(io.StringIO(text)))
    harness.check("a header and rows of five fields",
                  rows[0] == ["address", "arguments", "range", "reply", "meaning"]
                  and all(len(r) == 5 for r in rows), str(rows[:2]))
    by = {r[0]: r for r in rows[1:]}
    keys = params()
    harness.check("boids params lists keys with their control ranges", len(keys) > 30, str(keys))
    missing = [k for k in keys if f"/boids/norm/{k}" not in by or f"/boids/param/{k}" not in by]
    harness.check("every key of boids params has /boids/norm/KEY and /boids/param/KEY",
                  not missing, str(missing))
    differ = [k for k in keys if f"/boids/norm/{k}" in by
              and by[f"/boids/norm/{k}"][2] != f"0 .. 1 over {keys[k]}"]
    harness.check("each /boids/norm range is the control range boids params prints",
                  not differ, str(differ))
    norm_keys = [a for a in by if a.startswith("/boids/norm/") and a.count("/") == 3]
    harness.check("no /boids/norm key beyond the parameters",
                  sorted(a.split("/")[3] for a in norm_keys) == sorted(keys), str(norm_keys))
    points = [f"/boids/{n}{kind}/{i}" for n in ("", "norm/") for kind in ("predator", "attractor")
              for i in range(16)]
    harness.check("16 predators and 16 attractors, in world units and normalised",
                  all(p in by and p + "/radius" in by for p in points),
                  str([p for p in points if p not in by]))
    tmp = harness.tmpdir()
    out = os.path.join(tmp, "boids-osc.csv")
    harness.run(BOIDS, "osc-map", "--out", out, check_rc=0)
    with open(out) as f:
        harness.check("--out writes the same map", f.read() == text)
    bad = os.path.join(tmp, "no-such-folder", "map.csv")
    harness.one_message("--out into a missing folder", harness.run(BOIDS, "osc-map", "--out", bad),
                        [bad])
    shutil.rmtree(tmp, ignore_errors=True)
    harness.finish()


if __name__ == "__main__":
    main()
