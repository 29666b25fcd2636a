/*
 * k-nomial-tree broadcast and reduce, radix k = TOPO_KNOMIAL_RADIX (4, the
 * radix of coll/tuned's knomial bcast): the binomial tree (algo_binomial.c)
 * with k - 1 children per holder and level instead of one, so
 * ceil(log_k p) steps, each sending the whole vector to up to k - 1 ranks
 * at once.  Fewer steps than binomial's ceil(log2 p) for k - 1 messages per
 * step through the sender's port: cheaper when a step's latency outweighs
 * the extra copies (small vectors), dearer for large ones.  Any size, any
 * root.
 *
 * Broadcast: with v = (rank - root) mod p and m = k^s, at step s every
 * holder v < m sends to v + j m for j = 1 .. k-1 (those below p).
 *
 * Reduce: the same tree run backwards on rank intervals, as the binomial
 * reduce does, so that it preserves the combination order: at step s the
 * aligned interval [b, b + k m) merges its k subintervals
 * [b + j m, b + (j+1) m); each is represented by its survivor (the root if
 * it lies in it, else its lowest rank), and the other survivors send to
 * the merged interval's survivor, which applies the higher subintervals
 * after its own data in ascending order, then the lower ones before it in
 * descending order (the executor applies a step's receives in transfer
 * order): the result is the contributions in rank order.
 */
#include "algo.h"

#define TOPO_KNOMIAL_RADIX 4

int topo_gen_bcast_knomial(topo_sched_t *s, const topo_gen_args_t *a)
{
    const int p = a->size, root = a->root, v = (a->rank - root + p) % p;
    const long k = TOPO_KNOMIAL_RADIX;
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

/* The rank that holds interval [lo, hi)'s combination. */
static int survivor(long lo, long hi, int root)
{
    return root >= lo && root < hi ? root : (int)lo;
}

int topo_gen_reduce_knomial(topo_sched_t *s, const topo_gen_args_t *a)
{
    const int p = a->size, r = a->rank, root = a->root;
    const long k = TOPO_KNOMIAL_RADIX;
    topo_sched_init(s, p, r, 1);
    for (long m = 1; m < p; m *= k) {
        topo_sched_step(s);
        const long base = r / (k * m) * (k * m);
        const long end = base + k * m < p ? base + k * m : p;
        const int keep = survivor(base, end, root);
        const long mine = (r - base) / m; /* r's subinterval */
        const int own = survivor(base + mine * m,
                                 base + (mine + 1) * m < end ? base + (mine + 1) * m : end, root);
        if (r != own) {
            continue; /* r's data went to its subinterval's survivor earlier */
        }
        if (r != keep) {
            topo_sched_send(s, keep, 0, 1);
            continue;
        }
        /* the higher subintervals after ours, ascending; then the lower
         * ones before it, descending */
        for (long j = mine + 1; j < k && base + j * m < end; j++) {
            long hi = base + (j + 1) * m < end ? base + (j + 1) * m : end;
            topo_sched_recv(s, survivor(base + j * m, hi, root), TOPO_XFER_RECV_REDUCE_POST, 0, 1);
        }
        for (long j = mine - 1; j >= 0; j--) {
            topo_sched_recv(s, survivor(base + j * m, base + (j + 1) * m, root),
                            TOPO_XFER_RECV_REDUCE, 0, 1);
        }
    }
    return topo_sched_finish(s);
}
