#!/bin/sh
# Copyright (c) The ompi-coll-topo authors.
# SPDX-License-Identifier: BSD-3-Clause
# tools/topo-graph: the graph families (Kautz diameters, circulant
# distances, expansions), bfb's bandwidth term against the bound, graph:
# files read back by topo-plan, the catalog of trade-offs and the chooser's
# order at tiny and huge payloads.  The binaries are $TOPO_GRAPH and
# $TOPO_PLAN, else under $TOPO_BUILDDIR/tools (make check exports it), else
# ../../tools from this script.
here=$(cd "$(dirname "$0")" && pwd)
tools=${TOPO_BUILDDIR:-$here/../..}/tools
graph=${TOPO_GRAPH:-$tools/topo-graph}
plan=${TOPO_PLAN:-$tools/topo-plan}
for b in "$graph" "$plan"; do
    if [ ! -x "$b" ]; then
        echo "FAIL: $b not built (make in the top-level build directory)" >&2
        exit 1
    fi
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/topo-graph.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}
# run NAME EXPECTED-STATUS PROGRAM ARGS...: output in $tmp/NAME.out, .err
run() {
    name=$1 want=$2 bin=$3
    shift 3
    "$bin" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
    got=$?
    [ "$got" = "$want" ] || fail "$(basename "$bin") $* exited $got, expected $want: $(cat "$tmp/$name.err")"
}
has() { # has NAME REGEX [stream]
    grep -Eq -- "$2" "$tmp/$1.${3:-out}" || fail "$1: no line matching '$2' in:
$(cat "$tmp/$1.${3:-out}")"
}

# Kautz K(d, D) on d^D + d^(D-1) ranks has diameter D
run k12 0 "$graph" info kautz:12:2
has k12 '^kautz:12:2: 12 ranks, 24 links, degree 2 \(in 2\), diameter 3$'
run k36 0 "$graph" info kautz:36:3
has k36 'diameter 3$'
run k20 0 "$graph" info kautz:20:4
has k20 'diameter 2$'
# the line graph of K(2, 2) is K(2, 3): the same trade-off
run lk 0 "$graph" info 'line(kautz:6:2)'
has lk '12 ranks, 24 links, degree 2 \(in 2\), diameter 3$'
has lk 'bandwidth term 0\.583333 M'
# circulants: C(17, {1, 4}) has diameter 3, C(13, {1, 5}) diameter 2, and
# bfb is bandwidth-optimal on both (degree 4)
run c17 0 "$graph" info circulant:17:1,4
has c17 'degree 4 \(in 4\), diameter 3$'
has c17 'ratio 1\.0000\)$'
run c13 0 "$graph" info circulant:13:1,5
has c13 'diameter 2$'
# a 4x4 torus: bfb's bandwidth term is the optimum (N - 1) / (N d) = 15/64
run t44 0 "$graph" info torus:4x4
has t44 'diameter 4$'
has t44 'bandwidth term 0\.234375 M \(bound 0\.234375 M'
# degree expansion by 2 of C(8, {1, 2}): 16 ranks of degree 8
run deg 0 "$graph" info 'degree(circulant:8:1,2,2)'
has deg '^degree\(circulant:8:1,2,2\): 16 ranks, 128 links, degree 8 \(in 8\), diameter 2$'
run prod 0 "$graph" info 'product(kautz:6:2,circulant:5:1)'
has prod ': 30 ranks, 120 links, degree 4 \(in 4\)'

# a graph: file, read back by both tools
run write 0 "$graph" write circulant:8:1,3 -o "$tmp/c8.txt"
grep -q '^degree 4$' "$tmp/c8.txt" || fail "write: no 'degree 4' line in $(cat "$tmp/c8.txt")"
[ "$(grep -c '^[0-9]' "$tmp/c8.txt")" = 32 ] || fail "write: not 32 links in $tmp/c8.txt"
run back 0 "$graph" info "graph:$tmp/c8.txt"
has back ': 8 ranks, 32 links, degree 4 \(in 4\), diameter 2$'
run plan 0 "$plan" --topology "graph:$tmp/c8.txt" --primitive allgather --sizes 16M
has plan '^allgather on graph:.*c8\.txt: 8 ranks, 4 ports per rank$'
has plan 'links shared under shortest-path routing$'
has plan '^bfb +2 '
has plan '^  bucket: excluded'
run dump 0 "$plan" --topology "graph:$tmp/c8.txt" --primitive allgather --dump bfb
has dump 'most loaded link 0\.125 M'
has dump 'most loaded link 0\.09375 M'
# a malformed file: the line number; not strongly connected
printf '0 1\n1 0\n1 two\n' >"$tmp/bad.txt"
run bad 2 "$plan" --topology "graph:$tmp/bad.txt"
has bad 'bad\.txt:3: expected' err
printf '0 1\n1 2\n2 1\n' >"$tmp/weak.txt"
run weak 2 "$plan" --topology "graph:$tmp/weak.txt"
has weak 'not strongly connected' err
run size 2 "$plan" --topology "graph:$tmp/c8.txt" --size 6
run spec 2 "$graph" info circulant:8:5
has spec 'offset 5' err

# the catalog of (steps, bandwidth) trade-offs for 64 ranks of degree 4
run cat 0 "$graph" catalog 64 4
has cat '^kautz:64:4 +3 +0\.328125 +1\.3333 \*$'
has cat '^circulant:64:1,10 +6 +0\.246094 +1\.0000 \*$'
has cat '^torus:8x8 +8 +0\.246094 +1\.0000 *$'
has cat '^line\(circulant:16:1,4\) +4 +0\.250000 '

# choosing the topology: at 8 bytes the smallest diameter wins (Kautz), at
# 1 GiB (copies free) the bandwidth-optimal ones come first, the circulant
# (diameter 3) before the torus (4), Kautz after them
run tiny 0 "$graph" choose 16 4 8
first=$(awk '$1 == "1" { print $2 }' "$tmp/tiny.out")
[ "$first" = kautz:16:4 ] || fail "choose 16 4 8: $first first, expected kautz:16:4: $(cat "$tmp/tiny.out")"
run huge 0 "$graph" choose 16 4 1G --primitive allgather --copy 0
order=$(awk '$1 ~ /^[0-9]+$/ { printf "%s ", $2 }' "$tmp/huge.out")
case $order in
"circulant:16:1,4 "*) ;;
*) fail "choose 16 4 1G: order $order, expected circulant:16:1,4 first" ;;
esac
krank=$(awk '$2 == "kautz:16:4" { print $1 }' "$tmp/huge.out")
trank=$(awk '$2 == "torus:4x4" { print $1 }' "$tmp/huge.out")
[ -n "$krank" ] && [ -n "$trank" ] && [ "$krank" -gt "$trank" ] ||
    fail "choose 16 4 1G: kautz rank $krank, torus rank $trank: $order"
has huge ' bfb +[0-9.]+$'

[ "$failures" = 0 ] || exit 1
echo "PASS: topo-graph"
