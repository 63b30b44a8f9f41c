#!/usr/bin/env bash
# GPU experiment (not part of the product): the tenth session's fifth device call, in one call of
# at most ~9.5 minutes (each step has its own time limit, so one that hangs cannot take the
# others' time). From the project root on the GPU machine:
#
#     source .gpu/setup.sh; bash tests/gpu/next_session.sh "$OUT"; tar czf "$OUT/n.tgz" -C "$OUT" n
#
# Writes OUT/n/next_session.txt and the bench reports under OUT/n/bench*.
set -u
out="${1:-next-session-out}/n"
mkdir -p "$out"
export TILEGYM_SRC="${TILEGYM_SRC:-.corpus/src}"
export PYTHONPATH="$PWD:$PWD/$TILEGYM_SRC:${PYTHONPATH:-}"
log="$out/next_session.txt"
source "$(dirname "$0")/steps.sh"     # step SECONDS TITLE COMMAND...
bench=(python -m translator.cli bench tests/gpu/suite.py --tilegym "$TILEGYM_SRC/tilegym")
# 1. the launch cost again after the changed-globals shortcut (commit baf1d89), same cases as the
#    session's first call
step 70 "launch cost" python tests/gpu/probe_launch_cost.py tg_rms_norm:0 tg_flash_decode:0
# 2. host time per call and do_bench modes of flash_decode B=1 KV=16384 (86.5 us host before)
step 45 "timing modes" python tests/gpu/probe_timing_modes.py tg_flash_decode:1
# 3. the flash_decode entry with this code
step 60 "flash_decode" "${bench[@]}" --only tg_flash_decode --timeout 55 --out "$out/bench"
echo "### done ($(date +%T))" | tee -a "$log"
