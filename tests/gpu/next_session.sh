#!/usr/bin/env bash
# GPU experiment (not part of the product): why unsloth geglu/swiglu's large rows are slower by
# CUDA-graph replay than by do_bench on the Triton side, in one call of at most ~5 minutes. From the
# project root on the GPU machine:
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
step 240 "graph replay" python tests/gpu/probe_graph_replay.py tg_unsloth_geglu:1 tg_unsloth_swiglu:1
step 120 "graph replay again" python tests/gpu/probe_graph_replay.py tg_unsloth_swiglu:1
echo "### done ($(date +%T))" | tee -a "$log"
