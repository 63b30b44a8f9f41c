"""Compile every kernel of a translated example for the H200 (sm_90) on this CPU machine.

Run in its own process WITHOUT TRITON_INTERPRET (interpreted kernels cannot be compiled):
    python tests/compile_sm90.py examples/softmax.py
The example's host entry runs on CPU tensors with each kernel launch intercepted; the captured
arguments then drive `triton.compile(..., target=GPUTarget("cuda", 90, 32))` (no GPU needed).
This catches what the interpreter accepts but the compiler rejects. Prints one line per kernel.
"""
from __future__ import annotations

import os
import re
import sys
from pathlib import Path

assert not os.environ.get("TRITON_INTERPRET"), "run without TRITON_INTERPRET"
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import torch  # noqa: E402
import triton  # noqa: E402
import triton.language  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.compiler import ASTSource  # noqa: E402
from triton.runtime.jit import JITFunction  # noqa: E402

from run_example import original_module, translated_module  # noqa: E402


_H200 = GPUTarget("cuda", 90, 32)


def specialize_for_h200(fn, args, kwargs):
    """What a launch on the H200 would compile: Triton's own launch-time specialization of these
    arguments (ints equal to 1 become constants, ints divisible by 16 and 16-byte aligned pointers
    get divisibility attributes: the facts cuTile's dispatcher derives), and the launch options
    (num_warps, num_stages). Returns (cache key, ASTSource, options)."""
    from triton.compiler import make_backend
    from triton.runtime.jit import create_function_from_signature
    while not isinstance(fn, JITFunction):
        fn = fn.fn
    backend = make_backend(_H200)
    binder = create_function_from_signature(fn.signature, fn.params, backend)
    bound_args, specialization, options = binder(*args, **kwargs)
    options, signature, constexprs, attrs = fn._pack_args(backend, kwargs, bound_args, specialization, options)
    key = (fn.__name__, repr(specialization), repr(sorted(kwargs.items())))
    return key, ASTSource(fn, signature, constexprs, attrs), options


def compile_for_h200(fn, args, kwargs):
    _, src, options = specialize_for_h200(fn, args, kwargs)
    return triton.compile(src, target=_H200, options=options.__dict__)


class _Capture:
    def __init__(self, name, fn, calls):
        self.name, self.fn, self.calls = name, fn, calls

    def __getitem__(self, grid):
        def launch(*args, **kwargs):
            self.calls.append((self.name, self.fn, args, kwargs))
        return launch

    def __getattr__(self, attr):          # c2t_launch, c2t_meta, replace_hints... of the kernel
        return getattr(self.fn, attr)


def _capture(mod) -> list:
    """Replace the launched kernels (not the helpers they call) by launch recorders."""
    import re
    text = open(mod.__file__).read()
    launched = set(re.findall(r"_c2t_run\(\s*(\w+),", text)) | set(re.findall(r"\):\s*(\w+),\n", text))
    calls = []
    for name, obj in list(vars(mod).items()):
        if isinstance(obj, JITFunction) and name in launched:
            setattr(mod, name, _Capture(name, obj, calls))
    return calls


def _restore(mod):
    """Put the kernels back (a batched twin calls its kernel as a device function)."""
    for name, obj in list(vars(mod).items()):
        if isinstance(obj, _Capture):
            setattr(mod, name, obj.fn)


def compile_kernels_of(mod, run) -> list:
    """Run `run()` (host code of the translated module `mod`) with launches intercepted, then
    compile every launched kernel for sm_90; returns one line per distinct kernel signature."""
    calls = _capture(mod)
    try:
        run()
    finally:
        _restore(mod)
    return [f"OK {name} ptx={n}B wgmma={w} mma.sync={m} tma={t} vec_ld={v} num_ctas={c} cp_async16={a} shared={sh}"
            f" mma_fed_sync={','.join(map(str, fed)) or '-'}"
            for name, n, w, m, t, v, c, a, sh, fed in _compile_calls(calls)]


def compile_example(example: Path) -> list:
    orig = original_module(example)
    spec = orig.C2T_SPEC
    mod = translated_module(example)
    calls = _capture(mod)
    make_args = getattr(orig, spec["make_args"])
    for dt in spec["dtypes"]:
        args = make_args(spec["cases"][-1], getattr(torch, dt), 0, "cpu")
        getattr(mod, spec["entry"])(*args)
    _restore(mod)
    return _compile_calls(calls)


def mma_fed_sync_dots(ttgir: str) -> list:
    """The column counts (N = 16 or 32, and 64 with fp8 operands) of the synchronous warpgroup MMAs
    (`ttng.warp_group_dot` without `isAsync`) in `ttgir` with an operand from an MMA result: B
    staged to shared memory from one (a `ttg.local_alloc` of a tensor in a version-3 `#mma` layout,
    through transposes and reshapes of the buffer), or A converted from one to a register operand
    (`ttg.convert_layout` of a `#mma` tensor). In 16-bit types both are what Triton 3.6 computed
    wrongly on the H200, and right at N = 64 (docs/decisions/010-narrow-products-transposed.md:
    probe_sync_dots.py --b dot, --a dot; A from an
    MMA was right there with B loaded through a transpose, which this does not tell apart). In fp8,
    TileGym's decode pattern with G = 64 and one 64-key tile was wrong too (probe_narrow_products.py
    --one-tile --dtypes float8_e4m3fn)."""
    v3 = set(re.findall(r"^(#mma\d*) = #ttg\.nvidia_mma<\{versionMajor = 3", ttgir, re.M))
    source = {}         # buffer -> (the value it was made from, its layout, its last extent) or an alias
    for m in re.finditer(r"(%[\w#]+) = ttg\.local_alloc (%[\w#]+) : \(tensor<([\dx]+)x\w+, (#\w+)>\)", ttgir):
        source[m.group(1)] = (m.group(4), int(m.group(3).split("x")[-1]))
    for m in re.finditer(r"(%[\w#]+) = ttg\.memdesc_(?:trans|reshape) (%[\w#]+)", ttgir):
        source[m.group(1)] = m.group(2)
    # register operands converted from an MMA result's layout
    from_mma = {m.group(1) for m in re.finditer(r"(%[\w#]+) = ttg\.convert_layout %[\w#]+ : tensor<[\dx]+x\w+, "
                                                r"(#mma\d*)> -> tensor<[^>]*#ttg\.dot_op", ttgir) if m.group(2) in v3}
    found = []
    for m in re.finditer(r"= ttng\.warp_group_dot (%[\w#]+), (%[\w#]+), [^{]*\{([^}]*)\}[^\n]*-> tensor<[\dx]+x(\d+)x", ttgir):
        if "isAsync = true" in m.group(3):
            continue
        n = int(m.group(4))
        if n not in (16, 32) and not (n == 64 and "xf8E" in m.group(0)):
            continue
        b = m.group(2)
        while isinstance(source.get(b), str):
            b = source[b]
        if (isinstance(source.get(b), tuple) and source[b][0] in v3) or m.group(1) in from_mma:
            found.append(n)
    return found


def _compile_calls(calls) -> list:
    results, seen = [], set()
    for name, fn, args, kwargs in calls:
        key, src, options = specialize_for_h200(fn, args, kwargs)
        if key in seen:
            continue
        seen.add(key)
        k = triton.compile(src, target=_H200, options=options.__dict__)
        ptx = k.asm.get("ptx", "")
        vec = len(re.findall(r"ld\.global[\w.]*\.v[24]\.", ptx))     # vectorized global loads
        results.append((name, len(ptx), "wgmma" in ptx, "mma.sync" in ptx, "cp.async.bulk.tensor" in ptx, vec,
                        k.metadata.num_ctas, len(re.findall(r"cp\.async\.cg\.shared\.global", ptx)), k.metadata.shared,
                        mma_fed_sync_dots(k.asm.get("ttgir", ""))))
    return results


if __name__ == "__main__":
    ok = True
    for p in sys.argv[1:]:
        try:
            for name, n, wgmma, mma, tma, *_ in compile_example(Path(p)):
                print(f"OK {p} {name} ptx={n}B wgmma={wgmma} mma.sync={mma} tma={tma}")
        except Exception as e:  # report and keep going
            ok = False
            print(f"FAIL {p}: {type(e).__name__}: {str(e)[:2000]}")
    sys.exit(0 if ok else 1)
