/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The verifier (see verify.h).
 *
 * A symbolic value is the set of ranks whose data a block carries (a bitset),
 * and, for an order check, whether the set is the interval [lo, hi] combined
 * left to right.  Lanes touch disjoint blocks on every rank and only talk to
 * the same lane elsewhere, so each lane is executed on its own, over the
 * blocks it touches.
 */
#include "verify.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int32_t lo, hi;  /* smallest and largest rank in the set */
    int32_t n;       /* ranks in the set; 0 = no data yet */
    uint8_t ordered; /* the set is [lo, hi], combined in rank order */
    int32_t tree;    /* the combination tree: a leaf (the rank) or an
                        interior node of vstate_t.trees (ids >= size) */
} sval_t;

/* Interior nodes of combination trees, hash-consed: one id per distinct
 * (left, right) pair, so two values have the same tree exactly when they
 * have the same id.  For a commutative operation the two operands of a
 * node are unordered (a (op) b and b (op) a round alike); their
 * parenthesization is not. */
typedef struct {
    uint64_t *keys; /* (left << 32 | right) + 1; 0 = empty slot */
    int32_t *ids;
    size_t cap, used;
    int32_t next; /* the next id to hand out */
} trees_t;

typedef struct {
    const topo_sched_t *sc;
    int size, nblocks, words, root, ordered;
    topo_prim_t prim;
    char *msg;
    size_t len;
    /* state of the current lane: size x nc values */
    int nc;        /* blocks touched by the lane */
    int *cmap;     /* block -> compact index or -1 */
    sval_t *val;
    uint64_t *bits;
    /* per step: incoming values, in transfer order of each rank */
    sval_t *in;
    uint64_t *inbits;
    size_t incap;
    uint8_t *done; /* size x nblocks: final state checked */
    trees_t trees;
    int same_tree;  /* every rank must end with the same tree per block */
    int32_t *first; /* nblocks: the tree the first delivering rank ended
                       with, or -1 */
} vstate_t;

static int vfail(vstate_t *v, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (v->len > 0) {
        vsnprintf(v->msg, v->len, fmt, ap);
    }
    va_end(ap);
    return TOPO_EINVAL;
}

/* The id of the tree (left (op) right), made on first use; -1 when out of
 * memory. */
static int32_t tree_node(vstate_t *v, int32_t left, int32_t right)
{
    trees_t *t = &v->trees;
    if (!v->ordered && left > right) {
        int32_t x = left;
        left = right;
        right = x;
    }
    if (2 * (t->used + 1) > t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 1024;
        uint64_t *keys = calloc(cap, sizeof(*keys));
        int32_t *ids = malloc(cap * sizeof(*ids));
        if (NULL == keys || NULL == ids) {
            free(keys);
            free(ids);
            return -1;
        }
        for (size_t i = 0; i < t->cap; i++) {
            if (0 != t->keys[i]) {
                size_t j = (size_t)((t->keys[i] * 0x9E3779B97F4A7C15ull) >> 20) & (cap - 1);
                while (0 != keys[j]) {
                    j = (j + 1) & (cap - 1);
                }
                keys[j] = t->keys[i];
                ids[j] = t->ids[i];
            }
        }
        free(t->keys);
        free(t->ids);
        t->keys = keys;
        t->ids = ids;
        t->cap = cap;
    }
    const uint64_t key = (((uint64_t)(uint32_t)left << 32) | (uint32_t)right) + 1;
    size_t j = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 20) & (t->cap - 1);
    while (0 != t->keys[j]) {
        if (t->keys[j] == key) {
            return t->ids[j];
        }
        j = (j + 1) & (t->cap - 1);
    }
    t->keys[j] = key;
    t->ids[j] = t->next++;
    t->used++;
    return t->ids[j];
}

static sval_t *val_at(vstate_t *v, int rank, int b)
{
    return &v->val[(size_t)rank * v->nc + v->cmap[b]];
}

static uint64_t *bits_at(vstate_t *v, int rank, int b)
{
    return &v->bits[((size_t)rank * v->nc + v->cmap[b]) * v->words];
}

/* The block a primitive starts with at (rank, block). */
static void initial(vstate_t *v, int rank, int b, sval_t *sv, uint64_t *bits)
{
    memset(bits, 0, sizeof(uint64_t) * v->words);
    memset(sv, 0, sizeof(*sv));
    int owner = -1;
    switch (v->prim) {
    case TOPO_PRIM_ALLREDUCE:
    case TOPO_PRIM_REDUCE_SCATTER:
    case TOPO_PRIM_REDUCE:
    case TOPO_PRIM_BARRIER:
        owner = rank;
        break;
    case TOPO_PRIM_ALLGATHER:
        owner = b / v->sc[rank].nparts == rank ? rank : -1;
        break;
    case TOPO_PRIM_BCAST:
        owner = rank == v->root ? rank : -1;
        break;
    case TOPO_PRIM_ALLTOALL: {
        /* send region: block b is part b % np of the data for rank b / np;
         * its identity is (source, destination, part) */
        int np = v->sc[rank].nparts;
        owner = b < v->size * np ? (rank * v->size + b / np) * np + b % np : -1;
        break;
    }
    default:
        break;
    }
    if (owner >= 0) {
        sv->lo = sv->hi = owner;
        sv->n = 1;
        sv->ordered = 1;
        sv->tree = owner;
        if (v->words > 0) {
            bits[owner / 64] |= 1ull << (owner % 64);
        }
    }
}

/* Data-movement primitives carry single pieces of data (no bitsets). */
static int is_reduction(topo_prim_t prim)
{
    return prim == TOPO_PRIM_ALLREDUCE || prim == TOPO_PRIM_REDUCE_SCATTER ||
           prim == TOPO_PRIM_REDUCE || prim == TOPO_PRIM_BARRIER;
}

static int is_single(const sval_t *sv, int who)
{
    return sv->n == 1 && sv->lo == who;
}

/* Check the final value of (rank, b). */
static int final_ok(vstate_t *v, int rank, int b, const sval_t *sv)
{
    int need_full = 0, single = -1;
    switch (v->prim) {
    case TOPO_PRIM_ALLREDUCE:
        need_full = 1;
        break;
    case TOPO_PRIM_REDUCE_SCATTER:
        need_full = b / v->sc[rank].nparts == rank;
        break;
    case TOPO_PRIM_REDUCE:
        need_full = rank == v->root;
        break;
    case TOPO_PRIM_ALLGATHER:
        single = b / v->sc[rank].nparts;
        break;
    case TOPO_PRIM_BCAST:
        single = v->root;
        break;
    case TOPO_PRIM_BARRIER:
        /* no order, no data: only that every rank has heard of every rank */
        if (sv->n != v->size) {
            return vfail(v, "rank %d leaves the barrier knowing of %d of %d ranks", rank, sv->n,
                         v->size);
        }
        return TOPO_OK;
    case TOPO_PRIM_ALLTOALL: {
        /* receive region: block p*np + i*np + k holds part k of i's data
         * for this rank; the send region and scratch blocks are free */
        int np = v->sc[rank].nparts, rb = b - v->size * np;
        if (rb >= 0 && rb < v->size * np) {
            single = ((rb / np) * v->size + rank) * np + rb % np;
        }
        break;
    }
    default:
        return vfail(v, "primitive %s cannot be verified", topo_prim_name(v->prim));
    }
    if (need_full) {
        if (sv->n != v->size) {
            return vfail(v, "rank %d block %d ends with %d of %d contributions", rank, b, sv->n,
                         v->size);
        }
        if (v->ordered && !(sv->ordered && sv->lo == 0 && sv->hi == v->size - 1)) {
            return vfail(v, "rank %d block %d: contributions not combined in rank order", rank,
                         b);
        }
        /* every rank that gets block b must get the same bits: the same
         * operands combined in the same parenthesization */
        if (v->same_tree) {
            if (v->first[2 * b] < 0) {
                v->first[2 * b] = sv->tree;
                v->first[2 * b + 1] = rank;
            } else if (v->first[2 * b] != sv->tree) {
                return vfail(v,
                             "rank %d block %d: contributions combined in another order than "
                             "on rank %d (the ranks' results may differ in rounding)",
                             rank, b, v->first[2 * b + 1]);
            }
        }
    }
    if (single >= 0 && !is_single(sv, single)) {
        return vfail(v, "rank %d block %d ends without the data of rank %d", rank, b, single);
    }
    return TOPO_OK;
}

/* The i-th block of a transfer's ranges (wire order). */
static int nth_block(const topo_sched_t *s, int r0, int nr, int i)
{
    for (int k = 0; k < nr; k++) {
        const topo_range_t *r = &s->ranges[r0 + k];
        if (i < r->count) {
            return r->first + i;
        }
        i -= r->count;
    }
    return -1;
}

/* The matching send of receive x (the k-th receive from its peer in the
 * step is matched with the peer's k-th send to this rank). */
static const topo_xfer_t *match(vstate_t *v, int lane, int step, int rank, const topo_step_t *st,
                                int xi)
{
    const topo_sched_t *s = &v->sc[rank];
    const topo_xfer_t *x = &s->xfers[st->xfer0 + xi];
    int k = 0;
    for (int i = 0; i < xi; i++) {
        const topo_xfer_t *y = &s->xfers[st->xfer0 + i];
        k += y->peer == x->peer && y->kind != TOPO_XFER_SEND && y->kind != TOPO_XFER_COPY;
    }
    const topo_sched_t *ps = &v->sc[x->peer];
    const topo_step_t *pst = topo_sched_explicit_step(ps, lane, step);
    for (int i = 0; i < pst->nxfers; i++) {
        const topo_xfer_t *y = &ps->xfers[pst->xfer0 + i];
        if (y->kind == TOPO_XFER_SEND && y->peer == rank && 0 == k--) {
            return y;
        }
    }
    return NULL;
}

static int check_message(vstate_t *v, int lane, int step, int rank, const topo_xfer_t *recv,
                         const topo_xfer_t *send)
{
    const topo_sched_t *s = &v->sc[rank], *ps = &v->sc[recv->peer];
    if (NULL == send) {
        return vfail(v, "lane %d step %d: rank %d receives from %d, which sends nothing to match",
                     lane, step, rank, recv->peer);
    }
    if (send->nblk != recv->nblk) {
        return vfail(v, "lane %d step %d: rank %d sends %d blocks to %d, which receives %d", lane,
                     step, recv->peer, send->nblk, rank, recv->nblk);
    }
    if (!s->uniform) {
        for (int i = 0; i < recv->nblk; i++) {
            if (nth_block(s, recv->range0, recv->nranges, i) !=
                nth_block(ps, send->range0, send->nranges, i)) {
                return vfail(v,
                             "lane %d step %d: rank %d receives other blocks from %d than it "
                             "sends (schedule not uniform)",
                             lane, step, rank, recv->peer);
            }
        }
    }
    return TOPO_OK;
}

/* Count, per step, the sends that no receive matches. */
static int all_sends_matched(vstate_t *v, int lane, int step)
{
    long sends = 0, recvs = 0;
    for (int r = 0; r < v->size; r++) {
        const topo_sched_t *s = &v->sc[r];
        const topo_step_t *st = topo_sched_explicit_step(s, lane, step);
        for (int i = 0; i < st->nxfers; i++) {
            int kind = s->xfers[st->xfer0 + i].kind;
            sends += kind == TOPO_XFER_SEND;
            recvs += kind != TOPO_XFER_SEND && kind != TOPO_XFER_COPY;
        }
    }
    if (sends != recvs) {
        return vfail(v, "lane %d step %d: %ld sends but %ld receives", lane, step, sends, recvs);
    }
    return TOPO_OK;
}

static int reserve_in(vstate_t *v, size_t n)
{
    if (n <= v->incap) {
        return TOPO_OK;
    }
    free(v->in);
    free(v->inbits);
    v->in = malloc(n * sizeof(*v->in));
    v->inbits = malloc(n * v->words * sizeof(uint64_t));
    v->incap = n;
    return (v->in && v->inbits) ? TOPO_OK : TOPO_ENOMEM;
}

/* Combine `in` into (rank, b): kind says which side goes first. */
static int combine(vstate_t *v, int lane, int step, int rank, int b, int kind, const sval_t *in,
                   const uint64_t *inb)
{
    sval_t *d = val_at(v, rank, b);
    uint64_t *db = bits_at(v, rank, b);
    if (kind == TOPO_XFER_RECV_COPY || kind == TOPO_XFER_COPY) {
        *d = *in;
        memcpy(db, inb, sizeof(uint64_t) * v->words);
        return TOPO_OK;
    }
    if (0 == d->n) {
        return vfail(v, "lane %d step %d: rank %d reduces into block %d, which holds no data",
                     lane, step, rank, b);
    }
    if (!is_reduction(v->prim)) {
        return vfail(v, "lane %d step %d: rank %d reduces block %d in a %s", lane, step, rank, b,
                     topo_prim_name(v->prim));
    }
    if (v->prim == TOPO_PRIM_BARRIER) { /* knowledge: a union, repeats allowed */
        int n = 0;
        for (int w = 0; w < v->words; w++) {
            db[w] |= inb[w];
            n += __builtin_popcountll(db[w]);
        }
        d->n = n;
        return TOPO_OK;
    }
    for (int w = 0; w < v->words; w++) {
        if (db[w] & inb[w]) {
            return vfail(v,
                         "lane %d step %d: rank %d block %d would count a contribution twice "
                         "(rank %d)",
                         lane, step, rank, b, w * 64 + __builtin_ctzll(db[w] & inb[w]));
        }
        db[w] |= inb[w];
    }
    const sval_t *first = kind == TOPO_XFER_RECV_REDUCE ? in : d;
    const sval_t *second = kind == TOPO_XFER_RECV_REDUCE ? d : in;
    sval_t r;
    r.n = d->n + in->n;
    r.ordered = first->ordered && second->ordered && first->hi + 1 == second->lo;
    r.lo = first->lo < second->lo ? first->lo : second->lo;
    r.hi = first->hi > second->hi ? first->hi : second->hi;
    r.tree = tree_node(v, first->tree, second->tree);
    if (r.tree < 0) {
        return TOPO_ENOMEM;
    }
    *d = r;
    return TOPO_OK;
}

/* Where the data of receive (or local copy) x comes from. */
static int source_of(vstate_t *v, int lane, int step, int rank, const topo_step_t *st, int xi,
                     const topo_sched_t **from, int *r0, int *nr)
{
    const topo_sched_t *s = &v->sc[rank];
    const topo_xfer_t *x = &s->xfers[st->xfer0 + xi];
    if (x->kind == TOPO_XFER_COPY) {
        int srcn = 0;
        for (int j = 0; j < x->nsrc; j++) {
            srcn += s->ranges[x->src0 + j].count;
        }
        if (srcn != x->nblk ||
            (!s->uniform && srcn > 0 &&
             nth_block(s, x->src0, x->nsrc, 0) != nth_block(s, x->range0, x->nranges, 0))) {
            return vfail(v, "lane %d step %d: rank %d local copy between unequal blocks", lane,
                         step, rank);
        }
        *from = s;
        *r0 = x->src0;
        *nr = x->nsrc;
        return TOPO_OK;
    }
    const topo_xfer_t *y = match(v, lane, step, rank, st, xi);
    int rc = check_message(v, lane, step, rank, x, y);
    if (TOPO_OK == rc) {
        *from = &v->sc[x->peer];
        *r0 = y->range0;
        *nr = y->nranges;
    }
    return rc;
}

/* Execute one step of one lane on every rank: first snapshot everything
 * that moves (sends read the state at the start of the step), then apply
 * each rank's receives in transfer order. */
static int run_step(vstate_t *v, int lane, int step)
{
    int rc = all_sends_matched(v, lane, step);
    if (rc) {
        return rc;
    }
    size_t total = 0;
    for (int r = 0; r < v->size; r++) {
        const topo_sched_t *s = &v->sc[r];
        const topo_step_t *st = topo_sched_explicit_step(s, lane, step);
        for (int i = 0; i < st->nxfers; i++) {
            const topo_xfer_t *x = &s->xfers[st->xfer0 + i];
            total += x->kind == TOPO_XFER_SEND ? 0 : (size_t)x->nblk;
        }
    }
    if ((rc = reserve_in(v, total))) {
        return rc;
    }
    size_t k = 0;
    for (int r = 0; r < v->size; r++) {
        const topo_sched_t *s = &v->sc[r];
        const topo_step_t *st = topo_sched_explicit_step(s, lane, step);
        for (int i = 0; i < st->nxfers; i++) {
            const topo_xfer_t *x = &s->xfers[st->xfer0 + i];
            if (x->kind == TOPO_XFER_SEND) {
                continue;
            }
            const topo_sched_t *from = s;
            int r0 = 0, nr = 0;
            if ((rc = source_of(v, lane, step, r, st, i, &from, &r0, &nr))) {
                return rc;
            }
            for (int j = 0; j < x->nblk; j++, k++) {
                int sb = nth_block(from, r0, nr, j);
                if (v->cmap[sb] < 0) {
                    return vfail(v, "lane %d: block %d is not in this lane", lane, sb);
                }
                v->in[k] = *val_at(v, from->rank, sb);
                memcpy(&v->inbits[k * v->words], bits_at(v, from->rank, sb),
                       sizeof(uint64_t) * v->words);
                if (0 == v->in[k].n) {
                    return vfail(v,
                                 "lane %d step %d: rank %d sends block %d before holding its data",
                                 lane, step, from->rank, sb);
                }
            }
        }
    }
    k = 0;
    for (int r = 0; r < v->size; r++) {
        const topo_sched_t *s = &v->sc[r];
        const topo_step_t *st = topo_sched_explicit_step(s, lane, step);
        for (int i = 0; i < st->nxfers; i++) {
            const topo_xfer_t *x = &s->xfers[st->xfer0 + i];
            if (x->kind == TOPO_XFER_SEND) {
                continue;
            }
            if (x->kind == TOPO_XFER_COPY) {
                /* a local copy reads its sources when it is applied, after
                 * the transfers before it (as the executor does) */
                for (int j = 0; j < x->nblk; j++) {
                    int sb = nth_block(s, x->src0, x->nsrc, j);
                    v->in[k + j] = *val_at(v, r, sb);
                    memcpy(&v->inbits[(k + j) * v->words], bits_at(v, r, sb),
                           sizeof(uint64_t) * v->words);
                    if (0 == v->in[k + j].n) {
                        return vfail(v, "lane %d step %d: rank %d copies block %d before holding "
                                        "its data",
                                     lane, step, r, sb);
                    }
                }
            }
            for (int j = 0; j < x->nblk; j++, k++) {
                int db = nth_block(s, x->range0, x->nranges, j);
                if (v->cmap[db] < 0) {
                    return vfail(v, "lane %d: block %d is not in this lane", lane, db);
                }
                if ((rc = combine(v, lane, step, r, db, x->kind, &v->in[k],
                                  &v->inbits[k * v->words]))) {
                    return rc;
                }
            }
        }
    }
    return TOPO_OK;
}

/* Mark in `owner` (size nblocks) the lane touching each block of rank r. */
static int lane_owners(vstate_t *v, int r, int *owner)
{
    const topo_sched_t *s = &v->sc[r];
    for (int b = 0; b < v->nblocks; b++) {
        owner[b] = -1;
    }
    for (int l = 0; l < s->nlanes; l++) {
        for (int st = 0; st < s->lanes[l].nsteps; st++) {
            const topo_step_t *step = topo_sched_explicit_step(s, l, st);
            for (int i = 0; i < step->nxfers; i++) {
                const topo_xfer_t *x = &s->xfers[step->xfer0 + i];
                for (int pass = 0; pass < 2; pass++) {
                    int r0 = pass ? x->src0 : x->range0, nr = pass ? x->nsrc : x->nranges;
                    for (int k = 0; k < nr; k++) {
                        const topo_range_t *rg = &s->ranges[r0 + k];
                        for (int b = rg->first; b < rg->first + rg->count; b++) {
                            if (owner[b] >= 0 && owner[b] != l) {
                                return vfail(v, "rank %d: block %d is used by lanes %d and %d", r,
                                             b, owner[b], l);
                            }
                            owner[b] = l;
                        }
                    }
                }
            }
        }
    }
    return TOPO_OK;
}

static int check_shape(vstate_t *v)
{
    const topo_sched_t *s0 = &v->sc[0];
    for (int r = 0; r < v->size; r++) {
        const topo_sched_t *s = &v->sc[r];
        if (s->size != v->size || s->rank != r) {
            return vfail(v, "schedule %d is for rank %d of %d", r, s->rank, s->size);
        }
        if (s->nblocks != s0->nblocks || s->nparts != s0->nparts || s->nlanes != s0->nlanes) {
            return vfail(v, "rank %d disagrees with rank 0 on blocks, parts or lanes", r);
        }
        for (int l = 0; l < s->nlanes; l++) {
            if (s->lanes[l].nsteps != s0->lanes[l].nsteps) {
                return vfail(v, "rank %d lane %d has %d steps, rank 0 has %d", r, l,
                             s->lanes[l].nsteps, s0->lanes[l].nsteps);
            }
        }
    }
    if ((v->prim == TOPO_PRIM_ALLGATHER || v->prim == TOPO_PRIM_REDUCE_SCATTER) &&
        s0->nblocks != v->size * s0->nparts) {
        return vfail(v, "%s schedule has %d blocks, expected %d x %d", topo_prim_name(v->prim),
                     s0->nblocks, v->size, s0->nparts);
    }
    if (v->prim == TOPO_PRIM_ALLTOALL && s0->nblocks < 2 * v->size * s0->nparts) {
        return vfail(v, "alltoall schedule has %d blocks, needs send and receive regions of %d",
                     s0->nblocks, v->size * s0->nparts);
    }
    return TOPO_OK;
}

int topo_verify(const topo_sched_t *scheds, int size, topo_prim_t prim, int root, unsigned flags,
                char *msg, size_t len)
{
    vstate_t v;
    memset(&v, 0, sizeof(v));
    v.sc = scheds;
    v.size = size;
    v.prim = prim;
    v.root = root;
    v.ordered = 0 != (flags & TOPO_VERIFY_ORDERED);
    v.same_tree = !(flags & TOPO_VERIFY_ANY_TREE) && is_reduction(prim) &&
                  prim != TOPO_PRIM_BARRIER;
    v.trees.next = size;
    v.msg = msg;
    v.len = len;
    v.words = is_reduction(prim) ? (size + 63) / 64 : 0;
    if (len > 0) {
        msg[0] = '\0';
    }
    if (size < 1 || root < 0 || root >= size) {
        return vfail(&v, "bad size %d or root %d", size, root);
    }
    int rc = check_shape(&v);
    if (rc) {
        return rc;
    }
    /* the explicit form of every rank's schedule (verified step by step) */
    topo_sched_t *ex = calloc((size_t)size, sizeof(*ex));
    if (NULL == ex) {
        return TOPO_ENOMEM;
    }
    for (int r = 0; r < size && !rc; r++) {
        rc = topo_sched_expand(&scheds[r], &ex[r]);
    }
    if (rc) {
        for (int r = 0; r < size; r++) {
            topo_sched_free(&ex[r]);
        }
        free(ex);
        return rc;
    }
    v.sc = ex;
    scheds = ex;
    v.nblocks = scheds[0].nblocks;
    const int nb = v.nblocks, nlanes = scheds[0].nlanes;
    int *owner = malloc(sizeof(int) * ((size_t)nb * size + 1));
    v.cmap = malloc(sizeof(int) * ((size_t)nb + 1));
    v.done = calloc((size_t)nb * size + 1, 1);
    v.first = malloc(sizeof(int32_t) * (2 * (size_t)nb + 1));
    if (!owner || !v.cmap || !v.done || !v.first) {
        rc = TOPO_ENOMEM;
        goto out;
    }
    for (int b = 0; b < 2 * nb; b++) {
        v.first[b] = -1;
    }
    for (int r = 0; r < size && !rc; r++) {
        rc = lane_owners(&v, r, owner + (size_t)r * nb);
    }
    for (int l = 0; l < nlanes && !rc; l++) {
        /* The blocks this lane touches on any rank. */
        v.nc = 0;
        for (int b = 0; b < nb; b++) {
            v.cmap[b] = -1;
            for (int r = 0; r < size; r++) {
                if (owner[(size_t)r * nb + b] == l) {
                    v.cmap[b] = v.nc++;
                    break;
                }
            }
        }
        free(v.val);
        free(v.bits);
        v.val = malloc(sizeof(sval_t) * ((size_t)v.nc * size + 1));
        v.bits = malloc(sizeof(uint64_t) * ((size_t)v.nc * size * v.words + 1));
        if (!v.val || !v.bits) {
            rc = TOPO_ENOMEM;
            break;
        }
        for (int r = 0; r < size; r++) {
            for (int b = 0; b < nb; b++) {
                if (v.cmap[b] >= 0) {
                    initial(&v, r, b, val_at(&v, r, b), bits_at(&v, r, b));
                }
            }
        }
        for (int st = 0; st < scheds[0].lanes[l].nsteps && !rc; st++) {
            rc = run_step(&v, l, st);
        }
        for (int r = 0; r < size && !rc; r++) {
            for (int b = 0; b < nb && !rc; b++) {
                if (owner[(size_t)r * nb + b] == l) {
                    rc = final_ok(&v, r, b, val_at(&v, r, b));
                    v.done[(size_t)r * nb + b] = 1;
                }
            }
        }
    }
    /* Blocks no lane touches keep their initial value. */
    uint64_t *scratch = malloc(sizeof(uint64_t) * (size_t)v.words);
    if (NULL == scratch && !rc) {
        rc = TOPO_ENOMEM;
    }
    for (int r = 0; r < size && !rc; r++) {
        for (int b = 0; b < nb && !rc; b++) {
            if (!v.done[(size_t)r * nb + b]) {
                sval_t sv;
                initial(&v, r, b, &sv, scratch);
                rc = final_ok(&v, r, b, &sv);
            }
        }
    }
    free(scratch);
out:
    for (int r = 0; r < size; r++) {
        topo_sched_free(&ex[r]);
    }
    free(ex);
    free(owner);
    free(v.cmap);
    free(v.done);
    free(v.first);
    free(v.trees.keys);
    free(v.trees.ids);
    free(v.val);
    free(v.bits);
    free(v.in);
    free(v.inbits);
    return rc;
}

int topo_verify_algo(const topo_algo_t *algo, const topo_gen_args_t *a, char *msg, size_t len)
{
    int size = a->size, rc = TOPO_OK;
    topo_sched_t *sc = calloc((size_t)size, sizeof(*sc));
    if (NULL == sc) {
        return TOPO_ENOMEM;
    }
    for (int r = 0; r < size && TOPO_OK == rc; r++) {
        topo_gen_args_t ar = *a;
        ar.rank = r;
        rc = topo_algo_generate(algo, &ar, &sc[r]);
        if (TOPO_OK != rc) {
            snprintf(msg, len, "%s: generator failed for rank %d of %d (error %d)", algo->name,
                     r, size, rc);
        }
    }
    if (TOPO_OK == rc) {
        const unsigned flags = (algo->flags & TOPO_ALG_COMMUTATIVE ? 0u : TOPO_VERIFY_ORDERED) |
                               (topo_algo_same_tree(algo, a) ? 0u : TOPO_VERIFY_ANY_TREE);
        rc = topo_verify(sc, size, a->prim, a->root, flags, msg, len);
    }
    for (int r = 0; r < size; r++) {
        topo_sched_free(&sc[r]);
    }
    free(sc);
    return rc;
}
