"""Batched launches: a host loop's launches of one kernel, run up to four per launch when that
cannot be observed (`_C2TBatch`).

Part of cutile2triton's launch runtime (translator/runtime/).
"""
import torch


def _c2t_span(t):
    """(device index, first byte, end byte) of the memory a tensor's elements occupy (None if empty)."""
    ptr = t.data_ptr()
    if t.is_contiguous():
        nbytes = t.nbytes
        return (t.get_device(), ptr, ptr + nbytes) if nbytes else None    # (get_device: -1 for CPU tensors)
    if t.numel() == 0:
        return None
    lo = hi = 0
    for d, s in zip(t.shape, t.stride()):
        lo, hi = lo + min(0, (d - 1) * s), hi + max(0, (d - 1) * s)
    size = t.element_size()
    return (t.get_device(), ptr + lo * size, ptr + (hi + 1) * size)


def _c2t_overlap(spans, others):
    """Whether a span of `spans` and one of `others` are on one device and share a byte."""
    for a in spans:
        if a is not None:
            dev, lo, hi = a
            for b in others:
                if b is not None and b[0] == dev and lo < b[2] and b[1] < hi:
                    return True
    return False


class _C2TBatch:
    """Launches of one kernel from a host loop, run up to four per launch (grid axis 1 picks the
    launch). cuTile ran them one after another, so they are only grouped when that cannot be
    observed: 1-D grids, equal Constant arguments (one specialization), the same stream, and no
    array a launch writes overlapping any array of another launch in the group. Anything else is
    launched on its own, in order. (The group keeps the spans of all its arrays and of the arrays
    it writes, so a launch is checked against the group at once rather than launch by launch.)"""

    def __init__(self, launch, launch_batch, *, consts, arrays, written):
        self.launch, self.launch_batch = launch, launch_batch
        self.consts, self.arrays = consts, arrays
        self.written = [arrays.index(i) for i in written]     # positions among the array arguments
        self.pending, self.stream = [], None
        self.key = self.reads = self.writes = None              # the pending group's

    def add(self, grid, *args, stream=None):
        if self.pending and stream is not self.stream:
            self.flush()
        self.stream = stream
        if type(grid) is not tuple or not grid or grid[1:] not in ((), (1,), (1, 1)):
            self.flush()
            self.launch(grid, *args, stream=stream)
            return
        spans = []                                              # once per launch, not per pair
        for i in self.arrays:
            a = args[i]
            if not isinstance(a, torch.Tensor):
                self.flush()
                self.launch(grid, *args, stream=stream)
                return
            spans.append(_c2t_span(a))
        consts = [args[i] for i in self.consts]
        key = (*consts, *map(type, consts))                     # (True == 1: the types are compared too)
        written = [spans[k] for k in self.written]
        if self.pending and (key != self.key or _c2t_overlap(written, self.reads)
                             or _c2t_overlap(self.writes, spans)):
            self.flush()
        if self.pending:
            self.reads += spans
            self.writes += written
        else:
            self.key, self.reads, self.writes = key, spans, written
        self.pending.append((grid, args))
        if len(self.pending) == 4:
            self.flush()

    def flush(self):
        group, self.pending = self.pending, []
        if len(group) == 1:
            self.launch(group[0][0], *group[0][1], stream=self.stream)
        elif group:
            self.launch_batch(group, stream=self.stream)
