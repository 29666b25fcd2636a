#!/usr/bin/env bash
# Copyright (c) The ompi-coll-topo authors.
# SPDX-License-Identifier: BSD-3-Clause
# The MPI tests on an emulated 2x2 torus (scripts/testbed.sh): four network
# namespaces, one rank in each (and once two, with shared memory between
# them and "placed: 8 ranks on 4 of 4 nodes"), Open MPI's TCP between them
# over rate-limited veth links, coll/topo placed by the coordinates file
# that testbed.sh run writes.  A run passes when it exits 0, the test
# printed its summary with 0 failures, and coll/topo's verbose lines show
# that it read the placement from the coordinates file and served the
# collectives.  Then the testbed
# is stopped and must leave nothing behind.
#
#   test/testbed/run-testbed-tests.sh COMPONENT_DIR TEST_PROGRAM_DIR
#
# One "PASS: ..." or "FAIL: ..." line per check, then "N passed, M failed".
# Exit status 0, 1 when a check failed, 77 (skip) where this machine cannot
# build a testbed (not root, no CAP_NET_ADMIN, no veth or htb).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
testbed="$here/../../scripts/testbed.sh"
[ $# -eq 2 ] || { echo "usage: $0 COMPONENT_DIR TEST_PROGRAM_DIR" >&2; exit 2; }
comp=$1
progs=$2

if [ "$(id -u)" -ne 0 ]; then
    echo "SKIP: the testbed needs root"
    exit 77
fi
for t in mpirun ip tc ping unshare; do
    command -v "$t" >/dev/null 2>&1 || { echo "SKIP: $t not found"; exit 77; }
done
prefix="tc$(($$ % 1000000))"
rc=0
"$testbed" probe --prefix "$prefix" || rc=$?
if [ "$rc" -ne 0 ]; then
    echo "SKIP: this machine cannot build the testbed (see above)"
    exit 77
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/coll-topo-testbed.XXXXXX")
state="$work/state"
npass=0
nfail=0
pass() { echo "PASS: $*"; npass=$((npass + 1)); }
fail() { echo "FAIL: $*"; nfail=$((nfail + 1)); }
cleanup() {
    [ ! -d "$state" ] || "$testbed" stop --prefix "$prefix" --state-dir "$state" >/dev/null 2>&1 || true
}
trap cleanup EXIT

if ! timeout 120 "$testbed" start torus:2x2 --rate 1gbit --prefix "$prefix" --state-dir "$state"; then
    fail "testbed start torus:2x2"
    echo "$npass passed, $nfail failed"
    exit 1
fi
pass "testbed start torus:2x2 (routes and hop counts checked)"

# the emulation's settings: a loss-based TCP in every namespace (never the
# host's bbr, whose pacing distorts the timings), and a priority class that
# takes only packets with PSH clear (pure ACKs), so no flow is reordered
bad=""
while read -r ns; do
    cc=$(ip netns exec "$ns" sysctl -n net.ipv4.tcp_congestion_control)
    case $cc in cubic | reno) ;; *) bad+=" $ns:$cc" ;; esac
done <"$state/nodes"
if [ -z "$bad" ]; then
    pass "testbed namespaces run a loss-based TCP congestion control"
else
    fail "testbed namespaces' TCP congestion control:$bad (want cubic or reno)"
fi
ns=$(head -n 1 "$state/nodes")
dev=$(awk -v n="$ns" '$1 == n { print $2; exit }' "$state/links")
if tc -n "$ns" filter show dev "$dev" | grep -q '00000000/00080000 at 32'; then
    pass "testbed priority class takes TCP packets without PSH only"
else
    fail "testbed priority filter on $ns $dev: $(tc -n "$ns" filter show dev "$dev" | tr '\n' ' ')"
fi

# tb_run NAME RANKS_PER_NODE SUMMARY_REGEX TOPOLOGY_LINE_REGEX PROGRAM ARGS...
# (tb_opts: more options of testbed.sh run; tb_want: a regex some line of
# the output must match, with what it means in tb_what)
tb_opts=()
tb_want=""
tb_what=""
tb_run() {
    local name=$1 rpn=$2 summary=$3 topology=$4 prog=$5 log="$work/$1.log" why=() rc=0
    shift 5
    "$testbed" run --prefix "$prefix" --state-dir "$state" --timeout 240 --ranks-per-node "$rpn" \
        --component-dir "$comp" \
        --mca coll_topo_verbose 1 --mca coll_topo_check_plans 1 "${tb_opts[@]}" \
        -- "$progs/$prog" "$@" >"$log" 2>&1 || rc=$?
    [ -z "$tb_want" ] || grep -Eq -- "$tb_want" "$log" || why+=("$tb_what")
    [ "$rc" -eq 0 ] || why+=("exit status $rc")
    grep -Eq "$summary" "$log" || why+=("no passing summary")
    grep -Eq "^coll:topo: comm MPI_COMM_WORLD $topology" "$log" ||
        why+=("no line for MPI_COMM_WORLD matching: $topology")
    grep -Eq "^coll:topo: comm .*: [a-z_]+ uses [a-z0-9_]+ \(" "$log" ||
        why+=("no 'uses <algorithm>' line: coll/topo served nothing")
    if [ ${#why[@]} -eq 0 ]; then
        pass "$name over TCP on the 2x2 torus testbed"
    else
        fail "$name over TCP on the 2x2 torus testbed: $(IFS=';'; echo "${why[*]}")"
        tail -n 40 "$log"
    fi
}
from="\\(from coordinates file $state/coords"
tb_run test_allreduce 1 '^test_allreduce: 4 ranks, [1-9][0-9]* MPI_Allreduce calls checked on rank 0, 0 failures' \
    "\\(cid 0, 4 ranks\\): topology torus:2x2 $from\\)" test_allreduce --max-count 1000
tb_run test_primitives 1 '^test_primitives: 4 ranks, [1-9][0-9]* calls checked on rank 0, 0 failures' \
    "\\(cid 0, 4 ranks\\): topology torus:2x2 $from\\)" test_primitives --max-count 200
# two ranks per node: shared memory within a node, placed on the grid
tb_run "test_allreduce, 2 ranks per node" 2 '^test_allreduce: 8 ranks, [1-9][0-9]* MPI_Allreduce calls checked on rank 0, 0 failures' \
    "\\(cid 0, 8 ranks\\): topology torus:2x2 $from, placed: 8 ranks on 4 of 4 nodes\\)" \
    test_allreduce --max-count 300 --comms world,split

# The libfabric transport (coll_topo_transport=ofi) with provider
# tcp;ofi_rxm, where the component has it: its endpoints on the node
# addresses (FI_TCP_IFACE=node; left to itself the provider takes another
# interface of the namespace, whose address the other nodes cannot reach),
# published through PMIx and looked up across the namespaces.
ofi_prov="tcp;ofi_rxm"
if ldd "$comp/mca_coll_topo.so" 2>/dev/null | grep -q libfabric && command -v fi_info >/dev/null 2>&1 &&
    FI_TCP_IFACE=lo timeout 60 fi_info -p "$ofi_prov" -t FI_EP_RDM >/dev/null 2>&1; then
    tb_opts=(--mca coll_topo_transport ofi --mca coll_topo_ofi_provider "$ofi_prov" --env FI_TCP_IFACE=node)
    tb_want="^coll:topo: comm MPI_COMM_WORLD \\(cid 0\\): transport ofi \\(provider $ofi_prov\\)"
    tb_what="MPI_COMM_WORLD's messages not over libfabric ($ofi_prov)"
    tb_run "test_primitives over libfabric ($ofi_prov)" 1 '^test_primitives: 4 ranks, [1-9][0-9]* calls checked on rank 0, 0 failures' \
        "\\(cid 0, 4 ranks\\): topology torus:2x2 $from\\)" test_primitives --max-count 200
    tb_run "test_allreduce over libfabric ($ofi_prov), 2 ranks per node" 2 '^test_allreduce: 8 ranks, [1-9][0-9]* MPI_Allreduce calls checked on rank 0, 0 failures' \
        "\\(cid 0, 8 ranks\\): topology torus:2x2 $from, placed: 8 ranks on 4 of 4 nodes\\)" \
        test_allreduce --max-count 300 --comms world,split
    tb_opts=()
    tb_want=""
else
    echo "note: no test over libfabric: the component has no libfabric transport, or fi_info offers no $ofi_prov"
fi

if "$testbed" stop --prefix "$prefix" --state-dir "$state"; then
    left=$(ip netns list | awk '{print $1}' | grep -E "^$prefix-" || true)
    if [ -z "$left" ] && [ ! -e "$state" ]; then
        pass "testbed stop: no namespace and no state left"
    else
        fail "testbed stop left: ${left:-} $([ -e "$state" ] && echo "$state")"
    fi
else
    fail "testbed stop"
fi
rm -rf "$work"
echo "$npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
