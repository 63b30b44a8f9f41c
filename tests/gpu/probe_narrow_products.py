"""GPU probe (not part of the product): which narrow 16-bit products Triton 3.6 computes wrongly on
the H200. The seventeenth session found TileGym's decode attention translated wrong at 16 and 32
query heads per KV head ((TILE_N, D) @ (D, G), then (D, TILE_N) @ (TILE_N, G) in fp16/bf16, which
Triton compiles to warpgroup MMAs with N = G), and right with the products computed transposed;
`_c2t_mma` does that for N = 16 or 32 since (docs/gpu-runs/earlier-runs.tar.xz: splitk-and-sinks-2026-11-30.md section 3).
Left open: N = 64, and whether the bug needs TileGym's kernel at all. Two parts:

A. A hand-written Triton kernel of that decode pattern (no translator code), plain `tl.dot` or
   computed transposed, over G (N), key tile, dtype and a ragged key length; the largest
   difference from torch's fp32 attention. The eighteenth session found its looped form right at
   every G (pipelined: asynchronous warpgroup MMAs); `decode_one_tile` is the single-tile form
   (synchronous MMAs, as in the translated kernel with 128-key splits, which failed). (3-D products are not here: Triton 3.6 compiles them to
   mma.sync, never to warpgroup MMAs: tests/test_semantics.py checks that on the CPU.)
B. The translated decode kernels at 64 query heads per KV head, with `_c2t_mma`'s narrow rule as it
   is (N = 16 or 32: N = 64 as a warpgroup MMA), off, and widened to N = 64; against cuTile's
   original and the spec's fp32 reference.

    source .gpu/setup.sh; export PYTHONPATH=$PWD:$PWD/tests/gpu:$PWD/.corpus/src:$PYTHONPATH
    python tests/gpu/probe_narrow_products.py [--one-tile] [--no-b] [--dtypes float32,float8_e4m3fn]

Part A runs its kernels in child processes: the single-tile kernel at G=16 with the product as a
warpgroup MMA killed the CUDA context (illegal memory access) in the nineteenth session's first
run, and the rest of the probe with it. `--one-tile`: part A's single-tile cases only; `--no-b`:
part A alone; `--dtypes float32,float8_e4m3fn`: other operand types (default fp16 and bf16).

Results: docs/gpu-runs/earlier-runs.tar.xz: fmha-k-descriptor-2026-11-30.md section 2.
"""
import itertools
import math
import sys

import torch
import triton
import triton.language as tl

from probe_entries import child_jobs, entry_modules, gpu_setup, jobs_in_children, tried
from sweep_tilegym_options import _NARROW, variant_code
from translator.harness.loading import load_translated, rebind_cutile_imports, translate


@triton.jit
def decode_pattern(Q, K, V, O, KV, scale, G: tl.constexpr, D: tl.constexpr, TILE_N: tl.constexpr,
                   TRANS: tl.constexpr):
    """One program per (batch, KV head): its G query heads against KV keys, in key tiles of TILE_N,
    keys as rows: qk = k @ q^T is (TILE_N, G), acc = v^T @ p is (D, G), as TileGym's decode does."""
    pid = tl.program_id(0)
    g = tl.arange(0, G)
    d = tl.arange(0, D)
    n = tl.arange(0, TILE_N)
    q = tl.load(Q + pid * G * D + g[:, None] * D + d[None, :])          # (G, D)
    m_i = tl.full([1, G], -float("inf"), tl.float32)
    l_i = tl.zeros([1, G], tl.float32)
    acc = tl.zeros([D, G], tl.float32)
    for start in range(0, KV, TILE_N):
        keys = start + n
        inside = keys < KV
        k = tl.load(K + pid * KV * D + keys[:, None] * D + d[None, :], mask=inside[:, None], other=0.0)
        if TRANS:
            qk = tl.trans(tl.dot(q, tl.trans(k)))
        else:
            qk = tl.dot(k, tl.trans(q))                                   # (TILE_N, G)
        qk = tl.where(inside[:, None], qk * scale, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(qk, axis=0)[None, :])
        p = tl.exp(qk - m_new)
        alpha = tl.exp(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, axis=0)[None, :]
        v = tl.load(V + pid * KV * D + keys[:, None] * D + d[None, :], mask=inside[:, None], other=0.0)
        acc = acc * alpha
        if TRANS:
            acc = acc + tl.trans(tl.dot(tl.trans(p.to(v.dtype)), v))
        else:
            acc = tl.dot(tl.trans(v), p.to(v.dtype), acc)                 # (D, G)
        m_i = m_new
    out = acc / l_i
    tl.store(O + pid * G * D + g[None, :] * D + d[:, None], out)


@triton.jit
def decode_one_tile(Q, K, V, O, KV, scale, G: tl.constexpr, D: tl.constexpr, TILE_N: tl.constexpr,
                    TRANS: tl.constexpr):
    """decode_pattern for KV <= TILE_N, without the loop: as TileGym's attention_sink_decode runs
    with 128-key splits (its tile loop has one trip, unrolled), where Triton's warpgroup MMAs are
    synchronous (no `isAsync` in the TTGIR: nothing to pipeline), while decode_pattern's loop
    makes them asynchronous. The translated kernel at G=16 was wrong with one 128-key tile."""
    pid = tl.program_id(0)
    g = tl.arange(0, G)
    d = tl.arange(0, D)
    n = tl.arange(0, TILE_N)
    q = tl.load(Q + pid * G * D + g[:, None] * D + d[None, :])          # (G, D)
    inside = n < KV
    k = tl.load(K + pid * KV * D + n[:, None] * D + d[None, :], mask=inside[:, None], other=0.0)
    qk = tl.zeros([TILE_N, G], tl.float32)
    if TRANS:
        qk = qk + tl.trans(tl.dot(q, tl.trans(k)))
    else:
        qk = tl.dot(k, tl.trans(q), qk)                                   # (TILE_N, G)
    qk = tl.where(inside[:, None], qk * scale, -float("inf"))
    p = tl.exp(qk - tl.max(qk, axis=0)[None, :])
    v = tl.load(V + pid * KV * D + n[:, None] * D + d[None, :], mask=inside[:, None], other=0.0)
    acc = tl.zeros([D, G], tl.float32)
    if TRANS:
        acc = acc + tl.trans(tl.dot(tl.trans(p.to(v.dtype)), v))
    else:
        acc = tl.dot(tl.trans(v), p.to(v.dtype), acc)                     # (D, G)
    out = acc / tl.sum(p, axis=0)[None, :]
    tl.store(O + pid * G * D + g[None, :] * D + d[:, None], out)


# `--dtypes float32,float8_e4m3fn`: other operand types than the 16-bit ones (fp32 products are
# tf32 warpgroup MMAs, tl.dot's default precision; fp8 ones are 8-bit warpgroup MMAs)
DTYPES = tuple(getattr(torch, d) for d in (sys.argv[sys.argv.index("--dtypes") + 1].split(",")
                                           if "--dtypes" in sys.argv else ("float16", "bfloat16")))


def _cases():
    """(kernel, dtype, G, TILE_N, D, KV): the loop over key tiles at KV 128 and 1000 (ragged), the
    single tile at KV = TILE_N and one ragged KV below it."""
    for dtype, G, tile, D in itertools.product(DTYPES, (8, 16, 32, 64), (64, 128), (128,)):
        for kern, kv in ((decode_pattern, 128), (decode_pattern, 1000), (decode_one_tile, tile),
                         (decode_one_tile, tile - 28)):
            yield kern, dtype, G, tile, D, kv


def _run_case(i, trans):
    """Case i of _cases() (`trans`: the product computed transposed): its line."""
    kern, dtype, G, tile, D, kv = list(_cases())[i]
    heads = 4
    gen = torch.Generator(device="cuda").manual_seed(i)
    q, k, v = (torch.randn(heads, n, D, device="cuda", generator=gen).to(dtype) for n in (G, kv, kv))
    scale = 1 / math.sqrt(D)
    want = torch.softmax(q.float() @ k.float().transpose(1, 2) * scale, -1) @ v.float()
    out = torch.empty(heads, G, D, device="cuda", dtype=torch.float32)
    ptx = kern[(heads,)](q, k, v, out, kv, scale, G=G, D=D, TILE_N=tile, TRANS=trans).asm["ptx"]
    torch.cuda.synchronize()
    form = "wgmma" if "wgmma" in ptx else "mma.sync" if "mma.sync" in ptx else "fma"
    return f"({form}) {(out - want).abs().max().item():.3g}"


def _pairs(only_one_tile):
    """(case index, transposed) of part A's jobs."""
    return [(i, t) for i, c in enumerate(_cases()) for t in (True, False)
            if not only_one_tile or c[0] is decode_one_tile]


def part_a(only_one_tile=False):
    """Each (case, form) in a child process that goes on until a CUDA error ends it (then the
    next child starts after the pair that died: its line says so)."""
    print("## A. hand-written decode pattern: max |difference| from torch fp32 (transposed / as written)")
    pairs = _pairs(only_one_tile)
    argv = [sys.executable, __file__, "--dtypes", ",".join(str(d)[6:] for d in DTYPES)] + \
        (["--one-tile"] if only_one_tile else [])
    results = {pairs[n]: line for n, line in jobs_in_children(argv, len(pairs)).items()}
    for i, (kern, dtype, G, tile, D, kv) in enumerate(_cases()):
        if (i, True) in results or (i, False) in results:
            print(f"{kern.__name__} {str(dtype)[6:]} G={G} TILE_N={tile} D={D} KV={kv} | transposed "
                  f"{results.get((i, True), '-')} | as written {results.get((i, False), '-')}", flush=True)


NARROW = {"as is": lambda c: c, "off": lambda c: c.replace(_NARROW, "M >= 64 and False:"),
          "N<=64": lambda c: c.replace(_NARROW, "M >= 64 and (N == 16 or N == 32 or N == 64):")}
CASES = [("tg_attention_sink_decode", {"B": 1, "Hkv": 1, "G": 64, "KV": 128, "D": 128, "split": 128}),
         ("tg_attention_sink_decode", {"B": 1, "Hkv": 2, "G": 64, "KV": 777, "D": 128, "split": 128}),
         ("tg_attention_sink_decode", {"B": 1, "Hkv": 2, "G": 64, "KV": 777, "D": 64, "split": 128}),
         ("tg_flash_decode", {"B": 2, "Hq": 128, "Hkv": 2, "KV": 1000, "D": 128}),
         ("tg_flash_decode", {"B": 2, "Hq": 64, "Hkv": 1, "KV": 4096, "D": 128})]


def part_b():
    print("## B. translated decode kernels at G=64: max |difference| from the spec's fp32 reference")
    loaded = {}
    for name, case in CASES:
        if name not in loaded:
            _, _, _, path, orig, spec, _ = entry_modules(name)
            code, _ = translate(path)
            assert _NARROW in code, "_c2t_mma changed: update the probe"
            mods = []
            for label, edit in NARROW.items():
                m, _ = load_translated(variant_code(edit(code), None, None, "small"), path)
                rebind_cutile_imports(m)
                mods.append((label, m))
            loaded[name] = (orig, spec, mods)
        orig, spec, mods = loaded[name]
        args = spec.make_args(case, torch.float16, 0, "cuda")
        want = spec.reference(*args)
        want = (want if isinstance(want, torch.Tensor) else want[0]).float()
        line = [name[3:] + " " + " ".join(f"{k}={v}" for k, v in case.items())]
        for label, mod in [("cuTile", orig)] + mods:
            def run():
                got = getattr(mod, spec.entry)(*args)
                got = (got if isinstance(got, torch.Tensor) else got[0]).float()
                torch.cuda.synchronize()
                return f"{(got - want).abs().max().item():.3g}"
            line.append(tried(label, run))
        print(" | ".join(line), flush=True)


if __name__ == "__main__":
    if "--child" in sys.argv:
        pairs = _pairs("--one-tile" in sys.argv)
        child_jobs(lambda n: _run_case(*pairs[n]), len(pairs), int(sys.argv[sys.argv.index("--child") + 1]))
        sys.exit(0)
    gpu_setup()
    torch.manual_seed(0)
    part_a(only_one_tile="--one-tile" in sys.argv)
    if "--no-b" not in sys.argv:
        part_b()
