/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests: prices with the protocol switch and the decision table
 * (core/decision.c). */
#include "decision.h"
#include "unit_common.h"

#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A hand-made price: lat + slope * M, rndv per threshold reached. */
static topo_price_t line(double lat, double slope, double rndv, int nthr, const size_t *thr)
{
    topo_price_t p = {.lat = lat, .per_byte = slope, .rndv = rndv, .nthr = nthr, .thr = NULL};
    if (nthr > 0) {
        p.thr = malloc(sizeof(size_t) * (size_t)nthr);
        ck_assert_ptr_nonnull(p.thr);
        memcpy(p.thr, thr, sizeof(size_t) * (size_t)nthr);
    }
    return p;
}

/* The pointwise answer the table must reproduce. */
static int brute(const topo_price_t *const *pr, int n, size_t y)
{
    int best = -1;
    double bt = 0.0;
    for (int i = 0; i < n; i++) {
        if (NULL == pr[i]) {
            continue;
        }
        double t = topo_price_at(pr[i], y);
        if (best < 0 || t < bt) {
            best = i;
            bt = t;
        }
    }
    return best;
}

/* The table's candidate at y is a cheapest one: its price is the
 * pointwise minimum, up to the relative 1e-12 within which prices tie. */
static void expect_cheapest(const topo_price_t *const *pr, int n, const topo_decision_t *d,
                            size_t y)
{
    const int b = brute(pr, n, y), c = topo_decision_lookup(d, y);
    if (b < 0) {
        ck_assert_int_eq(c, -1);
        return;
    }
    ck_assert_msg(c >= 0 && NULL != pr[c], "payload %zu: no candidate in the table", y);
    const double want = topo_price_at(pr[b], y), got = topo_price_at(pr[c], y);
    ck_assert_msg(got <= want * (1 + 1e-12), "payload %zu: table %d at %.17g, pointwise %d at %.17g",
                  y, c, got, b, want);
}

/* Every range start, the payload before it and a spread of payloads get a
 * cheapest candidate. */
static void check_table(const topo_price_t *const *pr, int n, const topo_decision_t *d)
{
    ck_assert_int_ge(d->n, 1);
    ck_assert_uint_eq(d->lo[0], 0);
    for (int k = 0; k < d->n; k++) {
        if (k > 0) {
            ck_assert_uint_gt(d->lo[k], d->lo[k - 1]);
            ck_assert_int_ne(d->cand[k], d->cand[k - 1]); /* merged */
            expect_cheapest(pr, n, d, d->lo[k] - 1);
        }
        expect_cheapest(pr, n, d, d->lo[k]);
    }
    for (size_t y = 0; y < ((size_t)1 << 40); y = y * 5 / 4 + 1) {
        expect_cheapest(pr, n, d, y);
    }
}

START_TEST(test_two_lines)
{
    /* 10 + M and 20 + M/2 are equal at M = 20 (the lower index keeps it),
     * the second is cheaper from 21 on */
    topo_price_t a = line(10, 1, 0, 0, NULL), b = line(20, 0.5, 0, 0, NULL);
    const topo_price_t *pr[] = {&a, &b};
    topo_decision_t d;
    ck_assert_int_eq(topo_decision_build(pr, 2, &d), TOPO_OK);
    ck_assert_int_eq(d.n, 2);
    ck_assert_uint_eq(d.lo[1], 21);
    ck_assert_int_eq(d.cand[0], 0);
    ck_assert_int_eq(d.cand[1], 1);
    check_table(pr, 2, &d);
    topo_decision_free(&d);
    topo_price_free(&a);
    topo_price_free(&b);
}
END_TEST

START_TEST(test_protocol_step)
{
    /* a is cheaper until its one step turns rendezvous at 4097, then b (two
     * steps of half the payload: at 8193) is cheaper until it does too, and
     * the flat third line wins from its crossing on */
    const size_t ta[] = {4097}, tb[] = {8193, 8193};
    topo_price_t a = line(1.0, 1e-3, 10.0, 1, ta), b = line(2.0, 1e-3, 10.0, 2, tb),
                 c = line(25.0, 0.0, 0.0, 0, NULL);
    const topo_price_t *pr[] = {&a, NULL, &b, &c};
    topo_decision_t d;
    ck_assert_int_eq(topo_decision_build(pr, 4, &d), TOPO_OK);
    ck_assert_int_eq(topo_decision_lookup(&d, 4096), 0);
    ck_assert_int_eq(topo_decision_lookup(&d, 4097), 2);
    ck_assert_int_eq(topo_decision_lookup(&d, 8192), 2);
    ck_assert_int_eq(topo_decision_lookup(&d, 8193), 0); /* a paid once, b twice */
    ck_assert_int_eq(topo_decision_lookup(&d, 14000), 0); /* a tie: the lower index */
    ck_assert_int_eq(topo_decision_lookup(&d, 14001), 3);
    ut_assert_near(topo_price_at(&b, 8193) - topo_price_at(&b, 8192), 20.0 + 1e-3);
    check_table(pr, 4, &d);
    topo_decision_free(&d);
    topo_price_free(&a);
    topo_price_free(&b);
    topo_price_free(&c);
}
END_TEST

/* Equal prices computed two ways (allgather swing and bucket on torus:4x4:
 * 8 us + one rendezvous vs 12 us, the same per-byte term) differ in the
 * last bits from payload to payload; the table calls them a tie and keeps
 * the lower index over the whole range instead of flickering. */
START_TEST(test_rounding_ties)
{
    const size_t t1[] = {32769};
    topo_price_t a = line(8e-6, 2.34375e-11, 4e-6, 1, t1), b = line(12e-6, 2.34375e-11, 0, 0, NULL);
    const topo_price_t *pr[] = {&b, &a};
    topo_decision_t d;
    ck_assert_int_eq(topo_decision_build(pr, 2, &d), TOPO_OK);
    for (size_t y = 32769; y < 1000000; y += 997) {
        ck_assert_int_eq(topo_decision_lookup(&d, y), 0);
    }
    ck_assert_int_eq(d.n, 2); /* [0, 32769): a; from there on: the tie, b */
    ck_assert_int_eq(d.cand[0], 1);
    topo_decision_free(&d);
    topo_price_free(&a);
    topo_price_free(&b);
}
END_TEST

/* Equal prices: the candidate that sends fewer messages wins, whatever
 * its index; equal messages too: the lower index. */
START_TEST(test_ties_go_to_fewer_messages)
{
    topo_price_t a = line(2e-6, 1e-10, 0, 0, NULL), b = line(2e-6, 1e-10, 0, 0, NULL);
    a.msgs = 2;
    b.msgs = 1;
    const topo_price_t *pr[] = {&a, &b};
    topo_decision_t d;
    ck_assert_int_eq(topo_decision_build(pr, 2, &d), TOPO_OK);
    ck_assert_int_eq(d.n, 1);
    ck_assert_int_eq(topo_decision_lookup(&d, 0), 1);
    ck_assert_int_eq(topo_decision_lookup(&d, SIZE_MAX / 2), 1);
    topo_decision_free(&d);
    b.msgs = 2;
    ck_assert_int_eq(topo_decision_build(pr, 2, &d), TOPO_OK);
    ck_assert_int_eq(topo_decision_lookup(&d, 8), 0);
    topo_decision_free(&d);
    /* a real price is cheaper by more than the tolerance: messages do not
     * matter */
    a.lat = 1.9e-6;
    a.msgs = 5;
    ck_assert_int_eq(topo_decision_build(pr, 2, &d), TOPO_OK);
    ck_assert_int_eq(topo_decision_lookup(&d, 8), 0);
    topo_decision_free(&d);
}
END_TEST

/* The messages of a price: the busiest rank's (sent and received), per
 * step, summed.  On 2 ranks allgather's swing runs two lanes (plain and
 * mirrored, half the data each: two messages each way in its one step),
 * recursive doubling one each way; the
 * alpha-beta prices are equal, so the decision takes the single message. */
START_TEST(test_price_messages)
{
    const topo_topology_t t = ut_topo("star");
    topo_gen_args_t a = {.prim = TOPO_PRIM_ALLGATHER, .size = 2, .rank = 0, .root = 0, .topo = &t};
    int n;
    const topo_algo_t *cat = topo_catalog(&n);
    const topo_algo_t *swing = NULL, *rd = NULL;
    for (int i = 0; i < n; i++) {
        if (TOPO_PRIM_ALLGATHER == cat[i].prim && 0 == strcmp(cat[i].name, "swing")) {
            swing = &cat[i];
        }
        if (TOPO_PRIM_ALLGATHER == cat[i].prim && 0 == strcmp(cat[i].name, "recursive_doubling")) {
            rd = &cat[i];
        }
    }
    ck_assert_ptr_nonnull(swing);
    ck_assert_ptr_nonnull(rd);
    topo_price_t ps, pr;
    ck_assert_int_eq(topo_price_build(swing, &a, &ut_unit, NULL, NULL, &ps), TOPO_OK);
    ck_assert_int_eq(topo_price_build(rd, &a, &ut_unit, NULL, NULL, &pr), TOPO_OK);
    /* messages sent and received by the busiest rank, over the steps */
    ck_assert_int_eq(ps.msgs, 4);
    ck_assert_int_eq(pr.msgs, 2);
    ut_assert_near(topo_price_at(&ps, 16), topo_price_at(&pr, 16));
    const topo_price_t *both[] = {&ps, &pr};
    topo_decision_t d;
    ck_assert_int_eq(topo_decision_build(both, 2, &d), TOPO_OK);
    ck_assert_int_eq(topo_decision_lookup(&d, 16), 1);
    topo_decision_free(&d);
    topo_price_free(&ps);
    topo_price_free(&pr);
}
END_TEST

START_TEST(test_no_candidate)
{
    const topo_price_t *pr[] = {NULL, NULL};
    topo_decision_t d;
    ck_assert_int_eq(topo_decision_build(pr, 2, &d), TOPO_OK);
    ck_assert_int_eq(d.n, 1);
    ck_assert_int_eq(topo_decision_lookup(&d, 0), -1);
    ck_assert_int_eq(topo_decision_lookup(&d, SIZE_MAX), -1);
    topo_decision_free(&d);
}
END_TEST

/* The catalog's candidates for prim on p ranks of topology `ts`. */
static void catalog_table(topo_prim_t prim, int p, const char *ts, const topo_proto_t *proto)
{
    const topo_topology_t t = ut_topo(ts);
    const topo_cost_params_t par = {2e-6, 1e-10, 2e-10};
    int n;
    const topo_algo_t *cat = topo_catalog(&n);
    topo_price_t *prices = calloc((size_t)n, sizeof(*prices));
    const topo_price_t **pr = calloc((size_t)n, sizeof(*pr));
    ck_assert_ptr_nonnull(prices);
    ck_assert_ptr_nonnull(pr);
    topo_gen_args_t a = {.prim = prim, .size = p, .rank = 0, .root = 0, .topo = &t};
    for (int i = 0; i < n; i++) {
        char why[256];
        if (cat[i].prim != prim || !topo_algo_fits(&cat[i], &a, TOPO_OP_EXACT, why, sizeof(why))) {
            continue;
        }
        ck_assert_int_eq(topo_price_build(&cat[i], &a, &par, NULL, proto, &prices[i]), TOPO_OK);
        pr[i] = &prices[i];
        /* without the switch the price is the cost model's affine one */
        double lat, pb;
        ck_assert_int_eq(topo_cost_affine(&cat[i], &a, &par, &lat, &pb), TOPO_OK);
        ut_assert_near_eps(prices[i].lat, lat, 1e-15);
        ut_assert_near_eps(prices[i].per_byte, pb, 1e-20);
        if (NULL == proto) {
            ck_assert_int_eq(prices[i].nthr, 0);
        }
    }
    topo_decision_t d;
    ck_assert_int_eq(topo_decision_build(pr, n, &d), TOPO_OK);
    check_table(pr, n, &d);
    topo_decision_free(&d);
    for (int i = 0; i < n; i++) {
        topo_price_free(&prices[i]);
    }
    free(prices);
    free(pr);
}

START_TEST(test_catalog_tables)
{
    const topo_proto_t eager = {.eager = 4096.0, .rndv = 4e-6};
    for (int prim = 0; prim < TOPO_PRIM_COUNT; prim++) {
        catalog_table((topo_prim_t)prim, 2, "star", &eager);
        catalog_table((topo_prim_t)prim, 5, "star", &eager);
        catalog_table((topo_prim_t)prim, 16, "torus:4x4", &eager);
        catalog_table((topo_prim_t)prim, 16, "torus:4x4", NULL);
        catalog_table((topo_prim_t)prim, 12, "mesh:3x4", &eager);
    }
}
END_TEST

START_TEST(test_two_ranks_recursive_doubling_pays_at_the_limit)
{
    /* 2 ranks: recursive doubling sends the whole vector in its one step,
     * the ring halves of it in each of its two: rendezvous from 4097 and
     * 8193 bytes with a 4096-byte eager limit */
    const topo_topology_t t = ut_topo("star");
    const topo_proto_t eager = {.eager = 4096.0, .rndv = 4e-6};
    topo_gen_args_t a = {.prim = TOPO_PRIM_ALLREDUCE, .size = 2, .rank = 0, .root = 0, .topo = &t};
    topo_price_t rd, ring;
    ck_assert_int_eq(topo_price_build(ut_allreduce("recursive_doubling"), &a, &ut_unit, NULL,
                                      &eager, &rd),
                     TOPO_OK);
    ck_assert_int_eq(topo_price_build(ut_allreduce("ring"), &a, &ut_unit, NULL, &eager, &ring),
                     TOPO_OK);
    ck_assert_int_eq(rd.nthr, 1);
    ck_assert_uint_eq(rd.thr[0], 4097);
    ck_assert_int_eq(ring.nthr, 2);
    ck_assert_uint_eq(ring.thr[0], 8193);
    ck_assert_uint_eq(ring.thr[1], 8193);
    ut_assert_near(topo_price_at(&rd, 4097) - topo_price_at(&rd, 4096), 4e-6 + rd.per_byte);
    topo_price_free(&rd);
    topo_price_free(&ring);
}
END_TEST

/* A step whose messages all stay on nodes pays the shared-memory
 * rendezvous (rndv_intra), one that crosses the network rndv: recursive
 * doubling on two hosts of two ranks sends the whole vector within the
 * hosts, then across them; on one host both steps are intra; unset,
 * rndv_intra is rndv. */
START_TEST(test_rendezvous_by_class)
{
    static const int two[] = {0, 0, 1, 1}, one[] = {0, 0, 0, 0};
    topo_topology_t t = ut_topo("star");
    t.place = two;
    const topo_proto_t proto = {.eager = 4096.0, .rndv = 10.0, .rndv_intra = 1.0};
    const topo_cost_net_t net = {.intra_alpha = 0.25, .intra_beta = 0.5};
    topo_gen_args_t a = {.prim = TOPO_PRIM_ALLREDUCE, .size = 4, .rank = 0, .root = 0, .topo = &t};
    topo_price_t pr;
    ck_assert_int_eq(
        topo_price_build(ut_allreduce("recursive_doubling"), &a, &ut_unit, &net, &proto, &pr),
        TOPO_OK);
    ck_assert_int_eq(pr.nthr, 2);
    ut_assert_near(topo_price_at(&pr, 4097) - topo_price_at(&pr, 4096), 11.0 + pr.per_byte);
    topo_price_free(&pr);
    t.place = one;
    ck_assert_int_eq(
        topo_price_build(ut_allreduce("recursive_doubling"), &a, &ut_unit, &net, &proto, &pr),
        TOPO_OK);
    ut_assert_near(topo_price_at(&pr, 4097) - topo_price_at(&pr, 4096), 2.0 + pr.per_byte);
    topo_price_free(&pr);
    const topo_proto_t unset = {.eager = 4096.0, .rndv = 10.0};
    ck_assert_int_eq(
        topo_price_build(ut_allreduce("recursive_doubling"), &a, &ut_unit, &net, &unset, &pr),
        TOPO_OK);
    ut_assert_near(topo_price_at(&pr, 4097) - topo_price_at(&pr, 4096), 20.0 + pr.per_byte);
    topo_price_free(&pr);
}
END_TEST

START_TEST(test_price_roots)
{
    /* coll_topo_price_roots: at most k roots priced, each call's root
     * mapped to one of them, the nearest to within a rank */
    for (int size = 1; size <= 300; size++) {
        for (int k = -1; k <= 20; k++) {
            unsigned char used[300] = {0};
            int distinct = 0;
            for (int r = 0; r < size; r++) {
                const int q = topo_price_root(r, size, k);
                ck_assert_msg(q >= 0 && q < size, "size %d k %d root %d -> %d", size, k, r, q);
                ck_assert_int_eq(topo_price_root(q, size, k), q); /* priced as itself */
                if (k <= 0 || k >= size) {
                    ck_assert_int_eq(q, r);
                } else if (k > 1) {
                    /* spacing (size - 1) / (k - 1): within half of it, and one */
                    ck_assert_msg(2 * abs(q - r) * (k - 1) <= (size - 1) + 2 * (k - 1),
                                  "size %d k %d root %d -> %d", size, k, r, q);
                }
                distinct += !used[q];
                used[q] = 1;
            }
            ck_assert_int_eq(topo_price_root(0, size, k), 0);
            if (k != 1) {
                ck_assert_int_eq(topo_price_root(size - 1, size, k), size - 1);
            }
            ck_assert_int_eq(distinct, k <= 0 || k >= size ? size : k);
        }
    }
    ck_assert_int_eq(topo_price_root(700, 1024, 16), 682); /* i = 10 of 0..15: 10 * 1023 / 15 */
    ck_assert_int_eq(topo_price_root(5, 1024, 16), 0);
}
END_TEST

/* --- pruning (topo_price_candidates) ----------------------------------- */

/* The calls the pruning tests price: grids (links routed, or estimated on
 * a sample), stars (sampled or not), placements, roots, with and without
 * the protocol switch. */
typedef struct {
    const char *topo;
    int size, root, price_ranks;
    const int *place;
    int eager; /* the protocol switch at 4096 bytes, intra-node rendezvous cheaper */
} prune_case_t;

static const int four_hosts[] = {0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3};
static const int half_torus[] = {0, 1, 2, 3, 4, 5, 6, 7};

static const prune_case_t prune_cases[] = {
    {"torus:4x4x4", 64, 0, 0, NULL, 0}, {"torus:4x4x4", 64, 5, 16, NULL, 1},
    {"torus:8x8", 64, 0, 0, NULL, 1},   {"torus:8x4", 32, 3, 8, NULL, 0},
    {"mesh:4x4", 16, 0, 0, NULL, 0},    {"mesh:4x4", 16, 7, 0, NULL, 1},
    {"star", 64, 0, 0, NULL, 0},        {"star", 100, 37, 16, NULL, 1},
    {"star", 16, 2, 0, four_hosts, 1},  {"torus:4x4", 8, 0, 0, half_torus, 0},
    {"fullmesh", 24, 0, 0, NULL, 0},
};

/* The fitting candidates of prim for case c priced with and without
 * pruning for payloads up to `upto`; returns 1 if the tables agree on
 * [0, upto] (the same ranges from 0 to upto, each with the same
 * candidate) and the prices of the candidates both priced are identical.
 * *npruned counts the pruned candidates; every bound is checked to be at
 * most its price, where both exist. */
static int pruned_same_upto(const prune_case_t *c, topo_prim_t prim, size_t upto, int *npruned)
{
    topo_topology_t t = ut_topo(c->topo);
    t.place = c->place;
    const ut_model_t md = ut_compare_model(c->price_ranks);
    const topo_cost_params_t par = md.par;
    const topo_cost_net_t net = md.net;
    const topo_proto_t proto = md.proto;
    const topo_gen_args_t a = {
        .prim = prim, .size = c->size, .rank = 0, .root = c->root, .topo = &t};
    int n, nfit = 0;
    const topo_algo_t *cat = topo_catalog(&n);
    const topo_algo_t **fit = calloc((size_t)n, sizeof(*fit));
    topo_price_t *all = calloc((size_t)n, sizeof(*all)), *some = calloc((size_t)n, sizeof(*some));
    topo_price_t *bound = calloc((size_t)n, sizeof(*bound));
    int *rc_all = calloc((size_t)n, sizeof(int)), *rc_some = calloc((size_t)n, sizeof(int));
    const topo_price_t **pa = calloc((size_t)n, sizeof(*pa)), **ps = calloc((size_t)n, sizeof(*ps));
    ck_assert(fit && all && some && bound && rc_all && rc_some && pa && ps);
    for (int i = 0; i < n; i++) {
        char why[256];
        if (cat[i].prim == prim && topo_algo_fits(&cat[i], &a, TOPO_OP_EXACT, why, sizeof(why))) {
            fit[nfit++] = &cat[i];
        }
    }
    const topo_proto_t *pp = c->eager ? &proto : NULL;
    ck_assert_int_eq(topo_price_candidates(fit, nfit, &a, &par, &net, pp, 0, all, rc_all, NULL),
                     TOPO_OK);
    ck_assert_int_eq(
        topo_price_candidates_upto(fit, nfit, &a, &par, &net, pp, 1, upto, some, rc_some, bound),
        TOPO_OK);
    int same = 1;
    for (int i = 0; i < nfit; i++) {
        ck_assert_int_eq(rc_all[i], TOPO_OK);
        pa[i] = &all[i];
        ps[i] = TOPO_OK == rc_some[i] ? &some[i] : NULL;
        *npruned += TOPO_PRUNED == rc_some[i];
        ck_assert(TOPO_OK == rc_some[i] || TOPO_PRUNED == rc_some[i]);
        if (TOPO_OK == rc_some[i]) { /* priced alike either way */
            ck_assert(all[i].lat == some[i].lat && all[i].per_byte == some[i].per_byte);
            ck_assert_int_eq(all[i].nthr, some[i].nthr);
        }
        /* the bound is below the price, bit for bit, at every payload
         * tried (a rendezvous step included) */
        ck_assert_int_le(bound[i].depth, all[i].depth);
        ck_assert(bound[i].lat <= all[i].lat && bound[i].per_byte <= all[i].per_byte);
        for (size_t y = 0; y < ((size_t)1 << 36); y = y * 3 / 2 + 1) {
            ck_assert_msg(topo_price_at(&bound[i], y) <= topo_price_at(&all[i], y),
                          "%s on %s: bound above the price at %zu", fit[i]->name, c->topo, y);
        }
    }
    topo_decision_t da, ds;
    ck_assert_int_eq(topo_decision_build(pa, nfit, &da), TOPO_OK);
    ck_assert_int_eq(topo_decision_build(ps, nfit, &ds), TOPO_OK);
    int na = 0, ns = 0; /* the ranges that start at most at upto */
    while (na < da.n && da.lo[na] <= upto) {
        na++;
    }
    while (ns < ds.n && ds.lo[ns] <= upto) {
        ns++;
    }
    if (na != ns) {
        same = 0;
    }
    for (int k = 0; same && k < na; k++) {
        same = da.lo[k] == ds.lo[k] && da.cand[k] == ds.cand[k];
    }
    topo_decision_free(&da);
    topo_decision_free(&ds);
    for (int i = 0; i < nfit; i++) {
        topo_price_free(&all[i]);
        topo_price_free(&some[i]);
        topo_price_free(&bound[i]);
    }
    free(fit);
    free(all);
    free(some);
    free(bound);
    free(rc_all);
    free(rc_some);
    free(pa);
    free(ps);
    return same;
}

static int pruned_same(const prune_case_t *c, topo_prim_t prim, int *npruned)
{
    return pruned_same_upto(c, prim, SIZE_MAX, npruned);
}

START_TEST(test_pruning_keeps_the_tables)
{
    /* every primitive on every case, every rank priced, then sampled (as
     * on thousands of ranks): the same table with and without pruning, and
     * some candidates pruned (the test prunes for real) */
    int npruned = 0;
    for (int sampled = 0; sampled <= 1; sampled++) {
        const int old = topo_cost_force_sampling(sampled);
        for (size_t c = 0; c < sizeof(prune_cases) / sizeof(prune_cases[0]); c++) {
            for (int prim = 0; prim < TOPO_PRIM_COUNT; prim++) {
                ck_assert_msg(pruned_same(&prune_cases[c], (topo_prim_t)prim, &npruned),
                              "%s on %s (%d ranks, root %d%s): pruning changed the table",
                              topo_prim_name((topo_prim_t)prim), prune_cases[c].topo,
                              prune_cases[c].size, prune_cases[c].root, sampled ? ", sampled" : "");
            }
        }
        topo_cost_force_sampling(old);
    }
    ck_assert_int_ge(npruned, 20);
}
END_TEST

START_TEST(test_pruning_with_a_wrong_bound_is_caught)
{
    /* The mutation check: a bound 1.5 times too high prunes candidates that
     * win somewhere, and the comparison above sees it in some table, for
     * every payload and for those up to 4095 bytes. */
    const double old = topo_price_bound_scale(1.5);
    static const size_t uptos[] = {SIZE_MAX, 4095};
    for (size_t u = 0; u < sizeof(uptos) / sizeof(uptos[0]); u++) {
        int npruned = 0, changed = 0;
        for (size_t c = 0; c < sizeof(prune_cases) / sizeof(prune_cases[0]); c++) {
            for (int prim = 0; prim < TOPO_PRIM_COUNT; prim++) {
                changed +=
                    !pruned_same_upto(&prune_cases[c], (topo_prim_t)prim, uptos[u], &npruned);
            }
        }
        ck_assert_int_gt(changed, 0);
    }
    topo_price_bound_scale(old);
}
END_TEST

START_TEST(test_pruning_up_to_a_payload_keeps_the_tables_there)
{
    /* priced for the payloads up to upto only: the same table there, and
     * more candidates pruned than for every payload (those that win only
     * above) */
    static const size_t uptos[] = {0, 8, 4095, 4096, 65535, (size_t)1 << 30};
    int nall = 0; /* pruned for every payload */
    for (size_t c = 0; c < sizeof(prune_cases) / sizeof(prune_cases[0]); c++) {
        for (int prim = 0; prim < TOPO_PRIM_COUNT; prim++) {
            (void)pruned_same(&prune_cases[c], (topo_prim_t)prim, &nall);
        }
    }
    for (size_t u = 0; u < sizeof(uptos) / sizeof(uptos[0]); u++) {
        int npruned = 0;
        for (size_t c = 0; c < sizeof(prune_cases) / sizeof(prune_cases[0]); c++) {
            for (int prim = 0; prim < TOPO_PRIM_COUNT; prim++) {
                ck_assert_msg(
                    pruned_same_upto(&prune_cases[c], (topo_prim_t)prim, uptos[u], &npruned),
                    "%s on %s (%d ranks, root %d): pruning up to %zu bytes changed the table there",
                    topo_prim_name((topo_prim_t)prim), prune_cases[c].topo, prune_cases[c].size,
                    prune_cases[c].root, uptos[u]);
            }
        }
        if (uptos[u] <= 65535) {
            ck_assert_int_gt(npruned, nall);
        }
    }
}
END_TEST

START_TEST(test_pruned_candidate_above_envelope)
{
    /* ring on torus:8x8x8: 1022 steps of latency, more per byte than
     * rabenseifner_mp, and more work to price: priced after it, and
     * pruned, with its bound reported */
    const topo_topology_t t = ut_topo("torus:8x8x8");
    const topo_gen_args_t a = {.prim = TOPO_PRIM_ALLREDUCE, .size = 512, .topo = &t};
    const topo_cost_params_t par = {2e-6, 1e-10, 5e-11};
    const topo_algo_t *fit[] = {ut_allreduce("ring"), ut_allreduce("rabenseifner_mp"),
                                ut_allreduce("recursive_doubling")};
    topo_price_t pr[3], lb[3];
    size_t work[3];
    int rc[3];
    for (int i = 0; i < 3; i++) {
        ck_assert_int_eq(topo_price_bound(fit[i], &a, &par, NULL, NULL, &lb[i], &work[i]), TOPO_OK);
        topo_price_free(&lb[i]);
    }
    ck_assert_uint_gt(work[0], work[1]);
    ck_assert_int_eq(topo_price_candidates(fit, 3, &a, &par, NULL, NULL, 1, pr, rc, lb), TOPO_OK);
    ck_assert_int_eq(rc[0], TOPO_PRUNED);
    ck_assert_int_eq(rc[1], TOPO_OK);
    ck_assert_int_eq(rc[2], TOPO_OK);
    ck_assert_int_eq(lb[0].depth, 1022);
    ck_assert(lb[0].lat >= 1022 * par.alpha);
    ck_assert(0.0 == pr[0].lat && NULL == pr[0].thr); /* zeroed */
    for (int i = 0; i < 3; i++) {
        topo_price_free(&pr[i]);
        topo_price_free(&lb[i]);
    }
    /* alone, nothing prunes it */
    ck_assert_int_eq(topo_price_candidates(fit, 1, &a, &par, NULL, NULL, 1, pr, rc, NULL), TOPO_OK);
    ck_assert_int_eq(rc[0], TOPO_OK);
    topo_price_free(&pr[0]);
}
END_TEST

START_TEST(test_candidates_price_filters_prices_and_tables)
{
    /* topo_candidates_price (the component's and topo-plan's pricing): every
     * catalog row of the primitive, in catalog order; those that do not fit
     * with topo_algo_fits' answer and reason; the others priced as
     * topo_price_candidates_upto prices them alone; the table over the
     * priced ones exactly topo_decision_build's.  Operation classes 0-2:
     * with pruning, without, pruned up to 4096 bytes with bounds kept. */
    for (size_t ci = 0; ci < sizeof(prune_cases) / sizeof(prune_cases[0]); ci++) {
        const prune_case_t *c = &prune_cases[ci];
        topo_topology_t t = ut_topo(c->topo);
        t.place = c->place;
        const topo_cost_params_t par = {2e-6, 1e-10, 5e-11};
        const topo_cost_net_t net = {
            .copy = 1e-10, .msg_overhead = 5e-8, .price_ranks = c->price_ranks};
        const topo_proto_t proto = {.eager = 4096.0, .rndv = 4e-6, .rndv_intra = 5e-7};
        for (int prim = 0; prim < TOPO_PRIM_COUNT; prim++) {
            for (int opclass = 0; opclass <= 2; opclass++) {
                const topo_gen_args_t a = {
                    .prim = (topo_prim_t)prim, .size = c->size, .root = c->root, .topo = &t};
                const int prune = 1 != opclass;
                const size_t upto = 2 == opclass ? 4096 : SIZE_MAX;
                const topo_proto_t *pp = c->eager ? &proto : NULL;
                topo_candidates_t all;
                ck_assert_int_eq(topo_candidates_price(&a, opclass, &par, &net, pp, prune, upto,
                                                       2 == opclass, &all),
                                 TOPO_OK);
                int n, rows = 0, nfit = 0;
                const topo_algo_t *cat = topo_catalog(&n);
                const topo_algo_t **fit = calloc((size_t)n + 1, sizeof(*fit));
                topo_price_t *price = calloc((size_t)n + 1, sizeof(*price));
                int *rc = calloc((size_t)n + 1, sizeof(int));
                int *at = calloc((size_t)n + 1, sizeof(int));
                const topo_price_t **pr = calloc((size_t)n + 1, sizeof(*pr));
                ck_assert(fit && price && rc && at && pr);
                for (int i = 0; i < n; i++) {
                    char why[256];
                    if ((int)cat[i].prim != prim) {
                        continue;
                    }
                    ck_assert_int_lt(rows, all.n);
                    const topo_candidate_t *k = &all.cand[rows];
                    ck_assert_ptr_eq(k->algo, &cat[i]);
                    const int fits = topo_algo_fits(&cat[i], &a, opclass, why, sizeof(why));
                    ck_assert_int_eq(!!k->fits, !!fits);
                    if (!fits) {
                        ck_assert_str_eq(k->why, why);
                    } else {
                        at[nfit] = rows;
                        fit[nfit++] = &cat[i];
                    }
                    rows++;
                }
                ck_assert_int_eq(rows, all.n);
                ck_assert_int_eq(topo_price_candidates_upto(fit, nfit, &a, &par, &net, pp, prune,
                                                            upto, price, rc, NULL),
                                 TOPO_OK);
                for (int k = 0; k < nfit; k++) {
                    const topo_candidate_t *q = &all.cand[at[k]];
                    ck_assert_int_eq(q->rc, rc[k]);
                    if (TOPO_OK == rc[k]) {
                        ck_assert(q->price.lat == price[k].lat &&
                                  q->price.per_byte == price[k].per_byte);
                        ck_assert_int_eq(q->price.nthr, price[k].nthr);
                        pr[at[k]] = &q->price;
                    }
                    topo_price_free(&price[k]);
                }
                topo_decision_t d;
                ck_assert_int_eq(topo_decision_build(pr, all.n, &d), TOPO_OK);
                ck_assert_int_eq(d.n, all.table.n);
                for (int k = 0; k < d.n; k++) {
                    ck_assert_uint_eq(d.lo[k], all.table.lo[k]);
                    ck_assert_int_eq(d.cand[k], all.table.cand[k]);
                }
                topo_decision_free(&d);
                free(fit);
                free(price);
                free(rc);
                free(at);
                free(pr);
                topo_candidates_free(&all);
                ck_assert_int_eq(all.n, 0);
                ck_assert_ptr_null(all.cand);
            }
        }
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("decision");
    /* test_price_roots: 2.3 s idle (-O2), 10 s at load 15 on 2 cores */
    TCase *tc = ut_tcase(s, "decision", 900);
    tcase_add_test(tc, test_two_lines);
    tcase_add_test(tc, test_price_roots);
    tcase_add_test(tc, test_protocol_step);
    tcase_add_test(tc, test_no_candidate);
    tcase_add_test(tc, test_rounding_ties);
    tcase_add_test(tc, test_ties_go_to_fewer_messages);
    tcase_add_test(tc, test_price_messages);
    tcase_add_test(tc, test_catalog_tables);
    tcase_add_test(tc, test_two_ranks_recursive_doubling_pays_at_the_limit);
    tcase_add_test(tc, test_rendezvous_by_class);
    tcase_add_test(tc, test_pruning_keeps_the_tables);
    tcase_add_test(tc, test_pruning_with_a_wrong_bound_is_caught);
    tcase_add_test(tc, test_pruning_up_to_a_payload_keeps_the_tables_there);
    tcase_add_test(tc, test_pruned_candidate_above_envelope);
    tcase_add_test(tc, test_candidates_price_filters_prices_and_tables);
    return ut_run_suite(s);
}
