/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * coll_topo_autotune: the first calls of each payload class, timed against
 * the previous module.
 *
 * The cost model's prices are predictions; on a machine it was not
 * calibrated for, the previous module (coll/tuned, whose fixed decisions
 * were measured on real machines) can be faster.  So for each (slot,
 * payload bit length, commutative or not) whose algorithm `auto` chose,
 * after coll_topo_autotune_calls (K) calls that run as usual (a class
 * called fewer times costs nothing), calls alternate between coll/topo and
 * the previous module: one of each to warm up, then K of each, every one
 * started after the previous module's barrier and timed on its own.  Each
 * rank's mean per side (its slowest call left out) goes through the
 * previous module's MPI_Allreduce (MPI_MAX), so every rank sees the same
 * two numbers and reaches the same verdict at the same call: keep
 * coll/topo, or hand the class's calls to the previous module.  This is
 * "delayed finalization" of STAR-MPI (Faraj, Yuan and Lowenthal, ICS 2006)
 * with two contenders: the model's choice and the component below.
 *
 * Every rank sees the same calls in the same order on a communicator
 * (MPI's rule for collectives), and a call's payload class depends only on
 * what all ranks pass alike (count and type signature, commutativity), so
 * the calls counted per class, the side each call takes and the call that
 * decides are the same on every rank.  coll_topo_autotune and its calls and
 * margin are part of the agreement hash (mca_coll_topo_params_hash).
 *
 * Results: bcast, allgather, alltoall and barrier move data, and any
 * algorithm gives the same result.  A reduction of floating-point sums or
 * products rounds differently along another algorithm's order, so
 * `exact` (the default) times only reductions whose result cannot change:
 * integer types, or MAX, MIN, the logical and bitwise operations, MAXLOC
 * and MINLOC; `all` times every call `auto` decides.
 */
#include "ompi_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mpi.h"

#include "coll_topo.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int mca_coll_topo_tune_key(mca_coll_topo_module_t *m, const mca_coll_topo_call_t *call, int slot,
                           int opclass, size_t bytes)
{
    const int mode = mca_coll_topo_component.autotune;
    if (COLL_TOPO_AUTOTUNE_OFF == mode ||
        (COLL_TOPO_AUTOTUNE_EXACT == mode && TOPO_OP_EXACT != opclass) ||
        NULL == m->prev[TOPO_PRIM_BARRIER].fn.any || NULL == m->prev[TOPO_PRIM_ALLREDUCE].fn.any) {
        return -1;
    }
    const int commutative = NULL == call->op || ompi_op_is_commute(call->op);
    if (NULL == m->tune.cls[slot]) {
        m->tune.cls[slot] = calloc(COLL_TOPO_TUNE_KEYS, sizeof(mca_coll_topo_tune_t));
        if (NULL == m->tune.cls[slot]) {
            return -1; /* out of memory: no timing, coll/topo keeps the call */
        }
    }
    return 2 * mca_coll_topo_bit_length(bytes) + !commutative;
}

int mca_coll_topo_tune_start(mca_coll_topo_call_t *call, int slot, int key)
{
    mca_coll_topo_module_t *m = call->m;
    if (0 != m->tune.slot) {
        /* a collective the previous module calls inside a timed call (tuned's
         * reduce_scatter_block calls MPI_Reduce): part of that call's time,
         * not timed itself (every rank makes the same calls) */
        return COLL_TOPO_RUN;
    }
    mca_coll_topo_tune_t *t = &m->tune.cls[slot][key];
    const unsigned k = (unsigned)mca_coll_topo_component.autotune_calls;
    if (t->calls < k) {
        /* a class called only a few times on this communicator costs no
         * barrier: its first k calls are coll/topo's, not timed */
        t->calls++;
        return COLL_TOPO_RUN;
    }
    const int side = (t->calls - k) & 1; /* the same on every rank */
    if (0 == side) {
        t->algo = call->algo;
    }
    /* every rank starts the call together, so that one call's time does
     * not include waiting for the ranks the last one left behind */
    const mca_coll_topo_previous_t *b = &m->prev[TOPO_PRIM_BARRIER];
    const int rc = b->fn.barrier(call->comm, b->module);
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    m->tune.slot = slot + 1;
    m->tune.key = key;
    m->tune.side = side;
    m->tune.t0 = now();
    call->timed = true;
    return side ? COLL_TOPO_PREVIOUS : COLL_TOPO_RUN;
}

/* "512-1023", "0" */
static void class_range(int key, char *s, size_t len)
{
    const int b = key / 2;
    if (0 == b) {
        snprintf(s, len, "0");
    } else if (b >= 64) {
        snprintf(s, len, "%zu-%zu", (size_t)1 << 63, SIZE_MAX);
    } else {
        snprintf(s, len, "%zu-%zu", (size_t)1 << (b - 1), ((size_t)1 << b) - 1);
    }
}

void mca_coll_topo_tune_class(int key, char *s, size_t len)
{
    char r[48];
    class_range(key, r, sizeof(r));
    snprintf(s, len, "payloads of %s bytes%s", r, key % 2 ? ", non-commutative" : "");
}

/* Can the slot's routes give the previous module a class by the payload
 * alone (read at the entry)?  When every call of it is timed alike: a
 * primitive that only moves data (exact whatever the mode; no operation,
 * so one class per bit length), with no rule for this communicator's size
 * (a rule covering part of the class keeps those calls in coll/topo). */
static bool by_payload(int slot, struct ompi_communicator_t *comm)
{
    if (TOPO_PRIM_BCAST != slot && TOPO_PRIM_ALLGATHER != slot && TOPO_PRIM_ALLTOALL != slot &&
        TOPO_PRIM_BARRIER != slot) {
        return false;
    }
    const topo_rules_t *rules = mca_coll_topo_rules((topo_prim_t)slot);
    return NULL == rules || NULL == topo_rules_group(rules, ompi_comm_size(comm));
}

/* The verdict of a class whose calls are all timed. */
static void decide(mca_coll_topo_module_t *m, struct ompi_communicator_t *comm, int slot,
                   mca_coll_topo_tune_t *t, int key)
{
    const int k = mca_coll_topo_component.autotune_calls;
    double v[2];
    for (int s = 0; s < 2; s++) {
        v[s] = k > 1 ? (t->sum[s] - t->max[s]) / (k - 1) : t->sum[s];
    }
    const mca_coll_topo_previous_t *a = &m->prev[TOPO_PRIM_ALLREDUCE];
    const int rc = a->fn.allreduce(MPI_IN_PLACE, v, 2, MPI_DOUBLE, MPI_MAX, comm, a->module);
    /* keep coll/topo unless the previous module was faster by more than
     * the margin (an error leaves coll/topo; every rank sees the same
     * outcome of a collective that completes) */
    const bool prev =
        OMPI_SUCCESS == rc && v[0] > v[1] * (1.0 + mca_coll_topo_component.autotune_margin);
    t->verdict = prev ? COLL_TOPO_TUNE_PREV : COLL_TOPO_TUNE_KEEP;
    if (prev && by_payload(slot, comm) && key / 2 < 64) {
        const int b = key / 2;
        const mca_coll_topo_route_t r = {.lo = 0 == b ? 0 : (size_t)1 << (b - 1),
                                         .hi = (size_t)1 << b,
                                         .root = -1,
                                         .commutative = -1,
                                         .by = TOPO_BY_AUTOTUNE,
                                         .algo = t->algo};
        mca_coll_topo_routes_put(&m->routes[slot], &r);
    }
    if (OPAL_UNLIKELY(mca_coll_topo_should_say(comm, COLL_TOPO_VERBOSE_DECISIONS))) {
        char cls[96];
        mca_coll_topo_tune_class(key, cls, sizeof(cls));
        const char *name = mca_coll_topo_slot_name(slot);
        fprintf(stderr,
                "coll:topo: comm %s (cid %u): %s, %s: coll/topo (%s) took %.2f us, the previous "
                "module %.2f us (the slowest rank's mean of %d call%s each): %s "
                "(coll_topo_autotune)\n",
                mca_coll_topo_comm_name(comm), (unsigned)comm->c_contextid, name, cls,
                NULL != t->algo ? t->algo->name : "?", v[0] * 1e6, v[1] * 1e6, k, 1 == k ? "" : "s",
                prev ? "hands these calls to the previous module" : "keeps them");
        fflush(stderr);
    }
    /* the slot's remembered calls were timed ones: route them again */
    mca_coll_topo_memo_clear_slot(m, slot);
}

int mca_coll_topo_tune_end(mca_coll_topo_module_t *m, struct ompi_communicator_t *comm, int rc)
{
    const double dt = now() - m->tune.t0;
    const int slot = m->tune.slot - 1, side = m->tune.side;
    mca_coll_topo_tune_t *t = &m->tune.cls[slot][m->tune.key];
    const unsigned k = (unsigned)mca_coll_topo_component.autotune_calls;
    /* the timed calls before this one; the first of each side warms up */
    const unsigned n = t->calls++ - k;
    if (n >= 2) {
        t->sum[side] += dt;
        t->max[side] = dt > t->max[side] ? dt : t->max[side];
    }
    /* (counted after an error too: every rank must reach the verdict's
     * allreduce at the same call) */
    if (t->calls >= 3 * k + 2) {
        /* (with tune_slot still set: the collectives the previous
         * module's allreduce may call on this communicator are not timed) */
        decide(m, comm, slot, t, m->tune.key);
    }
    m->tune.slot = 0;
    return rc;
}
