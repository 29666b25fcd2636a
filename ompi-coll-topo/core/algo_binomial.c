/*
 * Binomial-tree broadcast and reduce (seed 001 sec. 3.2, 4.2; digest 2.8):
 * ceil(log2 p) steps, each moving the whole vector (one block) over one
 * link per pair.  Any size, any root.
 *
 * Broadcast: with v = (rank - root) mod p, at step k every holder v < 2^k
 * sends to v + 2^k (seed: N = 4, step 1 R0->R1, step 2 R0->R2, R1->R3).
 *
 * Reduce: the same tree run backwards, but built on rank intervals so that
 * it preserves the combination order (non-commutative operations): at step
 * k the aligned intervals [b, b + 2^k) and [b + 2^k, b + 2^(k+1)) merge;
 * each interval is represented by its survivor (the root if it lies in it,
 * else its lowest rank), which holds the interval's contributions combined
 * in rank order; the losing survivor sends to the winning one, which puts
 * the lower interval first.  With root 0 this is the seed's schedule
 * (N = 4: step 1 R1->R0, R3->R2; step 2 R2->R0); another root just
 * survives in place of its interval's lowest rank, so the depth stays
 * ceil(log2 p).
 */
#include "algo.h"

int topo_gen_bcast_binomial(topo_sched_t *s, const topo_gen_args_t *a)
{
    const int p = a->size, root = a->root, v = (a->rank - root + p) % p;
    topo_sched_init(s, p, a->rank, 1);
    for (long mask = 1; mask < p; mask <<= 1) {
        topo_sched_step(s);
        if (v < mask && v + mask < p) {
            topo_sched_send(s, (int)((v + mask + root) % p), 0, 1);
        } else if (v >= mask && v < 2 * mask) {
            topo_sched_recv(s, (int)((v - mask + root) % p), TOPO_XFER_RECV_COPY, 0, 1);
        }
    }
    return topo_sched_finish(s);
}

/* The rank that holds interval [lo, hi)'s combination. */
static int survivor(int lo, int hi, int root)
{
    return root >= lo && root < hi ? root : lo;
}

int topo_gen_reduce_binomial(topo_sched_t *s, const topo_gen_args_t *a)
{
    const int p = a->size, r = a->rank, root = a->root;
    topo_sched_init(s, p, r, 1);
    for (long m = 1; m < p; m <<= 1) {
        topo_sched_step(s);
        int base = (int)(r / (2 * m) * (2 * m)), mid = (int)(base + m);
        int end = (int)(base + 2 * m < p ? base + 2 * m : p);
        if (mid >= end) {
            continue; /* no upper interval to merge with */
        }
        int lo = survivor(base, mid, root), hi = survivor(mid, end, root);
        int keep = survivor(base, end, root), other = keep == lo ? hi : lo;
        if (r == keep) {
            /* the upper interval's data goes after ours, the lower's before */
            topo_sched_recv(s, other,
                            other == hi ? TOPO_XFER_RECV_REDUCE_POST : TOPO_XFER_RECV_REDUCE, 0, 1);
        } else if (r == other) {
            topo_sched_send(s, keep, 0, 1);
        }
    }
    return topo_sched_finish(s);
}
