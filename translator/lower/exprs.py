"""Expression lowering for kernel code (a mixin of FunctionLowerer in kernel.py): names, constants,
attributes, subscripts, tuples, comprehensions, operators and calls (calls go to ops.call)."""
from __future__ import annotations

import builtins
import copy
import dataclasses
import enum
from typing import Optional

from .. import const_fold, rules
from ..diagnostics import TranslationError
from ..ir import nodes as N
from . import ops, ops_dicts, ops_views, registry
from . import types as T
from .arrays import walk
from .context import _rank
from .dtype_facts import kept, mixes_bf16_int
from .ops_memory import array_attr
from .types import V, paren

_UNKNOWN = object()     # ExpressionLowering._known_value: no value at translation time
_BUILTINS = ("range", "min", "max", "len", "int", "float", "abs", "bool", "print", "divmod", "tuple")


def imported_helper(info, name: str) -> bool:
    """Whether `name` is a function imported from another (cuTile) module, not a library's: kernel
    code calls it as that module's translation (ops.imported_call)."""
    return name in info.imported and name not in info.ct_names and info.imported[name].split(".")[0] not in (
        "math", "torch", "numpy", "cupy", "operator", "functools", "typing", "dataclasses", "enum")

class ExpressionLowering:
    node_values: dict = None    # id(node) -> V: nodes lowered already, returned as they are (prefetch.py)

    # ----------------------------------------------------------------- expressions
    def expr(self, e) -> V:
        if self.node_values and id(e) in self.node_values:     # a node already lowered (prefetch.py)
            return self.node_values[id(e)]
        fn = getattr(self, "e_" + type(e).__name__, None)
        if fn is None:
            what = getattr(e, "kind", type(e).__name__)
            self.fail("C2T103", f"expression `{what}` is not supported in kernel code", e)
        return fn(e)

    def e_Const(self, e):
        return V(e.text, T.STATIC, value=e.value, known=True)

    def e_Name(self, e):
        nm = e.id
        if nm in self.env:
            v = self.env[nm]
            if v.kind == T.PATHDEP:
                self.fail("C2T105", v.value[0], e, "choose the value that differs with a Constant parameter, "
                          "or keep each path's uses in its own branch",
                          cutile=("TileTypeError", v.value[1]) if v.value[1] else None)
            return v
        info = self.s.info
        fd = getattr(self, "fd", None)
        if nm in getattr(self, "one_path", ()):
            # bound by one path of a run-time `if` only, read after it: cuTile's error
            self.fail("C2T103", f"name `{nm}` is bound on one path of a run-time `if` only, and read after "
                                "it", e, cutile=("TileTypeError", f"Use of potentially undefined variable `{nm}`"))
        if fd is not None and nm in own_locals(fd, info):
            # a local of this function (it assigns the name) read where no assignment has bound it
            # (before its first one, or on a path that skips it): never the module's binding of
            # the name; Python's UnboundLocalError, cuTile's "Undefined variable"
            self.fail("C2T103", f"name `{nm}` is not defined for kernel code here (the function assigns "
                                "it, but not before this read on every path)", e,
                      cutile=("TileSyntaxError", f"Undefined variable {nm} used"))
        if nm in info.constants:
            return self.static_value(info.constants[nm], e, name=nm)
        if nm in info.classes:      # a module-level enum class or frozen dataclass
            return V(nm, T.CONSTOBJ, value=info.classes[nm], known=True)
        if nm in info.refused_classes:      # a dataclass cuTile refuses to create (ops.call)
            return V(nm, T.CONSTOBJ, value=info.refused_classes[nm], known=True)
        path = info.ct_path(e)
        if path is not None:
            return self.ct_object(path, e)
        if nm in info.functions and nm not in info.kernels:
            return V(nm, T.HELPER, value=nm)
        if info.imported.get(nm, "").startswith("builtins.") and info.imported[nm][9:] in _BUILTINS:
            return V(info.imported[nm][9:], T.MODULE, value=info.imported[nm])  # `from builtins import divmod as f`
        if imported_helper(info, nm):
            return V(nm, T.HELPER, value=("imported", nm))
        if nm in info.other_modules:
            return V(nm, T.MODULE, value=info.other_modules[nm])
        if nm in ("True", "False", "None"):
            return V(nm, T.STATIC, value={"True": True, "False": False, "None": None}[nm], known=True)
        if nm in _BUILTINS:
            return V(nm, T.MODULE, value="builtins." + nm)
        known = _module_names(info)
        undefined = None if known is None or nm in known or hasattr(builtins, nm) else \
            ("TileSyntaxError", f"Undefined variable {nm} used")    # bound nowhere: cuTile's error too
        self.fail("C2T103", f"name `{nm}` is not defined for kernel code "
                            "(module globals must be literals, cuTile objects or functions)", e, cutile=undefined)

    def static_value(self, val, node, name: str = "") -> V:
        if isinstance(val, enum.Enum):
            if isinstance(val, int) and not isinstance(val, bool):      # IntEnum: an int
                code = repr(int(val))
            else:   # a plain Enum member has no Triton value; it only takes part in folded compares
                code = repr(f"{type(val).__name__}.{val.name}")
            return V(code, T.STATIC, value=val, known=True, prec=14 if code.startswith("-") else 100)
        if dataclasses.is_dataclass(val) or (isinstance(val, type) and issubclass(val, enum.Enum)):
            # a frozen dataclass value, or an alias of an enum class / dataclass
            return V(name or getattr(val, "__name__", type(val).__name__), T.CONSTOBJ, value=val, known=True)
        if isinstance(val, float):
            if val != val:
                return V('float("nan")', T.STATIC, value=val, known=True)
            if val in (float("inf"), float("-inf")):
                return V(('-' if val < 0 else '') + 'float("inf")', T.STATIC, value=val, known=True,
                         prec=14 if val < 0 else 100)
        if isinstance(val, tuple):
            elts = [self.static_value(x, node) for x in val]
            return V("(" + ", ".join(x.code for x in elts) + ("," if len(elts) == 1 else "") + ")",
                     T.TUPLE, elts=elts, value=val, known=True)
        code = repr(val)
        return V(code, T.STATIC, value=val, known=True, prec=14 if code.startswith("-") else 100)

    def ct_object(self, path: str, node) -> V:
        head = path.split(".")[0]
        if path in rules.DTYPES:
            return V(rules.DTYPES[path], T.DTYPE, value=path, tf32=(path == "tfloat32"))
        if head in ("PaddingMode", "RoundingMode", "MemoryOrder", "MemoryScope"):
            if "." in path:
                return V(path, T.ENUM, value=path)
            return V(path, T.CTMOD, value=path)
        if path == "":
            return V("ct", T.CTMOD, value="")
        return V(path, T.CTFUNC, value=path)

    def e_Attr(self, e):
        if isinstance(e.value, N.Name) and e.value.id not in self.env and e.attr == "tile" \
                and e.value.id in self.s.info.cuda_names:     # `import cuda.tile`: `cuda.tile.load`
            return self.ct_object("", e)
        base = self.expr(e.value)
        if base.kind == T.CTMOD:
            path = f"{base.value}.{e.attr}" if base.value else e.attr
            return self.ct_object(path, e)
        if base.kind == T.MODULE:
            mod = str(base.value)
            # (cupy exports numpy's dtypes and constants: cp.float32 is np.float32)
            if mod in ("math", "numpy", "np", "cupy") and e.attr in rules.MATH_CONSTANTS:
                code = rules.MATH_CONSTANTS[e.attr]
                return V(code, T.STATIC, value=e.attr)
            if mod in ("numpy", "np", "cupy") and e.attr == "newaxis":     # (numpy's alias of None)
                return V("None", T.STATIC, value=None, known=True)
            if mod == "operator":       # `operator.add`: a function ops.call lowers as its operator
                return V(f"{base.code}.{e.attr}", T.MODULE, value=f"operator.{e.attr}")
            if mod.split(".")[0] in ("torch", "numpy", "np", "cupy") and e.attr in rules.FOREIGN_DTYPES:
                return V(rules.FOREIGN_DTYPES[e.attr], T.DTYPE, value=e.attr)
            self.fail("C2T103", f"`{base.code}.{e.attr}` cannot be used in kernel code", e)
        if base.kind == T.ARRAY:
            return array_attr(self.cx, base, e.attr, e)
        if base.kind == T.CONSTOBJ and e.attr in self.s.info.class_methods.get(type(base.value), {}):
            # a frozen dataclass method: called as a helper with the instance as `self` (ops.call)
            fd = self.s.info.class_methods[type(base.value)][e.attr]
            return V(f"{base.code}.{e.attr}", T.HELPER, value=("dcmethod", fd, base))
        if base.kind == T.CONSTOBJ or (base.known and isinstance(base.value, enum.Enum)):
            return self._fold_attr(base, e)
        if base.kind in (T.TILE, T.SCALAR, T.UNKNOWN, T.STATIC):
            if e.attr == "shape":
                code = f"{paren(base, 100)}.shape"
                if base.kind == T.TILE and base.shape is not None:     # known dimensions: a tuple of them
                    return V(code, T.TUPLE, elts=[_dimension(d) for d in base.shape])
                if base.kind == T.TILE and base.rank is not None:      # Triton's dimensions are constexprs
                    return V(code, T.TUPLE, elts=[V(f"{code}[{i}]", T.STATIC) for i in range(base.rank)])
                return V(code, T.STATIC, rank=None, value=("shape_of", base))
            if e.attr == "dtype":
                return V(f"{paren(base, 100)}.dtype", T.DTYPE, **kept(base))   # (its family: dtype_facts)
            if e.attr == "ndim":
                if base.rank is not None:
                    return V(str(base.rank), T.STATIC, value=base.rank, known=True)
                return V(f"len({base.code}.shape)", T.STATIC)
            # a method: resolved by the call
            return V(f"{paren(base, 100)}.{e.attr}", T.UNKNOWN, value=("method", base, e.attr))
        if base.kind == T.CTFUNC and registry.lookup(f"{base.value}.{e.attr}") is not None:
            return self.ct_object(f"{base.value}.{e.attr}", e)     # a registered dotted name: ct.Array.from_foreign
        hook = registry.lookup_method(base.kind, "__getattr__")
        if hook is not None:     # attributes of a kind a topic module defines (TiledView...)
            return hook(self.cx, base, e)
        if base.kind == T.DTYPE and e.attr in ("bitwidth", "name"):
            self.fail("C2T101", f"dtype.{e.attr} is host-only in cuTile", e)
        self.fail("C2T103", f"attribute `{e.attr}` of this value is not supported in kernel code", e)

    def _fold_attr(self, base: V, e) -> V:
        """`Mode.FAST`, `cfg.tile_m`, `Mode.FAST.value`: attributes of module-level enums and frozen
        dataclass values are compile-time constants."""
        obj = base.value
        if e.attr.startswith("_") or callable(getattr(type(obj), e.attr, None)) \
                and not isinstance(getattr(obj, e.attr, None), enum.Enum):
            self.fail("C2T101", f"`{base.code}.{e.attr}` cannot be used in kernel code (only members, "
                                "fields, .name and .value are folded)", e)
        try:
            val = getattr(obj, e.attr)
        except AttributeError:
            self.fail("C2T103", f"`{base.code}` has no attribute `{e.attr}`", e)
        if isinstance(val, (bool, int, float, str, tuple, enum.Enum)) or val is None \
                or (dataclasses.is_dataclass(val) and not isinstance(val, type)):
            return self.static_value(val, e, name=f"{base.code}.{e.attr}")
        self.fail("C2T101", f"`{base.code}.{e.attr}` is not a constant kernel code can use", e)

    def e_Subscript(self, e):
        base = self.expr(e.value)
        idx = e.index
        if base.kind == T.LIST:
            return self._list_element(base, idx, e)
        if base.kind == ops_dicts.DICT:
            return ops_dicts.item(self.cx, base, idx, e)
        if base.kind == T.TUPLE and base.elts is not None and isinstance(idx, N.SliceExpr):
            # a slice of a tuple, with bounds known at translation time: the tuple of those elements
            bounds = [self.expr(b) if b is not None else None for b in (idx.lower, idx.upper, idx.step)]
            if not all(b is None or (b.known and isinstance(b.value, int)) for b in bounds):
                self.fail("C2T105", "a tuple slice needs bounds known at translation time (literals or module "
                                    "constants)", e, hint="Constant parameters are known only when Triton compiles")
            elts = base.elts[slice(*[b.value if b is not None else None for b in bounds])]
            return V("(" + ", ".join(x.code for x in elts) + ("," if len(elts) == 1 else "") + ")", T.TUPLE,
                     elts=list(elts), known=all(x.known for x in elts),
                     value=tuple(x.value for x in elts) if all(x.known for x in elts) else None)
        if base.kind == T.TUPLE and base.elts is not None:
            iv = self.expr(idx)
            if iv.known and isinstance(iv.value, int):
                try:
                    return base.elts[iv.value]
                except IndexError:
                    return ops.cutile_rejects(self.cx, "this tuple index", f"Index {iv.value} is out of range "
                                              f"for a tuple of length {len(base.elts)}", e)
            refused = _tuple_index_error(iv)
            if refused is not None:
                return ops.cutile_rejects(self.cx, "this tuple index", refused, e)
            return V(f"{paren(base, 100)}[{iv.code}]", T.UNKNOWN)
        if base.kind in (T.TILE, T.SCALAR, T.UNKNOWN):
            parts = idx.elts if isinstance(idx, N.TupleExpr) else [idx]
            # `np.newaxis` (any name known here to be None) is `None`
            parts = [N.Const(span=p.span, value=None) if not isinstance(p, (N.Const, N.SliceExpr))
                     and _known_none(self, p) else p for p in parts]
            if not isinstance(idx, N.TupleExpr) and not (isinstance(parts[0], N.Const) and parts[0].value is None):
                # cuTile takes a tuple or None only: tx[:], tx[...], tx[0] are its "direct indexing"
                self.fail("C2T103", "tiles can only be indexed with `:`, `None` and `...` "
                                    "(use ct.extract or .item())", idx,
                          cutile=("TileTypeError", "Directly indexing a tile is not supported; "
                                                   "use `extract()` or `item()` instead."))
            out, rank = [], base.rank
            dots = [p for p in parts if isinstance(p, N.Const) and p.value is Ellipsis]
            if len(dots) > 1:
                self.fail("C2T103", "a tile index can hold one `...` only", dots[1])
            if dots:
                # Triton's tensors take no Ellipsis: `...` stands for the axes the other parts leave
                if base.rank is None:
                    self.fail("C2T104", "`...` in a tile index needs the tile's rank, which is not known "
                                        "here", dots[0], hint="write one `:` per axis")
                fill = base.rank - sum(1 for p in parts if not (isinstance(p, N.Const) and p.value in (None, Ellipsis)))
                if fill < 0:
                    self.fail("C2T103", f"too many indices for a tile of rank {base.rank}", e)
                at = parts.index(dots[0])
                parts = parts[:at] + [N.SliceExpr(span=dots[0].span, lower=None, upper=None, step=None)] * fill \
                    + parts[at + 1:]
            for p in parts:
                if isinstance(p, N.SliceExpr) and p.lower is None and p.upper is None and p.step is None:
                    out.append(":")
                elif isinstance(p, N.Const) and p.value is None:
                    out.append("None")
                    rank = rank + 1 if rank is not None else None
                else:
                    got = _index_text(self, p)
                    self.fail("C2T103", "tiles can only be indexed with `:`, `None` and `...` "
                                        "(use ct.extract or .item())", p,
                              cutile=("TileTypeError", "Expected `None|np.newaxis` or `ellipsis` or full slice "
                                                       f"(`:`), but got {got}. Hint: Directly indexing a tile is "
                                                       "not supported, use `extract` or `item`.") if got else None)
            slices = sum(1 for p in parts if isinstance(p, N.SliceExpr))
            if base.rank is not None and slices > base.rank:
                self.fail("C2T103", f"too many indices for a tile of rank {base.rank}", e,
                          cutile=("TileTypeError", f"Tile is {base.rank}-dimensional, but {slices} were indexed"))
            return V(f"{paren(base, 100)}[{', '.join(out)}]", base.kind, rank=rank, isint=base.isint,
                     nonneg=base.nonneg, dsrc=base.dsrc, mbf=base.mbf, isfloat=base.isfloat)
        if base.kind == T.STATIC:
            iv = self.expr(idx)
            return V(f"{paren(base, 100)}[{iv.code}]", T.STATIC)
        self.fail("C2T103", "this subscript is not supported in kernel code", e)

    def _list_element(self, base: V, idx, e) -> V:
        """`As[g]` of a list-of-arrays parameter: an array whose pointer, extents and strides are
        read from the parameter's table (row g)."""
        if isinstance(idx, (N.SliceExpr, N.TupleExpr)):
            self.fail("C2T101", "a list of arrays can only be indexed with one integer", e)
        for n in walk(idx):     # the index text is repeated in every table read: it must be pure
            if isinstance(n, N.Call):
                f = self.expr(n.func) if not isinstance(n.func, N.Lambda) else None
                pure = f is not None and (
                    (f.kind == T.CTFUNC and not str(f.value).startswith(("atomic", "print", "assert", "static")))
                    or (f.kind == T.MODULE and str(f.value) in ("builtins.min", "builtins.max", "builtins.int",
                                                                 "builtins.abs", "builtins.len")))
                if not pure:
                    self.fail("C2T101", "the index of a list of arrays must not call functions with "
                                        "side effects (assign it to a variable first)", n)
        iv = self.expr(idx)
        if iv.kind not in (T.STATIC, T.SCALAR, T.TILE, T.UNKNOWN) or (iv.kind == T.TILE and iv.rank not in (0, None)):
            self.fail("C2T101", "a list of arrays must be indexed with an integer scalar", e)
        if iv.kind == T.TILE and iv.rank is None:
            self.fail("C2T101", "a list of arrays must be indexed with an integer scalar "
                                "(this value may be a tile)", e)
        lst = base.value
        if iv.known:
            if not isinstance(iv.value, int) or isinstance(iv.value, bool) or iv.value < 0:
                self.fail("C2T101", "a list of arrays must be indexed with a non-negative integer", e)
            ref = lst.element(str(iv.value), known=iv.value)
        else:
            ref = lst.element(paren(iv, 14))
        return V(ref.ptr, T.ARRAY, array=ref)

    def e_TupleExpr(self, e):
        elts = []
        for x in e.elts:
            if not isinstance(x, N.Starred):
                elts.append(self.expr(x))
                continue
            v = self.expr(x.value)      # `(7, *a, 8)`: the items of the tuple `a`
            if v.kind != T.TUPLE:
                self.fail("C2T103", "`*` in a tuple display needs a tuple", x,
                          cutile=("TileTypeError", "Expected a tuple after *"))
            if v.elts is None:
                self.fail("C2T104", "`*` in a tuple display: the length of this tuple is not known here", x)
            elts.extend(v.elts)
        return self.make_tuple(elts)

    def make_tuple(self, elts: list) -> V:
        code = "(" + ", ".join(x.code for x in elts) + ("," if len(elts) == 1 else "") + ")"
        return V(code, T.TUPLE, elts=elts, known=all(x.known for x in elts),
                 value=tuple(x.value for x in elts) if all(x.known for x in elts) else None)

    # ----------------------------------------------------------------- comprehensions
    def e_Comprehension(self, e):
        self.fail("C2T103", "only tuple(... for ...) comprehensions are supported in kernel code "
                            "(cuTile has no lists or generators there)", e)

    def unroll_comprehension(self, comp) -> list:
        """`tuple(f(x) for x in t)`: the elements, unrolled at translation time over tuples,
        zip/enumerate of tuples, ct.static_iter(...) and range() with constant bounds."""
        names = {x.id for f in comp.fors for x in walk(f.target) if isinstance(x, N.Name)}
        saved = {k: self.env[k] for k in names if k in self.env}
        out: list = []
        try:
            self._unroll_level(comp, 0, out)
        finally:       # comprehension variables do not leak (Python 3)
            for k in names:
                if k in saved:
                    self.env[k] = saved[k]
                else:
                    self.env.pop(k, None)
        return out

    def _unroll_level(self, comp, k: int, out: list):
        if len(out) > 4096:
            self.fail("C2T105", "this comprehension unrolls to more than 4096 elements", comp)
        if k == len(comp.fors):
            out.append(self.expr(comp.elt))
            return
        f = comp.fors[k]
        if k:       # a later iterable sees the comprehension's own names bound by the clauses before it only
            self._comp_scope(comp, k, f.iter)
        for item in self._comp_items(f.iter):
            self._bind_static(f.target, item, f)
            if all(self._comp_condition(c) for c in f.conds):
                self._unroll_level(comp, k + 1, out)

    def _comp_scope(self, comp, k: int, it):
        """Python's (and cuTile's) scope of a comprehension: every `for` target is local to all of
        it, so the iterable of clause k > 0 reading a target that only clause k or a later one binds
        reads an unbound name (cuTile's TileSyntaxError), not the enclosing function's."""
        bound = {x.id for f in comp.fors[:k] for x in walk(f.target) if isinstance(x, N.Name)}
        later = {x.id for f in comp.fors[k:] for x in walk(f.target) if isinstance(x, N.Name)} - bound
        for n in walk(it):
            if isinstance(n, N.Name) and n.id in later:
                self.fail("C2T103", f"name `{n.id}` is read by this comprehension's iterable before its own "
                                    "`for` binds it (a comprehension's names are local to all of it)", n,
                          cutile=("TileSyntaxError", f"Undefined variable {n.id} used"))

    def _comp_condition(self, cond) -> bool:
        v = self.expr(cond)
        c = self._known_value(v)
        if c is _UNKNOWN:
            # (a runtime condition is cuTile's error too; a Constant parameter's is known to cuTile)
            why = ("TileTypeError", "Tuple comprehension if-conditions must be statically known; if the "
                   "condition can be evaluated at compile time, wrap it with ct.static_eval()") \
                if v.kind in (T.SCALAR, T.TILE) else None
            self.fail("C2T105", "the `if` of a tuple comprehension must be known at translation time", cond,
                      cutile=why)
        return bool(c)

    def _comp_items(self, it) -> list:
        if isinstance(it, N.Call) and isinstance(it.func, N.Name) and it.func.id == "range" \
                and "range" not in self.env:
            return self.range_items(it)
        if isinstance(it, N.Call) and self.s.info.ct_path(it.func) == "static_iter":
            if len(it.args) != 1 or it.keywords:
                self.fail("C2T109", "ct.static_iter takes one iterable", it)
            return self._comp_items(it.args[0])
        return self._static_items(it, "a tuple comprehension")

    def range_items(self, it) -> list:
        """The values of `range(...)` with integer bounds known at translation time (a comprehension's
        or ct.static_iter's iterable, also inside zip/enumerate), as static values."""
        if it.keywords or not 1 <= len(it.args) <= 3:
            self.fail("C2T109", "range() takes 1 to 3 positional arguments", it)
        bounds = [self._known_value(self.expr(a)) for a in it.args]
        if any(b is _UNKNOWN or not isinstance(b, int) or isinstance(b, bool) for b in bounds):
            self.fail("C2T105", "a comprehension over range() needs integer bounds known at translation "
                                "time (literals, module constants, enum/dataclass fields)", it)
        if len(bounds) == 3 and bounds[2] == 0:
            self.fail("C2T109", "range() step must not be zero", it)
        r = range(*bounds)
        if len(r) > 4096:
            self.fail("C2T105", "this comprehension unrolls to more than 4096 elements", it)
        return [V(str(i), T.STATIC, value=i, known=True, prec=14 if i < 0 else 100) for i in r]

    @staticmethod
    def _known_value(v: V):
        """The Python value of a static whose value is known (literal arithmetic included)."""
        if v.known:
            return v.value
        if v.kind == T.STATIC and v.code:
            import ast
            try:     # compile-time arithmetic of literals (`i % 2 == 0` with i known): Python semantics
                tree = const_fold.parse(v.code)
            except SyntaxError:
                return _UNKNOWN
            if all(isinstance(n, (ast.BinOp, ast.UnaryOp, ast.Compare, ast.BoolOp, ast.Constant, ast.operator,
                                  ast.unaryop, ast.cmpop, ast.boolop)) for n in ast.walk(tree)):
                try:
                    return const_fold.fold_tree(tree)
                except const_fold.FoldError:
                    return _UNKNOWN
        return _UNKNOWN

    def e_ListExpr(self, e):
        v = self.e_TupleExpr(N.TupleExpr(span=e.span, elts=e.elts))
        return v

    def e_UnaryOp(self, e):
        v = self.expr(e.operand)
        if e.op == "not":
            if v.known and isinstance(v.value, bool):
                return V(str(not v.value), T.STATIC, value=not v.value, known=True)
            v = self._truthy(v)
            return V(f"not {paren(v, 6)}", v.kind if v.kind != T.TUPLE else T.STATIC, prec=6, rank=v.rank,
                     dsrc="dt:tl.int1" if v.is_runtime else None, mbf=False)
        if v.known and e.op == "-" and isinstance(v.value, (int, float)) and not isinstance(v.value, bool):
            ops.warn_negative_zero(self.cx, -v.value, e)
            return self.static_value(-v.value, e)
        if e.op == "-":
            return ops.negate(self.cx, v, e)
        if e.op == "+" and v.kind in (T.TILE, T.SCALAR):
            return ops.plus(self.cx, v)
        return V(f"{e.op}{paren(v, 14)}", v.kind, prec=14, rank=v.rank, tf32=v.tf32)

    def e_BinOp(self, e):
        return self.binop(e.op, e.left, e.right, e)

    def binop(self, op, left, right, node) -> V:
        a, b = self.expr(left), self.expr(right)
        v = ops.binary(self.cx, op, a, b, node)
        if v.kind == T.TILE and v.shape is None and op != "@":
            v.shape = T.same_shape(a, b)
        return v

    def _fold_compare(self, e, vals: list) -> Optional[V]:
        """Compares involving enum members or frozen dataclass values are decided at translation
        time (with Python's semantics); None when there are none."""
        def special(v):
            return v.known and (isinstance(v.value, enum.Enum) or (
                dataclasses.is_dataclass(v.value) and not isinstance(v.value, type)))
        if not any(special(v) for v in vals):
            return None
        if not all(v.known for v in vals):
            if all(not special(v) or (isinstance(v.value, int) and isinstance(v.value, enum.Enum))
                   for v in vals):
                return None     # IntEnum members compare as ints at run time
            self.fail("C2T105", "an enum member or dataclass value can only be compared with values "
                                "known at translation time", e)
        import operator
        fns = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt,
               ">=": operator.ge, "is": operator.is_, "is not": operator.is_not,
               "in": lambda a, b: operator.contains(b, a), "not in": lambda a, b: not operator.contains(b, a)}
        result = True
        try:
            for op, a, b in zip(e.ops, vals, vals[1:]):
                result = result and bool(fns[op](a.value, b.value))
        except TypeError as err:
            # (`Color.RED < Color.GREEN`: an operator the values' types lack, a type error in cuTile)
            return ops.cutile_rejects(self.cx, "this comparison", str(err), e)
        except KeyError as err:
            self.fail("C2T105", f"this comparison fails in Python ({err})", e)
        return V(str(result), T.STATIC, value=result, known=True)

    @staticmethod
    def _tuple_compare_error(op: str, a: V, b: V):
        """cuTile's reason for refusing the comparison of two tuples, else None: only `==` and
        `!=`; between tuples not both constant and of one length, items that are scalars, 0-d
        tiles, tuples, dtypes or strings."""
        if op in ("in", "not in", "is", "is not"):
            return None
        if op not in ("==", "!="):
            return f"Operator '{op}' is not supported for tuples"
        if (a.known and b.known) or len(a.elts) != len(b.elts):
            return None
        for item in (*a.elts, *b.elts):
            if item.kind == T.TILE and item.rank not in (0, None):
                return "Tuple comparison is not supported for non-scalar elements"
            if item.kind in (T.ARRAY, T.LIST, ops_views.TILEDVIEW):
                what = {T.ARRAY: "array", T.LIST: "list"}.get(item.kind, "tiled view")
                return f"Tuple comparison is not supported for elements of type {what}"
        return None

    def _compare_tuples(self, op: str, a: V, b: V) -> V:
        """`==` / `!=` between tuples of compile-time values (a view's tile_shape and a shape of
        Constant parameters), as Python compares them: by length, then entry by entry (Triton's
        tuples have no such comparison)."""
        eq = op == "=="
        if len(a.elts) != len(b.elts):
            return V(str(not eq), T.STATIC, value=not eq, known=True)
        if a.known and b.known:
            same = a.value == b.value
            return V(str(same == eq), T.STATIC, value=same == eq, known=True)
        parts = [f"{paren(x, 8)} {op} {paren(y, 8)}" for x, y in zip(a.elts, b.elts)
                 if not (x.known and y.known and x.value == y.value or x.code == y.code)]
        if any(x.known and y.known and x.value != y.value for x, y in zip(a.elts, b.elts)):
            return V(str(not eq), T.STATIC, value=not eq, known=True)
        if not parts:
            return V(str(eq), T.STATIC, value=eq, known=True)
        return V(f" {'and' if eq else 'or'} ".join(f"({p})" for p in parts), T.STATIC, prec=5 if eq else 4)

    def e_Compare(self, e):
        vals = [self.expr(x) for x in [e.left, *e.comparators]]
        if any(v.kind == ops_dicts.DICT for v in vals):     # (a helper's **kwargs, a dict display)
            if len(vals) == 2 and e.ops[0] in ("in", "not in") and vals[1].kind == ops_dicts.DICT:
                return ops_dicts.contains(self.cx, e, e.ops[0], e.left, vals[1])
            if len(vals) == 2 and e.ops[0] in ("==", "!="):
                return ops_dicts.compare(self.cx, e, e.ops[0], *vals)
            self.fail("C2T103", f"`{' '.join(e.ops)}` on a dictionary is not supported in kernel code "
                                "(cuTile's dictionaries have [key], .get(key), `in` and ==)", e)
        if len(vals) == 2 and all(v.kind == T.TUPLE and v.elts is not None for v in vals):
            refused = self._tuple_compare_error(e.ops[0], *vals)
            if refused is not None:
                return ops.cutile_rejects(self.cx, "this tuple comparison", refused, e)
        folded = self._fold_compare(e, vals)
        if folded is not None:
            return folded
        if len(vals) == 2 and e.ops[0] in ("==", "!=") and all(
                v.kind == T.TUPLE and v.elts is not None and v.is_static for v in vals):
            return self._compare_tuples(e.ops[0], *vals)
        if len(vals) == 2 and e.ops[0] in ("in", "not in") and vals[1].kind == T.TUPLE \
                and vals[1].elts is not None:
            return self._contained(e, e.ops[0], *vals)
        parts, left = [], vals[0]
        kind = left.kind
        for op, right in zip(e.ops, vals[1:]):
            if op in ("in", "not in"):
                self.fail("C2T103", f"`{op}` is supported in kernel code only on a tuple known at translation "
                                    "time, alone in its comparison", e)
            if op in ("==", "!=", "<", "<=", ">", ">=") and mixes_bf16_int(left, right):
                parts.append(f"{self.s.use('_c2t_compare_ct')}({left.code}, {right.code}, \"{op}\")")
            else:
                parts.append(f"{paren(left, 8)} {op} {paren(right, 8)}")
            if right.kind in (T.TILE, T.SCALAR) or left.kind in (T.TILE, T.SCALAR):
                kind = T.TILE if T.TILE in (left.kind, right.kind) else T.SCALAR
            left = right
        if len(parts) == 1:
            rank = _rank(*vals) if kind == T.TILE else None
            return V(parts[0], kind if kind in (T.TILE, T.SCALAR) else T.STATIC, prec=7, rank=rank,
                     shape=T.same_shape(*vals) if kind == T.TILE else None, dsrc="dt:tl.int1", mbf=False)
        if kind == T.TILE:
            return V(" & ".join(f"({p})" for p in parts), T.TILE, prec=10)
        return V(" and ".join(parts), kind if kind == T.SCALAR else T.STATIC, prec=5,
                 dsrc="dt:tl.int1" if kind == T.SCALAR else None, mbf=False)

    def _contained(self, e, op: str, x: V, tup: V) -> V:
        """`x in (a, b, ...)` as cuTile evaluates it: `x == item` for each item in turn, each a
        scalar (a tile of another shape is cuTile's TileTypeError), stopping at the first that is
        known true; the runtime ones or-ed. `not in` is its negation."""
        terms = []
        for item in tup.elts:
            cmp = self._equal(e, x, item)
            if cmp is None:
                shape = next((v for v in (x, item) if v.kind == T.TILE and v.rank), None)
                dims = "(" + ", ".join(shape.shape) + ("," if len(shape.shape) == 1 else "") + ")" \
                    if shape.shape else f"of rank {shape.rank}"      # (the extents' codes)
                return ops.cutile_rejects(self.cx, f"`{op}`", f"'in' requires scalar operands, but got shape {dims}", e)
            if cmp.known and cmp.value:
                terms = None
                break
            if not cmp.known:
                terms.append(cmp)
        if terms is None or not terms:
            found = terms is None
            return V(str(found == (op == "in")), T.STATIC, value=found == (op == "in"), known=True)
        runtime = any(t.kind == T.SCALAR for t in terms)
        code = terms[0].code if len(terms) == 1 else " | ".join(f"({t.code})" for t in terms)
        prec = terms[0].prec if len(terms) == 1 else 8
        if op == "not in":
            code, prec = f"not {code if prec > 6 else f'({code})'}", 6
        return V(code, T.SCALAR if runtime else T.STATIC, prec=prec,
                 dsrc="dt:tl.int1" if runtime else None, mbf=False)

    def _equal(self, e, a: V, b: V):
        """`a == b` for `in`: tuples entry by entry, else a scalar comparison (folded where both are
        known); None where an operand is a tile that is not 0-d."""
        if a.kind == T.TUPLE or b.kind == T.TUPLE:
            if not (a.kind == b.kind == T.TUPLE and a.elts is not None and b.elts is not None):
                if a.kind in (T.TUPLE, T.STATIC) and b.kind in (T.TUPLE, T.STATIC) and a.known and b.known:
                    return V(str(a.value == b.value), T.STATIC, value=a.value == b.value, known=True)
                self.fail("C2T105", "`in` between a tuple and a value that is not one needs both known at "
                                    "translation time", e)
            if len(a.elts) != len(b.elts):
                return V("False", T.STATIC, value=False, known=True)
            terms = []
            for x, y in zip(a.elts, b.elts):
                cmp = self._equal(e, x, y)
                if cmp is None:
                    return None
                if cmp.known and not cmp.value:
                    return V("False", T.STATIC, value=False, known=True)
                if not cmp.known:
                    terms.append(cmp)
            if not terms:
                return V("True", T.STATIC, value=True, known=True)
            runtime = any(t.kind == T.SCALAR for t in terms)
            code = terms[0].code if len(terms) == 1 else " & ".join(f"({t.code})" for t in terms)
            return V(code, T.SCALAR if runtime else T.STATIC, prec=terms[0].prec if len(terms) == 1 else 10,
                     dsrc="dt:tl.int1" if runtime else None, mbf=False)
        for v in (a, b):
            if v.kind == T.TILE and v.rank != 0:
                if v.rank is None:
                    self.fail("C2T101", "`in`: the rank of this tile is not known here (cuTile needs scalar "
                                        "operands)", e)
                return None
        if a.known and b.known:
            return V(str(a.value == b.value), T.STATIC, value=a.value == b.value, known=True)
        runtime = a.is_runtime or b.is_runtime
        return V(f"{paren(a, 8)} == {paren(b, 8)}", T.SCALAR if runtime else T.STATIC, prec=7,
                 dsrc="dt:tl.int1" if runtime else None, mbf=False)

    def e_BoolOp(self, e):
        vals = [self.expr(x) for x in e.values]
        prec = 5 if e.op == "and" else 4
        kind = T.SCALAR if any(v.is_runtime for v in vals) else T.STATIC
        if any(v.kind == T.TILE for v in vals):
            self.fail("C2T103", f"`{e.op}` on tiles is not supported; use `&`/`|`", e)
        if kind == T.SCALAR:
            vals = [self._truthy(v) for v in vals]
        return V(f" {e.op} ".join(paren(v, prec + 1) for v in vals), kind, prec=prec,
                 dsrc="dt:tl.int1" if kind == T.SCALAR else None, mbf=False)

    def _truthy(self, v: V) -> V:
        """A runtime scalar operand of `and`/`or`/`not` that may not be a boolean, converted as
        cuTile's bool_() does (Triton's compiler rejects an int32 there)."""
        if v.kind != T.SCALAR or v.dsrc == "dt:tl.int1":
            return v
        return V(f"{self.s.use('_c2t_truthy')}({v.code})", T.SCALAR, dsrc="dt:tl.int1", mbf=False)

    def e_IfExp(self, e):
        t, b, o = self.expr(e.test), self.expr(e.body), self.expr(e.orelse)
        if t.known and not isinstance(t.value, enum.Enum) and (_is_record(b) or _is_record(o)):
            return b if t.value else o            # a choice between enum/dataclass constants, folded
        if _is_record(b) or _is_record(o):
            self.fail("C2T105", "a choice between enum members or dataclass values needs a condition known "
                                "at translation time (a literal or a module constant)", e,
                      hint="choose the fields instead, e.g. `tile = A.tile if flag else B.tile`")
        if b.kind == T.DTYPE and o.kind == T.DTYPE:
            # e.g. `dtype = ct.tfloat32 if A.dtype == ct.float32 else A.dtype`: the tf32-ness of
            # the result is itself a compile-time condition
            tf32 = _chosen_tf32(t, b, o)
            if tf32 is None:
                self.fail("C2T101", "this conditional tfloat32 dtype is not supported yet", e)
            return V(f"{paren(b, 4)} if {paren(t, 4)} else {paren(o, 3)}", T.DTYPE, prec=3, tf32=tf32)
        if b.kind == o.kind == ops_views.TILEDVIEW:
            return ops_views.choose_views(self.cx, t, b, o, e)     # `x.tiled_view(T) if c else y.tiled_view(T)`
        return self.choose(e, t, b, o)

    def choose(self, e, t: V, b: V, o: V) -> V:
        """`b if t else o`; between two tuples of one length, the tuple of the choices between
        their entries (`idx = (r, c) if FLAG else (0, c)` is an index tuple)."""
        if b.kind == T.TUPLE and o.kind == T.TUPLE and b.elts is not None and o.elts is not None:
            if t.known:
                return b if t.value else o
            if len(b.elts) != len(o.elts):
                self.fail("C2T101", f"a choice between tuples of {len(b.elts)} and {len(o.elts)} entries "
                                    "is not supported in kernel code", e)
            return self.make_tuple([self.choose(e, t, x, y) for x, y in zip(b.elts, o.elts)])
        kind = T.STATIC if t.is_static and b.is_static and o.is_static else (b.kind if b.kind == o.kind else T.UNKNOWN)
        return V(f"{paren(b, 4)} if {paren(t, 4)} else {paren(o, 3)}", kind, prec=3,
                 rank=b.rank if b.rank == o.rank else None, tf32=_chosen_tf32(t, b, o))

    def e_Call(self, e):
        if isinstance(e.func, N.Name):
            why = unsupported_builtin(self.s.info, self.env, e.func.id)
            if why:
                self.fail("C2T103", f"`{e.func.id}()` cannot be called in kernel code (cuTile refuses it too)", e,
                          cutile=("UnsupportedCallError", why))
        return ops.call(self.cx, e)

    def e_Raw(self, e):
        if e.kind == "dict":        # (cuTile has them only where it evaluates statically: ops_debug)
            self.fail("C2T103", f"`{e.text[:40]}` (a dict display) is not supported in kernel code (a helper's "
                                "**kwargs is a dictionary; a static_assert/static_eval may compare with one)", e,
                      cutile=("TileSyntaxError", "Unsupported syntax"))
        if e.kind == "assign_expr":     # `:=`: cuTile's parser has none either
            self.fail("C2T103", f"`{e.text[:40]}` (assign_expr) is not supported in kernel code", e,
                      cutile=("TileSyntaxError", "Unsupported syntax"))
        self.fail("C2T103", f"`{e.text[:40]}` ({e.kind}) is not supported in kernel code", e)

    def e_Lambda(self, e):
        """A lambda used as a value (passed to a helper, called at once): a nested function named
        after its position, bound at translation time like a nested def."""
        if any(p.kind != "normal" for p in e.params):
            self.fail("C2T103", "lambdas with variadic parameters are not supported in kernel code", e,
                      hint="write a nested def, or pass the values as arguments")
        fd = self.bind_defaults(lambda_as_def(f"lambda_{e.span.line}_{e.span.col}", e))
        self.local_funcs[fd.name] = fd
        return V(fd.name, T.HELPER, value=("localfunc", fd))


def _dimension(d: str) -> V:
    """A known tile dimension (its constexpr source text) as a value."""
    if d.isdigit():
        return V(d, T.STATIC, value=int(d), known=True)
    return V(d, T.STATIC, prec=100 if d.isidentifier() else 0)


def _tuple_index_error(iv: V):
    """cuTile's reason for refusing `iv` as the index of a tuple (an index that is not an integer
    or slice, a tile that is not 0-d, a runtime scalar), else None (an integer, or a constexpr
    value that Triton checks)."""
    if iv.kind == T.TUPLE:
        return "Tuple indices must be integers or slices, not a tuple"
    if iv.known and not isinstance(iv.value, int):
        return f"Tuple indices must be integers or slices, not {type(iv.value).__name__}"
    if iv.kind == T.TILE and iv.rank not in (0, None):
        return f"Tuple indices must be integers or slices, not a tile of rank {iv.rank}"
    if iv.kind == T.SCALAR or (iv.kind == T.TILE and iv.rank == 0):
        if iv.isfloat:
            return "Tuple indices must be integers or slices, not a float scalar"
        return "Tuple indices must be constant"
    return None


def own_locals(fd, info) -> set:
    """The names function `fd` binds in its own scope (N.local_names), once per function."""
    key = ("own_locals", id(fd))
    got = info.memo.get(key)
    if got is None or got[0] is not fd:
        got = info.memo[key] = (fd, N.local_names(fd.body))
    return got[1]


# Python builtins cuTile implements in kernel code (its @impl registrations); calling another one is
# its UnsupportedCallError (hir2ir's _call_function)
CUTILE_BUILTINS = frozenset(("abs", "bool", "divmod", "float", "getattr", "int", "len", "max", "min", "print",
                             "range", "repr", "slice", "str", "tuple"))


def unsupported_builtin(info, env, nm: str):
    """cuTile's UnsupportedCallError message for calling the builtin `nm` in kernel code (a builtin
    function or class cuTile does not implement, bound nowhere else), else None."""
    if nm in env or nm in CUTILE_BUILTINS or nm.startswith("_") or not hasattr(builtins, nm):
        return None
    known = _module_names(info)
    if known is None or nm in known or info.ct_path(N.Name(span=None, id=nm)) is not None:
        return None
    obj = getattr(builtins, nm)
    if isinstance(obj, type):
        return f'Creating instances of type "{nm}" is not supported in device code'
    if callable(obj):
        return f"{nm}() is not supported in device code"
    return None


def _module_names(info) -> set:
    """The names the module binds (assignments anywhere, defs, classes, imports), once; None where a
    statement of another kind (with, try, ...) may bind names this does not see."""
    key = ("module_names", id(info.module))
    if key not in info.memo:
        body = info.module.body
        names = set(N.assigned_names(body, defs=True))
        names |= set(info.ct_modules) | set(info.ct_names) | set(info.cuda_names) | set(info.other_modules) \
            | set(info.imported) | set(info.constants) | set(info.functions) | set(info.classes) \
            | set(info.refused_classes) | set(info.tables) | set(info.kernels)
        names |= {n.name for n in N.walk(body) if isinstance(n, N.Other) and n.name}
        if any(isinstance(n, N.Other) and any(w in n.kind for w in ("with", "try", "global", "nonlocal", "match"))
               for n in N.walk(body)):
            names = None
        info.memo[key] = (info.module, names)
    return info.memo[key][1]


def _is_record(v: V) -> bool:
    """A frozen dataclass value or an enum member known at translation time (not an IntEnum member:
    that is an int at run time too)."""
    return v.known and (isinstance(v.value, enum.Enum) and not isinstance(v.value, int)
                        or dataclasses.is_dataclass(v.value) and not isinstance(v.value, type))


def lambda_as_def(name: str, lam: N.Lambda) -> N.FunctionDef:
    return N.FunctionDef(span=lam.span, name=name, params=copy.deepcopy(lam.params),
                         body=[N.Return(span=lam.span, value=lam.body)], full_span=lam.span)


def _chosen_tf32(t: V, b: V, o: V):
    """The tf32-ness of `b if t else o` (a dtype, or a tile cast to tfloat32 in one branch, as
    `ct.astype(q, ct.tfloat32) if q.dtype == ct.float32 else q`): a condition where the branches
    differ, None where it cannot be told (a runtime condition, or both branches conditional)."""
    if b.tf32 == o.tf32:
        return b.tf32 or False
    if b.kind != T.DTYPE and not t.is_static:
        return None
    return (f"({t.code})" if b.tf32 is True and not o.tf32 else
            f"not ({t.code})" if o.tf32 is True and not b.tf32 else None)


def _known_none(lw, node) -> bool:
    """Whether a tile index entry is a name or attribute known here to be None (`np.newaxis`)."""
    if not isinstance(node, (N.Name, N.Attr)):
        return False
    try:
        v = lw.expr(node)
    except TranslationError:
        return False
    return v.known and v.value is None


def _index_text(lw, node):
    """A tile index entry as cuTile's message prints it (`0`, `slice(None, None, 2)`), or None when
    its value is not known here."""
    if isinstance(node, N.SliceExpr):
        bounds = [lw.expr(b) if b is not None else None for b in (node.lower, node.upper, node.step)]
        if all(b is None or b.known for b in bounds):
            return repr(slice(*[b.value if b is not None else None for b in bounds]))
        return None
    try:
        v = lw.expr(node)
    except TranslationError:
        return None
    return repr(v.value) if v.known else None
