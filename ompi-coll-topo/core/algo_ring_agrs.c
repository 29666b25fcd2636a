/*
 * Ring allgather and ring reduce-scatter (seed 001 sec. 6; digest 2.4,
 * 2.8): the two phases of the ring allreduce (algo_ring.c) run standalone,
 * p - 1 steps of one block each to the right neighbour:
 * (p - 1) alpha + (p - 1) / p M / BW, exact.  Any size.
 *
 * Allgather: at step t rank r forwards block (r - t + 1) mod p, which it
 * owns (t = 1) or received at step t - 1, and receives block (r - t) mod p.
 *
 * Reduce-scatter: the allreduce's phase 1 shifted by one block, so that rank
 * r ends with its own block r: at step t rank r sends its partial of block
 * (r - t) mod p and reduces into block (r - t - 1) mod p.  The partial sums
 * travel around the ring, so the combination order is cyclic: commutative
 * operations only.
 */
#include "algo.h"

int topo_gen_allgather_ring(topo_sched_t *s, const topo_gen_args_t *a)
{
    const int p = a->size, r = a->rank;
    topo_sched_init(s, p, r, p);
    for (int t = 1; t < p; t++) {
        topo_sched_step(s);
        topo_sched_send(s, (r + 1) % p, (r - t + 1 + p) % p, 1);
        topo_sched_recv(s, (r + p - 1) % p, TOPO_XFER_RECV_COPY, (r - t + p) % p, 1);
    }
    return topo_sched_finish(s);
}

int topo_gen_reduce_scatter_ring(topo_sched_t *s, const topo_gen_args_t *a)
{
    const int p = a->size, r = a->rank;
    topo_sched_init(s, p, r, p);
    for (int t = 1; t < p; t++) {
        topo_sched_step(s);
        topo_sched_send(s, (r + 1) % p, (r - t + p) % p, 1);
        topo_sched_recv(s, (r + p - 1) % p, TOPO_XFER_RECV_REDUCE, (r - t - 1 + 2 * p) % p, 1);
    }
    return topo_sched_finish(s);
}
