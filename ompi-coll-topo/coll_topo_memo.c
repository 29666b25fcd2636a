/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The memo of repeated calls (coll_topo_memo.h): per slot, what a call was
 * given (its route: an algorithm with its schedule, layout and plan, or the
 * previous module), for the calls that repeat it.  This file owns the
 * entries: it allocates and grows a slot's memo, keeps a call in it, and
 * forgets entries (when the slot grows, when its routes change, when the
 * module is freed).  The lookup is inline in coll_topo_memo.h.
 */
#include "ompi_config.h"

#include <stdlib.h>
#include <string.h>

#include "coll_topo.h"

/* Forget one entry (frees its plan, releases its datatype and operation). */
static void forget(mca_coll_topo_module_t *m, mca_coll_topo_memo_entry_t *e)
{
    if (NULL != e->plan.own) {
        m->memo_plan_bytes -= mca_coll_topo_plan_bytes(e->plan.own);
        mca_coll_topo_plan_free(e->plan.own);
    }
    if (e->valid) {
        if (NULL != e->dtype) {
            OBJ_RELEASE(e->dtype);
        }
        if (NULL != e->op) {
            OBJ_RELEASE(e->op);
        }
    }
    free(e->counts);
    free(e->units);
    memset(e, 0, sizeof(*e));
}

void mca_coll_topo_memo_clear_slot(mca_coll_topo_module_t *m, int slot)
{
    mca_coll_topo_memo_t *mm = &m->memo;
    const unsigned n = mm->sets[slot] * COLL_TOPO_MEMO_WAYS;
    for (unsigned j = 0; NULL != mm->entries[slot] && j < n; j++) {
        forget(m, &mm->entries[slot][j]);
    }
    free(mm->entries[slot]);
    mm->entries[slot] = NULL;
    mm->last[slot] = NULL;
    mm->sets[slot] = 0;
    mm->replaced[slot] = 0;
}

void mca_coll_topo_memo_clear(mca_coll_topo_module_t *m)
{
    for (int i = 0; i < COLL_TOPO_NSLOTS; i++) {
        mca_coll_topo_memo_clear_slot(m, i);
    }
}

/* The memo of `slot`, allocated at its first call, or grown 4 times when
 * it has replaced COLL_TOPO_MEMO_GROW_AFTER times as many entries as it
 * holds since it was allocated: the slot's calls cycle through more than it
 * holds, and every one of them was deciding and compiling its plan again.
 * Growing forgets what the memo held (the calls that repeat it find it
 * again after one more miss).  NULL: out of memory. */
static mca_coll_topo_memo_entry_t *entries_of(mca_coll_topo_module_t *m, int slot)
{
    mca_coll_topo_memo_t *mm = &m->memo;
    unsigned sets = COLL_TOPO_MEMO_SETS_MIN;
    if (NULL != mm->entries[slot]) {
        const unsigned long held = (unsigned long)mm->sets[slot] * COLL_TOPO_MEMO_WAYS;
        if (mm->sets[slot] >= COLL_TOPO_MEMO_SETS_MAX ||
            mm->replaced[slot] < COLL_TOPO_MEMO_GROW_AFTER * held) {
            return mm->entries[slot];
        }
        sets = 4 * mm->sets[slot];
        mca_coll_topo_memo_clear_slot(m, slot);
    }
    mm->entries[slot] =
        calloc((size_t)sets * COLL_TOPO_MEMO_WAYS, sizeof(mca_coll_topo_memo_entry_t));
    mm->sets[slot] = NULL != mm->entries[slot] ? sets : 0;
    return mm->entries[slot];
}

mca_coll_topo_memo_entry_t *mca_coll_topo_memo_keep(mca_coll_topo_module_t *m, int slot,
                                                    const mca_coll_topo_call_t *call)
{
    const bool previous = NULL == call->algo;
    const int size = ompi_comm_size(call->comm);
    const int nunits = !previous && NULL != call->units ? topo_sched_units(call->sched) : 0;
    int *counts = NULL;
    size_t *units = NULL;

    const mca_coll_topo_memo_entry_t *all = entries_of(m, slot);
    if (NULL != call->counts) {
        counts = malloc((size_t)size * sizeof(*counts));
    }
    if (nunits > 0) {
        units = malloc((size_t)nunits * sizeof(*units));
    }
    if (NULL == all || (NULL != call->counts && NULL == counts) || (nunits > 0 && NULL == units)) {
        free(counts);
        free(units);
        return NULL;
    }
    if (NULL != counts) {
        memcpy(counts, call->counts, (size_t)size * sizeof(*counts));
    }
    if (NULL != units) {
        memcpy(units, call->units, (size_t)nunits * sizeof(*units));
    }
    mca_coll_topo_memo_t *mm = &m->memo;
    mca_coll_topo_memo_entry_t *set =
                                   mca_coll_topo_memo_set(mm, slot, call->count, call->unit,
                                                          call->root),
                               *e = NULL;
    for (int w = 0; w < COLL_TOPO_MEMO_WAYS && NULL == e; w++) {
        e = set[w].valid ? NULL : &set[w];
    }
    if (NULL == e) {
        e = &set[mm->turn[slot]++ % COLL_TOPO_MEMO_WAYS];
        mm->replaced[slot]++;
    }
    /* The replaced entry's plan is compiled again for this call when it
     * needs one (rather than freed and allocated again: an application
     * cycling through more calls than the memo holds replaces an entry at
     * every call); the previous module needs none. */
    mca_coll_topo_plan_t *spare = previous ? NULL : e->plan.own;
    if (NULL != spare) {
        e->plan.own = NULL;
        mca_coll_topo_plan_invalidate(spare);
    }
    forget(m, e);
    if (NULL != call->dtype) {
        OBJ_RETAIN(call->dtype);
    }
    if (NULL != call->op) {
        OBJ_RETAIN(call->op);
    }
    *e = (mca_coll_topo_memo_entry_t){
        .valid = true,
        .root = call->root,
        .count = call->count,
        .unit = call->unit,
        .counts = counts,
        .ncounts = NULL != counts ? size : 0,
        .dtype = call->dtype,
        .op = call->op,
        .algo = call->algo,
        .sched = previous ? -1 : mca_coll_topo_sched_index(m, call->sched),
        .edt = call->edt,
        .k = call->k,
        .eext = call->eext,
        .n = call->n,
        .units = units,
        .plan = {NULL, 0, spare},
    };
    mm->last[slot] = e;
    return e;
}
