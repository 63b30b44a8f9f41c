"""cuTile programs with chains of products, shared by the narrow-product tests
(tests/test_product_operands.py) and the GPU probe probe_fp8_chain.py (kept in earlier-runs.tar.xz;
docs/decisions/010-narrow-products-transposed.md). Sources without
the header: kernel_util.HEADER (imports, `ConstInt`) goes first."""

# TileGym's decode pattern, one tile: qk = k @ q (B loaded), p from qk, acc = v^T @ p (B from a
# product): a chain, both unmarked
DECODE = """
@ct.kernel
def k(Q, K, V, O, G: ConstInt, D: ConstInt, N: ConstInt):
    q = ct.load(Q, index=(0, 0), shape=(D, G))
    kt = ct.load(K, index=(0, 0), shape=(N, D))
    qk = ct.mma(kt, q, ct.zeros((N, G), dtype=ct.float32))
    p = ct.exp(qk - ct.max(qk, axis=0, keepdims=True))
    vt = ct.load(V, index=(0, 0), shape=(D, N))
    acc = ct.mma(vt, p.astype(V.dtype), ct.zeros((D, G), dtype=ct.float32))
    ct.store(O, index=(0, 0), tile=acc / ct.sum(p, axis=0, keepdims=True))

def run(q, kk, v):
    o = torch.empty((v.shape[0], q.shape[1]), dtype=torch.float32, device=q.device)
    ct.launch(torch.cuda.current_stream(), (1,), k, (q, kk, v, o, q.shape[1], q.shape[0], kk.shape[0]))
    return o
"""
