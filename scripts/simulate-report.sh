#!/bin/bash
# Copyright (c) The ompi-coll-topo authors.
# SPDX-License-Identifier: BSD-3-Clause
#
# simulate-report.sh SETUP CSV COMMAND NETWORK SECONDS "MINE" "OTHERS" BW
# The Markdown of scripts/simulate.sh's section sim-SETUP of
# docs/EVALUATION.md, from topo-sim's CSV (every topology of the setup):
# per topology and size the fastest of the paper's baselines (OTHERS), the
# paper's algorithm (the faster of its variants, MINE), auto's pick, its
# regret and its gain over coll/tuned's pick; peak goodput; and the cost
# model against the simulation.
set -euo pipefail
setup=$1 csv=$2 cmd=$3 network=$4 secs=$5 mine=$6 others=$7 bw=${8:-5e10}
here=$(cd "$(dirname "$0")" && pwd)
notes=$here/simulate-notes.md

title() {
    case $setup in
    swing) echo "Simulated at scale: the Swing setup (De Sensi et al., 2024)" ;;
    trivance) echo "Simulated at scale: the Trivance setup (Juerss et al., 2025)" ;;
    bfb) echo "Simulated: BFB against ring, Swing and Trivance on graphs of 64 ranks" ;;
    esac
}

echo "## $(title)"
echo
echo "Written by \`$cmd\` ($( [ "$secs" = "?" ] && echo "run in parts, its time not recorded" || echo "$secs s"); a shared, loaded 2-core machine: the"
echo "times of simulating vary from run to run, the simulated times do not)."
echo "\`tools/topo-sim\` replays the schedules the component runs (its generators,"
echo "every rank; see docs/simulator.md) on $network."
echo "Raw data: \`docs/bench/simulated/$setup.csv\`$( [ "$setup" = bfb ] || echo ", plot \`docs/bench/simulated/$setup.png\`")."
echo "Times in microseconds, allreduce."
echo

if [ "$setup" = bfb ]; then
    echo "| graph | M | bfb | ring | swing_bw | trivance_bw | recursive_doubling | auto (pick) | predicted/simulated, outside 0.99-1.01 |"
    echo "|---|---|---|---|---|---|---|---|---|"
    awk -F, 'NR > 1 {
            k = $2 SUBSEP $4; if (!(k in seen)) { seen[k] = 1; order[++n] = k; topo[k] = $2; size[k] = $4 }
            t[k, $3] = $5 * 1e6; if ($3 == "auto") pick[k] = $7
            r = $6 / $5; if (r < 0.99 || r > 1.01) off[k] = off[k] sprintf(" %s %.2f", $3, r) }
        function h(b) { return b >= 1048576 ? b / 1048576 " MiB" : b >= 1024 ? b / 1024 " KiB" : b " B" }
        END { for (i = 1; i <= n; i++) { k = order[i]
                tn = topo[k]; gsub(";", ",", tn)
                printf "| %s | %s | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f (%s) |%s |\n", topo[k] == last ? "" : tn, h(size[k]),
                    t[k, "bfb"], t[k, "ring"], t[k, "swing_bw"], t[k, "trivance_bw"], t[k, "recursive_doubling"],
                    t[k, "auto"], pick[k], off[k] == "" ? " none" : off[k]; last = topo[k] } }' "$csv"
    echo
    sed -n "/^## $setup\$/,/^## /p" "$notes" | sed '1d;/^## /d'
    exit 0
fi

short=${mine%% *} short=${short%%_*} short=${short^}
echo "Columns: **fastest baseline** the fastest of ${others// /, } at that size;"
echo "**$short** the faster of ${mine// / and } (the paper reports the better"
echo "of its latency- and bandwidth-optimal variants at each size); **gain** the fastest"
echo "baseline's time over it (> 1: the paper's algorithm wins); **auto** coll/topo's"
echo "decision (the cost model's pick among every allreduce that fits); **regret** auto's"
echo "time over the fastest single algorithm at that size (of every allreduce that fits,"
echo "all simulated; 1.000: auto picked it); **tuned** the algorithm Open MPI 4.1's coll/tuned fixed"
echo "decision picks for that size and communicator size (its ring and segmented ring as"
echo "ring, its reduce + bcast as recursive doubling: see docs/simulator.md); **vs tuned** tuned's time"
echo "over auto's. ring is replayed from the size of one byte per block up."
echo

sed 1d "$csv" | cut -d, -f2 | awk '!s[$0]++' >"$csv.topos"
while read -r t; do
    echo "### $t"
    echo
    echo "| M | fastest baseline | $short | gain | auto (pick) | regret | tuned (pick) | vs tuned |"
    echo "|---|---|---|---|---|---|---|---|"
    awk -F, -v t="$t" -v mine="$mine" -v others="$others" '
        BEGIN { split(mine, M, " "); for (i in M) ism[M[i]] = 1; split(others, O, " "); for (i in O) iso[O[i]] = 1 }
        $2 != t { next }
        { m = $4 + 0; if (!(m in seen)) { seen[m] = 1; order[++n] = m }
          if ($3 == "auto") { at[m] = $5; ap[m] = $7; if (!(m in bs) || $5 < bs[m]) bs[m] = $5; next }
          if ($3 == "tuned") { tt[m] = $5; tp[m] = $7; next }
          if (!(m in bs) || $5 < bs[m]) { bs[m] = $5; bsn[m] = $3 }
          if (($3 in iso) && (!(m in bo) || $5 < bo[m])) { bo[m] = $5; bon[m] = $3 }
          if (($3 in ism) && (!(m in bm) || $5 < bm[m])) { bm[m] = $5; bmn[m] = $3 } }
        function h(b) { return b >= 1048576 ? b / 1048576 " MiB" : b >= 1024 ? b / 1024 " KiB" : b " B" }
        END { for (i = 1; i <= n; i++) { m = order[i]
                printf "| %s | %.2f (%s) | %.2f (%s) | %.2f | %.2f (%s) | %.3f | %.2f (%s) | %.2f |\n", h(m),
                    bo[m] * 1e6, bon[m], bm[m] * 1e6, bmn[m], bo[m] / bm[m], at[m] * 1e6, ap[m], at[m] / bs[m],
                    tt[m] * 1e6, tp[m], tt[m] / at[m] } }' "$csv"
    # peak goodput at the largest size: the ports' bound of an allreduce,
    # 2 M (p - 1) / p bytes in and out of each node over its 2 D ports
    awk -F, -v t="$t" -v bw="$bw" '
        $2 == t && $3 == "auto" { if ($4 + 0 > m) { m = $4 + 0; a = $5 } }
        END { s = t; sub(/^torus:/, "", s); D = split(s, d, "x"); p = 1; for (i in d) p *= d[i]
              bound = 2 * m * (p - 1) / p / (2 * D * bw)
              printf "\nAt the largest size auto reaches %.0f%% of the peak goodput (the ports\x27 bound, %.1f us).\n", 100 * bound / a, bound * 1e6 }' "$csv"
    echo
done <"$csv.topos"
rm -f "$csv.topos"

echo "### Summary and the paper's numbers"
echo
echo "Per topology: the $short algorithm's largest gain over the fastest baseline (at"
echo "which size), its smallest gain up to 8 MiB, its gain over the recursive-doubling family"
echo "at 2 MiB (the fastest of recursive doubling, Rabenseifner and their multiport forms), the size from which a baseline is faster at every larger size; auto's largest"
echo "regret (at which size) and its smallest gain over tuned's pick from 1 to 4 MiB."
echo
echo "| topology | largest gain | smallest gain to 8 MiB | gain over recursive doubling at 2 MiB | a baseline wins from | auto's largest regret | auto vs tuned, 1-4 MiB |"
echo "|---|---|---|---|---|---|---|"
awk -F, -v mine="$mine" -v others="$others" '
    BEGIN { split(mine, M, " "); for (i in M) ism[M[i]] = 1; split(others, O, " "); for (i in O) iso[O[i]] = 1 }
    NR == 1 { next }
    { t = $2; m = $4 + 0; k = t SUBSEP m
      if (!(t in tseen)) { tseen[t] = 1; tord[++nt] = t }
      if (!(k in seen)) { seen[k] = 1; sizes[t, ++ns[t]] = m }
      if ($3 == "auto") { at[k] = $5; if (!(k in bs) || $5 < bs[k]) bs[k] = $5; next }
      if ($3 == "tuned") { tt[k] = $5; next }
      if ($3 ~ /^(recursive_doubling|rabenseifner)/ && (!(k in rd) || $5 < rd[k])) rd[k] = $5
      if (!(k in bs) || $5 < bs[k]) bs[k] = $5
      if (($3 in iso) && (!(k in bo) || $5 < bo[k])) bo[k] = $5
      if (($3 in ism) && (!(k in bm) || $5 < bm[k])) bm[k] = $5 }
    function h(b) { return b >= 1048576 ? b / 1048576 " MiB" : b >= 1024 ? b / 1024 " KiB" : b " B" }
    END { for (j = 1; j <= nt; j++) { t = tord[j]; n = ns[t]
            # sizes in increasing order
            for (a = 1; a <= n; a++) for (b = a + 1; b <= n; b++) if (sizes[t, b] < sizes[t, a]) { x = sizes[t, a]; sizes[t, a] = sizes[t, b]; sizes[t, b] = x }
            gmax = 0; gmin = 1e9; rmax = 0; vt = 1e9; from = "never"; g2 = "-"
            for (i = 1; i <= n; i++) { m = sizes[t, i]; k = t SUBSEP m; g = bo[k] / bm[k]
                if (g > gmax) { gmax = g; gm = m }
                if (m <= 8388608 && g < gmin) gmin = g
                if (m == 2097152 && (k in rd)) g2 = sprintf("%.2f", rd[k] / bm[k])
                r = at[k] / bs[k]; if (r > rmax) { rmax = r; rm = m }
                if (m >= 1048576 && m <= 4194304 && tt[k] / at[k] < vt) vt = tt[k] / at[k] }
            for (i = n; i >= 1 && bo[t, sizes[t, i]] / bm[t, sizes[t, i]] < 1; i--) from = h(sizes[t, i])
            printf "| %s | %.2f (%s) | %.2f | %s | %s | %.3f (%s) | %s |\n", t, gmax, h(gm), gmin, g2, from, rmax, h(rm),
                vt < 1e9 ? sprintf("%.2f", vt) : "-" } }' "$csv"
echo
sed -n "/^## $setup\$/,/^## /p" "$notes" | sed '1d;/^## /d'
echo
if [ "$setup" = swing ] && grep -q ',torus:64x64,' "$csv"; then
    echo "### Targets on the 64x64 torus"
    echo
    awk -F, -v bw="$bw" '$2 == "torus:64x64" { m = $4 + 0
            if ($3 == "tuned") { t[m] = $5; next }
            if ($3 == "auto") a[m] = $5
            if (!(m in b) || $5 < b[m]) b[m] = $5 }
        function h(x) { return x >= 1048576 ? x / 1048576 " MiB" : x >= 1024 ? x / 1024 " KiB" : x " B" }
        END { vt = 1e9; r = 0; top = 0
              for (k in a) { m = k + 0
                             if (m >= 1048576 && m <= 4194304 && t[k] / a[k] < vt) { vt = t[k] / a[k]; vm = m }
                             if (a[k] / b[k] > r) { r = a[k] / b[k]; rm = m }
                             if (m > top) { top = m; atop = a[k] } }
              p = 4096; bound = 2 * top * (p - 1) / p / (2 * 2 * bw)
              printf "| target | wanted | simulated | met |\n|---|---|---|---|\n"
              printf "| auto over tuned'"'"'s pick, 1-4 MiB | at least 2x faster | %.2fx (least, at %s) | %s |\n", vt, h(vm), (vt >= 2 ? "yes" : "no")
              printf "| auto'"'"'s regret, every size | at most 1.03 | %.3f (most, at %s) | %s |\n", r, h(rm), (r <= 1.03 ? "yes" : "no")
              printf "| goodput at %s | at least 90%% of the ports'"'"' bound | %.1f%% | %s |\n", h(top), 100 * bound / atop, (bound / atop >= 0.9 ? "yes" : "no") }' "$csv"
    echo
    echo "The regret is against every allreduce simulated on this torus (all that fit but"
    echo "dbt and trivance_lat, left out with --skip: replayed on every rank at 4,096 ranks"
    echo "they cost minutes, and the model prices them far from the best here)."
    echo
fi
echo "### The cost model against the simulation"
echo
echo "Lines where the predicted time and the simulated time differ by more than 20%"
echo "(predicted/simulated outside 0.8-1.2), of $(sed 1d "$csv" | grep -vc ',auto,\|,tuned,') simulated (algorithm, topology, size):"
echo
echo "| topology | algorithm | sizes (how many, from, to) | predicted/simulated |"
echo "|---|---|---|---|"
awk -F, 'NR > 1 && $3 != "auto" && $3 != "tuned" { r = $6 / $5; if (r < 0.8 || r > 1.2) {
            k = $2 "|" $3; if (!(k in n)) { order[++c] = k; lo[k] = hi[k] = r; a[k] = b[k] = $4 }
            n[k]++; if (r < lo[k]) lo[k] = r; if (r > hi[k]) hi[k] = r; b[k] = $4 } }
    function h(x) { return x >= 1048576 ? x / 1048576 " MiB" : x >= 1024 ? x / 1024 " KiB" : x " B" }
    END { for (i = 1; i <= c; i++) { k = order[i]; split(k, f, "|")
            printf "| %s | %s | %d, %s to %s | %.2f to %.2f |\n", f[1], f[2], n[k], h(a[k]), h(b[k]), lo[k], hi[k] }
          if (c == 0) print "| (none) | | | |" }' "$csv"
echo
sed -n "/^## $setup-model\$/,/^## /p" "$notes" | sed '1d;/^## /d'
