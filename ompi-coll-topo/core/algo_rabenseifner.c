/*
 * Rabenseifner allreduce (seed 001 App. B.2): reduce-scatter by recursive
 * halving, then allgather by recursive doubling, over p2 blocks; any size by
 * folding onto the largest power of two p2 (algo.h; seed 001 B.3).
 *
 * Halving runs from distance 1 upward (seed 001 B.2: partner i XOR 2^(k-1))
 * so that every partial result covers an aligned group of consecutive new
 * ranks, combined lower group first: order-preserving.  At distance m a
 * rank keeps the lower half of its current block range if bit m of its new
 * rank is clear, else the upper half; new rank n ends owning block
 * bitreverse(n).  The allgather retraces the steps in reverse.
 */
#include "algo.h"

int topo_gen_allreduce_rabenseifner(topo_sched_t *s, const topo_gen_args_t *a)
{
    topo_fold_t f;
    topo_fold_init(&f, a->size, a->rank);
    topo_sched_init(s, a->size, a->rank, f.p2);
    topo_fold_in(s, &f);
    int nsteps = 0;
    while ((1 << nsteps) < f.p2) {
        nsteps++;
    }
    /* lo[k], n[k]: the block range this rank holds before halving step k. */
    int lo[32], n[32];
    lo[0] = 0;
    n[0] = f.p2;
    for (int k = 0; k < nsteps; k++) {
        int mask = 1 << k, half = n[k] / 2, upper = f.newrank >= 0 && (f.newrank & mask);
        lo[k + 1] = upper ? lo[k] + half : lo[k];
        n[k + 1] = half;
        topo_sched_step(s);
        if (f.newrank < 0) {
            continue;
        }
        int peer = topo_fold_old(&f, f.newrank ^ mask);
        topo_sched_send(s, peer, upper ? lo[k] : lo[k] + half, half);
        topo_sched_recv(s, peer, upper ? TOPO_XFER_RECV_REDUCE : TOPO_XFER_RECV_REDUCE_POST,
                        lo[k + 1], half);
    }
    for (int k = nsteps - 1; k >= 0; k--) {
        topo_sched_step(s);
        if (f.newrank < 0) {
            continue;
        }
        int mask = 1 << k, upper = f.newrank & mask;
        int peer = topo_fold_old(&f, f.newrank ^ mask);
        topo_sched_send(s, peer, lo[k + 1], n[k + 1]);
        topo_sched_recv(s, peer, TOPO_XFER_RECV_COPY, upper ? lo[k] : lo[k] + n[k + 1],
                        n[k + 1]);
    }
    topo_fold_out(s, &f);
    return topo_sched_finish(s);
}
