/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * topo-plan: what coll/topo would choose, and why, without MPI.
 *
 * Prints the decision table of the automatic decision (every algorithm of
 * the primitive in the catalog, priced by the core cost model per message
 * size, the cheapest marked; the ones that do not fit with the reason),
 * dumps an algorithm's schedule step by step with bytes and hops, and plots
 * predicted time against message size with gnuplot.  The candidates and
 * their table are the component's, built by the same core function
 * (topo_candidates_price, decision.h): the core's decision table over the
 * candidates' prices, ties to the earlier catalog row.
 */
#include "catalog.h"
#include "cost.h"
#include "decision.h"
#include "links.h"
#include "params.h"
#include "route.h"
#include "rules.h"
#include "schedule.h"
#include "share.h"
#include "topology.h"

#include <errno.h>
#include <limits.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define EXIT_USAGE 2
#define MAX_SIZES 64

static const char *prog = "topo-plan";

static void usage(FILE *f)
{
    fprintf(
        f,
        "usage: %s --catalog\n"
        "       %s --topology T [--size N] [--primitive P] [--sizes LIST]\n"
        "       [--alpha A] [--beta B] [--gamma G] [--copy C] [--msg-overhead O] [--hop H]\n"
        "       [--price-ranks K]\n"
        "       [--root R] [--non-commutative | --exact]\n"
        "       [--no-links] [--no-prune] [--eager-limit BYTES] [--rndv-alpha S] [--nodes LIST]\n"
        "       [--btl-bandwidth MBITS] [--btl-latency US] [--btl-eager-limit BYTES]\n"
        "       [--intra-alpha A] [--intra-beta B]\n"
        "       [--dump ALGO [--rank R]] [--plot FILE.png|FILE.svg] [--rules] [--first-stage]\n"
        "       [--route] [--algorithm A] [--use-rules VALUE | --rules-file FILE]\n"
        "       [--handoff LIST] [--host-handoff LIST] [--previous tuned|other]\n"
        "       %s --topology T [--size N] --bench-schedules\n"
        "\n"
        "  --catalog          print the algorithm catalog as a Markdown table (the\n"
        "                     README's) and exit\n"
        "  --topology T       star, fullmesh, torus:AxB..., mesh:AxB..., graph:FILE (optionally\n"
        "                     ,ports=N),\n"
        "                     as the coll_topo_topology MCA parameter\n"
        "  --size N           communicator size (default: the grid's size; required for\n"
        "                     star and fullmesh)\n"
        "  --primitive P      allreduce (default), reduce_scatter, allgather, bcast, reduce,\n"
        "                     alltoall, barrier: whatever the catalog has\n"
        "  --sizes LIST       payloads M in bytes, comma-separated, suffixes k, M, G (x1024)\n"
        "                     (default 8,1k,64k,1M,16M)\n"
        "  --alpha A          seconds per message and step (default %g)\n"
        "  --beta B           seconds per byte on a port or link (default %g)\n"
        "  --gamma G          seconds per reduced byte (default %g)\n"
        "  --copy C           seconds per byte copied locally: own blocks, packed sends,\n"
        "                     unpacked receives (default %g; 0: copies are free)\n"
        "  --msg-overhead O   seconds per message a rank sends or receives in a step\n"
        "                     (default %g)\n"
        "  --price-ranks K    price a communicator of more ranks on K of them (default 256,\n"
        "                     as coll_topo_price_ranks; links estimated from them; 0: every\n"
        "                     rank, every link routed)\n"
        "  --hop H            seconds per link crossed beyond the first (default 0)\n"
        "  --root R           root of rooted primitives (default 0)\n"
        "  --non-commutative  the operation is not commutative\n"
        "  --exact            the operation is exactly associative (integer types; MAX, MIN,\n"
        "                     logical, bitwise): the algorithms whose ranks combine in\n"
        "                     their own orders fit too (default: a floating-point sum)\n"
        "  --no-links         price the ports only: no link sharing, no hops (the\n"
        "                     contention-free closed forms)\n"
        "  --no-prune         price every candidate (default: as the component, skip those\n"
        "                     whose lower bound is above a priced one at every payload;\n"
        "                     listed with > and that bound)\n"
        "  --nodes LIST       a placement on the grid of --topology: the grid position\n"
        "                     (node) of each rank, comma-separated, a-b for runs, V*K\n"
        "                     for K ranks at V (e.g. 0-7 for the first half of\n"
        "                     torus:4x4, 0,0,1,1 or 0*2,1*2 for two ranks per node); on a\n"
        "                     star, the host of each rank (0*8,1*8: two hosts of 8\n"
        "                     ranks, as coll_topo_locality finds them); the\n"
        "                     communicator has as many ranks as the list\n"
        "  --intra-alpha A    seconds per message between ranks of one node (default\n"
        "                     %g, as coll_topo_intra_alpha; 0 = --alpha's value)\n"
        "  --intra-beta B     seconds per byte between ranks of one node (default %g;\n"
        "                     0 = --beta's value)\n"
        "  --intra-beta-written B\n"
        "                     the same for blocks the sender wrote earlier in the call\n"
        "                     (default %g; 0 = --intra-beta's value)\n"
        "  --eager-limit E    messages above E bytes go by rendezvous (default 0: no\n"
        "                     protocol switch; the component's auto value over shared\n"
        "                     memory is 4032, see coll_topo_eager_limit)\n"
        "  --btl-bandwidth MBITS, --btl-latency US, --btl-eager-limit BYTES\n"
        "                     what the BTL between hosts publishes (btl_<name>_bandwidth,\n"
        "                     _latency, _eager_limit, as ompi_info shows them): beta,\n"
        "                     alpha and the eager limit the component derives from them\n"
        "                     on a communicator that spans several hosts (8 / (MBITS *\n"
        "                     1e6) s/B, US * 1e-6 s, BYTES - 64); --beta, --alpha and\n"
        "                     --eager-limit win over them\n"
        "  --rndv-alpha S     seconds a step pays when its largest message goes by\n"
        "                     rendezvous (default 2 x alpha; intra-alpha for a step\n"
        "                     whose messages all stay on nodes)\n"
        "  --dump ALGO        print ALGO's schedule per step and rank, bytes for the\n"
        "                     largest of --sizes\n"
        "  --rank R           dump rank R only (default: every rank)\n"
        "  --plot FILE        predicted time vs message size per algorithm (log-log),\n"
        "                     PNG or SVG by the extension; writes FILE's stem .gp and .dat\n"
        "                     and runs gnuplot\n"
        "  --rules            print the decision table instead, as a value of\n"
        "                     coll_topo_<primitive>_rules covering every payload, for\n"
        "                     communicators of this size (N@...): the component then\n"
        "                     prices nothing for that primitive (the first call of a\n"
        "                     large communicator), and runs these choices\n"
        "  --bench-table      with --rules: print on stderr the processor seconds the\n"
        "                     pricing of the table took and the resident memory it added\n"
        "                     at its peak (the peak less the process's before pricing)\n"
        "  --job N            price the table as the component does on a communicator of\n"
        "                     N ranks that share the pricing (coll_topo_price_share):\n"
        "                     each rank prices its share of the candidates, in three\n"
        "                     rounds, from the exchanged prices every rank builds the\n"
        "                     same table (the one printed, the same as without --job);\n"
        "                     with --bench-table the worst rank's processor time and\n"
        "                     peak memory, each rank that prices measured in a process\n"
        "                     of its own\n"
        "  --first-stage      price as the component's first stage on a communicator of\n"
        "                     more ranks than coll_topo_price_ranks: only the candidates\n"
        "                     that can be the cheapest up to 4096 bytes (the others are\n"
        "                     listed as pruned); --sizes and the table stop there\n"
        "  --route            also print where the component sends each payload of --sizes:\n"
        "                     an algorithm or the previous module, and why, in the\n"
        "                     component's order (forced, rules, one host, auto, on 2\n"
        "                     ranks one message per rank); the options below imply it\n"
        "                     (the timing of coll_topo_autotune is a run's, not shown)\n"
        "  --algorithm A      as coll_topo_<primitive>_algorithm (default auto)\n"
        "  --use-rules VALUE  as coll_topo_<primitive>_rules (default none)\n"
        "  --rules-file FILE  the same, the value read from FILE (--rules writes one)\n"
        "  --handoff LIST     as coll_topo_handoff (default %s)\n"
        "  --host-handoff LIST\n"
        "                     as coll_topo_host_handoff (default %s): applies on a star\n"
        "                     whose --nodes put every rank on one host\n"
        "  --previous P       the previous module: tuned (default; takes the exchanges\n"
        "                     of coll_topo_handoff too) or other\n"
        "  --bench-schedules  per algorithm of the catalog that fits (every primitive), the\n"
        "                     time to generate rank 0's schedule (the least of a few runs)\n"
        "                     and the memory it holds, against 2 ms and 1 MiB\n",
        prog, prog, prog, TOPO_COST_ALPHA, TOPO_COST_BETA, TOPO_COST_GAMMA, TOPO_COST_COPY,
        TOPO_COST_MSG_OVERHEAD, TOPO_COST_INTRA_ALPHA, TOPO_COST_INTRA_BETA,
        TOPO_COST_INTRA_BETA_WRITTEN, TOPO_ROUTE_TWO_RANKS_DEFAULT, TOPO_ROUTE_HOST_DEFAULT);
}

static void die(int code, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: ", prog);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(code);
}

/* --- argument parsing ---------------------------------------------------- */

static double parse_double(const char *opt, const char *s)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno || !(v >= 0) || isinf(v)) {
        die(EXIT_USAGE, "%s: '%s' is not a non-negative number", opt, s);
    }
    return v;
}

static long parse_int(const char *opt, const char *s, long lo, long hi)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno || v < lo || v > hi) {
        die(EXIT_USAGE, "%s: '%s' is not an integer in [%ld, %ld]", opt, s, lo, hi);
    }
    return v;
}

/* "64k", "1M", "16MiB", "8" -> bytes (topo_bytes_parse) */
static double parse_bytes(const char *s)
{
    double v;
    if (TOPO_OK != topo_bytes_parse(s, &v)) {
        die(EXIT_USAGE, "--sizes: '%s' is not a size (use 8, 1k, 64k, 1M, 2G)", s);
    }
    return v;
}

static int parse_sizes(const char *list, double *out)
{
    int n = 0;
    const char *p = list;
    while (1) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        char item[64];
        if (0 == len || len >= sizeof(item)) {
            die(EXIT_USAGE, "--sizes: empty or overlong item in '%s'", list);
        }
        if (n == MAX_SIZES) {
            die(EXIT_USAGE, "--sizes: at most %d sizes", MAX_SIZES);
        }
        memcpy(item, p, len);
        item[len] = '\0';
        out[n++] = parse_bytes(item);
        if (!comma) {
            break;
        }
        p = comma + 1;
    }
    return n;
}

static void format_bytes(double b, char *buf, size_t len)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (u < 4 && b >= 1024 && fmod(b, 1024) == 0) {
        b /= 1024;
        u++;
    }
    snprintf(buf, len, "%.15g %s", b, unit[u]);
}

/* "0-7,9,9" or "0*8,1*8" -> a malloc'ed array of grid positions, each <
 * grid (grid 0: a star's hosts, any non-negative number); *n its length.
 * V*K is K ranks at V. */
static int *parse_nodes(const char *list, int grid, long *n)
{
    int *out = NULL;
    size_t len = 0, cap = 0;
    const char *p = list;
    while (*p) {
        char *end;
        long lo = strtol(p, &end, 10), hi = lo;
        if (end == p || lo < 0) {
            die(EXIT_USAGE, "--nodes: '%s' is not a list of grid positions (e.g. 0-7,9)", list);
        }
        p = end;
        if ('-' == *p) {
            hi = strtol(p + 1, &end, 10);
            if (end == p + 1 || hi < lo) {
                die(EXIT_USAGE, "--nodes: bad range in '%s'", list);
            }
            p = end;
        }
        long times = 1;
        if ('*' == *p && lo == hi) {
            times = strtol(p + 1, &end, 10);
            if (end == p + 1 || times < 1 || times > 1 << 20) {
                die(EXIT_USAGE, "--nodes: bad repeat count in '%s' (V*K: K ranks at V)", list);
            }
            p = end;
        }
        if ((grid > 0 && hi >= grid) || hi > INT_MAX) {
            die(EXIT_USAGE, "--nodes: position %ld is outside the grid's %d nodes", hi, grid);
        }
        for (long v = lo; v <= hi; v++) {
            for (long k = 0; k < times; k++) {
                if (len == cap) {
                    cap = cap ? 2 * cap : 16;
                    out = realloc(out, cap * sizeof(int));
                    if (NULL == out) {
                        die(1, "out of memory");
                    }
                }
                out[len++] = (int)v;
            }
        }
        if (',' == *p) {
            p++;
        } else if (*p) {
            die(EXIT_USAGE, "--nodes: unexpected '%c' in '%s'", *p, list);
        }
    }
    if (0 == len) {
        die(EXIT_USAGE, "--nodes: empty list");
    }
    *n = (long)len;
    return out;
}

/* --- the plan ------------------------------------------------------------ */

/* a candidate: the core's (decision.h) */
typedef topo_candidate_t cand_t;

typedef struct {
    topo_topology_t topo;
    char topo_name[128];
    topo_gen_args_t args;
    topo_cost_params_t params;
    topo_cost_net_t net;
    topo_proto_t proto;
    const char *placed_nodes; /* --nodes, or NULL */
    int opclass; /* topo_opclass_t */
    int prune;   /* topo_price_candidates' */
    size_t upto; /* the payloads priced for: SIZE_MAX, or --first-stage's */
    double sizes[MAX_SIZES];
    int nsizes;
    topo_candidates_t all; /* every algorithm of the primitive, priced as the
                              component does (topo_candidates_price) */
    cand_t *cands;         /* all.cand */
    int ncands;            /* all.n */
    topo_decision_t table; /* all.table (cand: an index into cands) */
    int route;             /* --route */
    topo_route_params_t rp; /* --algorithm, rules, --handoff, --host-handoff,
                               --previous, --eager-limit */
    topo_rules_t rules;
    const char *rules_from; /* "--use-rules", "--rules-file F", or NULL */
    const char *two_ranks;  /* --handoff's list */
    int one_host;          /* a star whose --nodes put every rank on one host */
} plan_t;

/* The process's resident memory now, KiB (Linux: /proc/self/statm), or
 * -1; and its processor time, seconds (--bench-table). */
static long rss_kib(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    long size, res;
    const int ok = NULL != f && 2 == fscanf(f, "%ld %ld", &size, &res);
    if (NULL != f) {
        fclose(f);
    }
    const long page = sysconf(_SC_PAGESIZE);
    return ok && page > 0 ? res * (page / 1024) : -1;
}

static double cpu_seconds(void)
{
    struct timespec ts;
    return 0 == clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) ? ts.tv_sec + ts.tv_nsec * 1e-9 : 0.0;
}

static void price(plan_t *pl)
{
    if (TOPO_OK != topo_candidates_price(&pl->args, pl->opclass, &pl->params, &pl->net, &pl->proto,
                                         pl->prune, pl->upto, 1, &pl->all)) {
        die(1, "out of memory");
    }
    pl->cands = pl->all.cand;
    pl->ncands = pl->all.n;
    pl->table = pl->all.table;
}

/* --job N: the pricing shared by N ranks (share.h), run here rank by rank
 * with the exchanges in memory.  Only the ranks that price something in
 * some round get a state (on 65,536 ranks a few dozen); the others would
 * only read the exchanges, as the observer (rank -1) does, whose table is
 * the answer.  Each round's lengths and bytes are kept, so that with
 * `bench` every pricing rank is run again in a process of its own from
 * the same exchanges: its processor time and peak memory are then its
 * own, as on a node of the job. */
typedef struct {
    int rank;
    topo_share_t s;
    double cpu[TOPO_SHARE_ROUNDS]; /* its work and take per round, here */
} job_rank_t;

/* One rank's whole part, measured: begin, every round's work and take
 * from the kept exchanges, finish.  Its processor seconds and the peak
 * resident memory it added, KiB. */
static void job_rank_run(const plan_t *pl, int rank, int nranks,
                         int64_t len[][TOPO_SHARE_SLOTS], unsigned char **buf, double *cpu,
                         long *kib)
{
#ifdef __GLIBC__
    /* the heap the parent freed is still resident here: given back, so
     * that what this rank allocates shows in its peak */
    (void)malloc_trim(0);
#endif
    /* the peak a child starts with is the parent's at the fork: reset to
     * what is resident now (Linux 4.0 on), read back as VmHWM */
    FILE *cr = fopen("/proc/self/clear_refs", "w");
    const int reset = NULL != cr && fputs("5", cr) >= 0;
    if (NULL != cr && 0 != fclose(cr)) {
        die(1, "--job: /proc/self/clear_refs: %s", strerror(errno));
    }
    if (!reset) {
        die(1, "--job --bench-table needs /proc/self/clear_refs (Linux 4.0 or later) to measure "
               "a rank's peak memory");
    }
    const long rss0 = rss_kib();
    const double c0 = cpu_seconds();
    topo_share_t s;
    int64_t mine[TOPO_SHARE_SLOTS];
    (void)topo_share_begin(&s, &pl->args, pl->opclass, &pl->params, &pl->net, &pl->proto,
                           pl->prune, rank, nranks);
    for (int r = 0; r < TOPO_SHARE_ROUNDS; r++) {
        topo_share_work(&s, r, mine);
        topo_share_take(&s, r, len[r], buf[r]);
    }
    topo_candidates_t t;
    if (TOPO_OK == topo_share_finish(&s, &t)) {
        topo_candidates_free(&t);
    }
    topo_share_free(&s);
    *cpu = cpu_seconds() - c0;
    long peak = -1;
    FILE *st = fopen("/proc/self/status", "r");
    char line[256];
    while (NULL != st && NULL != fgets(line, sizeof(line), st) && peak < 0) {
        if (1 != sscanf(line, "VmHWM: %ld kB", &peak)) {
            peak = -1;
        }
    }
    if (NULL != st) {
        fclose(st);
    }
    *kib = rss0 >= 0 && peak >= 0 ? (peak > rss0 ? peak - rss0 : 0) : -1;
}

static void price_job(plan_t *pl, int nranks, int bench)
{
    int64_t len[TOPO_SHARE_ROUNDS][TOPO_SHARE_SLOTS], mine[TOPO_SHARE_SLOTS];
    unsigned char *buf[TOPO_SHARE_ROUNDS] = {NULL};
    double round_max[TOPO_SHARE_ROUNDS] = {0.0};
    topo_share_t obs; /* rank -1: prices nothing, reads every exchange */
    job_rank_t *rk = calloc(TOPO_SHARE_SLOTS * TOPO_SHARE_ROUNDS, sizeof(*rk));
    int nrk = 0;
    if (NULL == rk || TOPO_OK != topo_share_begin(&obs, &pl->args, pl->opclass, &pl->params,
                                                  &pl->net, &pl->proto, pl->prune, -1, nranks)) {
        die(1, "out of memory");
    }
    for (int r = 0; r < TOPO_SHARE_ROUNDS; r++) {
        topo_share_work(&obs, r, mine); /* the round's assignment */
        for (int i = 0; i < obs.nfit; i++) {
            const int o = topo_share_owner(&obs, r, i);
            int have = o < 0;
            for (int k = 0; k < nrk && !have; k++) {
                have = rk[k].rank == o;
            }
            if (have) {
                continue;
            }
            /* a rank that prices from this round on: its earlier rounds
             * replayed (it priced nothing in them) */
            job_rank_t *j = &rk[nrk++];
            j->rank = o;
            (void)topo_share_begin(&j->s, &pl->args, pl->opclass, &pl->params, &pl->net,
                                   &pl->proto, pl->prune, o, nranks);
            for (int q = 0; q < r; q++) {
                topo_share_work(&j->s, q, mine);
                topo_share_take(&j->s, q, len[q], buf[q]);
            }
        }
        memcpy(len[r], mine, sizeof(mine)); /* the observer's: zeros, its error flag */
        for (int k = 0; k < nrk; k++) {
            const double c0 = cpu_seconds();
            topo_share_work(&rk[k].s, r, mine);
            rk[k].cpu[r] = cpu_seconds() - c0;
            for (int x = 0; x < TOPO_SHARE_SLOTS; x++) {
                len[r][x] = mine[x] > len[r][x] ? mine[x] : len[r][x];
            }
        }
        const size_t total = topo_share_total(len[r]);
        if (0 != len[r][TOPO_SHARE_ERR] || SIZE_MAX == total ||
            NULL == (buf[r] = calloc(total > 0 ? total : 1, 1))) {
            die(1, "the shared pricing failed (out of memory?)");
        }
        for (int k = 0; k < nrk; k++) {
            topo_share_put(&rk[k].s, len[r], buf[r]);
        }
        topo_share_take(&obs, r, len[r], buf[r]);
        for (int k = 0; k < nrk; k++) {
            const double c0 = cpu_seconds();
            topo_share_take(&rk[k].s, r, len[r], buf[r]);
            rk[k].cpu[r] += cpu_seconds() - c0;
            round_max[r] = fmax(round_max[r], rk[k].cpu[r]);
        }
    }
    /* what each rank priced in rounds 1 and 2, for the report */
    char (*what)[160] = calloc((size_t)nrk + 1, sizeof(*what));
    if (NULL == what) {
        die(1, "out of memory");
    }
    for (int k = 0; k < nrk; k++) {
        for (int r = 1; r < TOPO_SHARE_ROUNDS; r++) {
            for (int i = 0; i < obs.nfit; i++) {
                if (topo_share_owner(&obs, r, i) == rk[k].rank) {
                    const size_t at = strlen(what[k]);
                    snprintf(what[k] + at, sizeof(what[k]) - at, "%s%s", at > 0 ? "," : "",
                             obs.fit[i]->name);
                }
            }
        }
    }
    if (TOPO_OK != topo_share_finish(&obs, &pl->all)) {
        die(1, "the shared pricing failed (out of memory?)");
    }
    topo_share_free(&obs);
    for (int k = 0; k < nrk; k++) {
        topo_share_free(&rk[k].s);
    }
    if (bench) {
        /* every pricing rank again, each in a child of its own, and one
         * rank that prices nothing (the cost of reading the exchanges) */
        double worst = 0.0, idle_cpu = 0.0;
        long worst_kib = 0, idle_kib = 0;
        int worst_rank = -1, idle = -1, worst_at = nrk, kib_at = nrk;
        for (int r = 0; r < nranks && idle < 0; r++) {
            int owns = 0;
            for (int k = 0; k < nrk && !owns; k++) {
                owns = rk[k].rank == r;
            }
            idle = owns ? -1 : r;
        }
        for (int k = 0; k <= nrk; k++) {
            const int rank = k < nrk ? rk[k].rank : idle;
            int fd[2];
            if (rank < 0 || 0 != pipe(fd)) {
                continue;
            }
            fflush(NULL);
            const pid_t pid = fork();
            if (0 == pid) {
                double c;
                long kib;
                close(fd[0]);
                job_rank_run(pl, rank, nranks, len, buf, &c, &kib);
                const ssize_t w = write(fd[1], &c, sizeof(c)) + write(fd[1], &kib, sizeof(kib));
                _exit(w == (ssize_t)(sizeof(c) + sizeof(kib)) ? 0 : 1);
            }
            close(fd[1]);
            double c = -1.0;
            long kib = -1;
            int st = 0;
            const int ok = pid > 0 && sizeof(c) == read(fd[0], &c, sizeof(c)) &&
                           sizeof(kib) == read(fd[0], &kib, sizeof(kib));
            close(fd[0]);
            if (pid > 0) {
                (void)waitpid(pid, &st, 0);
            }
            if (!ok || !WIFEXITED(st) || 0 != WEXITSTATUS(st)) {
                die(1, "--job: the process of rank %d failed", rank);
            }
            if (k == nrk) {
                idle_cpu = c;
                idle_kib = kib;
            } else if (c > worst || worst_rank < 0) {
                worst = c;
                worst_rank = rank;
                worst_at = k;
            }
            if (kib > worst_kib) {
                worst_kib = kib;
                kib_at = k;
            }
        }
        char idle_text[96] = "none";
        if (idle >= 0) {
            snprintf(idle_text, sizeof(idle_text), "%.3f s, +%.1f MiB", idle_cpu,
                     (double)idle_kib / 1024.0);
        }
        /* the first two numbers are what scale-bench.sh reads, as it reads
         * the single process's line */
        fprintf(stderr,
                "table per process: %.3f s processor time, peak resident +%.1f MiB (the worst "
                "of the %d of %d ranks that price: rank %d in time, pricing %s; in memory %s; a "
                "rank that prices nothing: %s; rounds bounds, light, heavy: %.3f + %.3f + %.3f "
                "s, the slowest rank of each)\n",
                worst, (double)worst_kib / 1024.0, nrk, nranks, worst_rank,
                '\0' != what[worst_at][0] ? what[worst_at] : "bounds only",
                '\0' != what[kib_at][0] ? what[kib_at] : "bounds only", idle_text, round_max[0],
                round_max[1], round_max[2]);
    }
    for (int r = 0; r < TOPO_SHARE_ROUNDS; r++) {
        free(buf[r]);
    }
    free(what);
    free(rk);
    pl->cands = pl->all.cand;
    pl->ncands = pl->all.n;
    pl->table = pl->all.table;
}

static int priced(const cand_t *c)
{
    return c->fits && TOPO_OK == c->rc;
}

static int pruned(const cand_t *c)
{
    return c->fits && TOPO_PRUNED == c->rc;
}

static double predict(const cand_t *c, double m)
{
    return topo_price_at(&c->price, (size_t)m);
}

/* The glue's choice: the decision table's; -1 if none fits. */
static int choose(const plan_t *pl, double m)
{
    return topo_decision_lookup(&pl->table, (size_t)m);
}

/* --rules: the decision table as a coll_topo_<primitive>_rules value, one
 * item per range (ranges without a candidate are left out: the component
 * decides those itself), in a group for the table's communicator size
 * (N@), checked by the component's own parser. */
static int print_rules(const plan_t *pl)
{
    const topo_decision_t *t = &pl->table;
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    if (NULL == f) {
        die(EXIT_FAILURE, "out of memory");
    }
    for (int k = 0; k < t->n; k++) {
        if (t->cand[k] < 0) {
            continue;
        }
        char lo[32], hi[32];
        topo_rules_format_size(t->lo[k], lo, sizeof(lo));
        topo_rules_format_size(k + 1 < t->n ? t->lo[k + 1] : SIZE_MAX, hi, sizeof(hi));
        if (0 == ftell(f)) { /* the table's communicator size */
            fprintf(f, "%d@", pl->args.size);
        } else {
            fputc(',', f);
        }
        fprintf(f, "%s-%s:%s", lo, hi, pl->cands[t->cand[k]].algo->name);
    }
    if (0 != fclose(f)) {
        free(out);
        die(EXIT_FAILURE, "out of memory");
    }
    topo_rules_t rules;
    char err[256];
    int rc = 0;
    if (0 == len) {
        fprintf(stderr, "%s: no algorithm fits %s on %s: no rules\n", prog,
                topo_prim_name(pl->args.prim), pl->topo_name);
        rc = 1;
    } else if (TOPO_OK != topo_rules_parse(out, pl->args.prim, &rules, err, sizeof(err))) {
        fprintf(stderr, "%s: the table does not make a valid rules value (%s): %s\n", prog, err,
                out);
        rc = 1;
    } else {
        printf("%s\n", out);
    }
    free(out);
    return rc;
}

static void print_table(const plan_t *pl)
{
    const int ports = topo_topology_ports(&pl->topo, pl->args.size);
    const int grid = topo_topology_size(&pl->topo) > 0;
    printf("%s on %s: %d ranks, %d port%s per rank%s\n", topo_prim_name(pl->args.prim),
           pl->topo_name, pl->args.size, ports, ports > 1 ? "s" : "",
           TOPO_OP_COMMUTATIVE == pl->opclass ? ""
           : TOPO_OP_ORDERED == pl->opclass ? ", non-commutative operation"
                                            : ", exactly associative operation");
    if (NULL != pl->placed_nodes) {
        const double ibeta = pl->net.intra_beta > 0 ? pl->net.intra_beta : pl->params.beta;
        printf("placed on nodes %s (ranks of one node: intra-host, alpha %g s, beta %g s/B, %g "
               "s/B for data written in the call)\n",
               pl->placed_nodes, pl->net.intra_alpha > 0 ? pl->net.intra_alpha : pl->params.alpha,
               ibeta, pl->net.intra_beta_written > 0 ? pl->net.intra_beta_written : ibeta);
    }
    printf("model: alpha %g s, beta %g s/B, gamma %g s/B, copy %g s/B, msg_overhead %g s, hop %g "
           "s, price_ranks %d; %s\n",
           pl->params.alpha, pl->params.beta, pl->params.gamma, pl->net.copy, pl->net.msg_overhead,
           pl->net.hop, pl->net.price_ranks,
           !grid              ? "every message on links of its own"
           : pl->net.no_links ? "ports only (--no-links)"
                              : TOPO_NET_GRAPH == pl->topo.kind
                                  ? "links shared under shortest-path routing"
                                  : "links shared under dimension-order routing");
    if (pl->proto.eager > 0.0) {
        printf("protocol: messages above %.0f bytes go by rendezvous, +%g s per step (+%g s "
               "if all its messages stay on nodes)\n",
               pl->proto.eager, pl->proto.rndv, pl->proto.rndv_intra);
    } else {
        printf("protocol: no eager/rendezvous switch (--eager-limit)\n");
    }
    printf("predicted time in us per payload M, * = chosen\n");
    int width = 12;
    printf("%-22s %6s", "algorithm", "steps");
    for (int k = 0; k < pl->nsizes; k++) {
        char b[32];
        format_bytes(pl->sizes[k], b, sizeof(b));
        printf(" %*s", width, b);
    }
    printf("\n");
    int chosen[MAX_SIZES];
    for (int k = 0; k < pl->nsizes; k++) {
        chosen[k] = choose(pl, pl->sizes[k]);
    }
    int npruned = 0;
    for (int i = 0; i < pl->ncands; i++) {
        const cand_t *c = &pl->cands[i];
        if (!priced(c) && !pruned(c)) {
            continue;
        }
        /* a pruned candidate: its bound, rank 0's steps */
        const topo_price_t *p = pruned(c) ? &c->bound : &c->price;
        npruned += pruned(c);
        printf("%-22s %6d", c->algo->name, p->depth);
        for (int k = 0; k < pl->nsizes; k++) {
            char v[48];
            snprintf(v, sizeof(v), "%s%.3f",
                     pruned(c)        ? ">"
                     : chosen[k] == i ? "*"
                                      : "",
                     topo_price_at(p, (size_t)pl->sizes[k]) * 1e6);
            printf(" %*s", width, v);
        }
        printf("\n");
    }
    if (npruned > 0) {
        char upto[48] = "";
        if (SIZE_MAX != pl->upto) {
            snprintf(upto, sizeof(upto), " up to %zu bytes", pl->upto);
        }
        printf("> = pruned, not priced: at least this (rank 0's schedule alone, without link "
               "sharing), above a priced candidate at every payload%s (--no-prune prices it)\n",
               upto);
    }
    int excluded = 0;
    for (int i = 0; i < pl->ncands; i++) {
        const cand_t *c = &pl->cands[i];
        if (!priced(c) && !pruned(c)) {
            printf("%s  %s: excluded (%s)\n", excluded++ ? "" : "excluded:\n", c->algo->name,
                   c->why);
        }
    }
    if (0 == pl->ncands) {
        printf("no %s algorithm in the catalog\n", topo_prim_name(pl->args.prim));
        return;
    }
    printf("decision table:\n");
    for (int k = 0; k < pl->table.n && pl->table.lo[k] <= pl->upto; k++) {
        const size_t last = topo_decision_range_last(&pl->table, k, pl->upto);
        char lo[32], hi[32] = "inf";
        format_bytes((double)pl->table.lo[k], lo, sizeof(lo));
        if (SIZE_MAX != last) {
            format_bytes((double)last, hi, sizeof(hi));
        }
        const int c = pl->table.cand[k];
        printf("  %12s - %-12s %s\n", lo, hi, c >= 0 ? pl->cands[c].algo->name : "none");
    }
    printf("chosen:\n");
    for (int k = 0; k < pl->nsizes; k++) {
        char b[32];
        format_bytes(pl->sizes[k], b, sizeof(b));
        if (chosen[k] < 0) {
            printf("  %-10s none (no candidate fits)\n", b);
        } else {
            const cand_t *c = &pl->cands[chosen[k]];
            printf("  %-10s %-20s %12.3f us\n", b, c->algo->name, predict(c, pl->sizes[k]) * 1e6);
        }
    }
}

/* --route: where the component sends a call of each payload (route.h),
 * with its verbose line's reason. */
static void print_route(const plan_t *pl)
{
    const topo_prim_t prim = pl->args.prim;
    const char *pn = topo_prim_name(prim);
    const size_t host = pl->one_host ? topo_route_host_limit(&pl->rp, pl->args.size) : 0;
    printf("route (as the component: forced %s, rules %s, coll_topo_handoff %s, previous "
           "module %s%s):\n",
           NULL != pl->rp.forced ? pl->rp.forced->name : "none",
           NULL != pl->rules_from ? pl->rules_from : "none", pl->two_ranks,
           pl->rp.previous_tuned ? "coll/tuned" : "not coll/tuned",
           pl->one_host ? ", the ranks share one host" : "");
    for (int k = 0; k < pl->nsizes; k++) {
        const size_t bytes = (size_t)pl->sizes[k];
        char b[32], why[256] = "", rng[96] = "", what[400];
        const topo_algo_t *algo = NULL;
        const topo_rule_t *rule = NULL;
        int by;
        format_bytes(pl->sizes[k], b, sizeof(b));
        if (topo_route_named(&pl->rp, &pl->args, pl->opclass, bytes, &algo, &by, &rule, why,
                             sizeof(why))) {
            if (NULL != rule) {
                topo_rules_format_rule(rule, rng, sizeof(rng));
            }
            if (TOPO_BY_FORCED == by) {
                snprintf(what, sizeof(what),
                         NULL != algo ? "forced by coll_topo_%s_algorithm"
                                      : "coll_topo_%s_algorithm=%s does not fit: %s",
                         pn, pl->rp.forced->name, why);
            } else if (rule->previous) {
                snprintf(what, sizeof(what), "rule %s of coll_topo_%s_rules gives the previous "
                         "module", rng, pn);
            } else if (NULL == algo) {
                snprintf(what, sizeof(what),
                         "rule %s of coll_topo_%s_rules gives %s for %zu bytes, which does not "
                         "fit: %s",
                         rng, pn, rule->algo->name, bytes, why);
            } else {
                snprintf(what, sizeof(what), "rule %s of coll_topo_%s_rules", rng, pn);
            }
        } else if (bytes < host) {
            topo_route_host_reason(what, sizeof(what), pl->args.size, prim, host);
        } else {
            const int c = choose(pl, pl->sizes[k]);
            if (c < 0) {
                snprintf(what, sizeof(what), "no algorithm fits");
            } else if (topo_route_two_ranks(&pl->rp, prim, pl->args.size, bytes,
                                            pl->cands[c].price.msgs,
                                            pl->cands[c].price.msg_steps)) {
                topo_route_two_ranks_reason(what, sizeof(what), pl->cands[c].algo->name,
                                            pl->rp.eager);
            } else {
                algo = pl->cands[c].algo;
                snprintf(what, sizeof(what), "auto: cheapest predicted for %zu bytes: %.3f us",
                         bytes, predict(&pl->cands[c], pl->sizes[k]) * 1e6);
            }
        }
        printf("  %-10s %-20s %s\n", b, NULL != algo ? algo->name : "previous", what);
    }
}

/* --- --dump -------------------------------------------------------------- */

static const char *kind_name(int kind)
{
    switch (kind) {
    case TOPO_XFER_SEND:
        return "send to";
    case TOPO_XFER_RECV_COPY:
        return "recv from";
    case TOPO_XFER_RECV_REDUCE:
        return "recv+reduce from";
    case TOPO_XFER_RECV_REDUCE_POST:
        return "recv+reduce(post) from";
    default:
        return "copy";
    }
}

static void print_ranges(const topo_range_t *ranges, const topo_xfer_t *x, int side)
{
    topo_range_iter_t it;
    topo_range_t r;
    topo_range_iter(&it, ranges, x, side);
    for (int i = 0; topo_range_next(&it, &r); i++) {
        printf("%s[%d", i ? "," : "", r.first);
        if (r.count > 1) {
            printf("-%d", r.first + r.count - 1);
        }
        printf("]");
    }
}

static size_t range_bytes(const topo_range_t *ranges, const size_t *off, const topo_xfer_t *x,
                          size_t elem)
{
    size_t b = 0;
    topo_range_iter_t it;
    topo_range_t r;
    for (topo_range_iter(&it, ranges, x, 0); topo_range_next(&it, &r);) {
        b += (off[r.first + r.count] - off[r.first]) * elem;
    }
    return b;
}

static int dump(const plan_t *pl, const char *name, int only)
{
    const topo_algo_t *algo = topo_catalog_find(pl->args.prim, name);
    if (NULL == algo) {
        fprintf(stderr, "%s: --dump: no %s algorithm '%s'; the catalog has:", prog,
                topo_prim_name(pl->args.prim), name);
        for (int i = 0; i < pl->ncands; i++) {
            fprintf(stderr, " %s", pl->cands[i].algo->name);
        }
        fputc('\n', stderr);
        return EXIT_USAGE;
    }
    char why[256];
    if (!topo_algo_fits(algo, &pl->args, pl->opclass, why, sizeof(why))) {
        printf("note: %s does not fit this call (%s); its schedule anyway:\n", name, why);
    }
    const int lo = only >= 0 ? only : 0, hi = only >= 0 ? only + 1 : pl->args.size;
    const int nr = hi - lo;
    topo_sched_t *sc = calloc((size_t)nr, sizeof(*sc));
    size_t **off = calloc((size_t)nr, sizeof(*off));
    if (NULL == sc || NULL == off) {
        die(1, "out of memory");
    }
    const double m = pl->sizes[pl->nsizes - 1];
    const size_t elem = 1; /* bytes of M: blocks split the bytes evenly */
    const size_t count = (size_t)m;
    int depth = 0, rc = TOPO_OK;
    for (int i = 0; i < nr; i++) {
        topo_gen_args_t a = pl->args;
        a.rank = lo + i;
        if (TOPO_OK != (rc = topo_algo_generate(algo, &a, &sc[i]))) {
            fprintf(stderr, "%s: --dump: %s cannot generate rank %d's schedule (error %d)\n", prog,
                    name, lo + i, rc);
            for (int j = 0; j < i; j++) {
                topo_sched_free(&sc[j]);
                free(off[j]);
            }
            free(sc);
            free(off);
            return 1;
        }
        off[i] = malloc(sizeof(size_t) * ((size_t)sc[i].nblocks + 1));
        if (NULL == off[i]) {
            die(1, "out of memory");
        }
        /* blocks of M / mblocks bytes (topo_sched_block_share): M is the
         * payload (alltoall: one rank's send buffer, half of its 2p blocks) */
        const size_t all =
            sc[i].mblocks > 0 && sc[i].mblocks != sc[i].nblocks
                ? (size_t)(m * topo_sched_block_share(&sc[i]) + 0.5) * (size_t)sc[i].nblocks
                : count;
        topo_block_layout(&sc[i], all, NULL, off[i]);
        int d = topo_sched_depth(&sc[i]);
        depth = d > depth ? d : depth;
    }
    topo_cost_step_t *st = NULL;
    int cdepth = 0;
    int crc = topo_cost_steps(algo, &pl->args, &pl->params, &pl->net, &st, &cdepth);
    char mb[32];
    format_bytes(m, mb, sizeof(mb));
    printf("schedule of %s %s on %s, %d ranks, %d blocks, %d lane(s), %d steps; bytes for M = %s\n",
           topo_prim_name(pl->args.prim), name, pl->topo_name, pl->args.size, sc[0].nblocks,
           sc[0].nlanes, depth, mb);
    /* the priced steps, lane by lane (cost.h: topo_cost_steps) */
    const int nlanes = TOPO_OK == crc && cdepth > 0 ? st[cdepth - 1].lane + 1 : 1;
    const int lsteps = cdepth / nlanes;
    for (int s = 0; s < depth; s++) {
        printf("step %d", s);
        for (int l = 0, shown = 0; TOPO_OK == crc && s < lsteps && l < nlanes; l++) {
            const topo_cost_step_t *e = &st[l * lsteps + s];
            if (nlanes > 1 && !e->active && 0.0 == e->lat + e->per_byte) {
                continue;
            }
            printf(nlanes > 1 ? "%s lane %d: " : ": ", shown++ > 0 ? ";" : "", l);
            printf("max hops %d, busiest port %.6g M, most loaded link %.6g M, %.3f us",
                   e->max_hops, e->port, e->link, (e->lat + e->per_byte * m) * 1e6);
        }
        printf("\n");
        for (int i = 0; i < nr; i++) {
            const topo_sched_t *sch = &sc[i];
            for (int l = 0; l < sch->nlanes; l++) {
                if (s >= sch->lanes[l].nsteps) {
                    continue;
                }
                topo_step_view_t v;
                topo_sched_step_at(sch, l, s, &v);
                if (0 == v.nxfers) {
                    continue;
                }
                printf("  rank %d lane %d:", sch->rank, l);
                for (int x = 0; x < v.nxfers; x++) {
                    const topo_range_t *rg;
                    const topo_xfer_t *t = topo_step_xfer(&v, x, &rg);
                    printf("%s %s", x ? ";" : "", kind_name(t->kind));
                    if (t->kind == TOPO_XFER_COPY) {
                        printf(" ");
                        print_ranges(rg, t, 1);
                        printf(" ->");
                    } else {
                        printf(" %d", t->peer);
                    }
                    printf(" ");
                    print_ranges(rg, t, 0);
                    printf(" %zu B", range_bytes(rg, off[i], t, elem));
                    if (t->kind != TOPO_XFER_COPY) {
                        int h = topo_topology_hops(&pl->topo, sch->rank, t->peer);
                        printf(" %d hop%s", h, 1 == h ? "" : "s");
                    }
                }
                printf("\n");
            }
        }
    }
    if (TOPO_OK == crc) {
        double lat = 0, pb = 0;
        for (int l = 0; l < nlanes && nlanes > 1; l++) {
            topo_cost_total(st + l * lsteps, lsteps, &lat, &pb);
            printf("lane %d: %.6g s + %.6g s/B * M = %.3f us at M = %s\n", l, lat, pb,
                   (lat + pb * m) * 1e6, mb);
        }
        topo_cost_total(st, cdepth, &lat, &pb);
        printf("predicted: %.6g s + %.6g s/B * M = %.3f us at M = %s%s\n", lat, pb,
               (lat + pb * m) * 1e6, mb,
               nlanes > 1 ? " (the lanes' largest latency and largest per-byte term)" : "");
    }
    free(st);
    for (int i = 0; i < nr; i++) {
        topo_sched_free(&sc[i]);
        free(off[i]);
    }
    free(sc);
    free(off);
    return 0;
}

/* --- --plot -------------------------------------------------------------- */

static int plot(const plan_t *pl, const char *file)
{
    const char *dot = strrchr(file, '.');
    const char *term;
    if (NULL != dot && 0 == strcmp(dot, ".png")) {
        term = "pngcairo size 1000,700";
    } else if (NULL != dot && 0 == strcmp(dot, ".svg")) {
        term = "svg size 1000,700 dynamic";
    } else {
        die(EXIT_USAGE, "--plot: '%s' must end in .png or .svg", file);
    }
    size_t stem = (size_t)(dot - file);
    char *gp = malloc(stem + 8), *dat = malloc(stem + 8);
    if (NULL == gp || NULL == dat) {
        die(1, "out of memory");
    }
    snprintf(gp, stem + 8, "%.*s.gp", (int)stem, file);
    snprintf(dat, stem + 8, "%.*s.dat", (int)stem, file);

    double lo = pl->sizes[0], hi = pl->sizes[0];
    for (int k = 1; k < pl->nsizes; k++) {
        lo = pl->sizes[k] < lo ? pl->sizes[k] : lo;
        hi = pl->sizes[k] > hi ? pl->sizes[k] : hi;
    }
    lo = lo < 1 ? 1 : lo;
    if (hi < lo * 64) {
        hi = lo * 64;
    }
    FILE *f = fopen(dat, "w");
    if (NULL == f) {
        die(1, "--plot: cannot write %s: %s", dat, strerror(errno));
    }
    fprintf(f, "# %s on %s, %d ranks: predicted time (us) vs payload (bytes)\n\"M\"",
            topo_prim_name(pl->args.prim), pl->topo_name, pl->args.size);
    int ncols = 0;
    for (int i = 0; i < pl->ncands; i++) {
        if (priced(&pl->cands[i])) {
            fprintf(f, " \"%s\"", pl->cands[i].algo->name);
            ncols++;
        }
    }
    fprintf(f, " \"chosen\"\n");
    for (double m = lo; m <= hi * 1.0001; m *= pow(2.0, 0.25)) {
        fprintf(f, "%.6g", m);
        for (int i = 0; i < pl->ncands; i++) {
            if (priced(&pl->cands[i])) {
                fprintf(f, " %.6g", predict(&pl->cands[i], m) * 1e6);
            }
        }
        int c = choose(pl, m);
        fprintf(f, " %.6g\n", c >= 0 ? predict(&pl->cands[c], m) * 1e6 : NAN);
    }
    fclose(f);
    if (0 == ncols) {
        die(1, "--plot: no algorithm fits: nothing to plot");
    }

    f = fopen(gp, "w");
    if (NULL == f) {
        die(1, "--plot: cannot write %s: %s", gp, strerror(errno));
    }
    fprintf(f,
            "# written by topo-plan; run: gnuplot %s\n"
            "set terminal %s\n"
            "set output '%s'\n"
            "set title \"%s on %s, %d ranks (alpha %g s, beta %g s/B, gamma %g s/B, hop %g s)\" "
            "noenhanced\n"
            "set logscale x 2\n"
            "set logscale y\n"
            "set xlabel 'payload M (bytes)'\n"
            "set ylabel 'predicted time (us)'\n"
            "set format x '2^{%%L}'\n"
            "set grid\n"
            "set key outside right top noenhanced\n"
            "plot",
            gp, term, file, topo_prim_name(pl->args.prim), pl->topo_name, pl->args.size,
            pl->params.alpha, pl->params.beta, pl->params.gamma, pl->net.hop);
    /* gnuplot has 8 default colours: dashed lines after them */
    for (int j = 2; j <= ncols + 1; j++) {
        fprintf(f, " '%s' using 1:%d with lines lw 2 dt %d title columnheader(%d), \\\n    ", dat,
                j, j < 10 ? 1 : 4, j);
    }
    fprintf(f, " '%s' using 1:%d with lines lw 6 dt 2 lc rgb '#80000000' title 'chosen'\n", dat,
            ncols + 2);
    fclose(f);
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        die(1, "--plot: fork: %s", strerror(errno));
    }
    if (0 == pid) {
        execlp("gnuplot", "gnuplot", gp, (char *)NULL);
        _exit(127);
    }
    int status;
    if (waitpid(pid, &status, 0) < 0) {
        die(1, "--plot: waitpid: %s", strerror(errno));
    }
    if (WIFEXITED(status) && 127 == WEXITSTATUS(status)) {
        fprintf(stderr,
                "%s: --plot: cannot run gnuplot (Debian: apt-get install gnuplot-nox); "
                "the script is %s\n",
                prog, gp);
        free(gp);
        free(dat);
        return 1;
    }
    if (!WIFEXITED(status) || 0 != WEXITSTATUS(status)) {
        fprintf(stderr, "%s: --plot: gnuplot %s failed\n", prog, gp);
        free(gp);
        free(dat);
        return 1;
    }
    printf("plot: %s (gnuplot script %s, data %s)\n", file, gp, dat);
    free(gp);
    free(dat);
    return 0;
}

/* --- catalog ------------------------------------------------------------- */

/* The README's algorithm table, straight from the catalog. */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* --bench-schedules: one rank's schedule per algorithm, as the component
 * generates it at a communicator's first call of the primitive: the least
 * processor time of up to 20 runs (at most about 0.2 s of them: a loaded
 * machine slows the wall clock, not the processor time) and the bytes the
 * schedule holds (its arrays as allocated: topo_sched_bytes); steps are the
 * logical steps over the lanes, stored the steps it holds (topo_sched_repeat). */
static int bench_schedules(const plan_t *pl)
{
    int n, rc = 0;
    const topo_algo_t *cat = topo_catalog(&n);
    printf("one rank's schedule on %s, %d ranks (rank 0; target 2 ms and 1 MiB)\n",
           pl->topo_name, pl->args.size);
    printf("%-15s %-24s %8s %8s %9s %9s %10s %10s  %s\n", "primitive", "algorithm", "steps",
           "stored", "transfers", "ranges", "ms", "KiB", "within");
    for (int i = 0; i < n; i++) {
        topo_gen_args_t a = pl->args;
        a.prim = cat[i].prim;
        char why[256];
        if (!topo_algo_fits(&cat[i], &a, TOPO_OP_EXACT, why, sizeof(why))) {
            continue;
        }
        double best = -1.0, spent = 0.0;
        topo_sched_t s;
        for (int rep = 0; rep < 20 && spent < 0.2; rep++) {
            const double t0 = now();
            if (TOPO_OK != topo_algo_generate(&cat[i], &a, &s)) {
                fprintf(stderr, "%s: %s %s: the schedule fails\n", prog,
                        topo_prim_name(cat[i].prim), cat[i].name);
                rc = 1;
                break;
            }
            const double t = now() - t0;
            spent += t;
            best = best < 0.0 || t < best ? t : best;
            if (rep + 1 < 20 && spent < 0.2) {
                topo_sched_free(&s);
            }
        }
        if (best < 0.0) {
            continue;
        }
        const size_t bytes = topo_sched_bytes(&s);
        long steps = 0; /* logical, over the lanes */
        for (int l = 0; l < s.nlanes; l++) {
            steps += s.lanes[l].nsteps;
        }
        printf("%-15s %-24s %8ld %8d %9d %9d %10.3f %10.1f  %s\n", topo_prim_name(cat[i].prim),
               cat[i].name, steps, s.nsteps, s.nxfers, s.nranges, best * 1e3, bytes / 1024.0,
               best <= 2e-3 && bytes <= ((size_t)1 << 20) ? "yes" : "no");
        topo_sched_free(&s);
    }
    return rc;
}

static void print_catalog(void)
{
    int n;
    const topo_algo_t *t = topo_catalog(&n);
    printf("| primitive | algorithm | restrictions | what it does | source |\n");
    printf("|---|---|---|---|---|\n");
    for (int i = 0; i < n; i++) {
        char restr[128] = "";
        if (t[i].flags & TOPO_ALG_COMMUTATIVE) {
            strcat(restr, "commutative ops");
        }
        if (t[i].flags & TOPO_ALG_DIRECT) {
            strcat(restr, restr[0] ? "; torus/mesh/graph of the comm's size"
                                   : "torus/mesh/graph of the comm's size");
        }
        if (t[i].flags & TOPO_ALG_GRID) {
            strcat(restr, restr[0] ? "; torus/mesh of the comm's size" : "torus/mesh of the comm's size");
        }
        if (t[i].flags & TOPO_ALG_RANK_TREES) {
            strcat(restr, restr[0] ? "; exact ops where ranks combine in their own orders"
                                   : "exact ops where ranks combine in their own orders");
        }
        printf("| %s | `%s` | %s | %s | %s |\n", topo_prim_name(t[i].prim), t[i].name,
               restr[0] ? restr : "none", t[i].summary, t[i].source);
    }
}

/* --- main ---------------------------------------------------------------- */

int main(int argc, char **argv)
{
    const char *topology = NULL, *primitive = "allreduce", *sizes = "8,1k,64k,1M,16M";
    const char *dump_algo = NULL, *plot_file = NULL;
    int rules = 0;       /* --rules */
    int bench_table = 0; /* --bench-table */
    int job = 0;         /* --job: ranks that share the pricing (0: one process) */
    int bench = 0;       /* --bench-schedules */
    int sizes_given = 0; /* --sizes */
    long size = 0, rank = -1, root = 0;
    double rndv = -1.0;
    topo_btl_info_t btl = {.name = "btl"}; /* --btl-* */
    int alpha_given = 0, beta_given = 0, eager_given = 0;
    const char *nodes = NULL;
    const char *algorithm = NULL, *rules_value = NULL, *rules_file = NULL;
    const char *handoff = TOPO_ROUTE_TWO_RANKS_DEFAULT, *host_handoff = TOPO_ROUTE_HOST_DEFAULT;
    char *rules_text = NULL;
    int *place = NULL;
    plan_t pl;
    memset(&pl, 0, sizeof(pl));
    pl.rp.previous_tuned = 1;
    pl.params.alpha = TOPO_COST_ALPHA;
    pl.params.beta = TOPO_COST_BETA;
    pl.params.gamma = TOPO_COST_GAMMA;
    pl.net.copy = TOPO_COST_COPY;
    pl.net.msg_overhead = TOPO_COST_MSG_OVERHEAD;
    pl.net.price_ranks = 256;
    pl.net.intra_alpha = TOPO_COST_INTRA_ALPHA;
    pl.net.intra_beta = TOPO_COST_INTRA_BETA;
    pl.net.intra_beta_written = TOPO_COST_INTRA_BETA_WRITTEN;
    pl.opclass = TOPO_OP_COMMUTATIVE;
    pl.prune = 1;
    pl.upto = SIZE_MAX;

    for (int i = 1; i < argc; i++) {
        const char *opt = argv[i], *val = NULL;
        char name[32];
        const char *eq = strchr(opt, '=');
        if (0 == strncmp(opt, "--", 2) && NULL != eq && (size_t)(eq - opt) < sizeof(name)) {
            memcpy(name, opt, (size_t)(eq - opt));
            name[eq - opt] = '\0';
            opt = name;
            val = eq + 1;
        }
        if (0 == strcmp(opt, "-h") || 0 == strcmp(opt, "--help")) {
            usage(stdout);
            return 0;
        }
        if (0 == strcmp(opt, "--catalog")) {
            print_catalog();
            return 0;
        }
        if (0 == strcmp(opt, "--non-commutative")) {
            pl.opclass = TOPO_OP_ORDERED;
            continue;
        }
        if (0 == strcmp(opt, "--exact")) {
            pl.opclass = TOPO_OP_EXACT;
            continue;
        }
        if (0 == strcmp(opt, "--no-links")) {
            pl.net.no_links = 1;
            continue;
        }
        if (0 == strcmp(opt, "--no-prune")) {
            pl.prune = 0;
            continue;
        }
        if (0 == strcmp(opt, "--rules")) {
            rules = 1;
            continue;
        }
        if (0 == strcmp(opt, "--bench-schedules")) {
            bench = 1;
            continue;
        }
        if (0 == strcmp(opt, "--bench-table")) {
            bench_table = 1;
            continue;
        }
        if (0 == strcmp(opt, "--first-stage")) {
            pl.upto = TOPO_PRICE_FIRST_STAGE;
            continue;
        }
        if (0 == strcmp(opt, "--route")) {
            pl.route = 1;
            continue;
        }
        static const char *const with_value[] = {
            "--topology",    "--size",       "--primitive",    "--sizes",
            "--alpha",       "--beta",       "--gamma",        "--hop",
            "--root",        "--dump",       "--rank",         "--plot",
            "--eager-limit", "--rndv-alpha", "--nodes",        "--intra-alpha",
            "--intra-beta",  "--copy",       "--msg-overhead", "--intra-beta-written",
            "--price-ranks", "--algorithm",  "--use-rules",    "--rules-file",
            "--handoff",     "--host-handoff", "--previous",   "--btl-bandwidth",
            "--btl-latency", "--btl-eager-limit", "--job"};
        int known = 0;
        for (size_t k = 0; k < sizeof(with_value) / sizeof(with_value[0]); k++) {
            known = known || 0 == strcmp(opt, with_value[k]);
        }
        if (!known) {
            fprintf(stderr, "%s: unknown option '%s'\n", prog, argv[i]);
            usage(stderr);
            return EXIT_USAGE;
        }
        if (NULL == val) {
            if (i + 1 >= argc) {
                die(EXIT_USAGE, "%s needs a value", opt);
            }
            val = argv[++i];
        }
        if (0 == strcmp(opt, "--topology")) {
            topology = val;
        } else if (0 == strcmp(opt, "--size")) {
            size = parse_int(opt, val, 1, 1L << 24);
        } else if (0 == strcmp(opt, "--primitive")) {
            primitive = val;
        } else if (0 == strcmp(opt, "--sizes")) {
            sizes = val;
            sizes_given = 1;
        } else if (0 == strcmp(opt, "--alpha")) {
            pl.params.alpha = parse_double(opt, val);
            alpha_given = 1;
        } else if (0 == strcmp(opt, "--beta")) {
            pl.params.beta = parse_double(opt, val);
            beta_given = 1;
        } else if (0 == strcmp(opt, "--btl-bandwidth")) {
            btl.bandwidth = parse_double(opt, val);
        } else if (0 == strcmp(opt, "--btl-latency")) {
            btl.latency = parse_double(opt, val);
        } else if (0 == strcmp(opt, "--btl-eager-limit")) {
            btl.eager_limit = parse_bytes(val);
        } else if (0 == strcmp(opt, "--gamma")) {
            pl.params.gamma = parse_double(opt, val);
        } else if (0 == strcmp(opt, "--hop")) {
            pl.net.hop = parse_double(opt, val);
        } else if (0 == strcmp(opt, "--copy")) {
            pl.net.copy = parse_double(opt, val);
        } else if (0 == strcmp(opt, "--msg-overhead")) {
            pl.net.msg_overhead = parse_double(opt, val);
        } else if (0 == strcmp(opt, "--price-ranks")) {
            pl.net.price_ranks = (int)parse_int(opt, val, 0, 1L << 24);
        } else if (0 == strcmp(opt, "--job")) {
            job = (int)parse_int(opt, val, 1, 1L << 24);
        } else if (0 == strcmp(opt, "--root")) {
            root = parse_int(opt, val, 0, 1L << 24);
        } else if (0 == strcmp(opt, "--dump")) {
            dump_algo = val;
        } else if (0 == strcmp(opt, "--nodes")) {
            nodes = val;
        } else if (0 == strcmp(opt, "--intra-alpha")) {
            pl.net.intra_alpha = parse_double(opt, val);
        } else if (0 == strcmp(opt, "--intra-beta")) {
            pl.net.intra_beta = parse_double(opt, val);
        } else if (0 == strcmp(opt, "--intra-beta-written")) {
            pl.net.intra_beta_written = parse_double(opt, val);
        } else if (0 == strcmp(opt, "--eager-limit")) {
            pl.proto.eager = parse_bytes(val);
            eager_given = 1;
        } else if (0 == strcmp(opt, "--rndv-alpha")) {
            rndv = parse_double(opt, val);
        } else if (0 == strcmp(opt, "--rank")) {
            rank = parse_int(opt, val, 0, 1L << 24);
        } else if (0 == strcmp(opt, "--algorithm")) {
            algorithm = val;
            pl.route = 1;
        } else if (0 == strcmp(opt, "--use-rules") || 0 == strcmp(opt, "--rules-file")) {
            if (NULL != rules_value || NULL != rules_file) {
                die(EXIT_USAGE, "one of --use-rules and --rules-file");
            }
            *(0 == strcmp(opt, "--use-rules") ? &rules_value : &rules_file) = val;
            pl.route = 1;
        } else if (0 == strcmp(opt, "--handoff")) {
            handoff = val;
            pl.route = 1;
        } else if (0 == strcmp(opt, "--host-handoff")) {
            host_handoff = val;
            pl.route = 1;
        } else if (0 == strcmp(opt, "--previous")) {
            if (0 != strcmp(val, "tuned") && 0 != strcmp(val, "other")) {
                die(EXIT_USAGE, "--previous: tuned or other, not '%s'", val);
            }
            pl.rp.previous_tuned = 0 == strcmp(val, "tuned");
            pl.route = 1;
        } else {
            plot_file = val;
        }
    }

    if (NULL == topology) {
        fprintf(stderr, "%s: --topology is required\n", prog);
        usage(stderr);
        return EXIT_USAGE;
    }
    char err[256];
    if (TOPO_OK != topo_topology_parse(topology, &pl.topo, err, sizeof(err))) {
        die(EXIT_USAGE, "--topology: %s", err);
    }
    if (TOPO_NET_AUTO == pl.topo.kind) {
        die(EXIT_USAGE, "--topology: 'auto' is resolved by the component at run time; give "
                        "star, fullmesh, torus:..., mesh:... or graph:FILE");
    }
    topo_topology_format(&pl.topo, pl.topo_name, sizeof(pl.topo_name));
    int grid = topo_topology_size(&pl.topo);
    if (NULL != nodes) {
        if (0 == grid && TOPO_NET_STAR != pl.topo.kind) {
            die(EXIT_USAGE, "--nodes needs a torus, mesh or star --topology");
        }
        if (size > 0) {
            die(EXIT_USAGE, "--nodes gives the communicator's size: no --size with it");
        }
        place = parse_nodes(nodes, grid, &size);
        pl.topo.place = place;
        pl.placed_nodes = nodes;
    } else if (grid > 0) {
        if (size > 0 && size != grid) {
            die(EXIT_USAGE,
                "--size %ld: %s describes %d ranks (coll/topo would price a communicator of "
                "another size as a star)",
                size, pl.topo_name, grid);
        }
        size = grid;
    } else if (0 == size) {
        die(EXIT_USAGE, "--size is required with --topology %s", pl.topo_name);
    }
    int prim = -1;
    for (int p = 0; p < TOPO_PRIM_COUNT; p++) {
        if (0 == strcmp(primitive, topo_prim_name((topo_prim_t)p))) {
            prim = p;
        }
    }
    if (prim < 0) {
        fprintf(stderr, "%s: --primitive: unknown primitive '%s'; one of:", prog, primitive);
        for (int p = 0; p < TOPO_PRIM_COUNT; p++) {
            fprintf(stderr, " %s", topo_prim_name((topo_prim_t)p));
        }
        fputc('\n', stderr);
        return EXIT_USAGE;
    }
    if (root >= size) {
        die(EXIT_USAGE, "--root %ld: only %ld ranks", root, size);
    }
    if (rank >= size) {
        die(EXIT_USAGE, "--rank %ld: only %ld ranks", rank, size);
    }
    if (rank >= 0 && NULL == dump_algo) {
        die(EXIT_USAGE, "--rank goes with --dump");
    }
    if (bench_table && !rules) {
        die(EXIT_USAGE, "--bench-table measures --rules' table: with --rules only");
    }
    if (rules && (NULL != dump_algo || NULL != plot_file)) {
        die(EXIT_USAGE, "--rules prints the table alone: not with --dump or --plot");
    }
    if (SIZE_MAX != pl.upto && (rules || NULL != plot_file || !pl.prune)) {
        die(EXIT_USAGE,
            "--first-stage prices for payloads up to %zu bytes: not with --rules, "
            "--plot or --no-prune",
            pl.upto);
    }
    if (SIZE_MAX != pl.upto && !sizes_given) {
        sizes = "8,1k,4k";
    }
    pl.nsizes = parse_sizes(sizes, pl.sizes);
    for (int k = 0; k < pl.nsizes; k++) {
        if (pl.sizes[k] > (double)pl.upto) {
            die(EXIT_USAGE, "--first-stage prices for payloads up to %zu bytes: --sizes %s",
                pl.upto, sizes);
        }
    }
    pl.args.prim = (topo_prim_t)prim;
    pl.args.size = (int)size;
    pl.args.rank = 0;
    pl.args.root = (int)root;
    pl.args.topo = &pl.topo;

    topo_btl_costs_t from_btl;
    if (topo_btl_costs(&btl, 1, TOPO_BTL_EAGER_HEADERS, &from_btl)) {
        pl.params.alpha = alpha_given || from_btl.alpha < 0.0 ? pl.params.alpha : from_btl.alpha;
        pl.params.beta = beta_given || from_btl.beta < 0.0 ? pl.params.beta : from_btl.beta;
        pl.proto.eager = eager_given || from_btl.eager < 0.0 ? pl.proto.eager : from_btl.eager;
    }
    pl.proto.rndv = rndv >= 0.0 ? rndv : 2.0 * pl.params.alpha;
    pl.proto.rndv_intra = rndv >= 0.0                ? rndv
                          : pl.net.intra_alpha > 0.0 ? pl.net.intra_alpha
                                                     : 2.0 * pl.params.alpha;
    if (pl.route) {
        if (NULL != dump_algo || rules) {
            die(EXIT_USAGE, "--route and its options go with the table: not with --dump or "
                            "--rules");
        }
        /* the component's parameters of this primitive (route.h) */
        if (NULL != algorithm && 0 != strcmp(algorithm, "auto") &&
            NULL == (pl.rp.forced = topo_catalog_find((topo_prim_t)prim, algorithm))) {
            die(EXIT_USAGE, "--algorithm: %s has no algorithm '%s' (topo-plan --catalog)",
                primitive, algorithm);
        }
        if (NULL != rules_file) {
            FILE *f = fopen(rules_file, "r");
            size_t len = 0;
            if (NULL == f || getdelim(&rules_text, &len, '\0', f) < 0) {
                die(EXIT_USAGE, "--rules-file %s: %s", rules_file,
                    NULL == f ? strerror(errno) : "empty or unreadable");
            }
            fclose(f);
            rules_text[strcspn(rules_text, "\r\n")] = '\0'; /* its first line */
            rules_value = rules_text;
        }
        if (NULL != rules_value && '\0' != rules_value[0]) {
            char rerr[256];
            if (TOPO_OK != topo_rules_parse(rules_value, (topo_prim_t)prim, &pl.rules, rerr,
                                            sizeof(rerr))) {
                die(EXIT_USAGE, "%s: %s", NULL != rules_file ? "--rules-file" : "--use-rules",
                    rerr);
            }
            pl.rp.rules = pl.rules.n > 0 ? &pl.rules : NULL;
            pl.rules_from = NULL != rules_file ? rules_file : "--use-rules";
        }
        char perr[256];
        pl.two_ranks = handoff;
        if (TOPO_OK != topo_prim_set_parse(handoff, &pl.rp.two_ranks, perr, sizeof(perr))) {
            die(EXIT_USAGE, "--handoff: %s", perr);
        }
        size_t lim[TOPO_PRIM_COUNT];
        if (TOPO_OK != topo_prim_limits_parse(host_handoff, lim, perr, sizeof(perr))) {
            die(EXIT_USAGE, "--host-handoff: %s", perr);
        }
        pl.rp.host_limit = lim[prim];
        pl.rp.eager = pl.proto.eager > 0.0 && pl.proto.rndv > 0.0 ? pl.proto.eager : 0.0;
        /* coll_topo_locality's star on one host */
        pl.one_host = TOPO_NET_STAR == pl.topo.kind && NULL != place;
        for (long r = 1; pl.one_host && r < size; r++) {
            pl.one_host = place[r] == place[0];
        }
    }
    if (bench) {
        const int brc = bench_schedules(&pl);
        free(place);
        return brc;
    }
    if (job > 0 && SIZE_MAX != pl.upto) {
        die(EXIT_USAGE, "--job prices the table of every payload (one stage): not with "
                        "--first-stage");
    }
    if (job > 0 && NULL != dump_algo) {
        die(EXIT_USAGE, "--job prices the table: not with --dump");
    }
    const long rss0 = rss_kib();
    const double cpu0 = cpu_seconds();
    if (job > 0) {
        price_job(&pl, job, bench_table);
    } else {
        price(&pl);
    }
    if (bench_table && 0 == job) {
        struct rusage ru;
        const double cpu = cpu_seconds() - cpu0;
        const long peak = 0 == getrusage(RUSAGE_SELF, &ru) ? ru.ru_maxrss : -1;
        if (rss0 >= 0 && peak >= 0) {
            fprintf(stderr, "table: %.3f s processor time, peak resident +%.1f MiB (%.1f MiB)\n",
                    cpu, (double)(peak > rss0 ? peak - rss0 : 0) / 1024.0, peak / 1024.0);
        } else {
            fprintf(stderr, "table: %.3f s processor time, peak resident unknown\n", cpu);
        }
    }
    int rc = 0;
    if (NULL != dump_algo) {
        rc = dump(&pl, dump_algo, (int)rank);
    } else if (rules) {
        rc = print_rules(&pl);
    } else {
        print_table(&pl);
        if (pl.route) {
            print_route(&pl);
        }
    }
    if (0 == rc && NULL != plot_file) {
        rc = plot(&pl, plot_file);
    }
    topo_candidates_free(&pl.all);
    free(place);
    free(rules_text);
    return rc;
}
