"""ct.ByTarget and the kernel hints' checks of cuTile 1.7, on the host: a hint out of cuTile's range
raises its ValueError at `ct.kernel(...)` (not at the first launch, where the translation would
drop or clamp it), and `cuda.tile._compiler_options.CompilerOptions`, which cutile-python's tests
ask for the hints per target (hints_by_target, opt_level_for_target), answers from the same rule."""
from __future__ import annotations

import types


class _Unspecified:
    def __repr__(self):
        return "UNSPECIFIED"


UNSPECIFIED = _Unspecified()


class ByTarget:
    """ct.ByTarget(sm_100=..., default=...): a hint value per target; written back into kernels."""

    def __init__(self, *, default=UNSPECIFIED, **value_by_target):
        for sm in value_by_target:
            if not (sm.startswith("sm_") and sm[3:].isdigit()):
                raise ValueError(f"Invalid GPU architecture name: {sm}, expected sm_<major><minor>")
        self._default, self._by_target = default, dict(value_by_target)
        parts = [f"{k}={v!r}" for k, v in self._by_target.items()]
        if default is not UNSPECIFIED:
            parts.append(f"default={default!r}")
        self._c2t_src = f"ct.ByTarget({', '.join(parts)})"

    def __repr__(self):
        return self._c2t_src

    def __eq__(self, other):
        return isinstance(other, ByTarget) and (self._default, self._by_target) == (other._default, other._by_target)

    __hash__ = None


def _range(name, lo, hi, pow2=False):
    def check(v):
        if v is None:
            return
        if pow2 and name == "num_worker_warps" and v not in (1, 2, 4, 8, 16, 32):
            raise ValueError(f"num_worker_warps should be a power of 2 in [1, 32], got {v}")
        if v < lo or v > hi:
            raise ValueError(f"{name} should be [{lo}, {hi}], got {v}")
        if pow2 and v & (v - 1):
            raise ValueError(f"{name} should be power of 2, got {v}")
    return check


# hint -> (its default, its check), as cuTile 1.7's CompilerOptions
HINTS = {
    "num_ctas": (None, _range("num_ctas", 1, 16, pow2=True)),
    "occupancy": (None, _range("occupancy", 1, 32)),
    "opt_level": (3, _range("opt_level", 0, 3)),
    "num_worker_warps": (None, _range("num_worker_warps", 1, 32, pow2=True)),
}


def check_hints(hints: dict):
    """Raise cuTile's ValueError for a hint (or a ByTarget entry of one) out of its range."""
    for name, value in hints.items():
        if name not in HINTS:
            continue
        check = HINTS[name][1]
        if isinstance(value, ByTarget):
            for v in value._by_target.values():
                check(v)
            if value._default is not UNSPECIFIED:
                check(value._default)
        else:
            check(value)


class CompilerOptions:
    """The kernel hints cuTile's compiler is given (num_ctas, occupancy, opt_level,
    num_worker_warps), checked as ct.kernel checks them."""

    def __init__(self, **hints):
        unknown = set(hints) - set(HINTS)
        if unknown:
            raise TypeError(f"CompilerOptions got unexpected keyword argument {sorted(unknown)[0]!r}")
        values = {name: hints.get(name, default) for name, (default, _check) in HINTS.items()}
        check_hints(values)
        self.__dict__.update(values)

    def hints_by_target(self) -> dict:
        """{target or "default": {hint: value}}: each ByTarget's entries under their targets, every
        hint's default (its ByTarget's, else its own) under "default"."""
        res: dict = {}
        for name, (default, _check) in HINTS.items():
            value = getattr(self, name)
            if isinstance(value, ByTarget):
                for target, v in value._by_target.items():
                    res.setdefault(target, {})[name] = v
                value = value._default if value._default is not UNSPECIFIED else default
            res.setdefault("default", {})[name] = value
        return res

    def opt_level_for_target(self, target_name: str) -> int:
        v = self.opt_level
        if isinstance(v, ByTarget):
            v = v._by_target.get(target_name, v._default)
            if v is UNSPECIFIED:
                v = HINTS["opt_level"][0]
        return v


# (cuTile's CompilerOptions is a dataclass; tests read its defaults through it:
# `CompilerOptions.__dataclass_fields__['opt_level'].default`, cutile-python's test_print)
CompilerOptions.__dataclass_fields__ = {name: types.SimpleNamespace(name=name, default=default)
                                        for name, (default, _check) in HINTS.items()}
