/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests: bfb (breadth-first broadcast) allgather, reduce-scatter and
 * allreduce on tori and meshes: verifier proofs over every 2-D shape up to
 * 6x6, every 3-D shape up to 4x4x4 and rings and lines of 2..32; per-link
 * loads against the LP optimum (Zhao et al., "Efficient Direct-Connect
 * Topologies for Collective Communications", 2025, sec. 6.1), which on a
 * torus is n_t / d per step and (N - 1) / d in all; and the bandwidth term
 * of the cost model against bucket's on unequal tori. */
#include "algo.h"
#include "cost.h"
#include "unit_common.h"
#include "verify.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const topo_prim_t prims[] = {TOPO_PRIM_ALLGATHER, TOPO_PRIM_REDUCE_SCATTER,
                                    TOPO_PRIM_ALLREDUCE};

/* Every primitive of bfb on `str` through the verifier. */
static void verify_grid(const char *str)
{
    topo_topology_t t = ut_topo(str);
    const int p = topo_topology_size(&t);
    char msg[512];
    for (size_t k = 0; k < sizeof(prims) / sizeof(prims[0]); k++) {
        const topo_algo_t *al = ut_algo(prims[k], "bfb");
        topo_gen_args_t a = {prims[k], p, 0, 0, &t};
        int rc = topo_verify_algo(al, &a, msg, sizeof(msg));
        ck_assert_msg(rc == TOPO_OK, "bfb %s on %s: %s", topo_prim_name(prims[k]), str, msg);
    }
}

/* 2-D: a = loop index + 1, b = 1..6, torus and mesh. */
START_TEST(test_bfb_2d)
{
    char str[64];
    const int a = _i + 1;
    for (int b = 1; b <= 6; b++) {
        snprintf(str, sizeof(str), "torus:%dx%d", a, b);
        verify_grid(str);
        snprintf(str, sizeof(str), "mesh:%dx%d", a, b);
        verify_grid(str);
    }
}
END_TEST

/* 3-D up to 4x4x4: a = loop index + 1. */
START_TEST(test_bfb_3d)
{
    char str[64];
    const int a = _i + 1;
    for (int b = 1; b <= 4; b++) {
        for (int c = 1; c <= 4; c++) {
            snprintf(str, sizeof(str), "torus:%dx%dx%d", a, b, c);
            verify_grid(str);
            snprintf(str, sizeof(str), "mesh:%dx%dx%d", a, b, c);
            verify_grid(str);
        }
    }
}
END_TEST

/* Rings (and open lines) of 1..32. */
START_TEST(test_bfb_rings)
{
    char str[64];
    for (int n = 1; n <= 32; n++) {
        snprintf(str, sizeof(str), "torus:%d", n);
        verify_grid(str);
        snprintf(str, sizeof(str), "mesh:%d", n);
        verify_grid(str);
    }
    /* 4 dimensions; a dimension of 1; the tori of the cost tests; a mesh
     * over 128 ranks (parts lcm(1..4) = 12, not the exact lcm) */
    verify_grid("torus:2x2x2x2");
    verify_grid("mesh:2x3x2x2");
    verify_grid("mesh:3x1x4");
    verify_grid("torus:3x5");
    verify_grid("torus:2x8");
    verify_grid("torus:3x3x6");
    verify_grid("mesh:12x12");
}
END_TEST

/* The restrictions: a grid of the communicator's size, at most 4
 * dimensions larger than 1, commutative reductions. */
START_TEST(test_bfb_restrictions)
{
    char why[256];
    topo_topology_t star = ut_topo("star"), t = ut_topo("torus:3x5"),
                    t5 = ut_topo("torus:2x2x2x2x2");
    for (size_t k = 0; k < sizeof(prims) / sizeof(prims[0]); k++) {
        const topo_algo_t *al = ut_algo(prims[k], "bfb");
        topo_gen_args_t a = {prims[k], 15, 0, 0, &t};
        ck_assert(topo_algo_fits(al, &a, TOPO_OP_COMMUTATIVE, why, sizeof(why)));
        ck_assert_int_eq(topo_algo_fits(al, &a, TOPO_OP_ORDERED, why, sizeof(why)),
                         prims[k] == TOPO_PRIM_ALLGATHER);
        a.size = 16;
        ck_assert(!topo_algo_fits(al, &a, TOPO_OP_EXACT, why, sizeof(why)));
        a.topo = &star;
        ck_assert(!topo_algo_fits(al, &a, TOPO_OP_EXACT, why, sizeof(why)));
        a.size = 32;
        a.topo = &t5;
        ck_assert(!topo_algo_fits(al, &a, TOPO_OP_EXACT, why, sizeof(why)));
        ck_assert_ptr_nonnull(strstr(why, "dimensions"));
        topo_sched_t s;
        ck_assert_int_eq(topo_algo_generate(al, &a, &s), TOPO_ENOTSUP);
    }
}
END_TEST

/* --- per-link loads ----------------------------------------------------- */

/* The LP optimum of step t at receiver u (sec. 6.1 LP (1)), derived here
 * from hop counts alone: max over sets Q of u's in-neighbours of the
 * sources at distance t all of whose shortest-path in-neighbours lie in Q,
 * divided by |Q|.  Returned as a double. */
static double lp_optimum(const topo_topology_t *t, int p, int u, int step)
{
    int in[16], nin = 0;
    for (int w = 0; w < p; w++) {
        if (topo_topology_hops(t, w, u) == 1) {
            in[nin++] = w;
        }
    }
    ck_assert_int_le(nin, 16);
    double best = 0;
    for (int q = 1; q < (1 << nin); q++) {
        int size = 0, jobs = 0;
        for (int k = 0; k < nin; k++) {
            size += (q >> k) & 1;
        }
        for (int v = 0; v < p; v++) {
            if (topo_topology_hops(t, v, u) != step) {
                continue;
            }
            int inside = 1;
            for (int k = 0; k < nin; k++) {
                int on_path = 1 == step ? in[k] == v : topo_topology_hops(t, v, in[k]) == step - 1;
                if (on_path && !((q >> k) & 1)) {
                    inside = 0;
                }
            }
            jobs += inside;
        }
        best = (double)jobs / size > best ? (double)jobs / size : best;
    }
    return best;
}

/* Per step of the allgather (shards, i.e. blocks / nparts): the largest and
 * smallest message (a message is one link's load), into max[] and min[]
 * (depth entries); returns the depth. */
static int ag_loads(const topo_sched_t *sc, int p, double *max, double *min, int cap)
{
    const int depth = topo_sched_depth(&sc[0]);
    ck_assert_int_le(depth, cap);
    for (int s = 0; s < depth; s++) {
        max[s] = 0;
        min[s] = 1e300;
    }
    for (int r = 0; r < p; r++) {
        ck_assert_int_le(sc[r].nlanes, 1);
        for (int s = 0; s < topo_sched_depth(&sc[r]); s++) {
            const topo_step_t *st = topo_sched_explicit_step(&sc[r], 0, s);
            for (int x = st->xfer0; x < st->xfer0 + st->nxfers; x++) {
                if (sc[r].xfers[x].kind != TOPO_XFER_SEND) {
                    continue;
                }
                const double l = (double)sc[r].xfers[x].nblk / sc[r].nparts;
                max[s] = l > max[s] ? l : max[s];
                min[s] = l < min[s] ? l : min[s];
            }
        }
    }
    return depth;
}

static void check_loads(const char *str)
{
    topo_topology_t t = ut_topo(str);
    const int p = topo_topology_size(&t);
    const int torus = t.kind == TOPO_NET_TORUS;
    int d = 0;
    for (int i = 0; i < t.ndims; i++) {
        d += t.dims[i] > 2 ? 2 : t.dims[i] - 1; /* in-links of a rank */
    }
    double max[64], min[64], rmax[64], rmin[64], sum = 0;
    topo_sched_t *sc = ut_gen_all(TOPO_PRIM_ALLGATHER, "bfb", p, 0, &t);
    const int depth = ag_loads(sc, p, max, min, 64);
    ut_free_all(sc, p);
    int diam = 0;
    for (int v = 0; v < p; v++) {
        const int h = topo_topology_hops(&t, 0, v);
        diam = h > diam ? h : diam;
    }
    for (int s = 0; s < depth; s++) {
        double want = 0;
        if (torus) {
            int n_t = 0; /* nodes at distance s + 1: the same from every node */
            for (int v = 0; v < p; v++) {
                n_t += topo_topology_hops(&t, 0, v) == s + 1;
            }
            want = (double)n_t / d;
            /* every link carries exactly the optimum */
            ck_assert_msg(fabs(min[s] - want) < 1e-12, "%s step %d: a link carries %g, not %g", str,
                          s + 1, min[s], want);
        } else {
            for (int u = 0; u < p; u++) {
                double o = lp_optimum(&t, p, u, s + 1);
                want = o > want ? o : want;
            }
        }
        ck_assert_msg(fabs(max[s] - want) < 1e-12, "%s step %d: max link load %g, optimum %g", str,
                      s + 1, max[s], want);
        sum += max[s];
    }
    if (torus) {
        ck_assert_int_eq(depth, diam);
        /* BW-optimal: (N - 1) / d shards per link in all */
        ck_assert_msg(fabs(sum - (double)(p - 1) / d) < 1e-9, "%s: %g shards per link", str, sum);
    }
    /* the reduce-scatter is the same loads in reverse order */
    sc = ut_gen_all(TOPO_PRIM_REDUCE_SCATTER, "bfb", p, 0, &t);
    ck_assert_int_eq(ag_loads(sc, p, rmax, rmin, 64), depth);
    ut_free_all(sc, p);
    for (int s = 0; s < depth; s++) {
        ut_assert_near(rmax[s], max[depth - 1 - s]);
        ut_assert_near(rmin[s], min[depth - 1 - s]);
    }
}

START_TEST(test_bfb_loads_torus)
{
    static const char *const s[] = {"torus:2",     "torus:7",     "torus:8",    "torus:3x5",
                                    "torus:2x8",   "torus:4x4",   "torus:5x6",  "torus:6x6",
                                    "torus:3x3x6", "torus:2x3x4", "torus:4x4x4"};
    for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++) {
        check_loads(s[i]);
    }
}
END_TEST

START_TEST(test_bfb_loads_mesh)
{
    static const char *const s[] = {"mesh:5",   "mesh:3x5",   "mesh:2x8",  "mesh:4x4",
                                    "mesh:6x6", "mesh:2x3x4", "mesh:3x3x3"};
    for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++) {
        check_loads(s[i]);
    }
}
END_TEST

/* Parts per shard: the lcm of the optimal loads' denominators (torus:3x5:
 * loads 1, 3/2, 1; 2x8: thirds); 1 on a line; lcm(1..d) on a mesh of more
 * than 128 ranks. */
START_TEST(test_bfb_parts)
{
    static const struct {
        const char *t;
        int parts;
    } c[] = {{"torus:8", 2},     {"torus:7", 1},     {"torus:3x5", 2}, {"torus:2x8", 3},
             {"torus:4x4", 4},   {"torus:3x3x6", 6}, {"mesh:9", 1},    {"mesh:3x3", 6},
             {"mesh:4x4x4", 30}, {"mesh:12x12", 12}};
    for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
        topo_topology_t t = ut_topo(c[i].t);
        const int p = topo_topology_size(&t);
        topo_sched_t *sc = ut_gen_all(TOPO_PRIM_ALLGATHER, "bfb", p, 0, &t);
        ck_assert_msg(sc[0].nparts == c[i].parts, "%s: %d parts", c[i].t, sc[0].nparts);
        ut_free_all(sc, p);
    }
}
END_TEST

/* --- the cost model: bfb against bucket --------------------------------- */

START_TEST(test_bfb_vs_bucket)
{
    static const char *const s[] = {"torus:3x5", "torus:2x8", "torus:3x3x6"};
    for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++) {
        topo_topology_t t = ut_topo(s[i]);
        const int p = topo_topology_size(&t);
        const int d = topo_topology_ports(&t, p);
        for (size_t k = 0; k < sizeof(prims) / sizeof(prims[0]); k++) {
            double lat, bw, blat, bbw, plat, pbw;
            ut_affine(prims[k], "bfb", p, 0, &t, NULL, &lat, &bw);
            ut_affine(prims[k], "bfb", p, 0, &t, &ut_ports_only, &plat, &pbw);
            ut_affine(prims[k], "bucket", p, 0, &t, NULL, &blat, &bbw);
            /* bandwidth-optimal: (N-1)/(N d) M per half */
            const double want =
                (prims[k] == TOPO_PRIM_ALLREDUCE ? 2.0 : 1.0) * (p - 1) / ((double)p * d);
            ck_assert_msg(fabs(bw - want) < 1e-9, "bfb %s on %s: bw %.12g, want %.12g",
                          topo_prim_name(prims[k]), s[i], bw, want);
            ut_assert_near(pbw, bw);
            printf("%-12s %-15s bfb %.4f M (%d steps), bucket %.4f M (%d steps)\n", s[i],
                   topo_prim_name(prims[k]), bw, (int)lround(lat), bbw, (int)lround(blat));
            ck_assert_msg(bw < bbw - 1e-9, "bfb %s on %s: bw %g not below bucket's %g",
                          topo_prim_name(prims[k]), s[i], bw, bbw);
        }
    }
}
END_TEST

/* One rank's schedule as topo_sched_print writes it (malloc'ed). */
static char *dump(const topo_sched_t *s)
{
    FILE *f = tmpfile();
    ck_assert(NULL != f);
    topo_sched_print(s, f);
    const long n = ftell(f);
    char *buf = malloc((size_t)n + 1);
    ck_assert(NULL != buf && n >= 0);
    rewind(f);
    ck_assert_int_eq((long)fread(buf, 1, (size_t)n, f), n);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* On a torus every receiver's distances and eligible in-links are rank
 * 0's translated (algo_bfb.c): every rank's schedule is the one computed
 * from the distances (its dump: every step's transfers, peers and
 * ranges; and each transfer's block count and in-place receive), on tori
 * of odd and even sides, 1-4 dimensions. */
/* rank r's schedule of bfb's primitive `prim` on `name` (of p ranks) with
 * the translated tables (and so, on a ring, the repeated steps) and
 * without (every step explicit): the same logical schedule, its dump
 * (every step's transfers, peers and ranges) and each transfer's block
 * count and in-place receive. */
static void same_both_ways(const topo_topology_t *t, const char *name, int p, topo_prim_t prim,
                           int r)
{
    const topo_algo_t *al = ut_algo(prim, "bfb");
    topo_gen_args_t a = {prim, p, r, 0, t};
    topo_sched_t s[2];
    for (int way = 0; way < 2; way++) {
        const int old = topo_bfb_translate(way);
        ck_assert_int_eq(topo_algo_generate(al, &a, &s[way]), TOPO_OK);
        topo_bfb_translate(old);
    }
    ck_assert(s[0].nblocks == s[1].nblocks && s[0].nparts == s[1].nparts &&
              s[0].nlanes == s[1].nlanes && topo_sched_depth(&s[0]) == topo_sched_depth(&s[1]));
    char *d0 = dump(&s[0]), *d1 = dump(&s[1]);
    ck_assert_msg(0 == strcmp(d0, d1), "bfb %s on %s rank %d: translated differs",
                  topo_prim_name(prim), name, r);
    free(d0);
    free(d1);
    for (int st = 0; st < topo_sched_depth(&s[0]); st++) {
        topo_step_view_t v0, v1;
        topo_sched_step_at(&s[0], 0, st, &v0);
        topo_sched_step_at(&s[1], 0, st, &v1);
        ck_assert_int_eq(v0.nxfers, v1.nxfers);
        for (int i = 0; i < v0.nxfers; i++) {
            const topo_range_t *g0, *g1;
            const topo_xfer_t *x0 = topo_step_xfer(&v0, i, &g0), *x1 = topo_step_xfer(&v1, i, &g1);
            ck_assert(x0->direct == x1->direct && x0->nblk == x1->nblk);
        }
    }
    topo_sched_free(&s[0]);
    topo_sched_free(&s[1]);
}

/* Rank x's block of rank 0's block blk on t: shard v (blk / K) moved to
 * x + v, coordinates added modulo the torus. */
static int moved(const topo_topology_t *t, int K, int x, int blk)
{
    int cx[TOPO_MAX_DIMS], cv[TOPO_MAX_DIMS];
    topo_topology_coords(t, x, cx);
    topo_topology_coords(t, blk / K, cv);
    for (int i = 0; i < t->ndims; i++) {
        cv[i] = (cv[i] + cx[i]) % t->dims[i];
    }
    return topo_topology_rank(t, cv) * K + blk % K;
}

/* The blocks of transfer x (ranges g), in wire order, into out (room for
 * cap): how many. */
static int blocks_of(const topo_range_t *g, const topo_xfer_t *x, int *out, int cap)
{
    topo_range_iter_t it;
    topo_range_t r;
    int n = 0;
    topo_range_iter(&it, g, x, 0);
    while (topo_range_next(&it, &r)) {
        for (int b = r.first; b < r.first + r.count; b++) {
            ck_assert(n < cap);
            out[n++] = b;
        }
    }
    return n;
}

/* On a torus every receiver's problem is rank 0's translated, solved
 * once (algo_bfb.c, "Translated"): every rank's schedule is rank 0's
 * moved by its coordinates (every step's transfers: peer, kind, and each
 * block in wire order, shard v to x + v); and it
 * balances the links as the schedule computed from every receiver's
 * distances does (the same transfers, peers and block counts, step by
 * step), both verified, on tori of odd and even sides, 1-4 dimensions. */
START_TEST(test_bfb_translated)
{
    static const char *const tori[] = {"torus:5",     "torus:4x4",   "torus:8x8",
                                       "torus:6x4",   "torus:3x5",   "torus:2x8",
                                       "torus:4x4x4", "torus:3x3x6", "torus:2x3x2x3"};
    char msg[512];
    for (size_t g = 0; g < sizeof(tori) / sizeof(tori[0]); g++) {
        const topo_topology_t t = ut_topo(tori[g]);
        const int p = topo_topology_size(&t);
        for (size_t k = 0; k < sizeof(prims) / sizeof(prims[0]); k++) {
            const topo_algo_t *al = ut_algo(prims[k], "bfb");
            topo_gen_args_t a0 = {prims[k], p, 0, 0, &t};
            const int old = topo_bfb_translate(0);
            ck_assert_msg(topo_verify_algo(al, &a0, msg, sizeof(msg)) == TOPO_OK,
                          "bfb %s on %s from the distances: %s", topo_prim_name(prims[k]), tori[g],
                          msg);
            topo_bfb_translate(old);
            topo_sched_t s0;
            ck_assert_int_eq(topo_algo_generate(al, &a0, &s0), TOPO_OK);
            const int K = s0.nblocks / p, cap = s0.nblocks;
            int *b0 = malloc(sizeof(int) * (size_t)cap), *b1 = malloc(sizeof(int) * (size_t)cap);
            ck_assert(NULL != b0 && NULL != b1);
            for (int r = 0; r < p; r++) {
                topo_gen_args_t a = {prims[k], p, r, 0, &t};
                topo_sched_t s[2];
                for (int way = 0; way < 2; way++) {
                    const int o = topo_bfb_translate(way);
                    ck_assert_int_eq(topo_algo_generate(al, &a, &s[way]), TOPO_OK);
                    topo_bfb_translate(o);
                }
                ck_assert(s[1].nblocks == s0.nblocks && s[0].nblocks == s0.nblocks &&
                          s[1].nparts == s[0].nparts && s[1].nlanes == s[0].nlanes);
                const int depth = topo_sched_depth(&s0);
                ck_assert_int_eq(topo_sched_depth(&s[1]), depth);
                ck_assert_int_eq(topo_sched_depth(&s[0]), depth);
                for (int st = 0; st < depth; st++) {
                    topo_step_view_t v0, v1, vd;
                    topo_sched_step_at(&s0, 0, st, &v0);
                    topo_sched_step_at(&s[1], 0, st, &v1);
                    topo_sched_step_at(&s[0], 0, st, &vd);
                    ck_assert_int_eq(v0.nxfers, v1.nxfers);
                    ck_assert_int_eq(vd.nxfers, v1.nxfers);
                    for (int i = 0; i < v0.nxfers; i++) {
                        const topo_range_t *g0, *g1, *gd;
                        const topo_xfer_t *x0 = topo_step_xfer(&v0, i, &g0);
                        const topo_xfer_t *x1 = topo_step_xfer(&v1, i, &g1);
                        const topo_xfer_t *xd = topo_step_xfer(&vd, i, &gd);
                        /* (direct, a receive of one range, may differ:
                         * the moved blocks wrap elsewhere) */
                        ck_assert_msg(x1->peer == moved(&t, 1, r, x0->peer) &&
                                          x1->kind == x0->kind && x1->nblk == x0->nblk,
                                      "bfb %s on %s rank %d step %d transfer %d: not rank 0's "
                                      "moved",
                                      topo_prim_name(prims[k]), tori[g], r, st, i);
                        ck_assert_msg(xd->peer == x1->peer && xd->kind == x1->kind &&
                                          xd->nblk == x1->nblk,
                                      "bfb %s on %s rank %d step %d transfer %d: balanced "
                                      "otherwise than from the distances",
                                      topo_prim_name(prims[k]), tori[g], r, st, i);
                        const int n0 = blocks_of(g0, x0, b0, cap), n1 = blocks_of(g1, x1, b1, cap);
                        ck_assert_int_eq(n0, n1);
                        for (int j = 0; j < n0; j++) {
                            ck_assert_msg(b1[j] == moved(&t, K, r, b0[j]),
                                          "bfb %s on %s rank %d step %d transfer %d block %d: "
                                          "%d, not rank 0's %d moved",
                                          topo_prim_name(prims[k]), tori[g], r, st, i, j, b1[j],
                                          b0[j]);
                        }
                    }
                }
                topo_sched_free(&s[0]);
                topo_sched_free(&s[1]);
            }
            free(b0);
            free(b1);
            topo_sched_free(&s0);
        }
    }
}
END_TEST

/* A ring's steps 1 .. D - 1 are stored as repeated steps (algo_bfb.c,
 * ring_phase): expanded, every rank's schedule is the explicit one (the
 * generator without the translated tables emits every step), on rings
 * of odd and even sizes where the shards wrap at every rank's own steps;
 * and at N = 65,536 (32,768 steps a phase) it is compact and small: a
 * fallback to the explicit form (some 4.8 MiB) fails the bound. */
START_TEST(test_bfb_ring_repeated)
{
    static const char *const rings[] = {"torus:6",  "torus:7",  "torus:8",   "torus:9",
                                        "torus:10", "torus:33", "torus:64", "torus:257"};
    for (size_t g = 0; g < sizeof(rings) / sizeof(rings[0]); g++) {
        const topo_topology_t t = ut_topo(rings[g]);
        const int p = topo_topology_size(&t);
        for (size_t k = 0; k < sizeof(prims) / sizeof(prims[0]); k++) {
            for (int r = 0; r < p; r++) {
                same_both_ways(&t, rings[g], p, prims[k], r);
            }
        }
    }
    const topo_topology_t t = ut_topo("torus:65536");
    static const int ranks[] = {0, 1, 2, 12345, 32767, 32768, 65534, 65535};
    for (size_t k = 0; k < sizeof(prims) / sizeof(prims[0]); k++) {
        const topo_algo_t *al = ut_algo(prims[k], "bfb");
        for (size_t i = 0; i < sizeof(ranks) / sizeof(ranks[0]); i++) {
            topo_gen_args_t a = {prims[k], 65536, ranks[i], 0, &t};
            topo_sched_t s;
            ck_assert_int_eq(topo_algo_generate(al, &a, &s), TOPO_OK);
            ck_assert_msg(topo_sched_compact(&s) && topo_sched_bytes(&s) <= 4096,
                          "bfb %s on torus:65536 rank %d: %zu bytes stored",
                          topo_prim_name(prims[k]), ranks[i], topo_sched_bytes(&s));
            ck_assert_int_eq(topo_sched_depth(&s), TOPO_PRIM_ALLREDUCE == prims[k] ? 65536 : 32768);
            topo_sched_free(&s);
        }
    }
    for (int r = 0; r < 65536; r += 21845) { /* a few expanded in full */
        same_both_ways(&t, "torus:65536", 65536, TOPO_PRIM_ALLGATHER, r);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("bfb");
    TCase *sweep = ut_tcase(s, "bfb_sweep", 900);
    tcase_add_loop_test(sweep, test_bfb_2d, 0, 6);
    tcase_add_loop_test(sweep, test_bfb_3d, 0, 4);
    tcase_add_test(sweep, test_bfb_rings);
    TCase *loads = ut_tcase(s, "bfb_loads", 600);
    tcase_add_test(loads, test_bfb_loads_torus);
    tcase_add_test(loads, test_bfb_loads_mesh);
    tcase_add_test(loads, test_bfb_parts);
    tcase_add_test(loads, test_bfb_translated);
    tcase_add_test(loads, test_bfb_ring_repeated);
    TCase *cost = ut_tcase(s, "bfb_cost", 300);
    tcase_add_test(cost, test_bfb_restrictions);
    tcase_add_test(cost, test_bfb_vs_bucket);
    return ut_run_suite(s);
}
