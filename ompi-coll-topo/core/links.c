/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Link loads (see links.h).
 *
 * Directed links of a grid are indexed (node, dim, dir): the link leaving
 * `node` in dimension `dim`, towards + (dir 0) or - (dir 1).  On a star
 * every rank has an uplink and a downlink to the switch; on a full mesh
 * every ordered pair has its own link.
 *
 * The accumulator holds one array of link loads per step of its window and
 * the step statistics; schedules are fed to it one rank at a time, so a
 * caller never needs the schedules of all ranks at once.
 */
#include "links.h"

#include "graph.h"

_Static_assert(TOPO_GRAPH_MAX_DEGREE <= 2 * TOPO_MAX_DIMS,
               "a graph rank's out-links are the link classes of topo_link_classes");

#include <stdlib.h>
#include <string.h>

struct topo_link_acc {
    const topo_topology_t *t;
    int size, grid, nsteps;
    size_t nlinks;
    int *steps;            /* the window: step indices */
    double *load;          /* nsteps * nlinks */
    topo_step_load_t *out; /* nsteps: max_load tracked as loads grow */
};

/* Add w to `link` of window slot k. */
static void add(topo_link_acc_t *acc, int k, size_t link, double w)
{
    double *l = &acc->load[(size_t)k * acc->nlinks + link];
    *l += w;
    if (*l > acc->out[k].max_load) {
        acc->out[k].max_load = *l;
    }
}

static size_t grid_link(const topo_topology_t *t, const int *c, int dim, int dir)
{
    return ((size_t)topo_topology_rank(t, c) * t->ndims + dim) * 2 + dir;
}

/* Walk the route from coordinates c to d, dimension `dim` onwards. */
static void route(topo_link_acc_t *acc, int k, int *c, const int *d, int dim, double w)
{
    const topo_topology_t *t = acc->t;
    for (; dim < t->ndims; dim++) {
        int n = t->dims[dim], fwd = ((d[dim] - c[dim]) % n + n) % n;
        if (0 == fwd) {
            continue;
        }
        int dir, steps;
        if (t->periodic[dim]) {
            if (2 * fwd == n) { /* a tie: half each way, each on its own copy */
                for (int way = 0; way < 2; way++) {
                    int e[TOPO_MAX_DIMS];
                    memcpy(e, c, sizeof(int) * (size_t)t->ndims);
                    for (int j = 0; j < fwd; j++) {
                        add(acc, k, grid_link(t, e, dim, way), w / 2);
                        e[dim] = (e[dim] + (way ? n - 1 : 1)) % n;
                    }
                    route(acc, k, e, d, dim + 1, w / 2);
                }
                return;
            }
            dir = 2 * fwd < n ? 0 : 1;
            steps = dir ? n - fwd : fwd;
        } else {
            dir = d[dim] > c[dim] ? 0 : 1;
            steps = abs(d[dim] - c[dim]);
        }
        for (int j = 0; j < steps; j++) {
            add(acc, k, grid_link(t, c, dim, dir), w);
            c[dim] = (c[dim] + (dir ? n - 1 : 1)) % n;
        }
    }
}

static int is_grid(const topo_topology_t *t)
{
    return t->kind == TOPO_NET_TORUS || t->kind == TOPO_NET_MESH;
}

/* A graph's route from node u to node v, link by link (graph.h's tie
 * rule), each link charged w / its bandwidth. */
static void route_graph(topo_link_acc_t *acc, int k, int u, int v, double w)
{
    const topo_graph_t *g = acc->t->graph;
    while (u != v) {
        int e;
        u = topo_graph_next(g, u, v, &e);
        add(acc, k, (size_t)e, w / g->bw[e]);
    }
}

size_t topo_link_count(const topo_topology_t *t, int size)
{
    if (is_grid(t)) { /* the machine's nodes, whatever the placement */
        return (size_t)topo_topology_size(t) * (size_t)t->ndims * 2;
    }
    if (TOPO_NET_GRAPH == t->kind) {
        return (size_t)t->graph->m;
    }
    return t->kind == TOPO_NET_FULLMESH ? (size_t)size * (size_t)size : (size_t)size * 2;
}

int topo_link_classes(const topo_topology_t *t, int src, int dst, double w, double *first,
                      double *hops, int *links)
{
    if (NULL != links) {
        *links = 0;
    }
    if (TOPO_NET_GRAPH == t->kind) {
        const topo_graph_t *g = t->graph;
        const int u = topo_topology_node(t, src), v = topo_topology_node(t, dst);
        if (u == v) {
            return 0;
        }
        int e;
        topo_graph_next(g, u, v, &e);
        first[e - g->out0[u]] += w / g->bw[e];
        if (NULL != links) {
            *links = topo_graph_dist(g, u, v);
        }
        if (NULL != hops) { /* one class, every link: the route's load */
            int f;
            for (int x = u; x != v; hops[0] += w / g->bw[f]) {
                x = topo_graph_next(g, x, v, &f);
            }
        }
        return NULL == t->place && g->dst[e] == v;
    }
    if (!is_grid(t)) {
        return 0;
    }
    int c[TOPO_MAX_DIMS], d[TOPO_MAX_DIMS], seen = 0, direct = NULL == t->place;
    topo_topology_coords(t, topo_topology_node(t, src), c);
    topo_topology_coords(t, topo_topology_node(t, dst), d);
    for (int i = 0; i < t->ndims; i++) {
        const int n = t->dims[i], fwd = ((d[i] - c[i]) % n + n) % n;
        if (0 == fwd) {
            continue;
        }
        /* links crossed toward + and toward - (a tie: half the weight
         * each way, over fwd links either way) */
        double plus = 0.0, minus = 0.0;
        const int split = t->periodic[i] && 2 * fwd == n;
        if (!t->periodic[i]) {
            plus = d[i] > c[i] ? w : 0.0;
            minus = d[i] > c[i] ? 0.0 : w;
        } else if (split) {
            plus = minus = w / 2;
        } else if (2 * fwd < n) {
            plus = w;
        } else {
            minus = w;
        }
        const int len = !t->periodic[i] ? abs(d[i] - c[i]) : 2 * fwd <= n ? fwd : n - fwd;
        direct = direct && !seen && 1 == len && !split;
        if (!seen) {
            first[i * 2] += plus;
            first[i * 2 + 1] += minus;
            seen = 1;
        }
        if (NULL != hops) {
            hops[i * 2] += plus * len;
            hops[i * 2 + 1] += minus * len;
        }
        if (NULL != links) {
            *links += len;
        }
    }
    return direct && seen;
}

int topo_link_acc_create(const topo_topology_t *t, int size, const int *steps, int nsteps,
                         topo_link_acc_t **accp)
{
    const int grid = is_grid(t);
    *accp = NULL;
    if (((grid || TOPO_NET_GRAPH == t->kind) && !topo_topology_routes(t, size)) || size < 1 ||
        nsteps < 0) {
        return TOPO_EINVAL;
    }
    topo_link_acc_t *acc = calloc(1, sizeof(*acc));
    if (NULL == acc) {
        return TOPO_ENOMEM;
    }
    acc->t = t;
    acc->size = size;
    acc->grid = grid;
    acc->nsteps = nsteps;
    acc->nlinks = topo_link_count(t, size);
    acc->steps = malloc(sizeof(int) * (size_t)(nsteps + 1));
    acc->load = calloc((size_t)nsteps * acc->nlinks + 1, sizeof(double));
    acc->out = calloc((size_t)nsteps + 1, sizeof(topo_step_load_t));
    if (NULL == acc->steps || NULL == acc->load || NULL == acc->out) {
        topo_link_acc_free(acc);
        return TOPO_ENOMEM;
    }
    for (int k = 0; k < nsteps; k++) {
        acc->steps[k] = steps ? steps[k] : k;
    }
    *accp = acc;
    return TOPO_OK;
}

/* Route one message of weight w from rank r (at grid coordinates c0 on a
 * grid) to `peer` into window slot k. */
static void route_msg(topo_link_acc_t *acc, int k, int r, const int *c0, int peer, double w)
{
    const topo_topology_t *t = acc->t;
    if (acc->grid) {
        int c[TOPO_MAX_DIMS], d[TOPO_MAX_DIMS];
        memcpy(c, c0, sizeof(int) * (size_t)t->ndims);
        topo_topology_coords(t, topo_topology_node(t, peer), d);
        route(acc, k, c, d, 0, w); /* no link between ranks of a node */
    } else if (TOPO_NET_GRAPH == t->kind) {
        route_graph(acc, k, topo_topology_node(t, r), topo_topology_node(t, peer), w);
    } else if (t->kind == TOPO_NET_FULLMESH) {
        add(acc, k, (size_t)r * acc->size + peer, w);
    } else { /* star: the sender's uplink, the receiver's downlink */
        add(acc, k, (size_t)r * 2, w);
        add(acc, k, (size_t)peer * 2 + 1, w);
    }
}

void topo_link_acc_add(topo_link_acc_t *acc, const topo_sched_t *s)
{
    const topo_topology_t *t = acc->t;
    const double share = topo_sched_block_share(s);
    const int r = s->rank;
    int c0[TOPO_MAX_DIMS];
    if (acc->grid) {
        topo_topology_coords(t, topo_topology_node(t, r), c0);
    }
    topo_step_view_t v;
    for (int k = 0; k < acc->nsteps; k++) {
        const int st = acc->steps[k];
        topo_step_load_t *o = &acc->out[k];
        for (int l = 0; l < s->nlanes; l++) {
            if (st >= s->lanes[l].nsteps) {
                continue;
            }
            topo_sched_step_at(s, l, st, &v);
            for (int i = 0; i < v.nxfers; i++) {
                const topo_range_t *rg;
                const topo_xfer_t *x = topo_step_xfer(&v, i, &rg);
                if (x->kind != TOPO_XFER_SEND) {
                    continue;
                }
                double w = x->nblk * share;
                int hops = topo_topology_hops(t, r, x->peer);
                o->messages++;
                o->max_msg = w > o->max_msg ? w : o->max_msg;
                o->max_hops = hops > o->max_hops ? hops : o->max_hops;
                route_msg(acc, k, r, c0, x->peer, w);
            }
        }
    }
}

void topo_link_acc_flow(topo_link_acc_t *acc, int k, int src, int dst, double w)
{
    int c0[TOPO_MAX_DIMS];
    if (acc->grid) {
        topo_topology_coords(acc->t, topo_topology_node(acc->t, src), c0);
    }
    route_msg(acc, k, src, c0, dst, w);
}

/* The stride of dimension `dim` in node numbers (topo_topology_rank:
 * the last dimension varies fastest). */
static size_t dim_stride(const topo_topology_t *t, int dim)
{
    size_t st = 1;
    for (int i = dim + 1; i < t->ndims; i++) {
        st *= (size_t)t->dims[i];
    }
    return st;
}

/* Mark w on the links of class (dim, dir) at positions [a, a + len) of
 * the line through `node` (whose position in dim is 0 at `base`), as a
 * difference: +w at a, -w at a + len (split where it wraps). */
static void mark_span(topo_link_acc_t *acc, int k, size_t base, int dim, int dir, int a, int len,
                      double w)
{
    const topo_topology_t *t = acc->t;
    const int n = t->dims[dim];
    const size_t st = dim_stride(t, dim);
    double *l = &acc->load[(size_t)k * acc->nlinks];
    if (a + len > n) { /* wraps: [a, n) and [0, a + len - n) */
        mark_span(acc, k, base, dim, dir, a, n - a, w);
        mark_span(acc, k, base, dim, dir, 0, a + len - n, w);
        return;
    }
    l[((base + (size_t)a * st) * (size_t)t->ndims + (size_t)dim) * 2 + (size_t)dir] += w;
    if (a + len < n) {
        l[((base + (size_t)(a + len) * st) * (size_t)t->ndims + (size_t)dim) * 2 + (size_t)dir] -=
            w;
    }
}

void topo_link_acc_span(topo_link_acc_t *acc, int k, int src, int dst, double w)
{
    const topo_topology_t *t = acc->t;
    int c[TOPO_MAX_DIMS], d[TOPO_MAX_DIMS];
    topo_topology_coords(t, topo_topology_node(t, src), c);
    topo_topology_coords(t, topo_topology_node(t, dst), d);
    for (int i = 0; i < t->ndims; i++) { /* dimension order, c moving to d */
        const int n = t->dims[i], fwd = ((d[i] - c[i]) % n + n) % n;
        if (0 == fwd) {
            continue;
        }
        const int ci = c[i];
        c[i] = 0;
        const size_t base = (size_t)topo_topology_rank(t, c);
        c[i] = d[i];
        if (!t->periodic[i]) { /* + from ci over d - ci links, - down to d + 1 */
            if (d[i] > ci) {
                mark_span(acc, k, base, i, 0, ci, d[i] - ci, w);
            } else {
                mark_span(acc, k, base, i, 1, d[i] + 1, ci - d[i], w);
            }
        } else if (2 * fwd == n) { /* a tie: half each way */
            mark_span(acc, k, base, i, 0, ci, fwd, w / 2);
            mark_span(acc, k, base, i, 1, (ci - fwd + 1 + n) % n, fwd, w / 2);
        } else if (2 * fwd < n) {
            mark_span(acc, k, base, i, 0, ci, fwd, w);
        } else { /* - over n - fwd links: from ci down to d + 1 */
            mark_span(acc, k, base, i, 1, (d[i] + 1) % n, n - fwd, w);
        }
    }
}

double topo_link_acc_settle(topo_link_acc_t *acc, int k)
{
    const topo_topology_t *t = acc->t;
    double *l = &acc->load[(size_t)k * acc->nlinks];
    const size_t nodes = acc->nlinks / ((size_t)t->ndims * 2);
    double most = 0.0;
    for (int i = 0; i < t->ndims; i++) {
        const size_t st = dim_stride(t, i), n = (size_t)t->dims[i];
        for (size_t base = 0; base < nodes; base++) {
            if (base / st % n != 0) { /* a line starts at position 0 */
                continue;
            }
            for (int dir = 0; dir < 2; dir++) {
                double run = 0.0;
                for (size_t p = 0; p < n; p++) {
                    double *x =
                        &l[((base + p * st) * (size_t)t->ndims + (size_t)i) * 2 + (size_t)dir];
                    run += *x;
                    *x = run;
                    most = run > most ? run : most;
                }
            }
        }
    }
    acc->out[k].max_load = most;
    return most;
}

double topo_link_acc_max(const topo_link_acc_t *acc, int k)
{
    return acc->out[k].max_load;
}

void topo_link_acc_clear(topo_link_acc_t *acc, int k)
{
    memset(&acc->load[(size_t)k * acc->nlinks], 0, sizeof(double) * acc->nlinks);
    memset(&acc->out[k], 0, sizeof(acc->out[k]));
}

void topo_link_acc_loads(const topo_link_acc_t *acc, topo_step_load_t *out)
{
    memcpy(out, acc->out, sizeof(*out) * (size_t)acc->nsteps);
}

void topo_link_acc_free(topo_link_acc_t *acc)
{
    if (NULL != acc) {
        free(acc->steps);
        free(acc->load);
        free(acc->out);
        free(acc);
    }
}

int topo_link_loads(const topo_topology_t *t, const topo_sched_t *scheds, int size,
                    topo_step_load_t *out, int depth)
{
    topo_link_acc_t *acc;
    int rc = topo_link_acc_create(t, size, NULL, depth, &acc);
    if (TOPO_OK != rc) {
        return rc;
    }
    for (int r = 0; r < size; r++) {
        topo_link_acc_add(acc, &scheds[r]);
    }
    topo_link_acc_loads(acc, out);
    topo_link_acc_free(acc);
    return TOPO_OK;
}
