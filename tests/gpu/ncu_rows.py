"""GPU experiment (not part of the product): hardware counters (Nsight Compute) for the suite rows
that fall short of the memory-bound bar, both sides of each row (cuTile original and translation)
in one process. Each side's call runs between cudaProfilerStart/Stop after three warm-up calls
(compiles and config searches happen outside the profiled ranges), behind a `torch.cuda._sleep`
kernel that marks where the range starts. Nsight Compute flushes the caches before each kernel
and, with --clock-control none, leaves the clocks alone, so the sum of a call's kernel durations is
its device time with cold caches (what do_bench's L2 flush aims at), without the host's launch work.

    ncu --clock-control none --profile-from-start off --csv --print-units base \\
        --metrics "$(python tests/gpu/ncu_rows.py --metrics)" \\
        python tests/gpu/ncu_rows.py BENCH.json tg_flash_decode ex_reduce_argmax ... > ncu.csv 2> ncu.log
    python tests/gpu/ncu_rows.py --table ncu.csv ncu.log       # (on the CPU) one line per side of a row

BENCH.json: a suite table's bench.json (`cutile2triton bench --merge ... --out DIR` writes one); its
memory-bound rows under 85% of the 1 GiB copy are the rows profiled, or, with
$C2T_NCU_ALL_ROWS=1, all its rows. The entries named after it are loaded and each of their bench
cases and dtypes among those rows is profiled (tests/gpu/next_session.sh part 5 runs the
twenty-sixth session's table so). The log gets `C2T-RANGE <label>` per range, the row's
byte count (the spec's, as the suite's GB/s use) and the 1 GiB copy's rate timed by do_bench in
the same process (`C2T-COPY <GB/s>`)."""
import csv
import json
import os
import sys
import time

METRICS = [
    "gpu__time_duration.sum",
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed",
    "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
    "sm__maximum_warps_per_active_cycle_pct",
    "launch__grid_size",
    "launch__block_size",
    "launch__registers_per_thread",
    "launch__waves_per_multiprocessor",
]


def run(rows_path, entries):
    import torch
    from triton.testing import do_bench
    sys.path[:0] = [".", os.environ.get("TILEGYM_SRC", ".corpus/src")]
    from tests.gpu.suite import C2T_SUITE
    from translator.harness.runner import clone_args
    from translator.harness.suite import entry_bench_cases
    from translator.harness.verify import (case_label, load_modules, make_args, raise_cutile_compiler_timeout,
                                          select_dtypes, set_cuda_allocator)
    set_cuda_allocator("cuda")
    raise_cutile_compiler_timeout()
    cudart = torch.cuda.cudart()
    # rows left when $C2T_NCU_SECONDS have passed are skipped (named in the log), so that the process
    # ends on its own and Nsight Compute prints what it measured
    deadline = time.time() + float(os.environ.get("C2T_NCU_SECONDS", "1e9"))
    every = os.environ.get("C2T_NCU_ALL_ROWS") == "1"
    wanted = {(r["kernel"], r["case"], r["dtype"]) for r in json.load(open(rows_path))["rows"]
              if every or (r.get("copy_share") is not None and r["copy_share"] < 0.85)}
    big = torch.empty(1 << 30, dtype=torch.uint8, device="cuda")
    ms = do_bench(lambda: big.clone(), return_mode="median")
    print(f"C2T-COPY {2 * big.numel() / ms / 1e6:.1f}", file=sys.stderr, flush=True)
    del big

    for name in entries:
        entry = next(e for e in C2T_SUITE if e["name"] == name)
        path = entry["file"].replace("{tilegym}", os.path.join(os.environ.get("TILEGYM_SRC", ".corpus/src"), "tilegym"))
        orig, sp, trans, _, _ = load_modules(path, entry.get("spec"), None, "gpu")
        for case in entry_bench_cases(entry, sp):
            for dt in select_dtypes(sp, entry.get("dtypes")):
                label = f"{name} | {case_label(case)} | {str(dt)[6:]}"
                if (name, case_label(case), str(dt)[6:]) not in wanted:
                    continue
                if time.time() > deadline:
                    print(f"C2T-SKIPPED {label}: out of time", file=sys.stderr, flush=True)
                    continue
                args = make_args(sp, case, dt, 0, "cuda")
                nbytes = sp.bytes_fn(case, dt) if sp.bytes_fn else 0
                for side, mod in (("cuTile", orig), ("Triton", trans)):
                    fn, a = getattr(mod, sp.entry), clone_args(args)
                    try:
                        for _ in range(3):
                            fn(*a)
                        torch.cuda.synchronize()
                    except Exception as exc:    # noqa: BLE001 - reported, the others go on
                        print(f"C2T-FAILED {label} | {side}: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
                        continue
                    print(f"C2T-RANGE {label} | {side} | {nbytes}", file=sys.stderr, flush=True)
                    cudart.cudaProfilerStart()
                    torch.cuda._sleep(1000)
                    fn(*a)
                    torch.cuda.synchronize()
                    cudart.cudaProfilerStop()
                del args
                torch.cuda.empty_cache()


def _num(v):
    try:
        return float(v.replace(",", ""))
    except (AttributeError, ValueError):
        return None


def _short_name(name):
    """A kernel's name without cuTile's specialization suffix or a C++ signature (torch's kernels)."""
    base = name.split("(")[0].split("<")[0].split()[-1].split("::")[-1]
    return base.split("_Kt")[0][:40]


def table(csv_path, log_path):
    """One line per profiled range (a side of a row): its kernels' summed duration, the spec's bytes
    over it against the copy, the DRAM bytes read, and per kernel its grid, waves, registers and
    achieved occupancy."""
    log = open(log_path).read().splitlines()
    labels = [ln.split("C2T-RANGE ", 1)[1] for ln in log if ln.startswith("C2T-RANGE ")]
    copy = next((float(ln.split()[1]) for ln in log if ln.startswith("C2T-COPY ")), None)
    for ln in log:
        if ln.startswith(("C2T-FAILED", "C2T-SKIPPED")):
            print(ln)
    rows = list(csv.DictReader(ln for ln in open(csv_path) if ln.startswith('"')))
    kernels = {}    # ID -> (name, {metric: value})
    for r in rows:
        kernels.setdefault(int(r["ID"]), (r["Kernel Name"], {}))[1][r["Metric Name"]] = _num(r["Metric Value"])
    ranges, cur = [], None
    for kid in sorted(kernels):
        name, m = kernels[kid]
        if "sleep" in name.lower() or "spin" in name.lower():
            cur = []
            ranges.append(cur)
        elif cur is not None:
            cur.append((name, m))
    print(f"1 GiB copy in this process (do_bench): {copy} GB/s")
    print("| entry | case | dtype | side | device us | % copy by device time | DRAM read MB (spec MB) | "
          "kernels: name grid waves regs achieved-occupancy% dram% us |")
    print("|---|---|---|---|---|---|---|---|")
    for i, ks in enumerate(ranges):
        entry, case, dtype, side, nbytes = (labels[i].split(" | ") if i < len(labels) else ["?"] * 5)
        us = sum(m.get("gpu__time_duration.sum") or 0 for _, m in ks) / 1e3
        read = sum(m.get("dram__bytes_read.sum") or 0 for _, m in ks) / 1e6
        share = float(nbytes) / (us * 1e3) / copy if us and copy and float(nbytes) else None
        per = "; ".join(
            f"{_short_name(n)} {m.get('launch__grid_size') or 0:.0f} {m.get('launch__waves_per_multiprocessor') or 0:.2f} "
            f"{m.get('launch__registers_per_thread') or 0:.0f} {m.get('sm__warps_active.avg.pct_of_peak_sustained_active') or 0:.0f} "
            f"{m.get('dram__throughput.avg.pct_of_peak_sustained_elapsed') or 0:.0f} {(m.get('gpu__time_duration.sum') or 0) / 1e3:.1f}"
            for n, m in ks)
        print(f"| {entry} | {case} | {dtype} | {side} | {us:.1f} | {'-' if share is None else format(share, '.0%')} | "
              f"{read:.1f} ({float(nbytes) / 1e6:.1f}) | {per} |")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--metrics"]:
        print(",".join(METRICS))
    elif sys.argv[1:2] == ["--table"]:
        table(sys.argv[2], sys.argv[3])
    else:
        run(sys.argv[1], sys.argv[2:])
