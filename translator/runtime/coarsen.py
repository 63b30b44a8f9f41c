"""Program coarsening: how many programs of a coarsened kernel's grid each Triton program runs
(`_c2t_coarsen`, see translator/lower/coarsen.py).

Part of cutile2triton's launch runtime (translator/runtime/launch.py says how its modules refer to
each other).
"""
import os

import torch

from . import base as _rt_base
from . import launch as _rt_launch


# Program coarsening (translator/lower/coarsen.py): a kernel that does little per program (a
# small tile, no loops) over a grid of many more programs than the GPU holds at once is bound by
# how fast programs start. Such kernels take `c2t_programs, C2T_COARSEN` and run C2T_COARSEN
# consecutive programs of the grid per program. TileGym's GEGLU (256-element tiles, 458752
# programs on 4096x28672): 144.3 -> 92.6 us in fp16, 61% -> 95% of a same-size copy, with 4 per
# program (docs/decisions/016-program-coarsening.md).
#   auto (the default): on a GPU, tiles of at most 512 elements over at least 256 programs per
#        SM, 1024 // elements programs in one (at most 8). Measured on a 1-D kernel over 2**26
#        fp16 elements (one tile per program): tiles of 512, 256, 128 and 64 elements went from
#        82%, 42%, 22% and 11% of the copy bandwidth to 99%, 95%, 80% and 50% with 2, 4, 8 and 8
#        in one (16 in one was no faster); 1024-element tiles were 1-6% slower grouped. TileGym's
#        rope at B=1 S=16384 D=64 (512-element tiles and three more per program, 124 programs
#        per SM) was 3-6% slower with 2 in one, hence the programs per SM;
#   N:   N programs in one for every such kernel, also under the interpreter (the tests use it);
#   1 or 0: off (one program each, as the grid says).
_C2T_COARSEN = os.environ.get("C2T_COARSEN", "auto")
if _C2T_COARSEN != "auto" and not (_C2T_COARSEN.isdigit() and int(_C2T_COARSEN) <= 64):
    raise ValueError(f"C2T_COARSEN must be auto or a number of programs (0-64), not {_C2T_COARSEN!r}")


_C2T_COARSEN_GPU = None    # whether launches run on a GPU, not the interpreter (looked up once)


def _c2t_coarsen_gpu():
    global _C2T_COARSEN_GPU
    _C2T_COARSEN_GPU = os.environ.get("TRITON_INTERPRET") != "1" and torch.cuda.is_available()
    return _C2T_COARSEN_GPU


def _c2t_coarsen(grid, elements):
    """(the grid to launch, the programs of `grid` along axis 0, how many of them each program
    runs) for a launch of a coarsened kernel over `grid`, whose largest tile has `elements`
    elements (None: not known on the host). See _C2T_COARSEN."""
    if type(grid) is not tuple or not 0 < len(grid) < 4:
        grid = _rt_base._c2t_grid(grid)      # raises the error
    global _C2T_COARSEN_GPU
    n = int(grid[0])
    if _C2T_COARSEN != "auto":
        k = max(1, int(_C2T_COARSEN))
    elif elements is None or elements > 512:
        k = 1
    elif not (_C2T_COARSEN_GPU if _C2T_COARSEN_GPU is not None else _c2t_coarsen_gpu()):
        k = 1
    else:
        programs = n * (grid[1] if len(grid) > 1 else 1) * (grid[2] if len(grid) > 2 else 1)
        k = max(1, min(8, 1024 // max(1, elements))) if programs >= 256 * _rt_launch._c2t_sm_limits()[0] else 1
    if k == 1 or n >= 2 ** 31 - k:
        return grid, n, 1
    return (-(-n // k), *grid[1:]), n, k
