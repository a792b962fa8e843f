# SPDX-License-Identifier: MIT
"""Flock: one simulation (parameters, state, backend) owned from Python."""

import ctypes
import numbers
import threading
import time

from . import _lib
from ._lib import BoidsError, Error, FlockC, Metrics, c_text, check, core

_REAL, _INT, _BOOL, _ENUM = range(4)  # boids_key_type
# noise_seed takes [0, 2^53]; boids sim maps its 64-bit --seed into that range the same way.
_NOISE_SEED_MOD = 9007199254740993
# The GPU backend runs on the GL context current on its thread, and the public API has no
# call that makes a flock's context current again, so one gpu Flock may live at a time.
_gpu_live = []
_gpu_lock = threading.Lock()
# step(k) runs the C step in chunks of about this many seconds, so that Ctrl-C (raised by
# Python between two C calls) and close() from another thread wait for one chunk at most.
_CHUNK_SECONDS = 0.05
_STEP_MAX = 2**32  # the C step counter and boids_backend_step's count are 32-bit unsigned
# The parameters that define the world the positions must lie in (boids_flock_check).
_WORLD_KEYS = ("dim", "width", "height", "depth", "boundary")


def _numpy():
    """NumPy, imported when a state is read or written, so that `import boids` and the
    parts that need no arrays work on any Python 3."""
    try:
        import numpy
    except ImportError as e:
        raise ImportError("boids: the state as an array needs NumPy (Debian: python3-numpy; "
                          "pip install numpy)") from e
    return numpy


def _pandas():
    try:
        import pandas
    except ImportError as e:
        raise ImportError("boids: Flock.run() returns a pandas DataFrame and needs pandas "
                          "(Debian: python3-pandas; pip install pandas)") from e
    return pandas


def _integer(value, what):
    """value as a Python int when it is an integer (int, numpy integer); TypeError for
    anything else, bool included: int(2.7) would silently make 2, int("3") parse text."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError("%s must be an int, not %s (%r)" % (what, type(value).__name__, value))
    return int(value)


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
    check(core.boids_params_set(ctypes.byref(p), c_text(key, where + " key"),
                                c_text(_to_text(value), "%s %s" % (where, key)),
                                where.encode(), ctypes.byref(err)), err)


def _validate(p):
    err = Error()
    check(core.boids_params_validate(ctypes.byref(p), ctypes.byref(err)), err)


def _get(p, key):
    info = core.boids_param_find(c_text(key, "params key"))
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
    leaves the parameters as they were. Changes apply from the next step.

    Each key is also an attribute: ``f.params.noise = 1`` is ``f.params["noise"] = 1`` and
    ``f.params.noise`` reads it. An attribute that is no key raises AttributeError naming it,
    for reading and for setting: a misspelt key never becomes a Python attribute that the
    flock ignores. A change to a key only the other model reads (noise on a Reynolds flock)
    raises BoidsError, unless the same update switches the model."""

    __slots__ = ("_flock",)

    def __init__(self, flock):
        object.__setattr__(self, "_flock", flock)

    def __getattr__(self, name):
        # Called for names that are not methods or _flock: the parameter keys.
        if not name.startswith("_") and name in self:
            return self[name]
        raise AttributeError("boids.Params has no attribute '%s': it is not a parameter key "
                             "(boids.param_keys() lists them)" % name)

    def __setattr__(self, name, value):
        if name.startswith("_") or name not in self:
            raise AttributeError("boids.Params: cannot set '%s': it is not a parameter key "
                                 "(boids.param_keys() lists them)" % name)
        self[name] = value

    def __dir__(self):
        return sorted(set(object.__dir__(self)) | set(self.keys()))

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
        if not isinstance(key, str) or "\0" in key:
            return False
        return bool(core.boids_param_find(key.encode()))

    def items(self):
        return [(k, self[k]) for k in self.keys()]

    def to_dict(self):
        return dict(self.items())

    def __repr__(self):
        return "Params(%r)" % self.to_dict()


class Flock:
    """A flock of boids stepped by one of the library's backends.

    Flock(preset="lab", n=None, backend="cpu", seed=0, threads=0, fixed_world=False,
    **params) builds the parameters as `boids sim --preset PRESET --seed SEED -n N --set
    key=value ...` does (the Vicsek noise_seed follows seed unless given; above the
    parameters' N the world grows to keep their density, unless fixed_world, as
    `--fixed-world`, or params give width, height or depth and no count), draws the initial
    state from
    seed, and hands it to the backend: "cpu" (the default: the fast path, a grid in float,
    `threads` OpenMP threads, 0 all; the same bits for any thread count, as `boids sim
    --backend cpu`), "cpu-ref" (the exact reference in double, as `boids sim`'s default:
    ask for it where the reference itself is wanted) or "gpu" (headless EGL, deterministic
    mode; needs libboids_gpu.so). Release it with close() or a `with` block.

    Attributes are the ones documented here; assigning any other (``f.noise = 1``, where
    ``f.params.noise = 1`` was meant) raises AttributeError instead of being ignored.

    Every call into the library holds the Flock's lock, so threads may share a Flock: their
    calls run one at a time (a long step(k) is split into chunks of about 0.05 s, between
    which another thread's call, or close(), gets its turn)."""

    def __init__(self, preset="lab", n=None, backend="cpu", seed=0, threads=0,
                 fixed_world=False, **params):
        self._lock = threading.RLock()
        # Set by close() before it waits for the lock: a long step() stops at its next chunk
        # instead of taking the lock again (a lock is not fair: the stepping thread could
        # take it back chunk after chunk while close() waits; seen on a loaded machine).
        self._closing = False
        self._b = None
        self._out = None
        self._thread = threading.get_ident()
        self._step, self._step_known = 0, True
        self._chunk = 1
        p = core.boids_params_default()
        err = Error()
        check(core.boids_preset_apply(ctypes.byref(p), c_text(preset, "Flock(preset=)"),
                                      ctypes.byref(err)), err)
        seed = _integer(seed, "Flock(seed=)")
        threads = _integer(threads, "Flock(threads=)")
        if not 0 <= seed < 2**64:
            raise BoidsError("Flock(): seed %d is outside [0, 2^64)" % seed)
        p.noise_seed = seed % _NOISE_SEED_MOD
        for key, value in params.items():
            _set(p, key, value, "Flock()")
        if not isinstance(fixed_world, bool):
            raise TypeError("Flock(fixed_world=) must be a bool, not %s"
                            % type(fixed_world).__name__)
        base = type(p).from_buffer_copy(p)
        if n is not None:  # n is the run's N, as -n, whatever params give as count
            _set(p, "count", _integer(n, "Flock(n=)"), "Flock(n=)")
        sized = any(k in params for k in ("width", "height", "depth")) and "count" not in params
        if not fixed_world and not sized and p.count != base.count:
            check(core.boids_params_fit_world(ctypes.byref(p), ctypes.byref(base), 0.0,
                                              ctypes.byref(err)), err)
        _validate(p)
        self._p = p
        if not isinstance(backend, str):
            raise TypeError("Flock(backend=) must be a str, not %s" % type(backend).__name__)
        c_text(backend, "Flock(backend=)")
        self.backend = backend
        self._inter = _lib.Interact()
        core.boids_interact_default(ctypes.byref(self._inter), ctypes.byref(p))
        self._b = self._create(seed, threads)
        self._set_interact(self._inter)  # the backend holds the table this Flock shows
        self._out = self._alloc(self._p.count)

    def __setattr__(self, name, value):
        # The Flock's own fields (_name, backend, set in __init__) and its properties with a
        # setter (params, state); anything else is a mistake to report, not to keep.
        if name.startswith("_") or name == "backend" or isinstance(
                getattr(type(self), name, None), property):
            object.__setattr__(self, name, value)
            return
        hint = (" (a parameter: f.params.%s = ...)" % name
                if core.boids_param_find(name.encode("utf-8", "replace")) else "")
        raise AttributeError("boids.Flock has no attribute '%s'%s" % (name, hint))

    def _alloc(self, n):
        out, err = FlockC(), Error()
        check(core.boids_flock_alloc_dim(ctypes.byref(out), n, self._p.dim, ctypes.byref(err)),
              err)
        return out

    def _create(self, seed, threads):
        err = Error()
        init = self._alloc(self._p.count)
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
        with _gpu_lock:
            if _gpu_live:
                raise BoidsError("Flock(): a gpu Flock is already open; close() it first (its "
                                 "GL context must stay current while it lives)")
            check(gpu.boids_gpu_check_params(ctypes.byref(self._p), ctypes.byref(err)), err)
            gl = gpu.boids_gl_create(0, ctypes.byref(err))
            if not gl:
                return None
            opt = gpu.boids_gpu_options_default()  # deterministic: bit-identical run to run
            b = gpu.boids_gpu_create(gl, ctypes.byref(init), ctypes.byref(opt),
                                     ctypes.byref(err))
            if b:
                _gpu_live.append(id(self))
            return b

    def _live(self):
        """The backend handle; call with the lock held."""
        if not self._b:
            raise BoidsError("Flock: used after close()")
        if self.backend == "gpu" and threading.get_ident() != self._thread:
            raise BoidsError("Flock: a gpu Flock must be used on the thread that made it")
        return self._b

    def _apply(self, values, where):
        """Sets values on a copy of the parameters and keeps it only if all are valid and the
        current state and interaction table fit the world they describe."""
        with self._lock:
            p = type(self._p).from_buffer_copy(self._p)
            for key, value in values.items():
                _set(p, key, value, where)
            _validate(p)
            if p.count != self._p.count:
                raise BoidsError("%s: count is fixed once the flock exists (%d boids); make a "
                                 "new Flock for another N (or load() a state file)"
                                 % (where, self._p.count))
            _check_model_keys(p, self._p, values, where)
            err = Error()
            if any(getattr(p, k) != getattr(self._p, k) for k in _WORLD_KEYS):
                # A smaller world (or walls instead of the open plane) would leave boids
                # outside it, where no backend steps them correctly: refused, not re-wrapped.
                if core.boids_flock_check(ctypes.byref(self._download()), ctypes.byref(p),
                                          b"state", ctypes.byref(err)):
                    raise BoidsError("%s: the current state does not fit the new world: %s "
                                     "(assign a .state inside it first, or make a new Flock)"
                                     % (where, err.msg.decode("utf-8", "replace")))
            if core.boids_interact_check_world(ctypes.byref(self._inter), ctypes.byref(p),
                                               ctypes.byref(err)):
                raise BoidsError("%s: the interaction table does not suit the new world: %s"
                                 % (where, err.msg.decode("utf-8", "replace")))
            self._p = p
            self._chunk = 1  # new parameters may step slower: measure again

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
        with self._lock:
            return int(core.boids_backend_n(self._live()))

    @property
    def steps(self):
        """The state's step counter: the steps taken since the initial state (a loaded state
        brings its own); the Vicsek noise stream's index. After Ctrl-C in step(k) it counts
        the steps that ran."""
        with self._lock:
            if not self._step_known:
                # A step was cut short between the C call and the count (KeyboardInterrupt,
                # an error): the backend's own counter is the truth.
                self._step = int(self._download().step)
                self._step_known = True
            return self._step

    def _step_chunk(self, k):
        """One C step call of k steps; the lock is held by the caller."""
        b = self._live()
        err = Error()
        self._step_known = False
        check(core.boids_backend_step(b, ctypes.byref(self._p), k, ctypes.byref(err)), err)
        self._step = (self._step + k) % _STEP_MAX  # as the C counter (uint32) wraps
        self._step_known = True

    def _advance(self, k, on_chunk=None):
        """k steps in chunks of about _CHUNK_SECONDS (measured as they run, growing at most
        4-fold from one to the next); on_chunk(done) after each."""
        if k == 0:
            with self._lock:
                self._step_chunk(0)  # checks the parameters, as boids sim --steps 0
            return
        done = 0
        while done < k:
            if self._closing:
                raise BoidsError("Flock: used after close()")
            with self._lock:
                chunk = min(self._chunk, k - done)
                t0 = time.perf_counter()
                self._step_chunk(chunk)
                dt = time.perf_counter() - t0
                fit = int(chunk * _CHUNK_SECONDS / dt) if dt > 0 else 4 * chunk
                self._chunk = max(1, min(fit, 4 * chunk, _STEP_MAX - 1))
            done += chunk
            if on_chunk is not None:
                on_chunk(done)

    def step(self, k=1):
        """Advances k steps (an int, 0 <= k < 2^32) with the current parameters. Ctrl-C
        stops it within about 0.05 s (one chunk; a single step longer than that runs to its
        end), and `steps` then counts the steps that ran."""
        k = _integer(k, "step(): k")
        if not 0 <= k < _STEP_MAX:
            raise BoidsError("step(): k = %d is outside [0, 2^32)" % k)
        self._advance(k)
        return self

    def _download(self):
        """The state in the Flock's buffer; call with the lock held."""
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
        np = _numpy()
        with self._lock:
            f = self._download()
            cols = self._columns(f)
            out = np.empty((f.n, len(cols)), dtype=np.float64)
            for col, ptr in enumerate(cols):
                out[:, col] = np.ctypeslib.as_array(ptr, shape=(f.n,))
        return out

    @state.setter
    def state(self, array):
        """Replaces the state (same N) by an N x 4 array of x, y, vx, vy (N x 6 with z, vz).
        Each boid is checked as `boids sim --load` checks a state file's lines
        (boids_boid_check: finite, inside the world, a speed the model allows)."""
        np = _numpy()
        a = np.ascontiguousarray(array, dtype=np.float64)
        with self._lock:
            width = 6 if self._p.dim == 3 else 4
            n = self.n
            if a.ndim != 2 or a.shape != (n, width):
                raise BoidsError("state: expected an array of shape (%d, %d), got %s"
                                 % (n, width, a.shape))
            boid_check = core.boids_boid_check3 if width == 6 else core.boids_boid_check
            err, base, row = Error(), a.ctypes.data, a.strides[0]
            for i in range(n):
                if boid_check(ctypes.byref(self._p), base + i * row, 1,
                              b"state row %d" % i, ctypes.byref(err)):
                    check(err.status, err)
            f = self._download()  # the new state keeps the step counter: the noise goes on
            for col, ptr in enumerate(self._columns(f)):
                np.ctypeslib.as_array(ptr, shape=(f.n,))[:] = a[:, col]
            check(core.boids_backend_upload(self._live(), ctypes.byref(f), ctypes.byref(err)),
                  err)

    def save(self, path):
        """Writes the state to a state file (the library's format, as `boids sim --save`
        writes it: complete or not at all), with its step counter and noise seed in the
        sidecar PATH.json. A PATH ending in .npy gets a NumPy array (numpy.load reads it),
        any other a CSV."""
        data = c_text(path, "save(): path")
        with self._lock:
            err = Error()
            check(core.boids_state_save_seeded(data, ctypes.byref(self._download()),
                                               self._p.noise_seed, ctypes.byref(err)), err)

    def load(self, path):
        """Replaces the state by a state file's (`boids sim --load`: CSV, or .npy when PATH
        ends so): each boid checked against the parameters as it is read, the step counter
        and the noise seed of its sidecar restored (as `--load` without `--seed`). The file's N becomes the flock's
        (params["count"]). A refused file changes nothing."""
        data = c_text(path, "load(): path")
        with self._lock:
            b = self._live()
            f, err, seed = FlockC(), Error(), ctypes.c_long(-1)
            check(core.boids_state_load_seeded(data, ctypes.byref(self._p), ctypes.byref(f),
                                               ctypes.byref(seed), ctypes.byref(err)), err)
            try:
                p = type(self._p).from_buffer_copy(self._p)
                p.count = f.n
                if seed.value >= 0:
                    p.noise_seed = seed.value
                _validate(p)
                out = self._alloc(f.n) if f.n != self._out.n else None
                if core.boids_backend_upload(b, ctypes.byref(f), ctypes.byref(err)):
                    if out is not None:
                        core.boids_flock_free(ctypes.byref(out))
                    check(err.status, err)
                if out is not None:
                    core.boids_flock_free(ctypes.byref(self._out))
                    self._out = out
                self._p = p
                self._step, self._step_known = int(f.step), True
                self._chunk = 1
            finally:
                core.boids_flock_free(ctypes.byref(f))
        return self

    def _metrics(self):
        """{name: value} of every observable; the lock is held by the caller."""
        f = self._download()
        m, err = Metrics(), Error()
        check(core.boids_metrics_compute(ctypes.byref(f), ctypes.byref(self._p), ctypes.byref(m),
                                         ctypes.byref(err)), err)
        return {name: core.boids_metrics_get(ctypes.byref(m), i)
                for i, name in enumerate(_lib.METRIC_NAMES)}

    def observables(self):
        """{name: value} of every observable of the current state (include/boids/metrics.h:
        order, milling, nn_distance, neighbours, clusters, largest_cluster)."""
        with self._lock:
            return self._metrics()

    def _sample(self, names):
        """[step, value...] of the current state; order alone is the cheap boids_order."""
        with self._lock:
            if names == ["order"]:
                f = self._download()
                values = [core.boids_order(ctypes.byref(f))]
            else:
                m = self._metrics()
                values = [m[name] for name in names]
            self._step, self._step_known = int(self._out.step), True
            return [self._step] + values

    def run(self, steps, every=None, observables=None, progress=None):
        """Advances `steps` steps and returns a pandas DataFrame of the observables, one row
        per sample: the current state, then every `every` steps (without `every`, the last
        step alone), as `boids sim --steps S --every E` prints them. Its columns are `step`
        (the state's step counter) and the observables asked for (a name or a list, default
        all six, in the library's order). progress(done, steps), if given, is called before
        the first step and after each chunk of steps (about every 0.05 s)."""
        steps = _integer(steps, "run(): steps")
        if not 0 <= steps < _STEP_MAX:
            raise BoidsError("run(): steps = %d is outside [0, 2^32)" % steps)
        if every is not None:
            every = _integer(every, "run(): every")
            if every < 1:
                raise BoidsError("run(): every = %d must be at least 1" % every)
        names = _observable_names(observables)
        if progress is not None and not callable(progress):
            raise TypeError("run(): progress must be callable, not %s"
                            % type(progress).__name__)
        pd = _pandas()
        rows = [self._sample(names)]
        if progress is not None:
            progress(0, steps)
        done = 0
        while done < steps:
            target = min((done // every + 1) * every if every else steps, steps)
            report = None
            if progress is not None:
                def report(d, base=done):
                    progress(base + d, steps)
            self._advance(target - done, report)
            done = target
            if (done % every == 0) if every else done == steps:
                rows.append(self._sample(names))
        return pd.DataFrame(rows, columns=["step"] + names)

    @property
    def interact(self):
        """The interaction table (predators, attractors, obstacles): boids.Interact."""
        from .interact import Interact
        return Interact(self)

    def _set_interact(self, table, where="interact"):
        """Hands table (a copy the caller made) to the backend after the library's checks;
        the Flock's table changes only when the backend took it."""
        with self._lock:
            b = self._live()
            err = Error()
            if core.boids_interact_check_world(ctypes.byref(table), ctypes.byref(self._p),
                                               ctypes.byref(err)):
                raise BoidsError("%s: %s" % (where, err.msg.decode("utf-8", "replace")),
                                 err.status)
            check(core.boids_backend_set_interact(b, ctypes.byref(table), ctypes.byref(err)),
                  err)
            self._inter = table

    def close(self):
        """Releases the backend and the state buffer; safe to call more than once. It waits
        for a call another thread is making (one chunk of a step at most)."""
        lock = getattr(self, "_lock", None)
        if lock is None:  # __init__ failed before anything was allocated
            return
        self._closing = True
        with lock:
            b, self._b = self._b, None
            if b:
                core.boids_backend_destroy(b)
                with _gpu_lock:
                    if id(self) in _gpu_live:
                        _gpu_live.remove(id(self))
            out, self._out = self._out, None
            if out is not None and out.x:
                core.boids_flock_free(ctypes.byref(out))

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
        return "<boids.Flock %s n=%d steps=%d>" % (self.backend, self.n, self.steps)


def _model_of_key(key):
    """The model a key belongs to alone (its meaning starts "vicsek: ..."), or None for a
    key that every model reads."""
    models = core.boids_param_find(b"model").contents
    doc = core.boids_param_find(key.encode()).contents.doc.decode()
    i = 0
    while models.choices[i]:
        name = models.choices[i].decode()
        if doc.startswith(name + ":"):
            return name
        i += 1
    return None


def _check_model_keys(p, old, values, where):
    """BoidsError when values change a key that only another model than p's reads: the
    assignment would change nothing in this flock (f.params.noise = 1 on a Reynolds flock)."""
    model = _get(p, "model")
    for key in values:
        owner = _model_of_key(key)
        if owner and owner != model and _get(p, key) != _get(old, key):
            raise BoidsError("%s: %s is read by the %s model only, and this flock's model is "
                             "%s: the change would do nothing (set model too, to switch)"
                             % (where, key, owner, model))


def _observable_names(observables):
    """The list of observable names asked for (None: all, a str: that one), each checked."""
    known = list(_lib.METRIC_NAMES)
    if observables is None:
        return known
    names = [observables] if isinstance(observables, str) else list(observables)
    for name in names:
        if not isinstance(name, str):
            raise TypeError("observables: %r is not a name (%s)" % (name, ", ".join(known)))
        if name not in known:
            raise BoidsError("observables: unknown observable '%s' (%s)"
                             % (name, ", ".join(known)))
    if len(set(names)) != len(names) or not names:
        raise BoidsError("observables: %r must name each observable once, at least one"
                         % (names,))
    return names
