/*
 * MPI_Allreduce through coll/topo: pick the algorithm (forced by
 * coll_topo_allreduce_algorithm, or the decision's argmin), fetch its
 * schedule from the module's cache and run it with the PML executor on the
 * receive buffer.  A call no algorithm of ours fits goes to the previous
 * module, with the reason in the verbose output; an algorithm never hands a
 * call to another of our algorithms behind the user's back.
 */
#include "ompi_config.h"

#include <stdio.h>
#include <string.h>

#include "mpi.h"

#include "coll_topo.h"

/*
 * Datatypes.  The executor works on elements of one datatype, `ext` bytes
 * apart.
 * - A predefined datatype runs on the user's buffers as is.
 * - A derived datatype with a user-defined operation also runs as is: the
 *   user's function must see the user's datatype, and the executor copies
 *   only data bytes, so the gaps of the user's buffer stay untouched.
 * - A derived datatype with a predefined operation (Open MPI 4.1's parameter
 *   check refuses those; reachable with mpi_param_check=0) must be made of a
 *   single predefined type: it is packed to (n, that type) and unpacked.
 * - Anything else goes to the previous module.
 * Returns true with *edt and *n set, or false with the reason.
 */
static bool element_type(ompi_datatype_t *dtype, int count, ompi_op_t *op, ompi_datatype_t **edt,
                         size_t *n, char *why, size_t len)
{
    ptrdiff_t lb, ext;
    ompi_datatype_get_extent(dtype, &lb, &ext);
    if (ext <= 0) {
        snprintf(why, len, "unsupported datatype: extent is not positive");
        return false;
    }
    if (ompi_datatype_is_predefined(dtype) || !ompi_op_is_intrinsic(op)) {
        *edt = dtype;
        *n = (size_t)count;
        return true;
    }
    if (NULL == dtype->args) {
        snprintf(why, len, "unsupported datatype: derived without a type map");
        return false;
    }
    ompi_datatype_t *p = ompi_datatype_get_single_predefined_type_from_args(dtype);
    if (NULL == p) {
        snprintf(why, len, "unsupported datatype: derived from more than one predefined type");
        return false;
    }
    size_t dsize, psize;
    ompi_datatype_type_size(dtype, &dsize);
    ompi_datatype_type_size(p, &psize);
    if (0 == psize || 0 != dsize % psize) {
        snprintf(why, len, "unsupported datatype: size not a multiple of its element");
        return false;
    }
    size_t total = (size_t)count * (dsize / psize);
    if (total > (size_t)INT32_MAX) {
        snprintf(why, len, "derived datatype with more than 2^31 elements");
        return false;
    }
    *edt = p;
    *n = total;
    return true;
}

int mca_coll_topo_allreduce_intra(const void *sbuf, void *rbuf, int count,
                                  struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                                  struct ompi_communicator_t *comm, mca_coll_base_module_t *module)
{
    const topo_prim_t prim = TOPO_PRIM_ALLREDUCE;
    mca_coll_topo_module_t *m = (mca_coll_topo_module_t *)module;
    const topo_algo_t *algo = mca_coll_topo_component.forced[prim];
    ompi_datatype_t *edt = NULL; /* the executor's element type */
    size_t n = 0, esize = 0;
    char reason[320], why[256] = "";
    int rc;

    mca_coll_topo_comm_prepare(m, comm);
    if (0 == count) {
        return OMPI_SUCCESS;
    }
    if (!element_type(dtype, count, op, &edt, &n, reason, sizeof(reason))) {
        goto fallback;
    }
    if (0 == n) {
        return OMPI_SUCCESS; /* a datatype of size 0: nothing moves */
    }
    ompi_datatype_type_size(edt, &esize);

    const int commutative = ompi_op_is_commute(op);
    const topo_gen_args_t args = {
        .prim = prim,
        .size = ompi_comm_size(comm),
        .rank = ompi_comm_rank(comm),
        .root = 0,
        .topo = &m->topo,
    };
    const size_t bytes = n * esize;
    double predicted = 0.0;

    if (NULL != algo) {
        if (!topo_algo_fits(algo, &args, commutative, why, sizeof(why))) {
            snprintf(reason, sizeof(reason), "coll_topo_%s_algorithm=%s does not fit: %s",
                     topo_prim_name(prim), algo->name, why);
            goto fallback;
        }
        snprintf(why, sizeof(why), "forced by coll_topo_%s_algorithm", topo_prim_name(prim));
    } else {
        algo = mca_coll_topo_decide(m, comm, &args, commutative, bytes, &predicted);
        if (NULL == algo) {
            snprintf(reason, sizeof(reason), "no algorithm fits: %s",
                     commutative ? "none could be priced" : "the operation is not commutative");
            goto fallback;
        }
        snprintf(why, sizeof(why), "auto: cheapest predicted for %zu bytes: %.3f us", bytes,
                 predicted * 1e6);
    }

    const topo_sched_t *s = mca_coll_topo_schedule(m, comm, algo, &args);
    if (NULL == s) {
        snprintf(reason, sizeof(reason), "the schedule of %s could not be generated", algo->name);
        goto fallback;
    }
    if (s->uniform && s->nblocks > 0 && 0 != n % (size_t)s->nblocks) {
        snprintf(reason, sizeof(reason),
                 "%s moves blocks between positions and needs a multiple of %d elements",
                 algo->name, s->nblocks);
        goto fallback;
    }
    mca_coll_topo_say_algorithm(m, comm, prim, algo, why);

    /* The work buffer: the receive buffer itself, or a packed copy. */
    void *work;
    if (edt == dtype) {
        work = rbuf;
        if (MPI_IN_PLACE != sbuf) {
            rc = ompi_datatype_copy_content_same_ddt(dtype, (size_t)count, (char *)rbuf,
                                                     (char *)sbuf);
            if (OMPI_SUCCESS != rc) {
                return rc;
            }
        }
    } else {
        ptrdiff_t lb, ext;
        ompi_datatype_get_extent(edt, &lb, &ext);
        rc = mca_coll_topo_grow((void **)&m->stage, &m->cap_stage, n * (size_t)ext);
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
        work = m->stage;
        rc = ompi_datatype_sndrcv(MPI_IN_PLACE == sbuf ? rbuf : sbuf, count, dtype, work,
                                  (int32_t)n, edt);
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
    }

    rc = mca_coll_topo_exec(m, s, work, n, NULL, edt, op, comm, COLL_TOPO_TAG(prim, 0));
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    if (work != rbuf) {
        rc = ompi_datatype_sndrcv(work, (int32_t)n, edt, rbuf, count, dtype);
    }
    return rc;

fallback:
    mca_coll_topo_say_fallback(m, comm, prim, reason);
    return m->prev[prim].fn.allreduce(sbuf, rbuf, count, dtype, op, comm, m->prev[prim].module);
}
