/* The launch memo's key and hit path in C (cutile2triton). translator/runtime/memo.py reads this
   file (a --standalone translation carries it at its end) and compiles it once per machine
   with Triton's own helper (triton.runtime.build.compile_module_from_src, cached by Triton) at its
   first recorded launch (translator/runtime/memo.py, _c2t_load_memo_c). It does what the Python path of _c2t_memo does, in the same order, and
   tests/test_fast_launch.py runs each memo test on both; on the H200's host TileGym
   flash_decode's launcher took 14.9 us per call from the memo with this, 20.7 us with the Python
   lookup (docs/decisions/023-memo-lookup-in-c.md).

   memo(table, name, grid, device, pre, consts, post, arrays, scalars, same, stream) returns
     True           launched from the first entry of table[key] whose layout check passes;
     None           this launch takes the launcher's full path (a scalar of another type, arrays
                    whose pointers or layouts cannot be read, a changed global the kernel read, no
                    scratch memory for it);
     (key, ptrs)    a miss: what _c2t_memo_record files the launch under.
   key = (name, grid, device, *pre, *consts, *map(type, consts), *post, pointer & 15 per array,
          pointers equal per pair in `same`, the kind of each scalar)
   entry = (check, call, head, template, ptr_at, scalar_at, scratch, globals): the launch is
   call(*head[:3], stream, *head[3:], *template) with the pointers and scalars put at ptr_at and
   scalar_at in the template; scratch is None or (allocate, nbytes, align, at): the buffer
   allocate(device, stream, nbytes, align) returns goes at `at` of the call's arguments (None:
   the full path); globals is (changed, kernel, used, bound): the globals the kernel read are as
   it was compiled with when kernel.used_global_vals is `used` and, for each (scope, name, object,
   value) in the tuple `bound`, scope[name] is object and, where value is (v,), object.value is v
   (value () : the object has no .value); otherwise, when kernel.used_global_vals and
   changed(kernel), the full path. Errors in the launch itself reach the caller.

   The direct launch (on unless C2T_CU_LAUNCH=0): `call` may instead be a tuple ("cu",
   codes, function, num_warps, num_ctas, shared, cooperative, pdl), and the kernel is launched
   with cuLaunchKernelEx here, as Triton 3.6's launcher does: the template's arguments packed by
   `codes` (one byte per argument, 'x': a constexpr, not passed), the global scratch buffer and a
   null profile scratch after them. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <dlfcn.h>
#include <stdint.h>
#include <string.h>

#define C2T_MEMO_ABI 3

static PyObject *data_ptr_str, *used_global_vals_str, *value_str;

/* what an error while reading the arguments means: the full path (as the Python path's except) */
static int full_path_error(void) {
    return PyErr_ExceptionMatches(PyExc_AttributeError) || PyErr_ExceptionMatches(PyExc_TypeError)
        || PyErr_ExceptionMatches(PyExc_RuntimeError);
}

/* what Triton specializes an int on (its type by range, 16 | v, v == 1); floats and bools by type.
   1: *out is the kind; 0: a scalar of another type; -1: an error */
static int scalar_kind(PyObject *v, PyObject **out) {
    if (PyLong_CheckExact(v)) {
        int overflow;
        long code;
        long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
        if (x == -1 && !overflow && PyErr_Occurred())
            return -1;
        if (!overflow) {
            if (x >= -0x80000000LL && x < 0x80000000LL)
                code = x == 1 ? 1 : (x & 15) ? 0 : 16;
            else
                code = (x & 15) ? 2 : 17;
        } else {                            /* beyond 64 bits: v & 15 as Python computes it */
            PyObject *fifteen = PyLong_FromLong(15), *low = fifteen ? PyNumber_And(v, fifteen) : NULL;
            long l;
            Py_XDECREF(fifteen);
            if (!low)
                return -1;
            l = PyLong_AsLong(low);
            Py_DECREF(low);
            if (l == -1 && PyErr_Occurred())
                return -1;
            code = overflow < 0 ? (l ? 2 : 17) : (l ? 3 : 18);
        }
        *out = PyLong_FromLong(code);
        return *out ? 1 : -1;
    }
    if (PyFloat_CheckExact(v)) {
        *out = (PyObject *)&PyFloat_Type;
    } else if (PyBool_Check(v)) {
        *out = (PyObject *)&PyBool_Type;
    } else {
        return 0;
    }
    Py_INCREF(*out);
    return 1;
}

static void set_borrowed(PyObject *tuple, Py_ssize_t at, PyObject *v) {
    Py_INCREF(v);
    PyTuple_SET_ITEM(tuple, at, v);
}

/* the key and the arrays' pointers (*ptrs_out); Py_None for a scalar of another type; NULL: error */
static PyObject *build_key(PyObject *name, PyObject *grid, PyObject *device, PyObject *pre, PyObject *consts,
                           PyObject *post, PyObject *arrays, PyObject *scalars, PyObject *same, PyObject **ptrs_out) {
    Py_ssize_t npre = PyTuple_GET_SIZE(pre), nc = PyTuple_GET_SIZE(consts), npost = PyTuple_GET_SIZE(post);
    Py_ssize_t na = PyTuple_GET_SIZE(arrays), nsame = PyTuple_GET_SIZE(same), ns = PyTuple_GET_SIZE(scalars);
    Py_ssize_t at = 0, i;
    PyObject *key = PyTuple_New(3 + npre + 2 * nc + npost + na + nsame + ns), *ptrs = PyTuple_New(na);
    if (!key || !ptrs)
        goto fail;
    set_borrowed(key, at++, name);
    set_borrowed(key, at++, grid);
    set_borrowed(key, at++, device);
    for (i = 0; i < npre; i++)
        set_borrowed(key, at++, PyTuple_GET_ITEM(pre, i));
    for (i = 0; i < nc; i++)
        set_borrowed(key, at++, PyTuple_GET_ITEM(consts, i));
    for (i = 0; i < nc; i++)
        set_borrowed(key, at++, (PyObject *)Py_TYPE(PyTuple_GET_ITEM(consts, i)));
    for (i = 0; i < npost; i++)
        set_borrowed(key, at++, PyTuple_GET_ITEM(post, i));
    for (i = 0; i < na; i++) {
        PyObject *p = PyObject_CallMethodNoArgs(PyTuple_GET_ITEM(arrays, i), data_ptr_str), *low;
        unsigned long long v;
        if (!p)
            goto fail;
        PyTuple_SET_ITEM(ptrs, i, p);
        if (!PyLong_Check(p)) {
            PyErr_SetString(PyExc_TypeError, "data_ptr() did not return an int");
            goto fail;
        }
        v = PyLong_AsUnsignedLongLong(p);
        if (v == (unsigned long long)-1 && PyErr_Occurred()) {
            PyErr_Clear();
            PyErr_SetString(PyExc_TypeError, "data_ptr() is not a 64-bit address");
            goto fail;
        }
        low = PyLong_FromLong((long)(v & 15));
        if (!low)
            goto fail;
        PyTuple_SET_ITEM(key, at++, low);
    }
    for (i = 0; i < nsame; i++) {
        PyObject *pair = PyTuple_GET_ITEM(same, i);
        Py_ssize_t a, b;
        int eq;
        if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2) {
            PyErr_SetString(PyExc_TypeError, "`same` holds pairs of positions");
            goto fail;
        }
        a = PyLong_AsSsize_t(PyTuple_GET_ITEM(pair, 0));
        b = PyLong_AsSsize_t(PyTuple_GET_ITEM(pair, 1));
        if (PyErr_Occurred())
            goto fail;
        if (a < 0 || a >= na || b < 0 || b >= na) {
            PyErr_SetString(PyExc_IndexError, "`same` names an array that is not there");
            goto fail;
        }
        eq = PyObject_RichCompareBool(PyTuple_GET_ITEM(ptrs, a), PyTuple_GET_ITEM(ptrs, b), Py_EQ);
        if (eq < 0)
            goto fail;
        set_borrowed(key, at++, eq ? Py_True : Py_False);
    }
    for (i = 0; i < ns; i++) {
        PyObject *kind;
        int r = scalar_kind(PyTuple_GET_ITEM(scalars, i), &kind);
        if (r < 0)
            goto fail;
        if (r == 0) {
            Py_DECREF(key);
            Py_DECREF(ptrs);
            *ptrs_out = NULL;
            Py_RETURN_NONE;
        }
        PyTuple_SET_ITEM(key, at++, kind);
    }
    *ptrs_out = ptrs;
    return key;
fail:
    Py_XDECREF(key);        /* (unfilled items are NULL, which tuple deallocation skips) */
    Py_XDECREF(ptrs);
    *ptrs_out = NULL;
    return NULL;
}

/* argv[at] = v (a new reference, stolen), with the position checked */
static int put(PyObject *argv, Py_ssize_t at, PyObject *v) {
    if (at < 0 || at >= PyTuple_GET_SIZE(argv)) {
        Py_DECREF(v);
        PyErr_SetString(PyExc_IndexError, "launch memo entry: argument position out of range");
        return -1;
    }
    Py_DECREF(PyTuple_GET_ITEM(argv, at));
    PyTuple_SET_ITEM(argv, at, v);
    return 0;
}

/* put items[i] at base + positions[i] */
static int put_all(PyObject *argv, Py_ssize_t base, PyObject *positions, PyObject *items) {
    Py_ssize_t i, n = PyTuple_GET_SIZE(items);
    if (!PyTuple_Check(positions) || PyTuple_GET_SIZE(positions) != n) {
        PyErr_SetString(PyExc_SystemError, "launch memo entry: positions do not match the arguments");
        return -1;
    }
    for (i = 0; i < n; i++) {
        Py_ssize_t at = PyLong_AsSsize_t(PyTuple_GET_ITEM(positions, i));
        PyObject *v = PyTuple_GET_ITEM(items, i);
        if (at == -1 && PyErr_Occurred())
            return -1;
        Py_INCREF(v);
        if (put(argv, base + at, v) < 0)
            return -1;
    }
    return 0;
}

/* 1: each global in `bound` is bound to the object the kernel was compiled with (and a
   constexpr's .value is the same object); 0: something differs or bound is None; -1: error */
static int globals_unchanged(PyObject *bound) {
    Py_ssize_t i;
    if (!PyTuple_Check(bound))
        return 0;
    for (i = 0; i < PyTuple_GET_SIZE(bound); i++) {
        PyObject *item = PyTuple_GET_ITEM(bound, i), *scope, *now, *value, *v;
        int same;
        if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) != 4 || !PyDict_Check(PyTuple_GET_ITEM(item, 0)))
            return 0;
        scope = PyTuple_GET_ITEM(item, 0);
        now = PyDict_GetItemWithError(scope, PyTuple_GET_ITEM(item, 1));     /* borrowed */
        if (!now)
            return PyErr_Occurred() ? -1 : 0;
        if (now != PyTuple_GET_ITEM(item, 2))
            return 0;
        value = PyTuple_GET_ITEM(item, 3);
        if (!PyTuple_Check(value) || PyTuple_GET_SIZE(value) == 0)
            continue;
        v = PyObject_GetAttr(now, value_str);
        if (!v) {
            if (!PyErr_ExceptionMatches(PyExc_AttributeError))
                return -1;
            PyErr_Clear();
            return 0;
        }
        same = v == PyTuple_GET_ITEM(value, 0);
        Py_DECREF(v);
        if (!same)
            return 0;
    }
    return 1;
}

/* ---- the experimental direct launch: the CUDA driver's launch types, as cuda.h declares them
   (tests/test_fast_launch.py compares the layouts with cuda.h's) ---- */
typedef struct { unsigned int x, y, z; } c2t_dim3;
typedef union {
    char pad[64];
    int cooperative;
    c2t_dim3 clusterDim;
    int clusterSchedulingPolicyPreference;
    int programmaticStreamSerializationAllowed;
} c2t_launch_value;
typedef struct { int id; char pad[8 - sizeof(int)]; c2t_launch_value value; } c2t_launch_attribute;
typedef struct {
    unsigned int gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes;
    void *hStream;
    c2t_launch_attribute *attrs;
    unsigned int numAttrs;
} c2t_launch_config;
enum { C2T_COOPERATIVE = 2, C2T_CLUSTER_DIMENSION = 4, C2T_CLUSTER_SCHEDULING = 5, C2T_PDL = 6, C2T_SPREAD = 1 };
typedef int (*c2t_launch_fn)(const c2t_launch_config *, void *, void **, void **);
typedef int (*c2t_context_fn)(void **);
typedef int (*c2t_error_fn)(int, const char **);
static c2t_launch_fn cu_launch;
static c2t_context_fn cu_context;
static c2t_error_fn cu_error;

static int load_driver(void) {
    void *h;
    if (cu_launch)
        return 0;
    h = dlopen("libcuda.so.1", RTLD_LAZY);
    if (!h) {
        PyErr_SetString(PyExc_RuntimeError, "cannot open libcuda.so.1");
        return -1;
    }
    cu_launch = (c2t_launch_fn)dlsym(h, "cuLaunchKernelEx");
    cu_context = (c2t_context_fn)dlsym(h, "cuCtxGetCurrent");
    cu_error = (c2t_error_fn)dlsym(h, "cuGetErrorString");
    if (!cu_launch || !cu_context) {
        cu_launch = NULL;
        PyErr_SetString(PyExc_RuntimeError, "libcuda.so.1 has no cuLaunchKernelEx");
        return -1;
    }
    return 0;
}

/* set_driver(launch, context): function addresses that stand in for the driver's (tests) */
static PyObject *set_driver(PyObject *self, PyObject *args) {
    unsigned long long launch_at, context_at;
    if (!PyArg_ParseTuple(args, "KK", &launch_at, &context_at))
        return NULL;
    cu_launch = (c2t_launch_fn)(uintptr_t)launch_at;
    cu_context = (c2t_context_fn)(uintptr_t)context_at;
    cu_error = NULL;
    Py_RETURN_NONE;
}

static uint16_t to_bf16(double d) {
    float f = (float)d;
    uint32_t u;
    memcpy(&u, &f, 4);
    if ((u & 0x7fffffff) > 0x7f800000)
        return (uint16_t)((u >> 16) | 0x40);                        /* NaN stays NaN */
    return (uint16_t)((u + 0x7fff + ((u >> 16) & 1)) >> 16);        /* to nearest, ties to even */
}

/* one argument into an 8-byte slot as the kernel's signature types it (little-endian: a narrower
   value is read from the slot's first bytes); 0, or -1 with an error */
static int pack(char code, PyObject *v, uint64_t *slot) {
    uint64_t s = 0;
    if (code == 'p' || code == 'L') {
        s = PyLong_AsUnsignedLongLong(v);
    } else if (code && strchr("bBhHiIl", code)) {
        long long x = PyLong_AsLongLong(v);
        int32_t i32 = (int32_t)x;
        uint32_t u32 = (uint32_t)x;
        uint16_t u16 = (uint16_t)x;
        uint8_t u8 = (uint8_t)x;
        if (code == 'l') memcpy(&s, &x, 8);
        else if (code == 'i') memcpy(&s, &i32, 4);
        else if (code == 'I') memcpy(&s, &u32, 4);
        else if (code == 'h' || code == 'H') memcpy(&s, &u16, 2);
        else memcpy(&s, &u8, 1);
    } else if (code && strchr("defg", code)) {
        double d = PyFloat_AsDouble(v);
        float f = (float)d;
        uint16_t h = 0;
        if (code == 'd') memcpy(&s, &d, 8);
        else if (code == 'f') memcpy(&s, &f, 4);
        else {
            if (code == 'g') h = to_bf16(d);
            else if (PyFloat_Pack2(d, (char *)&h, 1) < 0) return -1;
            memcpy(&s, &h, 2);
        }
    } else {
        PyErr_Format(PyExc_SystemError, "launch memo: no packing for argument code %c", code);
        return -1;
    }
    if (PyErr_Occurred())
        return -1;
    *slot = s;
    return 0;
}

/* pack(codes, values) -> the packed slots as bytes (tests) */
static PyObject *pack_for_tests(PyObject *self, PyObject *args) {
    const char *codes;
    Py_ssize_t n, i, k = 0;
    PyObject *values;
    uint64_t slots[64];
    if (!PyArg_ParseTuple(args, "s#O!", &codes, &n, &PyTuple_Type, &values))
        return NULL;
    if (n != PyTuple_GET_SIZE(values) || n > 64) {
        PyErr_SetString(PyExc_ValueError, "one code per value, at most 64");
        return NULL;
    }
    for (i = 0; i < n; i++)
        if (codes[i] != 'x' && pack(codes[i], PyTuple_GET_ITEM(values, i), &slots[k++]) < 0)
            return NULL;
    return PyBytes_FromStringAndSize((const char *)slots, (Py_ssize_t)(k * sizeof(uint64_t)));
}

#define C2T_MAX_ARGS 512

/* the direct launch of an entry whose call is ("cu", ...): Py_True, Py_None (the full path: no
   CUDA context on this thread, no scratch memory) or NULL */
static PyObject *launch_direct(PyObject *spec, PyObject *entry, PyObject *ptrs, PyObject *scalars,
                               PyObject *device, PyObject *stream) {
    PyObject *head = PyTuple_GET_ITEM(entry, 2), *tmpl = PyTuple_GET_ITEM(entry, 3), *scratch = PyTuple_GET_ITEM(entry, 6);
    PyObject *vals[C2T_MAX_ARGS], *codes_obj;
    uint64_t slots[C2T_MAX_ARGS + 2];
    void *params[C2T_MAX_ARGS + 2];
    const char *codes;
    Py_ssize_t nt, i, k, n = 0;
    uint64_t global_scratch = 0;
    unsigned long long function, stream_handle;
    long gx, gy, gz, warps, ctas, shared;
    int coop, pdl, na = 0, r;
    void *context = NULL;
    c2t_launch_attribute attrs[4];
    c2t_launch_config config;
    if (PyTuple_GET_SIZE(spec) != 8 || !PyBytes_Check(PyTuple_GET_ITEM(spec, 1)) || !PyTuple_Check(head)
            || PyTuple_GET_SIZE(head) < 3 || !PyTuple_Check(tmpl)) {
        PyErr_SetString(PyExc_SystemError, "launch memo entry: malformed direct launch");
        return NULL;
    }
    codes_obj = PyTuple_GET_ITEM(spec, 1);
    codes = PyBytes_AS_STRING(codes_obj);
    nt = PyTuple_GET_SIZE(tmpl);
    if (PyBytes_GET_SIZE(codes_obj) != nt || nt > C2T_MAX_ARGS) {
        PyErr_SetString(PyExc_SystemError, "launch memo entry: one code per argument");
        return NULL;
    }
    if (load_driver() < 0)
        return NULL;
    if (cu_context(&context) != 0 || !context)
        Py_RETURN_NONE;                     /* Triton's launcher makes the context current */
    function = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(spec, 2));
    warps = PyLong_AsLong(PyTuple_GET_ITEM(spec, 3));
    ctas = PyLong_AsLong(PyTuple_GET_ITEM(spec, 4));
    shared = PyLong_AsLong(PyTuple_GET_ITEM(spec, 5));
    coop = PyObject_IsTrue(PyTuple_GET_ITEM(spec, 6));
    pdl = PyObject_IsTrue(PyTuple_GET_ITEM(spec, 7));
    gx = PyLong_AsLong(PyTuple_GET_ITEM(head, 0));
    gy = PyLong_AsLong(PyTuple_GET_ITEM(head, 1));
    gz = PyLong_AsLong(PyTuple_GET_ITEM(head, 2));
    stream_handle = PyLong_AsUnsignedLongLong(stream);
    if (PyErr_Occurred() || coop < 0 || pdl < 0)
        return NULL;
    for (i = 0; i < nt; i++)
        vals[i] = PyTuple_GET_ITEM(tmpl, i);
    for (k = 0; k < 2; k++) {               /* the pointers, then the scalars, at their positions */
        PyObject *at = PyTuple_GET_ITEM(entry, 4 + k), *items = k ? scalars : ptrs;
        if (!PyTuple_Check(at) || PyTuple_GET_SIZE(at) != PyTuple_GET_SIZE(items)) {
            PyErr_SetString(PyExc_SystemError, "launch memo entry: positions do not match the arguments");
            return NULL;
        }
        for (i = 0; i < PyTuple_GET_SIZE(at); i++) {
            Py_ssize_t j = PyLong_AsSsize_t(PyTuple_GET_ITEM(at, i));
            if (j < 0 || j >= nt) {
                if (!PyErr_Occurred())
                    PyErr_SetString(PyExc_IndexError, "launch memo entry: argument position out of range");
                return NULL;
            }
            vals[j] = PyTuple_GET_ITEM(items, i);
        }
    }
    if (scratch != Py_None) {               /* (allocate, nbytes, align, at) */
        PyObject *buffer;
        if (!PyTuple_Check(scratch) || PyTuple_GET_SIZE(scratch) != 4) {
            PyErr_SetString(PyExc_SystemError, "launch memo entry: malformed scratch");
            return NULL;
        }
        buffer = PyObject_CallFunctionObjArgs(PyTuple_GET_ITEM(scratch, 0), device, stream,
                                              PyTuple_GET_ITEM(scratch, 1), PyTuple_GET_ITEM(scratch, 2), NULL);
        if (!buffer)
            return NULL;
        if (buffer == Py_None)
            return buffer;                  /* the full path */
        if (!PyLong_Check(buffer)) {
            PyObject *p = PyObject_CallMethodNoArgs(buffer, data_ptr_str);
            Py_DECREF(buffer);
            if (!p)
                return NULL;
            buffer = p;
        }
        global_scratch = PyLong_AsUnsignedLongLong(buffer);
        Py_DECREF(buffer);
        if (PyErr_Occurred())
            return NULL;
    }
    for (i = 0; i < nt; i++) {
        if (codes[i] == 'x')
            continue;
        if (pack(codes[i], vals[i], &slots[n]) < 0)
            return NULL;
        params[n] = &slots[n];
        n++;
    }
    slots[n] = global_scratch;
    params[n] = &slots[n];
    n++;
    slots[n] = 0;                           /* profile scratch */
    params[n] = &slots[n];
    if (gx * gy * gz <= 0)
        Py_RETURN_TRUE;                     /* (Triton launches nothing either) */
    memset(&config, 0, sizeof config);
    memset(attrs, 0, sizeof attrs);
    if (pdl) {
        attrs[na].id = C2T_PDL;
        attrs[na++].value.programmaticStreamSerializationAllowed = 1;
    }
    if (coop) {
        attrs[na].id = C2T_COOPERATIVE;
        attrs[na++].value.cooperative = 1;
    }
    if (ctas != 1) {
        attrs[na].id = C2T_CLUSTER_DIMENSION;
        attrs[na].value.clusterDim.x = (unsigned int)ctas;
        attrs[na].value.clusterDim.y = 1;
        attrs[na++].value.clusterDim.z = 1;
        attrs[na].id = C2T_CLUSTER_SCHEDULING;
        attrs[na++].value.clusterSchedulingPolicyPreference = C2T_SPREAD;
    }
    config.gridDimX = (unsigned int)(gx * ctas);
    config.gridDimY = (unsigned int)gy;
    config.gridDimZ = (unsigned int)gz;
    config.blockDimX = (unsigned int)(32 * warps);
    config.blockDimY = 1;
    config.blockDimZ = 1;
    config.sharedMemBytes = (unsigned int)shared;
    config.hStream = (void *)(uintptr_t)stream_handle;
    config.attrs = attrs;
    config.numAttrs = (unsigned int)na;
    r = cu_launch(&config, (void *)(uintptr_t)function, params, NULL);
    if (r != 0) {
        const char *what = NULL;
        if (cu_error)
            cu_error(r, &what);
        PyErr_Format(PyExc_RuntimeError, "Triton Error [CUDA]: %s", what ? what : "launch failed");
        return NULL;
    }
    Py_RETURN_TRUE;
}

/* launch from an entry: Py_True, Py_None (the full path) or NULL (an error, for the caller) */
static PyObject *launch(PyObject *entry, PyObject *ptrs, PyObject *scalars, PyObject *device, PyObject *stream) {
    PyObject *call = PyTuple_GET_ITEM(entry, 1), *head = PyTuple_GET_ITEM(entry, 2);
    PyObject *tmpl = PyTuple_GET_ITEM(entry, 3), *scratch = PyTuple_GET_ITEM(entry, 6);
    PyObject *globals = PyTuple_GET_ITEM(entry, 7), *argv, *r;
    Py_ssize_t nh, nt, i;
    if (!PyTuple_Check(head) || PyTuple_GET_SIZE(head) < 3 || !PyTuple_Check(tmpl)) {
        PyErr_SetString(PyExc_SystemError, "launch memo entry: malformed");
        return NULL;
    }
    if (globals != Py_None) {               /* (changed, kernel, used, bound) */
        PyObject *kernel, *used;
        int u;
        if (!PyTuple_Check(globals) || PyTuple_GET_SIZE(globals) != 4) {
            PyErr_SetString(PyExc_SystemError, "launch memo entry: malformed globals check");
            return NULL;
        }
        kernel = PyTuple_GET_ITEM(globals, 1);
        used = PyObject_GetAttr(kernel, used_global_vals_str);
        if (!used)
            return NULL;
        /* u: 1 as compiled (by identity), 0 compare in Python, -1 error */
        u = used == PyTuple_GET_ITEM(globals, 2) ? globals_unchanged(PyTuple_GET_ITEM(globals, 3)) : 0;
        if (u == 0) {
            int read = PyObject_IsTrue(used);
            u = read < 0 ? -1 : !read;          /* (nothing read: as compiled) */
        }
        Py_DECREF(used);
        if (u < 0)
            return NULL;
        if (u == 0) {
            PyObject *changed = PyObject_CallOneArg(PyTuple_GET_ITEM(globals, 0), kernel);
            int c;
            if (!changed)
                return NULL;
            c = PyObject_IsTrue(changed);
            Py_DECREF(changed);
            if (c < 0)
                return NULL;
            if (c)
                Py_RETURN_NONE;             /* Triton's dispatch raises its own error */
        }
    }
    if (PyTuple_Check(call))
        return launch_direct(call, entry, ptrs, scalars, device, stream);
    nh = PyTuple_GET_SIZE(head);
    nt = PyTuple_GET_SIZE(tmpl);
    argv = PyTuple_New(nh + 1 + nt);
    if (!argv)
        return NULL;
    for (i = 0; i < 3; i++)
        set_borrowed(argv, i, PyTuple_GET_ITEM(head, i));
    set_borrowed(argv, 3, stream);
    for (i = 3; i < nh; i++)
        set_borrowed(argv, i + 1, PyTuple_GET_ITEM(head, i));
    for (i = 0; i < nt; i++)
        set_borrowed(argv, nh + 1 + i, PyTuple_GET_ITEM(tmpl, i));
    if (put_all(argv, nh + 1, PyTuple_GET_ITEM(entry, 4), ptrs) < 0
            || put_all(argv, nh + 1, PyTuple_GET_ITEM(entry, 5), scalars) < 0) {
        Py_DECREF(argv);
        return NULL;
    }
    if (scratch != Py_None) {               /* (allocate, nbytes, align, at) */
        PyObject *buffer;
        Py_ssize_t at;
        if (!PyTuple_Check(scratch) || PyTuple_GET_SIZE(scratch) != 4) {
            Py_DECREF(argv);
            PyErr_SetString(PyExc_SystemError, "launch memo entry: malformed scratch");
            return NULL;
        }
        at = PyLong_AsSsize_t(PyTuple_GET_ITEM(scratch, 3));
        buffer = at == -1 && PyErr_Occurred() ? NULL : PyObject_CallFunctionObjArgs(
            PyTuple_GET_ITEM(scratch, 0), device, stream, PyTuple_GET_ITEM(scratch, 1), PyTuple_GET_ITEM(scratch, 2),
            NULL);
        if (!buffer || buffer == Py_None) {
            Py_DECREF(argv);
            if (!buffer)
                return NULL;
            return buffer;                  /* Py_None: the full path */
        }
        if (put(argv, at, buffer) < 0) {
            Py_DECREF(argv);
            return NULL;
        }
    }
    r = PyObject_Call(call, argv, NULL);
    Py_DECREF(argv);
    if (!r)
        return NULL;
    Py_DECREF(r);
    Py_RETURN_TRUE;
}

static PyObject *lookup(PyObject *table, PyObject *name, PyObject *grid, PyObject *device, PyObject *pre,
                        PyObject *consts, PyObject *post, PyObject *arrays, PyObject *scalars, PyObject *same,
                        PyObject *stream);

/* arrays, scalars and `same` may be lists (a batched launcher's); the rest are tuples */
static PyObject *memo(PyObject *self, PyObject *args) {
    PyObject *table, *name, *grid, *device, *pre, *consts, *post, *stream, *seqs[3], *tuples[3] = {NULL, NULL, NULL};
    PyObject *result = NULL;
    int i;
    if (!PyArg_ParseTuple(args, "O!OOOO!O!O!OOOO", &PyDict_Type, &table, &name, &grid, &device, &PyTuple_Type, &pre,
                          &PyTuple_Type, &consts, &PyTuple_Type, &post, &seqs[0], &seqs[1], &seqs[2], &stream))
        return NULL;
    for (i = 0; i < 3; i++) {
        tuples[i] = PyTuple_Check(seqs[i]) ? (Py_INCREF(seqs[i]), seqs[i]) : PySequence_Tuple(seqs[i]);
        if (!tuples[i]) {
            if (full_path_error()) {
                PyErr_Clear();
                Py_INCREF(Py_None);
                result = Py_None;
            }
            goto done;
        }
    }
    result = lookup(table, name, grid, device, pre, consts, post, tuples[0], tuples[1], tuples[2], stream);
done:
    for (i = 0; i < 3; i++)
        Py_XDECREF(tuples[i]);
    return result;
}

static PyObject *lookup(PyObject *table, PyObject *name, PyObject *grid, PyObject *device, PyObject *pre,
                        PyObject *consts, PyObject *post, PyObject *arrays, PyObject *scalars, PyObject *same,
                        PyObject *stream) {
    PyObject *ptrs = NULL, *key, *entries, *result = NULL;
    Py_ssize_t e;
    key = build_key(name, grid, device, pre, consts, post, arrays, scalars, same, &ptrs);
    if (!key) {
        if (full_path_error()) {
            PyErr_Clear();
            Py_RETURN_NONE;
        }
        return NULL;
    }
    if (key == Py_None)
        return key;
    entries = PyDict_GetItemWithError(table, key);      /* (unhashable Constants: TypeError) */
    if (!entries) {
        if (PyErr_Occurred()) {
            Py_DECREF(key);
            Py_DECREF(ptrs);
            if (full_path_error()) {
                PyErr_Clear();
                Py_RETURN_NONE;
            }
            return NULL;
        }
        return Py_BuildValue("(NN)", key, ptrs);
    }
    if (!PyList_Check(entries)) {
        Py_DECREF(key);
        Py_DECREF(ptrs);
        PyErr_SetString(PyExc_SystemError, "launch memo: entries are not a list");
        return NULL;
    }
    Py_INCREF(entries);                     /* the checks run Python code: hold what is walked */
    for (e = 0; e < PyList_GET_SIZE(entries); e++) {
        PyObject *entry = PyList_GET_ITEM(entries, e), *ok;
        int good;
        if (!PyTuple_Check(entry) || PyTuple_GET_SIZE(entry) != 8) {
            PyErr_SetString(PyExc_SystemError, "launch memo entry: malformed");
            goto done;
        }
        Py_INCREF(entry);
        ok = PyObject_Call(PyTuple_GET_ITEM(entry, 0), arrays, NULL);
        if (!ok) {
            Py_DECREF(entry);
            if (full_path_error()) {
                PyErr_Clear();
                Py_INCREF(Py_None);
                result = Py_None;
            }
            goto done;
        }
        good = PyObject_IsTrue(ok);
        Py_DECREF(ok);
        if (good < 0) {
            Py_DECREF(entry);
            goto done;
        }
        if (good) {
            result = launch(entry, ptrs, scalars, device, stream);
            Py_DECREF(entry);
            goto done;
        }
        Py_DECREF(entry);
    }
    result = Py_BuildValue("(OO)", key, ptrs);
done:
    Py_DECREF(entries);
    Py_DECREF(key);
    Py_DECREF(ptrs);
    return result;
}

static PyMethodDef methods[] = {
    {"memo", memo, METH_VARARGS, "The launch memo's lookup and launch (see the top of launch_memo.c)."},
    {"set_driver", set_driver, METH_VARARGS, "Stand-ins for cuLaunchKernelEx and cuCtxGetCurrent (tests)."},
    {"pack", pack_for_tests, METH_VARARGS, "Arguments packed as the direct launch packs them (tests)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "c2t_launch_memo", NULL, -1, methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit_c2t_launch_memo(void) {
    PyObject *m;
    data_ptr_str = PyUnicode_InternFromString("data_ptr");
    used_global_vals_str = PyUnicode_InternFromString("used_global_vals");
    value_str = PyUnicode_InternFromString("value");
    if (!data_ptr_str || !used_global_vals_str || !value_str)
        return NULL;
    m = PyModule_Create(&module);
    if (m && PyModule_AddIntConstant(m, "ABI", C2T_MEMO_ABI) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
