"""Experiment (not part of the product; CPU or GPU): the launch memo's key built in C against the
generated modules' Python (_c2t_memo in templates/host_memo.py.j2), for TileGym flash_decode's
decode launch (5 rank-4 arrays, 10 scalars, 6 Constants). The C function is compiled with Triton's
own helper (triton.runtime.build.compile_module_from_src: a C compiler and Python's headers, which
Triton needs for its launchers anyway) and checked to give the same key on ints of every class
Triton specializes on, floats and bools.

    python tests/gpu/exp_c_memo_key.py         (CUDA tensors when there is a GPU, else CPU ones)

Twelfth session, 2-core dev CPU: Python key 1.41 us, C key 0.69 us per launch."""
import timeit

import torch
from triton.runtime.build import compile_module_from_src

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


if __name__ == "__main__":
    main()
