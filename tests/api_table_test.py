#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The misuse table of tests/api_test.c covers the whole public API, mechanically: every
function declared in include/boids/*.h has a row, and every pointer argument of each (the
error report aside, which api_test passes as NULL to every row in a second pass) has a row
whose misuse reads "NULL <argument name>". A function added to a header without its rows
fails here.

usage: api_table_test.py SOURCE_DIR
"""
import os
import re
import sys

from harness import check, finish

SRC = sys.argv[1]
INCLUDE = os.path.join(SRC, "include", "boids")
# Typedefs of pointers (to functions) in the headers: arguments of these types are pointers.
POINTER_TYPES = {"boids_gl_loader", "boids_assert_handler"}


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def top_level_split(text, sep=","):
    parts, depth, cur = [], 0, ""
    for c in text:
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        if c == sep and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += c
    parts.append(cur)
    return [p.strip() for p in parts if p.strip()]


def declarations():
    """{function: [(argument name, is a pointer)]} of every public function."""
    funcs = {}
    for name in sorted(os.listdir(INCLUDE)):
        if not (name.endswith(".h") or name.endswith(".h.in")):
            continue
        text = strip_comments(open(os.path.join(INCLUDE, name)).read())
        text = re.sub(r"^\s*#.*$", " ", text, flags=re.M)  # preprocessor lines
        text = re.sub(r"\bBOIDS_(BEGIN|END)_DECLS\b", " ", text)
        text = re.sub(r"__attribute__\s*\(\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\)\)", " ", text)
        # Drop bodies ({...}) of inline functions, structs and enums: only declarations stay.
        while True:
            new = re.sub(r"\{[^{}]*\}", ";", text)
            if new == text:
                break
            text = new
        for stmt in text.split(";"):
            stmt = " ".join(stmt.split())
            if stmt.startswith("typedef") or "static inline" in stmt:
                continue
            m = re.search(r"\b(boids_\w+)\s*\((.*)\)\s*(__attribute__.*)?$", stmt)
            if not m or m.group(1).isupper():
                continue
            args = []
            for a in top_level_split(m.group(2)):
                if a in ("void", "..."):
                    continue
                fp = re.search(r"\(\s*\*\s*(\w+)\s*\)", a)
                argname = fp.group(1) if fp else re.findall(r"\w+", a.split("[")[0])[-1]
                ptr = bool(fp) or "*" in a or "[" in a or a.split()[-2] in POINTER_TYPES \
                    if len(a.split()) > 1 else False
                args.append((argname, ptr))
            funcs[m.group(1)] = args
    return funcs


def rows():
    """(entry, misuse) of every row of api_test.c's table."""
    text = open(os.path.join(SRC, "tests", "api_test.c")).read()
    return re.findall(r'\bC\(\s*"([^"]+)",\s*"((?:[^"\\]|\\.)*)"', text)


funcs, table = declarations(), rows()
check("the headers declare functions", len(funcs) > 80, len(funcs))
check("the table has rows", len(table) > 80, len(table))
entries = {}
for entry, misuse in table:
    entries.setdefault(entry, []).append(misuse)
for f, args in sorted(funcs.items()):
    check(f"{f}: a row in the table", f in entries)
    for argname, ptr in args:
        if ptr and argname != "err":
            check(f"{f}: a row for NULL {argname}",
                  any(m == f"NULL {argname}" or m.startswith(f"NULL {argname} ")
                      for m in entries.get(f, [])), entries.get(f))
for entry in entries:
    check(f"row {entry}: names a public function", entry in funcs)
print(f"{len(funcs)} public functions, "
      f"{sum(p for a in funcs.values() for _, p in a)} pointer arguments, {len(table)} rows")
finish()
