#!/usr/bin/env bash
# Copyright (c) The ompi-coll-topo authors.
# SPDX-License-Identifier: BSD-3-Clause
# Computation hidden behind a nonblocking allreduce: MPI_Iallreduce served
# by coll/topo (its algorithms run from Open MPI's progress engine) and by
# coll/libnbc (Open MPI's nonblocking collectives), in turn in the same run
# of this script (BENCH_REPS rounds, each runs both; the median of the
# rounds is printed).  Per size: the allreduce alone, a computation of
# about that length alone, both overlapped (the computation polls with
# MPI_Test), and the fraction of the shorter one hidden (test/mpi/
# bench_overlap.c); then coll/topo's overlapped time over libnbc's.  Times
# on a loaded or oversubscribed machine mean little; the script asserts
# nothing about them.
#
#   bash scripts/bench-overlap.sh [NP] [BYTES...]
#
# Default: 4 ranks; 8 65536 1048576 bytes.  Needs a build (TOPO_BUILD, as
# scripts/bench.sh).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench-lib.sh
. "$root/scripts/bench-lib.sh"
np=${1:-4}
shift $(($# > 0 ? 1 : 0))
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(8 65536 1048576)
reps=${BENCH_REPS:-3}
overlap=$build/test/mpi/bench_overlap
[ -x "$overlap" ] || (cd "$build" && make -C test mpi/bench_overlap >/dev/null)
bind_cores "$np"

for ((r = 1; r <= reps; r++)); do
    for c in topo libnbc; do
        # libnbc: coll/topo left out, libnbc serves MPI_Iallreduce
        if [ $c = topo ]; then sel=topo,tuned,inter,basic,libnbc,self; else sel=tuned,inter,basic,libnbc,self; fi
        mpirun "${flags[@]}" -np "$np" --mca coll "$sel" --mca coll_topo_verbose 1 \
            "$overlap" "${sizes[@]}" >"$tmp/$c.out.$r" 2>"$tmp/$c.err.$r" ||
            { cat "$tmp/$c.err.$r" >&2; exit 1; }
        grep -E '^[0-9]+ ' "$tmp/$c.out.$r" >"$tmp/$c.run$r"
    done
    grep -q ': iallreduce runs ' "$tmp/topo.err.$r" ||
        { echo "bench-overlap: coll/topo did not run MPI_Iallreduce" >&2; cat "$tmp/topo.err.$r" >&2; exit 1; }
done

# column K's median per size over the rounds of C: "bytes value" lines
col_median() {
    cat "$tmp/$1".run* | awk -v k="$2" '{ print $1, $k }' | sort -k1,1n -k2,2g |
        awk '{ v[$1] = v[$1] " " $2; n[$1]++ }
             END { for (b in v) { split(substr(v[b], 2), a, " "); print b, a[int((n[b] + 1) / 2)] } }' |
        sort -k1,1n
}
echo "MPI_Iallreduce (MPI_DOUBLE, MPI_SUM), $np ranks, the median of $reps rounds (seconds per call;"
echo "hidden: the fraction of the shorter of communication and computation that overlapped)"
printf '%9s %11s %11s %11s %7s %11s %11s %11s %7s %9s\n' bytes "topo comm" compute overlapped hidden \
    "libnbc comm" compute overlapped hidden topo/nbc
join <(paste -d' ' <(col_median topo 2) <(col_median topo 3 | cut -d' ' -f2) \
    <(col_median topo 4 | cut -d' ' -f2) <(col_median topo 5 | cut -d' ' -f2)) \
    <(paste -d' ' <(col_median libnbc 2) <(col_median libnbc 3 | cut -d' ' -f2) \
        <(col_median libnbc 4 | cut -d' ' -f2) <(col_median libnbc 5 | cut -d' ' -f2)) |
    awk '{ printf "%9d %11.3e %11.3e %11.3e %7.2f %11.3e %11.3e %11.3e %7.2f %9.2f\n",
           $1, $2, $3, $4, $5, $6, $7, $8, $9, $4 / $8 }'
echo "coll/topo's choices:"
grep -h ': iallreduce runs \|: allreduce uses ' "$tmp"/topo.err.* | sort -u | sed 's/^/  /'
