/*
 * Ring allreduce (seed 001 sec. 5.1; Patarasuk-Yuan): a ring reduce-scatter
 * of size-1 steps followed by a ring allgather of size-1 steps, over `size`
 * blocks.  Works for every size; the partial sums travel around the ring, so
 * the combination order is cyclic: commutative operations only.
 */
#include "algo.h"

int topo_gen_allreduce_ring(topo_sched_t *s, const topo_gen_args_t *a)
{
    const int p = a->size, r = a->rank;
    const int right = (r + 1) % p, left = (r + p - 1) % p;
    topo_sched_init(s, p, r, p);
    /* Reduce-scatter: at step t (1-based) send block (r - t + 1) and reduce
     * block (r - t) from the left; rank r ends owning block (r + 1). */
    for (int t = 1; t < p; t++) {
        topo_sched_step(s);
        topo_sched_send(s, right, (r - t + 1 + p) % p, 1);
        topo_sched_recv(s, left, TOPO_XFER_RECV_REDUCE, (r - t + p) % p, 1);
    }
    /* Allgather: pass the finished blocks along, starting with (r + 1). */
    for (int t = 1; t < p; t++) {
        topo_sched_step(s);
        topo_sched_send(s, right, (r - t + 2 + p) % p, 1);
        topo_sched_recv(s, left, TOPO_XFER_RECV_COPY, (r - t + 1 + p) % p, 1);
    }
    return topo_sched_finish(s);
}
