"""A tile cast to tfloat32 in one branch of an `if` on a Constant (or a dtype test), and products
in a helper that several kernels call: the precision of the products and the launchers' dot
sizing after them."""
import torch

from kernel_util import build, codes, compile_sm90, translate

# a helper that casts fp32 operands to tfloat32 in an `if` on their dtype, then multiplies
_HELPER = """
def mul(a, b):
    if a.dtype == ct.float32:
        a = ct.astype(a, ct.tfloat32)
    if b.dtype == ct.float32:
        b = ct.astype(b, ct.tfloat32)
    return ct.matmul(a, b)

@ct.kernel
def first(x, y, z, T: ConstInt):
    a = ct.load(x, index=(0, 0), shape=(T, T))
    b = ct.load(y, index=(0, 0), shape=(T, T))
    ct.store(z, index=(0, 0), tile=mul(a, b))

@ct.kernel
def second(x, y, z, T: ConstInt):
    a = ct.load(x, index=(0, 0), shape=(T, T))
    b = ct.load(y, index=(0, 0), shape=(T, T))
    ct.store(z, index=(0, 0), tile=mul(a, b) * 2.0)

def run(x, y):
    z1 = torch.empty((64, 64), dtype=torch.float32)
    z2 = torch.empty((64, 64), dtype=torch.float32)
    ct.launch(torch.cuda.current_stream(), (1,), first, (x, y, z1, 64))
    ct.launch(torch.cuda.current_stream(), (1,), second, (x, y, z2, 64))
    return z1, z2
"""


def _helper_body(code: str, name: str) -> str:
    return code.split(f"def {name}(")[1].split("\n\n\n")[0]


def test_cast_in_one_branch_of_a_dtype_if_keeps_the_tf32_product():
    """Before: the `if` dropped the body's tf32-ness (the other path's was kept), and the product
    ran at full fp32 precision ("ieee": FMA units, no tensor cores) where cuTile's is tf32."""
    res = translate(_HELPER)
    assert res.ok, [d.format() for d in res.diagnostics]
    body = _helper_body(res.code, "mul")
    # the branch rebinds `a`, which its condition reads: the condition is bound before the `if`
    assert "_c2t_tf32_0: tl.constexpr = a.dtype == tl.float32" in body
    assert "_c2t_tf32_1: tl.constexpr = b.dtype == tl.float32" in body
    assert '"tf32" if _c2t_tf32_0 or _c2t_tf32_1 else "ieee"' in body
    assert '_c2t_matmul(a, b, "ieee"' not in body


def test_cast_in_the_else_branch_of_a_constant_if_is_tf32_only_there():
    """Before: the else branch's tf32-ness was kept for both paths (a tf32 product where cuTile
    multiplies at full fp32 precision). Its condition's names are not rebound: used as it is."""
    res = translate("""
    @ct.kernel
    def k(x, z, T: ConstInt, EXACT: ct.Constant[bool]):
        a = ct.load(x, index=(0, 0), shape=(T, T))
        if EXACT:
            q = a
        else:
            q = ct.astype(a, ct.tfloat32)
        ct.store(z, index=(0, 0), tile=ct.matmul(q, q))
    """)
    assert res.ok, [d.format() for d in res.diagnostics]
    body = res.code.split("def k(")[1]
    assert "_c2t_tf32_" not in body
    assert '_c2t_matmul(q, q, "tf32" if not (EXACT) else "ieee"' in body



def test_the_tf32_helper_product_runs_under_the_interpreter(tmp_path):
    mod = build(_HELPER, tmp_path)
    x, y = torch.randn(64, 64), torch.eye(64)
    z1, z2 = mod.run(x, y)
    # times the identity: the tf32-rounded x (to nearest even, cuTile's cast), both kernels
    b = x.view(torch.int32).to(torch.int64) & 0xFFFFFFFF
    want = ((b + 0xFFF + ((b >> 13) & 1)) & 0xFFFFE000).to(torch.int32).view(torch.float32)
    assert torch.equal(z1, want)
    assert torch.equal(z2, want * 2)


def test_tf32_helper_products_compile_to_tensor_core_mmas(tmp_path):
    """On sm_90 the products are warpgroup MMAs (before: FMA loops, no wgmma), in both kernels."""
    out = compile_sm90(_HELPER, "run", "(torch.randn(64, 64), torch.randn(64, 64))", tmp_path)
    lines = [ln for ln in out.splitlines() if ln.startswith("OK ")]
    assert len(lines) == 2, out
    assert all("wgmma=True" in ln for ln in lines), out


def test_a_helper_with_products_makes_every_calling_kernel_a_dot_kernel():
    """The helper's plan is lowered once, for the first kernel; the second kernel's launcher sized
    its warps as a kernel without products (dot=False) and passed no num_stages."""
    res = translate(_HELPER)
    assert res.ok
    for name in ("first", "second"):
        launcher = res.code.split(f"def launch_{name}(")[1].split("\n\n\n")[0]
        assert "dot=True" in launcher, name
        assert "num_stages=" in launcher, name


def test_cast_in_a_branch_rebinding_its_condition_inside_static_iter_is_refused():
    assert "C2T103" in codes("""
    @ct.kernel
    def k(x, z, T: ConstInt):
        a = ct.load(x, index=(0, 0), shape=(T, T))
        acc = ct.zeros((T, T), dtype=ct.float32)
        for i in ct.static_iter(range(2)):
            if a.dtype == ct.float32:
                a = ct.astype(a, ct.tfloat32)
            acc = acc + ct.matmul(a, a)
        ct.store(z, index=(0, 0), tile=acc)
    """)
