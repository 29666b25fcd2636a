/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests: the schedule builder and the block layout (core/schedule.c). */
#include "catalog.h"
#include "schedule.h"
#include "unit_common.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

START_TEST(test_build_and_merge)
{
    topo_sched_t s;
    topo_sched_init(&s, 4, 1, 8);
    topo_sched_step(&s);
    topo_sched_send(&s, 2, 0, 2);
    topo_sched_range(&s, 2, 3); /* adjacent: merged into [0,5) */
    topo_sched_range(&s, 6, 1); /* not adjacent: a second range */
    topo_sched_recv(&s, 0, TOPO_XFER_RECV_REDUCE, 5, 1);
    ck_assert_int_eq(topo_sched_finish(&s), TOPO_OK);
    ck_assert_int_eq(s.nlanes, 1);
    ck_assert_int_eq(s.nsteps, 1);
    ck_assert_int_eq(s.nxfers, 2);
    ck_assert_int_eq(s.xfers[0].nranges, 2);
    ck_assert_int_eq(s.xfers[0].nblk, 6);
    ck_assert_int_eq(s.ranges[s.xfers[0].range0].count, 5);
    ck_assert_int_eq(s.xfers[1].nblk, 1);
    ck_assert_int_eq(topo_sched_depth(&s), 1);
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    topo_sched_print(&s, f);
    ck_assert(ftell(f) > 0);
    fclose(f);
    topo_sched_free(&s);
}
END_TEST

START_TEST(test_bad_input_is_sticky)
{
    topo_sched_t s;
    /* a range beyond the blocks */
    topo_sched_init(&s, 4, 0, 4);
    topo_sched_send(&s, 1, 3, 2);
    topo_sched_step(&s);
    topo_sched_send(&s, 1, 0, 1);
    ck_assert_int_eq(topo_sched_finish(&s), TOPO_EINVAL);
    topo_sched_free(&s);
    /* a peer outside the communicator, and oneself */
    int peers[] = {-1, 4, 0};
    for (int i = 0; i < 3; i++) {
        topo_sched_init(&s, 4, 0, 4);
        topo_sched_send(&s, peers[i], 0, 1);
        ck_assert_int_eq(topo_sched_finish(&s), TOPO_EINVAL);
        topo_sched_free(&s);
    }
    /* a receive with a send kind */
    topo_sched_init(&s, 4, 0, 4);
    topo_sched_recv(&s, 1, TOPO_XFER_SEND, 0, 1);
    ck_assert_int_eq(topo_sched_finish(&s), TOPO_EINVAL);
    topo_sched_free(&s);
    /* a rank outside the communicator */
    topo_sched_init(&s, 4, 4, 4);
    ck_assert_int_eq(topo_sched_finish(&s), TOPO_EINVAL);
    topo_sched_free(&s);
}
END_TEST

START_TEST(test_direct_receives)
{
    topo_sched_t s;
    topo_sched_init(&s, 3, 0, 4);
    topo_sched_step(&s);
    topo_sched_send(&s, 1, 0, 1);
    topo_sched_recv(&s, 1, TOPO_XFER_RECV_COPY, 1, 1);   /* untouched: direct */
    topo_sched_recv(&s, 2, TOPO_XFER_RECV_COPY, 0, 1);   /* overwrites what is sent */
    topo_sched_recv(&s, 2, TOPO_XFER_RECV_REDUCE, 2, 1); /* reduces: never direct */
    topo_sched_recv(&s, 1, TOPO_XFER_RECV_COPY, 3, 1);
    topo_sched_recv(&s, 2, TOPO_XFER_RECV_COPY, 3, 1); /* two writers of block 3 */
    ck_assert_int_eq(topo_sched_finish(&s), TOPO_OK);
    ck_assert_int_eq(s.xfers[1].direct, 1);
    ck_assert_int_eq(s.xfers[2].direct, 0);
    ck_assert_int_eq(s.xfers[3].direct, 0);
    ck_assert_int_eq(s.xfers[4].direct, 0);
    ck_assert_int_eq(s.xfers[5].direct, 0);
    topo_sched_free(&s);

    /* a local copy's both sides count: a receive into its source or its
     * destination is not direct, one beside them is; an empty range
     * touches nothing */
    topo_sched_init(&s, 3, 0, 8);
    topo_sched_step(&s);
    topo_sched_copy(&s, 4, 5, 1);
    topo_sched_recv(&s, 1, TOPO_XFER_RECV_COPY, 4, 1);
    topo_sched_recv(&s, 2, TOPO_XFER_RECV_COPY, 5, 1);
    topo_sched_recv(&s, 1, TOPO_XFER_RECV_COPY, 6, 1);
    topo_sched_send(&s, 2, 7, 0);
    topo_sched_recv(&s, 2, TOPO_XFER_RECV_COPY, 7, 1);
    ck_assert_int_eq(topo_sched_finish(&s), TOPO_OK);
    ck_assert_int_eq(s.xfers[1].direct, 0);
    ck_assert_int_eq(s.xfers[2].direct, 0);
    ck_assert_int_eq(s.xfers[3].direct, 1);
    ck_assert_int_eq(s.xfers[5].direct, 1);
    topo_sched_free(&s);
}
END_TEST

/* Do two transfers of a step share a block (both sides of a copy)?
 * ranges: the step's (topo_step_view_t.ranges). */
static int share_block(const topo_range_t *ranges, const topo_xfer_t *a, const topo_xfer_t *b)
{
    for (int sa = 0; sa < (a->kind == TOPO_XFER_COPY ? 2 : 1); sa++) {
        for (int i = 0; i < (sa ? a->nsrc : a->nranges); i++) {
            const topo_range_t *ra = &ranges[(sa ? a->src0 : a->range0) + i];
            for (int sb = 0; sb < (b->kind == TOPO_XFER_COPY ? 2 : 1); sb++) {
                for (int j = 0; j < (sb ? b->nsrc : b->nranges); j++) {
                    const topo_range_t *rb = &ranges[(sb ? b->src0 : b->range0) + j];
                    if (ra->first < rb->first + rb->count && rb->first < ra->first + ra->count) {
                        return 1;
                    }
                }
            }
        }
    }
    return 0;
}

/* Every catalog schedule's direct receives, against their definition
 * compared pair by pair: a RECV_COPY of one range that shares no block
 * with another transfer of its step; every logical step, repeated ones
 * (topo_sched_repeat, topo_sched_repeat_xfers) included, read in the
 * explicit form (topo_sched_expand keeps the flags the steps' views
 * give). */
START_TEST(test_direct_receives_catalog)
{
    static const struct {
        const char *topo;
        int size; /* 0: 1..24 */
    } cases[] = {{"star", 0}, {"torus:2x2x2", 8}, {"torus:3x4", 12}, {"mesh:3x3", 9}};
    int n;
    const topo_algo_t *cat = topo_catalog(&n);
    long checked = 0;
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        topo_topology_t t = ut_topo(cases[c].topo);
        for (int p = cases[c].size ? cases[c].size : 1; p <= (cases[c].size ? cases[c].size : 24);
             p++) {
            const int last = p - 1; /* roots 0 and p - 1 */
            for (int i = 0; i < n; i++) {
                for (int root = 0; root <= last; root += last > 0 ? last : 1) {
                    char why[256];
                    topo_gen_args_t a = {cat[i].prim, p, 0, root, &t};
                    if (!topo_algo_fits(&cat[i], &a, TOPO_OP_EXACT, why, sizeof(why))) {
                        continue;
                    }
                    for (a.rank = 0; a.rank < p; a.rank++) {
                        topo_sched_t g, s;
                        ck_assert_int_eq(topo_algo_generate(&cat[i], &a, &g), TOPO_OK);
                        ck_assert_int_eq(topo_sched_expand(&g, &s), TOPO_OK);
                        topo_sched_free(&g);
                        topo_step_view_t v;
                        for (int l = 0; l < s.nlanes; l++) {
                            for (int st = 0; st < s.lanes[l].nsteps; st++) {
                                topo_sched_step_at(&s, l, st, &v);
                                ck_assert_int_eq(v.nstored, v.nxfers);
                                for (int x = 0; x < v.nxfers; x++) {
                                    const topo_xfer_t *tx = &v.xfers[x];
                                    int alone = tx->kind == TOPO_XFER_RECV_COPY && tx->nranges == 1;
                                    for (int y = 0; y < v.nxfers && alone; y++) {
                                        alone = y == x || !share_block(v.ranges, tx, &v.xfers[y]);
                                    }
                                    ck_assert_msg(tx->direct == alone,
                                                  "%s %s on %s, p=%d root=%d rank %d step %d "
                                                  "transfer %d: direct %d, expected %d",
                                                  topo_prim_name(cat[i].prim), cat[i].name,
                                                  cases[c].topo, p, root, a.rank, st, x, tx->direct,
                                                  alone);
                                    checked++;
                                }
                            }
                        }
                        topo_sched_free(&s);
                    }
                }
            }
        }
    }
    ck_assert(checked > 10000);
}
END_TEST

START_TEST(test_layout_even_split)
{
    topo_sched_t s;
    size_t off[9];
    topo_sched_init(&s, 8, 0, 8);
    /* count 0: every block empty */
    topo_block_layout(&s, 0, NULL, off);
    for (int b = 0; b <= 8; b++) {
        ck_assert_uint_eq(off[b], 0);
    }
    /* count < blocks: the first `count` blocks get one element */
    topo_block_layout(&s, 3, NULL, off);
    size_t expect3[] = {0, 1, 2, 3, 3, 3, 3, 3, 3};
    for (int b = 0; b <= 8; b++) {
        ck_assert_uint_eq(off[b], expect3[b]);
    }
    /* count = 2^20 + 3 */
    size_t n = (1u << 20) + 3;
    topo_block_layout(&s, n, NULL, off);
    ck_assert_uint_eq(off[8], n);
    for (int b = 0; b < 8; b++) {
        size_t len = off[b + 1] - off[b];
        ck_assert(len == n / 8 || len == n / 8 + 1);
        ck_assert(b >= 3 || len == n / 8 + 1);
    }
    topo_sched_free(&s);
}
END_TEST

START_TEST(test_layout_units)
{
    topo_sched_t s;
    topo_sched_init(&s, 3, 0, 6);
    s.nparts = 2;
    size_t units[] = {5, 0, 2}, off[7];
    topo_block_layout(&s, 0, units, off);
    size_t expect[] = {0, 3, 5, 5, 5, 6, 7};
    for (int b = 0; b <= 6; b++) {
        ck_assert_uint_eq(off[b], expect[b]);
    }
    topo_sched_free(&s);
}
END_TEST

/* Lists of primitives (coll_topo_handoff). */
START_TEST(test_prim_set_parse)
{
    static const struct {
        const char *str;
        unsigned set;
    } good[] = {
        {"", 0},
        {"  ", 0},
        {"none", 0},
        {" none ", 0},
        {"bcast", 1u << TOPO_PRIM_BCAST},
        {"bcast,reduce", 1u << TOPO_PRIM_BCAST | 1u << TOPO_PRIM_REDUCE},
        {" reduce , bcast ,reduce", 1u << TOPO_PRIM_BCAST | 1u << TOPO_PRIM_REDUCE},
        {"allreduce,reduce_scatter,allgather,bcast,reduce,alltoall,barrier",
         (1u << TOPO_PRIM_COUNT) - 1},
    };
    static const struct {
        const char *str, *err;
    } bad[] = {
        {"bcast,", "an empty item"},
        {",bcast", "an empty item"},
        {"bcast,,reduce", "an empty item"},
        {"none,bcast", "'none' is not a primitive"},
        {"bcst", "'bcst' is not a primitive"},
        {"reduce_scatter_block", "'reduce_scatter_block' is not a primitive"},
        {"Bcast", "'Bcast' is not a primitive"},
        {"bcast reduce", "'bcast reduce' is not a primitive"},
    };
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        unsigned set = 12345;
        char err[256] = "";
        ck_assert_msg(TOPO_OK == topo_prim_set_parse(good[i].str, &set, err, sizeof(err)),
                      "'%s': %s", good[i].str, err);
        ck_assert_msg(set == good[i].set, "'%s': set %#x, want %#x", good[i].str, set, good[i].set);
    }
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        unsigned set = 12345;
        char err[256] = "";
        const char *want = bad[i].err;
        ck_assert_msg(TOPO_EINVAL == topo_prim_set_parse(bad[i].str, &set, err, sizeof(err)),
                      "'%s' accepted", bad[i].str);
        ck_assert_msg(NULL != strstr(err, want), "'%s': reason '%s', want '%s'", bad[i].str, err,
                      want);
        ck_assert_uint_eq(set, 12345);
    }
    unsigned set = 7;
    char err[64];
    ck_assert_int_eq(TOPO_OK, topo_prim_set_parse(NULL, &set, err, sizeof(err)));
    ck_assert_uint_eq(set, 0);
}
END_TEST

/* a and b have the same logical steps: lanes, steps, transfers (peer,
 * kind, direct, blocks) and ranges, read through topo_sched_step_at. */
static void expect_same(const topo_sched_t *a, const topo_sched_t *b, const char *what)
{
    ck_assert_msg(a->nlanes == b->nlanes && a->nblocks == b->nblocks, "%s: shape", what);
    topo_step_view_t va, vb;
    for (int l = 0; l < a->nlanes; l++) {
        ck_assert_msg(a->lanes[l].nsteps == b->lanes[l].nsteps, "%s: lane %d has %d steps, not %d",
                      what, l, a->lanes[l].nsteps, b->lanes[l].nsteps);
        for (int st = 0; st < a->lanes[l].nsteps; st++) {
            topo_sched_step_at(a, l, st, &va);
            topo_sched_step_at(b, l, st, &vb);
            ck_assert_msg(va.nxfers == vb.nxfers, "%s: step %d transfers", what, st);
            for (int i = 0; i < va.nxfers; i++) {
                const topo_range_t *ga, *gb;
                const topo_xfer_t *x = topo_step_xfer(&va, i, &ga),
                                  *y = topo_step_xfer(&vb, i, &gb);
                ck_assert_msg(x->peer == y->peer && x->kind == y->kind && x->direct == y->direct &&
                                  x->nblk == y->nblk &&
                                  (x->kind != TOPO_XFER_COPY || x->nsrc == y->nsrc),
                              "%s: step %d transfer %d: peer %d/%d kind %d/%d direct %d/%d "
                              "blocks %d/%d",
                              what, st, i, x->peer, y->peer, x->kind, y->kind, x->direct, y->direct,
                              x->nblk, y->nblk);
                for (int side = 0; side < (x->kind == TOPO_XFER_COPY ? 2 : 1); side++) {
                    topo_range_iter_t ia, ib;
                    topo_range_t ra, rb;
                    topo_range_iter(&ia, ga, x, side);
                    topo_range_iter(&ib, gb, y, side);
                    for (int k = 0;; k++) {
                        const int more = topo_range_next(&ia, &ra);
                        ck_assert_msg(more == topo_range_next(&ib, &rb),
                                      "%s: step %d transfer %d: %s ranges", what, st, i,
                                      more ? "fewer" : "more");
                        if (!more) {
                            break;
                        }
                        ck_assert_msg(ra.first == rb.first && ra.count == rb.count,
                                      "%s: step %d transfer %d range %d: [%d,+%d) vs [%d,+%d)",
                                      what, st, i, k, ra.first, ra.count, rb.first, rb.count);
                    }
                }
            }
        }
    }
}

/* c's expansion (topo_sched_expand) is explicit and the same as e, the
 * explicit emission, and c's totals count e's steps, transfers and
 * ranges; the expansion's steps and transfers in *nsteps, *nxfers (each
 * may be NULL). */
static void expect_expanded(const topo_sched_t *c, const topo_sched_t *e, const char *what,
                            int *nsteps, int *nxfers)
{
    topo_sched_t x;
    ck_assert_int_eq(topo_sched_expand(c, &x), TOPO_OK);
    ck_assert(!topo_sched_compact(&x));
    expect_same(&x, e, what);
    if (NULL != nsteps) {
        *nsteps = x.nsteps;
    }
    if (NULL != nxfers) {
        *nxfers = x.nxfers;
    }
    size_t ns, nx, nr;
    topo_sched_totals(c, &ns, &nx, &nr);
    ck_assert_msg(ns == (size_t)e->nsteps && nx == (size_t)e->nxfers && nr == (size_t)e->nranges,
                  "%s: totals %zu %zu %zu, explicit %d %d %d", what, ns, nx, nr, e->nsteps,
                  e->nxfers, e->nranges);
    topo_sched_free(&x);
}

/* Block b moved j times by dblk within the windows of wlen from wfirst. */
static int moved(int b, int j, int dblk, int wfirst, int wlen)
{
    if (b < wfirst) {
        return b;
    }
    const int w = b - (b - wfirst) % wlen;
    return w + (((b - w + j * dblk) % wlen) + wlen) % wlen;
}

/* A range of n blocks from f moved j times, emitted as the explicit form
 * would be (split where it passes its window's end). */
static void moved_range(topo_sched_t *s, int f, int n, int j, int dblk, int wfirst, int wlen)
{
    const int w = f - (f - wfirst) % wlen, g = moved(f, j, dblk, wfirst, wlen);
    const int first = g + n <= w + wlen ? n : w + wlen - g;
    topo_sched_range(s, g, first);
    if (first < n) {
        topo_sched_range(s, w, n - first);
    }
}

/* The repeat form equals the explicit emission: a ring step (the compact
 * form), a pairwise exchange (peers move), a local copy, ranges of several
 * blocks in tiled windows, a range that wraps (stored explicitly), and a
 * template of two steps, each after a step that is not repeated. */
START_TEST(test_repeat_equals_explicit)
{
    for (int p = 1; p <= 12; p++) {
        /* the exchange's peers meet the rank after p - 2 repetitions */
        for (int k = 0; k <= (p > 1 && p - 2 < 6 ? p - 2 : 6); k++) {
            for (int wrap = 0; wrap < 2; wrap++) {
                topo_sched_t c, e;
                const int r = p / 2, nb = 3 * p + 8, dr = wrap ? 1 : 3;
                /* a ring's send, its block one back in [0, p); an exchange
                 * with r + 1 + j (its block one on in [p, 2p)) and r - 1 - j
                 * (one back in [2p, 3p)); a copy between blocks 3p and
                 * 3p + 1, turning in their window; three blocks moving by
                 * dr in [3p + 2, 3p + 8) (by 1 they wrap: stored
                 * explicitly) */
                const topo_shift_t sh[5] = {{0, -1, 0, p, 1, 0, 0},
                                            {1, 1, p, p, 1, 0, 0},
                                            {-1, -1, 2 * p, p, 1, 0, 0},
                                            {0, 1, 3 * p, 2, 1, 0, 0},
                                            {0, dr, 3 * p + 2, 6, 1, 0, 0}};
                for (int form = 0; form < 2; form++) {
                    topo_sched_t *s = form ? &e : &c;
                    topo_sched_init(s, p, r, nb);
                    s->uniform = 1;
                    topo_sched_step(s);
                    topo_sched_copy(s, 0, 3 * p, 1); /* a step not repeated */
                    for (int j = 0; j <= (form ? k : 0); j++) {
                        topo_sched_step(s);
                        if (p > 1) {
                            topo_sched_send(s, (r + 1) % p, moved(r, j, -1, 0, p), 1);
                            topo_sched_send(s, (r + 1 + j) % p, moved(p + r, j, 1, p, p), 1);
                            topo_sched_recv(s, ((r - 1 - j) % p + p) % p, TOPO_XFER_RECV_COPY,
                                            moved(2 * p + r, j, -1, 2 * p, p), 1);
                        }
                        topo_sched_step(s);
                        topo_sched_copy(s, moved(3 * p, j, 1, 3 * p, 2),
                                        moved(3 * p + 1, j, 1, 3 * p, 2), 1);
                        if (p > 1) {
                            topo_sched_send(s, (r + 1) % p, 0, 0);
                            moved_range(s, 3 * p + 2, 3, j, dr, 3 * p + 2, 6);
                        }
                    }
                    if (!form) {
                        topo_sched_repeat(s, 2, k, p > 1 ? sh : &sh[3], p > 1 ? 5 : 1);
                    }
                    ck_assert_int_eq(topo_sched_finish(s), TOPO_OK);
                }
                char what[64];
                snprintf(what, sizeof(what), "p=%d k=%d wrap=%d", p, k, wrap);
                /* stored once unless a range wraps (k = 0: nothing repeats) */
                ck_assert_msg(topo_sched_compact(&c) == (k > 0 && (!wrap || 1 == p || k < 4)),
                              "%s: compact %d", what, topo_sched_compact(&c));
                expect_same(&c, &e, what);
                ck_assert_int_eq(topo_sched_depth(&c), 1 + 2 * (k + 1));
                int xsteps = 0;
                expect_expanded(&c, &e, what, &xsteps, NULL);
                ck_assert_int_eq(xsteps, 1 + 2 * (k + 1));
                topo_sched_free(&c);
                topo_sched_free(&e);
            }
        }
    }
}
END_TEST

/* A relay's step (bucket alltoall's): ranges outside the windows that
 * start one block later and hold one block fewer each repetition (dout,
 * dcount), beside a bundle that turns in its window; form 0 repeats the
 * template (topo_sched_repeat), form 1 emits every step.  variant 1: the
 * relays run empty at the last repetition (stored explicitly); 2: a
 * receive inside what a relay covers, so whether it lands in place could
 * change (stored explicitly); 3: two growing ranges of one send that meet
 * at the third repetition (the explicit form merges them). */
static int relay_steps(topo_sched_t *s, int p, int k, int variant, int form)
{
    const int r = p / 2;
    topo_sched_init(s, p, r, 4 * p + 16);
    s->uniform = 1;
    const topo_shift_t sh[4] = {{0, 0, 0, 0, 0, 1, -1},
                                {0, -1, p, p, 1, 1, -1},
                                {0, 0, 0, 0, 0, 0, 0},
                                {0, 0, 0, 0, 0, 0, 1}};
    for (int j = 0; j <= (form ? k : 0); j++) {
        topo_sched_step(s);
        topo_sched_send(s, (r + 1) % p, 2 * p + 1 + j, p - 2 - j);
        topo_sched_recv(s, (r - 1 + p) % p, TOPO_XFER_RECV_COPY, p + moved(r, j, -1, 0, p), 1);
        topo_sched_range(s, 3 * p + 1 + j, p - 2 - j);
        topo_sched_recv(s, (r + 1) % p, TOPO_XFER_RECV_COPY, 2 == variant ? 2 * p + 3 : 2 * p, 1);
        if (3 == variant) {
            topo_sched_send(s, (r + 1) % p, 3 * p, 2 + j);
            topo_sched_range(s, 3 * p + 5, 1 + j);
        }
    }
    if (!form) {
        topo_sched_repeat(s, 1, k, sh, 3 == variant ? 4 : 3);
    }
    return topo_sched_finish(s);
}

START_TEST(test_repeat_relay_equals_explicit)
{
    for (int p = 3; p <= 12; p++) {
        for (int variant = 0; variant <= 3; variant++) {
            for (int k = 1 == variant ? p - 2 : 0; k <= p - (1 == variant ? 2 : 3); k++) {
                topo_sched_t c, e;
                char what[64];
                snprintf(what, sizeof(what), "p=%d variant %d k=%d", p, variant, k);
                ck_assert_msg(relay_steps(&c, p, k, variant, 0) == TOPO_OK, "%s: stored", what);
                ck_assert_msg(relay_steps(&e, p, k, variant, 1) == TOPO_OK, "%s: explicit", what);
                const int once =
                    k > 0 && 1 != variant && (2 != variant || p <= 4) && (3 != variant || k < 3);
                ck_assert_msg(topo_sched_compact(&c) == once, "%s: compact %d", what,
                              topo_sched_compact(&c));
                ck_assert_msg(!once || 1 == c.nsteps, "%s: %d steps stored", what, c.nsteps);
                expect_same(&c, &e, what);
                expect_expanded(&c, &e, what, NULL, NULL);
                topo_sched_free(&c);
                topo_sched_free(&e);
            }
        }
    }
}
END_TEST

/* What is stored: a ring's steps once; a range that would wrap, every
 * repetition (the same logical steps either way). */
START_TEST(test_repeat_storage)
{
    const topo_shift_t ring[2] = {{0, -1, 0, 16, 1, 0, 0}, {0, -1, 0, 16, 1, 0, 0}};
    topo_sched_t s;
    topo_sched_init(&s, 16, 3, 16);
    topo_sched_step(&s);
    topo_sched_send(&s, 4, 2, 1);
    topo_sched_recv(&s, 2, TOPO_XFER_RECV_REDUCE, 1, 1);
    topo_sched_repeat(&s, 1, 14, ring, 2);
    ck_assert_int_eq(topo_sched_finish(&s), TOPO_OK);
    ck_assert(topo_sched_compact(&s));
    ck_assert_int_eq(s.nsteps, 1);
    ck_assert_int_eq(s.lanes[0].nsteps, 15);
    topo_step_view_t v;
    topo_sched_step_at(&s, 0, 14, &v); /* blocks 2 - 14 and 1 - 14, mod 16 */
    ck_assert_int_eq(v.ranges[v.xfers[0].range0].first, 4);
    ck_assert_int_eq(v.ranges[v.xfers[1].range0].first, 3);
    ck_assert_int_eq(v.xfers[0].peer, 4);
    topo_sched_free(&s);
    /* two blocks moving one forward in [0, 4): [2,4) then [3,4)+[0,1) */
    const topo_shift_t one = {0, 1, 0, 4, 1, 0, 0};
    topo_sched_init(&s, 2, 0, 4);
    topo_sched_step(&s);
    topo_sched_send(&s, 1, 2, 2);
    topo_sched_repeat(&s, 1, 3, &one, 1);
    ck_assert_int_eq(topo_sched_finish(&s), TOPO_OK);
    ck_assert(!topo_sched_compact(&s));
    ck_assert_int_eq(s.nsteps, 4);
    topo_sched_step_at(&s, 0, 1, &v);
    ck_assert_int_eq(v.xfers[0].nranges, 2);
    ck_assert_int_eq(v.ranges[v.xfers[0].range0].first, 3);
    ck_assert_int_eq(v.ranges[v.xfers[0].range0 + 1].first, 0);
    topo_sched_step_at(&s, 0, 2, &v); /* [0,2): one range */
    ck_assert_int_eq(v.xfers[0].nranges, 1);
    ck_assert_int_eq(v.ranges[v.xfers[0].range0].count, 2);
    topo_sched_free(&s);
}
END_TEST

/* Repeating nothing adds nothing; idle runs; what the builder refuses. */
START_TEST(test_repeat_edges)
{
    const topo_shift_t sh = {0, 1, 0, 4, 1, 0, 0};
    topo_sched_t s;
    topo_sched_init(&s, 2, 0, 4);
    topo_sched_idle(&s, 0);
    ck_assert_int_eq(topo_sched_depth(&s), 0);
    topo_sched_step(&s);
    topo_sched_send(&s, 1, 0, 1);
    topo_sched_repeat(&s, 1, 0, &sh, 1);  /* k = 0 */
    topo_sched_repeat(&s, 0, 5, NULL, 0); /* no steps */
    ck_assert_int_eq(topo_sched_depth(&s), 1);
    topo_sched_idle(&s, 5);
    ck_assert_int_eq(topo_sched_depth(&s), 6);
    ck_assert_int_eq(s.nsteps, 2);
    topo_sched_step(&s);
    topo_sched_recv(&s, 1, TOPO_XFER_RECV_COPY, 1, 1);
    ck_assert_int_eq(topo_sched_finish(&s), TOPO_OK);
    topo_step_view_t v;
    topo_sched_step_at(&s, 0, 4, &v);
    ck_assert_int_eq(v.nxfers, 0);
    topo_sched_step_at(&s, 0, 6, &v);
    ck_assert_int_eq(v.nxfers, 1);
    ck_assert_int_eq(v.xfers[0].kind, TOPO_XFER_RECV_COPY);
    topo_sched_free(&s);
    /* the template is closed; the shifts must match its transfers; a
     * window must lie in the blocks */
    for (int bad = 0; bad < 4; bad++) {
        topo_sched_init(&s, 2, 0, 4);
        topo_sched_step(&s);
        topo_sched_send(&s, 1, 0, 1);
        const topo_shift_t far = {0, 1, 2, 4, 1, 0, 0};
        topo_sched_repeat(&s, bad == 3 ? 2 : 1, 2, 2 == bad ? &far : &sh, 1 == bad ? 2 : 1);
        if (0 == bad) {
            topo_sched_send(&s, 1, 1, 1);
        }
        ck_assert_int_eq(topo_sched_finish(&s), TOPO_EINVAL);
        topo_sched_free(&s);
    }
}
END_TEST

/* The generators whose steps repeat store them once: a handful of stored
 * steps for hundreds of logical ones, on a ring and on a 2-D torus. */
START_TEST(test_repeating_generators_compact)
{
    static const struct {
        topo_prim_t prim;
        const char *name;
    } algos[] = {{TOPO_PRIM_ALLREDUCE, "ring"},         {TOPO_PRIM_REDUCE_SCATTER, "ring"},
                 {TOPO_PRIM_ALLGATHER, "ring"},         {TOPO_PRIM_ALLREDUCE, "bucket"},
                 {TOPO_PRIM_REDUCE_SCATTER, "bucket"},  {TOPO_PRIM_ALLGATHER, "bucket"},
                 {TOPO_PRIM_BCAST, "bucket"},           {TOPO_PRIM_REDUCE, "bucket"},
                 {TOPO_PRIM_ALLTOALL, "pairwise"},      {TOPO_PRIM_BCAST, "pipelined_chain"},
                 {TOPO_PRIM_REDUCE, "pipelined_chain"}, {TOPO_PRIM_BCAST, "scatter_allgather"}};
    static const char *topos[] = {"torus:600", "torus:20x30"};
    for (size_t k = 0; k < sizeof(topos) / sizeof(topos[0]); k++) {
        topo_topology_t t = ut_topo(topos[k]);
        for (size_t i = 0; i < sizeof(algos) / sizeof(algos[0]); i++) {
            for (int rank = 0; rank < 600; rank += 299) {
                topo_gen_args_t a = {algos[i].prim, 600, rank, 1, &t};
                topo_sched_t s;
                ck_assert_int_eq(topo_algo_generate(ut_algo(algos[i].prim, algos[i].name), &a, &s),
                                 TOPO_OK);
                size_t ns, nx, nr;
                topo_sched_totals(&s, &ns, &nx, &nr);
                ck_assert_msg(topo_sched_compact(&s) && s.nsteps <= 40 && ns >= 100,
                              "%s %s on %s rank %d: %d steps stored of %zu",
                              topo_prim_name(algos[i].prim), algos[i].name, topos[k], rank,
                              s.nsteps, ns);
                topo_sched_free(&s);
            }
        }
    }
}
END_TEST

/* One step of linear alltoall's shape: a local copy, then a group (a send
 * to r + 1 + j of block r + 1 + j, a receive from r - 1 - j into block
 * p + r - 1 - j) run k more times in the step, stored once
 * (topo_sched_repeat_xfers, form 0) or emitted copy by copy (form 1);
 * returns topo_sched_finish's code.  variant 1: k = p - 1, so the send's
 * last peer is the rank (no schedule, in either form); 2: a third transfer sending two blocks that
 * pass their window's end from the fourth copy on; 3: a send before the group of the block the
 * receive's second copy lands on (that copy is not direct: stored explicitly); 4: a third transfer
 * whose moving range meets the next one, which stays, at the second copy (the explicit form merges
 * them). */
static int group_step(topo_sched_t *s, int p, int k, int variant, int form)
{
    const int r = p / 2, w = 2 * p;
    topo_sched_init(s, p, r, 2 * p + 13);
    s->uniform = 1;
    topo_sched_step(s);
    topo_sched_copy(s, r, p + r, 1);
    if (3 == variant) {
        topo_sched_send(s, (r + 1) % p, p + (r - 3 + 3 * p) % p, 1);
    }
    const int n = 2 == variant || 4 == variant ? 3 : 2;
    const topo_shift_t sh[3] = {
        {1, 1, 0, p, 1, 0, 0}, {-1, -1, p, p, 1, 0, 0}, {0, 1, w, 6, 2, 0, 0}};
    for (int j = 0; j <= (form ? k : 0); j++) {
        topo_sched_send(s, (r + 1 + j) % p, moved((r + 1) % p, j, 1, 0, p), 1);
        topo_sched_recv(s, ((r - 1 - j) % p + p) % p, TOPO_XFER_RECV_COPY,
                        moved(p + (r - 1 + p) % p, j, -1, p, p), 1);
        if (2 == variant) {
            topo_sched_send(s, (r + 1) % p, 0, 0);
            moved_range(s, w + 1, 2, j, 1, w, 6);
            topo_sched_range(s, moved(w + 8, j, 1, w, 6), 1);
        } else if (4 == variant) {
            topo_sched_send(s, (r + 1) % p, moved(w + 9, j, 1, w, 6), 1);
            topo_sched_range(s, w + 12, 1);
        }
    }
    if (!form) {
        topo_sched_repeat_xfers(s, n, k, sh);
    }
    return topo_sched_finish(s);
}

/* The group form equals the explicit emission, through the step's view,
 * the expansion and the totals; it is stored once exactly where every copy
 * is what the explicit form holds. */
START_TEST(test_repeat_xfers_equals_explicit)
{
    for (int p = 2; p <= 12; p++) {
        for (int variant = 0; variant <= 4; variant++) {
            for (int k = 1 == variant ? p - 1 : 0; k <= p - (1 == variant ? 1 : 2); k++) {
                topo_sched_t c, e;
                const int want = 1 == variant ? TOPO_EINVAL : TOPO_OK;
                char what[64];
                snprintf(what, sizeof(what), "p=%d variant %d k=%d", p, variant, k);
                ck_assert_msg(group_step(&c, p, k, variant, 0) == want, "%s: stored", what);
                ck_assert_msg(group_step(&e, p, k, variant, 1) == want, "%s: explicit", what);
                if (1 == variant) {
                    topo_sched_free(&c);
                    topo_sched_free(&e);
                    continue;
                }
                const int once = k > 0 && (2 != variant || k < 4) && (4 != variant || k < 2) &&
                                 (3 != variant || p < 4 || k < 2);
                ck_assert_msg(topo_sched_compact(&c) == once, "%s: compact %d", what,
                              topo_sched_compact(&c));
                ck_assert_msg(!once || c.nxfers <= 5, "%s: %d transfers stored", what, c.nxfers);
                expect_same(&c, &e, what);
                int xxfers = 0;
                expect_expanded(&c, &e, what, NULL, &xxfers);
                ck_assert_int_eq(xxfers, e.nxfers);
                topo_sched_free(&c);
                topo_sched_free(&e);
            }
        }
    }
}
END_TEST

/* A group's copies through the view; what the builder refuses: a local
 * copy in the group, a group larger than the step, a transfer after the
 * group, a group in a template of topo_sched_repeat, a window beyond the
 * blocks. */
START_TEST(test_repeat_xfers_edges)
{
    const topo_shift_t sh[2] = {{1, 1, 0, 8, 1, 0, 0}, {-1, -1, 8, 8, 1, 0, 0}};
    topo_sched_t s;
    ck_assert_int_eq(group_step(&s, 8, 6, 0, 0), TOPO_OK);
    topo_step_view_t v;
    topo_sched_step_at(&s, 0, 0, &v);
    ck_assert_int_eq(v.nxfers, 1 + 2 * 7);
    ck_assert_int_eq(v.nstored, 3);
    const topo_range_t *rg;
    const topo_xfer_t *x = topo_step_xfer(&v, 1 + 2 * 6 + 1, &rg); /* copy 6's receive */
    ck_assert_int_eq(x->kind, TOPO_XFER_RECV_COPY);
    ck_assert_int_eq(x->peer, (4 - 7 + 8) % 8);
    ck_assert_int_eq(x->direct, 1);
    ck_assert_int_eq(rg[x->range0].first, 8 + (4 - 7 + 8) % 8);
    x = topo_step_xfer(&v, 3, &rg); /* copy 1's send */
    ck_assert_int_eq(x->peer, 6);
    ck_assert_int_eq(rg[x->range0].first, 6);
    topo_sched_free(&s);
    for (int bad = 0; bad < 5; bad++) {
        topo_sched_init(&s, 8, 4, 16);
        topo_sched_step(&s);
        if (0 == bad) {
            topo_sched_copy(&s, 0, 1, 1);
        }
        topo_sched_send(&s, 5, 5, 1);
        topo_sched_recv(&s, 3, TOPO_XFER_RECV_COPY, 11, 1);
        const topo_shift_t far[2] = {{1, 1, 9, 8, 1, 0, 0}, sh[1]}, three[3] = {{0}, sh[0], sh[1]};
        topo_sched_repeat_xfers(&s, bad < 2 ? 3 : 2, 3, bad < 2 ? three : 4 == bad ? far : sh);
        if (2 == bad) {
            topo_sched_send(&s, 6, 6, 1);
        } else if (3 == bad) {
            topo_sched_repeat(&s, 1, 2, (const topo_shift_t[3]){{0}}, 3);
        }
        ck_assert_msg(topo_sched_finish(&s) == TOPO_EINVAL, "bad %d", bad);
        topo_sched_free(&s);
    }
    /* k = 0 or an empty group adds nothing */
    topo_sched_init(&s, 8, 4, 16);
    topo_sched_step(&s);
    topo_sched_send(&s, 5, 5, 1);
    topo_sched_repeat_xfers(&s, 1, 0, sh);
    topo_sched_repeat_xfers(&s, 0, 3, sh);
    topo_sched_send(&s, 6, 6, 1);
    ck_assert_int_eq(topo_sched_finish(&s), TOPO_OK);
    ck_assert(!topo_sched_compact(&s));
    ck_assert_int_eq(s.nxfers, 2);
    topo_sched_free(&s);
}
END_TEST

/* Only linear alltoall is wide (one step posts a message to every other
 * rank: the executor does not split its messages at the eager payload),
 * on every rank of every size, and its explicit form keeps the flag. */
START_TEST(test_alltoall_wide)
{
    int n;
    const topo_algo_t *cat = topo_catalog(&n);
    topo_topology_t t = ut_topo("star");
    for (int i = 0; i < n; i++) {
        if (TOPO_PRIM_ALLTOALL != cat[i].prim || (cat[i].flags & TOPO_ALG_GRID)) {
            continue;
        }
        const int want = 0 == strcmp(cat[i].name, "linear");
        for (int size = 2; size <= 9; size++) {
            for (int rank = 0; rank < size; rank++) {
                topo_gen_args_t a = {TOPO_PRIM_ALLTOALL, size, rank, 0, &t};
                topo_sched_t s, x;
                ck_assert_int_eq(topo_algo_generate(&cat[i], &a, &s), TOPO_OK);
                ck_assert_int_eq(topo_sched_expand(&s, &x), TOPO_OK);
                ck_assert_msg(s.wide == want && x.wide == want, "%s on %d ranks, rank %d: wide %d",
                              cat[i].name, size, rank, s.wide);
                topo_sched_free(&x);
                topo_sched_free(&s);
            }
        }
    }
}
END_TEST

/* linear alltoall's p - 1 exchanges are one group, bucket's relay steps
 * one repeated step: a few entries at any size, on every rank. */
START_TEST(test_alltoall_generators_compact)
{
    static const char *topos[] = {"torus:4096", "torus:64x64"};
    for (size_t k = 0; k < sizeof(topos) / sizeof(topos[0]); k++) {
        topo_topology_t t = ut_topo(topos[k]);
        for (int rank = 0; rank < 4096; rank += 1365) {
            topo_gen_args_t a = {TOPO_PRIM_ALLTOALL, 4096, rank, 0, &t};
            topo_sched_t s;
            ck_assert_int_eq(topo_algo_generate(ut_algo(TOPO_PRIM_ALLTOALL, "linear"), &a, &s),
                             TOPO_OK);
            size_t ns, nx, nr;
            topo_sched_totals(&s, &ns, &nx, &nr);
            ck_assert_msg(topo_sched_compact(&s) && topo_sched_bytes(&s) <= 1024 &&
                              nx == 2 * 4096 - 1 && ns == 1,
                          "linear on %s rank %d: %zu bytes, %zu transfers", topos[k], rank,
                          topo_sched_bytes(&s), nx);
            topo_sched_free(&s);
        }
    }
    /* bucket's relay on a ring: one step stored for 2043 of its 2048 */
    topo_topology_t t = ut_topo("torus:4096");
    for (int rank = 0; rank < 4096; rank += 1365) {
        topo_gen_args_t a = {TOPO_PRIM_ALLTOALL, 4096, rank, 0, &t};
        topo_sched_t s;
        ck_assert_int_eq(topo_algo_generate(ut_algo(TOPO_PRIM_ALLTOALL, "bucket"), &a, &s),
                         TOPO_OK);
        ck_assert_msg(topo_sched_compact(&s) && topo_sched_bytes(&s) <= 2048 &&
                          s.lanes[0].nsteps == 2048 && s.nsteps <= 6,
                      "bucket on a ring of 4096, rank %d: %zu bytes, %d steps stored of %d", rank,
                      topo_sched_bytes(&s), s.nsteps, s.lanes[0].nsteps);
        topo_sched_free(&s);
    }
}
END_TEST

/* Strided runs: topo_sched_ranges (and topo_sched_range with runs set)
 * hold exactly the ranges of the explicit emission, one range at a time:
 * runs of 0 and 1 copies, stride == count (one range), overlapping and
 * descending copies, a first copy that merges with the range before, a
 * range that merges with a run's last copy (split off), a run extended
 * range by range; each followed by a single-range receive (direct or
 * not, as explicitly). */
START_TEST(test_strided_equals_explicit)
{
    static const int cases[][4] = {/* first, count, stride, reps */
                                   {0, 2, 5, 0},  {3, 2, 5, 1},  {0, 2, 2, 6},  {1, 1, 3, 7},
                                   {0, 3, 2, 5},  {40, 1, -3, 9}, {5, 2, 4, 2},  {8, 1, 2, 12},
                                   {2, 4, 9, 4},  {60, 3, -7, 8}, {6, 1, 1, 20}, {0, 1, 63, 2}};
    static const int before[][2] = {{-1, 0}, {0, 3}, {30, 2}}; /* a range first, or none */
    static const int after[][2] = {{-1, 0}, {0, 1}, {62, 1}, {13, 2}};
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        for (size_t b = 0; b < sizeof(before) / sizeof(before[0]); b++) {
            for (size_t e = 0; e < sizeof(after) / sizeof(after[0]); e++) {
                const int f = cases[c][0], n = cases[c][1], st = cases[c][2], k = cases[c][3];
                /* before: ends where the run starts (b = 1 merges with c's first) */
                const int b0 = 1 == b ? f - 3 : before[b][0];
                /* after: starts where the last copy ends (e = 1) */
                const int a0 = 1 == e ? f + (k > 0 ? k - 1 : 0) * st + n : after[e][0];
                if ((1 == b && b0 < 0) || (k == 0 && 1 == e) || a0 + after[e][1] > 64) {
                    continue;
                }
                topo_sched_t x, r, g;
                for (int form = 0; form < 3; form++) {
                    topo_sched_t *s = 0 == form ? &x : 1 == form ? &r : &g;
                    topo_sched_init(s, 3, 0, 64);
                    s->runs = 1 == form;
                    topo_sched_send(s, 1, 0, 0);
                    if (b0 >= 0) {
                        topo_sched_range(s, b0, before[b][1]);
                    }
                    if (2 == form) {
                        topo_sched_ranges(s, f, n, st, k);
                    } else {
                        for (int i = 0; i < k; i++) {
                            topo_sched_range(s, f + i * st, n);
                        }
                    }
                    if (a0 >= 0) {
                        topo_sched_range(s, a0, after[e][1]);
                    }
                    topo_sched_recv(s, 2, TOPO_XFER_RECV_COPY, 63, 1);
                    ck_assert_int_eq(topo_sched_finish(s), TOPO_OK);
                }
                char what[96];
                snprintf(what, sizeof(what), "run {%d,%d,%d,%d} before %zu after %zu", f, n, st,
                         k, b, e);
                ck_assert_msg(!topo_sched_compact(&x), "%s: the explicit form", what);
                expect_same(&x, &r, what);
                expect_same(&x, &g, what);
                /* stored as a run where it has three copies or more */
                ck_assert_msg(k < 3 || st == n || (topo_sched_compact(&g) && g.nranges < x.nranges),
                              "%s: %d entries for %d ranges", what, g.nranges, x.nranges);
                topo_sched_t y;
                ck_assert_int_eq(topo_sched_expand(&g, &y), TOPO_OK);
                ck_assert(!topo_sched_compact(&y));
                ck_assert_int_eq(y.nranges, x.nranges);
                ck_assert_int_eq(0, memcmp(y.ranges, x.ranges, sizeof(*x.ranges) * (size_t)x.nranges));
                size_t ns[2], nx[2], nr[2];
                topo_sched_totals(&g, &ns[0], &nx[0], &nr[0]);
                topo_sched_totals(&x, &ns[1], &nx[1], &nr[1]);
                ck_assert_uint_eq(nr[0], nr[1]);
                topo_sched_free(&y);
                topo_sched_free(&x);
                topo_sched_free(&r);
                topo_sched_free(&g);
            }
        }
    }
}
END_TEST

/* A repeat whose template holds a strided run stores its repetitions
 * explicitly, each run moved copy by copy: the same steps as emitting
 * them one range at a time. */
START_TEST(test_strided_repeat)
{
    const topo_shift_t sh = {1, 1, 0, 16, 1, 0, 0};
    topo_sched_t c, x;
    topo_sched_init(&c, 8, 0, 16);
    topo_sched_step(&c);
    topo_sched_send(&c, 1, 0, 0);
    topo_sched_ranges(&c, 0, 1, 4, 3);
    topo_sched_repeat(&c, 1, 3, &sh, 1);
    ck_assert_int_eq(topo_sched_finish(&c), TOPO_OK);
    topo_sched_init(&x, 8, 0, 16);
    for (int j = 0; j < 4; j++) {
        topo_sched_step(&x);
        topo_sched_send(&x, 1 + j, j, 1);
        topo_sched_range(&x, 4 + j, 1);
        topo_sched_range(&x, 8 + j, 1);
    }
    ck_assert_int_eq(topo_sched_finish(&x), TOPO_OK);
    ck_assert_int_eq(c.nsteps, 4);
    expect_same(&x, &c, "strided template");
    topo_sched_free(&c);
    topo_sched_free(&x);
}
END_TEST

/* topo_sched_ranges_mod against its definition, one block at a time
 * (adjacent blocks merged as topo_sched_range does); and what the builder
 * refuses. */
START_TEST(test_strided_mod)
{
    static const int cases[][5] = {/* n, first, count, stride, reps */
                                   {16, 3, 2, 4, 9},   {16, 14, 4, 4, 4}, {17, 5, 1, -1, 17},
                                   {17, -3, 3, 5, 7},  {10, 0, 10, 10, 1}, {12, 25, 1, 26, 5},
                                   {16, 7, 3, -4, 10}, {9, 4, 2, 9, 3},   {16, 0, 1, 2, 8}};
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        const int n = cases[c][0], f = cases[c][1], cnt = cases[c][2], st = cases[c][3],
                  k = cases[c][4];
        topo_sched_t x, g;
        topo_sched_init(&x, 2, 0, n + 4);
        topo_sched_init(&g, 2, 0, n + 4);
        topo_sched_send(&x, 1, 0, 0);
        topo_sched_send(&g, 1, 0, 0);
        for (int i = 0; i < k; i++) {
            for (int b = 0; b < cnt; b++) {
                topo_sched_range(&x, 4 + (((f + i * st + b) % n) + n) % n, 1);
            }
        }
        topo_sched_ranges_mod(&g, 4, n, f, cnt, st, k);
        ck_assert_int_eq(topo_sched_finish(&x), TOPO_OK);
        ck_assert_int_eq(topo_sched_finish(&g), TOPO_OK);
        char what[64];
        snprintf(what, sizeof(what), "mod case %zu", c);
        expect_same(&x, &g, what);
        topo_sched_free(&x);
        topo_sched_free(&g);
    }
    /* a copy beyond the blocks, negative counts, a count beyond the ring */
    for (int bad = 0; bad < 4; bad++) {
        topo_sched_t s;
        topo_sched_init(&s, 2, 0, 16);
        topo_sched_send(&s, 1, 0, 0);
        if (bad < 3) {
            topo_sched_ranges(&s, 0 == bad ? 1 : 0, 1 == bad ? -1 : 2, 0 == bad ? 5 : -5,
                              0 == bad ? 4 : 2);
        } else {
            topo_sched_ranges_mod(&s, 0, 8, 0, 9, 1, 1);
        }
        ck_assert_int_eq(topo_sched_finish(&s), TOPO_EINVAL);
        topo_sched_free(&s);
    }
}
END_TEST

/* The generators that store strided runs stay compact: at N = 4096 a
 * handful of entries for thousands of ranges (so a fallback to one entry
 * per range fails here), and their explicit form is what they mean. */
START_TEST(test_strided_generators_compact)
{
    static const struct {
        topo_prim_t prim;
        const char *name;
        size_t most; /* bytes the schedule may hold */
    } algos[] = {{TOPO_PRIM_REDUCE_SCATTER, "recursive_halving", 4096},
                 {TOPO_PRIM_ALLGATHER, "pat", 4096},
                 {TOPO_PRIM_ALLTOALL, "bruck", 8192}};
    static const char *topos[] = {"torus:4096", "torus:64x64", "torus:4000"};
    for (size_t k = 0; k < sizeof(topos) / sizeof(topos[0]); k++) {
        topo_topology_t t = ut_topo(topos[k]);
        const int p = 0 == strcmp(topos[k], "torus:4000") ? 4000 : 4096;
        for (size_t i = 0; i < sizeof(algos) / sizeof(algos[0]); i++) {
            for (int rank = 1; rank < p; rank += 1366) { /* odd: none sits out */
                topo_gen_args_t a = {algos[i].prim, p, rank, 1, &t};
                topo_sched_t s;
                ck_assert_int_eq(topo_algo_generate(ut_algo(algos[i].prim, algos[i].name), &a, &s),
                                 TOPO_OK);
                size_t ns, nx, nr;
                topo_sched_totals(&s, &ns, &nx, &nr);
                ck_assert_msg(topo_sched_compact(&s) && topo_sched_bytes(&s) <= algos[i].most &&
                                  nr >= (size_t)p,
                              "%s %s on %s rank %d: %zu bytes, %d entries for %zu ranges",
                              topo_prim_name(algos[i].prim), algos[i].name, topos[k], rank,
                              topo_sched_bytes(&s), s.nranges, nr);
                topo_sched_free(&s);
            }
        }
    }
}
END_TEST

/* The blocks base + sum_a val[a][ax[a].first + i_a] of a mapped run, one
 * topo_sched_range each, axis 0 outermost: the explicit emission a stored
 * mapped run stands for. */
static void emit_tuples(topo_sched_t *e, int base, int nax, const int *const *val,
                        const topo_map_axis_t *ax)
{
    int mi[TOPO_MAP_AXES] = {0};
    for (int a = 0; a < nax; a++) {
        if (0 == ax[a].count) {
            return;
        }
    }
    for (;;) {
        int b = base;
        for (int a = 0; a < nax; a++) {
            b += val[a][ax[a].first + mi[a]];
        }
        topo_sched_range(e, b, 1);
        int a = nax - 1;
        while (a >= 0 && ++mi[a] == ax[a].count) {
            mi[a--] = 0;
        }
        if (a < 0) {
            return;
        }
    }
}

/* Mapped runs (topo_sched_map, topo_sched_mapped) expand to the ranges
 * emitted one by one, with the same direct receives and totals; where the
 * stored form could differ from that emission (odd values, whose blocks
 * may be adjacent and merge; ranges before the run; s->runs; blocks the
 * maps' extremes do not keep inside) the ranges are emitted instead. */
START_TEST(test_mapped_equals_explicit)
{
    static const int A[] = {0, 8, 40, 16, 24}, B[] = {2, 0, 6, 4}, C[] = {100, 200},
                     D[] = {1, 2, 3, 9};
    const int *const vals[] = {A, B, C, D};
    const int lens[] = {5, 4, 2, 4};
    /* each case: a step's transfers; per transfer a kind, a peer, a base and
     * up to 3 axes (map index, first, count), or a plain range (nax 0) */
    typedef struct {
        int kind, peer, base, nax, ax[3][3], plain_first, before;
    } xf_t;
    static const xf_t steps[][4] = {
        {{TOPO_XFER_SEND, 1, 1, 2, {{0, 1, 3}, {1, 0, 4}}, 0, 0},
         {TOPO_XFER_RECV_COPY, 1, 0, 0, {{0}}, 250, 0},
         {TOPO_XFER_RECV_REDUCE, 2, 3, 1, {{2, 0, 2}}, 0, 0},
         {-1, 0, 0, 0, {{0}}, 0, 0}},
        {{TOPO_XFER_SEND, 3, 1, 1, {{0, 0, 5}}, 0, 0},
         {TOPO_XFER_RECV_COPY, 1, 0, 0, {{0}}, 9, 0},  /* meets the send: not direct */
         {TOPO_XFER_RECV_COPY, 2, 0, 0, {{0}}, 11, 0}, /* alone: direct */
         {TOPO_XFER_RECV_COPY, 3, 0, 3, {{0, 0, 5}, {1, 1, 2}, {2, 0, 2}}, 0, 0}},
        {{TOPO_XFER_SEND, 1, 7, 2, {{0, 2, 1}, {1, 3, 1}}, 0, 0},  /* one block: a range */
         {TOPO_XFER_RECV_REDUCE, 1, 0, 1, {{3, 0, 4}}, 0, 0},      /* odd values: 1-3 merge */
         {TOPO_XFER_SEND, 2, 60, 2, {{0, 0, 2}, {1, 0, 4}}, 0, 1}, /* a range before */
         /* inside, but not by the maps' extremes (100 + 40 + 200) */
         {TOPO_XFER_RECV_COPY, 2, 100, 2, {{0, 0, 2}, {2, 0, 1}}, 0, 0}},
        {{TOPO_XFER_SEND, 1, 0, 2, {{0, 0, 0}, {1, 0, 4}}, 0, 0}, /* empty */
         {TOPO_XFER_RECV_REDUCE, 1, 5, 2, {{1, 0, 4}, {0, 0, 5}}, 0, 0},
         {-1, 0, 0, 0, {{0}}, 0, 0},
         {-1, 0, 0, 0, {{0}}, 0, 0}},
    };
    const int nsteps = (int)(sizeof(steps) / sizeof(steps[0]));
    for (int runs = 0; runs < 2; runs++) {
        topo_sched_t c, e;
        topo_sched_init(&c, 4, 0, 256);
        topo_sched_init(&e, 4, 0, 256);
        c.runs = e.runs = (uint8_t)runs;
        int32_t id[4];
        for (int m = 0; m < 4; m++) {
            id[m] = topo_sched_map(&c, vals[m], lens[m]);
            ck_assert_int_ge(id[m], 0);
        }
        for (int st = 0; st < nsteps; st++) {
            topo_sched_step(&c);
            topo_sched_step(&e);
            for (int i = 0; i < 4 && steps[st][i].kind >= 0; i++) {
                const xf_t *x = &steps[st][i];
                topo_map_axis_t ax[3];
                const int *v[3];
                for (int a = 0; a < x->nax; a++) {
                    ax[a] = (topo_map_axis_t){id[x->ax[a][0]], x->ax[a][1], x->ax[a][2]};
                    v[a] = vals[x->ax[a][0]];
                }
                for (int k = 0; k < 2; k++) {
                    topo_sched_t *t = k ? &e : &c;
                    if (x->kind == TOPO_XFER_SEND) {
                        topo_sched_send(t, x->peer, 0, 0);
                    } else {
                        topo_sched_recv(t, x->peer, (topo_xfer_kind_t)x->kind, 0, 0);
                    }
                    if (x->before) {
                        topo_sched_range(t, 250, 2);
                    }
                    if (0 == x->nax) {
                        topo_sched_range(t, x->plain_first, 1);
                    } else if (k) {
                        emit_tuples(t, x->base, x->nax, v, ax);
                    } else {
                        topo_sched_mapped(t, x->base, x->nax, ax);
                    }
                }
            }
        }
        ck_assert_int_eq(topo_sched_finish(&c), TOPO_OK);
        ck_assert_int_eq(topo_sched_finish(&e), TOPO_OK);
        ck_assert(runs || !topo_sched_compact(&e));
        char what[64];
        snprintf(what, sizeof(what), "mapped runs, runs %d", runs);
        expect_expanded(&c, &e, what, NULL, NULL);
        /* stored: the mapped ones, and only where the emission would not
         * join strided runs */
        const topo_xfer_t *x0 = &c.xfers[c.steps[0].xfer0];
        ck_assert(runs || topo_sched_compact(&c));
        ck_assert_int_eq(x0->nranges, runs ? e.xfers[0].nranges : 3);
        ck_assert_int_eq(x0->nblk, 12);
        /* whole runs read as ranges */
        topo_range_iter_t it, ie;
        topo_run_t run;
        topo_range_t r;
        topo_range_iter(&it, c.ranges, x0, 0);
        topo_range_iter(&ie, e.ranges, &e.xfers[0], 0);
        int n = 0;
        while (topo_run_next(&it, &run)) {
            for (int j = 0; j < run.reps; j++, n++) {
                ck_assert(topo_range_next(&ie, &r));
                ck_assert_int_eq(run.first + j * run.stride, r.first);
                ck_assert_int_eq(run.count, r.count);
            }
        }
        ck_assert(!topo_range_next(&ie, &r));
        /* the direct receives: step 1's [9] meets the send, [11] does not */
        const topo_xfer_t *y = &c.xfers[c.steps[1].xfer0];
        ck_assert(!y[1].direct && y[2].direct);
        topo_sched_free(&c);
        topo_sched_free(&e);
    }
}
END_TEST

/* A mapped run ends its transfer, does not repeat, reads its maps inside
 * them; a map holds values >= 0. */
START_TEST(test_mapped_edges)
{
    static const int A[] = {0, 2, 4, 6}, bad[] = {0, -2};
    for (int c = 0; c < 8; c++) {
        topo_sched_t s;
        topo_sched_init(&s, 4, 0, 64);
        const int32_t id = topo_sched_map(&s, A, 4);
        ck_assert_int_ge(id, 0);
        topo_map_axis_t ax = {id, 0, 4};
        topo_sched_step(&s);
        switch (c) {
        case 0: /* a range after it */
            topo_sched_send(&s, 1, 0, 0);
            topo_sched_mapped(&s, 1, 1, &ax);
            topo_sched_range(&s, 40, 1);
            break;
        case 1: /* the template of a repeat */
            topo_sched_send(&s, 1, 0, 0);
            topo_sched_mapped(&s, 1, 1, &ax);
            topo_sched_repeat(&s, 1, 3, &(topo_shift_t){1, 0, 0, 0, 0, 0, 0}, 1);
            break;
        case 2: /* the group of a repeat within the step */
            topo_sched_send(&s, 1, 0, 0);
            topo_sched_mapped(&s, 1, 1, &ax);
            topo_sched_repeat_xfers(&s, 1, 1, &(topo_shift_t){1, 0, 0, 0, 0, 0, 0});
            break;
        case 3: /* past the map's end */
            topo_sched_send(&s, 1, 0, 0);
            topo_sched_mapped(&s, 1, 1, &(topo_map_axis_t){id, 2, 3});
            break;
        case 4: /* no map there */
            topo_sched_send(&s, 1, 0, 0);
            topo_sched_mapped(&s, 1, 1, &(topo_map_axis_t){id + 7, 0, 1});
            break;
        case 5: /* no axis, or a copy's */
            topo_sched_send(&s, 1, 0, 0);
            topo_sched_mapped(&s, 1, 0, &ax);
            break;
        case 6:
            topo_sched_copy(&s, 0, 8, 1);
            topo_sched_mapped(&s, 1, 1, &ax);
            break;
        default: /* a negative value */
            ck_assert_int_eq(topo_sched_map(&s, bad, 2), -1);
            break;
        }
        ck_assert_msg(topo_sched_finish(&s) == TOPO_EINVAL, "case %d", c);
        topo_sched_free(&s);
    }
}
END_TEST

/* A random program of ranges, strided runs and groups (nested), for
 * test_group_equals_explicit: node i is a range {a, b}, a strided run
 * {a, b, stride, reps}, or a group of the nodes [a, a + b) repeated
 * (stride, reps). */
typedef struct {
    int kind; /* 0 range, 1 strided run, 2 group */
    int a, b, stride, reps;
    int next; /* the node after this one and its body */
} gnode_t;

typedef struct {
    gnode_t n[64];
    int len;
    unsigned seed;
} gprog_t;

static int grand(gprog_t *g, int n)
{
    g->seed = g->seed * 1103515245u + 12345u;
    return (int)((g->seed >> 8) % (unsigned)n);
}

/* Nodes for a body starting near *at: ranges that meet the one before
 * or not, strided runs, groups of 0, 1 or more copies whose copies meet,
 * overlap, run backwards or stand apart.  Returns the first node; *nn the
 * count, *at moved past them (the span of one copy). */
static int gen_body(gprog_t *g, int depth, int *at, int *nn)
{
    const int n = 1 + grand(g, 4), first = g->len;
    *nn = 0;
    for (int i = 0; i < n && g->len < 60; i++) {
        const int gap = grand(g, 3); /* 0: meets the one before */
        const int kind = depth < 3 ? grand(g, 3) : grand(g, 2);
        const int k = g->len++;
        (*nn)++;
        gnode_t *x = &g->n[k];
        x->kind = kind;
        x->a = *at + gap;
        if (0 == kind) {
            x->b = 1 + grand(g, 3);
            *at = x->a + x->b;
        } else if (1 == kind) {
            x->b = 1 + grand(g, 2);
            x->reps = grand(g, 4);
            x->stride = x->b + grand(g, 3);
            *at = x->a + x->b + (x->reps > 0 ? x->reps - 1 : 0) * x->stride;
        } else {
            const int start = x->a;
            int sub = start, m;
            /* the body's nodes follow this one in g->n */
            const int body = gen_body(g, depth + 1, &sub, &m);
            x = &g->n[k];
            x->a = body;
            x->b = m;
            const int span = sub - start, pick = grand(g, 6);
            x->stride = 0 == pick ? span : 1 == pick ? span + 2 : 2 == pick ? span / 2 + 1
                        : 3 == pick ? -(span + 3) : span + 1;
            x->reps = grand(g, 5);
            *at = sub + (x->reps > 1 ? (x->reps - 1) * (x->stride > 0 ? x->stride : 0) : 0);
        }
        g->n[k].next = g->len;
    }
    return first;
}

/* Emit nodes [i, i + n) of g, `off` blocks later: through the builder's
 * compact calls, or range by range (explicit). */
static void emit_prog(topo_sched_t *s, const gprog_t *g, int i, int n, int off, int explicit)
{
    for (int k = i, left = n; left > 0; left--) {
        const gnode_t *x = &g->n[k];
        if (0 == x->kind) {
            topo_sched_range(s, x->a + off, x->b);
        } else if (1 == x->kind) {
            if (explicit) {
                for (int r = 0; r < x->reps; r++) {
                    topo_sched_range(s, x->a + off + r * x->stride, x->b);
                }
            } else {
                topo_sched_ranges(s, x->a + off, x->b, x->stride, x->reps);
            }
        } else {
            if (explicit) {
                for (int r = 0; r < x->reps; r++) {
                    emit_prog(s, g, x->a, x->b, off + r * x->stride, 1);
                }
            } else {
                const int32_t m = topo_sched_group_begin(s);
                emit_prog(s, g, x->a, x->b, off, 0);
                topo_sched_group_end(s, m, x->stride, x->reps);
            }
        }
        k = x->next;
    }
}

/* Group runs (topo_sched_group_begin/end) hold exactly the ranges of
 * their explicit emission, copy by copy: random programs of nested
 * groups of 0, 1 and more copies, copies that meet (merged), overlap or
 * run backwards, a first range that meets the range before, a range after
 * that meets the last copy; each followed by a single-range receive.
 * The expansion, the totals and the iterator's whole runs agree. */
START_TEST(test_group_equals_explicit)
{
    int stored = 0;
    for (unsigned seed = 1; seed <= 3000; seed++) {
        gprog_t g = {.len = 0, .seed = seed};
        int at = 1000 + grand(&g, 50), nn;
        const int body = gen_body(&g, 0, &at, &nn);
        const int tail = grand(&g, 3); /* 0: a range after that meets */
        topo_sched_t x, c;
        for (int form = 0; form < 2; form++) {
            topo_sched_t *s = form ? &c : &x;
            topo_sched_init(s, 3, 0, 4096);
            s->runs = (uint8_t)(form && (seed & 1));
            topo_sched_send(s, 1, 0, 0);
            topo_sched_range(s, 40, 3);
            emit_prog(s, &g, body, nn, 0, !form);
            topo_range_t last = {0, 0};
            if (!s->err && s->nranges > 0) {
                topo_range_iter_t it;
                topo_range_t r;
                for (topo_range_iter(&it, s->ranges, &s->xfers[0], 0); topo_range_next(&it, &r);) {
                    last = r;
                }
            }
            if (0 == tail) {
                topo_sched_range(s, last.first + last.count, 2);
            } else if (1 == tail) {
                topo_sched_range(s, 4000, 1);
            }
            topo_sched_recv(s, 2, TOPO_XFER_RECV_COPY, 4095, 1);
        }
        const int ex = topo_sched_finish(&x), cc = topo_sched_finish(&c);
        char what[64];
        snprintf(what, sizeof(what), "group program %u", seed);
        ck_assert_msg((TOPO_OK == ex) == (TOPO_OK == cc), "%s: %d, explicitly %d", what, cc, ex);
        if (TOPO_OK == ex) {
            ck_assert_msg(!topo_sched_compact(&x), "%s: the explicit form", what);
            expect_expanded(&c, &x, what, NULL, NULL);
            /* whole runs: their copies are the ranges */
            topo_range_iter_t it, ir;
            topo_run_t run;
            topo_range_t r;
            topo_range_iter(&it, c.ranges, &c.xfers[0], 0);
            topo_range_iter(&ir, c.ranges, &c.xfers[0], 0);
            while (topo_run_next(&it, &run)) {
                for (int k = 0; k < run.reps; k++) {
                    ck_assert(topo_range_next(&ir, &r));
                    ck_assert_int_eq(r.first, run.first + k * run.stride);
                    ck_assert_int_eq(r.count, run.count);
                }
            }
            ck_assert(!topo_range_next(&ir, &r));
            ck_assert_int_eq(c.xfers[0].nblk, x.xfers[0].nblk);
            stored += c.nranges < x.nranges;
        }
        topo_sched_free(&x);
        topo_sched_free(&c);
    }
    ck_assert_msg(stored > 500, "only %d programs stored in fewer entries", stored);
}
END_TEST

/* What the group builder refuses: a group end without its begin, or out
 * of order, an open group at finish or before the next transfer, copies
 * beyond the blocks, groups nested too deep, a group in a local copy;
 * and the edges that are no group: 0 copies (nothing), 1 copy (the body). */
START_TEST(test_group_edges)
{
    for (int bad = 0; bad < 7; bad++) {
        topo_sched_t s;
        topo_sched_init(&s, 2, 0, 64);
        if (6 == bad) {
            topo_sched_copy(&s, 0, 8, 2);
        } else {
            topo_sched_send(&s, 1, 0, 0);
        }
        int32_t m = topo_sched_group_begin(&s), m2;
        switch (bad) {
        case 0:
            topo_sched_group_end(&s, m + 1, 4, 2);
            break;
        case 1:
            m2 = topo_sched_group_begin(&s);
            topo_sched_range(&s, 0, 1);
            topo_sched_group_end(&s, m, 4, 2);
            (void)m2;
            break;
        case 2:
            topo_sched_range(&s, 0, 1);
            break;
        case 3:
            topo_sched_range(&s, 0, 1);
            topo_sched_send(&s, 1, 4, 1);
            break;
        case 4:
            topo_sched_range(&s, 60, 2);
            topo_sched_group_end(&s, m, 4, 2);
            break;
        case 5:
            for (int d = 1; d <= TOPO_RUN_DEPTH; d++) {
                topo_sched_group_begin(&s);
            }
            break;
        default:
            break;
        }
        ck_assert_msg(topo_sched_finish(&s) == TOPO_EINVAL, "case %d", bad);
        topo_sched_free(&s);
    }
    for (int reps = 0; reps < 2; reps++) {
        topo_sched_t s;
        topo_sched_init(&s, 2, 0, 64);
        topo_sched_send(&s, 1, 0, 0);
        const int32_t m = topo_sched_group_begin(&s);
        topo_sched_range(&s, 3, 2);
        topo_sched_range(&s, 9, 1);
        topo_sched_group_end(&s, m, 20, reps);
        ck_assert_int_eq(topo_sched_finish(&s), TOPO_OK);
        ck_assert_int_eq(s.nranges, 2 * reps);
        ck_assert_int_eq(s.xfers[0].nblk, 3 * reps);
        ck_assert(!topo_sched_compact(&s));
        topo_sched_free(&s);
    }
    /* an empty body: nothing */
    topo_sched_t s;
    topo_sched_init(&s, 2, 0, 64);
    topo_sched_send(&s, 1, 0, 0);
    topo_sched_range(&s, 0, 1);
    topo_sched_group_end(&s, topo_sched_group_begin(&s), 4, 5);
    topo_sched_range(&s, 1, 1);
    ck_assert_int_eq(topo_sched_finish(&s), TOPO_OK);
    ck_assert_int_eq(s.nranges, 1);
    ck_assert_int_eq(s.ranges[0].count, 2);
    topo_sched_free(&s);
}
END_TEST


/* The shift engine's bandwidth schedules (trivance_bw and Bruck's
 * allreduce, Trivance's reduce_scatter and allgather) stay compact at
 * N = 65,536: group runs hold the shift sets' periods of several ranges
 * and the torus's products of rows, so a fallback to one entry per range
 * (or per strided run) fails here; their totals count every range. */
START_TEST(test_group_generators_compact)
{
    static const struct {
        topo_prim_t prim;
        const char *name;
    } algos[] = {{TOPO_PRIM_ALLREDUCE, "trivance_bw"},
                 {TOPO_PRIM_ALLREDUCE, "bruck"},
                 {TOPO_PRIM_REDUCE_SCATTER, "trivance"},
                 {TOPO_PRIM_ALLGATHER, "trivance"}};
    static const char *topos[] = {"torus:65536", "torus:256x256"};
    for (size_t k = 0; k < sizeof(topos) / sizeof(topos[0]); k++) {
        topo_topology_t t = ut_topo(topos[k]);
        for (size_t i = 0; i < sizeof(algos) / sizeof(algos[0]); i++) {
            for (int rank = 0; rank < 65536; rank += 21845) {
                topo_gen_args_t a = {algos[i].prim, 65536, rank, 0, &t};
                topo_sched_t s;
                ck_assert_int_eq(topo_algo_generate(ut_algo(algos[i].prim, algos[i].name), &a, &s),
                                 TOPO_OK);
                size_t ns, nx, nr;
                topo_sched_totals(&s, &ns, &nx, &nr);
                ck_assert_msg(topo_sched_bytes(&s) <= ((size_t)128 << 10) && nr >= (size_t)65535,
                              "%s %s on %s rank %d: %zu bytes, %d entries for %zu ranges",
                              topo_prim_name(algos[i].prim), algos[i].name, topos[k], rank,
                              topo_sched_bytes(&s), s.nranges, nr);
                topo_sched_free(&s);
            }
        }
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("schedule");
    TCase *tc = ut_tcase(s, "core", 120);
    tcase_add_test(tc, test_build_and_merge);
    tcase_add_test(tc, test_bad_input_is_sticky);
    tcase_add_test(tc, test_direct_receives);
    tcase_add_test(tc, test_direct_receives_catalog);
    tcase_add_test(tc, test_layout_even_split);
    tcase_add_test(tc, test_layout_units);
    tcase_add_test(tc, test_prim_set_parse);
    tcase_add_test(tc, test_repeat_equals_explicit);
    tcase_add_test(tc, test_repeat_relay_equals_explicit);
    tcase_add_test(tc, test_repeat_storage);
    tcase_add_test(tc, test_repeat_edges);
    tcase_add_test(tc, test_repeating_generators_compact);
    tcase_add_test(tc, test_repeat_xfers_equals_explicit);
    tcase_add_test(tc, test_repeat_xfers_edges);
    tcase_add_test(tc, test_alltoall_generators_compact);
    tcase_add_test(tc, test_alltoall_wide);
    tcase_add_test(tc, test_strided_equals_explicit);
    tcase_add_test(tc, test_strided_mod);
    tcase_add_test(tc, test_strided_repeat);
    tcase_add_test(tc, test_strided_generators_compact);
    tcase_add_test(tc, test_mapped_equals_explicit);
    tcase_add_test(tc, test_mapped_edges);
    tcase_add_test(tc, test_group_equals_explicit);
    tcase_add_test(tc, test_group_edges);
    tcase_add_test(tc, test_group_generators_compact);
    return ut_run_suite(s);
}
