# SPDX-License-Identifier: MIT
"""Installed either way, the package finds its library with no environment variable:
`pip install ./python` (offline, into a virtual environment that uses Debian's numpy)
bundles the built library into the package, and `cmake --install` puts the package under
the prefix with the library folder recorded relative to it."""

import os
import shutil
import subprocess
import sys

import pytest

import boids

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE = os.path.dirname(HERE)
# Run with no BOIDS_LIBRARY_PATH and no PYTHONPATH into the source tree: what is found is
# what the installation found.
PROBE = ("import boids; f = boids.Flock(preset='classic', seed=7); f.step(3); "
         "print(boids.__file__); print(boids.library_path()); print(f.steps); f.close()")


def bare_env(**extra):
    env = {k: v for k, v in os.environ.items() if k not in ("BOIDS_LIBRARY_PATH", "PYTHONPATH")}
    env.update(extra)
    return env


def build_dir():
    """The CMake build folder: ctest passes it; by hand, the folder of the library in use."""
    return os.path.abspath(os.environ.get("BOIDS_BUILD_DIR")
                           or os.path.dirname(boids.library_path()))


@pytest.mark.venv
def test_pip_install_bundles_the_library(tmp_path):
    # The README's layout: the package's folder beside the CMake build folder `build`. pip
    # builds in the folder it is given, so it gets a copy: the checkout stays clean.
    src = tmp_path / "checkout" / "python"
    shutil.copytree(PACKAGE, src, ignore=shutil.ignore_patterns("tests", "build", "*.egg-info",
                                                                "__pycache__", "*.so"))
    os.symlink(build_dir(), tmp_path / "checkout" / "build")
    venv = tmp_path / "v"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)],
                   check=True)
    py = str(venv / "bin" / "python")
    env = bare_env(PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INDEX="1")
    # --no-index: nothing is fetched; setuptools and numpy come from the system site.
    subprocess.run([py, "-m", "pip", "install", "-q", "--no-index", "--no-build-isolation",
                    str(src)], check=True, env=env, cwd=tmp_path)
    shutil.rmtree(tmp_path / "checkout")  # the installed package depends on nothing there
    out = subprocess.run([py, "-c", PROBE], check=True, env=env, cwd=tmp_path,
                         capture_output=True, text=True).stdout.split("\n")
    site = os.path.dirname(out[0])
    assert site.startswith(str(venv)) and out[1] == os.path.join(site, "libboids_core.so")
    assert out[2] == "3"


def test_cmake_install_records_the_library_folder(tmp_path):
    cmake, build = os.environ.get("BOIDS_CMAKE"), build_dir()
    if not cmake or not os.path.isfile(os.path.join(build, "python", "_libdir.py")):
        pytest.skip("BOIDS_CMAKE unset, or this build installs no Python package")
    prefix = tmp_path / "prefix"
    for component in ("lib", "python"):  # the runtime libraries and the package, no more
        subprocess.run([cmake, "--install", build, "--prefix", str(prefix), "--component",
                        component], check=True, capture_output=True)
    # The prefix moves (an installed tree copied elsewhere): the relative record still holds.
    moved = tmp_path / "moved"
    os.rename(prefix, moved)
    found = [root for root, dirs, files in os.walk(moved) if "_libdir.py" in files]
    assert len(found) == 1
    site = os.path.dirname(found[0])
    out = subprocess.run([sys.executable, "-c", PROBE], check=True, cwd=tmp_path,
                         env=bare_env(PYTHONPATH=site), capture_output=True,
                         text=True).stdout.split("\n")
    assert out[0] == os.path.join(found[0], "__init__.py")
    # The lib component alone has the SONAME file (libboids_core.so.0.4), not the link.
    assert out[1].startswith(str(moved) + os.sep)
    assert os.path.basename(out[1]).startswith("libboids_core.so.")
    assert out[2] == "3"


def test_a_library_of_another_version_is_passed_over(tmp_path):
    # A stale libboids_core.so of another series (its structs may differ from the ctypes
    # mirrors) found first: the search goes on to the right one and says why.
    cc = os.environ.get("CC") or shutil.which("cc")
    if not cc:
        pytest.skip("no C compiler to build a stand-in library")
    src = tmp_path / "old.c"
    src.write_text('const char *boids_version(void) { return "0.2.9"; }\n')
    old = tmp_path / "libboids_core.so"
    subprocess.run([cc, "-shared", "-fPIC", "-o", str(old), str(src)], check=True)
    from boids import _find
    lib, path, tried = _find.first([str(old), boids.library_path()], boids.__version__)
    assert path == boids.library_path()
    assert tried == ["%s (version 0.2.9, the package is %s)" % (old, boids.__version__)]
    assert _find.series("0.3.1") == "0.3" and _find.series("1.4.0") == "1"
