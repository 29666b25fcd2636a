/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The topology model: which network the ranks of a communicator sit on.
 * Plain C, no MPI.  Strings are the values of the coll_topo_topology MCA
 * parameter: "auto", "star", "fullmesh", "torus:4x4x2", "mesh:8x8",
 * "graph:FILE" (a direct-connect graph read from an edge list: graph.h),
 * each optionally followed by ",ports=N" (ports per rank, for pricing
 * single- vs multiport schedules; a graph file's name has no comma).
 */
#ifndef TOPO_TOPOLOGY_H
#define TOPO_TOPOLOGY_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TOPO_MAX_DIMS 8

typedef enum {
    TOPO_NET_AUTO = 0, /* not decided yet: resolved by the glue */
    TOPO_NET_STAR,     /* every rank one hop from a switch */
    TOPO_NET_FULLMESH, /* a direct link between every pair */
    TOPO_NET_TORUS,    /* k-D lattice with wraparound links */
    TOPO_NET_MESH,     /* k-D lattice without wraparound */
    TOPO_NET_GRAPH     /* a directed graph of links (graph.h) */
} topo_net_t;

/* The most ports per rank a topology string's ",ports=N" (and the
 * coll_topo_ports parameter) may give. */
#define TOPO_MAX_PORTS 1024

typedef struct {
    topo_net_t kind;
    int ndims;                  /* torus/mesh only */
    int dims[TOPO_MAX_DIMS];    /* row-major: the last dimension varies fastest */
    int periodic[TOPO_MAX_DIMS];/* 1 = wraparound in that dimension */
    int ports;                  /* ports per rank; 0 = the kind's default */
    /* Placement.  Torus and mesh: NULL, rank r sits at grid position r
     * (the communicator is the whole grid, row-major); otherwise place[r] is
     * the grid position (node) of rank r, for a communicator that is any
     * part of the machine, several ranks per node allowed (ranks of one
     * node talk over shared memory).  Star: NULL, every rank is a node of
     * its own; otherwise place[r] (>= 0) names the node of rank r, and
     * ranks with the same value share a node (shared memory) while nodes
     * talk through the switch.  Full mesh: not used.  Graph: as a grid's
     * (place[r] is a rank of the graph).  Owned by the caller. */
    const int *place;
    /* Graph only: the graph, shared by every copy of the topology (a
     * process-wide registry owns it: graph.h). */
    const struct topo_graph *graph;
} topo_topology_t;

/* The topology of graph g (borrowed: g must outlive it), as
 * topo_topology_parse makes it from graph:FILE. */
topo_topology_t topo_topology_of_graph(const struct topo_graph *g);

/* Parse `str`.  On error returns TOPO_EINVAL and writes a one-line reason
 * naming the offending text to err. */
int topo_topology_parse(const char *str, topo_topology_t *t, char *err,
                        size_t errlen);
/* Canonical spelling (parseable again). */
void topo_topology_format(const topo_topology_t *t, char *buf, size_t len);
/* Number of ranks a grid or graph topology describes; 0 for kinds of any
 * size. */
int topo_topology_size(const topo_topology_t *t);
/* Row-major coordinates of `rank` on a grid topology. */
void topo_topology_coords(const topo_topology_t *t, int rank, int *coords);
int topo_topology_rank(const topo_topology_t *t, const int *coords);
/* Minimal number of links between two ranks (1 for star and fullmesh; 0
 * for ranks placed on one node, grid or star; on a graph from a to b). */
int topo_topology_hops(const topo_topology_t *t, int a, int b);
/* The grid position (node) of rank r: place[r], or r. */
static inline int topo_topology_node(const topo_topology_t *t, int r)
{
    return NULL != t->place ? t->place[r] : r;
}
/* Is the communicator of `size` ranks the whole grid, rank r at position r
 * (what grid algorithms need)? */
int topo_topology_is_grid_of(const topo_topology_t *t, int size);
/* The same for a grid or a graph: the whole direct-connect network, rank
 * r at its node r. */
int topo_topology_is_direct_of(const topo_topology_t *t, int size);
/* The largest of the rings the multiport algorithms (Swing, Trivance) run
 * on for `size` ranks: the grid's largest dimension when t is a grid of
 * `size`, else `size` (one ring). */
int topo_topology_lane_max(const topo_topology_t *t, int size);
/* Does the cost model route messages on the grid (or graph) for `size`
 * ranks: the whole grid, or a placement on it?  (Never for a star: see
 * topo_topology_placed.) */
int topo_topology_routes(const topo_topology_t *t, int size);
/* Does the cost model tell ranks of one node from the others: a placement
 * on a grid it routes, or on a star? */
int topo_topology_placed(const topo_topology_t *t, int size);
/* Ports per rank: the explicit value, else 2 per dimension of a torus,
 * 1 per direction that exists on a mesh, 1 on a star, size-1 on fullmesh,
 * the largest out-degree on a graph. */
int topo_topology_ports(const topo_topology_t *t, int size);

#ifdef __cplusplus
}
#endif
#endif
