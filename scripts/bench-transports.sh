#!/usr/bin/env bash
# Copyright (c) The ompi-coll-topo authors.
# SPDX-License-Identifier: BSD-3-Clause
# The same coll/topo algorithms over both transports (coll_topo_transport
# pml and ofi), in one run of this script: what libfabric gains or costs
# against Open MPI's PML, per message size.
#
#   bash scripts/bench-transports.sh [--primitive P] NP MAX_BYTES [ALGORITHM...] [-- mpirun args]
#
# Prints per message size (as scripts/bench-algorithms.sh: from 8 bytes,
# each BENCH_FACTOR times the last) the time per call in microseconds over
# the PML (btl vader: shared memory) and over libfabric
# (coll_topo_ofi_provider BENCH_OFI_PROVIDER, default shm; for "tcp;ofi_rxm"
# FI_TCP_IFACE=lo is passed), and their ratio pml/ofi (above 1: libfabric
# is faster), for each ALGORITHM forced (coll_topo_<P>_algorithm), or for
# the cost model's choice (`auto`) when none is named.  BENCH_TESTBED=PREFIX
# runs both on that running testbed (scripts/testbed.sh; NP a multiple of
# its nodes): the PML over Open MPI's TCP BTL, libfabric over provider
# BENCH_OFI_PROVIDER, default "tcp;ofi_rxm", on the node addresses
# (FI_TCP_IFACE=node).  BENCH_REPS runs
# each (default 1), the median kept.  Every run must say that coll/topo
# ran the algorithm, and the libfabric runs that the transport is ofi, or
# the script stops.  Quote numbers only from runs with a core per rank.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench-lib.sh
. "$root/scripts/bench-lib.sh"
bench_args "$@"
set -- "${extra[@]}"
[ ${#algs[@]} -gt 0 ] || algs=(auto)
bind_cores "$np"
reps=${BENCH_REPS:-1}
if [ -n "${BENCH_TESTBED:-}" ]; then
    provider=${BENCH_OFI_PROVIDER:-"tcp;ofi_rxm"}
    iface=node
    where="testbed $BENCH_TESTBED (TCP between nodes)"
else
    provider=${BENCH_OFI_PROVIDER:-shm}
    iface=lo
    where="$(nproc) cores"
fi
for a in "${algs[@]}"; do
    for t in pml ofi; do
        for r in $(seq "$reps"); do
            launch "$tmp/$a.$t.run$r" "$tmp/$a.$t.err" --mca coll topo,tuned,inter,basic,libnbc,self \
                --mca coll_topo_verbose 1 --mca "coll_topo_${vprim}_algorithm" "$a" \
                --mca coll_topo_transport "$t" --mca coll_topo_ofi_provider "$provider" \
                -x "FI_TCP_IFACE=$iface" "$@" ||
                { echo "bench-transports: the run of $a over $t failed" >&2; cat "$tmp/$a.$t.err" >&2; exit 1; }
            if [ "$a" != auto ] && ! grep -q ": $vprim uses $a (" "$tmp/$a.$t.err"; then
                echo "bench-transports: coll/topo did not run $a over $t" >&2
                cat "$tmp/$a.$t.err" >&2
                exit 1
            fi
            if ! grep -q "transport $t" "$tmp/$a.$t.err" && [ "$t" = ofi ]; then
                echo "bench-transports: the transport of $a is not $t" >&2
                cat "$tmp/$a.$t.err" >&2
                exit 1
            fi
        done
        median "$a.$t" >"$tmp/$a.$t.med"
    done
done
echo "$prim, $np ranks, $where, us per call (median of $reps run(s) each, $timing;" \
    "ofi provider $provider; $*):"
printf '%-20s %12s %12s %12s %8s\n' algorithm bytes pml ofi pml/ofi
for a in "${algs[@]}"; do
    join "$tmp/$a.pml.med" "$tmp/$a.ofi.med" |
        awk -v a="$a" '{ printf "%-20s %12d %12.3f %12.3f %8.2f\n", a, $1, $2 * 1e6, $3 * 1e6, $2 / $3 }'
done
