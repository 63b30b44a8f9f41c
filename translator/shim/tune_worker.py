"""The child process of the shim's benchmark_with_timeout (tune.py): reads (translation file,
launcher name, grid, arguments, repeats, CPU stand-ins) pickled from stdin, imports the
translation, prints READY, then launches once and `repeats` times more and writes the mean
microseconds of those and the arguments (pickled: the parent copies what they hold back into its
own). The parent kills it when the launches run past the timeout."""
from __future__ import annotations

import importlib.util
import pickle
import sys
import time


def main() -> int:
    path, launcher, grid, args, repeats, cpu = pickle.loads(sys.stdin.buffer.read())
    if cpu:
        from translator.shim import cpu as cpu_mod
        cpu_mod.install()
    import torch
    spec = importlib.util.spec_from_file_location("c2t_tune_worker_kernel", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    launch = getattr(mod, launcher)
    sync = torch.cuda.synchronize if torch.cuda.is_available() else (lambda: None)
    print("READY", flush=True)
    launch(grid, *args)
    sync()
    t0 = time.perf_counter()
    for _ in range(repeats):
        launch(grid, *args)
    sync()
    us = (time.perf_counter() - t0) / repeats * 1e6
    sys.stdout.buffer.write(pickle.dumps((us, args)))     # (the arguments: what the launches wrote)
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
