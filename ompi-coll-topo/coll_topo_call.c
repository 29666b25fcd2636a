/*
 * What every primitive does around the executor: pick the algorithm (forced
 * by coll_topo_<primitive>_algorithm, or the decision's argmin), fetch its
 * schedule, lay the call's data out on the schedule's blocks, and move data
 * between the user's buffers and the work buffer.  The per-primitive files
 * (coll_topo_<primitive>.c) only say where their data is.
 *
 * A call no algorithm of ours fits goes to the previous module, with the
 * reason in the verbose output; an algorithm never hands a call to another
 * of our algorithms behind the user's back.  Every rank must reach the same
 * answer, so the answer depends only on what is the same on every rank: the
 * primitive, the root, the payload in bytes, the operation and the unit
 * counts (for reduce_scatter, the whole recvcounts array).
 */
#include "ompi_config.h"

#include <stddef.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "mpi.h"

#include "coll_topo.h"

/*
 * Datatypes.  The executor works on elements of one datatype, `ext` bytes
 * apart.
 * - A predefined datatype, or any datatype of a primitive that does not
 *   reduce, runs as is (the executor copies only data bytes, so the gaps of
 *   the user's buffer stay untouched).
 * - A derived datatype with a user-defined operation also runs as is: the
 *   user's function must see the user's datatype.
 * - A derived datatype with a predefined operation (Open MPI 4.1's parameter
 *   check refuses those; reachable with mpi_param_check=0) must be made of a
 *   single predefined type: it is packed to k elements of that type per
 *   element.
 * - Anything else goes to the previous module.
 */
/* The single predefined type a derived datatype is made of, and how many
 * of it one element holds; false when it is made of several (or is
 * predefined). */
static bool single_type(ompi_datatype_t *dtype, ompi_datatype_t **p, size_t *k)
{
    *p = !ompi_datatype_is_predefined(dtype) && NULL != dtype->args
             ? ompi_datatype_get_single_predefined_type_from_args(dtype)
             : NULL;
    size_t dsize, psize = 0;
    ompi_datatype_type_size(dtype, &dsize);
    if (NULL != *p) {
        ompi_datatype_type_size(*p, &psize);
    }
    if (NULL == *p || 0 == psize || 0 != dsize % psize) {
        return false;
    }
    *k = dsize / psize;
    return true;
}

static bool element_type(mca_coll_topo_call_t *call, size_t total)
{
    ompi_datatype_t *dtype = call->dtype;
    ptrdiff_t lb, ext;
    ompi_datatype_get_extent(dtype, &lb, &ext);
    if (ext <= 0) {
        snprintf(call->reason, COLL_TOPO_REASON_LEN,
                 "unsupported datatype: extent is not positive");
        return false;
    }
    call->edt = dtype;
    call->k = 1;
    /* Data that only moves goes as elements of its predefined type where
     * it has one: ranks may pass different datatypes of one type signature
     * (n of contiguous(2, MPI_INT) here, 2n MPI_INT there, or MPI_2INT),
     * and must still cut the vector into the same blocks. */
    ompi_datatype_t *p;
    size_t k;
    if (NULL == call->op && MPI_2INT == dtype) {
        call->edt = MPI_INT;
        call->k = 2;
    } else if (NULL == call->op) {
        if (single_type(dtype, &p, &k) && MPI_2INT != p) {
            call->edt = p;
            call->k = k;
        }
    } else if (!ompi_datatype_is_predefined(dtype) && ompi_op_is_intrinsic(call->op)) {
        if (!single_type(dtype, &p, &k)) {
            snprintf(call->reason, COLL_TOPO_REASON_LEN,
                     "unsupported datatype: derived, not made of a single predefined type");
            return false;
        }
        call->edt = p;
        call->k = k;
    }
    if (total > (size_t)INT32_MAX / call->k) {
        snprintf(call->reason, COLL_TOPO_REASON_LEN, "more than 2^31 elements");
        return false;
    }
    ompi_datatype_get_extent(call->edt, &lb, &call->eext);
    return true;
}

void mca_coll_topo_host_handoff_reason(char *buf, size_t len, int size, topo_prim_t prim)
{
    char text[32];
    topo_rules_format_size(mca_coll_topo_component.host_handoff_lim[prim], text, sizeof(text));
    snprintf(buf, len,
             "coll_topo_host_handoff: the %d ranks share one host, where %s of less than %s "
             "bytes goes to the previous module",
             size, topo_prim_name(prim), text);
}

topo_opclass_t mca_coll_topo_opclass(const mca_coll_topo_call_t *call)
{
    if (NULL == call->op) {
        return TOPO_OP_EXACT; /* data only moves */
    }
    if (!ompi_op_is_intrinsic(call->op)) {
        return ompi_op_is_commute(call->op) ? TOPO_OP_COMMUTATIVE : TOPO_OP_ORDERED;
    }
    /* MAX, MIN, the logical and bitwise operations, MAXLOC and MINLOC pick
     * or combine bits exactly; sums and products of integers wrap exactly */
    if (ompi_op_is_float_assoc(call->op) ||
        OMPI_DATATYPE_FLAG_DATA_INT == (call->edt->super.flags & OMPI_DATATYPE_FLAG_DATA_TYPE)) {
        return TOPO_OP_EXACT;
    }
    return TOPO_OP_COMMUTATIVE;
}

/*
 * The algorithm, in this order of precedence: forced by
 * coll_topo_<prim>_algorithm (not auto); the rule of coll_topo_<prim>_rules
 * covering the payload (NULL for a `previous` rule); NULL by
 * coll_topo_host_handoff; the cheapest that fits (auto).  A forced or
 * ruled algorithm that does not fit the call gives NULL (the previous
 * module), never another algorithm.  NULL with the reason.  ch->msgs and ch->steps: 0, or auto's
 * answer (mca_coll_topo_decide).
 */
static const topo_algo_t *choose(mca_coll_topo_module_t *m, struct ompi_communicator_t *comm,
                                 mca_coll_topo_call_t *call, const topo_gen_args_t *args,
                                 size_t bytes, char *why, size_t len, mca_coll_topo_choice_t *ch)
{
    const topo_prim_t prim = call->prim;
    const topo_algo_t *algo = mca_coll_topo_component.forced[prim];
    const int opclass = mca_coll_topo_opclass(call);
    /* the reasons are only for the verbose output, which says each
     * (primitive, algorithm) once: no formatting per call */
    const int verbose = mca_coll_topo_component.verbose > 0;
#define SAY(a) (verbose && !mca_coll_topo_algorithm_said(m, prim, (a)))

    ch->msgs = ch->steps = 0;
    ch->autochosen = false;
    if (NULL != algo) {
        if (!topo_algo_fits(algo, args, opclass, why, len)) {
            snprintf(call->reason, COLL_TOPO_REASON_LEN,
                     "coll_topo_%s_algorithm=%s does not fit: %s", topo_prim_name(prim), algo->name,
                     why);
            return NULL;
        }
        if (SAY(algo)) {
            snprintf(why, len, "forced by coll_topo_%s_algorithm", topo_prim_name(prim));
        }
        return algo;
    }
    const topo_rules_t *rules = mca_coll_topo_rules(prim);
    const topo_rule_t *rule = NULL != rules ? topo_rules_find(rules, args->size, bytes) : NULL;
    if (NULL != rule) {
        char rng[96];
        algo = rule->algo;
        const int fits = !rule->previous && topo_algo_fits(algo, args, opclass, why, len);
        const int say = fits && SAY(algo);
        if (!fits || say) {
            topo_rules_format_rule(rule, rng, sizeof(rng));
        }
        if (rule->previous) {
            snprintf(call->reason, COLL_TOPO_REASON_LEN,
                     "rule %s of coll_topo_%s_rules gives the previous module", rng,
                     topo_prim_name(prim));
            return NULL;
        }
        if (!fits) {
            snprintf(call->reason, COLL_TOPO_REASON_LEN,
                     "rule %s of coll_topo_%s_rules gives %s for %zu bytes, which does not "
                     "fit: %s",
                     rng, topo_prim_name(prim), algo->name, bytes, why);
            return NULL;
        }
        if (say) {
            snprintf(why, len, "rule %s of coll_topo_%s_rules", rng, topo_prim_name(prim));
        }
        return algo;
    }
    /* coll_topo_host_handoff (decided in mca_coll_topo_comm_prepare; 0
     * with rules for this size: the rules' gaps are the decision's) */
    if (bytes < m->host_lim[prim]) {
        if (verbose) {
            mca_coll_topo_host_handoff_reason(call->reason, COLL_TOPO_REASON_LEN, args->size, prim);
        }
        return NULL;
    }
    algo = mca_coll_topo_decide(m, comm, args, opclass, bytes, ch);
    if (NULL == algo) {
        int n, rows = 0;
        const topo_algo_t *cat = topo_catalog(&n);
        for (int i = 0; i < n; i++) {
            rows += cat[i].prim == prim;
        }
        snprintf(call->reason, COLL_TOPO_REASON_LEN, "no algorithm fits: %s",
                 0 == rows     ? "coll/topo has no algorithm for it yet"
                 : TOPO_OP_ORDERED != opclass ? "none could be priced"
                                              : "the operation is not commutative");
        return NULL;
    }
    if (SAY(algo)) {
        snprintf(why, len, "auto: cheapest predicted for %zu bytes: %.3f us", bytes,
                 ch->predicted * 1e6);
    }
    ch->autochosen = true;
    return algo;
#undef SAY
}

/*
 * The work buffer's layout in executor elements: one vector (call->n), or
 * units.  A uniform schedule moves blocks between positions, so its blocks
 * must all have the same size.  Returns RUN, FALLBACK (call->reason set) or
 * an error.
 */
static int lay_out(mca_coll_topo_module_t *m, mca_coll_topo_call_t *call, const topo_sched_t *s,
                   size_t total)
{
    const topo_algo_t *a = call->algo;
    const int size = s->size;
    if (0 == call->unit && NULL == call->counts) {
        call->n = total * call->k;
        call->units = NULL;
        if (s->uniform && s->nblocks > 0 && 0 != call->n % (size_t)s->nblocks) {
            snprintf(call->reason, COLL_TOPO_REASON_LEN,
                     "%s moves blocks between positions and needs a multiple of %d elements",
                     a->name, s->nblocks);
            return COLL_TOPO_FALLBACK;
        }
        return COLL_TOPO_RUN;
    }
    const int nparts = s->nparts > 0 ? s->nparts : 1;
    const int nunits = topo_sched_units(s);
    if (0 != s->nblocks % nparts || nunits < size || (NULL != call->counts && nunits != size)) {
        snprintf(call->reason, COLL_TOPO_REASON_LEN,
                 "the schedule of %s has %d blocks of %d parts, not a unit per rank", a->name,
                 s->nblocks, nparts);
        return COLL_TOPO_FALLBACK;
    }
    if (OMPI_SUCCESS !=
        mca_coll_topo_grow((void **)&m->units, &m->cap_units, (size_t)nunits * sizeof(size_t))) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    bool equal = true;
    call->n = 0;
    for (int u = 0; u < nunits; u++) {
        size_t c = NULL != call->counts ? (size_t)call->counts[u] : call->unit;
        m->units[u] = c * call->k;
        call->n += m->units[u];
        equal = equal && m->units[u] == m->units[0];
    }
    call->units = m->units;
    if (call->n > (size_t)INT32_MAX) {
        snprintf(call->reason, COLL_TOPO_REASON_LEN, "more than 2^31 elements");
        return COLL_TOPO_FALLBACK;
    }
    if (s->uniform && (!equal || 0 != m->units[0] % (size_t)nparts)) {
        snprintf(call->reason, COLL_TOPO_REASON_LEN,
                 "%s moves blocks between positions and needs units of equal size, a "
                 "multiple of %d elements",
                 a->name, nparts);
        return COLL_TOPO_FALLBACK;
    }
    return COLL_TOPO_RUN;
}

/* The memo set of a call of `slot` (mca_coll_topo_module_t.memo): by its
 * count and root (a unit count or a count array: by the unit, the rank's
 * own count), so that consecutive counts and consecutive roots fall in
 * different sets.  NULL: the slot has no memo yet. */
static inline mca_coll_topo_memo_t *memo_set(const mca_coll_topo_module_t *m, int slot,
                                             const mca_coll_topo_call_t *call)
{
    if (OPAL_UNLIKELY(NULL == m->memo[slot])) {
        return NULL;
    }
    const uint64_t key = (uint64_t)call->count + (uint64_t)call->unit +
                         (uint64_t)(unsigned)call->root * UINT64_C(0x9e3779b9);
    /* the high bits of a Fibonacci hash, scaled to the sets */
    const uint64_t h = (key * UINT64_C(0x9e3779b97f4a7c15)) >> 32;
    const unsigned set = (unsigned)((h * m->memo_sets[slot]) >> 32);
    return &m->memo[slot][set * COLL_TOPO_MEMO_WAYS];
}

/* The memo of `slot`, allocated at its first call, or grown 4 times when
 * it has replaced COLL_TOPO_MEMO_GROW_AFTER times as many entries as it
 * holds since it was allocated: the slot's calls cycle through more than it
 * holds, and every one of them was deciding and compiling its plan again.
 * Growing forgets what the memo held (the calls that repeat it find it
 * again after one more miss).  NULL: out of memory. */
static mca_coll_topo_memo_t *memo_of(mca_coll_topo_module_t *m, int slot)
{
    unsigned sets = COLL_TOPO_MEMO_SETS_MIN;
    if (NULL != m->memo[slot]) {
        const unsigned long held = (unsigned long)m->memo_sets[slot] * COLL_TOPO_MEMO_WAYS;
        if (m->memo_sets[slot] >= COLL_TOPO_MEMO_SETS_MAX ||
            m->memo_replaced[slot] < COLL_TOPO_MEMO_GROW_AFTER * held) {
            return m->memo[slot];
        }
        sets = 4 * m->memo_sets[slot];
        mca_coll_topo_memo_clear_slot(m, slot);
    }
    m->memo[slot] = calloc((size_t)sets * COLL_TOPO_MEMO_WAYS, sizeof(mca_coll_topo_memo_t));
    m->memo_sets[slot] = NULL != m->memo[slot] ? sets : 0;
    return m->memo[slot];
}

/* Keep what a call decided, for the calls that repeat it: a schedule to
 * run, or (handoff) the previous module, by coll_topo_handoff or because
 * the call falls back.  In the call's set, an empty entry or the next in
 * turn.  Returns the entry, or NULL (out of memory: nothing is kept). */
static mca_coll_topo_memo_t *remember(mca_coll_topo_module_t *m, int slot,
                                      const mca_coll_topo_call_t *call, bool handoff)
{
    const int size = ompi_comm_size(call->comm);
    const int nunits = NULL != call->units ? topo_sched_units(call->sched) : 0;
    int *counts = NULL;
    size_t *units = NULL;

    const mca_coll_topo_memo_t *all = memo_of(m, slot);
    if (NULL != call->counts) {
        counts = malloc((size_t)size * sizeof(*counts));
    }
    if (nunits > 0) {
        units = malloc((size_t)nunits * sizeof(*units));
    }
    if (NULL == all || (NULL != call->counts && NULL == counts) || (nunits > 0 && NULL == units)) {
        free(counts);
        free(units);
        return NULL;
    }
    if (NULL != counts) {
        memcpy(counts, call->counts, (size_t)size * sizeof(*counts));
    }
    if (NULL != units) {
        memcpy(units, call->units, (size_t)nunits * sizeof(*units));
    }
    mca_coll_topo_memo_t *set = memo_set(m, slot, call), *memo = NULL;
    for (int w = 0; w < COLL_TOPO_MEMO_WAYS && NULL == memo; w++) {
        memo = set[w].valid ? NULL : &set[w];
    }
    if (NULL == memo) {
        memo = &set[m->memo_turn[slot]++ % COLL_TOPO_MEMO_WAYS];
        m->memo_replaced[slot]++;
    }
    /* The replaced entry's plan is compiled again for this call when it
     * needs one (rather than freed and allocated again: an application
     * cycling through more calls than the memo holds replaces an entry at
     * every call); a handoff needs none. */
    mca_coll_topo_plan_t *spare = handoff ? NULL : memo->plan.own;
    if (NULL != spare) {
        memo->plan.own = NULL;
        mca_coll_topo_plan_invalidate(spare);
    }
    mca_coll_topo_memo_forget(m, memo);
    if (NULL != call->dtype) {
        OBJ_RETAIN(call->dtype);
    }
    if (NULL != call->op) {
        OBJ_RETAIN(call->op);
    }
    *memo = (mca_coll_topo_memo_t){
        .valid = true,
        .root = call->root,
        .count = call->count,
        .unit = call->unit,
        .counts = counts,
        .ncounts = NULL != counts ? size : 0,
        .dtype = call->dtype,
        .op = call->op,
        .algo = call->algo,
        .sched = handoff ? -1 : mca_coll_topo_sched_index(m, call->sched),
        .edt = call->edt,
        .k = call->k,
        .eext = call->eext,
        .n = call->n,
        .units = units,
        .plan = {NULL, 0, spare},
        .handoff = handoff,
    };
    m->memo_last[slot] = memo;
    return memo;
}

/* Does the memo describe this call? */
static inline bool memo_matches(const mca_coll_topo_memo_t *memo, const mca_coll_topo_call_t *call,
                                struct ompi_communicator_t *comm)
{
    if (!memo->valid || memo->dtype != call->dtype || memo->op != call->op ||
        memo->count != call->count || memo->root != call->root || memo->unit != call->unit) {
        return false;
    }
    if (NULL == call->counts) {
        return NULL == memo->counts;
    }
    return NULL != memo->counts && memo->ncounts == ompi_comm_size(comm) &&
           0 == memcmp(memo->counts, call->counts, (size_t)memo->ncounts * sizeof(int));
}

static int begin_decide(mca_coll_topo_call_t *call, mca_coll_topo_module_t *m,
                        struct ompi_communicator_t *comm, int slot);

/* "coll/tuned" for a module of class mca_coll_tuned_module_t (for the
 * verbose line), in `name` */
static const char *prev_name(const mca_coll_topo_fallback_t *f, char *name, size_t len)
{
    const opal_class_t *cls = f->module->super.obj_class;
    const char *c = NULL != cls && NULL != cls->cls_name ? cls->cls_name : "";
    const size_t n = strlen(c), pre = strlen("mca_coll_"), post = strlen("_module_t");
    if (n > pre + post && 0 == strncmp(c, "mca_coll_", pre) &&
        0 == strcmp(c + n - post, "_module_t")) {
        snprintf(name, len, "coll/%.*s", (int)(n - pre - post), c + pre);
    } else {
        snprintf(name, len, "%s", '\0' != c[0] ? c : "unnamed");
    }
    return name;
}

/*
 * coll_topo_handoff: does a call of `bytes` whose automatic plan on 2 ranks
 * is one message per rank go to the previous module (`prev`)?  A bcast or
 * reduce is one message from one rank, which every implementation sends
 * the same way (eager), with less per-call bookkeeping than ours (the
 * memo, the windows, the plan).  The other primitives are an exchange,
 * which coll/tuned's two-process code also sends as one; others need not
 * (coll/basic's barrier and allgather: two messages in turn), so these go
 * only to tuned.  The same on every rank: the set, the eager limit and
 * which slots have tuned behind them are part of the agreement hash.
 */
static inline bool handoff(topo_prim_t prim, size_t bytes, const mca_coll_topo_fallback_t *prev)
{
    const double eager = mca_coll_topo_proto()->eager;
    return 0 != (mca_coll_topo_component.handoff_set & (1u << prim)) && eager > 0 &&
           (double)bytes <= eager &&
           (TOPO_PRIM_BCAST == prim || TOPO_PRIM_REDUCE == prim || prev->tuned);
}

int mca_coll_topo_begin(mca_coll_topo_call_t *call, struct ompi_communicator_t *comm,
                        mca_coll_base_module_t *module, int slot)
{
    mca_coll_topo_module_t *m = (mca_coll_topo_module_t *)module;

    if (OPAL_UNLIKELY(!m->topo_ready)) {
        mca_coll_topo_comm_prepare(m, comm);
    }
    call->m = m;
    call->comm = comm;
    call->prev = &m->prev[slot];
    call->units = NULL;
    call->reason = m->reason;
    call->timed = false;
    /* A call that repeats a remembered one of the slot (a remembered call
     * ran, so neither of begin_decide's early fallbacks applies): the last
     * call's entry, else those of the call's set. */
    mca_coll_topo_memo_t *memo = m->memo_last[slot];
    if (NULL == memo || !memo_matches(memo, call, comm)) {
        mca_coll_topo_memo_t *set = memo_set(m, slot, call);
        memo = NULL;
        for (int w = 0; NULL != set && w < COLL_TOPO_MEMO_WAYS && NULL == memo; w++) {
            memo = memo_matches(&set[w], call, comm) ? &set[w] : NULL;
        }
        m->memo_last[slot] = memo;
    }
    if (NULL != memo) {
        m->memo_hits[slot]++;
        if (memo->handoff) {
            return COLL_TOPO_FALLBACK;
        }
        call->algo = memo->algo;
        call->sched = &m->scheds[memo->sched].sched;
        call->edt = memo->edt;
        call->k = memo->k;
        call->eext = memo->eext;
        call->n = memo->n;
        call->units = memo->units;
        call->plan = &memo->plan;
        if (OPAL_UNLIKELY(0 != memo->tune)) {
            return mca_coll_topo_tune_start(call, slot, memo->tune - 1);
        }
        return COLL_TOPO_RUN;
    }
    return begin_decide(call, m, comm, slot);
}

/* mca_coll_topo_begin for a call that the slot's memo does not hold. */
static int begin_decide(mca_coll_topo_call_t *call, mca_coll_topo_module_t *m,
                        struct ompi_communicator_t *comm, int slot)
{
    const int size = ompi_comm_size(comm);
    char why[256];
    why[0] = '\0';
    size_t total = call->count, dsize = 0;
    int rc;

    m->decided[slot]++;
    call->algo = NULL;
    call->sched = NULL;
    call->edt = MPI_BYTE; /* barrier: messages without data */
    call->k = 1;
    call->eext = 1;
    call->n = 0;
    call->plan = NULL;
    call->reason[0] = '\0';
    if (m->preparing) {
        return COLL_TOPO_FALLBACK; /* a previous module's collective calling ours */
    }
    if (m->disagree) {
        snprintf(call->reason, COLL_TOPO_REASON_LEN,
                 "the ranks reached different coll/topo inputs (parameter values or "
                 "topology): every primitive of this communicator falls back");
        goto fallback;
    }

    /* The payload: user elements, then bytes as the cost model counts them
     * (the vector; all ranks' units; alltoall: one rank's send buffer). */
    if (NULL != call->counts) {
        total = 0;
        for (int r = 0; r < size; r++) {
            total += (size_t)call->counts[r];
        }
    } else if (0 != call->unit) {
        total = (size_t)size * call->unit;
    }
    if (NULL != call->dtype) {
        ompi_datatype_type_size(call->dtype, &dsize);
        if (0 == total || 0 == dsize) {
            return OMPI_SUCCESS; /* nothing moves */
        }
        if (!element_type(call, total)) {
            goto fallback;
        }
    }
    const size_t bytes = total * dsize;

    const topo_gen_args_t args = {
        .prim = call->prim,
        .size = size,
        .rank = ompi_comm_rank(comm),
        .root = call->root,
        .topo = &m->topo,
    };
    mca_coll_topo_choice_t ch;
    call->algo = choose(m, comm, call, &args, bytes, why, sizeof(why), &ch);
    if (NULL == call->algo) {
        goto fallback;
    }
    if (1 == ch.steps && ch.msgs >= 1 && ch.msgs <= 2 && 2 == size &&
        handoff(call->prim, bytes, call->prev)) {
        if (OPAL_UNLIKELY(mca_coll_topo_component.verbose > 0)) {
            char prev[64];
            snprintf(
                call->reason, COLL_TOPO_REASON_LEN,
                "coll_topo_handoff: on 2 ranks %s is one message per rank, of at most %.0f bytes "
                "(the eager limit), which the previous module (%s) sends with less bookkeeping",
                call->algo->name, mca_coll_topo_proto()->eager,
                prev_name(call->prev, prev, sizeof(prev)));
        }
        remember(m, slot, call, true);
        const topo_rules_t *rules = mca_coll_topo_rules(call->prim);
        if (NULL == call->counts && (NULL == rules || NULL == topo_rules_group(rules, size))) {
            /* every payload of this answer's range up to the eager limit
             * (no rule can cover one of them on this communicator; a
             * forced algorithm would not have come here) */
            const size_t eager = (size_t)mca_coll_topo_proto()->eager;
            m->handoff[slot].lo = ch.lo;
            m->handoff[slot].hi = ch.hi <= eager ? ch.hi : eager + 1;
            m->handoff[slot].root = call->root;
            m->handoff[slot].commutative = NULL == call->op || ompi_op_is_commute(call->op);
        }
        goto say;
    }
    /* coll_topo_autotune: a class the previous module was faster for goes
     * there; one still being timed runs as the timing says */
    const int key = ch.autochosen ? mca_coll_topo_tune_key(m, call, slot, bytes) : -1;
    const int verdict = key >= 0 ? m->tune[slot][key].verdict : COLL_TOPO_TUNE_KEEP;
    if (COLL_TOPO_TUNE_PREV == verdict) {
        if (OPAL_UNLIKELY(mca_coll_topo_component.verbose > 0)) {
            char cls[96];
            mca_coll_topo_tune_class(key, cls, sizeof(cls));
            snprintf(call->reason, COLL_TOPO_REASON_LEN,
                     "coll_topo_autotune: the previous module was faster than %s for %s",
                     NULL != m->tune[slot][key].algo ? m->tune[slot][key].algo->name : "coll/topo",
                     cls);
        }
        remember(m, slot, call, true);
        goto say;
    }
    call->sched = mca_coll_topo_schedule(m, comm, call->algo, &args);
    if (NULL == call->sched) {
        snprintf(call->reason, COLL_TOPO_REASON_LEN, "the schedule of %s could not be generated",
                 call->algo->name);
        goto say; /* out of memory, perhaps: the next call tries again */
    }
    rc = lay_out(m, call, call->sched, total);
    if (COLL_TOPO_RUN == rc && OPAL_UNLIKELY(mca_coll_topo_component.verbose > 0)) {
        mca_coll_topo_say_algorithm(m, comm, call->prim, call->algo, why);
    }
    if (COLL_TOPO_RUN == rc) {
        mca_coll_topo_memo_t *memo = remember(m, slot, call, false);
        if (NULL != memo) {
            call->plan = &memo->plan;
        }
        if (COLL_TOPO_TUNE_TIMING == verdict) {
            if (NULL != memo) {
                memo->tune = key + 1;
            }
            return mca_coll_topo_tune_start(call, slot, key);
        }
    }
    if (COLL_TOPO_FALLBACK != rc) {
        return rc;
    }
fallback:
    /* Every reason above depends only on what the memo compares (the
     * datatype, operation, counts and root) or on the communicator: a call
     * that repeats this one goes to the previous module at once, without
     * the decision and its message (some 0.6 us per call). */
    remember(m, slot, call, true);
say:
    mca_coll_topo_say_fallback(m, comm, call->prim, call->reason);
    return COLL_TOPO_FALLBACK;
}

/* Between a span and the work buffer, either way, through the datatype
 * engine. */
static int copy_convert(const mca_coll_topo_call_t *call, char *at, int32_t n,
                        const mca_coll_topo_span_t *sp, bool in)
{
    if (in) {
        return ompi_datatype_sndrcv(sp->buf, sp->count, sp->dtype, at, n, call->edt);
    }
    return ompi_datatype_sndrcv(at, n, call->edt, (void *)sp->buf, sp->count, sp->dtype);
}

/* Where the span's elements sit in the work buffer `work`. */
static inline char *span_at(const mca_coll_topo_call_t *call, char *work,
                            const mca_coll_topo_span_t *sp)
{
    return work + (ptrdiff_t)(sp->at * call->k) * call->eext;
}

/* Between a span and the work buffer, either way. */
static inline int copy(const mca_coll_topo_call_t *call, char *work, const mca_coll_topo_span_t *sp,
                       bool in)
{
    char *at = span_at(call, work, sp);
    const int32_t n = (int32_t)(sp->n * call->k);
    const ompi_datatype_t *dt = call->edt;
    if (sp->dtype != dt) {
        return copy_convert(call, at, n, sp, in);
    }
    if ((const void *)at == sp->buf) {
        return OMPI_SUCCESS;
    }
    if (sp->count == n && mca_coll_topo_flat(dt, call->eext)) {
        /* plain elements: bytes (MPI forbids the user's buffers to overlap) */
        if (in) {
            memcpy(at, sp->buf, (size_t)n * dt->super.size);
        } else {
            memcpy((void *)sp->buf, at, (size_t)n * dt->super.size);
        }
        return OMPI_SUCCESS;
    }
    return copy_convert(call, at, n, sp, in);
}

/* Are `count` elements of `dt` the executor's elements one after the
 * other from the buffer's start: dt is its element type, or a contiguous
 * datatype of it (contiguous(2, MPI_INT), say), which element_type
 * replaced by its predefined type? */
static inline bool as_elements(const mca_coll_topo_call_t *call, ompi_datatype_t *dt, size_t count)
{
    if (dt == call->edt) {
        return true;
    }
    ptrdiff_t true_lb, true_ext;
    ompi_datatype_get_true_extent(dt, &true_lb, &true_ext);
    return 0 == true_lb && count <= (size_t)INT32_MAX &&
           mca_coll_topo_flat(call->edt, call->eext) &&
           ompi_datatype_is_contiguous_memory_layout(dt, (int32_t)count);
}

/* Does the span hold the executor's own elements, so that it can serve as
 * a window? */
static inline bool window(const mca_coll_topo_call_t *call, const mca_coll_topo_span_t *sp)
{
    return sp->dtype == call->edt ? (size_t)sp->count == sp->n * call->k
                                  : as_elements(call, sp->dtype, sp->count) &&
                                        (size_t)sp->count * sp->dtype->super.size ==
                                            sp->n * call->k * call->edt->super.size;
}

static inline bool overlap(const mca_coll_topo_span_t *a, const mca_coll_topo_span_t *b)
{
    return a->at < b->at + b->n && b->at < a->at + a->n;
}

int mca_coll_topo_execute(const mca_coll_topo_call_t *call, void *user,
                          const mca_coll_topo_span_t *in, const mca_coll_topo_span_t *out)
{
    const size_t k = call->k;
    /* work = user */
    const bool own = NULL != user && as_elements(call, call->dtype, call->n / k);
    mca_coll_topo_bufs_t b = {.work = own ? user : NULL};
    mca_coll_topo_span_t whole;
    if (NULL != user && !own && NULL == out) {
        /* The user's buffer is the result, laid out otherwise than the
         * executor's elements (a vector datatype element_type replaced by
         * its predefined type): copied out whole, and in where it holds
         * input (a bcast's root, an allgather's own block in place). */
        whole = (mca_coll_topo_span_t){user, (int)(call->n / k), call->dtype, 0, call->n / k};
        out = &whole;
        if (NULL == in &&
            (TOPO_PRIM_ALLGATHER == call->prim ||
             (TOPO_PRIM_BCAST == call->prim && call->root == ompi_comm_rank(call->comm)))) {
            in = &whole;
        }
    }
    const mca_coll_topo_span_t *copy_in = NULL, *copy_out = NULL;
    int rc = OMPI_SUCCESS;

    /* The input: in place already, a window (not when it is the memory the
     * result goes to: MPI_IN_PLACE), or copied in. */
    if (NULL != in && !(own && span_at(call, user, in) == in->buf)) {
        if (window(call, in) && in->buf != user && (NULL == out || in->buf != out->buf)) {
            b.in = in->buf;
            b.w.in_at = in->at * k;
            b.w.in_n = in->n * k;
        } else {
            copy_in = in;
        }
    }
    /* The result: in place already, in an output window, or copied out. */
    if (NULL != out) {
        b.w.keep_at = out->at * k;
        b.w.keep_n = out->n * k;
        if (own && span_at(call, user, out) == out->buf) {
            /* the work buffer is the result */
        } else if (!own && window(call, out) && (NULL == copy_in || !overlap(copy_in, out))) {
            b.out = (char *)out->buf;
            b.w.out_at = out->at * k;
            b.w.out_n = out->n * k;
        } else {
            copy_out = out;
        }
    } else if (own) {
        b.w.keep_n = call->n;
    }
    if ((NULL != copy_in || NULL != copy_out) && NULL == b.work) {
        rc = mca_coll_topo_stage(call->m, call->edt, call->n, &b.work);
    }
    if (OMPI_SUCCESS == rc && NULL != copy_in) {
        rc = copy(call, b.work, copy_in, true);
    }
    if (OMPI_SUCCESS == rc) {
        rc = mca_coll_topo_exec(call->m, call->sched, &b, call->n, call->units, call->edt, call->op,
                                call->comm, COLL_TOPO_TAG(call->prim, 0), call->plan);
    }
    if (OMPI_SUCCESS == rc && NULL != copy_out) {
        rc = copy(call, b.work, copy_out, false);
    }
    if (OMPI_SUCCESS == rc) {
        /* (after an error, requests dropped in flight may still write it) */
        mca_coll_topo_trim(call->m);
    }
    if (OPAL_UNLIKELY(call->timed)) {
        rc = mca_coll_topo_tune_end(call->m, call->comm, rc);
    }
    return rc;
}
