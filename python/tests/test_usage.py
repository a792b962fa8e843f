# SPDX-License-Identifier: MIT
"""The package as a Python user drives it: Ctrl-C, types, threads, run(), save and load,
the interaction table, and the checks that keep a state inside its world."""

import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import boids
from boids import BoidsError, Flock
from boids import _lib
from test_flock import assert_bits_equal


def python(code, **kw):
    """Runs code in a fresh interpreter with this one's environment (PYTHONPATH and
    BOIDS_LIBRARY_PATH), so that a crash shows as its exit status instead of ending pytest."""
    return subprocess.Popen([sys.executable, "-c", textwrap.dedent(code)], text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)


# ---- Ctrl-C ----------------------------------------------------------------------------

INTERRUPTED = """
    import json, sys, time
    import numpy as np
    from boids import Flock
    f = Flock(preset="classic", seed=7)
    f.step(1)
    print("ready", flush=True)
    try:
        f.step(2**32 - 1)   # hours of steps
    except KeyboardInterrupt:
        caught = time.monotonic()
    steps = f.steps
    counter = int(f._download().step)   # the C state's own step counter
    with Flock(preset="classic", seed=7) as again:   # the same number of steps, uninterrupted
        same = bool(np.array_equal(again.step(steps).state, f.state))
    print(json.dumps({"caught": caught, "steps": steps, "counter": counter, "same": same}))
"""


def test_ctrl_c_interrupts_step_within_a_chunk_and_steps_agree():
    # One OpenMP thread: on an oversubscribed machine (CI, or 2 cores shared by many jobs)
    # OpenMP's spinning barrier makes a step 100 times slower at random moments (measured
    # here: an 80-boid cpu-ref step from 12 us to 5 ms), which no chunk sized from the steps
    # before can foresee; the test measures the chunking, not the machine's load.
    child = python(INTERRUPTED, env=dict(os.environ, OMP_NUM_THREADS="1"))
    assert child.stdout.readline() == "ready\n"
    time.sleep(1.0)  # long enough for the chunks to have grown to their 0.05 s
    sent = time.monotonic()  # CLOCK_MONOTONIC: one clock for both processes on Linux
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=120)
    assert child.returncode == 0, err
    r = json.loads(out)
    latency = r["caught"] - sent
    print("Ctrl-C to KeyboardInterrupt: %.3f s after %d steps" % (latency, r["steps"]))
    # A chunk is sized to 0.05 s of steps; 0.25 s allows a busy 2-core CI machine to
    # schedule the child late, and is still far below one C call of 2^32 - 1 steps.
    assert 0 <= latency < 0.25
    assert r["steps"] == r["counter"] > 1
    assert r["same"]  # steps counts exactly the steps the state took


# ---- types and text --------------------------------------------------------------------

@pytest.mark.parametrize("k", [2.5, "3", True, None, 3.0])
def test_step_takes_an_int_only(k):
    with Flock(preset="classic") as f:
        with pytest.raises(TypeError, match="int"):
            f.step(k)
        assert f.steps == 0


def test_step_takes_numpy_integers():
    with Flock(preset="classic") as f:
        f.step(np.int64(2)).step(np.uint8(1))
        assert f.steps == 3


@pytest.mark.parametrize("kw", [{"n": 2.7}, {"n": "100"}, {"n": True}, {"seed": 1.9},
                                {"seed": "1"}, {"seed": False}, {"threads": 1.5}])
def test_n_seed_threads_take_an_int_only(kw):
    with pytest.raises(TypeError, match="int"):
        Flock(preset="classic", **kw)


@pytest.mark.parametrize("kw", [{"preset": "lab\x00x"}, {"backend": "cpu\x00ref"},
                                {"boundary": "walls\x00x"}, {"fov\x00x": 100}])
def test_text_with_nul_is_refused(kw):
    with pytest.raises(BoidsError, match="NUL"):
        Flock(**kw)
    with Flock(preset="classic") as f:
        with pytest.raises(BoidsError, match="NUL"):
            f.params["boundary"] = "walls\x00"
        with pytest.raises(BoidsError, match="NUL"):
            f.save("a\x00b.csv")


def test_version_is_the_librarys():
    assert boids.__version__ == _lib.core.boids_version().decode()


def test_import_and_step_without_numpy():
    # `python3 -S`: no site folders, so no numpy (Debian keeps it in dist-packages). The docs'
    # one-liner and the parts that need no arrays work; the state says what it needs.
    code = ("import boids, sys; assert 'numpy' not in sys.modules; print(len(boids.presets()));"
            "f = boids.Flock(preset='classic', seed=7); f.step(2);"
            "print(round(f.observables()['order'], 6));\n"
            "try:\n    f.state\nexcept ImportError as e:\n    print(e)")
    r = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    count, order, message = r.stdout.splitlines()
    assert int(count) == len(boids.presets())
    with Flock(preset="classic", seed=7) as f:
        assert float(order) == round(f.step(2).observables()["order"], 6)
    assert "NumPy" in message


# ---- threads ---------------------------------------------------------------------------

THREADS = """
    import json, threading, time
    import numpy as np
    from boids import BoidsError, Flock
    f = Flock(preset="lab", n=300, backend="cpu", threads=1, seed=3)
    def work():
        for _ in range(50):
            f.step(3)
            f.state; f.observables()
    threads = [threading.Thread(target=work) for _ in range(2)]
    [t.start() for t in threads]
    [t.join() for t in threads]
    with Flock(preset="lab", n=300, backend="cpu", threads=1, seed=3) as one:
        same = bool(np.array_equal(one.step(300).state, f.state))
    out = {"steps": f.steps, "same": same}

    g = Flock(preset="lab", n=300, backend="cpu", threads=1, seed=3)
    errors = []
    def long_step():
        try:
            g.step(2**31)
        except BoidsError as e:
            errors.append(str(e))
    t = threading.Thread(target=long_step)
    t.start()
    time.sleep(0.3)
    t0 = time.monotonic()
    g.close()
    out["close_s"] = time.monotonic() - t0
    t.join()
    out["errors"] = errors
    print(json.dumps(out))
"""


def test_threads_share_a_flock_one_call_at_a_time():
    child = python(THREADS, env=dict(os.environ, OMP_NUM_THREADS="1"))  # as for Ctrl-C
    out, err = child.communicate(timeout=120)
    assert child.returncode == 0, err  # before the lock: -11 (a segfault)
    r = json.loads(out)
    print("close() while another thread steps: returned after %.3f s" % r["close_s"])
    # Two threads x 50 x 3 steps, serialised: the same state as 300 steps in one thread.
    # (Without the lock this crashed the interpreter in 2 runs of 3: SIGSEGV, or glibc's
    # malloc assertion.)
    assert r["steps"] == 300 and r["same"]
    # close() waited for the chunk in flight (0.05 s of steps), not for the 2^31 steps asked
    # (hours), and the stepping thread then got an error instead of stepping a freed
    # backend. 5 s: a loaded CI machine can slow a chunk many times over, never to hours.
    assert r["close_s"] < 5.0
    assert len(r["errors"]) == 1 and "close" in r["errors"][0]


# ---- the state and the world -----------------------------------------------------------

def test_state_setter_refuses_what_load_refuses():
    with Flock(preset="classic", seed=1) as f:
        good = f.state
        for row, col, value, words in [(3, 0, -5.0, "outside"), (7, 1, 400.5, "outside"),
                                       (2, 2, 1e30, "max_speed"), (0, 3, np.nan, "finite"),
                                       (5, 0, np.inf, "finite")]:
            bad = good.copy()
            bad[row, col] = value
            with pytest.raises(BoidsError, match=words) as e:
                f.state = bad
            assert "row %d" % row in str(e.value)
            assert_bits_equal(f.state, good)  # nothing changed
        f.state = good  # and a state inside the rules is taken
    with Flock(preset="vicsek", n=50) as v:  # Vicsek: every agent at the speed
        bad = v.state
        bad[4, 2:] *= 1.5
        with pytest.raises(BoidsError, match="Vicsek speed"):
            v.state = bad
    with Flock(preset="classic", dim=3) as d:
        bad = d.state
        bad[1, 2] = d.params["depth"] + 1
        with pytest.raises(BoidsError, match="outside"):
            d.state = bad


def test_world_change_that_leaves_boids_outside_is_refused():
    with Flock(preset="classic", seed=4) as f:
        before = f.params.to_dict()
        with pytest.raises(BoidsError, match="outside") as e:
            f.params["width"] = 100  # most of the 400-wide world's boids are beyond x = 100
        assert str(e.value).startswith("params: ") and "100 x 400 world" in str(e.value)
        with pytest.raises(BoidsError, match="outside"):
            f.params.update(height=50)
        assert f.params.to_dict() == before
        f.params["width"] = 800  # a larger world holds every boid
        assert f.params["width"] == 800
        s = f.state
        s[:, 0] *= 0.1  # every boid in x < 80: the narrow world fits now
        f.state = s
        f.params["width"] = 90
        f.step(2)
        assert (f.state[:, 0] >= 0).all() and (f.state[:, 0] <= 90).all()
        with pytest.raises(BoidsError, match="dim"):
            f.params["dim"] = 3  # the backend's state stays 2-D


# ---- run() -----------------------------------------------------------------------------

def sim_table(sim, *args):
    lines = sim(*args).split()
    header = lines[0].split(",")
    return header, [[int(r.split(",")[0])] + [float(v) for v in r.split(",")[1:]]
                    for r in lines[1:]]


def test_run_returns_the_dataframe_boids_sim_prints(sim):
    header, rows = sim_table(sim, "--preset", "classic", "--seed", 7, "--steps", 130,
                             "--every", 60, "--backend", "cpu-ref")
    calls = []
    with Flock(preset="classic", seed=7, backend="cpu-ref") as f:
        df = f.run(130, every=60, progress=lambda done, total: calls.append((done, total)))
        assert f.steps == 130  # the steps past the last sample ran, as in boids sim
    assert list(df.columns) == header and str(df["step"].dtype) == "int64"
    assert df.values.tolist() == rows  # exact: float() of %.17g is the double printed
    assert calls[0] == (0, 130) and calls[-1] == (130, 130)
    assert all(a[0] <= b[0] for a, b in zip(calls, calls[1:]))


def test_run_observables_subset_and_last_step_alone(sim):
    # cpu-ref: boids sim's step-0 row is of the drawn state, which a float backend holds
    # rounded to float (the rows after are of the backend's state on every backend).
    header, rows = sim_table(sim, "--preset", "flock", "-n", 200, "--seed", 2, "--steps", 40,
                             "--order-only", "--backend", "cpu-ref")
    with Flock(preset="flock", n=200, seed=2, backend="cpu-ref") as f:
        df = f.run(40, observables="order")
        assert df.values.tolist() == rows and list(df.columns) == header
        more = f.run(10, every=5, observables=["clusters", "order"])
    assert more["step"].tolist() == [40, 45, 50]  # the state's step counter goes on
    assert list(more.columns) == ["step", "clusters", "order"]
    with Flock(preset="classic") as f:
        with pytest.raises(BoidsError, match="unknown observable 'speed'"):
            f.run(5, observables=["order", "speed"])
        with pytest.raises(TypeError):
            f.run(5.0)
        with pytest.raises(BoidsError, match="every"):
            f.run(5, every=0)
        assert f.steps == 0


def test_run_without_pandas_says_what_it_needs(monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas now raises ImportError
    with Flock(preset="classic") as f:
        with pytest.raises(ImportError, match="pandas"):
            f.run(5)


# ---- save and load ---------------------------------------------------------------------

@pytest.mark.parametrize("preset", ["classic", "vicsek"])
def test_save_load_resumes_bit_for_bit(tmp_path, preset):
    path = str(tmp_path / "s.csv")
    with Flock(preset=preset, n=120, seed=5) as whole:
        expected = whole.step(30).state
    with Flock(preset=preset, n=120, seed=5) as first:
        first.step(12).save(path)
    with Flock(preset=preset, n=120, seed=5) as second:
        second.load(path)
        assert second.steps == 12  # the step counter, which the Vicsek noise follows
        second.step(18)
        assert second.steps == 30
        assert_bits_equal(second.state, expected)


@pytest.mark.parametrize("dim", [2, 3])
def test_npy_state_is_numpy_load_able_and_resumes_bit_for_bit(sim, tmp_path, dim):
    # A .npy state: numpy.load reads the state array exactly, a load resumes the run, and
    # `boids sim --save` of the same run writes the same bytes.
    path, csv, by_sim = (str(tmp_path / n) for n in ("s.npy", "s.csv", "sim.npy"))
    args = dict(preset="vicsek", n=120, seed=5, dim=dim)
    with Flock(**args) as whole:
        expected = whole.step(30).state
    with Flock(**args) as first:
        first.step(12).save(path)
        first.save(csv)
        state = first.state
    a = np.load(path)
    assert a.dtype == np.dtype("<f8") and a.shape == (120, 2 * dim)
    assert_bits_equal(a, state)
    with Flock(**args) as second:
        second.load(path)
        assert second.steps == 12
        assert_bits_equal(second.step(18).state, expected)
    sim("--preset", "vicsek", "-n", 120, "--seed", 5, "--set", f"dim={dim}", "--steps", 12,
        "--save", by_sim)
    with open(path, "rb") as x, open(by_sim, "rb") as y:
        assert x.read() == y.read()
    with open(path + ".json") as x, open(csv + ".json") as y:
        assert x.read() == y.read()  # the sidecar is the CSV state's


def test_npy_state_refused_with_its_reason(tmp_path):
    path = tmp_path / "bad.npy"
    np.save(path, np.zeros((3, 4), dtype=">f8"))
    with Flock(preset="lab", n=10, seed=1) as f:
        with pytest.raises(BoidsError, match=r"bad\.npy.*dtype '>f8'"):
            f.load(path)
        np.save(path, np.zeros((3, 5)))
        with pytest.raises(BoidsError, match=r"shape \(3, 5\)"):
            f.load(path)
        assert f.n == 10 and f.steps == 0


def test_load_restores_the_saved_noise_seed(tmp_path):
    # A Vicsek run resumed by a Flock built with another seed draws the saved run's noise:
    # the seed travels in the sidecar, as --load restores it without --seed.
    path = str(tmp_path / "s.csv")
    with Flock(preset="vicsek", n=120, seed=5) as whole:
        expected = whole.step(30).state
    with Flock(preset="vicsek", n=120, seed=5) as first:
        first.step(12).save(path)
    with Flock(preset="vicsek", n=120, seed=99) as other:
        other.load(path)
        assert other.params["noise_seed"] == 5
        assert_bits_equal(other.step(18).state, expected)


def test_load_adopts_n_and_refuses_a_state_outside_the_world(tmp_path):
    path = tmp_path / "s.csv"  # a pathlib.Path works as a str does
    with Flock(preset="lab", n=200, seed=1) as f:
        f.save(path)
        saved = f.state
    with Flock(preset="lab", n=50, seed=1) as g:
        g.load(path)
        assert g.n == 200 and g.params["count"] == 200
        assert_bits_equal(g.state, saved)
        g.step(1)
    with Flock(preset="classic", seed=3) as small:  # 400 x 400: the lab's 900 x 560 boids
        before = small.state
        with pytest.raises(BoidsError, match="outside"):
            small.load(path)
        with pytest.raises(BoidsError, match="nosuchfile"):
            small.load(tmp_path / "nosuchfile.csv")
        assert_bits_equal(small.state, before)
        assert small.n == 80 and small.steps == 0


def test_files_saved_from_python_and_from_boids_sim_are_one_format(sim, tmp_path):
    a, b_sim, b_py = (str(tmp_path / n) for n in ("a.csv", "b_sim.csv", "b_py.csv"))
    sim("--preset", "vicsek", "-n", 100, "--seed", 9, "--steps", 10, "--save", a)
    sim("--preset", "vicsek", "-n", 100, "--seed", 9, "--steps", 15, "--load", a,
        "--save", b_sim)
    with Flock(preset="vicsek", n=100, seed=9) as f:
        f.load(a).step(15).save(b_py)
    with Flock(preset="vicsek", n=100, seed=9) as x, Flock(preset="vicsek", n=100, seed=9) as y:
        x.load(b_sim)
        y.load(b_py)
        assert x.steps == y.steps == 25
        assert_bits_equal(x.state, y.state)


# ---- the interaction table -------------------------------------------------------------

INI = """\
predator.0 = 200 200 80 3
attractor.1 = 100 300 60 2
obstacle = circle 300 100 30
obstacle = segment 50 50 150 60
"""


def test_interaction_table_acts_as_boids_sim_config(sim, tmp_path):
    ini = tmp_path / "inter.ini"
    ini.write_text(INI)
    out = str(tmp_path / "out.csv")
    sim("--preset", "classic", "--seed", 7, "--steps", 40, "--config", ini, "--save", out)
    with Flock(preset="classic", seed=7) as f:
        f.interact.predator(0, x=200, y=200, radius=80, weight=3)
        f.interact.attractor(1, x=100, y=300, radius=60, weight=2)
        f.interact.add_circle(300, 100, 30)
        f.interact.add_segment(50, 50, 150, 60)
        table = f.interact.to_dict()
        f.step(40)
        with Flock(preset="classic", seed=7) as g:
            g.interact.load(ini)
            assert g.interact.to_dict() == table
            g.load(out)
            assert_bits_equal(f.state, g.state)
        with Flock(preset="classic", seed=7) as plain:  # and the table did act
            assert not np.array_equal(plain.step(40).state, f.state)
    # z is kept from the default table (the world's middle depth), as a config line keeps it.
    assert table["predators"][0] == {"on": True, "x": 200.0, "y": 200.0, "z": 200.0,
                                     "radius": 80.0, "weight": 3.0}
    assert [o["kind"] for o in table["obstacles"]] == ["circle", "segment"]


def test_interaction_table_refusals_leave_it_unchanged(tmp_path):
    with Flock(preset="classic") as f:
        f.interact.add_circle(100, 100, 20)
        before = f.interact.to_dict()
        cases = [
            (BoidsError, "radius", lambda: f.interact.predator(0, x=1, y=1, radius=-1)),
            (BoidsError, "weight", lambda: f.interact.attractor(2, weight=1e9)),
            (BoidsError, "finite", lambda: f.interact.predator(3, x=float("nan"))),
            (BoidsError, "0 .. 15", lambda: f.interact.predator(16, x=1)),
            (TypeError, "number", lambda: f.interact.predator(0, x="10")),
            (TypeError, "int", lambda: f.interact.attractor(1.0, x=10)),
            (BoidsError, "radius", lambda: f.interact.add_circle(10, 10, 0)),
            (BoidsError, "sphere", lambda: f.interact.add_sphere(10, 10, 10, 5)),  # 2-D world
            (BoidsError, "half", lambda: f.interact.add_circle(200, 200, 250)),  # wrap world
        ]
        for error, words, call in cases:
            with pytest.raises(error, match=words):
                call()
            assert f.interact.to_dict() == before
        bad = tmp_path / "bad.ini"
        bad.write_text("obstacle = circle 1 2\n")
        with pytest.raises(BoidsError, match="bad.ini:1"):
            f.interact.load(bad)
        for _ in range(63):
            f.interact.add_circle(50, 50, 1)
        with pytest.raises(BoidsError):
            f.interact.add_circle(50, 50, 1)  # the 65th
        assert len(f.interact.obstacles) == 64
        f.interact.clear_obstacles()
        f.interact.predator(0, x=10, y=10)
        f.interact.predator(0, on=False)
        assert f.interact.obstacles == [] and not f.interact.predators[0]["on"]
        assert f.interact.predators[0]["x"] == 10
        f.interact.reset()
        assert f.interact.predators[0]["x"] == 200  # the world's centre
