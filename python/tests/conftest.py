# SPDX-License-Identifier: MIT
"""Shared fixtures: the `boids` program (BOIDS_EXE) that the results are compared with,
and a runner for it. ctest sets BOIDS_EXE, BOIDS_ABI_PROBE, BOIDS_LIBRARY_PATH,
PYTHONPATH, and for the `cmake --install` test BOIDS_CMAKE and BOIDS_BUILD_DIR
(tests/CMakeLists.txt), and BOIDS_MPIEXEC (its mpirun, when boids-mpi was built:
test_sweep.py then needs mpi4py); run by hand:

    PYTHONPATH=python BOIDS_LIBRARY_PATH=build BOIDS_EXE=build/boids \
        BOIDS_ABI_PROBE=build/tests/python_abi_probe BOIDS_CMAKE=cmake BOIDS_BUILD_DIR=build \
        python3 -m pytest python/tests
"""

import os
import subprocess

import pytest


def pytest_configure(config):
    config.addinivalue_line("markers", "venv: builds a virtual environment and installs the "
                            "package into it offline (pip --no-index)")


@pytest.fixture(scope="session")
def boids_exe():
    exe = os.environ.get("BOIDS_EXE")
    if not exe or not os.path.exists(exe):
        pytest.skip("BOIDS_EXE (the boids program to compare with) is not set")
    return exe


@pytest.fixture(scope="session")
def sim(boids_exe):
    """Runs `boids sim ARGS...` and returns its standard output. Without --backend it runs
    the backend a Flock gets without one, cpu (boids sim's own default is cpu-ref)."""

    def run(*args):
        args = [str(a) for a in args]
        if "--backend" not in args:
            args += ["--backend", "cpu"]
        r = subprocess.run([boids_exe, "sim", *args], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        return r.stdout

    return run
