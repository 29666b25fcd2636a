/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Dissemination barrier (Hensgen, Finkel and Manber): ceil(log2 p) steps;
 * at step k rank r signals (r + 2^k) mod p and waits for (r - 2^k) mod p.
 * After step k a rank knows of the 2^(k+1) ranks before it.  Any size.
 */
#include "algo.h"

int topo_gen_barrier_dissemination(topo_sched_t *s, const topo_gen_args_t *a)
{
    const int p = a->size, r = a->rank;
    topo_sched_init(s, p, r, 1);
    s->sync = 1;
    for (int d = 1; d < p; d <<= 1) {
        topo_sched_step(s);
        topo_sched_send(s, (r + d) % p, 0, 1);
        topo_sched_recv(s, (r - d % p + p) % p, TOPO_XFER_RECV_REDUCE, 0, 1);
    }
    return topo_sched_finish(s);
}
