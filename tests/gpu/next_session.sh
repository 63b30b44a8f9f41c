#!/usr/bin/env bash
# GPU run (not part of the product): what the fourteenth session should measure first. The C
# lookup's check of unchanged globals by identity (11964d4) was not timed on the H200; nor was
# TileGym's persistent bmm launch path (host ratio 0.77 in the thirteenth session: its launches
# go through kernel.replace_hints(...) and _c2t_launch). Launch cost per launcher call with both
# lookups; whether calling cuLaunchKernelEx directly would beat Triton's launcher
# (tests/gpu/exp_direct_launch.py, not run yet: it may need fixing first); then the host-bound
# entries and the persistent bmm, in one call of at most ~9.5 minutes (the probe gives cuTile's bmm search TileGym's own 15 s compile budget, as the suite does).
# From the project root on the GPU machine:
#
#     source .gpu/setup.sh; bash tests/gpu/next_session.sh "$OUT"; tar czf "$OUT/n.tgz" -C "$OUT" n
#
# Writes OUT/n/next_session.txt and the bench reports under OUT/n/bench_hb.
set -u
source "$(dirname "$0")/steps.sh"     # start OUT LOG; step SECONDS TITLE COMMAND...
start "${1:-next-session-out}/n" next_session.txt
step 160 "launch cost" env C2T_CUTILE_COMPILER_TIMEOUT=15 python tests/gpu/probe_launch_cost.py tg_flash_decode:0 tg_rms_norm:0 tg_mla_decoding:3 tg_bmm:0
step 80 "direct launch (experiment)" python tests/gpu/exp_direct_launch.py tg_flash_decode:0 tg_rms_norm:0
step 330 "host-bound rows" "${bench[@]}" --only tg_flash_decode tg_rms_norm tg_mla_decoding tg_bmm tg_bmm_2k \
    --timeout 200 --out "$out/bench_hb"
echo "### done ($(date +%T))" | tee -a "$log"
