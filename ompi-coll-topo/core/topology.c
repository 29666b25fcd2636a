/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Topology strings and grid geometry (see topology.h).
 */
#include "topology.h"

#include "graph.h"
#include "schedule.h" /* error codes */

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Largest grid accepted: far beyond any communicator, small enough that
 * products of dimensions never overflow an int. */
#define TOPO_MAX_GRID (1 << 24)

static int fail(char *err, size_t len, const char *fmt, const char *what)
{
    if (NULL != err && len > 0) {
        snprintf(err, len, fmt, what);
    }
    return TOPO_EINVAL;
}

static int parse_shape(const char *str, topo_topology_t *t, char *err, size_t errlen);

topo_topology_t topo_topology_of_graph(const struct topo_graph *g)
{
    topo_topology_t t;
    memset(&t, 0, sizeof(t));
    t.kind = TOPO_NET_GRAPH;
    t.graph = g;
    return t;
}

int topo_topology_parse(const char *str, topo_topology_t *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof(*t));
    if (NULL == str) {
        return fail(err, errlen, "%s", "no topology given");
    }
    /* An optional ",ports=N" suffix sets the ports per rank. */
    const char *comma = strchr(str, ',');
    if (NULL == comma) {
        return parse_shape(str, t, err, errlen);
    }
    char shape[256];
    size_t n = (size_t)(comma - str);
    if (n >= sizeof(shape)) {
        return fail(err, errlen, "'%s': too long", str);
    }
    memcpy(shape, str, n);
    shape[n] = '\0';
    if (0 != strncmp(comma, ",ports=", 7) || !isdigit((unsigned char)comma[7])) {
        return fail(err, errlen, "'%s': the only option is ',ports=N' (e.g. torus:4x4,ports=2)",
                    str);
    }
    errno = 0;
    char *end;
    long ports = strtol(comma + 7, &end, 10);
    _Static_assert(TOPO_MAX_PORTS == 1024, "the message below says 1024");
    if (errno || *end || ports < 1 || ports > TOPO_MAX_PORTS) {
        return fail(err, errlen, "'%s': ports must be an integer between 1 and 1024", str);
    }
    int rc = parse_shape(shape, t, err, errlen);
    if (TOPO_OK == rc) {
        t->ports = (int)ports;
    } else if (NULL != err && errlen > 0) {
        /* name the whole value, not just the shape */
        char inner[256];
        snprintf(inner, sizeof(inner), "%s", err);
        snprintf(err, errlen, "%s (in '%s')", inner, str);
    }
    return rc;
}

static int parse_shape(const char *str, topo_topology_t *t, char *err, size_t errlen)
{
    static const struct {
        const char *name;
        topo_net_t kind;
    } plain[] = {{"auto", TOPO_NET_AUTO}, {"star", TOPO_NET_STAR}, {"fullmesh", TOPO_NET_FULLMESH}};
    for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++) {
        if (0 == strcmp(str, plain[i].name)) {
            t->kind = plain[i].kind;
            return TOPO_OK;
        }
    }
    const char *p;
    if (0 == strncmp(str, "graph:", 6)) {
        if ('\0' == str[6]) {
            return fail(err, errlen, "'%s': expected graph:FILE (an edge list)", str);
        }
        t->kind = TOPO_NET_GRAPH;
        return topo_graph_load(str + 6, &t->graph, err, errlen);
    }
    if (0 == strncmp(str, "torus:", 6)) {
        t->kind = TOPO_NET_TORUS;
        p = str + 6;
    } else if (0 == strncmp(str, "mesh:", 5)) {
        t->kind = TOPO_NET_MESH;
        p = str + 5;
    } else {
        return fail(err, errlen,
                    "unknown topology '%s' (expected auto, star, fullmesh, torus:AxBx..., "
                    "mesh:AxB..., graph:FILE)",
                    str);
    }
    long total = 1;
    for (;;) {
        if (!isdigit((unsigned char)*p)) {
            return fail(err, errlen, "'%s': expected a dimension size (a positive integer)", str);
        }
        errno = 0;
        char *end;
        long d = strtol(p, &end, 10);
        if (errno || d < 1 || d > TOPO_MAX_GRID) {
            return fail(err, errlen, "'%s': a dimension size must be between 1 and 16777216",
                        str);
        }
        if (t->ndims == TOPO_MAX_DIMS) {
            return fail(err, errlen, "'%s': at most 8 dimensions", str);
        }
        total *= d;
        if (total > TOPO_MAX_GRID) {
            return fail(err, errlen, "'%s': more than 16777216 ranks", str);
        }
        t->dims[t->ndims] = (int)d;
        t->periodic[t->ndims] = t->kind == TOPO_NET_TORUS;
        t->ndims++;
        p = end;
        if ('\0' == *p) {
            break;
        }
        if ('x' != *p) {
            return fail(err, errlen, "'%s': dimensions are separated by 'x' (e.g. torus:4x4x2)",
                        str);
        }
        p++;
    }
    return TOPO_OK;
}

void topo_topology_format(const topo_topology_t *t, char *buf, size_t len)
{
    static const char *const names[] = {"auto", "star", "fullmesh", "torus", "mesh", "graph"};
    size_t n = (size_t)snprintf(buf, len, "%s", names[t->kind]);
    if (t->kind == TOPO_NET_GRAPH && n < len) {
        n += (size_t)snprintf(buf + n, len - n, ":%s", t->graph->name);
    }
    if (t->kind == TOPO_NET_TORUS || t->kind == TOPO_NET_MESH) {
        for (int i = 0; i < t->ndims && n < len; i++) {
            n += (size_t)snprintf(buf + n, len - n, "%c%d", i ? 'x' : ':', t->dims[i]);
        }
    }
    if (t->ports > 0 && n < len) {
        snprintf(buf + n, len - n, ",ports=%d", t->ports);
    }
}

static int is_grid(const topo_topology_t *t)
{
    return t->kind == TOPO_NET_TORUS || t->kind == TOPO_NET_MESH;
}

int topo_topology_size(const topo_topology_t *t)
{
    if (TOPO_NET_GRAPH == t->kind) {
        return t->graph->n;
    }
    if (!is_grid(t)) {
        return 0;
    }
    int n = 1;
    for (int i = 0; i < t->ndims; i++) {
        n *= t->dims[i];
    }
    return n;
}

void topo_topology_coords(const topo_topology_t *t, int rank, int *coords)
{
    for (int i = t->ndims - 1; i >= 0; i--) {
        coords[i] = rank % t->dims[i];
        rank /= t->dims[i];
    }
}

int topo_topology_rank(const topo_topology_t *t, const int *coords)
{
    int r = 0;
    for (int i = 0; i < t->ndims; i++) {
        r = r * t->dims[i] + coords[i];
    }
    return r;
}

int topo_topology_lane_max(const topo_topology_t *t, int size)
{
    if (!topo_topology_is_grid_of(t, size)) {
        return size;
    }
    int max = 1;
    for (int k = 0; k < t->ndims; k++) {
        max = t->dims[k] > max ? t->dims[k] : max;
    }
    return max;
}

int topo_topology_is_grid_of(const topo_topology_t *t, int size)
{
    return is_grid(t) && NULL == t->place && topo_topology_size(t) == size;
}

int topo_topology_is_direct_of(const topo_topology_t *t, int size)
{
    return topo_topology_is_grid_of(t, size) ||
           (TOPO_NET_GRAPH == t->kind && NULL == t->place && t->graph->n == size);
}

int topo_topology_routes(const topo_topology_t *t, int size)
{
    return (is_grid(t) || TOPO_NET_GRAPH == t->kind) &&
           (NULL != t->place || topo_topology_size(t) == size);
}

int topo_topology_placed(const topo_topology_t *t, int size)
{
    return NULL != t->place && (TOPO_NET_STAR == t->kind || topo_topology_routes(t, size));
}

int topo_topology_hops(const topo_topology_t *t, int a, int b)
{
    if (a == b) {
        return 0;
    }
    if (TOPO_NET_GRAPH == t->kind) {
        return topo_graph_dist(t->graph, topo_topology_node(t, a), topo_topology_node(t, b));
    }
    if (!is_grid(t)) {
        /* a star's placed ranks of one node share memory */
        return TOPO_NET_STAR == t->kind && NULL != t->place && t->place[a] == t->place[b] ? 0 : 1;
    }
    a = topo_topology_node(t, a);
    b = topo_topology_node(t, b);
    int ca[TOPO_MAX_DIMS], cb[TOPO_MAX_DIMS], h = 0;
    topo_topology_coords(t, a, ca);
    topo_topology_coords(t, b, cb);
    for (int i = 0; i < t->ndims; i++) {
        int d = abs(ca[i] - cb[i]);
        if (t->periodic[i] && t->dims[i] - d < d) {
            d = t->dims[i] - d;
        }
        h += d;
    }
    return h;
}

int topo_topology_ports(const topo_topology_t *t, int size)
{
    if (t->ports > 0) {
        return t->ports;
    }
    switch (t->kind) {
    case TOPO_NET_FULLMESH:
        return size > 1 ? size - 1 : 1;
    case TOPO_NET_GRAPH:
        return t->graph->max_out;
    case TOPO_NET_TORUS:
    case TOPO_NET_MESH: {
        int p = 0;
        for (int i = 0; i < t->ndims; i++) {
            /* a ring of 2 has one neighbour; a ring of 1 none */
            p += t->dims[i] > 2 ? 2 : t->dims[i] - 1;
        }
        return p > 0 ? p : 1;
    }
    default:
        return 1;
    }
}
