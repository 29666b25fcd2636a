/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The transport choice (coll_topo_transport) and the libfabric transport
 * (coll_topo_ofi.c).  Built with or without libfabric: without it, the
 * parameters still exist and every communicator uses the PML (ofi asked
 * for gets a message saying the component was built without libfabric).
 */
#ifndef MCA_COLL_TOPO_OFI_H
#define MCA_COLL_TOPO_OFI_H

#include "ompi_config.h"

#include "ompi/communicator/communicator.h"

#include "coll_topo_transport.h"

BEGIN_C_DECLS

/* coll_topo_transport (a row of coll_topo_params.c's table, agreed with
 * coll_topo_ofi_provider by every rank of a communicator) */
enum { COLL_TOPO_TRANSPORT_PML = 0, COLL_TOPO_TRANSPORT_OFI = 1, COLL_TOPO_TRANSPORT_AUTO = 2 };

/* At component open, before MPI_Init's modex fence: where the transport
 * may be libfabric, open the provider and endpoint and publish the
 * endpoint's address (coll_topo_ofi.c says why there).  Never fails: a
 * provider that cannot serve leaves the PML, and the reason, for the
 * communicators' first calls to report. */
void mca_coll_topo_ofi_open(void);
/* At component close: the endpoint and provider go. */
void mca_coll_topo_ofi_close(void);
/* A communicator's first call (every rank calls it, after the ranks agreed
 * on their inputs): choose the transport of `comm` together, and set `tp`
 * up as that transport (left as the PML transport otherwise).  Every rank
 * reaches the same choice.  `say`: print the verbose line of the choice. */
void mca_coll_topo_transport_select(struct ompi_communicator_t *comm, mca_coll_topo_tp_t *tp,
                                    bool say);

END_C_DECLS

#endif /* MCA_COLL_TOPO_OFI_H */
