# SPDX-License-Identifier: MIT
"""boids as a subproject (add_subdirectory): tests/subproject/ checks at configure time that
only the libraries come along and that the parent's build type is left alone; its program
then builds against boids::core and runs.

Usage: subproject_test.py CMAKE SOURCE_DIR CC BUILD_GPU (ON or OFF, as in this build)"""
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import check, run  # noqa: E402


def main():
    cmake, source, cc, gpu = sys.argv[1:5]
    build = os.path.join(harness.tmpdir(), "parent")
    p = run(cmake, "-S", os.path.join(source, "tests", "subproject"), "-B", build,
            f"-DBOIDS_SOURCE_DIR={source}", f"-DCMAKE_C_COMPILER={cc}", f"-DBOIDS_BUILD_GPU={gpu}")
    check("parent configures (libraries only, its build type kept)", p.returncode == 0,
          p.stdout[-1500:] + p.stderr[-1500:])
    if p.returncode == 0:
        p = run(cmake, "--build", build, "--target", "parent")
        check("parent builds against boids::core", p.returncode == 0, p.stdout[-2000:])
        p = run(os.path.join(build, "parent"))
        check("parent runs", p.returncode == 0 and "order after 100 steps" in p.stdout,
              p.stdout + p.stderr)
    shutil.rmtree(os.path.dirname(build), ignore_errors=True)
    harness.finish()


if __name__ == "__main__":
    main()
