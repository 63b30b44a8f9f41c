"""Spec for TileGym's cuTile dropout (`tilegym.ops.cutile.dropout.dropout`).

    cd /work/main && PYTHONPATH=/work/main/.corpus/src /work/venv/bin/python -m translator verify \
        .corpus/src/tilegym/ops/cutile/dropout.py --spec tests/gpu/tilegym/dropout_spec.py --mode interp --seeds 0

(`--mode gpu` on a GPU compares with the original and times the bench_cases next to TileGym's
hand-written Triton dropout, `tilegym.ops.triton.dropout.dropout`.)

The entry is TileGym's own `dropout(x, seed, p, training, inplace)`: one program per 1024
elements of x viewed flat. Its keep mask is not random-number-generator state but a
deterministic hash of (element index, seed): the seed is pre-mixed on the host (x 2654435761,
as int32), then combined = index * 1103515245 + seed and three xor-shift rounds, all int32
wrapping; keep where (hash & 0x7fffffff) / 2147483647.0 > p; kept values are x * (1 / (1 - p))
in x's dtype. So the translation is compared element for element (with the original on the GPU,
with `reference`, which recomputes that hash in torch, on the CPU): no statistical test is
needed. Only the peer differs: TileGym's Triton dropout draws with Philox (tl.rand), so its
mask is another one; it is timed, never compared. A second peer runs TileGym's Triton kernel
with USE_PHILOX=False (the same xor-shift hash as cuTile, so the same cost per element).
`training=False` returns x itself; `inplace=True` writes x (compared as a mutated input).
TileGym is never committed: `.corpus/src` is a copy of its `src` folder."""
import torch

import _cpu_cuda

_cpu_cuda.install()      # CPU-only torch (interp mode): stand-ins for torch.cuda queries

C2T_SPEC = {
    "entry": "dropout",
    "reference": "reference",
    "make_args": "make_args",
    "op_class": "elementwise",
    "dtypes": ["float32", "float16", "bfloat16"],
    "cases": [
        {"shape": [3000], "seed": 42, "p": 0.5},                  # 3 programs, the last ragged
        {"shape": [7, 300], "seed": 7, "p": 0.25},                 # 2-D input, scale 4/3 in x's dtype
        {"shape": [2048], "seed": 123456789, "p": 0.5, "inplace": True},
        {"shape": [1000], "seed": 3, "p": 0.9},
        {"shape": [1000], "seed": 3, "p": 1.0},                    # everything dropped
        {"shape": [500], "seed": 1, "p": 0.5, "training": False},   # no launch: x is returned
    ],
    "gpu_cases": [
        {"shape": [1000003], "seed": 42, "p": 0.5},
        {"shape": [333, 4097], "seed": 2024, "p": 0.1},
        {"shape": [1 << 20], "seed": 11, "p": 0.5, "inplace": True},
    ],
    "bench_cases": [
        {"shape": [1 << 20], "seed": 42, "p": 0.5},
        {"shape": [1 << 24], "seed": 42, "p": 0.5},
        {"shape": [1 << 26], "seed": 42, "p": 0.5},
    ],
    "bytes": "bytes_moved",
    "bound": "memory",
    "peers": {"TileGym Triton (Philox)": "tilegym_triton", "TileGym Triton (xor-shift)": "tilegym_triton_hash"},
}


def make_args(case, dtype, seed, device):
    _cpu_cuda.emulate(case)
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(*case["shape"], generator=g).to(dtype).to(device)
    return (x, case["seed"], case["p"], case.get("training", True), case.get("inplace", False))


def _i32(v):
    """int64 tensor -> the int32 value of its low 32 bits (two's complement), kept as int64."""
    v = v & 0xFFFFFFFF
    return torch.where(v >= 1 << 31, v - (1 << 32), v)


def keep_mask(n, seed, p, device="cpu"):
    """The cuTile kernel's keep decision for flat indices 0..n-1 (see the docstring)."""
    mixed = (int(seed) * 2654435761) & 0xFFFFFFFF
    mixed = mixed - (1 << 32) if mixed >= 1 << 31 else mixed
    offs = torch.arange(n, dtype=torch.int64, device=device)
    h = _i32(offs * 1103515245 + mixed)
    h = h ^ (h >> 16)                       # arithmetic shifts of int32 values, as in the kernel
    h = _i32(h ^ _i32(h << 8))
    h = h ^ (h >> 4)
    u = (h & 0x7FFFFFFF).to(torch.float32) / torch.tensor(2147483647.0, dtype=torch.float32, device=device)
    return u > torch.tensor(p, dtype=torch.float32, device=device)


def reference(x, seed, p=0.5, training=True, inplace=False):
    if not training:
        return x
    keep = keep_mask(x.numel(), seed, p, x.device).view(x.shape)
    scale = torch.tensor(0.0 if p >= 1.0 else 1.0 / (1.0 - p), dtype=x.dtype, device=x.device)
    out = torch.where(keep, x * scale, torch.zeros((), dtype=x.dtype, device=x.device))
    if inplace:
        x.copy_(out)
        return x
    return out


def tilegym_triton(x, seed, p=0.5, training=True, inplace=False):
    from tilegym.ops.triton.dropout import dropout
    return dropout(x, seed, p, training, inplace)


def tilegym_triton_hash(x, seed, p=0.5, training=True, inplace=False):
    """TileGym's Triton dropout kernel with USE_PHILOX=False (its cuTile-like hash)."""
    import triton
    from tilegym.ops.triton.dropout import _seeded_dropout
    if not training:
        return x
    out = x if inplace else torch.empty_like(x)
    n = x.numel()
    _seeded_dropout[lambda meta: (triton.cdiv(n, meta["BLOCK_SIZE"]),)](x, out, n, p, seed, USE_PHILOX=False)
    return out


def bytes_moved(case, dtype):
    """x read, the result written (every element, kept or not)."""
    n = 1
    for s in case["shape"]:
        n *= s
    return 2 * n * torch.empty((), dtype=dtype).element_size()
