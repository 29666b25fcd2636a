#!/usr/bin/env bash
# Copyright (c) The ompi-coll-topo authors.
# SPDX-License-Identifier: BSD-3-Clause
# Compare the schedules of two topo-plan binaries (an old build and a new
# one): `topo-plan --dump ALGO` for every algorithm of the catalog (as
# `topo-plan --catalog` of the NEW binary lists it) over rings and stars of
# 1-9, 16 and 17 ranks, a full mesh, tori and meshes of 2 and 3 dimensions,
# a 2-port torus, payloads of 0 and 8 B, a few elements fewer than ranks,
# 1 KiB and 1 MiB, and for the rooted primitives the roots 0, size/2 and
# size-1.  Every dump (every rank's schedule, its bytes, the output on
# stderr and the exit status) must be identical byte for byte.
#
#   bash scripts/compare-schedules.sh OLD/topo-plan NEW/topo-plan [-v]
#
# -v prints the first lines of each difference.  Exit status: the number of
# cases that differ (at most 255; 0: all identical).
set -u
old=${1:?usage: compare-schedules.sh OLD_TOPO_PLAN NEW_TOPO_PLAN [-v]}
new=${2:?usage: compare-schedules.sh OLD_TOPO_PLAN NEW_TOPO_PLAN [-v]}
verbose=${3:-}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/compare-schedules.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# "primitive algorithm" per catalog row: | prim | `name` | ...
mapfile -t algos < <("$new" --catalog | sed -n 's/^| \([a-z_]*\) | `\([a-z_0-9]*\)` |.*/\1 \2/p')
if [ "${#algos[@]}" -eq 0 ]; then
    echo "compare-schedules: $new --catalog lists no algorithm" >&2
    exit 1
fi

# "topology-arguments size" per shape
shapes=()
for n in 1 2 3 4 5 6 7 8 9 16 17; do
    shapes+=("--topology torus:$n|$n" "--topology star --size $n|$n")
done
shapes+=("--topology mesh:8|8" "--topology fullmesh --size 6|6")
for g in 2x2:4 3x3:9 4x4:16 2x8:16 3x5:15 3x3x6:54 8x8:64; do
    shapes+=("--topology torus:${g%:*}|${g#*:}")
done
shapes+=("--topology mesh:4x4|16" "--topology mesh:3x5|15" "--topology torus:4x4,ports=2|16")

payloads="0 8 40 1k 1M"
cases=0 differ=0
for sh in "${shapes[@]}"; do
    topo=${sh%|*} n=${sh#*|}
    for pa in "${algos[@]}"; do
        prim=${pa% *} algo=${pa#* }
        roots=0
        if [ "$prim" = bcast ] || [ "$prim" = reduce ]; then
            roots=$(printf '%s\n' 0 $((n / 2)) $((n - 1)) | sort -un | tr '\n' ' ')
        fi
        for root in $roots; do
            for m in $payloads; do
                args="$topo --primitive $prim --root $root --sizes $m --dump $algo"
                # shellcheck disable=SC2086
                { "$old" $args; echo "exit $?"; } >"$tmp/old" 2>&1
                # shellcheck disable=SC2086
                { "$new" $args; echo "exit $?"; } >"$tmp/new" 2>&1
                cases=$((cases + 1))
                if ! cmp -s "$tmp/old" "$tmp/new"; then
                    differ=$((differ + 1))
                    echo "DIFFERS: topo-plan $args"
                    if [ "$verbose" = -v ]; then
                        diff "$tmp/old" "$tmp/new" | head -10
                    fi
                fi
            done
        done
    done
done
echo "compare-schedules: $cases cases, $differ differ"
[ "$differ" -gt 255 ] && differ=255
exit "$differ"
