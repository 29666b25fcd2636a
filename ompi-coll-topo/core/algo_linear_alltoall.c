/*
 * Linear (all at once) alltoall: the pairwise direct-send of seed 001
 * sec. 7.2 with its p - 1 rounds posted together in one step, as NCCL's
 * grouped point-to-point does and as Open MPI's basic linear alltoall
 * does.  Rank r copies its own block, then sends block (r + t) mod p to
 * rank r + t and receives into p + (r - t) mod p from rank r - t, for
 * t = 1 .. p - 1, in that (staggered) order, so that at any moment the
 * ranks' first messages go to distinct peers.  One alpha, the bandwidth
 * term of pairwise ((p - 1)/p M through one port); the cost model serializes
 * the p - 1 messages on the rank's ports and charges each its message
 * overhead.  Any size.  Blocks: [0, p) send region, [p, 2p) receive region
 * (verify.h); every message is one block, received in place.
 */
#include "algo.h"

int topo_gen_alltoall_linear(topo_sched_t *s, const topo_gen_args_t *a)
{
    const int p = a->size, r = a->rank;
    topo_sched_init(s, p, r, 2 * p);
    s->uniform = 1;
    topo_sched_step(s);
    topo_sched_copy(s, r, p + r, 1);
    for (int t = 1; t < p; t++) {
        topo_sched_recv(s, (r - t + p) % p, TOPO_XFER_RECV_COPY, p + (r - t + p) % p, 1);
    }
    for (int t = 1; t < p; t++) {
        topo_sched_send(s, (r + t) % p, (r + t) % p, 1);
    }
    return topo_sched_finish(s);
}
