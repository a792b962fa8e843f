# SPDX-License-Identifier: MIT
"""Flocks of the boids library from Python.

A thin ctypes layer over the C library (libboids_core.so, and libboids_gpu.so for the
``gpu`` backend): the simulation runs in C exactly as ``boids sim`` runs it, so a Flock
made with the same preset, seed and parameters reaches the same state bit for bit.

    from boids import Flock
    with Flock(preset="classic", seed=7) as f:
        f.step(300)
        f.observables()["order"]
"""

from ._lib import BoidsError, library_path
from .flock import Flock, Params, presets, param_keys

__all__ = ["Flock", "Params", "BoidsError", "presets", "param_keys", "library_path"]
