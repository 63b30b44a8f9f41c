"""Translation-time Python in kernels: tuple comprehensions, module-level enums and frozen
dataclasses, ct.ByTarget hints. Run under the interpreter vs torch where they execute."""
import pytest
import torch

from kernel_util import build, codes, compile_sm90, translate

# ---------------------------------------------------------------- tuple comprehensions
COMPREHENSIONS = """
NPARTS = 4

@ct.kernel
def k(x, y, T: ConstInt):
    parts = tuple(ct.load(x, index=(i, 0), shape=(1, T)) for i in range(NPARTS))
    scaled = tuple(p * (j + 1) for j, p in enumerate(parts) if j % 2 == 0)
    squares = tuple(p * p for p in ct.static_iter(parts))
    pairs = tuple(a + b for a, b in zip(parts, squares))
    nested = tuple(i * 10 + j for i in range(3) for j in range(i))
    acc = scaled[0] + scaled[1] + pairs[3] + nested[2] + len(nested)
    ct.store(y, index=(0, 0), tile=acc)

def run(x):
    y = torch.empty((1, x.shape[1]), dtype=x.dtype)
    ct.launch(torch.cuda.current_stream(), (1,), k, (x, y, x.shape[1]))
    return y
"""


def test_tuple_comprehensions_unroll(tmp_path):
    mod = build(COMPREHENSIONS, tmp_path)
    x = torch.randn(4, 8)
    # scaled = (x0 * 1, x2 * 3); nested = (10, 20, 21)
    ref = x[0] + x[2] * 3 + (x[3] + x[3] * x[3]) + 21 + 3
    torch.testing.assert_close(mod.run(x)[0], ref)
    code = open(mod.__file__).read()
    assert "scaled = (parts[0] * (0 + 1), parts[2] * (2 + 1))" in code
    assert "nested = (1 * 10 + 0, 2 * 10 + 0, 2 * 10 + 1)" in code


def test_comprehension_variables_do_not_leak(tmp_path):
    mod = build("""
    @ct.kernel
    def k(x, y, T: ConstInt):
        i = ct.load(x, index=(0,), shape=(T,))
        t = tuple(i * 2 for i in range(3))
        ct.store(y, index=(0,), tile=i + t[2])

    def run(x):
        y = torch.empty_like(x)
        ct.launch(torch.cuda.current_stream(), (1,), k, (x, y, 8))
        return y
    """, tmp_path)
    x = torch.randn(8)
    torch.testing.assert_close(mod.run(x), x + 4)


def test_if_clauses_between_for_clauses(tmp_path):
    """`tuple(t * s for i, t in ... if i != 1 for s in ...)` (cuTile's own tests write it): each
    `if` filters at its `for`, also several in a row and a trailing one; host code with such a
    list comprehension is kept as written."""
    mod = build("""
    @ct.kernel
    def k(x, y, T: ConstInt):
        tiles = tuple(ct.load(x, index=(i, 0), shape=(1, T)) for i in range(3))
        scales = (1, 2)
        res = tuple(t * s
                    for i, t in ct.static_iter(enumerate(tiles)) if i != 1
                    for s in ct.static_iter(scales))
        picks = tuple(i * 10 + j for i in range(4) if i % 2 if i > 0 for j in range(3) if j != i)
        ct.store(y, index=(0, 0), tile=res[0] + res[1] + res[2] + res[3] + picks[-1] + len(picks))

    def run(x):
        keep = [r for r in range(3) if r >= 0 for _ in range(1) if True]
        y = torch.empty((1, x.shape[1]), dtype=x.dtype)
        ct.launch(torch.cuda.current_stream(), (1,), k, (x, y, x.shape[1]))
        return y, keep
    """, tmp_path)
    x = torch.randn(3, 8)
    y, keep = mod.run(x)
    # res = (x0, 2 x0, x2, 2 x2); picks = (10, 12, 30, 31, 32) over i in (1, 3), j != i
    torch.testing.assert_close(y[0], 3 * x[0] + 3 * x[2] + 32 + 5)
    assert keep == [0, 1, 2]
    code = open(mod.__file__).read()
    assert "picks = (1 * 10 + 0, 1 * 10 + 2, 3 * 10 + 0, 3 * 10 + 1, 3 * 10 + 2)" in code


@pytest.mark.parametrize("body,code", [
    ("t = tuple(i for i in range(T))", "C2T105"),
    ("t = tuple(i for i in range(3) if i < ct.bid(0) for j in range(2))", "C2T105"),   # between fors                    # Constant parameter: value unknown
    ("t = tuple(i for i in range(3) if i < ct.bid(0))", "C2T105"),  # runtime condition
    ("t = tuple(i for i in ct.bid(0))", "C2T105"),
    ("t = [i for i in range(3)]", "C2T103"),                         # no lists in kernels
    ("t = (i for i in range(3))", "C2T103"),                         # bare generator
])
def test_comprehensions_that_cannot_unroll_are_refused(body, code):
    assert code in codes(f"""
    @ct.kernel
    def k(x, T: ConstInt):
        {body}
        ct.store(x, index=(0,), tile=ct.zeros((T,), dtype=ct.float32))
    """)


# ---------------------------------------------------------------- enums and frozen dataclasses
ENUMS = """
import enum
from dataclasses import dataclass

class Mode(enum.Enum):
    FAST = 1
    SLOW = 2

class Op(enum.IntEnum):
    ADD = enum.auto()
    MUL = enum.auto()

@dataclass(frozen=True)
class Cfg:
    tile: int
    scale: float = 2.0
    op: Op = Op.MUL

MODE = Mode.SLOW
CFG = Cfg(16, op=Op.ADD)
WIDE = Cfg(tile=CFG.tile * 2)

@ct.kernel
def k(x, y, op):
    t = ct.load(x, index=(0,), shape=(CFG.tile,))
    if MODE == Mode.FAST:
        t = t + 100
    else:
        t = t * CFG.scale
    if CFG.op == Op.ADD and WIDE.op is Op.MUL:
        t = t + Op.MUL
    m = Mode(1)
    if m is Mode.FAST and m != Mode.SLOW:
        t = t + Mode.SLOW.value * WIDE.tile
    if op == Op.MUL:     # an IntEnum member against a runtime int
        t = t * 1000
    ct.store(y, index=(0,), tile=t)

def run(x, op):
    y = torch.empty_like(x)
    ct.launch(torch.cuda.current_stream(), (1,), k, (x, y, op))
    return y
"""


@pytest.mark.parametrize("op", [1, 2])
def test_enum_and_frozen_dataclass_constants_fold(tmp_path, op):
    mod = build(ENUMS, tmp_path)
    x = torch.randn(16)
    ref = (x * 2 + 2 + 2 * 32) * (1000 if op == 2 else 1)
    torch.testing.assert_close(mod.run(x, op), ref)
    kernel = open(mod.__file__).read().split("def k(")[1]
    assert "t + 100" not in kernel and "t = t + 2\n" in kernel and "Mode" not in kernel.split("def launch_k")[0]


@pytest.mark.parametrize("line,code", [
    ("if x.shape[0] == Mode.FAST:", "C2T105"),     # a plain Enum member has no runtime value
    ("if CFG.area() > 0:", "C2T103"),              # no such field (methods are not rebuilt)
    ("if Cfg(ct.bid(0)).tile > 0:", "C2T105"),
    # Python raises TypeError: cuTile's TileTypeError when the translation compiles (C2T218; with
    # the compile check, C2T110 quoting it)
    ("if Mode.FAST < Mode.SLOW:", "C2T218"),
])
def test_enum_and_dataclass_uses_that_cannot_fold_are_refused(line, code):
    src = ENUMS.split("@ct.kernel")[0] + f"""
@ct.kernel
def k2(x):
    {line}
        ct.store(x, index=(0,), tile=ct.zeros((4,), dtype=ct.float32))
"""
    assert code in codes(src)


def test_enum_with_methods_folds_members_and_refuses_the_methods():
    # plain methods are not rebuilt: the members fold (tables keyed by them, passes/fn_values.py),
    # a kernel calling a method is refused; an enum with a dunder or `_` method stays unknown
    head = """
    import enum

    class Mode(enum.Enum):
        FAST = 1

        def {name}(self):
            return Mode.FAST

    @ct.kernel
    def k(x):
        if {test}:
            ct.store(x, index=(0,), tile=ct.zeros((4,), dtype=ct.float32))
    """
    assert codes(head.format(name="other", test="Mode.FAST == Mode.FAST")) == []
    assert "C2T103" in codes(head.format(name="other", test="Mode.FAST.other() == Mode.FAST"))
    assert "C2T103" in codes(head.format(name="_missing_", test="Mode.FAST == Mode.FAST"))


def test_known_values_assigned_in_loops_are_not_folded(tmp_path):
    # n is 2 on the first iteration only: `t ** n` must not become `t * t` for every iteration
    mod = build("""
    @ct.kernel
    def k(x, y, T: ConstInt):
        t = ct.load(x, index=(0,), shape=(T,))
        n = 2
        for i in range(2):
            t = t ** n
            n = 3
        ct.store(y, index=(0,), tile=t)

    def run(x):
        y = torch.empty_like(x)
        ct.launch(torch.cuda.current_stream(), (1,), k, (x, y, 8))
        return y
    """, tmp_path)
    x = torch.rand(8) + 0.5
    torch.testing.assert_close(mod.run(x), x ** 6)


# ---------------------------------------------------------------- ct.ByTarget hints
def test_by_target_hints_resolve_for_sm90():
    res = translate("""
    @ct.kernel(num_ctas=ct.ByTarget(sm_100=2, sm_90=4, default=1), occupancy=ct.ByTarget(sm_100=8),
               opt_level=ct.ByTarget(sm_120=1, default=2))
    def k(x):
        ct.store(x, index=(0,), tile=ct.zeros((4,), dtype=ct.float32))
    """)
    assert res.ok
    assert res.kernels[0].hints == {"num_ctas": "4", "opt_level": "2"}
    assert "# cuTile hints: opt_level=2 (no Triton equivalent" in res.code
    assert "# cuTile hint num_ctas=4: the launcher passes it as Triton's num_ctas" in res.code
    assert "**_c2t_hint_options(c2t_hints, num_ctas=4)," in res.code
    msgs = [d.message for d in res.diagnostics]
    assert any("occupancy" in m and "no sm_90 entry" in m for m in msgs)


def test_by_target_with_invalid_key_is_an_error():
    res = translate("""
    @ct.kernel(num_ctas=ct.ByTarget(hopper=2))
    def k(x):
        ct.store(x, index=(0,), tile=ct.zeros((4,), dtype=ct.float32))
    """)
    assert not res.ok
    assert "C2T109" in [d.code for d in res.diagnostics]


# module constants: plain and annotated assignments (TileGym's liger swiglu writes
# `LOG2E: float = 1.4426950408889634`), folded from math calls too
MODULE_CONSTANTS = """
LOG2E: float = 1.4426950408889634
INV_LN2 = 1.0 / math.log(2)
OFFSET: int = 3

@ct.kernel
def k(x, y, T: ConstInt):
    t = ct.load(x, index=(0,), shape=(T,))
    ct.store(y, index=(0,), tile=ct.exp2(t * LOG2E) + INV_LN2 * OFFSET)

def run(x):
    y = torch.empty_like(x)
    ct.launch(torch.cuda.current_stream(), (1,), k, (x, y, x.shape[0]))
    return y
"""


def test_annotated_module_constants_fold(tmp_path):
    mod = build(MODULE_CONSTANTS, tmp_path)
    x = torch.randn(16)
    torch.testing.assert_close(mod.run(x), torch.exp(x) + 3 / torch.log(torch.tensor(2.0)), rtol=1e-5, atol=1e-5)


# chained and tuple assignments bind each name (`TM = TN = 16`, `TA, TB = 8, 4`); a name rebound
# later by a form that is not constant stops being one
CHAINED_CONSTANTS = """
TM = TN = 16
TA, TB = 8, 4.5
(TC, TD) = (2, TA * 2)
SCALE: float = TB * 2

@ct.kernel
def k(x, y, T: ConstInt):
    t = ct.load(x, index=(0,), shape=(TM,))
    u = ct.load(x, index=(0,), shape=(TA,))
    ct.store(y, index=(0,), tile=t * TN + TB + TC + TD + SCALE)
    ct.store(y, index=(1,), tile=ct.full((TM,), ct.sum(u), ct.float32))

def run(x):
    y = torch.empty(TM * 2)
    ct.launch(torch.cuda.current_stream(), (1,), k, (x, y, x.shape[0]))
    return y
"""


def test_chained_and_tuple_module_constants_fold(tmp_path):
    mod = build(CHAINED_CONSTANTS, tmp_path)
    x = torch.randn(16)
    y = mod.run(x)
    torch.testing.assert_close(y[:16], x * 16 + 4.5 + 2 + 16 + 9.0)
    torch.testing.assert_close(y[16:], torch.full((16,), float(x[:8].sum())))


def test_a_constant_unpacked_from_a_call_is_not_folded():
    assert "C2T103" in codes("""
TA, TB = divmod(7, 2)

@ct.kernel
def k(y):
    ct.store(y, index=(0,), tile=ct.full((4,), TA, ct.float32))
""")


# the import of cuda.tile guarded by `try:` (`except ImportError: ct = None`), other imports with it
GUARDED_IMPORT = """
import torch
try:
    import cuda.tile as ct
    import cuda.tile.tune  # noqa: F401  (a submodule: a cuda.tile import too)
    import math
except ImportError:
    ct = None
    math = None

HAS_CT = ct is not None


@ct.kernel
def k(x, y, T: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(T,))
    ct.store(y, index=(ct.bid(0),), tile=t * math.pi)


def run(x):
    y = torch.empty_like(x)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(x.shape[0], 16),), k, (x, y, 16))
    return y
"""


def test_a_guarded_cuda_tile_import_is_translated(tmp_path):
    import importlib.util
    import translator
    res = translator.translate_source(GUARDED_IMPORT, "g.py")
    # `ct is not None` tests whether cuda.tile is there: in the translation it is (`True is not
    # None`; it was once a C2T108 and a stand-in bound to `ct`)
    assert not [d.code for d in res.diagnostics if d.severity == "error"] and not res.partial
    assert "HAS_CT = True is not None" in res.code
    assert "try:\n    import triton\n    import triton.language as tl\n    from translator.runtime." in res.code
    assert "import cuda" not in res.code and "noqa: F401  (a submodule" not in res.code
    path = tmp_path / "c2t_guarded.py"
    path.write_text(res.code)
    spec = importlib.util.spec_from_file_location("c2t_guarded", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.HAS_CT
    x = torch.randn(40)
    torch.testing.assert_close(mod.run(x), x * 3.141592653589793)


# dtypes chosen by the launch (`ct.Constant[ct.DType]` parameters, an alias of it) and module-level
# dtype names, used by ct.astype, ct.full and ct.bitcast; the host passes ct dtypes (torch's after
# translation, which the launcher turns into Triton's)
DTYPE_PARAMS = """
ConstDType = ct.Constant[ct.DType]
ACC = ct.float32
OUT_DTYPE = ct.float16
BITS = ct.int32

@ct.kernel
def k(x, y, z, w, T: ConstInt, DT: ct.Constant[ct.DType], ZT: ConstDType):
    t = ct.load(x, index=(ct.bid(0),), shape=(T,))
    a = ct.astype(t, ACC) + ct.full((T,), 1, dtype=DT)
    ct.store(y, index=(ct.bid(0),), tile=ct.astype(a, DT))
    ct.store(z, index=(ct.bid(0),), tile=ct.full((T,), 2.5, dtype=ZT))
    ct.store(w, index=(ct.bid(0),), tile=ct.bitcast(ct.astype(t, ACC), BITS))

def run(x, zt):
    y = torch.empty(x.shape, dtype=torch.float16)
    z = torch.empty(x.shape, dtype=torch.float64 if zt is ct.float64 else torch.float32)
    w = torch.empty(x.shape, dtype=torch.int32)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(x.shape[0], 16),), k, (x, y, z, w, 16, OUT_DTYPE, zt))
    return y, z, w
"""


def test_dtypes_chosen_by_the_launch_and_module_dtype_names(tmp_path):
    mod = build(DTYPE_PARAMS, tmp_path)
    x = torch.randn(40)
    for zt, want in ((mod.torch.float32, torch.float32), (mod.torch.float64, torch.float64)):
        y, z, w = mod.run(x, zt)
        torch.testing.assert_close(y, (x + 1).half())
        assert z.dtype == want and bool((z == 2.5).all())
        assert torch.equal(w, x.view(torch.int32))
    with pytest.raises(TypeError, match="not a dtype a kernel takes"):
        mod.launch_k((1,), x, x, x, x, 16, "float16", mod.torch.float32)


def test_annotated_module_name_without_a_value_is_refused():
    assert "C2T103" in codes("""
LOG2E: float

@ct.kernel
def k(y):
    ct.store(y, index=(0,), tile=ct.full((4,), LOG2E, ct.float32))
""")


# a cuda.tile name imported from its private module (TileGym's unsloth fp8:
# `from cuda.tile._numeric_semantics import RoundingMode as RMd`) is the public one
PRIVATE_IMPORT = """
from cuda.tile._numeric_semantics import RoundingMode as RMd

@ct.kernel
def k(x, y, T: ConstInt):
    t = ct.load(x, index=(0,), shape=(T,))
    ct.store(y, index=(0,), tile=ct.truediv(t, 3.0, rounding_mode=RMd.FULL))

def run(x):
    y = torch.empty_like(x)
    ct.launch(torch.cuda.current_stream(), (1,), k, (x, y, x.shape[0]))
    return y
"""


def test_public_names_imported_from_private_cuda_tile_modules(tmp_path):
    mod = build(PRIVATE_IMPORT, tmp_path)
    assert "_numeric_semantics" not in open(mod.__file__).read()
    x = torch.randn(16)
    torch.testing.assert_close(mod.run(x), x / 3.0)


def test_a_0d_tile_bounds_a_range_loop(tmp_path):
    """cuTile's Tile.__index__: a 0-d integer tile (here a sum of loaded counts) is a range() bound."""
    mod = build("""
    @ct.kernel
    def count(x, y, B: ConstInt):
        n = ct.sum(ct.load(x, index=(0,), shape=(B,)))
        acc = ct.zeros((B,), dtype=ct.int32)
        for i in range(1, n + 1):
            acc = acc + i
        ct.store(y, index=(0,), tile=acc)
    """, tmp_path)
    x, y = torch.tensor([1, 2, 0, 1], dtype=torch.int32), torch.zeros(4, dtype=torch.int32)
    mod.launch_count((1,), x, y, 4)
    assert y.tolist() == [10, 10, 10, 10]


# ---------------------------------------------------------------- static_iter over arrays
ARRAYS_ITER = """
@ct.kernel
def k(x, y, o1, o2, T: ConstInt):
    bid = ct.bid(0)
    acc = ct.zeros((T,), dtype=ct.float32)
    for A in ct.static_iter((x, y)):            # a load from each array in turn
        acc = acc + ct.astype(ct.load(A, index=(bid,), shape=(T,)), ct.float32)
    outs = (o1, o2)
    for i, O in ct.static_iter(enumerate(outs)):  # a store to each, through a named tuple
        ct.store(O, index=(bid,), tile=ct.astype(acc * (i + 1), O.dtype))

def run(x, y):
    o1, o2 = torch.empty_like(x), torch.empty_like(x)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(x.shape[0], 16),), k, (x, y, o1, o2, 16))
    return o1, o2
"""


def test_static_iter_over_a_tuple_of_arrays(tmp_path):
    """`for A in ct.static_iter((x, y))`: each array in turn (was refused: `A` was not an array
    parameter); the ranks come from the uses of the loop variable."""
    res = translate(ARRAYS_ITER)
    assert res.ok, [d.format() for d in res.diagnostics]
    mod = build(ARRAYS_ITER, tmp_path)
    x, y = torch.randn(37), torch.randn(37)
    o1, o2 = mod.run(x, y)
    torch.testing.assert_close(o1, x + y)
    torch.testing.assert_close(o2, 2 * (x + y))


def test_a_store_through_a_static_iter_variable_counts_as_a_write_to_each_array():
    """A kernel that stores to `A` for A in (y, x) writes x: the grid-stride loop's load of x may
    not be prefetched (the prefetch rule needs an array the kernel never writes)."""
    src = """
@ct.kernel
def k(x, y, T: ConstInt):
    for t in range(ct.bid(0), ct.cdiv(x.shape[0], T), ct.num_blocks(0)):
        v = ct.load(x, index=(t,), shape=(T,))
        ct.store(y, index=(t,), tile=v * 2)
    for A in ct.static_iter((y, x)):
        ct.store(A, index=(ct.bid(0),), tile=ct.zeros((T,), dtype=A.dtype))
"""
    res = translate(src)
    assert res.ok, [d.format() for d in res.diagnostics]
    assert "_prefetch" not in res.code
    assert "_prefetch" in translate(src.replace("(y, x)", "(y, y)")).code


# ---------------------------------------------------------------- frozen dataclass methods
DC_METHODS = """
from dataclasses import dataclass

@dataclass(frozen=True)
class Poly:
    a: float
    b: float = 1.0

    def apply(self, t):
        return t * self.a + self.b

    def twice(self, t):
        return self.apply(self.apply(t))

P = Poly(2.0)

@ct.kernel
def k(x, y, z, T: ConstInt):
    t = ct.load(x, index=(0,), shape=(T,))
    ct.store(y, index=(0,), tile=P.apply(t) + Poly(3.0, 0.0).apply(t))
    ct.store(z, index=(0,), tile=P.twice(t))

def run(x):
    y, z = torch.empty_like(x), torch.empty_like(x)
    ct.launch(torch.cuda.current_stream(), (1,), k, (x, y, z, 16))
    return y, z
"""


def test_frozen_dataclass_methods(tmp_path):
    """Methods of a frozen dataclass constant (cuTile 1.6): a helper per instance value, `self`
    folded at translation time; a method calling another (was C2T103: the class was not rebuilt)."""
    mod = build(DC_METHODS, tmp_path)
    x = torch.randn(16)
    y, z = mod.run(x)
    torch.testing.assert_close(y, x * 2 + 1 + x * 3)
    torch.testing.assert_close(z, (x * 2 + 1) * 2 + 1)
    kernel = open(mod.__file__).read()
    assert "def _Poly_apply(t):\n    return t * 2.0 + 1.0" in kernel


def test_dataclasses_with_post_init_or_decorated_methods_are_not_rebuilt():
    for extra in ("    def __post_init__(self):\n        pass\n", "    @property\n    def c(self):\n        return 1\n"):
        src = DC_METHODS.replace("    def apply(self, t):", extra + "\n    def apply(self, t):")
        assert "C2T103" in codes(src), extra


def test_a_loop_of_launches_with_a_dtype_parameter_stays_one_launch_each_and_says_why(tmp_path):
    src = """
@ct.kernel
def k(x, y, DT: ct.Constant[ct.DType]):
    ct.store(y, index=(ct.bid(0),), tile=ct.astype(ct.load(x, index=(ct.bid(0),), shape=(16,)), DT))

def run(xs, ys):
    for x, y in zip(xs, ys):
        ct.launch(torch.cuda.current_stream(), (1,), k, (x, y, ct.float16))
    return ys
"""
    res = translate(src)
    assert any(d.code == "C2T207" and "ct.Constant[ct.DType]" in d.message for d in res.diagnostics), \
        [d.format() for d in res.diagnostics]
    mod = build(src, tmp_path)
    xs = [torch.randn(16), torch.randn(16)]
    ys = mod.run(xs, [torch.empty(16, dtype=torch.float16) for _ in xs])
    for x, y in zip(xs, ys):
        torch.testing.assert_close(y, x.half())


# ct.static_iter unrolls at most 1000 items in cuTile (TileStaticEvalError). With constant bounds
# over the limit the translation refused nothing and Triton's compiler unrolled a million
# iterations (cutile-python's test_static_iter: the compile check ran for 40 minutes).
# (constant bounds over the limit: tests/test_static_iter_forms.py)
def test_static_iter_with_constant_bounds_asserts_the_limit(tmp_path):
    src = """
    @ct.kernel
    def k(x, N: ConstInt):
        for i in ct.static_iter(range(N)):
            ct.scatter(x, i, 1)

    def run(x, n):
        ct.launch(torch.cuda.current_stream(), (1,), k, (x, n))
    """
    res = translate(src)
    assert res.ok and 'tl.static_assert(len(range(N)) <= 1000, "ct.static_iter: at most 1000' in res.code
    assert "OK k" in compile_sm90(src, "run", "(torch.zeros(8, dtype=torch.int32), 8)", tmp_path)
    with pytest.raises(AssertionError, match="at most 1000 iterations"):
        compile_sm90(src, "run", "(torch.zeros(8, dtype=torch.int32), 5000)", tmp_path)


def test_module_string_constants_are_compile_time_values(tmp_path):
    """`MODE = "fast"` at module level, compared in a kernel: a compile-time value in cuTile (it
    was C2T103, 'module globals must be literals')."""
    mod = build("""
    MODE = "fast"
    OTHER = MODE

    @ct.kernel
    def k(x):
        if MODE == "fast" and OTHER != "slow":
            ct.scatter(x, 0, 1)
        else:
            ct.scatter(x, 0, 2)

    def run(x):
        ct.launch(torch.cuda.current_stream(), (1,), k, (x,))
    """, tmp_path)
    x = torch.zeros(1, dtype=torch.int32)
    mod.run(x)
    assert x.item() == 1
