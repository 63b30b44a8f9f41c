"""Run an unmodified cuTile program on Triton: `python -m translator.shim script.py [args]`,
`python -m translator.shim -m pytest ...` (or `cutile2triton run ...`).

`install()` puts a finder first on sys.meta_path that serves `import cuda.tile` (and every
`cuda.tile.*` submodule) with the shim's module (ct_module.py): each `@ct.kernel` is translated
from its source at its first launch (kernel.py, capture.py). See docs/shim.md.
"""
from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys

__all__ = ["install", "installed"]

_FINDER = None


class _Loader(importlib.abc.Loader):
    def create_module(self, spec):
        from . import ct_module
        return ct_module.submodule(spec.name)

    def exec_module(self, module):
        pass


class _Finder(importlib.abc.MetaPathFinder):
    """Serves cuda.tile and its submodules; `cuda` itself only where no real `cuda` package exists."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname == "cuda.tile" or fullname.startswith("cuda.tile."):
            return importlib.machinery.ModuleSpec(fullname, _Loader(), is_package=True)
        if fullname == "cuda" and importlib.machinery.PathFinder.find_spec("cuda", path) is None:
            return importlib.machinery.ModuleSpec("cuda", None, is_package=True)    # a namespace package
        return None


def install(cpu=None) -> None:
    """Serve cuda.tile with the shim from now on (modules already imported keep what they have).
    `cpu`: also install the CPU stand-ins for torch.cuda (cpu.py); None: where torch has no CUDA
    and TRITON_INTERPRET is set."""
    global _FINDER
    if _FINDER is None:
        for name in [n for n in sys.modules if n == "cuda.tile" or n.startswith("cuda.tile.")]:
            del sys.modules[name]
        _FINDER = _Finder()
        sys.meta_path.insert(0, _FINDER)
    import os
    interpreted = os.environ.get("TRITON_INTERPRET", "0") not in ("", "0")
    if cpu is None:
        cpu = interpreted and not _cuda()
    from . import triton_fixes
    if interpreted or cpu:
        triton_fixes.install()
    else:
        triton_fixes.install_compiler()
    if cpu:
        from . import cpu as cpu_mod
        cpu_mod.install()


def installed() -> bool:
    return _FINDER is not None


def _cuda() -> bool:
    try:
        import torch
        return torch.cuda.is_available()
    except ImportError:
        return False
