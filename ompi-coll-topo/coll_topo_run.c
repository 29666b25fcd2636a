/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The runner: executes a plan (coll_topo_plan.h) through the module's
 * transport (coll_topo_transport.h).
 *
 * Lanes progress independently (a schedule of one lane completes each step
 * with one wait_all).  A lane packs the sends of its current step, posts
 * every receive, then every send, and waits; when the step's last request
 * completes, its receives are applied in transfer order (so results are
 * bitwise reproducible whatever order messages arrive in) and the lane
 * moves on.  Each lane has its own tag, so lanes never match each other's
 * messages; inside a lane, messages between two ranks are matched in
 * posting order (MPI's non-overtaking rule), which both ends share because
 * both walk the same transfer order and compute the same sizes.
 */
#include "ompi_config.h"

#include <stdlib.h>
#include <string.h>

#include "coll_topo_plan.h"

static inline char *tmp_at(const mca_coll_topo_run_t *x, int lane, ptrdiff_t off)
{
    return x->lane_tmp[lane] + off;
}

/* The buffer of empty messages. */
static char empty_message;

/* Element i of buffer `buf` (not BUF_TMP). */
static inline char *elem_at(const mca_coll_topo_run_t *x, int buf, size_t i)
{
    return x->base[buf] + (ptrdiff_t)i * x->ext;
}

/* The buffer of a message. */
static inline char *msg_buf(const mca_coll_topo_run_t *x, int lane, const plan_op_t *o)
{
    return BUF_TMP == o->wbuf ? tmp_at(x, lane, o->tmp) : elem_at(x, o->wbuf, o->w);
}

/* Copy n elements; only their data bytes are written (a derived datatype's
 * gaps in the user's buffer stay untouched). */
static int copy_elems(const mca_coll_topo_run_t *x, char *dst, char *src, size_t n)
{
    if (x->flat) {
        memcpy(dst, src, n * (size_t)x->ext);
        return OMPI_SUCCESS;
    }
    return ompi_datatype_copy_content_same_ddt(x->dt, n, dst, src);
}

/* Run the copies and reductions ops[0, n) of a lane's step. */
static inline __opal_attribute_always_inline__ int run_local(mca_coll_topo_run_t *x, int lane,
                                                             const plan_op_t *ops, int n)
{
    for (int i = 0; i < n; i++) {
        const plan_op_t *o = &ops[i];
        char *w = elem_at(x, o->wbuf, o->w);
        char *t = o->kind < OP_COPY ? tmp_at(x, lane, o->tmp) : NULL;
        char *in = OP_REDUCE_IN <= o->kind ? elem_at(x, o->sbuf, o->s) : NULL;
        int rc = OMPI_SUCCESS;
        switch (o->kind) {
        case OP_TO_TMP:
            rc = copy_elems(x, t, w, o->n);
            break;
        case OP_FROM_TMP:
            rc = copy_elems(x, w, t, o->n);
            break;
        case OP_REDUCE: /* w = incoming op w */
            ompi_op_reduce(x->op, t, w, o->n, x->dt);
            break;
        case OP_REDUCE_POST: /* w = w op incoming */
            ompi_op_reduce(x->op, w, t, o->n, x->dt);
            rc = copy_elems(x, w, t, o->n);
            break;
        /* Three buffers: ompi_3buff_op_reduce(op, a, b, target) computes
         * target = b op a (a user function gets a copy of a as inoutvec) */
        case OP_REDUCE_IN: /* w = incoming op in */
            ompi_3buff_op_reduce(x->op, in, t, w, (int)o->n, x->dt);
            break;
        case OP_REDUCE_POST_IN: /* w = in op incoming */
            ompi_3buff_op_reduce(x->op, t, in, w, (int)o->n, x->dt);
            break;
        case OP_REDUCE_FROM_IN: /* w = in op w */
            ompi_op_reduce(x->op, in, w, o->n, x->dt);
            break;
        default: /* OP_COPY */
            rc = copy_elems(x, w, in, o->n);
            break;
        }
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
    }
    return OMPI_SUCCESS;
}

/* Start message `o` of `lane` (its tag is the run's tag less the lane) as
 * request `idx` of queue `q`; *pending false when it is complete already
 * (sent inline, or `blocking` sent or received it). */
static inline __opal_attribute_always_inline__ int start_message(mca_coll_topo_exec_t *e,
                                                                 const int kind, int lane,
                                                                 const plan_op_t *o, bool blocking,
                                                                 int q, int idx, bool *pending)
{
    const mca_coll_topo_run_t *x = &e->run;
    const mca_coll_topo_msg_t msg = {
        .buf = msg_buf(x, lane, o), .n = o->n, .dt = x->dt, .peer = o->peer, .tag = x->tag - lane};
    const unsigned flags =
        (OP_SEND == o->kind ? COLL_TOPO_TP_SEND : 0u) | (blocking ? COLL_TOPO_TP_BLOCK : 0u);
    return mca_coll_topo_tp_post(&e->tp, kind, &msg, flags, q, idx, pending);
}

/* Post the messages ops[0, n) of a lane's step.  The queues have room for
 * them (max_posts, ndefer). */
static inline __opal_attribute_always_inline__ int post(mca_coll_topo_exec_t *e, const int kind,
                                                        int lane, const plan_op_t *ops, int n)
{
    mca_coll_topo_run_t *x = &e->run;
    for (int i = 0; i < n; i++) {
        const plan_op_t *o = &ops[i];
        bool pending;
        int rc =
            o->defer
                ? start_message(e, kind, lane, o, false, COLL_TOPO_TP_DEFER, x->ndefer, &pending)
                : start_message(e, kind, lane, o, false, COLL_TOPO_TP_STEP, x->nreq, &pending);
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
        if (!pending) {
            continue; /* complete: nothing to wait for or free */
        }
        if (o->defer) {
            x->ndefer++;
            continue;
        }
        x->req_lane[x->nreq] = lane;
        x->nreq++;
        x->lane_pending[lane]++;
    }
    return OMPI_SUCCESS;
}

/* Free the deferred sends that have completed, oldest first, without
 * progressing anything (a completed request is freed by its wait at once).
 * Done after each step: the requests a call holds are then those of the
 * sends still in flight, not every send of a ring's allgather or a
 * pipeline (on a large communicator, p - 1 of them until the call ends). */
static inline __opal_attribute_always_inline__ int reap_deferred(mca_coll_topo_exec_t *e,
                                                                 const int kind)
{
    mca_coll_topo_run_t *x = &e->run;
    while (x->dfirst < x->ndefer &&
           mca_coll_topo_tp_test(&e->tp, kind, COLL_TOPO_TP_DEFER, x->dfirst)) {
        int rc = mca_coll_topo_tp_wait(&e->tp, kind, COLL_TOPO_TP_DEFER, x->dfirst, 1);
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
        x->dfirst++;
    }
    return OMPI_SUCCESS;
}

/* Pack and post the lane's current step. */
static inline __opal_attribute_always_inline__ int
start_step(mca_coll_topo_exec_t *e, const int kind, int lane, const plan_step_t *ps)
{
    const plan_op_t *ops = &e->run.p->ops[ps->op0];
    if (ps->npack > 0) {
        int rc = run_local(&e->run, lane, ops, ps->npack);
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
    }
    return post(e, kind, lane, ops + ps->npack, ps->npost);
}

static inline __opal_attribute_always_inline__ int
finish_step(mca_coll_topo_exec_t *e, const int kind, int lane, const plan_step_t *ps)
{
    int rc = reap_deferred(e, kind);
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    return run_local(&e->run, lane, &e->run.p->ops[ps->op0 + ps->npack + ps->npost], ps->napply);
}

/* May `lane` start its next step?  In a lockstep plan (coll_topo_lane_sync)
 * only once every lane that has a step before it has finished that step.
 * No lockstep can deadlock: the verifier matches every message with one of
 * the same lane and step, so the lanes of the lowest step index anywhere
 * may all start it, and its messages all meet. */
static inline bool lane_may_start(const mca_coll_topo_run_t *x, int lane)
{
    const mca_coll_topo_plan_t *p = x->p;
    if (!p->lockstep) {
        return true;
    }
    const int32_t k = x->lane_step[lane] - p->lane_step0[lane];
    for (int l = 0; l < p->nlanes; l++) {
        const int32_t done = x->lane_step[l] - p->lane_step0[l];
        if (done < k && done < p->lane_step0[l + 1] - p->lane_step0[l]) {
            return false;
        }
    }
    return true;
}

/* Run `lane` forward until it waits on requests, on the other lanes
 * (lockstep), or is done. */
static inline __opal_attribute_always_inline__ int lane_run(mca_coll_topo_exec_t *e, const int kind,
                                                            int lane)
{
    mca_coll_topo_run_t *x = &e->run;
    const mca_coll_topo_plan_t *p = x->p;
    while (x->lane_step[lane] < p->lane_step0[lane + 1]) {
        if (!lane_may_start(x, lane)) {
            return OMPI_SUCCESS;
        }
        const plan_step_t *ps = &p->steps[x->lane_step[lane]];
        int rc = start_step(e, kind, lane, ps);
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
        if (x->lane_pending[lane] > 0) {
            return OMPI_SUCCESS;
        }
        rc = finish_step(e, kind, lane, ps);
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
        x->lane_step[lane]++;
    }
    return OMPI_SUCCESS;
}

/* In a lockstep plan, run every lane that waits for the others (no
 * request outstanding, steps left) as far as it may, until none moves: a
 * lane's step that completes at once (copies only) may let another start. */
static inline __opal_attribute_always_inline__ int lanes_resume(mca_coll_topo_exec_t *e,
                                                                const int kind)
{
    mca_coll_topo_run_t *x = &e->run;
    const mca_coll_topo_plan_t *p = x->p;
    bool moved = p->lockstep;
    while (moved) {
        moved = false;
        for (int l = 0; l < p->nlanes; l++) {
            if (0 != x->lane_pending[l] || x->lane_step[l] >= p->lane_step0[l + 1]) {
                continue;
            }
            const int32_t before = x->lane_step[l];
            int rc = lane_run(e, kind, l);
            if (OMPI_SUCCESS != rc) {
                return rc;
            }
            moved = moved || x->lane_step[l] != before || x->lane_pending[l] > 0;
        }
    }
    return OMPI_SUCCESS;
}

/* Error path: release every outstanding request without blocking, as
 * MPI_Request_free would (they complete in the background). */
static void drop_requests(mca_coll_topo_exec_t *e, const int kind)
{
    mca_coll_topo_run_t *x = &e->run;
    mca_coll_topo_tp_drop(&e->tp, kind, COLL_TOPO_TP_STEP, 0, x->nreq);
    x->nreq = 0;
    mca_coll_topo_tp_drop(&e->tp, kind, COLL_TOPO_TP_DEFER, x->dfirst, x->ndefer - x->dfirst);
    x->ndefer = 0;
    x->dfirst = 0;
}

/* One lane: nothing runs beside it, so each step is posted, completed with
 * one wait (or wait_all) and applied, without the bookkeeping of lanes
 * (request owners, pending counts) that wait_any needs.
 *
 * The step's last message, when it is a send, is a blocking send.  Every
 * receive and every other send of the step is posted by then, and the step
 * waits for all of them anyway, so nothing waits that would not have; but
 * a small message takes ob1's inline path without a request, and a large
 * one is driven to completion before the receives are waited for: with
 * isend and one wait for both, 2-rank exchanges of 256 KiB by CMA ran at
 * 50 or 160 us from one run to the next, with the blocking send at 50.
 * A step whose only message is a receive (a tree's child) receives with
 * the blocking call: some 50 instructions fewer than irecv and wait (2-rank
 * bcast at 8 bytes, the receiving rank: 1010 -> 956, tuned 766). */
static inline __opal_attribute_always_inline__ int run_single_lane(mca_coll_topo_exec_t *e,
                                                                   const int kind)
{
    mca_coll_topo_run_t *x = &e->run;
    const mca_coll_topo_plan_t *p = x->p;
    const bool can_block = 0 != (mca_coll_topo_tp_caps(&e->tp, kind) & COLL_TOPO_TP_BLOCKING);
    for (x->step = 0; x->step < p->nsteps; x->step++) {
        const plan_step_t *ps = &p->steps[x->step];
        const plan_op_t *ops = &p->ops[ps->op0];
        int rc = OMPI_SUCCESS;
        if (ps->npack > 0) {
            rc = run_local(x, 0, ops, ps->npack);
        }
        for (int i = ps->npack; OMPI_SUCCESS == rc && i < ps->npack + ps->npost; i++) {
            const plan_op_t *o = &ops[i];
            bool pending;
            if (o->defer) {
                rc = start_message(e, kind, 0, o, false, COLL_TOPO_TP_DEFER, x->ndefer, &pending);
                x->ndefer += OMPI_SUCCESS == rc && pending;
                continue;
            }
            /* the last message blocks when it is a send, or the only one */
            const bool last = i + 1 == ps->npack + ps->npost;
            rc = start_message(e, kind, 0, o,
                               can_block && last && (OP_SEND == o->kind || 1 == ps->npost),
                               COLL_TOPO_TP_STEP, x->nreq, &pending);
            x->nreq += OMPI_SUCCESS == rc && pending;
        }
        if (OMPI_SUCCESS == rc && x->nreq > 0) {
            rc = mca_coll_topo_tp_wait(&e->tp, kind, COLL_TOPO_TP_STEP, 0, x->nreq);
        }
        if (OMPI_SUCCESS == rc) {
            x->nreq = 0;
            rc = reap_deferred(e, kind);
        }
        if (OMPI_SUCCESS == rc && ps->napply > 0) {
            rc = run_local(x, 0, ops + ps->npack + ps->npost, ps->napply);
        }
        if (OMPI_SUCCESS != rc) {
            drop_requests(e, kind);
            return rc;
        }
    }
    return OMPI_SUCCESS;
}

/* Run a plan of several lanes. */
static inline __opal_attribute_always_inline__ int run_lanes(mca_coll_topo_exec_t *e,
                                                             const int kind)
{
    mca_coll_topo_run_t *x = &e->run;
    const mca_coll_topo_plan_t *p = x->p;
    int rc;
    for (int l = 0; l < p->nlanes; l++) {
        x->lane_step[l] = p->lane_step0[l];
        x->lane_pending[l] = 0;
    }
    for (int l = 0; l < p->nlanes; l++) {
        rc = lane_run(e, kind, l);
        if (OMPI_SUCCESS != rc) {
            drop_requests(e, kind);
            return rc;
        }
    }
    rc = lanes_resume(e, kind);
    if (OMPI_SUCCESS != rc) {
        drop_requests(e, kind);
        return rc;
    }
    while (x->nreq > 0) {
        int idx = 0;
        /* completes one, and moves the last live request into its place */
        rc = mca_coll_topo_tp_wait_any(&e->tp, kind, x->nreq, &idx);
        if (OMPI_SUCCESS != rc) {
            drop_requests(e, kind);
            return rc;
        }
        int lane = x->req_lane[idx];
        x->nreq--;
        x->req_lane[idx] = x->req_lane[x->nreq];
        if (0 == --x->lane_pending[lane]) {
            rc = finish_step(e, kind, lane, &p->steps[x->lane_step[lane]]);
            if (OMPI_SUCCESS == rc) {
                x->lane_step[lane]++;
                rc = lane_run(e, kind, lane);
            }
            if (OMPI_SUCCESS == rc) {
                rc = lanes_resume(e, kind);
            }
            if (OMPI_SUCCESS != rc) {
                drop_requests(e, kind);
                return rc;
            }
        }
    }
    return OMPI_SUCCESS;
}

static int run_lanes_pml(mca_coll_topo_exec_t *e)
{
    return run_lanes(e, COLL_TOPO_TP_PML);
}

/* The bytes of n elements at `base` (element 0) of the run's datatype. */
static mca_coll_topo_region_t region(const mca_coll_topo_plan_t *p, char *base, size_t n)
{
    return (mca_coll_topo_region_t){.base = base + p->true_lb,
                                    .len = (size_t)p->true_ext + (n - 1) * (size_t)p->ext};
}

/* COLL_TOPO_TP_REGISTER: begin the run with every memory region its
 * messages may address: the work buffer, the windows, the lanes'
 * temporary storage and the empty messages' byte. */
static __opal_attribute_noinline__ int begin_registered(mca_coll_topo_exec_t *e, const int kind,
                                                        struct ompi_communicator_t *comm,
                                                        const mca_coll_topo_bufs_t *b)
{
    const mca_coll_topo_run_t *x = &e->run;
    const mca_coll_topo_plan_t *p = x->p;
    mca_coll_topo_region_t *r = malloc(((size_t)p->nlanes + 4) * sizeof(*r));
    int n = 0;
    if (NULL == r) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    if (NULL != x->base[BUF_WORK] && p->count > 0) {
        r[n++] = region(p, x->base[BUF_WORK], p->count);
    }
    if (NULL != b->out && b->w.out_n > 0) {
        r[n++] = region(p, b->out, b->w.out_n);
    }
    if (NULL != b->in && b->w.in_n > 0) {
        r[n++] = region(p, (char *)b->in, b->w.in_n);
    }
    for (int l = 0; l < p->nlanes; l++) {
        if (p->lane_tmp[l] > 0) {
            r[n++] = (mca_coll_topo_region_t){.base = x->lane_tmp[l], .len = p->lane_tmp[l]};
        }
    }
    r[n++] = (mca_coll_topo_region_t){.base = x->base[BUF_NONE], .len = 1};
    int rc = mca_coll_topo_tp_begin(&e->tp, kind, comm, r, n);
    free(r);
    return rc;
}

/* The run's state at its start: plan `p` on `work` and the windows of `b`. */
static inline __opal_attribute_always_inline__ void
run_setup(mca_coll_topo_run_t *x, const mca_coll_topo_plan_t *p, char *work,
          const mca_coll_topo_bufs_t *b, struct ompi_datatype_t *dt, struct ompi_op_t *op, int tag)
{
    x->p = p;
    x->base[BUF_WORK] = work;
    x->base[BUF_OUT] = b->out;
    x->base[BUF_IN] = (char *)b->in;
    x->base[BUF_NONE] = &empty_message;
    x->dt = dt;
    x->ext = p->ext;
    x->flat = mca_coll_topo_flat(dt, p->ext);
    x->op = op;
    x->tag = tag;
    x->nreq = 0;
    x->ndefer = 0;
    x->dfirst = 0;
}

/* Run plan `p` (reserved for) on `work` and the windows of `b`, through
 * the transport of kind `kind`. */
static inline __opal_attribute_always_inline__ int
run_plan(mca_coll_topo_exec_t *e, const int kind, const mca_coll_topo_plan_t *p, char *work,
         const mca_coll_topo_bufs_t *b, struct ompi_datatype_t *dt, struct ompi_op_t *op,
         struct ompi_communicator_t *comm, int tag)
{
    mca_coll_topo_run_t *x = &e->run;
    const unsigned caps = mca_coll_topo_tp_caps(&e->tp, kind);
    int rc;

    run_setup(x, p, work, b, dt, op, tag);
    if ((caps & COLL_TOPO_TP_CONTIG) && !x->flat) {
        return OMPI_ERR_NOT_SUPPORTED; /* before any message */
    }
    rc = (caps & COLL_TOPO_TP_REGISTER) ? begin_registered(e, kind, comm, b)
                                        : mca_coll_topo_tp_begin(&e->tp, kind, comm, NULL, 0);
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    if (p->nhead > 0) {
        rc = run_local(x, 0, p->ops, p->nhead);
    }
    if (OMPI_SUCCESS == rc) {
        rc = 1 == p->nlanes ? run_single_lane(e, kind)
                            : (COLL_TOPO_TP_PML == kind ? run_lanes_pml(e) : run_lanes(e, kind));
    }
    if (OMPI_SUCCESS == rc && p->tail0 < p->nops) {
        rc = run_local(x, 0, p->ops + p->tail0, p->nops - p->tail0);
    }
    const int left = x->ndefer - x->dfirst; /* deferred sends not yet freed */
    if (OMPI_SUCCESS == rc && left > 0) {
        rc = mca_coll_topo_tp_wait(&e->tp, kind, COLL_TOPO_TP_DEFER, x->dfirst, left);
    }
    if (OMPI_SUCCESS != rc) {
        x->nreq = 0; /* the steps' requests are done or dropped */
        drop_requests(e, kind);
    }
    mca_coll_topo_tp_end(&e->tp, kind);
    return rc;
}

/* run_plan through a transport of kind COLL_TOPO_TP_OPS (not inlined: the
 * PML's path stays small). */
static __opal_attribute_noinline__ int
run_plan_ops(mca_coll_topo_exec_t *e, const mca_coll_topo_plan_t *p, char *work,
             const mca_coll_topo_bufs_t *b, struct ompi_datatype_t *dt, struct ompi_op_t *op,
             struct ompi_communicator_t *comm, int tag)
{
    return run_plan(e, COLL_TOPO_TP_OPS, p, work, b, dt, op, comm, tag);
}

/* Grow a scratch buffer (the stage, a lane's temporary storage) to at
 * least `need` bytes, doubling.  Its contents are dead whenever it grows
 * (before a call's copies and messages), so a new buffer and free, not
 * realloc, which would copy them (4 MiB at every allreduce of 16 MiB on 2
 * ranks, coll_topo_scratch_keep's default kept, shrink leaving it). */
static int grow_scratch(char **buf, size_t *cap, size_t need)
{
    if (need <= *cap) {
        return OMPI_SUCCESS;
    }
    const size_t n = mca_coll_topo_grown_cap(*cap, need);
    char *p = malloc(n);
    if (NULL == p) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    free(*buf);
    *buf = p;
    *cap = n;
    return OMPI_SUCCESS;
}

/* Scratch arrays sized for the plan. */
static int reserve(mca_coll_topo_exec_t *e, const mca_coll_topo_plan_t *p)
{
    mca_coll_topo_run_t *x = &e->run;
    if (OMPI_SUCCESS != mca_coll_topo_tp_reserve(&e->tp, p->max_posts, (size_t)p->ndefer)) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    if (p->max_posts > x->cap_req_lane) {
        int32_t *l = realloc(x->req_lane, p->max_posts * sizeof(*l));
        if (NULL == l) {
            return OMPI_ERR_OUT_OF_RESOURCE;
        }
        x->req_lane = l;
        x->cap_req_lane = p->max_posts;
    }
    if (p->nlanes > x->cap_lanes) {
        int n = p->nlanes;
        int32_t *a = realloc(x->lane_step, (size_t)n * sizeof(*a));
        if (NULL == a) {
            return OMPI_ERR_OUT_OF_RESOURCE;
        }
        x->lane_step = a;
        int32_t *b = realloc(x->lane_pending, (size_t)n * sizeof(*b));
        if (NULL == b) {
            return OMPI_ERR_OUT_OF_RESOURCE;
        }
        x->lane_pending = b;
        size_t *c = realloc(x->lane_tmp_cap, (size_t)n * sizeof(*c));
        if (NULL == c) {
            return OMPI_ERR_OUT_OF_RESOURCE;
        }
        x->lane_tmp_cap = c;
        char **d = realloc(x->lane_tmp, (size_t)n * sizeof(*d));
        if (NULL == d) {
            return OMPI_ERR_OUT_OF_RESOURCE;
        }
        x->lane_tmp = d;
        for (int l = x->cap_lanes; l < n; l++) {
            x->lane_tmp[l] = NULL;
            x->lane_tmp_cap[l] = 0;
        }
        x->cap_lanes = n;
    }
    for (int l = 0; l < p->nlanes; l++) {
        if (p->lane_tmp[l] > x->lane_tmp_cap[l]) {
            if (OMPI_SUCCESS !=
                grow_scratch(&x->lane_tmp[l], &x->lane_tmp_cap[l], p->lane_tmp[l])) {
                return OMPI_ERR_OUT_OF_RESOURCE;
            }
            e->scratch_over |= x->lane_tmp_cap[l] > mca_coll_topo_component.scratch_keep;
        }
    }
    return OMPI_SUCCESS;
}

int mca_coll_topo_stage(mca_coll_topo_module_t *m, struct ompi_datatype_t *dt, size_t n,
                        char **work)
{
    return mca_coll_topo_exec_stage(&m->exec, dt, n, work);
}

int mca_coll_topo_exec_stage(mca_coll_topo_exec_t *e, struct ompi_datatype_t *dt, size_t n,
                             char **work)
{
    ptrdiff_t true_lb, true_ext, lb, ext;
    ompi_datatype_get_true_extent(dt, &true_lb, &true_ext);
    ompi_datatype_get_extent(dt, &lb, &ext);
    size_t span = 0 == n ? 1 : (size_t)true_ext + (n - 1) * (size_t)ext;
    int rc = OMPI_SUCCESS;
    if (span > e->cap_stage) {
        rc = grow_scratch(&e->stage, &e->cap_stage, span);
        e->scratch_over |= e->cap_stage > mca_coll_topo_component.scratch_keep;
    }
    *work = e->stage - true_lb;
    return rc;
}

/* Shrink a scratch buffer to `keep` bytes (its contents are dead between
 * calls); false when there was no memory (it is kept as it is).  A new
 * buffer and free, not realloc: glibc shrinks a buffer it mapped by
 * itself in place, still mapped, and each regrow mapped fresh pages
 * again (coll_topo_scratch_keep=2048: a random sequence of 3000 calls on
 * 4 ranks 20.4 s against 12.6 s at the default); free gives the mapping
 * back and raises glibc's threshold, and the heap serves the next. */
static bool shrink(char **buf, size_t *cap, size_t keep)
{
    if (*cap <= keep) {
        return true;
    }
    if (0 == keep) {
        free(*buf);
        *buf = NULL;
        *cap = 0;
        return true;
    }
    char *p = malloc(keep);
    if (NULL == p) {
        return false;
    }
    free(*buf);
    *buf = p;
    *cap = keep;
    return true;
}

void mca_coll_topo_trim_to(mca_coll_topo_module_t *m)
{
    mca_coll_topo_exec_t *e = &m->exec;
    const size_t keep = mca_coll_topo_component.scratch_keep;
    bool done = shrink(&e->stage, &e->cap_stage, keep);
    for (int l = 0; l < e->run.cap_lanes; l++) {
        done = shrink(&e->run.lane_tmp[l], &e->run.lane_tmp_cap[l], keep) && done;
    }
    e->scratch_over = !done;
}

void mca_coll_topo_exec_free(mca_coll_topo_exec_t *e)
{
    mca_coll_topo_run_t *x = &e->run;
    mca_coll_topo_plans_free(e);
    free(e->off);
    free(e->comp);
    free(x->lane_step);
    free(x->lane_pending);
    for (int l = 0; l < x->cap_lanes; l++) {
        free(x->lane_tmp[l]);
    }
    free(x->lane_tmp);
    free(x->lane_tmp_cap);
    free(x->req_lane);
    free(e->stage);
    mca_coll_topo_tp_fini(&e->tp);
}

/* Run plan `p` on `b`, with the staging buffer as its work buffer when it
 * needs one and `b` has none. */
static inline int run_on(mca_coll_topo_module_t *m, const mca_coll_topo_plan_t *p,
                         const mca_coll_topo_bufs_t *b, size_t count, struct ompi_datatype_t *dt,
                         struct ompi_op_t *op, struct ompi_communicator_t *comm, int tag)
{
    char *work = b->work;
    if (NULL == work && p->uses_work) {
        int rc = mca_coll_topo_stage(m, dt, count, &work);
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
    }
    if (OPAL_LIKELY(COLL_TOPO_TP_PML == m->exec.tp.kind)) {
        return run_plan(&m->exec, COLL_TOPO_TP_PML, p, work, b, dt, op, comm, tag);
    }
    int rc = run_plan_ops(&m->exec, p, work, b, dt, op, comm, tag);
    if (OMPI_ERR_NOT_SUPPORTED == rc && (m->exec.tp.caps & COLL_TOPO_TP_CONTIG) &&
        !mca_coll_topo_flat(dt, p->ext)) {
        /* A datatype the transport cannot carry (refused before any
         * message): this call goes over the PML, whose requests live
         * beside the transport's.  Every rank refuses alike: the executor's
         * datatype is the element type of the call's type signature
         * wherever the operation is intrinsic or absent (coll_topo_call.c),
         * so it is flat on all ranks or on none. */
        rc = mca_coll_topo_pml_reserve(&m->exec.tp.pml, p->max_posts, (size_t)p->ndefer);
        if (OMPI_SUCCESS == rc) {
            rc = run_plan(&m->exec, COLL_TOPO_TP_PML, p, work, b, dt, op, comm, tag);
        }
    }
    return rc;
}

static int exec_planned(mca_coll_topo_module_t *m, const topo_sched_t *s,
                        const mca_coll_topo_bufs_t *b, size_t count, const size_t *units,
                        struct ompi_datatype_t *dt, struct ompi_op_t *op,
                        struct ompi_communicator_t *comm, int tag, mca_coll_topo_plan_ref_t *ref);

/* Is the plan this call ran with last time still that plan, compiled for
 * the same windows (MPI_IN_PLACE or not)? */
static inline bool ref_current(const mca_coll_topo_plan_ref_t *ref, const mca_coll_topo_bufs_t *b)
{
    return NULL != ref && NULL != ref->plan && ref->plan->gen == ref->gen &&
           0 == memcmp(&ref->plan->win, &b->w, sizeof(b->w));
}

int mca_coll_topo_exec(mca_coll_topo_module_t *m, const topo_sched_t *s,
                       const mca_coll_topo_bufs_t *b, size_t count, const size_t *units,
                       struct ompi_datatype_t *dt, struct ompi_op_t *op,
                       struct ompi_communicator_t *comm, int tag, mca_coll_topo_plan_ref_t *ref)
{
    /* The plan this call ran with last time, if it is still that plan and
     * the call has the same windows (MPI_IN_PLACE or not).  The scratch
     * reserved for it is still there (mca_coll_topo_trim keeps
     * coll_topo_scratch_keep bytes of each buffer) unless it is big. */
    if (ref_current(ref, b)) {
        if (OPAL_UNLIKELY(ref->plan->big)) { /* its storage went back after the last call */
            int rc = reserve(&m->exec, ref->plan);
            if (OMPI_SUCCESS != rc) {
                return rc;
            }
        }
        return run_on(m, ref->plan, b, count, dt, op, comm, tag);
    }
    return exec_planned(m, s, b, count, units, dt, op, comm, tag, ref);
}

/* mca_coll_topo_exec for a call without a current plan: find or compile
 * one (not inlined: the repeated call's path stays small). */
static __opal_attribute_noinline__ int
exec_planned(mca_coll_topo_module_t *m, const topo_sched_t *s, const mca_coll_topo_bufs_t *b,
             size_t count, const size_t *units, struct ompi_datatype_t *dt, struct ompi_op_t *op,
             struct ompi_communicator_t *comm, int tag, mca_coll_topo_plan_ref_t *ref)
{
    const mca_coll_topo_plan_t *p = NULL;
    int rc = mca_coll_topo_plan_find(m, s, count, units, dt, op, &b->w, ref, &p);
    if (OMPI_SUCCESS != rc || NULL == p) {
        return rc;
    }
    rc = reserve(&m->exec, p);
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    if (NULL != ref) {
        ref->plan = (mca_coll_topo_plan_t *)p;
        ref->gen = p->gen;
    }
    return run_on(m, p, b, count, dt, op, comm, tag);
}

int mca_coll_topo_exec_plan(mca_coll_topo_module_t *m, const topo_sched_t *s,
                            const mca_coll_topo_bufs_t *b, size_t count, const size_t *units,
                            struct ompi_datatype_t *dt, struct ompi_op_t *op,
                            mca_coll_topo_plan_ref_t *ref, const mca_coll_topo_plan_t **out)
{
    if (ref_current(ref, b)) {
        *out = ref->plan;
        return OMPI_SUCCESS;
    }
    /* ref->plan stays as it is: a plan it names has the module's scratch
     * reserved for it (mca_coll_topo_exec's repeated call relies on it),
     * and this call reserves only its own */
    *out = NULL;
    return mca_coll_topo_plan_find(m, s, count, units, dt, op, &b->w, ref, out);
}

/* ------------------------------------------------------------------ */
/* The progress-driven runner (nonblocking and persistent calls).     */
/*
 * The same lanes and steps as run_lanes, but nothing waits: a step's
 * requests are tested, each completed one is freed, and the lane whose
 * step completed is applied and moves on (posting its next step), all
 * from mca_coll_topo_run_test, which Open MPI's progress engine calls
 * (coll_topo_nbc.c).  A plan of one lane runs as one lane here (no
 * blocking send: the call must return at once).  Always over the PML, on
 * the operation's own exec (its requests, lanes and scratch), so that
 * operations in flight never share state with each other or with the
 * module's blocking calls.
 */
int mca_coll_topo_run_start(mca_coll_topo_exec_t *e, const mca_coll_topo_plan_t *p, char *work,
                            const mca_coll_topo_bufs_t *b, struct ompi_datatype_t *dt,
                            struct ompi_op_t *op, struct ompi_communicator_t *comm, int tag)
{
    mca_coll_topo_run_t *x = &e->run;
    int rc = reserve(e, p);
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    run_setup(x, p, work, b, dt, op, tag);
    x->step = 0; /* 1 once the tail ran */
    rc = mca_coll_topo_tp_begin(&e->tp, COLL_TOPO_TP_PML, comm, NULL, 0);
    if (OMPI_SUCCESS == rc && p->nhead > 0) {
        rc = run_local(x, 0, p->ops, p->nhead);
    }
    for (int l = 0; l < p->nlanes; l++) {
        x->lane_step[l] = p->lane_step0[l];
        x->lane_pending[l] = 0;
    }
    for (int l = 0; OMPI_SUCCESS == rc && l < p->nlanes; l++) {
        rc = lane_run(e, COLL_TOPO_TP_PML, l);
    }
    if (OMPI_SUCCESS == rc) {
        rc = lanes_resume(e, COLL_TOPO_TP_PML);
    }
    if (OMPI_SUCCESS != rc) {
        drop_requests(e, COLL_TOPO_TP_PML);
    }
    return rc;
}

int mca_coll_topo_run_test(mca_coll_topo_exec_t *e, bool *done)
{
    const int kind = COLL_TOPO_TP_PML;
    mca_coll_topo_run_t *x = &e->run;
    const mca_coll_topo_plan_t *p = x->p;
    mca_coll_topo_pml_t *t = &e->tp.pml;
    int rc = OMPI_SUCCESS;
    *done = false;
    for (int i = 0; OMPI_SUCCESS == rc && i < x->nreq;) {
        if (!mca_coll_topo_pml_test(t, COLL_TOPO_TP_STEP, i)) {
            i++;
            continue;
        }
        rc = mca_coll_topo_pml_wait(t, COLL_TOPO_TP_STEP, i, 1); /* frees it */
        if (OMPI_SUCCESS != rc) {
            break;
        }
        const int lane = x->req_lane[i];
        x->nreq--; /* the last live request moves into its place */
        t->reqs[i] = t->reqs[x->nreq];
        x->req_lane[i] = x->req_lane[x->nreq];
        if (0 == --x->lane_pending[lane]) {
            rc = finish_step(e, kind, lane, &p->steps[x->lane_step[lane]]);
            if (OMPI_SUCCESS == rc) {
                x->lane_step[lane]++;
                rc = lane_run(e, kind, lane); /* appends the lane's next step */
            }
            if (OMPI_SUCCESS == rc) {
                rc = lanes_resume(e, kind);
            }
        }
    }
    if (OMPI_SUCCESS == rc) {
        rc = reap_deferred(e, kind);
    }
    if (OMPI_SUCCESS == rc && 0 == x->nreq && 0 == x->step) {
        /* every lane is done (a lane stops only on requests or at its end) */
        x->step = 1;
        if (p->tail0 < p->nops) {
            rc = run_local(x, 0, p->ops + p->tail0, p->nops - p->tail0);
        }
    }
    if (OMPI_SUCCESS != rc) {
        drop_requests(e, kind);
        return rc;
    }
    *done = 1 == x->step && x->dfirst == x->ndefer;
    return OMPI_SUCCESS;
}

void mca_coll_topo_run_abort(mca_coll_topo_exec_t *e)
{
    drop_requests(e, COLL_TOPO_TP_PML);
}
