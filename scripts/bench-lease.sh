#!/usr/bin/env bash
# Copyright (c) The ompi-coll-topo authors.
# SPDX-License-Identifier: BSD-3-Clause
# The measurements of a lease on a machine with a core per rank, in one
# folder of at most 7 files (a lent machine may hand back only a few):
#
#   bash scripts/bench-lease.sh DIR [NP] STAGE...
#
# STAGE (each appends to its file in DIR, so that stages can run one per
# command and a time limit loses only the stage it cuts):
#   machine      machine.txt: nproc, lscpu, ompi_info's version, vader's single copy
#   tests        tests.txt: test_primitives on NP ranks with
#                coll_topo_check_plans (6000 calls in a random sequence on
#                world and a split; the bcast, reduce and allgather matrix),
#                failing where a run fails or shows no coll/topo line
#   auto:P       auto.txt: `BENCH_REPS=3 bash scripts/bench.sh --primitive P
#                NP 2097152`, coll/topo's defaults against tuned, back to back
#   sync:P       auto-sync.txt: the same with BENCH_SYNC=1 (one call at a time)
#   all:P, allsync:P   the same two with `--mca coll_topo_autotune all` (floating-
#                point reductions timed against tuned too), into the same files
#   forced:P     forced.txt (BENCH_RAW lines) and forced-tables.txt:
#                `bench-algorithms.sh --primitive P NP MAX` with every
#                algorithm of P that fits a star, back to back
#   fsync:P      forced-sync.txt and forced-tables.txt: the same, BENCH_SYNC=1
# P: a primitive of scripts/bench.sh.  MAX: 2097152 (bytes per rank: 262144
# for allgather, reduce_scatter_block and alltoall, whose largest sizes take
# minutes; BENCH_MAX=BYTES sets it for all).  Needs a build (TOPO_BUILD, as scripts/bench.sh); on a machine
# without Open MPI, run it through scripts/bench-root.sh's run.sh.
# Then, here: bash scripts/model-vs-measured.sh DIR/forced.txt (or
# forced-sync.txt).
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [ $# -lt 2 ]; then
    sed -n '2,24p' "$0" >&2
    exit 2
fi
dir=$1
shift
np=16
if [[ $1 =~ ^[0-9]+$ ]]; then
    np=$1
    shift
fi
mkdir -p "$dir"
build=${TOPO_BUILD:-$root/_build/test-werror}
# the algorithms of P that fit a star of NP ranks: topo-plan's table
# (excluded ones, such as bucket without a torus, are left out)
algorithms() {
    "$build/tools/topo-plan" --topology star --size "$np" --primitive "$1" --sizes 8 2>/dev/null |
        awk '/^algorithm/ { on = 1; next } /^excluded/ { on = 0 } on && $1 ~ /^[a-z_0-9]+$/ && $2 ~ /^[0-9]+$/ { print $1 }'
}
max_for() {
    [ -n "${BENCH_MAX:-}" ] && { echo "$BENCH_MAX"; return; }
    case $1 in
    allgather | reduce_scatter_block | reduce_scatter | alltoall) echo 262144 ;;
    *) echo 2097152 ;;
    esac
}
rc=0
for stage in "$@"; do
    t0=$(date +%s)
    what=${stage#*:}
    case $stage in
    machine)
        # (and what decides the cost of an exchange over shared memory: vader's
        # single copy (CMA, which Yama's ptrace_scope 1 or more forbids between
        # siblings) or a copy in and out by both ranks)
        { echo "nproc: $(nproc)"; lscpu | grep -v '^Vulnerab\|^Flags'; ompi_info --version 2>&1 | head -1
          echo "yama ptrace_scope: $(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null || echo none)"
          ompi_info --param btl vader --level 9 2>/dev/null | grep -A2 '"btl_vader_single_copy_mechanism"'; } \
            >>"$dir/machine.txt" ;;
    tests)
        (
            set -- # bench-lib.sh reads its caller's arguments
            # shellcheck source=bench-lib.sh
            . "$root/scripts/bench-lib.sh"
            bind_cores "$np"
            # a run passes when it exits 0 and coll/topo says it ran
            check() { # LABEL test_primitives ARGS...
                local label=$1 rc uses
                shift
                mpirun "${flags[@]}" -np "$np" --mca coll topo,tuned,inter,basic,libnbc,self \
                    --mca coll_topo_verbose 1 --mca coll_topo_check_plans 1 \
                    "$build/test/mpi/test_primitives" "$@" >"$tmp/out" 2>&1
                rc=$?
                uses=$(grep -c 'coll:topo: .* uses ' "$tmp/out")
                echo "$label: exit $rc, $uses coll:topo 'uses' lines;" \
                    "$(grep '^test_primitives: ' "$tmp/out" | tail -1)"
                [ "$rc" = 0 ] && [ "$uses" -gt 0 ]
            }
            check random --random 3000 --seed 11 --max-count 70000 --comms world,split &&
                check matrix --prims bcast,reduce,allgather --max-count 70000
        ) >>"$dir/tests.txt" ;;
    auto:* | sync:* | all:* | allsync:*)
        out=$dir/auto.txt sync='' extra=()
        if [[ $stage == *sync:* ]]; then out=$dir/auto-sync.txt sync=1; fi
        if [[ $stage == all* ]]; then extra=(--mca coll_topo_autotune all); fi
        BENCH_SYNC=$sync BENCH_REPS=3 bash "$root/scripts/bench.sh" --primitive "$what" "$np" \
            "$(max_for "$what")" "${extra[@]}" >>"$out" 2>&1 ;;
    forced:* | fsync:*)
        raw=$dir/forced.txt sync=
        if [[ $stage == fsync:* ]]; then raw=$dir/forced-sync.txt sync=1; fi
        # shellcheck disable=SC2046 # one word per algorithm
        BENCH_SYNC=$sync BENCH_RAW=$raw bash "$root/scripts/bench-algorithms.sh" --primitive "$what" \
            "$np" "$(max_for "$what")" $(algorithms "$what") >>"$dir/forced-tables.txt" 2>&1 ;;
    *)
        echo "bench-lease: unknown stage '$stage'" >&2
        exit 2 ;;
    esac
    s=$?
    [ $s = 0 ] || rc=$s
    echo "bench-lease: $stage: exit $s in $(($(date +%s) - t0)) s" >&2
done
exit $rc
