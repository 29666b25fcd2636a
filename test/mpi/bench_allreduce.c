/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Collective latency per message size, for scripts/bench.sh: prints
 * "bytes seconds_per_call" lines on rank 0 (the median of several timed
 * batches, each the slowest rank's time).  Which component runs is chosen on
 * the mpirun command line; the script compares two runs.
 *
 *   bench_allreduce [MAX_BYTES [PRIMITIVE]]
 *   bench_allreduce --calls N BYTES [PRIMITIVE]
 *       N calls, nothing else, nothing printed (for scripts/overhead.sh's
 *       callgrind runs)
 *
 * PRIMITIVE: allreduce (default), bcast, reduce, allgather,
 * reduce_scatter_block, reduce_scatter, alltoall, barrier; MPI_DOUBLE and
 * MPI_SUM; BYTES per rank for allgather, alltoall and the reduce_scatters;
 * barrier has one size, 0.  BENCH_ROTATE_ROOT=1: bcast and reduce from
 * root i mod size at the i-th call (a new root each call), else root 0.
 * BENCH_SYNC=1: every call starts after a barrier and only the call is
 * timed (the latency of one call, as OSU's benchmarks measure it), instead
 * of back-to-back calls (where the ranks of a tree or a chain that finish
 * early start the next call, so a rooted collective shows its throughput).
 * The barrier is point-to-point, not a collective under test.
 * BENCH_VARY_COUNT=K (--calls mode): the i-th call moves BYTES/8 + (i mod
 * K) elements (K different counts in turn).
 * BENCH_MIN_BYTES=B: sizes start at B (rounded down to a multiple of 8)
 * instead of 8.  BENCH_SECONDS=S: about S seconds per size: a warm-up call
 * is timed (the slowest rank's) and each batch makes as many calls as fit
 * S / batches, at least 1 and at most the fixed counts below (for slow
 * networks, where 20 calls of 8 MiB take minutes).  BENCH_BATCHES=N:
 * batches per size (default 7; the median is printed).
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

enum { ALLREDUCE, BCAST, REDUCE, ALLGATHER, RSB, RS, ALLTOALL, BARRIER, NPRIMS };
static const char *const names[NPRIMS] = {
    "allreduce",      "bcast",    "reduce", "allgather", "reduce_scatter_block",
    "reduce_scatter", "alltoall", "barrier"};

static void run(int prim, double *a, double *b, int count, const int *counts, int root)
{
    switch (prim) {
    case ALLREDUCE:
        MPI_Allreduce(a, b, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        break;
    case BCAST:
        MPI_Bcast(a, count, MPI_DOUBLE, root, MPI_COMM_WORLD);
        break;
    case REDUCE:
        MPI_Reduce(a, b, count, MPI_DOUBLE, MPI_SUM, root, MPI_COMM_WORLD);
        break;
    case ALLGATHER:
        MPI_Allgather(a, count, MPI_DOUBLE, b, count, MPI_DOUBLE, MPI_COMM_WORLD);
        break;
    case RSB:
        MPI_Reduce_scatter_block(a, b, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        break;
    case RS:
        MPI_Reduce_scatter(a, b, counts, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        break;
    case ALLTOALL:
        MPI_Alltoall(a, count, MPI_DOUBLE, b, count, MPI_DOUBLE, MPI_COMM_WORLD);
        break;
    default:
        MPI_Barrier(MPI_COMM_WORLD);
        break;
    }
}

/* A dissemination barrier of point-to-point messages, so that no
 * collective component under test times its own synchronization. */
static void p2p_barrier(int rank, int size)
{
    for (int d = 1; d < size; d *= 2) {
        char x = 0, y;
        MPI_Sendrecv(&x, 1, MPI_CHAR, (rank + d) % size, 1, &y, 1, MPI_CHAR,
                     (rank - d + size) % size, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int calls_mode = argc >= 4 && 0 == strcmp(argv[1], "--calls");
    const char *pname =
        calls_mode ? (argc > 4 ? argv[4] : "allreduce") : (argc > 2 ? argv[2] : "allreduce");
    int prim = -1;
    for (int p = 0; p < NPRIMS; p++) {
        if (0 == strcmp(pname, names[p])) {
            prim = p;
        }
    }
    if (prim < 0) {
        if (0 == rank) {
            fprintf(stderr, "bench_allreduce: unknown primitive '%s'\n", pname);
        }
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    size_t max_bytes = calls_mode ? strtoull(argv[3], NULL, 10)
                                  : (argc > 1 ? strtoull(argv[1], NULL, 10) : (size_t)1 << 22);
    /* BENCH_VARY_COUNT=K (--calls): the i-th call moves max_bytes / 8 +
     * (i mod K) elements */
    const char *vary_s = getenv("BENCH_VARY_COUNT");
    const long vary = calls_mode && NULL != vary_s && atol(vary_s) > 1 ? atol(vary_s) : 1;
    /* room for size blocks of the largest count (the gathering primitives) */
    const size_t elems = (max_bytes / 8 + (size_t)vary - 1) * (size_t)size + 1;
    double *in = malloc(elems * 8), *out = malloc(elems * 8);
    int *counts = malloc(sizeof(int) * (size_t)size);
    const char *rot = getenv("BENCH_ROTATE_ROOT");
    const int rotate = NULL != rot && 0 == strcmp(rot, "1");
    const char *sync_s = getenv("BENCH_SYNC");
    const int sync = NULL != sync_s && 0 == strcmp(sync_s, "1");
    for (size_t i = 0; i < elems; i++) {
        in[i] = (double)(rank + (int)(i % 7));
    }

    if (calls_mode) {
        const long calls = strtol(argv[2], NULL, 10);
        const int count = (int)(max_bytes / 8);
        for (int r = 0; r < size; r++) {
            counts[r] = count;
        }
        for (long i = 0; i < calls; i++) {
            const int n = count + (int)(i % vary);
            for (int r = 0; r < size; r++) {
                counts[r] = n;
            }
            run(prim, in, out, n, counts, rotate ? (int)(i % size) : 0);
        }
    } else {
        enum { MAX_BATCHES = 31 };
        const char *nb_s = getenv("BENCH_BATCHES");
        int batches = NULL != nb_s ? atoi(nb_s) : 7;
        batches = batches < 1 || batches > MAX_BATCHES ? 7 : batches;
        const char *sec_s = getenv("BENCH_SECONDS");
        const double seconds = NULL != sec_s ? atof(sec_s) : 0;
        const char *min_s = getenv("BENCH_MIN_BYTES");
        size_t first = NULL != min_s ? strtoull(min_s, NULL, 10) / 8 * 8 : 8;
        first = first < 8 ? 8 : first;
        /* sizes from 8 bytes, each BENCH_FACTOR (2 to 64, default 8) times the last */
        const char *f = getenv("BENCH_FACTOR");
        size_t factor = NULL != f ? strtoull(f, NULL, 10) : 8;
        factor = factor < 2 || factor > 64 ? 8 : factor;
        for (size_t bytes = prim == BARRIER ? 0 : first; bytes <= max_bytes; bytes *= factor) {
            const int count = (int)(bytes / 8);
            for (int r = 0; r < size; r++) {
                counts[r] = count;
            }
            int iters =
                bytes <= 4096 ? 10000 : (bytes <= 65536 ? 1000 : (bytes <= (1 << 20) ? 100 : 20));
            if (sync && iters > 1000) {
                iters /= 4; /* each call waits for a barrier too */
            }
            double t[MAX_BATCHES];
            double w0 = MPI_Wtime();
            run(prim, in, out, count, counts, 0); /* warm up */
            if (seconds > 0) {
                /* the slowest rank's warm-up, known to all (point-to-point) */
                double warm = MPI_Wtime() - w0;
                if (rank == 0) {
                    for (int r = 1; r < size; r++) {
                        double x;
                        MPI_Recv(&x, 1, MPI_DOUBLE, r, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                        warm = x > warm ? x : warm;
                    }
                    for (int r = 1; r < size; r++) {
                        MPI_Send(&warm, 1, MPI_DOUBLE, r, 3, MPI_COMM_WORLD);
                    }
                } else {
                    MPI_Send(&warm, 1, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD);
                    MPI_Recv(&warm, 1, MPI_DOUBLE, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                }
                const double fit = seconds / batches / (warm > 1e-9 ? warm : 1e-9);
                iters = fit < 1 ? 1 : fit < iters ? (int)fit : iters;
            }
            for (int b = 0; b < batches; b++) {
                MPI_Barrier(MPI_COMM_WORLD);
                double t0 = MPI_Wtime(), busy = 0;
                for (int i = 0; i < iters; i++) {
                    if (sync) {
                        p2p_barrier(rank, size);
                        t0 = MPI_Wtime();
                    }
                    run(prim, in, out, count, counts, rotate ? i % size : 0);
                    if (sync) {
                        busy += MPI_Wtime() - t0;
                    }
                }
                double mine = (sync ? busy : MPI_Wtime() - t0) / iters, slowest;
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
                qsort(t, (size_t)batches, sizeof(double), cmp);
                printf("%zu %.9f\n", bytes, t[batches / 2]);
                fflush(stdout);
            }
            if (prim == BARRIER) {
                break;
            }
        }
    }
    free(in);
    free(out);
    free(counts);
    MPI_Finalize();
    return 0;
}
