# SPDX-License-Identifier: MIT
"""The package installs offline into a virtual environment that uses Debian's numpy."""

import os
import shutil
import subprocess
import sys

import pytest

import boids

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE = os.path.dirname(HERE)


@pytest.mark.venv
def test_venv_install_offline_import_and_step(tmp_path):
    # pip builds in the source folder it is given, so it gets a copy: the checkout stays clean.
    src = tmp_path / "src"
    shutil.copytree(PACKAGE, src, ignore=shutil.ignore_patterns("tests", "build", "*.egg-info",
                                                                "__pycache__"))
    venv = tmp_path / "v"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)],
                   check=True)
    py = str(venv / "bin" / "python")
    env = dict(os.environ, PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INDEX="1")
    env.pop("PYTHONPATH", None)  # the import below must find the installed copy
    env["BOIDS_LIBRARY_PATH"] = boids.library_path()
    # --no-index: nothing is fetched; setuptools and numpy come from the system site.
    subprocess.run([py, "-m", "pip", "install", "-q", "--no-index", "--no-build-isolation",
                    str(src)], check=True, env=env, cwd=tmp_path)
    code = ("import boids, sys; f = boids.Flock(preset='classic', seed=7); f.step(3); "
            "print(boids.__file__); print(f.state.shape); f.close()")
    out = subprocess.run([py, "-c", code], check=True, env=env, cwd=tmp_path,
                         capture_output=True, text=True).stdout.split("\n")
    assert out[0].startswith(str(venv)) and out[1] == "(80, 4)"
