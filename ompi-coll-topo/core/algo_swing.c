/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Swing allreduce (De Sensi et al. 2024), latency-optimal (swing_lat) and
 * bandwidth-optimal (swing_bw).
 *
 * Peers (Swing eq. 2, rho read as below): on a ring of m nodes,
 * rho(s) = sum_{i<=s} (-2)^i = 1, -1, 3, -5, 11, ...; at step s an even node
 * r talks to r + rho(s) and an odd one to r - rho(s) (mod m).  For even m
 * this is a perfect matching at every step (rho is odd).
 *
 * Geometry: a torus or mesh whose size is the communicator's gives the
 * dimensions (row-major coordinates); anything else is one ring of `size`
 * ranks.  Multiport (sec. 4.1): the vector is cut into 2D parts, one lane
 * each: D plain collectives, collective j starting in the j-th dimension,
 * and D mirrored ones (rho negated, i.e. the plain algorithm conjugated by
 * the reflection c -> -c of each ring).  A lane takes its steps round-robin
 * over the dimensions that still have steps left (sec. 4.2), so
 * on unequal tori the lanes end up sharing the long dimension.  Dimensions
 * of size 1 have no steps; on dimensions of size 2 plain and mirrored talk
 * to the same neighbour, which is still correct (only the port use
 * differs).
 *
 * swing_bw: reduce-scatter then allgather.  Each lane's part has one block
 * per rank, indexed by position tuples of the Cartesian product of the
 * dimensions, so one step in dimension k moves (the 1-D set of dimension k)
 * x (the live sets of the other dimensions).  The live set of a ring node
 * after a step is its own block plus every block it still has to send; a
 * product of correct 1-D reduce-scatters composed this way is correct, and
 * the allgather is the exact time reverse of the reduce-scatter (every
 * transfer reversed, receive-reduce becoming receive-copy).  The 1-D
 * reduce-scatter on a ring of d nodes:
 *  - d a power of two: Listing 1, corrected: at step s node
 *    r sends S(r,s) = {q} + R(q, s+1), q = pi(r,s), where R(x,t) is every
 *    node x reaches through steps t..L-1; it keeps its own block and what
 *    it will send later; sizes halve.
 *  - d even, not a power of two: L = ceil(log2 d) steps of the same
 *    pattern, where a block that appears in several of a node's S(r,s) is
 *    sent only at its latest step (sec. 3.2, App. A.2:
 *    keep-latest; keep-earliest is wrong), and a node never sends its own
 *    block: for some sizes (10, 18, 20, 34..42, 66..84, 130, ...) the
 *    literal S(r,s) contains r itself (a path of later steps leads back to
 *    r), and r's own contribution is already where it belongs.  Every node
 *    then sends each other block exactly once (p-1 blocks in all, Psi = 1);
 *    step sizes do not halve (p = 10: 2, 4, 2, 1 blocks).
 *  - d odd (the paper's sketch, sec. 3.2 and fig. 3, completed here): the
 *    even algorithm runs on the first m = d-1 nodes, and the extra node
 *    x = d-1 exchanges single blocks directly: with each core node c, once,
 *    at a step chosen below, x sends c its contribution to block c and c
 *    sends x its contribution to block x (each a receive-reduce); in the
 *    allgather, in the mirrored step, x returns c's finished block x and
 *    gets back c's finished block c.  Neither block is touched by the even
 *    algorithm at that time (c never sends its own block c, and block x is
 *    outside the even algorithm), so any step works.  x contacts, nearest
 *    first (0, m-1, 1, m-2, ...), as many core nodes at step t as a core
 *    node sends blocks at step t, the last step the rest (d = 7: 2, 2, 2;
 *    the paper's 3, 2, 1 would make x send more than anyone at step 0), so
 *    in any step no node sends more than a core node plus one block.
 *    Cost: L = ceil(log2(d-1)) steps each way (for d = 2^k + 1 one step
 *    fewer than ceil(log2 d), since x posts several messages per step);
 *    every node sends d-1 blocks in all (the optimum), and the per-step
 *    maximum is one block (n/d) above the even algorithm's in each step,
 *    at most 2L/d in all (the paper says +1/p).  Folding instead would
 *    add two whole-vector steps.
 * The block order inside a dimension follows a laminar order
 * (the step tree of node 0), so for powers of two every 1-D set is one
 * contiguous range and a lane's transfers are boxes of few ranges; any
 * order is correct, other sizes just get more ranges.
 *
 * swing_lat: at every step each lane exchanges its whole part with the
 * same peers (sec. 3.1.2).  Whole-part exchange double-counts at sizes that
 * are not powers of two, so every dimension that is not a power of two is
 * first folded onto the largest power of two (algo.h, Lu 2026a App. B.3), one
 * fold-in step per such dimension before the Swing steps and one fold-out
 * step after (mirrored lanes fold the reflected ring, so they use the other
 * links).  A rank that sits out in one dimension sits out entirely: its
 * partners in the other dimensions share that coordinate and sit out too.
 *
 * Reduce-scatter and allgather (`swing`: Swing replaces recursive
 * halving/doubling anywhere, sec. 6): swing_bw's reduce-scatter half and its
 * allgather half alone, same lanes, peers and block sets, but the blocks
 * numbered as the primitives own them, unit-major: rank u's unit is blocks
 * [u*2D, (u+1)*2D) and lane l owns part l of every unit (block u*2D + l), so
 * a lane's box is a list of single-block ranges.  The reduce-scatter ends
 * with every rank holding its own unit reduced; the allgather starts from
 * it.  Every rank sends p-1 blocks per lane in each (the 1-D live sets
 * shrink by exactly what is sent, so the product's do).
 * Barrier (`swing`): below.
 *
 * Swing combines partial results of cyclic (not linear) rank intervals:
 * commutative operations only.
 */
#include "algo.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* --- the 1-D pattern ------------------------------------------------- */

static long long rho(int s)
{
    long long r = 0, t = 1;
    for (int i = 0; i <= s; i++, t *= -2) {
        r += t;
    }
    return r;
}

/* Plain Swing peer of r at step s on a ring of m (even, or 1) nodes;
 * sign -1 gives the mirrored peer. */
static int swing_peer(int m, int r, int s, int sign)
{
    long long d = rho(s) % m * sign;
    long long q = (r % 2 ? r - d : r + d) % m;
    return (int)(q < 0 ? q + m : q);
}

/* One transfer of a ring node: to or from `peer`, a set of block positions
 * given as runs [run0, run0 + nrun) of ring_t.runs. */
typedef struct {
    int peer, recv, run0, nrun;
} rxfer_t;

/* The 1-D reduce-scatter seen by one node of a ring of d nodes, in one
 * orientation.  Blocks are named by their position in the block order. */
typedef struct {
    int d, m, x, L, err;
    int *order, *pos; /* position -> ring node, and back */
    int *xf0;         /* step t: xf[xf0[t] .. xf0[t+1]) */
    rxfer_t *xf;
    int nxf, capxf;
    int *lv0; /* live set after t steps: runs lv0[t] .. lv0[t+1] */
    topo_range_t *runs;
    int nruns, capruns;
    /* the send sets of core node 0 (send_set; node 1's are their mirror
     * images 1 - b): at step t canon[cs0[t] .. cs0[t] + csn[t]), as ring
     * nodes */
    int *canon;
    int cs0[64], csn[64];
    int whole; /* canon_sets dropped nothing: every S(0,t) is the leaves of
                  T(q,t), no repeats and never 0 (so for every node) */
    /* scratch */
    int *buf, *stamp, *sx, *tmp, stamp_id;
    int dist[64]; /* rho(s) mod m (C's sign), s <= L: ring_peer's */
    int shared;   /* order, pos, sx, canon and the scratch buf and tmp are
                     another ring's (ring_build's like), not freed with this
                     one */
} ring_t;

/* swing_peer(g->m, r, s, 1) without rho's loop and the divisions (the
 * send sets visit O(m) nodes per step). */
static int ring_peer(const ring_t *g, int r, int s)
{
    int q = r % 2 ? r - g->dist[s] : r + g->dist[s]; /* in (-m, 2m) */
    return q >= g->m ? q - g->m : q < 0 ? q + g->m : q;
}

static void *grow(ring_t *g, void *p, int n, int *cap, size_t elem)
{
    if (n < *cap) {
        return p;
    }
    int ncap = *cap ? 2 * *cap : 16;
    void *q = realloc(p, (size_t)ncap * elem);
    if (NULL == q) {
        g->err = TOPO_ENOMEM;
        return p;
    }
    *cap = ncap;
    return q;
}

/* Append the distinct positions v[0..n) (any order) as sorted runs;
 * returns the number of runs.  Sorts v in place. */
static int add_runs(ring_t *g, int *v, int n)
{
    int start = g->nruns;
    if (n <= 32) { /* short sets: insertion sort */
        for (int i = 1; i < n; i++) {
            int e = v[i], j = i - 1;
            while (j >= 0 && v[j] > e) {
                v[j + 1] = v[j];
                j--;
            }
            v[j + 1] = e;
        }
    } else { /* long sets: mark and sweep the span */
        int lo = g->d, hi = -1;
        for (int i = 0; i < n; i++) {
            lo = v[i] < lo ? v[i] : lo;
            hi = v[i] > hi ? v[i] : hi;
        }
        if (hi - lo + 1 == n) { /* distinct: the whole span, one run */
            g->runs = grow(g, g->runs, g->nruns, &g->capruns, sizeof(*g->runs));
            if (g->err) {
                return 0;
            }
            g->runs[g->nruns++] = (topo_range_t){lo, n};
            return 1;
        }
        if (NULL == g->stamp) { /* first needed here (never on powers of two) */
            g->stamp = calloc((size_t)g->d, sizeof(int));
            if (NULL == g->stamp) {
                g->err = TOPO_ENOMEM;
                return 0;
            }
        }
        g->stamp_id++;
        for (int i = 0; i < n; i++) {
            g->stamp[v[i]] = g->stamp_id;
        }
        n = 0;
        for (int e = lo; e <= hi; e++) {
            if (g->stamp[e] == g->stamp_id) {
                v[n++] = e;
            }
        }
    }
    for (int i = 0; i < n; i++) {
        if (g->nruns > start && g->runs[g->nruns - 1].first + g->runs[g->nruns - 1].count == v[i]) {
            g->runs[g->nruns - 1].count++;
            continue;
        }
        g->runs = grow(g, g->runs, g->nruns, &g->capruns, sizeof(*g->runs));
        if (g->err) {
            return 0;
        }
        g->runs[g->nruns].first = v[i];
        g->runs[g->nruns].count = 1;
        g->nruns++;
    }
    return g->nruns - start;
}

/* A transfer of the n distinct positions v[0..n) (add_runs sorts them). */
static void add_xfer_of(ring_t *g, int peer, int recv, int *v, int n)
{
    if (0 == n) {
        return; /* both ends compute the same empty set and skip it */
    }
    g->xf = grow(g, g->xf, g->nxf, &g->capxf, sizeof(*g->xf));
    if (g->err) {
        return;
    }
    rxfer_t *x = &g->xf[g->nxf++];
    x->peer = peer;
    x->recv = recv;
    x->run0 = g->nruns;
    x->nrun = add_runs(g, v, n);
}

static void add_xfer(ring_t *g, int peer, int recv, int n)
{
    add_xfer_of(g, peer, recv, g->tmp, n);
}

/* A transfer of the runs [run0, run0 + nrun) of g->runs, made before. */
static void add_xfer_runs(ring_t *g, int peer, int recv, int run0, int nrun)
{
    if (0 == nrun) {
        return; /* the empty set, skipped at both ends */
    }
    g->xf = grow(g, g->xf, g->nxf, &g->capxf, sizeof(*g->xf));
    if (g->err) {
        return;
    }
    g->xf[g->nxf++] = (rxfer_t){peer, recv, run0, nrun};
}

/* The union of the disjoint runs u[0..n) (n <= 64) as add_runs would make
 * it from their positions (sorted, adjacent ones merged), appended to
 * g->runs; 0 where two of them overlap (nothing appended). */
static int add_union(ring_t *g, topo_range_t *u, int n)
{
    for (int i = 1; i < n; i++) { /* insertion sort by first position */
        const topo_range_t e = u[i];
        int j = i - 1;
        while (j >= 0 && u[j].first > e.first) {
            u[j + 1] = u[j];
            j--;
        }
        u[j + 1] = e;
    }
    for (int i = 1; i < n; i++) {
        if (u[i].first < u[i - 1].first + u[i - 1].count) {
            return 0;
        }
    }
    for (int i = 0, start = g->nruns; i < n && !g->err; i++) {
        if (g->nruns > start &&
            g->runs[g->nruns - 1].first + g->runs[g->nruns - 1].count == u[i].first) {
            g->runs[g->nruns - 1].count += u[i].count;
            continue;
        }
        g->runs = grow(g, g->runs, g->nruns, &g->capruns, sizeof(*g->runs));
        if (!g->err) {
            g->runs[g->nruns++] = u[i];
        }
    }
    return 1;
}

/* The leaves of node 0's step tree, in order, repeats kept:
 * T(r, s) = T(r, s+1) then T(pi(r, s+1), s+1), a leaf at s = L-1, from
 * T(0, -1).  Nodes of one parity are translates and the two parities
 * mirror images (ring_peer moves with r + 2j and reflects with 1 - r, m
 * even), so T(r, s) = r + T(0, s) for even r and r - T(0, s) for odd r
 * (mod m), and pi(0, s+1) is odd: T(0, s) is T(0, s+1) then
 * pi(0, s+1) - T(0, s+1), and T(0, s) the first 2^(L-1-s) leaves of
 * T(0, -1).  Iterative, into seq (2^L entries). */
static void tree_seq(const ring_t *g, int *seq)
{
    seq[0] = 0;
    for (int s = g->L - 2, len = 1; s >= -1; s--, len *= 2) {
        const int c = ring_peer(g, 0, s + 1);
        for (int i = 0; i < len; i++) {
            const int v = c - seq[i];
            seq[len + i] = v < 0 ? v + g->m : v;
        }
    }
}

/* Core node 0's deduplicated send sets, every step, into g->canon:
 * keep-latest (the blocks of S(0,t) that are in no S(0,t'), t' > t), and
 * never 0's own block (see the header); from the last step down, so that
 * the blocks of the later steps are marked once.  S(0,t) = {q} + R(q,t+1),
 * q = pi(0,t), is (as a multiset) the leaves of T(q, t): q - the first
 * 2^(L-1-t) entries of seq (tree_seq; q is odd).  Node 1's are the mirror
 * images 1 - b of these (ring_peer reflects with 1 - r, so do the
 * multisets, the marks and the own block). */
static int canon_sets(ring_t *g, const int *seq)
{
    /* the nodes seen: one bit each (the sets visit them in no order;
     * a bitmap stays in the cache where stamps would not) */
    uint64_t *seen = calloc((size_t)g->m / 64 + 1, sizeof(*seen));
    if (NULL == seen) {
        return TOPO_ENOMEM;
    }
    seen[0] = 1; /* never 0's own block */
    for (int t = g->L - 1, n = 0; t >= 0; t--) {
        const int q = ring_peer(g, 0, t), nm = 1 << (g->L - 1 - t), m = g->m;
        g->cs0[t] = n;
        for (int i = 0; i < nm; i++) {
            int b = q - seq[i];
            b = b < 0 ? b + m : b;
            const uint64_t bit = (uint64_t)1 << (b % 64);
            if (!(seen[b / 64] & bit)) {
                seen[b / 64] |= bit; /* also drops repeats within S(0,t) */
                g->canon[n++] = b;
            }
        }
        g->csn[t] = n - g->cs0[t];
        g->whole = g->whole && g->csn[t] == nm;
    }
    free(seen);
    return TOPO_OK;
}

/* Core node x's send set at step t, as positions in out: node 0's moved
 * by x for even x, node 1's (node 0's mirrored, 1 - b) moved by x - 1 for
 * odd x (nodes of one parity are translates: ring_peer moves with them,
 * so do the sets). */
static int send_set(ring_t *g, int x, int t, int *out)
{
    const int *set = &g->canon[g->cs0[t]], m = g->m;
    if (x % 2) {
        for (int i = 0; i < g->csn[t]; i++) {
            const int b = x - set[i];
            out[i] = g->pos[b < 0 ? b + m : b];
        }
    } else {
        for (int i = 0; i < g->csn[t]; i++) {
            const int b = set[i] + x;
            out[i] = g->pos[b >= m ? b - m : b];
        }
    }
    return g->csn[t];
}

static void ring_free(ring_t *g)
{
    if (!g->shared) {
        free(g->order);
        free(g->pos);
        free(g->canon);
        free(g->sx);
        free(g->buf);
        free(g->tmp);
    }
    free(g->xf0);
    free(g->xf);
    free(g->lv0);
    free(g->runs);
    free(g->stamp);
    memset(g, 0, sizeof(*g));
}

/* Build node a's 1-D reduce-scatter on a ring of d nodes; mirror conjugates
 * the plain algorithm by the reflection phi(c) = -c mod m of the core.
 * like: NULL, or a ring built before on d nodes, whose block order, send
 * sets and contact steps (which depend on d alone) are shared, and its
 * scratch reused (it is to be freed after this one, or with nothing read
 * from this one after). */
static int ring_build(ring_t *g, int d, int a, int mirror, ring_t *like)
{
    memset(g, 0, sizeof(*g));
    g->d = d;
    g->m = d > 1 && d % 2 ? d - 1 : d;
    g->x = d > 1 && d % 2 ? d - 1 : -1;
    g->L = topo_ceil_log2(g->m);
    const int m = g->m, x = g->x, L = g->L;
    for (int s = 0; s <= L && s < 64; s++) {
        g->dist[s] = (int)(rho(s) % m);
    }
    g->shared = NULL != like && like->d == d;
    if (g->shared) {
        g->order = like->order;
        g->pos = like->pos;
        g->sx = like->sx;
        g->canon = like->canon;
        g->buf = like->buf;
        g->tmp = like->tmp;
    } else {
        g->order = malloc(sizeof(int) * (size_t)d);
        g->pos = malloc(sizeof(int) * (size_t)d);
        g->sx = x >= 0 ? malloc(sizeof(int) * (size_t)d) : NULL; /* the extra node's */
        g->canon = malloc(sizeof(int) * (size_t)(m + 1));
        /* scratch (buf holds tree_seq's 2^L leaves first) */
        g->buf =
            malloc(sizeof(int) * ((size_t)1 << L > (size_t)m + 1 ? (size_t)1 << L : (size_t)m + 1));
        g->tmp = malloc(sizeof(int) * (size_t)(d + 1));
    }
    g->xf0 = malloc(sizeof(int) * (size_t)(L + 1));
    g->lv0 = malloc(sizeof(int) * (size_t)(L + 2));
    if (!g->order || !g->pos || !g->xf0 || !g->lv0 || !g->buf || (x >= 0 && !g->sx) || !g->tmp ||
        !g->canon) {
        return TOPO_ENOMEM;
    }
    if (g->shared) {
        memcpy(g->cs0, like->cs0, sizeof(g->cs0));
        memcpy(g->csn, like->csn, sizeof(g->csn));
        g->whole = like->whole;
    } else {
        int *seq = g->buf;
        tree_seq(g, seq);
        g->whole = 1;
        if (TOPO_OK != canon_sets(g, seq)) {
            return TOPO_ENOMEM;
        }
        /* The block order: the step tree of node 0 (laminar for powers
         * of two), first occurrences, then the extra node. */
        int n = 0;
        for (int c = 0; c < d; c++) {
            g->pos[c] = -1;
        }
        for (int i = 0; i < 1 << L; i++) {
            if (g->pos[seq[i]] < 0) {
                g->pos[seq[i]] = n;
                g->order[n++] = seq[i];
            }
        }
        for (int c = 0; c < d; c++) { /* the extra node, and any node missed */
            if (g->pos[c] < 0) {
                g->pos[c] = n;
                g->order[n++] = c;
            }
        }
    }
    /* The extra node's contact step with each core node, nearest first:
     * at step t as many as a core node sends blocks at step t (node 0's
     * count; all core nodes send alike), the last step the rest (one more),
     * so x sends no more than a contacted core node in any step. */
    if (x >= 0 && (NULL == like || like->d != d)) {
        for (int k = 0, t = 0, now = 0, quota = L > 1 ? g->csn[0] : m; k < m; k++) {
            int c = k % 2 ? m - 1 - k / 2 : k / 2;
            while (now == quota) {
                now = 0;
                t++;
                quota = t == L - 1 ? m - k : g->csn[t];
            }
            g->sx[c] = t;
            now++;
        }
    }
    /* Work as the plain node phi(a); peers are mapped back by phi. */
    const int me = (mirror && a != x) ? (m - a) % m : a;
    /* a core node's own send sets as positions, the last step's first:
     * mine[at[t] .. at[t] + len[t]); those of the steps after t are then
     * mine[0 .. at[t]) (the live sets below); in buf */
    int at[64], len[64], sr0[64] = {0}, srn[64] = {0}, *mine = g->buf;
    if (me != x && L > 0) {
        for (int t = L - 1, k = 0; t >= 0; t--) {
            at[t] = k;
            len[t] = send_set(g, me, t, mine + k);
            k += len[t];
        }
        /* their runs, sr0[t] .. sr0[t] + srn[t] of g->runs (add_runs sorts
         * each step's part of mine in place: the live sets below read mine
         * as sets) */
        for (int t = 0; t < L && !g->err; t++) {
            sr0[t] = g->nruns;
            srn[t] = len[t] > 0 ? add_runs(g, mine + at[t], len[t]) : 0;
        }
    }
#define PHI(c) ((mirror && (c) != x) ? (m - (c)) % m : (c))
    for (int t = 0; t < L && !g->err; t++) {
        g->xf0[t] = g->nxf;
        if (me == x) {
            for (int c = 0; c < m; c++) {
                if (g->sx[c] == t) {
                    g->tmp[0] = g->pos[c];
                    add_xfer(g, PHI(c), 0, 1);
                    g->tmp[0] = g->pos[x];
                    add_xfer(g, PHI(c), 1, 1);
                }
            }
            continue;
        }
        int q = swing_peer(m, me, t, 1);
        add_xfer_runs(g, PHI(q), 0, sr0[t], srn[t]);
        /* what q sends is S(q,t): the leaves of T(me,t), which are me and
         * our sends of the later steps (T(me,t) is T(me,L-1) then
         * T(pi(me,t'),t') for t' = L-1 down to t+1); where no set drops a
         * block (g->whole) and they are few runs, their union, else q's
         * set read block by block */
        topo_range_t u[64];
        int nu = 1;
        u[0] = (topo_range_t){g->pos[me], 1};
        for (int st = t + 1; st < L && g->whole && nu <= 64; st++) {
            if (srn[st] > 64 - nu) {
                nu = 65; /* too many */
                break;
            }
            memcpy(u + nu, g->runs + sr0[st], sizeof(*u) * (size_t)srn[st]);
            nu += srn[st];
        }
        const int r0 = g->nruns;
        if (!g->whole || nu > 64 || !add_union(g, u, nu)) {
            add_xfer(g, PHI(q), 1, send_set(g, q, t, g->tmp));
        } else {
            add_xfer_runs(g, PHI(q), 1, r0, g->nruns - r0);
        }
        if (x >= 0 && g->sx[me] == t) {
            g->tmp[0] = g->pos[x];
            add_xfer(g, x, 0, 1);
            g->tmp[0] = g->pos[me];
            add_xfer(g, x, 1, 1);
        }
    }
#undef PHI
    g->xf0[L] = g->nxf;
    /* Live sets: before any step everything; after step t the own block,
     * what is still to be sent, and (core nodes) block x until handed over. */
    for (int t = -1; t < L && !g->err; t++) {
        g->lv0[t + 1] = g->nruns;
        int k = 0;
        if (t < 0) { /* every position: one run */
            g->runs = grow(g, g->runs, g->nruns, &g->capruns, sizeof(*g->runs));
            if (!g->err) {
                g->runs[g->nruns++] = (topo_range_t){0, d};
            }
            continue;
        } else if (me == x) {
            g->tmp[k++] = g->pos[x];
            for (int c = 0; c < m; c++) {
                if (g->sx[c] > t) {
                    g->tmp[k++] = g->pos[c];
                }
            }
        } else {
            /* the runs of the sends still to come (disjoint: keep-latest
             * sends a block once, and never the own one), with the own
             * block and block x, where they are few (on powers of two one
             * each): their union, without reading the blocks again */
            topo_range_t u[64];
            int nu = 0;
            u[nu++] = (topo_range_t){g->pos[me], 1};
            if (x >= 0 && g->sx[me] > t) {
                u[nu++] = (topo_range_t){g->pos[x], 1};
            }
            for (int st = t + 1; st < L && nu <= 64; st++) {
                if (srn[st] > 64 - nu) {
                    nu = 65; /* too many */
                    break;
                }
                for (int i = 0; i < srn[st]; i++) {
                    u[nu++] = g->runs[sr0[st] + i];
                }
            }
            if (nu <= 64 && add_union(g, u, nu)) {
                continue;
            }
            g->tmp[k++] = g->pos[me];
            if (x >= 0 && g->sx[me] > t) {
                g->tmp[k++] = g->pos[x];
            }
            if (t + 1 < L) {
                memcpy(g->tmp + k, mine, sizeof(int) * (size_t)at[t]);
                k += at[t];
            }
        }
        add_runs(g, g->tmp, k);
    }
    g->lv0[L + 1] = g->nruns;
    return g->err;
}

/* --- geometry and lanes ----------------------------------------------- */

typedef topo_geom_t geom_t;

/* The rank at our coordinates with dimension k set to c. */
static int geom_peer(const geom_t *g, int k, int c)
{
    if (NULL == g->grid) {
        return c;
    }
    int co[TOPO_MAX_DIMS];
    memcpy(co, g->coords, sizeof(co));
    co[k] = c;
    return topo_topology_rank(g->grid, co);
}

/* A lane's dimension sequence (sec. 4.2): round-robin from `first` over
 * the dimensions with steps left; steps[k] per dimension.  Returns the
 * length. */
static int lane_dims(const geom_t *g, int first, const int *steps, int *seq)
{
    int left[TOPO_MAX_DIMS], n = 0, cur = first;
    memcpy(left, steps, sizeof(int) * (size_t)g->nd);
    for (;;) {
        int k = -1;
        for (int i = 0; i < g->nd && k < 0; i++) {
            int j = (cur + i) % g->nd;
            k = left[j] > 0 ? j : -1;
        }
        if (k < 0) {
            return n;
        }
        seq[n++] = k;
        left[k]--;
        cur = (k + 1) % g->nd;
    }
}

/* --- swing_bw ------------------------------------------------------------ */

/* A lane's block index: position tuples in row-major order over the axes
 * axis[0..nd) (the lane's first dimension outermost: it shrinks first, so
 * boxes stay few ranges). */
typedef struct {
    int axis[TOPO_MAX_DIMS], stride[TOPO_MAX_DIMS];
} lane_layout_t;

static void layout_init(lane_layout_t *ll, const geom_t *g, int first)
{
    for (int i = g->nd - 1, st = 1; i >= 0; i--) {
        ll->axis[i] = (first + i) % g->nd;
        ll->stride[i] = st;
        st *= g->dims[ll->axis[i]];
    }
}

/* Append to the last transfer the blocks (runs of dimension k) x (live set
 * of every other dimension j after cnt[j] of its steps), from axis i
 * onwards, at block offset off; with umap (unit-major blocks) the lane index
 * off is block umap[off] instead. */
static void emit_box(topo_sched_t *s, const geom_t *g, const lane_layout_t *ll, const ring_t *rg,
                     int k, const rxfer_t *x, const int *cnt, int i, int off, const int *umap)
{
    const int j = ll->axis[i];
    const topo_range_t *r;
    int nr;
    if (j == k) {
        r = &rg[k].runs[x->run0];
        nr = x->nrun;
    } else {
        r = &rg[j].runs[rg[j].lv0[cnt[j]]];
        nr = rg[j].lv0[cnt[j] + 1] - rg[j].lv0[cnt[j]];
    }
    for (int u = 0; u < nr; u++) {
        if (i == g->nd - 1 && NULL == umap) {
            topo_sched_range(s, off + r[u].first, r[u].count);
            continue;
        }
        for (int b = r[u].first; b < r[u].first + r[u].count; b++) {
            if (i == g->nd - 1) {
                topo_sched_range(s, umap[off + b], 1);
            } else {
                emit_box(s, g, ll, rg, k, x, cnt, i + 1, off + b * ll->stride[i], umap);
            }
        }
    }
}

/* The same box as one mapped run (topo_sched_mapped), where every set is
 * one run of positions: axis i reads dimension axis[i]'s map, whose value
 * at position q is the block offset of the ring node there (maps[j],
 * bw_maps), plus `base` (the lane). */
static void emit_mapped(topo_sched_t *s, const geom_t *g, const lane_layout_t *ll, const ring_t *rg,
                        int k, const rxfer_t *x, const int *cnt, int base, const int32_t *maps)
{
    topo_map_axis_t ax[TOPO_MAX_DIMS];
    for (int i = 0; i < g->nd; i++) {
        const int j = ll->axis[i];
        const topo_range_t *r = j == k ? &rg[k].runs[x->run0] : &rg[j].runs[rg[j].lv0[cnt[j]]];
        ax[i] = (topo_map_axis_t){maps[j], r->first, r->count};
    }
    topo_sched_mapped(s, base, g->nd, ax);
}

/* One step of a lane in dimension k, at dimension step cnt[k]; reverse
 * gives the allgather's mirror image of the reduce-scatter step.  With
 * maps (unit-major blocks, every set one run) the boxes are mapped runs
 * whose base is `base`, else emit_box's ranges. */
static void bw_step(topo_sched_t *s, const geom_t *g, const lane_layout_t *ll, const ring_t *rg,
                    int k, const int *cnt, int base, int reverse, const int *umap,
                    const int32_t *maps)
{
    const ring_t *r = &rg[k];
    topo_sched_step(s);
    for (int i = r->xf0[cnt[k]]; i < r->xf0[cnt[k] + 1]; i++) {
        const rxfer_t *x = &r->xf[i];
        int peer = geom_peer(g, k, x->peer);
        if (x->recv != reverse) {
            topo_sched_recv(s, peer, reverse ? TOPO_XFER_RECV_COPY : TOPO_XFER_RECV_REDUCE, 0, 0);
        } else {
            topo_sched_send(s, peer, 0, 0);
        }
        if (NULL != maps) {
            emit_mapped(s, g, ll, rg, k, x, cnt, base, maps);
        } else {
            emit_box(s, g, ll, rg, k, x, cnt, 0, base, umap);
        }
    }
}

/* Whether every set of the rings rg[0..nd) (each step's transfers, each
 * live set) is one run of positions, as on rings of powers of two (the
 * laminar order). */
static int bw_single_runs(const ring_t *rg, int nd)
{
    for (int k = 0; k < nd; k++) {
        for (int i = 0; i < rg[k].nxf; i++) {
            if (1 != rg[k].xf[i].nrun) {
                return 0;
            }
        }
        for (int t = 0; t <= rg[k].L; t++) {
            if (1 != rg[k].lv0[t + 1] - rg[k].lv0[t]) {
                return 0;
            }
        }
    }
    return 1;
}

/* The maps of the mapped runs, one per dimension k of orientation o: at
 * position q the first block of the unit whose coordinate k is the ring
 * node there (phi(order[q]) mirrored, see unit_of), weighted as a
 * row-major rank (the rank is the sum over k of coordinate k times the
 * sizes of the dimensions after k) and times nl, the blocks per unit: so
 * a lane's block for a tuple of positions is the sum of its maps' values
 * plus the lane, umap's value.  Ids into maps[0..nd); -1 on error. */
static int bw_maps(topo_sched_t *s, const geom_t *g, ring_t *rg, int mirror, int nl, int32_t *maps)
{
    for (int k = 0; k < g->nd; k++) {
        ring_t *r = &rg[k];
        int *val = r->buf; /* scratch no longer read: room for m + 1 >= d */
        int32_t w = nl;
        for (int j = k + 1; j < g->nd; j++) {
            w *= g->dims[j];
        }
        for (int q = 0; q < r->d; q++) {
            const int c = r->order[q];
            val[q] = w * ((mirror && c != r->x && c > 0) ? r->m - c : c);
        }
        maps[k] = topo_sched_map(s, val, r->d);
        if (maps[k] < 0) {
            return s->err ? s->err : TOPO_EINVAL;
        }
    }
    return TOPO_OK;
}

/* The rank a lane-local block index stands for: the position tuple of
 * index idx in ll, each position mapped to its ring node (the mirrored
 * orientation computes as phi(a), so its position q holds node phi(order[q])
 * at the end). */
static int unit_of(const geom_t *g, const lane_layout_t *ll, const ring_t *rg, int mirror,
                   int idx)
{
    int co[TOPO_MAX_DIMS];
    for (int i = 0; i < g->nd; i++) {
        const int k = ll->axis[i];
        const ring_t *r = &rg[k];
        int c = r->order[(idx / ll->stride[i]) % g->dims[k]];
        co[k] = (mirror && c != r->x) ? (r->m - c) % r->m : c;
    }
    return NULL == g->grid ? co[0] : topo_topology_rank(g->grid, co);
}

/* Swing bandwidth schedules: the reduce-scatter (RS), the allgather (AG),
 * or both (allreduce).  Allreduce numbers the blocks lane-major in the
 * laminar order; the RS and AG alone number them as their primitives
 * demand, unit-major (rank u's blocks are [u*nl, (u+1)*nl), lane l owning
 * part l of every unit), through a per-lane map; then every block is its
 * own range (the executor packs).  Where every 1-D set is one run of
 * positions (rings of powers of two) those ranges are stored as one mapped
 * run per transfer through per-dimension maps (bw_maps: the unit map is a
 * sum over the dimensions, the rank being row-major), unless
 * explicit_units asks for the ranges themselves. */
static int swing_bw_gen(topo_sched_t *s, const topo_gen_args_t *a, topo_prim_t prim,
                        int explicit_units)
{
    geom_t g;
    topo_geom_init(&g, a);
    const int p = a->size, nl = 2 * g.D, unit = prim != TOPO_PRIM_ALLREDUCE;
    const int rs = prim != TOPO_PRIM_ALLGATHER, ag = prim != TOPO_PRIM_REDUCE_SCATTER;
    topo_sched_init(s, p, a->rank, nl > 0 ? nl * p : 1);
    /* lane-major boxes of several rows: strided runs (unit-major blocks
     * follow the rings' step-tree order, where equal distances are rare) */
    s->runs = (uint8_t)!unit;
    if (unit && nl > 0) {
        s->nparts = nl;
    }
    ring_t rg[2][TOPO_MAX_DIMS];
    memset(rg, 0, sizeof(rg));
    int rc = TOPO_OK, steps[TOPO_MAX_DIMS];
    for (int o = 0; o < 2 && nl > 0; o++) {
        for (int k = 0; k < g.nd; k++) {
            int e = ring_build(&rg[o][k], g.dims[k], g.coords[k], o,
                               o && TOPO_OK == rc ? &rg[0][k] : NULL);
            rc = rc ? rc : e;
            steps[k] = rg[o][k].L;
        }
    }
    /* unit-major blocks: where every set is one run of positions, a box is
     * one mapped run through the maps of its dimensions (O(sum of the
     * dimensions) entries per orientation, shared by the lanes and steps);
     * else a range per block through the lane's unit map umap */
    int32_t maps[2][TOPO_MAX_DIMS];
    const int mapped = unit && nl > 0 && TOPO_OK == rc && !explicit_units &&
                       bw_single_runs(rg[0], g.nd) && bw_single_runs(rg[1], g.nd);
    for (int o = 0; o < 2 && mapped && TOPO_OK == rc; o++) {
        rc = bw_maps(s, &g, rg[o], o, nl, maps[o]);
    }
    int *umap = unit && !mapped ? malloc(sizeof(int) * (size_t)p) : NULL;
    if (unit && !mapped && NULL == umap) {
        rc = rc ? rc : TOPO_ENOMEM;
    }
    for (int l = 0; l < nl && TOPO_OK == rc; l++) {
        const int o = l >= g.D;
        int seq[TOPO_MAX_DIMS * 32], cnt[TOPO_MAX_DIMS] = {0}, base = unit ? 0 : l * p;
        int n = lane_dims(&g, g.first[l % g.D], steps, seq);
        lane_layout_t ll;
        layout_init(&ll, &g, g.first[l % g.D]);
        for (int idx = 0; NULL != umap && idx < p; idx++) {
            umap[idx] = unit_of(&g, &ll, rg[o], o, idx) * nl + l;
        }
        const int32_t *mp = mapped ? maps[o] : NULL;
        topo_sched_lane(s);
        for (int i = 0; i < n; i++) {
            if (rs) {
                bw_step(s, &g, &ll, rg[o], seq[i], cnt, mapped ? l : base, 0, umap, mp);
            }
            cnt[seq[i]]++;
        }
        for (int i = n - 1; i >= 0 && ag; i--) {
            cnt[seq[i]]--;
            bw_step(s, &g, &ll, rg[o], seq[i], cnt, mapped ? l : base, 1, umap, mp);
        }
    }
    for (int o = 0; o < 2; o++) {
        for (int k = 0; k < g.nd; k++) {
            ring_free(&rg[o][k]);
        }
    }
    free(umap);
    if (TOPO_OK != rc) {
        return rc;
    }
    return topo_sched_finish(s);
}

int topo_gen_allreduce_swing_bw(topo_sched_t *s, const topo_gen_args_t *a)
{
    return swing_bw_gen(s, a, TOPO_PRIM_ALLREDUCE, 0);
}

int topo_gen_reduce_scatter_swing(topo_sched_t *s, const topo_gen_args_t *a)
{
    return swing_bw_gen(s, a, TOPO_PRIM_REDUCE_SCATTER, 0);
}

int topo_gen_allgather_swing(topo_sched_t *s, const topo_gen_args_t *a)
{
    return swing_bw_gen(s, a, TOPO_PRIM_ALLGATHER, 0);
}

int topo_gen_swing_units_explicit(topo_sched_t *s, const topo_gen_args_t *a)
{
    if (a->prim != TOPO_PRIM_REDUCE_SCATTER && a->prim != TOPO_PRIM_ALLGATHER) {
        return TOPO_EINVAL;
    }
    return swing_bw_gen(s, a, a->prim, 1);
}

/* --- swing_lat ---------------------------------------------------------- */

/* Dimension k of a lane in orientation o: the fold of the (reflected)
 * ring onto a power of two. */
typedef struct {
    topo_fold_t f;
    int d, mirror, L;
} lat_dim_t;

/* Ring coordinate of fold rank n (new rank, or old rank if !is_new). */
static int lat_coord(const lat_dim_t *ld, int n, int is_new)
{
    int old = is_new ? topo_fold_old(&ld->f, n) : n;
    return ld->mirror ? ld->d - 1 - old : old;
}

/* Every rank holds its own partial sums: after step s a rank has combined
 * the ranks its peers r +- rho(0..s) reached, a set that differs from
 * rank to rank.  With at most two steps in a dimension (fewer than 8
 * ranks: peers at rho = 1 and -1, plus the odd extension's fold) the
 * partners pair within fixed groups of four, as in a butterfly, and every
 * rank combines the same tree; from the third step on (rho = 3) they do
 * not. */
int topo_same_tree_swing_lat(const topo_gen_args_t *a)
{
    return topo_topology_lane_max(a->topo, a->size) < 8;
}

int topo_gen_allreduce_swing_lat(topo_sched_t *s, const topo_gen_args_t *a)
{
    geom_t g;
    topo_geom_init(&g, a);
    const int nl = 2 * g.D;
    topo_sched_init(s, a->size, a->rank, nl > 0 ? nl : 1);
    lat_dim_t ld[2][TOPO_MAX_DIMS];
    int steps[TOPO_MAX_DIMS];
    for (int o = 0; o < 2; o++) {
        for (int k = 0; k < g.nd; k++) {
            lat_dim_t *e = &ld[o][k];
            e->d = g.dims[k];
            e->mirror = o;
            topo_fold_init(&e->f, e->d, o ? e->d - 1 - g.coords[k] : g.coords[k]);
            e->L = topo_ceil_log2(e->f.p2);
            steps[k] = e->L;
        }
    }
    for (int l = 0; l < nl; l++) {
        const int o = l >= g.D, first = g.first[l % g.D];
        const lat_dim_t *dl = ld[o];
        int folds[TOPO_MAX_DIMS], nf = 0, seq[TOPO_MAX_DIMS * 32], cnt[TOPO_MAX_DIMS] = {0};
        for (int i = 0; i < g.nd; i++) {
            int k = (first + i) % g.nd;
            if (dl[k].f.rem > 0) {
                folds[nf++] = k;
            }
        }
        /* active[i]: not sitting out in any of the first i folded dims */
        int active[TOPO_MAX_DIMS + 1];
        active[0] = 1;
        for (int i = 0; i < nf; i++) {
            active[i + 1] = active[i] && dl[folds[i]].f.newrank >= 0;
        }
        topo_sched_lane(s);
        for (int i = 0; i < nf; i++) { /* fold in: sitters hand their part over */
            const lat_dim_t *e = &dl[folds[i]];
            int me = e->mirror ? e->d - 1 - g.coords[folds[i]] : g.coords[folds[i]];
            topo_sched_step(s);
            if (active[i] && me < 2 * e->f.rem) {
                topo_fold_xfer(s, &e->f, me, geom_peer(&g, folds[i], lat_coord(e, me ^ 1, 0)), 1,
                               l, 1);
            }
        }
        int n = lane_dims(&g, first, steps, seq);
        for (int i = 0; i < n; i++) { /* Swing steps on the folded rings */
            const lat_dim_t *e = &dl[seq[i]];
            topo_sched_step(s);
            if (active[nf]) {
                int q = swing_peer(e->f.p2, e->f.newrank, cnt[seq[i]], o ? -1 : 1);
                int peer = geom_peer(&g, seq[i], lat_coord(e, q, 1));
                topo_sched_send(s, peer, l, 1);
                topo_sched_recv(s, peer, TOPO_XFER_RECV_REDUCE, l, 1);
            }
            cnt[seq[i]]++;
        }
        for (int i = nf - 1; i >= 0; i--) { /* fold out, in reverse */
            const lat_dim_t *e = &dl[folds[i]];
            int me = e->mirror ? e->d - 1 - g.coords[folds[i]] : g.coords[folds[i]];
            topo_sched_step(s);
            if (active[i] && me < 2 * e->f.rem) {
                topo_fold_xfer(s, &e->f, me, geom_peer(&g, folds[i], lat_coord(e, me ^ 1, 0)), 0,
                               l, 1);
            }
        }
    }
    return topo_sched_finish(s);
}

/* --- barrier ------------------------------------------------------------ */

/* Swing barrier: the latency-optimal peer sequence with zero-byte
 * messages, one lane (one knowledge block, merged by receive-reduce),
 * steps round-robin over the dimensions (lane_dims), no folding:
 *  - a ring of even d: L = ceil(log2 d) plain Swing steps.  Knowledge is
 *    union, so repeats are harmless, and it reaches everyone: on the
 *    integers (peer r + rho(s) for even r, r - rho(s) for odd r) an even
 *    node knows, after steps 0..t-1, the 2^t consecutive nodes
 *    [a_t, b_t] + r (an odd one the reflection), by induction: [0,0],
 *    and rho(t) = 2 b_t + 1 for even t, 2 a_t - 1 for odd t (both follow
 *    from rho(t+1) = rho(t) + (-2)^(t+1) and b_t - a_t = 2^t - 1), so the
 *    step-t peer's interval is adjacent to ours.  Mod an even d the ring
 *    is the image of the integers (parities agree), so after L steps a node
 *    knows the image of 2^L >= d consecutive nodes: all of them.
 *  - a ring of odd d >= 3: the even ring on the core m = d - 1 plus the
 *    extra node x = d - 1, which signals core nodes 0 and pi(0,0) = 1 in
 *    step 0 and waits for core nodes 0 and pi(0,L-1) in step L-1
 *    (L = ceil(log2 m); d = 3: one step does both).  Core nodes 0 and 1
 *    together know after step 0 what 0 alone knew before it, which reaches
 *    every core node, so x's signal does; x hears the union of what 0 and
 *    its last peer knew before the last step, which is what 0 knows at the
 *    end: every core node.  x posts two messages per step, the others at
 *    most one more than the even ring.
 *  - a torus: peers in dimension k depend only on coordinate k, so what a
 *    node knows at the end is the product of the 1-D sets: everyone.
 * Steps: sum ceil(log2 e_i), e_i = d_i, or d_i - 1 if odd. */
int topo_gen_barrier_swing(topo_sched_t *s, const topo_gen_args_t *a)
{
    geom_t g;
    topo_geom_init(&g, a);
    topo_sched_init(s, a->size, a->rank, 1);
    s->sync = 1;
    int steps[TOPO_MAX_DIMS], seq[TOPO_MAX_DIMS * 32], cnt[TOPO_MAX_DIMS] = {0};
    for (int k = 0; k < g.nd; k++) {
        steps[k] = topo_ceil_log2(g.dims[k] > 1 && g.dims[k] % 2 ? g.dims[k] - 1 : g.dims[k]);
    }
    if (0 == g.D) {
        return topo_sched_finish(s);
    }
    int n = lane_dims(&g, g.first[0], steps, seq);
    topo_sched_lane(s);
    for (int i = 0; i < n; i++) {
        const int k = seq[i], d = g.dims[k], c = g.coords[k], t = cnt[k]++;
        const int odd = d % 2, m = odd ? d - 1 : d, L = steps[k];
        topo_sched_step(s);
        if (odd && c == m) { /* the extra node */
            if (0 == t) {
                topo_sched_send(s, geom_peer(&g, k, 0), 0, 1);
                topo_sched_send(s, geom_peer(&g, k, swing_peer(m, 0, 0, 1)), 0, 1);
            }
            if (L - 1 == t) {
                topo_sched_recv(s, geom_peer(&g, k, 0), TOPO_XFER_RECV_REDUCE, 0, 1);
                topo_sched_recv(s, geom_peer(&g, k, swing_peer(m, 0, L - 1, 1)),
                                TOPO_XFER_RECV_REDUCE, 0, 1);
            }
            continue;
        }
        const int q = geom_peer(&g, k, swing_peer(m, c, t, 1));
        topo_sched_send(s, q, 0, 1);
        if (odd && L - 1 == t && (0 == c || swing_peer(m, 0, L - 1, 1) == c)) {
            topo_sched_send(s, geom_peer(&g, k, m), 0, 1);
        }
        topo_sched_recv(s, q, TOPO_XFER_RECV_REDUCE, 0, 1);
        if (odd && 0 == t && (0 == c || swing_peer(m, 0, 0, 1) == c)) {
            topo_sched_recv(s, geom_peer(&g, k, m), TOPO_XFER_RECV_REDUCE, 0, 1);
        }
    }
    return topo_sched_finish(s);
}
