/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Executor plans (coll_topo_plan.c), as the compiler writes them and the
 * runner (coll_topo_run.c) reads them.
 */
#ifndef MCA_COLL_TOPO_PLAN_H
#define MCA_COLL_TOPO_PLAN_H

#include "coll_topo.h"

/* What one operation of a plan does.  "w" is the elements an operation
 * names by (wbuf, w), "in" and "src" those it names by (sbuf, s): the
 * input window's for the reductions. */
enum {
    OP_RECV,           /* message from peer into w (or the temporary) */
    OP_SEND,           /* message to peer from w (or the temporary) */
    OP_TO_TMP,         /* copy n elements: w -> temporary */
    OP_FROM_TMP,       /* copy n elements: temporary -> w */
    OP_REDUCE,         /* w = temporary (op) w */
    OP_REDUCE_POST,    /* w = w (op) temporary (non-commutative) */
    OP_REDUCE_IN,      /* w = temporary (op) in */
    OP_REDUCE_POST_IN, /* w = in (op) temporary (non-commutative) */
    OP_COPY,           /* copy n elements: src -> w */
    OP_REDUCE_FROM_IN, /* w = in (op) w: w received in place */
};

/* The buffers an operation's elements are in (exec_t.base). */
enum {
    BUF_WORK, /* the work buffer, element index w */
    BUF_OUT,  /* the output window, element index w - out_at */
    BUF_IN,   /* the input window (read-only), element index w - in_at */
    BUF_NONE, /* an empty message's buffer: no element is read or written */
    BUF_TMP,  /* RECV/SEND: the lane's temporary storage at `tmp` */
    BUF_COUNT
};

/* One operation.  `w` and `s` are element indexes into their buffers;
 * `tmp` a byte offset into the lane's temporary storage of element 0 (its
 * data may start true_lb bytes later, so the offset may be negative). */
typedef struct {
    uint8_t kind;
    uint8_t wbuf;
    uint8_t sbuf;  /* the *_IN operations and OP_COPY */
    uint8_t defer; /* OP_SEND: completes by the end of the call, not of
                      its step */
    int32_t peer;
    size_t n;
    size_t w;
    size_t s;
    ptrdiff_t tmp;
} plan_op_t;

/* A step: `npack` copies, `npost` messages, `napply` copies or reductions,
 * in this order from ops[op0]. */
typedef struct {
    int32_t op0, npack, npost, napply;
} plan_step_t;

struct mca_coll_topo_plan_t {
    unsigned gen; /* changes whenever the plan is compiled again */
    /* What the plan was compiled for.  Not valid: sched < 0. */
    int sched;    /* index in the module's schedules */
    size_t count; /* elements */
    ptrdiff_t ext, true_lb, true_ext;
    size_t seg_elems;
    int opclass; /* 0: no operation, 1: non-commutative, 2: commutative */
    mca_coll_topo_windows_t win;
    size_t *units; /* [nunits]: the layout's units (nunits 0: none) */
    int nunits;
    size_t cap_units; /* bytes */
    /* The plan */
    int nlanes;
    int32_t *lane_step0; /* [nlanes + 1]: the lane's steps in steps[] */
    size_t *lane_tmp;    /* [nlanes]: temporary bytes the lane needs */
    size_t max_posts;    /* messages outstanding at once, at most */
    bool uses_work;      /* an operation names an element of BUF_WORK */
    bool big;            /* a lane needs more temporary storage than
                            coll_topo_scratch_keep: reserve at every run */
    bool lockstep;       /* no lane starts a step before every lane has
                            finished the one before (coll_topo_lane_sync) */
    int32_t ndefer;      /* deferred sends (plan_op_t.defer) */
    /* ops[0, nhead) run before the lanes, ops[tail0, nops) after them */
    int32_t nhead, tail0;
    plan_step_t *steps;
    plan_op_t *ops;
    int32_t nsteps, nops;
    size_t cap_lanes, cap_steps, cap_ops; /* bytes */
};

_Static_assert(BUF_COUNT == COLL_TOPO_RUN_NBUFS, "coll_topo_exec.h: COLL_TOPO_RUN_NBUFS");

/* The plan of a call of schedule `s` on `count` elements of dt (layout
 * from topo_block_layout(s, count, units)), with the windows `win` and the
 * operation `op` (or NULL): a kept one compiled for the same schedule,
 * count, units and layout, or one derived or compiled now (see
 * coll_topo_plan.c).  *out NULL (and OMPI_SUCCESS): nothing to run (no
 * element of a datatype without data).  `ref` as mca_coll_topo_exec's. */
int mca_coll_topo_plan_find(mca_coll_topo_module_t *m, const topo_sched_t *s, size_t count,
                            const size_t *units, struct ompi_datatype_t *dt, struct ompi_op_t *op,
                            const mca_coll_topo_windows_t *win, mca_coll_topo_plan_ref_t *ref,
                            const mca_coll_topo_plan_t **out);
/* Free the executor's plans[]. */
void mca_coll_topo_plans_free(mca_coll_topo_exec_t *e);

#endif /* MCA_COLL_TOPO_PLAN_H */
