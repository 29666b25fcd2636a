/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI_Barrier through coll/topo: a barrier schedule is `sync`: its messages
 * carry no data but must be sent (verify.h), which the executor does.
 */
#include "ompi_config.h"

#include "mpi.h"

#include "coll_topo.h"

int mca_coll_topo_barrier_intra(struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    COLL_TOPO_ROUTE(module, TOPO_PRIM_BARRIER, 0, 0, true, barrier, comm);
    mca_coll_topo_call_t call;
    mca_coll_topo_call_init(&call, TOPO_PRIM_BARRIER, 0, NULL, NULL, 0, NULL, 0);
    COLL_TOPO_BEGIN(&call, comm, module, TOPO_PRIM_BARRIER, barrier, comm);
    return mca_coll_topo_execute(&call, NULL, NULL, NULL);
}

int mca_coll_topo_ibarrier_intra(struct ompi_communicator_t *comm, ompi_request_t **request,
                                 mca_coll_base_module_t *module)
{
    COLL_TOPO_ROUTE_FORM(module, iprev, TOPO_PRIM_BARRIER, 0, 0, true, ibarrier, comm, request);
    mca_coll_topo_call_t call;
    mca_coll_topo_call_init(&call, TOPO_PRIM_BARRIER, 0, NULL, NULL, 0, NULL, 0);
    call.mode = COLL_TOPO_NONBLOCKING;
    COLL_TOPO_BEGIN_FORM(&call, comm, module, iprev, TOPO_PRIM_BARRIER, request, ibarrier, comm,
                         request);
    return mca_coll_topo_istart(&call, NULL, NULL, NULL, request);
}

int mca_coll_topo_barrier_init(struct ompi_communicator_t *comm, struct ompi_info_t *info,
                               ompi_request_t **request, mca_coll_base_module_t *module)
{
    COLL_TOPO_ROUTE_FORM(module, pprev, TOPO_PRIM_BARRIER, 0, 0, true, barrier_init, comm, info,
                         request);
    mca_coll_topo_call_t call;
    mca_coll_topo_call_init(&call, TOPO_PRIM_BARRIER, 0, NULL, NULL, 0, NULL, 0);
    call.mode = COLL_TOPO_PERSISTENT;
    COLL_TOPO_BEGIN_FORM(&call, comm, module, pprev, TOPO_PRIM_BARRIER, request, barrier_init,
                         comm, info, request);
    return mca_coll_topo_istart(&call, NULL, NULL, NULL, request);
}
