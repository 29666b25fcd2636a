/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests: the contention-aware cost model (core/cost.c on top of
 * core/links.c): link sharing and hops on grid topologies, nothing new on
 * star and full mesh, the windowed link accumulation, and the decision it
 * implies on an 8x8 torus. */
#include "cost.h"
#include "links.h"
#include "unit_common.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the glue's defaults (coll_topo_params.c) */
static const topo_cost_params_t defaults = {2e-6, 1e-10, 2e-10};

/* The affine cost of allreduce `name` on p ranks of t at ut_unit, the network
 * modelled by net (NULL: cost.h's default). */
static void affine(const char *name, const topo_topology_t *t, int p, const topo_cost_net_t *net,
                   double *lat, double *bw)
{
    ut_affine(TOPO_PRIM_ALLREDUCE, name, p, 0, t, net, lat, bw);
}

START_TEST(test_star_unchanged)
{
    /* the closed forms at N = 4, whatever the hop latency: one algorithm
     * hop on a star is one alpha */
    topo_topology_t star = ut_topo("star"), star2 = ut_topo("star,ports=2"),
                    fm = ut_topo("fullmesh");
    const topo_cost_net_t hop = {.hop = 5.0};
    ut_expect_affine(TOPO_PRIM_ALLREDUCE, "ring", 4, 0, &star, &hop, 6.0, 1.5);
    ut_expect_affine(TOPO_PRIM_ALLREDUCE, "recursive_doubling", 4, 0, &star, &hop, 2.0, 2.0);
    ut_expect_affine(TOPO_PRIM_ALLREDUCE, "rabenseifner", 4, 0, &star, &hop, 4.0, 1.5);
    double lat, bw;
    /* star with ports and full mesh: every message has links of its own,
     * so the port terms stand (links are not modelled there) */
    static const char *const names[] = {"ring", "recursive_doubling", "rabenseifner"};
    for (int i = 0; i < 3; i++) {
        for (int p = 2; p <= 12; p++) {
            double lat0, bw0;
            affine(names[i], &star2, p, &hop, &lat, &bw);
            affine(names[i], &star2, p, &ut_ports_only, &lat0, &bw0);
            ut_assert_near(lat, lat0);
            ut_assert_near(bw, bw0);
            affine(names[i], &fm, p, &hop, &lat, &bw);
            affine(names[i], &fm, p, &ut_ports_only, &lat0, &bw0);
            ut_assert_near(lat, lat0);
            ut_assert_near(bw, bw0);
        }
    }
}
END_TEST

START_TEST(test_recursive_doubling_torus16)
{
    /* Swing sec. 2 / Fig. 1: on a 16-node ring, recursive doubling puts
     * 1, 2, 4 and (half way, split both ways) 4 messages of M on a link;
     * the port term alone is M per step */
    topo_topology_t t = ut_topo("torus:16");
    topo_gen_args_t a = {TOPO_PRIM_ALLREDUCE, 16, 0, 0, &t};
    const topo_cost_net_t hop = {.hop = 0.5};
    topo_cost_step_t *st;
    int depth;
    ck_assert_int_eq(
        topo_cost_steps(ut_allreduce("recursive_doubling"), &a, &ut_unit, &hop, &st, &depth),
        TOPO_OK);
    ck_assert_int_eq(depth, 4);
    const double load[] = {1, 2, 4, 4};
    const int hops[] = {1, 2, 4, 8};
    for (int s = 0; s < depth; s++) {
        ut_assert_near(st[s].port, 1.0);
        ut_assert_near(st[s].link, load[s]);
        ut_assert_near(st[s].per_byte, load[s]);
        ck_assert_int_eq(st[s].max_hops, hops[s]);
        ut_assert_near(st[s].lat, 1.0 + 0.5 * (hops[s] - 1));
    }
    free(st);
    double lat, bw;
    affine("recursive_doubling", &t, 16, NULL, &lat, &bw);
    ut_assert_near(lat, 4.0); /* hop 0 by default */
    ut_assert_near(bw, 11.0); /* vs 4 without link sharing */
    affine("recursive_doubling", &t, 16, &ut_ports_only, &lat, &bw);
    ut_assert_near(bw, 4.0);
    /* the plain entry point is the contention-aware one */
    double lat2, bw2;
    ck_assert_int_eq(
        topo_cost_affine(ut_allreduce("recursive_doubling"), &a, &ut_unit, &lat2, &bw2), TOPO_OK);
    ut_assert_near(bw2, 11.0);
}
END_TEST

static int equal_dims(const topo_topology_t *t)
{
    for (int i = 1; i < t->ndims; i++) {
        if (t->dims[i] != t->dims[0]) {
            return 0;
        }
    }
    return 1;
}

START_TEST(test_single_hop_is_contention_free)
{
    /* ring: one message per rank per step to its successor.  On a torus
     * every message crosses one link (rows are joined by a wraparound
     * route that still loads no link twice); the cost is the star formula
     * 2(p-1) alpha + 2(p-1)/p M/BW.  Bucket: neighbour messages only. */
    static const char *const shapes[] = {"torus:16",  "torus:4x4", "torus:8x8",
                                         "torus:3x5", "mesh:4x4",  "torus:2x3x2"};
    for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
        topo_topology_t t = ut_topo(shapes[i]);
        int p = topo_topology_size(&t);
        double lat, bw, lat0, bw0;
        affine("ring", &t, p, NULL, &lat, &bw);
        ut_assert_near(lat, 2.0 * (p - 1));
        ut_assert_near(bw, 2.0 * (p - 1) / p);
        if (NULL != topo_catalog_find(TOPO_PRIM_ALLREDUCE, "bucket") && equal_dims(&t)) {
            /* (unequal dimensions: lanes meet on a link now and then) */
            affine("bucket", &t, p, NULL, &lat, &bw);
            affine("bucket", &t, p, &ut_ports_only, &lat0, &bw0);
            ut_assert_near(lat, lat0);
            ut_assert_near(bw, bw0);
        }
    }
}
END_TEST

START_TEST(test_hops_mesh)
{
    /* ring on mesh:8: 7 -> 0 crosses the whole line (7 links, alone on the
     * - links): the bandwidth is contention-free, the hop term pays 6 */
    topo_topology_t t = ut_topo("mesh:8");
    const topo_cost_net_t hop = {.hop = 1.0};
    double lat, bw;
    affine("ring", &t, 8, &hop, &lat, &bw);
    ut_assert_near(lat, 14.0 * (1 + 6));
    ut_assert_near(bw, 14.0 / 8);
}
END_TEST

START_TEST(test_windows_agree)
{
    /* tiny budgets force the windowed pass (and the direct-step shortcut);
     * the result must be the one-pass result */
    static const char *const shapes[] = {"torus:16", "torus:4x4", "mesh:3x4", "torus:8x8"};
    int n;
    const topo_algo_t *cat = topo_catalog(&n);
    for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
        topo_topology_t t = ut_topo(shapes[i]);
        int p = topo_topology_size(&t);
        topo_gen_args_t a = {TOPO_PRIM_ALLREDUCE, p, 0, 0, &t};
        for (int k = 0; k < n; k++) {
            char why[256];
            if (cat[k].prim != TOPO_PRIM_ALLREDUCE ||
                !topo_algo_fits(&cat[k], &a, TOPO_OP_EXACT, why, sizeof(why))) {
                continue;
            }
            ut_expect_windows_agree(&cat[k], &a, &defaults, NULL);
        }
    }
}
END_TEST

START_TEST(test_decision_torus_8x8)
{
    /* torus:8x8, 64 ranks, the glue's default parameters, commutative
     * operation.  8 B: latency dominates, so the whole-vector exchanges
     * (recursive doubling, 6 steps) beat the 2(p-1) = 126 steps of ring and
     * the 12 of Rabenseifner (Lu 2026a B.3).  64 MiB: bandwidth dominates;
     * recursive doubling moves M per step over links shared by up to 4
     * messages (8x8: 1, 2, then 2 split both ways per dimension), so the
     * bandwidth-optimal ones (ring, Rabenseifner, bucket, ...) beat it. */
    topo_topology_t t = ut_topo("torus:8x8");
    topo_gen_args_t a = {TOPO_PRIM_ALLREDUCE, 64, 0, 0, &t};
    const double small = 8, big = 64.0 * 1024 * 1024;
    int n;
    const topo_algo_t *cat = topo_catalog(&n);
    const topo_algo_t *best_small = NULL, *best_big = NULL;
    double t_small = 0, t_big = 0, rd_small = 0, rd_big = 0, rd_lat = 0, rd_bw = 0;
    for (int k = 0; k < n; k++) {
        char why[256];
        if (cat[k].prim != TOPO_PRIM_ALLREDUCE ||
            !topo_algo_fits(&cat[k], &a, TOPO_OP_EXACT, why, sizeof(why))) {
            continue;
        }
        double lat, bw;
        ck_assert_int_eq(topo_cost_affine(&cat[k], &a, &defaults, &lat, &bw), TOPO_OK);
        double ts = lat + bw * small, tb = lat + bw * big;
        printf("torus:8x8 %-20s 8 B %9.3f us   64 MiB %10.1f us\n", cat[k].name, ts * 1e6,
               tb * 1e6);
        if (NULL == best_small || ts < t_small) {
            best_small = &cat[k];
            t_small = ts;
        }
        if (NULL == best_big || tb < t_big) {
            best_big = &cat[k];
            t_big = tb;
        }
        if (0 == strcmp(cat[k].name, "recursive_doubling")) {
            rd_small = ts;
            rd_big = tb;
            rd_lat = lat;
            rd_bw = bw;
        }
    }
    ck_assert_ptr_nonnull(best_small);
    printf("torus:8x8 chosen: 8 B %s, 64 MiB %s\n", best_small->name, best_big->name);
    static const char *const bw_optimal[] = {"ring", "rabenseifner", "bucket"};
    for (int i = 0; i < 3; i++) {
        const topo_algo_t *b = topo_catalog_find(TOPO_PRIM_ALLREDUCE, bw_optimal[i]);
        if (NULL == b) {
            continue;
        }
        double lat, bw;
        ck_assert_int_eq(topo_cost_affine(b, &a, &defaults, &lat, &bw), TOPO_OK);
        ck_assert_msg(lat + bw * small > rd_small, "%s beats recursive_doubling at 8 B", b->name);
        ck_assert_msg(lat + bw * big < rd_big, "%s loses to recursive_doubling at 64 MiB", b->name);
    }
    /* the winners: at 8 B one with recursive doubling's latency or less,
     * at 64 MiB not recursive doubling, and with less per byte */
    double lat, bw;
    ck_assert_int_eq(topo_cost_affine(best_small, &a, &defaults, &lat, &bw), TOPO_OK);
    ck_assert(lat <= rd_lat + 1e-15);
    ck_assert_str_ne(best_big->name, "recursive_doubling");
    ck_assert_int_eq(topo_cost_affine(best_big, &a, &defaults, &lat, &bw), TOPO_OK);
    ck_assert(bw < rd_bw);
    /* and recursive doubling's bandwidth term is the congested one: per
     * dimension loads 1, 2, 2 (distance 4 of 8 split both ways, 4 messages
     * of M/2... i.e. 2), so (1 + 2 + 2) * 2 = 10 M beta vs 6 M beta on a star */
    topo_cost_step_t *st;
    int depth;
    ck_assert_int_eq(
        topo_cost_steps(ut_allreduce("recursive_doubling"), &a, &ut_unit, NULL, &st, &depth),
        TOPO_OK);
    double sum = 0;
    for (int s = 0; s < depth; s++) {
        sum += st[s].link;
    }
    free(st);
    ut_assert_near(sum, 10.0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("contention");
    TCase *tc = ut_tcase(s, "cost", 120);
    tcase_add_test(tc, test_star_unchanged);
    tcase_add_test(tc, test_recursive_doubling_torus16);
    tcase_add_test(tc, test_single_hop_is_contention_free);
    tcase_add_test(tc, test_hops_mesh);
    tcase_add_test(tc, test_windows_agree);
    tcase_add_test(tc, test_decision_torus_8x8);
    return ut_run_suite(s);
}
