/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Pipelined chain broadcast and reduce (Lu 2026a sec. 3.1, 4.1, App. C):
 * the vector is cut into TOPO_CHAIN_SEGMENTS blocks that stream along a
 * chain, one block per link per step: p + S - 2 steps of M / S each, the
 * master formula (L + P - 1)(alpha + M / (P BW)) with L = p - 1, P = S.
 *
 * Schedules do not depend on the count, so S cannot follow the paper's
 * P* = sqrt((p - 2) M / (alpha BW)); it is fixed at 8 (the executor splits
 * large messages further, per message), which puts the bandwidth term at
 * (p + 6) / 8 M / BW: near the M / BW floor for small p, while the decision
 * prices the extra p + 6 alphas.  Counts below S leave blocks empty, which
 * both ends skip.
 *
 * Broadcast: the paper's ring chain from the root, rank (root + i) mod p
 * forwarding to (root + i + 1) mod p; block j leaves position i at step
 * j + i.
 *
 * Reduce: the paper's chain R_{p-1} -> ... -> R_0 accumulates toward the
 * root from above, each rank putting its own contribution first (the
 * incoming data covers higher ranks).  For any root the ranks below it form
 * a second chain R_0 -> ... -> R_root that puts the incoming data (lower
 * ranks) first, so the root ends with the contributions in rank order:
 * order-preserving, for non-commutative operations.  Both chains run at
 * once: max(root, p - 1 - root) + S - 1 steps, the root receiving from both
 * sides while the chains overlap.
 */
#include "algo.h"

#define TOPO_CHAIN_SEGMENTS 8

/* The idle steps of a rank active in steps [lo, hi) of nsteps: those
 * before lo (after: 0), or those from hi on (after: 1). */
static void span(topo_sched_t *s, int nsteps, int lo, int hi, int after)
{
    lo = lo < nsteps ? lo : nsteps;
    hi = hi < lo ? lo : (hi < nsteps ? hi : nsteps);
    topo_sched_idle(s, after ? nsteps - hi : lo);
}

int topo_gen_bcast_pipelined_chain(topo_sched_t *s, const topo_gen_args_t *a)
{
    const int p = a->size, root = a->root, S = TOPO_CHAIN_SEGMENTS;
    const int v = (a->rank - root + p) % p;
    topo_sched_init(s, p, a->rank, S);
    const int nsteps = p > 1 ? p - 1 + S - 1 : 0;
    /* idle before the first block arrives and after the last leaves
     * (topo_sched_idle: stored once) */
    const int lo = v > 0 ? v - 1 : 0, hi = v < p - 1 ? v + S : v - 1 + S;
    span(s, nsteps, lo, hi, 0);
    for (int t = lo; t < nsteps && t < hi; t++) {
        topo_sched_step(s);
        int in = t - (v - 1), out = t - v;
        if (v > 0 && in >= 0 && in < S) {
            topo_sched_recv(s, (a->rank - 1 + p) % p, TOPO_XFER_RECV_COPY, in, 1);
        }
        if (v < p - 1 && out >= 0 && out < S) {
            topo_sched_send(s, (a->rank + 1) % p, out, 1);
        }
    }
    span(s, nsteps, lo, hi, 1);
    return topo_sched_finish(s);
}

int topo_gen_reduce_pipelined_chain(topo_sched_t *s, const topo_gen_args_t *a)
{
    const int p = a->size, r = a->rank, root = a->root, S = TOPO_CHAIN_SEGMENTS;
    topo_sched_init(s, p, r, S);
    const int far = root > p - 1 - root ? root : p - 1 - root;
    const int nsteps = p > 1 ? far + S - 1 : 0;
    /* Distance from the start of this rank's chain: block j leaves a rank
     * at distance e at step j + e and reaches the next at that step. */
    const int e = r < root ? r : p - 1 - r;
    /* the steps this rank is active in: [lo, hi) */
    int lo = nsteps, hi = 0;
    const int start[3] = {r <= root && r > 0 ? r - 1 : -1,
                          r >= root && r < p - 1 ? p - 1 - (r + 1) : -1, r != root ? e : -1};
    for (int i = 0; i < 3; i++) {
        if (start[i] >= 0) {
            lo = start[i] < lo ? start[i] : lo;
            hi = start[i] + S > hi ? start[i] + S : hi;
        }
    }
    span(s, nsteps, lo, hi, 0);
    for (int t = lo; t < nsteps && t < hi; t++) {
        topo_sched_step(s);
        if (r <= root && r > 0) { /* from below: lower ranks go first */
            int j = t - ((r - 1));
            if (j >= 0 && j < S) {
                topo_sched_recv(s, r - 1, TOPO_XFER_RECV_REDUCE, j, 1);
            }
        }
        if (r >= root && r < p - 1) { /* from above: higher ranks go last */
            int j = t - (p - 1 - (r + 1));
            if (j >= 0 && j < S) {
                topo_sched_recv(s, r + 1, TOPO_XFER_RECV_REDUCE_POST, j, 1);
            }
        }
        if (r != root) {
            int j = t - e;
            if (j >= 0 && j < S) {
                topo_sched_send(s, r < root ? r + 1 : r - 1, j, 1);
            }
        }
    }
    span(s, nsteps, lo, hi, 1);
    return topo_sched_finish(s);
}
