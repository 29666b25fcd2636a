/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Double binary tree allreduce, pipelined (Lu 2026a sec. 5.2, App. C), and
 * the broadcast over the same trees (at the end of the file).
 *
 * Two binary trees over all ranks, one per half of the vector, each half
 * reduced up its tree and broadcast back down, in its own lane.  Every rank
 * is interior in exactly one tree and a leaf in the other, so a rank never
 * forwards in both trees (Lu 2026a sec. 5.2: at most 3 partners in its
 * interior tree plus its parent in the other).
 *
 * Trees.  Tree l labels rank r with x = r + 1 + l, so tree 0 spans labels
 * [1, p] and tree 1 spans [2, p + 1].  The tree over an interval of labels
 * has as root the label with the most trailing zero bits (unique in any
 * interval), the tree over the labels left of it as left subtree and the
 * tree over those right of it as right subtree.  So every subtree covers
 * consecutive ranks (an in-order tree), every interval of two or more
 * labels has an even root, and the leaves are exactly the odd labels:
 * the even ranks in tree 0 and the odd ranks in tree 1 -- complementary for
 * every p, unlike the mirrored tree, which needs p even.  Heights:
 * floor(log2 p) and floor(log2 (p + 1)), at most ceil(log2 p).
 *
 * Order: a node combines left subtree, itself, right subtree, in that order
 * (the left child's data goes first, the right child's last), so the root
 * holds the rank-ordered combination: order-preserving, which the
 * verifier's ordered mode proves.
 *
 * Pipelining.  Each half is cut into S segments (blocks), S = 2 ceil(log2
 * p) (the App. C master formula's P = L with L = 2 ceil(log2 p): bandwidth
 * term (L + P - 1) / P of the per-segment traffic, under twice the
 * segment-free floor, for L + P - 1 steps).  Schedules do not depend on
 * the count, so S cannot follow P* = sqrt((L-1) M / (alpha BW)); larger
 * counts are split further by the executor, per message.  A node of
 * subtree height h sends segment j up at step j + h (its children, being
 * lower, have sent it by then); the root of a tree of height H sends
 * segment j down at step j + H and a node at depth e forwards it at step
 * j + H + e.  So up and down traffic overlap and a lane takes
 * S + 2H - 1 steps (App. C: L + P - 1 slots with L = 2H).
 */
#include "algo.h"

/* The label with the most trailing zeros in [lo, hi] (1 <= lo <= hi). */
static int top(int lo, int hi)
{
    int b = 1;
    while ((long)b * 2 <= hi) {
        b *= 2;
    }
    while (hi / b * b < lo) {
        b /= 2;
    }
    return hi / b * b;
}

static int flog2(int n)
{
    int k = 0;
    while (n >> (k + 1)) {
        k++;
    }
    return k;
}

/* Height of the tree over [lo, hi]; -1 when empty.  Its top m is the one
 * multiple of the largest power of two b that [lo, hi] holds, so both
 * subtrees lie within b of m, where divisibility by the smaller powers is
 * that of the distance to m: the right subtree is the tree over
 * [1, hi - m], the left one the mirror of the tree over [1, m - lo], and
 * the tree over [1, n] has height floor(log2 n) (top: the largest power
 * of two <= n, a complete tree to its left).  O(log) instead of visiting
 * the tree, which made every rank's schedule O(p) to generate. */
static int height(int lo, int hi)
{
    if (lo > hi) {
        return -1;
    }
    const int m = top(lo, hi);
    const int l = lo < m ? flog2(m - lo) : -1, r = m < hi ? flog2(hi - m) : -1;
    return 1 + (l > r ? l : r);
}

typedef struct {
    int parent;      /* label, or 0 for the root */
    int depth;       /* edges from the root */
    int lo, hi;      /* the labels of this node's subtree */
    int left, right; /* children's labels, or 0 */
} node_t;

static void locate(int lo, int hi, int x, node_t *n)
{
    n->parent = 0;
    n->depth = 0;
    for (;;) {
        int m = top(lo, hi);
        if (m == x) {
            break;
        }
        n->parent = m;
        n->depth++;
        if (x < m) {
            hi = m - 1;
        } else {
            lo = m + 1;
        }
    }
    n->lo = lo;
    n->hi = hi;
    n->left = lo < x ? top(lo, x - 1) : 0;
    n->right = x < hi ? top(x + 1, hi) : 0;
}

/* Segments per half for p ranks (see the header comment). */
static int dbt_segments(int p)
{
    int k = 0;
    while ((1 << k) < p) {
        k++;
    }
    return k > 0 ? 2 * k : 1;
}

/* Tree l over q ranks: labels v + 1 + l for v < q.  Fills n for rank v
 * and returns the tree's height; *off is the label of rank 0. */
static int place(int q, int l, int v, node_t *n, int *off)
{
    *off = 1 + l;
    locate(*off, q - 1 + *off, v + *off, n);
    return height(*off, q - 1 + *off);
}

/* Tree `l` (labels rank + 1 + l) over blocks [base, base + nseg). */
static void dbt_lane(topo_sched_t *s, int l, int base, int nseg)
{
    const int x = s->rank + 1 + l;
    int off;
    node_t n;
    const int H = place(s->size, l, s->rank, &n, &off), h = height(n.lo, n.hi);
    const int hl = height(n.lo, x - 1), hr = height(x + 1, n.hi);
    topo_sched_lane(s);
    for (int t = 0; t < nseg + 2 * H - 1; t++) {
        topo_sched_step(s);
        int j = t - h; /* up */
        if (n.parent && j >= 0 && j < nseg) {
            topo_sched_send(s, n.parent - off, base + j, 1);
        }
        j = t - H - n.depth; /* down */
        if (j >= 0 && j < nseg) {
            if (n.left) {
                topo_sched_send(s, n.left - off, base + j, 1);
            }
            if (n.right) {
                topo_sched_send(s, n.right - off, base + j, 1);
            }
        }
        /* receives: the left subtree goes first, the right one last */
        j = t - hl;
        if (n.left && j >= 0 && j < nseg) {
            topo_sched_recv(s, n.left - off, TOPO_XFER_RECV_REDUCE, base + j, 1);
        }
        j = t - hr;
        if (n.right && j >= 0 && j < nseg) {
            topo_sched_recv(s, n.right - off, TOPO_XFER_RECV_REDUCE_POST, base + j, 1);
        }
        j = t - H - n.depth + 1;
        if (n.parent && j >= 0 && j < nseg) {
            topo_sched_recv(s, n.parent - off, TOPO_XFER_RECV_COPY, base + j, 1);
        }
    }
}

int topo_gen_allreduce_dbt(topo_sched_t *s, const topo_gen_args_t *a)
{
    const int p = a->size, nseg = dbt_segments(p);
    if (1 == p) {
        topo_sched_init(s, p, a->rank, 1);
        return topo_sched_finish(s);
    }
    topo_sched_init(s, p, a->rank, 2 * nseg);
    dbt_lane(s, 0, 0, nseg);
    dbt_lane(s, 1, nseg, nseg);
    return topo_sched_finish(s);
}

/*
 * Double binary tree broadcast (Lu 2026a sec. 3, 5.2, App. C).  The trees
 * above span the p - 1 ranks other than the root (virtual rank v for rank
 * root + 1 + v), and the root hands half l of the vector to tree l's root,
 * segment j at step j; a rank at depth e in tree l receives segment j at
 * step j + e and passes it to its children at step j + e + 1.  Every rank
 * but the root is interior in one tree and a leaf in the other, so it
 * sends its half to at most two children: at most M in all, and the root
 * exactly M (the two hand-offs), the pipelined trees' M/BW floor.
 *
 * Segments: L = H + 1 (the hand-off and the tree's height H <= floor(log2
 * p)) is about half the allreduce's L = 2H, so S = 4 ceil(log2 p) segments
 * per half (twice the allreduce's) keep the master formula's (L + P - 1)/P
 * at 5/4 or below: S + H steps per lane, each moving one segment of each
 * half per rank (M/(2S) per message).
 */
static void bcast_lane(topo_sched_t *s, const topo_gen_args_t *a, int l, int nseg)
{
    const int p = a->size, q = p - 1, base = l * nseg;
    int off;
    node_t n;
    topo_sched_lane(s);
    if (a->rank == a->root) {
        const int H = place(q, l, 0, &n, &off);
        const int top_rank = (top(off, q - 1 + off) - off + a->root + 1) % p;
        for (int t = 0; t < nseg + H; t++) {
            topo_sched_step(s);
            if (t < nseg) {
                topo_sched_send(s, top_rank, base + t, 1);
            }
        }
        return;
    }
    const int v = (a->rank - a->root - 1 + p) % p;
    const int H = place(q, l, v, &n, &off);
    const int shift = a->root + 1 - off + p; /* label -> rank, mod p */
    const int from = n.parent ? (n.parent + shift) % p : a->root;
    for (int t = 0; t < nseg + H; t++) {
        topo_sched_step(s);
        int j = t - n.depth - 1;
        if (j >= 0 && j < nseg) {
            if (n.left) {
                topo_sched_send(s, (n.left + shift) % p, base + j, 1);
            }
            if (n.right) {
                topo_sched_send(s, (n.right + shift) % p, base + j, 1);
            }
        }
        j = t - n.depth;
        if (j >= 0 && j < nseg) {
            topo_sched_recv(s, from, TOPO_XFER_RECV_COPY, base + j, 1);
        }
    }
}

int topo_gen_bcast_dbt(topo_sched_t *s, const topo_gen_args_t *a)
{
    const int p = a->size, nseg = 2 * dbt_segments(p);
    if (1 == p) {
        topo_sched_init(s, p, a->rank, 1);
        return topo_sched_finish(s);
    }
    topo_sched_init(s, p, a->rank, 2 * nseg);
    bcast_lane(s, a, 0, nseg);
    bcast_lane(s, a, 1, nseg);
    return topo_sched_finish(s);
}
