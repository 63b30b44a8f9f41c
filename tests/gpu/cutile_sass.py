"""CPU tool (not part of the product; no GPU needed): what cuTile's compiler makes of a kernel for
the H200, next to what Triton makes of its translation: threads, registers, shared memory, and the
instructions that tell the strategy apart (warpgroup MMAs, TMA loads and stores, cp.async copies,
register reallocation between warpgroups, i.e. warp specialization).

cuTile compiles through `cuda.tile.compilation.export_kernel` (tileiras from the GPU toolchain
bundle, extracted from .gpu/ctk.tar.xz: set CTK to the folder holding nvidia/cu13), its kernel
signature written out by hand (KernelSignature.from_kernel_args needs libcuda); Triton's side is
the translation compiled at the launch's specialization (tests/compile_sm90.py); both disassembled
with the nvdisasm Triton ships.

    mkdir -p /tmp/ctk && tar xJf .gpu/ctk.tar.xz -C /tmp/ctk
    CTK=/tmp/ctk PYTHONPATH=.corpus/src python tests/gpu/cutile_sass.py

`... cutile_sass.py mla_split_kv` (with `C2T_TMA=on`: the descriptors the GPU's default `small`
mode takes for its 32-program launch, which CPU tensors never get otherwise) compares TileGym's
split-KV MLA decoding kernel at B=1 instead, `... cutile_sass.py geglu` TileGym's fp16 GEGLU
(docs/gpu-runs/earlier-runs.tar.xz: no-gpu-session-2026-11-30.md). Without
an argument it compares TileGym's prefill attention with sinks (tg_attention_sink, 0.84-0.92 of cuTile in the
nineteenth session) at the configs both sides' searches picked: docs/gpu-runs/earlier-runs.tar.xz: sync-wgmma-2026-11-30.md
section 3.
"""
import importlib
import io
import os
import re
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CTK = os.environ.get("CTK", "/tmp/ctk")
os.environ.setdefault("CUDA_HOME", f"{CTK}/nvidia/cu13")
os.environ["PATH"] = f"{CTK}/nvidia/cu13/bin:" + os.environ["PATH"]
os.environ.pop("TRITON_INTERPRET", None)
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "tests" / "gpu"), str(ROOT / ".corpus" / "src")]

import torch  # noqa: E402
import triton  # noqa: E402
import cuda.tile as ct  # noqa: E402
from cuda.tile.compilation import ArrayConstraint, CallingConvention, KernelSignature, ScalarConstraint  # noqa: E402
from cuda.tile.compilation import export_kernel  # noqa: E402

_BIN = Path(triton.__file__).parent / "backends" / "nvidia" / "bin"
_MARKERS = ("HGMMA", "HMMA", "FFMA", "UTMALDG", "UTMASTG", "LDGSTS", "USETMAXREG", "MUFU", "BAR.SYNC", "SYNCS")


def array(dtype, ndim):
    """A contiguous array parameter as cuTile's dispatcher sees a 16-byte-aligned torch tensor."""
    return ArrayConstraint(dtype, ndim, index_dtype=ct.int32, stride_lower_bound_incl=0, alias_groups=(),
                           may_alias_internally=False, stride_constant=[None] * (ndim - 1) + [1],
                           stride_divisible_by=[8] * (ndim - 1) + [1], base_addr_divisible_by=16)


def cutile_cubin(kernel, params, occupancy=None, gpu="sm_90") -> bytes:
    sig = KernelSignature(params, CallingConvention.cutile_python_v1())
    buf = io.BytesIO()
    export_kernel(kernel.replace_hints(occupancy=occupancy) if occupancy else kernel, [sig], buf, gpu_code=gpu,
                  output_format="cubin")
    return buf.getvalue()


def summary(cubin: bytes) -> str:
    """Threads per program, registers, static shared memory (Triton's is dynamic: not counted) and
    the marker instructions of a cubin."""
    with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
        f.write(cubin)
        f.flush()
        res = subprocess.run([_BIN / "cuobjdump", "-res-usage", f.name], capture_output=True, text=True).stdout
        elf = subprocess.run([_BIN / "cuobjdump", "-elf", f.name], capture_output=True, text=True).stdout
        sass = subprocess.run([_BIN / "nvdisasm", f.name], capture_output=True, text=True).stdout
    regs = re.search(r"REG:(\d+)", res)
    shared = re.search(r"SHARED:(\d+)", res)
    threads = re.search(r"EIATTR_(?:REQNTID|MAX_THREADS)\s+Format:\s+\w+\s+Value:\s+0x([0-9a-f]+)", elf)
    ops = re.findall(r"^\s+/\*[0-9a-f]+\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*(?:\.[A-Z]+)?)", sass, re.M)
    counts = {m: sum(1 for o in ops if o.startswith(m)) for m in _MARKERS}
    return (f"threads {int(threads.group(1), 16) if threads else '?'}, registers {regs.group(1) if regs else '?'}, "
            f"static shared {shared.group(1) if shared else '?'} B; "
            + ", ".join(f"{m} {n}" for m, n in counts.items() if n))


def triton_cubin(code: str, path, entry_args, want: dict, entry="attention_sink") -> bytes:
    """The translation's kernel compiled at the launch of `entry(*entry_args)` whose constexprs
    match `want`."""
    import compile_sm90 as C
    import compile_tilegym_sm90 as T
    from translator.harness.loading import load_translated, rebind_cutile_imports
    mod, _ = load_translated(code, path)
    rebind_cutile_imports(mod)
    triton.autotune = T._no_autotune
    calls = C._capture(mod)
    try:
        getattr(mod, entry)(*entry_args)
    except Exception:  # noqa: BLE001 - launches are captured, the host code may fail after them
        pass
    C._restore(mod)
    for _, fn, args, kwargs in calls:
        _, src, options = C.specialize_for_h200(fn, args, kwargs)
        names = fn.arg_names
        consts = {names[k[0]]: v for k, v in src.constants.items() if len(k) == 1}
        if all(consts.get(k) == v for k, v in want.items()):
            return triton.compile(src, target=C._H200, options=options.__dict__).asm["cubin"]
    raise LookupError(f"no launch with {want}")


def mla_split_kv():
    """TileGym's split-KV MLA decoding at B=1 H=16 D=512 Dpe=64 KV=4096 (the suite's lowest rows,
    0.87 of cuTile by do_bench, graph replay 0.91: docs/gpu-runs/earlier-runs.tar.xz: division-and-indices-2026-11-30.md
    section 4): its split kernel, 32 programs of one 128-key tile each."""
    from translator.harness.loading import translate
    name = "tilegym.ops.cutile.mla_decoding_split_kv"
    mod = importlib.import_module(name)
    sys.path.insert(0, str(ROOT / "tests" / "gpu" / "tilegym"))
    sp = importlib.import_module("mla_decoding_split_kv_spec")
    code, _ = translate(mod.__file__)
    for dt, cdt in ((torch.bfloat16, ct.bfloat16), (torch.float16, ct.float16)):
        case = {"B": 1, "H": 16, "KV": 4096, "D": 512, "Dpe": 64}
        args = sp.make_args(case, dt, 0, "cpu")
        # Q, QPE, K, V, KPE, Att_Out, LSE_Out, sm_scale, B, NUM_HEADS, S_kv, then the Constants:
        # 32 splits of 128 keys (next_pow2(4096 // 132) = 32, raised to TILE_N), TILE_D, TILE_H,
        # TILE_N, TILE_KPE, EVEN_N
        params = [array(cdt, 3)] * 5 + [array(cdt, 4), array(ct.float32, 3), ScalarConstraint(ct.float32),
                                        ScalarConstraint(ct.int32), ScalarConstraint(ct.int32),
                                        ScalarConstraint(ct.int32), 32, 128, 512, 16, 128, 64, True]
        print(f"split-KV MLA B=1 H=16 KV=4096 D=512 {dt}:")
        print(f"  cuTile (occupancy 2): {summary(cutile_cubin(mod._naive_absorb_mla_transpose_kernel, params))}")
        print(f"  Triton translation: "
              f"{summary(triton_cubin(code, mod.__file__, args, {'TILE_D': 512, 'TILE_N': 128}, 'mla_decoding_split_kv'))}")


def sass_ops(cubin: bytes) -> tuple:
    """(instructions in the cubin's code, the 12 most frequent opcodes with their counts)."""
    from collections import Counter
    with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
        f.write(cubin)
        f.flush()
        sass = subprocess.run([_BIN / "nvdisasm", f.name], capture_output=True, text=True).stdout
    ops = re.findall(r"^\s+/\*[0-9a-f]+\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*)", sass, re.M)
    return len(ops), Counter(ops).most_common(12)


def geglu():
    """TileGym's fp16 GEGLU forward (exact GELU through its tanh formula), 4096x28672, which both
    sides run at 58-60% of the copy bandwidth where fp32 reaches 97-100%: the instructions each
    side's kernel is made of (256-element tiles, 2 elements per thread on both)."""
    from translator.harness.loading import translate
    mod = importlib.import_module("tilegym.ops.cutile.activation.geglu")
    code, _ = translate(mod.__file__)
    n = 14336
    params = [array(ct.float16, 1), array(ct.float16, 1), n, 2 * n, n, 256, 0]
    cub = cutile_cubin(mod._geglu_fwd_kernel, params)
    tri = triton_cubin(code, mod.__file__, (torch.randn(64, 2 * n, dtype=torch.float16), -1, "none"),
                       {"BLOCK_SIZE": 256}, "geglu")
    for side, cubin in (("cuTile", cub), ("Triton translation", tri)):
        total, common = sass_ops(cubin)
        print(f"{side}: {summary(cubin)}\n  {total} instructions: " + ", ".join(f"{o} {c}" for o, c in common))


def main():
    if sys.argv[1:] == ["mla_split_kv"]:
        return mla_split_kv()
    if sys.argv[1:] == ["geglu"]:
        return geglu()
    warnings.simplefilter("ignore")
    from translator.harness.loading import translate
    importlib.import_module("tilegym.ops.cutile.attention_sink")
    mod = sys.modules["tilegym.ops.cutile.attention_sink"]
    sys.path.insert(0, str(ROOT / "tests" / "gpu" / "tilegym"))
    sp = importlib.import_module("attention_sink_spec")
    path = mod.__file__
    code, _ = translate(path)
    case = sp.C2T_SPEC["bench_cases"][0]              # B=1 S=4096 Hkv=8 G=8 D=64, causal
    args = sp.make_args(case, torch.bfloat16, 0, "cpu")
    bf = ct.bfloat16
    for tile_m, tile_n, occupancy in ((64, 64, 4), (64, 64, 1), (128, 128, 2)):
        params = [array(bf, 4), array(bf, 4), array(bf, 4), array(bf, 1), array(bf, 4), array(ct.int32, 1),
                  ScalarConstraint(ct.float32), 64, 64, 4096, tile_m, tile_n, 8, 0]
        print(f"{tile_m}x{tile_n} D=64 bf16 causal:")
        print(f"  cuTile (occupancy {occupancy}): {summary(cutile_cubin(mod._attention_sink_kernel, params, occupancy))}")
        if occupancy != 1:
            print(f"  Triton translation: {summary(triton_cubin(code, path, args, {'TILE_M': tile_m, 'TILE_N': tile_n}))}")


if __name__ == "__main__":
    main()
