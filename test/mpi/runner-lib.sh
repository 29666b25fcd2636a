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
