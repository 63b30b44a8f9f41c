#!/usr/bin/env bash
# GPU experiment (not part of the product): the tenth session's last device call, in one call of
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
# 1. why host-bound rows swing from run to run: flush and call device times, host time per call,
#    and 8 alternating do_bench runs per side, unpinned and pinned to one CPU
step 170 "timing modes" python tests/gpu/probe_timing_modes.py tg_rms_norm:1 tg_flash_decode:1 tg_dropout:0
# 2. the host-bound entries with the timing thread pinned (C2T_BENCH_PIN=1)
step 330 "pinned" "${bench[@]}" --only tg_rms_norm tg_flash_decode tg_dropout --env C2T_BENCH_PIN=1 --timeout 160 \
    --out "$out/bench_pin"
echo "### done ($(date +%T))" | tee -a "$log"
