#!/usr/bin/env python3
"""Whether the core's modules import each other in a cycle.

  scripts/check-imports.py            the graph of src/, and its cycles
  scripts/check-imports.py --edges    every import edge too
  scripts/check-imports.py --src DIR  another copy of the sources

A module is a file of src/ (a folder with mod.rs is one module with its
files). An import is any `crate::NAME` outside comments and outside
`#[cfg(test)]` items, which do not ship. Exit status 1 when a cycle is found,
with the modules of each cycle and the lines that make its edges.
"""
import argparse
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CRATE_PATH = re.compile(r"\bcrate::([a-z_][a-z0-9_]*)")


def without_tests(lines):
    """The lines outside `#[cfg(test)]` items (each ends where its braces close)."""
    kept, depth, skipping = [], 0, False
    for number, line in enumerate(lines, 1):
        if not skipping and line.strip() == "#[cfg(test)]":
            skipping, depth, opened = True, 0, False
            continue
        if skipping:
            code = line.split("//")[0]
            depth += code.count("{") - code.count("}")
            opened = opened or "{" in code
            if (opened and depth <= 0) or (not opened and code.rstrip().endswith(";")):
                skipping = False
            continue
        kept.append((number, line))
    return kept


def modules(src):
    """module name -> the files it is made of."""
    found = {}
    for entry in sorted(os.listdir(src)):
        path = os.path.join(src, entry)
        if entry.endswith(".rs") and entry != "lib.rs":
            found[entry[:-3]] = [path]
        elif os.path.isdir(path):
            found[entry] = sorted(os.path.join(path, f) for f in os.listdir(path) if f.endswith(".rs"))
    return found


def imports(found, src):
    """(module, imported module) -> the first line that makes that edge."""
    edges = {}
    for module, files in found.items():
        for path in files:
            with open(path) as f:
                lines = f.read().split("\n")
            for number, line in without_tests(lines):
                code = line.split("//")[0]
                for name in CRATE_PATH.findall(code):
                    if name != module and name in found:
                        edges.setdefault((module, name), f"{os.path.relpath(path, os.path.dirname(src))}:{number}")
    return edges


def cycles(nodes, edges):
    """Strongly connected components of more than one module (Tarjan)."""
    succ = {n: sorted(b for a, b in edges if a == n) for n in nodes}
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in succ[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for n in nodes:
        if n not in index:
            visit(n)
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--edges", action="store_true", help="print every import edge")
    parser.add_argument("--src", default=os.path.join(ROOT, "src"), help="the core's sources (default: src/)")
    args = parser.parse_args()
    src = os.path.abspath(args.src)
    found = modules(src)
    edges = imports(found, src)
    if args.edges:
        for (a, b), where in sorted(edges.items()):
            print(f"{a} -> {b}  ({where})")
    bad = cycles(sorted(found), edges)
    for component in bad:
        print("cycle: " + " <-> ".join(component))
        for (a, b), where in sorted(edges.items()):
            if a in component and b in component:
                print(f"  {a} -> {b}  ({where})")
    print(f"check-imports: {len(found)} modules, {len(edges)} imports, {len(bad)} cycles")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
