/*
 * Rabenseifner reduce (seed 001 App. B.2, B.4; digest 2.8): a reduce-scatter
 * by recursive halving over p2 blocks, then a binomial gather of the
 * reduced blocks to the root, which retraces the halving steps in reverse
 * (the allgather of the Rabenseifner allreduce, algo_rabenseifner.c, kept
 * only on the paths toward the root).  For p = 2^k: 2 log2 p alpha +
 * 2 (p - 1) / p M / BW.
 *
 * Any size by folding onto the largest power of two p2 (seed 001 B.3; see
 * algo.h), with one change: in the pair (2i, 2i + 1) that holds the root,
 * the root is the one that stays, so nothing has to be sent back to it at
 * the end.  Order-preserving like the allreduce: the halving runs from
 * distance 1 up, so every partial result covers consecutive ranks combined
 * lower ones first (the fold keeps this: a pair is two consecutive ranks,
 * combined in order whichever of them stays).
 *
 * Gather: with u = newrank XOR newrank(root), at the step of distance 2^k
 * (k from log2 p2 - 1 down) the ranks whose bits of u above k are clear and
 * bit k is set send the block range they hold (the one they held after
 * halving step k, now complete) to their partner, which then holds the
 * range it held before halving step k.
 */
#include "algo.h"

/* The rank that stays of pair i < rem. */
static int keeper(int i, int root)
{
    return root == 2 * i ? 2 * i : 2 * i + 1;
}

int topo_gen_reduce_rabenseifner(topo_sched_t *s, const topo_gen_args_t *a)
{
    const int p = a->size, r = a->rank, root = a->root;
    topo_fold_t f;
    topo_fold_init(&f, p, r);
    /* new rank: pairs below 2 rem are represented by their keeper */
    int n = r < 2 * f.rem ? (keeper(r / 2, root) == r ? r / 2 : -1) : r - f.rem;
    int nroot = root < 2 * f.rem ? root / 2 : root - f.rem;
#define OLD(m) ((m) < f.rem ? keeper((m), root) : (m) + f.rem)
    topo_sched_init(s, p, r, f.p2);
    if (f.rem > 0) {
        topo_sched_step(s);
        if (r < 2 * f.rem) {
            int partner = r ^ 1;
            if (n >= 0) {
                topo_sched_recv(s, partner,
                                partner < r ? TOPO_XFER_RECV_REDUCE : TOPO_XFER_RECV_REDUCE_POST, 0,
                                f.p2);
            } else {
                topo_sched_send(s, partner, 0, f.p2);
            }
        }
    }
    int nsteps = 0;
    while ((1 << nsteps) < f.p2) {
        nsteps++;
    }
    /* lo[k], len[k]: the block range this rank holds before halving step k */
    int lo[32], len[32];
    lo[0] = 0;
    len[0] = f.p2;
    for (int k = 0; k < nsteps; k++) {
        int mask = 1 << k, half = len[k] / 2, upper = n >= 0 && (n & mask);
        lo[k + 1] = upper ? lo[k] + half : lo[k];
        len[k + 1] = half;
        topo_sched_step(s);
        if (n < 0) {
            continue;
        }
        int peer = OLD(n ^ mask);
        topo_sched_send(s, peer, upper ? lo[k] : lo[k] + half, half);
        topo_sched_recv(s, peer, upper ? TOPO_XFER_RECV_REDUCE : TOPO_XFER_RECV_REDUCE_POST,
                        lo[k + 1], half);
    }
    for (int k = nsteps - 1; k >= 0; k--) {
        topo_sched_step(s);
        int mask = 1 << k, u = n ^ nroot;
        if (n < 0 || (u >> (k + 1)) != 0) {
            continue; /* sat out, or already sent its data on */
        }
        int peer = OLD(n ^ mask);
        if (u & mask) {
            topo_sched_send(s, peer, lo[k + 1], len[k + 1]);
        } else {
            topo_sched_recv(s, peer, TOPO_XFER_RECV_COPY, (n & mask) ? lo[k] : lo[k] + len[k + 1],
                            len[k + 1]);
        }
    }
#undef OLD
    return topo_sched_finish(s);
}
