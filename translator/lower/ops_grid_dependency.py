"""Grid dependency control (programmatic dependent launch, sm_90+).

`ct.grid_dependency_control_wait()` and `ct.grid_dependency_control_launch_dependents()` become
Triton 3.6's `gdc_wait()` and `gdc_launch_dependents()` (triton.language.extra.cuda), through
prelude helpers that do nothing under the interpreter (which cannot run their inline PTX). Both
instructions are safe in a launch that is not programmatically dependent: the wait returns at
once, as the kernel only started after its predecessor finished. `ct.launch(...,
programmatic_dependent_launch=True)` becomes a launch with Triton's `launch_pdl` option (host.py).
"""
from __future__ import annotations

from . import types as T
from .registry import op
from .types import V


@op("grid_dependency_control_wait", ["/"])
def op_gdc_wait(lw, call, args):
    return V(f"{lw.s.use('_c2t_gdc_wait')}()", T.STATIC, value=None)


@op("grid_dependency_control_launch_dependents", ["/"])
def op_gdc_launch_dependents(lw, call, args):
    return V(f"{lw.s.use('_c2t_gdc_launch_dependents')}()", T.STATIC, value=None)
