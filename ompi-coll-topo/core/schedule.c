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
    s->lanes[s->nlanes].step0 = s->nsteps;
    s->lanes[s->nlanes].nsteps = 0;
    s->nlanes++;
}

void topo_sched_step(topo_sched_t *s)
{
    if (0 == s->nlanes) {
        topo_sched_lane(s);
    }
    if (!grow(s, (void **)&s->steps, s->nsteps, &s->cap_steps, sizeof(*s->steps))) {
        return;
    }
    s->steps[s->nsteps].xfer0 = s->nxfers;
    s->steps[s->nsteps].nxfers = 0;
    s->nsteps++;
    s->lanes[s->nlanes - 1].nsteps++;
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
    if (!grow(s, (void **)&s->xfers, s->nxfers, &s->cap_xfers, sizeof(*s->xfers))) {
        return NULL;
    }
    topo_xfer_t *x = &s->xfers[s->nxfers++];
    memset(x, 0, sizeof(*x));
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

void topo_sched_range(topo_sched_t *s, int first, int count)
{
    if (s->err) {
        return;
    }
    if (0 == s->nxfers || count < 0) {
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
    /* Merge with the previous range of this transfer when adjacent. */
    if (x->nranges > 0) {
        topo_range_t *last = &s->ranges[s->nranges - 1];
        if (last->first + last->count == first) {
            if (first > s->nblocks - count) {
                s->err = TOPO_EINVAL;
                return;
            }
            last->count += count;
            x->nblk += count;
            return;
        }
    }
    add_range(s, first, count);
    if (!s->err) {
        x->nranges++;
        x->nblk += count;
    }
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
            const int32_t r0 = side ? x->src0 : x->range0, nr = side ? x->nsrc : x->nranges;
            for (int32_t k = 0; k < nr; k++) {
                const topo_range_t *r = &s->ranges[r0 + k];
                if (r->count > 0) {
                    sp[n++] = (span_t){r->first, r->first + r->count, step->xfer0 + i};
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

int topo_sched_finish(topo_sched_t *s)
{
    if (s->err) {
        return s->err;
    }
    if (s->nparts < 1) {
        return s->err = TOPO_EINVAL;
    }
    int32_t most = 0; /* ranges in the step that has the most */
    for (int st = 0; st < s->nsteps; st++) {
        const topo_step_t *step = &s->steps[st];
        int32_t nr = 0;
        for (int i = 0; i < step->nxfers; i++) {
            topo_xfer_t *x = &s->xfers[step->xfer0 + i];
            if (x->kind > TOPO_XFER_COPY) {
                return s->err = TOPO_EINVAL;
            }
            x->direct = 0;
            nr += x->nranges + (x->kind == TOPO_XFER_COPY ? x->nsrc : 0);
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
        most = nr > most ? nr : most;
    }
    span_t *sp = most > 0 ? malloc(sizeof(*sp) * 2 * (size_t)most) : NULL;
    if (most > 0 && NULL == sp) {
        return s->err = TOPO_ENOMEM;
    }
    for (int st = 0; st < s->nsteps; st++) {
        mark_direct(s, &s->steps[st], sp, sp + most);
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

static void print_ranges(const topo_sched_t *s, FILE *f, int r0, int n)
{
    for (int i = 0; i < n; i++) {
        const topo_range_t *r = &s->ranges[r0 + i];
        fprintf(f, "%s[%d", i ? "," : "", r->first);
        if (r->count > 1) {
            fprintf(f, "-%d", r->first + r->count - 1);
        }
        fputc(']', f);
    }
}

void topo_sched_print(const topo_sched_t *s, void *file)
{
    FILE *f = file;
    fprintf(f, "rank %d of %d: %d blocks, %d lane(s)\n", s->rank, s->size, s->nblocks, s->nlanes);
    for (int l = 0; l < s->nlanes; l++) {
        for (int st = 0; st < s->lanes[l].nsteps; st++) {
            const topo_step_t *step = topo_sched_lane_step(s, l, st);
            fprintf(f, "  lane %d step %d:", l, st);
            for (int i = 0; i < step->nxfers; i++) {
                const topo_xfer_t *x = &s->xfers[step->xfer0 + i];
                fprintf(f, " %s", kind_name(x->kind));
                if (x->kind == TOPO_XFER_COPY) {
                    fputc(' ', f);
                    print_ranges(s, f, x->src0, x->nsrc);
                    fputs("->", f);
                } else {
                    fprintf(f, " %s %d ", x->kind == TOPO_XFER_SEND ? "to" : "from", x->peer);
                }
                print_ranges(s, f, x->range0, x->nranges);
                fputc(i + 1 < step->nxfers ? ';' : ' ', f);
            }
            fputc('\n', f);
        }
    }
}
