/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests: the rooted bucket broadcast and reduce (dimension-decomposed,
 * pipelined, on tori and meshes: algo_bucket_rooted.c) and the double
 * binary tree broadcast (algo_double_binary_tree.c): verifier proofs for
 * every root at small sizes and samples beyond, step and block counts,
 * derived costs against the closed forms of Lu 2026a and Lu 2026b (sec.
 * 5.1), link loads, the combination order, restrictions and mutations the
 * verifier must reject. */
#include "cost.h"
#include "links.h"
#include "unit_common.h"
#include "verify.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const topo_algo_t *bcast(const char *name)
{
    return ut_algo(TOPO_PRIM_BCAST, name);
}

static const topo_algo_t *reduce(const char *name)
{
    return ut_algo(TOPO_PRIM_REDUCE, name);
}

/* The steps of lane l of every rank of sc are equal; returns them. */
static int lane_steps(const topo_sched_t *sc, int p, int l)
{
    for (int r = 1; r < p; r++) {
        ck_assert_int_eq(sc[r].nlanes, sc[0].nlanes);
        ck_assert_int_eq(sc[r].lanes[l].nsteps, sc[0].lanes[l].nsteps);
        ck_assert_int_eq(sc[r].nblocks, sc[0].nblocks);
    }
    return sc[0].lanes[l].nsteps;
}

/* --- dbt broadcast ------------------------------------------------------- */

/* S per half and the lanes' steps: tree 0 spans labels [1, q], tree 1
 * [2, q + 1] over the q = p - 1 ranks besides the root (heights floor(log2
 * q) and floor(log2 (q + 1)), 0 for q = 1); a lane takes S + H_l steps. */
static int dbt_S(int p)
{
    return 4 * ut_clog2(p);
}

static int dbt_H(int p, int l)
{
    return p <= 2 ? 0 : ut_flog2(p - 1 + l);
}

/* Every size 1..130 at roots 0, p/2 and p-1 (loop index: sizes congruent
 * to it mod 8); no restriction, and the schedule is the same on any
 * topology. */
START_TEST(test_dbt_bcast_sizes)
{
    topo_topology_t star = ut_topo("star"), t = ut_topo("torus:4x4");
    const topo_algo_t *al = bcast("dbt");
    char msg[512];
    ck_assert_int_eq(al->flags & (TOPO_ALG_COMMUTATIVE | TOPO_ALG_GRID), 0);
    for (int p = 1 + _i; p <= 130; p += 8) {
        const int roots[3] = {0, p / 2, p - 1};
        for (int k = 0; k < 3; k++) {
            topo_gen_args_t a = {TOPO_PRIM_BCAST, p, 0, roots[k], &star};
            ck_assert_int_eq(topo_algo_fits(al, &a, TOPO_OP_ORDERED, msg, sizeof(msg)), 1);
            int rc = topo_verify_algo(al, &a, msg, sizeof(msg));
            ck_assert_msg(rc == TOPO_OK, "dbt bcast p=%d root=%d: %s", p, roots[k], msg);
        }
    }
    topo_gen_args_t a = {TOPO_PRIM_BCAST, 16, 0, 5, &t};
    ck_assert_int_eq(topo_verify_algo(al, &a, msg, sizeof(msg)), TOPO_OK);
}
END_TEST

/* Every root at every size 1..33 (as check_primitives.c does for the others). */
START_TEST(test_dbt_bcast_every_root)
{
    topo_topology_t star = ut_topo("star");
    char msg[512];
    for (int p = 1; p <= 33; p++) {
        for (int root = 0; root < p; root++) {
            topo_gen_args_t a = {TOPO_PRIM_BCAST, p, 0, root, &star};
            int rc = topo_verify_algo(bcast("dbt"), &a, msg, sizeof(msg));
            ck_assert_msg(rc == TOPO_OK, "dbt bcast p=%d root=%d: %s", p, root, msg);
        }
    }
}
END_TEST

/* Shape and load: two lanes of S + H_l steps over 2S blocks; the root sends
 * each block once (one hand-off per half: M), every other rank receives
 * each block once and forwards in one tree only (interior in one, a leaf
 * in the other), at most two messages per step and at most M in all. */
START_TEST(test_dbt_bcast_shape)
{
    topo_topology_t star = ut_topo("star");
    for (int p = 1; p <= 130; p++) {
        const int root = (p * 7) / 11;
        topo_sched_t *sc = ut_gen_all(TOPO_PRIM_BCAST, "dbt", p, root, &star);
        if (1 == p) {
            ck_assert_int_eq(topo_sched_depth(&sc[0]), 0);
            ut_free_all(sc, p);
            continue;
        }
        const int S = dbt_S(p);
        ck_assert_int_eq(sc[0].nblocks, 2 * S);
        ck_assert_int_eq(sc[0].nlanes, 2);
        ck_assert_int_eq(lane_steps(sc, p, 0), S + dbt_H(p, 0));
        ck_assert_int_eq(lane_steps(sc, p, 1), S + dbt_H(p, 1));
        ck_assert_int_le(topo_sched_depth(&sc[0]), 4 * ut_clog2(p) + ut_flog2(p));
        int tree_root[2] = {-1, -1};
        for (int r = 0; r < p; r++) {
            const topo_sched_t *s = &sc[r];
            int sent = 0, got = 0, forwarding_lanes = 0;
            for (int l = 0; l < 2; l++) {
                int lane_sent = 0;
                for (int st = 0; st < s->lanes[l].nsteps; st++) {
                    const topo_step_t *step = topo_sched_explicit_step(s, l, st);
                    int sends = 0;
                    for (int i = 0; i < step->nxfers; i++) {
                        const topo_xfer_t *x = &s->xfers[step->xfer0 + i];
                        if (x->kind == TOPO_XFER_SEND) {
                            sends++;
                            lane_sent += x->nblk;
                            if (r == root) {
                                /* the hand-off: always to the same rank */
                                ck_assert(tree_root[l] < 0 || tree_root[l] == x->peer);
                                tree_root[l] = x->peer;
                            }
                        } else {
                            ck_assert_int_eq(x->kind, TOPO_XFER_RECV_COPY);
                            got += x->nblk;
                        }
                    }
                    ck_assert_int_le(sends, 2);
                }
                sent += lane_sent;
                forwarding_lanes += lane_sent > 0;
            }
            if (r == root) {
                ck_assert_int_eq(sent, 2 * S);
                ck_assert_int_eq(got, 0);
            } else {
                ck_assert_int_le(sent, 2 * S);
                ck_assert_int_le(forwarding_lanes, 1);
                ck_assert_int_eq(got, 2 * S);
            }
        }
        /* the trees' roots are different ranks from p = 3 on */
        ck_assert(tree_root[0] >= 0 && tree_root[1] >= 0);
        ck_assert(p < 3 || tree_root[0] != tree_root[1]);
        ut_free_all(sc, p);
    }
}
END_TEST

/* Cost.  Seed 001 App. C's master formula with L = H + 1 (the hand-off and
 * the tree) and P = S segments per half: (L + P - 1)(alpha + M/(2P BW))
 * where every concurrent message has its own port (full mesh, p >= 3:
 * a rank sends and receives at most two per step).  On a one-port star a
 * rank moves both halves through its port: between M (the root's floor)
 * and (L + P - 1)/P M <= 5/4 M, against the pipelined binomial tree's
 * ceil(log2 N) alpha + M/BW (Lu 2026a App. C) at P*. */
START_TEST(test_dbt_bcast_cost)
{
    topo_topology_t star = ut_topo("star"), fm = ut_topo("fullmesh");
    for (int p = 2; p <= 130; p++) {
        const int S = dbt_S(p), H = dbt_H(p, 1), root = p / 3;
        double lat, bw;
        ut_affine(TOPO_PRIM_BCAST, "dbt", p, root, &fm, &ut_ports_only, &lat, &bw);
        ut_assert_near(lat, S + H);
        if (p >= 3) {
            ut_assert_near(bw, (double)(S + H) / (2.0 * S));
        } else {
            ut_assert_near(bw, 1.0); /* one port: both halves to rank 1 */
        }
        ut_affine(TOPO_PRIM_BCAST, "dbt", p, root, &star, NULL, &lat, &bw);
        ut_assert_near(lat, S + H);
        ck_assert_msg(bw >= 1.0 - 1e-9 && bw <= (double)(S + H) / S + 1e-9, "p=%d bw=%g", p, bw);
        ck_assert(bw <= 1.25 + 1e-9);
    }
    /* p = 8: S = 12; over the 7 other ranks tree 0 (labels 1..7) has
     * height 2, tree 1 (labels 2..8: 8 -> 4 -> 2 -> 3) height 3: 15 steps
     * of one segment, M/24, each */
    ut_expect_affine(TOPO_PRIM_BCAST, "dbt", 8, 0, &fm, &ut_ports_only, 15.0, 15.0 / 24.0);
}
END_TEST

/* A forwarded segment moved one step early is sent before it is held. */
START_TEST(test_dbt_bcast_mutation)
{
    topo_topology_t star = ut_topo("star");
    char msg[512];
    const int p = 12, root = 4;
    topo_sched_t *sc = ut_gen_all(TOPO_PRIM_BCAST, "dbt", p, root, &star);
    ck_assert_int_eq(topo_verify(sc, p, TOPO_PRIM_BCAST, root, 0, msg, sizeof(msg)), TOPO_OK);
    /* a non-root rank's first send (segment 0) becomes segment 1, which it
     * receives in that same step; the receiver expects segment 1 too */
    int done = 0;
    for (int r = 0; r < p && !done; r++) {
        if (r == root) {
            continue;
        }
        for (int i = 0; i < sc[r].nxfers && !done; i++) {
            topo_xfer_t *x = &sc[r].xfers[i];
            if (x->kind != TOPO_XFER_SEND) {
                continue;
            }
            topo_range_t *rg = &sc[r].ranges[x->range0];
            /* the peer's receive of the same block from r */
            for (int k = 0; k < sc[x->peer].nxfers; k++) {
                topo_xfer_t *y = &sc[x->peer].xfers[k];
                topo_range_t *yr = &sc[x->peer].ranges[y->range0];
                if (y->kind == TOPO_XFER_RECV_COPY && y->peer == r && yr->first == rg->first) {
                    rg->first++;
                    yr->first++;
                    done = 1;
                    break;
                }
            }
        }
    }
    ck_assert(done);
    ck_assert_int_eq(topo_verify(sc, p, TOPO_PRIM_BCAST, root, 0, msg, sizeof(msg)), TOPO_EINVAL);
    ck_assert_ptr_nonnull(strstr(msg, "before holding"));
    ut_free_all(sc, p);
}
END_TEST

/* --- bucket broadcast and reduce ----------------------------------------- */

/* H, the tree's height for `root` on t: sum floor(d_i/2) on a torus, sum
 * max(x_i, d_i-1-x_i) on a mesh (x: the root's coordinates). */
static int bucket_H(const topo_topology_t *t, int root)
{
    int c[TOPO_MAX_DIMS], h = 0;
    topo_topology_coords(t, root, c);
    for (int i = 0; i < t->ndims; i++) {
        int d = t->dims[i], far = c[i] > d - 1 - c[i] ? c[i] : d - 1 - c[i];
        h += t->periodic[i] ? d / 2 : far;
    }
    return h;
}

static int bucket_S(int H)
{
    return 4 * H > 8 ? 4 * H : 8;
}

/* Verify bucket bcast and reduce on `str` for `root` (the reduce with any
 * combination order: the row is commutative-only) and check the shape: one
 * lane of S + H - 1 steps over S blocks. */
static void verify_bucket(const char *str, int root)
{
    topo_topology_t t = ut_topo(str);
    const int p = topo_topology_size(&t), H = bucket_H(&t, root), S = bucket_S(H);
    char msg[512];
    for (int k = 0; k < 2; k++) {
        const topo_algo_t *al = k ? reduce("bucket") : bcast("bucket");
        topo_gen_args_t a = {al->prim, p, 0, root, &t};
        ck_assert_int_eq(topo_algo_fits(al, &a, TOPO_OP_EXACT, msg, sizeof(msg)), 1);
        topo_sched_t *sc = ut_gen_all(al->prim, "bucket", p, root, &t);
        int rc = topo_verify(sc, p, al->prim, root, 0, msg, sizeof(msg));
        ck_assert_msg(rc == TOPO_OK, "bucket %s on %s root %d: %s", topo_prim_name(al->prim), str,
                      root, msg);
        if (1 == p) {
            ck_assert_int_eq(topo_sched_depth(&sc[0]), 0);
        } else {
            ck_assert_int_eq(sc[0].nlanes, 1);
            ck_assert_int_eq(sc[0].nblocks, S);
            ck_assert_msg(lane_steps(sc, p, 0) == S + H - 1, "%s root %d: %d steps, want %d", str,
                          root, sc[0].lanes[0].nsteps, S + H - 1);
        }
        ut_free_all(sc, p);
    }
}

/* Rings and lines of 1..16 ranks and every 2-D torus and mesh of at most 24
 * ranks (size-1 and size-2 dimensions, unequal ones), every root; loop
 * index = first dimension - 1. */
START_TEST(test_bucket_small_every_root)
{
    char str[64];
    const int a = _i + 1;
    for (int b = 1; a * b <= 24; b++) {
        for (int mesh = 0; mesh < 2; mesh++) {
            snprintf(str, sizeof(str), "%s:%dx%d", mesh ? "mesh" : "torus", a, b);
            for (int root = 0; root < a * b; root++) {
                verify_bucket(str, root);
            }
        }
    }
    if (a <= 16) {
        for (int mesh = 0; mesh < 2; mesh++) {
            snprintf(str, sizeof(str), "%s:%d", mesh ? "mesh" : "torus", a);
            for (int root = 0; root < a; root++) {
                verify_bucket(str, root);
            }
        }
    }
}
END_TEST

/* The papers' shapes, 3-D and 4-D ones, and 1 x N: every
 * root up to 36 ranks, else a sample of roots. */
START_TEST(test_bucket_shapes)
{
    static const char *const s[] = {
        "torus:3x5",     "mesh:3x5",         "torus:2x8",  "mesh:2x8",      "torus:6x6x2",
        "mesh:6x6x2",    "torus:4x4x4",      "mesh:4x4x4", "torus:2x2x2",   "mesh:2x2x2",
        "torus:3x3x3",   "torus:3x1x4",      "mesh:3x1x4", "torus:1x40",    "mesh:1x40",
        "torus:40x1",    "torus:27x27",      "mesh:27x27", "torus:2x2x2x2", "mesh:2x3x2x2",
        "torus:5x1x1x3", "torus:4x4,ports=1"};
    for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++) {
        topo_topology_t t = ut_topo(s[i]);
        const int p = topo_topology_size(&t);
        if (p <= 36) {
            for (int root = 0; root < p; root++) {
                verify_bucket(s[i], root);
            }
        } else {
            const int roots[] = {0, p - 1, p / 2, p / 3, 7 * p / 9};
            for (size_t k = 0; k < sizeof(roots) / sizeof(roots[0]); k++) {
                verify_bucket(s[i], roots[k]);
            }
        }
    }
}
END_TEST

/* Step counts of the papers' examples (Lu 2026b sec. 3.2: 3x3 torus, 2
 * latency steps, 1 per dimension; 2x2x2: 3): S + H - 1 with S = 8. */
START_TEST(test_bucket_paper_examples)
{
    topo_topology_t t = ut_topo("torus:3x3");
    ck_assert_int_eq(bucket_H(&t, 0), 2);
    topo_sched_t *sc = ut_gen_all(TOPO_PRIM_BCAST, "bucket", 9, 0, &t);
    ck_assert_int_eq(topo_sched_depth(&sc[0]), 8 + 2 - 1);
    /* step 0: a sends segment 0 both ways along X and both ways along Y
     * (Lu 2026b sec. 3.2's picture, pipelined) */
    const topo_step_t *st = topo_sched_explicit_step(&sc[0], 0, 0);
    ck_assert_int_eq(st->nxfers, 4);
    ut_free_all(sc, 9);
    t = ut_topo("torus:2x2x2");
    sc = ut_gen_all(TOPO_PRIM_REDUCE, "bucket", 8, 0, &t);
    ck_assert_int_eq(topo_sched_depth(&sc[0]), 12 + 3 - 1); /* S = 4H */
    ut_free_all(sc, 8);
    /* an open line from one end: d - 1; from the middle: half that */
    t = ut_topo("mesh:9");
    ck_assert_int_eq(bucket_H(&t, 0), 8);
    ck_assert_int_eq(bucket_H(&t, 4), 4);
    t = ut_topo("torus:9");
    ck_assert_int_eq(bucket_H(&t, 0), 4);
}
END_TEST

/* Costs (contention-free: ports only).  Every rank receives one segment
 * per step and sends at most one per link, and the root, the busiest,
 * sends on every link it has (as many as the grid's default ports), so
 * each of the S + H - 1 steps costs alpha + M/S: the master formula
 * (L + P - 1)(alpha + M/(P BW)) with L = H, P = S.  Against Lu 2026b sec. 5.1
 * (torus: sum floor(d_i/2) alpha + M/BW; mesh: the open line's
 * max(x_i, d_i-1-x_i) per dimension): the latency is H plus the pipeline's
 * S - 1 segments, the bandwidth term between M and 5/4 M.  With the links
 * modelled the cost is the same: one hop per message, one message per
 * directed link and step. */
START_TEST(test_bucket_cost)
{
    static const char *const s[] = {"torus:8",     "mesh:8",      "torus:3x3",   "torus:3x5",
                                    "mesh:3x5",    "torus:2x8",   "mesh:2x8",    "torus:6x6x2",
                                    "mesh:6x6x2",  "torus:4x4x4", "torus:2x2x2", "torus:1x12",
                                    "torus:27x27", "mesh:27x27",  "torus:8x8x8", "torus:3x1x4"};
    for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++) {
        topo_topology_t t = ut_topo(s[i]);
        const int p = topo_topology_size(&t);
        const int roots[] = {0, p / 2, p - 1, p / 3};
        for (size_t k = 0; k < sizeof(roots) / sizeof(roots[0]); k++) {
            const int H = bucket_H(&t, roots[k]), S = bucket_S(H);
            for (int pr = 0; pr < 2; pr++) {
                const topo_prim_t prim = pr ? TOPO_PRIM_REDUCE : TOPO_PRIM_BCAST;
                double lat, bw;
                ut_expect_affine(prim, "bucket", p, roots[k], &t, &ut_ports_only, S + H - 1.0,
                                 (S + H - 1.0) / S);
                ut_expect_affine(prim, "bucket", p, roots[k], &t, NULL, S + H - 1.0,
                                 (S + H - 1.0) / S);
                ut_affine(prim, "bucket", p, roots[k], &t, &ut_ports_only, &lat, &bw);
                ut_assert_near(lat - (S - 1), H);
                ck_assert(bw >= 1.0 && bw < 1.25);
            }
        }
    }
    /* one port: the root's sends serialise, up to 2k per step */
    double lat, bw;
    topo_topology_t t1 = ut_topo("torus:8,ports=1");
    ut_affine(TOPO_PRIM_BCAST, "bucket", 8, 0, &t1, &ut_ports_only, &lat, &bw);
    ut_assert_near(lat, 16 + 4 - 1);
    ck_assert(bw > 1.25 && bw <= 2.0 * (16 + 4 - 1) / 16);
}
END_TEST

/* Link loads: every message crosses one link, and no directed link carries
 * more than one message in a step. */
START_TEST(test_bucket_links)
{
    static const char *const s[] = {"torus:8",   "mesh:8",      "torus:3x5",  "mesh:3x5",
                                    "torus:2x8", "torus:6x6x2", "mesh:4x4x4", "torus:4x4x4"};
    for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++) {
        topo_topology_t t = ut_topo(s[i]);
        const int p = topo_topology_size(&t);
        for (int pr = 0; pr < 2; pr++) {
            const topo_prim_t prim = pr ? TOPO_PRIM_REDUCE : TOPO_PRIM_BCAST;
            topo_sched_t *sc = ut_gen_all(prim, "bucket", p, p / 3, &t);
            const int depth = topo_sched_depth(&sc[0]);
            topo_step_load_t *ld = calloc((size_t)depth, sizeof(*ld));
            ck_assert_ptr_nonnull(ld);
            ck_assert_int_eq(topo_link_loads(&t, sc, p, ld, depth), TOPO_OK);
            for (int st = 0; st < depth; st++) {
                ck_assert_int_eq(ld[st].max_hops, 1);
                ck_assert_msg(ld[st].max_load <= ld[st].max_msg + 1e-12,
                              "%s step %d: link load %g, message %g", s[i], st, ld[st].max_load,
                              ld[st].max_msg);
            }
            free(ld);
            ut_free_all(sc, p);
        }
    }
}
END_TEST

/* Combination order.  Open lines combine consecutive rank intervals, so a
 * mesh reduce is in rank order for every root (and a torus one when no
 * ring wraps: the root centred in each ring, or rings of at most 2); a
 * ring's wraparound joins rank d-1 to rank 0, which the ordered verifier
 * rejects: the row needs a commutative operation. */
static int ordered_ok(const char *str, int root)
{
    topo_topology_t t = ut_topo(str);
    const int p = topo_topology_size(&t);
    char msg[512];
    topo_sched_t *sc = ut_gen_all(TOPO_PRIM_REDUCE, "bucket", p, root, &t);
    ck_assert_int_eq(topo_verify(sc, p, TOPO_PRIM_REDUCE, root, 0, msg, sizeof(msg)), TOPO_OK);
    int rc = topo_verify(sc, p, TOPO_PRIM_REDUCE, root, 1, msg, sizeof(msg));
    ck_assert(rc == TOPO_OK || strstr(msg, "rank order"));
    ut_free_all(sc, p);
    return rc == TOPO_OK;
}

START_TEST(test_bucket_reduce_order)
{
    char why[256];
    ck_assert(reduce("bucket")->flags & TOPO_ALG_COMMUTATIVE);
    ck_assert(!(bcast("bucket")->flags & TOPO_ALG_COMMUTATIVE));
    static const char *const mesh[] = {"mesh:7",     "mesh:3x5",    "mesh:2x8",   "mesh:3x3x3",
                                       "mesh:1x6x2", "torus:2x2x2", "torus:2x1x2"};
    for (size_t i = 0; i < sizeof(mesh) / sizeof(mesh[0]); i++) {
        topo_topology_t t = ut_topo(mesh[i]);
        for (int root = 0; root < topo_topology_size(&t); root++) {
            ck_assert_msg(ordered_ok(mesh[i], root), "%s root %d not in rank order", mesh[i], root);
        }
    }
    /* torus:5x4: the root at (2, 1) wraps no ring, (0, 0) both */
    ck_assert(ordered_ok("torus:5x4", 2 * 4 + 1));
    ck_assert(!ordered_ok("torus:5x4", 0));
    ck_assert(!ordered_ok("torus:3x3", 0));
    /* so the row refuses non-commutative operations */
    topo_topology_t t = ut_topo("mesh:3x3");
    topo_gen_args_t a = {TOPO_PRIM_REDUCE, 9, 0, 0, &t};
    ck_assert_int_eq(topo_algo_fits(reduce("bucket"), &a, TOPO_OP_ORDERED, why, sizeof(why)), 0);
    ck_assert_ptr_nonnull(strstr(why, "commutative"));
    /* the ordered mode is not vacuous on a mesh: one partial on the wrong
     * side breaks rank order, not the sum */
    const int p = 15, root = 7;
    t = ut_topo("mesh:3x5");
    topo_sched_t *sc = ut_gen_all(TOPO_PRIM_REDUCE, "bucket", p, root, &t);
    char msg[512];
    ck_assert(ut_retype_first(&sc[root], TOPO_XFER_RECV_REDUCE, TOPO_XFER_RECV_REDUCE_POST));
    ck_assert_int_eq(topo_verify(sc, p, TOPO_PRIM_REDUCE, root, 0, msg, sizeof(msg)), TOPO_OK);
    ck_assert_int_eq(topo_verify(sc, p, TOPO_PRIM_REDUCE, root, 1, msg, sizeof(msg)), TOPO_EINVAL);
    ut_free_all(sc, p);
}
END_TEST

/* Broken schedules are caught: a rank that skips its last receive misses
 * a segment (bcast), a partial reduced twice (reduce). */
START_TEST(test_bucket_mutation)
{
    char msg[512];
    topo_topology_t t = ut_topo("torus:3x4");
    const int p = 12, root = 5;
    topo_sched_t *sc = ut_gen_all(TOPO_PRIM_BCAST, "bucket", p, root, &t);
    ck_assert_int_eq(topo_verify(sc, p, TOPO_PRIM_BCAST, root, 0, msg, sizeof(msg)), TOPO_OK);
    /* the farthest rank: its last transfer is the last segment's receive */
    int far = -1;
    for (int r = 0; r < p; r++) {
        if (topo_topology_hops(&t, r, root) == bucket_H(&t, root)) {
            far = r;
        }
    }
    ck_assert_int_ge(far, 0);
    topo_xfer_t *x = &sc[far].xfers[sc[far].nxfers - 1];
    ck_assert_int_eq(x->kind, TOPO_XFER_RECV_COPY);
    x->kind = TOPO_XFER_RECV_REDUCE; /* a copy of data it was to overwrite */
    ck_assert_int_eq(topo_verify(sc, p, TOPO_PRIM_BCAST, root, 0, msg, sizeof(msg)), TOPO_EINVAL);
    ut_free_all(sc, p);
    /* reduce: the root's first partial received as a copy drops its own
     * contribution and the other children's */
    sc = ut_gen_all(TOPO_PRIM_REDUCE, "bucket", p, root, &t);
    ck_assert_int_eq(topo_verify(sc, p, TOPO_PRIM_REDUCE, root, 0, msg, sizeof(msg)), TOPO_OK);
    int done = 0;
    for (int i = 0; i < sc[root].nxfers && !done; i++) {
        if (sc[root].xfers[i].kind != TOPO_XFER_SEND) {
            sc[root].xfers[i].kind = TOPO_XFER_RECV_COPY;
            done = 1;
        }
    }
    ck_assert(done);
    ck_assert_int_eq(topo_verify(sc, p, TOPO_PRIM_REDUCE, root, 0, msg, sizeof(msg)), TOPO_EINVAL);
    ut_free_all(sc, p);
}
END_TEST

/* Not a candidate off the grid or on a grid of another size, with a
 * reason; the generators refuse rather than fall back. */
START_TEST(test_bucket_restrictions)
{
    char why[256];
    topo_topology_t star = ut_topo("star"), fm = ut_topo("fullmesh"), t44 = ut_topo("torus:4x4");
    for (int k = 0; k < 2; k++) {
        const topo_algo_t *al = k ? reduce("bucket") : bcast("bucket");
        ck_assert(al->flags & TOPO_ALG_GRID);
        topo_gen_args_t a = {al->prim, 16, 0, 3, &star};
        ck_assert_int_eq(topo_algo_fits(al, &a, TOPO_OP_EXACT, why, sizeof(why)), 0);
        ck_assert_ptr_nonnull(strstr(why, "torus or mesh"));
        a.topo = &fm;
        ck_assert_int_eq(topo_algo_fits(al, &a, TOPO_OP_EXACT, why, sizeof(why)), 0);
        a.topo = &t44;
        ck_assert_int_eq(topo_algo_fits(al, &a, TOPO_OP_EXACT, why, sizeof(why)), 1);
        a.size = 12;
        a.root = 0;
        ck_assert_int_eq(topo_algo_fits(al, &a, TOPO_OP_EXACT, why, sizeof(why)), 0);
        topo_sched_t s;
        ck_assert_int_eq(topo_algo_generate(al, &a, &s), TOPO_ENOTSUP);
        topo_sched_free(&s);
        a.topo = &star;
        a.size = 16;
        ck_assert_int_eq(topo_algo_generate(al, &a, &s), TOPO_ENOTSUP);
        topo_sched_free(&s);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("bucket_dbt_rooted");
    /* test_dbt_bcast_shape: 0.9 s idle (-O2), 5 s at load 15 on 2 cores */
    TCase *dbt = ut_tcase(s, "dbt_bcast", 300);
    tcase_add_loop_test(dbt, test_dbt_bcast_sizes, 0, 8);
    tcase_add_test(dbt, test_dbt_bcast_every_root);
    tcase_add_test(dbt, test_dbt_bcast_shape);
    tcase_add_test(dbt, test_dbt_bcast_cost);
    tcase_add_test(dbt, test_dbt_bcast_mutation);
    TCase *sweep = ut_tcase(s, "bucket_sweep", 300);
    tcase_add_loop_test(sweep, test_bucket_small_every_root, 0, 16);
    tcase_add_test(sweep, test_bucket_shapes);
    TCase *bucket = ut_tcase(s, "bucket", 300);
    tcase_add_test(bucket, test_bucket_paper_examples);
    tcase_add_test(bucket, test_bucket_cost);
    tcase_add_test(bucket, test_bucket_links);
    tcase_add_test(bucket, test_bucket_reduce_order);
    tcase_add_test(bucket, test_bucket_mutation);
    tcase_add_test(bucket, test_bucket_restrictions);
    return ut_run_suite(s);
}
