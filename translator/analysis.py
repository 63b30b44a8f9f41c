"""Module analysis: how cuda.tile is imported, aliases, constants, kernels and helpers."""
from __future__ import annotations

import dataclasses
import enum
import math
from dataclasses import dataclass, field
from typing import Optional

from . import const_fold, dataclass_rules
from .coverage import EXPORTS
from .ir import nodes as N
from .ir.nodes import walk

CT_MODULE = "cuda.tile"


@dataclass
class ModuleInfo:
    module: N.Module
    ct_modules: set = field(default_factory=set)        # local names bound to the cuda.tile module
    ct_names: dict = field(default_factory=dict)        # local name -> cuda.tile path ("load", "PaddingMode")
    cuda_names: set = field(default_factory=set)        # local names bound to the `cuda` package
    constant_aliases: set = field(default_factory=set)  # ConstInt = ct.Constant[int]
    bool_aliases: set = field(default_factory=set)      # ConstBool = ct.Constant[bool]
    dtype_aliases: set = field(default_factory=set)     # ConstDType = ct.Constant[ct.DType]
    # type hints of kernel parameters: I64s = Annotated[list, ct.ListAnnotation(element=...)]
    # (name -> the hint's IR)
    hint_aliases: dict = field(default_factory=dict)
    constants: dict = field(default_factory=dict)       # module constant -> python value (literals only)
    ct_constants: dict = field(default_factory=dict)    # module name -> ct path (PAD = ct.PaddingMode.ZERO)
    kernels: dict = field(default_factory=dict)         # name -> FunctionDef
    functions: dict = field(default_factory=dict)       # every module-level function
    other_modules: dict = field(default_factory=dict)   # local name -> imported module ("math", "torch")
    imported: dict = field(default_factory=dict)        # from-imported name -> "module.name" (relative: ".m.name")
    # module-level enum classes and frozen dataclasses (Python objects rebuilt from the source):
    # their members and instances are compile-time constants in kernels
    classes: dict = field(default_factory=dict)
    # module-level dicts, and tuples holding functions (`_OPS = {Op.ADD: ct.atomic_add, ...}`),
    # folded by const_fold with functions as const_fold.Refs: kernels read them with keys known
    # at translation time, or dispatch on a Constant key (passes/fn_values.py)
    tables: dict = field(default_factory=dict)
    # methods of those frozen dataclasses: rebuilt class -> {method name: FunctionDef}; a call in a
    # kernel is a helper call with the (constant) instance as `self`
    class_methods: dict = field(default_factory=dict)
    # module-level dataclasses (and their subclasses): class name -> dataclass_rules.Facts; those
    # cuTile refuses to create in kernels: class name -> dataclass_rules.Refused
    dataclass_facts: dict = field(default_factory=dict)
    refused_classes: dict = field(default_factory=dict)
    imports_ct: bool = False
    ct_import_stmts: list = field(default_factory=list)
    # plain functions that host code makes kernels of, `ct.kernel(f)` / `ct.kernel(f, occupancy=2)`:
    # translated as kernels (they are in `kernels` too), the call becomes `f` / `f.replace_hints(...)`
    host_made_kernels: set = field(default_factory=set)
    # kernels defined inside functions, translated as module-level kernels taking their captures
    # (nested_kernels.py): the hoisted kernel's name -> NestedKernel (its FunctionDef is in kernels)
    nested: dict = field(default_factory=dict)
    # @contextmanager functions whose `with` statements in kernel code were inlined
    # (passes/with_inline.py): host code keeps them as they are, their calls not host calls
    inlined_cms: set = field(default_factory=set)
    # facts about the module's own IR, each computed once (it is not changed after the analysis):
    # key (what, id(node)) -> (node, fact); the node is kept so its id is not reused
    memo: dict = field(default_factory=dict, repr=False, compare=False)

    def once(self, what: str, node, compute):
        """`compute(node)`, the first time it is asked for this node."""
        key = (what, id(node))
        hit = self.memo.get(key)
        if hit is None:
            hit = self.memo[key] = (node, compute(node))
        return hit[1]

    def nodes(self, node) -> tuple:
        """walk(node), once (the module's statements, its functions' bodies: host rules and plan analyses
        look at them again and again; a kernel's copy for the lowering is another node)."""
        return self.once("nodes", node, lambda n: tuple(walk(n)))

    # -------------------------------------------------------------- name resolution
    def ct_path(self, e) -> Optional[str]:
        """Dotted cuda.tile path an expression refers to ("" for the module itself), else None."""
        if isinstance(e, N.Name):
            if e.id in self.ct_modules:
                return ""
            if e.id in self.ct_names:
                return self.ct_names[e.id]
            if e.id in self.ct_constants:
                return self.ct_constants[e.id]
            return None
        if isinstance(e, N.Attr):
            if isinstance(e.value, N.Name) and e.value.id in self.cuda_names and e.attr == "tile":
                return ""
            base = self.ct_path(e.value)
            if base is None:
                return None
            return f"{base}.{e.attr}" if base else e.attr
        return None

    def is_constant_annotation(self, ann) -> bool:
        if ann is None:
            return False
        if isinstance(ann, N.Name) and ann.id in self.constant_aliases:
            return True
        if isinstance(ann, N.Subscript):
            base = self.ct_path(ann.value)
            if base == "Constant":
                return True
            if isinstance(ann.value, N.Name) and ann.value.id == "Annotated":
                idx = ann.index
                elts = idx.elts if isinstance(idx, N.TupleExpr) else [idx]
                return any(isinstance(x, N.Call) and self.ct_path(x.func) == "ConstantAnnotation" for x in elts[1:])
        return self.ct_path(ann) == "Constant"

    def is_constant_bool(self, ann) -> bool:
        """`ct.Constant[bool]` or an alias of it."""
        if isinstance(ann, N.Name):
            return ann.id in self.bool_aliases
        return isinstance(ann, N.Subscript) and self.ct_path(ann.value) == "Constant" \
            and isinstance(ann.index, N.Name) and ann.index.id == "bool"

    def is_constant_dtype(self, ann) -> bool:
        """`ct.Constant[ct.DType]` or an alias of it: a dtype chosen by the launch."""
        if isinstance(ann, N.Name):
            return ann.id in self.dtype_aliases
        return isinstance(ann, N.Subscript) and self.ct_path(ann.value) == "Constant" \
            and self.ct_path(ann.index) == "DType"

    def kernel_decorator(self, fd: N.FunctionDef):
        """The @ct.kernel decorator of a function (its IR node), or None."""
        for d in fd.decorators:
            e = d.expr.func if isinstance(d.expr, N.Call) else d.expr
            if self.ct_path(e) == "kernel":
                return d
        return None


def _literal(e, names=None):
    """Python value of a literal expression, else raises ValueError. `names` maps module names to
    known Python objects (enum classes, frozen dataclasses and constants defined earlier)."""
    names = names or {}
    if isinstance(e, N.Const) and not isinstance(e.value, bytes) and e.value is not Ellipsis:
        return e.value          # (strings too: compile-time values in cuTile, compared and folded)
    if isinstance(e, N.UnaryOp) and e.op in "-+":
        v = _literal(e.operand, names)
        if not isinstance(v, (int, float)):
            raise ValueError
        return -v if e.op == "-" else v
    if isinstance(e, N.TupleExpr):
        return tuple(_literal(x, names) for x in e.elts)
    if isinstance(e, N.Name) and e.id in names:
        return names[e.id]
    if isinstance(e, N.Attr) and not (isinstance(e.value, N.Name) and e.value.id == "math"):
        base = _literal(e.value, names)
        if e.attr.startswith("_") or not (_is_enum_class(base) or isinstance(base, enum.Enum)
                                          or _is_frozen_dataclass(base)):
            raise ValueError      # `Mode.A.__class__`, `Cfg.__init__`: no Python internals as constants
        try:
            return getattr(base, e.attr)
        except AttributeError:
            raise ValueError
    if isinstance(e, N.Call) and not isinstance(e.func, N.Attr):
        cls = _literal(e.func, names)
        if not (_is_enum_class(cls) or (isinstance(cls, type) and _is_frozen_dataclass(cls))):
            raise ValueError
        if any(isinstance(a, N.Starred) for a in e.args) or any(k.name is None for k in e.keywords):
            raise ValueError
        try:
            return cls(*[_literal(a, names) for a in e.args],
                       **{k.name: _literal(k.value, names) for k in e.keywords})
        except (TypeError, ValueError):
            raise ValueError
    if isinstance(e, N.Attr) and isinstance(e.value, N.Name) and e.value.id == "math" \
            and e.attr in ("inf", "pi", "e", "tau", "nan"):
        return getattr(math, e.attr)
    if isinstance(e, N.BinOp) and e.op in _FOLD_OPS:
        a, b = _literal(e.left, names), _literal(e.right, names)
        if not all(isinstance(x, (int, float)) and not isinstance(x, enum.Enum) for x in (a, b)):
            raise ValueError
        if e.op == "**" and abs(b) >= 64:
            raise ValueError
        try:     # const_fold's size limits: `X = ((10 ** 63) ** 63) ** 63` is not computed
            return const_fold.binop(e.op, a, b)
        except const_fold.FoldError:
            raise ValueError
    if isinstance(e, N.Call) and not e.keywords and isinstance(e.func, N.Attr) \
            and isinstance(e.func.value, N.Name) and e.func.value.id == "math" and e.func.attr in _FOLD_MATH:
        args = [_literal(a, names) for a in e.args]
        try:
            return getattr(math, e.func.attr)(*args)
        except (ArithmeticError, ValueError, TypeError):
            raise ValueError
    raise ValueError


# module constants such as `INV_LOG_2 = 1.0 / math.log(2)` are folded to literals
_FOLD_OPS = {"+", "-", "*", "/", "//", "%", "**"}
_FOLD_MATH = {"log", "log2", "log10", "exp", "sqrt", "pow"}


def analyze(mod: N.Module) -> ModuleInfo:
    info = ModuleInfo(mod)
    info.ct_modules.add("__ct__")     # how IR passes name cuda.tile, whatever the user's alias
    for st in mod.body:
        if isinstance(st, N.Import):
            _imports(info, st)
        elif guarded_imports(st):
            # `try: import cuda.tile as ct / except ImportError: ct = None` (the fallback is host text)
            for c in guarded_imports(st):
                _imports(info, c)
    for st in mod.body:
        if isinstance(st, N.AnnAssign) and isinstance(st.target, N.Name) and st.value is not None:
            st = N.Assign(span=st.span, targets=[st.target], value=st.value)   # `LOG2E: float = 1.44...`
        if isinstance(st, N.Assign) and _bindings(st) is not None:
            for name, val in _bindings(st):
                _module_binding(info, name, val)
        elif isinstance(st, N.Other) and st.kind == "classdef" and st.name:
            cls = _enum_class(info, st) or _frozen_dataclass(info, st)
            if cls is not None:
                info.classes[st.name] = cls
            else:
                info.classes.pop(st.name, None)
            _dataclass_facts(info, st, cls)
            info.constants.pop(st.name, None)
        elif isinstance(st, N.FunctionDef):
            info.functions[st.name] = st
            if info.kernel_decorator(st) is not None:
                info.kernels[st.name] = st
        else:
            for fd in guarded_defs(st):     # `if HAVE_CUTILE:` / `try:` around a kernel
                if info.kernel_decorator(fd) is not None:
                    info.functions[fd.name] = fd
                    info.kernels[fd.name] = fd
    _host_made_kernels(info)
    _tables(info)
    from . import nested_kernels
    for nk in nested_kernels.find(info):
        info.nested[nk.hoisted.name] = nk
        info.kernels[nk.hoisted.name] = nk.hoisted
    return info


def guarded_defs(st) -> list:
    """Functions defined inside a module-level `if` or `try` statement (at any depth of such
    statements, not inside functions or classes): a kernel there is translated where it stands."""
    if isinstance(st, N.If):
        return [fd for x in st.body + st.orelse for fd in ([x] if isinstance(x, N.FunctionDef) else guarded_defs(x))]
    if isinstance(st, N.Other) and st.kind in ("try_stmt", "try_finally"):
        return [fd for x in st.children for fd in ([x] if isinstance(x, N.FunctionDef) else guarded_defs(x))]
    return []


def guarded_imports(st) -> list:
    """The imports of a module-level `try:` statement (its body and handlers), else []."""
    if isinstance(st, N.Other) and st.kind in ("try_stmt", "try_finally"):
        return [c for c in st.children if isinstance(c, N.Import)]
    return []


def _bindings(st: N.Assign):
    """(name, value) pairs a module-level assignment binds: `A = v`, `A = B = v` (each to v) and
    `A, B = v1, v2` (pairwise); None for other forms (unpacking a call, attributes, ...)."""
    out = []
    for t in st.targets:
        if isinstance(t, N.Name):
            out.append((t.id, st.value))
        elif isinstance(t, N.TupleExpr) and isinstance(st.value, N.TupleExpr) \
                and len(t.elts) == len(st.value.elts) and all(isinstance(e, N.Name) for e in t.elts):
            out += [(e.id, v) for e, v in zip(t.elts, st.value.elts)]
        else:
            return None
    return out


def _module_binding(info: ModuleInfo, name: str, val):
    """What a module-level `name = val` makes `name`: a Constant alias, a cuda.tile name, or a
    folded constant (a later non-constant rebinding hides an earlier constant)."""
    if isinstance(val, N.Subscript) and info.ct_path(val.value) == "Constant":
        info.constant_aliases.add(name)
        if isinstance(val.index, N.Name) and val.index.id == "bool":
            info.bool_aliases.add(name)
        if info.ct_path(val.index) == "DType":
            info.dtype_aliases.add(name)
        return
    p = info.ct_path(val)
    if p:
        info.ct_constants[name] = p
        return
    meta = _annotated_metadata(info, val)
    if meta:        # (kernel-only, as Constant aliases: the host rules leave the statement alone)
        info.hint_aliases[name] = val
        if "ConstantAnnotation" in meta:
            info.constant_aliases.add(name)
        return
    try:
        info.constants[name] = _literal(val, {**info.classes, **info.constants})
    except ValueError:
        info.constants.pop(name, None)


def _tables(info: ModuleInfo):
    """info.tables: module-level `name = {...}` dicts and tuples or lists that hold functions
    (module functions, cuda.tile operations), assigned once, whose keys and values const_fold
    evaluates (literals, enum members, functions as Refs); the module is never run."""
    assigned: dict = {}
    for st in info.module.body:
        if isinstance(st, (N.Assign, N.AnnAssign)):
            for t in (st.targets if isinstance(st, N.Assign) else [st.target]):
                for x in walk(t):
                    if isinstance(x, N.Name):
                        assigned[x.id] = assigned.get(x.id, 0) + 1
        elif isinstance(st, (N.FunctionDef, N.Other)) and getattr(st, "name", ""):
            assigned[st.name] = assigned.get(st.name, 0) + 1
    names = {**info.classes, **info.constants}
    for fn in info.functions:
        if fn not in info.kernels and assigned.get(fn, 0) == 1 and fn not in names:
            names[fn] = const_fold.Ref("function", fn)
    for m in info.ct_modules:
        if m != "__ct__":
            names[m] = const_fold.RefSpace("ct")
    for st in info.module.body:
        if not (isinstance(st, N.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], N.Name)):
            continue
        name, val = st.targets[0].id, st.value
        if assigned.get(name) != 1 or name in info.constants or name in info.ct_constants \
                or not (isinstance(val, (N.TupleExpr, N.ListExpr)) or isinstance(val, N.Raw) and val.kind == "dict"):
            continue
        start, end = const_fold.enclose(info.module.text, val.span.start, val.span.end)
        try:
            v = const_fold.fold(info.module.text[start:end], names, dicts=True)
        except const_fold.FoldError:
            continue
        if isinstance(v, dict) or isinstance(v, (tuple, list)) and _holds_ref(v):
            info.tables[name] = tuple(v) if isinstance(v, list) else v


def _holds_ref(v) -> bool:
    if isinstance(v, const_fold.Ref):
        return True
    if isinstance(v, (tuple, list)):
        return any(_holds_ref(x) for x in v)
    if isinstance(v, dict):
        return any(_holds_ref(x) for x in v.values())
    return False


HINT_METADATA = ("ArrayAnnotation", "ListAnnotation", "ConstantAnnotation", "ScalarAnnotation")


def _annotated_metadata(info: ModuleInfo, val) -> list:
    """The cuda.tile metadata classes of `Annotated[T, ct.ArrayAnnotation(...), ...]` (a type hint
    for kernel parameters whose metadata are all cuda.tile annotations), else []."""
    if not (isinstance(val, N.Subscript) and isinstance(val.value, N.Name) and val.value.id == "Annotated"
            and isinstance(val.index, N.TupleExpr) and len(val.index.elts) >= 2):
        return []
    meta = [info.ct_path(m.func) if isinstance(m, N.Call) else None for m in val.index.elts[1:]]
    return meta if all(m in HINT_METADATA for m in meta) else []


def static_dims(info: ModuleInfo, ann) -> dict:
    """{"static_shape_dims": axes, "static_stride_dims": axes} of a parameter's
    `Annotated[..., ct.ArrayAnnotation(static_shape_dims=(0, 1), ...)]` hint (written there or
    through an alias); axes are a tuple of ints, or None where they are not literals. {}: none."""
    if isinstance(ann, N.Name) and ann.id in info.hint_aliases:
        ann = info.hint_aliases[ann.id]
    if not _annotated_metadata(info, ann):
        return {}
    out = {}
    for m in ann.index.elts[1:]:
        if info.ct_path(m.func) != "ArrayAnnotation":
            continue
        for k in m.keywords:
            if k.name in ("static_shape_dims", "static_stride_dims"):
                try:
                    axes = _literal(k.value, {})
                except ValueError:
                    axes = None
                ok = isinstance(axes, tuple) and all(type(a) is int for a in axes)
                out[k.name] = axes if ok else None
    return out


def list_static_dims(info: ModuleInfo, ann) -> dict:
    """static_dims of the arrays of a list parameter: `Annotated[list, ct.ListAnnotation(element=
    ct.ArrayAnnotation(static_shape_dims=..., static_stride_dims=...))]` (or through an alias)."""
    if isinstance(ann, N.Name) and ann.id in info.hint_aliases:
        ann = info.hint_aliases[ann.id]
    if not _annotated_metadata(info, ann):
        return {}
    for m in ann.index.elts[1:]:
        if info.ct_path(m.func) != "ListAnnotation":
            continue
        el = next((k.value for k in m.keywords if k.name == "element"), m.args[0] if m.args else None)
        if isinstance(el, N.Call) and info.ct_path(el.func) == "ArrayAnnotation":
            # (read as the hint of an array: Annotated[Array, <element>])
            fake = N.Subscript(span=ann.span, value=ann.value,
                               index=N.TupleExpr(span=ann.span, elts=[ann.index.elts[0], el]))
            return static_dims(info, fake)
    return {}


def indexed_with_int64(info: ModuleInfo, ann) -> bool:
    """Whether a parameter's hint makes it an array indexed with 64 bits: `ct.IndexedWithInt64`
    (bare or subscripted, written there or through an alias) or
    `Annotated[..., ct.ArrayAnnotation(index_dtype=ct.int64)]`."""
    if isinstance(ann, N.Name) and ann.id in info.hint_aliases:
        ann = info.hint_aliases[ann.id]
    if isinstance(ann, N.Subscript) and info.ct_path(ann.value) == "IndexedWithInt64":
        return True
    if ann is not None and info.ct_path(ann) == "IndexedWithInt64":
        return True
    if not _annotated_metadata(info, ann):
        return False
    return any(info.ct_path(m.func) == "ArrayAnnotation" and k.name == "index_dtype"
               and info.ct_path(k.value) == "int64" for m in ann.index.elts[1:] for k in m.keywords)


def _host_made_kernels(info: ModuleInfo):
    """`ct.kernel(f, **hints)` in host code, of a plain module-level function `f` (cuTile's
    tests build kernels so): `f` is a kernel."""
    for st in info.module.body:
        if isinstance(st, N.FunctionDef) and st.name in info.kernels:
            continue
        for n in info.nodes(st):
            if isinstance(n, N.Call) and len(n.args) == 1 and isinstance(n.args[0], N.Name) \
                    and n.args[0].id in info.functions and n.args[0].id not in info.kernels \
                    and all(k.name for k in n.keywords) and info.ct_path(n.func) == "kernel":
                info.host_made_kernels.add(n.args[0].id)
    for name in info.host_made_kernels:
        info.kernels[name] = info.functions[name]


def _imports(info: ModuleInfo, st: N.Import):
    if st.module is None:
        for mod, alias in st.names:
            if mod == CT_MODULE:
                info.imports_ct = True
                info.ct_import_stmts.append(st)
                if alias:
                    info.ct_modules.add(alias)
                else:
                    info.cuda_names.add("cuda")
            elif mod.startswith(CT_MODULE + "."):
                # `import cuda.tile.tune` ("required by every op"): a cuda.tile import too
                info.imports_ct = True
                if st not in info.ct_import_stmts:
                    info.ct_import_stmts.append(st)
                if alias:
                    info.ct_names[alias] = mod[len(CT_MODULE) + 1:]
                else:
                    info.cuda_names.add("cuda")
            elif mod == "cuda" and alias is None:
                info.cuda_names.add("cuda")
            else:
                info.other_modules[alias or mod.split(".")[0]] = mod if alias else mod.split(".")[0]
        return
    if st.level:
        for name, alias in st.names:
            info.imported[alias or name] = "." * st.level + f"{st.module}.{name}".lstrip(".")
        return
    if st.module == "cuda":
        for name, alias in st.names:
            if name == "tile":
                info.imports_ct = True
                info.ct_import_stmts.append(st)
                info.ct_modules.add(alias or "tile")
        return
    if st.module == CT_MODULE or st.module.startswith(CT_MODULE + "."):
        info.imports_ct = True
        info.ct_import_stmts.append(st)
        prefix = st.module[len(CT_MODULE) + 1:]
        for name, alias in st.names:
            path = f"{prefix}.{name}" if prefix else name
            if prefix.startswith("_") and name in EXPORTS:
                # `from cuda.tile._numeric_semantics import RoundingMode`: cuda.tile exports the
                # same object under its public name (checked for cuda.tile 1.7)
                path = name
            info.ct_names[alias or name] = path
        return
    for name, alias in st.names:
        info.other_modules.setdefault(alias or name, f"{st.module}.{name}")
        info.imported[alias or name] = f"{st.module}.{name}"


# ---------------------------------------------------------------- enums and frozen dataclasses
def _is_enum_class(x) -> bool:
    return isinstance(x, type) and issubclass(x, enum.Enum)


def _is_frozen_dataclass(x) -> bool:
    return dataclasses.is_dataclass(x) and x.__dataclass_params__.frozen


def _qualified(info: ModuleInfo, e) -> Optional[str]:
    """`enum.Enum`, `Enum` (from enum import Enum), `dataclasses.dataclass`... as a dotted path."""
    if isinstance(e, N.Name):
        return info.other_modules.get(e.id)
    if isinstance(e, N.Attr):
        base = _qualified(info, e.value)
        return f"{base}.{e.attr}" if base else None
    return None


def _enum_class(info: ModuleInfo, st: N.Other):
    """A module-level `class X(enum.Enum)` / `(enum.IntEnum)` whose members are literals (or
    enum.auto()), rebuilt as a Python enum, else None."""
    if st.decorators or len(st.bases) != 1:
        return None
    base = {"enum.Enum": enum.Enum, "enum.IntEnum": enum.IntEnum}.get(_qualified(info, st.bases[0]))
    if base is None:
        return None
    members, last = [], 0
    for x in st.children:
        if isinstance(x, N.Assign) and len(x.targets) == 1 and isinstance(x.targets[0], N.Name):
            name = x.targets[0].id
            if name.startswith("_"):
                return None
            v = x.value
            if isinstance(v, N.Call) and not v.args and not v.keywords \
                    and _qualified(info, v.func) == "enum.auto":
                value = last + 1 if isinstance(last, int) else None
                if value is None:
                    return None
            else:
                try:
                    value = _literal(v, {**info.classes, **info.constants})
                except ValueError:
                    if isinstance(v, N.Const) and isinstance(v.value, str):
                        value = v.value
                    else:
                        return None
            members.append((name, value))
            last = value
        elif isinstance(x, N.Simple) and x.kind == "pass":
            continue
        elif isinstance(x, N.ExprStmt) and isinstance(x.value, N.Const) and isinstance(x.value.value, str):
            continue     # docstring
        elif isinstance(x, N.FunctionDef) and not x.name.startswith("_") and not x.decorators:
            continue     # a plain method (`def is_bitwise(self)`): not rebuilt, refused where a kernel calls it
        else:
            return None  # other methods (`_missing_`, dunders, properties), nested classes...: not rebuilt
    if not members:
        return None
    try:
        return base(st.name, members)
    except (TypeError, ValueError):
        return None


def _dataclass_facts(info: ModuleInfo, st: N.Other, cls):
    """Record what cuTile's dataclass rules see of class statement `st` (dataclass_rules.py), and
    the class as refused where cuTile refuses its instances and it was not rebuilt (`cls` None)."""
    info.refused_classes.pop(st.name, None)
    fx = dataclass_rules.facts(st, lambda e: _qualified(info, e), info.dataclass_facts)
    if fx is None:
        info.dataclass_facts.pop(st.name, None)
        if cls is None and not st.decorators and all(isinstance(b, N.Name) and b.id == "object"
                                                     for b in st.bases):
            # a plain class (no dataclass, no enum): cuTile creates no instances of it in kernels
            info.refused_classes[st.name] = dataclass_rules.Refused(
                st.name, f'Creating instances of type "{st.name}" is not supported in device code',
                error="UnsupportedCallError")
        return
    info.dataclass_facts[st.name] = fx
    msg = dataclass_rules.refusal(fx)
    if msg is not None and cls is None:
        info.refused_classes[st.name] = dataclass_rules.Refused(st.name, msg)


def _frozen_dataclass(info: ModuleInfo, st: N.Other):
    """A module-level `@dataclass(frozen=True)` class with literal defaults, rebuilt, else None
    (a subclass of one rebuilt earlier: rebuilt on it)."""
    if len(st.bases) > 1 or len(st.decorators) != 1:
        return None
    base = None
    if st.bases:
        b = st.bases[0]
        base = info.classes.get(b.id) if isinstance(b, N.Name) else None
        if not (isinstance(base, type) and _is_frozen_dataclass(base)) or base in info.class_methods:
            return None     # (methods of a base: not looked up through the subclass)
    d = st.decorators[0].expr
    if not (isinstance(d, N.Call) and _qualified(info, d.func) == "dataclasses.dataclass" and not d.args):
        return None
    kws = {k.name: k.value for k in d.keywords}
    if set(kws) - {"frozen", "eq", "repr", "order", "unsafe_hash", "kw_only", "slots"}:
        return None
    try:
        opts = {k: _literal(v) for k, v in kws.items()}
    except ValueError:
        return None
    if opts.get("frozen") is not True:
        return None
    fields, methods = [], {}
    for x in st.children:
        if isinstance(x, N.FunctionDef):
            if x.decorators or x.name.startswith("__") or not x.params or x.params[0].kind != "normal":
                return None     # __post_init__, properties, static and class methods: not rebuilt
            methods[x.name] = x
        elif isinstance(x, N.AnnAssign) and isinstance(x.target, N.Name):
            if x.value is None:
                fields.append((x.target.id, object))
            else:
                try:
                    default = _literal(x.value, {**info.classes, **info.constants})
                except ValueError:
                    return None
                fields.append((x.target.id, object, dataclasses.field(default=default)))
        elif isinstance(x, N.Simple) and x.kind == "pass":
            continue
        elif isinstance(x, N.ExprStmt) and isinstance(x.value, N.Const) and isinstance(x.value.value, str):
            continue
        else:
            return None  # methods, class attributes...: not rebuilt
    try:
        cls = dataclasses.make_dataclass(st.name, fields, bases=(base,) if base else (), **opts)
    except (TypeError, ValueError):
        return None
    if methods:
        info.class_methods[cls] = methods
    return cls
