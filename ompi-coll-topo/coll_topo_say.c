/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The verbose output (coll_topo_verbose): lines on stderr, printed by rank
 * 0 of each communicator, each starting "coll:topo: comm NAME (cid N)".
 * Level 1: the topology (coll_topo_place.c), the algorithm each primitive
 * uses and why, and the reason of every call that goes to the previous
 * module, each said once per communicator; level 2: also the decision
 * tables and every candidate's price, and when the communicator is freed,
 * how its calls went.
 */
#include "ompi_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll_topo.h"

const char *mca_coll_topo_comm_name(struct ompi_communicator_t *comm)
{
    return '\0' != comm->c_name[0] ? comm->c_name : "(unnamed)";
}

bool mca_coll_topo_should_say(struct ompi_communicator_t *comm, int level)
{
    return mca_coll_topo_component.verbose >= level && 0 == ompi_comm_rank(comm);
}

const char *mca_coll_topo_slot_name(int slot)
{
    return COLL_TOPO_SLOT_REDUCE_SCATTER_BLOCK == slot ? "reduce_scatter_block"
                                                      : topo_prim_name((topo_prim_t)slot);
}

/* The flag of (prim, algo) in said_algo, or NULL. */
static unsigned char *said_flag(mca_coll_topo_module_t *m, topo_prim_t prim,
                                const topo_algo_t *algo)
{
    int ncat;
    const topo_algo_t *cat = topo_catalog(&ncat);
    ptrdiff_t idx = algo - cat;
    if (NULL == m->said.algo || idx < 0 || idx >= ncat) {
        return NULL;
    }
    return &m->said.algo[(size_t)prim * (size_t)ncat + (size_t)idx];
}

bool mca_coll_topo_algorithm_said(mca_coll_topo_module_t *m, topo_prim_t prim,
                                  const topo_algo_t *algo)
{
    const unsigned char *said = said_flag(m, prim, algo);
    return NULL == said || (*said & 1);
}

void mca_coll_topo_say_algorithm(mca_coll_topo_module_t *m, struct ompi_communicator_t *comm,
                                 topo_prim_t prim, const topo_algo_t *algo, const char *why)
{
    unsigned char *said = said_flag(m, prim, algo);
    if (NULL == said || (*said & 1)) {
        return;
    }
    *said |= 1;
    if (mca_coll_topo_should_say(comm, COLL_TOPO_VERBOSE_DECISIONS)) {
        fprintf(stderr, "coll:topo: comm %s (cid %u): %s uses %s (%s)\n",
                mca_coll_topo_comm_name(comm), (unsigned)comm->c_contextid, topo_prim_name(prim),
                algo->name, why);
        fflush(stderr);
    }
}

void mca_coll_topo_say_form(mca_coll_topo_module_t *m, struct ompi_communicator_t *comm,
                            topo_prim_t prim, const topo_algo_t *algo, int mode)
{
    unsigned char *said = said_flag(m, prim, algo);
    const unsigned char bit = COLL_TOPO_PERSISTENT == mode ? 4 : 2;
    if (NULL == said || (*said & bit)) {
        return;
    }
    *said |= bit;
    if (mca_coll_topo_should_say(comm, COLL_TOPO_VERBOSE_DECISIONS)) {
        fprintf(stderr,
                "coll:topo: comm %s (cid %u): %s%s%s runs %s from the progress engine (%s, "
                "over the PML)\n",
                mca_coll_topo_comm_name(comm), (unsigned)comm->c_contextid,
                COLL_TOPO_PERSISTENT == mode ? "" : "i", topo_prim_name(prim),
                COLL_TOPO_PERSISTENT == mode ? "_init" : "", algo->name,
                COLL_TOPO_PERSISTENT == mode ? "persistent" : "nonblocking");
        fflush(stderr);
    }
}

void mca_coll_topo_say_previous(mca_coll_topo_module_t *m, struct ompi_communicator_t *comm,
                                topo_prim_t prim, const char *reason)
{
    if (!mca_coll_topo_should_say(comm, COLL_TOPO_VERBOSE_DECISIONS)) {
        return;
    }
    /* Reasons are kept per primitive: "allreduce: <reason>". */
    char key[320];
    snprintf(key, sizeof(key), "%s: %s", topo_prim_name(prim), reason);
    for (int i = 0; i < m->said.nreasons; i++) {
        if (0 == strcmp(m->said.reasons[i], key)) {
            return;
        }
    }
    if (m->said.nreasons == m->said.cap_reasons) {
        int cap = m->said.cap_reasons ? 2 * m->said.cap_reasons : 8;
        char **r = realloc(m->said.reasons, (size_t)cap * sizeof(*r));
        if (NULL == r) {
            return;
        }
        m->said.reasons = r;
        m->said.cap_reasons = cap;
    }
    char *dup = strdup(key);
    if (NULL == dup) {
        return;
    }
    m->said.reasons[m->said.nreasons++] = dup;
    fprintf(stderr, "coll:topo: comm %s (cid %u): %s goes to the previous module (%s)\n",
            mca_coll_topo_comm_name(comm), (unsigned)comm->c_contextid, topo_prim_name(prim),
            reason);
    fflush(stderr);
}

void mca_coll_topo_say_excluded(struct ompi_communicator_t *comm, topo_prim_t prim,
                                const char *name, const char *why)
{
    fprintf(stderr, "coll:topo: comm %s (cid %u): %s candidate %s: excluded (%s)\n",
            mca_coll_topo_comm_name(comm), (unsigned)comm->c_contextid, topo_prim_name(prim),
            name, why);
}

/* Level 2, once per table: the excluded candidates and the ranges. */
void mca_coll_topo_say_table(struct ompi_communicator_t *comm, const mca_coll_topo_decision_t *d,
                             const topo_proto_t *proto)
{
    fprintf(stderr,
            "coll:topo: comm %s (cid %u): %s decision (root %d, %s, eager limit %.0f "
            "bytes, rendezvous +%.3f us per step, +%.3f us within a node):",
            mca_coll_topo_comm_name(comm), (unsigned)comm->c_contextid, topo_prim_name(d->prim),
            d->root, topo_opclass_name(d->opclass), proto->eager, proto->rndv * 1e6,
            proto->rndv_intra * 1e6);
    for (int k = 0; k < d->table.n && d->table.lo[k] <= d->upto; k++) {
        const int c = d->table.cand[k];
        const size_t last = topo_decision_range_last(&d->table, k, d->upto);
        char hi[32] = "inf";
        if (SIZE_MAX != last) {
            snprintf(hi, sizeof(hi), "%zu", last);
        }
        fprintf(stderr, "%s %zu-%s bytes: %s", k > 0 ? "," : "", d->table.lo[k], hi,
                c >= 0 ? d->algo[c]->name : "(previous module)");
    }
    if (SIZE_MAX != d->upto) {
        fprintf(stderr,
                " (first stage: priced for payloads up to %zu bytes, the first larger "
                "call prices the rest)",
                d->upto);
    }
    fprintf(stderr, "\n");
    if (d->together > 0) {
        /* a line of its own, so that the table's line reads the same as a
         * single process's (the same table) */
        fprintf(stderr,
                "coll:topo: comm %s (cid %u): %s decision (root %d, %s) priced by the %d ranks "
                "together, each its share of the candidates (coll_topo_price_share)\n",
                mca_coll_topo_comm_name(comm), (unsigned)comm->c_contextid,
                topo_prim_name(d->prim), d->root, topo_opclass_name(d->opclass), d->together);
    }
}

/* Level 2: every candidate's price, once per (primitive, power-of-two
 * payload bucket) per communicator. */
void mca_coll_topo_say_candidates(mca_coll_topo_module_t *m, struct ompi_communicator_t *comm,
                                  const mca_coll_topo_decision_t *d, size_t bytes)
{
    if (!mca_coll_topo_should_say(comm, COLL_TOPO_VERBOSE_CANDIDATES)) {
        return;
    }
    int bucket = 0;
    while (bucket < 63 && (bytes >> bucket) > 1) {
        bucket++;
    }
    const uint64_t bit = (uint64_t)1 << bucket;
    if (m->said.bucket[d->prim] & bit) {
        return;
    }
    m->said.bucket[d->prim] |= bit;
    for (int i = 0; i < d->ncand; i++) {
        fprintf(stderr, "coll:topo: comm %s (cid %u): %s candidate %s for %zu bytes: %.3f us\n",
                mca_coll_topo_comm_name(comm), (unsigned)comm->c_contextid,
                topo_prim_name(d->prim), d->algo[i]->name, bytes,
                topo_price_at(&d->price[i], bytes) * 1e6);
    }
    fflush(stderr);
}

/* coll_topo_verbose=2, when the communicator is freed: how its calls
 * went through the memo of repeated calls (the calls the routes give the
 * previous module at the entry are not counted). */
void mca_coll_topo_say_calls(const mca_coll_topo_module_t *m)
{
    bool any = false;
    for (int i = 0; i < COLL_TOPO_NSLOTS; i++) {
        if (0 == m->memo.hits[i] + m->memo.decided[i]) {
            continue;
        }
        any = true;
        char grown[64] = "";
        if (m->memo.sets[i] > COLL_TOPO_MEMO_SETS_MIN) {
            snprintf(grown, sizeof(grown), " (the memo grew to %u entries)",
                     m->memo.sets[i] * COLL_TOPO_MEMO_WAYS);
        }
        fprintf(stderr,
                "coll:topo: comm %s: %s: %lu calls, %lu repeating a remembered call, %lu "
                "decided%s\n",
                m->said.comm,
                mca_coll_topo_slot_name(i),
                m->memo.hits[i] + m->memo.decided[i], m->memo.hits[i], m->memo.decided[i], grown);
    }
    if (any) {
        fprintf(stderr,
                "coll:topo: comm %s: %lu executor plans compiled, %lu derived from another "
                "count's\n",
                m->said.comm, m->exec.plans_compiled, m->exec.plans_derived);
        fflush(stderr);
    }
}

void mca_coll_topo_said_free(mca_coll_topo_module_t *m)
{
    free(m->said.algo);
    m->said.algo = NULL;
    for (int i = 0; i < m->said.nreasons; i++) {
        free(m->said.reasons[i]);
    }
    free(m->said.reasons);
    m->said.reasons = NULL;
    m->said.nreasons = m->said.cap_reasons = 0;
}
