"""Program coarsening: consecutive programs of a launch's grid run in one Triton program.

A kernel whose programs each do little (one small tile, no loops) launched over a huge grid is
bound by how fast the GPU starts programs, not by memory. TileGym's GEGLU runs 256-element tiles,
458752 programs for a 4096x28672 fp16 input: 58% of the copy bandwidth, where the same kernel in
fp32 (the same programs, twice the bytes) reaches 97%. Four programs of the grid in one, with 2
warps, took it from 144.5 to 91.8 us in bf16 (95% of a same-size copy;
docs/decisions/016-program-coarsening.md).

So an eligible kernel (`coarsen_refusal` returns "") is emitted as a loop over C2T_COARSEN
programs of the original grid, `c2t_bid0` taking the place of `tl.program_id(0)`, and the launcher
picks C2T_COARSEN at run time (translator/runtime/coarsen.py `_c2t_coarsen`): 1, a plain launch,
unless the largest tile is small and the grid has many more programs than the GPU runs at once.
Running programs one after another inside one program is a schedule the original could have had,
as long as programs do not wait on each other and nothing reads the block index behind the
loop's back. Hence the conditions: the kernel has no loops, no early return, no atomics, no
matrix products, does not read ct.num_blocks(0), and every function it calls (module helpers,
imported tile helpers found next to the file, dataclass methods) is free of those and of
ct.bid(0) too. A helper that cannot be found makes the kernel ineligible.
"""
from __future__ import annotations

from pathlib import Path

from ..ir import nodes as N

_SAFE_MODULES = {"math", "operator"}
_DOTS = {"mma", "matmul", "mma_scaled"}


def _axis_zero(call: N.Call) -> bool:
    a = call.args[0] if call.args else next((k.value for k in call.keywords if k.name == "axis"), None)
    return not (isinstance(a, N.Const) and a.value in (1, 2))


def _literal_axis(call: N.Call) -> bool:
    a = call.args[0] if call.args else next((k.value for k in call.keywords if k.name == "axis"), None)
    return isinstance(a, N.Const) and a.value in (0, 1, 2)


def _nodes(body):
    """The nodes under `body`, not descending into nested defs and lambdas (yielded themselves)."""
    stack = [body]
    while stack:
        n = stack.pop()
        if isinstance(n, list):
            stack.extend(reversed(n))
            continue
        if not isinstance(n, N.Node):
            continue
        yield n
        if isinstance(n, (N.FunctionDef, N.Lambda)):
            continue
        for f in reversed(list(vars(n).keys())):
            if f not in ("span", "full_span"):
                v = getattr(n, f)
                if isinstance(v, (N.Node, list)):
                    stack.append(v)


def _body_refusal(body, info, *, kernel: bool, found=None) -> tuple:
    """(why the statements cannot run coarsened or "", the functions they call or pass: local
    names, imported names, dataclass method names). Nested defs and lambdas are looked into as
    functions the statements call."""
    called, imported, methods = found or (set(), set(), set())
    for n in _nodes(body):
        if isinstance(n, (N.For, N.While)):
            return "it has a loop", (), (), ()
        if kernel and isinstance(n, N.Return):
            return "it returns early", (), (), ()
        if isinstance(n, N.BinOp) and n.op == "@":
            return "it multiplies matrices", (), (), ()
        if isinstance(n, (N.FunctionDef, N.Lambda)):
            why = _body_refusal(n.body if isinstance(n, N.FunctionDef) else [n.body], info, kernel=False,
                                found=(called, imported, methods))[0]
            if why:
                return why, (), (), ()
            continue
        if isinstance(n, N.Name):
            if n.id in info.functions and n.id not in info.kernels:
                called.add(n.id)
            elif n.id in info.imported:
                imported.add(n.id)
        if not isinstance(n, N.Call):
            continue
        path = info.ct_path(n.func)
        if path is not None:
            if path.startswith("atomic"):
                return f"it uses ct.{path}", (), (), ()
            if path in _DOTS:
                return f"it uses ct.{path}", (), (), ()
            if path == "num_blocks" and _axis_zero(n):
                return "it reads ct.num_blocks(0)", (), (), ()
            if path == "bid" and _axis_zero(n) and not kernel:
                return "a function it calls reads ct.bid(0)", (), (), ()
            if path == "bid" and not _literal_axis(n):
                return "it reads ct.bid of an axis that is not a literal", (), (), ()
            continue
        if isinstance(n.func, N.Attr):
            base = n.func.value
            while isinstance(base, N.Attr):         # `pkg.mod.f(...)`: the name it starts from
                base = base.value
            if isinstance(base, N.Name) and base.id in info.other_modules:
                if info.other_modules[base.id] not in _SAFE_MODULES:
                    return f"it calls `{base.id}...{n.func.attr}` (not looked into)", (), (), ()
            elif isinstance(base, N.Name) and base.id in info.imported:
                return f"it calls `{base.id}...{n.func.attr}` of an imported name (not looked into)", (), (), ()
            else:
                methods.add(n.func.attr)
    return "", called, imported, methods


def _imported_function(info, name: str, filename: str):
    """(the FunctionDef a from-imported name refers to and its module's info), (None, None) when it
    is not a function of a module found next to `filename`, or False when that module cannot be
    found or read."""
    from ..analysis import analyze
    from ..diagnostics import Reporter
    from ..imports import _module_file
    from ..ir.build import build_module
    from ..parse import parse
    target = info.imported[name]
    level = len(target) - len(target.lstrip("."))
    module, _, attr = target.lstrip(".").rpartition(".")
    path = _module_file(filename, module, level) if module else None
    if path is None:
        return False, None
    try:
        parsed = parse(Path(path).read_text(), Reporter(str(path)))
    except (OSError, UnicodeDecodeError):
        return False, None
    if parsed is None:
        return False, None
    other = analyze(build_module(parsed))
    fd = other.functions.get(attr)
    if fd is None:
        if attr in other.imported:          # re-exported: follow it once more
            return _imported_function(other, attr, str(path))
        return None, None
    return (fd, other, str(path)), None


def coarsen_refusal(fd: N.FunctionDef, info, filename: str) -> str:
    """Why kernel `fd` cannot run several programs of its grid per Triton program ("" when it can):
    see the module docstring."""
    why, called, imported, methods = _body_refusal(fd.body, info, kernel=True)
    if why:
        return why
    if not any(isinstance(n, N.Call) and info.ct_path(n.func) == "bid" and _axis_zero(n) for n in _nodes(fd.body)):
        return "it does not read ct.bid(0)"
    todo = [(info, filename, f) for f in called] + [(info, filename, ("import", n)) for n in imported]
    todo += [(info, filename, ("method", m)) for m in methods]
    seen = set()
    while todo:
        minfo, mfile, what = todo.pop()
        if len(seen) > 64:
            return "it calls too many functions to look into"
        if isinstance(what, tuple) and what[0] == "import":
            found, _ = _imported_function(minfo, what[1], mfile)
            if found is False:
                return f"`{what[1]}` comes from a module not found next to the file"
            if found is None:
                continue        # a constant, class or module, not a function
            f, minfo, mfile = found
            key = (mfile, f.name)
        elif isinstance(what, tuple):       # a method name: every dataclass method of that name
            for cls_methods in minfo.class_methods.values():
                f = cls_methods.get(what[1])
                if f is not None and (mfile, id(f)) not in seen:
                    seen.add((mfile, id(f)))
                    why, c, i, m = _body_refusal(f.body, minfo, kernel=False)
                    if why:
                        return why if why.startswith("a function") else f"method `{what[1]}`: {why}"
                    todo += [(minfo, mfile, x) for x in c] + [(minfo, mfile, ("import", x)) for x in i]
                    todo += [(minfo, mfile, ("method", x)) for x in m]
            continue
        else:
            f, key = minfo.functions[what], (mfile, what)
        if key in seen:
            continue
        seen.add(key)
        why, c, i, m = _body_refusal(f.body, minfo, kernel=False)
        if why:
            return why if why.startswith("a function") else f"`{f.name}`, which it calls: {why}"
        todo += [(minfo, mfile, x) for x in c] + [(minfo, mfile, ("import", x)) for x in i]
        todo += [(minfo, mfile, ("method", x)) for x in m]
    return ""
