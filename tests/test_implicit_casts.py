"""cuTile's implicit casts of stored and atomic operands (translator/dtype_rules.py): the rule itself
(against cuTile's own where it is installed, and by examples), and translated kernels, which check
it when Triton compiles them (templates/prelude_casts.py.j2) and fail with cuTile's error where
cuTile refuses the cast; before, Triton's tl.store cast anything silently (an fp32 tile into an
fp16 array, int64 into int32, int8 into bool) and accepted atomics cuTile rejects.

Under the interpreter (conftest) the check runs when the store runs; test_compiled_kernels_* compile
for sm_90 in a subprocess (the static_assert of Triton's code generator)."""
import pytest
import torch

from kernel_util import RT, build, compile_sm90
from translator import dtype_rules as R

# ---------------------------------------------------------------- the rule
STRICT = [("float16", "float32", True), ("float32", "float16", False), ("int32", "float32", True),
          ("int64", "float16", True), ("float64", "float32", False), ("int8", "int32", True),
          ("int64", "int32", False), ("int32", "uint32", False), ("uint8", "int32", False),
          ("uint8", "uint64", True), ("bool_", "int8", True), ("bool_", "float16", True),
          ("int8", "bool_", False), ("float16", "bfloat16", False), ("bfloat16", "float16", False),
          ("bfloat16", "float32", True), ("float32", "bfloat16", False), ("float8_e4m3fn", "float16", False),
          ("float16", "float8_e4m3fn", False), ("float8_e5m2", "float8_e5m2", True), ("tfloat32", "float32", False)]
LOOSE = [(1, "bool_", None), (True, "float32", None), (2, "bool_", "TileTypeError"), (1.0, "bool_", "TileTypeError"),
         (1.5, "int32", "TileTypeError"), (7, "float16", None), (300, "int8", "TileValueError"),
         (255, "uint8", None), (-1, "uint32", "TileValueError"), (2**40, "int64", None), (3, "float8_e4m3fn", None)]


@pytest.mark.parametrize("src,dst,ok", STRICT)
def test_strictly_typed_values(src, dst, ok):
    assert R.implicit_cast_ok(src, dst) is ok
    err = R.operand_error("store", src, dst)
    assert (err is None) is ok
    if not ok:
        assert err == ("TileTypeError", f"Stored tile is incompatible with array's dtype: cannot implicitly cast {src} to {dst}")


@pytest.mark.parametrize("value,dst,cls", LOOSE)
def test_loosely_typed_constants(value, dst, cls):
    err = R.operand_error("scatter", value, dst)
    assert (err and err[0]) == cls
    if cls == "TileValueError":
        assert err[1] == f"Stored value is incompatible with array's dtype: {value} is out of range of {dst}"


def test_atomics():
    assert R.operand_error("add", "float16", "float32") is None
    assert R.operand_error("add", "float32", "float16")[1] == \
        "Update is incompatible with the target dtype: cannot implicitly cast float32 to float16"
    assert R.operand_error("add", "int8", "int8") == ("TileTypeError", "Unsupported array dtype: int8")
    assert R.operand_error("max", "float32", "float32") == ("TileTypeError", "Unsupported array dtype: float32")
    assert R.operand_error("cas", "float16", "float16") == ("TileTypeError", "Unsupported array dtype: float16")
    assert R.operand_error("xor", "int32", "int32") is None
    assert R.operand_error("and", "int32", "int64")[1] == ("Bitwise atomic read-modify-write operations require "
                                                           "the update dtype (int32) to exactly match the target dtype (int64)")
    assert R.operand_error("or", 1, "int32") is None and R.operand_error("or", 1, "uint32") is not None
    assert R.operand_error("xchg", "int32", "int64") is None and R.operand_error("xchg", 1.5, "int64") is not None


def test_rule_matches_the_installed_cutile():
    """Every pair of dtypes and a range of constants, against cuTile's own functions (cuTile's
    Python typing runs without a GPU)."""
    cast_ops = pytest.importorskip("cuda.tile._ir.cast_ops")
    import cuda.tile as ct
    from cuda.tile._exception import TileTypeError, TileValueError
    from cuda.tile._ir.type import LooselyTypedScalar
    for d in R.DTYPES:
        for s in R.DTYPES:
            assert cast_ops._is_implicit_cast_ok(getattr(ct, s), getattr(ct, d)) == R.implicit_cast_ok(s, d), (s, d)
        for v in (True, False, 0, 1, 2, -1, 127, 128, 255, 256, -129, 2**31, -2**31 - 1, 2**63, 2**64 - 1,
                  0.0, 1.0, 1.5):
            try:
                cast_ops.check_implicit_cast(LooselyTypedScalar(v), getattr(ct, d))
                got = None
            except TileTypeError as e:
                got = ("TileTypeError", str(e).splitlines()[0])
            except TileValueError as e:
                got = ("TileValueError", str(e).splitlines()[0])
            assert R._c2t_rule_cast_error(v, d) == got, (v, d)


# ---------------------------------------------------------------- translated kernels (interpreter)
def _cutile_message(exc):
    """The 'cuTile <class>: <message>' that a translated kernel's check raised (the innermost
    exception's text: the interpreter's InterpreterErrors around it quote it in repr), else None."""
    found = None
    while exc is not None:
        text = str(exc)
        if "cuTile Tile" in text:
            found = text[text.index("cuTile Tile"):].split("\n")[0]
        exc = exc.__cause__ or exc.__context__
    return found


def _launch(fn, *args):
    """None if the launch ran, else the cuTile message it failed with (any other error propagates)."""
    try:
        fn(*args)
        return None
    except Exception as e:      # the interpreter's InterpreterError around the check's AssertionError
        msg = _cutile_message(e)
        if msg is None:
            raise
        return msg


TORCH = {"bool_": torch.bool, "int8": torch.int8, "int16": torch.int16, "int32": torch.int32, "int64": torch.int64,
         "uint8": torch.uint8, "uint32": torch.uint32, "uint64": torch.uint64, "float16": torch.float16, "bfloat16": torch.bfloat16,
         "float32": torch.float32, "float64": torch.float64}

STORE = """
@ct.kernel
def copy(x, y, T: ConstInt):
    ct.store(y, index=(ct.bid(0),), tile=ct.load(x, index=(ct.bid(0),), shape=(T,)))

@ct.kernel
def scatter(x, y, T: ConstInt):
    i = ct.arange(T, dtype=ct.int32)
    ct.scatter(y, i, ct.gather(x, i))

def run(kernel, x, y):
    ct.launch(torch.cuda.current_stream(), (1,), kernel, (x, y, x.shape[0]))
"""


@pytest.fixture(scope="module")
def stores(tmp_path_factory):
    return build(STORE, tmp_path_factory.mktemp("casts"))


@pytest.mark.parametrize("kernel,context", [("copy", "Stored tile"), ("scatter", "Stored value")])
def test_store_and_scatter_across_int_float_bool_widths(stores, kernel, context):
    """Both directions over every pair: a cast cuTile accepts runs and stores the values (0 and 1,
    exact in every dtype), one it refuses fails with its TileTypeError."""
    x0 = torch.arange(16) % 2
    for s, ts in TORCH.items():
        for d, td in TORCH.items():
            y = torch.full((16,), 7, dtype=td)
            got = _launch(stores.run, getattr(stores, kernel), x0.to(ts), y)
            if R.implicit_cast_ok(s, d):
                assert got is None, (s, d, got)
                if "bfloat16" not in (s, d):        # (the stock interpreter's bf16 casts are not exact)
                    assert torch.equal(y, x0.to(td)), (s, d, y)
            else:
                assert got == (f"cuTile TileTypeError: {context} is incompatible with array's dtype: "
                               f"cannot implicitly cast {s} to {d}"), (s, d, got)


SCALARS = """
@ct.kernel
def strict(y, n):
    ct.store(y, index=(0,), tile=n)             # an int argument: int32 in cuTile

@ct.kernel
def loose(y, C: ConstInt):
    ct.store(y, index=(0,), tile=C)             # a Constant: loosely typed

@ct.kernel
def half(y):
    ct.scatter(y, 0, 1.5)

def run(kernel, y, *args):
    ct.launch(torch.cuda.current_stream(), (1,), kernel, (y, *args))
"""


def test_scalar_operands_strict_and_loose(tmp_path):
    m = build(SCALARS, tmp_path)
    y8, y32, f32, b = (torch.zeros(4, dtype=t) for t in (torch.int8, torch.int32, torch.float32, torch.bool))
    assert _launch(m.run, m.strict, f32, 5) is None and f32[0] == 5
    assert _launch(m.run, m.strict, y8, 5) == ("cuTile TileTypeError: Stored tile is incompatible with array's "
                                              "dtype: cannot implicitly cast int32 to int8")
    assert _launch(m.run, m.loose, y8, 100) is None and y8[0] == 100
    assert _launch(m.run, m.loose, b, 1) is None and bool(b[0])
    assert _launch(m.run, m.loose, y8, 300) == ("cuTile TileValueError: Stored tile is incompatible with array's "
                                               "dtype: 300 is out of range of int8")
    assert _launch(m.run, m.loose, b, 2) == ("cuTile TileTypeError: Stored tile is incompatible with array's "
                                            "dtype: cannot implicitly cast 2 to bool_")
    assert _launch(m.run, m.half, f32) is None and f32[0] == 1.5
    assert _launch(m.run, m.half, y32) == ("cuTile TileTypeError: Stored value is incompatible with array's "
                                          "dtype: cannot implicitly cast 1.5 to int32")


ATOMICS = """
@ct.kernel
def add(x, u, T: ConstInt):
    ct.atomic_add(x, ct.arange(T, dtype=ct.int32), ct.load(u, index=(0,), shape=(T,)))

@ct.kernel
def amax(x, u, T: ConstInt):
    ct.atomic_max(x, ct.arange(T, dtype=ct.int32), ct.load(u, index=(0,), shape=(T,)))

@ct.kernel
def aor(x, u, T: ConstInt):
    ct.atomic_or(x, ct.arange(T, dtype=ct.int32), ct.load(u, index=(0,), shape=(T,)))

@ct.kernel
def cas(x, u, T: ConstInt):
    i = ct.arange(T, dtype=ct.int32)
    ct.atomic_cas(x, i, ct.gather(x, i), ct.load(u, index=(0,), shape=(T,)))

@ct.kernel
def raw_add(x, u, T: ConstInt):
    x.get_raw_memory().atomic_add_offset(ct.arange(T, dtype=ct.int32), ct.load(u, index=(0,), shape=(T,)))

@ct.kernel
def raw_store(x, u, T: ConstInt):
    x.get_raw_memory().store_offset(ct.arange(T, dtype=ct.int32), ct.load(u, index=(0,), shape=(T,)))

@ct.kernel
def raw_cas(x, u, T: ConstInt):
    i = ct.arange(T, dtype=ct.int32)
    x.get_raw_memory().atomic_cas_offset(i, ct.gather(x, i), ct.load(u, index=(0,), shape=(T,)))

@ct.kernel
def release(x, u, T: ConstInt):
    ct.store(x, index=(0,), tile=ct.load(u, index=(0,), shape=(T,)), memory_order=ct.MemoryOrder.RELEASE,
             memory_scope=ct.MemoryScope.DEVICE)

def run(kernel, x, u):
    ct.launch(torch.cuda.current_stream(), (1,), kernel, (x, u, x.shape[0]))
"""

UPDATE = "cuTile TileTypeError: Update is incompatible with the target dtype: cannot implicitly cast"
VALUE = "cuTile TileTypeError: Stored value is incompatible with array's dtype: cannot implicitly cast"
ATOMIC_CASES = [
    ("add", "float16", "float32", None), ("add", "float32", "float16", f"{UPDATE} float32 to float16"),
    ("add", "int32", "int64", None), ("add", "int64", "int32", f"{UPDATE} int64 to int32"),
    ("add", "int32", "uint32", f"{UPDATE} int32 to uint32"), ("add", "bool_", "float32", None),
    ("add", "int8", "int8", "cuTile TileTypeError: Unsupported array dtype: int8"),
    ("amax", "int32", "int64", None), ("amax", "float32", "float32", "cuTile TileTypeError: Unsupported array dtype: float32"),
    ("aor", "int32", "int32", None),
    ("aor", "int32", "int64", "cuTile TileTypeError: Bitwise atomic read-modify-write operations require the "
                              "update dtype (int32) to exactly match the target dtype (int64)"),
    ("cas", "int32", "float32", None), ("cas", "float64", "float32", f"{VALUE} float64 to float32"),
    ("cas", "int32", "int16", "cuTile TileTypeError: Unsupported array dtype: int16"),
    ("raw_add", "int16", "int32", None), ("raw_add", "float32", "int32", f"{UPDATE} float32 to int32"),
    ("raw_store", "int8", "float16", None),
    ("raw_store", "float16", "int8", "cuTile TileTypeError: Stored value is incompatible with RawArrayMemory's "
                                     "dtype: cannot implicitly cast float16 to int8"),
    ("raw_cas", "uint32", "uint64", None), ("raw_cas", "uint64", "uint32", f"{VALUE} uint64 to uint32"),
    ("release", "int32", "float32", None),
    ("release", "float32", "int32", "cuTile TileTypeError: Stored tile is incompatible with array's dtype: "
                                    "cannot implicitly cast float32 to int32"),
]


@pytest.fixture(scope="module")
def atomics(tmp_path_factory):
    return build(ATOMICS, tmp_path_factory.mktemp("atomics"))


@pytest.mark.parametrize("kernel,src,dst,expect", ATOMIC_CASES, ids=lambda v: str(v)[:24])
def test_atomic_and_raw_memory_operands(atomics, kernel, src, dst, expect):
    x = torch.zeros(8, dtype=TORCH[dst])
    u = torch.ones(8, dtype=TORCH[src])
    assert _launch(atomics.run, getattr(atomics, kernel), x, u) == expect
    if expect is None:
        assert torch.equal(x, torch.ones(8, dtype=TORCH[dst])), x    # (0 + 1, max(0, 1), 0 | 1, swapped, stored)


TMA_STORE = """
@ct.kernel
def copy2d(x, y, BM: ConstInt, BN: ConstInt):
    t = ct.load(x, index=(ct.bid(0), 0), shape=(BM, BN))
    ct.store(y, index=(ct.bid(0), 0), tile=t)

def run(x, y):
    ct.launch(torch.cuda.current_stream(), (x.shape[0] // 16,), copy2d, (x, y, 16, 32))
"""


def test_descriptor_store_checks_the_cast_too(monkeypatch, tmp_path):
    """A TMA store (`y_desc_0.store(...) if y_TMA else _c2t_store_2d(...)`) compiles one branch:
    the descriptor's checks the cast as the helper does."""
    m = build(TMA_STORE, tmp_path)
    monkeypatch.setattr(RT, "_C2T_TMA_MODE", "on")          # (the interpreter runs the descriptor path on CPU tensors)
    x = torch.randn(32, 32)
    y = torch.zeros(32, 32, dtype=torch.float16)
    assert _launch(m.run, x, y) == ("cuTile TileTypeError: Stored tile is incompatible with array's dtype: "
                                    "cannot implicitly cast float32 to float16")
    y = torch.zeros(32, 32, dtype=torch.float64)
    assert _launch(m.run, x, y) is None and torch.equal(y, x.double())


def test_compiled_kernels_fail_with_cutiles_error(tmp_path):
    """Compiled for sm_90 (no interpreter): Triton's CompilationError carries cuTile's message;
    a cast cuTile accepts compiles."""
    src = STORE.replace("def run(kernel, x, y):", "def run_both(x, y):\n    run(copy, x, y)\n    run(scatter, x, y)\n\n"
                                                  "def run(kernel, x, y):")
    out = compile_sm90(src, "run_both", "torch.zeros(16, dtype=torch.float16), torch.zeros(16)", tmp_path)
    assert out.count("OK ") == 2, out
    with pytest.raises(AssertionError) as e:
        compile_sm90(src, "run_both", "torch.zeros(16), torch.zeros(16, dtype=torch.float16)", tmp_path)
    assert "CompilationError" in str(e.value)
    assert ("cuTile TileTypeError: Stored tile is incompatible with array's dtype: cannot implicitly cast "
            "float32 to float16") in str(e.value)
