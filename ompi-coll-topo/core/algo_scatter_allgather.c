/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Scatter-allgather broadcast (van de Geijn; Lu 2026a sec. 3, 6; the
 * bandwidth-bound broadcast of MPI libraries): the root's vector is cut
 * into p blocks, block r destined for rank r; a binomial scatter hands each
 * rank its block in ceil(log2 p) steps, then a ring allgather (Lu 2026a
 * sec. 6) circulates the blocks in p - 1 steps.  For p = 2^k:
 * (log2 p + p - 1) alpha + 2 (p - 1) / p M / BW.  Any size, any root.
 *
 * Blocks are numbered by relative rank v = (rank - root) mod p: block v is
 * relative rank v's.  So a schedule for root R is the one for root 0 with
 * every rank counted from R, blocks and all, and costs the same
 * (TOPO_ALG_ROOT_FREE), and a subtree's blocks are one range.
 *
 * Scatter: rank v's subtree is the relative ranks [v, v + lowbit(v)); at
 * the step of distance m (largest first) every v that is a multiple of 2m
 * sends the blocks [v + m, v + 2m) to v + m.
 *
 * Allgather: the ring of Lu 2026a sec. 6 over communicator ranks, minus the
 * messages into the root, which has every block already.
 */
#include "algo.h"

int topo_gen_bcast_scatter_allgather(topo_sched_t *s, const topo_gen_args_t *a)
{
    const int p = a->size, r = a->rank, root = a->root, v = (r - root + p) % p;
    topo_sched_init(s, p, r, p);
    long top = 1;
    while (top < p) {
        top <<= 1;
    }
    for (long m = top / 2; m >= 1; m >>= 1) {
        topo_sched_step(s);
        if (v % (2 * m) == 0 && v + m < p) {
            int n = (int)(v + 2 * m < p ? 2 * m : p - v) - (int)m;
            topo_sched_send(s, (int)((v + m + root) % p), (int)(v + m), n);
        } else if (v % (2 * m) == m) {
            int n = (int)(v + m < p ? m : p - v);
            topo_sched_recv(s, (int)((v - m + root) % p), TOPO_XFER_RECV_COPY, v, n);
        }
    }
    /* the ring allgather, minus the messages into the root */
    const int right = (r + 1) % p, left = (r + p - 1) % p;
    topo_ring_allgather(s, v, 0, right != root ? right : -1, r != root ? left : -1);
    return topo_sched_finish(s);
}
