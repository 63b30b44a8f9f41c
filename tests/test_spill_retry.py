"""Dot kernels that spill registers are compiled again (with their narrow products padded, where
they take C2T_PAD), with twice the warps, then with one stage less, and the cached launch path runs
the first variant that does not spill
(_c2t_leaner_if_spilling). No GPU: a real (non-interpreted) JITFunction gets a stand-in dispatch
whose compiled kernels report spills by (num_warps, num_stages)."""

import pytest
import torch
from triton.runtime.jit import JITFunction

from compiled_standin import StandInCompiled, stand_in_driver
from kernel_util import RT, build

SRC = """
@ct.kernel
def mm(a, b, c, T: ConstInt):
    acc = ct.mma(ct.load(a, index=(0, 0), shape=(T, T)), ct.load(b, index=(0, 0), shape=(T, T)),
                 ct.zeros((T, T), dtype=ct.float32))
    ct.store(c, index=(0, 0), tile=acc)

def run(a, b, c, t):
    ct.launch(torch.cuda.current_stream(), (1,), mm, (a, b, c, t))
"""


def _setup(tmp_path, monkeypatch, spills, regs=None, src=SRC, name="mm"):
    """spills: {(num_warps, num_stages): bytes}, with the C2T_PAD argument last in the key for a
    kernel that takes it; a variant missing there fails to compile. regs: {(num_warps,
    num_stages): registers per thread} (0 where missing)."""
    mod = build(src, tmp_path)
    log = []
    kernel = JITFunction(getattr(mod, name).fn)
    pad_at = kernel.arg_names.index("C2T_PAD") if "C2T_PAD" in kernel.arg_names else None

    def dispatch(*args, grid, warmup, **kw):
        variant = (kw["num_warps"], kw["num_stages"]) + (() if pad_at is None else (args[pad_at],))
        log.append(("warmup" if warmup else "triton", variant))
        return StandInCompiled(log, variant, spills[variant], (regs or {}).get(variant, 0))
    kernel.run = dispatch
    monkeypatch.setattr(mod, name, kernel)
    stand_in_driver(monkeypatch)
    RT._C2T_COMPILED.clear()
    RT._C2T_STAGES.clear()
    return mod, log


def _launch(mod, n=3):
    a = torch.zeros(16, 16)       # 16x16 dot tile: 4 warps, 3 stages to start with
    for _ in range(n):
        mod.run(a, a, a, 16)


def test_spilling_kernel_moves_to_twice_the_warps(tmp_path, monkeypatch):
    """TileGym group_gemm's 128x128x128 tiles: 32 B spilled at 4 warps / 3 stages (384 us on the
    H200), none at 8 / 3 (276 us) nor at 4 / 2 (461 us): more warps come first."""
    mod, log = _setup(tmp_path, monkeypatch, {(4, 3): 32, (8, 3): 0, (4, 2): 0})
    _launch(mod)
    # the first launch runs as compiled, the 8-warp variant is compiled next to it and later
    # launches run it through the cached path
    assert log == [("triton", (4, 3)), ("warmup", (8, 3)), ("fast", (8, 3)), ("fast", (8, 3))]


def test_one_stage_less_when_more_warps_still_spill(tmp_path, monkeypatch):
    mod, log = _setup(tmp_path, monkeypatch, {(4, 3): 352, (8, 3): 200, (4, 2): 0})
    _launch(mod)
    assert log == [("triton", (4, 3)), ("warmup", (8, 3)), ("warmup", (4, 2)), ("fast", (4, 2)),
                   ("fast", (4, 2))]


def test_eight_warps_keep_their_stages_and_drop_one(tmp_path, monkeypatch):
    """A kernel already at 8 warps (no 16-warp variant) only tries one stage less."""
    mod, log = _setup(tmp_path, monkeypatch, {(8, 3): 2288, (8, 2): 196})
    a = torch.zeros(256, 256)     # 256x256 tiles: 8 warps
    mod.run(a, a, a, 256)
    mod.run(a, a, a, 256)
    assert log == [("triton", (8, 3)), ("warmup", (8, 2)), ("fast", (8, 2))]


def test_least_spilling_variant_when_none_is_clean(tmp_path, monkeypatch):
    mod, log = _setup(tmp_path, monkeypatch, {(4, 3): 900, (8, 3): 500, (4, 2): 300})
    _launch(mod)
    assert log[-2:] == [("fast", (4, 2)), ("fast", (4, 2))]


def test_variants_that_spill_as_much_are_not_taken(tmp_path, monkeypatch):
    mod, log = _setup(tmp_path, monkeypatch, {(4, 3): 120, (4, 2): 120, (8, 3): 200})
    _launch(mod)
    assert log[-2:] == [("fast", (4, 3)), ("fast", (4, 3))]


@pytest.mark.parametrize("spills, switch", [(0, True), (352, False)])
def test_no_spills_or_switched_off_keeps_the_first_compile(tmp_path, monkeypatch, spills, switch):
    mod, log = _setup(tmp_path, monkeypatch, {(4, 3): spills, (4, 2): 0, (8, 3): 0})
    monkeypatch.setattr(RT, "_C2T_SPILL_RETRY", switch)
    _launch(mod)
    assert log == [("triton", (4, 3)), ("fast", (4, 3)), ("fast", (4, 3))]


def test_variants_that_fail_to_compile_are_skipped(tmp_path, monkeypatch):
    mod, log = _setup(tmp_path, monkeypatch, {(4, 3): 352, (4, 2): 0})    # (8, 3): KeyError in the stand-in
    _launch(mod)
    assert log == [("triton", (4, 3)), ("warmup", (8, 3)), ("warmup", (4, 2)), ("fast", (4, 2)), ("fast", (4, 2))]


# --- a kernel whose products may be in a chain takes C2T_PAD: its padded form is tried first ---

CHAIN = """
@ct.kernel
def chain(q, k, v, o, T: ConstInt):
    s = ct.mma(ct.load(k, index=(0, 0), shape=(T, T)), ct.load(q, index=(0, 0), shape=(T, T)),
               ct.zeros((T, T), dtype=ct.float32))
    acc = ct.mma(ct.load(v, index=(0, 0), shape=(T, T)), ct.astype(s, ct.float16),
                 ct.zeros((T, T), dtype=ct.float32))
    ct.store(o, index=(0, 0), tile=acc)

def run(a, o, t):
    ct.launch(torch.cuda.current_stream(), (1,), chain, (a, a, a, o, t))
"""


def _setup_chain(tmp_path, monkeypatch, spills):
    """As _setup, for CHAIN; spills: {(num_warps, num_stages, C2T_PAD): bytes}."""
    return _setup(tmp_path, monkeypatch, spills, src=CHAIN, name="chain")


def _launch_chain(mod, n=3):
    a, o = torch.zeros(16, 16, dtype=torch.float16), torch.zeros(16, 16)
    for _ in range(n):
        mod.run(a, o, 16)


def test_spilling_chained_kernel_takes_its_padded_products_first(tmp_path, monkeypatch):
    """TileGym's flash decode, 16 query heads per KV head: 48 B spilled as translated, none padded
    (167 registers); the padded form ran at 0.97 of cuTile on the H200, 8 warps at 0.88."""
    mod, log = _setup_chain(tmp_path, monkeypatch, {(4, 3, False): 48, (4, 3, True): 0, (8, 3, False): 0})
    _launch_chain(mod)
    assert log == [("triton", (4, 3, False)), ("warmup", (4, 3, True)), ("fast", (4, 3, True)),
                   ("fast", (4, 3, True))]


def test_padded_form_that_still_spills_gives_way_to_more_warps(tmp_path, monkeypatch):
    mod, log = _setup_chain(tmp_path, monkeypatch, {(4, 3, False): 48, (4, 3, True): 64, (8, 3, False): 0})
    _launch_chain(mod)
    assert log == [("triton", (4, 3, False)), ("warmup", (4, 3, True)), ("warmup", (8, 3, False)),
                   ("fast", (8, 3, False)), ("fast", (8, 3, False))]


def test_no_padded_variant_when_the_launch_pads_already_or_does_not_spill(tmp_path, monkeypatch):
    """C2T_NARROW=pad makes every launch pass True (_C2T_PAD); a compile that does not spill is kept."""
    mod, log = _setup_chain(tmp_path, monkeypatch, {(4, 3, True): 48, (8, 3, True): 0})
    monkeypatch.setattr(mod, "_C2T_PAD", True)
    _launch_chain(mod)
    assert log == [("triton", (4, 3, True)), ("warmup", (8, 3, True)), ("fast", (8, 3, True)),
                   ("fast", (8, 3, True))]
    mod, log = _setup_chain(tmp_path, monkeypatch, {(4, 3, False): 0})
    _launch_chain(mod, 2)
    assert log == [("triton", (4, 3, False)), ("fast", (4, 3, False))]


# --- exhaustive_search times each config as its launch runs it (with the leaner variant) ---

TUNED = """
from types import SimpleNamespace
from cuda.tile.tune import exhaustive_search
""" + SRC + """

def search(a, b, c):
    configs = [SimpleNamespace(T=16), SimpleNamespace(T=32)]
    return exhaustive_search(configs, torch.cuda.current_stream(), lambda cfg: (1,), mm,
                             lambda cfg: (a, b, c, cfg.T), quiet=True)
"""


def test_options_as_launched_are_the_leaner_variants(tmp_path, monkeypatch):
    """TileGym's causal attention: 128x128 tiles spill at 4 warps, and their launch runs at 8; the
    search must time that (timed at 4 warps, it picked 256x128 tiles: 0.69 of cuTile on the H200,
    against 1.19 with the 128x128 tiles at 8 warps)."""
    mod = build(TUNED, tmp_path)
    spills, log = {(4, 3): 1136, (8, 3): 0, (4, 2): 0}, []

    def dispatch(*args, grid, warmup, **kw):
        variant = (kw["num_warps"], kw["num_stages"])
        log.append(("warmup" if warmup else "triton", variant))
        return StandInCompiled(log, variant, spills[variant])
    monkeypatch.setattr(mod.mm, "run", dispatch)
    a = torch.zeros(16, 16)
    opts = RT._c2t_options_as_launched(mod.mm, (1,), (a, a, a), {"T": 16}, {"num_warps": 4, "num_stages": 3})
    assert opts == {"num_warps": 8, "num_stages": 3}
    assert log == [("warmup", (4, 3)), ("warmup", (8, 3))]
    log.clear()
    clean = {"num_warps": 8, "num_stages": 3}          # no spills: unchanged, one compile
    assert RT._c2t_options_as_launched(mod.mm, (1,), (a, a, a), {"T": 16}, clean) == clean
    assert log == [("warmup", (8, 3))]


def test_search_on_the_gpu_times_configs_with_the_options_their_launch_runs(tmp_path, monkeypatch):
    mod = build(TUNED, tmp_path)
    spills = {(4, 3): 1136, (8, 3): 0, (4, 2): 0}
    monkeypatch.setattr(mod.mm, "run", lambda *args, grid, warmup, **kw: StandInCompiled(
        [], (kw["num_warps"], kw["num_stages"]), spills[(kw["num_warps"], kw["num_stages"])]))
    monkeypatch.setattr(RT, "_c2t_any_cuda", lambda args: True)
    monkeypatch.setattr(mod.torch.cuda, "is_available", lambda: True)
    rounds = []

    def round_(which, split, opts, grids, runtime, kernel, stream, on_gpu):
        rounds.append([dict(opts[i]) for i in which])
        return {i: 1.0 + i for i in which}, which[0]
    monkeypatch.setattr(RT, "_c2t_autotune_round", round_)
    a = torch.zeros(32, 32)
    res = mod.search(a, a, a)
    assert rounds == [[{"num_warps": 8, "num_stages": 3}, {"num_warps": 8, "num_stages": 3}]]
    assert res.best.config.T == 16
    monkeypatch.setattr(RT, "_C2T_SPILL_RETRY", False)     # C2T_SPILL_RETRY=0: as the rule gives them
    rounds.clear()
    mod.search(a, a, a)
    assert rounds == [[{"num_warps": 4, "num_stages": 3}, {"num_warps": 4, "num_stages": 3}]]


# --- the register-cap retry (opt-in, $C2T_CAP_RETRY=1): 4 warps at 255 registers, no spills ---

def test_register_cap_retry_is_off_by_default(tmp_path, monkeypatch):
    mod, log = _setup(tmp_path, monkeypatch, {(4, 3): 0, (8, 3): 0}, {(4, 3): 255, (8, 3): 168})
    assert RT._C2T_CAP_RETRY is False
    _launch(mod)
    assert log == [("triton", (4, 3)), ("fast", (4, 3)), ("fast", (4, 3))]


def test_register_cap_retry_takes_eight_warps(tmp_path, monkeypatch):
    """cutile-python's AttentionFMHA 128x64 D=128: 255 registers at 4 warps, none spilled, 544 us;
    at 8 warps 329 us on the H200. Only twice the warps is tried (not one stage less)."""
    mod, log = _setup(tmp_path, monkeypatch, {(4, 3): 0, (8, 3): 0, (4, 2): 0}, {(4, 3): 255, (8, 3): 168})
    monkeypatch.setattr(RT, "_C2T_CAP_RETRY", True)
    _launch(mod)
    assert log == [("triton", (4, 3)), ("warmup", (8, 3)), ("fast", (8, 3)), ("fast", (8, 3))]


@pytest.mark.parametrize("spills8, regs4", [(64, 255), (0, 254)])
def test_register_cap_retry_keeps_four_warps(tmp_path, monkeypatch, spills8, regs4):
    """Kept at 4 warps when 8 would spill, or when the registers are below the cap (no retry)."""
    mod, log = _setup(tmp_path, monkeypatch, {(4, 3): 0, (8, 3): spills8, (4, 2): 0}, {(4, 3): regs4})
    monkeypatch.setattr(RT, "_C2T_CAP_RETRY", True)
    _launch(mod)
    assert log[-2:] == [("fast", (4, 3)), ("fast", (4, 3))]
    assert (("warmup", (8, 3)) in log) == (regs4 == 255)
    assert ("warmup", (4, 2)) not in log


def test_register_cap_retry_in_a_search(tmp_path, monkeypatch):
    """With the retry on, a search times a config at the cap with the 8 warps its launch runs."""
    mod = build(TUNED, tmp_path)
    log = []

    def dispatch(*args, grid, warmup, **kw):
        variant = (kw["num_warps"], kw["num_stages"])
        log.append(variant)
        return StandInCompiled([], variant, 0, 255 if variant == (4, 3) else 160)
    monkeypatch.setattr(mod.mm, "run", dispatch)
    a = torch.zeros(16, 16)
    start = {"num_warps": 4, "num_stages": 3}
    assert RT._c2t_options_as_launched(mod.mm, (1,), (a, a, a), {"T": 16}, start) == start
    monkeypatch.setattr(RT, "_C2T_CAP_RETRY", True)
    assert RT._c2t_options_as_launched(mod.mm, (1,), (a, a, a), {"T": 16}, start) == {"num_warps": 8, "num_stages": 3}
    assert log == [(4, 3), (4, 3), (8, 3)]


@pytest.mark.parametrize("value, on", [("1", True), ("true", True), ("0", False)])
def test_register_cap_retry_switch_reads_like_the_others(tmp_path, monkeypatch, value, on):
    """C2T_CAP_RETRY: any value but 0 turns it on, as C2T_SPILL_RETRY=0 turns that one off."""
    from kernel_util import runtime_switch
    assert runtime_switch("stages", "_C2T_CAP_RETRY", {"C2T_CAP_RETRY": value}) == str(on)
