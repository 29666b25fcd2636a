/*
 * The cost model: prices a schedule, derived from the schedule itself.
 *
 * Per step (in step order, lanes in lockstep) the time is alpha (if any rank
 * transfers), plus beta times the bytes of the busiest rank's busiest port,
 * plus gamma times the bytes it reduces; a call costs the sum over steps.
 * Costs are computed by streaming the schedules of all ranks, one at a time.
 */
#ifndef TOPO_COST_H
#define TOPO_COST_H

#include "catalog.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    double alpha; /* seconds per message (per step) */
    double beta;  /* seconds per byte on one port */
    double gamma; /* seconds per reduced byte */
} topo_cost_params_t;

/* The cost of `algo` as an affine function of the payload M in bytes
 * (M as the primitive defines it: the vector for allreduce): predicted
 * seconds = *lat + *per_byte * M.  Blocks are priced at their exact share of
 * M, so the function is affine.  Returns TOPO_OK or an error. */
int topo_cost_affine(const topo_algo_t *algo, const topo_gen_args_t *a,
                     const topo_cost_params_t *p, double *lat,
                     double *per_byte);

/* Predicted seconds for `algo` on a->size ranks moving `count` elements of
 * elem_size bytes.  Returns a negative value if a schedule fails. */
double topo_cost_algo(const topo_algo_t *algo, const topo_gen_args_t *a,
                      size_t count, size_t elem_size,
                      const topo_cost_params_t *p);

#ifdef __cplusplus
}
#endif
#endif
