/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI_Allgather through coll/topo: the receive buffer is the work buffer,
 * one unit of rcount elements per rank; block b starts at rank b / nparts
 * only (verify.h), so a rank copies its contribution into its own unit
 * (with MPI_IN_PLACE it is already there).
 */
#include "ompi_config.h"

#include "mpi.h"

#include "coll_topo.h"

int mca_coll_topo_allgather_intra(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                                  void *rbuf, int rcount, struct ompi_datatype_t *rdtype,
                                  struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    COLL_TOPO_ROUTE(module, TOPO_PRIM_ALLGATHER,
                      (size_t)ompi_comm_size(comm) * (size_t)rcount * rdtype->super.size, 0, true,
                      allgather, sbuf, scount, sdtype, rbuf, rcount, rdtype, comm);
    const size_t unit = (size_t)rcount;
    const mca_coll_topo_span_t mine = {sbuf, scount, sdtype, unit * (size_t)ompi_comm_rank(comm),
                                       unit};
    mca_coll_topo_call_t call;
    mca_coll_topo_call_init(&call, TOPO_PRIM_ALLGATHER, 0, rdtype, NULL, 0, NULL, unit);
    COLL_TOPO_BEGIN(&call, comm, module, TOPO_PRIM_ALLGATHER, allgather, sbuf, scount, sdtype, rbuf,
                    rcount, rdtype, comm);
    return mca_coll_topo_execute(&call, rbuf, MPI_IN_PLACE == sbuf ? NULL : &mine, NULL);
}

/* The nonblocking and persistent forms: the same call, in a request. */
static int start(mca_coll_topo_call_t *call, const void *sbuf, int scount,
                 struct ompi_datatype_t *sdtype, void *rbuf, int rcount,
                 ompi_request_t **request)
{
    const size_t unit = (size_t)rcount;
    const mca_coll_topo_span_t mine = {sbuf, scount, sdtype,
                                       unit * (size_t)ompi_comm_rank(call->comm), unit};
    return mca_coll_topo_istart(call, rbuf, MPI_IN_PLACE == sbuf ? NULL : &mine, NULL, request);
}

int mca_coll_topo_iallgather_intra(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                                   void *rbuf, int rcount, struct ompi_datatype_t *rdtype,
                                   struct ompi_communicator_t *comm, ompi_request_t **request,
                                   mca_coll_base_module_t *module)
{
    COLL_TOPO_ROUTE_FORM(module, iprev, TOPO_PRIM_ALLGATHER,
                         (size_t)ompi_comm_size(comm) * (size_t)rcount * rdtype->super.size, 0,
                         true, iallgather, sbuf, scount, sdtype, rbuf, rcount, rdtype, comm,
                         request);
    mca_coll_topo_call_t call;
    mca_coll_topo_call_init(&call, TOPO_PRIM_ALLGATHER, 0, rdtype, NULL, 0, NULL, (size_t)rcount);
    call.mode = COLL_TOPO_NONBLOCKING;
    COLL_TOPO_BEGIN_FORM(&call, comm, module, iprev, TOPO_PRIM_ALLGATHER, request, iallgather,
                         sbuf, scount, sdtype, rbuf, rcount, rdtype, comm, request);
    return start(&call, sbuf, scount, sdtype, rbuf, rcount, request);
}

int mca_coll_topo_allgather_init(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                                 void *rbuf, int rcount, struct ompi_datatype_t *rdtype,
                                 struct ompi_communicator_t *comm, struct ompi_info_t *info,
                                 ompi_request_t **request, mca_coll_base_module_t *module)
{
    COLL_TOPO_ROUTE_FORM(module, pprev, TOPO_PRIM_ALLGATHER,
                         (size_t)ompi_comm_size(comm) * (size_t)rcount * rdtype->super.size, 0,
                         true, allgather_init, sbuf, scount, sdtype, rbuf, rcount, rdtype, comm,
                         info, request);
    mca_coll_topo_call_t call;
    mca_coll_topo_call_init(&call, TOPO_PRIM_ALLGATHER, 0, rdtype, NULL, 0, NULL, (size_t)rcount);
    call.mode = COLL_TOPO_PERSISTENT;
    COLL_TOPO_BEGIN_FORM(&call, comm, module, pprev, TOPO_PRIM_ALLGATHER, request, allgather_init,
                         sbuf, scount, sdtype, rbuf, rcount, rdtype, comm, info, request);
    return start(&call, sbuf, scount, sdtype, rbuf, rcount, request);
}
