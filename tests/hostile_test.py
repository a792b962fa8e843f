#!/usr/bin/env python3
"""Hostile input (issue 11): every case gets one message naming what and where, the exit code
the README promises, and leaves no output file and no temporary file behind.

usage: hostile_test.py BOIDS_BINARY
"""
import os
import signal
import subprocess
import sys
import time

from harness import check, finish, run, tmpdir

BOIDS = sys.argv[1]
d = tmpdir()
OUT = os.path.join(d, "out.csv")  # the output every case names; it must never appear


def write(name, data):
    path = os.path.join(d, name)
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())
    return path


def leftovers():
    """Temporary files of the atomic writer, anywhere in the test folder."""
    return [os.path.join(r, f) for r, _, fs in os.walk(d) for f in fs if ".tmp" in f]


def expect(name, args, rc, words, stdout=None, outputs=(OUT,), timeout=60):
    """Runs boids with args; checks the exit code, that stderr is one line holding every word,
    and that no output file (nor any temporary) exists afterwards."""
    try:
        p = subprocess.run([BOIDS, *args], capture_output=stdout is None, stdout=stdout,
                           stderr=subprocess.PIPE if stdout is not None else None, text=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        check(f"{name}: finishes within {timeout} s", False)
        return
    msg = (p.stderr or "").strip()
    check(f"{name}: exit code {rc}", p.returncode == rc, f"exit {p.returncode}, stderr {msg!r}")
    check(f"{name}: one line naming {words}",
          len(msg.splitlines()) == 1 and all(w in msg for w in words), repr(msg[:600]))
    for o in outputs:
        check(f"{name}: no {os.path.basename(o)}", not os.path.isfile(o) or o != OUT)
    check(f"{name}: no temporary file", not leftovers(), str(leftovers()))
    if os.path.isfile(OUT):
        os.unlink(OUT)


# ---- output paths (item 4) ------------------------------------------------------------------
fifo = os.path.join(d, "fifo")
os.mkfifo(fifo)
link = os.path.join(d, "link.csv")
os.symlink(os.path.join(d, "target.csv"), link)
sim = ["sim", "--steps", "2", "-n", "10"]
for what, path, word in [("device", "/dev/null", "device"), ("folder", d, "folder"),
                         ("folder with a slash", d + "/", "folder"), ("empty path", "", "empty"),
                         ("FIFO", fifo, "FIFO"), ("symlink", link, "symbolic link")]:
    expect(f"--save onto a {what}", [*sim, "--save", path], 2, [path, word] if path else [word])
    expect(f"sweep --out onto a {what}",
           ["sweep", "--key", "noise", "--values", "1", "--steps", "2", "-n", "10", "--preset",
            "vicsek", "--out", path], 2, [path, word] if path else [word])
check("the FIFO and the link are still there", os.path.exists(fifo) and os.path.islink(link))
check("the link's target was not created", not os.path.exists(os.path.join(d, "target.csv")))
for i in range(2):
    os.makedirs(os.path.join(d, f"frame{i}.png"), exist_ok=True)
expect("render -o onto a folder", ["render", "--frames", "1", "-o", os.path.join(d, "frame%d.png")], 2,
       ["frame0.png", "folder"])

with open("/dev/full", "w") as full:
    expect("--save with stdout on a full disk", [*sim, "--save", OUT], 1, ["stdout"], stdout=full)
    expect("params with stdout on a full disk", ["params"], 1, ["stdout"], stdout=full)
    expect("presets with stdout on a full disk", ["presets"], 1, ["stdout"], stdout=full)
    expect("sim with stdout on a full disk", sim, 1, ["stdout"], stdout=full)

# ---- config files (item 2) -----------------------------------------------------------------
ini_cases = [
    ("a line longer than the limit", b"# " + b"a" * 5000 + b" width = 800\n", ["long.ini:1", "longer"]),
    ("an indented line without a key", b"width = 800\n   300\n", ["long.ini:2", "key = value"]),
    ("a NUL byte", b"width = 80\x000\n", ["long.ini:1", "NUL"]),
    ("a section", b"[world]\nwidth = 10\n", ["long.ini:1", "[world]"]),
    ("no key", b"= 5\n", ["long.ini:1", "key"]),
    ("an unknown key after a good one", b"width = 10\nbogus = 1\n", ["long.ini:2", "bogus"]),
    ("a file larger than 1 MiB", b"# comment\n" * 120000, ["long.ini", "larger"]),
]
for name, data, words in ini_cases:
    expect(f"config with {name}", [*sim, "--config", write("long.ini", data), "--save", OUT], 2, words)
expect("config /dev/zero", [*sim, "--config", "/dev/zero", "--save", OUT], 2,
       ["/dev/zero", "not a regular file"], timeout=10)
expect("config is a folder", [*sim, "--config", d, "--save", OUT], 2, [d, "folder"])
deep = os.path.join(d, "x" * 200, "y" * 200)
os.makedirs(deep)
with open(os.path.join(deep, "w.ini"), "w") as f:
    f.write("width = -1\n")
expect("config under a long path keeps the key in the message",
       [*sim, "--config", os.path.join(deep, "w.ini"), "--save", OUT], 2, ["w.ini:1", "width = -1", "range"])

# The rules a config file may rely on: a BOM, indentation, comments after whitespace, CRLF.
good = write("good.ini", b"\xef\xbb\xbf# lab\r\n  width = 800 ; wide\r\n\theight = 300 # low\r\n")
p = run(BOIDS, "params", "--config", good)
vals = {l.split()[0]: l.split()[1] for l in p.stdout.splitlines()[1:]}
check("config: BOM, indentation, comments and CRLF accepted",
      p.returncode == 0 and vals.get("width") == "800" and vals.get("height") == "300", p.stderr)

# ---- parameter values (item 7, the core part) ----------------------------------------------
for name, arg, words in [
    ("noise just above 2 pi", "noise=6.28319", ["noise", "6.2831853071795862"]),
    ("noise_seed above 2^53", "noise_seed=9007199254740993", ["noise_seed", "9007199254740992"]),
    ("noise_seed not an integer", "noise_seed=1e3", ["noise_seed", "integer"]),
    ("width underflowing to 0", "width=1e-400", ["width", "out of range", "small"]),
    ("width overflowing", "width=1e400", ["width", "out of range", "large"]),
]:
    expect(name, [*sim, "--set", arg, "--save", OUT], 2, words)
p = run(BOIDS, "params", "--set", "noise_seed=9007199254740992", "--set", "wall_margin=5e-324")
check("noise_seed = 2^53 and a subnormal value are accepted", p.returncode == 0, p.stderr)

finish()
