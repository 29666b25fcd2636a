/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/* Helpers shared by the Check unit tests: see unit_common.h. */
#include "unit_common.h"

#include "verify.h"

#include <stdint.h>
#include <stdlib.h>

const topo_cost_params_t ut_unit = {1.0, 1.0, 0.0};
const topo_cost_net_t ut_ports_only = {.no_links = 1};

ut_model_t ut_compare_model(int price_ranks)
{
    return (ut_model_t){.par = {2e-6, 1e-10, 5e-11},
                        .net = {.copy = 1e-10,
                                .msg_overhead = 5e-8,
                                .intra_alpha = 5e-7,
                                .intra_beta = 5e-11,
                                .intra_beta_written = 1.5e-10,
                                .price_ranks = price_ranks},
                        .proto = {.eager = 4096.0, .rndv = 4e-6, .rndv_intra = 5e-7}};
}

topo_topology_t ut_topo(const char *str)
{
    topo_topology_t t;
    char err[256];
    int rc = topo_topology_parse(str, &t, err, sizeof(err));
    ck_assert_msg(rc == TOPO_OK, "'%s' rejected: %s", str, err);
    return t;
}

const topo_algo_t *ut_algo(topo_prim_t prim, const char *name)
{
    const topo_algo_t *a = topo_catalog_find(prim, name);
    ck_assert_msg(a != NULL, "%s %s not in the catalog", topo_prim_name(prim), name);
    return a;
}

const topo_algo_t *ut_allreduce(const char *name)
{
    return ut_algo(TOPO_PRIM_ALLREDUCE, name);
}

topo_sched_t *ut_gen_all(topo_prim_t prim, const char *name, int p, int root,
                         const topo_topology_t *t)
{
    const topo_algo_t *al = ut_algo(prim, name);
    topo_sched_t *sc = calloc((size_t)p, sizeof(*sc));
    ck_assert_ptr_nonnull(sc);
    for (int r = 0; r < p; r++) {
        topo_gen_args_t a = {prim, p, r, root, t};
        topo_sched_t g;
        ck_assert_int_eq(topo_algo_generate(al, &a, &g), TOPO_OK);
        /* the explicit form, which the tests index (topo_sched_explicit_step) */
        ck_assert_int_eq(topo_sched_expand(&g, &sc[r]), TOPO_OK);
        topo_sched_free(&g);
    }
    return sc;
}

topo_sched_t *ut_gen_allreduce(const char *name, int p, const topo_topology_t *t)
{
    return ut_gen_all(TOPO_PRIM_ALLREDUCE, name, p, 0, t);
}

void ut_free_all(topo_sched_t *sc, int p)
{
    for (int r = 0; r < p; r++) {
        topo_sched_free(&sc[r]);
    }
    free(sc);
}

int ut_retype_first(topo_sched_t *s, int from, int to)
{
    for (int i = 0; i < s->nxfers; i++) {
        if (s->xfers[i].kind == from) {
            s->xfers[i].kind = (uint8_t)to;
            return 1;
        }
    }
    return 0;
}

topo_step_load_t *ut_link_loads(const char *name, const topo_topology_t *t, int p, int *depth)
{
    topo_sched_t *sc = ut_gen_allreduce(name, p, t);
    *depth = topo_sched_depth(&sc[0]);
    topo_step_load_t *out = calloc((size_t)*depth + 1, sizeof(*out));
    ck_assert_ptr_nonnull(out);
    ck_assert_int_eq(topo_link_loads(t, sc, p, out, *depth), TOPO_OK);
    ut_free_all(sc, p);
    return out;
}

void ut_affine(topo_prim_t prim, const char *name, int p, int root, const topo_topology_t *t,
               const topo_cost_net_t *net, double *lat, double *bw)
{
    topo_gen_args_t a = {prim, p, 0, root, t};
    ck_assert_int_eq(topo_cost_affine_net(ut_algo(prim, name), &a, &ut_unit, net, lat, bw),
                     TOPO_OK);
}

void ut_expect_affine(topo_prim_t prim, const char *name, int p, int root, const topo_topology_t *t,
                      const topo_cost_net_t *net, double lat, double bw)
{
    double l, b;
    ut_affine(prim, name, p, root, t, net, &l, &b);
    ck_assert_msg(fabs(l - lat) < 1e-9, "%s %s p=%d root=%d: lat = %.12g, expected %.12g",
                  topo_prim_name(prim), name, p, root, l, lat);
    ck_assert_msg(fabs(b - bw) < 1e-9, "%s %s p=%d root=%d: bw = %.12g, expected %.12g",
                  topo_prim_name(prim), name, p, root, b, bw);
}

int ut_clog2(int n)
{
    int k = 0;
    while ((1 << k) < n) {
        k++;
    }
    return k;
}

int ut_flog2(int n)
{
    int k = 0;
    while ((2 << k) <= n) {
        k++;
    }
    return k;
}

TCase *ut_tcase(Suite *s, const char *name, double timeout)
{
    TCase *tc = tcase_create(name);
    tcase_set_timeout(tc, timeout);
    suite_add_tcase(s, tc);
    return tc;
}

int ut_run_suite(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

void ut_verify_allreduce(const char *name, int p, const topo_topology_t *t, const char *label)
{
    topo_gen_args_t a = {TOPO_PRIM_ALLREDUCE, p, 0, 0, t};
    char msg[512];
    int rc = topo_verify_algo(ut_allreduce(name), &a, msg, sizeof(msg));
    ck_assert_msg(rc == TOPO_OK, "%s on %s (p=%d): %s", name, label, p, msg);
}

void ut_verify_allreduce_grid(const char *name, const char *shape)
{
    topo_topology_t t = ut_topo(shape);
    ut_verify_allreduce(name, topo_topology_size(&t), &t, shape);
}

void ut_verify_allreduce_off_grid(const char *name)
{
    topo_topology_t t = ut_topo("torus:4x4");
    ut_verify_allreduce(name, 12, &t, "torus:4x4 (12 ranks)");
    ut_verify_allreduce(name, 17, &t, "torus:4x4 (17 ranks)");
}

void ut_expect_windows_agree(const topo_algo_t *algo, const topo_gen_args_t *a,
                             const topo_cost_params_t *p, const topo_cost_net_t *net)
{
    double lat0, bw0, lat1, bw1, lat2, bw2;
    ck_assert_int_eq(topo_cost_affine_net(algo, a, p, net, &lat0, &bw0), TOPO_OK);
    size_t old = topo_cost_link_budget(1);
    ck_assert_int_eq(topo_cost_affine_net(algo, a, p, net, &lat1, &bw1), TOPO_OK);
    topo_cost_link_budget(3 * topo_link_count(a->topo, a->size));
    ck_assert_int_eq(topo_cost_affine_net(algo, a, p, net, &lat2, &bw2), TOPO_OK);
    topo_cost_link_budget(old);
    ck_assert_msg(
        fabs(bw0 - bw1) < 1e-20 && fabs(bw0 - bw2) < 1e-20 && lat0 == lat1 && lat0 == lat2,
        "%s: per byte %g %g %g, latency %g %g %g", algo->name, bw0, bw1, bw2, lat0, lat1, lat2);
}
