"""A name bound to different enum members or dtypes on the paths through a run-time `if` or loop
has no translation-time value: it is refused where read (the translation kept one branch's
member: `print(val == WEAK)` printed True on every path). An enum member that differs between an
`if`'s branches is cuTile's TileTypeError ("Type of `val` depends on path taken: ..."), which
the shim raises with the user's line numbers. The same member on both paths, a Constant
condition, and a name not read after the `if` are translated."""
from kernel_util import build, translate
from test_shim import _run, _script


def _errors(src):
    return [d for d in translate(src).diagnostics if d.severity == "error"]


def test_an_enum_member_chosen_at_run_time_is_cutiles_error():
    errors = _errors("""
    @ct.kernel
    def k(x):
        pad = ct.PaddingMode.NAN
        if ct.bid(0) > 2:
            pad = ct.PaddingMode.ZERO
        t = ct.load(x, (0,), (4,), padding_mode=pad)
    """)
    assert [d.code for d in errors] == ["C2T105"] and errors[0].line == 11, [d.format() for d in errors]
    assert errors[0].cutile == ("TileTypeError", "Type of `pad` depends on path taken: <enum constant "
                                "PaddingMode.NAN> (line 8) vs. <enum constant PaddingMode.ZERO> (line 10)")


def test_a_dtype_chosen_at_run_time_or_by_a_loop_is_refused():
    errors = _errors("""
    @ct.kernel
    def k(x, n):
        dt = ct.float16
        for i in range(n):
            dt = ct.float32
        ct.scatter(x, 0, ct.astype(1, dt))
    """)
    assert [d.code for d in errors] == ["C2T105"] and errors[0].cutile is None, [d.format() for d in errors]
    assert "`dt` is a different dtype on each path through this loop" in errors[0].message


def test_values_one_per_translation_are_translated(tmp_path):
    mod = build("""
    @ct.kernel
    def k(x, y, FLAG: ConstInt):
        if ct.bid(0) == 0:
            order = ct.MemoryOrder.RELAXED
            unused = ct.MemoryScope.BLOCK
        else:
            order = ct.MemoryOrder.RELAXED
            unused = ct.MemoryScope.SYS
        if FLAG:
            dt = ct.int32
        else:
            dt = ct.float32
        t = ct.load(x, (0,), (4,), memory_order=order, memory_scope=ct.MemoryScope.DEVICE)
        ct.store(y, (0,), ct.astype(t, dt))

    def run(x, flag):
        y = torch.zeros(4, dtype=torch.float32)
        ct.launch(torch.cuda.current_stream(), (1,), k, (x, y, flag))
        return y
    """, tmp_path)
    import torch
    x = torch.tensor([1.5, 2.5, -3.5, 4.0])
    assert mod.run(x, 0).tolist() == x.tolist()
    assert mod.run(x, 1).tolist() == [1.0, 2.0, -3.0, 4.0]


SHIM = """
import torch
import cuda.tile as ct


@ct.kernel
def k(x):
    if ct.bid(0) == 0:
        val = ct.MemoryOrder.ACQUIRE
    else:
        val = ct.MemoryOrder.RELAXED
    ct.scatter(x, 0, 1 if val == ct.MemoryOrder.RELAXED else 2)


try:
    ct.launch(torch.cuda.current_stream(), (2,), k, (torch.zeros(1, dtype=torch.int32),))
except ct.TileTypeError as e:
    assert str(e) == ("Type of `val` depends on path taken: <enum constant MemoryOrder.RELAXED> (line 11) "
                      "vs. <enum constant MemoryOrder.ACQUIRE> (line 9)"), e
else:
    raise AssertionError("launched")
print("RESULT OK")
"""


def test_the_shim_raises_it_with_the_users_lines(tmp_path):
    r = _run([str(_script(tmp_path, "pathdep.py", SHIM))], tmp_path)
    assert r.returncode == 0 and "RESULT OK" in r.stdout, r.stdout[-3000:] + r.stderr[-3000:]
