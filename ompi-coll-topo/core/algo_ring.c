/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ring reduce-scatter, ring allgather, and ring allreduce as the two in
 * turn (Patarasuk and Yuan 2009; Lu 2026a sec. 5.1, 6): p - 1 steps each
 * of one block to the right neighbour, (p - 1) alpha + (p - 1) / p M / BW
 * per phase, exact.  Any size.  The partial sums travel around the ring, so
 * the combination order is cyclic: commutative operations only.
 */
#include "algo.h"

/* Step t of a ring reduce-scatter or allgather is step 1 with every block
 * one earlier (mod p): emitted once and repeated (topo_sched_repeat). */
void topo_ring_reduce_scatter(topo_sched_t *s, int shift)
{
    const int p = s->size, r = s->rank;
    if (p < 2) {
        return;
    }
    const topo_shift_t back = {0, -1, 0, p, 1, 0, 0};
    const topo_shift_t sh[2] = {back, back};
    topo_sched_step(s);
    topo_sched_send(s, (r + 1) % p, (r - 1 + shift + 2 * p) % p, 1);
    topo_sched_recv(s, (r + p - 1) % p, TOPO_XFER_RECV_REDUCE, (r - 2 + shift + 2 * p) % p, 1);
    topo_sched_repeat(s, 1, p - 2, sh, 2);
}

void topo_ring_allgather(topo_sched_t *s, int v, int shift, int right, int left)
{
    const int p = s->size;
    if (p < 2) {
        return;
    }
    const topo_shift_t back = {0, -1, 0, p, 1, 0, 0};
    const topo_shift_t sh[2] = {back, back};
    topo_sched_step(s);
    if (right >= 0) {
        topo_sched_send(s, right, (v + shift + 2 * p) % p, 1);
    }
    if (left >= 0) {
        topo_sched_recv(s, left, TOPO_XFER_RECV_COPY, (v - 1 + shift + 2 * p) % p, 1);
    }
    topo_sched_repeat(s, 1, p - 2, sh, (right >= 0) + (left >= 0));
}

int topo_gen_reduce_scatter_ring(topo_sched_t *s, const topo_gen_args_t *a)
{
    topo_sched_init(s, a->size, a->rank, a->size);
    topo_ring_reduce_scatter(s, 0);
    return topo_sched_finish(s);
}

int topo_gen_allgather_ring(topo_sched_t *s, const topo_gen_args_t *a)
{
    const int p = a->size, r = a->rank;
    topo_sched_init(s, p, r, p);
    topo_ring_allgather(s, r, 0, (r + 1) % p, (r + p - 1) % p);
    return topo_sched_finish(s);
}

/* The reduce-scatter shifted by one block, so that rank r ends owning block
 * r + 1, which the allgather then passes on first. */
int topo_gen_allreduce_ring(topo_sched_t *s, const topo_gen_args_t *a)
{
    const int p = a->size, r = a->rank;
    topo_sched_init(s, p, r, p);
    topo_ring_reduce_scatter(s, 1);
    topo_ring_allgather(s, r, 1, (r + 1) % p, (r + p - 1) % p);
    return topo_sched_finish(s);
}
