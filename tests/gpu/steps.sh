# Sourced by the GPU experiment scripts (next_session.sh, open_questions.sh): `step SECONDS TITLE
# COMMAND...` runs one measurement under its own time limit, so one that hangs cannot take the
# others' time, and appends its output (TileGym's warnings left out) to "$log".
step() {
    local limit=$1 title=$2
    shift 2
    echo "### $title ($(date +%T), limit ${limit}s): $*" | tee -a "$log"
    timeout "$limit" "$@" 2>&1 | grep -v -i "warn\|return is_tile" | tee -a "$log"
}
