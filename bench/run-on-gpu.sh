#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds boids on an (offline) NVIDIA machine, runs `boids verify` on the GPU (every pipeline
# variant) and the benchmark sweep of every backend and variant to 10M boids, and leaves CSV,
# JSON, plots, a log and the fastest variant per N (to pick the default from) in one folder.
#
#   bench/run-on-gpu.sh [OUT_DIR]          (default: $OUT, else ./bench-gpu-out)
#   bench/run-on-gpu.sh --prepare          (on a build machine: see "Prebuilt fallback")
#
# It installs nothing: the device machine has no network. It checks what the build needs
# (cmake, a C compiler, pkg-config, libcjson, glad, glslangValidator; gnuplot only for
# the plot) and builds in a fresh folder. If something is missing it says what, and falls back
# to a prebuilt tree carried along in build-gpu/ (made here with --prepare, which also copies
# the non-glibc shared libraries, e.g. cJSON, OpenMP, GLFW, into build-gpu/lib).
#
# Environment: BENCH_SIZES (default 1k,10k,100k,1M,10M), BENCH_BUDGET (seconds per point,
# default 60), BOIDS_PREBUILT=1 (skip the build, use build-gpu/), VERIFY_TIMEOUT (default 90), BENCH_TIMEOUT (default 240),
# BENCH3_SIZES (3-D sweep, default 10k,100k,1M,10M), ANCHOR_SIZES (3-D at the CUDA anchor's
# density, default 1M,4M,12M), BENCH3_TIMEOUT (each 3-D sweep, default 75). The timeouts of
# every check add up to 600 s; with the build the worst case exceeds one 10-minute command by
# the build's time (use BOIDS_PREBUILT=1 or lower a timeout when that matters).
set -u
here=$(cd "$(dirname "$0")/.." && pwd)

if [ "${1:-}" = "--prepare" ]; then
    # Build machine side: a Release tree plus the non-glibc shared libraries it links.
    set -e
    cmake -S "$here" -B "$here/build-gpu" -DCMAKE_BUILD_TYPE=Release -DBOIDS_BUILD_TESTS=OFF
    cmake --build "$here/build-gpu" -j"$(nproc)" --target boids boids-bench
    mkdir -p "$here/build-gpu/lib"
    for bin in "$here/build-gpu/boids" "$here/build-gpu/bench/boids-bench"; do
        # Everything but glibc itself and the GL/EGL stack, which must be the device's own.
        ldd "$bin" | awk '/=> \// {print $3}' |
            grep -v -E '/(libc|libm|libdl|libpthread|librt|ld-linux[^/]*)\.so|libGL|libEGL|libOpenGL|nvidia' |
            xargs -r -I{} cp -L {} "$here/build-gpu/lib/"
    done
    ls -l "$here/build-gpu/lib"
    echo "carry build-gpu to the device and run bench/run-on-gpu.sh there"
    exit 0
fi

out=${1:-${OUT:-$PWD/bench-gpu-out}}
mkdir -p "$out" || { echo "run-on-gpu: cannot create $out" >&2; exit 1; }
out=$(cd "$out" && pwd)
exec > >(tee -a "$out/run-on-gpu.log") 2>&1

sizes=${BENCH_SIZES:-1k,10k,100k,1M,10M}
budget=${BENCH_BUDGET:-60}

echo "== machine ($(date -u +%Y-%m-%dT%H:%M:%SZ))"
uname -a
echo "cpus: $(nproc); $(grep -m1 'model name' /proc/cpuinfo)"
grep -E 'MemTotal|MemAvailable' /proc/meminfo
uptime
if command -v nvidia-smi >/dev/null; then
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem \
        --format=csv || true
else
    echo "nvidia-smi: not found"
fi

echo "== EGL and NVIDIA libraries"
ls /usr/lib/x86_64-linux-gnu 2>/dev/null | grep -i -E 'egl|nvidia' || echo "(none in /usr/lib/x86_64-linux-gnu)"
ldconfig -p 2>/dev/null | grep -i -E 'libEGL|nvidia-egl|libEGL_nvidia' || true
ls /usr/share/glvnd/egl_vendor.d /etc/glvnd/egl_vendor.d 2>/dev/null || true
if ! ldconfig -p 2>/dev/null | grep -q 'libEGL.so.1' && ! ls /usr/lib/x86_64-linux-gnu/libEGL.so.1 >/dev/null 2>&1; then
    echo "WARNING: no libEGL.so.1: the headless GL context (EGL) cannot be created; gpu points will be skipped"
fi

echo "== prerequisites"
missing=""
for tool in cmake cc pkg-config python3 glad glslangValidator; do
    command -v "$tool" >/dev/null || missing="$missing $tool"
done
for pc in libcjson; do
    pkg-config --exists "$pc" 2>/dev/null || missing="$missing $pc(pkg-config)"
done
command -v gnuplot >/dev/null || echo "gnuplot: not found (CSV and JSON still written, plus bench.gp to plot elsewhere)"

bin=""
if [ "${BOIDS_PREBUILT:-0}" = 1 ]; then
    echo "BOIDS_PREBUILT=1: not building, using build-gpu/"
elif [ -z "$missing" ]; then
    build=$(mktemp -d "${TMPDIR:-/tmp}/boids-gpu-build.XXXXXX")
    echo "== build in $build"
    if cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Release -DBOIDS_BUILD_TESTS=OFF >"$out/cmake.log" 2>&1 &&
        cmake --build "$build" -j"$(nproc)" --target boids boids-bench >>"$out/cmake.log" 2>&1; then
        bin=$build
    else
        echo "build failed (last lines of $out/cmake.log):"
        tail -20 "$out/cmake.log"
    fi
else
    echo "cannot build here, missing:$missing"
fi
if [ -z "$bin" ] && [ -x "$here/build-gpu/bench/boids-bench" ]; then
    echo "using the prebuilt tree $here/build-gpu (made with --prepare)"
    bin=$here/build-gpu
    export LD_LIBRARY_PATH="$here/build-gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    ldd "$bin/bench/boids-bench" | grep 'not found' && echo "WARNING: libraries above are missing"
fi
if [ -z "$bin" ]; then
    echo "run-on-gpu: no build and no prebuilt build-gpu/: nothing to run" >&2
    exit 1
fi

rc=0
echo "== boids verify (gpu and gpu --deterministic against cpu-ref)"
timeout "${VERIFY_TIMEOUT:-90}" "$bin/boids" verify --backends cpu,gpu -v || { echo "verify: exit $?"; rc=1; }
timeout 60 "$bin/boids" verify --backends gpu --deterministic --seeds 0 || { echo "verify --deterministic: exit $?"; rc=1; }
for v in fused; do
    echo "== boids verify --gpu-variant $v"
    timeout 60 "$bin/boids" verify --backends gpu --gpu-variant "$v" --seeds 0 || { echo "verify --gpu-variant $v: exit $?"; rc=1; }
done

echo "== boids-bench --sizes $sizes --budget $budget"
timeout "${BENCH_TIMEOUT:-240}" "$bin/bench/boids-bench" --sizes "$sizes" --budget "$budget" \
    --out "$out" | tee "$out/bench-table.txt"
st=${PIPESTATUS[0]}
[ "$st" -eq 0 ] || { echo "boids-bench: exit $st"; rc=1; }
# 3-D: the lab preset in a box, and the CUDA coherent-grid anchor's radius and density
# (bench/README.md, "3-D"): R 5, separation 3, 5,000 boids per 200^3, wrap, grown to 12M.
echo "== boids-bench --set dim=3 (lab preset in 3-D)"
timeout "${BENCH3_TIMEOUT:-75}" "$bin/bench/boids-bench" --set dim=3 --backends cpu-all,gpu,gpu-det \
    --sizes "${BENCH3_SIZES:-10k,100k,1M,10M}" --budget "$budget" --no-plot --out "$out/dim3" |
    tee "$out/dim3-table.txt"
st=${PIPESTATUS[0]}
[ "$st" -eq 0 ] || { echo "boids-bench dim=3: exit $st"; rc=1; }
echo "== boids-bench, 3-D at the CUDA anchor's radius and density"
timeout "${BENCH3_TIMEOUT:-75}" "$bin/bench/boids-bench" --set dim=3 --set boundary=wrap \
    --set width=200 --set height=200 --set depth=200 --set vision_radius=5 \
    --set separation_radius=3 --set count=5000 --backends gpu,gpu-det \
    --sizes "${ANCHOR_SIZES:-1M,4M,12M}" --budget "$budget" --no-plot --out "$out/cuda-anchor" |
    tee "$out/cuda-anchor-table.txt"
st=${PIPESTATUS[0]}
[ "$st" -eq 0 ] || { echo "boids-bench cuda anchor: exit $st"; rc=1; }
# The data the default variant is picked from: per N and GPU mode, the variants' median ms per
# step, fastest first (bench.csv columns: backend, state, n, ..., ms_median is the 13th); a
# sweep stopped by its timeout left its points in bench.partial.csv.
csv="$out/bench.csv"
[ -f "$csv" ] || csv="$out/bench.partial.csv"
if [ -f "$csv" ]; then
    echo "== GPU variants per N (median ms per step, fastest first)"
    awk -F, 'NR > 1 && $1 ~ /^gpu/ && $2 == "ok" {
                 mode = ($1 ~ /-det$/) ? "det" : "fast"; print $3, mode, $13, $1 }' "$csv" |
        sort -k1,1n -k2,2 -k3,3g |
        awk '{ key = $1 " " $2; if (key != last) { printf "\nN=%s %-4s:", $1, $2; last = key }
               printf " %s %s ms", $4, $3 } END { print "" }' | tee "$out/variants.txt"
fi
# A PNG copy of the plots for viewers without SVG support.
if [ -f "$out/bench.gp" ] && command -v gnuplot >/dev/null; then
    (cd "$out" && sed -e "s/^set terminal svg .*/set terminal pngcairo size 1200,750 font 'sans,11' background '#ffffff'/" \
        -e "s/\.svg'/.png'/" bench.gp >bench-png.gp && gnuplot bench-png.gp) || true
fi
ls -l "$out"
exit $rc
