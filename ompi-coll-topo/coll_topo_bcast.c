/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI_Bcast through coll/topo: the user's buffer is the work buffer on
 * every rank (a primitive that does not reduce runs on any datatype as
 * is); the root starts with every block (verify.h).
 */
#include "ompi_config.h"

#include "mpi.h"

#include "coll_topo.h"

int mca_coll_topo_bcast_intra(void *buf, int count, struct ompi_datatype_t *dtype, int root,
                              struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    COLL_TOPO_ROUTE(module, TOPO_PRIM_BCAST, (size_t)count * dtype->super.size, root, true, bcast,
                      buf, count, dtype, root, comm);
    mca_coll_topo_call_t call;
    mca_coll_topo_call_init(&call, TOPO_PRIM_BCAST, root, dtype, NULL, (size_t)count, NULL, 0);
    COLL_TOPO_BEGIN(&call, comm, module, TOPO_PRIM_BCAST, bcast, buf, count, dtype, root, comm);
    return mca_coll_topo_execute(&call, buf, NULL, NULL);
}

int mca_coll_topo_ibcast_intra(void *buf, int count, struct ompi_datatype_t *dtype, int root,
                               struct ompi_communicator_t *comm, ompi_request_t **request,
                               mca_coll_base_module_t *module)
{
    COLL_TOPO_ROUTE_FORM(module, iprev, TOPO_PRIM_BCAST, (size_t)count * dtype->super.size, root,
                         true, ibcast, buf, count, dtype, root, comm, request);
    mca_coll_topo_call_t call;
    mca_coll_topo_call_init(&call, TOPO_PRIM_BCAST, root, dtype, NULL, (size_t)count, NULL, 0);
    call.mode = COLL_TOPO_NONBLOCKING;
    COLL_TOPO_BEGIN_FORM(&call, comm, module, iprev, TOPO_PRIM_BCAST, request, ibcast, buf, count,
                         dtype, root, comm, request);
    return mca_coll_topo_istart(&call, buf, NULL, NULL, request);
}

int mca_coll_topo_bcast_init(void *buf, int count, struct ompi_datatype_t *dtype, int root,
                             struct ompi_communicator_t *comm, struct ompi_info_t *info,
                             ompi_request_t **request, mca_coll_base_module_t *module)
{
    COLL_TOPO_ROUTE_FORM(module, pprev, TOPO_PRIM_BCAST, (size_t)count * dtype->super.size, root,
                         true, bcast_init, buf, count, dtype, root, comm, info, request);
    mca_coll_topo_call_t call;
    mca_coll_topo_call_init(&call, TOPO_PRIM_BCAST, root, dtype, NULL, (size_t)count, NULL, 0);
    call.mode = COLL_TOPO_PERSISTENT;
    COLL_TOPO_BEGIN_FORM(&call, comm, module, pprev, TOPO_PRIM_BCAST, request, bcast_init, buf,
                         count, dtype, root, comm, info, request);
    return mca_coll_topo_istart(&call, buf, NULL, NULL, request);
}
