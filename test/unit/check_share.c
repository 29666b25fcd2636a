/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests: the decision table priced by the ranks together
 * (core/share.c): the assignment, the serialization of a price, the
 * rounds, and the claim that the table is the single process's. */
#include "share.h"
#include "unit_common.h"

#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* --- the assignment ------------------------------------------------------ */

static void check_assignment(const size_t *work, int n, int nranks)
{
    int *owner = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    int *again = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    ck_assert_ptr_nonnull(owner);
    ck_assert_ptr_nonnull(again);
    ck_assert_int_eq(topo_share_assign(work, n, nranks, owner), TOPO_OK);
    ck_assert_int_eq(topo_share_assign(work, n, nranks, again), TOPO_OK);
    /* deterministic: every rank computes the same */
    ck_assert_int_eq(0 == n || 0 == memcmp(owner, again, sizeof(int) * (size_t)n), 1);
    const int m = nranks < n ? nranks : n;
    double *load = calloc((size_t)(m > 0 ? m : 1), sizeof(double));
    ck_assert_ptr_nonnull(load);
    double total = 0.0, heaviest = 0.0;
    for (int i = 0; i < n; i++) {
        /* every job exactly once, on one of the ranks (the first m: more
         * ranks than jobs leave the rest idle) */
        ck_assert_int_ge(owner[i], 0);
        ck_assert_int_lt(owner[i], m);
        load[owner[i]] += (double)work[i];
        total += (double)work[i];
        heaviest = heaviest > (double)work[i] ? heaviest : (double)work[i];
    }
    for (int r = 0; r < m; r++) {
        /* balanced: the greedy's bound, the mean plus the heaviest job */
        ck_assert_msg(load[r] <= total / m + heaviest, "rank %d of %d: load %g, total %g", r, m,
                      load[r], total);
    }
    for (int i = 0; i < n && nranks >= n; i++) {
        for (int j = i + 1; j < n; j++) {
            ck_assert_int_ne(owner[i], owner[j]); /* a rank each */
        }
    }
    free(owner);
    free(again);
    free(load);
}

START_TEST(test_assign_covers_every_job_once_balanced)
{
    static const int ns[] = {0, 1, 2, 5, 13, 40};
    static const int ranks[] = {1, 2, 3, 7, 64, 65536};
    unsigned seed = 12345;
    size_t work[40];
    for (size_t a = 0; a < sizeof(ns) / sizeof(ns[0]); a++) {
        for (int i = 0; i < ns[a]; i++) {
            seed = seed * 1103515245u + 12345u;
            work[i] = (size_t)(seed >> 8) % 1000000 + (i % 7 == 0 ? 0 : 1);
        }
        for (size_t b = 0; b < sizeof(ranks) / sizeof(ranks[0]); b++) {
            check_assignment(work, ns[a], ranks[b]);
        }
    }
    /* unknown work (SIZE_MAX) is the heaviest, without wrapping the loads */
    const size_t unknown[] = {SIZE_MAX, 5, SIZE_MAX, 1};
    int owner[4];
    ck_assert_int_eq(topo_share_assign(unknown, 4, 2, owner), TOPO_OK);
    ck_assert_int_ne(owner[0], owner[2]);
    ck_assert_int_eq(topo_share_assign(unknown, 4, 0, owner), TOPO_EINVAL);
    ck_assert_int_eq(topo_share_assign(unknown, -1, 2, owner), TOPO_EINVAL);
}
END_TEST

START_TEST(test_assign_heaviest_alone)
{
    /* the heavy candidate gets its own rank, the light ones share the rest */
    const size_t work[] = {3, 1000, 2, 4, 1, 5};
    int owner[6];
    ck_assert_int_eq(topo_share_assign(work, 6, 3, owner), TOPO_OK);
    for (int i = 0; i < 6; i++) {
        ck_assert_int_eq(i != 1 && owner[i] == owner[1], 0);
    }
    ck_assert_int_eq(owner[1], 0); /* ties go to the lower rank: the first */
}
END_TEST

/* --- serialization ------------------------------------------------------- */

static topo_price_t sample_price(int nthr, int with_paid)
{
    topo_price_t p = {.lat = 1.25e-5, .per_byte = 3.0e-10, .rndv = 4e-6, .nthr = nthr,
                      .msgs = 17, .msg_steps = 9, .depth = 12};
    if (nthr > 0) {
        p.thr = malloc(sizeof(size_t) * (size_t)nthr);
        ck_assert_ptr_nonnull(p.thr);
        for (int k = 0; k < nthr; k++) {
            p.thr[k] = (size_t)1 << (k % 60);
        }
    }
    if (with_paid) {
        p.paid = malloc(sizeof(double) * (size_t)(nthr + 1));
        ck_assert_ptr_nonnull(p.paid);
        for (int k = 0; k <= nthr; k++) {
            p.paid[k] = k * 4e-6 + 1e-9 / (k + 1);
        }
    }
    return p;
}

static void expect_same_price(const topo_price_t *a, const topo_price_t *b)
{
    /* bit for bit: the table built from it must be the same */
    ck_assert_int_eq(0 == memcmp(&a->lat, &b->lat, sizeof(double)), 1);
    ck_assert_int_eq(0 == memcmp(&a->per_byte, &b->per_byte, sizeof(double)), 1);
    ck_assert_int_eq(0 == memcmp(&a->rndv, &b->rndv, sizeof(double)), 1);
    ck_assert_int_eq(a->nthr, b->nthr);
    ck_assert_int_eq(a->msgs, b->msgs);
    ck_assert_int_eq(a->msg_steps, b->msg_steps);
    ck_assert_int_eq(a->depth, b->depth);
    ck_assert_int_eq(NULL == a->paid, NULL == b->paid);
    for (int k = 0; k < a->nthr; k++) {
        ck_assert_uint_eq(a->thr[k], b->thr[k]);
    }
    for (int k = 0; NULL != a->paid && k <= a->nthr; k++) {
        ck_assert_int_eq(0 == memcmp(&a->paid[k], &b->paid[k], sizeof(double)), 1);
    }
}

START_TEST(test_price_round_trip)
{
    static const int nthrs[] = {0, 1, 7, 300};
    for (size_t t = 0; t < sizeof(nthrs) / sizeof(nthrs[0]); t++) {
        for (int with_paid = 0; with_paid <= 1; with_paid++) {
            topo_price_t p = sample_price(nthrs[t], with_paid), q;
            const size_t len = topo_price_packed_size(&p);
            unsigned char *buf = malloc(len + 8);
            ck_assert_ptr_nonnull(buf);
            memset(buf, 0xa5, len + 8);
            ck_assert_uint_eq(topo_price_pack(&p, buf), len);
            size_t used = 0;
            /* trailing bytes are not the record's: used says where it ends */
            ck_assert_int_eq(topo_price_unpack(buf, len + 8, &used, &q), TOPO_OK);
            ck_assert_uint_eq(used, len);
            expect_same_price(&p, &q);
            topo_price_free(&q);
            /* every truncation is refused, nothing left allocated */
            for (size_t cut = 0; cut < len; cut += 1 + cut / 8) {
                ck_assert_int_eq(topo_price_unpack(buf, cut, &used, &q), TOPO_EINVAL);
                ck_assert_ptr_null(q.thr);
                ck_assert_ptr_null(q.paid);
            }
            topo_price_free(&p);
            free(buf);
        }
    }
    /* a count of thresholds that the record cannot hold, or a negative one */
    topo_price_t p = sample_price(2, 1), q;
    unsigned char buf[256];
    const size_t len = topo_price_pack(&p, buf);
    static const int32_t bad[] = {-1, 1000000, INT32_MAX};
    for (size_t b = 0; b < sizeof(bad) / sizeof(bad[0]); b++) {
        memcpy(buf + 3 * sizeof(double), &bad[b], sizeof(bad[b]));
        ck_assert_int_eq(topo_price_unpack(buf, len, NULL, &q), TOPO_EINVAL);
    }
    topo_price_free(&p);
}
END_TEST

/* --- the shared tables --------------------------------------------------- */

typedef struct {
    const char *topo;
    int size, root, price_ranks;
    const int *place;
} share_case_t;

static const int four_hosts[] = {0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3};

static const share_case_t share_cases[] = {
    {"torus:4x4x4", 64, 5, 16, NULL}, {"torus:8x8", 64, 0, 0, NULL}, {"mesh:4x4", 16, 7, 0, NULL},
    {"star", 100, 37, 16, NULL},      {"star", 16, 2, 0, four_hosts}, {"fullmesh", 24, 0, 0, NULL},
};

/* The table of case c, primitive prim, operation class opclass, priced by
 * nranks together equals the single process's: the same ranges with the
 * same candidates, and the candidates priced by both priced alike.
 * Returns the candidates the shared pricing pruned. */
static int expect_shared_same(const share_case_t *c, topo_prim_t prim, int opclass, int prune,
                              int nranks)
{
    topo_topology_t t = ut_topo(c->topo);
    t.place = c->place;
    const ut_model_t md = ut_compare_model(c->price_ranks);
    const topo_cost_params_t par = md.par;
    const topo_cost_net_t net = md.net;
    const topo_proto_t proto = md.proto;
    const topo_gen_args_t a = {.prim = prim, .size = c->size, .rank = 0, .root = c->root,
                               .topo = &t};
    topo_candidates_t one, all;
    ck_assert_int_eq(
        topo_candidates_price(&a, opclass, &par, &net, &proto, prune, SIZE_MAX, 0, &one), TOPO_OK);
    ck_assert_int_eq(topo_share_local(&a, opclass, &par, &net, &proto, prune, nranks, &all),
                     TOPO_OK);
    ck_assert_int_eq(one.n, all.n);
    ck_assert_msg(one.table.n == all.table.n, "%s on %s, %d ranks: %d ranges alone, %d together",
                  topo_prim_name(prim), c->topo, nranks, one.table.n, all.table.n);
    int npruned = 0;
    for (int k = 0; k < one.table.n; k++) {
        ck_assert_uint_eq(one.table.lo[k], all.table.lo[k]);
        ck_assert_int_eq(one.table.cand[k], all.table.cand[k]);
    }
    for (int i = 0; i < one.n; i++) {
        ck_assert_int_eq(one.cand[i].fits, all.cand[i].fits);
        npruned += all.cand[i].fits && TOPO_PRUNED == all.cand[i].rc;
        if (TOPO_OK == one.cand[i].rc && TOPO_OK == all.cand[i].rc) {
            expect_same_price(&one.cand[i].price, &all.cand[i].price);
        }
        /* a candidate priced alone that the shared pricing pruned is never
         * the table's choice, nor the other way round */
        for (int k = 0; k < one.table.n && TOPO_OK != all.cand[i].rc; k++) {
            ck_assert_int_ne(one.table.cand[k], i);
        }
    }
    topo_candidates_free(&one);
    topo_candidates_free(&all);
    return npruned;
}

START_TEST(test_shared_tables_are_the_single_process_tables)
{
    static const int ranks[] = {1, 2, 3, 64};
    int npruned = 0;
    for (size_t c = 0; c < sizeof(share_cases) / sizeof(share_cases[0]); c++) {
        for (int prim = 0; prim < TOPO_PRIM_COUNT; prim++) {
            for (size_t r = 0; r < sizeof(ranks) / sizeof(ranks[0]); r++) {
                npruned += expect_shared_same(&share_cases[c], (topo_prim_t)prim,
                                              TOPO_OP_COMMUTATIVE, 1, ranks[r]);
            }
            (void)expect_shared_same(&share_cases[c], (topo_prim_t)prim, TOPO_OP_ORDERED, 1, 5);
            (void)expect_shared_same(&share_cases[c], (topo_prim_t)prim, TOPO_OP_COMMUTATIVE, 0,
                                     4);
        }
    }
    ck_assert_int_gt(npruned, 0); /* round 2 prunes for real */
}
END_TEST

START_TEST(test_a_wrong_pruning_is_caught)
{
    /* the mutation check: bounds 1.5 times too high in the shared pricing
     * alone prune candidates that win somewhere, and the tables differ
     * from the single process's in some case (the comparison has teeth) */
    int changed = 0;
    for (size_t c = 0; c < sizeof(share_cases) / sizeof(share_cases[0]); c++) {
        for (int prim = 0; prim < TOPO_PRIM_COUNT; prim++) {
            const share_case_t *sc = &share_cases[c];
            topo_topology_t t = ut_topo(sc->topo);
            t.place = sc->place;
            const topo_cost_params_t par = {2e-6, 1e-10, 5e-11};
            const topo_cost_net_t net = {.copy = 1e-10, .msg_overhead = 5e-8,
                                         .price_ranks = sc->price_ranks};
            const topo_gen_args_t a = {.prim = (topo_prim_t)prim, .size = sc->size,
                                       .root = sc->root, .topo = &t};
            topo_candidates_t one, all;
            ck_assert_int_eq(topo_candidates_price(&a, TOPO_OP_COMMUTATIVE, &par, &net, NULL, 1,
                                                   SIZE_MAX, 0, &one),
                             TOPO_OK);
            const double old = topo_price_bound_scale(1.5);
            ck_assert_int_eq(
                topo_share_local(&a, TOPO_OP_COMMUTATIVE, &par, &net, NULL, 1, 7, &all), TOPO_OK);
            topo_price_bound_scale(old);
            int same = one.table.n == all.table.n;
            for (int k = 0; same && k < one.table.n; k++) {
                same = one.table.lo[k] == all.table.lo[k] && one.table.cand[k] == all.table.cand[k];
            }
            changed += !same;
            topo_candidates_free(&one);
            topo_candidates_free(&all);
        }
    }
    ck_assert_int_gt(changed, 0);
}
END_TEST

START_TEST(test_bounds_on_the_last_ranks)
{
    /* a communicator of many more ranks than candidates: round 0's bounds
     * one a rank from the last one down (rounds 1 and 2 start from rank
     * 0, so that the ranks of the rounds differ); 40 ranks price the same
     * table as every other count (above) */
    topo_topology_t t = ut_topo("torus:8x8");
    const topo_cost_params_t par = {2e-6, 1e-10, 5e-11};
    const topo_cost_net_t net = {.copy = 1e-10, .msg_overhead = 5e-8};
    const topo_gen_args_t a = {.prim = TOPO_PRIM_ALLREDUCE, .size = 64, .root = 0, .topo = &t};
    enum { N = 1000 };
    topo_share_t obs;
    ck_assert_int_eq(topo_share_begin(&obs, &a, TOPO_OP_COMMUTATIVE, &par, &net, NULL, 1, -1, N),
                     TOPO_OK);
    ck_assert_int_gt(obs.nfit, 3);
    for (int i = 0; i < obs.nfit; i++) {
        ck_assert_int_eq(topo_share_owner(&obs, 0, i), N - 1 - i);
    }
    topo_candidates_t all;
    ck_assert_int_eq(topo_share_local(&a, TOPO_OP_COMMUTATIVE, &par, &net, NULL, 1, 40, &all),
                     TOPO_OK);
    topo_candidates_free(&all);
    topo_share_free(&obs);
}
END_TEST

START_TEST(test_a_failure_reaches_every_rank)
{
    /* rank 1 of 3 runs out of memory after round 0: every rank sees the
     * flag at round 1's exchange, and none builds a table */
    topo_topology_t t = ut_topo("torus:4x4");
    const topo_cost_params_t par = {2e-6, 1e-10, 5e-11};
    const topo_cost_net_t net = {.copy = 1e-10, .msg_overhead = 5e-8};
    const topo_gen_args_t a = {.prim = TOPO_PRIM_ALLGATHER, .size = 16, .root = 0, .topo = &t};
    topo_share_t s[3];
    for (int r = 0; r < 3; r++) {
        ck_assert_int_eq(
            topo_share_begin(&s[r], &a, TOPO_OP_COMMUTATIVE, &par, &net, NULL, 1, r, 3), TOPO_OK);
    }
    for (int round = 0; round < 2; round++) {
        int64_t len[TOPO_SHARE_SLOTS], mine[TOPO_SHARE_SLOTS];
        memset(len, 0, sizeof(len));
        for (int r = 0; r < 3; r++) {
            topo_share_work(&s[r], round, mine);
            for (int k = 0; k < TOPO_SHARE_SLOTS; k++) {
                len[k] = mine[k] > len[k] ? mine[k] : len[k];
            }
        }
        if (1 == round) {
            ck_assert_int_eq(len[TOPO_SHARE_ERR], 1);
            break;
        }
        ck_assert_int_eq(len[TOPO_SHARE_ERR], 0);
        const size_t total = topo_share_total(len);
        unsigned char *buf = calloc(total + 1, 1);
        ck_assert_ptr_nonnull(buf);
        for (int r = 0; r < 3; r++) {
            topo_share_put(&s[r], len, buf);
        }
        for (int r = 0; r < 3; r++) {
            topo_share_take(&s[r], round, len, buf);
            ck_assert_int_eq(s[r].failed, 0);
        }
        /* a record damaged in transit is refused */
        topo_share_t probe = s[0];
        buf[0] ^= 0x7f;
        topo_share_take(&probe, round, len, buf);
        ck_assert_int_ne(probe.failed, 0);
        buf[0] ^= 0x7f;
        free(buf);
        s[1].failed = TOPO_ENOMEM; /* what an allocation that failed leaves */
    }
    topo_candidates_t out;
    ck_assert_int_ne(topo_share_finish(&s[1], &out), TOPO_OK);
    ck_assert_ptr_null(out.cand);
    for (int r = 0; r < 3; r++) {
        topo_share_free(&s[r]);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("share");
    TCase *tc = ut_tcase(s, "share", 900);
    tcase_add_test(tc, test_assign_covers_every_job_once_balanced);
    tcase_add_test(tc, test_assign_heaviest_alone);
    tcase_add_test(tc, test_price_round_trip);
    tcase_add_test(tc, test_shared_tables_are_the_single_process_tables);
    tcase_add_test(tc, test_a_wrong_pruning_is_caught);
    tcase_add_test(tc, test_bounds_on_the_last_ranks);
    tcase_add_test(tc, test_a_failure_reaches_every_rank);
    return ut_run_suite(s);
}
