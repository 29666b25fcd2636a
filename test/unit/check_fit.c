/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests: the fitting of topo-calibrate (tools/fit.c). */
#include "fit.h"
#include "unit_common.h"

#include <check.h>

START_TEST(test_exact_line)
{
    /* one-way times of a link with alpha 1.5 us and 10 GB/s, sizes 0 B to
     * 16 MiB: the fit gives both back */
    double x[32], y[32];
    int n = 0;
    for (double s = 0.0; s <= 16.0 * 1048576; s = s > 0 ? s * 2 : 1) {
        x[n] = s;
        y[n] = 1.5e-6 + s * 1e-10;
        n++;
    }
    double a = 0, b = 0;
    ck_assert_int_eq(topo_fit_line(x, y, n, &a, &b), 0);
    ut_assert_near_eps(a, 1.5e-6, 1e-12);
    ut_assert_near_eps(b, 1e-10, 1e-16);
}
END_TEST

START_TEST(test_noisy_and_degenerate)
{
    /* symmetric noise around y = 2 + 3x leaves the fit on the line */
    const double x[] = {0, 1, 2, 3, 4, 5}, y[] = {2.5, 4.5, 8.5, 10.5, 14.5, 16.5};
    double a = 0, b = 0;
    ck_assert_int_eq(topo_fit_line(x, y, 6, &a, &b), 0);
    ut_assert_near_eps(b, 3.0, 0.2);
    ut_assert_near_eps(a, 2.0, 0.5);
    const double same[] = {4, 4, 4};
    ck_assert_int_eq(topo_fit_line(same, y, 3, &a, &b), -1);
    ck_assert_int_eq(topo_fit_line(x, y, 1, &a, &b), -1);
}
END_TEST

START_TEST(test_range)
{
    /* points outside [lo, hi] are ignored: y = 1 + 2x inside, junk outside */
    const double x[] = {1, 2, 3, 4, 100, 200}, y[] = {3, 5, 7, 9, -50, 1e6};
    double a = 0, b = 0;
    ck_assert_int_eq(topo_fit_range(x, y, 6, 1, 4, &a, &b), 0);
    ut_assert_near(a, 1.0);
    ut_assert_near(b, 2.0);
    ck_assert_int_eq(topo_fit_range(x, y, 6, 3, 3, &a, &b), -1);  /* one point */
    ck_assert_int_eq(topo_fit_range(x, y, 6, 5, 99, &a, &b), -1); /* none */
}
END_TEST

/* sizes 0, 1, 2, 4, .. 16 MiB as topo-calibrate measures them; returns n */
static int sizes(double *x)
{
    int n = 0;
    for (double s = 0.0; s <= 16.0 * 1048576; s = s > 0 ? s * 2 : 1) {
        x[n++] = s;
    }
    return n;
}

/* a + b x + c [x > limit], with multiplicative noise +-noise alternating */
static int step_times(double *x, double *y, double a, double b, double c, double limit,
                      double noise)
{
    const int n = sizes(x);
    for (int i = 0; i < n; i++) {
        y[i] = (a + b * x[i] + (x[i] > limit ? c : 0.0)) * (1.0 + (i % 2 ? noise : -noise));
    }
    return n;
}

static double index_of(const double *x, int n, double v)
{
    for (int i = 0; i < n; i++) {
        if (x[i] == v) {
            return i;
        }
    }
    return -1;
}

START_TEST(test_step_exact)
{
    /* shared memory: 0.5 us, 0.1 ns/B, +3 us rendezvous above 4032 B */
    double x[32], y[32], a = 0, b = 0, c = 0;
    int n = step_times(x, y, 0.5e-6, 1e-10, 3e-6, 4032, 0.0);
    ck_assert_int_eq(topo_fit_step(x, y, n, 256, &a, &b, &c), index_of(x, n, 2048));
    ut_assert_near_eps(a, 0.5e-6, 1e-12);
    ut_assert_near_eps(b, 1e-10, 1e-16);
    ut_assert_near_eps(c, 3e-6, 1e-12);
    /* TCP: 10 us, 0.2 ns/B, +25 us above 65472 B */
    n = step_times(x, y, 10e-6, 2e-10, 25e-6, 65472, 0.0);
    ck_assert_int_eq(topo_fit_step(x, y, n, 256, &a, &b, &c), index_of(x, n, 32768));
    ut_assert_near_eps(c, 25e-6, 1e-11);
}
END_TEST

START_TEST(test_step_noisy_and_none)
{
    double x[32], y[32], a = 0, b = 0, c = 0;
    /* 5% noise does not hide a 3 us step over a 1 us time */
    int n = step_times(x, y, 1e-6, 1e-10, 3e-6, 4032, 0.05);
    ck_assert_int_eq(topo_fit_step(x, y, n, 256, &a, &b, &c), index_of(x, n, 2048));
    ut_assert_near_eps(c, 3e-6, 0.5e-6);
    /* no step, exact or noisy: none found */
    n = step_times(x, y, 1e-6, 1e-10, 0.0, 0, 0.0);
    ck_assert_int_eq(topo_fit_step(x, y, n, 256, &a, &b, &c), -1);
    n = step_times(x, y, 1e-6, 1e-10, 0.0, 0, 0.05);
    ck_assert_int_eq(topo_fit_step(x, y, n, 256, &a, &b, &c), -1);
    /* of two steps the larger wins: +0.3 us above 300 B (an inline-send
     * limit, say) and +3 us above 4032 B */
    n = step_times(x, y, 1e-6, 1e-10, 3e-6, 4032, 0.0);
    for (int i = 0; i < n; i++) {
        y[i] += x[i] > 300 ? 0.3e-6 : 0.0;
    }
    ck_assert_int_eq(topo_fit_step(x, y, n, 256, &a, &b, &c), index_of(x, n, 2048));
    /* no split at or above min_x */
    ck_assert_int_eq(topo_fit_step(x, y, n, 32 * 1048576.0, &a, &b, &c), -1);
    /* too few points */
    ck_assert_int_eq(topo_fit_step(x, y, 3, 0, &a, &b, &c), -1);
}
END_TEST

/* Ping-pongs measured on a 2-core VM (Open MPI 4.1.4, one-way us, sizes
 * 0 B .. 16 MiB): vader (eager limit 4096: the jump from 2048 to 4096 B)
 * and TCP over loopback (65536: from 32768 to 65536 B, with a smaller
 * rise before it).  An absolute largest-jump rule picked 524288 for TCP. */
static const double vader_us[] = {
    0.3872,  0.4076,  0.4059,  0.4091,   0.4088,   0.4677,   0.4801,   0.4907,   0.4865,
    0.5051,  0.7889,  0.8063,  0.9100,   4.1322,   4.4987,   5.3951,   7.1669,   10.4680,
    16.7735, 29.4902, 53.3774, 109.7041, 215.2478, 424.9432, 867.9303, 1772.6222};
static const double tcp_us[] = {
    9.5549,  9.6562,  9.6646,   9.7024,   9.6264,   9.6737,   9.7188,    9.7480,   9.7922,
    9.8261,  10.1439, 10.3375,  11.2301,  11.3141,  12.3813,  13.1459,   19.5481,  48.6344,
    56.5483, 72.6366, 108.0710, 233.8684, 398.6313, 870.7273, 1823.3770, 3743.7518};

START_TEST(test_step_measured)
{
    double x[32], a = 0, b = 0, c = 0;
    const int n = sizes(x);
    ck_assert_int_eq(n, (int)(sizeof(vader_us) / sizeof(vader_us[0])));
    ck_assert_int_eq(n, (int)(sizeof(tcp_us) / sizeof(tcp_us[0])));
    ck_assert_int_eq(topo_fit_step(x, vader_us, n, 256, &a, &b, &c), index_of(x, n, 2048));
    ck_assert(c > 2.0 && c < 4.0);
    ck_assert_int_eq(topo_fit_step(x, tcp_us, n, 256, &a, &b, &c), index_of(x, n, 32768));
    ck_assert(c > 15.0 && c < 40.0);
}
END_TEST

/* the time of a link with the switch at 4032 B (ctx: the count of calls) */
static double switch_at_4032(size_t bytes, void *ctx)
{
    ++*(int *)ctx;
    return 1e-6 + 1e-10 * (double)bytes + (bytes > 4032 ? 3e-6 : 0.0);
}

START_TEST(test_bisect_limit)
{
    int calls = 0;
    ck_assert_uint_eq(
        topo_fit_bisect_limit(switch_at_4032, &calls, 2048, 4096, 1, 1e-6, 1e-10, 3e-6), 4032);
    ck_assert_int_eq(calls, 11); /* log2(2048) halvings */
    calls = 0;
    const size_t l =
        topo_fit_bisect_limit(switch_at_4032, &calls, 2048, 4096, 8, 1e-6, 1e-10, 3e-6);
    ck_assert(l <= 4032 && l + 8 > 4032);
    ck_assert_int_eq(calls, 8);
    /* an empty interval asks nothing */
    calls = 0;
    ck_assert_uint_eq(
        topo_fit_bisect_limit(switch_at_4032, &calls, 4032, 4033, 1, 1e-6, 1e-10, 3e-6), 4032);
    ck_assert_int_eq(calls, 0);
}
END_TEST

START_TEST(test_median)
{
    double odd[] = {5, 1, 9, 3, 7}, even[] = {4, 1, 3, 2};
    ut_assert_near(topo_fit_median(odd, 5), 5.0);
    ut_assert_near(topo_fit_median(even, 4), 2.5);
    double one[] = {42};
    ut_assert_near(topo_fit_median(one, 1), 42.0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("fit");
    TCase *tc = ut_tcase(s, "fit", 120);
    tcase_add_test(tc, test_exact_line);
    tcase_add_test(tc, test_noisy_and_degenerate);
    tcase_add_test(tc, test_range);
    tcase_add_test(tc, test_step_exact);
    tcase_add_test(tc, test_step_noisy_and_none);
    tcase_add_test(tc, test_step_measured);
    tcase_add_test(tc, test_bisect_limit);
    tcase_add_test(tc, test_median);
    return ut_run_suite(s);
}
