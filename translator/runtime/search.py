"""cuda.tile.tune.exhaustive_search for translated kernels: config lists run through
@triton.autotune (or launch by launch), with cuTile's TuningResult interface.

Part of cutile2triton's launch runtime (translator/runtime/launch.py says how its modules refer to
each other).
"""
import os

import torch
import triton

from . import launch as _rt_launch
from . import stages as _rt_stages


class _C2TMeasurement:
    """cuda.tile.tune.Measurement: a config and its time."""

    def __init__(self, config, mean_us, num_samples, error_margin_us=0.0, how=None):
        self.config, self.mean_us = config, mean_us
        self.num_samples, self.error_margin_us = num_samples, error_margin_us
        self.how = how      # how it was timed, where that is not a count of samples (summary)

    def __repr__(self):
        return f"Measurement(config={self.config!r}, mean_us={self.mean_us:.2f})"


class _C2TTuningResult:
    """cuda.tile.tune.TuningResult: the best measurement, all successes and the failures; printed
    (str, summary) as cuTile prints its result: the fastest configs, the best marked with *."""

    def __init__(self, best, successes, failures):
        self.best, self.successes, self.failures = best, successes, failures

    def summary(self, *, top_k=10, bottom_k=2):
        ranked = sorted(self.successes, key=lambda m: m.mean_us)
        shown = list(range(len(ranked)))
        if len(ranked) > top_k + bottom_k + 1:          # (one row left out is shown instead)
            shown = shown[:top_k] + [None] + shown[len(ranked) - bottom_k:]
        width = max((len(str(m.config)) for m in ranked), default=0)
        lines = [f"{len(self.successes)} succeeded, {len(self.failures)} failed"]
        for i in shown:
            if i is None:
                lines.append(f"    ... {len(ranked) - top_k - bottom_k} more not shown")
                continue
            m = ranked[i]
            samples = f" ({m.how})" if m.how else f" ({m.num_samples} sample{'' if m.num_samples == 1 else 's'})"
            lines.append(f"{'*' if m is self.best else ' '} {str(m.config):<{width}}: {m.mean_us:.1f} us{samples}")
        if self.failures:
            lines.append(f"  {len(self.failures)} failed:")
            for cfg, exc_type, msg in self.failures[:top_k]:
                first = str(msg).split("\n", 1)[0]
                lines.append(f"    {cfg}: {exc_type.__name__}: {first[:57] + '...' if len(first) > 60 else first}")
            if len(self.failures) > top_k:
                lines.append(f"    ... {len(self.failures) - top_k} more not shown")
        if len(ranked) > top_k or len(self.failures) > top_k:
            lines.append("Use .successes and .failures for full results.")
        return "\n".join(lines)

    def __str__(self):
        return self.summary()


def _c2t_exhaustive_search(search_space, stream, grid_fn, kernel, args_fn, hints_fn=None, *, quiet=False,
                           single_run_timeout_sec=None, flush_l2=True):
    """cuda.tile.tune.exhaustive_search for translated kernels, with cuTile's TuningResult interface.
    When every config passes the kernel the same runtime arguments (only Constant arguments such as
    tile sizes differ), this is Triton autotuning: one triton.Config per cuTile config, whose
    Constant arguments are the META the autotuner gives the kernel, and a grid `lambda META: ...`
    computed from the config that META came from (see _c2t_autotune). Otherwise every config is
    launched and timed in turn. The hints function's num_ctas reaches each config's launch
    (_c2t_hint_options); its other hints have no Triton meaning."""
    space = list(search_space)
    meta_of = getattr(kernel, "c2t_meta", None)
    if _C2T_TILE_VARIANTS and meta_of is not None and space:
        space += _c2t_with_variants(space, stream, kernel, meta_of, grid_fn, args_fn, hints_fn, quiet)
    if meta_of is not None and space:
        split = [meta_of(*args_fn(cfg), c2t_hints=hints_fn(cfg) if hints_fn else None,
                         c2t_grid=tuple(grid_fn(cfg))) for cfg in space]
        jit = split[0][0]       # the @triton.jit kernel (the variant a layout flag picked)
        if all(s[0] is jit and _c2t_same_args(s[1], split[0][1]) for s in split):
            try:
                return _c2t_autotune(space, [s[1:] for s in split], stream, grid_fn, jit, quiet)
            except Exception as exc:  # Triton's autotuner skips only out-of-resources configs
                import warnings
                warnings.warn(f"exhaustive_search: triton.autotune failed ({type(exc).__name__}: {exc}); "
                              f"timing each config's launch instead, which reports failing configs")
    return _c2t_search_by_launch(space, stream, grid_fn, kernel, args_fn, hints_fn, quiet)


# $C2T_TILE_VARIANTS widens exhaustive_search with tilings the source did not list. A list tuned
# for another GPU can leave this one idle: TileGym's matmul gives sm_90 its Blackwell list, whose
# smallest tile (128x128x32) makes 64 programs of M=128 N=8192 on the H200's 132 SMs; 64x128x64
# runs 128 programs and reached 0.96-0.97 of torch.matmul where the list's best reached 0.76-0.78
# (docs/decisions/017-tile-variants.md).
#   auto (the default): on a GPU, a config whose launch has fewer programs than the GPU has SMs
#        gets the variants that spread its work: one tile size halved where that makes more
#        programs, alone and with another tile size doubled that the grid does not depend on (the
#        depth of a matmul's K loop, which keeps each program's loads as wide). None under the
#        interpreter, nor for configs that fill the GPU.
#   1:   every config gets every variant with one tile size halved, and the doubled companions.
#   0:   the source's list only.
# Only fields that are powers of two and reach the kernel only as Constant tile dimensions are
# changed (_c2t_tile_variants), and a variant is timed only when its launch writes what the
# source's config writes (_c2t_same_results): a tile size that means more than a tiling (a head
# dimension, say) computes something else, and is dropped.
_C2T_TILE_VARIANTS = {"0": False, "auto": "auto"}.get(os.environ.get("C2T_TILE_VARIANTS", "auto"), True)


def _c2t_with_variants(space, stream, kernel, meta_of, grid_fn, args_fn, hints_fn, quiet):
    """The configs _C2T_TILE_VARIANTS adds to `space` (see there), each checked to compute what the
    source's config computes; prints what it added unless `quiet`."""
    sms = None
    if _C2T_TILE_VARIANTS == "auto":
        if not torch.cuda.is_available() or os.environ.get("TRITON_INTERPRET") == "1":
            return []
        sms = torch.cuda.get_device_properties(torch.cuda.current_device()).multi_processor_count
    sources = {}
    added = _c2t_tile_variants(space, meta_of, getattr(kernel, "c2t_tile_params", ()), grid_fn, args_fn,
                               hints_fn, sms=sms, sources=sources)
    if not added:
        return []
    kept = _c2t_same_results(kernel, added, sources, stream, grid_fn, args_fn, hints_fn)
    if not quiet:
        why = (f"configs of fewer programs than the GPU's {sms} SMs" if sms else "its configs")
        dropped = len(added) - len(kept)
        print(f"exhaustive_search: C2T_TILE_VARIANTS adds {len(kept)} configs to the {len(space)} given: "
              f"{why} with a tile size halved (and another doubled)"
              + (f"; {dropped} more computed something else and were dropped" if dropped else "")
              + ("; C2T_TILE_VARIANTS=0 times the source's list only" if sms else ""))
    return kept


def _c2t_programs(grid):
    n = 1
    for g in grid:
        n *= int(g)
    return n


def _c2t_tile_variants(space, meta_of, tiles, grid_fn, args_fn, hints_fn, sms=None, sources=None):
    """The configs $C2T_TILE_VARIANTS adds: for each config (an object with attributes, such as a
    SimpleNamespace; others add none) whose launch runs no CTA cluster (a kernel that drops the
    num_ctas hint, such as one with rank-3 tiles, runs none), a copy with one field halved, where
    that field is a power of two >= 32 that reaches the kernel only as Constant parameters that are
    tile dimensions (`tiles`, the kernel's c2t_tile_params). A halved copy that launches more
    programs also comes with copies that double one other such field (a power of two >= 16, up to
    256) on which the grid does not depend (halving or doubling it leaves the program count). With
    `sms` (auto mode), only configs of fewer programs than `sms` get variants, and only halvings
    that make more programs. Configs already in the list are not added again. `sources`, a dict,
    receives id(variant) -> the config of `space` it was made from."""
    import copy

    def launch(cfg):
        hints = hints_fn(cfg) if hints_fn else None
        args = tuple(args_fn(cfg))
        grid = tuple(grid_fn(cfg))
        _, _, meta, options = meta_of(*args, c2t_hints=hints, c2t_grid=grid)
        return args, hints, meta, options, _c2t_programs(grid)

    def key(cfg):
        return tuple(sorted((k, repr(v)) for k, v in vars(cfg).items()))

    def changed(cfg, field, value, base):
        """cfg with `field` set to `value`, and its launch, if only that tile dimension moves."""
        try:
            variant = copy.copy(cfg)
            setattr(variant, field, value)     # (a frozen dataclass refuses: no variant)
            v_args, v_hints, v_meta, _, v_programs = launch(variant)
        except Exception:       # noqa: BLE001 - a field the host code needs whole: no variant
            return None
        args, hints, meta = base
        moved_meta = {k for k in v_meta if v_meta[k] != meta.get(k)}
        moved = sum(1 for x, y in zip(v_args, args) if not (x is y or (not isinstance(x, torch.Tensor) and type(x) is type(y) and x == y)))
        if moved_meta and moved_meta <= set(tiles) and moved == len(moved_meta) and len(v_args) == len(args) \
                and v_hints == hints:
            return variant, (v_args, v_hints, v_meta), v_programs
        return None

    def pow2(value, least):
        return type(value) is int and value >= least and not value & (value - 1)

    seen, added = {key(c) for c in space if hasattr(c, "__dict__")}, []

    def add(variant, cfg):
        if key(variant) not in seen:
            seen.add(key(variant))
            added.append(variant)
            if sources is not None:
                sources[id(variant)] = cfg

    for cfg in space:
        if not hasattr(cfg, "__dict__") or not tiles:
            continue
        try:
            args, hints, meta, options, programs = launch(cfg)
        except Exception:       # noqa: BLE001 - the search reports a config that cannot launch
            continue
        if options.get("num_ctas", 1) != 1:
            continue    # Triton 3.6's clusters miscompiled some tilings (docs/decisions/005-cta-clusters.md)
        if sms is not None and programs >= sms:
            continue
        fields = list(vars(cfg).items())
        for field, value in fields:
            if not pow2(value, 32):
                continue
            half = changed(cfg, field, value // 2, (args, hints, meta))
            if half is None or (sms is not None and half[2] <= programs):
                continue
            add(half[0], cfg)
            if half[2] <= programs:
                continue
            for other, depth in fields:
                if other == field or not pow2(depth, 16) or depth * 2 > 256:
                    continue
                deeper = changed(half[0], other, depth * 2, half[1])
                shallower = changed(half[0], other, depth // 2, half[1])
                if deeper is not None and shallower is not None and deeper[2] == shallower[2] == half[2]:
                    add(deeper[0], cfg)
    return added


def _c2t_launch_config(kernel, cfg, stream, grid_fn, args_fn, hints_fn):
    """Launch `kernel` as exhaustive_search launches config `cfg`; returns the arguments."""
    k = kernel(cfg) if not hasattr(kernel, "c2t_launch") else kernel
    if hints_fn is not None and hasattr(k, "replace_hints"):
        k = k.replace_hints(**hints_fn(cfg))
    args = tuple(args_fn(cfg))
    k.c2t_launch(tuple(grid_fn(cfg)), *args, stream=stream)
    return args


def _c2t_tensors_in(args):
    out = []
    for a in args:
        if isinstance(a, (list, tuple)):
            out += _c2t_tensors_in(a)
        elif isinstance(a, torch.Tensor):
            out.append(a)
    return out


def _c2t_close(got, want):
    """Whether a variant's output matches the source config's: equal for integers and booleans;
    for floats within 2% (and 2% of the largest magnitude), as tilings that only reorder fp32 sums
    differ by roundings, while a tile size that means more than a tiling changes the values."""
    if not (got.dtype.is_floating_point or got.dtype.is_complex):
        return torch.equal(got, want)
    g, w = got.to(torch.complex128 if got.dtype.is_complex else torch.float64), \
        want.to(torch.complex128 if want.dtype.is_complex else torch.float64)
    finite = torch.isfinite(w)
    scale = float(w[finite].abs().max()) if bool(finite.any()) else 0.0
    return bool(torch.allclose(g, w, rtol=2e-2, atol=2e-2 * scale + 1e-6, equal_nan=True))


def _c2t_same_results(kernel, variants, sources, stream, grid_fn, args_fn, hints_fn):
    """The `variants` whose launch leaves the search's arguments as the launch of the config each
    was made from (`sources`: id(variant) -> that config) leaves them. The tensor arguments are
    restored before each launch and after the last."""
    tensors = _c2t_tensors_in(tuple(args_fn(variants[0])))
    saved = [t.clone() for t in tensors]

    def restore():
        for t, s in zip(tensors, saved):
            t.copy_(s)

    def run(cfg):
        """The tensors after a launch of `cfg`: a copy of each one it changed, None for the others
        (inputs are not copied again)."""
        restore()
        _c2t_launch_config(kernel, cfg, stream, grid_fn, args_fn, hints_fn)
        if any(t.is_cuda for t in tensors):
            torch.cuda.synchronize()
        return [None if torch.equal(t, s) else t.clone() for t, s in zip(tensors, saved)]

    kept, wants = [], {}
    try:
        for v in variants:
            src = sources[id(v)]
            try:
                if id(src) not in wants:
                    wants[id(src)] = run(src)
                want, got = wants[id(src)], run(v)
            except Exception:       # noqa: BLE001 - a variant (or its source) that cannot launch is not timed
                continue
            if all(_c2t_close(g if g is not None else s, w if w is not None else s)
                   for g, w, s in zip(got, want, saved)):
                kept.append(v)
    finally:
        restore()
    return kept


def _c2t_any_cuda(args):
    """Whether a launch's arguments hold a CUDA tensor, also inside lists of arrays (a search that
    missed those timed one unsynchronized call, compile included: TileGym group_gemm's configs
    measured seconds, and the choice between them was noise)."""
    return any(_c2t_any_cuda(a) if isinstance(a, (list, tuple)) else getattr(a, "is_cuda", False) for a in args)


def _c2t_same_args(a, b):
    return len(a) == len(b) and all(x is y or (not isinstance(x, torch.Tensor) and type(x) is type(y) and x == y)
                                    for x, y in zip(a, b))


def _c2t_cpu_bench(fn, quantiles=None):
    """One timed run (milliseconds): autotuning under the CPU interpreter, where do_bench cannot time."""
    import time
    t0 = time.perf_counter()
    fn()
    ms = (time.perf_counter() - t0) * 1e3
    return [ms, ms, ms] if quantiles else ms


def _c2t_autotune(space, split, stream, grid_fn, kernel, quiet):
    """exhaustive_search as @triton.autotune: the tile sizes reach the kernel from META. On the GPU,
    a config that fails to compile (a pipeline deeper than the shared memory holds: _c2t_num_stages
    sizes it for the loads alone, and descriptor stores take some too) is timed again with one
    stage less, as its launch would be (_c2t_fit_shared_memory), next to the best config so far:
    TileGym bmm's 128x256 tiles needed 262 KB at 4 stages and were dropped from its search."""
    runtime = split[0][0]
    on_gpu = torch.cuda.is_available() and _c2t_any_cuda(runtime)
    grids = [tuple(grid_fn(cfg)) for cfg in space]
    opts = [dict(o) for _, _, o in split]
    if on_gpu and _rt_stages._C2T_SPILL_RETRY:
        opts = [_c2t_options_as_launched(kernel, grids[i], runtime, split[i][1], opts[i]) for i in range(len(space))]
    ms = [None] * len(space)
    todo, best = list(range(len(space))), None
    while todo:
        timed, best = _c2t_autotune_round(todo, split, opts, grids, runtime, kernel, stream, on_gpu)
        for i, t in timed.items():
            ms[i] = t
        todo = [i for i in todo if on_gpu and ms[i] == float("inf") and opts[i].get("num_stages", 0) > 1]
        for i in todo:
            opts[i]["num_stages"] -= 1
        if todo and ms[best] != float("inf"):
            todo.append(best)       # timed again next to them, so that the last run is the best's
    successes, failures = [], []
    for i, cfg in enumerate(space):
        if ms[i] is None and len(space) == 1:
            successes.append(_C2TMeasurement(cfg, 0.0, 0, how="the only config: not timed"))
        elif ms[i] is None or ms[i] == float("inf"):
            failures.append((cfg, RuntimeError, "did not compile or ran out of resources (autotune)"))
        else:
            successes.append(_C2TMeasurement(cfg, ms[i] * 1e3, 1, how="do_bench median" if on_gpu else "one run"))
    if not successes:
        raise RuntimeError(f"exhaustive_search: no config ran ({len(failures)} failed): "
                           + "; ".join(f"{c!r}: {m}" for c, _, m in failures[:3]))
    best = next(m for m in successes if m.config is space[best])
    result = _C2TTuningResult(best, successes, failures)
    if not quiet:
        print(f"exhaustive_search (triton.autotune): {result}")
    return result


def _c2t_options_as_launched(kernel, grid, runtime, meta, options):
    """The launch options a config's launch ends up running with: a dot kernel that spills registers
    at the options it starts from runs the leaner variant its first launch picks
    (_c2t_leaner_if_spilling), so the search times that one. TileGym's causal attention: 128x128
    tiles spill 1136 B at 4 warps; timed so, its search picked 256x128 tiles (244 us on the H200,
    0.69 of cuTile), where 128x128 at 8 warps takes 141 us (1.19; docs/decisions/003-search-times-options-as-launched.md)."""
    if "num_stages" not in options:
        return options
    try:
        compiled = kernel.warmup(*runtime, grid=grid, **meta, **options)
        compiled._init_handles()
    except Exception:       # noqa: BLE001 - the search itself reports a config that fails
        return options
    if not getattr(compiled, "n_spills", 0) and not _rt_stages._c2t_at_register_cap(compiled, options):
        return options
    _, opts = _rt_stages._c2t_leaner_variant(kernel, grid, runtime, {**meta, **options}, compiled)
    return {k: v for k, v in opts.items() if k not in meta}


def _c2t_autotune_round(which, split, opts, grids, runtime, kernel, stream, on_gpu):
    """One @triton.autotune over configs `which` (indices into the search space), each with its own
    launch options and grid: ({index: milliseconds, inf when it failed, None when not timed}, the
    best index). Each config's pre_hook says which one runs, and the grid is that config's (a grid
    looked up by META would time one config with another's grid when configs differ only in hints
    such as occupancy, which changes the grid but is no Triton option)."""
    running = [0]
    configs = [triton.Config(dict(split[i][1]), **opts[i], pre_hook=_c2t_mark(running, i)) for i in which]
    tuned = triton.autotune(configs=configs, key=[], do_bench=None if on_gpu else _c2t_cpu_bench)(kernel)
    with _rt_launch._c2t_stream(stream):
        tuned[lambda META: grids[running[0]]](*runtime)
    timings = getattr(tuned, "configs_timings", None) or {}
    timed = {}
    for i, config in zip(which, configs):
        t = timings.get(config)
        timed[i] = (t[0] if isinstance(t, (list, tuple)) else t) if t is not None else None
    return timed, which[configs.index(tuned.best_config)]


def _c2t_mark(running, i):
    """A triton.Config pre_hook recording that config `i` is about to run."""
    def pre_hook(nargs):
        running[0] = i
    return pre_hook


def _c2t_search_by_launch(space, stream, grid_fn, kernel, args_fn, hints_fn, quiet):
    """Time every config's launch (the median of triton.testing.do_bench on the GPU, as Triton's
    autotuner times the other path; one run under the interpreter)."""
    import time
    successes, failures = [], []
    for cfg in space:
        k = kernel(cfg) if not hasattr(kernel, "c2t_launch") else kernel
        if hints_fn is not None and hasattr(k, "replace_hints"):
            k = k.replace_hints(**hints_fn(cfg))
        grid, args = tuple(grid_fn(cfg)), tuple(args_fn(cfg))
        try:
            def run():
                k.c2t_launch(grid, *args, stream=stream)
            if torch.cuda.is_available() and _c2t_any_cuda(args):
                with _rt_launch._c2t_stream(stream):
                    ms = triton.testing.do_bench(run, return_mode="median")
                how = "do_bench median"
            else:
                t0 = time.perf_counter()
                run()
                ms, how = (time.perf_counter() - t0) * 1e3, "one run"
            successes.append(_C2TMeasurement(cfg, ms * 1e3, 1, how=how))
        except Exception as exc:  # a config that does not compile or run is reported, as cuTile does
            failures.append((cfg, type(exc), str(exc)))
    if not successes:
        raise RuntimeError(f"exhaustive_search: no config ran ({len(failures)} failed): "
                           + "; ".join(f"{c!r}: {m}" for c, _, m in failures[:3]))
    result = _C2TTuningResult(min(successes, key=lambda m: m.mean_us), successes, failures)
    if not quiet:
        print(f"exhaustive_search (each config launched and timed): {result}")
    return result
