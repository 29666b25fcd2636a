/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Schedule generators, one file per algorithm or family (algo_<name>.c).
 * Only catalog.c and the generators include this header; everyone else goes
 * through the catalog.  Papers are cited as catalog.h lists them.
 */
#ifndef TOPO_ALGO_H
#define TOPO_ALGO_H

#include "catalog.h"

/* The least l with 2^l >= n (0 for n <= 1). */
static inline int topo_ceil_log2(int n)
{
    int l = 0;
    while ((1ll << l) < n) {
        l++;
    }
    return l;
}

/* allreduce */
int topo_gen_allreduce_ring(topo_sched_t *s, const topo_gen_args_t *a);
int topo_gen_allreduce_recursive_doubling(topo_sched_t *s, const topo_gen_args_t *a);
int topo_gen_allreduce_rabenseifner(topo_sched_t *s, const topo_gen_args_t *a);
int topo_gen_allreduce_swing_lat(topo_sched_t *s, const topo_gen_args_t *a);
int topo_gen_allreduce_swing_bw(topo_sched_t *s, const topo_gen_args_t *a);
int topo_gen_allreduce_bucket(topo_sched_t *s, const topo_gen_args_t *a);
int topo_gen_allreduce_dbt(topo_sched_t *s, const topo_gen_args_t *a);
int topo_gen_allreduce_trivance_lat(topo_sched_t *s, const topo_gen_args_t *a);
int topo_gen_allreduce_trivance_bw(topo_sched_t *s, const topo_gen_args_t *a);
int topo_gen_allreduce_bruck(topo_sched_t *s, const topo_gen_args_t *a);
/* algo_halving_doubling_multiport.c: multiport (mirrored) recursive
 * doubling and Rabenseifner */
int topo_gen_allreduce_recursive_doubling_mp(topo_sched_t *s, const topo_gen_args_t *a);
int topo_gen_allreduce_rabenseifner_mp(topo_sched_t *s, const topo_gen_args_t *a);
/* When the latency variants (TOPO_ALG_RANK_TREES) give every rank the same
 * combination tree (topo_algo_t.same_tree). */
int topo_same_tree_swing_lat(const topo_gen_args_t *a);
int topo_same_tree_trivance_lat(const topo_gen_args_t *a);
int topo_same_tree_recursive_doubling_mp(const topo_gen_args_t *a);

/*
 * Shift algorithms (algo_trivance.c; Trivance and Bruck): in step t of s in
 * a dimension of n ranks, a rank of the latency variant or the allgather
 * sends to rank + shift[i] and receives from rank - shift[i] (the
 * reduce-scatter is the reverse); `lat`: the latency variant, called with
 * n = 3^s or 2*3^(s-1).  Returns the number of shifts (1 or 2); zero and
 * repeated shifts mod n are dropped by the caller.
 */
typedef int (*topo_shift_fn)(int n, int s, int t, int lat, int *shift);
int topo_trivance_shifts(int n, int s, int t, int lat, int *shift);
/* Generate a shift allreduce: latency (whole part per step) or bandwidth
 * (reduce-scatter + allgather) variant, one lane per torus dimension. */
int topo_gen_shift_allreduce(topo_sched_t *s, const topo_gen_args_t *a, topo_shift_fn fn,
                             int lat);
/* The same engine for `prim`: allreduce as above; reduce_scatter or
 * allgather (!lat): one half alone, unit-major blocks, nparts = lanes;
 * barrier (lat): the unfolded latency pattern, one knowledge block. */
int topo_gen_shift(topo_sched_t *s, const topo_gen_args_t *a, topo_shift_fn fn, int lat,
                   topo_prim_t prim);

/*
 * The geometry of the multiport algorithms (algo_lane_geometry.c; Swing,
 * Trivance, Bruck, the mirrored multiport halving/doubling): a torus or mesh whose size is
 * the communicator's gives the dimensions (row-major coordinates); anything
 * else is one ring of `size` ranks.  Their lanes start in the dimensions of
 * size > 1.
 */
typedef struct {
    int nd, D; /* dimensions, and those of size > 1 */
    int dims[TOPO_MAX_DIMS], coords[TOPO_MAX_DIMS]; /* coords: a->rank's */
    int first[TOPO_MAX_DIMS];    /* the dimensions of size > 1, in order */
    const topo_topology_t *grid; /* NULL: one ring of `size` ranks */
} topo_geom_t;

void topo_geom_init(topo_geom_t *g, const topo_gen_args_t *a);

/* reduce_scatter */
int topo_gen_reduce_scatter_swing(topo_sched_t *s, const topo_gen_args_t *a);
int topo_gen_reduce_scatter_trivance(topo_sched_t *s, const topo_gen_args_t *a);
int topo_gen_reduce_scatter_bucket(topo_sched_t *s, const topo_gen_args_t *a);

/* allgather */
int topo_gen_allgather_swing(topo_sched_t *s, const topo_gen_args_t *a);
/* Swing's reduce_scatter or allgather (a->prim) with a range per block
 * through the lanes' unit maps, never mapped runs: the explicit form the
 * mapped runs stand for (for the tests). */
int topo_gen_swing_units_explicit(topo_sched_t *s, const topo_gen_args_t *a);
int topo_gen_allgather_trivance(topo_sched_t *s, const topo_gen_args_t *a);
int topo_gen_allgather_bucket(topo_sched_t *s, const topo_gen_args_t *a);
int topo_gen_allgather_pat(topo_sched_t *s, const topo_gen_args_t *a);

/* algo_bfb.c: breadth-first broadcast on a torus or mesh (allgather, its
 * time reversal as reduce-scatter, both as allreduce); fits: at most 4
 * dimensions larger than 1. */
int topo_gen_allgather_bfb(topo_sched_t *s, const topo_gen_args_t *a);
int topo_gen_reduce_scatter_bfb(topo_sched_t *s, const topo_gen_args_t *a);
int topo_gen_allreduce_bfb(topo_sched_t *s, const topo_gen_args_t *a);
int topo_fits_bfb(const topo_gen_args_t *a, char *why, size_t len);
/* Tests: on a torus each step is solved once on rank 0's offsets and
 * every receiver's split is that one moved (1, the default), or each
 * receiver's is solved from the distances (0, as on a mesh); both
 * balance the links alike (the same transfers and block counts), the
 * blocks' order within a transfer differs, and on a ring the schedules
 * are the same.  Returns the previous setting.  Not thread-safe. */
int topo_bfb_translate(int on);

/* alltoall */
int topo_gen_alltoall_pairwise(topo_sched_t *s, const topo_gen_args_t *a);
int topo_gen_alltoall_linear(topo_sched_t *s, const topo_gen_args_t *a);

/* barrier */
int topo_gen_barrier_dissemination(topo_sched_t *s, const topo_gen_args_t *a);
int topo_gen_barrier_swing(topo_sched_t *s, const topo_gen_args_t *a);
int topo_gen_barrier_trivance(topo_sched_t *s, const topo_gen_args_t *a);

/* The classic schedules of the other primitives (Lu 2026a sec. 3, 4, 6, 7,
 * App. B.4, B.5): algo_binomial.c, algo_chain.c, algo_scatter_allgather.c,
 * algo_halving_doubling.c, algo_ring.c, algo_bruck_allgather.c,
 * algo_bruck_alltoall.c. */
int topo_gen_bcast_binomial(topo_sched_t *s, const topo_gen_args_t *a);
int topo_gen_bcast_pipelined_chain(topo_sched_t *s, const topo_gen_args_t *a);
int topo_gen_bcast_scatter_allgather(topo_sched_t *s, const topo_gen_args_t *a);
int topo_gen_bcast_bucket(topo_sched_t *s, const topo_gen_args_t *a); /* algo_bucket_rooted.c */
/* algo_double_binary_tree.c */
int topo_gen_bcast_dbt(topo_sched_t *s, const topo_gen_args_t *a);
int topo_gen_bcast_knomial(topo_sched_t *s, const topo_gen_args_t *a); /* algo_binomial.c */
int topo_gen_reduce_binomial(topo_sched_t *s, const topo_gen_args_t *a);
int topo_gen_reduce_pipelined_chain(topo_sched_t *s, const topo_gen_args_t *a);
int topo_gen_reduce_rabenseifner(topo_sched_t *s, const topo_gen_args_t *a);
int topo_gen_reduce_bucket(topo_sched_t *s, const topo_gen_args_t *a); /* algo_bucket_rooted.c */
int topo_gen_reduce_knomial(topo_sched_t *s, const topo_gen_args_t *a); /* algo_binomial.c */
int topo_gen_allgather_ring(topo_sched_t *s, const topo_gen_args_t *a);
int topo_gen_allgather_recursive_doubling(topo_sched_t *s, const topo_gen_args_t *a);
int topo_gen_allgather_bruck(topo_sched_t *s, const topo_gen_args_t *a);
int topo_gen_reduce_scatter_ring(topo_sched_t *s, const topo_gen_args_t *a);
/* The ring phases (algo_ring.c), p - 1 steps on s's ranks: in step t
 * (1-based) rank r sends to r + 1 and receives from r - 1.  Reduce-scatter:
 * send block (r - t + shift), reduce block (r - t - 1 + shift), mod p.
 * Allgather at ring position v: send block (v - t + 1 + shift) to `right`,
 * copy block (v - t + shift) from `left` (either -1: none). */
void topo_ring_reduce_scatter(topo_sched_t *s, int shift);
void topo_ring_allgather(topo_sched_t *s, int v, int shift, int right, int left);
int topo_gen_reduce_scatter_recursive_halving(topo_sched_t *s, const topo_gen_args_t *a);
int topo_gen_alltoall_bruck(topo_sched_t *s, const topo_gen_args_t *a);
int topo_gen_alltoall_bucket(topo_sched_t *s, const topo_gen_args_t *a);

/*
 * Folding a communicator of any size onto a power of two (Lu 2026a App. B.3,
 * "reduction-first embedding"): with p2 the largest power of two <= size and
 * rem = size - p2, each even rank r < 2*rem hands its data to r + 1 and sits
 * out; the other ranks are renumbered 0..p2-1 in rank order, so a group of
 * consecutive new ranks covers consecutive old ranks (which keeps the
 * combination order for non-commutative operations).
 */
typedef struct {
    int p2;     /* power of two taking part */
    int rem;    /* size - p2 */
    int newrank;/* this rank's number among the p2, or -1 if it sits out */
    int even;   /* the pair (2i, 2i + 1) whose even rank stays instead, or -1 */
} topo_fold_t;

void topo_fold_init(topo_fold_t *f, int size, int rank);
/* The same, except that in the pair holding `root` the root stays. */
void topo_fold_init_rooted(topo_fold_t *f, int size, int rank, int root);
/* The communicator rank of new rank n. */
int topo_fold_old(const topo_fold_t *f, int n);
/* Step 0: in each pair below 2*rem the rank that sits out sends blocks
 * [0, nblocks) to the one that stays, which reduces them (lower rank first).
 * Always opens one step when rem > 0. */
void topo_fold_in(topo_sched_t *s, const topo_fold_t *f);
/* Last step: the result goes back to the ranks that sat out. */
void topo_fold_out(topo_sched_t *s, const topo_fold_t *f);
/* The transfer of a fold step for position me < 2*rem on the folded ring,
 * whose pair partner (position me XOR 1) is communicator rank `partner`:
 * in (in = 1), the one that sits out sends blocks [first, first + count)
 * to the one that stays, which reduces them (lower position first); out,
 * the one that stays sends them back. */
void topo_fold_xfer(topo_sched_t *s, const topo_fold_t *f, int me, int partner, int in, int first,
                    int count);

#endif
