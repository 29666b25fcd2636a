/*
 * coll/topo: topology-aware collectives for Open MPI 4.1.
 *
 * The component glue (this header, coll_topo_component.c,
 * coll_topo_module.c), the per-primitive entry points
 * (coll_topo_<primitive>.c), the decision (coll_topo_decide.c) and the
 * executor that runs any schedule of the core (coll_topo_exec.h).  The
 * algorithms themselves live in core/ as schedule generators; nothing here
 * knows any particular algorithm.
 */
#ifndef MCA_COLL_TOPO_H
#define MCA_COLL_TOPO_H

#include "ompi_config.h"

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mpi.h"
#include "ompi/communicator/communicator.h"
#include "ompi/datatype/ompi_datatype.h"
#include "ompi/mca/coll/coll.h"
#include "ompi/op/op.h"
#include "ompi/request/request.h"
#include "opal/sys/atomic.h"
#include "opal/threads/mutex.h"

#include "catalog.h"
#include "cost.h"
#include "decision.h"
#include "params.h"
#include "rules.h"
#include "schedule.h"
#include "topology.h"

#include "coll_topo_exec.h"

BEGIN_C_DECLS

/* The help file, opened with opal_show_help. */
#define COLL_TOPO_HELP_FILE "help-coll-topo.txt"

/*
 * Tags.  coll_tags.h hands out every negative tag: blocking collectives
 * -10..-26, nonblocking ones from -27 down to -(INT_MAX/2), then neighbour
 * collectives, UCC, and HCOLL from just below that down to -INT_MAX.  No range
 * is reserved for third-party components, so we take 2050 tags at the far
 * (unused in practice) end of HCOLL's range: -(INT_MAX - 65536) down to
 * -(INT_MAX - 65536) - 2049, which stays above -INT_MAX.  One tag per
 * (primitive, lane) so that lanes, which progress independently, never
 * match each other's messages.
 */
#define COLL_TOPO_TAG_BASE (-INT_MAX + 65536)
#define COLL_TOPO_MAX_LANES 256
#define COLL_TOPO_TAG(prim, lane) \
    (COLL_TOPO_TAG_BASE - ((int)(prim)*COLL_TOPO_MAX_LANES + (int)(lane)))
/* Two more just below them: the exchanges of a communicator's first call
 * (coll_topo_agree.c), 0 the agreement, 1 the gathers of hosts and
 * positions. */
#define COLL_TOPO_TAG_PREPARE(i) \
    (COLL_TOPO_TAG_BASE - (int)TOPO_PRIM_COUNT * COLL_TOPO_MAX_LANES - (int)(i))

/* Room for the reason a call falls back. */
#define COLL_TOPO_REASON_LEN 320

/* Verbose levels of coll_topo_verbose. */
enum {
    COLL_TOPO_VERBOSE_DECISIONS = 1, /* topology, algorithm, fallbacks */
    COLL_TOPO_VERBOSE_CANDIDATES = 2 /* + every candidate of auto, priced */
};

/* ------------------------------------------------------------------ */
/* Component                                                          */

typedef struct mca_coll_topo_component_t {
    mca_coll_base_component_2_0_0_t super;

    /* MCA parameters (storage owned by the MCA variable system) */
    int priority;
    int verbose;
    char *topology;                   /* coll_topo_topology */
    char *algorithm[TOPO_PRIM_COUNT]; /* coll_topo_<prim>_algorithm */
    char *rules[TOPO_PRIM_COUNT];     /* coll_topo_<prim>_rules ("" = none) */
    size_t segment_size;              /* 0 = never split a transfer */
    /* The cost model's seconds: MCA string parameters (their text, so that
     * ompi_info shows 1e-10 as such), parsed at open into the doubles
     * below, which everything else reads (mca_coll_topo_params). */
    char *alpha_text, *beta_text, *gamma_text, *hop_text, *intra_alpha_text, *intra_beta_text,
        *intra_beta_written_text, *copy_text, *msg_overhead_text, *rndv_alpha_text;
    double alpha, beta, gamma;        /* cost model of `auto` */
    double hop;                       /* seconds per extra link hop */
    double intra_alpha, intra_beta;   /* ranks placed on one node */
    double intra_beta_written;        /* the same, data written in the call */
    double copy;                      /* seconds per byte copied locally */
    double msg_overhead;              /* seconds per message a rank sends */
    int ports;                        /* ports per rank; 0 = the topology's */
    int price_ranks;                  /* ranks the cost model prices (0 = all) */
    int price_roots;                  /* roots with a decision table (0 = all) */
    bool prune;                       /* coll_topo_prune: skip candidates that
                                         cannot win (decision.h) */
    long eager_limit;                 /* bytes; -1 = the BTLs' (auto) */
    double rndv_alpha;                /* seconds; -1 = 2 * alpha (auto) */
    char *coords_file;                /* coll_topo_coords_file ("" = none) */
    char *coords_host;                /* coll_topo_coords_host ("" = nodename) */
    bool pmix;                        /* coll_topo_pmix: read fabric coordinates */
    int locality;                     /* coll_topo_locality: a star's nodes
                                         (COLL_TOPO_LOCALITY_*) */
    char *handoff;                    /* coll_topo_handoff */
    char *host_handoff;               /* coll_topo_host_handoff */
    bool check_plans;                 /* coll_topo_check_plans: compile every
                                         derived plan too, and compare */
    size_t scratch_keep;              /* coll_topo_scratch_keep: bytes of scratch a
                                         module keeps between calls, per buffer */
    int autotune;                     /* coll_topo_autotune (COLL_TOPO_AUTOTUNE_*) */
    int autotune_calls;               /* coll_topo_autotune_calls: timed calls per side */
    double autotune_margin;           /* coll_topo_autotune_margin */

    /* Derived at open */
    bool disqualified;                          /* runtime Open MPI mismatch */
    topo_topology_t topo;                       /* parsed coll_topo_topology */
    bool topo_valid;                            /* parsed without error */
    const topo_algo_t *forced[TOPO_PRIM_COUNT]; /* NULL = auto */
    unsigned handoff_set;                       /* parsed coll_topo_handoff:
                                                   bit 1u << prim */
    size_t host_handoff_lim[TOPO_PRIM_COUNT];   /* parsed coll_topo_host_handoff:
                                                   bytes per primitive (0: none) */
} mca_coll_topo_component_t;

/* coll_topo_handoff's default: the primitives whose one-message calls go
 * to the previous module (README, "Known gaps": on 2 ranks, binomial bcast
 * and reduce of small payloads ran at 0.84-0.96 of tuned; barrier,
 * allgather and alltoall, one exchange, executed 20-45% more instructions
 * than tuned's two-process code for the same messages) */
#define COLL_TOPO_HANDOFF_DEFAULT "allgather,bcast,reduce,alltoall,barrier"

/* coll_topo_host_handoff's default: on a communicator whose ranks share one
 * host, the payloads (bytes, exclusive) below which a primitive's calls go
 * to the previous module (README, "One host": on 16 ranks of a 16-core
 * node, coll/tuned was as fast or faster in both timings there) */
#define COLL_TOPO_HOST_HANDOFF_DEFAULT "bcast:4k,reduce:64k"

/* coll_topo_autotune (coll_topo_autotune.c) */
enum {
    COLL_TOPO_AUTOTUNE_OFF = 0,
    COLL_TOPO_AUTOTUNE_EXACT = 1, /* calls whose result no algorithm changes */
    COLL_TOPO_AUTOTUNE_ALL = 2
};
#define COLL_TOPO_AUTOTUNE_CALLS 8
#define COLL_TOPO_AUTOTUNE_CALLS_MAX 1000

/* coll_topo_scratch_keep's default: 4 MiB per buffer */
#define COLL_TOPO_SCRATCH_KEEP ((size_t)4 << 20)

/* coll_topo_locality */
enum {
    COLL_TOPO_LOCALITY_OFF = 0,
    COLL_TOPO_LOCALITY_AUTO = 1,  /* unless a host is oversubscribed */
    COLL_TOPO_LOCALITY_ALWAYS = 2 /* even then */
};

OMPI_DECLSPEC extern mca_coll_topo_component_t mca_coll_topo_component;

/* Show the help messages about bad MCA values found at open (once per
 * process, first process of the job only). */
void mca_coll_topo_report_params(void);

/* The size-range rules of `prim` (coll_topo_<prim>_rules), parsed at the
 * first use; NULL when there are none or the value is malformed (then the
 * bad-rules message is shown once, by the job's first process). */
const topo_rules_t *mca_coll_topo_rules(topo_prim_t prim);

/* A 64-bit hash of every parameter value the decisions depend on (the
 * effective algorithms, the rules, the cost model, segment_size, the
 * topology and coordinates file parameters, the handoff set): the same on
 * every rank of a job that was given the same values. */
uint64_t mca_coll_topo_params_hash(void);
/* Continue an FNV-1a hash over n bytes. */
uint64_t mca_coll_topo_hash(uint64_t h, const void *p, size_t n);
#define COLL_TOPO_HASH_INIT 0xcbf29ce484222325ULL

/* The process's lazily set state (the cost model's protocol, the parsed
 * rules, the coordinates file, the parameter report, say-once flags): the
 * first collective on a communicator sets it, and with MPI_THREAD_MULTIPLE
 * several threads may do that at once, each on its own communicator.
 * Held only around local work, never across communication (another rank's
 * thread may be waiting for this one's collective on another
 * communicator). */
extern opal_mutex_t mca_coll_topo_lazy_lock;
/* Was *flag false?  Then it is set now (under mca_coll_topo_lazy_lock):
 * "say this once per process". */
bool mca_coll_topo_once(bool *flag);

/* Is this the first process of the job (or no job at all)? */
bool mca_coll_topo_first_process(void);
/* A help message of help-coll-topo.txt, printed on this process's stderr
 * (not forwarded through mpirun): for messages one process reports. */
void mca_coll_topo_show_help(const char *topic, ...);

/* coll_topo_agree.c: the record of this process in the modex (at open),
 * whether every rank of a communicator runs coll/topo as this one does
 * (comm_query; says what differs otherwise), and coll/topo's own exchanges
 * over the PML for a communicator's first call: the element-wise maximum
 * of n <= COLL_TOPO_OWN_MAX_N uint64 in place, and an allgather of one
 * item of `bytes` per rank. */
#define COLL_TOPO_OWN_MAX_N 8
void mca_coll_topo_publish(void);
void mca_coll_topo_agree_finalize(void);
bool mca_coll_topo_ranks_run_topo(struct ompi_communicator_t *comm);
int mca_coll_topo_own_max(struct ompi_communicator_t *comm, uint64_t *v, int n);
int mca_coll_topo_own_allgather(struct ompi_communicator_t *comm, const void *mine, void *all,
                                size_t bytes);

/* The primitives this component serves, with their MCA parameter name. */
typedef struct {
    topo_prim_t prim;
    const char *param; /* "allreduce_algorithm" */
} mca_coll_topo_served_t;

extern const mca_coll_topo_served_t mca_coll_topo_served[];
extern const int mca_coll_topo_nserved;

/* ------------------------------------------------------------------ */
/* Module                                                             */

/* The function slots we occupy: one per primitive (indexed by topo_prim_t),
 * plus MPI_Reduce_scatter_block, which is the reduce_scatter primitive with
 * equal counts. */
#define COLL_TOPO_SLOT_REDUCE_SCATTER_BLOCK ((int)TOPO_PRIM_COUNT)
#define COLL_TOPO_NSLOTS ((int)TOPO_PRIM_COUNT + 1)

/* The module that served a slot before us (our fallback). */
typedef struct {
    union {
        mca_coll_base_module_allreduce_fn_t allreduce;
        mca_coll_base_module_reduce_scatter_fn_t reduce_scatter;
        mca_coll_base_module_reduce_scatter_block_fn_t reduce_scatter_block;
        mca_coll_base_module_allgather_fn_t allgather;
        mca_coll_base_module_bcast_fn_t bcast;
        mca_coll_base_module_reduce_fn_t reduce;
        mca_coll_base_module_alltoall_fn_t alltoall;
        mca_coll_base_module_barrier_fn_t barrier;
        void (*any)(void);
    } fn;
    mca_coll_base_module_t *module; /* retained */
    bool tuned;                     /* the module is coll/tuned's (its class name says so),
                                       whose two-process code sends one exchange where
                                       coll_topo_handoff hands it one */
} mca_coll_topo_fallback_t;

/* A generated schedule, per (algorithm, root) (found through
 * mca_coll_topo_module_t.sched_at), and the plan of the first layout it
 * ran with (owned; NULL: none yet): a call from a new root each time (a
 * reduce to every rank in turn) finds its plan there, where the module's
 * few plans for other layouts (plans[]) would be compiled again at every
 * call. */
typedef struct {
    int rc; /* TOPO_OK or the generator's error */
    topo_sched_t sched;
    mca_coll_topo_plan_t *plan;
} mca_coll_topo_sched_entry_t;

/* The decision of `auto` for one (primitive, root, class of operation)
 * on this communicator: every candidate priced (decision.h), and the
 * table of payload ranges with the cheapest of each. */
typedef struct {
    topo_prim_t prim;
    int root;
    int opclass; /* topo_opclass_t */
    int ncand;
    const topo_algo_t **algo; /* [ncand]: the candidates, catalog order */
    topo_price_t *price;      /* [ncand] */
    topo_decision_t table;    /* cand: an index into algo/price */
    size_t upto;              /* the table holds for payloads up to this many
                                 bytes (SIZE_MAX: every payload); above, a
                                 candidate not priced may be cheaper
                                 (coll_topo_decide.c: two stages) */
    bool shared;              /* owned by the process's cache (coll_topo_decide.c),
                                 not by the module */
} mca_coll_topo_decision_t;

/* The repeated-call memo of each slot: sets of COLL_TOPO_MEMO_WAYS
 * entries, a call's set chosen by its count and root, so that an
 * application cycling through up to about 3/4 as many counts or roots as
 * the memo holds finds each call's decision, schedule, layout and plan
 * without looking them up (with one entry per slot, allreduce of 40 counts
 * in turn on 4 ranks cost 8798 instructions per call against tuned's 2591,
 * most of it compiling the plan again).  A slot starts with
 * COLL_TOPO_MEMO_SETS_MIN sets; one that has replaced
 * COLL_TOPO_MEMO_GROW_AFTER times its entries (its calls cycle through more
 * than it holds) grows 4 times, up to COLL_TOPO_MEMO_SETS_MAX sets (allreduce
 * of 100 counts in turn: 6921 instructions per call against tuned's 2990
 * with 64 entries; 2000 counts: 16642 against 13254 with at most 1024
 * entries, 11473 against 13176 with 4096).  Entries own their plans up to
 * COLL_TOPO_MEMO_PLAN_BYTES per module (a large communicator's plans are
 * large; past that, plans[] serve). */
#define COLL_TOPO_MEMO_SETS_MIN 16
#define COLL_TOPO_MEMO_SETS_MAX 1024
#define COLL_TOPO_MEMO_WAYS 4
#define COLL_TOPO_MEMO_GROW_AFTER 2
#define COLL_TOPO_MEMO_PLAN_BYTES ((size_t)8 << 20)

/* A call of a slot that ran, for a call that repeats it (same datatype,
 * operation, count, root and units: the same decision, schedule and
 * layout).  The datatype and operation are retained so that their
 * addresses cannot be reused by other objects. */
typedef struct {
    bool valid;
    int root;
    size_t count;
    size_t unit;
    int *counts;                   /* owned copy of the call's counts, or NULL */
    int ncounts;
    struct ompi_datatype_t *dtype; /* retained, or NULL (barrier) */
    struct ompi_op_t *op;          /* retained, or NULL */
    const topo_algo_t *algo;
    int sched;                     /* index in the module's schedules */
    struct ompi_datatype_t *edt;
    size_t k;
    ptrdiff_t eext;
    size_t n;
    size_t *units;                 /* owned copy of the layout's units, or NULL */
    mca_coll_topo_plan_ref_t plan; /* the executor's plan of this call */
    bool handoff;                  /* the call went to the previous module
                                      (coll_topo_handoff, or a fallback):
                                      no schedule (sched -1) and no plan */
    int tune;                      /* the payload class being timed + 1
                                      (coll_topo_autotune), 0: none */
} mca_coll_topo_memo_t;

/* The timing of one payload class of a slot (coll_topo_autotune.c): a
 * payload's bit length and whether the operation commutes,
 * COLL_TOPO_TUNE_KEYS classes per slot. */
#define COLL_TOPO_TUNE_KEYS (2 * 65)
enum {
    COLL_TOPO_TUNE_TIMING = 0, /* calls still alternate between the two */
    COLL_TOPO_TUNE_KEEP = 1,   /* coll/topo serves the class */
    COLL_TOPO_TUNE_PREV = 2    /* the previous module does */
};
typedef struct {
    unsigned calls;          /* calls so far: untimed, then timed (both sides,
                                warm-up included) */
    int verdict;             /* COLL_TOPO_TUNE_* */
    double sum[2], max[2];   /* this rank's seconds: [0] coll/topo, [1] previous */
    const topo_algo_t *algo; /* coll/topo's algorithm (the last one timed) */
} mca_coll_topo_tune_t;

typedef struct mca_coll_topo_module_t {
    mca_coll_base_module_t super;

    bool enabled;
    mca_coll_topo_fallback_t prev[COLL_TOPO_NSLOTS]; /* by slot */

    /* Resolved at the communicator's first collective call (Cartesian
     * information is attached only after coll selection). */
    bool topo_ready;
    topo_topology_t topo;
    int *place, nplace;    /* topo.place (owned): the grid position (star:
                              the host) of each rank, NULL when the
                              communicator is the whole grid in order (star:
                              every rank a host of its own) */
    char topo_name[64];    /* canonical spelling */
    char topo_source[512]; /* where it came from */
    /* The ranks' decision inputs differ (coll_topo_* values): every
     * primitive goes to the previous module on this communicator. */
    bool disagree;
    bool preparing; /* inside comm_prepare: nested calls fall back quietly */

    /* Caches */
    mca_coll_topo_sched_entry_t *scheds;
    int nscheds, cap_scheds;
    /* where each algorithm's schedule of each root is in scheds, so that a
     * call from a new root each time (a reduce to every rank in turn) finds
     * its schedule at once: per algorithm that has one, an entry per root
     * (bcast, reduce: comm size; the others: one) of index + 1 (0: not
     * generated) */
    struct {
        const topo_algo_t *algo;
        int *at;
    } *sched_at;
    int nsched_at;
    mca_coll_topo_memo_t *memo[COLL_TOPO_NSLOTS]; /* memo_sets[slot] * COLL_TOPO_MEMO_WAYS
                                                     each, allocated at the slot's first
                                                     call; NULL: none */
    unsigned memo_sets[COLL_TOPO_NSLOTS];         /* sets of memo[slot] (0: none) */
    unsigned long memo_replaced[COLL_TOPO_NSLOTS]; /* entries replaced since memo[slot]
                                                      was allocated */
    unsigned memo_turn[COLL_TOPO_NSLOTS];         /* the way a miss replaces next */
    mca_coll_topo_memo_t *memo_last[COLL_TOPO_NSLOTS]; /* the entry of the slot's last
                                                          call (looked at first), or NULL */
    /* coll_topo_verbose=2: per slot, the calls the memo held and those
     * decided again, and the plans compiled and derived from another
     * count's, reported when the communicator is freed (by rank 0,
     * `said_comm` names it). */
    unsigned long memo_hits[COLL_TOPO_NSLOTS], decided[COLL_TOPO_NSLOTS];
    char said_comm[96];                           /* "NAME (cid N)", or empty: no report */
    size_t memo_plan_bytes;                       /* held by the memo entries' plans */
    /* coll_topo_handoff's payloads of each slot: a call of root `root`, an
     * operation of this commutativity and a payload in [lo, hi) goes to the
     * previous module (hi 0: none known yet).  Set by the first such call
     * (every rank sees the same calls, so every rank sets the same). */
    struct {
        size_t lo, hi;
        int root;
        bool commutative;
    } handoff[COLL_TOPO_NSLOTS];
    /* coll_topo_host_handoff, per slot: calls of a smaller payload go to
     * the previous module (0: none; set at the communicator's first call,
     * when it is on one host and the primitive has neither a forced
     * algorithm nor rules for its size) */
    size_t host_lim[COLL_TOPO_NSLOTS];
    char reason[COLL_TOPO_REASON_LEN]; /* of the current call's fallback */
    mca_coll_topo_decision_t *decisions;
    int ndecisions, cap_decisions;
    int last_decision[TOPO_PRIM_COUNT]; /* the last one used: index + 1, 0 = none */
    /* topo_prim_root_free on this communicator, asked at the first call of
     * a nonzero root: 0 not yet, 1 no, 2 yes (the topology is settled) */
    unsigned char root_free[TOPO_PRIM_COUNT];

    /* Verbose: which (primitive, catalog row) lines were printed, and the
     * fallback reasons already reported. */
    unsigned char *said_algo;              /* [TOPO_PRIM_COUNT * catalog size] */
    uint64_t said_bucket[TOPO_PRIM_COUNT]; /* level 2: payload buckets shown */
    char **said_reasons;
    int nsaid_reasons, cap_said_reasons;

    mca_coll_topo_exec_t exec; /* the executor's plans, scratch and transport */

    /* Unit sizes of the current call, in executor elements. */
    size_t *units;
    size_t cap_units; /* bytes */

    /* coll_topo_autotune: per slot, COLL_TOPO_TUNE_KEYS classes (allocated
     * at the slot's first timed call; NULL: none), and the call being
     * timed: slot + 1 (0: none), its class, side (0 coll/topo, 1 the
     * previous module) and start */
    mca_coll_topo_tune_t *tune[COLL_TOPO_NSLOTS];
    int tune_slot, tune_key, tune_side;
    double tune_t0;
    /* per slot, bit b: the payloads of bit length b go to the previous
     * module at the entry (COLL_TOPO_HANDOFF), without the memo's lookup:
     * classes handed over of a primitive that moves data (every call of
     * it is timed alike) without rules on this communicator */
    uint64_t tune_mask[COLL_TOPO_NSLOTS];
} mca_coll_topo_module_t;

OBJ_CLASS_DECLARATION(mca_coll_topo_module_t);

/* coll_topo_module.c */
int mca_coll_topo_init_query(bool enable_progress_threads, bool enable_mpi_threads);
mca_coll_base_module_t *mca_coll_topo_comm_query(struct ompi_communicator_t *comm, int *priority);
/* Resolve the communicator's topology and print its verbose line; called at
 * the start of every collective (cheap after the first call). */
void mca_coll_topo_comm_prepare(mca_coll_topo_module_t *m, struct ompi_communicator_t *comm);
/* The communicator's name for verbose lines. */
const char *mca_coll_topo_comm_name(struct ompi_communicator_t *comm);
/* Is rank 0 of comm to print at `level`? */
bool mca_coll_topo_should_say(struct ompi_communicator_t *comm, int level);
/* Has the "uses" line of (prim, algo) been printed (or can it not be)? */
bool mca_coll_topo_algorithm_said(mca_coll_topo_module_t *m, topo_prim_t prim,
                                  const topo_algo_t *algo);
/* Verbose lines, printed once per (primitive, algorithm) and per reason. */
void mca_coll_topo_say_algorithm(mca_coll_topo_module_t *m, struct ompi_communicator_t *comm,
                                 topo_prim_t prim, const topo_algo_t *algo, const char *why);
void mca_coll_topo_say_fallback(mca_coll_topo_module_t *m, struct ompi_communicator_t *comm,
                                topo_prim_t prim, const char *reason);
/* The cached schedule of (prim, algo, root) for this rank, or NULL. */
const topo_sched_t *mca_coll_topo_schedule(mca_coll_topo_module_t *m,
                                           struct ompi_communicator_t *comm,
                                           const topo_algo_t *algo, const topo_gen_args_t *args);
/* Forget the repeated-call memo of every slot (releases its objects). */
void mca_coll_topo_memo_clear(mca_coll_topo_module_t *m);
/* Forget the memo of one slot and free it (the next call allocates it). */
void mca_coll_topo_memo_clear_slot(mca_coll_topo_module_t *m, int slot);
/* Forget one memo entry (frees its plan). */
void mca_coll_topo_memo_forget(mca_coll_topo_module_t *m, mca_coll_topo_memo_t *memo);
/* The index in m->scheds of a schedule mca_coll_topo_schedule returned
 * (stable while the array may move). */
static inline int mca_coll_topo_sched_index(const mca_coll_topo_module_t *m,
                                            const topo_sched_t *s)
{
    const mca_coll_topo_sched_entry_t *e =
        (const mca_coll_topo_sched_entry_t *)((const char *)s -
                                              offsetof(mca_coll_topo_sched_entry_t, sched));
    return (int)(e - m->scheds);
}
/* Grow a buffer to at least `need` bytes; returns OMPI_SUCCESS or an error.
 * Inline where it has room (a plan's compilation asks at every operation it
 * adds: some 600 instructions of calls per compilation on 8 ranks). */
int mca_coll_topo_grow_to(void **buf, size_t *cap, size_t need);
/* The capacity a buffer of `cap` bytes grows to for `need` (> cap): cap
 * doubled (from 64) until it holds need. */
static inline size_t mca_coll_topo_grown_cap(size_t cap, size_t need)
{
    size_t n = cap > 0 ? cap : 64;
    while (n < need) {
        n = n > SIZE_MAX / 2 ? need : 2 * n;
    }
    return n;
}
static inline int mca_coll_topo_grow(void **buf, size_t *cap, size_t need)
{
    return OPAL_LIKELY(need <= *cap) ? OMPI_SUCCESS : mca_coll_topo_grow_to(buf, cap, need);
}

/* coll_topo_coords.c: the coordinates file (coll_topo_coords_file), read
 * once per process.  Returns true when this process's host has a line:
 * *shape is the file's grid, *position this host's row-major index in it.
 * Otherwise false, *shape is star if the file itself is unusable, and the
 * bad-coords-file message has been shown (once per process; errors of the
 * file itself by the job's first process only).  `shape_str` gets the
 * shape's canonical spelling ("" when the file is unusable). */
bool mca_coll_topo_coords(const char *file, topo_topology_t *shape, char *shape_str,
                          size_t shape_len, int *position);

/* coll_topo_pmix.c: the fabric coordinates PMIx publishes for this process
 * and the fabric's shape.  true with *shape the grid (a torus) and
 * *position this process's row-major index in it; else false with the
 * reason in why. */
bool mca_coll_topo_pmix_coords(topo_topology_t *shape, int *position, char *why, size_t len);

/* coll_topo_decide.c */
/* The protocol switch the prices use: coll_topo_eager_limit (or, auto, the
 * smallest eager limit of the PML's BTLs) and coll_topo_rndv_alpha; no
 * switch when transfers are segmented at or below the eager limit.
 * Resolved once per process. */
const topo_proto_t *mca_coll_topo_proto(void);
/* Free the module's decision tables; the process's (at component close). */
void mca_coll_topo_decisions_free(mca_coll_topo_module_t *m);
void mca_coll_topo_shared_decisions_free(void);
/* The cheapest algorithm of args->prim that fits, or NULL if none does.
 * `bytes` is the primitive's payload.  Every rank computes the same answer
 * (same inputs, same arithmetic).  The table is built at the first call of
 * each (primitive, root, commutativity); later calls cost a binary search.
 * *ch describes the answer. */
typedef struct {
    double predicted; /* seconds (set when verbose, else 0) */
    int msgs;         /* messages its busiest rank sends and receives, summed
                         over the steps (topo_price_t.msgs) */
    int steps;        /* its steps that move messages (topo_price_t.msg_steps):
                         one such step of 1 or 2 messages is one message per
                         rank, one way or an exchange */
    size_t lo, hi;    /* the payloads [lo, hi) of the same answer (hi
                         SIZE_MAX: no end) */
    bool autochosen;  /* the cost model chose (no forced algorithm, no rule):
                         coll_topo_autotune may time it */
} mca_coll_topo_choice_t;
const topo_algo_t *mca_coll_topo_decide(mca_coll_topo_module_t *m, struct ompi_communicator_t *comm,
                                        const topo_gen_args_t *args, int opclass, size_t bytes,
                                        mca_coll_topo_choice_t *ch);

/* coll_topo_call.c: what every primitive does around the executor.
 *
 * A call describes the work buffer the executor runs on, in the user's
 * datatype: `count` elements, or units (one per rank for allgather and
 * reduce_scatter, one per block group for alltoall).  COLL_TOPO_BEGIN picks
 * the algorithm and its schedule, lays the data out on its blocks and says
 * so in the verbose output, or hands the call to the previous module; the
 * primitive then says where its input comes from and where its output goes
 * (spans), and mca_coll_topo_execute does the rest. */
typedef struct {
    /* in (set by the primitive) */
    topo_prim_t prim;
    int root;                      /* rooted primitives; 0 otherwise */
    struct ompi_datatype_t *dtype; /* the work buffer's datatype; NULL: none */
    struct ompi_op_t *op;          /* NULL for primitives that do not reduce */
    size_t count;                  /* elements of dtype, when units are not used */
    const int *counts;             /* per-rank units (reduce_scatter), or NULL */
    size_t unit;                   /* every unit's elements when counts is NULL;
                                      0 = no units (one vector of count) */
    /* out (set by mca_coll_topo_begin) */
    mca_coll_topo_module_t *m;
    struct ompi_communicator_t *comm;
    const mca_coll_topo_fallback_t *prev; /* the previous module's function */
    const topo_algo_t *algo;
    const topo_sched_t *sched;
    struct ompi_datatype_t *edt; /* the executor's element type */
    size_t k;                    /* executor elements per dtype element */
    ptrdiff_t eext;              /* extent of edt */
    size_t n;                    /* executor elements in the work buffer */
    const size_t *units;         /* NULL or the module's units array */
    mca_coll_topo_plan_ref_t *plan; /* the memo's plan reference when the
                                       memo describes this call, or NULL */
    char *reason;                /* why the call falls back (the module's
                                    buffer, COLL_TOPO_REASON_LEN bytes) */
    bool timed;                  /* coll_topo_autotune times this call */
} mca_coll_topo_call_t;

/* The class of the call's operation (catalog.h): which algorithms may
 * combine it so that every rank gets the same bits.  Needs call->edt. */
topo_opclass_t mca_coll_topo_opclass(const mca_coll_topo_call_t *call);

/* A call's inputs.  The outputs are all set by mca_coll_topo_begin, so
 * nothing else is written here (a designated initializer would clear the
 * whole structure on every call). */
static inline void mca_coll_topo_call_init(mca_coll_topo_call_t *call, topo_prim_t prim, int root,
                                           struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                                           size_t count, const int *counts, size_t unit)
{
    call->prim = prim;
    call->root = root;
    call->dtype = dtype;
    call->op = op;
    call->count = count;
    call->counts = counts;
    call->unit = unit;
}

/* What mca_coll_topo_begin answers besides Open MPI codes (OMPI_SUCCESS:
 * nothing moves, the call is complete; negative: an error to return). */
enum {
    COLL_TOPO_RUN = 1,     /* run the schedule */
    COLL_TOPO_FALLBACK = 2 /* hand the call to the previous module */
};

/* Decide how to serve the call on `slot` (every rank reaches the same
 * answer: it depends only on the primitive, root, payload, operation and
 * unit counts).  Prints the "uses" line, or the "falls back" line with
 * call->reason. */
int mca_coll_topo_begin(mca_coll_topo_call_t *call, struct ompi_communicator_t *comm,
                        mca_coll_base_module_t *module, int slot);

/* The verbose reason of a call coll_topo_host_handoff hands over: its
 * primitive on a communicator of `size` ranks. */
void mca_coll_topo_host_handoff_reason(char *buf, size_t len, int size, topo_prim_t prim);

/* The bit length of n (0 for 0, else floor(log2 n) + 1): a payload's
 * class for coll_topo_autotune. */
static inline int mca_coll_topo_bit_length(size_t n)
{
    return 0 == n ? 0 : 64 - __builtin_clzll((unsigned long long)n);
}

/* Does a call of `bytes` on `slot` go to the previous module by
 * coll_topo_host_handoff (host_lim), coll_topo_handoff (a range an earlier
 * call found), or by a verdict of coll_topo_autotune (tune_mask)?  The same answer as
 * mca_coll_topo_begin would give, before any of its work. */
static inline bool mca_coll_topo_handing_off(const mca_coll_base_module_t *module, int slot,
                                             size_t bytes, int root, bool commutative)
{
    const mca_coll_topo_module_t *m = (const mca_coll_topo_module_t *)module;
    if (bytes < m->host_lim[slot]) {
        return true;
    }
    if (0 != m->tune_mask[slot]) {
        const int b = mca_coll_topo_bit_length(bytes);
        if (b < 64 && 0 != ((m->tune_mask[slot] >> b) & 1)) {
            return true;
        }
    }
    return bytes < m->handoff[slot].hi && bytes >= m->handoff[slot].lo &&
           root == m->handoff[slot].root && commutative == m->handoff[slot].commutative;
}

/* coll_topo_autotune.c.  The payload class of a call that `auto` decided
 * (bytes: its payload), or -1 when coll_topo_autotune does not time it
 * (off; `exact` and a reduction whose result depends on the order; no
 * previous barrier or allreduce; out of memory). */
int mca_coll_topo_tune_key(mca_coll_topo_module_t *m, const mca_coll_topo_call_t *call, int slot,
                           size_t bytes);
/* A call of a class still being timed, ready to run (begin's work done):
 * the previous module's barrier, then the clock starts; COLL_TOPO_RUN when
 * this call is coll/topo's turn, COLL_TOPO_FALLBACK when it is the previous
 * module's, or an error. */
int mca_coll_topo_tune_start(mca_coll_topo_call_t *call, int slot, int key);
/* The end of a timed call (either side), whose code is rc: the clock
 * stops; the class's last call decides (mca_coll_topo_tune_t.verdict, the
 * verbose line, the slot's memo cleared).  Returns rc. */
int mca_coll_topo_tune_end(mca_coll_topo_module_t *m, struct ompi_communicator_t *comm, int rc);
/* "payloads of 512-1023 bytes[, non-commutative]" */
void mca_coll_topo_tune_class(int key, char *s, size_t len);

/* Hand the call to the previous module when mca_coll_topo_handing_off says
 * so: the first statement of a primitive's entry. */
#define COLL_TOPO_HANDOFF(module, slot, bytes, root, commutative, name, ...)               \
    do {                                                                                   \
        if (mca_coll_topo_handing_off((module), (slot), (bytes), (root), (commutative))) { \
            const mca_coll_topo_fallback_t *coll_topo_prev_ =                              \
                &((mca_coll_topo_module_t *)(module))->prev[slot];                         \
            return coll_topo_prev_->fn.name(__VA_ARGS__, coll_topo_prev_->module);         \
        }                                                                                  \
    } while (0)

/* Start a call in a coll_topo_<primitive>.c entry point: return from it
 * with the previous module's `name` function applied to the arguments
 * (then the module) when the call falls back, or with begin's code when
 * nothing is to run. */
#define COLL_TOPO_BEGIN(call, comm, module, slot, name, ...)                                  \
    do {                                                                                      \
        const int coll_topo_rc_ = mca_coll_topo_begin((call), (comm), (module), (slot));      \
        if (COLL_TOPO_FALLBACK == coll_topo_rc_) {                                            \
            if (OPAL_LIKELY(!(call)->timed)) {                                                \
                return (call)->prev->fn.name(__VA_ARGS__, (call)->prev->module);              \
            }                                                                                 \
            return mca_coll_topo_tune_end(                                                    \
                (call)->m, (comm), (call)->prev->fn.name(__VA_ARGS__, (call)->prev->module)); \
        }                                                                                     \
        if (COLL_TOPO_RUN != coll_topo_rc_) {                                                 \
            return coll_topo_rc_;                                                             \
        }                                                                                     \
    } while (0)

/* A user buffer and where it sits in the work buffer: `count` elements of
 * `dtype` at `buf` are elements [at, at + n) of the call's dtype there. */
typedef struct {
    const void *buf;
    int count;
    struct ompi_datatype_t *dtype;
    size_t at, n;
} mca_coll_topo_span_t;

/* Run the chosen schedule: the work buffer is `user` itself when the
 * executor's elements lie in it one after the other (the user's datatype,
 * or a contiguous one of the executor's type), else the module's staging
 * buffer, and a `user` laid out otherwise is copied in (bcast's root,
 * allgather) and out when `out` is NULL.  `in` (if not NULL) is the input and `out` (if
 * not NULL) where the result goes.  When they hold the executor's own
 * elements, they serve as the executor's input and output windows (nothing
 * is copied as a whole); otherwise `in` is copied in first and the result
 * copied to `out` last.  A copy onto the same memory is skipped. */
int mca_coll_topo_execute(const mca_coll_topo_call_t *call, void *user,
                          const mca_coll_topo_span_t *in, const mca_coll_topo_span_t *out);

/* Are elements of `dt`, `ext` bytes apart, plain bytes (copied with
 * memcpy)? */
static inline bool mca_coll_topo_flat(const struct ompi_datatype_t *dt, ptrdiff_t ext)
{
    return ompi_datatype_is_predefined(dt) && (ptrdiff_t)dt->super.size == ext &&
           0 == dt->super.true_lb;
}

/* The executor (coll_topo_exec.h) at the end of a call. */
static inline void mca_coll_topo_trim(mca_coll_topo_module_t *m)
{
    if (OPAL_UNLIKELY(m->exec.scratch_over)) {
        mca_coll_topo_trim_to(m);
    }
}

/* coll_topo_<primitive>.c */
int mca_coll_topo_allreduce_intra(const void *sbuf, void *rbuf, int count,
                                  struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                                  struct ompi_communicator_t *comm, mca_coll_base_module_t *module);
int mca_coll_topo_bcast_intra(void *buf, int count, struct ompi_datatype_t *dtype, int root,
                              struct ompi_communicator_t *comm, mca_coll_base_module_t *module);
int mca_coll_topo_reduce_intra(const void *sbuf, void *rbuf, int count,
                               struct ompi_datatype_t *dtype, struct ompi_op_t *op, int root,
                               struct ompi_communicator_t *comm, mca_coll_base_module_t *module);
int mca_coll_topo_allgather_intra(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                                  void *rbuf, int rcount, struct ompi_datatype_t *rdtype,
                                  struct ompi_communicator_t *comm, mca_coll_base_module_t *module);
int mca_coll_topo_reduce_scatter_intra(const void *sbuf, void *rbuf, const int *rcounts,
                                       struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                                       struct ompi_communicator_t *comm,
                                       mca_coll_base_module_t *module);
int mca_coll_topo_reduce_scatter_block_intra(const void *sbuf, void *rbuf, int rcount,
                                             struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                                             struct ompi_communicator_t *comm,
                                             mca_coll_base_module_t *module);
int mca_coll_topo_alltoall_intra(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                                 void *rbuf, int rcount, struct ompi_datatype_t *rdtype,
                                 struct ompi_communicator_t *comm, mca_coll_base_module_t *module);
int mca_coll_topo_barrier_intra(struct ompi_communicator_t *comm, mca_coll_base_module_t *module);

END_C_DECLS

#endif /* MCA_COLL_TOPO_H */
