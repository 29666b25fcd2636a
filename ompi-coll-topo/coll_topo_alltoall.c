/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * MPI_Alltoall through coll/topo: the staging buffer holds units of rcount
 * elements of the receive datatype: the send region (units [0, p)), the
 * receive region (units [p, 2p)) and any scratch the schedule uses
 * (verify.h).  The send buffer (with MPI_IN_PLACE, the receive buffer) is
 * copied in, the receive region out.
 */
#include "ompi_config.h"

#include "mpi.h"

#include "coll_topo.h"

int mca_coll_topo_alltoall_intra(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                                 void *rbuf, int rcount, struct ompi_datatype_t *rdtype,
                                 struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    COLL_TOPO_ROUTE(module, TOPO_PRIM_ALLTOALL,
                      (size_t)ompi_comm_size(comm) * (size_t)rcount * rdtype->super.size, 0, true,
                      alltoall, sbuf, scount, sdtype, rbuf, rcount, rdtype, comm);
    const int size = ompi_comm_size(comm);
    const size_t all = (size_t)size * (size_t)rcount;
    const bool in_place = MPI_IN_PLACE == sbuf;
    const size_t sent = (size_t)size * (size_t)(in_place ? rcount : scount);
    const mca_coll_topo_span_t in = {in_place ? rbuf : sbuf, (int)sent, in_place ? rdtype : sdtype,
                                     0, all},
                               out = {rbuf, (int)all, rdtype, all, all};
    mca_coll_topo_call_t call;
    mca_coll_topo_call_init(&call, TOPO_PRIM_ALLTOALL, 0, rdtype, NULL, 0, NULL, (size_t)rcount);
    COLL_TOPO_BEGIN(&call, comm, module, TOPO_PRIM_ALLTOALL, alltoall, sbuf, scount, sdtype, rbuf,
                    rcount, rdtype, comm);
    return mca_coll_topo_execute(&call, NULL, &in, &out);
}

/* The nonblocking and persistent forms: the same call, in a request. */
static int start(mca_coll_topo_call_t *call, const void *sbuf, int scount,
                 struct ompi_datatype_t *sdtype, void *rbuf, int rcount,
                 struct ompi_datatype_t *rdtype, ompi_request_t **request)
{
    const size_t all = (size_t)ompi_comm_size(call->comm) * (size_t)rcount;
    const bool in_place = MPI_IN_PLACE == sbuf;
    const size_t sent = (size_t)ompi_comm_size(call->comm) * (size_t)(in_place ? rcount : scount);
    const mca_coll_topo_span_t in = {in_place ? rbuf : sbuf, (int)sent, in_place ? rdtype : sdtype,
                                     0, all},
                               out = {rbuf, (int)all, rdtype, all, all};
    return mca_coll_topo_istart(call, NULL, &in, &out, request);
}

int mca_coll_topo_ialltoall_intra(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                                  void *rbuf, int rcount, struct ompi_datatype_t *rdtype,
                                  struct ompi_communicator_t *comm, ompi_request_t **request,
                                  mca_coll_base_module_t *module)
{
    COLL_TOPO_ROUTE_FORM(module, iprev, TOPO_PRIM_ALLTOALL,
                         (size_t)ompi_comm_size(comm) * (size_t)rcount * rdtype->super.size, 0,
                         true, ialltoall, sbuf, scount, sdtype, rbuf, rcount, rdtype, comm,
                         request);
    mca_coll_topo_call_t call;
    mca_coll_topo_call_init(&call, TOPO_PRIM_ALLTOALL, 0, rdtype, NULL, 0, NULL, (size_t)rcount);
    call.mode = COLL_TOPO_NONBLOCKING;
    COLL_TOPO_BEGIN_FORM(&call, comm, module, iprev, TOPO_PRIM_ALLTOALL, request, ialltoall, sbuf,
                         scount, sdtype, rbuf, rcount, rdtype, comm, request);
    return start(&call, sbuf, scount, sdtype, rbuf, rcount, rdtype, request);
}

int mca_coll_topo_alltoall_init(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                                void *rbuf, int rcount, struct ompi_datatype_t *rdtype,
                                struct ompi_communicator_t *comm, struct ompi_info_t *info,
                                ompi_request_t **request, mca_coll_base_module_t *module)
{
    COLL_TOPO_ROUTE_FORM(module, pprev, TOPO_PRIM_ALLTOALL,
                         (size_t)ompi_comm_size(comm) * (size_t)rcount * rdtype->super.size, 0,
                         true, alltoall_init, sbuf, scount, sdtype, rbuf, rcount, rdtype, comm,
                         info, request);
    mca_coll_topo_call_t call;
    mca_coll_topo_call_init(&call, TOPO_PRIM_ALLTOALL, 0, rdtype, NULL, 0, NULL, (size_t)rcount);
    call.mode = COLL_TOPO_PERSISTENT;
    COLL_TOPO_BEGIN_FORM(&call, comm, module, pprev, TOPO_PRIM_ALLTOALL, request, alltoall_init,
                         sbuf, scount, sdtype, rbuf, rcount, rdtype, comm, info, request);
    return start(&call, sbuf, scount, sdtype, rbuf, rcount, rdtype, request);
}
