# SPDX-License-Identifier: MIT
"""Every example command in README.md, docs/*.md and bench/README.md runs as printed.

The examples are read from the documents themselves (indented code blocks, and fenced ones
marked sh, bash, console or python), so an example that stops working, or names an option
that no longer exists, fails here. Each runs from a scratch folder laid out like the source
tree (build/, tests/, python/, examples/, bench's scripts and docs' *.py link to the real
ones; docs/ holds nothing else, and it, its data/ and img/, bench/results/ and frames/ are
folders to write into), with the programs also on PATH under their installed names, under
the Xvfb display this test is started in.

What the test changes, so that the whole set takes a couple of minutes on two cores; each
rule keeps the command's options and their meaning:
  - counts of work are cut: --steps to at most 20 (with --burn-in, --sample-every and
    --every shrunk to fit inside them), --frames to at most 3, --seeds to at most 2, a
    viewer without --frames gets --frames 3, boids-bench runs --quick with its sizes cut to
    500 and 2000, mpirun starts 2 ranks, bench/mpi_scaling.py times 2000 and 4000 boids
    on 1 and 2 ranks for 5 steps, bench/mpi_memory.py measures 2000 boids;
  - the machine's facts: one monitor (--monitor N becomes 0), --baseline names this build's
    own boids-bench, /etc/boids/installation.ini is ./installation.ini;
  - the user's own files the documents name but do not write: installation.ini,
    my_analysis.py and my_sweep.py are small fixtures made here (FIXTURES).
Skipped, each for a reason it prints: the synopsis lines of the command table ([OPTIONS],
"..."), C source blocks (the install test builds examples/minimal.c), and the set-up and
install commands (.ci/install-deps, cmake, cc, export: CI runs the set-up commands
themselves, and tests/install_test.py the install and pkg-config ones), and the NVIDIA
script bench/run-on-gpu.sh.

Usage: examples_test.py SOURCE_DIR BUILD_DIR PYTHON (a Python with NumPy, for the package)
"""
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import check, finish  # noqa: E402

DOCS = ["README.md", "bench/README.md"]
RUNS = ("build/", "boids", "mpirun", "python3", "PYTHONPATH=", "BOIDS_LIBRARY_PATH=",
        "oscsend", "v/bin/", "awk ", "mkdir -p /tmp/")
# (mkdir -p /tmp/...: the scratch folders a document's commands then write into, such as the
# folder a sweep's --series-dir must name.)
# The system's tools run as printed: nothing of theirs to cut, and their quoted programs (awk's
# ||, its >) are not for the splitting below, which knows only the shell's own | && and >.
VERBATIM = ("awk ",)
SKIPS = ((".ci/", "the set-up commands: CI runs them as they are printed"),
         ("cmake ", "a build or install step: CI and tests/install_test.py run these"),
         ("cc ", "the pkg-config build: tests/install_test.py runs it against a prefix"),
         ("export ", "the pkg-config set-up: tests/install_test.py runs it against a prefix"),
         ("bench/run-on-gpu.sh", "the NVIDIA script: it needs EGL's device platform"))
FIXTURES = {
    "installation.ini": "# an installation's own settings\ncount = 2000\nalignment_weight = 1.2\n",
    "my_analysis.py": "import boids\nwith boids.Flock(preset='classic', seed=7) as f:\n"
                      "    f.step(10)\n    print(f.steps, f.observables()['order'])\n",
    # docs/research.md prints this script, as it is here, before it runs it under mpirun
    "my_sweep.py": 'import boids\n\ntable = boids.sweep({"noise": [0.5, 2, 4]}, preset="vicsek", '
                   'n=100, seeds=4, steps=200,\n                    backend="cpu", threads=1)\n'
                   'print(table[["noise", "order_mean", "order_se"]])\n',
}
TIMEOUT = 240  # seconds for one example: the longest cut example takes well under a minute


def blocks(path):
    """(line number, kind, text lines) of each code block: kind 'python' or 'shell'."""
    lines = open(path).read().split("\n")
    out, i = [], 0
    while i < len(lines):
        m = re.match(r"^\s*```(\w*)", lines[i])
        if m:
            lang, start, body = m.group(1), i + 1, []
            i += 1
            while i < len(lines) and not lines[i].strip().startswith("```"):
                body.append(lines[i])
                i += 1
            if lang == "python":
                out.append((start + 1, "python", body))
            elif lang in ("sh", "bash", "console", ""):
                out.append((start + 1, "shell", body))
            i += 1
            continue
        if lines[i].startswith("    ") and (i == 0 or not lines[i - 1].strip()):
            start, body = i, []
            while i < len(lines) and (lines[i].startswith("    ") or not lines[i].strip()):
                body.append(lines[i][4:])
                i += 1
            out.append((start + 1, "shell", body))
            continue
        i += 1
    return out


def commands(start, body):
    """(line number, command) of a shell block: continuations joined; in a block with `$ `
    prompts only the prompted lines are commands (the others are their output)."""
    prompted = any(line.startswith("$ ") for line in body)
    out, i = [], 0
    while i < len(body):
        line, first = body[i].rstrip(), i
        if prompted:
            if not line.startswith("$ "):
                i += 1
                continue
            line = line[2:]
        while line.endswith("\\") and i + 1 < len(body):
            i += 1
            line = line[:-1].rstrip() + " " + body[i].strip()
        if line.strip():
            out.append((start + first, line.strip()))
        i += 1
    return out


def cut(words):
    """The command with its counts of work cut (see the module's text)."""
    def value(flag):
        return int(words[words.index(flag) + 1]) if flag in words else None

    def put(flag, v):
        words[words.index(flag) + 1] = str(v)

    steps = value("--steps")
    if steps is not None and steps > 20:
        put("--steps", 20)
        burn = value("--burn-in")
        if burn is not None:
            put("--burn-in", 10)
        if value("--sample-every") is not None:
            put("--sample-every", min(value("--sample-every"), 5))
        if value("--every") is not None:
            put("--every", min(value("--every"), 10))
    for flag, most in (("--frames", 3), ("--seeds", 2)):
        if value(flag) is not None and value(flag) > most:
            put(flag, most)
    if "--monitor" in words:
        put("--monitor", 0)
    return words


def rewrite(cmd, build):
    """The shell line to run for one documented command."""
    if cmd.startswith(VERBATIM):
        return cmd
    cmd = cmd.replace("/etc/boids/installation.ini", "installation.ini")
    cmd = re.sub(r"\s+#.*$", "", cmd)  # a trailing comment
    background = cmd.endswith("&")
    out = []
    for part in re.split(r"(\s*\|\s*|\s*&&\s*|\s*>\s*/dev/null|\s*&\s*$)", cmd):
        words = shlex.split(part) if part.strip() and part.strip() not in "|&&" else None
        if not words or part.strip().startswith(">"):
            out.append(part)
            continue
        prog = next((w for w in words if "=" not in w), "")
        name = os.path.basename(prog)
        if name == "mpirun":
            k = words.index("-n") + 1
            words[k] = "2"
            words[k + 1:k + 1] = ["--oversubscribe"] + (["--allow-run-as-root"] if os.getuid() == 0
                                                else [])
        if {"boids", "boids-bench", "boids-mpi"} & {os.path.basename(w) for w in words}:
            words = cut(words)
        if name == "boids" and len(words) > 1 and words[words.index(prog) + 1] == "view":
            if "--frames" not in words:
                # In the background, long enough for the commands sent to it to arrive.
                words += ["--frames", "120" if background else "3"]
        if name == "boids-bench":
            if "--baseline" in words:
                words[words.index("--baseline") + 1] = os.path.join(build, "bench", "boids-bench")
            for flag in ("-N", "--sizes"):
                if flag in words:
                    words[words.index(flag) + 1] = "500,2000"
            if "--quick" not in words:
                words.append("--quick")
        if any(w.endswith("mpi_scaling.py") for w in words):
            # the scaling table's runs: small flocks on 1 and 2 ranks, a few steps
            for flag, v in (("--sizes", "2000,4000"), ("--ranks", "1,2"), ("--weak", "1000"),
                            ("--steps", "5")):
                if flag in words:
                    words[words.index(flag) + 1] = v
        if any(w.endswith("mpi_memory.py") for w in words) and "--sizes" in words:
            words[words.index("--sizes") + 1] = "2000"  # the memory table's runs: a small flock
        if name == "osc_soak.py" or "osc_soak.py" in " ".join(words):
            k = next(i for i, w in enumerate(words) if w.endswith("osc_soak.py")) + 2
            words[k] = "5"  # seconds: the hour-long soak's harness, not its hour
        out.append(" ".join(shlex.quote(w) for w in words))
    return "".join(out)


def scratch(source, build, python):
    d = tempfile.mkdtemp(prefix="boids-examples-")
    for name, target in (("build", build), ("tests", os.path.join(source, "tests")),
                         ("examples", os.path.join(source, "examples"))):
        os.symlink(target, os.path.join(d, name))
    # A copy: `pip install ./python` builds inside the folder it is given.
    shutil.copytree(os.path.join(source, "python"), os.path.join(d, "python"),
                    ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "build"))
    for sub in ("docs/data", "docs/img", "bench/results", "frames", "bin"):
        os.makedirs(os.path.join(d, sub), exist_ok=True)
    # the benchmark's scripts the documents run
    for script in ("mpi_scaling.py", "mpi_memory.py", "mpi_model.py"):
        os.symlink(os.path.join(source, "bench", script), os.path.join(d, "bench", script))
    for script in sorted(f for f in os.listdir(os.path.join(source, "docs"))
                         if f.endswith(".py")):  # the documents' plotting scripts
        os.symlink(os.path.join(source, "docs", script), os.path.join(d, "docs", script))
    for name, path in (("boids", "boids"), ("boids-bench", "bench/boids-bench"),
                       ("boids-mpi", "boids-mpi"), ("python3", python)):
        target = path if os.path.isabs(path) else os.path.join(build, path)
        if os.path.exists(target):
            os.symlink(target, os.path.join(d, "bin", name))
    for name, text in FIXTURES.items():
        with open(os.path.join(d, name), "w") as f:
            f.write(text)
    return d


def run_one(where, label, script, env):
    t0 = time.time()
    try:
        p = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", script], cwd=where, env=env,
                           capture_output=True, text=True, timeout=TIMEOUT)
        ok, tail = p.returncode == 0, (p.stderr or p.stdout)[-1500:]
    except subprocess.TimeoutExpired:
        ok, tail = False, f"still running after {TIMEOUT} s"
    check(f"{label} ({time.time() - t0:.1f} s)", ok, f"\n  ran: {script}\n  {tail}")


def main():
    source, build, python = sys.argv[1:4]
    docs = DOCS + sorted("docs/" + f for f in os.listdir(os.path.join(source, "docs"))
                         if f.endswith(".md"))
    ran = 0
    for doc in docs:
        # Each document in a folder of its own: its examples build on each other (a state
        # saved, then loaded), never on another document's.
        where = scratch(source, build, python)
        env = dict(os.environ, PATH=os.path.join(where, "bin") + ":" + os.environ["PATH"],
                   MPLBACKEND="Agg")
        session = []  # a document's Python blocks read as one session, in order
        for start, kind, body in blocks(os.path.join(source, doc)):
            if kind == "python":
                session += body
                script = "PYTHONPATH=python BOIDS_LIBRARY_PATH=build python3 - <<'EOF'\n" + \
                    "\n".join(session) + "\nEOF"
                run_one(where, f"{doc}:{start}: python block", script, env)
                ran += 1
                continue
            cmds = commands(start, body)
            if any("[OPTIONS]" in cmd for _, cmd in cmds):
                print(f"skip {doc}:{start}: the command table, a synopsis")
                continue
            if any(cmd.endswith("&") for _, cmd in cmds):
                # A program started in the background and the commands that talk to it: one
                # script, which waits for the last one started and fails with it, and ends
                # the others (a listener such as oscdump runs until it is stopped).
                script = "trap 'kill $(jobs -p) 2>/dev/null || true' EXIT\n" + "\n".join(
                    rewrite(c, build) + (" pid=$!" if c.endswith("&") else "")
                    for _, c in cmds) + "\nwait $pid"
                run_one(where, f"{doc}:{start}: a block with a background program", script, env)
                ran += 1
                continue
            for line, cmd in cmds:
                label = f"{doc}:{line}: {cmd[:70]}"
                if re.search(r"\s\.\.\.(\s|$)", cmd):
                    print(f"skip {label}: a synopsis, not a command")
                    continue
                skip = next((why for head, why in SKIPS if cmd.startswith(head)), None)
                if skip:
                    print(f"skip {label}: {skip}")
                    continue
                if not cmd.startswith(RUNS):
                    continue  # not a command line (a table, a layout listing, output)
                run_one(where, label, rewrite(cmd, build), env)
                ran += 1
        shutil.rmtree(where, ignore_errors=True)
    check(f"the documents hold examples to run ({ran})", ran >= 20)
    finish()


if __name__ == "__main__":
    main()
