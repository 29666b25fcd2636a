#!/bin/bash
# Copyright (c) The ompi-coll-topo authors.
# SPDX-License-Identifier: BSD-3-Clause
#
# simulate.sh --setup swing|trivance|bfb|smoke [--out DIR] [--report FILE]
#             [--topologies LIST] [--sizes LIST] [--skip ALGORITHMS] [--no-report]
#             [--report-only]
#
# The papers' setups replayed in SimGrid by tools/topo-sim (the component's
# own schedules): writes DIR/SETUP.csv (topo-sim's CSV, every topology) and
# DIR/SETUP.png (gnuplot, where installed), and the section sim-SETUP of
# FILE (default docs/EVALUATION.md) through scripts/report-section.sh
# (smoke writes no section).  DIR defaults to docs/bench/simulated.
# --report-only: the plot and the section from the CSV already in DIR.
# --skip 'A B': leave those algorithms out of "every allreduce that fits".
#   swing     Swing (De Sensi et al., 2024): 400 Gb/s links, 100 ns per link
#             and 300 ns per hop, allreduce 32 B to 512 MiB on the 8x8, 64x64,
#             64x16, 128x8, 256x4 and 8x8x8 tori
#   trivance  Trivance (Juerss et al., 2025): 800 Gb/s, 100 ns per link and
#             100 ns per hop, 1.5 us per step, 32 B to 128 MiB on rings of 8
#             and 64 and the 8x8, 32x32, 27x27 and 16x16x16 tori
#   bfb       allreduce on four graphs of 64 ranks and degree 4, topo-sim's
#             defaults, bfb against ring, Swing, Trivance, recursive doubling
#   smoke     the 8x8 torus of the swing setup at four sizes (seconds)
# Binaries: $TOPO_SIM and $TOPO_GRAPH, else _build/dev/tools/.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
only_sizes='' skip='' only=0 setup='' out=$root/docs/bench/simulated report=$root/docs/EVALUATION.md topos='' write=1
while [ $# -gt 0 ]; do
    case $1 in
    --setup) setup=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --report) report=$2; shift 2 ;;
    --topologies) topos=$2; shift 2 ;;
    --no-report) write=0; shift ;;
    --report-only) only=1; shift ;;
    --skip) skip=$2; shift 2 ;;
    --sizes) only_sizes=$2; shift 2 ;;
    -h | --help) sed -n '4,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "simulate.sh: unknown option '$1'" >&2; exit 2 ;;
    esac
done
sim=${TOPO_SIM:-$root/_build/dev/tools/topo-sim}
graph=${TOPO_GRAPH:-$root/_build/dev/tools/topo-graph}
[ -x "$sim" ] || { echo "simulate.sh: $sim not built (configure with SimGrid, make)" >&2; exit 77; }

# a setup: its tori, algorithms, sizes and network
case $setup in
swing | smoke)
    bw=5e10 net='--bandwidth 5e10 --latency 4e-7 --hop 4e-7 --gamma 0 --exact'
    networds='400 Gb/s (5e10 B/s) per link and direction, 400 ns for the first link (100 ns of wire, 300 ns of router) and 400 ns per further hop, reductions free (--gamma 0) of an exactly associative operation such as an integer sum (--exact, so that every variant fits)'
    others='ring bucket recursive_doubling rabenseifner recursive_doubling_mp rabenseifner_mp'
    mine='swing_lat swing_bw'
    label=Swing
    sizes=32,128,512,2k,8k,32k,128k,512k,1M,2M,4M,8M,32M,128M,512M
    all_topos='torus:8x8 torus:64x64 torus:64x16 torus:128x8 torus:256x4 torus:8x8x8'
    if [ "$setup" = smoke ]; then
        all_topos=torus:8x8 sizes=32,32k,2M,128M
    fi
    ;;
trivance)
    bw=1e11 net='--bandwidth 1e11 --latency 2e-7 --hop 2e-7 --step-overhead 1.5e-6 --gamma 0 --exact'
    networds='800 Gb/s (1e11 B/s) per link and direction, 200 ns for the first link (100 ns of wire, 100 ns of router) and 200 ns per further hop, 1.5 us of software per step (--step-overhead), reductions free (--gamma 0) of an exactly associative operation such as an integer sum (--exact, so that every variant fits)'
    others='bruck bucket recursive_doubling rabenseifner recursive_doubling_mp rabenseifner_mp swing_lat swing_bw'
    mine='trivance_lat trivance_bw'
    label=Trivance
    sizes=32,128,512,2k,8k,32k,128k,512k,2M,8M,32M,128M
    all_topos='torus:8 torus:64 torus:8x8 torus:32x32 torus:27x27 torus:16x16x16'
    ;;
bfb)
    bw=1e10 net=''
    networds="topo-sim's defaults: 10 GB/s per link and direction, 2 us per message, no hop latency, 0.1 ns per reduced byte"
    algos=bfb,ring,swing_bw,trivance_bw,recursive_doubling
    sizes=64k,16M
    all_topos='kautz:64:4 circulant:64:1,10 line(circulant:16:1,4) torus:8x8'
    ;;
*) echo "usage: simulate.sh --setup swing|trivance|bfb|smoke [--out DIR] [--report FILE]" >&2; exit 2 ;;
esac
topos=${topos:-$all_topos}
sizes=${only_sizes:-$sizes}
mkdir -p "$out"
csv=$out/$setup.csv
tmp=$(mktemp -d "${TMPDIR:-/tmp}/simulate.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
t0=$(date +%s)
n=0
[ "$only" = 1 ] && topos_run='' || topos_run=$topos
[ "$only" = 1 ] || echo 'primitive,topology,algorithm,bytes,simulated_s,predicted_s,ran' >"$csv"
for t in $topos_run; do
    n=$((n + 1))
    if [ "$setup" = bfb ]; then
        [ -x "$graph" ] || { echo "simulate.sh: $graph not built" >&2; exit 77; }
        "$graph" write "$t" -o "$tmp/g$n.txt"
        # shellcheck disable=SC2086
        "$sim" --topology "graph:$tmp/g$n.txt" --algorithms "$algos,auto" --sizes "$sizes" $net \
            --no-progress 2>"$tmp/err" | sed 1d | awk -F, -v OFS=, -v t="${t//,/;}" '{ $2 = t; print }' >>"$csv" ||
            { cat "$tmp/err" >&2; exit 1; }
        continue
    fi
    p=1
    for d in $(echo "${t#torus:}" | tr x ' '); do p=$((p * d)); done
    # ring on p ranks takes 2 (p - 1) steps: replayed where each of its
    # blocks holds a byte or more (M >= p; below, most of its 8,190
    # messages per rank on 4,096 ranks are empty and the rest break the
    # symmetry that makes the replay fast)
    ringsizes=$(echo "$sizes" | tr , '\n' | while read -r s; do
        case $s in *k) b=$((${s%k} * 1024)) ;; *M) b=$((${s%M} * 1048576)) ;; *) b=$s ;; esac
        [ "$b" -ge "$p" ] && echo "$s"
    done | paste -sd, -)
    # every allreduce that fits (auto's candidates: its regret is against
    # the best of them), ring apart
    # shellcheck disable=SC2086
    list=$("$sim" --topology "$t" $net --list-algorithms | grep -vxF -e ring ${skip:+$(printf -- ' -e %s' $skip)} | paste -sd, -)
    # shellcheck disable=SC2086
    "$sim" --topology "$t" --algorithms "$list,auto,tuned" --sizes "$sizes" $net --no-progress \
        2>"$tmp/err" | sed 1d >>"$csv" || { cat "$tmp/err" >&2; exit 1; }
    echo "simulate.sh: $t: $(tail -n 1 "$tmp/err")" >&2
    if [ -n "$ringsizes" ]; then
        # shellcheck disable=SC2086
        "$sim" --topology "$t" --algorithms ring --sizes "$ringsizes" $net --no-progress \
            2>"$tmp/err" | sed 1d >>"$csv" || { cat "$tmp/err" >&2; exit 1; }
        echo "simulate.sh: $t ring: $(tail -n 1 "$tmp/err")" >&2
    fi
done
if [ "$only" = 0 ]; then
    echo "$(($(date +%s) - t0))" >"$out/$setup.seconds"
fi
elapsed=$(cat "$out/$setup.seconds" 2>/dev/null || echo '?')
# the tori in the CSV (--report-only: whatever it holds)
topos=$(sed 1d "$csv" | cut -d, -f2 | awk '!s[$0]++' | tr '\n' ' ')
echo "simulate.sh: $csv ($elapsed s)" >&2

# the plot: each algorithm's time over the fastest at each size
if command -v gnuplot >/dev/null 2>&1 && [ "$setup" != bfb ]; then
    nt=$(echo "$topos" | wc -w)
    cols=$((nt < 3 ? nt : 3)) rows=$(((nt + 2) / 3))
    {
        echo "set terminal pngcairo size $((cols * 520)),$((rows * 400)) font ',9'"
        echo "set output '$out/$setup.png'"
        echo "set termoption noenhanced; set logscale x 2; set logscale y; set key top left font ',7'"
        echo "set format x '%.0b %BB'; set xlabel 'payload'; set ylabel 'simulated time / fastest'"
        echo "set multiplot layout $rows,$cols title '$label setup: allreduce simulated by topo-sim'"
        i=0
        for t in $topos; do
            i=$((i + 1))
            rm -f "$tmp"/d.*
            awk -F, -v t="$t" -v dir="$tmp" '$2 == t && $3 != "auto" && $3 != "tuned" {
                if (!($4 in best) || $5 < best[$4]) best[$4] = $5; v[$3, $4] = $5; a[$3] = 1; s[$4] = 1 }
                END { for (x in a) for (m in s) if ((x, m) in v) print m, v[x, m] / best[m] > (dir "/d." x) }' "$csv"
            echo "set title '$t'"
            plot='plot'
            for f in "$tmp"/d.*; do
                [ -e "$f" ] || continue
                sort -n -o "$f" "$f"
                cp "$f" "$tmp/p$i.${f##*/d.}"
                plot="$plot '$tmp/p$i.${f##*/d.}' using 1:2 with linespoints title '${f##*/d.}',"
            done
            echo "${plot%,}"
        done
        echo "unset multiplot"
    } >"$tmp/plot.gp"
    gnuplot -e "set datafile separator whitespace" "$tmp/plot.gp"
fi
[ "$write" = 1 ] && [ "$setup" != smoke ] || exit 0

# --- the report section ---------------------------------------------------
cmd="bash scripts/simulate.sh --setup $setup"
bash "$here/simulate-report.sh" "$setup" "$csv" "$cmd" "$networds" "$elapsed" "${mine:-}" "${others:-}" "$bw" |
    bash "$here/report-section.sh" "$report" "sim-$setup"
