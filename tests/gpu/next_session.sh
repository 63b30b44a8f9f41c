#!/usr/bin/env bash
# GPU run (not part of the product): what the fourteenth session should measure first, in one call
# of at most ~9.5 minutes. None of it has run on a GPU yet:
#  - the C lookup's check of unchanged globals by identity (11964d4), in the launch cost per
#    launcher call with both lookups, and TileGym's persistent bmm launch path (host ratio 0.77 in
#    the thirteenth session: its launches go through kernel.replace_hints(...) and _c2t_launch);
#  - the opt-in direct launch (C2T_CU_LAUNCH=1: cuLaunchKernelEx from templates/launch_memo.c,
#    arguments packed by the kernel's signature): tests/gpu/exp_direct_launch.py (same bytes as
#    Triton's launcher? faster?), the launch cost with it, then the host-bound entries with it
#    (their correctness cases run against cuTile too).
# The first probe gives cuTile's bmm search TileGym's own 15 s compile budget, as the suite does.
# From the project root on the GPU machine:
#
#     source .gpu/setup.sh; bash tests/gpu/next_session.sh "$OUT"; tar czf "$OUT/n.tgz" -C "$OUT" n
#
# Writes OUT/n/next_session.txt and the bench reports under OUT/n/bench_cu.
set -u
source "$(dirname "$0")/steps.sh"     # start OUT LOG; step SECONDS TITLE COMMAND...
start "${1:-next-session-out}/n" next_session.txt
step 130 "launch cost" env C2T_CUTILE_COMPILER_TIMEOUT=15 python tests/gpu/probe_launch_cost.py tg_flash_decode:0 tg_rms_norm:0 tg_bmm:0
step 80 "direct launch (experiment)" python tests/gpu/exp_direct_launch.py tg_flash_decode:0 tg_rms_norm:0
step 70 "launch cost, C2T_CU_LAUNCH=1" env C2T_CU_LAUNCH=1 python tests/gpu/probe_launch_cost.py tg_flash_decode:0 tg_rms_norm:0
step 250 "host-bound rows, C2T_CU_LAUNCH=1" env C2T_CU_LAUNCH=1 "${bench[@]}" --only tg_flash_decode tg_rms_norm tg_bmm \
    --timeout 150 --out "$out/bench_cu"     # (the suite sets bmm's 15 s budget itself)
echo "### done ($(date +%T))" | tee -a "$log"
