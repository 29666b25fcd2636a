/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Bruck alltoall (Lu 2026a App. B.5, worked example A24):
 * ceil(log2 p) rounds for any p.  Rank i works on slots j = 0..p-1, slot j
 * starting with its data for rank i + j (the pre-rotation: slot j =
 * chunk (i + j) mod p); in round k it sends the slots whose index has bit k
 * set to i + 2^k and receives the same slots from i - 2^k.  A chunk in slot
 * j moves j ranks forward in all, so it ends at its destination, and slot j
 * of rank i ends with the chunk from rank i - j (the post-rotation puts it
 * at position (i - j) mod p of the output).  Round k moves the slots with
 * bit k set: p / 2 of them for p = 2^k, so
 * ceil(log2 p) alpha + ceil(log2 p) M / (2 BW) (B.5).
 *
 * Blocks (verify.h): [0, p) the send region, [p, 2p) the receive region;
 * uniform, so blocks move between positions.  The rotations cost no copies:
 * slot j of rank i lives in send block (i + j) mod p,
 * which initially holds exactly the pre-rotated chunk, and is overwritten
 * in place by the rounds that bring new chunks into the slot; the round of
 * j's highest set bit is the last to touch slot j, so that round receives
 * it straight into its output block p + (i - j) mod p (post-rotation and
 * reversal included).  Only the rank's own chunk (slot 0) is copied
 * locally, in round 0.  No scratch blocks.
 */
#include "algo.h"

/* The blocks (i + j) mod p of the j in [j0, p) whose bit of d is set
 * (groups of d consecutive j every 2d from j0, the last cut at p), in
 * ascending j. */
static void bit_set(topo_sched_t *s, int p, int i, int d, int j0)
{
    if (j0 >= p) {
        return;
    }
    const int full = p - j0 >= d ? (p - j0 - d) / (2 * d) + 1 : 0, jl = j0 + 2 * d * full;
    topo_sched_ranges_mod(s, 0, p, i + j0, d, 2 * d, full);
    if (jl < p) {
        topo_sched_ranges_mod(s, 0, p, i + jl, p - jl, 2 * d, 1);
    }
}

int topo_gen_alltoall_bruck(topo_sched_t *s, const topo_gen_args_t *a)
{
    const int p = a->size, i = a->rank;
    topo_sched_init(s, p, i, 2 * p);
    s->uniform = 1;
    topo_sched_step(s);
    topo_sched_copy(s, i, p + i, 1);
    for (int k = 0; (1L << k) < p; k++) {
        const int d = 1 << k;
        if (k > 0) {
            topo_sched_step(s);
        }
        /* the blocks j in [d, p) whose bit k is set: sent from (i + j) mod
         * p; received there, or, for those in their last step (j < 2d),
         * at p + (i - j) mod p, in descending order */
        topo_sched_send(s, (i + d) % p, 0, 0);
        bit_set(s, p, i, d, d);
        topo_sched_recv(s, (i - d + p) % p, TOPO_XFER_RECV_COPY, 0, 0);
        topo_sched_ranges_mod(s, p, p, i - d, 1, -1, d < p - d ? d : p - d);
        bit_set(s, p, i, d, 3 * d);
    }
    return topo_sched_finish(s);
}
