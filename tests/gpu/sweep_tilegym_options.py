"""GPU experiment (not part of the product): time launch-option variants (num_warps, num_stages,
TMA descriptors) of a translated TileGym op against its cuTile original, per bench case, to choose
what the translator should emit. Each variant's output is checked against the original's.

    python tests/gpu/sweep_tilegym_options.py mla_decoding:2 flash_decode:0,2 --warps 4,8 --stages 2,3,4 --tma off,auto
    python tests/gpu/sweep_tilegym_options.py matmul:0,1 bmm:0 --ctas 0,1,2
    python tests/gpu/sweep_tilegym_options.py mla_decoding:2 flash_decode:2 --spill on,off
    python tests/gpu/sweep_tilegym_options.py flash_decode:0 --warps 0,4 --stages 0,2 --graph
    python tests/gpu/sweep_tilegym_options.py bmm:0,2 matmul:1 --loops plain,flatten,flatten_ws --ctas 1,2 --graph
    python tests/gpu/sweep_tilegym_options.py liger_tvd:0 --warps 0,4,16 --tma off,auto --graph
    python tests/gpu/sweep_tilegym_options.py liger_tvd:0 --warps 0,16 --maxnreg 0,80 --graph
    python tests/gpu/sweep_tilegym_options.py softmax:4,5 --dtype bfloat16 --occupancy on,off --graph
    python tests/gpu/sweep_tilegym_options.py splitk_reduce --dtype float32 --mma 2d,3d,dot --graph
    python tests/gpu/sweep_tilegym_options.py flash_decode:4 attention_sink_decode:4 --narrow on,all,off --graph
    python tests/gpu/sweep_tilegym_options.py attention_sink:0,1 --tma small,host --launch fast,slow --graph
    python tests/gpu/sweep_tilegym_options.py mla_decoding_split_kv:0,2 geglu:0 --index nonneg,python --graph

`--ctas`: 1 (the translator's default) launches with what cuTile's num_ctas hints ask for (Triton's
num_ctas, a CTA cluster); 0 drops the hints; 2 forces `num_ctas=2` on dot kernels whose largest
tile has at least 256x256 elements (and drops the hints). `--spill on` is the translator's default:
a dot kernel that spills registers is compiled again with one stage less or twice the warps
(docs/gpu-runs/earlier-runs.tar.xz: host-and-loops-2026-11-29.md section 6 has the ptxas spill table). `--occupancy on`
is the translator's default too: a kernel without dots whose registers fit one program per SM is
compiled again with a cap that fits two, where that does not spill.

`op:i,j` picks bench cases i, j of tests/gpu/tilegym/<op>_spec.py (all when omitted); the first
dtype of the spec is used, or --dtype. TileGym is read from $TILEGYM_SRC (default .corpus/src)."""
import argparse
import itertools
import os
import re
import sys

import torch
from triton.testing import do_bench

sys.path.insert(0, ".")
SRC = os.environ.get("TILEGYM_SRC", ".corpus/src")
sys.path.insert(0, SRC)
from translator.harness.bench import graph_time_ms  # noqa: E402
from translator.harness.loading import load_module, load_translated, rebind_cutile_imports, translate  # noqa: E402
from translator.harness.runner import clone_args  # noqa: E402
from translator.harness.spec import load_spec, torch_dtype  # noqa: E402
from translator.harness.verify import make_args, raise_cutile_compiler_timeout, set_cuda_allocator  # noqa: E402


# `--loops`: how a kernel's grid-stride loop (`for t in range(start, end, step):`, a persistent
# schedule) is written. plain: as translated; flatten: `tl.range(..., flatten=True)`, which lets
# Triton fuse it with the K loop inside and pipeline across output tiles (Triton's persistent
# matmul tutorial); flatten_ws: also `warp_specialize=True`; ws: `warp_specialize=True` on the grid-stride
# loop alone; ws_k: on the one-argument loops (a GEMM's K loop) instead; ws_kv: on the two-argument
# loops of dot kernels (attention's key loop, `for j in range(start_block, Tc)`).
_GRID_STRIDE = re.compile(r"^(\s+)for (\w+) in range\(([^(),]+), ([^(),]+), ([^(),]+)\):$", re.M)


_K_LOOP = re.compile(r"^(\s+)for (\w+) in range\(([^(),]+)\):$", re.M)
_KV_LOOP = re.compile(r"^(\s+)for (\w+) in range\(([^(),]+), ([^(),]+)\):$", re.M)


def _in_dot_kernels(code, edit):
    """`edit` applied to the @triton.jit functions of `code` that call _c2t_mma (tl.dot)."""
    out = []
    for part in re.split(r"(?m)^(?=@triton\.jit\n)", code):
        if not part.startswith("@triton.jit\n"):
            out.append(part)
            continue
        # the function ends at the next line that starts in column 0 and is not its `def` line or the `):` closing its parameters
        m = re.compile(r"(?m)^(?!def |\))\S").search(part, len("@triton.jit\n"))
        end = m.start() if m else len(part)
        fn = part[:end]
        out.append((edit(fn) if "_c2t_mma(" in fn else fn) + part[end:])
    return "".join(out)


def loop_variant(code, loops):
    if loops == "plain":
        return code
    if loops == "ws_k":         # warp-specialized GEMM K loops (one-argument ranges in dot kernels)
        return _in_dot_kernels(code, lambda k: _K_LOOP.sub(
            lambda m: f"{m[1]}for {m[2]} in tl.range({m[3]}, warp_specialize=True):", k))
    if loops == "ws_kv":        # warp-specialized key loops of attention (two-argument ranges in dot kernels)
        return _in_dot_kernels(code, lambda k: _KV_LOOP.sub(
            lambda m: f"{m[1]}for {m[2]} in tl.range({m[3]}, {m[4]}, warp_specialize=True):", k))
    if loops == "ws":           # warp-specialized grid-stride loops, not fused with the K loop
        return _GRID_STRIDE.sub(lambda m: f"{m[1]}for {m[2]} in tl.range({m[3]}, {m[4]}, {m[5]}, warp_specialize=True):", code)
    extra = ", flatten=True" + (", warp_specialize=True" if loops == "flatten_ws" else "")
    return _GRID_STRIDE.sub(lambda m: f"{m[1]}for {m[2]} in tl.range({m[3]}, {m[4]}, {m[5]}{extra}):", code)


_MMA_2D = ("if one_row and len(a.shape) == 2 and M == 1:", "elif one_row and len(a.shape) == 2:")
_MMA_ONE_ROW = "one_row: tl.constexpr = a.dtype == tl.float32"


def mma_variant(code, mma):
    """_c2t_mma's fp32 one-row product: 2d (the translator's), 3d (the broadcast multiply and sum
    over a 3-D tile it emitted before), dot (tl.dot "ieee", as before that)."""
    if mma in ("3d", "dot"):
        assert all(c in code for c in _MMA_2D) or "_c2t_mma" not in code, "_c2t_mma changed: update the probe"
        code = code.replace(_MMA_2D[0], "if False:").replace(_MMA_2D[1], "elif False:")
    if mma == "dot":
        code = code.replace(_MMA_ONE_ROW, "one_row: tl.constexpr = False and a.dtype == tl.float32")
    return code


_NARROW = ("M >= 64 \\\n            and (N == 16 or N == 32) and (CHAINED or _C2T_NARROW_ALL) \\\n"
           "            or len(a.shape) == 2 and a.dtype.is_fp8() and M >= 64 and N == 64 and CHAINED:")


def narrow_variant(code, narrow):
    """_c2t_mma's narrow 16-bit and fp8 products (M >= 64, N = 16 or 32) computed transposed
    (mma.sync): on (as translated: C2T_NARROW's default, products), products (only those that may be
    in a chain of products: CHAINED), all (every one: the default before the twentieth session), pad
    (C2T_NARROW=pad: warpgroup MMAs with B widened to N = 64) or
    off (tl.dot as written: Triton 3.6's wgmma, which computed TileGym's decode attention wrongly at
    those shapes; for timing and checking only)."""
    if narrow == "off":
        assert _NARROW in code or "_c2t_mma" not in code, "_c2t_mma changed: update the probe"
        code = code.replace(_NARROW, "M >= 64 and False:")
    elif narrow in ("products", "all"):
        code += f"\n_C2T_NARROW_ALL = tl.constexpr({narrow == 'all'})\n"
    elif narrow == "pad":         # as C2T_NARROW=pad: B widened by zero columns to N = 64
        code += "\n_C2T_NARROW_PAD = tl.constexpr(True)\n"
    return code


_DESC_LINE = re.compile(r"^(\s+)(\w+)_desc_(\d+) = _c2t_desc_\dd\((\w+), .*, (\"\w+\"|\w+), \w+_TMA\)$", re.M)


def host_descriptor_variant(code):
    """`--tma host`: the kernels' tensor descriptors built on the host (Triton's TensorDescriptor
    arguments, as cuTile passes its tensormaps) instead of in each program (tl.make_tensor_descriptor),
    for every array where the launcher finds them legal (C2T_TMA=auto's rule). An array's i-th
    descriptor becomes the kernel parameter `<array>_HD<i>`; the launcher passes them after the
    array's own arguments, in every block that passes it arrays (its launcher, its config-search
    launch); kernels such a block shares with others (layout-flag variants picked from a dict)
    keep their in-kernel descriptors.
    The launch memo and the fast dispatch are off (they would replay the first call's descriptors)."""
    kernels = {}                # kernel -> (its rewritten text, {array: paddings of its descriptors, in order})
    for part in re.findall(r"(?ms)^@triton\.jit\ndef \w+\(.*?(?=^[^\s)])", code):     # each kernel, alone
        descs = {}
        for m in _DESC_LINE.finditer(part):
            descs.setdefault(m[2], {})[int(m[3])] = m[5] if m[5].startswith('"') else '"zero"'
        if not descs:
            continue
        new = _DESC_LINE.sub(lambda m: f"{m[1]}{m[2]}_desc_{m[3]} = {m[2]}_HD{m[3]}", part)
        for name, items in descs.items():
            hd = "".join(f" {name}_HD{i}," for i in sorted(items))
            # after the array's own parameters (its TMA flag and `<array>_IS_<other>` alias flags)
            new = re.sub(rf"({name}_TMA: tl\.constexpr,(?: {name}_IS_\w+: tl\.constexpr,)*)", rf"\g<1>{hd}", new, count=1)
        kernels[re.search(r"def (\w+)\(", part)[1]] = (part, new, {a: [it[i] for i in sorted(it)] for a, it in descs.items()})
    blocks = re.split(r"(?m)^(?=\S)", code)
    # the blocks that pass a kernel its arrays (its launcher, its config-search launch): a kernel is
    # rewritten when each such block names it alone (not so for layout-flag variants chosen by a dict)
    users = [[k for k in kernels if re.search(rf"\b{k}\b", b)] if "*_c2t_array(" in b else [] for b in blocks]
    shared = {k for u in users if len(u) > 1 for k in u}
    done = {u[0] for u in users if len(u) == 1 and u[0] not in shared}
    for n, block in enumerate(blocks):
        if len(users[n]) == 1 and users[n][0] in done:
            for name, pad in kernels[users[n][0]][2].items():
                block = re.sub(rf'(\*_c2t_array\({name}, \d+, "{name}", tma=(\(.*?\),\)).*\)),$',
                               lambda m: f"{m[1]}, *_x_host_descs({name}, {m[2]}, ({', '.join(pad)},)),", block,
                               flags=re.M)
            blocks[n] = block
    code = "".join(blocks)
    for k in done:
        code = code.replace(kernels[k][0], kernels[k][1], 1)
    return code + """

from triton.tools.tensor_descriptor import TensorDescriptor as _XTensorDescriptor


def _x_host_descs(a, blocks, pads):
    if not _c2t_tma(a, blocks):
        return tuple(None for _ in blocks)
    pads = pads if len(pads) == len(blocks) else ("zero",) * len(blocks)
    return tuple(_XTensorDescriptor(a, list(a.shape), list(a.stride()), list(b),
                                    padding="zero" if a.dtype.is_floating_point is False else p)
                 for b, p in zip(blocks, pads))


_C2T_FAST_LAUNCH = False
"""


def index_variant(code, index):
    """`--index python`: `//` and `%` of indices proved >= 0 by Python's floor helpers again, as
    before the twenty-first session (the plain operators: `nonneg`, the translator's default)."""
    if index == "python":
        code += ("\n\n@triton.jit\ndef _c2t_floordiv_nonneg(a, b, NONNEG: tl.constexpr):\n"
                 "    return _c2t_floordiv(a, b)\n" if "def _c2t_floordiv_nonneg" in code else "")
        code += ("\n\n@triton.jit\ndef _c2t_mod_nonneg(a, b, NONNEG: tl.constexpr):\n"
                 "    return _c2t_mod(a, b)\n" if "def _c2t_mod_nonneg" in code else "")
    return code


def variant_code(code, warps, stages, tma, ctas=1, spill="on", loops="plain", maxnreg=0, occupancy="on",
                 mma="2d", narrow="on", launch="fast", index="nonneg"):
    code = index_variant(narrow_variant(mma_variant(loop_variant(code, loops), mma), narrow), index)
    if launch == "slow":    # the launch memo and fast dispatch off, as in the `--tma host` variant
        code += "\n_C2T_FAST_LAUNCH = False\n"
    if tma == "host":
        code, tma = host_descriptor_variant(code), "auto"
    code = code.replace("num_warps=_c2t_num_warps(", "**_x_opts(")
    code = code.replace('"num_warps": _c2t_num_warps(', "**_x_opts(")      # autotune configs
    if stages:          # a fixed depth replaces the translator's (and its shared-memory/spill retries)
        code = re.sub(r"\n\s*num_stages=_c2t_num_stages\([^\n]*\),", "", code)
        code = re.sub(r', "num_stages": _c2t_num_stages\("\w+", \([^()]*\)\)', "", code)
    return code + f"""

def _x_opts(elements, dot=False):
    o = {{"num_warps": {warps!r} or _c2t_num_warps(elements, dot=dot)}}
    if {stages!r}:
        o["num_stages"] = {stages!r}
    if {maxnreg!r}:                 # a register cap per thread (ptx .maxnreg): more programs per SM
        o["maxnreg"] = {maxnreg!r}
    if dot and {ctas!r} > 1 and elements >= 256 * 256:       # forced; 0: none; 1: cuTile's hints
        o["num_ctas"] = {ctas!r}
    return o


_C2T_TMA_MODE = {tma!r}
_C2T_SPILL_RETRY = {spill == "on"!r}
_C2T_OCCUPANCY_RETRY = {occupancy == "on"!r}
_C2T_CLUSTERS = {ctas == 1!r}      # cuTile's num_ctas hints (off when forced or 0)
"""


def first_tensor(out):
    if isinstance(out, torch.Tensor):
        return out
    for o in out:
        if isinstance(o, torch.Tensor):
            return o
    raise TypeError("no tensor output")


def suite_paths(op):
    """The TileGym file and spec of `op`: the suite entry tg_<op> where there is one (e.g. liger_tvd,
    from TileGym's suites/), else ops/cutile/<op>.py with tests/gpu/tilegym/<op>_spec.py."""
    from tests.gpu.suite import C2T_SUITE
    for entry in C2T_SUITE:
        if entry["name"] == f"tg_{op}":
            return entry["file"].replace("{tilegym}", f"{SRC}/tilegym"), entry["spec"]
    return f"{SRC}/tilegym/ops/cutile/{op}.py", f"tests/gpu/tilegym/{op}_spec.py"


def load_op(arg):
    """`op:i,j` -> (op, its TileGym file, the cuTile module, its spec, its translation, bench cases
    i, j of the spec, all when no indices are given)."""
    op, _, which = arg.partition(":")
    path, spec = suite_paths(op)
    orig = load_module(path)
    sp = load_spec(orig, spec)
    code, _ = translate(path)
    cases = sp.bench_cases if not which else [sp.bench_cases[int(i)] for i in which.split(",")]
    return op, path, orig, sp, code, cases


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ops", nargs="+")
    ap.add_argument("--warps", default="0")
    ap.add_argument("--stages", default="0")
    ap.add_argument("--tma", default="small", help="C2T_TMA modes (small, the translator's default; auto, on, off; "
                    "host: descriptors built on the host, see host_descriptor_variant)")
    ap.add_argument("--ctas", default="1", help="num_ctas forced on dot tiles of 256x256 and up "
                    "(1: what cuTile's num_ctas hints ask for, the translator's default; 0: no clusters)")
    ap.add_argument("--graph", action="store_true", help="also time CUDA-graph replays (device time alone)")
    ap.add_argument("--spill", default="on", help="fewer stages when a dot kernel spills (on/off)")
    ap.add_argument("--loops", default="plain", help="grid-stride loops: plain, flatten, flatten_ws, ws; K loops: "
                    "ws_k; attention's key loops: ws_kv")
    ap.add_argument("--dtype", default=None, help="the dtype to time (default: the spec's first)")
    ap.add_argument("--maxnreg", default="0", help="registers per thread at most (Triton's maxnreg; 0: no cap)")
    ap.add_argument("--occupancy", default="on", help="a register cap for two programs per SM on kernels "
                    "without dots, where it does not spill (on/off)")
    ap.add_argument("--mma", default="2d", help="fp32 one-row ct.mma products: 2d (the translator's), 3d, dot")
    ap.add_argument("--narrow", default="on", help="16-bit/fp8 products of N = 16 or 32 computed transposed: "
                    "on (as translated), products (only products in a chain of products), all (every one), "
                    "pad (C2T_NARROW=pad) or off (wgmma; wrong on decode attention, for timing)")
    ap.add_argument("--index", default="nonneg", help="`//` and `%` of indices proved >= 0: nonneg (the "
                    "plain operators, as translated) or python (the floor helpers, as before)")
    ap.add_argument("--launch", default="fast", help="fast (the translator's launch memo and fast dispatch) or "
                    "slow (both off: Triton's own dispatch, as the `--tma host` variant has)")
    ns = ap.parse_args()
    set_cuda_allocator("cuda")
    raise_cutile_compiler_timeout()      # TileGym's 5 s (group_gemm) runs out on a fresh machine
    grid = list(itertools.product([int(w) or None for w in ns.warps.split(",")],
                                  [int(s) or None for s in ns.stages.split(",")], ns.tma.split(","),
                                  [int(c) for c in ns.ctas.split(",")], ns.spill.split(","),
                                  ns.loops.split(","), [int(r) for r in ns.maxnreg.split(",")],
                                  ns.occupancy.split(","), ns.mma.split(","), ns.narrow.split(","),
                                  ns.launch.split(","), ns.index.split(",")))
    for arg in ns.ops:
        op, path, orig, sp, code, cases = load_op(arg)
        mods = []
        for w, s, t, c, spill, loops, regs, occ, mma, narrow, launch, index in grid:
            m, _ = load_translated(variant_code(code, w, s, t, c, spill, loops, regs, occ, mma, narrow, launch,
                                                index), path)
            rebind_cutile_imports(m)
            mods.append((f"w={w or 'default'} s={s or 'default'} tma={t} ctas={c} spill={spill} loops={loops}"
                         + (f" maxnreg={regs}" if regs else "") + f" occupancy={occ}"
                         + (f" mma={mma}" if mma != "2d" else "") + (f" narrow={narrow}" if narrow != "on" else "")
                         + (f" launch={launch}" if launch != "fast" else "")
                         + (f" index={index}" if index != "nonneg" else ""), m))
        dt = torch_dtype(ns.dtype or sp.dtypes[0])
        for case in cases:
            args = make_args(sp, case, dt, 0, "cuda")
            f0 = getattr(orig, sp.entry)
            ref = first_tensor(f0(*clone_args(args))).float()
            a = clone_args(args)
            t0 = do_bench(lambda: f0(*a), return_mode="median") * 1e3
            g0 = graph_time_ms(lambda: f0(*a)) if ns.graph else None
            peers = ""
            for label, pfn in (sp.peers or {}).items():
                a = clone_args(args)
                peers += f", {label} {do_bench(lambda: pfn(*a), return_mode='median') * 1e3:.1f} us"
            g = f", graph {g0 * 1e3:.1f} us" if g0 else ""
            print(f"== {op} {case} {str(dt)[6:]}: cuTile {t0:.1f} us{g}{peers}", flush=True)
            for label, m in mods:
                fn = getattr(m, sp.entry)
                try:
                    out = first_tensor(fn(*clone_args(args))).float()
                    err = (out - ref).abs().max().item()
                    a = clone_args(args)
                    t = do_bench(lambda: fn(*a), return_mode="median") * 1e3
                    gv = graph_time_ms(lambda: fn(*a)) if ns.graph else None
                    g = f"  graph {gv * 1e3:.1f} us ratio {g0 / gv:5.2f}" if gv and g0 else ""
                    print(f"  {label:32s} {t:9.1f} us  ratio {t0 / t:5.2f}{g}  max|diff| {err:.3g}", flush=True)
                except Exception as exc:      # noqa: BLE001 - a variant that fails is reported, not fatal
                    print(f"  {label:32s} FAILED {type(exc).__name__}: {str(exc)[:150]}", flush=True)


if __name__ == "__main__":
    main()
