# Copyright (c) The ompi-coll-topo authors.
# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash
# shellcheck disable=SC2034 # the variables are for the scripts that source this
# Shared by scripts/bench.sh and scripts/overhead.sh (sourced at their top
# level, so it reads and shifts their arguments): an optional leading
# "--primitive P", the benchmark program of the build, and mpirun's flags.
# Sets prim, vprim (the name coll/topo's verbose lines use), fn (the MPI
# function), build, prog, flags and tmp (removed on exit); defines
# bind_cores and median.
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
# shellcheck disable=SC2054 # the comma is inside an MCA value
flags=(--oversubscribe --mca btl self,vader --mca mca_component_path "$build/ompi-coll-topo/.libs:$pkglib")
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
