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
# Open MPI 4.1.4's mpirun sometimes loses a job's messages together with an
# "ORTE_ERROR_LOG: ... show_help.c" error of its own (seen about once in
# 10-20 runs on a loaded 2-core machine, in all the runners, more often
# where every rank shows the same help message at once); only then, the
# command runs again, up to 4 times in all, with a note on stdout.
logged() {
    local log=$1 rc try
    shift
    for try in 1 2 3 4; do
        "$@" >"$log.out" 2>"$log.err" </dev/null
        rc=$?
        cat "$log.out" "$log.err" >"$log"
        rm -f "$log.out" "$log.err"
        if [ $try = 4 ] || ! grep -q 'ORTE_ERROR_LOG: .*show_help.c' "$log"; then
            break
        fi
        echo "note: retrying after mpirun's own show_help error: $*"
    done
    return $rc
}
