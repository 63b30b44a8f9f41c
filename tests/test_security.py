"""Reading a file never runs it (issue 33, item 4): ct.static_eval / ct.static_assert expressions
are folded by translator/const_fold.py, never given to Python's eval, and the Lark grammar cache
(a pickle) is read only from a private per-user directory."""
import os
import pickle
import tempfile
import time

import pytest

from kernel_util import HEADER, translate
from translator import parse as P

KERNEL = """
@ct.kernel
def k(x, T: ConstInt):
    n = {expr}
    ct.store(x, index=(0,), tile=ct.full((T,), 1, dtype=ct.int32))
"""
EXPR_LINE = HEADER.count("\n") + 4          # the line of `n = ...` in the translated source
EXPR_COL = len("    n = ") + 1


def _refused(expr: str, code: str = "C2T105", whole: bool = True):
    """Translate a kernel whose `n = ...` line is `expr`: one `code` error located inside expr;
    `whole`: the module is refused (nothing written), else only the kernel (a stand-in)."""
    res = translate(KERNEL.format(expr=expr))
    errs = [d for d in res.diagnostics if d.severity == "error"]
    assert [d.code for d in errs] == [code], [d.format() for d in res.diagnostics]
    d = errs[0]
    assert d.line == EXPR_LINE and EXPR_COL <= d.col < EXPR_COL + len(expr), d.format()
    assert not res.ok
    assert not res.code if whole else (res.partial and res.stubs == ["k"]), res.code
    return d


def _hostile(marker):
    m = repr(str(marker))
    return [
        # the escape of issue 33: object's subclasses reach os.system
        f"ct.static_eval([s for s in ().__class__.__base__.__subclasses__() if s.__name__ == '_wrap_close']"
        f"[0].__init__.__globals__['system']('touch ' + {m}))",
        "ct.static_eval(().__class__.__base__.__subclasses__())",
        f"ct.static_eval([__import__('os').system('touch ' + {m}) for _ in range(1)])",
        f"ct.static_assert(len([open({m}, 'w') for _ in range(1)]) == 1)",
        f"ct.static_eval(open({m}, 'w'))",
        # a builtin's __self__ is the builtins module; a lambda reaches it as well
        f"ct.static_eval([len.__self__.open({m}, 'w') for _ in range(1)])",
        f"ct.static_eval([(lambda: len.__self__.open({m}, 'w'))() for _ in range(1)])",
        "ct.static_eval([c for c in ().__class__.__mro__])",
        "ct.static_eval(tuple(c.__name__ for c in ().__class__.__mro__))",
        f"ct.static_eval([getattr(len, '__self__').open({m}, 'w') for _ in range(1)])",
        f"ct.static_eval([vars(len)['open']({m}, 'w') for _ in range(1)])",
        f"ct.static_eval(['{{0.__init__.__globals__}}'.format(x) for x in (1,)])",
        f"ct.static_eval([eval('open(' + repr({m}) + ', \"w\")') for _ in range(1)])",
        f"ct.static_assert([(x := len.__self__) for _ in range(1)] == [])",
    ]


@pytest.mark.parametrize("k", range(len(_hostile("M"))))
def test_hostile_static_expressions_are_refused_and_run_nothing(tmp_path, k):
    marker = tmp_path / "MARKER"
    expr = _hostile(marker)[k]
    d = _refused(expr)
    assert "translation time" in d.message or "does not evaluate" in d.message, d.format()
    assert not marker.exists()


def test_legit_static_expressions_still_fold():
    res = translate("""
    SIZES = (2, 4, 8)
    SCALE = 3

    @ct.kernel
    def k(x, T: ConstInt):
        K = 4
        a = ct.static_eval(sum(s * SCALE for s in SIZES if s > 2))
        b = ct.static_eval(len(SIZES) + max(SIZES) - min(s for s in SIZES))
        c = ct.static_eval(tuple(i * K for i in range(K)))
        d = ct.static_eval(sum([i for i in range(10) if i % 2 == 0]) * SCALE ** 2)
        e = ct.static_eval(round(math.pi * 100) + int(math.sqrt(16)) + (1 << 4))
        f = ct.static_eval(T * 2)
        ct.static_assert(len(SIZES) == 3 and all(s % 2 == 0 for s in SIZES), "even sizes")
        ct.static_assert(sorted(SIZES, reverse=True)[0] == 8 if SIZES else False)
        ct.static_assert(T % 4 == 0, "T must be a multiple of 4")
        ct.store(x, index=(0,), tile=ct.full((T,), a + b + c[1] + d + e + f, dtype=ct.int32))
    """)
    assert res.ok, [d.format() for d in res.diagnostics]
    for line in ("a: tl.constexpr = 36", "b: tl.constexpr = 9", "c = (0, 4, 8, 12)", "d: tl.constexpr = 180",
                 "e: tl.constexpr = 334", "f: tl.constexpr = T * 2",
                 "tl.static_assert(T % 4 == 0, 'cuTile TileStaticAssertionError: T must be a multiple of 4')"):
        assert line in res.code, res.code
    assert "even sizes" not in res.code     # folded to True: nothing to check


def test_static_eval_errors_keep_their_codes():
    # (ordinary errors: the kernel is refused, a stand-in in a module written without it)
    _refused("ct.static_eval(sum(1 // i for i in range(3)))", "C2T106", whole=False)     # ZeroDivisionError
    _refused("ct.static_eval([i for i in range(T)])", whole=False)            # T is known only to Triton
    _refused("ct.static_eval(ct.bid(0) for _ in range(2))", whole=False)


@pytest.mark.parametrize("expr", [
    "ct.static_eval(10 ** 10 ** 10)",
    "ct.static_eval('a' * 10 ** 9)",
    "ct.static_eval(sum(range(10 ** 12)))",
    "ct.static_eval(len([i for i in range(10 ** 12)]))",
    "ct.static_eval(sum(1 for i in range(4096) for j in range(4096) if i < 0))",
    "ct.static_eval(len((1,) * 10 ** 12))",
    "ct.static_eval(sum(x for x in [1 << 10 ** 8]))",
    "ct.static_eval(pow(7, 10 ** 10))",
])
def test_huge_static_expressions_are_refused_quickly(expr):
    """(Only the kernel: a size limit is not an attempt on the machine, nothing past it ran.)"""
    t0 = time.monotonic()
    d = _refused(expr, whole=False)
    assert time.monotonic() - t0 < 10
    assert "more than" in d.message, d.format()


# ---------------------------------------------------------------- the grammar cache
class _Plant:
    """Unpickling it creates `path`."""

    def __init__(self, path):
        self.path = str(path)

    def __reduce__(self):
        return (open, (self.path, "w"))


def _plant(path, marker):
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as f:       # Lark's cache format: a hash line, then pickles
        f.write(b"0" * 64 + b"\n")
        pickle.dump(_Plant(marker), f)
        pickle.dump(_Plant(marker), f)


def _grammar():
    from translator.paths import GRAMMAR_DIR
    return (GRAMMAR_DIR / "cutile.lark").read_text()


def _works():
    res = translate("""
    @ct.kernel
    def k(x, T: ConstInt):
        ct.store(x, index=(0,), tile=ct.load(x, index=(0,), shape=(T,)) + 1)
    """)
    assert res.ok, [d.format() for d in res.diagnostics]


@pytest.fixture
def cache_env(tmp_path, monkeypatch):
    """The shared temporary directory and the per-user cache directory, both under tmp_path."""
    shared = tmp_path / "tmp"
    shared.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(shared))
    monkeypatch.setenv("C2T_CACHE_DIR", str(tmp_path / "cache"))
    P.parser.cache_clear()
    P._PARSED.clear()       # (a text parsed before would not build the parser, nor read the cache)
    yield tmp_path
    P.parser.cache_clear()
    P._PARSED.clear()


def test_cache_planted_in_the_shared_temporary_directory_is_never_loaded(cache_env):
    import hashlib
    import lark
    marker = cache_env / "MARKER"
    digest = hashlib.sha256(_grammar().encode()).hexdigest()[:16]
    _plant(cache_env / "tmp" / "cutile2triton-cache" / f"cutile-{lark.__version__}-{digest}.lark-cache", marker)
    _works()
    assert not marker.exists()


def _planted_dir_is_not_loaded(cache_env, d):
    marker = cache_env / "MARKER"
    _plant(d / P.cache_name(_grammar()), marker)
    _works()
    assert not marker.exists()


@pytest.mark.parametrize("mode", [0o777, 0o770, 0o702])
def test_cache_in_a_directory_others_can_write_is_not_loaded(cache_env, mode):
    d = cache_env / "cache"
    d.mkdir()
    d.chmod(mode)
    _planted_dir_is_not_loaded(cache_env, d)


@pytest.mark.skipif(os.getuid() != 0, reason="needs root to give a directory to another user")
def test_cache_in_a_directory_of_another_user_is_not_loaded(cache_env):
    d = cache_env / "cache"
    d.mkdir(mode=0o700)
    _plant(d / P.cache_name(_grammar()), cache_env / "MARKER")
    os.chown(d, 12345, 12345)
    _works()
    assert not (cache_env / "MARKER").exists()


def test_cache_directory_that_is_a_link_is_not_loaded(cache_env):
    real = cache_env / "elsewhere"
    real.mkdir(mode=0o700)
    (cache_env / "cache").symlink_to(real)
    _planted_dir_is_not_loaded(cache_env, real)


@pytest.mark.parametrize("how", ["world-writable", "other-owner", "link"])
def test_cache_file_that_is_not_private_is_not_loaded(cache_env, how):
    if how == "other-owner" and os.getuid() != 0:
        pytest.skip("needs root to give a file to another user")
    d = cache_env / "cache"
    d.mkdir(mode=0o700)
    marker = cache_env / "MARKER"
    path = d / P.cache_name(_grammar())
    target = cache_env / "planted" if how == "link" else path
    _plant(target, marker)
    if how == "world-writable":
        path.chmod(0o666)
    elif how == "other-owner":
        os.chown(path, 12345, 12345)
    else:
        path.symlink_to(target)
    _works()
    assert not marker.exists()
    assert path.is_symlink() if how == "link" else path.stat().st_size < 1000     # left alone


def test_private_cache_is_written_and_loaded(cache_env, monkeypatch):
    d = cache_env / "cache"
    _works()
    assert d.is_dir() and d.stat().st_mode & 0o777 == 0o700
    path = d / P.cache_name(_grammar())
    st = path.stat()
    assert st.st_uid == os.getuid() and st.st_mode & 0o777 == 0o600
    assert [p.name for p in d.iterdir()] == [path.name]      # the temporary name was renamed away
    builds = []
    real = P._lark
    monkeypatch.setattr(P, "_lark", lambda g: builds.append(1) or real(g))
    P.parser.cache_clear()
    P._PARSED.clear()
    _works()
    assert not builds and path.stat().st_mtime_ns == st.st_mtime_ns     # loaded, not rebuilt
    path.write_bytes(path.read_bytes()[:1000])         # truncated (a crash while writing...): rebuilt
    P.parser.cache_clear()
    P._PARSED.clear()
    _works()
    assert builds and path.stat().st_size > 1000


def test_cache_directory_defaults_to_the_users_cache(cache_env, monkeypatch):
    monkeypatch.delenv("C2T_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache_env / "xdg"))
    assert P.cache_dir() == cache_env / "xdg" / "cutile2triton"
    assert (cache_env / "xdg" / "cutile2triton").stat().st_mode & 0o777 == 0o700


def test_module_constant_power_chain_is_not_computed():
    """Module constants are folded by translator/analysis.py with const_fold's size limits."""
    t0 = time.monotonic()
    res = translate("""
    X = ((((10 ** 63) ** 63) ** 63) ** 63) ** 63

    @ct.kernel
    def k(x, T: ConstInt):
        ct.store(x, index=(0,), tile=ct.full((T,), 1, dtype=ct.int32))
    """)
    assert time.monotonic() - t0 < 10
    assert res.ok, [d.format() for d in res.diagnostics]


@pytest.mark.parametrize("expr", ["ct.static_eval(repr(T))", "ct.static_eval((y := 3) + y)",
                                  "ct.static_eval((lambda v: v)(2))"])
def test_unevaluated_harmless_expressions_refuse_only_their_kernel(expr):
    """cutile-python's test_static_eval uses `repr` and `:=` in kernels: the whole module (and its
    other tests) was refused, where only those kernels cannot be translated."""
    d = _refused(expr, whole=False)
    # (`:=`: cuTile's own refusal, its TileSyntaxError, the shim raises)
    assert "translation time" in d.message or "may not bind names" in d.message, d.format()
