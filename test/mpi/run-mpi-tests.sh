#!/bin/bash
#
# run-mpi-tests.sh: the MPI tests of coll/topo.
#
# Runs test_allreduce under mpirun with the component built in this tree, for
# every communicator size in SIZES and every algorithm in ALGORITHMS, then a
# few runs with coll_topo_topology set (valid, malformed, and of the wrong
# size) and with an unknown algorithm.  A run passes when
#   - mpirun exits 0 within the time limit (test_allreduce exits non-zero on
#     any wrong result, on any rank),
#   - test_allreduce printed its summary with 0 failures,
#   - and, for more than one rank, coll/topo's verbose output shows that the
#     component served MPI_Allreduce ("allreduce uses <algorithm>"), with the
#     forced algorithm and no other: a component that fails to load is only
#     a warning to Open MPI, and the job would silently run without it.
# One line per run: "PASS: <command> (<seconds> s)" or "FAIL: <command>:
# <reasons>" followed by the end of its output; then the time per size, and
# last "N passed, M failed" alone on a line.
#
# Exit status: 0 all passed, 1 some failed, 77 (skip) without mpirun, 99 when
# the test program or the component cannot be found.
#
# Environment (all optional; "make check" sets the first ones):
#   TOPO_COMPONENT_DIR   directory holding mca_coll_topo.so
#                        (default: ompi-coll-topo/.libs of this source tree)
#   TOPO_OMPI_PKGLIBDIR  Open MPI's component directory
#                        (default: ompi_info --parsable --path pkglibdir)
#   TOPO_TEST_BUILDDIR   test/ of the build tree; test_allreduce is looked for
#                        in $TOPO_TEST_BUILDDIR/mpi
#   TOPO_MPI_TEST_DIR    directory holding test_allreduce (overrides the above)
#   MPIRUN               mpirun to use (default: mpirun)
#   MPIRUN_EXTRA_ARGS    more mpirun options, split on spaces
#   ALGORITHMS           algorithms to force (default below; "auto" = the
#                        component's decision)
#   SIZES                communicator sizes (default below)
#   TOPO_TEST_TIMEOUT    seconds allowed per mpirun (default 300)
#   TOPO_TEST_LOGDIR     where to keep the output of failed runs
#                        (default: a new directory under ${TMPDIR:-/tmp})
#   BIG_COUNT_MAX_SIZE   largest size that runs the biggest count (2^20+3
#                        elements); larger sizes stop at 65537 (default 8)
#   TOPO_TEST_QUICK=1    only sizes 1 2 4 7 and the extra runs

set -u

ALGORITHMS=${ALGORITHMS:-"auto ring recursive_doubling rabenseifner"}
if [ "${TOPO_TEST_QUICK:-0}" = 1 ]; then
    SIZES=${SIZES:-"1 2 4 7"}
else
    SIZES=${SIZES:-"1 2 3 4 5 6 7 8 9 12 16"}
fi
TIMEOUT=${TOPO_TEST_TIMEOUT:-300}
BIG_COUNT_MAX_SIZE=${BIG_COUNT_MAX_SIZE:-8}
MPIRUN=${MPIRUN:-mpirun}

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=runner-lib.sh
. "$here/runner-lib.sh"

if ! command -v "$MPIRUN" >/dev/null 2>&1; then
    echo "SKIP: $MPIRUN not found (set MPIRUN)"
    exit 77
fi

# ---- the test program -----------------------------------------------------
prog=
for d in ${TOPO_MPI_TEST_DIR:-} ${TOPO_TEST_BUILDDIR:+"$TOPO_TEST_BUILDDIR/mpi"} \
    "$here" ./test/mpi ./mpi; do
    if [ -x "$d/test_allreduce" ]; then
        prog=$(cd "$d" && pwd)/test_allreduce
        break
    fi
done
if [ -z "$prog" ]; then
    echo "ERROR: test_allreduce not found (build it, or set TOPO_MPI_TEST_DIR)"
    exit 99
fi

# ---- the component ----------------------------------------------------------
comp_dir=${TOPO_COMPONENT_DIR:-"$here/../../ompi-coll-topo/.libs"}
if [ ! -f "$comp_dir/mca_coll_topo.so" ]; then
    echo "ERROR: $comp_dir/mca_coll_topo.so not found (build it, or set TOPO_COMPONENT_DIR)"
    exit 99
fi
comp_dir=$(cd "$comp_dir" && pwd)
pkglibdir=${TOPO_OMPI_PKGLIBDIR:-}
if [ -z "$pkglibdir" ] && command -v ompi_info >/dev/null 2>&1; then
    pkglibdir=$(ompi_info --parsable --path pkglibdir 2>/dev/null | sed -n 's/^path:pkglibdir://p')
fi
if [ -z "$pkglibdir" ] || [ ! -d "$pkglibdir" ]; then
    echo "ERROR: Open MPI's component directory not found (set TOPO_OMPI_PKGLIBDIR)"
    exit 99
fi

# ---- mpirun -----------------------------------------------------------------
mpirun_base=("$MPIRUN")
if [ "$(id -u)" = 0 ]; then
    mpirun_base+=(--allow-run-as-root)
fi
# every plan derived from another count's is compared with its compilation
# (coll_topo_check_plans: an error, and a failed test, where they differ)
# shellcheck disable=SC2206,SC2054 # split on purpose; commas inside values
mpirun_base+=(--oversubscribe
    --mca mca_component_path "$comp_dir:$pkglibdir"
    --mca coll topo,tuned,inter,basic,libnbc,self
    --mca btl self,vader
    --mca coll_topo_verbose 1
    --mca coll_topo_check_plans 1
    ${MPIRUN_EXTRA_ARGS:-})

timeout_cmd=()
if command -v timeout >/dev/null 2>&1; then
    timeout_cmd=(timeout -k 10 "$TIMEOUT")
fi

logdir=${TOPO_TEST_LOGDIR:-}
if [ -z "$logdir" ]; then
    logdir=$(mktemp -d "${TMPDIR:-/tmp}/coll-topo-mpi-tests.XXXXXX") || exit 99
else
    mkdir -p "$logdir" || exit 99
fi

npass=0
nfail=0
ncase=0
declare -A size_time=()

# run_case NP CHECKS... -- MCA_NAME=VALUE... -- PROGRAM_ARGS...
#   CHECKS: uses=ALG  the component served allreduce with ALG and nothing else
#           uses=any  the component served allreduce with some algorithm
#           served=ALG  as uses=ALG, or the forced ALG handed every call to
#                  the previous module because it does not fit it (the
#                  verbose line says why)
#           topology=TOPO  a communicator used topology TOPO, as given
#           output=TEXT    a line of output other than coll/topo's verbose
#                          lines contains TEXT (a help message)
# Every run also fails when Open MPI could not show one of coll/topo's help
# messages (help file not found).
run_case() {
    local np=$1
    shift
    local checks=()
    while [ $# -gt 0 ] && [ "$1" != -- ]; do
        checks+=("$1")
        shift
    done
    shift
    local mca=()
    while [ $# -gt 0 ] && [ "$1" != -- ]; do
        mca+=(--mca "${1%%=*}" "${1#*=}")
        shift
    done
    [ $# -gt 0 ] && shift

    local cmd=("${mpirun_base[@]}" -np "$np" "${mca[@]}" "$prog" "$@")
    ncase=$((ncase + 1))
    local log="$logdir/run-$ncase.log"
    local t0 t1 rc
    t0=$(date +%s.%N)
    logged "$log" "${timeout_cmd[@]}" "${cmd[@]}"
    rc=$?
    t1=$(date +%s.%N)
    local secs
    secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
    size_time[$np]=$(awk -v a="${size_time[$np]:-0}" -v b="$secs" 'BEGIN { printf "%.1f", a + b }')

    local why=()
    if [ $rc = 124 ] || [ $rc = 137 ]; then
        why+=("timed out after $TIMEOUT s")
    elif [ $rc != 0 ]; then
        why+=("exit status $rc")
    fi
    if ! grep -Eq "^test_allreduce: $np ranks, [1-9][0-9]* MPI_Allreduce calls checked on rank 0, 0 failures" "$log"; then
        why+=("no passing summary from test_allreduce")
    fi
    if grep -q "You were supposed to get help about" "$log"; then
        why+=("a help message could not be shown (help file not found)")
    fi
    local c
    for c in "${checks[@]}"; do
        case $c in
        uses=any)
            grep -Eq "coll:topo: comm .*: allreduce uses [A-Za-z0-9_]+ \(" "$log" ||
                why+=("no 'allreduce uses <algorithm>' line: the component did not serve allreduce")
            ;;
        served=*)
            local alg=${c#served=}
            if ! grep -Eq "coll:topo: comm .*: allreduce uses $alg \(" "$log" &&
                ! grep -Eq "coll:topo: comm .*: allreduce goes to the previous module .*coll_topo_allreduce_algorithm=$alg does not fit" "$log"; then
                why+=("neither 'allreduce uses $alg' nor a 'does not fit' line for $alg")
            fi
            if grep -E "coll:topo: comm .*: allreduce uses " "$log" | grep -Evq "allreduce uses $alg \("; then
                why+=("allreduce used another algorithm than the forced $alg")
            fi
            ;;
        uses=*)
            local alg=${c#uses=}
            grep -Eq "coll:topo: comm .*: allreduce uses $alg \(" "$log" ||
                why+=("no 'allreduce uses $alg' line: the component did not serve allreduce with $alg")
            if grep -E "coll:topo: comm .*: allreduce uses " "$log" | grep -Evq "allreduce uses $alg \("; then
                why+=("allreduce used another algorithm than the forced $alg")
            fi
            ;;
        topology=*)
            grep -Fq ": topology ${c#topology=} (from coll_topo_topology)" "$log" ||
                why+=("no communicator reports 'topology ${c#topology=} (from coll_topo_topology)'")
            ;;
        output=*)
            grep -v "coll:topo: comm " "$log" | grep -Fq -- "${c#output=}" ||
                why+=("no message mentions '${c#output=}'")
            ;;
        esac
    done

    if [ ${#why[@]} = 0 ]; then
        npass=$((npass + 1))
        echo "PASS: ${cmd[*]} ($secs s)"
        rm -f "$log"
    else
        nfail=$((nfail + 1))
        local reasons
        reasons=$(printf '%s; ' "${why[@]}")
        echo "FAIL: ${cmd[*]} ($secs s): ${reasons%; }"
        echo "----- last lines of $log"
        tail -n 25 "$log" | sed 's/^/    /'
        echo "-----"
    fi
}

echo "test program: $prog"
echo "component:    $comp_dir/mca_coll_topo.so"
echo "algorithms:   $ALGORITHMS"
echo "sizes:        $SIZES"

# ---- the matrix: every size, every algorithm ----------------------------------
for np in $SIZES; do
    args=()
    if [ "$np" -gt "$BIG_COUNT_MAX_SIZE" ]; then
        args=(--max-count 65537)
    fi
    for alg in $ALGORITHMS; do
        if [ "$np" = 1 ]; then
            # coll/topo leaves single-rank communicators to the other
            # components, so the algorithm does not matter: one run, results
            # only.
            run_case 1 -- coll_topo_allreduce_algorithm="$alg" -- "${args[@]}"
            break
        fi
        if [ "$alg" = auto ]; then checks=(uses=any); else checks=("uses=$alg"); fi
        run_case "$np" "${checks[@]}" -- coll_topo_allreduce_algorithm="$alg" -- "${args[@]}"
    done
done

# ---- topologies ---------------------------------------------------------------
# These are about the topology, not the message sizes: counts up to 65537.
mid=(--max-count 65537)

# A grid that matches the communicator: the same results, on a grid.
run_case 8 uses=any topology=torus:2x2x2 -- coll_topo_topology=torus:2x2x2 -- "${mid[@]}"
run_case 6 uses=any topology=torus:2x3 -- coll_topo_topology=torus:2x3 -- "${mid[@]}"
run_case 9 uses=any topology=mesh:3x3 -- coll_topo_topology=mesh:3x3 -- "${mid[@]}"
run_case 8 uses=ring topology=torus:2x2x2 -- \
    coll_topo_topology=torus:2x2x2 coll_topo_allreduce_algorithm=ring -- "${mid[@]}"

# The torus algorithms forced on grids that match the communicator (issue 3's
# matrix): each must serve the call, with correct results.
GRID_ALGORITHMS=${GRID_ALGORITHMS:-"swing_lat swing_bw trivance_lat trivance_bw bruck dbt bucket bfb recursive_doubling_mp rabenseifner_mp"}
for grid in 16:torus:4x4 9:torus:3x3 6:torus:2x3 8:torus:2x2x2; do
    np=${grid%%:*}
    topo=${grid#*:}
    for alg in $GRID_ALGORITHMS; do
        run_case "$np" "uses=$alg" "topology=$topo" -- \
            coll_topo_topology="$topo" coll_topo_allreduce_algorithm="$alg" -- "${mid[@]}"
    done
done

# bfb on meshes and unequal tori too: shards cut into 2 (torus:3x5,
# mesh:2x4), 3 (torus:2x8) or 6 (mesh:3x3) parts, so small counts leave
# parts empty.
for grid in 9:mesh:3x3 8:mesh:2x4 15:torus:3x5 16:torus:2x8; do
    np=${grid%%:*}
    topo=${grid#*:}
    run_case "$np" uses=bfb "topology=$topo" -- \
        coll_topo_topology="$topo" coll_topo_allreduce_algorithm=bfb -- "${mid[@]}"
done

# Small segments (coll_topo_segment_size, 200 bytes: messages of 25 doubles,
# 1 of some derived types): many messages per transfer, each applied as it
# arrives where the executor streams a step; the single-lane algorithms and
# a multiport one.
seg=(--max-count 1000)
for np in 3 4 5; do
    for alg in ring recursive_doubling rabenseifner; do
        run_case "$np" "uses=$alg" -- \
            coll_topo_allreduce_algorithm="$alg" coll_topo_segment_size=200 -- "${seg[@]}"
    done
done
run_case 8 uses=recursive_doubling_mp topology=torus:2x2x2 -- coll_topo_topology=torus:2x2x2 \
    coll_topo_allreduce_algorithm=recursive_doubling_mp coll_topo_segment_size=200 -- "${seg[@]}"

# ---- the same bits on every rank -----------------------------------------------
# Sums that round (MPI_SUM of float and double, a user-defined double sum,
# on values that cancel: another grouping gives other bits), with auto and
# with every allreduce algorithm of the catalog forced, on a star and on
# tori: test_allreduce compares every rank's result bit for bit.  Where a
# forced algorithm's ranks would combine in orders of their own it hands
# the call to the previous module and says why (served=ALG).
SAME_BITS_SIZES=${SAME_BITS_SIZES:-"2 3 4 5 6 7 8 9 10 11 12 13 14 15 16"}
SAME_BITS_FORCED_SIZES=${SAME_BITS_FORCED_SIZES:-"2 3 4 5 6 7 8 9 12 16"}
if [ "${TOPO_TEST_QUICK:-0}" = 1 ]; then
    SAME_BITS_SIZES="3 8"
    SAME_BITS_FORCED_SIZES="3 8"
fi
all_algorithms=$(OMPI_MCA_mca_component_path="$comp_dir:$pkglibdir" ompi_info --param coll topo --level 9 --parsable 2>/dev/null |
    sed -n "s/^mca:coll:topo:param:coll_topo_allreduce_algorithm:help:.* or one of: \([a-z0-9_, ]*\)\..*/\1/p" |
    tr -d ',')
if [ -z "$all_algorithms" ]; then
    echo "FAIL: the allreduce algorithms could not be read from ompi_info"
    nfail=$((nfail + 1))
fi
bits=(--rounding-only --max-count 65537 --comms world,reversed)
for np in $SAME_BITS_SIZES; do
    run_case "$np" uses=any -- coll_topo_allreduce_algorithm=auto -- "${bits[@]}"
    [[ " $SAME_BITS_FORCED_SIZES " == *" $np "* ]] || continue
    for alg in $all_algorithms; do
        case $alg in bucket | bfb) continue ;; esac # a grid's: below
        run_case "$np" "served=$alg" -- coll_topo_allreduce_algorithm="$alg" -- "${bits[@]}"
    done
done
for grid in 16:torus:4x4 9:torus:3x3 12:torus:3x4 16:torus:2x8; do
    np=${grid%%:*}
    topo=${grid#*:}
    run_case "$np" uses=any "topology=$topo" -- coll_topo_topology="$topo" -- "${bits[@]}"
    for alg in $all_algorithms; do
        run_case "$np" "served=$alg" "topology=$topo" -- \
            coll_topo_topology="$topo" coll_topo_allreduce_algorithm="$alg" -- "${bits[@]}"
    done
done

# Bad values: a help message, then correct results with the fallback (star
# topology, automatic algorithm).
run_case 4 uses=any output=coll_topo_topology -- coll_topo_topology=torus:4xQ -- "${mid[@]}"
run_case 4 uses=any output=coll_topo_allreduce_algorithm -- \
    coll_topo_allreduce_algorithm=nonesuch -- "${mid[@]}"
run_case 8 uses=any output=coll_topo_topology -- coll_topo_topology=torus:4x4 -- "${mid[@]}"

# ---- summary -----------------------------------------------------------------
echo "time per size (all runs with that many ranks):"
for np in $(printf '%s\n' "${!size_time[@]}" | sort -n); do
    echo "  $np ranks: ${size_time[$np]} s"
done
if [ $nfail = 0 ]; then
    rmdir "$logdir" 2>/dev/null
else
    echo "logs of the failed runs: $logdir"
fi
echo "$npass passed, $nfail failed"
[ $nfail = 0 ]
