/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The route of a call: an algorithm, or the previous module (the module
 * that served the collective before coll/topo), in one order of
 * precedence, for everything that depends on the parameters and the call
 * alone.  The component (coll_topo_route.c) and topo-plan both decide
 * through these functions, so that the planner shows what the component
 * does:
 *   1. forced: an algorithm named for the primitive (not auto); one that
 *      does not fit the call gives the previous module, never another
 *      algorithm;
 *   2. rules: the rule covering the communicator's size and the payload
 *      (`previous`, or an algorithm, which must fit);
 *   3. host: on a communicator whose ranks share one host, payloads below
 *      the primitive's limit go to the previous module (not with a forced
 *      algorithm, nor rules for the communicator's size);
 *   4. auto: the cheapest candidate (decision.h), unless on 2 ranks its
 *      plan is one message per rank of at most the eager limit and the
 *      primitive is in the two-rank set (then the previous module, which
 *      sends it with less bookkeeping; an exchange only to coll/tuned).
 * The component adds what only a run knows: the verdicts of its timing
 * against the previous module (coll_topo_autotune), the call's datatype
 * and layout, and the ranks' agreement.
 */
#ifndef TOPO_ROUTE_H
#define TOPO_ROUTE_H

#include "catalog.h"
#include "rules.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The defaults of the component's coll_topo_handoff (the two-rank set)
 * and coll_topo_host_handoff (the one-host limits): on 2 ranks, binomial
 * bcast and reduce of small payloads ran at 0.84-0.96 of tuned's speed,
 * barrier, allgather and alltoall (one exchange) executed 20-45% more
 * instructions than tuned's two-process code; on 16 ranks of a 16-core
 * node, coll/tuned was as fast or faster below these payloads. */
#define TOPO_ROUTE_TWO_RANKS_DEFAULT "allgather,bcast,reduce,alltoall,barrier"
#define TOPO_ROUTE_HOST_DEFAULT "bcast:4k,reduce:64k"

/* Where a route comes from, in the order of precedence. */
typedef enum {
    TOPO_BY_FORCED = 0, /* an algorithm named for the primitive */
    TOPO_BY_RULE,       /* a size-range rule */
    TOPO_BY_HOST,       /* the ranks share one host */
    TOPO_BY_TWO_RANKS,  /* one message per rank on 2 ranks */
    TOPO_BY_AUTOTUNE,   /* a verdict of the component's timing */
    TOPO_BY_AUTO,       /* the cost model's cheapest */
    TOPO_BY_CALL        /* the call or the communicator */
} topo_route_by_t;

/* The parameters of one primitive's routes. */
typedef struct {
    const topo_algo_t *forced;  /* NULL: auto */
    const topo_rules_t *rules;  /* NULL: none */
    size_t host_limit;          /* payloads below go to the previous module
                                   when the ranks share one host (0: none) */
    unsigned two_ranks;         /* primitives (bit 1u << prim) whose
                                   one-message calls on 2 ranks go to the
                                   previous module */
    int previous_tuned;         /* the previous module is coll/tuned (takes
                                   an exchange too) */
    double eager;               /* the eager limit in bytes (0: none) */
} topo_route_params_t;

/* What the first two sources say about a call of `bytes` (a: its
 * primitive, size and root; opclass: its operation's class): 1 when they
 * settle it, *algo the algorithm or NULL (the previous module), *by
 * TOPO_BY_FORCED or TOPO_BY_RULE, *rule the rule (TOPO_BY_RULE) and, when
 * the named algorithm does not fit, the reason in why; 0 when they do not
 * (host, then auto, decide). */
int topo_route_named(const topo_route_params_t *p, const topo_gen_args_t *a, int opclass,
                     size_t bytes, const topo_algo_t **algo, int *by, const topo_rule_t **rule,
                     char *why, size_t len);

/* The payload below which calls of a communicator of `size` ranks that
 * share one host go to the previous module: p->host_limit, unless a forced
 * algorithm or rules for the size decide (then 0). */
size_t topo_route_host_limit(const topo_route_params_t *p, int size);

/* Does auto's answer for a call of `bytes` of `prim` on `size` ranks, a
 * plan of `msgs` messages of its busiest rank in `steps` steps that move
 * messages, go to the previous module (TOPO_BY_TWO_RANKS)? */
int topo_route_two_ranks(const topo_route_params_t *p, topo_prim_t prim, int size, size_t bytes,
                         int msgs, int steps);

/* The reasons the component's verbose line and topo-plan give for those
 * two routes, in buf: the `size` ranks share one host and `prim` calls
 * below `limit` bytes go to the previous module; on 2 ranks `algo` is one
 * message per rank of at most `eager` bytes. */
void topo_route_host_reason(char *buf, size_t len, int size, topo_prim_t prim, size_t limit);
void topo_route_two_ranks_reason(char *buf, size_t len, const char *algo, double eager);

#ifdef __cplusplus
}
#endif
#endif
