#!/usr/bin/env bash
# Copyright (c) The ompi-coll-topo authors.
# SPDX-License-Identifier: BSD-3-Clause
# One primitive at one payload on the emulated network (scripts/testbed.sh),
# under several configurations of MCA settings, interleaved and repeated:
# is setting X faster on this network?
#
#   bash scripts/testbed-ab.sh [--setup SHAPE@RATE] [--prim P] [--bytes M] [--reps N]
#                              [--seconds S] [--prefix P] [--net 10.N] [--dry-run]
#                              NAME=SETTINGS [NAME=SETTINGS ...]
#
# Each configuration is NAME=SETTINGS, SETTINGS a comma-separated list of
# MCA settings NAME=VALUE (an empty list: the defaults), for example
#   swing_bw=coll_topo_allreduce_algorithm=swing_bw
#   swing_bw-free=coll_topo_allreduce_algorithm=swing_bw,coll_topo_lane_sync=off
#   tuned=coll_topo_priority=-1
# coll/topo is in the coll list of every run (a configuration of
# coll_topo_priority=-1 runs coll/tuned's default).  --setup (default
# torus:4x4@200mbit) is the testbed's shape and link rate, one rank per
# emulated node; --prim (default allreduce) a primitive of bench_allreduce;
# --bytes (default 4194304) the payload M as scripts/evaluate.sh counts it
# (all ranks' data for allgather, alltoall and reduce_scatter_block); --reps
# (default 3) the rounds, each running every configuration once, in the
# order given; --seconds (default 1) the time bench_allreduce spends on the
# payload per run, whose median batch is the run's time.  Prints each
# run's time, then per configuration the median and the range over the
# rounds, and the median over the first configuration's.  --dry-run prints
# the runs without starting anything.
#
# Needs root (network namespaces) and a build with the installed component
# (TOPO_BUILD, default _build/test-werror, as scripts/test.sh leaves it).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${TOPO_BUILD:-$root/_build/test-werror}
setup=torus:4x4@200mbit prim=allreduce bytes=4194304 reps=3 seconds=1 prefix=ab tbnet="" dry=0
names=() settings=()

die() {
    echo "testbed-ab: $*" >&2
    exit 1
}
while [ $# -gt 0 ]; do
    case $1 in
    --setup | --prim | --bytes | --reps | --seconds | --prefix | --net)
        [ $# -ge 2 ] || die "$1 needs a value"
        case $1 in
        --setup) setup=$2 ;;
        --prim) prim=$2 ;;
        --bytes) bytes=$2 ;;
        --reps) reps=$2 ;;
        --seconds) seconds=$2 ;;
        --prefix) prefix=$2 ;;
        --net) tbnet=$2 ;;
        esac
        shift 2
        ;;
    --dry-run) dry=1; shift ;;
    -h | --help) sed -n '4,32p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown option '$1' (--help)" ;;
    *=*)
        names+=("${1%%=*}")
        settings+=("${1#*=}")
        shift
        ;;
    *) die "'$1' is not NAME=SETTINGS (--help)" ;;
    esac
done
[ ${#names[@]} -gt 0 ] || die "no configuration (NAME=SETTINGS; --help)"
[[ $setup == *@* ]] || die "--setup '$setup' is not SHAPE@RATE (e.g. torus:4x4@200mbit)"
if ! [[ $bytes =~ ^[1-9][0-9]*$ ]]; then die "--bytes '$bytes' is not a positive integer"; fi
if ! [[ $reps =~ ^[1-9][0-9]*$ ]]; then die "--reps '$reps' is not a positive integer"; fi
case $prim in
allreduce | reduce_scatter_block | allgather | bcast | reduce | alltoall) ;;
*) die "unknown primitive '$prim' (allreduce reduce_scatter_block allgather bcast reduce alltoall)" ;;
esac
shape=${setup%@*} rate=${setup#*@}
# bench_allreduce's count per rank: all ranks' data for these primitives
per=1
case $prim in
allgather | reduce_scatter_block | alltoall)
    per=$(echo "${shape#*:}" | tr x '\n' | awk '{ n = (NR == 1 ? $1 : n * $1) } END { print n }')
    ;;
esac
arg=$((bytes / per))
[ "$arg" -gt 0 ] || die "--bytes $bytes is less than one byte per rank"
mca_of() { # SETTINGS -> --mca NAME VALUE ...
    local IFS=, kv
    for kv in $1; do
        [ -n "$kv" ] || continue
        [[ $kv == *=* ]] || die "setting '$kv' is not NAME=VALUE"
        printf '%s\n' --mca "${kv%%=*}" "${kv#*=}"
    done
}
for i in "${!names[@]}"; do mca_of "${settings[$i]}" >/dev/null; done

bench=$build/test/mpi/bench_allreduce
comp=$build/_install/lib/openmpi
tb=(bash "$root/scripts/testbed.sh")
if [ $dry = 0 ]; then
    [ "$(id -u)" -eq 0 ] || die "needs root (network namespaces, through scripts/testbed.sh)"
    for f in "$bench" "$comp/mca_coll_topo.so"; do
        [ -e "$f" ] || die "$f not found: build first (bash scripts/test.sh, or TOPO_BUILD=DIR)"
    done
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/testbed-ab.XXXXXX")
stop() { [ $dry = 1 ] || "${tb[@]}" stop --prefix "$prefix" >/dev/null 2>&1 || true; }
trap 'stop; rm -rf "$tmp"' EXIT
cat >"$tmp/bench.sh" <<EOF
#!/bin/sh
BENCH_MIN_BYTES=$arg BENCH_SECONDS=$seconds BENCH_BATCHES=3 exec "$bench" $arg $prim
EOF
chmod 755 "$tmp/bench.sh"
if [ $dry = 0 ]; then
    stop
    "${tb[@]}" start "$shape" --rate "$rate" --check quick --prefix "$prefix" ${tbnet:+--net "$tbnet"} >"$tmp/start.log" 2>&1 ||
        die "testbed.sh start $shape --rate $rate failed: $(tail -n 3 "$tmp/start.log")"
fi
echo "testbed-ab: $prim of $bytes bytes on $shape at $rate, $reps rounds of ${#names[@]} configurations"
for ((rep = 1; rep <= reps; rep++)); do
    for i in "${!names[@]}"; do
        mapfile -t mca < <(mca_of "${settings[$i]}")
        if [ $dry = 1 ]; then
            echo "round $rep ${names[$i]}: testbed.sh run --prefix $prefix --component-dir $comp ${mca[*]} -- bench_allreduce $arg $prim"
            continue
        fi
        log=$tmp/${rep}-$i.log
        "${tb[@]}" run --prefix "$prefix" --component-dir "$comp" --timeout 900 "${mca[@]}" -- "$tmp/bench.sh" >"$log" 2>&1 ||
            die "round $rep ${names[$i]} failed: $(tail -n 3 "$log")"
        t=$(awk '/^[0-9]+ [0-9.]+$/ { t = $2 } END { if (t != "") print t }' "$log")
        [ -n "$t" ] || die "round $rep ${names[$i]}: no time in bench_allreduce's output: $(tail -n 3 "$log")"
        printf 'round %d %s: %.1f ms\n' "$rep" "${names[$i]}" "$(awk -v t="$t" 'BEGIN { print t * 1e3 }')"
        echo "${names[$i]} $t" >>"$tmp/times"
    done
done
[ $dry = 1 ] && exit 0
echo
printf '%-24s %10s %18s %10s\n' configuration "median ms" "range ms" "/ ${names[0]}"
base=""
for n in "${names[@]}"; do
    read -r med lo hi < <(awk -v n="$n" '$1 == n { print $2 }' "$tmp/times" | sort -g |
        awk '{ v[++k] = $1 } END { m = k % 2 ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2; print m, v[1], v[k] }')
    [ -n "$base" ] || base=$med
    printf '%-24s %10.1f %8.1f-%-9.1f %10.2f\n' "$n" "$(awk -v t="$med" 'BEGIN { print t * 1e3 }')" \
        "$(awk -v t="$lo" 'BEGIN { print t * 1e3 }')" "$(awk -v t="$hi" 'BEGIN { print t * 1e3 }')" \
        "$(awk -v a="$med" -v b="$base" 'BEGIN { print a / b }')"
done
