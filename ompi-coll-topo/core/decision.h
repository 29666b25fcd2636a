/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The decision: which candidate is cheapest for which payload, as a table
 * of payload ranges computed once and looked up in O(log k).
 *
 * A candidate's price is the cost model's (cost.h) affine function of the
 * payload M, plus the point-to-point protocol switch: a message larger than
 * the eager limit goes by rendezvous, which costs about one more round trip
 * before its data moves.  A step whose largest message is m * M bytes
 * (m from topo_cost_step_t.msg) therefore pays `rndv` seconds more once
 * m * M exceeds the eager limit.  The price is piecewise affine in M, with
 * one breakpoint per step (fewer when steps share their largest message):
 *
 *   t(M) = lat + per_byte * M + rndv * #{steps s : M > thr_s}
 *
 * (a step whose messages all stay on nodes pays rndv_intra instead).
 *
 * The decision table is the lower envelope of the candidates' prices over
 * integer payloads: ranges [lo_k, lo_{k+1}) with the candidate that is
 * cheapest in each; ties (prices within a relative 1e-12) go to the
 * candidate that handles fewer messages (each costs the sender and the
 * receiver their software overhead, which the alpha-beta model does not
 * see), then to the lower candidate index.  Every rank builds it from the
 * same inputs with the same arithmetic, so every rank reads the same answer
 * without communicating.
 */
#ifndef TOPO_DECISION_H
#define TOPO_DECISION_H

#include "cost.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The protocol switch of point-to-point messages.  eager 0 or rndv 0: no
 * switch (the price is affine). */
typedef struct {
    double eager; /* bytes: larger messages go by rendezvous */
    double rndv;  /* seconds a step pays when its largest message does */
    double rndv_intra; /* the same for a step whose messages all stay on
                          nodes (topo_cost_step_t.intra_only: the round
                          trip is a shared-memory one); 0: rndv */
} topo_proto_t;

/* One candidate's price. */
typedef struct {
    double lat, per_byte; /* the affine part */
    double rndv;          /* seconds per step past its threshold */
    int nthr;
    size_t *thr;          /* ascending: a step pays rndv for payloads >= thr[k] */
    double *paid;         /* NULL, or nthr + 1 entries: paid[k] is what the
                             steps of thr[0 .. k-1] pay together, each its
                             own class's rendezvous (instead of rndv * k) */
    int msgs;             /* messages of the busiest rank of each step,
                             summed: among equal prices the fewer wins */
    int msg_steps;        /* steps in which messages move (not only local
                             copies) */
    int depth;            /* steps priced */
} topo_price_t;

/* Price `algo` for the call `a` (any rank's view: the model covers all
 * ranks).  proto may be NULL (no protocol switch).  Returns TOPO_OK or an
 * error; free with topo_price_free. */
int topo_price_build(const topo_algo_t *algo, const topo_gen_args_t *a,
                     const topo_cost_params_t *p, const topo_cost_net_t *net,
                     const topo_proto_t *proto, topo_price_t *out);
void topo_price_free(topo_price_t *pr);
/* Predicted seconds for a payload of `bytes`. */
double topo_price_at(const topo_price_t *pr, size_t bytes);

/* A lower bound of topo_price_build's price from rank 0's schedule alone
 * (cost.h: topo_cost_bound_steps), the rendezvous of a step whose rank 0
 * messages stay on its node at the cheaper of rndv and rndv_intra: at
 * most the price at every payload, bit for bit.  *work (NULL: not wanted): what the full pricing would walk.
 * Returns TOPO_OK or an error; free with topo_price_free. */
int topo_price_bound(const topo_algo_t *algo, const topo_gen_args_t *a,
                     const topo_cost_params_t *p, const topo_cost_net_t *net,
                     const topo_proto_t *proto, topo_price_t *out, size_t *work);

/* rc of a candidate that topo_price_candidates did not price (above). */
enum { TOPO_PRUNED = 1 };

/* Price the candidates algos[0..n) for the call `a`, as topo_price_build
 * each, except (prune != 0) those that cannot be in the decision table: in
 * the order of the work their pricing takes (the cheapest first; ties: the
 * lower index), a candidate whose bound (topo_price_bound) is above the
 * lower envelope of those priced so far at every payload from 0 to
 * SIZE_MAX, by more than the decision's ties (2e-12 relative where the
 * envelope's candidate comes later in algos[], (n + 2) e-12 where it comes
 * before), is not priced (rc[i] = TOPO_PRUNED): its price, at least its
 * bound, is never the table's choice, so the table over the priced
 * candidates (NULL for the others) is the table over all of them.  Both are piecewise affine,
 * compared at the ends of every piece.  rc[i]: TOPO_OK (prices[i] holds
 * the price), TOPO_PRUNED, or the error of topo_price_build (prices[i]
 * zeroed).  bounds (NULL: not wanted) gets each candidate's bound where
 * prune computed one (zeroed otherwise).  A function of its inputs alone:
 * every rank prunes alike.  Returns TOPO_OK or TOPO_ENOMEM; the caller
 * frees prices[] and bounds[] with topo_price_free. */
int topo_price_candidates(const topo_algo_t *const *algos, int n, const topo_gen_args_t *a,
                          const topo_cost_params_t *p, const topo_cost_net_t *net,
                          const topo_proto_t *proto, int prune, topo_price_t *prices, int *rc,
                          topo_price_t *bounds);

/* The payloads the first stage of the component's pricing covers (on a
 * communicator of more ranks than coll_topo_price_ranks: see
 * coll_topo_route.c): latency-bound calls, where the candidates with
 * O(p) transfers per rank that cost most of the pricing do not win. */
#define TOPO_PRICE_FIRST_STAGE ((size_t)4096)

/* topo_price_candidates for the payloads from 0 to `upto` only: a
 * candidate whose bound is above the envelope at every payload up to upto
 * is not priced (TOPO_PRUNED), so that the table over the priced
 * candidates is the table over all of them on [0, upto] (above, it may
 * pick a candidate that a pruned one beats).  On thousands of ranks the
 * candidates that win only large payloads (bandwidth-optimal ones, with
 * O(p) transfers per rank) cost most of the pricing: a first call of a few
 * bytes need not price them.  upto SIZE_MAX: topo_price_candidates. */
int topo_price_candidates_upto(const topo_algo_t *const *algos, int n, const topo_gen_args_t *a,
                               const topo_cost_params_t *p, const topo_cost_net_t *net,
                               const topo_proto_t *proto, int prune, size_t upto,
                               topo_price_t *prices, int *rc, topo_price_t *bounds);

/* The test topo_price_candidates_upto prunes by: is lb, the bound of
 * candidate c (an index into prices[0..n), whose entry is NULL), above the
 * lower envelope of the prices (NULL entries: not priced) at every payload
 * from 0 to upto, by more than the decision's ties?  *out 1 yes, 0 no.
 * The shared pricing (share.h) prunes with it against the candidates the
 * ranks priced in earlier rounds.  Returns TOPO_OK or TOPO_ENOMEM. */
int topo_price_dominated(const topo_price_t *lb, int c, const topo_price_t *const *prices, int n,
                         size_t upto, int *out);

/* Tests: multiply every bound by `scale` where topo_price_candidates
 * compares it (1: as computed; a scale above 1 makes the bound wrong, to
 * prove that the tests catch a bound that prunes a winner).  Returns the
 * previous value; 0 or less leaves it unchanged.  Not thread-safe. */
double topo_price_bound_scale(double scale);

/* The table: range k covers payloads [lo[k], lo[k+1]) (the last one up to
 * SIZE_MAX) and picks candidate cand[k] (an index into the prices given to
 * topo_decision_build; -1: no candidate).  lo[0] = 0. */
typedef struct {
    int n;
    size_t *lo;
    int *cand;
} topo_decision_t;

/* The lower envelope of prices[0..n) (NULL entries: not candidates). */
int topo_decision_build(const topo_price_t *const *prices, int n, topo_decision_t *d);
void topo_decision_free(topo_decision_t *d);
/* The candidate for `bytes`, or -1.  O(log k). */
int topo_decision_lookup(const topo_decision_t *d, size_t bytes);
/* The range holding `bytes`: its index. */
int topo_decision_range(const topo_decision_t *d, size_t bytes);
/* The last payload of range k that a table exact up to `upto` covers:
 * the range's last, or upto if that is smaller (SIZE_MAX: the last range
 * of a table of every payload, unbounded). */
size_t topo_decision_range_last(const topo_decision_t *d, int k, size_t upto);

/* The candidates of one decision and their table: every catalog
 * algorithm of the call's primitive (catalog order), whether it fits the
 * call (topo_algo_fits; why not), its price, or why it has none (rc), and
 * the table of payload ranges over those priced.  What the component
 * decides for `auto` and what topo-plan prints, built by one function. */
typedef struct {
    const topo_algo_t *algo;
    int fits;            /* topo_algo_fits */
    int rc;              /* fits: TOPO_OK (price holds it), TOPO_PRUNED, or the
                            cost model's error */
    topo_price_t price;  /* rc TOPO_OK */
    topo_price_t bound;  /* where pruning computed one and bounds were wanted */
    char why[256];       /* !fits: why not; an error: "the cost model could
                            not price it (error N)" */
} topo_candidate_t;

typedef struct {
    int n;                   /* the primitive's catalog rows */
    topo_candidate_t *cand;  /* [n] */
    topo_decision_t table;   /* cand: an index into cand[] */
} topo_candidates_t;

/* Filter what fits the call `a` (operation class `opclass`), price it
 * (topo_price_candidates_upto: prune, upto; bounds kept when want_bounds)
 * and build the table.  Returns TOPO_OK or an error (then nothing is
 * left to free); free with topo_candidates_free. */
int topo_candidates_price(const topo_gen_args_t *a, int opclass, const topo_cost_params_t *p,
                          const topo_cost_net_t *net, const topo_proto_t *proto, int prune,
                          size_t upto, int want_bounds, topo_candidates_t *out);
void topo_candidates_free(topo_candidates_t *c);

/* The root whose decision table a rooted call from `root` of a
 * communicator of `size` uses, where every root may cost differently and
 * at most k tables are priced (coll_topo_price_roots): k roots spread
 * evenly from 0 to size - 1 (i (size - 1) / (k - 1) rounded, i < k), and
 * `root` takes the one whose i is root (k - 1) / (size - 1) rounded: the
 * nearest to within one rank.  Every root its own where k >= size or
 * k <= 0; 0 where k is 1.  A function of its arguments alone, so that
 * every rank maps a root alike whatever calls came before. */
int topo_price_root(int root, int size, int k);

#ifdef __cplusplus
}
#endif
#endif
