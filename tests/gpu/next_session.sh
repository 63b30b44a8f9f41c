#!/usr/bin/env bash
# GPU experiment (not part of the product): the register cap for two programs per SM
# (_c2t_two_programs_per_sm, templates/host_prelude.py.j2), in one call of at most ~9.5 minutes
# (each step has its own time limit, so one that hangs cannot take the others' time). From the
# project root on the GPU machine:
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
# 1. the rows ptxas says the rule changes (`compile_tilegym_sm90.py --bench --ptxas --dtypes`): softmax rows of 16384 in
#    bfloat16 (71 registers at 16 warps -> 64, no spills; float16 compiles to 64 already, its rows
#    ran 25% faster), and tvd batchmean in float32 (156 at 8 warps -> 128, no spills); float16
#    softmax is the control (the rule leaves it alone)
step 100 "softmax bf16" "${sweep[@]}" softmax:4,5 --dtype bfloat16 --occupancy on,off --graph
step 60 "softmax fp16 (control)" "${sweep[@]}" softmax:4 --dtype float16 --occupancy on,off --graph
step 90 "tvd fp32" "${sweep[@]}" liger_tvd:0 --dtype float32 --warps 0,16 --occupancy on,off --graph
# 2. the entries with the rule, and tvd's bytes (the float32 loss and its host-side cast counted)
step 300 "bench" "${bench[@]}" --only tg_softmax tg_liger_tvd --timeout 150 --out "$out/bench"
echo "### done ($(date +%T))" | tee -a "$log"
