"""Python control flow cuTile accepts and Triton's compiler rejects, desugared."""
import pytest
import torch

from kernel_util import build, checked, compile_sm90, translate

FIRST_NEGATIVE = """
@ct.kernel
def first_negative(x, out, T: ConstInt):
    # index of the first tile holding a negative value, or -1
    found = ct.full((), -1, dtype=ct.int32)
    for i in range(ct.num_tiles(x, axis=0, shape=(T,))):
        t = ct.load(x, index=(i,), shape=(T,), padding_mode=ct.PaddingMode.ZERO)
        if ct.min(t) >= 0:
            continue
        found = ct.astype(i, ct.int32)
        break
    ct.scatter(out, 0, found)

def run(x):
    out = torch.zeros(1, dtype=torch.int32, device=x.device)
    ct.launch(torch.cuda.current_stream(), (1,), first_negative, (x, out, 8))
    return out
"""


def test_break_and_continue_in_a_for_loop(tmp_path):
    mod = build(FIRST_NEGATIVE, tmp_path)
    for n, neg in ((37, 20), (37, None), (8, 0), (64, 63)):
        x = torch.rand(n)
        if neg is not None:
            x[neg] = -1.0
        expected = -1 if neg is None else neg // 8
        assert mod.run(x).item() == expected, (n, neg)


def test_desugared_loops_compile_for_sm90(tmp_path):
    out = compile_sm90(FIRST_NEGATIVE, "run", "(torch.rand(40),)", tmp_path)
    assert "OK first_negative" in out


def test_while_with_break_evaluates_the_condition_as_python_does(tmp_path):
    mod = build("""
    @ct.kernel
    def k(x, out, limit):
        # sum 1, 2, 3, ... until the total passes `limit`, at most 100 terms
        total = ct.full((), 0, dtype=ct.int32)
        i = ct.full((), 0, dtype=ct.int32)
        while i < 100:
            i = i + 1
            total = total + i
            if total > limit:
                break
        ct.scatter(out, 0, total)
        ct.scatter(out, 1, i)

    def run(limit):
        out = torch.zeros(2, dtype=torch.int32)
        ct.launch(torch.cuda.current_stream(), (1,), k, (torch.zeros(1), out, limit))
        return out.tolist()
    """, tmp_path)

    def ref(limit):
        total = i = 0
        while i < 100:
            i += 1
            total += i
            if total > limit:
                break
        return [total, i]
    for limit in (0, 10, 100, 10000):
        assert mod.run(limit) == ref(limit), limit


def test_a_loop_with_break_keeps_range_semantics_when_the_body_assigns_its_names(tmp_path):
    """range() fixes the loop variable's next value, the stop and the step when the loop starts:
    a body that assigns `i`, `n` or `s` changes none of them (the desugared while loop counted on
    `i` itself: `i = i * 10` made the next iteration 11). (A negative runtime step is undefined in
    cuTile.)"""
    mod = build("""
    @ct.kernel
    def k(out, n, s):
        acc = ct.full((), 0, dtype=ct.int32)
        for i in range(0, n, s):
            if i == 50:
                break
            i = i * 10
            n = n - 1
            s = s + 100
            acc = acc + i
        ct.scatter(out, 0, acc)

    def run(n, s):
        out = torch.zeros(1, dtype=torch.int32)
        ct.launch(torch.cuda.current_stream(), (1,), k, (out, n, s))
        return out.item()
    """, tmp_path)

    def ref(n, s):
        acc = 0
        for i in range(0, n, s):
            if i == 50:
                break
            i, n, s = i * 10, n - 1, s + 100
            acc += i
        return acc
    for n, s in ((8, 1), (100, 5), (100, 7), (-30, 3), (0, 1)):
        assert mod.run(n, s) == ref(n, s), (n, s)


def test_continue_only_keeps_a_for_loop(tmp_path):
    from kernel_util import translate
    res = translate("""
    @ct.kernel
    def k(x, y, T: ConstInt):
        acc = ct.zeros((T,), dtype=ct.float32)
        for i in range(4):
            if i == 2:
                continue
            acc = acc + ct.load(x, index=(i,), shape=(T,))
        ct.store(y, index=(0,), tile=acc)
    """)
    assert res.ok
    body = res.code.split("def k(")[1].split("\ndef ")[0]       # the kernel, up to the next definition
    assert "for i in range(4):" in body and "while" not in body


def test_static_iter_over_tuples_zip_and_enumerate(tmp_path):
    mod = build("""
    @ct.kernel
    def k(a, b, out, T: ConstInt):
        tiles = (ct.load(a, index=(0,), shape=(T,)), ct.load(b, index=(0,), shape=(T,)))
        scales = (2.0, 3.0)
        acc = ct.zeros((T,), dtype=ct.float32)
        for i, (t, s) in ct.static_iter(enumerate(zip(tiles, scales))):
            acc = acc + t * s + i
        for j in ct.static_iter(range(3)):
            acc = acc + j
        ct.store(out, index=(0,), tile=acc)

    def run(a, b):
        out = torch.empty_like(a)
        ct.launch(torch.cuda.current_stream(), (1,), k, (a, b, out, 16))
        return out
    """, tmp_path)
    a, b = torch.randn(16), torch.randn(16)
    torch.testing.assert_close(mod.run(a, b), a * 2 + b * 3 + 1 + 3)


def test_static_iter_over_tuple_slices_and_reversed(tmp_path):
    """Horner's rule over a module tuple: `COEFFS[1:]` and `reversed(...)` with bounds known at
    translation time (both were refused); a slice bound that is a Constant parameter is refused
    once, where it is, with no host-code errors for the helper that could not be lowered."""
    mod = build("""
    COEFFS = (1.0, -0.5, 0.25, -0.125)

    def horner(t, coeffs):
        acc = ct.full(t.shape, coeffs[-1], dtype=ct.float32)
        for c in ct.static_iter(reversed(coeffs[:-1])):
            acc = acc * t + c
        return acc

    @ct.kernel
    def k(x, out, T: ConstInt):
        t = ct.load(x, index=(0,), shape=(T,))
        ct.store(out, index=(0,), tile=horner(t, COEFFS) + horner(t, COEFFS[1:3]))

    def run(x):
        out = torch.empty_like(x)
        ct.launch(torch.cuda.current_stream(), (1,), k, (x, out, 16))
        return out
    """, tmp_path)
    x = torch.randn(16)
    ref = 1.0 - 0.5 * x + 0.25 * x ** 2 - 0.125 * x ** 3 + (-0.5 + 0.25 * x)
    torch.testing.assert_close(mod.run(x), ref)
    from kernel_util import translate
    res = translate("""
    COEFFS = (1.0, -0.5, 0.25)

    def total(coeffs):
        acc = ct.full((), 0.0, dtype=ct.float32)
        for c in ct.static_iter(coeffs):
            acc = acc + c
        return acc

    @ct.kernel
    def k(out, DEG: ConstInt):
        ct.scatter(out, 0, total(COEFFS[:DEG]))
    """)
    assert [d.code for d in res.diagnostics if d.severity == "error"] == ["C2T105"]


NESTED_UNPACK = """
def stats(t):
    return ct.sum(t), (ct.max(t), ct.min(t))

@ct.kernel
def k(x, out, T: ConstInt):
    t = ct.load(x, index=(0,), shape=(T,))
    total, (hi, lo) = stats(t)
    [a, (b, (c, d))] = (total, (hi, (lo, hi - lo)))
    ct.store(out, index=(0,), tile=ct.full((T,), a, dtype=ct.float32) + b * 10 + c * 100 + d * 1000)

def run(x):
    out = torch.empty_like(x)
    ct.launch(torch.cuda.current_stream(), (1,), k, (x, out, x.shape[0]))
    return out
"""


def test_nested_tuple_unpacking(tmp_path):
    """`a, (b, c) = ...` (cuTile unpacks nested tuples; Triton 3.6 only names): unpacked through a
    temporary named after the inner names; refused before the twenty-third session."""
    mod = build(NESTED_UNPACK, tmp_path)
    x = torch.randn(8)
    want = x.sum() + x.max() * 10 + x.min() * 100 + (x.max() - x.min()) * 1000
    torch.testing.assert_close(mod.run(x), want.expand(8), rtol=1e-5, atol=1e-3)
    body = open(mod.__file__).read().split("def k(")[1]
    assert "total, _hi_lo = stats(t)\n    hi, lo = _hi_lo" in body and "b, _c_d = _b_c_d" in body
    assert compile_sm90(NESTED_UNPACK, "run", "(torch.randn(8),)", tmp_path).startswith("OK k")


def test_nested_defs_lambdas_and_closures_are_hoisted(tmp_path):
    mod = build("""
    def scale(t, s):
        # a module-level helper
        return t * s

    @ct.kernel
    def k(x, out, alpha, T: ConstInt):
        offset = 1.5
        def shifted(t):
            return t + offset          # captures `offset`
        clamp = lambda t: ct.maximum(t, 0.0)
        t = ct.load(x, index=(ct.bid(0),), shape=(T,))
        ct.store(out, index=(ct.bid(0),), tile=clamp(shifted(scale(t, alpha))))

    def run(x, alpha):
        out = torch.empty_like(x)
        ct.launch(torch.cuda.current_stream(), (ct.cdiv(x.shape[0], 16),), k, (x, out, alpha, 16))
        return out
    """, tmp_path)
    x = torch.randn(37)
    torch.testing.assert_close(mod.run(x, 2.0), torch.clamp(x * 2.0 + 1.5, min=0.0))
    code = open(mod.__file__).read()
    assert "def _k_shifted(t, offset):" in code and "def _k_clamp(t):" in code


LAMBDAS = """
def apply(f, t):
    return f(t)

@ct.kernel
def k(x, out, T: ConstInt):
    t = ct.load(x, index=(0,), shape=(T,))
    BODY
    ct.store(out, index=(0,), tile=u)

def run(x):
    out = torch.empty_like(x)
    ct.launch(torch.cuda.current_stream(), (1,), k, (x, out, 16))
    return out
"""


@pytest.mark.parametrize("body, ref", [
    # passed to a helper and called at once (cuTile accepts both): were refused as "an
    # immediately called lambda"
    ("u = apply(lambda v: v + 1.0, t) + apply(lambda v: v * v, t) + (lambda v: v * 3.0)(t)",
     lambda x: x + 1.0 + x * x + x * 3.0),
    # default parameters, named, called at once and passed to a helper, with and without the
    # defaulted argument (were refused: C2T103)
    ("f = lambda v, s=2.0: v * s\n    u = f(t) + f(t, 3.0) + (lambda v, c=1.0: v + c)(t) + apply(lambda v, d=4.0: v * d, t)",
     lambda x: x * 2.0 + x * 3.0 + (x + 1.0) + x * 4.0),
])
def test_lambda_values(tmp_path, body, ref):
    mod = build(LAMBDAS.replace("BODY", body), tmp_path)
    x = torch.randn(16)
    torch.testing.assert_close(mod.run(x), ref(x))


def test_defaults_are_evaluated_where_the_function_is_defined(tmp_path):
    """Python evaluates a lambda's or nested def's defaults at its definition: `c = 2; f = lambda
    v, a=c: ...; c = 3` keeps 2, also for run-time values, and where the function is passed to a
    helper (the defaults were evaluated at each call, seeing c = 3)."""
    mod = build("""
    def apply(f, t):
        c = 100.0
        return f(t)

    @ct.kernel
    def k(x, y, z, w, s: float, T: ConstInt):
        t = ct.load(x, index=(0,), shape=(T,))
        c = 2
        b0 = s
        f = lambda v, a=c, b=b0: v * a + b
        def g(v, m=s * 2.0):
            return v * m
        c = 3
        b0 = s + 1.0
        ct.store(y, index=(0,), tile=f(t))
        ct.store(z, index=(0,), tile=apply(f, t) + apply(g, t))
        ct.store(w, index=(0,), tile=g(t) + f(t, 10))

    def run(x, s):
        y, z, w = torch.empty_like(x), torch.empty_like(x), torch.empty_like(x)
        ct.launch(torch.cuda.current_stream(), (1,), k, (x, y, z, w, s, 16))
        return y, z, w
    """, tmp_path)
    x, s = torch.randn(16), 0.5
    y, z, w = mod.run(x, s)
    torch.testing.assert_close(y, x * 2 + s)
    torch.testing.assert_close(z, x * 2 + s + x * (s * 2))
    torch.testing.assert_close(w, x * (s * 2) + x * 10 + s)


def test_functions_passed_to_helpers_take_their_captures_along(tmp_path):
    """A lambda or nested def that reads kernel variables, passed to a module helper: the helper
    cannot see them, and a local of its own with the same name must not stand in for them (it
    did: `helper(lambda v: v * s, t)` computed t * 100 with the helper's `s = 100.0`). The
    captures travel as hidden parameters, through a second helper too, and into ct.reduce."""
    mod = build("""
    def helper(f, t):
        s = 100.0          # the helper's own `s`
        return f(t) + s * 0

    def outer(f, t):
        return helper(f, t) * 2.0

    def helper_reduce(f, t):
        s = 100.0
        return ct.reduce(t, 0, f, -math.inf)

    @ct.kernel
    def k(x, y, z, w, s: float, T: ConstInt):
        t = ct.load(x, index=(0,), shape=(T,))
        bias = t * 0.5
        def plus_bias(v):
            return v + bias
        ct.store(y, index=(0,), tile=helper(lambda v: v * s, t))
        ct.store(w, index=(0,), tile=outer(plus_bias, t))
        ct.store(z, index=(0,), tile=ct.full((1,), helper_reduce(lambda a, b: ct.maximum(ct.maximum(a, b), s), t),
                                            dtype=ct.float32))

    def run(x, s):
        y, w, z = torch.empty_like(x), torch.empty_like(x), torch.empty(1)
        ct.launch(torch.cuda.current_stream(), (1,), k, (x, y, z, w, s, 16))
        return y, w, z
    """, tmp_path)
    x = torch.randn(16)
    y, w, z = mod.run(x, 0.25)
    torch.testing.assert_close(y, x * 0.25)
    torch.testing.assert_close(w, (x + x * 0.5) * 2.0)
    assert z.item() == max(x.max().item(), 0.25)


def test_helper_lowered_per_signature(tmp_path):
    mod = build("""
    def fdiv(a, b):
        return a // b

    @ct.kernel
    def k(x, out, d, T: ConstInt):
        t = ct.load(x, index=(0,), shape=(T,))
        ct.store(out, index=(0,), tile=t * 0 + fdiv(t, d) + fdiv(T, 3))

    def run(x, d):
        out = torch.empty_like(x)
        ct.launch(torch.cuda.current_stream(), (1,), k, (x, out, d, 8))
        return out
    """, tmp_path)
    x = torch.tensor([7, -7, 6, -6, 0, -1, 13, -13], dtype=torch.int32)
    assert torch.equal(mod.run(x, 2), torch.div(x, 2, rounding_mode="floor") + 8 // 3)


def test_helpers_calling_helpers(tmp_path):
    mod = build("""
    def inner(t):
        return ct.exp(t)

    def outer(t):
        return inner(t) * 2.0

    def host_pow2(n):
        # used on the host only: stays Python
        return 1 << max(n - 1, 0).bit_length()

    @ct.kernel
    def k(x, y, T: ConstInt):
        t = ct.load(x, index=(0,), shape=(T,), padding_mode=ct.PaddingMode.ZERO)
        ct.store(y, index=(0,), tile=outer(t))

    def run(x):
        y = torch.empty_like(x)
        ct.launch(torch.cuda.current_stream(), (1,), k, (x, y, host_pow2(x.shape[0])))
        return y
    """, tmp_path)
    x = torch.randn(13)
    torch.testing.assert_close(mod.run(x), torch.exp(x) * 2)


def test_helper_calls_bind_keywords_keyword_only_and_defaults_as_python(tmp_path):
    """A helper called with keyword arguments (in any order), keyword-only parameters (after a bare
    `*`), positional-only ones (before `/`) and defaults binds as Python binds it; an array passed
    by keyword has its rank inferred through the helper."""
    mod = build("""
    def affine(t, /, scale, shift=0.0, *, clamp=False):
        u = t * scale + shift
        if clamp:
            u = ct.maximum(u, 0.0)
        return u

    def load_row(arr, T: ConstInt):
        return ct.load(arr, index=(ct.bid(0),), shape=(T,), padding_mode=ct.PaddingMode.ZERO)

    @ct.kernel
    def k(x, out, out2, alpha, T: ConstInt):
        t = load_row(T=T, arr=x)
        ct.store(out, index=(ct.bid(0),), tile=affine(t, shift=1.0, scale=alpha))
        ct.store(out2, index=(ct.bid(0),), tile=affine(t, alpha, clamp=True))

    def run(x, alpha):
        out, out2 = torch.empty_like(x), torch.empty_like(x)
        ct.launch(torch.cuda.current_stream(), (ct.cdiv(x.shape[0], 16),), k, (x, out, out2, alpha, 16))
        return out, out2
    """, tmp_path)
    x = torch.randn(37)
    out, out2 = mod.run(x, -2.0)
    torch.testing.assert_close(out, x * -2.0 + 1.0)
    torch.testing.assert_close(out2, torch.clamp(x * -2.0, min=0.0))


@pytest.mark.parametrize("call, code, says", [
    ("f(t, s=2.0)", "C2T109", "`f` has no parameter `s`"),
    ("f(t, 2.0, scale=2.0)", "C2T109", "`f` got two values for the argument `scale`"),
    ("f(t=t, scale=2.0)", "C2T109", "`f`: parameter `t` is positional-only"),
    ("f(t)", "C2T109", "`f` is missing the argument `scale`"),
    ("f(t, 2.0, 3.0)", "C2T109", "`f` takes 2 positional arguments, got 3"),
    ("f(t, **{'scale': 2.0})", "C2T103", "a dict display"),     # (cuTile: Unsupported syntax)
    ("f(t, **t)", "C2T103", "`**` needs a dictionary"),
    ("f(*t)", "C2T103", "`*` needs a tuple"),      # (a tuple: spread, tests/test_starred_tuples.py)
])
def test_helper_call_binding_errors_are_located(call, code, says):
    from kernel_util import translate
    res = translate(f"""
    def f(t, /, scale, *, clamp=False):
        return t * scale

    @ct.kernel
    def k(x, T: ConstInt):
        t = ct.load(x, index=(0,), shape=(T,))
        ct.store(x, index=(0,), tile={call})
    """)
    d = next(d for d in res.diagnostics if d.severity == "error")
    assert d.code == code and says in d.message, d.format()
    assert d.line == 12, d.format()       # the call's line


def test_arguments_after_a_starred_one_do_not_bind_to_a_parameter_for_rank_inference():
    """Which parameter an argument after `*seq` binds to depends on len(seq): rank inference
    must not guess. Pairing `y` with `b` (as if `*s` were one argument) made `y` a 2-D array;
    it binds to `c`, which `h` never uses. The starred call itself translates (`*s` spreads the
    tuple `s`: tests/test_starred_tuples.py)."""
    from kernel_util import translate
    res = translate('''
    def h(a, b, c):
        return ct.load(b, index=(0, 0), shape=(4, 4))

    @ct.kernel
    def k(x, y, T: ConstInt):
        s = (x, x)
        ct.store(x, index=(0, 0), tile=h(*s, y))
    ''')
    assert res.kernels[0].params == ["x: array[2]", "y: scalar", "T: constexpr"] and not res.kernels[0].stub
    assert res.ok, [d.format() for d in res.diagnostics]


INT_CONDITIONS = """
@ct.kernel
def k(out, a, b, c):
    # int arguments as `and`/`or`/`not` operands: cuTile converts them with bool_()
    r = ct.full((), 0, dtype=ct.int32)
    if a and b:
        r = r + 1
    if a or not c:
        r = r + 10
    if not (b and c) or a > 5:
        r = r + 100
    ct.scatter(out, 0, r)

def run(a, b, c):
    out = torch.zeros(1, dtype=torch.int32)
    ct.launch(torch.cuda.current_stream(), (1,), k, (out, a, b, c))
    return out.item()
"""


def test_int_scalars_as_and_or_not_operands(tmp_path):
    """`if a and b:` on int arguments ran under the interpreter but failed Triton's sm_90 compile
    ("Cannot bitcast data-type of size 32 to data-type of size 1")."""
    mod = build(INT_CONDITIONS, tmp_path)
    for a, b, c in ((0, 0, 0), (3, 0, 2), (7, 2, 0), (0, 4, 5), (1, 1, 1)):
        ref = (1 if (a and b) else 0) + (10 if (a or not c) else 0) + (100 if (not (b and c) or a > 5) else 0)
        assert mod.run(a, b, c) == ref, (a, b, c)
    out = compile_sm90(INT_CONDITIONS, "run", "(3, 2, 0)", tmp_path)
    assert "OK k" in out


RETURN_IN_LOOPS = """
@ct.kernel
def k(x, y, T: ConstInt):
    \"\"\"y[row] = the first tile index whose sum is negative (rows of x), else -1.\"\"\"
    row = ct.bid(0)
    i = 0
    while i < ct.cdiv(x.shape[1], T):
        for j in range(2):                  # a return two loops deep
            t = ct.load(x, index=(row, i), shape=(1, T), padding_mode=ct.PaddingMode.ZERO)
            if ct.sum(t) + j * 0.0 < 0.0:
                ct.scatter(y, row, i)
                return
        i += 1
    ct.scatter(y, row, -1)

def run(x):
    y = torch.full((x.shape[0],), -7, dtype=torch.int32)
    ct.launch(torch.cuda.current_stream(), (x.shape[0],), k, (x, y, 8))
    return y
"""


def test_return_inside_loops(tmp_path):
    """A bare `return` in a `while` or `for` (cuTile accepts it; Triton's compiler rejects it):
    a flag, breaks out of each loop, and a return after the outermost one."""
    mod = build(RETURN_IN_LOOPS, tmp_path)
    x = torch.ones(4, 20)
    x[1, 9] = -100.0
    x[2, 19] = -100.0
    x[3, 0] = -100.0
    assert mod.run(x).tolist() == [-1, 1, 2, 0]
    assert '):\n    """y[row]' in open(mod.__file__).read()          # the docstring stays first
    assert "OK k" in compile_sm90(RETURN_IN_LOOPS, "run", "(torch.ones(4, 20),)", tmp_path)


def test_a_return_with_a_value_inside_a_loop_is_refused():
    from kernel_util import translate
    res = translate("""
    def first(x, T):
        for i in range(4):
            t = ct.load(x, index=(i,), shape=(T,))
            if ct.sum(t) < 0:
                return t
        return ct.zeros((T,), dtype=ct.float32)

    @ct.kernel
    def k(x, y, T: ConstInt):
        ct.store(y, index=(0,), tile=first(x, T))
    """)
    [d] = [d for d in res.diagnostics if d.severity == "error"]
    assert d.code == "C2T103" and "inside a loop" in d.message and "after the loop" in d.hint


# ---------------------------------------------------------------- loop-carried values keep their dtype
# (issue 33 item 5) cuTile types a loop-carried variable once: its updates must keep the type
# ("Type of `x` depends on path taken" otherwise), and so must Triton's. tl.maximum/tl.minimum
# made a Python number an fp32 tensor (`tl.maximum(fp16_tile, 0.0)` is fp32) and computed bf16 in
# fp32, where cuTile's ct.maximum keeps the tile's dtype: a running max of fp16/bf16 data was a
# Triton CompilationError. {update} is the loop body's update of `acc` (a tile of X's dtype, or
# its 0-D max), {loop} the loop around it.
RUNNING = """
@ct.kernel
def running(X, Out, B: ConstInt):
    row = ct.bid(0)
    n = ct.num_tiles(X, axis=1, shape=(1, B))
    acc = ct.full((1, B), -1.0, dtype=X.dtype)
    top = ct.full((), -1000.0, dtype=X.dtype)
    {loop}
    ct.store(Out, index=(row, 0), tile=ct.astype(acc + 2048.0, Out.dtype))
    ct.scatter(Out, (row, B), ct.astype(top + 2048.0, Out.dtype))

def run(x, out, b):
    ct.launch(torch.cuda.current_stream(), (x.shape[0],), running, (x, out, b))
"""
LOAD_J = "x = ct.load(X, index=(row, j), shape=(1, B), padding_mode=ct.PaddingMode.ZERO)"
UPDATES = {
    "maximum_literal": "acc = ct.maximum(acc, ct.maximum(x, 0.5))\n{i}top = ct.maximum(top, ct.max(x))",
    "minimum_tiles": "acc = ct.maximum(acc, -ct.minimum(x, acc))\n{i}top = max(top, ct.max(x))",
    "builtin_max_literal": "acc = max(acc, x)\n{i}top = max(top, 0.25)",
    "builtin_min_literal": "acc = -min(-acc, -x)\n{i}top = ct.maximum(top, -min(ct.min(x), 1.5))",
}
LOOPS = {
    "for": "for j in range(n):\n        {load}\n        {update}",
    "while": "j = 0\n    while j < n:\n        {load}\n        {update}\n        j += 1",
    "nested": "for i in range(2):\n        for j in range(i, n):\n            {load}\n            {update}",
    "break": "for j in range(n):\n        {load}\n        if j * B >= 24:\n            break\n        {update}",
}


def _running_src(update, loop):
    depth = "            " if loop == "nested" else "        "
    body = LOOPS[loop].format(load=LOAD_J, update=UPDATES[update].format(i=depth))
    if loop == "nested":
        body = body.replace("\n        {update}", "")
    return RUNNING.replace("{loop}", body)


def _running_ref(x, update, loop, b):
    """acc (1, b) and top, in x's dtype, as cuTile computes them, + 2048 in x's dtype."""
    dt = x.dtype
    rows = []
    for r in range(x.shape[0]):
        n = -(-x.shape[1] // b)
        js = {"for": range(n), "while": range(n), "nested": [j for i in range(2) for j in range(i, n)],
              "break": [j for j in range(n) if j * b < 24]}[loop]
        acc = torch.full((b,), -1.0, dtype=dt)
        top = torch.tensor(-1000.0, dtype=dt)
        for j in js:
            t = torch.zeros(b, dtype=dt)
            seg = x[r, j * b:(j + 1) * b]
            t[:seg.numel()] = seg
            if update == "maximum_literal":
                acc = torch.maximum(acc, torch.maximum(t, torch.tensor(0.5, dtype=dt)))
                top = torch.maximum(top, t.max())
            elif update == "minimum_tiles":
                acc = torch.maximum(acc, -torch.minimum(t, acc))
                top = torch.maximum(top, t.max())
            elif update == "builtin_max_literal":
                acc = torch.maximum(acc, t)
                top = torch.maximum(top, torch.tensor(0.25, dtype=dt))
            else:
                acc = -torch.minimum(-acc, -t)
                top = torch.maximum(top, -torch.minimum(t.min(), torch.tensor(1.5, dtype=dt)))
        rows.append(torch.cat([acc + 2048.0, (top + 2048.0).reshape(1)]))
    return torch.stack(rows)


@pytest.mark.parametrize("loop", sorted(LOOPS))
@pytest.mark.parametrize("update", sorted(UPDATES))
def test_running_max_of_16_bit_data_compiles(update, loop):
    from kernel_util import checked
    checked(_running_src(update, loop))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("loop", ["for", "break"])
@pytest.mark.parametrize("update", sorted(UPDATES))
def test_running_max_keeps_the_data_dtype(tmp_path, update, loop, dtype):
    """`+ 2048.0` rounds in the running value's dtype (fp16 steps of 2 there, bf16 of 16): an fp32
    max (before the fix) kept the fraction."""
    from translator.harness import interp_numerics
    interp_numerics.install()
    mod = build(_running_src(update, loop), tmp_path)
    b = 16
    x = (torch.randn(3, 40, generator=torch.Generator().manual_seed(1)) * 3 + 0.3).to(dtype)
    out = torch.zeros(3, b + 1, dtype=torch.float32)
    mod.run(x, out, b)
    assert torch.equal(out, _running_ref(x, update, loop, b).float()), (out, _running_ref(x, update, loop, b))


# cuTile's loop counter is an int32 whatever the type of range()'s bounds; Triton's has the
# bounds' widest type, so a bound read from an int64 array made it int64 and `acc = 0` then
# `acc = acc + i` changed type in the loop (a CompilationError with int64 counts).
COUNTED = """
@ct.kernel
def counted(Cnt, Out):
    n = ct.load(Cnt, index=(ct.bid(0),), shape=(1,)).item()
    m = ct.gather(Cnt, ct.bid(0))
    acc = 0
    for i in range(n):
        acc = acc + i
    for i in range(1, m, 2):
        for j in range(i, ct.gather(Cnt, 0)):
            acc = acc + j * 3
    for i in range(n):
        if i * i > 30:
            break
        acc = acc + 100 * i
    ct.scatter(Out, ct.bid(0), acc)

def run(cnt, out):
    ct.launch(torch.cuda.current_stream(), (cnt.shape[0],), counted, (cnt, out))
"""


def _counted_ref(cnt):
    out = []
    for n in cnt.tolist():
        acc = sum(range(n)) + sum(3 * j for i in range(1, n, 2) for j in range(i, int(cnt[0])))
        acc += sum(100 * i for i in range(n) if all(k * k <= 30 for k in range(i + 1)))
        out.append(acc)
    return torch.tensor(out, dtype=torch.int32)


def test_loop_counter_of_int64_bounds_compiles():
    from kernel_util import checked
    checked(COUNTED)


@pytest.mark.parametrize("dtype", [torch.int32, torch.int64])
def test_loop_counter_of_int64_bounds_counts(tmp_path, dtype):
    mod = build(COUNTED, tmp_path)
    cnt = torch.tensor([7, 0, 12, 3], dtype=dtype)
    out = torch.zeros(4, dtype=torch.int32)
    mod.run(cnt, out)
    assert torch.equal(out, _counted_ref(cnt)), (out, _counted_ref(cnt))


# A cross-entropy forward and backward over column chunks (issue 33 item 5's first class): the
# row max carried in the logits' dtype, the logsumexp's sum in fp32 0-D tiles, and in the second
# loop the gradient stored in place before the target logit is gathered back from the same array
# (a barrier between them). The max of fp16/bf16 logits changed type in the loop before
# _c2t_maximum.
CROSS_ENTROPY = """
@ct.kernel
def xent(X, Tgt, Loss, B: ConstInt):
    row = ct.bid(0)
    t = ct.gather(Tgt, row)
    n = ct.num_tiles(X, axis=1, shape=(1, B))
    m = ct.full((), -math.inf, dtype=X.dtype)
    for j in range(n):
        m = ct.maximum(m, ct.max(ct.load(X, index=(row, j), shape=(1, B), padding_mode=ct.PaddingMode.NEG_INF)))
    mf = ct.astype(m, ct.float32)
    d = 0.0
    for j in range(n):
        x = ct.astype(ct.load(X, index=(row, j), shape=(1, B), padding_mode=ct.PaddingMode.NEG_INF), ct.float32)
        d = d + ct.sum(ct.exp(x - mf))
    lse = mf + ct.log(d)
    picked = ct.full((), 0.0, dtype=ct.float32)
    j = 0
    while j < n:
        x = ct.astype(ct.load(X, index=(row, j), shape=(1, B)), ct.float32)
        cols = j * B + ct.arange(B, dtype=ct.int32)
        ct.store(X, index=(row, j), tile=ct.astype(ct.exp(x - lse), X.dtype))
        if t // B == j:
            picked = ct.astype(ct.gather(X, (row, t)), ct.float32)
        j += 1
    ct.scatter(Loss, row, -ct.log(picked))

def run(x, t, loss, b):
    ct.launch(torch.cuda.current_stream(), (x.shape[0],), xent, (x, t, loss, b))
"""


def test_chunked_cross_entropy_compiles():
    from kernel_util import checked
    checked("import math\n" + CROSS_ENTROPY)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
@pytest.mark.parametrize("tdtype", [torch.int32, torch.int64])
def test_chunked_cross_entropy_computes(tmp_path, dtype, tdtype):
    """The loss -log(softmax[t]) as the in-place softmax rounded to x's dtype gives it back, and
    the gradient's softmax in place."""
    mod = build("import math\n" + CROSS_ENTROPY, tmp_path)
    x0 = (torch.randn(4, 50, generator=torch.Generator().manual_seed(3)) * 2).to(dtype)
    t = torch.tensor([3, 49, 17, 32], dtype=tdtype)
    x, loss = x0.clone(), torch.zeros(4)
    mod.run(x, t, loss, 16)
    soft = torch.softmax(x0.float(), 1).to(dtype)
    tol = 1e-5 if dtype == torch.float32 else 2e-3
    torch.testing.assert_close(x, soft, rtol=tol, atol=tol)
    ref = -torch.log(soft.float()[torch.arange(4), t.long()])
    torch.testing.assert_close(loss, ref, rtol=tol, atol=tol)


# A number a loop or a run-time `if` changes is a run-time scalar after it, never a constexpr: the
# translation annotated `a: tl.constexpr = k // 3` after `k = 0; while k < 3: k += 1`, which Triton
# rejects ("error encountered during parsing"; found by the fuzzer, seed 5021 of generation 2).
PATH_NUMBERS = """
@ct.kernel
def k(out, n):
    w = 0
    while w < 3:
        w = w + 1
    s = 0
    for i in range(n):
        s = s + 2
    t = 1
    if ct.bid(0) > 0:
        t = 5
    elif n > 100:
        t = 7
    q, r = divmod(s, 3)
    a = w // 2
    b = t * 2
    c = q == 1
    ct.scatter(out, ct.bid(0) * 4 + 0, ct.full((), a, dtype=ct.int32))
    ct.scatter(out, ct.bid(0) * 4 + 1, ct.full((), b, dtype=ct.int32))
    ct.scatter(out, ct.bid(0) * 4 + 2, ct.full((), q * 10 + r, dtype=ct.int32))
    ct.scatter(out, ct.bid(0) * 4 + 3, ct.where(c, 1, 0))

def run(n):
    out = torch.zeros(8, dtype=torch.int32)
    ct.launch(torch.cuda.current_stream(), (2,), k, (out, n))
    return out.tolist()
"""


def test_numbers_changed_on_a_run_time_path_are_run_time_values(tmp_path):
    res = checked(PATH_NUMBERS)       # Triton's front end accepts it (it did not for the loops)
    assert ": tl.constexpr =" not in res.code.split("def k(", 1)[1].split("\ndef ", 1)[0]
    mod = build(PATH_NUMBERS, tmp_path)
    for n in (0, 2, 4):
        q, r = divmod(2 * n, 3)
        assert mod.run(n) == [1, 2, q * 10 + r, int(q == 1), 1, 10, q * 10 + r, int(q == 1)], n

