import re, subprocess, sys
# Instructions (callgrind) of the backend calls that step a flock: one process's
# boids_backend_step, or a rank's local backend step (step'2, called by the MPI backend's) and
# the resident tile's passes. usage: callgrind_sum.py CALLGRIND_OUT...
tot = 0
for f in sys.argv[1:]:
    out = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", f], capture_output=True, text=True).stdout
    s = 0
    rank = "step'2" in out  # a rank: its local step, not the MPI backend's around it
    for line in out.splitlines():
        m = re.match(r"\s*([\d,]+) \(.*backend\.c:boids_backend_(step'2|step|tile_count|tile_split|tile_add|tile_halo) \[", line)
        if m and not (rank and m.group(2) == "step"):
            v = int(m.group(1).replace(",", "")); s += v
            print(f"  {f} {m.group(2)} {v/1e6:.1f}M")
    print(f"{f}: {s/1e6:.1f}M"); tot += s
print(f"all: {tot/1e6:.1f}M")
