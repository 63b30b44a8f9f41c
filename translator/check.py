"""Check a translation before claiming it (issue 33): the module is valid Python, and Triton's front
end (code generation to TTIR, which needs no GPU and is where Triton raises its CompilationErrors)
accepts every kernel for argument types its launch sites can pass.

Nothing of the input runs: the check builds a module of the translation's own Triton functions
(every `@triton.jit` definition), the imports of triton and math, and the module-level constants
those functions read when their values are literals or `tl.*` constants (anything else a kernel
reads makes that kernel unchecked, C2T216). That module is executed (it defines functions and
binds literals), and each kernel is handed to Triton's code generator with a signature made from
its plan (kernel_types): pointers for arrays, i32 for shapes and strides, the Constant values of
the launch sites or assumed ones.

Argument types checked (the "stated default set"): the spec's dtypes where the module has a
C2T_SPEC, else fp32, fp16 and bf16 for arrays of data, int32 and int64 for arrays whose tiles serve
as indices (check_inputs.index_arrays). A kernel that no type set compiles for is an error
(C2T110); one that compiles for some and not others gets a warning naming them (C2T215): cuTile may
reject those types too (a bitcast of fp16 data to int32, say). Where int64 index arrays fail only
because a variable is int32 on one path and int64 on another (`n = 0`, then `n = n + counts[e]` in
a loop), cuTile rejects them too, and the finding is an info (C2T217).
"""
from __future__ import annotations

import ast
import copy
import contextlib
import hashlib
import json
import linecache
import os
import re
import signal
import threading
from dataclasses import dataclass, field
from typing import Optional

from .cache_dir import open_private, private_cache_dir, write_private
from .interp_env import interpreter_env

class UnknownConstexpr(Exception):
    """A kernel's constexpr parameter the check has no value for (check_inputs._binder)."""


_CHECK_FORMAT = 2          # bump when what a cached result holds changes
_LOCK = threading.Lock()
_MEMO: dict = {}            # key -> None (compiled) or Triton's message
_ids = iter(range(1 << 62))


@dataclass
class KernelCheck:
    """One generated @triton.jit kernel to check."""
    jit_name: str               # the function in the generated module
    kernel: str                 # the cuTile kernel it translates
    line: int                   # the cuTile kernel's `def` line
    # [(label, bind, consts)] to try, in order: bind(params, values) -> (signature, constexprs);
    # consts: check_inputs.constant_candidates
    types: list
    required: set = field(default_factory=set)    # labels that must compile (the spec's dtypes)
    # tried when none of `types` compiles: integer and mixed array dtypes (a kernel may be valid
    # only for those: then it is no C2T110)
    fallback: list = field(default_factory=list)
    body: list = field(default_factory=list)      # the kernel's body lines (SrcLine: .origin)


@dataclass
class CheckFinding:
    code: str                   # C2T110 / C2T215 / C2T216 / C2T005
    kernel: str
    line: int
    col: int
    message: str
    hint: str = ""


def triton_available() -> bool:
    try:
        import triton  # noqa: F401
        from triton.backends.compiler import GPUTarget  # noqa: F401
    except Exception:       # not installed, or a broken install: the check is skipped (C2T216)
        return False
    return True


def interpreted() -> bool:
    """Whether triton runs (or was imported) under TRITON_INTERPRET=1: then it cannot compile here."""
    import sys
    if os.environ.get("TRITON_INTERPRET", "0").lower() in ("1", "true", "on", "yes"):
        return True
    tl = sys.modules.get("triton.language.standard")
    cdiv = getattr(tl, "cdiv", None) if tl else None
    return cdiv is not None and type(cdiv).__name__ == "InterpretedFunction"


def check_module(code: str, checks: list, *, full: bool = False) -> list:
    """Findings for the translated module `code` (see the module docstring); [] when all is well.
    `full`: also compile to a cubin for sm_90 (ptxas), not only to TTIR."""
    try:
        tree = ast.parse(code)
    except SyntaxError as e:
        bad = (code.splitlines() or [""])[max((e.lineno or 1) - 1, 0)].strip()
        return [CheckFinding("C2T005", "", 1, 1,
                             f"the translation is not valid Python ({e.msg} at its line {e.lineno}: `{bad[:120]}`)",
                             "this is a translator bug: please report it with the input file")]
    if not checks:
        return []
    text, missing = _jit_module(tree)
    out = []
    with _LOCK, interpreter_env(on=False):   # (@triton.jit must make compilable functions)
        try:
            ns = _exec(text)
        except Exception as e:      # (our own functions and literals only: a translator bug)
            return [CheckFinding("C2T216", c.kernel, c.line, 1,
                                 f"kernel `{c.kernel}` was not checked: its Triton functions do not load "
                                 f"({type(e).__name__}: {e})") for c in checks]
        for c in checks:
            fn = ns.get(c.jit_name)
            reads = missing.get(c.jit_name, set())
            if fn is None or reads:
                why = (f"it reads module names whose values the check does not evaluate: {', '.join(sorted(reads))}"
                       if reads else "its Triton function was not found")
                out.append(CheckFinding("C2T216", c.kernel, c.line, 1, f"kernel `{c.kernel}` was not checked: {why}"))
                continue
            out.extend(_check_kernel(fn, c, text, full))
    return out


# ---------------------------------------------------------------- the module of Triton functions
_SAFE_MODULES = ("triton", "math")
# the generated module's switches that its Triton functions read (set from the environment when it
# is imported): checked at their defaults, the compiled (not interpreted) form
_SWITCHES = {"_C2T_NARROW_ALL": "tl.constexpr(False)", "_C2T_NARROW_PAD": "tl.constexpr(False)",
             "_C2T_INTERPRET": "tl.constexpr(False)"}
# functions of the generated module the check replaces: cuTile's implicit-cast rule on stores and
# atomics and its rules on operators' dtypes and rounding modes (templates/prelude_casts.py.j2)
# judge the arrays' dtypes, and the check's typings give every array one dtype where the host may
# pass others (a float32 `mean` next to float16 data); what the check asks is whether Triton
# compiles the translation, so it checks with the rules off
def _stub(fd: ast.FunctionDef) -> ast.FunctionDef:
    """`fd` (a `_c2t_<rule>_message` constexpr function: cuTile's dtype rules, which judge the
    arrays' dtypes) as one that accepts everything: `return ""` with the same parameters."""
    stub = copy.deepcopy(fd)
    stub.body = [ast.Return(ast.Constant(""))]
    return stub


_STUBBED = {"_c2t_cast_message", "_c2t_binary_message", "_c2t_rd_message", "_c2t_astype_message",
            "_c2t_bitcast_message", "_c2t_mma_message", "_c2t_unary_message"}


def _is_rule_message(st) -> bool:
    return isinstance(st, ast.FunctionDef) and st.name in _STUBBED


def _is_jit(fd) -> bool:
    """A `@triton.jit` function, or one of the translation's own `@triton.constexpr_function`s
    (`_c2t_` names: the dtype rules of templates/prelude_casts.py.j2, which Triton runs when it
    compiles a kernel)."""
    for d in fd.decorator_list:
        f = d.func if isinstance(d, ast.Call) else d
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "triton" and (
                f.attr == "jit" or (f.attr == "constexpr_function" and fd.name.startswith("_c2t_"))):
            return True
    return False


def _literal_value(node, known: set) -> bool:
    """Whether `node` is built from literals, tl.* / triton.language.* attributes, tl.constexpr(...)
    calls and names in `known` only (so that evaluating it runs nothing of the input)."""
    for n in ast.walk(node):
        if isinstance(n, (ast.Constant, ast.Tuple, ast.List, ast.Load, ast.UnaryOp, ast.BinOp, ast.operator,
                          ast.unaryop)):
            continue
        if isinstance(n, ast.Name) and (n.id in known or n.id in ("tl", "triton", "math")):
            continue
        if isinstance(n, ast.Attribute) and _dotted(n).split(".")[0] in ("tl", "triton", "math"):
            continue
        if isinstance(n, ast.Call) and _dotted(n.func) == "tl.constexpr":
            continue
        return False
    return True


def _dotted(n) -> str:
    parts = []
    while isinstance(n, ast.Attribute):
        parts.append(n.attr)
        n = n.value
    if isinstance(n, ast.Name):
        parts.append(n.id)
        return ".".join(reversed(parts))
    return ""


def _module_statements(body, nested: bool = False):
    """The module's statements, and those inside its module-level `try` and `if` blocks
    (`try: import cuda.tile as ct` becomes a `try:` around Triton's imports; a kernel defined
    under `if HAVE_CUTILE:` stays there): an import or a jit function there counts. Assignments
    count only at the top level (one binding to a literal)."""
    for st in body:
        if isinstance(st, ast.Try):
            for part in (st.body, *(h.body for h in st.handlers), st.orelse, st.finalbody):
                yield from (x for x in _module_statements(part, True) if not isinstance(x, (ast.Assign, ast.AnnAssign)))
        elif isinstance(st, ast.If):
            for part in (st.body, st.orelse):
                yield from (x for x in _module_statements(part, True) if not isinstance(x, (ast.Assign, ast.AnnAssign)))
        else:
            yield st


def _jit_module(tree):
    """(source of a module with the translation's Triton functions and the literal constants they
    read, {jit function: names it reads that are not there})."""
    imports, jits, consts = [], {}, {}
    for st in _module_statements(tree.body):
        if isinstance(st, ast.Import) and all(a.name.split(".")[0] in _SAFE_MODULES for a in st.names):
            imports.append(st)
        elif isinstance(st, ast.ImportFrom) and st.level == 0 and (st.module or "").split(".")[0] in _SAFE_MODULES:
            imports.append(st)
        elif isinstance(st, ast.FunctionDef) and _is_jit(st):
            jits[st.name] = st
        elif isinstance(st, (ast.Assign, ast.AnnAssign)):
            targets = st.targets if isinstance(st, ast.Assign) else [st.target]
            if st.value is not None and len(targets) == 1 and isinstance(targets[0], ast.Name):
                consts.setdefault(targets[0].id, []).append(st)
    bound = {a.asname or a.name.split(".")[0] for st in imports for a in st.names} | set(jits)
    safe = {}
    for name, value in _SWITCHES.items():
        if name in consts:
            safe[name] = ast.parse(f"{name} = {value}").body[0]
    for name, sts in consts.items():        # bound once, to a literal: usable
        if len(sts) == 1 and name not in jits and _literal_value(sts[0].value, set(safe) | bound):
            safe[name] = sts[0]
    builtins = set(dir(__builtins__) if not isinstance(__builtins__, dict) else __builtins__)
    reads = {}
    for name, fd in jits.items():
        local = {a.arg for a in fd.args.args + fd.args.kwonlyargs}
        local |= {n.id for n in ast.walk(fd) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        used = {n.id for n in ast.walk(fd) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        reads[name] = {u for u in used - local - bound - set(safe) - builtins}
    # a function that calls one with unresolved reads inherits them
    changed = True
    while changed:
        changed = False
        for name, fd in jits.items():
            for n in ast.walk(fd):
                if isinstance(n, ast.Name) and n.id in jits and n.id != name and not reads[n.id] <= reads[name]:
                    reads[name] |= reads[n.id]
                    changed = True
    switches = [st for n, st in safe.items() if n in _SWITCHES]
    body = imports + switches + [st for st in _module_statements(tree.body) if any(st is v for v in safe.values())
                                 or (isinstance(st, ast.FunctionDef) and jits.get(st.name) is st)]
    body = [_stub(st) if _is_rule_message(st) else st for st in body]
    mod = ast.Module(body=body, type_ignores=[])
    return ast.unparse(mod) + "\n", {k: v for k, v in reads.items() if v}


def _exec(text: str) -> dict:
    fname = f"<cutile2triton-check-{next(_ids)}>"
    linecache.cache[fname] = (len(text), None, text.splitlines(True), fname)   # (Triton reads the source)
    ns = {"__name__": "cutile2triton_check", "__file__": fname}
    exec(compile(text, fname, "exec"), ns)      # noqa: S102 (definitions and literals only: _jit_module)
    return ns


# ---------------------------------------------------------------- compiling
# Triton messages that depend on the Constant values a kernel is compiled with: under assumed
# values such a failure says nothing about the translation (C2T216, not C2T110)
_VALUE_DEPENDENT = ("shape", "static_assert", "static assert", "static assertion", "power of 2", "power of two", "broadcast",
                    "dimension", "this branch is not for", "accumulator", "bytes", "out of range",
                    "must be at least", "too large", "exceeds", "divisible", "arange")


def _try_types(fn, params, bind, consts, text: str, full: bool):
    """Triton's first error for one typing of the kernel's arrays over the Constant values to try
    (None: it compiles)."""
    for group in consts["combos"]:      # each launch site's values (or assumed ones), in turn
        first = None
        for user in group:              # assumed values: one that compiles is enough
            sig, const = bind(params, user)
            res = _compile(fn, sig, const, text, full)
            if res is None:
                first = None
                break
            first = first or dict(res, values=_values_text(user))
        if first is not None:
            return first
    return None


def _check_kernel(fn, c: KernelCheck, text: str, full: bool) -> list:
    params = [(p.name, p.is_constexpr) for p in fn.params]
    results, unsure = {}, {}
    assumed = c.types[0][2].get("assumed") if c.types else False
    for label, bind, consts in c.types:
        try:
            err = _try_types(fn, params, bind, consts, text, full)
        except UnknownConstexpr as e:
            return [CheckFinding("C2T216", c.kernel, c.line, 1,
                                 f"kernel `{c.kernel}` was not checked: the check does not know what "
                                 f"its constexpr parameter `{e}` takes")]
        except CheckTimeout as e:
            return [CheckFinding("C2T216", c.kernel, c.line, 1,
                                 f"kernel `{c.kernel}` was not checked: Triton's compiler ran past {e} s "
                                 f"for {label} (a large unrolled loop?)",
                                 "C2T_CHECK_SECONDS sets the limit; launching it may take as long")]
        if err is not None and assumed and any(w in err["message"].lower() for w in _VALUE_DEPENDENT):
            unsure[label] = err
        elif err is not None:
            results[label] = err
        else:
            results[label] = None
    bad = {k: v for k, v in results.items() if v is not None}
    out = []
    for label in [k for k in bad if k not in c.required and _cutile_rejects_too(k, bad[k]["message"])]:
        err = bad.pop(label)
        name, was, now = _path_types(err["message"])
        out.append(CheckFinding(
            "C2T217", c.kernel, _origin(err, c, text)[0], 1,
            f"kernel `{c.kernel}` does not take {label}: with them the type of `{name}` depends on the "
            f"path taken ({was} and {now}), which cuTile rejects too (TileTypeError: \"Type of `{name}` "
            f"depends on path taken\"); Triton says so when it compiles the kernel",
            "nothing to do if the host passes int32 index arrays, as cuTile needs"))
    if not bad and unsure:
        label, err = next(iter(unsure.items()))
        line, gen = _origin(err, c, text)
        return [CheckFinding(
            "C2T216", c.kernel, line, 1,
            f"kernel `{c.kernel}` was not checked for {'; '.join(unsure)}: the host's Constant values are not "
            f"known here and with assumed ones ({err['values']}) Triton says: {err['message']}"
            + (f" [generated: `{gen}`]" if gen else ""),
            "the check knows Constant values the launch passes as literals or module constants")]
    if not bad:
        return out
    label, err = next(iter(bad.items()))
    line, gen = _origin(err, c, text)
    first = err["message"]
    values = f", {err['values']}" if err.get("values") else ""
    note = " (assumed Constant values)" if values and assumed else ""
    if len(bad) == len(results):
        # none of the usual typings compiles: integer or mixed array dtypes may (a kernel valid only
        # for int8 arrays, or for an fp32 and an int32 array) -- then it is not a translator error
        ok = next((lb for lb, bind, consts in c.fallback
                   if _try_types(fn, params, bind, consts, text, full) is None), None)
        if ok is not None:
            return out + [CheckFinding(
                "C2T215", c.kernel, line, 1,
                f"kernel `{c.kernel}` compiles with {ok} but Triton rejects it with {'; '.join(bad)}{values}: "
                f"{first}" + (f" [generated: `{gen}`]" if gen else ""),
                "if the host passes those types, the launch fails; cuTile may reject them too")]
    if len(bad) == len(results) or bad.keys() & c.required:
        which = ", ".join(bad) if len(bad) < len(results) + len(unsure) else "every argument type checked"
        return out + [CheckFinding(
            "C2T110", c.kernel, line, 1,
            f"Triton rejects the translation of kernel `{c.kernel}` ({which}; first: {label}{values}{note}): "
            f"{first}" + (f" [generated: `{gen}`]" if gen else ""),
            "this is a translator bug or a construct it lowers wrongly: please report it; meanwhile "
            "rewrite the statement, or translate with --no-compile-check to get the module as it is")]
    ok = [k for k in results if k not in bad]
    path = _path_types(first)
    why = (f" (with them the type of `{path[0]}` depends on the path taken: cuTile rejects that too, with "
           f"TileTypeError \"Type of `{path[0]}` depends on path taken\", unless the translation's types "
           "differ from cuTile's there)") if path else ""
    return out + [CheckFinding(
        "C2T215", c.kernel, line, 1,
        f"kernel `{c.kernel}` compiles with {'; '.join(ok)} but Triton rejects it with {'; '.join(bad)}"
        f"{values}: {first}" + (f" [generated: `{gen}`]" if gen else "") + why,
        "if the host passes those types, the launch fails; cuTile may reject them too")]


# Triton's errors for a variable whose type differs between the paths that reach a point (a loop's
# iterations, an `if`'s branches): cuTile's rule is the same (a variable's type may not depend on the
# path taken: cutile-language.md 3.14), so where the translation keeps cuTile's types these are types
# cuTile rejects too
_PATH_TYPES = (
    re.compile(r"Loop-carried variable (\w+) has initial type (.+?) but is re-assigned to (.+?) in loop"),
    re.compile(r"initial value for `(\w+)` is of type (\S+), but the \w+ block redefines it as (\S+)"),
    re.compile(r"Mismatched type for (\w+) between then block \((.+?)\) and else block \((.+?)\)"),
)


def _path_types(message: str):
    """(name, one type, the other) of such an error, else None."""
    for rx in _PATH_TYPES:
        m = rx.search(message)
        if m:
            return (m.group(1),) + tuple(_type_text(t) for t in m.group(2, 3))
    return None


def _type_text(t: str) -> str:
    """Triton's `<['1', '16'], fp16>` as `fp16[1, 16]` (scalars stay `int32`, `fp32[]`)."""
    m = re.fullmatch(r"<\[(.*)\], (\w+)>", t.strip())
    return f"{m.group(2)}[{m.group(1).replace(chr(39), '')}]" if m else t


def _cutile_rejects_too(label: str, message: str) -> bool:
    """Whether the failure of the assumed type set `label` is one cuTile's typing has too: int64
    index arrays (an assumption of the check, not of the host) that make an int32 variable int64 on
    some path (`n = 0` and then `n = n + counts[i]`). The lowering types integers as cuTile does
    (literals, extents and loop counters int32, an int64 array's elements int64, int32 with int64
    is int64), so
    cuTile rejects these arguments too; float types it does not judge (the lowering's fp16/bf16
    promotion could be wrong there: C2T215)."""
    found = _path_types(message)
    if not found or "int64 index arrays" not in label:
        return False
    return {t.split("[")[0] for t in found[1:]} == {"int32", "int64"}


def _values_text(user: dict) -> str:
    return ", ".join(f"{k}={getattr(v, 'name', v)}" for k, v in sorted(user.items()))


def _key(text, fn, sig, consts, full) -> str:
    import triton
    blob = json.dumps([_CHECK_FORMAT, text, fn.__name__, sorted(sig.items()), sorted((k, repr(v)) for k, v in consts.items()),
                       full, triton.__version__])
    return hashlib.sha256(blob.encode()).hexdigest()


def _compile(fn, sig: dict, consts: dict, text: str, full: bool) -> Optional[dict]:
    """None when Triton accepts `fn` with this signature, else {"message", "lineno"}."""
    key = _key(text, fn, sig, consts, full)
    if key in _MEMO:
        return _MEMO[key]
    disk = _disk_get(key)
    if disk is not _NOTHING:
        _MEMO[key] = disk
        return disk
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    src = ASTSource(fn, sig, consts)
    target = GPUTarget("cuda", 90, 32)
    res = None
    try:
        with _time_limit(_compile_seconds()):
            _compile_now(src, target, full)
    except Exception as e:      # Triton's CompilationError, or what its code generator raised
        if _timed_out(e):       # (Triton wraps what its code generator raised)
            raise CheckTimeout(_compile_seconds()) from None
        res = _describe(e)
    if res is None or res.get("compilation"):     # (not a failure of this process's set-up)
        _MEMO[key] = res
        _disk_put(key, res)
    return res


class CheckTimeout(Exception):
    """Triton's compiler ran past the check's time limit for one kernel (C2T_CHECK_SECONDS)."""


def _timed_out(e: BaseException) -> bool:
    seen = 0
    while e is not None and seen < 50:
        if isinstance(e, CheckTimeout):
            return True
        e, seen = e.__cause__ or e.__context__, seen + 1
    return False


def _compile_seconds() -> float:
    return float(os.environ.get("C2T_CHECK_SECONDS", "120"))


@contextlib.contextmanager
def _time_limit(seconds: float):
    """Raise CheckTimeout in this block after `seconds` (a real-time alarm: only in the main
    thread, where Python delivers signals; elsewhere no limit). Triton's code generator is Python,
    so a runaway unroll is interrupted there."""
    if seconds <= 0 or threading.current_thread() is not threading.main_thread():
        yield
        return

    def ring(signum, frame):
        raise CheckTimeout(seconds)
    old = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _compile_now(src, target, full: bool):
    """Triton's whole compile (full) or its code generator alone (the Triton IR), for sm_90."""
    import triton
    from triton.compiler.compiler import make_backend
    from triton._C.libtriton import ir
    if full:
        triton.compile(src, target=target)
        return
    backend = make_backend(target)
    options = backend.parse_options({})
    context = ir.context()
    ir.load_dialects(context)
    backend.load_dialects(context)
    src.make_ir(target, options, backend.get_codegen_implementation(options), backend.get_module_map(), context)


def _describe(e) -> dict:
    """Triton's message and the line (of the kernel's own function, when the error is there) of
    what it raised; a CompilationError in a helper the kernel calls is a chain of them."""
    from triton.compiler.errors import CompilationError
    lineno, compilation = None, isinstance(e, CompilationError)
    if isinstance(e, CompilationError):
        lineno = getattr(getattr(e, "node", None), "lineno", None)
        chain = [e]
        while isinstance(chain[-1].__cause__ or chain[-1].__context__, Exception) and len(chain) < 50:
            chain.append(chain[-1].__cause__ or chain[-1].__context__)
        msg = ""
        for x in reversed(chain):       # the innermost message that says something
            text = getattr(x, "error_message", None) if isinstance(x, CompilationError) else str(x)
            if text and text.strip() not in ("^", ""):
                msg = text if isinstance(x, CompilationError) else f"{type(x).__name__}: {text}"
                break
        if not msg:
            kind = type(chain[-1]).__name__
            msg = "static assertion failed" if "Assertion" in kind else kind
    else:
        msg = f"{type(e).__name__}: {e}"
    msg = " ".join(str(msg).split())
    return {"message": msg[:400], "lineno": lineno, "compilation": compilation}


def _origin(err: dict, c: KernelCheck, text: str):
    """(the cuTile line, the generated line) of a Triton error inside kernel `c.jit_name` (or in a
    helper it calls: then the kernel's own line)."""
    lineno = err.get("lineno")
    if not lineno:
        return c.line, ""
    lines = text.splitlines()
    # Triton numbers the lines of the function from its `def` (decorators not counted), from 1
    start = next((i for i, ln in enumerate(lines) if ln.startswith(f"def {c.jit_name}(")), None)
    if start is None or start + lineno - 1 >= len(lines):
        return c.line, ""
    gen = lines[start + lineno - 1].strip()
    body = [str(b).strip() for b in c.body]
    origins = [getattr(b, "origin", 0) for b in c.body]
    # the generated function's text is ast.unparse'd: match its line against the body by content
    target = _norm(gen)
    for i, b in enumerate(body):
        if b and _norm(b) == target and origins[i]:
            return origins[i], gen[:160]
    return c.line, gen[:160]


def _norm(s: str) -> str:
    try:
        return ast.unparse(ast.parse(s.split("  #")[0].strip().rstrip(":") + (":\n pass" if s.rstrip().endswith(":") else "")))
    except SyntaxError:
        return " ".join(s.split())


# ---------------------------------------------------------------- the on-disk memo
_NOTHING = object()


def _disk_get(key: str):
    d = private_cache_dir("check")
    if d is None:
        return _NOTHING
    f, _ = open_private(d / f"{key}.json")
    if f is None:
        return _NOTHING
    with f:
        try:
            return json.loads(f.read())["result"]
        except (ValueError, KeyError, OSError):
            return _NOTHING


def _disk_put(key: str, res):
    d = private_cache_dir("check")
    if d is not None:
        write_private(d / f"{key}.json", lambda f: f.write(json.dumps({"result": res}).encode()))
