/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Computation hidden behind MPI_Iallreduce, for scripts/bench-overlap.sh:
 * per message size, the time of the allreduce alone (MPI_Iallreduce then
 * MPI_Wait), of the computation alone, and of both overlapped (the
 * computation in slices with an MPI_Test between them, as an application
 * that polls; then MPI_Wait), each the slowest rank's median over batches.
 * Which component serves MPI_Iallreduce is chosen on the mpirun command
 * line; the script compares two runs.
 *
 *   bench_overlap [BYTES...]       (default 8 65536 1048576)
 *
 * The computation takes about as long as the allreduce alone (calibrated
 * per size on rank 0, the same work on every rank), so that the best
 * overlap hides all of the shorter of the two.  Prints one line per size
 * on rank 0: "bytes comm_s compute_s overlapped_s hidden", hidden being
 * (comm + compute - overlapped) / min(comm, compute): 1 when the shorter
 * one is hidden entirely, 0 when nothing overlaps.  BENCH_BATCHES=N
 * batches (default 7) of BENCH_CALLS=M calls (default 20).
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

static volatile double sink;

/* `units` of arithmetic, in `slices` slices with an MPI_Test on *req (if
 * any) between them. */
static void compute(long units, int slices, MPI_Request *req)
{
    double x = sink;
    for (int s = 0; s < slices; s++) {
        for (long i = 0; i < units / slices; i++) {
            x = x * 1.0000001 + 1e-9;
        }
        if (NULL != req && MPI_REQUEST_NULL != *req) {
            int flag;
            MPI_Test(req, &flag, MPI_STATUS_IGNORE);
        }
    }
    sink = x;
}

static int env_int(const char *name, int def)
{
    const char *v = getenv(name);
    return NULL != v && atoi(v) > 0 ? atoi(v) : def;
}

/* The slowest rank's median seconds per call of `what` (0: allreduce
 * alone, 1: compute alone, 2: both). */
static double timed(int what, double *a, double *b, int count, long units, int batches, int calls)
{
    double *t = malloc(sizeof(double) * (size_t)batches);
    for (int k = 0; k < batches; k++) {
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = MPI_Wtime();
        for (int c = 0; c < calls; c++) {
            MPI_Request req = MPI_REQUEST_NULL;
            if (1 != what) {
                MPI_Iallreduce(a, b, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req);
            }
            if (0 != what) {
                compute(units, 16, 2 == what ? &req : NULL);
            }
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        }
        double mine = (MPI_Wtime() - t0) / calls, slowest;
        MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        t[k] = slowest;
    }
    qsort(t, (size_t)batches, sizeof(double), cmp);
    const double m = t[batches / 2];
    free(t);
    return m;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const int batches = env_int("BENCH_BATCHES", 7), calls = env_int("BENCH_CALLS", 20);
    long sizes[16] = {8, 65536, 1048576};
    int nsizes = 3;
    if (argc > 1) {
        nsizes = 0;
        for (int i = 1; i < argc && nsizes < 16; i++) {
            sizes[nsizes++] = atol(argv[i]);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD); /* the communicator's first call: blocking */
    for (int s = 0; s < nsizes; s++) {
        const int count = (int)(sizes[s] / 8 > 0 ? sizes[s] / 8 : 1);
        double *a = calloc((size_t)count, sizeof(double)),
               *b = calloc((size_t)count, sizeof(double));
        for (int i = 0; i < count; i++) {
            a[i] = rank + i;
        }
        (void)timed(0, a, b, count, 0, 1, calls); /* warm-up */
        const double comm = timed(0, a, b, count, 0, batches, calls);
        /* calibrate the computation to last about `comm` (rank 0's) */
        long units = 1000;
        if (0 == rank) {
            for (;;) {
                const double t0 = MPI_Wtime();
                compute(units, 1, NULL);
                const double dt = MPI_Wtime() - t0;
                if (dt >= comm || units > (1L << 40)) {
                    units = dt > 0 ? (long)((double)units * comm / dt) + 16 : units;
                    break;
                }
                units *= 2;
            }
        }
        MPI_Bcast(&units, 1, MPI_LONG, 0, MPI_COMM_WORLD);
        const double comp = timed(1, a, b, count, units, batches, calls);
        const double both = timed(2, a, b, count, units, batches, calls);
        const double shorter = comm < comp ? comm : comp;
        double hidden = shorter > 0 ? (comm + comp - both) / shorter : 0;
        hidden = hidden < 0 ? 0 : hidden > 1 ? 1 : hidden;
        if (0 == rank) {
            printf("%ld %.9g %.9g %.9g %.3f\n", sizes[s], comm, comp, both, hidden);
            fflush(stdout);
        }
        free(a);
        free(b);
    }
    MPI_Finalize();
    return 0;
}
