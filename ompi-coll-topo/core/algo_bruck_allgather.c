/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Bruck allgather (Bruck et al. 1997, the concatenation; Lu 2026a App. A
 * and B.4 name it as the offset family i + 2^k): ceil(log2 p)
 * steps for any p; at step k rank r sends the min(2^k, p - 2^k) blocks
 * r, r + 1, ... (mod p) to r - 2^k and receives blocks r + 2^k, ... from
 * r + 2^k.  Before step k a rank holds the 2^k blocks from its own on, so
 * after the last it holds all p; every rank sends p - 1 blocks in all:
 * ceil(log2 p) alpha + (p - 1) / p M / BW.
 *
 * Layout: the textbook version works in a buffer
 * rotated by r and rotates it back at the end; here blocks are addressed
 * by their owner, so each transfer names the owners' blocks directly (one
 * or two ranges, as the run wraps around p) and no rotation is needed.
 */
#include "algo.h"

static void cyclic(topo_sched_t *s, int first, int n, int p)
{
    first %= p;
    int head = first + n <= p ? n : p - first;
    topo_sched_range(s, first, head);
    topo_sched_range(s, 0, n - head);
}

int topo_gen_allgather_bruck(topo_sched_t *s, const topo_gen_args_t *a)
{
    const int p = a->size, r = a->rank;
    topo_sched_init(s, p, r, p);
    for (long d = 1; d < p; d <<= 1) {
        const int n = (int)(d < p - d ? d : p - d);
        topo_sched_step(s);
        topo_sched_send(s, (int)((r - d + p) % p), 0, 0);
        cyclic(s, r, n, p);
        topo_sched_recv(s, (int)((r + d) % p), TOPO_XFER_RECV_COPY, 0, 0);
        cyclic(s, (int)(r + d), n, p);
    }
    return topo_sched_finish(s);
}
