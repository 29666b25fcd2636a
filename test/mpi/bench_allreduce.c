/*
 * Allreduce latency per message size, for scripts/bench.sh: prints
 * "bytes seconds_per_call" lines on rank 0 (the median of several timed
 * batches, each the slowest rank's time).  Which component runs is chosen on
 * the mpirun command line; the script compares two runs.
 *
 *   bench_allreduce [MAX_BYTES]
 *   bench_allreduce --calls N BYTES [PRIMITIVE]
 *       N calls of PRIMITIVE (default allreduce; bcast, reduce, allgather,
 *       reduce_scatter_block, reduce_scatter, alltoall, barrier) on BYTES of
 *       MPI_DOUBLE (per rank for the gathering and scattering ones), MPI_SUM,
 *       nothing else, nothing printed (for scripts/overhead.sh's callgrind
 *       runs)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if ((argc == 4 || argc == 5) && 0 == strcmp(argv[1], "--calls")) {
        long calls = strtol(argv[2], NULL, 10);
        size_t bytes = strtoull(argv[3], NULL, 10);
        const char *prim = argc == 5 ? argv[4] : "allreduce";
        int count = (int)(bytes / 8); /* per rank for allgather, alltoall, reduce_scatter* */
        double *a = calloc((size_t)count * (size_t)size + 1, 8);
        double *b = calloc((size_t)count * (size_t)size + 1, 8);
        int *counts = malloc(sizeof(int) * (size_t)size);
        for (int r = 0; r < size; r++) {
            counts[r] = count;
        }
        for (long i = 0; i < calls; i++) {
            if (0 == strcmp(prim, "allreduce")) {
                MPI_Allreduce(a, b, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            } else if (0 == strcmp(prim, "bcast")) {
                MPI_Bcast(a, count, MPI_DOUBLE, 0, MPI_COMM_WORLD);
            } else if (0 == strcmp(prim, "reduce")) {
                MPI_Reduce(a, b, count, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
            } else if (0 == strcmp(prim, "allgather")) {
                MPI_Allgather(a, count, MPI_DOUBLE, b, count, MPI_DOUBLE, MPI_COMM_WORLD);
            } else if (0 == strcmp(prim, "reduce_scatter_block")) {
                MPI_Reduce_scatter_block(a, b, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            } else if (0 == strcmp(prim, "reduce_scatter")) {
                MPI_Reduce_scatter(a, b, counts, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            } else if (0 == strcmp(prim, "alltoall")) {
                MPI_Alltoall(a, count, MPI_DOUBLE, b, count, MPI_DOUBLE, MPI_COMM_WORLD);
            } else if (0 == strcmp(prim, "barrier")) {
                MPI_Barrier(MPI_COMM_WORLD);
            } else {
                if (0 == rank) {
                    fprintf(stderr, "bench_allreduce: unknown primitive '%s'\n", prim);
                }
                MPI_Abort(MPI_COMM_WORLD, 2);
            }
        }
        free(a);
        free(b);
        free(counts);
        MPI_Finalize();
        return 0;
    }
    size_t max_bytes = argc > 1 ? strtoull(argv[1], NULL, 10) : (size_t)1 << 22;
    double *in = malloc(max_bytes + 8), *out = malloc(max_bytes + 8);
    for (size_t i = 0; i < max_bytes / 8 + 1; i++) {
        in[i] = (double)(rank + (int)(i % 7));
    }
    enum { BATCHES = 7 };
    for (size_t bytes = 8; bytes <= max_bytes; bytes *= 8) {
        int count = (int)(bytes / 8);
        int iters = bytes <= 4096 ? 10000 : (bytes <= 65536 ? 1000 : (bytes <= (1 << 20) ? 100 : 20));
        double t[BATCHES];
        MPI_Allreduce(in, out, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); /* warm up */
        for (int b = 0; b < BATCHES; b++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            for (int i = 0; i < iters; i++) {
                MPI_Allreduce(in, out, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            }
            double mine = (MPI_Wtime() - t0) / iters, slowest;
            /* point-to-point max, so that no collective under test times itself */
            if (rank == 0) {
                slowest = mine;
                for (int r = 1; r < size; r++) {
                    double x;
                    MPI_Recv(&x, 1, MPI_DOUBLE, r, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    slowest = x > slowest ? x : slowest;
                }
                t[b] = slowest;
            } else {
                MPI_Send(&mine, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
            }
        }
        if (rank == 0) {
            qsort(t, BATCHES, sizeof(double), cmp);
            printf("%zu %.9f\n", bytes, t[BATCHES / 2]);
            fflush(stdout);
        }
    }
    free(in);
    free(out);
    MPI_Finalize();
    return 0;
}
