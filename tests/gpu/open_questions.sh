#!/usr/bin/env bash
# GPU experiment (not part of the product): the open questions of docs/gpu-runs/host-tma-2026-11-29.md
# section 7, in one device call of at most ~8 minutes (each step has its own time limit, so one
# that hangs cannot take the others' time). Run from the project root on the GPU machine:
#
#     source .gpu/setup.sh; bash tests/gpu/open_questions.sh "$OUT"
#
# Writes OUT/open_questions.txt. (TileGym matmul's bench entry, about 4 minutes, is its own call:
# `python -m translator.cli bench tests/gpu/suite.py --tilegym .corpus/src/tilegym --only tg_matmul`.)
set -u
source "$(dirname "$0")/steps.sh"     # start OUT LOG; step SECONDS TITLE COMMAND...
start "${1:-open-questions-out}" open_questions.txt
# 1. the transposed persistent matmul under clusters (section 5): one process per way
for way in translator clusters no-transpose; do
    step 60 "clusters and transposes: $way" python tests/gpu/probe_clusters_transpose.py "$way"
done
# 2. host cost: is the Triton side's slower host code a state of the process? (section 6)
step 60 "launch cost, cuTile first" python tests/gpu/probe_launch_cost.py tg_flash_decode:0 tg_mla_decoding:3
step 60 "launch cost, Triton first" python tests/gpu/probe_launch_cost.py --triton-first tg_flash_decode:0 tg_mla_decoding:3
# 3. host-bound rows after the cached legality check and the leaner bookkeeping
step 60 "host-bound rows" python tests/gpu/profile_split.py tg_mla_decoding:2 ex_concat:0 ex_concat:1 tg_rms_norm:0
# 4. descriptors inside helper functions: flash_decode's K/V loads, hand-patched (section 4)
step 120 "flash_decode with descriptors in its helper" python tests/gpu/probe_flash_decode_tma.py
echo "### done ($(date +%T))" | tee -a "$log"
