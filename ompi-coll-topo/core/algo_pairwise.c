/*
 * Pairwise-exchange alltoall (seed 001 sec. 7.2): p - 1 steps; at step t
 * rank r sends its block for (r + t) mod p and receives the block from
 * (r - t) mod p.  Its own block is copied locally first.  Any size.
 * Blocks: [0, p) send region, [p, 2p) receive region (verify.h).
 */
#include "algo.h"

int topo_gen_alltoall_pairwise(topo_sched_t *s, const topo_gen_args_t *a)
{
    const int p = a->size, r = a->rank;
    topo_sched_init(s, p, r, 2 * p);
    s->uniform = 1;
    topo_sched_step(s);
    topo_sched_copy(s, r, p + r, 1);
    for (int t = 1; t < p; t++) {
        topo_sched_step(s);
        topo_sched_send(s, (r + t) % p, (r + t) % p, 1);
        topo_sched_recv(s, (r - t + p) % p, TOPO_XFER_RECV_COPY, p + (r - t + p) % p, 1);
    }
    return topo_sched_finish(s);
}
