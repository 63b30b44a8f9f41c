"""Triton interpreter numerics patch: bf16 by value, round-to-nearest-even downcasts, fp8 upcasts,
bool scalar arguments.

The stock Triton interpreter (3.6 and 3.9) computes bf16 arithmetic, compares, reductions,
``tl.dot`` and fma on the raw uint16 bit patterns, truncates fp32->bf16 casts, and rounds
fp32->fp8 casts wrongly when the rounding carries into the exponent, and widens fp8 infinities and
NaNs to finite numbers (e5m2 inf -> 65536); a Python bool argument fails (it stores the value as
an int32 array under an int1 type: "numpy data itemsize (32 bits) exceeds dtype primitive_bitwidth
(1 bits)"), and a Python float argument stays a Python number, a weak scalar (fp16 tile * float
argument stays fp16), where compiled code has an fp32 scalar (fp16 * fp32 is fp32, as in cuTile,
whose scalars are 0-d tiles); and `tl.minimum`/`tl.maximum` without propagate_nan (minNum/maxNum:
a NaN operand loses, on the GPU and in cuTile's ct.minimum/ct.maximum) return NaN.  ``install()`` patches the
interpreter builder so that bf16 values are widened to fp32, computed, and rounded back once with
torch's round-to-nearest-even, and so that downcasts to bf16/fp8 round like the GPU does
(see shared/reference/triton-target.md, Appendix A).

It touches private interpreter internals: re-run ``self_test()`` (and the CPU test that calls
it) whenever the triton pin changes.  A bf16 reduction is rounded once, so it is slightly more
accurate than the GPU's tree of bf16 adds; keep bf16 tolerances near 1e-2.
"""
from __future__ import annotations


def _parts():
    import numpy as np
    import torch
    import triton.language as tl
    from triton.runtime import interpreter as interp
    return np, torch, tl, interp


def install() -> bool:
    """Patch the interpreter once per process; returns True when it patched something now."""
    np, torch, tl, interp = _parts()
    builder = interp.InterpreterBuilder
    if getattr(builder, "_c2t_numerics_patched", False) or getattr(builder, "_numerics_patched", False):
        return False
    TensorHandle = interp.TensorHandle
    fp8 = {tl.float8e4nv: torch.float8_e4m3fn, tl.float8e5: torch.float8_e5m2,
           tl.float8e4b8: torch.float8_e4m3fnuz, tl.float8e5b16: torch.float8_e5m2fnuz}
    wide = (tl.float32, tl.float16, tl.bfloat16, tl.float64)

    def is_bf16(h):
        return getattr(h.dtype, "scalar", None) == tl.bfloat16 and h.data.dtype == np.uint16

    def as_f32(h):                                   # bf16 bits -> fp32 values
        return (h.data.astype(np.uint32) << 16).view(np.float32) if is_bf16(h) else h.data

    def bf16_bits(values):                           # fp32 values -> bf16 bits, RNE
        t = torch.from_numpy(np.ascontiguousarray(values, dtype=np.float32))
        return t.to(torch.bfloat16).view(torch.int16).numpy().view(np.uint16)

    def downcast(src, dst):
        if src.dtype.scalar in wide:
            f = np.asarray(as_f32(src), dtype=np.float32)
        elif src.dtype.scalar.is_int() and src.dtype.scalar != tl.int1:
            f = np.asarray(src.data, dtype=np.float64).astype(np.float32)   # int -> float by value
        else:
            return None
        if dst == tl.bfloat16:
            return TensorHandle(bf16_bits(f), dst)
        if dst in fp8:
            t = torch.from_numpy(np.ascontiguousarray(f)).to(fp8[dst])
            return TensorHandle(t.view(torch.uint8).numpy(), dst)
        return None

    orig = {n: getattr(builder, n) for n in
            ("binary_op", "unary_op", "create_dot", "create_fma", "cast_impl", "create_fp_to_fp")}

    def binary_op(self, lhs, rhs, op):
        if not (is_bf16(lhs) or is_bf16(rhs)):
            return orig["binary_op"](self, lhs, rhs, op)
        out = op(as_f32(lhs), as_f32(rhs))
        if out.dtype == np.bool_:
            return TensorHandle(out, tl.int1)
        return TensorHandle(bf16_bits(out), tl.bfloat16)

    def unary_op(self, arg, op):
        if not is_bf16(arg):
            return orig["unary_op"](self, arg, op)
        out = op(as_f32(arg))
        return TensorHandle(out if out.dtype == np.bool_ else bf16_bits(out), arg.dtype.scalar)

    def create_dot(self, a, b, d, *rest):
        if is_bf16(a) or is_bf16(b):
            a = TensorHandle(as_f32(a), tl.float32)
            b = TensorHandle(as_f32(b), tl.float32)
        return orig["create_dot"](self, a, b, d, *rest)

    def create_fma(self, x, y, z):
        if not is_bf16(z):
            return orig["create_fma"](self, x, y, z)
        exact = as_f32(x).astype(np.float64) * as_f32(y) + as_f32(z)
        return TensorHandle(bf16_bits(exact.astype(np.float32)), tl.bfloat16)

    def upcast_fp8(src, dst):                       # fp8 bits -> wider floats by value (inf, NaN kept)
        if getattr(src.dtype, "scalar", None) in fp8 and dst in wide and dst != tl.bfloat16:
            t = torch.from_numpy(np.ascontiguousarray(src.data).view(np.uint8)).view(fp8[src.dtype.scalar])
            return TensorHandle(t.float().numpy().astype(interp._get_np_dtype(dst)), dst)
        return None

    def cast_impl(self, src, dst_type):
        dst = dst_type.scalar
        r = upcast_fp8(src, dst)
        if r is not None:
            return r
        if dst == tl.bfloat16 or dst in fp8:
            r = downcast(src, dst)
            if r is not None:
                return r
        if is_bf16(src) and dst in (tl.float16, tl.float32, tl.float64):   # by bits: subnormals kept
            return TensorHandle(as_f32(src).astype(interp._get_np_dtype(dst)), dst)
        return orig["cast_impl"](self, src, dst_type)

    def create_fp_to_fp(self, src, dst_type, rounding_mode):
        dst = dst_type.scalar
        r = upcast_fp8(src, dst)
        if r is not None:
            return r
        if rounding_mode != interp._ir.ROUNDING_MODE.RTZ and (dst == tl.bfloat16 or dst in fp8):
            r = downcast(src, dst)
            if r is not None:
                return r
        return orig["create_fp_to_fp"](self, src, dst_type, rounding_mode)

    # the builder's create_* lambdas look these up on self, so patching the class is enough
    builder.binary_op, builder.unary_op = binary_op, unary_op
    builder.create_dot, builder.create_fma = create_dot, create_fma
    builder.cast_impl, builder.create_fp_to_fp = cast_impl, create_fp_to_fp

    def get_bf16(self, value):                       # a bf16 constant (the stock builder has none)
        return TensorHandle(bf16_bits(np.array([value], dtype=np.float32)), tl.bfloat16)
    builder.get_bf16 = get_bf16

    def in_fp32(fn):                                 # bf16 reductions/scans: fp32, rounded once
        def wrapper(self, x, *args, **kwargs):
            if x.dtype.scalar != tl.bfloat16:
                return fn(self, x, *args, **kwargs)
            xf = tl.core.tensor(TensorHandle(as_f32(x.handle), tl.float32), x.type.with_element_ty(tl.float32))

            def back(t):
                if isinstance(t, (list, tuple)):
                    return type(t)(back(u) for u in t)
                if t.dtype.scalar != tl.float32:
                    return t
                bits = bf16_bits(t.handle.data)
                return self.to_tensor(bits if t.type.is_block() else bits.reshape(-1)[0], tl.bfloat16)
            return back(fn(self, xf, *args, **kwargs))
        return wrapper

    builder.create_minnumf = lambda self, lhs, rhs: self.binary_op(lhs, rhs, np.fmin)   # NaN loses
    builder.create_maxnumf = lambda self, lhs, rhs: self.binary_op(lhs, rhs, np.fmax)

    cvt = interp._implicit_cvt

    def implicit_cvt(arg):
        if isinstance(arg, bool):       # a kernel's bool argument: an i1 scalar, as compiled code has it
            return tl.tensor(TensorHandle(np.array([arg], dtype=np.bool_), tl.int1), tl.int1)
        if isinstance(arg, float):      # and a float argument an fp32 scalar
            return tl.tensor(TensorHandle(np.array([arg], dtype=np.float32), tl.float32), tl.float32)
        return cvt(arg)
    interp._implicit_cvt = implicit_cvt

    red, scan = interp.ReduceOps, interp.ScanOps
    red.sum, red.min_max = in_fp32(red.sum), in_fp32(red.min_max)
    scan.cumsum, scan.cumprod = in_fp32(scan.cumsum), in_fp32(scan.cumprod)
    builder._c2t_numerics_patched = True
    return True


def installed() -> bool:
    try:
        from triton.runtime import interpreter as interp
    except ImportError:
        return False
    return bool(getattr(interp.InterpreterBuilder, "_c2t_numerics_patched", False))
