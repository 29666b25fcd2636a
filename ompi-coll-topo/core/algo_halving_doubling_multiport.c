/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Multiport ("mirrored") recursive doubling and Rabenseifner on rings and
 * tori (De Sensi et al. 2024 sec. 4.1, 5.1: the mirrored recursive doubling
 * Swing is compared against).
 *
 * As for swing_lat / swing_bw, the vector is cut into 2D parts (D: the
 * dimensions of size > 1; one ring of `size` ranks when the topology is not
 * a grid of the communicator's size), one lane each: D plain collectives,
 * collective j starting in the j-th dimension, and D mirrored ones.  A lane
 * is the ordinary recursive doubling (or Rabenseifner) allreduce of its
 * part over *virtual* ranks, a bijection of the communicator's ranks:
 *  - every dimension a power of two: virtual bit k is one bit of one
 *    coordinate, taken round-robin over the dimensions from the lane's
 *    first, lowest bits first, so step k (partner v XOR 2^k) talks along
 *    one dimension at distance 2^b (b: that coordinate bit), the distance
 *    growing every D steps;
 *  - otherwise: mixed radix over the dimensions from the lane's first (the
 *    lane's first dimension varies fastest), folded onto the largest power
 *    of two as the single-port algorithms are (Lu 2026a App. B.3).
 * Mirrored lanes talk the other way around each ring.  With powers of two
 * (the papers' case), where the plain partner of coordinate c at distance 2^b
 * is c XOR 2^b (c + 2^b if bit b of c is clear, else c - 2^b), the mirrored
 * one is c - 2^b if bit b is clear, else c + 2^b (mod d): every node then
 * sends one way in the plain lane and the other way in the mirrored one, so
 * the two together load each directed link with 2^b messages, as one lane
 * alone does (the congestion factor then tends to 1.5 / 1.167 / 1.071 for D =
 * 2 / 3 / 4).  It is still a recursive doubling: partners share every lower
 * bit of their coordinates (adding 2^b changes none), so they hold the same
 * block range, and after step b a node holds a cyclic interval of 2^(b+1)
 * nodes whose halves its partner and it held before.  Otherwise (mixed radix)
 * mirrored lanes number the reflected coordinates c -> -c (mod d).
 * Any bijection keeps recursive doubling and Rabenseifner correct, and so
 * does the mirrored pairing above (the verifier proves every case); the
 * combination order is not the rank order, so commutative operations only.
 * A bijection keeps the butterfly's groups, so every rank combines the same
 * tree; the mirrored pairing's cyclic intervals do not line up from one
 * rank to the next once a dimension has 8 nodes or more, and there each
 * rank of recursive_doubling_mp combines its own tree
 * (topo_same_tree_recursive_doubling_mp).  Rabenseifner's blocks are
 * reduced by one rank each, so rabenseifner_mp always agrees.
 */
#include "algo.h"

#include <string.h>

typedef struct {
    topo_geom_t geo; /* geo.D >= 1: one rank has a single (empty) lane pair */
    int pow2;        /* every dimension a power of two */
    /* the lane's virtual numbering */
    int mirrored;
    int nbits, bit_dim[32], bit_pos[32]; /* pow2: virtual bit -> (dim, bit) */
    int order[TOPO_MAX_DIMS];            /* otherwise: dims, fastest first */
} mp_geom_t;

static void geom_init(mp_geom_t *g, const topo_gen_args_t *a)
{
    memset(g, 0, sizeof(*g));
    topo_geom_init(&g->geo, a);
    g->pow2 = 1;
    for (int k = 0; k < g->geo.nd; k++) {
        g->pow2 = g->pow2 && g->geo.dims[k] > 0 && 0 == (g->geo.dims[k] & (g->geo.dims[k] - 1));
    }
    if (0 == g->geo.D) {
        g->geo.first[g->geo.D++] = 0;
    }
}

int topo_same_tree_recursive_doubling_mp(const topo_gen_args_t *a)
{
    mp_geom_t g;
    geom_init(&g, a);
    for (int k = 0; k < g.geo.nd && g.pow2; k++) {
        if (g.geo.dims[k] > 4) {
            return 0;
        }
    }
    return 1;
}

/* The virtual numbering of lane (j, mirrored). */
static void lane_init(mp_geom_t *g, int j, int mirrored)
{
    g->mirrored = mirrored;
    if (g->pow2) {
        int left[TOPO_MAX_DIMS], used[TOPO_MAX_DIMS] = {0};
        for (int k = 0; k < g->geo.nd; k++) {
            left[k] = topo_ceil_log2(g->geo.dims[k]);
        }
        g->nbits = 0;
        for (int more = 1; more;) {
            more = 0;
            for (int i = 0; i < g->geo.D; i++) {
                int k = g->geo.first[(j + i) % g->geo.D];
                if (left[k] > 0) {
                    g->bit_dim[g->nbits] = k;
                    g->bit_pos[g->nbits++] = used[k]++;
                    left[k]--;
                    more = 1;
                }
            }
        }
    } else {
        int n = 0;
        for (int i = 0; i < g->geo.D; i++) {
            g->order[n++] = g->geo.first[(j + i) % g->geo.D];
        }
        for (int k = 0; k < g->geo.nd; k++) {
            if (g->geo.dims[k] <= 1) {
                g->order[n++] = k;
            }
        }
    }
}

static void coords_of(const mp_geom_t *g, int r, int *c)
{
    if (NULL != g->geo.grid) {
        topo_topology_coords(g->geo.grid, r, c);
    } else {
        c[0] = r;
    }
    for (int k = 0; k < g->geo.nd && g->mirrored && !g->pow2; k++) {
        c[k] = (g->geo.dims[k] - c[k]) % g->geo.dims[k];
    }
}

static int rank_of(const mp_geom_t *g, int *c)
{
    for (int k = 0; k < g->geo.nd && g->mirrored && !g->pow2; k++) {
        c[k] = (g->geo.dims[k] - c[k]) % g->geo.dims[k];
    }
    return NULL != g->geo.grid ? topo_topology_rank(g->geo.grid, c) : c[0];
}

static int to_virtual(const mp_geom_t *g, int r)
{
    int c[TOPO_MAX_DIMS], v = 0;
    coords_of(g, r, c);
    if (g->pow2) {
        for (int k = 0; k < g->nbits; k++) {
            v |= ((c[g->bit_dim[k]] >> g->bit_pos[k]) & 1) << k;
        }
    } else {
        for (int i = g->geo.nd - 1; i >= 0; i--) {
            v = v * g->geo.dims[g->order[i]] + c[g->order[i]];
        }
    }
    return v;
}

static int from_virtual(const mp_geom_t *g, int v)
{
    int c[TOPO_MAX_DIMS] = {0};
    if (g->pow2) {
        for (int k = 0; k < g->nbits; k++) {
            c[g->bit_dim[k]] |= ((v >> k) & 1) << g->bit_pos[k];
        }
    } else {
        for (int i = 0; i < g->geo.nd; i++) {
            c[g->order[i]] = v % g->geo.dims[g->order[i]];
            v /= g->geo.dims[g->order[i]];
        }
    }
    return rank_of(g, c);
}

/* The partner at step k of rank r (virtual new rank n after folding). */
static int peer_of(const mp_geom_t *g, const topo_fold_t *f, int r, int n, int k)
{
    if (!g->pow2 || !g->mirrored) {
        return from_virtual(g, topo_fold_old(f, n ^ (1 << k)));
    }
    int c[TOPO_MAX_DIMS];
    coords_of(g, r, c);
    const int dim = g->bit_dim[k], step = 1 << g->bit_pos[k], d = g->geo.dims[dim];
    c[dim] = ((c[dim] & step) ? c[dim] + step : c[dim] - step + d) % d;
    return rank_of(g, c);
}

/* One lane: recursive doubling (B = 1 block) or Rabenseifner (B = p2
 * blocks) of blocks [base, base + B) over the lane's virtual ranks. */
static void lane(topo_sched_t *s, const mp_geom_t *g, int p, int r, int base, int raben)
{
    const int v = to_virtual(g, r);
    topo_fold_t f;
    topo_fold_init(&f, p, v);
    const int B = raben ? f.p2 : 1;
    topo_sched_lane(s);
    if (f.rem > 0) { /* fold in: even virtual ranks below 2 rem hand over */
        topo_sched_step(s);
        if (v < 2 * f.rem) {
            topo_fold_xfer(s, &f, v, from_virtual(g, v ^ 1), 1, base, B);
        }
    }
    const int K = topo_ceil_log2(f.p2);
    int lo[32], n[32];
    lo[0] = 0;
    n[0] = B;
    for (int k = 0; k < K; k++) {
        const int mask = 1 << k, upper = f.newrank >= 0 && (f.newrank & mask);
        lo[k + 1] = raben && upper ? lo[k] + n[k] / 2 : lo[k];
        n[k + 1] = raben ? n[k] / 2 : 1;
        topo_sched_step(s);
        if (f.newrank < 0) {
            continue;
        }
        const int peer = peer_of(g, &f, r, f.newrank, k);
        if (raben) {
            topo_sched_send(s, peer, base + (upper ? lo[k] : lo[k] + n[k + 1]), n[k + 1]);
            topo_sched_recv(s, peer, TOPO_XFER_RECV_REDUCE, base + lo[k + 1], n[k + 1]);
        } else {
            topo_sched_send(s, peer, base, 1);
            topo_sched_recv(s, peer, TOPO_XFER_RECV_REDUCE, base, 1);
        }
    }
    for (int k = K - 1; raben && k >= 0; k--) {
        topo_sched_step(s);
        if (f.newrank < 0) {
            continue;
        }
        const int mask = 1 << k, upper = f.newrank & mask;
        const int peer = peer_of(g, &f, r, f.newrank, k);
        topo_sched_send(s, peer, base + lo[k + 1], n[k + 1]);
        topo_sched_recv(s, peer, TOPO_XFER_RECV_COPY,
                        base + (upper ? lo[k] : lo[k] + n[k + 1]), n[k + 1]);
    }
    if (f.rem > 0) { /* fold out */
        topo_sched_step(s);
        if (v < 2 * f.rem) {
            topo_fold_xfer(s, &f, v, from_virtual(g, v ^ 1), 0, base, B);
        }
    }
}

static int gen(topo_sched_t *s, const topo_gen_args_t *a, int raben)
{
    mp_geom_t g;
    geom_init(&g, a);
    topo_fold_t f;
    topo_fold_init(&f, a->size, 0);
    const int B = raben ? f.p2 : 1, lanes = 2 * g.geo.D;
    topo_sched_init(s, a->size, a->rank, lanes * B);
    for (int l = 0; l < lanes; l++) {
        lane_init(&g, l % g.geo.D, l >= g.geo.D);
        lane(s, &g, a->size, a->rank, l * B, raben);
    }
    return topo_sched_finish(s);
}

int topo_gen_allreduce_recursive_doubling_mp(topo_sched_t *s, const topo_gen_args_t *a)
{
    return gen(s, a, 0);
}

int topo_gen_allreduce_rabenseifner_mp(topo_sched_t *s, const topo_gen_args_t *a)
{
    return gen(s, a, 1);
}
