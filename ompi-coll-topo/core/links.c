/*
 * Link loads (see links.h).
 *
 * Directed links of a grid are indexed (node, dim, dir): the link leaving
 * `node` in dimension `dim`, towards + (dir 0) or - (dir 1).  On a star
 * every rank has an uplink and a downlink to the switch; on a full mesh
 * every ordered pair has its own link.
 */
#include "links.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    const topo_topology_t *t;
    double *load;
    double max;
} router_t;

static void add(router_t *rt, size_t link, double w)
{
    rt->load[link] += w;
    if (rt->load[link] > rt->max) {
        rt->max = rt->load[link];
    }
}

/* Walk the route from coordinates c to d, dimension `dim` onwards. */
static void route(router_t *rt, int *c, const int *d, int dim, double w)
{
    const topo_topology_t *t = rt->t;
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
                    for (int k = 0; k < fwd; k++) {
                        add(rt, ((size_t)topo_topology_rank(t, e) * t->ndims + dim) * 2 + way,
                            w / 2);
                        e[dim] = (e[dim] + (way ? n - 1 : 1)) % n;
                    }
                    route(rt, e, d, dim + 1, w / 2);
                }
                return;
            }
            dir = 2 * fwd < n ? 0 : 1;
            steps = dir ? n - fwd : fwd;
        } else {
            dir = d[dim] > c[dim] ? 0 : 1;
            steps = abs(d[dim] - c[dim]);
        }
        for (int k = 0; k < steps; k++) {
            add(rt, ((size_t)topo_topology_rank(t, c) * t->ndims + dim) * 2 + dir, w);
            c[dim] = (c[dim] + (dir ? n - 1 : 1)) % n;
        }
    }
}

int topo_link_loads(const topo_topology_t *t, const topo_sched_t *scheds, int size,
                    topo_step_load_t *out, int depth)
{
    const int grid = t->kind == TOPO_NET_TORUS || t->kind == TOPO_NET_MESH;
    if (grid && topo_topology_size(t) != size) {
        return TOPO_EINVAL;
    }
    size_t nlinks = grid ? (size_t)size * t->ndims * 2
                         : (t->kind == TOPO_NET_FULLMESH ? (size_t)size * size : (size_t)size * 2);
    router_t rt = {t, calloc(nlinks + 1, sizeof(double)), 0.0};
    if (NULL == rt.load) {
        return TOPO_ENOMEM;
    }
    for (int st = 0; st < depth; st++) {
        topo_step_load_t *o = &out[st];
        memset(o, 0, sizeof(*o));
        memset(rt.load, 0, sizeof(double) * nlinks);
        rt.max = 0.0;
        for (int r = 0; r < size; r++) {
            const topo_sched_t *s = &scheds[r];
            const double share = s->nblocks ? 1.0 / s->nblocks : 0.0;
            for (int l = 0; l < s->nlanes; l++) {
                if (st >= s->lanes[l].nsteps) {
                    continue;
                }
                const topo_step_t *step = topo_sched_lane_step(s, l, st);
                for (int i = 0; i < step->nxfers; i++) {
                    const topo_xfer_t *x = &s->xfers[step->xfer0 + i];
                    if (x->kind != TOPO_XFER_SEND) {
                        continue;
                    }
                    double w = x->nblk * share;
                    int hops = topo_topology_hops(t, r, x->peer);
                    o->messages++;
                    o->max_msg = w > o->max_msg ? w : o->max_msg;
                    o->max_hops = hops > o->max_hops ? hops : o->max_hops;
                    if (grid) {
                        int c[TOPO_MAX_DIMS], d[TOPO_MAX_DIMS];
                        topo_topology_coords(t, r, c);
                        topo_topology_coords(t, x->peer, d);
                        route(&rt, c, d, 0, w);
                    } else if (t->kind == TOPO_NET_FULLMESH) {
                        add(&rt, (size_t)r * size + x->peer, w);
                    } else { /* star: the sender's uplink, the receiver's downlink */
                        add(&rt, (size_t)r * 2, w);
                        add(&rt, (size_t)x->peer * 2 + 1, w);
                    }
                }
            }
        }
        o->max_load = rt.max;
    }
    free(rt.load);
    return TOPO_OK;
}
