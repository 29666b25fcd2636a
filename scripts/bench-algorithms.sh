#!/usr/bin/env bash
# Copyright (c) The ompi-coll-topo authors.
# SPDX-License-Identifier: BSD-3-Clause
# Each algorithm of a primitive forced, next to coll/tuned, in the same run
# of this script: which one wins at each size on this machine (what `auto`
# should pick), and by how much.
#
#   bash scripts/bench-algorithms.sh [--primitive P] NP MAX_BYTES ALGORITHM... [-- mpirun args]
#
# Prints per message size (from 8 bytes, each BENCH_FACTOR (default 8)
# times the last; barrier: one size, 0) the time per call in microseconds of
# tuned and of each ALGORITHM (coll_topo_<P>_algorithm), one run each
# (BENCH_REPS runs, default 1, the median kept), and the best.  A forced
# algorithm that does not fit a call hands it to the previous module: such
# a run stops the script.  Quote numbers only from runs with a core per
# rank: `--bind-to core` is added when the machine has as many cores as
# ranks.  BENCH_TESTBED=PREFIX runs it on that testbed (scripts/bench-lib.sh:
# launch).  Last, the measured winners as a value of coll_topo_<P>_rules
# (payloads M as the rules count them: bytes per rank times NP for
# allgather, reduce_scatter(_block) and alltoall; ranges split at the
# geometric mean of two measured sizes; the fastest algorithm named, or
# `previous` (the previous module) where tuned beat it by more than
# BENCH_TIE, default 0.05), in a group for communicators of NP ranks
# (NP@...; groups of several sizes join with ';'): one run on one
# machine, to check before use.
# BENCH_RAW=FILE also appends the medians to FILE as lines "NP PRIMITIVE
# ALGORITHM BYTES US" (tuned as `tuned`), the input of
# scripts/model-vs-measured.sh (keep BENCH_SYNC=1 runs in a file of their
# own: they time something else).  BENCH_SYNC and BENCH_ROTATE_ROOT as in
# scripts/bench.sh.
# Example (docs/benchmarks.md, 16 ranks):
#
#   bash scripts/bench-algorithms.sh --primitive bcast 16 262144 binomial dbt pipelined_chain
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench-lib.sh
. "$root/scripts/bench-lib.sh"
bench_args "$@"
set -- "${extra[@]}"
[ ${#algs[@]} -gt 0 ] || { echo "bench-algorithms: name at least one algorithm" >&2; exit 2; }
bind_cores "$np"
reps=${BENCH_REPS:-1}
# the rules' payload M per measured size (bytes per rank for these)
case $prim in
allgather | reduce_scatter_block | reduce_scatter | alltoall) mult=$np ;;
*) mult=1 ;;
esac
for a in tuned "${algs[@]}"; do
    for r in $(seq "$reps"); do
        if [ "$a" = tuned ]; then
            launch "$tmp/$a.run$r" /dev/stderr --mca coll tuned,inter,basic,libnbc,self "$@"
        else
            launch "$tmp/$a.run$r" "$tmp/$a.err" --mca coll topo,tuned,inter,basic,libnbc,self \
                --mca coll_topo_verbose 1 --mca "coll_topo_${vprim}_algorithm" "$a" "$@"
            grep -q ": $vprim uses $a (" "$tmp/$a.err" ||
                { echo "bench-algorithms: coll/topo did not run $a" >&2; cat "$tmp/$a.err" >&2; exit 1; }
        fi
    done
    median "$a" >"$tmp/$a.med"
done
if [ -n "${BENCH_RAW:-}" ]; then
    for a in tuned "${algs[@]}"; do
        awk -v np="$np" -v p="$prim" -v a="$a" '{ printf "%s %s %s %s %.3f\n", np, p, a, $1, $2 * 1e6 }' \
            "$tmp/$a.med"
    done >>"$BENCH_RAW"
fi
echo "$prim, $np ranks, $(nproc) cores, us per call (median of $reps run(s) each, $timing; $*):"
for a in tuned "${algs[@]}"; do
    awk -v a="$a" '{ print $1, a, $2 * 1e6 }' "$tmp/$a.med"
done | awk -v order="tuned ${algs[*]}" -v prim="$vprim" -v mult="$mult" -v np="$np" \
    -v tol="${BENCH_TIE:-0.05}" '
    BEGIN { na = split(order, names, " ") }
    { t[$1, $2] = $3; if (!($1 in seen)) { seen[$1] = 1; sizes[++ns] = $1 } }
    END {
        printf "%12s", "bytes"
        for (i = 1; i <= na; i++) printf " %12s", substr(names[i], 1, 12)
        printf "  %s\n", "best (tuned/best)"
        for (s = 1; s <= ns; s++) {
            b = sizes[s]; best = ""
            printf "%12d", b
            for (i = 1; i <= na; i++) {
                v = t[b, names[i]]
                printf " %12.3f", v
                if (best == "" || v < t[b, best]) best = names[i]
            }
            printf "  %s (%.2f)\n", best, t[b, "tuned"] / t[b, best]
            # the fastest algorithm, unless tuned beats it by more than tol
            ours = ""
            for (i = 2; i <= na; i++)
                if (ours == "" || t[b, names[i]] < t[b, ours]) ours = names[i]
            win[s] = t[b, "tuned"] < t[b, ours] * (1 - tol) ? "previous" : ours
        }
        rules = np "@"; lo = 0
        for (s = 1; s <= ns; s++) {
            if (s < ns && win[s + 1] == win[s]) continue
            hi = s < ns ? sprintf("%.0f", sqrt(sizes[s] * sizes[s + 1]) * mult) : "inf"
            rules = rules (lo == 0 ? "" : ",") lo "-" hi ":" win[s]
            lo = hi
        }
        printf "measured winners as rules: --mca coll_topo_%s_rules %s\n", prim, rules
    }'
