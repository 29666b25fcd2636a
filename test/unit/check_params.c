/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests: ranges of the numeric MCA parameters (core/params.c). */
#include "params.h"
#include "unit_common.h"

#include <check.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the callback was told: one line per parameter replaced. */
typedef struct {
    int n;
    char said[8][160];
} told_t;

static void tell(const topo_param_t *p, const char *value, void *arg)
{
    told_t *t = arg;
    ck_assert_int_lt(t->n, 8);
    snprintf(t->said[t->n++], sizeof(t->said[0]), "%s=%s", p->name, value);
}

START_TEST(test_parse_double)
{
    static const struct {
        const char *s;
        double v;
    } good[] = {
        {"1e-10", 1e-10}, {"2e-6", 2e-6},      {" 0.5 ", 0.5}, {"-1", -1.0},
        {"0", 0.0},       {"1.5E-07", 1.5e-7}, {"+3", 3.0},    {"1e-400", 0.0},
    };
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        double v = -42.0;
        ck_assert_msg(topo_param_parse_double(good[i].s, &v), "'%s' rejected", good[i].s);
        ck_assert_msg(v == good[i].v, "'%s' read as %g", good[i].s, v);
    }
    /* NaN and infinities parse: the range rejects them */
    double v = 0.0;
    ck_assert(topo_param_parse_double("nan", &v) && isnan(v));
    ck_assert(topo_param_parse_double("inf", &v) && isinf(v) && v > 0);
    ck_assert(topo_param_parse_double("-Infinity", &v) && isinf(v) && v < 0);
    static const char *const bad[] = {"", "  ", "x", "1e-10x", "1,5", "0x", "1e999", "--1", "1 2"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        v = 7.0;
        ck_assert_msg(!topo_param_parse_double(bad[i], &v), "'%s' accepted", bad[i]);
        ck_assert(7.0 == v); /* untouched */
    }
    ck_assert(!topo_param_parse_double(NULL, &v));
}
END_TEST

START_TEST(test_format_double)
{
    static const struct {
        double v;
        const char *text;
    } cases[] = {
        {1e-10, "1e-10"}, {2e-6, "2e-06"}, {1.5e-7, "1.5e-07"}, {0.05, "0.05"},
        {0.0, "0"},       {-1.0, "-1"},    {1e6, "1e+06"},      {0.1 + 0.2, "0.30000000000000004"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char buf[TOPO_PARAM_TEXT_LEN];
        topo_param_format_double(cases[i].v, buf, sizeof(buf));
        ck_assert_str_eq(buf, cases[i].text);
        double back;
        ck_assert(topo_param_parse_double(buf, &back) && back == cases[i].v);
    }
}
END_TEST

START_TEST(test_range_text)
{
    int i_var = 0;
    double d_var = 0.0;
    const topo_param_t ports = {"coll_topo_ports", TOPO_PARAM_INT, &i_var, NULL, 0, 1024, false, 0};
    const topo_param_t beta = {
        "coll_topo_beta", TOPO_PARAM_DOUBLE, &d_var, NULL, 0, 1e-3, false, 1e-10};
    const topo_param_t margin = {
        "coll_topo_autotune_margin", TOPO_PARAM_DOUBLE, &d_var, NULL, -1, 1e6, true, 0.0};
    const topo_param_t ranks = {
        "coll_topo_price_ranks", TOPO_PARAM_INT, &i_var, NULL, -1, INT_MAX, false, 256};
    char buf[TOPO_PARAM_TEXT_LEN];
    topo_param_range(&ports, buf, sizeof(buf));
    ck_assert_str_eq(buf, "0 to 1024");
    topo_param_range(&beta, buf, sizeof(buf));
    ck_assert_str_eq(buf, "0 to 0.001");
    topo_param_range(&margin, buf, sizeof(buf));
    ck_assert_str_eq(buf, "above -1 up to 1e+06");
    topo_param_range(&ranks, buf, sizeof(buf));
    ck_assert_str_eq(buf, "-1 to 2147483647");
    topo_param_format_default(&beta, buf, sizeof(buf));
    ck_assert_str_eq(buf, "1e-10");
    topo_param_format_default(&ranks, buf, sizeof(buf));
    ck_assert_str_eq(buf, "256");
}
END_TEST

/* Every type, in range and out of it, in one table and one call. */
START_TEST(test_check_table)
{
    int ports = 1000000, verbose = 2;
    long eager = -5;
    size_t seg = SIZE_MAX, keep = 4096;
    double margin = -1.0, alpha = 0, beta = 0, gamma = 0, copy = 0, hop = 0, intra = 0;
    char *alpha_text = "-2e-6", *beta_text = "nan", *gamma_text = "inf", *copy_text = "1e-10x",
         *hop_text = NULL, *intra_text = " -1 ";
    const topo_param_t table[] = {
        {"coll_topo_ports", TOPO_PARAM_INT, &ports, NULL, 0, 1024, false, 0},
        {"coll_topo_verbose", TOPO_PARAM_INT, &verbose, NULL, 0, 100, false, 0},
        {"coll_topo_eager_limit", TOPO_PARAM_LONG, &eager, NULL, -1, 1e12, false, -1},
        {"coll_topo_segment_size", TOPO_PARAM_SIZE, &seg, NULL, 0, 1e12, false, 1048576},
        {"coll_topo_scratch_keep", TOPO_PARAM_SIZE, &keep, NULL, 0, 1e12, false, 4194304},
        {"coll_topo_autotune_margin", TOPO_PARAM_DOUBLE, &margin, NULL, -1, 1e6, true, 0.0},
        {"coll_topo_alpha", TOPO_PARAM_DOUBLE, &alpha, &alpha_text, 0, 1, false, 2e-6},
        {"coll_topo_beta", TOPO_PARAM_DOUBLE, &beta, &beta_text, 0, 1e-3, false, 1e-10},
        {"coll_topo_gamma", TOPO_PARAM_DOUBLE, &gamma, &gamma_text, 0, 1e-3, false, 3e-10},
        {"coll_topo_copy", TOPO_PARAM_DOUBLE, &copy, &copy_text, 0, 1e-3, false, 4e-10},
        {"coll_topo_hop", TOPO_PARAM_DOUBLE, &hop, &hop_text, 0, 1, false, 5e-9},
        {"coll_topo_intra_alpha", TOPO_PARAM_DOUBLE, &intra, &intra_text, -1, 1, false, 5e-7},
    };
    told_t told = {0};
    const int n = (int)(sizeof(table) / sizeof(table[0]));
    ck_assert_int_eq(topo_params_check(table, n, tell, &told), 8);
    ck_assert_int_eq(told.n, 8);
    /* reported in table order, each with the value as given */
    ck_assert_str_eq(told.said[0], "coll_topo_ports=1000000");
    ck_assert_str_eq(told.said[1], "coll_topo_eager_limit=-5");
    ck_assert_str_eq(told.said[2], "coll_topo_segment_size=18446744073709551615");
    ck_assert_str_eq(told.said[3], "coll_topo_autotune_margin=-1");
    ck_assert_str_eq(told.said[4], "coll_topo_alpha=-2e-6");
    ck_assert_str_eq(told.said[5], "coll_topo_beta=nan");
    ck_assert_str_eq(told.said[6], "coll_topo_gamma=inf");
    ck_assert_str_eq(told.said[7], "coll_topo_copy=1e-10x"); /* not a number */
    /* the defaults where out of range, the values elsewhere */
    ck_assert_int_eq(ports, 0);
    ck_assert_int_eq(verbose, 2);
    ck_assert_int_eq(eager, -1);
    ck_assert_uint_eq(seg, 1048576);
    ck_assert_uint_eq(keep, 4096);
    ck_assert(0.0 == margin);
    ck_assert(2e-6 == alpha);
    ck_assert(1e-10 == beta);
    ck_assert(3e-10 == gamma);
    ck_assert(4e-10 == copy);
    ck_assert(5e-9 == hop);   /* unset text: the default, not reported */
    ck_assert(-1.0 == intra); /* blanks around a number are fine */
}
END_TEST

/* Text that is not a number is reported as given, and the default used. */
START_TEST(test_check_text)
{
    double v = 0.0;
    char *text = "1e-10x";
    const topo_param_t p = {"coll_topo_copy", TOPO_PARAM_DOUBLE, &v, &text, 0, 1e-3, false, 1e-10};
    told_t told = {0};
    ck_assert_int_eq(topo_params_check(&p, 1, tell, &told), 1);
    ck_assert_str_eq(told.said[0], "coll_topo_copy=1e-10x");
    ck_assert(1e-10 == v);
    /* in range: parsed, nothing said; a NULL callback is fine */
    text = "2.5e-10";
    told.n = 0;
    ck_assert_int_eq(topo_params_check(&p, 1, tell, &told), 0);
    ck_assert_int_eq(told.n, 0);
    ck_assert(2.5e-10 == v);
    text = "-0.1";
    ck_assert_int_eq(topo_params_check(&p, 1, NULL, NULL), 1);
    ck_assert(1e-10 == v);
    /* the bounds are in range, values just outside are not */
    text = "0.001";
    ck_assert_int_eq(topo_params_check(&p, 1, NULL, NULL), 0);
    ck_assert(1e-3 == v);
    text = "0.0010000001";
    ck_assert_int_eq(topo_params_check(&p, 1, NULL, NULL), 1);
    text = "-0";
    ck_assert_int_eq(topo_params_check(&p, 1, NULL, NULL), 0);
    int i = INT_MIN;
    const topo_param_t q = {
        "coll_topo_price_ranks", TOPO_PARAM_INT, &i, NULL, -1, INT_MAX, false, 256};
    ck_assert_int_eq(topo_params_check(&q, 1, NULL, NULL), 1);
    ck_assert_int_eq(i, 256);
    i = INT_MAX;
    ck_assert_int_eq(topo_params_check(&q, 1, NULL, NULL), 0);
    ck_assert_int_eq(i, INT_MAX);
}
END_TEST

/* The network tier from what the BTLs publish: the slowest bandwidth, the
 * largest latency, the smallest eager limit less the headers; values no
 * BTL publishes (0) stay unset. */
START_TEST(test_btl_costs)
{
    topo_btl_costs_t c;
    /* one TCP module on a 10 Gbit/s interface: 8e-10 s/B, 100 us */
    const topo_btl_info_t tcp[] = {{"tcp", 10000, 100, 65536}};
    ck_assert(topo_btl_costs(tcp, 1, 64, &c));
    ck_assert_double_eq_tol(c.beta, 8e-10, 1e-22);
    ck_assert_double_eq_tol(c.alpha, 1e-4, 1e-16);
    ck_assert_double_eq(c.eager, 65536 - 64);
    ck_assert_int_eq(c.beta_from, 0);
    /* 200 Mbit/s: 4e-8 s/B */
    const topo_btl_info_t slow[] = {{"tcp", 200, 0, 0}};
    ck_assert(topo_btl_costs(slow, 1, 64, &c));
    ck_assert_double_eq_tol(c.beta, 4e-8, 1e-20);
    ck_assert(c.alpha < 0 && c.alpha_from < 0 && c.eager < 0 && c.eager_from < 0);
    /* several: each value from its own BTL */
    const topo_btl_info_t mix[] = {{"a", 10000, 5, 4096}, {"b", 100, 2, 65536}, {"c", 0, 0, 12288}};
    ck_assert(topo_btl_costs(mix, 3, 64, &c));
    ck_assert_int_eq(c.beta_from, 1);
    ck_assert_double_eq_tol(c.beta, 8e-8, 1e-20);
    ck_assert_int_eq(c.alpha_from, 0);
    ck_assert_double_eq_tol(c.alpha, 5e-6, 1e-18);
    ck_assert_int_eq(c.eager_from, 0);
    ck_assert_double_eq(c.eager, 4096 - 64);
    /* nothing known, or nothing at all: no value, false */
    const topo_btl_info_t none[] = {{"x", 0, 0, 32}, {"y", NAN, -1, INFINITY}};
    ck_assert(!topo_btl_costs(none, 2, 64, &c));
    ck_assert(c.alpha < 0 && c.beta < 0 && c.eager < 0);
    ck_assert(!topo_btl_costs(NULL, 0, 0, &c));
    ck_assert_int_eq(c.beta_from, -1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("params");
    TCase *tc = ut_tcase(s, "ranges", 120);
    tcase_add_test(tc, test_parse_double);
    tcase_add_test(tc, test_btl_costs);
    tcase_add_test(tc, test_format_double);
    tcase_add_test(tc, test_range_text);
    tcase_add_test(tc, test_check_table);
    tcase_add_test(tc, test_check_text);
    return ut_run_suite(s);
}
