#!/usr/bin/env python3
"""The import graph of pool-runtime's top-level modules, and its cycles.

A top-level module is a file `pool-runtime/src/<name>.rs` or a folder
`pool-runtime/src/<name>/` (with its files). A module imports `x` when one of
its files holds a path `crate::x...` (in code, a `use` or an expression, or in
a doc link), with `x` a top-level module. A path to an item that `lib.rs`
re-exports (`crate::Pool`, `crate::{Reset, Shrink}`) counts as an import of
the module that defines the item. Paths into the crate root's own items
(`crate::Poolable`, `crate::__private`) are not edges.

Prints each module's imports, with `[doc]` on a module reached only through
doc comments and `[test]` on one reached only from a unit-test module
(`#[cfg(test)] mod tests`) or a doc comment in one; then the strongly
connected components of more than one module (a cycle), first over the code
imports, then with the doc and test edges too. Exits 1 if the code imports
have a cycle; with `--strict`, if any of the two has. A doc link from a
lower module's public item to a higher one's (a `Stats` field to the
`Pool::get` it counts) is a cross reference for the reader, not an import,
and a test module may drive the pool from above; so neither is in the gate
by default. Standard library only.

With `--inside FOLDER` (a top-level folder such as `tier`), the same for
the files of that folder, through `super::x` and `crate::FOLDER::x` paths;
a cycle there is printed, not failed on.

    python3 scripts/module_graph.py [--strict] [--inside FOLDER]
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "pool-runtime" / "src"

IDENT = r"[A-Za-z_][A-Za-z0-9_]*"


def modules() -> dict[str, list[Path]]:
    """Each top-level module and its files."""
    found: dict[str, list[Path]] = {}
    for path in sorted(SRC.iterdir()):
        if path.is_file() and path.suffix == ".rs" and path.name != "lib.rs":
            found[path.stem] = [path]
        elif path.is_dir():
            found[path.name] = sorted(path.rglob("*.rs"))
    return found


def reexports(mods: set[str]) -> dict[str, str]:
    """Name re-exported by lib.rs -> the top-level module that defines it."""
    lib = (SRC / "lib.rs").read_text()
    names: dict[str, str] = {}
    for m in re.finditer(r"pub use (" + IDENT + r")::((?:" + IDENT + r"::)*)(\{[^}]*\}|" + IDENT + r")\s*;", lib):
        module, items = m.group(1), m.group(3)
        if module not in mods:
            continue
        for item in re.findall(IDENT, items):
            if item != "self":
                names[item] = module
    return names


def crate_paths(text: str):
    """First segments of every `crate::` path: `crate::a::b` gives `a`,
    `crate::{a, b::c}` gives `a` and `b`."""
    for m in re.finditer(r"\bcrate::", text):
        rest = text[m.end():]
        if rest.startswith("{"):
            depth, i = 0, 0
            for i, ch in enumerate(rest):
                depth += ch == "{"
                depth -= ch == "}"
                if depth == 0:
                    break
            inner = rest[1:i]
            # Top-level items of the group: split on commas outside braces.
            depth, part = 0, ""
            parts = []
            for ch in inner:
                if ch == "{":
                    depth += 1
                elif ch == "}":
                    depth -= 1
                if ch == "," and depth == 0:
                    parts.append(part)
                    part = ""
                else:
                    part += ch
            parts.append(part)
            for p in parts:
                ident = re.match(r"\s*(" + IDENT + ")", p)
                if ident:
                    yield ident.group(1)
        else:
            ident = re.match(IDENT, rest)
            if ident:
                yield ident.group(0)


def logical_lines(text: str):
    r"""The lines of `text`, with a `crate::{` group that rustfmt broke over
    several lines joined onto the line it starts on, so its paths are seen.

    >>> list(logical_lines("use crate::{\n    pool::Pool,\n    stats,\n};\nfn f() {}"))
    ['use crate::{ pool::Pool, stats, };', 'fn f() {}']
    >>> sorted(crate_paths(next(logical_lines("use crate::{\n    pool::Pool,\n    stats,\n};"))))
    ['pool', 'stats']
    """
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        group = re.search(r"\bcrate::\{", line)
        while group and line[group.end() - 1:].count("{") > line[group.end() - 1:].count("}") and i + 1 < len(lines):
            i += 1
            line += " " + lines[i].strip()
        yield line
        i += 1


CODE, TEST, DOC = 0, 1, 2  # the kinds of an edge, strongest first


def graph():
    """module -> {imported module: the strongest kind of its paths}."""
    mods = modules()
    names = reexports(set(mods))
    edges: dict[str, dict[str, int]] = {m: {} for m in mods}
    for module, files in mods.items():
        for path in files:
            test_depth = None  # brace depth inside a unit-test module
            cfg_test = False
            for line in logical_lines(path.read_text()):
                stripped = line.lstrip()
                if test_depth is None:
                    if re.match(r"#\[cfg\(.*\btest\b", stripped):
                        cfg_test = True
                    elif cfg_test and re.match(r"(pub(\(\w+\))? )?mod \w+\s*\{", stripped):
                        test_depth = 0
                    elif stripped and not stripped.startswith("#"):
                        cfg_test = False
                in_test = test_depth is not None
                if in_test:
                    test_depth += line.count("{") - line.count("}")
                    if test_depth <= 0 and "}" in line:
                        test_depth = None
                        cfg_test = False
                is_doc = stripped.startswith(("///", "//!", "#![doc", "#[doc"))
                if stripped.startswith("//") and not is_doc:
                    continue  # a plain comment
                kind = TEST if in_test else DOC if is_doc else CODE
                for first in crate_paths(line):
                    target = first if first in mods else names.get(first)
                    if target is None or target == module:
                        continue
                    edges[module][target] = min(edges[module].get(target, DOC), kind)
    return edges


def sccs(edges: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
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
            out.append(sorted(comp))

    sys.setrecursionlimit(10_000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def cycles(edges: dict[str, dict[str, int]], kinds: set[int]) -> list[list[str]]:
    """The strongly connected components of more than one module, over the
    edges of these kinds."""
    chosen = {m: {t for t, k in out.items() if k in kinds} for m, out in edges.items()}
    return [c for c in sccs(chosen) if len(c) > 1]


def inside(folder: str) -> int:
    """The graph of the files of one top-level folder (code paths only)."""
    files = {p.stem: p for p in sorted((SRC / folder).glob("*.rs")) if p.name != "mod.rs"}
    pattern = re.compile(r"\b(?:super|crate::" + folder + r")::(" + IDENT + r")")
    edges: dict[str, dict[str, int]] = {m: {} for m in files}
    for name, path in files.items():
        for line in path.read_text().splitlines():
            if line.lstrip().startswith("//"):
                continue
            for target in pattern.findall(line):
                if target in files and target != name:
                    edges[name][target] = CODE
    for name in sorted(edges):
        print(f"{folder}/{name} -> {' '.join(sorted(edges[name]))}")
    found = cycles(edges, {CODE})
    print(f"\ninside {folder}/: " + ("no cycle" if not found else ""))
    for c in found:
        print(f"  cycle (strongly connected): {' '.join(c)}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--strict", action="store_true", help="fail on a cycle through doc or test edges too")
    parser.add_argument("--inside", metavar="FOLDER", help="the graph of the files of this top-level folder")
    args = parser.parse_args()
    if args.inside:
        return inside(args.inside)
    edges = graph()
    mark = {CODE: "", TEST: "[test]", DOC: "[doc]"}
    for module in sorted(edges):
        shown = [t + mark[k] for t, k in sorted(edges[module].items())]
        print(f"{module} -> {' '.join(shown)}")
    failed = False
    for title, kinds, gates in [
        ("code imports", {CODE}, True),
        ("code, test and doc edges", {CODE, TEST, DOC}, args.strict),
    ]:
        found = cycles(edges, kinds)
        print(f"\n{title}: " + ("no cycle" if not found else ""))
        for c in found:
            print(f"  cycle (strongly connected): {' '.join(c)}")
        failed |= bool(found) and gates
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
