dnl -*- autoconf -*-
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

    dnl The core is plain C; the glue only needs what every coll
    dnl component needs, which the tree has.
    $1
])
