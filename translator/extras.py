"""What to install when a package of the GPU or test stack is missing (pyproject's extras)."""
from __future__ import annotations

# top-level module -> (the package to install, the extra of cutile2triton that brings it)
_STACK = {"triton": ("triton", "test"), "torch": ("torch", "test"), "numpy": ("numpy", "test"),
          "pytest": ("pytest", "test"), "cuda": ("cuda-tile", "gpu")}


def missing_stack(exc: BaseException) -> str | None:
    """For an ImportError of the GPU/test stack, a message naming what to install; else None."""
    if not isinstance(exc, ImportError):
        return None
    name = (getattr(exc, "name", None) or "").split(".")[0]
    if name not in _STACK:
        return None
    pkg, extra = _STACK[name]
    return (f"the `{exc.name}` module is not installed; this needs the GPU/test stack: "
            f"`pip install 'cutile2triton[{extra}]'` (the CPU interpreter: [test]; a GPU machine "
            f"running original cuTile kernels too: [gpu] and `pip install \"cuda-tile[tileiras]\"`), or "
            f"`pip install {pkg}`")
