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
    TCase *tc = tcase_create("fit");
    tcase_add_test(tc, test_exact_line);
    tcase_add_test(tc, test_noisy_and_degenerate);
    tcase_add_test(tc, test_median);
    suite_add_tcase(s, tc);
    return ut_run_suite(s);
}
