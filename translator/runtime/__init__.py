"""cutile2triton's launch runtime: what generated modules' launchers call (the cached launch path,
array arguments, the launch memo and its C lookup, num_stages and its retries, tensor
descriptors, hints, coarsening, exhaustive_search, batched launches, lists of arrays).

Plain modules, imported by name from generated code (`from translator.runtime.launch import
_c2t_run, ...`: the `_c2t_` names keep them apart from the user's own); `cutile2triton
--standalone` pastes the pieces a translation uses into it instead (translator/vendor.py).
The environment switches (docs/switches.md) are read when the runtime is imported.
"""
