dnl -*- autoconf -*-
dnl Copyright (c) The ompi-coll-topo authors.
dnl SPDX-License-Identifier: BSD-3-Clause
dnl
dnl In-tree build of coll/topo (as ompi/mca/coll/topo of an Open MPI 4.1
dnl source tree).  Open MPI's autogen.pl finds this file; Open MPI's
dnl configure then calls the macro below, always, for this component.
dnl The out-of-tree build does not use this file (see configure.ac).

dnl MCA_ompi_coll_topo_CONFIG([action-if-can-compile], [action-if-cant-compile])
dnl ---------------------------------------------------------------------------
AC_DEFUN([MCA_ompi_coll_topo_CONFIG], [
    AC_CONFIG_FILES([ompi/mca/coll/topo/Makefile])

    dnl ompi-coll-topo/Makefile.am serves both builds; in-tree, Open MPI
    dnl provides the flags, libmpi and the directories.
    AM_CONDITIONAL([TOPO_OUT_OF_TREE], [false])

    dnl The libfabric transport (coll_topo_ofi.c) where Open MPI's own
    dnl libfabric check succeeded (its --with-ofi / --without-ofi; the
    dnl opal project, whose common/ofi runs that check, is configured
    dnl before this one), with the flags it found.
    AS_IF([test "$opal_common_ofi_happy" = yes],
        [coll_topo_have_ofi=yes
         TOPO_OFI_CFLAGS=$opal_common_ofi_CPPFLAGS
         TOPO_OFI_LIBS="$opal_common_ofi_LDFLAGS $opal_common_ofi_LIBS"],
        [coll_topo_have_ofi=no
         TOPO_OFI_CFLAGS=
         TOPO_OFI_LIBS=])
    AC_MSG_CHECKING([whether coll/topo builds its libfabric transport])
    AC_MSG_RESULT([$coll_topo_have_ofi])
    AC_SUBST([TOPO_OFI_CFLAGS])
    AC_SUBST([TOPO_OFI_LIBS])
    AM_CONDITIONAL([TOPO_HAVE_OFI], [test "$coll_topo_have_ofi" = yes])

    dnl The core is plain C; the glue only needs what every coll
    dnl component needs, which the tree has.
    $1
])
