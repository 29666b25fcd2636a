#!/bin/sh
# Copyright (c) The ompi-coll-topo authors.
# SPDX-License-Identifier: BSD-3-Clause
# tools/topo-plan: the decision table, argument errors, --dump and --plot.
# The binary is $TOPO_PLAN, else $TOPO_BUILDDIR/tools/topo-plan (make check
# exports TOPO_BUILDDIR), else ../../tools/topo-plan from this script.
here=$(cd "$(dirname "$0")" && pwd)
plan=${TOPO_PLAN:-${TOPO_BUILDDIR:-$here/../..}/tools/topo-plan}
if [ ! -x "$plan" ]; then
    echo "FAIL: $plan not built (make in the top-level build directory)" >&2
    exit 1
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/topo-plan.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}
# run NAME EXPECTED-STATUS ARGS...: output in $tmp/NAME.out, .err
run() {
    name=$1 want=$2
    shift 2
    "$plan" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
    got=$?
    [ "$got" = "$want" ] || fail "topo-plan $* exited $got, expected $want: $(cat "$tmp/$name.err")"
}
has() { # has NAME REGEX [stream]
    grep -Eq -- "$2" "$tmp/$1.${3:-out}" || fail "$1: no line matching '$2' in:
$(cat "$tmp/$1.${3:-out}")"
}

# the decision table on an 8x8 torus
run table 0 --topology torus:8x8
has table '^allreduce on torus:8x8: 64 ranks, 4 ports per rank'
has table '^ring +126 '
has table '^recursive_doubling +6 '
has table '^chosen:'
has table '^  8 B +[a-z_]+ +[0-9.]+ us$'
has table '^  16 MiB +[a-z_]+ +[0-9.]+ us$'
# one choice per size
stars=$(sed -n '/^algorithm/,/^chosen:/p' "$tmp/table.out" | grep -o '\*' | wc -l)
[ "$stars" -eq 5 ] || fail "table: $stars sizes marked chosen, expected 5"
# 16 MiB: link sharing makes recursive doubling the wrong choice
grep -Eq '^  16 MiB +recursive_doubling ' "$tmp/table.out" && fail "table: recursive_doubling chosen at 16 MiB"
# link sharing raises recursive doubling's price over the ports-only one
run nolinks 0 --topology torus:8x8 --no-links --sizes 16M
run links 0 --topology torus:8x8 --sizes 16M
with=$(awk '$1 == "recursive_doubling" { gsub(/\*/, "", $3); print $3 }' "$tmp/links.out")
without=$(awk '$1 == "recursive_doubling" { gsub(/\*/, "", $3); print $3 }' "$tmp/nolinks.out")
awk -v a="$with" -v b="$without" 'BEGIN { exit !(a > b * 1.1) }' ||
    fail "recursive_doubling at 16 MiB: $with us with link sharing, $without us without"
# excluded candidates carry their reason
run noncomm 0 --topology torus:4x4 --non-commutative --sizes 8
has noncomm '^excluded:'
has noncomm '^  ring: excluded \(ring needs a commutative operation\)'

# the protocol switch: with a 4032-byte eager limit, recursive doubling's
# whole-vector message goes by rendezvous from 4033 bytes, and the table
# hands that range to swing_lat (two messages of half the vector)
run eager 0 --topology star --size 2 --eager-limit 4032 --sizes 4k
has eager '^protocol: messages above 4032 bytes go by rendezvous'
has eager '^ +0 B - 4032 B +recursive_doubling$'
has eager '^ +4033 B - 8064 B +swing_lat$'
has eager '^  4 KiB +swing_lat '
run noeager 0 --topology star --size 2 --sizes 4k
has noeager '^protocol: no eager/rendezvous switch'
has noeager '^  4 KiB +recursive_doubling '

# what a BTL between hosts publishes: beta 8 / (Mbit/s * 1e6), alpha the
# latency, the eager limit less 64 bytes; on torus:4x4 at TCP's
# 100 Mbit/s allgather of 1-8 MiB is not recursive doubling (whose
# messages share links), as it is with the shared-memory defaults at 4 MiB
run btl 0 --topology torus:4x4 --primitive allgather --sizes 1M,2M,4M,8M \
    --btl-bandwidth 100 --btl-latency 100 --btl-eager-limit 65536
has btl '^model: alpha 0\.0001 s, beta 8e-08 s/B,'
has btl '^protocol: messages above 65472 bytes go by rendezvous, \+0\.0002 s per step'
grep -Eq '^  [1-8] MiB +recursive_doubling ' "$tmp/btl.out" && fail "btl: recursive_doubling chosen"
run btldef 0 --topology torus:4x4 --primitive allgather --sizes 4M --eager-limit 65472
has btldef '^  4 MiB +recursive_doubling '
# explicit values win over the BTL's
run btlset 0 --topology torus:4x4 --sizes 1M --btl-bandwidth 100 --btl-latency 100 --beta 3e-9 --alpha 1e-5
has btlset '^model: alpha 1e-05 s, beta 3e-09 s/B,'
run btlbad 2 --topology torus:4x4 --btl-bandwidth fast

# a large communicator: the ring's 2(p-1) steps on every one of 1100 ranks
# are more than is priced in full, so 64 ranks are (--price-ranks); the
# ring repeats from rank to rank and costs 2(p-1) alphas all the same
run sampled 0 --topology star --size 1100 --price-ranks 64 --msg-overhead 0 --sizes 8
has sampled 'price_ranks 64;'
has sampled '^ring +2198 +\*?4396\.0'
run badsample 2 --topology star --size 8 --price-ranks -1
# on a torus, whose links are modelled: 512 ranks of torus:8x8x8, the ring
# sampled too, its busiest link estimated (one block per step, as routed);
# --no-prune: priced although it cannot win
run tsampled 0 --topology torus:8x8x8 --price-ranks 64 --msg-overhead 0 --sizes 8,1M --no-prune
has tsampled '^ring +1022 +2044\.002 +2357\.958'
# pruned (the default): listed with its lower bound, marked >, and the
# same decision table
run tpruned 0 --topology torus:8x8x8 --price-ranks 64 --msg-overhead 0 --sizes 8,1M
has tpruned '^ring +1022 +>[0-9.]+ +>[0-9.]+$'
has tpruned '^> = pruned, not priced'
sed -n '/^decision table:/,$p' "$tmp/tsampled.out" >"$tmp/tsampled.table"
sed -n '/^decision table:/,$p' "$tmp/tpruned.out" >"$tmp/tpruned.table"
cmp -s "$tmp/tsampled.table" "$tmp/tpruned.table" ||
    fail "tpruned: the decision table differs from --no-prune's"

# placements (--nodes): half of a 4x4 torus on two rows or on every other
# node; with a hop cost the ring's latency follows the longest route (2
# hops in rows, 3 scattered: 14 steps of 2 + 1 or 2 + 2 us; no per-message
# overhead)
# (--no-prune: ring cannot win, and would be listed with its bound)
run rows 0 --topology torus:4x4 --nodes 0-7 --hop 1e-6 --msg-overhead 0 --sizes 8 --no-prune
run scattered 0 --topology torus:4x4 --nodes 0,2,4,6,8,10,12,14 --hop 1e-6 --msg-overhead 0 \
    --sizes 8 --no-prune
# the per-message overhead: 14 steps in which every rank sends one message
# and receives one
run rows_o 0 --topology torus:4x4 --nodes 0-7 --hop 1e-6 --msg-overhead 1e-6 --sizes 8 --no-prune
has rows_o '^ring +14 +\*?70\.0'
has rows_o 'msg_overhead 1e-06 s' 
has rows '^placed on nodes 0-7 '
has rows '^allreduce on torus:4x4: 8 ranks'
has rows '^ring +14 +\*?42\.0'
has scattered '^ring +14 +\*?56\.0'
has rows '^  bucket: excluded \(.*whole grid in order\)'
run badnodes 2 --topology torus:4x4 --nodes 0,16
has badnodes 'outside the grid' err
run nodesfull 2 --topology fullmesh --size 4 --nodes 0,1
has nodesfull 'needs a torus, mesh or star' err
run badrepeat 2 --topology star --nodes 0*x
has badrepeat 'bad repeat count' err
# a star's hosts (coll_topo_locality): two hosts of two ranks; recursive
# doubling's first step stays on the hosts (1 ms), the second crosses the
# switch (2 us)
run starhosts 0 --topology star --nodes 0*2,1*2 --intra-alpha 1e-3 --msg-overhead 0 --sizes 8 \
    --no-prune
has starhosts '^placed on nodes 0\*2,1\*2 '
has starhosts '^allreduce on star: 4 ranks'
has starhosts '^recursive_doubling +2 +\*?1002\.0'
has starhosts '^ring +6 +\*?6000\.0'

# argument errors: the parser's message, status 2
run badtopo 2 --topology torus:4xQ
has badtopo 'torus:4xQ' err
run nosize 2 --topology star
has nosize 'size' err
run mismatch 2 --topology torus:4x4 --size 8
run badsize 2 --topology star --size 4 --sizes 1k,lots
run badopt 2 --topology star --size 4 --frobnicate
run badalgo 2 --topology torus:4x4 --dump no_such_algorithm

# --dump: ring at rank 0 of a 4x4 torus sends to 1 and receives from 15
run dump 0 --topology torus:4x4 --dump ring --rank 0 --sizes 1M
has dump '^schedule of allreduce ring on torus:4x4, 16 ranks'
has dump '^step 0: max hops [0-9]+'
has dump '^  rank 0 lane 0: send to 1 \[[0-9-]+\] 65536 B 1 hop; recv\+reduce from 15 \[[0-9-]+\] 65536 B 2 hops$'
has dump '^step 29'
grep -q '^  rank 1 ' "$tmp/dump.out" && fail "dump --rank 0 shows rank 1"
# alltoall's payload M is one rank's send buffer, half of its 2p blocks: a
# message of linear alltoall on 4 ranks carries M/4
run dump-alltoall 0 --topology star --size 4 --primitive alltoall --dump linear --rank 0 --sizes 4k
has dump-alltoall '^  rank 0 lane 0: copy \[0\] -> \[4\] 1024 B; send to 1 \[1\] 1024 B 1 hop; recv from 3 \[7\] 1024 B'

# --rules: the table as a coll_topo_<primitive>_rules value, one item per
# range from 0 to inf, naming at each size the algorithm the table chooses,
# in a group for the table's communicator size (NP@)
rules_agree() { # rules_agree NAME NP ARGS...: --rules against the table's choices
    rn=$1
    np=$2
    shift 2
    run "$rn" 0 "$@" --rules
    run "$rn.table" 0 "$@" --sizes 8,1k,64k,1M,16M,1G
    value=$(cat "$tmp/$rn.out")
    printf '%s\n' "$value" |
        grep -Eq '^[0-9]+@(0-[0-9]+[kmg]?:[a-z_]+(,[0-9]+[kmg]?-[0-9]+[kmg]?:[a-z_]+)*,?[0-9kmg]*-?inf:[a-z_]+|0-inf:[a-z_]+)$' ||
        fail "$rn: not a rules value from 0 to inf for one communicator size: $value"
    [ "${value%%@*}" = "$np" ] || fail "$rn: the rules are not for $np ranks: $value"
    value=${value#*@}
    sed -n '/^chosen:/,$p' "$tmp/$rn.table.out" | awk -v rules="$value" '
        function bytes(v,   n, u) {
            if (v == "inf") return 2^64
            n = v + 0; u = substr(v, length(v))
            return n * (u == "k" ? 1024 : u == "m" ? 1048576 : u == "g" ? 1073741824 : 1)
        }
        /^  [0-9]+ [KMG]?i?B / {
            m = $1 * ($2 == "KiB" ? 1024 : $2 == "MiB" ? 1048576 : $2 == "GiB" ? 1073741824 : 1)
            n = split(rules, item, ",")
            got = ""
            for (i = 1; i <= n; i++) {
                split(item[i], part, "[-:]")
                if (m >= bytes(part[1]) && m < bytes(part[2])) got = part[3]
            }
            if (got != $3) { print $1 " " $2 ": the table chooses " $3 ", the rules " got; bad = 1 }
            checked++
        }
        END { exit bad || checked != 6 }' ||
        fail "$rn: --rules and the table disagree: $value"
}
rules_agree rules-torus 64 --topology torus:8x8
rules_agree rules-bcast 32 --topology torus:4x4x2 --primitive bcast --eager-limit 4032
rules_agree rules-reduce 12 --topology star --size 12 --primitive reduce --root 5
run rules-dump 2 --topology torus:4x4 --rules --dump ring

# --first-stage: the component's first stage on a large communicator
# prices only the candidates that can win up to 4096 bytes; its table
# there is the full table's, with more candidates pruned
table_rows() { # table_rows FILE: "LO ALGO" per row of the decision table up to 4 KiB
    sed -n '/^decision table:/,/^chosen:/p' "$1" | awk '
        /^ +[0-9]+ [KMG]?i?B - / {
            lo = $1 * ($2 == "KiB" ? 1024 : $2 == "MiB" ? 1048576 : $2 == "GiB" ? 1073741824 : 1)
            if (lo <= 4096) print lo, $NF
        }'
}
first_stage() { # first_stage NAME ARGS...
    fn=$1
    shift
    run "$fn" 0 "$@" --sizes 8,1k,4k --first-stage
    run "$fn.full" 0 "$@" --sizes 8,1k,4k
    has "$fn" '^> = pruned, not priced: .* at every payload up to 4096 bytes'
    has "$fn" '^ +[0-9]+ [KMG]?i?B - 4 KiB +[a-z_]+$'
    [ -n "$(table_rows "$tmp/$fn.out")" ] &&
        [ "$(table_rows "$tmp/$fn.out")" = "$(table_rows "$tmp/$fn.full.out")" ] ||
        fail "$fn: the first stage's table differs from the full one up to 4 KiB:
$(table_rows "$tmp/$fn.out")
against
$(table_rows "$tmp/$fn.full.out")"
    [ "$(sed -n '/^chosen:/,$p' "$tmp/$fn.out")" = "$(sed -n '/^chosen:/,$p' "$tmp/$fn.full.out")" ] ||
        fail "$fn: the first stage chooses differently"
    [ "$(grep -c ' >[0-9]' "$tmp/$fn.out")" -gt "$(grep -c ' >[0-9]' "$tmp/$fn.full.out")" ] ||
        fail "$fn: the first stage pruned no more than the full pricing"
}
first_stage first-torus --topology torus:8x8x4 --eager-limit 4032
first_stage first-star --topology star --size 300 --primitive reduce_scatter --eager-limit 4032
first_stage first-mesh --topology mesh:8x8 --primitive allgather
run first-sizes 2 --topology torus:4x4 --first-stage --sizes 8,8k
has first-sizes '--first-stage prices for payloads up to 4096 bytes' err
run first-rules 2 --topology torus:4x4 --first-stage --rules

# --job N: the table priced by N ranks together is the single process's
# (the rules, and the whole listing but the pruned rows: the job prunes a
# subset of what one process prunes), for every primitive, sampled or not;
# --bench-table's line names the worst rank's share
for prim in allreduce reduce_scatter allgather bcast reduce alltoall barrier; do
    for shape in "torus:4x4x4" "torus:8x8 --price-ranks 16" "star --size 24 --root 5"; do
        # shellcheck disable=SC2086
        a=$("$plan" --topology $shape --primitive "$prim" --eager-limit 4032 --rules 2>&1)
        # shellcheck disable=SC2086
        b=$("$plan" --topology $shape --primitive "$prim" --eager-limit 4032 --rules --job 7 2>&1)
        [ "$a" = "$b" ] || fail "--job 7 --rules on $shape, $prim: '$b', alone '$a'"
        # shellcheck disable=SC2086
        a=$("$plan" --topology $shape --primitive "$prim" --sizes 8,64k,16M | sed -n '/^decision table:/,$p')
        # shellcheck disable=SC2086
        b=$("$plan" --topology $shape --primitive "$prim" --sizes 8,64k,16M --job 300 |
            sed -n '/^decision table:/,$p')
        [ "$a" = "$b" ] || fail "--job 300 on $shape, $prim: the table and choices differ"
    done
done
run job-bench 0 --topology torus:4x4 --rules --job 40 --bench-table
has job-bench '^table per process: [0-9.]+ s processor time, peak resident \+[0-9.]+ MiB \(the worst of the [0-9]+ of 40 ranks that price: rank [0-9]+ in time, pricing [a-z_,]+' err
has job-bench 'a rank that prices nothing: [0-9.]+ s, \+[0-9.]+ MiB; rounds bounds, light, heavy' err
run job-zero 2 --topology torus:4x4 --rules --job 0
has job-zero '--job' err
run job-first 2 --topology torus:4x4 --job 4 --first-stage
has job-first '--job prices the table of every payload' err
run job-dump 2 --topology torus:4x4 --job 4 --dump ring
has job-dump '--job prices the table: not with --dump' err

# --plot
if command -v gnuplot >/dev/null 2>&1; then
    run plot 0 --topology torus:4x4 --plot "$tmp/plan.svg"
    [ -s "$tmp/plan.svg" ] || fail "--plot: $tmp/plan.svg not written"
    [ -s "$tmp/plan.gp" ] && [ -s "$tmp/plan.dat" ] || fail "--plot: no script or data"
else
    echo "SKIP: --plot (gnuplot not installed; scripts/install-deps.sh installs gnuplot-nox)"
fi
run badplot 2 --topology torus:4x4 --plot "$tmp/plan.pdf"

if [ $failures -gt 0 ]; then
    echo "$failures failure(s)" >&2
    exit 1
fi
echo "topo-plan: all checks passed"
