/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI_Allreduce and MPI_Bcast on a Cartesian communicator (MPI_Cart_create
 * over every rank of MPI_COMM_WORLD, ranks not reordered), and on
 * MPI_COMM_WORLD, checked against references every rank computes itself.
 * coll/topo reads a Cartesian communicator's dimensions and periods at its
 * first collective call: the runner checks that from the verbose output.
 *
 * Usage: test_cart [--dims AxBx...] [--periods p,p,...] [--max-count N]
 *   --dims     the grid (default: MPI_Dims_create in 2 dimensions); its
 *              product must be the number of ranks
 *   --periods  1 (periodic) or 0 per dimension (default all 1)
 * Prints "test_cart: P ranks, grid G, N calls checked on rank 0, F failures
 * on all ranks"; exit status 0 when every check passed on every rank.
 */
#include "test_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DIMS 8

/* Element i of `rank`'s contribution: small, so sums are exact. */
static int value(int rank, int i, int round)
{
    return (int)(tt_mix((uint64_t)rank, (uint64_t)i, (uint64_t)round) % 1000);
}

/* Allreduce (sum, in place and not) and bcast from every root up to 4 on
 * `comm`, `count` elements; returns the number of calls checked. */
static long run(MPI_Comm comm, const char *name, int count, int round)
{
    int rank, size;
    long calls = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int *in = malloc(sizeof(int) * (size_t)count);
    int *out = malloc(sizeof(int) * (size_t)count);
    int *want = malloc(sizeof(int) * (size_t)count);
    if (NULL == in || NULL == out || NULL == want) {
        tt_fail("out of memory");
        exit(1);
    }
    /* world ranks equal communicator ranks: no reordering */
    for (int i = 0; i < count; i++) {
        in[i] = value(rank, i, round);
        want[i] = 0;
        for (int r = 0; r < size; r++)
            want[i] += value(r, i, round);
    }
    for (int inplace = 0; inplace < 2; inplace++) {
        if (inplace)
            memcpy(out, in, sizeof(int) * (size_t)count);
        tt_check_mpi(MPI_Allreduce(inplace ? MPI_IN_PLACE : in, out, count, MPI_INT, MPI_SUM, comm),
                     "MPI_Allreduce");
        calls++;
        for (int i = 0; i < count; i++) {
            if (out[i] != want[i]) {
                tt_fail("%s: allreduce%s count %d: element %d is %d, expected %d", name,
                        inplace ? " (in place)" : "", count, i, out[i], want[i]);
                break;
            }
        }
    }
    for (int root = 0; root < size && root < 4; root++) {
        for (int i = 0; i < count; i++)
            out[i] = rank == root ? value(root, i, round + 1) : -1;
        tt_check_mpi(MPI_Bcast(out, count, MPI_INT, root, comm), "MPI_Bcast");
        calls++;
        for (int i = 0; i < count; i++) {
            if (out[i] != value(root, i, round + 1)) {
                tt_fail("%s: bcast root %d count %d: element %d is %d, expected %d", name, root,
                        count, i, out[i], value(root, i, round + 1));
                break;
            }
        }
    }
    free(in);
    free(out);
    free(want);
    return calls;
}

static int parse_list(const char *s, char sep, int *v, int max)
{
    int n = 0;
    while (n < max && '\0' != *s) {
        char *end;
        v[n++] = (int)strtol(s, &end, 10);
        if (end == s)
            return -1;
        s = end;
        if (*s == sep)
            s++;
        else if ('\0' != *s)
            return -1;
    }
    return '\0' == *s ? n : -1;
}

int main(int argc, char **argv)
{
    int size, rank, ndims = 2, dims[MAX_DIMS] = {0}, periods[MAX_DIMS], nper = -1;
    int max_count = 5000;
    MPI_Init(&argc, &argv);
    tt_init("test_cart");
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < MAX_DIMS; i++)
        periods[i] = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--dims") && i + 1 < argc) {
            ndims = parse_list(argv[++i], 'x', dims, MAX_DIMS);
        } else if (!strcmp(argv[i], "--periods") && i + 1 < argc) {
            nper = parse_list(argv[++i], ',', periods, MAX_DIMS);
        } else if (!strcmp(argv[i], "--max-count") && i + 1 < argc) {
            max_count = atoi(argv[++i]);
        } else {
            if (0 == rank)
                fprintf(stderr, "usage: %s [--dims AxBx...] [--periods p,p,...] [--max-count N]\n",
                        argv[0]);
            MPI_Finalize();
            return 2;
        }
    }
    if (ndims < 1 || (nper >= 0 && nper != ndims) || max_count < 1) {
        if (0 == rank)
            fprintf(stderr, "test_cart: bad --dims, --periods or --max-count\n");
        MPI_Finalize();
        return 2;
    }
    tt_check_mpi(MPI_Dims_create(size, ndims, dims), "MPI_Dims_create");

    MPI_Comm cart;
    tt_check_mpi(MPI_Cart_create(MPI_COMM_WORLD, ndims, dims, periods, 0, &cart),
                 "MPI_Cart_create");
    MPI_Comm_set_name(cart, "cart");
    MPI_Comm_set_errhandler(cart, MPI_ERRORS_RETURN);

    static const int counts[] = {1, 7, 64, 1000};
    long calls = 0;
    for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]); k++) {
        int c = counts[k] < max_count ? counts[k] : max_count;
        calls += run(cart, "cart", c, (int)k);
        calls += run(MPI_COMM_WORLD, "world", c, (int)k + 100);
    }
    calls += run(cart, "cart", max_count, 7);

    char grid[128];
    size_t n = 0;
    for (int i = 0; i < ndims && n < sizeof(grid); i++)
        n += (size_t)snprintf(grid + n, sizeof(grid) - n, "%s%d%s", i ? "x" : "", dims[i],
                              periods[i] ? "p" : "");
    MPI_Comm_free(&cart);
    long failures = tt_total_failures();
    if (0 == rank)
        printf("test_cart: %d ranks, grid %s, %ld calls checked on rank 0, %ld failures on all "
               "ranks\n",
               size, grid, calls, failures);
    MPI_Finalize();
    return failures ? 1 : 0;
}
