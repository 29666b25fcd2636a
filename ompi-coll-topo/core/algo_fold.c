/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Folding any communicator size onto a power of two (see algo.h).
 */
#include "algo.h"

void topo_fold_init(topo_fold_t *f, int size, int rank)
{
    topo_fold_init_rooted(f, size, rank, -1);
}

void topo_fold_init_rooted(topo_fold_t *f, int size, int rank, int root)
{
    f->p2 = 1;
    while (f->p2 * 2 <= size) {
        f->p2 *= 2;
    }
    f->rem = size - f->p2;
    f->even = root >= 0 && root < 2 * f->rem && 0 == root % 2 ? root / 2 : -1;
    if (rank < 2 * f->rem) {
        f->newrank = rank == topo_fold_old(f, rank / 2) ? rank / 2 : -1;
    } else {
        f->newrank = rank - f->rem;
    }
}

int topo_fold_old(const topo_fold_t *f, int n)
{
    return n < f->rem ? (n == f->even ? 2 * n : 2 * n + 1) : n + f->rem;
}

void topo_fold_xfer(topo_sched_t *s, const topo_fold_t *f, int me, int partner, int in, int first,
                    int count)
{
    const int stays = topo_fold_old(f, me / 2) == me;
    if (stays != in) {
        topo_sched_send(s, partner, first, count);
    } else if (in) {
        topo_sched_recv(s, partner, (me ^ 1) < me ? TOPO_XFER_RECV_REDUCE : TOPO_XFER_RECV_REDUCE_POST,
                        first, count);
    } else {
        topo_sched_recv(s, partner, TOPO_XFER_RECV_COPY, first, count);
    }
}

void topo_fold_in(topo_sched_t *s, const topo_fold_t *f)
{
    if (f->rem > 0) {
        topo_sched_step(s);
        if (s->rank < 2 * f->rem) {
            topo_fold_xfer(s, f, s->rank, s->rank ^ 1, 1, 0, s->nblocks);
        }
    }
}

void topo_fold_out(topo_sched_t *s, const topo_fold_t *f)
{
    if (f->rem > 0) {
        topo_sched_step(s);
        if (s->rank < 2 * f->rem) {
            topo_fold_xfer(s, f, s->rank, s->rank ^ 1, 0, 0, s->nblocks);
        }
    }
}
