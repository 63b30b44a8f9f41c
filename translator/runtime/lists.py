"""Lists of arrays (cuTile `List[Array]` parameters): device tables of their pointers, extents
and strides for the kernel.

Part of cutile2triton's launch runtime (translator/runtime/launch.py says how its modules refer to
each other).
"""
import torch

from . import launch as _rt_launch


def _c2t_array_list(arrays, rank, name, static=()):
    """A list-of-arrays argument (cuTile's List[Array]) as (table, length, element dtype, aligned).
    The table is an int64 tensor on the arrays' device with one row per array: its data pointer,
    then (when the kernel uses them) its `rank` extents and `rank` strides in elements; equal
    tables are built once (_C2T_TABLES). `aligned` is the number of elements in 16 bytes when
    every array has a unit last stride, a 16-byte aligned base, other strides of 16-byte multiples
    and a last extent of whole 16-byte vectors (the kernel then gives Triton these facts, so that
    tile loads vectorize), else 0. `static`: (what, axis) of the extents ("shape") and strides
    ("stride") the kernel takes as constexprs (the list's hint made them static): every array must
    agree on them (cuTile's ValueError), their values follow."""
    if not isinstance(arrays, list):
        raise TypeError(f"argument `{name}` must be a list of arrays, got {type(arrays).__name__}")
    if not arrays:
        raise ValueError(f"argument `{name}` must be a non-empty list of arrays")
    # (i64: the table holds 64-bit extents and strides, which the kernel indexes with)
    ts = [_rt_launch._c2t_array(a, None, f"{name}[{i}]", i64=True)[0] for i, a in enumerate(arrays)]
    first = ts[0]
    for i, t in enumerate(ts):
        if t.dtype != first.dtype or t.device != first.device:
            raise TypeError(f"argument `{name}`: all arrays must have the same dtype and device "
                            f"({name}[{i}] is {t.dtype} on {t.device}, {name}[0] is {first.dtype} on {first.device})")
        if rank is not None and t.dim() != rank:
            raise ValueError(f"argument `{name}` must be a list of {rank}-D arrays, {name}[{i}] is {t.dim()}-D")
    if first.dtype not in _rt_launch._C2T_TL_DTYPES:
        raise TypeError(f"argument `{name}`: arrays of {first.dtype} are not supported")
    import os
    if first.is_cuda and os.environ.get("TRITON_INTERPRET") == "1":
        raise RuntimeError(f"argument `{name}`: under TRITON_INTERPRET=1 lists of arrays must be CPU tensors "
                           "(the interpreter copies arguments to the host, the device table would not follow)")
    rows = []
    size = first.element_size()
    aligned = bool(rank) and size in (1, 2, 4, 8) and first.dtype is not torch.bool
    for i, t in enumerate(ts):
        row = [t.data_ptr()]
        if rank is not None:
            meta = [*t.shape, *t.stride()]
            if any(not -2 ** 31 <= v < 2 ** 31 for v in meta):
                raise ValueError(f"argument `{name}`: {name}[{i}] has extents or strides beyond int32")
            row += meta
            aligned = aligned and row[0] % 16 == 0 and t.stride(-1) == 1 and t.shape[-1] * size % 16 == 0 \
                and all(st * size % 16 == 0 for st in t.stride()[:-1])
        rows.append(row)
    key = (first.device, tuple(map(tuple, rows)))
    table = _C2T_TABLES.get(key)
    if table is None:
        if len(_C2T_TABLES) >= 256:
            _C2T_TABLES.clear()
        table = _C2T_TABLES[key] = torch.tensor(rows, dtype=torch.int64, device=first.device)
    consts = []
    for what, axis in static:
        vals = [(t.shape if what == "shape" else t.stride())[axis] for t in ts]
        for v in vals[1:]:
            if v != vals[0]:
                raise ValueError(f"Arrays in list vary in static {what} at axis {axis} ({vals[0]} vs {v})")
        consts.append(vals[0])
    return (table, len(ts), _rt_launch._C2T_TL_DTYPES[first.dtype], 16 // size if aligned else 0, *consts)


# device tables of list-of-arrays arguments by content (device, rows): a launch with the same
# arrays (pointers, extents and strides) reuses its table instead of copying a new one from the
# host, a copy that waits for the device (the tables are only read by kernels)
_C2T_TABLES = {}
