# SPDX-License-Identifier: MIT
"""Flock: one simulation (parameters, state, backend) owned from Python."""

import ctypes
import threading

import numpy as np

from . import _lib
from ._lib import BoidsError, Error, FlockC, Metrics, check, core

_REAL, _INT, _BOOL, _ENUM = range(4)  # boids_key_type
# noise_seed takes [0, 2^53]; boids sim maps its 64-bit --seed into that range the same way.
_NOISE_SEED_MOD = 9007199254740993
# The GPU backend runs on the GL context current on its thread, and the public API has no
# call that makes a flock's context current again, so one gpu Flock may live at a time.
_gpu_live = []


def _key_table():
    count = ctypes.c_size_t()
    table = core.boids_param_table(ctypes.byref(count))
    return [table[i] for i in range(count.value)]


def param_keys():
    """Every parameter key, in the library's documentation order."""
    return [info.key.decode() for info in _key_table()]


def presets():
    """{name: summary} of the library's presets."""
    count = ctypes.c_size_t()
    table = core.boids_preset_table(ctypes.byref(count))
    return {table[i].name.decode(): table[i].summary.decode() for i in range(count.value)}


def _to_text(value):
    """A Python value as the text boids_params_set parses: floats round-trip through repr,
    booleans become 1/0, the rest (ints, enum names, strings) as str()."""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def _set(p, key, value, where):
    err = Error()
    check(core.boids_params_set(ctypes.byref(p), key.encode(), _to_text(value).encode(),
                                where.encode(), ctypes.byref(err)), err)


def _validate(p):
    err = Error()
    check(core.boids_params_validate(ctypes.byref(p), ctypes.byref(err)), err)


def _get(p, key):
    info = core.boids_param_find(key.encode())
    if not info:
        raise BoidsError("unknown parameter key '%s'" % key)
    buf = ctypes.create_string_buffer(128)
    core.boids_params_format(ctypes.byref(p), info, buf, len(buf))
    text = buf.value.decode()
    kind = info.contents.type
    if kind == _REAL:
        return float(text)
    if kind == _INT:
        return int(text)
    if kind == _BOOL:
        return text in ("1", "true", "on", "yes")
    return text


class Params:
    """The parameters of a Flock as a mapping of key -> value (see `boids params`).

    Reading gives floats, ints, bools and enum names; setting goes through the library's
    parser and validation, so a bad key or value raises BoidsError with its message and
    leaves the parameters as they were. Changes apply from the next step."""

    def __init__(self, flock):
        self._flock = flock

    def __getitem__(self, key):
        return _get(self._flock._p, key)

    def __setitem__(self, key, value):
        self.update({key: value})

    def update(self, values=(), **kw):
        """Sets several keys at once, checked together: all or none are applied."""
        self._flock._apply(dict(values, **kw), "params")

    def keys(self):
        return param_keys()

    def __iter__(self):
        return iter(self.keys())

    def __len__(self):
        return len(self.keys())

    def __contains__(self, key):
        return bool(core.boids_param_find(str(key).encode()))

    def items(self):
        return [(k, self[k]) for k in self.keys()]

    def to_dict(self):
        return dict(self.items())

    def __repr__(self):
        return "Params(%r)" % self.to_dict()


class Flock:
    """A flock of boids stepped by one of the library's backends.

    Flock(preset="lab", n=None, backend="cpu-ref", seed=0, threads=0, **params) builds
    the parameters as `boids sim --preset PRESET --seed SEED -n N --set key=value ...`
    does (the Vicsek noise_seed follows seed unless given), draws the initial state from
    seed, and hands it to the backend: "cpu-ref" (exact, double), "cpu" (grid, float,
    `threads` OpenMP threads, 0 all) or "gpu" (headless EGL, deterministic mode; needs
    libboids_gpu.so). Release it with close() or a `with` block."""

    def __init__(self, preset="lab", n=None, backend="cpu-ref", seed=0, threads=0, **params):
        self._b = None
        self._thread = threading.get_ident()
        self._steps = 0
        p = core.boids_params_default()
        err = Error()
        check(core.boids_preset_apply(ctypes.byref(p), str(preset).encode(), ctypes.byref(err)),
              err)
        seed = int(seed)
        if not 0 <= seed < 2**64:
            raise BoidsError("Flock(): seed %d is outside [0, 2^64)" % seed)
        p.noise_seed = seed % _NOISE_SEED_MOD
        if n is not None:
            _set(p, "count", int(n), "Flock(n=)")
        for key, value in params.items():
            _set(p, key, value, "Flock()")
        _validate(p)
        self._p = p
        self.backend = str(backend)
        self._b = self._create(seed, int(threads))
        self._out = FlockC()
        check(core.boids_flock_alloc_dim(ctypes.byref(self._out), self.n, self._p.dim,
                                         ctypes.byref(err)), err)

    def _create(self, seed, threads):
        err = Error()
        init = FlockC()
        check(core.boids_flock_alloc_dim(ctypes.byref(init), self._p.count, self._p.dim,
                                         ctypes.byref(err)), err)
        try:
            core.boids_flock_randomize(ctypes.byref(init), ctypes.byref(self._p), seed)
            if self.backend == "cpu-ref":
                b = core.boids_cpu_ref_create(ctypes.byref(init), ctypes.byref(err))
            elif self.backend == "cpu":
                b = core.boids_cpu_create(ctypes.byref(init), threads, ctypes.byref(err))
            elif self.backend == "gpu":
                b = self._create_gpu(init, err)
            else:
                raise BoidsError("Flock(): unknown backend '%s' (cpu-ref, cpu or gpu)"
                                 % self.backend)
        finally:
            core.boids_flock_free(ctypes.byref(init))
        if not b:
            check(err.status or 3, err)
        return b

    def _create_gpu(self, init, err):
        gpu = _lib.gpu
        if gpu is None:
            raise BoidsError("Flock(): backend 'gpu' needs libboids_gpu.so, which was not "
                             "found (set BOIDS_LIBRARY_PATH)", 3)
        if _gpu_live:
            raise BoidsError("Flock(): a gpu Flock is already open; close() it first (its GL "
                             "context must stay current while it lives)")
        check(gpu.boids_gpu_check_params(ctypes.byref(self._p), ctypes.byref(err)), err)
        gl = gpu.boids_gl_create(0, ctypes.byref(err))
        if not gl:
            return None
        opt = gpu.boids_gpu_options_default()  # deterministic: bit-identical run to run
        b = gpu.boids_gpu_create(gl, ctypes.byref(init), ctypes.byref(opt), ctypes.byref(err))
        if b:
            _gpu_live.append(id(self))
        return b

    def _live(self):
        if not self._b:
            raise BoidsError("Flock: used after close()")
        if self.backend == "gpu" and threading.get_ident() != self._thread:
            raise BoidsError("Flock: a gpu Flock must be used on the thread that made it")
        return self._b

    def _apply(self, values, where):
        """Sets values on a copy of the parameters and keeps it only if all are valid."""
        p = type(self._p).from_buffer_copy(self._p)
        for key, value in values.items():
            _set(p, key, value, where)
        _validate(p)
        if p.count != self._p.count:
            raise BoidsError("%s: count is fixed once the flock exists (%d boids); make a new "
                             "Flock for another N" % (where, self._p.count))
        self._p = p

    @property
    def params(self):
        """The parameters as a live mapping; assign a dict to set several keys at once."""
        return Params(self)

    @params.setter
    def params(self, values):
        self._apply(dict(values), "params")

    @property
    def n(self):
        """The number of boids."""
        return int(core.boids_backend_n(self._live()))

    @property
    def steps(self):
        """Steps taken since the flock was made."""
        return self._steps

    def step(self, k=1):
        """Advances k steps (k >= 0) with the current parameters."""
        k = int(k)
        if not 0 <= k < 2**32:
            raise BoidsError("step(): k = %d is outside [0, 2^32)" % k)
        err = Error()
        check(core.boids_backend_step(self._live(), ctypes.byref(self._p), k,
                                      ctypes.byref(err)), err)
        self._steps += k
        return self

    def _download(self):
        err = Error()
        check(core.boids_backend_download(self._live(), ctypes.byref(self._out),
                                          ctypes.byref(err)), err)
        return self._out

    @staticmethod
    def _columns(f):
        """The state's arrays in column order: x, y, vx, vy, or x, y, z, vx, vy, vz in 3-D."""
        if f.z:
            return (f.x, f.y, f.z, f.vx, f.vy, f.vz)
        return (f.x, f.y, f.vx, f.vy)

    @property
    def state(self):
        """A copy of the state: an N x 4 float64 array of x, y, vx, vy in id order (N x 6 of
        x, y, z, vx, vy, vz with dim = 3)."""
        f = self._download()
        cols = self._columns(f)
        out = np.empty((f.n, len(cols)), dtype=np.float64)
        for col, ptr in enumerate(cols):
            out[:, col] = np.ctypeslib.as_array(ptr, shape=(f.n,))
        return out

    @state.setter
    def state(self, array):
        """Replaces the state (same N) by an N x 4 array of x, y, vx, vy (N x 6 with z, vz)."""
        a = np.ascontiguousarray(array, dtype=np.float64)
        width = 6 if self._p.dim == 3 else 4
        if a.ndim != 2 or a.shape != (self.n, width):
            raise BoidsError("state: expected an array of shape (%d, %d), got %s"
                             % (self.n, width, a.shape))
        if not np.isfinite(a).all():
            raise BoidsError("state: every coordinate must be finite")
        f = self._download()  # the new state keeps the step counter: the noise stream goes on
        for col, ptr in enumerate(self._columns(f)):
            np.ctypeslib.as_array(ptr, shape=(f.n,))[:] = a[:, col]
        err = Error()
        check(core.boids_backend_upload(self._live(), ctypes.byref(f), ctypes.byref(err)), err)

    def observables(self):
        """{name: value} of every observable of the current state (include/boids/metrics.h:
        order, milling, nn_distance, neighbours, clusters, largest_cluster)."""
        f = self._download()
        m = Metrics()
        err = Error()
        check(core.boids_metrics_compute(ctypes.byref(f), ctypes.byref(self._p), ctypes.byref(m),
                                         ctypes.byref(err)), err)
        return {name: core.boids_metrics_get(ctypes.byref(m), i)
                for i, name in enumerate(_lib.METRIC_NAMES)}

    def close(self):
        """Releases the backend and the state buffer; safe to call more than once."""
        b, self._b = self._b, None
        if b:
            core.boids_backend_destroy(b)
            if id(self) in _gpu_live:
                _gpu_live.remove(id(self))
        out = getattr(self, "_out", None)
        if out is not None and out.x:
            core.boids_flock_free(ctypes.byref(out))
            self._out = None

    @property
    def closed(self):
        return not self._b

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __del__(self):
        # At interpreter exit the module globals may already be gone; nothing to free then.
        try:
            self.close()
        except Exception:
            pass

    def __repr__(self):
        if self.closed:
            return "<boids.Flock closed>"
        return "<boids.Flock %s n=%d steps=%d>" % (self.backend, self.n, self._steps)

