dnl -*- autoconf -*-
dnl Copyright (c) The ompi-coll-topo authors.
dnl SPDX-License-Identifier: BSD-3-Clause
dnl
dnl Macros of the out-of-tree build of coll/topo (configure.ac).  The in-tree
dnl build does not use this file: Open MPI's own configure provides the flags
dnl there and ompi-coll-topo/configure.m4 fills in the rest.

dnl TOPO_CHECK_CFLAG(FLAG, [ACTION-IF-OK], [ACTION-IF-NOT])
dnl ---------------------------------------------------------------------
dnl Does the C compiler accept FLAG (compile and link)?  -Werror makes the
dnl compiler reject unknown flags instead of warning about them.
AC_DEFUN([TOPO_CHECK_CFLAG], [
    AS_VAR_PUSHDEF([topo_cv], [topo_cv_cflag_$1])
    AC_CACHE_CHECK([whether $CC accepts $1], [topo_cv], [
        topo_save_CFLAGS=$CFLAGS
        CFLAGS="$CFLAGS -Werror $1"
        AC_LINK_IFELSE([AC_LANG_PROGRAM([], [])],
                       [AS_VAR_SET([topo_cv], [yes])],
                       [AS_VAR_SET([topo_cv], [no])])
        CFLAGS=$topo_save_CFLAGS])
    AS_VAR_IF([topo_cv], [yes], [$2], [$3])
    AS_VAR_POPDEF([topo_cv])
])

dnl TOPO_FIND_OMPI
dnl ---------------------------------------------------------------------
dnl Locate Open MPI: mpicc, ompi_info, mpirun, the compile and link flags,
dnl the component and data directories and the version.  Honours
dnl --with-ompi=PREFIX and the MPICC / OMPI_INFO / MPIRUN variables.
dnl
dnl Output (AC_SUBST):
dnl   MPICC MPIRUN OMPI_INFO
dnl   TOPO_OMPI_CPPFLAGS   -I flags for <mpi.h> and Open MPI's devel headers
dnl   TOPO_OMPI_LIBS       what an MPI program links (-L... -lmpi)
dnl   TOPO_OMPI_LIBDIR     the directory of libmpi
dnl   TOPO_OMPI_PKGLIBDIR  Open MPI's component directory
dnl   TOPO_OMPI_PKGDATADIR Open MPI's data (help file) directory
dnl   TOPO_OMPI_VERSION    MAJOR.MINOR.RELEASE
AC_DEFUN([TOPO_FIND_OMPI], [
    AC_REQUIRE([AC_PROG_CC])
    AC_REQUIRE([PKG_PROG_PKG_CONFIG])

    AC_ARG_WITH([ompi],
        [AS_HELP_STRING([--with-ompi=PREFIX],
            [Open MPI 4.1 installation to build against (uses PREFIX/bin/mpicc
             and PREFIX/bin/ompi_info); default: the mpicc found in PATH])],
        [], [with_ompi=])
    AS_CASE([$with_ompi],
        [yes|no], [AC_MSG_ERROR([--with-ompi needs the installation prefix of Open MPI, e.g. --with-ompi=/opt/openmpi])])
    AC_ARG_VAR([MPICC], [Open MPI's C compiler wrapper, used only to query flags])
    AC_ARG_VAR([OMPI_INFO], [Open MPI's ompi_info])
    AC_ARG_VAR([MPIRUN], [Open MPI's mpirun, used by the MPI tests and the demo])

    AS_IF([test -n "$with_ompi"], [
        AS_IF([test -d "$with_ompi"], [],
              [AC_MSG_ERROR([--with-ompi=$with_ompi: no such directory])])
        topo_ompi_path="$with_ompi/bin"
        AS_IF([test -z "$MPICC" && test -x "$with_ompi/bin/mpicc"], [MPICC="$with_ompi/bin/mpicc"])
        AS_IF([test -z "$OMPI_INFO" && test -x "$with_ompi/bin/ompi_info"], [OMPI_INFO="$with_ompi/bin/ompi_info"])
        AS_IF([test -z "$MPIRUN" && test -x "$with_ompi/bin/mpirun"], [MPIRUN="$with_ompi/bin/mpirun"])
        PKG_CONFIG_PATH="$with_ompi/lib/pkgconfig:$with_ompi/lib64/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
        export PKG_CONFIG_PATH
    ], [
        topo_ompi_path="$PATH"
    ])
    AC_PATH_PROGS([MPICC], [mpicc], [], [$topo_ompi_path])
    AC_PATH_PROGS([OMPI_INFO], [ompi_info], [], [$topo_ompi_path])
    AC_PATH_PROGS([MPIRUN], [mpirun mpiexec], [], [$topo_ompi_path])

    dnl Compile flags: the wrapper first, pkg-config second.
    AC_MSG_CHECKING([for Open MPI compile flags])
    TOPO_OMPI_CPPFLAGS=
    topo_ompi_flags_from=
    AS_IF([test -n "$MPICC"], [
        topo_tmp=`$MPICC --showme:compile 2>/dev/null` && {
            TOPO_OMPI_CPPFLAGS=$topo_tmp
            topo_ompi_flags_from="$MPICC --showme"
        }
    ])
    AS_IF([test -z "$topo_ompi_flags_from" && test -n "$PKG_CONFIG"], [
        topo_tmp=`$PKG_CONFIG --cflags ompi 2>/dev/null` && {
            TOPO_OMPI_CPPFLAGS=$topo_tmp
            topo_ompi_flags_from="pkg-config ompi"
        }
    ])
    AS_IF([test -z "$topo_ompi_flags_from"], [
        AC_MSG_RESULT([not found])
        AC_MSG_ERROR([cannot find Open MPI: neither 'mpicc --showme:compile' nor 'pkg-config ompi' works.
Install Open MPI 4.1 with its development files (Debian: apt-get install libopenmpi-dev openmpi-bin,
or run scripts/install-deps.sh), or point configure at it with --with-ompi=PREFIX.])
    ])
    AC_MSG_RESULT([$TOPO_OMPI_CPPFLAGS (from $topo_ompi_flags_from)])

    dnl Link flags of an MPI program.
    AC_MSG_CHECKING([for Open MPI link flags])
    TOPO_OMPI_LIBS=
    AS_IF([test "$topo_ompi_flags_from" != "pkg-config ompi"],
          [TOPO_OMPI_LIBS=`$MPICC --showme:link 2>/dev/null`],
          [TOPO_OMPI_LIBS=`$PKG_CONFIG --libs ompi 2>/dev/null`])
    AS_IF([test -z "$TOPO_OMPI_LIBS"], [TOPO_OMPI_LIBS="-lmpi"])
    AC_MSG_RESULT([$TOPO_OMPI_LIBS])

    dnl The directory of libmpi (where libopen-pal lives too).
    TOPO_OMPI_LIBDIR=
    AS_IF([test "$topo_ompi_flags_from" != "pkg-config ompi"],
          [TOPO_OMPI_LIBDIR=`$MPICC --showme:libdirs 2>/dev/null | awk '{print $[1]}'`])
    AS_IF([test -z "$TOPO_OMPI_LIBDIR"], [
        for topo_tok in $TOPO_OMPI_LIBS; do
            AS_CASE([$topo_tok], [-L*], [TOPO_OMPI_LIBDIR=`echo "$topo_tok" | sed 's/^-L//'`; break])
        done
    ])
    AS_IF([test -z "$TOPO_OMPI_LIBDIR" && test -n "$with_ompi"], [TOPO_OMPI_LIBDIR="$with_ompi/lib"])
    AC_MSG_CHECKING([for the directory of libmpi])
    AC_MSG_RESULT([${TOPO_OMPI_LIBDIR:-default linker path}])

    dnl The version, from <mpi.h> (what we compile against).
    topo_save_CPPFLAGS=$CPPFLAGS
    CPPFLAGS="$CPPFLAGS $TOPO_OMPI_CPPFLAGS"
    AC_CHECK_HEADER([mpi.h], [],
        [AC_MSG_ERROR([<mpi.h> not found with '$TOPO_OMPI_CPPFLAGS': is Open MPI's development package installed?])])
    AC_COMPUTE_INT([topo_ompi_major], [OMPI_MAJOR_VERSION], [#include <mpi.h>], [topo_ompi_major=])
    AC_COMPUTE_INT([topo_ompi_minor], [OMPI_MINOR_VERSION], [#include <mpi.h>], [topo_ompi_minor=])
    AC_COMPUTE_INT([topo_ompi_release], [OMPI_RELEASE_VERSION], [#include <mpi.h>], [topo_ompi_release=])
    CPPFLAGS=$topo_save_CPPFLAGS
    AC_MSG_CHECKING([for the Open MPI version])
    AS_IF([test -n "$topo_ompi_major" && test -n "$topo_ompi_minor" && test -n "$topo_ompi_release"], [
        TOPO_OMPI_VERSION="$topo_ompi_major.$topo_ompi_minor.$topo_ompi_release"
    ], [
        dnl Not Open MPI's mpi.h (MPICH, ...): ask ompi_info for the message.
        TOPO_OMPI_VERSION=unknown
        AS_IF([test -n "$OMPI_INFO"], [
            topo_tmp=`$OMPI_INFO --parsable --version 2>/dev/null | sed -n 's/^Open MPI v//p' | head -n 1`
            AS_IF([test -n "$topo_tmp"], [TOPO_OMPI_VERSION=$topo_tmp])
        ])
    ])
    AC_MSG_RESULT([$TOPO_OMPI_VERSION])

    dnl Component and data directories.
    TOPO_OMPI_PKGLIBDIR=
    TOPO_OMPI_PKGDATADIR=
    AS_IF([test -n "$OMPI_INFO"], [
        TOPO_OMPI_PKGLIBDIR=`$OMPI_INFO --parsable --path pkglibdir 2>/dev/null | sed -n 's/^path:pkglibdir://p'`
        TOPO_OMPI_PKGDATADIR=`$OMPI_INFO --parsable --path pkgdatadir 2>/dev/null | sed -n 's/^path:pkgdatadir://p'`
    ])
    AS_IF([test -z "$TOPO_OMPI_PKGLIBDIR" && test -n "$TOPO_OMPI_LIBDIR"],
          [TOPO_OMPI_PKGLIBDIR="$TOPO_OMPI_LIBDIR/openmpi"])
    AC_MSG_CHECKING([for Open MPI's component directory (pkglibdir)])
    AC_MSG_RESULT([${TOPO_OMPI_PKGLIBDIR:-unknown}])
    AC_MSG_CHECKING([for Open MPI's data directory (pkgdatadir)])
    AC_MSG_RESULT([${TOPO_OMPI_PKGDATADIR:-unknown}])

    AC_SUBST([TOPO_OMPI_CPPFLAGS])
    AC_SUBST([TOPO_OMPI_LIBS])
    AC_SUBST([TOPO_OMPI_LIBDIR])
    AC_SUBST([TOPO_OMPI_PKGLIBDIR])
    AC_SUBST([TOPO_OMPI_PKGDATADIR])
    AC_SUBST([TOPO_OMPI_VERSION])
])

dnl TOPO_CHECK_COLL_API
dnl ---------------------------------------------------------------------
dnl Stop unless the installed headers have the coll framework interface the
dnl component is written for (Open MPI 4.1.x).  Also decides whether the
dnl compat/ shim for <ompi/op/op.h> is needed.
dnl
dnl Output: TOPO_NEED_COMPAT (yes/no), TOPO_COMPAT_CPPFLAGS (AC_SUBST, a
dnl string that make expands relative to the component's directory).
AC_DEFUN([TOPO_CHECK_COLL_API], [
    AC_REQUIRE([TOPO_FIND_OMPI])
    topo_save_CPPFLAGS=$CPPFLAGS
    CPPFLAGS="$CPPFLAGS $TOPO_OMPI_CPPFLAGS"
    topo_supported="4.1.x"

    AC_MSG_CHECKING([whether Open MPI's devel headers are installed (ompi_config.h)])
    AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[#include <ompi_config.h>]], [])],
        [AC_MSG_RESULT([yes])],
        [AC_MSG_RESULT([no])
         AC_MSG_ERROR([found Open MPI $TOPO_OMPI_VERSION, but not its internal (devel) headers: <ompi_config.h> does not compile.
coll/topo needs an Open MPI $topo_supported built --with-devel-headers (Debian: libopenmpi-dev).])])

    AC_MSG_CHECKING([for the Open MPI 4.1 coll framework interface])
    AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[
#include <ompi_config.h>
#include <ompi/mca/coll/coll.h>
#include <ompi/mca/coll/base/base.h>
static mca_coll_base_component_2_0_0_t topo_conftest_component = {
    .collm_version = { MCA_COLL_BASE_VERSION_2_0_0 },
};
]], [[
    mca_coll_base_module_2_3_0_t *m = NULL;
    (void) topo_conftest_component;
    return NULL != m && NULL != m->coll_allreduce;
]])],
        [AC_MSG_RESULT([yes])],
        [AC_MSG_RESULT([no])
         AC_MSG_ERROR([found Open MPI $TOPO_OMPI_VERSION, whose coll framework interface is not the one of Open MPI $topo_supported
(mca_coll_base_component_2_0_0_t, mca_coll_base_module_2_3_0_t, MCA_COLL_BASE_VERSION_2_0_0).
coll/topo supports Open MPI $topo_supported only; see config.log for the compiler's messages.])])

    AC_MSG_CHECKING([whether Open MPI $TOPO_OMPI_VERSION is a supported release])
    AS_CASE([$TOPO_OMPI_VERSION],
        [4.1.*], [AC_MSG_RESULT([yes])],
        [AC_MSG_RESULT([no])
         AC_MSG_ERROR([found Open MPI $TOPO_OMPI_VERSION; coll/topo supports Open MPI $topo_supported only
(component structure layouts differ between releases).])])

    dnl Some binary packages (Debian 12) do not ship a header that
    dnl <ompi/op/op.h> includes: use our shim from compat/ only then.
    TOPO_NEED_COMPAT=no
    TOPO_COMPAT_CPPFLAGS=
    m4_pushdef([topo_op_test], [AC_LANG_PROGRAM([[
#include <ompi_config.h>
#include <ompi/op/op.h>
]], [[ return NULL == &ompi_op_reduce; ]])])
    AC_MSG_CHECKING([whether <ompi/op/op.h> compiles as installed])
    AC_COMPILE_IFELSE([topo_op_test], [AC_MSG_RESULT([yes])], [
        AC_MSG_RESULT([no])
        AC_MSG_CHECKING([whether <ompi/op/op.h> compiles with the compat/ shim])
        CPPFLAGS="-I$topo_abs_srcdir/ompi-coll-topo/compat $CPPFLAGS"
        AC_COMPILE_IFELSE([topo_op_test], [
            AC_MSG_RESULT([yes])
            TOPO_NEED_COMPAT=yes
            TOPO_COMPAT_CPPFLAGS='-I$(srcdir)/compat'
        ], [
            AC_MSG_RESULT([no])
            AC_MSG_ERROR([<ompi/op/op.h> of Open MPI $TOPO_OMPI_VERSION does not compile, even with compat/; see config.log])
        ])
    ])
    m4_popdef([topo_op_test])
    CPPFLAGS=$topo_save_CPPFLAGS
    AC_SUBST([TOPO_COMPAT_CPPFLAGS])
])

dnl TOPO_CHECK_OMPI_LINK
dnl ---------------------------------------------------------------------
dnl The component calls into libmpi and libopen-pal directly.  Find how to
dnl link libopen-pal: -lopen-pal when a development symlink exists, else
dnl the versioned file by its full path.
dnl
dnl Output: TOPO_COMPONENT_LIBS (AC_SUBST).
AC_DEFUN([TOPO_CHECK_OMPI_LINK], [
    AC_REQUIRE([TOPO_FIND_OMPI])
    topo_save_LIBS=$LIBS
    topo_save_CPPFLAGS=$CPPFLAGS
    CPPFLAGS="$CPPFLAGS $TOPO_OMPI_CPPFLAGS"
    m4_pushdef([topo_link_test], [AC_LANG_PROGRAM([[
#include <ompi_config.h>
#include <opal/util/output.h>
#include <opal/util/show_help.h>
#include <mpi.h>
]], [[
    opal_output(0, "%d", MPI_VERSION);
    return opal_show_help_add_dir("/");
]])])

    AC_MSG_CHECKING([how to link libmpi and libopen-pal])
    TOPO_COMPONENT_LIBS=
    for topo_pal in "-lopen-pal" $TOPO_OMPI_LIBDIR/libopen-pal.so.*[[0-9]]; do
        AS_CASE([$topo_pal], [*'*'*], [continue])
        LIBS="$TOPO_OMPI_LIBS $topo_pal $topo_save_LIBS"
        AC_LINK_IFELSE([topo_link_test], [TOPO_COMPONENT_LIBS="$TOPO_OMPI_LIBS $topo_pal"; break])
    done
    LIBS=$topo_save_LIBS
    CPPFLAGS=$topo_save_CPPFLAGS
    m4_popdef([topo_link_test])
    AS_IF([test -z "$TOPO_COMPONENT_LIBS"], [
        AC_MSG_RESULT([failed])
        AC_MSG_ERROR([cannot link a program against Open MPI $TOPO_OMPI_VERSION's libmpi and libopen-pal
(tried -lopen-pal and $TOPO_OMPI_LIBDIR/libopen-pal.so.*); see config.log])
    ])
    AC_MSG_RESULT([$TOPO_COMPONENT_LIBS])
    AC_SUBST([TOPO_COMPONENT_LIBS])
])

dnl TOPO_EXPAND_DIR(VAR, VALUE)
dnl ---------------------------------------------------------------------
dnl Set VAR to VALUE with ${prefix}, ${datadir}... expanded, for paths that
dnl are compiled into the component.
AC_DEFUN([TOPO_EXPAND_DIR], [
    topo_save_prefix=$prefix
    topo_save_exec_prefix=$exec_prefix
    test "x$prefix" = xNONE && prefix=$ac_default_prefix
    test "x$exec_prefix" = xNONE && exec_prefix=$prefix
    topo_tmp="$2"
    topo_prev=
    while test "x$topo_tmp" != "x$topo_prev"; do
        topo_prev=$topo_tmp
        eval topo_tmp="\"$topo_tmp\""
    done
    $1=$topo_tmp
    prefix=$topo_save_prefix
    exec_prefix=$topo_save_exec_prefix
])
