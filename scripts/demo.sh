#!/usr/bin/env bash
# Copyright (c) The ompi-coll-topo authors.
# SPDX-License-Identifier: BSD-3-Clause
# Build coll/topo, install it into ./_install (nothing outside this
# checkout is touched, apart from the Debian packages), and run the 8-rank
# allreduce demo on a simulated 2x2x2 torus: once with the automatic
# decision, then once forcing each allreduce algorithm.  coll_topo_verbose=1
# makes rank 0 print which algorithm ran and why.
#
#   bash scripts/demo.sh            (from the repository root)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build="$root/_build/demo"
prefix="$root/_install"
compdir="$prefix/lib/openmpi"
jobs=$(nproc 2>/dev/null || echo 2)

step() { printf '\n==== %s\n' "$*"; }

step "installing dependencies"
bash "$root/scripts/install-deps.sh"

step "building into $build, installing into $prefix"
if [ ! -x "$root/configure" ] || [ "$root/configure.ac" -nt "$root/configure" ]; then
    (cd "$root" && ./autogen.sh)
fi
mkdir -p "$build"
cd "$build"
if [ ! -f Makefile ]; then
    "$root/configure" --prefix="$prefix" --with-mca-component-dir="$compdir"
fi
make -j"$jobs"
make -s install >/dev/null

ompi_pkglibdir=$(ompi_info --parsable --path pkglibdir | sed -n 's/^path:pkglibdir://p')
demo="$build/test/mpi/demo_allreduce"
[ -x "$demo" ] || { echo "demo: $demo was not built" >&2; exit 1; }

mpirun_args=(-np 8 --oversubscribe)
[ "$(id -u)" -eq 0 ] && mpirun_args+=(--allow-run-as-root)
# shellcheck disable=SC2054 # the commas are inside MCA values
mpirun_args+=(
    --mca mca_component_path "$compdir:$ompi_pkglibdir"
    --mca coll topo,tuned,inter,basic,libnbc,self
    --mca coll_topo_verbose 1
    --mca coll_topo_topology torus:2x2x2
    --mca btl self,vader
)

run() {
    local algo=$1 log
    step "allreduce algorithm: $algo"
    echo "mpirun ${mpirun_args[*]} --mca coll_topo_allreduce_algorithm $algo $demo"
    log=$(mktemp)
    if ! mpirun "${mpirun_args[@]}" --mca coll_topo_allreduce_algorithm "$algo" "$demo" 2>&1 | tee "$log"; then
        rm -f "$log"
        echo "demo: the run with algorithm $algo failed" >&2
        exit 1
    fi
    # A component that fails to load is only a warning to Open MPI: prove
    # that coll/topo ran.
    if ! grep -q 'coll:topo' "$log"; then
        rm -f "$log"
        echo "demo: no 'coll:topo' line in the output: the component did not run" >&2
        exit 1
    fi
    rm -f "$log"
}

for algo in auto ring recursive_doubling rabenseifner; do
    run "$algo"
done

step "done: mca_coll_topo.so is in $compdir"
echo "use it with: mpirun --mca mca_component_path $compdir:$ompi_pkglibdir ..."
