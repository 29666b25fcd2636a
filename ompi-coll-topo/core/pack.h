/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The executor's packing and temporary-storage rules, as a schedule states
 * them: which transfers go through a rank's temporary storage (and are so
 * copied locally once more), and how much storage n elements take.  The
 * plan compiler (coll_topo_plan.c) applies them, refined by a call's
 * layout (a range split between buffers is packed too); the cost model
 * (cost.c) prices the local copies they imply.  MPI-free.
 */
#ifndef TOPO_PACK_H
#define TOPO_PACK_H

#include <stdbool.h>
#include <stddef.h>

#include "schedule.h"

/* Is x a receive (of any kind)? */
static inline bool topo_pack_is_recv(const topo_xfer_t *x)
{
    return TOPO_XFER_RECV_COPY == x->kind || TOPO_XFER_RECV_REDUCE == x->kind ||
           TOPO_XFER_RECV_REDUCE_POST == x->kind;
}
/* Do two block ranges share a block? */
static inline bool topo_pack_ranges_meet(const topo_range_t *a, const topo_range_t *b)
{
    return a->first < b->first + b->count && b->first < a->first + a->count;
}
/* A send of several ranges is packed into temporary storage first (a
 * snapshot of its blocks at the start of its step). */
static inline bool topo_pack_send_packed(const topo_xfer_t *x)
{
    return TOPO_XFER_SEND == x->kind && x->nranges > 1;
}
/* A receive lands in temporary storage and is applied (copied or reduced)
 * at the end of its step, unless it is a `direct` RECV_COPY of no more
 * than one range (received in place).  A reduction may still be received in place where
 * the call's layout allows (coll_topo_plan.c: in_place_reduce). */
static inline bool topo_pack_recv_staged(const topo_xfer_t *x)
{
    return topo_pack_is_recv(x) && (TOPO_XFER_RECV_COPY != x->kind || !x->direct || x->nranges > 1);
}
/* A local COPY whose source and destination blocks overlap goes through
 * temporary storage (as if copied at once); one that does not, directly.
 * ranges: the array x->range0 and x->src0 index (topo_step_view_t.ranges). */
bool topo_pack_copy_overlaps(const topo_range_t *ranges, const topo_xfer_t *x);
/* Does x copy its bytes locally at least once (the cost model's `copied`):
 * a COPY, a packed send, a staged RECV_COPY.  (A staged reduction's bytes
 * are priced as reduced, not copied.) */
static inline bool topo_pack_copies(const topo_xfer_t *x)
{
    return TOPO_XFER_COPY == x->kind || topo_pack_send_packed(x) ||
           (TOPO_XFER_RECV_COPY == x->kind && topo_pack_recv_staged(x));
}
/* Bytes of temporary storage for n elements of a datatype of true extent
 * `true_ext` and extent `ext` (their span, rounded up to 16 so that every
 * slot stays aligned); 0 for n 0. */
static inline size_t topo_pack_span(size_t true_ext, size_t ext, size_t n)
{
    if (0 == n) {
        return 0;
    }
    const size_t b = true_ext + (n - 1) * ext;
    return (b + 15) & ~(size_t)15;
}

#endif /* TOPO_PACK_H */
