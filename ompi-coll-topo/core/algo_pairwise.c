/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The direct-send alltoall of Lu 2026a sec. 7.2, where rank r sends its
 * block for r + t to rank r + t and receives the block from r - t, for
 * t = 1 .. p - 1; its own block is copied locally first.  Any size.
 * Blocks: [0, p) send region, [p, 2p) receive region (verify.h); every
 * message is one block, received in place.
 *
 * - pairwise: one exchange per step, p - 1 steps ((p-1) alpha).
 * - linear: every exchange posted in one step, as NCCL's grouped
 *   point-to-point and Open MPI's basic linear alltoall do: one alpha and
 *   the same (p-1)/p M through one port; the cost model serializes the
 *   p - 1 messages on the rank's ports and charges each its message
 *   overhead.  The messages keep pairwise's staggered order, so that the
 *   ranks' first messages go to distinct peers.  The schedule is `wide`
 *   (schedule.h): between hosts its messages are not split at the eager
 *   payload (docs/benchmarks.md, alltoall on the 4x4 testbed).
 */
#include "algo.h"

static int direct_send(topo_sched_t *s, const topo_gen_args_t *a, int at_once)
{
    const int p = a->size, r = a->rank;
    topo_sched_init(s, p, r, 2 * p);
    s->uniform = 1;
    s->wide = (uint8_t)at_once;
    topo_sched_step(s);
    topo_sched_copy(s, r, p + r, 1);
    /* exchange t is exchange 1 with the send's peer and block t - 1
     * forward in the send region, the receive's t - 1 back in the receive
     * region: pairwise's step t (topo_sched_repeat), linear's transfers
     * 2t - 1 and 2t after the copy (topo_sched_repeat_xfers) */
    if (p > 1) {
        if (!at_once) {
            topo_sched_step(s);
        }
        topo_sched_send(s, (r + 1) % p, (r + 1) % p, 1);
        topo_sched_recv(s, (r - 1 + p) % p, TOPO_XFER_RECV_COPY, p + (r - 1 + p) % p, 1);
    }
    if (p > 2) {
        const topo_shift_t sh[2] = {{1, 1, 0, p, 1, 0, 0}, {-1, -1, p, p, 1, 0, 0}};
        if (at_once) {
            topo_sched_repeat_xfers(s, 2, p - 2, sh);
        } else {
            topo_sched_repeat(s, 1, p - 2, sh, 2);
        }
    }
    return topo_sched_finish(s);
}

int topo_gen_alltoall_pairwise(topo_sched_t *s, const topo_gen_args_t *a)
{
    return direct_send(s, a, 0);
}

int topo_gen_alltoall_linear(topo_sched_t *s, const topo_gen_args_t *a)
{
    return direct_send(s, a, 1);
}
