"""torch.cuda stand-ins for running CUDA-minded cuTile programs on a CPU (Triton's interpreter).

cuTile programs launch on `torch.cuda.current_stream()` and allocate with `device="cuda"`; on a
machine without CUDA both raise. `install()` (the shim's --cpu, and its default under
TRITON_INTERPRET=1 where torch has no CUDA) makes `current_stream()` None (a launch on the
current stream), `synchronize()` do nothing, the device properties those of an H200 (132 SMs,
capability 9.0), and tensor factories and `.to()` / `.cuda()` with a CUDA device use the CPU.
`torch.cuda.is_available()` stays False.
"""
from __future__ import annotations

import types

_installed = False


def _props(device=None):
    return types.SimpleNamespace(name="CPU stand-in (cutile2triton shim)", multi_processor_count=132,
                                 major=9, minor=0, total_memory=8 << 30,
                                 max_shared_memory_per_block_optin=227 << 10, L2_cache_size=50 << 20)


def install() -> bool:
    global _installed
    import torch
    if torch.cuda.is_available() or _installed:
        return _installed
    from torch.overrides import TorchFunctionMode

    def is_cuda(dev) -> bool:
        if isinstance(dev, torch.device):
            return dev.type == "cuda"
        return isinstance(dev, str) and dev.split(":")[0] == "cuda"

    to, cuda = torch.Tensor.to, torch.Tensor.cuda

    class CudaOnCpu(TorchFunctionMode):
        def __torch_function__(self, func, types_, args=(), kwargs=None):
            kwargs = kwargs or {}
            if func is cuda:
                return args[0]
            if is_cuda(kwargs.get("device")):
                kwargs = dict(kwargs, device="cpu")
            if func is to and len(args) > 1 and is_cuda(args[1]):
                args = (args[0], "cpu") + tuple(args[2:])
            return func(*args, **kwargs)

    torch.cuda.get_device_properties = _props
    torch.cuda.get_device_capability = lambda device=None: (9, 0)
    torch.cuda.current_stream = lambda device=None: None
    torch.cuda.default_stream = lambda device=None: None
    torch.cuda.synchronize = lambda device=None: None
    torch.cuda.current_device = lambda: 0
    torch.cuda.device_count = lambda: 1
    CudaOnCpu().__enter__()       # (on for the rest of the process)
    _installed = True
    return True
