/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The executor as the rest of the component sees it: run a schedule of the
 * core on a call's buffers.  Three parts:
 * - coll_topo_plan.c: the plan compiler (schedule -> plan for one call's
 *   layout), the plan cache and derivation (coll_topo_plan.h);
 * - coll_topo_run.c: the runner (lanes, steps, local copies and
 *   reductions, scratch buffers), transport-independent;
 * - coll_topo_transport.h: what the runner moves messages through; the
 *   PML (coll_topo_pml.c) is the first transport.
 * Their state in the module is one mca_coll_topo_exec_t (m->exec).
 */
#ifndef MCA_COLL_TOPO_EXEC_H
#define MCA_COLL_TOPO_EXEC_H

#include "ompi_config.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ompi/datatype/ompi_datatype.h"
#include "ompi/op/op.h"

#include "coll_topo_transport.h"
#include "schedule.h"

BEGIN_C_DECLS

struct mca_coll_topo_module_t;

/* A schedule compiled for one call's layout (coll_topo_plan.h). */
typedef struct mca_coll_topo_plan_t mca_coll_topo_plan_t;

/* Plans for layouts other than a schedule's first (plans[]): enough for an
 * application that cycles through a few dozen counts (with 5, allreduce
 * of 8 counts in turn on 4 ranks compiled its plan at every call: 7301
 * instructions per call against tuned's 2322). */
#define COLL_TOPO_NPLANS 32
/* A plan as it was when a call used it: still the same plan while its
 * generation is `gen` (a plan recompiled for another call gets a new one).
 * `own`: a plan that belongs to the holder (a memo entry), compiled once
 * for its call when the schedule's own plan does not fit it; NULL: none
 * (yet, or over COLL_TOPO_MEMO_PLAN_BYTES: plans[] serve the call). */
typedef struct {
    mca_coll_topo_plan_t *plan;
    unsigned gen;
    mca_coll_topo_plan_t *own;
} mca_coll_topo_plan_ref_t;

/*
 * Where a call's executor elements live.  Element i of the work buffer is
 * at work + i * extent, except:
 * - the output window [out_at, out_at + out_n): element i is at
 *   out + (i - out_at) * extent (the user's receive buffer serves as that
 *   part of the work buffer, so nothing is copied out of it);
 * - the input window [in_at, in_at + in_n): the initial contents of these
 *   elements are at in + (i - in_at) * extent, read-only.  The executor
 *   reads them there (sends, reductions into three buffers) until a step
 *   writes them, so the input is never copied in as a whole; what of it is
 *   still unwritten at the end and lies in the result region
 *   [keep_at, keep_at + keep_n) is copied to its place then.
 * A window with n 0 is absent.  The windows must not overlap in memory
 * (MPI_IN_PLACE calls copy their input in instead).
 */
typedef struct {
    size_t in_at, in_n;
    size_t out_at, out_n;
    size_t keep_at, keep_n;
} mca_coll_topo_windows_t;

typedef struct {
    char *work;     /* NULL: the module's staging buffer, allocated when the
                       plan touches an element outside the output window */
    const char *in; /* the input window's data, or NULL */
    char *out;      /* the output window's storage, or NULL */
    mca_coll_topo_windows_t w;
} mca_coll_topo_bufs_t;

/* The buffers a plan's operations name (coll_topo_plan.h: BUF_*). */
#define COLL_TOPO_RUN_NBUFS 5

/* The runner's state: the run in progress (set at its start) and the
 * lanes' positions, pending requests and temporary storage.  Kept in an
 * exec (the module's for blocking calls, a request's for nonblocking
 * ones: coll_topo_nbc.c), not on the C stack, so that a run's progress is
 * data. */
typedef struct {
    /* the run in progress */
    const mca_coll_topo_plan_t *p;
    char *base[COLL_TOPO_RUN_NBUFS]; /* per buffer, its element 0 */
    struct ompi_datatype_t *dt;
    ptrdiff_t ext; /* bytes between elements */
    bool flat;     /* elements are plain bytes: memcpy */
    struct ompi_op_t *op;
    int tag;    /* lane l's messages use tag - l */
    int step;   /* one lane: the step in progress; a progress-driven run
                   (mca_coll_topo_run_start): 1 once its tail ran */
    int nreq;   /* step requests outstanding */
    int ndefer; /* deferred sends posted */
    int dfirst; /* deferred sends [0, dfirst) completed and freed */
    /* per lane (cap_lanes of each) */
    int32_t *lane_step;    /* the step in progress */
    int32_t *lane_pending; /* its requests outstanding */
    char **lane_tmp;       /* temporary storage */
    size_t *lane_tmp_cap;
    int cap_lanes;
    int32_t *req_lane; /* the lane of each step request */
    size_t cap_req_lane;
} mca_coll_topo_run_t;

/* The executor's part of the module. */
typedef struct {
    /* Plans kept for calls that repeat a recent count, units and layout;
     * recompiled in turn (plan_next). */
    mca_coll_topo_plan_t *plans[COLL_TOPO_NPLANS];
    int plan_next;
    unsigned plan_gen; /* the last generation given to a plan */
    unsigned long plans_compiled, plans_derived;
    /* The compiler's scratch, grown on demand, never shrunk. */
    size_t *off; /* block layout, nblocks + 1 */
    size_t cap_off;
    void *comp;      /* a compilation's scratch */
    size_t cap_comp; /* bytes */
    mca_coll_topo_run_t run;
    mca_coll_topo_tp_t tp; /* the transport (zeroed: the PML) */
    /* Staging buffer: the work buffer where the user's buffers cannot
     * serve as it (packed derived datatypes, MPI_IN_PLACE inputs copied in,
     * and the blocks outside the output window: alltoall's scratch regions,
     * reduce_scatter's other units, a non-root reduce's partial results). */
    char *stage;
    size_t cap_stage;
    /* The stage or a lane's temporary storage holds more than
     * coll_topo_scratch_keep: mca_coll_topo_trim gives it back at the end
     * of the call. */
    bool scratch_over;
} mca_coll_topo_exec_t;

/*
 * Run schedule `s` of this rank on the buffers `b`, which hold `count`
 * elements of datatype `dt` (usually a predefined datatype; a derived one
 * works too, its gaps are never written); the block layout comes from
 * topo_block_layout(s, count, units).  `op` reduces incoming data (NULL
 * for primitives that never reduce).  `tag` is the primitive's base tag,
 * COLL_TOPO_TAG(prim, 0): lane l uses tag - l.  `ref` (or NULL): the plan
 * this same call (the slot's memo: same schedule, count, units, datatype
 * object and operation) ran with before; it is used while still current
 * and compiled for the same windows, and set to the plan used otherwise,
 * which is compiled into ref->own when the call needs a new plan and ref
 * has none yet (within COLL_TOPO_MEMO_PLAN_BYTES).  Returns OMPI_SUCCESS
 * or an Open MPI error code (the transport's errors are passed on).
 */
int mca_coll_topo_exec(struct mca_coll_topo_module_t *m, const topo_sched_t *s,
                       const mca_coll_topo_bufs_t *b, size_t count, const size_t *units,
                       struct ompi_datatype_t *dt, struct ompi_op_t *op,
                       struct ompi_communicator_t *comm, int tag, mca_coll_topo_plan_ref_t *ref);
/* The module's staging buffer for n elements of dt: *work gets the
 * address of element 0. */
int mca_coll_topo_stage(struct mca_coll_topo_module_t *m, struct ompi_datatype_t *dt, size_t n,
                        char **work);
/* The same, of exec e (a nonblocking operation's own). */
int mca_coll_topo_exec_stage(mca_coll_topo_exec_t *e, struct ompi_datatype_t *dt, size_t n,
                             char **work);
/* The plan mca_coll_topo_exec would run (the same arguments), without
 * running it: *out NULL when nothing is to run.  The plan belongs to the
 * module and may be compiled again by its next call: a nonblocking
 * operation runs a copy (mca_coll_topo_plan_dup). */
int mca_coll_topo_exec_plan(struct mca_coll_topo_module_t *m, const topo_sched_t *s,
                            const mca_coll_topo_bufs_t *b, size_t count, const size_t *units,
                            struct ompi_datatype_t *dt, struct ompi_op_t *op,
                            mca_coll_topo_plan_ref_t *ref, const mca_coll_topo_plan_t **out);
/* A copy of plan p that its holder owns (NULL: out of memory); freed with
 * mca_coll_topo_plan_free. */
mca_coll_topo_plan_t *mca_coll_topo_plan_dup(const mca_coll_topo_plan_t *p);

/*
 * The progress-driven runner (coll_topo_run.c), for nonblocking and
 * persistent operations: exec `e` is the operation's own (zeroed at
 * first: its transport is the PML).  mca_coll_topo_run_start reserves e
 * for plan p, runs its head and posts every lane's first step (its
 * arguments as mca_coll_topo_exec's, `tag` the operation's); then each
 * mca_coll_topo_run_test frees the requests that completed and moves
 * their lanes on, without waiting, and sets *done once the plan has run
 * to its end.  On an error the requests still outstanding are dropped;
 * mca_coll_topo_run_abort drops them otherwise.
 */
int mca_coll_topo_run_start(mca_coll_topo_exec_t *e, const mca_coll_topo_plan_t *p, char *work,
                            const mca_coll_topo_bufs_t *b, struct ompi_datatype_t *dt,
                            struct ompi_op_t *op, struct ompi_communicator_t *comm, int tag);
int mca_coll_topo_run_test(mca_coll_topo_exec_t *e, bool *done);
void mca_coll_topo_run_abort(mca_coll_topo_exec_t *e);
/* At the end of a call: the staging buffer and the lanes' temporary
 * storage shrink to coll_topo_scratch_keep bytes each where the call grew
 * them beyond (a plan that needs more reserves it again at every call, as
 * coll/tuned allocates its temporary buffers per call).  Called by
 * mca_coll_topo_trim when exec.scratch_over. */
void mca_coll_topo_trim_to(struct mca_coll_topo_module_t *m);
/* Free everything of e (its plans[], scratch, transport). */
void mca_coll_topo_exec_free(mca_coll_topo_exec_t *e);
/* Free one plan (NULL: none). */
void mca_coll_topo_plan_free(mca_coll_topo_plan_t *p);
/* Mark plan p as compiled for no call (it is compiled again before use). */
void mca_coll_topo_plan_invalidate(mca_coll_topo_plan_t *p);
/* The bytes plan p holds (0 for NULL). */
size_t mca_coll_topo_plan_bytes(const mca_coll_topo_plan_t *p);

END_C_DECLS

#endif /* MCA_COLL_TOPO_EXEC_H */
