"""A name kernel code reads that nothing binds (no module global, import, def or local, not a
builtin) is cuTile's TileSyntaxError "Undefined variable" (the shim raises it from ct.launch);
a module global the translator cannot use stays a plain C2T103."""
from kernel_util import translate


def _c2t103(src):
    res = translate(src)
    assert not res.ok
    d = [d for d in res.diagnostics if d.code == "C2T103"]
    assert d, [x.format() for x in res.diagnostics]
    return d[0]


def test_unbound_name_is_cutiles_undefined_variable():
    d = _c2t103("""
    @ct.kernel
    def k(x):
        t = tuple(i + j for i in range(3) for j in range(m))
        ct.scatter(x, (0,), t[0])
    """)
    assert d.cutile == ("TileSyntaxError", "Undefined variable m")


def test_unusable_module_global_is_not_undefined():
    d = _c2t103("""
    TABLE = torch.zeros(4)

    @ct.kernel
    def k(x):
        ct.scatter(x, (0,), TABLE)
    """)
    assert d.cutile is None and "`TABLE` is not defined for kernel code" in d.message


def test_names_a_with_or_try_may_bind_are_not_claimed_undefined():
    d = _c2t103("""
    with open(__file__) as m:
        pass

    @ct.kernel
    def k(x):
        ct.scatter(x, (0,), m + 1)
    """)
    assert d.cutile is None
