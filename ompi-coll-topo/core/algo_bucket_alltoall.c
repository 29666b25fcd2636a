/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Dimension-decomposed alltoall on a torus or mesh (Lu 2026b sec. 3.6, 4.2,
 * 5.1; per-dimension bidirectional ring relay): one phase per dimension of
 * size > 1; in phase k every chunk moves along dimension k to its
 * destination's coordinate, relayed hop by hop around the ring (the shorter
 * way: floor(d/2) one way, the rest the other) or along the open line of a
 * mesh.  After the last phase every chunk is at its destination.  Steps: sum
 * floor(d_i/2) on a torus, sum (d_i - 1) on a mesh; every message crosses one
 * link.
 *
 * Chunks and slots.  Between phases a rank holds p chunks; chunk (src, dst)
 * held before phase k has its coordinates z = (src in the dimensions
 * already done, dst in the others), and sits in slot rank_of(z) of that
 * state's region: before the first phase z = dst (the send region), after
 * the last z = src (the receive region, verify.h), in between in one of
 * two alternating scratch regions.  Phase k moves the bundle of chunks with
 * z_k = t (p/d of them, slots in increasing order, the same order at both
 * ends) from the rank at coordinate o to the one at t; there it lands in
 * the next state's slots with z_k = o.  The own bundle (t = o) is copied
 * locally.
 *
 * Relay.  At step s of a phase a rank sends, in each direction, every
 * bundle that left the rank s - 1 hops behind it and has at least s hops
 * to go (at step 1: its own, from the state region), and receives the
 * bundles that left the rank s hops behind: the one with s hops to go has
 * arrived, the others wait in a relay slot (by direction and distance)
 * for the next step.  A relay slot is sent and refilled in the same step,
 * which the schedule model allows (sends read the blocks as they were at
 * the start of the step).  Blocks: send [0, p), receive [p, 2p), two state
 * regions, then the relay slots; uniform.
 */
#include "algo.h"

#include <string.h>

typedef struct {
    topo_sched_t *s;
    const topo_topology_t *t;
    int p;
    int c[TOPO_MAX_DIMS];
    int relay; /* first relay block */
} a2a_t;

/* Slots (row-major ranks) with z_k fixed form runs of `inner` (the product
 * of the dimensions after k) consecutive slots, one per value of the
 * dimensions before k, `outer` of them. */
static void slot_runs(const a2a_t *a, int k, int *outer, int *inner)
{
    int in = 1;
    for (int i = k + 1; i < a->t->ndims; i++) {
        in *= a->t->dims[i];
    }
    *inner = in;
    *outer = a->p / (in * a->t->dims[k]);
}

/* Append, in slot order, the slots z of region `base` with z_k = v: one
 * range per run (adjacent runs merge, as single slots would). */
static void bundle_ranges(const a2a_t *a, int base, int k, int v)
{
    int outer, inner;
    slot_runs(a, k, &outer, &inner);
    for (int o = 0; o < outer; o++) {
        topo_sched_range(a->s, base + (o * a->t->dims[k] + v) * inner, inner);
    }
}

/* Hops a bundle from coordinate o may still travel in direction dir along
 * dimension k (0 outside a mesh line). */
static int reach(const topo_topology_t *t, int k, int o, int dir)
{
    const int d = t->dims[k];
    if (t->periodic[k]) {
        return dir > 0 ? d / 2 : d - 1 - d / 2;
    }
    if (o < 0 || o >= d) {
        return 0;
    }
    return dir > 0 ? d - 1 - o : o;
}

/* The rank `delta` along dimension k (wrapping on a torus, -1 off a mesh). */
static int along(const a2a_t *a, int k, int delta)
{
    int e[TOPO_MAX_DIMS];
    const int d = a->t->dims[k];
    memcpy(e, a->c, sizeof(e));
    e[k] += delta;
    if (a->t->periodic[k]) {
        e[k] = ((e[k] % d) + d) % d;
    } else if (e[k] < 0 || e[k] >= d) {
        return -1;
    }
    return topo_topology_rank(a->t, e);
}

static int wrap(const topo_topology_t *t, int k, int v)
{
    const int d = t->dims[k];
    return t->periodic[k] ? ((v % d) + d) % d : v;
}

/* Relay slot of (direction, distance h) in dimension k. */
static int relay_slot(const a2a_t *a, int k, int dir, int h)
{
    const int d = a->t->dims[k], per = a->p / d;
    return a->relay + ((dir > 0 ? 0 : d) + h - 1) * per;
}

/* Append the relay slots of (dir, h) for h = h0 .. h1: p/d consecutive
 * blocks each, those of h + 1 right after those of h, so one range (as
 * the explicit emission merges them); nothing where h1 < h0. */
static void relay_ranges(const a2a_t *a, int k, int dir, int h0, int h1)
{
    if (h1 >= h0) {
        topo_sched_range(a->s, relay_slot(a, k, dir, h0), (h1 - h0 + 1) * (a->p / a->t->dims[k]));
    }
}

static void phase(const a2a_t *a, int k, int from, int to)
{
    const topo_topology_t *t = a->t;
    const int d = t->dims[k], c = a->c[k];
    const int nsteps = t->periodic[k] ? d / 2 : d - 1;
    /* On a ring, steps 2 .. h - 1 (h the shorter way's reach, so every
     * transfer keeps a relay range) are step 2 with the arriving bundles
     * one coordinate on (from the left: one back) and every relay range
     * starting one relay slot later, one slot shorter: step 2 repeated
     * (topo_sched_repeat), where a bundle is one range (the first
     * dimension's: the builder stores no strided run once). */
    int outer, inner;
    slot_runs(a, k, &outer, &inner);
    const int h = t->periodic[k] && 1 == outer ? d - 1 - d / 2 : 0, reps = h - 3;
    const int per = a->p / d;
    const topo_shift_t relay = {0, 0, 0, 0, 0, per, -per};
    const topo_shift_t sh[4] = {relay,
                                {0, -inner, to, d * inner, outer, per, -per},
                                relay,
                                {0, inner, to, d * inner, outer, per, -per}};
    for (int s = 1; s <= nsteps; s++) {
        if (3 == s && reps > 0) {
            topo_sched_repeat(a->s, 1, reps, sh, 4);
            s += reps - 1;
            continue;
        }
        topo_sched_step(a->s);
        if (1 == s) { /* the own bundle stays, from one state to the next */
            int outer, inner;
            slot_runs(a, k, &outer, &inner);
            for (int o = 0; o < outer; o++) {
                for (int j = 0; j < inner; j++) {
                    const int i = (o * d + c) * inner + j;
                    topo_sched_copy(a->s, from + i, to + i, 1);
                }
            }
        }
        for (int dir = 1; dir >= -1; dir -= 2) {
            /* send: bundles from origin o = c - dir (s - 1), h = s .. reach */
            const int o = wrap(t, k, c - dir * (s - 1)), right = along(a, k, dir);
            const int hs = reach(t, k, o, dir);
            if (right >= 0 && hs >= s) {
                topo_sched_send(a->s, right, 0, 0);
                if (1 == s && 1 == outer) { /* one range per bundle, on the ring of d */
                    topo_sched_ranges_mod(a->s, from, d * inner, wrap(t, k, o + dir) * inner, inner,
                                          dir * inner, hs);
                } else if (1 == s) {
                    for (int h = s; h <= hs; h++) {
                        bundle_ranges(a, from, k, wrap(t, k, o + dir * h));
                    }
                } else {
                    relay_ranges(a, k, dir, s, hs);
                }
            }
            /* receive: bundles from origin o2 = c - dir s */
            const int o2 = wrap(t, k, c - dir * s), left = along(a, k, -dir);
            const int hr = reach(t, k, o2, dir);
            if (left >= 0 && hr >= s) {
                topo_sched_recv(a->s, left, TOPO_XFER_RECV_COPY, 0, 0);
                bundle_ranges(a, to, k, o2); /* h = s: arrived here */
                relay_ranges(a, k, dir, s + 1, hr);
            }
        }
    }
}

int topo_gen_alltoall_bucket(topo_sched_t *s, const topo_gen_args_t *a)
{
    const topo_topology_t *t = a->topo;
    const int grid = t->kind == TOPO_NET_TORUS || t->kind == TOPO_NET_MESH;
    const int p = a->size;
    if (!grid || !topo_topology_is_grid_of(t, p)) {
        topo_sched_init(s, p, a->rank, 1);
        return TOPO_ENOTSUP; /* not a candidate (TOPO_ALG_GRID) */
    }
    int act[TOPO_MAX_DIMS], m = 0, relay = 0;
    for (int k = 0; k < t->ndims; k++) {
        if (t->dims[k] > 1) {
            act[m++] = k;
            const int need = 2 * t->dims[k] * (p / t->dims[k]);
            relay = need > relay ? need : relay;
        }
    }
    a2a_t x;
    memset(&x, 0, sizeof(x));
    x.s = s;
    x.t = t;
    x.p = p;
    x.relay = 4 * p;
    topo_topology_coords(t, a->rank, x.c);
    topo_sched_init(s, p, a->rank, 4 * p + relay);
    s->runs = 1; /* equal ranges at equal distances: strided runs */
    s->uniform = 1;
    if (0 == m) { /* one rank */
        topo_sched_step(s);
        topo_sched_copy(s, 0, p, p);
        return topo_sched_finish(s);
    }
    for (int q = 0; q < m; q++) {
        const int from = 0 == q ? 0 : (q % 2 ? 2 * p : 3 * p);
        const int to = q == m - 1 ? p : ((q + 1) % 2 ? 2 * p : 3 * p);
        phase(&x, act[q], from, to);
    }
    return topo_sched_finish(s);
}
