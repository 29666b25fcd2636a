/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The schedule: the one representation of a collective algorithm.
 *
 * A generator emits, for one rank of a communicator, the schedule that rank
 * runs.  The executor runs it over the PML, the verifier executes the
 * schedules of all ranks symbolically, and the cost model prices them.
 *
 * Data model.  The data a rank works on is a single contiguous work buffer
 * divided into `nblocks` blocks, in block order.  How many elements each
 * block holds is decided by the caller (the MPI glue) from the call's count,
 * so one schedule serves every count, including 0 and counts smaller than
 * the number of blocks (blocks may then be empty; empty transfers are skipped
 * by both ends identically).  For primitives whose data belongs to ranks
 * (reduce-scatter, allgather, alltoall) block b belongs to unit
 * b / nparts: unit u is rank u's segment, cut into nparts parts.
 *
 * Structure.  A schedule has one or more lanes.  A lane is a sequence of
 * steps that runs independently of the other lanes (multiport algorithms run
 * one lane per port group); lanes touch disjoint blocks.  A step is a set of
 * transfers that are all posted at once: sends read the block contents as
 * they were at the start of the step, receives are applied after every
 * transfer of the step has completed, in transfer order (so the result is
 * bitwise reproducible); a local copy is applied at its turn in that order,
 * reading its sources as they are then (as if through a temporary).  Every rank has the same number of lanes and, per
 * lane, the same number of steps (idle ranks have empty steps); a message
 * sent in step s of lane l is received in step s of lane l.
 *
 * MPI-free: this header is plain C11 so the core is unit-tested and reused
 * by tools without MPI.
 */
#ifndef TOPO_SCHEDULE_H
#define TOPO_SCHEDULE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The primitives.  The order is used for tables indexed by primitive. */
typedef enum {
    TOPO_PRIM_ALLREDUCE = 0,
    TOPO_PRIM_REDUCE_SCATTER,
    TOPO_PRIM_ALLGATHER,
    TOPO_PRIM_BCAST,
    TOPO_PRIM_REDUCE,
    TOPO_PRIM_ALLTOALL,
    TOPO_PRIM_BARRIER,
    TOPO_PRIM_COUNT
} topo_prim_t;

const char *topo_prim_name(topo_prim_t prim);
/* The primitive whose name (as topo_prim_name spells it) is the n
 * characters at `s`, or -1. */
int topo_prim_find(const char *s, size_t n);
/* Parse a comma-separated list of primitive names (as topo_prim_name
 * spells them; blanks around a name are allowed) into a set, bit
 * (1u << prim) per primitive; "none" or an empty string is the empty set.
 * Returns TOPO_OK, or TOPO_EINVAL with a one-line reason (*set untouched). */
int topo_prim_set_parse(const char *str, unsigned *set, char *err, size_t errlen);

/* What a transfer does. */
typedef enum {
    TOPO_XFER_SEND = 0,         /* send the blocks to peer */
    TOPO_XFER_RECV_COPY,        /* receive, overwrite the local blocks */
    TOPO_XFER_RECV_REDUCE,      /* receive, local = incoming (op) local:
                                   the incoming data covers lower ranks */
    TOPO_XFER_RECV_REDUCE_POST, /* receive, local = local (op) incoming:
                                   the incoming data covers higher ranks */
    TOPO_XFER_COPY,             /* local copy inside the work buffer: the
                                   ranges of `src` are copied, in order, onto
                                   the ranges of the transfer (same total
                                   block count; the blocks must be equal-sized,
                                   see topo_sched_t.uniform) */
    /* stored only, never a transfer a reader sees: the last entry of a
     * step whose group of transfers repeats within it
     * (topo_sched_repeat_xfers; see Storage) */
    TOPO_XFER_REPEAT
} topo_xfer_kind_t;

/* A contiguous run of blocks [first, first + count). */
typedef struct {
    int32_t first;
    int32_t count;
} topo_range_t;

/* A strided run: `reps` copies of the range {first, count}, copy i at
 * first + i * stride (reps 1: the range alone).  How topo_sched_t.ranges
 * stores the ranges of a send or receive (see Storage). */
typedef struct {
    int32_t first;
    int32_t count;
    int32_t stride;
    int32_t reps;
} topo_run_t;

/* The count of a group run's first entry, and how deep group runs nest
 * (see Storage). */
#define TOPO_RUN_GROUP (-1)
#define TOPO_RUN_DEPTH 8

typedef struct {
    int32_t peer;    /* communicator rank; own rank for TOPO_XFER_COPY */
    uint8_t kind;    /* topo_xfer_kind_t */
    uint8_t direct;  /* set by topo_sched_finish: a RECV_COPY whose single
                        range no send or other receive of the step touches,
                        so it can be received in place */
    int32_t range0;  /* first entry in topo_sched_t.ranges */
    int32_t nranges; /* entries from range0 (the ranges of the blocks, in
                        wire order; stored as runs, see Storage: a strided
                        run takes two entries, so in the explicit form
                        this is the number of ranges) */
    int32_t nblk;    /* total blocks over the ranges (derived) */
    int32_t src0;    /* TOPO_XFER_COPY: source ranges */
    int32_t nsrc;
} topo_xfer_t;

typedef struct {
    int32_t xfer0;
    int32_t nxfers; /* stored entries (a TOPO_XFER_REPEAT entry counted) */
} topo_step_t;

/* A run of a lane's logical steps over stored steps (topo_sched_t.segs):
 * logical steps [at, at + nsteps * reps) of the lane are the `nsteps`
 * stored steps from step0, run `reps` times; repetition j (0 = the stored
 * steps themselves) shifts each transfer by j times its topo_shift_t
 * (s->shifts[shift0 + i] for the i-th transfer of the stored steps). */
typedef struct {
    int32_t at;
    int32_t step0;
    int32_t nsteps;
    int32_t reps;
    int32_t shift0; /* reps > 1 only */
} topo_seg_t;

/* How a transfer moves from one repetition to the next (topo_sched_repeat):
 * its peer by dpeer (mod size); each block b of its ranges (and of a
 * copy's sources) by dblk within its window, one of the wtiles windows of
 * wlen blocks from wfirst on (w = wfirst + i wlen, i < wtiles):
 * b -> w + (b - w + dblk) mod wlen.  A range not wholly inside one window
 * starts dout blocks later and holds dcount blocks more (a relay's
 * shrinking tail: dout 1, dcount -1); one that a shift carries past its
 * window's end goes on at the window's start (two ranges: the repetitions
 * are then stored explicitly, topo_sched_repeat). */
typedef struct {
    int32_t dpeer;
    int32_t dblk;
    int32_t wfirst;
    int32_t wlen;
    int32_t wtiles;
    int32_t dout;
    int32_t dcount;
} topo_shift_t;

typedef struct {
    int32_t step0;  /* first stored step */
    int32_t nsteps; /* logical steps */
    int32_t seg0;   /* first segment (topo_sched_t.segs) */
    int32_t nsegs;
} topo_lane_t;

/*
 * Storage.  The arrays below are the STORED form: a lane's logical steps
 * are its segments, and a segment whose reps > 1 holds its steps once (the
 * template) for all its repetitions.  Read steps only through
 * topo_sched_step_at (or topo_sched_expand for the explicit form): indexing
 * steps/xfers/ranges directly misses the repetitions.  nsteps, nxfers and
 * nranges count stored entries; a lane's logical step count is
 * lanes[l].nsteps (topo_sched_depth: the longest).
 *
 * The ranges of a send or receive are stored as runs (topo_run_t): an
 * entry {first, count} (count >= 0) is a range; followed by an entry
 * {stride, -reps} (count < 0, reps >= 2) it is the strided run of reps
 * copies, the i-th at first + i * stride.  The runs stand for exactly the
 * ranges topo_sched_range's explicit emission would hold (merged where
 * adjacent), so a range that would merge with a run's last copy splits
 * that copy off.  A group run (topo_sched_group_begin/end) is a header of
 * two entries, {len, TOPO_RUN_GROUP} and {stride, reps} (reps >= 2), then
 * the `len` entries of its body (ranges, strided runs, groups nested at
 * most TOPO_RUN_DEPTH deep): the body's ranges, then the same again
 * `stride` blocks later, reps times in all; like a strided run it stands
 * for exactly the ranges the explicit emission holds (no two of its
 * copies' ranges, nor its first and the range before it, adjacent).
 * A copy's ranges and sources are plain entries.  Read the
 * ranges of a transfer through topo_range_iter / topo_range_next (or whole
 * runs, topo_run_next); the explicit form (topo_sched_expand) has no
 * strided or mapped entries, so there x->nranges entries are x's ranges.
 *
 * A send or receive may instead hold one mapped run (topo_sched_mapped):
 * single-block ranges at base + map_0[i_0] + ... + map_{n-1}[i_{n-1}] for
 * every tuple of positions (axis 0 outermost), each map a table of
 * values stored once in `ranges` (topo_sched_map) and shared by every
 * transfer that reads it.  Its entries: {base, TOPO_RUN_MAPPED - n}, then
 * per axis {v, count}, v the value index of its first position (value v
 * of the array is ranges[v / 2].first for even v, .count for odd).  A
 * map's own entries belong to no transfer: {values, the largest power of
 * two that divides them all (0: all zero)}, {least, greatest}, then the
 * values two to an entry.
 *
 * Transfers that repeat within a step (topo_sched_repeat_xfers: linear
 * alltoall's p - 1 exchanges) are stored once: the step's stored entries
 * end with a TOPO_XFER_REPEAT entry {peer: k, nblk: n, src0: shift0}
 * after the n transfers of the group; the step's logical transfers are its
 * stored ones, then copies 1..k of the group, copy j of its i-th transfer
 * shifted j times by s->shifts[shift0 + i].  Read a step's transfers only
 * through topo_step_xfer.
 */
typedef struct topo_sched {
    int32_t size;    /* communicator size */
    int32_t rank;    /* the rank this schedule is for */
    int32_t nblocks; /* blocks in the work buffer */
    int32_t nparts;  /* blocks per unit for rank-owned data (default 1) */
    uint8_t uniform; /* all blocks hold the same number of elements, so a
                        transfer may move block i into block j != i */
    int32_t mblocks; /* blocks that make up the payload M the cost model
                        prices against (default nblocks; alltoall: the send
                        region, size * nparts) */
    uint8_t sync;    /* the messages matter even when empty (barrier): the
                        executor sends zero-byte transfers instead of
                        skipping them */
    uint8_t wide;    /* a step posts a message to every other rank at once
                        (linear alltoall): their rendezvous round trips
                        overlap one another, so the executor does not split
                        them at the eager payload between hosts (it still
                        does at a coll_topo_segment_size that is set) */
    uint8_t runs;    /* builder: topo_sched_range stores equal ranges at
                        equal distances as one strided run (see Storage;
                        topo_sched_ranges always does); a generator that
                        repeats steps (topo_sched_repeat) leaves it 0 */
    int32_t nlanes, nsteps, nxfers, nranges, nsegs, nshifts;
    topo_lane_t *lanes;
    topo_step_t *steps;
    topo_xfer_t *xfers;
    topo_range_t *ranges;
    topo_seg_t *segs;
    topo_shift_t *shifts;
    /* builder state */
    int32_t cap_lanes, cap_steps, cap_xfers, cap_ranges, cap_segs, cap_shifts;
    uint8_t sealed; /* the last step is a repeat's: no transfer may join it */
    int err;        /* sticky: 0 or a TOPO_E* code from the builder */
    uint8_t mapped; /* the last transfer holds a mapped run: no range may
                       join it */
    /* builder state of the group runs (topo_sched_group_begin): the open
     * groups' header entries and their transfer's blocks before them; and
     * where the last entry ends a closed group (gclose == nranges), its
     * header and its last range as the explicit form holds it */
    int32_t gdepth;
    int32_t gmark[TOPO_RUN_DEPTH], gnblk[TOPO_RUN_DEPTH];
    int32_t gclose, gclose_hdr;
    topo_range_t glast;
} topo_sched_t;

/* Error codes of the core. */
enum {
    TOPO_OK = 0,
    TOPO_ENOMEM = -1,
    TOPO_EINVAL = -2,
    TOPO_ENOTSUP = -3
};

/* --- building (used by generators) ------------------------------------ */

/* Start an empty schedule for `rank` of `size` ranks over `nblocks` blocks. */
void topo_sched_init(topo_sched_t *s, int size, int rank, int nblocks);
void topo_sched_free(topo_sched_t *s);
/* Open a new lane; the following steps belong to it. */
void topo_sched_lane(topo_sched_t *s);
/* Open a new (possibly empty) step in the current lane. */
void topo_sched_step(topo_sched_t *s);
/* Add a transfer of one block range to the current step.  count may be 0
 * for a transfer that is only extended with topo_sched_range. */
void topo_sched_send(topo_sched_t *s, int peer, int first, int count);
void topo_sched_recv(topo_sched_t *s, int peer, topo_xfer_kind_t kind,
                     int first, int count);
/* Append another block range to the last transfer (wire order): merged
 * with the last one where adjacent, and with s->runs set joined to a
 * strided run of equal ranges at equal distances. */
void topo_sched_range(topo_sched_t *s, int first, int count);
/* Append `reps` ranges of `count` blocks to the last transfer, the i-th at
 * first + i * stride: the same as topo_sched_range for each in turn, in
 * O(1) where they form one strided run. */
void topo_sched_ranges(topo_sched_t *s, int first, int count, int stride, int reps);
/* The same on a ring of n blocks from `base`: copy i covers the blocks
 * base + ((first + i * stride + c) mod n), c < count (count <= n), as one
 * range, or two where it passes the ring's end; a strided run per stretch
 * between two passes. */
void topo_sched_ranges_mod(topo_sched_t *s, int base, int n, int first, int count, int stride,
                           int reps);
/* Groups of ranges.  topo_sched_group_begin opens a group in the last
 * transfer and returns its mark; the ranges appended after it (by any
 * of the calls above, and groups nested in it) are its body;
 * topo_sched_group_end(s, mark, stride, reps) closes it: the transfer
 * then holds the body's ranges, then the same `stride` blocks later,
 * reps times in all (0: none) -- exactly the ranges the calls would
 * have appended for each copy in turn.  Stored once as a group run (see
 * Storage) where that is exact; where the explicit form would merge a
 * copy's first range with the range before it or a copy's last with the
 * next copy's first, those copies are stored apart (a single range's
 * copies that meet merge into one).  Nested at most TOPO_RUN_DEPTH deep
 * (TOPO_EINVAL beyond); every open group must be closed, innermost first,
 * before the next transfer. */
int32_t topo_sched_group_begin(topo_sched_t *s);
void topo_sched_group_end(topo_sched_t *s, int32_t mark, int stride, int reps);
/* Local copy of `count` blocks from `src_first` to `dst_first`. */
void topo_sched_copy(topo_sched_t *s, int src_first, int dst_first, int count);
/* A map for mapped runs: the n values val[0..n) (each >= 0) stored once
 * in s->ranges; returns its id for topo_map_axis_t.map, or -1 (s->err
 * set). */
int32_t topo_sched_map(topo_sched_t *s, const int *val, int n);
/* One axis of a mapped run: positions [first, first + count) of map `map`
 * (topo_sched_map's id). */
typedef struct {
    int32_t map, first, count;
} topo_map_axis_t;
/* Append to the last transfer (a send or receive) the blocks
 * base + sum_a map_a[first_a + i_a] for every tuple i (i_a < count_a, axis
 * 0 outermost), each a one-block range: the same as topo_sched_range(b, 1)
 * for each in turn.  Stored as one mapped run (see Storage) where the
 * transfer has no ranges yet, s->runs is 0, the run holds two blocks or
 * more, no two of its blocks can be adjacent (the values of its maps are
 * all even, or all zero: so the explicit form would merge none)
 * and every block is inside the blocks by the maps' least and greatest
 * values; otherwise emitted range by range.  After a mapped run no range
 * may join its transfer, and a transfer holding one may not be in the
 * template of topo_sched_repeat nor the group of topo_sched_repeat_xfers
 * (TOPO_EINVAL).  nax <= TOPO_MAP_AXES. */
#define TOPO_MAP_AXES 8
void topo_sched_mapped(topo_sched_t *s, int32_t base, int nax, const topo_map_axis_t *ax);
/* `n` empty steps in the current lane (stored as one, repeated). */
void topo_sched_idle(topo_sched_t *s, int n);
/* The compact form.  The last `nsteps` steps of the current lane (its
 * template, which must hold `nshift` transfers in all) run `k` more times:
 * repetition j (1..k) is the template with its i-th transfer shifted j
 * times by shift[i] (topo_shift_t).  The logical steps are those of the
 * explicit emission of the same steps (topo_sched_range's merging
 * included); they are stored once when every repetition keeps each range
 * whole inside its window (or, outside the windows, non-empty inside the
 * blocks), keeps the peers valid, keeps the ranges apart
 * that the explicit form would not merge and the receives' `direct` as the
 * template's, and the template has at most TOPO_VIEW_XFERS transfers and
 * TOPO_VIEW_RANGES ranges per step; otherwise the repetitions are stored
 * explicitly.  k = 0 or nsteps = 0 adds nothing.  No transfer may be added
 * to the template's steps afterwards (the next step opens a new one). */
void topo_sched_repeat(topo_sched_t *s, int nsteps, int k, const topo_shift_t *shift, int nshift);
/* The last `n` transfers of the current step (its group: sends and
 * receives of at most TOPO_VIEW_GROUP_RANGES plain ranges each) run `k`
 * more times in the same step: copy j (1..k) is the group with its i-th
 * transfer shifted j times by shift[i] (topo_shift_t), appended in order.
 * The logical transfers are those of the explicit emission of the copies;
 * they are stored once (see Storage) when every copy keeps each range
 * whole inside its window, keeps its peer off the rank, keeps its ranges
 * apart that the explicit form would not merge, and keeps each receive's
 * `direct` as the group's; otherwise the copies are stored explicitly.
 * k = 0 or n = 0 adds nothing.  The step is closed afterwards (the next
 * transfer needs a new step), and a step holding a stored group may not be
 * the template of topo_sched_repeat (TOPO_EINVAL). */
void topo_sched_repeat_xfers(topo_sched_t *s, int n, int k, const topo_shift_t *shift);
/* Validate the structure and derive the per-transfer fields.  Returns
 * TOPO_OK or the first error (builder errors are sticky). */
int topo_sched_finish(topo_sched_t *s);

/* --- reading ----------------------------------------------------------- */

/* The most transfers and ranges a stored template step may have, and the
 * most ranges a transfer of a group repeated within a step may have. */
#define TOPO_VIEW_XFERS 8
#define TOPO_VIEW_RANGES 1024
#define TOPO_VIEW_GROUP_RANGES 16

/* One logical step as it runs: its nxfers transfers, read through
 * topo_step_xfer.  Filled by topo_sched_step_at; it may point into its own
 * buffers, so it is not copied by value. */
typedef struct {
    int32_t nxfers;  /* logical transfers */
    int32_t nstored; /* xfers[0..nstored): the stored ones, their range0
                        and src0 indexing `ranges`; the rest copies of the
                        group xfers[gfirst..nstored) */
    const topo_xfer_t *xfers;
    const topo_range_t *ranges;
    int32_t gfirst, size;
    const topo_shift_t *gshift; /* the group's shifts */
    topo_xfer_t xone;           /* the copy topo_step_xfer made last */
    topo_range_t rone[TOPO_VIEW_GROUP_RANGES];
    topo_xfer_t xbuf[TOPO_VIEW_XFERS];
    topo_range_t rbuf[TOPO_VIEW_RANGES];
} topo_step_view_t;

/* The one way to read a step: step `step` (logical) of lane `lane`. */
void topo_sched_step_at(const topo_sched_t *s, int lane, int step, topo_step_view_t *v);

const topo_xfer_t *topo_step_xfer_copy(topo_step_view_t *v, int i, const topo_range_t **ranges);

/* The one way to read a step's transfers: transfer i (< v->nxfers) of the
 * view, *ranges set to the array its range0 and src0 index.  The transfer
 * and its ranges may lie in the view's buffer, valid until the next call
 * on v. */
static inline const topo_xfer_t *topo_step_xfer(topo_step_view_t *v, int i,
                                                const topo_range_t **ranges)
{
    if (i < v->nstored) {
        *ranges = v->ranges;
        return &v->xfers[i];
    }
    return topo_step_xfer_copy(v, i, ranges);
}

/* The stored run at entry q of `ranges`, whose entries end at `end`;
 * returns the entries it takes (1, or 2 for a strided run). */
static inline int topo_run_at(const topo_range_t *ranges, int32_t q, int32_t end, topo_run_t *run)
{
    const int strided = q + 1 < end && ranges[q + 1].count < TOPO_RUN_GROUP;
    run->first = ranges[q].first;
    run->count = ranges[q].count;
    run->stride = strided ? ranges[q + 1].first : 0;
    run->reps = strided ? -ranges[q + 1].count : 1;
    return 1 + strided;
}

/* The one way to read a transfer's ranges: the iterator over the ranges of
 * x (side 0) or the sources of a copy (side 1), `ranges` the array x
 * indexes (topo_step_view_t.ranges, or topo_sched_t.ranges). */
/* An open group run of the iterator: its body's first entry and end,
 * the end of the entries around it, its stride and copies, and the copy
 * being read. */
typedef struct {
    int32_t q0, qend, outer, stride, reps, k;
} topo_range_frame_t;

typedef struct {
    const topo_range_t *ranges;
    int32_t q, end; /* the next stored entry, the end of x's (or of the
                       body of the innermost open group) */
    int32_t k;      /* the next copy of run */
    topo_run_t run;
    int32_t mq;                /* the mapped run being read (its first entry), or -1 */
    int32_t mi[TOPO_MAP_AXES]; /* ... the next tuple of its positions */
    int32_t off, depth; /* the open groups' copies' offset, and how many */
    topo_range_frame_t fr[TOPO_RUN_DEPTH];
} topo_range_iter_t;

/* The first entry of a mapped run (see Storage), at a run's start. */
#define TOPO_RUN_MAPPED (-0x40000000)

/* The next range of the mapped run at it->q (topo_range_next). */
int topo_range_next_mapped(topo_range_iter_t *it, topo_range_t *r);

static inline void topo_range_iter(topo_range_iter_t *it, const topo_range_t *ranges,
                                   const topo_xfer_t *x, int side)
{
    it->ranges = ranges;
    it->q = side ? x->src0 : x->range0;
    it->end = it->q + (side ? (x->kind == TOPO_XFER_COPY ? x->nsrc : 0) : x->nranges);
    it->k = 0;
    it->run = (topo_run_t){0, 0, 0, 0};
    it->mq = -1;
    it->off = 0;
    it->depth = 0;
}

/* Move the iterator to the start of the next stored run: into and out
 * of group runs (their copies one after the other); 0 at the end. */
static inline int topo_range_iter_step(topo_range_iter_t *it)
{
    for (;;) {
        if (it->q >= it->end) {
            if (0 == it->depth) {
                return 0;
            }
            topo_range_frame_t *f = &it->fr[it->depth - 1];
            if (++f->k < f->reps) { /* the body's next copy */
                it->q = f->q0;
                it->off += f->stride;
            } else {
                it->off -= (f->reps - 1) * f->stride;
                it->q = f->qend;
                it->end = f->outer;
                it->depth--;
            }
            continue;
        }
        if (TOPO_RUN_GROUP != it->ranges[it->q].count) {
            return 1;
        }
        topo_range_frame_t *f = &it->fr[it->depth++];
        f->q0 = it->q + 2;
        f->qend = f->q0 + it->ranges[it->q].first;
        f->outer = it->end;
        f->stride = it->ranges[it->q + 1].first;
        f->reps = it->ranges[it->q + 1].count;
        f->k = 0;
        it->q = f->q0;
        it->end = f->qend;
    }
}

/* The next range, in wire order, into *r; 0 at the end. */
static inline int topo_range_next(topo_range_iter_t *it, topo_range_t *r)
{
    if (it->k >= it->run.reps) {
        if (!topo_range_iter_step(it)) {
            return 0;
        }
        if (it->ranges[it->q].count <= TOPO_RUN_MAPPED) {
            topo_range_next_mapped(it, r);
            r->first += it->off;
            return 1;
        }
        it->q += topo_run_at(it->ranges, it->q, it->end, &it->run);
        it->run.first += it->off;
        it->k = 0;
    }
    r->first = it->run.first + it->k * it->run.stride;
    r->count = it->run.count;
    it->k++;
    return 1;
}

/* The next whole run into *run (a group run's copies one by one, each
 * run of its body moved to the copy; a mapped run as its ranges, each a
 * run of one); 0 at the end (not mixed with topo_range_next on one
 * iterator). */
static inline int topo_run_next(topo_range_iter_t *it, topo_run_t *run)
{
    if (!topo_range_iter_step(it)) {
        return 0;
    }
    if (it->ranges[it->q].count <= TOPO_RUN_MAPPED) {
        topo_range_t r;
        topo_range_next_mapped(it, &r);
        *run = (topo_run_t){r.first + it->off, r.count, 0, 1};
        return 1;
    }
    it->q += topo_run_at(it->ranges, it->q, it->end, run);
    run->first += it->off;
    return 1;
}

/* Step `step` of lane `lane` of an explicit schedule (topo_sched_compact
 * false, as topo_sched_expand makes): the stored step itself, for readers
 * that index the stored arrays (the verifier, the plan compiler). */
static inline const topo_step_t *topo_sched_explicit_step(const topo_sched_t *s, int lane, int step)
{
    return &s->steps[s->lanes[lane].step0 + step];
}

/* The explicit form of s into *out (every logical step stored, the same
 * transfers and ranges); returns TOPO_OK or TOPO_ENOMEM (*out then
 * empty, safe to free). */
int topo_sched_expand(const topo_sched_t *s, topo_sched_t *out);
/* Whether s stores some step once for several logical steps, some
 * transfers once for several of a step, or some ranges as a strided or a
 * mapped run. */
int topo_sched_compact(const topo_sched_t *s);
/* The logical steps, transfers and ranges of s (every repetition counted;
 * as s->nsteps, nxfers and nranges count them in the explicit form). */
void topo_sched_totals(const topo_sched_t *s, size_t *steps, size_t *xfers, size_t *ranges);
/* Bytes s holds (its arrays as allocated). */
size_t topo_sched_bytes(const topo_sched_t *s);

/* Units of rank-owned data: nblocks / nparts, the length of
 * topo_block_layout's units. */
static inline int topo_sched_units(const topo_sched_t *s)
{
    return s->nblocks / (s->nparts > 0 ? s->nparts : 1);
}

/* The fraction of the payload M one block carries (1 / mblocks). */
double topo_sched_block_share(const topo_sched_t *s);

/* Steps of the longest lane. */
int topo_sched_depth(const topo_sched_t *s);

/* Block -> element layout, shared by the executor and the cost model.
 * Fills off[0..nblocks] (off[b] is the first element of block b, off[nblocks]
 * the total) for a schedule over `count` elements split evenly: when units
 * is NULL the count is split evenly over the blocks (the first count %
 * nblocks blocks get one more element); otherwise unit u has units[u]
 * elements (u < nblocks / nparts) and each unit is split evenly into
 * nparts blocks. */
void topo_block_layout(const topo_sched_t *s, size_t count,
                       const size_t *units, size_t *off);

/* Human-readable dump of one rank's schedule (for tools and debugging). */
void topo_sched_print(const topo_sched_t *s, void *file /* FILE* */);

#ifdef __cplusplus
}
#endif
#endif
