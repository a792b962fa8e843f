# SPDX-License-Identifier: MIT
"""Tiny helpers shared by the Python test drivers: run the program, check, report."""
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

FAILURES = []


def run(*args, check_rc=None, **kw):
    p = subprocess.run([str(a) for a in args], capture_output=True, text=True, **kw)
    if check_rc is not None and p.returncode != check_rc:
        raise AssertionError(f"{' '.join(map(str, args))}: exit {p.returncode}, expected {check_rc}\n"
                             f"stdout: {p.stdout[-2000:]}\nstderr: {p.stderr[-2000:]}")
    return p


def check(name, cond, detail=""):
    print(("ok   " if cond else "FAIL ") + name + (f": {detail}" if detail and not cond else ""))
    if not cond:
        FAILURES.append(name)


def one_message(name, p, words, rc=2):
    """Checks that the run p ended with exit code rc (2: bad input, refused before any work)
    and one line on stderr naming each of words (what is wrong and where)."""
    msg = (p.stderr or "").strip()
    check(f"{name}: exit code {rc}", p.returncode == rc,
          f"exit {p.returncode}, stderr {msg[:600]!r}")
    check(f"{name}: one line naming {words}",
          len(msg.splitlines()) == 1 and all(w in msg for w in words), repr(msg[:600]))


def read_state(path):
    """The boids of a state file: the rows after the header, past an optional `# step=K` line."""
    with open(path) as f:
        lines = [line for line in f.read().splitlines() if not line.startswith("#")]
    return [[float(v) for v in line.split(",")[:4]] for line in lines[1:]]


def gpu_required():
    """True when BOIDS_REQUIRE_GPU is set (to anything but "" or "0"): CI sets it on its
    llvmpipe machines, where a missing GL context or display is a broken setup to report,
    not a reason to skip (tests/require_gpu.h is the C side)."""
    return os.environ.get("BOIDS_REQUIRE_GPU", "") not in ("", "0")


def runnable_backends(boids):
    """cpu-ref and cpu, and gpu where a GL 4.3 context can be made (a missing one fails the
    test under BOIDS_REQUIRE_GPU, else the gpu is skipped with its reason)."""
    gpu = run(boids, "sim", "--backend", "gpu", "-n", "10", "--steps", "1")
    if gpu.returncode != 0:
        check(f"gpu: a GL 4.3 context ({gpu.stderr.strip()})", not gpu_required())
        print(f"skip gpu: no GL 4.3 context ({gpu.stderr.strip()})")
    return ["cpu-ref", "cpu"] + (["gpu"] if gpu.returncode == 0 else [])


def skip(reason):
    """Ends the test as skipped (exit 77, ctest's SKIP_RETURN_CODE here), or as failed when
    gpu_required()."""
    if gpu_required():
        print(f"FAIL: {reason}; BOIDS_REQUIRE_GPU is set, so this fails instead of skipping")
        sys.exit(1)
    print(f"SKIP: {reason}; set BOIDS_REQUIRE_GPU=1 to make this a failure")
    sys.exit(77)


def need_osc_tools(*tools):
    """Skips (or fails, see skip) unless each program is on PATH: the OSC tests' Xvfb and
    liblo command-line tools."""
    for tool in tools:
        if not shutil.which(tool):
            skip(f"{tool} not found (Debian packages xvfb, liblo-tools)")


def species_of_ids(values, n):
    """Each of the n boids' species by the parameters values (a sidecar's): species s = 1 ..
    S-1 holds the ids after the lower species' (species_count.s of them), species 0 the rest
    (docs/model.md, "Species")."""
    kinds, out, end = int(values.get("species", 1)), [0] * n, 0
    for s in range(1, kinds):
        count = int(values[f"species_count.{s}"])
        out[end:end + count] = [s] * len(out[end:end + count])
        end += count
    return out


def tmpdir():
    return tempfile.mkdtemp(prefix="boids-test-")


def write_file(folder, name, data):
    """Writes data (bytes, or text as UTF-8) to folder/name; returns the path."""
    path = os.path.join(folder, name)
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())
    return path


def finish():
    if FAILURES:
        print(f"{len(FAILURES)} check(s) failed: {', '.join(FAILURES)}")
        sys.exit(1)
    print("all checks passed")
    sys.exit(0)


def wait_for(path, text, seconds):
    """Whether `text` appears in the file at `path` within `seconds` (polled every 0.2 s)."""
    end = time.time() + seconds
    while time.time() < end:
        with open(path) as f:
            if text in f.read():
                return True
        time.sleep(0.2)
    return False


def osc_viewer(boids, tmp, args, stderr=subprocess.PIPE):
    """`boids view ARGS` under Xvfb, listening for OSC on a free port and sending its
    observables and replies to an oscdump that writes them to TMP/dump.txt. Returns
    (viewer, listener, port_in, dump path); the caller kills both processes."""
    dump = os.path.join(tmp, "dump.txt")
    port_in, port_out = free_udp_port(), free_udp_port()
    listener = subprocess.Popen(["oscdump", "-L", str(port_out)], stdout=open(dump, "w"),
                                stderr=subprocess.STDOUT)
    viewer = subprocess.Popen(
        ["xvfb-run", "-a", "-s", "-screen 0 1024x768x24", boids, "view", *map(str, args),
         "--osc-port", str(port_in), "--osc-send", f"127.0.0.1:{port_out}"],
        stdout=subprocess.PIPE, stderr=stderr, text=True)
    return viewer, listener, port_in, dump


def osc_send(port, path, types="", *args):
    """One OSC message to 127.0.0.1:port with liblo's oscsend (`types` as oscsend takes it)."""
    subprocess.run(["oscsend", "127.0.0.1", str(port), path, types, *map(str, args)],
                   check=True, timeout=10)


def view_stats(out):
    """The --stats of a viewer's stdout (its last two lines, names then values) as a dict."""
    lines = out.strip().splitlines()
    return dict(zip(lines[-2].split(","), (float(v) for v in lines[-1].split(","))))


def osc_session(boids, args, drive, up_name):
    """`boids view ARGS` under OSC control (osc_viewer): skips (see skip) without xvfb-run,
    oscsend or oscdump (Debian packages xvfb, liblo-tools); once the viewer's first
    observables reach the dump (checked as up_name), calls drive(port_in, dump path), which
    ends with /boids/quit; checks that the viewer then ends with exit 0. Both processes are
    killed whatever happens, and the temporary folder is removed after an exit 0. Returns
    (drive's result, None when the viewer never came up; the viewer's stdout, its stderr,
    its exit code; the lines oscdump wrote)."""
    need_osc_tools("xvfb-run", "oscsend", "oscdump")
    tmp = tmpdir()
    viewer, listener, port_in, dump = osc_viewer(boids, tmp, args)
    try:
        up = wait_for(dump, "/boids/observables", 120)
        check(up_name, up)
        got = drive(port_in, dump) if up else None
        out, err = viewer.communicate(timeout=120)
    finally:
        if viewer.poll() is None:
            viewer.kill()
        listener.kill()
    check("/boids/quit ends the viewer with exit 0", viewer.returncode == 0,
          f"exit {viewer.returncode}\n{err[-2000:]}")
    with open(dump) as f:
        lines = f.read().splitlines()
    if viewer.returncode == 0:
        shutil.rmtree(tmp, ignore_errors=True)
    return got, out, err, viewer.returncode, lines


def free_udp_port():
    """A UDP port on 127.0.0.1 the kernel says is free; it could be taken again before the
    program under test binds it, which that program reports (exit 2) rather than hang."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
