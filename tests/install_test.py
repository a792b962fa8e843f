# SPDX-License-Identifier: MIT
"""The library as another project uses it: `cmake --install` into a temporary prefix, then
  - every installed shared library exports only boids_ symbols (nm -D --defined-only), none
    of the support library's, and has a versioned SONAME file beside it; the support
    library's headers are not installed;
  - examples/consumer, a separate CMake project, finds it with find_package(boids 0.4),
    builds and runs;
  - examples/minimal.c builds with the README's `cc ... $(pkg-config --cflags --libs boids)
    -Wl,-rpath,$(pkg-config --variable=libdir boids)` and runs with no LD_LIBRARY_PATH;
  - a host that defines glad's names itself (its own loader) links with libboids_gpu, the
    shared and the static one, without "multiple definition" errors.
Every link flag comes from the installed package (its pkg-config files or its CMake targets),
none is named here: a dependency the build drops or adds reaches the consumers through the
package, and a .pc file that lacks one fails this test.

Usage: install_test.py CMAKE BUILD_DIR SOURCE_DIR CC [SANITIZE_FLAGS]
(the flags of a -DBOIDS_SANITIZE=ON build: its libraries need the sanitizer runtime in every
program that links them, so the consumers are built with the same flags)."""
import glob
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import check, run  # noqa: E402


# A host program with its own GL loader under glad's own names (a function and a pointer):
# before the loader was private, linking it with libboids_gpu failed with "multiple
# definition" errors (and the static archive still offers them unless they are made local).
HOST_WITH_OWN_GLAD = r"""
#include <stdio.h>
#include <boids/boids.h>
void *glad_glGetIntegerv;
int gladLoadGL(void *load) { return load != NULL; }
int main(void) {
    boids_gpu_options o = boids_gpu_options_default();
    printf("own loader %d, boids %s, deterministic %d\n", gladLoadGL(NULL), boids_version(),
           o.deterministic);
    return 0;
}
"""


def exported(lib):
    out = run("nm", "-D", "--defined-only", lib, check_rc=0).stdout.split()
    return [s for s in out[2::3]]


def main():
    cmake, build, source, cc = sys.argv[1:5]
    san = sys.argv[5].split() if len(sys.argv) > 5 and sys.argv[5] else []
    tmp = harness.tmpdir()
    prefix = os.path.join(tmp, "prefix")
    run(cmake, "--install", build, "--prefix", prefix, check_rc=0)
    libdir = next(d for d in (os.path.join(prefix, "lib"), os.path.join(prefix, "lib64"))
                  if os.path.isdir(d))
    for name in ("boids/boids.h", "boids/version.h", "boids/gpu.h"):
        check(f"header {name} installed", os.path.isfile(os.path.join(prefix, "include", name)))
    # The support library (src/support) is the project's own: none of its headers installed.
    for name in ("atomic_file.h", "ini.h", "text_lines.h"):
        found = glob.glob(os.path.join(prefix, "include", "**", name), recursive=True)
        check(f"support header {name} not installed", not found, str(found))
    for program in ("boids", "boids-bench", "boids-mpi"):
        if os.path.isfile(os.path.join(build, program)) or \
                os.path.isfile(os.path.join(build, "bench", program)):
            check(f"{program} program installed",
                  os.path.isfile(os.path.join(prefix, "bin", program)))
    check("LICENSE installed", bool(glob.glob(os.path.join(prefix, "share/doc/*/LICENSE"))))

    for lib in ("boids_core", "boids_gpu"):
        check(f"lib{lib}.a installed", os.path.isfile(os.path.join(libdir, f"lib{lib}.a")))
        so = os.path.join(libdir, f"lib{lib}.so")
        soname = run("objdump", "-p", so, check_rc=0).stdout
        check(f"lib{lib}.so has the SONAME lib{lib}.so.0.4 (0.x: the minor version breaks)",
              f"SONAME               lib{lib}.so.0.4\n" in soname and os.path.exists(so + ".0.4"),
              soname[:300])
        syms = exported(so)
        # AddressSanitizer adds an ODR indicator (__odr_asan.NAME) for each exported global
        # of an instrumented build: the sanitizer's, not the library's.
        others = [s for s in syms if not s.startswith(("boids_", "__odr_asan.boids_"))]
        check(f"lib{lib}.so exports boids_ symbols only", syms and not others,
              f"{len(others)} others, e.g. {others[:5]}")
        # Internal functions, the support library's (atomic files, the INI reader) among them.
        internal = [s for s in syms if s.endswith("_unchecked")
                    or s.startswith(("boids_atomic_", "boids_ini_", "text_"))]
        check(f"lib{lib}.so keeps its internal functions hidden", not internal, str(internal))

    # No LD_LIBRARY_PATH anywhere below: a consumer of a non-system prefix finds the
    # libraries through the rpath its build records (CMake's for imported targets, the
    # README's -Wl,-rpath for pkg-config).
    env = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
    consumer = os.path.join(tmp, "consumer")
    run(cmake, "-S", os.path.join(source, "examples", "consumer"), "-B", consumer,
        f"-DCMAKE_PREFIX_PATH={prefix}", f"-DCMAKE_C_COMPILER={cc}",
        f"-DCMAKE_C_FLAGS={' '.join(san)}", check_rc=0)
    run(cmake, "--build", consumer, check_rc=0)
    p = run(os.path.join(consumer, "consumer"), env=env)
    check("find_package consumer runs", p.returncode == 0 and "boids 0.4" in p.stdout,
          p.stdout + p.stderr)
    p = run(os.path.join(consumer, "consumer_gpu"), env=env)
    check("find_package consumer links boids::gpu", p.returncode == 0 and "GPU library" in p.stdout,
          p.stdout + p.stderr)

    pc_env = dict(env, PKG_CONFIG_PATH=os.path.join(libdir, "pkgconfig"))

    def pkg_config(*args):
        return run("pkg-config", *args, env=pc_env, check_rc=0).stdout.split()

    exe = os.path.join(tmp, "minimal")
    rpath = "-Wl,-rpath," + pkg_config("--variable=libdir", "boids")[0]
    run(cc, *san, "-std=c11", "-Wall", "-Wextra", "-pedantic", "-Werror",
        os.path.join(source, "examples", "minimal.c"), "-o", exe,
        *pkg_config("--cflags", "--libs", "boids"), rpath, check_rc=0)
    p = run(exe, env=env)
    check("pkg-config consumer (examples/minimal.c) runs",
          p.returncode == 0 and "300,0.97" in p.stdout, p.stdout + p.stderr)
    host = os.path.join(tmp, "host.c")
    with open(host, "w") as f:
        f.write(HOST_WITH_OWN_GLAD)
    cflags = pkg_config("--cflags", "boids-gpu")
    # The static link takes pkg-config's --static flags (Libs.private: what the archives
    # need) and asks the linker for the archives of the package's own libraries by file name.
    static = [("-l:lib%s.a" % f[2:]) if f.startswith("-lboids_") else f
              for f in pkg_config("--static", "--libs", "boids-gpu")]
    for kind, libs in (("shared", pkg_config("--libs", "boids-gpu") + [rpath]),
                       ("static", static)):
        exe = os.path.join(tmp, f"host_{kind}")
        p = run(cc, *san, "-std=c11", host, *cflags, "-o", exe, *libs)
        check(f"a host with its own glad links libboids_gpu ({kind})", p.returncode == 0,
              p.stderr[-1500:])
        if p.returncode == 0:
            p = run(exe, env=env)
            check(f"that host runs ({kind})", p.returncode == 0 and "own loader" in p.stdout,
                  p.stdout + p.stderr)
    shutil.rmtree(tmp, ignore_errors=True)
    harness.finish()


if __name__ == "__main__":
    main()
