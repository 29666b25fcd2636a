/*
 * The PML executor: runs any schedule of the core (schedule.h) with
 * nonblocking point-to-point.  It knows nothing about particular algorithms.
 *
 * Lanes progress independently (a schedule of one lane completes each step
 * with one wait_all).  A lane posts every receive of its current
 * step, then every send, and waits; when the step's last request completes,
 * its receives are applied in transfer order (so results are bitwise
 * reproducible whatever order messages arrive in) and the lane moves on.
 * Each lane has its own tag, so lanes never match each other's messages;
 * inside a lane, messages between two ranks are matched in posting order
 * (MPI's non-overtaking rule), which both ends share because both walk the
 * same transfer order and compute the same sizes.
 *
 * Temporary storage (per lane, grown on demand, kept in the module):
 * - a send whose blocks are not one range is packed first (a snapshot of the
 *   blocks at the start of the step, as the schedule model requires);
 * - a receive that is not `direct` lands in temporary storage and is applied
 *   (copied or reduced) at the end of the step;
 * - a local copy goes through temporary storage, so overlapping source and
 *   destination ranges behave as if copied at once.
 * Transfers of zero elements are skipped by both ends, except in `sync`
 * schedules (barrier), where the message itself is the point: they are sent
 * as one empty message.  Transfers larger than coll_topo_segment_size are
 * sent as several messages posted in order.
 */
#include "ompi_config.h"

#include <string.h>

#include "mpi.h"
#include "ompi/mca/pml/pml.h"

#include "coll_topo.h"

/* Per-call state. */
typedef struct {
    mca_coll_topo_module_t *m;
    const topo_sched_t *s;
    char *work;
    const size_t *off; /* block layout in elements */
    ompi_datatype_t *dt;
    ptrdiff_t ext;      /* bytes between elements */
    ptrdiff_t true_lb;  /* first data byte of an element, from its start */
    ptrdiff_t true_ext; /* bytes from the first to the last data byte */
    bool flat;          /* elements are plain bytes: copy with memcpy */
    ompi_op_t *op;
    bool commutative;
    ompi_communicator_t *comm;
    int tag;
    size_t seg_elems; /* elements per message */
    int nreq;
} exec_t;

static inline size_t range_elems(const exec_t *x, const topo_range_t *r)
{
    return x->off[r->first + r->count] - x->off[r->first];
}

static inline char *elem(const exec_t *x, char *base, size_t i)
{
    return base + (ptrdiff_t)i * x->ext;
}

static inline char *block_ptr(const exec_t *x, int block)
{
    return elem(x, x->work, x->off[block]);
}

/* Copy n elements; only their data bytes are written (a derived datatype's
 * gaps in the user's buffer stay untouched). */
static int copy_elems(const exec_t *x, char *dst, char *src, size_t n)
{
    if (0 == n) {
        return OMPI_SUCCESS;
    }
    if (x->flat) {
        memcpy(dst, src, n * (size_t)x->ext);
        return OMPI_SUCCESS;
    }
    return ompi_datatype_copy_content_same_ddt(x->dt, n, dst, src);
}

/* Bytes of temporary storage for n elements (their span, rounded up so
 * every slot stays aligned). */
static inline size_t span_bytes(const exec_t *x, size_t n)
{
    if (0 == n) {
        return 0;
    }
    size_t b = (size_t)x->true_ext + (n - 1) * (size_t)x->ext;
    return (b + 15) & ~(size_t)15;
}

/* Elements a transfer moves (sum over its ranges, wire order). */
static inline size_t xfer_elems(const exec_t *x, const topo_xfer_t *t)
{
    if (1 == t->nranges) {
        return range_elems(x, &x->s->ranges[t->range0]);
    }
    size_t n = 0;
    for (int i = 0; i < t->nranges; i++) {
        n += range_elems(x, &x->s->ranges[t->range0 + i]);
    }
    return n;
}

static inline bool is_recv(int kind)
{
    return TOPO_XFER_RECV_COPY == kind || TOPO_XFER_RECV_REDUCE == kind ||
           TOPO_XFER_RECV_REDUCE_POST == kind;
}

/* Does this transfer need temporary storage, and how many elements? */
static inline size_t xfer_tmp_elems(const exec_t *x, const topo_xfer_t *t)
{
    if (TOPO_XFER_SEND == t->kind) {
        return t->nranges > 1 ? xfer_elems(x, t) : 0;
    }
    if (is_recv(t->kind)) {
        bool direct = t->direct && TOPO_XFER_RECV_COPY == t->kind && 1 == t->nranges;
        return direct ? 0 : xfer_elems(x, t);
    }
    if (TOPO_XFER_COPY == t->kind) {
        return xfer_elems(x, t);
    }
    return 0;
}

static int push_req(exec_t *x, ompi_request_t *req, int lane)
{
    mca_coll_topo_module_t *m = x->m;
    if ((size_t)x->nreq == m->cap_reqs) {
        size_t cap = m->cap_reqs ? 2 * m->cap_reqs : 64;
        ompi_request_t **r = realloc(m->reqs, cap * sizeof(*r));
        if (NULL == r) {
            return OMPI_ERR_OUT_OF_RESOURCE;
        }
        m->reqs = r;
        int32_t *l = realloc(m->req_lane, cap * sizeof(*l));
        if (NULL == l) {
            return OMPI_ERR_OUT_OF_RESOURCE;
        }
        m->req_lane = l;
        m->cap_reqs = cap;
    }
    m->reqs[x->nreq] = req;
    m->req_lane[x->nreq] = lane;
    x->nreq++;
    m->lane_pending[lane]++;
    return OMPI_SUCCESS;
}

/* Post `n` elements at `buf` to/from `peer`, split into segments (one empty
 * message when n is 0). */
static int post(exec_t *x, int lane, bool send, char *buf, size_t n, int peer)
{
    const int tag = x->tag - lane;
    size_t done = 0;
    do {
        size_t len = n - done < x->seg_elems ? n - done : x->seg_elems;
        ompi_request_t *req = NULL;
        int rc;
        if (send) {
            rc = MCA_PML_CALL(isend(buf + (ptrdiff_t)done * x->ext, len, x->dt, peer, tag,
                                    MCA_PML_BASE_SEND_STANDARD, x->comm, &req));
        } else {
            rc = MCA_PML_CALL(
                irecv(buf + (ptrdiff_t)done * x->ext, len, x->dt, peer, tag, x->comm, &req));
        }
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
        rc = push_req(x, req, lane);
        if (OMPI_SUCCESS != rc) {
            /* Not tracked: wait here rather than leak it. */
            (void)ompi_request_wait(&req, MPI_STATUS_IGNORE);
            return rc;
        }
        done += len;
    } while (done < n);
    return OMPI_SUCCESS;
}

/* Make room for the current step's temporary storage of `lane`. */
static int lane_tmp_reserve(exec_t *x, int lane, const topo_step_t *st)
{
    size_t bytes = 0;
    for (int i = 0; i < st->nxfers; i++) {
        bytes += span_bytes(x, xfer_tmp_elems(x, &x->s->xfers[st->xfer0 + i]));
    }
    mca_coll_topo_module_t *m = x->m;
    return mca_coll_topo_grow((void **)&m->lane_tmp[lane], &m->lane_tmp_cap[lane], bytes);
}

/* The temporary slot of a transfer: slots follow each other in transfer
 * order; *pos (bytes) advances past this one.  The returned pointer is the
 * start of element 0 (its data may begin true_lb bytes later). */
static char *slot_at(const exec_t *x, int lane, size_t tn, size_t *pos)
{
    if (0 == tn) {
        return NULL;
    }
    char *slot = x->m->lane_tmp[lane] + *pos - x->true_lb;
    *pos += span_bytes(x, tn);
    return slot;
}

/* Post the receives, then the sends, of the lane's current step. */
static int post_step(exec_t *x, int lane, const topo_step_t *st)
{
    const topo_sched_t *s = x->s;
    size_t pos; /* bytes into the lane's temporary buffer */
    int rc;

    for (int pass = 0; pass < 2; pass++) {
        /* The temporary layout is the same walk in both passes and in
         * apply_step: every transfer's slot in transfer order. */
        pos = 0;
        for (int i = 0; i < st->nxfers; i++) {
            const topo_xfer_t *t = &s->xfers[st->xfer0 + i];
            size_t tn = xfer_tmp_elems(x, t);
            size_t n = xfer_elems(x, t);
            char *slot = slot_at(x, lane, tn, &pos);
            if (0 == n && !s->sync) {
                continue;
            }
            if (0 == pass && is_recv(t->kind)) {
                char *dst = tn ? slot : block_ptr(x, s->ranges[t->range0].first);
                rc = post(x, lane, false, dst, n, t->peer);
                if (OMPI_SUCCESS != rc) {
                    return rc;
                }
            } else if (1 == pass && TOPO_XFER_SEND == t->kind) {
                char *src;
                if (tn) {
                    size_t at = 0;
                    for (int r = 0; r < t->nranges; r++) {
                        const topo_range_t *rg = &s->ranges[t->range0 + r];
                        size_t k = range_elems(x, rg);
                        rc = copy_elems(x, elem(x, slot, at), block_ptr(x, rg->first), k);
                        if (OMPI_SUCCESS != rc) {
                            return rc;
                        }
                        at += k;
                    }
                    src = slot;
                } else {
                    src = block_ptr(x, s->ranges[t->range0].first);
                }
                rc = post(x, lane, true, src, n, t->peer);
                if (OMPI_SUCCESS != rc) {
                    return rc;
                }
            }
        }
    }
    return OMPI_SUCCESS;
}

/* local (ranges of t) op= tmp, or tmp -> local, per the transfer kind. */
static int apply_recv(exec_t *x, const topo_xfer_t *t, char *tmp)
{
    const topo_sched_t *s = x->s;
    int kind = t->kind;
    if (TOPO_XFER_RECV_COPY != kind && NULL == x->op) {
        return OMPI_ERR_BAD_PARAM;
    }
    if (TOPO_XFER_RECV_REDUCE_POST == kind && x->commutative) {
        kind = TOPO_XFER_RECV_REDUCE;
    }
    size_t at = 0; /* elements into tmp */
    for (int r = 0; r < t->nranges; r++) {
        const topo_range_t *rg = &s->ranges[t->range0 + r];
        size_t n = range_elems(x, rg);
        char *local = block_ptr(x, rg->first);
        char *in = elem(x, tmp, at);
        int rc = OMPI_SUCCESS;
        at += n;
        if (0 == n) {
            continue;
        }
        switch (kind) {
        case TOPO_XFER_RECV_COPY:
            rc = copy_elems(x, local, in, n);
            break;
        case TOPO_XFER_RECV_REDUCE: /* local = incoming op local */
            ompi_op_reduce(x->op, in, local, n, x->dt);
            break;
        default: /* RECV_REDUCE_POST, non-commutative: local = local op incoming */
            ompi_op_reduce(x->op, local, in, n, x->dt);
            rc = copy_elems(x, local, in, n);
            break;
        }
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
    }
    return OMPI_SUCCESS;
}

/* Local copy: gather the source ranges into tmp, scatter onto the
 * destination ranges. */
static int apply_copy(exec_t *x, const topo_xfer_t *t, char *tmp)
{
    const topo_sched_t *s = x->s;
    size_t at = 0;
    int rc;
    for (int r = 0; r < t->nsrc; r++) {
        const topo_range_t *rg = &s->ranges[t->src0 + r];
        size_t k = range_elems(x, rg);
        if (at + k > xfer_elems(x, t)) {
            return OMPI_ERR_BAD_PARAM; /* blocks of unequal size: not uniform */
        }
        rc = copy_elems(x, elem(x, tmp, at), block_ptr(x, rg->first), k);
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
        at += k;
    }
    if (at != xfer_elems(x, t)) {
        return OMPI_ERR_BAD_PARAM;
    }
    at = 0;
    for (int r = 0; r < t->nranges; r++) {
        const topo_range_t *rg = &s->ranges[t->range0 + r];
        size_t k = range_elems(x, rg);
        rc = copy_elems(x, block_ptr(x, rg->first), elem(x, tmp, at), k);
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
        at += k;
    }
    return OMPI_SUCCESS;
}

/* The step is complete: apply its receives and copies in transfer order. */
static int apply_step(exec_t *x, int lane, const topo_step_t *st)
{
    const topo_sched_t *s = x->s;
    size_t pos = 0;
    for (int i = 0; i < st->nxfers; i++) {
        const topo_xfer_t *t = &s->xfers[st->xfer0 + i];
        size_t tn = xfer_tmp_elems(x, t);
        char *slot = slot_at(x, lane, tn, &pos);
        int rc = OMPI_SUCCESS;
        if (is_recv(t->kind) && tn) {
            rc = apply_recv(x, t, slot);
        } else if (TOPO_XFER_COPY == t->kind && tn) {
            rc = apply_copy(x, t, slot);
        }
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
    }
    return OMPI_SUCCESS;
}

/* Run `lane` forward until it waits on requests or is done. */
static int lane_run(exec_t *x, int lane)
{
    mca_coll_topo_module_t *m = x->m;
    const topo_lane_t *ln = &x->s->lanes[lane];
    while (m->lane_step[lane] < ln->nsteps) {
        const topo_step_t *st = topo_sched_lane_step(x->s, lane, m->lane_step[lane]);
        int rc = lane_tmp_reserve(x, lane, st);
        if (OMPI_SUCCESS == rc) {
            rc = post_step(x, lane, st);
        }
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
        if (m->lane_pending[lane] > 0) {
            return OMPI_SUCCESS;
        }
        rc = apply_step(x, lane, st);
        if (OMPI_SUCCESS != rc) {
            return rc;
        }
        m->lane_step[lane]++;
    }
    return OMPI_SUCCESS;
}

/* Scratch arrays sized for the schedule. */
static int reserve(mca_coll_topo_module_t *m, const topo_sched_t *s)
{
    size_t cap = m->cap_off * sizeof(size_t);
    if (OMPI_SUCCESS !=
        mca_coll_topo_grow((void **)&m->off, &cap, ((size_t)s->nblocks + 1) * sizeof(size_t))) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    m->cap_off = cap / sizeof(size_t);
    if (s->nlanes > m->cap_lanes) {
        int n = s->nlanes;
        int32_t *a = realloc(m->lane_step, (size_t)n * sizeof(*a));
        if (NULL == a) {
            return OMPI_ERR_OUT_OF_RESOURCE;
        }
        m->lane_step = a;
        int32_t *b = realloc(m->lane_pending, (size_t)n * sizeof(*b));
        if (NULL == b) {
            return OMPI_ERR_OUT_OF_RESOURCE;
        }
        m->lane_pending = b;
        size_t *c = realloc(m->lane_tmp_cap, (size_t)n * sizeof(*c));
        if (NULL == c) {
            return OMPI_ERR_OUT_OF_RESOURCE;
        }
        m->lane_tmp_cap = c;
        char **d = realloc(m->lane_tmp, (size_t)n * sizeof(*d));
        if (NULL == d) {
            return OMPI_ERR_OUT_OF_RESOURCE;
        }
        m->lane_tmp = d;
        for (int l = m->cap_lanes; l < n; l++) {
            m->lane_tmp[l] = NULL;
            m->lane_tmp_cap[l] = 0;
        }
        m->cap_lanes = n;
    }
    return OMPI_SUCCESS;
}

/* Error path: release every outstanding request without blocking, as
 * MPI_Request_free would (they complete in the background). */
static void drop_requests(exec_t *x)
{
    for (int i = 0; i < x->nreq; i++) {
        if (MPI_REQUEST_NULL != x->m->reqs[i]) {
            (void)ompi_request_free(&x->m->reqs[i]);
        }
    }
    x->nreq = 0;
}

/* One lane: nothing runs beside it, so each step is posted, completed with
 * one wait_all and applied, without the bookkeeping of wait_any. */
static int run_single_lane(exec_t *x)
{
    mca_coll_topo_module_t *m = x->m;
    const topo_lane_t *ln = &x->s->lanes[0];
    for (int step = 0; step < ln->nsteps; step++) {
        const topo_step_t *st = topo_sched_lane_step(x->s, 0, step);
        int rc = lane_tmp_reserve(x, 0, st);
        if (OMPI_SUCCESS == rc) {
            rc = post_step(x, 0, st);
        }
        if (OMPI_SUCCESS == rc && x->nreq > 0) {
            rc = ompi_request_wait_all((size_t)x->nreq, m->reqs, MPI_STATUSES_IGNORE);
            if (OMPI_SUCCESS == rc) {
                x->nreq = 0;
                m->lane_pending[0] = 0;
            }
        }
        if (OMPI_SUCCESS == rc) {
            rc = apply_step(x, 0, st);
        }
        if (OMPI_SUCCESS != rc) {
            drop_requests(x);
            return rc;
        }
    }
    return OMPI_SUCCESS;
}

int mca_coll_topo_exec(mca_coll_topo_module_t *m, const topo_sched_t *s, void *work, size_t count,
                       const size_t *units, struct ompi_datatype_t *dt, struct ompi_op_t *op,
                       struct ompi_communicator_t *comm, int tag)
{
    ptrdiff_t lb, ext, true_lb, true_ext;
    size_t esize;
    int rc;

    if (s->nlanes > COLL_TOPO_MAX_LANES) {
        return OMPI_ERR_NOT_SUPPORTED;
    }
    ompi_datatype_get_extent(dt, &lb, &ext);
    ompi_datatype_get_true_extent(dt, &true_lb, &true_ext);
    ompi_datatype_type_size(dt, &esize);
    if (ext <= 0 || true_ext <= 0 || 0 == esize) {
        return 0 == count ? OMPI_SUCCESS : OMPI_ERR_NOT_SUPPORTED;
    }
    rc = reserve(m, s);
    if (OMPI_SUCCESS != rc) {
        return rc;
    }
    topo_block_layout(s, count, units, m->off);

    const size_t seg = mca_coll_topo_component.segment_size;
    exec_t x = {
        .m = m,
        .s = s,
        .work = (char *)work,
        .off = m->off,
        .dt = dt,
        .ext = ext,
        .true_lb = true_lb,
        .true_ext = true_ext,
        .flat = ompi_datatype_is_predefined(dt) && (size_t)ext == esize && 0 == true_lb,
        .op = op,
        .commutative = NULL != op && ompi_op_is_commute(op),
        .comm = comm,
        .tag = tag,
        .seg_elems = 0 == seg ? SIZE_MAX : (seg / esize > 0 ? seg / esize : 1),
        .nreq = 0,
    };

    for (int l = 0; l < s->nlanes; l++) {
        m->lane_step[l] = 0;
        m->lane_pending[l] = 0;
    }
    if (1 == s->nlanes) {
        return run_single_lane(&x);
    }
    for (int l = 0; l < s->nlanes; l++) {
        rc = lane_run(&x, l);
        if (OMPI_SUCCESS != rc) {
            drop_requests(&x);
            return rc;
        }
    }
    while (x.nreq > 0) {
        int idx = MPI_UNDEFINED;
        rc = ompi_request_wait_any((size_t)x.nreq, m->reqs, &idx, MPI_STATUS_IGNORE);
        if (MPI_UNDEFINED == idx || idx < 0 || idx >= x.nreq) {
            drop_requests(&x);
            return OMPI_SUCCESS != rc ? rc : OMPI_ERROR;
        }
        if (OMPI_SUCCESS != rc) {
            /* wait_any leaves a failed request allocated */
            drop_requests(&x);
            return rc;
        }
        int lane = m->req_lane[idx];
        /* Keep the live requests packed at the front. */
        x.nreq--;
        m->reqs[idx] = m->reqs[x.nreq];
        m->req_lane[idx] = m->req_lane[x.nreq];
        if (0 == --m->lane_pending[lane]) {
            const topo_step_t *st = topo_sched_lane_step(s, lane, m->lane_step[lane]);
            rc = apply_step(&x, lane, st);
            if (OMPI_SUCCESS == rc) {
                m->lane_step[lane]++;
                rc = lane_run(&x, lane);
            }
            if (OMPI_SUCCESS != rc) {
                drop_requests(&x);
                return rc;
            }
        }
    }
    return OMPI_SUCCESS;
}
