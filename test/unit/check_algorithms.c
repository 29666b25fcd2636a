/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests: every generator through the verifier, the verifier's own
 * ability to reject broken schedules, and the catalog's restrictions. */
#include "catalog.h"
#include "unit_common.h"
#include "verify.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static topo_topology_t star;

static void setup(void)
{
    star = ut_topo("star");
}

/* All ranks' schedules of `name` for allreduce on p ranks. */
static topo_sched_t *gen_all(const char *name, int p)
{
    return ut_gen_allreduce(name, p, &star);
}

/* Depth of rank 0's schedule of allreduce `name` on p ranks. */
static int depth0(const char *name, int p)
{
    topo_sched_t *sc = gen_all(name, p);
    int d = topo_sched_depth(&sc[0]);
    ut_free_all(sc, p);
    return d;
}

static int verify(topo_sched_t *sc, int p, unsigned flags, char *msg)
{
    return topo_verify(sc, p, TOPO_PRIM_ALLREDUCE, 0, flags, msg, 512);
}

/* Every catalog algorithm, every size 1..130: on a star, or, for the
 * algorithms that need a grid, on a ring (torus:p), after checking that the
 * star is refused with a reason. */
START_TEST(test_catalog_all_sizes)
{
    int n;
    const topo_algo_t *algo = &topo_catalog(&n)[_i];
    for (int p = 1; p <= 130; p++) {
        topo_gen_args_t a = {algo->prim, p, 0, 0, &star};
        char msg[512] = "";
        topo_topology_t ring;
        if (algo->flags & (TOPO_ALG_GRID | TOPO_ALG_DIRECT)) {
            ck_assert_int_eq(topo_algo_fits(algo, &a, TOPO_OP_EXACT, msg, sizeof(msg)), 0);
            ck_assert(strlen(msg) > 0);
            snprintf(msg, sizeof(msg), "torus:%d", p);
            ck_assert_int_eq(topo_topology_parse(msg, &ring, msg, sizeof(msg)), TOPO_OK);
            a.topo = &ring;
        }
        ck_assert_int_eq(topo_algo_fits(algo, &a, TOPO_OP_EXACT, msg, sizeof(msg)), 1);
        int rc = topo_verify_algo(algo, &a, msg, sizeof(msg));
        ck_assert_msg(rc == TOPO_OK, "%s %s p=%d: %s", topo_prim_name(algo->prim), algo->name,
                      p, msg);
    }
}
END_TEST

START_TEST(test_step_counts)
{
    /* ring: 2(p-1); recursive doubling: log2 p (+2 folding steps);
     * rabenseifner: 2 log2 p (+2) */
    static const struct {
        int p, ring, rd, rab;
    } c[] = {{2, 2, 1, 2}, {4, 6, 2, 4}, {5, 8, 4, 6}, {8, 14, 3, 6}, {12, 22, 5, 8}};
    for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
        ck_assert_int_eq(depth0("ring", c[i].p), c[i].ring);
        ck_assert_int_eq(depth0("recursive_doubling", c[i].p), c[i].rd);
        ck_assert_int_eq(depth0("rabenseifner", c[i].p), c[i].rab);
    }
}
END_TEST

START_TEST(test_rejects_wrong_order)
{
    char msg[512];
    /* ring combines cyclically: fine for commutative, not in rank order */
    topo_sched_t *sc = gen_all("ring", 5);
    ck_assert_int_eq(verify(sc, 5, 0, msg), TOPO_OK);
    ck_assert_int_eq(verify(sc, 5, 1, msg), TOPO_EINVAL);
    ck_assert_ptr_nonnull(strstr(msg, "rank order"));
    ut_free_all(sc, 5);
    /* recursive doubling with one combination flipped */
    sc = gen_all("recursive_doubling", 4);
    ck_assert_int_eq(verify(sc, 4, 1, msg), TOPO_OK);
    for (int i = 0; i < sc[1].nxfers; i++) {
        if (sc[1].xfers[i].kind == TOPO_XFER_RECV_REDUCE) {
            sc[1].xfers[i].kind = TOPO_XFER_RECV_REDUCE_POST;
        }
    }
    ck_assert_int_eq(verify(sc, 4, 0, msg), TOPO_OK);
    ck_assert_int_eq(verify(sc, 4, 1, msg), TOPO_EINVAL);
    ut_free_all(sc, 4);
}
END_TEST

START_TEST(test_rejects_double_counting)
{
    char msg[512];
    topo_sched_t *sc = gen_all("rabenseifner", 4);
    /* turn rank 2's first allgather receive into a reduction */
    ck_assert(ut_retype_first(&sc[2], TOPO_XFER_RECV_COPY, TOPO_XFER_RECV_REDUCE));
    ck_assert_int_eq(verify(sc, 4, 0, msg), TOPO_EINVAL);
    ck_assert_ptr_nonnull(strstr(msg, "twice"));
    ut_free_all(sc, 4);
}
END_TEST

START_TEST(test_rejects_missing_data)
{
    char msg[512];
    /* a ring whose rank 3 skips its last allgather receive (made a copy of
     * nothing into nothing): block stays partial */
    topo_sched_t *sc = gen_all("ring", 4);
    topo_xfer_t *last = &sc[3].xfers[sc[3].nxfers - 1];
    ck_assert_int_eq(last->kind, TOPO_XFER_RECV_COPY);
    /* receive into another block than the sender sends */
    sc[3].ranges[last->range0].first = (sc[3].ranges[last->range0].first + 1) % 4;
    ck_assert_int_eq(verify(sc, 4, 0, msg), TOPO_EINVAL);
    ck_assert_ptr_nonnull(strstr(msg, "other blocks"));
    /* the same, on a schedule that declares uniform blocks: the data goes
     * to the wrong block and the final check catches it */
    for (int r = 0; r < 4; r++) {
        sc[r].uniform = 1;
    }
    ck_assert_int_eq(verify(sc, 4, 0, msg), TOPO_EINVAL);
    ut_free_all(sc, 4);
}
END_TEST

START_TEST(test_rejects_unmatched)
{
    char msg[512];
    topo_sched_t *sc = gen_all("ring", 4);
    sc[1].xfers[0].peer = 3; /* rank 1's first send goes to 3, who expects nothing */
    ck_assert_int_eq(verify(sc, 4, 0, msg), TOPO_EINVAL);
    ut_free_all(sc, 4);
    /* a rank with a step fewer */
    sc = gen_all("recursive_doubling", 4);
    sc[2].lanes[0].nsteps--;
    ck_assert_int_eq(verify(sc, 4, 0, msg), TOPO_EINVAL);
    ck_assert_ptr_nonnull(strstr(msg, "steps"));
    ut_free_all(sc, 4);
}
END_TEST

START_TEST(test_rejects_sending_unknown_data)
{
    /* bcast from 0 on 3 ranks where rank 1 forwards before it receives */
    char msg[512];
    topo_sched_t sc[3];
    for (int r = 0; r < 3; r++) {
        topo_sched_init(&sc[r], 3, r, 1);
        topo_sched_step(&sc[r]);
        if (r == 0) {
            topo_sched_send(&sc[r], 1, 0, 1);
        } else if (r == 1) {
            topo_sched_recv(&sc[r], 0, TOPO_XFER_RECV_COPY, 0, 1);
            topo_sched_send(&sc[r], 2, 0, 1);
        } else {
            topo_sched_recv(&sc[r], 1, TOPO_XFER_RECV_COPY, 0, 1);
        }
        ck_assert_int_eq(topo_sched_finish(&sc[r]), TOPO_OK);
    }
    ck_assert_int_eq(topo_verify(sc, 3, TOPO_PRIM_BCAST, 0, 0, msg, sizeof(msg)), TOPO_EINVAL);
    ck_assert_ptr_nonnull(strstr(msg, "before holding"));
    for (int r = 0; r < 3; r++) {
        topo_sched_free(&sc[r]);
    }
    /* the correct chain: forward in the next step */
    for (int r = 0; r < 3; r++) {
        topo_sched_init(&sc[r], 3, r, 1);
        topo_sched_step(&sc[r]);
        if (r == 0) {
            topo_sched_send(&sc[r], 1, 0, 1);
        } else if (r == 1) {
            topo_sched_recv(&sc[r], 0, TOPO_XFER_RECV_COPY, 0, 1);
        }
        topo_sched_step(&sc[r]);
        if (r == 1) {
            topo_sched_send(&sc[r], 2, 0, 1);
        } else if (r == 2) {
            topo_sched_recv(&sc[r], 1, TOPO_XFER_RECV_COPY, 0, 1);
        }
        ck_assert_int_eq(topo_sched_finish(&sc[r]), TOPO_OK);
    }
    ck_assert_int_eq(topo_verify(sc, 3, TOPO_PRIM_BCAST, 0, 0, msg, sizeof(msg)), TOPO_OK);
    /* ... which is not a bcast from root 1 */
    ck_assert_int_eq(topo_verify(sc, 3, TOPO_PRIM_BCAST, 1, 0, msg, sizeof(msg)), TOPO_EINVAL);
    for (int r = 0; r < 3; r++) {
        topo_sched_free(&sc[r]);
    }
}
END_TEST

START_TEST(test_lanes_must_be_disjoint)
{
    char msg[512];
    topo_sched_t sc[2];
    for (int r = 0; r < 2; r++) {
        topo_sched_init(&sc[r], 2, r, 2);
        for (int l = 0; l < 2; l++) {
            topo_sched_lane(&sc[r]);
            topo_sched_step(&sc[r]);
            topo_sched_send(&sc[r], 1 - r, 0, 1); /* both lanes use block 0 */
            topo_sched_recv(&sc[r], 1 - r, r ? TOPO_XFER_RECV_REDUCE : TOPO_XFER_RECV_REDUCE_POST,
                            0, 1);
        }
        ck_assert_int_eq(topo_sched_finish(&sc[r]), TOPO_OK);
    }
    ck_assert_int_eq(topo_verify(sc, 2, TOPO_PRIM_ALLREDUCE, 0, 0, msg, sizeof(msg)),
                     TOPO_EINVAL);
    ck_assert_ptr_nonnull(strstr(msg, "lanes"));
    /* two lanes over disjoint halves: a correct two-port allreduce */
    for (int r = 0; r < 2; r++) {
        topo_sched_free(&sc[r]);
        topo_sched_init(&sc[r], 2, r, 2);
        for (int l = 0; l < 2; l++) {
            topo_sched_lane(&sc[r]);
            topo_sched_step(&sc[r]);
            topo_sched_send(&sc[r], 1 - r, l, 1);
            topo_sched_recv(&sc[r], 1 - r, r ? TOPO_XFER_RECV_REDUCE : TOPO_XFER_RECV_REDUCE_POST,
                            l, 1);
        }
        ck_assert_int_eq(topo_sched_finish(&sc[r]), TOPO_OK);
    }
    ck_assert_int_eq(topo_verify(sc, 2, TOPO_PRIM_ALLREDUCE, 0, 1, msg, sizeof(msg)), TOPO_OK);
    for (int r = 0; r < 2; r++) {
        topo_sched_free(&sc[r]);
    }
}
END_TEST

START_TEST(test_alltoall_semantics)
{
    char msg[512];
    topo_sched_t *sc = ut_gen_all(TOPO_PRIM_ALLTOALL, "pairwise", 5, 0, &star);
    ck_assert_int_eq(topo_verify(sc, 5, TOPO_PRIM_ALLTOALL, 0, 0, msg, sizeof(msg)), TOPO_OK);
    /* rank 2 files what it receives at its last step under the wrong source */
    topo_xfer_t *last = &sc[2].xfers[sc[2].nxfers - 1];
    topo_range_t *rg = &sc[2].ranges[last->range0];
    rg->first = 5 + (rg->first - 5 + 1) % 5;
    ck_assert_int_eq(topo_verify(sc, 5, TOPO_PRIM_ALLTOALL, 0, 0, msg, sizeof(msg)), TOPO_EINVAL);
    /* reductions have no place in a data-movement primitive */
    last->kind = TOPO_XFER_RECV_REDUCE;
    ck_assert_int_eq(topo_verify(sc, 5, TOPO_PRIM_ALLTOALL, 0, 0, msg, sizeof(msg)), TOPO_EINVAL);
    ut_free_all(sc, 5);
    /* the same schedules are not an allgather */
    sc = ut_gen_all(TOPO_PRIM_ALLTOALL, "pairwise", 3, 0, &star);
    ck_assert_int_eq(topo_verify(sc, 3, TOPO_PRIM_ALLGATHER, 0, 0, msg, sizeof(msg)), TOPO_EINVAL);
    ut_free_all(sc, 3);
}
END_TEST

START_TEST(test_barrier_semantics)
{
    char msg[512];
    topo_sched_t *sc = ut_gen_all(TOPO_PRIM_BARRIER, "dissemination", 5, 0, &star);
    ck_assert(sc[0].sync);
    ck_assert_int_eq(topo_verify(sc, 5, TOPO_PRIM_BARRIER, 0, 0, msg, sizeof(msg)), TOPO_OK);
    /* one step short: ranks leave knowing of 4 ranks only */
    for (int r = 0; r < 5; r++) {
        sc[r].lanes[0].nsteps--;
    }
    ck_assert_int_eq(topo_verify(sc, 5, TOPO_PRIM_BARRIER, 0, 0, msg, sizeof(msg)), TOPO_EINVAL);
    ck_assert_ptr_nonnull(strstr(msg, "knowing of"));
    ut_free_all(sc, 5);
}
END_TEST

START_TEST(test_catalog_rows)
{
    int n;
    const topo_algo_t *t = topo_catalog(&n);
    ck_assert_int_ge(n, 3);
    for (int i = 0; i < n; i++) {
        ck_assert_ptr_nonnull(t[i].gen);
        ck_assert(t[i].summary && strlen(t[i].summary) > 10);
        ck_assert(t[i].source && strlen(t[i].source) > 3);
        ck_assert_ptr_eq(topo_catalog_find(t[i].prim, t[i].name), &t[i]);
        for (const char *c = t[i].name; *c; c++) {
            ck_assert_msg((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_',
                          "name '%s' is not a plain MCA value", t[i].name);
        }
        ck_assert_msg(strcmp(t[i].name, "auto") != 0, "'auto' is reserved");
    }
    ck_assert_ptr_null(topo_catalog_find(TOPO_PRIM_ALLREDUCE, "nonesuch"));
    ck_assert_ptr_null(topo_catalog_find(TOPO_PRIM_BARRIER, "ring"));
}
END_TEST

START_TEST(test_restrictions)
{
    char why[256];
    topo_gen_args_t a = {TOPO_PRIM_ALLREDUCE, 6, 0, 0, &star};
    const topo_algo_t *ring = topo_catalog_find(TOPO_PRIM_ALLREDUCE, "ring");
    const topo_algo_t *rd = topo_catalog_find(TOPO_PRIM_ALLREDUCE, "recursive_doubling");
    const topo_algo_t *rab = topo_catalog_find(TOPO_PRIM_ALLREDUCE, "rabenseifner");
    ck_assert_int_eq(topo_algo_fits(ring, &a, TOPO_OP_EXACT, why, sizeof(why)), 1);
    ck_assert_int_eq(topo_algo_fits(ring, &a, TOPO_OP_ORDERED, why, sizeof(why)), 0);
    ck_assert_ptr_nonnull(strstr(why, "commutative"));
    /* order-preserving ones serve non-commutative operations */
    ck_assert_int_eq(topo_algo_fits(rd, &a, TOPO_OP_ORDERED, why, sizeof(why)), 1);
    ck_assert_int_eq(topo_algo_fits(rab, &a, TOPO_OP_ORDERED, why, sizeof(why)), 1);
    ck_assert(!(rd->flags & TOPO_ALG_COMMUTATIVE));
    ck_assert(!(rab->flags & TOPO_ALG_COMMUTATIVE));
    /* generating for a rank outside the communicator fails cleanly */
    topo_sched_t s;
    a.rank = 6;
    ck_assert_int_eq(topo_algo_generate(ring, &a, &s), TOPO_EINVAL);
    topo_sched_free(&s);
}
END_TEST

/* The reductions' grids: every torus and mesh of 2 and 3 dimensions of 2
 * to 9 (2D) and 2 to 5 (3D) nodes a side, a few of 4 dimensions, and
 * rings of 8 to 16 as 1D tori and meshes. */
static int grid_shape(int i, char *buf, size_t len)
{
    const char *kind = i % 2 ? "mesh" : "torus";
    i /= 2;
    if (i < 64) {
        snprintf(buf, len, "%s:%dx%d", kind, 2 + i / 8, 2 + i % 8);
        return 1;
    }
    i -= 64;
    if (i < 64) {
        snprintf(buf, len, "%s:%dx%dx%d", kind, 2 + i / 16, 2 + (i / 4) % 4, 2 + i % 4);
        return 1;
    }
    i -= 64;
    static const char *const four[] = {"2x2x2x2", "2x3x2x3", "4x2x4x2", "3x3x3x3"};
    if (i < 4) {
        snprintf(buf, len, "%s:%s", kind, four[i]);
        return 1;
    }
    i -= 4;
    if (i < 9) {
        snprintf(buf, len, "%s:%d", kind, 8 + i);
        return 1;
    }
    return 0;
}

/* Every reduction of the catalog on every grid of grid_shape (allreduce,
 * reduce-scatter, reduce to the first and the middle rank): correct, and
 * every rank that gets a block combined it in the same tree, unless the
 * algorithm says it does not (TOPO_ALG_RANK_TREES without same_tree); and
 * where it says so, the verifier finds ranks that disagree, so the claim
 * costs no algorithm a size where it agrees. */
START_TEST(test_same_tree_on_grids)
{
    int n;
    const topo_algo_t *al = &topo_catalog(&n)[_i];
    if (al->prim != TOPO_PRIM_ALLREDUCE && al->prim != TOPO_PRIM_REDUCE_SCATTER &&
        al->prim != TOPO_PRIM_REDUCE) {
        return;
    }
    char shape[64], msg[512];
    for (int i = 0; grid_shape(i, shape, sizeof(shape)); i++) {
        topo_topology_t t = ut_topo(shape);
        const int p = topo_topology_size(&t);
        for (int root = 0; root < (al->prim == TOPO_PRIM_REDUCE ? 2 : 1); root++) {
            topo_gen_args_t a = {al->prim, p, 0, root * (p / 2), &t};
            if (!topo_algo_fits(al, &a, TOPO_OP_EXACT, msg, sizeof(msg))) {
                continue;
            }
            topo_sched_t *sc = ut_gen_all(al->prim, al->name, p, a.root, &t);
            const unsigned ordered = al->flags & TOPO_ALG_COMMUTATIVE ? 0u : TOPO_VERIFY_ORDERED;
            const int same = topo_algo_same_tree(al, &a);
            int rc = topo_verify(sc, p, al->prim, a.root, ordered | TOPO_VERIFY_ANY_TREE, msg,
                                 sizeof(msg));
            ck_assert_msg(TOPO_OK == rc, "%s %s on %s: %s", topo_prim_name(al->prim), al->name,
                          shape, msg);
            rc = topo_verify(sc, p, al->prim, a.root, ordered, msg, sizeof(msg));
            ck_assert_msg(same ? TOPO_OK == rc : TOPO_EINVAL == rc,
                          "%s %s on %s: the ranks' trees %s, but same_tree says %d: %s",
                          topo_prim_name(al->prim), al->name, shape, rc ? "differ" : "agree",
                          same, msg);
            if (!same) {
                ck_assert_ptr_nonnull(strstr(msg, "another order"));
                ck_assert_int_eq(topo_algo_fits(al, &a, TOPO_OP_COMMUTATIVE, msg, sizeof(msg)),
                                 0);
                ck_assert_ptr_nonnull(strstr(msg, "differ between ranks"));
            }
            ut_free_all(sc, p);
        }
    }
}
END_TEST

/* The cases where ranks got different sums, each caught by the verifier
 * and kept from operations that round: trivance_lat on rings of 3, 4, 5
 * and 9 and tori 2x3, 3x3 and 3x4 (not 2x2x2), swing_lat on a ring of 9,
 * recursive_doubling_mp on 8 and 16 ranks. */
START_TEST(test_rank_trees_caught)
{
    static const struct {
        const char *algo, *topo;
        int p, same;
    } c[] = {{"trivance_lat", "star", 3, 0},        {"trivance_lat", "star", 4, 0},
             {"trivance_lat", "star", 5, 0},        {"trivance_lat", "torus:9", 9, 0},
             {"trivance_lat", "torus:2x3", 6, 0},   {"trivance_lat", "torus:3x3", 9, 0},
             {"trivance_lat", "torus:3x4", 12, 0},  {"trivance_lat", "torus:2x2x2", 8, 1},
             {"trivance_lat", "star", 2, 1},        {"swing_lat", "star", 9, 0},
             {"swing_lat", "torus:4x4", 16, 1},     {"swing_lat", "star", 7, 1},
             {"recursive_doubling_mp", "star", 8, 0}, {"recursive_doubling_mp", "star", 16, 0},
             {"recursive_doubling_mp", "star", 7, 1}, {"recursive_doubling_mp", "torus:4x4", 16, 1},
             {"rabenseifner_mp", "star", 16, 1},   {"trivance_bw", "star", 9, 1},
             {"swing_bw", "star", 9, 1},           {"ring", "star", 9, 1}};
    char msg[512];
    for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
        topo_topology_t t = ut_topo(c[i].topo);
        const topo_algo_t *al = ut_allreduce(c[i].algo);
        topo_gen_args_t a = {TOPO_PRIM_ALLREDUCE, c[i].p, 0, 0, &t};
        ck_assert_int_eq(topo_algo_same_tree(al, &a), c[i].same);
        ck_assert_int_eq(topo_algo_fits(al, &a, TOPO_OP_COMMUTATIVE, msg, sizeof(msg)),
                         c[i].same);
        ck_assert_int_eq(topo_algo_fits(al, &a, TOPO_OP_EXACT, msg, sizeof(msg)), 1);
        topo_sched_t *sc = ut_gen_allreduce(c[i].algo, c[i].p, &t);
        int rc = topo_verify(sc, c[i].p, TOPO_PRIM_ALLREDUCE, 0, 0, msg, sizeof(msg));
        ck_assert_msg(c[i].same ? TOPO_OK == rc : TOPO_EINVAL == rc, "%s on %s, %d ranks: %s",
                      c[i].algo, c[i].topo, c[i].p, msg);
        ck_assert_int_eq(topo_verify(sc, c[i].p, TOPO_PRIM_ALLREDUCE, 0, TOPO_VERIFY_ANY_TREE,
                                     msg, sizeof(msg)),
                         TOPO_OK);
        ut_free_all(sc, c[i].p);
    }
}
END_TEST

/* The tree, not only the set: 3 ranks each send their vector to the two
 * others and reduce what they receive in the order of the peers' ranks.
 * Every rank ends with every contribution once, but rank 2 combines
 * 1 + (0 + 2) where ranks 0 and 1 combine 2 + (0 + 1). */
START_TEST(test_rejects_other_trees)
{
    char msg[512];
    topo_sched_t sc[3];
    for (int r = 0; r < 3; r++) {
        topo_sched_init(&sc[r], 3, r, 1);
        topo_sched_lane(&sc[r]);
        topo_sched_step(&sc[r]);
        for (int q = 0; q < 3; q++) {
            if (q != r) {
                topo_sched_send(&sc[r], q, 0, 1);
            }
        }
        for (int q = 0; q < 3; q++) {
            if (q != r) {
                topo_sched_recv(&sc[r], q, TOPO_XFER_RECV_REDUCE, 0, 1);
            }
        }
        ck_assert_int_eq(topo_sched_finish(&sc[r]), TOPO_OK);
    }
    ck_assert_int_eq(verify(sc, 3, 0, msg), TOPO_EINVAL);
    ck_assert_ptr_nonnull(strstr(msg, "rank 2 block 0"));
    ck_assert_ptr_nonnull(strstr(msg, "another order"));
    ck_assert_int_eq(verify(sc, 3, TOPO_VERIFY_ANY_TREE, msg), TOPO_OK);
    for (int r = 0; r < 3; r++) {
        topo_sched_free(&sc[r]);
    }
}
END_TEST

int main(void)
{
    int n;
    topo_catalog(&n);
    Suite *s = suite_create("algorithms");
    TCase *tc = ut_tcase(s, "verifier", 600);
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_add_loop_test(tc, test_catalog_all_sizes, 0, n);
    tcase_add_test(tc, test_step_counts);
    tcase_add_test(tc, test_rejects_wrong_order);
    tcase_add_test(tc, test_rejects_double_counting);
    tcase_add_test(tc, test_rejects_missing_data);
    tcase_add_test(tc, test_rejects_unmatched);
    tcase_add_test(tc, test_rejects_sending_unknown_data);
    tcase_add_test(tc, test_lanes_must_be_disjoint);
    tcase_add_test(tc, test_alltoall_semantics);
    tcase_add_test(tc, test_barrier_semantics);
    tcase_add_test(tc, test_catalog_rows);
    tcase_add_test(tc, test_restrictions);
    tcase_add_test(tc, test_rank_trees_caught);
    tcase_add_test(tc, test_rejects_other_trees);
    TCase *grids = ut_tcase(s, "same tree on grids", 600);
    tcase_add_loop_test(grids, test_same_tree_on_grids, 0, n);
    return ut_run_suite(s);
}
