/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Collectives from several threads at once (MPI_THREAD_MULTIPLE), each
 * thread on its own duplicate of MPI_COMM_WORLD.  The first call on each
 * communicator prepares it (topology, the parameters' report, the cost
 * model's protocol, the rules, the decision tables that communicators with
 * the same inputs share) and these run in every thread at once, as do the
 * calls after them: MPI_Allreduce, MPI_Bcast, MPI_Reduce and MPI_Allgather
 * of counts that change from call to call (new ones and repeated ones),
 * and MPI_Barrier.  Every result is checked against a reference each rank
 * computes on its own.
 *
 * Usage: test_threads [--threads T] [--calls N] [--nonblocking]
 * Prints "test_threads: P ranks, N calls checked on rank 0, F failures on
 * all ranks"; exit status 0 when every check passed on every rank, 77 when
 * the library does not provide MPI_THREAD_MULTIPLE.
 */
#include "test_common.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_THREADS 16
#define MAX_COUNT 3000

typedef struct {
    int t;          /* thread index */
    MPI_Comm comm;  /* its communicator */
    int calls;      /* calls to make */
    long checked;   /* calls checked */
    long wrong;     /* elements wrong */
    int mpi_errors; /* calls that returned an error */
    char first[160];
} job_t;

/* Element e of rank r's input in call i of thread t (small: sums of up to
 * thousands of them fit an int). */
static int value(int t, int i, int r, int e)
{
    return (int)(tt_mix((uint64_t)t * 100003u + (uint64_t)i, (uint64_t)r, (uint64_t)e) & 0xfff);
}

static void wrong(job_t *j, long n, const char *what, int i, int count)
{
    if (n > 0 && 0 == j->wrong && 0 == j->mpi_errors) {
        snprintf(j->first, sizeof(j->first), "%s (call %d, count %d): %ld elements wrong", what, i,
                 count, n);
    }
    j->wrong += n;
}

static void mpi_error(job_t *j, int rc, const char *what, int i)
{
    if (MPI_SUCCESS != rc) {
        if (0 == j->wrong && 0 == j->mpi_errors) {
            snprintf(j->first, sizeof(j->first), "%s (call %d) returned error %d", what, i, rc);
        }
        j->mpi_errors++;
    }
}

/* --nonblocking: allreduce and bcast as MPI_Iallreduce and MPI_Ibcast,
 * each waited for at once (operations of several threads in flight
 * together, advanced by whichever thread progresses) */
static int nonblocking;

static void *run(void *arg)
{
    job_t *j = arg;
    int rank, size;
    MPI_Comm_rank(j->comm, &rank);
    MPI_Comm_size(j->comm, &size);
    int *in = malloc(MAX_COUNT * sizeof(int)),
        *out = malloc((size_t)size * MAX_COUNT * sizeof(int));
    if (NULL == in || NULL == out) {
        snprintf(j->first, sizeof(j->first), "out of memory");
        j->mpi_errors++;
        free(in);
        free(out);
        return NULL;
    }
    for (int i = 0; i < j->calls; i++) {
        /* half the calls repeat one of 8 counts, half take a new one */
        const uint64_t h = tt_mix((uint64_t)j->t, (uint64_t)i, 7);
        const int count =
            0 == (h & 1) ? 1 + (int)((h >> 8) % 8) * 97 : (int)((h >> 8) % (MAX_COUNT + 1));
        const int root = (int)((h >> 40) % (uint64_t)size);
        long bad = 0;
        int rc;
        /* (allgather sends count / size + 1 elements: one for count 0) */
        for (int e = 0; e < (count > 0 ? count : 1); e++) {
            in[e] = value(j->t, i, rank, e);
        }
        switch (i % 5) {
        case 0: /* allreduce, sum */
            if (nonblocking) {
                MPI_Request req;
                rc = MPI_Iallreduce(in, out, count, MPI_INT, MPI_SUM, j->comm, &req);
                if (MPI_SUCCESS == rc) {
                    rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
                }
            } else {
                rc = MPI_Allreduce(in, out, count, MPI_INT, MPI_SUM, j->comm);
            }
            mpi_error(j, rc, "MPI_Allreduce", i);
            for (int e = 0; MPI_SUCCESS == rc && e < count; e++) {
                int want = 0;
                for (int r = 0; r < size; r++) {
                    want += value(j->t, i, r, e);
                }
                bad += out[e] != want;
            }
            wrong(j, bad, "MPI_Allreduce", i, count);
            break;
        case 1: /* bcast from root */
            for (int e = 0; rank != root && e < count; e++) {
                in[e] = -1;
            }
            if (nonblocking) {
                MPI_Request req;
                rc = MPI_Ibcast(in, count, MPI_INT, root, j->comm, &req);
                if (MPI_SUCCESS == rc) {
                    rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
                }
            } else {
                rc = MPI_Bcast(in, count, MPI_INT, root, j->comm);
            }
            mpi_error(j, rc, "MPI_Bcast", i);
            for (int e = 0; MPI_SUCCESS == rc && e < count; e++) {
                bad += in[e] != value(j->t, i, root, e);
            }
            wrong(j, bad, "MPI_Bcast", i, count);
            break;
        case 2: /* reduce to root, max */
            rc = MPI_Reduce(in, out, count, MPI_INT, MPI_MAX, root, j->comm);
            mpi_error(j, rc, "MPI_Reduce", i);
            for (int e = 0; MPI_SUCCESS == rc && rank == root && e < count; e++) {
                int want = value(j->t, i, 0, e);
                for (int r = 1; r < size; r++) {
                    const int v = value(j->t, i, r, e);
                    want = v > want ? v : want;
                }
                bad += out[e] != want;
            }
            wrong(j, bad, "MPI_Reduce", i, count);
            break;
        case 3: { /* allgather of count / size + 1 per rank */
            const int k = count / size + 1;
            rc = MPI_Allgather(in, k, MPI_INT, out, k, MPI_INT, j->comm);
            mpi_error(j, rc, "MPI_Allgather", i);
            for (int r = 0; MPI_SUCCESS == rc && r < size; r++) {
                for (int e = 0; e < k; e++) {
                    bad += out[(size_t)r * (size_t)k + (size_t)e] != value(j->t, i, r, e);
                }
            }
            wrong(j, bad, "MPI_Allgather", i, k);
            break;
        }
        default:
            rc = MPI_Barrier(j->comm);
            mpi_error(j, rc, "MPI_Barrier", i);
            break;
        }
        j->checked++;
    }
    free(in);
    free(out);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, wrank, wsize, nthreads = 4, calls = 200;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    tt_init("test_threads");
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
            nthreads = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--calls") && i + 1 < argc) {
            calls = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--nonblocking")) {
            nonblocking = 1;
        } else {
            if (0 == wrank) {
                fprintf(stderr, "usage: %s [--threads T] [--calls N] [--nonblocking]\n", argv[0]);
            }
            MPI_Finalize();
            return 2;
        }
    }
    if (nthreads < 1 || nthreads > MAX_THREADS) {
        nthreads = nthreads < 1 ? 1 : MAX_THREADS;
    }
    if (provided < MPI_THREAD_MULTIPLE) {
        if (0 == wrank) {
            printf("test_threads: SKIP: MPI_THREAD_MULTIPLE not provided (%d)\n", provided);
        }
        MPI_Finalize();
        return 77;
    }

    job_t jobs[MAX_THREADS];
    pthread_t threads[MAX_THREADS];
    for (int t = 0; t < nthreads; t++) { /* in the same order on every rank */
        memset(&jobs[t], 0, sizeof(jobs[t]));
        jobs[t].t = t;
        jobs[t].calls = calls;
        tt_check_mpi(MPI_Comm_dup(MPI_COMM_WORLD, &jobs[t].comm), "MPI_Comm_dup");
    }
    int started = 0;
    for (int t = 0; t < nthreads; t++) {
        if (0 != pthread_create(&threads[t], NULL, run, &jobs[t])) {
            /* the other ranks' thread t would wait for this one's calls */
            tt_fail("pthread_create failed for thread %d", t);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        started++;
    }
    long checked = 0;
    for (int t = 0; t < started; t++) {
        pthread_join(threads[t], NULL);
        checked += jobs[t].checked;
        if (jobs[t].wrong > 0 || jobs[t].mpi_errors > 0) {
            tt_fail("thread %d: %ld elements wrong, %d calls failed; first: %s", t, jobs[t].wrong,
                    jobs[t].mpi_errors, jobs[t].first);
        }
    }
    for (int t = 0; t < nthreads; t++) {
        MPI_Comm_free(&jobs[t].comm);
    }
    long total = tt_total_failures();
    if (0 == wrank) {
        printf("test_threads: %d ranks, %ld calls checked on rank 0, %ld failures on all ranks\n",
               wsize, checked, total);
    }
    MPI_Finalize();
    return total > 0 || tt_failures() > 0 ? 1 : 0;
}
