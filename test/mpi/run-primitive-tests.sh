#!/bin/bash
#
# run-primitive-tests.sh: the MPI tests of every primitive coll/topo serves
# besides allreduce (bcast, reduce, allgather, reduce_scatter(_block),
# alltoall, barrier), with test_primitives.
#
# Every catalog algorithm of every primitive is forced in some run: run k of
# a size forces algorithm k of each primitive at once (a primitive with
# fewer algorithms starts its list again), so max(#algorithms) runs per size
# cover them all; one more run per size lets the automatic decision choose,
# on all six communicators.  A run passes when
#   - mpirun exits 0 within the time limit (test_primitives exits non-zero
#     on any wrong result, on any rank) and the summary says 0 failures;
#   - for more than one rank, coll/topo's verbose output proves that the
#     component served each primitive: "<primitive> uses <algorithm>" with
#     the forced algorithm and no other (or, where the forced algorithm fits
#     no call of the run, its "goes to the previous module ... does not fit" line), and for
#     the automatic run a "<primitive> uses" line of each primitive that has
#     an algorithm (or its coll_topo_handoff line: coll/topo decided to hand
#     the call over, as it does a 2-rank barrier).  A component that fails
#     to load is only a warning to Open MPI, and the job would silently run
#     without it.
# One line per run (PASS/FAIL, the command, seconds), then "N passed, M
# failed" alone on the last line.  Exit status: 0 all passed, 1 some failed,
# 77 (skip) without mpirun, 99 when the program or component is missing.
#
# Environment (all optional; "make check" sets the TOPO_* paths):
#   TOPO_COMPONENT_DIR, TOPO_OMPI_PKGLIBDIR, TOPO_TEST_BUILDDIR,
#   TOPO_MPI_TEST_DIR, MPIRUN, MPIRUN_EXTRA_ARGS   as in run-mpi-tests.sh
#   SIZES               communicator sizes (default below)
#   BIG_SIZES           sizes whose forced runs go up to 65537 elements
#                       (world only, roots first/last/middle); the others
#                       stop at 1000 (world and one more communicator, world
#                       only from 12 ranks: the automatic run covers all six)
#   TOPO_ALGOS_<prim>   the algorithms of <prim> to force (default: the
#                       catalog's, read from ompi_info)
#   TOPO_TEST_TIMEOUT   seconds allowed per mpirun (default 150)
#   TOPO_TEST_LOGDIR    where to keep the output of failed runs

set -u

SIZES=${SIZES:-"1 2 3 4 5 7 8 9 12 16"}
BIG_SIZES=${BIG_SIZES:-"3 8"}
TIMEOUT=${TOPO_TEST_TIMEOUT:-150}
MPIRUN=${MPIRUN:-mpirun}
PRIMS="bcast reduce allgather reduce_scatter alltoall barrier"
COMMS="world dup split reversed cart2d cart3d"

here=$(cd "$(dirname "$0")" && pwd)
command -v "$MPIRUN" >/dev/null 2>&1 || { echo "SKIP: $MPIRUN not found"; exit 77; }

# shellcheck source=runner-lib.sh
. "$here/runner-lib.sh"
prog_dir=$(find_first test_primitives "${TOPO_MPI_TEST_DIR:-}" \
    "${TOPO_TEST_BUILDDIR:+$TOPO_TEST_BUILDDIR/mpi}" "$here" ./test/mpi ./mpi) ||
    { echo "ERROR: test_primitives not found (set TOPO_MPI_TEST_DIR)"; exit 99; }
prog=$prog_dir/test_primitives
comp_dir=$(find_first mca_coll_topo.so "${TOPO_COMPONENT_DIR:-}" "$here/../../ompi-coll-topo/.libs") ||
    { echo "ERROR: mca_coll_topo.so not found (set TOPO_COMPONENT_DIR)"; exit 99; }
pkglibdir=${TOPO_OMPI_PKGLIBDIR:-$(ompi_info --parsable --path pkglibdir 2>/dev/null |
    sed -n 's/^path:pkglibdir://p')}
[ -d "$pkglibdir" ] || { echo "ERROR: Open MPI's component directory not found"; exit 99; }
export OMPI_MCA_mca_component_path="$comp_dir:$pkglibdir"

# The catalog's algorithms of each primitive, from the help text of its
# MCA parameter ("... or one of: a, b, c.  A forced ...").
info=$(ompi_info --param coll topo --level 9 --parsable 2>/dev/null)
declare -A algos=()
max_algos=0
for p in $PRIMS; do
    var=TOPO_ALGOS_$p
    list=${!var:-$(printf '%s\n' "$info" |
        sed -n "s/^mca:coll:topo:param:coll_topo_${p}_algorithm:help:.* or one of: \([a-z0-9_, ]*\)\..*/\1/p" |
        tr -d ',')}
    algos[$p]=$list
    n=$(echo "$list" | wc -w)
    [ "$n" -gt "$max_algos" ] && max_algos=$n
    echo "algorithms of $p: ${list:-(none: every call goes to the previous module)}"
done

launch=("$MPIRUN" --oversubscribe)
[ "$(id -u)" = 0 ] && launch+=(--allow-run-as-root)
# shellcheck disable=SC2206,SC2054 # split on purpose; commas inside values
# coll_topo_check_plans: every plan derived from another count's is
# compared with its compilation (an error, and a failed test, where they differ)
launch+=(--mca coll topo,tuned,inter,basic,libnbc,self --mca btl self,vader
    --mca coll_topo_verbose 1 --mca coll_topo_check_plans 1 ${MPIRUN_EXTRA_ARGS:-})
logdir=${TOPO_TEST_LOGDIR:-$(mktemp -d "${TMPDIR:-/tmp}/coll-topo-prim-tests.XXXXXX")}
mkdir -p "$logdir" || exit 99
npass=0 nfail=0 nrun=0

# served LOG PRIM ALG: why the log does not prove that PRIM ran with ALG
# ("auto": that coll/topo decided its calls: with any algorithm, or by
# handing them to the previous module, coll_topo_handoff, as on 2 ranks a
# barrier always is); prints nothing when it does.
served() {
    local log=$1 p=$2 alg=$3 uses
    uses=$(grep -oE "coll:topo: comm .*: $p uses [a-z0-9_]+ \(" "$log" | sed -E "s/.* uses ([a-z0-9_]+) .*/\1/" | sort -u)
    if [ "$alg" = auto ]; then
        [ -n "$uses" ] || grep -q ": $p goes to the previous module (coll_topo_handoff:" "$log" ||
            echo "no '$p uses <algorithm>' line"
    elif [ -z "$uses" ]; then
        grep -q ": $p goes to the previous module .*coll_topo_${p}_algorithm=$alg does not fit" "$log" ||
            echo "no '$p uses $alg' line"
    elif [ "$uses" != "$alg" ]; then
        echo "$p used $(echo "$uses" | tr '\n' ' ')instead of only $alg"
    fi
}

# run NP "NAME=VALUE ..." "EXPECT" ARGS...: a NAME in $PRIMS forces that
# primitive's algorithm (checked; "auto" leaves the decision to the
# component), any other NAME is an MCA parameter; EXPECT is text that some
# output line other than coll/topo's verbose lines must hold.
run() {
    local np=$1 settings=$2 expect=$3 forced="" mca=() why=() pa
    shift 3
    for pa in $settings; do
        if [[ " $PRIMS " != *" ${pa%%=*} "* ]]; then
            mca+=(--mca "${pa%%=*}" "${pa#*=}")
            continue
        fi
        forced+="$pa "
        [ "${pa#*=}" = auto ] || mca+=(--mca "coll_topo_${pa%%=*}_algorithm" "${pa#*=}")
    done
    local cmd=("${launch[@]}" -np "$np" "${mca[@]}" "$prog" "$@")
    nrun=$((nrun + 1))
    local log=$logdir/run-$nrun.log t0=$SECONDS rc
    logged "$log" timeout -k 10 "$TIMEOUT" "${cmd[@]}"
    rc=$?
    [ $rc = 0 ] || why+=("exit status $rc$([ $rc = 124 ] && echo ": timed out after $TIMEOUT s")")
    grep -Eq "^test_primitives: $np ranks, [1-9][0-9]* calls checked on rank 0, 0 failures" "$log" ||
        why+=("no passing summary")
    [ -z "$expect" ] || grep -v "^coll:topo: " "$log" | grep -Fq -- "$expect" ||
        why+=("no message mentions '$expect'")
    if [ "$np" -gt 1 ]; then
        for pa in $forced; do
            local w
            w=$(served "$log" "${pa%%=*}" "${pa#*=}")
            [ -z "$w" ] || why+=("$w")
        done
    fi
    if [ ${#why[@]} = 0 ]; then
        npass=$((npass + 1))
        echo "PASS: ${cmd[*]} ($((SECONDS - t0)) s)"
        rm -f "$log"
    else
        nfail=$((nfail + 1))
        echo "FAIL: ${cmd[*]} ($((SECONDS - t0)) s): $(printf '%s; ' "${why[@]}")"
        grep -v "^coll:topo: " "$log" | tail -n 15 | sed 's/^/    /'
    fi
}

# The k-th algorithm of every primitive (cycling), as "prim=alg ...".
round() {
    local k=$1 p out=""
    for p in $PRIMS; do
        # shellcheck disable=SC2206
        local l=(${algos[$p]})
        [ ${#l[@]} = 0 ] || out+="$p=${l[$((k % ${#l[@]}))]} "
    done
    echo "$out"
}
# Primitives with algorithms, for the automatic runs.
autos() {
    local p
    for p in $PRIMS; do [ -z "${algos[$p]}" ] || printf '%s=auto ' "$p"; done
}

read -ra comms <<<"$COMMS"
for np in $SIZES; do
    run "$np" "$(autos)" "" --comms "$(echo "$COMMS" | tr ' ' ,)" --max-count 1000
    for ((k = 0; k < max_algos; k++)); do
        if [[ " $BIG_SIZES " == *" $np "* ]]; then
            run "$np" "$(round $k)" "" --comms world --all-roots-max 2
        elif [ "$np" -ge 12 ]; then
            run "$np" "$(round $k)" "" --comms world --max-count 1000
        else
            run "$np" "$(round $k)" "" --comms "world,${comms[$((1 + k % 5))]}" --max-count 1000
        fi
        [ "$np" = 1 ] && break # no module on one rank: the algorithm does not matter
    done
done

# A grid topology (grid-only algorithms become candidates), and a bad value.
run 8 "$(autos) coll_topo_topology=torus:2x2x2" "" --comms world,cart3d --max-count 1000 \
    --all-roots-max 0
# The grid-only algorithms forced on grids that match the communicator:
# each must serve its primitive (reduce_scatter with irregular counts too),
# with correct results.
for grid in 8:torus:2x2x2 6:torus:2x3 9:torus:3x3 8:mesh:2x4; do
    np=${grid%%:*}
    topo=${grid#*:}
    run "$np" "bcast=bucket reduce=bucket reduce_scatter=bucket allgather=bucket alltoall=bucket coll_topo_topology=$topo" "" \
        --prims bcast,reduce,reduce_scatter,reduce_scatter_block,allgather,alltoall --comms world \
        --max-count 1000 --all-roots-max 2
done
# bfb (allgather, reduce_scatter) forced on tori and meshes, unequal ones
# among them: shards cut into parts (nparts 1 on 3x3, 2 on mesh:2x4, 3 on
# 2x2x2 and 2x3, 6 on mesh:3x3), so blocks are empty or uneven at small
# counts.
for grid in 8:torus:2x2x2 6:torus:2x3 9:torus:3x3 8:mesh:2x4 9:mesh:3x3; do
    np=${grid%%:*}
    topo=${grid#*:}
    run "$np" "reduce_scatter=bfb allgather=bfb coll_topo_topology=$topo" "" \
        --prims reduce_scatter,reduce_scatter_block,allgather --comms world \
        --max-count 1000 --all-roots-max 2
done
# Small segments (coll_topo_segment_size, 200 bytes): each alltoall
# message becomes several, all posted in one step by linear.
for alg in pairwise bruck linear; do
    run 5 "alltoall=$alg coll_topo_segment_size=200" "" --prims alltoall --comms world,reversed \
        --max-count 1000
done
run 4 "$(autos) coll_topo_bcast_algorithm=nonesuch" "coll_topo_bcast_algorithm" \
    --comms world --max-count 100

[ $nfail = 0 ] && rmdir "$logdir" 2>/dev/null || echo "logs of the failed runs: $logdir"
echo "$npass passed, $nfail failed"
[ $nfail = 0 ]
