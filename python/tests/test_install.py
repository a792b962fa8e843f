# SPDX-License-Identifier: MIT
"""Installed either way, the package finds its library with no environment variable:
`pip install --no-index ./python` (offline, through the package's own build backend, which
needs no setuptools and no `wheel`) bundles the built library and the `boids` program into
the package, and `cmake --install` puts the package under the prefix with the library folder
recorded relative to it. From the source tree, PYTHONPATH=python alone finds ../build."""

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


# boids.sweep() from the installed package, with no BOIDS_PROGRAM: the program it runs, and
# the table's rows (2 noises).
SWEEP_PROBE = ("import boids; from boids.sweep import program; print(program()); "
               "t = boids.sweep({'noise': [0.5, 3]}, preset='vicsek', counts=[50], steps=20, "
               "seeds=1); print(len(t))")


def bare_env(**extra):
    env = {k: v for k, v in os.environ.items() if k not in ("BOIDS_LIBRARY_PATH", "PYTHONPATH")}
    env.update(extra)
    return env


def build_dir():
    """The CMake build folder: ctest passes it; by hand, the folder of the library in use."""
    return os.path.abspath(os.environ.get("BOIDS_BUILD_DIR")
                           or os.path.dirname(boids.library_path()))


def checkout(tmp_path):
    """The README's layout in tmp_path/checkout: the package's folder beside the CMake build
    folder `build` (a link to this build). pip builds in the folder it is given, so it gets
    a copy: the real checkout stays clean."""
    src = tmp_path / "checkout" / "python"
    shutil.copytree(PACKAGE, src, ignore=shutil.ignore_patterns("tests", "build", "*.egg-info",
                                                                "__pycache__", "*.so"))
    os.symlink(build_dir(), tmp_path / "checkout" / "build")
    return src


def pip_install(tmp_path, *venv_flags, pip_flags=()):
    """A virtual environment in tmp_path/v with the checkout's package installed offline
    (--no-index: nothing is fetched), the checkout removed afterwards; its python."""
    src = checkout(tmp_path)
    venv = tmp_path / "v"
    subprocess.run([sys.executable, "-m", "venv", *venv_flags, str(venv)], check=True)
    py = str(venv / "bin" / "python")
    env = bare_env(PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INDEX="1")
    subprocess.run([py, "-m", "pip", "install", "-q", "--no-index", *pip_flags, str(src)],
                   check=True, env=env, cwd=tmp_path)
    shutil.rmtree(tmp_path / "checkout")  # the installed package depends on nothing there
    return py, env, str(venv)


def probe(py, env, cwd, script=PROBE):
    return subprocess.run([py, "-c", script], check=True, env=env, cwd=cwd,
                          capture_output=True, text=True).stdout.split("\n")


@pytest.mark.venv
def test_pip_install_bundles_the_library_and_the_program(tmp_path):
    # numpy and pandas from the system site (Debian's python3-numpy, python3-pandas); the
    # package's build backend needs nothing, so build isolation stays on.
    py, env, venv = pip_install(tmp_path, "--system-site-packages")
    out = probe(py, env, tmp_path)
    site = os.path.dirname(out[0])
    assert site.startswith(venv) and out[1] == os.path.join(site, "libboids_core.so")
    assert out[2] == "3"
    # boids.sweep() runs the `boids` the package carries: no BOIDS_PROGRAM, none on PATH.
    env["PATH"] = os.path.dirname(py)
    out = probe(py, env, tmp_path, SWEEP_PROBE)
    assert out[0] == os.path.join(site, "bin", "boids") and out[1] == "2"


@pytest.mark.venv
def test_pip_install_offline_with_no_wheel_and_no_system_site(tmp_path):
    # A bare environment: pip alone (and the setuptools of ensurepip), no `wheel`, which
    # setuptools before 70.1 needs to build any wheel; the package's backend does without.
    # --no-deps: numpy cannot come from an index offline; import and stepping need none.
    py, env, venv = pip_install(tmp_path, pip_flags=("--no-deps",))
    assert subprocess.run([py, "-c", "import wheel"], env=env, capture_output=True).returncode
    out = probe(py, env, tmp_path, PROBE + "; from boids.sweep import program; print(program())")
    site = os.path.dirname(out[0])
    assert site.startswith(venv) and out[1] == os.path.join(site, "libboids_core.so")
    assert out[2] == "3" and out[3] == os.path.join(site, "bin", "boids")


def test_source_tree_needs_pythonpath_alone(tmp_path):
    # PYTHONPATH=python from the checkout's root, nothing else: python/../build is found,
    # the library and, for sweep(), the program beside it.
    checkout(tmp_path)
    root = tmp_path / "checkout"
    out = probe(sys.executable, bare_env(PYTHONPATH="python"), root,
                PROBE + "; from boids.sweep import program; print(program())")
    assert out[0] == str(root / "python" / "boids" / "__init__.py")
    assert out[1] == str(root / "build" / "libboids_core.so") and out[2] == "3"
    assert out[3] == str(root / "build" / "boids")


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
