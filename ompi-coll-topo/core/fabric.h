/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fabric coordinates as a resource manager publishes them (PMIx 4:
 * PMIX_FABRIC_SHAPE_STRING such as "10x12x2", PMIX_FABRIC_SHAPE, and the
 * coordinates of a process's fabric device, PMIX_FABRIC_COORDINATES) turned
 * into the grid of the topology model and this process's position on it.
 * Plain C, no MPI and no PMIx: the glue (coll_topo_pmix.c) reads the values.
 */
#ifndef TOPO_FABRIC_H
#define TOPO_FABRIC_H

#include "topology.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A shape string "AxBxC" (at least one dimension, each >= 1) as a grid of
 * kind `kind` (TOPO_NET_TORUS or TOPO_NET_MESH).  TOPO_OK, or TOPO_EINVAL
 * with the reason in err. */
int topo_fabric_shape(const char *shape, topo_net_t kind, topo_topology_t *t, char *err,
                      size_t errlen);
/* The same from the size of each dimension. */
int topo_fabric_dims(const uint32_t *dims, size_t ndims, topo_net_t kind, topo_topology_t *t,
                     char *err, size_t errlen);
/* The row-major position of coordinates `coord` on grid t: TOPO_OK, or
 * TOPO_EINVAL (wrong number of coordinates, one out of range) with the
 * reason in err. */
int topo_fabric_position(const topo_topology_t *t, const uint32_t *coord, size_t ncoord,
                         int *position, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
