/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Where a communicator's ranks sit, resolved at its first collective call
 * (Cartesian information is attached only after coll selection): the
 * topology from coll_topo_topology, a Cartesian communicator, the
 * coordinates file (coll_topo_coords.c) or PMIx (coll_topo_pmix.c), else a
 * star whose ranks coll_topo_locality places on their hosts; the agreement
 * of every rank on the decision inputs (over coll/topo's own exchanges,
 * coll_topo_agree.c); then the routes that hold for the whole communicator
 * (coll_topo_route.c) and the topology's verbose line.
 */
#include "ompi_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpi.h"
#include "ompi/group/group.h"
#include "ompi/mca/topo/topo.h"
#include "opal/util/proc.h"

#include "coll_topo.h"
#include "coll_topo_ofi.h"

static void set_star(topo_topology_t *t)
{
    memset(t, 0, sizeof(*t));
    t->kind = TOPO_NET_STAR;
}

/* Keep `place` (size entries, malloc'ed) as the placement of the module's
 * grid, or free it and keep none when it is rank r at position r of a grid
 * of exactly `size` positions (the whole grid in order). */
static void set_place(mca_coll_topo_module_t *m, int size, int *place)
{
    bool identity = topo_topology_size(&m->placement.topo) == size;
    for (int r = 0; r < size && identity; r++) {
        identity = place[r] == r;
    }
    free(m->placement.place);
    m->placement.place = identity ? NULL : place;
    m->placement.nplace = identity ? 0 : size;
    m->placement.topo.place = m->placement.place;
    if (identity) {
        free(place);
    }
}

/* An explicit grid the size of MPI_COMM_WORLD: the communicator's ranks sit
 * at the positions of their MPI_COMM_WORLD ranks (a split, a subset, a
 * reordering).  true with the placement set (or the identity), false when
 * the grid is not the world's size. */
static bool place_in_world(mca_coll_topo_module_t *m, struct ompi_communicator_t *comm, int n)
{
    struct ompi_communicator_t *world = &ompi_mpi_comm_world.comm;
    const int size = ompi_comm_size(comm);
    if (n != ompi_comm_size(world)) {
        return false;
    }
    int *ranks = malloc(sizeof(int) * (size_t)size), *place = malloc(sizeof(int) * (size_t)size);
    bool ok = NULL != ranks && NULL != place;
    for (int r = 0; ok && r < size; r++) {
        ranks[r] = r;
    }
    ok = ok && OMPI_SUCCESS == ompi_group_translate_ranks(comm->c_local_group, size, ranks,
                                                          world->c_local_group, place);
    for (int r = 0; ok && r < size; r++) {
        ok = place[r] >= 0 && place[r] < n;
    }
    free(ranks);
    if (!ok) {
        free(place);
        return false;
    }
    set_place(m, size, place);
    if (NULL != m->placement.place) {
        snprintf(m->placement.source, sizeof(m->placement.source),
                 "coll_topo_topology, placed by MPI_COMM_WORLD rank: %d of its %d nodes", size, n);
    } else {
        snprintf(m->placement.source, sizeof(m->placement.source), "coll_topo_topology");
    }
    return true;
}

/* Where a communicator's topology comes from, first match wins. */
typedef enum {
    SRC_PARAM,  /* coll_topo_topology, set (not auto) */
    SRC_CART,   /* a Cartesian communicator */
    SRC_COORDS, /* coll_topo_coords_file, or PMIx fabric coordinates */
    SRC_STAR    /* nothing known */
} topo_source_t;

/* From the communicator's Cartesian information (attached after coll
 * selection, so read at the first collective call).  A grid with some
 * periodic dimensions and some not is routed and priced with each
 * dimension's own period; its name (torus/mesh) follows the majority, ties
 * torus, since the topology syntax has no spelling for it. */
static void from_cart(mca_coll_topo_module_t *m, struct ompi_communicator_t *comm)
{
    const mca_topo_base_comm_cart_2_2_0_t *cart = comm->c_topo->mtc.cart;
    const int size = ompi_comm_size(comm);
    const int nd = cart->ndims;
    int prod = 1, nper = 0;

    if (nd < 1 || nd > TOPO_MAX_DIMS) {
        set_star(&m->placement.topo);
        snprintf(m->placement.source, sizeof(m->placement.source),
                 "cartesian communicator with %d dimensions (1 to %d can be used): star", nd,
                 TOPO_MAX_DIMS);
        return;
    }
    memset(&m->placement.topo, 0, sizeof(m->placement.topo));
    m->placement.topo.ndims = nd;
    for (int i = 0; i < nd; i++) {
        m->placement.topo.dims[i] = cart->dims[i];
        m->placement.topo.periodic[i] = 0 != cart->periods[i];
        nper += m->placement.topo.periodic[i];
        prod *= cart->dims[i] > 0 ? cart->dims[i] : 0;
    }
    if (prod != size) {
        set_star(&m->placement.topo);
        snprintf(m->placement.source, sizeof(m->placement.source),
                 "cartesian communicator whose grid does not have %d positions: star", size);
        return;
    }
    m->placement.topo.kind = 2 * nper >= nd ? TOPO_NET_TORUS : TOPO_NET_MESH;
    if (0 == nper || nd == nper) {
        snprintf(m->placement.source, sizeof(m->placement.source), "cartesian communicator");
        return;
    }
    char per[2 * TOPO_MAX_DIMS + 1];
    for (int i = 0; i < nd; i++) {
        per[2 * i] = m->placement.topo.periodic[i] ? '1' : '0';
        per[2 * i + 1] = ',';
    }
    per[2 * nd - 1] = '\0';
    snprintf(m->placement.source, sizeof(m->placement.source),
             "cartesian communicator; its periods %s are mixed: named %s by majority, "
             "priced with each dimension's own period",
             per, TOPO_NET_TORUS == m->placement.topo.kind ? "torus" : "mesh");
}

/* The topology from what this process knows alone; *position: this host's
 * position in the coordinates file (SRC_COORDS), -1 if none. */
static topo_source_t resolve_local(mca_coll_topo_module_t *m, struct ompi_communicator_t *comm,
                                   int *position)
{
    const mca_coll_topo_component_t *c = &mca_coll_topo_component;
    const int size = ompi_comm_size(comm);
    const char *value = NULL != c->topology ? c->topology : "auto";

    *position = -1;
    m->placement.topo = c->topo;
    if (!c->topo_valid) {
        set_star(&m->placement.topo);
        snprintf(m->placement.source, sizeof(m->placement.source),
                 "coll_topo_topology is malformed: star");
        return SRC_PARAM;
    }
    if (TOPO_NET_AUTO != m->placement.topo.kind) {
        int n = topo_topology_size(&m->placement.topo);
        if (0 != n && place_in_world(m, comm, n)) {
            return SRC_PARAM;
        }
        if (0 != n && n != size) {
            if (0 == ompi_comm_rank(comm)) {
                mca_coll_topo_show_help("topology-size-mismatch", value, n,
                                        mca_coll_topo_comm_name(comm), (unsigned)comm->c_contextid,
                                        size);
            }
            set_star(&m->placement.topo);
            snprintf(m->placement.source, sizeof(m->placement.source),
                     "coll_topo_topology does not fit %d ranks: star", size);
        } else {
            snprintf(m->placement.source, sizeof(m->placement.source), "coll_topo_topology");
        }
        return SRC_PARAM;
    }
    if (OMPI_COMM_IS_CART(comm) && NULL != comm->c_topo && NULL != comm->c_topo->mtc.cart) {
        from_cart(m, comm);
        return SRC_CART;
    }
    if (NULL != c->coords_file && '\0' != c->coords_file[0]) {
        char shape[64];
        (void)mca_coll_topo_coords(c->coords_file, &m->placement.topo, shape, sizeof(shape),
                                   position);
        snprintf(m->placement.source, sizeof(m->placement.source), "coordinates file %s",
                 c->coords_file);
        return SRC_COORDS;
    }
    char why[256] = "PMIx: not consulted (coll_topo_pmix is 0)";
    if (c->pmix && mca_coll_topo_pmix_coords(&m->placement.topo, position, why, sizeof(why))) {
        char shape[64];
        topo_topology_format(&m->placement.topo, shape, sizeof(shape));
        snprintf(m->placement.source, sizeof(m->placement.source), "PMIx fabric coordinates (%s)",
                 shape);
        return SRC_COORDS;
    }
    set_star(&m->placement.topo);
    snprintf(m->placement.source, sizeof(m->placement.source),
             "auto: no coll_topo_topology, not a cartesian communicator, no "
             "coll_topo_coords_file; %s",
             why);
    return SRC_STAR;
}

/* The hash of this rank's decision inputs, topology included. */
static uint64_t inputs_hash(const mca_coll_topo_module_t *m)
{
    uint64_t h = mca_coll_topo_params_hash();
    const topo_topology_t *t = &m->placement.topo;
    const int32_t v[3] = {(int32_t)t->kind, (int32_t)t->ndims, (int32_t)t->ports};
    h = mca_coll_topo_hash(h, v, sizeof(v));
    for (int i = 0; i < t->ndims && i < TOPO_MAX_DIMS; i++) {
        const int32_t d[2] = {(int32_t)t->dims[i], (int32_t)t->periodic[i]};
        h = mca_coll_topo_hash(h, d, sizeof(d));
    }
    if (NULL != m->placement.place) {
        h = mca_coll_topo_hash(h, m->placement.place, sizeof(int) * (size_t)m->placement.nplace);
    }
    /* which slots coll_topo_handoff may give an exchange (the same previous
     * modules on every rank, or a call given to the previous module on one
     * rank only would hang) */
    uint32_t tuned = 0;
    for (int i = 0; i < COLL_TOPO_NSLOTS; i++) {
        tuned |= m->prev[i].tuned ? 1u << i : 0u;
    }
    return mca_coll_topo_hash(h, &tuned, sizeof(tuned));
}

/* What the ranks of a communicator learn together at its first call. */
typedef struct {
    bool one_host;              /* every rank has the same host hash */
    bool busy;                  /* some rank's host is oversubscribed */
    double btl_alpha, btl_beta; /* the largest of the ranks' BTL costs
                                   (mca_coll_topo_btl_costs; 0: none) */
    double btl_eager;           /* the smallest network eager payload (0: none) */
    bool auto_segment;          /* no rank set coll_topo_segment_size */
} agreed_t;

/* A nonnegative double as a number whose order is the double's (MAX over
 * ranks is the largest value); a negative one (none) as 0. */
static uint64_t ordered_bits(double d)
{
    uint64_t bits = 0;
    if (d > 0.0) {
        memcpy(&bits, &d, sizeof(bits));
    }
    return bits;
}

static double from_ordered_bits(uint64_t bits)
{
    double d;
    memcpy(&d, &bits, sizeof(d));
    return d;
}

/* Do all ranks have hash h?  Also: do they all have host hash `host`, is
 * any of them `busy`, and what are the largest BTL alpha and beta (the
 * slowest network, which every rank then prices alike)?  MIN and MAX in
 * one exchange (MAX of h, ~h, host, ~host, busy and the BTL costs),
 * coll/topo's own over the PML: not the previous module's allreduce on
 * the user's communicator, whose messages could meet the application's.
 * The same answers on every rank. */
static bool agree(struct ompi_communicator_t *comm, uint64_t h, uint64_t host, bool busy,
                  agreed_t *out)
{
    const topo_btl_costs_t *btl = mca_coll_topo_btl_costs(NULL, NULL);
    /* the eager payload's MIN as the MAX of its complement (none: 0) */
    uint64_t v[9] = {h,
                     ~h,
                     host,
                     ~host,
                     busy,
                     ordered_bits(btl->alpha),
                     ordered_bits(btl->beta),
                     ~ordered_bits(btl->eager),
                     mca_coll_topo_param_set("segment_size")};
    int rc = mca_coll_topo_own_max(comm, v, 9);
    out->one_host = OMPI_SUCCESS == rc && v[2] == host && ~v[3] == host;
    out->busy = OMPI_SUCCESS != rc || 0 != v[4];
    out->btl_alpha = OMPI_SUCCESS == rc ? from_ordered_bits(v[5]) : 0.0;
    out->btl_beta = OMPI_SUCCESS == rc ? from_ordered_bits(v[6]) : 0.0;
    out->btl_eager = OMPI_SUCCESS == rc ? from_ordered_bits(~v[7]) : 0.0;
    out->auto_segment = OMPI_SUCCESS == rc && 0 == v[8];
    return OMPI_SUCCESS == rc && v[0] == h && ~v[1] == h;
}

/* Does this host run more processes of the job than it has processors?
 * (Online processors, not this process's binding, which may be one core.) */
static bool host_oversubscribed(void)
{
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    return cpus > 0 && (long)opal_process_info.num_local_peers + 1 > cpus;
}

/* This process's host: the hash of its host name (coll_topo_coords_host
 * when set, for tests that put ranks on several hosts within one machine). */
static uint64_t host_hash(void)
{
    const char *name = mca_coll_topo_component.coords_host;
    if (NULL == name || '\0' == name[0]) {
        name = NULL != opal_process_info.nodename ? opal_process_info.nodename : "";
    }
    return mca_coll_topo_hash(COLL_TOPO_HASH_INIT, name, strlen(name));
}

typedef struct {
    uint64_t host;
    int rank;
} host_rank_t;

static int by_host(const void *a, const void *b)
{
    const host_rank_t *x = a, *y = b;
    if (x->host != y->host) {
        return x->host < y->host ? -1 : 1;
    }
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* A star's nodes (coll_topo_locality): ranks with the same host share a
 * node.  All on one host (agree() found it): every rank on node 0.  Else
 * `hosts` (size entries) gets every rank's host hash (coll/topo's own
 * allgather), and the hosts are numbered in hash order, the same
 * on every rank.  Every rank on a host of its own: no placement (the
 * plain star).  Not when a host is oversubscribed: its ranks wait for a
 * processor at every step, which the intra-host parameters (shared memory
 * between running processes) do not describe, so the network's apply.
 * Returns whether it placed every rank on one host. */
static bool star_nodes(mca_coll_topo_module_t *m, struct ompi_communicator_t *comm, uint64_t host,
                       const agreed_t *ag, uint64_t *hosts)
{
    const int size = ompi_comm_size(comm);
    const bool one_host = ag->one_host;
    if (ag->busy) {
        const size_t len = strlen(m->placement.source);
        snprintf(m->placement.source + len, sizeof(m->placement.source) - len,
                 "; coll_topo_locality: not applied, a host runs more ranks than it has "
                 "processors (always: apply it even then)");
        return false;
    }
    int *place = calloc((size_t)size, sizeof(int));
    host_rank_t *order = one_host ? NULL : malloc((size_t)size * sizeof(*order));
    int nodes = 1, rc = OMPI_SUCCESS;
    if (!one_host) {
        rc = mca_coll_topo_own_allgather(comm, &host, hosts, sizeof(host));
    }
    if (OMPI_SUCCESS != rc || NULL == place || (!one_host && NULL == order)) {
        free(place);
        free(order);
        return false; /* the plain star */
    }
    if (!one_host) {
        for (int r = 0; r < size; r++) {
            order[r] = (host_rank_t){hosts[r], r};
        }
        qsort(order, (size_t)size, sizeof(*order), by_host);
        nodes = 0;
        for (int i = 0; i < size; i++) {
            nodes += 0 == i || order[i].host != order[i - 1].host;
            place[order[i].rank] = nodes - 1;
        }
        free(order);
    }
    if (nodes == size) {
        free(place);
        return false;
    }
    set_place(m, size, place);
    const size_t len = strlen(m->placement.source);
    snprintf(m->placement.source + len, sizeof(m->placement.source) - len,
             "; coll_topo_locality: %d ranks on %d host%s", size, nodes, 1 == nodes ? "" : "s");
    return 1 == nodes && NULL != m->placement.place;
}

/* The grid of the coordinates file (or PMIx) for this communicator: `pos`
 * holds every rank's position (coll/topo's own allgather).  Every rank
 * placed: the grid, with the placement unless the communicator is the
 * whole grid in order; else star. */
static void place(mca_coll_topo_module_t *m, struct ompi_communicator_t *comm, const int *pos)
{
    const int size = ompi_comm_size(comm), n = topo_topology_size(&m->placement.topo);
    bool usable = true;
    int nodes = 0;
    char src[320]; /* "coordinates file F" or "PMIx ..." */
    snprintf(src, sizeof(src), "%.300s", m->placement.source);
    for (int r = 0; r < size; r++) {
        usable = usable && pos[r] >= 0 && pos[r] < n;
    }
    int *place = usable ? malloc(sizeof(int) * (size_t)size) : NULL;
    unsigned char *seen = usable ? calloc((size_t)n, 1) : NULL;
    if (!usable || NULL == place || NULL == seen) {
        free(place);
        free(seen);
        set_star(&m->placement.topo);
        snprintf(m->placement.source, sizeof(m->placement.source),
                 "%s: not usable on every rank (see the bad-coords-file message or the "
                 "verbose lines of the other ranks): star",
                 src);
        return;
    }
    for (int r = 0; r < size; r++) {
        place[r] = pos[r];
        nodes += !seen[pos[r]];
        seen[pos[r]] = 1;
    }
    free(seen);
    set_place(m, size, place);
    if (NULL != m->placement.place) {
        snprintf(m->placement.source, sizeof(m->placement.source),
                 "%s, placed: %d ranks on %d of %d nodes", src, size, nodes, n);
    }
}

/*
 * The communicator's first collective call: resolve its topology, then make
 * sure every rank reached the same decision inputs.  Both happen here and
 * not in enable because the Cartesian information is attached only after
 * coll selection.  Its exchanges are coll/topo's own, over the PML with
 * coll/topo's tags (coll_topo_agree.c), never the collectives of a module
 * on the user's communicator: comm_query made sure that every rank runs
 * coll/topo alike, so every rank takes part; the agreement completes on a
 * rank only once every rank has entered it, and the gathers after it are
 * taken (or skipped) alike on every rank, as they depend only on agreed
 * values.
 */
void mca_coll_topo_comm_prepare(mca_coll_topo_module_t *m, struct ompi_communicator_t *comm)
{
    if (OPAL_LIKELY(m->placement.ready)) {
        return;
    }
    static bool said_disagree = false;
    const int size = ompi_comm_size(comm);
    int position = -1;

    m->placement.ready = true;
    m->placement.preparing = true;
    mca_coll_topo_report_params();
    const topo_source_t source = resolve_local(m, comm, &position);
    if (mca_coll_topo_component.ports > 0 && 0 == m->placement.topo.ports) {
        m->placement.topo.ports = mca_coll_topo_component.ports; /* unless the topology says */
    }

    /* Agree on the inputs (with the coordinates file: on its shape, before
     * the positions are exchanged), then place the ranks on the file's grid,
     * or a star's ranks on their hosts. */
    int *pos = SRC_COORDS == source ? malloc((size_t)size * sizeof(int)) : NULL;
    const int locality = mca_coll_topo_component.locality;
    const bool nodes =
        TOPO_NET_STAR == m->placement.topo.kind && COLL_TOPO_LOCALITY_OFF != locality;
    uint64_t *hosts = nodes ? malloc((size_t)size * sizeof(uint64_t)) : NULL;
    const uint64_t host = host_hash();
    agreed_t ag;
    uint64_t h = inputs_hash(m);
    if ((SRC_COORDS == source && NULL == pos) || (nodes && NULL == hosts)) {
        h = ~h; /* out of memory: every rank goes to the previous module rather than hang */
    }
    const bool busy = COLL_TOPO_LOCALITY_AUTO == locality && host_oversubscribed();
    m->placement.disagree = !agree(comm, h, host, nodes && busy, &ag);
    bool one_host = false; /* a star's ranks placed on one host */
    if (!m->placement.disagree && nodes) {
        one_host = star_nodes(m, comm, host, &ag, hosts);
    }
    free(hosts);
    if (!m->placement.disagree && SRC_COORDS == source) {
        int rc = mca_coll_topo_own_allgather(comm, &position, pos, sizeof(position));
        if (OMPI_SUCCESS != rc) {
            for (int r = 0; r < size; r++) {
                pos[r] = -1;
            }
        }
        place(m, comm, pos);
    }
    free(pos);
    /* the network tier: the BTLs' between hosts where the ranks span
     * several (all ranks have the same answers of agree()) */
    mca_coll_topo_model_set(m, !m->placement.disagree && !ag.one_host, ag.btl_alpha, ag.btl_beta,
                            ag.btl_eager, ag.auto_segment);
    topo_topology_format(&m->placement.topo, m->placement.name, sizeof(m->placement.name));
    if (!m->placement.disagree) { /* the ranks agreed on coll_topo_transport too */
        mca_coll_topo_transport_select(comm, &m->exec.tp,
                                       mca_coll_topo_should_say(comm, COLL_TOPO_VERBOSE_DECISIONS));
    }
    m->placement.preparing = false;

    if (m->placement.disagree && 0 == ompi_comm_rank(comm) && mca_coll_topo_once(&said_disagree)) {
        mca_coll_topo_show_help("ranks-disagree", mca_coll_topo_comm_name(comm),
                                (unsigned)comm->c_contextid, size);
    }
    if (mca_coll_topo_should_say(comm, COLL_TOPO_VERBOSE_CANDIDATES)) {
        snprintf(m->said.comm, sizeof(m->said.comm), "%s (cid %u)", mca_coll_topo_comm_name(comm),
                 (unsigned)comm->c_contextid);
    }
    if (mca_coll_topo_should_say(comm, COLL_TOPO_VERBOSE_DECISIONS)) {
        fprintf(stderr, "coll:topo: comm %s (cid %u, %d ranks): topology %s (from %s)\n",
                mca_coll_topo_comm_name(comm), (unsigned)comm->c_contextid, size, m->placement.name,
                m->placement.source);
        if (!m->placement.disagree &&
            (!ag.one_host || mca_coll_topo_should_say(comm, COLL_TOPO_VERBOSE_CANDIDATES))) {
            fprintf(stderr, "coll:topo: comm %s (cid %u): cost model: %s\n",
                    mca_coll_topo_comm_name(comm), (unsigned)comm->c_contextid, m->model.source);
        }
        if (m->placement.disagree) {
            fprintf(stderr,
                    "coll:topo: comm %s (cid %u): the ranks reached different coll/topo inputs "
                    "(parameter values or topology): every primitive goes to the previous "
                    "module\n",
                    mca_coll_topo_comm_name(comm), (unsigned)comm->c_contextid);
        }
        fflush(stderr);
    }
    /* the routes of the previous module that hold for the whole
     * communicator (coll_topo_host_handoff) */
    mca_coll_topo_routes_prepare(m, comm, one_host);
}
