# SPDX-License-Identifier: MIT
"""Loading the shared libraries and declaring the C API for ctypes.

The structs mirrored here are the ones the C API passes by value or asks the caller to
allocate (include/boids/*.h); everything else stays behind opaque pointers. Their layout
is checked against the C compiler's in python/tests (test_abi.py), because a mismatch
would silently corrupt memory rather than fail.
"""

import ctypes
import os

from . import _find
from ._version import __version__

__all__ = ["BoidsError", "Params", "Error", "FlockC", "Metrics", "GpuOptions", "Point",
           "Obstacle", "Interact", "core", "gpu", "library_path", "check", "c_text"]


class BoidsError(ValueError):
    """An error reported by the library; the message is the library's own.

    ``status`` is the C boids_status: 1 bad input, 2 beyond a limit, 3 the run failed,
    4 out of memory. It subclasses ValueError because most errors are bad values."""

    def __init__(self, message, status=1):
        super().__init__(message)
        self.status = status


MAX_SPECIES = 4


class Species(ctypes.Structure):
    """boids_species (include/boids/params.h): one species' own parameters."""

    _fields_ = [("count", ctypes.c_long)] + [
        (name, ctypes.c_double) for name in (
            "speed", "max_speed", "min_speed", "max_force", "vision_radius",
            "separation_radius", "separation_weight", "alignment_weight", "cohesion_weight",
            "noise")]


class Params(ctypes.Structure):
    """boids_params (include/boids/params.h), field for field in declaration order."""

    _fields_ = [
        ("model", ctypes.c_int),
        ("width", ctypes.c_double),
        ("height", ctypes.c_double),
        ("dim", ctypes.c_int),
        ("depth", ctypes.c_double),
        ("boundary", ctypes.c_int),
        ("wall_margin", ctypes.c_double),
        ("wall_weight", ctypes.c_double),
        ("count", ctypes.c_long),
        ("initial_speed", ctypes.c_double),
        ("vision_radius", ctypes.c_double),
        ("separation_radius", ctypes.c_double),
        ("fov", ctypes.c_double),
        ("neighbours", ctypes.c_int),
        ("k", ctypes.c_long),
        ("k_in_vision", ctypes.c_int),
        ("max_speed", ctypes.c_double),
        ("min_speed", ctypes.c_double),
        ("max_force", ctypes.c_double),
        ("dt", ctypes.c_double),
        ("separation_weight", ctypes.c_double),
        ("alignment_weight", ctypes.c_double),
        ("cohesion_weight", ctypes.c_double),
        ("speed", ctypes.c_double),
        ("noise", ctypes.c_double),
        ("noise_seed", ctypes.c_long),
        ("predator", ctypes.c_int),
        ("predator_x", ctypes.c_double),
        ("predator_y", ctypes.c_double),
        ("predator_z", ctypes.c_double),
        ("predator_radius", ctypes.c_double),
        ("predator_weight", ctypes.c_double),
        ("food", ctypes.c_int),
        ("food_x", ctypes.c_double),
        ("food_y", ctypes.c_double),
        ("food_z", ctypes.c_double),
        ("food_radius", ctypes.c_double),
        ("food_weight", ctypes.c_double),
        ("avoid_distance", ctypes.c_double),
        ("avoid_weight", ctypes.c_double),
        ("noise_type", ctypes.c_int),
        ("alignment", ctypes.c_int),
        ("chirality", ctypes.c_double),
        ("field", ctypes.c_double),
        ("field_x", ctypes.c_double),
        ("field_y", ctypes.c_double),
        ("field_z", ctypes.c_double),
        ("species", ctypes.c_long),
        ("sp", Species * (MAX_SPECIES - 1)),
        ("coupling", (ctypes.c_double * MAX_SPECIES) * MAX_SPECIES),
        ("rule", (ctypes.c_int * MAX_SPECIES) * MAX_SPECIES),
        ("rule_radius", (ctypes.c_double * MAX_SPECIES) * MAX_SPECIES),
        ("rule_weight", (ctypes.c_double * MAX_SPECIES) * MAX_SPECIES),
    ]


class Error(ctypes.Structure):
    """boids_error: a status and a message of BOIDS_ERROR_MSG_MAX (512) bytes."""

    _fields_ = [("status", ctypes.c_int), ("msg", ctypes.c_char * 512)]


class FlockC(ctypes.Structure):
    """boids_flock: N, four arrays of doubles in id order, the step counter, and the z
    arrays (NULL for a 2-D flock)."""

    _fields_ = [
        ("n", ctypes.c_size_t),
        ("x", ctypes.POINTER(ctypes.c_double)),
        ("y", ctypes.POINTER(ctypes.c_double)),
        ("vx", ctypes.POINTER(ctypes.c_double)),
        ("vy", ctypes.POINTER(ctypes.c_double)),
        ("step", ctypes.c_uint32),
        ("z", ctypes.POINTER(ctypes.c_double)),
        ("vz", ctypes.POINTER(ctypes.c_double)),
    ]


class Metrics(ctypes.Structure):
    """boids_metrics: BOIDS_METRICS_COUNT doubles, read through boids_metrics_get so that
    the names and their order come from the library."""

    _fields_ = [("values", ctypes.c_double * 6)]


class GpuOptions(ctypes.Structure):
    """boids_gpu_options (include/boids/gpu.h); filled by boids_gpu_options_default."""

    _fields_ = [
        ("deterministic", ctypes.c_int),
        ("check", ctypes.c_int),
        ("timing", ctypes.c_int),
        ("log", ctypes.c_void_p),
        ("variant", ctypes.c_int),
        ("test_block_bytes", ctypes.c_size_t),
        ("test_groups_x", ctypes.c_uint),
    ]


class ParamInfo(ctypes.Structure):
    """boids_param_info: one row of the key table."""

    _fields_ = [
        ("key", ctypes.c_char_p),
        ("type", ctypes.c_int),
        ("offset", ctypes.c_size_t),
        ("min", ctypes.c_double),
        ("max", ctypes.c_double),
        ("min_open", ctypes.c_int),
        ("unit", ctypes.c_char_p),
        ("doc", ctypes.c_char_p),
        ("choices", ctypes.POINTER(ctypes.c_char_p)),
    ]


class PresetInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("summary", ctypes.c_char_p)]


class Point(ctypes.Structure):
    """boids_point (include/boids/interact.h): a predator or an attractor."""

    _fields_ = [
        ("on", ctypes.c_int),
        ("x", ctypes.c_double),
        ("y", ctypes.c_double),
        ("radius", ctypes.c_double),
        ("weight", ctypes.c_double),
        ("z", ctypes.c_double),
    ]


class Obstacle(ctypes.Structure):
    """boids_obstacle: a circle, a segment or a sphere (kind 0, 1, 2)."""

    _fields_ = [
        ("kind", ctypes.c_int),
        ("x0", ctypes.c_double),
        ("y0", ctypes.c_double),
        ("x1", ctypes.c_double),
        ("y1", ctypes.c_double),
        ("radius", ctypes.c_double),
        ("z0", ctypes.c_double),
    ]


MAX_POINTS, MAX_OBSTACLES = 16, 64  # BOIDS_MAX_POINTS, BOIDS_MAX_OBSTACLES (test_abi.py)


class Interact(ctypes.Structure):
    """boids_interact: 16 predators, 16 attractors, the obstacle count and 64 obstacles."""

    _fields_ = [
        ("predators", Point * MAX_POINTS),
        ("attractors", Point * MAX_POINTS),
        ("obstacle_count", ctypes.c_int),
        ("obstacles", Obstacle * MAX_OBSTACLES),
    ]


_HERE = os.path.dirname(os.path.abspath(__file__))


def _recorded_libdir():
    """The library folder that `cmake --install` wrote beside the package (_libdir.py,
    relative to the package's folder so that an installed tree can be moved); None in the
    source tree and after `pip install`."""
    try:
        from ._libdir import LIBDIR
    except ImportError:
        return None
    return os.path.normpath(os.path.join(_HERE, LIBDIR))


def source_build_folder():
    """The CMake build folder `build/` beside the package's source folder (python/../build)
    when the package is imported from the source tree (python/boids_build.py beside it),
    else None: an installed package never looks there."""
    source = os.path.dirname(_HERE)
    if not os.path.isfile(os.path.join(source, "boids_build.py")):
        return None
    return os.path.join(os.path.dirname(source), "build")


def _candidates(stem, beside=None):
    """Where to look for lib<stem>.so, first match wins (_find.py): $BOIDS_LIBRARY_PATH, the
    folder of the core library already loaded (for the GPU library), the package's own
    folder, the source tree's build folder, the folder `cmake --install` recorded, then the
    system's search."""
    yield from _find.from_env(os.environ.get("BOIDS_LIBRARY_PATH", ""), stem, __version__)
    if beside:
        yield from _find.in_folder(beside, stem, __version__)
    yield from _find.in_folder(_HERE, stem, __version__)
    build = source_build_folder()
    if build:
        yield from _find.in_folder(build, stem, __version__)
    libdir = _recorded_libdir()
    if libdir:
        yield from _find.in_folder(libdir, stem, __version__)
    yield from _find.system(stem)


def _load(stem, required, beside=None):
    lib, path, tried = _find.first(_candidates(stem, beside), __version__,
                                   check_version=(stem == "boids_core"))
    if lib is None and required:
        raise ImportError("boids: cannot find lib%s.so %s; install the package with "
                          "`pip install ./python` after building, or with `cmake --install`, "
                          "or set BOIDS_LIBRARY_PATH to the build folder or the library file "
                          "(tried: %s)" % (stem, __version__, ", ".join(tried) or "nothing"))
    return lib, path


def _declare(lib, name, restype, *argtypes):
    fn = getattr(lib, name)
    fn.restype = restype
    fn.argtypes = list(argtypes)


P = ctypes.POINTER
core, _core_path = _load("boids_core", True)
for _name, _res, _args in [
    ("boids_version", ctypes.c_char_p, ()),
    ("boids_params_default", Params, ()),
    ("boids_preset_apply", ctypes.c_int, (P(Params), ctypes.c_char_p, P(Error))),
    ("boids_preset_table", P(PresetInfo), (P(ctypes.c_size_t),)),
    ("boids_params_set", ctypes.c_int,
     (P(Params), ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, P(Error))),
    ("boids_params_validate", ctypes.c_int, (P(Params), P(Error))),
    ("boids_param_table", P(ParamInfo), (P(ctypes.c_size_t),)),
    ("boids_param_find", P(ParamInfo), (ctypes.c_char_p,)),
    ("boids_params_format", None, (P(Params), P(ParamInfo), ctypes.c_char_p, ctypes.c_size_t)),
    ("boids_flock_alloc", ctypes.c_int, (P(FlockC), ctypes.c_size_t, P(Error))),
    ("boids_flock_alloc_dim", ctypes.c_int, (P(FlockC), ctypes.c_size_t, ctypes.c_int, P(Error))),
    ("boids_flock_free", None, (P(FlockC),)),
    ("boids_flock_randomize", None, (P(FlockC), P(Params), ctypes.c_uint64)),
    ("boids_flock_hash", ctypes.c_uint64, (P(FlockC),)),
    ("boids_cpu_ref_create", ctypes.c_void_p, (P(FlockC), P(Error))),
    ("boids_cpu_create", ctypes.c_void_p, (P(FlockC), ctypes.c_int, P(Error))),
    ("boids_backend_step", ctypes.c_int, (ctypes.c_void_p, P(Params), ctypes.c_uint, P(Error))),
    ("boids_backend_download", ctypes.c_int, (ctypes.c_void_p, P(FlockC), P(Error))),
    ("boids_backend_upload", ctypes.c_int, (ctypes.c_void_p, P(FlockC), P(Error))),
    ("boids_backend_destroy", None, (ctypes.c_void_p,)),
    ("boids_backend_n", ctypes.c_size_t, (ctypes.c_void_p,)),
    ("boids_backend_name", ctypes.c_char_p, (ctypes.c_void_p,)),
    ("boids_metrics_compute", ctypes.c_int, (P(FlockC), P(Params), P(Metrics), P(Error))),
    ("boids_metrics_get", ctypes.c_double, (P(Metrics), ctypes.c_int)),
    ("boids_order", ctypes.c_double, (P(FlockC),)),
    ("boids_flock_check", ctypes.c_int, (P(FlockC), P(Params), ctypes.c_char_p, P(Error))),
    ("boids_boid_check", ctypes.c_int,
     (P(Params), ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p, P(Error))),
    ("boids_boid_check3", ctypes.c_int,
     (P(Params), ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p, P(Error))),
    ("boids_params_fit_world", ctypes.c_int,
     (P(Params), P(Params), ctypes.c_double, P(Error))),
    ("boids_state_save_seeded", ctypes.c_int,
     (ctypes.c_char_p, P(FlockC), ctypes.c_long, P(Error))),
    ("boids_state_load_seeded", ctypes.c_int,
     (ctypes.c_char_p, P(Params), P(FlockC), P(ctypes.c_long), P(Error))),
    ("boids_interact_default", None, (P(Interact), P(Params))),
    ("boids_interact_check_point", ctypes.c_int, (P(Point), ctypes.c_char_p, P(Error))),
    ("boids_interact_add_obstacle", ctypes.c_int,
     (P(Interact), P(Obstacle), ctypes.c_char_p, P(Error))),
    ("boids_interact_load_ini", ctypes.c_int, (P(Interact), ctypes.c_char_p, P(Error))),
    ("boids_interact_check_world", ctypes.c_int, (P(Interact), P(Params), P(Error))),
    ("boids_backend_set_interact", ctypes.c_int, (ctypes.c_void_p, P(Interact), P(Error))),
]:
    _declare(core, _name, _res, *_args)

METRIC_NAMES = tuple(n.decode() for n in (ctypes.c_char_p * 6).in_dll(core, "boids_metrics_names"))

# The GPU library is optional: a build without GL has none, and only backend="gpu" needs it.
gpu, _gpu_path = _load("boids_gpu", False, os.path.dirname(_core_path)
                        if os.path.sep in _core_path else None)
if gpu is not None:
    for _name, _res, _args in [
        ("boids_gl_create", ctypes.c_void_p, (ctypes.c_int, P(Error))),
        ("boids_gpu_options_default", GpuOptions, ()),
        ("boids_gpu_check_params", ctypes.c_int, (P(Params), P(Error))),
        ("boids_gpu_create", ctypes.c_void_p,
         (ctypes.c_void_p, P(FlockC), P(GpuOptions), P(Error))),
    ]:
        _declare(gpu, _name, _res, *_args)


def library_path(kind="core"):
    """The file the core (or "gpu") library was loaded from; None when not loaded."""
    return _core_path if kind == "core" else _gpu_path


def check(status, err):
    """Raises BoidsError with the library's message when status is not BOIDS_OK."""
    if status:
        raise BoidsError(err.msg.decode("utf-8", "replace"), status)


def c_text(value, what):
    """value (str or os.PathLike) as the bytes of a C string; BoidsError when it holds a NUL
    byte, which C would read as the end of the string (the rest silently dropped)."""
    if isinstance(value, bytes):
        data = value
    elif isinstance(value, str):
        data = value.encode("utf-8", "surrogateescape")
    elif hasattr(value, "__fspath__"):
        data = os.fsencode(value)
    else:
        raise TypeError("%s must be a str, not %s" % (what, type(value).__name__))
    if b"\0" in data:
        raise BoidsError("%s: %r contains a NUL byte" % (what, value))
    return data
