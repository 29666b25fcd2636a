/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ranks that pass different datatypes of one type signature to the same
 * collective, as MPI allows: n elements of contiguous(2, MPI_INT) on some
 * ranks, 2n MPI_INT or n MPI_2INT on others, in MPI_Bcast (every root),
 * MPI_Allgather and MPI_Alltoall, for counts from 0 to a few thousand.
 * Every result is checked against a reference each rank computes itself.
 *
 * Usage: test_mixed_types [--max-count N]
 * Prints "test_mixed_types: P ranks, N calls checked on rank 0, F failures
 * on all ranks"; exit status 0 when every check passed on every rank.
 */
#include "test_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Int e of rank r's data in call i. */
static int value(int i, int r, long e)
{
    return (int)(tt_mix((uint64_t)i, (uint64_t)r, (uint64_t)e) & 0x7fffffff);
}

int main(int argc, char **argv)
{
    int rank, size;
    long max_count = 3000, checked = 0;
    MPI_Init(&argc, &argv);
    tt_init("test_mixed_types");
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--max-count") && a + 1 < argc) {
            max_count = strtol(argv[++a], NULL, 0);
        }
    }
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    /* this rank's way of writing n pairs of ints: (datatype, count factor) */
    const MPI_Datatype types[3] = {pair, MPI_INT, MPI_2INT};
    const int factor[3] = {1, 2, 1};
    const long counts[] = {0, 1, 2, 3, 7, 100, 1001, max_count};
    int *in = malloc((size_t)size * (size_t)(2 * max_count + 2) * sizeof(int));
    int *out = malloc((size_t)size * (size_t)(2 * max_count + 2) * sizeof(int));
    int call = 0;
    for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
        const long n = counts[c] <= max_count ? counts[c] : max_count; /* pairs */
        for (int shift = 0; shift < 3; shift++, call++) {
            const int t = (rank + shift) % 3; /* ranks differ, and change */
            const MPI_Datatype dt = types[t];
            const int cnt = (int)(n * factor[t]);
            char what[96];
            /* bcast from every root */
            for (int root = 0; root < size; root++, call++) {
                for (long e = 0; e < 2 * n; e++) {
                    in[e] = rank == root ? value(call, root, e) : -1;
                }
                snprintf(what, sizeof(what), "MPI_Bcast of %ld int pairs from %d", n, root);
                tt_check_mpi(MPI_Bcast(in, cnt, dt, root, MPI_COMM_WORLD), what);
                long bad = 0;
                for (long e = 0; e < 2 * n; e++) {
                    bad += in[e] != value(call, root, e);
                }
                if (bad > 0) {
                    tt_fail("%s (this rank's type %d): %ld ints wrong", what, t, bad);
                }
                checked++;
            }
            /* allgather: sent as one type, received as another */
            const int rt = (t + 1) % 3;
            const int rcnt = (int)(n * factor[rt]);
            for (long e = 0; e < 2 * n; e++) {
                in[e] = value(call, rank, e);
            }
            snprintf(what, sizeof(what), "MPI_Allgather of %ld int pairs", n);
            tt_check_mpi(MPI_Allgather(in, cnt, dt, out, rcnt, types[rt], MPI_COMM_WORLD), what);
            long bad = 0;
            for (int r = 0; r < size; r++) {
                for (long e = 0; e < 2 * n; e++) {
                    bad += out[(size_t)r * (size_t)(2 * n) + (size_t)e] != value(call, r, e);
                }
            }
            if (bad > 0) {
                tt_fail("%s (types %d, %d): %ld ints wrong", what, t, rt, bad);
            }
            checked++;
            call++;
            /* alltoall: block for rank r is its pairs (call, rank, r) */
            for (int r = 0; r < size; r++) {
                for (long e = 0; e < 2 * n; e++) {
                    in[(size_t)r * (size_t)(2 * n) + (size_t)e] =
                        value(call, rank, (long)r * 100000 + e);
                }
            }
            snprintf(what, sizeof(what), "MPI_Alltoall of %ld int pairs", n);
            tt_check_mpi(MPI_Alltoall(in, cnt, dt, out, rcnt, types[rt], MPI_COMM_WORLD), what);
            bad = 0;
            for (int r = 0; r < size; r++) {
                for (long e = 0; e < 2 * n; e++) {
                    bad += out[(size_t)r * (size_t)(2 * n) + (size_t)e] !=
                           value(call, r, (long)rank * 100000 + e);
                }
            }
            if (bad > 0) {
                tt_fail("%s (types %d, %d): %ld ints wrong", what, t, rt, bad);
            }
            checked++;
        }
    }
    free(in);
    free(out);
    MPI_Type_free(&pair);
    long total = tt_total_failures();
    if (0 == rank) {
        printf("test_mixed_types: %d ranks, %ld calls checked on rank 0, %ld failures on all "
               "ranks\n",
               size, checked, total);
    }
    MPI_Finalize();
    return total > 0 || tt_failures() > 0 ? 1 : 0;
}
