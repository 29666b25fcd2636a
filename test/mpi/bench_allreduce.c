/*
 * Allreduce latency per message size, for scripts/bench.sh: prints
 * "bytes seconds_per_call" lines on rank 0 (the median of several timed
 * batches, each the slowest rank's time).  Which component runs is chosen on
 * the mpirun command line; the script compares two runs.
 *
 *   bench_allreduce [MAX_BYTES]
 *   bench_allreduce --calls N BYTES    N calls of BYTES (MPI_DOUBLE, MPI_SUM),
 *                                      nothing else, nothing printed (for
 *                                      scripts/overhead.sh's callgrind runs)
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
    if (argc == 4 && 0 == strcmp(argv[1], "--calls")) {
        long calls = strtol(argv[2], NULL, 10);
        size_t bytes = strtoull(argv[3], NULL, 10);
        int count = (int)(bytes / 8);
        double *a = calloc((size_t)count + 1, 8), *b = calloc((size_t)count + 1, 8);
        for (long i = 0; i < calls; i++) {
            MPI_Allreduce(a, b, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        }
        free(a);
        free(b);
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
