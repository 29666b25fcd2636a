/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests: multiport (mirrored) recursive doubling and Rabenseifner
 * (recursive_doubling_mp, rabenseifner_mp;
 * core/algo_halving_doubling_multiport.c) through the verifier on rings and
 * tori, their partners (plain and mirrored lanes go opposite ways), step
 * counts, and per-step link loads against the congestion of mirrored
 * recursive doubling (1.5 / 1.167 / 1.071 as the torus grows). */
#include "catalog.h"
#include "cost.h"
#include "links.h"
#include "unit_common.h"
#include "verify.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>

static const char *const names[] = {"recursive_doubling_mp", "rabenseifner_mp"};


static const char *const shapes[] = {
    "torus:3x5",   "torus:2x8",  "torus:6x6x2", "torus:4x4",    "torus:8x8",    "torus:2x2x2",
    "torus:3x3",   "torus:2x3",  "torus:2x2",   "torus:7x9",    "torus:4x4x4",  "torus:16x32",
    "torus:4x64",  "torus:1x8",  "torus:8x1x3", "torus:4x4x4x2", "torus:8x8x8", "mesh:4x6",
    "mesh:2x2x2",  "torus:27x27", "torus:2x3x5x2",
};

START_TEST(test_tori)
{
    ut_verify_allreduce_grid(names[_i % 2], shapes[_i / 2]);
}
END_TEST

/* A grid of another size than the communicator: one ring of `size`. */
START_TEST(test_grid_of_other_size)
{
    for (int i = 0; i < 2; i++) {
        ut_verify_allreduce_off_grid(names[i]);
    }
}
END_TEST

/* Lanes and partners on an 8-ring: 2 lanes; step b of the plain lane pairs
 * c with c XOR 2^b, of the mirrored lane with c -/+ 2^b when bit b is
 * clear/set, so every node sends one way in one lane and the other way in
 * the other. */
START_TEST(test_partners_ring)
{
    topo_topology_t t = ut_topo("torus:8");
    topo_sched_t *sc = ut_gen_all(TOPO_PRIM_ALLREDUCE, "recursive_doubling_mp", 8, 0, &t);
    for (int r = 0; r < 8; r++) {
        ck_assert_int_eq(sc[r].nlanes, 2);
        for (int b = 0; b < 3; b++) {
            const int plain = r ^ (1 << b);
            const int mirror = (r & (1 << b)) ? (r + (1 << b)) % 8 : (r - (1 << b) + 8) % 8;
            const topo_step_t *p0 = topo_sched_explicit_step(&sc[r], 0, b);
            const topo_step_t *p1 = topo_sched_explicit_step(&sc[r], 1, b);
            ck_assert_int_eq(sc[r].xfers[p0->xfer0].peer, plain);
            ck_assert_int_eq(sc[r].xfers[p1->xfer0].peer, mirror);
            /* opposite directions, except at distance d/2 */
            if (b < 2) {
                ck_assert_int_ne((plain - r + 8) % 8, (mirror - r + 8) % 8);
            }
        }
    }
    ut_free_all(sc, 8);
}
END_TEST

static int depth0(const char *name, const char *shape, int p)
{
    topo_topology_t t = ut_topo(shape);
    topo_sched_t *sc = ut_gen_all(TOPO_PRIM_ALLREDUCE, name, p, 0, &t);
    int d = topo_sched_depth(&sc[0]);
    ck_assert_int_eq(sc[0].nlanes, 2 * (topo_topology_size(&t) == p ? t.ndims : 1));
    ut_free_all(sc, p);
    return d;
}

START_TEST(test_step_counts)
{
    /* log2 p (+2 folding steps), Rabenseifner twice that */
    ck_assert_int_eq(depth0("recursive_doubling_mp", "torus:4x4", 16), 4);
    ck_assert_int_eq(depth0("rabenseifner_mp", "torus:4x4", 16), 8);
    ck_assert_int_eq(depth0("recursive_doubling_mp", "torus:8x8x8", 512), 9);
    ck_assert_int_eq(depth0("rabenseifner_mp", "torus:8x8x8", 512), 18);
    ck_assert_int_eq(depth0("recursive_doubling_mp", "torus:3x5", 15), 5);
    ck_assert_int_eq(depth0("rabenseifner_mp", "torus:3x5", 15), 8);
    ck_assert_int_eq(depth0("recursive_doubling_mp", "star", 12), 5);
}
END_TEST

/* Congestion: on a D-torus of powers of two, Rabenseifner step s of the
 * reduce-scatter talks at distance 2^floor(s/D) with messages of
 * (n/2D)/2^(s+1); plain and mirrored lanes in the same dimension load each
 * directed link with 2^floor(s/D) of them together, the allgather mirrors
 * it, so Xi = D * (sum of per-step max loads) / n
 *   = sum_{s<L} 2^floor(s/D) / 2^(s+1),
 * 1.4766 on 64x64 (-> 1.5 for D = 2) and 1.1641 on 16x16x16 (-> 7/6). */
static void congestion(const char *shape, int D, int L)
{
    topo_topology_t t = ut_topo(shape);
    int p = topo_topology_size(&t), depth;
    topo_step_load_t *o = NULL;
    o = ut_link_loads("rabenseifner_mp", &t, p, &depth);
    ck_assert_int_eq(depth, 2 * L);
    double xi = 0.0, want = 0.0;
    for (int s = 0; s < L; s++) {
        const double msg = 1.0 / (2.0 * D) / (double)(2 << s);
        const double c = (double)(1 << (s / D));
        want += c / (double)(2 << s);
        for (int k = 0; k < 2; k++) {
            const topo_step_load_t *st = &o[k ? 2 * L - 1 - s : s];
            ck_assert_msg(fabs(st->max_msg - msg) < 1e-12, "%s step %d: message %g, want %g",
                          shape, s, st->max_msg, msg);
            ck_assert_msg(fabs(st->max_load - c * msg) < 1e-12,
                          "%s step %d: link load %g messages, want %g", shape, s,
                          st->max_load / msg, c);
        }
    }
    for (int s = 0; s < 2 * L; s++) {
        xi += o[s].max_load;
    }
    xi *= D;
    ck_assert_msg(fabs(xi - want) < 1e-9, "%s: Xi %g, want %g", shape, xi, want);
    free(o);
}

START_TEST(test_congestion)
{
    congestion("torus:64x64", 2, 12);
    congestion("torus:16x16x16", 3, 12);
    /* the limits: 1.5 for D = 2, 7/6 for D = 3 */
    double x2 = 0, x3 = 0;
    for (int s = 0; s < 60; s++) {
        x2 += (double)(1ll << (s / 2)) / (double)(2ll << s);
        x3 += (double)(1ll << (s / 3)) / (double)(2ll << s);
    }
    ut_assert_near_eps(x2, 1.5, 1e-6);
    ut_assert_near_eps(x3, 7.0 / 6.0, 1e-6);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("halving_doubling_multiport");
    TCase *tc = ut_tcase(s, "halving_doubling_multiport", 600);
    tcase_add_loop_test(tc, test_tori, 0, 2 * (int)(sizeof(shapes) / sizeof(shapes[0])));
    tcase_add_test(tc, test_grid_of_other_size);
    tcase_add_test(tc, test_partners_ring);
    tcase_add_test(tc, test_step_counts);
    tcase_add_test(tc, test_congestion);
    return ut_run_suite(s);
}
