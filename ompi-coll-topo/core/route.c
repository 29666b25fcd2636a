/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The route of a call before and after auto (route.h).
 */
#include "route.h"
#include <stdio.h>

int topo_route_named(const topo_route_params_t *p, const topo_gen_args_t *a, int opclass,
                     size_t bytes, const topo_algo_t **algo, int *by, const topo_rule_t **rule,
                     char *why, size_t len)
{
    *rule = NULL;
    if (NULL != p->forced) {
        *by = TOPO_BY_FORCED;
        *algo = topo_algo_fits(p->forced, a, opclass, why, len) ? p->forced : NULL;
        return 1;
    }
    const topo_rule_t *r = NULL != p->rules ? topo_rules_find(p->rules, a->size, bytes) : NULL;
    if (NULL == r) {
        return 0;
    }
    *by = TOPO_BY_RULE;
    *rule = r;
    *algo = !r->previous && topo_algo_fits(r->algo, a, opclass, why, len) ? r->algo : NULL;
    return 1;
}

size_t topo_route_host_limit(const topo_route_params_t *p, int size)
{
    if (0 == p->host_limit || NULL != p->forced ||
        (NULL != p->rules && NULL != topo_rules_group(p->rules, size))) {
        return 0;
    }
    return p->host_limit;
}

int topo_route_two_ranks(const topo_route_params_t *p, topo_prim_t prim, int size, size_t bytes,
                         int msgs, int steps)
{
    return 1 == steps && msgs >= 1 && msgs <= 2 && 2 == size &&
           0 != (p->two_ranks & (1u << prim)) && p->eager > 0 && (double)bytes <= p->eager &&
           (TOPO_PRIM_BCAST == prim || TOPO_PRIM_REDUCE == prim || p->previous_tuned);
}

void topo_route_host_reason(char *buf, size_t len, int size, topo_prim_t prim, size_t limit)
{
    char lim[32];
    topo_rules_format_size(limit, lim, sizeof(lim));
    snprintf(buf, len,
             "coll_topo_host_handoff: the %d ranks share one host, where %s of less than %s "
             "bytes goes to the previous module",
             size, topo_prim_name(prim), lim);
}

void topo_route_two_ranks_reason(char *buf, size_t len, const char *algo, double eager)
{
    snprintf(buf, len,
             "coll_topo_handoff: on 2 ranks %s is one message per rank, of at most %.0f bytes "
             "(the eager limit)",
             algo, eager);
}
