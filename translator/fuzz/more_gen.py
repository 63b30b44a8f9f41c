"""Statement kinds of the second generator generation (`gen=2`): bitwise and shift operators,
comparisons as values, more math, builtin min/max/abs, `while` loops, `ct.static_iter`, atomics
(colliding adds and max/min, whose results do not depend on order; exchanges without collisions),
`ct.extract`/`ct.insert`, `divmod`, bitcast round trips, indexing with `None`, uint8 arrays and an
early `return`. Mixed into KernelGen; each method follows its conventions (pick a value, emit
lines, record classes, return the new Val or None when it would not stay exact and in range)."""
from __future__ import annotations

from .values import LIMIT, MAX_NUMEL, Val, ct_dtype, is_float, numel, shape_text

MORE_KINDS = ["bitwise", "compare", "math2", "builtin_minmax", "while", "static_iter", "atomic",
              "extract", "divmod", "bitcast", "index_none", "uint8", "early_return"]


class MoreStatements:
    def s_bitwise(self):
        a = self.pick_val(lambda v: not is_float(v.dtype) and v.exact)
        if a is None:
            return self.read_input()
        ch, v = self.ch, self.fresh()
        op = ch.pick(["|", "^", "<<", ">>", "~", "and_fn", "xor_fn", "rshift_fn"])
        mag = a.mag
        if op in ("|", "^", "and_fn", "xor_fn"):
            b = self.pick_val(lambda x: x.dtype == a.dtype and x.exact and x is not a and x.shape == a.shape)
            rhs = b.name if b is not None else ch.pick(["1", "3"])
            mag = 2 * max(a.mag, b.mag if b is not None else 3)
            fn = {"and_fn": "ct.bitwise_and", "xor_fn": "ct.bitwise_xor"}.get(op)
            self.emit(f"{v} = {fn}({a.name}, {rhs})" if fn else f"{v} = {a.name} {op} {rhs}")
        elif op in ("<<", ">>", "rshift_fn"):
            k = 1 + ch.int(2)
            while k > 0 and op == "<<" and a.mag * (2 ** k) > LIMIT[a.dtype]:
                k -= 1          # (k = 0 shifts nothing, and stays in range)
            mag = a.mag * (2 ** k) if op == "<<" else a.mag
            self.emit(f"{v} = ct.bitwise_rshift({a.name}, {k})" if op == "rshift_fn" else f"{v} = {a.name} {op} {k}")
        else:
            mag = a.mag + 1
            self.emit(f"{v} = ~{a.name}")
        if mag > LIMIT[a.dtype]:
            self.k.lines.pop()          # (the one line emitted above)
            return None
        self.cls("bitwise_" + {"|": "or", "^": "xor", "<<": "shl", ">>": "shr", "~": "not"}.get(op, op))
        return self._add(Val(v, a.shape, a.dtype, mag, True))

    def s_compare(self):
        """A comparison as a value: counted with ct.sum (bool sums to int32), cast, combined with
        & | and logical not, or chosen between with a scalar ct.where."""
        a = self.pick_val(lambda v: v.exact)
        if a is None:
            return self.read_input()
        ch, v, c = self.ch, self.fresh(), self.fresh("c")
        cmp = ch.pick([">", "<", "==", "!=", ">=", "<="])
        self.emit(f"{c} = {a.name} {cmp} {ch.pick(['0', '1', '-1'])}")
        form = ch.int(4)
        if form == 0:
            self.emit(f"{v} = ct.sum({c})")
            val = Val(v, (), "int32", numel(a.shape), True)
            self.cls("bool_sum")
        elif form == 1:
            to = ch.pick(["int32", "float32"])
            self.emit(f"{v} = {c}.astype(ct.{to})" if ch.chance(50) else f"{v} = ct.astype({c}, ct.{to})")
            val = Val(v, a.shape, to, 1, True)
            self.cls("bool_cast")
        elif form == 2:
            d = self.fresh("c")
            self.emit(f"{d} = ({c} & ({a.name} < 3)) | ~({a.name} != 2)")
            self.emit(f"{v} = ct.where({d}, 1, 0)")
            val = Val(v, a.shape, "int32", 1, True)
            self.cls("bool_logic")
        else:
            self.emit(f"{v} = ct.where({c}, {a.name}, -1)")
            val = Val(v, a.shape, a.dtype, max(a.mag, 1), True)
            self.cls("where_scalar")
        return self._add(val)

    def s_math2(self):
        a = self.pick_val(lambda v: is_float(v.dtype))
        if a is None:
            return self.read_input()
        ch, v = self.ch, self.fresh()
        op = ch.pick(["sin", "cos", "tanh", "exp2", "log", "log2", "rsqrt", "ceil", "pow", "isnan", "atan2"])
        if op == "exp2" and a.mag > 8:
            op = "tanh"
        arg = {"log": f"ct.abs({a.name}) + 1", "log2": f"ct.abs({a.name}) + 1", "rsqrt": f"ct.abs({a.name}) + 1",
               "ceil": f"{a.name} / 4"}.get(op, a.name)
        mag, exact = {"sin": 1, "cos": 1, "tanh": 1, "exp2": 2 ** a.mag, "rsqrt": 1, "ceil": a.mag,
                      "pow": a.mag * a.mag, "isnan": 1, "atan2": 4}.get(op, a.mag), op in ("ceil", "isnan")
        if op in ("log", "log2"):
            mag = a.mag
        if op == "pow":
            self.emit(f"{v} = ct.pow(ct.abs({a.name}), 2)" if ch.chance(50) else f"{v} = {a.name} ** 2")
        elif op == "isnan":
            self.emit(f"{v} = ct.where(ct.isnan({a.name}), 0, {a.name})")
            mag = a.mag
            exact = a.exact
        elif op == "atan2":
            self.emit(f"{v} = ct.atan2({a.name}, ct.abs({a.name}) + 1)")
        else:
            self.emit(f"{v} = ct.{op}({arg})")
        if mag > LIMIT[a.dtype]:
            self.k.lines.pop()
            return None
        self.cls("math_" + op)
        return self._add(Val(v, a.shape, a.dtype, mag, exact and a.exact))

    def s_builtin_minmax(self):
        a = self.pick_val()
        if a is None:
            return self.read_input()
        ch, v = self.ch, self.fresh()
        b = self.pick_val(lambda x: x.dtype == a.dtype and x.shape == a.shape and x is not a)
        op = ch.pick(["max", "min", "abs"])
        if op == "abs" or b is None:
            self.emit(f"{v} = abs({a.name})")
            val = Val(v, a.shape, a.dtype, a.mag, a.exact)
        else:
            self.emit(f"{v} = {op}({a.name}, {b.name})")
            val = Val(v, a.shape, a.dtype, max(a.mag, b.mag), a.exact and b.exact)
        self.cls("builtin_" + op)
        return self._add(val)

    def s_while(self):
        a = self.pick_val(lambda v: v.exact)
        if a is None:
            return self.read_input()
        ch, w, k = self.ch, self.fresh("w"), self.fresh("k")
        steps = 1 + ch.int(4)
        form = ch.int(3)
        brk = form == 2 or ch.chance(30)
        if a.mag + steps > LIMIT[a.dtype]:
            return None
        self.emit(f"{w} = {a.name}")
        self.emit(f"{k} = 0")
        self.emit({0: f"while {k} < {steps}:", 1: f"while {k} < {steps} and {self.bid} >= 0:",
                   2: "while True:"}[form])
        self.emit(f"    {w} = {w} + 1")
        self.emit(f"    {k} = {k} + 1")
        if brk:
            self.emit(f"    if {k} >= {steps}:")
            self.emit("        break")
            self.cls("while_break")
        self.cls("while_loop")
        self._add(Val(k, (), "int32", steps + 1, True))
        return self._add(Val(w, a.shape, a.dtype, a.mag + steps, a.exact))

    def s_static_iter(self):
        a = self.pick_val()
        if a is None:
            return self.read_input()
        ch, acc, t = self.ch, self.fresh("acc"), self.fresh("t")
        b = self.pick_val(lambda x: x.dtype == a.dtype and x.shape == a.shape and x is not a)
        tup = b is not None and ch.chance(60)
        n = 1 + ch.int(3)
        mag = 2 * a.mag + b.mag if tup else a.mag + n * n
        if mag > LIMIT[a.dtype]:
            return None
        self.emit(f"{acc} = {a.name}")
        self.emit(f"for {t} in ct.static_iter(({a.name}, {b.name})):" if tup else
                  f"for {t} in ct.static_iter(range({n})):")
        self.emit(f"    {acc} = {acc} + {t}")
        self.cls("static_iter_tuple" if tup else "static_iter_range")
        return self._add(Val(acc, a.shape, a.dtype, mag, a.exact and (not tup or b.exact)))

    def s_atomic(self):
        """Atomics into a fresh zeroed output: adds and max/min may collide (the result does not
        depend on order), exchanges and compare-and-swap do not (each element its own slot)."""
        a = self.pick_val(lambda v: v.rank == 1 and v.exact and v.dtype in ("int32", "float32"))
        if a is None:
            a = self._load(self.tile_shape(1), self.ch.pick(["int32", "float32"]))
        ch, B, n = self.ch, self.k.blocks, a.shape[0]
        op = ch.pick(["add", "max", "min", "xchg", "cas", "add_ret"])
        if a.dtype == "float32" and op in ("max", "min"):
            op = "add"
        collide = op in ("add", "max", "min") and ch.chance(60)
        m = max(1, n // 2) if collide else n * B
        if collide and a.mag * n * B > LIMIT[a.dtype]:
            return None
        o = self.new_array((m,), a.dtype, output=True)
        ix = self.fresh("ix")
        base = f"ct.arange({n}, dtype=ct.int32)"
        self.emit(f"{ix} = {base} % {m}" if collide else f"{ix} = {self.bid} * {n} + {base}")
        v = self.fresh()
        if op == "cas":
            self.emit(f"{v} = ct.atomic_cas({o.name}, {ix}, 0, {a.name})")
        elif op == "add_ret":
            self.emit(f"{v} = ct.atomic_add({o.name}, {ix}, {a.name})")
        else:
            self.emit(f"{v} = ct.atomic_{op}({o.name}, {ix}, {a.name})")
        self.cls("atomic_" + op, *(["atomic_collide"] if collide else []))
        if not collide:              # the old values are the zeros the host wrote
            return self._add(Val(v, a.shape, a.dtype, 1, True))
        return None

    def s_extract(self):
        a = self.pick_val(lambda v: v.rank >= 1 and v.shape[0] >= 2)
        if a is None:
            return self.read_input()
        ch, v = self.ch, self.fresh()
        sub = (a.shape[0] // 2,) + tuple(a.shape[1:])
        idx = "(" + ", ".join([str(ch.int(2))] + ["0"] * (a.rank - 1)) + ("," if a.rank == 1 else "") + ")"
        self.emit(f"{v} = ct.extract({a.name}, {idx}, {shape_text(sub)})")
        self.cls("extract")
        val = self._add(Val(v, sub, a.dtype, a.mag, a.exact))
        if ch.chance(40):
            w = self.fresh()
            self.emit(f"{w} = ct.insert({a.name}, {idx}, {v} * 2)")
            self.cls("insert")
            if 2 * a.mag <= LIMIT[a.dtype]:
                return self._add(Val(w, a.shape, a.dtype, 2 * a.mag, a.exact))
        return val

    def s_divmod(self):
        a = self.pick_val(lambda v: not is_float(v.dtype))
        if a is None:
            return self.read_input()
        q, r = self.fresh(), self.fresh()
        d = self.ch.pick(["3", "-2", "4"])
        self.emit(f"{q}, {r} = divmod({a.name}, {d})")
        self.cls("divmod")
        self._add(Val(q, a.shape, a.dtype, a.mag, a.exact))
        return self._add(Val(r, a.shape, a.dtype, 4, a.exact))

    def s_bitcast(self):
        a = self.pick_val(lambda v: v.dtype in ("float32", "int32", "float16", "int16"))
        if a is None:
            return self.read_input()
        other = {"float32": "int32", "int32": "float32", "float16": "int16", "int16": "float16"}[a.dtype]
        b, v = self.fresh("b"), self.fresh()
        self.emit(f"{b} = ct.bitcast({a.name}, {ct_dtype(other)})")
        if not is_float(other):
            self.emit(f"{b} = {b} ^ 0")        # an integer op on the bits between the two casts
        self.emit(f"{v} = ct.bitcast({b}, {ct_dtype(a.dtype)})")
        self.cls("bitcast")
        return self._add(Val(v, a.shape, a.dtype, a.mag, a.exact))

    def s_index_none(self):
        a = self.pick_val(lambda v: 1 <= v.rank <= 2)
        if a is None:
            return self.read_input()
        v = self.fresh()
        if a.rank == 1:
            form = self.ch.int(2)
            self.emit(f"{v} = {a.name}[:, None]" if form == 0 else f"{v} = {a.name}[None, :]")
            shape = (a.shape[0], 1) if form == 0 else (1, a.shape[0])
        else:
            self.emit(f"{v} = {a.name}[None, ...]")
            shape = (1,) + a.shape
        self.cls("index_none")
        return self._add(Val(v, shape, a.dtype, a.mag, a.exact))

    def s_uint8(self):
        """A uint8 array read, used in uint8 arithmetic that stays in range, widened to int32."""
        t = self.tile_shape(1)
        a = self.new_array((t[0] * self.k.blocks,), "uint8", lo=0, hi=9)
        u, v = self.fresh("u"), self.fresh()
        self.emit(f"{u} = ct.load({a.name}, index=({self.bid},), shape={shape_text(t)})")
        self.emit(f"{v} = ({u} + {u}).astype(ct.int32)" if self.ch.chance(50) else f"{v} = ct.astype({u} * 2, ct.int32)")
        self.cls("uint8")
        return self._add(Val(v, t, "int32", 16, True))

    def s_early_return(self):
        """Blocks past the first return before writing: their part of each output stays zero."""
        if self.k.blocks < 2 or getattr(self, "returned", False):
            return None
        self.returned = True
        self.emit(f"if {self.bid} == {self.k.blocks - 1}:")
        self.emit("    return")
        self.cls("early_return")
        return None
