/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests: the derived cost model against the closed forms of Lu 2026a
 * and Lu 2026b.  The closed forms are tests of the derived cost, not a second
 * implementation. */
#include "cost.h"
#include "decision.h"
#include "graph.h"
#include "unit_common.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static topo_topology_t star;

static void setup(void)
{
    star = ut_topo("star");
}

/* Allreduce `name` on p ranks of the star costs lat alpha + bw M/BW. */
static void expect(const char *name, int p, double lat, double bw)
{
    ut_expect_affine(TOPO_PRIM_ALLREDUCE, name, p, 0, &star, NULL, lat, bw);
}

START_TEST(test_worked_examples_n4)
{
    expect("ring", 4, 6.0, 1.5);               /* A7: 6 alpha + 1.5 M/BW */
    expect("recursive_doubling", 4, 2.0, 2.0); /* A19: 2 alpha + 2 M/BW */
    expect("rabenseifner", 4, 4.0, 1.5);       /* A20: 4 alpha + 1.5 M/BW */
}
END_TEST

START_TEST(test_closed_forms)
{
    /* sec. 2.3: ring 2(N-1) alpha + 2(N-1)/N M/BW for any N; recursive
     * doubling log2 N (alpha + M/BW) and Rabenseifner 2 log2 N alpha +
     * 2(N-1)/N M/BW for N = 2^k (A19: 9 M/BW at N = 512). */
    for (int p = 2; p <= 64; p++) {
        expect("ring", p, 2.0 * (p - 1), 2.0 * (p - 1) / p);
    }
    for (int k = 1; k <= 9; k++) {
        int p = 1 << k;
        expect("recursive_doubling", p, k, k);
        expect("rabenseifner", p, 2.0 * k, 2.0 * (p - 1) / p);
    }
}
END_TEST

START_TEST(test_non_power_of_two)
{
    /* folding adds a step in and a step out, each moving the whole vector
     * (Lu 2026a B.3: "+2 alpha hops plus an asymmetric BW term") */
    expect("recursive_doubling", 6, 2.0 + 2.0, 2.0 + 2.0);
    expect("rabenseifner", 6, 4.0 + 2.0, 2.0 * 3.0 / 4.0 + 2.0);
}
END_TEST

START_TEST(test_gamma_and_total)
{
    /* gamma: ring reduces (N-1)/N of the vector on every rank */
    const topo_algo_t *ring = topo_catalog_find(TOPO_PRIM_ALLREDUCE, "ring");
    topo_gen_args_t a = {TOPO_PRIM_ALLREDUCE, 8, 0, 0, &star};
    topo_cost_params_t p = {2e-6, 1e-10, 3e-10};
    double lat, bw;
    ck_assert_int_eq(topo_cost_affine(ring, &a, &p, &lat, &bw), TOPO_OK);
    ut_assert_near(lat, 14 * 2e-6);
    ut_assert_near(bw * 1e10, (2.0 * 7 / 8 * 1e-10 + 7.0 / 8 * 3e-10) * 1e10);
    double t = topo_cost_algo(ring, &a, 1000, 8, &p);
    ut_assert_near(t * 1e6, (lat + bw * 8000) * 1e6);
}
END_TEST

START_TEST(test_alltoall_pairwise)
{
    /* A14: pairwise alltoall at N = 4 is 3 alpha + (3/4) M/BW, M the send
     * buffer; the local copy of a rank's own block is not on the wire */
    for (int p = 2; p <= 16; p++) {
        ut_expect_affine(TOPO_PRIM_ALLTOALL, "pairwise", p, 0, &star, NULL, p - 1.0, (p - 1.0) / p);
    }
}
END_TEST

START_TEST(test_alltoall_linear)
{
    /* pairwise's messages posted at once: one alpha and the same
     * (p-1)/p M through the rank's one port of the star; each of the
     * p - 1 messages a rank sends and the p - 1 it receives costs it
     * msg_overhead */
    for (int p = 2; p <= 16; p++) {
        ut_expect_affine(TOPO_PRIM_ALLTOALL, "linear", p, 0, &star, NULL, 1.0, (p - 1.0) / p);
        const topo_cost_net_t net = {.msg_overhead = 1.0};
        ut_expect_affine(TOPO_PRIM_ALLTOALL, "linear", p, 0, &star, &net, 1.0 + 2.0 * (p - 1),
                         (p - 1.0) / p);
    }
}
END_TEST

/* Per-byte price of `name` (alltoall) on p ranks of the star with only the
 * local-copy term (alpha = beta = gamma = 0, copy = 1 s/B). */
static double copy_only(const char *name, int p)
{
    const topo_algo_t *algo = topo_catalog_find(TOPO_PRIM_ALLTOALL, name);
    topo_gen_args_t a = {TOPO_PRIM_ALLTOALL, p, 0, 0, &star};
    const topo_cost_params_t params = {0.0, 0.0, 0.0};
    const topo_cost_net_t net = {.copy = 1.0};
    double lat = -1.0, bw = -1.0;
    ck_assert_ptr_nonnull(algo);
    ck_assert_int_eq(topo_cost_affine_net(algo, &a, &params, &net, &lat, &bw), TOPO_OK);
    ut_assert_near(lat, 0.0);
    return bw;
}

START_TEST(test_local_copies)
{
    /* pairwise copies only the own block, M/p (its messages are single
     * blocks, received in place) */
    for (int p = 2; p <= 16; p++) {
        ut_assert_near(copy_only("pairwise", p), 1.0 / p);
        ut_assert_near(copy_only("linear", p), 1.0 / p);
    }
    /* Bruck on 4 ranks, blocks of M/4: step 1 copies the own block and
     * packs 2 blocks to send and unpacks the 2 received (none adjacent);
     * step 2 packs and unpacks 2 more (rank 1 sends blocks 3 and 0) */
    ut_assert_near(copy_only("bruck", 4), 9.0 / 4.0);
    /* without the term (the default), copies are free */
    const topo_algo_t *bruck = topo_catalog_find(TOPO_PRIM_ALLTOALL, "bruck");
    topo_gen_args_t a = {TOPO_PRIM_ALLTOALL, 4, 0, 0, &star};
    const topo_cost_params_t params = {0.0, 0.0, 0.0};
    double lat, bw;
    ck_assert_int_eq(topo_cost_affine_net(bruck, &a, &params, NULL, &lat, &bw), TOPO_OK);
    ut_assert_near(bw, 0.0);
}
END_TEST

START_TEST(test_message_overhead)
{
    /* ring: every rank sends one message and receives one per step,
     * 2(p - 1) steps; recursive doubling: one exchange per step, log2 p
     * steps; each message costs its sender and its receiver msg_overhead */
    const topo_algo_t *ring = topo_catalog_find(TOPO_PRIM_ALLREDUCE, "ring");
    const topo_algo_t *rd = topo_catalog_find(TOPO_PRIM_ALLREDUCE, "recursive_doubling");
    const topo_cost_params_t params = {0.0, 0.0, 0.0};
    const topo_cost_net_t net = {.msg_overhead = 1.0};
    for (int p = 2; p <= 16; p *= 2) {
        topo_gen_args_t a = {TOPO_PRIM_ALLREDUCE, p, 0, 0, &star};
        double lat, bw;
        ck_assert_int_eq(topo_cost_affine_net(ring, &a, &params, &net, &lat, &bw), TOPO_OK);
        ut_assert_near(lat, 2.0 * 2.0 * (p - 1));
        ut_assert_near(bw, 0.0);
        ck_assert_int_eq(topo_cost_affine_net(rd, &a, &params, &net, &lat, &bw), TOPO_OK);
        ut_assert_near(lat, 2.0 * log2(p));
    }
    /* binomial bcast on 8 ranks: in each of its 3 steps a rank sends one
     * message or receives one, never both */
    const topo_algo_t *bin = topo_catalog_find(TOPO_PRIM_BCAST, "binomial");
    topo_gen_args_t b = {TOPO_PRIM_BCAST, 8, 0, 0, &star};
    double lat, bw;
    ck_assert_ptr_nonnull(bin);
    ck_assert_int_eq(topo_cost_affine_net(bin, &b, &params, &net, &lat, &bw), TOPO_OK);
    ut_assert_near(lat, 3.0);
}
END_TEST

START_TEST(test_crossover)
{
    /* small messages: recursive doubling is cheapest; large: ring or
     * Rabenseifner (equal bandwidth terms, Rabenseifner fewer steps) */
    const topo_cost_params_t p = {2e-6, 1e-10, 2e-10};
    const topo_algo_t *rd = topo_catalog_find(TOPO_PRIM_ALLREDUCE, "recursive_doubling");
    const topo_algo_t *rab = topo_catalog_find(TOPO_PRIM_ALLREDUCE, "rabenseifner");
    const topo_algo_t *ring = topo_catalog_find(TOPO_PRIM_ALLREDUCE, "ring");
    topo_gen_args_t a = {TOPO_PRIM_ALLREDUCE, 16, 0, 0, &star};
    ck_assert(topo_cost_algo(rd, &a, 8, 8, &p) < topo_cost_algo(rab, &a, 8, 8, &p));
    ck_assert(topo_cost_algo(rd, &a, 8, 8, &p) < topo_cost_algo(ring, &a, 8, 8, &p));
    size_t big = 1 << 22;
    ck_assert(topo_cost_algo(rab, &a, big, 8, &p) < topo_cost_algo(rd, &a, big, 8, &p));
    ck_assert(topo_cost_algo(rab, &a, big, 8, &p) < topo_cost_algo(ring, &a, big, 8, &p));
}
END_TEST

START_TEST(test_sample_ranks)
{
    static const int sizes[] = {10, 257, 1000, 4097};
    static const int ks[] = {8, 64, 256};
    int out[256];
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        const int p = sizes[i];
        const int roots[] = {0, 7, p - 1};
        for (size_t j = 0; j < sizeof(ks) / sizeof(ks[0]); j++) {
            for (int r = 0; r < 3; r++) {
                const int k = ks[j];
                if (k >= p) {
                    ck_assert_int_eq(topo_cost_sample_ranks(p, roots[r], k, out), p);
                    continue;
                }
                const int m = topo_cost_sample_ranks(p, roots[r], k, out);
                ck_assert(m > 0 && m <= k);
                int has0 = 0, haslast = 0, hasroot = 0;
                for (int x = 0; x < m; x++) {
                    ck_assert(out[x] >= 0 && out[x] < p);
                    ck_assert(0 == x || out[x] > out[x - 1]);
                    has0 |= 0 == out[x];
                    haslast |= p - 1 == out[x];
                    hasroot |= roots[r] == out[x];
                }
                ck_assert(has0 && haslast && hasroot);
            }
        }
    }
}
END_TEST

START_TEST(test_sampled_pricing)
{
    /* 1100 ranks: every rank's ring (2(p-1) steps each), pairwise (p-1)
     * and linear (p-1 messages) schedules hold more than the 2^21 items
     * priced in full, so 64 ranks are priced; those schedules repeat from
     * rank to rank, and the closed forms still hold */
    const topo_cost_net_t sampled = {.price_ranks = 64};
    const int p = 1100;
    ut_expect_affine(TOPO_PRIM_ALLREDUCE, "ring", p, 0, &star, &sampled, 2.0 * (p - 1),
                     2.0 * (p - 1) / p);
    ut_expect_affine(TOPO_PRIM_ALLTOALL, "pairwise", p, 0, &star, &sampled, p - 1.0, (p - 1.0) / p);
    ut_expect_affine(TOPO_PRIM_ALLTOALL, "linear", p, 0, &star, &sampled, 1.0, (p - 1.0) / p);
    /* a schedule that is cheap to price in full is, even when it is not
     * the same on every rank: the binomial bcast from a middle root, whose
     * root alone sends in every step (ceil(log2 p) of them) */
    double lat, bw, flat, fbw;
    ut_affine(TOPO_PRIM_BCAST, "binomial", p, 550, &star, &sampled, &lat, &bw);
    ut_affine(TOPO_PRIM_BCAST, "binomial", p, 550, &star, NULL, &flat, &fbw);
    ut_assert_near(lat, flat);
    ut_assert_near(bw, fbw);
    ut_assert_near(lat, (double)ut_clog2(p));
}
END_TEST

/* Sampled pricing on a grid: link loads estimated from the priced ranks
 * (cost.h: price_ranks).  With every rank priced the estimate of a step's
 * busiest link is never above the routed one, and equals it where every
 * node sends the same pattern (the ring in rank order, a bucket's
 * dimension rings, linear alltoall on a torus). */
static void sampled_steps(const topo_algo_t *algo, const topo_gen_args_t *a, int force, int k,
                          topo_cost_step_t **steps, int *depth)
{
    const topo_cost_params_t p = {1.0, 1.0, 0.5};
    const topo_cost_net_t net = {.price_ranks = k};
    const int old = topo_cost_force_sampling(force);
    ck_assert_int_eq(topo_cost_steps(algo, a, &p, &net, steps, depth), TOPO_OK);
    topo_cost_force_sampling(old);
}

START_TEST(test_sampled_links)
{
    static const char *const grids[] = {"torus:4x4x4", "torus:6x5", "mesh:8x4", "torus:2x4x3"};
    static const struct {
        const char *grid;
        topo_prim_t prim;
        const char *name;
    } same[] = {
        {"torus:4x4x4", TOPO_PRIM_ALLREDUCE, "ring"},
        {"torus:4x4x4", TOPO_PRIM_ALLREDUCE, "bucket"},
        {"torus:6x5", TOPO_PRIM_ALLREDUCE, "bucket"},
        {"mesh:8x4", TOPO_PRIM_ALLREDUCE, "ring"},
        {"torus:6x5", TOPO_PRIM_ALLGATHER, "ring"},
        {"torus:4x4x4", TOPO_PRIM_ALLTOALL, "linear"},
        {"torus:4x4x4", TOPO_PRIM_ALLTOALL, "pairwise"},
    };
    int n, checked = 0, lower = 0;
    const topo_algo_t *cat = topo_catalog(&n);
    for (size_t g = 0; g < sizeof(grids) / sizeof(grids[0]); g++) {
        const topo_topology_t t = ut_topo(grids[g]);
        const int size = topo_topology_size(&t);
        for (int i = 0; i < n; i++) {
            const topo_gen_args_t a = {.prim = cat[i].prim, .size = size, .root = 1, .topo = &t};
            char why[256];
            if (!topo_algo_fits(&cat[i], &a, TOPO_OP_EXACT, why, sizeof(why))) {
                continue;
            }
            topo_cost_step_t *ex, *es;
            int de, ds;
            sampled_steps(&cat[i], &a, 0, 0, &ex, &de);
            sampled_steps(&cat[i], &a, 1, size, &es, &ds);
            ck_assert_int_eq(de, ds);
            int exact = 1;
            for (int st = 0; st < de; st++) {
                ck_assert_msg(es[st].link <= ex[st].link + 1e-12,
                              "%s %s on %s step %d: estimated link %g above the routed %g",
                              topo_prim_name(cat[i].prim), cat[i].name, grids[g], st, es[st].link,
                              ex[st].link);
                /* everything but the link is priced on every rank alike */
                ut_assert_near(es[st].port, ex[st].port);
                ut_assert_near(es[st].lat, ex[st].lat);
                exact = exact && fabs(es[st].link - ex[st].link) < 1e-12;
            }
            for (size_t j = 0; j < sizeof(same) / sizeof(same[0]); j++) {
                if (same[j].prim == cat[i].prim && 0 == strcmp(same[j].name, cat[i].name) &&
                    0 == strcmp(same[j].grid, grids[g])) {
                    ck_assert_msg(exact, "%s %s on %s: estimated links differ from routed ones",
                                  topo_prim_name(cat[i].prim), cat[i].name, grids[g]);
                    checked++;
                }
            }
            lower += !exact;
            free(ex);
            free(es);
        }
    }
    ck_assert_int_eq(checked, (int)(sizeof(same) / sizeof(same[0])));
    /* every rank priced: the sends of every rank are routed, whatever
     * their pattern, so the loads are the routed ones */
    ck_assert_int_eq(lower, 0);

    /* 512 ranks of torus:8x8x8: the ring's 2(p-1) steps on every rank are
     * more than is priced in full, so 64 ranks are, and its links (one
     * block per step over a single link, or two in a row at a row's end)
     * come out as routed, and as the closed form */
    const topo_topology_t t8 = ut_topo("torus:8x8x8");
    const topo_cost_net_t k64 = {.price_ranks = 64};
    const int p = 512;
    double lat, bw, flat, fbw;
    ut_affine(TOPO_PRIM_ALLREDUCE, "ring", p, 0, &t8, &k64, &lat, &bw);
    ut_affine(TOPO_PRIM_ALLREDUCE, "ring", p, 0, &t8, NULL, &flat, &fbw);
    ut_assert_near(lat, 2.0 * (p - 1));
    ut_assert_near(lat, flat);
    ut_assert_near(bw, fbw);
}
END_TEST

/* The sampled pricing against the full one where the full one is cheap:
 * a third of the ranks of a 16x16 torus and of a 64-rank Kautz graph of
 * degree 4 priced (the ranks' sends extrapolated to every rank and routed,
 * cost.h: price_ranks), every algorithm of the catalog that fits and that
 * the sampling is for (a rank's schedule grows with the communicator:
 * rank 0's holds at least `size` steps, transfers, ranges and blocks)
 * within 10% of its price with every rank priced, at 1 KiB, 1 MiB and
 * 64 MiB; most of them exactly. */
START_TEST(test_sampled_agrees)
{
    const topo_cost_params_t p = {2e-6, 1e-10, 1e-10};
    const double sizes[] = {1024.0, 1048576.0, 67108864.0};
    topo_graph_t *g;
    char err[256];
    ck_assert_int_eq(topo_graph_kautz(64, 4, &g, err, sizeof(err)), TOPO_OK);
    topo_topology_t tops[2] = {ut_topo("torus:16x16"), topo_topology_of_graph(g)};
    int n, priced = 0, exact = 0;
    const topo_algo_t *cat = topo_catalog(&n);
    for (int k = 0; k < 2; k++) {
        const int size = topo_topology_size(&tops[k]);
        const topo_cost_net_t full = {.price_ranks = 0}, part = {.price_ranks = size / 3};
        for (int i = 0; i < n; i++) {
            const topo_gen_args_t a = {.prim = cat[i].prim, .size = size, .topo = &tops[k]};
            char why[256];
            if (!topo_algo_fits(&cat[i], &a, TOPO_OP_EXACT, why, sizeof(why))) {
                continue;
            }
            topo_sched_t s0;
            ck_assert_int_eq(topo_algo_generate(&cat[i], &a, &s0), TOPO_OK);
            const int grows = s0.nsteps + s0.nxfers + s0.nranges + s0.nblocks >= size;
            topo_sched_free(&s0);
            if (!grows) {
                continue;
            }
            double fl, fb, sl, sb;
            ck_assert_int_eq(topo_cost_affine_net(&cat[i], &a, &p, &full, &fl, &fb), TOPO_OK);
            const int old = topo_cost_force_sampling(1);
            ck_assert_int_eq(topo_cost_affine_net(&cat[i], &a, &p, &part, &sl, &sb), TOPO_OK);
            topo_cost_force_sampling(old);
            int same = 1;
            for (size_t j = 0; j < sizeof(sizes) / sizeof(sizes[0]); j++) {
                const double f = fl + fb * sizes[j], s = sl + sb * sizes[j];
                /* the double binary tree's ranks each have a pattern of
                 * their own: its links are estimated, at most the routed */
                const int tree = 0 == strcmp(cat[i].name, "dbt");
                ck_assert_msg(tree ? s <= f * (1 + 1e-9) : fabs(s - f) <= 0.1 * f,
                              "%s %s on %s: sampled %g s, full %g s at %g B",
                              topo_prim_name(cat[i].prim), cat[i].name,
                              k ? "kautz:64:4" : "torus:16x16", s, f, sizes[j]);
                same = same && fabs(s - f) <= 1e-9 * f;
            }
            priced++;
            exact += same;
        }
    }
    ck_assert(priced > 20);
    ck_assert(exact * 4 >= priced * 3);
    topo_graph_free(g);
}
END_TEST

/* The sampled pricing of the recursive-doubling and -halving patterns on
 * tori (partners rank XOR 2^k: routes of 2^k links in one dimension, each
 * rank's in the direction its bit gives): 16 of the ranks priced, every
 * rank's sends carried by the XOR pattern and routed, so the busiest
 * link is the one with every rank priced, to the last bits.  The link
 * loads estimated from the priced ranks' classes alone (the average link
 * of a class) were 0.70-0.82 of the routed maximum here, and Rabenseifner
 * on torus:64x64 0.75 of its simulated time. */
START_TEST(test_sampled_xor)
{
    static const char *const tori[] = {"torus:8x8", "torus:16x16", "torus:32x32"};
    static const struct {
        topo_prim_t prim;
        const char *name;
    } algos[] = {
        {TOPO_PRIM_ALLREDUCE, "rabenseifner"},
        {TOPO_PRIM_ALLREDUCE, "recursive_doubling"},
        {TOPO_PRIM_REDUCE_SCATTER, "recursive_halving"},
        {TOPO_PRIM_ALLGATHER, "recursive_doubling"},
    };
    const topo_cost_params_t p = {4e-7, 2e-11, 0.0};
    const topo_cost_net_t full = {.hop = 4e-7}, part = {.hop = 4e-7, .price_ranks = 16};
    for (size_t g = 0; g < sizeof(tori) / sizeof(tori[0]); g++) {
        const topo_topology_t t = ut_topo(tori[g]);
        for (size_t i = 0; i < sizeof(algos) / sizeof(algos[0]); i++) {
            const topo_gen_args_t a = {
                .prim = algos[i].prim, .size = topo_topology_size(&t), .topo = &t};
            const topo_algo_t *al = ut_algo(algos[i].prim, algos[i].name);
            double fl, fb, sl, sb;
            ck_assert_int_eq(topo_cost_affine_net(al, &a, &p, &full, &fl, &fb), TOPO_OK);
            const int old = topo_cost_force_sampling(1);
            ck_assert_int_eq(topo_cost_affine_net(al, &a, &p, &part, &sl, &sb), TOPO_OK);
            topo_cost_force_sampling(old);
            ck_assert_msg(fabs(sl - fl) <= 1e-9 * fl && fabs(sb - fb) <= 1e-9 * fb,
                          "%s %s on %s: sampled %g + %g M, every rank %g + %g M",
                          topo_prim_name(algos[i].prim), algos[i].name, tori[g], sl, sb, fl, fb);
        }
    }
}
END_TEST

START_TEST(test_root_free)
{
    /* every algorithm flagged TOPO_ALG_ROOT_FREE costs the same from every
     * root where all ranks are alike, copies and message overheads
     * included (what lets one decision table serve every root) */
    const topo_cost_params_t params = {2e-6, 1e-10, 5e-11};
    const topo_cost_net_t net = {.copy = 1e-10, .msg_overhead = 5e-8};
    int n, flagged = 0;
    const topo_algo_t *cat = topo_catalog(&n);
    for (int i = 0; i < n; i++) {
        if (!(cat[i].flags & TOPO_ALG_ROOT_FREE)) {
            continue;
        }
        flagged++;
        for (int p = 1; p <= 40; p++) {
            topo_gen_args_t a = {cat[i].prim, p, 0, 0, &star};
            double lat0, bw0;
            ck_assert_int_eq(topo_cost_affine_net(&cat[i], &a, &params, &net, &lat0, &bw0),
                             TOPO_OK);
            for (a.root = 1; a.root < p; a.root++) {
                double lat, bw;
                ck_assert_int_eq(topo_cost_affine_net(&cat[i], &a, &params, &net, &lat, &bw),
                                 TOPO_OK);
                ck_assert_msg(fabs(lat - lat0) < 1e-15 && fabs(bw - bw0) < 1e-21,
                              "%s %s p=%d root %d: %g + %g M, root 0: %g + %g M",
                              topo_prim_name(cat[i].prim), cat[i].name, p, a.root, lat, bw, lat0,
                              bw0);
            }
        }
    }
    ck_assert_int_ge(flagged, 4);
    /* bcast's algorithms are all flagged (or need a grid); reduce's
     * order-preserving ones follow the root's position */
    topo_topology_t mesh = ut_topo("fullmesh"), torus = ut_topo("torus:2x2");
    ck_assert(topo_prim_root_free(TOPO_PRIM_BCAST, &star, 64));
    ck_assert(topo_prim_root_free(TOPO_PRIM_BCAST, &mesh, 64));
    ck_assert(topo_prim_root_free(TOPO_PRIM_BCAST, &torus, 8)); /* another size: no links */
    ck_assert(!topo_prim_root_free(TOPO_PRIM_BCAST, &torus, 4)); /* links modelled */
    ck_assert(!topo_prim_root_free(TOPO_PRIM_REDUCE, &star, 64));
}
END_TEST

/* Lanes priced as they run (cost.h: topo_cost_steps): on torus:4x4 each
 * rank runs two lanes of two steps over 8 blocks of M/8, lane 0 along
 * dimension 0 (3 blocks in step 0, 1 in step 1), lane 1 along dimension 1
 * (1 block, then 3): each rank sends to its + neighbour and receives from
 * its - neighbour in both lanes.  The lanes are unbalanced at different
 * steps: each takes 3/8 + 1/8 M/BW, and the call its slowest lane's time,
 * 2 alpha + 1/2 M/BW, where the lanes in lockstep (each step at its
 * slower lane) would cost 2 alpha + 3/4 M/BW. */
static int gen_unbalanced(topo_sched_t *s, const topo_gen_args_t *a)
{
    static const int blocks[2][2][2] = {{{0, 3}, {3, 1}}, {{4, 1}, {5, 3}}}; /* lane, step */
    topo_sched_init(s, a->size, a->rank, 8);
    for (int l = 0; l < 2; l++) {
        int c[TOPO_MAX_DIMS], up, down;
        topo_topology_coords(a->topo, a->rank, c);
        const int n = a->topo->dims[l], v = c[l];
        c[l] = (v + 1) % n;
        up = topo_topology_rank(a->topo, c);
        c[l] = (v + n - 1) % n;
        down = topo_topology_rank(a->topo, c);
        topo_sched_lane(s);
        for (int st = 0; st < 2; st++) {
            topo_sched_step(s);
            topo_sched_send(s, up, blocks[l][st][0], blocks[l][st][1]);
            topo_sched_recv(s, down, TOPO_XFER_RECV_COPY, blocks[l][st][0], blocks[l][st][1]);
        }
    }
    return topo_sched_finish(s);
}

static const topo_algo_t unbalanced = {
    "unbalanced", TOPO_PRIM_ALLGATHER, 0, "two unbalanced lanes", "", gen_unbalanced, NULL, NULL};

START_TEST(test_lanes_as_they_run)
{
    const topo_topology_t t = ut_topo("torus:4x4");
    const topo_gen_args_t a = {.prim = TOPO_PRIM_ALLGATHER, .size = 16, .topo = &t};
    topo_cost_step_t *st;
    int n;
    double lat, bw;
    /* ports only (4 of them: a lane's message is its own port's) */
    ck_assert_int_eq(topo_cost_steps(&unbalanced, &a, &ut_unit, &ut_ports_only, &st, &n), TOPO_OK);
    ck_assert_int_eq(n, 4); /* lane 0's two steps, then lane 1's */
    static const double port[4] = {3.0 / 8, 1.0 / 8, 1.0 / 8, 3.0 / 8};
    for (int i = 0; i < 4; i++) {
        ck_assert_int_eq(st[i].lane, i / 2);
        ut_assert_near(st[i].port, port[i]);
        ut_assert_near(st[i].per_byte, port[i]);
        ut_assert_near(st[i].lat, 1.0);
        ck_assert_int_eq(st[i].msgs, 2);
    }
    topo_cost_total(st, n, &lat, &bw);
    free(st);
    ut_assert_near(lat, 2.0);
    ut_assert_near(bw, 0.5); /* lockstep: 0.75 */
    ck_assert_int_eq(topo_cost_affine_net(&unbalanced, &a, &ut_unit, &ut_ports_only, &lat, &bw),
                     TOPO_OK);
    ut_assert_near(lat, 2.0);
    ut_assert_near(bw, 0.5);
    /* the same on a sample of the ranks (every rank runs a translate) */
    const topo_cost_net_t k4 = {.no_links = 1, .price_ranks = 4};
    const int old = topo_cost_force_sampling(1);
    ck_assert_int_eq(topo_cost_affine_net(&unbalanced, &a, &ut_unit, &k4, &lat, &bw), TOPO_OK);
    topo_cost_force_sampling(old);
    ut_assert_near(lat, 2.0);
    ut_assert_near(bw, 0.5);
    /* the message overhead is the rank's (one core posts and completes
     * both lanes' messages): 4 messages a step, in each lane's step */
    const topo_cost_net_t o1 = {.no_links = 1, .msg_overhead = 1.0};
    ck_assert_int_eq(topo_cost_affine_net(&unbalanced, &a, &ut_unit, &o1, &lat, &bw), TOPO_OK);
    ut_assert_near(lat, 2.0 * (1.0 + 4.0));
    ut_assert_near(bw, 0.5);
    /* the lanes of a rank share its ports: with one, each lane's step
     * waits for both lanes' 4 blocks, as in lockstep */
    const topo_topology_t t1 = ut_topo("torus:4x4,ports=1");
    const topo_gen_args_t a1 = {.prim = TOPO_PRIM_ALLGATHER, .size = 16, .topo = &t1};
    ck_assert_int_eq(topo_cost_affine_net(&unbalanced, &a1, &ut_unit, &ut_ports_only, &lat, &bw),
                     TOPO_OK);
    ut_assert_near(bw, 1.0);
    /* links modelled: a lane that crosses the network in a step pays the
     * step's busiest link, all lanes' messages together (3 blocks in both
     * steps), though here each lane's message has a link of its own: the
     * model's approximation of which traffic runs at once */
    ck_assert_int_eq(topo_cost_affine_net(&unbalanced, &a, &ut_unit, NULL, &lat, &bw), TOPO_OK);
    ut_assert_near(lat, 2.0);
    ut_assert_near(bw, 0.75);

    /* the affine price of lanes of which one has the larger latency and the
     * other the larger per-byte term: both largest (2 + 3 M against the
     * slowest lane's max(2 + M, 1 + 3 M), equal at M = 0 and as M grows) */
    const topo_cost_step_t two[4] = {{.lat = 1.0, .per_byte = 0.5, .lane = 0},
                                     {.lat = 1.0, .per_byte = 0.5, .lane = 0},
                                     {.lat = 0.5, .per_byte = 1.5, .lane = 1},
                                     {.lat = 0.5, .per_byte = 1.5, .lane = 1}};
    topo_cost_total(two, 4, &lat, &bw);
    ut_assert_near(lat, 2.0);
    ut_assert_near(bw, 3.0);
    topo_cost_total(two, 2, &lat, &bw); /* one lane: its sums */
    ut_assert_near(lat, 2.0);
    ut_assert_near(bw, 1.0);

    /* the rendezvous, lane by lane: with an eager limit of 1 byte, lane 0
     * pays it in step 0 from M = 3 (3/8 M > 1), in step 1 from M = 9;
     * lane 1 the other way round: the slowest lane pays one from 3 and
     * two from 9 (in lockstep both steps would pay from 3) */
    const topo_proto_t proto = {.eager = 1.0, .rndv = 10.0};
    topo_price_t pr, lb;
    ck_assert_int_eq(topo_price_build(&unbalanced, &a, &ut_unit, &ut_ports_only, &proto, &pr),
                     TOPO_OK);
    ut_assert_near(topo_price_at(&pr, 2), 2.0 + 0.5 * 2);
    ut_assert_near(topo_price_at(&pr, 3), 2.0 + 0.5 * 3 + 10.0);
    ut_assert_near(topo_price_at(&pr, 8), 2.0 + 0.5 * 8 + 10.0);
    ut_assert_near(topo_price_at(&pr, 9), 2.0 + 0.5 * 9 + 20.0);
    ck_assert_int_eq(pr.depth, 2);
    ck_assert_int_eq(pr.msg_steps, 2);
    /* the bound from rank 0 alone: every rank is alike here */
    ck_assert_int_eq(topo_price_bound(&unbalanced, &a, &ut_unit, &ut_ports_only, &proto, &lb, NULL),
                     TOPO_OK);
    for (size_t m = 0; m < 20; m++) {
        ck_assert(topo_price_at(&lb, m) <= topo_price_at(&pr, m));
        ut_assert_near(topo_price_at(&lb, m), topo_price_at(&pr, m));
    }
    topo_price_free(&pr);
    topo_price_free(&lb);
}
END_TEST

/* Pass 1's runs (cost.h: topo_cost_repeat_runs): a repeated step priced
 * once per run of steps that every rank priced so far prices alike gives
 * the steps priced one by one, bit for bit, and topo_cost_step_runs'
 * entries of equal steps the same steps, for every algorithm of the
 * catalog that fits: on grids (links routed, windows), a star, two
 * placements (shared memory; one with the blocks a rank wrote priced
 * dearer, which the runs leave step by step), and sampled (the probes,
 * the sampled sends, the link classes). */
static int steps_equal(const topo_cost_step_t *x, const topo_cost_step_t *y, int n)
{
    for (int i = 0; i < n; i++) {
        if (x[i].lat != y[i].lat || x[i].per_byte != y[i].per_byte || x[i].port != y[i].port ||
            x[i].msg != y[i].msg || x[i].link != y[i].link || x[i].max_hops != y[i].max_hops ||
            x[i].msgs != y[i].msgs || x[i].active != y[i].active ||
            x[i].intra_only != y[i].intra_only || x[i].lane != y[i].lane) {
            return 0;
        }
    }
    return 1;
}

/* topo_cost_step_runs' entries, each its reps steps, are `want` (n steps;
 * NULL: topo_cost_bound_steps'); *merged counts the entries that stand for
 * more than one step. */
static void expect_step_runs(const topo_algo_t *algo, const topo_gen_args_t *a,
                             const topo_cost_params_t *p, const topo_cost_net_t *net, int sample,
                             int bound, const topo_cost_step_t *want, int n, int *merged)
{
    topo_cost_step_t *ref = NULL, *runs;
    int nr;
    const int old = topo_cost_force_sampling(sample);
    if (NULL == want) {
        ck_assert_int_eq(topo_cost_bound_steps(algo, a, p, net, &ref, &n, NULL), TOPO_OK);
        want = ref;
    }
    ck_assert_int_eq(topo_cost_step_runs(algo, a, p, net, bound, &runs, &nr, NULL), TOPO_OK);
    topo_cost_force_sampling(old);
    int k = 0;
    for (int e = 0; e < nr; e++) {
        ck_assert(runs[e].reps >= 1);
        *merged += runs[e].reps > 1;
        for (int r = 0; r < runs[e].reps; r++, k++) {
            ck_assert_int_lt(k, n);
            topo_cost_step_t one = runs[e];
            one.reps = want[k].reps;
            ck_assert_msg(steps_equal(&one, &want[k], 1), "%s %s: entry %d (%s) differs",
                          topo_prim_name(algo->prim), algo->name, e, bound ? "bound" : "price");
        }
    }
    ck_assert_int_eq(k, n);
    free(runs);
    free(ref);
}

START_TEST(test_repeat_runs)
{
    static const int pairs[] = {0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7};
    static const struct {
        const char *topo;
        int size, sample, placed, written;
    } cases[] = {
        {"torus:8x8", 64, 0, 0, 0}, {"mesh:8x4", 32, 0, 0, 0},     {"star", 40, 0, 0, 0},
        {"torus:4x4", 16, 0, 1, 1}, {"torus:4x4", 16, 0, 1, 0},    {"torus:16x16", 256, 64, 0, 0},
        {"star", 300, 32, 0, 0},    {"torus:4x4x4", 64, 40, 0, 0},
    };
    const topo_cost_params_t p = {2e-6, 1e-10, 1e-10};
    int n, priced = 0, repeated = 0, merged = 0;
    const topo_algo_t *cat = topo_catalog(&n);
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        topo_topology_t t = ut_topo(cases[c].topo);
        if (cases[c].placed) {
            t.place = pairs; /* two ranks per node, on half the nodes */
        }
        const topo_cost_net_t net = {.hop = 1e-7,
                                     .intra_alpha = 5e-7,
                                     .intra_beta = 5e-11,
                                     .intra_beta_written = cases[c].written ? 1.5e-10 : 5e-11,
                                     .copy = 1e-10,
                                     .msg_overhead = 1.5e-7,
                                     .price_ranks = cases[c].sample};
        for (int i = 0; i < n; i++) {
            const int root = TOPO_PRIM_BCAST == cat[i].prim || TOPO_PRIM_REDUCE == cat[i].prim
                                 ? cases[c].size / 3
                                 : 0;
            const topo_gen_args_t a = {
                .prim = cat[i].prim, .size = cases[c].size, .root = root, .topo = &t};
            char why[256];
            if (!topo_algo_fits(&cat[i], &a, TOPO_OP_EXACT, why, sizeof(why))) {
                continue;
            }
            topo_sched_t s0;
            ck_assert_int_eq(topo_algo_generate(&cat[i], &a, &s0), TOPO_OK);
            for (int g = 0; g < s0.nsegs; g++) {
                repeated += s0.segs[g].reps > 1 && 1 == s0.segs[g].nsteps;
            }
            topo_sched_free(&s0);
            topo_cost_step_t *on, *off;
            int don, doff;
            const int old = topo_cost_force_sampling(cases[c].sample > 0);
            ck_assert_int_eq(topo_cost_steps(&cat[i], &a, &p, &net, &on, &don), TOPO_OK);
            const int runs = topo_cost_repeat_runs(0);
            ck_assert_int_eq(topo_cost_steps(&cat[i], &a, &p, &net, &off, &doff), TOPO_OK);
            topo_cost_repeat_runs(runs);
            topo_cost_force_sampling(old);
            ck_assert_int_eq(don, doff);
            ck_assert_msg(steps_equal(on, off, don), "%s %s on %s (%d ranks): steps differ",
                          topo_prim_name(cat[i].prim), cat[i].name, cases[c].topo, cases[c].size);
            /* the same steps as entries of equal steps (topo_cost_step_runs),
             * the full pricing's and rank 0's bound */
            for (int bound = 0; bound < 2; bound++) {
                expect_step_runs(&cat[i], &a, &p, &net, cases[c].sample > 0, bound,
                                 bound ? NULL : on, bound ? 0 : don, &merged);
            }
            free(on);
            free(off);
            priced++;
        }
    }
    ck_assert(priced > 100);
    ck_assert(repeated > 50); /* the runs were taken */
    ck_assert(merged > 50);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cost");
    TCase *tc = ut_tcase(s, "derived", 120);
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_add_test(tc, test_worked_examples_n4);
    tcase_add_test(tc, test_closed_forms);
    tcase_add_test(tc, test_non_power_of_two);
    tcase_add_test(tc, test_gamma_and_total);
    tcase_add_test(tc, test_alltoall_pairwise);
    tcase_add_test(tc, test_alltoall_linear);
    tcase_add_test(tc, test_local_copies);
    tcase_add_test(tc, test_message_overhead);
    tcase_add_test(tc, test_crossover);
    tcase_add_test(tc, test_sample_ranks);
    tcase_add_test(tc, test_sampled_pricing);
    tcase_add_test(tc, test_sampled_links);
    tcase_add_test(tc, test_sampled_agrees);
    tcase_add_test(tc, test_sampled_xor);
    tcase_add_test(tc, test_root_free);
    tcase_add_test(tc, test_lanes_as_they_run);
    tcase_add_test(tc, test_repeat_runs);
    return ut_run_suite(s);
}
