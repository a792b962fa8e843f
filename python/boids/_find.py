# SPDX-License-Identifier: MIT
"""Where the shared libraries are looked for, and the check that a file found is the
library this package was written for. Nothing here runs at import: boids_build.py (the
build backend) loads this file on its own (to bundle the library into an installed package),
and _lib.py at import.

Search order at run time (_lib.py): $BOIDS_LIBRARY_PATH, the package's own folder (the copy
`pip install` bundles), the CMake build folder `build/` beside the package's source folder
(python/../build: the source tree with only PYTHONPATH=python), the library folder `cmake
--install` recorded beside the package (_libdir.py), then the system's linker path
(ctypes.util.find_library)."""

import ctypes
import ctypes.util
import os


def series(version):
    """'0.3' of '0.3.0': the part of the version that the SONAME carries while the major
    version is 0 (cmake/boids-library.cmake), the major alone from 1.0 on."""
    major, minor = version.split(".")[:2]
    return "%s.%s" % (major, minor) if major == "0" else major


def file_names(stem, version):
    """lib<stem>.so (the development link), then the SONAME file that a runtime-only
    installation has alone."""
    return ["lib%s.so" % stem, "lib%s.so.%s" % (stem, series(version))]


def in_folder(folder, stem, version):
    for sub in ("", "lib"):
        for name in file_names(stem, version):
            yield os.path.join(folder, sub, name) if sub else os.path.join(folder, name)


def from_env(value, stem, version):
    """The candidates of a BOIDS_LIBRARY_PATH value: folders (and their lib/), or library
    files, several joined by os.pathsep. Given the core's file, the GPU library is looked
    for beside it."""
    for entry in filter(None, (value or "").split(os.pathsep)):
        if os.path.isdir(entry):
            yield from in_folder(entry, stem, version)
        elif os.path.basename(entry).startswith("lib%s.so" % stem):
            yield entry
        elif os.path.isfile(entry):
            yield from in_folder(os.path.dirname(entry), stem, version)


def system(stem):
    found = ctypes.util.find_library(stem)
    if found:
        yield found


def open_checked(path, version, check_version=True):
    """Loads path; OSError when it cannot be loaded or, for the core, is another series
    (its structs could differ from the ctypes mirrors, which would corrupt memory). A
    refused file is loaded RTLD_LOCAL only, so its symbols never serve a later library."""
    lib = ctypes.CDLL(path, mode=ctypes.RTLD_LOCAL)
    if check_version:
        fn = lib.boids_version
        fn.restype, fn.argtypes = ctypes.c_char_p, []
        have = fn().decode("ascii", "replace")
        if series(have) != series(version):
            raise OSError("version %s, the package is %s" % (have, version))
    return ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)


def first(candidates, version, check_version=True):
    """(library, path, tried): the first candidate that loads and passes the check, or
    (None, None, tried) where tried lists every path looked at and why it was passed over."""
    tried = []
    for path in candidates:
        if any(t == path or t.startswith(path + " (") for t in tried):
            continue
        if os.path.sep in path and not os.path.exists(path):
            tried.append(path)
            continue
        try:
            lib = open_checked(path, version, check_version)
            return lib, (os.path.abspath(path) if os.path.sep in path else path), tried
        except (OSError, AttributeError) as e:
            tried.append("%s (%s)" % (path, e))
    return None, None, tried
