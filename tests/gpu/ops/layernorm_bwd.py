# SPDX-License-Identifier: Apache-2.0
"""Layer norm over the rows of a 2-D tensor, forward and backward, as one autograd op (issue 37).

    y = (x - mean) * rstd * weight + bias,     rstd = 1 / sqrt(var + eps)
    dx = rstd * (w*dy - xhat * mean(xhat * w*dy) - mean(w*dy)),   xhat = (x - mean) * rstd
    dweight = sum over rows of dy * xhat,      dbias = sum over rows of dy

Three kernels, written for this project in the cuTile style:
- `ln_forward`: ROWS rows per program as one (ROWS, TILE_N) tile (the whole row), saving the
  float32 mean and rstd of each row;
- `ln_backward`: a grid-stride loop of GROUPS programs over the rows, each writing dx for its
  rows and keeping its share of dweight/dbias in float32 registers, stored as one row of the
  (GROUPS, N) partial buffers;
- `ln_partials_sum`: the partials summed over the groups, one program per column tile.
`LayerNormOp` (a torch.autograd.Function) launches them; the spec's entry `layernorm_train` runs
forward and backward (`y.backward(dy)`) and returns y and the three gradients, so that the bench
times the whole op as a training step calls it.
"""
import torch

import cuda.tile as ct

ConstInt = ct.Constant[int]
ZERO = ct.PaddingMode.ZERO

GROUPS = 256          # backward programs at most (the rows of the dweight/dbias partial buffers)
SUM_ROWS = 32         # partial rows summed per step in ln_partials_sum
SUM_COLS = 256        # columns per program in ln_partials_sum


@ct.kernel
def ln_forward(x, weight, bias, y, mean_out, rstd_out, eps, ROWS: ConstInt, TILE_N: ConstInt):
    blk = ct.bid(0)
    n = x.shape[1]
    xt = ct.astype(ct.load(x, index=(blk, 0), shape=(ROWS, TILE_N), padding_mode=ZERO), ct.float32)
    inside = ct.arange(TILE_N, dtype=ct.int32)[None, :] < n
    mu = ct.sum(xt, axis=1, keepdims=True) / n                      # (ROWS, 1)
    xc = ct.where(inside, xt - mu, 0.0)
    rs = ct.rsqrt(ct.sum(xc * xc, axis=1, keepdims=True) / n + eps)
    w = ct.astype(ct.load(weight, index=(0,), shape=(TILE_N,), padding_mode=ZERO), ct.float32)
    b = ct.astype(ct.load(bias, index=(0,), shape=(TILE_N,), padding_mode=ZERO), ct.float32)
    out = xc * rs * w[None, :] + b[None, :]
    ct.store(y, index=(blk, 0), tile=ct.astype(out, y.dtype))
    ct.store(mean_out, index=(blk,), tile=ct.reshape(mu, (ROWS,)))
    ct.store(rstd_out, index=(blk,), tile=ct.reshape(rs, (ROWS,)))


@ct.kernel
def ln_backward(dy, x, weight, mean, rstd, dx, dw_part, db_part, TILE_N: ConstInt):
    g = ct.bid(0)
    n_groups = ct.num_blocks(0)
    m = x.shape[0]
    n = x.shape[1]
    inside = ct.arange(TILE_N, dtype=ct.int32)[None, :] < n
    w = ct.astype(ct.load(weight, index=(0,), shape=(TILE_N,), padding_mode=ZERO), ct.float32)[None, :]
    acc_w = ct.zeros((1, TILE_N), dtype=ct.float32)
    acc_b = ct.zeros((1, TILE_N), dtype=ct.float32)
    for r in range(g, m, n_groups):
        xt = ct.astype(ct.load(x, index=(r, 0), shape=(1, TILE_N), padding_mode=ZERO), ct.float32)
        gt = ct.astype(ct.load(dy, index=(r, 0), shape=(1, TILE_N), padding_mode=ZERO), ct.float32)
        mu = ct.load(mean, index=(r,), shape=(1,))[:, None]
        rs = ct.load(rstd, index=(r,), shape=(1,))[:, None]
        xhat = ct.where(inside, (xt - mu) * rs, 0.0)
        wg = gt * w
        c1 = ct.sum(xhat * wg, axis=1, keepdims=True) / n
        c2 = ct.sum(wg, axis=1, keepdims=True) / n
        ct.store(dx, index=(r, 0), tile=ct.astype((wg - xhat * c1 - c2) * rs, dx.dtype))
        acc_w = acc_w + gt * xhat
        acc_b = acc_b + gt
    ct.store(dw_part, index=(g, 0), tile=acc_w)
    ct.store(db_part, index=(g, 0), tile=acc_b)


@ct.kernel
def ln_partials_sum(dw_part, db_part, dw, db, SUM_M: ConstInt, SUM_N: ConstInt):
    col = ct.bid(0)
    steps = ct.num_tiles(dw_part, axis=0, shape=(SUM_M, SUM_N))
    sw = ct.zeros((SUM_M, SUM_N), dtype=ct.float32)
    sb = ct.zeros((SUM_M, SUM_N), dtype=ct.float32)
    for i in range(steps):
        sw += ct.load(dw_part, index=(i, col), shape=(SUM_M, SUM_N), padding_mode=ZERO)
        sb += ct.load(db_part, index=(i, col), shape=(SUM_M, SUM_N), padding_mode=ZERO)
    ct.store(dw, index=(col,), tile=ct.astype(ct.sum(sw, axis=0), dw.dtype))
    ct.store(db, index=(col,), tile=ct.astype(ct.sum(sb, axis=0), db.dtype))


def _pow2_at_least(n: int) -> int:
    return 1 << max(n - 1, 0).bit_length()


def _cdiv(a: int, b: int) -> int:
    return (a + b - 1) // b


class LayerNormOp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias, eps):
        x2 = x.reshape(-1, x.shape[-1]).contiguous()
        m, n = x2.shape
        tile_n = _pow2_at_least(n)
        rows = max(1, min(16, 4096 // tile_n))
        y = torch.empty_like(x2)
        mean = torch.empty((m,), dtype=torch.float32, device=x.device)
        rstd = torch.empty((m,), dtype=torch.float32, device=x.device)
        ct.launch(torch.cuda.current_stream(), (_cdiv(m, rows),), ln_forward,
                  (x2, weight, bias, y, mean, rstd, eps, rows, tile_n))
        ctx.save_for_backward(x2, weight, mean, rstd)
        return y.reshape(x.shape)

    @staticmethod
    def backward(ctx, grad_y):
        x2, weight, mean, rstd = ctx.saved_tensors
        m, n = x2.shape
        tile_n = _pow2_at_least(n)
        dy = grad_y.reshape(m, n).contiguous()
        dx = torch.empty_like(x2)
        groups = min(GROUPS, _cdiv(m, 4))       # at least 4 rows per group
        dw_part = torch.empty((groups, n), dtype=torch.float32, device=x2.device)
        db_part = torch.empty((groups, n), dtype=torch.float32, device=x2.device)
        ct.launch(torch.cuda.current_stream(), (groups,), ln_backward, (dy, x2, weight, mean, rstd, dx, dw_part, db_part, tile_n))
        dw = torch.empty_like(weight)
        db = torch.empty_like(weight)
        ct.launch(torch.cuda.current_stream(), (_cdiv(n, SUM_COLS),), ln_partials_sum, (dw_part, db_part, dw, db, SUM_ROWS, SUM_COLS))
        return dx.reshape(grad_y.shape), dw, db, None


def layernorm_train(x, weight, bias, dy, eps):
    """One training step's layer norm: forward, then backward from dy. Returns (y, dx, dw, db)."""
    x = x.detach().requires_grad_()
    weight = weight.detach().requires_grad_()
    bias = bias.detach().requires_grad_()
    y = LayerNormOp.apply(x, weight, bias, eps)
    y.backward(dy)
    return y.detach(), x.grad, weight.grad, bias.grad


def layernorm_train_reference(x, weight, bias, dy, eps):
    xf = x.detach().float().requires_grad_()
    wf = weight.detach().float().requires_grad_()
    bf = bias.detach().float().requires_grad_()
    y = torch.nn.functional.layer_norm(xf, (x.shape[-1],), wf, bf, eps)
    y.backward(dy.float())
    return y.detach().to(x.dtype), xf.grad.to(x.dtype), wf.grad.to(weight.dtype), bf.grad.to(bias.dtype)


def make_args(case: dict, dtype: torch.dtype, seed: int, device: str):
    g = torch.Generator().manual_seed(seed)
    m, n = case["M"], case["N"]
    x = -0.7 + 1.5 * torch.randn(m, n, generator=g)
    w = 1.0 + 0.2 * torch.randn(n, generator=g)
    b = 0.1 * torch.randn(n, generator=g)
    dy = 0.5 * torch.randn(m, n, generator=g)
    return tuple(t.to(dtype).to(device) for t in (x, w, b, dy)) + (1e-5,)


def bytes_moved(case: dict, dtype: torch.dtype) -> int:
    """Forward: x read, y written; backward: x and dy read, dx written (weight, bias, the row
    statistics and the float32 partials are small next to these)."""
    elem = torch.empty((), dtype=dtype).element_size()
    return 5 * case["M"] * case["N"] * elem


C2T_SPEC = {
    "entry": "layernorm_train",
    "reference": "layernorm_train_reference",
    "make_args": "make_args",
    "op_class": "reduction",
    "dtypes": ["float32", "bfloat16"],
    # float32 dweight/dbias are sums over all M rows, accumulated per group in another order than
    # the reference's (and cuTile's tiles need not match Triton's): at M = 16384 their rounding
    # differs by about 1e-4 absolute, above the reduction row's 1e-5 where a sum is near zero
    "tolerance": {"float32": [1e-4, 1e-3]},
    "cases": [{"M": 5, "N": 37}, {"M": 40, "N": 64}, {"M": 3, "N": 300}, {"M": 70, "N": 24}],
    "gpu_cases": [{"M": 777, "N": 4000}],
    "bench_cases": [{"M": 4096, "N": 4096}, {"M": 16384, "N": 8192}],
    "bytes": "bytes_moved",
    "bound": "memory",
}
