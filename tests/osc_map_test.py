# SPDX-License-Identifier: MIT
"""`boids osc-map`: the OSC address map lists every parameter key of `boids params`, under
/boids/norm with the control range `boids params` prints and under /boids/param, and every
predator and attractor; --out writes the same map; a path it cannot write is refused.

docs/osc.md's table of the control ranges is the program's.

Usage: osc_map_test.py BOIDS OSC_MD"""
import csv
import io
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE]
import harness  # noqa: E402

BOIDS = os.path.abspath(sys.argv[1])
DOC = sys.argv[2]


def params():
    """key -> its line of `boids params` (a wide value may push the columns on: the lines
    are searched, not cut at the header's columns)."""
    lines = harness.run(BOIDS, "params", check_rc=0).stdout.splitlines()
    return {l.split()[0]: l for l in lines[1:]}


def doc_rows(path):
    """key -> the control range of docs/osc.md's table rows "| `KEY` | RANGE | UNIT |"."""
    rows = {}
    with open(path) as f:
        for line in f:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) == 3 and cells[0].startswith("`") and cells[0].endswith("`"):
                rows[cells[0].strip("`")] = cells[1]
    return rows


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
    control = {k: by[f"/boids/norm/{k}"][2].split("0 .. 1 over ", 1)[-1] for k in keys
               if f"/boids/norm/{k}" in by}
    differ = [k for k in control if f" {control[k]} " not in keys[k]]
    harness.check("each /boids/norm range is the control range boids params prints",
                  not differ, str(differ))
    docs = doc_rows(DOC)

    def doc_range(key):
        # A species' keys have one row a pattern: KEY.S (species 1 .. 3), else the row of KEY
        # itself; KEY.I.J (a pair of species).
        parts = key.split(".")
        if len(parts) == 2:
            return docs.get(parts[0] + ".S", docs.get(parts[0]))
        if len(parts) == 3:
            return docs.get(parts[0] + ".I.J")
        return docs.get(key)

    stale = [k for k in control if doc_range(k) != control[k]]
    harness.check("docs/osc.md's table gives every key's control range as the program does",
                  not stale, str([(k, doc_range(k), control[k]) for k in stale]))
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
