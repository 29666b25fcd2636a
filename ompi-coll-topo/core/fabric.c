/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fabric coordinates -> grid and position (fabric.h).
 */
#include "fabric.h"

#include "schedule.h" /* TOPO_OK, TOPO_EINVAL */

#include <stdio.h>
#include <string.h>

int topo_fabric_dims(const uint32_t *dims, size_t ndims, topo_net_t kind, topo_topology_t *t,
                     char *err, size_t errlen)
{
    if (kind != TOPO_NET_TORUS && kind != TOPO_NET_MESH) {
        snprintf(err, errlen, "a fabric grid is a torus or a mesh");
        return TOPO_EINVAL;
    }
    if (0 == ndims || ndims > TOPO_MAX_DIMS) {
        snprintf(err, errlen, "%zu dimensions (1 to %d supported)", ndims, TOPO_MAX_DIMS);
        return TOPO_EINVAL;
    }
    /* the spelling the topology parser checks (sizes, overflow) */
    char buf[32 + 12 * TOPO_MAX_DIMS];
    size_t at = (size_t)snprintf(buf, sizeof(buf), "%s:", kind == TOPO_NET_TORUS ? "torus" : "mesh");
    for (size_t i = 0; i < ndims; i++) {
        at += (size_t)snprintf(buf + at, sizeof(buf) - at, "%s%u", i ? "x" : "", (unsigned)dims[i]);
    }
    return topo_topology_parse(buf, t, err, errlen);
}

int topo_fabric_shape(const char *shape, topo_net_t kind, topo_topology_t *t, char *err,
                      size_t errlen)
{
    uint32_t dims[TOPO_MAX_DIMS];
    size_t n = 0;
    const char *p = shape;
    if (NULL == shape || '\0' == *shape) {
        snprintf(err, errlen, "empty shape");
        return TOPO_EINVAL;
    }
    for (;;) {
        unsigned long v = 0;
        int digits = 0;
        while (*p >= '0' && *p <= '9' && v <= 0xffffffffUL) {
            v = v * 10 + (unsigned long)(*p++ - '0');
            digits++;
        }
        if (0 == digits || v > 0xffffffffUL || n == TOPO_MAX_DIMS) {
            snprintf(err, errlen, "shape '%s' is not AxBx... (at most %d dimensions)", shape,
                     TOPO_MAX_DIMS);
            return TOPO_EINVAL;
        }
        dims[n++] = (uint32_t)v;
        if ('\0' == *p) {
            break;
        }
        if ('x' != *p && 'X' != *p) {
            snprintf(err, errlen, "shape '%s' is not AxBx... (at most %d dimensions)", shape,
                     TOPO_MAX_DIMS);
            return TOPO_EINVAL;
        }
        p++;
    }
    return topo_fabric_dims(dims, n, kind, t, err, errlen);
}

int topo_fabric_position(const topo_topology_t *t, const uint32_t *coord, size_t ncoord,
                         int *position, char *err, size_t errlen)
{
    int c[TOPO_MAX_DIMS];
    if (0 == topo_topology_size(t) || ncoord != (size_t)t->ndims) {
        snprintf(err, errlen, "%zu coordinates for a grid of %d dimensions", ncoord, t->ndims);
        return TOPO_EINVAL;
    }
    for (size_t i = 0; i < ncoord; i++) {
        if (coord[i] >= (uint32_t)t->dims[i]) {
            snprintf(err, errlen, "coordinate %u of dimension %zu is outside 0..%d",
                     (unsigned)coord[i], i, t->dims[i] - 1);
            return TOPO_EINVAL;
        }
        c[i] = (int)coord[i];
    }
    *position = topo_topology_rank(t, c);
    return TOPO_OK;
}
