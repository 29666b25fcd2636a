# Copyright (c) The ompi-coll-topo authors.
# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash
# shellcheck disable=SC2034 # the variables are for the scripts that source this
# Shared by the benchmark scripts (bench.sh, bench-algorithms.sh,
# bench-transports.sh, bench-lease.sh, overhead.sh; sourced at their top
# level, so it reads and shifts their arguments): an optional leading
# "--primitive P", the benchmark program of the build, and mpirun's flags.
# Sets prim, vprim (the name coll/topo's verbose lines use), fn (the MPI
# function), build, prog, flags and tmp (removed on exit); defines
# bind_cores, median, bench_args and launch (below).
prim=allreduce
if [ "${1:-}" = --primitive ]; then
    prim=${2:?--primitive needs a name}
    shift 2
fi
case $prim in
allreduce) fn=PMPI_Allreduce ;;
bcast) fn=PMPI_Bcast ;;
reduce) fn=PMPI_Reduce ;;
allgather) fn=PMPI_Allgather ;;
reduce_scatter_block) fn=PMPI_Reduce_scatter_block ;;
reduce_scatter) fn=PMPI_Reduce_scatter ;;
alltoall) fn=PMPI_Alltoall ;;
barrier) fn=PMPI_Barrier ;;
*)
    echo "$(basename "$0"): unknown primitive '$prim'" >&2
    exit 2
    ;;
esac
vprim=${prim%_block} # reduce_scatter_block is reported as reduce_scatter
build=${TOPO_BUILD:-$root/_build/test-werror}
prog=$build/test/mpi/bench_allreduce
[ -x "$prog" ] || (cd "$build" && make -C test mpi/bench_allreduce >/dev/null)
pkglib=$(ompi_info --parsable --path pkglibdir | sed 's/^path:pkglibdir://')
flags_path="$build/ompi-coll-topo/.libs:$pkglib"
# shellcheck disable=SC2054 # the comma is inside an MCA value
flags=(--oversubscribe --mca btl self,vader --mca mca_component_path "$flags_path")
[ "$(id -u)" = 0 ] && flags+=(--allow-run-as-root)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# what a time per call is (bench_allreduce's BENCH_SYNC), for the headers
timing="back-to-back calls"
if [ "${BENCH_SYNC:-}" = 1 ]; then timing="one call at a time (BENCH_SYNC=1)"; fi
if [ "${BENCH_ROTATE_ROOT:-}" = 1 ]; then timing="$timing, root rotating"; fi

# bind_cores NP: a core per rank where the machine has them (Open MPI binds
# to sockets from 3 ranks on by default)
bind_cores() {
    if [ "$(nproc)" -ge "$1" ]; then flags+=(--bind-to core); fi
}
# median NAME: "bytes seconds" lines, the median over the runs
# $tmp/NAME.run*
median() {
    cat "$tmp/$1".run* | sort -k1,1n -k2,2g |
        awk '{ v[$1] = v[$1] " " $2; n[$1]++ }
             END { for (b in v) { split(substr(v[b], 2), a, " "); print b, a[int((n[b] + 1) / 2)] } }' |
        sort -k1,1n
}

# bench_args NP MAX_BYTES [ALGORITHM...] [-- MPIRUN ARGS...]: sets np, max,
# algs (the algorithms, possibly none) and extra (the mpirun arguments).
bench_args() {
    np=${1:?NP}
    max=${2:?MAX_BYTES}
    shift 2
    algs=()
    while [ $# -gt 0 ] && [ "$1" != -- ]; do
        algs+=("$1")
        shift
    done
    [ "${1:-}" = -- ] && shift
    extra=("$@")
}

# launch OUT ERR ARGS...: the benchmark program on $np ranks with the
# mpirun arguments ARGS, its stdout in OUT and its stderr in ERR.  Here:
# mpirun with $flags.  With BENCH_TESTBED=PREFIX: on that running testbed
# (scripts/testbed.sh start ... --prefix PREFIX), through testbed.sh run,
# $np / nodes ranks per node, TCP between nodes; ARGS may then only be
# "--mca NAME VALUE" and "-x NAME=VALUE".
launch() {
    local out=$1 err=$2 tb=() nodes
    shift 2
    if [ -z "${BENCH_TESTBED:-}" ]; then
        mpirun "${flags[@]}" -np "$np" "$@" "$prog" "$max" "$prim" >"$out" 2>"$err"
        return
    fi
    nodes=$(grep -c . "$root/_build/testbed/$BENCH_TESTBED/nodes" 2>/dev/null) ||
        { echo "$(basename "$0"): no testbed '$BENCH_TESTBED' runs (scripts/testbed.sh start)" >&2; exit 2; }
    if [ $((np % nodes)) != 0 ] || [ "$np" -lt "$nodes" ]; then
        echo "$(basename "$0"): $np ranks do not fill the testbed's $nodes nodes evenly" >&2
        exit 2
    fi
    while [ $# -gt 0 ]; do
        case $1 in
        --mca) tb+=(--mca "$2" "$3"); shift 3 ;;
        -x) tb+=(--env "$2"); shift 2 ;;
        *) echo "$(basename "$0"): '$1' cannot be given on the testbed (--mca and -x only)" >&2; exit 2 ;;
        esac
    done
    bash "$root/scripts/testbed.sh" run --prefix "$BENCH_TESTBED" --ranks-per-node $((np / nodes)) \
        --timeout "${BENCH_TIMEOUT:-1800}" --mca mca_component_path "${flags_path:?}" "${tb[@]}" \
        -- "$prog" "$max" "$prim" >"$out" 2>"$err"
}
