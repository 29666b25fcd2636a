/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The algorithm catalog: every algorithm listed once, with its primitive,
 * the name users type (the MCA value), its restrictions and its schedule
 * generator.  The MCA enumerations, ompi_info help, the candidates of the
 * decision, the README table and the test matrices all come from it.
 *
 * The papers the algorithms follow, as the source column and the comments
 * cite them:
 *   Lu 2026a: Yue Lu, "Collective Algorithms: A Network Topology-Free
 *     Introduction", 2026.
 *   Lu 2026b: Yue Lu, "Mapping Collective Algorithms to Physical
 *     Topologies", 2026.
 *   De Sensi et al. 2024: Daniele De Sensi, Tommaso Bonato, David Saam,
 *     Torsten Hoefler, "Swing: Short-cutting Rings for Higher Bandwidth
 *     Allreduce", NSDI 2024.
 *   Juerss et al. 2025: Anton Juerss, Vamsi Addanki, Stefan Schmid,
 *     "Trivance: Latency-Optimal AllReduce by Shortcutting Multiport
 *     Networks", 2025.
 *   Zhao et al. 2025: Liangyu Zhao, Siddharth Pal, Tapan Chugh, Weiyang
 *     Wang, Jason Fantl, Prithwish Basu, Joud Khoury, Arvind Krishnamurthy,
 *     "Efficient Direct-Connect Topologies for Collective Communications",
 *     2025.
 *   Bruck et al. 1997: Jehoshua Bruck, Ching-Tien Ho, Shlomo Kipnis, Eli
 *     Upfal, Derrick Weathersby, "Efficient Algorithms for All-to-All
 *     Communications in Multiport Message-Passing Systems", IEEE TPDS 1997.
 *   Patarasuk and Yuan 2009: Pitch Patarasuk, Xin Yuan, "Bandwidth Optimal
 *     All-reduce Algorithms for Clusters of Workstations", JPDC 2009.
 *   Hensgen-Finkel-Manber 1988: Debra Hensgen, Raphael Finkel, Udi Manber, "Two
 *     Algorithms for Barrier Synchronization", IJPP 1988.
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
    TOPO_ALG_ROOT_FREE = 1u << 2,   /* not a restriction: a rooted algorithm
                                       whose price is the same for every root
                                       where all ranks are alike (its
                                       schedules count ranks from the root;
                                       check_cost proves it) */
    TOPO_ALG_RANK_TREES = 1u << 3,  /* each rank may combine its result in
                                       its own order (its own tree of
                                       partial sums): only for operations
                                       that are exactly associative, unless
                                       topo_algo_t.same_tree says the ranks'
                                       trees agree for the call */
    TOPO_ALG_DIRECT = 1u << 4       /* needs a direct-connect topology (torus,
                                       mesh or graph) whose size equals the
                                       communicator's, without a placement */
};

/* The operation of a reduction, as far as the choice of algorithm is
 * concerned.  Every rank must get the same bits from a reduction: an
 * operation that rounds (floating-point sums and products, user-defined
 * operations) must be combined in the same tree of partial results on
 * every rank, which the verifier proves (verify.h). */
typedef enum {
    TOPO_OP_ORDERED = 0,     /* not commutative: rank order, and the same
                                tree on every rank */
    TOPO_OP_COMMUTATIVE = 1, /* commutative, but the result depends on the
                                grouping: the same tree on every rank */
    TOPO_OP_EXACT = 2        /* commutative and exactly associative (integer
                                types; MAX, MIN, the logical and bitwise
                                operations, MAXLOC, MINLOC), or no
                                operation: any order gives the same bits */
} topo_opclass_t;

/* "non-commutative", "commutative", "exact" (for verbose output). */
const char *topo_opclass_name(int opclass);

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
/* For a TOPO_ALG_RANK_TREES algorithm: 1 if every rank nevertheless ends
 * with the same combination tree for these arguments (check_algorithms
 * proves the claim with the verifier over its whole matrix). */
typedef int (*topo_same_tree_fn)(const topo_gen_args_t *a);

typedef struct {
    const char *name;    /* as the MCA value spells it */
    topo_prim_t prim;
    unsigned flags;      /* TOPO_ALG_* */
    const char *summary; /* one line for ompi_info and the README */
    const char *source;  /* the papers it follows (see above) */
    topo_gen_fn gen;
    topo_fits_fn fits;   /* may be NULL */
    topo_same_tree_fn same_tree; /* TOPO_ALG_RANK_TREES only; NULL: the
                                    trees may differ for every size */
} topo_algo_t;

/* The whole table. */
const topo_algo_t *topo_catalog(int *n);
/* The algorithm of `prim` called `name`, or NULL. */
const topo_algo_t *topo_catalog_find(topo_prim_t prim, const char *name);
/* Does `algo` apply to a call whose operation is of class `opclass`
 * (topo_opclass_t)?  1 yes; 0 no, with the reason in why. */
int topo_algo_fits(const topo_algo_t *algo, const topo_gen_args_t *a,
                   int opclass, char *why, size_t len);
/* Does every rank combine each block of `algo`'s result in the same tree
 * for these arguments (always, unless TOPO_ALG_RANK_TREES)? */
int topo_algo_same_tree(const topo_algo_t *algo, const topo_gen_args_t *a);
/* Generate `algo`'s schedule for a->rank and finish it. */
int topo_algo_generate(const topo_algo_t *algo, const topo_gen_args_t *a,
                       topo_sched_t *s);

#ifdef __cplusplus
}
#endif
#endif
