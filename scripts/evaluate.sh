#!/usr/bin/env bash
# Copyright (c) The ompi-coll-topo authors.
# SPDX-License-Identifier: BSD-3-Clause
# coll/topo against coll/tuned on an emulated network (scripts/testbed.sh):
# one command that measures and writes the evaluation report.
#
#   bash scripts/evaluate.sh [--quick] [--setups LIST] [--prims LIST]
#                            [--min BYTES] [--max BYTES] [--factor F] [--reps N]
#                            [--seconds S] [--no-calibrate] [--no-tuned-forced]
#                            [--no-topo-forced] [--algos LIST] [--tuned-algos LIST]
#                            [--mca NAME VALUE]... [--out FILE] [--data DIR]
#                            [--report-only] [--append] [--replace] [--drop] [--prefix P] [--net 10.N]
#
# For every setup (SHAPE@RATE: a testbed shape and its link rate, default
# torus:4x4@50mbit torus:4x4@200mbit mesh:4x4@200mbit torus:2x2x2@200mbit)
# it starts the testbed (one rank per emulated node, TCP, placement from the
# coordinates file), runs topo-calibrate there, then for every primitive
# (default allreduce reduce_scatter_block allgather bcast reduce alltoall)
# times, in one run and interleaved (every configuration once per
# repetition, --reps times):
#   tuned          coll/tuned's default (coll/topo not selected)
#   tuned:ALG      each of coll/tuned's algorithms forced (dynamic rules;
#                  --tuned-algos: only those of LIST)
#   auto           coll/topo at its defaults, but coll_topo_autotune off
#   auto-cal       the same with topo-calibrate's settings from this testbed
#   topo:ALG       each coll/topo algorithm forced (--algos: only those of
#                  LIST, comma-separated, that the primitive has)
# (autotune, on by default for allgather, bcast and alltoall here, runs 9
# of a size's first 26 calls in coll/tuned to time it against auto's
# choice; a run's 7 to 61 calls per size would measure that mix, not the
# choice that serves the calls after it)
# at payloads from --min to --max (default 64 KiB to 16 MiB, each --factor,
# default 4, times the last): the payload M the cost model prices, so for
# allgather, alltoall and reduce_scatter_block all ranks' data (each rank
# contributes M / p, as bench_allreduce is asked for).  Each time is the
# median over batches of one bench_allreduce run that spends about
# --seconds (default 1.5) per size; the report takes the median over the
# repetitions and gives the spread (max - min) / median of auto.
# --mca NAME VALUE (repeatable) adds an MCA setting to every run of every
# configuration, topo-calibrate's included (e.g. a TCP BTL setting, to see
# what the emulation's transport changes).
#
# Writes --data (default docs/bench/evaluation): times.csv (setup, rate,
# primitive, configuration, repetition, bytes, seconds), predicted.csv (the
# cost model's choice and predicted time per size, from topo-plan with the
# parameters the component used: its eager limit and rendezvous cost, and
# topo-calibrate's settings for auto-cal), the calibration and run logs,
# and a gnuplot PNG per setup and primitive; and --out (default
# docs/EVALUATION.md): per setup and primitive, the ratio tuned / auto
# (> 1: coll/topo faster), best tuned forced / auto, the regret of auto and
# of auto-cal against the best coll/topo algorithm forced, the algorithms
# they chose and the model's predicted time beside the measured one.
#
# --report-only: no measurement; the report and plots again from --data's
# times.csv and predicted.csv.
#
# --append: add this run's measurements to --data's instead of replacing
# them (more setups, primitives or sizes, one run at a time).  The report
# covers every setup, primitive and size the data holds and lists the
# commands of the runs that wrote it (runs.txt in --data); configurations
# are interleaved within each run, not across runs.
#
# --replace: --append, but this run's setups and primitives replace what the
# data holds of them (the rows of those setups, rates and primitives are
# dropped first), so that one setup is measured again, all its
# configurations interleaved, without rerunning the others.
#
# --drop: with --report-only, remove the rows of --setups and --prims from
# --data (a run measured wrong), then write the report of what is left
# (runs.txt records the command).
#
# --prefix, --net: the testbed's namespace prefix and addresses (default ev
# and testbed.sh's 10.213), so that an evaluation runs beside another
# testbed.
#
# --quick: torus:2x2@200mbit, allreduce, 64-256 KiB, one repetition, 0.2 s
# per size (a check that everything runs, in about two minutes; its
# numbers mean nothing).
#
# Needs root (network namespaces) and a build with the installed component
# (TOPO_BUILD, default _build/test-werror, as scripts/test.sh leaves it).
# A progress line per run goes to stderr.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cmdline=$*
build=${TOPO_BUILD:-$root/_build/test-werror}
setups="torus:4x4@50mbit torus:4x4@200mbit mesh:4x4@200mbit torus:2x2x2@200mbit"
prims="allreduce reduce_scatter_block allgather bcast reduce alltoall"
min=65536 max=16777216 factor=4 reps=3 seconds=1.5
prefix=ev tbnet=""
calibrate=1 tuned_forced=1 topo_forced=1 report_only=0 append=0 replace=0 drop=0 algos="" tuned_only=""
user_mca=()
out=$root/docs/EVALUATION.md
data=$root/docs/bench/evaluation

die() {
    echo "evaluate: $*" >&2
    exit 1
}
while [ $# -gt 0 ]; do
    case $1 in
    --quick)
        setups="torus:2x2@200mbit" prims=allreduce min=65536 max=262144 reps=1 seconds=0.2
        ;;
    --setups) setups=${2//,/ } && shift ;;
    --prims) prims=${2//,/ } && shift ;;
    --min) min=$2 && shift ;;
    --max) max=$2 && shift ;;
    --factor) factor=$2 && shift ;;
    --reps) reps=$2 && shift ;;
    --seconds) seconds=$2 && shift ;;
    --no-calibrate) calibrate=0 ;;
    --no-tuned-forced) tuned_forced=0 ;;
    --no-topo-forced) topo_forced=0 ;;
    --algos) algos=" ${2//,/ } " && shift ;;
    --mca)
        [ $# -ge 3 ] || die "--mca needs a name and a value"
        [[ $2 =~ ^[a-z][a-z0-9_]*$ ]] || die "--mca: not an MCA parameter name: '$2'"
        user_mca+=(--mca "$2" "$3") && shift 2
        ;;
    --tuned-algos) tuned_only=" ${2//,/ } " && shift ;;
    --report-only) report_only=1 ;;
    --append) append=1 ;;
    --replace) append=1 replace=1 ;;
    --drop) drop=1 ;;
    --out) out=$2 && shift ;;
    --data) data=$2 && shift ;;
    --prefix) prefix=$2 && shift ;;
    --net) tbnet=$2 && shift ;;
    -h | --help)
        sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
        exit 0
        ;;
    *) die "unknown option '$1' (see --help)" ;;
    esac
    shift
done
for n in "$min" "$max" "$factor" "$reps"; do
    if ! [[ $n =~ ^[0-9]+$ ]] || [ "$n" -lt 1 ]; then die "not a positive integer: '$n'"; fi
done
[ "$factor" -ge 2 ] || die "--factor must be 2 or more"
[ "$min" -le "$max" ] || die "--min is above --max"
[ $drop = 0 ] || [ $report_only = 1 ] || die "--drop goes with --report-only (--replace measures a setup again)"
[[ $seconds =~ ^[0-9]*\.?[0-9]+$ ]] || die "--seconds: not a number: '$seconds'"
for s in $setups; do
    [[ $s =~ ^(torus|mesh):[0-9x]+@[0-9]+(k|m|g)?bit$ ]] || die "bad setup '$s' (SHAPE@RATE, e.g. torus:4x4@200mbit)"
done
bench_names=" allreduce reduce_scatter_block allgather bcast reduce alltoall "
for p in $prims; do
    [[ $bench_names == *" $p "* ]] || die "unknown primitive '$p' (one of:$bench_names)"
done

[ $report_only = 1 ] || [ "$(id -u)" -eq 0 ] || die "needs root (network namespaces, through scripts/testbed.sh)"
bench=$build/test/mpi/bench_allreduce
comp=$build/_install/lib/openmpi
plan=$build/tools/topo-plan
cal=$build/tools/topo-calibrate
for f in "$bench" "$plan" "$cal" "$comp/mca_coll_topo.so"; do
    [ $report_only = 1 ] || [ -e "$f" ] || die "$f not found: build first (bash scripts/test.sh, or TOPO_BUILD=DIR)"
done
command -v gnuplot >/dev/null || die "gnuplot not found (scripts/install-deps.sh installs it)"

tb=(bash "$root/scripts/testbed.sh")
mkdir -p "$data"
times=$data/times.csv
predicted=$data/predicted.csv
logs=$data/logs
runs=$data/runs.txt
# drop the rows of every setup@rate and primitive of --setups and --prims
# (--replace: those this run measures again; --drop)
drop_rows() {
    local keys="" s p f
    for s in $setups; do
        for p in $prims; do keys+="${s%@*},${s#*@},$p "; done
    done
    for f in "$times" "$predicted"; do
        awk -F, -v keys=" $keys" 'NR == 1 || index(keys, " " $1 "," $2 "," $3 " ") == 0' "$f" >"$f.new" &&
            mv "$f.new" "$f"
    done
}
if [ $report_only = 1 ]; then
    if [ ! -s "$times" ] || [ ! -s "$predicted" ]; then die "--report-only: no $times or $predicted"; fi
    if [ $drop = 1 ]; then
        echo "$cmdline" >>"$runs"
        drop_rows
    fi
elif [ $append = 1 ] && [ -s "$times" ] && [ -s "$predicted" ]; then
    mkdir -p "$logs"
    echo "$cmdline" >>"$runs"
    if [ $replace = 1 ]; then drop_rows; fi
else
    rm -rf "$logs"
    mkdir -p "$logs"
    echo "setup,rate,primitive,config,rep,bytes,seconds" >"$times"
    echo "setup,rate,primitive,config,bytes,algorithm,predicted_seconds" >"$predicted"
    echo "$cmdline" >"$runs"
fi
# the runs the data holds (this one included): the report lists them
run_no=$(wc -l <"$runs" 2>/dev/null || echo 1)

# coll/topo's and coll/tuned's algorithm names for a primitive
topo_param() { [ "$1" = reduce_scatter_block ] && echo reduce_scatter || echo "$1"; }
pkglibdir=$(ompi_info --parsable --path pkglibdir | sed -n 's/^path:pkglibdir://p')
info=$(OMPI_MCA_mca_component_path="$comp:$pkglibdir" ompi_info --param coll all --level 9 --parsable 2>/dev/null)
topo_algos() {
    local a
    for a in $(printf '%s\n' "$info" |
        sed -n "s/^mca:coll:topo:param:coll_topo_$(topo_param "$1")_algorithm:help:.* or one of: \([a-z0-9_, ]*\)\..*/\1/p" |
        tr -d ','); do
        if [ -z "$algos" ] || [[ $algos == *" $a "* ]]; then echo "$a"; fi
    done
}
tuned_algos() { # "ID:NAME" pairs, without ignore and the 2-rank-only two_proc
    local a
    for a in $(printf '%s\n' "$info" |
        sed -n "s/^mca:coll:tuned:param:coll_tuned_$1_algorithm:enumerator:value:\([0-9]*\):\([a-z_0-9]*\)$/\1:\2/p" |
        grep -v -e ':ignore$' -e ':two_proc$'); do
        if [ -z "$tuned_only" ] || [[ $tuned_only == *" ${a#*:} "* ]]; then echo "$a"; fi
    done
}

# the sizes of one run, as bench_allreduce makes them
sizes=()
for ((b = min / 8 * 8; b <= max; b *= factor)); do sizes+=("$b"); done
[ ${#sizes[@]} -gt 0 ] || die "no size between --min and --max"

# bench_allreduce with its settings: the ranks start inside the testbed's
# namespaces, where mpirun's environment does not reach
tmp=$(mktemp -d "${TMPDIR:-/tmp}/evaluate.XXXXXX")
wrapper=$tmp/bench.sh
cat >"$wrapper" <<EOF
#!/bin/sh
min=\$1
shift
BENCH_MIN_BYTES=\$min BENCH_FACTOR=$factor BENCH_SECONDS=$seconds BENCH_BATCHES=3 exec "$bench" "\$@"
EOF
chmod 755 "$wrapper"

# bench_allreduce's bytes per M: the ranks for the primitives whose sizes
# it takes per rank
per_rank() {
    case $1 in
    allgather | reduce_scatter_block | alltoall)
        echo "${2#*:}" | tr x '\n' | awk '{ n = (NR == 1 ? $1 : n * $1) } END { print n }'
        ;;
    *) echo 1 ;;
    esac
}

stop_testbed() { "${tb[@]}" stop --prefix "$prefix" >/dev/null 2>&1 || true; }
trap 'stop_testbed; rm -rf "$tmp"' EXIT

# the number of runs, for the progress line
total=0
for s in $setups; do
    for p in $prims; do
        n=2
        [ $calibrate = 1 ] && n=$((n + 1))
        [ $tuned_forced = 1 ] && n=$((n + $(tuned_algos "$p" | grep -c . || true)))
        [ $topo_forced = 1 ] && n=$((n + $(topo_algos "$p" | wc -w)))
        total=$((total + n * reps))
    done
done
done_runs=0
t_start=$SECONDS

# run SETUP RATE PRIM CONFIG REP MCA...: one bench_allreduce run on the testbed
run() {
    local setup=$1 rate=$2 prim=$3 config=$4 rep=$5 log rc=0 per
    shift 5
    per=$(per_rank "$prim" "$setup")
    log=$logs/${setup//[:x]/_}-$rate-$prim-${config//:/_}-$rep.log
    done_runs=$((done_runs + 1))
    printf 'evaluate: [%d/%d, %d s] %s@%s %s %s (repetition %d)\n' "$done_runs" "$total" \
        $((SECONDS - t_start)) "$setup" "$rate" "$prim" "$config" "$rep" >&2
    "${tb[@]}" run --prefix "$prefix" --component-dir "$comp" --timeout 1800 "$@" ${user_mca[@]+"${user_mca[@]}"} -- \
        "$wrapper" $((min / per)) $((max / per)) "$prim" >"$log" 2>&1 || rc=$?
    if [ $rc != 0 ]; then
        echo "evaluate: $setup@$rate $prim $config failed (status $rc): $log" >&2
        tail -n 5 "$log" >&2
        return 0
    fi
    awk -v s="$setup" -v r="$rate" -v p="$prim" -v c="$config" -v k="$rep" -v per="$per" \
        '/^[0-9]+ [0-9.]+$/ { print s "," r "," p "," c "," k "," $1 * per "," $2 }' "$log" >>"$times"
}

# topo-plan's choice and prediction per size for PRIM on SHAPE, as the
# component priced it (its network alpha and beta, eager limit and
# rendezvous cost from verbose lines of LOG), with the settings
# "--mca coll_topo_X V ..." of CAL
predict() {
    local setup=$1 rate=$2 prim=$3 config=$4 log=$5 cal=$6 opts=() eager model
    model=$(grep -o 'cost model: network alpha [^ ]* s from .*, beta [^ ]* s/B' "$log" | head -n 1) || true
    if [ -n "$model" ]; then
        opts+=(--alpha "$(echo "$model" | awk '{ print $5 }')")
        opts+=(--beta "$(echo "$model" | awk '{ print $(NF - 1) }')")
    fi
    eager=$(grep -o 'eager limit [0-9]* bytes, rendezvous +[0-9.]* us' "$log" | head -n 1) || true
    if [ -n "$eager" ]; then
        opts+=(--eager-limit "$(echo "$eager" | awk '{ print $3 }')")
        opts+=(--rndv-alpha "$(echo "$eager" | awk '{ sub(/^\+/, "", $6); print $6 * 1e-6 }')")
    fi
    local name value
    while read -r name value; do
        case $name in
        alpha | beta | gamma | copy | msg_overhead | intra_alpha | intra_beta | hop)
            opts+=("--${name//_/-}" "$value")
            ;;
        esac
    done < <(echo "$cal" | grep -o 'coll_topo_[a-z_]* [^ ]*' | sed 's/^coll_topo_//')
    local list="" b
    for b in "${sizes[@]}"; do list+="$b,"; done
    "$plan" --topology "$setup" --primitive "$(topo_param "$prim")" --sizes "${list%,}" "${opts[@]}" 2>&1 |
        sed -n '/^chosen:/,$p' | awk -v s="$setup" -v r="$rate" -v p="$prim" -v c="$config" '
            NF >= 4 && $1 ~ /^[0-9.]+$/ {
                u = $2; m = u == "B" ? 1 : u == "KiB" ? 1024 : u == "MiB" ? 1048576 : 1073741824
                printf "%s,%s,%s,%s,%.0f,%s,%.9g\n", s, r, p, c, $1 * m, $3, $4 * 1e-6 }' >>"$predicted"
}

for setup_rate in $setups; do
    [ $report_only = 1 ] && break
    setup=${setup_rate%@*}
    rate=${setup_rate#*@}
    echo "evaluate: starting the testbed $setup at $rate per link" >&2
    stop_testbed
    "${tb[@]}" start "$setup" --rate "$rate" --check quick --prefix "$prefix" ${tbnet:+--net "$tbnet"} >"$logs/start-${setup//[:x]/_}-$rate.log" 2>&1 ||
        die "testbed.sh start $setup --rate $rate failed: $logs/start-${setup//[:x]/_}-$rate.log"
    calmca=""
    if [ $calibrate = 1 ]; then
        calog=$logs/calibrate-${setup//[:x]/_}-$rate-run$run_no.log
        "${tb[@]}" run --prefix "$prefix" --component-dir "$comp" --timeout 600 ${user_mca[@]+"${user_mca[@]}"} -- "$cal" --quick >"$calog" 2>&1 ||
            echo "evaluate: topo-calibrate failed on $setup@$rate ($calog): no auto-cal" >&2
        calmca=$(grep -m 1 '^ --mca coll_topo_' "$calog" || true)
    fi
    for prim in $prims; do
        configs=(tuned auto)
        [ -n "$calmca" ] && configs+=(auto-cal)
        if [ $tuned_forced = 1 ]; then
            for a in $(tuned_algos "$prim"); do configs+=("tuned:${a#*:}"); done
        fi
        if [ $topo_forced = 1 ]; then
            for a in $(topo_algos "$prim"); do configs+=("topo:$a"); done
        fi
        for ((rep = 1; rep <= reps; rep++)); do
            for config in "${configs[@]}"; do
                mca=()
                case $config in
                tuned) mca=(--mca coll_topo_priority -1) ;;
                tuned:*)
                    id=$(tuned_algos "$prim" | grep ":${config#tuned:}$" | cut -d: -f1)
                    mca=(--mca coll_topo_priority -1 --mca coll_tuned_use_dynamic_rules 1
                        --mca "coll_tuned_${prim}_algorithm" "$id")
                    ;;
                auto) mca=(--mca coll_topo_verbose 2 --mca coll_topo_autotune off) ;;
                auto-cal)
                    # shellcheck disable=SC2206 # the settings, split on purpose
                    mca=(--mca coll_topo_verbose 2 --mca coll_topo_autotune off $calmca)
                    ;;
                topo:*) mca=(--mca coll_topo_verbose 1 --mca "coll_topo_$(topo_param "$prim")_algorithm" "${config#topo:}") ;;
                esac
                run "$setup" "$rate" "$prim" "$config" "$rep" "${mca[@]}"
            done
        done
        autolog=$logs/${setup//[:x]/_}-$rate-$prim-auto-1.log
        [ -f "$autolog" ] && predict "$setup" "$rate" "$prim" auto "$autolog" ""
        callog=$logs/${setup//[:x]/_}-$rate-$prim-auto-cal-1.log
        [ -n "$calmca" ] && [ -f "$callog" ] && predict "$setup" "$rate" "$prim" auto-cal "$callog" "$calmca"
    done
    stop_testbed
done
trap 'rm -rf "$tmp"' EXIT

# ---- the report ---------------------------------------------------------
# medians over the repetitions: "setup,rate,prim,config,bytes median min max n"
medians=$data/medians.txt
tail -n +2 "$times" | awk -F, '{ print $1 "," $2 "," $3 "," $4 "," $6, $7 }' | sort -k1,1 -k2,2g |
    awk '{ if ($1 != key) { if (key != "") out(); key = $1; n = 0 } v[++n] = $2 }
         function out() { m = n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
                          print key, m, v[1], v[n], n }
         END { if (key != "") out() }' >"$medians"

outdir=$(dirname "$out")
# what the data holds, in the order measured: "SHAPE@RATE" and primitives
# per setup; a setup's sizes per primitive
setups=$(tail -n +2 "$times" | cut -d, -f1,2 | tr , @ | awk '!seen[$0]++' | tr '\n' ' ')
setups=${setups% }
prims_of() { tail -n +2 "$times" | awk -F, -v s="${1%@*}" -v r="${1#*@}" '$1 == s && $2 == r && !seen[$3]++ { print $3 }' | tr '\n' ' '; }
sizes_of() { awk -F'[ ,]' -v s="${1%@*}" -v r="${1#*@}" -v p="$2" '$1 == s && $2 == r && $3 == p && !seen[$5]++ { print $5 }' "$medians" | sort -n | tr '\n' ' '; }
human() { awk -v b="$1" 'BEGIN { if (b >= 1048576) printf "%g MiB", b / 1048576; else if (b >= 1024) printf "%g KiB", b / 1024; else printf "%d B", b }'; }

# The targets, per setup and primitive over the sizes of 1 MiB and up:
# allreduce, reduce_scatter_block and allgather at least 2.5 times
# coll/tuned's default and 1.5 times its best forced algorithm; bcast,
# reduce and alltoall at least 0.95 times coll/tuned's default; regret at
# most 1.15 at the defaults and 1.05 after topo-calibrate.  Each cell is
# the worst size's figure, marked where it misses.
summary() {
    echo
    echo "### Against the targets"
    echo
    echo "The worst figure over the sizes of 1 MiB and up (**missed** where it misses the target: tuned/auto"
    echo "at least 2.5 and best tuned/auto at least 1.5 for allreduce, reduce_scatter_block and allgather, tuned/auto"
    echo "at least 0.95 for bcast, reduce and alltoall; regret at most 1.15 at the defaults and 1.05 after"
    echo "calibration; in parentheses the worst of the choices forced):"
    echo
    echo "| setup | primitive | sizes | tuned/auto | best tuned/auto | regret | auto-cal regret |"
    echo "|---|---|---|---|---|---|---|"
    awk -v pred="$predicted" '
        BEGIN {
            FS = "[ ,]"
            while ((getline line < pred) > 0) {
                split(line, f, ",")
                alg[f[1] "," f[2] "," f[3] "," f[5] "," f[4]] = f[6]
            }
        }
        $5 >= 1048576 {
            k = $1 "," $2 "," $3 "," $5
            if (!(k in seen)) { seen[k] = 1; keys[++nk] = k }
            t[k "," $4] = $6
            if ($4 ~ /^tuned:/ && (bt[k] == "" || $6 < bt[k])) bt[k] = $6
            if ($4 ~ /^topo:/ && (bo[k] == "" || $6 < bo[k])) bo[k] = $6
        }
        END {
            for (i = 1; i <= nk; i++) {
                k = keys[i]
                split(k, f, ",")
                g = f[1] "," f[2] "," f[3]
                if (!(g in n)) { groups[++ng] = g; lo_b[g] = f[4] }
                n[g]++
                hi_b[g] = f[4] > hi_b[g] ? f[4] : hi_b[g]
                lo_b[g] = f[4] < lo_b[g] ? f[4] : lo_b[g]
                worst(g, "ta", t[k ",tuned"], t[k ",auto"], -1)
                worst(g, "bta", bt[k], t[k ",auto"], -1)
                worst(g, "rg", t[k ",auto"], bo[k], 1)
                worst(g, "rgc", t[k ",topo:" alg[k ",auto"]], bo[k], 1)
                worst(g, "cal", t[k ",auto-cal"], bo[k], 1)
                worst(g, "calc", t[k ",topo:" alg[k ",auto-cal"]], bo[k], 1)
            }
            for (i = 1; i <= ng; i++) {
                g = groups[i]
                split(g, f, ",")
                bw = f[3] == "allreduce" || f[3] == "reduce_scatter_block" || f[3] == "allgather"
                row = "| " f[1] "@" f[2] " | " f[3] " | " mib(lo_b[g]) "-" mib(hi_b[g]) " MiB | "
                row = row cell(g, "ta", bw ? 2.5 : 0.95, -1) " | " (bw ? cell(g, "bta", 1.5, -1) : fig(g, "bta")) " | "
                row = row cell(g, "rg", 1.15, 1) paren(g, "rgc") " | " cell(g, "cal", 1.05, 1) paren(g, "calc") " |"
                print row
            }
        }
        # the worst ratio x / y of group g: the least (dir -1) or the most (dir 1)
        function worst(g, what, x, y, dir,    r) {
            if (!(x > 0 && y > 0)) return
            r = x / y
            if (!((g, what) in w) || (dir < 0 ? r < w[g, what] : r > w[g, what])) w[g, what] = r
        }
        function fig(g, what) { return ((g, what) in w) ? sprintf("%.2f", w[g, what]) : "-" }
        function cell(g, what, target, dir) {
            if (!((g, what) in w)) return "-"
            return fig(g, what) ((dir < 0 ? w[g, what] < target : w[g, what] > target) ? " **missed**" : "")
        }
        function paren(g, what) { return ((g, what) in w) ? " (" fig(g, what) ")" : "" }
        function mib(b) { return sprintf("%g", b / 1048576) }
    ' "$medians"
}

{
    echo "## On an emulated torus: coll/topo against coll/tuned"
    echo
    if [ "$run_no" -gt 1 ]; then
        echo "Written by these runs of \`scripts/evaluate.sh\`, each adding to the data of the last"
        echo "(\`--append\`; a run with \`--replace\` measured its setups' primitives again, in place of"
        echo "the earlier runs' data of them, one with \`--drop\` removed them; the configurations of a"
        echo "primitive are interleaved within one run):"
        echo
        while read -r c; do echo "    bash scripts/evaluate.sh $c"; done <"$runs"
        echo
    else
        cmdline=$(cat "$runs" 2>/dev/null || echo "$cmdline")
        cmdline=${cmdline// --report-only/}; cmdline=${cmdline#--report-only}
        echo "Written by \`bash scripts/evaluate.sh${cmdline:+ $cmdline}\`"
    fi
    echo "(setups $setups; every configuration of a primitive interleaved in one run, repeated; the"
    echo "options give the sizes, repetitions and time per size)."
    echo "Each setup is a testbed of network namespaces (scripts/testbed.sh) on one machine of $(nproc) cores,"
    echo "one rank per emulated node over TCP, the placement from coll/topo's coordinates file. Times are medians"
    echo "over the repetitions of each run's median batch; sizes are the payload the cost model prices"
    echo "(all ranks' data for allgather, alltoall and reduce_scatter_block). Raw data, logs and plots:"
    echo "\`${data#"$root"/}\`."
    echo
    echo "auto and auto-cal run with \`coll_topo_autotune off\`: the few calls per size would otherwise"
    echo "include autotune's timing calls in coll/tuned (9 of a size's first 26), not the choice alone."
    echo
    echo "Columns: **tuned/auto** coll/tuned's default time over coll/topo's at its defaults, autotune off (> 1: coll/topo"
    echo "faster); **best tuned/auto** the fastest coll/tuned algorithm forced, over auto; **regret** auto"
    echo "(and auto-cal, after topo-calibrate on the testbed) over the fastest coll/topo algorithm forced"
    echo "(1.00: auto chose the best), in parentheses its choice forced over the fastest (the choice alone,"
    echo "without the noise between two runs of one algorithm); **predicted/measured** the cost model's time"
    echo "for its choice over the time measured; **spread** (max - min) / median of auto over the repetitions."
    summary
    for setup_rate in $setups; do
        setup=${setup_rate%@*}
        rate=${setup_rate#*@}
        for prim in $(prims_of "$setup_rate"); do
            echo
            echo "### $prim on $setup at $rate per link"
            echo
            echo "| size | tuned | tuned/auto | best tuned/auto (algorithm) | auto: algorithm | regret | predicted/measured | spread | auto-cal: algorithm | regret | predicted/measured | best coll/topo forced |"
            echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
            for b in $(sizes_of "$setup_rate" "$prim"); do
                awk -v s="$setup" -v r="$rate" -v p="$prim" -v b="$b" -v h="$(human "$b")" -v pred="$predicted" '
                    BEGIN { FS = "[ ,]" }
                    $1 == s && $2 == r && $3 == p && $5 == b {
                        c = $4; t[c] = $6; lo[c] = $7; hi[c] = $8
                        if (c ~ /^tuned:/ && (bt == "" || $6 < t[bt])) bt = c
                        if (c ~ /^topo:/ && (bo == "" || $6 < t[bo])) bo = c
                    }
                    END {
                        while ((getline line < pred) > 0) {
                            split(line, f, ",")
                            if (f[1] == s && f[2] == r && f[3] == p && f[5] == b) { alg[f[4]] = f[6]; pt[f[4]] = f[7] }
                        }
                        ms = function_ms(t["tuned"])
                        row = "| " h " | " ms " | " ratio(t["tuned"], t["auto"]) " | "
                        row = row (bt == "" ? "-" : ratio(t[bt], t["auto"]) " (" substr(bt, 7) ")") " | "
                        row = row (alg["auto"] == "" ? "?" : alg["auto"]) " | " ratio(t["auto"], t[bo]) chosen("auto") " | "
                        row = row ratio(pt["auto"], t["auto"]) " | "
                        row = row (t["auto"] > 0 ? sprintf("%.0f%%", 100 * (hi["auto"] - lo["auto"]) / t["auto"]) : "-") " | "
                        row = row (alg["auto-cal"] == "" ? "-" : alg["auto-cal"]) " | " ratio(t["auto-cal"], t[bo]) chosen("auto-cal") " | "
                        row = row ratio(pt["auto-cal"], t["auto-cal"]) " | "
                        row = row (bo == "" ? "-" : substr(bo, 6) " " function_ms(t[bo])) " |"
                        print row
                    }
                    function ratio(x, y) { return (x > 0 && y > 0) ? sprintf(x / y < 0.1 ? "%.2g" : "%.2f", x / y) : "-" }
                    function function_ms(x) { return x > 0 ? sprintf("%.1f ms", x * 1e3) : "-" }
                    # the same algorithm forced, over the best forced: what the choice
                    # costs, without the noise between two runs of one algorithm
                    function chosen(c) { return (t["topo:" alg[c]] > 0 && t[bo] > 0) ? " (" ratio(t["topo:" alg[c]], t[bo]) ")" : "" }
                ' "$medians"
            done
            png=$data/${setup//[:x]/_}-$rate-$prim.png
            echo
            echo "![${prim} on ${setup} at ${rate}](${png#"$outdir"/})"
        done
    done
} | bash "$root/scripts/report-section.sh" "$out" testbed

# ---- plots: time against size, one line per configuration ---------------
for setup_rate in $setups; do
    setup=${setup_rate%@*}
    rate=${setup_rate#*@}
    for prim in $(prims_of "$setup_rate"); do
        png=$data/${setup//[:x]/_}-$rate-$prim.png
        dat=$data/plot.dat
        awk -v s="$setup" -v r="$rate" -v p="$prim" 'BEGIN { FS = "[ ,]" }
            $1 == s && $2 == r && $3 == p { print $4, $5, $6 }' "$medians" | sort -k1,1 -k2,2n |
            awk '{ if ($1 != c) { if (c != "") print "\n"; c = $1; print "# " c } print $2, $3 }' >"$dat"
        [ -s "$dat" ] || continue
        n=$(grep -c '^# ' "$dat")
        {
            echo "set terminal png size 1100,700 noenhanced"
            echo "set output '$png'"
            echo "set title '$prim on $setup, $rate per link: time per call (auto and tuned bold)'"
            echo "set logscale xy; set xlabel 'bytes'; set ylabel 'seconds'; set key outside right"
            printf "plot "
            for ((i = 0; i < n; i++)); do
                name=$(grep '^# ' "$dat" | sed -n "$((i + 1))p" | cut -c3-)
                w=1
                case $name in tuned | auto | auto-cal) w=4 ;; esac
                printf "'%s' index %d using 1:2 with linespoints lw %d title '%s'" "$dat" "$i" "$w" "$name"
                [ $i -lt $((n - 1)) ] && printf ", "
            done
            echo
        } | gnuplot 2>/dev/null || echo "evaluate: gnuplot failed for $png" >&2
        rm -f "$dat"
    done
done
echo "evaluate: $done_runs runs in $((SECONDS - t_start)) s; report: $out; data: $data" >&2
