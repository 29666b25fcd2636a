/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Trivance allreduce (Juerss et al. 2025 sec. 4, 5), latency-optimal
 * (trivance_lat) and bandwidth-optimal (trivance_bw), and the engine Bruck
 * (algo_bruck_allreduce.c) shares: both are "shift" algorithms that differ
 * only in the peers of a step (Trivance r -/+ d_k, Bruck r + 3^k and r +
 * 2*3^k).
 *
 * Geometry: a torus or mesh whose size is the communicator's gives the
 * dimensions (row-major coordinates; a mesh just routes the wraparound
 * messages the long way, which the cost model prices); anything else is
 * one ring of `size` ranks.  Multiport (sec. 5): one lane per
 * dimension of size > 1, each owning 1/D of the vector; lane c takes its
 * step j in dimension (c + j) mod D, or the next dimension that still has
 * steps left, so on equal tori the lanes never share a dimension in a step.
 *
 * trivance_bw: reduce-scatter then allgather, one block per rank in each
 * lane.  In a dimension of n ranks with s = ceil(log3 n) steps, the distances
 * are 1, 3, ..., 3^(s-2) and d_f = ceil((n - 3^(s-1)) / 2), a
 * correction of sec. 4.4's printed formula (the smallest distance for which
 * the offsets sum_k e_k d_k, e_k in {-1,0,1}, cover Z_n; 3^(s-1) when
 * n = 3^s).  The paper takes d_f last; here the distances run in ascending
 * order, d_f before an equal power (the same for n = 3^s).  Coverage does
 * not depend on the order, but ascending keeps the large early sets on the
 * short distances: on rings of 2..130 the link-load sum Theta is never
 * higher and lower for 69 sizes (n = 28: 2.0 instead of 4.0, as at 27).
 * The sets come from the allgather's broadcast tree, built
 * backwards from the last step: H_s = {0}; at step k every offset of
 * H_(k+1) + {+d_k, -d_k} not yet in H_(k+1) joins H_k, reached through ONE
 * shift.  An offset reachable twice is taken once, at its latest step
 * (keep-latest), here by construction.  The allgather
 * sends block o from the rank at offset f - shift to the one at offset f =
 * rank - o; the reduce-scatter is its exact time reverse, so every
 * contribution is counted once for every n, and each rank sends n - 1
 * blocks per phase (bandwidth-optimal).  For n = 3^s the sets are the
 * balanced-ternary subtrees of sec. 4.3 (Algorithm 1 / Pi with bounds
 * k+1..s-1) and each message holds 3^(s-1-k) blocks.  The two messages a
 * rank receives in a step carry the same blocks (the joint reduction): two
 * receive-reduces into one block.  An offset reachable through both shifts
 * goes to the shift with fewer blocks so far in that step, else to the one
 * whose sender is nearer the block's owner: the ports stay balanced
 * (trivance_bw: ceil((n-1)/2) blocks per port and phase; Bruck within one
 * block of (n-1)/2).  Several dimensions compose as a
 * Cartesian product: a step in dimension k moves (the 1-D set of k) x (what
 * the rank still holds in the other dimensions).
 *
 * trivance_lat: every step exchanges the lane's whole part with both peers
 * at distance 3^k (sec. 4.2).  Whole-part windows tile the ring exactly only
 * when n = 3^s, or n = 2*3^(s-1) where the last step's two peers coincide
 * and one exchange completes the ring; for any other n they overlap and
 * would count contributions twice.  Such a dimension is
 * folded (documented extension): its n ranks form P = 3^(s-1) groups of
 * 1-3 consecutive ranks; one fold-in step sends the other members' parts
 * to the group leader (the middle rank, one per port), the leaders run
 * s - 1 Trivance steps, one fold-out step returns the result.  s + 1 steps
 * instead of s.  A rank folded away in one dimension sits out of the other
 * dimensions' steps until its fold-out (its partners there share that
 * coordinate, so they sit out too); its value is overwritten anyway.
 *
 * Reduce-scatter and allgather (`trivance`): trivance_bw's halves alone,
 * blocks numbered unit-major as the primitives own them (rank u's unit is
 * blocks [u*D, (u+1)*D), lane l owning part l: block u*D + l); every rank
 * sends p-1 blocks per lane in each, and receives each block once in the
 * allgather.  Barrier (`trivance`): the latency pattern with zero-byte
 * messages on one knowledge block, one lane, never folded: knowledge is a
 * union, and after step k a rank knows the 3^(k+1) consecutive ranks
 * around it (the windows of r - 3^k, r and r + 3^k, each 3^k wide, meet
 * edge to edge), so ceil(log3 n) steps cover any ring, and a torus is the
 * product of its rings.
 *
 * Partial results cover cyclic windows of ranks: commutative operations
 * only.
 */
#include "algo.h"

#include <stdlib.h>
#include <string.h>

#define MAXSTEPS 24 /* 3^24 is beyond any grid (topology.c caps at 2^24) */
#define OP_FOLD_IN (-1)
#define OP_FOLD_OUT (-2)

/* A list of coordinates (values) compressed: ranges of consecutive
 * values (leaves), in groups of leaves repeated at a stride (a period of
 * several ranges: the shift sets' gaps that alternate, 2, 7, 2, 7, ...
 * on sizes that are not powers of 3 or 2).  Group g is the leaves
 * lf[leaf0 .. leaf0 + nleaf), then the same `stride` values on, reps
 * times; the values in list order are the groups' in turn. */
typedef struct {
    int32_t first, count;
} leaf_t;

typedef struct {
    int32_t leaf0, nleaf, stride, reps;
} grp_t;

typedef struct {
    leaf_t *lf;
    grp_t *gr;
    int32_t nlf, ngr;
    int32_t open0; /* the first group a plain leaf may join (a list's own) */
} vlist_t;

typedef struct {
    int n, stride;
    int s;                       /* steps of the pattern (bw), or core steps (lat) */
    int nsh[MAXSTEPS], sh[MAXSTEPS][2]; /* shifts of each step, mod n (or P) */
    int8_t *lvl, *via; /* bw: offset f joins H at step lvl[f], via shift via[f] (bytes: the
                          plan's random reads stay in cache) */
    int *inv;                    /* bw: the coordinate whose blocks sit at position q */
    /* bw, where inv is the identity (else joined is NULL): the offsets f
     * with lvl[f] = t and via[f] = k, ascending, are joined[joined0[2t + k]
     * .. joined0[2t + k + 1]) */
    int *joined, joined0[2 * MAXSTEPS + 1];
    /* bw, where joined is: those offsets as lists of ranges (vlist_t),
     * the groups [jg0[2t + k], jg0[2t + k + 1]) of jl */
    vlist_t jl;
    int jg0[2 * MAXSTEPS + 1];
    int P, fold, nops;           /* lat: core ranks (groups: group_of), folded?, steps in
                                    this dimension */
} dim_t;

typedef struct {
    topo_sched_t *s;
    topo_prim_t prim; /* allreduce, or one half (RS, AG) of bw, or lat as a barrier */
    int lat, nd, n, nl;
    dim_t d[TOPO_MAX_DIMS];
    int act[TOPO_MAX_DIMS], nact; /* dimensions of size > 1 */
    int c[TOPO_MAX_DIMS];         /* this rank's coordinates */
    int *vals, nv[TOPO_MAX_DIMS]; /* per-dimension value lists (scratch) */
    int *voff;
    /* bw: a transfer's value list of each dimension, compressed (scratch),
     * and the leaves of one before compress */
    vlist_t lst[TOPO_MAX_DIMS];
    leaf_t *lv;
    /* bw, per dimension: the blocks one value moves (mul), and whether
     * the product of the later dimensions' lists is one range of mul
     * blocks (tight) from tstart, or one range (single) of tlen from
     * tstart (the dimensions from i on) */
    int32_t mul[TOPO_MAX_DIMS], tstart[TOPO_MAX_DIMS + 1], tlen[TOPO_MAX_DIMS + 1];
    uint8_t tight[TOPO_MAX_DIMS], single[TOPO_MAX_DIMS + 1];
    /* bw: the rows of dimension i meet (the last dimension's list runs
     * from its first value to its last), and that list rotated */
    uint8_t wrap[TOPO_MAX_DIMS];
    vlist_t rot, rest;
} eng_t;

static int clog3(int n)
{
    int s = 0;
    for (long p = 1; p < n; p *= 3) {
        s++;
    }
    return s;
}

static int mod(long a, int n)
{
    return (int)(((a % n) + n) % n);
}

int topo_trivance_shifts(int n, int s, int t, int lat, int *shift)
{
    long d = 1, w = 1;
    for (int i = 0; i < t; i++) {
        d *= 3;
    }
    if (!lat) {
        for (int i = 1; i < s; i++) {
            w *= 3;
        }
        long df = (n - w + 1) / 2; /* ceil((n - 3^(s-1)) / 2) */
        int j = 0; /* d_f's place among 1, 3, ..., 3^(s-2), ascending */
        for (long p = 1; p < w && p < df; p *= 3) {
            j++;
        }
        d = t < j ? d : t == j ? df : d / 3;
    }
    shift[0] = (int)(d % n);
    shift[1] = mod(-d, n);
    return shift[0] == shift[1] ? 1 : 2;
}

/* Normalize: nonzero, distinct shifts mod n. */
static int plan_shifts(dim_t *dm, int n, int t, int lat, topo_shift_fn fn)
{
    int raw[2], m = fn(n, dm->s, t, lat, raw), k = 0;
    for (int i = 0; i < m; i++) {
        int v = mod(raw[i], n);
        if (v != 0 && !(k == 1 && dm->sh[t][0] == v)) {
            dm->sh[t][k++] = v;
        }
    }
    dm->nsh[t] = k;
    return k;
}

static int circ(int f, int n)
{
    return f < n - f ? f : n - f;
}

/* --- compressed value lists -------------------------------------------- */

/* The longest period (in ranges) compress looks for. */
#define GMAX 16

/* Append leaf {first, count} to l as a plain leaf: into the last group
 * where that is one of plain leaves (reps 1), else a new one. */
static void push_leaf(vlist_t *l, int32_t first, int32_t count)
{
    grp_t *g = l->ngr > 0 ? &l->gr[l->ngr - 1] : NULL;
    l->lf[l->nlf] = (leaf_t){first, count};
    if (NULL != g && l->ngr - 1 >= l->open0 && 1 == g->reps && g->leaf0 + g->nleaf == l->nlf) {
        g->nleaf++;
    } else {
        l->gr[l->ngr++] = (grp_t){l->nlf, 1, 0, 1};
    }
    l->nlf++;
}

/* Append to l the leaves in[0..m) as groups: at each leaf, the period of
 * 1..GMAX leaves whose copies (each leaf `stride` values after the one a
 * period before, of its count) cover the most leaves beyond the first
 * copy, greedily; a leaf that starts no such run stays plain. */
static void compress(vlist_t *l, const leaf_t *in, int m)
{
    for (int i = 0; i < m;) {
        int bg = 0, br = 1;
        int64_t bsave = 0;
        for (int g = 1; g <= GMAX && i + 2 * g <= m; g++) {
            if (bg > 0 && 0 == g % bg && br * bg >= 4 * g) {
                continue; /* a multiple of a long run's period: not longer, as a rule */
            }
            const int32_t P = in[i + g].first - in[i].first;
            int r = 1;
            while (i + (r + 1) * g <= m) {
                const leaf_t *x = in + i + (r - 1) * g, *y = x + g;
                int q = 0;
                while (q < g && y[q].count == x[q].count && y[q].first == x[q].first + P) {
                    q++;
                }
                if (q < g) {
                    break;
                }
                r++;
            }
            if ((int64_t)(r - 1) * g > bsave) {
                bsave = (int64_t)(r - 1) * g;
                bg = g;
                br = r;
            }
            if (i + br * bg >= m) {
                break; /* it covers the rest */
            }
        }
        if (br < 2) {
            push_leaf(l, in[i].first, in[i].count);
            i++;
            continue;
        }
        const int32_t l0 = l->nlf;
        for (int q = 0; q < bg; q++) {
            l->lf[l->nlf++] = in[i + q];
        }
        l->gr[l->ngr++] = (grp_t){l0, bg, in[i + bg].first - in[i].first, br};
        i += bg * br;
    }
}

/* Leaves of the values v[0..m) (maximal runs of consecutive ones, in
 * order) into out; returns how many. */
static int to_leaves(const int *v, int m, leaf_t *out)
{
    int k = 0;
    for (int j = 0; j < m; j++) {
        if (k > 0 && out[k - 1].first + out[k - 1].count == v[j]) {
            out[k - 1].count++;
        } else {
            out[k++] = (leaf_t){v[j], 1};
        }
    }
    return k;
}

static int64_t floor_div(int64_t a, int64_t b)
{
    const int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/* Copy j of group g of `in`, its leaves cut to [lo, hi] and mapped to
 * c - v, onto out as plain leaves (in ascending order of c - v). */
static void reflect_copy(vlist_t *out, const vlist_t *in, const grp_t *g, int64_t j, int32_t lo,
                         int32_t hi, int32_t c)
{
    for (int q = g->nleaf - 1; q >= 0; q--) {
        const leaf_t *L = &in->lf[g->leaf0 + q];
        const int64_t a = L->first + j * g->stride, x0 = a > lo ? a : lo;
        const int64_t x1 = a + L->count < (int64_t)hi + 1 ? a + L->count : (int64_t)hi + 1;
        if (x0 < x1) {
            push_leaf(out, (int32_t)(c - (x1 - 1)), (int32_t)(x1 - x0));
        }
    }
}

/* The values of groups [g0, g1) of `in` (ascending) that lie in [lo, hi],
 * mapped to c - v, appended to out in ascending order: the groups from
 * the last, a group's copies that lie wholly inside as one group (its
 * leaves reversed, from its last such copy), the copies the bounds cut
 * leaf by leaf. */
static void reflect(vlist_t *out, const vlist_t *in, int g0, int g1, int32_t lo, int32_t hi,
                    int32_t c)
{
    for (int gi = g1 - 1; gi >= g0; gi--) {
        const grp_t *g = &in->gr[gi];
        const leaf_t *L = &in->lf[g->leaf0];
        const int64_t f0 = L[0].first, e0 = L[g->nleaf - 1].first + L[g->nleaf - 1].count;
        const int64_t R = g->reps, P = g->stride;
        int64_t jl, jh; /* the copies wholly inside */
        if (1 == R) {
            const int in1 = f0 >= lo && e0 - 1 <= hi;
            jl = in1 ? 0 : 1;
            jh = in1 ? 0 : 0;
            if (!in1) {
                if (e0 - 1 >= lo && f0 <= hi) {
                    reflect_copy(out, in, g, 0, lo, hi, c);
                }
                continue;
            }
        } else {
            jl = floor_div(lo - f0 + P - 1, P);
            jh = floor_div(hi + 1 - e0, P);
            jl = jl < 0 ? 0 : jl > R ? R : jl;
            jh = jh < -1 ? -1 : jh > R - 1 ? R - 1 : jh;
        }
        if (jh + 1 < R && jh + 1 >= 0) {
            reflect_copy(out, in, g, jh + 1, lo, hi, c);
        }
        if (jl <= jh) {
            if (jl == jh) {
                reflect_copy(out, in, g, jh, lo, hi, c);
            } else {
                const int32_t l0 = out->nlf;
                for (int q = g->nleaf - 1; q >= 0; q--) {
                    const int64_t a = L[q].first + jh * P;
                    out->lf[out->nlf++] = (leaf_t){(int32_t)(c - (a + L[q].count - 1)), L[q].count};
                }
                out->gr[out->ngr++] = (grp_t){l0, g->nleaf, (int32_t)P, (int32_t)(jh - jl + 1)};
            }
        }
        if (jl - 1 >= 0 && jl - 1 < R && jl - 1 < jh + 1) {
            reflect_copy(out, in, g, jl - 1, lo, hi, c);
        }
    }
}

/* bw: the broadcast tree of one dimension (see the header comment). */
static int plan_bw(dim_t *dm, topo_shift_fn fn)
{
    const int n = dm->n;
    dm->s = clog3(n);
    dm->lvl = malloc((size_t)n);
    dm->via = malloc((size_t)n);
    if (!dm->lvl || !dm->via || dm->s > MAXSTEPS) {
        return TOPO_ENOMEM;
    }
    memset(dm->lvl, -1, (size_t)n);
    memset(dm->via, -1, (size_t)n);
    dm->lvl[0] = (int8_t)dm->s;
    /* H: the offsets that joined after step t (the senders of step t),
     * fresh: those that join at t, twice: those both shifts reach, as bit
     * sets (read in ascending order, so that the reads of lvl and reach
     * run along the offsets); reach: the shifts (bits) by which an offset
     * not yet joined is reached at t */
    const size_t words = ((size_t)n + 63) / 64;
    uint64_t *inh = calloc(3 * words, sizeof(uint64_t)), *fresh = inh + words,
             *twice = inh + 2 * words;
    uint8_t *reach = calloc((size_t)n, 1);
    if (NULL == inh || NULL == reach) {
        free(inh);
        free(reach);
        return TOPO_ENOMEM;
    }
    int nh = 1, tail = n - 1;
    inh[0] = 1;
    long p3 = 1;
    for (int i = 0; i < dm->s; i++) {
        p3 *= 3;
    }
    if (p3 != n) { /* the offsets' lists, from which dim_list lists a transfer's */
        dm->joined = malloc(sizeof(int) * (size_t)n);
        if (NULL == dm->joined) {
            free(inh);
            free(reach);
            return TOPO_ENOMEM;
        }
        dm->joined0[2 * dm->s] = n - 1;
    }
    for (int t = dm->s - 1; t >= 0; t--) {
        int load[2] = {0, 0};
        const int ns = plan_shifts(dm, n, t, 0, fn);
        /* Offsets one shift reaches first, then those both reach (joining
         * at t does not make an offset a sender at t), to the shift with
         * fewer blocks so far, else the one whose sender is nearer the
         * owner (for Trivance: f and -f take opposite shifts), in
         * ascending order. */
        for (size_t w = 0; w < words; w++) {
            for (uint64_t bits = inh[w]; bits; bits &= bits - 1) {
                const int h = (int)(w * 64) + __builtin_ctzll(bits);
                for (int j = 0; j < ns; j++) {
                    const int f = h + dm->sh[t][j] >= n ? h + dm->sh[t][j] - n : h + dm->sh[t][j];
                    /* not joined yet: no branch (which way is random) */
                    const unsigned neg = (uint8_t)dm->lvl[f] >> 7;
                    reach[f] |= (uint8_t)(neg << j);
                    fresh[f >> 6] |= (uint64_t)neg << (f & 63);
                }
            }
        }
        for (size_t w = 0; w < words; w++) {
            for (uint64_t bits = fresh[w]; bits; bits &= bits - 1) {
                const int f = (int)(w * 64) + __builtin_ctzll(bits);
                dm->lvl[f] = (int8_t)t;
                nh++;
                if (3 == reach[f]) {
                    twice[w] |= (uint64_t)1 << (f & 63);
                } else {
                    const int k = 2 == reach[f];
                    load[k]++;
                    dm->via[f] = (int8_t)k;
                }
                reach[f] = 0;
            }
        }
        for (size_t w = 0; w < words; w++) {
            for (uint64_t bits = twice[w]; bits; bits &= bits - 1) {
                const int f = (int)(w * 64) + __builtin_ctzll(bits);
                const int f0 = f - dm->sh[t][0] < 0 ? f - dm->sh[t][0] + n : f - dm->sh[t][0];
                const int f1 = f - dm->sh[t][1] < 0 ? f - dm->sh[t][1] + n : f - dm->sh[t][1];
                const int k = load[0] != load[1] ? load[1] < load[0] : circ(f1, n) < circ(f0, n);
                load[k]++;
                dm->via[f] = (int8_t)k;
            }
            twice[w] = 0;
        }
        /* the offsets that joined at t via each shift, ascending, before
         * those of the later steps (joined, where it is kept) */
        int at0 = tail - load[0] - load[1], at1 = tail - load[1];
        tail = at0;
        if (NULL != dm->joined) {
            dm->joined0[2 * t] = at0;
            dm->joined0[2 * t + 1] = at1;
        }
        for (size_t w = 0; w < words; w++) {
            for (uint64_t bits = NULL != dm->joined ? fresh[w] : 0; bits; bits &= bits - 1) {
                const int f = (int)(w * 64) + __builtin_ctzll(bits);
                dm->joined[dm->via[f] ? at1++ : at0++] = f;
            }
            inh[w] |= fresh[w];
            fresh[w] = 0;
        }
    }
    free(inh);
    free(reach);
    if (nh != n) {
        return TOPO_EINVAL; /* the shifts do not cover the ring */
    }
    /* Block order: for n = 3^s the sets are residue classes mod 3^(k+1), so
     * with the ternary digits of the coordinate reversed every set is one
     * contiguous run; other sizes keep the natural order. */
    dm->inv = malloc(sizeof(int) * (size_t)n);
    if (NULL == dm->inv) {
        return TOPO_ENOMEM;
    }
    for (int q = 0; q < n; q++) {
        int v = q;
        if (p3 == n) {
            v = 0;
            for (int i = 0, x = q; i < dm->s; i++, x /= 3) {
                v = v * 3 + x % 3;
            }
        }
        dm->inv[q] = v;
    }
    dm->nops = dm->s;
    if (p3 == n) {
        return TOPO_OK; /* digits reversed: values() scans */
    }
    /* and compressed, once per dimension: a transfer's list is one of
     * them reflected about its coordinate (reflect) */
    dm->jl.lf = malloc(sizeof(leaf_t) * (size_t)n);
    dm->jl.gr = malloc(sizeof(grp_t) * (size_t)n);
    leaf_t *lv = malloc(sizeof(leaf_t) * (size_t)n);
    if (NULL == dm->jl.lf || NULL == dm->jl.gr || NULL == lv) {
        free(lv);
        return TOPO_ENOMEM;
    }
    for (int j = 0; j < 2 * dm->s; j++) {
        dm->jg0[j] = dm->jl.open0 = dm->jl.ngr;
        const int m = to_leaves(dm->joined + dm->joined0[j], dm->joined0[j + 1] - dm->joined0[j], lv);
        compress(&dm->jl, lv, m);
    }
    dm->jg0[2 * dm->s] = dm->jl.ngr;
    free(lv);
    return TOPO_OK;
}

/* lat: the n coordinates of a dimension form P groups of consecutive
 * ones, group g from floor(g n / P) to floor((g + 1) n / P) - 1 (1-3 of
 * them); closed forms, so that a rank's schedule costs no O(n) (a barrier
 * on a star of 16384 ranks prices every rank). */
static int group_of(const dim_t *dm, int v)
{
    return (int)(((long)(v + 1) * dm->P - 1) / dm->n);
}

/* The leader of group g: the middle one of three, else the first. */
static int lead_of(const dim_t *dm, int g)
{
    const int lo = (int)((long)g * dm->n / dm->P), hi = (int)((long)(g + 1) * dm->n / dm->P);
    return lo + (hi - lo == 3);
}

/* lat: exact on 3^s and 2*3^(s-1) ranks, else fold onto P = 3^(s-1);
 * never folded for a barrier (nofold: knowledge merges, repeats are fine). */
static int plan_lat(dim_t *dm, topo_shift_fn fn, int nofold)
{
    const int n = dm->n, s = clog3(n);
    long w = 1;
    for (int i = 1; i < s; i++) {
        w *= 3;
    }
    dm->fold = !nofold && !(n == 3 * w || n == 2 * w);
    dm->P = dm->fold ? (int)w : n;
    dm->s = dm->fold ? s - 1 : s;
    dm->nops = dm->s + (dm->fold ? 2 : 0);
    if (dm->s > MAXSTEPS) {
        return TOPO_ENOMEM;
    }
    for (int t = 0; t < dm->s; t++) {
        plan_shifts(dm, dm->P, t, 1, fn);
    }
    return TOPO_OK;
}

static int peer(const eng_t *e, int dim, int v)
{
    int r = 0;
    for (int i = 0; i < e->nd; i++) {
        r += (i == dim ? v : e->c[i]) * e->d[i].stride;
    }
    return r;
}

/* --- bw ---------------------------------------------------------------- */

/* Fill the list of block positions of dimension i: in the step's dimension
 * those of the coordinates v whose offset base - v joined at step t via
 * shift k; elsewhere those the rank still holds (offset level >= cur). */
static int values(eng_t *e, int i, int dim, int base, int t, int k, const int *cur)
{
    const dim_t *dm = &e->d[i];
    const int n = dm->n;
    int *out = e->vals + e->voff[i], m = 0;
    if (n == 1) {
        out[m++] = 0;
        e->nv[i] = m;
        return m;
    }
    /* base and the coordinates are in [0, n): f = (b - v) mod n without a
     * division (the step's dimension comes here only for n = 3^s: other
     * sizes reflect its compressed lists, dim_list) */
    const int b = i == dim ? base : e->c[i];
    const int8_t *lvl = dm->lvl;
    const int *inv = dm->inv;
    if (i == dim) {
        const int8_t *via = dm->via;
        for (int q = 0; q < n; q++) {
            const int f = b - inv[q] < 0 ? b - inv[q] + n : b - inv[q];
            if (lvl[f] == t && via[f] == k) {
                out[m++] = q;
            }
        }
    } else {
        const int held = cur[i];
        for (int q = 0; q < n; q++) {
            const int f = b - inv[q] < 0 ? b - inv[q] + n : b - inv[q];
            if (lvl[f] >= held) {
                out[m++] = q;
            }
        }
    }
    e->nv[i] = m;
    return m;
}

/* The value list of dimension i for a transfer (see values), compressed
 * into e->lst[i]: in the step's dimension, where the offsets' lists are
 * (joined), the list of (t, k) reflected about base (q = base - f for
 * the offsets f up to base, then base + n - f for those above it, each
 * in ascending q); otherwise values()'s, compressed.  The values are the
 * coordinates' blocks (inv applied for the reduce-scatter or allgather
 * alone).  Returns whether the list holds any value. */
static int dim_list(eng_t *e, int i, int dim, int base, int t, int k, const int *cur)
{
    const dim_t *dm = &e->d[i];
    vlist_t *l = &e->lst[i];
    l->nlf = l->ngr = l->open0 = 0;
    if (1 == dm->n) {
        push_leaf(l, 0, 1);
        return 1;
    }
    if (i == dim && NULL != dm->joined) {
        const int g0 = dm->jg0[2 * t + k], g1 = dm->jg0[2 * t + k + 1];
        reflect(l, &dm->jl, g0, g1, 0, base, base);
        reflect(l, &dm->jl, g0, g1, base + 1, dm->n - 1, base + dm->n);
        return l->nlf > 0;
    }
    const int m = values(e, i, dim, base, t, k, cur);
    int *v = e->vals + e->voff[i];
    if (e->prim != TOPO_PRIM_ALLREDUCE) {
        for (int j = 0; j < m; j++) {
            v[j] = dm->inv[v[j]];
        }
    }
    compress(l, e->lv, to_leaves(v, m, e->lv));
    return m > 0;
}

/* Emit the product of the lists of dimensions i.. (e->lst), `off` blocks
 * on, with `depth` groups open: each group of dimension i's list a group
 * run (a strided run where it is one leaf and the later dimensions are
 * one range of mul blocks: a leaf of values is then one range of blocks),
 * each leaf of it a group run of the later dimensions' product, mul
 * blocks apart; past TOPO_RUN_DEPTH groups deep, copy by copy. */
static void emit_list(eng_t *e, int i, const vlist_t *l, int32_t off, int depth);

static void emit_dim(eng_t *e, int i, int32_t off, int depth)
{
    if (i == e->nd) {
        topo_sched_range(e->s, off, 1);
        return;
    }
    emit_list(e, i, &e->lst[i], off, depth);
}

/* The list l with its first leaf moved to its end, n values on (rot), or
 * left out (rest): the last dimension's list across a row boundary. */
static void rotate(vlist_t *out, const vlist_t *l, int n, int rot)
{
    out->nlf = out->ngr = out->open0 = 0;
    for (int gi = 0; gi < l->ngr; gi++) {
        const grp_t *g = &l->gr[gi];
        const leaf_t *L = &l->lf[g->leaf0];
        if (gi > 0) {
            const int32_t l0 = out->nlf;
            memcpy(&out->lf[l0], L, sizeof(*L) * (size_t)g->nleaf);
            out->nlf += g->nleaf;
            out->gr[out->ngr++] = (grp_t){l0, g->nleaf, g->stride, g->reps};
            continue;
        }
        for (int q = 1; q < g->nleaf; q++) { /* copy 0 from its second leaf */
            push_leaf(out, L[q].first, L[q].count);
        }
        if (g->reps >= 2) { /* copies 1.. */
            const int32_t l0 = out->nlf;
            for (int q = 0; q < g->nleaf; q++) {
                out->lf[out->nlf++] = (leaf_t){L[q].first + g->stride, L[q].count};
            }
            out->gr[out->ngr++] = (grp_t){l0, g->nleaf, g->stride, g->reps - 1};
        }
    }
    if (rot) {
        push_leaf(out, l->lf[l->gr[0].leaf0].first + n, l->lf[l->gr[0].leaf0].count);
    }
}

/* The last value of list l. */
static int32_t list_last(const vlist_t *l)
{
    const grp_t *g = &l->gr[l->ngr - 1];
    const leaf_t *L = &l->lf[g->leaf0 + g->nleaf - 1];
    return L->first + L->count - 1 + (g->reps - 1) * g->stride;
}

static void emit_list(eng_t *e, int i, const vlist_t *l, int32_t off, int depth)
{
    topo_sched_t *s = e->s;
    const int32_t m = e->mul[i], st = e->tstart[i + 1];
    for (int gi = 0; gi < l->ngr && !s->err; gi++) {
        const grp_t *g = &l->gr[gi];
        const leaf_t *L = &l->lf[g->leaf0];
        const int grouped = g->reps >= 2 && depth < TOPO_RUN_DEPTH;
        if (e->tight[i] && 1 == g->nleaf) {
            topo_sched_ranges(s, off + st + L[0].first * m, L[0].count * m, g->stride * m, g->reps);
            continue;
        }
        const int32_t mark = grouped ? topo_sched_group_begin(s) : 0;
        for (int j = 0; j < (grouped ? 1 : g->reps); j++) {
            const int32_t o = off + j * g->stride * m;
            const int d = depth + grouped;
            for (int q = 0; q < g->nleaf; q++) {
                if (e->tight[i]) {
                    topo_sched_range(s, o + st + L[q].first * m, L[q].count * m);
                } else if (L[q].count >= 2 && d < TOPO_RUN_DEPTH && e->wrap[i]) {
                    /* rows whose last range meets the next row's first:
                     * the first, then the rows from their second range
                     * to the next row's first (merged), then the last
                     * row from its second range */
                    const vlist_t *in = &e->lst[i + 1];
                    const int32_t mi = e->mul[i + 1], o2 = o + L[q].first * m;
                    const leaf_t *h = &in->lf[in->gr[0].leaf0];
                    topo_sched_range(s, o2 + h->first * mi, h->count * mi);
                    const int32_t lm = topo_sched_group_begin(s);
                    emit_list(e, i + 1, &e->rot, o2, d + 1);
                    topo_sched_group_end(s, lm, m, L[q].count - 1);
                    emit_list(e, i + 1, &e->rest, o2 + (L[q].count - 1) * m, d);
                } else if (L[q].count >= 2 && d < TOPO_RUN_DEPTH) {
                    const int32_t lm = topo_sched_group_begin(s);
                    emit_dim(e, i + 1, o + L[q].first * m, d + 1);
                    topo_sched_group_end(s, lm, m, L[q].count);
                } else {
                    for (int v = 0; v < L[q].count; v++) {
                        emit_dim(e, i + 1, o + (L[q].first + v) * m, d);
                    }
                }
            }
        }
        if (grouped) {
            topo_sched_group_end(s, mark, g->stride * m, g->reps);
        }
    }
}

/* One transfer of the product of the value lists, blocks in ascending
 * position order: lane-major for allreduce, unit-major (the rank's block
 * of lane `lane` is rank * nl + lane) for the reduce-scatter or allgather
 * alone.  Emitted as the lists' product (emit_dim), so a transfer costs
 * the entries of its compressed lists, not a builder call per block. */
static void transfer(eng_t *e, int lane, int to, int kind, int dim, int base, int t, int k,
                     const int *cur)
{
    for (int i = 0; i < e->nd; i++) {
        if (!dim_list(e, i, dim, base, t, k, cur)) {
            return;
        }
    }
    if (kind == TOPO_XFER_SEND) {
        topo_sched_send(e->s, to, 0, 0);
    } else {
        topo_sched_recv(e->s, to, (topo_xfer_kind_t)kind, 0, 0);
    }
    /* which later products are one range (tight: of mul blocks) */
    e->single[e->nd] = 1;
    e->tstart[e->nd] = 0;
    e->tlen[e->nd] = 1;
    for (int i = e->nd - 1; i >= 0; i--) {
        const vlist_t *l = &e->lst[i];
        e->tight[i] = e->single[i + 1] && e->tlen[i + 1] == e->mul[i];
        e->single[i] = e->tight[i] && 1 == l->ngr && 1 == l->gr[0].reps && 1 == l->gr[0].nleaf;
        e->tstart[i] = e->single[i] ? e->tstart[i + 1] + l->lf[0].first * e->mul[i] : 0;
        e->tlen[i] = e->single[i] ? l->lf[0].count * e->mul[i] : 0;
    }
    /* the last dimension's list from its first row's block to its last
     * (rows that meet: emit_list rotates it, e->rot and e->rest) */
    for (int i = 0; i < e->nd; i++) {
        e->wrap[i] = 0;
    }
    const int nd = e->nd;
    if (nd >= 2 && e->tight[nd - 1] && !e->tight[nd - 2] && 1 == e->mul[nd - 1] &&
        0 == e->lst[nd - 1].lf[e->lst[nd - 1].gr[0].leaf0].first &&
        list_last(&e->lst[nd - 1]) == e->d[nd - 1].n - 1 && e->lst[nd - 1].nlf >= 2) {
        e->wrap[nd - 2] = 1;
        rotate(&e->rot, &e->lst[nd - 1], e->d[nd - 1].n, 1);
        rotate(&e->rest, &e->lst[nd - 1], e->d[nd - 1].n, 0);
    }
    emit_dim(e, 0, e->prim == TOPO_PRIM_ALLREDUCE ? lane * e->n : lane, 0);
}

/* The dimension (index into act) of lane l at step j, given the steps left. */
static int pick(const eng_t *e, int l, int j, const int *left)
{
    for (int q = 0; q < e->nact; q++) {
        int a = (l + j + q) % e->nact;
        if (left[a] > 0) {
            return a;
        }
    }
    return -1;
}

static void lane_bw(eng_t *e, int l, int *seq, int *hist)
{
    int left[TOPO_MAX_DIMS], cur[TOPO_MAX_DIMS] = {0}, S = 0;
    for (int a = 0; a < e->nact; a++) {
        left[a] = e->d[e->act[a]].nops;
        S += left[a];
    }
    topo_sched_lane(e->s);
    for (int j = 0; j < S; j++) { /* reduce-scatter */
        int a = pick(e, l, j, left), dim = e->act[a];
        const dim_t *dm = &e->d[dim];
        int t = cur[dim];
        left[a]--;
        seq[j] = dim;
        memcpy(hist + (size_t)j * e->nd, cur, sizeof(int) * (size_t)e->nd);
        if (e->prim == TOPO_PRIM_ALLGATHER) { /* the allgather alone: only the sequence */
            cur[dim]++;
            continue;
        }
        topo_sched_step(e->s);
        for (int k = 0; k < dm->nsh[t]; k++) {
            int sh = dm->sh[t][k];
            transfer(e, l, peer(e, dim, mod((long)e->c[dim] - sh, dm->n)), TOPO_XFER_SEND, dim,
                     e->c[dim], t, k, cur);
        }
        for (int k = 0; k < dm->nsh[t]; k++) {
            int sh = dm->sh[t][k], from = mod((long)e->c[dim] + sh, dm->n);
            transfer(e, l, peer(e, dim, from), TOPO_XFER_RECV_REDUCE, dim, from, t, k, cur);
        }
        cur[dim]++;
    }
    for (int j = S - 1; j >= 0 && e->prim != TOPO_PRIM_REDUCE_SCATTER; j--) {
        /* allgather: the time reverse */
        int dim = seq[j];
        const dim_t *dm = &e->d[dim];
        const int *h = hist + (size_t)j * e->nd;
        int t = h[dim];
        topo_sched_step(e->s);
        for (int k = 0; k < dm->nsh[t]; k++) {
            int to = mod((long)e->c[dim] + dm->sh[t][k], dm->n);
            transfer(e, l, peer(e, dim, to), TOPO_XFER_SEND, dim, to, t, k, h);
        }
        for (int k = 0; k < dm->nsh[t]; k++) {
            int from = mod((long)e->c[dim] - dm->sh[t][k], dm->n);
            transfer(e, l, peer(e, dim, from), TOPO_XFER_RECV_COPY, dim, e->c[dim], t, k, h);
        }
    }
}

/* --- lat --------------------------------------------------------------- */

/* Folded away in a dimension other than `dim` and not yet folded out. */
static int sits_out(const eng_t *e, int dim, const int *done)
{
    for (int i = 0; i < e->nd; i++) {
        const dim_t *dm = &e->d[i];
        if (i != dim && dm->n > 1 && dm->fold && done[i] >= 1 && done[i] < dm->nops &&
            lead_of(dm, group_of(dm, e->c[i])) != e->c[i]) {
            return 1;
        }
    }
    return 0;
}

static void lane_lat(eng_t *e, int l)
{
    int left[TOPO_MAX_DIMS], done[TOPO_MAX_DIMS] = {0}, S = 0;
    for (int a = 0; a < e->nact; a++) {
        left[a] = e->d[e->act[a]].nops;
        S += left[a];
    }
    topo_sched_lane(e->s);
    for (int j = 0; j < S; j++) {
        int a = pick(e, l, j, left), dim = e->act[a];
        const dim_t *dm = &e->d[dim];
        int op = done[dim] - dm->fold; /* core step, or a fold */
        op = op < 0 ? OP_FOLD_IN : op >= dm->s ? OP_FOLD_OUT : op;
        left[a]--;
        topo_sched_step(e->s);
        if (!sits_out(e, dim, done)) {
            const int v = e->c[dim], g = group_of(dm, v), ld = lead_of(dm, g);
            if (op == OP_FOLD_IN || op == OP_FOLD_OUT) {
                int in = op == OP_FOLD_IN;
                if (v != ld) {
                    if (in) {
                        topo_sched_send(e->s, peer(e, dim, ld), l, 1);
                    } else {
                        topo_sched_recv(e->s, peer(e, dim, ld), TOPO_XFER_RECV_COPY, l, 1);
                    }
                } else {
                    for (int u = v - 1; u <= v + 1; u++) {
                        if (u >= 0 && u < dm->n && u != v && group_of(dm, u) == g) {
                            if (in) {
                                topo_sched_recv(e->s, peer(e, dim, u), TOPO_XFER_RECV_REDUCE, l, 1);
                            } else {
                                topo_sched_send(e->s, peer(e, dim, u), l, 1);
                            }
                        }
                    }
                }
            } else if (v == ld) {
                for (int k = 0; k < dm->nsh[op]; k++) {
                    topo_sched_send(
                        e->s, peer(e, dim, lead_of(dm, mod((long)g + dm->sh[op][k], dm->P))), l, 1);
                }
                for (int k = 0; k < dm->nsh[op]; k++) {
                    topo_sched_recv(e->s,
                                    peer(e, dim, lead_of(dm, mod((long)g - dm->sh[op][k], dm->P))),
                                    TOPO_XFER_RECV_REDUCE, l, 1);
                }
            }
        }
        done[dim]++;
    }
}

/* --- driver ------------------------------------------------------------ */

static void eng_free(eng_t *e)
{
    for (int i = 0; i < e->nd; i++) {
        free(e->d[i].lvl);
        free(e->d[i].via);
        free(e->d[i].inv);
        free(e->d[i].joined);
        free(e->d[i].jl.lf);
        free(e->d[i].jl.gr);
        free(e->lst[i].lf);
        free(e->lst[i].gr);
    }
    free(e->rot.lf);
    free(e->rot.gr);
    free(e->rest.lf);
    free(e->rest.gr);
    free(e->lv);
    free(e->vals);
    free(e->voff);
}

int topo_gen_shift_allreduce(topo_sched_t *s, const topo_gen_args_t *a, topo_shift_fn fn, int lat)
{
    return topo_gen_shift(s, a, fn, lat, TOPO_PRIM_ALLREDUCE);
}

int topo_gen_shift(topo_sched_t *s, const topo_gen_args_t *a, topo_shift_fn fn, int lat,
                   topo_prim_t prim)
{
    eng_t e;
    memset(&e, 0, sizeof(e));
    e.s = s;
    e.prim = prim;
    e.lat = lat;
    e.n = a->size;
    topo_geom_t g;
    topo_geom_init(&g, a);
    e.nd = g.nd;
    int total = 0;
    for (int i = e.nd - 1, stride = 1; i >= 0; i--) {
        e.d[i].n = g.dims[i];
        e.d[i].stride = stride;
        e.c[i] = g.coords[i];
        stride *= e.d[i].n;
        total += e.d[i].n;
    }
    e.nact = g.D;
    memcpy(e.act, g.first, sizeof(int) * (size_t)g.D);
    const int nl = e.nact > 0 ? e.nact : 1, barrier = prim == TOPO_PRIM_BARRIER;
    e.nl = nl;
    topo_sched_init(s, a->size, a->rank, barrier ? 1 : lat ? nl : nl * a->size);
    s->runs = 1; /* the shift sets hold runs of equal ranges at equal distances */
    s->sync = (uint8_t)barrier;
    if (prim == TOPO_PRIM_REDUCE_SCATTER || prim == TOPO_PRIM_ALLGATHER) {
        s->nparts = nl;
    }
    if ((barrier && !lat) || (!barrier && prim != TOPO_PRIM_ALLREDUCE && lat)) {
        s->err = TOPO_EINVAL; /* no such combination */
    }
    e.voff = malloc(sizeof(int) * (size_t)(e.nd + 1));
    e.vals = malloc(sizeof(int) * (size_t)total);
    int rc = (e.voff && e.vals) ? TOPO_OK : TOPO_ENOMEM;
    if (!lat) { /* the compressed lists' scratch (a reflection adds a few leaves) */
        int most = 1;
        for (int i = 0; i < e.nd; i++) {
            const size_t cap = 2 * (size_t)e.d[i].n + 4 * GMAX + 4;
            e.lst[i].lf = malloc(sizeof(leaf_t) * cap);
            e.lst[i].gr = malloc(sizeof(grp_t) * cap);
            rc = e.lst[i].lf && e.lst[i].gr ? rc : TOPO_ENOMEM;
            e.mul[i] = prim == TOPO_PRIM_ALLREDUCE ? e.d[i].stride : e.d[i].stride * nl;
            most = e.d[i].n > most ? e.d[i].n : most;
        }
        e.lv = malloc(sizeof(leaf_t) * (size_t)most);
        /* rot and rest: the last dimension's list, on grids */
        const size_t cap = e.nd >= 2 ? 2 * (size_t)e.d[e.nd - 1].n + 4 * GMAX + 8 : 1;
        e.rot.lf = malloc(sizeof(leaf_t) * cap);
        e.rot.gr = malloc(sizeof(grp_t) * cap);
        e.rest.lf = malloc(sizeof(leaf_t) * cap);
        e.rest.gr = malloc(sizeof(grp_t) * cap);
        rc = e.lv && e.rot.lf && e.rot.gr && e.rest.lf && e.rest.gr ? rc : TOPO_ENOMEM;
    }
    for (int i = 0, off = 0; i < e.nd && TOPO_OK == rc; i++) {
        e.voff[i] = off;
        off += e.d[i].n;
        if (e.d[i].n > 1) {
            rc = lat ? plan_lat(&e.d[i], fn, barrier) : plan_bw(&e.d[i], fn);
        }
    }
    int S = 0;
    for (int i = 0; i < e.nd; i++) {
        S += e.d[i].n > 1 ? e.d[i].nops : 0;
    }
    int *seq = malloc(sizeof(int) * (size_t)(S + 1));
    int *hist = malloc(sizeof(int) * (size_t)(S + 1) * (size_t)e.nd);
    if (TOPO_OK == rc && (!seq || !hist)) {
        rc = TOPO_ENOMEM;
    }
    for (int l = 0; l < (barrier ? e.nact > 0 : e.nact) && TOPO_OK == rc; l++) {
        if (lat) {
            lane_lat(&e, l);
        } else {
            lane_bw(&e, l, seq, hist);
        }
    }
    free(seq);
    free(hist);
    eng_free(&e);
    if (TOPO_OK != rc) {
        s->err = s->err ? s->err : rc;
    }
    return topo_sched_finish(s);
}

/* The joint reduction combines a rank's own value with its two peers' in
 * an order that depends on the rank (each rank's windows are centred on
 * itself): the same tree everywhere only where no dimension has more than
 * two ranks (then each step is a pairwise exchange). */
int topo_same_tree_trivance_lat(const topo_gen_args_t *a)
{
    return topo_topology_lane_max(a->topo, a->size) <= 2;
}

int topo_gen_allreduce_trivance_lat(topo_sched_t *s, const topo_gen_args_t *a)
{
    return topo_gen_shift_allreduce(s, a, topo_trivance_shifts, 1);
}

int topo_gen_allreduce_trivance_bw(topo_sched_t *s, const topo_gen_args_t *a)
{
    return topo_gen_shift_allreduce(s, a, topo_trivance_shifts, 0);
}

int topo_gen_reduce_scatter_trivance(topo_sched_t *s, const topo_gen_args_t *a)
{
    return topo_gen_shift(s, a, topo_trivance_shifts, 0, TOPO_PRIM_REDUCE_SCATTER);
}

int topo_gen_allgather_trivance(topo_sched_t *s, const topo_gen_args_t *a)
{
    return topo_gen_shift(s, a, topo_trivance_shifts, 0, TOPO_PRIM_ALLGATHER);
}

int topo_gen_barrier_trivance(topo_sched_t *s, const topo_gen_args_t *a)
{
    return topo_gen_shift(s, a, topo_trivance_shifts, 1, TOPO_PRIM_BARRIER);
}
