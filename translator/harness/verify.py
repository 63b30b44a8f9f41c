"""verify(): run the original cuTile entry and the translated Triton entry on the same seeded
inputs, compare them under the tolerance policy, time them, and return a Report."""
from __future__ import annotations

import contextlib
import os
import sys
import time
from pathlib import Path

from .bench import bench_case, copy_bandwidth_gbps, cuda_ready
from .errors import HarnessError
from .interop import device_properties, to_torch, versions
from .loading import interpreter_env, load_module, load_translated, rebind_cutile_imports, resolve_translated
from .report import CaseResult, Report
from .runner import Stopwatch, as_args_tuple, clone_args, run_pair
from .spec import Spec, load_spec, torch_dtype
from .tolerance import policy_table

MODES = ("gpu", "interp")


def _say(msg: str, progress: bool):
    if progress:
        print(msg, file=sys.stderr, flush=True)


def _announced(fn, what: str, progress: bool):
    """fn, saying when it starts (a run cut off by a timeout then shows which side it was in)."""
    def call(*args, **kwargs):
        _say(f"{what}: running ({time.strftime('%H:%M:%S')})", progress)
        return fn(*args, **kwargs)
    return call


def _g(x) -> str:
    return "-" if x is None else f"{x:.4g}"


def context_lost(err: str, device: str) -> bool:
    """A CUDA error that leaves the context unusable (illegal instruction / address, launch failure)."""
    low = err.lower()
    return str(device).startswith("cuda") and any(
        k in low for k in ("illegal instruction", "illegal memory access", "illegal address",
                           "unspecified launch failure", "misaligned address"))


def case_label(case: dict) -> str:
    return " ".join(f"{k}={v}" for k, v in case.items()) or "(no parameters)"


def make_args(spec: Spec, case: dict, dtype, seed: int, device: str) -> tuple:
    import torch
    torch.manual_seed(seed)
    try:
        args = spec.make_args(dict(case), dtype, seed, device)
    except Exception as exc:          # noqa: BLE001 - a make_args bug is bad input
        raise HarnessError(f"make_args({case}, {dtype}, {seed}, {device!r}) raised "
                           f"{type(exc).__name__}: {exc}") from exc
    return as_args_tuple(to_torch(args))


def select_dtypes(spec: Spec, dtypes) -> list:
    names = list(dtypes) if dtypes else spec.dtypes
    return [torch_dtype(d) for d in names]


def select_cases(spec: Spec, which: str | None, mode: str, notes: list[str]) -> tuple[str, list[dict]]:
    which = which or ("gpu_cases" if mode == "gpu" else "cases")
    got = spec.case_list(which)
    if not got:
        other = "cases" if which == "gpu_cases" else "gpu_cases"
        got = spec.case_list(other)
        notes.append(f"the spec has no {which!r}; used {other!r}")
        which = other
    return which, got


def policy_kwargs(spec: Spec) -> dict:
    return {"op_class": spec.op_class, "nondeterministic": spec.nondeterministic, "overrides": spec.tolerance}


def new_report(path, spec: Spec, mode: str, device: str, translated_file: str = "") -> Report:
    rep = Report(file=str(path), entry=spec.entry, mode=mode, device=device,
                 device_info=device_properties(device), versions=versions(), op_class=spec.op_class,
                 nondeterministic=spec.nondeterministic,
                 policy=policy_table(spec.op_class, nondeterministic=spec.nondeterministic,
                                     overrides=spec.tolerance),
                 translated_file=translated_file, bound=spec.bound,
                 settings={k: v for k, v in sorted(os.environ.items()) if k.startswith("C2T_")})
    if "interp" in mode and str(rep.versions.get("triton", "")).startswith("3.6") and \
            tuple(int(x) for x in str(rep.versions.get("numpy") or "0.0").split(".")[:2]) >= (2, 4):
        rep.notes.append("triton 3.6's interpreter needs numpy < 2.4 (grid lambdas and runtime-bound "
                         "loops fail with 'only 0-dimensional arrays can be converted'); this run has "
                         f"numpy {rep.versions['numpy']}")
    if spec.nondeterministic:
        rep.notes.append("the spec marks this kernel nondeterministic (e.g. atomics order): "
                         "outputs were compared with the looser policy shown above")
    return rep


@contextlib.contextmanager
def run_mode(mode: str):
    """TRITON_INTERPRET=1 (interp) or not, and triton.language's @jit library in the same mode."""
    from .triton_mode import library_mode
    with interpreter_env(on=mode == "interp"), library_mode(interpret=mode == "interp"):
        yield


def set_cuda_allocator(device: str):
    """In-kernel tensor descriptors need a Triton allocator on the GPU (triton-target.md §0): the
    hand-written Triton peers' too, so one is installed before anything runs. It is marked as the
    plain scratch allocator a translated module installs for itself (`c2t_scratch`), so that the
    translation's launches are timed as in a program that installed none (launches from the launch
    memo then share one scratch buffer per stream instead of allocating one each)."""
    if cuda_ready(device):
        import torch
        import triton

        def scratch(size, align, stream):
            return torch.empty(size, dtype=torch.int8, device=device)
        scratch.c2t_scratch = True
        triton.set_allocator(scratch)


CUTILE_COMPILER_TIMEOUT_FLOOR = float(os.environ.get("C2T_CUTILE_COMPILER_TIMEOUT", "120"))


def raise_cutile_compiler_timeout(floor: float = CUTILE_COMPILER_TIMEOUT_FLOOR) -> str | None:
    """GPU mode: `ct.compiler_timeout(t)` in the original gets max(t, floor) seconds. On a fresh
    device machine cuTile compiles every tuning config from nothing, and TileGym's 5 s (group_gemm)
    ran out there, so its search raised "No valid config found" and the row had no cuTile time.
    The kernels and their run time are unchanged; only cuTile's compile-time budget is. Returns a
    note for the report, or None when cuda.tile is missing or the floor is 0."""
    if floor <= 0:
        return None
    try:
        import cuda.tile as ct
    except ImportError:
        return None
    if getattr(ct.compiler_timeout, "c2t_floor", None) == floor:
        return f"cuTile's compiler_timeout raised to at least {floor:g} s (C2T_CUTILE_COMPILER_TIMEOUT)"
    original = getattr(ct.compiler_timeout, "c2t_original", ct.compiler_timeout)

    def compiler_timeout(timeout_sec):
        return original(max(float(timeout_sec), floor))
    compiler_timeout.c2t_floor, compiler_timeout.c2t_original = floor, original
    ct.compiler_timeout = compiler_timeout
    return f"cuTile's compiler_timeout raised to at least {floor:g} s (C2T_CUTILE_COMPILER_TIMEOUT)"


def load_modules(path, spec_path, translated, mode: str, translated_dir=None):
    """(original module, Spec, translated module, translated file, translator diagnostics)."""
    original = load_module(path)
    spec = load_spec(original, spec_path)
    code, diags = resolve_translated(path, translated)
    if mode == "interp":
        from . import interp_numerics
        interp_numerics.install()
    module, tfile = load_translated(code, path, out_dir=translated_dir)
    diags = diags + [f"harness: {n}" for n in rebind_cutile_imports(module, out_dir=translated_dir)]
    if not callable(getattr(module, spec.entry, None)):
        raise HarnessError(f"the translated module ({tfile}) has no function {spec.entry!r}")
    return original, spec, module, tfile, diags


def verify(path, spec=None, *, device: str = "cuda", translated=None, mode: str = "gpu", seeds=(0, 1),
           cases: str | None = None, dtypes=None, bench: bool = True, progress: bool = True,
           translated_dir=None, bench_cases=None, check_cases=None, on_result=None) -> Report:
    """Check that the translation of the cuTile module at ``path`` computes what the original does.

    mode="gpu": original and translated entries both run on ``device`` (normally "cuda"; any torch
    device works for plain-torch test doubles) and are compared; bench_cases are timed on CUDA.
    mode="interp": CPU only; the translated module runs under TRITON_INTERPRET=1 (with the bf16/fp8
    numerics patch) and is compared with the spec's torch reference.
    ``cases`` picks the spec's case list ("cases" or "gpu_cases"; default: gpu_cases for gpu mode,
    cases for interp).  ``bench_cases``: indices of the spec's bench_cases to time (default all);
    ``check_cases``: indices into the chosen case list to check (default all). ``on_result(report)``
    is called after every case and every timed bench case (the CLI writes partial reports with it,
    so that a run cut off by a timeout still leaves what it measured).
    Raises HarnessError on bad input; mismatches are reported, not raised.
    """
    if mode not in MODES:
        raise HarnessError(f"unknown mode {mode!r}; use one of {', '.join(MODES)}")
    path = Path(path)
    if mode == "interp":
        device = "cpu"
    with run_mode(mode):
        original, sp, tmod, tfile, diags = load_modules(path, spec, translated, mode, translated_dir)
        rep = new_report(path, sp, mode, device, tfile)
        rep.notes += [f"translator: {d}" for d in diags]
        bad = [i for i in bench_cases or [] if not 0 <= i < len(sp.bench_cases)]
        if bad:      # checked before any case runs: a typo must not cost a whole device run
            raise HarnessError(f"bench case indices {bad} out of range: the spec has "
                               f"{len(sp.bench_cases)} bench_cases")
        if mode == "gpu":
            expected_fn, against = getattr(original, sp.entry), "original"
            note = raise_cutile_compiler_timeout()
            if note and "compiler_timeout" in Path(path).read_text(errors="replace"):
                rep.notes.append(note)
        else:
            if sp.reference is None:
                raise HarnessError("interp mode compares with the spec's 'reference' function, and the spec has "
                                   "none; add one, or record goldens on a GPU and use check_goldens / --goldens")
            expected_fn, against = sp.reference, "reference"
        set_cuda_allocator(device)
        alive = run_cases(rep, sp, expected_fn, getattr(tmod, sp.entry), against, device, seeds, cases, dtypes,
                          mode, progress, fallback=sp.reference if mode == "gpu" else None, pick=check_cases,
                          on_result=on_result)
        if mode == "gpu" and bench and alive:
            run_bench(rep, sp, getattr(original, sp.entry), getattr(tmod, sp.entry), device, dtypes, progress,
                      bench_cases, on_result=on_result)
        elif mode == "gpu":
            rep.notes.append("timing skipped (--no-bench)")
    _say(f"{'PASS' if rep.ok else 'FAIL'}: {rep.n_passed}/{len(rep.results)} cases", progress)
    return rep


def run_cases(rep: Report, sp: Spec, expected_fn, actual_fn, against: str, device: str, seeds, which,
              dtypes, mode: str, progress: bool, fallback=None, pick=None, on_result=None) -> bool:
    """Run every case x dtype x seed; False when a CUDA error ended the run early. When the original
    raised on a case (e.g. cuTile's compiler timed out) and `fallback` (the spec's torch reference)
    is given, the translation is compared with the reference instead, and the case says so."""
    which, case_list = select_cases(sp, which, mode, rep.notes)
    if pick is not None:
        bad = [i for i in pick if not 0 <= i < len(case_list)]
        if bad:
            raise HarnessError(f"case indices {bad} out of range: the spec has {len(case_list)} {which}")
        case_list = [case_list[i] for i in pick]
        rep.notes.append(f"correctness checked on {which} {list(pick)} only (the others: another entry or run)")
    dts = select_dtypes(sp, dtypes)
    total, i = len(case_list) * len(dts) * len(seeds), 0
    for case in case_list:
        for dt in dts:
            for seed in seeds:
                i += 1
                label = case_label(case)
                args = make_args(sp, case, dt, seed, device)
                vs = against
                with Stopwatch() as sw:
                    checks, err = run_pair(_announced(expected_fn, f"[{i}/{total}] {against}", progress),
                                           _announced(actual_fn, f"[{i}/{total}] translation", progress),
                                           args, device, policy=policy_kwargs(sp), expected_label=against)
                    if err.startswith(f"{against} raised") and fallback is not None:
                        first = err.splitlines()[0]
                        checks, err = run_pair(fallback, actual_fn, args, device, policy=policy_kwargs(sp),
                                               expected_label="reference")
                        vs = f"reference ({first})"
                res = CaseResult(label, dict(case), str(dt).removeprefix("torch."), seed,
                                 passed=not err and all(c.passed for c in checks), compared_against=vs,
                                 checks=checks, error=err, seconds=sw.seconds)
                rep.results.append(res)
                if on_result is not None:
                    on_result(rep)
                _say(f"[{i}/{total}] {sp.entry} {label} {res.dtype} seed={seed}: "
                     f"{'PASS' if res.passed else 'FAIL'} ({res.summary()}) {sw.seconds:.2f}s", progress)
                if err and context_lost(err, device):
                    rep.notes.append(f"stopped after case {i}/{total}: the CUDA context is unusable after "
                                     f"this error, so the remaining cases were not run")
                    _say("CUDA context lost: stopping", progress)
                    return False
    return True


def run_bench(rep: Report, sp: Spec, orig_fn, trans_fn, device: str, dtypes, progress: bool, which=None,
              on_result=None):
    chosen = sp.bench_cases if which is None else [sp.bench_cases[i] for i in which]
    if not cuda_ready(device):
        rep.notes.append(f"timing skipped: device {device!r} is not a CUDA device")
        return
    if not chosen:
        rep.notes.append("timing skipped: the spec has no bench_cases")
        return
    _say("measuring device-to-device copy bandwidth (1 GiB clone)...", progress)
    rep.copy_bandwidth = copy_bandwidth_gbps(device)
    dts = select_dtypes(sp, dtypes)
    total, i = len(chosen) * len(dts), 0
    for case in chosen:
        for dt in dts:
            i += 1
            args = make_args(sp, case, dt, 0, device)
            _say(f"[bench {i}/{total}] {sp.entry} {case_label(case)} {str(dt).removeprefix('torch.')}: timing "
                 f"(the first calls compile, and autotune where the code does) at {time.strftime('%H:%M:%S')}",
                 progress)
            t = bench_case(case_label(case), case, dt, orig_fn, trans_fn, args, bytes_fn=sp.bytes_fn,
                           flops_fn=sp.flops_fn, clone=clone_args, peers=sp.peers)
            rep.timings.append(t)
            if on_result is not None:
                on_result(rep)
            _say(f"[bench {i}/{total}] {sp.entry} {t.label} {t.dtype}: cuTile {_g(t.t_cutile_ms)} ms, "
                 f"Triton {_g(t.t_triton_ms)} ms, ratio {_g(t.ratio)}"
                 + "".join(f", {k} {_g(v.get('ms'))} ms" for k, v in (t.peers or {}).items())
                 + (f" ({t.error.splitlines()[0]})" if t.error else ""), progress)
            del args
