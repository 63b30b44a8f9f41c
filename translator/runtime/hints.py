"""cuTile kernel hints at launch time: kernel.replace_hints(...) and the launch options they
become (num_ctas: a CTA cluster).

Part of cutile2triton's launch runtime (translator/runtime/).
"""
import os

import torch
import triton


class _C2THinted:
    """`kernel.replace_hints(**hints)`: the translated kernel, whose launches carry these hints."""

    def __init__(self, kernel, hints):
        self.c2t_kernel, self.c2t_hints = kernel, dict(hints)
        self.c2t_launch = lambda *args, c2t_hints=None, **kw: kernel.c2t_launch(
            *args, c2t_hints=self._merged(c2t_hints), **kw)
        if hasattr(kernel, "c2t_meta"):
            self.c2t_meta = lambda *args, c2t_hints=None, **kw: kernel.c2t_meta(
                *args, c2t_hints=self._merged(c2t_hints), **kw)

    def _merged(self, hints):
        return {**self.c2t_hints, **hints} if hints else self.c2t_hints

    def replace_hints(self, **hints):
        return _C2THinted(self.c2t_kernel, {**self.c2t_hints, **hints})

    def __getattr__(self, name):
        return getattr(self.c2t_kernel, name)

    def __repr__(self):
        return f"{self.c2t_kernel!r}.replace_hints({', '.join(f'{k}={v!r}' for k, v in self.c2t_hints.items())})"


# cuTile's num_ctas hint runs a program as a cluster of CTAs (sm_90+); Triton's num_ctas option is
# the same thing (its launcher multiplies the grid and sets the cluster size). Measured on the H200
# (docs/decisions/005-cta-clusters.md): TileGym's 256x256 matmul tiles spill registers without
# it and run 0.85 -> 0.97 of cuTile with it. $C2T_NUM_CTAS=0 drops the hint (for comparisons).
_C2T_CLUSTERS = os.environ.get("C2T_NUM_CTAS", "1") != "0"
_C2T_CLUSTER_DEVICES = {}


def _c2t_hint_options(hints, clusters=True, **decorator):
    """Launch options from cuTile kernel hints: those of replace_hints / an exhaustive_search hints
    function (`hints`) over the @ct.kernel decorator's. num_ctas > 1 becomes Triton's num_ctas on
    GPUs that have clusters (sm_90+; cuTile configs for older GPUs use 1), unless `clusters` is
    false (a dual-kernel variant that transposes tiles, which Triton 3.6 miscompiles with clusters).
    occupancy, opt_level and num_worker_warps have no Triton equivalent (reported at translation,
    C2T201/C2T204)."""
    n = hints.get("num_ctas", decorator.get("num_ctas")) if hints else decorator.get("num_ctas")
    if n is None or n == 1 or not _C2T_CLUSTERS or not clusters:
        return {}
    if not isinstance(n, int) or n < 1 or n & (n - 1):
        raise ValueError(f"num_ctas hint must be a power of two, got {n!r}")
    if torch.cuda.is_available() and os.environ.get("TRITON_INTERPRET") != "1":
        device = torch.cuda.current_device()
        ok = _C2T_CLUSTER_DEVICES.get(device)
        if ok is None:
            ok = _C2T_CLUSTER_DEVICES[device] = torch.cuda.get_device_capability(device)[0] >= 9
            if not ok:
                import warnings
                warnings.warn(f"cuTile's num_ctas={n} hint needs CTA clusters (sm_90+); this GPU has none, "
                              f"so kernels run without them", stacklevel=3)
        if not ok:
            return {}
    return {"num_ctas": n}


def _c2t_first_launch(kernel, grid, args, options):
    """kernel[grid](*args, **options), compiled here for the first time. When Triton fails to compile
    it with a CTA cluster (num_ctas > 1: Triton 3.6 fails on some kernels cuTile runs clustered), it
    is compiled and launched without one, with a warning: nothing ran before the failure."""
    try:
        return kernel[grid](*args, **options)
    except (triton.compiler.errors.CompilationError, triton.runtime.errors.PTXASError, RuntimeError) as exc:
        if options.get("num_ctas", 1) == 1 or not (
                isinstance(exc, triton.runtime.errors.PTXASError) or "PassManager::run failed" in str(exc)
                or isinstance(exc, triton.compiler.errors.CompilationError)):
            raise
        import warnings
        name = getattr(kernel, "__name__", repr(kernel))
        warnings.warn(f"`{name}`: Triton could not compile it with num_ctas={options['num_ctas']} (cuTile's "
                      f"num_ctas hint, {type(exc).__name__}); it runs without a CTA cluster", stacklevel=3)
        return kernel[grid](*args, **{k: v for k, v in options.items() if k != "num_ctas"})
