/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Bucket broadcast and reduce: dimension-decomposed ring (torus) or open
 * line (mesh), pipelined in segments (Lu 2026b sec. 3.2, 3.3, 4.2, 5.1;
 * Lu 2026a App. C).
 *
 * Broadcast.  The root's data spreads along dimension 0, then every rank
 * that holds it spreads it along dimension 1, and so on ("X then Y then
 * Z").  Along a ring of d ranks it goes both ways from the holder: floor(d/2)
 * links in the + direction and floor((d-1)/2) in the - direction, so every
 * position is reached once in floor(d/2) steps, the ring's diameter (Lu
 * 2026b sec. 3.2, bidirectional); along an open line it goes both ways from
 * the root's position x: x links down, d-1-x up, max(x, d-1-x) steps (sec.
 * 4.2, the source-placement case).  These paths form a spanning tree: a
 * rank's parent is its neighbour one link back toward the root in the last
 * dimension in which their coordinates differ, and its depth is the sum of
 * its distances from the root per dimension.  H, the largest depth, is
 * sum floor(d_i/2) on a torus and sum max(x_i, d_i-1-x_i) on a mesh.
 *
 * Pipelining, across dimensions too: the vector is cut into S segments
 * (blocks); a rank at depth D receives segment j at step j + D - 1 and
 * forwards it to its children at step j + D, so a rank that has just
 * received a segment along X passes it along Y and Z at once, without
 * waiting for the X phase to end.  S + H - 1 steps of M/S each: the App. C
 * master formula (L + P - 1)(alpha + M/(P BW)) with L = H, P = S.  Every
 * message crosses one link and every directed link carries at most one per
 * step (each rank has one parent); the root, the busiest sender, sends one
 * segment on each of its up to 2k links per step.
 *
 * Schedules do not depend on the count, so S cannot follow the paper's
 * P* = sqrt((L - 1) M / (alpha BW)); S = max(8, 4H) keeps the bandwidth
 * term (S + H - 1)/S M under 5/4 M (the paper's "telescopes to one M/BW",
 * sec. 3.2) for S + H - 1 steps, at most 5H - 1 (the executor splits large
 * messages further, per message; small counts leave blocks empty).
 *
 * Reduce.  The time reverse on the same tree (sec. 3.3: the last dimension
 * collapses first): a rank at depth D sends segment j to its parent at step
 * j + H - D, having received it from each child at step j + H - D - 1.
 * Within that step the children's partials are applied innermost first
 * (the last dimension's, then the earlier ones', the child along the
 * rank's own dimension last), each before or after the rank's value
 * according to its coordinate, so on an open line the subtrees combine as
 * consecutive rank intervals: a mesh reduce is in rank order.  A ring's
 * wraparound link joins the ends of the rank order (a partial covering
 * ranks d-1 and 0 together), so on a torus it is not; the catalog row
 * requires a commutative operation (TOPO_ALG_COMMUTATIVE).
 *
 * Only grid topologies whose size is the communicator's (TOPO_ALG_GRID);
 * dimensions of size 1 take no steps.
 */
#include "algo.h"

#include <stdlib.h>
#include <string.h>

#define TOPO_BUCKET_MIN_SEGMENTS 8

typedef struct {
    int depth, height; /* height: the largest depth of any rank */
    int parent;        /* -1 at the root */
    int nkids;
    int kid[2 * TOPO_MAX_DIMS];   /* innermost dimension first, see above */
    int lower[2 * TOPO_MAX_DIMS]; /* the child's coordinate is below ours */
} tree_t;

/* The rank next to coordinates c along `dim` (delta = +-1, wrapping). */
static int step_along(const topo_topology_t *t, const int *c, int dim, int delta)
{
    int e[TOPO_MAX_DIMS];
    memcpy(e, c, sizeof(e));
    e[dim] = (e[dim] + delta + t->dims[dim]) % t->dims[dim];
    return topo_topology_rank(t, e);
}

static void add_kid(tree_t *tr, const topo_topology_t *t, const int *c, int dim, int delta)
{
    tr->kid[tr->nkids] = step_along(t, c, dim, delta);
    tr->lower[tr->nkids] = (c[dim] + delta + t->dims[dim]) % t->dims[dim] < c[dim];
    tr->nkids++;
}

/* a->rank's place in the tree from a->root; TOPO_ENOTSUP off the grid. */
static int tree_init(tree_t *tr, const topo_gen_args_t *a)
{
    const topo_topology_t *t = a->topo;
    if (!topo_topology_is_grid_of(t, a->size)) {
        return TOPO_ENOTSUP; /* not a candidate (catalog: TOPO_ALG_GRID) */
    }
    int c[TOPO_MAX_DIMS], r[TOPO_MAX_DIMS], reach[TOPO_MAX_DIMS][2];
    int dir = 0, last = -1, ldist = 0;
    topo_topology_coords(t, a->rank, c);
    topo_topology_coords(t, a->root, r);
    memset(tr, 0, sizeof(*tr));
    for (int i = 0; i < t->ndims; i++) {
        const int d = t->dims[i];
        int dist, sign;
        if (t->periodic[i]) {
            int off = (c[i] - r[i] + d) % d;
            reach[i][0] = d / 2; /* + direction; the rest the other way */
            reach[i][1] = (d - 1) / 2;
            sign = off <= reach[i][0] ? 1 : -1;
            dist = sign > 0 ? off : d - off;
        } else {
            reach[i][0] = d - 1 - r[i];
            reach[i][1] = r[i];
            sign = c[i] >= r[i] ? 1 : -1;
            dist = abs(c[i] - r[i]);
        }
        tr->height += reach[i][0] > reach[i][1] ? reach[i][0] : reach[i][1];
        tr->depth += dist;
        if (dist > 0) {
            last = i;
            dir = sign;
            ldist = dist;
        }
    }
    tr->parent = last >= 0 ? step_along(t, c, last, -dir) : -1;
    for (int i = t->ndims - 1; i > last; i--) {
        if (reach[i][1] > 0) {
            add_kid(tr, t, c, i, -1);
        }
        if (reach[i][0] > 0) {
            add_kid(tr, t, c, i, 1);
        }
    }
    if (last >= 0 && ldist < reach[last][dir > 0 ? 0 : 1]) {
        add_kid(tr, t, c, last, dir); /* on along the parent's line */
    }
    return TOPO_OK;
}

static int segments(int height)
{
    return 4 * height > TOPO_BUCKET_MIN_SEGMENTS ? 4 * height : TOPO_BUCKET_MIN_SEGMENTS;
}

/* Tree and schedule start: TOPO_OK with *S segments, or an error (the
 * schedule is then initialised empty). */
static int start(topo_sched_t *s, tree_t *tr, const topo_gen_args_t *a, int *S)
{
    int rc = tree_init(tr, a);
    if (TOPO_OK != rc || 0 == tr->height) {
        topo_sched_init(s, a->size, a->rank, 1);
        *S = 0;
        return rc;
    }
    *S = segments(tr->height);
    topo_sched_init(s, a->size, a->rank, *S);
    return TOPO_OK;
}

/* Step t of the broadcast (reduce: the reduction); returns its transfers. */
static int bcast_step(topo_sched_t *s, const tree_t *tr, int S, int t)
{
    int n = 0;
    topo_sched_step(s);
    int j = t - tr->depth;
    for (int k = 0; k < tr->nkids && j >= 0 && j < S; k++, n++) {
        topo_sched_send(s, tr->kid[k], j, 1);
    }
    j = t - tr->depth + 1;
    if (tr->parent >= 0 && j >= 0 && j < S) {
        topo_sched_recv(s, tr->parent, TOPO_XFER_RECV_COPY, j, 1);
        n++;
    }
    return n;
}

static int reduce_step(topo_sched_t *s, const tree_t *tr, int S, int t)
{
    int n = 0;
    const int lag = tr->height - tr->depth; /* segment j leaves at step j + lag */
    topo_sched_step(s);
    int j = t - lag + 1;
    for (int k = 0; k < tr->nkids && j >= 0 && j < S; k++, n++) {
        topo_sched_recv(s, tr->kid[k],
                        tr->lower[k] ? TOPO_XFER_RECV_REDUCE : TOPO_XFER_RECV_REDUCE_POST, j, 1);
    }
    j = t - lag;
    if (tr->parent >= 0 && j >= 0 && j < S) {
        topo_sched_send(s, tr->parent, j, 1);
        n++;
    }
    return n;
}

/* The S + height - 1 steps, in runs between the steps where a transfer
 * starts or stops (its segments first and last): within a run every step
 * is the one before with each segment one later, so the run's first step
 * is stored and repeated (topo_sched_repeat).  at[0..1]: the first steps
 * of the two kinds of transfer (each runs S steps). */
static int pipeline(topo_sched_t *s, const tree_t *tr, int S, const int at[2],
                    int (*step)(topo_sched_t *, const tree_t *, int, int))
{
    const int nsteps = S + tr->height - 1;
    int cut[6] = {0, nsteps, at[0], at[0] + S, at[1], at[1] + S}, n = 6;
    for (int i = 1; i < n; i++) { /* sorted, within [0, nsteps] */
        int v = cut[i] < 0 ? 0 : (cut[i] > nsteps ? nsteps : cut[i]), k = i;
        for (; k > 0 && cut[k - 1] > v; k--) {
            cut[k] = cut[k - 1];
        }
        cut[k] = v;
    }
    topo_shift_t sh[2 * TOPO_MAX_DIMS + 1];
    for (int i = 0; i < 2 * TOPO_MAX_DIMS + 1; i++) {
        sh[i] = (topo_shift_t){0, 1, 0, S, 1, 0, 0};
    }
    for (int i = 0; i + 1 < n; i++) {
        if (cut[i] < cut[i + 1]) {
            topo_sched_repeat(s, 1, cut[i + 1] - cut[i] - 1, sh, step(s, tr, S, cut[i]));
        }
    }
    return topo_sched_finish(s);
}

int topo_gen_bcast_bucket(topo_sched_t *s, const topo_gen_args_t *a)
{
    tree_t tr;
    int S, rc = start(s, &tr, a, &S);
    if (TOPO_OK != rc) {
        return rc;
    }
    if (0 == S) {
        return topo_sched_finish(s);
    }
    const int at[2] = {tr.depth, tr.depth - 1}; /* sends, the receive */
    return pipeline(s, &tr, S, at, bcast_step);
}

int topo_gen_reduce_bucket(topo_sched_t *s, const topo_gen_args_t *a)
{
    tree_t tr;
    int S, rc = start(s, &tr, a, &S);
    if (TOPO_OK != rc) {
        return rc;
    }
    if (0 == S) {
        return topo_sched_finish(s);
    }
    const int lag = tr.height - tr.depth;
    const int at[2] = {lag - 1, lag}; /* the receives, the send */
    return pipeline(s, &tr, S, at, reduce_step);
}
