"""GPU experiment (not part of the product): host microseconds per launch of an empty kernel, by
number of arguments and launch path, next to cuTile's ct.launch of an equivalent kernel:

  jit      kernel[grid](*args): Triton's JITFunction.run (binder, cache key, launcher)
  direct   the CompiledKernel that run returned, launched through its own C launcher
           (compiled.run(...)): what a cached fast path would cost
  cutile   ct.launch(stream, grid, kernel, args) with the same arrays and scalars

    python tests/gpu/exp_launch_path.py      (GPU, after source .gpu/setup.sh)
"""
import time

import cuda.tile as ct
import torch
import triton


@triton.jit
def k4(A, B, n, m):
    pass


def _many(n_arrays):
    params = []
    for i in range(n_arrays):
        params += [f"A{i}"] + [f"A{i}_n{d}" for d in range(4)] + [f"A{i}_s{d}" for d in range(4)]
    src = ("import triton\nimport triton.language as tl\n@triton.jit\ndef kmany(" + ", ".join(params)
           + ", x0, x1, x2, x3, x4, x5, x6, x7, x8, x9, C: tl.constexpr):\n    pass\n")
    path = f"/tmp/_c2t_kmany_{n_arrays}.py"
    with open(path, "w") as f:
        f.write(src)
    import importlib.util
    spec = importlib.util.spec_from_file_location(f"kmany{n_arrays}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.kmany


@ct.kernel
def ct_many(A0: ct.Array, A1: ct.Array, A2: ct.Array, A3: ct.Array, A4: ct.Array, x0: int, x1: int, x2: int,
            x3: int, x4: int, x5: int, x6: int, x7: int, x8: int, x9: int, C: ct.Constant[int]):
    pass


def host_us(fn, n=3000):
    for _ in range(20):
        fn()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    t1 = time.perf_counter()
    torch.cuda.synchronize()
    return (t1 - t0) / n * 1e6


def main():
    arrays = [torch.empty(4, 8, 16, 32, device="cuda") for _ in range(5)]
    flat = []
    for a in arrays:
        flat += [a, *a.shape, *a.stride()]
    scalars = [7, 100, 3, 5, 1024, 33, 2, 9, 11, 13]
    kmany = _many(5)
    rows = []
    x, y = arrays[0], arrays[1]
    compiled = k4[(1,)](x, y, 100, 7)
    stream = torch.cuda.current_stream().cuda_stream
    rows.append(("4 args", host_us(lambda: k4[(1,)](x, y, 100, 7)),
                 host_us(lambda: compiled.run(1, 1, 1, stream, compiled.function, compiled.packed_metadata, None,
                                              None, None, x, y, 100, 7)), None))
    args = flat + scalars + [4]
    cm = kmany[(1,)](*args)
    rows.append((f"{len(args)} args (5 arrays x 9 + 10 ints + 1 constexpr)", host_us(lambda: kmany[(1,)](*args)),
                 host_us(lambda: cm.run(1, 1, 1, stream, cm.function, cm.packed_metadata, None, None, None, *args)),
                 host_us(lambda: ct.launch(torch.cuda.current_stream(), (1,), ct_many, (*arrays, *scalars, 4)))))
    for name, jit, direct, cut in rows:
        print(f"{name}: jit {jit:.1f} us, direct {direct:.1f} us, cuTile {'-' if cut is None else f'{cut:.1f}'} us")


if __name__ == "__main__":
    main()
