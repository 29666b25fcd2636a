/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The route of a call: an algorithm of ours, or the previous module (the
 * module that served the slot before coll/topo), in one order of
 * precedence:
 *   1. forced: coll_topo_<prim>_algorithm (not auto); one that does not fit
 *      the call gives the previous module, never another algorithm;
 *   2. rules: the rule of coll_topo_<prim>_rules covering the communicator's
 *      size and the payload (`previous`, or an algorithm that must fit);
 *   3. the routes of the previous module that hold by the payload alone
 *      (mca_coll_topo_routes_t, read by the entry before any other work):
 *      coll_topo_host_handoff (the ranks share one host, written at the
 *      communicator's first call), coll_topo_handoff (a one-message call on
 *      2 ranks, written by the first such call), the verdicts of
 *      coll_topo_autotune (written by coll_topo_autotune.c);
 *   4. auto: the cheapest candidate under the cost model, unless it is one
 *      message per rank on 2 ranks (coll_topo_handoff) or a payload class
 *      coll_topo_autotune found the previous module faster for.
 * Sources 1, 2, the one-host limit and the two-rank test are the core's
 * (route.h), which topo-plan --route prints with the same parameters.
 * The memo (coll_topo_memo.c) keeps each call's route, so this runs once
 * per distinct call.  Every rank must reach the same answer, so it depends
 * only on what is the same on every rank: the primitive, the root, the
 * payload in bytes, the operation and the unit counts.
 *
 * The automatic decision is the core's decision table (decision.h) per
 * communicator.  A candidate is every catalog algorithm of the primitive
 * that fits the call (topo_algo_fits).  Its price comes from the core cost
 * model (coll_topo_alpha/beta/gamma, coll_topo_copy per byte copied
 * locally, coll_topo_msg_overhead per message a rank sends, coll_topo_hop
 * per extra link hop) plus the rendezvous switch of the point-to-point
 * protocol (coll_topo_eager_limit, coll_topo_rndv_alpha).  At the first
 * call of a (primitive, root, commutativity) on a communicator every
 * candidate is priced and the table of payload ranges is built; every
 * later call is a binary search in it.  On a communicator of at least
 * coll_topo_price_share ranks (by default more than coll_topo_price_ranks)
 * a blocking first call prices the table of every payload with the other
 * ranks, each its share of the candidates (build_together, core share.h),
 * the prices exchanged with the previous module's allreduce.  Where a
 * communicator of more ranks than coll_topo_price_ranks prices alone
 * (coll_topo_price_share -1, or a nonblocking or persistent first call,
 * which may not block), a first call of at most TOPO_PRICE_FIRST_STAGE
 * bytes prices only the candidates that can be the cheapest up to that
 * payload, and the first call above it prices the table of every payload
 * (two stages, see below).  Every rank has the same inputs (communicator
 * size, topology, parameters, payload; the agreement of coll_topo_place.c
 * covers them) and runs the same arithmetic, so every rank picks the same
 * algorithm, alone or together (the same table).  Ties go to the earlier
 * catalog row.
 */
#include "ompi_config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ompi/mca/pml/base/base.h"
#include "opal/mca/base/mca_base_var.h"
#include "opal/mca/btl/base/base.h"
#include "opal/threads/mutex.h"

#include "coll_topo.h"
#include "share.h"

/* Headers that travel in the eager fragment with the data: ob1's match
 * header and the BTL's own (with vader in Open MPI 4.1.4 the switch was
 * measured between 4040 and 4044 bytes of data for a 4096-byte limit). */
#define COLL_TOPO_EAGER_HEADERS TOPO_BTL_EAGER_HEADERS

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
    enum { MAX_BTLS = 32 };
    topo_btl_info_t info[MAX_BTLS];
    int n = 0;
    mca_btl_base_selected_module_t *sm;
    OPAL_LIST_FOREACH (sm, &mca_btl_base_modules_initialized, mca_btl_base_selected_module_t) {
        const char *name = sm->btl_component->btl_version.mca_component_name;
        if (0 != strcmp(name, "self") && n < MAX_BTLS) {
            info[n++] = (topo_btl_info_t){.name = name,
                                          .eager_limit = (double)sm->btl_module->btl_eager_limit};
        }
    }
    topo_btl_costs_t costs;
    (void)topo_btl_costs(info, n, COLL_TOPO_EAGER_HEADERS, &costs);
    return costs.eager > 0.0 ? costs.eager : 0.0;
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

/* The BTLs that only reach processes of this host. */
static bool btl_local(const char *name)
{
    static const char *const local[] = {"self", "vader", "sm", "smcuda"};
    for (size_t i = 0; i < sizeof(local) / sizeof(local[0]); i++) {
        if (0 == strcmp(name, local[i])) {
            return true;
        }
    }
    return false;
}

/* the network BTLs' eager payload, as text: written with
 * mca_coll_topo_btl_costs's values, once */
static char btl_eager_text[96];

const topo_btl_costs_t *mca_coll_topo_btl_costs(const char **alpha_text, const char **beta_text)
{
    static topo_btl_costs_t costs;
    static char atext[96], btext[96];
    static volatile bool ready = false; /* set after costs (see coll_topo.h) */
    if (!ready) {
        OPAL_THREAD_LOCK(&mca_coll_topo_lazy_lock);
        if (!ready) {
            /* ob1 reaches a peer on another host with the network BTLs of
             * the highest exclusivity among those that reach it */
            enum { MAX_BTLS = 32 };
            topo_btl_info_t info[MAX_BTLS];
            int n = 0;
            uint32_t top = 0;
            /* only ob1 sends through the BTLs (cm, ucx: their own networks) */
            const bool ob1 =
                0 == strcmp(mca_pml_base_selected_component.pmlm_version.mca_component_name, "ob1");
            mca_btl_base_selected_module_t *sm;
            OPAL_LIST_FOREACH (sm, &mca_btl_base_modules_initialized,
                               mca_btl_base_selected_module_t) {
                const char *name = sm->btl_component->btl_version.mca_component_name;
                if (ob1 && !btl_local(name) && sm->btl_module->btl_exclusivity > top) {
                    top = sm->btl_module->btl_exclusivity;
                }
            }
            OPAL_LIST_FOREACH (sm, &mca_btl_base_modules_initialized,
                               mca_btl_base_selected_module_t) {
                const char *name = sm->btl_component->btl_version.mca_component_name;
                const mca_btl_base_module_t *b = sm->btl_module;
                if (!ob1 || btl_local(name) || b->btl_exclusivity != top || n == MAX_BTLS) {
                    continue;
                }
                /* the protocol switch stays mca_coll_topo_proto's (every
                 * BTL); this eager payload sizes the segments between
                 * hosts (mca_coll_topo_model_set) */
                info[n++] = (topo_btl_info_t){.name = name,
                                              .bandwidth = (double)b->btl_bandwidth,
                                              .latency = (double)b->btl_latency,
                                              .eager_limit = (double)b->btl_eager_limit};
            }
            (void)topo_btl_costs(info, n, COLL_TOPO_EAGER_HEADERS, &costs);
            if (costs.eager_from >= 0) {
                snprintf(btl_eager_text, sizeof(btl_eager_text), "btl_%s_eager_limit %.0f B less %d",
                         info[costs.eager_from].name, info[costs.eager_from].eager_limit,
                         COLL_TOPO_EAGER_HEADERS);
            }
            if (costs.alpha_from >= 0) {
                snprintf(atext, sizeof(atext), "btl_%s_latency %.0f us",
                         info[costs.alpha_from].name, info[costs.alpha_from].latency);
            }
            if (costs.beta_from >= 0) {
                snprintf(btext, sizeof(btext), "btl_%s_bandwidth %.0f Mbit/s",
                         info[costs.beta_from].name, info[costs.beta_from].bandwidth);
            }
            opal_atomic_wmb();
            ready = true;
        }
        OPAL_THREAD_UNLOCK(&mca_coll_topo_lazy_lock);
    } else {
        opal_atomic_rmb();
    }
    if (NULL != alpha_text) {
        *alpha_text = atext;
    }
    if (NULL != beta_text) {
        *beta_text = btext;
    }
    return &costs;
}

bool mca_coll_topo_param_set(const char *name)
{
    const int idx = mca_base_var_find("ompi", "coll", "topo", name);
    mca_base_var_source_t source = MCA_BASE_VAR_SOURCE_DEFAULT;
    return idx >= 0 && OPAL_SUCCESS == mca_base_var_get_value(idx, NULL, &source, NULL) &&
           MCA_BASE_VAR_SOURCE_DEFAULT != source;
}

void mca_coll_topo_model_set(mca_coll_topo_module_t *m, bool several_hosts, double btl_alpha,
                             double btl_beta, double btl_eager, bool auto_segment)
{
    const mca_coll_topo_component_t *c = &mca_coll_topo_component;
    mca_coll_topo_model_t *md = &m->model;
    const char *atext = "", *btext = "";
    const topo_btl_costs_t *mine = mca_coll_topo_btl_costs(&atext, &btext);
    md->alpha = c->alpha;
    md->beta = c->beta;
    md->proto = *mca_coll_topo_proto();
    char a[100], b[100];
    snprintf(a, sizeof(a), "%s", mca_coll_topo_param_set("alpha") ? "coll_topo_alpha" : "the default");
    snprintf(b, sizeof(b), "%s", mca_coll_topo_param_set("beta") ? "coll_topo_beta" : "the default");
    if (several_hosts && !mca_coll_topo_param_set("alpha") && btl_alpha > 0.0) {
        md->alpha = btl_alpha;
        snprintf(a, sizeof(a), "%s", mine->alpha == btl_alpha ? atext : "another rank's BTL");
        if (c->rndv_alpha < 0.0 && md->proto.rndv > 0.0) {
            md->proto.rndv = 2.0 * btl_alpha; /* one more round trip */
        }
    }
    if (several_hosts && !mca_coll_topo_param_set("beta") && btl_beta > 0.0) {
        md->beta = btl_beta;
        snprintf(b, sizeof(b), "%s", mine->beta == btl_beta ? btext : "another rank's BTL");
    }
    /* Between hosts a message over the eager payload goes by rendezvous:
     * over TCP its first fragment, then an acknowledgement, then the rest
     * (on the 4x4 testbed the segments of that payload made bucket's
     * reduce 1.3-2.7 times faster at 1-4 MiB), so where no rank set
     * coll_topo_segment_size, messages between hosts are split at it. */
    md->segment = c->segment_size;
    char seg[160] = "";
    if (several_hosts && auto_segment && btl_eager >= 1.0 &&
        (0 == md->segment || btl_eager < (double)md->segment)) {
        md->segment = (size_t)btl_eager;
        /* so no message between hosts pays a rendezvous: the model has no
         * protocol switch (within a host, shared memory's rendezvous of
         * the messages over its own eager payload, a single copy, is left
         * unpriced) */
        md->proto.eager = md->proto.rndv = md->proto.rndv_intra = 0.0;
        snprintf(seg, sizeof(seg), "; messages split at %zu B (%s)", md->segment,
                 btl_eager == mine->eager && '\0' != btl_eager_text[0]
                     ? btl_eager_text
                     : "another rank's BTL");
    }
    snprintf(md->source, sizeof(md->source),
             "network alpha %g s from %s, beta %g s/B from %s (%s)%s", md->alpha, a, md->beta, b,
             several_hosts ? "the ranks span several hosts"
                           : "one host: the BTLs between hosts are not used",
             seg);
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

void mca_coll_topo_tables_free(mca_coll_topo_module_t *m)
{
    for (int i = 0; i < m->tables.n; i++) {
        decision_free(&m->tables.d[i]);
    }
    free(m->tables.d);
    m->tables.d = NULL;
    m->tables.n = m->tables.cap = 0;
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

/* The cost model's parameters of this communicator's pricing. */
static void cost_inputs(const mca_coll_topo_module_t *m, topo_cost_params_t *params,
                        topo_cost_net_t *net)
{
    const mca_coll_topo_component_t *c = &mca_coll_topo_component;
    *params = (topo_cost_params_t){m->model.alpha, m->model.beta, c->gamma};
    *net = (topo_cost_net_t){.hop = c->hop,
                             .no_links = 0,
                             .intra_alpha = c->intra_alpha,
                             .intra_beta = c->intra_beta,
                             .intra_beta_written = c->intra_beta_written,
                             .copy = c->copy,
                             .msg_overhead = c->msg_overhead,
                             .price_ranks = c->price_ranks};
}

static mca_coll_topo_decision_t *keep(mca_coll_topo_module_t *m, struct ompi_communicator_t *comm,
                                      const topo_gen_args_t *args, int opclass, size_t upto,
                                      int together, topo_candidates_t *all);

/* Do the ranks of a communicator of `size` price its tables together
 * (coll_topo_price_share)?  A function of the parameters (in the
 * agreement hash) and the size, so every rank answers alike; never
 * without the previous module's allreduce, which carries the exchanges. */
static bool share_on(const mca_coll_topo_module_t *m, int size)
{
    const mca_coll_topo_component_t *c = &mca_coll_topo_component;
    const bool on = c->price_share > 0    ? size >= c->price_share
                    : 0 == c->price_share ? c->price_ranks > 0 && size > c->price_ranks
                                          : false;
    return on && size > 1 && NULL != m->prev[TOPO_PRIM_ALLREDUCE].fn.allreduce;
}

/* Price the candidates (those that can be the cheapest up to `upto`
 * bytes) and build the table, appended to m->tables.d (which has room for
 * it).  NULL when out of memory. */
static mca_coll_topo_decision_t *build(mca_coll_topo_module_t *m, struct ompi_communicator_t *comm,
                                       const topo_gen_args_t *args, int opclass, size_t upto)
{
    topo_cost_params_t params;
    topo_cost_net_t net;
    cost_inputs(m, &params, &net);
    const topo_proto_t proto = m->model.proto;
    topo_candidates_t all;
    /* candidates whose lower bound is above a priced one at every payload
     * are not priced: they cannot be in the table (decision.h) */
    if (TOPO_OK != topo_candidates_price(args, opclass, &params, &net, &proto,
                                         mca_coll_topo_component.prune, upto, 0, &all)) {
        return NULL;
    }
    return keep(m, comm, args, opclass, upto, 0, &all);
}

/* The allreduce of the previous module, in place (the shared pricing's
 * exchanges: never coll/topo's own, which is what is being decided). */
static int prev_allreduce(mca_coll_topo_module_t *m, struct ompi_communicator_t *comm, void *buf,
                          int count, struct ompi_datatype_t *dt, struct ompi_op_t *op)
{
    const mca_coll_topo_previous_t *f = &m->prev[TOPO_PRIM_ALLREDUCE];
    return f->fn.allreduce(MPI_IN_PLACE, buf, count, dt, op, comm, f->module);
}

/* One round of the shared pricing (share.h): this rank's share priced,
 * then three allreduces that every rank makes whatever happened here:
 * the records' lengths with the failure flag (max), whether every rank
 * has room for the records (min), the records (bitwise or of each rank's
 * at their places).  An error of one rank is every rank's after the first
 * allreduce, so that none waits for another that gave up. */
static int share_round(mca_coll_topo_module_t *m, struct ompi_communicator_t *comm,
                       topo_share_t *s, int round)
{
    int64_t len[TOPO_SHARE_SLOTS];
    topo_share_work(s, round, len);
    int rc = prev_allreduce(m, comm, len, TOPO_SHARE_SLOTS, MPI_INT64_T, MPI_MAX);
    if (OMPI_SUCCESS != rc || 0 != len[TOPO_SHARE_ERR]) {
        return OMPI_SUCCESS != rc ? rc : OMPI_ERR_OUT_OF_RESOURCE;
    }
    const size_t total = topo_share_total(len);
    if (total > INT_MAX) { /* the same lengths on every rank: every rank stops */
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    unsigned char none = 0, *buf = 0 == total ? &none : calloc(total, 1);
    int room = NULL != buf;
    if (0 != total) {
        rc = prev_allreduce(m, comm, &room, 1, MPI_INT, MPI_MIN);
        if (OMPI_SUCCESS == rc && room) {
            topo_share_put(s, len, buf);
            rc = prev_allreduce(m, comm, buf, (int)total, MPI_UNSIGNED_CHAR, MPI_BOR);
        }
    }
    if (OMPI_SUCCESS == rc && room) {
        topo_share_take(s, round, len, buf); /* an error: said at the next exchange */
    }
    if (&none != buf) {
        free(buf);
    }
    return OMPI_SUCCESS != rc ? rc : room ? OMPI_SUCCESS : OMPI_ERR_OUT_OF_RESOURCE;
}

/* The table of every payload priced by the communicator's ranks together
 * (coll_topo_price_share): each prices its share of the candidates, the
 * prices are exchanged, every rank builds the table from all of them, the
 * same table as build()'s (share.h; check_decision compares them).  The
 * ranks agree on the outcome, so that every rank has the table or none
 * has (then the call goes to the previous module on every rank, and the
 * next call tries again).  Appended to m->tables.d as build()'s; NULL on
 * an error of any rank. */
static mca_coll_topo_decision_t *build_together(mca_coll_topo_module_t *m,
                                                struct ompi_communicator_t *comm,
                                                const topo_gen_args_t *args, int opclass)
{
    topo_cost_params_t params;
    topo_cost_net_t net;
    cost_inputs(m, &params, &net);
    const topo_proto_t proto = m->model.proto;
    topo_share_t s;
    (void)topo_share_begin(&s, args, opclass, &params, &net, &proto,
                           mca_coll_topo_component.prune, ompi_comm_rank(comm),
                           ompi_comm_size(comm));
    int rc = OMPI_SUCCESS;
    for (int r = 0; r < TOPO_SHARE_ROUNDS && OMPI_SUCCESS == rc; r++) {
        rc = share_round(m, comm, &s, r);
    }
    topo_candidates_t all;
    int ok = OMPI_SUCCESS == rc && TOPO_OK == topo_share_finish(&s, &all);
    topo_share_free(&s);
    if (OMPI_SUCCESS == rc) { /* every rank made every exchange: agree on the end */
        int every = ok;
        rc = prev_allreduce(m, comm, &every, 1, MPI_INT, MPI_MIN);
        if ((OMPI_SUCCESS != rc || !every) && ok) {
            topo_candidates_free(&all);
        }
        ok = ok && OMPI_SUCCESS == rc && every;
    }
    return ok ? keep(m, comm, args, opclass, SIZE_MAX, ompi_comm_size(comm), &all) : NULL;
}

/* The candidates `all` (priced alone or together) as the module's table of
 * (args, opclass) for payloads up to upto, appended to m->tables.d (which
 * has room for it); all is freed.  NULL when out of memory. */
static mca_coll_topo_decision_t *keep(mca_coll_topo_module_t *m, struct ompi_communicator_t *comm,
                                      const topo_gen_args_t *args, int opclass, size_t upto,
                                      int together, topo_candidates_t *all_)
{
    topo_candidates_t all = *all_;
    const topo_proto_t proto = m->model.proto;
    const bool say = mca_coll_topo_should_say(comm, COLL_TOPO_VERBOSE_CANDIDATES);
    mca_coll_topo_decision_t d = {.prim = args->prim,
                                  .root = args->root,
                                  .opclass = opclass,
                                  .upto = upto,
                                  .together = together};
    d.algo = calloc((size_t)all.n + 1, sizeof(*d.algo));
    d.price = calloc((size_t)all.n + 1, sizeof(*d.price));
    int *at = calloc((size_t)all.n + 1, sizeof(*at)); /* all.cand -> d's index */
    if (NULL == d.algo || NULL == d.price || NULL == at) {
        free(d.algo);
        free(d.price);
        free(at);
        topo_candidates_free(&all);
        return NULL;
    }
    for (int i = 0; i < all.n && say; i++) {
        if (!all.cand[i].fits) {
            mca_coll_topo_say_excluded(comm, args->prim, all.cand[i].algo->name, all.cand[i].why);
        }
    }
    for (int i = 0; i < all.n; i++) {
        topo_candidate_t *k = &all.cand[i];
        at[i] = -1;
        if (!k->fits) {
            continue;
        }
        if (TOPO_OK != k->rc) {
            if (say) {
                char why[160];
                if (TOPO_PRUNED != k->rc) {
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
                mca_coll_topo_say_excluded(comm, args->prim, k->algo->name, why);
            }
            continue;
        }
        /* the price moves to the decision */
        at[i] = d.ncand;
        d.algo[d.ncand] = k->algo;
        d.price[d.ncand++] = k->price;
        memset(&k->price, 0, sizeof(k->price));
    }
    /* the table, its candidates renumbered for d */
    d.table = all.table;
    memset(&all.table, 0, sizeof(all.table));
    for (int k = 0; k < d.table.n; k++) {
        d.table.cand[k] = d.table.cand[k] >= 0 ? at[d.table.cand[k]] : -1;
    }
    free(at);
    topo_candidates_free(&all);
    if (say) {
        mca_coll_topo_say_table(comm, &d, &proto);
        fflush(stderr);
    }
    m->tables.d[m->tables.n] = d;
    return &m->tables.d[m->tables.n++];
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
    double alpha, beta, rndv; /* the communicator's network tier (m->model) */
    mca_coll_topo_decision_t d;
} shared_decision_t;
static shared_decision_t shared[COLL_TOPO_SHARED_DECISIONS];
static int nshared;
static opal_mutex_t shared_lock = OPAL_MUTEX_STATIC_INIT;

static bool same_inputs(const shared_decision_t *e, const mca_coll_topo_model_t *md,
                        const topo_gen_args_t *a, int opclass)
{
    const topo_topology_t *t = a->topo, *u = &e->topo;
    if (e->alpha != md->alpha || e->beta != md->beta || e->rndv != md->proto.rndv ||
        e->size != a->size || e->d.prim != a->prim || e->d.root != a->root ||
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

/* The process's table for these inputs that covers `bytes`, or NULL
 * (the caller holds shared_lock). */
static const mca_coll_topo_decision_t *cached(const mca_coll_topo_module_t *m,
                                              const topo_gen_args_t *a, int opclass, size_t bytes)
{
    for (int i = 0; i < nshared; i++) {
        if (same_inputs(&shared[i], &m->model, a, opclass) && bytes <= shared[i].d.upto) {
            return &shared[i].d;
        }
    }
    return NULL;
}

/* The communicator takes the cache's table e (m->tables.d has room). */
static const mca_coll_topo_decision_t *take(mca_coll_topo_module_t *m,
                                            struct ompi_communicator_t *comm,
                                            const mca_coll_topo_decision_t *e)
{
    m->tables.d[m->tables.n] = *e;
    const mca_coll_topo_decision_t *d = &m->tables.d[m->tables.n++];
    if (mca_coll_topo_should_say(comm, COLL_TOPO_VERBOSE_CANDIDATES)) {
        mca_coll_topo_say_table(comm, d, &m->model.proto);
        fflush(stderr);
    }
    return d;
}

/* Keep d (built for a, opclass) for the process, if there is room:
 * then d is the cache's (shared). */
static void share(mca_coll_topo_decision_t *d, const mca_coll_topo_model_t *md,
                  const topo_gen_args_t *a)
{
    if (nshared >= COLL_TOPO_SHARED_DECISIONS) {
        return;
    }
    shared_decision_t *e = &shared[nshared];
    e->topo = *a->topo;
    e->size = a->size;
    e->alpha = md->alpha;
    e->beta = md->beta;
    e->rndv = md->proto.rndv;
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

void mca_coll_topo_shared_tables_free(void)
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
 * or built now (together: a blocking call, which may price with the other
 * ranks where coll_topo_price_share says so) (the first stage's table stays beside the complete one, so
 * that neither moves under a communicator that shares it). */
static const mca_coll_topo_decision_t *find_or_build(mca_coll_topo_module_t *m,
                                                     struct ompi_communicator_t *comm,
                                                     const topo_gen_args_t *args, int opclass,
                                                     size_t bytes, bool together)
{
    for (int i = 0; i < m->tables.n; i++) {
        const mca_coll_topo_decision_t *d = &m->tables.d[i];
        if (d->prim == args->prim && d->root == args->root && d->opclass == opclass &&
            bytes <= d->upto) {
            m->tables.last[args->prim] = i + 1;
            return d;
        }
    }
    if (m->tables.n == m->tables.cap) {
        size_t cap = (size_t)m->tables.cap * sizeof(*m->tables.d);
        if (OMPI_SUCCESS !=
            mca_coll_topo_grow((void **)&m->tables.d, &cap,
                               (size_t)(m->tables.n + 1) * sizeof(*m->tables.d))) {
            return NULL;
        }
        m->tables.cap = (int)(cap / sizeof(*m->tables.d));
    }
    const mca_coll_topo_decision_t *d = NULL;
    if (together && share_on(m, args->size)) {
        /* The ranks price together.  The process's cache may hold the
         * table on some ranks and not on others (a communicator of the
         * same shape that only some of them were in), so they agree on a
         * hit first: every rank takes the cache's table, or every rank
         * takes part in the pricing.  No lock is held across the
         * exchanges (another thread's communicator may be pricing in the
         * processes of this one's peers). */
        OPAL_THREAD_LOCK(&shared_lock);
        const mca_coll_topo_decision_t *e = cached(m, args, opclass, bytes);
        const mca_coll_topo_decision_t hit = NULL != e ? *e : (mca_coll_topo_decision_t){0};
        OPAL_THREAD_UNLOCK(&shared_lock);
        int every = NULL != e;
        if (OMPI_SUCCESS != prev_allreduce(m, comm, &every, 1, MPI_INT, MPI_MIN)) {
            return NULL;
        }
        if (every) {
            d = take(m, comm, &hit);
        } else if (NULL != (d = build_together(m, comm, args, opclass)) && NULL == e) {
            OPAL_THREAD_LOCK(&shared_lock);
            share(&m->tables.d[m->tables.n - 1], &m->model, args);
            OPAL_THREAD_UNLOCK(&shared_lock);
        }
        if (NULL != d) {
            m->tables.last[args->prim] = m->tables.n;
        }
        return d;
    }
    OPAL_THREAD_LOCK(&shared_lock);
    const mca_coll_topo_decision_t *e = cached(m, args, opclass, bytes);
    if (NULL != e) {
        d = take(m, comm, e);
    }
    if (NULL == d &&
        NULL != (d = build(m, comm, args, opclass, stage_upto(args->size, bytes)))) {
        share(&m->tables.d[m->tables.n - 1], &m->model, args);
    }
    OPAL_THREAD_UNLOCK(&shared_lock);
    if (NULL != d) {
        m->tables.last[args->prim] = m->tables.n;
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
                                              size_t bytes, bool together)
{
    const topo_prim_t prim = in->prim;
    topo_gen_args_t a = *in;
    if (a.root < 0 || a.root >= a.size) {
        return NULL; /* mpi_param_check off: the previous module reports it */
    }
    if (0 != a.root) {
        if (0 == m->tables.root_free[prim]) {
            m->tables.root_free[prim] = topo_prim_root_free(prim, a.topo, a.size) ? 2 : 1;
        }
        a.root = 2 == m->tables.root_free[prim]
                     ? 0
                     : topo_price_root(a.root, a.size, mca_coll_topo_component.price_roots);
    }
    const int last = m->tables.last[prim] - 1; /* stored + 1: 0 = none */
    if (last >= 0 && m->tables.d[last].root == a.root &&
        m->tables.d[last].opclass == opclass && bytes <= m->tables.d[last].upto) {
        return &m->tables.d[last];
    }
    return find_or_build(m, comm, &a, opclass, bytes, together);
}

/* The answer of `auto`: the cheapest algorithm of args->prim that fits, or
 * NULL if none does.  `bytes` is the primitive's payload.  Every rank
 * computes the same answer (same inputs, same arithmetic).  The table is
 * built at the first call of each (primitive, root, commutativity); later
 * calls cost a binary search.  *ch describes the answer. */
typedef struct {
    double predicted; /* seconds (set when verbose, else 0) */
    int msgs;         /* messages its busiest rank sends and receives, summed
                         over the steps (topo_price_t.msgs) */
    int steps;        /* its steps that move messages (topo_price_t.msg_steps):
                         one such step of 1 or 2 messages is one message per
                         rank, one way or an exchange */
    size_t lo, hi;    /* the payloads [lo, hi) of the same answer (hi
                         SIZE_MAX: no end) */
} choice_t;
static const topo_algo_t *decide(mca_coll_topo_module_t *m, struct ompi_communicator_t *comm,
                                 const topo_gen_args_t *args, int opclass, size_t bytes,
                                 bool together, choice_t *ch)
{
    const mca_coll_topo_decision_t *d = lookup(m, comm, args, opclass, bytes, together);
    *ch = (choice_t){.predicted = 0.0, .msgs = 0, .steps = 0, .lo = 0, .hi = 0};
    if (NULL == d) {
        return NULL;
    }
    if (OPAL_UNLIKELY(mca_coll_topo_component.verbose >= COLL_TOPO_VERBOSE_CANDIDATES)) {
        mca_coll_topo_say_candidates(m, comm, d, bytes);
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

/* ------------------------------------------------------------------ */
/* Routes                                                              */

/* "coll/tuned" for a module of class mca_coll_tuned_module_t (for the
 * verbose line), in `name` */
static const char *previous_name(const mca_coll_topo_previous_t *f, char *name, size_t len)
{
    const opal_class_t *cls = f->module->super.obj_class;
    const char *c = NULL != cls && NULL != cls->cls_name ? cls->cls_name : "";
    const size_t n = strlen(c), pre = strlen("mca_coll_"), post = strlen("_module_t");
    if (n > pre + post && 0 == strncmp(c, "mca_coll_", pre) &&
        0 == strcmp(c + n - post, "_module_t")) {
        snprintf(name, len, "coll/%.*s", (int)(n - pre - post), c + pre);
    } else {
        snprintf(name, len, "%s", '\0' != c[0] ? c : "unnamed");
    }
    return name;
}

/* The verbose reason of route r of the previous module, for a call of
 * `bytes` on `slot` of primitive `prim`, on a communicator of `size`
 * ranks, in buf. */
static void route_reason(const mca_coll_topo_module_t *m, int slot, topo_prim_t prim, int size,
                         const mca_coll_topo_route_t *r, size_t bytes, bool commutative,
                         char *buf, size_t len)
{
    char text[192], prev[64];
    switch (r->by) {
    case TOPO_BY_HOST:
        topo_route_host_reason(buf, len, size, prim, mca_coll_topo_component.host_handoff_lim[prim]);
        break;
    case TOPO_BY_TWO_RANKS:
        topo_route_two_ranks_reason(text, sizeof(text), NULL != r->algo ? r->algo->name : "?",
                                    mca_coll_topo_proto()->eager);
        snprintf(buf, len, "%s, which the previous module (%s) sends with less bookkeeping", text,
                 previous_name(&m->prev[slot], prev, sizeof(prev)));
        break;
    case TOPO_BY_AUTOTUNE:
        mca_coll_topo_tune_class(2 * mca_coll_topo_bit_length(bytes) + !commutative, text,
                                 sizeof(text));
        snprintf(buf, len, "coll_topo_autotune: the previous module was faster than %s for %s",
                 NULL != r->algo ? r->algo->name : "coll/topo", text);
        break;
    default:
        snprintf(buf, len, "a route of coll/topo");
        break;
    }
}

void mca_coll_topo_routes_prepare(mca_coll_topo_module_t *m, struct ompi_communicator_t *comm,
                                  bool one_host)
{
    /* coll_topo_host_handoff, per slot: the payloads below which calls go
     * to the previous module (not with a forced algorithm, nor rules for
     * this size); said now, as the calls it takes at the entry never reach
     * the decision */
    const int size = ompi_comm_size(comm);
    for (int slot = 0; slot < COLL_TOPO_NSLOTS && one_host; slot++) {
        const topo_prim_t prim = COLL_TOPO_SLOT_REDUCE_SCATTER_BLOCK == slot
                                     ? TOPO_PRIM_REDUCE_SCATTER
                                     : (topo_prim_t)slot;
        const size_t host = mca_coll_topo_component.host_handoff_lim[prim];
        const topo_route_params_t rp = {.forced = mca_coll_topo_component.forced[prim],
                                        .rules = 0 != host ? mca_coll_topo_rules(prim) : NULL,
                                        .host_limit = host};
        const size_t lim = topo_route_host_limit(&rp, size);
        if (0 == lim) {
            continue;
        }
        const mca_coll_topo_route_t r = {
            .lo = 0, .hi = lim, .root = -1, .commutative = -1, .by = TOPO_BY_HOST};
        mca_coll_topo_routes_put(&m->routes[slot], &r);
        if (mca_coll_topo_component.verbose > 0) {
            char reason[COLL_TOPO_REASON_LEN];
            route_reason(m, slot, prim, size, &r, 0, true, reason, sizeof(reason));
            mca_coll_topo_say_previous(m, comm, prim, reason);
        }
    }
}

const topo_algo_t *mca_coll_topo_route(mca_coll_topo_module_t *m, struct ompi_communicator_t *comm,
                                       mca_coll_topo_call_t *call, int slot,
                                       const topo_gen_args_t *args, int opclass, size_t bytes,
                                       char *why, size_t len, int *tune_key)
{
    const topo_prim_t prim = call->prim;
    const topo_algo_t *algo = mca_coll_topo_component.forced[prim];
    /* the reasons are only for the verbose output, which says each
     * (primitive, algorithm) once: no formatting per call */
    const int verbose = mca_coll_topo_component.verbose > 0;
#define SAY(a) (verbose && !mca_coll_topo_algorithm_said(m, prim, (a)))

    *tune_key = -1;
    /* 1. forced, 2. rules (route.h) */
    const topo_algo_t *forced = mca_coll_topo_component.forced[prim];
    topo_route_params_t rp = {.forced = forced,
                              .rules = NULL == forced ? mca_coll_topo_rules(prim) : NULL,
                              .two_ranks = mca_coll_topo_component.handoff_set,
                              .previous_tuned = call->prev->tuned};
    const topo_rule_t *rule;
    int by;
    if (topo_route_named(&rp, args, opclass, bytes, &algo, &by, &rule, why, len)) {
        if (TOPO_BY_FORCED == by) {
            if (NULL == algo) {
                snprintf(call->reason, COLL_TOPO_REASON_LEN,
                         "coll_topo_%s_algorithm=%s does not fit: %s", topo_prim_name(prim),
                         rp.forced->name, why);
            } else if (SAY(algo)) {
                snprintf(why, len, "forced by coll_topo_%s_algorithm", topo_prim_name(prim));
            }
            return algo;
        }
        char rng[96];
        const int say = NULL != algo && SAY(algo);
        if (NULL == algo || say) {
            topo_rules_format_rule(rule, rng, sizeof(rng));
        }
        if (rule->previous) {
            snprintf(call->reason, COLL_TOPO_REASON_LEN,
                     "rule %s of coll_topo_%s_rules gives the previous module", rng,
                     topo_prim_name(prim));
        } else if (NULL == algo) {
            snprintf(call->reason, COLL_TOPO_REASON_LEN,
                     "rule %s of coll_topo_%s_rules gives %s for %zu bytes, which does not "
                     "fit: %s",
                     rng, topo_prim_name(prim), rule->algo->name, bytes, why);
        } else if (say) {
            snprintf(why, len, "rule %s of coll_topo_%s_rules", rng, topo_prim_name(prim));
        }
        return algo;
    }
    /* 3. the routes of the previous module (the entry reads them first;
     * a primitive whose entry cannot, reduce_scatter of per-rank counts,
     * reads them here) */
    const bool commutative = NULL == call->op || ompi_op_is_commute(call->op);
    if (0 != m->routes[slot].n) {
        const mca_coll_topo_route_t *r =
            mca_coll_topo_routes_find(&m->routes[slot], bytes, call->root, commutative);
        if (NULL != r) {
            if (verbose) {
                route_reason(m, slot, prim, args->size, r, bytes, commutative, call->reason,
                             COLL_TOPO_REASON_LEN);
            }
            return NULL;
        }
    }
    /* 4. auto */
    choice_t ch;
    /* only a blocking call may price with the other ranks: a nonblocking
     * or persistent one may not block (Open MPI starts nonblocking
     * collectives from its progress engine), so it prices alone, the same
     * table either way */
    algo = decide(m, comm, args, opclass, bytes, COLL_TOPO_BLOCKING == call->mode, &ch);
    if (NULL == algo) {
        int n, rows = 0;
        const topo_algo_t *cat = topo_catalog(&n);
        for (int i = 0; i < n; i++) {
            rows += cat[i].prim == prim;
        }
        snprintf(call->reason, COLL_TOPO_REASON_LEN, "no algorithm fits: %s",
                 0 == rows                    ? "coll/topo has no algorithm for it yet"
                 : TOPO_OP_ORDERED != opclass ? "none could be priced"
                                              : "the operation is not commutative");
        return NULL;
    }
    /* ... unless coll_topo_handoff gives it the previous module: on 2 ranks,
     * one message per rank of at most the eager limit, which every
     * implementation sends the same way (eager) with less per-call
     * bookkeeping than ours; an exchange only to coll/tuned, whose
     * two-process code also sends it as one (the set, the eager limit and
     * which slots have tuned behind them are in the agreement hash) */
    rp.eager = mca_coll_topo_proto()->eager;
    if (topo_route_two_ranks(&rp, prim, args->size, bytes, ch.msgs, ch.steps)) {
        mca_coll_topo_route_t r = {.lo = ch.lo,
                                   .hi = ch.hi,
                                   .root = call->root,
                                   .commutative = (signed char)commutative,
                                   .by = TOPO_BY_TWO_RANKS,
                                   .algo = algo};
        if (OPAL_UNLIKELY(verbose)) {
            route_reason(m, slot, prim, args->size, &r, bytes, commutative, call->reason,
                         COLL_TOPO_REASON_LEN);
        }
        if (NULL == call->counts &&
            (NULL == rp.rules || NULL == topo_rules_group(rp.rules, args->size))) {
            /* every payload of this answer's range up to the eager limit
             * (no rule can cover one of them on this communicator; a
             * forced algorithm would not have come here) */
            const size_t eager = (size_t)mca_coll_topo_proto()->eager;
            r.hi = ch.hi <= eager ? ch.hi : eager + 1;
            mca_coll_topo_routes_put(&m->routes[slot], &r);
        }
        return NULL;
    }
    /* ... or coll_topo_autotune found the previous module faster for the
     * payload class; one still being timed runs as the timing says */
    const int key = mca_coll_topo_tune_key(m, call, slot, opclass, bytes);
    const int verdict = key >= 0 ? m->tune.cls[slot][key].verdict : COLL_TOPO_TUNE_KEEP;
    if (COLL_TOPO_TUNE_PREV == verdict) {
        if (OPAL_UNLIKELY(verbose)) {
            const mca_coll_topo_route_t r = {.by = TOPO_BY_AUTOTUNE,
                                             .algo = m->tune.cls[slot][key].algo};
            route_reason(m, slot, prim, args->size, &r, bytes, commutative, call->reason,
                         COLL_TOPO_REASON_LEN);
        }
        return NULL;
    }
    *tune_key = COLL_TOPO_TUNE_TIMING == verdict ? key : -1;
    if (SAY(algo)) {
        snprintf(why, len, "auto: cheapest predicted for %zu bytes: %.3f us", bytes,
                 ch.predicted * 1e6);
    }
    return algo;
#undef SAY
}
