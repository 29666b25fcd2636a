#!/usr/bin/env bash
# Copyright (c) The ompi-coll-topo authors.
# SPDX-License-Identifier: BSD-3-Clause
# A collective (allreduce unless --primitive says otherwise): coll/topo
# against coll/tuned, in the same run of this script.
# Prints, per message size, the median time per call of each and the ratio
# tuned/topo (> 1: coll/topo is faster), over BENCH_REPS (default 5) runs of
# each, alternating.  Timings on an oversubscribed
# machine (more ranks than cores) measure scheduling as much as algorithms;
# use as many cores as ranks for numbers worth quoting (each rank is then
# bound to a core).
#
#   bash scripts/bench.sh [--primitive P] [NP] [MAX_BYTES] [extra mpirun args, e.g. --mca coll_topo_topology torus:4x4]
#
# Sizes from 8 bytes, each BENCH_FACTOR (default 8) times the last.
# BENCH_ROTATE_ROOT=1: bcast and reduce from root i mod NP at the i-th call.
# A time per call is the slowest rank's mean over a batch of back-to-back
# calls (a rank of a tree or a chain that finishes early starts the next
# call: rooted collectives show their throughput); BENCH_SYNC=1 times one
# call at a time instead, each after a point-to-point barrier (the latency
# of one call, as OSU's benchmarks measure it, and what the cost model
# prices).
#
# P: allreduce, bcast, reduce, allgather, reduce_scatter_block,
# reduce_scatter, alltoall, barrier (sizes per rank for the gathering and
# scattering ones; barrier has one size, 0).
#
# Needs a build: run scripts/test.sh or scripts/demo.sh first (or set
# TOPO_BUILD to a build directory).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench-lib.sh
. "$root/scripts/bench-lib.sh"
np=${1:-4}
max=${2:-4194304}
shift $(($# < 2 ? $# : 2))
# Alternating runs (topo, tuned, topo, ...): a machine whose speed drifts
# during the script then biases neither; each size reports the median run.
reps=${BENCH_REPS:-5}
bind_cores "$np"
for r in $(seq "$reps"); do
    mpirun "${flags[@]}" -np "$np" --mca coll topo,tuned,inter,basic,libnbc,self --mca coll_topo_verbose 1 "$@" \
        "$prog" "$max" "$prim" >"$tmp/topo.run$r" 2>"$tmp/topo.err"
    # coll/topo ran the primitive, or decided to hand its calls to the
    # previous module (coll_topo_handoff's one-message calls, or calls that
    # fall back: those sizes then measure tuned behind coll/topo's entry)
    grep -Eq "coll:topo: .*: $vprim (uses |goes to the previous module )" "$tmp/topo.err" ||
        { echo "bench: coll/topo did not run" >&2; cat "$tmp/topo.err" >&2; exit 1; }
    mpirun "${flags[@]}" -np "$np" --mca coll tuned,inter,basic,libnbc,self "$prog" "$max" "$prim" >"$tmp/tuned.run$r"
done
median topo >"$tmp/topo"
median tuned >"$tmp/tuned"
echo "$prim, $np ranks, $(nproc) cores, median of $reps alternating runs, $timing ($*):"
printf '%12s %14s %14s %8s\n' bytes "topo (us)" "tuned (us)" "tuned/topo"
awk 'NR == FNR { tuned[$1] = $2; next }
     $1 in tuned { printf "%12d %14.3f %14.3f %8.2f\n", $1, $2 * 1e6, tuned[$1] * 1e6, tuned[$1] / $2 }' \
    "$tmp/tuned" "$tmp/topo"
echo "coll/topo's choices (the first call of each algorithm, and of the handoff), and the"
echo "verdicts of coll_topo_autotune (the last run's):"
grep -E ": $vprim (uses |goes to the previous module )|: $prim, payloads of .*\(coll_topo_autotune\)" "$tmp/topo.err" |
    sed 's/^/  /'
