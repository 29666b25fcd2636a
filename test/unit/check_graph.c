/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests: graph:FILE topologies (graph.h) and bfb on them.  The edge
 * list reader's errors (with line numbers), distances and the routing's
 * tie rule, the graph families (generalized Kautz diameters, circulant
 * distances, line-graph, degree and Cartesian expansions), and bfb
 * (Zhao et al., "Efficient Direct-Connect Topologies for Collective
 * Communications", 2025, sec. 6) through the verifier on tori built as
 * graphs, circulants, generalized Kautz graphs and random regular graphs
 * of fixed seeds, with every step's largest link load equal to LP (1)'s
 * optimum computed here by brute force, and on a torus the paper's
 * bandwidth-optimal (N - 1) / d shards per link. */
#include "cost.h"
#include "graph.h"
#include "unit_common.h"
#include "verify.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const topo_prim_t prims[] = {TOPO_PRIM_ALLGATHER, TOPO_PRIM_REDUCE_SCATTER,
                                    TOPO_PRIM_ALLREDUCE};

/* A file holding `text`; its path in path (unlinked by the caller). */
static void write_tmp(char *path, size_t len, const char *text)
{
    snprintf(path, len, "/tmp/check_graph_XXXXXX");
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

/* Parsing "graph:" + a file of `text`: the return code, the message in err. */
static int parse_text(const char *text, topo_topology_t *t, char *err, size_t len)
{
    char path[64], str[128];
    write_tmp(path, sizeof(path), text);
    snprintf(str, sizeof(str), "graph:%s", path);
    int rc = topo_topology_parse(str, t, err, len);
    unlink(path);
    return rc;
}

START_TEST(test_graph_parse)
{
    char err[256];
    topo_topology_t t;
    /* a directed ring of 4 with a comment, a bandwidth and declarations */
    ck_assert_int_eq(parse_text("# ring\nnodes 4\ndegree 1\n0 1\n1 2 3  # fast\n\n2 3\n3 0\n", &t,
                                err, sizeof(err)),
                     TOPO_OK);
    ck_assert_int_eq(t.kind, TOPO_NET_GRAPH);
    ck_assert_int_eq(topo_topology_size(&t), 4);
    ck_assert_int_eq(t.graph->m, 4);
    ck_assert_int_eq(t.graph->diam, 3);
    ck_assert_int_eq(topo_topology_ports(&t, 4), 1);
    ck_assert_int_eq(topo_topology_hops(&t, 0, 3), 3);
    ck_assert_int_eq(topo_topology_hops(&t, 3, 0), 1);
    ck_assert_int_eq(t.graph->bw[topo_graph_link(t.graph, 1, 2)], 3);
    ck_assert(topo_topology_routes(&t, 4));
    ck_assert(!topo_topology_routes(&t, 5));
    ck_assert(!topo_topology_is_grid_of(&t, 4));
    char buf[128];
    topo_topology_format(&t, buf, sizeof(buf));
    ck_assert_int_eq(strncmp(buf, "graph:/tmp/check_graph_", 23), 0);

    static const struct {
        const char *text, *want;
    } bad[] = {
        {"0 1\n1 x\n", ":2: expected 'u v [bandwidth]'"},
        {"0 1\n1 0 0\n", ":2: the bandwidth"},
        {"0 1\n1 0 1 7\n", ":2: unexpected text"},
        {"0 1\n1 1\n", ":2: link from rank 1 to itself"},
        {"0 1\n1 0\n\n0 1\n", ":4: link 0 -> 1 given again (first on line 1"},
        {"0 1\n1 2\n2 1\n", "not strongly connected: rank 1 cannot reach rank 0"},
        {"degree 2\n0 1\n1 0\n", "degree mismatch: rank 0 has 1 out-links and 1 in-links"},
        {"nodes 2\n0 1\n1 2\n", ":3: rank 2, but the file declares nodes 2"},
        {"nodes 3\n0 1\n1 0\n", "not strongly connected"},
        {"# nothing\n", "no links"},
        {"nodes x\n", ":1: expected 'nodes N'"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err[0] = '\0';
        ck_assert_int_eq(parse_text(bad[i].text, &t, err, sizeof(err)), TOPO_EINVAL);
        ck_assert_msg(NULL != strstr(err, bad[i].want), "'%s': got '%s', want '%s'", bad[i].text,
                      err, bad[i].want);
    }
    ck_assert_int_eq(topo_topology_parse("graph:/nonexistent/g.txt", &t, err, sizeof(err)),
                     TOPO_EINVAL);
    ck_assert_ptr_nonnull(strstr(err, "/nonexistent/g.txt"));
    ck_assert_int_eq(topo_topology_parse("graph:", &t, err, sizeof(err)), TOPO_EINVAL);
    /* the same path twice: the same graph (read once) */
    char path[64], str[128];
    topo_topology_t a, b;
    write_tmp(path, sizeof(path), "0 1\n1 0\n");
    snprintf(str, sizeof(str), "graph:%s,ports=1", path);
    ck_assert_int_eq(topo_topology_parse(str, &a, err, sizeof(err)), TOPO_OK);
    ck_assert_int_eq(topo_topology_parse(str, &b, err, sizeof(err)), TOPO_OK);
    unlink(path);
    ck_assert_ptr_eq(a.graph, b.graph);
    ck_assert_int_eq(a.ports, 1);
    topo_graph_registry_clear();
}
END_TEST

/* Routing: shortest paths, the smallest next rank on a tie; link loads
 * divided by the link's bandwidth. */
START_TEST(test_graph_routing)
{
    char err[256];
    topo_graph_t *g;
    /* C(8, {1, 3}): 0 -> 2 goes 0 -> 1 -> 2 (1 < 3 < 5 < 7 among the
     * neighbours one link closer: 1 and 3 (3 - 1)) */
    const int off[] = {1, 3};
    ck_assert_int_eq(topo_graph_circulant(8, off, 2, &g, err, sizeof(err)), TOPO_OK);
    int e;
    ck_assert_int_eq(topo_graph_dist(g, 0, 2), 2);
    ck_assert_int_eq(topo_graph_next(g, 0, 2, &e), 1);
    ck_assert_int_eq(g->dst[e], 1);
    ck_assert_int_eq(topo_graph_next(g, 0, 4, &e), 1); /* 0-1-4 and 0-3-4 and ... */
    ck_assert_int_eq(topo_graph_next(g, 0, 6, &e), 1); /* 1 - 3 = 6 */
    ck_assert_int_eq(topo_graph_next(g, 2, 6, &e), 1); /* 2-1-6, 2-3-6, 2-5-6 */
    topo_topology_t t = topo_topology_of_graph(g);
    /* a schedule where every rank sends one block to rank + 2: each link
     * u -> u + 1 carries one message (routes u, u+1, u+2) */
    topo_sched_t sc[8];
    for (int r = 0; r < 8; r++) {
        topo_sched_init(&sc[r], 8, r, 8);
        topo_sched_lane(&sc[r]);
        topo_sched_step(&sc[r]);
        topo_sched_send(&sc[r], (r + 2) % 8, r, 1);
        topo_sched_recv(&sc[r], (r + 6) % 8, TOPO_XFER_RECV_COPY, (r + 6) % 8, 1);
        ck_assert_int_eq(topo_sched_finish(&sc[r]), TOPO_OK);
    }
    topo_step_load_t out[2];
    ck_assert_int_eq(topo_link_loads(&t, sc, 8, out, 1), TOPO_OK);
    ut_assert_near(out[0].max_load, 2.0 / 8); /* link u -> u+1: u's and u-1's */
    ck_assert_int_eq(out[0].max_hops, 2);
    for (int r = 0; r < 8; r++) {
        topo_sched_free(&sc[r]);
    }
    ck_assert_int_eq(topo_link_count(&t, 8), 32);
    topo_graph_free(g);

    /* bandwidth: a bidirectional ring of 3 whose link 0 -> 1 is 4 times
     * as fast: a message 0 -> 1 of weight w loads it w / 4 */
    const int s[] = {0, 1, 1, 2, 2, 0}, d[] = {1, 0, 2, 1, 0, 2}, bw[] = {4, 1, 1, 1, 1, 1};
    ck_assert_int_eq(topo_graph_build(3, 6, s, d, bw, "ring3", &g, err, sizeof(err)), TOPO_OK);
    t = topo_topology_of_graph(g);
    double first[2 * TOPO_MAX_DIMS] = {0};
    int links;
    ck_assert(topo_link_classes(&t, 0, 1, 1.0, first, NULL, &links));
    ut_assert_near(first[0], 0.25); /* 0's out-links: 1 (bw 4), 2 */
    ck_assert_int_eq(links, 1);
    topo_graph_free(g);
}
END_TEST

/* The families: sizes, degrees, diameters, distances. */
START_TEST(test_graph_families)
{
    char err[256];
    topo_graph_t *g, *h, *k;
    /* Kautz K(d, D): N = d^D + d^(D-1) ranks, diameter D (Moore optimal) */
    static const int kz[][3] = {{2, 2, 6},  {2, 3, 12}, {2, 4, 24},
                                {3, 2, 12}, {3, 3, 36}, {4, 2, 20}};
    for (size_t i = 0; i < sizeof(kz) / sizeof(kz[0]); i++) {
        ck_assert_int_eq(topo_graph_kautz(kz[i][2], kz[i][0], &g, err, sizeof(err)), TOPO_OK);
        ck_assert_int_eq(g->n, kz[i][2]);
        ck_assert_msg(g->diam == kz[i][1], "kautz d %d N %d: diameter %d", kz[i][0], kz[i][2],
                      g->diam);
        ck_assert_int_eq(g->max_out, kz[i][0]);
        topo_graph_free(g);
    }
    /* generalized Kautz of any N: diameter at most ceil(log_d N) */
    for (int n = 3; n <= 40; n++) {
        ck_assert_int_eq(topo_graph_kautz(n, 2, &g, err, sizeof(err)), TOPO_OK);
        ck_assert_msg(g->diam <= ut_clog2(n), "kautz N %d: diameter %d", n, g->diam);
        topo_graph_free(g);
    }
    /* circulant C(n, {1, s}): distance |i| + |j| minimised over i + j s = v */
    const int off[] = {1, 4};
    ck_assert_int_eq(topo_graph_circulant(17, off, 2, &g, err, sizeof(err)), TOPO_OK);
    ck_assert_int_eq(g->max_out, 4);
    for (int v = 0; v < 17; v++) {
        int best = 99;
        for (int i = -17; i <= 17; i++) {
            for (int j = -17; j <= 17; j++) {
                if (((i + 4 * j) % 17 + 17) % 17 == v && abs(i) + abs(j) < best) {
                    best = abs(i) + abs(j);
                }
            }
        }
        ck_assert_int_eq(topo_graph_dist(g, 0, v), best);
    }
    /* C(n, {n / 2}) has one link each way */
    const int half[] = {1, 2};
    ck_assert_int_eq(topo_graph_circulant(4, half, 2, &h, err, sizeof(err)), TOPO_OK);
    ck_assert_int_eq(h->max_out, 3);
    topo_graph_free(h);
    ck_assert_int_eq(topo_graph_circulant(4, off, 2, &h, err, sizeof(err)), TOPO_EINVAL);
    ck_assert_ptr_nonnull(strstr(err, "offset 4"));
    /* the line graph of a d-regular graph: N d ranks, degree d, diameter
     * + 1 */
    ck_assert_int_eq(topo_graph_kautz(6, 2, &h, err, sizeof(err)), TOPO_OK);
    ck_assert_int_eq(topo_graph_line(h, &k, err, sizeof(err)), TOPO_OK);
    ck_assert_int_eq(k->n, 12);
    ck_assert_int_eq(k->max_out, 2);
    ck_assert_int_eq(k->diam, h->diam + 1);
    topo_graph_free(k);
    /* degree expansion by 2: 2N ranks, degree 2d */
    ck_assert_int_eq(topo_graph_degree_expand(h, 2, &k, err, sizeof(err)), TOPO_OK);
    ck_assert_int_eq(k->n, 12);
    ck_assert_int_eq(k->max_out, 4);
    ck_assert_int_eq(k->max_in, 4);
    ck_assert_int_le(k->diam, h->diam + 1);
    topo_graph_free(k);
    topo_graph_free(h);
    /* the product of two rings is the torus: the same distances */
    const int one[] = {1};
    ck_assert_int_eq(topo_graph_circulant(3, one, 1, &h, err, sizeof(err)), TOPO_OK);
    topo_graph_free(g);
    ck_assert_int_eq(topo_graph_circulant(5, one, 1, &g, err, sizeof(err)), TOPO_OK);
    ck_assert_int_eq(topo_graph_product(h, g, &k, err, sizeof(err)), TOPO_OK);
    topo_topology_t torus = ut_topo("torus:3x5");
    for (int u = 0; u < 15; u++) {
        for (int v = 0; v < 15; v++) {
            ck_assert_int_eq(topo_graph_dist(k, u, v), topo_topology_hops(&torus, u, v));
        }
    }
    /* written and read back */
    char path[64];
    write_tmp(path, sizeof(path), "");
    ck_assert_int_eq(topo_graph_write(k, path, err, sizeof(err)), TOPO_OK);
    const topo_graph_t *back;
    ck_assert_int_eq(topo_graph_load(path, &back, err, sizeof(err)), TOPO_OK);
    unlink(path);
    ck_assert_int_eq(back->n, 15);
    ck_assert_int_eq(back->m, k->m);
    ck_assert_int_eq(back->diam, 3);
    topo_graph_registry_clear();
    topo_graph_free(k);
    topo_graph_free(g);
    topo_graph_free(h);
}
END_TEST

/* A random d-regular digraph on n ranks (d permutations, each drawn
 * again until it has no self-link and repeats no link), strongly
 * connected, from `seed`. */
static topo_graph_t *random_regular(int n, int d, unsigned seed)
{
    char err[256];
    int *s = malloc(sizeof(int) * (size_t)(n * d)), *t = malloc(sizeof(int) * (size_t)(n * d));
    int *perm = malloc(sizeof(int) * (size_t)n);
    unsigned x = seed * 2654435761u + 1;
    for (int attempt = 0;; attempt++) {
        int m = 0;
        for (int j = 0; j < d; j++) {
            for (int tries = 0, ok = 0; !ok; tries++) {
                ck_assert_int_lt(tries, 100000);
                for (int i = 0; i < n; i++) {
                    perm[i] = i;
                }
                for (int i = n - 1; i > 0; i--) { /* Fisher-Yates on an LCG */
                    x = x * 1103515245u + 12345u;
                    const int r = (int)((x >> 8) % (unsigned)(i + 1));
                    const int tmp = perm[i];
                    perm[i] = perm[r];
                    perm[r] = tmp;
                }
                ok = 1;
                for (int u = 0; u < n && ok; u++) {
                    ok = perm[u] != u;
                    for (int e = 0; e < m && ok; e++) {
                        ok = !(s[e] == u && t[e] == perm[u]);
                    }
                }
            }
            for (int u = 0; u < n; u++) {
                s[m] = u;
                t[m++] = perm[u];
            }
        }
        topo_graph_t *g = NULL;
        if (TOPO_OK == topo_graph_build(n, m, s, t, NULL, "random", &g, err, sizeof(err))) {
            free(s);
            free(t);
            free(perm);
            return g;
        }
        ck_assert_msg(attempt < 1000, "random %d %d: %s", n, d, err);
    }
}

/* LP (1)'s optimum for step `step` at receiver u, by brute force over
 * sets Q of u's in-links: the sources at distance step all of whose
 * shortest-path in-links lie in Q, over Q's bandwidth. */
static double lp_optimum(const topo_graph_t *g, int u, int step, int transpose)
{
    int in[16], bw[16], nin = 0;
    for (int w = 0; w < g->n; w++) {
        const int e = transpose ? topo_graph_link(g, u, w) : topo_graph_link(g, w, u);
        if (e >= 0) {
            bw[nin] = g->bw[e];
            in[nin++] = w;
        }
    }
#define D(a, b) (transpose ? topo_graph_dist(g, b, a) : topo_graph_dist(g, a, b))
    double best = 0;
    for (int q = 1; q < (1 << nin); q++) {
        int size = 0, jobs = 0;
        for (int k = 0; k < nin; k++) {
            size += ((q >> k) & 1) * bw[k];
        }
        for (int v = 0; v < g->n; v++) {
            if (D(v, u) != step) {
                continue;
            }
            int inside = 1;
            for (int k = 0; k < nin; k++) {
                if (D(v, in[k]) == step - 1 && !((q >> k) & 1)) {
                    inside = 0;
                }
            }
            jobs += inside;
        }
        best = (double)jobs / size > best ? (double)jobs / size : best;
    }
#undef D
    return best;
}

/* Per step, the largest link load (shards over the link's bandwidth) of
 * the phase of schedules sc: steps [s0, s0 + n). */
static void max_loads(const topo_graph_t *g, const topo_sched_t *sc, int s0, int n, double *max)
{
    for (int s = 0; s < n; s++) {
        max[s] = 0;
    }
    for (int r = 0; r < g->n; r++) {
        for (int s = 0; s < n; s++) {
            const topo_step_t *st = topo_sched_explicit_step(&sc[r], 0, s0 + s);
            for (int x = st->xfer0; x < st->xfer0 + st->nxfers; x++) {
                const topo_xfer_t *xf = &sc[r].xfers[x];
                if (xf->kind != TOPO_XFER_SEND) {
                    continue;
                }
                const int e = topo_graph_link(g, r, xf->peer);
                ck_assert_msg(e >= 0, "%s: rank %d sends to %d, not a neighbour", g->name, r,
                              xf->peer);
                const double l = (double)xf->nblk * g->n / sc[r].nblocks / g->bw[e];
                max[s] = l > max[s] ? l : max[s];
            }
        }
    }
}

/* bfb on g: the verifier's proof for every primitive, neighbour messages
 * only, each step's largest link load LP (1)'s optimum (allgather on g,
 * reduce-scatter reversed on the transpose); returns the allgather's
 * shards per link (the bandwidth term in shards). */
static double check_bfb(const topo_graph_t *g)
{
    topo_topology_t t = topo_topology_of_graph(g);
    const int p = g->n, D = g->diam;
    char msg[512];
    for (size_t k = 0; k < sizeof(prims) / sizeof(prims[0]); k++) {
        const topo_algo_t *al = ut_algo(prims[k], "bfb");
        topo_gen_args_t a = {prims[k], p, 0, 0, &t};
        ck_assert_msg(topo_algo_fits(al, &a, TOPO_OP_COMMUTATIVE, msg, sizeof(msg)), "%s: %s",
                      g->name, msg);
        int rc = topo_verify_algo(al, &a, msg, sizeof(msg));
        ck_assert_msg(rc == TOPO_OK, "bfb %s on %s: %s", topo_prim_name(prims[k]), g->name, msg);
    }
    double max[64], sum = 0;
    ck_assert_int_le(D, 64);
    topo_sched_t *sc = ut_gen_all(TOPO_PRIM_ALLREDUCE, "bfb", p, 0, &t);
    ck_assert_int_eq(topo_sched_depth(&sc[0]), 2 * D);
    max_loads(g, sc, D, D, max); /* the allgather half */
    for (int s = 0; s < D; s++) {
        double want = 0;
        for (int u = 0; u < p; u++) {
            const double o = lp_optimum(g, u, s + 1, 0);
            want = o > want ? o : want;
        }
        ck_assert_msg(fabs(max[s] - want) < 1e-12, "%s allgather step %d: max load %g, LP %g",
                      g->name, s + 1, max[s], want);
        sum += max[s];
    }
    max_loads(g, sc, 0, D, max); /* the reduce-scatter half, reversed */
    for (int s = 0; s < D; s++) {
        double want = 0;
        for (int u = 0; u < p; u++) {
            const double o = lp_optimum(g, u, D - s, 1);
            want = o > want ? o : want;
        }
        ck_assert_msg(fabs(max[s] - want) < 1e-12, "%s reduce-scatter step %d: max load %g, LP %g",
                      g->name, s + 1, max[s], want);
    }
    ut_free_all(sc, p);
    return sum;
}

/* Tori built as products of rings: the bandwidth-optimal (N - 1) / d
 * shards per link (Theorem 13) and the same price as bfb on the torus. */
START_TEST(test_graph_bfb_torus)
{
    static const int shapes[][2] = {{3, 5}, {2, 8}, {4, 4}, {3, 4}, {5, 6}};
    char err[256], name[32];
    const int one[] = {1};
    for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
        topo_graph_t *a, *b, *g;
        ck_assert_int_eq(topo_graph_circulant(shapes[i][0], one, 1, &a, err, sizeof(err)), TOPO_OK);
        ck_assert_int_eq(topo_graph_circulant(shapes[i][1], one, 1, &b, err, sizeof(err)), TOPO_OK);
        ck_assert_int_eq(topo_graph_product(a, b, &g, err, sizeof(err)), TOPO_OK);
        const int p = g->n, d = g->max_in;
        const double sum = check_bfb(g);
        ck_assert_msg(fabs(sum - (double)(p - 1) / d) < 1e-9, "%s: %g shards per link, not %g",
                      g->name, sum, (double)(p - 1) / d);
        /* priced from its schedule: the graph and the torus agree */
        topo_topology_t tg = topo_topology_of_graph(g);
        snprintf(name, sizeof(name), "torus:%dx%d", shapes[i][0], shapes[i][1]);
        topo_topology_t tt = ut_topo(name);
        for (size_t k = 0; k < sizeof(prims) / sizeof(prims[0]); k++) {
            double lat, bw, tlat, tbw;
            ut_affine(prims[k], "bfb", p, 0, &tg, NULL, &lat, &bw);
            ut_affine(prims[k], "bfb", p, 0, &tt, NULL, &tlat, &tbw);
            ut_assert_near(lat, tlat);
            ut_assert_near(bw, tbw);
            ut_assert_near(bw, (prims[k] == TOPO_PRIM_ALLREDUCE ? 2.0 : 1.0) * (p - 1) /
                                   ((double)p * d));
        }
        topo_graph_free(a);
        topo_graph_free(b);
        topo_graph_free(g);
    }
}
END_TEST

START_TEST(test_graph_bfb_circulant)
{
    static const struct {
        int n, k, off[3];
    } c[] = {{8, 2, {1, 3}}, {12, 2, {1, 5}},   {13, 2, {2, 5}}, {16, 2, {1, 4}},
             {7, 1, {1}},    {9, 3, {1, 2, 4}}, {20, 2, {1, 6}}, {6, 2, {1, 3}}};
    char err[256];
    for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
        topo_graph_t *g;
        ck_assert_int_eq(topo_graph_circulant(c[i].n, c[i].off, c[i].k, &g, err, sizeof(err)),
                         TOPO_OK);
        const double sum = check_bfb(g);
        /* degree 4 (k = 2, no offset n / 2): bandwidth-optimal (the paper
         * proves it for two offsets) */
        if (2 == c[i].k && 2 * c[i].off[1] != c[i].n) {
            ck_assert_msg(fabs(sum - (double)(g->n - 1) / 4) < 1e-9, "%s: %g shards per link",
                          g->name, sum);
        }
        topo_graph_free(g);
    }
}
END_TEST

START_TEST(test_graph_bfb_kautz)
{
    static const int c[][2] = {{6, 2}, {12, 2}, {10, 2}, {12, 3}, {20, 4}, {30, 3}, {24, 2}};
    char err[256];
    for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
        topo_graph_t *g;
        ck_assert_int_eq(topo_graph_kautz(c[i][0], c[i][1], &g, err, sizeof(err)), TOPO_OK);
        const double sum = check_bfb(g);
        /* never below the bound (N - 1) / d */
        ck_assert_double_ge(sum, (double)(g->n - 1) / g->max_in - 1e-9);
        topo_graph_free(g);
    }
}
END_TEST

START_TEST(test_graph_bfb_random)
{
    static const int c[][3] = {{10, 2, 1}, {16, 3, 2}, {24, 4, 3}, {12, 2, 4}, {32, 3, 5}};
    for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
        topo_graph_t *g = random_regular(c[i][0], c[i][1], (unsigned)c[i][2]);
        check_bfb(g);
        topo_graph_free(g);
    }
}
END_TEST

/* Bandwidths: a ring with one fast link and a heterogeneous graph. */
START_TEST(test_graph_bfb_bandwidth)
{
    char err[256];
    topo_graph_t *g;
    const int s[] = {0, 1, 1, 2, 2, 3, 3, 0, 0, 2}, d[] = {1, 0, 2, 1, 3, 2, 0, 3, 2, 0},
              bw[] = {2, 1, 1, 3, 1, 1, 2, 1, 4, 1};
    ck_assert_int_eq(topo_graph_build(4, 10, s, d, bw, "weighted", &g, err, sizeof(err)), TOPO_OK);
    check_bfb(g);
    topo_graph_free(g);
}
END_TEST

/* Where bfb does not fit: a placement, another size, in-degree over 8. */
START_TEST(test_graph_bfb_restrictions)
{
    char err[256], why[256];
    topo_graph_t *g;
    const int off[] = {1, 2, 3, 4, 5};
    ck_assert_int_eq(topo_graph_circulant(11, off, 5, &g, err, sizeof(err)), TOPO_OK);
    topo_topology_t t = topo_topology_of_graph(g);
    const topo_algo_t *al = ut_algo(TOPO_PRIM_ALLGATHER, "bfb");
    topo_gen_args_t a = {TOPO_PRIM_ALLGATHER, 11, 0, 0, &t};
    ck_assert(!topo_algo_fits(al, &a, TOPO_OP_EXACT, why, sizeof(why)));
    ck_assert_ptr_nonnull(strstr(why, "degrees up to 8"));
    topo_sched_t s;
    ck_assert_int_eq(topo_algo_generate(al, &a, &s), TOPO_ENOTSUP);
    topo_sched_free(&s);
    topo_graph_free(g);
    ck_assert_int_eq(topo_graph_kautz(12, 2, &g, err, sizeof(err)), TOPO_OK);
    t = topo_topology_of_graph(g);
    a.size = 10;
    ck_assert(!topo_algo_fits(al, &a, TOPO_OP_EXACT, why, sizeof(why)));
    ck_assert_ptr_nonnull(strstr(why, "graph topology of 10 ranks"));
    a.size = 12;
    ck_assert(topo_algo_fits(al, &a, TOPO_OP_EXACT, why, sizeof(why)));
    /* grid algorithms are not candidates on a graph */
    ck_assert(!topo_algo_fits(ut_algo(TOPO_PRIM_ALLGATHER, "bucket"), &a, TOPO_OP_EXACT, why,
                              sizeof(why)));
    topo_graph_free(g);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("graph");
    TCase *model = ut_tcase(s, "graph_model", 300);
    tcase_add_test(model, test_graph_parse);
    tcase_add_test(model, test_graph_routing);
    tcase_add_test(model, test_graph_families);
    TCase *bfb = ut_tcase(s, "graph_bfb", 900);
    tcase_add_test(bfb, test_graph_bfb_torus);
    tcase_add_test(bfb, test_graph_bfb_circulant);
    tcase_add_test(bfb, test_graph_bfb_kautz);
    tcase_add_test(bfb, test_graph_bfb_random);
    tcase_add_test(bfb, test_graph_bfb_bandwidth);
    tcase_add_test(bfb, test_graph_bfb_restrictions);
    return ut_run_suite(s);
}
