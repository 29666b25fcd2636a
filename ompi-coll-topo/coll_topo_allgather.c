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
