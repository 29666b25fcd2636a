/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The verifier: executes the schedules of all ranks symbolically and proves
 * that the collective is correct for every count.
 *
 * Each (rank, block) holds a symbolic value: the set of ranks whose
 * contribution it carries, whether they were combined in rank order, and
 * the combination tree itself (which operands, parenthesized how).  A
 * send carries the sender's values at the start of the step; a receive
 * copies or combines them after the step.  At the end, for a reduction every
 * block that the primitive delivers must carry every rank exactly once (and,
 * for an order-preserving algorithm, in rank order); for data movement every
 * delivered block must hold exactly its owner's data.  Matching is checked
 * too: every send has a receive in the same lane and step, with the same
 * blocks (or, on uniform schedules, the same number of blocks).
 *
 * Per primitive (p ranks, np = nparts blocks per unit):
 * - allreduce, reduce_scatter, reduce: every rank starts with its own
 *   contribution in every block; the delivered blocks (all; the rank's own
 *   unit; all at the root) end with every rank's, exactly once, and every
 *   rank that gets a block gets it from the same combination tree, so all
 *   ranks hold the same bits even where the operation rounds (floating-
 *   point sums): the trees' operands are unordered for a commutative
 *   operation (a + b and b + a round alike), ordered otherwise.
 * - allgather: block b starts at rank b / np only; every rank ends with it.
 * - bcast: the root starts with every block; every rank ends with them.
 * - alltoall: blocks [0, p*np) are the send region (block j*np + k: part k of
 *   the data for rank j), blocks [p*np, 2*p*np) the receive region (block
 *   p*np + i*np + k ends with part k of rank i's data for this rank); more
 *   blocks may follow as scratch.  Uniform schedules move blocks anywhere.
 * - barrier: a block stands for what a rank knows: received knowledge is
 *   merged (repeats allowed); every rank must end knowing of every rank.
 *   Barrier schedules set sync, so the executor sends empty messages.
 */
#ifndef TOPO_VERIFY_H
#define TOPO_VERIFY_H

#include "catalog.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What topo_verify demands beyond correctness. */
enum {
    TOPO_VERIFY_ORDERED = 1u << 0, /* rank-order combination (non-commutative
                                      operations) */
    TOPO_VERIFY_ANY_TREE = 1u << 1 /* ranks may combine a block in different
                                      orders (only for operations that are
                                      exactly associative: integers, MAX...) */
};

/* Verify the schedules of all ranks: scheds[r] is rank r's schedule, for
 * r < size.  flags: TOPO_VERIFY_*.  Returns TOPO_OK or TOPO_EINVAL with the
 * first violation in msg. */
int topo_verify(const topo_sched_t *scheds, int size, topo_prim_t prim,
                int root, unsigned flags, char *msg, size_t len);

/* Generate `algo` for every rank of a->size and verify it; ordered when the
 * algorithm does not require a commutative operation; the same tree on
 * every rank unless the algorithm says it combines in rank-dependent
 * orders for these arguments (topo_algo_same_tree). */
int topo_verify_algo(const topo_algo_t *algo, const topo_gen_args_t *a,
                     char *msg, size_t len);

#ifdef __cplusplus
}
#endif
#endif
