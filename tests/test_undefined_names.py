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
    assert d.cutile == ("TileSyntaxError", "Undefined variable m used")   # cuTile always says "used" (_passes/ast2hir.py)


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


def test_local_read_before_its_first_assignment_is_undefined():
    # on the first iteration `total` is not bound yet (cuTile: "Undefined variable total used")
    d = _c2t103("""
    @ct.kernel
    def k(x, n: int, T: ConstInt):
        for i in range(n):
            total = ct.load(x, index=(i,), shape=(T,)) + total
        ct.store(x, index=(0,), tile=total)
    """)
    assert d.cutile == ("TileSyntaxError", "Undefined variable total used")


def test_local_read_in_the_other_branch_is_undefined():
    d = _c2t103("""
    @ct.kernel
    def k(x, T: ConstInt):
        if ct.bid(0) > 1:
            s = ct.load(x, index=(0,), shape=(T,))
        else:
            s = s * 2
        ct.store(x, index=(0,), tile=s)
    """)
    assert d.cutile == ("TileSyntaxError", "Undefined variable s used")


def test_name_bound_by_one_branch_and_read_after_the_if_is_potentially_undefined():
    d = _c2t103("""
    @ct.kernel
    def k(x, y, T: ConstInt):
        t = ct.load(x, index=(0,), shape=(T,))
        if ct.bid(0) == 0:
            extra = ct.load(y, index=(0,), shape=(T,))
        t = t + extra
        ct.store(x, index=(0,), tile=t)
    """)
    assert d.cutile == ("TileTypeError", "Use of potentially undefined variable `extra`")


def test_name_bound_by_one_branch_is_fine_unread_or_where_the_other_path_returns():
    from kernel_util import translate
    for src in ("""
    @ct.kernel
    def k(x, T: ConstInt):
        t = ct.load(x, index=(0,), shape=(T,))
        if ct.bid(0) == 0:
            u = t * 3
            t = u + 1
        ct.store(x, index=(0,), tile=t)
    """, """
    @ct.kernel
    def k(x, T: ConstInt):
        if ct.bid(0) == 0:
            u = ct.load(x, index=(0,), shape=(T,))
        else:
            return
        ct.store(x, index=(0,), tile=u + 1)
    """):
        res = translate(src)
        assert res.ok, [d.format() for d in res.diagnostics]
