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

/* The whole input in, the rank's unit ([at, at + mine) of `total`) out. */
static int scatter(const mca_coll_topo_call_t *call, const void *sbuf, void *rbuf, size_t total,
                   size_t at, int mine)
{
    const mca_coll_topo_span_t in = {MPI_IN_PLACE == sbuf ? rbuf : sbuf, (int)total, call->dtype, 0,
                                     total},
                               out = {rbuf, mine, call->dtype, at, (size_t)mine};
    return mca_coll_topo_execute(call, NULL, &in, &out);
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
    const int me = ompi_comm_rank(comm);
    size_t at = 0, total = 0;
    for (int r = 0; r < ompi_comm_size(comm); r++) {
        at += r < me ? (size_t)rcounts[r] : 0;
        total += (size_t)rcounts[r];
    }
    return scatter(&call, sbuf, rbuf, total, at, rcounts[me]);
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
    return scatter(&call, sbuf, rbuf, unit * (size_t)ompi_comm_size(comm),
                   unit * (size_t)ompi_comm_rank(comm), rcount);
}
