"""What the translation check (check.py) compiles each kernel with, read off the cuTile module
without running it: which arrays hold indices, the Constant values the launch sites pass (or
assumed ones), the spec's dtypes."""
from __future__ import annotations

import ast

from .check import KernelCheck, UnknownConstexpr
from .ir import nodes as N
from .ir.nodes import walk

# cuTile operations whose arguments are indices, extents or offsets, except the ones named here
# (the array, and the data: these may be floats): a tile used there comes from an integer array
_DATA_ARGS = {"load": ({0}, ()), "gather": ({0}, ("padding_value",)), "store": ({0, 2}, ("tile",)),
              "scatter": ({0, 2}, ("value",)), "cdiv": (set(), ()), "arange": (set(), ()),
              "full": ({1}, ("fill_value", "dtype")), "zeros": (set(), ("dtype",)), "ones": (set(), ("dtype",)),
              "num_tiles": ({0}, ()), "load_advanced_indexing": ({0}, ("padding_value",)),
              "store_advanced_indexing": ({0, 2}, ("tile", "value")),
              **{f"atomic_{op}": ({0, 2}, ("update", "val", "value"))
                 for op in ("add", "max", "min", "and", "or", "xor", "xchg")},
              "atomic_cas": ({0, 2, 3}, ("expected", "desired"))}
# methods of arrays and views whose arguments are indices ("tile" aside)
_INDEX_METHODS = {"slice", "tiled_view", "load", "store", "atomic_store_add", "atomic_store_max"}
_LOADS = {"load", "gather", "load_advanced_indexing"}
_INT_OPS = {"&", "|", "^", "<<", ">>"}
_FLOATS = {"float32": "fp32", "float16": "fp16", "bfloat16": "bf16", "float64": "fp64",
           "float8_e4m3fn": "fp8e4nv", "float8_e5m2": "fp8e5"}
_INTS = {"int32": "i32", "int64": "i64", "int16": "i16", "int8": "i8", "uint8": "u8", "bool": "i1"}
_GUESS_INTS = (16, 64, 128, 32)
_ARITH = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
          "//": lambda a, b: a // b, "%": lambda a, b: a % b}
MAX_LAUNCH_COMBOS = 4


def kernel_checks(info, plans: dict) -> list:
    """One KernelCheck per generated @triton.jit kernel (layout-flag variants and rank variants
    each) of the translated kernels in `plans`."""
    spec = spec_dtypes(info)
    out = []
    for name, plan in plans.items():
        fd = plan.fd
        index = index_arrays(fd, info)
        consts = constant_candidates(info, fd)
        for sub in plan.subs or [plan]:
            arrays = {p.name: p.rank for p in sub.params if p.kind == "array"}
            lists = {p.name for p in sub.params if p.kind == "list"}
            scalars = {p.name: p.isfloat for p in sub.params if p.kind == "scalar"}
            floats = spec or ["float32", "float16", "bfloat16"]
            types = []
            for dt in floats:       # (a spec's int dtype: every array holds it)
                types.append((_label(dt, index), dt, dt if dt in _INTS else "int32"))
            if index and not spec:
                types.append((_label(floats[0], index, "int64"), floats[0], "int64"))
            # (a spec's dtypes are its cases' dtype: its make_args may give some arrays others)
            fallback = [(label, _binder(arrays, lists, scalars, index, fdt, "int32", per), consts)
                        for label, fdt, per in _fallback_types(arrays, index, accumulator_dtypes(fd, info))]
            for vname, _values, lines in sub.variants or [(sub.name, {}, sub.lines)]:
                out.append(KernelCheck(
                    jit_name=vname, kernel=name, line=fd.span.line, body=list(lines),
                    required={t[0] for t in types if spec and t[1] in spec},
                    types=[(label, _binder(arrays, lists, scalars, index, fdt, idt), consts)
                           for label, fdt, idt in types], fallback=fallback))
    return out


_FALLBACK_MAX_ARRAYS = 6     # mixed typings are tried one array at a time up to this many arrays


def _fallback_types(arrays: dict, index: set, acc: dict = None) -> list:
    """[(label, data dtype, {array: dtype})]: every array int32, int16 or int8 (index arrays too);
    then each array alone of another dtype among fp32 ones, and among int32 ones (an index array:
    of a narrower integer type, as a running count of int16 data makes one). First of all, where
    `acc` (accumulator_dtypes) gives some arrays a dtype: those, among fp32 and among int32."""
    out = [(f"{dt} arrays" + (" (index arrays too)" if index else ""), dt, {a: dt for a in index})
           for dt in ("int32", "int16", "int8")]
    acc = {a: d for a, d in (acc or {}).items() if a in arrays}
    if acc:
        said = ", ".join(f"`{a}` {d}" for a, d in sorted(acc.items()))
        out = [(f"{said} (the dtypes of the accumulators they feed), the other arrays {base}", base, acc)
               for base in ("float32", "int32")] + out
    if 1 < len(arrays) <= _FALLBACK_MAX_ARRAYS:
        for base in ("float32", "int32"):
            out += [(f"`{a}` {dt}, the other arrays {base}", base, {a: dt})
                    for a in sorted(arrays) for dt in (_FALLBACK_DTYPES if a not in index else ("int16", "int8"))
                    if dt != base]
    return out


_FALLBACK_DTYPES = ("int32", "float32", "float16", "bfloat16", "int16", "int8")


def _label(dt: str, index: set, idt: str = "int32") -> str:
    return f"{dt} arrays" + (f", {idt} index arrays ({', '.join(sorted(index))})" if index else "")


def _binder(arrays, lists, scalars, index, fdt, idt, per_array=None):
    """A function of the Triton kernel's parameters [(name, is_constexpr)] and of one choice of the
    Constant values: (signature, constexprs) for Triton's ASTSource. `per_array`: dtypes of some
    data arrays other than `fdt`."""
    import triton.language as tl
    ftl, itl = _FLOATS.get(fdt) or _INTS.get(fdt, "fp32"), _INTS.get(idt, "i32")
    own = {a: _FLOATS.get(dt) or _INTS[dt] for a, dt in (per_array or {}).items()}

    def bind(params, user):
        sig, const = {}, {}
        for pname, is_const in params:
            if is_const:
                sig[pname] = "constexpr"
                const[pname] = _constexpr(pname, user, arrays, lists, ftl, tl)
                continue
            if pname in arrays:
                sig[pname] = "*" + own.get(pname, itl if pname in index else ftl)
            elif pname in scalars:
                sig[pname] = "fp32" if scalars[pname] else "i32"
            elif any(pname == f"{lst}_tbl" for lst in lists):
                sig[pname] = "*i64"
            else:               # shapes, strides, list lengths, the grid's programs
                sig[pname] = "i32"
        return sig, const
    return bind


def _constexpr(pname, user, arrays, lists, ftl, tl):
    if pname in user:
        return user[pname]
    if pname == "C2T_COARSEN":
        return 1
    if pname == "C2T_PAD":
        return False
    for a in arrays:
        if pname == f"{a}_TMA" or pname.startswith(f"{a}_IS_"):
            return False
    for lst in lists:
        if pname == f"{lst}_DTYPE":
            return getattr(tl, {"fp32": "float32", "fp16": "float16", "bf16": "bfloat16"}.get(ftl, "float32"))
        if pname == f"{lst}_ALIGNED":
            return 0
    raise UnknownConstexpr(pname)


# ---------------------------------------------------------------- Constant values
def _dispatch_values(fd: N.FunctionDef) -> dict:
    """{Constant parameter: the first value a dispatch over a table's keys compares it with}."""
    out = {}
    for n in walk(fd.body):
        if isinstance(n, N.If) and getattr(n, "c2t_dispatch", False) and isinstance(n.test.left, N.Name):
            out.setdefault(n.test.left.id, n.test.comparators[0].value)
    return out


def constant_candidates(info, fd: N.FunctionDef) -> dict:
    """{"known": [values per launch site] , "guess": [assumed values, tried in order]}: each a dict
    of the kernel's Constant parameters."""
    consts = [p for p in fd.params if info.is_constant_annotation(p.annotation)]
    names = [p.name for p in fd.params]
    known = []
    for call, env in _launches_of(info, fd.name):
        vals = {}
        args = call.args[3].elts if len(call.args) > 3 and isinstance(call.args[3], N.TupleExpr) else None
        if args is None or len(args) != len(names) or any(isinstance(a, N.Starred) for a in args):
            continue
        for p in consts:
            v = _value(info, args[names.index(p.name)], env)
            if v is not None:
                vals[p.name] = v
        if vals and vals not in known:
            known.append(vals)
    kinds = {p.name: _const_kind(info, p.annotation, fd) for p in consts}
    guesses = []
    for g in _GUESS_INTS:
        guesses.append({n: (g if k == "int" else False if k == "bool" else 1.0 if k == "float" else _dtype())
                        for n, k in kinds.items()})
    guesses.append({n: (16 if k == "int" else True if k == "bool" else 1.0 if k == "float" else _dtype())
                    for n, k in kinds.items()})
    picked = _dispatch_values(info.kernels.get(fd.name, fd))
    if picked:     # a table's key (passes/fn_values.py): other values fail its static_assert
        guesses = [{**g, **{n: v for n, v in picked.items() if n in g}} for g in guesses]
    combos = []
    for k in known[:MAX_LAUNCH_COMBOS] or [{}]:
        combos.append([{**g, **k} for g in guesses] if len(k) < len(kinds) else [k])
    return {"combos": combos, "assumed": not known or any(len(k) < len(kinds) for k in known)}


def _dtype():
    import triton.language as tl
    return tl.float32


def _value(info, e, env=None):
    """The Python value of a launch argument the check can know (a literal, a module constant, a
    ct/torch dtype), else None."""
    if isinstance(e, N.Const) and isinstance(e.value, (bool, int, float)):
        return e.value
    if isinstance(e, N.UnaryOp) and e.op == "-" and isinstance(e.operand, N.Const) \
            and isinstance(e.operand.value, (int, float)):
        return -e.operand.value
    if isinstance(e, N.Name) and env and e.id in env:
        return env[e.id]
    if isinstance(e, N.Name) and isinstance(info.constants.get(e.id), (bool, int, float)):
        return info.constants[e.id]
    if isinstance(e, N.BinOp) and e.op in _ARITH:
        # `2 * 2`, `BLOCK // 2` of known values (numbers only, small: nothing is evaluated but these)
        a, b = _value(info, e.left, env), _value(info, e.right, env)
        if all(isinstance(v, (int, float)) and not isinstance(v, bool) and abs(v) < 2 ** 31 for v in (a, b)):
            try:
                return _ARITH[e.op](a, b)
            except (ZeroDivisionError, OverflowError):
                return None
        return None
    path = info.ct_path(e)
    if path is None and isinstance(e, N.Attr) and isinstance(e.value, N.Name) and e.value.id == "torch":
        path = e.attr
    if path in _FLOATS or path in _INTS:
        import triton.language as tl
        return getattr(tl, {"bool": "int1"}.get(path, path), None)
    return None


def _launches_of(info, kernel: str):
    """(launch call, {name: value} of the enclosing host function's names bound once to a literal)."""
    for scope in [info.module.body] + [fd for fd in walk(info.module.body) if isinstance(fd, N.FunctionDef)]:
        body = scope.body if isinstance(scope, N.FunctionDef) else scope
        calls = [n for n in walk(body) if isinstance(n, N.Call) and info.ct_path(n.func) == "launch"
                 and len(n.args) >= 3 and isinstance(n.args[2], N.Name) and n.args[2].id == kernel
                 and _innermost(n, body)]
        if calls:
            env = _literal_locals(info, scope) if isinstance(scope, N.FunctionDef) else {}
            for c in calls:
                yield c, env


def _innermost(call, body) -> bool:
    """Whether `call` is in `body` outside the functions defined there (those are scopes of their own)."""
    inner = {id(n) for fd in walk(body) if isinstance(fd, N.FunctionDef) for n in walk(fd.body)}
    return id(call) not in inner


def _literal_locals(info, fd) -> dict:
    from .analysis import _literal
    counts, values = {}, {}
    for n in walk(fd.body):
        if isinstance(n, (N.Assign, N.AugAssign, N.AnnAssign, N.For)):
            targets = n.targets if isinstance(n, N.Assign) else [n.target]
            for t in targets:
                for x in walk(t):
                    if isinstance(x, N.Name):
                        counts[x.id] = counts.get(x.id, 0) + 1
                        if isinstance(n, N.Assign) and t is x:
                            values[x.id] = n.value
    for p in fd.params:
        if p.default is not None:
            counts[p.name] = counts.get(p.name, 0) + 1
            values[p.name] = p.default
    env = {}
    for name, e in values.items():
        if counts.get(name) == 1:
            try:
                v = _literal(e, info.constants)
            except ValueError:
                continue
            if isinstance(v, (bool, int, float)):
                env[name] = v
    return env


def _const_kind(info, ann, fd) -> str:
    if info.is_constant_bool(ann):
        return "bool"
    if info.is_constant_dtype(ann):     # `ct.Constant[ct.DType]`: assumed a dtype, not 16
        return "dtype"
    sub = ann
    if isinstance(ann, N.Name):         # ConstInt = ct.Constant[int]
        sub = next((st.value for st in info.module.body if isinstance(st, N.Assign) and len(st.targets) == 1
                    and isinstance(st.targets[0], N.Name) and st.targets[0].id == ann.id), None)
    if isinstance(sub, N.Subscript) and isinstance(sub.index, N.Name):
        return {"int": "int", "bool": "bool", "float": "float"}.get(sub.index.id, "int")
    return "int"


# ---------------------------------------------------------------- index arrays
def _taints(fd: N.FunctionDef, info, params_too=False):
    """(taint, sources, assigns): the array parameters each name's values may come from (followed
    through assignments flow-insensitively; an explicit cast ends the trail), and `sources(e)`, those
    of an expression."""
    params = {p.name for p in fd.params}
    # a helper's parameters may be tiles of the caller's arrays: each is its own source there
    taint: dict = {p: {p} for p in params} if params_too else {}

    def sources(e) -> set:
        """The arrays whose elements `e` may hold: those it loads from, and the taint of its names."""
        out = set()
        for n in walk(e):
            if isinstance(n, N.Call) and info.ct_path(n.func) in _LOADS and n.args \
                    and isinstance(n.args[0], N.Name) and n.args[0].id in params:
                out.add(n.args[0].id)
        for n in _names_outside_attrs(e):
            out |= taint.get(n, set())
        return out

    assigns = [n for n in walk(fd.body) if isinstance(n, (N.Assign, N.AugAssign, N.AnnAssign, N.For))]
    for _ in range(8):
        changed = False
        for st in assigns:
            value = st.iter if isinstance(st, N.For) else st.value
            if value is None or _is_cast(info, value):
                continue
            src = sources(value)
            if isinstance(st, N.AugAssign):
                src = src | sources(st.target)
            targets = st.targets if isinstance(st, N.Assign) else [st.target]
            for t in targets:
                for x in walk(t):
                    if isinstance(x, N.Name) and not src <= taint.get(x.id, set()):
                        taint[x.id] = taint.get(x.id, set()) | src
                        changed = True
        if not changed:
            break
    return taint, sources, assigns


def accumulator_dtypes(fd: N.FunctionDef, info) -> dict:
    """{array: dtype}: arrays whose data a tile made with an explicit dtype accumulates (`acc =
    ct.zeros(s, dtype=ct.int8)`, then `acc = acc + ct.load(x, ...)`): in cuTile a loop-carried
    accumulator keeps its type, so x holds that dtype (the check's first fallback typing)."""
    taint, _, assigns = _taints(fd, info)
    arrays = {p.name for p in fd.params if not info.is_constant_annotation(p.annotation)}
    out: dict = {}
    for st in assigns:
        if not (isinstance(st, N.Assign) and isinstance(st.value, N.Call)
                and info.ct_path(st.value.func) in ("zeros", "ones", "full")):
            continue
        dt = next((k.value for k in st.value.keywords if k.name == "dtype"), None)
        path = info.ct_path(dt) if dt is not None else None
        if path not in _FLOATS and path not in _INTS or path == "bool":
            continue
        for t in st.targets:
            if isinstance(t, N.Name):
                for a in taint.get(t.id, set()) & arrays:
                    out[a] = path if out.get(a, path) == path else None      # (two: no hint)
    return {a: d for a, d in out.items() if d is not None}


def index_arrays(fd: N.FunctionDef, info, _seen=None, params_too=False) -> set:
    """Array parameters whose tiles the kernel uses as indices (gather/scatter/load indices, range
    bounds, bitwise operands), so that they hold integers: a tile's source arrays are followed
    through assignments (flow-insensitively); an explicit cast ends the trail."""
    params = {p.name for p in fd.params}
    taint, sources, assigns = _taints(fd, info, params_too)
    used = set()
    for n in walk(fd.body):
        spots = []
        if isinstance(n, N.Call):
            path = info.ct_path(n.func)
            if path in _DATA_ARGS:
                pos, kws = _DATA_ARGS[path]
                spots += [a for i, a in enumerate(n.args) if i not in pos]
                spots += [k.value for k in n.keywords if k.name not in kws]
            elif path is None and isinstance(n.func, N.Attr) and n.func.attr in _INDEX_METHODS:
                spots += n.args + [k.value for k in n.keywords if k.name != "tile"]
            if isinstance(n.func, N.Name) and n.func.id == "range":
                spots += n.args
            elif isinstance(n.func, N.Name) and n.func.id in info.functions and n.func.id not in (_seen or ()):
                helper = info.functions[n.func.id]     # (the helper's parameters that hold indices)
                inner = index_arrays(helper, info, (_seen or set()) | {fd.name, helper.name}, params_too=True)
                names = [p.name for p in helper.params]
                mapped = [a for i, a in enumerate(n.args) if i < len(names) and names[i] in inner]
                mapped += [k.value for k in n.keywords if k.name in inner]
                spots += mapped     # (an array passed on whole is an index array there)
                used |= {a.id for a in mapped if isinstance(a, N.Name) and a.id in params}
        elif isinstance(n, N.BinOp) and n.op in _INT_OPS:
            spots += [n.left, n.right]
        elif isinstance(n, N.UnaryOp) and n.op == "~":
            spots.append(n.operand)
        elif isinstance(n, N.Subscript) and not isinstance(n.index, N.SliceExpr):
            spots.append(n.index)
        for s in spots:
            if not _is_cast(info, s):
                used |= sources(s)
    # a name bound to an int literal and to array data (a running count): that array holds ints
    int_init = {t.id for st in assigns if isinstance(st, N.Assign) and _int_valued(info, st.value)
                for t in st.targets if isinstance(t, N.Name)}
    for name in int_init:
        used |= taint.get(name, set())
    arrays = {p.name for p in fd.params if not info.is_constant_annotation(p.annotation)}
    return used & arrays


def _int_valued(info, e) -> bool:
    """An int literal, or a tile made with an integer dtype (ct.zeros((1,), dtype=ct.int32))."""
    if isinstance(e, N.Const):
        return type(e.value) is int
    if isinstance(e, N.Call) and info.ct_path(e.func) in ("zeros", "ones", "full", "arange"):
        dt = next((k.value for k in e.keywords if k.name == "dtype"), None)
        path = info.ct_path(dt) if dt is not None else None
        return path in _INTS and path != "bool" or (dt is None and info.ct_path(e.func) == "arange")
    return False


def _is_cast(info, e) -> bool:
    return isinstance(e, N.Call) and info.ct_path(e.func) in ("astype", "bitcast")


_METADATA = {"shape", "dtype", "ndim", "num_tiles"}


def _names_outside_attrs(e):
    """Names read in `e`, except the bases of metadata attributes (`x.shape` reads no element of x)."""
    skip = {id(n.value) for n in walk(e) if isinstance(n, N.Attr) and isinstance(n.value, N.Name)
            and n.attr in _METADATA}
    for n in walk(e):
        if isinstance(n, N.Name) and id(n) not in skip:
            yield n.id


# ---------------------------------------------------------------- the spec's dtypes
def spec_dtypes(info) -> list:
    """The dtypes of the module's C2T_SPEC (read as text: nothing runs), else []."""
    for st in info.module.body:
        if isinstance(st, N.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], N.Name) \
                and st.targets[0].id == "C2T_SPEC":
            text = info.module.text[st.value.span.start:st.value.span.end]
            try:
                node = ast.parse(text, mode="eval").body
            except SyntaxError:
                return []
            if not isinstance(node, ast.Dict):
                return []
            for k, v in zip(node.keys, node.values):
                if isinstance(k, ast.Constant) and k.value == "dtypes":
                    try:
                        dts = ast.literal_eval(v)
                    except ValueError:
                        return []
                    return [d for d in dts if isinstance(d, str) and (d in _FLOATS or d in _INTS)] \
                        if isinstance(dts, list) else []
    return []

