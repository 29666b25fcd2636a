/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Stand-in for an Open MPI header that some binary distributions (Debian 12's
 * libopenmpi-dev among them) do not install although ompi/op/op.h includes
 * it.  ompi/op/op.h only needs OMPI_INT_2_FINT (to hand a count and a
 * datatype index to a Fortran user operation); OMPI_FINT_2_INT is the
 * reverse.  Plain value conversions are all this component needs: it never
 * passes arrays between C and Fortran.
 *
 * configure adds the directory holding this file to the include path only
 * when <ompi/op/op.h> does not compile without it.
 */
#ifndef TOPO_COMPAT_FINT_2_INT_H
#define TOPO_COMPAT_FINT_2_INT_H

#ifndef OMPI_INT_2_FINT
#define OMPI_INT_2_FINT(a) ((MPI_Fint)(a))
#endif

#ifndef OMPI_FINT_2_INT
#define OMPI_FINT_2_INT(a) ((int)(a))
#endif

#endif /* TOPO_COMPAT_FINT_2_INT_H */
