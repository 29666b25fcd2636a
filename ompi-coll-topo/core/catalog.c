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
