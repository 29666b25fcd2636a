/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests: bucket (dimension-decomposed ring / open line on tori and
 * meshes) and dbt (pipelined double binary tree) allreduce: verifier proofs
 * over every size and many grid shapes, the restrictions, step counts,
 * derived costs against the closed forms of Lu 2026a and Lu 2026b, and
 * link loads. */
#include "cost.h"
#include "links.h"
#include "unit_common.h"
#include "verify.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the contention-free closed forms (ut_ports_only) */
static void affine(const char *name, const topo_topology_t *t, int p, double *lat, double *bw)
{
    ut_affine(TOPO_PRIM_ALLREDUCE, name, p, 0, t, &ut_ports_only, lat, bw);
}

/* --- dbt ---------------------------------------------------------------- */

/* Every size 1..130 on a star, order-preserving (the verifier's ordered
 * mode, since dbt does not carry TOPO_ALG_COMMUTATIVE); loop index = sizes
 * congruent to it mod 8 (few forks: each costs an ASan process). */
START_TEST(test_dbt_all_sizes)
{
    topo_topology_t star = ut_topo("star"), fm = ut_topo("fullmesh");
    char msg[512];
    ck_assert(!(ut_allreduce("dbt")->flags & TOPO_ALG_COMMUTATIVE));
    for (int p = 1 + _i; p <= 130; p += 8) {
        topo_gen_args_t a = {TOPO_PRIM_ALLREDUCE, p, 0, 0, &star};
        int rc = topo_verify_algo(ut_allreduce("dbt"), &a, msg, sizeof(msg));
        ck_assert_msg(rc == TOPO_OK, "dbt p=%d: %s", p, msg);
        /* the schedule does not depend on the topology */
        a.topo = &fm;
        ck_assert_int_eq(topo_verify_algo(ut_allreduce("dbt"), &a, msg, sizeof(msg)), TOPO_OK);
    }
}
END_TEST

/* Shape: two lanes (one per tree) of S = 2 ceil(log2 p) segments each;
 * lane l takes S + 2 H_l - 1 steps with H_0 = floor(log2 p) and H_1 =
 * floor(log2 (p + 1)) (App. C: L + P - 1 slots, L = 2H). */
START_TEST(test_dbt_steps)
{
    topo_topology_t star = ut_topo("star");
    for (int p = 1; p <= 130; p++) {
        topo_sched_t *sc = ut_gen_allreduce("dbt", p, &star);
        if (1 == p) {
            ck_assert_int_eq(topo_sched_depth(&sc[0]), 0);
            ut_free_all(sc, p);
            continue;
        }
        int S = 2 * ut_clog2(p);
        ck_assert_int_eq(sc[0].nlanes, 2);
        ck_assert_int_eq(sc[0].nblocks, 2 * S);
        ck_assert_int_eq(sc[0].lanes[0].nsteps, S + 2 * ut_flog2(p) - 1);
        ck_assert_int_eq(sc[0].lanes[1].nsteps, S + 2 * ut_flog2(p + 1) - 1);
        /* the taller tree is never taller than ceil(log2 p) */
        ck_assert_int_le(ut_flog2(p + 1), ut_clog2(p));
        ck_assert_int_le(topo_sched_depth(&sc[0]), 4 * ut_clog2(p) - 1);
        ut_free_all(sc, p);
    }
    /* Lu 2026a sec. 5.2's N = 4: trees of depth 2, S = 4: 4 + 4 - 1 */
    topo_sched_t *sc = ut_gen_allreduce("dbt", 4, &star);
    ck_assert_int_eq(topo_sched_depth(&sc[0]), 7);
    ut_free_all(sc, 4);
}
END_TEST

/* The trees are complementary: every rank reduces (is interior) in exactly
 * one tree, and talks to at most 4 ranks (parent and two children in that
 * tree, its parent in the other); per step it sends at most 4 messages. */
START_TEST(test_dbt_trees_complementary)
{
    topo_topology_t star = ut_topo("star");
    for (int p = 2; p <= 130; p++) {
        topo_sched_t *sc = ut_gen_allreduce("dbt", p, &star);
        int root[2] = {-1, -1};
        for (int r = 0; r < p; r++) {
            const topo_sched_t *s = &sc[r];
            int interior = 0, peers[8], npeers = 0;
            for (int l = 0; l < s->nlanes; l++) {
                int reduces = 0, copies = 0;
                for (int st = 0; st < s->lanes[l].nsteps; st++) {
                    const topo_step_t *step = topo_sched_explicit_step(s, l, st);
                    for (int i = 0; i < step->nxfers; i++) {
                        const topo_xfer_t *x = &s->xfers[step->xfer0 + i];
                        reduces += x->kind == TOPO_XFER_RECV_REDUCE ||
                                   x->kind == TOPO_XFER_RECV_REDUCE_POST;
                        int known = 0;
                        for (int k = 0; k < npeers; k++) {
                            known |= peers[k] == x->peer;
                        }
                        if (!known) {
                            ck_assert_int_lt(npeers, 4);
                            peers[npeers++] = x->peer;
                        }
                    }
                }
                /* the root of a tree is the one rank that receives no
                 * result from a parent */
                for (int st = 0; st < s->lanes[l].nsteps; st++) {
                    const topo_step_t *step = topo_sched_explicit_step(s, l, st);
                    for (int i = 0; i < step->nxfers; i++) {
                        copies += s->xfers[step->xfer0 + i].kind == TOPO_XFER_RECV_COPY;
                    }
                }
                if (0 == copies) {
                    ck_assert_msg(root[l] < 0, "p=%d: tree %d has two roots", p, l);
                    root[l] = r;
                }
                interior += reduces > 0;
            }
            ck_assert_msg(interior == 1, "p=%d rank %d is interior in %d trees", p, r, interior);
            for (int st = 0; st < topo_sched_depth(s); st++) {
                int sends = 0;
                for (int l = 0; l < s->nlanes; l++) {
                    if (st < s->lanes[l].nsteps) {
                        const topo_step_t *step = topo_sched_explicit_step(s, l, st);
                        for (int i = 0; i < step->nxfers; i++) {
                            sends += s->xfers[step->xfer0 + i].kind == TOPO_XFER_SEND;
                        }
                    }
                }
                ck_assert_int_le(sends, 4);
            }
        }
        /* one root per tree, on different ranks */
        ck_assert(root[0] >= 0 && root[1] >= 0 && root[0] != root[1]);
        ut_free_all(sc, p);
    }
}
END_TEST

/* The verifier's ordered mode is not vacuous for dbt: swapping the side of
 * one combination breaks rank order but not the sum. */
START_TEST(test_dbt_order_mutation)
{
    topo_topology_t star = ut_topo("star");
    char msg[512];
    for (int p = 3; p <= 40; p++) {
        topo_sched_t *sc = ut_gen_allreduce("dbt", p, &star);
        ck_assert_int_eq(topo_verify(sc, p, TOPO_PRIM_ALLREDUCE, 0, 1, msg, sizeof(msg)), TOPO_OK);
        /* first combining transfer of some rank: flip its side */
        int done = 0;
        for (int r = 0; r < p && !done; r++) {
            done = ut_retype_first(&sc[r], TOPO_XFER_RECV_REDUCE, TOPO_XFER_RECV_REDUCE_POST);
        }
        ck_assert(done);
        ck_assert_int_eq(topo_verify(sc, p, TOPO_PRIM_ALLREDUCE, 0, 0, msg, sizeof(msg)), TOPO_OK);
        ck_assert_int_eq(topo_verify(sc, p, TOPO_PRIM_ALLREDUCE, 0, 1, msg, sizeof(msg)),
                         TOPO_EINVAL);
        ck_assert_ptr_nonnull(strstr(msg, "rank order"));
        ut_free_all(sc, p);
    }
}
END_TEST

/* Cost.  Lu 2026a (sec. 5.2) gives DBT pipelined as
 * 2 ceil(log2 N) alpha + M/BW at the optimal P*, which is the App. C master
 * formula t = (L + P - 1)(alpha + (M/2P)/BW) with L = 2H and the per-segment
 * payload M/(2P) that sec. 5.2 prescribes.  Our P = S is
 * fixed (schedules are count-independent), so the exact form is the master
 * formula itself: on a fabric with ports for every concurrent message
 * (fullmesh, p >= 5) every step costs alpha + one segment. */
START_TEST(test_dbt_cost_master_formula)
{
    topo_topology_t fm = ut_topo("fullmesh");
    for (int p = 5; p <= 130; p++) {
        double lat, bw;
        affine("dbt", &fm, p, &lat, &bw);
        int L = 2 * ut_flog2(p + 1), P = 2 * ut_clog2(p);
        ut_assert_near(lat, L + P - 1);
        ut_assert_near(bw, (double)(L + P - 1) / (2.0 * P));
        /* within (L - 1)/(2P) < 1/2 of the papers' asymptotic M/BW floor;
         * at P* the correction is 2 sqrt((L-1) alpha M/BW) instead */
        ck_assert(bw < 1.0);
    }
}
END_TEST

/* On a one-port star a rank's sends serialise: an interior rank sends its
 * half up once and down twice, a leaf its other half up once, 2M in all
 * (Lu 2026a C.5: "near 2 M/BW in practice"), so the derived bandwidth term
 * lies between the per-rank volume and 4 segments per step. */
START_TEST(test_dbt_cost_star)
{
    topo_topology_t star = ut_topo("star");
    static const struct {
        int p;
        double lat, bw;
    } c[] = {/* measured: 2 <= bw < 4 (L + P - 1)/(2P) */
             {4, 7, 2.25},
             {8, 11, 2.5},
             {16, 15, 2.625},
             {64, 23, 2.75},
             {100, 25, 2.642857142857},
             {128, 27, 2.785714285714}};
    for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
        double lat, bw;
        affine("dbt", &star, c[i].p, &lat, &bw);
        ut_assert_near(lat, c[i].lat);
        ck_assert_msg(fabs(bw - c[i].bw) < 1e-9, "p=%d bw %.12g", c[i].p, bw);
    }
    for (int p = 3; p <= 130; p++) {
        double lat, bw;
        affine("dbt", &star, p, &lat, &bw);
        int L = 2 * ut_flog2(p + 1), P = 2 * ut_clog2(p);
        ck_assert_msg(bw >= 1.5 && bw <= 4.0 * (L + P - 1) / (2.0 * P), "p=%d bw=%g", p, bw);
    }
}
END_TEST

/* --- bucket ------------------------------------------------------------- */

/* Verify bucket on one grid; returns the schedules' depth. */
static int verify_grid(const char *str)
{
    topo_topology_t t = ut_topo(str);
    int p = topo_topology_size(&t);
    topo_gen_args_t a = {TOPO_PRIM_ALLREDUCE, p, 0, 0, &t};
    char msg[512];
    int rc = topo_verify_algo(ut_allreduce("bucket"), &a, msg, sizeof(msg));
    ck_assert_msg(rc == TOPO_OK, "bucket on %s: %s", str, msg);
    topo_sched_t s;
    ck_assert_int_eq(topo_algo_generate(ut_allreduce("bucket"), &a, &s), TOPO_OK);
    int depth = topo_sched_depth(&s);
    int want = 0, lanes = 0;
    for (int i = 0; i < t.ndims; i++) {
        want += 2 * (t.dims[i] - 1);
        lanes += t.dims[i] > 1 ? (t.periodic[i] ? 2 : 1) : 0;
    }
    ck_assert_msg(depth == want, "%s: %d steps, expected 2 sum(d_i - 1) = %d", str, depth, want);
    ck_assert_int_eq(s.nlanes, lanes);
    for (int l = 0; l < s.nlanes; l++) {
        ck_assert_int_eq(s.lanes[l].nsteps, want);
    }
    topo_sched_free(&s);
    return depth;
}

/* 2-D tori and meshes a x b with a * b <= 130 (including size-1 and
 * size-2 dimensions): every shape up to 64 ranks, and beyond that one of
 * each transposed pair (a <= b; the generator treats the dimensions alike)
 * and N x 1 only up to N = 16 (1 x N covers the lines and rings): a sweep
 * that fits the ASan time budget.  Loop index = first dimensions congruent
 * to it mod 8. */
START_TEST(test_bucket_2d)
{
    char str[64];
    for (int a = 1 + _i; a <= 130; a += 8) {
        for (int b = 1; a * b <= 130; b++) {
            if ((a * b > 64 && a > b) || (1 == b && a > 16)) {
                continue;
            }
            snprintf(str, sizeof(str), "torus:%dx%d", a, b);
            verify_grid(str);
            snprintf(str, sizeof(str), "mesh:%dx%d", a, b);
            verify_grid(str);
        }
    }
}
END_TEST

/* Every 3-D shape up to 6x6x6; loop index = first dimension - 1. */
START_TEST(test_bucket_3d)
{
    char str[64];
    int a = _i + 1;
    for (int b = 1; b <= 6; b++) {
        for (int c = 1; c <= 6; c++) {
            snprintf(str, sizeof(str), "torus:%dx%dx%d", a, b, c);
            verify_grid(str);
            snprintf(str, sizeof(str), "mesh:%dx%dx%d", a, b, c);
            verify_grid(str);
        }
    }
}
END_TEST

START_TEST(test_bucket_named_shapes)
{
    static const char *const s[] = {
        "torus:1",     "mesh:1",       "torus:2",          "mesh:2",     "torus:7",
        "mesh:7",      "torus:3x5",    "mesh:3x5",         "torus:2x8",  "mesh:2x8",
        "torus:6x6x2", "mesh:6x6x2",   "torus:8x8x8",      "mesh:8x8x8", "torus:2x2x2x2",
        "torus:3x1x4", "mesh:2x3x2x2", "torus:4x4,ports=1"};
    for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++) {
        verify_grid(s[i]);
    }
    /* the papers' counts: 2x2x2 -> 6, 4x4x4 -> 18, 8x8x8 -> 42 (Lu 2026b 3.4) */
    ck_assert_int_eq(verify_grid("torus:2x2x2"), 6);
    ck_assert_int_eq(verify_grid("torus:4x4x4"), 18);
    ck_assert_int_eq(verify_grid("torus:8x8x8"), 42);
}
END_TEST

/* bucket combines cyclically (rings) and in a different dimension order per
 * lane: commutative only, and the ordered verifier says so. */
START_TEST(test_bucket_needs_commutative)
{
    char msg[512];
    static const char *const s[] = {"torus:4", "torus:3x3", "mesh:3x3", "mesh:2x2"};
    ck_assert(ut_allreduce("bucket")->flags & TOPO_ALG_COMMUTATIVE);
    for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++) {
        topo_topology_t t = ut_topo(s[i]);
        int p = topo_topology_size(&t);
        topo_sched_t *sc = ut_gen_allreduce("bucket", p, &t);
        ck_assert_int_eq(topo_verify(sc, p, TOPO_PRIM_ALLREDUCE, 0, 0, msg, sizeof(msg)), TOPO_OK);
        ck_assert_int_eq(topo_verify(sc, p, TOPO_PRIM_ALLREDUCE, 0, 1, msg, sizeof(msg)),
                         TOPO_EINVAL);
        ut_free_all(sc, p);
    }
}
END_TEST

/* A schedule that drops one receive must be caught (the sweep above is not
 * vacuous). */
START_TEST(test_bucket_mutation)
{
    char msg[512];
    topo_topology_t t = ut_topo("torus:3x4");
    topo_sched_t *sc = ut_gen_allreduce("bucket", 12, &t);
    /* rank 5's last allgather receive lands one chunk off */
    topo_xfer_t *x = &sc[5].xfers[sc[5].nxfers - 1];
    ck_assert_int_eq(x->kind, TOPO_XFER_RECV_COPY);
    sc[5].ranges[x->range0].first ^= 1;
    ck_assert_int_eq(topo_verify(sc, 12, TOPO_PRIM_ALLREDUCE, 0, 0, msg, sizeof(msg)), TOPO_EINVAL);
    ut_free_all(sc, 12);
    /* a mesh rank that reduces instead of copying in the allgather */
    t = ut_topo("mesh:4x3");
    sc = ut_gen_allreduce("bucket", 12, &t);
    int done = 0;
    for (int i = sc[7].nxfers - 1; i >= 0 && !done; i--) {
        if (sc[7].xfers[i].kind == TOPO_XFER_RECV_COPY) {
            sc[7].xfers[i].kind = TOPO_XFER_RECV_REDUCE;
            done = 1;
        }
    }
    ck_assert(done);
    ck_assert_int_eq(topo_verify(sc, 12, TOPO_PRIM_ALLREDUCE, 0, 0, msg, sizeof(msg)), TOPO_EINVAL);
    ck_assert_ptr_nonnull(strstr(msg, "twice"));
    ut_free_all(sc, 12);
}
END_TEST

/* Not a candidate off the grid, with a reason; the generator refuses rather
 * than running a plain ring. */
START_TEST(test_bucket_restrictions)
{
    char why[256];
    const topo_algo_t *b = ut_allreduce("bucket");
    topo_topology_t star = ut_topo("star"), fm = ut_topo("fullmesh"), t44 = ut_topo("torus:4x4"),
                    m23 = ut_topo("mesh:2x3");
    topo_gen_args_t a = {TOPO_PRIM_ALLREDUCE, 16, 0, 0, &star};
    ck_assert_int_eq(topo_algo_fits(b, &a, TOPO_OP_EXACT, why, sizeof(why)), 0);
    ck_assert_ptr_nonnull(strstr(why, "torus or mesh"));
    ck_assert_ptr_nonnull(strstr(why, "bucket"));
    a.topo = &fm;
    ck_assert_int_eq(topo_algo_fits(b, &a, TOPO_OP_EXACT, why, sizeof(why)), 0);
    a.topo = &t44;
    ck_assert_int_eq(topo_algo_fits(b, &a, TOPO_OP_EXACT, why, sizeof(why)), 1);
    ck_assert_int_eq(topo_algo_fits(b, &a, TOPO_OP_ORDERED, why, sizeof(why)), 0);
    ck_assert_ptr_nonnull(strstr(why, "commutative"));
    a.size = 15; /* a 4x4 torus is not a 15-rank communicator */
    ck_assert_int_eq(topo_algo_fits(b, &a, TOPO_OP_EXACT, why, sizeof(why)), 0);
    a.topo = &m23;
    a.size = 6;
    ck_assert_int_eq(topo_algo_fits(b, &a, TOPO_OP_EXACT, why, sizeof(why)), 1);
    /* generating anyway fails cleanly */
    topo_sched_t s;
    a.topo = &star;
    a.size = 16;
    ck_assert_int_eq(topo_algo_generate(b, &a, &s), TOPO_ENOTSUP);
    topo_sched_free(&s);
    a.topo = &t44;
    a.size = 8;
    ck_assert_int_eq(topo_algo_generate(b, &a, &s), TOPO_ENOTSUP);
    topo_sched_free(&s);
    /* dbt has no restriction */
    a.topo = &star;
    a.size = 7;
    ck_assert_int_eq(topo_algo_fits(ut_allreduce("dbt"), &a, TOPO_OP_ORDERED, why, sizeof(why)), 1);
}
END_TEST

/* Costs vs Lu 2026b (dim-decomposed ring: 2 sum(d_i - 1) alpha +
 * 2 (N-1)/N M/BW, single port) and the multiport form of De Sensi et al.
 * (2D lanes on a D-torus: 2 (N-1)/N (M/2D) beta). */
START_TEST(test_bucket_cost)
{
    /* one port: exactly the closed form, any torus shape (every rank sends
     * the same bytes in every step, so the busiest-rank sum telescopes) */
    static const char *const one[] = {
        "torus:8,ports=1",     "torus:4x4,ports=1",   "torus:3x5,ports=1",   "torus:2x8,ports=1",
        "torus:6x6x2,ports=1", "torus:8x8x8,ports=1", "torus:2x2x2,ports=1", "torus:5x1x3,ports=1"};
    for (size_t i = 0; i < sizeof(one) / sizeof(one[0]); i++) {
        topo_topology_t t = ut_topo(one[i]);
        int n = topo_topology_size(&t), sum = 0;
        for (int d = 0; d < t.ndims; d++) {
            sum += t.dims[d] - 1;
        }
        double lat, bw;
        affine("bucket", &t, n, &lat, &bw);
        ut_assert_near(lat, 2.0 * sum);
        ut_assert_near(bw, 2.0 * (n - 1) / n);
    }
    /* all ports: equal dimensions keep every lane in a different dimension
     * and direction, so each step costs one lane's message: the closed form
     * divided by the ports (2D on a torus with d >= 3, one per d = 2 axis);
     * an open line sends both ways at once, so a mesh gets D, not 2D
     * (Lu 2026b 4.2: the mesh has the unidirectional torus' cost) */
    static const struct {
        const char *t;
        double div;
    } all[] = {{"torus:8", 2},    {"torus:4x4", 4},   {"torus:8x8x8", 6}, {"torus:5x5x5", 6},
               {"torus:2x2", 2},  {"torus:2x2x2", 3}, {"mesh:8", 1},      {"mesh:4x4", 2},
               {"mesh:8x8x8", 3}, {"mesh:2x2x2", 3}};
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
        topo_topology_t t = ut_topo(all[i].t);
        int n = topo_topology_size(&t);
        double lat, bw;
        affine("bucket", &t, n, &lat, &bw);
        ck_assert_msg(fabs(bw - 2.0 * (n - 1) / n / all[i].div) < 1e-9, "%s: bw %.12g", all[i].t,
                      bw);
    }
    /* unequal dimensions: the lanes meet in one dimension now and then;
     * the lane shares (proportional to the first dimension, algo_bucket.c)
     * are set for the contention-aware price (test_bucket_lane_shares):
     * ports only, 3x5 costs 7/12 (equal shares: 0.6), 2x8 17/24 (2/3) */
    static const struct {
        const char *t;
        double bw;
    } uneq[] = {{"torus:3x5", 7.0 / 12.0}, {"torus:2x8", 17.0 / 24.0}};
    for (size_t i = 0; i < sizeof(uneq) / sizeof(uneq[0]); i++) {
        topo_topology_t t = ut_topo(uneq[i].t);
        int n = topo_topology_size(&t);
        double lat, bw;
        affine("bucket", &t, n, &lat, &bw);
        ck_assert_msg(fabs(bw - uneq[i].bw) < 1e-9, "%s: bw %.12g", uneq[i].t, bw);
    }
}
END_TEST

/* The reduce-scatter and allgather halves (`bucket` of those primitives)
 * through the verifier on tori and meshes, with sum(d_i - 1) steps, one
 * lane per dimension and direction, and, single-ported, exactly the
 * dimension-decomposed ring's closed form (Lu 2026b:
 * n_alpha = sum(d_i - 1), n_beta = (N-1)/N). */
START_TEST(test_bucket_halves)
{
    static const char *const shapes[] = {
        "torus:1",     "torus:2",     "mesh:2",     "torus:7",      "mesh:7",      "torus:3x5",
        "mesh:3x5",    "torus:2x8",   "mesh:2x8",   "torus:6x6x2",  "mesh:6x6x2",  "torus:4x4x4",
        "torus:1x9",   "torus:8x1x3", "mesh:2x3x2x2", "torus:2x2x2", "torus:5x5",  "torus:27x27"};
    static const topo_prim_t prims[] = {TOPO_PRIM_REDUCE_SCATTER, TOPO_PRIM_ALLGATHER};
    for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
        topo_topology_t t = ut_topo(shapes[i]);
        const int n = topo_topology_size(&t);
        int want = 0, lanes = 0;
        for (int d = 0; d < t.ndims; d++) {
            want += t.dims[d] - 1;
            lanes += t.dims[d] > 1 ? (t.periodic[d] ? 2 : 1) : 0;
        }
        for (int k = 0; k < 2; k++) {
            const topo_algo_t *algo = ut_algo(prims[k], "bucket");
            topo_gen_args_t a = {prims[k], n, 0, 0, &t};
            char msg[512];
            ck_assert_msg(TOPO_OK == topo_verify_algo(algo, &a, msg, sizeof(msg)), "%s %s: %s",
                          topo_prim_name(prims[k]), shapes[i], msg);
            topo_sched_t s;
            ck_assert_int_eq(topo_algo_generate(algo, &a, &s), TOPO_OK);
            ck_assert_int_eq(topo_sched_depth(&s), want);
            ck_assert_int_eq(s.nlanes, lanes > 0 ? lanes : 0);
            ck_assert_int_eq(s.nparts, lanes > 0 ? lanes : 1);
            topo_sched_free(&s);
        }
    }
    static const char *const one[] = {"torus:8,ports=1", "torus:4x4,ports=1", "torus:3x5,ports=1",
                                      "torus:6x6x2,ports=1", "mesh:4x4"};
    for (size_t i = 0; i < sizeof(one) / sizeof(one[0]); i++) {
        topo_topology_t t = ut_topo(one[i]);
        const int n = topo_topology_size(&t);
        int sum = 0;
        for (int d = 0; d < t.ndims; d++) {
            sum += t.dims[d] - 1;
        }
        for (int k = 0; k < 2; k++) {
            double lat, bw;
            ut_affine(prims[k], "bucket", n, 0, &t, &ut_ports_only, &lat, &bw);
            ck_assert_msg(fabs(lat - sum) < 1e-9, "%s %s: lat %g, want %d",
                          topo_prim_name(prims[k]), one[i], lat, sum);
            /* a torus ring sends (N-1)/N on one port; a mesh line (a port
             * per direction) the same bytes, both ways at once: no more */
            ck_assert_msg(fabs(bw - (double)(n - 1) / n) < 1e-9 ||
                              (t.kind == TOPO_NET_MESH && bw <= (double)(n - 1) / n + 1e-9),
                          "%s %s: bw %.12g, want (N-1)/N = %.12g", topo_prim_name(prims[k]),
                          one[i], bw, (double)(n - 1) / n);
        }
    }
}
END_TEST

/* alltoall bucket: the verifier on rings, tori and meshes; steps
 * sum floor(d_i/2) (torus) or sum (d_i - 1) (mesh); every message between
 * neighbours (one hop). */
START_TEST(test_bucket_alltoall)
{
    static const char *const shapes[] = {
        "torus:1",   "torus:2",     "mesh:2",     "torus:7",     "mesh:7",       "torus:8",
        "torus:3x5", "mesh:3x5",    "torus:2x8",  "mesh:2x8",    "torus:6x6x2",  "mesh:4x3x2",
        "torus:4x4x4", "torus:1x9", "torus:8x1x3", "mesh:2x3x2x2", "torus:2x2x2", "torus:5x5",
        "torus:12x12"};
    const topo_algo_t *algo = ut_algo(TOPO_PRIM_ALLTOALL, "bucket");
    for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
        topo_topology_t t = ut_topo(shapes[i]);
        const int n = topo_topology_size(&t);
        topo_gen_args_t a = {TOPO_PRIM_ALLTOALL, n, 0, 0, &t};
        char msg[512];
        ck_assert_msg(TOPO_OK == topo_verify_algo(algo, &a, msg, sizeof(msg)), "%s: %s",
                      shapes[i], msg);
        int want = 0;
        for (int d = 0; d < t.ndims; d++) {
            want += t.periodic[d] ? t.dims[d] / 2 : t.dims[d] - 1;
        }
        topo_sched_t *sc = ut_gen_all(TOPO_PRIM_ALLTOALL, "bucket", n, 0, &t);
        for (int r = 0; r < n; r++) {
            ck_assert_int_eq(topo_sched_depth(&sc[r]), n > 1 ? want : 1);
            for (int x = 0; x < sc[r].nxfers; x++) {
                const topo_xfer_t *xf = &sc[r].xfers[x];
                if (xf->kind != TOPO_XFER_COPY) {
                    ck_assert_int_eq(topo_topology_hops(&t, r, xf->peer), 1);
                }
            }
        }
        ut_free_all(sc, n);
    }
}
END_TEST

/* Link loads: every bucket message crosses one link; on equal dimensions no
 * directed link carries more than one message's worth in any step. */
START_TEST(test_bucket_links)
{
    static const struct {
        const char *t;
        double cong; /* max over steps of max_load / max_msg */
    } c[] = {{"torus:8", 1},     {"torus:4x4", 1},    {"torus:8x8x8", 1},
             {"torus:2x2x2", 1}, {"mesh:4x4", 1},     {"mesh:6x6x6", 1},
             {"torus:3x5", 1.2}, {"torus:2x8", 1.25}, {"torus:6x6x2", 4.0 / 3.0},
             {"mesh:3x5", 1.2}};
    for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
        topo_topology_t t = ut_topo(c[i].t);
        int n = topo_topology_size(&t), depth;
        topo_step_load_t *ld = ut_link_loads("bucket", &t, n, &depth);
        double cong = 0.0;
        for (int s = 0; s < depth; s++) {
            ck_assert_int_eq(ld[s].max_hops, 1);
            ck_assert_int_gt(ld[s].messages, 0);
            double q = ld[s].max_load / ld[s].max_msg;
            cong = q > cong ? q : cong;
        }
        ck_assert_msg(fabs(cong - c[i].cong) < 1e-9, "%s: congestion %g", c[i].t, cong);
        free(ld);
    }
}
END_TEST

/* Lane shares on unequal tori (algo_bucket.c): on a x b, 3 <= a < b, the
 * lanes get parts a : b, and the contention-aware bandwidth term is the
 * minimum of the lockstep sum derived there, at c = x_B/b = 1/(2(a+b)):
 *   2c [(a-1) + (b-a)(1 + 1/b) + (a-1)/a],
 * below the same sum with equal parts (x = 1/4):
 *   2x [(a-1)/a + (b-a)(1/ab + 1/b) + (a-1)/ab].
 * Per step the link term exceeds the port term only in the 2(b-a) steps
 * where all four lanes are in dimension b, by the factor 1 + 1/b (equal
 * parts: 1 + 1/a); every other step costs its port term.  On 2 x b the
 * shares are 4 : b; 2x8 costs 5/6 (equal parts: 41/48), the middle steps
 * by the factor 1 + 2/b. */
START_TEST(test_bucket_lane_shares)
{
    static const int ab[][2] = {{3, 5}, {3, 4}, {4, 7}, {5, 9}, {3, 8}, {6, 10}, {7, 9}};
    for (size_t i = 0; i < sizeof(ab) / sizeof(ab[0]); i++) {
        const int a = ab[i][0], b = ab[i][1];
        char str[32];
        snprintf(str, sizeof(str), "torus:%dx%d", a, b);
        topo_topology_t t = ut_topo(str);
        double lat, bw, c = 1.0 / (2 * (a + b)), x = 0.25;
        ut_affine(TOPO_PRIM_ALLREDUCE, "bucket", a * b, 0, &t, NULL, &lat, &bw);
        double want = 2 * c * ((a - 1) + (b - a) * (1.0 + 1.0 / b) + (a - 1.0) / a);
        double equal =
            2 * x * ((a - 1.0) / a + (b - a) * (1.0 / (a * b) + 1.0 / b) + (a - 1.0) / (a * b));
        ck_assert_msg(fabs(bw - want) < 1e-9, "%s: bw %.12g, want %.12g", str, bw, want);
        ck_assert_msg(bw < equal - 1e-9, "%s: %g not below equal shares' %g", str, bw, equal);
        topo_gen_args_t ga = {TOPO_PRIM_ALLREDUCE, a * b, 0, 0, &t};
        topo_cost_step_t *st;
        int depth, shared = 0;
        ck_assert_int_eq(topo_cost_steps(ut_allreduce("bucket"), &ga, &ut_unit, NULL, &st, &depth),
                         TOPO_OK);
        /* four lanes of n = 2 (a + b - 2) steps each (lane l's step s at
         * l * n + s), every lane busy in every step: the busiest port of a
         * step is its lanes' largest, the link theirs (all lanes' loads) */
        const int n = 2 * (a + b - 2);
        ck_assert_int_eq(depth, 4 * n);
        ck_assert_int_eq(st[depth - 1].lane, 3);
        for (int s = 0; s < n; s++) {
            double port = 0.0, link = st[s].link;
            for (int l = 0; l < 4; l++) {
                port = fmax(port, st[l * n + s].port);
                ut_assert_near(st[l * n + s].link, link);
            }
            if (link > port + 1e-12) {
                shared++;
                ut_assert_near(link / port, 1.0 + 1.0 / b);
                ut_assert_near(port, c);
            }
        }
        free(st);
        ck_assert_int_eq(shared, 2 * (b - a));
    }
    topo_topology_t t = ut_topo("torus:2x8");
    double lat, bw;
    ut_affine(TOPO_PRIM_ALLREDUCE, "bucket", 16, 0, &t, NULL, &lat, &bw);
    ut_assert_near(bw, 5.0 / 6.0);
    ck_assert(bw < 41.0 / 48.0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("bucket_dbt");
    TCase *dbt = ut_tcase(s, "dbt", 300);
    tcase_add_loop_test(dbt, test_dbt_all_sizes, 0, 8);
    tcase_add_test(dbt, test_dbt_steps);
    tcase_add_test(dbt, test_dbt_trees_complementary);
    tcase_add_test(dbt, test_dbt_order_mutation);
    tcase_add_test(dbt, test_dbt_cost_master_formula);
    tcase_add_test(dbt, test_dbt_cost_star);
    /* test_bucket_2d: up to 1.1 s idle (-O2), 6 s at load 15 on 2 cores */
    TCase *sweep = ut_tcase(s, "bucket_sweep", 600);
    tcase_add_loop_test(sweep, test_bucket_2d, 0, 8);
    tcase_add_loop_test(sweep, test_bucket_3d, 0, 6);
    tcase_add_test(sweep, test_bucket_named_shapes);
    TCase *bucket = ut_tcase(s, "bucket", 300);
    tcase_add_test(bucket, test_bucket_needs_commutative);
    tcase_add_test(bucket, test_bucket_mutation);
    tcase_add_test(bucket, test_bucket_restrictions);
    tcase_add_test(bucket, test_bucket_cost);
    tcase_add_test(bucket, test_bucket_links);
    tcase_add_test(bucket, test_bucket_halves);
    tcase_add_test(bucket, test_bucket_alltoall);
    tcase_add_test(bucket, test_bucket_lane_shares);
    return ut_run_suite(s);
}
