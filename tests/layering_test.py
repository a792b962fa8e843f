#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The folder rules of src/ hold: what each part uses is what its README allows.

Every folder of src/app is a part, and so is a folder of src/ beside it (src/core, src/gpu, ...)
whose README.md has a rule line. The rule line stands beside the prose "May use:":

    Uses: cli output src/core src/core/npy_format.h

  NAME             a part of src/app: its headers ("cli/cli.h") and its functions
  src/NAME         a library beside src/app: its functions, and, for one that is not exported
                   (not src/core or src/gpu, whose users see include/boids), its headers
  src/NAME/FILE.h  an internal header of such a library ("../core/rules.h")

The public headers (include/boids) are everyone's. src/app/app.cmake builds each part's library
from the same line. This test fails, naming the file and line, on
  - an #include of another folder's header that the rules do not allow;
  - a function of another folder that the rules do not allow (with --lib or --build: the
    undefined symbols of a part's library that another folder's library defines, from nm);
  - a circle between folders, in the rules or in what the code does;
  - a C file in src/ over 800 lines, but src/core/rules.h;
  - a part without a rule line, or a word of a rule line that names nothing.

usage: layering_test.py SOURCE_DIR [--lib FOLDER=LIBRARY.a ...] [--build BUILD_DIR] [--nm NM]
                        [--list]
  --lib    a folder's static library (src/app/cli=build/libboids_app_cli.a), for the functions
  --build  the same for every libboids_app_PART.a and libboids_NAME.a found in BUILD_DIR
  --list   also every folder's rule line and what it uses, with where (by hand:
           python3 tests/layering_test.py . --build build --list)
"""
import os
import re
import subprocess
import sys

LONG = 800
LONG_EXEMPT = {"src/core/rules.h"}
# Libraries whose users see only include/boids: their headers in src/ are internal, each one
# named in a rule line.
EXPORTED = {"src/core", "src/gpu"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def usage(msg):
    sys.stderr.write("layering_test.py: %s\n%s" % (msg, __doc__.split("usage:")[1]))
    sys.exit(2)


def parse_args(argv):
    if not argv or argv[0].startswith("-"):
        usage("no SOURCE_DIR")
    args = {"root": os.path.abspath(argv[0]), "libs": {}, "nm": "nm", "list": False}
    i = 1
    while i < len(argv):
        a = argv[i]
        if a == "--list":
            args["list"] = True
        elif a in ("--lib", "--build", "--nm") and i + 1 < len(argv):
            v = argv[i + 1]
            i += 1
            if a == "--nm":
                args["nm"] = v
            elif a == "--lib":
                if "=" not in v:
                    usage("--lib %s: not FOLDER=LIBRARY" % v)
                folder, lib = v.split("=", 1)
                args["libs"][folder.rstrip("/")] = lib
            else:
                for name in sorted(os.listdir(v)):
                    m = re.match(r"^libboids_(app_)?([a-z0-9_]+)\.a$", name)
                    if m:
                        folder = ("src/app/" if m.group(1) else "src/") + m.group(2)
                        if os.path.isdir(os.path.join(args["root"], folder)):
                            args["libs"][folder] = os.path.join(v, name)
        else:
            usage("unknown argument %s" % a)
        i += 1
    return args


class Tree:
    def __init__(self, root):
        self.root = root
        self.problems = []  # (where, message)
        self.rules = {}  # folder -> (readme:line, [words])
        self.folders = []  # the folders checked: src/app/* and src/* with a rule line
        app = os.path.join(root, "src/app")
        for name in sorted(os.listdir(app)):
            if os.path.isdir(os.path.join(app, name)):
                self.folders.append("src/app/" + name)
        for name in sorted(os.listdir(os.path.join(root, "src"))):
            d = os.path.join(root, "src", name)
            if name != "app" and os.path.isdir(d) and self.rule_line("src/" + name):
                self.folders.append("src/" + name)
        for f in self.folders:
            self.read_rules(f)

    def rule_line(self, folder):
        """[(line number, text)] of the rule lines of folder's README."""
        path = os.path.join(self.root, folder, "README.md")
        if not os.path.exists(path):
            return []
        with open(path, encoding="utf-8") as fh:
            return [(n, l.rstrip("\n")) for n, l in enumerate(fh, 1) if l.startswith("Uses:")]

    def read_rules(self, folder):
        lines = self.rule_line(folder)
        readme = folder + "/README.md"
        if len(lines) != 1:
            self.problems.append((readme, "needs exactly one rule line 'Uses: ...' (has %d)" %
                                  len(lines)))
            self.rules[folder] = (readme, [])
            return
        n, text = lines[0]
        words = text[len("Uses:"):].split()
        where = "%s:%d" % (readme, n)
        for w in words:
            if re.fullmatch(r"[a-z0-9_]+", w):
                ok = os.path.isdir(os.path.join(self.root, "src/app", w))
            else:
                ok = re.fullmatch(r"src/[a-z0-9_]+(/[A-Za-z0-9_.]+\.h)?", w) and \
                    os.path.exists(os.path.join(self.root, w))
            if not ok:
                self.problems.append((where, "'%s' names no part of src/app, src/NAME or "
                                      "src/NAME/FILE.h" % w))
        self.rules[folder] = (where, words)

    @staticmethod
    def word(folder):
        """The rule word of a folder: a part's name, or src/NAME."""
        return folder[len("src/app/"):] if folder.startswith("src/app/") else folder

    def folder_of(self, rel):
        """The folder (src/app/NAME or src/NAME) a path under root lies in, or None."""
        m = re.match(r"^(src/app/[^/]+|src/(?!app/)[^/]+)/", rel)
        return m.group(1) if m else None

    def allows(self, folder, target, header=None):
        """Whether folder's rules allow using target (a folder): its functions, or header."""
        if target == folder:
            return True
        words = self.rules.get(folder, ("", []))[1]
        w = self.word(target)
        if header is None:  # a function: the library, named or through one of its headers
            return w in words or (target.startswith("src/") and not target.startswith("src/app/")
                                  and any(x.startswith(w + "/") for x in words))
        if target.startswith("src/app/"):
            return w in words
        return header in words or (w in words and target not in EXPORTED)

    def sources(self, folder):
        d = os.path.join(self.root, folder)
        return sorted(f for f in os.listdir(d) if f.endswith((".c", ".h")))

    def resolve(self, path, name):
        """The file (relative to root) that #include "name" in path names, or None."""
        here = os.path.dirname(os.path.join(self.root, path))
        cands = [os.path.join(here, name), os.path.join(self.root, "src/app", name),
                 os.path.join(self.root, "include", name), os.path.join(self.root, "src", name)]
        cands += [os.path.join(self.root, "src", d, name)
                  for d in sorted(os.listdir(os.path.join(self.root, "src")))]
        for c in cands:
            if os.path.isfile(c):
                return os.path.relpath(os.path.normpath(c), self.root)
        return None


def check_includes(tree, uses):
    for folder in tree.folders:
        for f in tree.sources(folder):
            path = folder + "/" + f
            with open(os.path.join(tree.root, path), encoding="utf-8") as fh:
                for n, line in enumerate(fh, 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    target_file = tree.resolve(path, m.group(1))
                    target = tree.folder_of(target_file) if target_file else None
                    if not target or target == folder:
                        continue  # its own, the public API, or generated in the build
                    where = "%s:%d" % (path, n)
                    what = "includes %s" % target_file
                    ok = tree.allows(folder, target, target_file)
                    uses.setdefault((folder, target), []).append((where, what, ok))
                    if not ok:
                        tree.problems.append((where, "%s: %s's rules (%s) do not allow it" % (
                            what, folder, tree.rules[folder][0])))


def nm_symbols(nm, lib):
    """{object: (defined set, undefined set)} of the global symbols of a static library."""
    out = subprocess.run([nm, "-A", lib], check=True, capture_output=True, text=True).stdout
    objs = {}
    for line in out.splitlines():
        m = re.match(r"^(.*?):([^:]+):\s*([0-9a-fA-F]*)\s+([A-Za-z])\s+(\S+)$", line)
        if not m:
            continue
        obj, kind, sym = m.group(2), m.group(4), m.group(5)
        d, u = objs.setdefault(obj, (set(), set()))
        if kind == "U":
            u.add(sym)
        elif kind.isupper():
            d.add(sym)
    return objs


def first_use(tree, folder, obj, sym):
    """file:line of the first use of sym in the source of obj (sweep_runs.c.o)."""
    src = obj[:-2] if obj.endswith(".o") else obj
    path = folder + "/" + src
    full = os.path.join(tree.root, path)
    if os.path.isfile(full):
        pat = re.compile(r"\b%s\b" % re.escape(sym))
        with open(full, encoding="utf-8") as fh:
            for n, line in enumerate(fh, 1):
                if pat.search(line):
                    return "%s:%d" % (path, n)
        return path
    return "%s (%s)" % (folder, obj)


def check_functions(tree, libs, nm, uses):
    defined = {}  # symbol -> folder
    tables = {}
    for folder, lib in sorted(libs.items()):
        if not os.path.isfile(lib):
            tree.problems.append((lib, "%s's library is not built" % folder))
            continue
        tables[folder] = nm_symbols(nm, lib)
        for obj, (d, _) in tables[folder].items():
            for s in d:
                defined.setdefault(s, folder)
    for folder in tree.folders:
        if folder not in tables:
            continue
        for obj, (_, undef) in sorted(tables[folder].items()):
            for s in sorted(undef):
                target = defined.get(s)
                if not target or target == folder:
                    continue
                where = first_use(tree, folder, obj, s)
                what = "calls %s (%s)" % (s, target)
                ok = tree.allows(folder, target)
                uses.setdefault((folder, target), []).append((where, what, ok))
                if not ok:
                    tree.problems.append((where, "%s: %s's rules (%s) do not allow it" % (
                        what, folder, tree.rules[folder][0])))


def circles(tree, uses):
    """The strongly connected sets of folders, over the rules and the uses found."""
    edges = {}
    for f in tree.folders:
        for w in tree.rules[f][1]:
            t = ("src/app/" + w) if "/" not in w else "/".join(w.split("/")[:2])
            if t != f:
                edges.setdefault(f, set()).add(t)
    for (a, b) in uses:
        edges.setdefault(a, set()).add(b)
    # Tarjan's algorithm, iterative enough for a few dozen folders.
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    for comp in out:
        lines = []
        for a in comp:
            for b in sorted(edges.get(a, ())):
                if b not in comp:
                    continue
                ev = uses.get((a, b))
                why = ("%s %s" % ev[0][:2]) if ev else "by the rule line %s" % tree.rules[a][0]
                lines.append("%s -> %s: %s" % (tree.word(a), tree.word(b), why))
        tree.problems.append((", ".join(tree.word(c) for c in comp),
                              "a circle between folders:\n      " + "\n      ".join(lines)))


def check_long_files(tree):
    src = os.path.join(tree.root, "src")
    for d, _, files in sorted(os.walk(src)):
        for f in sorted(files):
            if not f.endswith((".c", ".h")):
                continue
            rel = os.path.relpath(os.path.join(d, f), tree.root)
            with open(os.path.join(d, f), encoding="utf-8", errors="replace") as fh:
                n = sum(1 for _ in fh)
            if n > LONG and rel not in LONG_EXEMPT:
                tree.problems.append(("%s:%d" % (rel, n), "%d lines, over %d" % (n, LONG)))


def listing(tree, uses):
    for f in tree.folders:
        where, words = tree.rules[f]
        print("%s  (%s)" % (f, where))
        print("  rules: %s" % (" ".join(words) or "-"))
        for (a, b), ev in sorted(uses.items()):
            if a != f:
                continue
            bad = [e for e in ev if not e[2]]
            print("  uses %s: %d place(s), first %s %s" % (tree.word(b), len(ev), ev[0][0],
                                                        ev[0][1]))
            for where, what, _ in bad:
                print("    NOT ALLOWED: %s %s" % (where, what))


def self_check():
    """The checks find what they look for, on a small tree made for it: a part that includes a
    header its rules do not allow, a circle in the rules, a long file."""
    import tempfile
    with tempfile.TemporaryDirectory() as root:
        files = {
            "src/app/a/README.md": "May use: b.\nUses: b src/core\n",
            "src/app/a/a.c": '#include "b/b.h"\n',
            "src/app/b/README.md": "May use: a.\nUses: a src/core\n",
            "src/app/b/b.h": "",
            "src/app/c/README.md": "May use: nothing.\nUses: src/core\n",
            "src/app/c/c.c": '#include "a/a.h"\n#include "../core/x.h"\n' + "\n" * LONG,
            "src/app/a/a.h": "",
            "src/core/x.h": "",
        }
        for rel, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
            with open(os.path.join(root, rel), "w", encoding="utf-8") as fh:
                fh.write(text)
        tree = Tree(root)
        uses = {}
        check_includes(tree, uses)
        circles(tree, uses)
        check_long_files(tree)
        found = [w for w, _ in tree.problems]
        want = ["src/app/c/c.c:1", "src/app/c/c.c:2", "a, b", "src/app/c/c.c:%d" % (LONG + 2)]
        if sorted(found) != sorted(want):
            print("the checks themselves are wrong: on a made-up tree they found %s, not %s" %
                  (found, want))
            return False
    return True


def main():
    args = parse_args(sys.argv[1:])
    if not self_check():
        return 1
    tree = Tree(args["root"])
    uses = {}
    check_includes(tree, uses)
    if args["libs"]:
        check_functions(tree, args["libs"], args["nm"], uses)
    circles(tree, uses)
    check_long_files(tree)
    if args["list"]:
        listing(tree, uses)
        print()
    checked = "includes" + (", functions (nm)" if args["libs"] else "")
    if tree.problems:
        print("%d rule(s) broken (%s checked, %d folders):" % (len(tree.problems), checked,
                                                              len(tree.folders)))
        for where, msg in tree.problems:
            print("  %s: %s" % (where, msg))
        return 1
    print("the folder rules hold (%s checked, %d folders): no stray use, no circle, no C file "
          "over %d lines" % (checked, len(tree.folders), LONG))
    return 0


if __name__ == "__main__":
    sys.exit(main())
