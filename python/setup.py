# SPDX-License-Identifier: MIT
"""Builds the package (metadata in pyproject.toml) and bundles the shared libraries into it,
so that the installed package finds them with no environment variable.

The core library (and the GPU one beside it) is taken from, first match: $BOIDS_LIBRARY_PATH,
the CMake build folder `build/` beside this folder (the README's build command), the libdir
of an installed boids.pc (pkg-config). A candidate must be this package's version
(boids/_find.py checks it as the package's import does). Without one, the package installs
alone and looks for the library at import (README, Python)."""

import importlib.util
import os
import shutil
import subprocess
import sys

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))


def _module(name):
    # The package's own files, loaded alone: importing the package would load the library.
    spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, "boids", name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


_find = _module("_find")
VERSION = _module("_version").__version__


def _pkg_config_libdir():
    try:
        out = subprocess.run(["pkg-config", "--variable=libdir", "boids"], capture_output=True,
                             text=True, check=False)
    except OSError:
        return None
    return out.stdout.strip() if out.returncode == 0 and out.stdout.strip() else None


def _libraries():
    """{file name in the package: path} of the libraries to bundle; empty when none fits."""
    def candidates(stem):
        yield from _find.from_env(os.environ.get("BOIDS_LIBRARY_PATH", ""), stem, VERSION)
        yield from _find.in_folder(os.path.join(os.path.dirname(HERE), "build"), stem, VERSION)
        libdir = _pkg_config_libdir()
        if libdir:
            yield from _find.in_folder(libdir, stem, VERSION)

    lib, core, tried = _find.first(candidates("boids_core"), VERSION)
    if lib is None:
        sys.stderr.write("boids: no libboids_core.so %s to bundle (tried: %s); the package "
                         "will look for it at import\n" % (VERSION, ", ".join(tried)))
        return {}
    found = {"libboids_core.so": core}
    gpu = _find.first(_find.in_folder(os.path.dirname(core), "boids_gpu", VERSION), VERSION,
                      check_version=False)[1]
    if gpu:
        found["libboids_gpu.so"] = gpu
    return found


LIBRARIES = _libraries()


class BuildWithLibraries(build_py):
    def run(self):
        super().run()
        for name, path in LIBRARIES.items():
            dest = os.path.join(self.build_lib, "boids", name)
            shutil.copyfile(path, dest)  # the file the link points to, under the plain name
            shutil.copymode(path, dest)


class Bundled(Distribution):
    def has_ext_modules(self):
        # A wheel that carries a shared library is for this platform only.
        return bool(LIBRARIES)


setup(cmdclass={"build_py": BuildWithLibraries}, distclass=Bundled)
