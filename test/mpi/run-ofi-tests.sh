#!/bin/bash
#
# run-ofi-tests.sh: the libfabric transport (coll_topo_transport=ofi) and
# its choice.  For each provider of OFI_PROVIDERS that libfabric offers here
# with reliable-datagram endpoints (fi_info; the others are skipped, said):
#   - test_primitives on a 2x2 torus (multi-lane schedules, every primitive)
#     and on 3 ranks with random calls on several communicators, over ofi;
#   - test_allreduce with every buffer registered (coll_topo_ofi_register:
#     the registration cache's path, which these providers do not need);
#   - test_threads: collectives from several threads at once;
#   - auto: chooses ofi where the provider serves every rank.
# And, without a provider:
#   - ofi with a provider that does not exist: the ofi-unavailable message,
#     the PML carries the calls, results still right;
#   - auto with it: the PML, silently;
#   - half the ranks given ofi, half pml: the ranks disagree, every call goes
#     to the previous module, nothing hangs.
# A run passes when mpirun exits 0 within the time limit with the test's
# passing summary and the verbose line of the expected transport on
# MPI_COMM_WORLD ("transport ofi (provider P)" or "transport pml"), and holds
# (or lacks) the help message as said.  One line per run (PASS/FAIL/SKIP),
# then "N passed, M failed" alone on the last line.  Exit status: 0 all
# passed, 1 some failed, 77 (skip) without mpirun, fi_info or a component
# built with libfabric, 99 when a program or the component is missing.
#
# Environment (all optional; "make check" sets the TOPO_* paths):
#   TOPO_COMPONENT_DIR, TOPO_OMPI_PKGLIBDIR, TOPO_TEST_BUILDDIR,
#   TOPO_MPI_TEST_DIR, MPIRUN, MPIRUN_EXTRA_ARGS   as in run-mpi-tests.sh
#   OFI_PROVIDERS       providers to test, separated by spaces (default
#                       "shm tcp;ofi_rxm"; tcp stays on the loopback
#                       interface, FI_TCP_IFACE=lo)
#   TOPO_TEST_TIMEOUT   seconds allowed per mpirun (default 300)
#   TOPO_TEST_LOGDIR    where to keep the output of failed runs

set -u

PROVIDERS=${OFI_PROVIDERS:-"shm tcp;ofi_rxm"}
TIMEOUT=${TOPO_TEST_TIMEOUT:-300}
MPIRUN=${MPIRUN:-mpirun}

here=$(cd "$(dirname "$0")" && pwd)
command -v "$MPIRUN" >/dev/null 2>&1 || { echo "SKIP: $MPIRUN not found"; exit 77; }
command -v fi_info >/dev/null 2>&1 || { echo "SKIP: fi_info not found (Debian: libfabric-bin)"; exit 77; }

# shellcheck source=runner-lib.sh
. "$here/runner-lib.sh"

prog_dir=$(find_first test_primitives "${TOPO_MPI_TEST_DIR:-}" \
    "${TOPO_TEST_BUILDDIR:+$TOPO_TEST_BUILDDIR/mpi}" "$here" ./test/mpi ./mpi) ||
    { echo "ERROR: test_primitives not found (set TOPO_MPI_TEST_DIR)"; exit 99; }
for p in test_allreduce test_threads; do
    [ -x "$prog_dir/$p" ] || { echo "ERROR: $prog_dir/$p not found"; exit 99; }
done
comp_dir=$(find_first mca_coll_topo.so "${TOPO_COMPONENT_DIR:-}" "$here/../../ompi-coll-topo/.libs") ||
    { echo "ERROR: mca_coll_topo.so not found (set TOPO_COMPONENT_DIR)"; exit 99; }
if ! ldd "$comp_dir/mca_coll_topo.so" 2>/dev/null | grep -q libfabric; then
    echo "SKIP: $comp_dir/mca_coll_topo.so was built without libfabric"
    exit 77
fi
pkglibdir=${TOPO_OMPI_PKGLIBDIR:-$(ompi_info --parsable --path pkglibdir 2>/dev/null |
    sed -n 's/^path:pkglibdir://p')}
[ -d "$pkglibdir" ] || { echo "ERROR: Open MPI's component directory not found"; exit 99; }

launch=("$MPIRUN" --oversubscribe)
[ "$(id -u)" = 0 ] && launch+=(--allow-run-as-root)
# shellcheck disable=SC2206,SC2054 # split on purpose; commas inside values
launch+=(--mca mca_component_path "$comp_dir:$pkglibdir"
    --mca coll topo,tuned,inter,basic,libnbc,self --mca btl self,vader
    --mca coll_topo_verbose 1 --mca coll_topo_check_plans 1 -x FI_TCP_IFACE=lo
    ${MPIRUN_EXTRA_ARGS:-})
logdir=${TOPO_TEST_LOGDIR:-$(mktemp -d "${TMPDIR:-/tmp}/coll-topo-ofi-tests.XXXXXX")}
mkdir -p "$logdir" || exit 99
npass=0 nfail=0 nrun=0
help_text="coll/topo was asked to carry its messages over libfabric"

# run NP PROGRAM TRANSPORT_LINE HELP MPIRUN_ARGS... [-- PROGRAM_ARGS...]:
# PROGRAM's passing summary for NP ranks; TRANSPORT_LINE: the text after
# "transport " in the verbose line of MPI_COMM_WORLD ("-": no such line must
# appear, the ranks disagreed); HELP: "yes" the ofi-unavailable message must
# appear, "no" it must not.  PROGRAM MPMD: MPIRUN_ARGS hold the whole
# command line of the app contexts (test_primitives).
run() {
    local np=$1 p=$2 want=$3 help=$4 why=() margs=()
    shift 4
    while [ $# -gt 0 ] && [ "$1" != -- ]; do margs+=("$1"); shift; done
    [ $# -gt 0 ] && shift
    local cmd=("${launch[@]}" -np "$np" "${margs[@]}" "$prog_dir/$p" "$@")
    [ "$p" = MPMD ] && cmd=("${launch[@]}" "${margs[@]}")
    nrun=$((nrun + 1))
    local log=$logdir/run-$nrun.log t0=$SECONDS rc
    logged "$log" timeout -k 10 "$TIMEOUT" "${cmd[@]}"
    rc=$?
    [ $rc = 0 ] || why+=("exit status $rc$([ $rc = 124 ] && echo ": timed out after $TIMEOUT s")")
    local prog_name=$p
    [ "$p" = MPMD ] && prog_name=test_primitives
    grep -Eq "^$prog_name: $np ranks, [1-9][0-9]* [A-Za-z_ ]*calls checked on rank 0, 0 failures" "$log" ||
        why+=("no passing summary")
    if [ "$want" = - ]; then
        ! grep -q "^coll:topo: comm MPI_COMM_WORLD (cid [0-9]*): transport " "$log" ||
            why+=("a transport was chosen although the ranks disagree")
        grep -q "the ranks reached different coll/topo inputs" "$log" ||
            why+=("no line saying that the ranks disagree")
    else
        grep -Fq "): transport $want" "$log" ||
            why+=("no verbose line 'transport $want'")
    fi
    if [ "$help" = yes ]; then
        grep -Fq "$help_text" "$log" || why+=("no ofi-unavailable message")
    else
        ! grep -Fq "$help_text" "$log" || why+=("an ofi-unavailable message")
    fi
    if [ ${#why[@]} = 0 ]; then
        npass=$((npass + 1))
        echo "PASS: ${cmd[*]} ($((SECONDS - t0)) s)"
        rm -f "$log"
    else
        nfail=$((nfail + 1))
        echo "FAIL: ${cmd[*]} ($((SECONDS - t0)) s): $(printf '%s; ' "${why[@]}")"
        grep -v "^coll:topo: " "$log" | tail -n 25 | sed 's/^/    /'
    fi
}

for prov in $PROVIDERS; do
    if ! FI_TCP_IFACE=lo timeout 60 fi_info -p "$prov" -t FI_EP_RDM >/dev/null 2>&1; then
        echo "SKIP: libfabric offers no provider '$prov' with FI_EP_RDM here"
        continue
    fi
    ofi=(--mca coll_topo_transport ofi --mca coll_topo_ofi_provider "$prov")
    run 4 test_primitives "ofi (provider $prov)" no "${ofi[@]}" \
        --mca coll_topo_topology torus:2x2 --mca coll_topo_handoff none -- --max-count 300
    run 3 test_primitives "ofi (provider $prov)" no "${ofi[@]}" --mca coll_topo_handoff none \
        -- --random 200 --max-count 500 --comms world,dup,split,reversed
    run 3 test_allreduce "ofi (provider $prov)" no "${ofi[@]}" --mca coll_topo_ofi_register 1 \
        -- --max-count 64
    # several threads at once, each on its own communicator (MPI_THREAD_MULTIPLE)
    run 3 test_threads "ofi (provider $prov)" no "${ofi[@]}" --mca coll_topo_handoff none
    run 4 test_primitives "ofi (provider $prov)" no --mca coll_topo_transport auto \
        --mca coll_topo_ofi_provider "$prov" -- --max-count 40
done

run 3 test_primitives "pml" yes --mca coll_topo_transport ofi \
    --mca coll_topo_ofi_provider no_such_provider -- --max-count 40 --comms world,split
run 3 test_primitives "pml" no --mca coll_topo_transport auto \
    --mca coll_topo_ofi_provider no_such_provider -- --max-count 40
run 4 MPMD - no -np 2 -x OMPI_MCA_coll_topo_transport=ofi -x OMPI_MCA_coll_topo_ofi_provider=shm \
    "$prog_dir/test_primitives" --max-count 40 : \
    -np 2 -x OMPI_MCA_coll_topo_transport=pml "$prog_dir/test_primitives" --max-count 40

[ $nfail = 0 ] && rmdir "$logdir" 2>/dev/null || echo "logs of the failed runs: $logdir"
echo "$npass passed, $nfail failed"
[ $nfail = 0 ]
