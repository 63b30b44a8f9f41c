"""GPU experiment (not part of the product): what the descriptor scratch costs a launch from the
launch memo. A kernel with in-kernel tensor descriptors needs global scratch memory on every
launch; the memo's C lookup (templates/launch_memo.c) asks the translated module's Python
`_c2t_scratch` for it. The fifteenth session's probe_launch_cost/exp_direct_launch runs put the memo
path of TileGym matmul's kernels (scratch 256-384 B) 5-6 us above Triton's bare launcher, where
kernels without scratch were 2-3 us above it. This times `_c2t_scratch` and each thing it does,
per call, on the GPU machine, next to a candidate that keeps the buffer's address (what the
template generates since; docs/gpu-runs/warp-specialize-and-reruns-2026-11-30.md section 5):

    python tests/gpu/probe_scratch_cost.py          (after source .gpu/setup.sh)
"""
import sys
import time

import torch

sys.path.insert(0, ".")
from translator.harness.loading import load_translated, translate  # noqa: E402


def per_call_us(fn, n=20000):
    for _ in range(200):
        fn()
    best = float("inf")
    for _ in range(3):
        t = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter() - t) / n * 1e6)
    return best


def main():
    path = "examples/matmul.py"
    mod, _ = load_translated(translate(path)[0], path)
    import triton
    from triton.runtime import _allocation
    triton.set_allocator(mod._c2t_tma_scratch)
    dev = torch.cuda.current_device()
    stream = torch.cuda.current_stream().cuda_stream
    buf = torch.empty(1 << 16, dtype=torch.int8, device="cuda")
    table = {(dev, stream): buf}
    capturing = torch._C._cuda_isCurrentStreamCapturing
    ptrs = {(dev, stream): (buf.data_ptr(), buf.numel(), buf)}

    def candidate(device, stream, nbytes, align):
        """_c2t_scratch with the capture check bound once and the pointer cached."""
        allocator = _allocation._allocator.get()
        if not getattr(allocator, "c2t_scratch", False):
            return allocator(nbytes, align, stream)
        if capturing():
            return allocator(nbytes, align, stream)
        hit = ptrs.get((device, stream))
        if hit is not None and hit[1] >= nbytes:
            return hit[0]
        raise AssertionError("not reached here")

    rows = [
        ("candidate (capture check bound, pointer cached)", lambda: candidate(dev, stream, 256, 128)),
        ("_c2t_scratch (as generated)", lambda: mod._c2t_scratch(dev, stream, 256, 128)),
        ("torch.cuda.is_current_stream_capturing()", torch.cuda.is_current_stream_capturing),
        ("torch._C._cuda_isCurrentStreamCapturing()", torch._C._cuda_isCurrentStreamCapturing),
        ("_allocation._allocator.get()", _allocation._allocator.get),
        ("getattr(allocator, 'c2t_scratch')", lambda: getattr(mod._c2t_tma_scratch, "c2t_scratch", False)),
        ("dict get + numel() + data_ptr()", lambda: table.get((dev, stream)).numel() and buf.data_ptr()),
        ("an empty Python call", lambda: None),
    ]
    for label, fn in rows:
        print(f"{label:45s} {per_call_us(fn):6.2f} us", flush=True)


if __name__ == "__main__":
    main()
