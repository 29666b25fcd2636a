#!/bin/bash
#
# run-intercomm-tests.sh: collectives over an intercommunicator
# (test_intercomm) with exactly the coll selection list that the README's
# "Selecting the component" section recommends, read from the README
# itself (its one line "    mpirun --mca coll LIST ..."), so that the two
# cannot drift apart.
# coll/topo serves no intercommunicator, but a list must still leave a
# component that does: without coll/inter, Open MPI 4.1.4 took
# MPI_Scatter over an intercommunicator to coll/basic, which crashed
# (SIGSEGV).  coll/inter in turn runs its calls' local parts as collectives
# of each group's intracommunicator, which coll/topo serves.  A run passes
# when
#   - mpirun exits 0 within the time limit (test_intercomm exits non-zero on
#     any wrong result, on any rank) and the summary says 0 failures;
#   - coll/topo's verbose output shows it served MPI_Allreduce on
#     MPI_COMM_WORLD ("allreduce uses <algorithm>"): the list loaded it.
# One line per run (PASS/FAIL, the command, seconds), then "N passed, M
# failed" alone on the last line.  Exit status: 0 all passed, 1 some failed,
# 77 (skip) without mpirun, 99 when the program, the component or the
# README's line is missing.
#
# Environment (all optional; "make check" sets the TOPO_* paths):
#   TOPO_SRCDIR         the source tree (its README; default: ../.. of here)
#   TOPO_COMPONENT_DIR, TOPO_OMPI_PKGLIBDIR, TOPO_TEST_BUILDDIR,
#   TOPO_MPI_TEST_DIR, MPIRUN, MPIRUN_EXTRA_ARGS   as in run-mpi-tests.sh
#   SIZES               numbers of ranks (default below; those below 2 are skipped)
#   TOPO_TEST_TIMEOUT   seconds allowed per mpirun (default 150)
#   TOPO_TEST_LOGDIR    where to keep the output of failed runs

set -u

SIZES=${SIZES:-"2 3 4 5 8"}
TIMEOUT=${TOPO_TEST_TIMEOUT:-150}
MPIRUN=${MPIRUN:-mpirun}

here=$(cd "$(dirname "$0")" && pwd)
command -v "$MPIRUN" >/dev/null 2>&1 || { echo "SKIP: $MPIRUN not found"; exit 77; }

# shellcheck source=runner-lib.sh
. "$here/runner-lib.sh"

# ---- the README's selection list --------------------------------------------
readme=${TOPO_SRCDIR:-$here/../..}/README
[ -f "$readme" ] || { echo "ERROR: $readme not found (set TOPO_SRCDIR)"; exit 99; }
lines=$(grep -E '^    mpirun --mca coll [^ ]+ \.\.\.$' "$readme")
if [ "$(printf '%s\n' "$lines" | grep -c .)" != 1 ]; then
    echo "ERROR: $readme must hold exactly one line '    mpirun --mca coll LIST ...' (Selecting the component); found:"
    printf '%s\n' "$lines" | sed 's/^/    /'
    exit 99
fi
list=$(printf '%s\n' "$lines" | sed -E 's/^    mpirun --mca coll ([^ ]+) \.\.\.$/\1/')
echo "the README's selection list: $list"

# ---- the program and the component -----------------------------------------
prog_dir=$(find_first test_intercomm "${TOPO_MPI_TEST_DIR:-}" \
    "${TOPO_TEST_BUILDDIR:+$TOPO_TEST_BUILDDIR/mpi}" "$here" ./test/mpi ./mpi) ||
    { echo "ERROR: test_intercomm not found (set TOPO_MPI_TEST_DIR)"; exit 99; }
prog=$prog_dir/test_intercomm
comp_dir=$(find_first mca_coll_topo.so "${TOPO_COMPONENT_DIR:-}" "$here/../../ompi-coll-topo/.libs") ||
    { echo "ERROR: mca_coll_topo.so not found (set TOPO_COMPONENT_DIR)"; exit 99; }
pkglibdir=${TOPO_OMPI_PKGLIBDIR:-$(ompi_info --parsable --path pkglibdir 2>/dev/null |
    sed -n 's/^path:pkglibdir://p')}
[ -d "$pkglibdir" ] || { echo "ERROR: Open MPI's component directory not found"; exit 99; }

launch=("$MPIRUN" --oversubscribe)
[ "$(id -u)" = 0 ] && launch+=(--allow-run-as-root)
# shellcheck disable=SC2206,SC2054 # split on purpose; commas inside values
launch+=(--mca mca_component_path "$comp_dir:$pkglibdir" --mca coll "$list"
    --mca btl self,vader --mca coll_topo_verbose 1 ${MPIRUN_EXTRA_ARGS:-})
logdir=${TOPO_TEST_LOGDIR:-$(mktemp -d "${TMPDIR:-/tmp}/coll-topo-intercomm-tests.XXXXXX")}
mkdir -p "$logdir" || exit 99
npass=0 nfail=0 nrun=0

for np in $SIZES; do
    # an intercommunicator joins two groups: one rank is not enough
    [ "$np" -ge 2 ] || { echo "(size $np skipped: fewer than 2 ranks)"; continue; }
    cmd=("${launch[@]}" -np "$np" "$prog")
    nrun=$((nrun + 1))
    log=$logdir/run-$nrun.log t0=$SECONDS why=()
    logged "$log" timeout -k 10 "$TIMEOUT" "${cmd[@]}"
    rc=$?
    [ $rc = 0 ] || why+=("exit status $rc$([ $rc = 124 ] && echo ": timed out after $TIMEOUT s")")
    grep -Eq "^test_intercomm: $np ranks \(groups of [0-9]+ and [0-9]+\), [1-9][0-9]* calls checked on rank 0, 0 failures on all ranks$" "$log" ||
        why+=("no passing summary")
    grep -Eq "^coll:topo: comm MPI_COMM_WORLD .*: allreduce uses [a-z0-9_]+ \(" "$log" ||
        why+=("no 'allreduce uses' line of coll/topo on MPI_COMM_WORLD: the component did not serve it")
    if [ ${#why[@]} = 0 ]; then
        npass=$((npass + 1))
        echo "PASS: ${cmd[*]} ($((SECONDS - t0)) s)"
        rm -f "$log"
    else
        nfail=$((nfail + 1))
        echo "FAIL: ${cmd[*]} ($((SECONDS - t0)) s): $(printf '%s; ' "${why[@]}")"
        grep -v "^coll:topo: " "$log" | tail -n 25 | sed 's/^/    /'
    fi
done

if [ $nrun = 0 ]; then
    echo "ERROR: SIZES ($SIZES) holds no size of 2 ranks or more: nothing was run"
    exit 99
fi
[ $nfail = 0 ] && rmdir "$logdir" 2>/dev/null || echo "logs of the failed runs: $logdir"
echo "$npass passed, $nfail failed"
[ $nfail = 0 ]
