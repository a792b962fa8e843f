# SPDX-License-Identifier: MIT
"""Loading the shared libraries and declaring the C API for ctypes.

The structs mirrored here are the ones the C API passes by value or asks the caller to
allocate (include/boids/*.h); everything else stays behind opaque pointers. Their layout
is checked against the C compiler's in python/tests (test_abi.py), because a mismatch
would silently corrupt memory rather than fail.
"""

import ctypes
import ctypes.util
import os

__all__ = ["BoidsError", "Params", "Error", "FlockC", "Metrics", "GpuOptions", "core", "gpu",
           "library_path", "check"]


class BoidsError(ValueError):
    """An error reported by the library; the message is the library's own.

    ``status`` is the C boids_status: 1 bad input, 2 beyond a limit, 3 the run failed,
    4 out of memory. It subclasses ValueError because most errors are bad values."""

    def __init__(self, message, status=1):
        super().__init__(message)
        self.status = status


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


def _candidates(stem):
    """Where to look for lib<stem>.so, first match wins: $BOIDS_LIBRARY_PATH (a file or a
    folder, or several joined by os.pathsep), the package's own folder (a copy installed
    beside it), then the system's search (ctypes.util.find_library, e.g. after
    `cmake --install`)."""
    name = "lib%s.so" % stem
    env = os.environ.get("BOIDS_LIBRARY_PATH", "")
    for entry in filter(None, env.split(os.pathsep)):
        if os.path.isdir(entry):
            yield os.path.join(entry, name)
            yield os.path.join(entry, "lib", name)
        elif os.path.basename(entry).startswith(name):
            yield entry
        elif stem == "boids_gpu" and os.path.isfile(entry):
            # A path to the core library given as a file: the GPU one sits beside it.
            yield os.path.join(os.path.dirname(entry), name)
    yield os.path.join(os.path.dirname(os.path.abspath(__file__)), name)
    found = ctypes.util.find_library(stem)
    if found:
        yield found


def _load(stem, required):
    tried = []
    for path in _candidates(stem):
        if path in tried:
            continue
        tried.append(path)
        if os.path.sep in path and not os.path.exists(path):
            continue
        try:
            lib = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
            return lib, (os.path.abspath(path) if os.path.sep in path else path)
        except OSError as e:
            tried[-1] = "%s (%s)" % (path, e)
    if required:
        raise ImportError("boids: cannot find lib%s.so; set BOIDS_LIBRARY_PATH to the build "
                          "folder or the library file (tried: %s)"
                          % (stem, ", ".join(tried) or "nothing"))
    return None, None


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
]:
    _declare(core, _name, _res, *_args)

METRIC_NAMES = tuple(n.decode() for n in (ctypes.c_char_p * 6).in_dll(core, "boids_metrics_names"))

# The GPU library is optional: a build without GL has none, and only backend="gpu" needs it.
gpu, _gpu_path = _load("boids_gpu", False)
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
