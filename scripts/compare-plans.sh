#!/usr/bin/env bash
# Copyright (c) The ompi-coll-topo authors.
# SPDX-License-Identifier: BSD-3-Clause
# Compare the decisions of two topo-plan binaries (an old build and a new
# one) on a set of topologies, primitives, roots and protocol settings: the
# decision tables and the choices must be identical, and so must the
# prices of every candidate both of them price (a candidate topo-plan
# prunes is listed with its lower bound, values marked >: its row is
# skipped, in both outputs where the old one prunes it).  NEW may be a
# wrapper that adds --job N: the table its ranks price together must be
# the same.
#
#   bash scripts/compare-plans.sh OLD/topo-plan NEW/topo-plan [--large]
#
# --large adds the 16384-rank cases (torus:32x32x16, a star of 16384; some
# with the protocol switch, as the component prices) and prints both
# binaries' times.  Exit status: the number of cases that
# differ (0: all identical).
set -u
old=$1 new=$2
large=${3:-}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/compare-plans.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
prims="allreduce reduce_scatter allgather bcast reduce alltoall barrier"
sizes=0,1,8,100,1k,4k,16k,64k,256k,1M,16M,1G
cases=()
for t in torus:4x4x4 torus:8x8x8 torus:16x8x8 mesh:8x8 mesh:4x4x4 mesh:16x8 \
    "torus:8x8,ports=2" "star --size 8" "star --size 100" "star --size 1024"; do
    for p in $prims; do
        cases+=("--topology $t --primitive $p")
    done
done
# larger, rooted, non-commutative, with the protocol switch, placed
for p in $prims; do
    cases+=("--topology torus:16x16x16 --primitive $p --sizes 8,1M")
    cases+=("--topology star --size 4096 --primitive $p")
    cases+=("--topology torus:8x8x8 --primitive $p --eager-limit 4032")
    cases+=("--topology star --size 1024 --primitive $p --eager-limit 4032")
    cases+=("--topology star --nodes 0*8,1*8,2*8,3*8 --primitive $p --eager-limit 4032")
    cases+=("--topology torus:4x4 --nodes 0-7 --primitive $p")
    cases+=("--topology torus:8x8x8 --primitive $p --price-ranks 0")
done
for r in 1 5 37 511; do
    for p in bcast reduce; do
        cases+=("--topology torus:8x8x8 --primitive $p --root $r")
        cases+=("--topology star --size 1024 --primitive $p --root $r --eager-limit 4032")
        cases+=("--topology star --size 1000 --primitive $p --root $r --non-commutative")
    done
done
for p in allreduce reduce_scatter reduce; do
    cases+=("--topology star --size 100 --primitive $p --non-commutative")
    cases+=("--topology torus:8x8x8 --primitive $p --non-commutative")
done
if [ "$large" = --large ]; then
    for p in $prims; do
        cases+=("--topology torus:32x32x16 --primitive $p --sizes 8,1M")
        cases+=("--topology star --size 16384 --primitive $p --sizes 8,1M")
    done
    for p in allreduce reduce_scatter alltoall; do
        cases+=("--topology torus:32x32x16 --primitive $p --sizes 8,1M --eager-limit 4032")
        cases+=("--topology star --size 16384 --primitive $p --sizes 8,1M --eager-limit 4032")
    done
fi

# The decision table and the choices, and the price rows of the
# candidates both list as priced.
tables() { sed -n '/^decision table:/,$p' "$1"; }
rows() { sed -n '/^algorithm/,/^\(> = pruned\|excluded:\|decision table:\)/p' "$1" |
    grep -v '^\(algorithm\|> = pruned\|excluded:\|decision table:\)' | grep -v '>' || true; }

differ=0
n=0
for c in "${cases[@]}"; do
    n=$((n + 1))
    # shellcheck disable=SC2086
    case "$c" in *--sizes*) s=() ;; *) s=(--sizes "$sizes") ;; esac
    t0=$(date +%s.%N)
    # shellcheck disable=SC2086
    "$old" $c "${s[@]}" >"$tmp/old" 2>&1
    t1=$(date +%s.%N)
    # shellcheck disable=SC2086
    "$new" $c "${s[@]}" >"$tmp/new" 2>&1
    t2=$(date +%s.%N)
    bad=""
    cmp -s <(tables "$tmp/old") <(tables "$tmp/new") || bad="decision table"
    rows "$tmp/old" | sort >"$tmp/old.rows"
    # a candidate the old one pruned has no price to compare (a NEW that
    # prices with --job prunes fewer: topo-plan --job)
    pruned=$(sed -n '/^algorithm/,/^\(> = pruned\|excluded:\|decision table:\)/p' "$tmp/old" |
        grep '>' | awk '{ print $1 }' | grep -v '^>$' || true)
    rows "$tmp/new" | awk -v p="$pruned" 'BEGIN { n = split(p, a, "\n"); for (i = 1; i <= n; i++) skip[a[i]] = 1 }
        !($1 in skip)' | sort >"$tmp/new.rows"
    # every priced row of the new output is the old one's
    if [ -n "$(comm -13 "$tmp/old.rows" "$tmp/new.rows")" ]; then
        bad="${bad:+$bad, }prices"
    fi
    if [ "$large" = --large ]; then
        printf '%-75s old %6.2f s  new %6.2f s\n' "$c" "$(echo "$t1 - $t0" | bc)" \
            "$(echo "$t2 - $t1" | bc)"
    fi
    if [ -n "$bad" ]; then
        differ=$((differ + 1))
        echo "DIFFERENT ($bad): topo-plan $c"
        diff "$tmp/old" "$tmp/new" | head -20
    fi
done
echo "$n cases, $differ different"
exit $((differ > 125 ? 125 : differ))
