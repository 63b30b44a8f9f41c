#!/usr/bin/env bash
# GPU run (not part of the product): the launch memo's lookup in C (templates/launch_memo.c,
# thirteenth session) against its Python lookup, per launcher call, then the host-bound suite
# entries and the persistent bmm (host ratio 0.67-0.68 before), in one call of at most ~9.5
# minutes. From the project root on the GPU machine:
#
#     source .gpu/setup.sh; bash tests/gpu/next_session.sh "$OUT"; tar czf "$OUT/n.tgz" -C "$OUT" n
#
# Writes OUT/n/next_session.txt and the bench reports under OUT/n/bench_hb.
set -u
source "$(dirname "$0")/steps.sh"     # start OUT LOG; step SECONDS TITLE COMMAND...
start "${1:-next-session-out}/n" next_session.txt
step 110 "launch cost" python tests/gpu/probe_launch_cost.py tg_flash_decode:0 tg_rms_norm:0 tg_mla_decoding:3
step 430 "host-bound rows" "${bench[@]}" --only tg_flash_decode tg_rms_norm tg_mla_decoding tg_softmax \
    tg_dropout tg_bmm --timeout 200 --out "$out/bench_hb"
echo "### done ($(date +%T))" | tee -a "$log"
