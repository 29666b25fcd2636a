/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests: communicators placed on part of a grid, several ranks per
 * node (topology.h: place), priced on their real routes, with the
 * intra-host link class for ranks of one node (cost.h). */
#include "catalog.h"
#include "cost.h"
#include "links.h"
#include "unit_common.h"
#include "verify.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

static topo_topology_t placed(const char *grid, const int *place)
{
    topo_topology_t t = ut_topo(grid);
    t.place = place;
    return t;
}

static void cost(const char *name, const topo_topology_t *t, int p, const topo_cost_net_t *net,
                 double *lat, double *bw)
{
    topo_gen_args_t a = {TOPO_PRIM_ALLREDUCE, p, 0, 0, t};
    ck_assert_int_eq(topo_cost_affine_net(ut_allreduce(name), &a, &ut_unit, net, lat, bw),
                     TOPO_OK);
}

/* Two ranks on opposite nodes of a 4-ring: recursive doubling's one
 * exchange is a tie two hops away, split over both directions, so every
 * directed link carries half a vector. */
START_TEST(test_two_apart_on_a_ring)
{
    static const int place[] = {0, 2};
    const topo_topology_t t = placed("torus:4", place);
    ck_assert_int_eq(topo_topology_hops(&t, 0, 1), 2);
    topo_sched_t *sc = ut_gen_allreduce("recursive_doubling", 2, &t);
    topo_step_load_t out[2];
    ck_assert_int_eq(topo_link_loads(&t, sc, 2, out, 1), TOPO_OK);
    ut_assert_near(out[0].max_load, 0.5);
    ck_assert_int_eq(out[0].max_hops, 2);
    ut_free_all(sc, 2);
    /* priced: one alpha, the hop term once, M/2 per link (the busiest
     * port still sends the whole vector: M) */
    const topo_cost_net_t hop = {.hop = 10.0};
    double lat, bw;
    cost("recursive_doubling", &t, 2, &hop, &lat, &bw);
    ut_assert_near(lat, 1.0 + 10.0);
    ut_assert_near(bw, 1.0);
}
END_TEST

/* Half of a 4x4 torus: ranks on two whole rows (contiguous) or on every
 * other node (scattered).  The ring's neighbours are one hop apart except
 * at row ends in the first, two hops apart in the second: with a hop cost
 * the scattered placement is dearer, and link sharing makes it dearer
 * per byte too. */
START_TEST(test_contiguous_vs_scattered_half)
{
    static const int rows[] = {0, 1, 2, 3, 4, 5, 6, 7};
    static const int every_other[] = {0, 2, 4, 6, 8, 10, 12, 14};
    const topo_topology_t a = placed("torus:4x4", rows), b = placed("torus:4x4", every_other);
    const topo_cost_net_t hop = {.hop = 1.0};
    double la, ba, lb, bb;
    cost("ring", &a, 8, &hop, &la, &ba);
    cost("ring", &b, 8, &hop, &lb, &bb);
    ck_assert_msg(lb > la, "scattered latency %g <= contiguous %g", lb, la);
    ck_assert_msg(bb >= ba, "scattered bandwidth term %g < contiguous %g", bb, ba);
    /* contiguous: 14 steps; the wrap 7 -> 0 and 3 -> 4 cross two links */
    ut_assert_near(la, 14.0 * (1.0 + 1.0));
    /* scattered: 0 -> 2 is two hops, 6 -> 8 ((1,2) -> (2,0)) three */
    ut_assert_near(lb, 14.0 * (1.0 + 2.0));
    /* every rank is placed, so both are priced on links, not as a star */
    topo_gen_args_t g = {TOPO_PRIM_ALLREDUCE, 8, 0, 0, &b};
    topo_cost_step_t *st;
    int depth;
    ck_assert_int_eq(topo_cost_steps(ut_allreduce("ring"), &g, &ut_unit, NULL, &st, &depth),
                     TOPO_OK);
    ck_assert_int_eq(st[0].max_hops, 3);
    free(st);
}
END_TEST

/* Two ranks of one node: the exchange is intra-host, at the intra
 * parameters, and uses no link. */
START_TEST(test_same_node_is_intra)
{
    static const int place[] = {5, 5};
    const topo_topology_t t = placed("torus:4x4", place);
    ck_assert_int_eq(topo_topology_hops(&t, 0, 1), 0);
    const topo_cost_net_t intra = {.intra_alpha = 0.25, .intra_beta = 0.5};
    double lat, bw;
    cost("recursive_doubling", &t, 2, &intra, &lat, &bw);
    ut_assert_near(lat, 0.25);
    ut_assert_near(bw, 0.5);
    /* unset intra parameters: the network's */
    cost("recursive_doubling", &t, 2, NULL, &lat, &bw);
    ut_assert_near(lat, 1.0);
    ut_assert_near(bw, 1.0);
}
END_TEST

/* Four ranks, two per node on neighbouring nodes: recursive doubling's
 * first step pairs ranks of one node (intra), the second crosses the
 * link between the nodes, two messages each way on it. */
START_TEST(test_two_per_node)
{
    static const int place[] = {0, 0, 1, 1};
    const topo_topology_t t = placed("torus:4", place);
    const topo_cost_net_t intra = {.intra_alpha = 0.25, .intra_beta = 0.5};
    topo_gen_args_t a = {TOPO_PRIM_ALLREDUCE, 4, 0, 0, &t};
    topo_cost_step_t *st;
    int depth;
    ck_assert_int_eq(topo_cost_steps(ut_allreduce("recursive_doubling"), &a, &ut_unit, &intra,
                                     &st, &depth),
                     TOPO_OK);
    ck_assert_int_eq(depth, 2);
    ut_assert_near(st[0].lat, 0.25);     /* rank 0 <-> 1: one node */
    ut_assert_near(st[0].per_byte, 0.5);
    ut_assert_near(st[1].lat, 1.0);      /* rank 0 <-> 2: the network */
    ut_assert_near(st[1].link, 2.0);     /* both ranks of node 0 on one link */
    ut_assert_near(st[1].per_byte, 2.0);
    free(st);
}
END_TEST

/* A star with a placement (the nodes of a switched cluster, as the glue
 * learns them from Open MPI): ranks of one node are intra-host, nodes talk
 * through their ports, and there is no link sharing or hop term.  Two
 * nodes of two ranks: recursive doubling's first step stays on nodes, the
 * second crosses the switch; on one node every step is intra-host; without
 * a placement every message crosses the switch, as before. */
START_TEST(test_star_nodes)
{
    static const int two[] = {7, 7, 3, 3}, one[] = {0, 0, 0, 0};
    topo_topology_t t = placed("star", two);
    ck_assert_int_eq(topo_topology_hops(&t, 0, 1), 0);
    ck_assert_int_eq(topo_topology_hops(&t, 1, 2), 1);
    ck_assert(topo_topology_placed(&t, 4));
    ck_assert(!topo_topology_routes(&t, 4));
    const topo_cost_net_t net = {.intra_alpha = 0.25, .intra_beta = 0.5, .hop = 10.0};
    topo_gen_args_t a = {TOPO_PRIM_ALLREDUCE, 4, 0, 0, &t};
    topo_cost_step_t *st;
    int depth;
    ck_assert_int_eq(
        topo_cost_steps(ut_allreduce("recursive_doubling"), &a, &ut_unit, &net, &st, &depth),
        TOPO_OK);
    ck_assert_int_eq(depth, 2);
    ut_assert_near(st[0].lat, 0.25);
    ut_assert_near(st[0].per_byte, 0.5);
    ut_assert_near(st[1].lat, 1.0); /* one hop: no hop term */
    ut_assert_near(st[1].link, 0.0);
    ut_assert_near(st[1].per_byte, 1.0);
    free(st);
    double lat, bw;
    t.place = one;
    cost("recursive_doubling", &t, 4, &net, &lat, &bw);
    ut_assert_near(lat, 2 * 0.25);
    ut_assert_near(bw, 2 * 0.5);
    t.place = NULL;
    ck_assert(!topo_topology_placed(&t, 4));
    cost("recursive_doubling", &t, 4, &net, &lat, &bw);
    ut_assert_near(lat, 2 * 1.0);
    ut_assert_near(bw, 2 * 1.0);
}
END_TEST

/* Data a rank wrote earlier in the call, sent to a rank of its node, costs
 * intra_beta_written per byte; data it held before the call, intra_beta.
 * Rabenseifner's reduce on two ranks of one node: the exchange of halves
 * sends input (0.5 * 1/2), the second step the half just reduced (2.0 *
 * 1/2); binomial sends the input once.  Recursive doubling on four ranks:
 * the second step sends the vector reduced in the first.  Unset, the
 * written price is intra_beta's, and between nodes it does not apply. */
START_TEST(test_written_blocks)
{
    static const int one[] = {0, 0, 0, 0}, apart[] = {0, 1, 2, 3};
    topo_topology_t t = placed("star", one);
    const topo_cost_net_t net = {.intra_alpha = 0.25, .intra_beta = 0.5, .intra_beta_written = 2.0};
    topo_gen_args_t a = {TOPO_PRIM_REDUCE, 2, 0, 0, &t};
    topo_cost_step_t *st;
    int depth;
    ck_assert_int_eq(
        topo_cost_steps(ut_algo(TOPO_PRIM_REDUCE, "rabenseifner"), &a, &ut_unit, &net, &st, &depth),
        TOPO_OK);
    ck_assert_int_eq(depth, 2);
    ut_assert_near(st[0].per_byte, 0.5 * 0.5 + ut_unit.gamma * 0.5);
    ut_assert_near(st[1].per_byte, 2.0 * 0.5);
    free(st);
    ck_assert_int_eq(
        topo_cost_steps(ut_algo(TOPO_PRIM_REDUCE, "binomial"), &a, &ut_unit, &net, &st, &depth),
        TOPO_OK);
    ck_assert_int_eq(depth, 1);
    ut_assert_near(st[0].per_byte, 0.5 + ut_unit.gamma);
    free(st);
    double lat, bw;
    cost("recursive_doubling", &t, 4, &net, &lat, &bw);
    ut_assert_near(lat, 2 * 0.25);
    ut_assert_near(bw, 0.5 + 2.0 + 2 * ut_unit.gamma);
    const topo_cost_net_t unset = {.intra_alpha = 0.25, .intra_beta = 0.5};
    cost("recursive_doubling", &t, 4, &unset, &lat, &bw);
    ut_assert_near(bw, 2 * 0.5 + 2 * ut_unit.gamma);
    t.place = apart;
    cost("recursive_doubling", &t, 4, &net, &lat, &bw);
    ut_assert_near(bw, 2 * 1.0 + 2 * ut_unit.gamma);
}
END_TEST

/* Grid algorithms need the communicator to be the whole grid in order: a
 * placement, even of every node, is refused with the reason; the others
 * still run (as on one ring) and stay correct. */
START_TEST(test_grid_algorithms_refuse_placements)
{
    static const int reversed[] = {15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0};
    const topo_topology_t t = placed("torus:4x4", reversed);
    topo_gen_args_t a = {TOPO_PRIM_ALLREDUCE, 16, 0, 0, &t};
    char why[256];
    ck_assert_int_eq(topo_algo_fits(ut_allreduce("bucket"), &a, TOPO_OP_EXACT, why, sizeof(why)), 0);
    ck_assert_ptr_nonnull(strstr(why, "whole grid"));
    const char *const others[] = {"swing_bw", "trivance_lat", "rabenseifner_mp", "ring"};
    for (int i = 0; i < 4; i++) {
        ck_assert_int_eq(topo_algo_fits(ut_allreduce(others[i]), &a, TOPO_OP_EXACT, why, sizeof(why)), 1);
        ck_assert_int_eq(topo_verify_algo(ut_allreduce(others[i]), &a, why, sizeof(why)), TOPO_OK);
    }
    /* reversed order keeps ring neighbours adjacent: the same cost */
    const topo_topology_t id = ut_topo("torus:16");
    static const int rev16[] = {15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0};
    const topo_topology_t r = placed("torus:16", rev16);
    double l1, b1, l2, b2;
    cost("ring", &id, 16, NULL, &l1, &b1);
    cost("ring", &r, 16, NULL, &l2, &b2);
    ut_assert_near(l1, l2);
    ut_assert_near(b1, b2);
}
END_TEST

/* Steps where some ranks talk within their node and others across the
 * network: ring on two nodes of a 4-ring, two ranks each (0 -> 1 and
 * 2 -> 3 intra-host, 1 -> 2 and 3 -> 0 over one link each).  A step waits
 * for its slowest class: the larger alpha, and per rank the larger of its
 * network port time and its shared-memory time. */
START_TEST(test_mixed_steps)
{
    static const int place[] = {0, 0, 1, 1};
    const topo_topology_t t = placed("torus:4", place);
    double lat, bw;
    /* shared memory faster: the network sets the pace, M/4 per step */
    const topo_cost_net_t fast = {.intra_alpha = 0.25, .intra_beta = 0.5};
    cost("ring", &t, 4, &fast, &lat, &bw);
    ut_assert_near(lat, 6 * 1.0);
    ut_assert_near(bw, 6 * 0.25);
    /* shared memory slower (as a check of the max): its terms set it */
    const topo_cost_net_t slow = {.intra_alpha = 3.0, .intra_beta = 4.0};
    cost("ring", &t, 4, &slow, &lat, &bw);
    ut_assert_near(lat, 6 * 3.0);
    ut_assert_near(bw, 6 * 4.0 * 0.25);
}
END_TEST

/* no_links prices ports without link sharing and hops; ranks of one node
 * still talk over shared memory, at the intra parameters. */
START_TEST(test_intra_without_links)
{
    static const int place[] = {5, 5, 6};
    const topo_topology_t t = placed("torus:4x4", place);
    const topo_cost_net_t net = {.no_links = 1, .intra_alpha = 0.25, .intra_beta = 0.5};
    double lat, bw;
    cost("recursive_doubling", &t, 2, &net, &lat, &bw);
    ut_assert_near(lat, 0.25);
    ut_assert_near(bw, 0.5);
    /* three ranks: the fold step crosses the network (rank 0 -> 1 on one
     * node, then 1 <-> 2 between nodes): not all intra */
    topo_gen_args_t a = {TOPO_PRIM_ALLREDUCE, 3, 0, 0, &t};
    topo_cost_step_t *st;
    int depth;
    ck_assert_int_eq(
        topo_cost_steps(ut_allreduce("recursive_doubling"), &a, &ut_unit, &net, &st, &depth),
        TOPO_OK);
    ck_assert_int_eq(depth, 3);
    ut_assert_near(st[0].lat, 0.25); /* 0 -> 1: one node */
    ut_assert_near(st[1].lat, 1.0);  /* 1 <-> 2: the network */
    ut_assert_near(st[2].lat, 0.25); /* 1 -> 0: the result back */
    ut_assert_near(st[1].link, 0.0); /* no links modelled */
    free(st);
}
END_TEST

/* Tiny link budgets force the windowed pass; on placements every network
 * message is routed (a node's links carry all its ranks' messages), and
 * the result must be the one-pass result. */
START_TEST(test_windows_agree_on_placements)
{
    static const int every_other[] = {0, 2, 4, 6, 8, 10, 12, 14};
    static const int two_per_node[] = {0, 0, 3, 3, 5, 5, 10, 10};
    const int *const places[] = {every_other, two_per_node};
    const topo_cost_params_t p = {2e-6, 1e-10, 2e-10};
    const topo_cost_net_t net = {.hop = 1e-7, .intra_alpha = 5e-7, .intra_beta = 5e-11};
    int n;
    const topo_algo_t *cat = topo_catalog(&n);
    for (int i = 0; i < 2; i++) {
        const topo_topology_t t = placed("torus:4x4", places[i]);
        topo_gen_args_t a = {TOPO_PRIM_ALLREDUCE, 8, 0, 0, &t};
        int priced = 0;
        for (int k = 0; k < n; k++) {
            char why[256];
            if (cat[k].prim != TOPO_PRIM_ALLREDUCE ||
                !topo_algo_fits(&cat[k], &a, TOPO_OP_EXACT, why, sizeof(why))) {
                continue;
            }
            ut_expect_windows_agree(&cat[k], &a, &p, &net);
            priced++;
        }
        ck_assert_int_ge(priced, 4);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("placement");
    TCase *tc = ut_tcase(s, "placement", 120);
    tcase_add_test(tc, test_two_apart_on_a_ring);
    tcase_add_test(tc, test_contiguous_vs_scattered_half);
    tcase_add_test(tc, test_same_node_is_intra);
    tcase_add_test(tc, test_two_per_node);
    tcase_add_test(tc, test_star_nodes);
    tcase_add_test(tc, test_written_blocks);
    tcase_add_test(tc, test_grid_algorithms_refuse_placements);
    tcase_add_test(tc, test_mixed_steps);
    tcase_add_test(tc, test_intra_without_links);
    tcase_add_test(tc, test_windows_agree_on_placements);
    return ut_run_suite(s);
}
