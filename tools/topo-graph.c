/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * topo-graph: direct-connect topologies as graph: files, their (latency,
 * bandwidth) trade-offs, and the topology for a workload (Zhao et al.,
 * "Efficient Direct-Connect Topologies for Collective Communications",
 * 2025, sec. 4-7).  No MPI: the core's graph families (graph.h), its bfb
 * generator and its cost model and decision (cost.h, decision.h) do all
 * the work; this file only composes graphs and prints.
 *
 * Graph specifications (SPEC):
 *   circulant:N:S1,S2,...   C(N, {S1, ...}), bidirectional
 *   kautz:N:D               generalized Kautz of degree D on N ranks
 *   torus:AxBx...           the Cartesian product of rings (A, B >= 3)
 *   line(SPEC)              the line-graph expansion of SPEC
 *   degree(SPEC,K)          the degree expansion of SPEC by K
 *   product(SPEC,SPEC)      the Cartesian product
 *   graph:FILE              an edge list (graph.h)
 */
#include "catalog.h"
#include "cost.h"
#include "decision.h"
#include "graph.h"
#include "schedule.h"
#include "topology.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXIT_USAGE 2

static const char *prog = "topo-graph";

static void usage(FILE *f)
{
    fprintf(f,
            "usage: %s write SPEC [-o FILE]     the graph as a graph: file (default stdout)\n"
            "       %s info SPEC                ranks, degree, diameter, bfb's bandwidth term\n"
            "       %s catalog N D              candidate topologies of N ranks and degree D:\n"
            "                                   steps (diameter) and bfb's bandwidth term\n"
            "       %s choose N D SIZE [--primitive allreduce|allgather|reduce_scatter]\n"
            "                                   [--alpha A] [--beta B] [--gamma G] [--hop H]\n"
            "                                   [--copy C]\n"
            "                                   the candidates ranked by the predicted time of\n"
            "                                   their best algorithm for a payload of SIZE bytes\n"
            "                                   (suffixes k, M, G: x1024)\n"
            "\n"
            "SPEC: circulant:N:S1,S2,...  kautz:N:D  torus:AxB...  line(SPEC)  degree(SPEC,K)\n"
            "      product(SPEC,SPEC)  graph:FILE\n"
            "\n"
            "The bandwidth term is the cost model's per-byte time of the bfb allgather with\n"
            "one unit of time per byte on a link, in units of the payload M: the bound for\n"
            "N ranks of degree D is (N - 1) / (N D).  Latency: bfb takes diameter steps.\n"
            "choose prices every algorithm of the primitive that fits each topology with\n"
            "the cost model of coll/topo (topo-plan's defaults), except --hop, the time per\n"
            "link a message crosses beyond the first: by default alpha, as hosts forward\n"
            "the messages of a direct-connect network (0: a switch-like fabric).\n",
            prog, prog, prog, prog);
}

/* Where a candidate of the catalog that does not build goes (NULL: die
 * exits). */
static jmp_buf *skip;

static void die(int code, const char *fmt, ...)
{
    if (NULL != skip) {
        longjmp(*skip, 1);
    }
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", prog);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(code);
}

/* ---- specifications ---- */

static topo_graph_t *parse_spec(const char **p);

static long number(const char **p)
{
    if (!isdigit((unsigned char)**p)) {
        die(EXIT_USAGE, "expected a number at '%s'", *p);
    }
    errno = 0;
    char *end;
    long v = strtol(*p, &end, 10);
    if (errno || v > TOPO_GRAPH_MAX_NODES) {
        die(EXIT_USAGE, "number too large at '%s'", *p);
    }
    *p = end;
    return v;
}

static void expect(const char **p, char c)
{
    if (**p != c) {
        die(EXIT_USAGE, "expected '%c' at '%s'", c, *p);
    }
    (*p)++;
}

static void checked(int rc, const char *err)
{
    if (TOPO_OK != rc) {
        die(EXIT_USAGE, "%s", err);
    }
}

static topo_graph_t *ring(int n)
{
    char err[256];
    const int one = 1;
    topo_graph_t *g = NULL;
    checked(topo_graph_circulant(n, &one, 1, &g, err, sizeof(err)), err);
    return g;
}

/* A copy of a registry graph (the registry keeps its own). */
static topo_graph_t *copy_graph(const topo_graph_t *a)
{
    char err[256];
    topo_graph_t *g = NULL;
    checked(topo_graph_build(a->n, a->m, a->src, a->dst, a->bw, a->name, &g, err, sizeof(err)),
            err);
    return g;
}

static topo_graph_t *parse_spec(const char **p)
{
    char err[512];
    topo_graph_t *g = NULL, *a, *b;
    if (0 == strncmp(*p, "circulant:", 10)) {
        *p += 10;
        const int n = (int)number(p);
        int off[TOPO_GRAPH_MAX_DEGREE], k = 0;
        expect(p, ':');
        do {
            if (k == TOPO_GRAPH_MAX_DEGREE) {
                die(EXIT_USAGE, "too many offsets");
            }
            off[k++] = (int)number(p);
        } while (',' == **p && isdigit((unsigned char)(*p)[1]) && (*p)++);
        checked(topo_graph_circulant(n, off, k, &g, err, sizeof(err)), err);
        return g;
    }
    if (0 == strncmp(*p, "kautz:", 6)) {
        *p += 6;
        const int n = (int)number(p);
        expect(p, ':');
        const int d = (int)number(p);
        checked(topo_graph_kautz(n, d, &g, err, sizeof(err)), err);
        return g;
    }
    if (0 == strncmp(*p, "torus:", 6)) {
        *p += 6;
        g = NULL;
        for (;;) {
            const int n = (int)number(p);
            if (n < 3) {
                die(EXIT_USAGE, "torus: rings of at least 3 (a ring of 2 has one link each way)");
            }
            a = ring(n);
            if (NULL == g) {
                g = a;
            } else {
                topo_graph_t *c = NULL;
                checked(topo_graph_product(g, a, &c, err, sizeof(err)), err);
                topo_graph_free(g);
                topo_graph_free(a);
                g = c;
            }
            if ('x' != **p) {
                return g;
            }
            (*p)++;
        }
    }
    if (0 == strncmp(*p, "line(", 5)) {
        *p += 5;
        a = parse_spec(p);
        expect(p, ')');
        checked(topo_graph_line(a, &g, err, sizeof(err)), err);
        topo_graph_free(a);
        return g;
    }
    if (0 == strncmp(*p, "degree(", 7) || 0 == strncmp(*p, "product(", 8)) {
        /* the arguments: up to the matching ')', split at the comma that
         * starts K (degree: the last one) or the second spec (product: one
         * followed by a letter; circulant offsets hold commas too) */
        const int deg = 'd' == **p;
        const char *q = *p + (deg ? 7 : 8);
        int depth = 0, cut = -1, end = -1;
        for (int i = 0; q[i] && end < 0; i++) {
            if ('(' == q[i]) {
                depth++;
            } else if (')' == q[i]) {
                if (0 == depth--) {
                    end = i;
                }
            } else if (',' == q[i] && 0 == depth &&
                       (deg || (cut < 0 && isalpha((unsigned char)q[i + 1])))) {
                cut = i;
            }
        }
        if (end < 0 || cut < 0) {
            die(EXIT_USAGE, "'%s': expected %s", *p, deg ? "degree(SPEC,K)" : "product(SPEC,SPEC)");
        }
        /* on the stack: nothing to free when a catalog candidate's build
         * jumps out (skip) */
        char left[512], right[512];
        if (cut >= (int)sizeof(left) || end - cut - 1 >= (int)sizeof(right)) {
            die(EXIT_USAGE, "'%s': too long", *p);
        }
        memcpy(left, q, (size_t)cut);
        left[cut] = '\0';
        memcpy(right, q + cut + 1, (size_t)(end - cut - 1));
        right[end - cut - 1] = '\0';
        const char *l = left, *r = right;
        a = parse_spec(&l);
        if ('\0' != *l) {
            die(EXIT_USAGE, "unexpected '%s' in '%s'", l, *p);
        }
        if (deg) {
            const int k = (int)number(&r);
            if ('\0' != *r) {
                die(EXIT_USAGE, "unexpected '%s' in '%s'", r, *p);
            }
            checked(topo_graph_degree_expand(a, k, &g, err, sizeof(err)), err);
        } else {
            b = parse_spec(&r);
            if ('\0' != *r) {
                die(EXIT_USAGE, "unexpected '%s' in '%s'", r, *p);
            }
            checked(topo_graph_product(a, b, &g, err, sizeof(err)), err);
            topo_graph_free(b);
        }
        topo_graph_free(a);
        *p = q + end + 1;
        return g;
    }
    if (0 == strncmp(*p, "graph:", 6)) {
        /* the file name runs to the end (or a ',' or ')' of an enclosing
         * expansion) */
        char path[1024];
        size_t n = strcspn(*p + 6, ",)");
        if (n == 0 || n >= sizeof(path)) {
            die(EXIT_USAGE, "graph: needs a file name");
        }
        memcpy(path, *p + 6, n);
        path[n] = '\0';
        *p += 6 + n;
        const topo_graph_t *r;
        if (TOPO_OK != topo_graph_load(path, &r, err, sizeof(err))) {
            die(EXIT_USAGE, "%s", err);
        }
        return copy_graph(r);
    }
    die(EXIT_USAGE, "unknown graph specification '%s'", *p);
    return NULL;
}

static topo_graph_t *spec(const char *s)
{
    const char *p = s;
    topo_graph_t *g = parse_spec(&p);
    if ('\0' != *p) {
        die(EXIT_USAGE, "unexpected '%s' after a graph specification", p);
    }
    /* name it by its specification (what write puts in its header) */
    char *name = strdup(s);
    if (NULL != name) {
        free(g->name);
        g->name = name;
    }
    return g;
}

/* ---- pricing (the core's) ---- */

/* bfb's allgather bandwidth term (units of M, a byte per unit of time on
 * a link), every link routed; -1 where bfb does not fit. */
static double bfb_bandwidth(const topo_graph_t *g)
{
    topo_topology_t t = topo_topology_of_graph(g);
    topo_gen_args_t a = {TOPO_PRIM_ALLGATHER, g->n, 0, 0, &t};
    const topo_algo_t *al = topo_catalog_find(TOPO_PRIM_ALLGATHER, "bfb");
    char why[256];
    if (NULL == al || !topo_algo_fits(al, &a, TOPO_OP_COMMUTATIVE, why, sizeof(why))) {
        return -1;
    }
    const topo_cost_params_t unit = {.alpha = 0, .beta = 1, .gamma = 0};
    const topo_cost_net_t net = {.price_ranks = 0};
    double lat, bw;
    if (TOPO_OK != topo_cost_affine_net(al, &a, &unit, &net, &lat, &bw)) {
        return -1;
    }
    return bw;
}

static void cmd_info(const char *s)
{
    topo_graph_t *g = spec(s);
    const double bw = bfb_bandwidth(g);
    printf("%s: %d ranks, %d links, degree %d (in %d), diameter %d\n", g->name, g->n, g->m,
           g->max_out, g->max_in, g->diam);
    if (bw >= 0) {
        printf("bfb allgather: %d steps, bandwidth term %.6f M (bound %.6f M, ratio %.4f)\n",
               g->diam, bw, (double)(g->n - 1) / ((double)g->n * g->max_in),
               bw / ((double)(g->n - 1) / ((double)g->n * g->max_in)));
    } else {
        printf("bfb allgather: does not fit this graph\n");
    }
    topo_graph_free(g);
}

static void cmd_write(const char *s, const char *out)
{
    char err[512];
    topo_graph_t *g = spec(s);
    if (TOPO_OK != topo_graph_write(g, out, err, sizeof(err))) {
        die(1, "%s", err);
    }
    topo_graph_free(g);
}

/* ---- the catalog of candidates for (N, D) ---- */

typedef struct {
    char spec[160];
    topo_graph_t *g;
    double bw; /* bfb's bandwidth term, -1: bfb does not fit */
} cand_t;

#define MAX_CANDS 32

typedef struct {
    cand_t c[MAX_CANDS];
    int n;
} cands_t;

/* Add SPEC when it builds into a graph of n ranks and degree d (both
 * directions), strongly connected, and is not there yet. */
static void add(cands_t *cs, int n, int d, const char *fmt, ...)
{
    if (cs->n == MAX_CANDS) {
        return;
    }
    cand_t *c = &cs->c[cs->n];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->spec, sizeof(c->spec), fmt, ap);
    va_end(ap);
    for (int i = 0; i < cs->n; i++) {
        if (0 == strcmp(cs->c[i].spec, c->spec)) {
            return;
        }
    }
    /* a family member that does not build (not strongly connected, too
     * large) is not a candidate */
    jmp_buf env;
    topo_graph_t *volatile g = NULL;
    skip = &env;
    if (0 == setjmp(env)) {
        g = spec(c->spec);
    }
    skip = NULL;
    if (NULL == g) {
        return;
    }
    if (g->n != n || g->max_out != d || g->max_in != d) {
        topo_graph_free(g); /* not regular of degree d (a Kautz graph's self-loops) */
        return;
    }
    c->g = g;
    cs->n++;
}

/* Diameter of C(n, off) from rank 0 (a circulant is vertex-transitive),
 * and whether it is connected. */
static int circulant_diameter(int n, const int *off, int k, int *dist, int *queue)
{
    for (int v = 0; v < n; v++) {
        dist[v] = -1;
    }
    int head = 0, tail = 0;
    dist[0] = 0;
    queue[tail++] = 0;
    while (head < tail) {
        const int x = queue[head++];
        for (int i = 0; i < k; i++) {
            const int y[2] = {(x + off[i]) % n, (x - off[i] + n) % n};
            for (int j = 0; j < 2; j++) {
                if (dist[y[j]] < 0) {
                    dist[y[j]] = dist[x] + 1;
                    queue[tail++] = y[j];
                }
            }
        }
    }
    return tail < n ? -1 : dist[queue[n - 1]];
}

/* The circulant of degree d (even, offsets below n / 2) on n ranks with the
 * smallest diameter: offset 1, then each further offset chosen greedily
 * (the smallest diameter, ties to the smaller offset).  0: none. */
static int best_circulant(int n, int d, int *off)
{
    const int k = d / 2;
    if (d % 2 || k < 1 || n < 2 * d + 1) {
        return 0;
    }
    int *dist = malloc(sizeof(int) * (size_t)n), *queue = malloc(sizeof(int) * (size_t)n);
    if (NULL == dist || NULL == queue) {
        die(1, "out of memory");
    }
    off[0] = 1;
    for (int i = 1; i < k; i++) {
        int best = -1, bestd = n;
        for (int s = off[i - 1] + 1; 2 * s < n; s++) {
            off[i] = s;
            const int dm = circulant_diameter(n, off, i + 1, dist, queue);
            if (dm >= 0 && dm < bestd) {
                bestd = dm;
                best = s;
            }
        }
        if (best < 0) {
            free(dist);
            free(queue);
            return 0;
        }
        off[i] = best;
    }
    free(dist);
    free(queue);
    return k;
}

/* The spec of best_circulant(n, d) in s (0: none); `pre` and `post`
 * around it. */
static int circulant_spec(int n, int d, const char *pre, const char *post, char *s, size_t len)
{
    int off[TOPO_GRAPH_MAX_DEGREE / 2];
    const int k = best_circulant(n, d, off);
    if (0 == k) {
        return 0;
    }
    size_t at = (size_t)snprintf(s, len, "%scirculant:%d:", pre, n);
    for (int i = 0; i < k && at < len; i++) {
        at += (size_t)snprintf(s + at, len - at, "%s%d", i ? "," : "", off[i]);
    }
    if (at < len) {
        snprintf(s + at, len - at, "%s", post);
    }
    return 1;
}

/* Factors f[i..dims) (ascending, each >= lo and >= 3) of rem, the most
 * balanced (the largest smallest-over-largest ratio) into best. */
static void factor(int rem, int lo, int i, int dims, int *f, int *best, double *score)
{
    if (i == dims - 1) {
        if (rem >= lo && rem >= 3) {
            f[i] = rem;
            const double sc = (double)f[0] / f[i];
            if (sc > *score) {
                *score = sc;
                memcpy(best, f, sizeof(int) * (size_t)dims);
            }
        }
        return;
    }
    for (int x = lo < 3 ? 3 : lo; (long)x * x <= rem; x++) {
        if (rem % x == 0) {
            f[i] = x;
            factor(rem / x, x, i + 1, dims, f, best, score);
        }
    }
}

/* The most balanced torus of `dims` rings (each >= 3) of n ranks: its
 * spec in s, 0 when none. */
static int balanced_torus(int n, int dims, char *s, size_t len)
{
    int f[8], best[8];
    double score = 0;
    if (dims < 1 || dims > 8) {
        return 0;
    }
    factor(n, 3, 0, dims, f, best, &score);
    if (score <= 0) {
        return 0;
    }
    size_t at = (size_t)snprintf(s, len, "torus:");
    for (int i = 0; i < dims && at < len; i++) {
        at += (size_t)snprintf(s + at, len - at, "%s%d", i ? "x" : "", best[i]);
    }
    return 1;
}

static void catalog(cands_t *cs, int n, int d)
{
    char s[128];
    cs->n = 0;
    add(cs, n, d, "kautz:%d:%d", n, d);
    if (circulant_spec(n, d, "", "", s, sizeof(s))) {
        add(cs, n, d, "%s", s);
    }
    if (d % 2 == 0 && balanced_torus(n, d / 2, s, sizeof(s))) {
        add(cs, n, d, "%s", s);
    }
    /* line-graph expansion of a d-regular base of n / d ranks */
    if (n % d == 0 && n / d > d) {
        add(cs, n, d, "line(kautz:%d:%d)", n / d, d);
        if (circulant_spec(n / d, d, "line(", ")", s, sizeof(s))) {
            add(cs, n, d, "%s", s);
        }
    }
    /* degree expansion by c of a base of n / c ranks and degree d / c */
    for (int c = 2; c <= d; c++) {
        if (d % c || n % c || n / c <= d / c) {
            continue;
        }
        char post[16];
        snprintf(post, sizeof(post), ",%d)", c);
        add(cs, n, d, "degree(kautz:%d:%d,%d)", n / c, d / c, c);
        if (circulant_spec(n / c, d / c, "degree(", post, s, sizeof(s))) {
            add(cs, n, d, "%s", s);
        }
    }
    /* the Cartesian product of two generalized Kautz graphs of degree
     * d / 2, the most balanced split of n */
    if (d % 2 == 0) {
        int a = (int)sqrt((double)n);
        while (a > 1 && n % a) {
            a--;
        }
        if (a > d / 2 && n / a > d / 2) {
            add(cs, n, d, "product(kautz:%d:%d,kautz:%d:%d)", a, d / 2, n / a, d / 2);
        }
    }
    for (int i = 0; i < cs->n; i++) {
        cs->c[i].bw = bfb_bandwidth(cs->c[i].g);
    }
}

static void free_cands(cands_t *cs)
{
    for (int i = 0; i < cs->n; i++) {
        topo_graph_free(cs->c[i].g);
    }
}

static int parse_int(const char *what, const char *s, int lo, int hi)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < lo || v > hi) {
        die(EXIT_USAGE, "%s: expected an integer between %d and %d, not '%s'", what, lo, hi, s);
    }
    return (int)v;
}

static void cmd_catalog(int n, int d)
{
    cands_t cs;
    catalog(&cs, n, d);
    const double bound = (double)(n - 1) / ((double)n * d);
    printf("topologies of %d ranks and degree %d (bfb allgather: steps = diameter, bandwidth "
           "term in M at one byte per unit of time on a link; bound %.6f)\n",
           n, d, bound);
    printf("%-40s %6s %12s %8s %s\n", "topology", "steps", "bandwidth", "/bound", "pareto");
    for (int i = 0; i < cs.n; i++) {
        const cand_t *c = &cs.c[i];
        int dominated = c->bw < 0;
        for (int j = 0; j < cs.n && !dominated; j++) {
            const cand_t *o = &cs.c[j];
            dominated = j != i && o->bw >= 0 && o->g->diam <= c->g->diam &&
                        o->bw <= c->bw + 1e-12 &&
                        (o->g->diam < c->g->diam || o->bw < c->bw - 1e-12);
        }
        if (c->bw >= 0) {
            printf("%-40s %6d %12.6f %8.4f %s\n", c->spec, c->g->diam, c->bw, c->bw / bound,
                   dominated ? "" : "*");
        } else {
            printf("%-40s %6d %12s %8s\n", c->spec, c->g->diam, "-", "-");
        }
    }
    free_cands(&cs);
}

static size_t parse_bytes(const char *s)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    double mul = 1;
    if (*end == 'k' || *end == 'K') {
        mul = 1024;
        end++;
    } else if (*end == 'M') {
        mul = 1024.0 * 1024;
        end++;
    } else if (*end == 'G') {
        mul = 1024.0 * 1024 * 1024;
        end++;
    }
    if (errno || *end || v < 0 || v * mul > 1e18) {
        die(EXIT_USAGE, "SIZE: expected bytes (suffixes k, M, G), not '%s'", s);
    }
    return (size_t)(v * mul);
}

typedef struct {
    int cand;
    double time;
    const char *algo;
} choice_t;

static int cmp_choice(const void *a, const void *b)
{
    const choice_t *x = a, *y = b;
    if (x->time != y->time) {
        return x->time < y->time ? -1 : 1;
    }
    return x->cand - y->cand;
}

static void cmd_choose(int n, int d, size_t bytes, topo_prim_t prim, const topo_cost_params_t *p,
                       double hop, double copy)
{
    cands_t cs;
    catalog(&cs, n, d);
    int ncat;
    const topo_algo_t *cat = topo_catalog(&ncat);
    const topo_algo_t **algos = malloc(sizeof(*algos) * (size_t)ncat);
    topo_price_t *prices = calloc((size_t)ncat, sizeof(*prices));
    int *rc = malloc(sizeof(int) * (size_t)ncat);
    choice_t *ch = malloc(sizeof(*ch) * (size_t)(cs.n + 1));
    if (NULL == algos || NULL == prices || NULL == rc || NULL == ch) {
        die(1, "out of memory");
    }
    /* the component's network defaults but for hop, every rank priced
     * and every link routed (the sampled pricing estimates only the first
     * link of a multi-hop route on a graph) */
    const topo_cost_net_t net = {
        .copy = copy, .msg_overhead = TOPO_COST_MSG_OVERHEAD, .hop = hop, .price_ranks = 0};
    int nch = 0;
    for (int i = 0; i < cs.n; i++) {
        topo_topology_t t = topo_topology_of_graph(cs.c[i].g);
        topo_gen_args_t a = {prim, n, 0, 0, &t};
        int na = 0;
        char why[256];
        for (int k = 0; k < ncat; k++) {
            if (cat[k].prim == prim &&
                topo_algo_fits(&cat[k], &a, TOPO_OP_COMMUTATIVE, why, sizeof(why))) {
                algos[na++] = &cat[k];
            }
        }
        if (TOPO_OK != topo_price_candidates(algos, na, &a, p, &net, NULL, 1, prices, rc, NULL)) {
            die(1, "out of memory");
        }
        double best = HUGE_VAL;
        const char *name = NULL;
        for (int k = 0; k < na; k++) {
            if (TOPO_OK == rc[k]) {
                const double tm = topo_price_at(&prices[k], bytes);
                if (tm < best) {
                    best = tm;
                    name = algos[k]->name;
                }
            }
            topo_price_free(&prices[k]);
        }
        if (NULL != name) {
            ch[nch++] = (choice_t){i, best, name};
        }
    }
    qsort(ch, (size_t)nch, sizeof(*ch), cmp_choice);
    printf("%s of %zu bytes on %d ranks of degree %d: alpha %g s, beta %g s/B per link, gamma %g "
           "s/B, hop %g s, copy %g s/B\n",
           topo_prim_name(prim), bytes, n, d, p->alpha, p->beta, p->gamma, hop, copy);
    printf("%-4s %-40s %6s %12s %-20s %12s\n", "rank", "topology", "diam", "bfb bw",
           "best algorithm", "time (us)");
    for (int i = 0; i < nch; i++) {
        const cand_t *c = &cs.c[ch[i].cand];
        printf("%-4d %-40s %6d %12.6f %-20s %12.3f\n", i + 1, c->spec, c->g->diam, c->bw,
               ch[i].algo, ch[i].time * 1e6);
    }
    free(algos);
    free(prices);
    free(rc);
    free(ch);
    free_cands(&cs);
}

int main(int argc, char **argv)
{
    if (argc < 2 || 0 == strcmp(argv[1], "--help") || 0 == strcmp(argv[1], "-h")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? EXIT_USAGE : 0;
    }
    const char *cmd = argv[1];
    if (0 == strcmp(cmd, "write") && (3 == argc || (5 == argc && 0 == strcmp(argv[3], "-o")))) {
        cmd_write(argv[2], 5 == argc ? argv[4] : NULL);
    } else if (0 == strcmp(cmd, "info") && 3 == argc) {
        cmd_info(argv[2]);
    } else if (0 == strcmp(cmd, "catalog") && 4 == argc) {
        cmd_catalog(parse_int("N", argv[2], 2, TOPO_GRAPH_MAX_NODES),
                    parse_int("D", argv[3], 1, TOPO_GRAPH_MAX_DEGREE));
    } else if (0 == strcmp(cmd, "choose") && argc >= 5) {
        topo_cost_params_t p = {
            .alpha = TOPO_COST_ALPHA, .beta = TOPO_COST_BETA, .gamma = TOPO_COST_GAMMA};
        topo_prim_t prim = TOPO_PRIM_ALLREDUCE;
        double hop = -1, copy = TOPO_COST_COPY;
        for (int i = 5; i < argc; i += 2) {
            if (i + 1 >= argc) {
                die(EXIT_USAGE, "%s needs a value", argv[i]);
            }
            if (0 == strcmp(argv[i], "--primitive")) {
                if (0 == strcmp(argv[i + 1], "allreduce")) {
                    prim = TOPO_PRIM_ALLREDUCE;
                } else if (0 == strcmp(argv[i + 1], "allgather")) {
                    prim = TOPO_PRIM_ALLGATHER;
                } else if (0 == strcmp(argv[i + 1], "reduce_scatter")) {
                    prim = TOPO_PRIM_REDUCE_SCATTER;
                } else {
                    die(EXIT_USAGE, "--primitive: allreduce, allgather or reduce_scatter");
                }
            } else if (0 == strcmp(argv[i], "--alpha") || 0 == strcmp(argv[i], "--beta") ||
                       0 == strcmp(argv[i], "--gamma") || 0 == strcmp(argv[i], "--hop") ||
                       0 == strcmp(argv[i], "--copy")) {
                char *end;
                errno = 0;
                const double v = strtod(argv[i + 1], &end);
                if (errno || *end || v < 0) {
                    die(EXIT_USAGE, "%s: expected a non-negative number", argv[i]);
                }
                *(0 == strcmp(argv[i], "--alpha")   ? &p.alpha
                  : 0 == strcmp(argv[i], "--beta")  ? &p.beta
                  : 0 == strcmp(argv[i], "--gamma") ? &p.gamma
                  : 0 == strcmp(argv[i], "--hop")   ? &hop
                                                    : &copy) = v;
            } else {
                die(EXIT_USAGE, "unknown option '%s'", argv[i]);
            }
        }
        cmd_choose(parse_int("N", argv[2], 2, TOPO_GRAPH_MAX_NODES),
                   parse_int("D", argv[3], 1, TOPO_GRAPH_MAX_DEGREE), parse_bytes(argv[4]), prim,
                   &p, hop < 0 ? p.alpha : hop, copy);
    } else {
        usage(stderr);
        return EXIT_USAGE;
    }
    return 0;
}
