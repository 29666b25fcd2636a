/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The cost model (see cost.h), derived from the schedules.
 *
 * Blocks are priced at their exact share of the payload M (block b of an
 * evenly split vector is M / nblocks bytes), so every term is proportional
 * to M and the cost is affine: lat + per_byte * M.  A step costs alpha if
 * any rank transfers in it, plus the slowest rank's time to move its bytes:
 * a rank with P ports sends (and, full duplex, receives) on up to P links
 * at once, so its time is beta * max(largest message, bytes / P) in each
 * direction, plus gamma per byte it reduces and `copy` (topo_cost_net_t)
 * per byte it copies locally; and msg_overhead per message of the rank
 * that sends and receives the most (LogP's o, paid at both ends).  Each
 * lane is priced over its own steps and the call takes the slowest lane
 * (cost.h): a lane's messages are its own, the rank's ports, core and
 * shared memory and the links are shared with the rank's other lanes at
 * the same step index.
 *
 * Contention (grid topologies of the communicator's size): no rank's bytes
 * move faster than the most loaded link they cross, so the port term is
 * raised to the step's maximum directed link load L (links.c routes the
 * sends), and the longest route H adds hop * (H - 1).
 *
 * Memory.  The schedules are generated one rank at a time (pass 1: port
 * terms, hops).  Link loads need every rank's sends of a step together, so
 * links.c accumulates an array of link loads per step, for as many steps as
 * the budget holds (W = budget / links), in pass 1 itself: all of them
 * unless depth * links exceeds the budget.  For the steps after the first
 * W, pass 1 also finds those whose messages all cross a single link without
 * a split ("direct" steps: a link then carries only its own node's
 * messages, and L is the largest such per-link sum, known from one rank at
 * a time); the others are accumulated in windows of W steps, each window
 * generating the schedules of all ranks again.
 */
#include "cost.h"

#include "graph.h"
#include "links.h"
#include "pack.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static size_t link_budget = (size_t)1 << 22;

/* Every rank's schedule is priced unless they hold more steps, transfers,
 * ranges and blocks than this together (topo_cost_net_t.price_ranks). */
#define TOPO_COST_FULL_WORK ((size_t)1 << 21)
static int force_sampling = 0;

int topo_cost_force_sampling(int on)
{
    int old = force_sampling;
    force_sampling = on;
    return old;
}

static int repeat_runs = 1;

int topo_cost_repeat_runs(int on)
{
    int old = repeat_runs;
    repeat_runs = on;
    return old;
}

size_t topo_cost_link_budget(size_t doubles)
{
    size_t old = link_budget;
    if (doubles > 0) {
        link_budget = doubles;
    }
    return old;
}

typedef struct {
    double send_sum, send_max, recv_sum, recv_max, reduce;
    double copied;                 /* bytes copied locally (pack, unpack, COPY) */
    double intra_send, intra_recv; /* bytes to and from ranks of this node */
    double intra_written;          /* of intra_send: blocks written in this call */
    double intra_max;              /* the largest of those messages */
    int active, net, intra;        /* transfers; over the network; intra-host */
    int busy;                      /* transfers or copies */
    int msgs;                      /* messages sent and received */
    int hops;                      /* the longest route of its sends */
} rank_step_t;

/* What pass 1 gathers per step of a lane, maxima over the ranks priced.
 * A lane's own terms are its messages' latency, hops and largest message;
 * what the lanes of a rank share (its ports as a pool, its core: the
 * messages' overhead, reductions and copies; its shared memory) counts all
 * its lanes' traffic of the step, as if the lanes' steps of one index ran
 * at once. */
typedef struct {
    double port_time; /* beta * port_r + gamma * reduce_r + copy * copied_r */
    double port;      /* port_r, units of M */
    double msg;       /* the largest single message, units of M */
    double reduce;    /* gamma * reduce_r + copy * copied_r: local work */
    int hops;
    int active, net, intra;
    int busy;  /* some transfer or copy */
    int msgs;  /* the most messages a rank sends and receives in the lane */
    int omsgs; /* ... in all its lanes: what its core handles (msg_overhead) */
} lane1_t;

/* What pass 1 gathers per step, all lanes together: where links are
 * modelled, the most any priced rank puts on one of its node's links (the
 * first links of its routes: the most loaded link of a step whose
 * messages are all direct); p1_t.cls holds the rest. */
typedef struct {
    double first;
    int busy;   /* some lane transfers or copies */
    int routed; /* some message is not direct */
} pass1_t;

/* Pass 1's result: depth steps, nlanes lanes.  While pass 1 runs, the
 * entries are runs of steps (start != NULL): entry k stands for every
 * step of [start[k], start[k + 1]) (start[nruns] = depth), all of which
 * hold the same terms.  A rank's schedule whose steps repeat (a segment
 * of topo_sched_repeat whose peers stay: a ring's, a pipeline's) adds the
 * same terms to each of its steps, so it is priced once per run it
 * covers instead of once per step; the runs split where a rank's terms
 * may change (p1_refine).  The same additions in the same order as step
 * by step: every step's terms are the same, bit for bit.  p1_expand
 * makes the steps' entries for what follows pass 1. */
typedef struct {
    pass1_t *step; /* [depth] (runs: [nruns]) */
    lane1_t *lane; /* [depth * nlanes]: step st of lane l at st * nlanes + l */
    int *nsteps;   /* [nlanes]: the steps of each lane (the most of a rank) */
    /* For the sampled pricing (ctx_t.ncls > 0), per step and link class
     * (dim * 2 + dir; a graph's one) the weight times the links crossed,
     * summed over the priced ranks: [depth * ncls], step st's at st *
     * ncls (only the classes the topology has: a ring of 65,535 steps
     * holds 2 MiB of them instead of 8) */
    double *cls;
    int ncls;
    int depth, nlanes;
    int *start; /* [nruns + 1]: the runs' first steps (NULL: expanded) */
    int nruns;
} p1_t;

static void p1_free(p1_t *p)
{
    free(p->step);
    free(p->lane);
    free(p->nsteps);
    free(p->cls);
    free(p->start);
    memset(p, 0, sizeof(*p));
}

/* Entries for n runs of nl lanes: each array at least one entry (no
 * allocation of 0 bytes), zeroed.  Returns 0 without memory (p's arrays
 * untouched). */
static int p1_alloc(const p1_t *p, int n, int nl, pass1_t **st, lane1_t **ln, double **cl,
                    int **start)
{
    const size_t m = n > 0 ? (size_t)n : 1;
    *st = calloc(m, sizeof(**st));
    *ln = calloc(m * (size_t)(nl > 0 ? nl : 1), sizeof(**ln));
    *cl = p->ncls > 0 ? calloc(m * (size_t)p->ncls, sizeof(**cl)) : NULL;
    int *sp = NULL != start ? malloc(sizeof(int) * (m + 1)) : NULL;
    if (NULL == *st || NULL == *ln || (p->ncls > 0 && NULL == *cl) ||
        (NULL != start && NULL == sp)) {
        free(*st);
        free(*ln);
        free(*cl);
        free(sp);
        return 0;
    }
    if (NULL != start) {
        *start = sp;
    }
    return 1;
}

/* Copy entry `from` of p (nlanes lanes) to entry `to` of the arrays of
 * nl >= p->nlanes lanes (lanes past p's zero). */
static void p1_copy(const p1_t *p, int from, pass1_t *st, lane1_t *ln, double *cl, int to, int nl)
{
    st[to] = p->step[from];
    memcpy(ln + (size_t)to * (size_t)nl, p->lane + (size_t)from * (size_t)p->nlanes,
           sizeof(*ln) * (size_t)p->nlanes);
    if (p->ncls > 0) {
        memcpy(cl + (size_t)to * (size_t)p->ncls, p->cls + (size_t)from * (size_t)p->ncls,
               sizeof(*cl) * (size_t)p->ncls);
    }
}

/* Replace p's entries (runs) with st, ln, cl and start (n runs, nl lanes). */
static void p1_set(p1_t *p, pass1_t *st, lane1_t *ln, double *cl, int *start, int n, int nl)
{
    free(p->step);
    free(p->lane);
    free(p->cls);
    free(p->start);
    p->step = st;
    p->lane = ln;
    p->cls = cl;
    p->start = start;
    p->nruns = n;
    p->nlanes = nl;
}

/* Room for d steps of nl lanes (at least the present ones), new entries
 * zeroed: steps past the present depth one run more. */
static int p1_grow(p1_t *p, int d, int nl)
{
    d = d > p->depth ? d : p->depth;
    nl = nl > p->nlanes ? nl : p->nlanes;
    if (d == p->depth && nl == p->nlanes) {
        return TOPO_OK;
    }
    int *nn = realloc(p->nsteps, sizeof(*nn) * (size_t)(nl > 0 ? nl : 1));
    if (NULL == nn) {
        return TOPO_ENOMEM;
    }
    memset(nn + p->nlanes, 0, sizeof(*nn) * (size_t)(nl - p->nlanes));
    p->nsteps = nn;
    const int n = p->nruns + (d > p->depth);
    pass1_t *st;
    lane1_t *ln;
    double *cl;
    int *start;
    if (!p1_alloc(p, n, nl, &st, &ln, &cl, &start)) {
        return TOPO_ENOMEM;
    }
    for (int k = 0; k < p->nruns; k++) {
        p1_copy(p, k, st, ln, cl, k, nl);
        start[k] = p->start[k];
    }
    if (d > p->depth) {
        start[p->nruns] = p->depth;
    }
    start[n] = d;
    p1_set(p, st, ln, cl, start, n, nl);
    p->depth = d;
    return TOPO_OK;
}

/* Runs that start at each of cuts[0 .. n) (ascending, each within
 * [0, depth)): a run cut in two holds the same terms on both sides. */
static int p1_refine(p1_t *p, const int *cuts, int n)
{
    int add = 0;
    for (int i = 0, k = 0; i < n; i++) { /* the cuts no run starts at */
        while (k < p->nruns && p->start[k] < cuts[i]) {
            k++;
        }
        add += k >= p->nruns || p->start[k] != cuts[i];
    }
    if (0 == add) {
        return TOPO_OK;
    }
    const int m = p->nruns + add;
    pass1_t *st;
    lane1_t *ln;
    double *cl;
    int *start;
    if (!p1_alloc(p, m, p->nlanes, &st, &ln, &cl, &start)) {
        return TOPO_ENOMEM;
    }
    int j = 0;
    for (int k = 0, i = 0; k < p->nruns; k++) {
        while (i < n && cuts[i] < p->start[k]) {
            i++;
        }
        if (i < n && cuts[i] == p->start[k]) {
            i++;
        }
        p1_copy(p, k, st, ln, cl, j, p->nlanes);
        start[j++] = p->start[k];
        for (; i < n && cuts[i] < p->start[k + 1]; i++) { /* the run's cuts */
            p1_copy(p, k, st, ln, cl, j, p->nlanes);
            start[j++] = cuts[i];
        }
    }
    start[m] = p->depth;
    p1_set(p, st, ln, cl, start, m, p->nlanes);
    return TOPO_OK;
}

typedef struct {
    const topo_topology_t *t;
    const topo_cost_params_t *p;
    const int *ranks; /* the ranks priced (nranks of them), or NULL: all */
    int nranks;
    int ports;
    int links;         /* contention is modelled */
    int estimate;      /* ... from the priced ranks' classes (a sample) */
    int ncls;          /* the classes p1_t.cls sums (0: none) */
    int placed;        /* a placement: ranks of one node are intra-host */
    double intra_beta; /* seconds per byte between ranks of one node */
    double written;    /* the same for blocks the sender wrote in the call */
    double copy;       /* seconds per byte copied locally */
    struct flows *rec; /* the sampled pricing: the priced ranks' sends */
    int nfirst;        /* the entries of topo_link_classes' first[] it may fill */
} ctx_t;

static double dmax(double a, double b)
{
    return a > b ? a : b;
}

/* Blocks of x's ranges (`ranges`: the array x indexes) marked in
 * `written`. */
static int count_written(const topo_range_t *ranges, const topo_xfer_t *x,
                         const unsigned char *written)
{
    int n = 0;
    topo_range_iter_t it;
    topo_range_t r;
    for (topo_range_iter(&it, ranges, x, 0); topo_range_next(&it, &r);) {
        for (int32_t b = r.first; b < r.first + r.count; b++) {
            n += written[b];
        }
    }
    return n;
}

static void mark_written(const topo_range_t *ranges, const topo_xfer_t *x, unsigned char *written)
{
    topo_range_iter_t it;
    topo_range_t r;
    for (topo_range_iter(&it, ranges, x, 0); topo_range_next(&it, &r);) {
        memset(written + r.first, 1, (size_t)r.count);
    }
}

/* The sampled pricing's sends (ctx_t.rec): every send of every priced
 * rank, in the order priced (ranks ascending, steps ascending), for the
 * extrapolation of the link loads (extrapolate); a send that pass 1's
 * runs price once for `count` steps is one entry, the send of each of
 * those steps.  At most FLOWS_MAX sends, counted step by step: a sample
 * that sends more is estimated without (full = 1). */
typedef struct {
    int32_t step, count, rank, peer;
    double w;
} flow_t;

struct flows {
    flow_t *f;
    size_t n, cap;
    size_t sends; /* the sends the entries stand for */
    size_t work;  /* steps, transfers, ranges and blocks of the priced
                     ranks' schedules: what the routing may spend, times
                     EXTRAP_PER_ITEM */
    int full;     /* over FLOWS_MAX, or out of memory: not extrapolated */
};

#define FLOWS_MAX ((size_t)1 << 20)

static void record(struct flows *fl, int step, int count, int rank, int peer, double w)
{
    fl->sends += (size_t)count;
    if (fl->full || fl->sends > FLOWS_MAX) { /* not extrapolated: the memory back at once */
        free(fl->f);
        *fl = (struct flows){.full = 1};
        return;
    }
    if (fl->n == fl->cap) {
        size_t ncap = fl->cap ? fl->cap * 2 : 1024;
        flow_t *nf = realloc(fl->f, sizeof(*nf) * ncap);
        if (NULL == nf) {
            free(fl->f);
            *fl = (struct flows){.full = 1};
            return;
        }
        fl->f = nf;
        fl->cap = ncap;
    }
    fl->f[fl->n++] = (flow_t){step, count, rank, peer, w};
}

/* Step st of s into entry k of acc (a step, or a run of steps whose terms
 * s repeats: pass 1's runs), and its sends recorded for each step of
 * [st, end) (end: the run of s's repeated steps st is the first of).
 * `written`: NULL, or s->nblocks zeroed bytes to track the blocks the rank
 * has written (received or copied into) in the steps before the current
 * one, for the intra-host sends of such blocks (ctx_t.written).  `u`: room
 * for s->nlanes entries.  acc has room for s's steps and lanes. */
static void price_step(const topo_sched_t *s, const ctx_t *c, double share, int st, int end, int k,
                       p1_t *acc, unsigned char *written, rank_step_t *u)
{
    topo_step_view_t v;
    rank_step_t t = {0}; /* the rank's, all lanes together */
    double first[2 * TOPO_MAX_DIMS];
    int routed = 0;
    for (int l = 0; l < s->nlanes; l++) {
        u[l] = (rank_step_t){0};
    }
    /* the classes topo_link_classes fills (the rest stays 0 and adds
     * nothing to the step's maximum) */
    for (int d = 0; d < c->nfirst; d++) {
        first[d] = 0.0;
    }
    pass1_t *a = &acc->step[k];
    for (int l = 0; l < s->nlanes; l++) {
        if (st >= s->lanes[l].nsteps) {
            continue;
        }
        rank_step_t *o = &u[l]; /* the lane's own */
        topo_sched_step_at(s, l, st, &v);
        for (int i = 0; i < v.nxfers; i++) {
            const topo_range_t *rg;
            const topo_xfer_t *x = topo_step_xfer(&v, i, &rg);
            double bytes = x->nblk * share;
            /* Local copies are not on the wire, but take the rank's
             * time, as the executor does them (pack.h): a COPY, a send
             * of several ranges packed, a receive of several ranges (or
             * not received in place) unpacked. */
            if (topo_pack_copies(x)) {
                t.copied += bytes;
            }
            o->active = o->active || x->kind != TOPO_XFER_COPY;
            o->busy = 1;
            if (x->kind == TOPO_XFER_COPY) {
                continue;
            }
            if (x->kind == TOPO_XFER_SEND && NULL != c->rec && end > st) {
                record(c->rec, st, end - st, s->rank, x->peer, bytes);
            }
            o->msgs++;
            t.msgs++;
            /* a peer on this rank's node: shared memory, no ports (with
             * or without link sharing: the class is not a link) */
            if (c->placed && x->peer != s->rank &&
                0 == topo_topology_hops(c->t, s->rank, x->peer)) {
                o->intra = 1;
                o->intra_max = dmax(o->intra_max, bytes);
                if (x->kind == TOPO_XFER_SEND) {
                    t.intra_send += bytes;
                    if (NULL != written) {
                        t.intra_written += count_written(rg, x, written) * share;
                    }
                } else {
                    t.intra_recv += bytes;
                    t.reduce += x->kind != TOPO_XFER_RECV_COPY ? bytes : 0.0;
                }
                continue;
            }
            o->net = 1;
            if (x->kind == TOPO_XFER_SEND) {
                t.send_sum += bytes;
                o->send_max = dmax(bytes, o->send_max);
                /* where links are modelled, the route's length is
                 * topo_topology_hops' (a peer of this node: 0, and
                 * nothing on links) */
                int h = x->peer != s->rank, direct = 1;
                if (c->links) {
                    direct = topo_link_classes(
                        c->t, s->rank, x->peer, bytes, first,
                        c->ncls > 0 ? &acc->cls[(size_t)k * (size_t)c->ncls] : NULL, &h);
                }
                o->hops = h > o->hops ? h : o->hops;
                if (h > 0 && !direct) {
                    routed = 1;
                }
            } else if (x->kind != TOPO_XFER_COPY) {
                t.recv_sum += bytes;
                o->recv_max = dmax(bytes, o->recv_max);
                if (x->kind != TOPO_XFER_RECV_COPY) {
                    t.reduce += bytes;
                }
            }
        }
    }
    /* the rank's shared terms: its bytes over its ports, its shared
     * memory, its core */
    const int ports = c->ports;
    const double intra =
        dmax(c->intra_beta * (t.intra_send - t.intra_written) + c->written * t.intra_written,
             c->intra_beta * t.intra_recv);
    const double local = c->p->gamma * t.reduce + c->copy * t.copied;
    for (int l = 0; l < s->nlanes; l++) {
        const rank_step_t *o = &u[l];
        if (!o->busy) { /* the lane waits for nothing in this step */
            continue;
        }
        lane1_t *e = &acc->lane[(size_t)k * (size_t)acc->nlanes + (size_t)l];
        double out = dmax(t.send_sum / ports, o->send_max);
        double in = dmax(t.recv_sum / ports, o->recv_max);
        e->port = dmax(e->port, dmax(out, in));
        e->msg = dmax(e->msg, dmax(dmax(o->send_max, o->recv_max), o->intra_max));
        e->port_time = dmax(e->port_time, dmax(c->p->beta * dmax(out, in), intra) + local);
        e->reduce = dmax(e->reduce, local);
        e->hops = o->hops > e->hops ? o->hops : e->hops;
        e->active = e->active || o->active;
        e->busy = 1;
        e->net = e->net || o->net;
        e->intra = e->intra || o->intra;
        e->msgs = o->msgs > e->msgs ? o->msgs : e->msgs;
        e->omsgs = t.msgs > e->omsgs ? t.msgs : e->omsgs;
        a->busy = 1;
    }
    for (int d = 0; d < c->nfirst; d++) {
        a->first = dmax(a->first, first[d]);
    }
    a->routed = a->routed || routed;
}

/* What step st of s receives or copies into `written` (it counts from
 * the next step on: a step's sends read the blocks as they were at its
 * start). */
static void mark_step(const topo_sched_t *s, int st, unsigned char *written)
{
    topo_step_view_t v;
    for (int l = 0; l < s->nlanes; l++) {
        if (st >= s->lanes[l].nsteps) {
            continue;
        }
        topo_sched_step_at(s, l, st, &v);
        for (int i = 0; i < v.nxfers; i++) {
            const topo_range_t *rg;
            const topo_xfer_t *x = topo_step_xfer(&v, i, &rg);
            if (x->kind != TOPO_XFER_SEND) {
                mark_written(rg, x, written);
            }
        }
    }
}

/* Does every step of g (a segment of s) add the same terms as its first:
 * one stored step repeated with the peers where they are (a ring's
 * blocks moving, a pipeline's segment after segment)?  Its repetitions
 * then keep each transfer's kind, block count, ranges and `direct` (the
 * repeat stores them once only so, schedule.h) unless a range outside
 * the windows changes length (dcount), and so its sizes, copies and
 * routes; only the blocks' places move, which the written-block tracking
 * alone reads. */
static int seg_same(const topo_sched_t *s, const topo_seg_t *g)
{
    if (g->reps < 2 || 1 != g->nsteps) {
        return 0;
    }
    /* a range outside the windows that grows or shrinks (dcount, a
     * relay's tail) changes the transfer's size from step to step */
    for (int32_t i = 0; i < s->steps[g->step0].nxfers; i++) {
        const topo_shift_t *sh = &s->shifts[g->shift0 + i];
        if (0 != sh->dpeer || 0 != sh->dcount) {
            return 0;
        }
    }
    return 1;
}

/* The end of the steps from x on (x < the lane's steps) over which lane
 * l of s adds the same terms: its segment's end where the segment repeats
 * one step with its peers (seg_same), else x + 1.  *g: the segment to
 * search from (advanced, for the next x). */
static int lane_same_until(const topo_sched_t *s, int l, int x, int *g, int same)
{
    const topo_lane_t *ln = &s->lanes[l];
    while (*g < ln->nsegs - 1 && s->segs[ln->seg0 + *g + 1].at <= x) {
        (*g)++;
    }
    const topo_seg_t *sg = &s->segs[ln->seg0 + *g];
    const int end = sg->at + sg->nsteps * sg->reps;
    return same && sg->at <= x && x < end && seg_same(s, sg) ? end : x + 1;
}

/* One rank's schedule s into acc (pass 1's runs, room for s's depth
 * `depth` and lanes): s's steps cut where its terms may change (every
 * step, but a repeated segment of seg_same as one), acc's runs cut
 * there too (p1_refine), and each of acc's runs priced from the first
 * step of s's that covers it.  written, u: as price_step's. */
static int price_rank(const topo_sched_t *s, const ctx_t *c, int depth, p1_t *acc,
                      unsigned char *written, rank_step_t *u)
{
    const double share = topo_sched_block_share(s);
    int *seg = calloc((size_t)(s->nlanes > 0 ? s->nlanes : 1), sizeof(int));
    int *cuts = NULL, n = 0, cap = 0, rc = NULL == seg ? TOPO_ENOMEM : TOPO_OK;
    for (int x = 0; x < depth && TOPO_OK == rc;) {
        int y = depth;
        for (int l = 0; l < s->nlanes; l++) {
            if (x < s->lanes[l].nsteps) {
                const int e = lane_same_until(s, l, x, &seg[l], repeat_runs && NULL == written);
                y = e < y ? e : y;
            }
        }
        if (n + 1 >= cap) {
            cap = cap ? 2 * cap : 64;
            int *nc = realloc(cuts, sizeof(*nc) * (size_t)cap);
            rc = NULL == nc ? TOPO_ENOMEM : TOPO_OK;
            cuts = NULL == nc ? cuts : nc;
        }
        if (TOPO_OK == rc) {
            cuts[n++] = x;
        }
        x = y;
    }
    if (TOPO_OK == rc && depth < acc->depth) { /* the steps past s's stay */
        cuts[n] = depth;
        rc = p1_refine(acc, cuts, n + 1);
    } else if (TOPO_OK == rc) {
        rc = p1_refine(acc, cuts, n);
    }
    for (int i = 0, k = 0; i < n && TOPO_OK == rc; i++) {
        const int x = cuts[i], y = i + 1 < n ? cuts[i + 1] : depth;
        while (acc->start[k] < x) {
            k++;
        }
        for (int first = 1; k < acc->nruns && acc->start[k] < y; k++, first = 0) {
            price_step(s, c, share, x, first ? y : x, k, acc, written, u);
        }
        if (NULL != written) { /* every step apart: what x wrote, for x + 1 on */
            mark_step(s, x, written);
        }
    }
    free(seg);
    free(cuts);
    return rc;
}

/* Generate the schedules of all ranks again and accumulate the link loads
 * of `steps` (n of them) into link[steps[k]]. */
static int window(const topo_algo_t *algo, const topo_gen_args_t *a, const int *steps, int n,
                  double *link)
{
    topo_link_acc_t *acc;
    topo_step_load_t *out = malloc(sizeof(*out) * (size_t)n);
    int rc = NULL == out ? TOPO_ENOMEM : topo_link_acc_create(a->topo, a->size, steps, n, &acc);
    if (TOPO_OK != rc) {
        free(out);
        return rc;
    }
    for (int r = 0; r < a->size && TOPO_OK == rc; r++) {
        topo_sched_t s;
        topo_gen_args_t ar = *a;
        ar.rank = r;
        if (TOPO_OK == (rc = topo_algo_generate(algo, &ar, &s))) {
            topo_link_acc_add(acc, &s);
            topo_sched_free(&s);
        }
    }
    if (TOPO_OK == rc) {
        topo_link_acc_loads(acc, out);
        for (int k = 0; k < n; k++) {
            link[steps[k]] = out[k].max_load;
        }
    }
    topo_link_acc_free(acc);
    free(out);
    return rc;
}

/* Pass 1, one rank's schedule at a time (p1_begin, p1_add per schedule,
 * p1_end): the state between them. */
typedef struct {
    const ctx_t *c;
    p1_t *acc;
    topo_link_acc_t *la; /* steps 0 .. first-1 of every rank's links */
    rank_step_t *u;
    int nu, first;
    size_t nlinks;
    size_t work0; /* rank 0's steps, transfers, ranges and blocks (SIZE_MAX:
                     not priced) */
} p1_state_t;

static void p1_begin(p1_state_t *ps, const topo_gen_args_t *a, const ctx_t *c, p1_t *acc)
{
    *ps = (p1_state_t){.c = c,
                       .acc = acc,
                       .nlinks = c->links ? topo_link_count(a->topo, a->size) : 0,
                       .work0 = SIZE_MAX};
    acc->ncls = c->ncls;
}

/* Rank s->rank's schedule into pass 1. */
static int p1_add(p1_state_t *ps, const topo_gen_args_t *a, const topo_sched_t *s)
{
    const ctx_t *c = ps->c;
    p1_t *acc = ps->acc;
    int rc = TOPO_OK;
    const int d = topo_sched_depth(s), r = s->rank;
    if (s->nlanes > ps->nu) {
        rank_step_t *nu1 = realloc(ps->u, sizeof(*ps->u) * (size_t)s->nlanes);
        if (NULL == nu1) {
            return TOPO_ENOMEM;
        }
        ps->u = nu1;
        ps->nu = s->nlanes;
    }
    if (d > acc->depth) {
        rc = p1_grow(acc, d, s->nlanes);
        if (TOPO_OK == rc) {
            /* every rank has the depth of rank 0; should one not, its
             * link loads are left to the windows */
            topo_link_acc_free(ps->la);
            ps->la = NULL;
            ps->first = 0;
            if (0 == r && c->links && !c->estimate) {
                size_t w = link_budget / ps->nlinks;
                ps->first = (size_t)d <= w ? d : (int)w;
                rc = ps->first > 0
                         ? topo_link_acc_create(a->topo, a->size, NULL, ps->first, &ps->la)
                         : TOPO_OK;
            }
        }
    } else {
        rc = p1_grow(acc, d, s->nlanes);
    }
    unsigned char *written = NULL;
    if (TOPO_OK == rc && c->placed && c->written != c->intra_beta && s->nblocks > 0 &&
        NULL == (written = calloc((size_t)s->nblocks, 1))) {
        rc = TOPO_ENOMEM;
    }
    if (TOPO_OK == rc) {
        rc = price_rank(s, c, d, acc, written, ps->u);
    }
    if (TOPO_OK == rc) {
        for (int l = 0; l < s->nlanes; l++) {
            const int k = s->lanes[l].nsteps;
            acc->nsteps[l] = k > acc->nsteps[l] ? k : acc->nsteps[l];
        }
        size_t ns, nx, nr;
        topo_sched_totals(s, &ns, &nx, &nr);
        if (NULL != c->rec) {
            c->rec->work += ns + nx + nr + (size_t)s->nblocks;
        }
        if (0 == r) {
            ps->work0 = ns + nx + nr + (size_t)s->nblocks;
        }
        if (NULL != ps->la) {
            topo_link_acc_add(ps->la, s);
        }
    }
    free(written);
    return rc;
}

/* Pass 1's end (rc: its state so far): link (*linkp, acc->depth entries)
 * for the first *done steps, as many as the budget holds; acc freed on
 * an error. */
static int p1_end(p1_state_t *ps, int rc, double **linkp, int *done)
{
    p1_t *acc = ps->acc;
    free(ps->u);
    *done = 0;
    const int depth = acc->depth;
    double *link = NULL;
    if (TOPO_OK == rc && depth > 0 && NULL == (link = calloc((size_t)depth, sizeof(double)))) {
        rc = TOPO_ENOMEM;
    }
    if (TOPO_OK == rc && NULL != ps->la) {
        topo_step_load_t *out = malloc(sizeof(*out) * (size_t)ps->first);
        if (NULL == out) {
            rc = TOPO_ENOMEM;
        } else {
            topo_link_acc_loads(ps->la, out);
            for (int st = 0; st < ps->first; st++) {
                link[st] = out[st].max_load;
            }
            *done = ps->first;
            free(out);
        }
    }
    topo_link_acc_free(ps->la);
    if (TOPO_OK != rc) {
        p1_free(acc);
        free(link);
        return rc;
    }
    *linkp = link;
    return TOPO_OK;
}

/* Pass 1 over all ranks (or c->ranks); fills *acc (zeroed by the caller)
 * and link (*linkp) for the first *done steps (p1_end); *work0 (NULL: not
 * wanted): rank 0's steps, transfers, ranges and blocks, SIZE_MAX when it
 * is not priced. */
static int pass1(const topo_algo_t *algo, const topo_gen_args_t *a, const ctx_t *c, p1_t *acc,
                 double **linkp, int *done, size_t *work0)
{
    p1_state_t ps;
    int rc = TOPO_OK;
    p1_begin(&ps, a, c, acc);
    const int n = NULL != c->ranks ? c->nranks : a->size;
    for (int i = 0; i < n && TOPO_OK == rc; i++) {
        topo_sched_t s;
        topo_gen_args_t ar = *a;
        ar.rank = NULL != c->ranks ? c->ranks[i] : i;
        if (TOPO_OK == (rc = topo_algo_generate(algo, &ar, &s))) {
            rc = p1_add(&ps, a, &s);
            topo_sched_free(&s);
        }
    }
    if (NULL != work0) {
        *work0 = ps.work0;
    }
    return p1_end(&ps, rc, linkp, done);
}

/* The sampled pricing's shortcut for schedules that repeat from rank to
 * rank (a torus's ranks running translates of one schedule: Trivance,
 * Swing, Bruck, a ring): when PROBES ranks of the sample (its first four,
 * to meet every class of extrapolate's hypotheses, its last, and three
 * spread between) each price to the same terms, step by step (the same
 * 64-bit hash of them: ports, messages, hops, local work, the loads on
 * their nodes' links and per link class), the sample is priced on them: the maxima over the
 * sample are theirs, and the link classes' averages the same.  Returns 1
 * when the n probes (probe_ranks) agree, and then *comb, *clink and
 * *cdone hold pass 1 on them with the context `pc` (c's on the probes),
 * each probe's schedule generated once for both. */
#define PROBES 8

/* The probes of c's sample into probes (room for PROBES): how many, 0
 * for a sample too small to probe. */
static int probe_ranks(const ctx_t *c, int *probes)
{
    const int k = c->nranks;
    const int at[PROBES] = {0, 1, 2, 3, k / 3, k / 2, 2 * k / 3, k - 1};
    int n = 0;
    if (k < 4 * PROBES) {
        return 0;
    }
    for (int i = 0; i < PROBES; i++) {
        if (0 == n || c->ranks[at[i]] > probes[n - 1]) {
            probes[n++] = c->ranks[at[i]];
        }
    }
    return n;
}

static int probe_same(const topo_algo_t *algo, const topo_gen_args_t *a, const ctx_t *c,
                      const int *probes, int n, const ctx_t *pc, p1_t *comb, double **clink,
                      int *cdone)
{
    uint64_t href = 0;
    int dref = 0, lref = 0, same = 1, rc = TOPO_OK;
    p1_state_t cs0; /* pass 1 on the probes together */
    p1_begin(&cs0, a, pc, comb);
    for (int i = 0; i < n && same; i++) {
        ctx_t one = *c;
        one.ranks = &probes[i];
        one.nranks = 1;
        one.rec = NULL;
        p1_t acc = {0};
        double *link;
        int done;
        topo_sched_t sc;
        topo_gen_args_t ar = *a;
        ar.rank = probes[i];
        if (TOPO_OK != topo_algo_generate(algo, &ar, &sc)) {
            same = 0;
            break;
        }
        p1_state_t os;
        p1_begin(&os, a, &one, &acc);
        int orc = p1_add(&os, a, &sc);
        rc = TOPO_OK == rc ? p1_add(&cs0, a, &sc) : rc;
        topo_sched_free(&sc);
        if (TOPO_OK != p1_end(&os, orc, &link, &done)) {
            same = 0;
            break;
        }
        free(link);
        /* one probe's terms at a time: its steps as runs of equal terms,
         * adjacent runs that hold the same terms merged (so that equal
         * steps make equal runs, however pass 1 cut them), each run's
         * terms and length compared by their FNV-1a hash, bit for bit
         * with one chance in 2^64 of a false agreement */
        uint64_t h = 14695981039346656037ull;
        const size_t ls = sizeof(*acc.lane) * (size_t)acc.nlanes;
        const size_t cs = sizeof(*acc.cls) * (size_t)acc.ncls;
        for (int k = 0; k < acc.nruns;) {
            int e = k + 1;
            while (e < acc.nruns && 0 == memcmp(&acc.step[e], &acc.step[k], sizeof(*acc.step)) &&
                   0 == memcmp(acc.lane + (size_t)e * acc.nlanes,
                               acc.lane + (size_t)k * acc.nlanes, ls) &&
                   (0 == cs || 0 == memcmp(acc.cls + (size_t)e * acc.ncls,
                                           acc.cls + (size_t)k * acc.ncls, cs))) {
                e++;
            }
            const int len = acc.start[e] - acc.start[k];
            const unsigned char *b[4] = {(const unsigned char *)&acc.step[k],
                                         (const unsigned char *)(acc.lane + (size_t)k * acc.nlanes),
                                         NULL != acc.cls ? (const unsigned char *)(acc.cls +
                                                                          (size_t)k * acc.ncls)
                                                         : NULL,
                                         (const unsigned char *)&len};
            const size_t nb[4] = {sizeof(*acc.step), ls, NULL != acc.cls ? cs : 0, sizeof(len)};
            for (int q = 0; q < 4; q++) {
                for (size_t j = 0; j < nb[q]; j++) {
                    h = (h ^ b[q][j]) * 1099511628211ull;
                }
            }
            k = e;
        }
        const int d = acc.depth, nl = acc.nlanes;
        p1_free(&acc);
        if (0 == i) {
            href = h;
            dref = d;
            lref = nl;
            continue;
        }
        same = d == dref && nl == lref && h == href;
    }
    rc = p1_end(&cs0, same ? rc : TOPO_EINVAL, clink, cdone);
    return same && TOPO_OK == rc;
}

/* Steps, transfers, ranges and blocks in every rank's schedule together
 * (what generating and pricing a rank walk), estimated from rank 0's
 * (SIZE_MAX if it fails: the pricing will report that). */
static size_t sched_work(const topo_algo_t *algo, const topo_gen_args_t *a, size_t *xfers)
{
    topo_sched_t s;
    topo_gen_args_t a0 = *a;
    a0.rank = 0;
    if (TOPO_OK != topo_algo_generate(algo, &a0, &s)) {
        return SIZE_MAX;
    }
    size_t ns, nx, nr;
    topo_sched_totals(&s, &ns, &nx, &nr);
    const size_t per_rank = ns + nx + nr + (size_t)s.nblocks;
    if (NULL != xfers) {
        *xfers = nx;
    }
    topo_sched_free(&s);
    return per_rank * (size_t)a->size;
}

static int cmp_int(const void *a, const void *b);

/* The sampled pricing: a step in which no priced rank transfers or copies
 * is one in which others do (a pipeline's front passing between the
 * ranks priced: the chain's step s is rank s's), priced as the nearest
 * step in which a priced rank does (the earlier one of two as near).
 * On pass 1's runs (start, nruns; entry k at base + k stride, its busy
 * flag at offset `busy`), over the steps before lim: with `cuts`, only
 * the steps where a run must start for the idle runs to take one source
 * each (the half-way point of each idle stretch between two busy steps,
 * and lim), appended at cuts[*ncuts]; without, the idle runs filled. */
static void fill_idle(const int *start, int nruns, void *base, size_t size, size_t stride,
                      size_t busy, int lim, double *extra, size_t nextra, int *cuts, int *ncuts)
{
#define AT(k) ((char *)base + (size_t)(k) * stride)
#define BUSY(k) (*(const int *)(AT(k) + busy))
    if (NULL != cuts) {
        cuts[(*ncuts)++] = lim;
    }
    for (int k = 0; k < nruns && start[k] < lim; k++) {
        if (BUSY(k)) {
            continue;
        }
        int kb = k + 1; /* the next busy run */
        while (kb < nruns && start[kb] < lim && !BUSY(kb)) {
            kb++;
        }
        const int prev = start[k] - 1, next = kb < nruns && start[kb] < lim ? start[kb] : lim;
        /* from prev up to half way, from next after (st - prev <= next - st) */
        const int half = prev < 0 ? -1 : next >= lim ? lim : (prev + next) / 2;
        if (NULL != cuts) {
            if (half + 1 > start[k] && half + 1 < next) {
                cuts[(*ncuts)++] = half + 1;
            }
            k = kb - 1;
            continue;
        }
        for (; k < kb; k++) {
            const int from = start[k] <= half ? k - 1 : next < lim ? kb : -1;
            if (from >= 0) {
                memcpy(AT(k), AT(from), size);
                if (NULL != extra) { /* the step's row of `nextra` more */
                    memcpy(extra + (size_t)k * nextra, extra + (size_t)from * nextra,
                           sizeof(*extra) * nextra);
                }
            }
        }
        k = kb - 1;
    }
#undef BUSY
#undef AT
}

/* fill_idle for every step, and for every lane over its own steps: the
 * runs cut where the filled steps need it, then filled. */
static int fill_idle_all(p1_t *acc)
{
    const size_t ls = sizeof(*acc->lane) * (size_t)acc->nlanes;
    int *cuts = malloc(sizeof(int) * ((size_t)acc->nlanes + 1) * ((size_t)acc->nruns + 1)), n = 0;
    if (NULL == cuts) {
        return TOPO_ENOMEM;
    }
    fill_idle(acc->start, acc->nruns, acc->step, sizeof(*acc->step), sizeof(*acc->step),
              offsetof(pass1_t, busy), acc->depth, NULL, 0, cuts, &n);
    for (int l = 0; l < acc->nlanes; l++) {
        fill_idle(acc->start, acc->nruns, acc->lane + l, sizeof(*acc->lane), ls,
                  offsetof(lane1_t, busy), acc->nsteps[l], NULL, 0, cuts, &n);
    }
    qsort(cuts, (size_t)n, sizeof(int), cmp_int);
    int m = 0;
    for (int i = 0; i < n; i++) {
        if (cuts[i] > 0 && cuts[i] < acc->depth && (0 == m || cuts[i] != cuts[m - 1])) {
            cuts[m++] = cuts[i];
        }
    }
    const int rc = p1_refine(acc, cuts, m);
    free(cuts);
    if (TOPO_OK != rc) {
        return rc;
    }
    fill_idle(acc->start, acc->nruns, acc->step, sizeof(*acc->step), sizeof(*acc->step),
              offsetof(pass1_t, busy), acc->depth, acc->ncls > 0 ? acc->cls : NULL,
              (size_t)acc->ncls, NULL, NULL);
    for (int l = 0; l < acc->nlanes; l++) {
        fill_idle(acc->start, acc->nruns, acc->lane + l, sizeof(*acc->lane), ls,
                  offsetof(lane1_t, busy), acc->nsteps[l], NULL, 0, NULL, NULL);
    }
    return TOPO_OK;
}

/* The run of pass 1's acc that holds step st, searched from *k on (steps
 * asked in ascending order). */
static int run_at(const p1_t *acc, int st, int *k)
{
    while (acc->start[*k + 1] <= st) {
        (*k)++;
    }
    return *k;
}

/* The sampled pricing's link loads: a class (dim * 2 + dir) of the grid
 * carries the priced ranks' weight times links crossed, times `scale`
 * (size / ranks priced: the whole communicator's), over its links: those
 * of the nodes the communicator occupies (every node of the grid without
 * a placement), less a mesh line's last link in each direction.  The
 * average link of the class is no more loaded than its busiest, and is
 * the busiest where the traffic is the same from every node (a
 * translation of one rank's pattern, as the ring's or a bucket's).
 * per_link[d]: what a unit of the sum weighs on one link.  A graph has
 * one class, all its links (links.h: topo_link_classes). */
static int class_links(const topo_topology_t *t, int size, double scale, double *per_link)
{
    const int n = topo_topology_size(t);
    int nodes = n;
    if (NULL != t->place) {
        unsigned char *seen = calloc((size_t)n, 1);
        if (NULL == seen) {
            return TOPO_ENOMEM;
        }
        nodes = 0;
        for (int r = 0; r < size; r++) {
            const int v = topo_topology_node(t, r);
            nodes += !seen[v];
            seen[v] = 1;
        }
        free(seen);
    }
    if (TOPO_NET_GRAPH == t->kind) { /* one class: every link of the graph */
        per_link[0] = per_link[1] = scale / t->graph->m;
        return TOPO_OK;
    }
    for (int d = 0; d < t->ndims; d++) {
        const double m = t->dims[d];
        const double links = t->periodic[d] ? nodes : nodes * (m - 1) / m;
        per_link[d * 2] = per_link[d * 2 + 1] = links > 0 ? scale / links : 0.0;
    }
    return TOPO_OK;
}

/* A send of a priced rank, relative to the rank: the peer's offset
 * (peer - rank mod size; XOR: peer ^ rank; a torus: the coordinates'
 * offsets as a rank) and its weight. */
typedef struct {
    int64_t key;
    double w;
} rel_t;

static int cmp_rel(const void *a, const void *b)
{
    const rel_t *x = a, *y = b;
    if (x->key != y->key) {
        return (x->key > y->key) - (x->key < y->key);
    }
    return (x->w > y->w) - (x->w < y->w);
}

/* The hypotheses that carry a step of the priced ranks to every rank, in
 * the order tried: on a torus whose nodes are the ranks, every rank sends
 * to the same offsets of its coordinates (a translate of one schedule:
 * the multiport and dimension-wise algorithms); the ranks of a class
 * (rank mod m) all send the same offsets in rank order (a ring, Bruck,
 * pairwise exchange: m = 1; Swing's alternating partners: m = 2;
 * Trivance's: m = 3); or the same XOR masks (recursive doubling and
 * halving, on a power of two). */
enum { HYP_TORUS, HYP_ADD, HYP_XOR };
static const struct {
    int kind, m;
} hyps[] = {{HYP_TORUS, 1}, {HYP_ADD, 1}, {HYP_XOR, 1}, {HYP_ADD, 2}, {HYP_ADD, 3}, {HYP_ADD, 4}};

/* A torus of `size` nodes, one rank each: HYP_TORUS applies. */
static int whole_torus(const topo_topology_t *t, int size)
{
    if (TOPO_NET_TORUS != t->kind || NULL != t->place || topo_topology_size(t) != size) {
        return 0;
    }
    for (int i = 0; i < t->ndims; i++) {
        if (!t->periodic[i]) {
            return 0;
        }
    }
    return 1;
}

/* HYP_TORUS's key of a message from a to b: b's coordinates less a's
 * (modulo the torus) as a rank; and the rank at that key from r. */
static int64_t torus_key(const topo_topology_t *t, int a, int b)
{
    int ca[TOPO_MAX_DIMS], cb[TOPO_MAX_DIMS];
    topo_topology_coords(t, a, ca);
    topo_topology_coords(t, b, cb);
    for (int i = 0; i < t->ndims; i++) {
        cb[i] = ((cb[i] - ca[i]) % t->dims[i] + t->dims[i]) % t->dims[i];
    }
    return topo_topology_rank(t, cb);
}

static int torus_at(const topo_topology_t *t, int r, int64_t key)
{
    int c[TOPO_MAX_DIMS], o[TOPO_MAX_DIMS];
    topo_topology_coords(t, r, c);
    topo_topology_coords(t, (int)key, o);
    for (int i = 0; i < t->ndims; i++) {
        c[i] = (c[i] + o[i]) % t->dims[i];
    }
    return topo_topology_rank(t, c);
}
#define HYP_MAX_M 4

/* Link additions one pricing may spend on extrapolated flows: the larger
 * of EXTRAP_WORK and EXTRAP_PER_ITEM per item of the priced schedules
 * (the routing costs at most a few times what the pricing costs anyway);
 * beyond them the steps keep the estimate (cost.h: price_ranks). */
#define EXTRAP_WORK ((size_t)1 << 20)
#define EXTRAP_PER_ITEM 8

/* Does hypothesis h hold for the priced ranks' sends of one step
 * (lp[i][0 .. ln[i]) the sends of ranks[i], ordered by peer and weight)?
 * Fills ref[c], the priced rank whose sends stand for class c, and their
 * relative sends, sorted, at rel + c * cap (cap: room per class, at
 * least any ln[i]); `tmp` (cap) holds the other ranks' to compare. */
static int hyp_holds(const topo_topology_t *t, int h, int size, const int *ranks, int nranks,
                     const flow_t *const *lp, const int *ln, rel_t *rel, rel_t *tmp, size_t cap,
                     int *ref)
{
    const int m = hyps[h].m, kind = hyps[h].kind;
    if (size % m || m > nranks || (HYP_XOR == kind && (size & (size - 1))) ||
        (HYP_TORUS == kind && !whole_torus(t, size))) {
        return 0;
    }
    for (int c = 0; c < m; c++) {
        ref[c] = -1;
    }
    for (int i = 0; i < nranks; i++) {
        const int n = ln[i], c = ranks[i] % m;
        rel_t *out = ref[c] < 0 ? rel + (size_t)c * cap : tmp;
        for (int j = 0; j < n; j++) {
            const flow_t *f = &lp[i][j];
            const int64_t d = HYP_XOR == kind     ? (f->peer ^ f->rank)
                              : HYP_TORUS == kind ? torus_key(t, f->rank, f->peer)
                                                  : ((f->peer - f->rank) % size + size) % size;
            out[j] = (rel_t){d, f->w};
        }
        qsort(out, (size_t)n, sizeof(*out), cmp_rel);
        if (ref[c] < 0) {
            ref[c] = i;
            continue;
        }
        if (n != ln[ref[c]] ||
            (n > 0 && 0 != memcmp(out, rel + (size_t)c * cap, sizeof(*rel) * (size_t)n))) {
            return 0;
        }
    }
    for (int c = 0; c < m; c++) {
        if (ref[c] < 0) {
            return 0;
        }
    }
    return 1;
}

/* The sampled pricing's routed link loads: per step, when the priced
 * ranks' sends follow one of `hyps` (checked on every priced rank), every
 * rank's sends are those of its class carried to it, and they are routed
 * (links.h) message by message, so a link counts every flow that crosses
 * it, however routes pile up (shortest paths on a graph, recursive
 * doubling's alternating directions on a torus); a step that repeats the
 * previous routed one is not routed again.  Otherwise (or beyond
 * its budget) the priced ranks' own sends are routed, a lower bound of
 * the loads.  link[st] is raised to what is found.  Every rank that
 * prices the same sample finds the same. */
/* The most loaded link of extrapolate's window (its loads final). */
static double settle_grid(topo_link_acc_t *acc)
{
    return topo_link_acc_settle(acc, 0);
}

static double settle_links(topo_link_acc_t *acc)
{
    return topo_link_acc_max(acc, 0);
}

/* A rank's sends by step, then peer and weight (cmp_send: the last two). */
static int cmp_send(const flow_t *x, const flow_t *y)
{
    if (x->peer != y->peer) {
        return (x->peer > y->peer) - (x->peer < y->peer);
    }
    return (x->w > y->w) - (x->w < y->w);
}

static int cmp_flow(const void *a, const void *b)
{
    const flow_t *x = a, *y = b;
    if (x->step != y->step) {
        return (x->step > y->step) - (x->step < y->step);
    }
    return cmp_send(x, y);
}

/* Room for n entries of `size` bytes at *p (*cap entries now); 0 without
 * memory (*p kept). */
static int room(void **p, size_t *cap, size_t n, size_t size)
{
    if (n <= *cap) {
        return 1;
    }
    void *q = realloc(*p, size * n);
    if (NULL == q) {
        return 0;
    }
    *p = q;
    *cap = n;
    return 1;
}

static int extrapolate(const topo_topology_t *t, int size, const int *ranks, int nranks,
                       struct flows *fl, const p1_t *p1, double *link)
{
    const int depth = p1->depth;
    int run = 0; /* p1's run of the step (run_at) */
    const size_t n = fl->n;
    if (0 == n) { /* no sends: every step keeps its estimate */
        return TOPO_OK;
    }
    const size_t budget =
        fl->work * EXTRAP_PER_ITEM > EXTRAP_WORK ? fl->work * EXTRAP_PER_ITEM : EXTRAP_WORK;
    flow_t *f = fl->f;
    /* The sends of a step, rank by rank: a priced rank's sends are
     * recorded together (ranks in order), sorted here by step, then peer
     * and weight; in step st rank i sends those of its entries that start
     * at st (from cur[i] on) and those of the step before that last past
     * it (a run's), merged in `buf`, or in place where it has none of
     * the latter.  lp[i], ln[i]: rank i's sends in the step; pp, pn: in
     * the step before. */
    const size_t nr = (size_t)nranks + 1;
    size_t *cur = malloc(sizeof(size_t) * nr);
    const flow_t **lp = calloc(nr, sizeof(*lp)), **pp = calloc(nr, sizeof(*pp));
    int *ln = calloc(nr, sizeof(int)), *pn = calloc(nr, sizeof(int)),
        *keep = calloc(nr, sizeof(int));
    flow_t *buf = NULL, *pbuf = NULL;
    size_t nbuf = 0, npbuf = 0;
    rel_t *rel = NULL, *tmp = NULL, *prev = NULL; /* cap per class (hyp_holds) */
    size_t cap = 0, ncap[3] = {0, 0, 0};
    topo_link_acc_t *acc = NULL;
    int rc = NULL == cur || NULL == lp || NULL == pp || NULL == ln || NULL == pn || NULL == keep
                 ? TOPO_ENOMEM
                 : topo_link_acc_create(t, size, NULL, 1, &acc);
    size_t j = 0;
    for (int i = 0; i < nranks && TOPO_OK == rc; i++) {
        const size_t b = j;
        while (j < n && f[j].rank == ranks[i]) {
            j++;
        }
        qsort(f + b, j - b, sizeof(*f), cmp_flow);
        cur[i] = b;
    }
    /* (j != n: sends not in the order priced, never so: the steps keep
     * their estimates) */
    /* a grid's messages as one difference per dimension (links.h) */
    const int grid = TOPO_NET_TORUS == t->kind || TOPO_NET_MESH == t->kind;
    void (*route)(topo_link_acc_t *, int, int, int, double) =
        grid ? topo_link_acc_span : topo_link_acc_flow;
    double (*settle)(topo_link_acc_t *) = grid ? settle_grid : settle_links;
    const size_t nlinks = grid ? topo_link_count(t, size) : 0; /* what settling a grid costs */
    size_t work = 0, nprev = 0;
    int prev_h = -1, prev_len[HYP_MAX_M];
    double prev_max = 0.0;
    for (int st = 0; st < depth && TOPO_OK == rc && j == n; st++) {
        /* the step's sends, rank by rank (the step before's in pp, pn) */
        size_t need = 0, len = 0, most = 0;
        for (int i = 0; i < nranks; i++) {
            int k = 0, e = 0;
            for (int q = 0; q < pn[i]; q++) {
                k += pp[i][q].step + pp[i][q].count > st;
            }
            while (cur[i] + (size_t)e < n && f[cur[i] + e].rank == ranks[i] &&
                   f[cur[i] + e].step == st) {
                e++;
            }
            keep[i] = k;
            ln[i] = k + e;
            need += k > 0 ? (size_t)(k + e) : 0;
        }
        if (!room((void **)&buf, &nbuf, need, sizeof(*buf))) {
            rc = TOPO_ENOMEM;
            break;
        }
        for (int i = 0, off = 0; i < nranks; i++) {
            const flow_t *nw = f + cur[i];
            const int e = ln[i] - keep[i];
            cur[i] += (size_t)e;
            if (0 == keep[i]) {
                lp[i] = nw;
            } else { /* merged by peer and weight */
                flow_t *o = buf + off;
                int q = 0, w = 0, k = 0;
                while (q < pn[i] || w < e) {
                    if (q < pn[i] && pp[i][q].step + pp[i][q].count <= st) {
                        q++;
                    } else if (q < pn[i] && (w >= e || cmp_send(&pp[i][q], &nw[w]) <= 0)) {
                        o[k++] = pp[i][q++];
                    } else {
                        o[k++] = nw[w++];
                    }
                }
                lp[i] = o;
                off += k;
            }
            len += (size_t)ln[i];
            most = (size_t)ln[i] > most ? (size_t)ln[i] : most;
        }
        { /* this step's lists are the next one's step before */
            const flow_t **x = pp;
            pp = lp;
            lp = x;
            int *y = pn;
            pn = ln;
            ln = y;
            flow_t *z = pbuf;
            pbuf = buf;
            buf = z;
            const size_t c = npbuf;
            npbuf = nbuf;
            nbuf = c;
        }
        const flow_t *const *L = pp;
        const int *N = pn;
        /* a step whose messages each cross one link of their sender's
         * node alone (p1's `routed` unset) has its busiest link among
         * the priced ranks' own (pass1_t.first) */
        if (0 == len || !p1->step[run_at(p1, st, &run)].routed) {
            continue;
        }
        if (most > cap) {
            if (!room((void **)&rel, &ncap[0], HYP_MAX_M * most, sizeof(*rel)) ||
                !room((void **)&tmp, &ncap[1], most, sizeof(*tmp)) ||
                !room((void **)&prev, &ncap[2], HYP_MAX_M * most, sizeof(*prev))) {
                rc = TOPO_ENOMEM;
                break;
            }
            cap = most;
        }
        int ref[HYP_MAX_M], h;
        for (h = 0; h < (int)(sizeof(hyps) / sizeof(hyps[0])); h++) {
            if (hyp_holds(t, h, size, ranks, nranks, L, N, rel, tmp, cap, ref)) {
                break;
            }
        }
        if (h < (int)(sizeof(hyps) / sizeof(hyps[0])) && HYP_TORUS == hyps[h].kind) {
            /* every rank a translate of the others: every link of a class
             * carries the same, the class's average (link[st] has it) */
            continue;
        }
        const int m = h < (int)(sizeof(hyps) / sizeof(hyps[0])) ? hyps[h].m : 0;
        size_t cost = nlinks, ncur = 0;
        int same = m > 0 && h == prev_h;
        for (int c = 0; c < m; c++) { /* the classes' sends, against the previous step's */
            const int k = N[ref[c]];
            same = same && k == prev_len[c] &&
                   0 == memcmp(rel + (size_t)c * cap, prev + ncur, sizeof(*rel) * (size_t)k);
            for (int q = 0; q < k; q++) {
                const flow_t *x = &L[ref[c]][q];
                cost +=
                    (grid ? (size_t)t->ndims : (size_t)topo_topology_hops(t, x->rank, x->peer)) *
                    (size_t)(size / m);
            }
            ncur += (size_t)k;
        }
        if (same) {
            link[st] = dmax(link[st], prev_max);
            continue;
        }
        if (m > 0 && work + cost <= budget) {
            work += cost;
            for (int r = 0; r < size; r++) {
                const int c = r % m;
                const rel_t *rc0 = rel + (size_t)c * cap;
                for (int q = 0; q < N[ref[c]]; q++) {
                    const int64_t k = rc0[q].key;
                    const int dst = HYP_XOR == hyps[h].kind     ? (int)(r ^ k)
                                    : HYP_TORUS == hyps[h].kind ? torus_at(t, r, k)
                                                                : (int)((r + k) % size);
                    if (dst != r) {
                        route(acc, 0, r, dst, rc0[q].w);
                    }
                }
            }
            prev_h = h;
            nprev = 0;
            for (int c = 0; c < m; c++) {
                prev_len[c] = N[ref[c]];
                memcpy(prev + nprev, rel + (size_t)c * cap, sizeof(*rel) * (size_t)prev_len[c]);
                nprev += (size_t)prev_len[c];
            }
            prev_max = settle(acc);
            link[st] = dmax(link[st], prev_max);
        } else { /* the priced ranks' own sends, link by link: a lower bound */
            for (int i = 0; i < nranks; i++) {
                for (int q = 0; q < N[i]; q++) {
                    topo_link_acc_flow(acc, 0, L[i][q].rank, L[i][q].peer, L[i][q].w);
                }
            }
            link[st] = dmax(link[st], topo_link_acc_max(acc, 0));
        }
        topo_link_acc_clear(acc, 0);
    }
    topo_link_acc_free(acc);
    free(cur);
    free(lp);
    free(pp);
    free(ln);
    free(pn);
    free(keep);
    free(buf);
    free(pbuf);
    free(rel);
    free(tmp);
    free(prev);
    return rc;
}

/* A lane's step's price from its maxima `s1` and the busiest link's load
 * of the step, all lanes' messages together, `link` (paid where the lane
 * crosses the network in the step): the one formula of topo_cost_steps and
 * of its lower bound, topo_cost_bound_steps (which must stay at most the
 * price, term by term). */
static void step_price(topo_cost_step_t *o, const lane1_t *s1, double link,
                       const topo_cost_params_t *p, const topo_cost_net_t *net)
{
    const double hop = NULL != net ? net->hop : 0.0;
    const double msg_overhead = NULL != net && net->msg_overhead > 0 ? net->msg_overhead : 0.0;
    const double ialpha = NULL != net && net->intra_alpha > 0 ? net->intra_alpha : p->alpha;
    o->active = s1->active;
    o->max_hops = s1->hops;
    o->port = s1->port;
    o->msg = s1->msg;
    o->msgs = s1->msgs;
    o->intra_only = s1->intra && !s1->net;
    o->link = s1->net ? link : 0.0;
    /* the step waits for its slowest message class: the network's alpha,
     * the intra latency when only ranks of one node talk, the larger of
     * the two when both do */
    const double alpha = !s1->intra ? p->alpha : s1->net ? dmax(p->alpha, ialpha) : ialpha;
    o->lat = (s1->active ? alpha : 0.0) + (s1->hops > 1 ? hop * (s1->hops - 1) : 0.0) +
             msg_overhead * s1->omsgs;
    o->per_byte = dmax(s1->port_time, p->beta * o->link + s1->reduce);
}

/* The priced steps of pass 1's `acc`, lane by lane (cost.h), with the
 * link loads `link` (NULL: none; first: each step's pass1_t.first
 * instead).  compact: a step equal to the one before it in its lane
 * (every field) is that entry's reps + 1 (topo_cost_step_runs); else an
 * entry per step, reps 1. */
static int steps_equal(const topo_cost_step_t *x, const topo_cost_step_t *y)
{
    return x->lat == y->lat && x->per_byte == y->per_byte && x->port == y->port &&
           x->msg == y->msg && x->link == y->link && x->max_hops == y->max_hops &&
           x->msgs == y->msgs && x->active == y->active && x->intra_only == y->intra_only &&
           x->lane == y->lane;
}

static int price_lanes(const p1_t *acc, const double *link, int first, int compact,
                       const topo_cost_params_t *p, const topo_cost_net_t *net,
                       topo_cost_step_t **stepsp, int *np)
{
    const int depth = acc->depth, nl = acc->nlanes;
    topo_cost_step_t *out = NULL;
    size_t n = 0, cap = compact ? 0 : (size_t)depth * (size_t)nl;
    *stepsp = NULL;
    *np = 0;
    if (depth > 0 && nl > 0 && cap > 0 && NULL == (out = malloc(sizeof(*out) * cap))) {
        return TOPO_ENOMEM;
    }
    for (int l = 0; l < nl && depth > 0; l++) {
        for (int st = 0, k = 0; st < depth; st++) {
            topo_cost_step_t o;
            const int run = run_at(acc, st, &k);
            step_price(&o, &acc->lane[(size_t)run * (size_t)nl + (size_t)l],
                       first          ? acc->step[run].first
                       : NULL != link ? link[st]
                                      : 0.0,
                       p, net);
            o.lane = l;
            o.reps = 1;
            if (compact && n > 0 && steps_equal(&out[n - 1], &o)) {
                out[n - 1].reps++;
                continue;
            }
            if (n == cap) {
                cap = cap ? 2 * cap : 64;
                topo_cost_step_t *no = realloc(out, sizeof(*out) * cap);
                if (NULL == no) {
                    free(out);
                    return TOPO_ENOMEM;
                }
                out = no;
            }
            out[n++] = o;
        }
    }
    *stepsp = out;
    *np = (int)n;
    return TOPO_OK;
}

/* The pricing context of the call `a` (every rank; links routed where
 * modelled), for topo_cost_steps and topo_cost_bound_steps. */
static ctx_t ctx_of(const topo_gen_args_t *a, const topo_cost_params_t *p,
                    const topo_cost_net_t *net)
{
    const topo_topology_t *t = a->topo;
    const double ibeta = NULL != net && net->intra_beta > 0 ? net->intra_beta : p->beta;
    const double wbeta =
        NULL != net && net->intra_beta_written > 0 ? net->intra_beta_written : ibeta;
    return (ctx_t){.t = t,
                   .p = p,
                   .ports = topo_topology_ports(t, a->size),
                   .links = topo_topology_routes(t, a->size) && (NULL == net || !net->no_links),
                   .placed = topo_topology_placed(t, a->size),
                   .intra_beta = ibeta,
                   .written = wbeta,
                   .copy = NULL != net && net->copy > 0 ? net->copy : 0.0,
                   .nfirst = TOPO_NET_TORUS == t->kind || TOPO_NET_MESH == t->kind
                                 ? 2 * t->ndims
                                 : 2 * TOPO_MAX_DIMS};
}

static int cost_steps(const topo_algo_t *algo, const topo_gen_args_t *a,
                      const topo_cost_params_t *p, const topo_cost_net_t *net, int compact,
                      topo_cost_step_t **stepsp, int *depthp)
{
    const topo_topology_t *t = a->topo;
    ctx_t c = ctx_of(a, p, net);
    p1_t acc = {0};
    double *link = NULL;
    int done = 0;
    *stepsp = NULL;
    *depthp = 0;
    int *sample = NULL;
    const int k = NULL != net ? net->price_ranks : 0;
    size_t xfers0 = SIZE_MAX; /* rank 0's transfers */
    if (k > 0 &&
        (force_sampling || (k < a->size && sched_work(algo, a, &xfers0) > TOPO_COST_FULL_WORK))) {
        const int room = k < a->size ? k : a->size;
        if (NULL == (sample = malloc(sizeof(int) * (size_t)room))) {
            return TOPO_ENOMEM;
        }
        c.nranks = topo_cost_sample_ranks(a->size, a->root, k, sample);
        c.ranks = sample;
        c.estimate = c.links;
        c.ncls = !c.links ? 0 : TOPO_NET_GRAPH == t->kind ? 1 : 2 * t->ndims;
    }
    struct flows fl = {0};
    if (c.estimate && SIZE_MAX == xfers0) {
        sched_work(algo, a, &xfers0);
    }
    int probes[PROBES], rc = TOPO_OK;
    const int np = NULL != sample ? probe_ranks(&c, probes) : 0;
    ctx_t pc = c; /* on the probes */
    pc.ranks = probes;
    pc.nranks = np;
    /* the priced ranks' sends, where they would fit (rank 0's for each) */
    pc.rec = c.estimate && np > 0 && xfers0 <= FLOWS_MAX / (size_t)np ? &fl : NULL;
    if (np > 0 && probe_same(algo, a, &c, probes, np, &pc, &acc, &link, &done)) {
        c = pc; /* the sample priced on the probes, already */
    } else {
        free(fl.f);
        fl = (struct flows){0};
        c.rec = c.estimate && xfers0 <= FLOWS_MAX / (size_t)c.nranks ? &fl : NULL;
        rc = pass1(algo, a, &c, &acc, &link, &done, NULL);
    }
    const int sampled = NULL != sample, depth = acc.depth;
    if (TOPO_OK != rc) {
        free(sample);
        free(fl.f);
        return rc;
    }
    if (sampled) {
        rc = fill_idle_all(&acc);
    }
    if (c.estimate && TOPO_OK == rc) {
        double per_link[2 * TOPO_MAX_DIMS] = {0};
        rc = class_links(t, a->size, (double)a->size / c.nranks, per_link);
        for (int k = 0; k < acc.nruns && TOPO_OK == rc; k++) { /* a run's steps alike */
            double l = acc.step[k].first;
            for (int d = 0; d < acc.ncls; d++) {
                l = dmax(l, acc.cls[(size_t)k * (size_t)acc.ncls + d] * per_link[d]);
            }
            for (int st = acc.start[k]; st < acc.start[k + 1]; st++) {
                link[st] = l;
            }
        }
        if (TOPO_OK == rc && !fl.full) {
            rc = extrapolate(t, a->size, c.ranks, c.nranks, &fl, &acc, link);
        }
    } else if (c.links && done < depth) {
        /* steps from `done` on: the direct ones are known, the others go
         * through the windows */
        int *routed = malloc(sizeof(int) * (size_t)depth), n = 0;
        size_t w = link_budget / topo_link_count(t, a->size);
        w = w < 1 ? 1 : w;
        rc = NULL == routed ? TOPO_ENOMEM : TOPO_OK;
        for (int st = done, k = 0; st < depth && TOPO_OK == rc; st++) {
            const pass1_t *e = &acc.step[run_at(&acc, st, &k)];
            link[st] = e->first;
            if (e->routed) {
                routed[n++] = st;
            }
        }
        for (int k = 0; k < n && TOPO_OK == rc; k += (int)w) {
            int m = n - k < (int)w ? n - k : (int)w;
            rc = window(algo, a, routed + k, m, link);
        }
        free(routed);
    }
    if (TOPO_OK == rc) {
        rc = price_lanes(&acc, c.links ? link : NULL, 0, compact, p, net, stepsp, depthp);
    }
    p1_free(&acc);
    free(link);
    free(sample);
    free(fl.f);
    return rc;
}

static int bound_steps(const topo_algo_t *algo, const topo_gen_args_t *a,
                       const topo_cost_params_t *p, const topo_cost_net_t *net, int compact,
                       topo_cost_step_t **stepsp, int *depthp, size_t *work)
{
    const int rank0 = 0;
    /* rank 0 alone, as topo_cost_steps prices it (hops routed where links
     * are modelled; estimate: no link accumulation) */
    ctx_t c = ctx_of(a, p, net);
    const int links = c.links;
    c.ranks = &rank0;
    c.nranks = 1;
    c.estimate = links;
    p1_t acc = {0};
    double *link = NULL;
    int done = 0;
    *stepsp = NULL;
    *depthp = 0;
    size_t work0;
    int rc = pass1(algo, a, &c, &acc, &link, &done, &work0);
    free(link);
    if (NULL != work) { /* sched_work's, from the schedule priced */
        const size_t w = TOPO_OK == rc && SIZE_MAX != work0 ? work0 * (size_t)a->size : SIZE_MAX;
        const int k = NULL != net ? net->price_ranks : 0;
        const int sampled = k > 0 && (force_sampling || (k < a->size && w > TOPO_COST_FULL_WORK));
        *work = sampled && SIZE_MAX != w ? w / (size_t)a->size * (size_t)(k < a->size ? k : a->size)
                                         : w;
    }
    if (TOPO_OK != rc) {
        return rc;
    }
    /* topo_cost_steps' formulas with rank 0's maxima, and for the link
     * term the most rank 0 puts on one of its node's links (every link
     * estimate and routed load there is at least that): every term is at
     * most its counterpart there */
    rc = price_lanes(&acc, NULL, links, compact, p, net, stepsp, depthp);
    p1_free(&acc);
    return rc;
}

int topo_cost_steps(const topo_algo_t *algo, const topo_gen_args_t *a, const topo_cost_params_t *p,
                    const topo_cost_net_t *net, topo_cost_step_t **steps, int *depth)
{
    return cost_steps(algo, a, p, net, 0, steps, depth);
}

int topo_cost_bound_steps(const topo_algo_t *algo, const topo_gen_args_t *a,
                          const topo_cost_params_t *p, const topo_cost_net_t *net,
                          topo_cost_step_t **steps, int *depth, size_t *work)
{
    return bound_steps(algo, a, p, net, 0, steps, depth, work);
}

int topo_cost_step_runs(const topo_algo_t *algo, const topo_gen_args_t *a,
                        const topo_cost_params_t *p, const topo_cost_net_t *net, int bound,
                        topo_cost_step_t **steps, int *n, size_t *work)
{
    return bound ? bound_steps(algo, a, p, net, 1, steps, n, work)
                 : cost_steps(algo, a, p, net, 1, steps, n);
}

static int cmp_int(const void *a, const void *b)
{
    const int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int topo_cost_sample_ranks(int size, int root, int k, int *out)
{
    if (k >= size) {
        for (int r = 0; r < size; r++) {
            out[r] = r;
        }
        return size;
    }
    const int q = k / 5 > 0 ? k / 5 : 1;
    int n = 0;
    /* the ranks around each power of two, from both ends (the inner nodes
     * of binary trees, recursive doubling's fold) */
    for (long long b = 1; b < size && n + 6 <= q; b *= 2) {
        for (int d = -1; d <= 1; d++) {
            out[n++] = (int)((b + d + size) % size);
            out[n++] = (int)((size - 1 - b + d + size) % size);
        }
    }
    for (int i = 0; i < q && n < k; i++) {
        out[n++] = i;
    }
    for (int i = 0; i < q && n < k; i++) {
        out[n++] = size - 1 - i;
    }
    for (int i = 0; i < q && n < k; i++) {
        out[n++] = (root + i) % size;
    }
    const int spread = k - n;
    for (int i = 0; i < spread; i++) {
        out[n++] = (int)((long long)i * size / spread);
    }
    qsort(out, (size_t)n, sizeof(int), cmp_int);
    int m = 0;
    for (int i = 0; i < n; i++) {
        if (0 == m || out[i] != out[m - 1]) {
            out[m++] = out[i];
        }
    }
    return m;
}

void topo_cost_total(const topo_cost_step_t *steps, int n, double *lat, double *per_byte)
{
    double l = 0.0, b = 0.0; /* the lane's sums so far */
    *lat = *per_byte = 0.0;
    for (int i = 0; i < n; i++) {
        /* step by step, as many as the entry stands for (the same sums to
         * the last bit as one entry per step) */
        for (int k = 0; k < (steps[i].reps > 1 ? steps[i].reps : 1); k++) {
            l += steps[i].lat;
            b += steps[i].per_byte;
        }
        if (i + 1 == n || steps[i + 1].lane != steps[i].lane) { /* the lane's last step */
            *lat = dmax(*lat, l);
            *per_byte = dmax(*per_byte, b);
            l = b = 0.0;
        }
    }
}

int topo_cost_affine(const topo_algo_t *algo, const topo_gen_args_t *a, const topo_cost_params_t *p,
                     double *lat, double *per_byte)
{
    return topo_cost_affine_net(algo, a, p, NULL, lat, per_byte);
}

int topo_cost_affine_net(const topo_algo_t *algo, const topo_gen_args_t *a,
                         const topo_cost_params_t *p, const topo_cost_net_t *net, double *lat,
                         double *per_byte)
{
    topo_cost_step_t *steps;
    int depth;
    *lat = *per_byte = 0.0;
    int rc = topo_cost_steps(algo, a, p, net, &steps, &depth);
    if (TOPO_OK != rc) {
        return rc;
    }
    topo_cost_total(steps, depth, lat, per_byte);
    free(steps);
    return TOPO_OK;
}

double topo_cost_algo(const topo_algo_t *algo, const topo_gen_args_t *a, size_t count,
                      size_t elem_size, const topo_cost_params_t *p)
{
    double lat, per_byte;
    if (TOPO_OK != topo_cost_affine(algo, a, p, &lat, &per_byte)) {
        return -1.0;
    }
    return lat + per_byte * (double)count * (double)elem_size;
}
