/*
 * The automatic decision: an argmin over priced candidates.
 *
 * A candidate is every catalog algorithm of the primitive that fits the call
 * (topo_algo_fits).  Its price comes from the core cost model in affine form
 * (coll_topo_alpha/beta/gamma, and coll_topo_hop per extra link hop),
 * t(M) = lat + per_byte * M for a payload of M bytes, computed once per
 * (communicator, algorithm, root) and cached in the module, so a call costs
 * O(#algorithms).  Every rank has the same inputs (communicator size,
 * topology, parameters, payload) and runs the same arithmetic, so every rank
 * picks the same algorithm without communicating.  Ties go to the earlier
 * catalog row.
 */
#include "ompi_config.h"

#include <stdio.h>
#include <string.h>

#include "coll_topo.h"

static const mca_coll_topo_cost_entry_t *cost_of(mca_coll_topo_module_t *m, const topo_algo_t *algo,
                                                 const topo_gen_args_t *args)
{
    for (int i = 0; i < m->ncosts; i++) {
        if (m->costs[i].algo == algo && m->costs[i].root == args->root) {
            return &m->costs[i];
        }
    }
    if (m->ncosts == m->cap_costs) {
        size_t cap = (size_t)m->cap_costs * sizeof(*m->costs);
        if (OMPI_SUCCESS != mca_coll_topo_grow((void **)&m->costs, &cap,
                                               (size_t)(m->ncosts + 1) * sizeof(*m->costs))) {
            return NULL;
        }
        m->cap_costs = (int)(cap / sizeof(*m->costs));
    }
    const mca_coll_topo_component_t *c = &mca_coll_topo_component;
    const topo_cost_params_t params = {c->alpha, c->beta, c->gamma};
    const topo_cost_net_t net = {.hop = c->hop, .no_links = 0};
    mca_coll_topo_cost_entry_t *e = &m->costs[m->ncosts++];
    e->algo = algo;
    e->root = args->root;
    e->lat = 0.0;
    e->per_byte = 0.0;
    e->rc = topo_cost_affine_net(algo, args, &params, &net, &e->lat, &e->per_byte);
    return e;
}

/* Level-2 output: every candidate, priced or excluded.  Printed once per
 * (primitive, power-of-two payload bucket) per communicator. */
static bool say_candidates(mca_coll_topo_module_t *m, struct ompi_communicator_t *comm,
                           topo_prim_t prim, size_t bytes)
{
    if (!mca_coll_topo_should_say(comm, COLL_TOPO_VERBOSE_CANDIDATES)) {
        return false;
    }
    int bucket = 0;
    while (bucket < 63 && (bytes >> bucket) > 1) {
        bucket++;
    }
    uint64_t bit = (uint64_t)1 << bucket;
    if (m->said_bucket[prim] & bit) {
        return false;
    }
    m->said_bucket[prim] |= bit;
    return true;
}

const topo_algo_t *mca_coll_topo_decide(mca_coll_topo_module_t *m, struct ompi_communicator_t *comm,
                                        const topo_gen_args_t *args, int commutative, size_t bytes,
                                        double *predicted)
{
    int n;
    const topo_algo_t *cat = topo_catalog(&n);
    const topo_algo_t *best = NULL;
    double best_t = 0.0;
    const bool say = say_candidates(m, comm, args->prim, bytes);
    char why[256];

    for (int i = 0; i < n; i++) {
        const topo_algo_t *a = &cat[i];
        if (a->prim != args->prim) {
            continue;
        }
        why[0] = '\0';
        if (!topo_algo_fits(a, args, commutative, why, sizeof(why))) {
            if (say) {
                fprintf(stderr,
                        "coll:topo: comm %s (cid %u): %s candidate %s for %zu bytes: "
                        "excluded (%s)\n",
                        mca_coll_topo_comm_name(comm), (unsigned)comm->c_contextid,
                        topo_prim_name(args->prim), a->name, bytes, why);
            }
            continue;
        }
        const mca_coll_topo_cost_entry_t *e = cost_of(m, a, args);
        if (NULL == e || TOPO_OK != e->rc) {
            if (say) {
                fprintf(stderr,
                        "coll:topo: comm %s (cid %u): %s candidate %s for %zu bytes: "
                        "excluded (the cost model could not price it)\n",
                        mca_coll_topo_comm_name(comm), (unsigned)comm->c_contextid,
                        topo_prim_name(args->prim), a->name, bytes);
            }
            continue;
        }
        double t = e->lat + e->per_byte * (double)bytes;
        if (say) {
            fprintf(stderr, "coll:topo: comm %s (cid %u): %s candidate %s for %zu bytes: %.3f us\n",
                    mca_coll_topo_comm_name(comm), (unsigned)comm->c_contextid,
                    topo_prim_name(args->prim), a->name, bytes, t * 1e6);
        }
        if (NULL == best || t < best_t) {
            best = a;
            best_t = t;
        }
    }
    if (say) {
        fflush(stderr);
    }
    *predicted = best_t;
    return best;
}
