"""Translate a cuTile source string and import the result (for small semantic tests)."""
import importlib.util
import itertools
import sys
import textwrap

import translator

_ids = itertools.count()
HEADER = "import math\nimport torch\nimport cuda.tile as ct\nConstInt = ct.Constant[int]\n"


class _Runtime:
    """translator/runtime/'s modules as one namespace, as a generated module's own globals were
    before the runtime became a package: each name is read, set (monkeypatch.setattr(RT, ...))
    and deleted in the runtime module that holds it, where every one of its readers sees it.
    (No __dict__ of its own: monkeypatch then restores what it read, not an instance entry.)"""
    __slots__ = ()

    @staticmethod
    def _home(name):
        import importlib
        from translator import vendor
        module = vendor.exports().get(name)
        if module is None:
            raise AttributeError(f"translator.runtime has no {name!r}")
        return importlib.import_module(f"{vendor.PACKAGE}.{module}")

    def __getattr__(self, name):
        return getattr(self._home(name), name)

    def __setattr__(self, name, value):
        setattr(self._home(name), name, value)

    def __delattr__(self, name):
        delattr(self._home(name), name)


RT = _Runtime()
# the runtime's caches, emptied before each test (conftest.py), as each test's module had its own
_CACHES = ("_C2T_COMPILED", "_C2T_TENSOR_AT", "_C2T_GLOBALS_SEEN", "_C2T_SM_LIMITS", "_C2T_MEMO", "_C2T_SCRATCH",
           "_C2T_STAGES", "_C2T_DEEP", "_C2T_SMALL", "_C2T_TMA_LEGAL", "_C2T_TABLES", "_C2T_CLUSTER_DEVICES")


def reset_runtime():
    """Empty the launch runtime's caches (what one test's launches left there)."""
    for name in _CACHES:
        getattr(RT, name).clear()
    RT._C2T_LAST_LAUNCH[0] = None
    RT._C2T_COARSEN_GPU = None


def runtime_switch(module: str, name: str, env: dict) -> str:
    """What `name` of translator.runtime.<module> is (its repr) when the runtime is imported in a
    fresh process with the variables `env` set (the switches are read from the environment at
    import), or the last line of the error the import raised."""
    import os
    import subprocess
    from pathlib import Path
    full = {k: v for k, v in os.environ.items() if k not in env}
    full.update(env)
    full["PYTHONPATH"] = str(Path(__file__).resolve().parent.parent)
    done = subprocess.run([sys.executable, "-c", f"import translator.runtime.{module} as m; print(repr(m.{name}))"],
                          capture_output=True, text=True, env=full, timeout=300)
    return done.stdout.strip() if done.returncode == 0 else (done.stderr.strip().splitlines() or ["?"])[-1]


def translate(src: str):
    res = translator.translate_source(HEADER + textwrap.dedent(src), "test_kernel.py")
    return res


def build(src: str, tmp_path):
    res = translate(src)
    assert res.ok, "\n".join(d.format() for d in res.diagnostics)
    return load(res.code, tmp_path)


def load(code: str, folder, prefix: str = "c2t_sem"):
    """Import generated module text from a file in `folder` (Triton reads kernels' source there)."""
    name = f"{prefix}_{next(_ids)}"
    path = folder / f"{name}.py"
    path.write_text(code)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def checked(src: str):
    """Translate `src` with the translation check on (translator/check.py: Triton's front end for
    sm_90, run in a process of its own under the interpreter) and assert that it found nothing:
    Triton accepts every kernel for fp32, fp16 and bf16 arrays (and int32 and int64 index arrays)."""
    from translator.api import Options
    res = translator.translate_source(HEADER + textwrap.dedent(src), "test_kernel.py", Options(check=True))
    bad = [d.format() for d in res.diagnostics if d.code in ("C2T110", "C2T215", "C2T216", "C2T217", "C2T005")]
    assert res.ok and not bad, bad or [d.format() for d in res.diagnostics]
    return res


def codes(src: str) -> list:
    return [d.code for d in translate(src).diagnostics]


def _compile_in_subprocess(src: str, tmp_path, body: str) -> str:
    """Translate `src` and run `body` in a subprocess WITHOUT the interpreter, with the translated
    module as `m`, tests/compile_sm90.py as `C`, and torch, triton and json imported; returns its
    stdout (raises AssertionError on failure)."""
    import os
    import subprocess
    from pathlib import Path
    res = translate(src)
    assert res.ok, "\n".join(d.format() for d in res.diagnostics)
    mod = tmp_path / f"c2t_cc_{next(_ids)}.py"
    mod.write_text(res.code)
    tests = Path(__file__).resolve().parent
    prog = f"""
import json, sys, importlib.util, torch, triton
sys.path.insert(0, {str(tests)!r})
import compile_sm90 as C
spec = importlib.util.spec_from_file_location("m", {str(mod)!r})
m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
""" + textwrap.dedent(body)
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env["PYTHONPATH"] = os.pathsep.join([str(tests.parent)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    r = subprocess.run([sys.executable, "-c", prog], capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    return r.stdout


def compile_sm90(src: str, entry: str, args_code: str, tmp_path) -> str:
    """Translate `src`, then in a subprocess WITHOUT the interpreter call `entry(*args)` with
    `args_code` (Python that evaluates to the args tuple, CPU tensors; `torch` is imported),
    intercept the launches and compile each kernel for sm_90. Returns the subprocess stdout
    (one `OK <kernel> ptx=...` line per kernel); raises AssertionError on failure."""
    return _compile_in_subprocess(src, tmp_path, f"""
        for line in C.compile_kernels_of(m, lambda: m.{entry}(*({args_code}))):
            print(line)
        """)


def compile_sm90_asm(src: str, entry: str, args_code: str, tmp_path) -> dict:
    """As compile_sm90, but returns {kernel name: {"ttir": ..., "ptx": ...}} of the launches
    `entry(*args)` makes (the first specialization of each kernel), to check what the compiler was
    given and made of it."""
    import json
    out = _compile_in_subprocess(src, tmp_path, f"""
        calls = C._capture(m)
        try:
            m.{entry}(*({args_code}))
        finally:
            C._restore(m)
        out = {{}}
        for name, fn, args, kwargs in calls:
            if name not in out:
                _, src, options = C.specialize_for_h200(fn, args, kwargs)
                k = triton.compile(src, target=C._H200, options=options.__dict__)
                out[name] = {{"ttir": k.asm["ttir"], "ptx": k.asm["ptx"]}}
        print(json.dumps(out))
        """)
    return json.loads(out.strip().splitlines()[-1])
