/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI_Reduce_scatter and MPI_Reduce_scatter_block through coll/topo (one
 * primitive, coll_topo_reduce_scatter_algorithm): the staging buffer holds
 * every rank's units (recvcounts, zeros included); rank r ends with the
 * reduction of its own unit (verify.h), which it copies out.  With
 * MPI_IN_PLACE the input is in the receive buffer.
 */
#include "ompi_config.h"

#include "mpi.h"

#include "coll_topo.h"

/* The whole input in, the rank's unit ([at, at + mine) of `total`) out:
 * now, or (request not NULL) in a request of the call's form. */
static int scatter(const mca_coll_topo_call_t *call, const void *sbuf, void *rbuf, size_t total,
                   size_t at, int mine, ompi_request_t **request)
{
    const mca_coll_topo_span_t in = {MPI_IN_PLACE == sbuf ? rbuf : sbuf, (int)total, call->dtype, 0,
                                     total},
                               out = {rbuf, mine, call->dtype, at, (size_t)mine};
    if (NULL != request) {
        return mca_coll_topo_istart(call, NULL, &in, &out, request);
    }
    return mca_coll_topo_execute(call, NULL, &in, &out);
}

/* The rank's unit of rcounts: where it starts, and the total. */
static int scatter_counts(const mca_coll_topo_call_t *call, const void *sbuf, void *rbuf,
                          const int *rcounts, ompi_request_t **request)
{
    const int me = ompi_comm_rank(call->comm);
    size_t at = 0, total = 0;
    for (int r = 0; r < ompi_comm_size(call->comm); r++) {
        at += r < me ? (size_t)rcounts[r] : 0;
        total += (size_t)rcounts[r];
    }
    return scatter(call, sbuf, rbuf, total, at, rcounts[me], request);
}

/* reduce_scatter_block: units of rcount. */
static int scatter_block(const mca_coll_topo_call_t *call, const void *sbuf, void *rbuf,
                         int rcount, ompi_request_t **request)
{
    const size_t unit = (size_t)rcount;
    return scatter(call, sbuf, rbuf, unit * (size_t)ompi_comm_size(call->comm),
                   unit * (size_t)ompi_comm_rank(call->comm), rcount, request);
}

int mca_coll_topo_reduce_scatter_intra(const void *sbuf, void *rbuf, const int *rcounts,
                                       struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                                       struct ompi_communicator_t *comm,
                                       mca_coll_base_module_t *module)
{
    mca_coll_topo_call_t call;
    mca_coll_topo_call_init(&call, TOPO_PRIM_REDUCE_SCATTER, 0, dtype, op, 0, rcounts, 0);
    COLL_TOPO_BEGIN(&call, comm, module, TOPO_PRIM_REDUCE_SCATTER, reduce_scatter, sbuf, rbuf,
                    rcounts, dtype, op, comm);
    return scatter_counts(&call, sbuf, rbuf, rcounts, NULL);
}

int mca_coll_topo_reduce_scatter_block_intra(const void *sbuf, void *rbuf, int rcount,
                                             struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                                             struct ompi_communicator_t *comm,
                                             mca_coll_base_module_t *module)
{
    COLL_TOPO_ROUTE(module, COLL_TOPO_SLOT_REDUCE_SCATTER_BLOCK,
                      (size_t)ompi_comm_size(comm) * (size_t)rcount * dtype->super.size, 0,
                      ompi_op_is_commute(op), reduce_scatter_block, sbuf, rbuf, rcount, dtype, op,
                      comm);
    const size_t unit = (size_t)rcount;
    mca_coll_topo_call_t call;
    mca_coll_topo_call_init(&call, TOPO_PRIM_REDUCE_SCATTER, 0, dtype, op, 0, NULL, unit);
    COLL_TOPO_BEGIN(&call, comm, module, COLL_TOPO_SLOT_REDUCE_SCATTER_BLOCK, reduce_scatter_block,
                    sbuf, rbuf, rcount, dtype, op, comm);
    return scatter_block(&call, sbuf, rbuf, rcount, NULL);
}

int mca_coll_topo_ireduce_scatter_intra(const void *sbuf, void *rbuf, const int *rcounts,
                                        struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                                        struct ompi_communicator_t *comm,
                                        ompi_request_t **request, mca_coll_base_module_t *module)
{
    mca_coll_topo_call_t call;
    mca_coll_topo_call_init(&call, TOPO_PRIM_REDUCE_SCATTER, 0, dtype, op, 0, rcounts, 0);
    call.mode = COLL_TOPO_NONBLOCKING;
    COLL_TOPO_BEGIN_FORM(&call, comm, module, iprev, TOPO_PRIM_REDUCE_SCATTER, request,
                         ireduce_scatter, sbuf, rbuf, rcounts, dtype, op, comm, request);
    return scatter_counts(&call, sbuf, rbuf, rcounts, request);
}

int mca_coll_topo_reduce_scatter_init(const void *sbuf, void *rbuf, const int *rcounts,
                                      struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                                      struct ompi_communicator_t *comm, struct ompi_info_t *info,
                                      ompi_request_t **request, mca_coll_base_module_t *module)
{
    mca_coll_topo_call_t call;
    mca_coll_topo_call_init(&call, TOPO_PRIM_REDUCE_SCATTER, 0, dtype, op, 0, rcounts, 0);
    call.mode = COLL_TOPO_PERSISTENT;
    COLL_TOPO_BEGIN_FORM(&call, comm, module, pprev, TOPO_PRIM_REDUCE_SCATTER, request,
                         reduce_scatter_init, sbuf, rbuf, rcounts, dtype, op, comm, info, request);
    return scatter_counts(&call, sbuf, rbuf, rcounts, request);
}

int mca_coll_topo_ireduce_scatter_block_intra(const void *sbuf, void *rbuf, int rcount,
                                              struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                                              struct ompi_communicator_t *comm,
                                              ompi_request_t **request,
                                              mca_coll_base_module_t *module)
{
    COLL_TOPO_ROUTE_FORM(module, iprev, COLL_TOPO_SLOT_REDUCE_SCATTER_BLOCK,
                         (size_t)ompi_comm_size(comm) * (size_t)rcount * dtype->super.size, 0,
                         ompi_op_is_commute(op), ireduce_scatter_block, sbuf, rbuf, rcount, dtype,
                         op, comm, request);
    mca_coll_topo_call_t call;
    mca_coll_topo_call_init(&call, TOPO_PRIM_REDUCE_SCATTER, 0, dtype, op, 0, NULL,
                            (size_t)rcount);
    call.mode = COLL_TOPO_NONBLOCKING;
    COLL_TOPO_BEGIN_FORM(&call, comm, module, iprev, COLL_TOPO_SLOT_REDUCE_SCATTER_BLOCK, request,
                         ireduce_scatter_block, sbuf, rbuf, rcount, dtype, op, comm, request);
    return scatter_block(&call, sbuf, rbuf, rcount, request);
}

int mca_coll_topo_reduce_scatter_block_init(const void *sbuf, void *rbuf, int rcount,
                                            struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                                            struct ompi_communicator_t *comm,
                                            struct ompi_info_t *info, ompi_request_t **request,
                                            mca_coll_base_module_t *module)
{
    COLL_TOPO_ROUTE_FORM(module, pprev, COLL_TOPO_SLOT_REDUCE_SCATTER_BLOCK,
                         (size_t)ompi_comm_size(comm) * (size_t)rcount * dtype->super.size, 0,
                         ompi_op_is_commute(op), reduce_scatter_block_init, sbuf, rbuf, rcount,
                         dtype, op, comm, info, request);
    mca_coll_topo_call_t call;
    mca_coll_topo_call_init(&call, TOPO_PRIM_REDUCE_SCATTER, 0, dtype, op, 0, NULL,
                            (size_t)rcount);
    call.mode = COLL_TOPO_PERSISTENT;
    COLL_TOPO_BEGIN_FORM(&call, comm, module, pprev, COLL_TOPO_SLOT_REDUCE_SCATTER_BLOCK, request,
                         reduce_scatter_block_init, sbuf, rbuf, rcount, dtype, op, comm, info,
                         request);
    return scatter_block(&call, sbuf, rbuf, rcount, request);
}
