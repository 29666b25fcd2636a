#!/bin/bash
# Copyright (c) The ompi-coll-topo authors.
# SPDX-License-Identifier: BSD-3-Clause
#
# run-cases.sh: the MPI tests of coll/topo.  One runner for every table of
# cases (test/mpi/cases/*.cases); "make check" runs each table with it
# against the component built in this tree, before install:
#
#   run-cases.sh TABLE.cases
#
# A table is a bash file, read after cases/words.sh (the wording of
# coll/topo's verbose lines that tables and the checks below match), that
# declares its cases, one per line (loops build the matrices):
#
#   tcase NAME NP "SETTINGS" "PROGRAM ARGS" EXPECT...
#
#   NAME      unique in the table; TOPO_TEST_ONLY selects by it
#   NP        ranks, or application contexts "N[:VAR=VALUE] ..." (MPMD;
#             VAR=VALUE, an OMPI_MCA_* variable, in that context's
#             environment only)
#   SETTINGS  MCA NAME=VALUE words over the table's defaults (NAME= with
#             no value drops a default: coll= runs without a coll list)
#   PROGRAM   a test program of test/mpi; ARGS split on spaces
#   EXPECT    one word each (quoted):
#     +TEXT             TEXT appears in the output (fixed string)
#     -TEXT             TEXT does not appear
#     ~ERE  !~ERE       some line matches / no line matches the regex
#     msg:TEXT          a line other than coll/topo's verbose lines
#                       holds TEXT (a help message)
#     uses:PRIM=ALG     coll/topo served PRIM with ALG ("PRIM uses ALG (")
#                       and with no other algorithm (2 assertions)
#     uses:PRIM=any     coll/topo served PRIM with some algorithm
#     served:PRIM=ALG   as uses:PRIM=ALG, or the forced ALG does not fit
#                       any call and they went to the previous module
#                       (the verbose line says so) (2 assertions)
#     decided:PRIM      uses:PRIM=any, or coll_topo_handoff handed PRIM's
#                       calls to the previous module
#     same:CASE:ERE     the lines matching ERE, sorted, are CASE's
#     cmp:CASE:EXPR:ERE the first line matching ERE, here (b) and in
#                       CASE (a), whose first group satisfies awk's EXPR
#     exit=N            the exit status expected (default 0)
#   Every case also asserts its exit status, the program's summary line
#   with 0 failures (table command summary), and that no help message of
#   Open MPI or coll/topo went missing (help file not found): 3 assertions.
#
# Table commands besides tcase:
#   defaults SETTINGS    the settings of the cases that follow
#   limit SECONDS        per mpirun (TOPO_TEST_TIMEOUT overrides)
#   summary PROG ERE     PROG's passing summary (@NP@: the ranks)
#   skip NAME REASON     a case this machine cannot run (SKIP, counted)
#   table_pass MESSAGE   a passed assertion of the table itself (what it
#   table_fail MESSAGE   read to build its cases), or a failed one
#   catalog PRIM         the catalog's algorithms of PRIM (ompi_info)
# and the variables PROGRAM_DIR, BUILD_DIR, SRC_DIR, DATA (test/data),
# SCRATCH (a directory removed at the end), NPROC.
#
# One line per case, "PASS: NAME: COMMAND (S s)", "FAIL: NAME: COMMAND (S
# s): REASONS" followed by the end of its output, or "SKIP: NAME: REASON";
# then "N passed, M failed, K skipped (A assertions)" alone on the last
# line.  Exit status: 0 all passed, 1 some failed, 77 (skip) without
# mpirun or when no case is selected, 99 when a program, the component or
# the table is wrong.
#
# Open MPI 4.1.4's mpirun sometimes loses a job's messages together with an
# "ORTE_ERROR_LOG: ... show_help.c" error of its own (seen about once in
# 10-20 runs on a loaded 2-core machine, more often where every rank shows
# the same help message at once); only then, a case runs again, up to 4
# times in all, with a note on stdout.
#
# Environment (all optional; "make check" sets the TOPO_* paths):
#   TOPO_TEST_ONLY       a bash pattern, extended ones too ('rules*',
#                        '@(grid|bfb)-*'): only the cases it names (and the
#                        cases theirs compare with)
#   TOPO_TEST_JOBS       cases run at once (default: processors / 4, at
#                        least 1)
#   TOPO_TEST_LIST=1     list the selected cases and their assertions, run
#                        nothing
#   TOPO_TEST_TIMEOUT    seconds allowed per mpirun (default: the table's)
#   TOPO_TEST_TRANSPORT  ofi:PROVIDER (e.g. ofi:shm, 'ofi:tcp;ofi_rxm') or
#                        pml: every case's messages over that transport
#                        (coll_topo_transport, coll_topo_ofi_provider after
#                        the table's defaults; a case that sets
#                        coll_topo_transport itself keeps its own).  Over
#                        ofi each such case also asserts that no
#                        communicator fell back to the PML and no
#                        ofi-unavailable message appeared, and on 2 or
#                        more ranks with coll_topo_verbose 1 or more, that
#                        a communicator used ofi (3 assertions);
#                        FI_TCP_IFACE defaults to lo
#   TOPO_TEST_LOGDIR     where to keep the output of failed runs
#   TOPO_COMPONENT_DIR   directory holding mca_coll_topo.so (searched before
#                        Open MPI's own component directory)
#   TOPO_OMPI_PKGLIBDIR  Open MPI's component directory
#   TOPO_TEST_BUILDDIR, TOPO_MPI_TEST_DIR   where the test programs are
#   TOPO_BUILDDIR, TOPO_SRCDIR   the build and source trees
#   MPIRUN, MPIRUN_EXTRA_ARGS (split on spaces)
#   and the tables' own (SIZES, TOPO_TEST_QUICK, ...: see each table).

set -u

MPIRUN=${MPIRUN:-mpirun}
here=$(cd "$(dirname "$0")" && pwd)
table=${1:-}
if [ -z "$table" ] || [ ! -f "$table" ]; then
    echo "usage: $0 TABLE.cases"
    exit 99
fi
table_name=$(basename "$table" .cases)
command -v "$MPIRUN" >/dev/null 2>&1 || { echo "SKIP: $MPIRUN not found (set MPIRUN)"; exit 77; }

# find_first FILE DIR... : the first DIR holding FILE, as an absolute path.
find_first() {
    local f=$1 d
    shift
    for d in "$@"; do
        [ -n "$d" ] && [ -e "$d/$f" ] && { (cd "$d" && pwd); return 0; }
    done
    return 1
}

# ---- what the cases run ------------------------------------------------------
# (DATA, BUILD_DIR, NPROC, SCRATCH: for the tables)
# shellcheck disable=SC2034
SRC_DIR=${TOPO_SRCDIR:-$(cd "$here/../.." && pwd)}
# shellcheck disable=SC2034
DATA=$SRC_DIR/test/data
PROGRAM_DIR=$(find_first test_allreduce "${TOPO_MPI_TEST_DIR:-}" \
    "${TOPO_TEST_BUILDDIR:+$TOPO_TEST_BUILDDIR/mpi}" "$here" ./test/mpi ./mpi) ||
    { echo "ERROR: the test programs (test_allreduce) not found (set TOPO_MPI_TEST_DIR)"; exit 99; }
# shellcheck disable=SC2034
BUILD_DIR=${TOPO_BUILDDIR:-$(cd "$PROGRAM_DIR/../.." && pwd)}
comp_dir=$(find_first mca_coll_topo.so "${TOPO_COMPONENT_DIR:-}" "$here/../../ompi-coll-topo/.libs") ||
    { echo "ERROR: mca_coll_topo.so not found (set TOPO_COMPONENT_DIR)"; exit 99; }
pkglibdir=${TOPO_OMPI_PKGLIBDIR:-$(ompi_info --parsable --path pkglibdir 2>/dev/null |
    sed -n 's/^path:pkglibdir://p')}
if [ -z "$pkglibdir" ] || [ ! -d "$pkglibdir" ]; then
    echo "ERROR: Open MPI's component directory not found (set TOPO_OMPI_PKGLIBDIR)"
    exit 99
fi
# The first directory holding a component wins: ours first, so that an
# older copy installed in Open MPI's directory does not shadow it.
export OMPI_MCA_mca_component_path="$comp_dir:$pkglibdir"
NPROC=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
JOBS=${TOPO_TEST_JOBS:-$((NPROC / 4))}
[ "$JOBS" -ge 1 ] 2>/dev/null || JOBS=1

launch=("$MPIRUN" --oversubscribe)
[ "$(id -u)" = 0 ] && launch+=(--allow-run-as-root)
# shellcheck disable=SC2206 # split on purpose
launch+=(${MPIRUN_EXTRA_ARGS:-})

logdir=${TOPO_TEST_LOGDIR:-$(mktemp -d "${TMPDIR:-/tmp}/coll-topo-$table_name.XXXXXX")}
mkdir -p "$logdir" || exit 99
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/coll-topo-$table_name-scratch.XXXXXX") || exit 99
trap 'rm -rf "$SCRATCH"' EXIT

# ---- the table's commands ------------------------------------------------------
C_NAME=() C_NP=() C_SET=() C_OWN=() C_PROG=() C_EXP=() C_TIME=()
declare -A C_INDEX=() SUMMARY=()
cur_defaults="" cur_timeout=60
SKIPS=() TABLE_FAILS=() TABLE_PASSES=()
SEP=$'\x1f'

defaults() { cur_defaults="$*"; }
limit() { cur_timeout=$1; }
summary() { SUMMARY[$1]=$2; }
skip() { SKIPS+=("$1: $2"); }
table_fail() { TABLE_FAILS+=("$*"); }
table_pass() { TABLE_PASSES+=("$*"); }

# catalog PRIM: the catalog's algorithms of PRIM, from the help text of its
# MCA parameter ("... or one of: a, b, c.  A forced ...").
ompi_info_params=
catalog() {
    [ -n "$ompi_info_params" ] ||
        ompi_info_params=$(ompi_info --param coll topo --level 9 --parsable 2>/dev/null)
    printf '%s\n' "$ompi_info_params" |
        sed -n "s/^mca:coll:topo:param:coll_topo_$1_algorithm:help:.* or one of: \([a-z0-9_, ]*\)\..*/\1/p" |
        tr -d ','
}

# TOPO_TEST_TRANSPORT: the settings and expectations it adds to a case
tp_set=""
case ${TOPO_TEST_TRANSPORT:-} in
"") ;;
pml) tp_set="coll_topo_transport=pml" ;;
ofi:?*)
    tp_set="coll_topo_transport=ofi coll_topo_ofi_provider=${TOPO_TEST_TRANSPORT#ofi:}"
    export FI_TCP_IFACE=${FI_TCP_IFACE:-lo}
    ;;
*)
    echo "ERROR: TOPO_TEST_TRANSPORT='$TOPO_TEST_TRANSPORT': pml or ofi:PROVIDER"
    exit 99
    ;;
esac

tcase() {
    local name=$1 np=$2 settings=$3 prog=$4 pa verbose=0 ranks=0
    shift 4
    if [ -n "$tp_set" ] && [[ " $settings $np" != *[\ _]coll_topo_transport=* ]]; then
        if [ "${tp_set#*=ofi}" != "$tp_set" ]; then
            for pa in $cur_defaults $settings; do
                [[ $pa != coll_topo_verbose=* ]] || verbose=${pa#*=}
            done
            for pa in $np; do ranks=$((ranks + ${pa%%:*})); done
            set -- "$@" "-$W_OFI_UNAVAILABLE" "!~^$W_LINE.*: $W_TRANSPORT pml"
            if [ "$ranks" -gt 1 ] && [ "${verbose:-0}" -ge 1 ] 2>/dev/null; then
                set -- "$@" "~^$W_LINE.*: $W_TRANSPORT ofi \\(provider "
            fi
        fi
        settings="$tp_set $settings"
    fi
    [ -z "${C_INDEX[$name]:-}" ] || { echo "ERROR: $table: two cases named '$name'"; exit 99; }
    [ -x "$PROGRAM_DIR/${prog%% *}" ] || { echo "ERROR: $PROGRAM_DIR/${prog%% *} not found (case $name)"; exit 99; }
    C_INDEX[$name]=${#C_NAME[@]}
    C_NAME+=("$name")
    C_NP+=("$np")
    C_SET+=("$cur_defaults $settings")
    C_OWN+=("$settings")
    C_PROG+=("$prog")
    local IFS=$SEP
    C_EXP+=("$*")
    C_TIME+=("${TOPO_TEST_TIMEOUT:-$cur_timeout}")
}

# shellcheck source=cases/words.sh
. "$here/cases/words.sh"
# shellcheck disable=SC1090
. "$table"

# ---- selection ------------------------------------------------------------------
# TOPO_TEST_ONLY's cases, and those whose output theirs compare with
selected=()
declare -A chosen=()
for i in "${!C_NAME[@]}"; do
    # shellcheck disable=SC2053 # a pattern on purpose
    [[ -z ${TOPO_TEST_ONLY:-} || ${C_NAME[$i]} == $TOPO_TEST_ONLY ]] || continue
    chosen[$i]=1
    IFS=$SEP read -ra exps <<<"${C_EXP[$i]}"
    for e in "${exps[@]}"; do
        case $e in
        same:* | cmp:*)
            dep=${e#*:}
            dep=${dep%%:*}
            [ -n "${C_INDEX[$dep]:-}" ] || { echo "ERROR: case ${C_NAME[$i]} compares with '$dep', no such case"; exit 99; }
            chosen[${C_INDEX[$dep]}]=1
            ;;
        esac
    done
done
for i in "${!C_NAME[@]}"; do [ -z "${chosen[$i]:-}" ] || selected+=("$i"); done

# assertions EXPECTS: the number of things a case asserts
assertions() {
    local n=3 e
    IFS=$SEP read -ra exps <<<"$1"
    for e in "${exps[@]}"; do
        case $e in
        exit=*) ;;
        uses:*=any) n=$((n + 1)) ;;
        uses:* | served:*) n=$((n + 2)) ;;
        *) n=$((n + 1)) ;;
        esac
    done
    echo $n
}

if [ "${TOPO_TEST_LIST:-0}" = 1 ]; then
    total=0
    for i in "${selected[@]}"; do
        a=$(assertions "${C_EXP[$i]}")
        total=$((total + a))
        echo "${C_NAME[$i]} $a"
    done
    ntable=$((${#TABLE_PASSES[@]} + ${#TABLE_FAILS[@]}))
    echo "${#selected[@]} cases, ${#SKIPS[@]} skipped, $ntable table checks, $((total + ntable)) assertions"
    exit 0
fi

# ---- running a case -------------------------------------------------------------
# logged LOG COMMAND... : COMMAND's stdout, then its stderr, in LOG (kept
# apart while it runs: mpirun forwards them separately, and one stream's
# chunks can otherwise land inside a line of the other); retried on
# mpirun's own show_help error (above).
logged() {
    local log=$1 rc try
    shift
    for try in 1 2 3 4; do
        "$@" >"$log.out" 2>"$log.err" </dev/null
        rc=$?
        cat "$log.out" "$log.err" >"$log"
        rm -f "$log.out" "$log.err"
        if [ $try = 4 ] || ! grep -q 'ORTE_ERROR_LOG: .*show_help.c' "$log"; then
            break
        fi
        echo "note: retrying after mpirun's own show_help error: $*"
    done
    return $rc
}

# command_of I: the mpirun command line of case I, in CMD; its ranks in NP
command_of() {
    local i=$1 pa ctx c
    local -A set=()
    local order=()
    for pa in ${C_SET[$i]}; do
        [ -n "${set[${pa%%=*}]+x}" ] || order+=("${pa%%=*}")
        set[${pa%%=*}]=${pa#*=}
    done
    CMD=("${launch[@]}")
    for pa in "${order[@]}"; do
        [ -z "${set[$pa]}" ] || CMD+=(--mca "$pa" "${set[$pa]}")
    done
    # shellcheck disable=SC2206 # PROGRAM ARGS split on purpose
    local prog=($PROGRAM_DIR/${C_PROG[$i]})
    NP=0
    local first=1
    for ctx in ${C_NP[$i]}; do
        [ $first = 1 ] || CMD+=(:)
        first=0
        c=${ctx%%:*}
        CMD+=(-np "$c")
        [ "$c" = "$ctx" ] || CMD+=(-x "${ctx#*:}")
        CMD+=("${prog[@]}")
        NP=$((NP + c))
    done
}

# run_case I: run case I, its output in $logdir/I.log, then I.rc
run_case() {
    local i=$1 log=$logdir/$1.log t0=$SECONDS rc
    command_of "$i"
    logged "$log" timeout -k 10 "${C_TIME[$i]}" "${CMD[@]}"
    rc=$?
    echo "$rc $((SECONDS - t0))" >"$log.rc.tmp"
    mv "$log.rc.tmp" "$log.rc"
}

# first_group LOG ERE: ERE's first group in the first line of LOG it matches
first_group() {
    grep -E -m 1 -- "$2" "$1" | sed -E "s/.*$2.*/\\1/"
}

npass=0 nfail=0 nassert=0
# check_case I: the verdict on case I (its run is over)
check_case() {
    local i=$1 log=$logdir/$1.log e why=() rc secs want_rc=0 p alg re uses other dep rest expr
    read -r rc secs <"$log.rc"
    command_of "$i"
    IFS=$SEP read -ra exps <<<"${C_EXP[$i]}"
    for e in "${exps[@]}"; do [[ $e != exit=* ]] || want_rc=${e#exit=}; done
    [ "$rc" = "$want_rc" ] || why+=("exit status $rc, not $want_rc$([ "$rc" = 124 ] && echo ": timed out after ${C_TIME[$i]} s")")
    local pname=${C_PROG[$i]%% *}
    local sum=${SUMMARY[$pname]:-$SUMMARY_DEFAULT}
    sum=${sum//@PROG@/$pname}
    sum=${sum//@NP@/$NP}
    grep -Eq -- "$sum" "$log" || why+=("no passing summary")
    ! grep -q "You were supposed to get help about" "$log" ||
        why+=("a help message could not be shown (help file not found)")
    for e in "${exps[@]}"; do
        case $e in
        exit=*) ;;
        +*) grep -Fq -- "${e#+}" "$log" || why+=("missing '${e#+}'") ;;
        -*) ! grep -Fq -- "${e#-}" "$log" || why+=("unexpected '${e#-}'") ;;
        '!~'*) ! grep -Eq -- "${e:2}" "$log" || why+=("a line matches '${e:2}'") ;;
        '~'*) grep -Eq -- "${e:1}" "$log" || why+=("no line matches '${e:1}'") ;;
        msg:*)
            grep -v -e '^coll:topo: ' -e "$W_LINE" "$log" | grep -Fq -- "${e#msg:}" ||
                why+=("no message mentions '${e#msg:}'")
            ;;
        uses:* | served:* | decided:*)
            p=${e#*:}
            alg=${p#*=}
            p=${p%%=*}
            uses=$(grep -oE "$W_LINE.*: $p $W_USES [a-z0-9_]+ \\(" "$log" |
                sed -E "s/.* $W_USES ([a-z0-9_]+) .*/\\1/" | sort -u | tr '\n' ' ')
            case $e in
            decided:*)
                [ -n "$uses" ] || grep -q ": $p $W_PREV ($W_HANDOFF" "$log" ||
                    why+=("no '$p $W_USES <algorithm>' line, nor a $W_HANDOFF one")
                ;;
            uses:*=any) [ -n "$uses" ] || why+=("no '$p $W_USES <algorithm>' line") ;;
            *)
                if [[ " $uses" != *" $alg "* ]]; then
                    if [[ $e != served:* ]]; then
                        why+=("no '$p $W_USES $alg' line")
                    elif ! grep -Eq -- ": $p $W_PREV .*coll_topo_${p}_algorithm=$alg $W_NOFIT" "$log"; then
                        why+=("neither '$p $W_USES $alg' nor a '$W_NOFIT' line for $alg")
                    fi
                fi
                other=${uses// $alg / }
                other=${other#"$alg "}
                [ -z "${other// /}" ] || why+=("$p used ${other% }, not only $alg")
                ;;
            esac
            ;;
        same:*)
            rest=${e#same:}
            dep=$logdir/${C_INDEX[${rest%%:*}]}.log
            re=${rest#*:}
            grep -Eq -- "$re" "$dep" || why+=("no line matches '$re' in ${rest%%:*}")
            [ "$(grep -E -- "$re" "$log" | sort)" = "$(grep -E -- "$re" "$dep" | sort)" ] ||
                why+=("the lines matching '$re' differ from ${rest%%:*}'s")
            ;;
        cmp:*)
            rest=${e#cmp:}
            dep=${rest%%:*}
            rest=${rest#*:}
            expr=${rest%%:*}
            re=${rest#*:}
            local a b
            a=$(first_group "$logdir/${C_INDEX[$dep]}.log" "$re")
            b=$(first_group "$log" "$re")
            if [ -z "$a" ] || [ -z "$b" ] || ! awk -v a="$a" -v b="$b" "BEGIN { exit !($expr) }"; then
                why+=("'$re' gives '$a' in $dep, '$b' here: not $expr")
            fi
            ;;
        *) why+=("unknown expectation '$e'") ;;
        esac
    done
    nassert=$((nassert + $(assertions "${C_EXP[$i]}")))
    local what="${C_NAME[$i]}: -np ${C_NP[$i]} ${C_OWN[$i]} ${C_PROG[$i]}"
    what=$(echo "$what" | tr -s ' ')
    if [ ${#why[@]} = 0 ]; then
        npass=$((npass + 1))
        echo "PASS: $what ($secs s)"
    else
        nfail=$((nfail + 1))
        FAILED+=("$i")
        echo "FAIL: $what ($secs s): $(printf '%s; ' "${why[@]}")"
        echo "    command: ${CMD[*]}"
        tail -n 20 "$log" | sed 's/^/    /'
    fi
}

# ---- the run ----------------------------------------------------------------------
FAILED=()
deferred=()
running=()
has_deps() { [[ $SEP${C_EXP[$1]} == *"${SEP}same:"* || $SEP${C_EXP[$1]} == *"${SEP}cmp:"* ]]; }
finished() { # check the cases whose runs are over (those that compare: at the end)
    local i still=()
    for i in "${running[@]}"; do
        if [ -e "$logdir/$i.log.rc" ]; then
            if has_deps "$i"; then deferred+=("$i"); else check_case "$i"; fi
        else
            still+=("$i")
        fi
    done
    running=("${still[@]}")
}

echo "table:      $table (${#selected[@]} cases, $JOBS at once)"
echo "programs:   $PROGRAM_DIR"
echo "component:  $comp_dir/mca_coll_topo.so"
for t in "${TABLE_PASSES[@]}"; do
    echo "PASS: $table_name: $t"
    npass=$((npass + 1))
    nassert=$((nassert + 1))
done
for t in "${TABLE_FAILS[@]}"; do
    echo "FAIL: $table_name: $t"
    nfail=$((nfail + 1))
    nassert=$((nassert + 1))
done
for s in "${SKIPS[@]}"; do echo "SKIP: $s"; done
if [ ${#selected[@]} = 0 ]; then
    echo "SKIP: no case of $table_name selected (TOPO_TEST_ONLY=${TOPO_TEST_ONLY:-})"
    [ $nfail = 0 ] && exit 77
    exit 1
fi
for i in "${selected[@]}"; do
    if [ "$JOBS" = 1 ]; then
        run_case "$i"
        running=("$i")
        finished
        continue
    fi
    while [ ${#running[@]} -ge "$JOBS" ]; do
        finished
        [ ${#running[@]} -lt "$JOBS" ] || sleep 0.5
    done
    run_case "$i" &
    running+=("$i")
done
wait
finished
for i in "${deferred[@]}"; do check_case "$i"; done

# the logs of the passing cases go; the failed ones' stay
for i in "${selected[@]}"; do
    [[ " ${FAILED[*]} " == *" $i "* ]] || rm -f "$logdir/$i.log" "$logdir/$i.log.rc"
done
if [ $nfail = 0 ]; then
    rmdir "$logdir" 2>/dev/null
else
    echo "logs of the failed runs: $logdir (<case number>.log)"
fi
echo "$npass passed, $nfail failed, ${#SKIPS[@]} skipped ($nassert assertions)"
[ $nfail = 0 ]
