#!/usr/bin/env bash
# Copyright (c) The ompi-coll-topo authors.
# SPDX-License-Identifier: BSD-3-Clause
# The MPI tests under Slurm: scripts/slurm.sh brings up a one-machine
# cluster in a scratch directory, srun --mpi=pmix runs test_allreduce and
# test_primitives on 4 ranks with coll/topo enabled through OMPI_MCA_*
# environment variables only (component path, coll list, verbose), and once
# more with a coordinates file naming this host; then the cluster goes down
# and must leave no daemon behind.  A run passes when srun exits 0, the test
# printed its summary with 0 failures and coll/topo's verbose lines show
# that it ran (and, with the file, that it read the placement from it).
# Also: slurm.sh refuses a bad --port, and an up whose slurmd fails stops
# what it started and removes its directory.
#
#   test/slurm/run-slurm-tests.sh COMPONENT_DIR TEST_PROGRAM_DIR
#
# One "PASS: ..." or "FAIL: ..." line per check, then "N passed, M failed".
# Exit status 0, 1 when a check failed, 77 (skip) when not root or where
# Slurm and munge are missing and cannot be installed.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
slurm="$here/../../scripts/slurm.sh"
[ $# -eq 2 ] || { echo "usage: $0 COMPONENT_DIR TEST_PROGRAM_DIR" >&2; exit 2; }
comp=$(cd "$1" && pwd)
progs=$(cd "$2" && pwd)
if [ "$(id -u)" -ne 0 ]; then
    echo "SKIP: scripts/slurm.sh runs its daemons as root"
    exit 77
fi
command -v ompi_info >/dev/null 2>&1 || { echo "SKIP: ompi_info not found"; exit 77; }

work=$(mktemp -d "${TMPDIR:-/tmp}/coll-topo-slurm.XXXXXX")
chmod 755 "$work"
dir="$work/cluster"
port=$((17000 + ($$ % 4000) * 2))
npass=0
nfail=0
pass() { echo "PASS: $*"; npass=$((npass + 1)); }
fail() { echo "FAIL: $*"; nfail=$((nfail + 1)); }
cleanup() {
    [ ! -d "$dir" ] || "$slurm" down --dir "$dir" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT

rc=0
timeout 600 "$slurm" up --dir "$dir" --port "$port" >"$work/up.log" 2>&1 || rc=$?
# (after the first up, which installs what is missing)
if [ "$rc" -eq 0 ]; then
    "$slurm" down --dir "$dir" >/dev/null
    # bad input: a message, status 2, nothing made
    rc=0
    out=$("$slurm" up --dir "$dir" --port 80 2>&1) || rc=$?
    if [ "$rc" -eq 2 ] && grep -q "bad --port" <<<"$out" && [ ! -e "$dir" ]; then
        pass "scripts/slurm.sh up --port 80 refused"
    else
        fail "scripts/slurm.sh up --port 80: status $rc, $out"
    fi
    # an up whose slurmd fails (a stand-in first in PATH): the daemons it
    # started are stopped and its directory removed
    mkdir -p "$work/fakebin"
    printf '#!/bin/sh\necho "slurmd: simulated failure" >&2\nexit 1\n' >"$work/fakebin/slurmd"
    chmod 755 "$work/fakebin/slurmd"
    rc=0
    out=$(PATH="$work/fakebin:$PATH" "$slurm" up --dir "$dir" --port "$port" 2>&1) || rc=$?
    if [ "$rc" -eq 1 ] && grep -q "up failed; stopping what it started" <<<"$out" && [ ! -e "$dir" ] &&
        ! pgrep -f "$dir/" >/dev/null; then
        pass "scripts/slurm.sh up with a failing slurmd: stopped what it started, removed its directory"
    else
        fail "scripts/slurm.sh up with a failing slurmd: status $rc, $out"
    fi
    rc=0
    timeout 120 "$slurm" up --dir "$dir" --port "$port" >"$work/up.log" 2>&1 || rc=$?
fi
cat "$work/up.log"
if [ "$rc" -ne 0 ]; then
    if ! command -v slurmctld >/dev/null 2>&1 || ! command -v munged >/dev/null 2>&1; then
        echo "SKIP: Slurm and munge are not installed and could not be installed"
        exit 77
    fi
    fail "scripts/slurm.sh up"
    echo "$npass passed, $nfail failed"
    exit 1
fi
pass "scripts/slurm.sh up"
pids=()
for f in "$dir/munge/munged.pid" "$dir/run/slurmctld.pid" "$dir/run/slurmd.pid"; do
    pids+=("$(tr -dc 0-9 <"$f")")
done

pkglibdir=$(ompi_info --parsable --path pkglibdir | sed -n 's/^path:pkglibdir://p')
printf '# this host at (0,0) of a 2x2 mesh\nmesh:2x2\n%s 0 0\nnodeb 0 1\nnodec 1 0\nnoded 1 1\n' "$(hostname)" >"$work/coords"

# srun_case NAME SUMMARY_REGEX TOPOLOGY_REGEX [VAR=VALUE...] -- PROGRAM ARGS...
srun_case() {
    local name=$1 summary=$2 topology=$3 log="$work/$1.log" envs=() why=() rc=0
    shift 3
    while [ "$1" != -- ]; do envs+=("$1"); shift; done
    shift
    # coll/topo through the environment only; mpi_yield_when_idle: the
    # node advertises more CPUs than the machine has, so Open MPI does not
    # see that it is oversubscribed
    env SLURM_CONF="$dir/slurm.conf" TMPDIR="$dir/tmp" \
        OMPI_MCA_mca_component_path="$comp:$pkglibdir" \
        OMPI_MCA_coll=topo,tuned,inter,basic,libnbc,self \
        OMPI_MCA_coll_topo_verbose=1 \
        OMPI_MCA_coll_topo_check_plans=1 \
        OMPI_MCA_btl=self,vader \
        OMPI_MCA_mpi_yield_when_idle=1 \
        "${envs[@]}" \
        timeout -k 10 240 srun --mpi=pmix -n 4 "$progs/$1" "${@:2}" >"$log" 2>&1 </dev/null || rc=$?
    [ "$rc" -eq 0 ] || why+=("exit status $rc")
    grep -Eq "$summary" "$log" || why+=("no passing summary")
    grep -Eq "^coll:topo: comm MPI_COMM_WORLD \(cid 0, 4 ranks\): topology $topology" "$log" ||
        why+=("no 'topology $topology' line for MPI_COMM_WORLD")
    grep -Eq "^coll:topo: comm .*: [a-z_]+ uses [a-z0-9_]+ \(" "$log" ||
        why+=("no 'uses <algorithm>' line: coll/topo served nothing")
    if [ ${#why[@]} -eq 0 ]; then
        pass "srun --mpi=pmix -n 4 $name"
    else
        fail "srun --mpi=pmix -n 4 $name: $(IFS=';'; echo "${why[*]}")"
        tail -n 40 "$log"
    fi
}
sum_ar='^test_allreduce: 4 ranks, [1-9][0-9]* MPI_Allreduce calls checked on rank 0, 0 failures'
sum_pr='^test_primitives: 4 ranks, [1-9][0-9]* calls checked on rank 0, 0 failures'
srun_case test_allreduce "$sum_ar" 'star \(from auto: ' -- test_allreduce --max-count 1000
srun_case test_primitives "$sum_pr" 'star \(from auto: ' -- test_primitives --max-count 100
srun_case "test_allreduce with a coordinates file" "$sum_ar" \
    "mesh:2x2 \\(from coordinates file $work/coords, placed: 4 ranks on 1 of 4 nodes\\)" \
    OMPI_MCA_coll_topo_coords_file="$work/coords" -- test_allreduce --max-count 100 --comms world

if "$slurm" down --dir "$dir"; then
    left=()
    for p in "${pids[@]}"; do
        st=$(ps -o stat= -p "$p" 2>/dev/null || true)
        [ -z "$st" ] || [ "${st:0:1}" = Z ] || left+=("$p")
    done
    if [ ${#left[@]} -eq 0 ] && [ ! -e "$dir" ]; then
        pass "scripts/slurm.sh down: no daemon and no directory left"
    else
        fail "scripts/slurm.sh down left: ${left[*]:-} $([ -e "$dir" ] && echo "$dir")"
    fi
else
    fail "scripts/slurm.sh down"
fi
echo "$npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
