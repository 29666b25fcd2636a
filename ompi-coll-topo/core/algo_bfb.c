/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * BFB (breadth-first broadcast) allgather on a torus, a mesh or any
 * strongly connected graph (graph:FILE), its time reversal as
 * reduce-scatter, and the two in sequence as allreduce
 * (Zhao et al., "Efficient Direct-Connect Topologies for Collective
 * Communications", 2025: sec. 6.1 LP (1), sec. 6.2 torus, App. B
 * reversal, App. E.2 discrete chunks).
 *
 * Allgather.  The schedule has D steps (D the grid's diameter).  In step t
 * every node u receives the shards of the nodes v at distance t from it,
 * each over in-neighbours w of u that lie at distance t - 1 from v (so w
 * got v's shard in step t - 1, or w = v for t = 1): data only travels on
 * shortest paths, and each shard arrives exactly once.  A shard may be
 * split among its eligible in-links; the split minimises the largest load
 * on u's in-links in that step, which is the paper's LP (1) for (t, u).
 *
 * The split, exactly and in integers.  The LP is a divisible-job
 * assignment: jobs are the sources v, processors u's in-links, job v may
 * use the links P(v) that lie on a shortest path from v.  Its optimum is
 *   U*(t, u) = max over link sets Q of |{v : P(v) subset of Q}| / |Q|
 * (Hall's condition for the transportation problem: a load U is feasible
 * iff every set S of jobs fits on P(S) at U per link; for a given Q the
 * worst S is every job confined to Q).  So U* is a fraction whose
 * denominator is at most the in-degree.  With every shard cut into K equal
 * parts (the schedule's nparts), K a multiple of every step's optimal
 * denominator, the capacity ceil(K U*(t, u)) parts per link admits an
 * integral flow of K parts per job (max-flow integrality: the fractional
 * optimum fits within integer capacities), which we find with
 * Edmonds-Karp on the jobs grouped by P(v).  The largest link load of
 * every step is then exactly the LP's max over u of U*(t, u), no
 * rounding; on a torus every node's problem is the same one translated,
 * U*(t, u) = n_t / d (n_t nodes at distance t, d in-links), and the
 * steps add up to (N - 1) / d shards per link: bandwidth-optimal on any
 * torus, unequal dimensions included (the paper's Theorem 13).  A job's
 * parts go to its links in link order as consecutive runs, so every link
 * carries contiguous part ranges.
 *
 * K: on a torus the lcm of the denominators of U*(t, 0) over t (every
 * node's problem is rank 0's translated); on a mesh the lcm over all
 * (t, u) up to 128 ranks, lcm(1..d) above (a multiple of it, with more
 * blocks, but computing it exactly costs every rank O(p^2)), 1 on a line.
 * Tori 3x5: 2 parts (loads 1, 3/2, 1), 2x8: 3, 3x3x6: 6; meshes 3x3: 6,
 * 4x4x4: 30, 8x8: 12.
 *
 * Graphs (graph.h).  The same construction on the graph's distances and
 * in-links, directed: v's shard reaches u over the in-links (w, u) with
 * dist(v, w) = t - 1.  A link of relative bandwidth b takes b times the
 * load: U*(t, u) = max over Q of |{v : P(v) subset of Q}| / b(Q), b(Q)
 * the bandwidth of the links in Q, and link k's capacity is
 * K U*(t, u) b_k parts.  K is the lcm of the denominators over every
 * (t, u) (no symmetry assumed), computed once per graph and cached in it
 * (topo_graph_t.bfb_parts): O(N (N + D 2^d d)) for in-degree d <= 8.
 * Unlike a torus, a graph need not admit a bandwidth-optimal BFB schedule
 * ((N - 1) / d shards per link); the schedule is the best BFB one (LP (1)
 * per (t, u), Theorem 16), and its bandwidth term is what the cost model
 * prices from it.
 *
 * Reduce-scatter.  The allgather reversed in time (App. B): where the
 * allgather sends part p of v's shard from w to u in step t, the
 * reduce-scatter sends u's partial sum of that block to w in step
 * D - t + 1, and w reduces it into its own.  Every block is reduced along
 * one tree (the allgather's broadcast tree of that block, reversed) into
 * the one rank that owns it, so every rank that gets a block gets it
 * from the same tree.  Receives are applied in transfer order, so the
 * operand order is fixed too; a commutative operation is needed since
 * the tree does not follow rank order.
 *
 * Allreduce: the reduce-scatter and then the allgather, 2D steps, on the
 * same blocks (v's shard = blocks [v K, (v + 1) K)).
 *
 * Neighbours.  Dimension i contributes the + and - neighbours (one on a
 * ring of 2, where both are the same rank, and one or two at a mesh's
 * ends); dimensions of size 1 none.  Up to 4 dimensions larger than 1
 * (the catalog's fits): the exact optimum enumerates subsets of in-links.
 */
#include "algo.h"
#include "graph.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BFB_MAX_DIMS 4
#define BFB_MAX_NB (2 * BFB_MAX_DIMS)
#define BFB_MAX_MASK (1 << BFB_MAX_NB)
#define BFB_MAX_OUT TOPO_GRAPH_MAX_DEGREE

_Static_assert(BFB_MAX_NB <= BFB_MAX_OUT, "a grid's out-neighbours fit the receivers array");
_Static_assert(BFB_MAX_NB <= 8, "an eligible mask fits a byte");

typedef struct {
    const topo_topology_t *t;
    const topo_graph_t *g; /* a graph: its distances and links; NULL on a grid */
    int transpose;         /* a graph's transpose: the reduce-scatter's */
    int n;                 /* ranks */
    int nd;                /* dimensions */
    int *co;               /* coordinates, n * nd */
    int diam;              /* D: the allgather's steps */
    int K;                 /* parts per shard */
    int maxnb;             /* the largest in-degree */
    /* A torus (every dimension periodic): every receiver's problem is
     * rank 0's translated (its distances, and the in-links' order,
     * dimension then +, -, the same from every node).  Then each step is
     * solved once, on rank 0's offsets (bfb_tstep_t), and every receiver
     * takes that solution translated; the sources are enumerated step by
     * step, never all N of them for each receiver (see "Translated"
     * below).  0 elsewhere: each receiver's side computed from the
     * distances (bfb_rx_t). */
    int tr;
} bfb_t;

/* The receiver x's side of step t: its in-neighbours, the sources at
 * distance t, and which in-link carries each of their K parts. */
typedef struct {
    int x;
    int nin;
    int in[BFB_MAX_NB];
    int inbw[BFB_MAX_NB]; /* relative bandwidth of in-link k (1 on a grid) */
    int *dist;            /* dist[v] = distance from v to x */
    unsigned char *mask;  /* mask[v]: the in-links of x on a shortest path
                             from v (bit k: in[k]; eligible) */
    int *order;           /* ranks by distance, ascending rank within a distance */
    int *first;           /* order[first[t] .. first[t + 1]) are at distance t */
    /* The current step's assignment (solve): the j-th source at distance
     * t is the rank[j]-th of its group (the sources of its mask m, in rank
     * order), whose parts go over in-link k from stream position
     * pre[m (nin + 1) + k] on (bfb_cut). */
    int *rank;
    int64_t *pre; /* [2^nin (nin + 1)] */
} bfb_rx_t;

static int64_t gcd64(int64_t a, int64_t b)
{
    while (b) {
        int64_t r = a % b;
        a = b;
        b = r;
    }
    return a;
}

static int dist(const bfb_t *b, int u, int v)
{
    if (NULL != b->g) {
        return b->transpose ? topo_graph_dist(b->g, v, u) : topo_graph_dist(b->g, u, v);
    }
    int s = 0;
    for (int i = 0; i < b->nd; i++) {
        int d = abs(b->co[u * b->nd + i] - b->co[v * b->nd + i]);
        if (b->t->periodic[i] && b->t->dims[i] - d < d) {
            d = b->t->dims[i] - d;
        }
        s += d;
    }
    return s;
}

/* The distinct neighbours of x on a grid, in a fixed order (dimension,
 * then +, -); on a graph (or its transpose) its in-neighbours (out = 0)
 * or out-neighbours (out = 1), ascending rank, with their links'
 * bandwidths in bw when not NULL. */
static int neighbours_dir(const bfb_t *b, int x, int *nb, int *bw, int out)
{
    if (NULL != b->g) {
        const topo_graph_t *g = b->g;
        int k = 0;
        if (out != b->transpose) { /* the graph's out-links of x */
            for (int e = g->out0[x]; e < g->out0[x + 1]; e++) {
                if (NULL != bw) {
                    bw[k] = g->bw[e];
                }
                nb[k++] = g->dst[e];
            }
            return k;
        }
        for (int i = g->in0[x]; i < g->in0[x + 1]; i++) {
            if (NULL != bw) {
                bw[k] = g->bw[g->inl[i]];
            }
            nb[k++] = g->src[g->inl[i]];
        }
        return k;
    }
    int c[TOPO_MAX_DIMS], k = 0;
    for (int i = 0; i < b->nd; i++) {
        const int n = b->t->dims[i];
        for (int dir = 1; dir >= -1; dir -= 2) {
            topo_topology_coords(b->t, x, c);
            int e = c[i] + dir;
            if (n < 2 || (2 == n && dir < 0 && b->t->periodic[i])) {
                continue; /* none, or a ring of 2's one neighbour again */
            }
            if (e < 0 || e >= n) {
                if (!b->t->periodic[i]) {
                    continue;
                }
                e = (e + n) % n;
            }
            c[i] = e;
            if (NULL != bw) {
                bw[k] = 1;
            }
            nb[k++] = topo_topology_rank(b->t, c);
        }
    }
    return k;
}

static unsigned eligible_of(const bfb_t *b, const int *in, int nin, int v, int t)
{
    unsigned m = 0;
    for (int k = 0; k < nin; k++) {
        if (dist(b, v, in[k]) == t - 1) {
            m |= 1u << k;
        }
    }
    return m;
}

static int rx_init(const bfb_t *b, bfb_rx_t *r, int x)
{
    memset(r, 0, sizeof(*r));
    r->x = x;
    r->nin = neighbours_dir(b, x, r->in, r->inbw, 0);
    r->dist = malloc(sizeof(int) * (size_t)b->n);
    r->mask = malloc((size_t)b->n);
    r->order = malloc(sizeof(int) * (size_t)b->n);
    r->first = calloc((size_t)b->diam + 2, sizeof(int));
    r->rank = malloc(sizeof(int) * (size_t)b->n);
    r->pre = malloc(sizeof(int64_t) * ((size_t)1 << r->nin) * ((size_t)r->nin + 1));
    if (NULL == r->dist || NULL == r->mask || NULL == r->order || NULL == r->first ||
        NULL == r->rank || NULL == r->pre) {
        return TOPO_ENOMEM;
    }
    for (int v = 0; v < b->n; v++) {
        r->dist[v] = dist(b, v, x);
        r->mask[v] = (unsigned char)eligible_of(b, r->in, r->nin, v, r->dist[v]);
        r->first[r->dist[v] + 1]++;
    }
    for (int t = 0; t <= b->diam; t++) {
        r->first[t + 1] += r->first[t];
    }
    int *pos = malloc(sizeof(int) * ((size_t)b->diam + 1));
    if (NULL == pos) {
        return TOPO_ENOMEM;
    }
    memcpy(pos, r->first, sizeof(int) * ((size_t)b->diam + 1));
    for (int v = 0; v < b->n; v++) {
        r->order[pos[r->dist[v]]++] = v;
    }
    free(pos);
    return TOPO_OK;
}

static void rx_free(bfb_rx_t *r)
{
    free(r->dist);
    free(r->mask);
    free(r->order);
    free(r->first);
    free(r->rank);
    free(r->pre);
}

/* Sources of step t at x grouped by eligible links: cnt[mask]. */
static void step_counts(const bfb_rx_t *r, int t, int *cnt)
{
    memset(cnt, 0, sizeof(int) * ((size_t)1 << r->nin));
    for (int j = r->first[t]; j < r->first[t + 1]; j++) {
        cnt[r->mask[r->order[j]]]++;
    }
}

static int translate = 1;

int topo_bfb_translate(int on)
{
    const int old = translate;
    translate = on;
    return old;
}

/* b->tr: a torus, every dimension periodic (and translate on). */
static void base_init(bfb_t *b)
{
    b->tr = 0;
    if (!translate || NULL != b->g || TOPO_NET_TORUS != b->t->kind) {
        return;
    }
    for (int i = 0; i < b->nd; i++) {
        if (!b->t->periodic[i]) {
            return;
        }
    }
    b->tr = 1;
}

/* What setup allocated (shared with a copy of b: freed once). */
static void bfb_free(bfb_t *b)
{
    free(b->co);
}

/* U*(t, x) = num / den in lowest terms (0 / 1 without sources), in-link
 * k of bandwidth bw[k]. */
static void optimum(int nin, const int *bw, const int *cnt, int64_t *num, int64_t *den)
{
    int64_t sub[BFB_MAX_MASK];
    const int nm = 1 << nin;
    for (int m = 0; m < nm; m++) {
        sub[m] = cnt[m];
    }
    for (int k = 0; k < nin; k++) { /* sub[Q] = sum over masks within Q */
        for (int m = 0; m < nm; m++) {
            if (m & (1 << k)) {
                sub[m] += sub[m ^ (1 << k)];
            }
        }
    }
    *num = 0;
    *den = 1;
    for (int q = 1; q < nm; q++) {
        int64_t size = 0;
        for (int k = 0; k < nin; k++) {
            size += ((q >> k) & 1) * bw[k];
        }
        if (sub[q] * *den > *num * size) {
            *num = sub[q];
            *den = size;
        }
    }
    const int64_t g = gcd64(*num, *den);
    *num /= g;
    *den /= g;
}

static int assign(const bfb_t *b, int nin, const int *inbw, const int *cnt, int nj,
                  int64_t *pre_all);

/*
 * Translated (a torus).  Rank 0's offsets c (coordinates, each in
 * [0, n_i)) stand for the sources x + c of every receiver x, at torus
 * distance t = sum_i min(c_i, n_i - c_i) and eligible over in-link
 * (i, +) (from x + e_i) where 1 <= c_i <= n_i / 2, over (i, -) where
 * n_i / 2 <= c_i <= n_i - 1 (both at c_i = n_i / 2 on an even ring; a
 * ring of 2 has the + link only).  Each step is solved once on these
 * offsets (assign), and a group's members (the offsets of one eligible
 * mask) take consecutive stream positions in one fixed order, so every
 * receiver's split is rank 0's translated: a group's i-th member is the
 * i-th at every receiver (rather than the i-th in rank order there,
 * which wrap-around reorders).
 *
 * The members are generated as runs, never one by one: for each choice
 * of the coordinates but the last two (at most distance t), the last two
 * dimensions' offsets at the remaining distance r, of one class each
 * (0, + side 1 .. (n - 1) / 2, - side, the tie n / 2), are one
 * arithmetic progression (both coordinates moving by +-1), its length
 * read off the classes' ranges: O(1) runs per step on a 2-D torus, O(n_0)
 * on a 3-D one.  Translated by x, a run keeps one rank stride between
 * the points where a coordinate wraps (at most one per dimension), and
 * each such piece is one strided run of ranges (topo_sched_ranges).
 * Transfers list a link's groups in ascending mask, each group's members
 * in order.
 */
typedef struct {
    int first; /* its first member's index in the group */
    int len;
    unsigned mask;
    int c0[TOPO_MAX_DIMS]; /* the first member's offset */
    int dc[TOPO_MAX_DIMS]; /* the step from one member to the next */
} bfb_run_t;

typedef struct {
    int nin, inbw[BFB_MAX_NB];
    int plus[TOPO_MAX_DIMS], minus[TOPO_MAX_DIMS]; /* in-link of (i, +/-), or -1 */
    int ng, gm[BFB_MAX_MASK], gcnt[BFB_MAX_MASK]; /* the step's groups, ascending mask */
    int grun[BFB_MAX_MASK + 1];                   /* group g's runs: run[grun[g] .. grun[g + 1]) */
    int64_t *pre;                                 /* [2^nin (nin + 1)], by mask (assign) */
    bfb_run_t *run, *tmp; /* the step's runs by group; as generated */
    int nrun, cap;
    int counting; /* cnt only (tcount) */
    int cnt[BFB_MAX_MASK];
    int err;
} bfb_tstep_t;

static int tstep_init(const bfb_t *b, bfb_tstep_t *ts)
{
    int in[BFB_MAX_NB];
    memset(ts, 0, sizeof(*ts));
    ts->nin = neighbours_dir(b, 0, in, ts->inbw, 0);
    for (int i = 0, k = 0; i < b->nd; i++) { /* neighbours_dir's order */
        const int n = b->t->dims[i];
        ts->plus[i] = n >= 2 ? k++ : -1;
        ts->minus[i] = n >= 3 ? k++ : -1;
    }
    ts->pre = malloc(sizeof(int64_t) * ((size_t)1 << ts->nin) * ((size_t)ts->nin + 1));
    return NULL == ts->pre ? TOPO_ENOMEM : TOPO_OK;
}

static void tstep_free(bfb_tstep_t *ts)
{
    free(ts->pre);
    free(ts->run);
    free(ts->tmp);
}

/* The eligible in-links of offset c in dimension i. */
static unsigned tbits(const bfb_t *b, const bfb_tstep_t *ts, int i, int c)
{
    const int n = b->t->dims[i];
    unsigned m = 0;
    if (ts->plus[i] >= 0 && c >= 1 && c <= n / 2) {
        m |= 1u << ts->plus[i];
    }
    if (ts->minus[i] >= 0 && c >= (n + 1) / 2 && c <= n - 1) {
        m |= 1u << ts->minus[i];
    }
    return m;
}

/* The run of len members from offset c (its first nd - 2 coordinates;
 * the last two cp, cq moving by dp, dq), of eligible mask: counted, or
 * kept in ts->tmp. */
static void tadd(const bfb_t *b, bfb_tstep_t *ts, const int *c, int cp, int cq, int dp, int dq,
                 int len, unsigned mask)
{
    const int nd = b->nd;
    if (len <= 0 || ts->err) {
        return;
    }
    ts->cnt[mask] += len;
    if (ts->counting) {
        return;
    }
    if (ts->nrun == ts->cap) {
        const int cap = ts->cap ? 2 * ts->cap : 64;
        bfb_run_t *tmp = realloc(ts->tmp, sizeof(*tmp) * (size_t)cap);
        bfb_run_t *run = NULL != tmp ? realloc(ts->run, sizeof(*run) * (size_t)cap) : NULL;
        ts->tmp = NULL != tmp ? tmp : ts->tmp;
        ts->run = NULL != run ? run : ts->run;
        if (NULL == run) {
            ts->err = TOPO_ENOMEM;
            return;
        }
        ts->cap = cap;
    }
    bfb_run_t *u = &ts->tmp[ts->nrun++];
    memset(u, 0, sizeof(*u));
    u->len = len;
    u->mask = mask;
    memcpy(u->c0, c, sizeof(int) * (size_t)nd);
    if (1 == nd) {
        u->c0[0] = cq;
        u->dc[0] = dq;
    } else {
        u->c0[nd - 2] = cp;
        u->c0[nd - 1] = cq;
        u->dc[nd - 2] = dp;
        u->dc[nd - 1] = dq;
    }
}

/* Dimension i's offsets at distance d (min(c, n - c) = d): how many (0,
 * 1 or 2), ascending, in v. */
static int tvals(const bfb_t *b, int i, int d, int *v)
{
    const int n = b->t->dims[i];
    if (d < 0 || d > n / 2) {
        return 0;
    }
    v[0] = d;
    v[1] = n - d;
    return 0 == d || n - d == d ? 1 : 2;
}

/* The last two dimensions p = nd - 2, q = nd - 1 at distance r (the
 * first nd - 2 coordinates in c, their links `mask`); a ring's one
 * dimension where nd = 1.  The classes of a dimension of size n: the
 * singles 0 and (n even) n / 2, and the sides + (1 .. h, h = (n - 1) / 2)
 * and - (n - h .. n - 1). */
static void tpair(const bfb_t *b, bfb_tstep_t *ts, const int *c, int r, unsigned mask)
{
    const int nd = b->nd;
    int v[2], w[2];
    if (1 == nd) {
        for (int k = 0, nv = tvals(b, 0, r, v); k < nv; k++) {
            tadd(b, ts, c, 0, v[k], 0, 0, 1, mask | tbits(b, ts, 0, v[k]));
        }
        return;
    }
    const int p = nd - 2, q = nd - 1, n = b->t->dims[p], m = b->t->dims[q];
    const int hp = (n - 1) / 2, hq = (m - 1) / 2;
    /* the singles: 0, and n / 2 on an even ring */
    const int sp[2] = {0, n / 2}, nsp = 0 == n % 2 ? 2 : 1;
    const int sq[2] = {0, m / 2}, nsq = 0 == m % 2 ? 2 : 1;
    /* p single: every class of q */
    for (int i = 0; i < nsp; i++) {
        const unsigned bp = tbits(b, ts, p, sp[i]);
        for (int k = 0, nw = tvals(b, q, r - sp[i], w); k < nw; k++) {
            tadd(b, ts, c, sp[i], w[k], 0, 0, 1, mask | bp | tbits(b, ts, q, w[k]));
        }
    }
    /* p on a side (1 <= dp <= hp, either sign), q single */
    for (int i = 0; i < nsq; i++) {
        const int dp = r - sq[i];
        if (dp >= 1 && dp <= hp) {
            const unsigned bq = tbits(b, ts, q, sq[i]);
            tadd(b, ts, c, dp, sq[i], 0, 0, 1, mask | tbits(b, ts, p, dp) | bq);
            tadd(b, ts, c, n - dp, sq[i], 0, 0, 1, mask | tbits(b, ts, p, n - dp) | bq);
        }
    }
    /* both on a side: dp in [lo, hi], dq = r - dp in [1, hq] */
    const int lo = r - hq > 1 ? r - hq : 1, hi = r - 1 < hp ? r - 1 : hp;
    if (lo > hi) {
        return;
    }
    const int len = hi - lo + 1;
    const unsigned pp = tbits(b, ts, p, 1), pm = tbits(b, ts, p, n - 1);
    const unsigned qp = tbits(b, ts, q, 1), qm = tbits(b, ts, q, m - 1);
    /* p +: c_p = dp up from lo; p -: c_p = n - dp up from n - hi */
    tadd(b, ts, c, lo, r - lo, 1, -1, len, mask | pp | qp);
    tadd(b, ts, c, lo, m - r + lo, 1, 1, len, mask | pp | qm);
    tadd(b, ts, c, n - hi, r - hi, 1, 1, len, mask | pm | qp);
    tadd(b, ts, c, n - hi, m - r + hi, 1, -1, len, mask | pm | qm);
}

/* The offsets of dimensions i .. nd - 3 (c[0 .. i) fixed, their links
 * `mask`) with at most r of distance, then tpair. */
static void tenum(const bfb_t *b, bfb_tstep_t *ts, int i, int r, int *c, unsigned mask)
{
    if (i >= b->nd - 2) {
        tpair(b, ts, c, r, mask);
        return;
    }
    const int n = b->t->dims[i];
    /* min(v, n - v) <= r: v in [0, r] and [n - r, n) */
    const int hi = r < n - 1 ? r : n - 1, lo2 = n - r > hi + 1 ? n - r : hi + 1;
    for (int v = 0; v <= hi && !ts->err; v++) {
        c[i] = v;
        tenum(b, ts, i + 1, r - (v < n - v ? v : n - v), c, mask | tbits(b, ts, i, v));
    }
    for (int v = lo2; v < n && !ts->err; v++) {
        c[i] = v;
        tenum(b, ts, i + 1, r - (n - v), c, mask | tbits(b, ts, i, v));
    }
}

/* cnt of step t (the sources at distance t by eligible mask). */
static void tcount(const bfb_t *b, bfb_tstep_t *ts, int t)
{
    int c[TOPO_MAX_DIMS] = {0};
    memset(ts->cnt, 0, sizeof(int) * ((size_t)1 << ts->nin));
    ts->counting = 1;
    tenum(b, ts, 0, t, c, 0);
    ts->counting = 0;
}

/* Step t solved on rank 0's offsets: its groups, their runs and split. */
static int tsolve(const bfb_t *b, bfb_tstep_t *ts, int t)
{
    int c[TOPO_MAX_DIMS] = {0}, nj = 0;
    memset(ts->cnt, 0, sizeof(int) * ((size_t)1 << ts->nin));
    ts->nrun = 0;
    ts->ng = 0;
    ts->grun[0] = 0;
    tenum(b, ts, 0, t, c, 0);
    if (ts->err) {
        return ts->err;
    }
    for (int m = 0; m < (1 << ts->nin); m++) {
        nj += ts->cnt[m];
    }
    if (0 == nj) {
        return TOPO_OK;
    }
    const int rc = assign(b, ts->nin, ts->inbw, ts->cnt, nj, ts->pre);
    if (TOPO_OK != rc) {
        return rc;
    }
    /* the runs by group, ascending mask, each group's in generation order
     * (a stable counting sort), numbered by member */
    int pos[BFB_MAX_MASK], idx[BFB_MAX_MASK];
    int nr[BFB_MAX_MASK];
    memset(nr, 0, sizeof(int) * ((size_t)1 << ts->nin));
    for (int j = 0; j < ts->nrun; j++) {
        nr[ts->tmp[j].mask]++;
    }
    for (int m = 0, at = 0; m < (1 << ts->nin); m++) {
        pos[m] = at;
        idx[m] = 0;
        at += nr[m];
        if (ts->cnt[m] > 0) {
            ts->gm[ts->ng] = m;
            ts->gcnt[ts->ng] = ts->cnt[m];
            ts->grun[ts->ng] = pos[m];
            ts->grun[++ts->ng] = at;
        }
    }
    for (int j = 0; j < ts->nrun; j++) {
        bfb_run_t *u = &ts->run[pos[ts->tmp[j].mask]++];
        *u = ts->tmp[j];
        u->first = idx[u->mask];
        idx[u->mask] += u->len;
    }
    return TOPO_OK;
}

/* An empty send to peer, or receive of kind `kind`: the transfer that
 * the ranges appended next extend (emit, temit). */
static void open_xfer(topo_sched_t *s, int peer, int send, topo_xfer_kind_t kind)
{
    if (send) {
        topo_sched_send(s, peer, 0, 0);
    } else {
        topo_sched_recv(s, peer, kind, 0, 0);
    }
}

/* Run u's member j's offset into c. */
static void tmember(const bfb_t *b, const bfb_run_t *u, int j, int *c)
{
    for (int i = 0; i < b->nd; i++) {
        c[i] = u->c0[i] + (j - u->first) * u->dc[i];
    }
}

/* Receiver x's source of offset c, as a rank. */
static int tsource(const bfb_t *b, const int *cx, const int *c)
{
    int r = 0;
    for (int i = 0; i < b->nd; i++) {
        const int n = b->t->dims[i], e = cx[i] + c[i];
        r = r * n + (e >= n ? e - n : e);
    }
    return r;
}

/* Members j .. j + len - 1 of run u (all their K parts) at the receiver
 * of coordinates cx: strided runs between the points where a coordinate
 * wraps. */
static void tfull(topo_sched_t *s, const bfb_t *b, const bfb_run_t *u, const int *cx, int j,
                  int len)
{
    const int nd = b->nd, K = b->K;
    int c[TOPO_MAX_DIMS], stride = 0;
    tmember(b, u, j, c);
    for (int i = 0; i < nd; i++) {
        stride = stride * b->t->dims[i] + u->dc[i];
    }
    while (len > 0 && !s->err) {
        int piece = len;
        for (int i = 0; i < nd; i++) {
            const int n = b->t->dims[i], e = cx[i] + c[i], dc = u->dc[i];
            int k = piece;
            if (dc > 0 && e < n) { /* wraps once e + k dc reaches n */
                k = (n - e + dc - 1) / dc;
            } else if (dc < 0 && e >= n) { /* unwraps once below n */
                k = (e - n + 1 + (-dc) - 1) / (-dc);
            }
            piece = k < piece ? k : piece;
        }
        topo_sched_ranges(s, tsource(b, cx, c) * K, K, stride * K, piece);
        for (int i = 0; i < nd; i++) {
            c[i] += piece * u->dc[i];
        }
        len -= piece;
    }
}

/* The translated emit: the transfer between this rank and peer of the
 * parts at receiver x that go over its in-link k (the step tsolve
 * solved). */
static void temit(topo_sched_t *s, const bfb_t *b, const bfb_tstep_t *ts, int x, int k, int peer,
                  int send, topo_xfer_kind_t kind)
{
    const int64_t K = b->K;
    int cx[TOPO_MAX_DIMS], opened = 0;
    topo_topology_coords(b->t, x, cx);
    for (int g = 0; g < ts->ng; g++) {
        const int64_t *pre = &ts->pre[(size_t)ts->gm[g] * ((size_t)ts->nin + 1)];
        const int64_t F0 = pre[k], F1 = pre[k + 1];
        if (F1 <= F0) {
            continue;
        }
        if (!opened) {
            open_xfer(s, peer, send, kind);
            opened = 1;
        }
        /* members i0 .. i1, the first and last possibly in part */
        const int i0 = (int)(F0 / K), i1 = (int)((F1 - 1) / K);
        for (int r = ts->grun[g]; r < ts->grun[g + 1] && !s->err; r++) {
            const bfb_run_t *u = &ts->run[r];
            int ja = u->first > i0 ? u->first : i0;
            int jb = u->first + u->len - 1 < i1 ? u->first + u->len - 1 : i1;
            if (ja > jb) {
                continue;
            }
            int c[TOPO_MAX_DIMS];
            if (ja == i0 && (F0 % K != 0 || (i0 == i1 && F1 - i0 * K < K))) {
                tmember(b, u, ja, c);
                const int lo = (int)(F0 - i0 * K), hi = (int)(F1 - i0 * K < K ? F1 - i0 * K : K);
                topo_sched_range(s, tsource(b, cx, c) * (int)K + lo, hi - lo);
                ja++;
            }
            const int last_part = jb == i1 && ja <= jb && F1 - i1 * K < K;
            if (jb - last_part >= ja) {
                tfull(s, b, u, cx, ja, jb - last_part - ja + 1);
            }
            if (last_part) {
                tmember(b, u, jb, c);
                topo_sched_range(s, tsource(b, cx, c) * (int)K, (int)(F1 - i1 * K));
            }
        }
    }
}

/* The lcm of the denominators of U*(t, x) over every step and receiver:
 * > 0, 0 when N K would exceed what a schedule can number, -1 without
 * memory. */
static int parts_all(const bfb_t *b)
{
    int64_t K = 1;
    int cnt[BFB_MAX_MASK];
    for (int x = 0; x < b->n; x++) {
        bfb_rx_t r;
        if (TOPO_OK != rx_init(b, &r, x)) {
            rx_free(&r);
            return -1;
        }
        for (int t = 1; t <= b->diam; t++) {
            int64_t num, den;
            step_counts(&r, t, cnt);
            optimum(r.nin, r.inbw, cnt, &num, &den);
            K = K / gcd64(K, den) * den;
            if (K * b->n > INT32_MAX) {
                rx_free(&r);
                return 0;
            }
        }
        rx_free(&r);
    }
    return (int)K;
}

/* Parts per shard (see the head comment): > 0, 0 when too many, -1
 * without memory. */
static int parts(const bfb_t *b, const bfb_rx_t *r0)
{
    int64_t K = 1;
    int cnt[BFB_MAX_MASK];
    if (NULL != b->g) {
        /* computed once per graph (every rank of a process shares it) */
        /* threads of a process may generate at once (communicators of
         * MPI_THREAD_MULTIPLE): relaxed atomics, each computing the same
         * value until one has stored it */
        topo_graph_t *g = (topo_graph_t *)b->g;
        int *cache = b->transpose ? &g->bfb_parts_t : &g->bfb_parts;
        int k = __atomic_load_n(cache, __ATOMIC_RELAXED);
        if (0 == k) {
            k = parts_all(b);
            if (k < 0) {
                return -1;
            }
            k = k > 0 ? k : -1;
            __atomic_store_n(cache, k, __ATOMIC_RELAXED);
        }
        return k > 0 ? k : 0;
    }
    if (b->tr) { /* every receiver's counts are rank 0's */
        bfb_tstep_t ts;
        if (TOPO_OK != tstep_init(b, &ts)) {
            tstep_free(&ts);
            return -1;
        }
        int last[BFB_MAX_MASK];
        const size_t cs = sizeof(int) * ((size_t)1 << ts.nin);
        for (int t = 1; t <= b->diam; t++) {
            int64_t num, den;
            tcount(b, &ts, t);
            if (t > 1 && 0 == memcmp(last, ts.cnt, cs)) {
                continue; /* the last step's again (a ring's) */
            }
            memcpy(last, ts.cnt, cs);
            optimum(ts.nin, ts.inbw, ts.cnt, &num, &den);
            K = K / gcd64(K, den) * den;
            if (K * b->n > INT32_MAX) {
                K = 0;
                break;
            }
        }
        tstep_free(&ts);
        return (int)K;
    }
    if (b->t->kind == TOPO_NET_TORUS) {
        for (int t = 1; t <= b->diam; t++) {
            int64_t num, den;
            step_counts(r0, t, cnt);
            optimum(r0->nin, r0->inbw, cnt, &num, &den);
            K = K / gcd64(K, den) * den;
        }
        return (int)K;
    }
    int big = 0;
    for (int i = 0; i < b->nd; i++) {
        big += b->t->dims[i] > 1;
    }
    if (big <= 1) {
        return 1; /* a line: every source has one in-link on its path */
    }
    if (b->n > 128) {
        /* every denominator is at most the in-degree; the exact lcm would
         * cost every rank O(p^2) */
        for (int k = 2; k <= b->maxnb; k++) {
            K = K / gcd64(K, k) * k;
        }
        return (int)K;
    }
    return parts_all(b);
}

/* The balanced split of one step at a receiver with nin in-links of
 * bandwidths inbw, whose nj sources count cnt[mask] by eligible links:
 * pre[m (nin + 1) + k], for each mask m with sources, the stream
 * position from which group m's parts go over in-link k (bfb_cut).
 * TOPO_OK, TOPO_EINVAL (no flow of K nj parts: not expected) or
 * TOPO_ENOMEM. */
static int assign(const bfb_t *b, int nin, const int *inbw, const int *cnt, int nj, int64_t *pre_all)
{
    const int K = b->K;
    int64_t num, den;
    optimum(nin, inbw, cnt, &num, &den);
    /* parts per unit of bandwidth; den divides K (parts), so link k's
     * capacity capl * bw[k] is exactly K U* b_k */
    const int64_t capl = (K * num + den - 1) / den;
    /* Flow network: 0 source, 1..G groups (masks with sources), then the
     * nin links, then the sink. */
    int gm[BFB_MAX_MASK], G = 0;
    for (int m = 1; m < (1 << nin); m++) {
        if (cnt[m] > 0) {
            gm[G++] = m;
        }
    }
    const int V = G + nin + 2, snk = V - 1;
    int64_t *cap = calloc((size_t)V * (size_t)V, sizeof(int64_t));
    int *prev = malloc(sizeof(int) * (size_t)V), *queue = malloc(sizeof(int) * (size_t)V);
    if (NULL == cap || NULL == prev || NULL == queue) {
        free(cap);
        free(prev);
        free(queue);
        return TOPO_ENOMEM;
    }
#define CAP(i, j) cap[(size_t)(i) * (size_t)V + (size_t)(j)]
    const int64_t inf = (int64_t)K * b->n + 1;
    for (int g = 0; g < G; g++) {
        CAP(0, 1 + g) = (int64_t)K * cnt[gm[g]];
        for (int k = 0; k < nin; k++) {
            if (gm[g] & (1 << k)) {
                CAP(1 + g, 1 + G + k) = inf;
            }
        }
    }
    for (int k = 0; k < nin; k++) {
        CAP(1 + G + k, snk) = capl * inbw[k];
    }
    int64_t total = 0;
    for (;;) { /* Edmonds-Karp: shortest augmenting paths */
        for (int i = 0; i < V; i++) {
            prev[i] = -1;
        }
        int head = 0, tail = 0;
        queue[tail++] = 0;
        prev[0] = 0;
        while (head < tail && prev[snk] < 0) {
            const int i = queue[head++];
            for (int j = 0; j < V; j++) {
                if (prev[j] < 0 && CAP(i, j) > 0) {
                    prev[j] = i;
                    queue[tail++] = j;
                }
            }
        }
        if (prev[snk] < 0) {
            break;
        }
        int64_t f = inf;
        for (int j = snk; j != 0; j = prev[j]) {
            f = CAP(prev[j], j) < f ? CAP(prev[j], j) : f;
        }
        for (int j = snk; j != 0; j = prev[j]) {
            CAP(prev[j], j) -= f;
            CAP(j, prev[j]) += f;
        }
        total += f;
    }
    int rc = total == (int64_t)K * nj ? TOPO_OK : TOPO_EINVAL;
    /* A group's flow on link k is the residual capacity of the reverse
     * edge.  Its sources' parts, in rank order, form a stream of K cnt
     * parts that its links take in link order: link k gets stream
     * positions [F_k, F_k+1), F_k the flow on the links before k, so the
     * i-th source of the group gives link k its parts [F_k - i K,
     * F_k+1 - i K) clipped to [0, K). */
    for (int g = 0; g < G; g++) {
        int64_t F = 0, *pre = &pre_all[(size_t)gm[g] * ((size_t)nin + 1)];
        for (int k = 0; k < nin; k++) {
            pre[k] = F;
            F += CAP(1 + G + k, 1 + g);
        }
        pre[nin] = F; /* K cnt: the last source's parts end at K */
    }
#undef CAP
    free(cap);
    free(prev);
    free(queue);
    return rc;
}

/* Solve step t at receiver x: fill r->rank and r->pre for the sources
 * at distance t (in r->order). */
static int solve(const bfb_t *b, bfb_rx_t *r, int t)
{
    const int j0 = r->first[t], nj = r->first[t + 1] - j0;
    if (nj == 0) {
        return TOPO_OK;
    }
    int cnt[BFB_MAX_MASK];
    step_counts(r, t, cnt);
    const int rc = assign(b, r->nin, r->inbw, cnt, nj, r->pre);
    int seen[BFB_MAX_MASK];
    memset(seen, 0, sizeof(seen));
    for (int j = 0; rc == TOPO_OK && j < nj; j++) {
        r->rank[j] = seen[r->mask[r->order[j0 + j]]]++;
    }
    return rc;
}

/* The parts of the j-th source of solve's step at r (the sources from
 * order[j0] on) that go over in-link k: [*lo, *hi). */
static void bfb_cut(const bfb_t *b, const bfb_rx_t *r, int j0, int j, int k, int *lo, int *hi)
{
    const int64_t K = b->K, base = K * r->rank[j];
    const int64_t *pre = &r->pre[(size_t)r->mask[r->order[j0 + j]] * ((size_t)r->nin + 1)];
    const int64_t c0 = pre[k] - base, c1 = pre[k + 1] - base;
    *lo = (int)(c0 < 0 ? 0 : c0 > K ? K : c0);
    *hi = (int)(c1 < 0 ? 0 : c1 > K ? K : c1);
}

/* The transfer between this rank and peer of the blocks at receiver r
 * whose link is k, step t: a send, or a receive of kind `kind`. */
static void emit(topo_sched_t *s, const bfb_t *b, const bfb_rx_t *r, int t, int k, int peer,
                 int send, topo_xfer_kind_t kind)
{
    const int j0 = r->first[t], nj = r->first[t + 1] - j0;
    int opened = 0;
    for (int j = 0; j < nj; j++) {
        int lo, hi;
        bfb_cut(b, r, j0, j, k, &lo, &hi);
        if (hi <= lo) {
            continue;
        }
        if (!opened) {
            open_xfer(s, peer, send, kind);
            opened = 1;
        }
        /* adjacent runs of consecutive sources merge into one range */
        topo_sched_range(s, r->order[j0 + j] * b->K + lo, hi - lo);
    }
}

/* This rank's receiver sides: its own and its out-neighbours' (the
 * receivers it feeds), each computed from the distances; or, on a torus
 * (ts), every receiver's from the one solution of rank 0's offsets. */
typedef struct {
    bfb_rx_t self, nbr[BFB_MAX_OUT];
    int nnb, nb[BFB_MAX_OUT];
    bfb_tstep_t *ts;
} bfb_sides_t;

/* One step of the allgather (step t), or of the reduce-scatter (rs: the
 * allgather's step t reversed). */
static int bfb_step(topo_sched_t *s, const bfb_t *b, bfb_sides_t *sd, int t, int rs)
{
    int rc = TOPO_OK;
    if (NULL != sd->ts) {
        rc = tsolve(b, sd->ts, t);
    } else {
        rc = solve(b, &sd->self, t);
        for (int i = 0; rc == TOPO_OK && i < sd->nnb; i++) {
            rc = solve(b, &sd->nbr[i], t);
        }
    }
    if (rc != TOPO_OK) {
        return rc;
    }
    topo_sched_step(s);
    int in[BFB_MAX_NB], nin = sd->self.nin;
    if (NULL != sd->ts) {
        nin = neighbours_dir(b, s->rank, in, NULL, 0);
    } else {
        memcpy(in, sd->self.in, sizeof(int) * (size_t)nin);
    }
    /* sends first, then receives, each in neighbour order */
    for (int pass = 0; pass < 2; pass++) {
        const int send = pass == 0;
        if (send == !rs) { /* the receivers this rank feeds in the allgather */
            for (int i = 0; i < sd->nnb; i++) {
                int yin[BFB_MAX_NB], ny;
                const int *iny = yin, y = sd->nb[i];
                if (NULL != sd->ts) {
                    ny = neighbours_dir(b, y, yin, NULL, 0);
                } else {
                    ny = sd->nbr[i].nin;
                    iny = sd->nbr[i].in;
                }
                for (int k = 0; k < ny; k++) {
                    if (iny[k] != s->rank) {
                        continue;
                    }
                    if (NULL != sd->ts) {
                        temit(s, b, sd->ts, y, k, y, send, TOPO_XFER_RECV_REDUCE);
                    } else {
                        emit(s, b, &sd->nbr[i], t, k, y, send, TOPO_XFER_RECV_REDUCE);
                    }
                }
            }
        } else { /* this rank's own in-links */
            const topo_xfer_kind_t kind = rs ? TOPO_XFER_RECV_REDUCE : TOPO_XFER_RECV_COPY;
            for (int k = 0; k < nin; k++) {
                if (NULL != sd->ts) {
                    temit(s, b, sd->ts, s->rank, k, in[k], send, kind);
                } else {
                    emit(s, b, &sd->self, t, k, in[k], send, kind);
                }
            }
        }
    }
    return TOPO_OK;
}

/* b for the call a: TOPO_OK, or TOPO_ENOTSUP when bfb does not fit
 * (topo_fits_bfb says why), TOPO_ENOMEM.  K is left to the caller. */
static int setup(bfb_t *b, const topo_gen_args_t *a)
{
    const topo_topology_t *t = a->topo;
    memset(b, 0, sizeof(*b));
    b->t = t;
    b->n = a->size;
    if (TOPO_NET_GRAPH == t->kind) {
        if (!topo_topology_routes(t, a->size) || NULL != t->place ||
            t->graph->max_in > BFB_MAX_NB || t->graph->max_out > BFB_MAX_NB) {
            return TOPO_ENOTSUP;
        }
        b->g = t->graph;
        b->diam = b->g->diam;
        b->maxnb = b->g->max_in > b->g->max_out ? b->g->max_in : b->g->max_out;
        return TOPO_OK;
    }
    const int grid = t->kind == TOPO_NET_TORUS || t->kind == TOPO_NET_MESH;
    int big = 0;
    for (int i = 0; grid && i < t->ndims; i++) {
        big += t->dims[i] > 1;
    }
    if (!grid || !topo_topology_is_grid_of(t, a->size) || big > BFB_MAX_DIMS) {
        return TOPO_ENOTSUP;
    }
    b->nd = t->ndims;
    for (int i = 0; i < b->nd; i++) {
        const int n = t->dims[i];
        b->diam += t->periodic[i] ? n / 2 : n - 1;
        b->maxnb += n > 2 ? 2 : n - 1;
    }
    base_init(b);
    if (b->tr) {
        return TOPO_OK; /* no table of every rank's coordinates */
    }
    b->co = malloc(sizeof(int) * (size_t)b->n * (size_t)b->nd + 1);
    if (NULL == b->co) {
        return TOPO_ENOMEM;
    }
    for (int v = 0; v < b->n; v++) {
        topo_topology_coords(t, v, &b->co[v * b->nd]);
    }
    return TOPO_OK;
}

/* K for b (rank 0's offsets on a torus, every receiver elsewhere;
 * cached in a graph): TOPO_OK, TOPO_ENOTSUP (too many blocks) or
 * TOPO_ENOMEM. */
static int setup_parts(bfb_t *b)
{
    bfb_rx_t r0;
    memset(&r0, 0, sizeof(r0));
    b->K = 1;
    int rc = b->tr ? TOPO_OK : rx_init(b, &r0, 0);
    if (TOPO_OK == rc) {
        const int K = parts(b, b->tr ? NULL : &r0);
        rc = K < 0 ? TOPO_ENOMEM : 0 == K ? TOPO_ENOTSUP : TOPO_OK;
        b->K = K > 0 ? K : 1;
        if (TOPO_OK == rc && (int64_t)b->n * b->K > INT32_MAX) {
            rc = TOPO_ENOTSUP; /* more blocks than a schedule can number */
        }
    }
    rx_free(&r0);
    return rc;
}

/* A ring (one periodic dimension, rank 0's tables translated) of at
 * least 5 ranks with at least 3 steps: its steps 1 .. D - 1 are one step
 * with shifting blocks (below). */
static int ring_repeats(const bfb_t *b)
{
    return NULL == b->g && b->tr && 1 == b->nd && b->n >= 5 && b->diam >= 3;
}

/* One phase on a ring, its steps 1 .. D - 1 stored once.  In those steps
 * every receiver u has two sources, u + t over in-link 0 (from u + 1) and
 * u - t over in-link 1 (from u - 1), each wholly on its one eligible link
 * (only step D, on an even ring, splits the one source u + N / 2 between
 * both).  So this rank x's transfers of step t are, in bfb_step's order,
 * the allgather's: send to x + 1 shard x + 1 - t, send to x - 1 shard
 * x - 1 + t, receive from x + 1 shard x + t, from x - 1 shard x - t; the
 * reduce-scatter's (step t reversed): send to x + 1 shard x + t, to x - 1
 * shard x - t, receive from x + 1 shard x + 1 - t, from x - 1 shard
 * x - 1 + t.  From one step to the next (t + 1 in the allgather, t - 1 in
 * the reduce-scatter) the shards move by -1, +1, +1, -1 in both: K blocks
 * each, modulo the N K blocks, and the peers stay.  Steps 1 and D (and
 * D - 1, the reduce-scatter's template) are solved and emitted as in
 * general; topo_sched_repeat stores the explicit steps if a repetition
 * did not keep its form, so the schedule is the explicit one either way. */
static int ring_phase(topo_sched_t *s, const bfb_t *b, bfb_sides_t *sd, int rs)
{
    const int D = b->diam, NK = b->n * b->K;
    const topo_shift_t dn = {0, -b->K, 0, NK, 1, 0, 0}, up = {0, b->K, 0, NK, 1, 0, 0};
    const topo_shift_t sh[4] = {dn, up, up, dn};
    int rc = TOPO_OK;
    if (rs) {
        rc = bfb_step(s, b, sd, D, 1);
        rc = TOPO_OK == rc ? bfb_step(s, b, sd, D - 1, 1) : rc;
        if (TOPO_OK == rc) {
            topo_sched_repeat(s, 1, D - 2, sh, 4);
        }
        return rc;
    }
    /* The allgather's receives may be direct, which a repetition keeps
     * only where ranges moving differently stay apart over the run: their
     * windows (what each can cover) disjoint (topo_sched_repeat).  So the
     * shards moving up (x - 1 + t sent, x + t received) share one window,
     * those moving down (x + 1 - t sent, x - t received) another, each
     * exactly the shards they pass over in a run, and a run lasts while
     * neither family wraps (N - 1 to 0) nor straddles the wrap.  From step
     * 2 on the windows are apart: a shard of both would need t + t' to be
     * 0, 1 or 2 modulo N for steps t, t' in 2 .. D - 1 (4 <= t + t' <=
     * N - 2).  Step 1 (x's own shard sent both ways) is emitted alone; at
     * most 5 runs follow. */
    const int x = s->rank, N = b->n, K = b->K;
    rc = bfb_step(s, b, sd, 1, 0);
    for (int t0 = 2; TOPO_OK == rc && t0 <= D - 1;) {
        rc = bfb_step(s, b, sd, t0, 0);
        int t1 = t0; /* the run's last step */
        const int s1 = (x - 1 + t0 + N) % N, s0 = ((x + 1 - t0) % N + N) % N;
        for (int straddles = N - 1 == s1 || 0 == s0; !straddles;) {
            const int v0 = ((x + 1 - t1) % N + N) % N, v1 = (x - 1 + t1 + N) % N;
            const int v2 = (v1 + 1) % N, v3 = (v0 - 1 + N) % N;
            if (t1 + 1 > D - 1 || N - 1 == v2 || 0 == v3) {
                break; /* the last step, or a family straddling the wrap next */
            }
            t1++;
        }
        const int lo_up = (x - 1 + t0 + N) % N, lo_dn = ((x - t1) % N + N) % N;
        const int w = (t1 - t0 + 2) * K;
        const topo_shift_t up = {0, K, lo_up * K, w, 1, 0, 0}, dn = {0, -K, lo_dn * K, w, 1, 0, 0};
        const topo_shift_t run[4] = {dn, up, up, dn};
        if (TOPO_OK == rc) {
            topo_sched_repeat(s, 1, t1 - t0, run, 4);
        }
        t0 = t1 + 1;
    }
    return TOPO_OK == rc ? bfb_step(s, b, sd, D, 0) : rc;
}

/* This rank's steps of `mode`: the reduce-scatter (bt's allgather
 * reversed) and, or, the allgather (b's).  The receivers' sides (rx_init,
 * O(N) each) depend on the distances and links only, not on K, and on a
 * grid bt's are b's (a grid is its own transpose): an allreduce there
 * initialises them once for both phases (solve recomputes each step's
 * assignment). */
static int phases(topo_sched_t *s, const bfb_t *b, const bfb_t *bt, int rank, topo_prim_t mode)
{
    bfb_sides_t sd;
    bfb_tstep_t ts;
    int ready = 0, rc = TOPO_OK;
    memset(&sd, 0, sizeof(sd));
    memset(&ts, 0, sizeof(ts));
    for (int rs = 1; TOPO_OK == rc && rs >= 0; rs--) {
        const bfb_t *p = rs ? bt : b;
        if ((rs && TOPO_PRIM_ALLGATHER == mode) || (!rs && TOPO_PRIM_REDUCE_SCATTER == mode)) {
            continue;
        }
        if (ready && NULL != b->g) { /* a graph's transpose: its own sides */
            rx_free(&sd.self);
            for (int i = 0; i < sd.nnb; i++) {
                rx_free(&sd.nbr[i]);
            }
            memset(&sd, 0, sizeof(sd));
            ready = 0;
        }
        if (!ready) {
            sd.nnb = neighbours_dir(p, rank, sd.nb, NULL, 1);
            if (p->tr) {
                rc = tstep_init(p, &ts);
                sd.ts = &ts;
            } else {
                rc = rx_init(p, &sd.self, rank);
                for (int i = 0; i < sd.nnb; i++) {
                    rc = TOPO_OK == rc ? rx_init(p, &sd.nbr[i], sd.nb[i]) : rc;
                }
            }
            ready = 1;
        }
        if (TOPO_OK == rc && ring_repeats(p)) {
            rc = ring_phase(s, p, &sd, rs);
        } else if (rs) {
            for (int st = p->diam; TOPO_OK == rc && st >= 1; st--) {
                rc = bfb_step(s, p, &sd, st, 1);
            }
        } else {
            for (int st = 1; TOPO_OK == rc && st <= p->diam; st++) {
                rc = bfb_step(s, p, &sd, st, 0);
            }
        }
    }
    rx_free(&sd.self);
    for (int i = 0; i < sd.nnb; i++) {
        rx_free(&sd.nbr[i]);
    }
    tstep_free(&ts);
    return rc;
}

/* b (the allgather's) and bt (the reduce-scatter's: on a graph the
 * transpose, whose allgather reversed runs on the graph's own links) with
 * one K that suits the phases of `mode`. */
static int setup_both(bfb_t *b, bfb_t *bt, const topo_gen_args_t *a, topo_prim_t mode)
{
    int rc = setup(b, a);
    *bt = *b; /* the grid's tables shared: the caller frees b's (bfb_free) */
    bt->transpose = NULL != b->g;
    if (TOPO_OK == rc && mode != TOPO_PRIM_REDUCE_SCATTER) {
        rc = setup_parts(b);
    }
    if (TOPO_OK == rc && mode != TOPO_PRIM_ALLGATHER) {
        if (bt->transpose || mode == TOPO_PRIM_REDUCE_SCATTER) {
            rc = setup_parts(bt);
        } else {
            bt->K = b->K; /* a grid is its own transpose */
        }
    }
    if (TOPO_OK == rc) {
        const int64_t K = TOPO_PRIM_ALLGATHER == mode        ? b->K
                          : TOPO_PRIM_REDUCE_SCATTER == mode ? bt->K
                                                             : b->K / gcd64(b->K, bt->K) * bt->K;
        if (K * b->n > INT32_MAX) {
            rc = TOPO_ENOTSUP;
        }
        b->K = bt->K = (int)(TOPO_OK == rc ? K : 1);
    }
    return rc;
}

static int gen_bfb(topo_sched_t *s, const topo_gen_args_t *a, topo_prim_t mode)
{
    bfb_t b, bt;
    int rc = setup_both(&b, &bt, a, mode);
    if (TOPO_OK != rc) {
        bfb_free(&b);
        topo_sched_init(s, a->size, a->rank, 1);
        return rc; /* ENOTSUP: not a candidate (topo_fits_bfb) */
    }
    topo_sched_init(s, b.n, a->rank, b.n * b.K);
    s->runs = 1; /* equal ranges at equal distances: strided runs */
    if (mode != TOPO_PRIM_ALLREDUCE) {
        s->nparts = b.K;
    }
    if (b.diam > 0) {
        topo_sched_lane(s);
        rc = phases(s, &b, &bt, a->rank, mode);
    }
    bfb_free(&b);
    if (TOPO_OK != rc) {
        return rc;
    }
    return topo_sched_finish(s);
}

int topo_fits_bfb(const topo_gen_args_t *a, char *why, size_t len)
{
    const topo_topology_t *t = a->topo;
    if (TOPO_NET_GRAPH == t->kind) {
        const topo_graph_t *g = t->graph;
        if (NULL != t->place || g->n != a->size) { /* TOPO_ALG_DIRECT */
            snprintf(why, len,
                     "bfb needs the communicator to be the whole graph (%d ranks) in order", g->n);
            return 0;
        }
        if (g->max_in > BFB_MAX_NB || g->max_out > BFB_MAX_NB) {
            snprintf(why, len,
                     "bfb balances links exactly for degrees up to %d; the graph has a rank "
                     "with %d links",
                     BFB_MAX_NB, g->max_in > g->max_out ? g->max_in : g->max_out);
            return 0;
        }
        bfb_t b, bt;
        int rc = setup_both(&b, &bt, a, TOPO_PRIM_ALLREDUCE);
        bfb_free(&b);
        if (TOPO_OK != rc) {
            snprintf(why, len,
                     "bfb on this graph needs more blocks than a schedule can number "
                     "(the balanced split's parts per shard times the ranks)");
            return 0;
        }
        return 1;
    }
    if (t->kind != TOPO_NET_TORUS && t->kind != TOPO_NET_MESH) {
        snprintf(why, len, "bfb needs a torus, mesh or graph topology of %d ranks", a->size);
        return 0;
    }
    if (!topo_topology_is_grid_of(t, a->size)) {
        snprintf(why, len, "bfb needs a torus or mesh topology of %d ranks%s", a->size,
                 NULL != t->place ? ", the communicator being the whole grid in order" : "");
        return 0;
    }
    int big = 0;
    for (int i = 0; i < t->ndims; i++) {
        big += t->dims[i] > 1;
    }
    if (big > BFB_MAX_DIMS) {
        snprintf(why, len,
                 "bfb balances links exactly on grids of at most %d dimensions larger "
                 "than 1, not %d",
                 BFB_MAX_DIMS, big);
        return 0;
    }
    return 1;
}

int topo_gen_allgather_bfb(topo_sched_t *s, const topo_gen_args_t *a)
{
    return gen_bfb(s, a, TOPO_PRIM_ALLGATHER);
}

int topo_gen_reduce_scatter_bfb(topo_sched_t *s, const topo_gen_args_t *a)
{
    return gen_bfb(s, a, TOPO_PRIM_REDUCE_SCATTER);
}

int topo_gen_allreduce_bfb(topo_sched_t *s, const topo_gen_args_t *a)
{
    return gen_bfb(s, a, TOPO_PRIM_ALLREDUCE);
}
