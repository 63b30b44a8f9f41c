"""The launchers' cached launch path (_c2t_run): a launch whose specialization was seen before calls
the compiled kernel's own launcher, skipping Triton's Python dispatch; anything that could make
Triton pick another compiled kernel goes through Triton's dispatch again.

The GPU is not needed: a real (non-interpreted) JITFunction gets a stand-in `run` (Triton's
dispatch) and the compiled kernel it returns records its launches; the driver is a stand-in too."""
import types
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch
import triton
from triton.runtime.jit import JITFunction

from kernel_util import RT, build

# (a loop-free kernel: it takes the grid's programs and C2T_COARSEN last, `..., 2, 1` below)
SRC = """
@ct.kernel
def add_k(x, y, n: int, T: ConstInt):
    i = ct.bid(0)
    ct.store(y, index=(i,), tile=ct.load(x, index=(i,), shape=(T,)) + n)

def run(x, y, n, t):
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(x.shape[0], t),), add_k, (x, y, n, t))
"""


class _Compiled:
    """What JITFunction.run returns: the compiled kernel, with its C launcher as `run`."""

    def __init__(self, log):
        self.log, self.function, self.packed_metadata = log, "fn-handle", "meta"

    def launch_metadata(self, grid, stream, *args):
        return None

    def run(self, g0, g1, g2, stream, function, packed, meta, enter, exit_, *args):
        self.log.append(("fast", (g0, g1, g2), stream, args))
        self.hooks = (meta, enter, exit_)


@pytest.fixture(autouse=True, params=["c_lookup", "python_lookup"])
def lookup(request, monkeypatch):
    """Every test here runs with the launch memo's lookup in C (translator/runtime/launch_memo.c, built at a
    module's first recorded launch) and in Python (C2T_C_MEMO=0, read when translator.runtime is imported)."""
    monkeypatch.setattr(RT, "_C2T_C_MEMO", request.param == "c_lookup")    # (as $C2T_C_MEMO sets it)
    monkeypatch.setattr(RT, "_C2T_MEMO_C", None)                           # not built yet
    return request.param


@pytest.fixture
def fast(tmp_path, monkeypatch):
    mod = build(SRC, tmp_path)
    log = []
    kernel = JITFunction(mod.add_k.fn)          # as @triton.jit makes it without TRITON_INTERPRET
    compiled = _Compiled(log)

    def dispatch(*args, grid, warmup, **kw):    # Triton's own dispatch: binder, cache, launch
        log.append(("triton", grid, args, kw))
        return compiled
    kernel.run = dispatch
    monkeypatch.setattr(mod, "add_k", kernel)
    monkeypatch.setattr(triton.runtime.driver, "_active", types.SimpleNamespace(
        get_current_device=lambda: 0, get_current_stream=lambda device: 1234))
    RT._C2T_COMPILED.clear()
    return mod, log


def test_second_launch_with_the_same_specialization_skips_triton_dispatch(fast):
    mod, log = fast
    x, y = torch.zeros(64), torch.zeros(64)
    mod.run(x, y, 3, 32)
    mod.run(torch.zeros(64), torch.zeros(64), 3, 32)      # new tensors, same dtype and alignment
    assert [e[0] for e in log] == ["triton", "fast"]
    kind, grid, stream, args = log[1]
    assert grid == (2, 1, 1) and stream == 1234
    assert args[1:] == (64, 1, args[3], 64, 1, 3, 32, 2, 1) and isinstance(args[0], torch.Tensor)


@pytest.mark.parametrize("change", ["dtype", "alignment", "int_value", "bool_for_int", "constexpr"])
def test_what_triton_specializes_on_goes_through_its_dispatch(fast, change):
    mod, log = fast
    x, y = torch.zeros(65), torch.zeros(65)
    mod.run(x[:64], y[:64], 3, 32)
    args = {"dtype": (x[:64].double(), y[:64].double(), 3, 32),
            "alignment": (x[1:], y[1:], 3, 32),               # 4 bytes past a 16-byte boundary
            "int_value": (x[:64], y[:64], 1, 32),             # Triton makes an int equal to 1 a constant
            "bool_for_int": (x[:64], y[:64], True, 32),
            "constexpr": (x[:64], y[:64], 3, 16)}[change]
    mod.run(*args)
    assert [e[0] for e in log] == ["triton", "triton"]
    mod.run(*args)
    assert [e[0] for e in log] == ["triton", "triton", "fast"]


def test_tensor_subclasses_are_keyed_by_dtype_and_alignment(fast):
    """The cached path finds the tensors among the arguments from their types (looked up once per
    argument types): a Parameter is keyed like a tensor, and another Parameter of the same dtype and
    alignment reuses the compiled kernel."""
    mod, log = fast
    p = lambda: torch.nn.Parameter(torch.zeros(64), requires_grad=False)       # noqa: E731
    mod.run(p(), torch.zeros(64), 3, 32)
    mod.run(p(), torch.zeros(64), 3, 32)
    mod.run(p().double(), torch.zeros(64).double(), 3, 32)      # a plain tensor again, float64
    assert [e[0] for e in log] == ["triton", "fast", "triton"]
    types_seen = list(RT._C2T_TENSOR_AT)
    assert [RT._C2T_TENSOR_AT[t] for t in types_seen] == [(0, (0, 3)), (1, (0, 3))]   # (number, positions)


def test_argument_types_tell_specializations_apart(fast):
    """The key names the argument types by a number: a bool where an int was, or a float, is another
    specialization, not a hit (True == 1 == 1.0 as dict keys)."""
    mod, log = fast
    x = torch.zeros(64)
    mod.run(x, torch.zeros(64), 3, 32)
    mod.run(x, torch.zeros(64), 3, 32)
    mod.run(x, torch.zeros(64), 3.0, 32)
    assert [e[0] for e in log] == ["triton", "fast", "triton"]


def test_switched_off_or_with_pre_run_hooks_it_always_dispatches(fast, monkeypatch):
    mod, log = fast
    x, y = torch.zeros(64), torch.zeros(64)
    monkeypatch.setattr(RT, "_C2T_FAST_LAUNCH", False)
    mod.run(x, y, 3, 32)
    mod.run(x, y, 3, 32)
    monkeypatch.setattr(RT, "_C2T_FAST_LAUNCH", True)
    mod.add_k.pre_run_hooks.append(lambda *a, **k: None)
    mod.run(x, y, 3, 32)
    mod.run(x, y, 3, 32)
    assert [e[0] for e in log] == ["triton"] * 4


def test_cache_is_bounded(fast, monkeypatch):
    mod, log = fast
    monkeypatch.setattr(RT, "_C2T_COMPILED_MAX", 3)
    x, y = torch.zeros(64), torch.zeros(64)
    for n in range(5):            # a different scalar value every launch
        mod.run(x, y, n + 2, 32)
    assert len(RT._C2T_COMPILED) <= 3


def test_interpreted_kernels_use_the_interpreter(tmp_path):
    """Under TRITON_INTERPRET=1 (CI) the kernel is not a JITFunction: the launch runs as before."""
    mod = build(SRC, tmp_path)
    x, y = torch.arange(70.0), torch.zeros(70)
    mod.run(x, y, 2, 32)
    assert torch.equal(y, x + 2) and not RT._C2T_COMPILED


def test_launch_hooks_are_passed_only_when_installed(fast, monkeypatch):
    """Profilers install launch hooks (triton.knobs.runtime.launch_enter_hook); empty hook chains
    are not called around every launch."""
    mod, log = fast
    x, y = torch.zeros(64), torch.zeros(64)
    mod.run(x, y, 3, 32)
    mod.run(x, y, 3, 32)
    compiled = RT._C2T_COMPILED[next(iter(RT._C2T_COMPILED))][1]
    assert compiled.hooks == (None, None, None)
    seen = []
    chain = triton.knobs.runtime.launch_enter_hook
    chain.add(seen.append)
    monkeypatch.setattr(compiled, "launch_metadata", lambda grid, stream, *args: {"grid": grid})
    try:
        mod.run(x, y, 3, 32)
    finally:
        chain.remove(seen.append)
    meta, enter, _ = compiled.hooks
    assert enter is chain and meta == {"grid": (2,)}


@pytest.mark.parametrize("path", ["fast", "memo"])
def test_a_changed_global_goes_back_to_triton_dispatch(path, request, monkeypatch):
    """Triton refuses to run a kernel whose global constants changed after it was compiled; the
    cached path (`fast`) and the launch memo (`memo`) must not hide that: such a launch goes
    through Triton's dispatch, which refuses it."""
    mod, log = request.getfixturevalue("fast")
    if path == "memo":
        mod, log = memo_setup((mod, log), monkeypatch)
    x, y = torch.zeros(64), torch.zeros(64)
    scope = {"SCALE": 2.0}
    monkeypatch.setattr(mod.add_k, "used_global_vals", {("SCALE", 0): (2.0, scope)})
    mod.run(x, y, 3, 32)
    mod.run(x, y, 3, 32)
    scope["SCALE"] = 3.0
    mod.run(x, y, 3, 32)
    assert [e[0] for e in log] == ["triton", "fast", "triton"]


@pytest.mark.parametrize("path", ["fast", "memo"])
def test_a_global_mutated_in_place_still_goes_back_to_triton_dispatch(path, request, monkeypatch):
    """The unchanged-globals shortcut (same objects: nothing compared) is only taken for immutable
    values: a list the kernel read, changed in place, is still compared and found changed."""
    mod, log = request.getfixturevalue("fast")
    if path == "memo":
        mod, log = memo_setup((mod, log), monkeypatch)
    x, y = torch.zeros(64), torch.zeros(64)
    table = [1, 2]
    scope = {"TABLE": table}
    monkeypatch.setattr(mod.add_k, "used_global_vals", {("TABLE", 0): ([1, 2], scope)})
    mod.run(x, y, 3, 32)
    mod.run(x, y, 3, 32)
    table.append(3)
    mod.run(x, y, 3, 32)
    assert [e[0] for e in log] == ["triton", "fast", "triton"]


def counting_constexpr():
    """A tl.constexpr class that counts its value comparisons (Triton compares a global's deep
    copy with the module's value by !=), and the list it counts in."""
    compared = []

    class Const(triton.language.constexpr):
        def __ne__(self, other):
            compared.append(1)
            return super().__ne__(other)
    return Const, compared


def test_unchanged_constexpr_globals_are_compared_once(fast, monkeypatch):
    """Triton's deep copy of a tl.constexpr global is compared with the module's value once; later
    launches see the same object bound and compare nothing. Rebinding the name (to an equal value)
    compares again; rebinding it to another value is a change."""
    mod, log = fast
    Const, compared = counting_constexpr()
    x, y = torch.zeros(64), torch.zeros(64)
    scope = {"PAD": Const(0)}
    monkeypatch.setattr(mod.add_k, "used_global_vals", {("PAD", 0): (Const(0), scope)})
    for _ in range(4):
        mod.run(x, y, 3, 32)
    assert len(compared) == 1 and [e[0] for e in log] == ["triton", "fast", "fast", "fast"]
    scope["PAD"] = Const(0)
    mod.run(x, y, 3, 32)
    mod.run(x, y, 3, 32)
    assert len(compared) == 2 and log[-1][0] == "fast"
    scope["PAD"] = Const(1)
    mod.run(x, y, 3, 32)
    assert log[-1][0] == "triton"


def test_memo_compares_unchanged_constexpr_globals_by_identity_and_sees_their_changes(fast, monkeypatch):
    """From the memo (both lookups), a launch whose globals are bound to the objects the kernel was
    compiled with compares no values; a constexpr whose value object was replaced in place, or a
    name bound to another value, goes through Triton's dispatch."""
    mod, log = memo_setup(fast, monkeypatch)
    Const, compared = counting_constexpr()
    x, y = torch.zeros(64), torch.zeros(64)
    scope = {"PAD": Const(0), "SCALE": 2.0}
    monkeypatch.setattr(mod.add_k, "used_global_vals", {("PAD", 0): (Const(0), scope), ("SCALE", 0): (2.0, scope)})
    for _ in range(4):
        mod.run(x, y, 3, 32)
    assert [e[0] for e in log] == ["triton", "fast", "fast", "fast"] and len(compared) == 1
    scope["PAD"].value = 1              # the same constexpr object, another value
    mod.run(x, y, 3, 32)
    assert log[-1][0] == "triton"
    scope["PAD"].value = 0
    scope["SCALE"] = 2.5
    mod.run(x, y, 3, 32)
    assert log[-1][0] == "triton"


# --- the launch memo (_c2t_memo): a launcher's launch with the layouts of an earlier one ---

def memo_entries(mod):
    """How many launches the memo holds (its keys each hold a list of layouts)."""
    return sum(len(entries) for entries in RT._C2T_MEMO.values())


@pytest.fixture(params=["torch_check", "python_check"])
def memo(fast, monkeypatch, request):
    """`fast` plus a stand-in for torch's current device and stream queries (CPU torch has none:
    there, as in CI's interpreter runs, the memo is never used); each memo test runs with the
    arrays' layouts checked by torch's C++ TensorGuards and by the Python fallback."""
    return memo_setup(fast, monkeypatch, python_check=request.param == "python_check")


def memo_setup(fast, monkeypatch, python_check=False):
    mod, log = fast
    monkeypatch.setattr(RT, "_C2T_CUDA", types.SimpleNamespace(
        _cuda_getDevice=lambda: 0, _cuda_getCurrentRawStream=lambda device: 1234))
    if python_check:
        monkeypatch.setattr(RT, "_C2T_TENSOR_GUARDS", None)
    RT._C2T_MEMO.clear()
    return mod, log


def test_memo_uses_torchs_tensor_check_on_this_torch(fast):
    """The pinned torch has the C++ check the memo's fast path relies on, and it passes the
    module's self-test (a torch that changed it would silently get the slower Python check)."""
    mod, _ = fast
    assert RT._C2T_TENSOR_GUARDS is not None


@pytest.mark.parametrize("guards", ["torch_check", "python_check"])
def test_layout_check_compares_type_dtype_device_extents_strides_and_grad(fast, monkeypatch, guards):
    mod, _ = fast
    if guards == "python_check":
        monkeypatch.setattr(RT, "_C2T_TENSOR_GUARDS", None)
    x = torch.zeros(4, 6)
    check = RT._c2t_layout_check((x, torch.zeros(8)))
    assert check(torch.ones(4, 6), torch.ones(8))
    assert check(torch.zeros(5, 6)[1:], torch.zeros(8))         # another offset, same layout
    for other in (torch.zeros(4, 6, dtype=torch.float64), torch.zeros(6, 4).t(), torch.zeros(4, 7)[:, :6],
                  torch.zeros(4, 5), torch.zeros(4, 6, 1), torch.zeros(4, 6, requires_grad=True),
                  torch.zeros(4, 6, device="meta"), torch.nn.Parameter(torch.zeros(4, 6))):
        assert not check(other, torch.zeros(8)), other
    assert not check(x, torch.zeros(8, dtype=torch.int32))
    # an array given twice: torch's check would fail, so such launches get the Python check
    twice = RT._c2t_layout_check((x, x))
    assert twice(x, x) and twice(torch.zeros(4, 6), torch.zeros(4, 6)) and not twice(x, torch.zeros(4, 5))


def test_memo_launch_puts_this_launchs_pointers_and_scalars_into_the_recorded_arguments(memo):
    mod, log = memo
    mod.run(torch.zeros(64), torch.zeros(64), 3, 32)
    x, y = torch.zeros(64), torch.zeros(64)
    mod.run(x, y, 5, 32)            # another int of the same kind (not 1, not a multiple of 16)
    assert [e[0] for e in log] == ["triton", "fast"]
    kind, grid, stream, args = log[1]
    assert grid == (2, 1, 1) and stream == 1234
    assert args == (x.data_ptr(), 64, 1, y.data_ptr(), 64, 1, 5, 32, 2, 1)     # pointers as ints
    assert memo_entries(mod) == 1


@pytest.mark.parametrize("change", ["dtype", "alignment", "extent", "stride", "int_one", "int_multiple_of_16",
                                    "int_range", "float_for_int", "constexpr", "grid"])
def test_memo_misses_on_anything_the_launch_depends_on(memo, change):
    mod, log = memo
    x, y = torch.zeros(130), torch.zeros(130)
    mod.run(x[:64], y[:64], 3, 32)
    args = {"dtype": (x[:64].double(), y[:64].double(), 3, 32),
            "alignment": (x[1:65], y[1:65], 3, 32),
            "extent": (x[:63], y[:63], 3, 32),              # (same grid: 2 programs)
            "stride": (x[:128:2], y[:128:2], 3, 32),
            "int_one": (x[:64], y[:64], 1, 32),
            "int_multiple_of_16": (x[:64], y[:64], 48, 32),
            "int_range": (x[:64], y[:64], 2 ** 40 + 3, 32),
            "float_for_int": (x[:64], y[:64], 3.0, 32),
            "constexpr": (x[:64], y[:64], 3, 16),
            "grid": (x, y, 3, 32)}[change]
    mod.run(*args)
    assert memo_entries(mod) == 2, "a second memo entry, not a hit"
    mod.run(*args)
    assert log[-1][0] == "fast" and memo_entries(mod) == 2


def test_memo_keys_ints_by_the_classes_triton_specializes_on(memo):
    """Ints share a memo entry exactly when Triton would compile them alike: equal to 1 or not,
    a multiple of 16 or not, and their type by range (int32, int64, uint64)."""
    mod, log = memo
    x, y = torch.zeros(64), torch.zeros(64)
    values = [3, 5, 1, 48, 0, 16, -5, -32, 2 ** 31 - 1, 2 ** 31, 2 ** 40 + 3, 2 ** 40 + 16, -2 ** 40,
              2 ** 63 + 3, 2 ** 63 + 16, 2 ** 64 - 1]

    def triton_class(v):
        return (v == 1, v % 16 == 0, -2 ** 31 <= v < 2 ** 31, v >= 2 ** 63)
    for v in values:
        mod.run(x, y, v, 32)
    assert memo_entries(mod) == len({triton_class(v) for v in values})
    before = len(log)
    for v in values:                # each again: all hits
        mod.run(x, y, v, 32)
    assert [e[0] for e in log[before:]] == ["fast"] * len(values)


def test_memo_keeps_no_arrays_alive(memo):
    import gc
    import weakref
    mod, log = memo
    x = torch.zeros(64)
    ref = weakref.ref(x)
    mod.run(x, torch.zeros(64), 3, 32)
    mod.run(x, torch.zeros(64), 3, 32)
    del x
    log.clear()
    gc.collect()
    assert ref() is None
    ((entry,),) = RT._C2T_MEMO.values()
    assert not any(isinstance(v, torch.Tensor) for v in entry[3])     # the recorded arguments
    assert entry[3] == (None, 64, 1, None, 64, 1, None, 32, 2, 1)


def test_memo_is_skipped_for_another_stream_hooks_or_when_switched_off(memo, monkeypatch):
    mod, log = memo
    x, y = torch.zeros(64), torch.zeros(64)
    mod.run(x, y, 3, 32)
    other = types.SimpleNamespace(cuda_stream=99, device_index=0)      # not a torch.cuda.Stream
    assert RT._c2t_memo(mod.launch_add_k, (2,), other, (x, y), (3,), (32,)) == ()
    monkeypatch.setattr(RT, "_C2T_FAST_LAUNCH", False)
    assert RT._c2t_memo(mod.launch_add_k, (2,), None, (x, y), (3,), (32,)) == ()
    monkeypatch.setattr(RT, "_C2T_FAST_LAUNCH", True)
    seen = []
    chain = triton.knobs.runtime.launch_enter_hook
    chain.add(seen.append)
    try:
        assert RT._c2t_memo(mod.launch_add_k, (2,), None, (x, y), (3,), (32,)) == ()
    finally:
        chain.remove(seen.append)
    assert RT._c2t_memo(mod.launch_add_k, (2,), None, (x, y), (3,), (32,)) is None    # launched from the memo
    assert RT._c2t_memo(mod.launch_add_k, (2,), None, ([1.0], y), (3,), (32,)) == ()  # not a tensor


def test_memo_key_tells_aliased_arrays_apart(memo):
    """A kernel specialized on two arrays being the same memory (`V_IS_K`) must not reuse a launch
    recorded with them aliased for distinct arrays of the same layout, or the other way round."""
    mod, _ = memo
    a, b = torch.zeros(64), torch.zeros(64)
    same = RT._c2t_memo("k", (1,), None, (a, a), (), (), same=((1, 0),))
    other = RT._c2t_memo("k", (1,), None, (a, b), (), (), same=((1, 0),))
    assert same[0] != other[0]


def test_memo_calls_tritons_c_launcher_directly(memo):
    """With Triton 3.6's CudaLauncher (the compiled kernel's `run`), the memo calls its C function
    with the launch options CudaLauncher.__call__ would pass (no scratch memory here)."""
    mod, log = memo
    calls = []

    class CudaLauncher:
        launch_cooperative_grid, launch_pdl, num_ctas = False, False, 1

        def launch(self, *args):
            calls.append(args)

        def __call__(self, *args):
            log.append(("__call__",))

    compiled = mod.add_k.run(grid=None, warmup=False)
    compiled.run = CudaLauncher()
    compiled.metadata = types.SimpleNamespace(global_scratch_size=0, profile_scratch_size=0)
    x, y = torch.zeros(64), torch.zeros(64)
    mod.run(x, y, 3, 32)
    mod.run(x, y, 3, 32)
    (call,) = calls
    assert call[:13] == (2, 1, 1, 1234, "fn-handle", False, False, None, None, "meta", None, None, None)
    assert call[13:] == (x.data_ptr(), 64, 1, y.data_ptr(), 64, 1, 3, 32, 2, 1)


LOOPED = """
@ct.kernel
def rowsum(x, out, BM: ConstInt, BN: ConstInt):
    i = ct.bid(0)
    acc = ct.zeros((BM, BN), dtype=ct.float32)
    for k in range(ct.num_tiles(x, axis=1, shape=(BM, BN))):
        acc += ct.astype(ct.load(x, index=(i, k), shape=(BM, BN), padding_mode=ct.PaddingMode.ZERO), ct.float32)
    ct.store(out, index=(i, 0), tile=ct.astype(acc, out.dtype))

def run(x, out):
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(x.shape[0], 16),), rowsum, (x, out, 16, 32))
"""


def _stand_in_device(mod, monkeypatch):
    """Stand-ins for Triton's current device and stream, and for torch's queries the memo makes
    (CPU torch has none): device 0, stream 1234."""
    monkeypatch.setattr(triton.runtime.driver, "_active", SimpleNamespace(
        get_current_device=lambda: 0, get_current_stream=lambda device: 1234))
    monkeypatch.setattr(RT, "_C2T_CUDA", SimpleNamespace(
        _cuda_getDevice=lambda: 0, _cuda_getCurrentRawStream=lambda device: 1234))


def _scratch_kernel_stand_in(mod, monkeypatch, launcher):
    """LOOPED's kernel with global scratch (in-kernel descriptors) compiled as a stand-in whose
    `run` is `launcher`, and stand-ins for the current device and stream: (compiled, x, out)."""
    compiled = _Compiled([])
    compiled.run = launcher
    compiled.metadata = SimpleNamespace(global_scratch_size=128, global_scratch_align=128, profile_scratch_size=0)
    kernel = JITFunction(mod.rowsum.fn)
    kernel.run = lambda *args, grid, warmup, **kw: compiled
    monkeypatch.setattr(mod, "rowsum", kernel)
    _stand_in_device(mod, monkeypatch)
    RT._C2T_MEMO.clear()
    return compiled, torch.zeros(64, 64, dtype=torch.float16), torch.zeros(64, 32, dtype=torch.float16)


def test_memo_gets_descriptor_scratch_from_the_installed_allocator(tmp_path, monkeypatch):
    """A kernel with global scratch (in-kernel descriptors): a launch from the memo asks the allocator
    the program installed, as Triton's CudaLauncher does (the harness installs its own); with no
    allocator installed the full path runs (it installs the module's)."""
    from triton.runtime import _allocation
    mod = build(LOOPED, tmp_path)
    calls, allocs = [], []

    class CudaLauncher:
        launch_cooperative_grid, launch_pdl, num_ctas = False, False, 1

        def launch(self, *args):
            calls.append(args)

    compiled, x, out = _scratch_kernel_stand_in(mod, monkeypatch, CudaLauncher())
    token = _allocation._allocator.set(lambda size, align, stream: allocs.append((size, align, stream)) or 4096)
    try:
        mod.run(x, out)
        mod.run(x, out)
        assert memo_entries(mod) == 1 and len(calls) == 1
        assert allocs == [(4 * 128, 128, 1234)]        # 4 programs x 128 bytes
        assert calls[0][7] == 4096                      # the scratch argument
    finally:
        _allocation._allocator.reset(token)
    assert RT._c2t_scratch(0, 1234, 512, 128) is None     # no allocator: the full path


def test_memo_launches_share_one_scratch_buffer_under_a_translated_modules_allocator(tmp_path, monkeypatch):
    """When the installed allocator is a translated module's own (`c2t_scratch`: this module's, or
    another's, or the harness's, which stands for it), memo launches outside graph capture take one
    buffer per (device, stream), grown when a launch needs more, and do not call the allocator."""
    from triton.runtime import _allocation
    mod = build(LOOPED, tmp_path)
    assert RT._c2t_tma_scratch.c2t_scratch is True
    made, allocs = [], []

    class Buffer:
        def __init__(self, n):
            self.n, self.ptr = n, 1000 * (len(made) + 1)
            made.append(n)

        def numel(self):
            return self.n

        def data_ptr(self):
            return self.ptr

    monkeypatch.setattr(mod.torch, "empty", lambda n, **kw: Buffer(n))
    monkeypatch.setattr(mod.torch.cuda, "is_current_stream_capturing", lambda: False)
    monkeypatch.setattr(RT, "_C2T_SCRATCH", {})

    def other_modules_scratch(size, align, stream):
        allocs.append(size)
    other_modules_scratch.c2t_scratch = True
    token = _allocation._allocator.set(other_modules_scratch)
    try:
        first = RT._c2t_scratch(0, 7, 512, 128)
        assert RT._c2t_scratch(0, 7, 256, 128) == first and made == [1 << 16]
        assert RT._c2t_scratch(0, 8, 256, 128) != first                    # another stream
        assert RT._c2t_scratch(0, 7, 1 << 20, 128) == 3000 and made == [1 << 16, 1 << 16, 1 << 20]  # grown
        assert RT._c2t_scratch(0, 7, 512, 128) == 3000
        assert allocs == []
    finally:
        _allocation._allocator.reset(token)


BATCHED = """
@ct.kernel
def copy_k(src, dst, n: int, TILE: ConstInt):
    i = ct.bid(0)
    ct.store(dst, index=(i,), tile=ct.load(src, index=(i,), shape=(TILE,)) * n)

def copy_all(srcs, dsts, n):
    for s, d in zip(srcs, dsts):
        ct.launch(torch.cuda.current_stream(), (ct.cdiv(s.shape[0], 32),), copy_k, (s, d, n, 32))
"""


def test_memo_launches_a_batch_with_the_layouts_of_an_earlier_one(tmp_path, monkeypatch):
    """A host loop's batched launch (<kernel>_batch4) is memoized like a plain one: each slot's
    pointers, grid size and scalars go into the recorded arguments; unused slots repeat the first."""
    mod = build(BATCHED, tmp_path)
    assert hasattr(mod, "copy_k_batch4"), "the loop's launches are batched"
    log = []
    compiled = _Compiled(log)
    kernel = JITFunction(mod.copy_k_batch4.fn)
    kernel.run = lambda *args, grid, warmup, **kw: log.append(("triton", grid, args)) or compiled
    monkeypatch.setattr(mod, "copy_k_batch4", kernel)
    _stand_in_device(mod, monkeypatch)
    RT._C2T_MEMO.clear()
    mod.copy_all([torch.zeros(64), torch.zeros(32), torch.zeros(96)], [torch.zeros(64), torch.zeros(32), torch.zeros(96)], 3)
    srcs, dsts = [torch.zeros(64), torch.zeros(32), torch.zeros(96)], [torch.zeros(64), torch.zeros(32), torch.zeros(96)]
    mod.copy_all(srcs, dsts, 5)
    assert [e[0] for e in log] == ["triton", "fast"]
    _, grid, stream, args = log[1]
    assert grid == (3, 3, 1)            # the largest slot's programs, three slots
    per_slot = 1 + 3 + 3 + 1            # grid size, src (pointer, extent, stride), dst, n
    slots = [args[i * per_slot:(i + 1) * per_slot] for i in range(4)]
    for (s, d), slot, g in zip(zip(srcs, dsts), slots, (2, 1, 3)):
        assert slot == (g, s.data_ptr(), s.shape[0], 1, d.data_ptr(), d.shape[0], 1, 5)
    assert slots[3] == slots[0] and args[4 * per_slot:] == (32,)
    mod.copy_all(srcs[:2], dsts[:2], 5)     # two slots: another launch
    assert log[-1][0] == "triton"


def test_memo_calls_the_c_launcher_directly_only_for_the_triton_it_knows(memo, monkeypatch):
    """CudaLauncher.launch's argument order is Triton 3.6's: with another Triton the memo calls the
    compiled kernel's `run` (which knows its own), still with the pointers as ints."""
    mod, log = memo
    monkeypatch.setattr(RT, "_C2T_DIRECT_LAUNCH", False)
    calls = []

    class CudaLauncher:
        launch_cooperative_grid, launch_pdl, num_ctas = False, False, 1

        def launch(self, *args):
            calls.append(args)

        def __call__(self, *args):
            log.append(("run",) + args[:3])

    compiled = mod.add_k.run(grid=None, warmup=False)
    compiled.run = CudaLauncher()
    compiled.metadata = SimpleNamespace(global_scratch_size=0, profile_scratch_size=0)
    x, y = torch.zeros(64), torch.zeros(64)
    mod.run(x, y, 3, 32)
    mod.run(x, y, 3, 32)
    assert not calls and log[-1] == ("run", 2, 1, 1)


def test_memo_leaves_scalars_of_other_types_to_the_full_path(memo):
    """Only int, float and bool scalars are keyed (others, such as numpy scalars or 0-d tensors,
    would be kept alive by the key)."""
    import numpy as np
    mod, log = memo
    x, y = torch.zeros(64), torch.zeros(64)
    assert RT._c2t_memo(mod.launch_add_k, (2,), None, (x, y), (np.int64(3),), (32,)) == ()
    assert RT._c2t_memo(mod.launch_add_k, (2,), None, (x, y), (3,), (32,)) != ()


HINTED = """
@ct.kernel(num_ctas=1)
def add_k(x, y, n: int, T: ConstInt):
    i = ct.bid(0)
    ct.store(y, index=(i,), tile=ct.load(x, index=(i,), shape=(T,)) + n)

def run(x, y, n, t, ctas=None):
    k = add_k if ctas is None else add_k.replace_hints(num_ctas=ctas)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(x.shape[0], t),), k, (x, y, n, t))
"""


def test_memo_keys_launches_by_their_hints(tmp_path, monkeypatch):
    """A launch of kernel.replace_hints(...) (autotuned TileGym kernels launch that way) is memoized
    under its hints: the same hints hit, other hints (other launch options) do not."""
    mod = build(HINTED, tmp_path)
    log = []
    compiled = _Compiled(log)
    kernel = JITFunction(mod.add_k.fn)
    kernel.run = lambda *args, grid, warmup, **kw: log.append(("triton", kw.get("num_ctas"))) or compiled
    monkeypatch.setattr(mod, "add_k", kernel)
    mod._c2t_kernel_object(kernel, mod.launch_add_k, hints=True)     # (as the module registers it)
    _stand_in_device(mod, monkeypatch)
    monkeypatch.setattr(mod, "_c2t_hint_options", lambda hints, **deco: {"num_ctas": (hints or deco).get("num_ctas", 1)})
    RT._C2T_MEMO.clear()
    x, y = torch.zeros(64), torch.zeros(64)
    for ctas in (2, 2, 4, None, 4):
        mod.run(x, y, 3, 32, ctas)
    assert [e[0] for e in log] == ["triton", "fast", "triton", "triton", "fast"]
    assert [e[1] for e in log if e[0] == "triton"] == [2, 4, 1]
    assert memo_entries(mod) == 3


class _DLPackWithPointer:
    """An array that is not a torch tensor but has data_ptr() (and DLPack, which the launcher
    converts it through), like Triton's TensorWrapper."""

    def __init__(self, t):
        self.t = t

    def __dlpack__(self, *args, **kwargs):
        return self.t.__dlpack__(*args, **kwargs)

    def __dlpack_device__(self):
        return self.t.__dlpack_device__()

    def data_ptr(self):
        return self.t.data_ptr()


@pytest.mark.parametrize("check", ["torch_check", "python_check"])
def test_memo_skips_arrays_that_are_not_tensors_but_have_a_pointer(fast, monkeypatch, check):
    """torch's tensor check refuses such an object: the launch still runs (through the full path,
    every time), and no memo entry is made for it."""
    mod, log = memo_setup(fast, monkeypatch, python_check=check == "python_check")
    x, y = _DLPackWithPointer(torch.zeros(64)), torch.zeros(64)
    mod.launch_add_k((2,), x, y, 3, 32)
    mod.launch_add_k((2,), x, y, 3, 32)
    assert len(log) == 2 and memo_entries(mod) == 0


# --- the memo's lookup in C (translator/runtime/launch_memo.c) ---

def test_memo_lookup_runs_in_c_on_this_machine(memo, lookup):
    """With a C compiler and Python's headers (what Triton's launchers need), the first recorded
    launch builds the C lookup and later launches go through it; C2T_C_MEMO=0 never tries."""
    mod, log = memo
    assert RT._C2T_MEMO_C is None
    x, y = torch.zeros(64), torch.zeros(64)
    mod.run(x, y, 3, 32)
    if lookup == "python_lookup":
        assert RT._C2T_MEMO_C is None and RT._C2T_C_MEMO is False
        return
    assert RT._C2T_MEMO_C is not None and RT._C2T_MEMO_C.ABI == 3
    calls = []
    real = RT._C2T_MEMO_C

    class Spy:
        ABI = 3

        def memo(self, *args):
            calls.append(args[1])
            return real.memo(*args)
    RT._C2T_MEMO_C = Spy()
    mod.run(x, y, 3, 32)
    assert calls == [mod.launch_add_k] and log[-1][0] == "fast"      # (the launcher keys its entries)


@pytest.mark.parametrize("lookup", ["c_lookup"], indirect=True)
def test_c_and_python_lookups_build_the_same_key(memo, monkeypatch):
    """The C key equals the Python one for ints of every class Triton specializes on (beyond 64
    bits too), floats, bools, aliased pointers, Constants and hints; other scalars are not keyed."""
    import numpy as np
    mod, _ = memo
    RT._c2t_load_memo_c()
    c = RT._C2T_MEMO_C
    base = torch.zeros(256)
    arrays = (base[:64], base[1:65], base[:64])
    for n in (1, 3, 16, 0, -5, -32, 2 ** 31 - 1, 2 ** 31, -2 ** 31, -2 ** 31 - 1, 2 ** 40 + 3, 2 ** 40 + 16,
              -2 ** 40, 2 ** 63 - 1, 2 ** 63 + 3, 2 ** 63 + 16, 2 ** 64 - 1, 2 ** 70 + 5, 2 ** 70, -2 ** 70 - 3,
              -2 ** 70, 2.5, True, False):
        for hints in (None, {"num_ctas": 2, "occupancy": 1}):
            scalars, consts, same = (n, 7), (32, True), ((0, 2), (0, 1))
            monkeypatch.setattr(RT, "_C2T_MEMO_C", None)
            py = RT._c2t_memo("k", (2, 1), None, arrays, scalars, consts, same, hints)
            monkeypatch.setattr(RT, "_C2T_MEMO_C", c)
            cc = RT._c2t_memo("k", (2, 1), None, arrays, scalars, consts, same, hints)
            assert py[0] == cc[0] and tuple(py[1]) == cc[1], (n, hints)
            assert [type(k) for k in py[0]] == [type(k) for k in cc[0]]
    for other in (np.int64(3), torch.tensor(3), "3", None):
        assert RT._c2t_memo("k", (2,), None, arrays, (other,), ()) == ()
    assert RT._c2t_memo("k", (2,), None, ([1.0],), (), ()) == ()           # not an array
    assert RT._c2t_memo("k", (2,), None, arrays, (), ([1],)) == ()          # an unhashable Constant
    assert RT._c2t_memo("k", (2,), None, [base, base], [1], (), [(0, 1)])[0][-2:] == (True, 1)   # lists


def test_memo_hit_does_not_swallow_the_launchs_own_error(memo, lookup):
    """An error raised by the kernel's launch from the memo reaches the caller (it is not taken as
    a reason to launch again through the full path)."""
    mod, log = memo

    class CudaLauncher:
        launch_cooperative_grid, launch_pdl, num_ctas = False, False, 1

        def launch(self, *args):
            log.append(("launch",))
            raise RuntimeError("CUDA error: an illegal memory access was encountered")

    compiled = mod.add_k.run(grid=None, warmup=False)
    compiled.run = CudaLauncher()
    compiled.metadata = types.SimpleNamespace(global_scratch_size=0, profile_scratch_size=0)
    log.clear()
    x, y = torch.zeros(64), torch.zeros(64)
    mod.run(x, y, 3, 32)
    with pytest.raises(RuntimeError, match="illegal memory access"):
        mod.run(x, y, 3, 32)
    assert [e[0] for e in log] == ["triton", "launch"]


@pytest.mark.parametrize("lookup", ["c_lookup"], indirect=True)
def test_a_c_lookup_that_cannot_be_built_warns_and_the_python_path_runs(memo, monkeypatch):
    mod, log = memo
    monkeypatch.setattr(RT, "_C2T_MEMO_C_SRC", RT._C2T_MEMO_C_SRC + "\nthis is not C;\n")
    x, y = torch.zeros(64), torch.zeros(64)
    with pytest.warns(RuntimeWarning, match="C lookup could not be built"):
        mod.run(x, y, 3, 32)
    mod.run(x, y, 3, 32)
    assert RT._C2T_MEMO_C is None and [e[0] for e in log] == ["triton", "fast"]


@pytest.mark.parametrize("lookup", ["c_lookup"], indirect=True)
def test_c_lookup_leaks_no_memory_or_references(memo):
    """Hits, misses, scalars of other types, arrays without data_ptr() and list arguments, many
    times over: no Python memory grows and the arguments' reference counts come back."""
    import gc
    import sys
    import tracemalloc
    mod, log = memo
    x, y = torch.zeros(64), torch.zeros(64)
    big = 2 ** 70 + 5
    mod.run(x, y, 3, 32)
    assert RT._C2T_MEMO_C is not None

    def rounds(n):
        for _ in range(n):
            mod.run(x, y, 3, 32)                                                    # a hit
            RT._c2t_memo(mod.launch_add_k, (2,), None, (x, y), (big,), (32,))               # a miss
            RT._c2t_memo(mod.launch_add_k, (2,), None, (x, y), ("3",), (32,))               # not keyed
            RT._c2t_memo(mod.launch_add_k, (2,), None, ([1.0], y), (3,), (32,))             # no data_ptr()
            RT._c2t_memo(mod.launch_add_k, (2,), None, [x, y], [3], (32,), [(0, 1)])        # lists
        log.clear()
    rounds(200)
    gc.collect()
    counts = [sys.getrefcount(v) for v in (x, y, big)]
    tracemalloc.start()
    try:
        before = tracemalloc.take_snapshot()
        rounds(5000)
        gc.collect()
        grown = sum(d.size_diff for d in tracemalloc.take_snapshot().compare_to(before, "filename"))
    finally:
        tracemalloc.stop()
    assert grown < 16 * 1024, f"{grown} bytes more after 5000 rounds"
    assert [sys.getrefcount(v) for v in (x, y, big)] == counts


@pytest.mark.parametrize("lookup", ["c_lookup"], indirect=True)
def test_the_c_lookup_compiles_without_warnings(tmp_path):
    """Users see the C compiler's warnings at their first launch (Triton's build prints its stderr):
    translator/runtime/launch_memo.c compiles cleanly with -Wall -Wextra."""
    import shutil
    import subprocess
    import sysconfig
    from translator.paths import RUNTIME_DIR
    cc = shutil.which("cc") or shutil.which("gcc")
    assert cc, "no C compiler (Triton's launchers, and the memo's C lookup, need one)"
    done = subprocess.run([cc, str(RUNTIME_DIR / "launch_memo.c"), "-O3", "-shared", "-fPIC", "-Wall", "-Wextra",
                           "-Wno-unused-parameter", "-Werror", f"-I{sysconfig.get_paths()['include']}",
                           "-o", str(tmp_path / "memo.so")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


# --- the direct launch (on unless C2T_CU_LAUNCH=0): cuLaunchKernelEx from the C lookup ---

def test_direct_launch_packs_arguments_as_the_kernel_signature_types_them(memo):
    import struct
    mod, _ = memo
    RT._c2t_load_memo_c()
    pack = RT._C2T_MEMO_C.pack
    slot = lambda raw: raw + bytes(8 - len(raw))    # noqa: E731  (a narrower value in an 8-byte slot)
    cases = [("p", 2 ** 64 - 16, struct.pack("<Q", 2 ** 64 - 16)), ("l", -3, struct.pack("<q", -3)),
             ("L", 2 ** 63 + 5, struct.pack("<Q", 2 ** 63 + 5)), ("i", -7, slot(struct.pack("<i", -7))),
             ("I", 2 ** 32 - 1, slot(struct.pack("<I", 2 ** 32 - 1))), ("h", -2, slot(struct.pack("<h", -2))),
             ("b", True, slot(b"\x01")), ("B", 200, slot(b"\xc8")), ("f", 0.1, slot(struct.pack("<f", 0.1))),
             ("d", 0.1, struct.pack("<d", 0.1)), ("e", 0.1, slot(struct.pack("<e", 0.1)))]
    for v in (0.1, 1.00390625, 1.01171875, -0.0, 3.0e38, float("inf"), -2.5e-40):   # bf16: ties to even too
        bits = torch.tensor([v], dtype=torch.float32).to(torch.bfloat16).view(torch.int16).item() & 0xFFFF
        cases.append(("g", v, slot(struct.pack("<H", bits))))
    codes = "".join(c for c, _, _ in cases)
    assert pack(codes, tuple(v for _, v, _ in cases)) == b"".join(raw for _, _, raw in cases)
    assert pack("ixi", (1, 99, 2)) == slot(struct.pack("<i", 1)) + slot(struct.pack("<i", 2))   # constexprs skipped
    nan = struct.unpack("<H", pack("g", (float("nan"),))[:2])[0]
    assert nan & 0x7F80 == 0x7F80 and nan & 0x7F
    with pytest.raises(TypeError):
        pack("i", ("3",))


def _fake_driver():
    """ctypes stand-ins for cuLaunchKernelEx and cuCtxGetCurrent (the layouts as cuda.h has them),
    recording each launch's configuration, attributes, function and parameter slots."""
    import ctypes
    from ctypes import POINTER, Structure, Union, c_char, c_int, c_uint, c_uint64, c_void_p

    class Dim3(Structure):
        _fields_ = [("x", c_uint), ("y", c_uint), ("z", c_uint)]

    class Value(Union):
        _fields_ = [("pad", c_char * 64), ("int", c_int), ("cluster", Dim3)]

    class Attr(Structure):
        _fields_ = [("id", c_int), ("pad", c_char * 4), ("value", Value)]

    class Config(Structure):
        _fields_ = [("gx", c_uint), ("gy", c_uint), ("gz", c_uint), ("bx", c_uint), ("by", c_uint), ("bz", c_uint),
                    ("shared", c_uint), ("stream", c_void_p), ("attrs", POINTER(Attr)), ("nattrs", c_uint)]
    state = {"launches": [], "context": 1, "result": 0, "nparams": 0}

    @ctypes.CFUNCTYPE(c_int, POINTER(Config), c_void_p, POINTER(c_void_p), c_void_p)
    def launch(config, function, params, extra):
        c = config.contents
        attrs = []
        for i in range(c.nattrs):
            a = c.attrs[i]
            attrs.append((a.id, (a.value.cluster.x, a.value.cluster.y, a.value.cluster.z) if a.id == 4 else a.value.int))
        slots = [ctypes.cast(params[i], POINTER(c_uint64)).contents.value for i in range(state["nparams"])]
        state["launches"].append({"grid": (c.gx, c.gy, c.gz), "block": (c.bx, c.by, c.bz), "shared": c.shared,
                                  "stream": c.stream, "attrs": attrs, "function": function, "slots": slots})
        return state["result"]

    @ctypes.CFUNCTYPE(c_int, POINTER(c_void_p))
    def context(out):
        out[0] = state["context"]
        return 0
    address = lambda f: ctypes.cast(f, c_void_p).value    # noqa: E731
    return state, (launch, context), address(launch), address(context)


@pytest.mark.parametrize("lookup", ["c_lookup"], indirect=True)
def test_direct_launch_calls_the_driver_with_tritons_launch_configuration(memo, monkeypatch):
    """With the direct launch on, a memo hit launches through cuLaunchKernelEx (here a stand-in) with
    the configuration Triton 3.6's launcher builds: grid x num_ctas, 32 x num_warps threads, shared
    memory, the stream, PDL / cooperative / cluster attributes, the arguments packed by the
    signature without its constexprs, then the global and profile scratch pointers."""
    mod, log = memo
    RT._c2t_load_memo_c()
    monkeypatch.setattr(RT, "_C2T_CU_LAUNCH", True)
    state, keep, launch_at, context_at = _fake_driver()
    RT._C2T_MEMO_C.set_driver(launch_at, context_at)
    triton_calls = []

    class CudaLauncher:
        launch_cooperative_grid, launch_pdl, num_ctas = False, False, 1

        def launch(self, *args):
            triton_calls.append(args)

        def __call__(self, *args):          # the cached path's launch (a memo miss)
            log.append(("launcher",))
    compiled = mod.add_k.run(grid=None, warmup=False)
    compiled.run = CudaLauncher()
    compiled.metadata = SimpleNamespace(global_scratch_size=0, profile_scratch_size=0)
    compiled.function, compiled.packed_metadata = 0xABC0, (4, 1, 1024)
    compiled.src = SimpleNamespace(signature={"x": "*fp32", "x0": "i32", "xs0": "constexpr", "y": "*fp32", "y0": "i32",
                                              "ys0": "constexpr", "n": "i32", "T": "constexpr",
                                              "c2t_programs": "i32", "C2T_COARSEN": "constexpr"})
    state["nparams"] = 8
    log.clear()
    x, y = torch.zeros(64), torch.zeros(64)
    mod.run(x, y, 3, 32)
    mod.run(x, y, 5, 32)
    assert [e[0] for e in log] == ["triton"] and not triton_calls
    (one,) = state["launches"]
    assert one["grid"] == (2, 1, 1) and one["block"] == (128, 1, 1) and one["shared"] == 1024
    assert one["stream"] == 1234 and one["function"] == 0xABC0 and one["attrs"] == []
    assert one["slots"] == [x.data_ptr(), 64, y.data_ptr(), 64, 5, 2, 0, 0]
    # clusters and PDL: the attributes Triton's launcher sets, the grid times the cluster size
    RT._C2T_MEMO.clear()
    compiled.packed_metadata = (8, 2, 0)
    compiled.run.launch_pdl = True
    mod.run(x, y, 3, 32)
    mod.run(x, y, 3, 32)
    last = state["launches"][-1]
    assert last["grid"] == (4, 1, 1) and last["block"] == (256, 1, 1)
    assert last["attrs"] == [(6, 1), (4, (2, 1, 1)), (5, 1)]
    # no current CUDA context on this thread: Triton's launcher (the full path) makes it current
    state["context"] = 0
    before, calls = len(state["launches"]), len(log)
    mod.run(x, y, 3, 32)
    assert len(state["launches"]) == before and log[calls:] == [("launcher",)]
    # a failed launch is an error for the caller, not a reason to launch again
    state["context"], state["result"] = 1, 700
    with pytest.raises(RuntimeError, match="Triton Error \\[CUDA\\]"):
        mod.run(x, y, 3, 32)
    assert len(state["launches"]) == before + 1 and len(log) == calls + 1
    del keep


@pytest.mark.parametrize("setting, on", [("0", False), ("1", True), ("", True)])
def test_direct_launch_switch_is_read_when_the_runtime_is_imported(tmp_path, monkeypatch, setting, on):
    """C2T_CU_LAUNCH=0 keeps Triton's C launcher for memo hits; anything else (or unset) launches
    directly."""
    import os
    import subprocess
    import sys
    env = {k: v for k, v in os.environ.items() if k != "C2T_CU_LAUNCH"}
    if setting:
        env["C2T_CU_LAUNCH"] = setting
    env["PYTHONPATH"] = str(Path(__file__).resolve().parent.parent)
    done = subprocess.run([sys.executable, "-c", "import translator.runtime.memo as m; print(m._C2T_CU_LAUNCH)"],
                          capture_output=True, text=True, env=env)
    assert done.stdout.strip() == str(on), done.stderr


@pytest.mark.parametrize("lookup", ["c_lookup"], indirect=True)
def test_direct_launch_is_on_by_default_and_skips_signatures_it_cannot_pack(memo, monkeypatch):
    mod, _ = memo
    assert RT._C2T_CU_LAUNCH is True
    run = SimpleNamespace(launch_cooperative_grid=False, launch_pdl=False)
    compiled = SimpleNamespace(src=SimpleNamespace(signature={"a": "*fp16", "d": "tensordesc<fp16[64, 64]>"}),
                               packed_metadata=(4, 1, 0), function=1)
    assert RT._c2t_cu_launch(compiled, run, 2) is None
    compiled.src.signature = {"a": "*fp16", "n": "i32"}
    assert RT._c2t_cu_launch(compiled, run, 2) == ("cu", b"pi", 1, 4, 1, 0, False, False)
    assert RT._c2t_cu_launch(compiled, run, 3) is None                 # not the launch's arguments
    compiled.packed_metadata = (4, 16, 0)
    assert RT._c2t_cu_launch(compiled, run, 2) is None                 # 16-CTA clusters


@pytest.mark.parametrize("lookup", ["c_lookup"], indirect=True)
def test_direct_launch_types_have_cuda_h_layouts(tmp_path):
    """The driver's launch types, declared in translator/runtime/launch_memo.c without cuda.h, have cuda.h's
    sizes, field offsets and enum values (cuda.h as Triton ships it)."""
    import shutil
    import subprocess
    import sysconfig
    from translator.paths import RUNTIME_DIR
    include = Path(triton.__file__).parent / "backends/nvidia/include"
    assert (include / "cuda.h").is_file()
    src = tmp_path / "layouts.c"
    src.write_text(f'#include "cuda.h"\n#include <stddef.h>\n#include "{RUNTIME_DIR / "launch_memo.c"}"\n' + "\n".join(
        f"_Static_assert({a} == {b}, \"{a}\");" for a, b in [
            ("sizeof(c2t_launch_config)", "sizeof(CUlaunchConfig)"),
            ("offsetof(c2t_launch_config, hStream)", "offsetof(CUlaunchConfig, hStream)"),
            ("offsetof(c2t_launch_config, attrs)", "offsetof(CUlaunchConfig, attrs)"),
            ("offsetof(c2t_launch_config, numAttrs)", "offsetof(CUlaunchConfig, numAttrs)"),
            ("sizeof(c2t_launch_attribute)", "sizeof(CUlaunchAttribute)"),
            ("offsetof(c2t_launch_attribute, value)", "offsetof(CUlaunchAttribute, value)"),
            ("C2T_COOPERATIVE", "CU_LAUNCH_ATTRIBUTE_COOPERATIVE"),
            ("C2T_CLUSTER_DIMENSION", "CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION"),
            ("C2T_CLUSTER_SCHEDULING", "CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE"),
            ("C2T_PDL", "CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION"),
            ("C2T_SPREAD", "CU_CLUSTER_SCHEDULING_POLICY_SPREAD")]) + "\n")
    cc = shutil.which("cc") or shutil.which("gcc")
    done = subprocess.run([cc, "-fsyntax-only", f"-I{include}", f"-I{sysconfig.get_paths()['include']}", str(src)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_the_c_source_goes_at_the_end_of_the_module_before_a_main_block(tmp_path):
    """Out of the way of the module's own code: after it, or before a closing `if __name__ ==
    "__main__":` block (whose launches then find it)."""
    import textwrap

    import translator
    from kernel_util import HEADER

    def translate(src):         # (a standalone module carries the C source; others import the runtime)
        return translator.translate_source(HEADER + textwrap.dedent(src), "test_kernel.py",
                                           translator.Options(standalone=True))
    plain = translate(SRC).code
    assert plain.rstrip().endswith('}"""') and plain.index("_C2T_MEMO_C_SRC = r") > plain.index("def run(")
    main = translate(SRC + '\nif __name__ == "__main__":\n    run(torch.zeros(64), torch.zeros(64), 3, 32)\n').code
    assert main.index("def run(") < main.index("_C2T_MEMO_C_SRC = r") < main.index('if __name__ == "__main__":')
    assert main.rstrip().endswith("run(torch.zeros(64), torch.zeros(64), 3, 32)")


@pytest.mark.parametrize("lookup", ["c_lookup"], indirect=True)
def test_launches_during_the_modules_import_keep_the_python_path_and_build_later(memo, monkeypatch):
    """A launch recorded before the module's end (a module-level launch) has no C source yet: it
    keeps the Python path without a warning, and a later recorded launch builds the C lookup."""
    import warnings
    mod, log = memo
    source = RT._C2T_MEMO_C_SRC
    monkeypatch.delattr(RT, "_C2T_MEMO_C_SRC")
    x, y = torch.zeros(64), torch.zeros(64)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mod.run(x, y, 3, 32)
        mod.run(x, y, 3, 32)
    assert RT._C2T_MEMO_C is None and RT._C2T_C_MEMO is True and [e[0] for e in log] == ["triton", "fast"]
    monkeypatch.setattr(RT, "_C2T_MEMO_C_SRC", source, raising=False)
    mod.run(x, y, 1, 32)                # another specialization: recorded, and the C lookup built
    assert RT._C2T_MEMO_C is not None


@pytest.mark.parametrize("lookup", ["c_lookup"], indirect=True)
def test_direct_launch_passes_descriptor_scratch_after_the_arguments(tmp_path, monkeypatch):
    """A kernel with global scratch (in-kernel descriptors) launched directly: the installed
    allocator's buffer goes in the slot after the arguments (Triton 3.6's global_scratch), the
    profile scratch after it is null; an allocator object with data_ptr() works too."""
    from triton.runtime import _allocation
    mod = build(LOOPED, tmp_path)
    monkeypatch.setattr(RT, "_C2T_CU_LAUNCH", True)

    class CudaLauncher:
        launch_cooperative_grid, launch_pdl, num_ctas = False, False, 1

        def launch(self, *args):
            raise AssertionError("Triton's launcher called from the memo")

        def __call__(self, *args):          # the cached path's launch (a memo miss)
            pass
    compiled, x, out = _scratch_kernel_stand_in(mod, monkeypatch, CudaLauncher())
    compiled.function, compiled.packed_metadata = 0x77, (4, 1, 0)
    mod.run(x, out)                     # the full path (stand-in dispatch): records the entry
    RT._c2t_load_memo_c()
    ((entry,),) = RT._C2T_MEMO.values()
    n = len(entry[3])
    compiled.src = SimpleNamespace(signature={f"a{i}": ("*fp16" if i in entry[4] else "i32") for i in range(n)})
    RT._C2T_MEMO.clear()
    mod.run(x, out)                     # recorded again, now with the direct launch
    ((entry,),) = RT._C2T_MEMO.values()
    assert type(entry[1]) is tuple and entry[1][0] == "cu"
    state, keep, launch_at, context_at = _fake_driver()
    RT._C2T_MEMO_C.set_driver(launch_at, context_at)
    state["nparams"] = n + 2

    class Buffer:
        def data_ptr(self):
            return 8192
    for returned, expected in ((4096, 4096), (Buffer(), 8192)):
        token = _allocation._allocator.set(lambda size, align, stream, r=returned: r)
        try:
            mod.run(x, out)
        finally:
            _allocation._allocator.reset(token)
        slots = state["launches"][-1]["slots"]
        assert slots[-2:] == [expected, 0] and slots[entry[4][0]] == x.data_ptr()
    del keep


def test_kernels_of_one_name_in_two_modules_keep_their_own_memo_and_cache_entries(memo, tmp_path, monkeypatch):
    """The runtime's launch memo and compiled-kernel cache are shared by every module that
    imports translator.runtime: a kernel of the same name and layouts in another module (or in a
    second import of one module) has entries of its own, and launches its own compiled kernel."""
    mod, log = memo
    other = build(SRC, tmp_path)
    other_log = []
    kernel = JITFunction(other.add_k.fn)
    kernel.run = lambda *args, grid, warmup, **kw: other_log.append(("triton", grid)) or _Compiled(other_log)
    monkeypatch.setattr(other, "add_k", kernel)
    x, y = torch.zeros(64), torch.zeros(64)
    for m in (mod, mod, other, other, mod):
        m.run(x, y, 3, 32)
    assert [e[0] for e in log] == ["triton", "fast", "fast"] and [e[0] for e in other_log] == ["triton", "fast"]
    assert memo_entries(mod) == 2       # one per launcher
