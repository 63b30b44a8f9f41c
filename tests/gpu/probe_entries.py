"""What the GPU probes share (not part of the product): a suite entry's original and translated
modules from a command-line argument `tg_<op>[:i,j]`, and device time per call of calls issued
back to back."""
import os
import sys

import torch

sys.path.insert(0, ".")
sys.path.insert(0, os.environ.get("TILEGYM_SRC", ".corpus/src"))
from tests.gpu.suite import C2T_SUITE  # noqa: E402
from translator.harness.verify import load_modules, raise_cutile_compiler_timeout, set_cuda_allocator  # noqa: E402


def gpu_setup():
    """As the bench does: torch's allocator for Triton's scratch, cuTile's compile budget raised."""
    set_cuda_allocator("cuda")
    raise_cutile_compiler_timeout()


def entry_modules(arg: str):
    """`tg_softmax:4,5` -> (name, which bench cases ("4,5", or "" for all), the suite entry, the
    cuTile file's path, the original module, its spec, the translated module)."""
    name, _, which = arg.partition(":")
    entry = next(e for e in C2T_SUITE if e["name"] == name)
    path = entry["file"].replace("{tilegym}", os.path.join(os.environ.get("TILEGYM_SRC", ".corpus/src"),
                                                             "tilegym"))
    orig, sp, trans, _, _ = load_modules(path, entry.get("spec"), None, "gpu")
    return name, which, entry, path, orig, sp, trans


def back_to_back_us(fn, calls=10, rounds=5):
    """Mean device us per call of `calls` calls back to back on the stream (events around them, no
    L2 flush, no profiler), for each of `rounds` rounds."""
    out = []
    for _ in range(rounds):
        torch.cuda.synchronize()
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        for _ in range(calls):
            fn()
        e.record()
        torch.cuda.synchronize()
        out.append(s.elapsed_time(e) * 1e3 / calls)
    return out


def tried(label, fn):
    """`label` and what fn() returns, or the exception it raised (a probe reports and goes on)."""
    try:
        return f"{label} {fn()}"
    except Exception as exc:   # noqa: BLE001
        return f"{label} {type(exc).__name__}: {str(exc)[:60]}"


def child_jobs(run, count, first):
    """In a child process of jobs_in_children: run(n) for n from `first` to `count` - 1, a line each,
    flushed. An exception is reported and the jobs go on, unless it is a CUDA error: that kills the
    context, so the child says so and exits (status 3), and the parent starts the next child."""
    for n in range(first, count):
        try:
            res = run(n)
        except Exception as exc:    # noqa: BLE001 - reported
            text = str(exc)
            dead = "cuda" in text.lower() or "illegal" in text.lower()
            print(f"JOB {n} {'died' if dead else 'failed'}: {type(exc).__name__}: "
                  f"{text.splitlines()[0][:80] if text else ''}", flush=True)
            if dead:
                sys.exit(3)
            continue
        print(f"JOB {n} {res}", flush=True)
    print("DONE", flush=True)


def jobs_in_children(argv, count):
    """{n: result line} of jobs 0..count-1, run by child processes `argv + ["--child", FIRST]` (each
    calls child_jobs) that go on until a CUDA error ends one; the next starts after the job that
    died. A child that dies without a line (a fault outside Python) costs its job a "died" entry."""
    import subprocess
    results, first, silent = {}, 0, 0
    while first < count:
        proc = subprocess.run(argv + ["--child", str(first)], capture_output=True, text=True)
        silent = 0 if "JOB " in proc.stdout else silent + 1
        if silent == 3:     # not a kernel's fault: the child cannot start
            print("children print nothing; the last one's stderr:\n" + proc.stderr[-2000:], flush=True)
            break
        done = False
        for line in proc.stdout.splitlines():
            if line.startswith("JOB "):
                _, n, rest = line.split(" ", 2)
                results[int(n)] = rest
                first = int(n) + 1
            done |= line == "DONE"
        if done:
            break
        if proc.returncode != 3:
            err = [ln for ln in proc.stderr.splitlines() if "rror" in ln][-1:] or ["(no error line)"]
            results[first] = f"died: {err[0][:90]}"
            first += 1
    return results
