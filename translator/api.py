"""Public entry points: translate_source / translate_file, and their result types."""
from __future__ import annotations

import re
import traceback
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Optional

from . import emit, partial
from .analysis import analyze
from .diagnostics import ERROR, WARNING, Reporter, TranslationError
from .imports import check_cutile_imports
from .helper_sets import kernel_helpers, library_helpers
from .host import Edit, apply_edits, drop_ct_aliases, host_name_uses, rewrite_host
from .ir import nodes as N
from .ir.build import build_module
from .lower.arrays import walk
from .lower.kernel import Shared
from .lower.helpers import lower_call, lower_library_helper
from .lower.kernels import HostUse, plan_kernel
from .passes import fn_values, with_inline
from .parse import parse


@dataclass
class Options:
    """Translation options. `strict`: warnings count as failures for the exit status."""
    strict: bool = False
    source_name: Optional[str] = None     # name written in the header (defaults to the filename)
    # check the translation before claiming it (translator/check.py): None = where triton is
    # importable, unless $C2T_CHECK is 0; "full" also compiles each kernel to a cubin (ptxas)
    check: object = None
    # a construct that cannot be translated refuses the kernel it is in (a stand-in whose launch
    # raises), not the module; False: any error refuses the module (Result.code is None)
    partial: bool = True
    # {kernel: {array parameter: rank}}: ranks the launch gives (the shim, where a launch's array
    # has a rank other than the one the kernel's text shows): those parameters are lowered with
    # these ranks, as cuTile compiles the kernel for them
    ranks: Optional[dict] = None
    # carry the launch runtime's pieces the module uses (translator/runtime/) in it, so that it
    # needs only torch and triton; False: import them from the installed `translator.runtime`
    standalone: bool = False
    # lay the module out with ruff's formatter (translator/formatting.py; CLI --format); off by
    # default until the tests that read generated text are written for the formatted layout
    format: bool = False
    # launcher parameters every launcher takes whatever the module's host code asks for, as
    # `host_needs` names ("pdl": c2t_pdl): the shim, whose ct.launch calls are not in the module
    launcher_needs: frozenset = frozenset()


@dataclass
class KernelSummary:
    name: str
    line: int
    translated: bool
    params: list = field(default_factory=list)   # "name: array[2]" / "name: constexpr" / "name: scalar"
    hints: dict = field(default_factory=dict)
    diagnostics: int = 0
    stub: bool = False          # refused: a stand-in whose launch raises (partial translation)

    def as_dict(self) -> dict:
        return dict(name=self.name, line=self.line, translated=self.translated, params=self.params,
                    hints=self.hints, diagnostics=self.diagnostics, stub=self.stub)


@dataclass
class Result:
    code: Optional[str]
    diagnostics: list
    kernels: list
    filename: str = "<string>"
    stubs: list = field(default_factory=list)    # kernels written as stand-ins (partial translation)
    suppressed: list = field(default_factory=list)   # diagnostics silenced by `# c2t: ignore[...]`

    @property
    def ok(self) -> bool:
        return self.code is not None and not any(d.severity == ERROR for d in self.diagnostics)

    @property
    def partial(self) -> bool:
        """Written with errors: refused kernels are stand-ins, untranslated host names raise when used."""
        return self.code is not None and not self.ok

    @property
    def warnings(self) -> list:
        return [d for d in self.diagnostics if d.severity == WARNING]

    def exit_code(self, strict: bool = False) -> int:
        if not self.ok:
            return 2
        return 1 if strict and self.warnings else 0

    def as_dict(self) -> dict:
        return {"file": self.filename, "ok": self.ok, "partial": self.partial, "stubs": self.stubs,
                "diagnostics": [d.as_dict() for d in self.diagnostics],
                "suppressed": [d.as_dict() for d in self.suppressed],
                "kernels": [k.as_dict() for k in self.kernels]}


def read_source(path) -> str:
    """A Python source file's text, decoded as Python decodes it: UTF-8 (a BOM dropped), or the
    encoding its PEP 263 `# -*- coding: NAME -*-` line names."""
    import tokenize
    with tokenize.open(path) as f:      # (detect_encoding: the BOM, the coding line, else UTF-8)
        return f.read()


def translate_file(path, options: Optional[Options] = None) -> Result:
    path = Path(path)
    try:
        text = read_source(path)
    except (OSError, UnicodeDecodeError, SyntaxError, LookupError) as e:
        rep = Reporter(str(path))
        rep.add("C2T004", f"cannot read {path}: {e}")
        return Result(None, rep.sorted(), [], str(path))
    return translate_source(text, str(path), options)


def translate_source(text: str, filename: str = "<string>", options: Optional[Options] = None) -> Result:
    """Translate one module's text. Notes and warnings whose line carries `# c2t: ignore[CODE]`
    are moved to Result.suppressed (translator/suppress.py)."""
    from .suppress import inline_ignores, split
    res = _translate_source(text, filename, options)
    res.diagnostics, res.suppressed = split(res.diagnostics, inline_ignores(text))
    unchanged = any(d.code == "C2T001" for d in res.diagnostics + res.suppressed)   # not a cuTile module
    if res.code is not None and not unchanged and (options or Options()).format:
        from .formatting import FormatError, drop_orphaned_imports, format_code
        try:
            res.code = format_code(drop_orphaned_imports(text, res.code))
        except FormatError as e:          # valid Python ruff cannot format: the translator's bug
            res.diagnostics.append(Reporter(filename).make("C2T003", str(e)))
            res.code = None
    return res


def _translate_source(text: str, filename: str, options: Optional[Options]) -> Result:
    options = options or Options()
    rep = Reporter(filename)
    try:
        return _translate(text, filename, options, rep)
    except TranslationError as e:
        rep.items.append(e.diag)
    except RecursionError:
        rep.add("C2T003", "input nests too deeply for the translator")
    except Exception as e:  # never a traceback for the user: a located internal error instead
        where = traceback.extract_tb(e.__traceback__)[-1]
        rep.add("C2T003", f"{type(e).__name__}: {e} (at {Path(where.filename).name}:{where.lineno})")
    return Result(None, rep.sorted(), [], filename)


def _translate(text: str, filename: str, options: Options, rep: Reporter) -> Result:
    parsed = parse(text, rep)
    if parsed is None:
        return Result(None, rep.sorted(), [], filename)
    n_base = len(rep.items)
    refused: dict = {}      # kernel name -> the errors that refused it (partial translation)
    known: dict = {}        # ... -> its summary when it was refused (its parameters as lowered)
    while True:
        rep.withdraw(n_base)
        for diags in refused.values():
            rep.restore(diags)
        res, failing = _translate_once(parsed, filename, options, rep, refused, known)
        if not failing or not options.partial:
            return res
        refused.update(failing)         # translate again with these kernels as stand-ins
        known.update((k.name, k) for k in res.kernels)


def _translate_once(parsed, filename: str, options: Options, rep: Reporter, refused: dict, known: dict):
    """One translation with the kernels in `refused` as stand-ins. Returns the result and the
    kernels found failing this time (their errors), for which the caller translates again."""
    text = parsed.text
    n_start = len(rep.items)        # (before: the refused kernels' errors)
    mod = build_module(parsed)
    info = analyze(mod)
    if not info.imports_ct:
        rep.add("C2T001", "no `import cuda.tile` found; the file is returned unchanged")
        return Result(text, rep.sorted(), [], filename), {}

    check_cutile_imports(info, filename, rep)
    value_diags = with_inline.resolve_kernels(info, rep)   # context managers in kernels (passes/with_inline.py)
    value_diags += fn_values.resolve_kernels(info, rep)    # function values in kernels (passes/fn_values.py)
    # (those of kernels refused in an earlier round are reported already, restored above)
    gone = {k: info.kernels[k] for k in refused if k in info.kernels}
    value_diags = [d for d in value_diags if not (gone and partial.owners(d, info, gone, {}))]
    # names used by host code: not in kernels, nor in the helpers only kernels reach
    helpers = kernel_helpers(info)
    library = library_helpers(info, helpers) - info.inlined_cms     # tile helpers for other modules' kernels
    refused_fds = {name: info.kernels.pop(name) for name in refused if name in info.kernels}
    dead = helpers - set(partial.helper_reach(info, info.kernels))   # reached only by refused kernels
    host_uses = host_name_uses(info, set(info.kernels) | helpers | library | set(refused_fds) | info.inlined_cms)
    dead = {h for h in dead if not host_uses.get(h)}
    todo = [h for h in helpers if host_uses.get(h)]      # host-called helpers keep their callees
    while todo:
        for n in walk(info.functions[todo.pop()].body):
            if isinstance(n, N.Name) and n.id in helpers and not host_uses.get(n.id):
                host_uses[n.id] = 1
                todo.append(n.id)
    shared = Shared(info=info, reporter=rep, comments=parsed.comments, text=text, calls=lower_call,
                    host_uses=host_uses, launch_ranks=dict(options.ranks or {}))
    n_analysis = len(rep.items)
    rep.items.extend(value_diags)
    plans = {name: plan_kernel(shared, fd) for name, fd in info.kernels.items()}
    stubs = [partial.kernel_stub(info.nested[name].fd.name if name in info.nested else name, fd, refused[name])
             for name, fd in refused_fds.items()]
    stubs += [partial.helper_stub(h, info.functions[h], "only kernels that were not translated call it")
              for h in sorted(dead)]
    stubs += _library_helpers(shared, info, library, rep)
    if options.partial and not any(d.severity == ERROR for d in rep.items[n_start:n_analysis]):
        failing = _failing_kernels(rep.items[n_analysis:], info, plans)
        if failing is not None and failing:
            return Result(None, rep.sorted(), _summaries(plans, failing, rep), filename), failing
    helper_names = set(shared.helpers) | dead
    if any(d.severity == ERROR for d in rep.items):
        # a helper kernels call that failed to lower is not host code either (its errors are
        # reported where the kernel calls it; the module is refused)
        helper_names |= helpers
    n_host = len(rep.items)
    host = rewrite_host(info, text, rep, plans, set(info.kernels) | library | set(refused_fds) | info.inlined_cms | {
        h for h in helper_names if not shared.host_uses.get(h)}, refused=set(refused_fds))
    plans = _apply_host_facts(host, plans, shared)
    shared.host_needs |= set(options.launcher_needs)
    edits = list(host.edits) + stubs
    edits.extend(_kernel_edits(plans, shared))
    marks = _Marks()
    edits.extend(_imports_and_prelude(info, shared, plans, text, marks))
    replaced = set(info.kernels) | set(refused_fds) | dead | info.inlined_cms | {
        h for h in shared.helpers if not shared.host_uses.get(h)}
    edits.extend(drop_ct_aliases(info, host_name_uses(info, replaced), text, rep))
    host_errors = [d for d in rep.items[n_host:] if d.severity == ERROR]
    contained = options.partial and not any(d.severity == ERROR for d in rep.items[n_start:n_host])
    if refused_fds or (contained and host_errors):
        edits.append(_after_imports(info, text, partial.placeholder_block(info, host_errors)))
    body = _fill_marks(apply_edits(text, edits), marks, set(info.other_modules), options.standalone)
    source = options.source_name or filename
    code = emit.format_module(emit.render("module.py.j2", version=_version(), source=source, body=body,
                                               standalone=options.standalone))

    diags = rep.sorted()
    kernels = [_summary(name, plan, diags) for name, plan in plans.items()]
    kernels += [replace(known[name], translated=False, stub=True) if name in known else
                KernelSummary(name=name, line=fd.span.line, translated=False, stub=True,
                              diagnostics=len(refused[name])) for name, fd in refused_fds.items()]
    kernels.sort(key=lambda k: k.line)
    if rep.has_errors and not contained:
        return Result(None, diags, kernels, filename), {}
    if _check_wanted(options):
        n_check = len(rep.items)
        _check(code, info, plans, rep, options, source=(parsed.text, filename))
        failing = {}
        for d in rep.items[n_check:]:
            if d.code == "C2T110" and "`" in d.message and d.message.split("`")[1] in plans:
                failing.setdefault(d.message.split("`")[1], []).append(d)
        if failing and options.partial and not any(d.code == "C2T005" for d in rep.items[n_check:]):
            return Result(None, rep.sorted(), _summaries(plans, failing, rep), filename), failing
        if any(d.severity == ERROR for d in rep.items[n_check:]):
            return Result(None, rep.sorted(), _mark_checked(kernels, rep), filename), {}
        diags = rep.sorted()
    return Result(code, diags, kernels, filename, stubs=sorted(refused_fds)), {}


def _apply_host_facts(host, plans: dict, shared: Shared) -> dict:
    """The plans with what the host rewrite found that the kernels' code depends on (autotuned,
    launched by host loops); the host prelude parts it needs go to `shared.host_needs`."""
    shared.host_needs |= host.needs
    out = {}
    for name, plan in plans.items():
        batch = host.batched.get(name)
        use = HostUse(tuned=name in host.tuned, batched=batch is not None,
                      **(dict(zip(("batch_consts", "batch_arrays", "batch_written"), batch)) if batch else {}))
        out[name] = replace(plan, host=use) if use != HostUse() else plan
    return out


def _closure_binding(nested) -> str:
    """Where a kernel was defined inside a function: its name bound to the hoisted kernel and the
    values it reads there (nested_kernels.py)."""
    caps = ", ".join(nested.captures) + ("," if len(nested.captures) == 1 else "")
    return (f"# `{nested.fd.name}` is the module-level kernel `{nested.hoisted.name}`, launched with what it "
            f"reads here\n{nested.fd.name} = _c2t_closure_kernel({nested.hoisted.name}, lambda: ({caps}))")


def _summaries(plans: dict, names, rep: Reporter) -> list:
    diags = rep.sorted()
    return [_summary(name, plans[name], diags) for name in names]


def _failing_kernels(diags: list, info, plans: dict):
    """Kernels the lowering errors in `diags` belong to (name -> its errors), or None when one of
    them belongs to no kernel (the module is refused)."""
    errors = [d for d in diags if d.severity == ERROR]
    if any(d.module for d in errors):
        return None
    reach = partial.helper_reach(info, info.kernels)
    failing: dict = {}
    for d in errors:
        found = partial.owners(d, info, info.kernels, reach)
        if not found:
            return None
        for k in found:
            failing.setdefault(k, []).append(d)
    return failing


def _library_helpers(shared: Shared, info, library: set, rep: Reporter) -> list:
    """Lower the tile helpers for other modules' kernels; one that fails becomes a stand-in that
    raises (C2T209), as nothing in this module calls it."""
    stubs = []
    for name in sorted(library, key=lambda n: info.functions[n].span.start):
        if name in shared.helpers:          # (already lowered as the callee of another one)
            continue
        n0 = len(rep.items)
        saved = (dict(shared.helpers), list(shared.helper_order), dict(shared.extra_defs),
                 dict(shared.helper_plans))
        lower_library_helper(shared, info.functions[name])
        if name not in shared.helpers or any(d.severity == ERROR for d in rep.items[n0:]):
            # (what its lowering added, callees' variants included, is dropped)
            shared.helpers, shared.helper_order, shared.extra_defs = saved[0], saved[1], saved[2]
            shared.helper_plans = saved[3]
            first = next((d for d in rep.items[n0:] if d.severity == ERROR), None)
            rep.withdraw(n0)
            why = f"{first.message} (line {first.line})" if first else "it could not be lowered"
            fd = info.functions[name]
            rep.add("C2T209", f"function `{name}` (no kernel or host code of this module calls it) was not "
                              f"translated: {why}; its translation raises NotImplementedError", fd.span)
            stubs.append(partial.helper_stub(name, fd, why))
        elif not any(isinstance(n, N.Call) and any(isinstance(a, N.Name) and a.id == name for a in n.args)
                     for other, fd in info.functions.items() if other != name for n in walk(fd.body)):
            # (one this module passes as a value, e.g. a ct.reduce combine function, is used here: no note)
            rep.add("C2T210", f"function `{name}` uses tile operations and no kernel or host code of this module "
                              "calls it: translated as a Triton helper (@triton.jit) for other modules' kernels",
                    info.functions[name].span)
    return stubs


def _kernel_edits(plans: dict, shared: Shared) -> list:
    """Each kernel's text -> its Triton kernel(s) and launcher; each lowered helper's -> its jit form."""
    needs = shared.host_needs
    if any(plan.hints.get("num_ctas") for plan in plans.values()):
        needs.add("hints")
    hints = "hints" in needs    # launchers take cuTile hints (num_ctas) at run time
    pdl = "pdl" in needs        # ... and programmatic dependent launch (c2t_pdl)
    edits = []
    for name, plan in plans.items():
        parts = []
        for kp_plan in plan.subs or [plan]:       # rank variants: one kernel each, then the dispatcher
            params = [{"text": kp.kernel_params(), "comment": kp.comment, "name": kp.name} for kp in kp_plan.params]
            parts.append(emit.render("kernel.py.j2", k=kp_plan, params=params, hints=hints, pdl=pdl,
                                     **_batch_slots(kp_plan)))
        if plan.subs:
            parts.append(emit.render("rank_dispatch.py.j2", k=plan, hints=hints, pdl=pdl))
        nested = shared.info.nested.get(name)
        if nested is not None:      # a kernel defined inside a function: at module level, before it
            start = getattr(nested.top, "full_span", nested.top.span).start
            edits.append(Edit(start, start, "\n\n\n".join(parts) + "\n\n\n"))
            edits.append(Edit(nested.fd.full_span.start, nested.fd.full_span.end, _closure_binding(nested), block=True))
            continue
        edits.append(Edit(plan.fd.full_span.start, plan.fd.full_span.end, "\n\n\n".join(parts), block=True))
    for hname in shared.helper_order:
        plan = shared.helpers[hname]
        code = emit.render("helper.py.j2", h=plan)
        fd = plan.fd
        if shared.host_uses.get(hname):     # still used on the host: keep it, add the jit twin
            edits.append(Edit(fd.full_span.end, fd.full_span.end, "\n\n\n" + code))
        else:
            edits.append(Edit(fd.full_span.start, fd.full_span.end, code, block=True))
    return edits


def _summary(name: str, plan, diags: list) -> KernelSummary:
    kdiags = [d for d in diags if plan.fd.full_span.line <= d.line <= plan.fd.span.end_line]
    return KernelSummary(
        name=name, line=plan.fd.span.line,
        translated=plan.ok and not any(d.severity == ERROR for d in kdiags),
        params=[f"{p.name}: {p.kind}" + (f"[{_ranks_of(plan, p)}]" if p.kind in ("array", "list") else "")
                for p in plan.params],
        hints=dict(plan.hints), diagnostics=len(kdiags))


def _check_wanted(options: Options) -> bool:
    import os
    if options.check is None:
        from .check import triton_available
        return os.environ.get("C2T_CHECK", "1") != "0" and triton_available()
    return bool(options.check)


_CHECK_CODES = ("C2T005", "C2T110", "C2T215", "C2T216", "C2T217")


def _check(code: str, info, plans: dict, rep: Reporter, options: Options, source=None):
    """Run the translation check and report what it found (C2T005/C2T110 errors, C2T215/C2T216)."""
    from .check import check_module, interpreted, triton_available
    from .check_inputs import kernel_checks
    from .diagnostics import Span
    if not triton_available():
        rep.add("C2T216", "the translation was not checked: triton is not installed "
                          "(pip install 'cutile2triton[test]', or translate with --no-compile-check)")
        return
    if interpreted() and source is not None:
        # (triton imported under TRITON_INTERPRET=1 cannot compile: the check runs in a process
        # without it, on the same input)
        for d in _check_elsewhere(*source, options):
            rep.add(d["code"], d["message"], Span(d["line"], d["col"]), d["hint"])
        return
    for f in check_module(code, kernel_checks(info, plans), full=options.check == "full"):
        rep.add(f.code, f.message, Span(f.line, f.col), f.hint)


def _check_elsewhere(text: str, filename: str, options: Options) -> list:
    import json
    import os
    import subprocess
    import sys
    env = {k: v for k, v in os.environ.items() if k not in ("TRITON_INTERPRET", "C2T_CHECK")}
    prog = ("import json, sys, translator\n"
            "a = json.load(sys.stdin)\n"
            "r = translator.translate_source(a['text'], a['file'], translator.Options(check=a['check'] or True))\n"
            "json.dump([d.as_dict() for d in r.diagnostics if d.code in %r], sys.stdout)\n" % (_CHECK_CODES,))
    root = str(Path(__file__).resolve().parent.parent)
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    r = subprocess.run([sys.executable, "-c", prog], input=json.dumps(
        {"text": text, "file": filename, "check": options.check if options.check == "full" else True}),
        capture_output=True, text=True, env=env, timeout=1800)
    if r.returncode != 0:
        return [{"code": "C2T216", "message": "the translation was not checked: the check's process failed: "
                 + (r.stderr.strip().splitlines() or ["?"])[-1][:300], "line": 1, "col": 1, "hint": ""}]
    return json.loads(r.stdout)


def _mark_checked(kernels: list, rep: Reporter) -> list:
    bad = {d.message.split("`")[1] for d in rep.items if d.code == "C2T110" and "`" in d.message}
    for k in kernels:
        if k.name in bad:
            k.translated = False
    return kernels


def _version() -> str:
    from . import __version__
    return __version__


def _batch_slots(plan) -> dict:
    """Per-launch parameter names of a batched twin (`x_0, x_0_shape_0, ...` for slot 0)."""
    from .lower.types import ArrayRef
    decl, args = {}, {}
    for p in plan.params:
        if p.kind == "constexpr" or not plan.host.batched:
            continue
        d, a = [], []
        for s in range(4):
            if p.kind == "array":
                names = ArrayRef.for_param(f"{p.name}_{s}", p.rank or 0).flat()
                flags = ([f"{p.name}_{s}_TMA"] if p.tma_blocks else []) + [f"{p.name}_{s}_IS_{o}" for o in p.same_as]
                d.append(", ".join(names + [f + ": tl.constexpr" for f in flags]))
                a.append(", ".join(names + flags))
            else:
                d.append(f"{p.name}_{s}")
                a.append(f"{p.name}_{s}")
        decl[p.name], args[p.name] = d, a
    return {"slot_params": decl, "slot_args": args}


def _ranks_of(plan, p) -> str:
    """A parameter's rank for the kernel summary; "1|2" for an array of rank variants."""
    if plan.subs and p.name in plan.subs[0].rank_choice:
        return "|".join(str(r) for r in sorted({s.rank_choice[p.name] for s in plan.subs}))
    return str(p.rank)


def _all_plans(plans: dict):
    """The module's kernel plans, a kernel with rank variants as its sub plans (one per rank)."""
    for plan in plans.values():
        yield from plan.subs or [plan]


def _other_imports(st) -> list:
    """The rest of a plain `import` statement that also imports cuda.tile, as one import line."""
    from .analysis import CT_MODULE
    if st.module is not None:
        return []
    rest = [f"{mod} as {alias}" if alias else mod for mod, alias in st.names
            if mod != CT_MODULE and not mod.startswith(CT_MODULE + ".")]
    return [f"import {', '.join(rest)}"] if rest else []


class _Marks:
    """Places in the module's text that are filled once it is written (_fill_marks): the import
    lines (what they are depends on the names the whole module uses), the runtime's pieces of a
    standalone module, and its launch memo's C source. (NUL characters: never in Python source.)"""
    RUNTIME = "\x00c2t-runtime\x00"
    MEMO_C = "\x00c2t-memo-c\x00"

    def __init__(self):
        self.imports = []       # (indent, the other imports that follow) per import mark

    def imports_mark(self, indent: str, others: list) -> str:
        self.imports.append((indent, others))
        return f"\x00c2t-imports-{len(self.imports) - 1}\x00"


_IMPORTS_MARK = re.compile("\x00c2t-imports-([0-9]+)\x00")
_STD_IMPORTS = ("contextlib", "torch", "functools", "os")      # (in this order, before triton's)


def _fill_marks(body: str, marks: _Marks, have: set, standalone: bool) -> str:
    """The module's text with its marks filled: the runtime names it uses imported from
    translator.runtime (or, `standalone`, their pieces pasted in), and the imports of torch,
    triton and the standard modules its code (the pasted pieces included) uses that it lacks."""
    from . import vendor
    plain = _IMPORTS_MARK.sub("", body.replace(marks.RUNTIME, "").replace(marks.MEMO_C, ""))
    plain_used = vendor.names_used(plain)
    names = vendor.runtime_names(plain_used)
    runtime, memo_c, lines = "", "", []
    if standalone:
        runtime, needs_c = vendor.vendored(names)
        memo_c = vendor.memo_c_block() if needs_c else ""
    body = body.replace(marks.RUNTIME, runtime).replace(marks.MEMO_C, memo_c)
    used = vendor.names_used(_IMPORTS_MARK.sub("", body)) if standalone else plain_used
    need = [f"import {m}" for m in _STD_IMPORTS if m not in have and m in used]
    if "triton" not in have:
        need.append("import triton")
    if "tl" not in have:
        need.append("import triton.language as tl")

    def fill(m):
        indent, others = marks.imports[int(m.group(1))]
        runtime_lines = [] if standalone else vendor.import_lines(names, indent)
        return ("\n" + indent).join(need + runtime_lines + others)
    return _IMPORTS_MARK.sub(fill, body)


def _imports_and_prelude(info, shared: Shared, plans: dict, text: str, marks: _Marks) -> list:
    """Replace the cuda.tile imports by Triton's, and put the helpers after the module's imports
    (the import lines and the runtime's pieces are marks, filled by _fill_marks)."""
    edits = []
    first = True
    for st in info.ct_import_stmts:
        line_start = text.rfind("\n", 0, st.span.start) + 1
        line_end = text.find("\n", st.span.end)
        line_end = len(text) if line_end < 0 else line_end + 1
        after = text[st.span.end:line_end].strip()         # (a comment after it goes with it)
        whole_line = text[line_start:st.span.start].strip() == "" and (after in ("", ";") or after.startswith("#"))
        others = _other_imports(st)      # `import torch, cuda.tile as ct, math` keeps torch and math
        indent = text[line_start:st.span.start]     # (an import in a `try:` block is indented)
        if first:
            edits.append(Edit(st.span.start, st.span.end, marks.imports_mark(
                indent if not indent.strip() else "", others)))
            first = False
        elif others:
            edits.append(Edit(st.span.start, st.span.end, others[0]))
        elif whole_line:
            edits.append(Edit(line_start, line_end, ""))
        else:
            edits.append(Edit(st.span.start, st.span.end, "pass"))
    anchor = _anchor(info)
    parts = []
    device = emit.device_prelude(shared.used, shared.ranks)
    if device:
        parts.append(device)
    parts.extend(code.strip("\n") for code in shared.extra_defs.values())
    if info.kernels or shared.host_needs & {"cdiv", "device_function"}:
        parts.append(marks.RUNTIME)     # (a standalone module's runtime pieces)
    if parts:
        # after the anchor's line (not inside its span: a cuda.tile import there is removed)
        pos = 0
        if anchor is not None:
            pos = text.find("\n", anchor.span.end)
            pos = len(text) if pos < 0 else pos + 1
        block = "\n\n" + "\n\n\n".join(parts) + "\n\n\n"
        if anchor is None:
            block = marks.imports_mark("", []) + "\n" + block.lstrip("\n") + "\n\n"
        edits.append(Edit(pos, pos, block))
    if info.kernels:
        edits.append(_memo_c_source_edit(info, text, marks))
    return edits


def _anchor(info):
    """The last import that precedes the module's first definition: helpers go after it."""
    from .analysis import guarded_imports
    anchor = None
    for st in info.module.body:
        if isinstance(st, (N.FunctionDef,)) or (isinstance(st, N.Other) and st.kind in ("classdef", "decorated")):
            break
        if isinstance(st, N.Import) or guarded_imports(st):
            anchor = st
    return anchor


def _after_imports(info, text: str, block: str) -> Edit:
    """Insert `block` after the module's imports (after the prelude _imports_and_prelude puts there)."""
    anchor = _anchor(info)
    pos = 0
    if anchor is not None:
        pos = text.find("\n", anchor.span.end)
        pos = len(text) if pos < 0 else pos + 1
    return Edit(pos, pos, "\n\n" + block.strip("\n") + "\n\n\n")


def _memo_c_source_edit(info, text: str, marks: _Marks) -> Edit:
    """Where a standalone module's launch memo C source goes: at the end of the module, out of the
    way of its code (before a closing `if __name__ == "__main__":` block, whose launches then find
    it)."""
    pos = len(text)
    last = info.module.body[-1] if info.module.body else None
    if last is not None and re.match(r"if\s+__name__\s*==", text[last.span.start:last.span.end]):
        pos = text.rfind("\n", 0, last.span.start) + 1
        return Edit(pos, pos, marks.MEMO_C + "\n\n\n")
    return Edit(pos, pos, "\n\n\n" + marks.MEMO_C + "\n")
