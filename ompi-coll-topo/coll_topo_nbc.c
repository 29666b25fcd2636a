/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The nonblocking (MPI_Iallreduce ...) and persistent (MPIX_Allreduce_init
 * ...) forms of the primitives: the same route, schedule and plan as the
 * blocking call, run by the progress-driven runner (coll_topo_run.c) in a
 * request of our own.
 *
 * A request (mca_coll_topo_nb_t, an ompi_request_t) holds everything one
 * operation needs while others run beside it: a copy of the call's plan
 * (the module's plans are compiled again by later calls), its own exec
 * (the runner's state, its PML requests, its lanes' temporary storage and
 * its staging buffer), and the spans copied in at its start and out at its
 * end.  Its messages carry the tags of its sequence number on the
 * communicator (COLL_TOPO_TAG_NB): operations start in the same order on
 * every rank, so the n-th of a communicator has the same tags everywhere
 * and no other operation in flight has them.
 *
 * Active requests are in one list, advanced by a callback of Open MPI's
 * progress engine, registered while the list is not empty: every
 * MPI_Test, MPI_Wait or other call that progresses moves each operation
 * on as far as its messages allow, and the last step completes the
 * request.  A nonblocking request is started at once; a persistent one is
 * made (decision, schedule, plan) at init and started by each MPI_Start.
 *
 * Always over the PML: a module whose transport is libfabric
 * (coll_topo_transport=ofi) gives these forms to the PML too.
 */
#include "ompi_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi.h"
#include "ompi/mca/coll/base/coll_base_util.h"
#include "opal/runtime/opal_progress.h"
#include "opal/threads/mutex.h"

#include "coll_topo.h"
#include "coll_topo_plan.h"

/* An ompi_coll_base_nbc_request_t: Open MPI's MPI_I* and MPIX_*_init
 * bindings keep the call's operation and datatypes alive through the
 * fields it adds to ompi_request_t (ompi_coll_base_retain_op), whatever
 * component made the request. */
typedef struct mca_coll_topo_nb_t {
    ompi_coll_base_nbc_request_t super;
    mca_coll_topo_module_t *m; /* retained */
    struct ompi_communicator_t *comm;
    mca_coll_topo_call_t call;  /* the call's executor elements (copies) */
    mca_coll_topo_plan_t *plan; /* owned; NULL: nothing moves */
    mca_coll_topo_bufs_t b;     /* b.work: the work buffer */
    bool has_in, has_out;
    mca_coll_topo_span_t in, out; /* copied in at each start, out at each end */
    mca_coll_topo_exec_t exec;    /* the runner's state, requests and scratch */
    int block;                    /* its tag block in m->nb_inflight, -1: none */
    bool active;                  /* started, not yet complete */
    bool freed;                   /* MPI freed it while active: release at the end */
    struct mca_coll_topo_nb_t *next, *prev_active; /* the active list */
} mca_coll_topo_nb_t;

static void nb_construct(mca_coll_topo_nb_t *r)
{
    memset((char *)r + sizeof(r->super), 0, sizeof(*r) - sizeof(r->super));
    r->block = -1;
}

OBJ_CLASS_INSTANCE(mca_coll_topo_nb_t, ompi_coll_base_nbc_request_t, nb_construct, NULL);

/* The active requests, the progress callback's registration, and the lock
 * of both (and of the modules' nb_inflight).  `busy`: the callback is
 * running (single-threaded, the lock is a no-op: a progress call nested
 * in one of ours returns at once). */
static mca_coll_topo_nb_t *nb_active;
static bool nb_registered, nb_busy;
static opal_mutex_t nb_lock = OPAL_MUTEX_STATIC_INIT;

static int nb_progress(void);

static void active_remove(mca_coll_topo_nb_t *r)
{
    if (NULL != r->prev_active) {
        r->prev_active->next = r->next;
    } else {
        nb_active = r->next;
    }
    if (NULL != r->next) {
        r->next->prev_active = r->prev_active;
    }
    r->next = r->prev_active = NULL;
}

static void retain_span(const mca_coll_topo_span_t *sp, bool has)
{
    if (has) {
        OBJ_RETAIN(sp->dtype);
    }
}

static void release_span(mca_coll_topo_span_t *sp, bool has)
{
    if (has) {
        OBJ_RELEASE(sp->dtype);
    }
}

/* Give back everything the request holds, and the request. */
static void nb_release(mca_coll_topo_nb_t *r)
{
    mca_coll_topo_exec_free(&r->exec);
    mca_coll_topo_plan_free(r->plan);
    release_span(&r->in, r->has_in);
    release_span(&r->out, r->has_out);
    if (NULL != r->call.edt) {
        OBJ_RELEASE(r->call.edt);
    }
    if (NULL != r->call.op) {
        OBJ_RELEASE(r->call.op);
    }
    OBJ_RELEASE(r->comm);
    mca_coll_base_module_t *module = &r->m->super;
    OBJ_RELEASE(module);
    OMPI_REQUEST_FINI(&r->super.super);
    OBJ_RELEASE(r);
}

/* The operation ended with code rc (under nb_lock): its tag block is
 * free, the result is copied out, and the request completes (or goes, if
 * MPI freed it meanwhile). */
static void nb_end(mca_coll_topo_nb_t *r, int rc)
{
    if (r->block >= 0) {
        r->m->nb_inflight[r->block] = NULL;
        r->block = -1;
    }
    if (OMPI_SUCCESS == rc && r->has_out) {
        rc = mca_coll_topo_copy_span(&r->call, r->b.work, &r->out, false);
    }
    r->active = false;
    r->super.super.req_status.MPI_ERROR = OMPI_SUCCESS == rc ? MPI_SUCCESS : rc;
    if (!r->freed) {
        ompi_request_complete(&r->super.super, true);
        return;
    }
    /* nobody holds it: its completion callback (the objects Open MPI's
     * binding retained) runs, then it goes */
    ompi_request_complete(&r->super.super, false);
    nb_release(r);
}

/* Move an active request on (under nb_lock); true when it ended. */
static bool nb_advance(mca_coll_topo_nb_t *r)
{
    bool done = false;
    int rc = mca_coll_topo_run_test(&r->exec, &done);
    if (OMPI_SUCCESS != rc || done) {
        active_remove(r);
        nb_end(r, rc);
        return true;
    }
    return false;
}

/* Open MPI's progress engine: every active operation moves on. */
static int nb_progress(void)
{
    if (opal_using_threads() ? 0 != opal_mutex_trylock(&nb_lock) : nb_busy) {
        return 0; /* another thread is at it, or a progress call nested in ours */
    }
    nb_busy = true;
    int n = 0;
    for (mca_coll_topo_nb_t *r = nb_active, *next; NULL != r; r = next) {
        next = r->next;
        n += nb_advance(r);
    }
    if (NULL == nb_active && nb_registered) {
        /* Open MPI lets a callback unregister itself */
        (void)opal_progress_unregister(nb_progress);
        nb_registered = false;
    }
    nb_busy = false;
    OPAL_THREAD_UNLOCK(&nb_lock);
    return n;
}

/* Start (one run of) the operation: the next sequence number of its
 * communicator, its input copied in, its first steps posted. */
static int nb_activate(mca_coll_topo_nb_t *r)
{
    mca_coll_topo_module_t *m = r->m;
    const unsigned seq = m->nb_seq++;
    const int block = (int)(seq % COLL_TOPO_NB_SEQS);
    int rc = OMPI_SUCCESS;

    /* The operation COLL_TOPO_NB_SEQS starts back may still be in flight
     * here: it has started on every rank (all start in the same order),
     * so it completes without this one. */
    while (NULL != m->nb_inflight[block]) {
        opal_progress();
    }
    r->super.super.req_complete = REQUEST_PENDING;
    r->super.super.req_state = OMPI_REQUEST_ACTIVE;
    r->super.super.req_status.MPI_ERROR = MPI_SUCCESS;
    r->active = true;
    if (NULL == r->plan) {
        OPAL_THREAD_LOCK(&nb_lock);
        nb_end(r, OMPI_SUCCESS); /* nothing moves */
        OPAL_THREAD_UNLOCK(&nb_lock);
        return OMPI_SUCCESS;
    }
    if (r->has_in) {
        rc = mca_coll_topo_copy_span(&r->call, r->b.work, &r->in, true);
    }
    if (OMPI_SUCCESS == rc) {
        rc = mca_coll_topo_run_start(&r->exec, r->plan, r->b.work, &r->b, r->call.edt, r->call.op,
                                     r->comm, COLL_TOPO_TAG_NB(seq));
    }
    OPAL_THREAD_LOCK(&nb_lock);
    if (OMPI_SUCCESS != rc) {
        nb_end(r, rc);
        OPAL_THREAD_UNLOCK(&nb_lock);
        return OMPI_SUCCESS; /* the request carries the error */
    }
    m->nb_inflight[block] = r;
    r->block = block;
    r->next = nb_active;
    r->prev_active = NULL;
    if (NULL != nb_active) {
        nb_active->prev_active = r;
    }
    nb_active = r;
    if (!nb_registered) {
        nb_registered = OPAL_SUCCESS == opal_progress_register(nb_progress);
    }
    (void)nb_advance(r); /* what completed already (small sends go inline) */
    OPAL_THREAD_UNLOCK(&nb_lock);
    return OMPI_SUCCESS;
}

/* MPI_Start and MPI_Startall of persistent requests. */
static int nb_start(size_t count, ompi_request_t **requests)
{
    for (size_t i = 0; i < count; i++) {
        mca_coll_topo_nb_t *r = (mca_coll_topo_nb_t *)requests[i];
        if (r->active) {
            return OMPI_ERR_REQUEST; /* started twice */
        }
        int rc = nb_activate(r);
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
    }
    return OMPI_SUCCESS;
}

/* MPI's free (MPI_Wait and MPI_Test of a nonblocking request, or
 * MPI_Request_free). */
static int nb_free(ompi_request_t **request)
{
    mca_coll_topo_nb_t *r = (mca_coll_topo_nb_t *)*request;
    *request = MPI_REQUEST_NULL;
    OPAL_THREAD_LOCK(&nb_lock);
    if (r->active) {
        r->freed = true; /* released when it ends */
        OPAL_THREAD_UNLOCK(&nb_lock);
        return OMPI_SUCCESS;
    }
    OPAL_THREAD_UNLOCK(&nb_lock);
    nb_release(r);
    return OMPI_SUCCESS;
}

/* MPI forbids cancelling a collective's request: nothing to do. */
static int nb_cancel(ompi_request_t *request, int complete)
{
    (void)request;
    (void)complete;
    return OMPI_SUCCESS;
}

int mca_coll_topo_istart(const mca_coll_topo_call_t *call, void *user,
                         const mca_coll_topo_span_t *in, const mca_coll_topo_span_t *out,
                         ompi_request_t **request)
{
    const bool persistent = COLL_TOPO_PERSISTENT == call->mode;
    mca_coll_topo_nb_t *r = OBJ_NEW(mca_coll_topo_nb_t);
    int rc = OMPI_SUCCESS;
    if (NULL == r) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    OMPI_REQUEST_INIT(&r->super.super, persistent);
    r->super.super.req_type = OMPI_REQUEST_COLL;
    r->super.super.req_status = (ompi_status_public_t){
        .MPI_SOURCE = MPI_ANY_SOURCE, .MPI_TAG = MPI_ANY_TAG, .MPI_ERROR = MPI_SUCCESS};
    r->super.super.req_start = nb_start;
    r->super.super.req_free = nb_free;
    r->super.super.req_cancel = nb_cancel;
    r->super.super.req_mpi_object.comm = call->comm;
    r->m = call->m;
    r->comm = call->comm;
    OBJ_RETAIN(&r->m->super);
    OBJ_RETAIN(r->comm);
    r->call = *call;
    r->call.units = NULL; /* the module's: the plan has its own copy */
    r->call.counts = NULL;
    r->call.plan = NULL;
    r->call.reason = NULL;
    r->call.edt = NULL == call->sched ? NULL : call->edt;
    r->call.op = NULL == call->sched ? NULL : call->op;
    if (NULL != r->call.edt) {
        OBJ_RETAIN(r->call.edt);
    }
    if (NULL != r->call.op) {
        OBJ_RETAIN(r->call.op);
    }

    if (NULL != call->sched) {
        const mca_coll_topo_span_t *copy_in, *copy_out;
        mca_coll_topo_span_t whole;
        const mca_coll_topo_plan_t *p = NULL;
        mca_coll_topo_place_data(call, user, in, out, &r->b, &copy_in, &copy_out, &whole);
        if (NULL != copy_in) {
            r->in = *copy_in;
            r->has_in = true;
            retain_span(&r->in, true);
        }
        if (NULL != copy_out) {
            r->out = *copy_out;
            r->has_out = true;
            retain_span(&r->out, true);
        }
        rc = mca_coll_topo_exec_plan(call->m, call->sched, &r->b, call->n, call->units, call->edt,
                                     call->op, call->plan, &p);
        if (OMPI_SUCCESS == rc && NULL != p) {
            r->plan = mca_coll_topo_plan_dup(p);
            rc = NULL == r->plan ? OMPI_ERR_OUT_OF_RESOURCE : OMPI_SUCCESS;
        }
        if (OMPI_SUCCESS == rc && NULL == r->b.work &&
            (r->has_in || r->has_out || (NULL != r->plan && r->plan->uses_work))) {
            rc = mca_coll_topo_exec_stage(&r->exec, call->edt, call->n, &r->b.work);
        }
        if (OMPI_SUCCESS == rc && NULL != r->plan &&
            OPAL_UNLIKELY(mca_coll_topo_component.verbose > 0)) {
            mca_coll_topo_say_form(call->m, call->comm, call->prim, call->algo, call->mode);
        }
    }
    if (OMPI_SUCCESS == rc && !persistent) {
        rc = nb_activate(r);
    }
    if (OMPI_SUCCESS != rc) {
        nb_release(r);
        return rc;
    }
    *request = &r->super.super;
    return OMPI_SUCCESS;
}

void mca_coll_topo_nb_finalize(void)
{
    OPAL_THREAD_LOCK(&nb_lock);
    if (nb_registered) {
        (void)opal_progress_unregister(nb_progress);
        nb_registered = false;
    }
    OPAL_THREAD_UNLOCK(&nb_lock);
}

/* ------------------------------------------------------------------ */
/* The previous module's functions of these forms                      */

void mca_coll_topo_save_previous_forms(mca_coll_topo_module_t *m, struct ompi_communicator_t *comm)
{
    mca_coll_base_comm_coll_t *c = comm->c_coll;
#define TOPO_SAVE_FORM(table, slot, name)                                     \
    do {                                                                      \
        m->table[slot].fn.name = c->coll_##name;                              \
        m->table[slot].module = c->coll_##name##_module;                      \
        if (NULL == m->table[slot].fn.any || NULL == m->table[slot].module) { \
            m->table[slot].fn.any = NULL;                                     \
            m->table[slot].module = NULL;                                     \
        } else {                                                              \
            OBJ_RETAIN(m->table[slot].module);                                \
        }                                                                     \
    } while (0)
    TOPO_SAVE_FORM(iprev, TOPO_PRIM_ALLREDUCE, iallreduce);
    TOPO_SAVE_FORM(iprev, TOPO_PRIM_REDUCE_SCATTER, ireduce_scatter);
    TOPO_SAVE_FORM(iprev, COLL_TOPO_SLOT_REDUCE_SCATTER_BLOCK, ireduce_scatter_block);
    TOPO_SAVE_FORM(iprev, TOPO_PRIM_ALLGATHER, iallgather);
    TOPO_SAVE_FORM(iprev, TOPO_PRIM_BCAST, ibcast);
    TOPO_SAVE_FORM(iprev, TOPO_PRIM_REDUCE, ireduce);
    TOPO_SAVE_FORM(iprev, TOPO_PRIM_ALLTOALL, ialltoall);
    TOPO_SAVE_FORM(iprev, TOPO_PRIM_BARRIER, ibarrier);
    TOPO_SAVE_FORM(pprev, TOPO_PRIM_ALLREDUCE, allreduce_init);
    TOPO_SAVE_FORM(pprev, TOPO_PRIM_REDUCE_SCATTER, reduce_scatter_init);
    TOPO_SAVE_FORM(pprev, COLL_TOPO_SLOT_REDUCE_SCATTER_BLOCK, reduce_scatter_block_init);
    TOPO_SAVE_FORM(pprev, TOPO_PRIM_ALLGATHER, allgather_init);
    TOPO_SAVE_FORM(pprev, TOPO_PRIM_BCAST, bcast_init);
    TOPO_SAVE_FORM(pprev, TOPO_PRIM_REDUCE, reduce_init);
    TOPO_SAVE_FORM(pprev, TOPO_PRIM_ALLTOALL, alltoall_init);
    TOPO_SAVE_FORM(pprev, TOPO_PRIM_BARRIER, barrier_init);
#undef TOPO_SAVE_FORM
}

void mca_coll_topo_drop_previous_forms(mca_coll_topo_module_t *m)
{
    for (int i = 0; i < COLL_TOPO_NSLOTS; i++) {
        mca_coll_topo_previous_nb_t *f[2] = {&m->iprev[i], &m->pprev[i]};
        for (int k = 0; k < 2; k++) {
            if (NULL != f[k]->module) {
                OBJ_RELEASE(f[k]->module);
            }
            f[k]->module = NULL;
            f[k]->fn.any = NULL;
        }
    }
}
