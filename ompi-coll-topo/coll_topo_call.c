/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A call's entry, what every primitive does around the executor: find the
 * call's route (the memo of repeated calls, else coll_topo_route.c: an
 * algorithm, or the previous module), fetch the algorithm's schedule, lay
 * the call's data out on the schedule's blocks, and move data between the
 * user's buffers and the work buffer.  The per-primitive files
 * (coll_topo_<primitive>.c) only say where their data is.
 *
 * A call no algorithm of ours fits goes to the previous module, with the
 * reason in the verbose output; an algorithm never gives a call to another
 * of our algorithms behind the user's back.  Every rank must reach the same
 * answer, so the answer depends only on what is the same on every rank: the
 * primitive, the root, the payload in bytes, the operation and the unit
 * counts (for reduce_scatter, the whole recvcounts array).
 */
#include "ompi_config.h"

#include <stddef.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "mpi.h"

#include "coll_topo.h"

/*
 * Datatypes.  The executor works on elements of one datatype, `ext` bytes
 * apart.
 * - A predefined datatype, or any datatype of a primitive that does not
 *   reduce, runs as is (the executor copies only data bytes, so the gaps of
 *   the user's buffer stay untouched).
 * - A derived datatype with a user-defined operation also runs as is: the
 *   user's function must see the user's datatype.
 * - A derived datatype with a predefined operation (Open MPI 4.1's parameter
 *   check refuses those; reachable with mpi_param_check=0) must be made of a
 *   single predefined type: it is packed to k elements of that type per
 *   element.
 * - Anything else goes to the previous module.
 */
/* The single predefined type a derived datatype is made of, and how many
 * of it one element holds; false when it is made of several (or is
 * predefined). */
static bool single_type(ompi_datatype_t *dtype, ompi_datatype_t **p, size_t *k)
{
    *p = !ompi_datatype_is_predefined(dtype) && NULL != dtype->args
             ? ompi_datatype_get_single_predefined_type_from_args(dtype)
             : NULL;
    size_t dsize, psize = 0;
    ompi_datatype_type_size(dtype, &dsize);
    if (NULL != *p) {
        ompi_datatype_type_size(*p, &psize);
    }
    if (NULL == *p || 0 == psize || 0 != dsize % psize) {
        return false;
    }
    *k = dsize / psize;
    return true;
}

static bool element_type(mca_coll_topo_call_t *call, size_t total)
{
    ompi_datatype_t *dtype = call->dtype;
    ptrdiff_t lb, ext;
    ompi_datatype_get_extent(dtype, &lb, &ext);
    if (ext <= 0) {
        snprintf(call->reason, COLL_TOPO_REASON_LEN,
                 "unsupported datatype: extent is not positive");
        return false;
    }
    call->edt = dtype;
    call->k = 1;
    /* Data that only moves goes as elements of its predefined type where
     * it has one: ranks may pass different datatypes of one type signature
     * (n of contiguous(2, MPI_INT) here, 2n MPI_INT there, or MPI_2INT),
     * and must still cut the vector into the same blocks. */
    ompi_datatype_t *p;
    size_t k;
    if (NULL == call->op && MPI_2INT == dtype) {
        call->edt = MPI_INT;
        call->k = 2;
    } else if (NULL == call->op) {
        if (single_type(dtype, &p, &k) && MPI_2INT != p) {
            call->edt = p;
            call->k = k;
        }
    } else if (!ompi_datatype_is_predefined(dtype) && ompi_op_is_intrinsic(call->op)) {
        if (!single_type(dtype, &p, &k)) {
            snprintf(call->reason, COLL_TOPO_REASON_LEN,
                     "unsupported datatype: derived, not made of a single predefined type");
            return false;
        }
        call->edt = p;
        call->k = k;
    }
    if (total > (size_t)INT32_MAX / call->k) {
        snprintf(call->reason, COLL_TOPO_REASON_LEN, "more than 2^31 elements");
        return false;
    }
    ompi_datatype_get_extent(call->edt, &lb, &call->eext);
    return true;
}

topo_opclass_t mca_coll_topo_opclass(const mca_coll_topo_call_t *call)
{
    if (NULL == call->op) {
        return TOPO_OP_EXACT; /* data only moves */
    }
    if (!ompi_op_is_intrinsic(call->op)) {
        return ompi_op_is_commute(call->op) ? TOPO_OP_COMMUTATIVE : TOPO_OP_ORDERED;
    }
    /* MAX, MIN, the logical and bitwise operations, MAXLOC and MINLOC pick
     * or combine bits exactly; sums and products of integers wrap exactly */
    if (ompi_op_is_float_assoc(call->op) ||
        OMPI_DATATYPE_FLAG_DATA_INT == (call->edt->super.flags & OMPI_DATATYPE_FLAG_DATA_TYPE)) {
        return TOPO_OP_EXACT;
    }
    return TOPO_OP_COMMUTATIVE;
}

/*
 * The work buffer's layout in executor elements: one vector (call->n), or
 * units.  A uniform schedule moves blocks between positions, so its blocks
 * must all have the same size.  Returns RUN, PREVIOUS (call->reason set) or
 * an error.
 */
static int lay_out(mca_coll_topo_module_t *m, mca_coll_topo_call_t *call, const topo_sched_t *s,
                   size_t total)
{
    const topo_algo_t *a = call->algo;
    const int size = s->size;
    if (0 == call->unit && NULL == call->counts) {
        call->n = total * call->k;
        call->units = NULL;
        if (s->uniform && s->nblocks > 0 && 0 != call->n % (size_t)s->nblocks) {
            snprintf(call->reason, COLL_TOPO_REASON_LEN,
                     "%s moves blocks between positions and needs a multiple of %d elements",
                     a->name, s->nblocks);
            return COLL_TOPO_PREVIOUS;
        }
        return COLL_TOPO_RUN;
    }
    const int nparts = s->nparts > 0 ? s->nparts : 1;
    const int nunits = topo_sched_units(s);
    if (0 != s->nblocks % nparts || nunits < size || (NULL != call->counts && nunits != size)) {
        snprintf(call->reason, COLL_TOPO_REASON_LEN,
                 "the schedule of %s has %d blocks of %d parts, not a unit per rank", a->name,
                 s->nblocks, nparts);
        return COLL_TOPO_PREVIOUS;
    }
    if (OMPI_SUCCESS !=
        mca_coll_topo_grow((void **)&m->units, &m->cap_units, (size_t)nunits * sizeof(size_t))) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    bool equal = true;
    call->n = 0;
    for (int u = 0; u < nunits; u++) {
        size_t c = NULL != call->counts ? (size_t)call->counts[u] : call->unit;
        m->units[u] = c * call->k;
        call->n += m->units[u];
        equal = equal && m->units[u] == m->units[0];
    }
    call->units = m->units;
    if (call->n > (size_t)INT32_MAX) {
        snprintf(call->reason, COLL_TOPO_REASON_LEN, "more than 2^31 elements");
        return COLL_TOPO_PREVIOUS;
    }
    if (s->uniform && (!equal || 0 != m->units[0] % (size_t)nparts)) {
        snprintf(call->reason, COLL_TOPO_REASON_LEN,
                 "%s moves blocks between positions and needs units of equal size, a "
                 "multiple of %d elements",
                 a->name, nparts);
        return COLL_TOPO_PREVIOUS;
    }
    return COLL_TOPO_RUN;
}

static int begin_route(mca_coll_topo_call_t *call, mca_coll_topo_module_t *m,
                       struct ompi_communicator_t *comm, int slot);

int mca_coll_topo_begin(mca_coll_topo_call_t *call, struct ompi_communicator_t *comm,
                        mca_coll_base_module_t *module, int slot)
{
    mca_coll_topo_module_t *m = (mca_coll_topo_module_t *)module;

    if (OPAL_UNLIKELY(!m->placement.ready)) {
        if (COLL_TOPO_BLOCKING != call->mode) {
            /* The placement's exchanges block; a nonblocking call must not
             * (Open MPI starts them inside its progress engine too, for a
             * new communicator's identifier).  Every rank makes its
             * communicator's calls in the same order, so every rank sends
             * this one to the previous module alike, until a blocking call
             * has resolved the placement. */
            return COLL_TOPO_PREVIOUS;
        }
        mca_coll_topo_comm_prepare(m, comm);
    }
    call->m = m;
    call->comm = comm;
    call->prev = &m->prev[slot];
    call->units = NULL;
    call->reason = m->reason;
    call->timed = false;
    /* A call that repeats a remembered one of the slot (a remembered call
     * was routed, so neither of begin_route's early answers applies). */
    mca_coll_topo_memo_entry_t *e =
        mca_coll_topo_memo_find(&m->memo, slot, call->dtype, call->op, call->count, call->unit,
                                call->root, call->counts, comm);
    if (NULL != e) {
        m->memo.hits[slot]++;
        if (NULL == e->algo) {
            return COLL_TOPO_PREVIOUS;
        }
        call->algo = e->algo;
        call->sched = &m->scheds[e->sched].sched;
        call->edt = e->edt;
        call->k = e->k;
        call->eext = e->eext;
        call->n = e->n;
        call->units = e->units;
        call->plan = &e->plan;
        if (OPAL_UNLIKELY(0 != e->tune) && COLL_TOPO_BLOCKING == call->mode) {
            return mca_coll_topo_tune_start(call, slot, e->tune - 1);
        }
        return COLL_TOPO_RUN;
    }
    return begin_route(call, m, comm, slot);
}

/* mca_coll_topo_begin for a call that the slot's memo does not hold. */
static int begin_route(mca_coll_topo_call_t *call, mca_coll_topo_module_t *m,
                       struct ompi_communicator_t *comm, int slot)
{
    const int size = ompi_comm_size(comm);
    char why[256];
    why[0] = '\0';
    size_t total = call->count, dsize = 0;
    int rc, key = -1;

    m->memo.decided[slot]++;
    call->algo = NULL;
    call->sched = NULL;
    call->edt = MPI_BYTE; /* barrier: messages without data */
    call->k = 1;
    call->eext = 1;
    call->n = 0;
    call->plan = NULL;
    call->reason[0] = '\0';
    if (m->placement.preparing) {
        return COLL_TOPO_PREVIOUS; /* a previous module's collective calling ours */
    }
    if (m->placement.disagree) {
        snprintf(call->reason, COLL_TOPO_REASON_LEN,
                 "the ranks reached different coll/topo inputs (parameter values or "
                 "topology): every primitive of this communicator goes to the previous module");
        goto previous;
    }

    /* The payload: user elements, then bytes as the cost model counts them
     * (the vector; all ranks' units; alltoall: one rank's send buffer). */
    if (NULL != call->counts) {
        total = 0;
        for (int r = 0; r < size; r++) {
            total += (size_t)call->counts[r];
        }
    } else if (0 != call->unit) {
        total = (size_t)size * call->unit;
    }
    if (NULL != call->dtype) {
        ompi_datatype_type_size(call->dtype, &dsize);
        if (0 == total || 0 == dsize) {
            return OMPI_SUCCESS; /* nothing moves */
        }
        if (!element_type(call, total)) {
            goto previous;
        }
    }
    const size_t bytes = total * dsize;

    const topo_gen_args_t args = {
        .prim = call->prim,
        .size = size,
        .rank = ompi_comm_rank(comm),
        .root = call->root,
        .topo = &m->placement.topo,
    };
    call->algo = mca_coll_topo_route(m, comm, call, slot, &args, mca_coll_topo_opclass(call), bytes,
                                     why, sizeof(why), &key);
    if (NULL == call->algo) {
        goto previous;
    }
    call->sched = mca_coll_topo_schedule(m, call->algo, &args);
    if (NULL == call->sched) {
        snprintf(call->reason, COLL_TOPO_REASON_LEN, "the schedule of %s could not be generated",
                 call->algo->name);
        goto say; /* out of memory, perhaps: the next call tries again */
    }
    rc = lay_out(m, call, call->sched, total);
    if (COLL_TOPO_RUN == rc && OPAL_UNLIKELY(mca_coll_topo_component.verbose > 0)) {
        mca_coll_topo_say_algorithm(m, comm, call->prim, call->algo, why);
    }
    if (COLL_TOPO_RUN == rc) {
        mca_coll_topo_memo_entry_t *e = mca_coll_topo_memo_keep(m, slot, call);
        if (NULL != e) {
            call->plan = &e->plan;
        }
        if (key >= 0 && COLL_TOPO_BLOCKING == call->mode) {
            /* coll_topo_autotune is timing the call's payload class (its
             * blocking calls: the other forms run coll/topo's algorithm) */
            if (NULL != e) {
                e->tune = key + 1;
            }
            return mca_coll_topo_tune_start(call, slot, key);
        }
    }
    if (COLL_TOPO_PREVIOUS != rc) {
        return rc;
    }
previous:
    /* Every reason above depends only on what the memo compares (the
     * datatype, operation, counts and root) or on the communicator: a call
     * that repeats this one goes to the previous module at once, without
     * the route and its message (some 0.6 us per call). */
    call->algo = NULL;
    mca_coll_topo_memo_keep(m, slot, call);
say:
    mca_coll_topo_say_previous(m, comm, call->prim, call->reason);
    return COLL_TOPO_PREVIOUS;
}

/* Between a span and the work buffer, either way, through the datatype
 * engine. */
static int copy_convert(const mca_coll_topo_call_t *call, char *at, int32_t n,
                        const mca_coll_topo_span_t *sp, bool in)
{
    if (in) {
        return ompi_datatype_sndrcv(sp->buf, sp->count, sp->dtype, at, n, call->edt);
    }
    return ompi_datatype_sndrcv(at, n, call->edt, (void *)sp->buf, sp->count, sp->dtype);
}

/* Where the span's elements sit in the work buffer `work`. */
static inline char *span_at(const mca_coll_topo_call_t *call, char *work,
                            const mca_coll_topo_span_t *sp)
{
    return work + (ptrdiff_t)(sp->at * call->k) * call->eext;
}

/* Between a span and the work buffer, either way. */
static inline int copy(const mca_coll_topo_call_t *call, char *work, const mca_coll_topo_span_t *sp,
                       bool in)
{
    char *at = span_at(call, work, sp);
    const int32_t n = (int32_t)(sp->n * call->k);
    const ompi_datatype_t *dt = call->edt;
    if (sp->dtype != dt) {
        return copy_convert(call, at, n, sp, in);
    }
    if ((const void *)at == sp->buf) {
        return OMPI_SUCCESS;
    }
    if (sp->count == n && mca_coll_topo_flat(dt, call->eext)) {
        /* plain elements: bytes (MPI forbids the user's buffers to overlap) */
        if (in) {
            memcpy(at, sp->buf, (size_t)n * dt->super.size);
        } else {
            memcpy((void *)sp->buf, at, (size_t)n * dt->super.size);
        }
        return OMPI_SUCCESS;
    }
    return copy_convert(call, at, n, sp, in);
}

/* Are `count` elements of `dt` the executor's elements one after the
 * other from the buffer's start: dt is its element type, or a contiguous
 * datatype of it (contiguous(2, MPI_INT), say), which element_type
 * replaced by its predefined type? */
static inline bool as_elements(const mca_coll_topo_call_t *call, ompi_datatype_t *dt, size_t count)
{
    if (dt == call->edt) {
        return true;
    }
    ptrdiff_t true_lb, true_ext;
    ompi_datatype_get_true_extent(dt, &true_lb, &true_ext);
    return 0 == true_lb && count <= (size_t)INT32_MAX &&
           mca_coll_topo_flat(call->edt, call->eext) &&
           ompi_datatype_is_contiguous_memory_layout(dt, (int32_t)count);
}

/* Does the span hold the executor's own elements, so that it can serve as
 * a window? */
static inline bool window(const mca_coll_topo_call_t *call, const mca_coll_topo_span_t *sp)
{
    return sp->dtype == call->edt ? (size_t)sp->count == sp->n * call->k
                                  : as_elements(call, sp->dtype, sp->count) &&
                                        (size_t)sp->count * sp->dtype->super.size ==
                                            sp->n * call->k * call->edt->super.size;
}

static inline bool overlap(const mca_coll_topo_span_t *a, const mca_coll_topo_span_t *b)
{
    return a->at < b->at + b->n && b->at < a->at + a->n;
}

/* Where the call's data goes (mca_coll_topo_place_data). */
static inline __opal_attribute_always_inline__ void
place_data(const mca_coll_topo_call_t *call, void *user, const mca_coll_topo_span_t *in,
           const mca_coll_topo_span_t *out, mca_coll_topo_bufs_t *b,
           const mca_coll_topo_span_t **copy_in, const mca_coll_topo_span_t **copy_out,
           mca_coll_topo_span_t *whole)
{
    const size_t k = call->k;
    /* work = user */
    const bool own = NULL != user && as_elements(call, call->dtype, call->n / k);
    *b = (mca_coll_topo_bufs_t){.work = own ? user : NULL};
    if (NULL != user && !own && NULL == out) {
        /* The user's buffer is the result, laid out otherwise than the
         * executor's elements (a vector datatype element_type replaced by
         * its predefined type): copied out whole, and in where it holds
         * input (a bcast's root, an allgather's own block in place). */
        *whole = (mca_coll_topo_span_t){user, (int)(call->n / k), call->dtype, 0, call->n / k};
        out = whole;
        if (NULL == in &&
            (TOPO_PRIM_ALLGATHER == call->prim ||
             (TOPO_PRIM_BCAST == call->prim && call->root == ompi_comm_rank(call->comm)))) {
            in = whole;
        }
    }
    *copy_in = NULL;
    *copy_out = NULL;

    /* The input: in place already, a window (not when it is the memory the
     * result goes to: MPI_IN_PLACE), or copied in. */
    if (NULL != in && !(own && span_at(call, user, in) == in->buf)) {
        if (window(call, in) && in->buf != user && (NULL == out || in->buf != out->buf)) {
            b->in = in->buf;
            b->w.in_at = in->at * k;
            b->w.in_n = in->n * k;
        } else {
            *copy_in = in;
        }
    }
    /* The result: in place already, in an output window, or copied out. */
    if (NULL != out) {
        b->w.keep_at = out->at * k;
        b->w.keep_n = out->n * k;
        if (own && span_at(call, user, out) == out->buf) {
            /* the work buffer is the result */
        } else if (!own && window(call, out) && (NULL == *copy_in || !overlap(*copy_in, out))) {
            b->out = (char *)out->buf;
            b->w.out_at = out->at * k;
            b->w.out_n = out->n * k;
        } else {
            *copy_out = out;
        }
    } else if (own) {
        b->w.keep_n = call->n;
    }
}

void mca_coll_topo_place_data(const mca_coll_topo_call_t *call, void *user,
                              const mca_coll_topo_span_t *in, const mca_coll_topo_span_t *out,
                              mca_coll_topo_bufs_t *bufs, const mca_coll_topo_span_t **copy_in,
                              const mca_coll_topo_span_t **copy_out, mca_coll_topo_span_t *whole)
{
    place_data(call, user, in, out, bufs, copy_in, copy_out, whole);
}

int mca_coll_topo_copy_span(const mca_coll_topo_call_t *call, char *work,
                            const mca_coll_topo_span_t *sp, bool in)
{
    return copy(call, work, sp, in);
}

int mca_coll_topo_execute(const mca_coll_topo_call_t *call, void *user,
                          const mca_coll_topo_span_t *in, const mca_coll_topo_span_t *out)
{
    mca_coll_topo_bufs_t b;
    mca_coll_topo_span_t whole;
    const mca_coll_topo_span_t *copy_in, *copy_out;
    int rc = OMPI_SUCCESS;

    place_data(call, user, in, out, &b, &copy_in, &copy_out, &whole);
    if ((NULL != copy_in || NULL != copy_out) && NULL == b.work) {
        rc = mca_coll_topo_stage(call->m, call->edt, call->n, &b.work);
    }
    if (OMPI_SUCCESS == rc && NULL != copy_in) {
        rc = copy(call, b.work, copy_in, true);
    }
    if (OMPI_SUCCESS == rc) {
        rc = mca_coll_topo_exec(call->m, call->sched, &b, call->n, call->units, call->edt, call->op,
                                call->comm, COLL_TOPO_TAG(call->prim, 0), call->plan);
    }
    if (OMPI_SUCCESS == rc && NULL != copy_out) {
        rc = copy(call, b.work, copy_out, false);
    }
    if (OMPI_SUCCESS == rc) {
        /* (after an error, requests dropped in flight may still write it) */
        mca_coll_topo_trim(call->m);
    }
    if (OPAL_UNLIKELY(call->timed)) {
        rc = mca_coll_topo_tune_end(call->m, call->comm, rc);
    }
    return rc;
}
