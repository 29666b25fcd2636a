/*
 * The algorithm catalog: every algorithm listed once, with its primitive,
 * the name users type (the MCA value), its restrictions and its schedule
 * generator.  The MCA enumerations, ompi_info help, the candidates of the
 * decision, the README table and the test matrices all come from it.
 */
#ifndef TOPO_CATALOG_H
#define TOPO_CATALOG_H

#include "schedule.h"
#include "topology.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Restrictions, checked by topo_algo_fits. */
enum {
    TOPO_ALG_COMMUTATIVE = 1u << 0, /* only for commutative operations */
    TOPO_ALG_GRID = 1u << 1,        /* needs a torus or mesh topology whose
                                       size equals the communicator's */
    TOPO_ALG_ROOT_FREE = 1u << 2    /* not a restriction: a rooted algorithm
                                       whose price is the same for every root
                                       where all ranks are alike (its
                                       schedules count ranks from the root;
                                       check_cost proves it) */
};

/* What a generator is asked for. */
typedef struct {
    topo_prim_t prim;
    int size;                     /* communicator size (>= 1) */
    int rank;                     /* the rank to generate for */
    int root;                     /* rooted primitives */
    const topo_topology_t *topo;  /* never NULL */
} topo_gen_args_t;

typedef int (*topo_gen_fn)(topo_sched_t *s, const topo_gen_args_t *a);
/* Does every root of `prim` cost the same on t for a communicator of
 * `size`: t treats all ranks alike (no placement, no modelled links: a
 * star, a full mesh, a grid of another size) and every algorithm of
 * `prim` that can fit it is TOPO_ALG_ROOT_FREE?  Then one decision table
 * serves every root. */
int topo_prim_root_free(topo_prim_t prim, const topo_topology_t *t, int size);

/* Extra restriction beyond the flags: returns 1 if the algorithm applies,
 * else 0 and a reason in why. */
typedef int (*topo_fits_fn)(const topo_gen_args_t *a, char *why, size_t len);

typedef struct {
    const char *name;    /* as the MCA value spells it */
    topo_prim_t prim;
    unsigned flags;      /* TOPO_ALG_* */
    const char *summary; /* one line for ompi_info and the README */
    const char *source;  /* the seed section it follows */
    topo_gen_fn gen;
    topo_fits_fn fits;   /* may be NULL */
} topo_algo_t;

/* The whole table. */
const topo_algo_t *topo_catalog(int *n);
/* The algorithm of `prim` called `name`, or NULL. */
const topo_algo_t *topo_catalog_find(topo_prim_t prim, const char *name);
/* Does `algo` apply to this call?  1 yes; 0 no, with the reason in why. */
int topo_algo_fits(const topo_algo_t *algo, const topo_gen_args_t *a,
                   int commutative, char *why, size_t len);
/* Generate `algo`'s schedule for a->rank and finish it. */
int topo_algo_generate(const topo_algo_t *algo, const topo_gen_args_t *a,
                       topo_sched_t *s);

#ifdef __cplusplus
}
#endif
#endif
