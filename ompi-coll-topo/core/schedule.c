/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Building, checking and printing schedules (see schedule.h).
 */
#include "schedule.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const prim_names[TOPO_PRIM_COUNT] = {
    [TOPO_PRIM_ALLREDUCE] = "allreduce",
    [TOPO_PRIM_REDUCE_SCATTER] = "reduce_scatter",
    [TOPO_PRIM_ALLGATHER] = "allgather",
    [TOPO_PRIM_BCAST] = "bcast",
    [TOPO_PRIM_REDUCE] = "reduce",
    [TOPO_PRIM_ALLTOALL] = "alltoall",
    [TOPO_PRIM_BARRIER] = "barrier",
};

const char *topo_prim_name(topo_prim_t prim)
{
    return (unsigned)prim < TOPO_PRIM_COUNT ? prim_names[prim] : "?";
}

/* [*p, *p + *len) without the blanks around it. */
static void trim(const char **p, size_t *len)
{
    while (*len > 0 && (' ' == **p || '\t' == **p)) {
        (*p)++;
        (*len)--;
    }
    while (*len > 0 && (' ' == (*p)[*len - 1] || '\t' == (*p)[*len - 1])) {
        (*len)--;
    }
}

int topo_prim_find(const char *s, size_t n)
{
    for (int i = 0; i < TOPO_PRIM_COUNT; i++) {
        if (strlen(prim_names[i]) == n && 0 == strncmp(s, prim_names[i], n)) {
            return i;
        }
    }
    return -1;
}

int topo_prim_set_parse(const char *str, unsigned *set, char *err, size_t errlen)
{
    const char *p = NULL != str ? str : "";
    size_t len = strlen(p);
    trim(&p, &len);
    if (0 == len || (4 == len && 0 == strncmp(p, "none", 4))) {
        *set = 0;
        return TOPO_OK;
    }
    unsigned out = 0;
    const char *end = p + len;
    while (p <= end) {
        const char *comma = memchr(p, ',', (size_t)(end - p));
        const char *item = p;
        size_t n = (size_t)((NULL != comma ? comma : end) - p);
        trim(&item, &n);
        const int prim = topo_prim_find(item, n);
        if (prim < 0) {
            if (0 == n) {
                snprintf(err, errlen, "an empty item in the list");
            } else {
                snprintf(err, errlen,
                         "'%.*s' is not a primitive (allreduce, reduce_scatter, allgather, "
                         "bcast, reduce, alltoall, barrier; or none alone)",
                         (int)(n > 64 ? 64 : n), item);
            }
            return TOPO_EINVAL;
        }
        out |= 1u << prim;
        if (NULL == comma) {
            break;
        }
        p = comma + 1;
    }
    *set = out;
    return TOPO_OK;
}

void topo_sched_init(topo_sched_t *s, int size, int rank, int nblocks)
{
    memset(s, 0, sizeof(*s));
    s->size = size;
    s->rank = rank;
    s->nblocks = nblocks;
    s->nparts = 1;
    s->gclose = -1;
    if (size < 1 || rank < 0 || rank >= size || nblocks < 0) {
        s->err = TOPO_EINVAL;
    }
}

void topo_sched_free(topo_sched_t *s)
{
    free(s->lanes);
    free(s->steps);
    free(s->xfers);
    free(s->ranges);
    free(s->segs);
    free(s->shifts);
    memset(s, 0, sizeof(*s));
}

/* Grow an array to hold one more element; sets s->err on failure. */
static int grow(topo_sched_t *s, void **arr, int32_t n, int32_t *cap, size_t elem)
{
    if (s->err) {
        return 0;
    }
    if (n < *cap) {
        return 1;
    }
    int32_t ncap = *cap ? *cap * 2 : 16;
    void *p = realloc(*arr, (size_t)ncap * elem);
    if (NULL == p) {
        s->err = TOPO_ENOMEM;
        return 0;
    }
    *arr = p;
    *cap = ncap;
    return 1;
}

void topo_sched_lane(topo_sched_t *s)
{
    if (!grow(s, (void **)&s->lanes, s->nlanes, &s->cap_lanes, sizeof(*s->lanes))) {
        return;
    }
    s->lanes[s->nlanes] = (topo_lane_t){s->nsteps, 0, s->nsegs, 0};
    s->nlanes++;
}

/* The current lane's last segment, or NULL. */
static topo_seg_t *last_seg(topo_sched_t *s)
{
    const topo_lane_t *ln = s->nlanes > 0 ? &s->lanes[s->nlanes - 1] : NULL;
    return NULL != ln && ln->nsegs > 0 ? &s->segs[ln->seg0 + ln->nsegs - 1] : NULL;
}

void topo_sched_step(topo_sched_t *s)
{
    if (0 == s->nlanes) {
        topo_sched_lane(s);
    }
    if (!grow(s, (void **)&s->steps, s->nsteps, &s->cap_steps, sizeof(*s->steps))) {
        return;
    }
    topo_lane_t *ln = &s->lanes[s->nlanes - 1];
    topo_seg_t *g = last_seg(s);
    if (NULL == g || g->reps > 1) {
        if (!grow(s, (void **)&s->segs, s->nsegs, &s->cap_segs, sizeof(*s->segs))) {
            return;
        }
        s->segs[s->nsegs++] = (topo_seg_t){ln->nsteps, s->nsteps, 1, 1, -1};
        ln->nsegs++;
    } else {
        g->nsteps++;
    }
    s->steps[s->nsteps].xfer0 = s->nxfers;
    s->steps[s->nsteps].nxfers = 0;
    s->nsteps++;
    ln->nsteps++;
    s->sealed = 0;
}

static void add_range(topo_sched_t *s, int first, int count)
{
    if (!grow(s, (void **)&s->ranges, s->nranges, &s->cap_ranges, sizeof(*s->ranges))) {
        return;
    }
    if (first < 0 || count < 0 || first > s->nblocks - count) {
        s->err = TOPO_EINVAL;
        return;
    }
    s->ranges[s->nranges].first = first;
    s->ranges[s->nranges].count = count;
    s->nranges++;
}

static topo_xfer_t *add_xfer(topo_sched_t *s, int peer, topo_xfer_kind_t kind)
{
    if (0 == s->nsteps) {
        topo_sched_step(s);
    }
    if ((s->sealed || s->gdepth > 0) && !s->err) {
        s->err = TOPO_EINVAL; /* the template of a repeat is closed, or a group open */
    }
    if (!grow(s, (void **)&s->xfers, s->nxfers, &s->cap_xfers, sizeof(*s->xfers))) {
        return NULL;
    }
    topo_xfer_t *x = &s->xfers[s->nxfers++];
    memset(x, 0, sizeof(*x));
    s->mapped = 0;
    x->peer = peer;
    x->kind = (uint8_t)kind;
    x->range0 = s->nranges;
    s->steps[s->nsteps - 1].nxfers++;
    return x;
}

void topo_sched_send(topo_sched_t *s, int peer, int first, int count)
{
    topo_xfer_t *x = add_xfer(s, peer, TOPO_XFER_SEND);
    if (NULL != x && count > 0) {
        topo_sched_range(s, first, count);
    }
}

void topo_sched_recv(topo_sched_t *s, int peer, topo_xfer_kind_t kind, int first, int count)
{
    if (kind == TOPO_XFER_SEND || kind == TOPO_XFER_COPY) {
        s->err = TOPO_EINVAL;
        return;
    }
    topo_xfer_t *x = add_xfer(s, peer, kind);
    if (NULL != x && count > 0) {
        topo_sched_range(s, first, count);
    }
}

/* Append a raw entry to the ranges (a strided run's second entry). */
static void add_entry(topo_sched_t *s, int32_t first, int32_t count)
{
    if (grow(s, (void **)&s->ranges, s->nranges, &s->cap_ranges, sizeof(*s->ranges))) {
        s->ranges[s->nranges++] = (topo_range_t){first, count};
    }
}

/* The count of an open group's second header entry (its stride and
 * copies come with topo_sched_group_end). */
#define TOPO_RUN_OPEN INT32_MIN

static void group_append(topo_sched_t *s, topo_xfer_t *x, int first, int count);

void topo_sched_range(topo_sched_t *s, int first, int count)
{
    if (s->err) {
        return;
    }
    if (0 == s->nxfers || count < 0 || s->sealed || s->mapped) {
        s->err = TOPO_EINVAL;
        return;
    }
    topo_xfer_t *x = &s->xfers[s->nxfers - 1];
    if (x->kind == TOPO_XFER_COPY || count == 0) {
        if (x->kind == TOPO_XFER_COPY) {
            s->err = TOPO_EINVAL;
        }
        return;
    }
    if (first < 0 || first > s->nblocks - count) {
        s->err = TOPO_EINVAL;
        return;
    }
    x->nblk += count;
    if (0 == x->nranges || TOPO_RUN_OPEN == s->ranges[s->nranges - 1].count) {
        add_range(s, first, count); /* the first, or a group's first */
        x->nranges += !s->err;
        return;
    }
    if (s->gclose == s->nranges) { /* after a group run */
        group_append(s, x, first, count);
        return;
    }
    topo_range_t *last = &s->ranges[s->nranges - 1];
    if (last->count >= 0) { /* a range: merge when adjacent, or start a run */
        if (last->first + last->count == first) {
            last->count += count;
        } else if (s->runs && last->count == count && last->first != first) {
            add_entry(s, first - last->first, -2);
            x->nranges += !s->err;
        } else {
            add_range(s, first, count);
            x->nranges += !s->err;
        }
        return;
    }
    /* a strided run: its last copy */
    topo_range_t *head = last - 1;
    const int32_t stride = last->first, reps = -last->count;
    const int32_t at = head->first + (reps - 1) * stride;
    if (at + head->count == first) { /* merges with the last copy: split it off */
        const topo_range_t merged = {at, head->count + count};
        if (2 == reps) {
            *last = merged;
        } else {
            last->count = -(reps - 1);
            add_range(s, merged.first, merged.count);
            x->nranges += !s->err;
        }
    } else if (head->count == count && at + stride == first) {
        last->count--;
    } else {
        add_range(s, first, count);
        x->nranges += !s->err;
    }
}

void topo_sched_ranges(topo_sched_t *s, int first, int count, int stride, int reps)
{
    if (s->err || reps <= 0 || count <= 0) {
        if (reps < 0 || count < 0) {
            s->err = s->err ? s->err : TOPO_EINVAL;
        }
        return;
    }
    const uint8_t runs = s->runs;
    if (stride == count) { /* one range */
        if ((int64_t)count * reps > s->nblocks) {
            s->err = TOPO_EINVAL;
            return;
        }
        topo_sched_range(s, first, count * reps);
        return;
    }
    const int64_t lastf = first + (int64_t)(reps - 1) * stride;
    if (lastf < 0 || lastf > s->nblocks - count) {
        s->err = TOPO_EINVAL;
        return;
    }
    s->runs = 1;
    for (int i = 0; i < reps && !s->err; i++) {
        topo_sched_range(s, first + i * stride, count);
        /* once copy i ends a run of this stride, the rest extend it */
        const topo_range_t *last = &s->ranges[s->nranges - 1];
        if (!s->err && i + 1 < reps && last->count < 0 && last->first == stride &&
            last[-1].count == count &&
            last[-1].first + (int64_t)(-last->count - 1) * stride == first + (int64_t)i * stride) {
            s->ranges[s->nranges - 1].count -= reps - 1 - i;
            s->xfers[s->nxfers - 1].nblk += (reps - 1 - i) * count;
            break;
        }
    }
    s->runs = runs;
}

void topo_sched_copy(topo_sched_t *s, int src_first, int dst_first, int count)
{
    topo_xfer_t *x = add_xfer(s, s->rank, TOPO_XFER_COPY);
    if (NULL == x) {
        return;
    }
    x->src0 = s->nranges;
    x->nsrc = 1;
    add_range(s, src_first, count);
    x->range0 = s->nranges;
    x->nranges = 1;
    x->nblk = count;
    add_range(s, dst_first, count);
}

void topo_sched_ranges_mod(topo_sched_t *s, int base, int n, int first, int count, int stride,
                           int reps)
{
    if (s->err || reps <= 0 || count <= 0) {
        return;
    }
    if (n <= 0 || count > n) {
        s->err = TOPO_EINVAL;
        return;
    }
    const int64_t st = stride % n;
    int64_t f = ((first % n) + n) % n;
    for (int64_t i = 0; i < reps && !s->err;) {
        int64_t q = 1; /* copies from f on that stay inside [0, n) */
        if (f + count > n) { /* passes the end */
            topo_sched_range(s, base + (int)f, n - (int)f);
            topo_sched_range(s, base, (int)f + count - n);
        } else {
            q = st > 0 ? (n - count - f) / st + 1 : st < 0 ? f / -st + 1 : reps - i;
            q = q < reps - i ? q : reps - i;
            topo_sched_ranges(s, base + (int)f, count, (int)st, (int)q);
        }
        i += q;
        f = ((f + q * st) % n + n) % n;
    }
}

/* --- mapped runs ---------------------------------------------------------- */

/* Value v of the values stored two to an entry (see Storage). */
static inline int32_t map_value(const topo_range_t *ranges, int32_t v)
{
    return v & 1 ? ranges[v >> 1].count : ranges[v >> 1].first;
}

int32_t topo_sched_map(topo_sched_t *s, const int *val, int n)
{
    if (s->err) {
        return -1;
    }
    /* value indices (2 per entry) must stay int32 */
    if (n < 1 || NULL == val || (int64_t)s->nranges + 2 + (n + 1) / 2 > INT32_MAX / 2) {
        s->err = TOPO_EINVAL;
        return -1;
    }
    /* the least and greatest values, and the largest power of two that
     * divides them all (the lowest bit set in any; 0: all zero) */
    int32_t lo = INT32_MAX, hi = 0, any = 0;
    for (int32_t i = 0; i < n; i++) {
        lo = val[i] < lo ? val[i] : lo;
        hi = val[i] > hi ? val[i] : hi;
        any |= val[i];
    }
    if (lo < 0) {
        s->err = TOPO_EINVAL;
        return -1;
    }
    /* room for it at once (its entries and a few transfers' after it),
     * not by doubling through it */
    const int32_t need = s->nranges + 2 + (n + 1) / 2;
    if (s->cap_ranges < need) {
        topo_range_t *r = realloc(s->ranges, sizeof(*r) * ((size_t)need + 256));
        if (NULL == r) {
            s->err = TOPO_ENOMEM;
            return -1;
        }
        s->ranges = r;
        s->cap_ranges = need + 256;
    }
    const int32_t id = s->nranges;
    add_entry(s, n, any & -any);
    add_entry(s, lo, hi);
    for (int32_t i = 0; i + 1 < n; i += 2) {
        s->ranges[s->nranges++] = (topo_range_t){val[i], val[i + 1]};
    }
    if (n % 2) {
        s->ranges[s->nranges++] = (topo_range_t){val[n - 1], 0};
    }
    return s->err ? -1 : id;
}

/* The next tuple of positions of the mapped run whose axes are ax[0..nax)
 * in mi; 0 after the last. */
static inline int next_tuple(const topo_range_t *ax, int nax, int32_t *mi)
{
    int a = nax - 1;
    while (a >= 0 && ++mi[a] == ax[a].count) {
        mi[a--] = 0;
    }
    return a >= 0;
}

void topo_sched_mapped(topo_sched_t *s, int32_t base, int nax, const topo_map_axis_t *ax)
{
    if (s->err) {
        return;
    }
    if (0 == s->nxfers || s->sealed || s->mapped || nax < 1 || nax > TOPO_MAP_AXES || NULL == ax ||
        s->xfers[s->nxfers - 1].kind == TOPO_XFER_COPY) {
        s->err = TOPO_EINVAL;
        return;
    }
    /* the axes as a mapped run's entries would hold them, checked */
    topo_range_t e[TOPO_MAP_AXES];
    int64_t n = 1, lo = base, hi = base;
    int32_t g = 0; /* the largest power of two dividing every value (0: all zero) */
    for (int a = 0; a < nax; a++) {
        const int32_t id = ax[a].map;
        if (id < 0 || id + 1 >= s->nranges || s->ranges[id].first < 1 ||
            (int64_t)id + 2 + (s->ranges[id].first + 1) / 2 > s->nranges || ax[a].first < 0 ||
            ax[a].count < 0 || ax[a].first > s->ranges[id].first - ax[a].count) {
            s->err = TOPO_EINVAL;
            return;
        }
        e[a] = (topo_range_t){2 * (id + 2) + ax[a].first, ax[a].count};
        n *= ax[a].count;
        g = 0 == g || (0 != s->ranges[id].count && s->ranges[id].count < g) ? s->ranges[id].count
                                                                            : g;
        lo += s->ranges[id + 1].first;
        hi += s->ranges[id + 1].count;
        if (n > INT32_MAX) {
            s->err = TOPO_EINVAL;
            return;
        }
    }
    topo_xfer_t *x = &s->xfers[s->nxfers - 1];
    if (0 == n) {
        return;
    }
    if (n >= 2 && 0 == x->nranges && !s->runs && 1 != g && lo >= 0 && hi < s->nblocks &&
        (int64_t)x->nblk + n <= INT32_MAX) {
        add_entry(s, base, TOPO_RUN_MAPPED - nax);
        for (int a = 0; a < nax; a++) {
            add_entry(s, e[a].first, e[a].count);
        }
        if (!s->err) {
            x->nranges += 1 + nax;
            x->nblk += (int32_t)n;
            s->mapped = 1;
        }
        return;
    }
    /* the explicit emission, which the stored run stands for */
    int32_t mi[TOPO_MAP_AXES] = {0};
    do {
        int64_t b = base;
        for (int a = 0; a < nax; a++) {
            b += map_value(s->ranges, e[a].first + mi[a]);
        }
        topo_sched_range(s, b > INT32_MAX ? -1 : (int)b, 1);
    } while (!s->err && next_tuple(e, nax, mi));
}

int topo_range_next_mapped(topo_range_iter_t *it, topo_range_t *r)
{
    const topo_range_t *h = &it->ranges[it->q], *ax = h + 1;
    const int nax = TOPO_RUN_MAPPED - h->count;
    if (it->mq != it->q) { /* its first tuple */
        it->mq = it->q;
        memset(it->mi, 0, sizeof(it->mi));
    }
    int32_t b = h->first;
    for (int a = 0; a < nax; a++) {
        b += map_value(it->ranges, ax[a].first + it->mi[a]);
    }
    if (!next_tuple(ax, nax, it->mi)) { /* the last: on to the next run */
        it->q += 1 + nax;
        it->mq = -1;
    }
    r->first = b;
    r->count = 1;
    return 1;
}

/* Whether x holds a mapped run (always all its ranges). */
static int holds_mapped(const topo_sched_t *s, const topo_xfer_t *x)
{
    return x->kind != TOPO_XFER_COPY && x->kind != TOPO_XFER_REPEAT && x->nranges > 0 &&
           s->ranges[x->range0].count <= TOPO_RUN_MAPPED;
}

/* --- group runs ---------------------------------------------------------- */

/* The entries the stored item at q takes (its entries end at `end`): a
 * range, a strided run, or a closed group run with its body. */
static int32_t item_len(const topo_range_t *rg, int32_t q, int32_t end)
{
    if (TOPO_RUN_GROUP == rg[q].count) {
        return 2 + rg[q].first;
    }
    return q + 1 < end && rg[q + 1].count < TOPO_RUN_GROUP ? 2 : 1;
}

/* The first range of the (non-empty) closed items from q on. */
static topo_range_t first_range(const topo_range_t *rg, int32_t q)
{
    while (TOPO_RUN_GROUP == rg[q].count) {
        q += 2;
    }
    return rg[q];
}

/* The last range of the closed items [q, end) (non-empty), as the
 * explicit form holds it. */
static topo_range_t last_range(const topo_range_t *rg, int32_t q, int32_t end)
{
    int32_t at = q;
    for (int32_t k = q; k < end; k += item_len(rg, k, end)) {
        at = k;
    }
    if (TOPO_RUN_GROUP == rg[at].count) {
        topo_range_t r = last_range(rg, at + 2, at + 2 + rg[at].first);
        r.first += (rg[at + 1].count - 1) * rg[at + 1].first;
        return r;
    }
    if (2 == item_len(rg, at, end)) {
        return (topo_range_t){rg[at].first + (-rg[at + 1].count - 1) * rg[at + 1].first,
                              rg[at].count};
    }
    return rg[at];
}

/* The blocks the closed items [q, end) hold, and the span [*lo, *hi)
 * they lie in. */
static int64_t items_blocks(const topo_range_t *rg, int32_t q, int32_t end, int64_t *lo, int64_t *hi)
{
    int64_t n = 0;
    *lo = INT64_MAX;
    *hi = INT64_MIN;
    for (int32_t k = q; k < end;) {
        const int32_t len = item_len(rg, k, end);
        int64_t a, b, c, step, reps;
        if (TOPO_RUN_GROUP == rg[k].count) {
            c = items_blocks(rg, k + 2, k + len, &a, &b);
            step = rg[k + 1].first;
            reps = rg[k + 1].count;
        } else {
            a = rg[k].first;
            b = a + rg[k].count;
            c = rg[k].count;
            step = 2 == len ? rg[k + 1].first : 0;
            reps = 2 == len ? -rg[k + 1].count : 1;
        }
        const int64_t d = (reps - 1) * step;
        a += d < 0 ? d : 0;
        b += d > 0 ? d : 0;
        *lo = a < *lo ? a : *lo;
        *hi = b > *hi ? b : *hi;
        n += c * reps;
        k += len;
    }
    return n;
}

/* After the entries of the last transfer changed at its end: where they
 * end with a closed group run (not inside an open one), note it for the
 * next range (topo_sched_range: group_append). */
static void fix_tail(topo_sched_t *s)
{
    s->gclose = -1;
    if (0 == s->nxfers) {
        return;
    }
    const topo_range_t *rg = s->ranges;
    int32_t at = -1;
    for (int32_t q = s->xfers[s->nxfers - 1].range0; q < s->nranges;) {
        if (TOPO_RUN_GROUP == rg[q].count && TOPO_RUN_OPEN == rg[q + 1].count) {
            q += 2; /* into an open group's body */
            at = -1;
            continue;
        }
        at = q;
        q += item_len(rg, q, s->nranges);
    }
    if (at >= 0 && TOPO_RUN_GROUP == rg[at].count) {
        s->gclose = s->nranges;
        s->gclose_hdr = at;
        s->glast = last_range(rg, at, s->nranges);
    }
}

/* Append the closed items tmp[0..n) to the last transfer, every range
 * `shift` blocks later, as they are: the caller knows that none meets
 * the range before them. */
static void append_items(topo_sched_t *s, const topo_range_t *tmp, int32_t n, int32_t shift)
{
    topo_xfer_t *x = &s->xfers[s->nxfers - 1];
    for (int32_t q = 0; q < n && !s->err; q++) {
        topo_range_t e = tmp[q];
        if (TOPO_RUN_GROUP == e.count) {
            add_entry(s, e.first, e.count);
            add_entry(s, tmp[q + 1].first, tmp[q + 1].count);
            q++;
            continue;
        }
        add_entry(s, e.count < TOPO_RUN_GROUP ? e.first : e.first + shift, e.count);
    }
    if (s->err) {
        return;
    }
    int64_t lo, hi;
    x = &s->xfers[s->nxfers - 1];
    x->nranges += n;
    x->nblk += (int32_t)items_blocks(tmp, 0, n, &lo, &hi);
    fix_tail(s);
}

/* Append the ranges of the closed items tmp[0..n), `shift` blocks later,
 * one by one (topo_sched_range: merged as the explicit form merges). */
static void emit_items(topo_sched_t *s, const topo_range_t *tmp, int32_t n, int32_t shift)
{
    const topo_xfer_t body = {.kind = TOPO_XFER_SEND, .range0 = 0, .nranges = n};
    topo_range_iter_t it;
    topo_range_t r;
    for (topo_range_iter(&it, tmp, &body, 0); !s->err && topo_range_next(&it, &r);) {
        topo_sched_range(s, r.first + shift, r.count);
    }
}

int32_t topo_sched_group_begin(topo_sched_t *s)
{
    if (s->err) {
        return -1;
    }
    topo_xfer_t *x = s->nxfers > 0 ? &s->xfers[s->nxfers - 1] : NULL;
    if (NULL == x || s->sealed || s->mapped || x->kind == TOPO_XFER_COPY ||
        x->kind == TOPO_XFER_REPEAT || s->gdepth >= TOPO_RUN_DEPTH) {
        s->err = TOPO_EINVAL;
        return -1;
    }
    /* the end of the range before the group (-1: none), kept in the
     * header until the group closes */
    int32_t prev = -1;
    const int32_t mark = s->nranges;
    if (x->nranges > 0 && TOPO_RUN_OPEN != s->ranges[mark - 1].count) {
        /* a closed group's last range, a strided run's last copy, or a range */
        const topo_range_t *e = &s->ranges[mark - 1];
        const topo_range_t r = s->gclose == mark        ? s->glast
                               : e->count < TOPO_RUN_GROUP ? (topo_range_t){e[-1].first + (-e->count - 1) * e->first, e[-1].count}
                                                           : *e;
        prev = r.first + r.count;
    }
    s->gmark[s->gdepth] = mark;
    s->gnblk[s->gdepth] = x->nblk;
    add_entry(s, prev, TOPO_RUN_GROUP);
    add_entry(s, 0, TOPO_RUN_OPEN);
    if (!s->err) {
        s->gdepth++;
        s->xfers[s->nxfers - 1].nranges += 2;
    }
    return mark;
}

void topo_sched_group_end(topo_sched_t *s, int32_t mark, int stride, int reps)
{
    if (s->err) {
        return;
    }
    if (0 == s->gdepth || s->gmark[s->gdepth - 1] != mark || reps < 0) {
        s->err = TOPO_EINVAL;
        return;
    }
    s->gdepth--;
    topo_xfer_t *x = &s->xfers[s->nxfers - 1];
    const int32_t nblk0 = s->gnblk[s->gdepth], q0 = mark + 2, len = s->nranges - q0;
    const int32_t prev = s->ranges[mark].first;
    int64_t lo, hi;
    const int64_t blk = len > 0 ? items_blocks(s->ranges, q0, s->nranges, &lo, &hi) : 0;
    const int64_t d = (int64_t)(reps - 1) * stride;
    if (len > 0 && reps > 0 &&
        (lo + (d < 0 ? d : 0) < 0 || hi + (d > 0 ? d : 0) > s->nblocks ||
         nblk0 + blk * reps > INT32_MAX)) {
        s->err = TOPO_EINVAL;
        return;
    }
    const topo_range_t f = len > 0 ? first_range(s->ranges, q0) : (topo_range_t){0, 0};
    const topo_range_t l = len > 0 ? last_range(s->ranges, q0, s->nranges) : f;
    const int meets = prev == f.first;                   /* the range before it */
    const int cross = l.first + l.count == f.first + stride; /* copy to copy */
    if (len > 0 && reps >= 2 && !meets && !cross) {
        s->ranges[mark] = (topo_range_t){len, TOPO_RUN_GROUP};
        s->ranges[mark + 1] = (topo_range_t){stride, reps};
        x->nblk = nblk0 + (int32_t)(blk * reps);
        s->gclose = s->nranges;
        s->gclose_hdr = mark;
        s->glast = (topo_range_t){l.first + (reps - 1) * stride, l.count};
        return;
    }
    /* stored apart: the body out, the header gone, and the copies again */
    topo_range_t *tmp = len > 0 ? malloc(sizeof(*tmp) * (size_t)len) : NULL;
    if (len > 0 && NULL == tmp) {
        s->err = TOPO_ENOMEM;
        return;
    }
    if (len > 0) {
        memcpy(tmp, &s->ranges[q0], sizeof(*tmp) * (size_t)len);
    }
    s->nranges = mark;
    x->nranges -= len + 2;
    x->nblk = nblk0;
    fix_tail(s);
    if (0 == len || 0 == reps) {
        free(tmp);
        return;
    }
    /* the last item of the body, and whether it and the first are ranges */
    int32_t at = 0;
    for (int32_t k = 0; k < len; k += item_len(tmp, k, len)) {
        at = k;
    }
    const int ends_plain = len >= 2 && 1 == item_len(tmp, 0, len) && tmp[0].count >= 0 &&
                           at == len - 1 && tmp[at].count >= 0;
    if (!cross || 1 == reps) {
        /* the first copy one by one (it meets the range before), the
         * rest a group */
        if (meets) {
            emit_items(s, tmp, len, 0);
        } else {
            append_items(s, tmp, len, 0);
        }
        if (reps >= 2) {
            const int32_t m = topo_sched_group_begin(s);
            append_items(s, tmp, len, stride);
            topo_sched_group_end(s, m, stride, reps - 1);
        }
    } else if (1 == len && 1 == item_len(tmp, 0, len)) {
        /* one range whose copies meet: one range */
        topo_sched_range(s, f.first, (int32_t)blk * reps);
    } else if (ends_plain) {
        /* the copies meet where one's last range and the next's first
         * merge: the first range, a group of the body from its second
         * range on with the merged range last, then the last copy's
         * body from its second range on */
        topo_sched_range(s, f.first, f.count);
        const int32_t m = topo_sched_group_begin(s);
        append_items(s, tmp + 1, len - 2, 0);
        topo_sched_range(s, l.first, l.count + f.count);
        topo_sched_group_end(s, m, stride, reps - 1);
        append_items(s, tmp + 1, len - 1, (reps - 1) * stride);
    } else {
        for (int i = 0; i < reps && !s->err; i++) {
            emit_items(s, tmp, len, i * stride);
        }
    }
    free(tmp);
}

/* The next range after a closed group run, `count` already in x's
 * blocks: a range of its own, or, where it meets the group's last
 * range, that copy split off the group and the range merged with it. */
static void group_append(topo_sched_t *s, topo_xfer_t *x, int first, int count)
{
    s->gclose = -1;
    if (s->glast.first + s->glast.count != first) {
        add_range(s, first, count);
        x->nranges += !s->err;
        return;
    }
    const int32_t h = s->gclose_hdr, q0 = h + 2, len = s->nranges - q0;
    const int32_t stride = s->ranges[h + 1].first, reps = s->ranges[h + 1].count;
    topo_range_t *tmp = malloc(sizeof(*tmp) * (size_t)len);
    if (NULL == tmp) {
        s->err = TOPO_ENOMEM;
        return;
    }
    memcpy(tmp, &s->ranges[q0], sizeof(*tmp) * (size_t)len);
    int64_t lo, hi;
    x->nblk -= count + (int32_t)items_blocks(tmp, 0, len, &lo, &hi);
    if (reps > 2) {
        s->ranges[h + 1].count = reps - 1;
        s->gclose = s->nranges;
        s->glast = last_range(s->ranges, h, s->nranges);
    } else { /* one copy left: the body alone */
        memmove(&s->ranges[h], &s->ranges[q0], sizeof(*tmp) * (size_t)len);
        s->nranges -= 2;
        x->nranges -= 2;
        fix_tail(s);
    }
    emit_items(s, tmp, len, (reps - 1) * stride);
    free(tmp);
    topo_sched_range(s, first, count);
}

/* --- the compact form ---------------------------------------------------- */

/* The shift of repetition j within the window, in [0, wlen). */
static int32_t shift_by(const topo_shift_t *sh, int64_t j)
{
    if (sh->wlen <= 0) {
        return 0;
    }
    int64_t d = (j * (int64_t)sh->dblk) % sh->wlen;
    return (int32_t)(d < 0 ? d + sh->wlen : d);
}

/* The first block of the window (of sh's tiling) that holds block b, or
 * -1 where b is in none. */
static int32_t tile_of(const topo_shift_t *sh, int32_t b)
{
    if (sh->wlen <= 0 || b < sh->wfirst || b >= sh->wfirst + sh->wlen * sh->wtiles) {
        return -1;
    }
    return b - (b - sh->wfirst) % sh->wlen;
}

/* Whether range r lies in one window of sh (else it stays where it is). */
static int in_window(const topo_shift_t *sh, const topo_range_t *r)
{
    const int32_t w = tile_of(sh, r->first);
    return w >= 0 && r->first + r->count <= w + sh->wlen;
}

/* Range r moved by d (shift_by) in its window: its first block; *wrap set
 * to the blocks past the window's end (they go to its start). */
static int32_t moved_first(const topo_shift_t *sh, const topo_range_t *r, int32_t d, int32_t *wrap)
{
    *wrap = 0;
    if (0 == d || !in_window(sh, r)) {
        return r->first;
    }
    const int32_t w = tile_of(sh, r->first);
    int32_t off = r->first - w + d;
    off -= off >= sh->wlen ? sh->wlen : 0;
    *wrap = off + r->count > sh->wlen ? off + r->count - sh->wlen : 0;
    return w + off;
}

/* Peer `peer` of `size` ranks moved j times by sh. */
static int32_t peer_moved(int32_t size, int32_t peer, const topo_shift_t *sh, int64_t j)
{
    if (0 == sh->dpeer || size < 1) {
        return peer;
    }
    int64_t p = (peer + j * (int64_t)sh->dpeer) % size;
    return (int32_t)(p < 0 ? p + size : p);
}

/* Whether the ranges outside the windows move (dout, dcount). */
static int outside_moves(const topo_shift_t *sh)
{
    return 0 != sh->dout || 0 != sh->dcount;
}

/* Range r in repetition j (d = shift_by(sh, j)): moved in its window, *wrap
 * set to the blocks past the window's end; or, outside the windows, dout
 * and dcount j times. */
static topo_range_t moved_range(const topo_shift_t *sh, const topo_range_t *r, int64_t j, int32_t d,
                                int32_t *wrap)
{
    if (in_window(sh, r)) {
        return (topo_range_t){moved_first(sh, r, d, wrap), r->count};
    }
    *wrap = 0;
    return (topo_range_t){(int32_t)(r->first + j * sh->dout), (int32_t)(r->count + j * sh->dcount)};
}

/* The blocks range r can cover over repetitions 0..k: its window where it
 * moves in one, its span over the repetitions outside, else itself. */
static void cover(const topo_shift_t *sh, const topo_range_t *r, int k, int32_t *lo, int32_t *hi)
{
    if (0 != shift_by(sh, 1) && in_window(sh, r)) {
        *lo = tile_of(sh, r->first);
        *hi = *lo + sh->wlen;
    } else if (!in_window(sh, r) && outside_moves(sh)) {
        const int64_t f = r->first + (int64_t)k * sh->dout;
        const int64_t e = f + r->count + (int64_t)k * sh->dcount;
        *lo = (int32_t)(f < r->first ? f : r->first);
        *hi = (int32_t)(e > r->first + r->count ? e : r->first + r->count);
    } else {
        *lo = r->first;
        *hi = r->first + r->count;
    }
}

/* The peer of x in repetition j. */
static int32_t moved_peer(const topo_sched_t *s, const topo_xfer_t *x, const topo_shift_t *sh,
                          int64_t j)
{
    return peer_moved(s->size, x->peer, sh, j);
}

/* The ranges a transfer touches, on each side: [first, count) of side 0
 * (its ranges) and side 1 (a copy's sources). */
static void xfer_side(const topo_xfer_t *x, int side, int32_t *r0, int32_t *nr)
{
    *r0 = side ? x->src0 : x->range0;
    *nr = side ? (x->kind == TOPO_XFER_COPY ? x->nsrc : 0) : x->nranges;
}

/* The first blocks of range r's copies 1, 2, ... under shift h, one by
 * one without a division (r whole in its window, or outside every
 * window: then it stays; the walk does not apply dout). */
typedef struct {
    int32_t w, off, d1, wlen;
} copy_walk_t;

static void walk_init(copy_walk_t *c, const topo_shift_t *h, const topo_range_t *r)
{
    const int moves = 0 != shift_by(h, 1) && in_window(h, r);
    c->w = moves ? tile_of(h, r->first) : r->first;
    c->off = 0;
    c->d1 = moves ? shift_by(h, 1) : 0;
    c->wlen = h->wlen;
    if (moves) {
        c->off = r->first - c->w;
    }
}

/* The next copy's first block. */
static inline int32_t walk_next(copy_walk_t *c)
{
    c->off += c->d1;
    c->off -= c->off >= c->wlen ? c->wlen : 0;
    return c->w + c->off;
}

/* Whether ranges a (shift sa) and b (shift sb) meet in the same way in
 * repetitions 0..k: both stay, or both move alike in one window, or what
 * each can ever cover (cover) is apart from the other. */
static int apart_alike(const topo_range_t *a, const topo_shift_t *sa, const topo_range_t *b,
                       const topo_shift_t *sb, int k)
{
    const int ia = in_window(sa, a), ib = in_window(sb, b);
    const int ma = ia ? 0 != shift_by(sa, 1) : outside_moves(sa);
    const int mb = ib ? 0 != shift_by(sb, 1) : outside_moves(sb);
    if (!ma && !mb) {
        return 1;
    }
    if (ma && mb && ia && ib && sa->wfirst == sb->wfirst && sa->wlen == sb->wlen &&
        sa->wtiles == sb->wtiles && shift_by(sa, 1) == shift_by(sb, 1)) {
        return 1;
    }
    int32_t a0, a1, b0, b1;
    cover(sa, a, k, &a0, &a1);
    cover(sb, b, k, &b0, &b1);
    return a1 <= b0 || b1 <= a0;
}

/* Whether x is a receive that could be direct (topo_sched_finish). */
static int direct_candidate(const topo_xfer_t *x)
{
    return x->kind == TOPO_XFER_RECV_COPY && 1 == x->nranges;
}

/* Whether the template steps [st0, st0 + n) of s, with shifts sh (one per
 * transfer from the first step's), can be stored once for k more
 * repetitions (topo_sched_repeat). */
static int compactable(const topo_sched_t *s, int st0, int n, int k, const topo_shift_t *sh)
{
    const int32_t x0 = s->steps[st0].xfer0;
    for (int st = st0; st < st0 + n; st++) {
        const topo_step_t *step = &s->steps[st];
        int32_t nr = 0;
        if (step->nxfers > TOPO_VIEW_XFERS) {
            return 0;
        }
        for (int i = 0; i < step->nxfers; i++) {
            const int32_t xi = step->xfer0 + i;
            const topo_xfer_t *x = &s->xfers[xi];
            const topo_shift_t *h = &sh[xi - x0];
            nr += x->nranges + (x->kind == TOPO_XFER_COPY ? x->nsrc : 0);
            if (x->kind == TOPO_XFER_COPY && outside_moves(h)) {
                return 0; /* a copy's sides keep their counts */
            }
            if (0 != h->dpeer % s->size) { /* no peer may meet the rank */
                if (x->kind == TOPO_XFER_COPY) {
                    return 0;
                }
                const int32_t dp = moved_peer(s, &(topo_xfer_t){.peer = 0}, h, 1);
                for (int32_t j = 1, pr = x->peer; j <= k; j++) {
                    pr += dp;
                    pr -= pr >= s->size ? s->size : 0;
                    if (pr == s->rank) {
                        return 0;
                    }
                }
            }
            for (int32_t q = 0; q < x->nranges; q++) {
                if (s->ranges[x->range0 + q].count < 0) {
                    return 0; /* strided runs repeat explicitly */
                }
            }
            for (int side = 0; side < 2; side++) {
                int32_t r0, cnt;
                xfer_side(x, side, &r0, &cnt);
                for (int32_t q = 0; q < cnt; q++) {
                    const topo_range_t *r = &s->ranges[r0 + q];
                    /* a range partly in its window would split */
                    if (h->wlen > 0 && !in_window(h, r) && r->first < h->wfirst + h->wlen &&
                        r->first + r->count > h->wfirst) {
                        return 0;
                    }
                }
                /* no range may wrap, nor meet the next (the explicit form
                 * would merge them) */
                const int32_t d1 = shift_by(h, 1);
                const int lin = outside_moves(h);
                for (int32_t q = 0; (d1 || lin) && q < cnt; q++) {
                    const topo_range_t *r = &s->ranges[r0 + q];
                    const topo_range_t *nx = q + 1 < cnt ? &s->ranges[r0 + q + 1] : NULL;
                    if (lin && !in_window(h, r)) { /* inside the blocks, never empty */
                        const int64_t f = r->first + (int64_t)k * h->dout;
                        const int64_t c = r->count + (int64_t)k * h->dcount;
                        if (f < 0 || c < 1 || f + c > s->nblocks) {
                            return 0;
                        }
                    }
                    if (NULL != nx && (lin || in_window(h, r) != in_window(h, nx))) {
                        if (!lin) {
                            return 0;
                        }
                        /* ranges that move apart: each repetition's */
                        const int rin = in_window(h, r), nin = in_window(h, nx);
                        copy_walk_t wr, wn;
                        walk_init(&wr, h, r);
                        walk_init(&wn, h, nx);
                        for (int64_t j = 1; j <= k; j++) {
                            const int64_t fr = rin ? walk_next(&wr) : r->first + j * h->dout;
                            const int64_t cr = rin ? r->count : r->count + j * h->dcount;
                            const int64_t fn = nin ? walk_next(&wn) : nx->first + j * h->dout;
                            if (fr + cr == fn) {
                                return 0;
                            }
                        }
                    }
                    if (!in_window(h, r) || 0 == d1) {
                        continue;
                    }
                    /* r and nx move alike but for a wrap of either: the
                     * distance from r's end to nx's start changes by a
                     * window at most */
                    if (NULL != nx) {
                        const int64_t gap = (int64_t)nx->first - (r->first + r->count);
                        if (gap == h->wlen || gap == -(int64_t)h->wlen) {
                            return 0;
                        }
                    }
                    for (int32_t j = 1, off = r->first - tile_of(h, r->first);
                         r->count > 1 && j <= k; j++) {
                        off += d1;
                        off -= off >= h->wlen ? h->wlen : 0;
                        if (off + r->count > h->wlen) {
                            return 0;
                        }
                    }
                }
            }
        }
        if (nr > TOPO_VIEW_RANGES) {
            return 0;
        }
        /* direct receives stay direct: every two ranges of the step meet
         * alike in every repetition (at once where every transfer of the
         * step moves alike: one permutation of the blocks) */
        int alike = 1;
        for (int i = 0; i < step->nxfers && alike; i++) {
            const topo_shift_t *a = &sh[step->xfer0 - x0], *b = &sh[step->xfer0 + i - x0];
            alike = a->dblk == b->dblk && a->wfirst == b->wfirst && a->wlen == b->wlen &&
                    a->wtiles == b->wtiles && !outside_moves(b);
        }
        for (int i = 0; i < step->nxfers && !alike; i++) {
            for (int i2 = i; i2 < step->nxfers; i2++) {
                const topo_xfer_t *a = &s->xfers[step->xfer0 + i], *b = &s->xfers[step->xfer0 + i2];
                const topo_shift_t *ha = &sh[step->xfer0 + i - x0],
                                   *hb = &sh[step->xfer0 + i2 - x0];
                if (!direct_candidate(a) && !direct_candidate(b)) {
                    continue; /* only a direct receive's neighbours matter */
                }
                for (int sa = 0; sa < 2; sa++) {
                    for (int sb = 0; sb < 2; sb++) {
                        int32_t a0, na, b0, nb;
                        xfer_side(a, sa, &a0, &na);
                        xfer_side(b, sb, &b0, &nb);
                        for (int32_t qa = 0; qa < na; qa++) {
                            for (int32_t qb = 0; qb < nb; qb++) {
                                if (!apart_alike(&s->ranges[a0 + qa], ha, &s->ranges[b0 + qb], hb,
                                                 k)) {
                                    return 0;
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    return 1;
}

/* Append stored transfer xi moved j times by h to the current step
 * explicitly, as the builder calls would have emitted it. */
static void emit_one(topo_sched_t *s, int32_t xi, const topo_shift_t h, int64_t j)
{
    const topo_xfer_t x = s->xfers[xi];
    const int32_t d = shift_by(&h, j);
    topo_xfer_t *y = add_xfer(s, moved_peer(s, &x, &h, j), (topo_xfer_kind_t)x.kind);
    if (NULL == y) {
        return;
    }
    const int32_t yi = s->nxfers - 1;
    for (int side = x.kind == TOPO_XFER_COPY ? 1 : 0; side >= 0; side--) {
        int32_t r0, cnt;
        xfer_side(&x, side, &r0, &cnt);
        if (x.kind == TOPO_XFER_COPY) {
            s->xfers[yi].nranges = 0;
            s->xfers[yi].nblk = 0;
            s->xfers[yi].range0 = s->nranges;
        }
        /* the stored ranges one by one (the iterator re-pointed at the
         * array each time: appending may move it) */
        const topo_xfer_t keep = {.kind = TOPO_XFER_SEND, .range0 = r0, .nranges = cnt};
        topo_range_iter_t it;
        topo_range_t r;
        for (topo_range_iter(&it, s->ranges, &keep, 0); !s->err && topo_range_next(&it, &r);
             it.ranges = s->ranges) {
            int32_t wrap;
            const topo_range_t mr = moved_range(&h, &r, j, d, &wrap);
            const int32_t piece[2][2] = {{mr.first, mr.count - wrap}, {tile_of(&h, r.first), wrap}};
            for (int pc = 0; pc < 2; pc++) {
                if (pc && 0 == wrap) {
                    break;
                }
                if (x.kind == TOPO_XFER_COPY) {
                    add_range(s, piece[pc][0], piece[pc][1]);
                    s->xfers[yi].nranges += !s->err;
                    s->xfers[yi].nblk += s->err ? 0 : piece[pc][1];
                } else {
                    topo_sched_range(s, piece[pc][0], piece[pc][1]);
                }
            }
        }
        if (x.kind == TOPO_XFER_COPY && 1 == side) {
            s->xfers[yi].src0 = s->xfers[yi].range0;
            s->xfers[yi].nsrc = s->xfers[yi].nranges;
        }
    }
}

/* Append repetition j of stored step st (shifts sh from transfer x0 on)
 * explicitly, as the builder calls would have emitted it. */
static void emit_moved(topo_sched_t *s, int st, int32_t x0, int32_t sh0, int64_t j)
{
    topo_sched_step(s);
    const int32_t nx = s->err ? 0 : s->steps[st].nxfers;
    for (int32_t i = 0; i < nx && !s->err; i++) {
        const int32_t xi = s->steps[st].xfer0 + i;
        emit_one(s, xi, s->shifts[sh0 + xi - x0], j);
    }
}

/* Whether shift h is valid on s (its windows inside the blocks). */
static int shift_valid(const topo_sched_t *s, const topo_shift_t *h)
{
    return !(h->wlen < 0 || h->wtiles < 0 || h->wfirst < 0 ||
             (int64_t)h->wlen * h->wtiles > s->nblocks - h->wfirst ||
             ((0 == h->wlen || 0 == h->wtiles) && 0 != h->dblk));
}

void topo_sched_repeat(topo_sched_t *s, int nsteps, int k, const topo_shift_t *shift, int nshift)
{
    if (s->err || 0 == k || 0 == nsteps) {
        return;
    }
    topo_seg_t *g = last_seg(s);
    if (k < 0 || nsteps < 0 || NULL == g || g->reps > 1 || g->nsteps < nsteps ||
        (nshift > 0 && NULL == shift)) {
        s->err = TOPO_EINVAL;
        return;
    }
    const int st0 = g->step0 + g->nsteps - nsteps;
    const int32_t x0 = s->steps[st0].xfer0;
    if (s->nxfers - x0 != nshift) {
        s->err = TOPO_EINVAL;
        return;
    }
    for (int i = 0; i < nshift; i++) {
        if (!shift_valid(s, &shift[i])) {
            s->err = TOPO_EINVAL;
            return;
        }
    }
    for (int32_t xi = x0; xi < s->nxfers; xi++) {
        if (s->xfers[xi].kind == TOPO_XFER_REPEAT) {
            s->err = TOPO_EINVAL; /* a group repeated within a step: no template */
            return;
        }
        if (holds_mapped(s, &s->xfers[xi])) {
            s->err = TOPO_EINVAL; /* mapped runs are not moved */
            return;
        }
    }
    const int32_t sh0 = s->nshifts;
    for (int i = 0; i < nshift; i++) {
        if (!grow(s, (void **)&s->shifts, s->nshifts, &s->cap_shifts, sizeof(*s->shifts))) {
            return;
        }
        s->shifts[s->nshifts++] = shift[i];
    }
    if (!compactable(s, st0, nsteps, k, shift)) {
        for (int64_t j = 1; j <= k && !s->err; j++) {
            for (int st = st0; st < st0 + nsteps; st++) {
                emit_moved(s, st, x0, sh0, j);
            }
        }
        s->nshifts = sh0;
        return;
    }
    topo_lane_t *ln = &s->lanes[s->nlanes - 1];
    if (g->nsteps > nsteps) {
        if (!grow(s, (void **)&s->segs, s->nsegs, &s->cap_segs, sizeof(*s->segs))) {
            return;
        }
        g = &s->segs[s->nsegs - 1];
        g->nsteps -= nsteps;
        s->segs[s->nsegs++] = (topo_seg_t){g->at + g->nsteps, st0, nsteps, 1, -1};
        ln->nsegs++;
        g = &s->segs[s->nsegs - 1];
    }
    if ((int64_t)ln->nsteps + (int64_t)k * nsteps > INT32_MAX) {
        s->err = TOPO_EINVAL;
        return;
    }
    g->reps = k + 1;
    g->shift0 = sh0;
    s->sealed = 1;
    ln->nsteps += k * nsteps;
}

/* Whether copies 1..k of the group xfers[g0, g0 + n) (shifts sh) are
 * what the explicit emission would hold: every peer off the rank, every
 * range whole inside its window or outside every window, no two
 * consecutive ranges of a transfer adjacent (they would merge). */
static int group_fits(const topo_sched_t *s, int32_t g0, int n, int k, const topo_shift_t *sh)
{
    for (int i = 0; i < n; i++) {
        const topo_xfer_t *x = &s->xfers[g0 + i];
        const topo_shift_t *h = &sh[i];
        if (0 != h->dpeer % s->size) {
            const int32_t dp = peer_moved(s->size, 0, h, 1);
            for (int32_t j = 1, pr = x->peer; j <= k; j++) {
                pr += dp;
                pr -= pr >= s->size ? s->size : 0;
                if (pr == s->rank) {
                    return 0;
                }
            }
        }
        const topo_range_t *rs = &s->ranges[x->range0];
        for (int32_t q = 0; q < x->nranges; q++) {
            if (h->wlen > 0 && !in_window(h, &rs[q]) &&
                rs[q].first < h->wfirst + h->wlen * h->wtiles &&
                rs[q].first + rs[q].count > h->wfirst) {
                return 0; /* partly in the windows: it would split */
            }
        }
        /* a copy of more than one block may pass its window's end */
        for (int32_t q = 0; q < x->nranges; q++) {
            copy_walk_t c;
            walk_init(&c, h, &rs[q]);
            for (int32_t j = 1; rs[q].count > 1 && c.d1 && j <= k; j++) {
                if (walk_next(&c) - c.w + rs[q].count > c.wlen) {
                    return 0;
                }
            }
        }
        /* consecutive ranges that move apart may meet */
        const int32_t d1 = shift_by(h, 1);
        for (int32_t j = 1, d = d1; x->nranges > 1 && d1 && j <= k; j++) {
            int32_t prev_end = -1;
            for (int32_t q = 0; q < x->nranges; q++) {
                int32_t wrap;
                const int32_t f = moved_first(h, &rs[q], d, &wrap);
                if (q > 0 && f == prev_end) {
                    return 0;
                }
                prev_end = f + rs[q].count;
            }
            d += d1;
            d -= d >= h->wlen ? h->wlen : 0;
        }
    }
    return 1;
}

/* The direct receives of the step `st` whose group xfers[g0, g0 + n)
 * runs k more times (shifts sh), as mark_direct would find them in the
 * explicit form: a RECV_COPY of one range that no other range of the step
 * touches, counted over the step's blocks (a difference array, so
 * O(nblocks + ranges)).  Sets the stored transfers' flags and returns 1
 * where every copy of a group receive would be as direct as the group's
 * own; 0 otherwise (or out of memory: s->err). */
static int group_direct(topo_sched_t *s, const topo_step_t *st, int32_t g0, int n, int k,
                        const topo_shift_t *sh)
{
    int32_t *cov = calloc((size_t)s->nblocks + 1, sizeof(*cov));
    if (NULL == cov) {
        s->err = TOPO_ENOMEM;
        return 0;
    }
    for (int32_t xi = st->xfer0; xi < st->xfer0 + st->nxfers; xi++) {
        const topo_xfer_t *x = &s->xfers[xi];
        for (int side = 0; side < (x->kind == TOPO_XFER_COPY ? 2 : 1); side++) {
            topo_range_iter_t it;
            topo_range_t r;
            for (topo_range_iter(&it, s->ranges, x, side); topo_range_next(&it, &r);) {
                cov[r.first]++;
                cov[r.first + r.count]--;
            }
        }
    }
    for (int i = 0; i < n; i++) {
        const topo_xfer_t *x = &s->xfers[g0 + i];
        for (int32_t q = 0; q < x->nranges; q++) {
            const topo_range_t *r = &s->ranges[x->range0 + q];
            copy_walk_t c;
            walk_init(&c, &sh[i], r);
            for (int32_t j = 1; j <= k; j++) {
                const int32_t f = walk_next(&c);
                cov[f]++;
                cov[f + r->count]--;
            }
        }
    }
    /* cov[b]: the blocks before b that two ranges or more touch */
    for (int32_t b = 0, run = 0, shared = 0; b <= s->nblocks; b++) {
        run += cov[b];
        cov[b] = shared;
        shared += run >= 2;
    }
    int same = 1;
    for (int32_t xi = st->xfer0; xi < st->xfer0 + st->nxfers; xi++) {
        topo_xfer_t *x = &s->xfers[xi];
        x->direct = 0;
        if (x->kind != TOPO_XFER_RECV_COPY || 1 != x->nranges) {
            continue;
        }
        const topo_range_t *r = &s->ranges[x->range0];
        x->direct = cov[r->first + r->count] == cov[r->first];
        if (xi < g0) {
            continue;
        }
        copy_walk_t c;
        walk_init(&c, &sh[xi - g0], r);
        for (int32_t j = 1; same && j <= k; j++) {
            const int32_t f = walk_next(&c);
            same = (cov[f + r->count] == cov[f]) == x->direct;
        }
    }
    free(cov);
    return same;
}

void topo_sched_repeat_xfers(topo_sched_t *s, int n, int k, const topo_shift_t *shift)
{
    if (s->err || 0 == k || 0 == n) {
        return;
    }
    if (k < 0 || n < 0 || NULL == shift || 0 == s->nsteps || s->sealed ||
        s->steps[s->nsteps - 1].nxfers < n) {
        s->err = TOPO_EINVAL;
        return;
    }
    const topo_step_t *st = &s->steps[s->nsteps - 1];
    const int32_t g0 = s->nxfers - n;
    if ((int64_t)st->nxfers + (int64_t)n * k > INT32_MAX) {
        s->err = TOPO_EINVAL;
        return;
    }
    int stored = 1;
    for (int i = 0; i < n; i++) {
        const topo_xfer_t *x = &s->xfers[g0 + i];
        if (!shift_valid(s, &shift[i]) || x->kind == TOPO_XFER_COPY ||
            x->kind == TOPO_XFER_REPEAT || holds_mapped(s, x)) {
            s->err = TOPO_EINVAL;
            return;
        }
        stored = stored && x->nranges <= TOPO_VIEW_GROUP_RANGES && !outside_moves(&shift[i]);
        for (int32_t q = 0; stored && q < x->nranges; q++) {
            stored = s->ranges[x->range0 + q].count >= 0; /* no strided run */
        }
    }
    stored = stored && group_fits(s, g0, n, k, shift) && group_direct(s, st, g0, n, k, shift);
    if (s->err) {
        return;
    }
    if (!stored) {
        for (int64_t j = 1; j <= k && !s->err; j++) {
            for (int i = 0; i < n && !s->err; i++) {
                emit_one(s, g0 + i, shift[i], j);
            }
        }
        return;
    }
    const int32_t sh0 = s->nshifts;
    for (int i = 0; i < n; i++) {
        if (!grow(s, (void **)&s->shifts, s->nshifts, &s->cap_shifts, sizeof(*s->shifts))) {
            return;
        }
        s->shifts[s->nshifts++] = shift[i];
    }
    topo_xfer_t *m = add_xfer(s, k, TOPO_XFER_REPEAT);
    if (NULL != m) {
        m->nblk = n;
        m->src0 = sh0;
        s->sealed = 1;
    }
}

void topo_sched_idle(topo_sched_t *s, int n)
{
    if (n > 0) {
        topo_sched_step(s);
        topo_sched_repeat(s, 1, n - 1, NULL, 0);
    }
}

void topo_sched_step_at(const topo_sched_t *s, int lane, int step, topo_step_view_t *v)
{
    const topo_lane_t *ln = &s->lanes[lane];
    int lo = ln->seg0, hi = ln->seg0 + ln->nsegs - 1;
    while (lo < hi) { /* the last segment that starts at or before step */
        const int mid = lo + (hi - lo + 1) / 2;
        if (s->segs[mid].at <= step) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    const topo_seg_t *g = &s->segs[lo];
    const int rel = step - g->at, j = rel / g->nsteps;
    const topo_step_t *st = &s->steps[g->step0 + rel % g->nsteps];
    v->nxfers = st->nxfers;
    v->nstored = st->nxfers;
    v->gfirst = 0;
    v->size = s->size;
    v->gshift = NULL;
    if (0 == j) {
        v->xfers = &s->xfers[st->xfer0];
        v->ranges = s->ranges;
        const topo_xfer_t *m = st->nxfers > 0 ? &v->xfers[st->nxfers - 1] : NULL;
        if (NULL != m && m->kind == TOPO_XFER_REPEAT) { /* a group repeated within */
            v->nstored = st->nxfers - 1;
            v->gfirst = v->nstored - m->nblk;
            v->nxfers = v->nstored + m->nblk * m->peer;
            v->gshift = &s->shifts[m->src0];
        }
        return;
    }
    const int32_t x0 = s->steps[g->step0].xfer0;
    int32_t nr = 0;
    for (int i = 0; i < st->nxfers; i++) {
        const topo_xfer_t *x = &s->xfers[st->xfer0 + i];
        const topo_shift_t *h = &s->shifts[g->shift0 + st->xfer0 + i - x0];
        const int32_t d = shift_by(h, j);
        topo_xfer_t *y = &v->xbuf[i];
        *y = *x;
        y->peer = moved_peer(s, x, h, j);
        for (int side = 0; side < 2; side++) {
            int32_t r0, cnt;
            xfer_side(x, side, &r0, &cnt);
            if (side && x->kind == TOPO_XFER_COPY) {
                y->src0 = nr;
            } else if (!side) {
                y->range0 = nr;
            }
            for (int32_t q = 0; q < cnt; q++) {
                int32_t wrap;
                const topo_range_t *r = &s->ranges[r0 + q];
                v->rbuf[nr] = moved_range(h, r, j, d, &wrap);
                if (!side && outside_moves(h)) {
                    y->nblk += v->rbuf[nr].count - r->count;
                }
                nr++;
            }
        }
    }
    v->xfers = v->xbuf;
    v->ranges = v->rbuf;
}

const topo_xfer_t *topo_step_xfer_copy(topo_step_view_t *v, int i, const topo_range_t **ranges)
{
    const int32_t n = v->nstored - v->gfirst, c = i - v->nstored;
    const int32_t j = c / n + 1, g = c % n;
    const topo_xfer_t *x = &v->xfers[v->gfirst + g];
    const topo_shift_t *h = &v->gshift[g];
    const int32_t d = shift_by(h, j);
    v->xone = *x;
    v->xone.peer = peer_moved(v->size, x->peer, h, j);
    v->xone.range0 = 0;
    for (int32_t q = 0; q < x->nranges; q++) {
        int32_t wrap;
        const topo_range_t *r = &v->ranges[x->range0 + q];
        v->rone[q] = (topo_range_t){moved_first(h, r, d, &wrap), r->count};
    }
    *ranges = v->rone;
    return &v->xone;
}

int topo_sched_compact(const topo_sched_t *s)
{
    for (int32_t i = 0; i < s->nxfers; i++) {
        if (s->xfers[i].kind == TOPO_XFER_REPEAT) {
            return 1;
        }
    }
    for (int i = 0; i < s->nsegs; i++) {
        if (s->segs[i].reps > 1) {
            return 1;
        }
    }
    for (int32_t i = 0; i < s->nranges; i++) {
        if (s->ranges[i].count < 0) {
            return 1;
        }
    }
    return 0;
}

/* The ranges of x's entries [r0, r0 + n) stand for (a strided run's
 * copies each counted). */
static size_t logical_ranges(const topo_range_t *ranges, int32_t r0, int32_t n)
{
    size_t k = 0;
    for (int32_t q = r0; q < r0 + n;) {
        if (ranges[q].count <= TOPO_RUN_MAPPED) { /* a mapped run: its tuples */
            const int nax = TOPO_RUN_MAPPED - ranges[q].count;
            size_t m = 1;
            for (int a = 1; a <= nax; a++) {
                m *= (size_t)ranges[q + a].count;
            }
            k += m;
            q += 1 + nax;
            continue;
        }
        const int32_t len = item_len(ranges, q, r0 + n);
        if (TOPO_RUN_GROUP == ranges[q].count) { /* a group run: its copies' */
            k += (size_t)ranges[q + 1].count * logical_ranges(ranges, q + 2, len - 2);
        } else {
            k += 2 == len ? (size_t)(-ranges[q + 1].count) : 1;
        }
        q += len;
    }
    return k;
}

void topo_sched_totals(const topo_sched_t *s, size_t *steps, size_t *xfers, size_t *ranges)
{
    size_t st = 0, x = 0, r = 0;
    for (int i = 0; i < s->nsegs; i++) {
        const topo_seg_t *g = &s->segs[i];
        const topo_step_t *a = &s->steps[g->step0], *b = &s->steps[g->step0 + g->nsteps - 1];
        const int32_t x0 = a->xfer0, x1 = b->xfer0 + b->nxfers;
        /* the stored ranges of transfers [x0, x1), transfer by transfer
         * (a map's entries may lie between two of them) */
        size_t lr = 0;
        for (int32_t xi = x0; xi < x1; xi++) {
            const topo_xfer_t *xx = &s->xfers[xi];
            lr += logical_ranges(s->ranges, xx->range0, xx->nranges) +
                  (xx->kind == TOPO_XFER_COPY ? (size_t)xx->nsrc : 0);
        }
        st += (size_t)g->nsteps * (size_t)g->reps;
        x += (size_t)(x1 - x0) * (size_t)g->reps;
        r += lr * (size_t)g->reps;
        for (int k = g->step0; 1 == g->reps && k < g->step0 + g->nsteps; k++) {
            const topo_step_t *sk = &s->steps[k];
            const topo_xfer_t *m = sk->nxfers > 0 ? &s->xfers[sk->xfer0 + sk->nxfers - 1] : NULL;
            if (NULL == m || m->kind != TOPO_XFER_REPEAT) {
                continue;
            }
            /* the entry is no transfer; the group's copies are */
            size_t gr = 0;
            for (int32_t q = sk->xfer0 + sk->nxfers - 1 - m->nblk; q < sk->xfer0 + sk->nxfers - 1;
                 q++) {
                gr += (size_t)s->xfers[q].nranges;
            }
            x += (size_t)m->nblk * (size_t)m->peer - 1;
            r += gr * (size_t)m->peer;
        }
    }
    *steps = st;
    *xfers = x;
    *ranges = r;
}

size_t topo_sched_bytes(const topo_sched_t *s)
{
    return (size_t)s->cap_lanes * sizeof(*s->lanes) + (size_t)s->cap_steps * sizeof(*s->steps) +
           (size_t)s->cap_xfers * sizeof(*s->xfers) + (size_t)s->cap_ranges * sizeof(*s->ranges) +
           (size_t)s->cap_segs * sizeof(*s->segs) + (size_t)s->cap_shifts * sizeof(*s->shifts);
}

int topo_sched_expand(const topo_sched_t *s, topo_sched_t *out)
{
    topo_sched_init(out, s->size, s->rank, s->nblocks);
    out->nparts = s->nparts;
    out->uniform = s->uniform;
    out->mblocks = s->mblocks;
    out->sync = s->sync;
    out->wide = s->wide;
    out->err = s->err;
    topo_step_view_t v;
    for (int l = 0; l < s->nlanes && !out->err; l++) {
        topo_sched_lane(out);
        for (int st = 0; st < s->lanes[l].nsteps && !out->err; st++) {
            topo_sched_step_at(s, l, st, &v);
            topo_sched_step(out);
            for (int i = 0; i < v.nxfers && !out->err; i++) {
                const topo_range_t *rg;
                const topo_xfer_t *x = topo_step_xfer(&v, i, &rg);
                topo_xfer_t *y = add_xfer(out, x->peer, (topo_xfer_kind_t)x->kind);
                if (NULL == y) {
                    break;
                }
                const int32_t yi = out->nxfers - 1;
                const topo_xfer_t keep = *x;
                out->xfers[yi] = keep;
                for (int side = keep.kind == TOPO_XFER_COPY; side >= 0; side--) {
                    topo_range_iter_t it;
                    topo_range_t r;
                    const int32_t at = out->nranges;
                    for (topo_range_iter(&it, rg, &keep, side); topo_range_next(&it, &r);) {
                        add_range(out, r.first, r.count);
                    }
                    if (side) {
                        out->xfers[yi].src0 = at;
                    } else {
                        out->xfers[yi].range0 = at;
                        out->xfers[yi].nranges = out->nranges - at;
                    }
                }
            }
        }
    }
    if (out->err && s->err != out->err) {
        const int rc = out->err;
        topo_sched_free(out);
        topo_sched_init(out, 1, 0, 0);
        return rc;
    }
    return s->err ? s->err : TOPO_OK;
}

/* A non-empty block range of a step, with the transfer it belongs to. */
typedef struct {
    int32_t first, end, xfer;
} span_t;

/* Sort sp[0..n) by first block: a merge sort of the ascending runs already
 * there (each transfer's ranges usually are), through tmp (room for n), so
 * that the common step of a few sorted transfers costs O(R).  The order of
 * spans with the same first block does not matter to mark_direct. */
static void sort_spans(span_t *sp, span_t *tmp, int n)
{
    int runs = 1;
    for (int k = 1; k < n; k++) {
        runs += sp[k].first < sp[k - 1].first;
    }
    span_t *a = sp, *b = tmp;
    while (runs > 1) {
        int out = 0, lo = 0;
        runs = 0;
        while (lo < n) {
            int mid = lo + 1;
            while (mid < n && a[mid].first >= a[mid - 1].first) {
                mid++;
            }
            int hi = mid < n ? mid + 1 : n;
            while (hi < n && a[hi].first >= a[hi - 1].first) {
                hi++;
            }
            int i = lo, j = mid;
            while (i < mid && j < hi) {
                b[out++] = a[j].first < a[i].first ? a[j++] : a[i++];
            }
            while (i < mid) {
                b[out++] = a[i++];
            }
            while (j < hi) {
                b[out++] = a[j++];
            }
            runs++;
            lo = hi;
        }
        span_t *t = a;
        a = b;
        b = t;
    }
    if (a != sp) {
        memcpy(sp, a, sizeof(*sp) * (size_t)n);
    }
}

/* Mark the direct receives of `step` (topo_xfer_t.direct): a RECV_COPY of
 * one range that no other range of the step touches (the ranges of the
 * sends and receives, and both sides of the local copies).  The step's
 * non-empty ranges sorted by their first block: a range meets an earlier
 * one when the largest end before it exceeds its first block, and a later
 * one when the next range starts before its end.  O(R log R) for R ranges,
 * so that a step of p - 1 messages (linear alltoall) costs no p^2; O(R)
 * where the transfers' ranges come in a few ascending runs, and nothing
 * where the step has no receive that could be direct. */
static void mark_direct(topo_sched_t *s, const topo_step_t *step, span_t *sp, span_t *tmp)
{
    int n = 0, any = 0;
    for (int i = 0; i < step->nxfers && !any; i++) {
        const topo_xfer_t *x = &s->xfers[step->xfer0 + i];
        any = x->kind == TOPO_XFER_RECV_COPY && x->nranges == 1;
    }
    if (!any) {
        return;
    }
    for (int i = 0; i < step->nxfers; i++) {
        const topo_xfer_t *x = &s->xfers[step->xfer0 + i];
        for (int side = 0; side < (x->kind == TOPO_XFER_COPY ? 2 : 1); side++) {
            topo_range_iter_t it;
            topo_range_t r;
            for (topo_range_iter(&it, s->ranges, x, side); topo_range_next(&it, &r);) {
                if (r.count > 0) {
                    sp[n++] = (span_t){r.first, r.first + r.count, step->xfer0 + i};
                }
            }
        }
    }
    sort_spans(sp, tmp, n);
    int32_t reach = INT32_MIN; /* the largest end of the ranges before k */
    for (int k = 0; k < n; k++) {
        topo_xfer_t *x = &s->xfers[sp[k].xfer];
        const int alone = reach <= sp[k].first && (k + 1 == n || sp[k + 1].first >= sp[k].end);
        if (x->kind == TOPO_XFER_RECV_COPY && x->nranges == 1 && alone) {
            x->direct = 1;
        }
        reach = sp[k].end > reach ? sp[k].end : reach;
    }
}

/* Whether step's stored entries end with a group repeated within it. */
static int step_grouped(const topo_sched_t *s, const topo_step_t *step)
{
    return step->nxfers > 0 && s->xfers[step->xfer0 + step->nxfers - 1].kind == TOPO_XFER_REPEAT;
}

/* Shrink an array to its n elements where more than 1/17 of it is
 * unused (the builder's doubling leaves up to half); kept as it is where
 * realloc fails. */
static void shrink(void **arr, int32_t n, int32_t *cap, size_t elem)
{
    if (n > 0 && *cap - n > n / 16) {
        void *p = realloc(*arr, (size_t)n * elem);
        if (NULL != p) {
            *arr = p;
            *cap = n;
        }
    }
}

int topo_sched_finish(topo_sched_t *s)
{
    if (s->err) {
        return s->err;
    }
    if (s->nparts < 1 || s->gdepth > 0) {
        return s->err = TOPO_EINVAL;
    }
    shrink((void **)&s->lanes, s->nlanes, &s->cap_lanes, sizeof(*s->lanes));
    shrink((void **)&s->steps, s->nsteps, &s->cap_steps, sizeof(*s->steps));
    shrink((void **)&s->xfers, s->nxfers, &s->cap_xfers, sizeof(*s->xfers));
    shrink((void **)&s->ranges, s->nranges, &s->cap_ranges, sizeof(*s->ranges));
    shrink((void **)&s->segs, s->nsegs, &s->cap_segs, sizeof(*s->segs));
    shrink((void **)&s->shifts, s->nshifts, &s->cap_shifts, sizeof(*s->shifts));
    size_t most = 0; /* ranges in the step that has the most (of those
                        mark_direct reads: with a receive that could be direct) */
    for (int st = 0; st < s->nsteps; st++) {
        const topo_step_t *step = &s->steps[st];
        size_t nr = 0;
        int cand = 0;
        /* a step whose group repeats within it has its direct receives
         * from topo_sched_repeat_xfers (group_direct) */
        const int grouped = step_grouped(s, step);
        for (int i = 0; i < step->nxfers; i++) {
            topo_xfer_t *x = &s->xfers[step->xfer0 + i];
            if (x->kind == TOPO_XFER_REPEAT && i + 1 == step->nxfers) {
                continue;
            }
            if (x->kind > TOPO_XFER_COPY) {
                return s->err = TOPO_EINVAL;
            }
            if (!grouped) {
                x->direct = 0;
                nr += logical_ranges(s->ranges, x->range0, x->nranges) +
                      (x->kind == TOPO_XFER_COPY ? (size_t)x->nsrc : 0);
                cand = cand || (x->kind == TOPO_XFER_RECV_COPY && x->nranges == 1);
            }
            if (x->kind == TOPO_XFER_COPY) {
                if (x->peer != s->rank) {
                    return s->err = TOPO_EINVAL;
                }
                continue;
            }
            if (x->peer < 0 || x->peer >= s->size || x->peer == s->rank) {
                return s->err = TOPO_EINVAL;
            }
        }
        most = cand && nr > most ? nr : most;
    }
    span_t *sp = most > 0 ? malloc(sizeof(*sp) * 2 * most) : NULL;
    if (most > 0 && NULL == sp) {
        return s->err = TOPO_ENOMEM;
    }
    for (int st = 0; st < s->nsteps; st++) {
        if (!step_grouped(s, &s->steps[st])) {
            mark_direct(s, &s->steps[st], sp, sp + most);
        }
    }
    free(sp);
    return TOPO_OK;
}

double topo_sched_block_share(const topo_sched_t *s)
{
    int m = s->mblocks > 0 ? s->mblocks : s->nblocks;
    return m > 0 ? 1.0 / m : 0.0;
}

int topo_sched_depth(const topo_sched_t *s)
{
    int d = 0;
    for (int l = 0; l < s->nlanes; l++) {
        if (s->lanes[l].nsteps > d) {
            d = s->lanes[l].nsteps;
        }
    }
    return d;
}

/* Element offset of part `i` of `n` parts of a run of `len` elements: the
 * first len % n parts get one more element. */
static size_t split_off(size_t len, size_t n, size_t i)
{
    size_t q = len / n, r = len % n;
    return i * q + (i < r ? i : r);
}

void topo_block_layout(const topo_sched_t *s, size_t count, const size_t *units, size_t *off)
{
    size_t nb = (size_t)s->nblocks;
    if (NULL == units) {
        for (size_t b = 0; b <= nb; b++) {
            off[b] = nb ? split_off(count, nb, b) : 0;
        }
        return;
    }
    size_t np = (size_t)s->nparts, base = 0;
    for (size_t u = 0; u < (size_t)topo_sched_units(s); u++) {
        for (size_t k = 0; k < np; k++) {
            off[u * np + k] = base + split_off(units[u], np, k);
        }
        base += units[u];
    }
    off[nb] = base;
}

static const char *kind_name(int kind)
{
    switch (kind) {
    case TOPO_XFER_SEND:
        return "send";
    case TOPO_XFER_RECV_COPY:
        return "recv";
    case TOPO_XFER_RECV_REDUCE:
        return "recv+reduce";
    case TOPO_XFER_RECV_REDUCE_POST:
        return "recv+reduce(post)";
    case TOPO_XFER_COPY:
        return "copy";
    default:
        return "?";
    }
}

static void print_ranges(const topo_range_t *ranges, FILE *f, const topo_xfer_t *x, int side)
{
    topo_range_iter_t it;
    topo_range_t r;
    topo_range_iter(&it, ranges, x, side);
    for (int i = 0; topo_range_next(&it, &r); i++) {
        fprintf(f, "%s[%d", i ? "," : "", r.first);
        if (r.count > 1) {
            fprintf(f, "-%d", r.first + r.count - 1);
        }
        fputc(']', f);
    }
}

void topo_sched_print(const topo_sched_t *s, void *file)
{
    FILE *f = file;
    topo_step_view_t v;
    fprintf(f, "rank %d of %d: %d blocks, %d lane(s)\n", s->rank, s->size, s->nblocks, s->nlanes);
    for (int l = 0; l < s->nlanes; l++) {
        for (int st = 0; st < s->lanes[l].nsteps; st++) {
            topo_sched_step_at(s, l, st, &v);
            fprintf(f, "  lane %d step %d:", l, st);
            for (int i = 0; i < v.nxfers; i++) {
                const topo_range_t *rg;
                const topo_xfer_t *x = topo_step_xfer(&v, i, &rg);
                fprintf(f, " %s", kind_name(x->kind));
                if (x->kind == TOPO_XFER_COPY) {
                    fputc(' ', f);
                    print_ranges(rg, f, x, 1);
                    fputs("->", f);
                } else {
                    fprintf(f, " %s %d ", x->kind == TOPO_XFER_SEND ? "to" : "from", x->peer);
                }
                print_ranges(rg, f, x, 0);
                fputc(i + 1 < v.nxfers ? ';' : ' ', f);
            }
            fputc('\n', f);
        }
    }
}
