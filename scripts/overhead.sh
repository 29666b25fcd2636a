#!/usr/bin/env bash
# Copyright (c) The ompi-coll-topo authors.
# SPDX-License-Identifier: BSD-3-Clause
# The CPU cost of one collective call in coll/topo and in coll/tuned, in
# the same run of this script: instructions executed inside the MPI function
# (valgrind's callgrind, on rank 0), less those spent waiting in the PML:
# opal_progress is not counted (polling for the peer's message, in a wait
# or in a blocking send whose receiver is behind), nor are the request
# waits (ompi_request_default_wait*) that call it.  What
# remains is the component's own work per call plus posting its messages
# and reducing: the per-call overhead that decides small messages, counted
# exactly, unlike times on a busy machine.  The "whole" columns count the
# waits too (not their polling): a component whose sends complete inside
# wait_all (tuned's bcast) has its request completion and freeing counted
# there, where one whose sends complete inline (coll/topo's, with ob1) has
# it in its own code, so compare both.
#
#   bash scripts/overhead.sh [--primitive P] [NP] [BYTES...]
#
# P: allreduce (default), bcast, reduce, allgather, reduce_scatter_block,
# reduce_scatter, alltoall, barrier; BYTES per rank for the gathering and
# scattering ones (default: 2 ranks; 8 64 512).  BENCH_ROTATE_ROOT=1 in
# the environment: bcast and reduce from root i mod NP at the i-th call;
# BENCH_VARY_COUNT=K: the i-th call moves BYTES/8 + (i mod K) elements.
#
# Needs a build (scripts/test.sh or scripts/demo.sh, or TOPO_BUILD) and
# valgrind (scripts/install-deps.sh installs it).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench-lib.sh
. "$root/scripts/bench-lib.sh"
np=${1:-2}
shift $(($# > 0 ? 1 : 0))
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(8 64 512)
calls=20000
command -v valgrind >/dev/null || { echo "overhead: valgrind not found (scripts/install-deps.sh)" >&2; exit 1; }

# per_call FILE: "(inclusive $fn - inclusive waits) / calls, inclusive $fn / calls"
per_call() {
    callgrind_annotate --inclusive=yes --threshold=100 "$1" 2>/dev/null |
        awk -v calls="$calls" -v fn="$fn" '
            /^ *[0-9,]+ \(/ {
                n = $1; gsub(",", "", n)
                if ($0 ~ (":" fn "[ \\[]") && n > all) all = n
                if ($0 ~ /:ompi_request_default_wait(_all|_any)?[ \[]/) {
                    f = $0; sub(/ \[.*/, "", f); sub(/.*:/, "", f)
                    if (n > wait[f]) wait[f] = n
                }
            }
            END { for (f in wait) w += wait[f]; printf "%.0f %.0f\n", (all - w) / calls, all / calls }'
}

echo "${fn#P} (MPI_DOUBLE, MPI_SUM), $np ranks: instructions per call on rank 0 outside the PML's wait"
echo "(whole: the whole call, the request waits' own bookkeeping included, polling still not)"
printf '%8s %8s %8s %10s %8s %8s %10s\n' bytes topo tuned topo/tuned whole whole whole
for bytes in "${sizes[@]}"; do
    for c in topo tuned; do
        if [ $c = topo ]; then sel=topo,tuned,inter,basic,libnbc,self; else sel=tuned,inter,basic,libnbc,self; fi
        mpirun "${flags[@]}" -np "$np" --mca coll "$sel" --mca coll_topo_verbose 1 \
            valgrind --tool=callgrind --toggle-collect="$fn" --toggle-collect=opal_progress \
            --callgrind-out-file="$tmp/$c.$bytes.%q{OMPI_COMM_WORLD_RANK}" \
            "$prog" --calls "$calls" "$bytes" "$prim" >"$tmp/$c.$bytes.log" 2>&1 ||
            { cat "$tmp/$c.$bytes.log" >&2; exit 1; }
    done
    grep -Eq "coll:topo: .*: $vprim (uses |goes to the previous module )" "$tmp/topo.$bytes.log" ||
        { echo "overhead: coll/topo did not run" >&2; cat "$tmp/topo.$bytes.log" >&2; exit 1; }
    read -r t tw < <(per_call "$tmp/topo.$bytes.0")
    read -r u uw < <(per_call "$tmp/tuned.$bytes.0")
    awk -v b="$bytes" -v t="$t" -v u="$u" -v tw="$tw" -v uw="$uw" \
        'BEGIN { printf "%8d %8d %8d %10.2f %8d %8d %10.2f\n", b, t, u, t / u, tw, uw, tw / uw }'
done
echo "coll/topo's choices:"
grep -hE ": $vprim (uses |goes to the previous module )" "$tmp"/topo.*.log | sort -u | sed 's/^/  /'
