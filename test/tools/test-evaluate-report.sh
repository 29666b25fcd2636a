#!/usr/bin/env bash
# Copyright (c) The ompi-coll-topo authors.
# SPDX-License-Identifier: BSD-3-Clause
# scripts/evaluate.sh --report-only over the data of two runs (the second
# made with --append): the report has a table for every setup, primitive
# and size the data holds, lists both runs' commands, and computes its
# ratios from the medians (synthetic times, so the expected cells are
# known).  No testbed and no measurement.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$here/../..
command -v gnuplot >/dev/null || { echo "SKIP: no gnuplot"; exit 77; }
command -v ompi_info >/dev/null || { echo "SKIP: no ompi_info"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
d=$tmp/data
mkdir -p "$d"
printf '%s\n' "--setups torus:4x4@200mbit --prims allreduce" \
    "--append --setups torus:2x2x2@50mbit --prims bcast,alltoall" >"$d/runs.txt"
{
    echo "setup,rate,primitive,config,rep,bytes,seconds"
    for rep in 1 2 3; do
        for b in 1048576 4194304; do
            # tuned 0.4 s, auto 0.1 s (the medians: reps 2 of 0.1/0.1/0.3),
            # the best forced coll/topo algorithm 0.08 s
            echo "torus:4x4,200mbit,allreduce,tuned,$rep,$b,0.4"
            echo "torus:4x4,200mbit,allreduce,auto,$rep,$b,$([ $rep = 3 ] && echo 0.3 || echo 0.1)"
            echo "torus:4x4,200mbit,allreduce,tuned:ring,$rep,$b,0.2"
            echo "torus:4x4,200mbit,allreduce,topo:swing_bw,$rep,$b,0.08"
        done
        for p in bcast alltoall; do
            echo "torus:2x2x2,50mbit,$p,tuned,$rep,65536,0.05"
            echo "torus:2x2x2,50mbit,$p,auto,$rep,65536,0.05"
        done
    done
} >"$d/times.csv"
{
    echo "setup,rate,primitive,config,bytes,algorithm,predicted_seconds"
    echo "torus:4x4,200mbit,allreduce,auto,1048576,swing_bw,0.05"
    echo "torus:4x4,200mbit,allreduce,auto,4194304,swing_bw,0.1"
    echo "torus:2x2x2,50mbit,bcast,auto,65536,dbt,0.05"
} >"$d/predicted.csv"
bash "$root/scripts/evaluate.sh" --report-only --data "$d" --out "$tmp/EVAL.md" >/dev/null 2>"$tmp/err" ||
    { cat "$tmp/err"; echo "FAIL: evaluate.sh --report-only"; exit 1; }
r=$tmp/EVAL.md
fail=0
want() { grep -qF -- "$1" "$r" || { echo "FAIL: the report lacks: $1"; fail=1; }; }
want "bash scripts/evaluate.sh --setups torus:4x4@200mbit --prims allreduce"
want "bash scripts/evaluate.sh --append --setups torus:2x2x2@50mbit --prims bcast,alltoall"
want "### allreduce on torus:4x4 at 200mbit per link"
want "### bcast on torus:2x2x2 at 50mbit per link"
want "### alltoall on torus:2x2x2 at 50mbit per link"
# tuned 400 ms / auto 100 ms = 4.00; best tuned (ring) 0.2 / 0.1 = 2.00;
# regret 0.1 / 0.08 = 1.25, its choice forced 0.08 / 0.08 = 1.00;
# predicted 0.05 / 0.1 = 0.50; spread 200%
want "| 1 MiB | 400.0 ms | 4.00 | 2.00 (ring) | swing_bw | 1.25 (1.00) | 0.50 | 200% |"
want "| 4 MiB | 400.0 ms | 4.00 | 2.00 (ring) | swing_bw | 1.25 (1.00) | 1.00 | 200% |"
want "| 64 KiB | 50.0 ms | 1.00 |"
# the targets: the worst of 1 and 4 MiB, regret over 1.15 missed; no row
# for the setup measured below 1 MiB only
want "| torus:4x4@200mbit | allreduce | 1-4 MiB | 4.00 | 2.00 | 1.25 **missed** (1.00) | - |"
grep -qF "| torus:2x2x2@50mbit |" "$r" && { echo "FAIL: a target row for sizes below 1 MiB"; fail=1; }
[ "$(grep -c '^### .* per link$' "$r")" = 3 ] || { echo "FAIL: $(grep -c '^### .* per link$' "$r") tables, want 3"; fail=1; }
[ "$fail" = 0 ] || { cat "$r"; exit 1; }

# --drop (the row filter --replace uses before it measures): bcast at
# 50mbit on 2x2x2 goes, bcast at 200mbit (another rate) and alltoall (another
# primitive) of the same setup stay, and so do their predictions
for rep in 1 2 3; do echo "torus:2x2x2,200mbit,bcast,auto,$rep,65536,0.07"; done >>"$d/times.csv"
echo "torus:2x2x2,50mbit,bcast,auto,65536,dbt,0.05" >>"$d/predicted.csv"
echo "torus:2x2x2,200mbit,bcast,auto,65536,dbt,0.06" >>"$d/predicted.csv"
bash "$root/scripts/evaluate.sh" --report-only --drop --setups torus:2x2x2@50mbit --prims bcast \
    --data "$d" --out "$tmp/EVAL2.md" >/dev/null 2>"$tmp/err" ||
    { cat "$tmp/err"; echo "FAIL: evaluate.sh --report-only --drop"; exit 1; }
r=$tmp/EVAL2.md
grep -q '^torus:2x2x2,50mbit,bcast,' "$d/times.csv" "$d/predicted.csv" &&
    { echo "FAIL: --drop left rows of torus:2x2x2@50mbit bcast"; fail=1; }
[ "$(grep -c '^torus:2x2x2,200mbit,bcast,' "$d/times.csv")" = 3 ] ||
    { echo "FAIL: --drop removed bcast at another rate"; fail=1; }
grep -q '^torus:2x2x2,200mbit,bcast,' "$d/predicted.csv" ||
    { echo "FAIL: --drop removed a prediction at another rate"; fail=1; }
[ "$(grep -c '^torus:2x2x2,50mbit,alltoall,' "$d/times.csv")" = 6 ] ||
    { echo "FAIL: --drop removed another primitive's rows"; fail=1; }
[ "$(head -1 "$d/times.csv")" = "setup,rate,primitive,config,rep,bytes,seconds" ] ||
    { echo "FAIL: --drop lost the header"; fail=1; }
want "### bcast on torus:2x2x2 at 200mbit per link"
want "### alltoall on torus:2x2x2 at 50mbit per link"
want "bash scripts/evaluate.sh --report-only --drop --setups torus:2x2x2@50mbit --prims bcast"
grep -qF "### bcast on torus:2x2x2 at 50mbit per link" "$r" &&
    { echo "FAIL: the report still has the dropped table"; fail=1; }
[ "$(grep -c '^### .* per link$' "$r")" = 3 ] || { echo "FAIL: $(grep -c '^### .* per link$' "$r") tables after --drop, want 3"; fail=1; }
if bash "$root/scripts/evaluate.sh" --drop --setups torus:2x2x2@50mbit --data "$d" >/dev/null 2>"$tmp/err"; then
    echo "FAIL: --drop without --report-only was accepted"; fail=1
fi
grep -q -- "--drop goes with --report-only" "$tmp/err" || { echo "FAIL: no message for --drop alone"; cat "$tmp/err"; fail=1; }
[ "$fail" = 0 ] || { cat "$r"; exit 1; }
echo "PASS: the report of two runs (--append): 3 tables, both commands, the ratios from the medians; --drop removes exactly one setup@rate's primitive"
