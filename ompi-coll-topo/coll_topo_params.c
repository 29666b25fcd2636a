/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * coll/topo's MCA parameters as data: one table, one row per parameter
 * {name, type, level, default, range, help, storage, in the agreement
 * hash}.  One loop registers every row (mca_coll_topo_params_register),
 * the numeric rows' ranges are checked at open by core/params.c
 * (topo_params_check), and the agreement hash reads the rows flagged
 * `agree` (mca_coll_topo_params_hash).  Also here: the parsing of the
 * textual parameters at open (topology, algorithms, handoffs), the lazy
 * parsing of the rules, and the report of bad values at the first call.
 *
 * The cost model's seconds (PARAM_SECONDS) are registered as strings:
 * ompi_info prints an MCA double with six decimals (1e-10 as 0.000000), so
 * neither the default nor an override could be read there.  Their text is
 * parsed with strtod, as Open MPI parses a double, so the values an MCA
 * file or --mca gave before still mean the same; text that is not a number
 * is reported like a value out of range.  The help texts of the rows with
 * a range end with the range and the default, printed from the row, so
 * neither can drift from what is checked.
 */
#include "ompi_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi.h"
#include "opal/mca/base/mca_base_var.h"
#include "opal/mca/base/mca_base_var_enum.h"

#include "coll_topo.h"
#include "coll_topo_ofi.h"

typedef enum {
    PARAM_INT,     /* int */
    PARAM_LONG,    /* long */
    PARAM_SIZE,    /* size_t, bytes */
    PARAM_BOOL,    /* bool */
    PARAM_DOUBLE,  /* double, an MCA double */
    PARAM_SECONDS, /* char * (an MCA string), parsed into the double *value */
    PARAM_STRING,  /* char * */
    PARAM_ENUM     /* int, an MCA int with enumerators */
} param_type_t;

typedef struct param_t param_t;
/* Continues the agreement hash with the effective value of a row (of its
 * primitive `prim` for a per-primitive row, else -1). */
typedef uint64_t (*param_agree_fn)(uint64_t h, const param_t *p, int prim);

struct param_t {
    const char *name; /* after "coll_topo_" (per primitive: after "coll_topo_<prim>_") */
    param_type_t type;
    mca_base_var_info_lvl_t level;
    void *var;            /* the registered storage in mca_coll_topo_component (per
                             primitive: an array of TOPO_PRIM_COUNT) */
    double *value;        /* PARAM_SECONDS: the parsed number */
    double def;           /* default of the numeric, boolean and enumerated types */
    const char *def_text; /* PARAM_STRING's default */
    const mca_base_var_enum_value_t *values; /* PARAM_ENUM's enumerators */
    bool ranged;                             /* lo, hi, lo_open hold (core/params.h) */
    double lo, hi;
    bool lo_open;
    const char *help;
    char *(*help_of)(topo_prim_t prim); /* per primitive: the help text (malloc'ed) */
    bool per_byte;                      /* PARAM_SECONDS per byte: help gives GB/s too */
    bool per_prim;                      /* one parameter per served primitive */
    bool agree;                         /* in the agreement hash */
    param_agree_fn agree_value;         /* NULL: the stored value is hashed */
};

#define COMP mca_coll_topo_component
#define RANGE(l, h) .ranged = true, .lo = (l), .hi = (h)
#define SECONDS(field) \
    .type = PARAM_SECONDS, .level = OPAL_INFO_LVL_6, .var = &COMP.field##_text, .value = &COMP.field
#define TOPO_BYTES_MAX 1099511627776.0 /* 2^40: 1 TiB */

static char *algorithm_help(topo_prim_t prim);
static char *rules_help(topo_prim_t prim);
static uint64_t agree_topology(uint64_t h, const param_t *p, int prim);
static uint64_t agree_algorithm(uint64_t h, const param_t *p, int prim);
static uint64_t agree_nonneg(uint64_t h, const param_t *p, int prim);
static uint64_t agree_eager(uint64_t h, const param_t *p, int prim);
static uint64_t agree_rndv(uint64_t h, const param_t *p, int prim);
static uint64_t agree_handoff(uint64_t h, const param_t *p, int prim);
static uint64_t agree_host_handoff(uint64_t h, const param_t *p, int prim);
static uint64_t agree_provider(uint64_t h, const param_t *p, int prim);

/* clang-format off */
static const mca_base_var_enum_value_t locality_values[] = {
    {COLL_TOPO_LOCALITY_OFF, "off"},
    {COLL_TOPO_LOCALITY_AUTO, "auto"},
    {COLL_TOPO_LOCALITY_ALWAYS, "always"},
    {0, NULL}};
static const mca_base_var_enum_value_t autotune_values[] = {
    {COLL_TOPO_AUTOTUNE_OFF, "off"},
    {COLL_TOPO_AUTOTUNE_EXACT, "exact"},
    {COLL_TOPO_AUTOTUNE_ALL, "all"},
    {0, NULL}};
static const mca_base_var_enum_value_t lane_sync_values[] = {
    {COLL_TOPO_LANE_SYNC_OFF, "off"},
    {COLL_TOPO_LANE_SYNC_MIRROR, "mirror"},
    {COLL_TOPO_LANE_SYNC_ALL, "all"},
    {0, NULL}};
static const mca_base_var_enum_value_t transport_values[] = {
    {COLL_TOPO_TRANSPORT_PML, "pml"},
    {COLL_TOPO_TRANSPORT_OFI, "ofi"},
    {COLL_TOPO_TRANSPORT_AUTO, "auto"},
    {0, NULL}};
/* clang-format on */

/* In registration order, which is the order ompi_info lists them in.
 * Consecutive per-primitive rows register primitive by primitive
 * (allreduce's algorithm and rules, then reduce_scatter's, ...). */
/* clang-format off */
static const param_t params[] = {
    {.name = "priority", .type = PARAM_INT, .level = OPAL_INFO_LVL_6, .var = &COMP.priority,
     .def = 40, RANGE(INT_MIN, 1000), /* negative: never selected */
     .help = "Priority of the coll/topo component; the highest-priority module serves each "
             "collective it provides (tuned is 30, so the default 40 takes over allreduce, "
             "reduce_scatter(_block), allgather, bcast, reduce, alltoall and barrier); "
             "negative = coll/topo is never selected"},
    {.name = "verbose", .type = PARAM_INT, .level = OPAL_INFO_LVL_4, .var = &COMP.verbose,
     .def = 0, RANGE(0, 100),
     .help = "Explain decisions on stderr (rank 0 of each communicator, lines start with "
             "'coll:topo: '): 0 = silent, 1 = the topology of each communicator, the algorithm "
             "each primitive uses and why, and every call that goes to the previous module; "
             "2 = also every candidate of the automatic decision with its predicted time, and "
             "when the communicator is freed, per primitive its calls and how many the memo of "
             "repeated calls held; above 2 = 2"},
    {.name = "topology", .type = PARAM_STRING, .level = OPAL_INFO_LVL_4, .var = &COMP.topology,
     .def_text = "auto", .agree = true, .agree_value = agree_topology,
     .help = "The network the ranks sit on: auto | star | fullmesh | torus:AxBxC | mesh:AxB | "
             "graph:FILE (an edge list: one directed link 'u v [bandwidth]' per line), "
             "optionally ,ports=N (dimensions row-major, the last varies fastest).  A grid with "
             "as many positions as the communicator has ranks is used as is; a grid the size of "
             "MPI_COMM_WORLD places any communicator by its MPI_COMM_WORLD ranks; otherwise star "
             "is used for it.  auto = a Cartesian communicator's grid, else "
             "coll_topo_coords_file, else PMIx fabric coordinates, else star"},
    {.name = "algorithm", .type = PARAM_STRING, .level = OPAL_INFO_LVL_5, .var = COMP.algorithm,
     .def_text = "auto", .per_prim = true, .help = "Algorithm", .help_of = algorithm_help,
     .agree = true, .agree_value = agree_algorithm},
    {.name = "rules", .type = PARAM_STRING, .level = OPAL_INFO_LVL_5, .var = COMP.rules,
     .def_text = "", .per_prim = true, .help = "Size-range rules", .help_of = rules_help,
     .agree = true},
    {.name = "segment_size", .type = PARAM_SIZE, .level = OPAL_INFO_LVL_5,
     .var = &COMP.segment_size, .def = 1048576, RANGE(0, TOPO_BYTES_MAX), .agree = true,
     .help = "Largest message in bytes: a transfer of a schedule bigger than this is sent as "
             "several messages of at most this size (0 = never split).  Where no rank sets it "
             "and a communicator's ranks span several hosts, the eager payload of the BTLs "
             "between hosts when smaller (btl_<name>_eager_limit less 64 bytes of headers: "
             "65472 with TCP's default), so that no message between hosts waits for a "
             "rendezvous (the cost model's verbose line says so); linear alltoall's, whose "
             "rendezvous overlap, at this value"},
    {.name = "scratch_keep", .type = PARAM_SIZE, .level = OPAL_INFO_LVL_5,
     .var = &COMP.scratch_keep, .def = (double)COLL_TOPO_SCRATCH_KEEP, RANGE(0, TOPO_BYTES_MAX),
     .help = "Bytes of scratch memory a communicator keeps between calls, per buffer (its "
             "staging buffer and each lane's temporary storage): a call that needs more "
             "allocates it and gives it back at its end, as coll/tuned does with its temporary "
             "buffers, so that a large call leaves at most this much behind (the default, 4 "
             "MiB: a call whose scratch fits allocates nothing)"},
    {.name = "alpha", SECONDS(alpha), .def = TOPO_COST_ALPHA, RANGE(0, 1), .agree = true,
     .help = "Cost model of the automatic decision: latency of one message, in seconds.  "
             "Not set, on a communicator whose ranks span several hosts: the largest "
             "btl_<name>_latency (microseconds) of the BTLs between hosts (not self, vader, "
             "sm; the largest over the ranks), e.g. 100 us for tcp, whose latency Open MPI does "
             "not measure; coll_topo_verbose=1 says where the value came from"},
    {.name = "beta", SECONDS(beta), .def = TOPO_COST_BETA, RANGE(0, 1e-3), .per_byte = true,
     .agree = true,
     .help = "Cost model of the automatic decision: transfer time per byte on one port, in "
             "seconds.  Not set, on a communicator whose ranks span several hosts: 8 / "
             "(bandwidth * 1e6) from the smallest btl_<name>_bandwidth (Mbit/s) of the BTLs "
             "between hosts (the largest such beta over the ranks): tcp publishes its "
             "interface's speed, or 100 Mbit/s where the interface does not report one (veth, "
             "loopback, most virtual interfaces: set btl_tcp_bandwidth to the link's rate, or "
             "run topo-calibrate); coll_topo_verbose=1 says where the value came from"},
    {.name = "gamma", SECONDS(gamma), .def = TOPO_COST_GAMMA, RANGE(0, 1e-3), .per_byte = true,
     .agree = true,
     .help = "Cost model of the automatic decision: time to reduce one byte (of data from "
             "memory), in seconds"},
    {.name = "copy", SECONDS(copy), .def = TOPO_COST_COPY, RANGE(0, 1e-3), .per_byte = true,
     .agree = true,
     .help = "Cost model of the automatic decision: time to copy one byte locally, in seconds: "
             "the copies the executor makes besides the messages (a rank's own block, sends of "
             "several block ranges packed, receives of several ranges unpacked); 0 = copies are "
             "free, as in the papers' closed-form costs"},
    {.name = "msg_overhead", SECONDS(msg_overhead), .def = TOPO_COST_MSG_OVERHEAD, RANGE(0, 1),
     .agree = true,
     .help = "Cost model of the automatic decision: a rank's time per message it sends or "
             "receives, in seconds (posting, matching and completing it, LogP's o, paid at both "
             "ends, beyond the step's latency coll_topo_alpha): a step in which a rank sends and "
             "receives S messages costs S of them; 0 = none, as in the papers' closed-form costs; "
             "topo-calibrate measures it"},
    {.name = "hop", SECONDS(hop), .def = 0.0, RANGE(0, 1), .agree = true,
     .help = "Cost model of the automatic decision: seconds per link a message crosses beyond "
             "the first, on torus and mesh topologies"},
    {.name = "ports", .type = PARAM_INT, .level = OPAL_INFO_LVL_6, .var = &COMP.ports, .def = 0,
     RANGE(0, TOPO_MAX_PORTS),
     .help = "Cost model of the automatic decision: network ports per rank, the messages a "
             "rank sends (and receives) at once at full speed.  0 (default) = the topology's: 2 "
             "per torus dimension, 1 per direction on a mesh, 1 on a star, p-1 on a full mesh; "
             "a topology string's ,ports=N wins over this"},
    {.name = "price_ranks", .type = PARAM_INT, .level = OPAL_INFO_LVL_6, .var = &COMP.price_ranks,
     .def = 256, RANGE(-1, INT_MAX), .agree = true, .agree_value = agree_nonneg,
     .help = "Cost model of the automatic decision: on a communicator of more ranks than this, "
             "an algorithm whose schedules grow as p^2 (ring, pairwise, the bandwidth-optimal "
             "Swing and Trivance) is priced on this many of its ranks, not every rank, with its "
             "busiest link estimated or routed from them; where the ranks price alone "
             "(coll_topo_price_share), the first call of at most 4096 bytes prices only the "
             "candidates that can win there: a first call on thousands of ranks takes seconds, "
             "not minutes.  0 or -1 = every rank, every link routed, one stage"},
    {.name = "prune", .type = PARAM_BOOL, .level = OPAL_INFO_LVL_6, .var = &COMP.prune, .def = 1,
     .help = "Cost model of the automatic decision: do not price a candidate whose lower bound "
             "(rank 0's schedule alone) is above the candidates already priced at every "
             "payload: it cannot be in the decision table, which is the same either way; only "
             "the first call's time changes (on 16384 ranks, seconds).  coll_topo_verbose=2 "
             "lists it as pruned, without a price.  0 = price every candidate"},
    {.name = "price_share", .type = PARAM_INT, .level = OPAL_INFO_LVL_6, .var = &COMP.price_share,
     .def = 0, RANGE(-1, INT_MAX), .agree = true,
     .help = "Automatic decision: on a communicator of at least this many ranks, the ranks "
             "price each decision table together at its first blocking call: each prices its "
             "share of the candidates (the heaviest a rank each), the prices go round by the "
             "previous module's allreduce, and every rank builds the table a single process "
             "builds, in one stage; a nonblocking or persistent first call prices alone.  0 "
             "(default) = on a communicator of more ranks than coll_topo_price_ranks (where it "
             "is positive); -1 = never"},
    {.name = "price_roots", .type = PARAM_INT, .level = OPAL_INFO_LVL_6, .var = &COMP.price_roots,
     .def = 16, RANGE(-1, INT_MAX), .agree = true, .agree_value = agree_nonneg,
     .help = "Automatic decision of bcast and reduce where their algorithms cost differently "
             "from different roots: a communicator builds a decision table for at most this "
             "many roots, spread evenly over its ranks, and a call from another root takes the "
             "nearest one's table (its schedule, and its result, are still its own).  0 or -1 = "
             "every root its own table"},
    {.name = "intra_alpha", SECONDS(intra_alpha), .def = TOPO_COST_INTRA_ALPHA, RANGE(-1, 1),
     .agree = true,
     .help = "Cost model of the automatic decision: latency of one message between ranks placed "
             "on one node (shared memory), in seconds (0 or less = coll_topo_alpha's value); "
             "used where the placement is known (a coordinates file or PMIx with several ranks "
             "per host, or a star's hosts: coll_topo_locality).  A step whose messages all stay "
             "on nodes costs this latency, one with messages on both classes the larger of the "
             "two"},
    {.name = "intra_beta", SECONDS(intra_beta), .def = TOPO_COST_INTRA_BETA, RANGE(-1, 1e-3),
     .per_byte = true, .agree = true,
     .help = "Cost model of the automatic decision: transfer time per byte between ranks placed "
             "on one node, in seconds (0 or less = coll_topo_beta's value).  A rank's "
             "shared-memory bytes and its network ports work in parallel"},
    {.name = "intra_beta_written", SECONDS(intra_beta_written),
     .def = TOPO_COST_INTRA_BETA_WRITTEN, RANGE(-1, 1e-3), .per_byte = true, .agree = true,
     .help = "Cost model of the automatic decision: transfer time per byte between ranks placed "
             "on one node of data the sender wrote earlier in the same call (received or "
             "reduced it), in seconds (0 or less = coll_topo_intra_beta's value).  The receiver "
             "then pulls cache lines the sender's core has modified, which costs more than data "
             "that was in memory before the call"},
    {.name = "pmix", .type = PARAM_BOOL, .level = OPAL_INFO_LVL_4, .var = &COMP.pmix, .def = 1,
     .agree = true,
     .help = "Read the fabric coordinates a resource manager publishes through PMIx 4 "
             "(PMIX_FABRIC_COORDINATES of each process, PMIX_FABRIC_SHAPE_STRING or "
             "PMIX_FABRIC_SHAPE of the job; the grid is taken as a torus) when "
             "coll_topo_topology is auto, the communicator is not Cartesian and no "
             "coll_topo_coords_file is set.  Local lookups only: nothing is asked of the PMIx "
             "server"},
    {.name = "locality", .type = PARAM_ENUM, .level = OPAL_INFO_LVL_5, .var = &COMP.locality,
     .def = COLL_TOPO_LOCALITY_AUTO, .values = locality_values, .agree = true,
     .help = "On a star topology, tell the ranks that share a host (the same host name) from "
             "the others and price messages between them with coll_topo_intra_alpha and "
             "coll_topo_intra_beta (one allgather of 8 bytes per rank at a communicator's first "
             "collective when its ranks span several hosts).  off (0): every rank a host of its "
             "own; auto (1, default): unless a host runs more ranks than it has processors "
             "(oversubscribed); always (2): even then"},
    {.name = "eager_limit", .type = PARAM_LONG, .level = OPAL_INFO_LVL_6, .var = &COMP.eager_limit,
     .def = -1, RANGE(-1, TOPO_BYTES_MAX), .agree = true, .agree_value = agree_eager,
     .help = "Cost model of the automatic decision: point-to-point messages larger than this "
             "many bytes go by rendezvous, which costs coll_topo_rndv_alpha more per step of "
             "the schedule whose largest message does.  -1 (default) = the smallest eager limit "
             "of the BTLs the ob1 PML uses (btl_<name>_eager_limit, e.g. 4096 for vader) less "
             "64 bytes of headers, none with other PMLs; 0 = no protocol switch in the model"},
    {.name = "rndv_alpha", SECONDS(rndv_alpha), .def = -1.0, RANGE(-1, 1), .agree = true,
     .agree_value = agree_rndv,
     .help = "Cost model of the automatic decision: seconds a step pays when its largest "
             "message exceeds coll_topo_eager_limit (the rendezvous handshake).  -1 (default) = "
             "2 * coll_topo_alpha (one more round trip), or coll_topo_intra_alpha for a step "
             "whose messages all stay on nodes (single copy: the receiver pulls the data when "
             "the first fragment arrives, only the sender waits for one more message); 0 = no "
             "protocol switch"},
    {.name = "autotune", .type = PARAM_ENUM, .level = OPAL_INFO_LVL_5, .var = &COMP.autotune,
     .def = COLL_TOPO_AUTOTUNE_EXACT, .values = autotune_values, .agree = true,
     .help = "Time the automatic decision against the previous module (e.g. coll/tuned) on the "
             "first calls of each payload class (a power of two of bytes) of each communicator, "
             "and keep the faster, the same on every rank (README: Timing against the previous "
             "module); a forced algorithm or a rule is not timed.  off (0): the cost model "
             "alone; exact (1, default): calls whose result no algorithm changes (bcast, "
             "allgather, alltoall, barrier, integer reductions, MAX, MIN, logical and bitwise "
             "operations, MAXLOC, MINLOC); all (2): floating-point sums, products and "
             "user-defined operations too (their rounding then depends on the timing)"},
    {.name = "autotune_calls", .type = PARAM_INT, .level = OPAL_INFO_LVL_6,
     .var = &COMP.autotune_calls, .def = COLL_TOPO_AUTOTUNE_CALLS,
     RANGE(1, COLL_TOPO_AUTOTUNE_CALLS_MAX), .agree = true,
     .help = "coll_topo_autotune: calls of a payload class before the timing starts, and timed "
             "calls of each side after one of each to warm up (each side's slowest call is left "
             "out of its mean)"},
    {.name = "autotune_margin", .type = PARAM_DOUBLE, .level = OPAL_INFO_LVL_6,
     .var = &COMP.autotune_margin, .def = 0.0, RANGE(-1, 1e6), .lo_open = true, .agree = true,
     .help = "coll_topo_autotune: the previous module takes a payload class when coll/topo's "
             "time exceeds (1 + this margin) times the previous module's: 0 (default) = the "
             "faster wins; 0.05 = coll/topo keeps calls it is up to 5% slower on; -0.05 = it "
             "keeps only those it is more than 5% faster on"},
    {.name = "handoff", .type = PARAM_STRING, .level = OPAL_INFO_LVL_5, .var = &COMP.handoff,
     .def_text = COLL_TOPO_HANDOFF_DEFAULT, .agree = true, .agree_value = agree_handoff,
     .help = "Primitives whose calls of one message coll/topo hands to the previous module: on "
             "2 ranks, a payload of at most the eager limit (coll_topo_eager_limit) whose "
             "automatic plan is one step of one message per rank (an exchange goes only to "
             "coll/tuned).  A comma-separated list of allreduce, reduce_scatter, allgather, "
             "bcast, reduce, alltoall, barrier, or none (default " COLL_TOPO_HANDOFF_DEFAULT
             "); a forced algorithm or a rule keeps the call in coll/topo.  A malformed value "
             "is reported and the default used"},
    {.name = "host_handoff", .type = PARAM_STRING, .level = OPAL_INFO_LVL_5,
     .var = &COMP.host_handoff, .def_text = COLL_TOPO_HOST_HANDOFF_DEFAULT, .agree = true,
     .agree_value = agree_host_handoff,
     .help = "On a communicator whose ranks coll_topo_locality places on one host, the calls of "
             "a primitive whose payload is below the given bytes go to the previous module: "
             "comma-separated PRIMITIVE:BYTES items (sizes as in the rules, e.g. 4k), or none "
             "(default " COLL_TOPO_HOST_HANDOFF_DEFAULT ": coll/tuned was as fast there on 16 "
             "ranks of a 16-core node; README: One host).  A forced algorithm, or rules for the "
             "communicator's size, keep the calls in coll/topo.  A malformed value is reported "
             "and the default used"},
    {.name = "coords_file", .type = PARAM_STRING, .level = OPAL_INFO_LVL_4,
     .var = &COMP.coords_file, .def_text = "", .agree = true,
     .help = "A file of network coordinates, used when coll_topo_topology is auto and the "
             "communicator is not Cartesian: first line the machine's shape (e.g. "
             "torus:4x4x2), then one line per host: 'hostname x y z ...' ('#' starts a "
             "comment).  A communicator whose ranks occupy every position once, in rank order "
             "(row-major), gets that grid; any other placement is priced as star.  Empty "
             "(default) = none"},
    {.name = "coords_host", .type = PARAM_STRING, .level = OPAL_INFO_LVL_9,
     .var = &COMP.coords_host, .def_text = "",
     .help = "The host name of this process for coll/topo: looked up in coll_topo_coords_file, "
             "and compared by coll_topo_locality (default empty: the node's name).  For tests "
             "that place ranks on a grid, or on several hosts, within one machine"},
    {.name = "lane_sync", .type = PARAM_ENUM, .level = OPAL_INFO_LVL_5, .var = &COMP.lane_sync,
     .def = COLL_TOPO_LANE_SYNC_MIRROR, .values = lane_sync_values,
     .help = "How the lanes of a schedule (its concurrent pipelines, e.g. swing_bw's one per "
             "dimension and direction) advance in a call.  mirror (1, default): where a "
             "rank's lanes mirror each other (as many steps, and at each step as many messages "
             "and about as many bytes), no lane starts its next step before every lane has "
             "finished the one before, as the cost model pairs their steps; other lanes run "
             "on their own.  all (2): every schedule's lanes so.  off (0): every lane on its "
             "own, waiting only for its own messages.  Only the speed changes: every "
             "schedule's messages are matched step by step in their lane, so no setting can "
             "deadlock"},
    {.name = "check_plans", .type = PARAM_BOOL, .level = OPAL_INFO_LVL_9,
     .var = &COMP.check_plans, .def = 0,
     .help = "Debugging: every executor plan derived from another count's plan of the same "
             "schedule (one-block schedules: binomial trees, recursive doubling; a call whose "
             "count the memo of repeated calls does not hold) is compiled as well and compared; "
             "a difference is reported (coll:topo: coll_topo_check_plans: ...) and the call "
             "returns an error.  Slow; for tests (default false)"},
    /* the transport (coll_topo_ofi.c): the ranks of a communicator agree on
     * it and its provider; registering or caching registrations is each
     * rank's own business (no message, tag or plan depends on it) */
    {.name = "transport", .type = PARAM_ENUM, .level = OPAL_INFO_LVL_4, .var = &COMP.transport,
     .def = COLL_TOPO_TRANSPORT_PML, .values = transport_values, .agree = true,
     .help = "What carries the messages of coll/topo's schedules: pml (default: Open MPI's "
             "point-to-point layer, whatever BTL or MTL it uses), ofi (libfabric's tagged messages "
             "on a reliable-datagram endpoint of coll_topo_ofi_provider; a communicator some rank "
             "cannot reach that way uses the PML, with a message), or auto (ofi where one provider "
             "with the needed capabilities serves every rank of the communicator, else pml, "
             "silently).  The ranks of a communicator always agree on one.  ofi and auto need a "
             "component built with libfabric"},
    {.name = "ofi_provider", .type = PARAM_STRING, .level = OPAL_INFO_LVL_4,
     .var = &COMP.ofi_provider, .def_text = "", .agree = true, .agree_value = agree_provider,
     .help = "The libfabric provider of coll_topo_transport=ofi or auto, as libfabric names it "
             "(e.g. shm, tcp;ofi_rxm, verbs;ofi_rxm, cxi, efa; fi_info -l lists them).  It must "
             "offer reliable-datagram endpoints (FI_EP_RDM) with tagged messages (FI_TAGGED, "
             "FI_MSG) and send-after-send ordering (FI_ORDER_SAS).  Empty (default) = the first "
             "such provider libfabric offers"},
    {.name = "ofi_mr_cache", .type = PARAM_BOOL, .level = OPAL_INFO_LVL_6,
     .var = &COMP.ofi_mr_cache, .def = 0,
     .help = "With a provider that needs local memory registered (FI_MR_LOCAL): register and "
             "release a call's buffers at every call (false, default: the provider's own "
             "registration cache, where it has one, sees memory unmapped), or keep the "
             "registrations of a communicator's buffers between calls (true; released when the "
             "communicator is freed: only for an application that never frees a buffer it gave "
             "a collective, as a buffer allocated at a freed one's address would meet the old "
             "registration on providers that pin pages)"},
    {.name = "ofi_register", .type = PARAM_BOOL, .level = OPAL_INFO_LVL_9,
     .var = &COMP.ofi_register, .def = 0,
     .help = "Debugging: register every message buffer with the provider even where it does not "
             "need it (FI_MR_LOCAL), to test the registration path (default false)"},
};
/* clang-format on */
#define NPARAMS ((int)(sizeof(params) / sizeof(params[0])))

/* The rows with a range as core/params.c checks them, in table order
 * (built from params[]: the range is stated there only). */
static topo_param_t ranges[NPARAMS];
static char range_names[NPARAMS][48];
static int nranges;
static int range_of[NPARAMS]; /* index into ranges[], -1 without a range */

static void build_ranges(void)
{
    nranges = 0;
    for (int i = 0; i < NPARAMS; i++) {
        const param_t *p = &params[i];
        range_of[i] = -1;
        if (!p->ranged) {
            continue;
        }
        topo_param_t *r = &ranges[nranges];
        snprintf(range_names[nranges], sizeof(range_names[0]), "coll_topo_%s", p->name);
        *r = (topo_param_t){.name = range_names[nranges],
                            .var = p->var,
                            .lo = p->lo,
                            .hi = p->hi,
                            .lo_open = p->lo_open,
                            .def = p->def};
        switch (p->type) {
        case PARAM_LONG:
            r->type = TOPO_PARAM_LONG;
            break;
        case PARAM_SIZE:
            r->type = TOPO_PARAM_SIZE;
            break;
        case PARAM_SECONDS:
            r->type = TOPO_PARAM_DOUBLE;
            r->var = p->value;
            r->text = (char **)p->var;
            break;
        case PARAM_DOUBLE:
            r->type = TOPO_PARAM_DOUBLE;
            break;
        default:
            r->type = TOPO_PARAM_INT;
            break;
        }
        range_of[i] = nranges++;
    }
}

/* "ring, recursive_doubling, rabenseifner" for `prim`, from the catalog.
 * Returns a malloc'ed string (never NULL unless out of memory). */
static char *valid_names(topo_prim_t prim)
{
    int n;
    const topo_algo_t *cat = topo_catalog(&n);
    size_t len = 1;
    for (int i = 0; i < n; i++) {
        if (cat[i].prim == prim) {
            len += strlen(cat[i].name) + 2;
        }
    }
    char *s = malloc(len);
    if (NULL == s) {
        return NULL;
    }
    s[0] = '\0';
    for (int i = 0; i < n; i++) {
        if (cat[i].prim == prim) {
            if ('\0' != s[0]) {
                strcat(s, ", ");
            }
            strcat(s, cat[i].name);
        }
    }
    return s;
}

static char *algorithm_help(topo_prim_t prim)
{
    char *names = valid_names(prim), *help = NULL;
    if (0 > asprintf(&help,
                     "Algorithm of %s: auto (the cheapest under the cost model "
                     "coll_topo_alpha/beta/gamma among those that fit the call) or one of: %s.  "
                     "A forced algorithm that does not fit a call (for example one needing a "
                     "commutative operation) hands that call to the previous module.  One "
                     "parameter for every form: the nonblocking (i%s) and persistent (%s_init) "
                     "calls take the same decision, run from the progress engine",
                     topo_prim_name(prim),
                     NULL == names      ? "?"
                     : '\0' != names[0] ? names
                                        : "(none yet: every call goes to the previous module)",
                     topo_prim_name(prim), topo_prim_name(prim))) {
        help = NULL;
    }
    free(names);
    return help;
}

static char *rules_help(topo_prim_t prim)
{
    char *help = NULL;
    if (0 > asprintf(&help,
                     "Size-range rules of %s: LO-HI:ALGORITHM,... (e.g. 0-4k:A,4k-inf:B): a "
                     "payload of [LO, HI) bytes uses ALGORITHM, or the previous module where it "
                     "is 'previous' (sizes with an optional k, m or g; HI may be inf; ranges "
                     "increasing).  Groups by communicator size, separated by ';', may start "
                     "with NP@ (N, N-M or N-inf ranks; e.g. 16@0-4k:A;0-inf:B): a communicator "
                     "takes the first group that holds its size.  At most %d ranges and %d "
                     "groups.  Sizes no rule covers use auto; a forced coll_topo_%s_algorithm "
                     "wins.  Empty (default) = no rules; a malformed value is reported and "
                     "ignored",
                     topo_prim_name(prim), TOPO_MAX_RULES, TOPO_MAX_RULE_GROUPS,
                     topo_prim_name(prim))) {
        help = NULL;
    }
    return help;
}

/* `help` with the range and default of the row's range appended (and
 * `note` after the default), malloc'ed; NULL if out of memory. */
static char *range_help(const topo_param_t *r, const char *help, const char *note)
{
    char range[TOPO_PARAM_TEXT_LEN], def[TOPO_PARAM_TEXT_LEN];
    topo_param_range(r, range, sizeof(range));
    topo_param_format_default(r, def, sizeof(def));
    char *text = NULL;
    if (0 > asprintf(&text,
                     "%s.  Range: %s (outside it: reported, and the default used).  "
                     "Default: %s%s",
                     help, range, def, note)) {
        text = NULL;
    }
    return text;
}

/* The storage of row p (of primitive prim for a per-primitive row). */
static void *storage(const param_t *p, int prim)
{
    if (!p->per_prim) {
        return p->var;
    }
    /* per-primitive rows are strings (char *[TOPO_PRIM_COUNT]) */
    return (char **)p->var + prim;
}

/* Sets row i's default and registers it (for primitive prim, or -1). */
static void register_row(const mca_base_component_t *c, int i, int prim)
{
    /* a PARAM_SECONDS default's text: the MCA system copies a string's
     * default, but they live on anyway (registering again rewrites them) */
    static char defaults[NPARAMS][TOPO_PARAM_TEXT_LEN];
    const param_t *p = &params[i];
    void *var = storage(p, prim);
    mca_base_var_type_t type = MCA_BASE_VAR_TYPE_STRING;
    mca_base_var_enum_t *e = NULL;
    char name[64], note[48] = "", *help = NULL;

    if (p->per_prim) {
        snprintf(name, sizeof(name), "%s_%s", topo_prim_name((topo_prim_t)prim), p->name);
    } else {
        snprintf(name, sizeof(name), "%s", p->name);
    }
    switch (p->type) {
    case PARAM_INT:
        type = MCA_BASE_VAR_TYPE_INT;
        *(int *)var = (int)p->def;
        break;
    case PARAM_LONG:
        type = MCA_BASE_VAR_TYPE_LONG;
        *(long *)var = (long)p->def;
        break;
    case PARAM_SIZE:
        type = MCA_BASE_VAR_TYPE_SIZE_T;
        *(size_t *)var = (size_t)p->def;
        break;
    case PARAM_BOOL:
        type = MCA_BASE_VAR_TYPE_BOOL;
        *(bool *)var = 0 != p->def;
        break;
    case PARAM_DOUBLE:
        type = MCA_BASE_VAR_TYPE_DOUBLE;
        *(double *)var = p->def;
        break;
    case PARAM_SECONDS:
        topo_param_format_double(p->def, defaults[i], TOPO_PARAM_TEXT_LEN);
        if (p->per_byte && p->def > 0) {
            (void)snprintf(note, sizeof(note), " (%.3g GB/s)", 1e-9 / p->def);
        }
        *p->value = p->def;
        *(char **)var = defaults[i];
        break;
    case PARAM_STRING:
        *(char **)var = (char *)p->def_text;
        break;
    case PARAM_ENUM: {
        char full[sizeof("coll_topo_") + sizeof(name)];
        snprintf(full, sizeof(full), "coll_topo_%s", name);
        (void)mca_base_var_enum_create(full, p->values, &e);
        type = MCA_BASE_VAR_TYPE_INT;
        *(int *)var = (int)p->def;
        break;
    }
    }
    if (NULL != p->help_of) {
        help = p->help_of((topo_prim_t)prim);
    } else if (range_of[i] >= 0) {
        help = range_help(&ranges[range_of[i]], p->help, note);
    }
    (void)mca_base_component_var_register(c, name, NULL != help ? help : p->help, type, e, 0, 0,
                                          p->level, MCA_BASE_VAR_SCOPE_READONLY, var);
    free(help);
    if (NULL != e) {
        OBJ_RELEASE(e);
    }
}

/* Calls fn for every (row, primitive) in registration order: a run of
 * consecutive per-primitive rows primitive by primitive. */
static void for_each_param(void (*fn)(int i, int prim, void *arg), void *arg)
{
    for (int i = 0; i < NPARAMS;) {
        if (!params[i].per_prim) {
            fn(i, -1, arg);
            i++;
            continue;
        }
        int end = i;
        while (end < NPARAMS && params[end].per_prim) {
            end++;
        }
        for (int s = 0; s < mca_coll_topo_nserved; s++) {
            for (int j = i; j < end; j++) {
                fn(j, (int)mca_coll_topo_served[s].prim, arg);
            }
        }
        i = end;
    }
}

static void register_one(int i, int prim, void *arg)
{
    register_row((const mca_base_component_t *)arg, i, prim);
}

int mca_coll_topo_params_register(void)
{
    build_ranges();
    for_each_param(register_one, &mca_coll_topo_component.super.collm_version);
    return OMPI_SUCCESS;
}

/* ---- agreement hash ---------------------------------------------------- */

uint64_t mca_coll_topo_hash(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        h = (h ^ b[i]) * 0x100000001b3ULL;
    }
    return h;
}

static uint64_t hash_str(uint64_t h, const char *s)
{
    if (NULL == s) {
        s = "";
    }
    return mca_coll_topo_hash(h, s, strlen(s) + 1); /* the NUL separates */
}

static uint64_t hash_double(uint64_t h, double d)
{
    uint64_t bits;
    memcpy(&bits, &d, sizeof(bits));
    return mca_coll_topo_hash(h, &bits, sizeof(bits));
}

static uint64_t hash_i32(uint64_t h, int32_t v)
{
    return mca_coll_topo_hash(h, &v, sizeof(v));
}

static uint64_t agree_topology(uint64_t h, const param_t *p, int prim)
{
    (void)p;
    (void)prim;
    return hash_str(h, COMP.topo_valid ? COMP.topology : "(malformed)");
}

static uint64_t agree_algorithm(uint64_t h, const param_t *p, int prim)
{
    (void)p;
    const topo_algo_t *forced = COMP.forced[prim];
    return hash_str(h, NULL != forced ? forced->name : "auto");
}

/* price_ranks, price_roots: 0 and -1 both mean every one */
static uint64_t agree_nonneg(uint64_t h, const param_t *p, int prim)
{
    (void)prim;
    const int v = *(const int *)p->var;
    return hash_i32(h, v > 0 ? v : 0);
}

static uint64_t agree_eager(uint64_t h, const param_t *p, int prim)
{
    (void)p;
    (void)prim;
    return hash_double(h, mca_coll_topo_proto()->eager);
}

static uint64_t agree_rndv(uint64_t h, const param_t *p, int prim)
{
    (void)p;
    (void)prim;
    return hash_double(h, mca_coll_topo_proto()->rndv);
}

static uint64_t agree_handoff(uint64_t h, const param_t *p, int prim)
{
    (void)p;
    (void)prim;
    const uint32_t set = COMP.handoff_set;
    return mca_coll_topo_hash(h, &set, sizeof(set));
}

static uint64_t agree_host_handoff(uint64_t h, const param_t *p, int prim)
{
    (void)p;
    (void)prim;
    for (int i = 0; i < TOPO_PRIM_COUNT; i++) {
        const uint64_t lim = COMP.host_handoff_lim[i];
        h = mca_coll_topo_hash(h, &lim, sizeof(lim));
    }
    return h;
}

/* the provider matters only where libfabric may carry the messages */
static uint64_t agree_provider(uint64_t h, const param_t *p, int prim)
{
    (void)prim;
    if (COLL_TOPO_TRANSPORT_PML == COMP.transport) {
        return h;
    }
    return hash_str(h, *(char *const *)p->var);
}

static void agree_one(int i, int prim, void *arg)
{
    uint64_t *h = arg;
    const param_t *p = &params[i];
    const void *var = storage(p, prim);
    if (!p->agree) {
        return;
    }
    if (NULL != p->agree_value) {
        *h = p->agree_value(*h, p, prim);
        return;
    }
    switch (p->type) {
    case PARAM_INT:
    case PARAM_ENUM:
        *h = hash_i32(*h, *(const int *)var);
        break;
    case PARAM_LONG: {
        const int64_t v = *(const long *)var;
        *h = mca_coll_topo_hash(*h, &v, sizeof(v));
        break;
    }
    case PARAM_SIZE: {
        const uint64_t v = *(const size_t *)var;
        *h = mca_coll_topo_hash(*h, &v, sizeof(v));
        break;
    }
    case PARAM_BOOL: {
        const unsigned char v = *(const bool *)var;
        *h = mca_coll_topo_hash(*h, &v, sizeof(v));
        break;
    }
    case PARAM_DOUBLE:
        *h = hash_double(*h, *(const double *)var);
        break;
    case PARAM_SECONDS:
        *h = hash_double(*h, *p->value); /* the parsed number, not its text */
        break;
    case PARAM_STRING:
        *h = hash_str(*h, *(char *const *)var);
        break;
    }
}

uint64_t mca_coll_topo_params_hash(void)
{
    uint64_t h = COLL_TOPO_HASH_INIT;
    for_each_param(agree_one, &h);
    return h;
}

/* ---- parsing at open, and the report of bad values --------------------- */

/* Parsed at open; reported by mca_coll_topo_report_params. */
static char topo_err[256];
static char handoff_err[256];
static char host_handoff_err[256];
static bool algo_unknown[TOPO_PRIM_COUNT];

/* The rows of ranges[] replaced by their defaults at open, with the
 * values given. */
static struct {
    const topo_param_t *p;
    char value[TOPO_PARAM_TEXT_LEN];
} bad_params[NPARAMS];
static int nbad_params;

static void parse_topology(void)
{
    mca_coll_topo_component_t *c = &mca_coll_topo_component;
    const char *value = NULL != c->topology ? c->topology : "auto";

    topo_err[0] = '\0';
    c->topo_valid = (TOPO_OK == topo_topology_parse(value, &c->topo, topo_err, sizeof(topo_err)));
    if (!c->topo_valid) {
        memset(&c->topo, 0, sizeof(c->topo));
        c->topo.kind = TOPO_NET_STAR;
    }
}

static void parse_algorithms(void)
{
    mca_coll_topo_component_t *c = &mca_coll_topo_component;

    for (int i = 0; i < mca_coll_topo_nserved; i++) {
        topo_prim_t prim = mca_coll_topo_served[i].prim;
        const char *value = c->algorithm[prim];
        c->forced[prim] = NULL;
        algo_unknown[prim] = false;
        if (NULL == value || '\0' == value[0] || 0 == strcmp(value, "auto")) {
            continue;
        }
        c->forced[prim] = topo_catalog_find(prim, value);
        algo_unknown[prim] = (NULL == c->forced[prim]);
    }
}

static void parse_handoff(void)
{
    mca_coll_topo_component_t *c = &mca_coll_topo_component;
    handoff_err[0] = '\0';
    if (TOPO_OK !=
        topo_prim_set_parse(c->handoff, &c->handoff_set, handoff_err, sizeof(handoff_err))) {
        (void)topo_prim_set_parse(COLL_TOPO_HANDOFF_DEFAULT, &c->handoff_set, NULL, 0);
    }
    host_handoff_err[0] = '\0';
    if (TOPO_OK != topo_prim_limits_parse(c->host_handoff, c->host_handoff_lim, host_handoff_err,
                                          sizeof(host_handoff_err))) {
        (void)topo_prim_limits_parse(COLL_TOPO_HOST_HANDOFF_DEFAULT, c->host_handoff_lim, NULL, 0);
    }
}

static void note_bad_param(const topo_param_t *p, const char *value, void *arg)
{
    (void)arg;
    if (nbad_params < NPARAMS) {
        const size_t keep = sizeof(bad_params[0].value) - 4; /* room for "..." */
        bad_params[nbad_params].p = p;
        if (strlen(value) > keep) { /* quote the start of a long text */
            snprintf(bad_params[nbad_params].value, sizeof(bad_params[0].value), "%.*s...",
                     (int)keep, value);
        } else {
            snprintf(bad_params[nbad_params].value, sizeof(bad_params[0].value), "%s", value);
        }
        nbad_params++;
    }
}

/* Rules: parsed at the first use of each primitive.  The help file's
 * bad-rules section and the README give the limits as numbers. */
_Static_assert(TOPO_MAX_RULES == 64 && TOPO_MAX_RULE_GROUPS == 16,
               "help-coll-topo.txt (bad-rules) and the README give 64 ranges and 16 groups");
static topo_rules_t rules_parsed[TOPO_PRIM_COUNT];
/* 0 unparsed, 1 ok, -1 none/bad; set under mca_coll_topo_lazy_lock, after
 * rules_parsed (write barrier), read without it (read barrier) */
static volatile signed char rules_state[TOPO_PRIM_COUNT];

void mca_coll_topo_params_open(void)
{
    parse_topology();
    parse_algorithms();
    parse_handoff();
    build_ranges();
    nbad_params = 0;
    (void)topo_params_check(ranges, nranges, note_bad_param, NULL);
    for (int i = 0; i < TOPO_PRIM_COUNT; i++) {
        rules_state[i] = 0; /* parsed at the first use (MPI_Init: one thread) */
    }
}

void mca_coll_topo_report_params(void)
{
    static bool done = false;
    const mca_coll_topo_component_t *c = &mca_coll_topo_component;

    if (!mca_coll_topo_once(&done) || !mca_coll_topo_first_process()) {
        return;
    }
    if (!c->topo_valid) {
        mca_coll_topo_show_help("bad-topology", NULL != c->topology ? c->topology : "", topo_err);
    }
    for (int i = 0; i < nbad_params; i++) {
        char range[TOPO_PARAM_TEXT_LEN], def[TOPO_PARAM_TEXT_LEN];
        topo_param_range(bad_params[i].p, range, sizeof(range));
        topo_param_format_default(bad_params[i].p, def, sizeof(def));
        mca_coll_topo_show_help("bad-param", bad_params[i].p->name, bad_params[i].value, range,
                                def);
    }
    if ('\0' != handoff_err[0]) {
        mca_coll_topo_show_help("bad-handoff", NULL != c->handoff ? c->handoff : "", handoff_err,
                                COLL_TOPO_HANDOFF_DEFAULT);
    }
    if ('\0' != host_handoff_err[0]) {
        mca_coll_topo_show_help("bad-host-handoff", NULL != c->host_handoff ? c->host_handoff : "",
                                host_handoff_err, COLL_TOPO_HOST_HANDOFF_DEFAULT);
    }
    for (int i = 0; i < mca_coll_topo_nserved; i++) {
        topo_prim_t prim = mca_coll_topo_served[i].prim;
        if (algo_unknown[prim]) {
            char *names = valid_names(prim);
            mca_coll_topo_show_help("unknown-algorithm", mca_coll_topo_served[i].param,
                                    c->algorithm[prim], NULL != names ? names : "?");
            free(names);
        }
    }
}

const topo_rules_t *mca_coll_topo_rules(topo_prim_t prim)
{
    if ((int)prim < 0 || prim >= TOPO_PRIM_COUNT) {
        return NULL;
    }
    signed char state = rules_state[prim];
    if (0 == state) {
        OPAL_THREAD_LOCK(&mca_coll_topo_lazy_lock);
        state = rules_state[prim];
        if (0 == state) {
            const char *value = mca_coll_topo_component.rules[prim];
            char err[256] = "";
            state = -1;
            if (NULL != value && '\0' != value[0]) {
                if (TOPO_OK ==
                    topo_rules_parse(value, prim, &rules_parsed[prim], err, sizeof(err))) {
                    state = rules_parsed[prim].n > 0 ? 1 : -1;
                } else if (mca_coll_topo_first_process()) {
                    char param[64];
                    snprintf(param, sizeof(param), "%s_rules", topo_prim_name(prim));
                    mca_coll_topo_show_help("bad-rules", param, value, err);
                }
            }
            opal_atomic_wmb();
            rules_state[prim] = state;
        }
        OPAL_THREAD_UNLOCK(&mca_coll_topo_lazy_lock);
    } else {
        opal_atomic_rmb();
    }
    return 1 == state ? &rules_parsed[prim] : NULL;
}
