# SPDX-License-Identifier: MIT
"""The interaction table of a Flock: predators that boids flee, attractors they seek, and
obstacles they avoid (include/boids/interact.h; README, "Interaction points and obstacles").

Every change is made on a copy of the table, checked by the library (the same checks and
messages as a config file's `predator.I`, `attractor.I` and `obstacle` lines) and handed to
the backend; a refused change raises BoidsError and leaves the table as it was."""

import ctypes
import numbers

from ._lib import MAX_POINTS, BoidsError, Error, Interact as _Table, Obstacle, c_text, check, core

_KINDS = ("circle", "segment", "sphere")  # boids_obstacle_kind 0, 1, 2
_POINT_FIELDS = ("on", "x", "y", "z", "radius", "weight")


def _real(value, what):
    """value as a float when it is a real number; TypeError for text, bool and the rest."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError("%s must be a number, not %s (%r)" % (what, type(value).__name__, value))
    return float(value)


def _point_dict(pt):
    return {"on": bool(pt.on), "x": pt.x, "y": pt.y, "z": pt.z, "radius": pt.radius,
            "weight": pt.weight}


def _obstacle_dict(o):
    kind = _KINDS[o.kind] if 0 <= o.kind < len(_KINDS) else o.kind
    if kind == "segment":
        return {"kind": kind, "x0": o.x0, "y0": o.y0, "x1": o.x1, "y1": o.y1}
    if kind == "sphere":
        return {"kind": kind, "x": o.x0, "y": o.y0, "z": o.z0, "radius": o.radius}
    return {"kind": kind, "x": o.x0, "y": o.y0, "radius": o.radius}


class Interact:
    """f.interact: the table of Flock f. A new Flock has every point off at the world's
    centre with the parameters' predator (food) radius and weight, and no obstacles.

        f.interact.predator(0, x=100, y=100, radius=80, weight=3)   # on, at (100, 100)
        f.interact.predator(0, on=False)                            # off, the rest kept
        f.interact.attractor(1, x=450, y=280)                       # radius, weight kept
        f.interact.add_circle(300, 200, 40)
        f.interact.add_segment(100, 100, 200, 150)
        f.interact.add_sphere(450, 280, 100, 30)                    # a 3-D world's
        f.interact.load("installation.ini")   # its predator./attractor./obstacle lines
        f.interact.to_dict()                  # {"predators": [...], "attractors": [...],
                                              #  "obstacles": [...]}
    """

    def __init__(self, flock):
        self._flock = flock

    def _copy(self):
        return _Table.from_buffer_copy(self._flock._inter)

    def _point(self, which, i, values):
        where = "interact.%s(%r)" % (which, i)
        if isinstance(i, bool) or not isinstance(i, numbers.Integral):
            raise TypeError("%s: the index must be an int, not %s" % (where, type(i).__name__))
        if not 0 <= i < MAX_POINTS:
            raise BoidsError("%s: index %d is outside 0 .. %d" % (where, i, MAX_POINTS - 1))
        with self._flock._lock:
            table = self._copy()
            pt = getattr(table, which + "s")[i]
            for key, value in values.items():
                if value is None:
                    continue
                if key == "on":
                    if not isinstance(value, (bool, int)) or value not in (0, 1):
                        raise TypeError("%s: on must be True or False, not %r" % (where, value))
                    pt.on = int(value)
                else:
                    setattr(pt, key, _real(value, "%s: %s" % (where, key)))
            err = Error()
            check(core.boids_interact_check_point(ctypes.byref(pt), where.encode(),
                                                  ctypes.byref(err)), err)
            self._flock._set_interact(table, where)

    def predator(self, i, x=None, y=None, radius=None, weight=None, z=None, on=True):
        """Sets predator i (0 .. 15): the values given, the others kept; on by default."""
        self._point("predator", i, dict(on=on, x=x, y=y, z=z, radius=radius, weight=weight))

    def attractor(self, i, x=None, y=None, radius=None, weight=None, z=None, on=True):
        """Sets attractor i (0 .. 15) as predator() does."""
        self._point("attractor", i, dict(on=on, x=x, y=y, z=z, radius=radius, weight=weight))

    def _add(self, kind, where, **coords):
        o = Obstacle(kind=_KINDS.index(kind))
        for key, value in coords.items():
            setattr(o, key, _real(value, "%s: %s" % (where, key)))
        with self._flock._lock:
            table, err = self._copy(), Error()
            check(core.boids_interact_add_obstacle(ctypes.byref(table), ctypes.byref(o),
                                                   where.encode(), ctypes.byref(err)), err)
            self._flock._set_interact(table, where)

    def add_circle(self, x, y, radius):
        """Adds a circle (a 2-D world's obstacle) of centre (x, y)."""
        self._add("circle", "interact.add_circle", x0=x, y0=y, radius=radius)

    def add_segment(self, x0, y0, x1, y1):
        """Adds a line segment (2-D) from (x0, y0) to (x1, y1)."""
        self._add("segment", "interact.add_segment", x0=x0, y0=y0, x1=x1, y1=y1)

    def add_sphere(self, x, y, z, radius):
        """Adds a sphere (a 3-D world's obstacle) of centre (x, y, z)."""
        self._add("sphere", "interact.add_sphere", x0=x, y0=y, z0=z, radius=radius)

    def clear_obstacles(self):
        with self._flock._lock:
            table = self._copy()
            table.obstacle_count = 0
            ctypes.memset(ctypes.byref(table.obstacles), 0, ctypes.sizeof(table.obstacles))
            self._flock._set_interact(table, "interact.clear_obstacles")

    def reset(self):
        """Back to a new Flock's table: every point off, no obstacles."""
        with self._flock._lock:
            table = _Table()
            core.boids_interact_default(ctypes.byref(table), ctypes.byref(self._flock._p))
            self._flock._set_interact(table, "interact.reset")

    def load(self, path):
        """Applies a config file's predator.I, attractor.I and obstacle lines on top of the
        table (its parameter keys are skipped); errors name the file, line and key."""
        data = c_text(path, "interact.load(): path")
        with self._flock._lock:
            table, err = self._copy(), Error()
            check(core.boids_interact_load_ini(ctypes.byref(table), data, ctypes.byref(err)), err)
            self._flock._set_interact(table, "interact.load(%r)" % (path,))

    @property
    def predators(self):
        """The 16 predators as dicts of on, x, y, z, radius, weight."""
        with self._flock._lock:
            return [_point_dict(pt) for pt in self._flock._inter.predators]

    @property
    def attractors(self):
        with self._flock._lock:
            return [_point_dict(pt) for pt in self._flock._inter.attractors]

    @property
    def obstacles(self):
        """The obstacles as dicts: {"kind": "circle", "x", "y", "radius"}, {"kind":
        "segment", "x0", "y0", "x1", "y1"} or {"kind": "sphere", "x", "y", "z", "radius"}."""
        with self._flock._lock:
            t = self._flock._inter
            return [_obstacle_dict(t.obstacles[i]) for i in range(t.obstacle_count)]

    def to_dict(self):
        return {"predators": self.predators, "attractors": self.attractors,
                "obstacles": self.obstacles}

    def __repr__(self):
        on = lambda pts: sum(p["on"] for p in pts)  # noqa: E731
        return "<boids.Interact %d predators on, %d attractors on, %d obstacles>" % (
            on(self.predators), on(self.attractors), len(self.obstacles))
