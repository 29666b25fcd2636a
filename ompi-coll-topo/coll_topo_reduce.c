/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI_Reduce through coll/topo: the root works in its receive buffer; the
 * other ranks, whose receive buffer is not significant, in the staging
 * buffer.  Every rank starts with its contribution in every block; the root
 * ends with the reduction (verify.h).
 */
#include "ompi_config.h"

#include "mpi.h"

#include "coll_topo.h"

int mca_coll_topo_reduce_intra(const void *sbuf, void *rbuf, int count,
                               struct ompi_datatype_t *dtype, struct ompi_op_t *op, int root,
                               struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    COLL_TOPO_ROUTE(module, TOPO_PRIM_REDUCE, (size_t)count * dtype->super.size, root,
                      ompi_op_is_commute(op), reduce, sbuf, rbuf, count, dtype, op, root, comm);
    /* MPI_IN_PLACE is allowed at the root only: its input is in rbuf. */
    const bool at_root = root == ompi_comm_rank(comm);
    const mca_coll_topo_span_t in = {MPI_IN_PLACE == sbuf ? rbuf : sbuf, count, dtype, 0,
                                     (size_t)count},
                               out = {rbuf, count, dtype, 0, (size_t)count};
    mca_coll_topo_call_t call;
    mca_coll_topo_call_init(&call, TOPO_PRIM_REDUCE, root, dtype, op, (size_t)count, NULL, 0);
    COLL_TOPO_BEGIN(&call, comm, module, TOPO_PRIM_REDUCE, reduce, sbuf, rbuf, count, dtype, op,
                    root, comm);
    return mca_coll_topo_execute(&call, at_root ? rbuf : NULL, &in, at_root ? &out : NULL);
}

/* The nonblocking and persistent forms: the same call, in a request. */
static int start(mca_coll_topo_call_t *call, const void *sbuf, void *rbuf, int count,
                 struct ompi_datatype_t *dtype, int root, ompi_request_t **request)
{
    const bool at_root = root == ompi_comm_rank(call->comm);
    const mca_coll_topo_span_t in = {MPI_IN_PLACE == sbuf ? rbuf : sbuf, count, dtype, 0,
                                     (size_t)count},
                               out = {rbuf, count, dtype, 0, (size_t)count};
    return mca_coll_topo_istart(call, at_root ? rbuf : NULL, &in, at_root ? &out : NULL, request);
}

int mca_coll_topo_ireduce_intra(const void *sbuf, void *rbuf, int count,
                                struct ompi_datatype_t *dtype, struct ompi_op_t *op, int root,
                                struct ompi_communicator_t *comm, ompi_request_t **request,
                                mca_coll_base_module_t *module)
{
    COLL_TOPO_ROUTE_FORM(module, iprev, TOPO_PRIM_REDUCE, (size_t)count * dtype->super.size, root,
                         ompi_op_is_commute(op), ireduce, sbuf, rbuf, count, dtype, op, root, comm,
                         request);
    mca_coll_topo_call_t call;
    mca_coll_topo_call_init(&call, TOPO_PRIM_REDUCE, root, dtype, op, (size_t)count, NULL, 0);
    call.mode = COLL_TOPO_NONBLOCKING;
    COLL_TOPO_BEGIN_FORM(&call, comm, module, iprev, TOPO_PRIM_REDUCE, request, ireduce, sbuf,
                         rbuf, count, dtype, op, root, comm, request);
    return start(&call, sbuf, rbuf, count, dtype, root, request);
}

int mca_coll_topo_reduce_init(const void *sbuf, void *rbuf, int count,
                              struct ompi_datatype_t *dtype, struct ompi_op_t *op, int root,
                              struct ompi_communicator_t *comm, struct ompi_info_t *info,
                              ompi_request_t **request, mca_coll_base_module_t *module)
{
    COLL_TOPO_ROUTE_FORM(module, pprev, TOPO_PRIM_REDUCE, (size_t)count * dtype->super.size, root,
                         ompi_op_is_commute(op), reduce_init, sbuf, rbuf, count, dtype, op, root,
                         comm, info, request);
    mca_coll_topo_call_t call;
    mca_coll_topo_call_init(&call, TOPO_PRIM_REDUCE, root, dtype, op, (size_t)count, NULL, 0);
    call.mode = COLL_TOPO_PERSISTENT;
    COLL_TOPO_BEGIN_FORM(&call, comm, module, pprev, TOPO_PRIM_REDUCE, request, reduce_init, sbuf,
                         rbuf, count, dtype, op, root, comm, info, request);
    return start(&call, sbuf, rbuf, count, dtype, root, request);
}
