/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * coll/topo: topology-aware collectives for Open MPI 4.1.
 *
 * The component (coll_topo_component.c), the module's life
 * (coll_topo_module.c), where the ranks sit (coll_topo_place.c, with
 * coll_topo_coords.c, coll_topo_pmix.c and the agreement,
 * coll_topo_agree.c), a call's entry (coll_topo_<primitive>.c,
 * coll_topo_call.c), its route (coll_topo_route.c: an algorithm or the
 * previous module), the memo of repeated calls (coll_topo_memo.c), the
 * timing against the previous module (coll_topo_autotune.c), the verbose
 * output (coll_topo_say.c) and the executor (coll_topo_exec.h) that compiles
 * any schedule of the core into a plan (coll_topo_plan.c) and runs it
 * (coll_topo_run.c) over a transport (coll_topo_transport.h: the PML,
 * coll_topo_pml.c, or libfabric, coll_topo_ofi.c).  The algorithms themselves live
 * in core/ as schedule generators; nothing here knows any particular
 * algorithm.  "The previous module" is the module that served a function
 * slot before coll/topo: every call coll/topo does not serve goes there.
 */
#ifndef MCA_COLL_TOPO_H
#define MCA_COLL_TOPO_H

#include "ompi_config.h"

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
#include "route.h"
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
/* Below them, the nonblocking and persistent operations (coll_topo_nbc.c):
 * COLL_TOPO_NB_SEQS blocks of COLL_TOPO_MAX_LANES tags, the operation of
 * sequence number `seq` on its communicator (counted alike on every rank:
 * collectives start in the same order everywhere) taking block
 * seq % COLL_TOPO_NB_SEQS, its lane l the tag COLL_TOPO_TAG_NB(seq) - l.
 * Operations in flight at once never share a tag: one that would reuse
 * the block of one still in flight on this rank waits for it first.  The
 * lowest tag, COLL_TOPO_TAG_BASE - 2048 - 240 * 256 + 1, stays above
 * -INT_MAX. */
#define COLL_TOPO_NB_SEQS 240
#define COLL_TOPO_TAG_NB(seq)                 \
    (COLL_TOPO_TAG_BASE - 8 * COLL_TOPO_MAX_LANES - \
     (int)((seq) % COLL_TOPO_NB_SEQS) * COLL_TOPO_MAX_LANES)

/* Room for the reason a call goes to the previous module. */
#define COLL_TOPO_REASON_LEN 320

/* Verbose levels of coll_topo_verbose. */
enum {
    COLL_TOPO_VERBOSE_DECISIONS = 1, /* topology, algorithm, the previous module */
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
     * below, which everything else reads (coll_topo_params.c). */
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
    int price_share;                  /* communicators of at least this many ranks price
                                         their tables together (0: of more than
                                         price_ranks; -1: never; coll_topo_route.c) */
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
    int lane_sync;                    /* coll_topo_lane_sync (COLL_TOPO_LANE_SYNC_*) */
    int autotune;                     /* coll_topo_autotune (COLL_TOPO_AUTOTUNE_*) */
    int autotune_calls;               /* coll_topo_autotune_calls: timed calls per side */
    double autotune_margin;           /* coll_topo_autotune_margin */
    int transport;                    /* coll_topo_transport (COLL_TOPO_TRANSPORT_*) */
    char *ofi_provider;               /* coll_topo_ofi_provider ("" = libfabric's choice) */
    bool ofi_mr_cache;                /* coll_topo_ofi_mr_cache: keep registrations */
    bool ofi_register;                /* coll_topo_ofi_register: register every buffer */

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

/* coll_topo_handoff's and coll_topo_host_handoff's defaults (route.h) */
#define COLL_TOPO_HANDOFF_DEFAULT TOPO_ROUTE_TWO_RANKS_DEFAULT
#define COLL_TOPO_HOST_HANDOFF_DEFAULT TOPO_ROUTE_HOST_DEFAULT

/* coll_topo_autotune (coll_topo_autotune.c) */
enum {
    COLL_TOPO_AUTOTUNE_OFF = 0,
    COLL_TOPO_AUTOTUNE_EXACT = 1, /* calls whose result no algorithm changes */
    COLL_TOPO_AUTOTUNE_ALL = 2
};
#define COLL_TOPO_AUTOTUNE_CALLS 8
#define COLL_TOPO_AUTOTUNE_CALLS_MAX 1000

/* coll_topo_lane_sync (coll_topo_run.c) */
enum {
    COLL_TOPO_LANE_SYNC_OFF = 0,
    COLL_TOPO_LANE_SYNC_MIRROR = 1, /* lanes that mirror each other */
    COLL_TOPO_LANE_SYNC_ALL = 2
};

/* coll_topo_scratch_keep's default: 4 MiB per buffer */
#define COLL_TOPO_SCRATCH_KEEP ((size_t)4 << 20)

/* coll_topo_locality */
enum {
    COLL_TOPO_LOCALITY_OFF = 0,
    COLL_TOPO_LOCALITY_AUTO = 1,  /* unless a host is oversubscribed */
    COLL_TOPO_LOCALITY_ALWAYS = 2 /* even then */
};

OMPI_DECLSPEC extern mca_coll_topo_component_t mca_coll_topo_component;

/* coll_topo_params.c: the MCA parameters as one table.  Register every
 * one with its default (the component's register hook); parse and check
 * them (at open: a bad value gets its default, reported later). */
int mca_coll_topo_params_register(void);
void mca_coll_topo_params_open(void);

/* Show the help messages about bad MCA values found at open (once per
 * process, first process of the job only). */
void mca_coll_topo_report_params(void);

/* The size-range rules of `prim` (coll_topo_<prim>_rules), parsed at the
 * first use; NULL when there are none or the value is malformed (then the
 * bad-rules message is shown once, by the job's first process). */
const topo_rules_t *mca_coll_topo_rules(topo_prim_t prim);

/* A 64-bit hash of every parameter value the decisions depend on (the
 * rows of coll_topo_params.c flagged `agree`, each by its effective value:
 * the algorithms, the rules, the cost model, segment_size, the topology
 * and coordinates file parameters, the handoff set): the same on every
 * rank of a job that was given the same values. */
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
#define COLL_TOPO_OWN_MAX_N 10
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

/* The module that served a slot before us: "the previous module", where
 * every call coll/topo does not serve goes (a `previous` rule, a forced
 * algorithm that does not fit, coll_topo_host_handoff, coll_topo_handoff,
 * a verdict of coll_topo_autotune, a call no algorithm fits, ranks that
 * disagree). */
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
                                       coll_topo_handoff gives it one */
} mca_coll_topo_previous_t;

/* The previous module's nonblocking function of a slot (iallreduce, ...)
 * and its persistent one (allreduce_init, ...): where the calls of those
 * forms that coll/topo does not serve go (the same routes as the
 * blocking form's).  NULL where the previous modules have none. */
typedef struct {
    union {
        mca_coll_base_module_iallreduce_fn_t iallreduce;
        mca_coll_base_module_ireduce_scatter_fn_t ireduce_scatter;
        mca_coll_base_module_ireduce_scatter_block_fn_t ireduce_scatter_block;
        mca_coll_base_module_iallgather_fn_t iallgather;
        mca_coll_base_module_ibcast_fn_t ibcast;
        mca_coll_base_module_ireduce_fn_t ireduce;
        mca_coll_base_module_ialltoall_fn_t ialltoall;
        mca_coll_base_module_ibarrier_fn_t ibarrier;
        mca_coll_base_module_allreduce_init_fn_t allreduce_init;
        mca_coll_base_module_reduce_scatter_init_fn_t reduce_scatter_init;
        mca_coll_base_module_reduce_scatter_block_init_fn_t reduce_scatter_block_init;
        mca_coll_base_module_allgather_init_fn_t allgather_init;
        mca_coll_base_module_bcast_init_fn_t bcast_init;
        mca_coll_base_module_reduce_init_fn_t reduce_init;
        mca_coll_base_module_alltoall_init_fn_t alltoall_init;
        mca_coll_base_module_barrier_init_fn_t barrier_init;
        void (*any)(void);
    } fn;
    mca_coll_base_module_t *module; /* retained */
} mca_coll_topo_previous_nb_t;

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
                                 (coll_topo_route.c: two stages) */
    bool shared;              /* owned by the process's cache (coll_topo_route.c),
                                 not by the module */
    int together;             /* the ranks that priced it together, each its share
                                 (coll_topo_price_share); 0: this process alone */
} mca_coll_topo_decision_t;

#include "coll_topo_memo.h"


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

/* ------------------------------------------------------------------ */
/* Routes (coll_topo_route.c)                                         */

/* A route of the previous module: the calls of a payload in [lo, hi),
 * from `root` (-1: any) with an operation of this commutativity (-1:
 * either) go to the previous module, because of `by`; `algo`: the
 * algorithm `auto` had chosen for them (for the verbose reason), or NULL. */
typedef struct {
    size_t lo, hi;
    int root;
    signed char commutative;
    unsigned char by; /* topo_route_by_t (route.h) */
    const topo_algo_t *algo;
} mca_coll_topo_route_t;

/* The routes of a slot that hold by the payload alone (every rank writes
 * the same, in the same calls), read once by the entry before any other
 * work (COLL_TOPO_ROUTE).  The routes that depend on the call's datatype
 * or layout are found by mca_coll_topo_route at a call's first time and
 * kept in the memo.  A full table takes no more: those calls are then
 * routed through the memo, to the same place. */
#define COLL_TOPO_ROUTES 16
typedef struct {
    int n;
    mca_coll_topo_route_t r[COLL_TOPO_ROUTES];
} mca_coll_topo_routes_t;

/* The route of the calls of `bytes` from `root` with an operation of this
 * commutativity, or NULL: coll/topo decides them. */
static inline const mca_coll_topo_route_t *
mca_coll_topo_routes_find(const mca_coll_topo_routes_t *t, size_t bytes, int root, bool commutative)
{
    for (int i = 0; i < t->n; i++) {
        const mca_coll_topo_route_t *r = &t->r[i];
        if (bytes < r->hi && bytes >= r->lo && (r->root < 0 || r->root == root) &&
            (r->commutative < 0 || r->commutative == (signed char)commutative)) {
            return r;
        }
    }
    return NULL;
}

/* Add route r to the table: merged with a route of the same source, root
 * and commutativity that it touches, else appended while there is room. */
static inline void mca_coll_topo_routes_put(mca_coll_topo_routes_t *t,
                                            const mca_coll_topo_route_t *r)
{
    for (int i = 0; i < t->n; i++) {
        mca_coll_topo_route_t *q = &t->r[i];
        if (q->by == r->by && q->root == r->root && q->commutative == r->commutative &&
            q->algo == r->algo && r->lo <= q->hi && q->lo <= r->hi) {
            q->lo = r->lo < q->lo ? r->lo : q->lo;
            q->hi = r->hi > q->hi ? r->hi : q->hi;
            return;
        }
    }
    if (t->n < COLL_TOPO_ROUTES) {
        t->r[t->n++] = *r;
    }
}

/* ------------------------------------------------------------------ */
/* Module                                                             */

/* Where the communicator's ranks sit (coll_topo_place.c), resolved at its
 * first collective call (Cartesian information is attached only after
 * coll selection). */
typedef struct {
    bool ready;
    bool preparing;        /* inside mca_coll_topo_comm_prepare: nested
                              calls go to the previous module quietly */
    bool disagree;         /* the ranks' decision inputs differ (coll_topo_*
                              values): every call of this communicator goes
                              to the previous module */
    topo_topology_t topo;
    int *place, nplace;    /* topo.place (owned): the grid position (star:
                              the host) of each rank, NULL when the
                              communicator is the whole grid in order (star:
                              every rank a host of its own) */
    char name[1088];       /* canonical spelling (graph:FILE: its path) */
    char source[512];      /* where it came from */
} mca_coll_topo_placement_t;

/* The network tier of the cost model on this communicator, settled at its
 * first call (coll_topo_place.c): coll_topo_alpha and coll_topo_beta as
 * set, or, on a communicator that spans several hosts where they are not
 * set, what the BTLs between hosts publish (mca_coll_topo_btl_costs),
 * agreed by the ranks; the protocol switch with the rendezvous cost of
 * that alpha. */
typedef struct {
    double alpha, beta;
    topo_proto_t proto;
    /* the largest message of the plans (coll_topo_segment_size; where it
     * is not set on any rank and the ranks span several hosts, the
     * network BTLs' eager payload when smaller): 0 = never split */
    size_t segment;
    char source[320]; /* where alpha and beta came from, for the verbose line */
} mca_coll_topo_model_t;

/* The decision tables of `auto` on this communicator (coll_topo_route.c). */
typedef struct {
    mca_coll_topo_decision_t *d;
    int n, cap;
    int last[TOPO_PRIM_COUNT]; /* the last one used: index + 1, 0 = none */
    /* topo_prim_root_free on this communicator, asked at the first call of
     * a nonzero root: 0 not yet, 1 no, 2 yes (the topology is settled) */
    unsigned char root_free[TOPO_PRIM_COUNT];
} mca_coll_topo_tables_t;

/* What the verbose output has said on this communicator (coll_topo_say.c):
 * which (primitive, catalog row) lines were printed, the payload buckets of
 * level 2, the reasons for the previous module already reported. */
typedef struct {
    unsigned char *algo;             /* [TOPO_PRIM_COUNT * catalog size] */
    uint64_t bucket[TOPO_PRIM_COUNT];
    char **reasons;
    int nreasons, cap_reasons;
    char comm[96];                   /* "NAME (cid N)" for the report at
                                        free (level 2), or empty: none */
} mca_coll_topo_said_t;

/* coll_topo_autotune (coll_topo_autotune.c): per slot, COLL_TOPO_TUNE_KEYS
 * classes (allocated at the slot's first timed call; NULL: none), and the
 * call being timed: slot + 1 (0: none), its class, side (0 coll/topo, 1
 * the previous module) and start. */
typedef struct {
    mca_coll_topo_tune_t *cls[COLL_TOPO_NSLOTS];
    int slot, key, side;
    double t0;
} mca_coll_topo_autotune_t;

typedef struct mca_coll_topo_module_t {
    mca_coll_base_module_t super;

    bool enabled;
    mca_coll_topo_previous_t prev[COLL_TOPO_NSLOTS]; /* by slot */
    mca_coll_topo_previous_nb_t iprev[COLL_TOPO_NSLOTS]; /* nonblocking, by slot */
    mca_coll_topo_previous_nb_t pprev[COLL_TOPO_NSLOTS]; /* persistent, by slot */
    mca_coll_topo_placement_t placement;
    mca_coll_topo_model_t model;
    mca_coll_topo_routes_t routes[COLL_TOPO_NSLOTS]; /* by slot */
    char reason[COLL_TOPO_REASON_LEN]; /* why the current call goes to the
                                          previous module */
    mca_coll_topo_tables_t tables;
    mca_coll_topo_memo_t memo;                   /* coll_topo_memo.c */
    size_t memo_plan_bytes;                      /* held by the memo entries' plans */
    mca_coll_topo_autotune_t tune;
    mca_coll_topo_said_t said;

    /* Schedules */
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
    mca_coll_topo_exec_t exec; /* the executor's plans, scratch and transport */

    /* Nonblocking and persistent operations (coll_topo_nbc.c): the
     * sequence number of the next one started, and the one in flight of
     * each tag block (NULL: none). */
    unsigned nb_seq;
    struct mca_coll_topo_nb_t *nb_inflight[COLL_TOPO_NB_SEQS];

    /* Unit sizes of the current call, in executor elements. */
    size_t *units;
    size_t cap_units; /* bytes */

} mca_coll_topo_module_t;

OBJ_CLASS_DECLARATION(mca_coll_topo_module_t);

/* coll_topo_module.c: the module's life */
int mca_coll_topo_init_query(bool enable_progress_threads, bool enable_mpi_threads);
mca_coll_base_module_t *mca_coll_topo_comm_query(struct ompi_communicator_t *comm, int *priority);
/* The cached schedule of (prim, algo, root) for this rank, or NULL. */
const topo_sched_t *mca_coll_topo_schedule(mca_coll_topo_module_t *m, const topo_algo_t *algo,
                                           const topo_gen_args_t *args);
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
/* Grow a buffer to at least `need` bytes; returns OMPI_SUCCESS or an error.
 * Out of line (mca_coll_topo_grow, inline, asks first: a plan's
 * compilation asks at every operation it adds, some 600 instructions of
 * calls per compilation on 8 ranks), in each file that grows one. */
static __attribute__((unused, noinline)) int mca_coll_topo_grow_to(void **buf, size_t *cap,
                                                                   size_t need)
{
    if (need <= *cap) {
        return OMPI_SUCCESS;
    }
    const size_t n = mca_coll_topo_grown_cap(*cap, need);
    void *p = realloc(*buf, n);
    if (NULL == p) {
        return OMPI_ERR_OUT_OF_RESOURCE;
    }
    *buf = p;
    *cap = n;
    return OMPI_SUCCESS;
}
static inline int mca_coll_topo_grow(void **buf, size_t *cap, size_t need)
{
    return OPAL_LIKELY(need <= *cap) ? OMPI_SUCCESS : mca_coll_topo_grow_to(buf, cap, need);
}

/* coll_topo_place.c: resolve the communicator's topology, agree on the
 * decision inputs, place the ranks, write the routes that hold for the
 * communicator (mca_coll_topo_routes_prepare) and print the topology's
 * verbose line; called at the start of every collective (cheap after the
 * first call). */
void mca_coll_topo_comm_prepare(mca_coll_topo_module_t *m, struct ompi_communicator_t *comm);

/* coll_topo_say.c: the verbose output. */
/* The communicator's name for verbose lines. */
const char *mca_coll_topo_comm_name(struct ompi_communicator_t *comm);
/* Is rank 0 of comm to print at `level`? */
bool mca_coll_topo_should_say(struct ompi_communicator_t *comm, int level);
/* The MPI name of a function slot ("reduce_scatter_block"). */
const char *mca_coll_topo_slot_name(int slot);
/* Has the "uses" line of (prim, algo) been printed (or can it not be)? */
bool mca_coll_topo_algorithm_said(mca_coll_topo_module_t *m, topo_prim_t prim,
                                  const topo_algo_t *algo);
/* Verbose lines, printed once per (primitive, algorithm) and per reason. */
void mca_coll_topo_say_algorithm(mca_coll_topo_module_t *m, struct ompi_communicator_t *comm,
                                 topo_prim_t prim, const topo_algo_t *algo, const char *why);
void mca_coll_topo_say_previous(mca_coll_topo_module_t *m, struct ompi_communicator_t *comm,
                                topo_prim_t prim, const char *reason);
/* Once per (primitive, algorithm) and form: "iallreduce runs ring from the
 * progress engine" (mode COLL_TOPO_NONBLOCKING or COLL_TOPO_PERSISTENT). */
void mca_coll_topo_say_form(mca_coll_topo_module_t *m, struct ompi_communicator_t *comm,
                            topo_prim_t prim, const topo_algo_t *algo, int mode);
/* Level 2: a decision table, and its candidates' prices for a payload
 * (once per power-of-two bucket); a candidate not in the table. */
void mca_coll_topo_say_table(struct ompi_communicator_t *comm, const mca_coll_topo_decision_t *d,
                             const topo_proto_t *proto);
void mca_coll_topo_say_candidates(mca_coll_topo_module_t *m, struct ompi_communicator_t *comm,
                                  const mca_coll_topo_decision_t *d, size_t bytes);
void mca_coll_topo_say_excluded(struct ompi_communicator_t *comm, topo_prim_t prim,
                                const char *name, const char *why);
/* Level 2, when the communicator is freed: how its calls went. */
void mca_coll_topo_say_calls(const mca_coll_topo_module_t *m);
/* Free what the module said (said.algo, said.reasons). */
void mca_coll_topo_said_free(mca_coll_topo_module_t *m);

/* coll_topo_memo.c (types in coll_topo_memo.h) */
/* The memo entry for a call that just got its route (algo NULL: the
 * previous module, else its schedule, layout and units in the call): in
 * the call's set, an empty entry or the next in turn.  NULL when out of
 * memory (nothing is kept). */
struct mca_coll_topo_call_t;
mca_coll_topo_memo_entry_t *mca_coll_topo_memo_keep(mca_coll_topo_module_t *m, int slot,
                                                    const struct mca_coll_topo_call_t *call);
/* Forget the memo of one slot and free it (the next call allocates it). */
void mca_coll_topo_memo_clear_slot(mca_coll_topo_module_t *m, int slot);
/* Forget the memo of every slot (releases its objects). */
void mca_coll_topo_memo_clear(mca_coll_topo_module_t *m);

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

/* coll_topo_call.c: what every primitive does around the executor.
 *
 * A call describes the work buffer the executor runs on, in the user's
 * datatype: `count` elements, or units (one per rank for allgather and
 * reduce_scatter, one per block group for alltoall).  COLL_TOPO_BEGIN finds
 * the call's route (the memo, else mca_coll_topo_route), the algorithm's
 * schedule, lays the data out on its blocks and says so in the verbose
 * output, or gives the call to the previous module; the primitive then
 * says where its input comes from and where its output goes (spans), and
 * mca_coll_topo_execute does the rest. */
typedef struct mca_coll_topo_call_t {
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
    const mca_coll_topo_previous_t *prev; /* the previous module's function */
    const topo_algo_t *algo;
    const topo_sched_t *sched;
    struct ompi_datatype_t *edt; /* the executor's element type */
    size_t k;                    /* executor elements per dtype element */
    ptrdiff_t eext;              /* extent of edt */
    size_t n;                    /* executor elements in the work buffer */
    const size_t *units;         /* NULL or the module's units array */
    mca_coll_topo_plan_ref_t *plan; /* the memo's plan reference when the
                                       memo describes this call, or NULL */
    char *reason;                /* why the call goes to the previous module
                                    (the module's buffer, COLL_TOPO_REASON_LEN
                                    bytes) */
    bool timed;                  /* coll_topo_autotune times this call */
    unsigned char mode;          /* in: COLL_TOPO_BLOCKING, _NONBLOCKING or
                                    _PERSISTENT (never timed) */
} mca_coll_topo_call_t;

/* The forms of a call (mca_coll_topo_call_t.mode). */
enum { COLL_TOPO_BLOCKING = 0, COLL_TOPO_NONBLOCKING = 1, COLL_TOPO_PERSISTENT = 2 };

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
    call->mode = COLL_TOPO_BLOCKING;
}

/* What mca_coll_topo_begin answers besides Open MPI codes (OMPI_SUCCESS:
 * nothing moves, the call is complete; negative: an error to return). */
enum {
    COLL_TOPO_RUN = 1,     /* run the schedule */
    COLL_TOPO_PREVIOUS = 2 /* give the call to the previous module */
};

/* Find how to serve the call on `slot` (every rank reaches the same
 * answer: it depends only on the primitive, root, payload, operation and
 * unit counts).  Prints the "uses" line, or the "goes to the previous
 * module" line with call->reason. */
int mca_coll_topo_begin(mca_coll_topo_call_t *call, struct ompi_communicator_t *comm,
                        mca_coll_base_module_t *module, int slot);

/* coll_topo_route.c: the route of a call, in one order of precedence
 * (mca_coll_topo_by_t), and the decision tables of `auto`. */
/* The protocol switch the prices use: coll_topo_eager_limit (or, auto, the
 * smallest eager limit of the PML's BTLs) and coll_topo_rndv_alpha; no
 * switch when transfers are segmented at or below the eager limit.
 * Resolved once per process. */
const topo_proto_t *mca_coll_topo_proto(void);
/* What this process's BTLs to other hosts publish (the modules ob1 would
 * use for a peer on another host: not self, not the shared-memory ones,
 * those of the highest exclusivity), as cost-model values
 * (topo_btl_costs); *names gets "btl_tcp_bandwidth 10000 Mbit/s"-style
 * text per value in the order alpha, beta.  Resolved once per process. */
const topo_btl_costs_t *mca_coll_topo_btl_costs(const char **alpha_text, const char **beta_text);
/* Settle m->model for a communicator (see mca_coll_topo_model_t):
 * `several_hosts` and the agreed BTL values (seconds, bytes; <= 0: none);
 * auto_segment: no rank set coll_topo_segment_size. */
void mca_coll_topo_model_set(mca_coll_topo_module_t *m, bool several_hosts, double btl_alpha,
                             double btl_beta, double btl_eager, bool auto_segment);
/* Was coll_topo_NAME given a value (command line, environment, file)? */
bool mca_coll_topo_param_set(const char *name);
/* Free the module's decision tables; the process's (at component close). */
void mca_coll_topo_tables_free(mca_coll_topo_module_t *m);
void mca_coll_topo_shared_tables_free(void);
/* Write the routes that hold for the whole communicator, at its first
 * call (coll_topo_host_handoff when its ranks share one host), and say
 * them (the calls they take never reach the decision). */
void mca_coll_topo_routes_prepare(mca_coll_topo_module_t *m, struct ompi_communicator_t *comm,
                                  bool one_host);
/* The route of a call the memo does not hold, of `bytes` and operation
 * class `opclass`: the algorithm, or NULL (the previous module) with the
 * reason in call->reason when verbose or when no algorithm fits (`why`:
 * the reason of the algorithm's "uses" line, when it is to be said).
 * *by: the source; *tune_key: the payload class coll_topo_autotune times,
 * or -1. */
const topo_algo_t *mca_coll_topo_route(mca_coll_topo_module_t *m, struct ompi_communicator_t *comm,
                                       mca_coll_topo_call_t *call, int slot,
                                       const topo_gen_args_t *args, int opclass, size_t bytes,
                                       char *why, size_t len, int *tune_key);

/* The bit length of n (0 for 0, else floor(log2 n) + 1): a payload's
 * class for coll_topo_autotune. */
static inline int mca_coll_topo_bit_length(size_t n)
{
    return 0 == n ? 0 : 64 - __builtin_clzll((unsigned long long)n);
}

/* coll_topo_autotune.c.  The payload class of a call that `auto` decided
 * (bytes: its payload), or -1 when coll_topo_autotune does not time it
 * (off; `exact` and a reduction whose result depends on the order; no
 * previous barrier or allreduce; out of memory). */
int mca_coll_topo_tune_key(mca_coll_topo_module_t *m, const mca_coll_topo_call_t *call, int slot,
                           int opclass, size_t bytes);
/* A call of a class still being timed, ready to run (begin's work done):
 * the previous module's barrier, then the clock starts; COLL_TOPO_RUN when
 * this call is coll/topo's turn, COLL_TOPO_PREVIOUS when it is the previous
 * module's, or an error. */
int mca_coll_topo_tune_start(mca_coll_topo_call_t *call, int slot, int key);
/* The end of a timed call (either side), whose code is rc: the clock
 * stops; the class's last call decides (mca_coll_topo_tune_t.verdict, the
 * verbose line, the slot's routes and memo).  Returns rc. */
int mca_coll_topo_tune_end(mca_coll_topo_module_t *m, struct ompi_communicator_t *comm, int rc);
/* "payloads of 512-1023 bytes[, non-commutative]" */
void mca_coll_topo_tune_class(int key, char *s, size_t len);

/* The first statement of a primitive's entry: a call of `bytes` from
 * `root` that the slot's routes give the previous module goes there, with
 * the previous module's `name` function applied to the arguments (then its
 * module), before any other work. */
#define COLL_TOPO_ROUTE(module, slot, bytes, root, commutative, name, ...)                    \
    do {                                                                                      \
        mca_coll_topo_module_t *coll_topo_m_ = (mca_coll_topo_module_t *)(module);            \
        if (OPAL_UNLIKELY(0 != coll_topo_m_->routes[slot].n) &&                               \
            NULL != mca_coll_topo_routes_find(&coll_topo_m_->routes[slot], (bytes), (root),   \
                                              (commutative))) {                               \
            const mca_coll_topo_previous_t *coll_topo_prev_ = &coll_topo_m_->prev[slot];      \
            return coll_topo_prev_->fn.name(__VA_ARGS__, coll_topo_prev_->module);            \
        }                                                                                     \
    } while (0)

/* COLL_TOPO_ROUTE for the nonblocking (table iprev) and persistent (pprev)
 * forms: the same routes, the previous module's function of that form. */
#define COLL_TOPO_ROUTE_FORM(module, table, slot, bytes, root, commutative, name, ...)          \
    do {                                                                                      \
        mca_coll_topo_module_t *coll_topo_m_ = (mca_coll_topo_module_t *)(module);            \
        if (OPAL_UNLIKELY(0 != coll_topo_m_->routes[slot].n) &&                               \
            NULL != mca_coll_topo_routes_find(&coll_topo_m_->routes[slot], (bytes), (root),   \
                                              (commutative))) {                               \
            return mca_coll_topo_previous_form(&coll_topo_m_->table[slot])                     \
                       ? coll_topo_m_->table[slot].fn.name(__VA_ARGS__,                        \
                                                           coll_topo_m_->table[slot].module)  \
                       : OMPI_ERR_NOT_SUPPORTED;                                              \
        }                                                                                     \
    } while (0)

/* COLL_TOPO_BEGIN for those forms: the call goes to the previous module's
 * function of its form, or starts coll/topo's request in *request (also
 * when nothing moves: a request complete at once). */
#define COLL_TOPO_BEGIN_FORM(call, comm, module, table, slot, request, name, ...)               \
    do {                                                                                      \
        const int coll_topo_rc_ = mca_coll_topo_begin((call), (comm), (module), (slot));      \
        mca_coll_topo_module_t *coll_topo_m_ = (mca_coll_topo_module_t *)(module);            \
        if (COLL_TOPO_PREVIOUS == coll_topo_rc_) {                                            \
            return mca_coll_topo_previous_form(&coll_topo_m_->table[slot])                     \
                       ? coll_topo_m_->table[slot].fn.name(__VA_ARGS__,                        \
                                                           coll_topo_m_->table[slot].module)  \
                       : OMPI_ERR_NOT_SUPPORTED;                                              \
        }                                                                                     \
        if (OMPI_SUCCESS == coll_topo_rc_) {                                                  \
            return mca_coll_topo_istart((call), NULL, NULL, NULL, (request));                 \
        }                                                                                     \
        if (COLL_TOPO_RUN != coll_topo_rc_) {                                                 \
            return coll_topo_rc_;                                                             \
        }                                                                                     \
    } while (0)

/* Start a call in a coll_topo_<primitive>.c entry point: return from it
 * with the previous module's `name` function applied to the arguments
 * (then the module) when the call goes there, or with begin's code when
 * nothing is to run. */
#define COLL_TOPO_BEGIN(call, comm, module, slot, name, ...)                                  \
    do {                                                                                      \
        const int coll_topo_rc_ = mca_coll_topo_begin((call), (comm), (module), (slot));      \
        if (COLL_TOPO_PREVIOUS == coll_topo_rc_) {                                            \
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

/* coll_topo_nbc.c: the nonblocking and persistent forms.  The call as
 * mca_coll_topo_execute's (call->mode says which form; call->sched NULL:
 * nothing moves), made into a request of coll/topo in *request: a
 * nonblocking one starts now, a persistent one at each MPI_Start.  The
 * plan is the call's, copied: the decision, schedule and plan are made
 * here, once. */
int mca_coll_topo_istart(const mca_coll_topo_call_t *call, void *user,
                         const mca_coll_topo_span_t *in, const mca_coll_topo_span_t *out,
                         ompi_request_t **request);
/* Does the previous modules' function of this form exist? */
static inline bool mca_coll_topo_previous_form(const mca_coll_topo_previous_nb_t *f)
{
    return NULL != f->fn.any;
}
/* Save the previous module's functions of the nonblocking and persistent
 * forms of every slot (module enable); release them (destructor). */
void mca_coll_topo_save_previous_forms(mca_coll_topo_module_t *m,
                                       struct ompi_communicator_t *comm);
void mca_coll_topo_drop_previous_forms(mca_coll_topo_module_t *m);
/* The operations still in flight at finalize (component close): their
 * progress callback goes. */
void mca_coll_topo_nb_finalize(void);

/* Where a call's input and output are: the work buffer (bufs->work: the
 * user's buffer, or NULL: a staging buffer), the windows, and the spans
 * copied in before the run and out after it (NULL: none).  Shared by
 * every form. */
void mca_coll_topo_place_data(const mca_coll_topo_call_t *call, void *user,
                              const mca_coll_topo_span_t *in, const mca_coll_topo_span_t *out,
                              mca_coll_topo_bufs_t *bufs, const mca_coll_topo_span_t **copy_in,
                              const mca_coll_topo_span_t **copy_out,
                              mca_coll_topo_span_t *whole);
/* Between a span and the work buffer, either way (in: into the work
 * buffer). */
int mca_coll_topo_copy_span(const mca_coll_topo_call_t *call, char *work,
                            const mca_coll_topo_span_t *sp, bool in);

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
/* their nonblocking forms */
int mca_coll_topo_iallreduce_intra(const void *sbuf, void *rbuf, int count,
                                   struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                                   struct ompi_communicator_t *comm, ompi_request_t **request,
                                   mca_coll_base_module_t *module);
int mca_coll_topo_ibcast_intra(void *buf, int count, struct ompi_datatype_t *dtype, int root,
                               struct ompi_communicator_t *comm, ompi_request_t **request,
                               mca_coll_base_module_t *module);
int mca_coll_topo_ireduce_intra(const void *sbuf, void *rbuf, int count,
                                struct ompi_datatype_t *dtype, struct ompi_op_t *op, int root,
                                struct ompi_communicator_t *comm, ompi_request_t **request,
                                mca_coll_base_module_t *module);
int mca_coll_topo_iallgather_intra(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                                   void *rbuf, int rcount, struct ompi_datatype_t *rdtype,
                                   struct ompi_communicator_t *comm, ompi_request_t **request,
                                   mca_coll_base_module_t *module);
int mca_coll_topo_ireduce_scatter_intra(const void *sbuf, void *rbuf, const int *rcounts,
                                        struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                                        struct ompi_communicator_t *comm,
                                        ompi_request_t **request, mca_coll_base_module_t *module);
int mca_coll_topo_ireduce_scatter_block_intra(const void *sbuf, void *rbuf, int rcount,
                                              struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                                              struct ompi_communicator_t *comm,
                                              ompi_request_t **request,
                                              mca_coll_base_module_t *module);
int mca_coll_topo_ialltoall_intra(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                                  void *rbuf, int rcount, struct ompi_datatype_t *rdtype,
                                  struct ompi_communicator_t *comm, ompi_request_t **request,
                                  mca_coll_base_module_t *module);
int mca_coll_topo_ibarrier_intra(struct ompi_communicator_t *comm, ompi_request_t **request,
                                 mca_coll_base_module_t *module);
/* and their persistent forms */
int mca_coll_topo_allreduce_init(const void *sbuf, void *rbuf, int count,
                                 struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                                 struct ompi_communicator_t *comm, struct ompi_info_t *info,
                                 ompi_request_t **request, mca_coll_base_module_t *module);
int mca_coll_topo_bcast_init(void *buf, int count, struct ompi_datatype_t *dtype, int root,
                             struct ompi_communicator_t *comm, struct ompi_info_t *info,
                             ompi_request_t **request, mca_coll_base_module_t *module);
int mca_coll_topo_reduce_init(const void *sbuf, void *rbuf, int count,
                              struct ompi_datatype_t *dtype, struct ompi_op_t *op, int root,
                              struct ompi_communicator_t *comm, struct ompi_info_t *info,
                              ompi_request_t **request, mca_coll_base_module_t *module);
int mca_coll_topo_allgather_init(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                                 void *rbuf, int rcount, struct ompi_datatype_t *rdtype,
                                 struct ompi_communicator_t *comm, struct ompi_info_t *info,
                                 ompi_request_t **request, mca_coll_base_module_t *module);
int mca_coll_topo_reduce_scatter_init(const void *sbuf, void *rbuf, const int *rcounts,
                                      struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                                      struct ompi_communicator_t *comm, struct ompi_info_t *info,
                                      ompi_request_t **request, mca_coll_base_module_t *module);
int mca_coll_topo_reduce_scatter_block_init(const void *sbuf, void *rbuf, int rcount,
                                            struct ompi_datatype_t *dtype, struct ompi_op_t *op,
                                            struct ompi_communicator_t *comm,
                                            struct ompi_info_t *info, ompi_request_t **request,
                                            mca_coll_base_module_t *module);
int mca_coll_topo_alltoall_init(const void *sbuf, int scount, struct ompi_datatype_t *sdtype,
                                void *rbuf, int rcount, struct ompi_datatype_t *rdtype,
                                struct ompi_communicator_t *comm, struct ompi_info_t *info,
                                ompi_request_t **request, mca_coll_base_module_t *module);
int mca_coll_topo_barrier_init(struct ompi_communicator_t *comm, struct ompi_info_t *info,
                               ompi_request_t **request, mca_coll_base_module_t *module);

END_C_DECLS

#endif /* MCA_COLL_TOPO_H */
