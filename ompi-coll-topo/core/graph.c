/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Direct-connect graphs (see graph.h): the edge-list reader, validation,
 * distances, shortest-path routing and the families of Zhao et al. 2025.
 */
#include "graph.h"

#include "schedule.h" /* error codes */

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(char *err, size_t len, const char *fmt, ...)
{
    if (NULL != err && len > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, len, fmt, ap);
        va_end(ap);
    }
    return TOPO_EINVAL;
}

void topo_graph_free(topo_graph_t *g)
{
    if (NULL != g) {
        free(g->out0);
        free(g->dst);
        free(g->bw);
        free(g->in0);
        free(g->inl);
        free(g->src);
        free(g->dist);
        free(g->name);
        free(g);
    }
}

/* Links sorted by (source, destination), for the CSR arrays. */
typedef struct {
    int u, v, bw, line;
} edge_t;

static int cmp_edge(const void *a, const void *b)
{
    const edge_t *x = a, *y = b;
    if (x->u != y->u) {
        return x->u < y->u ? -1 : 1;
    }
    return x->v < y->v ? -1 : x->v > y->v;
}

/* BFS from every rank: dist, diameter; TOPO_EINVAL (with the pair) when
 * some rank cannot reach another. */
static int distances(topo_graph_t *g, char *err, size_t errlen)
{
    const int n = g->n;
    int *queue = malloc(sizeof(int) * (size_t)n);
    g->dist = malloc(sizeof(uint16_t) * (size_t)n * (size_t)n);
    if (NULL == queue || NULL == g->dist) {
        free(queue);
        return TOPO_ENOMEM;
    }
    g->diam = 0;
    for (int s = 0; s < n; s++) {
        uint16_t *d = &g->dist[(size_t)s * (size_t)n];
        for (int v = 0; v < n; v++) {
            d[v] = UINT16_MAX;
        }
        int head = 0, tail = 0;
        d[s] = 0;
        queue[tail++] = s;
        while (head < tail) {
            const int x = queue[head++];
            for (int e = g->out0[x]; e < g->out0[x + 1]; e++) {
                if (UINT16_MAX == d[g->dst[e]]) {
                    d[g->dst[e]] = (uint16_t)(d[x] + 1);
                    queue[tail++] = g->dst[e];
                }
            }
        }
        if (tail < n) {
            int v = 0;
            while (UINT16_MAX != d[v]) {
                v++;
            }
            free(queue);
            return fail(err, errlen,
                        "%s: not strongly connected: rank %d cannot reach rank %d over the links",
                        g->name, s, v);
        }
        g->diam = d[queue[n - 1]] > g->diam ? d[queue[n - 1]] : g->diam;
    }
    free(queue);
    return TOPO_OK;
}

/* The graph of edges e[0..m) on n ranks, declared degree `degree` (0:
 * none). Validates and takes over nothing (e is the caller's). */
static int build(int n, edge_t *e, int m, int degree, const char *name, topo_graph_t **gp,
                 char *err, size_t errlen)
{
    *gp = NULL;
    if (n < 1 || n > TOPO_GRAPH_MAX_NODES) {
        return fail(err, errlen, "%s: %d ranks (a graph has 1 to %d)", name, n,
                    TOPO_GRAPH_MAX_NODES);
    }
    qsort(e, (size_t)m, sizeof(*e), cmp_edge);
    for (int i = 1; i < m; i++) {
        if (e[i].u == e[i - 1].u && e[i].v == e[i - 1].v) {
            const int a = e[i].line < e[i - 1].line ? e[i].line : e[i - 1].line;
            const int b = e[i].line < e[i - 1].line ? e[i - 1].line : e[i].line;
            return fail(err, errlen,
                        "%s:%d: link %d -> %d given again (first on line %d; give one link with "
                        "a bandwidth instead)",
                        name, b, e[i].u, e[i].v, a);
        }
    }
    topo_graph_t *g = calloc(1, sizeof(*g));
    if (NULL == g) {
        return TOPO_ENOMEM;
    }
    g->n = n;
    g->m = m;
    g->name = strdup(name);
    g->out0 = calloc((size_t)n + 1, sizeof(int));
    g->in0 = calloc((size_t)n + 1, sizeof(int));
    g->dst = malloc(sizeof(int) * ((size_t)m + 1));
    g->src = malloc(sizeof(int) * ((size_t)m + 1));
    g->bw = malloc(sizeof(int) * ((size_t)m + 1));
    g->inl = malloc(sizeof(int) * ((size_t)m + 1));
    if (NULL == g->name || NULL == g->out0 || NULL == g->in0 || NULL == g->dst || NULL == g->src ||
        NULL == g->bw || NULL == g->inl) {
        topo_graph_free(g);
        return TOPO_ENOMEM;
    }
    g->uniform = 1;
    for (int i = 0; i < m; i++) {
        g->dst[i] = e[i].v;
        g->src[i] = e[i].u;
        g->bw[i] = e[i].bw;
        g->uniform = g->uniform && 1 == e[i].bw;
        g->out0[e[i].u + 1]++;
        g->in0[e[i].v + 1]++;
    }
    for (int u = 0; u < n; u++) {
        const int out = g->out0[u + 1], in = g->in0[u + 1];
        if (out > TOPO_GRAPH_MAX_DEGREE || in > TOPO_GRAPH_MAX_DEGREE) {
            const int rc =
                fail(err, errlen, "%s: rank %d has %d %s-links (at most %d)", name, u,
                     out > in ? out : in, out > in ? "out" : "in", TOPO_GRAPH_MAX_DEGREE);
            topo_graph_free(g);
            return rc;
        }
        if (degree > 0 && (out != degree || in != degree)) {
            const int rc = fail(err, errlen,
                                "%s: degree mismatch: rank %d has %d out-links and %d in-links, "
                                "the file declares degree %d",
                                name, u, out, in, degree);
            topo_graph_free(g);
            return rc;
        }
        g->max_out = out > g->max_out ? out : g->max_out;
        g->max_in = in > g->max_in ? in : g->max_in;
        g->out0[u + 1] += g->out0[u];
        g->in0[u + 1] += g->in0[u];
    }
    /* in-links: the links are sorted by source, so filling in order keeps
     * each rank's in-links by ascending source */
    int *pos = malloc(sizeof(int) * (size_t)n);
    if (NULL == pos) {
        topo_graph_free(g);
        return TOPO_ENOMEM;
    }
    memcpy(pos, g->in0, sizeof(int) * (size_t)n);
    for (int i = 0; i < m; i++) {
        g->inl[pos[e[i].v]++] = i;
    }
    free(pos);
    int rc = distances(g, err, errlen);
    if (TOPO_OK != rc) {
        topo_graph_free(g);
        return rc;
    }
    *gp = g;
    return TOPO_OK;
}

int topo_graph_build(int n, int m, const int *src, const int *dst, const int *bw, const char *name,
                     topo_graph_t **g, char *err, size_t errlen)
{
    edge_t *e = malloc(sizeof(*e) * ((size_t)m + 1));
    if (NULL == e) {
        return TOPO_ENOMEM;
    }
    for (int i = 0; i < m; i++) {
        e[i] = (edge_t){src[i], dst[i], NULL != bw ? bw[i] : 1, i + 1};
        if (e[i].u < 0 || e[i].u >= n || e[i].v < 0 || e[i].v >= n || e[i].u == e[i].v ||
            e[i].bw < 1 || e[i].bw > TOPO_GRAPH_MAX_BW) {
            free(e);
            return fail(err, errlen,
                        "%s: link %d (%d -> %d, bandwidth %d) is not a link of %d ranks", name, i,
                        src[i], dst[i], e[i].bw, n);
        }
    }
    int rc = build(n, e, m, 0, name, g, err, errlen);
    free(e);
    return rc;
}

/* One integer field of a line: TOPO_OK and *v, or an error naming the
 * line. */
static int field(const char **p, long lo, long hi, long *v)
{
    while (' ' == **p || '\t' == **p) {
        (*p)++;
    }
    if (!isdigit((unsigned char)**p)) {
        return TOPO_EINVAL;
    }
    errno = 0;
    char *end;
    *v = strtol(*p, &end, 10);
    if (errno || *v < lo || *v > hi || (0 != *end && !isspace((unsigned char)*end))) {
        return TOPO_EINVAL;
    }
    *p = end;
    return TOPO_OK;
}

static int read_file(const char *path, topo_graph_t **gp, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (NULL == f) {
        return fail(err, errlen, "graph file %s: %s", path, strerror(errno));
    }
    edge_t *e = NULL;
    int m = 0, cap = 0, lineno = 0, declared_n = 0, degree = 0, maxrank = -1, rc = TOPO_OK;
    char line[512];
    while (TOPO_OK == rc && NULL != fgets(line, sizeof(line), f)) {
        lineno++;
        if (NULL == strchr(line, '\n') && !feof(f)) {
            rc = fail(err, errlen, "%s:%d: line longer than %d characters", path, lineno,
                      (int)sizeof(line) - 2);
            break;
        }
        char *hash = strchr(line, '#');
        if (NULL != hash) {
            *hash = '\0';
        }
        const char *p = line;
        while (isspace((unsigned char)*p)) {
            p++;
        }
        if ('\0' == *p) {
            continue;
        }
        long a, b, w = 1;
        if (0 == strncmp(p, "nodes", 5) || 0 == strncmp(p, "degree", 6)) {
            const int is_nodes = 'n' == *p;
            p += is_nodes ? 5 : 6;
            if (TOPO_OK !=
                field(&p, 1, is_nodes ? TOPO_GRAPH_MAX_NODES : TOPO_GRAPH_MAX_DEGREE, &a)) {
                rc = fail(err, errlen, "%s:%d: expected '%s N' with N between 1 and %d", path,
                          lineno, is_nodes ? "nodes" : "degree",
                          is_nodes ? TOPO_GRAPH_MAX_NODES : TOPO_GRAPH_MAX_DEGREE);
                break;
            }
            *(is_nodes ? &declared_n : &degree) = (int)a;
        } else {
            if (TOPO_OK != field(&p, 0, TOPO_GRAPH_MAX_NODES - 1, &a) ||
                TOPO_OK != field(&p, 0, TOPO_GRAPH_MAX_NODES - 1, &b)) {
                rc = fail(err, errlen,
                          "%s:%d: expected 'u v [bandwidth]' (ranks 0 to %d, '#' comments)", path,
                          lineno, TOPO_GRAPH_MAX_NODES - 1);
                break;
            }
            while (' ' == *p || '\t' == *p) {
                p++;
            }
            if ('\0' != *p && '\n' != *p && '\r' != *p &&
                TOPO_OK != field(&p, 1, TOPO_GRAPH_MAX_BW, &w)) {
                rc = fail(err, errlen,
                          "%s:%d: the bandwidth (third column) must be an integer between 1 and "
                          "%d",
                          path, lineno, TOPO_GRAPH_MAX_BW);
                break;
            }
            while (isspace((unsigned char)*p)) {
                p++;
            }
            if ('\0' != *p) {
                rc = fail(err, errlen, "%s:%d: unexpected text after 'u v [bandwidth]'", path,
                          lineno);
                break;
            }
            if (a == b) {
                rc = fail(err, errlen, "%s:%d: link from rank %ld to itself", path, lineno, a);
                break;
            }
            if (declared_n > 0 && (a >= declared_n || b >= declared_n)) {
                rc = fail(err, errlen, "%s:%d: rank %ld, but the file declares nodes %d", path,
                          lineno, a >= declared_n ? a : b, declared_n);
                break;
            }
            if (m == cap) {
                cap = cap ? 2 * cap : 64;
                edge_t *ne = realloc(e, sizeof(*e) * (size_t)cap);
                if (NULL == ne) {
                    rc = TOPO_ENOMEM;
                    break;
                }
                e = ne;
            }
            e[m++] = (edge_t){(int)a, (int)b, (int)w, lineno};
            maxrank = a > maxrank ? (int)a : maxrank;
            maxrank = b > maxrank ? (int)b : maxrank;
        }
    }
    fclose(f);
    if (TOPO_OK == rc && 0 == m) {
        rc = fail(err, errlen, "%s: no links", path);
    }
    if (TOPO_OK == rc && declared_n > 0 && maxrank >= declared_n) {
        rc = fail(err, errlen, "%s: rank %d, but the file declares nodes %d", path, maxrank,
                  declared_n);
    }
    if (TOPO_OK == rc) {
        rc = build(declared_n > 0 ? declared_n : maxrank + 1, e, m, degree, path, gp, err, errlen);
    }
    free(e);
    return rc;
}

/* The registry: graphs read from files, by path, for the process. */
static struct reg {
    topo_graph_t *g;
    struct reg *next;
} * registry;

int topo_graph_load(const char *path, const topo_graph_t **g, char *err, size_t errlen)
{
    for (struct reg *r = registry; NULL != r; r = r->next) {
        if (0 == strcmp(r->g->name, path)) {
            *g = r->g;
            return TOPO_OK;
        }
    }
    topo_graph_t *ng;
    struct reg *r = malloc(sizeof(*r));
    int rc = NULL == r ? TOPO_ENOMEM : read_file(path, &ng, err, errlen);
    if (TOPO_OK != rc) {
        free(r);
        if (TOPO_ENOMEM == rc) {
            fail(err, errlen, "%s: out of memory", path);
        }
        return rc;
    }
    r->g = ng;
    r->next = registry;
    registry = r;
    *g = ng;
    return TOPO_OK;
}

void topo_graph_registry_clear(void)
{
    while (NULL != registry) {
        struct reg *r = registry;
        registry = r->next;
        topo_graph_free(r->g);
        free(r);
    }
}

int topo_graph_write(const topo_graph_t *g, const char *path, char *err, size_t errlen)
{
    FILE *f = NULL == path || 0 == strcmp(path, "-") ? stdout : fopen(path, "w");
    if (NULL == f) {
        return fail(err, errlen, "%s: %s", path, strerror(errno));
    }
    int regular = g->max_out == g->max_in;
    for (int u = 0; u < g->n && regular; u++) {
        regular =
            g->out0[u + 1] - g->out0[u] == g->max_out && g->in0[u + 1] - g->in0[u] == g->max_in;
    }
    fprintf(f, "# %s: %d ranks, %d links, diameter %d\nnodes %d\n", g->name, g->n, g->m, g->diam,
            g->n);
    if (regular) {
        fprintf(f, "degree %d\n", g->max_out);
    }
    for (int e = 0; e < g->m; e++) {
        if (1 == g->bw[e]) {
            fprintf(f, "%d %d\n", g->src[e], g->dst[e]);
        } else {
            fprintf(f, "%d %d %d\n", g->src[e], g->dst[e], g->bw[e]);
        }
    }
    int bad = ferror(f);
    if (stdout != f) {
        bad = fclose(f) || bad;
    } else {
        bad = fflush(f) || bad;
    }
    return bad ? fail(err, errlen, "%s: write failed", path) : TOPO_OK;
}

int topo_graph_next(const topo_graph_t *g, int u, int v, int *link)
{
    const int d = topo_graph_dist(g, u, v);
    for (int e = g->out0[u]; e < g->out0[u + 1]; e++) {
        if (topo_graph_dist(g, g->dst[e], v) == d - 1) {
            *link = e; /* out-links ascend by neighbour: the smallest */
            return g->dst[e];
        }
    }
    *link = -1;
    return -1; /* u == v */
}

int topo_graph_link(const topo_graph_t *g, int u, int v)
{
    for (int e = g->out0[u]; e < g->out0[u + 1]; e++) {
        if (g->dst[e] == v) {
            return e;
        }
    }
    return -1;
}

/* ---- families ---- */

/* Build from a list of links that may repeat (a circulant's s and n - s):
 * repeats are dropped. */
static int from_list(int n, int *src, int *dst, int m, const char *name, topo_graph_t **g,
                     char *err, size_t errlen)
{
    edge_t *e = malloc(sizeof(*e) * ((size_t)m + 1));
    if (NULL == e) {
        return TOPO_ENOMEM;
    }
    for (int i = 0; i < m; i++) {
        e[i] = (edge_t){src[i], dst[i], 1, i + 1};
    }
    qsort(e, (size_t)m, sizeof(*e), cmp_edge);
    int k = 0;
    for (int i = 0; i < m; i++) {
        if (e[i].u == e[i].v) {
            free(e);
            return fail(err, errlen, "%s: a link from a rank to itself", name);
        }
        if (0 == k || e[i].u != e[k - 1].u || e[i].v != e[k - 1].v) {
            e[k++] = e[i];
        }
    }
    int rc = build(n, e, k, 0, name, g, err, errlen);
    free(e);
    return rc;
}

int topo_graph_circulant(int n, const int *offsets, int noffsets, topo_graph_t **g, char *err,
                         size_t errlen)
{
    char name[128];
    int len = snprintf(name, sizeof(name), "circulant:%d", n);
    for (int i = 0; i < noffsets && len < (int)sizeof(name); i++) {
        len += snprintf(name + len, sizeof(name) - (size_t)len, "%c%d", i ? ',' : ':', offsets[i]);
    }
    if (n < 2 || n > TOPO_GRAPH_MAX_NODES || noffsets < 1 || 2 * noffsets > TOPO_GRAPH_MAX_DEGREE) {
        return fail(err, errlen, "%s: needs 2 to %d ranks and 1 to %d offsets", name,
                    TOPO_GRAPH_MAX_NODES, TOPO_GRAPH_MAX_DEGREE / 2);
    }
    const int m = 2 * n * noffsets;
    int *s = malloc(sizeof(int) * (size_t)m), *d = malloc(sizeof(int) * (size_t)m), k = 0;
    if (NULL == s || NULL == d) {
        free(s);
        free(d);
        return TOPO_ENOMEM;
    }
    int rc = TOPO_OK;
    for (int i = 0; i < noffsets && TOPO_OK == rc; i++) {
        if (offsets[i] < 1 || offsets[i] > n / 2) {
            rc = fail(err, errlen, "%s: offset %d is not between 1 and n / 2 = %d", name,
                      offsets[i], n / 2);
        }
        for (int u = 0; u < n && TOPO_OK == rc; u++) {
            s[k] = u;
            d[k++] = (u + offsets[i]) % n;
            s[k] = u;
            d[k++] = (u - offsets[i] % n + n) % n;
        }
    }
    if (TOPO_OK == rc) {
        rc = from_list(n, s, d, k, name, g, err, errlen);
    }
    free(s);
    free(d);
    return rc;
}

int topo_graph_kautz(int n, int d, topo_graph_t **g, char *err, size_t errlen)
{
    char name[64];
    snprintf(name, sizeof(name), "kautz:%d:%d", n, d);
    if (d < 1 || d > TOPO_GRAPH_MAX_DEGREE || n <= d || n > TOPO_GRAPH_MAX_NODES) {
        return fail(err, errlen, "%s: needs degree 1 to %d and more ranks than the degree", name,
                    TOPO_GRAPH_MAX_DEGREE);
    }
    int *s = malloc(sizeof(int) * (size_t)n * (size_t)d),
        *t = malloc(sizeof(int) * (size_t)n * (size_t)d);
    if (NULL == s || NULL == t) {
        free(s);
        free(t);
        return TOPO_ENOMEM;
    }
    int k = 0;
    for (int u = 0; u < n; u++) {
        for (int j = 1; j <= d; j++) {
            const long v = ((-(long)u * d - j) % n + n) % n;
            if (v != u) { /* the self-loops of Imase-Itoh's graph carry nothing */
                s[k] = u;
                t[k++] = (int)v;
            }
        }
    }
    int rc = from_list(n, s, t, k, name, g, err, errlen);
    free(s);
    free(t);
    return rc;
}

int topo_graph_line(const topo_graph_t *a, topo_graph_t **g, char *err, size_t errlen)
{
    char name[160];
    snprintf(name, sizeof(name), "line(%.140s)", a->name);
    if (a->m > TOPO_GRAPH_MAX_NODES) {
        return fail(err, errlen, "%s: %d ranks (at most %d)", name, a->m, TOPO_GRAPH_MAX_NODES);
    }
    size_t m = 0;
    for (int e = 0; e < a->m; e++) {
        m += (size_t)(a->out0[a->dst[e] + 1] - a->out0[a->dst[e]]);
    }
    int *s = malloc(sizeof(int) * (m + 1)), *t = malloc(sizeof(int) * (m + 1)), k = 0;
    if (NULL == s || NULL == t) {
        free(s);
        free(t);
        return TOPO_ENOMEM;
    }
    for (int e = 0; e < a->m; e++) { /* rank e: the link e of a */
        const int v = a->dst[e];
        for (int f = a->out0[v]; f < a->out0[v + 1]; f++) {
            s[k] = e;
            t[k++] = f;
        }
    }
    int rc = from_list(a->m, s, t, k, name, g, err, errlen);
    free(s);
    free(t);
    return rc;
}

int topo_graph_degree_expand(const topo_graph_t *a, int c, topo_graph_t **g, char *err,
                             size_t errlen)
{
    char name[160];
    snprintf(name, sizeof(name), "degree(%.120s,%d)", a->name, c);
    if (c < 1 || (long)a->n * c > TOPO_GRAPH_MAX_NODES ||
        (long)a->max_out * c > TOPO_GRAPH_MAX_DEGREE) {
        return fail(err, errlen, "%s: %ld ranks of degree %ld (at most %d and %d)", name,
                    (long)a->n * c, (long)a->max_out * c, TOPO_GRAPH_MAX_NODES,
                    TOPO_GRAPH_MAX_DEGREE);
    }
    const size_t m = (size_t)a->m * (size_t)c * (size_t)c;
    int *s = malloc(sizeof(int) * (m + 1)), *t = malloc(sizeof(int) * (m + 1)), k = 0;
    if (NULL == s || NULL == t) {
        free(s);
        free(t);
        return TOPO_ENOMEM;
    }
    for (int e = 0; e < a->m; e++) { /* copy i of u is rank u * c + i */
        for (int i = 0; i < c; i++) {
            for (int j = 0; j < c; j++) {
                s[k] = a->src[e] * c + i;
                t[k++] = a->dst[e] * c + j;
            }
        }
    }
    int rc = from_list(a->n * c, s, t, k, name, g, err, errlen);
    free(s);
    free(t);
    return rc;
}

int topo_graph_product(const topo_graph_t *a, const topo_graph_t *b, topo_graph_t **g, char *err,
                       size_t errlen)
{
    char name[200];
    snprintf(name, sizeof(name), "(%.90s)x(%.90s)", a->name, b->name);
    if ((long)a->n * b->n > TOPO_GRAPH_MAX_NODES ||
        a->max_out + b->max_out > TOPO_GRAPH_MAX_DEGREE) {
        return fail(err, errlen, "%s: %ld ranks of degree %d (at most %d and %d)", name,
                    (long)a->n * b->n, a->max_out + b->max_out, TOPO_GRAPH_MAX_NODES,
                    TOPO_GRAPH_MAX_DEGREE);
    }
    const size_t m = (size_t)a->m * (size_t)b->n + (size_t)b->m * (size_t)a->n;
    int *s = malloc(sizeof(int) * (m + 1)), *t = malloc(sizeof(int) * (m + 1)), k = 0;
    if (NULL == s || NULL == t) {
        free(s);
        free(t);
        return TOPO_ENOMEM;
    }
    for (int e = 0; e < a->m; e++) {
        for (int v = 0; v < b->n; v++) {
            s[k] = a->src[e] * b->n + v;
            t[k++] = a->dst[e] * b->n + v;
        }
    }
    for (int e = 0; e < b->m; e++) {
        for (int u = 0; u < a->n; u++) {
            s[k] = u * b->n + b->src[e];
            t[k++] = u * b->n + b->dst[e];
        }
    }
    int rc = from_list(a->n * b->n, s, t, k, name, g, err, errlen);
    free(s);
    free(t);
    return rc;
}
