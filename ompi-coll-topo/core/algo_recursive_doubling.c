/*
 * Recursive-doubling allreduce (seed 001 App. B.1): log2(p2) steps, each
 * exchanging the whole vector with rank XOR 2^k and combining.  Any size,
 * by folding onto the largest power of two (algo.h; seed 001 B.3).
 *
 * Order-preserving: after step k a rank holds the combination of the
 * aligned group of 2^(k+1) new ranks around it, which covers consecutive
 * communicator ranks; the lower group always goes first, so both partners
 * compute the same value, bitwise, for any associative operation.
 */
#include "algo.h"

int topo_gen_allreduce_recursive_doubling(topo_sched_t *s, const topo_gen_args_t *a)
{
    topo_fold_t f;
    topo_fold_init(&f, a->size, a->rank);
    topo_sched_init(s, a->size, a->rank, 1);
    topo_fold_in(s, &f);
    for (int mask = 1; mask < f.p2; mask <<= 1) {
        topo_sched_step(s);
        if (f.newrank < 0) {
            continue;
        }
        int peer = topo_fold_old(&f, f.newrank ^ mask);
        topo_sched_send(s, peer, 0, 1);
        topo_sched_recv(s, peer, (f.newrank & mask) ? TOPO_XFER_RECV_REDUCE
                                                    : TOPO_XFER_RECV_REDUCE_POST,
                        0, 1);
    }
    topo_fold_out(s, &f);
    return topo_sched_finish(s);
}
