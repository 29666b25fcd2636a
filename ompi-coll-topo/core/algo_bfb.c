/*
 * BFB (breadth-first broadcast) allgather on a torus or mesh, its time
 * reversal as reduce-scatter, and the two in sequence as allreduce
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

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BFB_MAX_DIMS 4
#define BFB_MAX_NB (2 * BFB_MAX_DIMS)
#define BFB_MAX_MASK (1 << BFB_MAX_NB)

typedef struct {
    const topo_topology_t *t;
    int n;     /* ranks */
    int nd;    /* dimensions */
    int *co;   /* coordinates, n * nd */
    int diam;  /* D: the allgather's steps */
    int K;     /* parts per shard */
    int maxnb; /* the largest in-degree */
} bfb_t;

/* The receiver x's side of step t: its in-neighbours, the sources at
 * distance t, and which in-link carries each of their K parts. */
typedef struct {
    int x;
    int nin;
    int in[BFB_MAX_NB];
    int *dist;  /* dist[v] = distance from v to x */
    int *order; /* ranks by distance, ascending rank within a distance */
    int *first; /* order[first[t] .. first[t + 1]) are at distance t */
    /* The current step's assignment: source j's parts [cut[j][k],
     * cut[j][k + 1]) go over in-link k (j-th source at distance t, k <
     * nin; cut[j][0] = 0, cut[j][nin] = K), cut[j] at cut + j (nin + 1). */
    int *cut;
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

/* The distinct neighbours of x, in a fixed order (dimension, then +, -). */
static int neighbours(const bfb_t *b, int x, int *nb)
{
    int c[TOPO_MAX_DIMS], k = 0;
    for (int i = 0; i < b->nd; i++) {
        const int n = b->t->dims[i];
        for (int dir = 1; dir >= -1; dir -= 2) {
            memcpy(c, &b->co[x * b->nd], sizeof(int) * (size_t)b->nd);
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
            nb[k++] = topo_topology_rank(b->t, c);
        }
    }
    return k;
}

static int rx_init(const bfb_t *b, bfb_rx_t *r, int x)
{
    memset(r, 0, sizeof(*r));
    r->x = x;
    r->nin = neighbours(b, x, r->in);
    r->dist = malloc(sizeof(int) * (size_t)b->n);
    r->order = malloc(sizeof(int) * (size_t)b->n);
    r->first = calloc((size_t)b->diam + 2, sizeof(int));
    r->cut = malloc(sizeof(int) * (size_t)b->n * ((size_t)r->nin + 1));
    if (NULL == r->dist || NULL == r->order || NULL == r->first || NULL == r->cut) {
        return TOPO_ENOMEM;
    }
    for (int v = 0; v < b->n; v++) {
        r->dist[v] = dist(b, v, x);
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
    free(r->order);
    free(r->first);
    free(r->cut);
}

/* The in-links of x that lie on a shortest path from v (dist(v, x) = t):
 * a bit mask over r->in. */
static unsigned eligible(const bfb_t *b, const bfb_rx_t *r, int v, int t)
{
    unsigned m = 0;
    for (int k = 0; k < r->nin; k++) {
        if (dist(b, v, r->in[k]) == t - 1) {
            m |= 1u << k;
        }
    }
    return m;
}

/* Sources of step t at x grouped by eligible links: cnt[mask]. */
static void step_counts(const bfb_t *b, const bfb_rx_t *r, int t, int *cnt)
{
    memset(cnt, 0, sizeof(int) * ((size_t)1 << r->nin));
    for (int j = r->first[t]; j < r->first[t + 1]; j++) {
        cnt[eligible(b, r, r->order[j], t)]++;
    }
}

/* U*(t, x) = num / den in lowest terms (0 / 1 without sources). */
static void optimum(int nin, const int *cnt, int64_t *num, int64_t *den)
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
            size += (q >> k) & 1;
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

/* Parts per shard (see the head comment). */
static int parts(const bfb_t *b, const bfb_rx_t *r0)
{
    int64_t K = 1;
    int cnt[BFB_MAX_MASK];
    if (b->t->kind == TOPO_NET_TORUS) {
        for (int t = 1; t <= b->diam; t++) {
            int64_t num, den;
            step_counts(b, r0, t, cnt);
            optimum(r0->nin, cnt, &num, &den);
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
    for (int x = 0; x < b->n; x++) {
        bfb_rx_t r;
        if (TOPO_OK != rx_init(b, &r, x)) {
            rx_free(&r);
            return -1;
        }
        for (int t = 1; t <= b->diam; t++) {
            int64_t num, den;
            step_counts(b, &r, t, cnt);
            optimum(r.nin, cnt, &num, &den);
            K = K / gcd64(K, den) * den;
        }
        rx_free(&r);
    }
    return (int)K;
}

/* Solve step t at receiver x: fill r->cut for the sources at distance t
 * (in r->order). */
static int solve(const bfb_t *b, bfb_rx_t *r, int t)
{
    const int j0 = r->first[t], nj = r->first[t + 1] - j0, K = b->K;
    if (nj == 0) {
        return TOPO_OK;
    }
    int cnt[BFB_MAX_MASK];
    int64_t num, den;
    step_counts(b, r, t, cnt);
    optimum(r->nin, cnt, &num, &den);
    const int64_t capl = (K * num + den - 1) / den; /* parts per in-link */
    /* Flow network: 0 source, 1..G groups (masks with sources), then the
     * nin links, then the sink. */
    int gm[BFB_MAX_MASK], G = 0;
    for (int m = 1; m < (1 << r->nin); m++) {
        if (cnt[m] > 0) {
            gm[G++] = m;
        }
    }
    const int V = G + r->nin + 2, snk = V - 1;
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
        for (int k = 0; k < r->nin; k++) {
            if (gm[g] & (1 << k)) {
                CAP(1 + g, 1 + G + k) = inf;
            }
        }
    }
    for (int k = 0; k < r->nin; k++) {
        CAP(1 + G + k, snk) = capl;
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
    int seen[BFB_MAX_MASK];
    memset(seen, 0, sizeof(seen));
    for (int j = 0; rc == TOPO_OK && j < nj; j++) {
        const unsigned m = eligible(b, r, r->order[j0 + j], t);
        int g = 0;
        while (gm[g] != (int)m) {
            g++;
        }
        const int64_t base = (int64_t)K * seen[m]++;
        int64_t F = 0;
        int *cut = &r->cut[(size_t)j * ((size_t)r->nin + 1)];
        for (int k = 0; k < r->nin; k++) {
            const int64_t c = F - base;
            cut[k] = (int)(c < 0 ? 0 : c > K ? K : c);
            F += CAP(1 + G + k, 1 + g);
        }
        cut[r->nin] = K;
    }
#undef CAP
    free(cap);
    free(prev);
    free(queue);
    return rc;
}

/* The transfer between this rank and peer of the blocks at receiver r
 * whose link is k, step t: a send, or a receive of kind `kind`. */
static void emit(topo_sched_t *s, const bfb_t *b, const bfb_rx_t *r, int t, int k, int peer,
                 int send, topo_xfer_kind_t kind)
{
    const int j0 = r->first[t], nj = r->first[t + 1] - j0;
    int opened = 0;
    for (int j = 0; j < nj; j++) {
        const int *cut = &r->cut[(size_t)j * ((size_t)r->nin + 1)];
        if (cut[k + 1] <= cut[k]) {
            continue;
        }
        if (!opened) {
            if (send) {
                topo_sched_send(s, peer, 0, 0);
            } else {
                topo_sched_recv(s, peer, kind, 0, 0);
            }
            opened = 1;
        }
        /* adjacent runs of consecutive sources merge into one range */
        topo_sched_range(s, r->order[j0 + j] * b->K + cut[k], cut[k + 1] - cut[k]);
    }
}

/* One step of the allgather (step t), or of the reduce-scatter (rs: the
 * allgather's step t reversed).  self: this rank's receiver side; nbr:
 * its neighbours' (the receivers it feeds). */
static int bfb_step(topo_sched_t *s, const bfb_t *b, bfb_rx_t *self, bfb_rx_t *nbr, int nnb, int t,
                    int rs)
{
    int rc = solve(b, self, t);
    for (int i = 0; rc == TOPO_OK && i < nnb; i++) {
        rc = solve(b, &nbr[i], t);
    }
    if (rc != TOPO_OK) {
        return rc;
    }
    topo_sched_step(s);
    /* sends first, then receives, each in neighbour order */
    for (int pass = 0; pass < 2; pass++) {
        const int send = pass == 0;
        if (send == !rs) { /* the receivers this rank feeds in the allgather */
            for (int i = 0; i < nnb; i++) {
                for (int k = 0; k < nbr[i].nin; k++) {
                    if (nbr[i].in[k] == s->rank) {
                        emit(s, b, &nbr[i], t, k, nbr[i].x, send, TOPO_XFER_RECV_REDUCE);
                    }
                }
            }
        } else { /* this rank's own in-links */
            for (int k = 0; k < self->nin; k++) {
                emit(s, b, self, t, k, self->in[k], send,
                     rs ? TOPO_XFER_RECV_REDUCE : TOPO_XFER_RECV_COPY);
            }
        }
    }
    return TOPO_OK;
}

static int gen_bfb(topo_sched_t *s, const topo_gen_args_t *a, topo_prim_t mode)
{
    const topo_topology_t *t = a->topo;
    const int grid = t->kind == TOPO_NET_TORUS || t->kind == TOPO_NET_MESH;
    int big = 0;
    for (int i = 0; grid && i < t->ndims; i++) {
        big += t->dims[i] > 1;
    }
    if (!grid || !topo_topology_is_grid_of(t, a->size) || big > BFB_MAX_DIMS) {
        topo_sched_init(s, a->size, a->rank, 1);
        return TOPO_ENOTSUP; /* not a candidate (catalog: TOPO_ALG_GRID, fits) */
    }
    bfb_t b;
    memset(&b, 0, sizeof(b));
    b.t = t;
    b.n = a->size;
    b.nd = t->ndims;
    b.co = malloc(sizeof(int) * (size_t)b.n * (size_t)b.nd);
    bfb_rx_t self, nbr[BFB_MAX_NB];
    int nb[BFB_MAX_NB], nnb = 0, rc = TOPO_OK;
    memset(&self, 0, sizeof(self));
    memset(nbr, 0, sizeof(nbr));
    if (NULL == b.co) {
        topo_sched_init(s, a->size, a->rank, 1);
        return TOPO_ENOMEM;
    }
    for (int v = 0; v < b.n; v++) {
        topo_topology_coords(t, v, &b.co[v * b.nd]);
    }
    for (int i = 0; i < b.nd; i++) {
        const int n = t->dims[i];
        b.diam += t->periodic[i] ? n / 2 : n - 1;
        b.maxnb += n > 2 ? 2 : n - 1;
    }
    /* K first (from rank 0's receiver side on a torus) */
    b.K = 1;
    rc = rx_init(&b, &self, 0);
    if (TOPO_OK == rc) {
        b.K = parts(&b, &self);
        rc = b.K > 0 ? TOPO_OK : TOPO_ENOMEM;
        if (TOPO_OK == rc && (int64_t)b.n * b.K > INT32_MAX) {
            rc = TOPO_ENOTSUP; /* more blocks than a schedule can number */
        }
    }
    rx_free(&self);
    memset(&self, 0, sizeof(self));
    if (TOPO_OK == rc) {
        rc = rx_init(&b, &self, a->rank);
    }
    if (TOPO_OK == rc) {
        nnb = neighbours(&b, a->rank, nb);
        for (int i = 0; i < nnb; i++) {
            rc = TOPO_OK == rc ? rx_init(&b, &nbr[i], nb[i]) : rc;
        }
    }
    const int64_t nblocks = (int64_t)b.n * b.K;
    topo_sched_init(s, b.n, a->rank, nblocks <= INT32_MAX ? (int)nblocks : 1);
    if (mode != TOPO_PRIM_ALLREDUCE) {
        s->nparts = b.K;
    }
    if (TOPO_OK == rc && b.diam > 0) {
        topo_sched_lane(s);
        if (mode != TOPO_PRIM_ALLGATHER) {
            for (int st = b.diam; TOPO_OK == rc && st >= 1; st--) {
                rc = bfb_step(s, &b, &self, nbr, nnb, st, 1);
            }
        }
        if (mode != TOPO_PRIM_REDUCE_SCATTER) {
            for (int st = 1; TOPO_OK == rc && st <= b.diam; st++) {
                rc = bfb_step(s, &b, &self, nbr, nnb, st, 0);
            }
        }
    }
    rx_free(&self);
    for (int i = 0; i < nnb; i++) {
        rx_free(&nbr[i]);
    }
    free(b.co);
    if (TOPO_OK != rc) {
        return rc;
    }
    return topo_sched_finish(s);
}

int topo_fits_bfb(const topo_gen_args_t *a, char *why, size_t len)
{
    int big = 0;
    for (int i = 0; i < a->topo->ndims; i++) {
        big += a->topo->dims[i] > 1;
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
