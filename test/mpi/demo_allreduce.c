/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The 8-rank demo: MPI_Allreduce of doubles at three sizes, checked.
 *
 *   mpirun -np 8 --mca coll_topo_verbose 1 ./demo_allreduce
 *
 * With coll_topo_verbose=1, rank 0's stderr shows the communicator's
 * topology and which algorithm each size ran and why.  Exits 1 on a wrong
 * result.
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    static const int counts[] = {1, 1000, 1 << 20};
    int rank, size, bad = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
        const int n = counts[c];
        double *in = malloc((size_t)n * sizeof(double));
        double *out = malloc((size_t)n * sizeof(double));
        if (NULL == in || NULL == out) {
            fprintf(stderr, "demo_allreduce: out of memory\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        /* Integers (exact in double at these sizes) so any summation order
         * gives the same, checkable result. */
        for (int i = 0; i < n; i++) {
            in[i] = (double)(rank + 1) + (double)(i % 7);
        }
        double t0 = MPI_Wtime();
        MPI_Allreduce(in, out, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        double t = MPI_Wtime() - t0;

        int wrong = 0;
        for (int i = 0; i < n; i++) {
            double want = (double)size * (size + 1) / 2.0 + (double)size * (i % 7);
            if (out[i] != want) {
                wrong++;
            }
        }
        int any = 0;
        MPI_Allreduce(&wrong, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        if (0 == rank) {
            printf("allreduce %8d doubles (SUM) on %d ranks: %s (out[0] = %g), %.1f us\n", n, size,
                   any ? "WRONG" : "ok", out[0], t * 1e6);
            fflush(stdout);
        }
        bad |= any;
        free(in);
        free(out);
    }
    MPI_Finalize();
    return bad ? 1 : 0;
}
