/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The algorithm catalog (see catalog.h): one row per algorithm.
 */
#include "catalog.h"

#include "algo.h"

#include <stdio.h>
#include <string.h>

static const topo_algo_t table[] = {
    {"ring", TOPO_PRIM_ALLREDUCE, TOPO_ALG_COMMUTATIVE,
     "ring reduce-scatter + ring allgather: 2(p-1) steps, bandwidth-optimal",
     "Lu 2026a", topo_gen_allreduce_ring, NULL, NULL},
    {"recursive_doubling", TOPO_PRIM_ALLREDUCE, 0,
     "whole-vector exchange with rank XOR 2^k: ceil(log2 p) (+2 if p is not a power of two) "
     "steps, latency-optimal, order-preserving",
     "Lu 2026a", topo_gen_allreduce_recursive_doubling, NULL, NULL},
    {"rabenseifner", TOPO_PRIM_ALLREDUCE, 0,
     "recursive-halving reduce-scatter + recursive-doubling allgather: 2 log2 p steps, "
     "bandwidth-optimal, order-preserving",
     "Lu 2026a", topo_gen_allreduce_rabenseifner, NULL, NULL},
    {"swing_lat", TOPO_PRIM_ALLREDUCE, TOPO_ALG_COMMUTATIVE | TOPO_ALG_RANK_TREES,
     "Swing whole-part exchange with peers r +- rho(s) on rings and tori, 2D lanes "
     "(plain + mirrored): sum floor(log2 d_i) steps (+2 per dimension not a power of two)",
     "De Sensi et al. 2024", topo_gen_allreduce_swing_lat, NULL, topo_same_tree_swing_lat},
    {"swing_bw", TOPO_PRIM_ALLREDUCE, TOPO_ALG_COMMUTATIVE,
     "Swing reduce-scatter + allgather on rings and tori, 2D lanes (plain + mirrored): "
     "2 sum ceil(log2 e_i) steps (e_i = d_i, or d_i - 1 if odd), bandwidth-optimal",
     "De Sensi et al. 2024", topo_gen_allreduce_swing_bw, NULL, NULL},
    {"bucket", TOPO_PRIM_ALLREDUCE, TOPO_ALG_COMMUTATIVE | TOPO_ALG_GRID,
     "dimension-decomposed ring (torus) or open line (mesh): reduce-scatter dimension by "
     "dimension, allgather in reverse; 2 sum(d_i - 1) steps, one lane per dimension and "
     "direction (parts in proportion to the lane's first dimension), neighbour messages only",
     "Lu 2026b; De Sensi et al. 2024", topo_gen_allreduce_bucket, NULL, NULL},
    {"bfb", TOPO_PRIM_ALLREDUCE, TOPO_ALG_COMMUTATIVE | TOPO_ALG_DIRECT,
     "breadth-first broadcast: the bfb reduce-scatter, then the bfb allgather: 2D steps (D the "
     "diameter), neighbour messages only; on a torus of any shape every link carries "
     "2(p-1)/(p d) M (d links per rank), bandwidth-optimal; up to 4 dimensions larger than 1, "
     "or a strongly connected graph of degree up to 8",
     "Zhao et al. 2025", topo_gen_allreduce_bfb, topo_fits_bfb, NULL},
    {"dbt", TOPO_PRIM_ALLREDUCE, 0,
     "double binary tree: two complementary in-order trees, each reducing and broadcasting "
     "half the vector in 2 ceil(log2 p) pipelined segments; 4 ceil(log2 p) - 1 steps at most, "
     "order-preserving",
     "Lu 2026a", topo_gen_allreduce_dbt, NULL, NULL},
    {"trivance_lat", TOPO_PRIM_ALLREDUCE, TOPO_ALG_COMMUTATIVE | TOPO_ALG_RANK_TREES,
     "Trivance whole-part exchange with r - 3^k and r + 3^k, joint reduction, one lane per "
     "torus dimension: sum ceil(log3 d_i) steps (+1 per dimension that is not 3^k or 2*3^k: "
     "folded)",
     "Juerss et al. 2025", topo_gen_allreduce_trivance_lat, NULL, topo_same_tree_trivance_lat},
    {"trivance_bw", TOPO_PRIM_ALLREDUCE, TOPO_ALG_COMMUTATIVE,
     "Trivance reduce-scatter + allgather with r -/+ 3^k (one distance corrected for sizes "
     "not 3^k), one lane per torus dimension: 2 sum ceil(log3 d_i) steps, bandwidth-optimal",
     "Juerss et al. 2025", topo_gen_allreduce_trivance_bw, NULL, NULL},
    {"bruck", TOPO_PRIM_ALLREDUCE, TOPO_ALG_COMMUTATIVE,
     "Bruck (B): reduce-scatter + allgather with r + 3^k and r + 2*3^k (one direction), one "
     "lane per torus dimension: 2 sum ceil(log3 d_i) steps, bandwidth-optimal",
     "Juerss et al. 2025", topo_gen_allreduce_bruck, NULL, NULL},
    {"recursive_doubling_mp", TOPO_PRIM_ALLREDUCE, TOPO_ALG_COMMUTATIVE | TOPO_ALG_RANK_TREES,
     "multiport (mirrored) recursive doubling: 2D lanes (D plain, each starting in its own "
     "dimension, and D on reflected coordinates), each exchanging its whole part with virtual "
     "rank XOR 2^k: ceil(log2 p) steps (+2 if p is not a power of two)",
     "De Sensi et al. 2024", topo_gen_allreduce_recursive_doubling_mp, NULL,
     topo_same_tree_recursive_doubling_mp},
    {"rabenseifner_mp", TOPO_PRIM_ALLREDUCE, TOPO_ALG_COMMUTATIVE,
     "multiport (mirrored) Rabenseifner: 2D lanes as recursive_doubling_mp, each a "
     "recursive-halving reduce-scatter + recursive-doubling allgather of its part: "
     "2 ceil(log2 p) steps (+2 if p is not a power of two)",
     "De Sensi et al. 2024", topo_gen_allreduce_rabenseifner_mp, NULL, NULL},
    {"swing", TOPO_PRIM_REDUCE_SCATTER, TOPO_ALG_COMMUTATIVE,
     "the reduce-scatter half of swing_bw (2D lanes, keep-latest, odd extension): "
     "sum ceil(log2 e_i) steps, every rank sends (p-1)/p of the vector",
     "De Sensi et al. 2024", topo_gen_reduce_scatter_swing, NULL, NULL},
    {"trivance", TOPO_PRIM_REDUCE_SCATTER, TOPO_ALG_COMMUTATIVE,
     "the reduce-scatter half of trivance_bw (r -/+ d_k, joint reduction, one lane per "
     "dimension): sum ceil(log3 d_i) steps, every rank sends (p-1)/p of the vector",
     "Juerss et al. 2025", topo_gen_reduce_scatter_trivance, NULL, NULL},
    {"bucket", TOPO_PRIM_REDUCE_SCATTER, TOPO_ALG_COMMUTATIVE | TOPO_ALG_GRID,
     "the reduce-scatter half of the allreduce bucket: ring (torus) or open line (mesh) "
     "phases dimension by dimension, one lane per dimension and direction: sum(d_i - 1) "
     "steps, neighbour messages only",
     "Lu 2026b", topo_gen_reduce_scatter_bucket, NULL, NULL},
    {"bfb", TOPO_PRIM_REDUCE_SCATTER, TOPO_ALG_COMMUTATIVE | TOPO_ALG_DIRECT,
     "the bfb allgather reversed in time: partial sums flow up each block's broadcast tree to "
     "its owner (one tree per block): D steps, (p-1)/(p d) M per link on a torus; on a "
     "directed graph the allgather of the transposed graph, reversed",
     "Zhao et al. 2025", topo_gen_reduce_scatter_bfb, topo_fits_bfb, NULL},
    {"swing", TOPO_PRIM_ALLGATHER, 0,
     "the allgather half of swing_bw (2D lanes, far peers first): sum ceil(log2 e_i) steps, "
     "every rank sends (p-1)/p of the vector",
     "De Sensi et al. 2024", topo_gen_allgather_swing, NULL, NULL},
    {"trivance", TOPO_PRIM_ALLGATHER, 0,
     "the allgather half of trivance_bw (r -/+ d_k, one lane per dimension): "
     "sum ceil(log3 d_i) steps, every rank receives (p-1)/p of the vector once",
     "Juerss et al. 2025", topo_gen_allgather_trivance, NULL, NULL},
    {"bucket", TOPO_PRIM_ALLGATHER, TOPO_ALG_GRID,
     "the allgather half of the allreduce bucket: ring (torus) or open line (mesh) phases "
     "dimension by dimension, one lane per dimension and direction: sum(d_i - 1) steps, "
     "neighbour messages only",
     "Lu 2026b", topo_gen_allgather_bucket, NULL, NULL},
    {"bfb", TOPO_PRIM_ALLGATHER, TOPO_ALG_DIRECT,
     "breadth-first broadcast: in step t every rank gets the shards of the ranks t hops away "
     "from its neighbours on shortest paths, split over its in-links at the LP optimum (an "
     "integer max-flow over parts of shards): D steps (the diameter), on a torus of any shape "
     "(p-1)/(p d) M per link, bandwidth-optimal; up to 4 dimensions larger than 1, or a "
     "strongly connected graph of degree up to 8",
     "Zhao et al. 2025", topo_gen_allgather_bfb, topo_fits_bfb, NULL},
    {"pairwise", TOPO_PRIM_ALLTOALL, 0,
     "pairwise exchange: p-1 steps, at step t send to r+t and receive from r-t",
     "Lu 2026a", topo_gen_alltoall_pairwise, NULL, NULL},
    {"dissemination", TOPO_PRIM_BARRIER, 0,
     "dissemination: ceil(log2 p) steps, signal r+2^k and wait for r-2^k",
     "Hensgen-Finkel-Manber 1988", topo_gen_barrier_dissemination, NULL, NULL},
    {"swing", TOPO_PRIM_BARRIER, 0,
     "Swing peers r +- rho(s), zero-byte, one lane over the torus dimensions: "
     "sum ceil(log2 e_i) steps (e_i = d_i, or d_i - 1 if odd: the extra rank signals two)",
     "De Sensi et al. 2024", topo_gen_barrier_swing, NULL, NULL},
    {"trivance", TOPO_PRIM_BARRIER, 0,
     "Trivance peers r -/+ 3^k, zero-byte, both directions, one lane over the torus "
     "dimensions: sum ceil(log3 d_i) steps, any size unfolded",
     "Juerss et al. 2025", topo_gen_barrier_trivance, NULL, NULL},
    {"binomial", TOPO_PRIM_BCAST, TOPO_ALG_ROOT_FREE,
     "binomial tree: ceil(log2 p) steps of the whole vector, every holder sends to one "
     "new rank per step; latency-optimal",
     "Lu 2026a", topo_gen_bcast_binomial, NULL, NULL},
    {"knomial", TOPO_PRIM_BCAST, TOPO_ALG_ROOT_FREE,
     "k-nomial tree of radix 4: ceil(log4 p) steps of the whole vector, every holder sends "
     "to up to 3 new ranks per step; fewer steps than binomial, 3 copies per step",
     "Lu 2026a; radix 4 as coll/tuned", topo_gen_bcast_knomial,
     NULL, NULL},
    {"pipelined_chain", TOPO_PRIM_BCAST, TOPO_ALG_ROOT_FREE,
     "chain from the root around the ring, 8 segments streamed: p + 6 steps of M/8, "
     "bandwidth term (p + 6)/8 M",
     "Lu 2026a", topo_gen_bcast_pipelined_chain, NULL, NULL},
    {"scatter_allgather", TOPO_PRIM_BCAST, TOPO_ALG_ROOT_FREE,
     "van de Geijn: binomial scatter of p blocks + ring allgather: ceil(log2 p) + p - 1 "
     "steps, about 2(p-1)/p M per rank",
     "Lu 2026a", topo_gen_bcast_scatter_allgather, NULL, NULL},
    {"bucket", TOPO_PRIM_BCAST, TOPO_ALG_GRID,
     "dimension-decomposed: both ways around each torus ring (floor(d_i/2) steps) or along "
     "each mesh line from the root (max(x_i, d_i-1-x_i)), X then Y then Z, S = max(8, 4H) "
     "segments pipelined across dimensions: S + H - 1 steps (H = sum of those), under 5/4 M",
     "Lu 2026b; Lu 2026a", topo_gen_bcast_bucket, NULL, NULL},
    {"dbt", TOPO_PRIM_BCAST, TOPO_ALG_ROOT_FREE,
     "double binary tree over the p-1 other ranks (allreduce dbt's trees), the root feeding "
     "each tree's root half the vector in 4 ceil(log2 p) pipelined segments: "
     "4 ceil(log2 p) + floor(log2 p) steps at most, every rank sends at most M",
     "Lu 2026a", topo_gen_bcast_dbt, NULL, NULL},
    {"binomial", TOPO_PRIM_REDUCE, 0,
     "binomial tree on rank intervals: ceil(log2 p) steps of the whole vector, "
     "order-preserving",
     "Lu 2026a", topo_gen_reduce_binomial, NULL, NULL},
    {"knomial", TOPO_PRIM_REDUCE, 0,
     "k-nomial tree of radix 4 on rank intervals: ceil(log4 p) steps, up to 3 vectors "
     "received and reduced per step, order-preserving",
     "Lu 2026a; radix 4", topo_gen_reduce_knomial, NULL, NULL},
    {"pipelined_chain", TOPO_PRIM_REDUCE, 0,
     "chains from both ends toward the root, 8 segments streamed: max(root, p-1-root) + 7 "
     "steps of M/8, order-preserving",
     "Lu 2026a", topo_gen_reduce_pipelined_chain, NULL, NULL},
    {"rabenseifner", TOPO_PRIM_REDUCE, 0,
     "recursive-halving reduce-scatter + binomial gather to the root: 2 log2 p steps "
     "(+1 if p is not a power of two), 2(p-1)/p M per rank, order-preserving",
     "Lu 2026a", topo_gen_reduce_rabenseifner, NULL, NULL},
    {"bucket", TOPO_PRIM_REDUCE, TOPO_ALG_COMMUTATIVE | TOPO_ALG_GRID,
     "the bucket broadcast's tree reversed: the last dimension collapses first, toward the "
     "root, S = max(8, 4H) segments pipelined: S + H - 1 steps, under 5/4 M; rank order on "
     "meshes, not across a torus' wraparound",
     "Lu 2026b; Lu 2026a", topo_gen_reduce_bucket, NULL, NULL},
    {"ring", TOPO_PRIM_ALLGATHER, 0,
     "ring: p-1 steps of one block to the right neighbour, bandwidth-optimal",
     "Lu 2026a", topo_gen_allgather_ring, NULL, NULL},
    {"recursive_doubling", TOPO_PRIM_ALLGATHER, 0,
     "exchange with rank XOR 2^k, payload doubling: log2 p steps (+2 folding steps if p is "
     "not a power of two), (p-1)/p M for p = 2^k",
     "Lu 2026a", topo_gen_allgather_recursive_doubling, NULL, NULL},
    {"bruck", TOPO_PRIM_ALLGATHER, 0,
     "Bruck concatenation: ceil(log2 p) steps for any p, send to r-2^k, (p-1)/p M per rank",
     "Bruck et al. 1997; Lu 2026a", topo_gen_allgather_bruck, NULL, NULL},
    {"pat", TOPO_PRIM_ALLGATHER, 0,
     "PAT: recursive-doubling exchange with the farthest partner first (XOR p/2, ..., 2, 1): "
     "log2 p steps (+2 folding steps if p is not a power of two), (p-1)/p M per rank, small "
     "messages far and large ones near",
     "Lu 2026a", topo_gen_allgather_pat, NULL, NULL},
    {"ring", TOPO_PRIM_REDUCE_SCATTER, TOPO_ALG_COMMUTATIVE,
     "ring: p-1 steps of one block to the right neighbour, bandwidth-optimal", "Lu 2026a",
     topo_gen_reduce_scatter_ring, NULL, NULL},
    {"recursive_halving", TOPO_PRIM_REDUCE_SCATTER, 0,
     "exchange with rank XOR 2^k from distance 1 up, payload halving: log2 p steps (+2 "
     "folding steps if p is not a power of two), order-preserving",
     "Lu 2026a", topo_gen_reduce_scatter_recursive_halving, NULL, NULL},
    {"bruck", TOPO_PRIM_ALLTOALL, 0,
     "Bruck: ceil(log2 p) rounds for any p, slots with bit k set to r+2^k; "
     "ceil(log2 p)/2 M per rank for p = 2^k, rotations folded into the addressing",
     "Lu 2026a", topo_gen_alltoall_bruck, NULL, NULL},
    {"linear", TOPO_PRIM_ALLTOALL, 0,
     "pairwise exchange posted at once: one step of p-1 messages, sent to r+1, r+2, ... "
     "(staggered), (p-1)/p M per rank through one port",
     "Lu 2026a", topo_gen_alltoall_linear, NULL, NULL},
    {"bucket", TOPO_PRIM_ALLTOALL, TOPO_ALG_GRID,
     "dimension-decomposed ring relay: one phase per dimension, chunks relayed hop by hop the "
     "shorter way around each ring (torus) or along each line (mesh): sum floor(d_i/2) steps "
     "(torus), sum (d_i - 1) (mesh), neighbour messages only",
     "Lu 2026b", topo_gen_alltoall_bucket, NULL, NULL},
};

const topo_algo_t *topo_catalog(int *n)
{
    *n = (int)(sizeof(table) / sizeof(table[0]));
    return table;
}

const topo_algo_t *topo_catalog_find(topo_prim_t prim, const char *name)
{
    int n;
    const topo_algo_t *t = topo_catalog(&n);
    for (int i = 0; i < n; i++) {
        if (t[i].prim == prim && 0 == strcmp(t[i].name, name)) {
            return &t[i];
        }
    }
    return NULL;
}

int topo_prim_root_free(topo_prim_t prim, const topo_topology_t *t, int size)
{
    if (topo_topology_placed(t, size) || topo_topology_routes(t, size)) {
        return 0;
    }
    int n;
    const topo_algo_t *cat = topo_catalog(&n);
    for (int i = 0; i < n; i++) {
        if (cat[i].prim == prim && !(cat[i].flags & TOPO_ALG_ROOT_FREE) &&
            !((cat[i].flags & TOPO_ALG_GRID) && !topo_topology_is_grid_of(t, size)) &&
            !((cat[i].flags & TOPO_ALG_DIRECT) && !topo_topology_is_direct_of(t, size))) {
            return 0;
        }
    }
    return 1;
}

const char *topo_opclass_name(int opclass)
{
    switch (opclass) {
    case TOPO_OP_ORDERED:
        return "non-commutative";
    case TOPO_OP_COMMUTATIVE:
        return "commutative";
    default:
        return "exact";
    }
}

int topo_algo_same_tree(const topo_algo_t *algo, const topo_gen_args_t *a)
{
    return !(algo->flags & TOPO_ALG_RANK_TREES) ||
           (NULL != algo->same_tree && algo->same_tree(a));
}

int topo_algo_fits(const topo_algo_t *algo, const topo_gen_args_t *a, int opclass,
                   char *why, size_t len)
{
    if ((algo->flags & TOPO_ALG_COMMUTATIVE) && TOPO_OP_ORDERED == opclass) {
        snprintf(why, len, "%s needs a commutative operation", algo->name);
        return 0;
    }
    if (TOPO_OP_EXACT != opclass && !topo_algo_same_tree(algo, a)) {
        snprintf(why, len,
                 "%s combines each rank's result in its own order on %d ranks of this "
                 "topology, so results that round (floating-point sums and products, "
                 "user-defined operations) could differ between ranks",
                 algo->name, a->size);
        return 0;
    }
    if (algo->flags & TOPO_ALG_GRID) {
        if (!topo_topology_is_grid_of(a->topo, a->size)) {
            snprintf(why, len, "%s needs a torus or mesh topology of %d ranks%s", algo->name,
                     a->size,
                     NULL != a->topo->place && topo_topology_size(a->topo) > 0
                         ? ", the communicator being the whole grid in order"
                         : "");
            return 0;
        }
    }
    if ((algo->flags & TOPO_ALG_DIRECT) && !topo_topology_is_direct_of(a->topo, a->size)) {
        snprintf(why, len, "%s needs a torus, mesh or graph topology of %d ranks%s", algo->name,
                 a->size,
                 NULL != a->topo->place && topo_topology_size(a->topo) > 0
                     ? ", the communicator being the whole network in order"
                     : "");
        return 0;
    }
    if (NULL != algo->fits) {
        return algo->fits(a, why, len);
    }
    return 1;
}

int topo_algo_generate(const topo_algo_t *algo, const topo_gen_args_t *a, topo_sched_t *s)
{
    if (a->size < 1 || a->rank < 0 || a->rank >= a->size || NULL == a->topo) {
        topo_sched_init(s, 1, 0, 0);
        return TOPO_EINVAL;
    }
    int rc = algo->gen(s, a);
    if (TOPO_OK == rc && a->prim == TOPO_PRIM_ALLTOALL) {
        s->mblocks = a->size * s->nparts; /* M is the send buffer */
    }
    if (TOPO_OK != rc) {
        topo_sched_free(s);
    }
    return rc;
}
