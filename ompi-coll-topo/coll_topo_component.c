/*
 * coll/topo component: MCA parameters, open (version check, parsing of the
 * parameters) and the component structure Open MPI loads.
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

/* The primitives we serve, one MCA parameter each (reduce_scatter's serves
 * MPI_Reduce_scatter and MPI_Reduce_scatter_block).  Serving another one is
 * a row here, a fallback slot in coll_topo_module.c and its
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

static int topo_register(void);
static int topo_open(void);
static int topo_close(void);

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
                    .mca_register_component_params = topo_register,
                },
            .collm_data =
                {/* The component is checkpoint ready */
                 MCA_BASE_METADATA_PARAM_CHECKPOINT},
            .collm_init_query = mca_coll_topo_init_query,
            .collm_comm_query = mca_coll_topo_comm_query,
        },
    .priority = 40,
    .verbose = 0,
    .segment_size = 1048576,
    .scratch_keep = COLL_TOPO_SCRATCH_KEEP,
    .alpha = TOPO_COST_ALPHA,
    .beta = TOPO_COST_BETA,
    .gamma = TOPO_COST_GAMMA,
    .copy = TOPO_COST_COPY,
    .msg_overhead = TOPO_COST_MSG_OVERHEAD,
    .price_ranks = 256,
    .price_roots = 16,
    .prune = true,
    .intra_alpha = TOPO_COST_INTRA_ALPHA,
    .intra_beta = TOPO_COST_INTRA_BETA,
    .intra_beta_written = TOPO_COST_INTRA_BETA_WRITTEN,
    .eager_limit = -1,
    .rndv_alpha = -1.0,
    .pmix = true,
    .locality = COLL_TOPO_LOCALITY_AUTO,
    .handoff = COLL_TOPO_HANDOFF_DEFAULT,
    .host_handoff = COLL_TOPO_HOST_HANDOFF_DEFAULT,
    .autotune = COLL_TOPO_AUTOTUNE_EXACT,
    .autotune_calls = COLL_TOPO_AUTOTUNE_CALLS,
    .autotune_margin = 0.0,
};

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

/*
 * Every numeric MCA parameter of the component: its range and default, in
 * one table, checked in one loop at open (check_params, with
 * topo_params_check of core/params.c).  A
 * value outside its range is reported once (bad-param) and replaced by the
 * default.  The help texts print the range and the default from here, so
 * neither can drift from what is checked.
 *
 * The cost model's seconds (SECS) are registered as strings: ompi_info
 * prints an MCA double with six decimals (1e-10 as 0.000000), so neither
 * the default nor an override could be read there.  Their text is parsed
 * with strtod, as Open MPI parses a double, so the values an MCA file or
 * --mca gave before still mean the same; text that is not a number is
 * reported like a value out of range.
 */
#define COMP mca_coll_topo_component
#define NUM(name, type, lo, hi, def)                                   \
    {                                                                  \
        "coll_topo_" #name, type, &COMP.name, NULL, lo, hi, false, def \
    }
#define SECS(name, lo, hi, def)                                                                  \
    {                                                                                            \
        "coll_topo_" #name, TOPO_PARAM_DOUBLE, &COMP.name, &COMP.name##_text, lo, hi, false, def \
    }
#define TOPO_BYTES_MAX 1099511627776.0 /* 2^40: 1 TiB */
static const topo_param_t topo_params[] = {
    NUM(priority, TOPO_PARAM_INT, INT_MIN, 1000, 40), /* negative: never selected */
    NUM(verbose, TOPO_PARAM_INT, 0, 100, 0),
    NUM(segment_size, TOPO_PARAM_SIZE, 0, TOPO_BYTES_MAX, 1048576),
    NUM(scratch_keep, TOPO_PARAM_SIZE, 0, TOPO_BYTES_MAX, (double)COLL_TOPO_SCRATCH_KEEP),
    SECS(alpha, 0, 1, TOPO_COST_ALPHA),
    SECS(beta, 0, 1e-3, TOPO_COST_BETA),
    SECS(gamma, 0, 1e-3, TOPO_COST_GAMMA),
    SECS(copy, 0, 1e-3, TOPO_COST_COPY),
    SECS(msg_overhead, 0, 1, TOPO_COST_MSG_OVERHEAD),
    SECS(hop, 0, 1, 0.0),
    NUM(ports, TOPO_PARAM_INT, 0, TOPO_MAX_PORTS, 0),
    NUM(price_ranks, TOPO_PARAM_INT, -1, INT_MAX, 256),
    NUM(price_roots, TOPO_PARAM_INT, -1, INT_MAX, 16),
    SECS(intra_alpha, -1, 1, TOPO_COST_INTRA_ALPHA),
    SECS(intra_beta, -1, 1e-3, TOPO_COST_INTRA_BETA),
    SECS(intra_beta_written, -1, 1e-3, TOPO_COST_INTRA_BETA_WRITTEN),
    NUM(eager_limit, TOPO_PARAM_LONG, -1, TOPO_BYTES_MAX, -1),
    SECS(rndv_alpha, -1, 1, -1.0),
    NUM(autotune_calls, TOPO_PARAM_INT, 1, COLL_TOPO_AUTOTUNE_CALLS_MAX, COLL_TOPO_AUTOTUNE_CALLS),
    {"coll_topo_autotune_margin", TOPO_PARAM_DOUBLE, &COMP.autotune_margin, NULL, -1, 1e6, true,
     0.0},
};
#undef NUM
#undef SECS
#define TOPO_NPARAMS ((int)(sizeof(topo_params) / sizeof(topo_params[0])))

static const topo_param_t *param_row(const char *name)
{
    for (int i = 0; i < TOPO_NPARAMS; i++) {
        if (0 == strcmp(topo_params[i].name + strlen("coll_topo_"), name)) {
            return &topo_params[i];
        }
    }
    return NULL;
}

/* `help` with the parameter's range and default appended (and `note`
 * after the default), malloc'ed; NULL if out of memory. */
static char *range_help(const topo_param_t *p, const char *help, const char *note)
{
    char range[TOPO_PARAM_TEXT_LEN], def[TOPO_PARAM_TEXT_LEN];
    topo_param_range(p, range, sizeof(range));
    topo_param_format_default(p, def, sizeof(def));
    char *text = NULL;
    if (0 > asprintf(&text,
                     "%s.  Range: %s (outside it: reported, and the default used).  "
                     "Default: %s%s",
                     help, range, def, note)) {
        text = NULL;
    }
    return text;
}

/* A numeric parameter of the table (not a SECS one): set to its default,
 * registered with its range and default in the help text. */
static void register_num(const mca_base_component_t *c, const char *name,
                         mca_base_var_info_lvl_t level, const char *help)
{
    const topo_param_t *p = param_row(name);
    if (NULL == p) {
        return; /* every caller names a row */
    }
    mca_base_var_type_t type = MCA_BASE_VAR_TYPE_DOUBLE;
    switch (p->type) {
    case TOPO_PARAM_INT:
        type = MCA_BASE_VAR_TYPE_INT;
        *(int *)p->var = (int)p->def;
        break;
    case TOPO_PARAM_LONG:
        type = MCA_BASE_VAR_TYPE_LONG;
        *(long *)p->var = (long)p->def;
        break;
    case TOPO_PARAM_SIZE:
        type = MCA_BASE_VAR_TYPE_SIZE_T;
        *(size_t *)p->var = (size_t)p->def;
        break;
    case TOPO_PARAM_DOUBLE:
        *(double *)p->var = p->def;
        break;
    }
    char *text = range_help(p, help, "");
    (void)mca_base_component_var_register(c, name, NULL != text ? text : help, type, NULL, 0, 0,
                                          level, MCA_BASE_VAR_SCOPE_READONLY, p->var);
    free(text);
}

/* A parameter of the automatic decision's cost model, in seconds (a SECS
 * row): a string at level 6 whose default is the row's double written so
 * that it reads back the same (topo_param_format_double), parsed at open.
 * The help text ends with the range and the default, as a bandwidth too
 * when `per_byte`. */
static void register_cost(const mca_base_component_t *c, const char *name, bool per_byte,
                          const char *help)
{
    /* the default texts, one per row: the MCA system copies a string's
     * default, but they live on anyway (registering again rewrites them) */
    static char defaults[sizeof(topo_params) / sizeof(topo_params[0])][TOPO_PARAM_TEXT_LEN];
    const topo_param_t *p = param_row(name);
    if (NULL == p || NULL == p->text) {
        return; /* every caller names a SECS row */
    }
    char *def = defaults[p - topo_params];
    topo_param_format_double(p->def, def, TOPO_PARAM_TEXT_LEN);
    char bw[48] = "";
    if (per_byte && p->def > 0) {
        (void)snprintf(bw, sizeof(bw), " (%.3g GB/s)", 1e-9 / p->def);
    }
    *(double *)p->var = p->def;
    char *full = range_help(p, help, bw);
    *p->text = def;
    (void)mca_base_component_var_register(c, name, NULL != full ? full : help,
                                          MCA_BASE_VAR_TYPE_STRING, NULL, 0, 0, OPAL_INFO_LVL_6,
                                          MCA_BASE_VAR_SCOPE_READONLY, p->text);
    free(full);
}

/* An enumerated integer parameter (level 5) named coll_topo_<name>, values
 * `values` (NULL-terminated), `def` its default. */
static void register_enum(const mca_base_component_t *c, const char *name,
                          const mca_base_var_enum_value_t *values, int def, const char *help,
                          int *var)
{
    char full[64];
    snprintf(full, sizeof(full), "coll_topo_%s", name);
    mca_base_var_enum_t *e = NULL;
    (void)mca_base_var_enum_create(full, values, &e);
    *var = def;
    (void)mca_base_component_var_register(c, name, help, MCA_BASE_VAR_TYPE_INT, e, 0, 0,
                                          OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_READONLY, var);
    if (NULL != e) {
        OBJ_RELEASE(e);
    }
}

static int topo_register(void)
{
    mca_base_component_t *c = &mca_coll_topo_component.super.collm_version;

    register_num(c, "priority", OPAL_INFO_LVL_6,
                 "Priority of the coll/topo component; the highest-priority module serves each "
                 "collective it provides (tuned is 30, so the default 40 takes over allreduce, "
                 "reduce_scatter(_block), allgather, bcast, reduce, alltoall and barrier); "
                 "negative = coll/topo is never selected");

    register_num(c, "verbose", OPAL_INFO_LVL_4,
                 "Explain decisions on stderr (rank 0 of each communicator, lines start with "
                 "'coll:topo: '): 0 = silent, 1 = the topology of each communicator, the algorithm "
                 "each primitive uses and why, and every fallback to the previous module; 2 = also "
                 "every candidate of the automatic decision with its predicted time, and when the "
                 "communicator is freed, per primitive its calls and how many the memo of repeated "
                 "calls held; above 2 = 2");

    mca_coll_topo_component.topology = "auto";
    (void)mca_base_component_var_register(
        c, "topology",
        "The network the ranks sit on: auto | star | fullmesh | torus:AxBxC | mesh:AxB, "
        "optionally ,ports=N (dimensions row-major, the last varies fastest).  A grid with "
        "as many positions as the communicator has ranks is used as is; a grid the size of "
        "MPI_COMM_WORLD places any communicator by its MPI_COMM_WORLD ranks; otherwise star "
        "is used for it.  auto = a Cartesian communicator's grid, else coll_topo_coords_file, "
        "else PMIx fabric coordinates, else star",
        MCA_BASE_VAR_TYPE_STRING, NULL, 0, 0, OPAL_INFO_LVL_4, MCA_BASE_VAR_SCOPE_READONLY,
        &mca_coll_topo_component.topology);

    for (int i = 0; i < mca_coll_topo_nserved; i++) {
        topo_prim_t prim = mca_coll_topo_served[i].prim;
        char *names = valid_names(prim);
        char *help = NULL;
        if (0 > asprintf(&help,
                         "Algorithm of %s: auto (the cheapest under the cost model "
                         "coll_topo_alpha/beta/gamma among those that fit the call) or one "
                         "of: %s.  A forced algorithm that does not fit a call (for example "
                         "one needing a commutative operation) hands that call to the "
                         "previous module",
                         topo_prim_name(prim),
                         NULL == names ? "?"
                         : '\0' != names[0]
                             ? names
                             : "(none yet: every call goes to the previous module)")) {
            help = NULL;
        }
        mca_coll_topo_component.algorithm[prim] = "auto";
        (void)mca_base_component_var_register(
            c, mca_coll_topo_served[i].param, NULL != help ? help : "Algorithm",
            MCA_BASE_VAR_TYPE_STRING, NULL, 0, 0, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_READONLY,
            &mca_coll_topo_component.algorithm[prim]);
        free(help);
        free(names);

        /* coll_topo_<prim>_rules */
        char param[64];
        snprintf(param, sizeof(param), "%s_rules", topo_prim_name(prim));
        if (0 > asprintf(&help,
                         "Size-range rules of %s: LO-HI:ALGORITHM,... (e.g. "
                         "0-4k:A,4k-inf:B): a payload of [LO, HI) bytes uses ALGORITHM, or the "
                         "previous module where it is 'previous' (sizes with an optional k, m "
                         "or g; HI may be inf; ranges increasing).  Groups by communicator "
                         "size, separated by ';', may start with NP@ (N, N-M or N-inf ranks; "
                         "e.g. 16@0-4k:A;0-inf:B): a communicator takes the first group that "
                         "holds its size.  At most %d ranges and %d groups.  Sizes no rule "
                         "covers use auto; a forced coll_topo_%s_algorithm wins.  Empty "
                         "(default) = no rules; a malformed value is reported and ignored",
                         topo_prim_name(prim), TOPO_MAX_RULES, TOPO_MAX_RULE_GROUPS,
                         topo_prim_name(prim))) {
            help = NULL;
        }
        mca_coll_topo_component.rules[prim] = "";
        (void)mca_base_component_var_register(
            c, param, NULL != help ? help : "Size-range rules", MCA_BASE_VAR_TYPE_STRING, NULL, 0,
            0, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_READONLY, &mca_coll_topo_component.rules[prim]);
        free(help);
    }

    register_num(c, "segment_size", OPAL_INFO_LVL_5,
                 "Largest message in bytes: a transfer of a schedule bigger than this is sent as "
                 "several messages of at most this size (0 = never split)");

    register_num(
        c, "scratch_keep", OPAL_INFO_LVL_5,
        "Bytes of scratch memory a communicator keeps between calls, per buffer (its "
        "staging buffer and each lane's temporary storage): a call that needs more "
        "allocates it and gives it back at its end, as coll/tuned does with its temporary "
        "buffers, so that a large call leaves at most this much behind (the default, 4 MiB: "
        "a call whose scratch fits allocates nothing)");

    register_cost(c, "alpha", false,
                  "Cost model of the automatic decision: latency of one message, in seconds");
    register_cost(c, "beta", true,
                  "Cost model of the automatic decision: transfer time per byte on one port, in "
                  "seconds");
    register_cost(c, "gamma", true,
                  "Cost model of the automatic decision: time to reduce one byte (of data from "
                  "memory), in seconds");
    register_cost(
        c, "copy", true,
        "Cost model of the automatic decision: time to copy one byte locally, in seconds: "
        "the copies the executor makes besides the messages "
        "(a rank's own block, sends of several block ranges packed, receives of several "
        "ranges unpacked); 0 = copies are free, as in the seeds' closed forms");
    register_cost(
        c, "msg_overhead", false,
        "Cost model of the automatic decision: a rank's time per message it sends or "
        "receives, in seconds (posting, "
        "matching and completing it, LogP's o, paid at both ends, beyond the step's latency "
        "coll_topo_alpha): a step in which a rank sends and receives S messages costs S of them; "
        "0 = none, as in the seeds' closed forms; topo-calibrate measures it");

    register_cost(c, "hop", false,
                  "Cost model of the automatic decision: seconds per link a message crosses beyond "
                  "the first, on torus and mesh topologies");

    register_num(
        c, "ports", OPAL_INFO_LVL_6,
        "Cost model of the automatic decision: network ports per rank, the messages a rank "
        "sends (and receives) at once at full speed.  0 (default) = the topology's: 2 per "
        "torus dimension, 1 per direction on a mesh, 1 on a star, p-1 on a full mesh; "
        "a topology string's ,ports=N wins over this");

    register_num(
        c, "price_ranks", OPAL_INFO_LVL_6,
        "Cost model of the automatic decision: on a communicator of more ranks than this, an "
        "algorithm whose schedules grow as p^2 (ring, pairwise, the bandwidth-optimal Swing "
        "and Trivance) is priced on this many of its ranks, not every rank, with its busiest "
        "link estimated from them, not routed; the first call of at most 4096 bytes prices "
        "only the candidates that can win there: a first call on thousands of ranks takes "
        "seconds, not minutes (README: How auto decides).  "
        "0 or -1 = every rank, every link routed, one stage");

    mca_coll_topo_component.prune = true;
    (void)mca_base_component_var_register(
        c, "prune",
        "Cost model of the automatic decision: do not price a candidate whose lower bound "
        "(rank 0's schedule alone) is above the candidates already priced at every payload: "
        "it cannot be in the decision table, which is the same either way; only the first "
        "call's time changes (on 16384 ranks, seconds).  coll_topo_verbose=2 lists it as "
        "pruned, without a price.  0 = price every candidate",
        MCA_BASE_VAR_TYPE_BOOL, NULL, 0, 0, OPAL_INFO_LVL_6, MCA_BASE_VAR_SCOPE_READONLY,
        &mca_coll_topo_component.prune);

    register_num(
        c, "price_roots", OPAL_INFO_LVL_6,
        "Automatic decision of bcast and reduce where their algorithms cost differently from "
        "different roots: a communicator builds a decision table for at most this many roots, "
        "spread evenly over its ranks, and a call from another root takes the nearest one's "
        "table (its schedule, and its result, are still its own).  0 or -1 = every root its "
        "own table");

    register_cost(
        c, "intra_alpha", false,
        "Cost model of the automatic decision: latency of one message between ranks placed on "
        "one node (shared memory), in seconds (0 or less = coll_topo_alpha's value); used "
        "where the placement is known "
        "(a coordinates file or PMIx with several ranks per host, or a star's hosts: "
        "coll_topo_locality).  A step whose messages all "
        "stay on nodes costs this latency, one with messages on both classes the larger of "
        "the two");
    register_cost(
        c, "intra_beta", true,
        "Cost model of the automatic decision: transfer time per byte between ranks placed on "
        "one node, in seconds (0 or less = coll_topo_beta's value).  "
        "A rank's shared-memory bytes and its network ports work in parallel");
    register_cost(
        c, "intra_beta_written", true,
        "Cost model of the automatic decision: transfer time per byte between ranks placed on "
        "one node of data the sender wrote earlier in the same call (received or reduced it), "
        "in seconds (0 or less = coll_topo_intra_beta's value).  The receiver then pulls cache "
        "lines the sender's core "
        "has modified, which costs more than data that was in memory before the call");

    mca_coll_topo_component.pmix = true;
    (void)mca_base_component_var_register(
        c, "pmix",
        "Read the fabric coordinates a resource manager publishes through PMIx 4 "
        "(PMIX_FABRIC_COORDINATES of each process, PMIX_FABRIC_SHAPE_STRING or "
        "PMIX_FABRIC_SHAPE of the job; the grid is taken as a torus) when coll_topo_topology "
        "is auto, the communicator is not Cartesian and no coll_topo_coords_file is set.  "
        "Local lookups only: nothing is asked of the PMIx server",
        MCA_BASE_VAR_TYPE_BOOL, NULL, 0, 0, OPAL_INFO_LVL_4, MCA_BASE_VAR_SCOPE_READONLY,
        &mca_coll_topo_component.pmix);

    static const mca_base_var_enum_value_t locality_values[] = {
        {COLL_TOPO_LOCALITY_OFF, "off"},
        {COLL_TOPO_LOCALITY_AUTO, "auto"},
        {COLL_TOPO_LOCALITY_ALWAYS, "always"},
        {0, NULL}};
    register_enum(
        c, "locality", locality_values, COLL_TOPO_LOCALITY_AUTO,
        "On a star topology, tell the ranks that share a host (the same host name) from the "
        "others and price messages between them with coll_topo_intra_alpha and "
        "coll_topo_intra_beta (one allgather of 8 bytes per rank at a communicator's first "
        "collective when its ranks span several hosts).  off (0): every rank a host of its "
        "own; auto (1, default): unless a host runs more ranks than it has processors "
        "(oversubscribed); always (2): even then",
        &mca_coll_topo_component.locality);

    register_num(
        c, "eager_limit", OPAL_INFO_LVL_6,
        "Cost model of the automatic decision: point-to-point messages larger than this "
        "many bytes go by rendezvous, which costs coll_topo_rndv_alpha more per step of "
        "the schedule whose largest message does.  -1 (default) = the smallest eager limit "
        "of the BTLs the ob1 PML uses (btl_<name>_eager_limit, e.g. 4096 for vader) less 64 "
        "bytes of headers, none with other PMLs; "
        "0 = no protocol switch in the model");
    register_cost(
        c, "rndv_alpha", false,
        "Cost model of the automatic decision: seconds a step pays when its largest "
        "message exceeds coll_topo_eager_limit (the rendezvous handshake).  -1 (default) "
        "= 2 * coll_topo_alpha (one more round trip), or coll_topo_intra_alpha for a step "
        "whose messages all stay on nodes (single copy: the receiver pulls the data when "
        "the first fragment arrives, only the sender waits for one more message); 0 = no "
        "protocol switch");

    static const mca_base_var_enum_value_t autotune_values[] = {{COLL_TOPO_AUTOTUNE_OFF, "off"},
                                                                {COLL_TOPO_AUTOTUNE_EXACT, "exact"},
                                                                {COLL_TOPO_AUTOTUNE_ALL, "all"},
                                                                {0, NULL}};
    register_enum(
        c, "autotune", autotune_values, COLL_TOPO_AUTOTUNE_EXACT,
        "Time the automatic decision against the previous module (e.g. coll/tuned) on the "
        "first calls of each payload class (a power of two of bytes) of each communicator, "
        "and keep the faster, the same on every rank (README: Timing against the previous "
        "module); a forced algorithm or a rule is not timed.  off (0): the cost "
        "model alone; exact (1, default): calls whose result no algorithm changes (bcast, "
        "allgather, alltoall, barrier, integer reductions, MAX, MIN, logical and bitwise "
        "operations, MAXLOC, MINLOC); all (2): floating-point sums, products and "
        "user-defined operations too (their rounding then depends on the timing)",
        &mca_coll_topo_component.autotune);
    register_num(c, "autotune_calls", OPAL_INFO_LVL_6,
                 "coll_topo_autotune: calls of a payload class before the timing starts, and "
                 "timed calls of each side after one of each to warm up (each side's slowest "
                 "call is left out of its mean)");
    register_num(
        c, "autotune_margin", OPAL_INFO_LVL_6,
        "coll_topo_autotune: the previous module takes a payload class when coll/topo's time "
        "exceeds (1 + this margin) times the previous module's: 0 (default) = the faster "
        "wins; 0.05 = coll/topo keeps calls it is up to 5% slower on; -0.05 = it keeps only "
        "those it is more than 5% faster on");

    mca_coll_topo_component.handoff = COLL_TOPO_HANDOFF_DEFAULT;
    (void)mca_base_component_var_register(
        c, "handoff",
        "Primitives whose calls of one message coll/topo hands to the previous module: on 2 "
        "ranks, a payload of at most the eager limit (coll_topo_eager_limit) whose automatic "
        "plan is one step of one message per rank (an exchange goes only to coll/tuned).  A "
        "comma-separated list of allreduce, reduce_scatter, allgather, bcast, reduce, "
        "alltoall, barrier, or none (default " COLL_TOPO_HANDOFF_DEFAULT "); a forced "
        "algorithm or a rule keeps the call in coll/topo.  A malformed value is reported and "
        "the default used",
        MCA_BASE_VAR_TYPE_STRING, NULL, 0, 0, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_READONLY,
        &mca_coll_topo_component.handoff);

    mca_coll_topo_component.host_handoff = COLL_TOPO_HOST_HANDOFF_DEFAULT;
    (void)mca_base_component_var_register(
        c, "host_handoff",
        "On a communicator whose ranks coll_topo_locality places on one host, the calls of a "
        "primitive whose payload is below the given bytes go to the previous module: "
        "comma-separated PRIMITIVE:BYTES items (sizes as in the rules, e.g. 4k), or none "
        "(default " COLL_TOPO_HOST_HANDOFF_DEFAULT ": coll/tuned was as fast there on 16 "
        "ranks of a 16-core node; README: One host).  A forced algorithm, or rules for the "
        "communicator's size, keep the calls in coll/topo.  A malformed value is reported "
        "and the default used",
        MCA_BASE_VAR_TYPE_STRING, NULL, 0, 0, OPAL_INFO_LVL_5, MCA_BASE_VAR_SCOPE_READONLY,
        &mca_coll_topo_component.host_handoff);

    mca_coll_topo_component.coords_file = "";
    (void)mca_base_component_var_register(
        c, "coords_file",
        "A file of network coordinates, used when coll_topo_topology is auto and the "
        "communicator is not Cartesian: first line the machine's shape (e.g. torus:4x4x2), "
        "then one line per host: 'hostname x y z ...' ('#' starts a comment).  A "
        "communicator whose ranks occupy every position once, in rank order (row-major), "
        "gets that grid; any other placement is priced as star.  Empty (default) = none",
        MCA_BASE_VAR_TYPE_STRING, NULL, 0, 0, OPAL_INFO_LVL_4, MCA_BASE_VAR_SCOPE_READONLY,
        &mca_coll_topo_component.coords_file);

    mca_coll_topo_component.coords_host = "";
    (void)mca_base_component_var_register(
        c, "coords_host",
        "The host name of this process for coll/topo: looked up in coll_topo_coords_file, "
        "and compared by coll_topo_locality (default empty: the node's name).  For tests "
        "that place ranks on a grid, or on several hosts, within one machine",
        MCA_BASE_VAR_TYPE_STRING, NULL, 0, 0, OPAL_INFO_LVL_9, MCA_BASE_VAR_SCOPE_READONLY,
        &mca_coll_topo_component.coords_host);

    mca_coll_topo_component.check_plans = false;
    (void)mca_base_component_var_register(
        c, "check_plans",
        "Debugging: every executor plan derived from another count's plan of the same "
        "schedule (one-block schedules: binomial trees, recursive doubling; a call whose count "
        "the memo of repeated calls does not hold) is compiled as well and compared; a "
        "difference is reported (coll:topo: coll_topo_check_plans: ...) and the call returns "
        "an error.  Slow; for tests (default false)",
        MCA_BASE_VAR_TYPE_BOOL, NULL, 0, 0, OPAL_INFO_LVL_9, MCA_BASE_VAR_SCOPE_READONLY,
        &mca_coll_topo_component.check_plans);

    return OMPI_SUCCESS;
}

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

/* Parsed at open; reported by mca_coll_topo_report_params. */
static char topo_err[256];
static char handoff_err[256];
static char host_handoff_err[256];
static bool algo_unknown[TOPO_PRIM_COUNT];

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

/* The parameters of topo_params replaced by their defaults at open, with
 * the values given (reported by mca_coll_topo_report_params). */
static struct {
    const topo_param_t *p;
    char value[TOPO_PARAM_TEXT_LEN];
} bad_params[sizeof(topo_params) / sizeof(topo_params[0])];
static int nbad_params;

static void note_bad_param(const topo_param_t *p, const char *value, void *arg)
{
    (void)arg;
    if (nbad_params < TOPO_NPARAMS) {
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

static void check_params(void)
{
    nbad_params = 0;
    (void)topo_params_check(topo_params, TOPO_NPARAMS, note_bad_param, NULL);
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

void mca_coll_topo_report_params(void)
{
    static bool done = false;
    const mca_coll_topo_component_t *c = &mca_coll_topo_component;

    if (!mca_coll_topo_once(&done) || !mca_coll_topo_first_process()) {
        return;
    }
    if (!c->topo_valid) {
        mca_coll_topo_show_help("bad-topology",
                       NULL != c->topology ? c->topology : "", topo_err);
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
            mca_coll_topo_show_help("unknown-algorithm",
                           mca_coll_topo_served[i].param, c->algorithm[prim],
                           NULL != names ? names : "?");
            free(names);
        }
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

uint64_t mca_coll_topo_params_hash(void)
{
    const mca_coll_topo_component_t *c = &mca_coll_topo_component;
    uint64_t h = COLL_TOPO_HASH_INIT;
    h = hash_str(h, c->topo_valid ? c->topology : "(malformed)");
    h = hash_str(h, c->coords_file);
    h = hash_str(h, c->pmix ? "pmix" : "no pmix");
    const int32_t locality = c->locality;
    h = mca_coll_topo_hash(h, &locality, sizeof(locality));
    const uint32_t handoff = c->handoff_set;
    h = mca_coll_topo_hash(h, &handoff, sizeof(handoff));
    for (int i = 0; i < TOPO_PRIM_COUNT; i++) {
        const uint64_t lim = c->host_handoff_lim[i];
        h = mca_coll_topo_hash(h, &lim, sizeof(lim));
    }
    const int32_t autotune[2] = {c->autotune, c->autotune_calls};
    h = mca_coll_topo_hash(h, autotune, sizeof(autotune));
    for (int i = 0; i < mca_coll_topo_nserved; i++) {
        topo_prim_t prim = mca_coll_topo_served[i].prim;
        h = hash_str(h, NULL != c->forced[prim] ? c->forced[prim]->name : "auto");
        h = hash_str(h, c->rules[prim]);
    }
    const topo_proto_t *proto = mca_coll_topo_proto();
    const double d[12] = {c->alpha,
                          c->beta,
                          c->gamma,
                          c->hop,
                          c->intra_alpha,
                          c->intra_beta,
                          proto->eager,
                          proto->rndv,
                          c->copy,
                          c->msg_overhead,
                          c->intra_beta_written,
                          c->autotune_margin};
    for (int i = 0; i < 12; i++) {
        uint64_t bits;
        memcpy(&bits, &d[i], sizeof(bits));
        h = mca_coll_topo_hash(h, &bits, sizeof(bits));
    }
    const int32_t price_ranks = c->price_ranks > 0 ? c->price_ranks : 0;
    h = mca_coll_topo_hash(h, &price_ranks, sizeof(price_ranks));
    const int32_t price_roots = c->price_roots > 0 ? c->price_roots : 0;
    h = mca_coll_topo_hash(h, &price_roots, sizeof(price_roots));
    const uint64_t seg = (uint64_t)c->segment_size;
    return mca_coll_topo_hash(h, &seg, sizeof(seg));
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
    parse_topology();
    parse_algorithms();
    parse_handoff();
    check_params();
    for (int i = 0; i < TOPO_PRIM_COUNT; i++) {
        rules_state[i] = 0; /* parsed at the first use (MPI_Init: one thread) */
    }
    mca_coll_topo_publish(); /* before MPI_Init's modex fence (coll_topo_agree.c) */
    return OMPI_SUCCESS;
}

static int topo_close(void)
{
    mca_coll_topo_agree_finalize();
    mca_coll_topo_shared_tables_free();
    return OMPI_SUCCESS;
}
