"""Run one case: make inputs, run the expected side and the translated side, compare."""
from __future__ import annotations

import time
import traceback
from typing import Any, Callable

from .compare import OutputCheck, compare_outputs, flatten_tensors


def clone_args(args: Any, device=None, _memo: dict | None = None):
    """Deep copy of every tensor in args (onto ``device`` if given) that keeps storage offsets,
    strides and aliasing between arguments."""
    import torch
    memo = {} if _memo is None else _memo
    if isinstance(args, torch.Tensor):
        t = args.detach()
        st = t.untyped_storage()
        key = (st.data_ptr(), str(t.device))
        if key not in memo:
            if device is None or torch.device(device) == t.device:
                memo[key] = st.clone()
            else:
                memo[key] = torch.UntypedStorage(st.nbytes(), device=device)
                memo[key].copy_(st)
        out = torch.empty(0, dtype=t.dtype, device=memo[key].device)
        out.set_(memo[key], t.storage_offset(), t.size(), t.stride())
        return out
    if isinstance(args, tuple) and hasattr(args, "_fields"):          # namedtuple
        return type(args)(*(clone_args(a, device, memo) for a in args))
    if isinstance(args, (list, tuple)):
        return type(args)(clone_args(a, device, memo) for a in args)
    if isinstance(args, dict):
        return {k: clone_args(v, device, memo) for k, v in args.items()}
    return args


def _same(a, b) -> bool:
    import torch
    if a.dtype.is_floating_point:
        return bool(((a == b) | (torch.isnan(a) & torch.isnan(b))).all().item())
    return torch.equal(a, b)


def _sync(device: str):
    import torch
    if str(device).startswith("cuda") and torch.cuda.is_available():
        torch.cuda.synchronize()


def as_args_tuple(args) -> tuple:
    return tuple(args) if isinstance(args, (list, tuple)) else (args,)


def run_side(fn: Callable, args: tuple, device: str) -> list[tuple[str, Any]]:
    """Call fn(*args) and return its named output tensors ('out', 'out[1]', ...)."""
    from .interop import to_torch
    res = fn(*args)
    _sync(device)
    return flatten_tensors(to_torch(res), "out")


def mutated_inputs(before: tuple, after: tuple) -> list[str]:
    """Names ('arg[0]', ...) of input tensors whose values changed."""
    b, a = flatten_tensors(list(before), "arg"), flatten_tensors(list(after), "arg")
    return [n for (n, x), (_, y) in zip(b, a) if x.shape == y.shape and not _same(x, y)]


def pick(named: list[tuple[str, Any]], names: list[str]) -> list[tuple[str, Any]]:
    d = dict(named)
    return [(n, d[n]) for n in names if n in d]


def _err(side: str, exc: BaseException) -> str:
    tb = traceback.format_exception(type(exc), exc, exc.__traceback__)
    tail = "".join(tb[-3:]).strip()
    return f"{side} raised {type(exc).__name__}: {exc}\n{tail}"


def run_pair(expected_fn: Callable, actual_fn: Callable, args: tuple, device: str, *, policy: dict,
             expected_label: str = "original") -> tuple[list[OutputCheck], str]:
    """Run both sides on separate copies of args; compare returned tensors and mutated inputs.

    Returns (checks, error); error is "" unless one side raised.
    """
    pristine = clone_args(args)
    exp_args, act_args = clone_args(args), clone_args(args)
    try:
        exp_out = run_side(expected_fn, exp_args, device)
    except Exception as exc:              # noqa: BLE001
        return [], _err(expected_label, exc)
    try:
        act_out = run_side(actual_fn, act_args, device)
    except Exception as exc:              # noqa: BLE001
        return [], _err("translated", exc)
    changed = mutated_inputs(pristine, exp_args)
    exp_named = exp_out + pick(flatten_tensors(list(exp_args), "arg"), changed)
    act_named = act_out + pick(flatten_tensors(list(act_args), "arg"), changed)
    if not exp_named:
        return [], f"{expected_label} returned no tensor and changed no input: nothing to compare"
    return compare_outputs(exp_named, act_named, **policy), ""


def run_against(expected: list[tuple[str, Any]], actual_fn: Callable, args: tuple, device: str, *,
                policy: dict) -> tuple[list[OutputCheck], str]:
    """Run actual_fn on args and compare with already known outputs (goldens).

    ``expected`` names returned tensors 'out...' and mutated inputs 'arg[i]...'.
    """
    act_args = clone_args(args)
    try:
        act_out = run_side(actual_fn, act_args, device)
    except Exception as exc:              # noqa: BLE001
        return [], _err("translated", exc)
    names = [n for n, _ in expected]
    act_named = act_out + pick(flatten_tensors(list(act_args), "arg"), [n for n in names if n.startswith("arg")])
    return compare_outputs(expected, act_named, **policy), ""


class Stopwatch:
    def __enter__(self):
        self.t0 = time.perf_counter()
        return self

    def __exit__(self, *exc):
        self.seconds = time.perf_counter() - self.t0
