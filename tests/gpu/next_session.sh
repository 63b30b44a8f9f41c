#!/usr/bin/env bash
# GPU experiment (not part of the product): the bf16 skinny GEMM rows with up to 8 pipeline stages,
# and do_bench's raw times on batch-1 flash_decode (its do_bench ratio, 0.80-0.82, is below its
# host-time ratio, 0.92-0.93), in one call of at most ~9.5 minutes (each step has its own time
# limit, so one that hangs cannot take the others' time). From the project root on the GPU machine:
#
#     source .gpu/setup.sh; bash tests/gpu/next_session.sh "$OUT"; tar czf "$OUT/n.tgz" -C "$OUT" n
#
# Writes OUT/n/next_session.txt and the bench reports under OUT/n/bench.
set -u
out="${1:-next-session-out}/n"
mkdir -p "$out"
export TILEGYM_SRC="${TILEGYM_SRC:-.corpus/src}"
export PYTHONPATH="$PWD:$PWD/$TILEGYM_SRC:${PYTHONPATH:-}"
log="$out/next_session.txt"
source "$(dirname "$0")/steps.sh"     # step SECONDS TITLE COMMAND...
bench=(python -m translator.cli bench tests/gpu/suite.py --tilegym "$TILEGYM_SRC/tilegym")
sweep=(python tests/gpu/sweep_tilegym_options.py)
# 1. tg_matmul_skinny in bfloat16 (its float16 rows went from 0.875 to 0.976 with 8 stages)
step 150 "bench" "${bench[@]}" --only tg_matmul_skinny --dtypes bfloat16 --timeout 140 --out "$out/bench"
# 2. batch-1 flash_decode: flush and call device times, host time per call, and each do_bench run
step 150 "timing modes" python tests/gpu/probe_timing_modes.py tg_flash_decode:0 tg_flash_decode:1
echo "### done ($(date +%T))" | tee -a "$log"
