# SPDX-License-Identifier: MIT
"""Places that follow the screen: a config file with `places = relative` gives its points
and obstacles in fractions of the world, so that the same file puts the pillar at the same
relative place on a landscape and a portrait world (read back from `boids sim --series`'s
sidecar, which records the interaction table the run used); a bad `places` value is refused.

Usage: places_test.py BOIDS"""
import json
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE]
import harness  # noqa: E402

BOIDS = os.path.abspath(sys.argv[1])
CONFIG = """# an installation's scene, in fractions of the world (walls: a wrapping world refuses a
# wall longer than half its side)
boundary = walls
places = relative
obstacle = circle 0.5 0.25 0.05
obstacle = segment 0.1 0.9 0.9 0.9
predator.2 = 0.75 0.5 0.1 3
"""


def table(tmp, config, width, height):
    """The interaction table and world of a two-step run in a width x height world."""
    ini, series = os.path.join(tmp, "scene.ini"), os.path.join(tmp, f"s{width}x{height}.csv")
    with open(ini, "w") as f:
        f.write(config)
    harness.run(BOIDS, "sim", "--config", ini, "--set", f"width={width}", "--set",
                f"height={height}", "-n", "100", "--steps", "2", "--series", series, check_rc=0)
    with open(series + ".json") as f:
        return json.load(f)["interaction"]


def main():
    tmp = harness.tmpdir()
    for w, h in ((1600, 900), (900, 1600)):
        t = table(tmp, CONFIG, w, h)
        side = min(w, h)
        pillar, wall = t["obstacles"]
        # The fractions are exact binary multiples for these sizes but for 0.05, 0.1 and 0.9:
        # one rounding of a product, far below 1e-9 of a world unit.
        near = lambda a, b: abs(a - b) < 1e-9 * max(w, h)
        harness.check(f"{w} x {h}: the pillar is at (0.5, 0.25) of the world, its radius 0.05 of "
                      "the smaller side",
                      near(pillar["x"], 0.5 * w) and near(pillar["y"], 0.25 * h)
                      and near(pillar["radius"], 0.05 * side), str(pillar))
        harness.check(f"{w} x {h}: the wall runs from (0.1, 0.9) to (0.9, 0.9) of the world",
                      near(wall["x0"], 0.1 * w) and near(wall["y0"], 0.9 * h)
                      and near(wall["x1"], 0.9 * w) and near(wall["y1"], 0.9 * h), str(wall))
        (pred,) = t["predators"]
        harness.check(f"{w} x {h}: predator 2 at (0.75, 0.5), radius 0.1 of the smaller side, "
                      "weight 3 (weights are not lengths)",
                      pred["index"] == 2 and near(pred["x"], 0.75 * w) and near(pred["y"], 0.5 * h)
                      and near(pred["radius"], 0.1 * side) and pred["weight"] == 3, str(pred))
    world = table(tmp, CONFIG.replace("places = relative", "places = world")
                  .replace("0.5 0.25 0.05", "450 280 40"), 1600, 900)
    harness.check("places = world keeps world units",
                  world["obstacles"][0]["x"] == 450 and world["obstacles"][0]["radius"] == 40,
                  str(world["obstacles"][0]))
    ini = os.path.join(tmp, "bad.ini")
    with open(ini, "w") as f:
        f.write("places = screen\n")
    p = harness.run(BOIDS, "sim", "--config", ini, "--steps", "1")
    harness.one_message("places = screen", p, [ini + ":1", "places", "relative"])
    shutil.rmtree(tmp, ignore_errors=True)
    harness.finish()


if __name__ == "__main__":
    main()
