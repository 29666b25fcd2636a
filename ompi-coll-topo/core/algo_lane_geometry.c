/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The geometry of the multiport algorithms (see algo.h).
 */
#include "algo.h"

#include <string.h>

void topo_geom_init(topo_geom_t *g, const topo_gen_args_t *a)
{
    memset(g, 0, sizeof(*g));
    const topo_topology_t *t = a->topo;
    if (topo_topology_is_grid_of(t, a->size)) {
        g->grid = t;
        g->nd = t->ndims;
        memcpy(g->dims, t->dims, sizeof(int) * (size_t)t->ndims);
        topo_topology_coords(t, a->rank, g->coords);
    } else {
        g->nd = 1;
        g->dims[0] = a->size;
        g->coords[0] = a->rank;
    }
    for (int k = 0; k < g->nd; k++) {
        if (g->dims[k] > 1) {
            g->first[g->D++] = k;
        }
    }
}
