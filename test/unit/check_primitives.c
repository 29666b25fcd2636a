/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests: the schedules of bcast, reduce, allgather, reduce-scatter and
 * alltoall (algo_binomial.c, algo_chain.c, algo_scatter_allgather.c,
 * algo_halving_doubling.c, algo_ring.c, algo_bruck_allgather.c,
 * algo_bruck_alltoall.c): every root through the verifier, step counts and
 * derived costs against the formulas of Lu 2026a, the Bruck
 * alltoall trace of worked example A24, and mutations the verifier must
 * reject.  Every size 1..130 at root 0 is check_algorithms.c's catalog
 * test. */
#include "catalog.h"
#include "cost.h"
#include "unit_common.h"
#include "verify.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static topo_topology_t star;

static void setup(void)
{
    star = ut_topo("star");
}

/* All ranks' schedules of (prim, name) on p ranks for `root`. */
static topo_sched_t *gen_all(topo_prim_t prim, const char *name, int p, int root)
{
    return ut_gen_all(prim, name, p, root, &star);
}

static int depth(topo_prim_t prim, const char *name, int p, int root)
{
    topo_sched_t *sc = gen_all(prim, name, p, root);
    int d = topo_sched_depth(&sc[0]);
    for (int r = 1; r < p; r++) {
        ck_assert_int_eq(topo_sched_depth(&sc[r]), d);
    }
    ut_free_all(sc, p);
    return d;
}

/* --- every root ----------------------------------------------------------- */

static const struct {
    topo_prim_t prim;
    const char *name;
} rooted[] = {
    {TOPO_PRIM_BCAST, "binomial"},          {TOPO_PRIM_BCAST, "pipelined_chain"},
    {TOPO_PRIM_BCAST, "scatter_allgather"}, {TOPO_PRIM_REDUCE, "binomial"},
    {TOPO_PRIM_REDUCE, "pipelined_chain"},  {TOPO_PRIM_REDUCE, "rabenseifner"},
    {TOPO_PRIM_BCAST, "knomial"},           {TOPO_PRIM_REDUCE, "knomial"},
};
#define NROOTED ((int)(sizeof(rooted) / sizeof(rooted[0])))

/* Loop index: one rooted algorithm, every size 1..33, every root.  The
 * reduce rows are order-preserving, so topo_verify_algo runs the verifier's
 * ordered mode: the root ends with every contribution in rank order. */
START_TEST(test_every_root)
{
    const topo_algo_t *al = ut_algo(rooted[_i].prim, rooted[_i].name);
    ck_assert(!(al->flags & TOPO_ALG_COMMUTATIVE));
    for (int p = 1; p <= 33; p++) {
        for (int root = 0; root < p; root++) {
            topo_gen_args_t a = {al->prim, p, 0, root, &star};
            char msg[512] = "";
            ck_assert_int_eq(topo_algo_fits(al, &a, TOPO_OP_ORDERED, msg, sizeof(msg)), 1);
            int rc = topo_verify_algo(al, &a, msg, sizeof(msg));
            ck_assert_msg(rc == TOPO_OK, "%s %s p=%d root=%d: %s", topo_prim_name(al->prim),
                          al->name, p, root, msg);
        }
    }
}
END_TEST

/* The order-preserving rows of the unrooted primitives, and the ring
 * reduce-scatter, which is not (and says so). */
START_TEST(test_order)
{
    char msg[512];
    ck_assert(
        !(ut_algo(TOPO_PRIM_REDUCE_SCATTER, "recursive_halving")->flags & TOPO_ALG_COMMUTATIVE));
    ck_assert(ut_algo(TOPO_PRIM_REDUCE_SCATTER, "ring")->flags & TOPO_ALG_COMMUTATIVE);
    for (int p = 1; p <= 40; p++) {
        topo_sched_t *sc = gen_all(TOPO_PRIM_REDUCE_SCATTER, "recursive_halving", p, 0);
        ck_assert_msg(topo_verify(sc, p, TOPO_PRIM_REDUCE_SCATTER, 0, 1, msg, sizeof(msg)) ==
                          TOPO_OK,
                      "p=%d: %s", p, msg);
        ut_free_all(sc, p);
    }
    topo_sched_t *sc = gen_all(TOPO_PRIM_REDUCE_SCATTER, "ring", 5, 0);
    ck_assert_int_eq(topo_verify(sc, 5, TOPO_PRIM_REDUCE_SCATTER, 0, 0, msg, sizeof(msg)), TOPO_OK);
    ck_assert_int_eq(topo_verify(sc, 5, TOPO_PRIM_REDUCE_SCATTER, 0, 1, msg, sizeof(msg)),
                     TOPO_EINVAL);
    ck_assert_ptr_nonnull(strstr(msg, "rank order"));
    ut_free_all(sc, 5);
}
END_TEST

/* --- step counts ---------------------------------------------------------- */

START_TEST(test_step_counts)
{
    for (int p = 1; p <= 70; p++) {
        const int L = ut_clog2(p), K = ut_flog2(p), fold = (1 << K) != p;
        const int roots[] = {0, p / 3, p - 1};
        for (int i = 0; i < 3; i++) {
            int root = roots[i];
            /* binomial: ceil(log2 p) (sec. 3.2, 4.2) */
            ck_assert_int_eq(depth(TOPO_PRIM_BCAST, "binomial", p, root), L);
            ck_assert_int_eq(depth(TOPO_PRIM_REDUCE, "binomial", p, root), L);
            /* k-nomial, radix 4: ceil(log4 p) */
            ck_assert_int_eq(depth(TOPO_PRIM_BCAST, "knomial", p, root), (L + 1) / 2);
            ck_assert_int_eq(depth(TOPO_PRIM_REDUCE, "knomial", p, root), (L + 1) / 2);
            /* chain: N + P - 2 with P = 8 (sec. 3.1, 8.1 item 2); the reduce
             * chains run from both ends toward the root */
            ck_assert_int_eq(depth(TOPO_PRIM_BCAST, "pipelined_chain", p, root),
                             p > 1 ? p + 8 - 2 : 0);
            int far = root > p - 1 - root ? root : p - 1 - root;
            ck_assert_int_eq(depth(TOPO_PRIM_REDUCE, "pipelined_chain", p, root),
                             p > 1 ? far + 8 - 1 : 0);
            /* scatter + allgather: ceil(log2 p) + p - 1 */
            ck_assert_int_eq(depth(TOPO_PRIM_BCAST, "scatter_allgather", p, root), L + p - 1);
            /* halving + gather, + 1 folding step */
            ck_assert_int_eq(depth(TOPO_PRIM_REDUCE, "rabenseifner", p, root), 2 * K + fold);
        }
        /* ring AG / RS: p - 1 (sec. 6) */
        ck_assert_int_eq(depth(TOPO_PRIM_ALLGATHER, "ring", p, 0), p - 1);
        ck_assert_int_eq(depth(TOPO_PRIM_REDUCE_SCATTER, "ring", p, 0), p - 1);
        /* recursive doubling / halving: log2 p (B.4), + 2 folding steps */
        ck_assert_int_eq(depth(TOPO_PRIM_ALLGATHER, "recursive_doubling", p, 0), K + 2 * fold);
        ck_assert_int_eq(depth(TOPO_PRIM_REDUCE_SCATTER, "recursive_halving", p, 0), K + 2 * fold);
        /* Bruck: ceil(log2 p) for any p (B.5; 8.1 item 1); one rank still
         * copies its own block */
        ck_assert_int_eq(depth(TOPO_PRIM_ALLGATHER, "bruck", p, 0), L);
        ck_assert_int_eq(depth(TOPO_PRIM_ALLTOALL, "bruck", p, 0), p > 1 ? L : 1);
    }
}
END_TEST

/* --- Bruck alltoall, worked example A24 ---------------------------------- */

/* Concrete execution of block moves: state[r * nb + b] is the label of the
 * data in block b of rank r (src * 100 + dst for alltoall), -1 for none.
 * Sends read the state at the start of the step; receives and copies are
 * applied in transfer order; the k-th receive from a peer matches the
 * peer's k-th send to this rank. */
static int nth(const topo_sched_t *s, int r0, int nr, int i)
{
    for (int k = 0; k < nr; k++) {
        const topo_range_t *rg = &s->ranges[r0 + k];
        if (i < rg->count) {
            return rg->first + i;
        }
        i -= rg->count;
    }
    ck_abort_msg("block %d beyond the ranges", i);
    return -1;
}

static void run_step(const topo_sched_t *sc, int p, int step, int *state)
{
    const int nb = sc[0].nblocks;
    int *old = malloc(sizeof(int) * (size_t)(p * nb));
    memcpy(old, state, sizeof(int) * (size_t)(p * nb));
    for (int r = 0; r < p; r++) {
        const topo_step_t *st = topo_sched_explicit_step(&sc[r], 0, step);
        for (int i = 0; i < st->nxfers; i++) {
            const topo_xfer_t *x = &sc[r].xfers[st->xfer0 + i];
            if (x->kind == TOPO_XFER_SEND) {
                continue;
            }
            ck_assert_int_ne(x->kind, TOPO_XFER_RECV_REDUCE);
            ck_assert_int_ne(x->kind, TOPO_XFER_RECV_REDUCE_POST);
            const topo_sched_t *from = &sc[r];
            int r0 = x->src0, nr = x->nsrc;
            if (x->kind != TOPO_XFER_COPY) {
                int k = 0;
                for (int j = 0; j < i; j++) {
                    const topo_xfer_t *y = &sc[r].xfers[st->xfer0 + j];
                    k += y->peer == x->peer && y->kind != TOPO_XFER_SEND &&
                         y->kind != TOPO_XFER_COPY;
                }
                from = &sc[x->peer];
                const topo_step_t *ps = topo_sched_explicit_step(from, 0, step);
                const topo_xfer_t *y = NULL;
                for (int j = 0; j < ps->nxfers && !y; j++) {
                    const topo_xfer_t *c = &from->xfers[ps->xfer0 + j];
                    if (c->kind == TOPO_XFER_SEND && c->peer == r && 0 == k--) {
                        y = c;
                    }
                }
                ck_assert_ptr_nonnull(y);
                ck_assert_int_eq(y->nblk, x->nblk);
                r0 = y->range0;
                nr = y->nranges;
            }
            for (int j = 0; j < x->nblk; j++) {
                int v = (x->kind == TOPO_XFER_COPY ? state
                                                   : old)[from->rank * nb + nth(from, r0, nr, j)];
                state[r * nb + nth(&sc[r], x->range0, x->nranges, j)] = v;
            }
        }
    }
    free(old);
}

static int high_bit(int j)
{
    return ut_flog2(j);
}

/* Where slot j of rank i lives after `rounds` rounds (the generator's
 * addressing, algo_bruck_alltoall.c): send block (i + j) mod p until the
 * round of j's highest bit, then output block p + (i - j) mod p. */
static int slot_block(int p, int i, int j, int rounds)
{
    return j > 0 && high_bit(j) < rounds ? p + (i - j + p) % p : (i + j) % p;
}

/* "00 30 02 32": v00 v30 v02 v32 as labels src * 100 + dst */
static void expect_slots(const int *state, int nb, int p, int i, int rounds, const char *want)
{
    for (int j = 0; j < p; j++) {
        int src = want[3 * j] - '0', dst = want[3 * j + 1] - '0';
        int got = state[i * nb + slot_block(p, i, j, rounds)];
        ck_assert_msg(got == src * 100 + dst, "rank %d slot %d after %d rounds: v%d%d, want %s", i,
                      j, rounds, got / 100, got % 100, want);
    }
}

START_TEST(test_bruck_alltoall_a24)
{
    const int p = 4;
    topo_sched_t *sc = gen_all(TOPO_PRIM_ALLTOALL, "bruck", p, 0);
    const int nb = sc[0].nblocks;
    ck_assert_int_eq(nb, 2 * p); /* no scratch blocks */
    ck_assert(sc[0].uniform);
    ck_assert_int_eq(topo_sched_depth(&sc[0]), 2);
    int *state = malloc(sizeof(int) * (size_t)(p * nb));
    for (int i = 0; i < p; i++) {
        for (int b = 0; b < nb; b++) {
            state[i * nb + b] = b < p ? i * 100 + b : -1;
        }
    }
    /* A24 pre-rotation: rank i shifts left by i */
    static const char *pre[4] = {"00 01 02 03", "11 12 13 10", "22 23 20 21", "33 30 31 32"};
    static const char *r0[4] = {"00 30 02 32", "11 01 13 03", "22 12 20 10", "33 23 31 21"};
    static const char *r1[4] = {"00 30 20 10", "11 01 31 21", "22 12 02 32", "33 23 13 03"};
    for (int i = 0; i < p; i++) {
        expect_slots(state, nb, p, i, 0, pre[i]);
    }
    /* round 0: partner i + 1, slots 1 and 3 */
    for (int i = 0; i < p; i++) {
        const topo_step_t *st = topo_sched_explicit_step(&sc[i], 0, 0);
        int sends = 0;
        for (int x = 0; x < st->nxfers; x++) {
            const topo_xfer_t *t = &sc[i].xfers[st->xfer0 + x];
            if (t->kind == TOPO_XFER_SEND) {
                ck_assert_int_eq(t->peer, (i + 1) % p);
                ck_assert_int_eq(t->nblk, 2); /* M/2 */
                sends++;
            }
        }
        ck_assert_int_eq(sends, 1);
    }
    run_step(sc, p, 0, state);
    for (int i = 0; i < p; i++) {
        expect_slots(state, nb, p, i, 1, r0[i]);
    }
    /* round 1: partner i + 2, slots 2 and 3 */
    run_step(sc, p, 1, state);
    for (int i = 0; i < p; i++) {
        expect_slots(state, nb, p, i, 2, r1[i]);
    }
    /* final (MPI layout): R_j output slot i holds v_ij */
    for (int j = 0; j < p; j++) {
        for (int i = 0; i < p; i++) {
            ck_assert_int_eq(state[j * nb + p + i], i * 100 + j);
        }
    }
    free(state);
    ut_free_all(sc, p);
}
END_TEST

/* The same concrete execution for every size 1..40: every rank's output
 * region ends as the transpose. */
START_TEST(test_bruck_alltoall_concrete)
{
    for (int p = 1; p <= 40; p++) {
        topo_sched_t *sc = gen_all(TOPO_PRIM_ALLTOALL, "bruck", p, 0);
        const int nb = sc[0].nblocks;
        int *state = malloc(sizeof(int) * (size_t)(p * nb));
        for (int i = 0; i < p; i++) {
            for (int b = 0; b < nb; b++) {
                state[i * nb + b] = b < p ? i * 100 + b : -1;
            }
        }
        for (int st = 0; st < topo_sched_depth(&sc[0]); st++) {
            run_step(sc, p, st, state);
        }
        for (int j = 0; j < p; j++) {
            for (int i = 0; i < p; i++) {
                ck_assert_int_eq(state[j * nb + p + i], i * 100 + j);
            }
        }
        free(state);
        ut_free_all(sc, p);
    }
}
END_TEST

/* --- derived costs vs closed forms ---------------------------------------- */

static void affine(topo_prim_t prim, const char *name, int p, int root, double *lat, double *bw)
{
    ut_affine(prim, name, p, root, &star, NULL, lat, bw);
}

/* (prim, name) on p ranks of the star for `root` costs lat alpha + bw M/BW. */
static void expect(topo_prim_t prim, const char *name, int p, int root, double lat, double bw)
{
    ut_expect_affine(prim, name, p, root, &star, NULL, lat, bw);
}

START_TEST(test_worked_examples)
{
    /* A2: binomial BC, N = 4: 2 alpha + 2 M/BW; A6: binomial reduce */
    expect(TOPO_PRIM_BCAST, "binomial", 4, 0, 2.0, 2.0);
    expect(TOPO_PRIM_REDUCE, "binomial", 4, 0, 2.0, 2.0);
    /* A23: recursive-doubling AG, N = 4: 2 alpha + 0.75 M/BW */
    expect(TOPO_PRIM_ALLGATHER, "recursive_doubling", 4, 0, 2.0, 0.75);
    /* A7 (the halves of ring AR): 3 alpha + 3/4 M/BW each */
    expect(TOPO_PRIM_ALLGATHER, "ring", 4, 0, 3.0, 0.75);
    expect(TOPO_PRIM_REDUCE_SCATTER, "ring", 4, 0, 3.0, 0.75);
    /* A18 (PAT's stated cost, which the Bruck allgather attains): N = 8:
     * 3 alpha + 0.875 M/BW */
    expect(TOPO_PRIM_ALLGATHER, "bruck", 8, 0, 3.0, 0.875);
    expect(TOPO_PRIM_ALLGATHER, "pat", 8, 0, 3.0, 0.875);
}
END_TEST

/* A18, PAT at N = 8: rounds with partners XOR 4, 2, 1 (pairs (R0,R4),
 * (R1,R5), ...; (R0,R2), ...; (R0,R1), ...) and holdings 2, 4, 8 chunks:
 * messages of 1, 2, 4 chunks. */
START_TEST(test_pat_a18)
{
    topo_sched_t *sc = ut_gen_all(TOPO_PRIM_ALLGATHER, "pat", 8, 0, &star);
    for (int r = 0; r < 8; r++) {
        ck_assert_int_eq(topo_sched_depth(&sc[r]), 3);
        for (int k = 0; k < 3; k++) {
            const topo_step_t *st = topo_sched_explicit_step(&sc[r], 0, k);
            ck_assert_int_eq(st->nxfers, 2);
            for (int i = 0; i < 2; i++) {
                const topo_xfer_t *x = &sc[r].xfers[st->xfer0 + i];
                ck_assert_int_eq(x->peer, r ^ (4 >> k));
                ck_assert_int_eq(x->nblk, 1 << k);
            }
        }
    }
    ut_free_all(sc, 8);
}
END_TEST

START_TEST(test_closed_forms)
{
    for (int p = 2; p <= 48; p++) {
        const double L = ut_clog2(p), N = p, pow2 = (1 << ut_flog2(p)) == p;
        for (int root = 0; root < p; root += (p > 8 ? p / 4 : 1)) {
            /* binomial BC / reduce, P = 1: ceil(log2 N)(alpha + M/BW) (2.1, 2.2) */
            expect(TOPO_PRIM_BCAST, "binomial", p, root, L, L);
            expect(TOPO_PRIM_REDUCE, "binomial", p, root, L, L);
            /* k-nomial BC / reduce, radix 4, P = 1: the step of mask m = 4^s
             * moves min(3, ceil(N/m) - 1) whole vectors through the busiest
             * rank's port: sum over steps of alpha + that many M/BW */
            double klat = 0, kbw = 0;
            for (int m = 1; m < p; m *= 4) {
                int c = (p + m - 1) / m - 1;
                klat += 1;
                kbw += c < 3 ? c : 3;
            }
            expect(TOPO_PRIM_BCAST, "knomial", p, root, klat, kbw);
            expect(TOPO_PRIM_REDUCE, "knomial", p, root, klat, kbw);
            /* ring BC, finite P = 8: (N + P - 2)(alpha + M/(P BW)) (2.1) */
            expect(TOPO_PRIM_BCAST, "pipelined_chain", p, root, N + 6, (N + 6) / 8);
        }
        /* ring reduce, finite P = 8, root at an end: one chain (2.2) */
        expect(TOPO_PRIM_REDUCE, "pipelined_chain", p, 0, N + 6, (N + 6) / 8);
        expect(TOPO_PRIM_REDUCE, "pipelined_chain", p, p - 1, N + 6, (N + 6) / 8);
        /* ring AG / RS: (N-1) alpha + (N-1)/N M/BW, exact (2.4) */
        expect(TOPO_PRIM_ALLGATHER, "ring", p, 0, N - 1, (N - 1) / N);
        expect(TOPO_PRIM_REDUCE_SCATTER, "ring", p, 0, N - 1, (N - 1) / N);
        /* Bruck AG: ceil(log2 N) alpha + (N-1)/N M/BW for any N */
        expect(TOPO_PRIM_ALLGATHER, "bruck", p, 0, L, (N - 1) / N);
        if (pow2) {
            /* rec-doubling AG / rec-halving RS: log2 N alpha + (N-1)/N M/BW
             * (2.4, B.4) */
            expect(TOPO_PRIM_ALLGATHER, "recursive_doubling", p, 0, L, (N - 1) / N);
            expect(TOPO_PRIM_REDUCE_SCATTER, "recursive_halving", p, 0, L, (N - 1) / N);
            /* scatter + allgather BC: (log2 N + N - 1) alpha + 2(N-1)/N M/BW;
             * Rabenseifner reduce: 2 log2 N alpha + 2(N-1)/N M/BW */
            for (int root = 0; root < p; root += (p > 8 ? p / 4 : 1)) {
                expect(TOPO_PRIM_BCAST, "scatter_allgather", p, root, L + N - 1, 2 * (N - 1) / N);
                expect(TOPO_PRIM_REDUCE, "rabenseifner", p, root, 2 * L, 2 * (N - 1) / N);
            }
        }
    }
}
END_TEST

/* Bruck alltoall: ceil(log2 N) alpha + ceil(log2 N) M/(2 BW) for N = 2^k
 * (2.5, B.5).  The bandwidth term is compared with pairwise's (N-1)/N
 * M/BW priced the same way, so the check does not depend on how the cost
 * model maps alltoall blocks to M (it prices a block at M / nblocks, and an
 * alltoall schedule has 2N blocks: see the report).  At N = 4: 2 alpha +
 * M/BW against pairwise's 3/4 M/BW (A24). */
START_TEST(test_bruck_alltoall_cost)
{
    double lat, bw, plat, pbw;
    for (int p = 2; p <= 64; p++) {
        const double L = ut_clog2(p), N = p;
        affine(TOPO_PRIM_ALLTOALL, "bruck", p, 0, &lat, &bw);
        affine(TOPO_PRIM_ALLTOALL, "pairwise", p, 0, &plat, &pbw);
        ut_assert_near(lat, L); /* the own-block copy rides in round 0 */
        /* slots moved: sum over rounds k of #{0 < j < N : bit k of j} */
        double moved = 0;
        for (int k = 0; (1 << k) < p; k++) {
            for (int j = 1; j < p; j++) {
                moved += (j >> k) & 1;
            }
        }
        ut_assert_near(bw / pbw, moved / (N - 1));
        if ((1 << ut_flog2(p)) == p) {
            ut_assert_near(bw / pbw, (L / 2) / ((N - 1) / N));
        }
    }
    affine(TOPO_PRIM_ALLTOALL, "bruck", 4, 0, &lat, &bw);
    affine(TOPO_PRIM_ALLTOALL, "pairwise", 4, 0, &plat, &pbw);
    ut_assert_near(lat, 2.0);
    ut_assert_near(bw / pbw, 1.0 / 0.75);
}
END_TEST

/* --- mutations the verifier must reject ---------------------------------- */

static topo_xfer_t *find_xfer(topo_sched_t *s, int step, int kind)
{
    const topo_step_t *st = topo_sched_explicit_step(s, 0, step);
    for (int i = 0; i < st->nxfers; i++) {
        if (s->xfers[st->xfer0 + i].kind == kind) {
            return &s->xfers[st->xfer0 + i];
        }
    }
    return NULL;
}

START_TEST(test_mutation_bcast)
{
    char msg[512];
    const int p = 5;
    /* chain: rank 3 forwards block 0 at step 3 (received at step 2) while
     * block 1 arrives; make it forward block 1 (and rank 4 expect it) */
    topo_sched_t *sc = gen_all(TOPO_PRIM_BCAST, "pipelined_chain", p, 0);
    ck_assert_int_eq(topo_verify(sc, p, TOPO_PRIM_BCAST, 0, 0, msg, sizeof(msg)), TOPO_OK);
    topo_xfer_t *snd = find_xfer(&sc[3], 3, TOPO_XFER_SEND);
    topo_xfer_t *rcv = find_xfer(&sc[4], 3, TOPO_XFER_RECV_COPY);
    ck_assert(snd && rcv);
    ck_assert_int_eq(sc[3].ranges[snd->range0].first, 0);
    sc[3].ranges[snd->range0].first = 1;
    sc[4].ranges[rcv->range0].first = 1;
    ck_assert_int_eq(topo_verify(sc, p, TOPO_PRIM_BCAST, 0, 0, msg, sizeof(msg)), TOPO_EINVAL);
    ck_assert_ptr_nonnull(strstr(msg, "before holding"));
    ut_free_all(sc, p);
    /* binomial from root 2 is not a broadcast from root 0 */
    sc = gen_all(TOPO_PRIM_BCAST, "binomial", p, 2);
    ck_assert_int_eq(topo_verify(sc, p, TOPO_PRIM_BCAST, 2, 0, msg, sizeof(msg)), TOPO_OK);
    ck_assert_int_eq(topo_verify(sc, p, TOPO_PRIM_BCAST, 0, 0, msg, sizeof(msg)), TOPO_EINVAL);
    ut_free_all(sc, p);
    /* scatter-allgather with the ring message into rank 1 dropped at the
     * last step: rank 1 misses a block */
    sc = gen_all(TOPO_PRIM_BCAST, "scatter_allgather", p, 0);
    int last = topo_sched_depth(&sc[0]) - 1;
    topo_xfer_t *x0 = find_xfer(&sc[0], last, TOPO_XFER_SEND);
    topo_xfer_t *x1 = find_xfer(&sc[1], last, TOPO_XFER_RECV_COPY);
    ck_assert(x0 && x1);
    topo_step_t *st0 = &sc[0].steps[sc[0].lanes[0].step0 + last];
    topo_step_t *st1 = &sc[1].steps[sc[1].lanes[0].step0 + last];
    ck_assert_int_eq(st0->nxfers, 1); /* the root only sends */
    ck_assert_ptr_eq(&sc[1].xfers[st1->xfer0 + st1->nxfers - 1], x1);
    st0->nxfers--;
    st1->nxfers--; /* rank 1 still forwards, but receives nothing */
    ck_assert_int_eq(topo_verify(sc, p, TOPO_PRIM_BCAST, 0, 0, msg, sizeof(msg)), TOPO_EINVAL);
    ck_assert_ptr_nonnull(strstr(msg, "without the data"));
    ut_free_all(sc, p);
}
END_TEST

START_TEST(test_mutation_reduce)
{
    char msg[512];
    const int p = 8;
    /* binomial reduce to root 5: put a partial on the wrong side */
    topo_sched_t *sc = gen_all(TOPO_PRIM_REDUCE, "binomial", p, 5);
    ck_assert_int_eq(topo_verify(sc, p, TOPO_PRIM_REDUCE, 5, 1, msg, sizeof(msg)), TOPO_OK);
    ck_assert(ut_retype_first(&sc[5], TOPO_XFER_RECV_REDUCE, TOPO_XFER_RECV_REDUCE_POST));
    ck_assert_int_eq(topo_verify(sc, p, TOPO_PRIM_REDUCE, 5, 0, msg, sizeof(msg)), TOPO_OK);
    ck_assert_int_eq(topo_verify(sc, p, TOPO_PRIM_REDUCE, 5, 1, msg, sizeof(msg)), TOPO_EINVAL);
    ck_assert_ptr_nonnull(strstr(msg, "rank order"));
    /* ... and it is not a reduce to another root */
    ut_free_all(sc, p);
    sc = gen_all(TOPO_PRIM_REDUCE, "binomial", p, 5);
    ck_assert_int_eq(topo_verify(sc, p, TOPO_PRIM_REDUCE, 4, 0, msg, sizeof(msg)), TOPO_EINVAL);
    ut_free_all(sc, p);
    /* Rabenseifner reduce, 6 ranks, root 2: a gather receive turned into a
     * reduction counts the root's own partial twice */
    sc = gen_all(TOPO_PRIM_REDUCE, "rabenseifner", 6, 2);
    ck_assert_int_eq(topo_verify(sc, 6, TOPO_PRIM_REDUCE, 2, 1, msg, sizeof(msg)), TOPO_OK);
    topo_xfer_t *g = find_xfer(&sc[2], topo_sched_depth(&sc[2]) - 1, TOPO_XFER_RECV_COPY);
    ck_assert_ptr_nonnull(g);
    g->kind = TOPO_XFER_RECV_REDUCE;
    ck_assert_int_eq(topo_verify(sc, 6, TOPO_PRIM_REDUCE, 2, 0, msg, sizeof(msg)), TOPO_EINVAL);
    ck_assert_ptr_nonnull(strstr(msg, "twice"));
    ut_free_all(sc, 6);
}
END_TEST

START_TEST(test_mutation_allgather)
{
    char msg[512];
    const int p = 6;
    /* Bruck: rank 0's last receive stored one block off, consistently on
     * both ends: block 5 never reaches rank 0 */
    topo_sched_t *sc = gen_all(TOPO_PRIM_ALLGATHER, "bruck", p, 0);
    ck_assert_int_eq(topo_verify(sc, p, TOPO_PRIM_ALLGATHER, 0, 0, msg, sizeof(msg)), TOPO_OK);
    int last = topo_sched_depth(&sc[0]) - 1;
    topo_xfer_t *rcv = find_xfer(&sc[0], last, TOPO_XFER_RECV_COPY);
    ck_assert_ptr_nonnull(rcv);
    rcv->peer = (rcv->peer + 1) % p; /* receive from the wrong rank */
    ck_assert_int_eq(topo_verify(sc, p, TOPO_PRIM_ALLGATHER, 0, 0, msg, sizeof(msg)), TOPO_EINVAL);
    ut_free_all(sc, p);
    /* recursive doubling without its fold-out step: the ranks that sat
     * out miss everything but their own block */
    sc = gen_all(TOPO_PRIM_ALLGATHER, "recursive_doubling", p, 0);
    for (int r = 0; r < p; r++) {
        sc[r].lanes[0].nsteps--;
    }
    ck_assert_int_eq(topo_verify(sc, p, TOPO_PRIM_ALLGATHER, 0, 0, msg, sizeof(msg)), TOPO_EINVAL);
    ck_assert_ptr_nonnull(strstr(msg, "without the data"));
    ut_free_all(sc, p);
}
END_TEST

START_TEST(test_mutation_reduce_scatter)
{
    char msg[512];
    const int p = 6;
    /* recursive halving, one combination on the wrong side */
    topo_sched_t *sc = gen_all(TOPO_PRIM_REDUCE_SCATTER, "recursive_halving", p, 0);
    ck_assert(ut_retype_first(&sc[3], TOPO_XFER_RECV_REDUCE_POST, TOPO_XFER_RECV_REDUCE));
    ck_assert_int_eq(topo_verify(sc, p, TOPO_PRIM_REDUCE_SCATTER, 0, 1, msg, sizeof(msg)),
                     TOPO_EINVAL);
    ut_free_all(sc, p);
    /* ring one step short: every rank's own block misses a contribution */
    sc = gen_all(TOPO_PRIM_REDUCE_SCATTER, "ring", p, 0);
    for (int r = 0; r < p; r++) {
        sc[r].lanes[0].nsteps--;
    }
    ck_assert_int_eq(topo_verify(sc, p, TOPO_PRIM_REDUCE_SCATTER, 0, 0, msg, sizeof(msg)),
                     TOPO_EINVAL);
    ck_assert_ptr_nonnull(strstr(msg, "contributions"));
    ut_free_all(sc, p);
}
END_TEST

START_TEST(test_mutation_alltoall)
{
    char msg[512];
    const int p = 5;
    topo_sched_t *sc = gen_all(TOPO_PRIM_ALLTOALL, "bruck", p, 0);
    ck_assert_int_eq(topo_verify(sc, p, TOPO_PRIM_ALLTOALL, 0, 0, msg, sizeof(msg)), TOPO_OK);
    /* rank 2's round-0 receive with its two slots swapped (wire order) */
    topo_xfer_t *rcv = find_xfer(&sc[2], 0, TOPO_XFER_RECV_COPY);
    ck_assert_ptr_nonnull(rcv);
    ck_assert_int_eq(rcv->nranges, 2);
    topo_range_t t = sc[2].ranges[rcv->range0];
    sc[2].ranges[rcv->range0] = sc[2].ranges[rcv->range0 + 1];
    sc[2].ranges[rcv->range0 + 1] = t;
    ck_assert_int_eq(topo_verify(sc, p, TOPO_PRIM_ALLTOALL, 0, 0, msg, sizeof(msg)), TOPO_EINVAL);
    ut_free_all(sc, p);
    /* without its own-block copy, rank 0 never delivers to itself */
    sc = gen_all(TOPO_PRIM_ALLTOALL, "bruck", p, 0);
    topo_xfer_t *cp = find_xfer(&sc[0], 0, TOPO_XFER_COPY);
    ck_assert_ptr_nonnull(cp);
    cp->nblk = 0;
    cp->nsrc = 0;
    cp->nranges = 0;
    ck_assert_int_eq(topo_verify(sc, p, TOPO_PRIM_ALLTOALL, 0, 0, msg, sizeof(msg)), TOPO_EINVAL);
    ck_assert_ptr_nonnull(strstr(msg, "rank 0 block 5"));
    ut_free_all(sc, p);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("primitives");
    TCase *tc = ut_tcase(s, "schedules", 120);
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_add_loop_test(tc, test_every_root, 0, NROOTED);
    tcase_add_test(tc, test_order);
    tcase_add_test(tc, test_step_counts);
    tcase_add_test(tc, test_bruck_alltoall_a24);
    tcase_add_test(tc, test_bruck_alltoall_concrete);
    tcase_add_test(tc, test_worked_examples);
    tcase_add_test(tc, test_pat_a18);
    tcase_add_test(tc, test_closed_forms);
    tcase_add_test(tc, test_bruck_alltoall_cost);
    tcase_add_test(tc, test_mutation_bcast);
    tcase_add_test(tc, test_mutation_reduce);
    tcase_add_test(tc, test_mutation_allgather);
    tcase_add_test(tc, test_mutation_reduce_scatter);
    tcase_add_test(tc, test_mutation_alltoall);
    return ut_run_suite(s);
}
