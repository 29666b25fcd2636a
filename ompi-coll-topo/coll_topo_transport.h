/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The transport seam: what the runner (coll_topo_run.c) needs to move a
 * plan's messages, and nothing else.  The runner decides what is sent
 * when (lanes, steps, packing, reductions); a transport posts messages,
 * keeps their requests and completes them.
 *
 * Requests are the transport's own: the runner never sees one.  It names
 * a message's request by a queue and an index into it:
 * - COLL_TOPO_TP_STEP: the messages of the lanes' current steps (at most
 *   the plan's max_posts at once), kept packed at the front: [0, n);
 * - COLL_TOPO_TP_DEFER: deferred sends (complete by the end of the call,
 *   not of their step), in posting order.
 * mca_coll_topo_tp_reserve gives both queues room before a run.
 *
 * Two kinds of transport:
 * - COLL_TOPO_TP_PML: Open MPI's PML (coll_topo_pml.h, coll_topo_pml.c),
 *   called inline: the runner is compiled once per kind (its functions
 *   take the kind as a constant), so the PML's path has no indirect call
 *   and no test of a capability at run time;
 * - COLL_TOPO_TP_OPS: any other (libfabric, ...), through the function
 *   table `ops` on its own state `impl`.  A new transport is one file
 *   that fills an mca_coll_topo_tp_ops_t and sets up the module's
 *   transport with mca_coll_topo_tp_init_ops.
 *
 * Capabilities (caps) tell the runner what a transport can and needs:
 * - COLL_TOPO_TP_CONTIG: it moves contiguous bytes only: the runner gives
 *   it messages of elements that are plain bytes (mca_coll_topo_flat), and
 *   returns OMPI_ERR_NOT_SUPPORTED for a call of another datatype before
 *   any message;
 * - COLL_TOPO_TP_REGISTER: its buffers must be registered: `begin` gets
 *   every memory region the call's messages may address, `end` releases;
 * - COLL_TOPO_TP_BLOCKING: it has a blocking send and receive (post with
 *   COLL_TOPO_TP_BLOCK), which the runner uses for the last message of a
 *   one-lane step (a two-rank exchange then needs no request for its send);
 * - COLL_TOPO_TP_INLINE: a post may complete at once (*pending false):
 *   nothing to wait for or free.  Without it *pending is always true.
 *
 * Errors are Open MPI's codes (OMPI_SUCCESS ...).  After an error the
 * runner calls `drop` on the requests still outstanding: they are freed
 * without blocking, as MPI_Request_free would (they may complete later).
 */
#ifndef MCA_COLL_TOPO_TRANSPORT_H
#define MCA_COLL_TOPO_TRANSPORT_H

#include "ompi_config.h"

#include <stdbool.h>
#include <stddef.h>

#include "ompi/communicator/communicator.h"
#include "ompi/datatype/ompi_datatype.h"

BEGIN_C_DECLS

/* Transport kinds (mca_coll_topo_tp_t.kind). */
enum { COLL_TOPO_TP_PML = 0, COLL_TOPO_TP_OPS = 1 };

/* Capabilities (mca_coll_topo_tp_t.caps). */
#define COLL_TOPO_TP_CONTIG 0x1u
#define COLL_TOPO_TP_REGISTER 0x2u
#define COLL_TOPO_TP_BLOCKING 0x4u
#define COLL_TOPO_TP_INLINE 0x8u

/* Request queues. */
enum { COLL_TOPO_TP_STEP = 0, COLL_TOPO_TP_DEFER = 1 };

/* Post flags. */
#define COLL_TOPO_TP_SEND 0x1u /* a send; else a receive */
#define COLL_TOPO_TP_BLOCK                                \
    0x2u /* complete it before returning (BLOCKING only): \
          *pending is then false */

/* One message: n elements of dt from (or into) buf, to (or from) rank
 * `peer` of the run's communicator, with `tag`.  Messages between two
 * ranks with one tag must match in posting order (MPI's non-overtaking
 * rule): the runner relies on it inside a lane.  n may be 0 (an empty
 * message, buf then points at a valid byte). */
typedef struct {
    char *buf;
    size_t n;
    struct ompi_datatype_t *dt;
    int peer;
    int tag;
} mca_coll_topo_msg_t;

/* A memory region a run's messages may address (COLL_TOPO_TP_REGISTER). */
typedef struct {
    void *base;
    size_t len; /* bytes */
} mca_coll_topo_region_t;

typedef struct mca_coll_topo_tp_t mca_coll_topo_tp_t;

/* A transport of kind COLL_TOPO_TP_OPS.  Each function gets the module's
 * transport (its state in tp->impl). */
typedef struct {
    const char *name;
    /* Room for `nstep` requests in COLL_TOPO_TP_STEP and `ndefer` in
     * COLL_TOPO_TP_DEFER (called before every run whose plan is new,
     * cheap when they fit). */
    int (*reserve)(mca_coll_topo_tp_t *tp, size_t nstep, size_t ndefer);
    /* A run starts on communicator `comm`; with COLL_TOPO_TP_REGISTER,
     * `regions` (n of them) are the memory its messages may address
     * (NULL and 0 otherwise).  `end` is called once per `begin` that
     * succeeded, after the run's last request completed or was dropped. */
    int (*begin)(mca_coll_topo_tp_t *tp, struct ompi_communicator_t *comm,
                 const mca_coll_topo_region_t *regions, int n);
    void (*end)(mca_coll_topo_tp_t *tp);
    /* Post message `msg` (flags COLL_TOPO_TP_SEND, COLL_TOPO_TP_BLOCK);
     * its request, if *pending, is request `idx` of queue `q`.  Without
     * COLL_TOPO_TP_BLOCK a post never waits for a peer: a message the
     * transport cannot hand over yet stays pending, and `wait` and
     * `wait_any` hand it over (a rank that waited in a post would hold
     * back the step's other messages, its receives among them, that its
     * peers may be waiting for).  A send's completion must not wait for
     * the rank's other sends (only for its own receive). */
    int (*post)(mca_coll_topo_tp_t *tp, const mca_coll_topo_msg_t *msg, unsigned flags, int q,
                int idx, bool *pending);
    /* Complete and free requests [first, first + n) of queue q. */
    int (*wait)(mca_coll_topo_tp_t *tp, int q, int first, int n);
    /* Complete one of requests [0, n) of COLL_TOPO_TP_STEP: *idx gets its
     * index; it is freed and request n - 1 moves to idx (the queue stays
     * packed).  On error nothing moves (drop frees what is left). */
    int (*wait_any)(mca_coll_topo_tp_t *tp, int n, int *idx);
    /* Has request idx of queue q completed?  (Neither frees it nor needs
     * to progress anything: `wait` of a completed request frees it.) */
    bool (*test)(mca_coll_topo_tp_t *tp, int q, int idx);
    /* Free requests [first, first + n) of queue q without waiting. */
    void (*drop)(mca_coll_topo_tp_t *tp, int q, int first, int n);
    /* Free the transport's state (the module is going away). */
    void (*fini)(mca_coll_topo_tp_t *tp);
} mca_coll_topo_tp_ops_t;

/* The PML's state and inline functions (needs mca_coll_topo_msg_t). */
#include "coll_topo_pml.h"

/* The module's transport (in mca_coll_topo_exec_t). */
struct mca_coll_topo_tp_t {
    int kind;                          /* COLL_TOPO_TP_PML or COLL_TOPO_TP_OPS */
    unsigned caps;                     /* COLL_TOPO_TP_* capabilities */
    const mca_coll_topo_tp_ops_t *ops; /* COLL_TOPO_TP_OPS */
    void *impl;                        /* COLL_TOPO_TP_OPS: its state */
    mca_coll_topo_pml_t pml;           /* COLL_TOPO_TP_PML: its state */
};

/* Set up tp as the PML transport (the default; a zeroed tp is one too,
 * but for its caps). */
void mca_coll_topo_tp_init_pml(mca_coll_topo_tp_t *tp);
/* Set up tp as transport `ops` with capabilities `caps` and state `impl`
 * (after mca_coll_topo_tp_fini of what it was). */
void mca_coll_topo_tp_init_ops(mca_coll_topo_tp_t *tp, const mca_coll_topo_tp_ops_t *ops,
                               unsigned caps, void *impl);
/* Free the transport's state; tp is the PML transport again after it. */
void mca_coll_topo_tp_fini(mca_coll_topo_tp_t *tp);
/* Room for nstep step requests and ndefer deferred ones. */
int mca_coll_topo_tp_reserve(mca_coll_topo_tp_t *tp, size_t nstep, size_t ndefer);

/* The dispatch: `kind` is a constant where the runner is compiled per
 * kind, so each of these is the PML's inline code or one indirect call. */

static inline unsigned mca_coll_topo_tp_caps(const mca_coll_topo_tp_t *tp, int kind)
{
    return COLL_TOPO_TP_PML == kind ? COLL_TOPO_PML_CAPS : tp->caps;
}

static inline int mca_coll_topo_tp_begin(mca_coll_topo_tp_t *tp, int kind,
                                         struct ompi_communicator_t *comm,
                                         const mca_coll_topo_region_t *regions, int n)
{
    if (COLL_TOPO_TP_PML == kind) {
        tp->pml.comm = comm;
        return OMPI_SUCCESS;
    }
    return tp->ops->begin(tp, comm, regions, n);
}

static inline void mca_coll_topo_tp_end(mca_coll_topo_tp_t *tp, int kind)
{
    if (COLL_TOPO_TP_PML != kind) {
        tp->ops->end(tp);
    }
}

static inline int mca_coll_topo_tp_post(mca_coll_topo_tp_t *tp, int kind,
                                        const mca_coll_topo_msg_t *msg, unsigned flags, int q,
                                        int idx, bool *pending)
{
    if (COLL_TOPO_TP_PML == kind) {
        return mca_coll_topo_pml_post(&tp->pml, msg, flags, q, idx, pending);
    }
    return tp->ops->post(tp, msg, flags, q, idx, pending);
}

static inline int mca_coll_topo_tp_wait(mca_coll_topo_tp_t *tp, int kind, int q, int first, int n)
{
    if (COLL_TOPO_TP_PML == kind) {
        return mca_coll_topo_pml_wait(&tp->pml, q, first, n);
    }
    return tp->ops->wait(tp, q, first, n);
}

static inline int mca_coll_topo_tp_wait_any(mca_coll_topo_tp_t *tp, int kind, int n, int *idx)
{
    if (COLL_TOPO_TP_PML == kind) {
        return mca_coll_topo_pml_wait_any(&tp->pml, n, idx);
    }
    return tp->ops->wait_any(tp, n, idx);
}

static inline bool mca_coll_topo_tp_test(mca_coll_topo_tp_t *tp, int kind, int q, int idx)
{
    if (COLL_TOPO_TP_PML == kind) {
        return mca_coll_topo_pml_test(&tp->pml, q, idx);
    }
    return tp->ops->test(tp, q, idx);
}

static inline void mca_coll_topo_tp_drop(mca_coll_topo_tp_t *tp, int kind, int q, int first, int n)
{
    if (COLL_TOPO_TP_PML == kind) {
        mca_coll_topo_pml_drop(&tp->pml, q, first, n);
    } else {
        tp->ops->drop(tp, q, first, n);
    }
}

END_C_DECLS

#endif /* MCA_COLL_TOPO_TRANSPORT_H */
