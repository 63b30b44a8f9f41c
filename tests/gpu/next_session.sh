#!/usr/bin/env bash
# GPU experiment (not part of the product): skinny and batched GEMMs with pipelines up to 8 stages
# deep (_C2T_DEEP_MAX), and whether 4096^3's GEMM loop (more programs than SMs, 3 stages) gains from
# a 4th stage, in one call of at most ~9.5 minutes (each step has its own time limit, so one that
# hangs cannot take the others' time). From the project root on the GPU machine:
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
# 1. the entries whose GEMM loops the deeper limit reaches (64-program skinny grids, persistent
#    grids with tiles of 24 KiB or less a stage); 8-12 stages ran the skinny kernel in 60-62 us
#    where 6 took 64 (sweep of the previous call)
step 260 "bench" "${bench[@]}" --only tg_matmul_skinny tg_bmm tg_bmm_2k --timeout 120 --out "$out/bench"
# 2. 4096^3 bf16 (0.88 of torch.matmul in the tenth session): its 128x256x64 tiles take 48 KiB a
#    stage, 144 KiB at 3 stages, so an SM holds one program either way and a 4th stage costs no
#    occupancy
step 200 "4096^3 stages" "${sweep[@]}" matmul:0 --dtype bfloat16 --stages 0,4 --graph
echo "### done ($(date +%T))" | tee -a "$log"
