"""The C2T_SPEC dict: what to run, on which shapes and dtypes, and how strictly to compare.

```python
C2T_SPEC = {
    "entry": "softmax",                 # host function (same name in the translated module)
    "reference": "softmax_reference",   # optional torch reference with the same signature
    "make_args": "make_args",           # make_args(case, dtype, seed, device) -> tuple
    "op_class": "reduction",            # elementwise | reduction | matmul | integer
    "dtypes": ["float32", "float16", "bfloat16"],
    "cases": [{"M": 3, "N": 37}],       # small shapes (CPU interpreter, goldens)
    "gpu_cases": [{"M": 1000, "N": 1023}],
    "bench_cases": [{"M": 8192, "N": 4096}],
    "bytes": "bytes_moved",             # optional fn(case, dtype) -> int  (GB/s)
    "flops": "flop_count",              # optional fn(case, dtype) -> int  (TFLOP/s)
    "nondeterministic": False,
    "tolerance": {"float16": [1e-3, 1e-3]},
    "bound": "memory",                  # optional: memory | compute (which criterion the bench applies)
    "peers": {"torch.matmul": "peer_fn"},  # optional: other implementations timed next to both
}
```
A peer is a function with the entry's signature (it gets make_args' tuple); it is timed on the
bench cases only (its results are not compared), and the report gives t_peer / t_Triton.
Names are looked up in the spec file first (when one is given), then in the original module.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from .errors import HarnessError
from .tolerance import OP_CLASSES

_DTYPE_ALIASES = {"fp32": "float32", "f32": "float32", "fp16": "float16", "f16": "float16", "half": "float16",
                  "bf16": "bfloat16", "fp64": "float64", "f64": "float64", "double": "float64",
                  "fp8": "float8_e4m3fn", "e4m3": "float8_e4m3fn", "e5m2": "float8_e5m2"}

KNOWN_KEYS = {"entry", "reference", "make_args", "op_class", "dtypes", "cases", "gpu_cases", "bench_cases",
              "bytes", "flops", "nondeterministic", "tolerance", "bound", "peers"}


def torch_dtype(name):
    """torch dtype for 'float16', 'fp16', 'torch.bfloat16', or a torch dtype."""
    import torch
    if isinstance(name, torch.dtype):
        return name
    key = str(name).removeprefix("torch.")
    key = _DTYPE_ALIASES.get(key, key)
    dt = getattr(torch, key, None)
    if not isinstance(dt, torch.dtype):
        raise HarnessError(f"unknown dtype {name!r} in the spec")
    return dt


@dataclass
class Spec:
    entry: str
    make_args: Callable
    reference: Callable | None = None
    reference_name: str | None = None
    op_class: str = "elementwise"
    dtypes: list[str] = field(default_factory=lambda: ["float32"])
    cases: list[dict] = field(default_factory=list)
    gpu_cases: list[dict] = field(default_factory=list)
    bench_cases: list[dict] = field(default_factory=list)
    bytes_fn: Callable | None = None
    flops_fn: Callable | None = None
    nondeterministic: bool = False
    tolerance: dict[str, tuple[float, float]] = field(default_factory=dict)
    bound: str | None = None              # memory | compute | None (not classified)
    peers: dict[str, Callable] = field(default_factory=dict)
    source: str = ""                      # where the spec came from, for reports

    def case_list(self, which: str) -> list[dict]:
        if which not in ("cases", "gpu_cases", "bench_cases"):
            raise HarnessError(f"unknown case list {which!r} (use cases, gpu_cases or bench_cases)")
        return list(getattr(self, which))


def _lookup(name, where: list, what: str, required: bool):
    if name is None:
        if required:
            raise HarnessError(f"C2T_SPEC has no {what!r} entry")
        return None
    if callable(name):
        return name
    for mod in where:
        fn = getattr(mod, name, None)
        if fn is not None:
            if not callable(fn):
                raise HarnessError(f"C2T_SPEC[{what!r}] = {name!r} is not a function")
            return fn
    places = ", ".join(getattr(m, "__file__", "?") or "?" for m in where)
    raise HarnessError(f"C2T_SPEC[{what!r}] names {name!r}, which is not defined in {places}")


def _case_list(raw: dict, key: str) -> list[dict]:
    val = raw.get(key, [])
    if not isinstance(val, (list, tuple)) or not all(isinstance(c, dict) for c in val):
        raise HarnessError(f"C2T_SPEC[{key!r}] must be a list of dicts (one per case)")
    return [dict(c) for c in val]


def parse_spec(raw: Any, modules: list, source: str) -> Spec:
    """Validate a C2T_SPEC dict and resolve its function names in ``modules`` (in order)."""
    if not isinstance(raw, dict):
        raise HarnessError(f"C2T_SPEC in {source} must be a dict, got {type(raw).__name__}")
    unknown = set(raw) - KNOWN_KEYS
    if unknown:
        raise HarnessError(f"C2T_SPEC in {source} has unknown keys: {', '.join(sorted(unknown))} "
                           f"(known: {', '.join(sorted(KNOWN_KEYS))})")
    entry = raw.get("entry")
    if not isinstance(entry, str):
        raise HarnessError(f"C2T_SPEC in {source} needs 'entry': the name of the host function to run")
    _lookup(entry, modules[-1:], "entry", True)       # the entry lives in the original module
    op_class = raw.get("op_class", "elementwise")
    if op_class not in OP_CLASSES:
        raise HarnessError(f"C2T_SPEC['op_class'] = {op_class!r}; use one of {', '.join(OP_CLASSES)}")
    dtypes = raw.get("dtypes", ["float32"])
    if isinstance(dtypes, str):
        dtypes = [dtypes]
    dtypes = [str(torch_dtype(d)).removeprefix("torch.") for d in dtypes]
    tol = {}
    for k, v in (raw.get("tolerance") or {}).items():
        if not (isinstance(v, (list, tuple)) and len(v) == 2):
            raise HarnessError(f"C2T_SPEC['tolerance'][{k!r}] must be [rtol, atol]")
        tol[str(torch_dtype(k)).removeprefix("torch.")] = (float(v[0]), float(v[1]))
    bound = raw.get("bound")
    if bound not in (None, "memory", "compute"):
        raise HarnessError(f"C2T_SPEC['bound'] = {bound!r}; use 'memory' or 'compute'")
    raw_peers = raw.get("peers") or {}
    if not isinstance(raw_peers, dict):
        raise HarnessError("C2T_SPEC['peers'] must be a dict {label: function name}")
    peers = {str(k): _lookup(v, modules, f"peers[{k!r}]", True) for k, v in raw_peers.items()}
    spec = Spec(
        entry=entry,
        make_args=_lookup(raw.get("make_args"), modules, "make_args", True),
        reference=_lookup(raw.get("reference"), modules, "reference", False),
        reference_name=raw.get("reference") if isinstance(raw.get("reference"), str) else None,
        op_class=op_class, dtypes=dtypes,
        cases=_case_list(raw, "cases"), gpu_cases=_case_list(raw, "gpu_cases"),
        bench_cases=_case_list(raw, "bench_cases"),
        bytes_fn=_lookup(raw.get("bytes"), modules, "bytes", False),
        flops_fn=_lookup(raw.get("flops"), modules, "flops", False),
        nondeterministic=bool(raw.get("nondeterministic", False)),
        tolerance=tol, bound=bound, peers=peers, source=source)
    if not (spec.cases or spec.gpu_cases):
        raise HarnessError(f"C2T_SPEC in {source} has neither 'cases' nor 'gpu_cases'")
    return spec


def load_spec(original_module, spec_path=None) -> Spec:
    """The spec from ``spec_path`` (a Python file defining C2T_SPEC) or from the original module."""
    from .loading import load_module
    modules = [original_module]
    if spec_path is not None:
        spec_mod = load_module(Path(spec_path), tag="spec")
        if not hasattr(spec_mod, "C2T_SPEC"):
            raise HarnessError(f"{spec_path} does not define C2T_SPEC")
        return parse_spec(spec_mod.C2T_SPEC, [spec_mod, original_module], str(spec_path))
    raw = getattr(original_module, "C2T_SPEC", None)
    if raw is None:
        raise HarnessError(f"{original_module.__file__} has no C2T_SPEC; add one or pass --spec SPEC.py "
                           f"(see translator/harness/spec.py for the format)")
    return parse_spec(raw, modules, original_module.__file__)
