#!/usr/bin/env bash
# Copyright (c) The ompi-coll-topo authors.
# SPDX-License-Identifier: BSD-3-Clause
# The core at scale: one rank's schedule of every algorithm of the catalog
# at N = 65,536 (torus:256x256 and a ring of 65,536: topo-plan
# --bench-schedules, processor time and the bytes the schedule holds,
# against 2 ms and 1 MiB), and the decision table of every primitive on
# torus:256x256 as the component prices it (256 sampled ranks: topo-plan
# --rules), its processor time and peak memory per process, and the
# pricing's own (topo-plan --bench-table), against 50 ms and 4 MiB.
#
#   bash scripts/scale-bench.sh [TOPO_PLAN]     (default _build/dev/tools/topo-plan)
set -u
plan=${1:-_build/dev/tools/topo-plan}
[ -x "$plan" ] || { echo "scale-bench: no $plan (build first)" >&2; exit 1; }
for t in torus:256x256 torus:65536; do
    "$plan" --topology "$t" --bench-schedules || exit 1
    echo
done
echo "decision table on torus:256x256 (topo-plan --rules, 256 ranks priced; target 50 ms, 4 MiB)"
# cpu s and peak MiB: the whole process (/usr/bin/time; its baseline is
# barrier's row); table s and table MiB: the pricing alone, as topo-plan
# --bench-table measures it (processor time, and the resident memory the
# pricing added at its peak over the process's before it)
printf '%-15s %10s %10s %10s %10s\n' primitive "cpu s" "peak MiB" "table s" "table MiB"
for p in allreduce reduce_scatter allgather bcast reduce alltoall barrier; do
    if [ -x /usr/bin/time ]; then
        r=$(/usr/bin/time -f '%U %S %M' "$plan" --topology torus:256x256 --primitive "$p" --rules \
            --bench-table 2>&1 >/dev/null | tail -2 | tr '\n' ' ')
        # "table: S s processor time, peak resident +X MiB (Y MiB)" then "U S M"
        read -r _ ts _ _ _ _ _ tm _ _ _ u s m <<<"$r"
        awk -v p="$p" -v u="$u" -v s="$s" -v m="$m" -v ts="$ts" -v tm="${tm#+}" \
            'BEGIN { printf "%-15s %10.2f %10.1f %10.3f %10.1f\n", p, u + s, m / 1024, ts, tm }'
    else
        r=$("$plan" --topology torus:256x256 --primitive "$p" --rules --bench-table 2>&1 >/dev/null |
            tail -1)
        read -r _ ts _ _ _ _ _ tm _ <<<"$r"
        awk -v p="$p" -v ts="$ts" -v tm="${tm#+}" \
            'BEGIN { printf "%-15s %10s %10s %10.3f %10.1f\n", p, "-", "-", ts, tm }'
    fi
done
echo
echo "decision table on torus:256x256 priced by a job of 65,536 ranks together (topo-plan --rules"
echo "--job 65536, coll_topo_price_share; target 50 ms, 4 MiB per process)"
# per process: the worst of the ranks that price (each run in a process of
# its own from the same exchanges: its processor time and the peak resident
# memory it added); rounds: the slowest rank of each of the three rounds
# (bounds, the lighter half, the heavier half), whose sum is the first
# call's critical path; same: the table equals the single process's
printf '%-15s %10s %10s %22s %6s\n' primitive "s/process" "MiB/proc" "rounds s" same
for p in allreduce reduce_scatter allgather bcast reduce alltoall barrier; do
    one=$("$plan" --topology torus:256x256 --primitive "$p" --rules)
    r=$("$plan" --topology torus:256x256 --primitive "$p" --rules --job 65536 --bench-table 2>&1)
    line=$(grep '^table per process' <<<"$r")
    rules=$(grep -v '^table per process' <<<"$r")
    # "table per process: S s processor time, peak resident +X MiB (... rounds bounds,
    # light, heavy: A + B + C s, ...)"
    ts=$(sed -E 's/^table per process: ([0-9.]+) s.*/\1/' <<<"$line")
    tm=$(sed -E 's/.*peak resident \+([0-9.]+) MiB.*/\1/' <<<"$line")
    rounds=$(sed -E 's/.*heavy: ([0-9.]+) \+ ([0-9.]+) \+ ([0-9.]+) s.*/\1+\2+\3/' <<<"$line")
    same=no
    [ "$one" = "$rules" ] && same=yes
    printf '%-15s %10.3f %10.1f %22s %6s\n' "$p" "$ts" "$tm" "$rounds" "$same"
done
