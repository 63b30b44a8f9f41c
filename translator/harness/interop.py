"""Host interop: foreign arrays to torch tensors, raw streams, device properties.

Everything imports lazily, so this module imports on a machine without a GPU.
"""
from __future__ import annotations

from typing import Any


def is_foreign_array(obj: Any) -> bool:
    """True for array objects that are not torch tensors but can become one (cupy, numpy, ...)."""
    import torch
    if isinstance(obj, torch.Tensor):
        return False
    return (hasattr(obj, "__dlpack__") or hasattr(obj, "__cuda_array_interface__")
            or hasattr(obj, "__array_interface__"))


def as_tensor(obj: Any):
    """A torch tensor sharing memory with ``obj`` where possible.

    Order: torch tensors as they are; ``__dlpack__`` objects via torch.from_dlpack (cupy,
    jax, numpy >= 1.22, cuda.core buffers); ``__cuda_array_interface__`` and numpy arrays via
    torch.as_tensor.  Anything else is returned unchanged.
    """
    import torch
    if isinstance(obj, torch.Tensor):
        return obj
    if hasattr(obj, "__dlpack__"):
        try:
            return torch.from_dlpack(obj)
        except (TypeError, RuntimeError, BufferError):
            pass                                   # e.g. a dtype DLPack cannot carry: try the next way
    if hasattr(obj, "__cuda_array_interface__"):
        return torch.as_tensor(obj, device="cuda")
    if hasattr(obj, "__array_interface__") or hasattr(obj, "__array__"):
        return torch.as_tensor(obj)
    return obj


def to_torch(obj: Any):
    """as_tensor applied through tuples, lists and dicts (results of entry functions)."""
    if isinstance(obj, (list, tuple)) and not hasattr(obj, "_fields"):
        return type(obj)(to_torch(v) for v in obj)
    if isinstance(obj, dict):
        return {k: to_torch(v) for k, v in obj.items()}
    if obj is None or isinstance(obj, (int, float, bool, str)):
        return obj
    return as_tensor(obj)


def as_stream(handle: Any, device=None):
    """A torch stream for ``handle``: a torch stream, a raw CUstream integer, or an object with
    ``__cuda_stream__`` (cuda.core Stream, cupy streams) or ``.ptr``/``.handle``.  None gives the
    current stream."""
    import torch
    if handle is None:
        return torch.cuda.current_stream(device)
    if isinstance(handle, torch.cuda.Stream):
        return handle
    if hasattr(handle, "__cuda_stream__"):
        proto = handle.__cuda_stream__
        proto = proto() if callable(proto) else proto
        handle = proto[1]
    elif not isinstance(handle, int):
        for attr in ("ptr", "handle", "cuda_stream"):
            if hasattr(handle, attr):
                handle = getattr(handle, attr)
                break
        handle = int(handle)
    if handle == 0:
        return torch.cuda.default_stream(device)
    return torch.cuda.ExternalStream(handle, device=device)


def device_properties(device="cuda") -> dict:
    """{'name', 'sm_count', 'compute_capability', 'total_memory_gib', 'source'} for a device.

    Uses cuda-python (cuda.core, then cuda.bindings) and falls back to torch; for CPU devices
    it reports the host CPU.
    """
    import platform
    dev = str(device)
    if not dev.startswith("cuda"):
        return {"name": f"CPU ({platform.processor() or platform.machine()})", "sm_count": None,
                "compute_capability": None, "total_memory_gib": None, "source": "platform"}
    index = int(dev.split(":", 1)[1]) if ":" in dev else 0
    for probe in (_props_cuda_core, _props_cuda_bindings, _props_torch):
        try:
            props = probe(index)
        except Exception:               # noqa: BLE001 - any failure means: try the next source
            continue
        if props:
            return props
    return {"name": "unknown CUDA device", "sm_count": None, "compute_capability": None,
            "total_memory_gib": None, "source": "none"}


def _props_cuda_core(index: int) -> dict:
    try:
        from cuda.core import Device
    except ImportError:
        from cuda.core.experimental import Device
    d = Device(index)
    cc = d.compute_capability
    return {"name": d.name, "sm_count": int(d.properties.multiprocessor_count),
            "compute_capability": f"{cc[0]}.{cc[1]}", "total_memory_gib": _torch_mem(index),
            "source": "cuda.core"}


def _props_cuda_bindings(index: int) -> dict:
    from cuda.bindings import driver

    def ok(res):
        err, *vals = res if isinstance(res, tuple) else (res,)
        if err != driver.CUresult.CUDA_SUCCESS:
            raise RuntimeError(str(err))
        return vals[0] if vals else None
    ok(driver.cuInit(0))
    dev = ok(driver.cuDeviceGet(index))
    name = ok(driver.cuDeviceGetName(128, dev))
    A = driver.CUdevice_attribute
    sms = ok(driver.cuDeviceGetAttribute(A.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev))
    major = ok(driver.cuDeviceGetAttribute(A.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev))
    minor = ok(driver.cuDeviceGetAttribute(A.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev))
    return {"name": name.split(b"\0", 1)[0].decode(), "sm_count": int(sms),
            "compute_capability": f"{major}.{minor}", "total_memory_gib": _torch_mem(index),
            "source": "cuda.bindings"}


def _props_torch(index: int) -> dict:
    import torch
    p = torch.cuda.get_device_properties(index)
    return {"name": p.name, "sm_count": int(p.multi_processor_count),
            "compute_capability": f"{p.major}.{p.minor}", "total_memory_gib": round(p.total_memory / 2**30, 1),
            "source": "torch"}


def _torch_mem(index: int):
    try:
        import torch
        return round(torch.cuda.get_device_properties(index).total_memory / 2**30, 1)
    except Exception:                   # noqa: BLE001
        return None


def versions() -> dict:
    """Versions of what the harness runs with, without importing the GPU packages."""
    import platform
    from importlib import metadata
    out = {"python": platform.python_version()}
    for key, dist in (("torch", "torch"), ("triton", "triton"), ("cuda.tile", "cuda-tile"),
                      ("cuda-python", "cuda-python"), ("numpy", "numpy"), ("cutile2triton", "cutile2triton")):
        try:
            out[key] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[key] = None
    try:
        import torch
        out["torch"] = torch.__version__
        out["cuda_runtime"] = torch.version.cuda
    except ImportError:
        pass
    return out
