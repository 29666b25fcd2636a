/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The plan compiler, the plan cache and derivation.  It knows nothing
 * about particular algorithms, nor about the transport that moves a plan's
 * messages (coll_topo_run.c runs a plan).
 *
 * A schedule is first compiled, for the call's element count and datatype
 * layout, into a plan: per step, the packing copies, the messages (each
 * segment one message, with its peer, buffer offset and element count) and
 * the copies and reductions that apply what arrived.  The last few plans
 * are kept per module, so a call that repeats the count, units and layout
 * of a recent one runs its plan without walking the schedule again; running
 * a plan is the small-message path.  A call of a new count whose schedule
 * has one block moved whole by every transfer (binomial trees, recursive
 * doubling) derives its plan from another count's instead (derive_plan):
 * the same operations, their element counts and temporary slots scaled.
 *
 * Temporary storage (per lane, grown on demand, kept in the module):
 * - a send whose blocks are not one range is packed first (a snapshot of the
 *   blocks at the start of the step, as the schedule model requires);
 * - a receive that is not `direct` lands in temporary storage and is applied
 *   (copied or reduced) at the end of the step;
 * - a local copy goes through temporary storage, so overlapping source and
 *   destination ranges behave as if copied at once.
 * Transfers of zero elements are skipped by both ends, except in `sync`
 * schedules (barrier), where the message itself is the point: they are sent
 * as one empty message.  Transfers larger than coll_topo_segment_size are
 * sent as several messages posted in order.
 *
 * Windows (mca_coll_topo_bufs_t).  The user's buffers serve as parts of
 * the work buffer where they can, so that no call copies its whole input
 * in or its whole result out:
 * - an output window puts those elements in the user's receive buffer;
 * - an input window holds the initial contents of its elements.  The plan
 *   tracks, per block, whether the block still holds them (unwritten): a
 *   send of unwritten blocks reads the input window, a reduction into one
 *   writes `incoming (op) input` with Open MPI's three-buffer reduction,
 *   and what is still unwritten in the result region at the end is copied
 *   to its place then (tail operations).  A reduce at a leaf, for one,
 *   sends from the user's send buffer and touches nothing else.  A
 *   reduction into unwritten blocks that nothing else in its step touches
 *   is received in place and then reduced with the input (w = in (op) w):
 *   what arrives lands where the result goes, as in tuned's linear reduce,
 *   one buffer fewer through the caches than receiving into temporary
 *   storage (binomial reduce on 2 ranks: 16.1 -> 13.6 us at 128 KiB).
 * A message whose range spans buffers (or unwritten and written blocks)
 * goes through temporary storage, as a send of several ranges does.
 */
#include "ompi_config.h"

#include <stdlib.h>
#include <string.h>

#include "coll_topo_plan.h"
#include "pack.h"

/* Compilation state: the plan being written and the call's layout. */
typedef struct {
    mca_coll_topo_exec_t *e; /* its scratch buffer (comp) */
    mca_coll_topo_plan_t *p;
    const topo_sched_t *s;
    const size_t *off; /* block layout in elements */
    ptrdiff_t ext, true_lb, true_ext;
    size_t seg_elems;
    int opclass;
    mca_coll_topo_windows_t win;
    /* Scratch: per block, whether its contents are still those of the
     * input window (unwritten); per transfer of the step being compiled,
     * its temporary elements. */
    uint8_t *at_in;
    size_t *tn;
    size_t *xn; /* per transfer of the step being compiled, its elements */
    /* The lane being compiled: per block, the last of its steps that
     * writes the block (-1: none); the step's index, the step and whether
     * it receives. */
    int32_t *last_write;
    int32_t step;
    const topo_step_t *st;
    bool step_recv;
    int32_t merge0; /* add_copy extends no operation before ops[merge0] */
} comp_t;

/* A piece of a block range: a run of elements that lives in one buffer
 * and, if `in`, still holds the input (read it at index `s` of the input
 * window). */
typedef struct {
    size_t n;
    uint8_t wbuf; /* BUF_WORK or BUF_OUT */
    size_t w;
    bool in;
    size_t s;
} piece_t;

/* Walk over the elements [e, end) of a block range, from block b. */
typedef struct {
    size_t e, end;
    int b;
} walk_t;

static inline walk_t walk_range(const comp_t *c, const topo_range_t *r)
{
    return (walk_t){c->off[r->first], c->off[r->first + r->count], r->first};
}

static inline bool in_out(const comp_t *c, size_t e)
{
    return e >= c->win.out_at && e - c->win.out_at < c->win.out_n;
}

/* The next piece of walk `wk`: false when it is done.  With `track`, the
 * pieces also break where blocks change between unwritten and written. */
static bool next_piece(const comp_t *c, walk_t *wk, bool track, piece_t *pc)
{
    if (wk->e >= wk->end) {
        return false;
    }
    while (c->off[wk->b + 1] <= wk->e) {
        wk->b++; /* empty blocks, or blocks done */
    }
    const size_t e = wk->e;
    const bool in = track && c->at_in[wk->b];
    const bool out = in_out(c, e);
    size_t stop = wk->end;
    /* where the buffer changes */
    const size_t lo = c->win.out_at, hi = c->win.out_at + c->win.out_n;
    if (c->win.out_n > 0 && !out && e < lo && lo < stop) {
        stop = lo;
    } else if (out && hi < stop) {
        stop = hi;
    }
    /* where the input state changes */
    if (track) {
        for (int b = wk->b + 1; c->off[b] < stop; b++) {
            if (c->off[b + 1] > c->off[b] && (bool)c->at_in[b] != in) {
                stop = c->off[b];
                break;
            }
        }
    }
    *pc = (piece_t){.n = stop - e,
                    .wbuf = out ? BUF_OUT : BUF_WORK,
                    .w = out ? e - lo : e,
                    .in = in,
                    .s = in ? e - c->win.in_at : 0};
    wk->e = stop;
    return true;
}

/* Is the range one piece?  Then *pc is that piece. */
static bool one_piece(const comp_t *c, const topo_range_t *r, bool track, piece_t *pc)
{
    walk_t wk = walk_range(c, r);
    return next_piece(c, &wk, track, pc) && wk.e == wk.end;
}

/* The range's blocks are written: they no longer hold the input. */
static void written(comp_t *c, const topo_range_t *r)
{
    memset(c->at_in + r->first, 0, (size_t)r->count);
}

static inline size_t range_elems(const comp_t *c, const topo_range_t *r)
{
    return c->off[r->first + r->count] - c->off[r->first];
}

/* Elements a transfer moves (sum over its ranges, wire order). */
static size_t xfer_elems(const comp_t *c, const topo_xfer_t *t)
{
    size_t n = 0;
    for (int i = 0; i < t->nranges; i++) {
        n += range_elems(c, &c->s->ranges[t->range0 + i]);
    }
    return n;
}

/* Is transfer `t` of step `st` a reduction into blocks that still hold the
 * input, which can be received in place and then reduced with the input
 * window (w = in (op) w, OP_REDUCE_FROM_IN) rather than received into
 * temporary storage and reduced from there into w?  The result is the
 * same: w = incoming (op) in for a commutative operation, in (op) incoming
 * for RECV_REDUCE_POST; one buffer fewer goes through the caches (what
 * arrives lands where the result goes).  One range, one piece, every block
 * unwritten, and no other transfer of the step but sends (which read the
 * input window for unwritten blocks) touches them. */
static bool in_place_reduce(const comp_t *c, const topo_step_t *st, const topo_xfer_t *t)
{
    piece_t pc;
    const topo_range_t *r = &c->s->ranges[t->range0];
    if (!(TOPO_XFER_RECV_REDUCE_POST == t->kind ||
          (TOPO_XFER_RECV_REDUCE == t->kind && 2 == c->opclass)) ||
        1 != t->nranges || !one_piece(c, r, true, &pc) || !pc.in) {
        return false;
    }
    for (int i = 0; i < st->nxfers; i++) {
        const topo_xfer_t *o = &c->s->xfers[st->xfer0 + i];
        if (o == t || TOPO_XFER_SEND == o->kind) {
            continue;
        }
        for (int j = 0; j < o->nranges; j++) {
            if (topo_pack_ranges_meet(r, &c->s->ranges[o->range0 + j])) {
                return false;
            }
        }
        for (int j = 0; TOPO_XFER_COPY == o->kind && j < o->nsrc; j++) {
            if (topo_pack_ranges_meet(r, &c->s->ranges[o->src0 + j])) {
                return false;
            }
        }
    }
    return true;
}

/* Does this transfer of n elements need temporary storage, and how many
 * elements?  (At the start of its step: a send is sent from where its
 * blocks are when they are one piece.) */
static size_t xfer_tmp_elems(const comp_t *c, const topo_step_t *st, const topo_xfer_t *t, size_t n)
{
    piece_t pc;
    const topo_range_t *r = &c->s->ranges[t->range0];
    /* pack.h's rules, and a range split between buffers or between
     * unwritten and written blocks is not one piece: packed too */
    if (TOPO_XFER_SEND == t->kind) {
        return topo_pack_send_packed(t) || !one_piece(c, r, true, &pc) ? n : 0;
    }
    if (topo_pack_is_recv(t)) {
        bool direct = !topo_pack_recv_staged(t) && 1 == t->nranges && one_piece(c, r, false, &pc);
        return direct || in_place_reduce(c, st, t) ? 0 : n;
    }
    return topo_pack_copy_overlaps(c->s->ranges, t) ? n : 0;
}

/* Bytes of temporary storage for n elements (pack.h). */
static inline size_t span_bytes(const comp_t *c, size_t n)
{
    return topo_pack_span((size_t)c->true_ext, (size_t)c->ext, n);
}

static int add_op(comp_t *c, plan_op_t op)
{
    mca_coll_topo_plan_t *p = c->p;
    if (OMPI_SUCCESS != mca_coll_topo_grow((void **)&p->ops, &p->cap_ops,
                                           ((size_t)p->nops + 1) * sizeof(plan_op_t))) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    p->ops[p->nops++] = op;
    return OMPI_SUCCESS;
}

/* Copies or reductions between block ranges and a temporary slot, `kind`
 * (OP_TO_TMP, OP_FROM_TMP, OP_REDUCE or OP_REDUCE_POST) per piece: ranges
 * [r0, r0 + nr) laid out one after the other in the slot.  Reading
 * unwritten input reads the input window; writing makes it written. */
static int add_range_ops(comp_t *c, int kind, int r0, int nr, ptrdiff_t slot)
{
    const bool reads = OP_FROM_TMP != kind;
    size_t at = 0;
    for (int r = 0; r < nr; r++) {
        const topo_range_t *rg = &c->s->ranges[r0 + r];
        walk_t wk = walk_range(c, rg);
        piece_t pc;
        while (next_piece(c, &wk, reads, &pc)) {
            plan_op_t op = {.kind = (uint8_t)kind,
                            .wbuf = pc.wbuf,
                            .n = pc.n,
                            .w = pc.w,
                            .s = pc.s,
                            .tmp = slot + (ptrdiff_t)at * c->ext};
            if (pc.in && OP_TO_TMP == kind) {
                op.wbuf = BUF_IN;
                op.w = pc.s;
            } else if (pc.in) {
                op.kind = OP_REDUCE == kind ? OP_REDUCE_IN : OP_REDUCE_POST_IN;
                op.sbuf = BUF_IN;
            }
            int rc = add_op(c, op);
            if (OMPI_SUCCESS != rc) {
                return rc;
            }
            at += pc.n;
        }
        if (OP_TO_TMP != kind) {
            written(c, rg);
        }
    }
    return OMPI_SUCCESS;
}

/* Add a copy, or extend the last operation when it is the copy just
 * before this one (not into one copy whose source and destination overlap:
 * two copies in a row, the second reading what the first wrote). */
static int add_copy(comp_t *c, plan_op_t op)
{
    plan_op_t *last = c->p->nops > c->merge0 ? &c->p->ops[c->p->nops - 1] : NULL;
    if (NULL != last && OP_COPY == last->kind && last->wbuf == op.wbuf && last->sbuf == op.sbuf &&
        last->w + last->n == op.w && last->s + last->n == op.s) {
        const size_t n = last->n + op.n;
        if (last->sbuf != last->wbuf || last->s + n <= last->w || last->w + n <= last->s) {
            last->n = n;
            return OMPI_SUCCESS;
        }
    }
    return add_op(c, op);
}

/* Copy what of [at, at + n) still holds the input to its place. */
static int add_copy_in(comp_t *c, size_t at, size_t n)
{
    const int nblocks = c->s->nblocks;
    c->merge0 = c->p->nops;
    for (int b = 0; b < nblocks && n > 0; b++) {
        if (!c->at_in[b]) {
            continue;
        }
        const size_t lo = c->off[b] > at ? c->off[b] : at;
        const size_t hi = c->off[b + 1] < at + n ? c->off[b + 1] : at + n;
        if (lo >= hi) {
            continue;
        }
        walk_t wk = {lo, hi, b};
        piece_t pc;
        while (next_piece(c, &wk, true, &pc)) {
            plan_op_t op = {
                .kind = OP_COPY, .wbuf = pc.wbuf, .sbuf = BUF_IN, .n = pc.n, .w = pc.w, .s = pc.s};
            int rc = add_copy(c, op);
            if (OMPI_SUCCESS != rc) {
                return rc;
            }
        }
    }
    return OMPI_SUCCESS;
}

/* A local copy whose source and destination do not overlap: straight from
 * each source piece to the destination pieces, no temporary. */
static int add_direct_copy(comp_t *c, const topo_xfer_t *t)
{
    const topo_range_t *r = c->s->ranges;
    int si = 0, di = 0;
    walk_t sw = walk_range(c, &r[t->src0]), dw = walk_range(c, &r[t->range0]);
    piece_t sp = {.n = 0}, dp = {.n = 0};
    for (;;) {
        while (0 == sp.n && !next_piece(c, &sw, true, &sp)) {
            if (++si >= t->nsrc) {
                break;
            }
            sw = walk_range(c, &r[t->src0 + si]);
        }
        while (0 == dp.n && !next_piece(c, &dw, false, &dp)) {
            if (++di >= t->nranges) {
                break;
            }
            dw = walk_range(c, &r[t->range0 + di]);
        }
        if (0 == sp.n || 0 == dp.n) {
            break; /* both are done: the transfer's sizes are equal */
        }
        const size_t k = sp.n < dp.n ? sp.n : dp.n;
        plan_op_t op = {.kind = OP_COPY,
                        .wbuf = dp.wbuf,
                        .sbuf = sp.in ? BUF_IN : sp.wbuf,
                        .n = k,
                        .w = dp.w,
                        .s = sp.in ? sp.s : sp.w};
        int rc = add_copy(c, op);
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
        sp.n -= k;
        sp.w += k;
        sp.s += k;
        dp.n -= k;
        dp.w += k;
    }
    for (int j = 0; j < t->nranges; j++) {
        written(c, &r[t->range0 + j]);
    }
    return OMPI_SUCCESS;
}

/* Does the step being compiled receive from `peer`? */
static bool receives_from(const comp_t *c, int peer)
{
    for (int i = 0; i < c->st->nxfers; i++) {
        const topo_xfer_t *t = &c->s->xfers[c->st->xfer0 + i];
        if (topo_pack_is_recv(t) && t->peer == peer) {
            return true;
        }
    }
    return false;
}

/* The messages of one transfer: one per segment (one empty message when n
 * is 0), from or into the temporary slot when tn > 0, else from or into
 * where its one range is. */
static int add_messages(comp_t *c, int kind, const topo_xfer_t *t, size_t n, size_t tn,
                        ptrdiff_t slot)
{
    const topo_range_t *r = &c->s->ranges[t->range0];
    piece_t pc = {.wbuf = BUF_TMP};
    if (0 == tn && n > 0) {
        (void)one_piece(c, r, OP_SEND == kind, &pc); /* one piece: xfer_tmp_elems */
        if (pc.in) {
            pc.wbuf = BUF_IN;
            pc.w = pc.s;
        }
    } else if (0 == tn) { /* an empty message: needs no work buffer */
        pc = (piece_t){.wbuf = BUF_NONE};
    }
    /* A send need not complete before the next step when no later step of
     * the lane writes its blocks and either
     * - its step receives nothing: a tree's parent then serves its
     *   children at once, as a tree of isends does; or
     * - it forwards (every block it sends arrived in an earlier step of
     *   the lane: last written before this step, not never) to a peer its
     *   step does not receive from: a rank of a
     *   pipeline (chain, double binary tree) or of a ring's allgather then
     *   moves on to its next segment or block when its own receive is
     *   done, not when its children or its right-hand neighbour have
     *   pulled the last one (a rendezvous send completes only then, and a
     *   step waiting for it ties every rank to the progress of the ranks
     *   after it).
     * An exchange (send and receive with one peer) keeps its blocking last
     * send (see run_single_lane), and so does a step that sends a rank's
     * own data while it receives (pairwise alltoall: one message in flight
     * per rank and step, its point against linear); a send through the
     * temporary storage completes in its step, its slot is reused. */
    bool defer =
        OP_SEND == kind && 0 == tn && (!c->step_recv || (n > 0 && !receives_from(c, t->peer)));
    for (int b = r->first; defer && b < r->first + r->count; b++) {
        defer = c->last_write[b] < c->step && (!c->step_recv || c->last_write[b] >= 0);
    }
    size_t done = 0;
    do {
        size_t len = n - done < c->seg_elems ? n - done : c->seg_elems;
        plan_op_t op = {.kind = (uint8_t)kind,
                        .defer = defer,
                        .wbuf = pc.wbuf,
                        .peer = t->peer,
                        .n = len,
                        .w = pc.w + done,
                        .tmp = slot + (ptrdiff_t)done * c->ext};
        int rc = add_op(c, op);
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
        c->p->ndefer += defer;
        done += len;
    } while (done < n);
    if (OP_RECV == kind && 0 == tn && TOPO_XFER_RECV_COPY == t->kind) {
        written(c, r); /* received in place (a reduction: when it is applied) */
    }
    return OMPI_SUCCESS;
}

/* Compile one step; *tmp_bytes gets the temporary storage it needs.  The
 * temporary layout: every transfer that needs one has a slot, in transfer
 * order. */
static int compile_step(comp_t *c, const topo_step_t *st, size_t *tmp_bytes)
{
    const topo_sched_t *s = c->s;
    mca_coll_topo_plan_t *p = c->p;
    plan_step_t ps = {.op0 = p->nops};
    int rc = OMPI_SUCCESS;

    /* as the blocks are at the start of the step */
    c->st = st;
    c->step_recv = false;
    for (int i = 0; i < st->nxfers; i++) {
        c->xn[i] = xfer_elems(c, &s->xfers[st->xfer0 + i]);
        c->tn[i] = xfer_tmp_elems(c, st, &s->xfers[st->xfer0 + i], c->xn[i]);
        c->step_recv = c->step_recv || topo_pack_is_recv(&s->xfers[st->xfer0 + i]);
    }
    for (int phase = 0; phase < 4 && OMPI_SUCCESS == rc; phase++) {
        size_t pos = 0; /* bytes into the temporary storage */
        const int32_t before = p->nops;
        c->merge0 = p->nops;
        for (int i = 0; i < st->nxfers && OMPI_SUCCESS == rc; i++) {
            const topo_xfer_t *t = &s->xfers[st->xfer0 + i];
            const size_t tn = c->tn[i];
            const ptrdiff_t slot = (ptrdiff_t)pos - c->true_lb;
            pos += span_bytes(c, tn);
            const size_t n = c->xn[i];
            const bool moves = n > 0 || s->sync;
            switch (phase) {
            case 0: /* pack the sends of several ranges */
                if (TOPO_XFER_SEND == t->kind && tn > 0) {
                    rc = add_range_ops(c, OP_TO_TMP, t->range0, t->nranges, slot);
                }
                break;
            case 1: /* receives */
                if (topo_pack_is_recv(t) && moves) {
                    rc = add_messages(c, OP_RECV, t, n, tn, slot);
                }
                break;
            case 2: /* sends */
                if (TOPO_XFER_SEND == t->kind && moves) {
                    rc = add_messages(c, OP_SEND, t, n, tn, slot);
                }
                break;
            default: /* apply, in transfer order */
                if (topo_pack_is_recv(t) && tn > 0) {
                    int kind = OP_FROM_TMP;
                    if (TOPO_XFER_RECV_COPY != t->kind) {
                        if (0 == c->opclass) {
                            return OMPI_ERR_BAD_PARAM; /* a reduction without an operation */
                        }
                        kind = TOPO_XFER_RECV_REDUCE == t->kind || 2 == c->opclass ? OP_REDUCE
                                                                                   : OP_REDUCE_POST;
                    }
                    rc = add_range_ops(c, kind, t->range0, t->nranges, slot);
                } else if (topo_pack_is_recv(t) && TOPO_XFER_RECV_COPY != t->kind && n > 0) {
                    /* received in place (in_place_reduce): w = in (op) w */
                    piece_t pc;
                    const topo_range_t *rg = &s->ranges[t->range0];
                    (void)one_piece(c, rg, true, &pc);
                    rc = add_op(c, (plan_op_t){.kind = OP_REDUCE_FROM_IN,
                                               .wbuf = pc.wbuf,
                                               .sbuf = BUF_IN,
                                               .n = pc.n,
                                               .w = pc.w,
                                               .s = pc.s});
                    written(c, rg);
                } else if (TOPO_XFER_COPY == t->kind) {
                    size_t src = 0;
                    for (int r = 0; r < t->nsrc; r++) {
                        src += range_elems(c, &s->ranges[t->src0 + r]);
                    }
                    if (src != n) {
                        return OMPI_ERR_BAD_PARAM; /* blocks of unequal size: not uniform */
                    }
                    if (0 == tn) {
                        rc = add_direct_copy(c, t);
                        break;
                    }
                    rc = add_range_ops(c, OP_TO_TMP, t->src0, t->nsrc, slot);
                    if (OMPI_SUCCESS == rc) {
                        rc = add_range_ops(c, OP_FROM_TMP, t->range0, t->nranges, slot);
                    }
                }
                break;
            }
        }
        const int32_t added = p->nops - before;
        if (0 == phase) {
            ps.npack = added;
        } else if (3 == phase) {
            ps.napply = added;
            *tmp_bytes = pos;
        } else {
            ps.npost += added;
        }
    }
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    if (OMPI_SUCCESS != mca_coll_topo_grow((void **)&p->steps, &p->cap_steps,
                                           ((size_t)p->nsteps + 1) * sizeof(plan_step_t))) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    p->steps[p->nsteps++] = ps;
    return OMPI_SUCCESS;
}

static int compile_lanes(comp_t *c);

/* Does a send of one range take blocks of the input window together with
 * others (allgather by recursive doubling or Bruck: the own block and what
 * arrived)?  Each such send would be packed through temporary storage, the
 * window and the work buffer being two pieces; with the window copied in
 * first (the copy the tail makes otherwise, when the window is part of the
 * result) it is sent from the work buffer as it is. */
static bool sends_span_input(const comp_t *c)
{
    const topo_sched_t *s = c->s;
    const size_t keep_hi = c->win.keep_at + c->win.keep_n;
    if (c->win.in_at < c->win.keep_at || c->win.in_at + c->win.in_n > keep_hi) {
        return false; /* the copy in would be one more */
    }
    for (int i = 0; i < s->nxfers; i++) {
        const topo_xfer_t *t = &s->xfers[i];
        if (TOPO_XFER_SEND != t->kind || 1 != t->nranges) {
            continue;
        }
        const topo_range_t *r = &s->ranges[t->range0];
        bool in = false, other = false;
        for (int b = r->first; b < r->first + r->count; b++) {
            if (c->off[b + 1] > c->off[b]) {
                in = in || c->at_in[b];
                other = other || !c->at_in[b];
            }
        }
        if (in && other) {
            return true;
        }
    }
    return false;
}

/* The input window: which blocks start unwritten.  A window that does not
 * start and end at block boundaries, or that sends would take together
 * with other blocks (sends_span_input), is copied in whole first (head
 * operations), and no block reads it later. */
static int start_input(comp_t *c)
{
    const topo_sched_t *s = c->s;
    const size_t lo = c->win.in_at, hi = c->win.in_at + c->win.in_n;
    bool aligned = true;
    memset(c->at_in, 0, (size_t)s->nblocks);
    if (0 == c->win.in_n) {
        return OMPI_SUCCESS;
    }
    for (int b = 0; b < s->nblocks; b++) {
        const size_t b0 = c->off[b], b1 = c->off[b + 1];
        if (b1 > b0 && b0 >= lo && b1 <= hi) {
            c->at_in[b] = 1;
        } else if (b1 > b0 && b0 < hi && b1 > lo) {
            aligned = false; /* straddles a boundary of the window */
        }
    }
    if (aligned && !sends_span_input(c)) {
        return OMPI_SUCCESS;
    }
    /* copy it all in: every block that touches the window holds input */
    for (int b = 0; b < s->nblocks; b++) {
        c->at_in[b] = c->off[b + 1] > lo && c->off[b] < hi;
    }
    int rc = add_copy_in(c, lo, c->win.in_n);
    memset(c->at_in, 0, (size_t)s->nblocks);
    return rc;
}

/* Room in plan p for `nlanes` lanes: lane_tmp (size_t) first, then
 * lane_step0, in one allocation. */
static int plan_lanes(mca_coll_topo_plan_t *p, int nlanes)
{
    const size_t nl = (size_t)nlanes;
    if (OMPI_SUCCESS != mca_coll_topo_grow((void **)&p->lane_tmp, &p->cap_lanes,
                                           (nl + 1) * sizeof(int32_t) + nl * sizeof(size_t))) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    p->lane_step0 = (int32_t *)(p->lane_tmp + nl);
    p->nlanes = nlanes;
    return OMPI_SUCCESS;
}

/* Compile schedule `s` into plan `p` for the call's layout `off`.  On
 * error the plan is left invalid. */
static int compile(comp_t *c)
{
    mca_coll_topo_plan_t *p = c->p;
    const topo_sched_t *s = c->s;
    int rc;

    p->sched = -1;
    p->nsteps = 0;
    p->nops = 0;
    p->max_posts = 0;
    if (OMPI_SUCCESS != plan_lanes(p, s->nlanes)) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    int maxx = 1;
    for (int i = 0; i < s->nsteps; i++) {
        maxx = s->steps[i].nxfers > maxx ? s->steps[i].nxfers : maxx;
    }
    p->ndefer = 0;
    /* the scratch, in the module's buffer: tn, xn, last_write, at_in */
    const size_t nb = (size_t)s->nblocks + 1;
    const size_t tn_bytes = 2 * (size_t)maxx * sizeof(size_t), lw_bytes = nb * sizeof(int32_t);
    if (OMPI_SUCCESS !=
        mca_coll_topo_grow(&c->e->comp, &c->e->cap_comp, tn_bytes + lw_bytes + nb)) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    c->tn = (size_t *)c->e->comp;
    c->xn = c->tn + maxx;
    c->last_write = (int32_t *)((char *)c->e->comp + tn_bytes);
    c->at_in = (uint8_t *)((char *)c->e->comp + tn_bytes + lw_bytes);
    rc = start_input(c);
    p->nhead = p->nops;
    if (OMPI_SUCCESS == rc) {
        rc = compile_lanes(c);
    }
    p->tail0 = p->nops;
    if (OMPI_SUCCESS == rc) {
        rc = add_copy_in(c, c->win.keep_at, c->win.keep_n);
    }
    c->at_in = NULL;
    c->tn = NULL;
    c->xn = NULL;
    c->last_write = NULL;
    p->uses_work = false;
    for (int i = 0; i < p->nops; i++) {
        const plan_op_t *o = &p->ops[i];
        p->uses_work =
            p->uses_work || BUF_WORK == o->wbuf || (OP_REDUCE_IN <= o->kind && BUF_WORK == o->sbuf);
    }
    return rc;
}

/* The lanes' steps of compile(). */
static int compile_lanes(comp_t *c)
{
    mca_coll_topo_plan_t *p = c->p;
    const topo_sched_t *s = c->s;
    for (int l = 0; l < s->nlanes; l++) {
        const topo_lane_t *ln = &s->lanes[l];
        size_t lane_posts = 0;
        p->lane_step0[l] = p->nsteps;
        p->lane_tmp[l] = 0;
        for (int b = 0; b < s->nblocks; b++) {
            c->last_write[b] = -1;
        }
        for (int i = 0; i < ln->nsteps; i++) {
            const topo_step_t *st = topo_sched_explicit_step(s, l, i);
            for (int x = 0; x < st->nxfers; x++) {
                const topo_xfer_t *t = &s->xfers[st->xfer0 + x];
                for (int j = 0; j < t->nranges && TOPO_XFER_SEND != t->kind; j++) {
                    const topo_range_t *r = &s->ranges[t->range0 + j];
                    for (int b = r->first; b < r->first + r->count; b++) {
                        c->last_write[b] = i;
                    }
                }
            }
        }
        for (int i = 0; i < ln->nsteps; i++) {
            size_t bytes = 0;
            c->step = i;
            int rc = compile_step(c, topo_sched_explicit_step(s, l, i), &bytes);
            if (OMPI_SUCCESS != rc) {
                return rc;
            }
            const plan_step_t *ps = &p->steps[p->nsteps - 1];
            p->lane_tmp[l] = bytes > p->lane_tmp[l] ? bytes : p->lane_tmp[l];
            lane_posts = (size_t)ps->npost > lane_posts ? (size_t)ps->npost : lane_posts;
        }
        p->max_posts += lane_posts;
    }
    p->lane_step0[s->nlanes] = p->nsteps;
    return OMPI_SUCCESS;
}

void mca_coll_topo_plan_free(mca_coll_topo_plan_t *p)
{
    if (NULL != p) {
        free(p->lane_tmp);
        free(p->units);
        free(p->steps);
        free(p->ops);
        free(p);
    }
}

void mca_coll_topo_plan_invalidate(mca_coll_topo_plan_t *p)
{
    p->sched = -1;
}

size_t mca_coll_topo_plan_bytes(const mca_coll_topo_plan_t *p)
{
    return NULL == p ? 0 : sizeof(*p) + p->cap_units + p->cap_lanes + p->cap_steps + p->cap_ops;
}

void mca_coll_topo_plans_free(mca_coll_topo_exec_t *e)
{
    for (int i = 0; i < COLL_TOPO_NPLANS; i++) {
        mca_coll_topo_plan_free(e->plans[i]);
        e->plans[i] = NULL;
    }
}

/* Was p compiled for this call's schedule, count, units and layout? */
static bool plan_fits(const mca_coll_topo_plan_t *p, int sched, size_t count, const size_t *units,
                      int nunits, const comp_t *c)
{
    return NULL != p && p->sched == sched && p->count == count && p->ext == c->ext &&
           p->true_lb == c->true_lb && p->true_ext == c->true_ext &&
           p->seg_elems == c->seg_elems && p->opclass == c->opclass && p->nunits == nunits &&
           0 == memcmp(&p->win, &c->win, sizeof(p->win)) &&
           (0 == nunits || 0 == memcmp(p->units, units, (size_t)nunits * sizeof(size_t)));
}

/* Does the operation address the lane's temporary storage (its `tmp`)? */
static inline bool uses_tmp(const plan_op_t *o)
{
    return OP_RECV == o->kind || OP_SEND == o->kind ? BUF_TMP == o->wbuf : o->kind < OP_COPY;
}

/* Windows of the whole vector or absent, scaled from count c0 to c1: does
 * window (a0, n0) of a call of c0 elements correspond to (a1, n1) of c1? */
static inline bool whole_or_none(size_t a0, size_t n0, size_t c0, size_t a1, size_t n1, size_t c1)
{
    return 0 == a0 && 0 == a1 && ((0 == n0 && 0 == n1) || (c0 == n0 && c1 == n1));
}

/* Derive the plan of `count` elements (into c->p) from q, another count's
 * plan of the same schedule (index `sched`) and layout, without compiling.
 * A schedule of one block that every transfer moves whole (binomial trees,
 * recursive doubling) has the same operations at every count when both
 * counts are above 0 and fit one segment and the windows are the whole
 * vector or absent: only the element counts (the whole vector) and the
 * temporary slots (whole vectors side by side) scale.  A call cycling
 * through more counts than the memo holds pays this instead of a
 * compilation.  False, with p left invalid, when p must be compiled;
 * coll_topo_check_plans compiles it too and compares. */
static bool derive_plan(comp_t *c, const mca_coll_topo_plan_t *q, int sched, size_t count)
{
    const topo_sched_t *s = c->s;
    mca_coll_topo_plan_t *p = c->p;
    if (NULL == q || q == p || q->sched != sched) {
        return false;
    }
    const size_t c0 = q->count;
    if (1 != s->nblocks || 0 == c0 || 0 == count || c0 > c->seg_elems || count > c->seg_elems ||
        0 != q->nunits || q->ext != c->ext || q->true_lb != c->true_lb ||
        q->true_ext != c->true_ext || q->seg_elems != c->seg_elems || q->opclass != c->opclass ||
        !whole_or_none(q->win.in_at, q->win.in_n, c0, c->win.in_at, c->win.in_n, count) ||
        !whole_or_none(q->win.out_at, q->win.out_n, c0, c->win.out_at, c->win.out_n, count) ||
        !whole_or_none(q->win.keep_at, q->win.keep_n, c0, c->win.keep_at, c->win.keep_n, count)) {
        return false;
    }
    for (int i = 0; i < s->nxfers; i++) {
        if (1 != s->xfers[i].nranges || s->xfers[i].nsrc > 1) {
            return false; /* slots would not be whole vectors apart */
        }
    }
    const size_t span0 = span_bytes(c, c0), span1 = span_bytes(c, count);
    const size_t nl = (size_t)q->nlanes;
    p->sched = -1;
    if (OMPI_SUCCESS != plan_lanes(p, q->nlanes) ||
        OMPI_SUCCESS != mca_coll_topo_grow((void **)&p->steps, &p->cap_steps,
                                           (size_t)q->nsteps * sizeof(plan_step_t)) ||
        OMPI_SUCCESS != mca_coll_topo_grow((void **)&p->ops, &p->cap_ops,
                                           (size_t)q->nops * sizeof(plan_op_t))) {
        return false;
    }
    for (int i = 0; i < q->nops; i++) {
        plan_op_t o = q->ops[i];
        const ptrdiff_t at = o.tmp + c->true_lb; /* a slot's start: k whole vectors in */
        if (0 != o.w || 0 != o.s || (o.n != c0 && 0 != o.n)) {
            return false;
        }
        if (uses_tmp(&o)) {
            if (at < 0 || 0 != (size_t)at % span0) {
                return false;
            }
            o.tmp = (ptrdiff_t)((size_t)at / span0 * span1) - c->true_lb;
        }
        o.n = 0 == o.n ? 0 : count;
        p->ops[i] = o;
    }
    for (size_t l = 0; l < nl; l++) {
        if (0 != q->lane_tmp[l] % span0) {
            return false;
        }
        p->lane_tmp[l] = q->lane_tmp[l] / span0 * span1;
    }
    memcpy(p->lane_step0, q->lane_step0, (nl + 1) * sizeof(int32_t));
    memcpy(p->steps, q->steps, (size_t)q->nsteps * sizeof(plan_step_t));
    p->nsteps = q->nsteps;
    p->nops = q->nops;
    p->max_posts = q->max_posts;
    p->uses_work = q->uses_work;
    p->ndefer = q->ndefer;
    p->nhead = q->nhead;
    p->tail0 = q->tail0;
    return true;
}

/* coll_topo_check_plans: are plans a (derived) and b (compiled) the same? */
static bool same_plan(const mca_coll_topo_plan_t *a, const mca_coll_topo_plan_t *b)
{
    if (a->nlanes != b->nlanes || a->nsteps != b->nsteps || a->nops != b->nops ||
        a->max_posts != b->max_posts || a->uses_work != b->uses_work || a->ndefer != b->ndefer ||
        a->nhead != b->nhead || a->tail0 != b->tail0 ||
        0 != memcmp(a->lane_step0, b->lane_step0, ((size_t)a->nlanes + 1) * sizeof(int32_t)) ||
        0 != memcmp(a->lane_tmp, b->lane_tmp, (size_t)a->nlanes * sizeof(size_t)) ||
        0 != memcmp(a->steps, b->steps, (size_t)a->nsteps * sizeof(plan_step_t))) {
        return false;
    }
    for (int i = 0; i < a->nops; i++) {
        const plan_op_t *x = &a->ops[i], *y = &b->ops[i];
        if (x->kind != y->kind || x->wbuf != y->wbuf || x->sbuf != y->sbuf ||
            x->defer != y->defer || x->peer != y->peer || x->n != y->n || x->w != y->w ||
            x->s != y->s || (uses_tmp(x) && x->tmp != y->tmp)) {
            return false;
        }
    }
    return true;
}

/* coll_topo_check_plans: compile what derive_plan derived for `count`
 * elements from a plan of `c0`, and compare. */
static int check_derived(comp_t *c, size_t c0, size_t count)
{
    mca_coll_topo_plan_t *derived = c->p, *fresh = calloc(1, sizeof(*fresh));
    if (NULL == fresh) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    c->p = fresh;
    int rc = compile(c);
    c->p = derived;
    if (OMPI_SUCCESS == rc && !same_plan(derived, fresh)) {
        opal_output(0,
                    "coll:topo: coll_topo_check_plans: the plan derived for %zu elements from "
                    "the plan of %zu (%d operations) differs from the one compiled for them "
                    "(%d operations)",
                    count, c0, derived->nops, fresh->nops);
        rc = OMPI_ERROR;
    }
    mca_coll_topo_plan_free(fresh);
    return rc;
}

/* Do the plan's lanes mirror each other: as many steps each, and at each
 * step as many messages and as many elements within 1/16 (uneven blocks)?
 * Then running them in lockstep costs nothing against running them on
 * their own, where the cost model prices them alike (it pairs the lanes'
 * steps of one index), and keeps a lane that runs ahead from sharing a
 * port with another's step while a port of its own waits. */
static bool lanes_mirror(const mca_coll_topo_plan_t *p)
{
    if (p->nlanes < 2) {
        return false;
    }
    const int32_t n0 = p->lane_step0[1] - p->lane_step0[0];
    for (int l = 1; l < p->nlanes; l++) {
        if (p->lane_step0[l + 1] - p->lane_step0[l] != n0) {
            return false;
        }
    }
    for (int32_t k = 0; k < n0; k++) {
        size_t lo = SIZE_MAX, hi = 0;
        const int32_t posts = p->steps[p->lane_step0[0] + k].npost;
        for (int l = 0; l < p->nlanes; l++) {
            const plan_step_t *ps = &p->steps[p->lane_step0[l] + k];
            if (ps->npost != posts) {
                return false;
            }
            size_t n = 0;
            for (int32_t i = 0; i < ps->npost; i++) {
                n += p->ops[ps->op0 + ps->npack + i].n;
            }
            lo = n < lo ? n : lo;
            hi = n > hi ? n : hi;
        }
        if (hi - lo > hi / 16) {
            return false;
        }
    }
    return true;
}

/* The plan of this call: a kept one compiled for the same schedule, count,
 * units and layout (the schedule's own, the memo entry's own (ref->own), or
 * one of plans[]), or a new one: the schedule's own if it has none yet,
 * else the memo entry's own if it has none yet and the memo's plans are
 * within their budget, else the next of plans[] in turn. */
static int get_plan(mca_coll_topo_module_t *m, const topo_sched_t *s, size_t count,
                    const size_t *units, comp_t *c, mca_coll_topo_plan_ref_t *ref,
                    const mca_coll_topo_plan_t **out)
{
    const int sched = mca_coll_topo_sched_index(m, s);
    const int nunits = NULL != units ? topo_sched_units(s) : 0;
    const size_t units_bytes = (size_t)nunits * sizeof(size_t);
    mca_coll_topo_plan_t **own = &m->scheds[sched].plan;
    if (plan_fits(*own, sched, count, units, nunits, c)) {
        *out = *own;
        return OMPI_SUCCESS;
    }
    if (NULL != ref && plan_fits(ref->own, sched, count, units, nunits, c)) {
        *out = ref->own;
        return OMPI_SUCCESS;
    }
    /* A memo entry's first plan is compiled into the entry without looking
     * through plans[], which hold the plans of calls whose memo entry was
     * over budget or had its own plan for other windows (MPI_IN_PLACE by
     * turns): seldom this call's, and 32 plans to look at on every call of
     * an application cycling through more calls than the memo holds. */
    const bool into_memo =
        NULL != *own && (*own)->sched >= 0 && NULL != ref &&
        (NULL != ref->own ? ref->own->sched < 0 : m->memo_plan_bytes < COLL_TOPO_MEMO_PLAN_BYTES);
    for (int i = 0; !into_memo && i < COLL_TOPO_NPLANS; i++) {
        if (plan_fits(m->exec.plans[i], sched, count, units, nunits, c)) {
            *out = m->exec.plans[i];
            return OMPI_SUCCESS;
        }
    }
    mca_coll_topo_plan_t **slot = own;
    bool memo_plan = false;
    size_t memo_bytes = 0; /* what the memo entry's plan held before */
    if (NULL != *own && (*own)->sched >= 0) {
        if (into_memo) {
            /* compiled once for this memo entry's call (into the plan of
             * the entry it replaced, if any) */
            slot = &ref->own;
            memo_plan = true;
            memo_bytes = mca_coll_topo_plan_bytes(ref->own);
        } else { /* recompile plans[] in turn */
            slot = &m->exec.plans[m->exec.plan_next];
            m->exec.plan_next = (m->exec.plan_next + 1) % COLL_TOPO_NPLANS;
        }
    }
    size_t cap = m->exec.cap_off * sizeof(size_t);
    if (OMPI_SUCCESS !=
        mca_coll_topo_grow((void **)&m->exec.off, &cap, ((size_t)s->nblocks + 1) * sizeof(size_t))) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    m->exec.cap_off = cap / sizeof(size_t);
    if (NULL == *slot) {
        *slot = calloc(1, sizeof(mca_coll_topo_plan_t));
        if (NULL == *slot) {
            return OMPI_ERR_OUT_OF_RESOURCE;
        }
    }
    mca_coll_topo_plan_t *p = *slot;
    topo_block_layout(s, count, units, m->exec.off);
    c->p = p;
    c->s = s;
    c->off = m->exec.off;
    /* compiled from the explicit form: the plan holds every step */
    topo_sched_t ex;
    const bool expanded = topo_sched_compact(s);
    if (expanded) {
        if (TOPO_OK != topo_sched_expand(s, &ex)) {
            topo_sched_free(&ex);
            return OMPI_ERR_OUT_OF_RESOURCE;
        }
        c->s = &ex;
    }
    p->gen = ++m->exec.plan_gen;
    if (0 == p->gen) {
        p->gen = ++m->exec.plan_gen; /* 0 is no plan's generation */
    }
    /* derived from the schedule's own plan, or else from the plan the
     * memo entry had (when the schedule's own has other windows) */
    const mca_coll_topo_plan_t *from = *own;
    bool derived = 0 == nunits && derive_plan(c, from, sched, count);
    if (!derived && 0 == nunits && NULL != ref) {
        from = ref->own;
        derived = derive_plan(c, from, sched, count);
    }
    int rc;
    if (derived) {
        m->exec.plans_derived++;
        rc = mca_coll_topo_component.check_plans ? check_derived(c, from->count, count)
                                                 : OMPI_SUCCESS;
    } else {
        m->exec.plans_compiled++;
        rc = compile(c);
    }
    if (expanded) {
        topo_sched_free(&ex);
        c->s = s;
    }
    if (OMPI_SUCCESS == rc && nunits > 0 &&
        OMPI_SUCCESS != mca_coll_topo_grow((void **)&p->units, &p->cap_units, units_bytes)) {
        rc = OMPI_ERR_OUT_OF_RESOURCE;
    }
    if (memo_plan) {
        /* a memo entry's plan grows only here (mca_coll_topo_memo_forget
         * takes its bytes back) */
        m->memo_plan_bytes += mca_coll_topo_plan_bytes(p) - memo_bytes;
    }
    if (OMPI_SUCCESS != rc) {
        return rc; /* the plan stays invalid (sched < 0) */
    }
    if (nunits > 0) {
        memcpy(p->units, units, units_bytes);
    }
    p->nunits = nunits;
    p->sched = sched;
    p->count = count;
    p->ext = c->ext;
    p->true_lb = c->true_lb;
    p->true_ext = c->true_ext;
    p->seg_elems = c->seg_elems;
    p->opclass = c->opclass;
    p->lockstep = COLL_TOPO_LANE_SYNC_ALL == mca_coll_topo_component.lane_sync
                      ? p->nlanes > 1
                      : COLL_TOPO_LANE_SYNC_MIRROR == mca_coll_topo_component.lane_sync &&
                            lanes_mirror(p);
    p->win = c->win;
    p->big = false;
    for (int l = 0; l < p->nlanes; l++) {
        p->big = p->big || p->lane_tmp[l] > mca_coll_topo_component.scratch_keep;
    }
    *out = p;
    return OMPI_SUCCESS;
}

int mca_coll_topo_plan_find(mca_coll_topo_module_t *m, const topo_sched_t *s, size_t count,
                            const size_t *units, struct ompi_datatype_t *dt,
                            struct ompi_op_t *op, const mca_coll_topo_windows_t *win,
                            mca_coll_topo_plan_ref_t *ref, const mca_coll_topo_plan_t **out)
{
    ptrdiff_t lb, ext, true_lb, true_ext;
    size_t esize;

    *out = NULL;
    if (s->nlanes > COLL_TOPO_MAX_LANES) {
        return OMPI_ERR_NOT_SUPPORTED;
    }
    ompi_datatype_get_extent(dt, &lb, &ext);
    ompi_datatype_get_true_extent(dt, &true_lb, &true_ext);
    ompi_datatype_type_size(dt, &esize);
    if (ext <= 0 || true_ext <= 0 || 0 == esize) {
        return 0 == count ? OMPI_SUCCESS : OMPI_ERR_NOT_SUPPORTED;
    }
    /* a wide schedule's messages overlap their rendezvous: split at
     * coll_topo_segment_size, not at the eager payload that the model's
     * segment may be (topo_sched_t.wide); where no eager payload replaced
     * it the two are the same */
    const size_t seg = s->wide ? mca_coll_topo_component.segment_size : m->model.segment;
    comp_t c = {
        .e = &m->exec,
        .ext = ext,
        .true_lb = true_lb,
        .true_ext = true_ext,
        .seg_elems = 0 == seg ? SIZE_MAX : (seg / esize > 0 ? seg / esize : 1),
        .opclass = NULL == op ? 0 : (ompi_op_is_commute(op) ? 2 : 1),
        .win = *win,
    };
    return get_plan(m, s, count, units, &c, ref, out);
}

/* A copy of n bytes at src in a new allocation (NULL src or n 0: NULL). */
static bool dup_bytes(void **dst, const void *src, size_t n)
{
    *dst = NULL;
    if (NULL == src || 0 == n) {
        return true;
    }
    *dst = malloc(n);
    if (NULL != *dst) {
        memcpy(*dst, src, n);
    }
    return NULL != *dst;
}

mca_coll_topo_plan_t *mca_coll_topo_plan_dup(const mca_coll_topo_plan_t *p)
{
    mca_coll_topo_plan_t *q = malloc(sizeof(*q));
    if (NULL == q) {
        return NULL;
    }
    *q = *p;
    const size_t nl = (size_t)p->nlanes;
    q->cap_lanes = (nl + 1) * sizeof(int32_t) + nl * sizeof(size_t);
    q->cap_units = (size_t)p->nunits * sizeof(size_t);
    q->cap_steps = (size_t)p->nsteps * sizeof(plan_step_t);
    q->cap_ops = (size_t)p->nops * sizeof(plan_op_t);
    /* lane_tmp holds lane_step0 after its nlanes entries (plan_lanes) */
    bool ok = dup_bytes((void **)&q->lane_tmp, p->lane_tmp, q->cap_lanes);
    q->lane_step0 = NULL != q->lane_tmp ? (int32_t *)(q->lane_tmp + nl) : NULL;
    ok = dup_bytes((void **)&q->units, p->units, q->cap_units) && ok;
    ok = dup_bytes((void **)&q->steps, p->steps, q->cap_steps) && ok;
    ok = dup_bytes((void **)&q->ops, p->ops, q->cap_ops) && ok;
    if (!ok) {
        mca_coll_topo_plan_free(q);
        return NULL;
    }
    return q;
}
