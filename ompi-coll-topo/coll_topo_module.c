/*
 * coll/topo module: one per communicator.  comm_query creates it, enable
 * saves the functions it replaces (its fallbacks) and makes every rank agree,
 * and the caches it keeps (schedules, costs, scratch buffers) live until the
 * communicator is freed.
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
#include "opal/util/show_help.h"

#include "coll_topo.h"
#include "coll_topo_ofi.h"

static int topo_module_enable(mca_coll_base_module_t *module, struct ompi_communicator_t *comm);
static int topo_module_disable(mca_coll_base_module_t *module, struct ompi_communicator_t *comm);

static void topo_module_construct(mca_coll_topo_module_t *m)
{
    memset((char *)m + sizeof(m->super), 0, sizeof(*m) - sizeof(m->super));
}

/* coll_topo_verbose=2, when the communicator is freed: how its calls
 * went through the memo of repeated calls (the calls that
 * coll_topo_handoff hands over at the entry are not counted). */
static void report_calls(const mca_coll_topo_module_t *m)
{
    bool any = false;
    for (int i = 0; i < COLL_TOPO_NSLOTS; i++) {
        if (0 == m->memo_hits[i] + m->decided[i]) {
            continue;
        }
        any = true;
        char grown[64] = "";
        if (m->memo_sets[i] > COLL_TOPO_MEMO_SETS_MIN) {
            snprintf(grown, sizeof(grown), " (the memo grew to %u entries)",
                     m->memo_sets[i] * COLL_TOPO_MEMO_WAYS);
        }
        fprintf(stderr,
                "coll:topo: comm %s: %s: %lu calls, %lu repeating a remembered call, %lu "
                "decided%s\n",
                m->said_comm,
                COLL_TOPO_SLOT_REDUCE_SCATTER_BLOCK == i ? "reduce_scatter_block"
                                                         : topo_prim_name((topo_prim_t)i),
                m->memo_hits[i] + m->decided[i], m->memo_hits[i], m->decided[i], grown);
    }
    if (any) {
        fprintf(stderr,
                "coll:topo: comm %s: %lu executor plans compiled, %lu derived from another "
                "count's\n",
                m->said_comm, m->exec.plans_compiled, m->exec.plans_derived);
        fflush(stderr);
    }
}

static void topo_module_destruct(mca_coll_topo_module_t *m)
{
    if ('\0' != m->said_comm[0]) {
        report_calls(m);
    }
    for (int i = 0; i < COLL_TOPO_NSLOTS; i++) {
        if (NULL != m->prev[i].module) {
            OBJ_RELEASE(m->prev[i].module);
            m->prev[i].module = NULL;
        }
    }
    for (int i = 0; i < m->nscheds; i++) {
        if (TOPO_OK == m->scheds[i].rc) {
            topo_sched_free(&m->scheds[i].sched);
        }
        mca_coll_topo_plan_free(m->scheds[i].plan);
    }
    mca_coll_topo_memo_clear(m);
    for (int i = 0; i < COLL_TOPO_NSLOTS; i++) {
        free(m->tune[i]);
    }
    free(m->place);
    free(m->scheds);
    for (int i = 0; i < m->nsched_at; i++) {
        free(m->sched_at[i].at);
    }
    free(m->sched_at);
    mca_coll_topo_decisions_free(m);
    free(m->said_algo);
    for (int i = 0; i < m->nsaid_reasons; i++) {
        free(m->said_reasons[i]);
    }
    free(m->said_reasons);
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
    return &m->super;
}

/* The MPI name of a function slot. */
static const char *slot_name(int slot)
{
    return COLL_TOPO_SLOT_REDUCE_SCATTER_BLOCK == slot ? "reduce_scatter_block"
                                                      : topo_prim_name((topo_prim_t)slot);
}

/* Save the function and module that served `slot` before us. */
static void save_fallback(mca_coll_topo_module_t *m, struct ompi_communicator_t *comm, int slot)
{
    mca_coll_topo_fallback_t *f = &m->prev[slot];
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

static void drop_fallbacks(mca_coll_topo_module_t *m)
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
    static bool said_no_fallback = false;
    int ncat;

    (void)topo_catalog(&ncat);
    for (int i = 0; i < COLL_TOPO_NSLOTS; i++) {
        save_fallback(m, comm, i);
        if (NULL == m->prev[i].fn.any) {
            /* Every rank has the same component list, so every rank ends
             * up here: no agreement is needed to back out. */
            if (mca_coll_topo_once(&said_no_fallback)) {
                mca_coll_topo_show_help("no-fallback", slot_name(i));
            }
            drop_fallbacks(m);
            return OMPI_ERR_NOT_AVAILABLE;
        }
    }

    /* Nothing here communicates: with MPI_THREAD_MULTIPLE a new
     * communicator is enabled inside opal_progress (ompi_comm_activate),
     * where a blocking collective never completes (every MPI_Comm_dup hung
     * while this function agreed on its outcome with an allreduce).  The
     * only way out above is the same on every rank; without memory for the
     * said-once flags, the first-use lines are not printed (said_flag). */
    m->said_algo = calloc((size_t)TOPO_PRIM_COUNT * (size_t)(ncat > 0 ? ncat : 1), 1);
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
/* Topology and verbose output                                         */

const char *mca_coll_topo_comm_name(struct ompi_communicator_t *comm)
{
    return '\0' != comm->c_name[0] ? comm->c_name : "(unnamed)";
}

bool mca_coll_topo_should_say(struct ompi_communicator_t *comm, int level)
{
    return mca_coll_topo_component.verbose >= level && 0 == ompi_comm_rank(comm);
}

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
    bool identity = topo_topology_size(&m->topo) == size;
    for (int r = 0; r < size && identity; r++) {
        identity = place[r] == r;
    }
    free(m->place);
    m->place = identity ? NULL : place;
    m->nplace = identity ? 0 : size;
    m->topo.place = m->place;
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
    if (NULL != m->place) {
        snprintf(m->topo_source, sizeof(m->topo_source),
                 "coll_topo_topology, placed by MPI_COMM_WORLD rank: %d of its %d nodes", size, n);
    } else {
        snprintf(m->topo_source, sizeof(m->topo_source), "coll_topo_topology");
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
        set_star(&m->topo);
        snprintf(m->topo_source, sizeof(m->topo_source),
                 "cartesian communicator with %d dimensions (1 to %d can be used): star", nd,
                 TOPO_MAX_DIMS);
        return;
    }
    memset(&m->topo, 0, sizeof(m->topo));
    m->topo.ndims = nd;
    for (int i = 0; i < nd; i++) {
        m->topo.dims[i] = cart->dims[i];
        m->topo.periodic[i] = 0 != cart->periods[i];
        nper += m->topo.periodic[i];
        prod *= cart->dims[i] > 0 ? cart->dims[i] : 0;
    }
    if (prod != size) {
        set_star(&m->topo);
        snprintf(m->topo_source, sizeof(m->topo_source),
                 "cartesian communicator whose grid does not have %d positions: star", size);
        return;
    }
    m->topo.kind = 2 * nper >= nd ? TOPO_NET_TORUS : TOPO_NET_MESH;
    if (0 == nper || nd == nper) {
        snprintf(m->topo_source, sizeof(m->topo_source), "cartesian communicator");
        return;
    }
    char per[2 * TOPO_MAX_DIMS + 1];
    for (int i = 0; i < nd; i++) {
        per[2 * i] = m->topo.periodic[i] ? '1' : '0';
        per[2 * i + 1] = ',';
    }
    per[2 * nd - 1] = '\0';
    snprintf(m->topo_source, sizeof(m->topo_source),
             "cartesian communicator; its periods %s are mixed: named %s by majority, "
             "priced with each dimension's own period",
             per, TOPO_NET_TORUS == m->topo.kind ? "torus" : "mesh");
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
    m->topo = c->topo;
    if (!c->topo_valid) {
        set_star(&m->topo);
        snprintf(m->topo_source, sizeof(m->topo_source), "coll_topo_topology is malformed: star");
        return SRC_PARAM;
    }
    if (TOPO_NET_AUTO != m->topo.kind) {
        int n = topo_topology_size(&m->topo);
        if (0 != n && place_in_world(m, comm, n)) {
            return SRC_PARAM;
        }
        if (0 != n && n != size) {
            if (0 == ompi_comm_rank(comm)) {
                mca_coll_topo_show_help("topology-size-mismatch", value, n,
                               mca_coll_topo_comm_name(comm), (unsigned)comm->c_contextid, size);
            }
            set_star(&m->topo);
            snprintf(m->topo_source, sizeof(m->topo_source),
                     "coll_topo_topology does not fit %d ranks: star", size);
        } else {
            snprintf(m->topo_source, sizeof(m->topo_source), "coll_topo_topology");
        }
        return SRC_PARAM;
    }
    if (OMPI_COMM_IS_CART(comm) && NULL != comm->c_topo && NULL != comm->c_topo->mtc.cart) {
        from_cart(m, comm);
        return SRC_CART;
    }
    if (NULL != c->coords_file && '\0' != c->coords_file[0]) {
        char shape[64];
        (void)mca_coll_topo_coords(c->coords_file, &m->topo, shape, sizeof(shape), position);
        snprintf(m->topo_source, sizeof(m->topo_source), "coordinates file %s", c->coords_file);
        return SRC_COORDS;
    }
    char why[256] = "PMIx: not consulted (coll_topo_pmix is 0)";
    if (c->pmix && mca_coll_topo_pmix_coords(&m->topo, position, why, sizeof(why))) {
        char shape[64];
        topo_topology_format(&m->topo, shape, sizeof(shape));
        snprintf(m->topo_source, sizeof(m->topo_source), "PMIx fabric coordinates (%s)", shape);
        return SRC_COORDS;
    }
    set_star(&m->topo);
    snprintf(m->topo_source, sizeof(m->topo_source),
             "auto: no coll_topo_topology, not a cartesian communicator, no "
             "coll_topo_coords_file; %s",
             why);
    return SRC_STAR;
}

/* The hash of this rank's decision inputs, topology included. */
static uint64_t inputs_hash(const mca_coll_topo_module_t *m)
{
    uint64_t h = mca_coll_topo_params_hash();
    const topo_topology_t *t = &m->topo;
    const int32_t v[3] = {(int32_t)t->kind, (int32_t)t->ndims, (int32_t)t->ports};
    h = mca_coll_topo_hash(h, v, sizeof(v));
    for (int i = 0; i < t->ndims && i < TOPO_MAX_DIMS; i++) {
        const int32_t d[2] = {(int32_t)t->dims[i], (int32_t)t->periodic[i]};
        h = mca_coll_topo_hash(h, d, sizeof(d));
    }
    if (NULL != m->place) {
        h = mca_coll_topo_hash(h, m->place, sizeof(int) * (size_t)m->nplace);
    }
    /* which slots coll_topo_handoff may hand an exchange (same previous
     * modules on every rank, or a handoff on one rank only would hang) */
    uint32_t tuned = 0;
    for (int i = 0; i < COLL_TOPO_NSLOTS; i++) {
        tuned |= m->prev[i].tuned ? 1u << i : 0u;
    }
    return mca_coll_topo_hash(h, &tuned, sizeof(tuned));
}

/* What the ranks of a communicator learn together at its first call. */
typedef struct {
    bool one_host; /* every rank has the same host hash */
    bool busy;     /* some rank's host is oversubscribed */
} agreed_t;

/* Do all ranks have hash h?  Also: do they all have host hash `host`, and is
 * any of them `busy`?  MIN and MAX in one exchange (MAX of h, ~h, host,
 * ~host and busy), coll/topo's own over the PML: not the previous module's
 * allreduce on the user's communicator, whose messages could meet the
 * application's.  The same answers on every rank. */
static bool agree(struct ompi_communicator_t *comm, uint64_t h, uint64_t host, bool busy,
                  agreed_t *out)
{
    uint64_t v[5] = {h, ~h, host, ~host, busy};
    int rc = mca_coll_topo_own_max(comm, v, 5);
    out->one_host = OMPI_SUCCESS == rc && v[2] == host && ~v[3] == host;
    out->busy = OMPI_SUCCESS != rc || 0 != v[4];
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
        const size_t len = strlen(m->topo_source);
        snprintf(m->topo_source + len, sizeof(m->topo_source) - len,
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
    const size_t len = strlen(m->topo_source);
    snprintf(m->topo_source + len, sizeof(m->topo_source) - len,
             "; coll_topo_locality: %d ranks on %d host%s", size, nodes, 1 == nodes ? "" : "s");
    return 1 == nodes && NULL != m->place;
}

/* The grid of the coordinates file (or PMIx) for this communicator: `pos`
 * holds every rank's position (coll/topo's own allgather).  Every rank
 * placed: the grid, with the placement unless the communicator is the
 * whole grid in order; else star. */
static void place(mca_coll_topo_module_t *m, struct ompi_communicator_t *comm, const int *pos)
{
    const int size = ompi_comm_size(comm), n = topo_topology_size(&m->topo);
    bool usable = true;
    int nodes = 0;
    char src[320]; /* "coordinates file F" or "PMIx ..." */
    snprintf(src, sizeof(src), "%.300s", m->topo_source);
    for (int r = 0; r < size; r++) {
        usable = usable && pos[r] >= 0 && pos[r] < n;
    }
    int *place = usable ? malloc(sizeof(int) * (size_t)size) : NULL;
    unsigned char *seen = usable ? calloc((size_t)n, 1) : NULL;
    if (!usable || NULL == place || NULL == seen) {
        free(place);
        free(seen);
        set_star(&m->topo);
        snprintf(m->topo_source, sizeof(m->topo_source),
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
    if (NULL != m->place) {
        snprintf(m->topo_source, sizeof(m->topo_source), "%s, placed: %d ranks on %d of %d nodes",
                 src, size, nodes, n);
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
    if (OPAL_LIKELY(m->topo_ready)) {
        return;
    }
    static bool said_disagree = false;
    const int size = ompi_comm_size(comm);
    int position = -1;

    m->topo_ready = true;
    m->preparing = true;
    mca_coll_topo_report_params();
    const topo_source_t source = resolve_local(m, comm, &position);
    if (mca_coll_topo_component.ports > 0 && 0 == m->topo.ports) {
        m->topo.ports = mca_coll_topo_component.ports; /* unless the topology says */
    }

    /* Agree on the inputs (with the coordinates file: on its shape, before
     * the positions are exchanged), then place the ranks on the file's grid,
     * or a star's ranks on their hosts. */
    int *pos = SRC_COORDS == source ? malloc((size_t)size * sizeof(int)) : NULL;
    const int locality = mca_coll_topo_component.locality;
    const bool nodes = TOPO_NET_STAR == m->topo.kind && COLL_TOPO_LOCALITY_OFF != locality;
    uint64_t *hosts = nodes ? malloc((size_t)size * sizeof(uint64_t)) : NULL;
    const uint64_t host = host_hash();
    agreed_t ag;
    uint64_t h = inputs_hash(m);
    if ((SRC_COORDS == source && NULL == pos) || (nodes && NULL == hosts)) {
        h = ~h; /* out of memory: every rank falls back rather than hang */
    }
    const bool busy = COLL_TOPO_LOCALITY_AUTO == locality && host_oversubscribed();
    m->disagree = !agree(comm, h, host, nodes && busy, &ag);
    bool one_host = false; /* a star's ranks placed on one host */
    if (!m->disagree && nodes) {
        one_host = star_nodes(m, comm, host, &ag, hosts);
    }
    free(hosts);
    if (!m->disagree && SRC_COORDS == source) {
        int rc = mca_coll_topo_own_allgather(comm, &position, pos, sizeof(position));
        if (OMPI_SUCCESS != rc) {
            for (int r = 0; r < size; r++) {
                pos[r] = -1;
            }
        }
        place(m, comm, pos);
    }
    free(pos);
    topo_topology_format(&m->topo, m->topo_name, sizeof(m->topo_name));
    if (!m->disagree) { /* the ranks agreed on coll_topo_transport too */
        mca_coll_topo_transport_select(comm, &m->exec.tp,
                                       mca_coll_topo_should_say(comm, COLL_TOPO_VERBOSE_DECISIONS));
    }
    m->preparing = false;

    if (m->disagree && 0 == ompi_comm_rank(comm) && mca_coll_topo_once(&said_disagree)) {
        mca_coll_topo_show_help("ranks-disagree", mca_coll_topo_comm_name(comm),
                                (unsigned)comm->c_contextid, size);
    }
    if (mca_coll_topo_should_say(comm, COLL_TOPO_VERBOSE_CANDIDATES)) {
        snprintf(m->said_comm, sizeof(m->said_comm), "%s (cid %u)", mca_coll_topo_comm_name(comm),
                 (unsigned)comm->c_contextid);
    }
    if (mca_coll_topo_should_say(comm, COLL_TOPO_VERBOSE_DECISIONS)) {
        fprintf(stderr, "coll:topo: comm %s (cid %u, %d ranks): topology %s (from %s)\n",
                mca_coll_topo_comm_name(comm), (unsigned)comm->c_contextid, size, m->topo_name,
                m->topo_source);
        if (m->disagree) {
            fprintf(stderr,
                    "coll:topo: comm %s (cid %u): the ranks reached different coll/topo inputs "
                    "(parameter values or topology): every primitive falls back to the "
                    "previous module\n",
                    mca_coll_topo_comm_name(comm), (unsigned)comm->c_contextid);
        }
        fflush(stderr);
    }
    /* coll_topo_host_handoff, decided once per slot: the payloads below
     * which calls go to the previous module, at the entry and in the
     * decision (not with a forced algorithm, nor rules for this size); its
     * line said now, as the calls handed over at the entry do not reach
     * the decision */
    for (int slot = 0; slot < COLL_TOPO_NSLOTS && one_host; slot++) {
        const topo_prim_t prim = COLL_TOPO_SLOT_REDUCE_SCATTER_BLOCK == slot
                                     ? TOPO_PRIM_REDUCE_SCATTER
                                     : (topo_prim_t)slot;
        const size_t lim = mca_coll_topo_component.host_handoff_lim[prim];
        const topo_rules_t *rules = 0 != lim ? mca_coll_topo_rules(prim) : NULL;
        if (0 == lim || NULL != mca_coll_topo_component.forced[prim] ||
            (NULL != rules && NULL != topo_rules_group(rules, size))) {
            continue;
        }
        m->host_lim[slot] = lim;
        if (mca_coll_topo_component.verbose > 0) {
            char reason[COLL_TOPO_REASON_LEN];
            mca_coll_topo_host_handoff_reason(reason, sizeof(reason), size, prim);
            mca_coll_topo_say_fallback(m, comm, prim, reason);
        }
    }
}

/* The flag of (prim, algo) in said_algo, or NULL. */
static unsigned char *said_flag(mca_coll_topo_module_t *m, topo_prim_t prim,
                                const topo_algo_t *algo)
{
    int ncat;
    const topo_algo_t *cat = topo_catalog(&ncat);
    ptrdiff_t idx = algo - cat;
    if (NULL == m->said_algo || idx < 0 || idx >= ncat) {
        return NULL;
    }
    return &m->said_algo[(size_t)prim * (size_t)ncat + (size_t)idx];
}

bool mca_coll_topo_algorithm_said(mca_coll_topo_module_t *m, topo_prim_t prim,
                                  const topo_algo_t *algo)
{
    const unsigned char *said = said_flag(m, prim, algo);
    return NULL == said || *said;
}

void mca_coll_topo_say_algorithm(mca_coll_topo_module_t *m, struct ompi_communicator_t *comm,
                                 topo_prim_t prim, const topo_algo_t *algo, const char *why)
{
    unsigned char *said = said_flag(m, prim, algo);
    if (NULL == said || *said) {
        return;
    }
    *said = 1;
    if (mca_coll_topo_should_say(comm, COLL_TOPO_VERBOSE_DECISIONS)) {
        fprintf(stderr, "coll:topo: comm %s (cid %u): %s uses %s (%s)\n",
                mca_coll_topo_comm_name(comm), (unsigned)comm->c_contextid, topo_prim_name(prim),
                algo->name, why);
        fflush(stderr);
    }
}

void mca_coll_topo_say_fallback(mca_coll_topo_module_t *m, struct ompi_communicator_t *comm,
                                topo_prim_t prim, const char *reason)
{
    if (!mca_coll_topo_should_say(comm, COLL_TOPO_VERBOSE_DECISIONS)) {
        return;
    }
    /* Reasons are kept per primitive: "allreduce: <reason>". */
    char key[320];
    snprintf(key, sizeof(key), "%s: %s", topo_prim_name(prim), reason);
    for (int i = 0; i < m->nsaid_reasons; i++) {
        if (0 == strcmp(m->said_reasons[i], key)) {
            return;
        }
    }
    if (m->nsaid_reasons == m->cap_said_reasons) {
        int cap = m->cap_said_reasons ? 2 * m->cap_said_reasons : 8;
        char **r = realloc(m->said_reasons, (size_t)cap * sizeof(*r));
        if (NULL == r) {
            return;
        }
        m->said_reasons = r;
        m->cap_said_reasons = cap;
    }
    char *dup = strdup(key);
    if (NULL == dup) {
        return;
    }
    m->said_reasons[m->nsaid_reasons++] = dup;
    fprintf(stderr, "coll:topo: comm %s (cid %u): %s falls back to the previous module (%s)\n",
            mca_coll_topo_comm_name(comm), (unsigned)comm->c_contextid, topo_prim_name(prim),
            reason);
    fflush(stderr);
}

/* ------------------------------------------------------------------ */
/* Caches                                                              */

void mca_coll_topo_memo_forget(mca_coll_topo_module_t *m, mca_coll_topo_memo_t *memo)
{
    if (NULL != memo->plan.own) {
        m->memo_plan_bytes -= mca_coll_topo_plan_bytes(memo->plan.own);
        mca_coll_topo_plan_free(memo->plan.own);
    }
    if (memo->valid) {
        if (NULL != memo->dtype) {
            OBJ_RELEASE(memo->dtype);
        }
        if (NULL != memo->op) {
            OBJ_RELEASE(memo->op);
        }
    }
    free(memo->counts);
    free(memo->units);
    memset(memo, 0, sizeof(*memo));
}

void mca_coll_topo_memo_clear_slot(mca_coll_topo_module_t *m, int slot)
{
    const unsigned n = m->memo_sets[slot] * COLL_TOPO_MEMO_WAYS;
    for (unsigned j = 0; NULL != m->memo[slot] && j < n; j++) {
        mca_coll_topo_memo_forget(m, &m->memo[slot][j]);
    }
    free(m->memo[slot]);
    m->memo[slot] = NULL;
    m->memo_last[slot] = NULL;
    m->memo_sets[slot] = 0;
    m->memo_replaced[slot] = 0;
}

void mca_coll_topo_memo_clear(mca_coll_topo_module_t *m)
{
    for (int i = 0; i < COLL_TOPO_NSLOTS; i++) {
        mca_coll_topo_memo_clear_slot(m, i);
    }
}

int mca_coll_topo_grow_to(void **buf, size_t *cap, size_t need)
{
    if (need <= *cap) {
        return OMPI_SUCCESS;
    }
    const size_t n = mca_coll_topo_grown_cap(*cap, need);
    void *p = realloc(*buf, n);
    if (NULL == p) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    *buf = p;
    *cap = n;
    return OMPI_SUCCESS;
}

const topo_sched_t *mca_coll_topo_schedule(mca_coll_topo_module_t *m,
                                           struct ompi_communicator_t *comm,
                                           const topo_algo_t *algo, const topo_gen_args_t *args)
{
    (void)comm;
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
