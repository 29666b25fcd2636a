/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Prices with the protocol switch, and the decision table (decision.h).
 */
#include "decision.h"

#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

typedef struct {
    size_t thr;
    double cost;
    int lane;
} thr_t;

static int cmp_thr(const void *a, const void *b)
{
    const thr_t *x = a, *y = b;
    if (x->thr != y->thr) {
        return (x->thr > y->thr) - (x->thr < y->thr);
    }
    if (x->cost != y->cost) {
        return (x->cost > y->cost) - (x->cost < y->cost);
    }
    return (x->lane > y->lane) - (x->lane < y->lane);
}

/* The rendezvous of several lanes (t: nthr of them, sorted): each lane
 * pays its own steps', the call its slowest lane's, so the price pays
 * at each threshold the most any lane has paid up to it.  One threshold
 * per payload. */
static void lanes_paid(const thr_t *t, int nthr, double *lsum, topo_price_t *out)
{
    double most = 0.0;
    int k = 0;
    for (int i = 0; i < nthr; i++) {
        lsum[t[i].lane] += t[i].cost;
        most = fmax(most, lsum[t[i].lane]);
        if (i + 1 < nthr && t[i + 1].thr == t[i].thr) {
            continue;
        }
        out->thr[k] = t[i].thr;
        out->paid[k + 1] = most;
        k++;
    }
    out->nthr = k;
}

/* The price of the steps (topo_cost_step_runs', n entries lane by lane,
 * each its reps steps); `bound`: a lower bound's, whose steps that stay
 * on nodes pay the cheaper of the two rendezvous (rank 0's messages may
 * stay on its node where others cross the network); one whose messages
 * cross the network is one where a message does, the full step too.  The
 * affine part is topo_cost_total's; the rendezvous are paid lane by lane,
 * the slowest lane's at each payload. */
static int price_steps(topo_cost_step_t *steps, int n, const topo_proto_t *proto, int bound,
                       topo_price_t *out)
{
    memset(out, 0, sizeof(*out));
    const int nlanes = n > 0 ? steps[n - 1].lane + 1 : 0;
    int depth = 0, total = 0; /* lane 0's steps; every lane's */
    for (int st = 0; st < n; st++) {
        const int r = steps[st].reps > 1 ? steps[st].reps : 1;
        depth += 0 == steps[st].lane ? r : 0;
        total += r;
    }
    out->depth = depth;
    const int proto_on = NULL != proto && proto->eager > 0.0 && proto->rndv > 0.0;
    const double rndv_intra = proto_on && proto->rndv_intra > 0.0 ? proto->rndv_intra
                              : proto_on                          ? proto->rndv
                                                                  : 0.0;
    thr_t *t = NULL;
    double *lsum = NULL;
    if (proto_on && n > 0 &&
        (NULL == (t = malloc(sizeof(*t) * (size_t)total)) ||
         NULL == (out->thr = malloc(sizeof(size_t) * (size_t)total)) ||
         NULL == (out->paid = malloc(sizeof(double) * (size_t)(total + 1))) ||
         NULL == (lsum = calloc((size_t)nlanes, sizeof(double))))) {
        free(t);
        free(steps);
        topo_price_free(out);
        return TOPO_ENOMEM;
    }
    topo_cost_total(steps, n, &out->lat, &out->per_byte);
    int lane_steps = 0;
    for (int st = 0; st < n; st++) {
        /* an entry of reps steps (topo_cost_step_runs) counts as many */
        const int reps = steps[st].reps > 1 ? steps[st].reps : 1;
        out->msgs += steps[st].msgs * reps;
        lane_steps = (st > 0 && steps[st].lane != steps[st - 1].lane ? 0 : lane_steps) +
                     (steps[st].msgs > 0) * reps;
        out->msg_steps = lane_steps > out->msg_steps ? lane_steps : out->msg_steps;
        if (!proto_on || steps[st].msg <= 0.0) {
            continue;
        }
        /* the step pays once msg * M > eager: from floor(eager / msg) + 1 */
        double first = floor(proto->eager / steps[st].msg) + 1.0;
        for (int k = 0; k < reps && first < 9.0e18; k++) {
            t[out->nthr].thr = (size_t)first;
            t[out->nthr].lane = steps[st].lane;
            t[out->nthr++].cost = !steps[st].intra_only ? proto->rndv
                                  : bound               ? fmin(rndv_intra, proto->rndv)
                                                        : rndv_intra;
        }
    }
    free(steps);
    if (proto_on) {
        out->rndv = proto->rndv;
        qsort(t, (size_t)out->nthr, sizeof(*t), cmp_thr);
        if (NULL != out->paid) {
            out->paid[0] = 0.0;
        }
        if (nlanes > 1) {
            lanes_paid(t, out->nthr, lsum, out);
        }
        for (int k = 0; k < out->nthr && nlanes <= 1; k++) {
            out->thr[k] = t[k].thr;
            out->paid[k + 1] = out->paid[k] + t[k].cost;
        }
    }
    free(t);
    free(lsum);
    return TOPO_OK;
}

int topo_price_build(const topo_algo_t *algo, const topo_gen_args_t *a,
                     const topo_cost_params_t *p, const topo_cost_net_t *net,
                     const topo_proto_t *proto, topo_price_t *out)
{
    topo_cost_step_t *steps = NULL;
    int depth = 0;
    memset(out, 0, sizeof(*out));
    int rc = topo_cost_step_runs(algo, a, p, net, 0, &steps, &depth, NULL);
    return TOPO_OK != rc ? rc : price_steps(steps, depth, proto, 0, out);
}

int topo_price_bound(const topo_algo_t *algo, const topo_gen_args_t *a,
                     const topo_cost_params_t *p, const topo_cost_net_t *net,
                     const topo_proto_t *proto, topo_price_t *out, size_t *work)
{
    topo_cost_step_t *steps = NULL;
    int depth = 0;
    memset(out, 0, sizeof(*out));
    int rc = topo_cost_step_runs(algo, a, p, net, 1, &steps, &depth, work);
    return TOPO_OK != rc ? rc : price_steps(steps, depth, proto, 1, out);
}

void topo_price_free(topo_price_t *pr)
{
    free(pr->thr);
    free(pr->paid);
    memset(pr, 0, sizeof(*pr));
}

/* Thresholds at or below `bytes`: the steps that pay the rendezvous. */
static int paying(const topo_price_t *pr, size_t bytes)
{
    int lo = 0, hi = pr->nthr; /* the first threshold above bytes */
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (pr->thr[mid] <= bytes) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

/* What the steps that go by rendezvous at `bytes` pay together. */
static double paid(const topo_price_t *pr, size_t bytes)
{
    const int k = paying(pr, bytes);
    return NULL != pr->paid ? pr->paid[k] : pr->rndv * k;
}

double topo_price_at(const topo_price_t *pr, size_t bytes)
{
    return pr->lat + pr->per_byte * (double)bytes + paid(pr, bytes);
}

/* The affine pieces of the candidates inside one interval of breakpoints. */
typedef struct {
    double lat, slope, extra; /* extra: the rendezvous steps paid */
    int msgs;
    int live;
} piece_t;

/* The same arithmetic, in the same order, as topo_price_at: every
 * comparison here agrees with the prices to the last bit. */
static inline double value(const piece_t *q, size_t y)
{
    return q->lat + q->slope * (double)y + q->extra;
}

/* The decision's ties: prices within this relative difference. */
#define TIE 1e-12

/* Does candidate g beat f at payload y?  Prices within a relative 1e-12
 * of each other are a tie (two candidates that cost the same, the same
 * per-byte term, latencies that differ by exactly the rendezvous terms,
 * would otherwise swap places with the rounding of every payload), which
 * goes to the one that handles fewer messages, then to the lower index. */
static inline int beats(const piece_t *q, int g, int f, size_t y)
{
    const double vg = value(&q[g], y), vf = value(&q[f], y);
    const double tol = TIE * fmax(fabs(vg), fabs(vf));
    if (vg < vf - tol) {
        return 1;
    }
    if (vg > vf + tol) {
        return 0;
    }
    return q[g].msgs < q[f].msgs || (q[g].msgs == q[f].msgs && g < f);
}

static int argmin(const piece_t *q, int n, size_t y)
{
    int best = -1;
    for (int i = 0; i < n; i++) {
        if (q[i].live && (best < 0 || beats(q, i, best, y))) {
            best = i;
        }
    }
    return best;
}

/* The first payload in (x, end] where g beats f, or 0 if none (f beats g at
 * x and g's slope is not smaller, or the crossing lies past end). */
static size_t overtakes(const piece_t *q, int g, int f, size_t x, size_t end)
{
    if (q[g].slope >= q[f].slope) {
        return 0;
    }
    double c = (q[g].lat + q[g].extra - q[f].lat - q[f].extra) / (q[f].slope - q[g].slope);
    if (!(c < (double)end)) {
        return 0;
    }
    size_t y = c < (double)x ? x + 1 : (size_t)floor(c) + 1;
    if (y <= x) {
        y = x + 1;
    }
    /* rounding: settle on the exact first payload, a few steps at most */
    for (int k = 0; k < 8 && y > x + 1 && beats(q, g, f, y - 1); k++) {
        y--;
    }
    for (int k = 0; k < 8 && y < end && !beats(q, g, f, y); k++) {
        y++;
    }
    return beats(q, g, f, y) ? y : 0;
}

static int push(topo_decision_t *d, int *cap, size_t lo, int cand)
{
    if (d->n > 0 && d->cand[d->n - 1] == cand) {
        return TOPO_OK;
    }
    if (d->n == *cap) {
        int nc = *cap ? 2 * *cap : 8;
        size_t *l = realloc(d->lo, sizeof(*l) * (size_t)nc);
        if (NULL == l) {
            return TOPO_ENOMEM;
        }
        d->lo = l;
        int *c = realloc(d->cand, sizeof(*c) * (size_t)nc);
        if (NULL == c) {
            return TOPO_ENOMEM;
        }
        d->cand = c;
        *cap = nc;
    }
    d->lo[d->n] = lo;
    d->cand[d->n] = cand;
    d->n++;
    return TOPO_OK;
}

int topo_decision_build(const topo_price_t *const *prices, int n, topo_decision_t *d)
{
    int cap = 0, nb = 1, rc = TOPO_OK;
    memset(d, 0, sizeof(*d));
    for (int i = 0; i < n; i++) {
        nb += NULL != prices[i] ? prices[i]->nthr : 0;
    }
    size_t *bp = malloc(sizeof(size_t) * (size_t)nb);
    piece_t *q = calloc(n > 0 ? (size_t)n : 1, sizeof(*q));
    if (NULL == bp || NULL == q) {
        free(bp);
        free(q);
        return TOPO_ENOMEM;
    }
    /* the breakpoints: 0 and every threshold, ascending, once each */
    nb = 0;
    bp[nb++] = 0;
    for (int i = 0; i < n; i++) {
        for (int k = 0; NULL != prices[i] && k < prices[i]->nthr; k++) {
            bp[nb++] = prices[i]->thr[k];
        }
    }
    qsort(bp, (size_t)nb, sizeof(size_t), cmp_size);
    int u = 1;
    for (int k = 1; k < nb; k++) {
        if (bp[k] != bp[u - 1]) {
            bp[u++] = bp[k];
        }
    }
    nb = u;

    for (int k = 0; k < nb && TOPO_OK == rc; k++) {
        const size_t end = k + 1 < nb ? bp[k + 1] - 1 : SIZE_MAX; /* inclusive */
        for (int i = 0; i < n; i++) {
            const topo_price_t *pr = prices[i];
            q[i].live = NULL != pr;
            if (q[i].live) {
                q[i].slope = pr->per_byte;
                q[i].lat = pr->lat;
                q[i].extra = paid(pr, bp[k]);
                q[i].msgs = pr->msgs;
            }
        }
        size_t x = bp[k];
        int f = argmin(q, n, x);
        rc = push(d, &cap, x, f);
        /* within the interval the envelope is concave: each change goes to
         * a smaller slope, so at most n changes */
        for (int iter = 0; f >= 0 && iter <= n && TOPO_OK == rc; iter++) {
            size_t next = 0;
            for (int g = 0; g < n; g++) {
                if (g != f && q[g].live) {
                    size_t y = overtakes(q, g, f, x, end);
                    if (0 != y && (0 == next || y < next)) {
                        next = y;
                    }
                }
            }
            if (0 == next) {
                break;
            }
            x = next;
            f = argmin(q, n, x);
            rc = push(d, &cap, x, f);
        }
    }
    free(bp);
    free(q);
    if (TOPO_OK == rc && 0 == d->n) {
        rc = push(d, &cap, 0, -1);
    }
    if (TOPO_OK != rc) {
        topo_decision_free(d);
    }
    return rc;
}

void topo_decision_free(topo_decision_t *d)
{
    free(d->lo);
    free(d->cand);
    memset(d, 0, sizeof(*d));
}

int topo_decision_range(const topo_decision_t *d, size_t bytes)
{
    int lo = 0, hi = d->n - 1; /* the last range starting at or below bytes */
    while (lo < hi) {
        int mid = lo + (hi - lo + 1) / 2;
        if (d->lo[mid] <= bytes) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    return lo;
}

size_t topo_decision_range_last(const topo_decision_t *d, int k, size_t upto)
{
    const size_t last = k + 1 < d->n ? d->lo[k + 1] - 1 : SIZE_MAX;
    return last < upto ? last : upto;
}

int topo_decision_lookup(const topo_decision_t *d, size_t bytes)
{
    return d->n > 0 ? d->cand[topo_decision_range(d, bytes)] : -1;
}

/* --- pruning ------------------------------------------------------------ */

static double bound_scale = 1.0;

double topo_price_bound_scale(double scale)
{
    const double old = bound_scale;
    if (scale > 0.0) {
        bound_scale = scale;
    }
    return old;
}

/* Is the envelope of the priced candidates (d over pr) below lb, the bound
 * of candidate c, at y, by enough that c is not the decision's argmin
 * there?  The envelope's candidate w beats c outright once w's price is
 * below c's by more than a tie: enough where w comes after c in the
 * argmin's scan, which then replaces c with w.  Where w comes before c,
 * the scan may have moved on from w to candidates up to a tie dearer
 * each (among ties, the one with fewer messages), at most n of them: c
 * must then be dearer than w by n + 1 ties.  One tie more on both for the
 * rounding. */
static int below_at(const topo_price_t *lb, int c, const topo_price_t *const *pr, int n,
                    const topo_decision_t *d, size_t y)
{
    const int w = topo_decision_lookup(d, y);
    if (w < 0) {
        return 0;
    }
    const double margin = w > c ? 2 * TIE : (n + 2) * TIE;
    return topo_price_at(pr[w], y) * (1.0 + margin) < topo_price_at(lb, y) * bound_scale;
}

/* Is lb (the bound of candidate c) above the envelope at every payload
 * from 0 to upto?  Both are piecewise affine: between two consecutive
 * payloads where the envelope changes candidate (d's ranges) or a price of
 * the envelope or lb pays its next rendezvous, both are affine, so their
 * difference is checked at the two ends of every such piece (upto ends
 * the last one; ends above it are not payloads asked about). */
static int dominated(const topo_price_t *lb, int c, const topo_price_t *const *pr, int n,
                     const topo_decision_t *d, size_t upto)
{
#define ABOVE_AT(y) ((y) > upto || below_at(lb, c, pr, n, d, (y)))
    if (!below_at(lb, c, pr, n, d, 0) || !ABOVE_AT(upto)) {
        return 0;
    }
    for (int k = 1; k < d->n; k++) {
        if (!ABOVE_AT(d->lo[k] - 1) || !ABOVE_AT(d->lo[k])) {
            return 0;
        }
    }
    for (int k = 0; k < lb->nthr; k++) {
        if (!ABOVE_AT(lb->thr[k] - 1) || !ABOVE_AT(lb->thr[k])) {
            return 0;
        }
    }
    for (int i = 0; i < n; i++) {
        for (int k = 0; NULL != pr[i] && k < pr[i]->nthr; k++) {
            if (!ABOVE_AT(pr[i]->thr[k] - 1) || !ABOVE_AT(pr[i]->thr[k])) {
                return 0;
            }
        }
    }
#undef ABOVE_AT
    return 1;
}

int topo_price_dominated(const topo_price_t *lb, int c, const topo_price_t *const *prices, int n,
                         size_t upto, int *out)
{
    topo_decision_t d;
    *out = 0;
    const int rc = topo_decision_build(prices, n, &d);
    if (TOPO_OK != rc) {
        return rc;
    }
    *out = dominated(lb, c, prices, n, &d, upto);
    topo_decision_free(&d);
    return TOPO_OK;
}

typedef struct {
    size_t work;
    int i;
} order_t;

static int cmp_order(const void *a, const void *b)
{
    const order_t *x = a, *y = b;
    if (x->work != y->work) {
        return (x->work > y->work) - (x->work < y->work);
    }
    return (x->i > y->i) - (x->i < y->i);
}

int topo_price_candidates(const topo_algo_t *const *algos, int n, const topo_gen_args_t *a,
                          const topo_cost_params_t *p, const topo_cost_net_t *net,
                          const topo_proto_t *proto, int prune, topo_price_t *prices, int *rc,
                          topo_price_t *bounds)
{
    return topo_price_candidates_upto(algos, n, a, p, net, proto, prune, SIZE_MAX, prices, rc,
                                      bounds);
}

int topo_price_candidates_upto(const topo_algo_t *const *algos, int n, const topo_gen_args_t *a,
                               const topo_cost_params_t *p, const topo_cost_net_t *net,
                               const topo_proto_t *proto, int prune, size_t upto,
                               topo_price_t *prices, int *rc, topo_price_t *bounds)
{
    memset(prices, 0, sizeof(*prices) * (size_t)(n > 0 ? n : 0));
    if (NULL != bounds) {
        memset(bounds, 0, sizeof(*bounds) * (size_t)(n > 0 ? n : 0));
    }
    order_t *ord = calloc(n > 0 ? (size_t)n : 1, sizeof(*ord));
    topo_price_t *lb = calloc(n > 0 ? (size_t)n : 1, sizeof(*lb));
    int *has_lb = calloc(n > 0 ? (size_t)n : 1, sizeof(*has_lb));
    const topo_price_t **pr = calloc(n > 0 ? (size_t)n : 1, sizeof(*pr));
    if (NULL == ord || NULL == lb || NULL == has_lb || NULL == pr) {
        free(ord);
        free(lb);
        free(has_lb);
        free(pr);
        return TOPO_ENOMEM;
    }
    /* the bounds (one schedule each), and the order: the cheapest to price
     * first, so that the dearest (O(p) steps or messages per rank) meet an
     * envelope they may be above */
    for (int i = 0; i < n; i++) {
        rc[i] = TOPO_ENOMEM;
        ord[i].i = i;
        ord[i].work = 0;
        if (prune) {
            has_lb[i] =
                TOPO_OK == topo_price_bound(algos[i], a, p, net, proto, &lb[i], &ord[i].work);
            if (!has_lb[i]) {
                topo_price_free(&lb[i]);
                ord[i].work = SIZE_MAX;
            }
        }
    }
    if (prune) {
        qsort(ord, (size_t)n, sizeof(*ord), cmp_order);
    }
    topo_decision_t d;
    memset(&d, 0, sizeof(d));
    int fresh = 1, err = TOPO_OK; /* d is the envelope of pr */
    for (int k = 0; k < n && TOPO_OK == err; k++) {
        const int i = ord[k].i;
        if (prune && has_lb[i]) {
            if (!fresh) {
                topo_decision_free(&d);
                err = topo_decision_build(pr, n, &d);
                fresh = TOPO_OK == err;
            }
            if (TOPO_OK == err && dominated(&lb[i], i, pr, n, &d, upto)) {
                rc[i] = TOPO_PRUNED;
                continue;
            }
        }
        rc[i] = topo_price_build(algos[i], a, p, net, proto, &prices[i]);
        if (TOPO_OK == rc[i]) {
            pr[i] = &prices[i];
            fresh = 0;
        }
    }
    topo_decision_free(&d);
    for (int i = 0; i < n; i++) {
        if (NULL != bounds) {
            bounds[i] = lb[i];
        } else {
            topo_price_free(&lb[i]);
        }
    }
    free(ord);
    free(lb);
    free(has_lb);
    free(pr);
    if (TOPO_OK != err) {
        for (int i = 0; i < n; i++) {
            topo_price_free(&prices[i]);
            if (NULL != bounds) {
                topo_price_free(&bounds[i]);
            }
        }
    }
    return err;
}

int topo_price_root(int root, int size, int k)
{
    if (k <= 0 || k >= size || root < 0 || root >= size) {
        return root;
    }
    if (1 == k) {
        return 0;
    }
    const long long n = size - 1, m = k - 1;
    const long long i = (2 * root * m + n) / (2 * n);
    return (int)((2 * i * n + m) / (2 * m));
}

int topo_candidates_price(const topo_gen_args_t *a, int opclass, const topo_cost_params_t *p,
                          const topo_cost_net_t *net, const topo_proto_t *proto, int prune,
                          size_t upto, int want_bounds, topo_candidates_t *out)
{
    int n;
    const topo_algo_t *cat = topo_catalog(&n);
    memset(out, 0, sizeof(*out));
    out->cand = calloc((size_t)n + 1, sizeof(*out->cand));
    const topo_algo_t **fit = calloc((size_t)n + 1, sizeof(*fit));
    topo_price_t *price = calloc((size_t)n + 1, sizeof(*price));
    topo_price_t *bound = want_bounds ? calloc((size_t)n + 1, sizeof(*bound)) : NULL;
    int *rc = calloc((size_t)n + 1, sizeof(*rc)), *at = calloc((size_t)n + 1, sizeof(*at));
    const topo_price_t **pr = calloc((size_t)n + 1, sizeof(*pr));
    int err = NULL == out->cand || NULL == fit || NULL == price || (want_bounds && NULL == bound) ||
                      NULL == rc || NULL == at || NULL == pr
                  ? TOPO_ENOMEM
                  : TOPO_OK;
    int nfit = 0;
    for (int i = 0; i < n && TOPO_OK == err; i++) {
        if (cat[i].prim != a->prim) {
            continue;
        }
        topo_candidate_t *c = &out->cand[out->n++];
        c->algo = &cat[i];
        c->fits = topo_algo_fits(c->algo, a, opclass, c->why, sizeof(c->why));
        if (c->fits) {
            at[nfit] = out->n - 1;
            fit[nfit++] = c->algo;
        }
    }
    /* the fitting ones, priced (or pruned) together */
    if (TOPO_OK == err) {
        err = topo_price_candidates_upto(fit, nfit, a, p, net, proto, prune, upto, price, rc,
                                         bound);
    }
    for (int k = 0; k < nfit && TOPO_OK != err && NULL != price && NULL != rc; k++) {
        topo_price_free(&price[k]); /* priced before the error */
        if (NULL != bound) {
            topo_price_free(&bound[k]);
        }
    }
    for (int k = 0; k < nfit && TOPO_OK == err; k++) {
        topo_candidate_t *c = &out->cand[at[k]];
        c->rc = rc[k];
        c->price = price[k];
        if (NULL != bound) {
            c->bound = bound[k];
        }
        if (TOPO_OK != c->rc && TOPO_PRUNED != c->rc) {
            snprintf(c->why, sizeof(c->why), "the cost model could not price it (error %d)",
                     c->rc);
        }
    }
    for (int i = 0; i < out->n && TOPO_OK == err; i++) {
        const topo_candidate_t *c = &out->cand[i];
        pr[i] = c->fits && TOPO_OK == c->rc ? &c->price : NULL;
    }
    if (TOPO_OK == err) {
        err = topo_decision_build(pr, out->n, &out->table);
    }
    free(fit);
    free(price);
    free(bound);
    free(rc);
    free(at);
    free(pr);
    if (TOPO_OK != err) {
        topo_candidates_free(out);
    }
    return err;
}

void topo_candidates_free(topo_candidates_t *c)
{
    for (int i = 0; NULL != c->cand && i < c->n; i++) {
        topo_price_free(&c->cand[i].price);
        topo_price_free(&c->cand[i].bound);
    }
    free(c->cand);
    topo_decision_free(&c->table);
    memset(c, 0, sizeof(*c));
}
