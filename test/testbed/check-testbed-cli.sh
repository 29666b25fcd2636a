#!/usr/bin/env bash
# Copyright (c) The ompi-coll-topo authors.
# SPDX-License-Identifier: BSD-3-Clause
# scripts/testbed.sh refuses what it cannot do and leaves nothing behind:
#   - bad shapes and option values: exit status 2 and a message, before
#     anything is created (these need neither root nor a network);
#   - as a user other than root (setpriv to nobody), and as root without
#     CAP_NET_ADMIN/CAP_SYS_ADMIN (setpriv --bounding-set): a message, exit
#     status 1, no namespace and no state directory;
#   - --delay where the kernel has no netem: a message, nothing created;
#   - a start that fails half way (a tc that fails on its filter command,
#     first in PATH): what was created is removed;
#   - start then stop: no namespace, no veth of the testbed and no state
#     directory left.
# The last three need a machine where the testbed can start (else they are
# skipped with a message).  One "PASS:"/"FAIL:"/"SKIP:" line per check, then
# "N passed, M failed".
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
testbed="$here/../../scripts/testbed.sh"
prefix="tx$(($$ % 1000000))"
work=$(mktemp -d "${TMPDIR:-/tmp}/coll-topo-testbed-cli.XXXXXX")
chmod 755 "$work"
npass=0
nfail=0
pass() { echo "PASS: $*"; npass=$((npass + 1)); }
fail() { echo "FAIL: $*"; nfail=$((nfail + 1)); }
skip() { echo "SKIP: $*"; }
cleanup() {
    local d
    for d in "$work"/state-*; do
        [ ! -d "$d" ] || "$testbed" stop --prefix "$prefix" --state-dir "$d" >/dev/null 2>&1 || true
    done
    rm -rf "$work"
}
trap cleanup EXIT

ours() { # namespaces and host-side veths of this test's prefix
    ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^$prefix-" || true
    ip -o link show type veth 2>/dev/null | awk -F': ' '{print $2}' | grep -E '^d[0-9][pm](@|$)' || true
}
# expect NAME STATUS TEXT [RUNNER...] -- ARGS... : testbed.sh ARGS exits
# STATUS, prints TEXT, and leaves no namespace and no state directory
expect() {
    local name=$1 want=$2 text=$3 state="$work/state-$1" runner=() rc=0 out left
    shift 3
    while [ "$1" != -- ]; do runner+=("$1"); shift; done
    shift
    out=$("${runner[@]}" "$testbed" "${1:-}" --prefix "$prefix" --state-dir "$state" "${@:2}" 2>&1) || rc=$?
    left=$(ours)
    if [ "$rc" -ne "$want" ]; then
        fail "$name: exit status $rc, expected $want: $out"
    elif ! grep -qF -- "$text" <<<"$out"; then
        fail "$name: no message '$text' in: $out"
    elif [ -n "$left" ] || [ -e "$state" ]; then
        fail "$name: left behind: $left $([ -e "$state" ] && echo "$state")"
    else
        pass "$name: exit status $want, '$text'"
    fi
}

for s in torus:1x4 torus:9x8 torus:4 torus:2x2x2x2 mesh:2x2x2 ring:4 mesh:0x4 torus:4x4x5 torus:axb "torus:2x2 "; do
    expect "shape '$s'" 2 "bad shape" -- start "$s"
done
expect "no shape" 2 "start needs a shape" -- start
expect "--rate 200" 2 "bad --rate" -- start torus:2x2 --rate 200
expect "--delay 5" 2 "bad --delay" -- start torus:2x2 --delay 5
expect "--check sometimes" 2 "bad --check" -- start torus:2x2 --check sometimes
expect "--tie minus" 2 "bad --tie" -- start torus:2x2 --tie minus
expect "--prefix Bad" 2 "--prefix must be" -- start torus:2x2 --prefix Bad
expect "unknown command" 2 "unknown command" -- begin torus:2x2
expect "unknown option" 2 "unknown option" -- start torus:2x2 --speed 1

if [ "$(id -u)" -ne 0 ]; then
    skip "the checks as root: not root"
    echo "$npass passed, $nfail failed"
    [ "$nfail" -eq 0 ]
    exit
fi
if command -v setpriv >/dev/null 2>&1; then
    # as nobody, from a copy in the world-readable work directory: the
    # checkout may sit in a directory only root can enter (mktemp -d)
    cp "$testbed" "$work/testbed.sh"
    chmod 755 "$work/testbed.sh"
    checkout=$testbed
    testbed=$work/testbed.sh
    expect "not root" 1 "needs root" setpriv --reuid=65534 --regid=65534 --clear-groups -- start torus:2x2
    testbed=$checkout
    expect "no CAP_NET_ADMIN" 1 "cannot create a network namespace" \
        setpriv --bounding-set -net_admin,-sys_admin -- start torus:2x2
else
    skip "not root, no CAP_NET_ADMIN: setpriv not found"
fi

rc=0
"$testbed" probe --prefix "$prefix" >"$work/probe.log" 2>&1 || rc=$?
if [ "$rc" -ne 0 ]; then
    skip "start and stop: this machine cannot build the testbed: $(cat "$work/probe.log")"
else
    if grep -q "netem: not available" "$work/probe.log"; then
        expect "--delay without netem" 1 "netem (sch_netem) is not available" -- start torus:2x2 --delay 1ms
    else
        skip "--delay without netem: this kernel has netem"
    fi
    # a start that fails half way: tc's filter command fails
    mkdir -p "$work/fakebin"
    cat >"$work/fakebin/tc" <<EOT
#!/bin/sh
for a in "\$@"; do [ "\$a" = filter ] && { echo "tc: simulated failure" >&2; exit 1; }; done
exec $(command -v tc) "\$@"
EOT
    chmod 755 "$work/fakebin/tc"
    expect "start failing half way" 1 "start failed; removing what it created" \
        env PATH="$work/fakebin:$PATH" -- start torus:2x3 --rate 10mbit --check none

    state="$work/state-up"
    if timeout 120 "$testbed" start torus:2x3 --rate 50mbit --prefix "$prefix" --state-dir "$state" >"$work/start.log" 2>&1; then
        n=$(ip netns list | awk '{print $1}' | grep -cE "^$prefix-" || true)
        v=0
        for ns in $(ip netns list | awk '{print $1}' | grep -E "^$prefix-"); do
            v=$((v + $(ip -n "$ns" -o link show type veth | wc -l)))
        done
        if [ "$n" -eq 6 ] && [ "$v" -eq 24 ]; then
            pass "start torus:2x3: 6 namespaces, 24 veth ends"
        else
            fail "start torus:2x3: $n namespaces, $v veth ends (expected 6 and 24)"
        fi
        if "$testbed" start torus:2x2 --prefix "$prefix" --state-dir "$state" >/dev/null 2>&1; then
            fail "a second start on the same state directory was accepted"
        else
            pass "a second start on the same state directory is refused"
        fi
        "$testbed" stop --prefix "$prefix" --state-dir "$state" >/dev/null 2>&1 || true
        left=$(ours)
        if [ -z "$left" ] && [ ! -e "$state" ]; then
            pass "stop: no namespace, no veth, no state directory left"
        else
            fail "stop left: $left $([ -e "$state" ] && echo "$state")"
        fi
    else
        fail "start torus:2x3: $(cat "$work/start.log")"
    fi
fi
# scripts/testbed-ab.sh: its runs (--dry-run: the MCA settings of each
# configuration, every round, bench_allreduce's count per rank) and its
# refusals, before anything starts
ab="$here/../../scripts/testbed-ab.sh"
out=$(bash "$ab" --dry-run --setup torus:2x2@200mbit --prim allgather --bytes 4096 --reps 2 \
    x=coll_topo_allgather_algorithm=bfb y=coll_topo_allgather_algorithm=bfb,coll_topo_lane_sync=off 2>&1) || true
if [ "$(echo "$out" | grep -c '^round [12] [xy]: ')" = 4 ] &&
    echo "$out" | grep -q '^round 2 y: .*--mca coll_topo_allgather_algorithm bfb --mca coll_topo_lane_sync off -- bench_allreduce 1024 allgather$'; then
    pass "testbed-ab --dry-run: 2 rounds of 2 configurations, their settings, 1024 bytes per rank of 4"
else
    fail "testbed-ab --dry-run: $out"
fi
for bad in "--bytes 0 a=" "--prim scan a=" "--setup torus:2x2 a=" "a=foo" "" "notaconfig"; do
    # shellcheck disable=SC2086 # the arguments, split on purpose
    if out=$(bash "$ab" --dry-run $bad 2>&1); then
        fail "testbed-ab accepted '$bad': $out"
    elif echo "$out" | grep -q '^testbed-ab: '; then
        pass "testbed-ab refuses '$bad': ${out#testbed-ab: }"
    else
        fail "testbed-ab '$bad': no message: $out"
    fi
done
echo "$npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
