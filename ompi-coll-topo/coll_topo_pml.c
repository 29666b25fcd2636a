/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The PML transport's request arrays and error path, and the transport
 * seam's setup (coll_topo_transport.h): a module's transport is the PML
 * unless another one is set up with mca_coll_topo_tp_init_ops.
 */
#include "ompi_config.h"

#include <stdlib.h>
#include <string.h>

#include "coll_topo_transport.h"

void mca_coll_topo_pml_drop(mca_coll_topo_pml_t *t, int q, int first, int n)
{
    ompi_request_t **r = mca_coll_topo_pml_req(t, q, first);
    for (int i = 0; i < n; i++) {
        if (MPI_REQUEST_NULL != r[i] && &ompi_request_empty != r[i]) {
            (void)ompi_request_free(&r[i]);
        }
    }
}

int mca_coll_topo_pml_reserve(mca_coll_topo_pml_t *t, size_t nstep, size_t ndefer)
{
    if (ndefer > t->cap_dreqs) {
        ompi_request_t **r = realloc(t->dreqs, ndefer * sizeof(*r));
        if (NULL == r) {
            return OMPI_ERR_OUT_OF_RESOURCE;
        }
        t->dreqs = r;
        t->cap_dreqs = ndefer;
    }
    if (nstep > t->cap_reqs) {
        ompi_request_t **r = realloc(t->reqs, nstep * sizeof(*r));
        if (NULL == r) {
            return OMPI_ERR_OUT_OF_RESOURCE;
        }
        t->reqs = r;
        t->cap_reqs = nstep;
    }
    return OMPI_SUCCESS;
}

void mca_coll_topo_tp_init_pml(mca_coll_topo_tp_t *tp)
{
    memset(tp, 0, sizeof(*tp));
    tp->kind = COLL_TOPO_TP_PML;
    tp->caps = COLL_TOPO_PML_CAPS;
}

void mca_coll_topo_tp_init_ops(mca_coll_topo_tp_t *tp, const mca_coll_topo_tp_ops_t *ops,
                               unsigned caps, void *impl)
{
    tp->kind = COLL_TOPO_TP_OPS;
    tp->caps = caps;
    tp->ops = ops;
    tp->impl = impl;
}

void mca_coll_topo_tp_fini(mca_coll_topo_tp_t *tp)
{
    if (COLL_TOPO_TP_OPS == tp->kind && NULL != tp->ops->fini) {
        tp->ops->fini(tp);
    }
    free(tp->pml.reqs);
    free(tp->pml.dreqs);
    mca_coll_topo_tp_init_pml(tp);
}

int mca_coll_topo_tp_reserve(mca_coll_topo_tp_t *tp, size_t nstep, size_t ndefer)
{
    if (COLL_TOPO_TP_PML == tp->kind) {
        return mca_coll_topo_pml_reserve(&tp->pml, nstep, ndefer);
    }
    return tp->ops->reserve(tp, nstep, ndefer);
}
