/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * coll/topo component: the structure Open MPI loads, open (version check,
 * parameters parsed) and close.  The MCA parameters are the table of
 * coll_topo_params.c; the queries are in coll_topo_module.c.
 */
#include "ompi_config.h"

/* The project's configure output (TOPO_HELP_DIR, TOPO_BUILD_OMPI_VERSION);
 * defaults below keep a by-hand compile working. */
#if defined(HAVE_TOPO_CONFIG_H)
#include "topo_config.h"
#elif defined(__has_include)
#if __has_include("topo_config.h")
#include "topo_config.h"
#endif
#endif

#include <stdio.h>
#include <stdlib.h>
#include <stdarg.h>
#include <string.h>

#include "mpi.h"
#include "opal/mca/base/mca_base_var.h"
#include "opal/util/show_help.h"
#include "opal/util/proc.h"

#include "coll_topo.h"
#include "coll_topo_ofi.h"

#define TOPO_STR_(x) #x
#define TOPO_STR(x) TOPO_STR_(x)
#ifndef TOPO_BUILD_OMPI_VERSION
/* The headers we compile against are the build-time release. */
#define TOPO_BUILD_OMPI_VERSION \
    TOPO_STR(OMPI_MAJOR_VERSION) "." TOPO_STR(OMPI_MINOR_VERSION) "." TOPO_STR(OMPI_RELEASE_VERSION)
#endif
#ifndef TOPO_HELP_DIR
#define TOPO_HELP_DIR "" /* by-hand build: show_help searches its own dir */
#endif

/* The primitives we serve (reduce_scatter's serves MPI_Reduce_scatter and
 * MPI_Reduce_scatter_block), each with the per-primitive parameters of
 * coll_topo_params.c (coll_topo_<prim>_algorithm, _rules).  Serving another
 * one is a row here, a fallback slot in coll_topo_module.c and its
 * coll_topo_<prim>.c. */
const mca_coll_topo_served_t mca_coll_topo_served[] = {
    {TOPO_PRIM_ALLREDUCE, "allreduce_algorithm"},
    {TOPO_PRIM_REDUCE_SCATTER, "reduce_scatter_algorithm"},
    {TOPO_PRIM_ALLGATHER, "allgather_algorithm"},
    {TOPO_PRIM_BCAST, "bcast_algorithm"},
    {TOPO_PRIM_REDUCE, "reduce_algorithm"},
    {TOPO_PRIM_ALLTOALL, "alltoall_algorithm"},
    {TOPO_PRIM_BARRIER, "barrier_algorithm"},
};
const int mca_coll_topo_nserved =
    (int)(sizeof(mca_coll_topo_served) / sizeof(mca_coll_topo_served[0]));

static int topo_open(void);
static int topo_close(void);

/* The MCA parameters' defaults, ranges and help texts are the rows of
 * coll_topo_params.c, which registers them (and sets their defaults). */
mca_coll_topo_component_t mca_coll_topo_component = {
    .super =
        {
            .collm_version =
                {
                    MCA_COLL_BASE_VERSION_2_0_0,
                    .mca_component_name = "topo",
                    MCA_BASE_MAKE_VERSION(component, 0, 1, 0),
                    .mca_open_component = topo_open,
                    .mca_close_component = topo_close,
                    .mca_register_component_params = mca_coll_topo_params_register,
                },
            .collm_data =
                {/* The component is checkpoint ready */
                 MCA_BASE_METADATA_PARAM_CHECKPOINT},
            .collm_init_query = mca_coll_topo_init_query,
            .collm_comm_query = mca_coll_topo_comm_query,
        },
};

/*
 * Messages about the job's configuration are the same in every process, so
 * only the first process of the job shows them.  Outside a job (ompi_info)
 * the name is invalid and the message is shown.
 */
bool mca_coll_topo_first_process(void)
{
    const opal_vpid_t vpid = OPAL_PROC_MY_NAME.vpid;
    return 0 == vpid || OPAL_VPID_INVALID == vpid;
}

/* major.minor of a version string such as "4.1.4" or "Open MPI v4.1.4, ...";
 * returns 0 on success. */
static int major_minor(const char *s, int *major, int *minor)
{
    const char *p = s;
    while ('\0' != *p && (*p < '0' || *p > '9')) {
        p++;
    }
    return 2 == sscanf(p, "%d.%d", major, minor) ? 0 : -1;
}

/* Structure layouts of Open MPI's internals change between releases and the
 * loader does not check: refuse to run against another major.minor. */
static void check_runtime_version(void)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int len = 0, bmaj, bmin, rmaj, rmin;

    /* The library's own version (formatted inside libmpi at its build);
     * callable before and during MPI_Init. */
    if (MPI_SUCCESS != PMPI_Get_library_version(lib, &len)) {
        lib[0] = '\0';
    }
    char *comma = strchr(lib, ',');
    if (NULL != comma) {
        *comma = '\0';
    }
    if (0 != major_minor(TOPO_BUILD_OMPI_VERSION, &bmaj, &bmin)) {
        return; /* cannot tell; the build system always sets it */
    }
    if (0 != major_minor(lib, &rmaj, &rmin) || rmaj != bmaj || rmin != bmin) {
        if (mca_coll_topo_first_process()) {
            opal_show_help(COLL_TOPO_HELP_FILE, "version-mismatch", true, TOPO_BUILD_OMPI_VERSION,
                           '\0' != lib[0] ? lib : "(unknown)");
        }
        mca_coll_topo_component.disqualified = true;
    }
}

/*
 * Prints a help message of ours on this process's stderr.  Formatting it
 * here and writing it ourselves avoids forwarding it through mpirun, which
 * on Open MPI 4.1.4 loses some messages ("ORTE_ERROR_LOG: Data unpack would
 * read past end of buffer in file orte/util/show_help.c").  The messages it
 * prints are reported by one process only, so nothing needs aggregating.
 */
void mca_coll_topo_show_help(const char *topic, ...)
{
    va_list ap;
    va_start(ap, topic);
    char *msg = opal_show_help_vstring(COLL_TOPO_HELP_FILE, topic, true, ap);
    va_end(ap);
    if (NULL != msg) {
        fputs(msg, stderr);
        fflush(stderr);
        free(msg);
    }
}

/*
 * Bad parameter values are reported at the first collective call, not at
 * open: help messages sent during MPI_Init were often lost by mpirun
 * ("ORTE_ERROR_LOG: Data unpack would read past end of buffer in file
 * orte/util/show_help.c") on Open MPI 4.1.4.  The values are the same in
 * every process of a job, so only its first process reports them.
 */
opal_mutex_t mca_coll_topo_lazy_lock = OPAL_MUTEX_STATIC_INIT;

bool mca_coll_topo_once(bool *flag)
{
    OPAL_THREAD_LOCK(&mca_coll_topo_lazy_lock);
    const bool first = !*flag;
    *flag = true;
    OPAL_THREAD_UNLOCK(&mca_coll_topo_lazy_lock);
    return first;
}

static int topo_open(void)
{
    if ('\0' != TOPO_HELP_DIR[0]) {
        (void)opal_show_help_add_dir(TOPO_HELP_DIR);
    }
#ifdef TOPO_SRC_HELP_DIR
    /* before "make install" (make check), the source copy */
    (void)opal_show_help_add_dir(TOPO_SRC_HELP_DIR);
#endif
    mca_coll_topo_component.disqualified = false;
    check_runtime_version();
    if (mca_coll_topo_component.disqualified) {
        return OMPI_SUCCESS; /* init_query takes us out of selection */
    }
    mca_coll_topo_params_open(); /* parse and check the parameters (coll_topo_params.c) */
    mca_coll_topo_publish();     /* before MPI_Init's modex fence (coll_topo_agree.c) */
    mca_coll_topo_ofi_open();    /* likewise: the endpoint's address (coll_topo_ofi.c) */
    return OMPI_SUCCESS;
}

static int topo_close(void)
{
    mca_coll_topo_nb_finalize();
    mca_coll_topo_ofi_close();
    mca_coll_topo_agree_finalize();
    mca_coll_topo_shared_tables_free();
    return OMPI_SUCCESS;
}
