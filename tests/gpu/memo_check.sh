#!/usr/bin/env bash
# GPU run (not part of the product): the launch memo's layout check by torch's TensorGuards and its
# shared descriptor scratch under the harness's allocator (twelfth session). Host cost per launcher
# call with that check, with the former Python check and without the memo, then the host-bound
# suite entries it is for, in one call of at most ~9.5 minutes. From the project root on the GPU
# machine:
#
#     source .gpu/setup.sh; bash tests/gpu/memo_check.sh "$OUT"; tar czf "$OUT/m.tgz" -C "$OUT" m
#
# Writes OUT/m/memo_check.txt and the bench reports under OUT/m/bench_hb.
set -u
source "$(dirname "$0")/steps.sh"     # start OUT LOG; step SECONDS TITLE COMMAND...
start "${1:-memo-check-out}/m" memo_check.txt
step 110 "launch cost" python tests/gpu/probe_launch_cost.py tg_flash_decode:0 tg_rms_norm:0 tg_mla_decoding:3
step 440 "host-bound rows" "${bench[@]}" --only tg_flash_decode tg_mla_decoding tg_rms_norm tg_softmax \
    tg_dropout --timeout 200 --out "$out/bench_hb"
echo "### done ($(date +%T))" | tee -a "$log"
