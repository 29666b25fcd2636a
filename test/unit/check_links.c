/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests: per-step link loads under dimension-order minimal routing
 * (core/links.c). */
#include "catalog.h"
#include "links.h"
#include "unit_common.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>

/* Loads of allreduce `name` on p ranks of topology t; returns the depth
 * (the deepest rank's). */
static int loads(const char *name, const topo_topology_t *t, int p, topo_step_load_t *out)
{
    topo_sched_t *sc = ut_gen_allreduce(name, p, t);
    int depth = 0;
    for (int r = 0; r < p; r++) {
        depth = topo_sched_depth(&sc[r]) > depth ? topo_sched_depth(&sc[r]) : depth;
    }
    ck_assert_int_eq(topo_link_loads(t, sc, p, out, depth), TOPO_OK);
    ut_free_all(sc, p);
    return depth;
}

#define assert_near(x, y) ut_assert_near_eps(x, y, 1e-12)

START_TEST(test_ring_on_torus_is_one_hop)
{
    topo_topology_t t = ut_topo("torus:8");
    topo_step_load_t out[64];
    int depth = loads("ring", &t, 8, out);
    ck_assert_int_eq(depth, 14);
    for (int s = 0; s < depth; s++) {
        ck_assert_int_eq(out[s].max_hops, 1);
        ck_assert_int_eq(out[s].messages, 8);
        assert_near(out[s].max_load, 1.0 / 8);
        assert_near(out[s].max_msg, 1.0 / 8);
    }
}
END_TEST

START_TEST(test_ring_on_mesh_wraps_the_long_way)
{
    topo_topology_t t = ut_topo("mesh:8");
    topo_step_load_t out[64];
    int depth = loads("ring", &t, 8, out);
    for (int s = 0; s < depth; s++) {
        ck_assert_int_eq(out[s].max_hops, 7); /* 7 -> 0 crosses the whole line */
        assert_near(out[s].max_load, 1.0 / 8); /* but on the - links, alone */
    }
}
END_TEST

START_TEST(test_recursive_doubling_congestion)
{
    /* Swing sec. 2 / Fig. 1: on a 16-node ring, recursive doubling at
     * distance 2^k puts 2^k messages on a link; at distance 8 (half way)
     * the route splits both ways, so 8 half-messages: 4. */
    topo_topology_t t = ut_topo("torus:16");
    topo_step_load_t out[64];
    int depth = loads("recursive_doubling", &t, 16, out);
    ck_assert_int_eq(depth, 4);
    double expect[] = {1, 2, 4, 4};
    int hops[] = {1, 2, 4, 8};
    for (int s = 0; s < depth; s++) {
        assert_near(out[s].max_msg, 1.0);
        assert_near(out[s].max_load / out[s].max_msg, expect[s]);
        ck_assert_int_eq(out[s].max_hops, hops[s]);
    }
}
END_TEST

START_TEST(test_two_dimensions)
{
    /* 4x4 torus, recursive doubling: steps 0,1 in the last (fastest)
     * dimension, 2,3 in the first; distance 2 on a ring of 4 is a tie */
    topo_topology_t t = ut_topo("torus:4x4");
    topo_step_load_t out[64];
    int depth = loads("recursive_doubling", &t, 16, out);
    ck_assert_int_eq(depth, 4);
    double expect[] = {1, 1, 1, 1}; /* distance 2 on 4: 2 messages, half each way */
    for (int s = 0; s < depth; s++) {
        assert_near(out[s].max_load, expect[s]);
    }
}
END_TEST

START_TEST(test_star_and_fullmesh)
{
    topo_topology_t star = ut_topo("star"), fm = ut_topo("fullmesh");
    topo_step_load_t out[64];
    int depth = loads("rabenseifner", &star, 8, out);
    assert_near(out[0].max_load, 0.5);  /* halving: half the vector up one uplink */
    assert_near(out[depth - 1].max_load, 0.5);
    loads("rabenseifner", &fm, 8, out);
    assert_near(out[0].max_load, 0.5);
    ck_assert_int_eq(out[0].max_hops, 1);
}
END_TEST

START_TEST(test_size_mismatch)
{
    topo_topology_t t = ut_topo("torus:4x4");
    topo_sched_t s;
    topo_sched_init(&s, 8, 0, 1);
    topo_step_load_t out[1];
    ck_assert_int_eq(topo_link_loads(&t, &s, 8, out, 0), TOPO_EINVAL);
    topo_sched_free(&s);
}
END_TEST

/* A grid's messages kept as differences (topo_link_acc_span, settled)
 * load the links as routing them link by link does (topo_link_acc_flow):
 * every pair of ranks alone, and every rank sending to rank + shift
 * together, on tori with ties (even rings, a ring of 2) and meshes. */
START_TEST(test_spans_are_routes)
{
    static const char *const grids[] = {"torus:6x5", "mesh:8x4", "torus:4x4x4", "torus:2x4x3",
                                        "mesh:3x5"};
    for (size_t g = 0; g < sizeof(grids) / sizeof(grids[0]); g++) {
        const topo_topology_t t = ut_topo(grids[g]);
        const int n = topo_topology_size(&t);
        topo_link_acc_t *a, *b;
        ck_assert_int_eq(topo_link_acc_create(&t, n, NULL, 1, &a), TOPO_OK);
        ck_assert_int_eq(topo_link_acc_create(&t, n, NULL, 1, &b), TOPO_OK);
        for (int src = 0; src < n; src++) {
            for (int dst = 0; dst < n; dst++) {
                /* with another message of a different weight: the
                 * maximum tells whether they share a link */
                for (int j = 0; j < 12; j++) {
                    const int u = (src * 7 + j * 13) % n, v = (dst * 5 + j * 11 + 1) % n;
                    topo_link_acc_flow(a, 0, src, dst, 0.75);
                    topo_link_acc_span(b, 0, src, dst, 0.75);
                    topo_link_acc_flow(a, 0, u, v, 0.5);
                    topo_link_acc_span(b, 0, u, v, 0.5);
                    const double want = topo_link_acc_max(a, 0);
                    ck_assert_msg(fabs(topo_link_acc_settle(b, 0) - want) < 1e-12,
                                  "%s: %d -> %d with %d -> %d: spans %g, routes %g", grids[g],
                                  src, dst, u, v, topo_link_acc_max(b, 0), want);
                    ck_assert(src == dst || want > 0.0);
                    topo_link_acc_clear(a, 0);
                    topo_link_acc_clear(b, 0);
                }
            }
        }
        for (int shift = 1; shift < n; shift++) {
            for (int r = 0; r < n; r++) {
                topo_link_acc_flow(a, 0, r, (r + shift) % n, 1.0 + r % 3);
                topo_link_acc_span(b, 0, r, (r + shift) % n, 1.0 + r % 3);
            }
            const double want = topo_link_acc_max(a, 0);
            ck_assert_msg(fabs(topo_link_acc_settle(b, 0) - want) < 1e-9 * want,
                          "%s: shift %d: spans %g, routes %g", grids[g], shift,
                          topo_link_acc_max(b, 0), want);
            topo_link_acc_clear(a, 0);
            topo_link_acc_clear(b, 0);
        }
        topo_link_acc_free(a);
        topo_link_acc_free(b);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("links");
    TCase *tc = ut_tcase(s, "routing", 120);
    tcase_add_test(tc, test_ring_on_torus_is_one_hop);
    tcase_add_test(tc, test_spans_are_routes);
    tcase_add_test(tc, test_ring_on_mesh_wraps_the_long_way);
    tcase_add_test(tc, test_recursive_doubling_congestion);
    tcase_add_test(tc, test_two_dimensions);
    tcase_add_test(tc, test_star_and_fullmesh);
    tcase_add_test(tc, test_size_mismatch);
    return ut_run_suite(s);
}
