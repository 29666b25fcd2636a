/*
 * Folding any communicator size onto a power of two (see algo.h).
 */
#include "algo.h"

void topo_fold_init(topo_fold_t *f, int size, int rank)
{
    f->p2 = 1;
    while (f->p2 * 2 <= size) {
        f->p2 *= 2;
    }
    f->rem = size - f->p2;
    if (rank < 2 * f->rem) {
        f->newrank = (rank % 2) ? rank / 2 : -1;
    } else {
        f->newrank = rank - f->rem;
    }
}

int topo_fold_old(const topo_fold_t *f, int n)
{
    return n < f->rem ? 2 * n + 1 : n + f->rem;
}

void topo_fold_in(topo_sched_t *s, const topo_fold_t *f)
{
    if (0 == f->rem) {
        return;
    }
    topo_sched_step(s);
    if (s->rank < 2 * f->rem) {
        if (s->rank % 2) {
            topo_sched_recv(s, s->rank - 1, TOPO_XFER_RECV_REDUCE, 0, s->nblocks);
        } else {
            topo_sched_send(s, s->rank + 1, 0, s->nblocks);
        }
    }
}

void topo_fold_out(topo_sched_t *s, const topo_fold_t *f)
{
    if (0 == f->rem) {
        return;
    }
    topo_sched_step(s);
    if (s->rank < 2 * f->rem) {
        if (s->rank % 2) {
            topo_sched_send(s, s->rank - 1, 0, s->nblocks);
        } else {
            topo_sched_recv(s, s->rank + 1, TOPO_XFER_RECV_COPY, 0, s->nblocks);
        }
    }
}
