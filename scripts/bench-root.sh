#!/usr/bin/env bash
# Copyright (c) The ompi-coll-topo authors.
# SPDX-License-Identifier: BSD-3-Clause
# Benchmarks on a machine that has no Open MPI (a bare node, a lent
# accelerator machine): pack this machine's Debian Open MPI, with the
# programs a benchmark needs and a build of the component, into one
# folder, and run commands from it there under chroot (as root).
#
#   bash scripts/bench-root.sh pack DIR [BUILD]
#       DIR/root.tar.xz: the installed packages openmpi-bin, libopenmpi3
#       and what they depend on, bash, coreutils, grep, sed, mawk, findutils,
#       util-linux, hwloc (some 30 MB); DIR/build: the component and the MPI
#       test programs of BUILD (default _build/test-werror); DIR/run.sh.
#   On the other machine, from a copy of this repository holding DIR:
#   bash DIR/run.sh 'COMMAND'
#       unpacks the root into /tmp/bench-root, binds the repository at
#       /repo, /proc, /sys and /dev (unmounted at the end), and runs COMMAND
#       with bash in /repo,
#       TOPO_BUILD=DIR/build and running as root allowed, e.g.
#       bash DIR/run.sh 'bash scripts/bench.sh --primitive bcast 16 2097152'
#       (the root's Open MPI is this machine's: results compare with tuned
#       of the same build of Open MPI).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [ "${1:-}" != pack ] || [ -z "${2:-}" ]; then
    sed -n '2,20p' "$0" >&2
    exit 2
fi
dir=$2
build=${3:-$root/_build/test-werror}
[ -f "$build/ompi-coll-topo/.libs/mca_coll_topo.so" ] ||
    { echo "bench-root: no component in $build (build it first)" >&2; exit 1; }
mkdir -p "$dir/build/ompi-coll-topo/.libs" "$dir/build/test/mpi" "$dir/build/tools"
cp "$build/ompi-coll-topo/.libs/mca_coll_topo.so" "$dir/build/ompi-coll-topo/.libs/"
for p in bench_allreduce test_allreduce test_primitives; do
    (cd "$build" && make -C test "mpi/$p" >/dev/null)
    cp "$build/test/mpi/$p" "$dir/build/test/mpi/"
done
cp "$build/tools/topo-calibrate" "$build/tools/topo-plan" "$dir/build/tools/" 2>/dev/null || true
# the installed packages these need, following Pre-Depends and Depends
declare -A seen
queue=(openmpi-bin libopenmpi3 openmpi-common bash coreutils grep sed mawk findutils
    util-linux hwloc-nox libc-bin)
while [ ${#queue[@]} -gt 0 ]; do
    p=${queue[0]%%:*}
    queue=("${queue[@]:1}")
    [ -n "${seen[$p]:-}" ] && continue
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || continue
    seen[$p]=1
    for d in $(dpkg-query -W -f='${Pre-Depends}, ${Depends}' "$p" | tr ',' '\n' |
        sed 's/(.*)//; s/|.*//; s/ //g; s/:any//'); do
        queue+=("$d")
    done
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/usr/bin" "$tmp/usr/lib" "$tmp/usr/lib64" "$tmp/usr/sbin" "$tmp/etc/alternatives" \
    "$tmp/tmp" "$tmp/proc" "$tmp/sys" "$tmp/dev" "$tmp/repo"
chmod 1777 "$tmp/tmp"
for l in bin lib lib64 sbin; do ln -s "usr/$l" "$tmp/$l"; done
for p in "${!seen[@]}"; do dpkg -L "$p"; done | sort -u |
    grep -Ev '^/(bin|lib|lib64|sbin)$|^/usr/share/(doc|man|locale|info|lintian)/' |
    tar -C / --no-recursion -cf - -T - 2>/dev/null | tar -C "$tmp" --keep-directory-symlink -xf -
# update-alternatives' links (mpirun, awk, a PSM library) and their targets
for a in /etc/alternatives/*; do
    t=$(readlink -f "$a") || continue
    [ -e "$tmp$t" ] || [[ $t == /usr/lib/libpsm* ]] || continue
    cp -a "$a" "$tmp/etc/alternatives/"
    [ -e "$tmp$t" ] || { mkdir -p "$tmp$(dirname "$t")" && cp -a "$(dirname "$t")"/. "$tmp$(dirname "$t")/"; }
done
# and the links to those alternatives
find /usr/bin /usr/lib/x86_64-linux-gnu -maxdepth 1 -lname '/etc/alternatives/*' 2>/dev/null |
    while read -r l; do
        if [ -L "$tmp/etc/alternatives/$(basename "$(readlink "$l")")" ]; then cp -a "$l" "$tmp$l"; fi
    done
cp /etc/passwd /etc/group /etc/hosts /etc/nsswitch.conf "$tmp/etc/"
tar -C "$tmp" -cJf "$dir/root.tar.xz" .
cat >"$dir/run.sh" <<'RUN'
#!/usr/bin/env bash
# bash DIR/run.sh 'COMMAND': see scripts/bench-root.sh
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$here # the repository holding DIR
while [ ! -f "$repo/scripts/bench.sh" ] && [ "$repo" != / ]; do repo=$(dirname "$repo"); done
[ -f "$repo/scripts/bench.sh" ] || { echo "run.sh: $here is not in a copy of the repository" >&2; exit 1; }
R=/tmp/bench-root
mkdir -p "$R" && tar -C "$R" -xJf "$here/root.tar.xz" || exit 1
trap 'umount -l "$R/dev" "$R/sys" "$R/proc" "$R/repo" 2>/dev/null' EXIT
mountpoint -q "$R/repo" || mount --bind "$repo" "$R/repo" || exit 1
mountpoint -q "$R/proc" || mount -t proc proc "$R/proc"
mountpoint -q "$R/sys" || mount --rbind /sys "$R/sys"
mountpoint -q "$R/dev" || mount --rbind /dev "$R/dev"
chroot "$R" /usr/bin/env -i PATH=/usr/bin:/usr/sbin HOME=/root LC_ALL=C \
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    OMPI_MCA_hwloc_base_binding_policy="${BIND:-core}" \
    TOPO_BUILD="/repo/${here#"$repo"/}/build" ${BENCH_REPS:+BENCH_REPS=$BENCH_REPS} \
    ${BENCH_FACTOR:+BENCH_FACTOR=$BENCH_FACTOR} ${BENCH_SYNC:+BENCH_SYNC=$BENCH_SYNC} \
    ${BENCH_ROTATE_ROOT:+BENCH_ROTATE_ROOT=$BENCH_ROTATE_ROOT} /bin/bash -c "cd /repo && $1"
RUN
echo "bench-root: $dir/root.tar.xz ($(du -h "$dir/root.tar.xz" | cut -f1)), $dir/build, $dir/run.sh"
