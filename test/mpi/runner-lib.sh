# shellcheck shell=bash
# Shared by the MPI test runners (sourced, not run).

# find_first FILE DIR... : the first DIR holding FILE, as an absolute path.
find_first() {
    local f=$1 d
    shift
    for d in "$@"; do
        [ -n "$d" ] && [ -e "$d/$f" ] && { (cd "$d" && pwd); return 0; }
    done
    return 1
}

# logged LOG COMMAND... : run COMMAND (stdin from /dev/null) with its stdout,
# then its stderr, in LOG; returns its exit status.  The streams are kept
# apart while it runs: mpirun forwards them separately, and one stream's
# chunks can otherwise land inside a line of the other.
logged() {
    local log=$1 rc
    shift
    "$@" >"$log.out" 2>"$log.err" </dev/null
    rc=$?
    cat "$log.out" "$log.err" >"$log"
    rm -f "$log.out" "$log.err"
    return $rc
}
