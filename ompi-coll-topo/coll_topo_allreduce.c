/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI_Allreduce through coll/topo: every rank's vector is the work buffer
 * (the receive buffer itself, or a packed copy); every block is delivered
 * everywhere (verify.h).
 */
#include "ompi_config.h"

#include "mpi.h"

#include "coll_topo.h"

int mca_coll_topo_allreduce_intra(const void *sbuf, void *rbuf, int count,
                                  struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                                  struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    COLL_TOPO_ROUTE(module, TOPO_PRIM_ALLREDUCE, (size_t)count * dtype->super.size, 0,
                      ompi_op_is_commute(op), allreduce, sbuf, rbuf, count, dtype, op, comm);
    mca_coll_topo_call_t call;
    mca_coll_topo_call_init(&call, TOPO_PRIM_ALLREDUCE, 0, dtype, op, (size_t)count, NULL, 0);
    COLL_TOPO_BEGIN(&call, comm, module, TOPO_PRIM_ALLREDUCE, allreduce, sbuf, rbuf, count, dtype,
                    op, comm);
    const mca_coll_topo_span_t in = {MPI_IN_PLACE == sbuf ? rbuf : sbuf, count, dtype, 0,
                                     (size_t)count},
                               out = {rbuf, count, dtype, 0, (size_t)count};
    return mca_coll_topo_execute(&call, rbuf, &in, &out);
}

/* The nonblocking and persistent forms: the same call, in a request. */
static int start(mca_coll_topo_call_t *call, const void *sbuf, void *rbuf, int count,
                 struct ompi_datatype_t *dtype, ompi_request_t **request)
{
    const mca_coll_topo_span_t in = {MPI_IN_PLACE == sbuf ? rbuf : sbuf, count, dtype, 0,
                                     (size_t)count},
                               out = {rbuf, count, dtype, 0, (size_t)count};
    return mca_coll_topo_istart(call, rbuf, &in, &out, request);
}

int mca_coll_topo_iallreduce_intra(const void *sbuf, void *rbuf, int count,
                                   struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                                   struct ompi_communicator_t *comm, ompi_request_t **request,
                                   mca_coll_base_module_t *module)
{
    COLL_TOPO_ROUTE_FORM(module, iprev, TOPO_PRIM_ALLREDUCE, (size_t)count * dtype->super.size, 0,
                         ompi_op_is_commute(op), iallreduce, sbuf, rbuf, count, dtype, op, comm,
                         request);
    mca_coll_topo_call_t call;
    mca_coll_topo_call_init(&call, TOPO_PRIM_ALLREDUCE, 0, dtype, op, (size_t)count, NULL, 0);
    call.mode = COLL_TOPO_NONBLOCKING;
    COLL_TOPO_BEGIN_FORM(&call, comm, module, iprev, TOPO_PRIM_ALLREDUCE, request, iallreduce,
                         sbuf, rbuf, count, dtype, op, comm, request);
    return start(&call, sbuf, rbuf, count, dtype, request);
}

int mca_coll_topo_allreduce_init(const void *sbuf, void *rbuf, int count,
                                 struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                                 struct ompi_communicator_t *comm, struct ompi_info_t *info,
                                 ompi_request_t **request, mca_coll_base_module_t *module)
{
    COLL_TOPO_ROUTE_FORM(module, pprev, TOPO_PRIM_ALLREDUCE, (size_t)count * dtype->super.size, 0,
                         ompi_op_is_commute(op), allreduce_init, sbuf, rbuf, count, dtype, op, comm,
                         info, request);
    mca_coll_topo_call_t call;
    mca_coll_topo_call_init(&call, TOPO_PRIM_ALLREDUCE, 0, dtype, op, (size_t)count, NULL, 0);
    call.mode = COLL_TOPO_PERSISTENT;
    COLL_TOPO_BEGIN_FORM(&call, comm, module, pprev, TOPO_PRIM_ALLREDUCE, request, allreduce_init,
                         sbuf, rbuf, count, dtype, op, comm, info, request);
    return start(&call, sbuf, rbuf, count, dtype, request);
}
