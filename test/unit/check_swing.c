/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests: Swing allreduce (swing_lat, swing_bw; core/algo_swing.c)
 * through the verifier on rings of every size 1..130 and on 2-D/3-D tori,
 * properties of the peers and block sets, per-step link loads against the
 * congestion figures of De Sensi et al. 2024 (sec. 3, Table 2), and derived
 * costs against the closed forms. */
#include "algo.h"
#include "catalog.h"
#include "cost.h"
#include "links.h"
#include "unit_common.h"
#include "verify.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const names[] = {"swing_lat", "swing_bw"};


/* Swing sec. 3.1, corrected: rho(s) = sum_{i<=s} (-2)^i and
 * delta(s) = |rho(s)| = (2^(s+1) - (-1)^(s+1)) / 3, written independently of
 * the generator. */
static int rho(int s)
{
    return (1 - (int)pow(-2.0, s + 1)) / 3;
}

static int delta(int s)
{
    return ((1 << (s + 1)) - (s % 2 ? 1 : -1)) / 3;
}

/* ---- correctness: the verifier ----------------------------------------- */

/* Both algorithms on a ring (star topology: one 1-D ring) of every size
 * 1..130, ten sizes per test. */
START_TEST(test_ring_all_sizes)
{
    topo_topology_t star = ut_topo("star");
    for (int p = _i / 2 * 10 + 1; p <= _i / 2 * 10 + 10; p++) {
        ut_verify_allreduce(names[_i % 2], p, &star, "star");
    }
}
END_TEST

/* Tori and meshes: unequal, odd, size-2 and size-1 dimensions. */
static const char *const shapes[] = {
    "torus:3x5",     "torus:2x8",   "torus:6x6x2", "torus:4x4",     "torus:8x8",   "torus:2x2x2",
    "torus:3x3",     "torus:2x3",   "torus:2x2",   "torus:7x9",     "torus:5x5x5", "torus:3x3x3",
    "torus:6x10",    "torus:16x32", "torus:4x64",  "torus:2x256",   "torus:11x13", "torus:9x9x6",
    "torus:2x3x5x2", "torus:1x8",   "torus:8x1x3", "torus:4x4x4x2", "torus:8x8x8", "torus:12x12",
    "torus:7x73",    "mesh:4x6",    "mesh:3x5",    "mesh:2x2x2",    "torus:27x27",
};

START_TEST(test_tori)
{
    ut_verify_allreduce_grid(names[_i % 2], shapes[_i / 2]);
}
END_TEST

/* A topology that does not cover the communicator: Swing runs on one ring. */
START_TEST(test_grid_of_other_size)
{
    for (int i = 0; i < 2; i++) {
        ut_verify_allreduce_off_grid(names[i]);
    }
}
END_TEST

/* The verifier does catch a broken Swing schedule: an allgather copy
 * turned into a reduction counts a contribution twice, and a reduce-scatter
 * reduction turned into a copy loses contributions. */
START_TEST(test_mutations_rejected)
{
    topo_topology_t star = ut_topo("star");
    const int p = 10;
    char msg[512];
    for (int mut = 0; mut < 2; mut++) {
        topo_sched_t *sc = ut_gen_allreduce("swing_bw", p, &star);
        ck_assert_int_eq(topo_verify(sc, p, TOPO_PRIM_ALLREDUCE, 0, 0, msg, sizeof(msg)), TOPO_OK);
        int from = mut ? TOPO_XFER_RECV_REDUCE : TOPO_XFER_RECV_COPY;
        int to = mut ? TOPO_XFER_RECV_COPY : TOPO_XFER_RECV_REDUCE;
        ck_assert(ut_retype_first(&sc[3], from, to));
        ck_assert_int_eq(topo_verify(sc, p, TOPO_PRIM_ALLREDUCE, 0, 0, msg, sizeof(msg)),
                         TOPO_EINVAL);
        ut_free_all(sc, p);
    }
}
END_TEST

/* ---- properties ---------------------------------------------------------- */

/* Peers: on a ring of p = 2^k the plain lane (0) of an even rank r talks to
 * r + rho(s) at step s and an odd one to r - rho(s); the mirrored lane (1)
 * the other way; both lanes of both algorithms. */
START_TEST(test_peers_follow_rho)
{
    topo_topology_t star = ut_topo("star");
    for (int ni = 0; ni < 2; ni++) {
        for (int p = 2; p <= 64; p *= 2) {
            topo_sched_t *sc = ut_gen_allreduce(names[ni], p, &star);
            int L = ut_clog2(p);
            for (int r = 0; r < p; r++) {
                ck_assert_int_eq(sc[r].nlanes, 2);
                for (int l = 0; l < 2; l++) {
                    for (int s = 0; s < L; s++) {
                        int sign = (r % 2 ? -1 : 1) * (l ? -1 : 1);
                        int want = ((r + sign * rho(s)) % p + p) % p;
                        const topo_step_t *st = topo_sched_explicit_step(&sc[r], l, s);
                        ck_assert_int_ge(st->nxfers, 1);
                        for (int i = 0; i < st->nxfers; i++) {
                            ck_assert_int_eq(sc[r].xfers[st->xfer0 + i].peer, want);
                        }
                    }
                }
            }
            ut_free_all(sc, p);
        }
    }
}
END_TEST

/* For even p every step of every lane is a perfect matching (pi is an
 * involution): each rank sends to and receives from exactly one peer, whose
 * peer it is.  For any p, a rank never sends twice to one peer in a step. */
static void check_matching(const char *name, int p)
{
    topo_topology_t star = ut_topo("star");
    topo_sched_t *sc = ut_gen_allreduce(name, p, &star);
    for (int r = 0; r < p; r++) {
        for (int l = 0; l < sc[r].nlanes; l++) {
            for (int s = 0; s < sc[r].lanes[l].nsteps; s++) {
                const topo_step_t *st = topo_sched_explicit_step(&sc[r], l, s);
                int peer = -1, sends = 0, recvs = 0;
                for (int i = 0; i < st->nxfers; i++) {
                    const topo_xfer_t *x = &sc[r].xfers[st->xfer0 + i];
                    sends += x->kind == TOPO_XFER_SEND;
                    recvs += x->kind != TOPO_XFER_SEND;
                    for (int j = 0; j < i; j++) {
                        const topo_xfer_t *y = &sc[r].xfers[st->xfer0 + j];
                        ck_assert(!(y->peer == x->peer && y->kind == x->kind));
                    }
                    if (p % 2 == 0 && (0 == (p & (p - 1)) || !strcmp(name, "swing_bw"))) {
                        ck_assert(peer < 0 || peer == x->peer);
                        peer = x->peer;
                    }
                }
                if (peer >= 0) {
                    ck_assert_int_eq(sends, 1);
                    ck_assert_int_eq(recvs, 1);
                    const topo_step_t *ps = topo_sched_explicit_step(&sc[peer], l, s);
                    ck_assert_int_eq(sc[peer].xfers[ps->xfer0].peer, r);
                }
            }
        }
    }
    ut_free_all(sc, p);
}

START_TEST(test_matching)
{
    for (int p = 2; p <= 64; p++) {
        check_matching("swing_lat", p);
        check_matching("swing_bw", p);
    }
}
END_TEST

/* Step counts.  swing_bw: 2 ceil(log2 p) for even p, 2 ceil(log2 (p-1)) for
 * odd p (the extra rank talks to several ranks per step); swing_lat:
 * log2 p for powers of two, else the fold adds a step in and out.  On
 * tori the steps add over the dimensions. */
START_TEST(test_step_counts)
{
    topo_topology_t star = ut_topo("star");
    for (int p = 1; p <= 130; p++) {
        topo_sched_t *sc = ut_gen_allreduce("swing_bw", p, &star);
        int want = p == 1 ? 0 : 2 * ut_clog2(p % 2 ? p - 1 : p);
        ck_assert_msg(topo_sched_depth(&sc[p - 1]) == want, "swing_bw p=%d: %d steps, want %d", p,
                      topo_sched_depth(&sc[p - 1]), want);
        ut_free_all(sc, p);
        sc = ut_gen_allreduce("swing_lat", p, &star);
        int p2 = 1 << (ut_clog2(p + 1) - 1);
        want = ut_clog2(p2) + (p2 == p ? 0 : 2);
        ck_assert_msg(topo_sched_depth(&sc[0]) == want, "swing_lat p=%d: %d steps, want %d", p,
                      topo_sched_depth(&sc[0]), want);
        ut_free_all(sc, p);
    }
    static const struct {
        const char *shape;
        int bw, lat, lanes;
    } c[] = {
        {"torus:4x4", 8, 4, 4}, {"torus:2x8", 8, 4, 4},    {"torus:64x64", 24, 12, 4},
        {"torus:3x5", 6, 7, 4}, {"torus:8x8x8", 18, 9, 6}, {"torus:6x6x2", 14, 9, 6},
        {"torus:1x8", 6, 3, 2}, {"torus:2x2x2", 6, 3, 6},  {"torus:3x3", 4, 6, 4},
    };
    for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
        topo_topology_t t = ut_topo(c[i].shape);
        topo_gen_args_t a = {TOPO_PRIM_ALLREDUCE, topo_topology_size(&t), 0, 0, &t};
        topo_sched_t s;
        ck_assert_int_eq(topo_algo_generate(ut_allreduce("swing_bw"), &a, &s), TOPO_OK);
        ck_assert_msg(topo_sched_depth(&s) == c[i].bw, "swing_bw %s: %d", c[i].shape,
                      topo_sched_depth(&s));
        ck_assert_int_eq(s.nlanes, c[i].lanes);
        topo_sched_free(&s);
        ck_assert_int_eq(topo_algo_generate(ut_allreduce("swing_lat"), &a, &s), TOPO_OK);
        ck_assert_msg(topo_sched_depth(&s) == c[i].lat, "swing_lat %s: %d", c[i].shape,
                      topo_sched_depth(&s));
        ck_assert_int_eq(s.nlanes, c[i].lanes);
        topo_sched_free(&s);
    }
}
END_TEST

/* swing_bw message sizes: with 2D lanes of p blocks each (n/2D per lane),
 * reduce-scatter step s moves (n/2D)/2^(s+1) per lane (p / 2^(s+1) blocks)
 * for powers of two, the allgather the same in reverse; on a 1-D power of
 * two every transfer is a single contiguous range (the laminar order). */
START_TEST(test_message_sizes)
{
    static const char *const shapes_p2[] = {"star", "torus:8x8", "torus:4x4x4", "torus:2x16"};
    for (size_t i = 0; i < sizeof(shapes_p2) / sizeof(shapes_p2[0]); i++) {
        topo_topology_t t = ut_topo(shapes_p2[i]);
        int p = topo_topology_size(&t) ? topo_topology_size(&t) : 64;
        topo_sched_t *sc = ut_gen_allreduce("swing_bw", p, &t);
        int L = ut_clog2(p);
        for (int r = 0; r < p; r++) {
            ck_assert_int_eq(sc[r].nblocks, sc[r].nlanes * p);
            for (int l = 0; l < sc[r].nlanes; l++) {
                ck_assert_int_eq(sc[r].lanes[l].nsteps, 2 * L);
                for (int s = 0; s < 2 * L; s++) {
                    int k = s < L ? s : 2 * L - 1 - s;
                    const topo_step_t *st = topo_sched_explicit_step(&sc[r], l, s);
                    ck_assert_int_eq(st->nxfers, 2);
                    for (int j = 0; j < 2; j++) {
                        const topo_xfer_t *x = &sc[r].xfers[st->xfer0 + j];
                        ck_assert_int_eq(x->nblk, p >> (k + 1));
                        if (0 == i) {
                            ck_assert_int_eq(x->nranges, 1);
                        }
                    }
                }
            }
        }
        ut_free_all(sc, p);
    }
}
END_TEST

/* Bandwidth optimality at every size: in the reduce-scatter every rank
 * sends exactly p-1 of each lane's p blocks (keep-latest sends each block
 * once; the extra rank of odd p sends p-1 single blocks; the others send
 * p-2 blocks on the even ring plus one to the extra rank). */
START_TEST(test_blocks_sent)
{
    topo_topology_t star = ut_topo("star");
    for (int p = 2; p <= 130; p++) {
        topo_sched_t *sc = ut_gen_allreduce("swing_bw", p, &star);
        for (int r = 0; r < p; r++) {
            for (int l = 0; l < sc[r].nlanes; l++) {
                int L = sc[r].lanes[l].nsteps / 2, sent = 0, got = 0;
                for (int s = 0; s < L; s++) {
                    const topo_step_t *st = topo_sched_explicit_step(&sc[r], l, s);
                    for (int i = 0; i < st->nxfers; i++) {
                        const topo_xfer_t *x = &sc[r].xfers[st->xfer0 + i];
                        if (x->kind == TOPO_XFER_SEND) {
                            sent += x->nblk;
                        } else {
                            got += x->nblk;
                        }
                    }
                }
                ck_assert_msg(sent == p - 1, "p=%d rank %d lane %d sends %d blocks", p, r, l, sent);
                ck_assert_int_ge(got, p - 1);
            }
        }
        ut_free_all(sc, p);
    }
}
END_TEST

/* Digest 1.7 item 6: on square tori the 2D lanes of a step use 2D distinct
 * ports (dimension, direction) on every rank. */
START_TEST(test_ports_distinct)
{
    static const char *const sq[] = {"torus:4x4", "torus:8x8", "torus:4x4x4", "torus:16x16"};
    for (size_t i = 0; i < sizeof(sq) / sizeof(sq[0]); i++) {
        topo_topology_t t = ut_topo(sq[i]);
        int p = topo_topology_size(&t);
        for (int ni = 0; ni < 2; ni++) {
            topo_sched_t *sc = ut_gen_allreduce(names[ni], p, &t);
            for (int r = 0; r < p; r++) {
                int c[TOPO_MAX_DIMS], d[TOPO_MAX_DIMS];
                topo_topology_coords(&t, r, c);
                for (int s = 0; s < topo_sched_depth(&sc[r]); s++) {
                    int used[2 * TOPO_MAX_DIMS] = {0};
                    for (int l = 0; l < sc[r].nlanes; l++) {
                        const topo_step_t *st = topo_sched_explicit_step(&sc[r], l, s);
                        for (int j = 0; j < st->nxfers; j++) {
                            const topo_xfer_t *x = &sc[r].xfers[st->xfer0 + j];
                            if (x->kind != TOPO_XFER_SEND) {
                                continue;
                            }
                            topo_topology_coords(&t, x->peer, d);
                            int dim = -1, dir = 0;
                            for (int k = 0; k < t.ndims; k++) {
                                if (c[k] != d[k]) {
                                    ck_assert_int_eq(dim, -1);
                                    int n = t.dims[k], fwd = ((d[k] - c[k]) % n + n) % n;
                                    ck_assert_int_ne(2 * fwd, n); /* no ties here */
                                    dim = k;
                                    dir = 2 * fwd < n ? 0 : 1;
                                }
                            }
                            ck_assert_int_ge(dim, 0);
                            ck_assert_msg(!used[2 * dim + dir],
                                          "%s %s rank %d step %d: port reused", names[ni], sq[i], r,
                                          s);
                            used[2 * dim + dir] = 1;
                        }
                    }
                }
            }
            ut_free_all(sc, p);
        }
    }
}
END_TEST

/* ---- congestion ---------------------------------------------------------- */

/* Per-step loads of `name` on a torus; returns D * sum of max loads. */
static double congestion(const char *name, const char *shape, topo_step_load_t **out, int *depth)
{
    topo_topology_t t = ut_topo(shape);
    int p = topo_topology_size(&t);
    *out = ut_link_loads(name, &t, p, depth);
    double sum = 0.0;
    for (int s = 0; s < *depth; s++) {
        sum += (*out)[s].max_load;
    }
    return sum * t.ndims;
}

/* 64x64: reduce-scatter step s puts delta(floor(s/2)) messages of
 * (n/4)/2^(s+1) on the busiest link (plain + mirrored collectives in the
 * same dimension, opposite directions), the allgather mirrors it; the
 * congestion deficiency Xi = D * sum of per-step max loads (in units of
 * n) = sum_s delta(floor(s/D)) / 2^(s+1) = 1.1843, the paper's "1.19"
 * (Table 2, with a factor 2 for reduce-scatter + allgather). */
START_TEST(test_congestion_64x64)
{
    topo_step_load_t *o;
    int depth;
    double xi = congestion("swing_bw", "torus:64x64", &o, &depth);
    ck_assert_int_eq(depth, 24);
    double want = 0.0;
    for (int s = 0; s < 12; s++) {
        int sig = s / 2;
        double msg = 0.25 / (double)(2 << s);
        want += delta(sig) / (double)(2 << s);
        for (int k = 0; k < 2; k++) {
            const topo_step_load_t *st = &o[k ? 23 - s : s];
            ck_assert_msg(fabs(st->max_msg - msg) < 1e-12, "step %d: message %g", s, st->max_msg);
            ck_assert_msg(fabs(st->max_load / st->max_msg - delta(sig)) < 1e-9,
                          "step %d: congestion %g, want %d", k ? 23 - s : s,
                          st->max_load / st->max_msg, delta(sig));
            ck_assert_int_eq(st->max_hops, delta(sig));
        }
    }
    ck_assert_msg(fabs(xi - want) < 1e-9, "Xi %g != %g", xi, want);
    ck_assert_msg(xi > 1.18 && xi < 1.19, "Xi %g, not 1.184", xi);
    free(o);
    /* swing_lat: the whole part n/4 every step, delta(floor(s/2)) per link
     * (c_s ~ delta); sum of loads = (n/4) * sum_s delta. */
    double lat = congestion("swing_lat", "torus:64x64", &o, &depth) / 2;
    ck_assert_int_eq(depth, 12);
    double lwant = 0.0;
    for (int s = 0; s < 12; s++) {
        ck_assert(fabs(o[s].max_load / o[s].max_msg - delta(s / 2)) < 1e-9);
        lwant += 0.25 * delta(s / 2);
    }
    ck_assert_msg(fabs(lat - lwant) < 1e-9, "swing_lat load %g != %g", lat, lwant);
    free(o);
}
END_TEST

/* 3-D 8x8x8: the same sum over s = 0..8 with delta(floor(s/3)). */
START_TEST(test_congestion_8x8x8)
{
    topo_step_load_t *o;
    int depth;
    double xi = congestion("swing_bw", "torus:8x8x8", &o, &depth);
    double want = 0.0;
    for (int s = 0; s < 9; s++) {
        want += delta(s / 3) / (double)(2 << s);
    }
    ck_assert_int_eq(depth, 18);
    ck_assert_msg(fabs(xi - want) < 1e-9, "Xi %g != %g", xi, want);
    ck_assert(xi < 1.037); /* below the p -> infinity value of Table 2 */
    free(o);
}
END_TEST

/* Rectangular 2-D tori (sec. 4.2): the first 2 log2 d_min steps are those of
 * the d_min x d_min torus; then all 2D lanes continue in the long dimension
 * (the two plain lanes on the same links, as do the two mirrored ones).
 * Eq. (3) as printed, Xi_Q = 1/(2 d_min^D) sum_{s=log2 d_min}^{log2 d_max - 1}
 * delta(s) / 2^(s+1-log2 d_min) (0.021, 0.083, 0.25 for 64x16,
 * 128x8, 256x4), is the reduce-scatter's busiest-link load in units of n;
 * on the scale of Table 2 (x2 for the allgather, / (n/D)) it is 4 Xi_Q, and
 * the measured tail matches that exactly. */
START_TEST(test_congestion_rectangular)
{
    static const struct {
        const char *shape;
        int dmax, dmin;
    } c[] = {{"torus:64x16", 64, 16}, {"torus:128x8", 128, 8}, {"torus:256x4", 256, 4}};
    for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
        topo_step_load_t *o;
        int depth, lmin = ut_clog2(c[i].dmin), lmax = ut_clog2(c[i].dmax);
        double xi = congestion("swing_bw", c[i].shape, &o, &depth);
        free(o);
        double square = 0.0, q = 0.0;
        for (int s = 0; s < 2 * lmin; s++) {
            square += delta(s / 2) / (double)(2 << s);
        }
        for (int s = lmin; s < lmax; s++) {
            q += delta(s) / (double)(2 << (s - lmin));
        }
        q /= 2.0 * c[i].dmin * c[i].dmin;
        ck_assert_msg(fabs(xi - (square + 4 * q)) < 1e-9, "%s: Xi %g, square %g + 4 x %g",
                      c[i].shape, xi, square, q);
    }
}
END_TEST

/* ---- derived costs (cost.h) vs closed forms ----------------------------- */

/* the contention-free closed forms (ut_ports_only) */
static void affine(const char *name, int p, const topo_topology_t *t, double *lat, double *bw)
{
    ut_affine(TOPO_PRIM_ALLREDUCE, name, p, 0, t, &ut_ports_only, lat, bw);
}

/* Contention-free closed forms.  On a
 * single-port star both lanes share the port: swing_bw 2 log2 p alpha +
 * 2(p-1)/p M/BW (as Rabenseifner), swing_lat log2 p (alpha + M/BW).  On a
 * torus with 2D ports: swing_bw 2 log2 p alpha + (1/D)(p-1)/p M/BW (Psi =
 * 1), swing_lat log2 p alpha + log2 p / (2D) M/BW. */
START_TEST(test_costs)
{
    topo_topology_t star = ut_topo("star");
    double lat, bw;
    for (int k = 1; k <= 7; k++) {
        int p = 1 << k;
        affine("swing_bw", p, &star, &lat, &bw);
        ut_assert_near(lat, 2.0 * k);
        ut_assert_near(bw, 2.0 * (p - 1) / p);
        affine("swing_lat", p, &star, &lat, &bw);
        ut_assert_near(lat, k);
        ut_assert_near(bw, k);
    }
    static const char *const tori[] = {"torus:16", "torus:8x8", "torus:16x16", "torus:4x4x4"};
    for (size_t i = 0; i < sizeof(tori) / sizeof(tori[0]); i++) {
        topo_topology_t t = ut_topo(tori[i]);
        int p = topo_topology_size(&t), L = ut_clog2(p), D = t.ndims;
        affine("swing_bw", p, &t, &lat, &bw);
        ut_assert_near(lat, 2.0 * L);
        ut_assert_near(bw, (p - 1) / (double)p / D);
        affine("swing_lat", p, &t, &lat, &bw);
        ut_assert_near(lat, L);
        ut_assert_near(bw, L / (2.0 * D));
    }
    /* Even p, not a power of two (keep-latest): as many steps as the next
     * power of two and still exactly the optimal 2(p-1)/p.  Odd p (the
     * extra rank): 2 ceil(log2(p-1)) steps; every rank sends p-1 blocks in
     * all, but a contacted rank sends one block of n/p more than the others
     * in each step, so at most 2L/p over the optimum (folding would add 2). */
    for (int p = 3; p <= 130; p++) {
        if (0 == (p & (p - 1))) {
            continue;
        }
        int L = ut_clog2(p % 2 ? p - 1 : p);
        affine("swing_bw", p, &star, &lat, &bw);
        ut_assert_near(lat, 2.0 * L);
        if (p % 2 == 0) {
            ut_assert_near(bw, 2.0 * (p - 1) / p);
        } else {
            ck_assert(bw >= 2.0 * (p - 1) / p - 1e-12);
            ck_assert_msg(bw <= 2.0 * (p - 1 + L) / p + 1e-12, "p=%d: %g", p, bw);
        }
    }
}
END_TEST

/* ---- reduce_scatter, allgather, barrier (the halves and the pattern) ---- */

static const topo_prim_t cprims[] = {TOPO_PRIM_REDUCE_SCATTER, TOPO_PRIM_ALLGATHER,
                                     TOPO_PRIM_BARRIER};

static topo_sched_t *gen_prim(topo_prim_t prim, int p, const topo_topology_t *t)
{
    return ut_gen_all(prim, "swing", p, 0, t);
}

/* Small tori and meshes (the catalog test covers rings 1..130): 2-D, 3-D,
 * 4-D, odd, size-2, size-1 and unequal dimensions. */
static const char *const cshapes[] = {
    "torus:3x5",   "torus:2x8",     "torus:6x6x2", "torus:5x5",   "torus:2x2x2", "torus:7x9",
    "torus:4x4x4", "torus:3x3x3",   "torus:2x3x5x2", "torus:8x1x3", "torus:6x10", "torus:2x2",
    "torus:1x8",   "torus:11x13",   "mesh:4x6",    "mesh:3x5x2",  "torus:2x3",  "torus:9x5x3",
};
#define NCSHAPES ((int)(sizeof(cshapes) / sizeof(cshapes[0])))

START_TEST(test_collectives_tori)
{
    const topo_prim_t prim = cprims[_i % 3];
    const topo_algo_t *al = ut_algo(prim, "swing");
    for (int k = _i / 3; k < NCSHAPES; k += 2) {
        topo_topology_t t = ut_topo(cshapes[k]);
        topo_gen_args_t a = {prim, topo_topology_size(&t), 0, 0, &t};
        char msg[512];
        ck_assert_msg(topo_verify_algo(al, &a, msg, sizeof(msg)) == TOPO_OK, "%s swing %s: %s",
                      topo_prim_name(prim), cshapes[k], msg);
    }
}
END_TEST

/* Steps ceil(log2 e_i) per dimension (e_i = d_i, or d_i - 1 if odd) for
 * all three; 2D lanes and nparts = 2D for the halves, one lane, one block
 * and sync for the barrier. */
START_TEST(test_collectives_shape)
{
    static const char *const sh[] = {"star", "torus:3x5", "torus:6x6x2", "torus:1x8",
                                     "torus:9x5x3", "mesh:4x6"};
    for (size_t i = 0; i < sizeof(sh) / sizeof(sh[0]); i++) {
        topo_topology_t t = ut_topo(sh[i]);
        int nd = topo_topology_size(&t) ? t.ndims : 1;
        for (int p = topo_topology_size(&t) ? topo_topology_size(&t) : 1;
             p <= (topo_topology_size(&t) ? topo_topology_size(&t) : 130);
             p += topo_topology_size(&t) || p < 40 ? 1 : 13) {
            int want = 0, D = 0;
            for (int k = 0; k < nd; k++) {
                int d = nd > 1 || topo_topology_size(&t) ? t.dims[k] : p;
                want += ut_clog2(d > 1 && d % 2 ? d - 1 : d);
                D += d > 1;
            }
            for (int pi = 0; pi < 3; pi++) {
                topo_sched_t *sc = gen_prim(cprims[pi], p, &t);
                int bar = cprims[pi] == TOPO_PRIM_BARRIER;
                for (int r = 0; r < p; r++) {
                    ck_assert_msg(topo_sched_depth(&sc[r]) == want, "%s %s p=%d: %d steps, want %d",
                                  topo_prim_name(cprims[pi]), sh[i], p, topo_sched_depth(&sc[r]),
                                  want);
                    ck_assert_int_eq(sc[r].nlanes, bar ? (D > 0) : 2 * D);
                    ck_assert_int_eq(sc[r].nparts, bar || D == 0 ? 1 : 2 * D);
                    ck_assert_int_eq(sc[r].nblocks, bar ? 1 : p * sc[r].nparts);
                    ck_assert_int_eq(sc[r].sync, bar);
                }
                ut_free_all(sc, p);
            }
        }
    }
}
END_TEST

/* Each rank sends exactly its share: in every lane of the reduce-scatter
 * and of the allgather p-1 blocks, all of them part l of some unit (lane l
 * owns part l of every unit); the allgather receives each of them once;
 * the allgather is the reduce-scatter reversed (step j of one is step
 * n-1-j of the other, sends and receives swapped, same peers and blocks). */
static void check_halves(int p, const topo_topology_t *t, const char *label)
{
    topo_sched_t *rs = gen_prim(TOPO_PRIM_REDUCE_SCATTER, p, t);
    topo_sched_t *ag = gen_prim(TOPO_PRIM_ALLGATHER, p, t);
    for (int r = 0; r < p; r++) {
        const int nl = rs[r].nlanes;
        for (int l = 0; l < nl; l++) {
            const int n = rs[r].lanes[l].nsteps;
            int sent[2] = {0, 0}, got = 0;
            for (int j = 0; j < n; j++) {
                const topo_step_t *a = topo_sched_explicit_step(&rs[r], l, j);
                const topo_step_t *b = topo_sched_explicit_step(&ag[r], l, n - 1 - j);
                ck_assert_int_eq(a->nxfers, b->nxfers);
                for (int i = 0; i < a->nxfers; i++) {
                    const topo_xfer_t *x = &rs[r].xfers[a->xfer0 + i];
                    int match = 0;
                    for (int h = 0; h < b->nxfers && !match; h++) {
                        const topo_xfer_t *y = &ag[r].xfers[b->xfer0 + h];
                        if (y->peer != x->peer || (y->kind == TOPO_XFER_SEND) ==
                                                      (x->kind == TOPO_XFER_SEND) ||
                            y->nranges != x->nranges) {
                            continue;
                        }
                        match = 1;
                        for (int u = 0; u < x->nranges && match; u++) {
                            match = !memcmp(&rs[r].ranges[x->range0 + u],
                                            &ag[r].ranges[y->range0 + u], sizeof(topo_range_t));
                        }
                    }
                    ck_assert_msg(match, "%s p=%d rank %d lane %d step %d: not reversed", label,
                                  p, r, l, j);
                    int other = !(x->kind == TOPO_XFER_SEND || x->kind == TOPO_XFER_RECV_REDUCE);
                    for (int u = 0; u < x->nranges; u++) {
                        const topo_range_t *g = &rs[r].ranges[x->range0 + u];
                        for (int bl = g->first; bl < g->first + g->count; bl++) {
                            other += bl % nl != l;
                        }
                    }
                    ck_assert_int_eq(other, 0);
                    if (x->kind == TOPO_XFER_SEND) {
                        sent[0] += x->nblk;
                    }
                }
                for (int i = 0; i < b->nxfers; i++) {
                    const topo_xfer_t *y = &ag[r].xfers[b->xfer0 + i];
                    if (y->kind == TOPO_XFER_SEND) {
                        sent[1] += y->nblk;
                    } else {
                        ck_assert_int_eq(y->kind, TOPO_XFER_RECV_COPY);
                        got += y->nblk;
                    }
                }
            }
            ck_assert_msg(sent[0] == p - 1 && sent[1] == p - 1 && got == p - 1,
                          "%s p=%d rank %d lane %d: RS sends %d, AG sends %d, receives %d", label,
                          p, r, l, sent[0], sent[1], got);
        }
    }
    ut_free_all(rs, p);
    ut_free_all(ag, p);
}

START_TEST(test_halves_share)
{
    topo_topology_t star = ut_topo("star");
    static const int big[] = {64, 65, 100, 130};
    for (int p = 2; p <= 34 + 4; p++) {
        check_halves(p <= 34 ? p : big[p - 35], &star, "star");
    }
    static const char *const sh[] = {"torus:5x5", "torus:3x5", "torus:6x6x2", "torus:2x3x5x2",
                                     "torus:7x9", "mesh:4x6"};
    for (size_t i = 0; i < sizeof(sh) / sizeof(sh[0]); i++) {
        topo_topology_t t = ut_topo(sh[i]);
        check_halves(topo_topology_size(&t), &t, sh[i]);
    }
}
END_TEST

/* Barrier: zero-byte messages on one block; on an even ring one send and
 * one receive per step, to the plain Swing peer r +- rho(s); on an odd ring
 * the extra rank signals two ranks in the first step and hears from two in
 * the last, and no rank posts more than two sends or two receives. */
START_TEST(test_barrier_peers)
{
    topo_topology_t star = ut_topo("star");
    for (int p = 2; p <= 130; p += p < 70 ? 1 : 7) {
        topo_sched_t *sc = gen_prim(TOPO_PRIM_BARRIER, p, &star);
        const int m = p % 2 ? p - 1 : p, L = ut_clog2(m);
        int extra[2] = {0, 0};
        for (int r = 0; r < p; r++) {
            for (int s = 0; s < L; s++) {
                const topo_step_t *st = topo_sched_explicit_step(&sc[r], 0, s);
                int sends = 0, recvs = 0;
                for (int i = 0; i < st->nxfers; i++) {
                    const topo_xfer_t *x = &sc[r].xfers[st->xfer0 + i];
                    ck_assert_int_eq(x->nblk, 1);
                    sends += x->kind == TOPO_XFER_SEND;
                    recvs += x->kind == TOPO_XFER_RECV_REDUCE;
                    if (r < m && x->peer < m) {
                        int sign = r % 2 ? -1 : 1;
                        ck_assert_int_eq(x->peer, ((r + sign * rho(s)) % m + m) % m);
                    }
                }
                ck_assert_int_eq(sends + recvs, st->nxfers);
                ck_assert(sends <= 2 && recvs <= 2);
                if (r == m) {
                    ck_assert_int_eq(sends, s == 0 ? 2 : 0);
                    ck_assert_int_eq(recvs, s == L - 1 ? 2 : 0);
                } else {
                    extra[0] += sends - 1;
                    extra[1] += recvs - 1;
                }
            }
        }
        ck_assert_int_eq(extra[0], p % 2 ? 2 : 0);
        ck_assert_int_eq(extra[1], p % 2 ? 2 : 0);
        ut_free_all(sc, p);
    }
}
END_TEST

/* The knowledge argument of the barrier, beyond the verifier's sizes: on a
 * ring of every even size up to 2^9 the plain Swing peers spread
 * knowledge to all in ceil(log2 p) steps (union, bitsets), and not in one
 * step fewer. */
START_TEST(test_barrier_spreads)
{
    enum { MAXP = 512, W = MAXP / 64 };
    static uint64_t k[MAXP][W], nk[MAXP][W];
    for (int p = 2; p <= MAXP; p += 2) {
        const int L = ut_clog2(p), words = (p + 63) / 64;
        for (int r = 0; r < p; r++) {
            memset(k[r], 0, sizeof(k[r]));
            k[r][r / 64] |= 1ull << (r % 64);
        }
        int full_before = 1;
        for (int s = 0; s < L; s++) {
            for (int r = 0; r < p; r++) {
                int sign = r % 2 ? -1 : 1;
                int q = (int)(((r + sign * (long)rho(s)) % p + p) % p);
                for (int w = 0; w < words; w++) {
                    nk[r][w] = k[r][w] | k[q][w];
                }
            }
            memcpy(k, nk, sizeof(k[0]) * (size_t)p);
            if (s == L - 2 || L == 1) {
                full_before = 1;
                for (int r = 0; r < p && L > 1; r++) {
                    int n = 0;
                    for (int w = 0; w < words; w++) {
                        n += __builtin_popcountll(k[r][w]);
                    }
                    full_before &= n == p;
                }
                ck_assert(L == 1 || !full_before);
            }
        }
        for (int r = 0; r < p; r++) {
            int n = 0;
            for (int w = 0; w < words; w++) {
                n += __builtin_popcountll(k[r][w]);
            }
            ck_assert_msg(n == p, "p=%d rank %d knows %d", p, r, n);
        }
    }
}
END_TEST

/* ---- storage: mapped runs ------------------------------------------------ */

/* x and e, both explicit, hold the same lanes, steps, transfers (peer,
 * kind, direct, blocks) and ranges. */
static void expect_same_explicit(const topo_sched_t *x, const topo_sched_t *e, const char *what)
{
    ck_assert_msg(!topo_sched_compact(x) && !topo_sched_compact(e), "%s: not explicit", what);
    ck_assert_msg(x->nlanes == e->nlanes && x->nblocks == e->nblocks && x->nparts == e->nparts,
                  "%s: shape", what);
    for (int l = 0; l < x->nlanes; l++) {
        ck_assert_msg(x->lanes[l].nsteps == e->lanes[l].nsteps, "%s: lane %d", what, l);
        for (int st = 0; st < x->lanes[l].nsteps; st++) {
            const topo_step_t *a = topo_sched_explicit_step(x, l, st),
                              *b = topo_sched_explicit_step(e, l, st);
            ck_assert_msg(a->nxfers == b->nxfers, "%s: lane %d step %d", what, l, st);
            for (int i = 0; i < a->nxfers; i++) {
                const topo_xfer_t *u = &x->xfers[a->xfer0 + i], *v = &e->xfers[b->xfer0 + i];
                ck_assert_msg(u->peer == v->peer && u->kind == v->kind && u->direct == v->direct &&
                                  u->nblk == v->nblk && u->nranges == v->nranges,
                              "%s: lane %d step %d transfer %d", what, l, st, i);
                for (int q = 0; q < u->nranges; q++) {
                    const topo_range_t *r = &x->ranges[u->range0 + q],
                                       *t = &e->ranges[v->range0 + q];
                    ck_assert_msg(r->first == t->first && r->count == t->count,
                                  "%s: lane %d step %d transfer %d range %d: [%d,+%d) vs "
                                  "[%d,+%d)",
                                  what, l, st, i, q, r->first, r->count, t->first, t->count);
                }
            }
        }
    }
}

/* c's expansion is e; with pow2 (every dimension a power of two, some
 * set of two blocks or more) c is compact: a mapped run per transfer of
 * several blocks instead of a range per block. */
static void expect_mapped(const topo_sched_t *c, const topo_sched_t *e, int pow2, const char *what)
{
    topo_sched_t x;
    ck_assert_int_eq(topo_sched_expand(c, &x), TOPO_OK);
    expect_same_explicit(&x, e, what);
    size_t ns, nx, nr;
    topo_sched_totals(c, &ns, &nx, &nr);
    ck_assert_msg(ns == (size_t)e->nsteps && nx == (size_t)e->nxfers && nr == (size_t)e->nranges,
                  "%s: totals", what);
    ck_assert_msg(!pow2 || topo_sched_compact(c), "%s: %d entries for %d ranges", what, c->nranges,
                  e->nranges);
    topo_sched_free(&x);
}

static int is_pow2_grid(const char *shape)
{
    int n = 0;
    for (const char *q = strchr(shape, ':') + 1; *q; q++) {
        if (*q >= '0' && *q <= '9') {
            n = 10 * n + (*q - '0');
            continue;
        }
        if (n & (n - 1)) {
            return 0;
        }
        n = 0;
    }
    return !(n & (n - 1));
}

/* The reduce-scatter and the allgather on every rank of rings and grids:
 * their mapped runs expand to the explicit form, a range per block
 * (topo_gen_swing_units_explicit), on powers of two (where every set is
 * one run of positions) and on the other sizes (where the ranges are
 * stored as before). */
START_TEST(test_mapped_units)
{
    static const char *const grids[] = {"torus:2",   "torus:8",      "torus:16",    "torus:64",
                                        "torus:4x4", "torus:8x8",    "torus:2x8",   "torus:4x4x4",
                                        "torus:1x8", "torus:16x4x2", "torus:12",    "torus:7",
                                        "torus:3x5", "torus:6x8",    "torus:4x2x3", "mesh:4x4"};
    for (size_t k = 0; k < sizeof(grids) / sizeof(grids[0]); k++) {
        topo_topology_t t = ut_topo(grids[k]);
        const int p = topo_topology_size(&t);
        for (int pr = 0; pr < 2; pr++) {
            const topo_prim_t prim = pr ? TOPO_PRIM_ALLGATHER : TOPO_PRIM_REDUCE_SCATTER;
            for (int rank = 0; rank < p; rank++) {
                topo_gen_args_t a = {prim, p, rank, 0, &t};
                topo_sched_t c, e;
                ck_assert_int_eq(topo_algo_generate(ut_algo(prim, "swing"), &a, &c), TOPO_OK);
                ck_assert_int_eq(topo_gen_swing_units_explicit(&e, &a), TOPO_OK);
                char what[96];
                snprintf(what, sizeof(what), "%s swing on %s rank %d", topo_prim_name(prim),
                         grids[k], rank);
                expect_mapped(&c, &e, is_pow2_grid(grids[k]) && p >= 4, what);
                topo_sched_free(&c);
                topo_sched_free(&e);
            }
        }
    }
}
END_TEST

/* At N = 65,536 (a ring, torus:256x256) one rank's reduce-scatter and
 * allgather hold their maps and a few entries a transfer, within 1 MiB (a
 * fallback to a range per block holds 2-4 MiB and fails here) for their
 * 2 (p - 1) ranges a lane, and the reduce-scatter of two ranks expands to
 * the explicit form. */
START_TEST(test_mapped_at_scale)
{
    static const struct {
        const char *topo;
        size_t most; /* bytes the schedule may hold */
    } shapes[] = {{"torus:65536", 600 * 1024}, {"torus:256x256", 16 * 1024}};
    for (size_t k = 0; k < sizeof(shapes) / sizeof(shapes[0]); k++) {
        topo_topology_t t = ut_topo(shapes[k].topo);
        const int p = topo_topology_size(&t);
        for (int pr = 0; pr < 2; pr++) {
            const topo_prim_t prim = pr ? TOPO_PRIM_ALLGATHER : TOPO_PRIM_REDUCE_SCATTER;
            for (int rank = 0; rank < p; rank += 21845) {
                topo_gen_args_t a = {prim, p, rank, 0, &t};
                topo_sched_t c;
                ck_assert_int_eq(topo_algo_generate(ut_algo(prim, "swing"), &a, &c), TOPO_OK);
                size_t ns, nx, nr;
                topo_sched_totals(&c, &ns, &nx, &nr);
                ck_assert_msg(topo_sched_compact(&c) && topo_sched_bytes(&c) <= shapes[k].most &&
                                  nr == 2 * (size_t)c.nlanes * (size_t)(p - 1),
                              "%s swing on %s rank %d: %zu bytes, %zu ranges", topo_prim_name(prim),
                              shapes[k].topo, rank, topo_sched_bytes(&c), nr);
                if (0 == pr && rank < 2 * 21845) {
                    topo_sched_t e;
                    ck_assert_int_eq(topo_gen_swing_units_explicit(&e, &a), TOPO_OK);
                    expect_mapped(&c, &e, 1, shapes[k].topo);
                    topo_sched_free(&e);
                }
                topo_sched_free(&c);
            }
        }
    }
}
END_TEST


START_TEST(test_catalog)
{
    topo_topology_t star = ut_topo("star");
    topo_gen_args_t a = {TOPO_PRIM_ALLREDUCE, 7, 0, 0, &star};
    char why[256];
    for (int i = 0; i < 2; i++) {
        const topo_algo_t *al = ut_allreduce(names[i]);
        ck_assert(al->flags & TOPO_ALG_COMMUTATIVE);
        ck_assert(!(al->flags & TOPO_ALG_GRID));
        ck_assert_int_eq(topo_algo_fits(al, &a, TOPO_OP_EXACT, why, sizeof(why)), 1);
        ck_assert_int_eq(topo_algo_fits(al, &a, TOPO_OP_ORDERED, why, sizeof(why)), 0);
        ck_assert_ptr_nonnull(strstr(why, "commutative"));
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("swing");
    TCase *tc = ut_tcase(s, "swing", 300);
    tcase_add_loop_test(tc, test_ring_all_sizes, 0, 2 * 13);
    tcase_add_loop_test(tc, test_tori, 0, 2 * (int)(sizeof(shapes) / sizeof(shapes[0])));
    tcase_add_test(tc, test_grid_of_other_size);
    tcase_add_test(tc, test_mutations_rejected);
    tcase_add_test(tc, test_peers_follow_rho);
    tcase_add_test(tc, test_matching);
    tcase_add_test(tc, test_step_counts);
    tcase_add_test(tc, test_message_sizes);
    tcase_add_test(tc, test_blocks_sent);
    tcase_add_test(tc, test_ports_distinct);
    tcase_add_test(tc, test_congestion_64x64);
    tcase_add_test(tc, test_congestion_8x8x8);
    tcase_add_test(tc, test_congestion_rectangular);
    tcase_add_test(tc, test_costs);
    tcase_add_loop_test(tc, test_collectives_tori, 0, 6);
    tcase_add_test(tc, test_collectives_shape);
    tcase_add_test(tc, test_halves_share);
    tcase_add_test(tc, test_barrier_peers);
    tcase_add_test(tc, test_barrier_spreads);
    tcase_add_test(tc, test_catalog);
    tcase_add_test(tc, test_mapped_units);
    tcase_add_test(tc, test_mapped_at_scale);
    return ut_run_suite(s);
}
