"""What the GPU probes share (not part of the product): a suite entry's original and translated
modules from a command-line argument `tg_<op>[:i,j]`, and device time per call of calls issued
back to back."""
import os
import sys

import torch

sys.path.insert(0, ".")
sys.path.insert(0, os.environ.get("TILEGYM_SRC", ".corpus/src"))
from tests.gpu.suite import C2T_SUITE  # noqa: E402
from translator.harness.verify import load_modules, raise_cutile_compiler_timeout, set_cuda_allocator  # noqa: E402


def gpu_setup():
    """As the bench does: torch's allocator for Triton's scratch, cuTile's compile budget raised."""
    set_cuda_allocator("cuda")
    raise_cutile_compiler_timeout()


def entry_modules(arg: str):
    """`tg_softmax:4,5` -> (name, which bench cases ("4,5", or "" for all), the suite entry, the
    cuTile file's path, the original module, its spec, the translated module)."""
    name, _, which = arg.partition(":")
    entry = next(e for e in C2T_SUITE if e["name"] == name)
    path = entry["file"].replace("{tilegym}", os.path.join(os.environ.get("TILEGYM_SRC", ".corpus/src"),
                                                             "tilegym"))
    orig, sp, trans, _, _ = load_modules(path, entry.get("spec"), None, "gpu")
    return name, which, entry, path, orig, sp, trans


def back_to_back_us(fn, calls=10, rounds=5):
    """Mean device us per call of `calls` calls back to back on the stream (events around them, no
    L2 flush, no profiler), for each of `rounds` rounds."""
    out = []
    for _ in range(rounds):
        torch.cuda.synchronize()
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        for _ in range(calls):
            fn()
        e.record()
        torch.cuda.synchronize()
        out.append(s.elapsed_time(e) * 1e3 / calls)
    return out


def tried(label, fn):
    """`label` and what fn() returns, or the exception it raised (a probe reports and goes on)."""
    try:
        return f"{label} {fn()}"
    except Exception as exc:   # noqa: BLE001
        return f"{label} {type(exc).__name__}: {str(exc)[:60]}"
