"""One random cuTile kernel: loads/gathers of inputs, a few statements on tiles, stores/scatters.

Every block ``bid`` reads and writes its own tile along array axis 0 (no two blocks write the same
element), partly out-of-bounds loads use ZERO padding, and values stay small exact integers unless an
inexact op (exp, /) is chosen, so the original and the translation must agree within tolerance.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .choices import Choices
from .more_gen import MORE_KINDS, MoreStatements
from .values import (FLOATS, GPU_ONLY, INTS, LIMIT, MAX_NUMEL, Val, broadcast, ct_dtype, is_float, numel,
                     promote, shape_text)

DIMS = {1: (4, 8, 16, 1, 2, 32), 2: (4, 2, 8, 1), 3: (2, 4, 1), 4: (2, 1, 4)}


@dataclass
class HostArray:
    name: str
    shape: tuple
    dtype: str
    lo: int = -4
    hi: int = 5               # values drawn from [lo, hi)
    output: bool = False


@dataclass
class Param:
    name: str
    annot: str                # "" (array / runtime scalar) or the Constant annotation
    host: str                 # the expression the host passes
    glob: str = ""            # a module-level line the host expression needs
    local: str = ""           # a host-function line the host expression needs


@dataclass
class Kernel:
    name: str
    blocks: int
    decorator: str
    params: list = field(default_factory=list)
    inputs: list = field(default_factory=list)
    outputs: list = field(default_factory=list)
    lines: list = field(default_factory=list)
    helpers: list = field(default_factory=list)    # module-level helper function sources
    classes: set = field(default_factory=set)
    flag: str = ""                                 # name of a Constant[int] flag param (relaunched with 1 - value)


class KernelGen(MoreStatements):
    def __init__(self, ch: Choices, kid: int, names, gpu: bool, gen: int = 2):
        self.ch, self.kid, self.names, self.gpu, self.gen = ch, kid, names, gpu, gen
        blocks = 1 + ch.int(3)
        self.k = Kernel(f"kernel_{kid}", blocks, self._decorator())
        self.vals: list[Val] = []
        self.ind = "    "
        self.n = 0
        self.bid = "bid"

    # ---- small utilities -------------------------------------------------------------------
    def fresh(self, stem="v") -> str:
        self.n += 1
        return f"{stem}{self.n}"

    def emit(self, line: str):
        self.k.lines.append(self.ind + line)

    def cls(self, *names):
        self.k.classes.update(names)

    def dtypes(self):
        return FLOATS + INTS + (GPU_ONLY if self.gpu else ())

    def _decorator(self) -> str:
        c = self.ch.int(8)
        forms = ["@ct.kernel", "@ct.kernel", "@ct.kernel()", "@ct.kernel(occupancy=2)", "@ct.kernel(num_ctas=1)",
                 "@ct.kernel(occupancy=ct.ByTarget(sm_90=2, default=1))",
                 "@ct.kernel(num_ctas=ct.ByTarget(sm_100=2, default=1))", "@ct.kernel(opt_level=2)"]
        return forms[c]

    def tile_shape(self, rank: int, cap: int = 64) -> tuple:
        while True:
            s = tuple(self.ch.pick(DIMS[rank]) for _ in range(rank))
            if numel(s) <= cap:
                return s
            cap *= 2          # replayed choices can ask for too much: fall back to the smallest dims
            if cap > 4096:
                return (1,) * rank

    def const_dim(self, d: int) -> str:
        """A tile dimension written as a literal or as a ct.Constant[int] parameter (host forms vary)."""
        if not self.ch.chance(30):
            return str(d)
        name = f"T{self.fresh('')}"
        annot = self.ch.pick(["ConstInt", "ct.Constant[int]"])
        form = self.ch.int(4)
        if form == 0:
            p = Param(name, annot, str(d))
        elif form == 1:
            g = f"{name}_{self.k.name.upper()}"
            p = Param(name, annot, g, glob=f"{g} = {d}")
        elif form == 2:
            p = Param(name, annot, f"{name.lower()}_{self.kid}", local=f"{name.lower()}_{self.kid} = {d}")
        else:
            p = Param(name, annot, f"2 * {d // 2}" if d >= 2 else "1 * 1")
        self.k.params.append(p)
        self.cls("constant_param", f"constant_host_{['literal', 'global', 'local', 'expr'][form]}")
        return name

    def new_array(self, shape, dtype, lo=-4, hi=5, output=False) -> HostArray:
        a = HostArray(self.names.new("o" if output else "x"), tuple(shape), dtype, lo, hi, output)
        (self.k.outputs if output else self.k.inputs).append(a)
        self.k.params.append(Param(a.name, "", a.name))
        return a

    def pick_val(self, pred=lambda v: True):
        cands = [v for v in self.vals if pred(v)]
        if not cands:
            return None
        return cands[len(cands) - 1 - self.ch.int(len(cands))]     # 0: the newest value

    # ---- reading inputs ----------------------------------------------------------------------
    def read_input(self) -> Val:
        ch = self.ch
        rank = ch.pick([1, 2, 0, 3, 4])
        dtype = ch.pick(self.dtypes())
        kind = ch.pick(["load", "gather", "load_order", "gather_indirect"])
        if rank == 0:
            return self._read0(dtype)
        if kind == "load_order" and rank != 2:
            kind = "load"
        if kind == "gather_indirect" and rank != 1:
            kind = "gather"
        t = self.tile_shape(rank)
        return getattr(self, "_" + kind)(t, dtype)

    def _read0(self, dtype) -> Val:
        """A 0-D array is read with ct.gather(a, ()): cuTile 1.7 (tileiras 13.4) rejects ct.load on a
        0-D array ("0-dimension tile shape is not supported", the first GPU run)."""
        a = self.new_array((), dtype)
        v = self.fresh()
        self.emit(f"{v} = ct.gather({a.name}, ())")
        self.cls("gather0")
        return self._add(Val(v, (), dtype))

    def _add(self, val: Val) -> Val:
        self.vals.append(val)
        return val

    def _load(self, t, dtype) -> Val:
        B, ch = self.k.blocks, self.ch
        rag = [ch.int(t[d]) if ch.chance(25) else 0 for d in range(len(t))]
        shape = [t[d] * (B if d == 0 else 1) - rag[d] for d in range(len(t))]
        a = self.new_array(shape, dtype)
        dims = [self.const_dim(d) for d in t]
        if len(t) == 1 and ch.chance(40):
            idx, shp = self.bid, dims[0]
        else:
            idx, shp = "(" + ", ".join([self.bid] + ["0"] * (len(t) - 1)) + ("," if len(t) == 1 else "") + ")", \
                "(" + ", ".join(dims) + ("," if len(t) == 1 else "") + ")"
        pad = ", padding_mode=ct.PaddingMode.ZERO" if any(rag) or ch.chance(15) else ""
        v = self.fresh()
        self.emit(f"{v} = ct.load({a.name}, index={idx}, shape={shp}{pad})")
        self.cls(f"load{len(t)}", *(["ragged_load"] if any(rag) else []))
        return self._add(Val(v, t, dtype))

    def _load_order(self, t, dtype) -> Val:
        s0, s1 = t
        a = self.new_array((s1 * self.k.blocks, s0), dtype)
        v = self.fresh()
        self.emit(f"{v} = ct.load({a.name}, index=(0, {self.bid}), shape=({s0}, {s1}), order=(1, 0))")
        self.cls("load2", "load_order")
        return self._add(Val(v, t, dtype))

    def index_tiles(self, t, stem, offset0=True, variant=0):
        """Per-axis element-index tiles for a tile of shape t (broadcast against each other)."""
        r, out = len(t), []
        for d in range(r):
            base = f"ct.arange({t[d]}, dtype=ct.int32)"
            if variant == 1:
                base = f"{t[d] - 1} - {base}"
            if r > 1:
                base = f"ct.reshape({base}, {shape_text(tuple(t[d] if e == d else 1 for e in range(r)))})"
            if d == 0 and offset0:
                base = f"{self.bid} * {t[0]} + {base}"
            name = f"{stem}_{d}"
            self.emit(f"{name} = {base}")
            out.append(name)
        return out

    def _gather(self, t, dtype) -> Val:
        ch, B = self.ch, self.k.blocks
        variant = ch.int(3)          # 0 plain, 1 reversed, 2 shifted past the end (padding)
        shape = [t[d] * (B if d == 0 else 1) for d in range(len(t))]
        a = self.new_array(shape, dtype)
        idx = self.index_tiles(t, self.fresh("g"), variant=min(variant, 1))
        extra = ""
        if variant == 2:
            idx[-1] = f"{idx[-1]} + 1"
            extra = f", padding_value={ch.pick([0, 1, -2])}"
            self.cls("gather_oob")
        res = t
        if len(t) >= 2 and ch.chance(25):         # a scalar index drops axis 0
            idx[0] = self.bid
            res = (1,) + tuple(t[1:])           # the other index tiles keep their leading 1
            self.cls("gather_scalar_index")
        if len(t) == 1 and ch.chance(50):
            ind = idx[0]
        else:
            ind = "(" + ", ".join(idx) + ("," if len(idx) == 1 else "") + ")"
        v = self.fresh()
        self.emit(f"{v} = ct.gather({a.name}, {ind}{extra})")
        self.cls(f"gather{len(t)}")
        return self._add(Val(v, tuple(res), dtype))

    def _gather_indirect(self, t, dtype) -> Val:
        n = t[0] * self.k.blocks
        src = self.new_array((n + 1,), dtype)
        ia = self.new_array((n,), "int32", lo=-1, hi=n + 2)       # -1 and > n are out of bounds
        iv, v = self.fresh("i"), self.fresh()
        self.emit(f"{iv} = ct.load({ia.name}, index=({self.bid},), shape=({t[0]},))")
        self.emit(f"{v} = ct.gather({src.name}, {iv}, padding_value=-1)")
        self.cls("gather1", "gather_indirect")
        return self._add(Val(v, t, dtype))

    # ---- statements -----------------------------------------------------------------------------
    def statement(self):
        kinds = ["binary", "unary", "reduce", "cast", "scan", "shape", "where", "read", "loop", "if",
                 "helper", "nested", "custom_reduce", "scalar_param", "matmul"]
        if self.gen >= 2:
            kinds += MORE_KINDS
        getattr(self, "s_" + self.ch.pick(kinds))()

    def s_read(self):
        self.read_input()

    def literal_for(self, dt: str):
        if is_float(dt) and self.ch.chance(40):
            return self.ch.pick(["2.0", "0.5", "-1.5"]), 2.0, True
        return str(self.ch.pick([1, 2, 3, -2])), 3, True

    def binop(self, a: Val, b_text: str, b_dtype, b_mag, b_shape, b_exact=True):
        """(expr, Val-without-name) for a random binary op, or None when it would not stay exact/in range."""
        ch = self.ch
        lit = b_dtype is None
        dt = a.dtype if lit else promote(a.dtype, b_dtype)
        if lit and "." in b_text and not is_float(a.dtype):
            dt = "float32"
        if dt is None:
            return None
        shape = a.shape if lit else broadcast(a.shape, b_shape)
        if shape is None or numel(shape) > MAX_NUMEL:
            return None
        ops = ["+", "-", "*", "max", "min"]
        if not is_float(dt):
            ops += ["//", "%", "&"]
        else:
            ops += ["/"]
        op = ch.pick(ops)
        exact = a.exact and b_exact
        mag = {"+": a.mag + b_mag, "-": a.mag + b_mag, "*": a.mag * b_mag}.get(op, max(a.mag, b_mag))
        if op in ("//", "%"):
            if not lit:
                b_text = f"(ct.abs({b_text}) + 1)" if ch.chance(50) else f"ct.where({b_text} == 0, 3, {b_text})"
            elif b_text in ("0",):
                b_text = "3"
            mag = a.mag if op == "//" else b_mag + 1
            self.cls("int_floordiv_mod")
        if op == "&":              # cuTile: bitwise operands must have the same dtype
            if is_float(a.dtype) or (not lit and b_dtype != a.dtype):
                return None
            mag = max(a.mag, b_mag) * 2
        if op == "/":
            if not lit:
                b_text = f"(ct.abs({b_text}) + 1)"
            exact = exact and b_text in ("2.0", "2", "-2")
            self.cls("truediv")
        if not (mag <= LIMIT[dt]):
            return None
        if op in ("max", "min"):
            fn = "maximum" if op == "max" else "minimum"
            expr = f"ct.{fn}({a.name}, {b_text})"
        else:
            expr = f"{a.name} {op} {b_text}"
        if not lit and b_dtype != a.dtype:
            self.cls("mixed_dtype")
        return expr, Val("", shape, dt, mag, exact)

    def s_binary(self):
        a = self.pick_val()
        if a is None:
            return self.read_input()
        ch = self.ch
        if ch.chance(40):
            txt, mag, ex = self.literal_for(a.dtype)
            got = self.binop(a, txt, None, mag, None)
        else:
            b = self.pick_val(lambda v: broadcast(a.shape, v.shape) is not None)
            got = self.binop(a, b.name, b.dtype, b.mag, b.shape, b.exact) if b is not None else None
        if got is None:
            return
        expr, val = got
        val.name = self.fresh()
        self.emit(f"{val.name} = {expr}")
        self._add(val)

    def s_unary(self):
        a = self.pick_val()
        if a is None:
            return self.read_input()
        op = self.ch.pick(["neg", "abs", "exp", "sqrt", "floor"])
        v = self.fresh()
        if op in ("exp", "sqrt", "floor") and not is_float(a.dtype):
            op = "neg"
        if op == "exp" and a.mag > 6:
            op = "abs"
        if op == "neg":
            self.emit(f"{v} = -{a.name}")
            return self._add(Val(v, a.shape, a.dtype, a.mag, a.exact))
        if op == "abs":
            self.emit(f"{v} = ct.abs({a.name})")
            return self._add(Val(v, a.shape, a.dtype, a.mag, a.exact))
        if op == "floor":
            self.emit(f"{v} = ct.floor({a.name} / 2)")
            return self._add(Val(v, a.shape, a.dtype, a.mag, a.exact))
        self.cls("math_" + op)
        arg = a.name if op == "exp" else f"ct.abs({a.name})"
        mag = 2.72 ** a.mag if op == "exp" else a.mag ** 0.5 + 1
        if mag > LIMIT[a.dtype]:
            return None
        self.emit(f"{v} = ct.{op}({arg})")
        return self._add(Val(v, a.shape, a.dtype, mag, False))

    def axes_arg(self, rank: int):
        """(axis text, reduced axes) with None / int (maybe negative) / tuple forms."""
        ch = self.ch
        if rank == 0:
            return "None", ()
        form = ch.int(4 if rank >= 2 else 3)
        if form == 0 or (form == 2 and rank == 0):
            ax = ch.int(rank)
            return str(ax), (ax,)
        if form == 1:
            return "None", tuple(range(rank))
        if form == 2:
            ax = ch.int(rank)
            return str(ax - rank), (ax,)
        a0 = ch.int(rank)
        a1 = (a0 + 1 + ch.int(rank - 1)) % rank
        self.cls("reduce_tuple_axis")
        return f"({a0}, {a1})", (a0, a1)

    def s_reduce(self):
        a = self.pick_val()
        if a is None:
            return self.read_input()
        ch = self.ch
        op = ch.pick(["sum", "max", "min", "prod", "argmax", "argmin"])
        if op.startswith("arg"):
            if a.rank == 0:
                op = "max"
            else:
                form = ch.int(2)
                ax = ch.int(a.rank)
                axes = (ax,) if form == 0 else tuple(range(a.rank))
                axtxt = str(ax) if form == 0 else "None"
        if not op.startswith("arg"):
            axtxt, axes = self.axes_arg(a.rank)
        n = numel([a.shape[i] for i in axes])
        keep = ch.chance(50)
        shape = tuple(1 if i in axes else d for i, d in enumerate(a.shape)) if keep else \
            tuple(d for i, d in enumerate(a.shape) if i not in axes)
        if op.startswith("arg") and axtxt == "None":
            shape = (1,) * a.rank if keep else ()
        mag = {"sum": a.mag * n, "prod": a.mag ** n}.get(op, a.mag)
        dt = "int32" if op.startswith("arg") else a.dtype
        if op.startswith("arg"):
            mag = numel(a.shape)
            if not a.exact:
                return None      # ties between nearly equal values would pick rounding, not the op
        if mag > LIMIT[dt]:
            return None
        v = self.fresh()
        kd = ", keepdims=True" if keep else (", keepdims=False" if ch.chance(20) else "")
        self.emit(f"{v} = ct.{op}({a.name}, axis={axtxt}{kd})")
        self.cls("reduce_" + op, *(["keepdims"] if keep else []))
        return self._add(Val(v, shape, dt, mag, a.exact))

    def s_scan(self):
        a = self.pick_val(lambda v: v.rank >= 1)
        if a is None:
            return self.read_input()
        ch = self.ch
        op = ch.pick(["cumsum", "cumprod"])
        ax = ch.int(a.rank)
        n = a.shape[ax]
        mag = a.mag * n if op == "cumsum" else a.mag ** n
        if mag > LIMIT[a.dtype]:
            return None
        rev = ", reverse=True" if ch.chance(30) else ""
        v = self.fresh()
        self.emit(f"{v} = ct.{op}({a.name}, axis={ax}{rev})")
        self.cls("scan_" + op, *(["scan_reverse"] if rev else []))
        return self._add(Val(v, a.shape, a.dtype, mag, a.exact))

    def s_cast(self):
        a = self.pick_val()
        if a is None:
            return self.read_input()
        to = self.ch.pick(self.dtypes())
        if a.mag > LIMIT[to] or (not a.exact and not is_float(to)):
            to = "float32"
        v = self.fresh()
        form = self.ch.int(2)
        self.emit(f"{v} = ct.astype({a.name}, {ct_dtype(to)})" if form == 0 else f"{v} = {a.name}.astype({ct_dtype(to)})")
        self.cls("astype", f"cast_{'f' if is_float(a.dtype) else 'i'}2{'f' if is_float(to) else 'i'}")
        return self._add(Val(v, a.shape, to, a.mag, a.exact))

    def s_shape(self):
        a = self.pick_val()
        if a is None:
            return self.read_input()
        ch = self.ch
        op = ch.pick(["reshape", "permute", "transpose", "expand", "broadcast", "cat"])
        v = self.fresh()
        if op == "reshape" or a.rank == 0 or (op == "permute" and a.rank < 2) or (op == "transpose" and a.rank < 2):
            n = numel(a.shape)
            rank = ch.pick([1, 2, 3, 4, 0]) if n > 1 else ch.pick([1, 0, 2])
            shape = self.factor(n, rank)
            self.emit(f"{v} = ct.reshape({a.name}, {shape_text(shape) if shape else '()'})")
            self.cls("reshape")
        elif op == "permute":
            perm = list(range(a.rank))
            for i in range(a.rank - 1, 0, -1):
                j = ch.int(i + 1)
                perm[i], perm[j] = perm[j], perm[i]
            shape = tuple(a.shape[p] for p in perm)
            self.emit(f"{v} = ct.permute({a.name}, {shape_text(tuple(perm))})")
            self.cls("permute")
        elif op == "transpose":
            if a.rank == 2 and ch.chance(60):
                self.emit(f"{v} = ct.transpose({a.name})")
                x, y = 0, 1
            else:
                x = ch.int(a.rank)
                y = (x + 1 + ch.int(a.rank - 1)) % a.rank
                self.emit(f"{v} = ct.transpose({a.name}, {x}, {y})")
            s = list(a.shape)
            s[x], s[y] = s[y], s[x]
            shape = tuple(s)
            self.cls("transpose")
        elif op == "expand":
            if a.rank >= 4:
                return None
            ax = ch.int(a.rank + 1)
            shape = a.shape[:ax] + (1,) + a.shape[ax:]
            if ch.chance(50):
                sub = ", ".join([":"] * ax + ["None"] + [":"] * (a.rank - ax))
                self.emit(f"{v} = {a.name}[{sub}]")
            else:
                self.emit(f"{v} = ct.expand_dims({a.name}, axis={ax})")
            self.cls("expand_dims")
        elif op == "broadcast":
            shape = tuple(ch.pick([2, 4]) if d == 1 else d for d in a.shape)
            if numel(shape) > MAX_NUMEL or shape == a.shape:
                return None
            self.emit(f"{v} = ct.broadcast_to({a.name}, {shape_text(shape)})")
            self.cls("broadcast_to")
        else:
            b = self.pick_val(lambda w: w.shape == a.shape and w.dtype == a.dtype)
            ax = ch.int(a.rank)
            shape = tuple(d * 2 if i == ax else d for i, d in enumerate(a.shape))
            if numel(shape) > MAX_NUMEL:
                return None
            self.emit(f"{v} = ct.cat(({a.name}, {b.name}), axis={ax})")
            self.cls("cat")
            return self._add(Val(v, shape, a.dtype, max(a.mag, b.mag), a.exact and b.exact))
        return self._add(Val(v, tuple(shape), a.dtype, a.mag, a.exact))

    def factor(self, n: int, rank: int) -> tuple:
        if rank == 0:
            return () if n == 1 else (n,)
        dims = [1] * rank
        k = n.bit_length() - 1
        for _ in range(k):
            dims[self.ch.int(rank)] *= 2
        return tuple(dims)

    def s_where(self):
        a = self.pick_val()
        if a is None:
            return self.read_input()
        ch = self.ch
        b = self.pick_val(lambda v: broadcast(a.shape, v.shape) is not None and promote(a.dtype, v.dtype) is not None)
        other = ch.pick(["0", "b", "-a"]) if b is not None else "0"
        cmp = ch.pick([">", "<", "==", "!=", ">=", "<="])
        rhs = b.name if (b is not None and ch.chance(50)) else "0"
        v = self.fresh()
        if other == "b":
            dt, mag, ex, shape = promote(a.dtype, b.dtype), max(a.mag, b.mag), a.exact and b.exact, broadcast(a.shape, b.shape)
            self.emit(f"{v} = ct.where({a.name} {cmp} {rhs}, {a.name}, {b.name})")
        else:
            dt, mag, ex = a.dtype, a.mag, a.exact
            shape = broadcast(a.shape, b.shape) if rhs != "0" else a.shape
            self.emit(f"{v} = ct.where({a.name} {cmp} {rhs}, {a.name}, {'-' + a.name if other == '-a' else '0'})")
        if numel(shape) > MAX_NUMEL:
            self.k.lines.pop()
            return None
        self.cls("where")
        return self._add(Val(v, shape, dt, mag, ex))

    def s_scalar_param(self):
        """A runtime scalar kernel argument (int32 or float32 in cuTile) in arithmetic."""
        a = self.pick_val()
        if a is None:
            return self.read_input()
        name = f"s{self.fresh('')}"
        fl = self.ch.chance(50)
        val = self.ch.pick(["2.0", "0.5"]) if fl else self.ch.pick(["2", "3"])
        self.k.params.append(Param(name, "", val))
        dt = promote(a.dtype, "float32") if fl else promote(a.dtype, "int32")
        mag = a.mag * 3
        if dt is None or mag > LIMIT[dt]:
            self.k.params.pop()
            return None
        v = self.fresh()
        self.emit(f"{v} = {a.name} * {name}")
        self.cls("runtime_scalar_" + ("float" if fl else "int"))
        return self._add(Val(v, a.shape, dt, mag, a.exact))

    def s_helper(self):
        a = self.pick_val()
        if a is None:
            return self.read_input()
        h = f"helper_{self.kid}_{self.fresh('')}"
        form = self.ch.int(3)
        v = self.fresh()
        if form == 0:
            self.k.helpers.append(f"def {h}(t, c):\n    return ct.maximum(t, c) - c\n")
            self.emit(f"{v} = {h}({a.name}, 1)")
            val = Val(v, a.shape, a.dtype, a.mag + 1, a.exact)
        elif form == 1:
            self.k.helpers.append(f"def {h}(t):\n    lo = ct.minimum(t, 0)\n    return lo, t - lo\n")
            w = self.fresh()
            self.emit(f"{v}, {w} = {h}({a.name})")
            self._add(Val(w, a.shape, a.dtype, a.mag * 2, a.exact))
            val = Val(v, a.shape, a.dtype, a.mag, a.exact)
        else:
            inner = f"{h}_inner"
            self.k.helpers.append(f"def {inner}(t):\n    return t * 2\n\n\ndef {h}(t):\n    return {inner}(t) + t\n")
            self.emit(f"{v} = {h}({a.name})")
            val = Val(v, a.shape, a.dtype, a.mag * 3, a.exact)
        if val.mag > LIMIT[val.dtype]:
            return None
        self.cls("helper_function")
        return self._add(val)

    def s_nested(self):
        a = self.pick_val()
        if a is None:
            return self.read_input()
        f, v = f"inner{self.fresh('')}", self.fresh()
        cap = self.ch.chance(50)
        self.emit(f"def {f}(t):")
        self.emit(f"    return t + {self.bid if cap else 1}")
        self.emit(f"{v} = {f}({a.name})")
        dt = promote(a.dtype, "int32") if cap else a.dtype
        self.cls("nested_function", *(["closure"] if cap else []))
        return self._add(Val(v, a.shape, dt, a.mag + self.k.blocks, a.exact))

    def s_custom_reduce(self):
        a = self.pick_val(lambda v: v.rank >= 1)
        if a is None:
            return self.read_input()
        ch = self.ch
        ax = ch.int(a.rank)
        scan = ch.chance(40)
        form = ch.int(2)
        if form == 0:
            fn = "lambda p, q: p + q"
        else:
            fn = f"combine_{self.kid}_{self.fresh('')}"
            self.k.helpers.append(f"def {fn}(p, q):\n    return p + q\n")
        v = self.fresh()
        mag = a.mag * a.shape[ax]
        if mag > LIMIT[a.dtype]:
            return None
        if scan:
            self.emit(f"{v} = ct.scan({a.name}, {ax}, {fn}, 0)")
            shape = a.shape
        else:
            keep = ch.chance(40)
            self.emit(f"{v} = ct.reduce({a.name}, {ax}, {fn}, 0{', keepdims=True' if keep else ''})")
            shape = tuple((1 if keep else None) if i == ax else d for i, d in enumerate(a.shape))
            shape = tuple(d for d in shape if d is not None)
        self.cls("custom_" + ("scan" if scan else "reduce"), "lambda" if form == 0 else "combine_function")
        return self._add(Val(v, shape, a.dtype, mag, a.exact))

    def s_matmul(self):
        a = self.pick_val(lambda v: v.rank == 2 and v.dtype in ("float32", "float16"))
        if a is None:
            return self.read_input()
        m, k = a.shape
        n = self.ch.pick([4, 8, 2])
        b = self.pick_val(lambda v: v.rank == 2 and v.shape[0] == k and v.dtype == a.dtype and v is not a)
        if b is None:
            b = self._load((k, n), a.dtype)
        mag = a.mag * b.mag * k
        if mag > LIMIT[a.dtype]:
            return None
        v = self.fresh()
        if self.ch.chance(50):
            self.emit(f"{v} = {a.name} @ {b.name}")
            dt = a.dtype
        else:
            dt = "float32"
            self.emit(f"{v} = ct.mma({a.name}, {b.name}, ct.zeros(({m}, {b.shape[1]}), dtype=ct.float32))")
        self.cls("matmul")
        return self._add(Val(v, (m, b.shape[1]), dt, mag, a.exact and b.exact))

    # ---- control flow ---------------------------------------------------------------------------
    def s_if(self):
        a = self.pick_val()
        if a is None:
            return self.read_input()
        ch = self.ch
        form = ch.int(3)
        if form == 0:
            cond = f"{self.bid} % 2 == 0"
            self.cls("if_runtime")
        elif form == 1:
            cond = self.flag_param() + " == 1"
            self.cls("if_constexpr")
        else:
            cond = f"ct.sum({a.name}) > 0"
            self.cls("if_runtime_tile")
        v = self.fresh()
        d = self.ch.pick(["1", "2"])
        if ch.chance(50):
            self.emit(f"if {cond}:")
            self.emit(f"    {v} = {a.name} + {d}")
            self.emit("else:")
            self.emit(f"    {v} = {a.name} - {d}")
        else:
            self.emit(f"{v} = {a.name}")
            self.emit(f"if {cond}:")
            self.emit(f"    {v} = {v} * 2")
        return self._add(Val(v, a.shape, a.dtype, a.mag * 2 + 2, a.exact))

    def flag_param(self) -> str:
        if not self.k.flag:
            self.k.flag = "FLAG"
            self.k.params.append(Param("FLAG", self.ch.pick(["ConstInt", "ct.Constant[int]"]), str(self.ch.int(2))))
        return self.k.flag

    def s_loop(self):
        ch = self.ch
        rank = ch.pick([1, 2, 3, 4])
        dtype = ch.pick(self.dtypes())
        t = self.tile_shape(rank, 32)
        steps = 1 + ch.int(4)
        nform = ch.int(3)
        if nform == 0:
            n = str(steps)
        elif nform == 1:
            n = f"N{self.fresh('')}"
            self.k.params.append(Param(n, self.ch.pick(["ConstInt", "ct.Constant[int]"]), str(steps)))
            self.cls("loop_constexpr_bound")
        else:
            n = f"n{self.fresh('')}"
            self.k.params.append(Param(n, "", str(steps)))
            self.cls("loop_runtime_bound")
        src = self.new_array([t[0] * self.k.blocks * steps] + list(t[1:]), dtype)
        acc, s = self.fresh("acc"), self.fresh("s")
        init = ch.int(2)
        self.emit(f"{acc} = ct.{'zeros' if init == 0 else 'full'}({shape_text(t)}, {'' if init == 0 else '1, '}dtype={ct_dtype(dtype)})")
        carry_scalar = ch.chance(50)
        if carry_scalar:
            self.emit(f"{s} = ct.zeros((), dtype={ct_dtype(dtype)})")
        i, tv = self.fresh("i"), self.fresh("t")
        self.emit(f"for {i} in range({n}):")
        self.ind += "    "
        idx = ", ".join([f"{self.bid} * {n} + {i}"] + ["0"] * (rank - 1)) + ("," if rank == 1 else "")
        self.emit(f"{tv} = ct.load({src.name}, index=({idx}), shape={shape_text(t)})")
        exit_ = ch.pick(["none", "continue", "break", "break_tile", "constexpr"])
        if exit_ == "continue":
            self.emit(f"if {i} % 2 == 1:")
            self.emit("    continue")
        elif exit_ == "break":
            self.emit(f"if {i} == {max(steps - 2, 0)}:")
            self.emit("    break")
        elif exit_ == "break_tile":
            self.emit(f"if ct.sum({tv}) > 0:")
            self.emit("    break")
        elif exit_ == "constexpr":
            self.emit(f"if {self.flag_param()} == 0:")
            self.emit(f"    {tv} = {tv} * 2")
        upd = ch.int(3)
        if upd == 2 and dtype in ("int8", "int16"):
            upd = 0          # tile * i (int32) would promote the carried int8/int16 tile: a type change
        if upd == 0:
            self.emit(f"{acc} = {acc} + {tv}")
        elif upd == 1:
            self.emit(f"{acc} = ct.maximum({acc}, {tv})")
        else:
            self.emit(f"{acc} = {acc} + {tv} * {i}")
        if carry_scalar:
            self.emit(f"{s} = {s} + ct.sum({tv})")
        self.ind = self.ind[:-4]
        mag = 8 * steps * (steps if upd == 2 else 1) + 1
        self.cls("loop", "loop_carried_tile", *(["loop_carried_scalar"] if carry_scalar else []),
                 *([f"loop_{exit_}"] if exit_ != "none" else []))
        if mag <= LIMIT[dtype]:
            self._add(Val(acc, t, dtype, mag))
        if carry_scalar and mag * numel(t) <= LIMIT[dtype]:
            self._add(Val(s, (), dtype, mag * numel(t)))

    # ---- writing outputs ---------------------------------------------------------------------------
    def write(self, a: Val):
        ch, B = self.ch, self.k.blocks
        widen = {"float16": "float32", "bfloat16": "float32", "int8": "int32", "int16": "int32"}
        dt = widen.get(a.dtype, a.dtype) if ch.chance(20) else a.dtype
        if dt != a.dtype:
            self.cls("store_implicit_cast")
        if a.rank == 0:
            if B == 1 and ch.chance(50):       # (ct.store into a 0-D array: rejected by cuTile 1.7, as loads)
                o = self.new_array((), dt, output=True)
                self.emit(f"ct.scatter({o.name}, (), {a.name})")
                self.cls("scatter0")
            else:
                o = self.new_array((B,), dt, output=True)
                self.emit(f"ct.scatter({o.name}, {self.bid}, {a.name})")
                self.cls("scatter0")
            return
        t = a.shape
        if ch.chance(60):
            rag = [ch.int(t[d]) if ch.chance(20) else 0 for d in range(len(t))]
            o = self.new_array([t[d] * (B if d == 0 else 1) - rag[d] for d in range(len(t))], dt, output=True)
            idx = ", ".join([self.bid] + ["0"] * (len(t) - 1)) + ("," if len(t) == 1 else "")
            self.emit(f"ct.store({o.name}, index=({idx}), tile={a.name})")
            self.cls(f"store{len(t)}", *(["ragged_store"] if any(rag) else []))
        else:
            o = self.new_array([t[d] * (B if d == 0 else 1) for d in range(len(t))], dt, output=True)
            idx = self.index_tiles(t, self.fresh("p"))
            mask = ""
            if ch.chance(30):
                mask = f", mask={idx[-1]} % 2 == 0"
                self.cls("scatter_mask")
            ind = idx[0] if len(t) == 1 and ch.chance(50) else "(" + ", ".join(idx) + ("," if len(t) == 1 else "") + ")"
            self.emit(f"ct.scatter({o.name}, {ind}, {a.name}{mask})")
            self.cls(f"scatter{len(t)}")

    # ---- the whole kernel -------------------------------------------------------------------------
    def build(self) -> Kernel:
        ch = self.ch
        if ch.chance(30):
            self.bid = "ct.bid(0)"
        else:
            self.emit("bid = ct.bid(0)")
        self.read_input()
        for _ in range(1 + ch.int(7)):
            self.statement()
        outs = [self.vals[-1]]
        if len(self.vals) > 1 and ch.chance(40):
            other = self.vals[ch.int(len(self.vals) - 1)]
            outs.append(other)
        for v in outs:
            self.write(v)
        return self.k
