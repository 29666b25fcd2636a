/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The cost model: prices a schedule, derived from the schedule itself.
 *
 * Per step of a lane the time is
 *
 *   alpha                       if any rank transfers in the step
 * + hop * (H - 1)               H: the longest route of a message (links)
 * + msg_overhead * S            S: the most messages a rank sends and
 *                               receives
 * + max over ranks r of  beta * max(port_r, L) + gamma * reduce_r
 *                         + copy * copied_r
 *
 * where hop and copy come from topo_cost_net_t, port_r is rank r's busiest
 * port, max(largest message, bytes / P) in either direction with P ports,
 * reduce_r the bytes r reduces, copied_r the bytes the executor copies
 * locally for r (COPY transfers, sends of several ranges packed, receives
 * of several ranges or not in place unpacked), and L the
 * load of the most loaded directed link under the routing of links.h
 * (dimension order, minimal, ties split).  L and H count on grid
 * topologies (torus, mesh) whose size is the communicator's: there a
 * message over several links shares them with the messages routed across
 * the same links (recursive doubling on a torus), while single-hop
 * schedules (ring, bucket) load each link with one message and cost the
 * same as without contention.  On star and full mesh every message has its
 * own links (L never exceeds the port term, H = 1), and on a grid of
 * another size the placement is unknown: both cost as before, port terms
 * only.  A lane costs the sum over its steps, a call its slowest lane's
 * (lanes run on their own, as the executor runs them: a lane waits only for
 * its own messages).  A lane's alpha, hops and largest message are its
 * own; what a rank's lanes share, its ports (port_r: the larger of the
 * lane's largest message and all the rank's bytes of the step over P), its
 * core (S, reduce_r, copied_r), its shared memory and the links (L), counts
 * every lane's traffic of the same step index, as if those steps ran at
 * once.  Costs are computed by streaming the schedules of all ranks, one at
 * a time.
 *
 * Placements (topology.h): a communicator placed on part of a grid, or
 * with several ranks per node, is routed node to node on the machine's
 * links; messages between ranks of one node use the intra-host class of
 * topo_cost_net_t instead of links and ports.  A star's placement (the
 * nodes of a switched cluster) splits its messages into the same two
 * classes: shared memory within a node, ports to the switch between nodes.
 *
 * Not modelled: pipelining across steps; which lanes' steps actually
 * overlap in time (shared terms pair the steps of one index); the link a
 * lane's messages cross (a lane pays the step's busiest link).
 */
#ifndef TOPO_COST_H
#define TOPO_COST_H

#include "catalog.h"

/* The model's default parameters: coll/topo's MCA defaults and topo-plan's.
 * gamma and msg_overhead are near topo-calibrate's readings on a 16-core
 * node (1.2e-10 and 1.0-1.9e-7); with intra_beta below that node's reading
 * (1.1-1.3e-10), the choices match what won there with 16 ranks and on
 * the 2-core development machines with 2 (README "Benchmark"). */
#define TOPO_COST_ALPHA 2e-6
#define TOPO_COST_BETA 1e-10
#define TOPO_COST_GAMMA 1e-10
#define TOPO_COST_COPY 1e-10
#define TOPO_COST_MSG_OVERHEAD 1.5e-7
#define TOPO_COST_INTRA_ALPHA 5e-7
#define TOPO_COST_INTRA_BETA 5e-11
#define TOPO_COST_INTRA_BETA_WRITTEN 1.5e-10

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    double alpha; /* seconds per message (per step) */
    double beta;  /* seconds per byte on one port */
    double gamma; /* seconds per reduced byte */
} topo_cost_params_t;

/* The network's parameters beyond the triple above (a struct of its own so
 * that three-value initializers of topo_cost_params_t stay complete);
 * NULL or all zeros: the defaults. */
typedef struct {
    double hop;   /* seconds per link a message crosses beyond the first
                     (grid topologies); default 0 */
    int no_links; /* 1: price the ports only, without link sharing and hops
                     (the contention-free closed forms); default 0 */
    /* The intra-host link class: messages between ranks placed on one node
     * (topology.h: place) go over shared memory, with or without no_links;
     * 0: the network's alpha / beta (so that callers that set nothing price
     * every message alike).  A rank's shared-memory traffic, beta_intra *
     * max(bytes sent, bytes received) to ranks of its node (the bytes sent
     * of blocks it wrote in the call at intra_beta_written), and its network
     * ports work in parallel (its time is the larger of the two); a step
     * costs alpha if its messages all cross the network, intra_alpha if
     * they all stay on nodes, the larger of the two if both happen. */
    double intra_alpha, intra_beta;
    /* Seconds per byte of such a message whose blocks the sender wrote
     * earlier in the same call (received, reduced or copied into): the
     * receiver then pulls lines the sender's core has modified, which costs
     * more than reading data that was there before the call (on the
     * development machine 1.3-2e-10 against 5-8e-11 s/B, see README).  0:
     * intra_beta. */
    double intra_beta_written;
    /* Seconds per byte a rank copies locally (see above); 0: copies are
     * free, as in the papers' closed forms. */
    double copy;
    /* Seconds of a rank's time per message it sends or receives in a step
     * (posting, matching and completing it; LogP's o, which both ends
     * pay), beyond the step's latency: a step where a rank sends and
     * receives S messages together costs S of them.  0: none, as in the
     * papers. */
    double msg_overhead;
    /* Price at most this many ranks' schedules (0 or less: every rank) where
     * every rank's would hold more than 2^21 steps, transfers, ranges and
     * blocks together: such an algorithm is priced on topo_cost_sample_ranks'
     * ranks, so that the first call of a primitive on thousands of ranks
     * does not generate thousands of schedules of thousands of transfers
     * (ring, pairwise, Bruck, the bandwidth-optimal Swing and Trivance:
     * O(p^2) in all).  Those are the schedules that repeat from rank to
     * rank; the step's price is the maximum over the ranks priced.  When
     * eight of them (the sample's first four, its last, three between)
     * price to the same terms step by step (the same 64-bit hash of
     * them; a torus's ranks running translates of one schedule), the
     * sample is priced on those eight.  Where links are modelled (a grid, a graph), the most loaded
     * link of a step is the largest of: the most a priced rank puts on one
     * of its node's links; the average link of the busiest class
     * (dimension and direction), the priced ranks' traffic scaled to the
     * communicator (exact where every rank sends the same coordinate
     * offsets on a torus of one rank per node, a translate); and, where
     * the priced ranks' sends of the step follow another pattern (the same
     * offsets peer - rank on every rank, or on every rank of a class rank
     * mod 2, 3 or 4, or the same XOR masks on a power of two) and cross
     * more than one link, the routed maximum of every rank's sends, the
     * pattern carried to every rank and routed message by message, so
     * that routes that pile up count (shortest paths on a graph, recursive
     * doubling's alternating directions on a torus); otherwise (or beyond 2^20
     * sampled sends, or 8 link additions per step, transfer, range and
     * block of the priced schedules, at least 2^20) the priced ranks' own
     * sends routed.  Each is at most the routed maximum with every rank priced
     * where no pattern is found, and the pattern's is that maximum where
     * every rank follows it. */
    int price_ranks;
} topo_cost_net_t;

/* Tests: price every algorithm as one over the threshold above (sampled,
 * links estimated), every rank where price_ranks >= the size; 0: as the
 * threshold says.  Returns the previous setting.  Not thread-safe. */
int topo_cost_force_sampling(int on);

/* Tests: 0 prices every step of every rank's schedule on its own, as if
 * no step repeated (1, the default: a segment of topo_sched_repeat that
 * repeats one step with its peers where they are is priced once per run
 * of steps that every rank priced so far prices alike; the same prices,
 * bit for bit).  Returns the previous setting.  Not thread-safe. */
int topo_cost_repeat_runs(int on);

/* The ranks a communicator of `size` is priced on with price_ranks `k`
 * (k < size; otherwise every rank): with q = k/5, up to q ranks next to
 * the powers of two from both ends (inner nodes of binary trees, a fold's
 * partners), the q first and q last ranks, the q from `root` on (rooted
 * schedules: the root and its nearest relatives), and the rest spread
 * evenly (every kind of rank of a schedule that repeats across the
 * communicator); sorted, each once.  `out` has room for max(k, size)
 * when k >= size, else for k; returns how many. */
int topo_cost_sample_ranks(int size, int root, int k, int *out);

/* One step of a lane of a priced schedule.  Byte terms are in units of the
 * payload M (the step's time is lat + per_byte * M). */
typedef struct {
    double lat;      /* alpha (if any rank transfers) + hop * (max_hops - 1)
                        + msg_overhead * the most messages a rank sends and
                        receives in the step, all its lanes together */
    double per_byte; /* seconds per byte of M: the bandwidth and reduction term */
    double port;     /* the busiest port of any rank, units of M */
    double msg;      /* the largest single message of any rank, units of M
                        (decision.h: the protocol switch) */
    double link;     /* the most loaded directed link, units of M (0 where
                        links are not modelled: see above) */
    int max_hops;    /* the longest route of a message (0: no message) */
    int msgs;        /* the most messages any rank sends and receives in
                        the step of the lane */
    int active;      /* some rank transfers or copies in the step */
    int intra_only;  /* it transfers, and only between ranks of one node */
    int lane;        /* the lane (topo_cost_steps) */
    int reps;        /* the steps this entry stands for: 1 (topo_cost_steps),
                        or consecutive equal steps of the lane
                        (topo_cost_step_runs); 0 reads as 1 */
} topo_cost_step_t;

/* The priced steps of `algo`, lane by lane: *steps (malloc'ed, the caller
 * frees; NULL when *depth is 0) gets *depth entries, the schedule's steps
 * (its longest lane's) for lane 0, then as many for lane 1, and so on
 * (entry lane * steps + step; a lane's steps past its end are idle and
 * cost 0).  A lane's step holds the lane's own terms (its messages, hops,
 * largest message, whether it transfers) and the terms it shares with the
 * rank's other lanes as if their steps of the same index ran at once:
 * the rank's bytes over its ports, its reduction and copies, its shared
 * memory, and the busiest link of all lanes' messages of the step (paid
 * by a lane that crosses the network in it).  A single lane's entries are
 * the schedule's steps.  Returns TOPO_OK or an error. */
int topo_cost_steps(const topo_algo_t *algo, const topo_gen_args_t *a, const topo_cost_params_t *p,
                    const topo_cost_net_t *net, topo_cost_step_t **steps, int *depth);

/* A lower bound of topo_cost_steps' steps from rank 0's schedule alone
 * (rank 0 is priced in every sample): per step its latency terms, its
 * port, reduction and copy time, and as the link load the most it puts on
 * one of its node's links (where links are modelled; the routed load of
 * that link, and the sampled estimate, are at least that).  Each of these
 * is at most the value that topo_cost_steps takes the maximum of (over
 * the ranks it prices, rank 0 among them), and a step in which rank 0
 * neither transfers nor copies costs 0 here, so step for step lat,
 * per_byte and msg are at most topo_cost_steps' (bit for bit: the same
 * arithmetic on smaller terms), and *depth is at most its depth.  One schedule instead of
 * up to price_ranks of them: the decision skips the full pricing of a
 * candidate whose bound is above a priced one at every payload
 * (decision.h: topo_price_candidates).  *work (NULL: not wanted) gets the
 * steps, transfers, ranges and blocks topo_cost_steps would walk: rank 0's
 * times the ranks it prices.  Returns TOPO_OK or an error. */
int topo_cost_bound_steps(const topo_algo_t *algo, const topo_gen_args_t *a,
                          const topo_cost_params_t *p, const topo_cost_net_t *net,
                          topo_cost_step_t **steps, int *depth, size_t *work);

/* topo_cost_steps' (bound 0) or topo_cost_bound_steps' (bound 1) steps
 * with consecutive equal steps of a lane as one entry, its reps the steps
 * it stands for (a ring's or a pipeline's repeated steps: the memory of
 * their entries, not of their steps); *n gets the entries.  The same
 * steps, field for field.  Returns TOPO_OK or an error. */
int topo_cost_step_runs(const topo_algo_t *algo, const topo_gen_args_t *a,
                        const topo_cost_params_t *p, const topo_cost_net_t *net, int bound,
                        topo_cost_step_t **steps, int *n, size_t *work);

/* The price of topo_cost_steps' entries (`n` of them) as an affine
 * function of M: each lane's latency and per-byte terms summed over its
 * steps, and *lat and *per_byte the largest of each over the lanes.  The
 * call takes its slowest lane's time, max over lanes of lat_l + per_byte_l
 * * M, which is not affine: this is the least affine function at or above
 * it for every M >= 0 (its value at M = 0 and its slope as M grows), exact
 * where one lane has the largest of both terms (a single lane: the sum of
 * its steps; lanes that mirror each other), above it otherwise.  An entry
 * of topo_cost_step_runs counts as its reps steps. */
void topo_cost_total(const topo_cost_step_t *steps, int n, double *lat, double *per_byte);

/* topo_cost_affine with the network parameters (NULL: defaults). */
int topo_cost_affine_net(const topo_algo_t *algo, const topo_gen_args_t *a,
                         const topo_cost_params_t *p, const topo_cost_net_t *net, double *lat,
                         double *per_byte);

/* The memory the link loads may take, in doubles (default 1 << 22, i.e.
 * 32 MiB): schedules deeper than budget / links are priced in windows of
 * steps, each window generating the schedules of all ranks again.  Returns
 * the previous value; 0 leaves it unchanged.  For tests and tools, not
 * thread-safe. */
size_t topo_cost_link_budget(size_t doubles);

/* The cost of `algo` as an affine function of the payload M in bytes
 * (M as the primitive defines it: the vector for allreduce): predicted
 * seconds = *lat + *per_byte * M.  Blocks are priced at their exact share of
 * M, so the function is affine.  The network parameters are the defaults
 * (topo_cost_affine_net sets them).  Returns TOPO_OK or an error. */
int topo_cost_affine(const topo_algo_t *algo, const topo_gen_args_t *a, const topo_cost_params_t *p,
                     double *lat, double *per_byte);

/* Predicted seconds for `algo` on a->size ranks moving `count` elements of
 * elem_size bytes.  Returns a negative value if a schedule fails. */
double topo_cost_algo(const topo_algo_t *algo, const topo_gen_args_t *a, size_t count,
                      size_t elem_size, const topo_cost_params_t *p);

#ifdef __cplusplus
}
#endif
#endif
