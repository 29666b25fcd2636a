/*
 * The automatic decision: the core's decision table (decision.h) per
 * communicator.
 *
 * A candidate is every catalog algorithm of the primitive that fits the call
 * (topo_algo_fits).  Its price comes from the core cost model
 * (coll_topo_alpha/beta/gamma, coll_topo_copy per byte copied locally,
 * coll_topo_msg_overhead per message a rank sends,
 * coll_topo_hop per extra link hop) plus the
 * rendezvous switch of the point-to-point protocol (coll_topo_eager_limit,
 * coll_topo_rndv_alpha).  At the first call of a (primitive, root,
 * commutativity) on a communicator every candidate is priced and the table
 * of payload ranges is built; every later call is a binary search in it.
 * On a communicator of more ranks than coll_topo_price_ranks, a first call
 * of at most TOPO_PRICE_FIRST_STAGE bytes prices only the candidates that
 * can be the cheapest up to that payload, and the first call above it
 * prices the table of every payload (two stages, see below).
 * Every rank has the same inputs (communicator size, topology, parameters,
 * payload; the agreement check of coll_topo_module.c covers them) and runs
 * the same arithmetic, so every rank picks the same algorithm without
 * communicating.  Ties go to the earlier catalog row.
 */
#include "ompi_config.h"

#include <stdio.h>
#include <string.h>

#include "ompi/mca/pml/base/base.h"
#include "opal/mca/btl/base/base.h"
#include "opal/threads/mutex.h"

#include "coll_topo.h"

/* Headers that travel in the eager fragment with the data: ob1's match
 * header and the BTL's own (with vader in Open MPI 4.1.4 the switch was
 * measured between 4040 and 4044 bytes of data for a 4096-byte limit). */
#define COLL_TOPO_EAGER_HEADERS 64

/* The largest message the BTLs ob1 sends with all send eagerly (not self,
 * which only reaches this process): their smallest eager limit less the
 * headers; 0 when the PML is not ob1 (cm, ucx: their protocols are not
 * modelled). */
static double btl_eager_limit(void)
{
    const char *pml = mca_pml_base_selected_component.pmlm_version.mca_component_name;
    if (0 != strcmp(pml, "ob1")) {
        return 0.0;
    }
    size_t limit = 0;
    mca_btl_base_selected_module_t *sm;
    OPAL_LIST_FOREACH (sm, &mca_btl_base_modules_initialized, mca_btl_base_selected_module_t) {
        if (0 == strcmp(sm->btl_component->btl_version.mca_component_name, "self")) {
            continue;
        }
        size_t e = sm->btl_module->btl_eager_limit;
        if (e > 0 && (0 == limit || e < limit)) {
            limit = e;
        }
    }
    return limit > COLL_TOPO_EAGER_HEADERS ? (double)(limit - COLL_TOPO_EAGER_HEADERS) : 0.0;
}

const topo_proto_t *mca_coll_topo_proto(void)
{
    static topo_proto_t proto;
    static volatile bool ready = false; /* set after proto (see coll_topo.h) */
    if (ready) {
        opal_atomic_rmb();
        return &proto;
    }
    OPAL_THREAD_LOCK(&mca_coll_topo_lazy_lock);
    if (ready) {
        OPAL_THREAD_UNLOCK(&mca_coll_topo_lazy_lock);
        return &proto;
    }
    const mca_coll_topo_component_t *c = &mca_coll_topo_component;
    proto.eager = c->eager_limit >= 0 ? (double)c->eager_limit : btl_eager_limit();
    proto.rndv = c->rndv_alpha >= 0.0 ? c->rndv_alpha : 2.0 * c->alpha;
    /* within a node (single copy) the receiver pulls the data as soon as
     * the first fragment arrives: one shared-memory message more, the
     * sender's acknowledgement */
    proto.rndv_intra = c->rndv_alpha >= 0.0   ? c->rndv_alpha
                       : c->intra_alpha > 0.0 ? c->intra_alpha
                                              : 2.0 * c->alpha;
    /* segments no larger than the eager limit never go by rendezvous */
    if (0 != c->segment_size && (double)c->segment_size <= proto.eager) {
        proto.eager = 0.0;
    }
    if (proto.eager <= 0.0 || proto.rndv <= 0.0) {
        proto.eager = proto.rndv = proto.rndv_intra = 0.0;
    }
    opal_atomic_wmb();
    ready = true;
    OPAL_THREAD_UNLOCK(&mca_coll_topo_lazy_lock);
    return &proto;
}

static void decision_free(mca_coll_topo_decision_t *d)
{
    if (d->shared) {
        return;
    }
    for (int i = 0; i < d->ncand; i++) {
        topo_price_free(&d->price[i]);
    }
    free(d->price);
    free(d->algo);
    topo_decision_free(&d->table);
}

void mca_coll_topo_decisions_free(mca_coll_topo_module_t *m)
{
    for (int i = 0; i < m->ndecisions; i++) {
        decision_free(&m->decisions[i]);
    }
    free(m->decisions);
    m->decisions = NULL;
    m->ndecisions = m->cap_decisions = 0;
}

static void say_excluded(struct ompi_communicator_t *comm, topo_prim_t prim, const char *name,
                         const char *why)
{
    fprintf(stderr, "coll:topo: comm %s (cid %u): %s candidate %s: excluded (%s)\n",
            mca_coll_topo_comm_name(comm), (unsigned)comm->c_contextid, topo_prim_name(prim),
            name, why);
}

/* The payloads the table of a first call of `bytes` on a communicator of
 * `size` ranks covers: TOPO_PRICE_FIRST_STAGE (4096) in the first stage,
 * else every payload.  On torus:32x32x16 (`topo-plan --eager-limit 4032
 * --sizes 8 --first-stage`, machine C) the first allreduce of at most 4
 * KiB then prices in 0.15 s instead of 0.69 s, the first allgather,
 * reduce_scatter or alltoall in 0.22-0.24 s instead of 0.74-0.87 s.  A
 * function of the call and the parameters alone: every rank prices the
 * same stage (and any stage gives the same answer for the payloads it
 * covers). */
static size_t stage_upto(int size, size_t bytes)
{
    const mca_coll_topo_component_t *c = &mca_coll_topo_component;
    return c->prune && c->price_ranks > 0 && size > c->price_ranks &&
                   bytes <= TOPO_PRICE_FIRST_STAGE
               ? TOPO_PRICE_FIRST_STAGE
               : SIZE_MAX;
}

/* Level 2, once per table: the excluded candidates and the ranges. */
static void say_table(struct ompi_communicator_t *comm, const mca_coll_topo_decision_t *d,
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
}

/* Price the candidates (those that can be the cheapest up to `upto`
 * bytes) and build the table, appended to m->decisions (which has room for
 * it).  NULL when out of memory. */
static mca_coll_topo_decision_t *build(mca_coll_topo_module_t *m, struct ompi_communicator_t *comm,
                                       const topo_gen_args_t *args, int opclass, size_t upto)
{
    const mca_coll_topo_component_t *c = &mca_coll_topo_component;
    const topo_cost_params_t params = {c->alpha, c->beta, c->gamma};
    const topo_cost_net_t net = {.hop = c->hop,
                                 .no_links = 0,
                                 .intra_alpha = c->intra_alpha,
                                 .intra_beta = c->intra_beta,
                                 .intra_beta_written = c->intra_beta_written,
                                 .copy = c->copy,
                                 .msg_overhead = c->msg_overhead,
                                 .price_ranks = c->price_ranks};
    const topo_proto_t proto = *mca_coll_topo_proto();
    const bool say = mca_coll_topo_should_say(comm, COLL_TOPO_VERBOSE_CANDIDATES);
    int n;
    const topo_algo_t *cat = topo_catalog(&n);
    mca_coll_topo_decision_t d = {
        .prim = args->prim, .root = args->root, .opclass = opclass, .upto = upto};
    d.algo = calloc((size_t)n, sizeof(*d.algo));
    d.price = calloc((size_t)n, sizeof(*d.price));
    const topo_price_t **pr = calloc((size_t)n, sizeof(*pr));
    const topo_algo_t **fit = calloc((size_t)n, sizeof(*fit));
    topo_price_t *price = calloc((size_t)n, sizeof(*price));
    int *prc = calloc((size_t)n, sizeof(*prc));
    int rc = NULL == d.algo || NULL == d.price || NULL == pr || NULL == fit || NULL == price ||
                     NULL == prc
                 ? TOPO_ENOMEM
                 : TOPO_OK;
    int nfit = 0;
    for (int i = 0; i < n && TOPO_OK == rc; i++) {
        char why[256] = "";
        const topo_algo_t *a = &cat[i];
        if (a->prim != args->prim) {
            continue;
        }
        if (!topo_algo_fits(a, args, opclass, why, sizeof(why))) {
            if (say) {
                say_excluded(comm, args->prim, a->name, why);
            }
            continue;
        }
        fit[nfit++] = a;
    }
    /* candidates whose lower bound is above a priced one at every payload
     * are not priced: they cannot be in the table (decision.h) */
    if (TOPO_OK == rc) {
        rc = topo_price_candidates_upto(fit, nfit, args, &params, &net, &proto, c->prune, upto,
                                        price, prc, NULL);
    }
    for (int k = 0; k < nfit && TOPO_OK == rc; k++) {
        if (TOPO_OK != prc[k]) {
            if (say) {
                char why[160];
                if (TOPO_PRUNED != prc[k]) {
                    snprintf(why, sizeof(why), "the cost model could not price it");
                } else if (SIZE_MAX == upto) {
                    snprintf(why, sizeof(why),
                             "pruned: its lower bound is above a priced candidate's price at "
                             "every payload");
                } else {
                    snprintf(why, sizeof(why),
                             "pruned: its lower bound is above a priced candidate's price at "
                             "every payload up to %zu bytes",
                             upto);
                }
                say_excluded(comm, args->prim, fit[k]->name, why);
            }
            continue;
        }
        d.algo[d.ncand] = fit[k];
        d.price[d.ncand] = price[k];
        pr[d.ncand] = &d.price[d.ncand];
        d.ncand++;
    }
    free(fit);
    free(price);
    free(prc);
    if (TOPO_OK == rc) {
        rc = topo_decision_build(pr, d.ncand, &d.table);
    }
    free(pr);
    if (TOPO_OK != rc) {
        decision_free(&d);
        return NULL;
    }
    if (say) {
        say_table(comm, &d, &proto);
        fflush(stderr);
    }
    m->decisions[m->ndecisions] = d;
    return &m->decisions[m->ndecisions++];
}

/* The tables of this process, for every communicator whose decisions have
 * the same inputs: the topology (its placement included), size,
 * primitive, root and commutativity (the parameters are the process's), so
 * that a communicator duplicated or split into the same shape (a library's
 * MPI_Comm_dup of MPI_COMM_WORLD) does not price again what another one
 * did: on 4096 ranks, seconds per primitive.  At most
 * COLL_TOPO_SHARED_DECISIONS of them; the calls that build one hold
 * shared_lock (communicators of different threads). */
#define COLL_TOPO_SHARED_DECISIONS 256
typedef struct {
    topo_topology_t topo; /* place: an owned copy of `size` entries, or NULL */
    int size;
    mca_coll_topo_decision_t d;
} shared_decision_t;
static shared_decision_t shared[COLL_TOPO_SHARED_DECISIONS];
static int nshared;
static opal_mutex_t shared_lock = OPAL_MUTEX_STATIC_INIT;

static bool same_inputs(const shared_decision_t *e, const topo_gen_args_t *a, int opclass)
{
    const topo_topology_t *t = a->topo, *u = &e->topo;
    if (e->size != a->size || e->d.prim != a->prim || e->d.root != a->root ||
        e->d.opclass != opclass || t->kind != u->kind || t->ndims != u->ndims ||
        t->ports != u->ports || (NULL == t->place) != (NULL == u->place)) {
        return false;
    }
    for (int i = 0; i < t->ndims && i < TOPO_MAX_DIMS; i++) {
        if (t->dims[i] != u->dims[i] || t->periodic[i] != u->periodic[i]) {
            return false;
        }
    }
    return NULL == t->place || 0 == memcmp(t->place, u->place, sizeof(int) * (size_t)a->size);
}

/* Keep d (built for a, opclass) for the process, if there is room:
 * then d is the cache's (shared). */
static void share(mca_coll_topo_decision_t *d, const topo_gen_args_t *a)
{
    if (nshared >= COLL_TOPO_SHARED_DECISIONS) {
        return;
    }
    shared_decision_t *e = &shared[nshared];
    e->topo = *a->topo;
    e->size = a->size;
    if (NULL != a->topo->place) {
        int *place = malloc(sizeof(int) * (size_t)a->size);
        if (NULL == place) {
            return;
        }
        memcpy(place, a->topo->place, sizeof(int) * (size_t)a->size);
        e->topo.place = place;
    }
    d->shared = true;
    e->d = *d;
    nshared++;
}

void mca_coll_topo_shared_decisions_free(void)
{
    for (int i = 0; i < nshared; i++) {
        shared[i].d.shared = false;
        decision_free(&shared[i].d);
        free((void *)shared[i].topo.place);
    }
    nshared = 0;
}

/* The table of (primitive, root, opclass) that covers `bytes`: the
 * module's, the process's (another communicator's with the same inputs),
 * or built now (the first stage's table stays beside the complete one, so
 * that neither moves under a communicator that shares it). */
static const mca_coll_topo_decision_t *find_or_build(mca_coll_topo_module_t *m,
                                                     struct ompi_communicator_t *comm,
                                                     const topo_gen_args_t *args, int opclass,
                                                     size_t bytes)
{
    for (int i = 0; i < m->ndecisions; i++) {
        const mca_coll_topo_decision_t *d = &m->decisions[i];
        if (d->prim == args->prim && d->root == args->root && d->opclass == opclass &&
            bytes <= d->upto) {
            m->last_decision[args->prim] = i + 1;
            return d;
        }
    }
    if (m->ndecisions == m->cap_decisions) {
        size_t cap = (size_t)m->cap_decisions * sizeof(*m->decisions);
        if (OMPI_SUCCESS !=
            mca_coll_topo_grow((void **)&m->decisions, &cap,
                               (size_t)(m->ndecisions + 1) * sizeof(*m->decisions))) {
            return NULL;
        }
        m->cap_decisions = (int)(cap / sizeof(*m->decisions));
    }
    const mca_coll_topo_decision_t *d = NULL;
    OPAL_THREAD_LOCK(&shared_lock);
    for (int i = 0; i < nshared && NULL == d; i++) {
        if (same_inputs(&shared[i], args, opclass) && bytes <= shared[i].d.upto) {
            m->decisions[m->ndecisions] = shared[i].d;
            d = &m->decisions[m->ndecisions++];
            if (mca_coll_topo_should_say(comm, COLL_TOPO_VERBOSE_CANDIDATES)) {
                say_table(comm, d, mca_coll_topo_proto());
                fflush(stderr);
            }
        }
    }
    if (NULL == d &&
        NULL != (d = build(m, comm, args, opclass, stage_upto(args->size, bytes)))) {
        share(&m->decisions[m->ndecisions - 1], args);
    }
    OPAL_THREAD_UNLOCK(&shared_lock);
    if (NULL != d) {
        m->last_decision[args->prim] = m->ndecisions;
    }
    return d;
}

/* The table of (primitive, root, opclass), built at its first call.
 * Where every root costs the same (topo_prim_root_free: a bcast on a star,
 * say), root 0's table serves them all, so that a communicator of
 * thousands of ranks that broadcasts from each prices once; elsewhere the
 * nearest of coll_topo_price_roots roots spread over the communicator
 * (topo_price_root) serves a root. */
static const mca_coll_topo_decision_t *lookup(mca_coll_topo_module_t *m,
                                              struct ompi_communicator_t *comm,
                                              const topo_gen_args_t *in, int opclass,
                                              size_t bytes)
{
    const topo_prim_t prim = in->prim;
    topo_gen_args_t a = *in;
    if (a.root < 0 || a.root >= a.size) {
        return NULL; /* mpi_param_check off: the previous module reports it */
    }
    if (0 != a.root) {
        if (0 == m->root_free[prim]) {
            m->root_free[prim] = topo_prim_root_free(prim, a.topo, a.size) ? 2 : 1;
        }
        a.root = 2 == m->root_free[prim]
                     ? 0
                     : topo_price_root(a.root, a.size, mca_coll_topo_component.price_roots);
    }
    const int last = m->last_decision[prim] - 1; /* stored + 1: 0 = none */
    if (last >= 0 && m->decisions[last].root == a.root &&
        m->decisions[last].opclass == opclass && bytes <= m->decisions[last].upto) {
        return &m->decisions[last];
    }
    return find_or_build(m, comm, &a, opclass, bytes);
}

/* Level 2: every candidate's price, once per (primitive, power-of-two
 * payload bucket) per communicator. */
static void say_candidates(mca_coll_topo_module_t *m, struct ompi_communicator_t *comm,
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
    if (m->said_bucket[d->prim] & bit) {
        return;
    }
    m->said_bucket[d->prim] |= bit;
    for (int i = 0; i < d->ncand; i++) {
        fprintf(stderr, "coll:topo: comm %s (cid %u): %s candidate %s for %zu bytes: %.3f us\n",
                mca_coll_topo_comm_name(comm), (unsigned)comm->c_contextid,
                topo_prim_name(d->prim), d->algo[i]->name, bytes,
                topo_price_at(&d->price[i], bytes) * 1e6);
    }
    fflush(stderr);
}

const topo_algo_t *mca_coll_topo_decide(mca_coll_topo_module_t *m, struct ompi_communicator_t *comm,
                                        const topo_gen_args_t *args, int opclass, size_t bytes,
                                        mca_coll_topo_choice_t *ch)
{
    const mca_coll_topo_decision_t *d = lookup(m, comm, args, opclass, bytes);
    *ch = (mca_coll_topo_choice_t){.predicted = 0.0, .msgs = 0, .steps = 0, .lo = 0, .hi = 0};
    if (NULL == d) {
        return NULL;
    }
    if (OPAL_UNLIKELY(mca_coll_topo_component.verbose >= COLL_TOPO_VERBOSE_CANDIDATES)) {
        say_candidates(m, comm, d, bytes);
    }
    if (d->table.n <= 0) {
        return NULL;
    }
    const int k = topo_decision_range(&d->table, bytes);
    const int c = d->table.cand[k];
    if (c < 0) {
        return NULL;
    }
    if (OPAL_UNLIKELY(mca_coll_topo_component.verbose > 0)) {
        ch->predicted = topo_price_at(&d->price[c], bytes);
    }
    ch->msgs = d->price[c].msgs;
    ch->steps = d->price[c].msg_steps;
    ch->lo = d->table.lo[k];
    /* the range, up to the payloads the table's stage covers */
    const size_t last = topo_decision_range_last(&d->table, k, d->upto);
    ch->hi = SIZE_MAX == last ? SIZE_MAX : last + 1;
    return d->algo[c];
}
