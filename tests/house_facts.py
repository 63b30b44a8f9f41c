"""Facts about the translator's own code (issue 34): import circles between its modules, imports
that run back up the package tree, the largest modules and functions, imports inside functions.

    python tests/house_facts.py [--json]

Reads the source with `ast` (nothing is imported or run)."""
from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

PKG = Path(__file__).resolve().parent.parent / "translator"


def _module_name(path: Path) -> str:
    rel = path.relative_to(PKG.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _resolve(mod: str, node: ast.ImportFrom, is_pkg: bool) -> list:
    """The package modules an import names (`from . import x` names x when x is a module)."""
    if node.level:
        base = mod.split(".") if is_pkg else mod.split(".")[:-1]
        base = base[:len(base) - (node.level - 1)]
        target = ".".join(base + ([node.module] if node.module else []))
    else:
        target = node.module or ""
    if not target.startswith("translator"):
        return []
    subs = [f"{target}.{a.name}" for a in node.names]
    return subs if node.module is None else [target] + subs      # (`from . import x`: x only)


def facts() -> dict:
    files = sorted(p for p in PKG.rglob("*.py") if "__pycache__" not in p.parts)
    names = {_module_name(p): p for p in files}
    graph: dict = {m: set() for m in names}
    top_graph: dict = {m: set() for m in names}      # module-level imports only (what can circle)
    inner, sizes, funcs = 0, {}, []
    for mod, path in names.items():
        text = path.read_text()
        tree = ast.parse(text)
        sizes[mod] = len(text.splitlines())
        top = set(id(n) for n in tree.body)
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                funcs.append((node.end_lineno - node.lineno + 1, f"{mod}.{node.name}"))
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            if isinstance(node, ast.ImportFrom):
                targets = _resolve(mod, node, path.name == "__init__.py")
            else:
                targets = [a.name for a in node.names if a.name.startswith("translator")]
            targets = [t for t in targets if t in names and t != mod]
            graph[mod].update(targets)
            if id(node) in top:
                top_graph[mod].update(targets)
            elif targets:
                inner += 1
    cycles = _cycles(graph)     # (with the imports inside functions, which only defer a circle)
    back_up = sorted(f"{a} -> {b}" for a, bs in top_graph.items() for b in bs
                     if b != "translator" and a.startswith(b + "."))
    funcs.sort(reverse=True)
    return {"modules": len(names), "lines": sum(sizes.values()),
            "import_circles": len(cycles), "circles": [" -> ".join(c) for c in cycles],
            "import_circles_at_module_level": len(_cycles(top_graph)),
            "imports_back_up": back_up, "imports_inside_functions": inner,
            "largest_modules": sorted(((n, m) for m, n in sizes.items()), reverse=True)[:8],
            "largest_functions": funcs[:8], "functions_over_80_lines": sum(1 for n, _ in funcs if n > 80)}


def _cycles(graph: dict) -> list:
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
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

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


if __name__ == "__main__":
    f = facts()
    if "--json" in sys.argv:
        print(json.dumps(f, indent=1))
    else:
        for k, v in f.items():
            print(f"{k}: {v}")
