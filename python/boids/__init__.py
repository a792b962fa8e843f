# SPDX-License-Identifier: MIT
"""Flocks of the boids library from Python.

A thin ctypes layer over the C library (libboids_core.so, and libboids_gpu.so for the
``gpu`` backend): the simulation runs in C exactly as ``boids sim`` runs it, so a Flock
made with the same preset, seed, parameters and backend reaches the same state bit for bit.
A Flock runs the fast ``cpu`` backend unless told otherwise (``backend="cpu-ref"``, the
exact reference, is ``boids sim``'s default).

    from boids import Flock
    with Flock(preset="classic", seed=7) as f:
        f.step(300)
        f.observables()["order"]
        table = f.run(600, every=60)   # a pandas DataFrame: step and the observables

    table = boids.sweep({"noise": [0.5, 2]}, preset="vicsek", n=100, seeds=2, steps=200)

``sweep`` runs the project's `boids sweep` program (serial, or spread over the ranks of
mpirun) and returns its table as a DataFrame.

NumPy is needed for ``Flock.state`` and pandas for ``Flock.run``; both are imported when
first used, so the rest works on any Python 3.
"""

from ._lib import BoidsError, library_path
from ._version import __version__
from .flock import Flock, Params, presets, param_keys
from .interact import Interact
from .sweep import sweep

__all__ = ["Flock", "Params", "Interact", "BoidsError", "presets", "param_keys", "sweep",
           "library_path", "__version__"]
