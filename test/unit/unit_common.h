/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/* Helpers shared by the Check unit tests (test/unit/check_*.c), built into
 * libunitcommon.la and linked into every one of them (test/Makefile.am).
 * Each asserts with Check, so it may only be called from a test or a
 * checked fixture. */
#ifndef UNIT_COMMON_H
#define UNIT_COMMON_H

#include "cost.h"
#include "decision.h"
#include "links.h"

#include <check.h>
#include <math.h>

/* alpha = 1, 1/BW = 1, no reduction cost: costs read in units of alpha and
 * M/BW, as the papers write them */
extern const topo_cost_params_t ut_unit;
/* the contention-free closed forms: ports only, no link sharing (cost.h) */
extern const topo_cost_net_t ut_ports_only;

/* |x - y| < eps, naming x in the failure message. */
#define ut_assert_near_eps(x, y, eps)                                                     \
    ck_assert_msg(fabs((x) - (y)) < (eps), "%s = %.12g, expected %.12g", #x, (double)(x), \
                  (double)(y))
#define ut_assert_near(x, y) ut_assert_near_eps(x, y, 1e-9)

/* The topology of `str`, which must parse. */
topo_topology_t ut_topo(const char *str);

/* The model of the tests that compare two pricings of one call
 * (check_decision's pruned against unpruned, check_share's shared against
 * alone): a network of 2 us and 10 GB/s, local copies, message overheads
 * and a node's shared memory, rendezvous above 4 KiB, priced on
 * `price_ranks` ranks (cost.h). */
typedef struct {
    topo_cost_params_t par;
    topo_cost_net_t net;
    topo_proto_t proto;
} ut_model_t;
ut_model_t ut_compare_model(int price_ranks);

/* Catalog row (prim, name), which must exist. */
const topo_algo_t *ut_algo(topo_prim_t prim, const char *name);
const topo_algo_t *ut_allreduce(const char *name);

/* All ranks' schedules of catalog row (prim, name) on p ranks of t for
 * `root`, each generated successfully, in the explicit form (topo_sched_expand:
 * the tests index it through topo_sched_explicit_step); free with ut_free_all. */
topo_sched_t *ut_gen_all(topo_prim_t prim, const char *name, int p, int root,
                         const topo_topology_t *t);
topo_sched_t *ut_gen_allreduce(const char *name, int p, const topo_topology_t *t);
void ut_free_all(topo_sched_t *sc, int p);

/* Retype the first transfer of kind `from` in s to `to`; 1 if there was
 * one. */
int ut_retype_first(topo_sched_t *s, int from, int to);

/* Link loads of allreduce `name` on p ranks of t, one per step of rank 0's
 * schedule (*depth of them, plus a spare zeroed entry); free() them. */
topo_step_load_t *ut_link_loads(const char *name, const topo_topology_t *t, int p, int *depth);

/* The affine cost (lat alpha + bw M/BW at ut_unit) of catalog row
 * (prim, name) on p ranks of t for `root`, seen from rank 0; net NULL:
 * the contention-aware default (topo_cost_affine). */
void ut_affine(topo_prim_t prim, const char *name, int p, int root, const topo_topology_t *t,
               const topo_cost_net_t *net, double *lat, double *bw);
/* ut_affine, asserting both terms within 1e-9 of lat and bw. */
void ut_expect_affine(topo_prim_t prim, const char *name, int p, int root, const topo_topology_t *t,
                      const topo_cost_net_t *net, double lat, double bw);

/* The cost of algo on a at p and net (NULL: defaults) must be the same
 * with the smallest link budgets (1 double, 3 steps of links: the windowed
 * pass and the direct-step shortcut) as in one pass. */
void ut_expect_windows_agree(const topo_algo_t *algo, const topo_gen_args_t *a,
                             const topo_cost_params_t *p, const topo_cost_net_t *net);

/* Allreduce `name` on p ranks of t through the verifier, failing with
 * `label` (the topology as the test names it) and the verifier's reason. */
void ut_verify_allreduce(const char *name, int p, const topo_topology_t *t, const char *label);
/* The same on every rank of the grid `shape` (as ut_topo parses it). */
void ut_verify_allreduce_grid(const char *name, const char *shape);
/* The same on 12 and 17 ranks of torus:4x4, a grid of another size than
 * the communicator (the multiport algorithms then run on one ring). */
void ut_verify_allreduce_off_grid(const char *name);

/* ceil(log2 n) and floor(log2 n) (0 for n <= 1). */
int ut_clog2(int n);
int ut_flog2(int n);

/* A new test case `name` of s whose tests each fail after `timeout`
 * seconds of wall-clock time.  Every test case is made here, never with
 * tcase_create (check-sources.sh fails on one): Check's default, 4 s, is
 * no bound on a loaded or sanitized build, where tests taking 0.1-0.4 s
 * on an idle machine took 8-11 s.  The rule: at least 300 times the case's
 * slowest test in an -O2 build on an idle machine, and never below 120 s;
 * a sanitizer build multiplies it by CK_TIMEOUT_MULTIPLIER (test/Makefile.am
 * sets it).  Timeouts only apply where Check forks (CK_FORK unset or yes). */
TCase *ut_tcase(Suite *s, const char *name, double timeout);

/* Run every test of s; EXIT_SUCCESS if none failed, else EXIT_FAILURE. */
int ut_run_suite(Suite *s);

#endif
