"""cuTile's rules for tuple comprehensions that the translation now reports with cuTile's error
(the shim raises it at the launch): a later `for`'s iterable reading a name the comprehension
itself binds later (Python's scope: TileSyntaxError "Undefined variable n used"), an `if` on a
runtime value (TileTypeError), `:=` (TileSyntaxError "Unsupported syntax"). Before, the first
read the enclosing function's variable, and the others were refusals without cuTile's error."""
import pytest

from kernel_util import build, translate


def _first_error(src):
    res = translate(src)
    errs = [d for d in res.diagnostics if d.severity == "error"]
    assert errs, res.diagnostics
    return errs[0]


@pytest.mark.parametrize("fors, name", [
    ("for i in ct.static_iter(range(2)) for m in ct.static_iter(range(m))", "m"),          # its own clause
    ("for i in ct.static_iter(range(2)) for j in ct.static_iter(range(m)) "
     "for m in ct.static_iter(range(3))", "m"),                                            # a later clause
    ("for i in ct.static_iter(range(2)) for j in ct.static_iter((w, 1)) "
     "for w in ct.static_iter((5,))", "w"),                                                # a tuple iterable
])
def test_later_iterable_reads_comprehension_name_unbound(fors, name):
    d = _first_error(f"""
    @ct.kernel
    def k(x):
        m = 3
        w = 4
        t = tuple(i {fors})
        ct.scatter(x, (0,), t[0])
    """)
    assert d.cutile == ("TileSyntaxError", f"Undefined variable {name} used"), d


def test_comprehension_scope_as_python(tmp_path):
    # the first iterable reads the enclosing `m`; a later one a name bound by an earlier clause
    import torch
    mod = build("""
    @ct.kernel
    def k(x):
        m = 3
        t = tuple(m * 10 + j for m in ct.static_iter(range(m)) for j in ct.static_iter(range(m)))
        for q, v in ct.static_iter(enumerate(t)):
            ct.scatter(x, (q,), v)

    def run():
        x = torch.zeros(3, dtype=torch.int32)
        ct.launch(torch.cuda.current_stream(), (1,), k, (x,))
        return x
    """, tmp_path)
    assert mod.run().tolist() == [10, 20, 21]


def test_runtime_if_is_cutiles_type_error():
    d = _first_error("""
    @ct.kernel
    def k(x, flag: bool):
        t = tuple(i for i in ct.static_iter(range(3)) if flag)
        ct.scatter(x, (0,), len(t))
    """)
    assert d.code == "C2T105" and d.cutile[0] == "TileTypeError" \
        and d.cutile[1].startswith("Tuple comprehension if-conditions must be statically known"), d


def test_constant_parameter_if_is_no_cutile_error():
    # (cuTile knows a Constant parameter's value; the translation refuses it without cuTile's error)
    res = translate("""
    @ct.kernel
    def k(x, F: ct.Constant[bool]):
        t = tuple(i for i in ct.static_iter(range(3)) if F)
        ct.scatter(x, (0,), len(t))
    """)
    assert all(d.cutile is None for d in res.diagnostics if d.severity == "error"), res.diagnostics


def test_walrus_is_cutiles_syntax_error():
    d = _first_error("""
    @ct.kernel
    def k(x):
        t = tuple(y for v in ct.static_iter(range(4)) if (y := v + 1) > 2)
        ct.scatter(x, (0,), t[0])
    """)
    assert d.cutile == ("TileSyntaxError", "Unsupported syntax"), d


def test_range_inside_zip_and_enumerate_of_static_iter(tmp_path):
    # ct.static_iter takes any iterable it can evaluate: range() inside zip/enumerate too, in a
    # comprehension and in a for statement (before: C2T103 "`range(...)` is not supported here")
    import torch
    mod = build("""
    @ct.kernel
    def k(x):
        ts = (ct.bid(0) + 1, 5, 7)
        scaled = tuple(w * t for w, t in ct.static_iter(zip(range(2, 8, 2), ts)))
        for q, (w, s) in ct.static_iter(enumerate(zip(range(3), scaled))):
            ct.scatter(x, (q,), s + w * 100)

    def run():
        x = torch.zeros(3, dtype=torch.int32)
        ct.launch(torch.cuda.current_stream(), (1,), k, (x,))
        return x
    """, tmp_path)
    assert mod.run().tolist() == [2, 120, 242]


def test_kernel_in_a_function_does_not_capture_comprehension_names():
    # a kernel defined in a host function: its comprehensions' targets and lambdas' parameters are
    # its own, not values of the function (before: captured, `lambda: (w, t)`, a NameError at launch)
    res = translate("""
    def host(x, y):
        @ct.kernel
        def k(x, y):
            ts = tuple(ct.load(x, (i,), (4,)) for i in ct.static_iter(range(2)))
            out = tuple((lambda v: v * w)(t) for w, t in ct.static_iter(zip(range(1, 3), ts)))
            for q, o in ct.static_iter(enumerate(out)):
                ct.store(y, (q,), o)
        ct.launch(torch.cuda.current_stream(), (1,), k, (x, y))
    """)
    assert res.ok, [d.format() for d in res.diagnostics]
    assert "lambda: ()" in res.code and "lambda: (w" not in res.code, res.code
