/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI_Allreduce over a matrix of communicators, datatypes, operations,
 * counts and MPI_IN_PLACE, checked against a reference every rank computes
 * on its own.
 *
 * Every input element is a function of (world rank, element index, case),
 * so each rank folds all contributions itself, in communicator rank order,
 * and compares its result with that reference byte for byte; the values are
 * chosen so that the exact result does not depend on the combination order
 * (small integers, also in float and double) except where the operation is
 * non-commutative, where the order is the point, and for the sums that
 * round (MPI_SUM and a user-defined sum of float and double values that
 * cancel: another grouping gives other bits), checked against the reference
 * within a rounding bound.  Results must also agree bitwise across the
 * ranks of each communicator (hashes compared with MPI_Gather once per
 * communicator): a reduction must give every rank the same bits.  Bytes the collective must not
 * write (guards around every buffer, gaps inside a non-contiguous
 * datatype) hold a sentinel that is checked after every call, and the send
 * buffer must come back unchanged.
 *
 * Open MPI 4.1 refuses predefined operations on derived datatypes
 * (MPI_ERR_OP), so the derived datatypes here are reduced with user-defined
 * operations that read the datatype's layout.
 *
 * Usage: test_allreduce [--max-count N] [--comms world,dup,split,reversed]
 *                       [--verbose] [--rss-growth-max MIB] [--rounding-only]
 * (--rounding-only: only the sums that round.)
 * Exit status 0 when every check passed on every rank.
 */
#include "test_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- datatypes ------------------------------------------------------ */

enum kind { K_INT, K_FLOAT, K_DOUBLE, K_LL };

enum { T_INT, T_FLOAT, T_DOUBLE, T_LL, T_2INT, T_PAIR, T_VEC, T_COUNT };

typedef struct {
    const char *name;
    MPI_Datatype dt;
    enum kind kind; /* type of each scalar slot */
    int ssize;      /* bytes per slot */
    int nslots;     /* slots per element */
    int off[2];     /* byte offset of each slot within an element */
    int extent;     /* bytes per element; the rest are gaps */
} ttype_t;

static ttype_t types[T_COUNT] = {
    [T_INT] = {"MPI_INT", MPI_DATATYPE_NULL, K_INT, sizeof(int), 1, {0}, sizeof(int)},
    [T_FLOAT] = {"MPI_FLOAT", MPI_DATATYPE_NULL, K_FLOAT, sizeof(float), 1, {0}, sizeof(float)},
    [T_DOUBLE] =
        {"MPI_DOUBLE", MPI_DATATYPE_NULL, K_DOUBLE, sizeof(double), 1, {0}, sizeof(double)},
    [T_LL] =
        {"MPI_LONG_LONG", MPI_DATATYPE_NULL, K_LL, sizeof(long long), 1, {0}, sizeof(long long)},
    /* (value, index) */
    [T_2INT] =
        {"MPI_2INT", MPI_DATATYPE_NULL, K_INT, sizeof(int), 2, {0, sizeof(int)}, 2 * sizeof(int)},
    /* contiguous(2, MPI_INT): an affine map (a, b) */
    [T_PAIR] = {"contig(2,MPI_INT)",
                MPI_DATATYPE_NULL,
                K_INT,
                sizeof(int),
                2,
                {0, sizeof(int)},
                2 * sizeof(int)},
    /* vector(2,1,2,MPI_INT) resized to 4 ints: ints 0 and 2 are data, ints 1
     * and 3 are gaps that must never be written */
    [T_VEC] = {"resized(vector(2,1,2,MPI_INT),16)",
               MPI_DATATYPE_NULL,
               K_INT,
               sizeof(int),
               2,
               {0, 2 * sizeof(int)},
               4 * sizeof(int)},
};

static void types_create(void)
{
    MPI_Datatype v;
    types[T_INT].dt = MPI_INT;
    types[T_FLOAT].dt = MPI_FLOAT;
    types[T_DOUBLE].dt = MPI_DOUBLE;
    types[T_LL].dt = MPI_LONG_LONG;
    types[T_2INT].dt = MPI_2INT;
    tt_check_mpi(MPI_Type_contiguous(2, MPI_INT, &types[T_PAIR].dt), "MPI_Type_contiguous");
    tt_check_mpi(MPI_Type_commit(&types[T_PAIR].dt), "MPI_Type_commit");
    tt_check_mpi(MPI_Type_vector(2, 1, 2, MPI_INT, &v), "MPI_Type_vector");
    tt_check_mpi(MPI_Type_create_resized(v, 0, 4 * sizeof(int), &types[T_VEC].dt),
                 "MPI_Type_create_resized");
    tt_check_mpi(MPI_Type_commit(&types[T_VEC].dt), "MPI_Type_commit");
    MPI_Type_free(&v);

    /* The layout table above must match what MPI thinks. */
    for (int t = 0; t < T_COUNT; t++) {
        MPI_Aint lb, extent;
        int size;
        MPI_Type_get_extent(types[t].dt, &lb, &extent);
        MPI_Type_size(types[t].dt, &size);
        if (lb != 0 || extent != types[t].extent || size != types[t].ssize * types[t].nslots)
            tt_fail("datatype %s: lb %ld extent %ld size %d, expected 0 %d %d", types[t].name,
                    (long)lb, (long)extent, size, types[t].extent,
                    types[t].ssize * types[t].nslots);
    }
}

static void types_free(void)
{
    MPI_Type_free(&types[T_PAIR].dt);
    MPI_Type_free(&types[T_VEC].dt);
}

/* ---- operations ----------------------------------------------------- */

enum {
    O_SUM,
    O_PROD,
    O_MAX,
    O_MIN,
    O_BAND,
    O_BXOR,
    O_MINLOC,
    O_MAXLOC,
    O_USUM,   /* user-defined, commutative: sum modulo USUM_MOD per int slot */
    O_AFFINE, /* user-defined, non-commutative: composition of affine maps */
    O_RSUM,   /* MPI_SUM of floating-point values whose sum rounds differently
                 in another order: every rank must still get the same bits */
    O_URSUM,  /* user-defined, commutative: the same sum of doubles */
    O_COUNT
};

static const char *op_names[O_COUNT] = {"MPI_SUM",
                                        "MPI_PROD",
                                        "MPI_MAX",
                                        "MPI_MIN",
                                        "MPI_BAND",
                                        "MPI_BXOR",
                                        "MPI_MINLOC",
                                        "MPI_MAXLOC",
                                        "user-commutative(sum mod 65521)",
                                        "user-noncommutative(affine composition)",
                                        "MPI_SUM(rounding)",
                                        "user-commutative(double sum, rounding)"};
static MPI_Op ops[O_COUNT];

#define USUM_MOD 65521u
#define AFFINE_MASK 0x7fffffffu /* arithmetic modulo 2^31 */

/* The case being run, for messages from inside the user operations. */
static const char *current_label = "(none)";

/* The layout of a datatype handed to a user operation: only the types the
 * operation was registered for are acceptable. */
static const ttype_t *user_op_layout(MPI_Datatype dt, int t1, int t2, const char *opname)
{
    if (dt == types[t1].dt)
        return &types[t1];
    if (dt == types[t2].dt)
        return &types[t2];
    tt_fail("%s called with a datatype that is neither %s nor %s: %s", opname, types[t1].name,
            types[t2].name, current_label);
    return NULL;
}

static void usum_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    const ttype_t *t = user_op_layout(*dt, T_INT, T_VEC, "user-commutative op");
    if (t == NULL)
        return;
    for (long e = 0; e < *len; e++) {
        for (int s = 0; s < t->nslots; s++) {
            size_t o = (size_t)e * t->extent + t->off[s];
            unsigned x = (unsigned)*(int *)((char *)in + o);
            int *y = (int *)((char *)inout + o);
            *y = (int)((x + (unsigned)*y) % USUM_MOD);
        }
    }
}

/* (a1, b1) o (a2, b2) = (a1 a2, a1 b2 + b1): x -> a1 (a2 x + b2) + b1.
 * Associative, not commutative.  MPI computes inout = in op inout with `in`
 * from the lower ranks, so `in` is the left operand. */
static void affine_compose(const int *l, const int *r, int *out)
{
    uint64_t a1 = (uint32_t)l[0], b1 = (uint32_t)l[1];
    uint64_t a2 = (uint32_t)r[0], b2 = (uint32_t)r[1];
    out[0] = (int)((a1 * a2) & AFFINE_MASK);
    out[1] = (int)((a1 * b2 + b1) & AFFINE_MASK);
}

static void affine_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    const ttype_t *t = user_op_layout(*dt, T_PAIR, T_VEC, "user-noncommutative op");
    if (t == NULL)
        return;
    for (long e = 0; e < *len; e++) {
        char *pi = (char *)in + (size_t)e * t->extent;
        char *po = (char *)inout + (size_t)e * t->extent;
        int l[2], r[2], res[2];
        for (int s = 0; s < 2; s++) {
            memcpy(&l[s], pi + t->off[s], sizeof(int));
            memcpy(&r[s], po + t->off[s], sizeof(int));
        }
        affine_compose(l, r, res);
        for (int s = 0; s < 2; s++)
            memcpy(po + t->off[s], &res[s], sizeof(int));
    }
}

static void ursum_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    if (NULL == user_op_layout(*dt, T_DOUBLE, T_DOUBLE, "the user-defined double sum"))
        return;
    const double *a = in;
    double *b = inout;
    for (int i = 0; i < *len; i++)
        b[i] = a[i] + b[i];
}

static void ops_create(void)
{
    ops[O_SUM] = MPI_SUM;
    ops[O_PROD] = MPI_PROD;
    ops[O_MAX] = MPI_MAX;
    ops[O_MIN] = MPI_MIN;
    ops[O_BAND] = MPI_BAND;
    ops[O_BXOR] = MPI_BXOR;
    ops[O_MINLOC] = MPI_MINLOC;
    ops[O_MAXLOC] = MPI_MAXLOC;
    tt_check_mpi(MPI_Op_create(usum_fn, 1, &ops[O_USUM]), "MPI_Op_create(usum)");
    tt_check_mpi(MPI_Op_create(affine_fn, 0, &ops[O_AFFINE]), "MPI_Op_create(affine)");
    ops[O_RSUM] = MPI_SUM;
    tt_check_mpi(MPI_Op_create(ursum_fn, 1, &ops[O_URSUM]), "MPI_Op_create(ursum)");
}

static void ops_free(void)
{
    MPI_Op_free(&ops[O_USUM]);
    MPI_Op_free(&ops[O_AFFINE]);
    MPI_Op_free(&ops[O_URSUM]);
}

/* ---- the matrix ----------------------------------------------------- */

#define COUNT_MID 65537L
#define COUNT_BIG ((1L << 20) + 3)

/* Which (datatype, operation) pairs run, and the largest count each runs
 * at: the big counts only for a few, to keep the runtime down. */
static const struct {
    int type, op;
    long max_count;
} combos[] = {
    {T_INT, O_SUM, COUNT_BIG},  {T_INT, O_PROD, 1000},         {T_INT, O_MAX, 1000},
    {T_INT, O_MIN, 1000},       {T_INT, O_BAND, 1000},         {T_INT, O_BXOR, COUNT_MID},
    {T_INT, O_USUM, 1000},      {T_FLOAT, O_SUM, COUNT_MID},   {T_FLOAT, O_PROD, 1000},
    {T_FLOAT, O_MAX, 1000},     {T_FLOAT, O_MIN, 1000},        {T_DOUBLE, O_SUM, COUNT_BIG},
    {T_DOUBLE, O_PROD, 1000},   {T_DOUBLE, O_MAX, 1000},       {T_DOUBLE, O_MIN, 1000},
    {T_LL, O_SUM, COUNT_MID},   {T_LL, O_PROD, 1000},          {T_LL, O_MAX, 1000},
    {T_LL, O_MIN, 1000},        {T_LL, O_BAND, 1000},          {T_LL, O_BXOR, 1000},
    {T_2INT, O_MINLOC, 1000},   {T_2INT, O_MAXLOC, COUNT_MID}, {T_PAIR, O_AFFINE, COUNT_MID},
    {T_VEC, O_USUM, COUNT_BIG}, {T_VEC, O_AFFINE, COUNT_MID},
    {T_FLOAT, O_RSUM, COUNT_MID}, {T_DOUBLE, O_RSUM, COUNT_BIG}, {T_DOUBLE, O_URSUM, COUNT_MID},
};
/* The combinations whose result depends on the order of combination. */
static int rounds(int op)
{
    return op == O_RSUM || op == O_URSUM;
}
#define NCOMBOS ((int)(sizeof combos / sizeof combos[0]))

/* ---- inputs and the reference ----------------------------------------- */

/* Writes slot `s` of element `e` of world rank g's input, packed (no gaps). */
static inline void gen_slot(int t, int op, int g, long e, int s, uint64_t salt, void *out)
{
    uint64_t h = tt_mix((uint64_t)g, (uint64_t)e * 2 + s, salt);
    const ttype_t *ty = &types[t];
    long long v = 0;

    if (rounds(op)) {
        /* a few large values of both signs that cancel, among many small
         * ones that no binary fraction holds exactly: any other grouping
         * of the sum rounds differently */
        double d = h % 4 == 0 ? ((h >> 8) % 2 ? 1e6 : -1e6) * (double)(1 + (h >> 9) % 3)
                              : (double)((h >> 16) % 1000 + 1) / 997.0;
        if (ty->kind == K_FLOAT)
            *(float *)out = (float)d;
        else
            *(double *)out = d;
        return;
    }
    switch (op) {
    case O_SUM:
        /* small integers: every partial sum is exact in every type */
        v = (long long)(h % 41) - 20;
        if (ty->kind == K_LL) /* and some high bits for long long */
            v += ((long long)((h >> 20) % 5) - 2) * (1LL << 40);
        break;
    case O_PROD:
        /* mostly 1, some 2 and -1: |product| <= 2^16 at 16 ranks */
        v = (h % 8 == 0) ? 2 : (h % 8 == 1) ? -1 : 1;
        break;
    case O_MAX:
    case O_MIN:
        if (ty->kind == K_INT)
            v = (int32_t)(uint32_t)h;
        else if (ty->kind == K_LL)
            v = (long long)h;
        else if (ty->kind == K_FLOAT) /* exact in float */
            v = (long long)(h % 2000001) - 1000000;
        else /* exact in double */
            v = (long long)(h % (1ULL << 41)) - (1LL << 40);
        break;
    case O_BAND:
        /* all bits set but a few, so the AND of many ranks is not 0 */
        if (ty->kind == K_INT)
            v = (int32_t) ~((1u << (h % 32)) | (1u << ((h >> 8) % 32)));
        else
            v = (long long)~((1ULL << (h % 64)) | (1ULL << ((h >> 8) % 64)) |
                             (1ULL << ((h >> 16) % 64)));
        break;
    case O_BXOR:
        v = ty->kind == K_INT ? (long long)(int32_t)(uint32_t)h : (long long)h;
        break;
    case O_MINLOC:
    case O_MAXLOC:
        /* few distinct values, so ties (resolved by the lower index) are
         * common; indices unrelated to the rank order */
        v = s == 0 ? (long long)(h % 5) - 2 : (long long)((h >> 16) % 1000);
        break;
    case O_USUM:
        v = (long long)(h % USUM_MOD);
        break;
    case O_AFFINE:
        /* odd multipliers keep the products from collapsing to 0 */
        v = s == 0 ? (long long)((h & AFFINE_MASK) | 1) : (long long)((h >> 32) & AFFINE_MASK);
        break;
    }
    switch (ty->kind) {
    case K_INT:
        *(int *)out = (int)v;
        break;
    case K_FLOAT:
        *(float *)out = (float)v;
        break;
    case K_DOUBLE:
        *(double *)out = (double)v;
        break;
    case K_LL:
        *(long long *)out = v;
        break;
    }
}

static void gen_packed(int t, int op, int g, long count, uint64_t salt, char *out)
{
    const ttype_t *ty = &types[t];
    for (long e = 0; e < count; e++)
        for (int s = 0; s < ty->nslots; s++)
            gen_slot(t, op, g, e, s, salt, out + ((size_t)e * ty->nslots + s) * ty->ssize);
}

#define ELEMENTWISE(T, EXPR)             \
    do {                                 \
        T *a = (T *)acc;                 \
        const T *b = (const T *)in;      \
        for (size_t i = 0; i < n; i++) { \
            T x = a[i], y = b[i];        \
            a[i] = (EXPR);               \
        }                                \
    } while (0)

#define ARITH(T)                       \
    switch (op) {                      \
    case O_SUM:                        \
        ELEMENTWISE(T, x + y);         \
        break;                         \
    case O_PROD:                       \
        ELEMENTWISE(T, x *y);          \
        break;                         \
    case O_MAX:                        \
        ELEMENTWISE(T, x > y ? x : y); \
        break;                         \
    case O_MIN:                        \
        ELEMENTWISE(T, x < y ? x : y); \
        break;                         \
    }

/* acc = acc op in, elementwise over packed data; acc holds the lower ranks. */
static void fold(int t, int op, char *acc, const char *in, long count)
{
    const ttype_t *ty = &types[t];
    size_t n = (size_t)count * ty->nslots;

    if (op == O_MINLOC || op == O_MAXLOC) {
        int *a = (int *)acc;
        const int *b = (const int *)in;
        for (long e = 0; e < count; e++) {
            int av = a[2 * e], ai = a[2 * e + 1], bv = b[2 * e], bi = b[2 * e + 1];
            int b_better = op == O_MINLOC ? bv < av : bv > av;
            if (b_better) {
                a[2 * e] = bv;
                a[2 * e + 1] = bi;
            } else if (bv == av && bi < ai) {
                a[2 * e + 1] = bi;
            }
        }
        return;
    }
    if (op == O_AFFINE) {
        int *a = (int *)acc;
        const int *b = (const int *)in;
        for (long e = 0; e < count; e++) {
            int res[2];
            affine_compose(&a[2 * e], &b[2 * e], res);
            a[2 * e] = res[0];
            a[2 * e + 1] = res[1];
        }
        return;
    }
    if (op == O_USUM) {
        ELEMENTWISE(int, (int)(((unsigned)x + (unsigned)y) % USUM_MOD));
        return;
    }
    if (rounds(op)) {
        if (ty->kind == K_FLOAT)
            ELEMENTWISE(float, x + y);
        else
            ELEMENTWISE(double, x + y);
        return;
    }
    switch (ty->kind) {
    case K_INT:
        if (op == O_BAND)
            ELEMENTWISE(int, x &y);
        else if (op == O_BXOR)
            ELEMENTWISE(int, x ^ y);
        else if (op == O_SUM) /* wraps like Open MPI's would; the inputs never do */
            ELEMENTWISE(int, (int)((unsigned)x + (unsigned)y));
        else
            ARITH(int)
        break;
    case K_LL:
        if (op == O_BAND)
            ELEMENTWISE(long long, x &y);
        else if (op == O_BXOR)
            ELEMENTWISE(long long, x ^ y);
        else
            ARITH(long long)
        break;
    case K_FLOAT:
        ARITH(float) break;
    case K_DOUBLE:
        ARITH(double) break;
    }
}

/* Spreads packed data into the datatype's layout; gaps get the sentinel. */
static void layout(int t, const char *packed, long count, unsigned char *buf)
{
    const ttype_t *ty = &types[t];
    memset(buf, TT_SENTINEL_BYTE, (size_t)count * ty->extent);
    for (long e = 0; e < count; e++)
        for (int s = 0; s < ty->nslots; s++)
            memcpy(buf + (size_t)e * ty->extent + ty->off[s],
                   packed + ((size_t)e * ty->nslots + s) * ty->ssize, ty->ssize);
}

/* ---- checking ------------------------------------------------------- */

static void format_slot(const ttype_t *ty, const unsigned char *p, char *out, size_t n)
{
    switch (ty->kind) {
    case K_INT: {
        int v;
        memcpy(&v, p, sizeof v);
        snprintf(out, n, "%d", v);
        break;
    }
    case K_LL: {
        long long v;
        memcpy(&v, p, sizeof v);
        snprintf(out, n, "%lld", v);
        break;
    }
    case K_FLOAT: {
        float v;
        memcpy(&v, p, sizeof v);
        snprintf(out, n, "%.9g", v);
        break;
    }
    case K_DOUBLE: {
        double v;
        memcpy(&v, p, sizeof v);
        snprintf(out, n, "%.17g", v);
        break;
    }
    }
}

/* Compares `got` with `want` over count elements; reports the first
 * difference and how many elements differ.  Returns 1 when equal. */
static int compare(int t, const unsigned char *got, const unsigned char *want, long count,
                   const char *what, const char *label)
{
    const ttype_t *ty = &types[t];
    size_t nbytes = (size_t)count * ty->extent;
    if (memcmp(got, want, nbytes) == 0)
        return 1;

    long first = -1, nbad = 0;
    for (long e = 0; e < count; e++) {
        if (memcmp(got + (size_t)e * ty->extent, want + (size_t)e * ty->extent, ty->extent)) {
            if (first < 0)
                first = e;
            nbad++;
        }
    }
    const unsigned char *g = got + (size_t)first * ty->extent;
    const unsigned char *w = want + (size_t)first * ty->extent;
    char detail[256] = "";
    for (int b = 0; b < ty->extent; b++) {
        if (g[b] == w[b])
            continue;
        int s;
        for (s = 0; s < ty->nslots; s++)
            if (b >= ty->off[s] && b < ty->off[s] + ty->ssize)
                break;
        if (s < ty->nslots) {
            char gs[64], ws[64];
            format_slot(ty, g + ty->off[s], gs, sizeof gs);
            format_slot(ty, w + ty->off[s], ws, sizeof ws);
            snprintf(detail, sizeof detail, "slot %d is %s, expected %s", s, gs, ws);
        } else {
            snprintf(detail, sizeof detail,
                     "gap byte %d (outside the datatype's data) is 0x%02x, must stay 0x%02x", b,
                     g[b], w[b]);
        }
        break;
    }
    tt_fail("%s: %ld of %ld elements wrong, first at element %ld: %s: %s", what, nbad, count, first,
            detail, label);
    return 0;
}

/* For the sums that round: got within tol of the rank-order sum `want`
 * (every contribution counted once; the same bits on every rank is the
 * hash comparison's job).  Returns 1 when all are. */
static int compare_near(int t, const unsigned char *got, const unsigned char *want, long count,
                        double tol, const char *label)
{
    const int is_float = types[t].kind == K_FLOAT;
    long first = -1, nbad = 0;
    double g0 = 0, w0 = 0;
    for (long e = 0; e < count; e++) {
        double g, w;
        if (is_float) {
            float gf, wf;
            memcpy(&gf, got + (size_t)e * sizeof(float), sizeof gf);
            memcpy(&wf, want + (size_t)e * sizeof(float), sizeof wf);
            g = gf;
            w = wf;
        } else {
            memcpy(&g, got + (size_t)e * sizeof(double), sizeof g);
            memcpy(&w, want + (size_t)e * sizeof(double), sizeof w);
        }
        if (!(fabs(g - w) <= tol)) {
            if (first < 0) {
                first = e;
                g0 = g;
                w0 = w;
            }
            nbad++;
        }
    }
    if (nbad > 0)
        tt_fail("result: %ld of %ld elements off by more than %g, first at element %ld: %.17g, "
                "expected %.17g: %s",
                nbad, count, tol, first, g0, w0, label);
    return nbad == 0;
}

static void check_guards(const tt_buf_t *b, const char *what, const char *label)
{
    long off;
    if (!tt_buf_guards_ok(b, &off))
        tt_fail("%s: byte at offset %ld outside the buffer was overwritten: %s", what, off, label);
}

/* ---- running ------------------------------------------------------- */

typedef struct {
    long max_count;
    const char *comms;
    int verbose;
    long rss_growth_max; /* MiB; < 0: not checked */
    int rounding_only;   /* only the sums that round */
} options_t;

typedef struct {
    uint64_t *hashes;
    char **labels;
    int n, cap;
} results_t;

static void record(results_t *r, uint64_t h, const char *label)
{
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 256;
        r->hashes = realloc(r->hashes, sizeof(uint64_t) * r->cap);
        r->labels = realloc(r->labels, sizeof(char *) * r->cap);
    }
    r->hashes[r->n] = h;
    size_t len = strlen(label) + 1;
    r->labels[r->n] = malloc(len);
    memcpy(r->labels[r->n], label, len);
    r->n++;
}

static void results_clear(results_t *r)
{
    for (int i = 0; i < r->n; i++)
        free(r->labels[i]);
    r->n = 0;
}

/* Scratch space reused by every case. */
static tt_buf_t ws_acc, ws_tmp, ws_want, ws_input, ws_send, ws_recv;

static void workspace_free(void)
{
    tt_buf_free(&ws_acc);
    tt_buf_free(&ws_tmp);
    tt_buf_free(&ws_want);
    tt_buf_free(&ws_input);
    tt_buf_free(&ws_send);
    tt_buf_free(&ws_recv);
}

/* One (communicator, datatype, operation, count): the reference once, then
 * the call without and with MPI_IN_PLACE. */
static void run_case(const tt_comm_t *c, int ci, int k, long count, results_t *res,
                     const options_t *opt)
{
    const int t = combos[k].type, op = combos[k].op;
    const ttype_t *ty = &types[t];
    const size_t packed_bytes = (size_t)count * ty->nslots * ty->ssize;
    const size_t nbytes = (size_t)count * ty->extent;
    const uint64_t salt = tt_mix(0x5eed, (uint64_t)ci * 64 + (uint64_t)k, (uint64_t)count);
    const int me = c->world_of[c->rank];

    /* Reference: fold every rank's input in communicator rank order. */
    tt_buf_prepare(&ws_acc, packed_bytes);
    tt_buf_prepare(&ws_tmp, packed_bytes);
    tt_buf_prepare(&ws_want, nbytes);
    tt_buf_prepare(&ws_input, nbytes);
    char *acc = (char *)ws_acc.p, *tmp = (char *)ws_tmp.p;
    gen_packed(t, op, c->world_of[0], count, salt, acc);
    for (int r = 1; r < c->size; r++) {
        gen_packed(t, op, c->world_of[r], count, salt, tmp);
        fold(t, op, acc, tmp, count);
    }
    const unsigned char *want = ws_want.p, *input = ws_input.p;
    layout(t, acc, count, ws_want.p);
    gen_packed(t, op, me, count, salt, tmp);
    layout(t, tmp, count, ws_input.p);

    for (int inplace = 0; inplace <= 1; inplace++) {
        char label[256];
        snprintf(label, sizeof label, "comm %s (%d ranks), %s, %s, count %ld, %s", c->name, c->size,
                 ty->name, op_names[op], count, inplace ? "MPI_IN_PLACE" : "separate buffers");
        current_label = label;

        tt_buf_t *send = &ws_send, *recv = &ws_recv;
        tt_buf_prepare(recv, nbytes);
        if (inplace) {
            memcpy(recv->p, input, nbytes);
        } else {
            tt_buf_fill_sentinel(recv);
            tt_buf_prepare(send, nbytes);
            memcpy(send->p, input, nbytes);
        }

        double t0 = MPI_Wtime();
        int rc = MPI_Allreduce(inplace ? MPI_IN_PLACE : (void *)send->p, recv->p, (int)count,
                               ty->dt, ops[op], c->comm);
        double dt = MPI_Wtime() - t0;
        if (rc != MPI_SUCCESS) {
            char err[MPI_MAX_ERROR_STRING];
            int len = 0;
            MPI_Error_string(rc, err, &len);
            tt_fail("MPI_Allreduce returned %d (%s): %s", rc, err, label);
            MPI_Abort(MPI_COMM_WORLD, 3); /* the other ranks may be waiting */
        }

        if (rounds(op)) {
            /* |value| <= 3e6: a sum of size of them in any order is within
             * size * 3e6 * size * epsilon of any other */
            const double eps = ty->kind == K_FLOAT ? 1.2e-7 : 2.3e-16;
            compare_near(t, recv->p, want, count, 3e6 * c->size * c->size * eps, label);
        } else {
            compare(t, recv->p, want, count, "result", label);
        }
        check_guards(recv, "result buffer", label);
        if (!inplace) {
            compare(t, send->p, input, count, "send buffer changed", label);
            check_guards(send, "send buffer", label);
        }
        record(res, tt_hash(TT_HASH_INIT, recv->p, nbytes), label);
        if (opt->verbose && c->rank == 0)
            tt_note("%.6f s: %s", dt, label);
        current_label = "(none)";
    }
}

/* The counts every pair runs at (tt_case_counts), up to 2^20+3. */
static const long big_counts[] = {COUNT_MID, COUNT_BIG};

static void usage(const char *argv0)
{
    fprintf(stderr,
            "usage: %s [--max-count N] [--comms world,dup,split,reversed] [--verbose]\n"
            "       [--rss-growth-max MIB] [--rounding-only]\n",
            argv0);
}

/* This process's resident memory in KiB (VmRSS), or -1. */
static long rss_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    if (f == NULL)
        return -1;
    while (fgets(line, sizeof(line), f))
        if (!strncmp(line, "VmRSS:", 6))
            kib = strtol(line + 6, NULL, 10);
    fclose(f);
    return kib;
}

/* --rss-growth-max MIB: two allreduces of 64 MiB on MPI_COMM_WORLD (one in
 * place), checked, leave at most MIB more resident memory behind on every
 * rank than before them: what a call needs beyond coll_topo_scratch_keep
 * goes back at its end. */
static void check_rss_growth(long max_mib)
{
    const size_t n = (size_t)8 << 20; /* doubles */
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double *a = malloc(n * sizeof(double)), *b = malloc(n * sizeof(double));
    if (a == NULL || b == NULL) {
        tt_fail("--rss-growth-max: out of memory");
        free(a);
        free(b);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        a[i] = (double)(rank + (int)(i % 1000));
        b[i] = -1; /* touched: not a calloc, whose pages the call would fault in */
    }
    const long before = rss_kib();
    MPI_Allreduce(a, b, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, a, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    const long after = rss_kib();
    long wrong = 0;
    for (size_t i = 0; i < n; i++) {
        const double want = (double)size * (double)(i % 1000) + (double)size * (size - 1) / 2;
        wrong += a[i] != want || b[i] != want;
    }
    if (wrong > 0)
        tt_fail("--rss-growth-max: %ld of %zu elements wrong after the 64 MiB allreduces", wrong,
                n);
    if (before < 0 || after < 0)
        tt_fail("--rss-growth-max: /proc/self/status has no VmRSS");
    else if (after - before > max_mib * 1024)
        tt_fail("--rss-growth-max: the 64 MiB allreduces left %ld KiB more resident memory "
                "behind (at most %ld MiB allowed)",
                after - before, max_mib);
    else if (rank == 0)
        tt_note("64 MiB allreduces left %ld KiB more resident memory behind (at most %ld MiB)",
                after - before, max_mib);
    free(a);
    free(b);
}

int main(int argc, char **argv)
{
    options_t opt = {COUNT_BIG, NULL, 0, -1, 0};
    int wrank, wsize, bad_args = 0;

    MPI_Init(&argc, &argv);
    tt_init("test_allreduce");
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);

    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--max-count") && i + 1 < argc)
            opt.max_count = strtol(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--comms") && i + 1 < argc)
            opt.comms = argv[++i];
        else if (!strcmp(argv[i], "--verbose"))
            opt.verbose = 1;
        else if (!strcmp(argv[i], "--rss-growth-max") && i + 1 < argc)
            opt.rss_growth_max = strtol(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--rounding-only"))
            opt.rounding_only = 1;
        else
            bad_args = 1;
    }
    if (bad_args) {
        if (wrank == 0)
            usage(argv[0]);
        MPI_Finalize();
        return 2;
    }

    types_create();
    ops_create();
    tt_comm_t comms[TT_MAX_COMMS];
    int ncomms = tt_comms_create(comms, opt.comms);
    if (ncomms == 0 && wrank == 0)
        tt_fail("--comms %s selects no communicator", opt.comms);

    results_t res = {0};
    long checked = 0;
    for (int ci = 0; ci < ncomms; ci++) {
        const tt_comm_t *c = &comms[ci];
        long counts[8];
        /* The biggest count only on the first communicator (world, unless
         * --comms says otherwise): it costs more than the rest together. */
        long max = ci == 0 || opt.max_count < COUNT_BIG ? opt.max_count : COUNT_BIG - 1;
        int ncounts = tt_case_counts(c->size, max, big_counts, 2, counts);
        double t0 = MPI_Wtime();
        for (int k = 0; k < NCOMBOS; k++)
            for (int j = 0; j < ncounts; j++)
                if (counts[j] <= combos[k].max_count && (!opt.rounding_only || rounds(combos[k].op)))
                    run_case(c, ci, k, counts[j], &res, &opt);
        tt_compare_hashes(c, res.hashes, res.n, res.labels);
        if (c->rank == 0 && (opt.verbose || wrank == 0))
            tt_note("comm %s (%d ranks): %d calls in %.2f s", c->name, c->size, res.n,
                    MPI_Wtime() - t0);
        checked += res.n;
        results_clear(&res);
    }
    free(res.hashes);
    free(res.labels);
    if (opt.rss_growth_max >= 0)
        check_rss_growth(opt.rss_growth_max);

    tt_comms_free(comms, ncomms);
    workspace_free();
    ops_free();
    types_free();

    long total = tt_total_failures();
    if (wrank == 0)
        printf("test_allreduce: %d ranks, %ld MPI_Allreduce calls checked on rank 0, "
               "%ld failures on all ranks\n",
               wsize, checked, total);
    MPI_Finalize();
    return (total > 0 || tt_failures() > 0) ? 1 : 0;
}
