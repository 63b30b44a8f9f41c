"""Experiment (not part of the product; CPU or GPU): the launch memo's key built in C against the
generated modules' Python (_c2t_memo in templates/host_memo.py.j2), for TileGym flash_decode's
decode launch (5 rank-4 arrays, 10 scalars, 6 Constants). The C function is compiled with Triton's
own helper (triton.runtime.build.compile_module_from_src: a C compiler and Python's headers, which
Triton needs for its launchers anyway) and checked to give the same key on ints of every class
Triton specializes on, floats and bools.

    python tests/gpu/exp_c_memo_key.py         (CUDA tensors when there is a GPU, else CPU ones)

Then the whole memo hit in C (key, lookup, the entry's layout check, argument tuple and the call),
against the generated module's _c2t_memo, for tests/gpu/host_cost_cpu.py's launcher of 5 rank-4
arrays with a stand-in compiled kernel and stand-in device queries (CPU, no launch).

Twelfth session, 2-core dev CPU: key 1.48 us in Python, 0.72 us in C; the whole hit 2.89 us in
Python, 1.81 us in C."""
import sys
import timeit
from pathlib import Path

import torch
from triton.runtime.build import compile_module_from_src

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parents[1])]

C_SRC = r"""
#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyObject *data_ptr_str;

/* key(prefix: tuple, arrays: tuple, scalars: tuple) -> (key tuple, pointers tuple) or None */
static PyObject *key(PyObject *self, PyObject *args) {
    PyObject *prefix, *arrays, *scalars;
    if (!PyArg_ParseTuple(args, "O!O!O!", &PyTuple_Type, &prefix, &PyTuple_Type, &arrays, &PyTuple_Type, &scalars))
        return NULL;
    Py_ssize_t np = PyTuple_GET_SIZE(prefix), na = PyTuple_GET_SIZE(arrays), ns = PyTuple_GET_SIZE(scalars);
    PyObject *key = PyTuple_New(np + na + ns);
    PyObject *ptrs = PyTuple_New(na);
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
            int overflow; long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
            long code;
            if (!overflow && x >= -0x80000000LL && x < 0x80000000LL) code = x == 1 ? 1 : (x & 15) ? 0 : 16;
            else if (!overflow) code = (x & 15) ? 2 : 17;
            else {
                unsigned long long u = PyLong_AsUnsignedLongLong(v);
                if (u == (unsigned long long)-1 && PyErr_Occurred()) goto fail;
                code = (u & 15) ? 3 : 18;
            }
            k = PyLong_FromLong(code);
        } else if (PyFloat_CheckExact(v)) { k = (PyObject *)&PyFloat_Type; Py_INCREF(k); }
        else if (PyBool_Check(v)) { k = (PyObject *)&PyBool_Type; Py_INCREF(k); }
        else { Py_DECREF(key); Py_DECREF(ptrs); Py_RETURN_NONE; }
        PyTuple_SET_ITEM(key, np + na + i, k);
    }
    return Py_BuildValue("(NN)", key, ptrs);
fail:
    Py_DECREF(key); Py_DECREF(ptrs); return NULL;
}

static PyMethodDef methods[] = {{"key", key, METH_VARARGS, "memo key"}, {NULL, NULL, 0, NULL}};
static struct PyModuleDef mod = {PyModuleDef_HEAD_INIT, "c2tkey", NULL, -1, methods};
PyMODINIT_FUNC PyInit_c2tkey(void) { data_ptr_str = PyUnicode_InternFromString("data_ptr"); return PyModule_Create(&mod); }
"""


HIT_SRC = r"""
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

static PyMethodDef methods[] = {{"hit", hit, METH_VARARGS, "memo hit"}, {NULL, NULL, 0, NULL}};
static struct PyModuleDef mod = {PyModuleDef_HEAD_INIT, "c2thit", NULL, -1, methods};
PyMODINIT_FUNC PyInit_c2thit(void) { data_ptr_str = PyUnicode_InternFromString("data_ptr"); return PyModule_Create(&mod); }
"""


def python_key(name, grid, device, consts, arrays, scalars):
    """The key _c2t_memo builds (without hints, aliasing flags or the TMA mode)."""
    key = [name, grid, device, *consts, *map(type, consts)]
    ptrs = [a.data_ptr() for a in arrays]
    key += [p & 15 for p in ptrs]
    for v in scalars:
        t = type(v)
        if t is int:
            if -0x80000000 <= v < 0x80000000:
                key.append(1 if v == 1 else 0 if v & 15 else 16)
            elif v < 1 << 63:
                key.append(2 if v & 15 else 17)
            else:
                key.append(3 if v & 15 else 18)
        elif t is float or t is bool:
            key.append(t)
        else:
            return None
    return tuple(key), ptrs


def main():
    c = compile_module_from_src(C_SRC, "c2tkey")
    device = "cuda" if torch.cuda.is_available() else "cpu"
    base = torch.empty(1 << 20, device=device)
    arrays = tuple(base[i:i + 8 * 64 * 128].view(1, 8, 64, 128) for i in (0, 1, 4, 16, 64))
    consts, grid = (128, 128, 512, 4, 8, 16), (1, 8, 16)

    def both(scalars):
        p = python_key("k", grid, 0, consts, arrays, scalars)
        k = c.key(("k", grid, 0, *consts, *map(type, consts)), arrays, scalars)
        return p, k
    for scalars in [(1, 3, 16, 0, -5, -32, 2 ** 31 - 1, 2 ** 31, 2 ** 40 + 3, 2 ** 40 + 16, -2 ** 40,
                     2 ** 63 + 3, 2 ** 63 + 16, 2 ** 64 - 1), (0.5, 1.0, True, False, 7)]:
        p, k = both(scalars)
        assert p[0] == k[0] and tuple(p[1]) == k[1], (p, k)
    assert both((1, "x"))[1] is None and both((1, "x"))[0] is None
    scalars = (0.0883, 4096, 512, 128, 64, 8, 1, 32, 8, 4096)
    prefix = ("k", grid, 0, *consts, *map(type, consts))
    n = 100000
    t_py = timeit.timeit(lambda: python_key("k", grid, 0, consts, arrays, scalars), number=n) / n * 1e6
    t_c = timeit.timeit(lambda: c.key(("k", grid, 0, *consts, *map(type, consts)), arrays, scalars),
                        number=n) / n * 1e6
    t_c0 = timeit.timeit(lambda: c.key(prefix, arrays, scalars), number=n) / n * 1e6
    print(f"memo key ({device} tensors): Python {t_py:.2f} us | C {t_c:.2f} us "
          f"(C with the Constants part prebuilt: {t_c0:.2f} us)")
    whole_hit()


def whole_hit():
    """The memo's hit path in C against _c2t_memo, on the CPU with stand-ins (no launch)."""
    import tempfile
    import types
    from pathlib import Path

    import triton
    from triton.runtime.jit import JITFunction

    import host_cost_cpu as H
    c = compile_module_from_src(HIT_SRC, "c2thit")
    mod = H.build(H.SRC, Path(tempfile.mkdtemp()))
    compiled = H.stand_in_compiled()
    kernel = JITFunction(mod.k5.fn)
    kernel.run = lambda *args, grid, warmup, **kw: compiled
    mod.k5 = kernel
    mod._C2T_CUDA = cuda = types.SimpleNamespace(_cuda_getDevice=lambda: 0, _cuda_getCurrentRawStream=lambda d: 0)
    arrays, scalars, consts, grid = tuple(torch.empty(4, 8, 16, 32) for _ in range(5)), (7, 100, 0.5), (32,), (4,)
    mod.launch_k5(grid, *arrays, *scalars, *consts)         # records the memo entry
    ((key, (entry,)),) = mod._C2T_MEMO.items()
    check, kern, comp, launch, g, template, ptr_at, scalar_at, _ = entry
    head = (*g, comp.function, comp.packed_metadata, None, None, None)
    cmemo = {key: [(check, comp.run, head, tuple(template), tuple(ptr_at), tuple(scalar_at))]}
    tma = (mod._C2T_TMA_MODE,) if hasattr(mod, "_C2T_TMA_MODE") else ()

    def c_hit():    # what stays in Python: device and stream queries, globals and hooks checks
        device = cuda._cuda_getDevice()
        if kern.used_global_vals and mod._c2t_globals_changed(kern):
            return False
        enter, leave = triton.knobs.runtime.launch_enter_hook, triton.knobs.runtime.launch_exit_hook
        if getattr(enter, "calls", True) or getattr(leave, "calls", True):
            return False
        return c.hit(cmemo, ("k5", grid, device, *tma, *consts, *map(type, consts)), arrays, scalars,
                     cuda._cuda_getCurrentRawStream(device))
    assert c_hit() is True and mod._c2t_memo("k5", grid, None, arrays, scalars, consts) is None
    n = 50000
    t_py = timeit.timeit(lambda: mod._c2t_memo("k5", grid, None, arrays, scalars, consts), number=n) / n * 1e6
    t_c = timeit.timeit(c_hit, number=n) / n * 1e6
    print(f"memo hit, 5 rank-4 arrays, 3 scalars (stand-in kernel, CPU tensors): Python {t_py:.2f} us | "
          f"C {t_c:.2f} us")


if __name__ == "__main__":
    main()
