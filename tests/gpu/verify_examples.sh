#!/usr/bin/env bash
# On the GPU machine (after `source .gpu/setup.sh`, see ../shared/gpu/README.md):
# verify every example against the original cuTile (gpu_cases x dtypes x seeds 0 1, plus timing),
# and record the original cuTile outputs of the small cases as goldens for CPU CI (thinned:
# translator/harness/golden_thin.py keeps one dtype of each large case).
#   bash tests/gpu/verify_examples.sh OUTDIR [VERIFY_TIMEOUT_S] [RECORD_TIMEOUT_S]
set -u
out=${1:-gpu-out}
vt=${2:-240}
rt=${3:-120}
mkdir -p "$out/reports" "$out/goldens"
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
status=0
for f in examples/[a-z]*.py; do
  n=$(basename "$f" .py)
  timeout "$rt" python3 -m translator verify "$f" --record "$out/goldens/$n" --quiet > "$out/reports/$n.record.txt" 2>&1
  echo "record $n rc=$?"
  python3 -m translator.harness.golden_thin "$out/goldens/$n"   # what tests/cutile_goldens keeps
done
for f in examples/[a-z]*.py; do
  n=$(basename "$f" .py)
  timeout "$vt" python3 -m translator verify "$f" --json "$out/reports/$n.json" --md "$out/reports/$n.md" \
    > "$out/reports/$n.txt" 2> "$out/reports/$n.err"
  rc=$?; [ $rc -ne 0 ] && status=1
  echo "verify $n rc=$rc: $(grep -E '^RESULT' "$out/reports/$n.txt")"
done
exit $status
