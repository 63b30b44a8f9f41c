"""CPU stand-ins for the torch.cuda calls TileGym's host code makes, for `verify --mode interp`.

TileGym's host functions (which the translator keeps as they are) ask torch.cuda for the SM
count (`get_device_properties(...).multi_processor_count`), the compute capability, the
current stream, and some allocate with `device="cuda"`. On a machine without CUDA those calls
raise, so the specs in this folder call `install()` when they are imported, and
`emulate(case)` in make_args. Both do nothing when torch.cuda is available: GPU runs see the
real device.

On the CPU:
- `get_device_properties` reports the emulated SM count (default SMS = 132, the H200's) and
  compute capability (default 9.0, the H200 target, so sm90 branches are the ones taken);
  a case may set `"sms": 4` (few SMs: persistent grid-stride kernels loop several times even on
  the interpreter's small shapes) or `"cc": "12.0"` (another arch's autotune table);
- `get_device_capability` gives that capability; `current_stream` gives None (a translated
  launch with no stream runs on the current one);
- factory calls with `device="cuda"` (e.g. layer_norm_legacy's mean/rstd) allocate on the CPU
  (a TorchFunctionMode that stays on for the process: a CPU-only verify run).
"""
from __future__ import annotations

import types

SMS = 132
CAPABILITY = (9, 0)

_state = {"sms": SMS, "cc": CAPABILITY}
_installed = False


def _cuda_ready() -> bool:
    import torch
    return torch.cuda.is_available()


def _props(device=None):
    major, minor = _state["cc"]
    return types.SimpleNamespace(name="CPU stand-in (tests/gpu/tilegym/_cpu_cuda.py)",
                                 multi_processor_count=_state["sms"], major=major, minor=minor,
                                 total_memory=8 << 30, max_shared_memory_per_block_optin=227 << 10,
                                 L2_cache_size=50 << 20)


def emulate(case: dict) -> None:
    """Set the emulated SM count and capability for one case (`sms`, `cc` keys; defaults otherwise)."""
    if _cuda_ready():
        return
    install()
    cc = case.get("cc")
    if cc is None:
        _state["cc"] = CAPABILITY
    else:
        major, _, minor = str(cc).partition(".")
        _state["cc"] = (int(major), int(minor or 0))
    _state["sms"] = int(case.get("sms", SMS))


def install() -> bool:
    """Install the stand-ins when torch has no CUDA; True when they are (or already were) in place."""
    global _installed
    import torch
    if torch.cuda.is_available():
        return False
    if _installed:
        return True
    from torch.overrides import TorchFunctionMode

    def _is_cuda(dev) -> bool:
        if isinstance(dev, torch.device):
            return dev.type == "cuda"
        return isinstance(dev, str) and dev.split(":")[0] == "cuda"

    class _CudaAllocsOnCpu(TorchFunctionMode):
        def __torch_function__(self, func, types_, args=(), kwargs=None):
            kwargs = kwargs or {}
            if _is_cuda(kwargs.get("device")):
                kwargs = dict(kwargs, device="cpu")
            return func(*args, **kwargs)

    torch.cuda.get_device_properties = _props
    torch.cuda.get_device_capability = lambda device=None: _state["cc"]
    torch.cuda.current_stream = lambda device=None: None
    torch.cuda.current_device = lambda: 0
    torch.cuda.synchronize = lambda device=None: None
    _CudaAllocsOnCpu().__enter__()
    _installed = True
    return True
