/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The recursive halving and doubling family on one port, any size by
 * folding onto the largest power of two p2 (algo.h; Lu 2026a App. B.3):
 * partners rank XOR 2^k in log2 p2 steps.
 *
 *  - allreduce recursive_doubling (Lu 2026a App. B.1): the whole vector
 *    every step;
 *  - allreduce rabenseifner (App. B.2): a reduce-scatter by recursive
 *    halving over p2 blocks, then an allgather by recursive doubling that
 *    retraces it;
 *  - reduce rabenseifner (App. B.2, B.4): the same halving, then a gather
 *    along the doubling steps toward the root only;
 *  - allgather recursive_doubling, reduce_scatter recursive_halving and
 *    allgather pat (App. B.4, App. A) on blocks owned by ranks.
 *
 * Order-preserving: every step runs from distance 1 upward (halving) or
 * retraces such a run, so every partial result covers an aligned group of
 * consecutive new ranks, i.e. consecutive communicator ranks, and the lower
 * group is combined first; both partners compute the same value, bitwise,
 * for any associative operation.
 */
#include "algo.h"

/* --- on p2 blocks: recursive doubling and Rabenseifner ------------------- */

int topo_gen_allreduce_recursive_doubling(topo_sched_t *s, const topo_gen_args_t *a)
{
    topo_fold_t f;
    topo_fold_init(&f, a->size, a->rank);
    topo_sched_init(s, a->size, a->rank, 1);
    topo_fold_in(s, &f);
    for (int mask = 1; mask < f.p2; mask <<= 1) {
        topo_sched_step(s);
        if (f.newrank < 0) {
            continue;
        }
        int peer = topo_fold_old(&f, f.newrank ^ mask);
        topo_sched_send(s, peer, 0, 1);
        topo_sched_recv(s, peer, (f.newrank & mask) ? TOPO_XFER_RECV_REDUCE
                                                    : TOPO_XFER_RECV_REDUCE_POST,
                        0, 1);
    }
    topo_fold_out(s, &f);
    return topo_sched_finish(s);
}

/*
 * Reduce-scatter by recursive halving over f->p2 blocks, from distance 1
 * up: at the step of distance 2^k a rank keeps the lower half of its block
 * range if bit k of its new rank is clear, else the upper half, so new
 * rank n ends owning block bitreverse(n).  lo[k], len[k]: the range held
 * before step k (lo[K], len[K]: at the end).  Returns K = log2 p2.
 */
static int halving(topo_sched_t *s, const topo_fold_t *f, int *lo, int *len)
{
    const int K = topo_ceil_log2(f->p2), n = f->newrank;
    lo[0] = 0;
    len[0] = f->p2;
    for (int k = 0; k < K; k++) {
        int mask = 1 << k, half = len[k] / 2, upper = n >= 0 && (n & mask);
        lo[k + 1] = upper ? lo[k] + half : lo[k];
        len[k + 1] = half;
        topo_sched_step(s);
        if (n < 0) {
            continue;
        }
        int peer = topo_fold_old(f, n ^ mask);
        topo_sched_send(s, peer, upper ? lo[k] : lo[k] + half, half);
        topo_sched_recv(s, peer, upper ? TOPO_XFER_RECV_REDUCE : TOPO_XFER_RECV_REDUCE_POST,
                        lo[k + 1], half);
    }
    return K;
}

/*
 * The halving's steps in reverse: at the step of distance 2^k a rank sends
 * the range it held after halving step k (now complete) and its partner
 * then holds the range it held before.  nroot < 0: every rank (allgather);
 * else only toward new rank nroot (gather): with u = n XOR nroot, the ranks
 * whose bits of u above k are clear and bit k is set send, their partners
 * receive.
 */
static void doubling(topo_sched_t *s, const topo_fold_t *f, const int *lo, const int *len,
                     int K, int nroot)
{
    const int n = f->newrank;
    for (int k = K - 1; k >= 0; k--) {
        topo_sched_step(s);
        int mask = 1 << k, u = n ^ nroot;
        if (n < 0 || (nroot >= 0 && (u >> (k + 1)) != 0)) {
            continue; /* sat out, or already sent its data on */
        }
        int peer = topo_fold_old(f, n ^ mask);
        if (nroot < 0 || (u & mask)) {
            topo_sched_send(s, peer, lo[k + 1], len[k + 1]);
        }
        if (nroot < 0 || !(u & mask)) {
            topo_sched_recv(s, peer, TOPO_XFER_RECV_COPY, (n & mask) ? lo[k] : lo[k] + len[k + 1],
                            len[k + 1]);
        }
    }
}

int topo_gen_allreduce_rabenseifner(topo_sched_t *s, const topo_gen_args_t *a)
{
    topo_fold_t f;
    int lo[32], len[32];
    topo_fold_init(&f, a->size, a->rank);
    topo_sched_init(s, a->size, a->rank, f.p2);
    topo_fold_in(s, &f);
    const int K = halving(s, &f, lo, len);
    doubling(s, &f, lo, len, K, -1);
    topo_fold_out(s, &f);
    return topo_sched_finish(s);
}

/* For p = 2^k: 2 log2 p alpha + 2 (p - 1) / p M / BW.  In the pair that
 * holds the root the root stays, so nothing goes back to it at the end. */
int topo_gen_reduce_rabenseifner(topo_sched_t *s, const topo_gen_args_t *a)
{
    topo_fold_t f, froot;
    int lo[32], len[32];
    topo_fold_init_rooted(&f, a->size, a->rank, a->root);
    topo_fold_init_rooted(&froot, a->size, a->root, a->root);
    topo_sched_init(s, a->size, a->rank, f.p2);
    topo_fold_in(s, &f);
    const int K = halving(s, &f, lo, len);
    doubling(s, &f, lo, len, K, froot.newrank);
    return topo_sched_finish(s);
}

/*
 * --- on blocks owned by ranks: allgather and reduce-scatter ---------------
 *
 * Log2 p2 steps, payload doubling (allgather) or halving (reduce-scatter):
 * log2 p alpha + (p - 1) / p M / BW for p = 2^k.  New rank n stands for
 * unit set U(n) = the blocks of the ranks it represents, {2n, 2n + 1} for
 * n < rem, else {n + rem}: one run of blocks [start(n), start(n + 1)), in
 * rank order.  Folding takes two more steps: in (allgather: the rank that
 * sits out hands its block to its partner; reduce-scatter: the whole
 * vector, reduced by the partner) and out (allgather: the partner returns
 * every other block; reduce-scatter: the partner returns the sitting-out
 * rank's block, reduced).
 *
 * Allgather: at step k (k = 0 up) rank n holds the units of the aligned
 * group of 2^k new ranks around it -- one run of blocks -- and swaps it for
 * its partner's group.
 *
 * Reduce-scatter: instead of halving a contiguous range (which would leave
 * rank n with block bitreverse(n)), at step k a rank keeps the units U(m)
 * with m = n mod 2^(k+1) and sends those with m = partner mod 2^(k+1): a
 * strided set, so several ranges per message; after the last step rank n
 * keeps exactly U(n).
 */

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

/* Append U(m) for every m < p2 with m = want mod 2^(k+1): two strided
 * runs, the units of two blocks (m < rem, at 2m) and those of one (at
 * m + rem). */
static void strided(topo_sched_t *s, const topo_fold_t *f, int k, int want)
{
    const int period = 2 << k, m0 = want % period;
    const int two = m0 < f->rem ? (f->rem - 1 - m0) / period + 1 : 0, m1 = m0 + two * period;
    topo_sched_ranges(s, start(f, m0), 2, 2 * period, two);
    if (m1 < f->p2) {
        topo_sched_ranges(s, start(f, m1), 1, period, (f->p2 - 1 - m1) / period + 1);
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
    if (f.rem > 0) { /* fold out: the sitting-out rank's block only */
        topo_sched_step(s);
        if (r < 2 * f.rem) {
            topo_fold_xfer(s, &f, r, r ^ 1, 0, r & ~1, 1);
        }
    }
    return topo_sched_finish(s);
}

/*
 * PAT allgather (Lu 2026a App. A, worked example A18): the
 * recursive-doubling exchange with the offsets in reverse order, farthest
 * first (N = 8: partners XOR 4, 2, 1; holdings 2, 4, 8 chunks), so the small
 * early messages travel far and the large late ones near -- the time
 * reverse of the recursive-halving reduce-scatter above: before the step of
 * bit k a rank holds U(m) for m = n mod 2^(k+1), and swaps them for its
 * partner's.  ceil(log2 N) alpha + (N-1)/N M / BW for N = 2^k, any size by
 * folding.  The text also says each pair exchanges "one selected chunk" of
 * constant size per round, which contradicts the doubling holdings and its
 * own (N-1)/N bandwidth term; this follows the pairs, holdings and cost it
 * states.
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
