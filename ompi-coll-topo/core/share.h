/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The decision table priced once per job: the ranks of a communicator
 * split the pricing of one decision (decision.h) among themselves, each
 * prices its share of the candidates, the prices are exchanged, and every
 * rank builds the same table from all of them.  Plain C without MPI: the
 * caller moves the bytes (the component with its previous module's
 * allreduce, topo-plan and the tests in one process), so that the
 * assignment, the serialization and the rounds are unit-tested here.
 *
 * The single-process pricing (topo_price_candidates_upto) prices the
 * candidates in the order of their work and prunes a candidate whose
 * lower bound is above the envelope of those priced before it.  Pruning
 * only skips work: a pruned candidate is never the table's choice, so the
 * table over any set of priced candidates that holds every candidate the
 * table can choose is the same table.  The shared pricing keeps most of
 * the pruning in three rounds, each ended by one exchange:
 *
 *   0. the lower bounds (rank 0's schedule alone) and their work
 *      estimates, one candidate per rank (from the last rank down, so that
 *      on a large communicator they are not the ranks of rounds 1 and 2);
 *   1. the lighter half of the candidates by work (the order of the
 *      single-process pricing), priced in full;
 *   2. the heavier half: every rank tests each one's bound against the
 *      envelope of round 1's prices, alike (the same inputs, the same
 *      arithmetic); the ones not dominated are priced in full.
 *
 * In rounds 1 and 2 a candidate goes to the rank with the least work
 * assigned so far (heaviest first; the work of both rounds counts), so
 * that on a communicator of more ranks than candidates each has a rank of
 * its own.  Every rank computes the same assignment from what the earlier
 * rounds exchanged.
 *
 * One round, for the caller:
 *
 *   int64_t len[TOPO_SHARE_SLOTS];
 *   topo_share_work(&s, round, len);      price this rank's share
 *   (every rank) len = element-wise max of every rank's len
 *   if (len[TOPO_SHARE_ERR]) stop: some rank failed (every rank sees it)
 *   total = topo_share_total(len); buf = total zero bytes
 *   topo_share_put(&s, len, buf);         this rank's records at their places
 *   (every rank) buf = bitwise or of every rank's buf
 *   topo_share_take(&s, round, len, buf); every rank's records
 *
 * after TOPO_SHARE_ROUNDS rounds, topo_share_finish.  A rank that failed
 * (out of memory) says so in the next round's len and still takes part in
 * every exchange, so that no rank waits for one that gave up; a failure
 * after the last round's exchange is for the caller to agree on.  The
 * records hold the prices in this build's native layout: every rank runs
 * the same build on the same architecture.
 */
#ifndef TOPO_SHARE_H
#define TOPO_SHARE_H

#include "decision.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
    TOPO_SHARE_ROUNDS = 3,
    /* the entries of an exchange's lengths: one per candidate that fits
     * (a primitive has fewer catalog rows), the last a failure flag */
    TOPO_SHARE_SLOTS = 64,
    TOPO_SHARE_ERR = TOPO_SHARE_SLOTS - 1
};

/* The greedy assignment of jobs to ranks: jobs in descending order of
 * work (ties: the lower index), each to the rank with the least work
 * assigned so far (ties: the lower rank), so that the heaviest get ranks
 * of their own and the rest fill in beside them.  owner[i] in [0, nranks)
 * for each of the n jobs.  A function of its arguments alone.  Returns
 * TOPO_OK, TOPO_EINVAL (nranks < 1 or n < 0) or TOPO_ENOMEM. */
int topo_share_assign(const size_t *work, int n, int nranks, int *owner);

/* A price in bytes: topo_price_packed_size bytes, written by
 * topo_price_pack (which returns that count); topo_price_unpack reads one
 * from buf[0..len) (*used: its bytes) into out (free with
 * topo_price_free).  Returns TOPO_OK, TOPO_EINVAL (a truncated or
 * inconsistent record) or TOPO_ENOMEM. */
size_t topo_price_packed_size(const topo_price_t *pr);
size_t topo_price_pack(const topo_price_t *pr, unsigned char *buf);
int topo_price_unpack(const unsigned char *buf, size_t len, size_t *used, topo_price_t *out);

/* One rank's part of a shared pricing (fields private to share.c). */
typedef struct {
    const topo_gen_args_t *a;
    const topo_cost_params_t *p;
    const topo_cost_net_t *net;
    const topo_proto_t *proto;
    int prune, rank, nranks;
    int failed;            /* an error on this rank, said at the next exchange */
    topo_candidates_t c;   /* the primitive's catalog rows, as topo_candidates_price */
    int nfit;
    int *at;               /* [nfit]: the row in c.cand of each candidate that fits */
    const topo_algo_t **fit;
    topo_price_t *lb;      /* [nfit] the bounds (round 0) */
    int *has_lb;           /* [nfit] */
    size_t *work;          /* [nfit] */
    int *round;            /* [nfit] the round that prices it: 1, 2, or -1 pruned */
    int *owner;            /* [nfit] the rank that prices it in its round */
    int *rc;               /* [nfit] its pricing's result: TOPO_OK, TOPO_PRUNED,
                              an error; TOPO_ENOMEM until known */
    topo_price_t *price;   /* [nfit] */
    double *load;          /* [min(nranks, nfit)] work assigned in rounds 1 and 2 */
    unsigned char *mine;   /* this rank's records of the round */
    size_t nmine;
    size_t *rec_at;        /* [nfit] where a record of this rank is in mine */
    size_t *rec_len;       /* [nfit] its bytes, 0: none */
} topo_share_t;

/* Start rank `rank` of `nranks` on the decision of call `a` (operation
 * class opclass; every pointer must outlive s): the candidates that fit,
 * nothing priced.  prune 0: round 2 prunes nothing.  Returns TOPO_OK, or
 * an error (then s->failed, and s still takes part in the exchanges). */
int topo_share_begin(topo_share_t *s, const topo_gen_args_t *a, int opclass,
                     const topo_cost_params_t *p, const topo_cost_net_t *net,
                     const topo_proto_t *proto, int prune, int rank, int nranks);
/* This rank's share of `round` (0, 1, 2, in turn; each after the previous
 * one's topo_share_take): computed and serialized; len[k] the bytes of
 * candidate k's record where this rank has one, 0 elsewhere, and
 * len[TOPO_SHARE_ERR] 1 where this rank failed (now or before). */
void topo_share_work(topo_share_t *s, int round, int64_t len[TOPO_SHARE_SLOTS]);
/* The bytes of an exchange whose lengths (every rank's maximum) are len;
 * SIZE_MAX where they do not fit in memory. */
size_t topo_share_total(const int64_t len[TOPO_SHARE_SLOTS]);
/* This rank's records into buf (topo_share_total(len) bytes, zero where
 * other ranks' records go). */
void topo_share_put(const topo_share_t *s, const int64_t len[TOPO_SHARE_SLOTS],
                    unsigned char *buf);
/* Every rank's records of `round` from buf (the bitwise or of every
 * rank's topo_share_put): on an error s->failed is set. */
void topo_share_take(topo_share_t *s, int round, const int64_t len[TOPO_SHARE_SLOTS],
                     const unsigned char *buf);
/* The rank that computes fit candidate i in `round` (its owner), or -1:
 * rounds 1 and 2 are known once the round before them was taken. */
int topo_share_owner(const topo_share_t *s, int round, int i);
/* After the last round: the candidates and their table, as
 * topo_candidates_price with upto SIZE_MAX (a candidate not priced is
 * TOPO_PRUNED; the bounds of round 0 kept, as with want_bounds), moved to out (free with
 * topo_candidates_free).  Returns TOPO_OK or an error (s->failed). */
int topo_share_finish(topo_share_t *s, topo_candidates_t *out);
void topo_share_free(topo_share_t *s);

/* Every rank of a job of nranks in this process, one after the other
 * (the exchanges done in memory): the table the component's ranks build
 * together, checked to be the same on every rank (TOPO_EINVAL if not).
 * A state per rank: for tests of tens of ranks (topo-plan --job keeps
 * states only for the ranks that price).  Returns TOPO_OK or an error. */
int topo_share_local(const topo_gen_args_t *a, int opclass, const topo_cost_params_t *p,
                     const topo_cost_net_t *net, const topo_proto_t *proto, int prune,
                     int nranks, topo_candidates_t *out);

#ifdef __cplusplus
}
#endif
#endif
