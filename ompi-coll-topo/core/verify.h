/*
 * The verifier: executes the schedules of all ranks symbolically and proves
 * that the collective is correct for every count.
 *
 * Each (rank, block) holds a symbolic value: the set of ranks whose
 * contribution it carries and whether they were combined in rank order.  A
 * send carries the sender's values at the start of the step; a receive
 * copies or combines them after the step.  At the end, for a reduction every
 * block that the primitive delivers must carry every rank exactly once (and,
 * for an order-preserving algorithm, in rank order); for data movement every
 * delivered block must hold exactly its owner's data.  Matching is checked
 * too: every send has a receive in the same lane and step, with the same
 * blocks (or, on uniform schedules, the same number of blocks).
 */
#ifndef TOPO_VERIFY_H
#define TOPO_VERIFY_H

#include "catalog.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Verify the schedules of all ranks: scheds[r] is rank r's schedule, for
 * r < size.  `ordered` demands rank-order combination (non-commutative
 * operations).  Returns TOPO_OK or TOPO_EINVAL with the first violation in
 * msg. */
int topo_verify(const topo_sched_t *scheds, int size, topo_prim_t prim,
                int root, int ordered, char *msg, size_t len);

/* Generate `algo` for every rank of a->size and verify it; ordered when the
 * algorithm does not require a commutative operation. */
int topo_verify_algo(const topo_algo_t *algo, const topo_gen_args_t *a,
                     char *msg, size_t len);

#ifdef __cplusplus
}
#endif
#endif
