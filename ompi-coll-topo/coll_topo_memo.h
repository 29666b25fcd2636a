/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * coll/topo: the memo of repeated calls (coll_topo_memo.c), part of
 * coll_topo.h (which includes it where its types are known).
 *
 * Each slot keeps sets of COLL_TOPO_MEMO_WAYS entries, a call's set chosen
 * by its count and root, so that an application cycling through up to
 * about 3/4 as many counts or roots as the memo holds finds each call's
 * route, schedule, layout and plan without looking them up (with one entry
 * per slot, allreduce of 40 counts in turn on 4 ranks cost 8798
 * instructions per call against tuned's 2591, most of it compiling the plan
 * again).  A slot starts with COLL_TOPO_MEMO_SETS_MIN sets; one that has
 * replaced COLL_TOPO_MEMO_GROW_AFTER times its entries (its calls cycle
 * through more than it holds) grows 4 times, up to COLL_TOPO_MEMO_SETS_MAX
 * sets (allreduce of 100 counts in turn: 6921 instructions per call against
 * tuned's 2990 with 64 entries; 2000 counts: 16642 against 13254 with at
 * most 1024 entries, 11473 against 13176 with 4096).  Entries own their
 * plans up to COLL_TOPO_MEMO_PLAN_BYTES per module (a large communicator's
 * plans are large; past that, plans[] serve).
 *
 * An entry is forgotten when its slot's routes change (a verdict of
 * coll_topo_autotune), when the slot grows, and when the module is freed.
 */
#ifndef MCA_COLL_TOPO_MEMO_H
#define MCA_COLL_TOPO_MEMO_H

#define COLL_TOPO_MEMO_SETS_MIN 16
#define COLL_TOPO_MEMO_SETS_MAX 1024
#define COLL_TOPO_MEMO_WAYS 4
#define COLL_TOPO_MEMO_GROW_AFTER 2
#define COLL_TOPO_MEMO_PLAN_BYTES ((size_t)8 << 20)

/* A call of a slot, for a call that repeats it (same datatype, operation,
 * count, root and units: the same route, schedule and layout).  The
 * datatype and operation are retained so that their addresses cannot be
 * reused by other objects. */
typedef struct {
    bool valid;
    int root;
    size_t count;
    size_t unit;
    int *counts;                   /* owned copy of the call's counts, or NULL */
    int ncounts;
    struct ompi_datatype_t *dtype; /* retained, or NULL (barrier) */
    struct ompi_op_t *op;          /* retained, or NULL */
    const topo_algo_t *algo;       /* NULL: the call goes to the previous module
                                      (no schedule, sched -1, and no plan) */
    int sched;                     /* index in the module's schedules */
    struct ompi_datatype_t *edt;
    size_t k;
    ptrdiff_t eext;
    size_t n;
    size_t *units;                 /* owned copy of the layout's units, or NULL */
    mca_coll_topo_plan_ref_t plan; /* the executor's plan of this call */
    int tune;                      /* the payload class being timed + 1
                                      (coll_topo_autotune), 0: none */
} mca_coll_topo_memo_entry_t;

/* The memo of a module, per slot (arrays by slot, as the entry indexes
 * them). */
typedef struct {
    mca_coll_topo_memo_entry_t *entries[COLL_TOPO_NSLOTS]; /* sets * COLL_TOPO_MEMO_WAYS,
                                                              allocated at the slot's first
                                                              call; NULL: none */
    unsigned sets[COLL_TOPO_NSLOTS];                       /* 0: none */
    unsigned long replaced[COLL_TOPO_NSLOTS];              /* entries replaced since
                                                              allocated */
    unsigned turn[COLL_TOPO_NSLOTS];                       /* the way a miss replaces next */
    mca_coll_topo_memo_entry_t *last[COLL_TOPO_NSLOTS];    /* the entry of the slot's last
                                                              call (looked at first), or
                                                              NULL */
    /* coll_topo_verbose=2: the calls the memo held and those routed
     * again, reported when the communicator is freed */
    unsigned long hits[COLL_TOPO_NSLOTS], decided[COLL_TOPO_NSLOTS];
} mca_coll_topo_memo_t;

/* The memo set of a call (by its count and root; a unit count or a count
 * array: by the unit, the rank's own count), so that consecutive counts
 * and consecutive roots fall in different sets.  NULL: no memo yet. */
static inline mca_coll_topo_memo_entry_t *mca_coll_topo_memo_set(const mca_coll_topo_memo_t *mm,
                                                                 int slot, size_t count,
                                                                 size_t unit, int root)
{
    if (OPAL_UNLIKELY(NULL == mm->entries[slot])) {
        return NULL;
    }
    const uint64_t key =
        (uint64_t)count + (uint64_t)unit + (uint64_t)(unsigned)root * UINT64_C(0x9e3779b9);
    /* the high bits of a Fibonacci hash, scaled to the sets */
    const uint64_t h = (key * UINT64_C(0x9e3779b97f4a7c15)) >> 32;
    const unsigned set = (unsigned)((h * mm->sets[slot]) >> 32);
    return &mm->entries[slot][set * COLL_TOPO_MEMO_WAYS];
}

/* Does the entry describe the call (counts: NULL, or one per rank of comm)? */
static inline bool mca_coll_topo_memo_matches(const mca_coll_topo_memo_entry_t *e,
                                              const struct ompi_datatype_t *dtype,
                                              const struct ompi_op_t *op, size_t count,
                                              size_t unit, int root, const int *counts,
                                              struct ompi_communicator_t *comm)
{
    if (!e->valid || e->dtype != dtype || e->op != op || e->count != count || e->root != root ||
        e->unit != unit) {
        return false;
    }
    if (NULL == counts) {
        return NULL == e->counts;
    }
    return NULL != e->counts && e->ncounts == ompi_comm_size(comm) &&
           0 == memcmp(e->counts, counts, (size_t)e->ncounts * sizeof(int));
}

/* The entry of a call of `slot` in the memo mm, or NULL: the last call's,
 * else one of its set's (then the last one). */
static inline mca_coll_topo_memo_entry_t *
mca_coll_topo_memo_find(mca_coll_topo_memo_t *mm, int slot, const struct ompi_datatype_t *dtype,
                        const struct ompi_op_t *op, size_t count, size_t unit, int root,
                        const int *counts, struct ompi_communicator_t *comm)
{
    mca_coll_topo_memo_entry_t *e = mm->last[slot];
    if (NULL != e && mca_coll_topo_memo_matches(e, dtype, op, count, unit, root, counts, comm)) {
        return e;
    }
    mca_coll_topo_memo_entry_t *set = mca_coll_topo_memo_set(mm, slot, count, unit, root);
    e = NULL;
    for (int w = 0; NULL != set && w < COLL_TOPO_MEMO_WAYS && NULL == e; w++) {
        e = mca_coll_topo_memo_matches(&set[w], dtype, op, count, unit, root, counts, comm)
                ? &set[w]
                : NULL;
    }
    mm->last[slot] = e;
    return e;
}

#endif /* MCA_COLL_TOPO_MEMO_H */
