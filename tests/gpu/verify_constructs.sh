#!/usr/bin/env bash
# On the GPU machine: every construct module of tests/gpu/constructs.py, original cuTile vs its
# translation (gpu_cases x dtypes x seeds 0 1, no timing), eight at a time.
#   bash tests/gpu/verify_constructs.sh OUTDIR
set -u
out=${1:-gpu-constructs}
mkdir -p "$out/modules" "$out/reports"
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
python3 tests/gpu/constructs.py "$out/modules" > /dev/null
ls "$out"/modules/*.py | xargs -P 8 -I{} sh -c \
  'n=$(basename {} .py); timeout 120 python3 -m translator verify {} --no-bench --quiet --json '"$out"'/reports/$n.json > '"$out"'/reports/$n.txt 2>&1; echo "$n rc=$? $(grep -E "^RESULT" '"$out"'/reports/$n.txt)"'
