/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Binomial- and k-nomial-tree broadcast and reduce (Lu 2026a sec. 3.2, 4.2):
 * one generator per primitive for a tree of radix k, the
 * binomial tree being radix 2 (ceil(log2 p) steps, one new rank per holder
 * and step) and `knomial` radix 4 (ceil(log4 p) steps, up to 3 at once, as
 * coll/tuned's knomial bcast: fewer steps for k - 1 messages per step
 * through the sender's port, cheaper for small vectors, dearer for large
 * ones).  Every transfer moves the whole vector (one block).  Any size,
 * any root.
 *
 * Broadcast: with v = (rank - root) mod p and m = k^s, at step s every
 * holder v < m sends to v + j m for j = 1 .. k-1 (those below p); for
 * k = 2 the paper's N = 4: step 1 R0->R1, step 2 R0->R2, R1->R3.
 *
 * Reduce: the same tree run backwards, but built on rank intervals so that
 * it preserves the combination order (non-commutative operations): at
 * step s the aligned interval [b, b + k m) merges its k subintervals
 * [b + j m, b + (j+1) m); each is represented by its survivor (the root if
 * it lies in it, else its lowest rank), which holds the subinterval's
 * contributions combined in rank order.  The other survivors send to the
 * merged interval's survivor, which applies the higher subintervals after
 * its own data in ascending order, then the lower ones before it in
 * descending order (the executor applies a step's receives in transfer
 * order).  With k = 2 and root 0 this is the paper's schedule (N = 4: step
 * 1 R1->R0, R3->R2; step 2 R2->R0); another root just survives in place
 * of its interval's lowest rank, so the depth stays ceil(log_k p).
 */
#include "algo.h"

static int bcast_tree(topo_sched_t *s, const topo_gen_args_t *a, long k)
{
    const int p = a->size, root = a->root, v = (a->rank - root + p) % p;
    topo_sched_init(s, p, a->rank, 1);
    for (long m = 1; m < p; m *= k) {
        topo_sched_step(s);
        if (v < m) {
            for (long j = 1; j < k && v + j * m < p; j++) {
                topo_sched_send(s, (int)((v + j * m + root) % p), 0, 1);
            }
        } else if (v < k * m) {
            topo_sched_recv(s, (int)((v % m + root) % p), TOPO_XFER_RECV_COPY, 0, 1);
        }
    }
    return topo_sched_finish(s);
}

/* The rank that holds subinterval j of [base, end) (each m ranks long,
 * the last one cut at end): the root if it lies in it, else its lowest. */
static int survivor(long base, long end, long m, long j, int root)
{
    const long lo = base + j * m, hi = lo + m < end ? lo + m : end;
    return root >= lo && root < hi ? root : (int)lo;
}

static int reduce_tree(topo_sched_t *s, const topo_gen_args_t *a, long k)
{
    const int p = a->size, r = a->rank, root = a->root;
    topo_sched_init(s, p, r, 1);
    for (long m = 1; m < p; m *= k) {
        topo_sched_step(s);
        const long base = r / (k * m) * (k * m);
        const long end = base + k * m < p ? base + k * m : p;
        const int keep = survivor(base, end, k * m, 0, root);
        const long mine = (r - base) / m; /* r's subinterval */
        if (r != survivor(base, end, m, mine, root)) {
            continue; /* r's data went to its subinterval's survivor earlier */
        }
        if (r != keep) {
            topo_sched_send(s, keep, 0, 1);
            continue;
        }
        for (long j = mine + 1; j < k && base + j * m < end; j++) {
            topo_sched_recv(s, survivor(base, end, m, j, root), TOPO_XFER_RECV_REDUCE_POST, 0, 1);
        }
        for (long j = mine - 1; j >= 0; j--) {
            topo_sched_recv(s, survivor(base, end, m, j, root), TOPO_XFER_RECV_REDUCE, 0, 1);
        }
    }
    return topo_sched_finish(s);
}

/* The radix of `knomial`. */
#define TOPO_KNOMIAL_RADIX 4

int topo_gen_bcast_binomial(topo_sched_t *s, const topo_gen_args_t *a)
{
    return bcast_tree(s, a, 2);
}

int topo_gen_bcast_knomial(topo_sched_t *s, const topo_gen_args_t *a)
{
    return bcast_tree(s, a, TOPO_KNOMIAL_RADIX);
}

int topo_gen_reduce_binomial(topo_sched_t *s, const topo_gen_args_t *a)
{
    return reduce_tree(s, a, 2);
}

int topo_gen_reduce_knomial(topo_sched_t *s, const topo_gen_args_t *a)
{
    return reduce_tree(s, a, TOPO_KNOMIAL_RADIX);
}
