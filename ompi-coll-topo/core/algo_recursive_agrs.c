/*
 * Recursive-doubling allgather and recursive-halving reduce-scatter (seed
 * 001 App. B.4; digest 2.4, 2.8): log2 p steps with partner rank XOR 2^k,
 * payload doubling (allgather) or halving (reduce-scatter):
 * log2 p alpha + (p - 1) / p M / BW for p = 2^k.
 *
 * Any size by folding onto the largest power of two p2 (seed 001 B.3;
 * algo.h): new rank n stands for unit set U(n) = the blocks of the ranks it
 * represents, {2n, 2n + 1} for n < rem, else {n + rem}: one run of blocks
 * [start(n), start(n + 1)), in rank order.  Two more steps then: in
 * (allgather: the rank that sits out hands its block to its partner;
 * reduce-scatter: the whole vector, reduced by the partner) and out
 * (allgather: the partner returns every other block; reduce-scatter: the
 * partner returns the sitting-out rank's block, reduced).
 *
 * Allgather: at step k (k = 0 up) rank n holds the units of the aligned
 * group of 2^k new ranks around it -- one run of blocks -- and swaps it for
 * its partner's group.
 *
 * Reduce-scatter, order-preserving: distances from 1 up, as in the
 * Rabenseifner allreduce (algo_rabenseifner.c), so that every partial
 * covers an aligned group of consecutive new ranks (consecutive ranks),
 * the lower group combined first.  Instead of halving a contiguous range
 * (which would leave rank n with block bitreverse(n)), at step k a rank
 * keeps the units U(m) with m = n mod 2^(k+1) and sends those with
 * m = partner mod 2^(k+1): a strided set, so several ranges per message;
 * after the last step rank n keeps exactly U(n).  Non-commutative safe.
 */
#include "algo.h"

static int start(const topo_fold_t *f, int n)
{
    return n < f->rem ? 2 * n : n + f->rem;
}

/* Allgather folding: in, the rank that sits out hands its block to its
 * partner; out, the partner returns every other block. */
static void ag_fold_in(topo_sched_t *s, const topo_fold_t *f)
{
    const int r = s->rank;
    if (f->rem > 0) {
        topo_sched_step(s);
        if (r < 2 * f->rem) {
            if (r % 2) {
                topo_sched_recv(s, r - 1, TOPO_XFER_RECV_COPY, r - 1, 1);
            } else {
                topo_sched_send(s, r + 1, r, 1);
            }
        }
    }
}

static void ag_fold_out(topo_sched_t *s, const topo_fold_t *f)
{
    const int r = s->rank, p = s->size;
    if (f->rem > 0) {
        topo_sched_step(s);
        if (r < 2 * f->rem) {
            /* every block but the sitting-out rank's own: [0, e) and (e, p) */
            int e = r - r % 2;
            if (r % 2) {
                topo_sched_send(s, r - 1, 0, e);
            } else {
                topo_sched_recv(s, r + 1, TOPO_XFER_RECV_COPY, 0, e);
            }
            topo_sched_range(s, e + 1, p - e - 1);
        }
    }
}

int topo_gen_allgather_recursive_doubling(topo_sched_t *s, const topo_gen_args_t *a)
{
    const int p = a->size, r = a->rank;
    topo_fold_t f;
    topo_fold_init(&f, p, r);
    topo_sched_init(s, p, r, p);
    ag_fold_in(s, &f);
    const int K = topo_ceil_log2(f.p2), n = f.newrank;
    for (int k = 0; k < K; k++) {
        topo_sched_step(s);
        if (n < 0) {
            continue;
        }
        int mask = 1 << k, g = n & ~(mask - 1), pg = (n ^ mask) & ~(mask - 1);
        int peer = topo_fold_old(&f, n ^ mask);
        topo_sched_send(s, peer, start(&f, g), start(&f, g + mask) - start(&f, g));
        topo_sched_recv(s, peer, TOPO_XFER_RECV_COPY, start(&f, pg),
                        start(&f, pg + mask) - start(&f, pg));
    }
    ag_fold_out(s, &f);
    return topo_sched_finish(s);
}

/* Append U(m) for every m < p2 with m = want mod 2^(k+1). */
static void strided(topo_sched_t *s, const topo_fold_t *f, int k, int want)
{
    int period = 2 << k;
    for (int m = want % period; m < f->p2; m += period) {
        topo_sched_range(s, start(f, m), start(f, m + 1) - start(f, m));
    }
}

int topo_gen_reduce_scatter_recursive_halving(topo_sched_t *s, const topo_gen_args_t *a)
{
    const int p = a->size, r = a->rank;
    topo_fold_t f;
    topo_fold_init(&f, p, r);
    topo_sched_init(s, p, r, p);
    topo_fold_in(s, &f);
    const int K = topo_ceil_log2(f.p2), n = f.newrank;
    for (int k = 0; k < K; k++) {
        topo_sched_step(s);
        if (n < 0) {
            continue;
        }
        int mask = 1 << k, peer = topo_fold_old(&f, n ^ mask);
        topo_sched_send(s, peer, 0, 0);
        strided(s, &f, k, n ^ mask);
        topo_sched_recv(s, peer, (n & mask) ? TOPO_XFER_RECV_REDUCE : TOPO_XFER_RECV_REDUCE_POST, 0,
                        0);
        strided(s, &f, k, n);
    }
    if (f.rem > 0) {
        topo_sched_step(s);
        if (r < 2 * f.rem) {
            if (r % 2) {
                topo_sched_send(s, r - 1, r - 1, 1);
            } else {
                topo_sched_recv(s, r + 1, TOPO_XFER_RECV_COPY, r, 1);
            }
        }
    }
    return topo_sched_finish(s);
}

/*
 * PAT allgather (seed 001 App. A; cost-model digest 2.4, worked example
 * A18): the recursive-doubling exchange with the offsets in reverse order,
 * farthest first (N = 8: partners XOR 4, 2, 1; holdings 2, 4, 8 chunks), so
 * the small early messages travel far and the large late ones near -- the
 * time reverse of the recursive-halving reduce-scatter above: before the
 * step of bit k a rank holds U(m) for m = n mod 2^(k+1), and swaps them for
 * its partner's.  clog2(N) alpha + (N-1)/N M / BW for N = 2^k, any size by
 * folding.  The seed also says each pair exchanges "one selected chunk" of
 * constant size per round, which contradicts the doubling holdings and its
 * own (N-1)/N bandwidth term (digest errata 27); this follows the pairs,
 * holdings and cost it states.
 */
int topo_gen_allgather_pat(topo_sched_t *s, const topo_gen_args_t *a)
{
    const int p = a->size, r = a->rank;
    topo_fold_t f;
    topo_fold_init(&f, p, r);
    topo_sched_init(s, p, r, p);
    ag_fold_in(s, &f);
    const int K = topo_ceil_log2(f.p2), n = f.newrank;
    for (int k = K - 1; k >= 0; k--) {
        topo_sched_step(s);
        if (n < 0) {
            continue;
        }
        int mask = 1 << k, peer = topo_fold_old(&f, n ^ mask);
        topo_sched_send(s, peer, 0, 0);
        strided(s, &f, k, n);
        topo_sched_recv(s, peer, TOPO_XFER_RECV_COPY, 0, 0);
        strided(s, &f, k, n ^ mask);
    }
    ag_fold_out(s, &f);
    return topo_sched_finish(s);
}
