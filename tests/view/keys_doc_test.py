# SPDX-License-Identifier: MIT
"""docs/viewer.md's key table is the viewer's own: the program prints its table
(src/app/viewer/view_keys.c, the one the keyboard dispatches through and the `?` overlay lists) and
the document must hold exactly those lines, as one table.

Usage: keys_doc_test.py KEYS_MARKDOWN DOC. On a difference, the document's table is to be
replaced by what KEYS_MARKDOWN prints."""
import difflib
import subprocess
import sys

tool, doc = sys.argv[1], sys.argv[2]
want = subprocess.run([tool], capture_output=True, text=True, check=True).stdout.splitlines()
lines = open(doc, encoding="utf-8").read().splitlines()
if want[0] not in lines:
    print(f"FAILED: {doc} has no table headed {want[0]!r}")
    sys.exit(1)
start = lines.index(want[0])
end = start
while end < len(lines) and lines[end].startswith("|"):
    end += 1
have = lines[start:end]
if have != want:
    print(f"FAILED: the key table of {doc} (line {start + 1}) differs from the viewer's:")
    sys.stdout.writelines(l + "\n" for l in difflib.unified_diff(
        have, want, f"{doc}", "the viewer (src/app/viewer/view_keys.c)", lineterm=""))
    sys.exit(1)
print(f"ok: {len(want) - 2} keys, the same in {doc} and in the viewer")
