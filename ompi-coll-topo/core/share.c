/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The decision table priced by the ranks together (share.h).
 */
#include "share.h"

#include "catalog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- the assignment ------------------------------------------------------ */

typedef struct {
    size_t work;
    int i;
} job_t;

/* heaviest first; ties: the lower index */
static int cmp_heavy(const void *a, const void *b)
{
    const job_t *x = a, *y = b;
    if (x->work != y->work) {
        return (x->work < y->work) - (x->work > y->work);
    }
    return (x->i > y->i) - (x->i < y->i);
}

/* The jobs pick[0..n) (indices into work and owner) onto ranks 0..m-1,
 * each to the least loaded (load[m], in and out).  Loads are doubles, so
 * that work SIZE_MAX (unknown: the heaviest) adds up without wrapping. */
static int greedy(const size_t *work, const int *pick, int n, double *load, int m, int *owner)
{
    job_t *j = malloc(sizeof(*j) * (size_t)(n > 0 ? n : 1));
    if (NULL == j) {
        return TOPO_ENOMEM;
    }
    for (int k = 0; k < n; k++) {
        j[k] = (job_t){.work = work[pick[k]], .i = pick[k]};
    }
    qsort(j, (size_t)n, sizeof(*j), cmp_heavy);
    for (int k = 0; k < n; k++) {
        int best = 0;
        for (int r = 1; r < m; r++) {
            best = load[r] < load[best] ? r : best;
        }
        owner[j[k].i] = best;
        load[best] += (double)j[k].work;
    }
    free(j);
    return TOPO_OK;
}

int topo_share_assign(const size_t *work, int n, int nranks, int *owner)
{
    if (nranks < 1 || n < 0) {
        return TOPO_EINVAL;
    }
    /* more ranks than jobs: the ones past n never get one (an empty rank
     * is always the least loaded) */
    const int m = nranks < n ? nranks : (n > 0 ? n : 1);
    double *load = calloc((size_t)m, sizeof(*load));
    int *pick = malloc(sizeof(*pick) * (size_t)(n > 0 ? n : 1));
    int rc = NULL == load || NULL == pick ? TOPO_ENOMEM : TOPO_OK;
    for (int k = 0; k < n && TOPO_OK == rc; k++) {
        pick[k] = k;
    }
    if (TOPO_OK == rc) {
        rc = greedy(work, pick, n, load, m, owner);
    }
    free(load);
    free(pick);
    return rc;
}

/* --- serialization ------------------------------------------------------- */

/* lat, per_byte, rndv; nthr, msgs, msg_steps, depth, has_paid; thr[];
 * paid[] (nthr + 1 where has_paid) */
#define PRICE_HEAD (3 * sizeof(double) + 5 * sizeof(int32_t))

size_t topo_price_packed_size(const topo_price_t *pr)
{
    const size_t n = pr->nthr > 0 ? (size_t)pr->nthr : 0;
    return PRICE_HEAD + n * sizeof(uint64_t) + (NULL != pr->paid ? (n + 1) * sizeof(double) : 0);
}

static unsigned char *put_f64(unsigned char *b, double v)
{
    memcpy(b, &v, sizeof(v));
    return b + sizeof(v);
}

static unsigned char *put_i32(unsigned char *b, int v)
{
    const int32_t w = (int32_t)v;
    memcpy(b, &w, sizeof(w));
    return b + sizeof(w);
}

static unsigned char *put_u64(unsigned char *b, uint64_t v)
{
    memcpy(b, &v, sizeof(v));
    return b + sizeof(v);
}

size_t topo_price_pack(const topo_price_t *pr, unsigned char *buf)
{
    unsigned char *b = buf;
    const int nthr = pr->nthr > 0 ? pr->nthr : 0;
    b = put_f64(b, pr->lat);
    b = put_f64(b, pr->per_byte);
    b = put_f64(b, pr->rndv);
    b = put_i32(b, nthr);
    b = put_i32(b, pr->msgs);
    b = put_i32(b, pr->msg_steps);
    b = put_i32(b, pr->depth);
    b = put_i32(b, NULL != pr->paid);
    for (int k = 0; k < nthr; k++) {
        b = put_u64(b, (uint64_t)pr->thr[k]);
    }
    for (int k = 0; NULL != pr->paid && k <= nthr; k++) {
        b = put_f64(b, pr->paid[k]);
    }
    return (size_t)(b - buf);
}

/* A reader that refuses to run past the end. */
typedef struct {
    const unsigned char *b;
    size_t left;
    int bad;
} reader_t;

static void get(reader_t *r, void *out, size_t n)
{
    if (r->bad || r->left < n) {
        r->bad = 1;
        memset(out, 0, n);
        return;
    }
    memcpy(out, r->b, n);
    r->b += n;
    r->left -= n;
}

static int get_i32(reader_t *r)
{
    int32_t v;
    get(r, &v, sizeof(v));
    return (int)v;
}

int topo_price_unpack(const unsigned char *buf, size_t len, size_t *used, topo_price_t *out)
{
    reader_t r = {.b = buf, .left = len, .bad = 0};
    memset(out, 0, sizeof(*out));
    get(&r, &out->lat, sizeof(double));
    get(&r, &out->per_byte, sizeof(double));
    get(&r, &out->rndv, sizeof(double));
    const int nthr = get_i32(&r);
    out->msgs = get_i32(&r);
    out->msg_steps = get_i32(&r);
    out->depth = get_i32(&r);
    const int has_paid = get_i32(&r);
    /* what the record claims must fit in what is left of it */
    if (r.bad || nthr < 0 || (has_paid != 0 && has_paid != 1) ||
        (size_t)nthr > r.left / sizeof(uint64_t) ||
        (size_t)nthr * sizeof(uint64_t) + (has_paid ? ((size_t)nthr + 1) * sizeof(double) : 0) >
            r.left) {
        memset(out, 0, sizeof(*out));
        return TOPO_EINVAL;
    }
    if ((nthr > 0 && NULL == (out->thr = malloc(sizeof(size_t) * (size_t)nthr))) ||
        (has_paid && NULL == (out->paid = malloc(sizeof(double) * ((size_t)nthr + 1))))) {
        topo_price_free(out);
        return TOPO_ENOMEM;
    }
    out->nthr = nthr;
    for (int k = 0; k < nthr; k++) {
        uint64_t t;
        get(&r, &t, sizeof(t));
        out->thr[k] = (size_t)t;
    }
    for (int k = 0; has_paid && k <= nthr; k++) {
        get(&r, &out->paid[k], sizeof(double));
    }
    if (NULL != used) {
        *used = len - r.left;
    }
    return TOPO_OK;
}

/* --- the rounds ---------------------------------------------------------- */

/* A record: the candidate (fit index), the round, its result, its work
 * estimate, and (result TOPO_OK) the price or bound. */
#define REC_HEAD (3 * sizeof(int32_t) + sizeof(uint64_t))

int topo_share_begin(topo_share_t *s, const topo_gen_args_t *a, int opclass,
                     const topo_cost_params_t *p, const topo_cost_net_t *net,
                     const topo_proto_t *proto, int prune, int rank, int nranks)
{
    memset(s, 0, sizeof(*s));
    s->a = a;
    s->p = p;
    s->net = net;
    s->proto = proto;
    s->prune = prune;
    s->rank = rank;
    s->nranks = nranks > 0 ? nranks : 1;
    int n;
    const topo_algo_t *cat = topo_catalog(&n);
    s->c.cand = calloc((size_t)n + 1, sizeof(*s->c.cand));
    s->at = calloc((size_t)n + 1, sizeof(*s->at));
    s->fit = calloc((size_t)n + 1, sizeof(*s->fit));
    if (NULL == s->c.cand || NULL == s->at || NULL == s->fit) {
        s->failed = TOPO_ENOMEM;
        return s->failed;
    }
    for (int i = 0; i < n; i++) {
        if (cat[i].prim != a->prim) {
            continue;
        }
        topo_candidate_t *c = &s->c.cand[s->c.n++];
        c->algo = &cat[i];
        c->fits = topo_algo_fits(c->algo, a, opclass, c->why, sizeof(c->why));
        if (c->fits) {
            s->at[s->nfit] = s->c.n - 1;
            s->fit[s->nfit++] = c->algo;
        }
    }
    if (s->nfit >= TOPO_SHARE_ERR) { /* not with this catalog: a slot each */
        s->failed = TOPO_EINVAL;
        return s->failed;
    }
    const size_t k = (size_t)s->nfit + 1;
    const int m = s->nranks < s->nfit ? s->nranks : s->nfit > 0 ? s->nfit : 1;
    s->lb = calloc(k, sizeof(*s->lb));
    s->has_lb = calloc(k, sizeof(*s->has_lb));
    s->work = calloc(k, sizeof(*s->work));
    s->round = calloc(k, sizeof(*s->round));
    s->owner = calloc(k, sizeof(*s->owner));
    s->rc = calloc(k, sizeof(*s->rc));
    s->price = calloc(k, sizeof(*s->price));
    s->load = calloc((size_t)m, sizeof(*s->load));
    s->rec_at = calloc(k, sizeof(*s->rec_at));
    s->rec_len = calloc(k, sizeof(*s->rec_len));
    if (NULL == s->lb || NULL == s->has_lb || NULL == s->work || NULL == s->round ||
        NULL == s->owner || NULL == s->rc || NULL == s->price || NULL == s->load ||
        NULL == s->rec_at || NULL == s->rec_len) {
        s->failed = TOPO_ENOMEM;
        return s->failed;
    }
    for (int i = 0; i < s->nfit; i++) {
        s->rc[i] = TOPO_ENOMEM;
        s->round[i] = 0;
        /* round 0: the bounds, one a rank from the last one down (a
         * communicator of fewer ranks wraps around) */
        s->owner[i] = s->nranks - 1 - i % s->nranks;
    }
    return TOPO_OK;
}

/* Append a record to s->mine. */
static int record(topo_share_t *s, int i, int round, int rc, size_t work, const topo_price_t *pr)
{
    const size_t len = REC_HEAD + (TOPO_OK == rc ? topo_price_packed_size(pr) : 0);
    unsigned char *grown = realloc(s->mine, s->nmine + len);
    if (NULL == grown) {
        return TOPO_ENOMEM;
    }
    s->mine = grown;
    unsigned char *b = s->mine + s->nmine;
    b = put_i32(b, i);
    b = put_i32(b, round);
    b = put_i32(b, rc);
    b = put_u64(b, (uint64_t)work);
    if (TOPO_OK == rc) {
        (void)topo_price_pack(pr, b);
    }
    s->rec_at[i] = s->nmine;
    s->rec_len[i] = len;
    s->nmine += len;
    return TOPO_OK;
}

/* The start of rounds 1 and 2, alike on every rank: which candidates the
 * round prices and who prices each. */
static int plan_round(topo_share_t *s, int round)
{
    job_t *ord = malloc(sizeof(*ord) * (size_t)(s->nfit > 0 ? s->nfit : 1));
    int *pick = malloc(sizeof(*pick) * (size_t)(s->nfit > 0 ? s->nfit : 1));
    const topo_price_t **pr = calloc((size_t)s->nfit + 1, sizeof(*pr));
    int rc = NULL == ord || NULL == pick || NULL == pr ? TOPO_ENOMEM : TOPO_OK;
    int npick = 0;
    if (TOPO_OK == rc) {
        /* the single-process order: the least work first (ties: the lower
         * index); without pruning every candidate goes in round 1 */
        for (int i = 0; i < s->nfit; i++) {
            ord[i] = (job_t){.work = s->work[i], .i = i};
        }
        qsort(ord, (size_t)s->nfit, sizeof(*ord), cmp_heavy);
        const int light = s->prune ? (s->nfit + 1) / 2 : s->nfit; /* round 1's */
        for (int k = 0; k < s->nfit; k++) {
            /* cmp_heavy sorted them heaviest first: the lighter are last */
            s->round[ord[k].i] = k >= s->nfit - light ? 1 : 2;
        }
        for (int i = 0; i < s->nfit; i++) {
            pr[i] = TOPO_OK == s->rc[i] && 1 == s->round[i] ? &s->price[i] : NULL;
        }
    }
    for (int i = 0; i < s->nfit && TOPO_OK == rc; i++) {
        if (s->round[i] != round) {
            continue;
        }
        if (2 == round && s->has_lb[i]) {
            int dom = 0;
            rc = topo_price_dominated(&s->lb[i], i, pr, s->nfit, SIZE_MAX, &dom);
            if (TOPO_OK == rc && dom) {
                s->round[i] = -1;
                s->rc[i] = TOPO_PRUNED;
                continue;
            }
        }
        pick[npick++] = i;
    }
    if (TOPO_OK == rc) {
        const int m = s->nranks < s->nfit ? s->nranks : s->nfit > 0 ? s->nfit : 1;
        rc = greedy(s->work, pick, npick, s->load, m, s->owner);
    }
    free(ord);
    free(pick);
    free(pr);
    return rc;
}

void topo_share_work(topo_share_t *s, int round, int64_t len[TOPO_SHARE_SLOTS])
{
    memset(len, 0, sizeof(int64_t) * TOPO_SHARE_SLOTS);
    s->nmine = 0;
    for (int i = 0; NULL != s->rec_len && i < s->nfit; i++) {
        s->rec_len[i] = 0;
    }
    if (!s->failed && round > 0) {
        s->failed = plan_round(s, round);
    }
    for (int i = 0; i < s->nfit && !s->failed; i++) {
        if (s->round[i] != round || s->owner[i] != s->rank) {
            continue;
        }
        topo_price_t pr;
        size_t work = 0;
        int rc;
        if (0 == round) {
            /* as topo_price_candidates_upto: a bound that fails is no
             * bound, and its candidate comes last */
            rc = topo_price_bound(s->fit[i], s->a, s->p, s->net, s->proto, &pr, &work);
            work = TOPO_OK == rc ? work : SIZE_MAX;
        } else {
            rc = topo_price_build(s->fit[i], s->a, s->p, s->net, s->proto, &pr);
        }
        s->failed = record(s, i, round, rc, work, &pr);
        if (TOPO_OK == rc) {
            topo_price_free(&pr);
        }
        len[i] = (int64_t)s->rec_len[i];
    }
    len[TOPO_SHARE_ERR] = 0 != s->failed;
}

size_t topo_share_total(const int64_t len[TOPO_SHARE_SLOTS])
{
    size_t total = 0;
    for (int k = 0; k < TOPO_SHARE_ERR; k++) {
        if (len[k] < 0 || (uint64_t)len[k] > SIZE_MAX - total) {
            return SIZE_MAX;
        }
        total += (size_t)len[k];
    }
    return total;
}

void topo_share_put(const topo_share_t *s, const int64_t len[TOPO_SHARE_SLOTS],
                    unsigned char *buf)
{
    size_t off = 0;
    for (int k = 0; k < TOPO_SHARE_ERR; k++) {
        if (k < s->nfit && 0 != s->rec_len[k] && (int64_t)s->rec_len[k] == len[k]) {
            memcpy(buf + off, s->mine + s->rec_at[k], s->rec_len[k]);
        }
        off += (size_t)len[k];
    }
}

void topo_share_take(topo_share_t *s, int round, const int64_t len[TOPO_SHARE_SLOTS],
                     const unsigned char *buf)
{
    size_t off = 0;
    for (int k = 0; k < TOPO_SHARE_ERR && !s->failed; k++) {
        const size_t n = (size_t)len[k];
        const unsigned char *b = buf + off;
        off += n;
        if (0 == n) {
            continue;
        }
        reader_t r = {.b = b, .left = n, .bad = 0};
        const int i = get_i32(&r), rnd = get_i32(&r), rc = get_i32(&r);
        uint64_t work;
        get(&r, &work, sizeof(work));
        /* a record of another candidate or round, or a candidate this
         * round does not price, is not one of this pricing's */
        if (r.bad || i != k || i >= s->nfit || rnd != round || s->round[i] != round) {
            s->failed = TOPO_EINVAL;
            break;
        }
        topo_price_t pr;
        memset(&pr, 0, sizeof(pr));
        size_t used = 0;
        if (TOPO_OK == rc) {
            s->failed = topo_price_unpack(r.b, r.left, &used, &pr);
            if (!s->failed && used != r.left) {
                topo_price_free(&pr);
                s->failed = TOPO_EINVAL;
            }
        }
        if (s->failed) {
            break;
        }
        if (0 == round) {
            s->has_lb[i] = TOPO_OK == rc;
            s->lb[i] = pr;
            s->work[i] = (size_t)work;
        } else {
            s->rc[i] = rc;
            s->price[i] = pr;
        }
    }
    /* every candidate of the round must have come (its owner sent it) */
    for (int i = 0; i < s->nfit && !s->failed; i++) {
        if (s->round[i] == round && 0 == len[i]) {
            s->failed = TOPO_EINVAL;
        }
    }
}

int topo_share_owner(const topo_share_t *s, int round, int i)
{
    return i >= 0 && i < s->nfit && NULL != s->round && s->round[i] == round ? s->owner[i] : -1;
}

int topo_share_finish(topo_share_t *s, topo_candidates_t *out)
{
    memset(out, 0, sizeof(*out));
    const topo_price_t **pr = NULL;
    if (!s->failed) {
        pr = calloc((size_t)s->c.n + 1, sizeof(*pr));
        s->failed = NULL == pr ? TOPO_ENOMEM : TOPO_OK;
    }
    for (int i = 0; i < s->nfit && !s->failed; i++) {
        topo_candidate_t *c = &s->c.cand[s->at[i]];
        c->rc = s->round[i] < 0 ? TOPO_PRUNED : s->rc[i];
        /* the bound stays with its candidate (topo-plan prints a pruned
         * one's), as topo_candidates_price's want_bounds */
        c->bound = s->lb[i];
        memset(&s->lb[i], 0, sizeof(s->lb[i]));
        if (TOPO_OK == c->rc) {
            c->price = s->price[i];
            memset(&s->price[i], 0, sizeof(s->price[i]));
            pr[s->at[i]] = &c->price;
        } else if (TOPO_PRUNED != c->rc) {
            snprintf(c->why, sizeof(c->why), "the cost model could not price it (error %d)",
                     c->rc);
        }
    }
    if (!s->failed) {
        s->failed = topo_decision_build(pr, s->c.n, &s->c.table);
    }
    free(pr);
    if (!s->failed) {
        *out = s->c;
        memset(&s->c, 0, sizeof(s->c));
    }
    return s->failed;
}

void topo_share_free(topo_share_t *s)
{
    for (int i = 0; NULL != s->lb && i < s->nfit; i++) {
        topo_price_free(&s->lb[i]);
    }
    for (int i = 0; NULL != s->price && i < s->nfit; i++) {
        topo_price_free(&s->price[i]);
    }
    topo_candidates_free(&s->c);
    free(s->at);
    free(s->fit);
    free(s->lb);
    free(s->has_lb);
    free(s->work);
    free(s->round);
    free(s->owner);
    free(s->rc);
    free(s->price);
    free(s->load);
    free(s->mine);
    free(s->rec_at);
    free(s->rec_len);
    memset(s, 0, sizeof(*s));
}

int topo_share_local(const topo_gen_args_t *a, int opclass, const topo_cost_params_t *p,
                     const topo_cost_net_t *net, const topo_proto_t *proto, int prune,
                     int nranks, topo_candidates_t *out)
{
    memset(out, 0, sizeof(*out));
    if (nranks < 1) {
        return TOPO_EINVAL;
    }
    topo_share_t *s = calloc((size_t)nranks, sizeof(*s));
    if (NULL == s) {
        return TOPO_ENOMEM;
    }
    int rc = TOPO_OK;
    for (int r = 0; r < nranks; r++) {
        (void)topo_share_begin(&s[r], a, opclass, p, net, proto, prune, r, nranks);
    }
    for (int round = 0; round < TOPO_SHARE_ROUNDS && TOPO_OK == rc; round++) {
        int64_t len[TOPO_SHARE_SLOTS], mine[TOPO_SHARE_SLOTS];
        memset(len, 0, sizeof(len));
        for (int r = 0; r < nranks; r++) {
            topo_share_work(&s[r], round, mine);
            for (int k = 0; k < TOPO_SHARE_SLOTS; k++) {
                len[k] = mine[k] > len[k] ? mine[k] : len[k];
            }
        }
        const size_t total = topo_share_total(len);
        unsigned char *buf = 0 != len[TOPO_SHARE_ERR] || SIZE_MAX == total
                                 ? NULL
                                 : calloc(total > 0 ? total : 1, 1);
        rc = NULL != buf ? TOPO_OK : TOPO_ENOMEM;
        for (int r = 0; r < nranks && 0 != len[TOPO_SHARE_ERR]; r++) {
            rc = 0 != s[r].failed ? s[r].failed : rc; /* the error some rank met */
        }
        for (int r = 0; r < nranks && TOPO_OK == rc; r++) {
            topo_share_put(&s[r], len, buf); /* disjoint ranges: the bitwise or */
        }
        for (int r = 0; r < nranks && TOPO_OK == rc; r++) {
            topo_share_take(&s[r], round, len, buf);
        }
        free(buf);
    }
    /* every rank's table; the first one's is the answer (the tests compare
     * them) */
    for (int r = 0; r < nranks && TOPO_OK == rc; r++) {
        topo_candidates_t t;
        rc = topo_share_finish(&s[r], 0 == r ? out : &t);
        if (0 != r && TOPO_OK == rc) {
            const int same = t.table.n == out->table.n &&
                             0 == memcmp(t.table.lo, out->table.lo,
                                         sizeof(*t.table.lo) * (size_t)t.table.n) &&
                             0 == memcmp(t.table.cand, out->table.cand,
                                         sizeof(*t.table.cand) * (size_t)t.table.n);
            topo_candidates_free(&t);
            rc = same ? TOPO_OK : TOPO_EINVAL;
        }
    }
    if (TOPO_OK != rc) {
        topo_candidates_free(out);
        rc = TOPO_OK == rc ? TOPO_EINVAL : rc;
    }
    for (int r = 0; r < nranks; r++) {
        topo_share_free(&s[r]);
    }
    free(s);
    return rc;
}
