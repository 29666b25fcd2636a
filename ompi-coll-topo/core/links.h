/*
 * Link loads: where a step's messages travel on a grid topology.
 *
 * Messages are routed minimally in dimension order (dimension 0 first); on
 * a torus each dimension takes the shorter way around, and a tie (exactly
 * half way) is split evenly over both directions, as minimal adaptive
 * routing does (shared/notes/swing-trivance-bfb-digest.md 4.3).  Loads are
 * in units of the payload M: a block of an evenly split vector weighs
 * 1 / nblocks.  Star and fullmesh have one private link per message.
 */
#ifndef TOPO_LINKS_H
#define TOPO_LINKS_H

#include "schedule.h"
#include "topology.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    double max_load;  /* the most loaded directed link, in units of M */
    double max_msg;   /* the largest message, in units of M */
    int max_hops;     /* the longest route */
    int messages;     /* messages in the step (all ranks) */
} topo_step_load_t;

/* Per-step loads of the schedules of all ranks (scheds[r] for r < size),
 * lanes in lockstep (step s of every lane is step s).  out has room for
 * depth = max over ranks of topo_sched_depth entries.  The congestion of
 * step s is out[s].max_load / out[s].max_msg.  Returns TOPO_OK or an
 * error (a grid topology whose size is not `size`: TOPO_EINVAL). */
int topo_link_loads(const topo_topology_t *t, const topo_sched_t *scheds, int size,
                    topo_step_load_t *out, int depth);

#ifdef __cplusplus
}
#endif
#endif
