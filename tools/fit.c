/* Copyright (c) The ompi-coll-topo authors. */
/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Least squares and medians (fit.h).
 */
#include "fit.h"

#include <math.h>
#include <stdlib.h>

int topo_fit_line(const double *x, const double *y, int n, double *a, double *b)
{
    return topo_fit_range(x, y, n, -INFINITY, INFINITY, a, b);
}

int topo_fit_range(const double *x, const double *y, int n, double lo, double hi, double *a,
                   double *b)
{
    /* centred sums: stable for x spanning many orders of magnitude */
    double mx = 0.0, my = 0.0;
    int m = 0;
    for (int i = 0; i < n; i++) {
        if (x[i] >= lo && x[i] <= hi) {
            mx += x[i];
            my += y[i];
            m++;
        }
    }
    if (m < 2) {
        return -1;
    }
    mx /= m;
    my /= m;
    double sxx = 0.0, sxy = 0.0;
    for (int i = 0; i < n; i++) {
        if (x[i] >= lo && x[i] <= hi) {
            sxx += (x[i] - mx) * (x[i] - mx);
            sxy += (x[i] - mx) * (y[i] - my);
        }
    }
    if (!(sxx > 0.0)) {
        return -1;
    }
    *b = sxy / sxx;
    *a = my - *b * mx;
    return 0;
}

/* Weighted least squares of y = p0 + p1 (x / xs) [+ p2 [i > k]] with
 * weights 1/y^2: m = 2 (no step) or 3 parameters, normal equations solved
 * by Gaussian elimination with partial pivoting (x / xs keeps them scaled).
 * Returns 0 and the weighted residual in *res, or -1 when singular. */
static int fit_relative(const double *x, const double *y, int n, double xs, int m, int k,
                        double p[3], double *res)
{
    double A[3][4] = {{0}};
    for (int i = 0; i < n; i++) {
        const double f[3] = {1.0, x[i] / xs, i > k ? 1.0 : 0.0};
        const double w = 1.0 / (y[i] * y[i]);
        for (int r = 0; r < m; r++) {
            for (int q = 0; q < m; q++) {
                A[r][q] += w * f[r] * f[q];
            }
            A[r][m] += w * f[r] * y[i];
        }
    }
    for (int col = 0; col < m; col++) {
        int piv = col;
        for (int r = col + 1; r < m; r++) {
            if (fabs(A[r][col]) > fabs(A[piv][col])) {
                piv = r;
            }
        }
        if (!(fabs(A[piv][col]) > 1e-300)) {
            return -1;
        }
        for (int q = 0; q <= m; q++) {
            const double t = A[col][q];
            A[col][q] = A[piv][q];
            A[piv][q] = t;
        }
        for (int r = col + 1; r < m; r++) {
            const double g = A[r][col] / A[col][col];
            for (int q = col; q <= m; q++) {
                A[r][q] -= g * A[col][q];
            }
        }
    }
    for (int r = m - 1; r >= 0; r--) {
        double v = A[r][m];
        for (int q = r + 1; q < m; q++) {
            v -= A[r][q] * p[q];
        }
        p[r] = v / A[r][r];
    }
    if (m < 3) {
        p[2] = 0.0;
    }
    *res = 0.0;
    for (int i = 0; i < n; i++) {
        const double e = (y[i] - p[0] - p[1] * x[i] / xs - (i > k ? p[2] : 0.0)) / y[i];
        *res += e * e;
    }
    return 0;
}

int topo_fit_step(const double *x, const double *y, int n, double min_x, double *a, double *b,
                  double *c)
{
    if (n < 4 || !(x[n - 1] > 0.0)) {
        return -1;
    }
    const double xs = x[n - 1];
    double line[3], res_line;
    if (0 != fit_relative(x, y, n, xs, 2, n, line, &res_line)) {
        return -1;
    }
    int best = -1;
    double best_res = 0.0, bp[3] = {0};
    for (int k = 1; k + 2 < n; k++) {
        double p[3], res;
        if (x[k] < min_x || 0 != fit_relative(x, y, n, xs, 3, k, p, &res)) {
            continue;
        }
        const double above = p[0] + p[1] * x[k + 1] / xs;
        if (p[2] >= 0.25 * above && res <= 0.5 * res_line && (best < 0 || res < best_res)) {
            best = k;
            best_res = res;
            bp[0] = p[0];
            bp[1] = p[1];
            bp[2] = p[2];
        }
    }
    if (best >= 0) {
        *a = bp[0];
        *b = bp[1] / xs;
        *c = bp[2];
    }
    return best;
}

size_t topo_fit_bisect_limit(double (*time)(size_t bytes, void *ctx), void *ctx, size_t lo,
                             size_t hi, size_t tol, double a, double b, double c)
{
    while (hi - lo > (tol > 0 ? tol : 1)) {
        const size_t mid = lo + (hi - lo) / 2;
        if (time(mid, ctx) > a + b * (double)mid + 0.5 * c) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    return lo;
}

static int cmp(const void *p, const void *q)
{
    double u = *(const double *)p, v = *(const double *)q;
    return (u > v) - (u < v);
}

double topo_fit_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(double), cmp);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
