"""0-D arrays (a 0-d tensor's one element) in every rank-generic memory op, and their neighbours
(1-D..4-D arrays at scalar indices): the helpers' parameter lists and calls join per-axis pieces,
which for rank 0 are empty (issue 33 item 5: `_c2t_gather_0d(base, , , mask, ...)` was emitted)."""
import ast

import torch

from kernel_util import build, compile_sm90, translate

ZERO_D = """
@ct.kernel
def k(g, out, h, c, o2, lo):
    a = ct.gather(g, (), check_bounds=False)
    b = ct.gather(g, ())
    m = ct.gather(g, (), mask=ct.bid(0) > 5, padding_value=7.0)      # masked off: 7
    s = ct.load(g, index=(), shape=())
    ct.store(out, index=(), tile=a + b + m + s)
    ct.scatter(h, (), s * 2.0)
    ct.scatter(h, (), 99.0, mask=ct.bid(0) > 5)                        # masked off: no store
    ct.atomic_add(h, (), 1.0)
    old = ct.atomic_cas(c, (), 0, 5)
    ct.atomic_max(c, (), 3, check_bounds=False)
    r = ct.load(c, (), shape=(), memory_order=ct.MemoryOrder.ACQUIRE, memory_scope=ct.MemoryScope.DEVICE)
    ct.store(o2, (), old + r, memory_order=ct.MemoryOrder.RELEASE, memory_scope=ct.MemoryScope.DEVICE)
    ct.scatter(lo, (), ct.atomic_xchg(lo, (), 4))

def run(g, out, h, c, o2, lo):
    ct.launch(torch.cuda.current_stream(), (1,), k, (g, out, h, c, o2, lo))
"""

ARGS = ("torch.tensor(1.5), torch.tensor(0.0), torch.tensor(0.0), torch.tensor(0, dtype=torch.int32), "
        "torch.tensor(0, dtype=torch.int32), torch.tensor(2, dtype=torch.int32)")


def _zero_d_args():
    return (torch.tensor(1.5), torch.tensor(0.0), torch.tensor(0.0), torch.tensor(0, dtype=torch.int32),
            torch.tensor(0, dtype=torch.int32), torch.tensor(2, dtype=torch.int32))


def test_zero_d_ops_are_valid_python():
    res = translate(ZERO_D)
    assert res.ok, [d.format() for d in res.diagnostics]
    ast.parse(res.code)
    assert ", ," not in res.code and "(, " not in res.code


def test_zero_d_ops_interp(tmp_path):
    m = build(ZERO_D, tmp_path)
    g, out, h, c, o2, lo = _zero_d_args()
    m.run(g, out, h, c, o2, lo)
    assert out.item() == 1.5 * 3 + 7.0
    assert h.item() == 3.0 + 1.0
    assert c.item() == 5            # cas 0 -> 5, then max(5, 3)
    assert o2.item() == 0 + 5       # old (0) + acquire-loaded 5
    assert lo.item() == 2           # xchg returned the old 2, scattered back


def test_zero_d_ops_compile_sm90(tmp_path):
    out = compile_sm90(ZERO_D, "run", ARGS, tmp_path)
    assert "OK k" in out


ZERO_D_HELPER = """
def twice(a):
    return ct.gather(a, ()) * 2.0

def put(a, v):
    ct.scatter(a, (), v)

@ct.kernel
def k(g, out):
    put(out, twice(g) + ct.load(g, (), shape=()))

def run(g, out):
    ct.launch(torch.cuda.current_stream(), (1,), k, (g, out))
"""


def test_zero_d_array_through_device_functions(tmp_path):
    m = build(ZERO_D_HELPER, tmp_path)
    g, out = torch.tensor(2.0), torch.tensor(0.0)
    m.run(g, out)
    assert out.item() == 6.0
    assert "OK k" in compile_sm90(ZERO_D_HELPER, "run", "torch.tensor(2.0), torch.tensor(0.0)", tmp_path)


# Neighbours: scalar indices into 1-D..4-D arrays, check_bounds both ways, masks.
NEIGHBOURS = """
@ct.kernel
def k(a1, a2, a3, a4, out, n):
    i = ct.bid(0)
    v1 = ct.gather(a1, i, check_bounds=False)
    v2 = ct.gather(a2, (i, 1))
    v3 = ct.gather(a3, (0, i, 1), mask=i < n, padding_value=-1.0)
    v4 = ct.gather(a4, (1, 0, i, 1), check_bounds=True)
    far = ct.gather(a2, (i, 100))                                # out of bounds: 0
    ct.scatter(out, (i, 0), v1, check_bounds=False)
    ct.scatter(out, (i, 1), v2 + far)
    ct.scatter(out, (i, 2), v3, mask=i < n)
    ct.scatter(out, (i, 3), v4)
    ct.scatter(out, (i, 50), 1.0)                                # out of bounds: dropped
    ct.atomic_add(a4, (1, 0, i, 1), 1.0)
    ct.atomic_add(a3, (0, i, 9), 1.0)                            # out of bounds: nothing

def run(a1, a2, a3, a4, out, n):
    ct.launch(torch.cuda.current_stream(), (a1.shape[0],), k, (a1, a2, a3, a4, out, n))
"""
NB_ARGS = ("torch.arange(4.0), torch.arange(8.0).reshape(4, 2), torch.arange(8.0).reshape(1, 4, 2), "
           "torch.arange(16.0).reshape(2, 1, 4, 2), torch.zeros(4, 4), 3")


def test_scalar_index_neighbours_interp(tmp_path):
    m = build(NEIGHBOURS, tmp_path)
    a1, a2 = torch.arange(4.0), torch.arange(8.0).reshape(4, 2)
    a3, a4 = torch.arange(8.0).reshape(1, 4, 2), torch.arange(16.0).reshape(2, 1, 4, 2)
    a4_0, a3_0 = a4.clone(), a3.clone()
    out = torch.zeros(4, 4)
    m.run(a1, a2, a3, a4, out, 3)
    want = torch.stack([a1, a2[:, 1], a3_0[0, :, 1], a4_0[1, 0, :, 1]], 1)
    want[3, 2] = 0.0                # masked scatter: not stored
    assert torch.equal(out, want)
    assert torch.equal(a4[1, 0, :, 1], a4_0[1, 0, :, 1] + 1)
    assert torch.equal(a3, a3_0)


def test_scalar_index_neighbours_compile_sm90(tmp_path):
    assert "OK k" in compile_sm90(NEIGHBOURS, "run", NB_ARGS, tmp_path)


# Reductions of a 0-D tile (found by the differential fuzzer, docs/fuzz-2026-12-02.md: tl.sum /
# tl.max / tl.reduce reject a scalar, "'dtype' object has no attribute 'numel'"): the tile is its
# own sum, max, min and product, with keepdims or not; a bool sums to int32.
REDUCE_0D = """
@ct.kernel
def k(g, gi, out, outi, outb):
    v = ct.gather(g, ())
    a = ct.sum(v) + ct.max(v, axis=None) + ct.min(v, axis=None, keepdims=True) + ct.prod(v, axis=None)
    ct.scatter(out, (), a + ct.sum(v, axis=None, keepdims=True))
    w = ct.gather(gi, ())
    ct.scatter(outi, (), ct.max(w, axis=None) * ct.prod(w) - ct.min(w, axis=None))
    ct.scatter(outb, (), ct.sum(v > 1.0) + ct.sum(v > 2.0))

def run(g, gi, out, outi, outb):
    ct.launch(torch.cuda.current_stream(), (1,), k, (g, gi, out, outi, outb))
"""
REDUCE_0D_ARGS = ("torch.tensor(1.5), torch.tensor(-3, dtype=torch.int16), torch.tensor(0.0), "
                  "torch.tensor(0, dtype=torch.int16), torch.tensor(0, dtype=torch.int32)")


def test_zero_d_reductions_interp(tmp_path):
    m = build(REDUCE_0D, tmp_path)
    out, outi, outb = torch.tensor(0.0), torch.tensor(0, dtype=torch.int16), torch.tensor(0, dtype=torch.int32)
    m.run(torch.tensor(1.5), torch.tensor(-3, dtype=torch.int16), out, outi, outb)
    assert out.item() == 1.5 * 5
    assert outi.item() == (-3) * (-3) - (-3)
    assert outb.item() == 1


def test_zero_d_reductions_compile_sm90(tmp_path):
    out = compile_sm90(REDUCE_0D, "run", REDUCE_0D_ARGS, tmp_path)
    assert "OK k" in out
