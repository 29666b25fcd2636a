#!/usr/bin/env bash
# Allreduce: coll/topo against coll/tuned, in the same run of this script.
# Prints, per message size, the median time per call of each and the ratio
# tuned/topo (> 1: coll/topo is faster).  Timings on an oversubscribed
# machine (more ranks than cores) measure scheduling as much as algorithms;
# use as many cores as ranks for numbers worth quoting.
#
#   bash scripts/bench.sh [NP] [MAX_BYTES] [extra mpirun args, e.g. --mca coll_topo_topology torus:4x4]
#
# Needs a build: run scripts/test.sh or scripts/demo.sh first (or set
# TOPO_BUILD to a build directory).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
np=${1:-4}
max=${2:-4194304}
shift $(($# < 2 ? $# : 2))
build=${TOPO_BUILD:-$root/_build/test-werror}
prog=$build/test/mpi/bench_allreduce
comp=$build/ompi-coll-topo/.libs
[ -x "$prog" ] || (cd "$build" && make -C test mpi/bench_allreduce >/dev/null)
pkglib=$(ompi_info --parsable --path pkglibdir | sed 's/^path:pkglibdir://')
flags=(--oversubscribe --mca btl self,vader --mca mca_component_path "$comp:$pkglib")
[ "$(id -u)" = 0 ] && flags+=(--allow-run-as-root)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mpirun "${flags[@]}" -np "$np" --mca coll topo,tuned,basic,libnbc,self --mca coll_topo_verbose 1 "$@" \
    "$prog" "$max" >"$tmp/topo" 2>"$tmp/topo.err"
grep -q 'coll:topo: .*allreduce uses' "$tmp/topo.err" || { echo "bench: coll/topo did not run" >&2; cat "$tmp/topo.err" >&2; exit 1; }
mpirun "${flags[@]}" -np "$np" --mca coll tuned,basic,libnbc,self "$prog" "$max" >"$tmp/tuned"
echo "allreduce, $np ranks, $(nproc) cores ($*):"
printf '%12s %14s %14s %8s\n' bytes "topo (us)" "tuned (us)" "tuned/topo"
join "$tmp/topo" "$tmp/tuned" | awk '{ printf "%12d %14.1f %14.1f %8.2f\n", $1, $2 * 1e6, $3 * 1e6, $3 / $2 }'
echo "coll/topo's choices (the first call of each algorithm):"
grep 'allreduce uses' "$tmp/topo.err" | sed 's/^/  /'
