#!/usr/bin/env bash
# Copyright (c) The ompi-coll-topo authors.
# SPDX-License-Identifier: BSD-3-Clause
# scripts/bench-lease.sh on 2 ranks with tiny payloads: the benchmark
# harness a lent machine's time is spent on (bench_allreduce in both of
# its timings, bench.sh, bench-algorithms.sh, bench-lease.sh) produces the
# files and lines that docs/benchmarks.md's tables and model-vs-measured.sh
# read.
# No assertion is on a measured time, only that each is a positive number.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$here/../..
build=${TOPO_BUILDDIR:-$top}
command -v mpirun >/dev/null 2>&1 || { echo "SKIP: mpirun not found"; exit 77; }
[ -x "$build/test/mpi/bench_allreduce" ] || { echo "SKIP: no bench_allreduce in $build/test/mpi"; exit 77; }
[ -x "$build/tools/topo-plan" ] || { echo "SKIP: no topo-plan in $build/tools"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench-lease.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: bench-lease: $*"; exit 1; }

TOPO_BUILD=$build BENCH_MAX=64 BENCH_FACTOR=8 bash "$top/scripts/bench-lease.sh" "$tmp/out" 2 \
    machine auto:bcast all:reduce sync:reduce fsync:reduce >"$tmp/log" 2>&1 ||
    fail "exited $?: $(tail -5 "$tmp/log")"
ls "$tmp/out" >"$tmp/files"
[ "$(wc -l <"$tmp/files")" -le 7 ] || fail "more than 7 files: $(tr '\n' ' ' <"$tmp/files")"
grep -q '^nproc: [0-9]' "$tmp/out/machine.txt" || fail "machine.txt has no nproc line"
# a ratio table per timing: sizes 8 and 64, four positive numbers each
table() { # FILE HEADER-WORDS [TABLES]
    grep -q "$2" "$1" || fail "$(basename "$1"): no header with '$2'"
    awk -v want=$((2 * ${3:-1})) '$1 == 8 || $1 == 64 { if (NF == 4 && $2 > 0 && $3 > 0 && $4 > 0) n++ }
        END { exit n != want }' "$1" ||
        fail "$(basename "$1"): not $((2 * ${3:-1})) rows of positive times: $(cat "$1")"
}
# auto.txt: bcast as installed, and reduce with floating-point sums timed too
table "$tmp/out/auto.txt" "bcast, 2 ranks, .*back-to-back calls" 2
grep -q "reduce, 2 ranks, .*back-to-back calls (--mca coll_topo_autotune all)" "$tmp/out/auto.txt" ||
    fail "auto.txt: no reduce table with coll_topo_autotune all: $(cat "$tmp/out/auto.txt")"
table "$tmp/out/auto-sync.txt" "reduce, 2 ranks, .*one call at a time (BENCH_SYNC=1)"
# (on 2 ranks a bcast of one eager message is handed to tuned: its line says so)
grep -Eq "coll:topo: .*: bcast (uses|goes to the previous module) " "$tmp/out/auto.txt" ||
    fail "auto.txt: coll/topo's choice is not shown"
# every algorithm of reduce that fits a star of 2 ranks, and tuned, forced
# one call at a time: a positive time per size in forced-sync.txt
algs=$("$build/tools/topo-plan" --topology star --size 2 --primitive reduce --sizes 8 |
    awk '/^algorithm/ { on = 1; next } /^excluded/ { on = 0 } on && $1 ~ /^[a-z_0-9]+$/ && $2 ~ /^[0-9]+$/ { print $1 }')
[ -n "$algs" ] || fail "topo-plan listed no algorithm of reduce"
for a in tuned $algs; do
    for b in 8 64; do
        awk -v a="$a" -v b="$b" '$1 == 2 && $2 == "reduce" && $3 == a && $4 == b && $5 > 0 { f = 1 }
            END { exit !f }' "$tmp/out/forced-sync.txt" ||
            fail "forced-sync.txt has no time of $a at $b bytes"
    done
done
grep -q "one call at a time (BENCH_SYNC=1)" "$tmp/out/forced-tables.txt" ||
    fail "forced-tables.txt does not say which timing it is"
[ ! -e "$tmp/out/forced.txt" ] || fail "a BENCH_SYNC run wrote forced.txt (the back-to-back file)"
echo "PASS: bench-lease: $(wc -l <"$tmp/files") files, reduce forced one call at a time: tuned $(tr '\n' ' ' <<<"$algs")"
