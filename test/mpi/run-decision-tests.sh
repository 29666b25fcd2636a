#!/bin/bash
#
# run-decision-tests.sh: the MPI tests of what coll/topo's decisions depend
# on (issue 5): size-range rules (coll_topo_<primitive>_rules), the hop
# term of the cost model (coll_topo_hop), the eager/rendezvous switch
# (coll_topo_eager_limit), where a communicator's topology
# comes from (coll_topo_topology, a Cartesian communicator, a coordinates
# file, star), the agreement of the ranks on all of it, and ranks that do
# not all run coll/topo.
#
# A run passes when mpirun exits 0 within the time limit, the program's
# summary says 0 failures (its results are checked on every rank), every
# expected text appears in the output (coll/topo's verbose lines at
# coll_topo_verbose 1 or 2, or a help message) and no forbidden text does.
# The expected verbose lines exist only in the component under test, so a
# passing run also proves that it was loaded.
#
# One line per run (PASS/FAIL, the name, seconds), then "N passed, M
# failed" alone on the last line.  Exit status: 0 all passed, 1 some failed,
# 77 (skip) without mpirun, 99 when a program or the component is missing.
#
# Environment (all optional; "make check" sets the TOPO_* paths):
#   TOPO_COMPONENT_DIR   directory holding mca_coll_topo.so (searched before
#                        Open MPI's own component directory, so that an
#                        older copy installed there does not shadow it)
#   TOPO_OMPI_PKGLIBDIR  Open MPI's component directory
#   TOPO_TEST_BUILDDIR, TOPO_MPI_TEST_DIR   where the test programs are
#   MPIRUN, MPIRUN_EXTRA_ARGS
#   TOPO_TEST_TIMEOUT    seconds allowed per mpirun (default 60)
#   TOPO_TEST_LOGDIR     where to keep the output of failed runs
#   TOPO_IN_TREE=1       the component was built in an Open MPI source tree
#                        (scripts/check-intree.sh), which has no PMIx source

set -u

TIMEOUT=${TOPO_TEST_TIMEOUT:-60}
MPIRUN=${MPIRUN:-mpirun}
here=$(cd "$(dirname "$0")" && pwd)
command -v "$MPIRUN" >/dev/null 2>&1 || { echo "SKIP: $MPIRUN not found"; exit 77; }

# shellcheck source=runner-lib.sh
. "$here/runner-lib.sh"
prog_dir=$(find_first test_cart "${TOPO_MPI_TEST_DIR:-}" \
    "${TOPO_TEST_BUILDDIR:+$TOPO_TEST_BUILDDIR/mpi}" "$here" ./test/mpi ./mpi) ||
    { echo "ERROR: test_cart not found (set TOPO_MPI_TEST_DIR)"; exit 99; }
for p in test_cart test_allreduce test_primitives test_threads test_mixed_types test_first_call; do
    [ -x "$prog_dir/$p" ] || { echo "ERROR: $prog_dir/$p not found"; exit 99; }
done
comp_dir=$(find_first mca_coll_topo.so "${TOPO_COMPONENT_DIR:-}" "$here/../../ompi-coll-topo/.libs") ||
    { echo "ERROR: mca_coll_topo.so not found (set TOPO_COMPONENT_DIR)"; exit 99; }
pkglibdir=${TOPO_OMPI_PKGLIBDIR:-$(ompi_info --parsable --path pkglibdir 2>/dev/null |
    sed -n 's/^path:pkglibdir://p')}
[ -d "$pkglibdir" ] || { echo "ERROR: Open MPI's component directory not found"; exit 99; }
# The first directory holding a component wins: ours first.
export OMPI_MCA_mca_component_path="$comp_dir:$pkglibdir"

launch=("$MPIRUN" --oversubscribe)
[ "$(id -u)" = 0 ] && launch+=(--allow-run-as-root)
# shellcheck disable=SC2206,SC2054 # split on purpose; commas inside values
launch+=(--mca btl self,vader ${MPIRUN_EXTRA_ARGS:-})
no_coll=("${launch[@]}") # for runs that choose their own coll components
# shellcheck disable=SC2054 # commas inside values
launch+=(--mca coll topo,tuned,inter,basic,libnbc,self)
logdir=${TOPO_TEST_LOGDIR:-$(mktemp -d "${TMPDIR:-/tmp}/coll-topo-decision-tests.XXXXXX")}
mkdir -p "$logdir" || exit 99
npass=0 nfail=0 nrun=0
ALLREDUCE=$prog_dir/test_allreduce
PRIMS=$prog_dir/test_primitives
CART=$prog_dir/test_cart
THREADS=$prog_dir/test_threads
MIXED=$prog_dir/test_mixed_types
FIRST=$prog_dir/test_first_call

# check NAME LOG RC SUMMARY-REGEX [+TEXT | -TEXT]...: +TEXT must appear in
# the log, -TEXT must not.
check() {
    local name=$1 log=$2 rc=$3 summary=$4 t why=()
    shift 4
    [ "$rc" = 0 ] || why+=("exit status $rc$([ "$rc" = 124 ] && echo ": timed out after $TIMEOUT s")")
    grep -Eq "$summary" "$log" || why+=("no passing summary")
    for t in "$@"; do
        case $t in
        +*) grep -Fq -- "${t#+}" "$log" || why+=("missing '${t#+}'") ;;
        -*) ! grep -Fq -- "${t#-}" "$log" || why+=("unexpected '${t#-}'") ;;
        esac
    done
    if [ ${#why[@]} = 0 ]; then
        npass=$((npass + 1))
        echo "PASS: $name ($((SECONDS - t0)) s)"
        rm -f "$log"
    else
        nfail=$((nfail + 1))
        echo "FAIL: $name ($((SECONDS - t0)) s): $(printf '%s; ' "${why[@]}")"
        tail -n 15 "$log" | sed 's/^/    /'
    fi
}

summary_of() { # the summary line of a program, for NP ranks
    echo "^$(basename "$1"): $2 ranks, .*[1-9][0-9]* .*calls checked on rank 0, 0 failures"
}

# selected NAME: TOPO_TEST_ONLY=PATTERN (a shell pattern) runs only the
# runs it names; unset, every run
selected() {
    # shellcheck disable=SC2053 # a pattern on purpose
    [[ -z ${TOPO_TEST_ONLY:-} || $1 == $TOPO_TEST_ONLY ]]
}

# run NAME NP "MCA=VALUE ..." "PROGRAM ARGS" [+TEXT | -TEXT]...
run() {
    local name=$1 np=$2 settings=$3 prog=$4 mca=() pa
    shift 4
    selected "$name" || return 0
    for pa in $settings; do mca+=(--mca "${pa%%=*}" "${pa#*=}"); done
    nrun=$((nrun + 1))
    local log=$logdir/run-$nrun.log rc
    t0=$SECONDS
    # shellcheck disable=SC2086 # PROGRAM ARGS split on purpose
    logged "$log" timeout -k 10 "$TIMEOUT" "${launch[@]}" -np "$np" "${mca[@]}" $prog
    rc=$?
    check "$name: -np $np $settings $prog" "$log" "$rc" "$(summary_of "${prog%% *}" "$np")" "$@"
}

# run_mpmd NAME "MCA=VALUE ..." "PROGRAM ARGS" CONTEXT... -- [+TEXT | -TEXT]...
# Each CONTEXT is "NP [VAR=VALUE]": an application context of NP ranks with
# VAR=VALUE (an OMPI_MCA_* variable) in its environment only.
run_mpmd() {
    local name=$1 settings=$2 prog=$3 mca=() apps=() pa np=0 first=1 ctx
    shift 3
    selected "$name" || return 0
    for pa in $settings; do mca+=(--mca "${pa%%=*}" "${pa#*=}"); done
    while [ $# -gt 0 ] && [ "$1" != -- ]; do
        ctx=$1
        shift
        [ $first = 1 ] || apps+=(:)
        first=0
        # shellcheck disable=SC2206
        local c=($ctx)
        apps+=(-np "${c[0]}")
        [ ${#c[@]} -lt 2 ] || apps+=(-x "${c[1]}")
        # shellcheck disable=SC2206
        apps+=($prog)
        np=$((np + c[0]))
    done
    [ $# -gt 0 ] && shift
    nrun=$((nrun + 1))
    local log=$logdir/run-$nrun.log rc
    t0=$SECONDS
    logged "$log" timeout -k 10 "$TIMEOUT" "${launch[@]}" "${mca[@]}" "${apps[@]}"
    rc=$?
    check "$name: $settings ${apps[*]}" "$log" "$rc" "$(summary_of "${prog%% *}" "$np")" "$@"
}

V1="coll_topo_verbose=1"
V2="coll_topo_verbose=2"
# every candidate priced and listed with its price (none pruned)
V2P="coll_topo_verbose=2 coll_topo_prune=0"
# for runs that count calls or fallbacks of another kind: no timing against the
# previous module (coll_topo_autotune, its own runs below), whose verdicts
# depend on the machine's timings
NOAT="coll_topo_autotune=off"
# for runs of 2 ranks on this host that test another path of small bcast
# and reduce calls: no coll_topo_host_handoff, which would take them first
NOHH="coll_topo_host_handoff=none"

# ---- size-range rules ---------------------------------------------------
# Small counts under 1k bytes use the first rule, larger ones the second;
# the non-commutative cases that ring does not fit fall back with the rule
# named in the reason.
run rules 4 "$V1 coll_topo_allreduce_rules=0-1k:recursive_doubling,1k-inf:ring" \
    "$ALLREDUCE --comms world --max-count 2000" \
    "+allreduce uses recursive_doubling (rule 0-1k of coll_topo_allreduce_rules)" \
    "+allreduce uses ring (rule 1k-inf of coll_topo_allreduce_rules)" \
    "+goes to the previous module (rule 1k-inf of coll_topo_allreduce_rules gives ring for" \
    "-auto: cheapest"
# Rules of a rooted primitive, sizes with and without suffixes (the gap
# between the rules is left to auto; its line shows only if auto picks an
# algorithm not yet reported: lines are once per primitive and algorithm).
run rules-bcast 4 "$V1 coll_topo_bcast_rules=0-64:binomial,1k-inf:pipelined_chain" \
    "$PRIMS --prims bcast --comms world --max-count 2000" \
    "+bcast uses binomial (rule 0-64 of coll_topo_bcast_rules)" \
    "+bcast uses pipelined_chain (rule 1k-inf of coll_topo_bcast_rules)"
# "previous": the range's calls go to the previous module (the reason names
# the rule), the others to the rule's algorithm; the results are checked as
# always (the non-commutative calls of 1k-inf fall back as above).
run rules-previous 4 "$V1 coll_topo_allreduce_rules=0-1k:previous,1k-inf:ring" \
    "$ALLREDUCE --comms world,dup --max-count 2000" \
    "+allreduce goes to the previous module (rule 0-1k of coll_topo_allreduce_rules gives the previous module)" \
    "+allreduce uses ring (rule 1k-inf of coll_topo_allreduce_rules)" \
    "-allreduce uses recursive_doubling" "-auto: cheapest"
run rules-previous-barrier 3 "$V1 coll_topo_barrier_rules=0-inf:previous" \
    "$PRIMS --prims barrier,bcast --comms world --max-count 100" \
    "+barrier goes to the previous module (rule 0-inf of coll_topo_barrier_rules gives the previous module)" \
    "+bcast uses" "-barrier uses"
# Groups by communicator size: the world (4 ranks) and the halves of the
# split (2 ranks each) take their own groups, and a size no group holds is
# automatic (rules-groups-none: only a group for 8 ranks).
run rules-groups 4 "$V1 coll_topo_allreduce_rules=2@0-inf:ring;4-8@0-1k:recursive_doubling,1k-inf:previous" \
    "$ALLREDUCE --comms world,split --max-count 2000" \
    "+allreduce uses ring (rule 2@0-inf of coll_topo_allreduce_rules)" \
    "+allreduce uses recursive_doubling (rule 4-8@0-1k of coll_topo_allreduce_rules)" \
    "+allreduce goes to the previous module (rule 4-8@1k-inf of coll_topo_allreduce_rules gives the previous module)" \
    "-allreduce uses recursive_doubling (auto" "-allreduce uses ring (auto"
run rules-groups-none 4 "$V1 coll_topo_allreduce_rules=8@0-inf:ring" \
    "$ALLREDUCE --comms world --max-count 100" \
    "+(auto: cheapest" "-of coll_topo_allreduce_rules" "-is not valid"
# A forced algorithm takes precedence over the rules.
run rules-forced 4 "$V1 coll_topo_allreduce_algorithm=recursive_doubling coll_topo_allreduce_rules=0-inf:ring" \
    "$ALLREDUCE --comms world --max-count 100" \
    "+allreduce uses recursive_doubling (forced by coll_topo_allreduce_algorithm)" \
    "-rule 0-inf"
# A malformed value: the message once, the rules ignored, correct results.
run rules-malformed 4 "$V1 coll_topo_allreduce_rules=0-1k:recursive_doubling,1k:ring" \
    "$ALLREDUCE --comms world --max-count 100" \
    "+The MCA parameter coll_topo_allreduce_rules is not valid" \
    "+expected '-' after the lower bound" \
    "+allreduce uses recursive_doubling (auto: cheapest" "-of coll_topo_allreduce_rules)"
# More ranges than a value may give (64): the value is longer than the
# message's buffer, and the reason still comes in full.
many_rules=$(seq 0 64 | awk '{ printf "%s%d-%d:ring", (NR > 1 ? "," : ""), $1 * 8, $1 * 8 + 8 }')
run rules-too-many 4 "$V1 coll_topo_allreduce_rules=$many_rules" \
    "$ALLREDUCE --comms world --max-count 100" \
    "+The MCA parameter coll_topo_allreduce_rules is not valid" \
    "+Error: too many ranges (at most 64) (item '512-520:ring' at character " \
    "+allreduce uses recursive_doubling (auto: cheapest" "-of coll_topo_allreduce_rules)"
run rules-unknown-algorithm 4 "$V1 coll_topo_reduce_rules=0-inf:nonesuch" \
    "$PRIMS --prims reduce --comms world --max-count 100" \
    "+The MCA parameter coll_topo_reduce_rules is not valid" "+has no algorithm 'nonesuch'" \
    "+reduce uses"
# topo-plan --rules: the decision table of a 2x2x2 torus (with the eager
# limit of shared memory) as the rules of every payload, in a group for 8
# ranks (8@, which the verbose lines name with every rule): the component then
# prices nothing (no decision line at verbose 2), runs the rules' choices,
# and hands a non-commutative call whose rule does not fit to the previous
# module.  (The first call of a large communicator skips its pricing so.)
plan_dir=$(find_first topo-plan "${TOPO_BUILDDIR:+$TOPO_BUILDDIR/tools}" "$prog_dir/../../tools") ||
    { echo "ERROR: topo-plan not found (set TOPO_BUILDDIR)"; exit 99; }
plan_rules=$("$plan_dir/topo-plan" --topology torus:2x2x2 --eager-limit 4032 --rules) ||
    { echo "ERROR: topo-plan --rules failed"; exit 99; }
first_rule=${plan_rules%%,*} last_rule=${plan_rules##*,}
run rules-from-plan 8 "$V2 coll_topo_topology=torus:2x2x2 coll_topo_allreduce_rules=$plan_rules" \
    "$ALLREDUCE --comms world,dup --max-count 70000" \
    "+allreduce uses ${first_rule#*:} (rule ${first_rule%%:*} of coll_topo_allreduce_rules)" \
    "+allreduce uses ${last_rule#*:} (rule ${plan_rules%%@*}@${last_rule%%:*} of coll_topo_allreduce_rules)" \
    "-allreduce decision (root 0" "-allreduce candidate" "-auto: cheapest"

# ---- the hop term -------------------------------------------------------
# On torus:2x4 recursive doubling's partners two columns apart are two hops
# away: its predicted time grows with coll_topo_hop (1 ms per extra hop).
hop_run() {
    local hop=$1
    nrun=$((nrun + 1))
    local log=$logdir/run-$nrun.log
    logged "$log" timeout -k 10 "$TIMEOUT" "${launch[@]}" -np 8 --mca coll_topo_verbose 2 \
        --mca coll_topo_prune 0 --mca coll_topo_topology torus:2x4 --mca coll_topo_hop "$hop" \
        "$ALLREDUCE" --comms world --max-count 1
    echo "rc=$?" >>"$log"
    grep -Eo "allreduce candidate recursive_doubling for 4 bytes: [0-9.]+ us" "$log" | head -n 1 |
        sed -E 's/.*: ([0-9.]+) us/\1/'
    grep -q "^rc=0" "$log" && grep -Eq "$(summary_of "$ALLREDUCE" 8)" "$log" && rm -f "$log"
}
t0=$SECONDS
h0=$(hop_run 0)
h1=$(hop_run 1e-3)
if [ -n "$h0" ] && [ -n "$h1" ] && awk -v a="$h0" -v b="$h1" 'BEGIN { exit !(b >= a + 999) }'; then
    npass=$((npass + 1))
    echo "PASS: hop: recursive_doubling on torus:2x4 predicted $h0 us at hop 0, $h1 us at hop 1e-3 ($((SECONDS - t0)) s)"
else
    nfail=$((nfail + 1))
    echo "FAIL: hop: recursive_doubling on torus:2x4 predicted '$h0' us at hop 0, '$h1' us at hop 1e-3 (expected at least 1000 us more; logs in $logdir)"
fi

# ---- ports per rank -------------------------------------------------------
# One port on torus:2x4 makes the multiport Swing pay for its 2D lanes one
# after the other: its predicted time at 1 MiB grows.
ports_run() {
    nrun=$((nrun + 1))
    local log=$logdir/run-$nrun.log
    # shellcheck disable=SC2086 # $1: mpirun arguments (or none), split on purpose
    logged "$log" timeout -k 10 "$TIMEOUT" "${launch[@]}" -np 8 --mca coll_topo_verbose 2 \
        --mca coll_topo_prune 0 --mca coll_topo_topology torus:2x4 $1 \
        "$ALLREDUCE" --comms world --max-count 131072
    echo "rc=$?" >>"$log"
    grep -Eo "allreduce candidate swing_bw for 52[0-9]{4} bytes: [0-9.]+ us" "$log" | head -n 1 |
        sed -E 's/.*: ([0-9.]+) us/\1/'
    grep -q "^rc=0" "$log" && grep -Eq "$(summary_of "$ALLREDUCE" 8)" "$log" && rm -f "$log"
}
t0=$SECONDS
p0=$(ports_run "")
p1=$(ports_run "--mca coll_topo_ports 1")
if [ -n "$p0" ] && [ -n "$p1" ] && awk -v a="$p0" -v b="$p1" 'BEGIN { exit !(b > a * 1.2) }'; then
    npass=$((npass + 1))
    echo "PASS: ports: swing_bw on torus:2x4 predicted $p0 us with the torus' ports, $p1 us with coll_topo_ports=1 ($((SECONDS - t0)) s)"
else
    nfail=$((nfail + 1))
    echo "FAIL: ports: swing_bw on torus:2x4 predicted '$p0' us with the torus' ports, '$p1' us with coll_topo_ports=1 (expected 1.2 times more; logs in $logdir)"
fi

# ---- numeric parameters out of range ----------------------------------------
# A value outside its parameter's range (negative, NaN, infinite, huge, or
# not a number for the cost model's seconds) is reported once (bad-param,
# naming the parameter, the value and the range) and the default used: the
# decision table and every predicted time of a torus:2x2 are the same as
# with the defaults, and the results are right (the program checks them).
PARAM_PRIMS="allreduce,bcast,reduce"
params_run() { # LOG MCA-ARGS: the run's decision and candidate lines; its output in LOG
    local log=$1
    # shellcheck disable=SC2086 # $2: mpirun arguments (or none), split on purpose
    logged "$log" timeout -k 10 "$TIMEOUT" "${launch[@]}" -np 4 --mca coll_topo_verbose 2 \
        --mca coll_topo_prune 0 --mca coll_topo_topology torus:2x2 $2 \
        "$PRIMS" --prims "$PARAM_PRIMS" --comms world --max-count 70000
    echo "rc=$?" >>"$log"
    grep -E "(decision|candidate) " "$log" | sort
}
params_base=
# params_case NAME "MCA-ARGS" [+TEXT]...: the same lines as with the defaults
params_case() {
    local name=$1 args=$2 have why=() params_log
    shift 2
    selected "params-$name" || return 0
    t0=$SECONDS
    if [ -z "$params_base" ]; then
        nrun=$((nrun + 1))
        params_base=$(params_run "$logdir/run-$nrun.log" "")
    fi
    nrun=$((nrun + 1))
    params_log=$logdir/run-$nrun.log
    have=$(params_run "$params_log" "$args")
    grep -q "^rc=0" "$params_log" || why+=("$(grep "^rc=" "$params_log")")
    grep -Eq "$(summary_of "$PRIMS" 4)" "$params_log" || why+=("no passing summary")
    [ -n "$params_base" ] || why+=("no decision lines with the defaults")
    [ "$have" = "$params_base" ] || why+=("decisions or predictions differ from the defaults'")
    ! grep -Eqi "[^a-z](nan|inf) us" "$params_log" || why+=("a prediction of nan or inf")
    for t in "$@"; do
        grep -Fq -- "${t#+}" "$params_log" || why+=("missing '${t#+}'")
    done
    if [ ${#why[@]} = 0 ]; then
        npass=$((npass + 1))
        echo "PASS: params-$name: $args ($((SECONDS - t0)) s)"
        rm -f "$params_log"
    else
        nfail=$((nfail + 1))
        echo "FAIL: params-$name: $args ($((SECONDS - t0)) s): $(printf '%s; ' "${why[@]}")(log $params_log)"
    fi
}
BADP="The value of the MCA parameter"
params_case alpha-negative "--mca coll_topo_alpha -2e-6" \
    "+$BADP coll_topo_alpha is not a number in its range" "+Value: -2e-6" "+Range: 0 to 1" \
    "+The parameter's default, 2e-06, is used instead"
params_case alpha-nan "--mca coll_topo_alpha nan" \
    "+$BADP coll_topo_alpha is not a number in its range" "+Value: nan" "+Range: 0 to 1"
params_case beta-inf "--mca coll_topo_beta inf" \
    "+$BADP coll_topo_beta is not a number in its range" "+Value: inf" "+Range: 0 to 0.001" \
    "+The parameter's default, 1e-10, is used instead"
params_case gamma-nan-copy-text "--mca coll_topo_gamma -nan --mca coll_topo_copy 1e-10s --mca coll_topo_msg_overhead 1e999" \
    "+$BADP coll_topo_gamma is not a number in its range" "+Value: -nan" \
    "+$BADP coll_topo_copy is not a number in its range" "+Value: 1e-10s" \
    "+$BADP coll_topo_msg_overhead is not a number in its range" "+Value: 1e999"
params_case ports-huge "--mca coll_topo_ports 1000000" \
    "+$BADP coll_topo_ports is not a number in its range" "+Value: 1000000" \
    "+Range: 0 to 1024" "+The parameter's default, 0, is used instead"
params_case sizes-negative "--mca coll_topo_segment_size -1 --mca coll_topo_eager_limit -7 --mca coll_topo_price_ranks -2" \
    "+$BADP coll_topo_segment_size is not a number in its range" "+Value: 18446744073709551615" \
    "+$BADP coll_topo_eager_limit is not a number in its range" "+Value: -7" \
    "+$BADP coll_topo_price_ranks is not a number in its range" "+Value: -2"
# In range, written otherwise than the default: no message, the same numbers.
params_case same-values "--mca coll_topo_alpha 0.000002 --mca coll_topo_beta 1.0e-10 --mca coll_topo_ports 0"
# The same ports in the topology string: its own message (bad-topology).
run params-topology-ports 4 "$V1 coll_topo_topology=torus:2x2,ports=1000000" \
    "$PRIMS --prims allreduce,bcast --comms world --max-count 1000" \
    "+The value of the MCA parameter coll_topo_topology is not valid" \
    "+ports must be an integer between 1 and 1024" "+bcast uses "

# ---- the protocol switch ------------------------------------------------
# Two ranks over vader (eager limit 4096 less 64 bytes of headers):
# recursive doubling sends the whole vector in its one step, so it pays the
# rendezvous from 4033 bytes on and the table hands that range to an
# algorithm of smaller messages; without the switch it keeps it.
run eager-auto 2 "$V2" "$ALLREDUCE --comms world --max-count 1" \
    "+eager limit 4032 bytes, rendezvous +4.000 us per step, +0.500 us within a node): 0-4032 bytes: recursive_doubling, 4033-"
run eager-off 2 "$V2 coll_topo_eager_limit=0" "$ALLREDUCE --comms world --max-count 1" \
    "+eager limit 0 bytes" "-0-4032 bytes: recursive_doubling"

# ---- one decision table for every root (topo_prim_root_free) -------------
# On a star without placement (coll_topo_locality=off), every bcast
# algorithm costs the same from every root, so root 0's table serves all
# roots and no other is built; reduce's order-preserving algorithms follow
# the root's position and build one per root.  Results are checked from
# every root.
run root-free 4 "$V2 coll_topo_locality=off" \
    "$PRIMS --prims bcast,reduce --comms world --max-count 100 --all-roots-max 100" \
    "+bcast decision (root 0," "-bcast decision (root 1," "-bcast decision (root 3," \
    "+reduce decision (root 1," "+reduce decision (root 3,"
# ---- pruning ----------------------------------------------------------------
# On torus:2x4 (no protocol switch) swing_bw's lower bound is above the
# candidates priced before it at every payload: not priced, said as pruned;
# with coll_topo_prune=0 it is priced (topo-plan --topology torus:2x4).
run prune 8 "$V2 coll_topo_topology=torus:2x4 coll_topo_eager_limit=0" \
    "$ALLREDUCE --comms world --max-count 10" \
    "+allreduce candidate swing_bw: excluded (pruned: its lower bound is above"
run prune-off 8 "$V2P coll_topo_topology=torus:2x4 coll_topo_eager_limit=0" \
    "$ALLREDUCE --comms world --max-count 10" \
    "-excluded (pruned" "+allreduce candidate swing_bw for 4 bytes:"

# ---- tables shared by the communicators of a process ---------------------
# A duplicate of MPI_COMM_WORLD has the same inputs (topology, size,
# parameters): it takes world's tables (the table line, no candidate
# priced: no 'excluded' line), where a split of 2 ranks prices its own.
run shared-tables 4 "$V2 coll_topo_locality=off" "$ALLREDUCE --comms world,dup,split --max-count 10" \
    "+comm MPI_COMM_WORLD (cid 0): allreduce candidate bucket: excluded" \
    "+comm dup (cid 3): allreduce decision (root 0, commutative," \
    "+comm dup (cid 3): allreduce decision (root 0, non-commutative," \
    "+comm dup (cid 3): allreduce decision (root 0, exact," \
    "-comm dup (cid 3): allreduce candidate bucket: excluded" \
    "+comm split (cid 4): allreduce candidate bucket: excluded (bucket needs a torus or mesh topology of 2 ranks)" \
    "-(first stage"

# Two stages of pricing on a communicator of more ranks than
# coll_topo_price_ranks: the first calls (at most 4096 bytes) price only
# the candidates that can win up to 4096 bytes, the first call of 8000
# bytes the rest; a duplicate finds both tables priced.  Results are
# checked on every rank at every count, either side of the stage.
run two-stage 8 "$V2 coll_topo_locality=off coll_topo_price_ranks=4" \
    "$ALLREDUCE --comms world,dup --max-count 1000" \
    "+allreduce candidate rabenseifner: excluded (pruned: its lower bound is above a priced candidate's price at every payload up to 4096 bytes)" \
    "+comm MPI_COMM_WORLD (cid 0): allreduce decision (root 0, commutative," \
    "+(first stage: priced for payloads up to 4096 bytes, the first larger call prices the rest)" \
    "+-inf bytes: rabenseifner" \
    "+comm MPI_COMM_WORLD (cid 0): allreduce uses recursive_doubling (auto: cheapest predicted for 4 bytes" \
    "-comm dup (cid 3): allreduce candidate rabenseifner: excluded"
# ... and for every primitive on a torus, rooted ones from every root
# (a table per root and stage), non-commutative operations included
run two-stage-rooted 8 "$V2 coll_topo_locality=off coll_topo_price_ranks=4 coll_topo_topology=torus:2x2x2" \
    "$PRIMS --comms world,reversed --max-count 1000 --all-roots-max 1000" \
    "+reduce decision (root 7, non-commutative, eager limit 4032 bytes, rendezvous +4.000 us per step, +0.500 us within a node): 0-4032 bytes: knomial, 4033-4096 bytes: rabenseifner (first stage" \
    "+comm MPI_COMM_WORLD (cid 0): bcast decision (root 3, exact," \
    "+comm MPI_COMM_WORLD (cid 0): alltoall decision (root 0, exact,"

# coll_topo_price_roots: at most 2 roots get a table (0 and 4 of 5); reduce
# from roots 1 and 2 takes root 0's, from 3 root 4's (topo_price_root),
# and the results, checked from every root, are each root's own
run price-roots 5 "$V2 coll_topo_locality=off coll_topo_price_roots=2" \
    "$PRIMS --prims reduce --comms world --max-count 100 --all-roots-max 100" \
    "+reduce decision (root 0," "+reduce decision (root 4," \
    "-reduce decision (root 1," "-reduce decision (root 2," "-reduce decision (root 3,"

# The memo of repeated calls: reduce and bcast of 40 counts in turn, three
# times around, decide each count once and find the other 80 calls in the
# memo (with one entry per primitive all 120 were decided); the report at
# MPI_Finalize (coll_topo_verbose=2) counts them.
run memo 4 "$V2 coll_topo_locality=off $NOAT" "$PRIMS --comms world --memo-check" \
    "+comm MPI_COMM_WORLD (cid 0): reduce: 120 calls, 80 repeating a remembered call, 40 decided" \
    "+comm MPI_COMM_WORLD (cid 0): bcast: 120 calls, 80 repeating a remembered call, 40 decided"
# 200 counts in turn, four times around: more than the memo's first 64
# entries hold; having replaced twice as many, it grows to 256 and finds
# nearly all calls of the last two rounds (without growing: none).
run memo-grow 4 "$V2 coll_topo_locality=off $NOAT" "$PRIMS --comms world --memo-grow" \
    "+comm MPI_COMM_WORLD (cid 0): reduce: 800 calls, 408 repeating a remembered call, 392 decided (the memo grew to 256 entries)" \
    "+comm MPI_COMM_WORLD (cid 0): bcast: 800 calls, 408 repeating a remembered call, 392 decided (the memo grew to 256 entries)"
# A random sequence of every primitive (test_primitives --random): counts
# from a small pool (repeated with other windows, roots and datatypes) and
# from 0 to 2000 (new, replacing memo entries: 2000 calls per communicator
# make some memos grow), random roots, MPI_IN_PLACE, datatypes and
# operations, every result checked; on a torus and a star of 8 ranks
# (oversubscribed), and on 5 ranks with segmented messages.  The report at
# MPI_Finalize shows the memos in use and grown (without coll_topo_autotune,
# whose verdicts clear a slot's memo; the third run keeps it: verdicts in
# the middle of a random sequence).
RS="$PRIMS --max-count 2000 --random"
MEMO="repeating a remembered call"
run random-sequence 8 "$V2 coll_topo_topology=torus:2x2x2 $NOAT" "$RS 2000 --seed 1 --comms world,split" \
    "+comm MPI_COMM_WORLD (cid 0): reduce: " "+comm split (cid" "+$MEMO" \
    "+decided (the memo grew to 256 entries)"
run random-sequence 8 "$V2 coll_topo_topology=star $NOAT" "$RS 2000 --seed 2 --comms reversed,cart3d" \
    "+comm reversed (cid" "+comm cart3d (cid" "+$MEMO" "+decided (the memo grew to 256 entries)"
run random-sequence 5 "$V2 coll_topo_segment_size=4096" "$RS 2000 --seed 3 --comms world,cart2d" \
    "+comm MPI_COMM_WORLD (cid 0): alltoall: " "+comm cart2d (cid" "+$MEMO" \
    "+(coll_topo_autotune)"

# ---- plans derived from another count's, scratch given back -------------
# A new count of a one-block schedule (binomial bcast and reduce, recursive
# doubling) derives its executor plan from another count's plan;
# coll_topo_check_plans compiles it as well and fails the call where they
# differ (every MPI test runs with it; here the report proves that plans
# were derived: not 0 of them).
DERIVED="derived from another count's"
run derived-plans 5 "$V2 coll_topo_check_plans=1 coll_topo_bcast_algorithm=binomial coll_topo_reduce_algorithm=binomial" \
    "$PRIMS --prims bcast,reduce --comms world --max-count 1000" "+$DERIVED" "-compiled, 0 $DERIVED"
run derived-plans 4 "$V2 coll_topo_check_plans=1 coll_topo_allreduce_algorithm=recursive_doubling" \
    "$ALLREDUCE --comms world --max-count 1000" "+$DERIVED" "-compiled, 0 $DERIVED"
# knomial: steps that receive (reduce) or send up to 3 vectors at once
run derived-plans 6 "$V2 coll_topo_check_plans=1 coll_topo_bcast_algorithm=knomial coll_topo_reduce_algorithm=knomial" \
    "$PRIMS --prims bcast,reduce --comms world --max-count 1000" "+$DERIVED" "-compiled, 0 $DERIVED"
# What a call needs beyond coll_topo_scratch_keep goes back at its end:
# two allreduces of 64 MiB (one in place) leave at most 8 MiB more resident
# memory behind on each rank (33-66 MiB while the scratch stayed); with
# nothing kept, every call that needs scratch allocates it, and remembered
# plans reserve it again, with every result checked.
run scratch-keep 3 "coll_topo_verbose=1 coll_topo_scratch_keep=1048576" \
    "$ALLREDUCE --comms world --max-count 1000 --rss-growth-max 8" "+64 MiB allreduces left" \
    "+: allreduce uses "
run scratch-keep 4 "coll_topo_verbose=1 coll_topo_scratch_keep=0" \
    "$PRIMS --comms world,reversed --max-count 1000" "+: bcast uses " "+: reduce uses " \
    "+: allgather uses " "+: reduce_scatter uses " "+: alltoall uses "
run scratch-keep 4 "coll_topo_verbose=1 coll_topo_scratch_keep=0" \
    "$ALLREDUCE --comms world,reversed --max-count 1000" "+: allreduce uses "

# ---- several threads (MPI_THREAD_MULTIPLE) -------------------------------
# Each of 4 threads calls collectives on its own duplicate of the world,
# first calls included, so that communicators are prepared (topology, the
# parameters' report, the protocol of the cost model, the rules: set once
# per process, under a lock) and decision tables built and shared at once;
# every result checked.  On a torus of 4 ranks with bcast rules, and on a
# star of 3 ranks with derived plans checked.
# (Before, every communicator created after MPI_Init_thread with
# MPI_THREAD_MULTIPLE hung in MPI_Comm_dup: the module's enable agreed with
# an allreduce, inside opal_progress.)
run threads 4 "coll_topo_verbose=1 coll_topo_topology=torus:2x2 coll_topo_bcast_rules=0-2k:binomial" \
    "$THREADS --threads 4 --calls 300" "+4 ranks): topology torus:2x2 (from coll_topo_topology)" \
    "+): allreduce uses " "+): bcast uses binomial (rule 0-2k of coll_topo_bcast_rules)"
run threads 3 "coll_topo_verbose=1 coll_topo_check_plans=1" "$THREADS --threads 4 --calls 300" \
    "+): allreduce uses " "+): reduce uses "

# ---- datatypes that differ between ranks, one type signature ------------
# n contiguous(2, MPI_INT) on some ranks, 2n MPI_INT or n MPI_2INT on
# others: data that only moves goes as the predefined type's elements, so
# every rank cuts the same blocks (before, scatter_allgather, pipelined_chain
# and dbt bcast and swing allgather failed with MPI_ERR_TRUNCATE or wrong
# data).  Automatic, and algorithms that cut the vector forced.
run mixed-types 4 "coll_topo_verbose=1" "$MIXED" "+: bcast uses " "+: allgather uses "
run mixed-types 3 "coll_topo_verbose=1" "$MIXED --max-count 1000" "+: alltoall uses "
run mixed-types 4 "coll_topo_verbose=1 coll_topo_bcast_algorithm=scatter_allgather coll_topo_allgather_algorithm=swing coll_topo_alltoall_algorithm=bruck" \
    "$MIXED --max-count 1000" "+: bcast uses scatter_allgather" "+: allgather uses swing"
run mixed-types 4 "coll_topo_verbose=1 coll_topo_bcast_algorithm=dbt coll_topo_allgather_algorithm=ring coll_topo_alltoall_algorithm=pairwise" \
    "$MIXED --max-count 1000" "+: bcast uses dbt" "+: allgather uses ring"
run mixed-types 5 "coll_topo_verbose=1 coll_topo_bcast_algorithm=pipelined_chain coll_topo_segment_size=4096" \
    "$MIXED --max-count 3000" "+: bcast uses pipelined_chain"

# ---- handoff of one-message calls (coll_topo_handoff) --------------------
# Two ranks: bcast and reduce of at most the eager limit (4032 bytes) are
# one message, barrier, allgather and alltoall one exchange, which the
# previous module sends; larger calls, reduce_scatter (not in the default
# set), three ranks, a forced algorithm, a rule or an empty set
# keep coll/topo.  Results are checked on every rank in every case.
HO="coll_topo_handoff: on 2 ranks binomial is one message per rank, of at most 4032 bytes"
TU="of at most 4032 bytes (the eager limit), which the previous module (coll/tuned) sends"
run handoff-default 2 "$V1 $NOAT $NOHH" "$PRIMS --comms world,dup --max-count 2000" \
    "+bcast goes to the previous module ($HO" \
    "+reduce goes to the previous module ($HO" \
    "+allgather goes to the previous module (coll_topo_handoff: on 2 ranks trivance is one message per rank, $TU" \
    "+alltoall goes to the previous module (coll_topo_handoff: on 2 ranks pairwise is one message per rank, $TU" \
    "+barrier goes to the previous module (coll_topo_handoff: on 2 ranks dissemination is one message per rank, $TU" \
    "+bcast uses binomial (auto" "+reduce uses binomial (auto" "+allgather uses" \
    "+alltoall uses" "+reduce_scatter uses" "-reduce_scatter goes to the previous module" \
    "-barrier uses"
# Without tuned behind coll/topo, an exchange stays with coll/topo (coll/basic
# sends a 2-rank barrier or allgather as two messages in turn); bcast and
# reduce, one message whoever sends it, are still handed over.
saved_launch=("${launch[@]}")
# shellcheck disable=SC2054 # commas inside values
launch=("${no_coll[@]}" --mca coll topo,basic,libnbc,self)
run handoff-basic 2 "$V1 $NOAT $NOHH" "$PRIMS --comms world,dup --max-count 10" \
    "+bcast goes to the previous module ($HO (the eager limit), which the previous module (coll/basic) sends" \
    "+reduce goes to the previous module ($HO (the eager limit), which the previous module (coll/basic) sends" \
    "+barrier uses" "+allgather uses" "+alltoall uses" "-barrier goes to the previous module" "-allgather goes to the previous module" \
    "-alltoall goes to the previous module"
launch=("${saved_launch[@]}")
run handoff-none 2 "$V1 coll_topo_handoff=none $NOHH" "$PRIMS --comms world --max-count 10" \
    "+bcast uses binomial (auto" "+reduce uses binomial (auto" "+barrier uses" "+allgather uses" \
    "+alltoall uses" "-coll_topo_handoff:"
run handoff-every-primitive 2 "$V1 coll_topo_handoff=allreduce,reduce_scatter,allgather,bcast,reduce,alltoall,barrier" \
    "$PRIMS --comms world --max-count 10" \
    "+allgather goes to the previous module (coll_topo_handoff:" \
    "+alltoall goes to the previous module (coll_topo_handoff:" \
    "+barrier goes to the previous module (coll_topo_handoff:" "- uses "
run handoff-three-ranks 3 "$V1" "$PRIMS --comms world --max-count 10" \
    "+bcast uses knomial (auto" "+reduce uses knomial (auto" "+barrier uses" "+allgather uses" \
    "+alltoall uses" "-coll_topo_handoff:"
run handoff-forced 2 "$V1 coll_topo_bcast_algorithm=binomial $NOHH" \
    "$PRIMS --prims bcast,reduce --comms world --max-count 10" \
    "+bcast uses binomial (forced" "+reduce goes to the previous module ($HO" \
    "-bcast goes to the previous module"
run handoff-rule 2 "$V1 coll_topo_reduce_rules=0-inf:binomial" \
    "$PRIMS --prims reduce --comms world --max-count 10" \
    "+reduce uses binomial (rule 0-inf" "-coll_topo_handoff:"
run handoff-malformed 2 "$V1 coll_topo_handoff=bcast,,reduce $NOHH" \
    "$PRIMS --prims bcast,reduce --comms world --max-count 10" \
    "+The value of the MCA parameter coll_topo_handoff is not valid" "+an empty item in the list" \
    "+Using the default \"allgather,bcast,reduce,alltoall,barrier\"" "+bcast goes to the previous module ($HO"

# ---- timing against the previous module (coll_topo_autotune) -------------
# Random sequences of every primitive on odd and even communicators (world,
# a split, the reversed order), with repeated payload classes: the verdicts
# are reached at the same call on every rank (a rank that disagreed would
# hang in the verdict's allreduce or the barriers) and the results are
# checked on every rank before, during and after the timing.  The margin
# makes the verdicts certain: -0.999 hands every timed class to the
# previous module (the calls after it fall back, naming the verdict), 1000
# keeps every class in coll/topo.
ATP="hands these calls to the previous module (coll_topo_autotune)"
ATK="keeps them (coll_topo_autotune)"
run autotune-previous 5 "$V1 coll_topo_autotune=all coll_topo_autotune_margin=-0.999" \
    "$PRIMS --comms world,split,reversed --random 1200 --max-count 100" \
    "+bcast, payloads of" "+reduce, payloads of" "+allgather, payloads of" \
    "+alltoall, payloads of" "+barrier, payloads of 0 bytes: coll/topo (" "+$ATP" \
    "+goes to the previous module (coll_topo_autotune: the previous module was faster than" \
    "-$ATK" "-bcast goes to the previous module (coll_topo_autotune"
# (a bcast class handed over goes to the previous module at the entry, by
# its payload alone: no fallback line; with a rule for the communicator's
# size, whose calls the class may share, through the memo: the line shows,
# and the rule's calls stay with their algorithm)
run autotune-rule 4 "$V1 coll_topo_autotune_margin=-0.999 coll_topo_bcast_rules=0-64:binomial" \
    "$PRIMS --prims bcast --comms world --random 400 --max-count 100" \
    "+bcast uses binomial (rule 0-64" "+bcast goes to the previous module (coll_topo_autotune"
run autotune-keep 4 "$V1 coll_topo_autotune=all coll_topo_autotune_margin=1000" \
    "$PRIMS --comms world,split --random 1500 --max-count 100" \
    "+$ATK" "+reduce_scatter_block, payloads of" "-$ATP" "-coll_topo_autotune:"
# exact (the default): MPI_SUM of doubles is not timed (another algorithm
# would round differently), the data movers are; all: both are.
run autotune-exact 4 "$V1 coll_topo_autotune_margin=-0.999" \
    "$PRIMS --prims bcast,reduce,reduce_scatter_block --comms world --random 400 --max-count 100 --float-sums" \
    "+bcast, payloads of" "-reduce, payloads of" "-reduce_scatter_block, payloads of"
run autotune-all-sums 4 "$V1 coll_topo_autotune=all coll_topo_autotune_margin=-0.999" \
    "$PRIMS --prims reduce,reduce_scatter_block --comms world --random 400 --max-count 100 --float-sums" \
    "+reduce, payloads of" "+reduce_scatter_block, payloads of" "+$ATP"
run autotune-off 4 "$V1 coll_topo_autotune=off coll_topo_autotune_margin=-0.999" \
    "$PRIMS --comms world --random 400 --max-count 100" "+bcast uses " "-coll_topo_autotune"
# A forced algorithm and a rule are the user's choice: never timed.
run autotune-forced 4 "$V1 coll_topo_autotune=all coll_topo_autotune_margin=-0.999 coll_topo_bcast_algorithm=binomial coll_topo_reduce_rules=0-inf:binomial" \
    "$PRIMS --prims bcast,reduce --comms world --random 400 --max-count 100" \
    "+bcast uses binomial (forced" "+reduce uses binomial (rule 0-inf" "-coll_topo_autotune"
# One call as usual, then one timed call per side after the warm-up: the
# verdict at the fifth call of a class.
run autotune-one-call 3 "$V1 coll_topo_autotune_calls=1 coll_topo_autotune_margin=-0.999" \
    "$PRIMS --prims bcast,allgather --comms world --random 100 --max-count 20" \
    "+(the slowest rank's mean of 1 call each): $ATP"
run autotune-bad-values 3 "$V1 coll_topo_autotune_calls=0 coll_topo_autotune_margin=-2" \
    "$PRIMS --prims bcast --comms world --random 100 --max-count 20" \
    "+The value of the MCA parameter coll_topo_autotune_calls is not a number in its range" \
    "+Range: 1 to 1000" "+The parameter's default, 8, is used instead" \
    "+The value of the MCA parameter coll_topo_autotune_margin is not a number in its range" \
    "+Range: above -1 up to 1e+06" "+The parameter's default, 0, is used instead"
# An unknown mode: Open MPI's own message for the enum, and the default.
run autotune-bad-mode 3 "$V1 coll_topo_autotune=sometimes coll_topo_autotune_margin=-0.999" \
    "$PRIMS --prims bcast --comms world --random 200 --max-count 50" \
    "+Variable     : coll_topo_autotune" "+$ATP"
# The ranks must agree on it: one rank without timing would hang the
# others in the barriers, so the whole communicator goes to the previous module.
run_mpmd autotune-disagree "$V1" "$PRIMS --prims bcast --comms world --random 100 --max-count 20" \
    "2" "1 OMPI_MCA_coll_topo_autotune=off" -- \
    "+bcast goes to the previous module (the ranks" "-coll_topo_autotune"

# ---- topology sources ----------------------------------------------------
# Cartesian communicators, periodic, not, and mixed; MPI_COMM_WORLD of the
# same run has no topology of its own (star).
run cart-torus-2d 4 "$V1" "$CART --dims 2x2 --periods 1,1" \
    "+comm cart (cid" "+topology torus:2x2 (from cartesian communicator)" \
    "+comm MPI_COMM_WORLD (cid 0, 4 ranks): topology star (from auto"
run cart-mesh-2d 4 "$V1" "$CART --dims 4x1 --periods 0,0" \
    "+topology mesh:4x1 (from cartesian communicator)"
run cart-torus-3d 8 "$V1" "$CART --dims 2x2x2 --periods 1,1,1" \
    "+topology torus:2x2x2 (from cartesian communicator)"
run cart-mesh-3d 8 "$V1" "$CART --dims 2x2x2 --periods 0,0,0" \
    "+topology mesh:2x2x2 (from cartesian communicator)"
run cart-mixed 6 "$V1" "$CART --dims 3x2 --periods 0,1" \
    "+topology torus:3x2 (from cartesian communicator; its periods 0,1 are mixed: named torus by majority"
# coll_topo_topology, when set, comes before the communicator's own grid.
run cart-param-first 4 "$V1 coll_topo_topology=mesh:4" "$CART --dims 2x2 --periods 1,1" \
    "+comm cart (cid" "+topology mesh:4 (from coll_topo_topology)" "-from cartesian communicator"

# Coordinates files.  Within one machine every rank names its own host with
# coll_topo_coords_host (an application context per rank).
cdir=$(mktemp -d "${TMPDIR:-/tmp}/coll-topo-coords.XXXXXX") || exit 99
printf '# a 2x2 torus\ntorus:2x2\nn0 0 0\nn1 0 1   # comment\n\nn2 1 0\nn3 1 1\n' >"$cdir/good"
printf 'torus:2x2\nn0 0 0\nn1 1 0\nn2 0 1\nn3 1 1\n' >"$cdir/scattered"
printf 'torus:2x2\nn0 0 0\nn1 0 1\nn2 1 5\nn3 1 1\n' >"$cdir/bad"
printf 'mesh:2x2\n%s 0 0\n' "$(hostname)" >"$cdir/onehost"
four=("1 OMPI_MCA_coll_topo_coords_host=n0" "1 OMPI_MCA_coll_topo_coords_host=n1"
    "1 OMPI_MCA_coll_topo_coords_host=n2" "1 OMPI_MCA_coll_topo_coords_host=n3")
run_mpmd coords-grid "$V1 coll_topo_coords_file=$cdir/good" \
    "$ALLREDUCE --comms world,split --max-count 100" "${four[@]}" -- \
    "+comm MPI_COMM_WORLD (cid 0, 4 ranks): topology torus:2x2 (from coordinates file $cdir/good)" \
    "+comm split (cid" "+topology torus:2x2 (from coordinates file $cdir/good, placed: 2 ranks on 2 of 4 nodes)"
run_mpmd coords-scattered "$V1 coll_topo_coords_file=$cdir/scattered" \
    "$ALLREDUCE --comms world --max-count 100" "${four[@]}" -- \
    "+topology torus:2x2 (from coordinates file $cdir/scattered, placed: 4 ranks on 4 of 4 nodes)"
# Two ranks per host on two of the four hosts: placed, the ranks of a host
# priced at the intra-host parameters.
two=("2 OMPI_MCA_coll_topo_coords_host=n0" "2 OMPI_MCA_coll_topo_coords_host=n3")
run_mpmd coords-two-per-host "$V1 coll_topo_coords_file=$cdir/good" \
    "$ALLREDUCE --comms world,split --max-count 100" "${two[@]}" -- \
    "+topology torus:2x2 (from coordinates file $cdir/good, placed: 4 ranks on 2 of 4 nodes)"
run_mpmd coords-malformed "$V1 coll_topo_coords_file=$cdir/bad" \
    "$ALLREDUCE --comms world --max-count 100" "${four[@]}" -- \
    "+The coordinates file given in the MCA parameter coll_topo_coords_file" \
    "+Line:  4" "+coordinate '5' is not an integer within the shape" \
    "+topology star (from coordinates file $cdir/bad: not usable on every rank"
run_mpmd coords-missing-host "$V1 coll_topo_coords_file=$cdir/good" \
    "$ALLREDUCE --comms world --max-count 100" "3 OMPI_MCA_coll_topo_coords_host=n1" "1 OMPI_MCA_coll_topo_coords_host=n9" -- \
    "+this process's host 'n9' has no line" \
    "+topology star (from coordinates file $cdir/good: not usable on every rank"
# Seven ranks in the file's order on a ring of 7: the positions, gathered
# by coll/topo's own allgather on a size that is not a power of two, come
# back in rank order (the whole grid in order: no "placed").
printf 'torus:7\nn0 0\nn1 1\nn2 2\nn3 3\nn4 4\nn5 5\nn6 6\n' >"$cdir/seven"
seven=()
for i in 0 1 2 3 4 5 6; do seven+=("1 OMPI_MCA_coll_topo_coords_host=n$i"); done
run_mpmd coords-seven "$V1 coll_topo_coords_file=$cdir/seven" "$FIRST" "${seven[@]}" -- \
    "+comm MPI_COMM_WORLD (cid 0, 7 ranks): topology torus:7 (from coordinates file $cdir/seven)" \
    "-placed"
# Names that are not regular text files: reported without being read (a
# device never ends, a FIFO without a writer blocks), the communicator is a
# star, the results are right and nothing hangs (run under timeout).
mkfifo "$cdir/fifo" || exit 99
mkdir "$cdir/dir" || exit 99
truncate -s 65M "$cdir/big" || exit 99 # sparse: above the 64 MiB read at most
printf 'torus:2x2\nn0 0 0\nn1 0 1\0\nn2 1 0\nn3 1 1\n' >"$cdir/nul"
for c in "/dev/zero|it is a character device; only a regular file is read" \
    "$cdir/fifo|it is a FIFO (named pipe); only a regular file is read" \
    "$cdir/dir|it is a directory; only a regular file is read" \
    "$cdir/big|it has 68157440 bytes, more than the 67108864 read at most" \
    "$cdir/nul|it contains NUL bytes (it is not a text file)"; do
    f=${c%%|*}
    run_mpmd "coords-not-text-$(basename "$f")" "$V1 coll_topo_coords_file=$f" \
        "$ALLREDUCE --comms world --max-count 100" "${four[@]}" -- \
        "+The coordinates file given in the MCA parameter coll_topo_coords_file" \
        "+${c#*|}" "+topology star (from coordinates file $f" "+not usable on every rank"
done
# PMIx (source 4): mpirun publishes no fabric coordinates, so the source
# says so and the communicator is a star; coll_topo_pmix=0 skips it.  (The
# positive path needs a resource manager that publishes them: reserved
# PMIx keys cannot be put by the processes themselves.)
pmix_text="PMIx: no fabric coordinates published for this process"
if [ -n "${TOPO_BUILDDIR:-}" ] && [ -f "$TOPO_BUILDDIR/topo_config.h" ] &&
    ! grep -q "define TOPO_HAVE_PMIX 1" "$TOPO_BUILDDIR/topo_config.h"; then
    pmix_text="PMIx: coll/topo was built without PMIx"
elif [ "${TOPO_IN_TREE:-0}" = 1 ]; then
    pmix_text="PMIx: coll/topo was built without PMIx (built in an Open MPI source tree"
fi
run pmix-none 2 "$V1" "$ALLREDUCE --comms world --max-count 10" \
    "+topology star (from auto: no coll_topo_topology, not a cartesian communicator, no coll_topo_coords_file; $pmix_text"
run pmix-off 2 "$V1 coll_topo_pmix=0" "$ALLREDUCE --comms world --max-count 10" \
    "+PMIx: not consulted (coll_topo_pmix is 0)"
# The node's own name, four ranks on it: all on one node of the grid.
run coords-one-host 4 "$V1 coll_topo_coords_file=$cdir/onehost" \
    "$ALLREDUCE --comms world --max-count 100" \
    "+topology mesh:2x2 (from coordinates file $cdir/onehost, placed: 4 ranks on 1 of 4 nodes)"
# Two ranks on one host: every message is intra-host, priced at
# coll_topo_intra_alpha (1 ms here: about 1000 us for 4 bytes, the one
# step of recursive doubling), or at coll_topo_alpha (2 us) when it is 0.
run intra-alpha 2 "$V2P coll_topo_coords_file=$cdir/onehost coll_topo_intra_alpha=1e-3" \
    "$ALLREDUCE --comms world --max-count 1" \
    "+allreduce candidate recursive_doubling for 4 bytes: 1000.3"
run intra-alpha-network 2 "$V2P coll_topo_coords_file=$cdir/onehost coll_topo_intra_alpha=0" \
    "$ALLREDUCE --comms world --max-count 1" \
    "+allreduce candidate recursive_doubling for 4 bytes: 2.3"
# A star's hosts (coll_topo_locality): the ranks on this machine are on one
# host, priced at the intra-host parameters (1 ms here) with no further
# collective; hosts named per application context (two ranks on each of
# two hosts, or every rank a host of its own: the plain star).  CI machines
# have 2 processors, so runs of more ranks are oversubscribed: auto then
# leaves the star plain, and `always` applies the hosts anyway.
run locality-one-host 2 "$V2P coll_topo_intra_alpha=1e-3" "$ALLREDUCE --comms world --max-count 100" \
    "+topology star (from auto: no coll_topo_topology" "+; coll_topo_locality: 2 ranks on 1 host)" \
    "+allreduce candidate recursive_doubling for 4 bytes: 1000.3"
run locality-always 4 "$V2P coll_topo_locality=always coll_topo_intra_alpha=1e-3" \
    "$ALLREDUCE --comms world,split --max-count 100" \
    "+; coll_topo_locality: 4 ranks on 1 host)" "+comm split (cid" "+; coll_topo_locality: 2 ranks on 1 host)" \
    "+allreduce candidate recursive_doubling for 4 bytes: 2000.6"
run locality-off 2 "$V2P coll_topo_locality=off coll_topo_intra_alpha=1e-3" \
    "$ALLREDUCE --comms world --max-count 1" \
    "-coll_topo_locality:" "+allreduce candidate recursive_doubling for 4 bytes: 2.3"
run locality-star-param 2 "$V1 coll_topo_topology=star" "$ALLREDUCE --comms world --max-count 10" \
    "+topology star (from coll_topo_topology; coll_topo_locality: 2 ranks on 1 host)"
# More ranks than this machine has processors (the test needs fewer than
# 16 processors to mean anything): auto does not apply the hosts.
if [ "$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 64)" -lt 16 ]; then
    run locality-oversubscribed 16 "$V1" "$ALLREDUCE --comms world --max-count 10" \
        "+; coll_topo_locality: not applied, a host runs more ranks than it has processors"
fi
# Two hosts of two ranks: recursive doubling's first step stays on the
# hosts (1 ms), its second crosses the switch (2 us).
run_mpmd locality-two-hosts "$V2P coll_topo_locality=always coll_topo_intra_alpha=1e-3" \
    "$ALLREDUCE --comms world,split,reversed --max-count 100" \
    "2 OMPI_MCA_coll_topo_coords_host=h0" "2 OMPI_MCA_coll_topo_coords_host=h1" -- \
    "+; coll_topo_locality: 4 ranks on 2 hosts)" \
    "+allreduce candidate recursive_doubling for 4 bytes: 1002.6"
run_mpmd locality-every-host "$V1 coll_topo_locality=always" "$ALLREDUCE --comms world --max-count 100" \
    "1 OMPI_MCA_coll_topo_coords_host=h0" "1 OMPI_MCA_coll_topo_coords_host=h1" \
    "1 OMPI_MCA_coll_topo_coords_host=h2" -- \
    "+comm MPI_COMM_WORLD (cid 0, 3 ranks): topology star (from auto" "-coll_topo_locality:"
# A value that is not off, auto or always: Open MPI refuses it, and the
# default applies.
run locality-bad 2 "$V1 coll_topo_locality=sometimes" "$ALLREDUCE --comms world --max-count 10" \
    "+Variable     : coll_topo_locality" "+; coll_topo_locality: 2 ranks on 1 host)"
# coll_topo_host_handoff: on one host (locality `always`, as this machine
# oversubscribes 4 ranks), bcast below 4 KiB and reduce below 64 KiB go
# to the previous module, larger payloads to coll/topo; results checked
# on world, a split and a reversed communicator.
HH="+bcast goes to the previous module (coll_topo_host_handoff: the 4 ranks share one host, where bcast of less than 4k bytes"
HR="+reduce goes to the previous module (coll_topo_host_handoff: the 4 ranks share one host, where reduce of less than 64k bytes"
run host-handoff 4 "$V1 coll_topo_locality=always $NOAT" \
    "$PRIMS --prims bcast,reduce --comms world,split,reversed --max-count 70000" \
    "$HH" "$HR" "+comm MPI_COMM_WORLD (cid 0): bcast uses" "+comm MPI_COMM_WORLD (cid 0): reduce uses" \
    "+the 2 ranks share one host, where reduce of less than 64k bytes"
# none: the cost model decides every call
run host-handoff-none 4 "$V1 coll_topo_locality=always coll_topo_host_handoff=none $NOAT" \
    "$PRIMS --prims bcast,reduce --comms world --max-count 100" \
    "-coll_topo_host_handoff" "+bcast uses" "+reduce uses"
# other limits: bcast below 64 KiB, allgather below 64 bytes (its payload:
# all ranks' data, 16 to 128 bytes here), reduce none
run host-handoff-limits 4 "$V1 coll_topo_locality=always coll_topo_host_handoff=bcast:64k,allgather:64 $NOAT" \
    "$PRIMS --prims bcast,reduce,allgather --comms world --max-count 100" \
    "+where bcast of less than 64k bytes goes to the previous module" \
    "+where allgather of less than 64 bytes goes to the previous module" "+allgather uses" \
    "-where reduce of less than" "+reduce uses" "-bcast uses"
# a forced algorithm, and rules for the communicator's size (here not
# covering the small payloads), keep the calls in coll/topo
run host-handoff-forced 4 "$V1 coll_topo_locality=always coll_topo_reduce_algorithm=binomial $NOAT" \
    "$PRIMS --prims bcast,reduce --comms world --max-count 100" \
    "+reduce uses binomial (forced by coll_topo_reduce_algorithm)" "-where reduce of less than" "$HH"
run host-handoff-rules 4 "$V1 coll_topo_locality=always coll_topo_bcast_rules=4@1m-inf:binomial $NOAT" \
    "$PRIMS --prims bcast,reduce --comms world --max-count 100" \
    "+bcast uses" "-where bcast of less than" "$HR"
# not on two hosts, nor with locality off
run_mpmd host-handoff-two-hosts "$V1 coll_topo_locality=always $NOAT" \
    "$PRIMS --prims bcast,reduce --comms world --max-count 100" \
    "2 OMPI_MCA_coll_topo_coords_host=h0" "2 OMPI_MCA_coll_topo_coords_host=h1" -- \
    "+; coll_topo_locality: 4 ranks on 2 hosts)" "-coll_topo_host_handoff" "+bcast uses" "+reduce uses"
run host-handoff-locality-off 4 "$V1 coll_topo_locality=off $NOAT" \
    "$PRIMS --prims bcast,reduce --comms world --max-count 100" "-coll_topo_host_handoff" \
    "+reduce uses"
# a malformed value: reported once, the default used
run host-handoff-bad 4 "$V1 coll_topo_locality=always coll_topo_host_handoff=reduce:lots $NOAT" \
    "$PRIMS --prims bcast,reduce --comms world --max-count 100" \
    "+The value of the MCA parameter coll_topo_host_handoff is not valid" \
    "+'reduce:lots': the bytes are not a size" "+Using the default \"bcast:4k,reduce:64k\"." "$HH" "$HR"
# on an oversubscribed host (fewer than 4 processors here), auto does not
# place the ranks: no handoff
if [ "$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 64)" -lt 4 ]; then
    run host-handoff-oversubscribed 4 "$V1 $NOAT" "$PRIMS --prims bcast,reduce --comms world --max-count 100" \
        "+; coll_topo_locality: not applied" "-coll_topo_host_handoff" "+bcast uses" "+reduce uses"
fi
# An explicit grid the size of MPI_COMM_WORLD on smaller or reordered
# communicators: placed by their MPI_COMM_WORLD ranks, no size message.
run placed-by-world 8 "$V1 coll_topo_topology=torus:2x4" \
    "$ALLREDUCE --comms world,split,reversed --max-count 300" \
    "+comm MPI_COMM_WORLD (cid 0, 8 ranks): topology torus:2x4 (from coll_topo_topology)" \
    "+topology torus:2x4 (from coll_topo_topology, placed by MPI_COMM_WORLD rank: 4 of its 8 nodes)" \
    "+comm reversed (cid" "+topology torus:2x4 (from coll_topo_topology, placed by MPI_COMM_WORLD rank: 8 of its 8 nodes)" \
    "-does not match the size"

# ---- agreement -----------------------------------------------------------
# One rank forces another algorithm: every primitive goes to the previous module on every
# communicator, results stay correct, the message is shown.
run_mpmd disagree-algorithm "$V1" "$PRIMS --comms world,dup --max-count 100" \
    "1 OMPI_MCA_coll_topo_allreduce_algorithm=ring" "3" -- \
    "+The ranks of a communicator reached different inputs for coll/topo's" \
    "+comm MPI_COMM_WORLD (cid 0): bcast goes to the previous module (the ranks" \
    "+comm dup (cid" "- uses "
# Different cost models on half of the ranks (hash of a double).
run_mpmd disagree-hop "$V1" "$ALLREDUCE --comms world --max-count 100" \
    "2" "2 OMPI_MCA_coll_topo_hop=1e-6" -- \
    "+The ranks of a communicator reached different inputs for coll/topo's" \
    "+allreduce goes to the previous module (the ranks" "- uses "
# A different eager limit on half of the ranks.
run_mpmd disagree-eager "$V1" "$ALLREDUCE --comms world --max-count 100" \
    "2" "2 OMPI_MCA_coll_topo_eager_limit=1000" -- \
    "+allreduce goes to the previous module (the ranks" "- uses "
# A different handoff set on one rank: a handoff on one rank and our
# schedule on the other would never match; every primitive goes to the previous module.
run_mpmd disagree-handoff "$V1" "$PRIMS --prims bcast,reduce --comms world --max-count 100" \
    "1" "1 OMPI_MCA_coll_topo_handoff=none" -- \
    "+bcast goes to the previous module (the ranks" "- uses "
# Same values everywhere, given per context: no disagreement.
run_mpmd agree-same-values "$V1" "$ALLREDUCE --comms world --max-count 100" \
    "2 OMPI_MCA_coll_topo_allreduce_rules=0-inf:ring" "2 OMPI_MCA_coll_topo_allreduce_rules=0-inf:ring" -- \
    "+allreduce uses ring (rule 0-inf of coll_topo_allreduce_rules)" "-reached different inputs"
# The cost model's seconds are parsed text: the same number written
# otherwise, or a value out of range on some ranks (their default then),
# hashes the same as the default.
run_mpmd agree-same-number "$V1" "$ALLREDUCE --comms world --max-count 100" \
    "2 OMPI_MCA_coll_topo_alpha=0.000002" "2 OMPI_MCA_coll_topo_beta=0.0000000001" -- \
    "+allreduce uses" "-reached different inputs"
run_mpmd agree-out-of-range "$V1" "$ALLREDUCE --comms world --max-count 100" \
    "2 OMPI_MCA_coll_topo_gamma=-1" "2 OMPI_MCA_coll_topo_alpha=nan" -- \
    "+allreduce uses" "+$BADP coll_topo_gamma is not a number in its range" \
    "-reached different inputs"
# A different beta on half of the ranks is still seen.
run_mpmd disagree-beta "$V1" "$ALLREDUCE --comms world --max-count 100" \
    "2" "2 OMPI_MCA_coll_topo_beta=2e-10" -- \
    "+allreduce goes to the previous module (the ranks" "- uses "

# ---- ranks that do not all run coll/topo ---------------------------------
# Half of the ranks without coll/topo (priority -1, or a coll list without
# topo) or with another coll list: the application's first call, an
# allreduce of 5 uint64, and every call after it are right on every rank,
# nothing hangs, and the lowest rank of coll/topo says what differs; every
# communicator is left to the previous module (no "uses" line).
RD="+coll/topo does not run alike on every rank of a communicator:"
LEFT="+every collective is left to the previous module"
run_mpmd mixed-priority "$V1" "$FIRST" \
    "2 OMPI_MCA_coll_topo_priority=40" "2 OMPI_MCA_coll_topo_priority=-1" -- \
    "$RD" "+Ranks that differ from this one: 2, the first: rank 2" \
    "+That rank:    runs coll/topo (record 1), coll_topo_priority -1, coll list 'basic,inter,libnbc,self,topo,tuned'" \
    "+This rank:    runs coll/topo (record 1), coll_topo_priority 40," \
    "+comm MPI_COMM_WORLD (cid 0, 4 ranks): 2 ranks do not run coll/topo as rank 0 does (rank 2 first)" \
    "$LEFT" "- uses "
run_mpmd mixed-priority-reversed "$V1" "$FIRST" \
    "2 OMPI_MCA_coll_topo_priority=-1" "2 OMPI_MCA_coll_topo_priority=40" -- \
    "$RD" "+2 ranks do not run coll/topo as rank 2 does (rank 0 first)" "$LEFT" "- uses "
saved_launch=("${launch[@]}")
launch=("${no_coll[@]}")
run_mpmd mixed-coll-list "$V1" "$FIRST" \
    "2 OMPI_MCA_coll=topo,tuned,basic,libnbc,self" "2 OMPI_MCA_coll=tuned,basic,libnbc,self" -- \
    "$RD" "+does not run coll/topo (its coll list leaves topo out" "$LEFT" "- uses "
# Lists that differ, though not in what they select (inter serves only
# intercommunicators; the order of a list selects nothing): the lists are
# compared, not guessed at.
run_mpmd differing-coll-lists "$V1" "$FIRST" \
    "1 OMPI_MCA_coll=topo,tuned,basic,libnbc,self" "3 OMPI_MCA_coll=self,inter,libnbc,basic,tuned,topo" -- \
    "$RD" "+coll list 'basic,inter,libnbc,self,topo,tuned'" "+coll list 'basic,libnbc,self,topo,tuned'" \
    "$LEFT" "- uses "
# The same list in another order: alike.
run_mpmd coll-list-order "$V1" "$FIRST" \
    "2 OMPI_MCA_coll=topo,tuned,basic,libnbc,self" "2 OMPI_MCA_coll=self,libnbc,basic,tuned,topo" -- \
    "+comm MPI_COMM_WORLD (cid 0): allreduce uses" "-does not run alike"
launch=("${saved_launch[@]}")
# A modex that does not bring every process's data at MPI_Init: whether
# every rank runs coll/topo cannot be known without waiting, so coll/topo
# leaves the communicators alone and says why.
run modex-async 4 "$V1 pmix_base_async_modex=1 pmix_base_collect_data=0" "$FIRST" \
    "+coll/topo cannot tell whether every rank of a communicator runs it:" \
    "+the modex is direct or asynchronous" "- uses "
# A communicator of two jobs (MPI_Comm_spawn, then MPI_Intercomm_merge):
# the modex of MPI_Init did not carry the other job's records, so coll/topo
# says so and leaves that communicator alone; MPI_COMM_WORLD keeps it, and
# every result on every communicator is right.  (vader does not connect
# two jobs: tcp as well.)
saved_launch=("${launch[@]}")
launch=("${launch[@]/#self,vader/self,vader,tcp}")
run spawn-merged 2 "$V1" "$FIRST --spawn 2" \
    "+a communicator holds processes of another job (spawned or connected)" \
    "+comm MPI_COMM_WORLD (cid 0): allreduce uses" "+(spawned ones included)" "-comm merged"
launch=("${saved_launch[@]}")
# The same everywhere: coll/topo serves the first call and the others.
run first-call-alike 4 "$V1" "$FIRST" "+comm MPI_COMM_WORLD (cid 0): allreduce uses" \
    "+comm dup (cid" "-does not run alike" "-ranks do not run coll/topo"

rm -rf "$cdir"
[ $nfail = 0 ] && rmdir "$logdir" 2>/dev/null || echo "logs of the failed runs: $logdir"
echo "$npass passed, $nfail failed"
[ $nfail = 0 ]
