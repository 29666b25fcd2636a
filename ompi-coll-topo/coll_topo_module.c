/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * coll/topo module: one per communicator.  comm_query creates it, enable
 * saves the functions it replaces (the previous module of each slot), and
 * the caches it keeps (placement, routes, decision tables, memo,
 * schedules, scratch buffers) live until the communicator is freed, when
 * the destructor releases them.  The schedules of a module are generated
 * here, once per (algorithm, root).
 */
#include "ompi_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi.h"

#include "coll_topo.h"
#include "coll_topo_ofi.h"

static int topo_module_enable(mca_coll_base_module_t *module, struct ompi_communicator_t *comm);
static int topo_module_disable(mca_coll_base_module_t *module, struct ompi_communicator_t *comm);

static void topo_module_construct(mca_coll_topo_module_t *m)
{
    memset((char *)m + sizeof(m->super), 0, sizeof(*m) - sizeof(m->super));
    /* until the first call settles it (mca_coll_topo_model_set) */
    m->model.segment = mca_coll_topo_component.segment_size;
}

static void topo_module_destruct(mca_coll_topo_module_t *m)
{
    if ('\0' != m->said.comm[0]) {
        mca_coll_topo_say_calls(m);
    }
    for (int i = 0; i < COLL_TOPO_NSLOTS; i++) {
        if (NULL != m->prev[i].module) {
            OBJ_RELEASE(m->prev[i].module);
            m->prev[i].module = NULL;
        }
    }
    mca_coll_topo_drop_previous_forms(m);
    for (int i = 0; i < m->nscheds; i++) {
        if (TOPO_OK == m->scheds[i].rc) {
            topo_sched_free(&m->scheds[i].sched);
        }
        mca_coll_topo_plan_free(m->scheds[i].plan);
    }
    mca_coll_topo_memo_clear(m);
    for (int i = 0; i < COLL_TOPO_NSLOTS; i++) {
        free(m->tune.cls[i]);
    }
    free(m->placement.place);
    free(m->scheds);
    for (int i = 0; i < m->nsched_at; i++) {
        free(m->sched_at[i].at);
    }
    free(m->sched_at);
    mca_coll_topo_tables_free(m);
    mca_coll_topo_said_free(m);
    mca_coll_topo_exec_free(&m->exec);
    free(m->units);
}

OBJ_CLASS_INSTANCE(mca_coll_topo_module_t, mca_coll_base_module_t, topo_module_construct,
                   topo_module_destruct);

int mca_coll_topo_init_query(bool enable_progress_threads, bool enable_mpi_threads)
{
    (void)enable_progress_threads;
    (void)enable_mpi_threads;
    return mca_coll_topo_component.disqualified ? OMPI_ERR_NOT_AVAILABLE : OMPI_SUCCESS;
}

mca_coll_base_module_t *mca_coll_topo_comm_query(struct ompi_communicator_t *comm, int *priority)
{
    if (mca_coll_topo_component.disqualified || mca_coll_topo_component.priority < 0 ||
        OMPI_COMM_IS_INTER(comm) || ompi_comm_size(comm) < 2) {
        return NULL;
    }
    /* Every rank must run coll/topo alike, or the exchanges of the first
     * call would wait for ranks that never take part: no module on any
     * rank that runs it (the same answer on each, coll_topo_agree.c). */
    if (!mca_coll_topo_ranks_run_topo(comm)) {
        return NULL;
    }
    mca_coll_topo_module_t *m = OBJ_NEW(mca_coll_topo_module_t);
    if (NULL == m) {
        return NULL;
    }
    *priority = mca_coll_topo_component.priority;
    m->super.coll_module_enable = topo_module_enable;
    m->super.coll_module_disable = topo_module_disable;
    m->super.coll_allreduce = mca_coll_topo_allreduce_intra;
    m->super.coll_reduce_scatter = mca_coll_topo_reduce_scatter_intra;
    m->super.coll_reduce_scatter_block = mca_coll_topo_reduce_scatter_block_intra;
    m->super.coll_allgather = mca_coll_topo_allgather_intra;
    m->super.coll_bcast = mca_coll_topo_bcast_intra;
    m->super.coll_reduce = mca_coll_topo_reduce_intra;
    m->super.coll_alltoall = mca_coll_topo_alltoall_intra;
    m->super.coll_barrier = mca_coll_topo_barrier_intra;
    /* the nonblocking and persistent forms: the same routes (coll_topo_nbc.c) */
    m->super.coll_iallreduce = mca_coll_topo_iallreduce_intra;
    m->super.coll_ireduce_scatter = mca_coll_topo_ireduce_scatter_intra;
    m->super.coll_ireduce_scatter_block = mca_coll_topo_ireduce_scatter_block_intra;
    m->super.coll_iallgather = mca_coll_topo_iallgather_intra;
    m->super.coll_ibcast = mca_coll_topo_ibcast_intra;
    m->super.coll_ireduce = mca_coll_topo_ireduce_intra;
    m->super.coll_ialltoall = mca_coll_topo_ialltoall_intra;
    m->super.coll_ibarrier = mca_coll_topo_ibarrier_intra;
    m->super.coll_allreduce_init = mca_coll_topo_allreduce_init;
    m->super.coll_reduce_scatter_init = mca_coll_topo_reduce_scatter_init;
    m->super.coll_reduce_scatter_block_init = mca_coll_topo_reduce_scatter_block_init;
    m->super.coll_allgather_init = mca_coll_topo_allgather_init;
    m->super.coll_bcast_init = mca_coll_topo_bcast_init;
    m->super.coll_reduce_init = mca_coll_topo_reduce_init;
    m->super.coll_alltoall_init = mca_coll_topo_alltoall_init;
    m->super.coll_barrier_init = mca_coll_topo_barrier_init;
    return &m->super;
}

/* Save the function and module that served `slot` before us. */
static void save_previous(mca_coll_topo_module_t *m, struct ompi_communicator_t *comm, int slot)
{
    mca_coll_topo_previous_t *f = &m->prev[slot];
#define TOPO_SAVE(name)                          \
    f->fn.name = comm->c_coll->coll_##name;      \
    f->module = comm->c_coll->coll_##name##_module
    f->fn.any = NULL;
    f->module = NULL;
    switch (slot) {
    case TOPO_PRIM_ALLREDUCE: TOPO_SAVE(allreduce); break;
    case TOPO_PRIM_REDUCE_SCATTER: TOPO_SAVE(reduce_scatter); break;
    case COLL_TOPO_SLOT_REDUCE_SCATTER_BLOCK: TOPO_SAVE(reduce_scatter_block); break;
    case TOPO_PRIM_ALLGATHER: TOPO_SAVE(allgather); break;
    case TOPO_PRIM_BCAST: TOPO_SAVE(bcast); break;
    case TOPO_PRIM_REDUCE: TOPO_SAVE(reduce); break;
    case TOPO_PRIM_ALLTOALL: TOPO_SAVE(alltoall); break;
    case TOPO_PRIM_BARRIER: TOPO_SAVE(barrier); break;
    default: break;
    }
#undef TOPO_SAVE
    f->tuned = false;
    if (NULL == f->fn.any || NULL == f->module) {
        f->fn.any = NULL;
        f->module = NULL;
        return;
    }
    OBJ_RETAIN(f->module);
    const opal_class_t *cls = f->module->super.obj_class;
    f->tuned = NULL != cls && NULL != cls->cls_name &&
               0 == strcmp(cls->cls_name, "mca_coll_tuned_module_t");
}

static void drop_previous(mca_coll_topo_module_t *m)
{
    for (int i = 0; i < COLL_TOPO_NSLOTS; i++) {
        if (NULL != m->prev[i].module) {
            OBJ_RELEASE(m->prev[i].module);
        }
        m->prev[i].module = NULL;
        m->prev[i].fn.any = NULL;
    }
}

static int topo_module_enable(mca_coll_base_module_t *module, struct ompi_communicator_t *comm)
{
    mca_coll_topo_module_t *m = (mca_coll_topo_module_t *)module;
    static bool said_no_previous = false;
    int ncat;

    (void)topo_catalog(&ncat);
    for (int i = 0; i < COLL_TOPO_NSLOTS; i++) {
        save_previous(m, comm, i);
        if (NULL == m->prev[i].fn.any) {
            /* Every rank has the same component list, so every rank ends
             * up here: no agreement is needed to back out. */
            if (mca_coll_topo_once(&said_no_previous)) {
                mca_coll_topo_show_help("no-previous", mca_coll_topo_slot_name(i));
            }
            drop_previous(m);
            return OMPI_ERR_NOT_AVAILABLE;
        }
    }
    /* The other forms' previous functions (NULL where no module has one:
     * the calls coll/topo does not serve then fail, as they would without
     * coll/topo) */
    mca_coll_topo_save_previous_forms(m, comm);

    /* Nothing here communicates: with MPI_THREAD_MULTIPLE a new
     * communicator is enabled inside opal_progress (ompi_comm_activate),
     * where a blocking collective never completes (every MPI_Comm_dup hung
     * while this function agreed on its outcome with an allreduce).  The
     * only way out above is the same on every rank; without memory for the
     * said-once flags, the first-use lines are not printed (coll_topo_say.c). */
    m->said.algo = calloc((size_t)TOPO_PRIM_COUNT * (size_t)(ncat > 0 ? ncat : 1), 1);
    m->enabled = true;
    return OMPI_SUCCESS;
}

/* Called once per function slot we occupy: only flag; the destructor frees. */
static int topo_module_disable(mca_coll_base_module_t *module, struct ompi_communicator_t *comm)
{
    (void)comm;
    ((mca_coll_topo_module_t *)module)->enabled = false;
    return OMPI_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Schedules                                                           */

const topo_sched_t *mca_coll_topo_schedule(mca_coll_topo_module_t *m, const topo_algo_t *algo,
                                           const topo_gen_args_t *args)
{
    /* an entry per root for the rooted primitives; the others' root is 0 */
    const int nroots =
        TOPO_PRIM_BCAST == algo->prim || TOPO_PRIM_REDUCE == algo->prim ? args->size : 1;
    if (args->root < 0 || args->root >= nroots) {
        return NULL; /* mpi_param_check off: the previous module reports it */
    }
    int k = 0;
    while (k < m->nsched_at && m->sched_at[k].algo != algo) {
        k++;
    }
    if (k == m->nsched_at) {
        void *grown = realloc(m->sched_at, sizeof(*m->sched_at) * (size_t)(k + 1));
        int *at = calloc((size_t)nroots, sizeof(int));
        if (NULL != grown) {
            m->sched_at = grown;
        }
        if (NULL == grown || NULL == at) {
            free(at);
            return NULL;
        }
        m->sched_at[k].algo = algo;
        m->sched_at[k].at = at;
        m->nsched_at++;
    }
    int *at = &m->sched_at[k].at[args->root];
    if (*at > 0) {
        mca_coll_topo_sched_entry_t *e = &m->scheds[*at - 1];
        return TOPO_OK == e->rc ? &e->sched : NULL;
    }
    if (m->nscheds == m->cap_scheds) {
        size_t cap = (size_t)m->cap_scheds * sizeof(*m->scheds);
        if (OMPI_SUCCESS != mca_coll_topo_grow((void **)&m->scheds, &cap,
                                               (size_t)(m->nscheds + 1) * sizeof(*m->scheds))) {
            return NULL;
        }
        m->cap_scheds = (int)(cap / sizeof(*m->scheds));
    }
    mca_coll_topo_sched_entry_t *e = &m->scheds[m->nscheds++];
    memset(e, 0, sizeof(*e));
    e->rc = topo_algo_generate(algo, args, &e->sched);
    *at = m->nscheds;
    return TOPO_OK == e->rc ? &e->sched : NULL;
}
