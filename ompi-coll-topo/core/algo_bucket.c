/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Bucket allreduce: dimension-decomposed ring on a k-D torus or open line
 * (bucket brigade) on a k-D mesh (Lu 2026b sec. 3.1, 3.4, 4.2; De Sensi
 * et al. 2024 sec. 2.3.4).
 *
 * A lane reduce-scatters along its dimensions one after the other, then
 * allgathers in the reverse order.  Each RS phase splits the range the rank
 * holds into d_i chunks and leaves it one of them, so with N = prod d_i the
 * lane's N blocks are indexed in mixed radix over its dimension order (the
 * first dimension is the most significant digit) and every chunk is one
 * contiguous run of blocks.  Phases: d_i - 1 steps each, 2 sum(d_i - 1) in
 * all; the bytes telescope to 2 (N-1)/N of the lane's share (Lu 2026b
 * sec. 3.4).
 *
 * Multiport: the vector is split over several lanes that run concurrently,
 * each starting at a different dimension and direction (De Sensi et al. 2024
 * sec. 2.3.4): on a periodic dimension two lanes, one running every ring in +
 * direction and one in - direction; on a mesh dimension one lane, whose open
 * lines already use both directions.  On a square torus the lanes are then in
 * different dimensions and directions at every step, so each directed link
 * carries one message per step.  On unequal dimensions (Swing sec. 5.2 pads
 * phases to d_max instead; we do not, the step count stays 2 sum(d_i - 1))
 * the lanes meet in the long dimensions: a lane that starts in a short
 * dimension a reaches the long one b while the lanes that started there are
 * still in it, and a directed link carries one message of each.  Dimensions
 * of size 1 take no steps.
 *
 * Lane shares (allreduce).  Lanes get parts in proportion to the size of
 * the dimension they start in, so every lane's first-phase messages (its
 * part / d per step, the largest it sends) are equal; a periodic dimension
 * of size 2 counts 4 (below).  On an a x b torus (3 <= a < b) with parts
 * x_A, x_B per lane, the cost model (cost.h: every lane busy in every
 * step, the ports and links shared by the steps of one index) prices the
 * reduce-scatter at
 *   (a-1) max(x_A/a, x_B/b) + (b-a) (x_A/ab + x_B/b) + (a-1) max(x_A, x_B)/ab
 * (first phases; the b-a steps where the four lanes share dimension b's
 * links; last phases), and the allgather alike.  With 2 x_A + 2 x_B fixed
 * this falls while x_A/a < x_B/b and rises after, so x_A : x_B = a : b is
 * its minimum (3x5: 0.633 M/BW in all, 0.667 with equal parts).  Sharing
 * remains: in the b-a middle steps the busiest link carries c + c/b for a
 * port term of c (c = x_B/b), a factor 1 + 1/b (1 + 1/a with equal
 * parts).  On a ring of 2 both lanes send to the one neighbour, and the
 * model gives that dimension one port: for 2 x b the first step's pooled
 * port term (x_A + 2 x_B/b)/3 binds before the link does, and the same
 * sum is least where it meets the ring-of-2 message x_A/2, at
 * x_A : x_B = 4 : b.  Weights are reduced by their gcd and, when the
 * largest exceeds 16, scaled to 16 (rounded, at least 1), which keeps a
 * lane at most 16 N blocks.  On three or more dimensions the rule is a
 * heuristic: lanes also meet in later phases (rotated orders), and the
 * minimum moves (3x3x6: equal parts price lower).  The reduce-scatter and
 * allgather primitives keep one block per lane and unit (equal parts).
 *
 * Ring phase (d-ring, rank at virtual position v, the next rank in the
 * lane's direction at v + 1): Patarasuk-Yuan on chunks, as algo_ring.c.
 * Line phase (open line of d ranks, position c): partial sums for chunk j
 * flow towards position j from both ends; position c sends chunk d-t+c
 * right and chunk c+t-d left at step t (when they exist), so every rank
 * sends at most one chunk each way per step, d - 1 chunks in all, and all
 * streams arrive at step d - 1.  The allgather sends chunk c-t+1 right and
 * c+t-1 left.
 *
 * Reduce-scatter and allgather (`bucket` of those primitives): one half
 * alone, on blocks numbered as the primitives own them (unit-major: rank
 * u's unit is blocks [u * nparts, (u+1) * nparts), nparts = the lanes, and
 * lane l owns part l of every unit).  The lane's block index L maps to the
 * unit of the rank that keeps L at the end of the reduce-scatter, so the
 * reduce-scatter leaves every rank its own unit and the allgather starts
 * from it.  Chunks become lists of single blocks.
 *
 * Combination order: rings are cyclic and lanes take the dimensions in
 * different orders, so commutative operations only.  Only grid topologies
 * whose size is the communicator's (catalog flag TOPO_ALG_GRID); on a star
 * a dimension-decomposed ring is a plain ring and the generator refuses.
 */
#include "algo.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    topo_sched_t *s;
    const topo_topology_t *t;
    int c[TOPO_MAX_DIMS]; /* this rank's coordinates */
    /* Block numbering.  allreduce: lane block L is block L of the lane's
     * contiguous share (the caller's base included).  The rank-owned
     * primitives (reduce_scatter, allgather): unit-major, block
     * u * nparts + lane, where u is the rank that owns lane block L at the
     * end of the reduce-scatter (owner()); L is then lane-relative. */
    int units, nparts, lane;
    /* the lane's dimensions, direction and chunk strides (owner()) */
    int m, dir, order[TOPO_MAX_DIMS], stride[TOPO_MAX_DIMS];
} bucket_t;

static int phase_own(const topo_topology_t *t, const int *c, int dim, int dir);

/* The rank that ends owning lane block L of the lane (unit-major blocks):
 * L = sum over the phases q of phase_own(c, order[q], dir) * stride[q]. */
static int owner(const bucket_t *b, int L)
{
    int c[TOPO_MAX_DIMS] = {0};
    for (int q = 0; q < b->m; q++) {
        const int dim = b->order[q], d = b->t->dims[dim], own = L / b->stride[q];
        L -= own * b->stride[q];
        /* phase_own inverted: own = c (line), c + 1 or d - c (ring, mod d) */
        c[dim] = !b->t->periodic[dim] ? own : (b->dir > 0 ? (own - 1 + d) % d : (d - own) % d);
    }
    return topo_topology_rank(b->t, c);
}

/* A transfer of lane blocks [first, first + count): one range, or single
 * blocks in unit-major numbering. */
static void emit(const bucket_t *b, int send, int peer, int kind, int first, int count)
{
    for (int i = 0; i < (b->units ? count : 1); i++) {
        const int g = b->units ? owner(b, first + i) * b->nparts + b->lane : first;
        const int n = b->units ? 1 : count;
        if (i > 0) {
            topo_sched_range(b->s, g, n);
        } else if (send) {
            topo_sched_send(b->s, peer, g, n);
        } else {
            topo_sched_recv(b->s, peer, (topo_xfer_kind_t)kind, g, n);
        }
    }
}

/* The rank `delta` steps along `dim` (wrapping). */
static int along(const bucket_t *b, int dim, int delta)
{
    int e[TOPO_MAX_DIMS], n = b->t->dims[dim];
    memcpy(e, b->c, sizeof(e));
    e[dim] = ((e[dim] + delta) % n + n) % n;
    return topo_topology_rank(b->t, e);
}

/* One phase along `dim` over the chunks lo + k * stride (k < d), each
 * `stride` blocks.  rs: reduce-scatter, returning the chunk kept; else
 * allgather, starting from that same chunk. */
static int ring_phase(const bucket_t *b, int dim, int dir, int lo, int stride, int rs)
{
    const int d = b->t->dims[dim], c = b->c[dim];
    const int v = dir > 0 ? c : d - 1 - c;
    const int right = along(b, dim, dir), left = along(b, dim, -dir);
    /* Step t is step t - 1 with every chunk one earlier: the chunks of
     * [lo, lo + d stride) one stride back, so step 1 is stored and
     * repeated.  On unit-major blocks a chunk one earlier is owned by the
     * ranks one back along dim (against the ring: forward; phase_own),
     * whose units are `rstride` (dim's stride in ranks) back or forward
     * within each run of d * rstride units. */
    int rstride = 1;
    for (int i = dim + 1; i < b->t->ndims; i++) {
        rstride *= b->t->dims[i];
    }
    const int wu = d * rstride * b->nparts; /* blocks of such a run */
    const topo_shift_t sh =
        !b->units
            ? (topo_shift_t){0, -stride, lo, d * stride, 1, 0, 0}
            : (topo_shift_t){
                  0, (dir > 0 ? -rstride : rstride) * b->nparts, 0, wu, b->s->nblocks / wu, 0, 0};
    const topo_shift_t shs[2] = {sh, sh};
    const int t = 1;
    topo_sched_step(b->s);
    int out = rs ? v - t + 1 : v - t + 2, in = rs ? v - t : v - t + 1;
    emit(b, 1, right, 0, lo + ((out % d + d) % d) * stride, stride);
    emit(b, 0, left, rs ? TOPO_XFER_RECV_REDUCE : TOPO_XFER_RECV_COPY,
         lo + ((in % d + d) % d) * stride, stride);
    topo_sched_repeat(b->s, 1, d - 2, shs, 2);
    return (v + 1) % d;
}

static int line_phase(const bucket_t *b, int dim, int lo, int stride, int rs)
{
    const int d = b->t->dims[dim], c = b->c[dim];
    const int has_right = (c < d - 1), has_left = (c > 0);
    const int right = has_right ? along(b, dim, 1) : -1, left = has_left ? along(b, dim, -1) : -1;
    for (int t = 1; t < d; t++) {
        topo_sched_step(b->s);
        if (rs) {
            if (has_right && t >= c + 1) {
                emit(b, 1, right, 0, lo + (d - t + c) * stride, stride);
            }
            if (has_left && t >= d - c) {
                emit(b, 1, left, 0, lo + (c + t - d) * stride, stride);
            }
            /* from the left first: it covers lower coordinates */
            if (has_left && t >= c) {
                emit(b, 0, left, TOPO_XFER_RECV_REDUCE, lo + (d - t + c - 1) * stride, stride);
            }
            if (has_right && t >= d - c - 1) {
                emit(b, 0, right, TOPO_XFER_RECV_REDUCE_POST, lo + (c + 1 + t - d) * stride,
                     stride);
            }
        } else {
            if (has_right && t <= c + 1) {
                emit(b, 1, right, 0, lo + (c - t + 1) * stride, stride);
            }
            if (has_left && t <= d - c) {
                emit(b, 1, left, 0, lo + (c + t - 1) * stride, stride);
            }
            if (has_left && t <= c) {
                emit(b, 0, left, TOPO_XFER_RECV_COPY, lo + (c - t) * stride, stride);
            }
            if (has_right && t <= d - c - 1) {
                emit(b, 0, right, TOPO_XFER_RECV_COPY, lo + (c + t) * stride, stride);
            }
        }
    }
    return c;
}

static int gcd(int x, int y)
{
    while (y) {
        int r = x % y;
        x = y;
        y = r;
    }
    return x;
}

/* The chunk a rank at coordinates c keeps in a reduce-scatter phase along
 * `dim` (ring_phase and line_phase return the same). */
static int phase_own(const topo_topology_t *t, const int *c, int dim, int dir)
{
    const int d = t->dims[dim];
    if (!t->periodic[dim]) {
        return c[dim];
    }
    const int v = dir > 0 ? c[dim] : d - 1 - c[dim];
    return (v + 1) % d;
}

/* One lane over blocks [base, base + unit * N) (N = size): dimensions
 * order[0..m-1]; its reduce-scatter half (rs), its allgather half (ag) or
 * both. */
static void bucket_lane(bucket_t *b, const int *order, int m, int dir, int base, int unit, int rs,
                        int ag)
{
    int stride[TOPO_MAX_DIMS], lo[TOPO_MAX_DIMS + 1];
    topo_sched_lane(b->s);
    stride[m - 1] = unit; /* blocks per chunk of the last phase */
    for (int q = m - 2; q >= 0; q--) {
        stride[q] = stride[q + 1] * b->t->dims[order[q + 1]];
    }
    b->m = m;
    b->dir = dir;
    memcpy(b->order, order, sizeof(int) * (size_t)m);
    memcpy(b->stride, stride, sizeof(int) * (size_t)m);
    lo[0] = base;
    for (int q = 0; q < m; q++) {
        const int dim = order[q];
        if (rs) {
            if (b->t->periodic[dim]) {
                ring_phase(b, dim, dir, lo[q], stride[q], 1);
            } else {
                line_phase(b, dim, lo[q], stride[q], 1);
            }
        }
        lo[q + 1] = lo[q] + phase_own(b->t, b->c, dim, dir) * stride[q];
    }
    for (int q = m - 1; ag && q >= 0; q--) {
        int dim = order[q];
        if (b->t->periodic[dim]) {
            ring_phase(b, dim, dir, lo[q], stride[q], 0);
        } else {
            line_phase(b, dim, lo[q], stride[q], 0);
        }
    }
}

/* mode: TOPO_PRIM_ALLREDUCE (both halves, contiguous lane shares), or the
 * REDUCE_SCATTER / ALLGATHER half alone on unit-major blocks. */
static int gen_bucket(topo_sched_t *s, const topo_gen_args_t *a, topo_prim_t mode)
{
    const topo_topology_t *t = a->topo;
    const int grid = t->kind == TOPO_NET_TORUS || t->kind == TOPO_NET_MESH;
    if (!grid || !topo_topology_is_grid_of(t, a->size)) {
        /* not a candidate (catalog: TOPO_ALG_GRID); never a silent ring */
        topo_sched_init(s, a->size, a->rank, 1);
        return TOPO_ENOTSUP;
    }
    const int n = a->size, units = mode != TOPO_PRIM_ALLREDUCE;
    int act[TOPO_MAX_DIMS], w[TOPO_MAX_DIMS], m = 0, nlanes = 0, wmax = 0, g = 0, blocks = 0;
    for (int i = 0; i < t->ndims; i++) {
        if (t->dims[i] > 1) {
            w[m] = units ? 1 : (2 == t->dims[i] && t->periodic[i] ? 4 : t->dims[i]);
            g = gcd(g, w[m]);
            act[m++] = i;
            nlanes += t->periodic[i] ? 2 : 1;
        }
    }
    for (int k = 0; k < m; k++) {
        w[k] /= g;
        wmax = w[k] > wmax ? w[k] : wmax;
    }
    for (int k = 0; k < m; k++) {
        if (wmax > 16) {
            w[k] = (w[k] * 16 + wmax / 2) / wmax;
            w[k] = w[k] > 0 ? w[k] : 1;
        }
        blocks += w[k] * (t->periodic[act[k]] ? 2 : 1);
    }
    topo_sched_init(s, n, a->rank, blocks > 0 ? blocks * n : 1);
    if (units) {
        s->nparts = nlanes > 0 ? nlanes : 1;
    }
    bucket_t b;
    memset(&b, 0, sizeof(b));
    b.s = s;
    b.t = t;
    b.units = units;
    b.nparts = s->nparts;
    topo_topology_coords(t, a->rank, b.c);
    int lane = 0, base = 0;
    for (int k = 0; k < m; k++) {
        int order[TOPO_MAX_DIMS];
        for (int q = 0; q < m; q++) {
            order[q] = act[(k + q) % m];
        }
        for (int dir = 1; dir >= (t->periodic[act[k]] ? -1 : 1); dir -= 2) {
            b.lane = lane;
            bucket_lane(&b, order, m, dir, units ? 0 : base, w[k], mode != TOPO_PRIM_ALLGATHER,
                        mode != TOPO_PRIM_REDUCE_SCATTER);
            base += w[k] * n;
            lane++;
        }
    }
    return topo_sched_finish(s);
}

int topo_gen_allreduce_bucket(topo_sched_t *s, const topo_gen_args_t *a)
{
    return gen_bucket(s, a, TOPO_PRIM_ALLREDUCE);
}

int topo_gen_reduce_scatter_bucket(topo_sched_t *s, const topo_gen_args_t *a)
{
    return gen_bucket(s, a, TOPO_PRIM_REDUCE_SCATTER);
}

int topo_gen_allgather_bucket(topo_sched_t *s, const topo_gen_args_t *a)
{
    return gen_bucket(s, a, TOPO_PRIM_ALLGATHER);
}
