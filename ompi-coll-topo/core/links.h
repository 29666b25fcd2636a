/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Link loads: where a step's messages travel on a grid topology.
 *
 * Messages are routed minimally in dimension order (dimension 0 first); on
 * a torus each dimension takes the shorter way around, and a tie (exactly
 * half way) is split evenly over both directions, as minimal adaptive
 * routing does (De Sensi et al. 2024 sec. 2.2, 6).  Loads are
 * in units of the payload M: a block of an evenly split vector weighs
 * 1 / nblocks.  Star and fullmesh have one private link per message.
 *
 * On a graph (graph.h) messages follow shortest paths with graph.h's tie
 * rule (the smallest-numbered next rank closer to the destination), and a
 * link of relative bandwidth b counts a message of weight w as w / b: the
 * load is the time the link needs relative to a link of bandwidth 1.
 */
#ifndef TOPO_LINKS_H
#define TOPO_LINKS_H

#include "schedule.h"
#include "topology.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    double max_load; /* the most loaded directed link, in units of M */
    double max_msg;  /* the largest message, in units of M */
    int max_hops;    /* the longest route */
    int messages;    /* messages in the step (all ranks) */
} topo_step_load_t;

/* Directed links the routing distinguishes for `size` ranks on t: 2 per
 * node and dimension on a grid (the whole machine, whatever the placement:
 * see topology.h), the graph's links on a graph, size * size on a full
 * mesh, 2 per rank (up, down) on a star.  Ranks placed on one node reach each other without a link. */
size_t topo_link_count(const topo_topology_t *t, int size);

/* Where a message of weight w from rank src to rank dst goes on a grid
 * (routed as above), in link classes dim * 2 + dir (dir 0 = +, 1 = -):
 * first[] (2 * ndims) gets what it puts on the first link of its route (a
 * link of src's node; a tie splits it over both directions), hops[]
 * (2 * ndims, or NULL) w times the links it crosses in each class, and
 * *links (NULL: not wanted) the links it crosses (topo_topology_hops).
 * Nothing for ranks of one node or a topology that is not a grid.  On a
 * graph first[] holds the sender's out-links (first[k]: its k-th
 * out-link, w / bandwidth; at most TOPO_GRAPH_MAX_DEGREE = 2 * ndims
 * slots), hops[0] (one class: every link of the graph) gets w / bandwidth
 * summed over the links of the route, and *links is the route's length.
 * Returns 1 when the message is direct: it crosses exactly one link,
 * without a split (a neighbour in one dimension that is not the tie of a
 * ring of 2), and no placement shares that link with other ranks of the
 * node; 0 otherwise.  The cost model prices direct steps from first[],
 * and the sampled pricing (cost.h: price_ranks) estimates link loads
 * from both. */
int topo_link_classes(const topo_topology_t *t, int src, int dst, double w, double *first,
                      double *hops, int *links);

/* Streaming accumulation, one rank's schedule at a time, so the callers
 * hold one schedule and the link array of the steps asked for: memory
 * nsteps * topo_link_count doubles.  steps lists the step indices to
 * account (NULL: 0 .. nsteps-1); step s of every lane of a schedule counts
 * as step s.  Steps a schedule lacks are skipped. */
typedef struct topo_link_acc topo_link_acc_t;
/* TOPO_EINVAL for a grid topology whose size is not `size`. */
int topo_link_acc_create(const topo_topology_t *t, int size, const int *steps, int nsteps,
                         topo_link_acc_t **acc);
/* Route the sends of s (s->rank is the sender) into the window. */
void topo_link_acc_add(topo_link_acc_t *acc, const topo_sched_t *s);
/* out[k] for steps[k], k < nsteps. */
void topo_link_acc_loads(const topo_link_acc_t *acc, topo_step_load_t *out);
void topo_link_acc_free(topo_link_acc_t *acc);
/* One message of weight w from rank src to rank dst, routed into window
 * slot k as topo_link_acc_add routes a send (the sampled pricing's
 * extrapolated flows, cost.c); topo_link_acc_max: slot k's most loaded
 * link so far; topo_link_acc_clear: slot k back to no load. */
void topo_link_acc_flow(topo_link_acc_t *acc, int k, int src, int dst, double w);
double topo_link_acc_max(const topo_link_acc_t *acc, int k);
void topo_link_acc_clear(topo_link_acc_t *acc, int k);
/* Grids (torus, mesh) without a placement: a message of weight w from
 * rank src to rank dst routed as topo_link_acc_flow routes it, kept as
 * one difference per dimension it crosses (O(dimensions), not O(links));
 * topo_link_acc_settle then turns slot k's differences into loads (each
 * line of each dimension and direction summed once) and returns its most
 * loaded link.  Not to be mixed with the other adds of slot k between
 * clears. */
void topo_link_acc_span(topo_link_acc_t *acc, int k, int src, int dst, double w);
double topo_link_acc_settle(topo_link_acc_t *acc, int k);

/* Per-step loads of the schedules of all ranks (scheds[r] for r < size),
 * the steps of one index of every lane together (step s of every lane is
 * step s: the cost model's concurrency, cost.h).  out has room for
 * depth = max over ranks of topo_sched_depth entries.  The congestion of
 * step s is out[s].max_load / out[s].max_msg.  Returns TOPO_OK or an
 * error (a grid topology whose size is not `size`: TOPO_EINVAL). */
int topo_link_loads(const topo_topology_t *t, const topo_sched_t *scheds, int size,
                    topo_step_load_t *out, int depth);

#ifdef __cplusplus
}
#endif
#endif
