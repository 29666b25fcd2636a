/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Collectives over an intercommunicator, each result checked against what
 * every rank computes itself.  MPI_COMM_WORLD is split into two groups (the
 * first ceil(P/2) world ranks and the rest, of different sizes for odd P),
 * joined by MPI_Intercomm_create; over that intercommunicator run
 * MPI_Bcast, MPI_Scatter, MPI_Gather and MPI_Reduce from two roots of each
 * group, and MPI_Allreduce, MPI_Allgather, MPI_Alltoall and MPI_Barrier.
 * coll/topo serves no intercommunicator: this checks that the components a
 * selection list leaves (coll/inter, in Open MPI 4.1) do, and MPI_Allreduce
 * on MPI_COMM_WORLD and on each group shows (in the verbose output) that
 * coll/topo was loaded at all.
 *
 * Usage: test_intercomm [--max-count N]   (at least 2 ranks)
 * Prints "test_intercomm: P ranks (groups of A and B), N calls checked on
 * rank 0, F failures on all ranks"; exit status 0 when every check passed
 * on every rank.
 */
#include "test_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Written into every receive buffer first: what no result may hold
 * (results are sums of values below 1000). */
#define SENTINEL (-7777)
/* Elements of sentinel after every receive buffer's end. */
#define TAIL 4

static int wsize, wrank;
static int nlow; /* size of group 0: world ranks 0..nlow-1 */

static int group_of(int world) { return world < nlow ? 0 : 1; }
static int group_size(int g) { return g == 0 ? nlow : wsize - nlow; }
/* world rank of rank r of group g */
static int world_of(int g, int r) { return g == 0 ? r : nlow + r; }

/* Element i of world rank w's contribution in round `round`, to `peer`
 * (alltoall; -1 otherwise): small, so sums are exact. */
static int value(int w, int peer, int i, int round)
{
    return (int)(tt_mix((uint64_t)w, (uint64_t)(peer + 1) * 1000003u + (uint64_t)round,
                        (uint64_t)i) %
                 1000);
}

static int *alloc_ints(size_t n)
{
    int *p = malloc(sizeof(int) * (n + TAIL));
    if (NULL == p) {
        tt_fail("out of memory (%zu ints)", n);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (size_t i = 0; i < n + TAIL; i++)
        p[i] = SENTINEL;
    return p;
}

/* buf[0..n) must be want(i), and the TAIL elements after it untouched.
 * Reports the first wrong element only. */
#define EXPECT(buf, n, want_expr, ...)                                                          \
    do {                                                                                        \
        size_t n_ = (n);                                                                        \
        for (size_t i = 0; i < n_ + TAIL; i++) {                                                \
            int w_ = i < n_ ? (want_expr) : SENTINEL;                                           \
            if ((buf)[i] != w_) {                                                               \
                char what_[256];                                                                \
                snprintf(what_, sizeof what_, __VA_ARGS__);                                     \
                tt_fail("%s: element %zu of %zu is %d, expected %d%s", what_, i, n_, (buf)[i], \
                        w_, i < n_ ? "" : " (past the end)");                                   \
                break;                                                                          \
            }                                                                                   \
        }                                                                                       \
    } while (0)

/* The rooted collectives from rank `root` of group rg; returns the calls
 * made. */
static long run_rooted(MPI_Comm inter, int rg, int root, size_t count, int round)
{
    const int me = wrank, g = group_of(me), lrank = me - world_of(g, 0);
    const int rsize = group_size(1 - g);
    const int rootw = world_of(rg, root);
    /* what this rank passes as root: MPI_ROOT, MPI_PROC_NULL (the root's
     * group) or the root's rank (the other group) */
    const int arg = g != rg ? root : (lrank == root ? MPI_ROOT : MPI_PROC_NULL);
    const int is_root = arg == MPI_ROOT, receives = g != rg;
    const size_t all = count * (size_t)group_size(1 - rg);
    int *send = alloc_ints(all), *recv = alloc_ints(all);

    /* bcast: the root's values reach every rank of the other group */
    if (is_root)
        for (size_t i = 0; i < count; i++)
            recv[i] = value(rootw, -1, (int)i, round);
    tt_check_mpi(MPI_Bcast(recv, (int)count, MPI_INT, arg, inter), "MPI_Bcast");
    if (receives || is_root)
        EXPECT(recv, count, value(rootw, -1, (int)i, round),
               "bcast from group %d rank %d, count %zu", rg, root, count);
    else
        EXPECT(recv, all, SENTINEL, "bcast from group %d rank %d, count %zu (not involved)", rg,
               root, count);

    /* scatter: block j of the root's buffer goes to rank j of the other
     * group */
    free(recv);
    recv = alloc_ints(all);
    if (is_root)
        for (int j = 0; j < rsize; j++)
            for (size_t i = 0; i < count; i++)
                send[(size_t)j * count + i] = value(world_of(1 - g, j), -1, (int)i, round + 1);
    tt_check_mpi(MPI_Scatter(send, (int)count, MPI_INT, recv, (int)count, MPI_INT, arg, inter),
                 "MPI_Scatter");
    if (receives)
        EXPECT(recv, count, value(me, -1, (int)i, round + 1),
               "scatter from group %d rank %d, count %zu", rg, root, count);
    else
        EXPECT(recv, all, SENTINEL, "scatter from group %d rank %d, count %zu (not a receiver)",
               rg, root, count);

    /* gather: the root gets every rank of the other group's block, in
     * rank order */
    free(recv);
    recv = alloc_ints(all);
    for (size_t i = 0; i < count; i++)
        send[i] = value(me, -1, (int)i, round + 2);
    tt_check_mpi(MPI_Gather(send, (int)count, MPI_INT, recv, (int)count, MPI_INT, arg, inter),
                 "MPI_Gather");
    if (is_root)
        EXPECT(recv, all,
               value(world_of(1 - g, (int)(i / count)), -1, (int)(i % count), round + 2),
               "gather to group %d rank %d, count %zu", rg, root, count);
    else
        EXPECT(recv, all, SENTINEL, "gather to group %d rank %d, count %zu (not the root)", rg,
               root, count);

    /* reduce: the root gets the other group's sum */
    free(recv);
    recv = alloc_ints(all);
    tt_check_mpi(MPI_Reduce(send, recv, (int)count, MPI_INT, MPI_SUM, arg, inter), "MPI_Reduce");
    if (is_root) {
        for (size_t i = 0; i < count; i++) {
            int want = 0;
            for (int j = 0; j < rsize; j++)
                want += value(world_of(1 - g, j), -1, (int)i, round + 2);
            if (recv[i] != want) {
                tt_fail("reduce to group %d rank %d, count %zu: element %zu is %d, expected %d",
                        rg, root, count, i, recv[i], want);
                break;
            }
        }
        EXPECT(recv + count, 0, 0, "reduce to group %d rank %d, count %zu", rg, root, count);
    } else {
        EXPECT(recv, all, SENTINEL, "reduce to group %d rank %d, count %zu (not the root)", rg,
               root, count);
    }
    free(send);
    free(recv);
    return 4;
}

/* The collectives without a root; returns the calls made. */
static long run_rootless(MPI_Comm inter, size_t count, int round)
{
    const int me = wrank, g = group_of(me), lrank = me - world_of(g, 0);
    const int rsize = group_size(1 - g);
    const size_t all = count * (size_t)rsize;
    int *send = alloc_ints(all), *recv = alloc_ints(all);

    /* allreduce: every rank gets the other group's sum */
    for (size_t i = 0; i < count; i++)
        send[i] = value(me, -1, (int)i, round);
    tt_check_mpi(MPI_Allreduce(send, recv, (int)count, MPI_INT, MPI_SUM, inter),
                 "MPI_Allreduce");
    for (size_t i = 0; i < count; i++) {
        int want = 0;
        for (int j = 0; j < rsize; j++)
            want += value(world_of(1 - g, j), -1, (int)i, round);
        if (recv[i] != want) {
            tt_fail("allreduce, count %zu: element %zu is %d, expected %d (group %d rank %d)",
                    count, i, recv[i], want, g, lrank);
            break;
        }
    }
    EXPECT(recv + count, 0, 0, "allreduce, count %zu", count);

    /* allgather: every rank gets the other group's blocks in rank order */
    free(recv);
    recv = alloc_ints(all);
    tt_check_mpi(MPI_Allgather(send, (int)count, MPI_INT, recv, (int)count, MPI_INT, inter),
                 "MPI_Allgather");
    EXPECT(recv, all, value(world_of(1 - g, (int)(i / count)), -1, (int)(i % count), round),
           "allgather, count %zu", count);

    /* alltoall: block j goes to rank j of the other group */
    free(recv);
    recv = alloc_ints(all);
    for (int j = 0; j < rsize; j++)
        for (size_t i = 0; i < count; i++)
            send[(size_t)j * count + i] = value(me, world_of(1 - g, j), (int)i, round + 1);
    tt_check_mpi(MPI_Alltoall(send, (int)count, MPI_INT, recv, (int)count, MPI_INT, inter),
                 "MPI_Alltoall");
    EXPECT(recv, all, value(world_of(1 - g, (int)(i / count)), me, (int)(i % count), round + 1),
           "alltoall, count %zu", count);

    tt_check_mpi(MPI_Barrier(inter), "MPI_Barrier");
    free(send);
    free(recv);
    return 4;
}

/* MPI_Allreduce (sum of every rank's wrank + 1) on an intracommunicator
 * holding world ranks first..first+n-1: coll/topo's to serve. */
static long run_intra(MPI_Comm comm, const char *name, int first, int n)
{
    int mine = wrank + 1, sum = -1;
    tt_check_mpi(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, comm), "MPI_Allreduce");
    int want = n * first + n * (n + 1) / 2;
    if (sum != want)
        tt_fail("allreduce on %s: %d, expected %d", name, sum, want);
    return 1;
}

int main(int argc, char **argv)
{
    long max_count = 70000;
    MPI_Init(&argc, &argv);
    tt_init("test_intercomm");
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--max-count") && i + 1 < argc) {
            max_count = atol(argv[++i]);
        } else {
            if (0 == wrank)
                fprintf(stderr, "usage: %s [--max-count N]\n", argv[0]);
            MPI_Finalize();
            return 2;
        }
    }
    if (wsize < 2 || max_count < 1) {
        if (0 == wrank)
            fprintf(stderr, "test_intercomm: needs 2 ranks or more and --max-count >= 1\n");
        MPI_Finalize();
        return 2;
    }
    nlow = (wsize + 1) / 2;
    const int g = group_of(wrank);

    MPI_Comm local, inter;
    tt_check_mpi(MPI_Comm_split(MPI_COMM_WORLD, g, wrank, &local), "MPI_Comm_split");
    MPI_Comm_set_errhandler(local, MPI_ERRORS_RETURN);
    tt_check_mpi(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, world_of(1 - g, 0), 17, &inter),
                 "MPI_Intercomm_create");
    MPI_Comm_set_name(inter, "inter");
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    int is_inter = 0, rsize = -1;
    MPI_Comm_test_inter(inter, &is_inter);
    MPI_Comm_remote_size(inter, &rsize);
    if (!is_inter || rsize != group_size(1 - g))
        tt_fail("MPI_Intercomm_create: inter %d, remote size %d, expected %d", is_inter, rsize,
                group_size(1 - g));

    long calls = run_intra(MPI_COMM_WORLD, "world", 0, wsize);
    calls += run_intra(local, "group", world_of(g, 0), group_size(g));
    static const long counts[] = {1, 7, 1000, 70000};
    int round = 0;
    for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]); k++) {
        size_t count = (size_t)(counts[k] < max_count ? counts[k] : max_count);
        for (int rg = 0; rg < 2; rg++) {
            calls += run_rooted(inter, rg, 0, count, round += 3);
            if (group_size(rg) > 1)
                calls += run_rooted(inter, rg, group_size(rg) - 1, count, round += 3);
        }
        calls += run_rootless(inter, count, round += 3);
        if (counts[k] >= max_count)
            break;
    }

    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
    long failures = tt_total_failures();
    if (0 == wrank)
        printf("test_intercomm: %d ranks (groups of %d and %d), %ld calls checked on rank 0, %ld "
               "failures on all ranks\n",
               wsize, nlow, wsize - nlow, calls, failures);
    MPI_Finalize();
    return failures ? 1 : 0;
}
