"""Experiment (not part of the product; CPU or GPU host): the launch memo's hit path in C against
the generated modules' Python (_c2t_memo in templates/host_memo.py.j2). The C functions are
compiled with Triton's own helper (triton.runtime.build.compile_module_from_src: a C compiler and
Python's headers, which Triton needs for its launchers anyway).

- `key`: the memo's key (the Constants part, pointer alignments, scalar kinds) checked equal to the
  key _c2t_memo itself builds (its miss returns it) for ints of every class Triton specializes on,
  floats and bools, then timed against _c2t_memo's miss path;
- `hit`: the whole hit (key, lookup, the entry's layout check, argument tuple and the call), with
  the device and stream queries and the globals and hooks checks left in Python, against
  _c2t_memo's hit path.

Both on tests/gpu/host_cost_cpu.py's launcher of 5 rank-4 arrays with a stand-in compiled kernel
and stand-in device queries (CPU tensors, no launch; on a GPU machine this times its host CPU).

    python tests/gpu/exp_c_memo_key.py

Twelfth session, 2-core dev CPU: key 1.27 us in Python, 0.71 us in C; whole hit 2.88 us in Python,
1.74 us in C."""
import sys
import tempfile
import timeit
import types
from pathlib import Path

import torch
import triton
from triton.runtime.build import compile_module_from_src
from triton.runtime.jit import JITFunction

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parents[1])]
import host_cost_cpu as H  # noqa: E402

C_SRC = r"""
#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyObject *data_ptr_str;

static PyObject *build_key(PyObject *prefix, PyObject *arrays, PyObject *scalars, PyObject **ptrs_out) {
    Py_ssize_t np = PyTuple_GET_SIZE(prefix), na = PyTuple_GET_SIZE(arrays), ns = PyTuple_GET_SIZE(scalars);
    PyObject *key = PyTuple_New(np + na + ns), *ptrs = PyTuple_New(na);
    if (!key || !ptrs) { Py_XDECREF(key); Py_XDECREF(ptrs); return NULL; }
    for (Py_ssize_t i = 0; i < np; i++) { PyObject *o = PyTuple_GET_ITEM(prefix, i); Py_INCREF(o); PyTuple_SET_ITEM(key, i, o); }
    for (Py_ssize_t i = 0; i < na; i++) {
        PyObject *p = PyObject_CallMethodNoArgs(PyTuple_GET_ITEM(arrays, i), data_ptr_str);
        if (!p) goto fail;
        unsigned long long v = PyLong_AsUnsignedLongLong(p);
        if (v == (unsigned long long)-1 && PyErr_Occurred()) { Py_DECREF(p); goto fail; }
        PyTuple_SET_ITEM(ptrs, i, p);
        PyTuple_SET_ITEM(key, np + i, PyLong_FromLong((long)(v & 15)));
    }
    for (Py_ssize_t i = 0; i < ns; i++) {
        PyObject *v = PyTuple_GET_ITEM(scalars, i), *k;
        if (PyLong_CheckExact(v)) {
            int overflow; long long x = PyLong_AsLongLongAndOverflow(v, &overflow); long code;
            if (!overflow && x >= -0x80000000LL && x < 0x80000000LL) code = x == 1 ? 1 : (x & 15) ? 0 : 16;
            else if (!overflow) code = (x & 15) ? 2 : 17;
            else { unsigned long long u = PyLong_AsUnsignedLongLong(v);
                   if (u == (unsigned long long)-1 && PyErr_Occurred()) goto fail; code = (u & 15) ? 3 : 18; }
            k = PyLong_FromLong(code);
        } else if (PyFloat_CheckExact(v)) { k = (PyObject *)&PyFloat_Type; Py_INCREF(k); }
        else if (PyBool_Check(v)) { k = (PyObject *)&PyBool_Type; Py_INCREF(k); }
        else { Py_DECREF(key); Py_DECREF(ptrs); *ptrs_out = NULL; Py_INCREF(Py_None); return Py_None; }
        PyTuple_SET_ITEM(key, np + na + i, k);
    }
    *ptrs_out = ptrs; return key;
fail:
    Py_DECREF(key); Py_DECREF(ptrs); return NULL;
}

/* hit(memo, prefix, arrays, scalars, stream) -> True when launched from the memo, else False.
   memo: {key: [entry, ...]}; entry: (check, call, head, template, ptr_at, scalar_at) where the
   launch is call(*head[:3], stream, *head[3:], *args) with args = template, pointers and scalars
   put at ptr_at / scalar_at. */
static PyObject *hit(PyObject *self, PyObject *args) {
    PyObject *memo, *prefix, *arrays, *scalars, *stream, *ptrs = NULL;
    if (!PyArg_ParseTuple(args, "O!O!O!O!O", &PyDict_Type, &memo, &PyTuple_Type, &prefix, &PyTuple_Type, &arrays,
                          &PyTuple_Type, &scalars, &stream)) return NULL;
    PyObject *key = build_key(prefix, arrays, scalars, &ptrs);
    if (!key) return NULL;
    if (key == Py_None) { Py_DECREF(key); Py_RETURN_FALSE; }
    PyObject *entries = PyDict_GetItemWithError(memo, key);
    Py_DECREF(key);
    if (!entries) { Py_DECREF(ptrs); if (PyErr_Occurred()) return NULL; Py_RETURN_FALSE; }
    Py_ssize_t n = PyList_GET_SIZE(entries);
    for (Py_ssize_t e = 0; e < n; e++) {
        PyObject *entry = PyList_GET_ITEM(entries, e);
        PyObject *ok = PyObject_Call(PyTuple_GET_ITEM(entry, 0), arrays, NULL);
        if (!ok) { Py_DECREF(ptrs); return NULL; }
        int good = PyObject_IsTrue(ok); Py_DECREF(ok);
        if (!good) continue;
        PyObject *head = PyTuple_GET_ITEM(entry, 2), *tmpl = PyTuple_GET_ITEM(entry, 3);
        PyObject *pat = PyTuple_GET_ITEM(entry, 4), *sat = PyTuple_GET_ITEM(entry, 5);
        Py_ssize_t nh = PyTuple_GET_SIZE(head), nt = PyTuple_GET_SIZE(tmpl);
        PyObject *call_args = PyTuple_New(nh + 1 + nt);
        for (Py_ssize_t i = 0; i < 3; i++) { PyObject *o = PyTuple_GET_ITEM(head, i); Py_INCREF(o); PyTuple_SET_ITEM(call_args, i, o); }
        Py_INCREF(stream); PyTuple_SET_ITEM(call_args, 3, stream);
        for (Py_ssize_t i = 3; i < nh; i++) { PyObject *o = PyTuple_GET_ITEM(head, i); Py_INCREF(o); PyTuple_SET_ITEM(call_args, i + 1, o); }
        for (Py_ssize_t i = 0; i < nt; i++) { PyObject *o = PyTuple_GET_ITEM(tmpl, i); Py_INCREF(o); PyTuple_SET_ITEM(call_args, nh + 1 + i, o); }
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(pat); i++) {
            Py_ssize_t at = nh + 1 + PyLong_AsSsize_t(PyTuple_GET_ITEM(pat, i));
            PyObject *o = PyTuple_GET_ITEM(ptrs, i); Py_INCREF(o);
            Py_DECREF(PyTuple_GET_ITEM(call_args, at)); PyTuple_SET_ITEM(call_args, at, o);
        }
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(sat); i++) {
            Py_ssize_t at = nh + 1 + PyLong_AsSsize_t(PyTuple_GET_ITEM(sat, i));
            PyObject *o = PyTuple_GET_ITEM(scalars, i); Py_INCREF(o);
            Py_DECREF(PyTuple_GET_ITEM(call_args, at)); PyTuple_SET_ITEM(call_args, at, o);
        }
        Py_DECREF(ptrs);
        PyObject *r = PyObject_Call(PyTuple_GET_ITEM(entry, 1), call_args, NULL);
        Py_DECREF(call_args);
        if (!r) return NULL;
        Py_DECREF(r);
        Py_RETURN_TRUE;
    }
    Py_DECREF(ptrs);
    Py_RETURN_FALSE;
}

/* key(prefix, arrays, scalars) -> (key, pointers), or None for a scalar of another type */
static PyObject *key(PyObject *self, PyObject *args) {
    PyObject *prefix, *arrays, *scalars, *ptrs = NULL;
    if (!PyArg_ParseTuple(args, "O!O!O!", &PyTuple_Type, &prefix, &PyTuple_Type, &arrays, &PyTuple_Type, &scalars))
        return NULL;
    PyObject *k = build_key(prefix, arrays, scalars, &ptrs);
    if (!k || k == Py_None) return k;
    return Py_BuildValue("(NN)", k, ptrs);
}

static PyMethodDef methods[] = {{"hit", hit, METH_VARARGS, "memo hit"}, {"key", key, METH_VARARGS, "memo key"},
                                {NULL, NULL, 0, NULL}};
static struct PyModuleDef mod = {PyModuleDef_HEAD_INIT, "c2tmemo", NULL, -1, methods};
PyMODINIT_FUNC PyInit_c2tmemo(void) { data_ptr_str = PyUnicode_InternFromString("data_ptr"); return PyModule_Create(&mod); }
"""


def per_call_us(fn, n=50000):
    return timeit.timeit(fn, number=n) / n * 1e6


def main():
    c = compile_module_from_src(C_SRC, "c2tmemo")
    mod = H.build(H.SRC, Path(tempfile.mkdtemp()))
    compiled = H.stand_in_compiled()
    kernel = JITFunction(mod.k5.fn)
    kernel.run = lambda *args, grid, warmup, **kw: compiled
    mod.k5 = kernel
    mod._C2T_CUDA = cuda = types.SimpleNamespace(_cuda_getDevice=lambda: 0, _cuda_getCurrentRawStream=lambda d: 0)
    base = torch.empty(1 << 16)
    arrays = tuple(base[i:i + 4 * 8 * 16 * 32].view(4, 8, 16, 32) for i in (0, 1, 4, 16, 64))
    consts, grid = (32,), (4,)
    tma = (mod._C2T_TMA_MODE,) if hasattr(mod, "_C2T_TMA_MODE") else ()

    def prefix():
        return ("k5", grid, cuda._cuda_getDevice(), *tma, *consts, *map(type, consts))
    # the key: the same as _c2t_memo's (a miss returns it), for every class of int, floats, bools
    for scalars in [(v, w, 0.5) for v in (1, 3, 16, 0, -5, -32, 2 ** 31 - 1, 2 ** 31, 2 ** 40 + 3, 2 ** 40 + 16,
                                        -2 ** 40, 2 ** 63 + 3, 2 ** 63 + 16, 2 ** 64 - 1)
                    for w in (7, True, 1.0)]:
        miss = mod._c2t_memo("k5", grid, None, arrays, scalars, consts)
        k = c.key(prefix(), arrays, scalars)
        assert miss[0] == k[0] and tuple(miss[1]) == k[1], (miss, k)
    assert c.key(prefix(), arrays, (1, "x", 0.5)) is None and mod._c2t_memo("k5", grid, None, arrays, (1, "x", 0.5), consts) == ()
    scalars = (7, 100, 0.5)
    t_py = per_call_us(lambda: mod._c2t_memo("k5", grid, None, arrays, scalars, consts))
    t_c = per_call_us(lambda: c.key(prefix(), arrays, scalars))
    print(f"memo key, 5 rank-4 arrays, 3 scalars: Python (_c2t_memo's miss path) {t_py:.2f} us | C {t_c:.2f} us")

    # the whole hit, from the entry the launcher records
    mod.launch_k5(grid, *arrays, *scalars, *consts)
    ((key, (entry,)),) = mod._C2T_MEMO.items()
    check, kern, comp, launch, g, template, ptr_at, scalar_at, _ = entry
    head = (*g, comp.function, comp.packed_metadata, None, None, None)   # compiled.run's arguments
    cmemo = {key: [(check, comp.run, head, tuple(template), tuple(ptr_at), tuple(scalar_at))]}

    def c_hit():
        device = cuda._cuda_getDevice()
        if kern.used_global_vals and mod._c2t_globals_changed(kern):
            return False
        enter, leave = triton.knobs.runtime.launch_enter_hook, triton.knobs.runtime.launch_exit_hook
        if getattr(enter, "calls", True) or getattr(leave, "calls", True):
            return False
        return c.hit(cmemo, ("k5", grid, device, *tma, *consts, *map(type, consts)), arrays, scalars,
                     cuda._cuda_getCurrentRawStream(device))
    assert c_hit() is True and mod._c2t_memo("k5", grid, None, arrays, scalars, consts) is None
    # misses: another layout (the entry's check), another kind of scalar (the key)
    other = (torch.empty(8, 4, 16, 32).transpose(0, 1),) + arrays[1:]
    assert c.hit(cmemo, ("k5", grid, 0, *tma, *consts, *map(type, consts)), other, scalars, 0) is False
    assert c.hit(cmemo, ("k5", grid, 0, *tma, *consts, *map(type, consts)), arrays, (16, 100, 0.5), 0) is False
    t_py = per_call_us(lambda: mod._c2t_memo("k5", grid, None, arrays, scalars, consts))
    t_c = per_call_us(c_hit)
    print(f"memo hit, the same launch (stand-in kernel): Python {t_py:.2f} us | C {t_c:.2f} us")


if __name__ == "__main__":
    main()
