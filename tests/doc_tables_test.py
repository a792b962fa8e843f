# SPDX-License-Identifier: MIT
"""The tables the documents copy from a script are that script's output: each script below is
run (from the folder it reads) and every line of its table must appear, in order and
together, in the document that shows it. A table edited by hand, or left behind when its
runs or parameters change, fails here.

Usage: doc_tables_test.py SOURCE_DIR
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import check, finish  # noqa: E402

RESULTS = "bench/results/amd-epyc-2core-llvmpipe"
# The cpu tables as the documents show them: 1M for 1000k, the range under the column's name.
def to_doc(line):
    return line.replace("| 1000k |", "| 1M |").replace("x before (range)", "x before")


# (document, script, folder it runs in, rewrite of the script's lines to the document's)
TABLES = [
    ("bench/README.md", "bench/mpi_model.py", ".", None),
    ("README.md", f"{RESULTS}/cpu-split/ratios.py", f"{RESULTS}/cpu-records", to_doc),
    ("bench/README.md", f"{RESULTS}/cpu-split/ratios.py", f"{RESULTS}/cpu-records", to_doc),
    (f"{RESULTS}/cpu-records/table.txt", f"{RESULTS}/cpu-split/ratios.py",
     f"{RESULTS}/cpu-records", None),
    (f"{RESULTS}/cpu-idorder/table.txt", f"{RESULTS}/cpu-split/ratios.py",
     f"{RESULTS}/cpu-idorder", None),
]


def main():
    source = os.path.abspath(sys.argv[1])
    for doc, script, where, rewrite in TABLES:
        p = subprocess.run([sys.executable, os.path.join(source, script)], capture_output=True,
                           text=True, cwd=os.path.join(source, where))
        lines = [ln for ln in p.stdout.splitlines() if ln.startswith("|")]
        if rewrite:
            lines = [rewrite(ln) for ln in lines]
        with open(os.path.join(source, doc)) as f:
            text = f.read()
        check(f"{doc} holds the table of {script} ({len(lines)} lines)",
              p.returncode == 0 and len(lines) > 2 and "\n".join(lines) in text,
              f"exit {p.returncode}; run it from {where} and copy its table into {doc}\n"
              f"{p.stderr[-500:]}")
    finish()


if __name__ == "__main__":
    main()
