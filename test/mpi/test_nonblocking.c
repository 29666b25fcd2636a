/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The nonblocking and persistent forms of the primitives coll/topo serves
 * (MPI_Iallreduce, MPI_Ibcast, MPI_Ireduce, MPI_Iallgather,
 * MPI_Ireduce_scatter_block, MPI_Ireduce_scatter, MPI_Ialltoall,
 * MPI_Ibarrier, and MPIX_<primitive>_init where Open MPI's pcollreq
 * extension is present): several operations outstanding at once on one
 * communicator and on several, started in a random order (the same on
 * every rank: one seed), with point-to-point traffic, blocking collectives
 * and MPI_Test calls between the starts, completed in a random order by
 * MPI_Wait, MPI_Test loops or MPI_Waitall; persistent ones are started
 * several times with new inputs (together by MPI_Startall once), then
 * freed with MPI_Request_free (also one never started).  Every result is checked against a reference each
 * rank computes on its own (inputs are functions of the world rank, the
 * element, the operation and the start), MPI_IN_PLACE included; one
 * reduction is non-commutative (composition of affine maps on pairs of
 * unsigned integers), so its order is checked too.
 *
 * Each communicator's first collective is a blocking MPI_Barrier: until a
 * blocking call has placed its ranks, coll/topo gives the other forms to
 * the previous module (--nonblocking-first: no barrier, the first ones go
 * there until a blocking allreduce between the starts has placed them).
 *
 * Usage: test_nonblocking [--rounds R] [--ops K] [--seed S] [--max-count N]
 *                         [--comms world,dup,split,reversed]
 *                         [--prims allreduce,allreduce_nc,bcast,reduce,allgather,
 *                          reduce_scatter_block,reduce_scatter,alltoall,barrier]
 *                         [--no-persistent] [--nonblocking-first]
 * Prints "test_nonblocking: P ranks, N calls checked on rank 0, F failures
 * on all ranks"; exit status 0 when every check passed on every rank.
 */
#include "test_common.h"

#include <mpi-ext.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
#define TT_PERSISTENT 1
#else
#define TT_PERSISTENT 0
#endif

enum {
    P_ALLREDUCE,
    P_ALLREDUCE_NC,
    P_BCAST,
    P_REDUCE,
    P_ALLGATHER,
    P_RSB,
    P_RS,
    P_ALLTOALL,
    P_BARRIER,
    P_COUNT
};
static const char *prim_names[P_COUNT] = {"allreduce",      "allreduce_nc", "bcast",
                                          "reduce",         "allgather",    "reduce_scatter_block",
                                          "reduce_scatter", "alltoall",     "barrier"};

/* ---- the non-commutative operation: x -> a x + b, composed ---------- */

static MPI_Datatype affine_t; /* two MPI_UNSIGNED */
static MPI_Op affine_op;

/* inout = in o inout (in: the lower ranks' maps) */
static void affine(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    const unsigned *a = in;
    unsigned *b = inout;
    for (int i = 0; i < *len; i++) {
        const unsigned a1 = a[2 * i], b1 = a[2 * i + 1], a2 = b[2 * i], b2 = b[2 * i + 1];
        b[2 * i] = a1 * a2;
        b[2 * i + 1] = a1 * b2 + b1;
    }
}

/* ---- random choices, the same on every rank ------------------------- */

static uint64_t rng_state, local_state;
static unsigned rnd(unsigned n)
{
    rng_state = tt_mix(rng_state, 17, 23);
    return 0 == n ? 0 : (unsigned)(rng_state % n);
}
/* Choices of this rank alone (which operation it completes next: ranks
 * may differ, and how many choices they make too). */
static unsigned local_rnd(unsigned n)
{
    local_state = tt_mix(local_state, 29, 31);
    return 0 == n ? 0 : (unsigned)(local_state % n);
}

/* ---- operations ----------------------------------------------------- */

typedef struct {
    int prim, ci, count, root, in_place, persistent, id, starts;
    MPI_Request req;
    int active;
    unsigned *sbuf, *rbuf, *exp; /* unsigned words: ints and pairs alike */
    size_t sn, rn;               /* words */
    int *rcounts;                /* reduce_scatter */
} op_t;

static tt_comm_t comms[TT_MAX_COMMS];
static int ncomms;
static long checked;

/* Element i of comm rank r's input of operation o's current start (words
 * w per element: 2 for the pairs). */
static unsigned in_word(const op_t *o, int r, size_t i)
{
    const tt_comm_t *c = &comms[o->ci];
    const uint64_t z =
        tt_mix((uint64_t)c->world_of[r], i, (uint64_t)o->id * 64 + (uint64_t)o->starts);
    if (P_ALLREDUCE_NC == o->prim) {
        return 0 == i % 2 ? (unsigned)(z | 1) : (unsigned)(z >> 7); /* a odd, b */
    }
    return (unsigned)(z & 0xffff); /* sums of 16 such fit an int */
}

static int words(const op_t *o)
{
    return P_ALLREDUCE_NC == o->prim ? 2 : 1;
}

/* Sizes, inputs and expected results of o's current start. */
static void prepare(op_t *o)
{
    const tt_comm_t *c = &comms[o->ci];
    const int p = c->size, me = c->rank, n = o->count, w = words(o);
    size_t sn = 0, rn = 0;
    switch (o->prim) {
    case P_ALLREDUCE:
    case P_ALLREDUCE_NC:
    case P_REDUCE:
    case P_BCAST:
        sn = rn = (size_t)n * (size_t)w;
        break;
    case P_ALLGATHER:
        sn = (size_t)n;
        rn = (size_t)n * (size_t)p;
        break;
    case P_RSB:
        sn = (size_t)n * (size_t)p;
        rn = (size_t)n;
        break;
    case P_RS:
        for (int r = 0; r < p; r++) {
            sn += (size_t)o->rcounts[r];
        }
        rn = (size_t)o->rcounts[me];
        break;
    case P_ALLTOALL:
        sn = rn = (size_t)n * (size_t)p;
        break;
    default:
        break;
    }
    if (o->in_place && (P_RSB == o->prim || P_RS == o->prim)) {
        rn = sn; /* the input is in the receive buffer */
    }
    o->sn = sn;
    o->rn = rn;
    if (NULL == o->sbuf) {
        o->sbuf = malloc((sn + 1) * sizeof(unsigned));
        o->rbuf = malloc((rn + sn + 1) * sizeof(unsigned));
        o->exp = malloc((rn + sn + 1) * sizeof(unsigned));
    }
    for (size_t i = 0; i < sn; i++) {
        o->sbuf[i] = in_word(o, me, i);
    }
    for (size_t i = 0; i < rn; i++) {
        o->rbuf[i] = 0xdeadbeefu;
    }
    /* the expected result, and MPI_IN_PLACE inputs where they go */
    switch (o->prim) {
    case P_ALLREDUCE:
    case P_REDUCE:
        for (size_t i = 0; i < sn; i++) {
            unsigned s = 0;
            for (int r = 0; r < p; r++) {
                s += in_word(o, r, i);
            }
            o->exp[i] = P_REDUCE == o->prim && me != o->root ? 0xdeadbeefu : s;
            if (o->in_place) {
                o->rbuf[i] = o->sbuf[i];
            }
        }
        break;
    case P_ALLREDUCE_NC:
        for (size_t e = 0; e < (size_t)n; e++) {
            unsigned a = in_word(o, 0, 2 * e), b = in_word(o, 0, 2 * e + 1);
            for (int r = 1; r < p; r++) {
                const unsigned a2 = in_word(o, r, 2 * e), b2 = in_word(o, r, 2 * e + 1);
                b = a * b2 + b;
                a = a * a2;
            }
            o->exp[2 * e] = a;
            o->exp[2 * e + 1] = b;
            if (o->in_place) {
                o->rbuf[2 * e] = o->sbuf[2 * e];
                o->rbuf[2 * e + 1] = o->sbuf[2 * e + 1];
            }
        }
        break;
    case P_BCAST:
        for (size_t i = 0; i < rn; i++) {
            o->exp[i] = in_word(o, o->root, i);
            if (me == o->root) {
                o->rbuf[i] = o->sbuf[i];
            }
        }
        break;
    case P_ALLGATHER:
        for (int r = 0; r < p; r++) {
            for (int i = 0; i < n; i++) {
                o->exp[(size_t)r * (size_t)n + (size_t)i] = in_word(o, r, (size_t)i);
            }
        }
        if (o->in_place) {
            memcpy(o->rbuf + (size_t)me * (size_t)n, o->sbuf, (size_t)n * sizeof(unsigned));
        }
        break;
    case P_RSB:
    case P_RS: {
        size_t at = 0;
        for (int r = 0; r < me; r++) {
            at += P_RS == o->prim ? (size_t)o->rcounts[r] : (size_t)n;
        }
        const size_t mine = P_RS == o->prim ? (size_t)o->rcounts[me] : (size_t)n;
        for (size_t i = 0; i < mine; i++) {
            unsigned s = 0;
            for (int r = 0; r < p; r++) {
                s += in_word(o, r, at + i);
            }
            o->exp[i] = s;
        }
        if (o->in_place) {
            memcpy(o->rbuf, o->sbuf, sn * sizeof(unsigned));
        }
        break;
    }
    case P_ALLTOALL:
        /* block r of rank me's result: block me of rank r's input */
        for (int r = 0; r < p; r++) {
            for (int i = 0; i < n; i++) {
                o->exp[(size_t)r * (size_t)n + (size_t)i] =
                    in_word(o, r, (size_t)me * (size_t)n + (size_t)i);
            }
        }
        if (o->in_place) {
            memcpy(o->rbuf, o->sbuf, sn * sizeof(unsigned));
        }
        break;
    default:
        break;
    }
}

static void check(op_t *o)
{
    const tt_comm_t *c = &comms[o->ci];
    size_t n = o->rn;
    if (P_RSB == o->prim || P_RS == o->prim) {
        n = P_RS == o->prim ? (size_t)o->rcounts[c->rank] : (size_t)o->count;
    }
    if (P_REDUCE == o->prim && c->rank != o->root) {
        n = 0; /* not significant */
    }
    for (size_t i = 0; i < n && P_BARRIER != o->prim; i++) {
        if (o->rbuf[i] != o->exp[i]) {
            tt_fail("op %d (%s%s, comm %s, count %d, root %d%s, start %d): word %zu is %u, "
                    "expected %u",
                    o->id, o->persistent ? "persistent " : "", prim_names[o->prim], c->name,
                    o->count, o->root, o->in_place ? ", MPI_IN_PLACE" : "", o->starts, i,
                    o->rbuf[i], o->exp[i]);
            break;
        }
    }
    checked++;
}

/* Start (or, persistent, create) operation o. */
static void start(op_t *o)
{
    const tt_comm_t *c = &comms[o->ci];
    MPI_Comm comm = c->comm;
    prepare(o);
    const void *s = o->in_place ? MPI_IN_PLACE : o->sbuf;
    void *r = o->rbuf;
    const int n = o->count, pers = o->persistent;
    int rc = MPI_SUCCESS;
    if (P_REDUCE == o->prim && o->in_place && c->rank != o->root) {
        s = o->sbuf; /* MPI_IN_PLACE at the root only */
    }
    if (pers && MPI_REQUEST_NULL != o->req) {
        rc = MPI_Start(&o->req);
        tt_check_mpi(rc, "MPI_Start");
        o->active = 1;
        return;
    }
#if TT_PERSISTENT
#define TT_CALL(nb, init, ...) \
    (pers ? init(__VA_ARGS__, MPI_INFO_NULL, &o->req) : nb(__VA_ARGS__, &o->req))
#else
#define TT_CALL(nb, init, ...) nb(__VA_ARGS__, &o->req)
#endif
    switch (o->prim) {
    case P_ALLREDUCE:
        rc = TT_CALL(MPI_Iallreduce, MPIX_Allreduce_init, s, r, n, MPI_INT, MPI_SUM, comm);
        break;
    case P_ALLREDUCE_NC:
        rc = TT_CALL(MPI_Iallreduce, MPIX_Allreduce_init, s, r, n, affine_t, affine_op, comm);
        break;
    case P_BCAST:
        rc = TT_CALL(MPI_Ibcast, MPIX_Bcast_init, r, n, MPI_INT, o->root, comm);
        break;
    case P_REDUCE:
        rc = TT_CALL(MPI_Ireduce, MPIX_Reduce_init, s, r, n, MPI_INT, MPI_SUM, o->root, comm);
        break;
    case P_ALLGATHER:
        rc = TT_CALL(MPI_Iallgather, MPIX_Allgather_init, s, n, MPI_INT, r, n, MPI_INT, comm);
        break;
    case P_RSB:
        rc = TT_CALL(MPI_Ireduce_scatter_block, MPIX_Reduce_scatter_block_init, s, r, n, MPI_INT,
                     MPI_SUM, comm);
        break;
    case P_RS:
        rc = TT_CALL(MPI_Ireduce_scatter, MPIX_Reduce_scatter_init, s, r, o->rcounts, MPI_INT,
                     MPI_SUM, comm);
        break;
    case P_ALLTOALL:
        rc = TT_CALL(MPI_Ialltoall, MPIX_Alltoall_init, s, n, MPI_INT, r, n, MPI_INT, comm);
        break;
    default:
#if TT_PERSISTENT
        rc = pers ? MPIX_Barrier_init(comm, MPI_INFO_NULL, &o->req) : MPI_Ibarrier(comm, &o->req);
#else
        rc = MPI_Ibarrier(comm, &o->req);
#endif
        break;
    }
#undef TT_CALL
    tt_check_mpi(rc, prim_names[o->prim]);
    if (pers) {
        tt_check_mpi(MPI_Start(&o->req), "MPI_Start");
    }
    o->active = 1;
}

/* o completed: check it (a nonblocking request is MPI_REQUEST_NULL now). */
static void completed(op_t *o)
{
    o->active = 0;
    check(o);
    o->starts++;
}

/* Something else between the starts: point-to-point around the world, a
 * blocking collective (checked), or an MPI_Test of an operation. */
static void distraction(op_t *ops, int nops)
{
    int wrank, wsize;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    switch (rnd(4)) {
    case 1: {
        int out[3] = {wrank, 7, 11}, in[3] = {-1, -1, -1};
        const int from = (wrank + wsize - 1) % wsize;
        tt_check_mpi(MPI_Sendrecv(out, 3, MPI_INT, (wrank + 1) % wsize, 5, in, 3, MPI_INT, from, 5,
                                  MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                     "MPI_Sendrecv");
        if (in[0] != from || in[1] != 7 || in[2] != 11) {
            tt_fail("point-to-point between the starts: got %d %d %d", in[0], in[1], in[2]);
        }
        break;
    }
    case 2: {
        const tt_comm_t *c = &comms[rnd((unsigned)ncomms)];
        int v[2] = {c->world_of[c->rank], 1}, sum[2];
        tt_check_mpi(MPI_Allreduce(v, sum, 2, MPI_INT, MPI_SUM, c->comm), "MPI_Allreduce");
        int want = 0;
        for (int r = 0; r < c->size; r++) {
            want += c->world_of[r];
        }
        if (sum[0] != want || sum[1] != c->size) {
            tt_fail("blocking MPI_Allreduce between the starts on %s: %d %d, expected %d %d",
                    c->name, sum[0], sum[1], want, c->size);
        }
        break;
    }
    case 3: {
        op_t *o = &ops[rnd((unsigned)nops)];
        int flag = 0;
        if (o->active) {
            tt_check_mpi(MPI_Test(&o->req, &flag, MPI_STATUS_IGNORE), "MPI_Test");
            if (flag) {
                completed(o);
            }
        }
        break;
    }
    default:
        break;
    }
}

static int parse_prims(const char *s, int *on)
{
    int n = 0;
    for (int p = 0; p < P_COUNT; p++) {
        const char *at = s;
        const size_t len = strlen(prim_names[p]);
        on[p] = 0;
        while (NULL != (at = strstr(at, prim_names[p]))) {
            if ((at == s || ',' == at[-1]) && (',' == at[len] || '\0' == at[len])) {
                on[p] = 1;
                n++;
                break;
            }
            at += len;
        }
    }
    return n;
}

int main(int argc, char **argv)
{
    int rounds = 20, nops = 10, max_count = 300, persistent = TT_PERSISTENT, first_barrier = 1;
    unsigned long seed = 1;
    const char *which = "world,dup,split,reversed";
    int on[P_COUNT];
    for (int p = 0; p < P_COUNT; p++) {
        on[p] = 1;
    }
    MPI_Init(&argc, &argv);
    tt_init("test_nonblocking");
    for (int i = 1; i < argc; i++) {
        if (0 == strcmp(argv[i], "--rounds") && i + 1 < argc) {
            rounds = atoi(argv[++i]);
        } else if (0 == strcmp(argv[i], "--ops") && i + 1 < argc) {
            nops = atoi(argv[++i]);
        } else if (0 == strcmp(argv[i], "--seed") && i + 1 < argc) {
            seed = strtoul(argv[++i], NULL, 10);
        } else if (0 == strcmp(argv[i], "--max-count") && i + 1 < argc) {
            max_count = atoi(argv[++i]);
        } else if (0 == strcmp(argv[i], "--comms") && i + 1 < argc) {
            which = argv[++i];
        } else if (0 == strcmp(argv[i], "--prims") && i + 1 < argc) {
            if (0 == parse_prims(argv[++i], on)) {
                tt_fail("--prims %s: no primitive", argv[i]);
            }
        } else if (0 == strcmp(argv[i], "--no-persistent")) {
            persistent = 0;
        } else if (0 == strcmp(argv[i], "--nonblocking-first")) {
            first_barrier = 0;
        } else {
            tt_fail("unknown argument %s", argv[i]);
        }
    }
    if (nops < 1 || rounds < 0 || max_count < 0) {
        tt_fail("bad --ops, --rounds or --max-count");
        nops = 1;
    }
    MPI_Type_contiguous(2, MPI_UNSIGNED, &affine_t);
    MPI_Type_commit(&affine_t);
    MPI_Op_create(affine, 0, &affine_op);
    ncomms = tt_comms_create(comms, which);
    for (int i = 0; i < ncomms && first_barrier; i++) {
        /* the first call of each is blocking: it places the ranks */
        tt_check_mpi(MPI_Barrier(comms[i].comm), "MPI_Barrier");
    }
    int prims[P_COUNT], nprims = 0;
    for (int p = 0; p < P_COUNT; p++) {
        if (on[p]) {
            prims[nprims++] = p;
        }
    }
    op_t *ops = calloc((size_t)nops, sizeof(*ops));
    rng_state = seed;
    int wr;
    MPI_Comm_rank(MPI_COMM_WORLD, &wr);
    local_state = tt_mix(seed, (uint64_t)wr, 3);
    int id = 0;
    for (int round = 0; round < rounds && nprims > 0; round++) {
        for (int k = 0; k < nops; k++) {
            op_t *o = &ops[k];
            memset(o, 0, sizeof(*o));
            o->req = MPI_REQUEST_NULL;
            o->id = id++;
            /* every primitive in turn (each round starts at another), the
             * first round's on the first communicator and moving data, so
             * that each primitive's nonblocking form runs on it */
            o->prim = prims[(round + k) % nprims];
            o->ci = 0 == round ? 0 : (int)rnd((unsigned)ncomms);
            const int p = comms[o->ci].size;
            const int pick[] = {0, 1, p - 1, p, p + 1, 2 * p, (int)rnd((unsigned)max_count + 1)};
            o->count = pick[rnd(sizeof(pick) / sizeof(pick[0]))];
            if (o->count > max_count) {
                o->count = max_count;
            }
            if (0 == round && o->count < 1 && max_count > 0) {
                o->count = 1;
            }
            o->root = (int)(rnd(1000) % (unsigned)p);
            o->in_place = 0 == rnd(3) && P_BCAST != o->prim;
            /* the first round's persistent ones come after one
             * nonblocking operation of every primitive */
            o->persistent = persistent && (0 == round ? k >= nprims : 0 == rnd(3));
            o->rcounts = malloc((size_t)p * sizeof(int));
            for (int r = 0; r < p; r++) {
                o->rcounts[r] = (int)((unsigned)(o->count + 3 * r) % 7u); /* zeros too */
            }
        }
        /* start them all, with other traffic between */
        for (int k = 0; k < nops; k++) {
            start(&ops[k]);
            distraction(ops, k + 1);
        }
        /* complete them in a random order */
        const unsigned how = rnd(3);
        if (0 == how) {
            MPI_Request reqs[64];
            int n = 0;
            for (int k = 0; k < nops && n < 64; k++) {
                reqs[n++] = ops[k].active ? ops[k].req : MPI_REQUEST_NULL;
            }
            tt_check_mpi(MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE), "MPI_Waitall");
            for (int k = 0; k < n; k++) {
                if (ops[k].active) {
                    ops[k].req = reqs[k];
                    completed(&ops[k]);
                }
            }
        }
        for (int left = nops; left > 0; left--) {
            op_t *o = &ops[local_rnd((unsigned)nops)];
            for (int k = 0; k < nops && !o->active; k++) {
                o = &ops[k];
            }
            if (!o->active) {
                break;
            }
            if (1 == how) {
                tt_check_mpi(MPI_Wait(&o->req, MPI_STATUS_IGNORE), "MPI_Wait");
            } else {
                for (int flag = 0; !flag;) {
                    tt_check_mpi(MPI_Test(&o->req, &flag, MPI_STATUS_IGNORE), "MPI_Test");
                }
            }
            completed(o);
        }
        /* the persistent ones again, all at once (MPI_Startall, MPI_Waitall),
         * then each on its own, with new inputs every time; then freed */
        MPI_Request all[64];
        op_t *which[64];
        int nall = 0;
        for (int k = 0; k < nops && nall < 64; k++) {
            if (ops[k].persistent) {
                prepare(&ops[k]);
                ops[k].active = 1;
                which[nall] = &ops[k];
                all[nall++] = ops[k].req;
            }
        }
        if (nall > 0) {
            tt_check_mpi(MPI_Startall(nall, all), "MPI_Startall");
            tt_check_mpi(MPI_Waitall(nall, all, MPI_STATUSES_IGNORE), "MPI_Waitall");
            for (int i = 0; i < nall; i++) {
                completed(which[i]);
            }
        }
        for (int k = 0; k < nops; k++) {
            op_t *o = &ops[k];
            for (int again = 0; o->persistent && again < 2; again++) {
                start(o);
                distraction(ops, nops); /* may complete it (MPI_Test) */
                if (o->active) {
                    tt_check_mpi(MPI_Wait(&o->req, MPI_STATUS_IGNORE), "MPI_Wait");
                    completed(o);
                }
            }
            if (MPI_REQUEST_NULL != o->req) {
                tt_check_mpi(MPI_Request_free(&o->req), "MPI_Request_free");
            }
            free(o->sbuf);
            free(o->rbuf);
            free(o->exp);
            free(o->rcounts);
        }
    }
#if TT_PERSISTENT
    if (persistent) {
        /* a persistent request never started, freed */
        MPI_Request r;
        int v = 1, s = 0;
        tt_check_mpi(
            MPIX_Allreduce_init(&v, &s, 1, MPI_INT, MPI_SUM, comms[0].comm, MPI_INFO_NULL, &r),
            "MPIX_Allreduce_init");
        tt_check_mpi(MPI_Request_free(&r), "MPI_Request_free");
    }
#endif
    free(ops);
    tt_comms_free(comms, ncomms);
    MPI_Op_free(&affine_op);
    MPI_Type_free(&affine_t);
    const long f = tt_total_failures();
    int wrank, wsize;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    if (0 == wrank) {
        printf(
            "test_nonblocking: %d ranks, %ld calls checked on rank 0, %ld failures on all ranks\n",
            wsize, checked, f);
    }
    MPI_Finalize();
    return 0 == f ? 0 : 1;
}
