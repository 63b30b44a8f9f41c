# Sourced by the GPU experiment scripts (next_session.sh; earlier ones in docs/gpu-runs/reports.md): `step
# SECONDS TITLE COMMAND...` runs one measurement under its own time limit, so one that hangs cannot take the
# others' time, and appends its output (TileGym's warnings left out) to "$log".
step() {
    local limit=$1 title=$2
    shift 2
    echo "### $title ($(date +%T), limit ${limit}s): $*" | tee -a "$log"
    timeout "$limit" "$@" 2>&1 | grep -v -i "warn\|return is_tile" | tee -a "$log"
}

# start OUT LOGNAME: write into the folder OUT (made here) with the log OUT/LOGNAME; TileGym's src
# ($TILEGYM_SRC, default .corpus/src) and the project on PYTHONPATH; `bench` is the suite command.
start() {
    out=$1
    mkdir -p "$out"
    export TILEGYM_SRC="${TILEGYM_SRC:-.corpus/src}"
    export PYTHONPATH="$PWD:$PWD/$TILEGYM_SRC:${PYTHONPATH:-}"
    log="$out/$2"
    bench=(python -m translator.cli bench tests/gpu/suite.py --tilegym "$TILEGYM_SRC/tilegym")
}
