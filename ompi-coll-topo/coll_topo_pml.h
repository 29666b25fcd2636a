/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The PML transport (coll_topo_transport.h): Open MPI's point-to-point
 * messaging layer, the transport every module starts with.  Its per-message
 * functions are inline (the runner's path for small messages is a few
 * hundred instructions; a call per message would show); the rest is in
 * coll_topo_pml.c.  Included by coll_topo_transport.h only.
 */
#ifndef MCA_COLL_TOPO_PML_H
#define MCA_COLL_TOPO_PML_H

#include "mpi.h"
#include "ompi/mca/pml/pml.h"
#include "ompi/request/request.h"

/* ob1 sends a small message inline (no request: &ompi_request_empty), and
 * the PML has blocking send and receive. */
#define COLL_TOPO_PML_CAPS (COLL_TOPO_TP_BLOCKING | COLL_TOPO_TP_INLINE)

typedef struct {
    struct ompi_communicator_t *comm; /* of the current run */
    ompi_request_t **reqs;            /* COLL_TOPO_TP_STEP */
    size_t cap_reqs;
    ompi_request_t **dreqs; /* COLL_TOPO_TP_DEFER */
    size_t cap_dreqs;
} mca_coll_topo_pml_t;

static inline ompi_request_t **mca_coll_topo_pml_req(mca_coll_topo_pml_t *t, int q, int idx)
{
    return (COLL_TOPO_TP_STEP == q ? t->reqs : t->dreqs) + idx;
}

static inline __opal_attribute_always_inline__ int
mca_coll_topo_pml_post(mca_coll_topo_pml_t *t, const mca_coll_topo_msg_t *msg, unsigned flags,
                       int q, int idx, bool *pending)
{
    int rc;
    if (flags & COLL_TOPO_TP_BLOCK) {
        *pending = false;
        if (!(flags & COLL_TOPO_TP_SEND)) {
            return MCA_PML_CALL(
                recv(msg->buf, msg->n, msg->dt, msg->peer, msg->tag, t->comm, MPI_STATUS_IGNORE));
        }
        return MCA_PML_CALL(send(msg->buf, msg->n, msg->dt, msg->peer, msg->tag,
                                 MCA_PML_BASE_SEND_STANDARD, t->comm));
    }
    ompi_request_t **req = mca_coll_topo_pml_req(t, q, idx);
    if (flags & COLL_TOPO_TP_SEND) {
        rc = MCA_PML_CALL(isend(msg->buf, msg->n, msg->dt, msg->peer, msg->tag,
                                MCA_PML_BASE_SEND_STANDARD, t->comm, req));
    } else {
        rc = MCA_PML_CALL(irecv(msg->buf, msg->n, msg->dt, msg->peer, msg->tag, t->comm, req));
    }
    /* sent inline (ob1): complete, nothing to wait for or free */
    *pending = &ompi_request_empty != *req;
    return rc;
}

static inline int mca_coll_topo_pml_wait(mca_coll_topo_pml_t *t, int q, int first, int n)
{
    ompi_request_t **r = mca_coll_topo_pml_req(t, q, first);
    if (1 == n) {
        return ompi_request_wait(r, MPI_STATUS_IGNORE);
    }
    return ompi_request_wait_all((size_t)n, r, MPI_STATUSES_IGNORE);
}

static inline int mca_coll_topo_pml_wait_any(mca_coll_topo_pml_t *t, int n, int *idx)
{
    int i = MPI_UNDEFINED;
    int rc = ompi_request_wait_any((size_t)n, t->reqs, &i, MPI_STATUS_IGNORE);
    if (MPI_UNDEFINED == i || i < 0 || i >= n) {
        return OMPI_SUCCESS != rc ? rc : OMPI_ERROR;
    }
    if (OMPI_SUCCESS != rc) {
        return rc; /* wait_any leaves a failed request allocated */
    }
    t->reqs[i] = t->reqs[n - 1]; /* keep the live requests packed at the front */
    *idx = i;
    return OMPI_SUCCESS;
}

static inline bool mca_coll_topo_pml_test(mca_coll_topo_pml_t *t, int q, int idx)
{
    return REQUEST_COMPLETE(*mca_coll_topo_pml_req(t, q, idx));
}

void mca_coll_topo_pml_drop(mca_coll_topo_pml_t *t, int q, int first, int n);
/* Room for nstep step requests and ndefer deferred ones (also for a run
 * over the PML of a module whose transport is another: the calls that
 * transport cannot carry). */
int mca_coll_topo_pml_reserve(mca_coll_topo_pml_t *t, size_t nstep, size_t ndefer);

#endif /* MCA_COLL_TOPO_PML_H */
