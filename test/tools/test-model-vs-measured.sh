#!/usr/bin/env bash
# Copyright (c) The ompi-coll-topo authors.
# SPDX-License-Identifier: BSD-3-Clause
# scripts/model-vs-measured.sh on recorded 16-rank runs (the fixture
# test/data/forced-16-ranks.txt): every measured size gets the model's
# choice and its measured time, and the summary counts them all.  (The numbers follow the model's defaults; the shape is
# what is tested, and that a different model changes the choices.)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$here/../..
build=${TOPO_BUILDDIR:-$top}
[ -x "$build/tools/topo-plan" ] || { echo "SKIP: no topo-plan in $build/tools"; exit 77; }
data=$here/../data/forced-16-ranks.txt
[ -r "$data" ] || { echo "ERROR: the fixture $data is missing"; exit 99; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: model-vs-measured: $*"; exit 1; }

TOPO_BUILD=$build bash "$top/scripts/model-vs-measured.sh" "$data" >"$tmp/out" ||
    fail "exited $?: $(tail -3 "$tmp/out")"
# one line per measured (ranks, primitive, size)
want=$(awk '!/^#/ && NF >= 5 { print $1, $2, $4 }' "$data" | sort -u | wc -l)
have=$(awk '$1 ~ /^[0-9]+$/ && NF >= 6' "$tmp/out" | wc -l)
[ "$want" = "$have" ] || fail "$have size lines, $want measured sizes"
# the summary: every size whose choice and tuned were measured
all=$(awk '$1 == "all" { print $2 }' "$tmp/out")
unmeasured=$(sed -n 's/^(\([0-9]*\) size(s) whose chosen algorithm was not measured)$/\1/p' "$tmp/out")
notuned=$(awk '$1 ~ /^[0-9]+$/ && $NF == "-"' "$tmp/out" | wc -l)
# (at least half of them: a choice no run measured, a new algorithm's, is
# counted apart)
[ -n "$all" ] && [ "$all" -ge $((want / 2)) ] || fail "no summary over the sizes: $(tail -3 "$tmp/out")"
[ $((all + ${unmeasured:-0} + notuned)) -ge "$want" ] || fail "the summary counts $all of $want sizes"
# each choice is the starred candidate of topo-plan's own table
line=$(awk '$1 == 16 && $2 == "allreduce" && $3 == 262144' "$tmp/out")
chosen=$(echo "$line" | awk '{ print $4 }')
"$build/tools/topo-plan" --topology star --nodes '0*16' --primitive allreduce --eager-limit 4032 \
    --sizes 262144 | grep -q "^$chosen .*\*" || fail "allreduce 256 KiB: $chosen is not topo-plan's choice"
# another model, other choices: a huge latency makes every size pick the
# algorithm of fewest steps
TOPO_BUILD=$build bash "$top/scripts/model-vs-measured.sh" "$data" --intra-alpha 1 >"$tmp/slow" ||
    fail "--intra-alpha 1: exited $?"
cmp -s "$tmp/out" "$tmp/slow" && fail "--intra-alpha 1 changed no choice"
echo "PASS: model-vs-measured: $have sizes, $all in the summary"
