#!/usr/bin/env bash
# GPU experiment (not part of the product): calls back to back without do_bench's L2 flush, for
# cuTile, the translation and variants of its cache hints (unsloth swiglu [8, 4096, 8192] fp16 took
# 371 us by do_bench and 486 back to back on the Triton side, cuTile 379 and 386), in one call of
# at most ~4 minutes. From the project root on the GPU machine:
#
#     source .gpu/setup.sh; bash tests/gpu/next_session.sh "$OUT"; tar czf "$OUT/n.tgz" -C "$OUT" n
#
# Writes OUT/n/next_session.txt.
set -u
out="${1:-next-session-out}/n"
mkdir -p "$out"
export TILEGYM_SRC="${TILEGYM_SRC:-.corpus/src}"
export PYTHONPATH="$PWD:$PWD/$TILEGYM_SRC:${PYTHONPATH:-}"
log="$out/next_session.txt"
source "$(dirname "$0")/steps.sh"     # step SECONDS TITLE COMMAND...
bench=(python -m translator.cli bench tests/gpu/suite.py --tilegym "$TILEGYM_SRC/tilegym")
sweep=(python tests/gpu/sweep_tilegym_options.py)
step 200 "back to back" python tests/gpu/probe_back_to_back.py tg_unsloth_swiglu:1 tg_unsloth_geglu:1
echo "### done ($(date +%T))" | tee -a "$log"
