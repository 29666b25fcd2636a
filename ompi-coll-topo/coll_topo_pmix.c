/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The PMIx topology source: fabric coordinates a resource manager publishes
 * through PMIx 4 (PMIX_FABRIC_COORDINATES of this process, and the fabric's
 * PMIX_FABRIC_SHAPE_STRING or PMIX_FABRIC_SHAPE at job level).
 *
 * Only when this build found PMIx >= 4 (configure: pkg-config pmix) and the
 * process is a PMIx client of that library (Open MPI built with an external
 * PMIx, as Debian's is; with Open MPI's internal PMIx the library we link is
 * never initialized and the source says so).  The lookups are local
 * (PMIX_OPTIONAL): nothing is asked of the server, so a resource manager
 * that publishes nothing costs nothing and never blocks.  The values are
 * turned into a grid and a position by the MPI-free core (fabric.h); the
 * module then exchanges and places the positions as for a coordinates file.
 */
#include "ompi_config.h"

#if defined(HAVE_TOPO_CONFIG_H)
#include "topo_config.h"
#endif

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "coll_topo.h"
#include "fabric.h"

#if defined(TOPO_HAVE_PMIX) && TOPO_HAVE_PMIX
#include <pmix.h>

/* The first coordinates of the first geometry of `v`, preferring the
 * logical view: *coord and *n point into v. */
static bool first_coords(const pmix_value_t *v, const uint32_t **coord, size_t *n)
{
    const pmix_geometry_t *g = NULL;
    if (PMIX_GEOMETRY == v->type) {
        g = v->data.geometry;
    } else if (PMIX_DATA_ARRAY == v->type && NULL != v->data.darray &&
               PMIX_GEOMETRY == v->data.darray->type && v->data.darray->size > 0) {
        g = (const pmix_geometry_t *)v->data.darray->array;
    }
    if (NULL == g || 0 == g->ncoords || NULL == g->coordinates) {
        return false;
    }
    const pmix_coord_t *c = &g->coordinates[0];
    for (size_t i = 0; i < g->ncoords; i++) {
        if (PMIX_COORD_LOGICAL_VIEW == g->coordinates[i].view) {
            c = &g->coordinates[i];
            break;
        }
    }
    *coord = c->coord;
    *n = c->dims;
    return NULL != c->coord;
}

/* The fabric's grid from the job-level shape. */
static bool job_shape(const pmix_proc_t *me, pmix_info_t *opt, topo_topology_t *shape, char *why,
                      size_t len)
{
    pmix_proc_t job = *me;
    pmix_value_t *v = NULL;
    job.rank = PMIX_RANK_WILDCARD;
    char err[256];
    int rc = TOPO_EINVAL;
    /* job level, else what this process itself holds */
    if ((PMIX_SUCCESS == PMIx_Get(&job, PMIX_FABRIC_SHAPE_STRING, opt, 1, &v) ||
         PMIX_SUCCESS == PMIx_Get(me, PMIX_FABRIC_SHAPE_STRING, opt, 1, &v)) &&
        NULL != v && PMIX_STRING == v->type) {
        rc = topo_fabric_shape(v->data.string, TOPO_NET_TORUS, shape, err, sizeof(err));
    } else {
        if (NULL != v) {
            PMIX_VALUE_RELEASE(v);
            v = NULL;
        }
        if ((PMIX_SUCCESS == PMIx_Get(&job, PMIX_FABRIC_SHAPE, opt, 1, &v) ||
             PMIX_SUCCESS == PMIx_Get(me, PMIX_FABRIC_SHAPE, opt, 1, &v)) &&
            NULL != v &&
            PMIX_DATA_ARRAY == v->type && NULL != v->data.darray &&
            PMIX_UINT32 == v->data.darray->type) {
            rc = topo_fabric_dims((const uint32_t *)v->data.darray->array, v->data.darray->size,
                                  TOPO_NET_TORUS, shape, err, sizeof(err));
        } else {
            snprintf(err, sizeof(err), "no fabric shape published");
        }
    }
    if (NULL != v) {
        PMIX_VALUE_RELEASE(v);
    }
    if (TOPO_OK != rc) {
        snprintf(why, len, "PMIx: %s", err);
        return false;
    }
    return true;
}

bool mca_coll_topo_pmix_coords(topo_topology_t *shape, int *position, char *why, size_t len)
{
    *position = -1;
    if (!PMIx_Initialized()) {
        snprintf(why, len, "PMIx: this process is not a client of the PMIx library coll/topo "
                           "was built with");
        return false;
    }
    pmix_proc_t me;
    if (PMIX_SUCCESS != PMIx_Init(&me, NULL, 0)) { /* reference counted */
        snprintf(why, len, "PMIx: PMIx_Init failed");
        return false;
    }
    bool ok = false, yes = true;
    pmix_info_t opt;
    PMIX_INFO_LOAD(&opt, PMIX_OPTIONAL, &yes, PMIX_BOOL);
    pmix_value_t *v = NULL;
    const uint32_t *coord = NULL;
    size_t n = 0;
    if (PMIX_SUCCESS != PMIx_Get(&me, PMIX_FABRIC_COORDINATES, &opt, 1, &v) || NULL == v ||
        !first_coords(v, &coord, &n)) {
        snprintf(why, len, "PMIx: no fabric coordinates published for this process");
    } else if (job_shape(&me, &opt, shape, why, len)) {
        char err[256];
        if (TOPO_OK == topo_fabric_position(shape, coord, n, position, err, sizeof(err))) {
            ok = true;
        } else {
            snprintf(why, len, "PMIx: fabric coordinates: %s", err);
        }
    }
    if (NULL != v) {
        PMIX_VALUE_RELEASE(v);
    }
    PMIX_INFO_DESTRUCT(&opt);
    (void)PMIx_Finalize(NULL, 0);
    return ok;
}

#else /* no PMIx */

bool mca_coll_topo_pmix_coords(topo_topology_t *shape, int *position, char *why, size_t len)
{
    (void)shape;
    *position = -1;
#if defined(HAVE_TOPO_CONFIG_H)
    snprintf(why, len, "PMIx: coll/topo was built without PMIx (configure found no pmix >= 4)");
#else
    snprintf(why, len,
             "PMIx: coll/topo was built without PMIx (built in an Open MPI source tree, whose "
             "configure.m4 for coll/topo does not look for it)");
#endif
    return false;
}

#endif
