"""A helper's `**kwargs` in kernel code, as cuTile has it (lower/ops_dicts.py): the keyword
arguments no other parameter takes, as a dictionary with `[key]`, `.get(key, default)`, `in`, `==`
against a dict display, and `f(..., **kwargs)` forwarding them; a missing key is cuTile's
TileTypeError. Runtime values (tiles, scalars, arrays) travel as one helper parameter per key.
Before ops_dicts.py every helper with **kwargs was refused (C2T103)."""
import torch

from kernel_util import build, compile_sm90, translate

KWARGS = """
def pick(**opts):
    ct.static_assert("scale" in opts and "missing" not in opts)
    ct.static_assert(opts.get("missing") is None)
    return opts["scale"] * opts.get("bias", 0) + opts.get("extra", 7)


def stage(t, **opts):
    # runtime values among the keywords: a tile and a scalar
    return t * opts["w"] + opts.get("b", 0)


def combine(src, dst, i, **kw):
    ct.store(dst, (i,), ct.load(src, (i,), (4,)) + kw["shift"])


def relay(f, *args, **kw):
    return f(*args, **kw)


@ct.kernel
def k(src, dst, N: ConstInt):
    i = ct.bid(0)
    t = ct.load(src, (i,), (4,))
    a = pick(scale=N, bias=3)                   # 3 * N + 7
    b = pick(extra=1, scale=2)                  # 0 + 1
    u = stage(t, b=i, w=N)                      # t * N + i
    v = relay(stage, t, w=2)                    # t * 2
    combine(src, dst, i, shift=a + b)
    ct.store(dst, (i,), ct.load(dst, (i,), (4,)) + u + v)


def run(n):
    src = torch.arange(8, dtype=torch.int32)
    dst = torch.zeros(8, dtype=torch.int32)
    ct.launch(torch.cuda.current_stream(), (2,), k, (src, dst, n))
    return src, dst
"""


def test_kwargs_helpers_run(tmp_path):
    mod = build(KWARGS, tmp_path)
    for n in (2, 5):
        src, dst = mod.run(n)
        i = torch.arange(8) // 4
        want = src + (3 * n + 7) + 1 + src * n + i + src * 2
        assert dst.tolist() == want.tolist(), n


def test_kwargs_helpers_compile_for_sm90(tmp_path):
    out = compile_sm90(KWARGS, "run", "(3,)", tmp_path)
    assert "OK k " in out, out


COMPARE = """
def same(**kw):
    ct.static_assert(kw == {"p": 1, "q": 2})
    ct.static_assert(kw != {"p": 1})
    ct.static_assert({"q": 2, "p": 1} == kw)
    return 1


@ct.kernel
def k(x):
    ct.scatter(x, (0,), same(q=2, p=1))
"""


def test_dictionary_equality_as_python_has_it(tmp_path):
    res = translate(COMPARE)
    assert res.ok, [d.format() for d in res.diagnostics]
    assert "tl.static_assert(False" not in res.code


def test_missing_key_is_cutiles_type_error():
    res = translate("""
    def get(**kw):
        return kw["absent"]

    @ct.kernel
    def k(x):
        ct.scatter(x, (0,), get(present=1))
    """)
    notes = [d for d in res.diagnostics if d.code == "C2T218"]
    assert notes and "Key 'absent' not found in dictionary" in notes[0].message, res.diagnostics
    assert "cuTile TileTypeError: Key 'absent' not found in dictionary" in res.code


def test_unknown_keyword_without_kwargs_is_still_refused():
    res = translate("""
    def f(a):
        return a

    @ct.kernel
    def k(x):
        ct.scatter(x, (0,), f(a=1, b=2))
    """)
    assert any(d.code == "C2T109" and "no parameter `b`" in d.message for d in res.diagnostics), res.diagnostics


def test_dict_display_outside_static_evaluation_is_cutiles_syntax_error():
    res = translate("""
    def f(t, scale):
        return t * scale

    @ct.kernel
    def k(x):
        d = {"scale": 2}
        ct.scatter(x, (0,), f(1, **d))
    """)
    errs = [d for d in res.diagnostics if d.severity == "error"]
    assert errs and errs[0].cutile == ("TileSyntaxError", "Unsupported syntax"), res.diagnostics
