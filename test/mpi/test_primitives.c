/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Every primitive coll/topo serves besides allreduce: MPI_Bcast, MPI_Reduce,
 * MPI_Allgather, MPI_Reduce_scatter_block, MPI_Reduce_scatter (irregular
 * counts, zeros included), MPI_Alltoall and MPI_Barrier, over a matrix of
 * communicators (world, dup, split, reversed, 2-D and 3-D Cartesian),
 * datatypes, operations, counts, roots and MPI_IN_PLACE, each checked
 * against a reference every rank computes on its own; then (with every
 * primitive but barrier selected) the same calls repeated, interleaved.
 *
 * Every input element is a function of (world rank, element index, case),
 * so each rank computes every other rank's data itself.  Reductions fold
 * the contributions in communicator rank order with values whose exact
 * result does not depend on the order, except for the non-commutative
 * operation (composition of affine maps), where the order is the point.
 * Results are compared byte for byte, gaps of the derived datatype
 * included (a collective must never write them), guards around every
 * buffer are checked, and send buffers must come back unchanged.  The
 * barrier is checked with the machine's monotonic clock (the ranks share
 * one machine): no rank leaves before the last one entered.
 *
 * Cross-rank bookkeeping uses MPI_Gather only, which coll/topo does not
 * serve.
 *
 * Usage: test_primitives [--prims bcast,reduce,allgather,reduce_scatter_block,
 *                         reduce_scatter,alltoall,barrier]
 *                        [--comms world,dup,split,reversed,cart2d,cart3d]
 *                        [--max-count N] [--all-roots-max N] [--verbose]
 *                        [--memo-check | --memo-grow | --random N [--seed S] [--float-sums]]
 * --random N: N calls on each selected communicator in a random sequence
 * (seed S, default 1) of the selected primitives, counts up to --max-count
 * (see run_random); --float-sums: its reductions are all MPI_SUM of
 * MPI_DOUBLE (values whose sums are exact in any order).
 * Prints "test_primitives: P ranks, N calls checked on rank 0, F failures on
 * all ranks"; exit status 0 when every check passed on every rank.
 */
#include "test_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- datatypes ------------------------------------------------------ */

enum { T_INT, T_DOUBLE, T_VEC, T_PAIR, T_COUNT };

typedef struct {
    const char *name;
    MPI_Datatype dt;
    int isdouble; /* slots are doubles, else ints */
    int nslots;
    int off[2]; /* byte offset of each slot */
    int extent;
} ttype_t;

static ttype_t types[T_COUNT] = {
    [T_INT] = {"MPI_INT", MPI_DATATYPE_NULL, 0, 1, {0}, 4},
    [T_DOUBLE] = {"MPI_DOUBLE", MPI_DATATYPE_NULL, 1, 1, {0}, 8},
    /* ints 0 and 2 are data, 1 and 3 gaps that must never be written */
    [T_VEC] = {"resized(vector(2,1,2,MPI_INT),16)", MPI_DATATYPE_NULL, 0, 2, {0, 8}, 16},
    /* an affine map (a, b); sent as 2 MPI_INT by the data movers */
    [T_PAIR] = {"contig(2,MPI_INT)", MPI_DATATYPE_NULL, 0, 2, {0, 4}, 8},
};

static void types_create(void)
{
    MPI_Datatype v;
    types[T_INT].dt = MPI_INT;
    types[T_DOUBLE].dt = MPI_DOUBLE;
    tt_check_mpi(MPI_Type_vector(2, 1, 2, MPI_INT, &v), "MPI_Type_vector");
    tt_check_mpi(MPI_Type_create_resized(v, 0, 16, &types[T_VEC].dt), "MPI_Type_create_resized");
    tt_check_mpi(MPI_Type_commit(&types[T_VEC].dt), "MPI_Type_commit");
    MPI_Type_free(&v);
    tt_check_mpi(MPI_Type_contiguous(2, MPI_INT, &types[T_PAIR].dt), "MPI_Type_contiguous");
    tt_check_mpi(MPI_Type_commit(&types[T_PAIR].dt), "MPI_Type_commit");
}

static const ttype_t *type_of(MPI_Datatype dt)
{
    for (int t = 0; t < T_COUNT; t++)
        if (types[t].dt == dt)
            return &types[t];
    return NULL;
}

static void slot_put(const ttype_t *ty, unsigned char *buf, size_t e, int s, long long v)
{
    unsigned char *p = buf + e * ty->extent + ty->off[s];
    if (ty->isdouble) {
        double d = (double)v;
        memcpy(p, &d, sizeof d);
    } else {
        int i = (int)v;
        memcpy(p, &i, sizeof i);
    }
}

static long long slot_get(const ttype_t *ty, const unsigned char *buf, size_t e, int s)
{
    const unsigned char *p = buf + e * ty->extent + ty->off[s];
    if (ty->isdouble) {
        double d;
        memcpy(&d, p, sizeof d);
        return (long long)d;
    }
    int i;
    memcpy(&i, p, sizeof i);
    return i;
}

/* ---- operations ----------------------------------------------------- */

enum { O_NONE, O_SUM, O_MAX, O_USUM, O_AFFINE, O_COUNT };
static const char *op_names[O_COUNT] = {"-", "MPI_SUM", "MPI_MAX", "user-commutative(sum mod 65521)",
                                        "user-noncommutative(affine composition)"};
static MPI_Op ops[O_COUNT];

#define USUM_MOD 65521u
#define AFFINE_MASK 0x7fffffffu

/* (a1, b1) o (a2, b2) = (a1 a2, a1 b2 + b1): `l` covers the lower ranks. */
static void affine(long long *l, long long a2, long long b2)
{
    uint64_t a1 = (uint64_t)l[0], b1 = (uint64_t)l[1];
    l[0] = (long long)((a1 * (uint64_t)a2) & AFFINE_MASK);
    l[1] = (long long)((a1 * (uint64_t)b2 + b1) & AFFINE_MASK);
}

/* acc (lower ranks) = acc op in, one element. */
static void combine(int op, int nslots, long long *acc, const long long *in)
{
    if (op == O_AFFINE) {
        affine(acc, in[0], in[1]);
        return;
    }
    for (int s = 0; s < nslots; s++) {
        if (op == O_SUM)
            acc[s] += in[s];
        else if (op == O_MAX)
            acc[s] = in[s] > acc[s] ? in[s] : acc[s];
        else
            acc[s] = (long long)(((unsigned long long)acc[s] + (unsigned long long)in[s]) %
                                 USUM_MOD);
    }
}

/* MPI user function: inout = in op inout, element by element. */
static void user_fn(int op, void *in, void *inout, int *len, MPI_Datatype *dt)
{
    const ttype_t *ty = type_of(*dt);
    if (ty == NULL || ty->isdouble) {
        tt_fail("user operation called with an unexpected datatype");
        return;
    }
    for (int e = 0; e < *len; e++) {
        long long a[2], b[2];
        for (int s = 0; s < ty->nslots; s++) {
            a[s] = slot_get(ty, in, (size_t)e, s);
            b[s] = slot_get(ty, inout, (size_t)e, s);
        }
        combine(op, ty->nslots, a, b);
        for (int s = 0; s < ty->nslots; s++)
            slot_put(ty, inout, (size_t)e, s, a[s]);
    }
}

static void usum_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    user_fn(O_USUM, in, inout, len, dt);
}

static void affine_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    user_fn(O_AFFINE, in, inout, len, dt);
}

static void ops_create(void)
{
    ops[O_NONE] = MPI_OP_NULL;
    ops[O_SUM] = MPI_SUM;
    ops[O_MAX] = MPI_MAX;
    tt_check_mpi(MPI_Op_create(usum_fn, 1, &ops[O_USUM]), "MPI_Op_create(usum)");
    tt_check_mpi(MPI_Op_create(affine_fn, 0, &ops[O_AFFINE]), "MPI_Op_create(affine)");
}

/* (datatype, operation) pairs: reductions, and the data movers' types. */
static const struct {
    int type, op;
} red_combos[] = {{T_INT, O_SUM},   {T_INT, O_MAX},     {T_DOUBLE, O_SUM}, {T_DOUBLE, O_MAX},
                  {T_VEC, O_USUM},  {T_PAIR, O_AFFINE}, {T_VEC, O_AFFINE}},
  move_combos[] = {{T_INT, O_NONE}, {T_DOUBLE, O_NONE}, {T_VEC, O_NONE}, {T_PAIR, O_NONE}};

/* ---- inputs and references ---------------------------------------------- */

static long long value(int op, uint64_t h, int s)
{
    switch (op) {
    case O_SUM: return (long long)(h % 41) - 20;
    case O_USUM: return (long long)(h % USUM_MOD);
    case O_AFFINE:
        return s == 0 ? (long long)((h & AFFINE_MASK) | 1) : (long long)((h >> 32) & AFFINE_MASK);
    default: return (long long)(h % 2000001) - 1000000; /* exact in double */
    }
}

/* Element `idx` of world rank g's input. */
static void input_elem(int t, int op, int g, size_t idx, uint64_t salt, long long *v)
{
    for (int s = 0; s < types[t].nslots; s++)
        v[s] = value(op, tt_mix((uint64_t)g, (uint64_t)idx * 2 + s, salt), s);
}

/* buf[0..n) = elements [first, first + n) of world rank g's input; gaps
 * get the sentinel. */
static void fill_input(int t, int op, int g, size_t first, size_t n, uint64_t salt,
                       unsigned char *buf)
{
    long long v[2];
    memset(buf, TT_SENTINEL_BYTE, n * types[t].extent);
    for (size_t e = 0; e < n; e++) {
        input_elem(t, op, g, first + e, salt, v);
        for (int s = 0; s < types[t].nslots; s++)
            slot_put(&types[t], buf, e, s, v[s]);
    }
}

/* buf[0..n) = the reduction over the communicator's ranks, in rank order,
 * of elements [first, first + n). */
static void fill_reduced(const tt_comm_t *c, int t, int op, size_t first, size_t n,
                         uint64_t salt, unsigned char *buf)
{
    long long acc[2], in[2];
    memset(buf, TT_SENTINEL_BYTE, n * types[t].extent);
    for (size_t e = 0; e < n; e++) {
        input_elem(t, op, c->world_of[0], first + e, salt, acc);
        for (int r = 1; r < c->size; r++) {
            input_elem(t, op, c->world_of[r], first + e, salt, in);
            combine(op, types[t].nslots, acc, in);
        }
        for (int s = 0; s < types[t].nslots; s++)
            slot_put(&types[t], buf, e, s, acc[s]);
    }
}

/* ---- checking --------------------------------------------------------- */

static long ncalls;
static char label[320];

static void expect(const char *what, int t, const unsigned char *got, const unsigned char *want,
                   size_t n)
{
    size_t ext = (size_t)types[t].extent;
    if (memcmp(got, want, n * ext) == 0)
        return;
    size_t first = 0, nbad = 0;
    for (size_t e = n; e-- > 0;)
        if (memcmp(got + e * ext, want + e * ext, ext)) {
            first = e;
            nbad++;
        }
    tt_fail("%s: %zu of %zu elements wrong, first %zu (slot 0 is %lld, expected %lld): %s", what,
            nbad, n, first, slot_get(&types[t], got, first, 0),
            slot_get(&types[t], want, first, 0), label);
}

static void guards(const tt_buf_t *b, const char *what)
{
    long off;
    if (!tt_buf_guards_ok(b, &off))
        tt_fail("%s: byte at offset %ld outside the buffer was overwritten: %s", what, off,
                label);
}

static void mpi_ok(int rc, const char *call)
{
    ncalls++;
    if (rc != MPI_SUCCESS) {
        char err[MPI_MAX_ERROR_STRING];
        int len = 0;
        MPI_Error_string(rc, err, &len);
        tt_fail("%s returned %d (%s): %s", call, rc, err, label);
        MPI_Abort(MPI_COMM_WORLD, 3); /* the other ranks may be waiting */
    }
}

/* ---- one case per primitive ------------------------------------------- */

typedef struct {
    const tt_comm_t *c;
    int t, op;
    size_t count; /* per rank (allgather, reduce_scatter*, alltoall) or total */
    int root, inplace;
    uint64_t salt;
} case_t;

static tt_buf_t b_send, b_recv, b_want, b_orig;

/* --random: this allgather or alltoall sends contig(2,MPI_INT) as itself */
static int pair_as_is;

/* The buffer a data mover sends: contig(2,MPI_INT) goes out as 2 MPI_INT
 * (a different datatype with the same type signature). */
static MPI_Datatype send_type(const case_t *k, size_t *count)
{
    if (k->t == T_PAIR && !pair_as_is) {
        *count *= 2;
        return MPI_INT;
    }
    return types[k->t].dt;
}

static void run_bcast(const case_t *k)
{
    const ttype_t *ty = &types[k->t];
    const size_t bytes = k->count * ty->extent;
    tt_buf_prepare(&b_recv, bytes);
    tt_buf_prepare(&b_want, bytes);
    fill_input(k->t, O_NONE, k->c->world_of[k->root], 0, k->count, k->salt, b_want.p);
    if (k->c->rank == k->root)
        memcpy(b_recv.p, b_want.p, bytes);
    else
        fill_input(k->t, O_NONE, k->c->world_of[k->c->rank], 0, k->count, ~k->salt, b_recv.p);
    mpi_ok(MPI_Bcast(b_recv.p, (int)k->count, ty->dt, k->root, k->c->comm), "MPI_Bcast");
    expect("result", k->t, b_recv.p, b_want.p, k->count);
    guards(&b_recv, "buffer");
}

static void run_reduce(const case_t *k)
{
    const ttype_t *ty = &types[k->t];
    const size_t bytes = k->count * ty->extent;
    const int me = k->c->world_of[k->c->rank], at_root = k->c->rank == k->root;
    tt_buf_prepare(&b_send, bytes);
    tt_buf_prepare(&b_orig, bytes);
    tt_buf_prepare(&b_recv, bytes);
    fill_input(k->t, k->op, me, 0, k->count, k->salt, b_orig.p);
    memcpy(b_send.p, b_orig.p, bytes);
    if (k->inplace && at_root)
        memcpy(b_recv.p, b_orig.p, bytes);
    else
        tt_buf_fill_sentinel(&b_recv);
    const void *sbuf = k->inplace && at_root ? MPI_IN_PLACE : (const void *)b_send.p;
    mpi_ok(MPI_Reduce(sbuf, b_recv.p, (int)k->count, ty->dt, ops[k->op], k->root, k->c->comm),
           "MPI_Reduce");
    if (at_root) {
        tt_buf_prepare(&b_want, bytes);
        fill_reduced(k->c, k->t, k->op, 0, k->count, k->salt, b_want.p);
        expect("result", k->t, b_recv.p, b_want.p, k->count);
    } else {
        tt_buf_prepare(&b_want, bytes);
        memset(b_want.p, TT_SENTINEL_BYTE, bytes);
        expect("receive buffer of a non-root", k->t, b_recv.p, b_want.p, k->count);
    }
    if (!(k->inplace && at_root))
        expect("send buffer changed", k->t, b_send.p, b_orig.p, k->count);
    guards(&b_send, "send buffer");
    guards(&b_recv, "receive buffer");
}

static void run_allgather(const case_t *k)
{
    const ttype_t *ty = &types[k->t];
    const int p = k->c->size, r = k->c->rank;
    const size_t unit = k->count * ty->extent;
    tt_buf_prepare(&b_want, unit * p);
    for (int i = 0; i < p; i++)
        fill_input(k->t, O_NONE, k->c->world_of[i], 0, k->count, k->salt, b_want.p + unit * i);
    tt_buf_prepare(&b_recv, unit * p);
    tt_buf_fill_sentinel(&b_recv);
    tt_buf_prepare(&b_send, unit);
    memcpy(b_send.p, b_want.p + unit * r, unit);
    size_t scount = k->count;
    MPI_Datatype sdt = send_type(k, &scount);
    if (k->inplace)
        memcpy(b_recv.p + unit * r, b_send.p, unit);
    mpi_ok(MPI_Allgather(k->inplace ? MPI_IN_PLACE : (const void *)b_send.p, (int)scount, sdt,
                         b_recv.p, (int)k->count, ty->dt, k->c->comm),
           "MPI_Allgather");
    expect("result", k->t, b_recv.p, b_want.p, k->count * p);
    if (!k->inplace)
        expect("send buffer changed", k->t, b_send.p, b_want.p + unit * r, k->count);
    guards(&b_send, "send buffer");
    guards(&b_recv, "receive buffer");
}

/* Irregular counts from `count`: zeros, small and large units, the same on
 * every rank. */
static int irregular(int i, size_t count)
{
    if (count == 0 || i % 3 == 1)
        return 0;
    return (int)((count * (size_t)(i % 4 + 1)) / 2 + (size_t)i % 2);
}

/* reduce_scatter_block (counts NULL) and reduce_scatter. */
static void run_reduce_scatter(const case_t *k, int block)
{
    const ttype_t *ty = &types[k->t];
    const int p = k->c->size, r = k->c->rank, me = k->c->world_of[r];
    int *counts = malloc(sizeof(int) * p);
    size_t total = 0, mine_at = 0;
    for (int i = 0; i < p; i++) {
        counts[i] = block ? (int)k->count : irregular(i, k->count);
        if (i < r)
            mine_at += (size_t)counts[i];
        total += (size_t)counts[i];
    }
    const size_t mine = (size_t)counts[r], bytes = total * ty->extent;
    tt_buf_prepare(&b_orig, bytes);
    fill_input(k->t, k->op, me, 0, total, k->salt, b_orig.p);
    tt_buf_prepare(&b_send, bytes);
    memcpy(b_send.p, b_orig.p, bytes);
    tt_buf_prepare(&b_recv, k->inplace ? bytes : mine * ty->extent);
    if (k->inplace)
        memcpy(b_recv.p, b_orig.p, bytes);
    else
        tt_buf_fill_sentinel(&b_recv);
    const void *sbuf = k->inplace ? MPI_IN_PLACE : (const void *)b_send.p;
    if (block)
        mpi_ok(MPI_Reduce_scatter_block(sbuf, b_recv.p, (int)k->count, ty->dt, ops[k->op],
                                        k->c->comm),
               "MPI_Reduce_scatter_block");
    else
        mpi_ok(MPI_Reduce_scatter(sbuf, b_recv.p, counts, ty->dt, ops[k->op], k->c->comm),
               "MPI_Reduce_scatter");
    tt_buf_prepare(&b_want, mine * ty->extent);
    fill_reduced(k->c, k->t, k->op, mine_at, mine, k->salt, b_want.p);
    expect("result", k->t, b_recv.p, b_want.p, mine);
    if (!k->inplace)
        expect("send buffer changed", k->t, b_send.p, b_orig.p, total);
    guards(&b_send, "send buffer");
    guards(&b_recv, "receive buffer");
    free(counts);
}

static void run_alltoall(const case_t *k)
{
    const ttype_t *ty = &types[k->t];
    const int p = k->c->size, r = k->c->rank, me = k->c->world_of[r];
    const size_t unit = k->count * ty->extent;
    /* Rank g's block for rank j is elements [j * count, (j + 1) * count) of
     * its input. */
    tt_buf_prepare(&b_orig, unit * p);
    fill_input(k->t, O_NONE, me, 0, k->count * p, k->salt, b_orig.p);
    tt_buf_prepare(&b_want, unit * p);
    for (int i = 0; i < p; i++)
        fill_input(k->t, O_NONE, k->c->world_of[i], k->count * r, k->count, k->salt,
                   b_want.p + unit * i);
    tt_buf_prepare(&b_send, unit * p);
    memcpy(b_send.p, b_orig.p, unit * p);
    tt_buf_prepare(&b_recv, unit * p);
    if (k->inplace)
        memcpy(b_recv.p, b_orig.p, unit * p);
    else
        tt_buf_fill_sentinel(&b_recv);
    size_t scount = k->count;
    MPI_Datatype sdt = send_type(k, &scount);
    mpi_ok(MPI_Alltoall(k->inplace ? MPI_IN_PLACE : (const void *)b_send.p, (int)scount, sdt,
                        b_recv.p, (int)k->count, ty->dt, k->c->comm),
           "MPI_Alltoall");
    expect("result", k->t, b_recv.p, b_want.p, k->count * p);
    if (!k->inplace)
        expect("send buffer changed", k->t, b_send.p, b_orig.p, k->count * p);
    guards(&b_send, "send buffer");
    guards(&b_recv, "receive buffer");
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Rounds of barriers, a different rank late each round: no rank may leave
 * before the last one entered (one machine, one monotonic clock). */
static void run_barrier(const tt_comm_t *c, int rounds)
{
    double *t = calloc(2 * (size_t)rounds, sizeof(double));
    for (int i = 0; i < rounds; i++) {
        if (c->rank == i % c->size) {
            struct timespec d = {0, 2000000}; /* 2 ms */
            nanosleep(&d, NULL);
        }
        t[2 * i] = now();
        mpi_ok(MPI_Barrier(c->comm), "MPI_Barrier");
        t[2 * i + 1] = now();
    }
    double *all = c->rank == 0 ? malloc(sizeof(double) * 2 * rounds * c->size) : NULL;
    tt_check_mpi(MPI_Gather(t, 2 * rounds, MPI_DOUBLE, all, 2 * rounds, MPI_DOUBLE, 0, c->comm),
                 "MPI_Gather(barrier times)");
    for (int i = 0; c->rank == 0 && i < rounds; i++) {
        double last_in = 0, first_out = 1e300;
        for (int r = 0; r < c->size; r++) {
            last_in = all[(size_t)r * 2 * rounds + 2 * i] > last_in
                          ? all[(size_t)r * 2 * rounds + 2 * i]
                          : last_in;
            first_out = all[(size_t)r * 2 * rounds + 2 * i + 1] < first_out
                            ? all[(size_t)r * 2 * rounds + 2 * i + 1]
                            : first_out;
        }
        if (first_out < last_in)
            tt_fail("comm %s (%d ranks): barrier round %d: a rank left %.6f s before the last "
                    "one entered",
                    c->name, c->size, i, last_in - first_out);
    }
    free(all);
    free(t);
}

/* ---- the matrix ----------------------------------------------------- */

enum { P_BCAST, P_REDUCE, P_ALLGATHER, P_RSB, P_RS, P_ALLTOALL, P_BARRIER, P_COUNT };
static const char *prim_names[P_COUNT] = {"bcast",          "reduce",   "allgather",
                                          "reduce_scatter_block", "reduce_scatter",
                                          "alltoall",       "barrier"};

/* One call of case k of a data primitive (not barrier). */
static void call_prim(int prim, const case_t *k)
{
    switch (prim) {
    case P_BCAST:
        run_bcast(k);
        break;
    case P_REDUCE:
        run_reduce(k);
        break;
    case P_ALLGATHER:
        run_allgather(k);
        break;
    case P_RSB:
        run_reduce_scatter(k, 1);
        break;
    case P_RS:
        run_reduce_scatter(k, 0);
        break;
    default:
        run_alltoall(k);
        break;
    }
}

typedef struct {
    int prims[P_COUNT];
    const char *comms;
    long max_count;
    int all_roots_max;
    int verbose;
    int memo_check;
    long random_calls; /* --random N */
    uint64_t seed;     /* --seed S */
    int float_sums;    /* --float-sums: --random's reductions are MPI_SUM of doubles */
} options_t;

static const long big_counts[] = {65537};

static void run_prim(const tt_comm_t *c, int ci, int prim, const options_t *opt)
{
    const int rooted = prim == P_BCAST || prim == P_REDUCE;
    const int reduces = prim == P_REDUCE || prim == P_RSB || prim == P_RS;
    const int ncombos = reduces ? (int)(sizeof red_combos / sizeof red_combos[0])
                                : (int)(sizeof move_combos / sizeof move_combos[0]);
    long counts[8];
    /* Alltoall moves count * size elements per rank: the biggest count
     * only on small communicators. */
    long max = prim == P_ALLTOALL && c->size > 4 && opt->max_count > 1000 ? 1000
                                                                          : opt->max_count;
    int ncounts = tt_case_counts(c->size, max, big_counts, 1, counts);
    int roots[3] = {0, c->size - 1, c->size / 2}, nroots = rooted ? 3 : 1;

    if (prim == P_BARRIER) {
        snprintf(label, sizeof label, "comm %s (%d ranks), MPI_Barrier", c->name, c->size);
        run_barrier(c, 2 * c->size + 4);
        return;
    }
    for (int j = 0; j < ncombos; j++) {
        const int t = reduces ? red_combos[j].type : move_combos[j].type;
        const int op = reduces ? red_combos[j].op : move_combos[j].op;
        for (int n = 0; n < ncounts; n++) {
            /* every root at small sizes, else the first, last and middle */
            int nr = rooted && c->size <= opt->all_roots_max ? c->size : nroots;
            for (int ri = 0; ri < nr; ri++) {
                int root = c->size <= opt->all_roots_max ? ri : roots[ri];
                if (ri > 0 && !rooted)
                    break;
                for (int inplace = 0; inplace <= 1; inplace++) {
                    case_t k = {c, t, op, (size_t)counts[n], rooted ? root : 0, inplace,
                                tt_mix((uint64_t)ci, (uint64_t)(prim * 64 + j),
                                       (uint64_t)counts[n] * 1024 + (uint64_t)root)};
                    snprintf(label, sizeof label,
                             "comm %s (%d ranks), %s, %s, %s, count %ld, root %d, %s", c->name,
                             c->size, prim_names[prim], types[t].name, op_names[op], counts[n],
                             k.root, inplace ? "MPI_IN_PLACE" : "separate buffers");
                    double t0 = MPI_Wtime();
                    call_prim(prim, &k);
                    if (opt->verbose && c->rank == 0)
                        tt_note("%.6f s: %s", MPI_Wtime() - t0, label);
                    if (prim == P_BCAST)
                        break; /* MPI_Bcast has no MPI_IN_PLACE */
                }
            }
        }
    }
}

/* Repeated calls, interleaved with others: a broadcast repeats with the
 * same arguments (so coll/topo finds it in its memo of repeated calls)
 * after four reductions of new sizes and the unit primitives have run.
 * Inputs change with every call; results are checked as everywhere. */
static void run_interleaved(const tt_comm_t *c, int ci)
{
    static const int prims[] = {P_BCAST,     P_REDUCE, P_REDUCE,   P_REDUCE, P_REDUCE,
                                P_ALLGATHER, P_RSB,    P_ALLTOALL, P_BCAST};
    const int nprims = (int)(sizeof prims / sizeof prims[0]);
    const size_t base = (size_t)c->size + 3;
    int nreduce = 0;
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < nprims; i++) {
            const int prim = prims[i], reduces = prim == P_REDUCE || prim == P_RSB;
            /* every reduction a new size; the others the same every time */
            const size_t count = prim == P_REDUCE ? base + (size_t)++nreduce : base;
            case_t k = {c, T_INT, reduces ? O_SUM : O_NONE, count, c->size - 1, 0,
                        tt_mix((uint64_t)ci, (uint64_t)(prim * 64 + 63),
                               (uint64_t)(round * 64 + i))};
            snprintf(label, sizeof label,
                     "comm %s (%d ranks), interleaved round %d call %d, %s, MPI_INT, count %zu",
                     c->name, c->size, round, i, prim_names[prim], count);
            call_prim(prim, &k);
        }
    }
}

/* An application cycling through counts (1 to ncounts) and roots (each
 * call from the next root, or every call from root 0): reductions and
 * broadcasts, with and without MPI_IN_PLACE by turns of 7, `rounds` times
 * around.  By default 100 counts from every root twice around, more than
 * coll/topo's memo of repeated calls holds (64 entries, 4 per set), so
 * that entries are replaced, found again and their plans (compiled for
 * one call, or recompiled elsewhere for the other windows) reused.
 * --memo-check: only 40 counts from root 0, three times around, which the
 * memo holds (mpi/cases/decision.cases checks its report: 40 calls of
 * each decided, 80 found).  --memo-grow: 200 counts from root 0, four
 * times around, more than the memo first holds, so that it grows and holds
 * them (decision.cases checks that most calls of the last rounds are
 * found).  Results are checked as everywhere. */
static void run_cycling(const tt_comm_t *c, int ci, int ncounts, int rounds, int roots)
{
    for (int round = 0; round < rounds; round++) {
        for (int i = 0; i < ncounts; i++) {
            const size_t count = (size_t)i + 1;
            const int root = roots ? i % c->size : 0, inplace = (i / 7 + round) % 2;
            const uint64_t salt = tt_mix((uint64_t)ci, (uint64_t)round, (uint64_t)i);
            case_t k = {c, T_INT, O_SUM, count, root, inplace, salt};
            snprintf(label, sizeof label,
                     "comm %s (%d ranks), cycling round %d call %d, reduce, MPI_INT, count %zu, "
                     "root %d%s",
                     c->name, c->size, round, i, count, root, inplace ? ", MPI_IN_PLACE" : "");
            run_reduce(&k);
            k.op = O_NONE;
            k.inplace = 0;
            snprintf(label, sizeof label,
                     "comm %s (%d ranks), cycling round %d call %d, bcast, MPI_INT, count %zu, "
                     "root %d",
                     c->name, c->size, round, i, count, root);
            run_bcast(&k);
        }
    }
}

/* --random N --seed S: N calls in a random sequence (the same on every
 * rank of a communicator: splitmix64 from the seed and the communicator's
 * index) of the selected primitives, each call with a random datatype and
 * operation (the tables above), root and MPI_IN_PLACE where the primitive
 * has them.  Half the counts come from a pool of 8 per communicator (so
 * that calls repeat: coll/topo finds them in its memo, with the same or
 * other windows, roots and datatypes), half from 0 to --max-count (new
 * calls, replacing memo entries); one call in four repeats the primitive's
 * previous call, with new inputs and MPI_IN_PLACE toggled one time in
 * two.  Allgather and alltoall send contig(2,MPI_INT) as 2 MPI_INT or as
 * itself, at random; alltoall on more than 4 ranks stays at 1000 or less.
 * A failure's label names the seed and the call's index (from 0). */
static uint64_t rng_state;

static uint64_t rng_next(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static size_t rng_below(size_t n)
{
    return (size_t)(rng_next() % n);
}

static void run_random(const tt_comm_t *c, int ci, const options_t *opt)
{
    const size_t max = (size_t)opt->max_count, small = max < 64 ? max : 64;
    int sel[P_COUNT], nsel = 0;
    size_t pool[8];
    case_t last[P_COUNT];
    int have[P_COUNT] = {0};
    for (int p = 0; p < P_COUNT; p++)
        if (opt->prims[p])
            sel[nsel++] = p;
    rng_state = tt_mix(opt->seed, (uint64_t)ci, 0x52414e44u);
    for (int i = 0; i < 8; i++) /* half small, half up to --max-count */
        pool[i] = rng_below((i < 4 ? small : max) + 1);
    for (long i = 0; nsel > 0 && i < opt->random_calls; i++) {
        const int prim = sel[rng_below((size_t)nsel)];
        const int rooted = prim == P_BCAST || prim == P_REDUCE;
        const int reduces = prim == P_REDUCE || prim == P_RSB || prim == P_RS;
        const uint64_t salt = tt_mix(opt->seed, (uint64_t)ci, (uint64_t)i);
        case_t k = {c, 0, 0, 0, 0, 0, salt};
        if (prim == P_BARRIER) {
            snprintf(label, sizeof label, "comm %s (%d ranks), random seed %llu call %ld, barrier",
                     c->name, c->size, (unsigned long long)opt->seed, i);
            run_barrier(c, 1);
            continue;
        }
        if (have[prim] && rng_below(4) == 0) {
            k = last[prim];
            k.salt = salt;
            k.inplace ^= prim != P_BCAST && rng_below(2);
        } else {
            const int j = (int)rng_below(reduces ? sizeof red_combos / sizeof red_combos[0]
                                                 : sizeof move_combos / sizeof move_combos[0]);
            k.t = reduces ? red_combos[j].type : move_combos[j].type;
            k.op = reduces ? red_combos[j].op : move_combos[j].op;
            if (reduces && opt->float_sums) {
                k.t = T_DOUBLE;
                k.op = O_SUM;
            }
            k.count = rng_below(2) ? pool[rng_below(8)] : rng_below(max + 1);
            if (prim == P_ALLTOALL && c->size > 4 && k.count > 1000)
                k.count %= 1001;
            k.root = rooted ? (int)rng_below((size_t)c->size) : 0;
            k.inplace = prim != P_BCAST && rng_below(2);
        }
        pair_as_is = k.t == T_PAIR && (prim == P_ALLGATHER || prim == P_ALLTOALL) && rng_below(2);
        last[prim] = k;
        have[prim] = 1;
        snprintf(label, sizeof label,
                 "comm %s (%d ranks), random seed %llu call %ld, %s, %s%s, %s, count %zu, "
                 "root %d%s",
                 c->name, c->size, (unsigned long long)opt->seed, i, prim_names[prim],
                 types[k.t].name, pair_as_is ? " (sent as itself)" : "", op_names[k.op], k.count,
                 k.root, k.inplace ? ", MPI_IN_PLACE" : "");
        call_prim(prim, &k);
        if (opt->verbose && c->rank == 0)
            tt_note("%s", label);
    }
}

/* The Cartesian communicators: 2-D (periodic in the first dimension) and
 * 3-D, over every rank of MPI_COMM_WORLD, ranks possibly reordered. */
static int cart_create(tt_comm_t *out, int ndims, const char *name)
{
    int wsize, dims[3] = {0, 0, 0}, periods[3] = {1, 0, 1};
    MPI_Group g, wg;
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    tt_check_mpi(MPI_Dims_create(wsize, ndims, dims), "MPI_Dims_create");
    tt_check_mpi(MPI_Cart_create(MPI_COMM_WORLD, ndims, dims, periods, 1, &out->comm),
                 "MPI_Cart_create");
    MPI_Comm_set_name(out->comm, name);
    MPI_Comm_set_errhandler(out->comm, MPI_ERRORS_RETURN);
    MPI_Comm_rank(out->comm, &out->rank);
    MPI_Comm_size(out->comm, &out->size);
    out->name = name;
    out->owned = 1;
    out->world_of = malloc(sizeof(int) * out->size);
    int *ident = malloc(sizeof(int) * out->size);
    for (int i = 0; i < out->size; i++)
        ident[i] = i;
    MPI_Comm_group(out->comm, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_translate_ranks(g, out->size, ident, wg, out->world_of);
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    free(ident);
    return 1;
}

static int wanted(const char *list, const char *name)
{
    if (list == NULL)
        return 1;
    size_t n = strlen(name);
    for (const char *p = list; (p = strstr(p, name)) != NULL; p += n)
        if ((p == list || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    options_t opt = {{0}, NULL, 65537, 8, 0, 0, 0, 1, 0};
    const char *prims = NULL;
    int wrank, wsize, bad = 0;

    MPI_Init(&argc, &argv);
    tt_init("test_primitives");
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--prims") && i + 1 < argc)
            prims = argv[++i];
        else if (!strcmp(argv[i], "--comms") && i + 1 < argc)
            opt.comms = argv[++i];
        else if (!strcmp(argv[i], "--max-count") && i + 1 < argc)
            opt.max_count = strtol(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--all-roots-max") && i + 1 < argc)
            opt.all_roots_max = (int)strtol(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--verbose"))
            opt.verbose = 1;
        else if (!strcmp(argv[i], "--memo-check"))
            opt.memo_check = 1;
        else if (!strcmp(argv[i], "--memo-grow"))
            opt.memo_check = 2;
        else if (!strcmp(argv[i], "--random") && i + 1 < argc)
            opt.random_calls = strtol(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--float-sums"))
            opt.float_sums = 1;
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            opt.seed = strtoull(argv[++i], NULL, 0);
        else
            bad = 1;
    }
    for (int p = 0; p < P_COUNT; p++)
        opt.prims[p] = wanted(prims, prim_names[p]);
    if (bad) {
        if (wrank == 0)
            fprintf(stderr,
                    "usage: %s [--prims LIST] [--comms LIST] [--max-count N] "
                    "[--all-roots-max N] [--verbose] [--memo-check | --memo-grow | "
                    "--random N [--seed S] [--float-sums]]\n",
                    argv[0]);
        MPI_Finalize();
        return 2;
    }

    types_create();
    ops_create();
    tt_comm_t comms[TT_MAX_COMMS + 2];
    int ncomms = tt_comms_create(comms, opt.comms == NULL ? "world,dup,split,reversed" : opt.comms);
    if (wanted(opt.comms, "cart2d"))
        ncomms += cart_create(&comms[ncomms], 2, "cart2d");
    if (wanted(opt.comms, "cart3d"))
        ncomms += cart_create(&comms[ncomms], 3, "cart3d");

    for (int ci = 0; ci < ncomms; ci++) {
        double t0 = MPI_Wtime();
        long before = ncalls;
        if (opt.random_calls > 0) {
            run_random(&comms[ci], ci, &opt);
        } else if (1 == opt.memo_check) {
            run_cycling(&comms[ci], ci, 40, 3, 0);
        } else if (2 == opt.memo_check) {
            run_cycling(&comms[ci], ci, 200, 4, 0);
        } else {
            for (int p = 0; p < P_COUNT; p++)
                if (opt.prims[p])
                    run_prim(&comms[ci], ci, p, &opt);
            if (opt.prims[P_BCAST] && opt.prims[P_REDUCE] && opt.prims[P_ALLGATHER] &&
                opt.prims[P_RSB] && opt.prims[P_ALLTOALL])
                run_interleaved(&comms[ci], ci);
            if (opt.prims[P_BCAST] && opt.prims[P_REDUCE])
                run_cycling(&comms[ci], ci, 100, 2, 1);
        }
        if (comms[ci].rank == 0 && wrank == 0)
            tt_note("comm %s (%d ranks): %ld calls in %.2f s", comms[ci].name, comms[ci].size,
                    ncalls - before, MPI_Wtime() - t0);
    }

    tt_comms_free(comms, ncomms);
    tt_buf_free(&b_send);
    tt_buf_free(&b_recv);
    tt_buf_free(&b_want);
    tt_buf_free(&b_orig);
    MPI_Op_free(&ops[O_USUM]);
    MPI_Op_free(&ops[O_AFFINE]);
    MPI_Type_free(&types[T_VEC].dt);
    MPI_Type_free(&types[T_PAIR].dt);

    long total = tt_total_failures();
    if (wrank == 0)
        printf("test_primitives: %d ranks, %ld calls checked on rank 0, %ld failures on all "
               "ranks\n",
               wsize, ncalls, total);
    MPI_Finalize();
    return (total > 0 || tt_failures() > 0) ? 1 : 0;
}
