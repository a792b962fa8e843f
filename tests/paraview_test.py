#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""boids sim --trajectory FILE.pvd, read back by VTK's own reader (Debian python3-vtk9): a
2-D and a 3-D flock, float32 and float64. The .pvd (parsed with xml.etree) lists every frame in
order with timestep = step * dt; vtkXMLPolyDataReader reads each .vtp with N points, N vertex
cells (one a point), PointData velocity (3 components) and id (and species, with several),
FieldData TimeValue equal to the
.pvd's timestep and step; points and velocities equal the same run's .npy trajectory. VTK 9.1
has no reader for a whole .pvd (ParaView's vtkPVDReader is not in VTK), so the collection is
read as ParaView reads it: the index, then each file it names.

Bad input and failures leave no collection behind: an unwritable place and a frames' folder
that is not one of ours exit 2 with one message, before the run; an earlier collection of ours
is replaced whole; a folder of someone else's that appears during the run makes it fail at the
end (exit 1) untouched; SIGTERM mid-run leaves nothing.

usage: paraview_test.py BOIDS_BINARY   (run with a Python that has numpy and vtk)
"""
import json
import os
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

from harness import check, finish, one_message, run, species_of_ids, tmpdir

try:
    import numpy as np
    import vtk
    from vtk.util.numpy_support import vtk_to_numpy
except ImportError as e:
    print(f"FAIL: {e} (Debian python3-numpy and python3-vtk9, installed by .ci/install-deps)")
    sys.exit(1)

BOIDS = sys.argv[1]
# 50 boids need no team of threads; on a loaded machine one waits for its threads at every
# step (the thread count changes no bit of the result).
os.environ["OMP_NUM_THREADS"] = "1"
d = tmpdir()
path = lambda *names: os.path.join(d, *names)
N, STEPS, EVERY = 50, 30, 10
FRAMES = STEPS // EVERY + 1
# classic with dt 0.5 (its own is 1, which would not tell a step from a time); murmuration is
# 3-D with dt 1/60.
CASES = {"2-D": ["--preset", "classic", "--seed", "7", "--set", "dt=0.5"],
         "3-D": ["--preset", "murmuration", "--seed", "3"]}
SAMPLING = ["-n", N, "--steps", STEPS, "--every", EVERY]


def sim(args, out, dtype, **kw):
    return run(BOIDS, "sim", *args, *SAMPLING, "--trajectory", out, "--trajectory-dtype", dtype,
               **kw)


def read_vtp(name):
    """vtkXMLPolyDataReader's output for one file, and whether it reported an error or a
    warning (the events its error macros fire, caught here rather than printed)."""
    r, events = vtk.vtkXMLPolyDataReader(), []
    for kind in ("ErrorEvent", "WarningEvent"):
        r.AddObserver(kind, lambda obj, event: events.append(event))
    r.SetFileName(name)
    r.Update()
    return r.GetOutput(), bool(events) or r.GetErrorCode() != 0


def read_pvd(name):
    """(timestep, file) of each DataSet of the collection, in the file's order."""
    root = ET.parse(name).getroot()
    return root, [(float(e.get("timestep")), e.get("file"))
                  for e in root.iter("DataSet")]


for dim, args in CASES.items():
    sim(args, path(f"run-{dim}.npy"), "f8", check_rc=0)  # the same run, as a float64 .npy
    exact = np.load(path(f"run-{dim}.npy"))
    for dtype in ("f4", "f8"):
        tag = f"{dim} {dtype}"
        stem = f"run-{dim}-{dtype}"
        p = sim(args, path(stem + ".pvd"), dtype)
        check(f"{tag}: sim --trajectory X.pvd exits 0", p.returncode == 0, p.stderr[-500:])
        # float32 frames hold float32(the doubles), rounded to nearest as the .npy's f4 ones
        # (one function writes both): equal to numpy's rounding, not merely close.
        npy = exact if dtype == "f8" else exact.astype(np.float32)
        with open(path(stem + ".pvd.json")) as f:
            meta = json.load(f)
        dt = meta["parameters"]["values"]["dt"]
        root, sets = read_pvd(path(stem + ".pvd"))
        check(f"{tag}: the .pvd is a VTK Collection", root.tag == "VTKFile" and
              root.get("type") == "Collection", root.attrib)
        steps = list(range(0, STEPS + 1, EVERY))
        check(f"{tag}: the .pvd lists every frame in order",
              [s[1] for s in sets] == [f"{stem}/frame_{k:06d}.vtp" for k in range(FRAMES)], sets)
        # The same product of two doubles as the writer's step * dt: equal, not close.
        check(f"{tag}: each timestep is step * dt", [s[0] for s in sets] ==
              [k * dt for k in steps], (sets, dt))
        check(f"{tag}: the folder holds the frames alone",
              sorted(os.listdir(path(stem))) == [f"frame_{k:06d}.vtp" for k in range(FRAMES)])
        check(f"{tag}: sidecar names the format", meta["output"]["kind"] == "trajectory" and
              "VTK" in meta["output"]["format"] and meta["output"]["frames_folder"] ==
              path(stem), meta["output"])
        want_type = vtk.VTK_DOUBLE if dtype == "f8" else vtk.VTK_FLOAT
        for k, (t, name) in enumerate(sets):
            out, failed = read_vtp(path(name))
            fk = f"{tag} frame {k}"
            check(f"{fk}: read without error, N points", not failed and
                  out.GetNumberOfPoints() == N, out.GetNumberOfPoints())
            cells = [(out.GetCellType(c), out.GetCell(c).GetPointIds().GetId(0),
                      out.GetCell(c).GetNumberOfPoints()) for c in range(out.GetNumberOfCells())]
            check(f"{fk}: N vertex cells, cell i on point i", out.GetNumberOfVerts() == N and
                  cells == [(vtk.VTK_VERTEX, i, 1) for i in range(N)], cells[:3])
            pd = out.GetPointData()
            vel, ids = pd.GetArray("velocity"), pd.GetArray("id")
            check(f"{fk}: PointData velocity (3 components) and id", vel is not None and
                  ids is not None and vel.GetNumberOfComponents() == 3)
            if vel is None or ids is None:
                continue
            pts = vtk_to_numpy(out.GetPoints().GetData())
            check(f"{fk}: points and velocity in the dtype asked for",
                  out.GetPoints().GetDataType() == want_type and vel.GetDataType() == want_type)
            check(f"{fk}: id is 0..N-1", vtk_to_numpy(ids).tolist() == list(range(N)))
            nd = int(dim[0])
            want_pts = np.zeros((N, 3), npy.dtype)
            want_vel = np.zeros((N, 3), npy.dtype)
            want_pts[:, :nd], want_vel[:, :nd] = npy[k][:, :nd], npy[k][:, nd:]
            check(f"{fk}: points equal the .npy's, in its dtype (z = 0 in 2-D)", np.array_equal(pts, want_pts))
            check(f"{fk}: velocity equals the .npy's", np.array_equal(vtk_to_numpy(vel),
                                                                     want_vel))
            fd = out.GetFieldData()
            tv, st = fd.GetArray("TimeValue"), fd.GetArray("step")
            check(f"{fk}: FieldData TimeValue is the .pvd's timestep, step its step",
                  tv is not None and st is not None and tv.GetValue(0) == t and
                  st.GetValue(0) == steps[k], (t, tv and tv.GetValue(0)))

# Species (docs/model.md): with more than one, each frame's PointData has species (Int32), a
# boid's species by its id (species s = 1 .. S-1 the ids after the lower ones', species_count.s
# of them; species 0 the rest); with one, no such array (the frames as before, checked above).
p = run(BOIDS, "sim", "--preset", "hawks", "--seed", "4", *SAMPLING, "--trajectory",
        path("hawks.pvd"))
check("species (hawks): sim --trajectory X.pvd exits 0", p.returncode == 0, p.stderr[-500:])
with open(path("hawks.pvd.json")) as f:
    values = json.load(f)["parameters"]["values"]
kinds = int(values["species"])
want_species = np.array(species_of_ids(values, N), np.int32)
for k, (t, name) in enumerate(read_pvd(path("hawks.pvd"))[1]):
    out, failed = read_vtp(path(name))
    sp = out.GetPointData().GetArray("species")
    check(f"species (hawks) frame {k}: read without error, an Int32 species array, each boid's",
          not failed and sp is not None and sp.GetDataType() == vtk.VTK_INT and
          np.array_equal(vtk_to_numpy(sp), want_species) and kinds > 1 and want_species.any(),
          (kinds, sp and vtk_to_numpy(sp)[:8]))
    if k == 0:
        no_species = read_vtp(path("run-2-D-f4", "frame_000000.vtp"))[0]
        check("one species: no species array",
              no_species.GetPointData().GetArray("species") is None)

# An earlier collection of ours is replaced whole: fewer frames leave no old one behind.
again = ["--preset", "classic", "--seed", "7", "-n", N]
run(BOIDS, "sim", *again, "--steps", 10, "--every", EVERY, "--trajectory", path("run-2-D-f4.pvd"),
    check_rc=0)
check("a second run replaces the folder of ours whole",
      sorted(os.listdir(path("run-2-D-f4"))) == ["frame_000000.vtp", "frame_000001.vtp"])
check("... and its index", len(read_pvd(path("run-2-D-f4.pvd"))[1]) == 2)


def entries(folder):
    return sorted(os.listdir(folder))


# Refused before the run, exit 2, one message, nothing written.
bad = tmpdir()
with open(os.path.join(bad, "plain"), "w") as f:
    f.write("not a folder\n")
os.makedirs(os.path.join(bad, "theirs"))
with open(os.path.join(bad, "theirs", "notes.txt"), "w") as f:
    f.write("someone's notes\n")
with open(os.path.join(bad, "afile"), "w") as f:
    f.write("a plain file\n")
before = entries(bad)
for name, target, words in [
        ("a missing folder", os.path.join(bad, "missing", "run.pvd"), ["missing/run.pvd"]),
        ("a folder that is a file", os.path.join(bad, "plain", "run.pvd"), ["plain/run.pvd"]),
        ("a frames' folder of someone else's", os.path.join(bad, "theirs.pvd"),
         ["theirs", "notes.txt", "refused"]),
        ("a plain file under the frames' name", os.path.join(bad, "afile.pvd"),
         ["afile", "not a folder"]),
        ("nothing before .pvd", os.path.join(bad, ".pvd"), [".pvd", "name"])]:
    p = run(BOIDS, "sim", *again, "--steps", 10, "--trajectory", target)
    one_message(name, p, words)
    check(f"{name}: nothing written, nothing touched", entries(bad) == before and
          entries(os.path.join(bad, "theirs")) == ["notes.txt"], entries(bad))


def start_long(target, steps):
    """A run writing many frames, and the moment its temporary folder holds a frame."""
    proc = subprocess.Popen([BOIDS, "sim", *map(str, again), "--steps", str(steps), "--every",
                             "1", "--order-only", "--trajectory", target], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    folder = os.path.dirname(target)
    end = time.time() + 60  # a bound on the wait, not a timing assertion
    while time.time() < end and proc.poll() is None:
        tmp = [e for e in os.listdir(folder) if e.endswith(".d")]
        if tmp and os.listdir(os.path.join(folder, tmp[0])):
            return proc, True
        time.sleep(0.001)
    return proc, False


# SIGTERM mid-run: the temporary folder, its frames and the index go.
sig = tmpdir()
proc, started = start_long(os.path.join(sig, "run.pvd"), 20000)
check("a long run has frames in a temporary folder", started)
proc.send_signal(signal.SIGTERM)
proc.communicate(timeout=60)
check("SIGTERM ends the run by that signal", proc.returncode == -signal.SIGTERM, proc.returncode)
check("SIGTERM leaves nothing behind", entries(sig) == [], entries(sig))

# Someone's folder under the frames' name appears during the run: the run fails at the end,
# exit 1, leaving that folder as it is and nothing of its own.
late = tmpdir()
proc, started = start_long(os.path.join(late, "run.pvd"), 3000)
check("a run is under way", started)
proc.send_signal(signal.SIGSTOP)  # so that it cannot end before the folder is there
os.makedirs(os.path.join(late, "run"))
with open(os.path.join(late, "run", "mine.txt"), "w") as f:
    f.write("made during the run\n")
proc.send_signal(signal.SIGCONT)
_, err = proc.communicate(timeout=120)
check("a foreign folder found at the end: exit 1 naming it", proc.returncode == 1 and
      "mine.txt" in err, (proc.returncode, err))
check("... that folder untouched, no index, no temporaries", entries(late) == ["run"] and
      entries(os.path.join(late, "run")) == ["mine.txt"], entries(late))

finish()
