/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A communicator's first collective call is the application's allreduce of
 * 5 uint64 (the size of coll/topo's agreement at that call), then bcast,
 * allgather, allreduce of other counts and barrier: on MPI_COMM_WORLD and on
 * a duplicate of it.  Every result is checked against a reference each rank
 * computes itself.  For the runs where coll/topo runs on some ranks only
 * (different coll_topo_priority or coll lists per application context):
 * whatever serves each rank, the application's own calls must match each
 * other and give the right results.
 *
 * Usage: test_first_call [--spawn N]
 *   --spawn  then spawn N processes and run the same on the communicator
 *            that merges them with the parents (processes of two jobs)
 * Prints "test_first_call: P ranks, N calls checked on rank 0, F failures
 * on all ranks"; exit status 0 when every check passed on every rank.
 */
#include "test_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Element i of `rank`'s contribution in `round` (uint64 sums wrap the same
 * way everywhere, so any value is exact). */
static uint64_t value(int rank, int i, int round)
{
    return tt_mix((uint64_t)rank, (uint64_t)i, (uint64_t)round);
}

static long check_allreduce(MPI_Comm comm, const char *name, int count, int round)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    uint64_t in[100], out[100];
    for (int i = 0; i < count; i++) {
        in[i] = value(rank, i, round);
        out[i] = 0;
    }
    tt_check_mpi(MPI_Allreduce(in, out, count, MPI_UINT64_T, MPI_SUM, comm), "MPI_Allreduce");
    for (int i = 0; i < count; i++) {
        uint64_t want = 0;
        for (int r = 0; r < size; r++) {
            want += value(r, i, round);
        }
        if (out[i] != want) {
            tt_fail("%s: allreduce of %d uint64 (round %d): element %d is %llu, expected %llu",
                    name, count, round, i, (unsigned long long)out[i], (unsigned long long)want);
            break;
        }
    }
    return 1;
}

/* The first call on `comm`, then the others; returns the calls checked. */
static long run(MPI_Comm comm, const char *name, int round)
{
    int rank, size;
    long calls = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    calls += check_allreduce(comm, name, 5, round);
    for (int root = 0; root < size; root++) {
        uint64_t b[5];
        for (int i = 0; i < 5; i++) {
            b[i] = rank == root ? value(root, i, round + 1) : 0;
        }
        tt_check_mpi(MPI_Bcast(b, 5, MPI_UINT64_T, root, comm), "MPI_Bcast");
        calls++;
        for (int i = 0; i < 5; i++) {
            if (b[i] != value(root, i, round + 1)) {
                tt_fail("%s: bcast of 5 uint64 from root %d: element %d wrong", name, root, i);
                break;
            }
        }
    }
    uint64_t mine[3], all[3 * 64];
    if (size <= 64) {
        for (int i = 0; i < 3; i++) {
            mine[i] = value(rank, i, round + 2);
        }
        tt_check_mpi(MPI_Allgather(mine, 3, MPI_UINT64_T, all, 3, MPI_UINT64_T, comm),
                     "MPI_Allgather");
        calls++;
        for (int r = 0; r < size; r++) {
            for (int i = 0; i < 3; i++) {
                if (all[3 * r + i] != value(r, i, round + 2)) {
                    tt_fail("%s: allgather: rank %d's element %d wrong", name, r, i);
                    r = size;
                    break;
                }
            }
        }
    }
    static const int counts[] = {1, 5, 7, 100};
    for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]); k++) {
        calls += check_allreduce(comm, name, counts[k], round + 3 + (int)k);
    }
    tt_check_mpi(MPI_Barrier(comm), "MPI_Barrier");
    return calls + 1;
}

/* The merged communicator of the spawned processes and their parents
 * (parents first): run there, and the failure counts of every rank of it
 * to its rank 0 (the parents' world rank 0); returns the calls checked
 * and adds the spawned processes' failures to *spawned_failures there. */
static long run_merged(MPI_Comm inter, int high, long *spawned_failures)
{
    MPI_Comm merged;
    tt_check_mpi(MPI_Intercomm_merge(inter, high, &merged), "MPI_Intercomm_merge");
    MPI_Comm_set_name(merged, "merged");
    MPI_Comm_set_errhandler(merged, MPI_ERRORS_RETURN);
    long calls = run(merged, "merged", 200);
    int mrank, msize, wsize;
    MPI_Comm_rank(merged, &mrank);
    MPI_Comm_size(merged, &msize);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    long mine = tt_failures(), all[64];
    if (msize <= 64) {
        tt_check_mpi(MPI_Gather(&mine, 1, MPI_LONG, all, 1, MPI_LONG, 0, merged),
                     "MPI_Gather(failure counts)");
        for (int r = wsize; 0 == mrank && !high && r < msize; r++) {
            *spawned_failures += all[r];
        }
    }
    MPI_Comm_free(&merged);
    return calls;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    tt_init("test_first_call");
    int spawn = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--spawn") && i + 1 < argc) {
            spawn = atoi(argv[++i]);
        } else {
            fprintf(stderr, "usage: %s [--spawn N]\n", argv[0]);
            MPI_Finalize();
            return 2;
        }
    }
    long spawned_failures = 0;
    MPI_Comm parent;
    MPI_Comm_get_parent(&parent);
    if (MPI_COMM_NULL != parent) { /* spawned by --spawn */
        (void)run_merged(parent, 1, &spawned_failures);
        MPI_Comm_disconnect(&parent);
        MPI_Finalize();
        return 0;
    }
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long calls = run(MPI_COMM_WORLD, "world", 0);
    MPI_Comm dup;
    tt_check_mpi(MPI_Comm_dup(MPI_COMM_WORLD, &dup), "MPI_Comm_dup");
    MPI_Comm_set_name(dup, "dup");
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    calls += run(dup, "dup", 100);
    MPI_Comm_free(&dup);
    if (spawn > 0) {
        /* a communicator with processes of another job */
        MPI_Comm inter;
        tt_check_mpi(MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, spawn, MPI_INFO_NULL, 0, MPI_COMM_WORLD,
                                    &inter, MPI_ERRCODES_IGNORE),
                     "MPI_Comm_spawn");
        calls += run_merged(inter, 0, &spawned_failures);
        MPI_Comm_disconnect(&inter);
    }
    long failures = tt_total_failures() + spawned_failures;
    if (0 == rank) {
        printf("test_first_call: %d ranks, %ld calls checked on rank 0, %ld failures on all "
               "ranks%s\n",
               size, calls, failures, spawn > 0 ? " (spawned ones included)" : "");
    }
    MPI_Finalize();
    return failures ? 1 : 0;
}
