/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Bruck-style allreduce (Juerss et al. 2025 sec. 2.4, App. B), the
 * baseline Trivance is compared with: the bandwidth-optimal variant
 * (Bruck (B)), a reduce-scatter followed by an allgather in 2 ceil(log3 n)
 * steps per dimension.  In step k a rank talks to the ranks at distances
 * 3^k and 2*3^k, both in the same direction (Bruck et al.'s concatenation
 * with two ports); the allgather is the concatenation with its exchanges
 * reordered to the far, small ones first (sec. 6, after PAT), the exact
 * time reverse of the reduce-scatter.  On n ranks that are not a power of
 * three the last step keeps the distances 3^(s-1) and 2*3^(s-1) mod n and
 * sends only the blocks no earlier step delivers (a distance that is 0 mod
 * n is dropped): the shift engine's broadcast tree (algo_trivance.c), so
 * every size is exact and bandwidth-optimal.  Tori: one lane per dimension,
 * using that dimension's two ports (sec. 2.4).  Commutative operations only.
 */
#include "algo.h"

static int bruck_shifts(int n, int s, int t, int lat, int *shift)
{
    (void)s;
    (void)lat;
    long d = 1;
    for (int i = 0; i < t; i++) {
        d *= 3;
    }
    shift[0] = (int)(d % n);
    shift[1] = (int)(2 * d % n);
    return 2;
}

int topo_gen_allreduce_bruck(topo_sched_t *s, const topo_gen_args_t *a)
{
    return topo_gen_shift_allreduce(s, a, bruck_shifts, 0);
}
