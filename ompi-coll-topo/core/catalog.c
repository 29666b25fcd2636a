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
     "seed 001 sec. 5.1", topo_gen_allreduce_ring, NULL},
    {"recursive_doubling", TOPO_PRIM_ALLREDUCE, 0,
     "whole-vector exchange with rank XOR 2^k: ceil(log2 p) (+2 if p is not a power of two) "
     "steps, latency-optimal, order-preserving",
     "seed 001 App. B.1, B.3", topo_gen_allreduce_recursive_doubling, NULL},
    {"rabenseifner", TOPO_PRIM_ALLREDUCE, 0,
     "recursive-halving reduce-scatter + recursive-doubling allgather: 2 log2 p steps, "
     "bandwidth-optimal, order-preserving",
     "seed 001 App. B.2, B.3", topo_gen_allreduce_rabenseifner, NULL},
    {"swing_lat", TOPO_PRIM_ALLREDUCE, TOPO_ALG_COMMUTATIVE,
     "Swing whole-part exchange with peers r +- rho(s) on rings and tori, 2D lanes "
     "(plain + mirrored): sum floor(log2 d_i) steps (+2 per dimension not a power of two)",
     "seed 004 sec. 3.1.2, 3.2, 4", topo_gen_allreduce_swing_lat, NULL},
    {"swing_bw", TOPO_PRIM_ALLREDUCE, TOPO_ALG_COMMUTATIVE,
     "Swing reduce-scatter + allgather on rings and tori, 2D lanes (plain + mirrored): "
     "2 sum ceil(log2 e_i) steps (e_i = d_i, or d_i - 1 if odd), bandwidth-optimal",
     "seed 004 sec. 3.1.1, 3.2, 4, App. A", topo_gen_allreduce_swing_bw, NULL},
    {"bucket", TOPO_PRIM_ALLREDUCE, TOPO_ALG_COMMUTATIVE | TOPO_ALG_GRID,
     "dimension-decomposed ring (torus) or open line (mesh): reduce-scatter dimension by "
     "dimension, allgather in reverse; 2 sum(d_i - 1) steps, one lane per dimension and "
     "direction, neighbour messages only",
     "seed 000 sec. 3.4, 4.2; Swing sec. 2.3", topo_gen_allreduce_bucket, NULL},
    {"dbt", TOPO_PRIM_ALLREDUCE, 0,
     "double binary tree: two complementary in-order trees, each reducing and broadcasting "
     "half the vector in 2 ceil(log2 p) pipelined segments; 4 ceil(log2 p) - 1 steps at most, "
     "order-preserving",
     "seed 001 sec. 5.2, App. C", topo_gen_allreduce_dbt, NULL},
    {"trivance_lat", TOPO_PRIM_ALLREDUCE, TOPO_ALG_COMMUTATIVE,
     "Trivance whole-part exchange with r - 3^k and r + 3^k, joint reduction, one lane per "
     "torus dimension: sum ceil(log3 d_i) steps (+1 per dimension that is not 3^k or 2*3^k: "
     "folded)",
     "seed 002 sec. 4.2, 5", topo_gen_allreduce_trivance_lat, NULL},
    {"trivance_bw", TOPO_PRIM_ALLREDUCE, TOPO_ALG_COMMUTATIVE,
     "Trivance reduce-scatter + allgather with r -/+ 3^k (one distance corrected for sizes "
     "not 3^k), one lane per torus dimension: 2 sum ceil(log3 d_i) steps, bandwidth-optimal",
     "seed 002 sec. 4.1, 4.3, 4.4, 5", topo_gen_allreduce_trivance_bw, NULL},
    {"bruck", TOPO_PRIM_ALLREDUCE, TOPO_ALG_COMMUTATIVE,
     "Bruck (B): reduce-scatter + allgather with r + 3^k and r + 2*3^k (one direction), one "
     "lane per torus dimension: 2 sum ceil(log3 d_i) steps, bandwidth-optimal",
     "seed 002 sec. 2.4, App. B", topo_gen_allreduce_bruck, NULL},
    {"pairwise", TOPO_PRIM_ALLTOALL, 0,
     "pairwise exchange: p-1 steps, at step t send to r+t and receive from r-t",
     "seed 001 sec. 7.2", topo_gen_alltoall_pairwise, NULL},
    {"dissemination", TOPO_PRIM_BARRIER, 0,
     "dissemination: ceil(log2 p) steps, signal r+2^k and wait for r-2^k",
     "Hensgen-Finkel-Manber 1988", topo_gen_barrier_dissemination, NULL},
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

int topo_algo_fits(const topo_algo_t *algo, const topo_gen_args_t *a, int commutative,
                   char *why, size_t len)
{
    if ((algo->flags & TOPO_ALG_COMMUTATIVE) && !commutative) {
        snprintf(why, len, "%s needs a commutative operation", algo->name);
        return 0;
    }
    if (algo->flags & TOPO_ALG_GRID) {
        int n = topo_topology_size(a->topo);
        if (0 == n || n != a->size) {
            snprintf(why, len, "%s needs a torus or mesh topology of %d ranks", algo->name,
                     a->size);
            return 0;
        }
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
    if (TOPO_OK != rc) {
        topo_sched_free(s);
    }
    return rc;
}
