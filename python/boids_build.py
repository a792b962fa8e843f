# SPDX-License-Identifier: MIT
"""The package's build backend (PEP 517), in the package's own folder: it needs nothing but
the Python standard library, so `pip install ./python` works offline with no setuptools and
no `wheel` (which setuptools before 70.1 needs to build a wheel, and which Debian's python3
without python3-wheel, or a fresh virtual environment, does not have).

The wheel holds the package (boids/*.py) and, when a build is found, the shared libraries
(libboids_core.so, and libboids_gpu.so beside it) and the `boids` program, as
boids/libboids_core.so and boids/bin/boids, so that the installed package needs no
environment variable and boids.sweep() runs the program it carries. They are taken from,
first match: $BOIDS_LIBRARY_PATH, the CMake build folder `build/` beside this folder (the
README's build command), the libdir of an installed boids.pc (pkg-config); the program from
the folder of the library, or the bin/ of its prefix. A library must be of this package's
version series (boids/_find.py checks it as the package's import does). Without one the
package is built alone (a pure-Python wheel) and looks for the library at import."""

import base64
import hashlib
import importlib.util
import io
import os
import stat
import subprocess
import sys
import sysconfig
import tarfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
NAME = "boids"
SUMMARY = "Python bindings (ctypes) to the boids flocking library"
REQUIRES = ["numpy"]
EXTRAS = {"run": ["pandas"]}  # Flock.run() and sweep() return DataFrames


def _module(name):
    # The package's own files, loaded alone: importing the package would load the library.
    spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, NAME, name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _version():
    return _module("_version").__version__


def _pkg_config_libdir():
    try:
        out = subprocess.run(["pkg-config", "--variable=libdir", "boids"],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             universal_newlines=True, check=False)
    except OSError:
        return None
    return out.stdout.strip() if out.returncode == 0 and out.stdout.strip() else None


def bundled_files(version=None):
    """{path in the wheel: path on disk} of the built files to carry; empty when no library
    of this version is found (the reason on stderr)."""
    find, version = _module("_find"), version or _version()

    def candidates(stem):
        yield from find.from_env(os.environ.get("BOIDS_LIBRARY_PATH", ""), stem, version)
        yield from find.in_folder(os.path.join(os.path.dirname(HERE), "build"), stem, version)
        libdir = _pkg_config_libdir()
        if libdir:
            yield from find.in_folder(libdir, stem, version)

    lib, core, tried = find.first(candidates("boids_core"), version)
    if lib is None:
        sys.stderr.write("boids: no libboids_core.so %s to bundle (tried: %s); the package "
                         "will look for it at import\n" % (version, ", ".join(tried)))
        return {}
    found = {NAME + "/libboids_core.so": core}
    gpu = find.first(find.in_folder(os.path.dirname(core), "boids_gpu", version), version,
                     check_version=False)[1]
    if gpu:
        found[NAME + "/libboids_gpu.so"] = gpu
    libdir = os.path.dirname(core)
    for program in (os.path.join(libdir, "boids"), os.path.join(libdir, os.pardir, "bin", "boids"),
                    os.path.join(libdir, os.pardir, os.pardir, "bin", "boids")):
        if os.path.isfile(program) and os.access(program, os.X_OK):
            found[NAME + "/bin/boids"] = os.path.normpath(program)
            break
    else:
        sys.stderr.write("boids: no `boids` program beside %s to bundle; boids.sweep() will "
                         "look for it on PATH\n" % core)
    return found


def _package_files():
    """{path in the wheel: path on disk} of the package's Python files."""
    out = {}
    folder = os.path.join(HERE, NAME)
    for name in sorted(os.listdir(folder)):
        if name.endswith(".py"):
            out[NAME + "/" + name] = os.path.join(folder, name)
    return out


def _metadata(version):
    lines = ["Metadata-Version: 2.1", "Name: " + NAME, "Version: " + version,
             "Summary: " + SUMMARY, "License: See LICENSE in the boids repository",
             "Requires-Python: >=3.6"]
    lines += ["Requires-Dist: " + r for r in REQUIRES]
    for extra, reqs in EXTRAS.items():
        lines.append("Provides-Extra: " + extra)
        lines += ['Requires-Dist: %s; extra == "%s"' % (r, extra) for r in reqs]
    return "\n".join(lines) + "\n"


def _tag(binary):
    if not binary:
        return "py3-none-any"
    platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return "py3-none-" + platform


def _dist_info(version, tag):
    folder = "%s-%s.dist-info" % (NAME, version)
    wheel = ("Wheel-Version: 1.0\nGenerator: boids_build\nRoot-Is-Purelib: %s\nTag: %s\n"
             % ("true" if tag.endswith("-any") else "false", tag))
    return folder, {folder + "/METADATA": _metadata(version).encode(),
                    folder + "/WHEEL": wheel.encode()}


def _record_line(path, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (path, digest, len(data))


def _write_wheel(directory, files, version):
    binary = any(not p.endswith(".py") for p in files)
    tag = _tag(binary)
    folder, meta = _dist_info(version, tag)
    name = "%s-%s-%s.whl" % (NAME, version, tag)
    records = []
    with zipfile.ZipFile(os.path.join(directory, name), "w", zipfile.ZIP_DEFLATED) as z:
        for arc, src in sorted(files.items()):
            with open(src, "rb") as f:
                data = f.read()
            info = zipfile.ZipInfo(arc, date_time=(1980, 1, 1, 0, 0, 0))
            executable = os.access(src, os.X_OK) and not arc.endswith(".py")
            # A regular file's mode: pip makes a member executable only when it says S_IFREG.
            info.external_attr = (stat.S_IFREG | (0o755 if executable else 0o644)) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
            records.append(_record_line(arc, data))
        for arc, data in meta.items():
            z.writestr(zipfile.ZipInfo(arc, date_time=(1980, 1, 1, 0, 0, 0)), data)
            records.append(_record_line(arc, data))
        records.append(folder + "/RECORD,,")
        z.writestr(zipfile.ZipInfo(folder + "/RECORD", date_time=(1980, 1, 1, 0, 0, 0)),
                   "\n".join(records) + "\n")
    return name


# ---- the PEP 517 hooks ------------------------------------------------------------------

def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    version = _version()
    folder, meta = _dist_info(version, _tag(bool(bundled_files(version))))
    for arc, data in meta.items():
        path = os.path.join(metadata_directory, arc)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
    return folder


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    version = _version()
    files = _package_files()
    files.update(bundled_files(version))
    return _write_wheel(wheel_directory, files, version)


def build_sdist(sdist_directory, config_settings=None):
    """The package's source: this backend, pyproject.toml and boids/*.py (no built files)."""
    version = _version()
    base = "%s-%s" % (NAME, version)
    name = base + ".tar.gz"
    files = {"pyproject.toml": os.path.join(HERE, "pyproject.toml"),
             "boids_build.py": os.path.abspath(__file__)}
    files.update(_package_files())
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz") as t:
        for arc, src in sorted(files.items()):
            t.add(src, arcname=base + "/" + arc)
        pkg_info = _metadata(version).encode()
        info = tarfile.TarInfo(base + "/PKG-INFO")
        info.size = len(pkg_info)
        t.addfile(info, io.BytesIO(pkg_info))
    return name
