#!/bin/sh
# Copyright (c) The ompi-coll-topo authors.
# SPDX-License-Identifier: BSD-3-Clause
# tools/topo-sim: the component's schedules replayed in SimGrid.  Skipped
# (77) where configure did not build it (no SimGrid, or --without-simgrid).
# The binary is $TOPO_SIM, else $TOPO_BUILDDIR/tools/topo-sim (make check
# exports TOPO_BUILDDIR and TOPO_HAVE_SIMGRID), else ../../tools/topo-sim
# from this script.
here=$(cd "$(dirname "$0")" && pwd)
sim=${TOPO_SIM:-${TOPO_BUILDDIR:-$here/../..}/tools/topo-sim}
if [ "${TOPO_HAVE_SIMGRID:-}" = no ]; then
    echo "SKIP: topo-sim not built (configure found no SimGrid, or --without-simgrid)"
    exit 77
fi
if [ ! -x "$sim" ]; then
    if [ "${TOPO_HAVE_SIMGRID:-}" = yes ]; then
        echo "FAIL: $sim not built (make in the top-level build directory)" >&2
        exit 1
    fi
    echo "SKIP: $sim not built"
    exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/topo-sim.XXXXXX") || exit 1
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
    "$sim" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
    got=$?
    [ "$got" = "$want" ] || fail "topo-sim $* exited $got, expected $want: $(cat "$tmp/$name.err")"
}
header='primitive,topology,algorithm,bytes,simulated_s,predicted_s,ran'

# (d) the CSV's columns, on the 8x8 torus: the header, then one line of 7
# fields per algorithm and size, every time positive
algos=ring,recursive_doubling,rabenseifner,swing_bw,bucket
run torus 0 --topology torus:8x8 --algorithms "$algos,auto" --sizes 1k,64k,1M,16M
[ "$(head -n 1 "$tmp/torus.out")" = "$header" ] || fail "torus: header is '$(head -n 1 "$tmp/torus.out")'"
lines=$(sed 1d "$tmp/torus.out" | awk -F, 'NF == 7 && $1 == "allreduce" && $2 == "torus:8x8" &&
    $4 ~ /^[0-9]+$/ && $5 > 0 && $6 > 0' | wc -l)
[ "$lines" -eq 24 ] || fail "torus: $lines well-formed lines of 24:
$(cat "$tmp/torus.out")"
# auto's lines name what auto ran; the others themselves
sed 1d "$tmp/torus.out" | awk -F, '$3 != "auto" && $3 != $7 { bad = 1 } END { exit bad }' ||
    fail "torus: a forced algorithm's line names another: $(cat "$tmp/torus.out")"

# (c) auto within a factor 1.25 of the best algorithm simulated at each size
# (every allreduce algorithm that fits; on this torus the model prices its
# symmetric schedules exactly, so auto is the best there)
run all 0 --topology torus:8x8 --algorithms all,auto --sizes 1k,64k,1M,16M
sed 1d "$tmp/all.out" | awk -F, '
    $3 == "auto" { a[$4] = $5; next }
    !($4 in best) || $5 < best[$4] { best[$4] = $5; who[$4] = $3 }
    END {
        n = 0
        for (m in a) {
            n++
            if (a[m] > 1.25 * best[m]) {
                printf "auto at %s bytes: %.6g s, %s %.6g s\n", m, a[m], who[m], best[m]
                bad = 1
            }
        }
        if (n != 4) { print "auto: " n " sizes of 4"; bad = 1 }
        exit bad
    }' >"$tmp/auto.txt" || fail "auto is not within 1.25 of the best: $(cat "$tmp/auto.txt")"

# (a) a single neighbour exchange of M bytes (recursive doubling on 2 ranks
# of a mesh: one exchange, one link each way) takes latency + M / bandwidth
run pair 0 --topology mesh:2 --algorithms recursive_doubling --gamma 0 --latency 1.5e-6 \
    --bandwidth 12.5e9 --sizes 8,64k,1M,16M
sed 1d "$tmp/pair.out" | awk -F, '
    { want = 1.5e-6 + $4 / 12.5e9; d = $5 - want; if (d < 0) d = -d
      n++
      if (d > 1e-9 * want) { printf "%s bytes: %.12g s, expected %.12g\n", $4, $5, want; bad = 1 } }
    END { if (n != 4) { print n " lines of 4"; bad = 1 }; exit bad }' >"$tmp/pair.txt" ||
    fail "neighbour exchange: $(cat "$tmp/pair.txt")"

# (b) ring allreduce on a ring of 64: 2 (p - 1) (alpha + M / (p bw)) within 1%
run ring 0 --topology torus:64 --algorithms ring --gamma 0 --sizes 64k,1M,16M
sed 1d "$tmp/ring.out" | awk -F, '
    { p = 64; want = 2 * (p - 1) * (2e-6 + $4 / (p * 1e10)); r = $5 / want
      n++
      if (r < 0.99 || r > 1.01) { printf "%s bytes: %.9g s, closed form %.9g\n", $4, $5, want; bad = 1 } }
    END { if (n != 3) { print n " lines of 3"; bad = 1 }; exit bad }' >"$tmp/ring.txt" ||
    fail "ring allreduce: $(cat "$tmp/ring.txt")"

# ties (a peer exactly half way around an even ring) go half each way, as
# the cost model routes them.  On a ring of 2 the exchange uses both links:
# alpha + M / (2 bw) (the model prices a message on one port, at least the
# whole message: alpha + M / bw).  Recursive doubling on a ring of 8 loads
# the busiest link with M, 2 M (ranks 0->2 and 1->3 share 1->2) and 2 M
# (every rank sends M/2 over 4 links each way): 3 alpha + 5 M / bw, the
# cost model's price too
run tie2 0 --topology torus:2 --algorithms recursive_doubling --gamma 0 --sizes 1M
run tie8 0 --topology torus:8 --algorithms recursive_doubling --gamma 0 --sizes 1M
cat "$tmp/tie2.out" "$tmp/tie8.out" | awk -F, '
    $2 == "torus:2" { want = 2e-6 + 1048576 / 2e10; model = 2e-6 + 1048576 / 1e10 }
    $2 == "torus:8" { want = model = 3 * 2e-6 + 5 * 1048576 / 1e10 }
    $1 == "allreduce" { n++; r = $5 / want; q = $6 / model
        if (r < 0.999999 || r > 1.000001 || q < 0.999999 || q > 1.000001) {
            printf "%s: %.9g s, predicted %.9g, expected %.9g and %.9g\n", $2, $5, $6, want, model
            bad = 1 } }
    END { if (n != 2) { print n " lines of 2"; bad = 1 }; exit bad }' >"$tmp/tie.txt" ||
    fail "ties: $(cat "$tmp/tie.txt")"

# a star and a mesh: where every rank's step is alike (ring, recursive
# doubling, Rabenseifner), the simulation is the model's price (1e-6)
for topo in star:16 mesh:4x4; do
    run "sym-$topo" 0 --topology "$topo" --algorithms ring,recursive_doubling,rabenseifner --sizes 64k,1M
    sed 1d "$tmp/sym-$topo.out" | awk -F, '
        { n++; r = $5 / $6; if (r < 0.999999 || r > 1.000001) { print; bad = 1 } }
        END { if (n != 6) { print n " lines of 6"; bad = 1 }; exit bad }' >"$tmp/sym.txt" ||
        fail "$topo: simulated and predicted differ: $(cat "$tmp/sym.txt")"
done

# a graph: topology (the circulant C(16, {1, 4}), every link listed):
# bfb's neighbour messages are simulated as predicted, and bfb is faster
# than ring at 16 MiB (every link busy in every step)
for u in 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do
    for s in 1 4 12 15; do echo "$u $(((u + s) % 16))"; done
done >"$tmp/c16.txt"
run graph 0 --topology "graph:$tmp/c16.txt" --primitive allgather --algorithms bfb,ring --sizes 64k,16M
sed 1d "$tmp/graph.out" | awk -F, '
    $3 == "bfb" { n++; r = $5 / $6; if (r < 0.999999 || r > 1.000001) { print; bad = 1 }; t[$4] = $5 }
    $3 == "ring" { ring[$4] = $5 }
    END { if (n != 2 || !(t[16777216] < ring[16777216])) { print "bfb " t[16777216] " ring " ring[16777216]; bad = 1 }
          exit bad }' >"$tmp/graph.txt" ||
    fail "graph: $(cat "$tmp/graph.txt"): $(cat "$tmp/graph.out")"

# barrier: empty messages (1 byte each in the simulation) take their
# latency: the predicted time within 1e-3
run barrier 0 --topology torus:8x8 --primitive barrier --algorithms all --sizes 0
sed 1d "$tmp/barrier.out" | awk -F, '{ r = $5 / $6; if (r < 1 || r > 1.001) bad = 1 } END { exit bad }' ||
    fail "barrier: $(cat "$tmp/barrier.out")"

# the replay of one rank per orbit (where every rank's schedule is its
# representative's translate on the torus) gives the full replay's times,
# to 1e-9: both with SimGrid's full max-min update (its default lazy update
# can move a few flows' shares where rates tie, by up to 5% on torus:2x8)
for c in "torus:8x8 allreduce 1k,1M" "torus:2x8 alltoall 64k,1M" "torus:6x4 allgather 64k,1M" \
    "torus:4x4x4 reduce_scatter 1M"; do
    # shellcheck disable=SC2086 # the case's words
    set -- $c
    run agg 0 --topology "$1" --primitive "$2" --algorithms all --sizes "$3" --cfg=network/optim:Full
    run full 0 --topology "$1" --primitive "$2" --algorithms all --sizes "$3" --cfg=network/optim:Full --no-aggregate
    grep -q '([1-9][0-9]* on one rank per orbit)' "$tmp/agg.err" ||
        fail "$c: nothing replayed on one rank per orbit: $(cat "$tmp/agg.err")"
    grep -q '(0 on one rank per orbit)' "$tmp/full.err" || fail "$c: --no-aggregate aggregated: $(cat "$tmp/full.err")"
    paste -d, "$tmp/agg.out" "$tmp/full.out" | sed 1d | awk -F, '
        { n++; r = $5 / $12; if ($3 != $10 || $4 != $11 || r < 1 - 1e-9 || r > 1 + 1e-9) { print; bad = 1 } }
        END { if (n < 4) { print n " lines"; bad = 1 }; exit bad }' >"$tmp/agg.txt" ||
        fail "$c: aggregated and full replays differ: $(cat "$tmp/agg.txt")"
done

# tuned: Open MPI 4.1's fixed allreduce decision on 64 ranks (recursive
# doubling below 256 KiB, Rabenseifner from there) and on 4,096 (its
# reduce + bcast below 2 KiB, taken as recursive doubling)
run tuned 0 --topology torus:8x8 --algorithms tuned --sizes 32,255k,256k
[ "$(sed 1d "$tmp/tuned.out" | cut -d, -f7 | paste -sd' ')" = "recursive_doubling recursive_doubling rabenseifner" ] ||
    fail "tuned on 64 ranks: $(cat "$tmp/tuned.out")"
run tunedbig 0 --topology torus:64x64 --algorithms tuned --sizes 1k --list-algorithms
grep -qx dbt "$tmp/tunedbig.out" || fail "--list-algorithms: $(cat "$tmp/tunedbig.out")"
run tunedrd 0 --topology torus:16x16 --algorithms tuned --sizes 4095,4k,1M --gamma 0
[ "$(sed 1d "$tmp/tunedrd.out" | cut -d, -f7 | paste -sd' ')" = "recursive_doubling rabenseifner rabenseifner" ] ||
    fail "tuned on 256 ranks: $(cat "$tmp/tunedrd.out")"
run tunednc 2 --topology torus:8x8 --algorithms tuned --non-commutative

# scripts/simulate.sh's smoke setup (the Swing setup's network on the 8x8
# torus, four sizes): every algorithm that fits, auto and tuned at each
# size, and auto the fastest of them (the model prices these symmetric
# schedules exactly)
TOPO_SIM=$sim bash "$here/../../scripts/simulate.sh" --setup smoke --out "$tmp/smoke" >"$tmp/smoke.log" 2>&1 ||
    fail "simulate.sh --setup smoke: $(cat "$tmp/smoke.log")"
awk -F, 'NR > 1 { n[$4]++; if ($3 == "auto") a[$4] = $5; else if ($3 != "tuned" && (!($4 in b) || $5 < b[$4])) b[$4] = $5 }
    END { for (m in n) { k++; if (a[m] > 1.000001 * b[m]) { print "auto at " m ": " a[m] " > " b[m]; bad = 1 } }
          if (k != 4) { print k " sizes"; bad = 1 }; exit bad }' "$tmp/smoke/smoke.csv" >"$tmp/smoke.txt" ||
    fail "simulate.sh --setup smoke: $(cat "$tmp/smoke.txt")"

# no leaks, no memory errors (where valgrind is installed): ties, a
# reduction, auto, and a barrier
if command -v valgrind >/dev/null 2>&1; then
    for args in "--topology torus:4 --algorithms recursive_doubling,auto --sizes 3,1k" \
        "--topology torus:4x2 --algorithms swing_bw,tuned --sizes 1k" \
        "--topology torus:2x2 --primitive barrier --algorithms all --sizes 0"; do
        # shellcheck disable=SC2086
        valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=9 \
            "$sim" $args >"$tmp/vg.out" 2>"$tmp/vg.err" ||
            fail "valgrind topo-sim $args: $(cat "$tmp/vg.err")"
    done
fi

# errors
run noalgo 2 --topology torus:8x8 --algorithms nosuch
grep -q "no allreduce algorithm 'nosuch'" "$tmp/noalgo.err" || fail "noalgo: $(cat "$tmp/noalgo.err")"
run notopo 2 --sizes 8
run fullmesh 2 --topology fullmesh
run ports 2 --topology torus:4x4,ports=2
run help 0 --help
grep -q 'Not modelled' "$tmp/help.out" || fail "--help does not say what is not modelled"

if [ "$failures" -gt 0 ]; then
    echo "test-topo-sim: $failures failure(s)" >&2
    exit 1
fi
echo "test-topo-sim: all passed"
