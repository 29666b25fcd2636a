#!/usr/bin/env bash
# Copyright (c) The ompi-coll-topo authors.
# SPDX-License-Identifier: BSD-3-Clause
# How good are the cost model's choices on a machine whose times were
# recorded?  Replays forced runs (each algorithm timed next to tuned, as
# scripts/bench-algorithms.sh measures them) through topo-plan's decision,
# offline, without the machine.
#
#   bash scripts/model-vs-measured.sh FILE [topo-plan options...]
#
# FILE: lines "NP PRIMITIVE ALGORITHM BYTES US" (bytes per rank for
# allgather, reduce_scatter_block and alltoall; ALGORITHM `tuned` for
# coll/tuned), e.g. docs/bench/xeon16-auto-forced-calibrate/forced.txt.  Every
# (NP, primitive) is priced as NP ranks on one host (--topology star
# --nodes 0*NP --eager-limit 4032, the shared-memory eager limit), with the
# topo-plan options given (a model to try: --msg-overhead 2e-7, ...).
#
# Prints per measured size the algorithm the model chooses, its measured
# time, the fastest measured algorithm of ours and tuned's time; then per
# primitive and in all:
#   choice/best  geometric mean of (the chosen algorithm's time) / (the
#                fastest measured algorithm's): 1 = the model picks the
#                winner every time;
#   tuned/choice geometric mean of tuned's time over the chosen one's (> 1:
#                coll/topo faster), and how many sizes lose by more than
#                BENCH_TIE (default 0.05).
# A size whose chosen algorithm was not measured is listed ("not measured")
# and left out of the means.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
file=${1:?usage: model-vs-measured.sh FILE [topo-plan options...]}
shift
plan=${TOPO_PLAN:-${TOPO_BUILD:-$root/_build/test-werror}/tools/topo-plan}
[ -x "$plan" ] || { echo "model-vs-measured: no topo-plan at $plan (set TOPO_BUILD)" >&2; exit 1; }
[ -r "$file" ] || { echo "model-vs-measured: cannot read $file" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# NP PRIMITIVE pairs, in the file's order
awk '!/^#/ && NF >= 5 && !seen[$1 " " $2]++ { print $1, $2 }' "$file" >"$tmp/groups"
while read -r np prim; do
    case $prim in
    allgather | reduce_scatter_block | reduce_scatter | alltoall) mult=$np ;;
    *) mult=1 ;;
    esac
    pprim=${prim%_block}
    sizes=$(awk -v np="$np" -v p="$prim" -v m="$mult" '$1 == np && $2 == p { print $4 * m }' "$file" |
        sort -nu | paste -sd, -)
    # the predicted table: "ALGORITHM STEPS v1 v2 ...", the chosen one starred
    "$plan" --topology star --nodes "0*$np" --primitive "$pprim" --eager-limit 4032 \
        --sizes "$sizes" "$@" >"$tmp/plan" ||
        { echo "model-vs-measured: topo-plan failed for $prim on $np ranks" >&2; exit 1; }
    awk '/^algorithm +steps/ { on = 1; next } /^excluded:|^decision table:/ { on = 0 }
         on && NF >= 3 { printf "%s", $1; for (i = 3; i <= NF; i++) printf " %s", $i; print "" }' \
        "$tmp/plan" | awk -v np="$np" -v p="$prim" -v sizes="$sizes" -v m="$mult" '
        BEGIN { n = split(sizes, s, ",") }
        { for (i = 2; i <= NF; i++) {
              v = $i; star = sub(/^\*/, "", v)
              if (star) print np, p, s[i - 1] / m, "chosen", $1, v
          } }' >>"$tmp/chosen"
done <"$tmp/groups"

awk -v tol="${BENCH_TIE:-0.05}" '
    FNR == NR { chosen[$1 " " $2 " " $3] = $5; pred[$1 " " $2 " " $3] = $6; next }
    /^#/ || NF < 5 { next }
    { k = $1 " " $2 " " $4; t[k, $3] = $5; if (!(k in seen)) { seen[k] = 1; keys[++nk] = k }
      if ($3 != "tuned" && (!(k in best) || $5 < t[k, best[k]])) best[k] = $3 }
    END {
        printf "%-4s %-21s %9s  %-18s %9s %9s  %-18s %9s %9s %7s\n", "np", "primitive", "bytes",
            "chosen", "pred us", "us", "fastest of ours", "us", "tuned us", "tuned/"
        for (i = 1; i <= nk; i++) {
            k = keys[i]; split(k, f, " "); c = chosen[k]
            if (c == "") c = "(none)"
            printf "%-4s %-21s %9s  %-18s %9s", f[1], f[2], f[3], c, pred[k]
            if (!((k, c) in t)) {
                printf " %9s  %-18s %9.3f %9s\n", "-", best[k], t[k, best[k]],
                    (k, "tuned") in t ? sprintf("%.3f", t[k, "tuned"]) : "-"
                unmeasured++
                continue
            }
            if (!((k, "tuned") in t)) {
                printf " %9.3f  %-18s %9.3f %9s\n", t[k, c], best[k], t[k, best[k]], "-"
                continue
            }
            r = t[k, "tuned"] / t[k, c]
            printf " %9.3f  %-18s %9.3f %9.3f %7.2f%s\n", t[k, c], best[k], t[k, best[k]],
                t[k, "tuned"], r, r < 1 - tol ? " loses" : ""
            g = f[2]; nb[g]++; lb[g] += log(t[k, c] / t[k, best[k]]); lt[g] += log(r)
            if (r < 1 - tol) lose[g]++
            nall++; lball += log(t[k, c] / t[k, best[k]]); ltall += log(r); if (r < 1 - tol) loseall++
        }
        print ""
        printf "%-21s %6s %12s %12s %6s\n", "primitive", "sizes", "choice/best", "tuned/choice", "loses"
        for (g in nb)
            printf "%-21s %6d %12.3f %12.3f %6d\n", g, nb[g], exp(lb[g] / nb[g]), exp(lt[g] / nb[g]), lose[g]
        if (nall > 0)
            printf "%-21s %6d %12.3f %12.3f %6d\n", "all", nall, exp(lball / nall), exp(ltall / nall), loseall
        if (unmeasured > 0) printf "(%d size(s) whose chosen algorithm was not measured)\n", unmeasured
    }' "$tmp/chosen" "$file"
