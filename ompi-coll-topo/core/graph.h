/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Direct-connect graphs: the topology "graph:FILE", a directed graph of
 * ranks 0..N-1 read from an edge list, and the graph families of Zhao et
 * al., "Efficient Direct-Connect Topologies for Collective
 * Communications", 2025 (circulants, generalized Kautz, line-graph and
 * degree expansions, Cartesian products) built in memory.  Plain C, no MPI.
 *
 * File format: one directed link "u v" per line (u sends to v), an optional
 * third column with the link's relative bandwidth (a positive integer, 1
 * when absent), '#' starts a comment, blank lines are ignored.  Two
 * optional declarations check the file: "nodes N" (the graph has exactly
 * N ranks) and "degree D" (every rank has D out-links and D in-links).
 * A link may appear once; a rank has at most TOPO_GRAPH_MAX_DEGREE
 * out-links; the graph must be strongly connected (every rank reaches
 * every other).
 *
 * Routing: shortest paths in links (bandwidths do not lengthen a route).
 * Tie rule: at every node the message takes the out-link towards the
 * smallest-numbered neighbour that is one link closer to the destination,
 * so every route is fixed and every rank computes the same one.
 */
#ifndef TOPO_GRAPH_H
#define TOPO_GRAPH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Out-links per rank a graph may have (the cost model's per-rank link
 * classes: 2 * TOPO_MAX_DIMS). */
#define TOPO_GRAPH_MAX_DEGREE 16
/* Ranks a graph may have (the distance table is N * N 16-bit entries). */
#define TOPO_GRAPH_MAX_NODES 8192
/* The largest relative bandwidth of a link. */
#define TOPO_GRAPH_MAX_BW 1000

typedef struct topo_graph {
    int n;          /* ranks */
    int m;          /* directed links */
    int *out0;      /* rank u's out-links are links out0[u] .. out0[u + 1] - 1 */
    int *dst;       /* m: link e goes from its rank to dst[e], ascending per rank */
    int *bw;        /* m: relative bandwidth */
    int *in0;       /* rank v's in-links are inl[in0[v] .. in0[v + 1]) */
    int *inl;       /* m: link indices, ascending source rank per rank */
    int *src;       /* m: link e's source */
    uint16_t *dist; /* n * n: dist[u * n + v] = links from u to v */
    int diam;       /* the largest distance */
    int max_out, max_in;
    int uniform; /* every link has bandwidth 1 */
    char *name;  /* the file, or the family's spelling */
    /* Per-topology caches of the algorithms (algo_bfb.c): computed once,
     * by whoever needs them first (read and written atomically). */
    int bfb_parts;   /* 0: not yet; -1: too many; else parts per shard */
    int bfb_parts_t; /* the same on the transpose (the reduce-scatter's) */
} topo_graph_t;

static inline int topo_graph_dist(const topo_graph_t *g, int u, int v)
{
    return g->dist[(size_t)u * (size_t)g->n + (size_t)v];
}

/* The graph of file `path`, read once per process: later calls with the
 * same path return the same graph (a process-wide registry; graphs live
 * until topo_graph_registry_clear).  On error TOPO_EINVAL (or
 * TOPO_ENOMEM) with a one-line reason in err, naming the file and line. */
int topo_graph_load(const char *path, const topo_graph_t **g, char *err, size_t errlen);
/* Free every graph topo_graph_load returned (tools and tests). */
void topo_graph_registry_clear(void);

/* A graph from m links src[e] -> dst[e] (bw NULL: all 1) on n ranks,
 * validated as a file is (line numbers are link numbers + 1).  The caller
 * frees it with topo_graph_free. */
int topo_graph_build(int n, int m, const int *src, const int *dst, const int *bw, const char *name,
                     topo_graph_t **g, char *err, size_t errlen);
void topo_graph_free(topo_graph_t *g);

/* Write g as a graph: file (with "nodes" and, where regular, "degree"). */
int topo_graph_write(const topo_graph_t *g, const char *path, char *err, size_t errlen);

/* The next rank on the route from u to v (u != v; the tie rule above) and
 * the link taken (*link). */
int topo_graph_next(const topo_graph_t *g, int u, int v, int *link);
/* The link u -> v, or -1. */
int topo_graph_link(const topo_graph_t *g, int u, int v);

/* Families (Zhao et al. 2025, sec. 4 and 5).  Each returns TOPO_OK and a
 * graph to free, or TOPO_EINVAL with the reason.
 *   circulant: n ranks, rank u linked to u + s and u - s (mod n) for each
 *     offset s (bidirectional; s = n / 2 gives one link each way);
 *   kautz: generalized Kautz graph of degree d on n ranks, u -> (-u d - j)
 *     mod n for j = 1..d (Imase and Itoh; diameter ceil(log_d n) at most);
 *   line: the line graph of g (a rank per link of g; link (a->b) to
 *     (b->c)): d-regular g of n ranks becomes d-regular of n d ranks,
 *     diameter + 1;
 *   degree: degree expansion by k: g's ranks each become k copies, copy
 *     (u, i) linked to copy (v, j) for every link u -> v of g and all i,
 *     j: n k ranks, degree d k, same diameter;
 *   product: the Cartesian product of a and b: (u, v) linked to (u', v)
 *     and (u, v'), rank u * b->n + v. */
int topo_graph_circulant(int n, const int *offsets, int noffsets, topo_graph_t **g, char *err,
                         size_t errlen);
int topo_graph_kautz(int n, int d, topo_graph_t **g, char *err, size_t errlen);
int topo_graph_line(const topo_graph_t *a, topo_graph_t **g, char *err, size_t errlen);
int topo_graph_degree_expand(const topo_graph_t *a, int k, topo_graph_t **g, char *err,
                             size_t errlen);
int topo_graph_product(const topo_graph_t *a, const topo_graph_t *b, topo_graph_t **g, char *err,
                       size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
