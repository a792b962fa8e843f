# SPDX-License-Identifier: MIT
"""`boids view` left alone: SIGHUP reloads the config file (a broken one is refused and the
old settings stay), attract mode sends predators out after a while without input and an OSC
control hands it back, and SIGTERM closes the window cleanly (exit 0, --stats printed).

Usage: life_test.py BOIDS. Exit 77 means skipped (no xvfb-run or oscsend), a failure
instead with BOIDS_REQUIRE_GPU set (tests/harness.py)."""
import os
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.dirname(HERE)]
import harness  # noqa: E402

BOIDS = os.path.abspath(sys.argv[1])


def child_named(parent, name, seconds=60):
    """The pid of the process `name` below `parent` (xvfb-run runs the viewer as its child)."""
    end = time.time() + seconds
    while time.time() < end:
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                with open(f"/proc/{pid}/stat") as f:
                    fields = f.read().rsplit(")", 1)
                comm = fields[0].split("(", 1)[1]
                ppid = int(fields[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            if comm == name and (ppid == parent or child_of(ppid, parent)):
                return int(pid)
        time.sleep(0.2)
    return None


def child_of(pid, parent):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1]) == parent
    except (OSError, ValueError, IndexError):
        return False


def main():
    harness.need_osc_tools("xvfb-run", "oscsend")
    tmp = harness.tmpdir()
    cfg, err_path = os.path.join(tmp, "live.ini"), os.path.join(tmp, "stderr.txt")
    with open(cfg, "w") as f:
        f.write("alignment_weight = 1.5\nobstacle = circle 100 100 20\n")
    port = harness.free_udp_port()
    viewer = subprocess.Popen(
        ["xvfb-run", "-a", "-s", "-screen 0 1024x768x24", BOIDS, "view", "-n", "200", "-v",
         "--size", "480x320", "--steps-per-frame", "1", "--config", cfg, "--attract", "2",
         "--osc-port", str(port), "--stats"],
        stdout=subprocess.PIPE, stderr=open(err_path, "w"), text=True)
    try:
        pid = child_named(viewer.pid, "boids")
        up = pid is not None and harness.wait_for(err_path, "boids view: ", 120)
        harness.check("the viewer starts", up)
        if not up:
            harness.finish()
        with open(cfg, "w") as f:
            f.write("alignment_weight = 2.75\nobstacle = circle 100 100 20\n"
                    "obstacle = segment 0 0 50 50\n")
        os.kill(pid, signal.SIGHUP)
        harness.check("SIGHUP reloads the config",
                      harness.wait_for(err_path, "SIGHUP: reloaded", 60))
        with open(cfg, "w") as f:
            f.write("alignment_weight = banana\n")
        os.kill(pid, signal.SIGHUP)
        harness.check("a broken config is refused, the old settings stay",
                      harness.wait_for(err_path, "keeping the current settings", 60))
        # An obstacle larger than the wrapping world would fail the next step: refused.
        with open(cfg, "w") as f:
            f.write("obstacle = circle 100 100 100000\n")
        os.kill(pid, signal.SIGHUP)
        harness.check("an obstacle the world cannot take is refused on reload",
                      harness.wait_for(err_path, "plus a step", 60))
        harness.check("attract mode starts after 2 s without input",
                      harness.wait_for(err_path, "attract mode", 60))
        # An OSC control is a person's input: the wandering predators go home.
        subprocess.run(["oscsend", "127.0.0.1", str(port), "/boids/pause", "i", "0"], check=True)
        time.sleep(0.5)
        os.kill(pid, signal.SIGTERM)
        out, _ = viewer.communicate(timeout=120)
    finally:
        if viewer.poll() is None:
            viewer.kill()
    with open(err_path) as f:
        err = f.read()
    harness.check("SIGTERM: exit 0", viewer.returncode == 0, f"exit {viewer.returncode}\n{err}")
    lines = out.strip().splitlines()
    ok = len(lines) >= 2
    harness.check("SIGTERM: --stats printed", ok, out)
    if ok:
        s = dict(zip(lines[-2].split(","), (float(v) for v in lines[-1].split(","))))
        harness.check("the reloaded alignment weight is live", s["alignment_weight"] == 2.75, str(s))
        harness.check("the reloaded obstacles are there", s["obstacles"] == 2, str(s))
        harness.check("input ended attract mode: no predator of the table is on",
                      s["predators_on"] == 0, str(s))
    shutil.rmtree(tmp, ignore_errors=True)
    harness.finish()


if __name__ == "__main__":
    main()
