#!/usr/bin/env bash
# Copyright (c) The ompi-coll-topo authors.
# SPDX-License-Identifier: BSD-3-Clause
# Build coll/topo inside an Open MPI 4.1 source tree, as ompi/mca/coll/topo
# (docs/building.md, "Inside an Open MPI source tree"), and run the MPI
# tests against that build:
#
#   bash scripts/check-intree.sh OPENMPI_SOURCE [WORKDIR]
#
# OPENMPI_SOURCE: an Open MPI 4.1.x release tarball (.tar.gz, .tar.bz2,
# .tar.xz) or the directory it extracts to.  On Debian 12, with a deb-src
# line for bookworm in /etc/apt/sources.list.d, `apt-get source
# --download-only openmpi` fetches openmpi_4.1.4.orig.tar.xz.  The source
# is copied into WORKDIR (default: a new directory under /tmp, printed at
# the end) and never modified.
#
# Steps: the component's tracked files go to ompi/mca/coll/topo of the copy;
# Open MPI's autogen.pl --force; configure (installing into WORKDIR/install;
# the external hwloc, libevent and PMIx that Debian's libopenmpi-dev brings;
# no Fortran, OpenSHMEM or ROMIO, which coll/topo does not touch); make;
# make install.  Then ompi_info must list coll/topo with its parameters,
# the MPI test programs are built with that Open MPI's mpicc (and
# topo-plan, which the decision cases read, from the core's source list
# ompi-coll-topo/core/sources.am), and every table of MPI test cases
# (test/mpi/cases/*.cases) runs with only the in-tree component on the
# path (TOPO_IN_TREE=1: this build has no PMIx topology source).  About 10
# minutes of build on 2 cores, then 3 of tests (SIZES: the communicator
# sizes of the allreduce, primitives and intercomm tables, default
# "1 2 3 4 5 8").
#
# Not part of CI (the build alone would take a third of its time).  Exit
# status 0 when every step passed.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
src=${1:?usage: check-intree.sh OPENMPI_SOURCE [WORKDIR]}
work=${2:-$(mktemp -d /tmp/coll-topo-intree.XXXXXX)}
jobs=$(nproc 2>/dev/null || echo 2)
mkdir -p "$work"
work=$(cd "$work" && pwd)
log=$work/log
mkdir -p "$log"

step() { printf '\n==== %s\n' "$*"; }
fail() {
    echo "check-intree: $*" >&2
    echo "check-intree: logs in $log" >&2
    exit 1
}

step "dependencies"
bash "$root/scripts/install-deps.sh"

step "Open MPI source from $src"
tree=$work/openmpi
rm -rf "$tree"
if [ -d "$src" ]; then
    cp -a "$src" "$tree"
else
    mkdir -p "$tree"
    tar -xf "$src" -C "$tree" --strip-components=1 || fail "cannot extract $src"
fi
if [ ! -f "$tree/ompi/mca/coll/base/coll_base_functions.h" ] || [ ! -x "$tree/autogen.pl" ]; then
    fail "$src is not an Open MPI source tree (no ompi/mca/coll/base, no autogen.pl)"
fi
if ! grep -q '^major=4' "$tree/VERSION" || ! grep -q '^minor=1' "$tree/VERSION"; then
    echo "check-intree: warning: not Open MPI 4.1 ($(grep -E '^(major|minor|release)=' "$tree/VERSION" | tr '\n' ' '))"
fi

step "coll/topo into ompi/mca/coll/topo"
dest=$tree/ompi/mca/coll/topo
rm -rf "$dest"
mkdir -p "$dest"
if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    # the tracked files only: no build products of an out-of-tree build
    (cd "$root/ompi-coll-topo" && git ls-files -z . | xargs -0 cp --parents -t "$dest")
else
    cp -a "$root/ompi-coll-topo/." "$dest"
    rm -f "$dest/Makefile.in" "$dest/Makefile"
fi
echo "$(find "$dest" -type f | wc -l) files"

step "autogen.pl (log: $log/autogen.log)"
(cd "$tree" && ./autogen.pl --force --no-oshmem) >"$log/autogen.log" 2>&1 ||
    fail "autogen.pl failed: $(tail -n 5 "$log/autogen.log")"
grep -q -- '--- Found ompi / coll / topo component' "$log/autogen.log" ||
    fail "autogen.pl did not find the component"

step "configure (log: $log/configure.log)"
mkdir -p "$tree/build"
(cd "$tree/build" && ../configure --prefix="$work/install" \
    --with-hwloc=external --with-libevent=external --with-pmix=external \
    --disable-mpi-fortran --disable-oshmem --disable-io-romio) >"$log/configure.log" 2>&1 ||
    fail "configure failed: $(tail -n 5 "$log/configure.log")"
grep -q 'checking if MCA component coll:topo can compile... yes' "$log/configure.log" ||
    fail "configure does not build coll/topo"

step "make -j$jobs && make install (log: $log/make.log)"
(cd "$tree/build" && make -j"$jobs" && make install) >"$log/make.log" 2>&1 ||
    fail "the build failed: $(grep -E 'error|Error' "$log/make.log" | head -n 5)"

export PATH=$work/install/bin:$PATH
export LD_LIBRARY_PATH=$work/install/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
comp=$work/install/lib/openmpi
step "ompi_info"
[ -f "$comp/mca_coll_topo.so" ] || fail "no $comp/mca_coll_topo.so"
ompi_info | grep -E 'MCA coll: topo' || fail "ompi_info does not list coll/topo"
nparams=$(ompi_info --param coll topo --level 9 | grep -c 'parameter "coll_topo_')
echo "$nparams coll_topo_ parameters"
[ "$nparams" -gt 20 ] || fail "ompi_info lists only $nparams coll/topo parameters"

step "MPI test programs (this Open MPI's mpicc)"
bin=$work/tests/mpi
mkdir -p "$bin"
for p in test_allreduce test_primitives test_cart test_intercomm test_threads test_mixed_types \
    test_first_call; do
    mpicc -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -Wall -Wextra -Werror -pthread \
        "$root/test/mpi/$p.c" "$root/test/mpi/test_common.c" -o "$bin/$p" -lm ||
        fail "cannot build $p"
done
mkdir -p "$work/tests/tools"
core=$(sed -n 's|^[[:space:]]*%reldir%/\([a-z0-9_]*\.c\).*|\1|p' "$root/ompi-coll-topo/core/sources.am")
# shellcheck disable=SC2046 # one word per file on purpose
cc -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -I"$root/ompi-coll-topo/core" "$root/tools/topo-plan.c" \
    $(for f in $core; do echo "$root/ompi-coll-topo/core/$f"; done) -o "$work/tests/tools/topo-plan" -lm ||
    fail "cannot build topo-plan"

status=0
for table in "$root"/test/mpi/cases/*.cases; do
    name=$(basename "$table" .cases)
    step "MPI test cases: $name (log: $log/$name.log)"
    if TOPO_COMPONENT_DIR=$comp TOPO_OMPI_PKGLIBDIR=$comp TOPO_MPI_TEST_DIR=$bin \
        TOPO_BUILDDIR=$work/tests TOPO_SRCDIR=$root \
        TOPO_IN_TREE=1 SIZES=${SIZES:-1 2 3 4 5 8} BIG_SIZES="" \
        bash "$root/test/mpi/run-cases.sh" "$table" >"$log/$name.log" 2>&1; then
        tail -n 1 "$log/$name.log"
    else
        grep -E '^FAIL' "$log/$name.log" | cut -c1-300 || true
        tail -n 1 "$log/$name.log"
        status=1
    fi
done

echo
if [ $status = 0 ]; then
    echo "check-intree: the in-tree build passed (work directory: $work)"
else
    echo "check-intree: some MPI tests failed (logs in $log)"
fi
exit $status
