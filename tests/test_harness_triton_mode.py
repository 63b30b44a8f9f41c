"""Interpreter runs work after triton was imported for the GPU (compiled mode), and vice versa."""
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

SCRIPT = r'''
import json, sys
sys.path.insert(0, sys.argv[1] + "/tests")
from harness_fixtures.support import code, fixture, import_harness
harness = import_harness()
import triton, triton.language as tl          # imported WITHOUT the interpreter: tl.max is compiled-only
from triton.runtime.jit import JITFunction
from triton.runtime.interpreter import InterpretedFunction
from translator.harness.triton_mode import library_mode
res = {"before": type(tl.max).__name__}
def state():
    objs = [tl, tl.core, tl.math, tl.core.tensor, tl.core.dtype, tl.core.tensor_descriptor_base]
    return [{k: id(v) for k, v in vars(o).items()} for o in objs]
state_before = state()
rep = harness.verify(fixture("add_orig.py"), mode="interp", progress=False,
                     translated=code("add_translated_triton_stdlib.py"))
res["interp_ok"] = rep.ok
res["interp_errors"] = [r.error[:200] for r in rep.results if r.error][:1]
res["after"] = type(tl.max).__name__
res["language_restored"] = state() == state_before
with library_mode(interpret=True):
    res["inside_interp"] = [type(tl.max).__name__, type(tl.tensor.sum).__name__]
    with library_mode(interpret=False):
        res["nested_compiled"] = [type(tl.max).__name__, type(tl.tensor.sum).__name__]
    same = tl.max
with library_mode(interpret=True):
    res["twin_reused"] = tl.max is same
print(json.dumps(res))
'''


def test_interp_run_after_compiled_import():
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    proc = subprocess.run([sys.executable, "-c", SCRIPT, str(ROOT)], capture_output=True, text=True,
                          env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    res = json.loads(proc.stdout.strip().splitlines()[-1])
    assert res["before"] == "JITFunction" and res["after"] == "JITFunction", res
    assert res["interp_ok"], res
    assert res["language_restored"], res          # the interpreter's in-place patches are undone
    assert res["inside_interp"] == ["InterpretedFunction", "function"], res      # methods: a forwarder
    assert res["nested_compiled"] == ["JITFunction", "JITFunction"] and res["twin_reused"], res


SCRIPT_TWICE = r'''
import json, sys, tempfile
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from translator.fuzz.corpus import unpack
from translator.harness import check_goldens
corpus = json.loads(Path(sys.argv[1], "tests", "fuzz_corpus", "corpus.json").read_text())
names = [n for n, p in sorted(corpus["programs"].items()) if "ct.cumsum(" in p["source"]][:3]
pairs = unpack({"format": 1, "programs": {n: corpus["programs"][n] for n in names}}, Path(tempfile.mkdtemp()))
reps = [check_goldens(p, g, mode="interp", progress=False) for p, g in pairs]
print(json.dumps({"names": names, "ok": [r.ok for r in reps],
                  "errors": [x.error[-300:] for r in reps for x in r.results if x.error]}))
'''


def test_interp_runs_one_after_another_keep_the_interpreters_rewrites_working():
    """The interpreter rewrites tl.cumsum once (a cached rewrite whose globals get
    `interpreter_semantic`); library_mode's restore must leave that name, or the next run in the
    same process fails with NameError (found replaying the fuzz corpus in one process)."""
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    proc = subprocess.run([sys.executable, "-c", SCRIPT_TWICE, str(ROOT)], capture_output=True, text=True,
                          env=dict(env, C2T_CHECK="0"), timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    res = json.loads(proc.stdout.strip().splitlines()[-1])
    assert len(res["names"]) >= 2 and all(res["ok"]), res
