"""GPU experiment (not part of the product; written in the thirteenth session, not yet run): would
the launch memo gain from calling cuLaunchKernelEx itself instead of Triton 3.6's C launcher?

A memo hit's remaining host cost is mostly Triton's launcher (8.8-11.3 us of an 11-15 us launcher
call on the H200's host: docs/gpu-runs/c-memo-2026-11-30.md), which parses every argument with
PyArg_ParseTuple, checks the CUDA context and releases the GIL around the launch. This times, for
each launch a suite entry makes through a generated launcher:

  memo            the launcher call, from the memo (C lookup, Triton's launcher)
  triton-launch   Triton's launcher alone, with the memo's recorded argument list
  direct          the same launch through a small C function here: the arguments packed by the
                  kernel's signature into 8-byte slots, then cuLaunchKernelEx (libcuda.so.1 by
                  dlopen), with Triton's launch config (grid x num_ctas, 32 x num_warps threads,
                  shared memory, cluster and PDL/cooperative attributes)
  memo+direct     the launcher call from the memo with the entry's call replaced by `direct`

and checks that `direct` writes the same bytes as Triton's launcher (outputs poisoned with NaN
before each; inputs untouched). From the project root on the GPU machine:

    source .gpu/setup.sh; export TILEGYM_SRC=.corpus/src
    python tests/gpu/exp_direct_launch.py tg_flash_decode:0 tg_rms_norm:0

Kernels with global scratch (in-kernel descriptors) are skipped here (the product would pass the
scratch pointer in the last-but-one slot), as are signatures with types this does not pack.
"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import probe_launch_cost as P  # noqa: E402  (puts the project and TileGym on sys.path)

C_SRC = r"""
#include "cuda.h"
#include <dlfcn.h>
#include <stdint.h>
#include <string.h>
#define PY_SSIZE_T_CLEAN
#include <Python.h>

typedef CUresult (*launch_ex_t)(const CUlaunchConfig *, CUfunction, void **, void **);
typedef CUresult (*ctx_get_t)(CUcontext *);
static launch_ex_t launch_ex;
static ctx_get_t ctx_get;

static int load(void) {
    if (launch_ex)
        return 0;
    void *h = dlopen("libcuda.so.1", RTLD_LAZY);
    if (!h) { PyErr_SetString(PyExc_RuntimeError, "no libcuda.so.1"); return -1; }
    launch_ex = (launch_ex_t)dlsym(h, "cuLaunchKernelEx");
    ctx_get = (ctx_get_t)dlsym(h, "cuCtxGetCurrent");
    if (!launch_ex || !ctx_get) { PyErr_SetString(PyExc_RuntimeError, "no cuLaunchKernelEx"); return -1; }
    return 0;
}

static uint16_t to_bf16(double d) {
    float f = (float)d;
    uint32_t u;
    memcpy(&u, &f, 4);
    if ((u & 0x7fffffff) > 0x7f800000)
        return (uint16_t)((u >> 16) | 0x40);            /* NaN stays NaN */
    return (uint16_t)((u + 0x7fff + ((u >> 16) & 1)) >> 16);   /* round to nearest even */
}

/* launch(function, gx, gy, gz, num_warps, num_ctas, shared, stream, coop, pdl, codes, args):
   codes[i] is how args[i] is packed ('x': a constexpr, skipped); the two scratch pointers Triton
   3.6 appends to every kernel's parameters are passed as 0. */
static PyObject *launch(PyObject *self, PyObject *a) {
    unsigned long long function, stream;
    int gx, gy, gz, warps, ctas, shared, coop, pdl;
    const char *codes;
    Py_ssize_t ncodes;
    PyObject *args;
    if (!PyArg_ParseTuple(a, "KiiiiiiKpps#O!", &function, &gx, &gy, &gz, &warps, &ctas, &shared, &stream, &coop,
                          &pdl, &codes, &ncodes, &PyTuple_Type, &args))
        return NULL;
    if (load() < 0)
        return NULL;
    if (PyTuple_GET_SIZE(args) != ncodes) {
        PyErr_SetString(PyExc_ValueError, "one code per argument");
        return NULL;
    }
    uint64_t slots[256];
    void *params[258];
    int n = 0;
    for (Py_ssize_t i = 0; i < ncodes; i++) {
        PyObject *v = PyTuple_GET_ITEM(args, i);
        uint64_t s = 0;
        char c = codes[i];
        if (c == 'x')
            continue;
        if (n >= 256) { PyErr_SetString(PyExc_ValueError, "too many arguments"); return NULL; }
        if (c == 'p' || c == 'L') {
            s = PyLong_AsUnsignedLongLong(v);
        } else if (c == 'l' || c == 'i' || c == 'h' || c == 'b' || c == 'I' || c == 'H' || c == 'B') {
            long long x = PyLong_AsLongLong(v);
            if (c == 'l') { int64_t t = x; memcpy(&s, &t, 8); }
            else if (c == 'i') { int32_t t = (int32_t)x; memcpy(&s, &t, 4); }
            else if (c == 'I') { uint32_t t = (uint32_t)x; memcpy(&s, &t, 4); }
            else if (c == 'h' || c == 'H') { uint16_t t = (uint16_t)x; memcpy(&s, &t, 2); }
            else { uint8_t t = (uint8_t)x; memcpy(&s, &t, 1); }
        } else if (c == 'f' || c == 'd' || c == 'e' || c == 'g') {
            double d = PyFloat_AsDouble(v);
            if (c == 'd') memcpy(&s, &d, 8);
            else if (c == 'f') { float f = (float)d; memcpy(&s, &f, 4); }
            else if (c == 'g') { uint16_t t = to_bf16(d); memcpy(&s, &t, 2); }
            else { uint16_t t; PyFloat_Pack2(d, (char *)&t, 1); memcpy(&s, &t, 2); }
        } else {
            PyErr_Format(PyExc_ValueError, "unknown code %c", c);
            return NULL;
        }
        if (PyErr_Occurred())
            return NULL;
        slots[n] = s;
        params[n] = &slots[n];
        n++;
    }
    uint64_t zero0 = 0, zero1 = 0;
    params[n++] = &zero0;
    params[n++] = &zero1;
    CUlaunchAttribute attrs[4];
    int na = 0;
    if (pdl) { attrs[na].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION; attrs[na].value.programmaticStreamSerializationAllowed = 1; na++; }
    if (coop) { attrs[na].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE; attrs[na].value.cooperative = 1; na++; }
    if (ctas != 1) {
        attrs[na].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
        attrs[na].value.clusterDim.x = ctas; attrs[na].value.clusterDim.y = 1; attrs[na].value.clusterDim.z = 1; na++;
        attrs[na].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE;
        attrs[na].value.clusterSchedulingPolicyPreference = CU_CLUSTER_SCHEDULING_POLICY_SPREAD; na++;
    }
    CUlaunchConfig cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.gridDimX = gx * ctas; cfg.gridDimY = gy; cfg.gridDimZ = gz;
    cfg.blockDimX = 32 * warps; cfg.blockDimY = 1; cfg.blockDimZ = 1;
    cfg.sharedMemBytes = shared; cfg.hStream = (CUstream)stream; cfg.attrs = attrs; cfg.numAttrs = na;
    CUresult r = launch_ex(&cfg, (CUfunction)function, params, 0);
    if (r != CUDA_SUCCESS) {
        PyErr_Format(PyExc_RuntimeError, "cuLaunchKernelEx: error %d", (int)r);
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"launch", launch, METH_VARARGS, "cuLaunchKernelEx with packed arguments"},
    {NULL, NULL, 0, NULL},
};
static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "c2t_direct_launch", NULL, -1, methods, NULL, NULL, NULL, NULL};
PyMODINIT_FUNC PyInit_c2t_direct_launch(void) { return PyModule_Create(&module); }
"""

CODES = {"i1": "b", "i8": "b", "i16": "h", "i32": "i", "i64": "l", "u1": "B", "u8": "B", "u16": "H", "u32": "I",
         "u64": "L", "fp16": "e", "bf16": "g", "fp32": "f", "f32": "f", "fp64": "d", "constexpr": "x"}


def codes_of(signature):
    """One packing code per kernel argument (None: a type this experiment does not pack)."""
    out = []
    for ty in signature.values():
        if isinstance(ty, str) and ty.startswith("*"):
            out.append("p")
        elif ty in CODES:
            out.append(CODES[ty])
        else:
            return None
    return "".join(out)


def build():
    from pathlib import Path

    import triton
    from triton.runtime.build import compile_module_from_src
    include = Path(triton.__file__).parent / "backends/nvidia/include"
    return compile_module_from_src(C_SRC, "c2t_direct_launch", include_dirs=[str(include)])


def compiled_of(function):
    for m in P.translated_modules():
        for kernel, compiled in m._C2T_COMPILED.values():
            if getattr(compiled, "function", None) == function:
                return compiled
    return None


def main():
    P.set_cuda_allocator("cuda")
    direct = build()
    for arg in [a for a in sys.argv[1:] if not a.startswith("--")]:
        name, _, which = arg.partition(":")
        entry = next(e for e in P.C2T_SUITE if e["name"] == name)
        path = entry["file"].replace("{tilegym}", os.path.join(os.environ.get("TILEGYM_SRC", ".corpus/src"), "tilegym"))
        orig, sp, trans, _, _ = P.load_modules(path, entry.get("spec"), None, "gpu")
        dt = P.select_dtypes(sp, entry.get("dtypes"))[0]
        for case in P.entry_bench_cases(entry, sp, which):
            args = P.make_args(sp, case, dt, 0, "cuda")
            f1 = getattr(trans, sp.entry)
            a1 = P.clone_args(args)
            f1(*a1)
            f1(*a1)                 # compiled and recorded in the memo
            torch.cuda.synchronize()
            print(f"== {name} {case} {str(dt)[6:]}", flush=True)
            for launcher, largs, lkw in P.record_launchers(lambda: f1(*a1)):
                launcher(*largs, **lkw)
                report(direct, launcher, largs, lkw)


def memo_entry_of(launcher, largs, lkw):
    """The memo list and index of the entry this launcher call hits, found by spying on the calls."""
    for m in P.translated_modules():
        for entries in m._C2T_MEMO.values():
            for i, e in enumerate(entries):
                seen = []
                real = e[1]
                entries[i] = e[:1] + ((lambda *argv, _r=real: seen.append(argv) or _r(*argv)),) + e[2:]
                try:
                    launcher(*largs, **lkw)
                finally:
                    entries[i] = e
                if seen:
                    return entries, i, seen[0]
    return None, None, None


def report(direct, launcher, largs, lkw):
    label = f"  {launcher.__name__[7:]:40.40s}"
    entries, i, argv = memo_entry_of(launcher, largs, lkw)
    if argv is None:
        print(f"{label} no memo hit"); return
    entry = entries[i]
    g0, g1, g2, stream, function, coop, pdl, scratch, profile, packed = argv[:10]
    kargs = argv[13:]
    if len(argv) < 13 or scratch is not None or profile is not None or type(packed) is not tuple:
        print(f"{label} skipped (scratch memory, or not Triton 3.6's launcher)"); return
    compiled = compiled_of(function)
    codes = codes_of(compiled.src.signature) if compiled is not None else None
    if codes is None or len(codes) != len(kargs):
        print(f"{label} skipped (signature not packed here)"); return
    warps, ctas, shared = packed

    def go_direct(*argv2):
        direct.launch(function, argv2[0], argv2[1], argv2[2], warps, ctas, shared, argv2[3], argv2[5], argv2[6],
                      codes, tuple(argv2[13:]))
    # the same bytes: outputs (tensors the Triton launch changes) poisoned, then written by each
    tensors = [t for t in list(largs) + list(lkw.values()) if isinstance(t, torch.Tensor) and t.is_floating_point()]
    before = [t.clone() for t in tensors]
    entry[1](*argv)
    torch.cuda.synchronize()
    outs = [k for k, t in enumerate(tensors) if not torch.equal(t, before[k])]
    ref = [tensors[k].clone() for k in outs]
    for k in outs:
        tensors[k].fill_(float("nan"))
    go_direct(*argv)
    torch.cuda.synchronize()
    same = all(torch.equal(tensors[k], r) or (torch.isnan(tensors[k]) == torch.isnan(r)).all()
               and torch.equal(torch.nan_to_num(tensors[k]), torch.nan_to_num(r)) for k, r in zip(outs, ref))
    t_memo = P.host_us(lambda: launcher(*largs, **lkw))
    t_triton = P.host_us(lambda: entry[1](*argv))
    t_direct = P.host_us(lambda: go_direct(*argv))
    entries[i] = entry[:1] + (go_direct,) + entry[2:]
    try:
        t_memo_direct = P.host_us(lambda: launcher(*largs, **lkw))
    finally:
        entries[i] = entry
    torch.cuda.synchronize()
    print(f"{label} memo {t_memo:6.1f} | triton-launch {t_triton:6.1f} | direct {t_direct:6.1f} | "
          f"memo+direct {t_memo_direct:6.1f} us ({len(kargs)} args, {len(outs)} outputs "
          f"{'SAME BYTES' if same and outs else 'DIFFERENT' if outs else 'none found'})", flush=True)


if __name__ == "__main__":
    main()
